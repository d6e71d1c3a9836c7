// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: LOGOUT. A LOGOUT on queue 0 ends the session: its response is
 * sent once every command of the session has been answered, and its send
 * completion tears the session down (rbdt_session.c). Commands that
 * arrive meanwhile are answered BUSY (rbdt_start_cmd()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rbdt.h"

static void rbdt_send_logout_rsp(struct rbdt_session *sess)
{
	struct rbdt_queue *q = sess->queues[0];
	u32 slot = rbd_tag_slot(sess->logout_tag);

	rbd_hdr_fill(q->ctrl[slot].buf, RBD_OP_LOGOUT_RSP,
		     sizeof(struct rbd_logout), cpu_to_le64(sess->logout_tag));
	rbdt_ctrl_send(q, slot, sizeof(struct rbd_logout), NULL);
}

/**
 * rbdt_session_inflight() - commands of a session not yet answered
 * @sess: The session.
 *
 * Context: Any; takes rbdt_sess_lock.
 * Return: The sum of its queues' counts.
 */
u32 rbdt_session_inflight(struct rbdt_session *sess)
{
	unsigned long flags;
	u32 n = 0;
	int i;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	for (i = 0; i <= sess->nr_queues; i++)
		if (sess->queues[i])
			n += atomic_read(&sess->queues[i]->inflight);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	return n;
}

/* Send the LOGOUT_RSP of @sess once, if no command is left in flight. */
static void rbdt_logout_try(struct rbdt_session *sess)
{
	unsigned long flags;
	bool send;

	if (rbdt_session_inflight(sess))
		return;
	spin_lock_irqsave(&sess->lock, flags);
	send = !sess->logout_sent;
	sess->logout_sent = true;
	spin_unlock_irqrestore(&sess->lock, flags);
	if (send)
		rbdt_send_logout_rsp(sess);
}

/**
 * rbdt_session_cmd_done() - a command of a queue has been answered
 * @q: The queue of the command.
 *
 * The per-command path touches only @q's count. The last command of a
 * queue looks whether a LOGOUT waits: the decrement and the look are
 * ordered against rbdt_handle_logout()'s store and count (smp_mb() on
 * both sides), so that one of the two sends the LOGOUT_RSP.
 *
 * Context: Any.
 */
void rbdt_session_cmd_done(struct rbdt_queue *q)
{
	/* atomic_dec_and_test() implies a full barrier. */
	if (!atomic_dec_and_test(&q->inflight))
		return;
	if (READ_ONCE(q->sess->logout))
		rbdt_logout_try(q->sess);
}

void rbdt_handle_logout(struct rbdt_queue *q, struct rbdt_recv *r,
			u64 tag)
{
	struct rbdt_session *sess = q->sess;
	unsigned long flags;

	rbdt_queue_post_recv(q, r);
	pr_info("%s: session %016llx: logout from %pISpc\n", sess->tpg->name,
		sess->handle, &q->peer);
	spin_lock_irqsave(&sess->lock, flags);
	sess->logout_tag = tag;
	WRITE_ONCE(sess->logout, true);
	spin_unlock_irqrestore(&sess->lock, flags);
	/* Pairs with the barrier of rbdt_session_cmd_done()'s decrement. */
	smp_mb();
	rbdt_logout_try(sess);
}
