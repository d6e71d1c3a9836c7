// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the control queue (queue 0) of a session: LOGIN and LOGOUT, the
 * keep-alive NOPs and ABORT TASK, and the responses to them.
 *
 * Queue 0 sends from a few fixed slots (RBDI_SLOT_*), each with its own
 * generation in the tag. LOGIN, LOGOUT and the authentication exchange
 * (rbdi_auth.c) use slot RBDI_SLOT_LOGIN, one at a time: rbdi_ctrl_arm()
 * arms it for the expected response, rbdi_ctrl_exec() sends and waits.
 * A NOP (RBDI_SLOT_NOP) and an ABORT TASK (RBDI_SLOT_TMF) are sent
 * without waiting; rbdi_ctrl_rsp() matches every response on queue 0
 * with what is outstanding, under &rbdi_session.ctrl_lock, and tears the
 * session down on anything else.
 *
 * The connection itself is rbdi_rdma.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "rbdi.h"

/* A LOGIN unanswered this long gets a NOP behind it (rbdi_ctrl_exec()). */
#define RBDI_NUDGE_MS		2000
#define RBDI_LOGOUT_WAIT_MS	5000

/*
 * Queue 0's connection is gone: wake a LOGIN/LOGOUT waiter, but leave the
 * slot armed, so that a response received before the disconnect still
 * counts when the waiter reads the receive queue to its end
 * (rbdi_ctrl_reap()).
 */
void rbdi_ctrl_lost(struct rbdi_session *sess)
{
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&sess->ctrl_lock, flags);
	wake = sess->ctrl_opcode;
	if (wake)
		sess->ctrl_result = -ECONNRESET;
	spin_unlock_irqrestore(&sess->ctrl_lock, flags);
	if (wake)
		complete(&sess->ctrl_done);
}

/* Wake a LOGIN/LOGOUT waiter with @err if one is waiting. */
static void rbdi_ctrl_fail(struct rbdi_session *sess, int err)
{
	unsigned long flags;
	bool wake = false;

	spin_lock_irqsave(&sess->ctrl_lock, flags);
	if (sess->ctrl_opcode) {
		sess->ctrl_opcode = 0;
		sess->ctrl_result = err;
		wake = true;
	}
	spin_unlock_irqrestore(&sess->ctrl_lock, flags);
	if (wake)
		complete(&sess->ctrl_done);
}

/* Send @len bytes of control slot @slot of queue 0. */
static int rbdi_ctrl_send(struct rbdi_queue *q, unsigned int slot, u32 len)
{
	struct rbdi_ctrl_slot *s = &q->slots[slot];
	struct ib_sge sge = {
		.addr	= s->dma,
		.length	= len,
		.lkey	= q->sess->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &s->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(q->sess->ibdev, s->dma, len,
				      DMA_TO_DEVICE);
	return ib_post_send(q->qp, &wr, NULL);
}

/* Does @tag name control slot @slot of queue 0, in its current generation? */
static bool rbdi_ctrl_tag_ok(const struct rbdi_queue *q, u64 tag,
			     unsigned int slot)
{
	return rbd_tag_slot(tag) == slot &&
	       rbd_tag_gen(tag) == q->slots[slot].gen;
}

/**
 * struct rbdi_ctrl_take - what a response on queue 0 did
 * @wake: A LOGIN, LOGOUT or AUTH waiter is to be woken.
 * @tmf_rsp: The response to an ABORT TASK, or -1.
 * @tmf_ref: The tag that ABORT TASK named.
 */
struct rbdi_ctrl_take {
	bool wake;
	int tmf_rsp;
	u64 tmf_ref;
};

/*
 * Match the response @hdr (@len bytes, tag @tag) with what queue 0 has
 * outstanding and take it, under &rbdi_session.ctrl_lock. Return false if
 * nothing outstanding expects it.
 */
static bool rbdi_ctrl_take(struct rbdi_queue *q, const struct rbd_hdr *hdr,
			   u32 len, u64 tag, struct rbdi_ctrl_take *tk)
{
	struct rbdi_session *sess = q->sess;

	switch (hdr->opcode) {
	case RBD_OP_LOGIN_RSP:
	case RBD_OP_LOGOUT_RSP:
		if (sess->ctrl_opcode != hdr->opcode ||
		    !rbdi_ctrl_tag_ok(q, tag, RBDI_SLOT_LOGIN))
			return false;
		if (hdr->opcode == RBD_OP_LOGIN_RSP)
			memcpy(&sess->login_rsp, hdr, sizeof(sess->login_rsp));
		break;
	case RBD_OP_AUTH_BEGIN_RSP:
	case RBD_OP_AUTH_PROOF_RSP:
		if (sess->ctrl_opcode != hdr->opcode ||
		    !rbdi_ctrl_tag_ok(q, tag, RBDI_SLOT_LOGIN) ||
		    !rbdi_auth_take_rsp(sess, hdr, len))
			return false;
		break;
	case RBD_OP_NOP_RSP:
		if (!sess->nop_pending ||
		    !rbdi_ctrl_tag_ok(q, tag, RBDI_SLOT_NOP))
			return false;
		sess->nop_pending = false;
		return true;
	case RBD_OP_TMF_RSP:
		if (!sess->tmf_pending ||
		    !rbdi_ctrl_tag_ok(q, tag, RBDI_SLOT_TMF))
			return false;
		sess->tmf_pending = false;
		tk->tmf_ref = sess->tmf_ref;
		tk->tmf_rsp = ((const struct rbd_tmf_rsp *)hdr)->response;
		return true;
	default:
		return false;
	}
	/* The response a LOGIN, LOGOUT or AUTH waiter waits for. */
	sess->ctrl_opcode = 0;
	sess->ctrl_result = 0;
	tk->wake = true;
	return true;
}

/*
 * The answer to ABORT TASK of @tmf_ref, only logged; "no such task" arms
 * the lost-command work (rbdi_lost_work()).
 */
static void rbdi_ctrl_tmf_done(struct rbdi_session *sess, u64 tmf_ref,
			       int tmf_rsp)
{
	rbdi_sess_err_rl(sess, "ABORT TASK of tag %#llx: %s\n", tmf_ref,
			 rbd_tmf_rsp_str(tmf_rsp));
	if (tmf_rsp == RBD_TMF_RSP_NO_TASK) {
		/* Its response may still be on its way on the other queue. */
		WRITE_ONCE(sess->lost_tag, tmf_ref);
		mod_delayed_work(rbdi_wq, &sess->lost_work,
				 msecs_to_jiffies(rbdi_lost_grace_ms(sess)));
	}
}

/**
 * rbdi_ctrl_rsp() - handle a receive on queue 0
 * @q: Queue 0.
 * @rb: The receive buffer, synced for the CPU.
 * @wc: Its work completion, status success.
 *
 * A LOGIN_RSP, LOGOUT_RSP, AUTH_*_RSP, NOP_RSP or TMF_RSP, validated and
 * matched with what is outstanding; anything else tears the session down.
 *
 * Context: Softirq (CQ polling).
 */
void rbdi_ctrl_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		   struct ib_wc *wc)
{
	struct rbdi_session *sess = q->sess;
	const struct rbd_hdr *hdr = rb->buf;
	struct rbdi_ctrl_take tk = { .tmf_rsp = -1 };
	unsigned long flags;
	enum rbd_check c;
	bool ok;
	u64 tag;

	c = rbd_check_response(rb->buf, wc->byte_len, &q->lim,
			       &sess->login_req);
	if (!c && (wc->wc_flags & IB_WC_WITH_IMM))
		c = RBD_CHECK_BAD_OPCODE;
	if (c) {
		rbdi_sess_err_rl(sess, "queue 0: invalid response: %s\n",
				 rbd_check_str(c));
		goto out_sess_error;
	}
	tag = le64_to_cpu(hdr->tag);

	spin_lock_irqsave(&sess->ctrl_lock, flags);
	ok = rbdi_ctrl_take(q, hdr, wc->byte_len, tag, &tk);
	spin_unlock_irqrestore(&sess->ctrl_lock, flags);

	if (!ok) {
		rbdi_sess_err_rl(sess, "queue 0: unexpected %s, tag %#llx\n",
				 rbd_opcode_str(hdr->opcode), tag);
		goto out_sess_error;
	}
	if (tk.tmf_rsp >= 0)
		rbdi_ctrl_tmf_done(sess, tk.tmf_ref, tk.tmf_rsp);
	if (rbdi_post_recv(q, rb)) {
		rbdi_sess_err_rl(sess, "queue 0: cannot repost a receive\n");
		rbdi_queue_lost(q);
	}
	if (tk.wake)
		complete(&sess->ctrl_done);
	return;

out_sess_error:
	rbdi_ctrl_fail(sess, -EPROTO);
	rbdi_sess_error(sess);
}

/*
 * Post a NOP on queue 0 unless one is outstanding. Return 0 or the error
 * of the post.
 */
static int rbdi_nop_send(struct rbdi_session *sess)
{
	struct rbdi_queue *q0 = &sess->queues[0];
	struct rbdi_ctrl_slot *s = &q0->slots[RBDI_SLOT_NOP];
	struct rbd_nop *nop = s->buf;
	u64 tag;

	spin_lock_irq(&sess->ctrl_lock);
	if (sess->nop_pending) {
		spin_unlock_irq(&sess->ctrl_lock);
		return 0;
	}
	sess->nop_pending = true;
	sess->nop_sent = jiffies;
	tag = rbd_tag(0, ++s->gen, RBDI_SLOT_NOP);
	spin_unlock_irq(&sess->ctrl_lock);

	memset(nop, 0, sizeof(*nop));
	nop->hdr.opcode = RBD_OP_NOP;
	nop->hdr.version = RBD_PROTO_VERSION;
	nop->hdr.length = cpu_to_le32(sizeof(*nop));
	nop->hdr.tag = cpu_to_le64(tag);
	nop->cookie = cpu_to_le64(jiffies);
	return rbdi_ctrl_send(q0, RBDI_SLOT_NOP, sizeof(*nop));
}

/*
 * The connection went down while a response was awaited. A target that
 * refuses a LOGIN, or answers a LOGOUT, disconnects right after its
 * response, and the disconnect can overtake the receive completion:
 * read queue 0's receive queue to its end before giving up, so that the
 * response, not the disconnect, is what the caller sees.
 */
static int rbdi_ctrl_reap(struct rbdi_session *sess)
{
	int ret;

	ib_drain_rq(sess->queues[0].qp);
	spin_lock_irq(&sess->ctrl_lock);
	ret = sess->ctrl_result;
	sess->ctrl_opcode = 0;
	spin_unlock_irq(&sess->ctrl_lock);
	return ret;
}

/* The outcome of a control exchange whose waiter was woken. */
static int rbdi_ctrl_result(struct rbdi_session *sess)
{
	int ret = READ_ONCE(sess->ctrl_result);

	return ret == -ECONNRESET ? rbdi_ctrl_reap(sess) : ret;
}

/* Send a control capsule on slot 0 and wait for its response. */
int rbdi_ctrl_exec(struct rbdi_session *sess, u8 rsp_opcode, u32 len,
		   unsigned int wait_ms)
{
	struct rbdi_queue *q0 = &sess->queues[0];
	unsigned long left;
	int ret;

	ret = rbdi_ctrl_send(q0, RBDI_SLOT_LOGIN, len);
	if (ret) {
		rbdi_sess_err(sess, "queue 0: ib_post_send failed (%d)\n", ret);
		rbdi_ctrl_fail(sess, ret);
		return ret;
	}
	/*
	 * siw (6.1 and 6.12) may leave the first message after an accept unread in
	 * the target's socket: it sends the MPA reply before it hands the
	 * socket to the QP, and data that arrives in between waits for the
	 * next segment. A NOP behind a LOGIN that stays unanswered for
	 * RBDI_NUDGE_MS is that segment; it is a valid NOP after LOGIN
	 * for the target, which reads the stream in order.
	 */
	if ((rsp_opcode == RBD_OP_LOGIN_RSP ||
	     rsp_opcode == RBD_OP_AUTH_BEGIN_RSP) && wait_ms > RBDI_NUDGE_MS) {
		left = wait_for_completion_timeout(&sess->ctrl_done,
						   msecs_to_jiffies(RBDI_NUDGE_MS));
		if (left)
			return rbdi_ctrl_result(sess);
		wait_ms -= RBDI_NUDGE_MS;
		pr_debug("session %s: no %s after %u ms; sending a NOP behind it\n",
			 sess->name, rbd_opcode_str(rsp_opcode), RBDI_NUDGE_MS);
		ret = rbdi_nop_send(sess);
		if (ret)
			rbdi_sess_err(sess, "queue 0: ib_post_send of a NOP failed (%d)\n",
				      ret);
	}
	left = wait_for_completion_timeout(&sess->ctrl_done,
					   msecs_to_jiffies(wait_ms));
	if (!left) {
		rbdi_ctrl_fail(sess, -ETIMEDOUT);
		rbdi_sess_err(sess, "%s from %pISpc timed out\n",
			      rbd_opcode_str(rsp_opcode), &sess->dst);
		return -ETIMEDOUT;
	}
	return rbdi_ctrl_result(sess);
}

/* Arm slot 0 for a response of @opcode; returns the new tag. */
u64 rbdi_ctrl_arm(struct rbdi_session *sess, u8 opcode)
{
	struct rbdi_ctrl_slot *s = &sess->queues[0].slots[RBDI_SLOT_LOGIN];
	u64 tag;

	spin_lock_irq(&sess->ctrl_lock);
	tag = rbd_tag(0, ++s->gen, RBDI_SLOT_LOGIN);
	sess->ctrl_opcode = opcode;
	sess->ctrl_result = -EIO;
	reinit_completion(&sess->ctrl_done);
	spin_unlock_irq(&sess->ctrl_lock);
	return tag;
}

int rbdi_login(struct rbdi_session *sess)
{
	const struct rbdi_sess_opts *o = &sess->opts;
	struct rbdi_queue *q0 = &sess->queues[0];
	struct rbd_login_req *req = &sess->login_req;
	struct rbd_login_rsp *rsp = &sess->login_rsp;
	u32 max_io;
	u16 status;
	int ret;

	max_io = min_t(u32, o->max_io_size, sess->max_fr_pages * SZ_4K);
	max_io = max_t(u32, rounddown(max_io, RBD_IO_BYTES_ALIGN),
		       RBD_MIN_IO_BYTES);

	memset(req, 0, sizeof(*req));
	req->hdr.opcode = RBD_OP_LOGIN;
	req->hdr.version = RBD_PROTO_VERSION;
	req->hdr.length = cpu_to_le32(sizeof(*req));
	/* The offer made when queue 0 connected. */
	req->features = q0->cm_req.features;
	req->lun = cpu_to_le64(o->lun);
	req->max_io_bytes = cpu_to_le32(max_io);
	req->inline_write_size = cpu_to_le32(o->inline_data_size);
	req->imm_read_size = cpu_to_le32(o->imm_read_size);
	req->keepalive_ms = cpu_to_le32(RBD_DEFAULT_KEEPALIVE_MS);
	req->queue_depth = cpu_to_le16(o->queue_depth);
	req->nr_queues = cpu_to_le16(o->nr_queues + o->nr_poll_queues);
	/* One MR per command: a single descriptor. */
	req->max_desc = cpu_to_le16(1);
	if (sess->cm_reinstate)
		req->instance = cpu_to_le64(sess->instance);
	strscpy(req->initiator_name, o->initiator, sizeof(req->initiator_name));
	strscpy(req->target_name, o->target, sizeof(req->target_name));
	req->hdr.tag = cpu_to_le64(rbdi_ctrl_arm(sess, RBD_OP_LOGIN_RSP));
	memcpy(q0->slots[RBDI_SLOT_LOGIN].buf, req, sizeof(*req));

	ret = rbdi_ctrl_exec(sess, RBD_OP_LOGIN_RSP, sizeof(*req),
			     RBDI_CTRL_WAIT_MS);
	if (ret)
		return ret;

	status = le16_to_cpu(rsp->status);
	if (status) {
		rbdi_sess_err(sess, "login as %s to %s LUN %llu at %pISpc rejected: %s\n",
			      o->initiator, o->target, o->lun, &sess->dst,
			      rbd_reject_str(status));
		rbdi_sess_set_last_error(sess, rbd_reject_str(status));
		return status == RBD_REJ_ACL_DENIED ||
		       rbd_reject_is_auth(status) ? -EACCES : -ECONNREFUSED;
	}
	rbd_check_limits_init(&q0->lim, rsp, 0, 0);
	sess->nr_queues = le16_to_cpu(rsp->nr_queues);
	/* Poll queues come last; at least one queue stays interrupt-driven. */
	sess->nr_poll = sess->nr_queues > 1 ?
			min(o->nr_poll_queues, sess->nr_queues - 1U) : 0;
	sess->ka_ms = le32_to_cpu(rsp->keepalive_ms);
	pr_debug("session %s: logged in: %u queues of %u, max_io %u, inline %u, imm %u, keep-alive %u ms, features %#llx\n",
		 sess->name, sess->nr_queues, le16_to_cpu(rsp->queue_depth),
		 le32_to_cpu(rsp->max_io_bytes),
		 le32_to_cpu(rsp->inline_write_size),
		 le32_to_cpu(rsp->imm_read_size), sess->ka_ms,
		 le64_to_cpu(rsp->features));
	return 0;
}

/*
 * The newest capsule any queue received: responses queued behind bulk data
 * on a shared link prove the target alive while the NOP answer waits.
 */
static unsigned long rbdi_sess_last_rx(struct rbdi_session *sess)
{
	unsigned long last = READ_ONCE(sess->queues[0].last_rx);
	unsigned int i;

	for (i = 1; i <= sess->nr_queues; i++) {
		struct rbdi_queue *q = &sess->queues[i];

		if (test_bit(RBDI_Q_LIVE, &q->flags) &&
		    time_after(READ_ONCE(q->last_rx), last))
			last = READ_ONCE(q->last_rx);
	}
	return last;
}

/**
 * rbdi_ka_work() - send a keep-alive NOP, or notice that one expired
 * @work: &rbdi_session.ka_work.
 */
void rbdi_ka_work(struct work_struct *work)
{
	struct rbdi_session *sess = container_of(to_delayed_work(work),
						 struct rbdi_session, ka_work);
	bool expired = false;

	if (!test_bit(RBDI_Q_LIVE, &sess->queues[0].flags))
		return;

	spin_lock_irq(&sess->ctrl_lock);
	if (sess->nop_pending)
		expired = time_after(jiffies, sess->nop_sent +
				     msecs_to_jiffies(sess->ka_ms)) &&
			  time_after(jiffies, rbdi_sess_last_rx(sess) +
				     msecs_to_jiffies(sess->ka_ms));
	spin_unlock_irq(&sess->ctrl_lock);

	if (expired) {
		rbdi_sess_err(sess, "keep-alive to %pISpc expired\n",
			      &sess->dst);
		rbdi_sess_error(sess);
		return;
	}
	if (rbdi_nop_send(sess)) {
		rbdi_sess_err(sess, "cannot send keep-alive\n");
		rbdi_sess_error(sess);
		return;
	}
	queue_delayed_work(rbdi_wq, &sess->ka_work,
			   msecs_to_jiffies(sess->ka_ms / 2));
}

/**
 * rbdi_send_abort() - ask the target to abort a command
 * @sess: The session.
 * @ref_tag: Tag of the command.
 *
 * One ABORT TASK is outstanding at a time; its TMF_RSP is only logged,
 * since the command itself is answered (TASK ABORTED, or its result).
 *
 * Context: Any; does not sleep.
 * Return: 0 if sent, -EBUSY if another is outstanding, -ENOTCONN if
 * queue 0 is down, or the error of the post.
 */
int rbdi_send_abort(struct rbdi_session *sess, u64 ref_tag)
{
	struct rbdi_queue *q0 = &sess->queues[0];
	struct rbdi_ctrl_slot *s = &q0->slots[RBDI_SLOT_TMF];
	struct rbd_tmf_req *tmf = s->buf;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sess->ctrl_lock, flags);
	if (!test_bit(RBDI_Q_LIVE, &q0->flags)) {
		ret = -ENOTCONN;
		goto out_unlock;
	}
	if (sess->tmf_pending) {
		ret = -EBUSY;
		goto out_unlock;
	}
	memset(tmf, 0, sizeof(*tmf));
	tmf->hdr.opcode = RBD_OP_TMF;
	tmf->hdr.version = RBD_PROTO_VERSION;
	tmf->hdr.length = cpu_to_le32(sizeof(*tmf));
	tmf->hdr.tag = cpu_to_le64(rbd_tag(0, ++s->gen, RBDI_SLOT_TMF));
	tmf->lun = cpu_to_le64(sess->opts.lun);
	tmf->ref_tag = cpu_to_le64(ref_tag);
	tmf->function = RBD_TMF_ABORT_TASK;
	ret = rbdi_ctrl_send(q0, RBDI_SLOT_TMF, sizeof(*tmf));
	if (!ret) {
		sess->tmf_pending = true;
		sess->tmf_ref = ref_tag;
		rbdi_stat_inc(sess, RBDI_STAT_ABORTS);
	}
out_unlock:
	spin_unlock_irqrestore(&sess->ctrl_lock, flags);
	return ret;
}

/**
 * rbdi_logout() - log out, if queue 0 is still usable
 * @sess: The session; no command may be outstanding.
 *
 * Waits a bounded time for the LOGOUT response; the queues are torn
 * down afterwards whatever the outcome.
 */
void rbdi_logout(struct rbdi_session *sess)
{
	struct rbdi_queue *q0;
	struct rbd_logout *lo;
	int ret;

	if (!sess->queues)
		return;
	q0 = &sess->queues[0];
	if (!test_bit(RBDI_Q_LIVE, &q0->flags) || !sess->login_rsp.session_handle)
		return;
	cancel_delayed_work_sync(&sess->ka_work);

	lo = q0->slots[RBDI_SLOT_LOGIN].buf;
	memset(lo, 0, sizeof(*lo));
	lo->hdr.opcode = RBD_OP_LOGOUT;
	lo->hdr.version = RBD_PROTO_VERSION;
	lo->hdr.length = cpu_to_le32(sizeof(*lo));
	lo->hdr.tag = cpu_to_le64(rbdi_ctrl_arm(sess, RBD_OP_LOGOUT_RSP));
	ret = rbdi_ctrl_exec(sess, RBD_OP_LOGOUT_RSP, sizeof(*lo),
			     RBDI_LOGOUT_WAIT_MS);
	if (ret)
		rbdi_sess_err(sess, "logout failed (%d); disconnecting anyway\n",
			      ret);
	else
		pr_debug("session %s: logged out\n", sess->name);
}
