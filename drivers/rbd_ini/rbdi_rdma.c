// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the RDMA connections of a session: for each queue its CM id, QP,
 * CQ and receive buffers, bring-up and teardown, and the receive handler.
 * What queue 0 sends and receives (LOGIN, LOGOUT, NOP, ABORT TASK) is
 * rbdi_ctrl.c's; the responses of the I/O queues are rbdi_rsp.c's.
 *
 * Bring-up (rbdi_connect(), called by the enable store):
 *
 *  1. queue 0: rdma_resolve_addr -> ADDR_RESOLVED (PD, CQ, QP, receive
 *     ring) -> rdma_resolve_route -> ROUTE_RESOLVED ->
 *     rdma_connect_locked (rbd_cm_req) -> ESTABLISHED (rbd_cm_rep
 *     checked). The CM handler signals the waiting store through
 *     &rbdi_queue.cm_done.
 *  2. LOGIN on queue 0, control slot 0 (rbdi_login()); the response is
 *     checked with rbd_check_login_rsp() against the request.
 *  3. On a reconnect, the grant checked against the one the disk was
 *     built for (rbdi_check_grant()), before any I/O queue exists.
 *  4. I/O queues 1..nr_queues the same way, joining the session handle;
 *     each may take commands as soon as it is connected.
 *
 * Each queue has its own QP and CQ (shared CQ pool, IB_POLL_SOFTIRQ,
 * spread over the completion vectors); the PD belongs to the session.
 * Every posted receive is a buffer of &rbdi_queue.rbuf_size bytes; the
 * receive handler validates what arrived before anything else looks at
 * it (rbd_check_response()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/mr_pool.h>

#include "rbdi.h"

/* Timeout of rdma_resolve_addr() and rdma_resolve_route(). */
#define RBDI_CM_TIMEOUT_MS	3000
/* How long the enable store waits for one queue to connect. */
#define RBDI_CONNECT_WAIT_MS	15000
/*
 * How long a reconnect attempt waits for queue 0 on IB and RoCE, at
 * least: a connect request lost on a cut wire is resent by the connection
 * manager only after about 4 s, while the next attempt sends a new one.
 * Four times queue 0's average connect time if that is longer, and
 * doubled after every RBDI_RECONNECT_BACKOFF attempts in a row that timed
 * out, up to RBDI_CONNECT_WAIT_MS: a target that accepts slowly (many
 * initiators reconnecting at once) is still reached and not flooded.
 */
#define RBDI_RECONNECT_WAIT_MS	2000
#define RBDI_RECONNECT_WAIT_MUL	4
#define RBDI_RECONNECT_BACKOFF	4

/* Feature bits this initiator always offers; see rbdi_queue_init(). */
#define RBDI_FEATURES		(RBD_FEAT_REMOTE_INV | RBD_FEAT_AUTH | \
				 RBD_FEAT_REINSTATE)

/**
 * rbdi_post_recv() - (re)post a receive buffer
 * @q: The queue.
 * @rb: One of its receive buffers.
 *
 * Context: Any; does not sleep.
 * Return: 0 or the error of ib_post_recv().
 */
int rbdi_post_recv(struct rbdi_queue *q, struct rbdi_rbuf *rb)
{
	struct ib_sge sge = {
		.addr	= rb->dma,
		.length	= q->rbuf_size,
		.lkey	= q->sess->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rb->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	ib_dma_sync_single_for_device(q->sess->ibdev, rb->dma, q->rbuf_size,
				      DMA_FROM_DEVICE);
	return ib_post_recv(q->qp, &wr, NULL);
}

static void rbdi_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdi_rbuf *rb = container_of(wc->wr_cqe, struct rbdi_rbuf, cqe);
	struct rbdi_queue *q = wc->qp->qp_context;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			rbdi_sess_err_rl(q->sess, "queue %u: receive failed: %s\n",
					 q->qid, ib_wc_status_msg(wc->status));
		rbdi_queue_lost(q);
		return;
	}
	ib_dma_sync_single_for_cpu(q->sess->ibdev, rb->dma, q->rbuf_size,
				   DMA_FROM_DEVICE);
	WRITE_ONCE(q->last_rx, jiffies);
	if (q->qid && (wc->wc_flags & IB_WC_WITH_IMM))
		rbdi_blk_bare_rsp(q, rb, wc);
	else if (q->qid)
		rbdi_blk_rsp(q, rb, wc);
	else
		rbdi_ctrl_rsp(q, rb, wc);
}

static void rbdi_ctrl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdi_queue *q = wc->qp->qp_context;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			rbdi_sess_err_rl(q->sess, "queue 0: send failed: %s\n",
					 ib_wc_status_msg(wc->status));
		rbdi_queue_lost(q);
	}
}

/* The connection of @q is gone or unusable: recover the session. */
void rbdi_queue_lost(struct rbdi_queue *q)
{
	if (!q->qid)
		rbdi_ctrl_lost(q->sess);
	rbdi_sess_error(q->sess);
}

static void rbdi_qp_event(struct ib_event *ev, void *ctx)
{
	struct rbdi_queue *q = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(q->cm_id, ev->event);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		rbdi_sess_err_rl(q->sess, "queue %u: QP event %s\n", q->qid,
				 ib_event_msg(ev->event));
		rbdi_queue_lost(q);
		break;
	default:
		break;
	}
}

/* ADDR_RESOLVED: the device is known; create everything the QP needs. */
/*
 * The session's protection domain, on the RDMA device of its first queue;
 * every later queue must resolve to the same device.
 */
static int rbdi_sess_pd(struct rbdi_session *sess, struct rbdi_queue *q,
			struct ib_device *dev)
{
	int ret;

	if (sess->pd) {
		if (dev == sess->ibdev)
			return 0;
		rbdi_sess_err(sess, "queue %u resolved to RDMA device %s, not %s\n",
			      q->qid, dev_name(&dev->dev),
			      dev_name(&sess->ibdev->dev));
		return -EXDEV;
	}
	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		rbdi_sess_err(sess, "RDMA device %s has no fast registration\n",
			      dev_name(&dev->dev));
		return -EOPNOTSUPP;
	}
	sess->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(sess->pd)) {
		ret = PTR_ERR(sess->pd);
		sess->pd = NULL;
		rbdi_sess_err(sess, "ib_alloc_pd failed (%d)\n", ret);
		return ret;
	}
	sess->ibdev = dev;
	sess->max_fr_pages =
		min_t(u32, 256, dev->attrs.max_fast_reg_page_list_len - 1);
	sess->reg_fence = rbdi_rxe_reg_fence &&
			  dev->ops.driver_id == RDMA_DRIVER_RXE;
	return 0;
}

/* The CQ of @q: from the pool, or its own for a poll queue. */
static int rbdi_queue_create_cq(struct rbdi_queue *q, struct ib_device *dev,
				unsigned int wrs)
{
	int ret;

	/* Those of each command, receives, and the drain. */
	q->cq_size = wrs * q->depth + 2 * RBD_CTRL_SLOTS + 2;
	/* A poll queue's CQ is its own: the pool has no IB_POLL_DIRECT. */
	if (q->polled)
		q->cq = ib_alloc_cq(dev, q, q->cq_size,
				    q->qid % max(dev->num_comp_vectors, 1),
				    IB_POLL_DIRECT);
	else
		q->cq = ib_cq_pool_get(dev, q->cq_size,
				       q->qid % max(dev->num_comp_vectors, 1),
				       IB_POLL_SOFTIRQ);
	if (IS_ERR(q->cq)) {
		ret = PTR_ERR(q->cq);
		q->cq = NULL;
		rbdi_sess_err(q->sess, "queue %u: allocating the CQ failed (%d)\n",
			      q->qid, ret);
		return ret;
	}
	return 0;
}

/* The QP of @q and, for an I/O queue, its pool of registration MRs. */
static int rbdi_queue_create_qp(struct rbdi_queue *q, struct ib_device *dev,
				unsigned int wrs)
{
	struct rbdi_session *sess = q->sess;
	struct ib_qp_init_attr attr = { };
	int ret;

	attr.event_handler = rbdi_qp_event;
	attr.qp_context = q;
	/* Those of each command, control sends, drain. */
	attr.cap.max_send_wr = wrs * q->depth + RBD_CTRL_SLOTS + 1;
	attr.cap.max_recv_wr = q->nr_rbufs + 1;
	q->send_sges = q->qid ? min_t(u32, RBDI_SEND_SGES,
				      dev->attrs.max_send_sge) : 1;
	attr.cap.max_send_sge = q->send_sges;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = q->cq;
	attr.recv_cq = q->cq;
	ret = rdma_create_qp(q->cm_id, sess->pd, &attr);
	if (ret) {
		rbdi_sess_err(sess, "queue %u: rdma_create_qp failed (%d)\n",
			      q->qid, ret);
		return ret;
	}
	q->qp = q->cm_id->qp;
	if (!q->depth)
		return 0;
	/*
	 * One page more than any registration needs: Soft-RoCE in Linux 6.1
	 * reads past the last of its 256-page maps when a copy ends in the
	 * last page of a full one (6.12's per-page array is bounds-checked).
	 */
	ret = ib_mr_pool_init(q->qp, &q->qp->rdma_mrs, q->depth,
			      IB_MR_TYPE_MEM_REG, sess->max_fr_pages + 1, 0);
	if (ret) {
		rbdi_sess_err(sess, "queue %u: ib_mr_pool_init failed (%d)\n",
			      q->qid, ret);
		return ret;
	}
	q->mr_pool_ready = true;
	return 0;
}

/*
 * Map @len bytes at @buf for @dir; on failure @buf is freed and *@bufp
 * cleared, so that the queue's teardown sees only mapped buffers.
 */
static int rbdi_map_buf(struct ib_device *dev, void **bufp, u64 *dma,
			size_t len, enum dma_data_direction dir)
{
	if (!*bufp)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *bufp, len, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(*bufp);
		*bufp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Receive buffers of @q, and queue 0's control send slots, mapped. */
static int rbdi_queue_alloc_bufs(struct rbdi_queue *q, struct ib_device *dev)
{
	unsigned int i;

	q->rbufs = kcalloc(q->nr_rbufs, sizeof(*q->rbufs), GFP_KERNEL);
	if (!q->rbufs)
		return -ENOMEM;
	for (i = 0; i < q->nr_rbufs; i++) {
		struct rbdi_rbuf *rb = &q->rbufs[i];

		rb->buf = kmalloc(q->rbuf_size, GFP_KERNEL);
		if (rbdi_map_buf(dev, &rb->buf, &rb->dma, q->rbuf_size,
				 DMA_FROM_DEVICE))
			return -ENOMEM;
		rb->cqe.done = rbdi_recv_done;
	}
	if (q->qid)
		return 0;
	for (i = 0; i < RBDI_NR_USED_SLOTS; i++) {
		struct rbdi_ctrl_slot *s = &q->slots[i];

		s->buf = kzalloc(RBD_CTRL_CAPSULE_MAX, GFP_KERNEL);
		if (rbdi_map_buf(dev, &s->buf, &s->dma, RBD_CTRL_CAPSULE_MAX,
				 DMA_TO_DEVICE))
			return -ENOMEM;
		s->cqe.done = rbdi_ctrl_send_done;
	}
	return 0;
}

/*
 * Everything @q needs before its connect request; on failure the queue's
 * teardown frees what was made.
 */
static int rbdi_queue_create_ib(struct rbdi_queue *q)
{
	struct rbdi_session *sess = q->sess;
	struct ib_device *dev = q->cm_id->device;
	unsigned int i, wrs;
	int ret;

	ret = rbdi_sess_pd(sess, q, dev);
	if (ret)
		return ret;
	/*
	 * Per command: REG_MR, SEND and LOCAL_INV, and the LOCAL_INV that
	 * fences the REG_MR on rxe. A flush completes them all.
	 */
	wrs = sess->reg_fence ? 4 : 3;
	ret = rbdi_queue_create_cq(q, dev, wrs);
	if (ret)
		return ret;
	ret = rbdi_queue_create_qp(q, dev, wrs);
	if (ret)
		return ret;
	ret = rbdi_queue_alloc_bufs(q, dev);
	if (ret)
		return ret;
	/* F4: every receive is posted before the connect request. */
	for (i = 0; i < q->nr_rbufs; i++) {
		ret = rbdi_post_recv(q, &q->rbufs[i]);
		if (ret) {
			rbdi_sess_err(sess, "queue %u: ib_post_recv failed (%d)\n",
				      q->qid, ret);
			return ret;
		}
	}
	return 0;
}

static int rbdi_route_resolved(struct rbdi_queue *q)
{
	struct rdma_conn_param param = {
		.private_data		= &q->cm_req,
		.private_data_len	= sizeof(q->cm_req),
		.responder_resources	= q->sess->ibdev->attrs.max_qp_rd_atom,
		.flow_control		= 1,
		.retry_count		= 7,
		.rnr_retry_count	= 7,
	};
	enum ib_port_state state;
	int ret;

	/*
	 * A connect request sent from a port that is down is lost; waiting
	 * for its timeout would delay the attempt after the link returns.
	 * Fail now: the port coming up starts the next attempt.
	 */
	if (!ib_get_cached_port_state(q->cm_id->device, q->cm_id->port_num,
				      &state) && state != IB_PORT_ACTIVE) {
		rbdi_sess_err_rl(q->sess, "queue %u: cannot connect to %pISpc: %s/%u is down\n",
				 q->qid, &q->sess->dst,
				 dev_name(&q->cm_id->device->dev),
				 q->cm_id->port_num);
		return -ENETDOWN;
	}

	ret = rdma_connect_locked(q->cm_id, &param);
	if (ret)
		rbdi_sess_err(q->sess, "queue %u: cannot connect to %pISpc: rdma_connect failed (%d)\n",
			      q->qid, &q->sess->dst, ret);
	return ret;
}

static int rbdi_established(struct rbdi_queue *q, struct rdma_cm_event *ev)
{
	struct rbd_cm_rep rep;
	enum rbd_check c;

	c = rbd_check_cm_rep(ev->param.conn.private_data,
			     ev->param.conn.private_data_len, &q->cm_req, &rep);
	if (c) {
		rbdi_sess_err(q->sess, "queue %u: invalid connect reply from %pISpc: %s\n",
			      q->qid, &q->sess->dst, rbd_check_str(c));
		return -EPROTO;
	}
	if (!q->qid) {
		q->sess->cm_auth = le32_to_cpu(rep.flags) & RBD_CM_REP_F_AUTH;
		q->sess->cm_reinstate = le32_to_cpu(rep.flags) &
					RBD_CM_REP_F_REINSTATE;
	}
	return 0;
}

static int rbdi_rejected(struct rbdi_queue *q, struct rdma_cm_event *ev)
{
	struct rbdi_session *sess = q->sess;
	struct rbd_cm_rej rej;
	const void *pdata;
	u8 len = 0;
	u16 reason;

	pdata = rdma_consumer_reject_data(q->cm_id, ev, &len);
	if (pdata && rbd_check_cm_rej(pdata, len, &rej) == RBD_CHECK_OK) {
		reason = le16_to_cpu(rej.reason);
		if (reason == RBD_REJ_VERSION)
			rbdi_sess_err(sess, "queue %u: connection to %pISpc rejected: %s (target speaks %u..%u, we speak %u)\n",
				      q->qid, &sess->dst, rbd_reject_str(reason),
				      le16_to_cpu(rej.min_version),
				      le16_to_cpu(rej.max_version),
				      RBD_PROTO_VERSION);
		else
			rbdi_sess_err(sess, "queue %u: connection to %pISpc rejected: %s\n",
				      q->qid, &sess->dst, rbd_reject_str(reason));
		rbdi_sess_set_last_error(sess, rbd_reject_str(reason));
		return reason == RBD_REJ_ACL_DENIED ? -EACCES : -ECONNREFUSED;
	}
	rbdi_sess_err(sess, "queue %u: connection to %pISpc rejected: %s\n",
		      q->qid, &sess->dst, rdma_reject_msg(q->cm_id, ev->status));
	return -ECONNREFUSED;
}

static void rbdi_cm_done(struct rbdi_queue *q, int err)
{
	q->cm_error = err;
	complete(&q->cm_done);
}

/*
 * Runs under the cm_id's handler mutex and may sleep. It never returns
 * non-zero: the ids are always destroyed by rbdi_queue_free().
 */
static int rbdi_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rbdi_queue *q = id->context;
	int ret = 0;

	pr_debug("session %s: queue %u: %s (%d)\n", q->sess->name, q->qid,
		 rdma_event_msg(ev->event), ev->status);

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rbdi_queue_create_ib(q);
		if (ret)
			break;
		ret = rdma_resolve_route(id, RBDI_CM_TIMEOUT_MS);
		if (ret)
			rbdi_sess_err(q->sess, "queue %u: rdma_resolve_route failed (%d)\n",
				      q->qid, ret);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rbdi_route_resolved(q);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		ret = rbdi_established(q, ev);
		if (!ret)
			set_bit(RBDI_Q_CONNECTED, &q->flags);
		rbdi_cm_done(q, ret);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		/* Late on a connection that was made: it is lost. */
		if (test_bit(RBDI_Q_CONNECTED, &q->flags)) {
			rbdi_queue_lost(q);
			return 0;
		}
		ret = rbdi_rejected(q, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		rbdi_sess_err(q->sess, "queue %u: cannot connect to %pISpc: %s (%d)\n",
			      q->qid, &q->sess->dst, rdma_event_msg(ev->event),
			      ev->status);
		ret = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (test_bit(RBDI_Q_CONNECTED, &q->flags))
			rbdi_queue_lost(q);
		return 0;
	default:
		return 0;
	}
	if (ret)
		rbdi_cm_done(q, ret);
	return 0;
}

/* Queue 0 connected in @ms: a running average, 1/4 to the newest. */
static void rbdi_q0_connected(struct rbdi_session *sess, unsigned int ms)
{
	sess->q0_connect_ms = sess->q0_connect_ms ?
			      (3 * sess->q0_connect_ms + ms) / 4 : ms;
	sess->q0_timeouts = 0;
}

/*
 * Connect one queue, waiting at most @wait_ms; on failure the caller
 * frees it.
 */
static int rbdi_queue_connect(struct rbdi_queue *q, unsigned int wait_ms)
{
	struct rbdi_session *sess = q->sess;
	unsigned long start = jiffies;
	struct rdma_cm_id *id;
	int ret;

	init_completion(&q->cm_done);
	q->cm_error = -ETIMEDOUT;
	q->cm_req.magic = cpu_to_le32(RBD_CM_MAGIC);
	q->cm_req.version = cpu_to_le16(RBD_PROTO_VERSION);
	q->cm_req.length = cpu_to_le16(sizeof(q->cm_req));
	q->cm_req.qid = cpu_to_le16(q->qid);
	q->cm_req.queue_depth = cpu_to_le16(q->depth);

	id = rdma_create_id(&init_net, rbdi_cm_handler, q, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		rbdi_sess_err(sess, "queue %u: rdma_create_id failed (%ld)\n",
			      q->qid, PTR_ERR(id));
		return PTR_ERR(id);
	}
	q->cm_id = id;

	ret = rdma_resolve_addr(id, sess->has_src ?
				(struct sockaddr *)&sess->src : NULL,
				(struct sockaddr *)&sess->dst,
				RBDI_CM_TIMEOUT_MS);
	if (ret) {
		rbdi_sess_err(sess, "queue %u: rdma_resolve_addr of %pISpc failed (%d)\n",
			      q->qid, &sess->dst, ret);
		return ret;
	}
	if (!wait_for_completion_timeout(&q->cm_done,
					 msecs_to_jiffies(wait_ms))) {
		rbdi_sess_err_rl(sess, "queue %u: connect timed out after %u ms\n",
				 q->qid, wait_ms);
		if (!q->qid)
			sess->q0_timeouts++;
		return -ETIMEDOUT;
	}
	if (!q->cm_error && !q->qid)
		rbdi_q0_connected(sess, jiffies_to_msecs(jiffies - start));
	return q->cm_error;
}

/*
 * How long queue 0 may take to connect: see RBDI_RECONNECT_WAIT_MS. On
 * iWARP rdma_connect() returns only when TCP's handshake has, whose SYN
 * is resent by TCP itself: an attempt there is not cut short.
 */
static unsigned int rbdi_queue0_wait_ms(const struct rbdi_session *sess)
{
	unsigned int wait;

	if (READ_ONCE(sess->state) != RBDI_SESS_RECONNECTING ||
	    !sess->ibdev ||
	    rdma_node_get_transport(sess->ibdev->node_type) ==
	    RDMA_TRANSPORT_IWARP)
		return RBDI_CONNECT_WAIT_MS;
	wait = max_t(unsigned int, RBDI_RECONNECT_WAIT_MS,
		     sess->q0_connect_ms * RBDI_RECONNECT_WAIT_MUL);
	wait <<= min(sess->q0_timeouts / RBDI_RECONNECT_BACKOFF, 3U);
	return min_t(unsigned int, wait, RBDI_CONNECT_WAIT_MS);
}

/* Undo rbdi_queue_connect(). The queue must be stopped (drained). */
static void rbdi_queue_free(struct rbdi_queue *q)
{
	struct ib_device *dev = q->sess->ibdev;
	unsigned int i;

	/* First: no CM event can arrive any more. */
	if (q->cm_id)
		rdma_destroy_id(q->cm_id);
	q->cm_id = NULL;
	if (q->mr_pool_ready)
		ib_mr_pool_destroy(q->qp, &q->qp->rdma_mrs);
	q->mr_pool_ready = false;
	if (q->qp)
		ib_destroy_qp(q->qp);
	q->qp = NULL;
	if (q->cq && q->polled)
		ib_free_cq(q->cq);
	else if (q->cq)
		ib_cq_pool_put(q->cq, q->cq_size);
	q->cq = NULL;
	if (q->rbufs) {
		for (i = 0; i < q->nr_rbufs; i++) {
			if (!q->rbufs[i].buf)
				continue;
			ib_dma_unmap_single(dev, q->rbufs[i].dma, q->rbuf_size,
					    DMA_FROM_DEVICE);
			kfree(q->rbufs[i].buf);
		}
		kfree(q->rbufs);
		q->rbufs = NULL;
	}
	for (i = 0; i < RBDI_NR_USED_SLOTS; i++) {
		if (!q->slots[i].buf)
			continue;
		ib_dma_unmap_single(dev, q->slots[i].dma, RBD_CTRL_CAPSULE_MAX,
				    DMA_TO_DEVICE);
		kfree(q->slots[i].buf);
		q->slots[i].buf = NULL;
	}
	q->flags = 0;
}

/* Stop posting on @q, disconnect it and wait for all its completions. */
static void rbdi_queue_stop(struct rbdi_queue *q)
{
	/* Under ctrl_lock: rbdi_send_abort() tests LIVE and posts under it. */
	spin_lock_irq(&q->sess->ctrl_lock);
	clear_bit(RBDI_Q_LIVE, &q->flags);
	spin_unlock_irq(&q->sess->ctrl_lock);
	/* Wait out a poller; later ones see !LIVE and leave the CQ alone. */
	spin_lock(&q->poll_lock);
	spin_unlock(&q->poll_lock);
	if (!q->qp || test_and_set_bit(RBDI_Q_DRAINED, &q->flags))
		return;
	/*
	 * Only a connection that was made is disconnected. One still being
	 * made is left to rdma_destroy_id(), which waits for its handler:
	 * on iWARP, rdma_connect() can block for a minute in the provider's
	 * TCP connect, and an rdma_disconnect() racing with its failure
	 * finds the iw_cm_id being destroyed (a BUG() in iw_cm_disconnect()).
	 */
	if (test_bit(RBDI_Q_CONNECTED, &q->flags))
		rdma_disconnect(q->cm_id);
	ib_drain_qp(q->qp);
}

/*
 * On a reconnect, the tag set, its command buffers and the disk's limits
 * exist already, built for the grant of the login that created the disk
 * (@sess->tag_rsp). The new grant is checked before any I/O queue is
 * connected: inline writes and immediate reads may be granted other sizes,
 * since the initiator may always use less than granted, and each queue
 * uses only the smaller of both (rbdi_queue_init()); any other difference
 * refuses the login, and the reconnect is tried again.
 */
static int rbdi_check_grant(struct rbdi_session *sess)
{
	const struct rbd_login_rsp *a = &sess->tag_rsp, *b = &sess->login_rsp;

	if (!sess->tag_set_ready)
		return 0;
	if (a->features != b->features || a->max_io_bytes != b->max_io_bytes ||
	    a->queue_depth != b->queue_depth || a->nr_queues != b->nr_queues ||
	    a->max_desc != b->max_desc) {
		rbdi_sess_err(sess, "target %pISpc granted other limits after the reconnect\n",
			      &sess->dst);
		return -EPROTO;
	}
	if (a->inline_write_size != b->inline_write_size ||
	    a->imm_read_size != b->imm_read_size)
		rbdi_sess_info(sess, "target %pISpc granted %u bytes of inline writes and %u of immediate reads after the reconnect; the disk uses at most %u and %u\n",
			       &sess->dst, le32_to_cpu(b->inline_write_size),
			       le32_to_cpu(b->imm_read_size),
			       le32_to_cpu(a->inline_write_size),
			       le32_to_cpu(a->imm_read_size));
	return 0;
}

static void rbdi_queue_init(struct rbdi_session *sess, u16 qid)
{
	struct rbdi_queue *q = &sess->queues[qid];
	const struct rbd_login_rsp *rsp = &sess->login_rsp;
	const struct rbd_login_rsp *sized = rsp;

	q->sess = sess;
	q->qid = qid;
	q->flags = 0;
	q->last_rx = jiffies;
	q->polled = qid && qid > sess->nr_queues - sess->nr_poll;
	memset(&q->cm_req, 0, sizeof(q->cm_req));
	if (!qid) {
		sess->cm_auth = false;
		sess->cm_reinstate = false;
		q->depth = 0;
		q->nr_rbufs = RBD_CTRL_SLOTS;
		q->rbuf_size = RBD_CTRL_CAPSULE_MAX;
		if (!sess->offer)
			sess->offer = RBDI_FEATURES |
				(sess->opts.bare_reads ?
				 RBD_FEAT_BARE_READ : 0) |
				(sess->opts.rsp_batches ?
				 RBD_FEAT_RSP_BATCH : 0);
		q->cm_req.features = cpu_to_le64(sess->offer);
		return;
	}
	/* Command buffers keep the size the tag set allocated them with. */
	if (sess->tag_set_ready)
		sized = &sess->tag_rsp;
	q->depth = le16_to_cpu(rsp->queue_depth);
	q->nr_rbufs = q->depth + RBD_CTRL_SLOTS;
	/* Receive buffers are new: the target may use all of its grant. */
	q->rbuf_size = rbd_rsp_capsule_max(le32_to_cpu(rsp->imm_read_size));
	q->cmd_size = rbd_cmd_capsule_max(le32_to_cpu(sized->inline_write_size),
					  le16_to_cpu(sized->max_desc));
	q->inline_max = min(le32_to_cpu(rsp->inline_write_size),
			    le32_to_cpu(sized->inline_write_size));
	q->imm_max = min(le32_to_cpu(rsp->imm_read_size),
			 le32_to_cpu(sized->imm_read_size));
	q->cm_req.features = rsp->features;
	q->cm_req.session_handle = rsp->session_handle;
	rbd_check_limits_init(&q->lim, rsp, qid, q->depth);
}

/**
 * rbdi_connect() - connect queue 0, log in and connect the I/O queues
 * @sess: The session, with @sess->lock held and @dst/@src set.
 *
 * On failure the caller undoes what was done with rbdi_stop_queues()
 * and rbdi_free_queues().
 *
 * Context: Process context; sleeps for up to a few timeouts.
 * Return: 0 or a negative errno (logged).
 */
int rbdi_connect(struct rbdi_session *sess)
{
	unsigned int i;
	int ret;

	/*
	 * A reconnect keeps the array: the tag set points into it. The
	 * configuration cannot change while the session is enabled.
	 */
	if (!sess->queues) {
		i = sess->opts.nr_queues + sess->opts.nr_poll_queues + 1;
		sess->queues = kcalloc(i, sizeof(*sess->queues), GFP_KERNEL);
		if (!sess->queues)
			return -ENOMEM;
		sess->queues_alloc = i;
		for (i = 0; i < sess->queues_alloc; i++)
			spin_lock_init(&sess->queues[i].poll_lock);
	}
	sess->nr_queues = 0;
	sess->nop_pending = false;
	sess->tmf_pending = false;
	memset(&sess->login_rsp, 0, sizeof(sess->login_rsp));

	rbdi_queue_init(sess, 0);
	ret = rbdi_queue_connect(&sess->queues[0], rbdi_queue0_wait_ms(sess));
	if (ret)
		return ret;
	set_bit(RBDI_Q_LIVE, &sess->queues[0].flags);
	pr_debug("session %s: queue 0 connected %pISpc<->%pISpc (%u ms on average)\n",
		 sess->name, &sess->queues[0].cm_id->route.addr.src_addr,
		 &sess->queues[0].cm_id->route.addr.dst_addr,
		 sess->q0_connect_ms);

	ret = rbdi_authenticate(sess);
	if (!ret)
		ret = rbdi_login(sess);
	if (ret)
		return ret;
	/* The target's keep-alive timer runs from the LOGIN on. */
	if (sess->ka_ms)
		queue_delayed_work(rbdi_wq, &sess->ka_work,
				   msecs_to_jiffies(sess->ka_ms / 2));
	if (sess->nr_queues >= sess->queues_alloc) {
		rbdi_sess_err(sess, "target granted %u queues, more than requested\n",
			      sess->nr_queues);
		return -EPROTO;
	}
	/* Before any I/O queue exists, and so before any can go live. */
	ret = rbdi_check_grant(sess);
	if (ret)
		return ret;

	for (i = 1; i <= sess->nr_queues; i++) {
		struct rbdi_queue *q = &sess->queues[i];

		rbdi_queue_init(sess, i);
		ret = rbdi_queue_connect(q, RBDI_CONNECT_WAIT_MS);
		if (ret)
			return ret;
		set_bit(RBDI_Q_LIVE, &q->flags);
	}

	if (sess->ka_ms)
		queue_delayed_work(rbdi_wq, &sess->ka_work,
				   msecs_to_jiffies(sess->ka_ms / 2));
	rbdi_sess_info(sess, "logged in to %s LUN %llu at %pISpc as %s (%u I/O queues)\n",
		       sess->opts.target, sess->opts.lun, &sess->dst,
		       sess->opts.initiator, sess->nr_queues);
	return 0;
}

/**
 * rbdi_stop_queues() - disconnect and drain every queue of a session
 * @sess: The session.
 *
 * Afterwards no completion handler runs and nothing posts any more.
 * Idempotent.
 */
void rbdi_stop_queues(struct rbdi_session *sess)
{
	unsigned int i;

	cancel_delayed_work_sync(&sess->ka_work);
	if (!sess->queues)
		return;
	for (i = sess->queues_alloc; i-- > 0;)
		if (sess->queues[i].sess)
			rbdi_queue_stop(&sess->queues[i]);
	/* Only now can no TMF response arm it again. */
	cancel_delayed_work_sync(&sess->lost_work);
}

/**
 * rbdi_free_queues() - free the connections of a session
 * @sess: The session, its queues stopped.
 * @all: Also free the queue array and the PD; the tag set must be gone.
 *	Without @all, what the tag set refers to (the array, the PD and
 *	its device) stays for a reconnect.
 */
void rbdi_free_queues(struct rbdi_session *sess, bool all)
{
	unsigned int i;

	if (sess->queues) {
		for (i = sess->queues_alloc; i-- > 0;)
			if (sess->queues[i].sess)
				rbdi_queue_free(&sess->queues[i]);
	}
	sess->nr_queues = 0;
	if (!all)
		return;
	kfree(sess->queues);
	sess->queues = NULL;
	sess->queues_alloc = 0;
	if (sess->pd)
		ib_dealloc_pd(sess->pd);
	sess->pd = NULL;
	sess->ibdev = NULL;
	sess->offer = 0;
	memset(&sess->login_rsp, 0, sizeof(sess->login_rsp));
}
