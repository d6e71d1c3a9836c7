// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the debugfs directory of a session, /sys/kernel/debug/rbdi/<session>/.
 *
 *   stats    the counters of &struct rbdi_stats and the session's state
 *   latency  the latency histogram of completed requests, counted by
 *            rbdi_blk.c; writing 0 resets it
 *
 * In test builds the fault counters of rbdi_fault.c are there too.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "rbd_stats.h"
#include "rbdi.h"

const char * const rbdi_stat_names[RBDI_NR_STATS] = {
	[RBDI_STAT_READS] = "reads",
	[RBDI_STAT_WRITES] = "writes",
	[RBDI_STAT_FLUSHES] = "flushes",
	[RBDI_STAT_DISCARDS] = "discards",
	[RBDI_STAT_WRITE_ZEROES] = "write_zeroes",
	[RBDI_STAT_PASSTHROUGH] = "passthrough",
	[RBDI_STAT_INLINE_WRITES] = "inline_writes",
	[RBDI_STAT_INLINE_GATHERED] = "inline_gathered",
	[RBDI_STAT_IMM_READS] = "imm_reads",
	[RBDI_STAT_BARE_READS] = "bare_reads",
	[RBDI_STAT_RSP_BATCHES] = "rsp_batches",
	[RBDI_STAT_RSPS_BATCHED] = "rsps_batched",
	[RBDI_STAT_MR_MAPS] = "mr_maps",
	[RBDI_STAT_REG_FENCES] = "reg_fences",
	[RBDI_STAT_REMOTE_INVS] = "remote_invs",
	[RBDI_STAT_LOCAL_INVS] = "local_invs",
	[RBDI_STAT_ERRORS] = "errors",
	[RBDI_STAT_RETRIES] = "retries",
	[RBDI_STAT_ABORTS] = "aborts",
	[RBDI_STAT_POLLED] = "polled",
	[RBDI_STAT_CONN_LOSSES] = "conn_losses",
	[RBDI_STAT_RECONNECTS] = "reconnects",
};

static int rbdi_stats_show(struct seq_file *m, void *unused)
{
	struct rbdi_session *sess = m->private;
	u64 sum[RBDI_NR_STATS];
	int i;

	rbd_stats_sum(sum, sess->stats->v, RBDI_NR_STATS);
	seq_printf(m, "state %s\n", rbdi_sess_state_name(READ_ONCE(sess->state)));
	for (i = 0; i < RBDI_NR_STATS; i++)
		seq_printf(m, "%s %llu\n", rbdi_stat_names[i], sum[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbdi_stats);

/*
 * The latency histogram as a table: one row per bucket, labelled with
 * its range in microseconds ("4-8": at least 4, less than 8), one
 * column each for reads, writes and other requests, and their totals.
 */
static int rbdi_latency_show(struct seq_file *m, void *unused)
{
	struct rbdi_session *sess = m->private;
	u64 row[RBDI_LAT_OPS], total[RBDI_LAT_OPS] = { };
	const struct rbdi_lat *lat;
	unsigned int b, col;
	char label[32];
	int cpu;

	seq_printf(m, "%-16s %12s %12s %12s\n", "latency_us", "read",
		   "write", "other");
	for (b = 0; b < RBDI_LAT_BUCKETS; b++) {
		memset(row, 0, sizeof(row));
		for_each_possible_cpu(cpu) {
			lat = per_cpu_ptr(sess->lat, cpu);
			for (col = 0; col < RBDI_LAT_OPS; col++)
				row[col] += READ_ONCE(lat->cnt[col][b]);
		}
		if (!b)
			strscpy(label, "<1", sizeof(label));
		else if (b == RBDI_LAT_BUCKETS - 1)
			snprintf(label, sizeof(label), ">=%lu", BIT(b - 1));
		else
			snprintf(label, sizeof(label), "%lu-%lu", BIT(b - 1),
				 BIT(b));
		seq_printf(m, "%-16s %12llu %12llu %12llu\n", label,
			   row[RBDI_LAT_READ], row[RBDI_LAT_WRITE],
			   row[RBDI_LAT_OTHER]);
		for (col = 0; col < RBDI_LAT_OPS; col++)
			total[col] += row[col];
	}
	seq_printf(m, "%-16s %12llu %12llu %12llu\n", "total",
		   total[RBDI_LAT_READ], total[RBDI_LAT_WRITE],
		   total[RBDI_LAT_OTHER]);
	return 0;
}

static int rbdi_latency_open(struct inode *inode, struct file *file)
{
	return single_open(file, rbdi_latency_show, inode->i_private);
}

/* Writing 0 resets the histogram; completions meanwhile may be lost. */
static ssize_t rbdi_latency_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct rbdi_session *sess = m->private;
	unsigned int val;
	int ret, cpu;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(sess->lat, cpu), 0, sizeof(struct rbdi_lat));
	return count;
}

static const struct file_operations rbdi_latency_fops = {
	.owner		= THIS_MODULE,
	.open		= rbdi_latency_open,
	.read		= seq_read,
	.write		= rbdi_latency_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * rbdi_debugfs_add() - create /sys/kernel/debug/rbdi/<session>/
 * @sess: The session; rbdi_sess_delete() removes the directory.
 *
 * stats: the counters. latency: the latency histogram. In test builds,
 * the fault counters of rbdi_fault.c.
 */
void rbdi_debugfs_add(struct rbdi_session *sess)
{
	sess->debugfs = debugfs_create_dir(sess->name, rbdi_debugfs_root);
	debugfs_create_file("stats", 0444, sess->debugfs, sess,
			    &rbdi_stats_fops);
	debugfs_create_file("latency", 0644, sess->debugfs, sess,
			    &rbdi_latency_fops);
	rbdi_fault_debugfs_add(sess);
}
