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
 * rbdt_session_cmd_done() - a command of the session has been answered
 * @sess: The session.
 *
 * Sends the pending LOGOUT_RSP after the last command.
 *
 * Context: Any.
 */
void rbdt_session_cmd_done(struct rbdt_session *sess)
{
	unsigned long flags;
	bool send;

	spin_lock_irqsave(&sess->lock, flags);
	sess->inflight--;
	send = sess->logout && !sess->logout_sent && !sess->inflight;
	if (send)
		sess->logout_sent = true;
	spin_unlock_irqrestore(&sess->lock, flags);
	if (send)
		rbdt_send_logout_rsp(sess);
}

void rbdt_handle_logout(struct rbdt_queue *q, struct rbdt_recv *r,
			u64 tag)
{
	struct rbdt_session *sess = q->sess;
	unsigned long flags;
	bool send;

	rbdt_queue_post_recv(q, r);
	pr_info("%s: session %016llx: logout from %pISpc\n", sess->tpg->name,
		sess->handle, &q->peer);
	spin_lock_irqsave(&sess->lock, flags);
	sess->logout = true;
	sess->logout_tag = tag;
	send = !sess->logout_sent && !sess->inflight;
	if (send)
		sess->logout_sent = true;
	spin_unlock_irqrestore(&sess->lock, flags);
	if (send)
		rbdt_send_logout_rsp(sess);
}
