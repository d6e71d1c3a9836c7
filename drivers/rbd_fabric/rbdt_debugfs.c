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

#include "rbd_stats.h"
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

const char * const rbdt_stat_names[RBDT_NR_STATS] = {
	[RBDT_STAT_REQS_STARTED] = "reqs_started",
	[RBDT_STAT_REQS_COMPLETED] = "reqs_completed",
	[RBDT_STAT_IMMD_WRITES] = "immd_writes",
	[RBDT_STAT_IMMD_WRITES_NOCOPY] = "immd_writes_nocopy",
	[RBDT_STAT_IMMD_READS] = "immd_reads",
	[RBDT_STAT_BARE_READS] = "bare_reads",
	[RBDT_STAT_RSP_BATCHES] = "rsp_batches",
	[RBDT_STAT_RSPS_BATCHED] = "rsps_batched",
	[RBDT_STAT_COMPL_HERE] = "compl_here",
	[RBDT_STAT_SLOT_WAITS] = "slot_waits",
	[RBDT_STAT_POSTS_BH_DISABLED] = "posts_bh_disabled",
	[RBDT_STAT_STALL_SQ_FULL] = "stall_sq_full",
	[RBDT_STAT_STALL_ORDQ_FULL] = "stall_ordq_full",
	[RBDT_STAT_FETCH_WAITS] = "fetch_waits",
	[RBDT_STAT_FETCH_STALLS] = "fetch_stalls",
	[RBDT_STAT_DATA_POOLED] = "data_pooled",
	[RBDT_STAT_DATA_POOL_NEW] = "data_pool_new",
	[RBDT_STAT_DATA_POOL_BUSY] = "data_pool_busy",
	[RBDT_STAT_BYTES_IN] = "bytes_in",
	[RBDT_STAT_BYTES_OUT] = "bytes_out",
	[RBDT_STAT_ERRORS] = "errors",
	[RBDT_STAT_TMFS] = "tmfs",
};

/*
 * The queue counters of @sess: CQ waits summed; CQ batch and commands in
 * flight as the highest of any queue.
 */
static void rbdt_stats_show_queues(struct seq_file *m,
				   struct rbdt_session *sess)
{
	u32 max_polled = 0, max_inflight = 0;
	unsigned long flags;
	u64 waits = 0;
	int i;

	spin_lock_irqsave(&rbdt_sess_lock, flags);
	for (i = 0; i <= sess->nr_queues; i++) {
		struct rbdt_queue *q = sess->queues[i];

		if (!q)
			continue;
		waits += READ_ONCE(q->cq.waits);
		max_polled = max(max_polled, READ_ONCE(q->cq.max_polled));
		max_inflight = max(max_inflight, READ_ONCE(q->max_inflight));
	}
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	seq_printf(m, "max_outstanding_reqs: %u\n", max_inflight);
	seq_printf(m, "cq_waits: %llu\n", waits);
	seq_printf(m, "max_cq_polled: %u\n", max_polled);
}

static int rbdt_stats_show(struct seq_file *m, void *v)
{
	struct rbdt_session *sess = m->private;
	u64 sum[RBDT_NR_STATS];
	int i;

	rbd_stats_sum(sum, sess->stats->v, RBDT_NR_STATS);
	seq_printf(m, "session: %s\n", sess->name);
	for (i = 0; i < RBDT_NR_STATS; i++)
		seq_printf(m, "%s: %llu\n", rbdt_stat_names[i], sum[i]);
	rbdt_stats_show_queues(m, sess);
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
