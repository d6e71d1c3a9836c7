// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: keep-alive. The initiator shows it is alive with NOP capsules,
 * answered here; a session none of whose queues received anything for
 * the keep-alive time granted at LOGIN is torn down. The same timer of a
 * queue 0 limits the time until its LOGIN (%RBD_LOGIN_TIMEOUT_MS).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rbdt.h"

void rbdt_handle_nop(struct rbdt_queue *q, struct rbdt_recv *r,
		     u32 slot)
{
	const struct rbd_nop *req = r->buf;
	struct rbd_nop *rsp = q->ctrl[slot].buf;
	unsigned long flags;

	if (rbdt_fault_drop_nop(q)) {
		rbdt_queue_post_recv(q, r);
		spin_lock_irqsave(&q->lock, flags);
		q->ctrl[slot].busy = false;
		spin_unlock_irqrestore(&q->lock, flags);
		return;
	}

	rbd_hdr_fill(rsp, RBD_OP_NOP_RSP, sizeof(*rsp), req->hdr.tag);
	rsp->cookie = req->cookie;
	rbdt_ctrl_send(q, slot, sizeof(*rsp), r);
}

/*
 * The newest capsule any queue of @q's session received. Bulk data on a
 * shared link can hold queue 0's NOPs back for seconds, but data that
 * arrives proves the initiator alive as well (as NVMe-oF's traffic based
 * keep-alive does).
 */
static unsigned long rbdt_session_last_rx(struct rbdt_queue *q)
{
	struct rbdt_session *sess = q->sess;
	unsigned long last = READ_ONCE(q->last_rx), flags;
	int i;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	for (i = 1; i <= RBD_MAX_NR_QUEUES; i++) {
		struct rbdt_queue *ioq = sess->queues[i];

		if (ioq && time_after(READ_ONCE(ioq->last_rx), last))
			last = READ_ONCE(ioq->last_rx);
	}
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	return last;
}

void rbdt_timeout_work(struct work_struct *work)
{
	struct rbdt_queue *q = container_of(to_delayed_work(work),
					    struct rbdt_queue, timeout_work);

	if (q->logged_in) {
		unsigned long now = jiffies;
		unsigned long expires = rbdt_session_last_rx(q) +
					msecs_to_jiffies(q->keepalive_ms);

		if (time_before(now, expires)) {
			queue_delayed_work(rbdt_wq, &q->timeout_work,
					   expires - now);
			return;
		}
	}
	if (q->logged_in)
		pr_warn_ratelimited("qid 0 %pISpc: keep-alive timeout (%u ms); disconnecting\n",
				    &q->peer, q->keepalive_ms);
	else if (q->login_seen)
		pr_warn_ratelimited("qid 0 %pISpc: LOGIN still waiting after %u ms for the session it reinstates to close; disconnecting\n",
				    &q->peer, RBD_LOGIN_TIMEOUT_MS);
	else
		pr_warn_ratelimited("qid 0 %pISpc: no LOGIN within %u ms; disconnecting\n",
				    &q->peer, RBD_LOGIN_TIMEOUT_MS);
	rbdt_queue_error(q);
}
