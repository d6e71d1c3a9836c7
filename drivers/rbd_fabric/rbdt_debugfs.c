// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: debugfs. /sys/kernel/debug/rbdt/connections counts queues,
 * half-open connections and sessions, and the connections and logins
 * refused by a cap; /sys/kernel/debug/rbdt/<session handle>/stats holds
 * the counters of one session (&struct rbdt_stats) and of its CQs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "rbdt.h"

static int rbdt_conn_stats_show(struct seq_file *m, void *v)
{
	u32 queues = 0, halfopen = 0, sessions = 0;
	struct rbdt_session *sess;
	struct rbdt_queue *q;
	unsigned long flags;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	list_for_each_entry(q, &rbdt_queues, entry)
		queues++;
	list_for_each_entry(q, &rbdt_halfopen, halfopen_entry)
		halfopen++;
	list_for_each_entry(sess, &rbdt_sessions, entry)
		sessions++;
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);

	seq_printf(m, "queues: %u\n", queues);
	seq_printf(m, "halfopen: %u\n", halfopen);
	seq_printf(m, "sessions: %u\n", sessions);
	seq_printf(m, "refused_halfopen: %lld\n",
		   atomic64_read(&rbdt_refused.halfopen));
	seq_printf(m, "refused_halfopen_host: %lld\n",
		   atomic64_read(&rbdt_refused.halfopen_host));
	seq_printf(m, "refused_sessions_acl: %lld\n",
		   atomic64_read(&rbdt_refused.sessions_acl));
	seq_printf(m, "refused_keepalive: %lld\n",
		   atomic64_read(&rbdt_refused.keepalive));
	rbdt_auth_stats_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbdt_conn_stats);

/**
 * rbdt_conn_debugfs_init() - the module's connection counters in debugfs
 *
 * /sys/kernel/debug/rbdt/connections, next to the session directories.
 */
void rbdt_conn_debugfs_init(void)
{
	debugfs_create_file("connections", 0444, rbdt_debugfs_root, NULL,
			    &rbdt_conn_stats_fops);
}

/* The CQ counters of @sess's queues: waits summed, batch maxima. */
static void rbdt_stats_show_cqs(struct seq_file *m, struct rbdt_session *sess)
{
	unsigned long flags;
	u32 max_polled = 0;
	u64 waits = 0;
	int i;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	for (i = 0; i <= sess->nr_queues; i++) {
		struct rbdt_queue *q = sess->queues[i];

		if (!q)
			continue;
		waits += READ_ONCE(q->cq.waits);
		max_polled = max(max_polled, READ_ONCE(q->cq.max_polled));
	}
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	seq_printf(m, "cq_waits: %llu\n", waits);
	seq_printf(m, "max_cq_polled: %u\n", max_polled);
}

static int rbdt_stats_show(struct seq_file *m, void *v)
{
	struct rbdt_session *sess = m->private;
	struct rbdt_stats *st = &sess->stats;

	seq_printf(m, "session: %s\n", sess->name);
	seq_printf(m, "reqs_started: %lld\n", atomic64_read(&st->reqs_started));
	seq_printf(m, "reqs_completed: %lld\n",
		   atomic64_read(&st->reqs_completed));
	seq_printf(m, "immd_writes: %lld\n", atomic64_read(&st->immd_writes));
	seq_printf(m, "immd_writes_nocopy: %lld\n",
		   atomic64_read(&st->immd_writes_nocopy));
	seq_printf(m, "immd_reads: %lld\n", atomic64_read(&st->immd_reads));
	seq_printf(m, "bare_reads: %lld\n", atomic64_read(&st->bare_reads));
	seq_printf(m, "rsp_batches: %lld\n", atomic64_read(&st->rsp_batches));
	seq_printf(m, "rsps_batched: %lld\n",
		   atomic64_read(&st->rsps_batched));
	seq_printf(m, "compl_here: %lld\n", atomic64_read(&st->compl_here));
	seq_printf(m, "slot_waits: %lld\n", atomic64_read(&st->slot_waits));
	seq_printf(m, "posts_bh_disabled: %lld\n",
		   atomic64_read(&st->posts_bh_disabled));
	seq_printf(m, "stall_sq_full: %lld\n",
		   atomic64_read(&st->stall_sq_full));
	seq_printf(m, "stall_ordq_full: %lld\n",
		   atomic64_read(&st->stall_ordq_full));
	seq_printf(m, "fetch_waits: %lld\n", atomic64_read(&st->fetch_waits));
	seq_printf(m, "fetch_stalls: %lld\n", atomic64_read(&st->fetch_stalls));
	seq_printf(m, "max_outstanding_reqs: %lld\n",
		   atomic64_read(&st->max_outstanding_reqs));
	seq_printf(m, "data_pooled: %lld\n", atomic64_read(&st->data_pooled));
	seq_printf(m, "data_pool_new: %lld\n",
		   atomic64_read(&st->data_pool_new));
	seq_printf(m, "data_pool_busy: %lld\n",
		   atomic64_read(&st->data_pool_busy));
	rbdt_stats_show_cqs(m, sess);
	seq_printf(m, "bytes_in: %lld\n", atomic64_read(&st->bytes_in));
	seq_printf(m, "bytes_out: %lld\n", atomic64_read(&st->bytes_out));
	seq_printf(m, "errors: %lld\n", atomic64_read(&st->errors));
	seq_printf(m, "tmfs: %lld\n", atomic64_read(&st->tmfs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbdt_stats);

/**
 * rbdt_session_debugfs_add() - the debugfs directory of a new session
 * @sess: The session, logged in, its handle set.
 *
 * The directory is named after the handle; the session's release removes
 * it.
 */
void rbdt_session_debugfs_add(struct rbdt_session *sess)
{
	char dir[20];

	snprintf(dir, sizeof(dir), "%016llx", sess->handle);
	sess->debugfs = debugfs_create_dir(dir, rbdt_debugfs_root);
	debugfs_create_file("stats", 0444, sess->debugfs, sess,
			    &rbdt_stats_fops);
	rbdt_fault_debugfs_add(sess);
}
