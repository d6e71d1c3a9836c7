// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the end of a command on an I/O queue: the work completions of its
 * SEND, REG_MR and LOCAL_INV, and the target's response.
 *
 * rbdi_rdma.c's receive handler hands every receive of an I/O queue here:
 * a response capsule or a batch of them (%RBD_FEAT_RSP_BATCH) to
 * rbdi_blk_rsp(), a bare response (%RBD_FEAT_BARE_READ: the read data
 * alone, the tag in the immediate data) to rbdi_blk_bare_rsp(). Each
 * response is validated and matched with the request awaiting it before
 * any of it is used; a bad one tears the session down. Immediate read
 * data is copied into the request's pages here.
 *
 * The SEND completion and the response (or the LOCAL_INV after it) each
 * drop one of the request's two references (rbdi_blk.c); the last one
 * completes the request.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/bvec.h>
#include <scsi/scsi_proto.h>

#include "rbdi.h"

static void rbdi_req_put(struct rbdi_request *req)
{
	if (refcount_dec_and_test(&req->ref))
		blk_mq_complete_request(blk_mq_rq_from_pdu(req));
}

static void rbdi_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdi_request *req =
		container_of(wc->wr_cqe, struct rbdi_request, send_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			rbdi_sess_err_rl(req->q->sess, "queue %u: SEND failed: %s\n",
					 req->q->qid,
					 ib_wc_status_msg(wc->status));
		/* The recovery completes the request once drained. */
		rbdi_sess_error(req->q->sess);
		return;
	}
	rbdi_req_put(req);
}

static void rbdi_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdi_request *req =
		container_of(wc->wr_cqe, struct rbdi_request, reg_cqe);

	/* REG_MR and its fence are unsignaled: only errors arrive here. */
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		rbdi_sess_err_rl(req->q->sess, "queue %u: REG_MR (or its fence) failed: %s\n",
				 req->q->qid, ib_wc_status_msg(wc->status));
	rbdi_sess_error(req->q->sess);
}

static void rbdi_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdi_request *req =
		container_of(wc->wr_cqe, struct rbdi_request, inv_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			rbdi_sess_err_rl(req->q->sess, "queue %u: LOCAL_INV failed: %s\n",
					 req->q->qid,
					 ib_wc_status_msg(wc->status));
		rbdi_sess_error(req->q->sess);
		return;
	}
	rbdi_req_put(req);
}

static int rbdi_local_inv(struct rbdi_queue *q, struct rbdi_request *req)
{
	struct ib_send_wr wr = {
		.opcode			= IB_WR_LOCAL_INV,
		.wr_cqe			= &req->inv_cqe,
		.send_flags		= IB_SEND_SIGNALED,
		.ex.invalidate_rkey	= req->mr->rkey,
	};

	return ib_post_send(q->qp, &wr, NULL);
}

/* Point the work completions of @req's SEND, REG_MR and LOCAL_INV here. */
void rbdi_req_init_cqes(struct rbdi_request *req)
{
	req->send_cqe.done = rbdi_send_done;
	req->reg_cqe.done = rbdi_reg_done;
	req->inv_cqe.done = rbdi_inv_done;
}

/* Copy @len bytes of immediate data at @src into the pages of @rq. */
static void rbdi_copy_to_rq(struct request *rq, const u8 *src, u32 len)
{
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		if (!len)
			continue;
		bv.bv_len = min(bv.bv_len, len);
		memcpy_to_bvec(&bv, src);
		src += bv.bv_len;
		len -= bv.bv_len;
	}
}

/*
 * The started request of @q that @tag names, if it still awaits the
 * response of that generation; otherwise NULL, and *@why says why not.
 */
struct request *rbdi_awaiting_rq(struct rbdi_queue *q, u64 tag,
				 const char **why)
{
	struct request *rq;
	struct rbdi_request *req;

	rq = q->tags ? blk_mq_tag_to_rq(q->tags, rbd_tag_slot(tag)) : NULL;
	if (!rq || !blk_mq_request_started(rq)) {
		*why = "idle";
		return NULL;
	}
	req = blk_mq_rq_to_pdu(rq);
	if (!READ_ONCE(req->awaiting) || req->gen != rbd_tag_gen(tag)) {
		*why = "stale";
		return NULL;
	}
	return rq;
}

/*
 * F4: the receive is back before the credit can be reused, that is before
 * a request is completed. Return 0, or an error after tearing the session
 * down.
 */
static int rbdi_rsp_repost(struct rbdi_queue *q, struct rbdi_rbuf *rb)
{
	if (!rbdi_post_recv(q, rb))
		return 0;
	rbdi_sess_err_rl(q->sess, "queue %u: cannot repost a receive\n",
			 q->qid);
	rbdi_sess_error(q->sess);
	return -EIO;
}

/**
 * rbdi_blk_bare_rsp() - handle a bare response on an I/O queue
 * @q: The queue.
 * @rb: The receive buffer, synced for the CPU: the read data alone.
 * @wc: Its work completion, status success, with immediate data.
 *
 * A bare response (%RBD_FEAT_BARE_READ) answers an immediate read that
 * ended well: status GOOD, no sense data, no residual. Its immediate data
 * names the command; it must be awaiting an immediate read of exactly the
 * bytes received. Anything else tears the session down.
 *
 * Context: Softirq (CQ polling).
 */
void rbdi_blk_bare_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		       struct ib_wc *wc)
{
	struct rbdi_session *sess = q->sess;
	struct rbdi_request *req;
	struct request *rq;
	const char *why;
	u64 tag;

	tag = rbd_bare_rsp_tag(q->qid,
			       le32_to_cpu((__force __le32)wc->ex.imm_data));
	if (!(q->lim.features & RBD_FEAT_BARE_READ) ||
	    wc->opcode != IB_WC_RECV) {
		rbdi_sess_err_rl(sess, "queue %u: unexpected immediate data, tag %#llx\n",
				 q->qid, tag);
		goto out_sess_error;
	}
	if (rbd_tag_slot(tag) >= q->depth) {
		rbdi_sess_err_rl(sess, "queue %u: bare response for slot %u of %u\n",
				 q->qid, rbd_tag_slot(tag), q->depth);
		goto out_sess_error;
	}
	rq = rbdi_awaiting_rq(q, tag, &why);
	if (!rq) {
		rbdi_sess_err_rl(sess, "queue %u: bare response for %s tag %#llx\n",
				 q->qid, why, tag);
		goto out_sess_error;
	}
	req = blk_mq_rq_to_pdu(rq);
	if (!req->imm || wc->byte_len != req->data_len) {
		rbdi_sess_err_rl(sess, "queue %u: tag %#llx: bare response of %u for %u (%s)\n",
				 q->qid, tag, wc->byte_len, req->data_len,
				 req->imm ? "immediate read" : "no immediate read");
		goto out_sess_error;
	}

	req->awaiting = false;
	req->status = SAM_STAT_GOOD;
	req->sense_len = 0;
	req->resid = 0;
	rbdi_copy_to_rq(rq, rb->buf, wc->byte_len);

	if (rbdi_rsp_repost(q, rb))
		return;
	rbdi_stat_inc(sess, RBDI_STAT_BARE_READS);
	rbdi_req_put(req);
	return;

out_sess_error:
	rbdi_sess_error(sess);
}

/*
 * Take the response @rsp, @len bytes from the network, for its request:
 * validate it, look its tag up among the requests awaiting a response and
 * check it against that request (@inv_wc, @inv_rkey: the invalidation its
 * receive carried), then record the outcome in the request, which no
 * longer awaits. Return the request, with *@inv whether the target
 * invalidated its MR, or NULL after logging what is wrong.
 */
static struct rbdi_request *rbdi_rsp_take(struct rbdi_queue *q,
					  const struct rbd_rsp *rsp, u32 len,
					  bool inv_wc, u32 inv_rkey, bool *inv)
{
	struct rbdi_session *sess = q->sess;
	struct rbdi_request *req;
	struct request *rq;
	const char *why;
	bool inv_flag;
	u32 imm_len, residual;
	u16 flags, sense_len;
	enum rbd_check c;
	u64 tag;

	c = rbd_check_response(rsp, len, &q->lim, NULL);
	if (c) {
		rbdi_sess_err_rl(sess, "queue %u: invalid response: %s\n",
				 q->qid, rbd_check_str(c));
		return NULL;
	}
	tag = le64_to_cpu(rsp->hdr.tag);
	if (rsp->hdr.opcode != RBD_OP_SCSI_RSP) {
		rbdi_sess_err_rl(sess, "queue %u: unexpected %s, tag %#llx\n",
				 q->qid, rbd_opcode_str(rsp->hdr.opcode), tag);
		return NULL;
	}

	rq = rbdi_awaiting_rq(q, tag, &why);
	if (!rq) {
		rbdi_sess_err_rl(sess, "queue %u: response for %s tag %#llx\n",
				 q->qid, why, tag);
		return NULL;
	}
	req = blk_mq_rq_to_pdu(rq);

	flags = le16_to_cpu(rsp->hdr.flags);
	inv_flag = flags & RBD_RSP_F_INVALIDATED;
	if (inv_wc != inv_flag ||
	    (inv_flag && (!req->mr ||
			  !(req->cmd->hdr.flags &
			    cpu_to_le16(RBD_CMD_F_INVALIDATE)) ||
			  inv_rkey != req->mr->rkey))) {
		rbdi_sess_err_rl(sess, "queue %u: tag %#llx: invalidation mismatch\n",
				 q->qid, tag);
		return NULL;
	}

	imm_len = le32_to_cpu(rsp->imm_len);
	if (imm_len && (!req->imm || imm_len > req->data_len)) {
		rbdi_sess_err_rl(sess, "queue %u: tag %#llx: unexpected immediate data (%u)\n",
				 q->qid, tag, imm_len);
		return NULL;
	}

	req->awaiting = false;
	req->status = rsp->status;
	sense_len = le16_to_cpu(rsp->sense_len);
	memcpy(req->sense, (const u8 *)(rsp + 1) + imm_len, sense_len);
	req->sense_len = sense_len;
	residual = le32_to_cpu(rsp->residual);
	if (flags & RBD_RSP_F_UNDERFLOW)
		req->resid = min(residual, req->data_len);
	else if (flags & RBD_RSP_F_OVERFLOW)
		req->resid = -(s32)min_t(u32, residual, S32_MAX);
	else
		req->resid = 0;
	if (req->imm) {
		rbdi_copy_to_rq(rq, (const u8 *)(rsp + 1), imm_len);
		/* What did not arrive was not transferred. */
		req->resid = max_t(s32, req->resid, req->data_len - imm_len);
	}
	*inv = inv_flag;
	return req;
}

/*
 * End the response's part of @req, taken by rbdi_rsp_take() (@inv: the
 * target invalidated its MR), once the receive is reposted.
 */
static void rbdi_rsp_finish(struct rbdi_queue *q, struct rbdi_request *req,
			    bool inv)
{
	struct rbdi_session *sess = q->sess;

	if (req->mr && inv)
		rbdi_stat_inc(sess, RBDI_STAT_REMOTE_INVS);
	if (req->mr && !inv) {
		rbdi_stat_inc(sess, RBDI_STAT_LOCAL_INVS);
		if (!test_bit(RBDI_Q_LIVE, &q->flags) ||
		    rbdi_local_inv(q, req))
			rbdi_sess_error(sess);
		return;
	}
	rbdi_req_put(req);
}

/*
 * A response batch (%RBD_FEAT_RSP_BATCH): 2 to rbd_rsp_batch_max()
 * responses of 32 bytes back to back, none with immediate or sense data
 * or invalidation. Each is checked and taken before the receive is
 * reposted and any request completed; a bad one tears the session down.
 */
static void rbdi_blk_rsp_batch(struct rbdi_queue *q, struct rbdi_rbuf *rb,
			       struct ib_wc *wc)
{
	struct rbdi_request *reqs[RBD_RSP_BATCH_MAX];
	const struct rbd_rsp *rsp = rb->buf;
	struct rbdi_session *sess = q->sess;
	u32 n = 0, i;
	bool inv;

	if (rbd_check_rsp_batch(wc->byte_len, &q->lim, &n) ||
	    (wc->wc_flags & IB_WC_WITH_INVALIDATE)) {
		rbdi_sess_err_rl(sess, "queue %u: invalid response batch: %u bytes%s\n",
				 q->qid, wc->byte_len,
				 wc->wc_flags & IB_WC_WITH_INVALIDATE ?
				 ", with invalidation" : "");
		goto out_sess_error;
	}
	/* rbd_check_rsp() on 32 bytes refuses immediate and sense data. */
	for (i = 0; i < n; i++, rsp++) {
		reqs[i] = rbdi_rsp_take(q, rsp, sizeof(*rsp), false, 0, &inv);
		if (!reqs[i])
			goto out_sess_error;
	}
	if (rbdi_rsp_repost(q, rb))
		return;
	rbdi_stat_inc(sess, RBDI_STAT_RSP_BATCHES);
	rbdi_stat_add(sess, RBDI_STAT_RSPS_BATCHED, n);
	for (i = 0; i < n; i++)
		rbdi_rsp_finish(q, reqs[i], false);
	return;

out_sess_error:
	rbdi_sess_error(sess);
}

/**
 * rbdi_blk_rsp() - handle a receive on an I/O queue
 * @q: The queue.
 * @rb: The receive buffer, synced for the CPU.
 * @wc: Its work completion, status success.
 *
 * Everything in the buffer comes from the network: it is validated, its
 * tag looked up and checked against the outstanding request, before any
 * of it is used. A bad response tears the session down. A receive longer
 * than the 32-byte response it starts with is a response batch, where the
 * session has them.
 *
 * Context: Softirq (CQ polling).
 */
void rbdi_blk_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		  struct ib_wc *wc)
{
	const struct rbd_rsp *rsp = rb->buf;
	struct rbdi_request *req;
	bool inv;

	if (rbd_rsp_is_batch(rsp, wc->byte_len, &q->lim)) {
		rbdi_blk_rsp_batch(q, rb, wc);
		return;
	}
	req = rbdi_rsp_take(q, rsp, wc->byte_len,
			    wc->wc_flags & IB_WC_WITH_INVALIDATE,
			    wc->ex.invalidate_rkey, &inv);
	if (!req) {
		rbdi_sess_error(q->sess);
		return;
	}
	if (rbdi_rsp_repost(q, rb))
		return;
	rbdi_rsp_finish(q, req, inv);
}
