// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm stats: the counters of one session. Two sources:
 *
 * - rbdi's per-session counters, /sys/kernel/debug/rbdi/<session>/stats,
 *   one "name value" pair per line (mounting debugfs if needed). Names
 *   rbdadm does not know are shown too, under their own name.
 * - the block layer's counters of the disk, /sys/block/rbdiN/stat (the
 *   kernel's stable ABI, Documentation/block/stat.rst).
 *
 * With --latency also rbdi's latency histogram of the session,
 * /sys/kernel/debug/rbdi/<session>/latency; --reset-latency resets it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "rbdadm.h"

#define RBDI_DEBUGFS	"/sys/kernel/debug/rbdi"

/*
 * Parse one "name value" line of rbdi's stats file. Returns 1 for a
 * counter (name and *val set), 0 for a line that is not a counter (such
 * as "state live": name and str set), -1 for a malformed line.
 */
int parse_stat_line(const char *line, char *name, size_t nlen,
		    unsigned long long *val, char *str, size_t slen)
{
	const char *sp, *v;
	char *end;
	size_t n, vl;

	sp = strchr(line, ' ');
	if (!sp || sp == line)
		return -1;
	n = sp - line;
	if (n >= nlen)
		return -1;
	for (v = line; v < sp; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_'))
			return -1;
	v = sp + 1;
	vl = strcspn(v, "\n");
	if (vl == 0 || (v[vl] == '\n' && v[vl + 1] != '\0'))
		return -1;
	memcpy(name, line, n);
	name[n] = '\0';
	if (*v >= '0' && *v <= '9') {
		errno = 0;
		*val = strtoull(v, &end, 10);
		if (!errno && (size_t)(end - v) == vl)
			return 1;
	}
	if (vl >= slen || memchr(v, ' ', vl))
		return -1;
	memcpy(str, v, vl);
	str[vl] = '\0';
	return 0;
}

/* Fields of /sys/block/<disk>/stat, in order (Documentation/block/stat.rst). */
static const char *const block_stat_keys[BLOCK_STAT_FIELDS] = {
	"read_ios", "read_merges", "read_sectors", "read_ticks_ms",
	"write_ios", "write_merges", "write_sectors", "write_ticks_ms",
	"in_flight", "io_ticks_ms", "time_in_queue_ms",
	"discard_ios", "discard_merges", "discard_sectors", "discard_ticks_ms",
	"flush_ios", "flush_ticks_ms",
};

static const char *const block_stat_labels[BLOCK_STAT_FIELDS] = {
	"Read I/Os:", "Read merges:", "Read sectors:", "Read ticks (ms):",
	"Write I/Os:", "Write merges:", "Write sectors:", "Write ticks (ms):",
	"In flight:", "I/O ticks (ms):", "Time in queue:",
	"Discard I/Os:", "Discard merges:", "Discard sectors:", "Discard ticks:",
	"Flush I/Os:", "Flush ticks (ms):",
};

/*
 * Parse the contents of /sys/block/<disk>/stat: 11 to 17 unsigned
 * decimal fields separated by blanks (older kernels have fewer).
 * Returns the number of fields, or -1.
 */
int parse_block_stat(const char *s, unsigned long long *v, int max)
{
	int n = 0;
	char *end;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\n' || *s == '\0')
			break;
		if (*s < '0' || *s > '9' || n >= max)
			return -1;
		errno = 0;
		v[n++] = strtoull(s, &end, 10);
		if (errno || (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\0'))
			return -1;
		s = end;
	}
	if (*s == '\n' && s[1] != '\0')
		return -1;
	return n >= 11 ? n : -1;
}

/* Labels of rbdi's counters; unknown ones are shown under their name. */
static const struct {
	const char *key;
	const char *label;
} sess_labels[] = {
	{ "reads",         "Reads:" },
	{ "writes",        "Writes:" },
	{ "flushes",       "Flushes:" },
	{ "discards",      "Discards:" },
	{ "write_zeroes",  "Write zeroes:" },
	{ "passthrough",   "Passthrough:" },
	{ "inline_writes", "Inline writes:" },
	{ "inline_gathered", "  sent from pages:" },
	{ "imm_reads",     "Immediate reads:" },
	{ "bare_reads",    "  bare responses:" },
	{ "rsp_batches",   "Response batches:" },
	{ "rsps_batched",  "  responses in them:" },
	{ "mr_maps",       "MR registrations:" },
	{ "reg_fences",    "  fenced (rxe):" },
	{ "remote_invs",   "Remote invals:" },
	{ "local_invs",    "Local invals:" },
	{ "errors",        "Errors:" },
	{ "retries",       "Retries:" },
	{ "aborts",        "Aborts:" },
	{ "conn_losses",   "Conn. losses:" },
	{ "reconnects",    "Reconnects:" },
};

static const char *sess_label(const char *key, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(sess_labels) / sizeof(sess_labels[0]); i++)
		if (!strcmp(sess_labels[i].key, key))
			return sess_labels[i].label;
	snprintf(buf, len, "%s:", key);
	return buf;
}

/*
 * Parse an unsigned decimal number that is all of S (no sign, no blanks).
 * Returns 0, or -1 for anything else, overflow included.
 */
static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/*
 * Parse a bucket label of the latency table into B: "<N" (0 to N),
 * "A-B" (A to B, A < B) or ">=N" (N and more, the open last bucket).
 * Returns 0 or -1.
 */
static int parse_lat_label(const char *s, struct lat_bucket *b)
{
	char lo[32], *dash;

	b->open = false;
	if (s[0] == '<') {
		b->lo_us = 0;
		return parse_u64(s + 1, &b->hi_us) || !b->hi_us ? -1 : 0;
	}
	if (s[0] == '>' && s[1] == '=') {
		b->open = true;
		b->hi_us = 0;
		return parse_u64(s + 2, &b->lo_us);
	}
	dash = strchr(s, '-');
	if (!dash || (size_t)(dash - s) >= sizeof(lo))
		return -1;
	memcpy(lo, s, dash - s);
	lo[dash - s] = '\0';
	if (parse_u64(lo, &b->lo_us) || parse_u64(dash + 1, &b->hi_us))
		return -1;
	return b->lo_us < b->hi_us ? 0 : -1;
}

/*
 * Split LINE (its newline removed) at blanks into at most MAX words.
 * Returns the number of words, or MAX + 1 if there are more.
 */
static int split_words(char *line, char **w, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

/* Record why parsing the latency table failed, and where. */
static int lat_fail(struct lat_table *t, unsigned int line, const char *why)
{
	t->err_line = line;
	t->err = why;
	return -1;
}

/*
 * Parse rbdi's latency table from F into T: the header line "latency_us
 * read write other", one line per bucket (label and three counts), in
 * order and without gaps from 0 us, the open bucket ">=N" last if any,
 * and the line "total" with the sums of the columns, which must match.
 * Returns 0, or -1 with T->err and T->err_line saying what is wrong.
 */
int parse_latency_table(FILE *f, struct lat_table *t)
{
	static const char *const head[] = { "latency_us", "read", "write", "other" };
	unsigned long long sum[LAT_OPS] = { 0 }, next_lo = 0;
	char line[256], *w[4], *nl;
	unsigned int ln = 0;
	bool total = false;
	int i, n;

	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		else if (!feof(f))
			return lat_fail(t, ln, "line too long or not text");
		if (total)
			return lat_fail(t, ln, "more after the total line");
		n = split_words(line, w, 4);
		if (ln == 1) {
			for (i = 0; i < 4; i++)
				if (n != 4 || strcmp(w[i], head[i]))
					return lat_fail(t, ln, "not a latency table (unexpected header)");
			continue;
		}
		if (n != 4)
			return lat_fail(t, ln, "not a label and three counts");
		if (!strcmp(w[0], "total")) {
			for (i = 0; i < LAT_OPS; i++)
				if (parse_u64(w[i + 1], &t->total[i]))
					return lat_fail(t, ln, "a count is not a number");
			if (!t->nr)
				return lat_fail(t, ln, "no buckets before the total line");
			if (memcmp(sum, t->total, sizeof(sum)))
				return lat_fail(t, ln, "the total line is not the sum of the buckets");
			total = true;
			continue;
		}
		if (t->nr == LAT_MAX_BUCKETS)
			return lat_fail(t, ln, "too many buckets");
		if (t->nr && t->b[t->nr - 1].open)
			return lat_fail(t, ln, "a bucket after the open last one");
		if (parse_lat_label(w[0], &t->b[t->nr]))
			return lat_fail(t, ln, "not a bucket label (<N, A-B or >=N)");
		if (t->b[t->nr].lo_us != next_lo)
			return lat_fail(t, ln, "buckets not in order or with a gap");
		for (i = 0; i < LAT_OPS; i++) {
			if (parse_u64(w[i + 1], &t->b[t->nr].cnt[i]))
				return lat_fail(t, ln, "a count is not a number");
			sum[i] += t->b[t->nr].cnt[i];
		}
		next_lo = t->b[t->nr].hi_us;
		t->nr++;
	}
	if (ferror(f))
		return lat_fail(t, ln, "read error");
	if (!ln)
		return lat_fail(t, 0, "empty");
	if (!total)
		return lat_fail(t, ln, "no total line (cut short?)");
	return 0;
}

/*
 * The bucket that holds the PCT-th percentile of column OP of T: the
 * first whose running count reaches PCT percent of the column's total
 * (rounded up). Returns its index, or -1 if the column counts nothing.
 */
int lat_percentile(const struct lat_table *t, int op, unsigned int pct)
{
	unsigned long long total = t->total[op], rank, cum = 0;
	unsigned int i;

	if (!total || !t->nr)
		return -1;
	/* ceil(total * pct / 100) without overflow */
	rank = total / 100 * pct + (total % 100 * pct + 99) / 100;
	for (i = 0; i < t->nr; i++) {
		cum += t->b[i].cnt[op];
		if (cum >= rank)
			return i;
	}
	return t->nr - 1;
}

/*
 * Say why the latency file at PATH did not open (errno): missing, it is
 * an rbdi from before the histogram.
 */
static void lat_open_failed(const char *path)
{
	if (errno == ENOENT)
		err("stats: this rbdi has no latency histogram (no %s: an older rbdi module)",
		    path);
	else
		err("stats: cannot open %s: %s", path, strerror(errno));
}

/*
 * Read and parse the latency table at PATH into T. Says on stderr what
 * went wrong: a missing file is an rbdi from before the histogram.
 * Returns EXIT_OK or EXIT_FAIL.
 */
int load_latency(const char *path, struct lat_table *t)
{
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		lat_open_failed(path);
		return EXIT_FAIL;
	}
	ret = parse_latency_table(f, t);
	fclose(f);
	if (ret) {
		if (t->err_line)
			err("stats: %s, line %u: %s", path, t->err_line, t->err);
		else
			err("stats: %s: %s", path, t->err);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Reset the latency histogram at PATH (rbdi takes "0"). Returns EXIT_*. */
static int reset_latency(const char *path)
{
	int fd, ret = EXIT_OK;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		lat_open_failed(path);
		return EXIT_FAIL;
	}
	if (write(fd, "0\n", 2) != 2) {
		err("stats: cannot reset %s: %s", path, strerror(errno));
		ret = EXIT_FAIL;
	}
	close(fd);
	return ret;
}

/*
 * Text form of the PCT-th percentile of column OP as its bucket's
 * bound: "<HI", ">=LO" for the open bucket, "-" if nothing was counted.
 */
static const char *lat_bound(const struct lat_table *t, int op, unsigned int pct,
			     char *buf, size_t len)
{
	int i = lat_percentile(t, op, pct);

	if (i < 0)
		snprintf(buf, len, "-");
	else if (t->b[i].open)
		snprintf(buf, len, ">=%llu", t->b[i].lo_us);
	else
		snprintf(buf, len, "<%llu", t->b[i].hi_us);
	return buf;
}

/* Label of bucket B as rbdi writes it ("<1", "4-8", ">=1048576"). */
static const char *lat_label(const struct lat_bucket *b, char *buf, size_t len)
{
	if (b->open)
		snprintf(buf, len, ">=%llu", b->lo_us);
	else if (!b->lo_us)
		snprintf(buf, len, "<%llu", b->hi_us);
	else
		snprintf(buf, len, "%llu-%llu", b->lo_us, b->hi_us);
	return buf;
}

/* The percentiles shown: text label and JSON key. */
static const struct {
	unsigned int pct;
	const char *label;
	const char *key;
} lat_pcts[] = {
	{ 50, "p50 (bucket bound)", "p50_bucket_bound_us" },
	{ 99, "p99 (bucket bound)", "p99_bucket_bound_us" },
};

/*
 * The histogram as a text table after the counters: the buckets that
 * counted anything, the totals, and p50/p99 as bucket bounds.
 */
static void print_latency_text(const struct lat_table *t)
{
	char label[48], v[LAT_OPS][32];
	unsigned int i, p;
	int op;

	printf("\n%-18s %12s %12s %12s\n", "Latency (us):", "read", "write", "other");
	for (i = 0; i < t->nr; i++) {
		const struct lat_bucket *b = &t->b[i];

		if (!b->cnt[LAT_READ] && !b->cnt[LAT_WRITE] && !b->cnt[LAT_OTHER])
			continue;
		printf("%-18s %12llu %12llu %12llu\n", lat_label(b, label, sizeof(label)),
		       b->cnt[LAT_READ], b->cnt[LAT_WRITE], b->cnt[LAT_OTHER]);
	}
	printf("%-18s %12llu %12llu %12llu\n", "total",
	       t->total[LAT_READ], t->total[LAT_WRITE], t->total[LAT_OTHER]);
	for (p = 0; p < sizeof(lat_pcts) / sizeof(lat_pcts[0]); p++) {
		for (op = 0; op < LAT_OPS; op++)
			lat_bound(t, op, lat_pcts[p].pct, v[op], sizeof(v[op]));
		printf("%-18s %12s %12s %12s\n", lat_pcts[p].label,
		       v[LAT_READ], v[LAT_WRITE], v[LAT_OTHER]);
	}
}

static const char *const lat_keys[LAT_OPS] = { "read", "write", "other" };

/*
 * The histogram as the JSON object "latency": every bucket with its
 * bounds (hi_us null for the open one), the totals, and p50/p99 as the
 * bucket's upper bound (null if nothing counted or the bucket is open).
 */
static void print_latency_json(const struct lat_table *t)
{
	unsigned int i, p;
	int op, b;

	out_object_begin("latency");
	out_list_begin("buckets");
	for (i = 0; i < t->nr; i++) {
		out_record_begin();
		out_u64("lo_us", "", t->b[i].lo_us);
		if (t->b[i].open)
			out_null("hi_us", "");
		else
			out_u64("hi_us", "", t->b[i].hi_us);
		for (op = 0; op < LAT_OPS; op++)
			out_u64(lat_keys[op], "", t->b[i].cnt[op]);
		out_end();
	}
	out_end();
	out_object_begin("total");
	for (op = 0; op < LAT_OPS; op++)
		out_u64(lat_keys[op], "", t->total[op]);
	out_end();
	for (p = 0; p < sizeof(lat_pcts) / sizeof(lat_pcts[0]); p++) {
		out_object_begin(lat_pcts[p].key);
		for (op = 0; op < LAT_OPS; op++) {
			b = lat_percentile(t, op, lat_pcts[p].pct);
			if (b < 0 || t->b[b].open)
				out_null(lat_keys[op], "");
			else
				out_u64(lat_keys[op], "", t->b[b].hi_us);
		}
		out_end();
	}
	out_end();
}

/*
 * The histogram in the current output mode (out_init() done), after
 * the counters: text table or JSON object "latency".
 */
void print_latency(const struct lat_table *t)
{
	if (opt_json)
		print_latency_json(t);
	else
		print_latency_text(t);
}

/* Make sure debugfs is mounted; rbdi's directory is only root's. */
int ensure_debugfs(void)
{
	struct stat st;

	if (stat("/sys/kernel/debug/rbdi", &st) == 0)
		return 0;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) && errno != EBUSY)
		return -errno;
	return stat(RBDI_DEBUGFS, &st) ? -errno : 0;
}

/* rbdadm stats --help */
void usage_stats(void)
{
	puts("Usage: rbdadm stats [-j|--json|-o normal|json] [-l|--latency] [--reset-latency] DEVICE|SESSION\n"
	     "\n"
	     "Show the counters of one session: the commands rbdi sent, how\n"
	     "their data moved, errors and reconnects (from rbdi's debugfs\n"
	     "file), and the block layer's I/O statistics of its disk\n"
	     "(/sys/block/rbdiN/stat). DEVICE is /dev/rbdiN or rbdiN.\n"
	     "\n"
	     "Options:\n"
	     "  -l, --latency        also the session's completion latency histogram:\n"
	     "                       the buckets that counted anything, per read,\n"
	     "                       write and other; p50 and p99 estimated as the\n"
	     "                       upper bound of their bucket (\"bucket bound\")\n"
	     "      --reset-latency  reset the histogram to zero (after reading it\n"
	     "                       for --latency)\n"
	     "  -j, --json           JSON output (also -o json, --output-format=json)");
}

/* Long-only option of stats. */
#define OPT_RESET_LATENCY	256

/* rbdadm stats: print one session's counters (and latency histogram). */
/* What `rbdadm stats` was asked for besides the counters. */
struct stats_opts {
	bool latency;	/* -l: the latency histogram */
	bool reset;	/* --reset-latency */
};

/* Parse the options; -1 to go on, or the exit status. */
static int stats_parse(int argc, char **argv, struct stats_opts *o)
{
	static const struct option opts[] = {
		OUT_LONG_OPTS,
		{ "latency", no_argument, NULL, 'l' },
		{ "reset-latency", no_argument, NULL, OPT_RESET_LATENCY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jo:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = 1;
			break;
		case 'o':
			if (out_format_opt(optarg))
				return EXIT_USAGE;
			break;
		case 'l':
			o->latency = true;
			break;
		case OPT_RESET_LATENCY:
			o->reset = true;
			break;
		case 'h':
			usage_stats();
			return EXIT_OK;
		default:
			usage_stats();
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		err(optind < argc ? "stats: one device only" : "stats: a device or session is required");
		return EXIT_USAGE;
	}
	return -1;
}

/* Open session @name's counters in debugfs; 0 or the exit status. */
static int stats_open(const char *name, FILE **fp)
{
	char path[PATH_MAX];
	int ret;

	ret = ensure_debugfs();
	if (ret) {
		err("stats: cannot read %s: %s (is debugfs available?)", RBDI_DEBUGFS,
		    strerror(-ret));
		return EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/%s/stats", RBDI_DEBUGFS, name);
	*fp = fopen(path, "re");
	if (!*fp) {
		err("stats: cannot read %s: %s%s", path, strerror(errno),
		    errno == ENOENT ? " (session not enabled)" : "");
		return EXIT_FAIL;
	}
	return 0;
}

/* The session's counters from @f, then the block layer's for @dev. */
static void stats_print(FILE *f, const char *dev)
{
	char line[256], key[64], sval[64], lbuf[80], buf[512], path[PATH_MAX];
	unsigned long long v[BLOCK_STAT_FIELDS], val;
	int i, n = 0;

	while (fgets(line, sizeof(line), f))
		if (parse_stat_line(line, key, sizeof(key), &val, sval, sizeof(sval)) == 1)
			out_u64(key, sess_label(key, lbuf, sizeof(lbuf)), val);
	if (!*dev)
		return;
	snprintf(path, sizeof(path), "/sys/block/%s", dev);
	if (!read_attr(path, "stat", buf, sizeof(buf)))
		n = parse_block_stat(buf, v, BLOCK_STAT_FIELDS);
	for (i = 0; i < n; i++)
		out_u64(block_stat_keys[i], block_stat_labels[i], v[i]);
}

int cmd_stats(int argc, char **argv)
{
	char name[256], dir[PATH_MAX], path[PATH_MAX], dev[64], state[64];
	struct stats_opts o = { 0 };
	static struct lat_table lat;
	FILE *f;
	int ret;

	ret = stats_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (geteuid() != 0) {
		err("stats: not root (the counters are in debugfs, readable by root only)");
		return EXIT_FAIL;
	}
	if (resolve_session(argv[optind], name, sizeof(name))) {
		err("stats: no such device or session: %s", argv[optind]);
		return EXIT_NOT_FOUND;
	}
	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (read_attr(dir, "device", dev, sizeof(dev)))
		dev[0] = '\0';
	if (read_attr(dir, "state", state, sizeof(state)))
		state[0] = '\0';
	ret = stats_open(name, &f);
	if (ret)
		return ret;
	/* The histogram is read, then reset, before anything is printed. */
	snprintf(path, sizeof(path), "%s/%s/latency", RBDI_DEBUGFS, name);
	if ((o.latency && load_latency(path, &lat)) ||
	    (o.reset && reset_latency(path))) {
		fclose(f);
		return EXIT_FAIL;
	}

	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("device", "Device:", dev);
	out_str("session", "Session:", name);
	out_str("state", "State:", state);
	stats_print(f, dev);
	fclose(f);
	if (o.latency)
		print_latency(&lat);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}
