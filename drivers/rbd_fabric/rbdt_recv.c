// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: receive completions, and which capsule goes where. Every capsule
 * an initiator sends arrives here (rbdt_recv_done()) and is checked
 * (rbd_check_request()) and dispatched by queue and opcode:
 *
 *   SCSI_CMD on an I/O queue		rbdt_cmd.c
 *   before LOGIN on queue 0:
 *     AUTH_BEGIN, AUTH_PROOF		rbdt_auth.c
 *     DISCOVER				rbdt_discovery.c
 *     NOP				rbdt_keepalive.c
 *     LOGIN				rbdt_login.c
 *   after LOGIN on any queue:
 *     NOP				rbdt_keepalive.c
 *     LOGOUT				rbdt_logout.c
 *     TMF				rbdt_tmf.c
 *
 * Anything else is a protocol violation, and disconnects. A control
 * capsule claims the control slot its tag names (rbdt_ctrl_claim()); its
 * response, sent with rbdt_ctrl_send(), frees the slot.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rbdt.h"

/* Claim control slot @slot; a reused slot is a protocol violation. */
static bool rbdt_ctrl_claim(struct rbdt_queue *q, u32 slot)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&q->lock, flags);
	/*
	 * A slot is free once its response is posted, but the CQ has room
	 * for a bounded number of control SENDs not yet completed.
	 */
	ok = !q->ctrl[slot].busy &&
	     atomic_read(&q->ctrl_sends) < 2 * RBD_CTRL_SLOTS;
	q->ctrl[slot].busy = true;
	q->ctrl[slot].status = 0;
	spin_unlock_irqrestore(&q->lock, flags);
	return ok;
}

/*
 * Queue 0 before LOGIN: AUTH_BEGIN, AUTH_PROOF, DISCOVER and NOP are
 * handled here. Returns true when @r was taken care of (answered,
 * dropped or the queue disconnected), false for the LOGIN path.
 */
static bool rbdt_prelogin(struct rbdt_queue *q, struct rbdt_recv *r,
			  u32 len, enum rbd_check c)
{
	const struct rbd_hdr *hdr = r->buf;
	u8 op = len >= sizeof(*hdr) ? hdr->opcode : 0;

	if (rbdt_auth_failed(q)) {
		rbdt_queue_post_recv(q, r);
		return true;
	}
	/*
	 * A NOP may follow a first capsule (rbdi's nudge), not be one; after
	 * a LOGIN that waits for the session it reinstates, it is answered
	 * here.
	 */
	if (op == RBD_OP_NOP && !q->auth && !q->prelogin_used &&
	    !q->login_seen)
		goto out_violation;
	if (op != RBD_OP_DISCOVER && op != RBD_OP_AUTH_BEGIN &&
	    op != RBD_OP_AUTH_PROOF && op != RBD_OP_NOP)
		return false;
	if ((op == RBD_OP_DISCOVER ? rbd_check_cmd_fatal(c) : c) ||
	    !rbdt_ctrl_claim(q, rbd_tag_slot(le64_to_cpu(hdr->tag))))
		goto out_violation;
	switch (op) {
	case RBD_OP_DISCOVER:
		q->prelogin_used = true;
		rbdt_handle_discover(q, r, len);
		break;
	case RBD_OP_NOP:
		rbdt_handle_nop(q, r, rbd_tag_slot(le64_to_cpu(hdr->tag)));
		break;
	default:
		if (!rbdt_auth_handle(q, r))
			goto out_violation;
	}
	return true;

out_violation:
	pr_err_ratelimited("qid 0 %pISpc: protocol violation before LOGIN: %s capsule of %u bytes%s%s; disconnecting\n",
			   &q->peer, rbd_opcode_str(op), len, c ? ": " : "",
			   c ? rbd_check_str(c) : "");
	rbdt_queue_error(q);
	return true;
}

/*
 * A capsule on queue 0 before LOGIN, checked as @c: the pre-LOGIN
 * capsules, then the LOGIN. Return false for a protocol violation.
 */
static bool rbdt_recv_first(struct rbdt_queue *q, struct rbdt_recv *r,
			    u32 len, enum rbd_check c)
{
	const struct rbd_hdr *hdr = r->buf;

	if (rbdt_prelogin(q, r, len, c))
		return true;
	/* The first capsule must be the LOGIN. */
	if (len < sizeof(*hdr) || hdr->opcode != RBD_OP_LOGIN ||
	    rbd_check_cmd_fatal(c))
		return false;
	if (q->login_seen ||
	    !rbdt_ctrl_claim(q, rbd_tag_slot(le64_to_cpu(hdr->tag))))
		return false;
	q->login_seen = true;
	rbdt_handle_login(q, r, len);
	return true;
}

/*
 * A control capsule of a logged-in session, checked as @c. Return false
 * for a protocol violation.
 */
static bool rbdt_recv_ctrl(struct rbdt_queue *q, struct rbdt_recv *r,
			   enum rbd_check c)
{
	const struct rbd_hdr *hdr = r->buf;
	u64 tag;

	if (c)
		return false;

	tag = le64_to_cpu(hdr->tag);
	if (hdr->opcode == RBD_OP_LOGIN ||
	    !rbdt_ctrl_claim(q, rbd_tag_slot(tag)))
		return false;

	switch (hdr->opcode) {
	case RBD_OP_NOP:
		rbdt_handle_nop(q, r, rbd_tag_slot(tag));
		break;
	case RBD_OP_LOGOUT:
		rbdt_handle_logout(q, r, tag);
		break;
	case RBD_OP_TMF:
		rbdt_handle_tmf(q, r, rbd_tag_slot(tag));
		break;
	default:
		return false;
	}
	return true;
}

/* A receive completed: a capsule arrived, or the buffer was flushed. */
void rbdt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdt_recv *r = container_of(wc->wr_cqe, struct rbdt_recv, cqe);
	struct rbdt_queue *q = cq_to_q(wc);
	const struct rbd_hdr *hdr = r->buf;
	u32 len = wc->byte_len;
	enum rbd_check c;
	bool handled;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err_ratelimited("qid %u %pISpc: receive failed: %s\n",
					   q->qid, &q->peer,
					   ib_wc_status_msg(wc->status));
		rbdt_queue_error(q);
		return;
	}
	ib_dma_sync_single_for_cpu(q->dev->ib_dev, r->dma, q->recv_size,
				   DMA_FROM_DEVICE);
	if (len > q->recv_size)
		len = 0;	/* cannot happen; refused as too short */

	/* No capsule of an initiator carries immediate data. */
	if (unlikely(wc->wc_flags & IB_WC_WITH_IMM)) {
		pr_err_ratelimited("qid %u %pISpc: protocol violation: capsule of %u bytes with immediate data; disconnecting\n",
				   q->qid, &q->peer, len);
		if (q->sess)
			rbdt_stat_inc(q->sess, RBDT_STAT_ERRORS);
		rbdt_queue_error(q);
		return;
	}

	WRITE_ONCE(q->last_rx, jiffies);

	if (q->qid && len >= sizeof(*hdr) &&
	    hdr->opcode == RBD_OP_SCSI_CMD) {
		rbdt_handle_cmd(q, r, len);
		return;
	}

	c = rbd_check_request(r->buf, len, &q->lim);
	if (q->qid == 0 && !q->logged_in)
		handled = rbdt_recv_first(q, r, len, c);
	else
		handled = rbdt_recv_ctrl(q, r, c);
	if (handled)
		return;

	pr_err_ratelimited("qid %u %pISpc: protocol violation: %s capsule of %u bytes%s%s; disconnecting\n",
			   q->qid, &q->peer,
			   len >= sizeof(*hdr) ? rbd_opcode_str(hdr->opcode) :
						 "short",
			   len, c ? ": " : "", c ? rbd_check_str(c) : "");
	if (q->sess)
		rbdt_stat_inc(q->sess, RBDT_STAT_ERRORS);
	rbdt_queue_error(q);
}
