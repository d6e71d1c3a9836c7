// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: queues. Every rdma_cm connection is a &struct rbdt_queue with its
 * own QP and one CQ for both directions, polled in rbdt's CQ work
 * (rbdt_cq.c), so receive handling runs in process context. This file
 * builds a queue for an accepted connect request (buffers, CQ, QP), posts
 * on it (receives, sends, control responses), and destroys it; errors on
 * it start the teardown of the queue and its session (rbdt_session.c).
 *
 * Locking: q->lock (inside rbdt_sess_lock) protects the queue's dying
 * flag, slot state and every post on its QP; from the moment the queue is
 * dying, nothing more is posted on it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "rbdt.h"

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
void __rbdt_queue_error(struct rbdt_queue *q)
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

/* Receive and command buffers of @q for its limits, and its data pool. */
static int rbdt_queue_alloc_bufs(struct rbdt_queue *q)
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
		cmd->rsp_size = rbd_rsp_capsule_max(q->lim.imm_read_size);
		cmd->rsp = rbdt_alloc_mapped(ib_dev, cmd->rsp_size,
					     DMA_TO_DEVICE, &cmd->rsp_dma);
		if (!cmd->rsp)
			return -ENOMEM;
		cmd->rw = kcalloc(q->lim.max_desc, sizeof(*cmd->rw),
				  GFP_KERNEL);
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

/*
 * RDMA contexts for the queue pair: one per descriptor of every command
 * slot, and never fewer than the work requests of one command of the
 * largest size. rdma_rw sizes the send queue by contexts, and a provider
 * with few SGEs per work request (siw: six) needs many for one command:
 * without this a queue of depth 1 could not send a 128 KiB READ's data.
 */
static u32 rbdt_rw_ctxs(const struct rbdt_queue *q, u16 max_desc, u32 max_sge)
{
	u32 pages = DIV_ROUND_UP(q->lim.max_io_bytes, PAGE_SIZE) + 1;

	if (!max_desc)		/* queue 0: no command data */
		return 0;
	return max_t(u32, q->depth * max_desc, DIV_ROUND_UP(pages, max_sge));
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
	attr.cap.max_rdma_ctxs = rbdt_rw_ctxs(q, max_desc, attr.cap.max_send_sge);

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
struct rbdt_queue *rbdt_queue_new(struct rdma_cm_id *cm_id,
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
		q->fetch_max = rbdt_fetch_limit(cm_id->device,
						sess->max_write_fetches);
		q->pool.max = rbdt_pool_pages(sess->data_pool_kb);
	}
	return q;
}

/* Flush the receives of a queue that never went live, and its QP. */
void rbdt_queue_drain_unused(struct rbdt_queue *q)
{
	unsigned long flags;

	/* The flushed receives must not queue the release work as well. */
	spin_lock_irqsave(&q->lock, flags);
	q->dying = true;
	spin_unlock_irqrestore(&q->lock, flags);
	ib_drain_qp(q->qp);
}

/* Buffers, data pool, CQ and QP of a new queue, its receives posted. */
int rbdt_queue_start_ib(struct rbdt_queue *q)
{
	int ret;

	if (rbdt_queue_alloc_bufs(q)) {
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
