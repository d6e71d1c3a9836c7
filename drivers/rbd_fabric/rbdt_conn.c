// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: connections. The connect requests that rbdt's listeners
 * (rbdt_cm.c) receive are checked and accepted or rejected here: a new
 * queue 0 is counted against the caps on connections not logged in yet
 * (half-open), an I/O queue joins its session by the handle in its
 * connect request. Also here: the rdma_cm events of accepted connections,
 * the RDMA devices in use (one PD each, shared by their queues) and their
 * removal, and the lists of all queues and sessions.
 *
 * Every rdma_cm connection is a &struct rbdt_queue (rbdt_queue.c). Queue 0
 * starts without a session; its LOGIN (rbdt_login.c) creates the
 * &struct rbdt_session (rbdt_session.c), one LIO se_session.
 *
 * Locking: rbdt_sess_lock (outer) protects the session and queue lists,
 * session state and session queue tables; q->lock (inner) protects the
 * queue's dying flag, slot state and every post on its QP.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>

#include "rbdt.h"

static LIST_HEAD(rbdt_devices);
static DEFINE_MUTEX(rbdt_dev_mutex);

/*
 * Protects rbdt_queues, rbdt_sessions, rbdt_halfopen, session state and
 * queue tables.
 */
DEFINE_SPINLOCK(rbdt_sess_lock);
LIST_HEAD(rbdt_queues);
LIST_HEAD(rbdt_sessions);
/* Queues 0 not logged in yet (&rbdt_queue.halfopen). */
LIST_HEAD(rbdt_halfopen);

/* Connections and logins refused by a cap, shown in debugfs. */
struct rbdt_refusals rbdt_refused;

/* Devices */

static struct rbdt_device *rbdt_device_get(struct ib_device *ib_dev)
{
	struct rbdt_device *dev;

	mutex_lock(&rbdt_dev_mutex);
	list_for_each_entry(dev, &rbdt_devices, entry) {
		if (dev->ib_dev == ib_dev) {
			kref_get(&dev->ref);
			goto out_unlock;
		}
	}

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		goto out_unlock;
	dev->ib_dev = ib_dev;
	dev->pd = ib_alloc_pd(ib_dev, 0);
	if (IS_ERR(dev->pd)) {
		pr_err("%s: ib_alloc_pd failed (%ld)\n", dev_name(&ib_dev->dev),
		       PTR_ERR(dev->pd));
		kfree(dev);
		dev = NULL;
		goto out_unlock;
	}
	kref_init(&dev->ref);
	list_add_tail(&dev->entry, &rbdt_devices);

out_unlock:
	mutex_unlock(&rbdt_dev_mutex);
	return dev;
}

static void rbdt_device_release(struct kref *ref)
{
	struct rbdt_device *dev = container_of(ref, struct rbdt_device, ref);

	list_del(&dev->entry);
	ib_dealloc_pd(dev->pd);
	kfree(dev);
}

void rbdt_device_put(struct rbdt_device *dev)
{
	mutex_lock(&rbdt_dev_mutex);
	kref_put(&dev->ref, rbdt_device_release);
	mutex_unlock(&rbdt_dev_mutex);
}

/* Connections not logged in yet */

/* Stop counting @q against the caps; called with rbdt_sess_lock held. */
void rbdt_halfopen_del(struct rbdt_queue *q)
{
	lockdep_assert_held(&rbdt_sess_lock);
	if (!q->halfopen)
		return;
	q->halfopen = false;
	list_del_init(&q->halfopen_entry);
}

/* Same IP address, any port. */
static bool rbdt_same_host(const struct sockaddr_storage *a,
			   const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/**
 * rbdt_halfopen_admit() - count a new queue 0 against the caps
 * @q: The queue, with @q->peer and @q->local set; nothing allocated for
 *	it yet but itself.
 * @cm_id: Its id, whose listener holds the caps (rbdt_listener_caps()).
 *
 * A connection that has not logged in is anonymous: it holds a QP, a CQ
 * and buffers for up to %RBD_LOGIN_TIMEOUT_MS on nothing but a connect
 * request. Those on the listener's address are capped in all and per
 * source address; a refusal is counted and logged (rate-limited).
 *
 * Context: CM handler.
 * Return: true if @q may go on and is now on the half-open list.
 */
static bool rbdt_halfopen_admit(struct rbdt_queue *q,
				struct rdma_cm_id *cm_id)
{
	u32 max_total, max_host, total = 0, host = 0;
	struct rbdt_queue *o;
	unsigned long flags;

	rbdt_listener_caps(cm_id, &max_total, &max_host);
	spin_lock_irqsave(&rbdt_sess_lock, flags);
	list_for_each_entry(o, &rbdt_halfopen, halfopen_entry) {
		if (!rbdt_addr_equal(&o->local, &q->local))
			continue;
		total++;
		if (rbdt_same_host(&o->peer, &q->peer))
			host++;
	}
	if (total < max_total && host < max_host) {
		q->halfopen = true;
		list_add_tail(&q->halfopen_entry, &rbdt_halfopen);
	}
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	if (q->halfopen)
		return true;

	if (host >= max_host) {
		atomic64_inc(&rbdt_refused.halfopen_host);
		pr_info_ratelimited("connection from %pISpc to %pISpc refused: %u from this host not logged in yet (max_halfopen_per_host %u)\n",
				    &q->peer, &q->local, host, max_host);
	} else {
		atomic64_inc(&rbdt_refused.halfopen);
		pr_info_ratelimited("connection from %pISpc to %pISpc refused: %u not logged in yet (max_halfopen %u)\n",
				    &q->peer, &q->local, total, max_total);
	}
	return false;
}

/* Drop @q from the half-open list, on a failed connect request. */
static void rbdt_halfopen_drop(struct rbdt_queue *q)
{
	unsigned long flags;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	rbdt_halfopen_del(q);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
}

/* Reject a connect request; the caller has logged why. */
static int __rbdt_reject(struct rdma_cm_id *cm_id, u16 reason)
{
	struct rbd_cm_rej rej = {
		.magic = cpu_to_le32(RBD_CM_MAGIC),
		.version = cpu_to_le16(RBD_PROTO_VERSION),
		.length = cpu_to_le16(sizeof(rej)),
		.reason = cpu_to_le16(reason),
		.min_version = cpu_to_le16(RBD_PROTO_VERSION_MIN),
		.max_version = cpu_to_le16(RBD_PROTO_VERSION_MAX),
	};
	int ret;

	ret = rdma_reject(cm_id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	if (ret)
		pr_debug("rdma_reject failed (%d)\n", ret);
	/* Non-zero: the CM destroys this new id once we return. */
	return 1;
}

static int rbdt_reject(struct rdma_cm_id *cm_id, u16 reason)
{
	pr_info_ratelimited("rejecting connection from %pISpc to %pISpc: %s\n",
			    &cm_id->route.addr.dst_addr,
			    &cm_id->route.addr.src_addr,
			    rbd_reject_str(reason));
	return __rbdt_reject(cm_id, reason);
}

/* Checks of an I/O queue's connect request against its session. */
static u16 rbdt_join_check(const struct rbd_cm_req *req,
			   const struct sockaddr_storage *peer,
			   struct rbdt_session **psess)
{
	u64 handle = le64_to_cpu(req->session_handle);
	u16 qid = le16_to_cpu(req->qid);
	struct rbdt_session *sess;

	lockdep_assert_held(&rbdt_sess_lock);
	list_for_each_entry(sess, &rbdt_sessions, entry) {
		if (sess->handle != handle)
			continue;
		if (sess->state != RBDT_SESS_LIVE)
			return RBD_REJ_SHUTTING_DOWN;
		if (!sess->queues[0] ||
		    !rbdt_same_host(&sess->queues[0]->peer, peer))
			return RBD_REJ_UNKNOWN_SESSION;
		if (READ_ONCE(sess->logout))
			return RBD_REJ_SHUTTING_DOWN;
		if (qid > sess->nr_queues || sess->queues[qid])
			return RBD_REJ_INVALID_QID;
		if (le16_to_cpu(req->queue_depth) >
		    le16_to_cpu(sess->login.queue_depth))
			return RBD_REJ_LIMITS;
		if (le64_to_cpu(req->features) !=
		    le64_to_cpu(sess->login.features))
			return RBD_REJ_BAD_REQUEST;
		*psess = sess;
		return RBD_REJ_NONE;
	}
	return RBD_REJ_UNKNOWN_SESSION;
}

/*
 * Enter a new queue in the queue list and, an I/O queue, in the table of
 * its session @sess. Return: 0, or why the session no longer takes it.
 */
static u16 rbdt_queue_add(struct rbdt_queue *q, struct rbdt_session *sess)
{
	unsigned long flags;
	u16 reason = 0;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	if (sess) {
		if (sess->state != RBDT_SESS_LIVE)
			reason = RBD_REJ_SHUTTING_DOWN;
		else if (sess->queues[q->qid])
			reason = RBD_REJ_INVALID_QID;
		if (reason)
			goto out_unlock;
		sess->queues[q->qid] = q;
		q->sess = sess;
	}
	list_add_tail(&q->entry, &rbdt_queues);
out_unlock:
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	return reason;
}

/* Accept the connection of @q: the CM reply to @req, RDMA READ credits. */
static void rbdt_queue_accept(struct rbdt_queue *q,
			      const struct rbd_cm_req *req,
			      const struct rdma_conn_param *cp)
{
	struct rdma_cm_id *cm_id = q->cm_id;
	struct rdma_conn_param param = {};
	struct rbd_cm_rep rep = {};
	int ret;

	rep.magic = cpu_to_le32(RBD_CM_MAGIC);
	rep.version = cpu_to_le16(RBD_PROTO_VERSION);
	rep.length = cpu_to_le16(sizeof(rep));
	rep.qid = req->qid;
	rep.queue_depth = req->queue_depth;
	if (!q->qid && (q->features & RBD_FEAT_AUTH))
		rep.flags |= cpu_to_le32(RBD_CM_REP_F_AUTH);
	if (!q->qid && (q->features & RBD_FEAT_REINSTATE))
		rep.flags |= cpu_to_le32(RBD_CM_REP_F_REINSTATE);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.initiator_depth = min_t(u8, cp->initiator_depth,
				      cm_id->device->attrs.max_qp_init_rd_atom);
	q->ord = param.initiator_depth;
	param.responder_resources = 0;
	param.rnr_retry_count = 7;
	param.flow_control = 1;

	ret = rdma_accept(cm_id, &param);
	if (ret) {
		/* rdma_accept() rejected and moved the QP to ERR already. */
		pr_err_ratelimited("qid %u %pISpc: rdma_accept failed (%d)\n",
				   q->qid, &q->peer, ret);
		rbdt_queue_error(q);
	}
}

/**
 * rbdt_connect_request() - handle RDMA_CM_EVENT_CONNECT_REQUEST
 * @cm_id: The new connection's id; its context is the listener.
 * @event: The event.
 *
 * Context: CM handler of @cm_id.
 * Return: 0 if the connection was accepted or is being torn down by rbdt,
 * 1 to make the CM destroy @cm_id.
 */
int rbdt_connect_request(struct rdma_cm_id *cm_id, struct rdma_cm_event *event)
{
	const struct rdma_conn_param *cp = &event->param.conn;
	struct rbdt_session *sess = NULL;
	struct rbd_cm_req req;
	struct rbdt_queue *q;
	unsigned long flags;
	enum rbd_check c;
	u16 reason;

	c = rbd_check_cm_req(cp->private_data, cp->private_data_len, &req);
	if (c) {
		pr_info_ratelimited("connect request from %pISpc: %s\n",
				    &cm_id->route.addr.dst_addr,
				    rbd_check_str(c));
		return rbdt_reject(cm_id, rbd_check_reject_reason(c));
	}
	if (le16_to_cpu(req.qid)) {
		spin_lock_irqsave(&rbdt_sess_lock, flags);
		reason = rbdt_join_check(&req, &cm_id->route.addr.dst_addr,
					 &sess);
		if (!reason)
			kref_get(&sess->ref);
		spin_unlock_irqrestore(&rbdt_sess_lock, flags);
		if (reason)
			return rbdt_reject(cm_id, reason);
	}

	reason = RBD_REJ_NO_RESOURCES;
	q = rbdt_queue_new(cm_id, &req, sess);
	if (!q)
		goto out_put_sess;
	if (!q->qid && !rbdt_halfopen_admit(q, cm_id)) {
		kfree(q);
		return __rbdt_reject(cm_id, RBD_REJ_NO_RESOURCES);
	}
	q->dev = rbdt_device_get(cm_id->device);
	if (!q->dev) {
		rbdt_halfopen_drop(q);
		kfree(q);
		goto out_put_sess;
	}
	if (rbdt_queue_start_ib(q))
		goto out_destroy;
	reason = rbdt_queue_add(q, sess);
	if (reason) {
		rbdt_queue_drain_unused(q);
		goto out_destroy;
	}
	if (sess)
		rbdt_session_put(sess);	/* the queue table keeps it */
	else
		queue_delayed_work(rbdt_wq, &q->timeout_work,
				   msecs_to_jiffies(RBD_LOGIN_TIMEOUT_MS));
	rbdt_queue_accept(q, &req, cp);
	return 0;

out_destroy:
	if (q->qp) {
		ib_destroy_qp(q->qp);
		q->qp = NULL;
		cm_id->qp = NULL;
	}
	q->cm_id = NULL;	/* the CM destroys it */
	rbdt_queue_destroy(q);
out_put_sess:
	if (sess)
		rbdt_session_put(sess);
	return rbdt_reject(cm_id, reason);
}

/**
 * rbdt_queue_cm_event() - rdma_cm events of an accepted connection
 * @cm_id: The connection's id.
 * @event: The event.
 *
 * Context: CM handler of @cm_id.
 * Return: 0; the id is destroyed by the queue's teardown.
 */
int rbdt_queue_cm_event(struct rdma_cm_id *cm_id, struct rdma_cm_event *event)
{
	struct rbdt_queue *q = cm_id->qp->qp_context;

	pr_debug("qid %u %pISpc: %s (%d), status %d\n", q->qid, &q->peer,
		 rdma_event_msg(event->event), event->event, event->status);

	switch (event->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		pr_debug("qid %u: connected %pISpc<->%pISpc\n", q->qid,
			 &cm_id->route.addr.src_addr,
			 &cm_id->route.addr.dst_addr);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		rbdt_queue_error(q);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* rbdt_ib_remove() tears the queue down. */
		break;
	default:
		break;
	}
	return 0;
}

/* RDMA devices */

static int rbdt_ib_add(struct ib_device *ib_dev)
{
	return 0;
}

static void rbdt_ib_remove(struct ib_device *ib_dev, void *client_data)
{
	struct rbdt_queue *q;
	unsigned long flags;
	bool busy;

	for (;;) {
		busy = false;
		spin_lock_irqsave(&rbdt_sess_lock, flags);
		list_for_each_entry(q, &rbdt_queues, entry) {
			if (q->dev->ib_dev != ib_dev)
				continue;
			busy = true;
			__rbdt_queue_error(q);
		}
		spin_unlock_irqrestore(&rbdt_sess_lock, flags);
		if (!busy)
			break;
		flush_workqueue(rbdt_wq);
		msleep(20);
	}
}

struct ib_client rbdt_ib_client = {
	.name	= "rbdt",
	.add	= rbdt_ib_add,
	.remove	= rbdt_ib_remove,
};

/**
 * rbdt_conn_exit() - module exit checks; after ib_unregister_client()
 */
void rbdt_conn_exit(void)
{
	flush_workqueue(rbdt_wq);
	WARN_ON(!list_empty(&rbdt_queues));
	WARN_ON(!list_empty(&rbdt_sessions));
	WARN_ON(!list_empty(&rbdt_devices));
}
