// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm stats: the counters of one session. Two sources:
 *
 * - rbdi's per-session counters, /sys/kernel/debug/rbdi/<session>/stats,
 *   one "name value" pair per line (mounting debugfs if needed). Names
 *   rbdadm does not know are shown too, under their own name.
 * - the block layer's counters of the disk, /sys/block/rbdiN/stat (the
 *   kernel's stable ABI, Documentation/block/stat.rst).
 */
#include <errno.h>
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
	{ "imm_reads",     "Immediate reads:" },
	{ "mr_maps",       "MR registrations:" },
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

/* Make sure debugfs is mounted; rbdi's directory is only root's. */
static int ensure_debugfs(void)
{
	struct stat st;

	if (stat("/sys/kernel/debug/rbdi", &st) == 0)
		return 0;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) && errno != EBUSY)
		return -errno;
	return stat(RBDI_DEBUGFS, &st) ? -errno : 0;
}

void usage_stats(void)
{
	puts("Usage: rbdadm stats [-j|--json] DEVICE|SESSION\n"
	     "\n"
	     "Show the counters of one session: the commands rbdi sent, how\n"
	     "their data moved, errors and reconnects (from rbdi's debugfs\n"
	     "file), and the block layer's I/O statistics of its disk\n"
	     "(/sys/block/rbdiN/stat). DEVICE is /dev/rbdiN or rbdiN.");
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char name[256], dir[PATH_MAX], path[PATH_MAX], dev[64], state[64];
	char line[256], key[64], sval[64], lbuf[80], buf[512];
	unsigned long long v[BLOCK_STAT_FIELDS], val;
	bool have_block = false;
	int c, n = 0, ret;
	FILE *f;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = 1;
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
	if (geteuid() != 0) {
		err("stats: not root (the counters are in debugfs, readable by root only)");
		return EXIT_FAIL;
	}
	if (resolve_session(argv[optind], name, sizeof(name))) {
		err("stats: no such device or session: %s", argv[optind]);
		return EXIT_FAIL;
	}
	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (read_attr(dir, "device", dev, sizeof(dev)))
		dev[0] = '\0';
	if (read_attr(dir, "state", state, sizeof(state)))
		state[0] = '\0';

	ret = ensure_debugfs();
	if (ret) {
		err("stats: cannot read %s: %s (is debugfs available?)", RBDI_DEBUGFS,
		    strerror(-ret));
		return EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/%s/stats", RBDI_DEBUGFS, name);
	f = fopen(path, "re");
	if (!f) {
		err("stats: cannot read %s: %s%s", path, strerror(errno),
		    errno == ENOENT ? " (session not enabled)" : "");
		return EXIT_FAIL;
	}
	if (*dev) {
		snprintf(path, sizeof(path), "/sys/block/%s", dev);
		if (!read_attr(path, "stat", buf, sizeof(buf))) {
			n = parse_block_stat(buf, v, BLOCK_STAT_FIELDS);
			have_block = n > 0;
		}
	}

	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("device", "Device:", dev);
	out_str("session", "Session:", name);
	out_str("state", "State:", state);
	while (fgets(line, sizeof(line), f)) {
		ret = parse_stat_line(line, key, sizeof(key), &val, sval, sizeof(sval));
		if (ret == 1)
			out_u64(key, sess_label(key, lbuf, sizeof(lbuf)), val);
	}
	fclose(f);
	if (have_block) {
		int i;

		for (i = 0; i < n; i++)
			out_u64(block_stat_keys[i], block_stat_labels[i], v[i]);
	}
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}
