// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: connections (queues), sessions, login, logout and teardown.
 *
 * Every rdma_cm connection is a &struct rbdt_queue with its own QP and
 * one CQ for both directions, polled in rbdt's CQ work (rbdt_cq.c), so
 * receive handling runs in process context. Queue 0 starts without a
 * session; its LOGIN creates the &struct rbdt_session (one LIO
 * se_session) and I/O queues join it by session handle in their connect
 * request.
 *
 * Teardown. Any error, disconnect or LOGOUT marks the queue dying under
 * its lock; from then on nothing is posted on it. A queue with a session
 * hands the teardown to the session's release work, which, for all its
 * queues: disconnects (QP to ERR), drains (from this work, never from the
 * CQ context), then stops the LIO session, waits for its commands,
 * removes it, and destroys the queues: rdma_cm id, QP, CQ, buffers, and
 * last the device reference (and with it the PD). A queue 0 that never
 * logged in is torn down alone by its own release work.
 *
 * Locking: rbdt_sess_lock (outer) protects the session and queue lists,
 * session state and session queue tables; q->lock (inner) protects the
 * queue's dying flag, slot state and every post on its QP.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>
#include <target/target_core_backend.h>

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

static void rbdt_queue_release_work(struct work_struct *work);

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

static void rbdt_device_put(struct rbdt_device *dev)
{
	mutex_lock(&rbdt_dev_mutex);
	kref_put(&dev->ref, rbdt_device_release);
	mutex_unlock(&rbdt_dev_mutex);
}

/* Posting */

/**
 * rbdt_queue_post_recv() - post a receive buffer again
 * @q: The queue.
 * @r: One of its receive buffers.
 *
 * Context: Any; takes @q->lock.
 * Return: true if posted, false if the queue is dying or the post failed.
 */
bool rbdt_queue_post_recv(struct rbdt_queue *q, struct rbdt_recv *r)
{
	unsigned long flags;
	int ret = -ESHUTDOWN;

	ib_dma_sync_single_for_device(q->dev->ib_dev, r->dma, q->recv_size,
				      DMA_FROM_DEVICE);
	spin_lock_irqsave(&q->lock, flags);
	if (!q->dying)
		ret = ib_post_recv(q->qp, &r->wr, NULL);
	spin_unlock_irqrestore(&q->lock, flags);
	return !ret;
}

/**
 * rbdt_fetch_limit() - WRITE commands a queue on @dev fetches data for at once
 * @dev: The queue's RDMA device.
 *
 * Soft-RoCE's responder takes the requests that reach a QP strictly one
 * after the other, and answers an RDMA READ in full before it looks at
 * the next request: a response SEND posted behind other commands' RDMA
 * READs reaches the initiator only once all their data is across. With
 * every WRITE fetching at once, the responses of a deep queue of large
 * writes then arrive together, after the last fetch, and the initiator
 * refills its queue in bursts, with the CPUs idle in between. One fetch
 * at a time puts each response ahead of the next command's RDMA READs
 * (rbdt_read_finish()); Documentation/performance.rst has the figures.
 * Hardware answers RDMA READs in engines of its own, and siw from its
 * transmit thread, apart from the receive path that delivers a SEND; a
 * limit there is not measured.
 *
 * On a link that loses packets, a fetch that waits for a retransmission
 * would hold up the queue's next ones for the QP's whole timeout; the
 * stall check (rbdt_fetch_stall_work()) starts the next one early, and
 * with it the retry (tests/rbdi/022, 2 % loss).
 *
 * Return: The module parameter max_write_fetches; for -1, 1 on rxe and 0
 * (no limit) on any other device.
 */
u16 rbdt_fetch_limit(struct ib_device *dev)
{
	int v = READ_ONCE(rbdt_max_write_fetches);

	if (v >= 0)
		return v;
	return dev->ops.driver_id == RDMA_DRIVER_RXE ? 1 : 0;
}

/**
 * rbdt_queue_post_send() - post a chain of send work requests
 * @q: The queue.
 * @wr: The first work request.
 *
 * Context: Process or softirq; takes @q->lock.
 * Return: 0, -ESHUTDOWN if the queue is dying, or the error of the post.
 */
int rbdt_queue_post_send(struct rbdt_queue *q, struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret = -ESHUTDOWN;
	bool bh;

	bh = rbdt_post_begin(q);
	spin_lock_irqsave(&q->lock, flags);
	if (!q->dying)
		ret = ib_post_send(q->qp, wr, NULL);
	spin_unlock_irqrestore(&q->lock, flags);
	rbdt_post_end(bh);
	return ret;
}

/* Teardown triggers */

/* Called with rbdt_sess_lock held. */
static void __rbdt_queue_error(struct rbdt_queue *q)
{
	struct rbdt_session *sess;
	bool was_dying;

	lockdep_assert_held(&rbdt_sess_lock);
	spin_lock(&q->lock);
	was_dying = q->dying;
	q->dying = true;
	sess = q->sess;
	spin_unlock(&q->lock);

	if (sess)
		__rbdt_session_shutdown(sess);
	else if (!was_dying)
		queue_work(rbdt_wq, &q->release_work);
}

/**
 * rbdt_queue_error() - tear down a queue and its session
 * @q: The queue.
 *
 * Idempotent; the teardown itself runs in a work item.
 *
 * Context: Any.
 */
void rbdt_queue_error(struct rbdt_queue *q)
{
	unsigned long flags;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	__rbdt_queue_error(q);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
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

/* Control capsules */

static void rbdt_ctrl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdt_ctrl *ctrl = container_of(wc->wr_cqe, struct rbdt_ctrl,
					      cqe);
	struct rbdt_queue *q = cq_to_q(wc);

	atomic_dec(&q->ctrl_sends);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err_ratelimited("qid %u %pISpc: %s send failed: %s\n",
					   q->qid, &q->peer,
					   rbd_opcode_str(ctrl->opcode),
					   ib_wc_status_msg(wc->status));
		rbdt_queue_error(q);
		return;
	}
	/* A LOGOUT, and every refusal of LOGIN or AUTH, ends the connection. */
	if (ctrl->opcode == RBD_OP_LOGOUT_RSP || ctrl->status)
		rbdt_queue_error(q);
}

/*
 * Send the response in @q->ctrl[@slot] (@len bytes, already built); the
 * receive buffer @r is reposted first.
 */
void rbdt_ctrl_send(struct rbdt_queue *q, u32 slot, u32 len,
		    struct rbdt_recv *r)
{
	struct rbdt_ctrl *ctrl = &q->ctrl[slot];
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	unsigned long flags;
	int ret = -ESHUTDOWN;

	ctrl->opcode = ((struct rbd_hdr *)ctrl->buf)->opcode;
	ib_dma_sync_single_for_device(q->dev->ib_dev, ctrl->dma, len,
				      DMA_TO_DEVICE);
	sge.addr = ctrl->dma;
	sge.length = len;
	sge.lkey = q->dev->pd->local_dma_lkey;
	wr.wr_cqe = &ctrl->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;

	if (r)
		rbdt_queue_post_recv(q, r);
	spin_lock_irqsave(&q->lock, flags);
	/* The peer can reuse the slot once it sees the response. */
	ctrl->busy = false;
	if (!q->dying)
		ret = ib_post_send(q->qp, &wr, NULL);
	if (!ret)
		atomic_inc(&q->ctrl_sends);
	spin_unlock_irqrestore(&q->lock, flags);
	if (ret && ret != -ESHUTDOWN) {
		pr_err_ratelimited("qid %u %pISpc: posting %s failed (%d)\n",
				   q->qid, &q->peer,
				   rbd_opcode_str(ctrl->opcode), ret);
		rbdt_queue_error(q);
	}
}

/* Queues */

static void rbdt_qp_event(struct ib_event *event, void *context)
{
	struct rbdt_queue *q = context;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(q->cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
	case IB_EVENT_SQ_DRAINED:
		break;
	default:
		pr_err_ratelimited("qid %u %pISpc: QP event %s (%d)\n", q->qid,
				   &q->peer, ib_event_msg(event->event),
				   event->event);
		rbdt_queue_error(q);
		break;
	}
}

static void rbdt_queue_free_bufs(struct rbdt_queue *q)
{
	struct ib_device *ib_dev = q->dev->ib_dev;
	u32 i;

	if (q->recv) {
		for (i = 0; i < q->nr_recv; i++) {
			struct rbdt_recv *r = &q->recv[i];

			if (!r->buf)
				continue;
			if (r->dma)
				ib_dma_unmap_single(ib_dev, r->dma, q->recv_size,
						    DMA_FROM_DEVICE);
			if (r->pages)
				free_pages_exact(r->pages, q->recv_alloc);
			else
				kfree(r->buf);
		}
		kfree(q->recv);
	}
	kfree(q->recv_sg);
	for (i = 0; i < RBD_CTRL_SLOTS; i++) {
		if (!q->ctrl[i].buf)
			continue;
		if (q->ctrl[i].dma)
			ib_dma_unmap_single(ib_dev, q->ctrl[i].dma,
					    RBD_CTRL_CAPSULE_MAX, DMA_TO_DEVICE);
		kfree(q->ctrl[i].buf);
	}
	if (q->cmds) {
		for (i = 0; i < q->depth; i++) {
			struct rbdt_cmd *cmd = &q->cmds[i];

			if (cmd->rsp) {
				if (cmd->rsp_dma)
					ib_dma_unmap_single(ib_dev, cmd->rsp_dma,
							    cmd->rsp_size,
							    DMA_TO_DEVICE);
				kfree(cmd->rsp);
			}
			kfree(cmd->rw);
		}
		kvfree(q->cmds);
	}
	rbdt_pool_destroy(&q->pool);
}

static void *rbdt_alloc_mapped(struct ib_device *ib_dev, size_t size,
			       enum dma_data_direction dir, u64 *dma)
{
	void *buf = kzalloc(size, GFP_KERNEL);

	if (!buf)
		return NULL;
	*dma = ib_dma_map_single(ib_dev, buf, size, dir);
	if (ib_dma_mapping_error(ib_dev, *dma)) {
		*dma = 0;
		kfree(buf);
		return NULL;
	}
	return buf;
}

/*
 * A receive buffer of an I/O queue with inline writes: the command header
 * ends where a page starts, so that the inline data can be LIO's data
 * buffer as it is (see rbdt_inline_sgl()), aligned for any backstore.
 * This takes no more memory than a kmalloc of the same size would: 4 KiB
 * of inline data makes a 4168-byte capsule, an 8 KiB kmalloc object.
 */
static int rbdt_recv_alloc_paged(struct rbdt_queue *q, struct rbdt_recv *r,
				 u32 inline_pages)
{
	struct ib_device *ib_dev = q->dev->ib_dev;

	r->pages = alloc_pages_exact(q->recv_alloc, GFP_KERNEL | __GFP_ZERO);
	if (!r->pages)
		return -ENOMEM;
	r->buf = r->pages + PAGE_SIZE - sizeof(struct rbd_cmd);
	r->sg = &q->recv_sg[(r - q->recv) * inline_pages];
	r->dma = ib_dma_map_single(ib_dev, r->buf, q->recv_size,
				   DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ib_dev, r->dma)) {
		r->dma = 0;
		return -ENOMEM;
	}
	return 0;
}

static int rbdt_queue_alloc_bufs(struct rbdt_queue *q, u32 imm_read,
				 u16 max_desc)
{
	struct ib_device *ib_dev = q->dev->ib_dev;
	u32 i, inline_pages = 0;

	q->nr_recv = q->depth + RBD_CTRL_SLOTS;
	q->recv = kcalloc(q->nr_recv, sizeof(*q->recv), GFP_KERNEL);
	if (!q->recv)
		return -ENOMEM;
	if (q->qid && q->lim.inline_write_size) {
		inline_pages = DIV_ROUND_UP(q->lim.inline_write_size,
					    PAGE_SIZE);
		q->recv_alloc = PAGE_SIZE +
			round_up(q->recv_size - sizeof(struct rbd_cmd),
				 PAGE_SIZE);
		q->recv_sg = kcalloc(q->nr_recv * inline_pages,
				     sizeof(*q->recv_sg), GFP_KERNEL);
		if (!q->recv_sg)
			return -ENOMEM;
	}
	for (i = 0; i < q->nr_recv; i++) {
		struct rbdt_recv *r = &q->recv[i];

		if (inline_pages) {
			if (rbdt_recv_alloc_paged(q, r, inline_pages))
				return -ENOMEM;
		} else {
			r->buf = rbdt_alloc_mapped(ib_dev, q->recv_size,
						   DMA_FROM_DEVICE, &r->dma);
			if (!r->buf)
				return -ENOMEM;
		}
		r->cqe.done = rbdt_recv_done;
		r->sge.addr = r->dma;
		r->sge.length = q->recv_size;
		r->sge.lkey = q->dev->pd->local_dma_lkey;
		r->wr.wr_cqe = &r->cqe;
		r->wr.sg_list = &r->sge;
		r->wr.num_sge = 1;
	}
	for (i = 0; i < RBD_CTRL_SLOTS; i++) {
		q->ctrl[i].buf = rbdt_alloc_mapped(ib_dev, RBD_CTRL_CAPSULE_MAX,
						   DMA_TO_DEVICE,
						   &q->ctrl[i].dma);
		if (!q->ctrl[i].buf)
			return -ENOMEM;
		q->ctrl[i].cqe.done = rbdt_ctrl_send_done;
	}
	if (!q->depth)
		return 0;

	q->cmds = kvcalloc(q->depth, sizeof(*q->cmds), GFP_KERNEL);
	if (!q->cmds)
		return -ENOMEM;
	for (i = 0; i < q->depth; i++) {
		struct rbdt_cmd *cmd = &q->cmds[i];

		cmd->q = q;
		cmd->slot = i;
		cmd->rsp_size = rbd_rsp_capsule_max(imm_read);
		cmd->rsp = rbdt_alloc_mapped(ib_dev, cmd->rsp_size,
					     DMA_TO_DEVICE, &cmd->rsp_dma);
		if (!cmd->rsp)
			return -ENOMEM;
		cmd->rw = kcalloc(max_desc, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw)
			return -ENOMEM;
		cmd->send_cqe.done = rbdt_cmd_send_done;
		cmd->send_sge.addr = cmd->rsp_dma;
		cmd->send_sge.lkey = q->dev->pd->local_dma_lkey;
		cmd->send_wr.wr_cqe = &cmd->send_cqe;
		cmd->send_wr.sg_list = &cmd->send_sge;
		cmd->send_wr.num_sge = 1;
		cmd->send_wr.send_flags = IB_SEND_SIGNALED;
	}
	return rbdt_pool_init(&q->pool);
}

/*
 * Destroy a queue whose QP is drained (or never had anything posted):
 * rdma_cm id, QP, CQ, buffers, then the device reference.
 */
void rbdt_queue_destroy(struct rbdt_queue *q)
{
	unsigned long flags;

	cancel_delayed_work_sync(&q->timeout_work);
	flush_work(&q->login_work);
	cancel_work_sync(&q->pending_work);
	cancel_delayed_work_sync(&q->fetch_work);
	rbdt_auth_queue_free(q);

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	list_del_init(&q->entry);
	rbdt_halfopen_del(q);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);

	if (q->cm_id)
		rdma_destroy_id(q->cm_id);
	if (q->qp)
		ib_destroy_qp(q->qp);
	rbdt_cq_destroy(&q->cq);
	rbdt_queue_free_bufs(q);
	rbdt_device_put(q->dev);
	kfree(q);
}

static void rbdt_queue_release_work(struct work_struct *work)
{
	struct rbdt_queue *q = container_of(work, struct rbdt_queue,
					    release_work);
	struct rbdt_session *sess;
	unsigned long flags;

	rdma_disconnect(q->cm_id);
	ib_drain_qp(q->qp);
	/* A deferred LOGIN runs to its end before the queue is judged. */
	flush_work(&q->login_work);

	/* A LOGIN may have completed meanwhile: the session takes over. */
	spin_lock_irqsave(&rbdt_sess_lock, flags);
	sess = q->sess;
	if (sess)
		__rbdt_session_shutdown(sess);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	if (sess)
		return;

	pr_info_ratelimited("qid %u %pISpc: disconnected\n", q->qid,
			    &q->peer);
	rbdt_queue_destroy(q);
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

static int rbdt_queue_create_ib(struct rbdt_queue *q, u16 max_desc)
{
	struct ib_device *ib_dev = q->dev->ib_dev;
	struct ib_qp_init_attr attr = {};
	int vector, ret;
	s32 avail;

	vector = ib_dev->num_comp_vectors ?
		 q->qid % ib_dev->num_comp_vectors : 0;
	/*
	 * One CQ for both directions: receives and their drain; a response
	 * and an RDMA READ completion per command slot, control responses
	 * (see rbdt_ctrl_claim()) and the send drain. The completions of the
	 * responses a polling run posts then mostly turn up in that same
	 * run instead of waking a poller of their own.
	 */
	ret = rbdt_cq_create(&q->cq, ib_dev,
			     q->nr_recv + 1 + 2 * q->depth +
			     2 * RBD_CTRL_SLOTS + 1, vector);
	if (ret)
		return ret;

	attr.event_handler = rbdt_qp_event;
	attr.qp_context = q;
	attr.send_cq = q->cq.cq;
	attr.recv_cq = q->cq.cq;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.port_num = q->cm_id->port_num;
	q->port_num = q->cm_id->port_num;
	attr.cap.max_send_wr = q->depth + 2 * RBD_CTRL_SLOTS + 1;
	attr.cap.max_recv_wr = q->nr_recv + 1;
	attr.cap.max_send_sge = min_t(u32, ib_dev->attrs.max_send_sge, 32);
	attr.cap.max_recv_sge = 1;
	attr.cap.max_rdma_ctxs = q->depth * max_desc;

	ret = rdma_create_qp(q->cm_id, q->dev->pd, &attr);
	if (ret)
		return ret;
	q->qp = q->cm_id->qp;
	/* A response batch gathers one SGE per response. */
	if (q->qid && (q->lim.features & RBD_FEAT_RSP_BATCH))
		q->batch_max = min(rbd_rsp_batch_max(q->lim.imm_read_size),
				   attr.cap.max_send_sge);

	/* Send queue slots beyond the responses are for RDMA work requests. */
	avail = (s32)attr.cap.max_send_wr -
		(s32)(q->depth + 2 * RBD_CTRL_SLOTS + 1);
	atomic_set(&q->sq_rdma_avail, max(avail, 0));
	q->sq_rdma_total = max(avail, 0);
	return 0;
}

/*
 * A queue for a checked connect request @req, not yet known to anyone:
 * an I/O queue of @sess takes the session's grants as the limits its
 * capsules are checked against; a queue 0 only control capsules.
 */
static struct rbdt_queue *rbdt_queue_new(struct rdma_cm_id *cm_id,
					 const struct rbd_cm_req *req,
					 struct rbdt_session *sess)
{
	struct rbdt_queue *q;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;
	q->cm_id = cm_id;
	q->qid = le16_to_cpu(req->qid);
	q->depth = le16_to_cpu(req->queue_depth);
	q->features = le64_to_cpu(req->features);
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->entry);
	INIT_WORK(&q->release_work, rbdt_queue_release_work);
	INIT_WORK(&q->pending_work, rbdt_pending_work);
	INIT_WORK(&q->login_work, rbdt_login_work);
	INIT_DELAYED_WORK(&q->timeout_work, rbdt_timeout_work);
	INIT_DELAYED_WORK(&q->fetch_work, rbdt_fetch_stall_work);
	INIT_LIST_HEAD(&q->halfopen_entry);
	memcpy(&q->peer, &cm_id->route.addr.dst_addr, sizeof(q->peer));
	rbdt_listener_addr(cm_id, &q->local);
	q->lim.qid = q->qid;
	q->lim.queue_depth = q->depth;
	q->recv_size = RBD_CTRL_CAPSULE_MAX;
	if (sess) {
		q->lim.features = le64_to_cpu(sess->login.features);
		q->lim.max_io_bytes = le32_to_cpu(sess->login.max_io_bytes);
		q->lim.inline_write_size =
			le32_to_cpu(sess->login.inline_write_size);
		q->lim.imm_read_size = le32_to_cpu(sess->login.imm_read_size);
		q->lim.max_desc = le16_to_cpu(sess->login.max_desc);
		q->recv_size = max_t(u32, RBD_CTRL_CAPSULE_MAX,
				     rbd_cmd_capsule_max(q->lim.inline_write_size,
							 q->lim.max_desc));
	}
	return q;
}

/* Flush the receives of a queue that never went live, and its QP. */
static void rbdt_queue_drain_unused(struct rbdt_queue *q)
{
	unsigned long flags;

	/* The flushed receives must not queue the release work as well. */
	spin_lock_irqsave(&q->lock, flags);
	q->dying = true;
	spin_unlock_irqrestore(&q->lock, flags);
	ib_drain_qp(q->qp);
}

/* Buffers, CQ and QP of a new queue, its receives posted. */
static int rbdt_queue_start_ib(struct rbdt_queue *q)
{
	int ret;

	if (rbdt_queue_alloc_bufs(q, q->lim.imm_read_size, q->lim.max_desc)) {
		pr_err_ratelimited("qid %u %pISpc: out of memory for buffers\n",
				   q->qid, &q->peer);
		return -ENOMEM;
	}
	ret = rbdt_queue_create_ib(q, q->lim.max_desc);
	if (ret) {
		pr_err_ratelimited("qid %u %pISpc: cannot create CQ/QP (%d)\n",
				   q->qid, &q->peer, ret);
		return ret;
	}
	for (u32 i = 0; i < q->nr_recv; i++) {
		ret = ib_post_recv(q->qp, &q->recv[i].wr, NULL);
		if (ret) {
			pr_err_ratelimited("qid %u %pISpc: ib_post_recv failed (%d)\n",
					   q->qid, &q->peer, ret);
			rbdt_queue_drain_unused(q);
			return ret;
		}
	}
	return 0;
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
	q->fetch_max = rbdt_fetch_limit(cm_id->device);
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
