// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: sessions, from their creation by a LOGIN (rbdt_login.c) to their
 * teardown, and the ACL's info attribute that lists them.
 *
 * Teardown. Any error, disconnect or LOGOUT marks the queue dying under
 * its lock; from then on nothing is posted on it. A queue with a session
 * hands the teardown to the session's release work, which, for all its
 * queues: disconnects (QP to ERR), drains (from this work, never from the
 * CQ context), then stops the LIO session, waits for its commands,
 * removes it, and destroys the queues: rdma_cm id, QP, CQ, buffers, and
 * last the device reference (and with it the PD). A queue 0 that never
 * logged in is torn down alone by its own release work (rbdt_queue.c).
 * Removing an ACL or disabling a TPG closes its sessions and waits.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <target/target_core_backend.h>

#include "rbdt.h"

/* Called with rbdt_sess_lock held. */
void __rbdt_session_shutdown(struct rbdt_session *sess)
{
	lockdep_assert_held(&rbdt_sess_lock);
	if (sess->state == RBDT_SESS_DYING)
		return;
	sess->state = RBDT_SESS_DYING;
	kref_get(&sess->ref);
	queue_work(rbdt_wq, &sess->release_work);
}

static void rbdt_session_free(struct kref *ref)
{
	struct rbdt_session *sess = container_of(ref, struct rbdt_session,
						 ref);

	free_percpu(sess->stats);
	kfree(sess);
}

void rbdt_session_put(struct rbdt_session *sess)
{
	kref_put(&sess->ref, rbdt_session_free);
}

static u64 rbdt_new_handle(void)
{
	struct rbdt_session *s;
	u64 h;

	lockdep_assert_held(&rbdt_sess_lock);
again:
	h = get_random_u64();
	if (!h)
		goto again;
	list_for_each_entry(s, &rbdt_sessions, entry)
		if (s->handle == h)
			goto again;
	return h;
}

/* Commands of @sess that LIO or the wire still hold, for a stuck teardown. */
static void rbdt_session_dump_cmds(struct rbdt_session *sess,
				   struct rbdt_queue **queues)
{
	unsigned int shown = 0;
	unsigned long flags;
	u32 i;
	int qi;

	for (qi = 1; qi <= RBD_MAX_NR_QUEUES; qi++) {
		struct rbdt_queue *q = queues[qi];

		if (!q)
			continue;
		for (i = 0; i < q->depth && shown < 16; i++) {
			struct rbdt_cmd *cmd = &q->cmds[i];
			struct se_cmd *se_cmd = &cmd->se_cmd;
			bool busy, outstanding, lio;

			spin_lock_irqsave(&q->lock, flags);
			busy = cmd->busy;
			outstanding = cmd->outstanding;
			lio = cmd->lio;
			spin_unlock_irqrestore(&q->lock, flags);
			if (!busy && !outstanding)
				continue;
			shown++;
			pr_warn("session %016llx qid %u tag %#llx: still held: outstanding %d lio %d aborted %d rw %u t_state %d transport_state %#x flags %#x kref %u\n",
				sess->handle, q->qid, cmd->tag, outstanding,
				lio, cmd->aborted, cmd->nr_rw,
				lio ? se_cmd->t_state : -1,
				lio ? se_cmd->transport_state : 0,
				lio ? se_cmd->se_cmd_flags : 0,
				lio ? kref_read(&se_cmd->cmd_kref) : 0);
		}
	}
}

/*
 * Wait for the session's commands; every 30 s say which ones are late.
 * target_wait_for_sess_cmds() would wait as long, silently.
 */
static void rbdt_session_wait_cmds(struct rbdt_session *sess,
				   struct rbdt_queue **queues)
{
	struct target_cmd_counter *cnt = sess->se_sess->cmd_cnt;

	while (!wait_event_timeout(cnt->refcnt_wq,
				   percpu_ref_is_zero(&cnt->refcnt), 30 * HZ)) {
		pr_warn("session %016llx (%s): commands still running after 30 s\n",
			sess->handle, sess->name);
		rbdt_session_dump_cmds(sess, queues);
	}
	target_wait_for_sess_cmds(sess->se_sess);
}

static void rbdt_session_release_work(struct work_struct *work)
{
	struct rbdt_session *sess = container_of(work, struct rbdt_session,
						 release_work);
	struct rbdt_queue *queues[RBD_MAX_NR_QUEUES + 1] = {};
	unsigned long flags;
	int i;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	for (i = 0; i <= RBD_MAX_NR_QUEUES; i++) {
		struct rbdt_queue *q = sess->queues[i];

		if (!q)
			continue;
		queues[i] = q;
		spin_lock(&q->lock);
		q->dying = true;
		spin_unlock(&q->lock);
	}
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);

	for (i = 0; i <= RBD_MAX_NR_QUEUES; i++)
		if (queues[i])
			rdma_disconnect(queues[i]->cm_id);
	for (i = 0; i <= RBD_MAX_NR_QUEUES; i++)
		if (queues[i])
			ib_drain_qp(queues[i]->qp);
	for (i = 1; i <= RBD_MAX_NR_QUEUES; i++)
		if (queues[i])
			rbdt_queue_reap_lost(queues[i]);

	target_stop_session(sess->se_sess);
	rbdt_session_wait_cmds(sess, queues);
	/* The last releases may have queued it: done before LIO's session. */
	for (i = 0; i <= RBD_MAX_NR_QUEUES; i++)
		if (queues[i])
			cancel_work_sync(&queues[i]->pending_work);

	mutex_lock(&sess->tpg->lock);
	list_del_init(&sess->tpg_entry);
	mutex_unlock(&sess->tpg->lock);
	target_remove_session(sess->se_sess);
	debugfs_remove(sess->debugfs);

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	list_del(&sess->entry);
	memset(sess->queues, 0, sizeof(sess->queues));
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);

	/* I/O queues first: queue 0 carries the LOGOUT_RSP. */
	for (i = RBD_MAX_NR_QUEUES; i >= 0; i--)
		if (queues[i])
			rbdt_queue_destroy(queues[i]);

	pr_info("%s: session %016llx (%s) closed\n", sess->tpg->name,
		sess->handle, sess->name);
	complete_all(&sess->released);
	rbdt_session_put(sess);	/* taken by __rbdt_session_shutdown() */
	rbdt_session_put(sess);	/* the session list's */
}

/* A session for a checked LOGIN, not yet attached to anything. */
struct rbdt_session *rbdt_session_alloc(const struct rbd_login_req *req,
					const char *ini, const char *tgt)
{
	struct rbdt_session *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	sess->stats = alloc_percpu(struct rbdt_stats);
	if (!sess->stats) {
		kfree(sess);
		return NULL;
	}
	kref_init(&sess->ref);
	spin_lock_init(&sess->lock);
	INIT_WORK(&sess->release_work, rbdt_session_release_work);
	init_completion(&sess->released);
	INIT_LIST_HEAD(&sess->tpg_entry);
	sess->lun = le64_to_cpu(req->lun);
	sess->instance = le64_to_cpu(req->instance);
	snprintf(sess->name, sizeof(sess->name), "%s -> %s lun %llu", ini, tgt,
		 sess->lun);
	return sess;
}

/*
 * Make @sess, logged in on its queue 0 @q, known: a handle, the session
 * lists (global, and its TPG's), and @q. Called with the TPG's lock held.
 */
void rbdt_session_add(struct rbdt_queue *q, struct rbdt_session *sess)
{
	unsigned long flags;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	sess->handle = rbdt_new_handle();
	sess->login.session_handle = cpu_to_le64(sess->handle);
	sess->queues[0] = q;
	list_add_tail(&sess->entry, &rbdt_sessions);
	rbdt_halfopen_del(q);
	spin_lock(&q->lock);
	q->sess = sess;
	q->logged_in = true;
	if (q->dying)
		__rbdt_session_shutdown(sess);
	spin_unlock(&q->lock);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	list_add_tail(&sess->tpg_entry, &sess->tpg->sess_list);
}

/* Close a referenced session and wait until it is gone from LIO. */
static void rbdt_session_close_sync(struct rbdt_session *sess)
{
	unsigned long flags;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	__rbdt_session_shutdown(sess);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	wait_for_completion(&sess->released);
}

/**
 * rbdt_tpg_close_sessions() - close every session of a TPG and wait
 * @tpg: The TPG, disabled or being dropped.
 *
 * Context: Process context.
 */
void rbdt_tpg_close_sessions(struct rbdt_tpg *tpg)
{
	struct rbdt_session *sess;

	for (;;) {
		mutex_lock(&tpg->lock);
		sess = list_first_entry_or_null(&tpg->sess_list,
						struct rbdt_session, tpg_entry);
		if (sess)
			kref_get(&sess->ref);
		mutex_unlock(&tpg->lock);
		if (!sess)
			break;
		rbdt_session_close_sync(sess);
		rbdt_session_put(sess);
	}
}

/**
 * rbdt_close_session() - the close_session fabric op (ACL removal)
 * @se_sess: The session.
 *
 * Context: Process context; waits for the session to be removed.
 */
void rbdt_close_session(struct se_session *se_sess)
{
	struct rbdt_session *sess = se_sess->fabric_sess_ptr;

	kref_get(&sess->ref);
	rbdt_session_close_sync(sess);
	rbdt_session_put(sess);
}

/**
 * rbdt_nacl_info() - the ACL's info attribute: its live sessions
 * @se_nacl: An explicit ACL.
 * @page: The configfs page.
 *
 * Return: the bytes written, one line per session.
 */
ssize_t rbdt_nacl_info(struct se_node_acl *se_nacl, char *page)
{
	struct rbdt_tpg *tpg = to_rbdt_tpg(se_nacl->se_tpg);
	struct rbdt_session *sess;
	ssize_t len = 0;

	mutex_lock(&tpg->lock);
	list_for_each_entry(sess, &tpg->sess_list, tpg_entry) {
		const struct rbd_login_rsp *g = &sess->login;

		if (sess->se_sess->se_node_acl != se_nacl)
			continue;
		len += sysfs_emit_at(page, len,
				     "session %016llx from %pISpc: LUN %llu, %u queues of depth %u, max_io %u, inline %u, imm %u, keep-alive %u ms, %u commands in flight%s\n",
				     sess->handle, &sess->queues[0]->peer,
				     sess->lun, sess->nr_queues,
				     le16_to_cpu(g->queue_depth),
				     le32_to_cpu(g->max_io_bytes),
				     le32_to_cpu(g->inline_write_size),
				     le32_to_cpu(g->imm_read_size),
				     le32_to_cpu(g->keepalive_ms),
				     rbdt_session_inflight(sess),
				     sess->state == RBDT_SESS_DYING ?
				     " (closing)" : "");
	}
	mutex_unlock(&tpg->lock);
	if (!len)
		len = sysfs_emit(page, "no session of %s\n",
				 se_nacl->initiatorname);
	return len;
}
