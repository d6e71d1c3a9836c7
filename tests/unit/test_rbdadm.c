// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rbdadm's parsers: portals, sizes, the initiator name file,
 * the stats files, the latency histogram, the output options, and the
 * exit statuses (login refusals, a failed modprobe).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <json-c/json.h>

#include <rbd/rbd_proto.h>
#include <rbd/rbd_proto_check.h>

#include "auth.h"
#include "output.h"
#include "rbdadm.h"

static void portal_ok(const char *in, const char *addr, unsigned int port)
{
	char a[64];
	unsigned int p = 0;

	assert_int_equal(parse_portal(in, a, sizeof(a), &p), 0);
	assert_string_equal(a, addr);
	assert_int_equal(p, port);
}

static void portal_bad(const char *in)
{
	char a[64];
	unsigned int p;

	assert_int_equal(parse_portal(in, a, sizeof(a), &p), -1);
}

static void test_portal(void **state)
{
	(void)state;
	portal_ok("10.10.0.1", "10.10.0.1", 65000);
	portal_ok("10.10.0.1:4420", "10.10.0.1", 4420);
	portal_ok("[fd00::1]", "fd00::1", 65000);
	portal_ok("[fd00::1]:1", "fd00::1", 1);
	portal_ok("fd00::1", "fd00::1", 65000);
	portal_ok("[::ffff:10.0.0.1]:65535", "::ffff:10.0.0.1", 65535);
	portal_bad("");
	portal_bad("10.10.0.256");
	portal_bad("10.10.0.1:");
	portal_bad("10.10.0.1:0");
	portal_bad("10.10.0.1:65536");
	portal_bad("10.10.0.1:12x");
	portal_bad("10.10.0.1:-1");
	portal_bad("[fd00::1");
	portal_bad("[fd00::1]x");
	portal_bad("[fd00::1]:");
	portal_bad("[]:65000");
	portal_bad("[10.10.0.1]:99999999999999999999");
	portal_bad("host.example:65000");
}

static void test_portal_small_buffer(void **state)
{
	char a[8];
	unsigned int p;

	(void)state;
	assert_int_equal(parse_portal("10.10.10.10", a, sizeof(a), &p), -1);
	assert_int_equal(parse_portal("1.2.3.4", a, sizeof(a), &p), 0);
}

static void size_ok(const char *in, unsigned long long want)
{
	unsigned long long v = 0;

	assert_int_equal(parse_size(in, &v), 0);
	assert_true(v == want);
}

static void test_size(void **state)
{
	unsigned long long v;

	(void)state;
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4k", 4096);
	size_ok("64K", 65536);
	size_ok("1M", 1048576);
	size_ok("1MiB", 1048576);
	size_ok("2g", 2ULL << 30);
	assert_int_equal(parse_size("", &v), -1);
	assert_int_equal(parse_size("-1", &v), -1);
	assert_int_equal(parse_size("1Q", &v), -1);
	assert_int_equal(parse_size("1MX", &v), -1);
	assert_int_equal(parse_size("K", &v), -1);
	assert_int_equal(parse_size("99999999999999999999999", &v), -1);
}

/* The session a sessions.conf line names (rbdadm logout --persisted). */
static void test_persist_line_name(void **state)
{
	char name[16];

	(void)state;
	assert_int_equal(persist_line_name("--name sess0 -a 10.0.0.1 -t iqn.x\n", name,
					   sizeof(name)), 0);
	assert_string_equal(name, "sess0");
	assert_int_equal(persist_line_name("  --name\tdb1\n", name, sizeof(name)), 0);
	assert_string_equal(name, "db1");
	assert_int_equal(persist_line_name("--name last", name, sizeof(name)), 0);
	assert_string_equal(name, "last");
	assert_int_equal(persist_line_name("# --name sess0 -a 10.0.0.1\n", name,
					   sizeof(name)), -1);
	assert_int_equal(persist_line_name("\n", name, sizeof(name)), -1);
	assert_int_equal(persist_line_name("--name\n", name, sizeof(name)), -1);
	assert_int_equal(persist_line_name("--names x", name, sizeof(name)), -1);
	assert_int_equal(persist_line_name("-a 10.0.0.1 --name x", name, sizeof(name)), -1);
	/* Too long for the buffer: refused, not cut. */
	assert_int_equal(persist_line_name("--name 0123456789abcdef -a x", name,
					   sizeof(name)), -1);
}

/* --retry-for SECONDS of rbdadm restore. */
static void test_seconds(void **state)
{
	unsigned int v = 7;

	(void)state;
	assert_int_equal(parse_seconds("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_seconds("120", &v), 0);
	assert_int_equal(v, 120);
	assert_int_equal(parse_seconds("86400", &v), 0);
	assert_int_equal(v, 86400);
	v = 7;
	assert_int_equal(parse_seconds("86401", &v), -1);
	assert_int_equal(parse_seconds("", &v), -1);
	assert_int_equal(parse_seconds("-1", &v), -1);
	assert_int_equal(parse_seconds("+5", &v), -1);
	assert_int_equal(parse_seconds("10s", &v), -1);
	assert_int_equal(parse_seconds("99999999999999999999999", &v), -1);
	assert_int_equal(v, 7);
}

static char *tmpfile_with(const char *text)
{
	static char path[] = "/tmp/rbdadm-test-XXXXXX";
	int fd;

	strcpy(path, "/tmp/rbdadm-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

static void test_initiatorname(void **state)
{
	char name[64], *f;

	(void)state;
	f = tmpfile_with("# comment\nInitiatorName=iqn.2026-12.org.rbd:h1\n");
	assert_int_equal(read_initiatorname(f, name, sizeof(name)), 0);
	assert_string_equal(name, "iqn.2026-12.org.rbd:h1");
	unlink(f);

	f = tmpfile_with("InitiatorName=iqn.2026-12.org.rbd:h2   \r\n");
	assert_int_equal(read_initiatorname(f, name, sizeof(name)), 0);
	assert_string_equal(name, "iqn.2026-12.org.rbd:h2");
	unlink(f);

	f = tmpfile_with("InitiatorName=\n#InitiatorName=iqn.x\n");
	assert_int_equal(read_initiatorname(f, name, sizeof(name)), -ENOENT);
	unlink(f);

	/* Longer than the buffer: refused, never truncated. */
	f = tmpfile_with("InitiatorName=iqn.2026-12.org.rbd:a-name-much-longer-than-the-buffer-given\n");
	assert_int_equal(read_initiatorname(f, name, 16), -ENOENT);
	unlink(f);

	assert_int_equal(read_initiatorname("/nonexistent/initiatorname", name, sizeof(name)),
			 -ENOENT);
}

static void test_stat_line(void **state)
{
	char name[16], str[16];
	unsigned long long v = 0;

	(void)state;
	assert_int_equal(parse_stat_line("reads 42\n", name, sizeof(name), &v, str, sizeof(str)), 1);
	assert_string_equal(name, "reads");
	assert_int_equal(v, 42);
	assert_int_equal(parse_stat_line("write_zeroes 18446744073709551615", name, sizeof(name),
					 &v, str, sizeof(str)), 1);
	assert_true(v == 18446744073709551615ULL);
	assert_int_equal(parse_stat_line("state live\n", name, sizeof(name), &v, str, sizeof(str)), 0);
	assert_string_equal(name, "state");
	assert_string_equal(str, "live");
	/* Not counters: a number that overflows or has a tail is a string. */
	assert_int_equal(parse_stat_line("x 12ab", name, sizeof(name), &v, str, sizeof(str)), 0);
	assert_int_not_equal(parse_stat_line("x 18446744073709551616", name, sizeof(name), &v, str,
					     sizeof(str)), 1);
	/* Malformed. */
	assert_int_equal(parse_stat_line("", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("reads", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line(" 5", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("reads \n", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("Reads 5", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("a b c", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("a 1\nb 2", name, sizeof(name), &v, str, sizeof(str)), -1);
	assert_int_equal(parse_stat_line("averyveryverylongname 1", name, sizeof(name), &v, str,
					 sizeof(str)), -1);
	assert_int_equal(parse_stat_line("s averyveryverylongvalue", name, sizeof(name), &v, str,
					 sizeof(str)), -1);
}

static void test_block_stat(void **state)
{
	unsigned long long v[BLOCK_STAT_FIELDS];

	(void)state;
	assert_int_equal(parse_block_stat("     120        0     2048       10       30        1"
					  "     4096       20        0       40       30        0"
					  "        0        0        0        2        1\n",
					  v, BLOCK_STAT_FIELDS), 17);
	assert_int_equal(v[0], 120);
	assert_int_equal(v[2], 2048);
	assert_int_equal(v[4], 30);
	assert_int_equal(v[6], 4096);
	assert_int_equal(v[15], 2);
	assert_int_equal(v[16], 1);
	/* 11 fields (kernels before 4.18). */
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11", v, BLOCK_STAT_FIELDS), 11);
	assert_int_equal(v[10], 11);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 x", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 -11", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11x", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11\n12", v, BLOCK_STAT_FIELDS), -1);
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 99999999999999999999999", v,
					  BLOCK_STAT_FIELDS), -1);
	/* More fields than the caller has room for. */
	assert_int_equal(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12", v, 11), -1);
}

/* rbdi's bucket count (drivers/rbd_ini/rbdi.h RBDI_LAT_BUCKETS). */
#define KERNEL_LAT_BUCKETS	22

/*
 * Write a latency table into BUF as rbdi_latency_show() does: CNT[b] is
 * bucket b's read, write and other count.
 */
static void kernel_latency(char *buf, size_t len,
			   const unsigned long long (*cnt)[LAT_OPS])
{
	unsigned long long total[LAT_OPS] = { 0 };
	size_t off;
	char label[32];
	int b, c;

	off = snprintf(buf, len, "%-16s %12s %12s %12s\n", "latency_us", "read",
		       "write", "other");
	for (b = 0; b < KERNEL_LAT_BUCKETS; b++) {
		if (!b)
			snprintf(label, sizeof(label), "<1");
		else if (b == KERNEL_LAT_BUCKETS - 1)
			snprintf(label, sizeof(label), ">=%lu", 1UL << (b - 1));
		else
			snprintf(label, sizeof(label), "%lu-%lu", 1UL << (b - 1), 1UL << b);
		off += snprintf(buf + off, len - off, "%-16s %12llu %12llu %12llu\n",
				label, cnt[b][0], cnt[b][1], cnt[b][2]);
		for (c = 0; c < LAT_OPS; c++)
			total[c] += cnt[b][c];
	}
	off += snprintf(buf + off, len - off, "%-16s %12llu %12llu %12llu\n", "total",
			total[0], total[1], total[2]);
	assert_true(off < len);
}

/* Parse TEXT (LEN bytes, NULs allowed) as a latency table. */
static int parse_lat_text(const char *text, size_t len, struct lat_table *t)
{
	FILE *f;
	int ret;

	f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	ret = parse_latency_table(f, t);
	fclose(f);
	return ret;
}

/* The example of the admin guide: reads and writes near 128 us. */
static const unsigned long long lat_example[KERNEL_LAT_BUCKETS][LAT_OPS] = {
	[3] = { 0, 0, 4 },		/* 4-8 */
	[8] = { 812, 301, 0 },		/* 128-256 */
	[9] = { 1630, 955, 2 },		/* 256-512 */
	[21] = { 0, 0, 5 },		/* >=1048576 */
};

static void test_latency_kernel_format(void **state)
{
	static const unsigned long long zero[KERNEL_LAT_BUCKETS][LAT_OPS];
	static struct lat_table t;
	char buf[4096];

	(void)state;
	kernel_latency(buf, sizeof(buf), lat_example);
	assert_int_equal(parse_lat_text(buf, strlen(buf), &t), 0);
	assert_int_equal(t.nr, KERNEL_LAT_BUCKETS);
	assert_true(t.b[0].lo_us == 0 && t.b[0].hi_us == 1 && !t.b[0].open);
	assert_true(t.b[1].lo_us == 1 && t.b[1].hi_us == 2);
	assert_true(t.b[8].lo_us == 128 && t.b[8].hi_us == 256);
	assert_int_equal(t.b[8].cnt[LAT_READ], 812);
	assert_int_equal(t.b[9].cnt[LAT_WRITE], 955);
	assert_true(t.b[20].lo_us == 524288 && t.b[20].hi_us == 1048576);
	assert_true(t.b[21].open && t.b[21].lo_us == 1048576);
	assert_int_equal(t.total[LAT_READ], 2442);
	assert_int_equal(t.total[LAT_WRITE], 1256);
	assert_int_equal(t.total[LAT_OTHER], 11);

	/* p50 of reads: the 1221st of 2442, in 256-512; p99 there too. */
	assert_int_equal(lat_percentile(&t, LAT_READ, 50), 9);
	assert_int_equal(lat_percentile(&t, LAT_READ, 99), 9);
	assert_int_equal(lat_percentile(&t, LAT_WRITE, 50), 9);
	/* other: 4, 2, 5: the 6th of 11 is in 256-512, the 11th open. */
	assert_int_equal(lat_percentile(&t, LAT_OTHER, 50), 9);
	assert_int_equal(lat_percentile(&t, LAT_OTHER, 99), 21);

	/* A fresh (or reset) histogram: no percentile. */
	kernel_latency(buf, sizeof(buf), zero);
	assert_int_equal(parse_lat_text(buf, strlen(buf), &t), 0);
	assert_int_equal(t.nr, KERNEL_LAT_BUCKETS);
	assert_int_equal(lat_percentile(&t, LAT_READ, 50), -1);
	assert_int_equal(lat_percentile(&t, LAT_OTHER, 99), -1);
}

static void test_latency_percentile_rounding(void **state)
{
	static struct lat_table t;
	const char *s;

	(void)state;
	/* 99 in 0-1 and 1 in 1-2: the 99th of 100 is in the first. */
	s = "latency_us read write other\n<1 99 1 0\n1-2 1 1 0\n>=2 0 0 1\ntotal 100 2 1\n";
	assert_int_equal(parse_lat_text(s, strlen(s), &t), 0);
	assert_int_equal(lat_percentile(&t, LAT_READ, 99), 0);
	assert_int_equal(lat_percentile(&t, LAT_READ, 50), 0);
	/* 1 and 1: p50 is the 1st, p99 the 2nd. */
	assert_int_equal(lat_percentile(&t, LAT_WRITE, 50), 0);
	assert_int_equal(lat_percentile(&t, LAT_WRITE, 99), 1);
	assert_int_equal(lat_percentile(&t, LAT_OTHER, 50), 2);
	/* 99 and 2 of 101: the 100th (99.99 rounded up) is in the second. */
	s = "latency_us read write other\n<1 99 0 0\n1-2 2 0 0\ntotal 101 0 0\n";
	assert_int_equal(parse_lat_text(s, strlen(s), &t), 0);
	assert_int_equal(lat_percentile(&t, LAT_READ, 99), 1);
	/* Counts near 2^64 do not overflow the rank. */
	s = "latency_us read write other\n<1 18446744073709551614 0 0\n1-2 1 0 0\n"
	    "total 18446744073709551615 0 0\n";
	assert_int_equal(parse_lat_text(s, strlen(s), &t), 0);
	assert_int_equal(lat_percentile(&t, LAT_READ, 99), 0);
	assert_int_equal(lat_percentile(&t, LAT_READ, 100), 1);
}

/* TEXT must fail to parse, at line LINE. */
static void lat_bad(const char *text, size_t len, unsigned int line)
{
	static struct lat_table t;

	assert_int_equal(parse_lat_text(text, len, &t), -1);
	assert_non_null(t.err);
	assert_true(*t.err);
	if (t.err_line != line)
		fail_msg("'%.40s...': error at line %u (%s), not %u", text, t.err_line,
			 t.err, line);
}

#define LAT_BAD(text, line)	lat_bad(text, sizeof(text) - 1, line)
#define LAT_HEAD		"latency_us read write other\n"

static void test_latency_malformed(void **state)
{
	static char big[8192];
	size_t off;
	int i;

	(void)state;
	LAT_BAD("", 0);
	LAT_BAD("\n", 1);
	LAT_BAD("reads 5\nwrites 6\n", 1);		/* the stats file */
	LAT_BAD("latency_us read write\n<1 0 0 0\ntotal 0 0 0\n", 1);
	LAT_BAD("latency_ns read write other\n<1 0 0 0\ntotal 0 0 0\n", 1);
	LAT_BAD(LAT_HEAD, 1);				/* cut short */
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-2 0 0 0\n", 3);	/* no total */
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-2 0 0", 3);	/* cut mid-line */
	LAT_BAD(LAT_HEAD "total 0 0 0\n", 2);		/* no buckets */
	LAT_BAD(LAT_HEAD "<1 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 0 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "\n<1 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 1x 0 0\ntotal 1 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 -1 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 +1 0 0\ntotal 1 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 18446744073709551616 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 1 0 0\ntotal 1 0 x\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\r\ntotal 0 0 0\n", 2);
	/* Labels. */
	LAT_BAD(LAT_HEAD "abc 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "< 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<0 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n>= 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1- 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n-1-2 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n2-1 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-1 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-99999999999999999999999 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-2-4 0 0 0\ntotal 0 0 0\n", 3);
	/* Order: a gap, a repeat, the first not at 0, a bucket after the open one. */
	LAT_BAD(LAT_HEAD "<1 0 0 0\n2-4 0 0 0\ntotal 0 0 0\n", 3);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n1-2 0 0 0\n1-2 0 0 0\ntotal 0 0 0\n", 4);
	LAT_BAD(LAT_HEAD "1-2 0 0 0\ntotal 0 0 0\n", 2);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n>=1 0 0 0\n>=2 0 0 0\ntotal 0 0 0\n", 4);
	LAT_BAD(LAT_HEAD "<1 0 0 0\n>=1 0 0 0\n1-2 0 0 0\ntotal 0 0 0\n", 4);
	/* The total does not add up; something after it. */
	LAT_BAD(LAT_HEAD "<1 1 2 3\n1-2 1 2 3\ntotal 2 4 5\n", 4);
	LAT_BAD(LAT_HEAD "<1 0 0 0\ntotal 0 0 0\n\n", 4);
	LAT_BAD(LAT_HEAD "<1 0 0 0\ntotal 0 0 0\ntotal 0 0 0\n", 4);
	/* Not text: a NUL in a line; a line longer than any rbdi writes. */
	LAT_BAD(LAT_HEAD "<1 0 0 0\0garbage\ntotal 0 0 0\n", 2);
	off = snprintf(big, sizeof(big), LAT_HEAD "<1 ");
	memset(big + off, '1', 1000);
	strcpy(big + off + 1000, " 0 0\ntotal 0 0 0\n");
	lat_bad(big, strlen(big), 2);
	/* More buckets than rbdadm takes. */
	off = snprintf(big, sizeof(big), LAT_HEAD "<1 0 0 0\n");
	for (i = 1; i < LAT_MAX_BUCKETS + 1; i++)
		off += snprintf(big + off, sizeof(big) - off, "%d-%d 0 0 0\n", i, i + 1);
	snprintf(big + off, sizeof(big) - off, "total 0 0 0\n");
	lat_bad(big, strlen(big), LAT_MAX_BUCKETS + 2);
}

/*
 * Run FN(ARG) with file descriptor FD (1 or 2) going to a temporary
 * file; return what it wrote (malloc'd) and FN's result in *RET.
 */
static char *capture(int fd, int (*fn)(void *), void *arg, int *ret)
{
	char path[] = "/tmp/rbdadm-test-XXXXXX", *buf;
	int tmp, saved;
	off_t len;

	fflush(stdout);
	fflush(stderr);
	tmp = mkstemp(path);
	assert_true(tmp >= 0);
	unlink(path);
	saved = dup(fd);
	assert_true(saved >= 0);
	assert_true(dup2(tmp, fd) == fd);
	*ret = fn(arg);
	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(saved, fd) == fd);
	close(saved);
	len = lseek(tmp, 0, SEEK_END);
	assert_true(len >= 0);
	buf = calloc(1, len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(tmp, buf, len, 0), len);
	close(tmp);
	return buf;
}

/* load_latency() of the path ARG, for capture(). */
static int run_load_latency(void *arg)
{
	static struct lat_table t;

	return load_latency(arg, &t);
}

static void test_latency_load(void **state)
{
	char *out, *f;
	int ret;

	(void)state;
	/* An older rbdi: the session's debugfs directory has no latency. */
	out = capture(2, run_load_latency, "/nonexistent/rbdi/s0/latency", &ret);
	assert_int_equal(ret, EXIT_FAIL);
	assert_int_equal(EXIT_FAIL, 1);
	assert_non_null(strstr(out, "this rbdi has no latency histogram"));
	assert_non_null(strstr(out, "/nonexistent/rbdi/s0/latency"));
	assert_int_equal(strchr(out, '\n') - out + 1, (int)strlen(out));	/* one line */
	free(out);

	/* Malformed: the file and line are named. */
	f = tmpfile_with(LAT_HEAD "<1 0 0 0\n1-2 x 0 0\ntotal 0 0 0\n");
	out = capture(2, run_load_latency, f, &ret);
	assert_int_equal(ret, EXIT_FAIL);
	assert_non_null(strstr(out, f));
	assert_non_null(strstr(out, "line 3"));
	free(out);
	unlink(f);

	f = tmpfile_with("");
	out = capture(2, run_load_latency, f, &ret);
	assert_int_equal(ret, EXIT_FAIL);
	assert_non_null(strstr(out, "empty"));
	free(out);
	unlink(f);

	f = tmpfile_with(LAT_HEAD "<1 0 0 0\n>=1 3 0 0\ntotal 3 0 0\n");
	out = capture(2, run_load_latency, f, &ret);
	assert_int_equal(ret, EXIT_OK);
	assert_string_equal(out, "");
	free(out);
	unlink(f);
}

/* out_init(), print_latency() and out_finish() of the table ARG. */
static int run_print_latency(void *arg)
{
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	print_latency(arg);
	return out_finish();
}

static void test_latency_print(void **state)
{
	static struct lat_table t;
	struct json_object *j, *lat, *bk, *o, *v;
	char buf[4096], *out;
	int ret;

	(void)state;
	kernel_latency(buf, sizeof(buf), lat_example);
	assert_int_equal(parse_lat_text(buf, strlen(buf), &t), 0);

	/* Text: only the buckets that counted, totals, bounds. */
	opt_json = 0;
	out = capture(1, run_print_latency, &t, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(out,
		"\n"
		"Latency (us):              read        write        other\n"
		"4-8                           0            0            4\n"
		"128-256                     812          301            0\n"
		"256-512                    1630          955            2\n"
		">=1048576                     0            0            5\n"
		"total                      2442         1256           11\n"
		"p50 (bucket bound)         <512         <512         <512\n"
		"p99 (bucket bound)         <512         <512    >=1048576\n");
	free(out);

	/* JSON: every bucket, hi_us null for the open one. */
	opt_json = 1;
	out = capture(1, run_print_latency, &t, &ret);
	opt_json = 0;
	assert_int_equal(ret, 0);
	j = json_tokener_parse(out);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "latency", &lat));
	assert_true(json_object_object_get_ex(lat, "buckets", &bk));
	assert_true(json_object_is_type(bk, json_type_array));
	assert_int_equal(json_object_array_length(bk), KERNEL_LAT_BUCKETS);
	o = json_object_array_get_idx(bk, 8);
	assert_true(json_object_object_get_ex(o, "lo_us", &v));
	assert_int_equal(json_object_get_uint64(v), 128);
	assert_true(json_object_object_get_ex(o, "hi_us", &v));
	assert_int_equal(json_object_get_uint64(v), 256);
	assert_true(json_object_object_get_ex(o, "read", &v));
	assert_int_equal(json_object_get_uint64(v), 812);
	o = json_object_array_get_idx(bk, KERNEL_LAT_BUCKETS - 1);
	assert_true(json_object_object_get_ex(o, "lo_us", &v));
	assert_int_equal(json_object_get_uint64(v), 1048576);
	assert_true(json_object_object_get_ex(o, "hi_us", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "other", &v));
	assert_int_equal(json_object_get_uint64(v), 5);
	assert_true(json_object_object_get_ex(lat, "total", &o));
	assert_true(json_object_object_get_ex(o, "write", &v));
	assert_int_equal(json_object_get_uint64(v), 1256);
	assert_true(json_object_object_get_ex(lat, "p50_bucket_bound_us", &o));
	assert_true(json_object_object_get_ex(o, "read", &v));
	assert_int_equal(json_object_get_uint64(v), 512);
	assert_true(json_object_object_get_ex(lat, "p99_bucket_bound_us", &o));
	assert_true(json_object_object_get_ex(o, "other", &v));
	assert_null(v);
	json_object_put(j);
	free(out);
}

static int usage_calls;

/* A command's usage(), for parse_common_opts(). */
static void fake_usage(void)
{
	usage_calls++;
	puts("Usage: fake");
}

/* parse_common_opts() of the NULL-terminated argv ARG, for capture(). */
static int run_common_opts(void *arg)
{
	char **argv = arg;
	int argc = 0;

	while (argv[argc])
		argc++;
	return parse_common_opts(argc, argv, fake_usage);
}

/* parse_common_opts() of ARGV must return WANT; returns what it wrote on FD. */
static char *common_opts(char **argv, int want, int fd)
{
	char *out;
	int ret;

	usage_calls = 0;
	opt_json = 0;
	out = capture(fd, run_common_opts, argv, &ret);
	assert_int_equal(ret, want);
	return out;
}

static void test_common_opts(void **state)
{
	char a0[] = "list", a1[] = "-j", a2[] = "rbdi0", a3[] = "--help", a4[] = "--bogus";
	char a5[] = "-h", a6[] = "--json", a7[] = "-x";
	char *v1[] = { a0, NULL }, *v2[] = { a0, a1, NULL }, *v3[] = { a0, a2, a6, NULL };
	char *v4[] = { a0, a3, NULL }, *v5[] = { a0, a5, a2, NULL }, *v6[] = { a0, a4, NULL };
	char *v7[] = { a0, a7, a2, NULL };
	char *out;

	(void)state;
	free(common_opts(v1, -1, 1));
	assert_int_equal(optind, 1);
	assert_int_equal(opt_json, 0);
	free(common_opts(v2, -1, 1));
	assert_int_equal(optind, 2);
	assert_int_equal(opt_json, 1);
	/* Options after the operand, as getopt_long permutes them. */
	free(common_opts(v3, -1, 1));
	assert_int_equal(opt_json, 1);
	assert_int_equal(optind, 2);
	assert_string_equal(v3[optind], "rbdi0");
	/* --help: usage on stdout, exit 0; an unknown option: exit 2. */
	out = common_opts(v4, EXIT_OK, 1);
	assert_string_equal(out, "Usage: fake\n");
	assert_int_equal(usage_calls, 1);
	free(out);
	free(common_opts(v5, EXIT_OK, 1));
	assert_int_equal(usage_calls, 1);
	out = common_opts(v6, EXIT_USAGE, 2);
	assert_string_equal(out, "list: unrecognized option '--bogus'\n");
	assert_int_equal(usage_calls, 1);
	free(out);
	out = common_opts(v7, EXIT_USAGE, 2);
	assert_string_equal(out, "list: invalid option -- 'x'\n");
	free(out);
	opt_json = 0;
}

/* -o/--output-format in a command's options, and its values. */
static void test_output_format_opts(void **state)
{
	char a0[] = "list", a1[] = "-o", a2[] = "json", a3[] = "--output-format=json";
	char a4[] = "--output-format", a5[] = "normal", a6[] = "xml", a7[] = "-ojson";
	char *v1[] = { a0, a1, a2, NULL }, *v2[] = { a0, a3, NULL };
	char *v3[] = { a0, a4, a2, NULL }, *v4[] = { a0, a7, NULL };
	char *v5[] = { a0, a1, a6, NULL }, *v6[] = { a0, a1, NULL };
	char *out;

	(void)state;
	assert_int_equal(out_format_opt("json"), 0);
	assert_int_equal(opt_json, 1);
	assert_int_equal(out_format_opt("normal"), 0);
	assert_int_equal(opt_json, 0);
	free(common_opts(v1, -1, 1));
	assert_int_equal(opt_json, 1);
	assert_int_equal(optind, 3);
	free(common_opts(v2, -1, 1));
	assert_int_equal(opt_json, 1);
	free(common_opts(v3, -1, 1));
	assert_int_equal(opt_json, 1);
	free(common_opts(v4, -1, 1));
	assert_int_equal(opt_json, 1);
	/* -o normal after -j: the last one wins. */
	opt_json = 1;
	assert_int_equal(out_format_opt(a5), 0);
	assert_int_equal(opt_json, 0);
	/* An unknown format and a missing one: usage errors. */
	out = common_opts(v5, EXIT_USAGE, 2);
	assert_string_equal(out, "rbdadm: unknown output format 'xml' (-o normal or -o json)\n");
	free(out);
	out = common_opts(v6, EXIT_USAGE, 2);
	assert_non_null(strstr(out, "requires an argument"));
	free(out);
	opt_json = 0;
}

static int global_usage_calls;

static void fake_global_usage(FILE *f)
{
	global_usage_calls++;
	fputs("Usage: global\n", f);
}

struct global_run {
	char **argv;
	int next;
};

/* parse_global_opts() of the NULL-terminated argv in ARG, for capture(). */
static int run_global_opts(void *arg)
{
	struct global_run *g = arg;
	int argc = 0;

	while (g->argv[argc])
		argc++;
	g->next = -1;
	return parse_global_opts(argc, g->argv, &g->next, fake_global_usage);
}

/*
 * parse_global_opts() of ARGV must return WANT, with the command at
 * NEXT (when it goes on) and the JSON output JSON; returns its stderr.
 */
static char *global_opts(char **argv, int want, int next, int json)
{
	struct global_run g = { argv, -1 };
	char *out;
	int ret;

	opt_json = 0;
	global_usage_calls = 0;
	out = capture(2, run_global_opts, &g, &ret);
	assert_int_equal(ret, want);
	if (want < 0)
		assert_int_equal(g.next, next);
	assert_int_equal(opt_json, json);
	return out;
}

static void test_global_opts(void **state)
{
	char r[] = "rbdadm", l[] = "list", o[] = "-o", j[] = "json", n[] = "normal";
	char of[] = "--output-format", ofj[] = "--output-format=json", oj[] = "-ojson";
	char jj[] = "-j", x[] = "xml", b[] = "--bogus", h[] = "--help";
	char *v1[] = { r, o, j, l, NULL }, *v2[] = { r, ofj, l, NULL };
	char *v3[] = { r, of, j, l, NULL }, *v4[] = { r, oj, l, NULL };
	char *v5[] = { r, jj, o, n, l, NULL }, *v6[] = { r, l, NULL };
	char *v7[] = { r, o, x, l, NULL }, *v8[] = { r, o, NULL };
	char *v9[] = { r, b, l, NULL }, *v10[] = { r, NULL }, *v11[] = { r, h, NULL };
	char *v12[] = { r, jj, NULL };
	char *out;

	(void)state;
	free(global_opts(v1, -1, 3, 1));
	free(global_opts(v2, -1, 2, 1));
	free(global_opts(v3, -1, 3, 1));
	free(global_opts(v4, -1, 2, 1));
	free(global_opts(v5, -1, 4, 0));
	free(global_opts(v6, -1, 1, 0));
	out = global_opts(v7, EXIT_USAGE, 0, 0);
	assert_non_null(strstr(out, "unknown output format 'xml'"));
	free(out);
	out = global_opts(v8, EXIT_USAGE, 0, 0);
	assert_string_equal(out, "rbdadm: -o needs a format: normal or json\n");
	free(out);
	out = global_opts(v9, EXIT_USAGE, 0, 0);
	assert_string_equal(out, "rbdadm: unknown option '--bogus' (see rbdadm --help)\n");
	free(out);
	/* No command: usage on stderr, a usage error; --help: exit 0. */
	out = global_opts(v10, EXIT_USAGE, 0, 0);
	assert_string_equal(out, "Usage: global\n");
	free(out);
	free(global_opts(v11, EXIT_OK, 0, 0));
	assert_int_equal(global_usage_calls, 1);
	out = global_opts(v12, EXIT_USAGE, 0, 1);
	assert_string_equal(out, "Usage: global\n");
	free(out);
	opt_json = 0;
}

/* The exit statuses are the documented numbers, each its own. */
static void test_exit_status_numbers(void **state)
{
	static const int st[] = {
		EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_AUTH, EXIT_UNREACHABLE,
		EXIT_NO_TARGET, EXIT_ACL, EXIT_NO_LUN, EXIT_NOT_FOUND, EXIT_NO_MODULE,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		assert_int_equal(st[i], (int)i);
}

/* What rbdi records in last_error, and errno alone, to an exit status. */
static void test_login_exit_status(void **state)
{
	static const struct { unsigned int reason; int status; } rej[] = {
		{ RBD_REJ_BAD_REQUEST, EXIT_FAIL },
		{ RBD_REJ_VERSION, EXIT_FAIL },
		{ RBD_REJ_UNKNOWN_TARGET, EXIT_NO_TARGET },
		{ RBD_REJ_ACL_DENIED, EXIT_ACL },
		{ RBD_REJ_NO_LUN, EXIT_NO_LUN },
		{ RBD_REJ_LIMITS, EXIT_FAIL },
		{ RBD_REJ_TPG_DISABLED, EXIT_FAIL },
		{ RBD_REJ_NO_RESOURCES, EXIT_FAIL },
		{ RBD_REJ_SHUTTING_DOWN, EXIT_FAIL },
		{ RBD_REJ_AUTH_REQUIRED, EXIT_AUTH },
		{ RBD_REJ_AUTH_FAILED, EXIT_AUTH },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rej) / sizeof(rej[0]); i++)
		assert_int_equal(login_exit_status(rbd_reject_str(rej[i].reason), EACCES),
				 rej[i].status);
	/* rbdi's own reasons. */
	assert_int_equal(login_exit_status("target failed mutual authentication", EACCES),
			 EXIT_AUTH);
	assert_int_equal(login_exit_status("target failed mutual authentication (user name)",
					   EACCES), EXIT_AUTH);
	assert_int_equal(login_exit_status("target does not support authentication", EACCES),
			 EXIT_AUTH);
	assert_int_equal(login_exit_status("address unreachable", ETIMEDOUT), EXIT_UNREACHABLE);
	assert_int_equal(login_exit_status("connection refused: no rbd portal at that address and port",
					   ECONNREFUSED), EXIT_UNREACHABLE);
	assert_int_equal(login_exit_status("out of memory", ENOMEM), EXIT_FAIL);
	assert_int_equal(login_exit_status("protocol error", EPROTO), EXIT_FAIL);
	/* A reason wins over errno: ECONNREFUSED comes with "unknown target". */
	assert_int_equal(login_exit_status("unknown target", ECONNREFUSED), EXIT_NO_TARGET);
	/* No reason recorded: errno decides. */
	assert_int_equal(login_exit_status("", ECONNREFUSED), EXIT_UNREACHABLE);
	assert_int_equal(login_exit_status(NULL, EHOSTUNREACH), EXIT_UNREACHABLE);
	assert_int_equal(login_exit_status("", ENETUNREACH), EXIT_UNREACHABLE);
	assert_int_equal(login_exit_status("", EACCES), EXIT_ACL);
	assert_int_equal(login_exit_status("", ENOENT), EXIT_NO_TARGET);
	assert_int_equal(login_exit_status("", ENXIO), EXIT_NO_LUN);
	assert_int_equal(login_exit_status("", EIO), EXIT_FAIL);
	assert_string_equal(login_error(ENXIO), "no such LUN");
}

static void test_modprobe_not_found(void **state)
{
	(void)state;
	assert_true(modprobe_not_found("modprobe: FATAL: Module rbdi not found in directory /lib/modules/6.1.0-28-amd64"));
	assert_false(modprobe_not_found("modprobe: ERROR: could not insert 'rbdi': Key was rejected by service"));
	assert_false(modprobe_not_found("modprobe: ERROR: could not insert 'rbdi': Invalid argument"));
	assert_false(modprobe_not_found(""));
}

/* ensure_rbdi("login"), for capture(). */
static int run_ensure_rbdi(void *arg)
{
	(void)arg;
	return ensure_rbdi("login");
}

/*
 * ensure_rbdi() with a modprobe (first in PATH) that prints SCRIPT's
 * output and exits 1: returns what rbdadm said on stderr.
 */
static char *fake_modprobe(const char *script)
{
	char dir[] = "/tmp/rbdadm-mp-XXXXXX", path[64], *old, *out, *saved = NULL;
	FILE *f;
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/modprobe", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\nexit 1\n", script);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	old = getenv("PATH");
	if (old)
		saved = strdup(old);
	assert_int_equal(setenv("PATH", dir, 1), 0);
	out = capture(2, run_ensure_rbdi, NULL, &ret);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unlink(path);
	rmdir(dir);
	assert_int_equal(ret, EXIT_NO_MODULE);
	return out;
}

/* A failed modprobe is reported in its own words, on one line. */
static void test_ensure_rbdi_modprobe(void **state)
{
	struct stat st;
	char *out;

	(void)state;
	if (stat(RBDI_CONFIGFS, &st) == 0)
		skip();	/* rbdi is loaded here: no modprobe to fake */
	out = fake_modprobe("echo \"modprobe: ERROR: could not insert 'rbdi': Key was rejected by service\" >&2");
	assert_string_equal(out, "rbdadm: login: cannot load the rbdi module: modprobe: ERROR: could not insert 'rbdi': Key was rejected by service\n");
	free(out);
	out = fake_modprobe("echo 'modprobe: FATAL: Module rbdi not found in directory /lib/modules/x' >&2");
	assert_non_null(strstr(out, "module missing: rbdi is not installed"));
	assert_non_null(strstr(out, "Module rbdi not found in directory /lib/modules/x\n"));
	free(out);
	/* Two lines (an install command's own output, then modprobe's). */
	out = fake_modprobe("echo first >&2; echo; echo 'modprobe: ERROR: second' >&2");
	assert_string_equal(out, "rbdadm: login: cannot load the rbdi module: first; modprobe: ERROR: second\n");
	free(out);
	out = fake_modprobe(":");
	assert_string_equal(out, "rbdadm: login: cannot load the rbdi module: modprobe failed without a message\n");
	free(out);
}

static void disc_rsp(struct rbd_discover_rsp *r, uint32_t idx, uint32_t nr,
		     const char *tgt, uint16_t tpgt, uint64_t first, uint16_t n,
		     bool more)
{
	uint16_t i;

	memset(r, 0, sizeof(*r));
	r->index = rbd_cpu_to_le32(idx);
	r->nr_entries = rbd_cpu_to_le32(nr);
	r->tpgt = rbd_cpu_to_le16(tpgt);
	r->nr_luns = rbd_cpu_to_le16(n);
	r->flags = rbd_cpu_to_le16(more ? RBD_DISCOVER_MORE_LUNS : 0);
	strcpy(r->target_name, tgt);
	for (i = 0; i < n; i++)
		r->luns[i] = rbd_cpu_to_le64(first + i);
}

static void test_disc_next(void **state)
{
	struct disc_result res = {};
	struct rbd_discover_req req = {};
	struct rbd_discover_rsp rsp;
	unsigned int i;

	(void)state;
	/* Entry 0 in two rounds (32 + 3 LUNs), then entry 1, then done. */
	disc_rsp(&rsp, 0, 2, "iqn.2026-12.org.example:a", 1, 0, RBD_DISCOVER_MAX_LUNS, true);
	assert_int_equal(disc_next(&res, &rsp, &req), 1);
	assert_int_equal(rbd_le32(req.index), 0);
	assert_int_equal(rbd_le64(req.start_lun), RBD_DISCOVER_MAX_LUNS);
	disc_rsp(&rsp, 0, 2, "iqn.2026-12.org.example:a", 1, RBD_DISCOVER_MAX_LUNS, 3, false);
	assert_int_equal(disc_next(&res, &rsp, &req), 1);
	assert_int_equal(rbd_le32(req.index), 1);
	assert_int_equal(rbd_le64(req.start_lun), 0);
	disc_rsp(&rsp, 1, 2, "iqn.2026-12.org.example:b", 7, 5, 1, false);
	assert_int_equal(disc_next(&res, &rsp, &req), 0);
	assert_int_equal(res.nr, 2);
	assert_string_equal(res.e[0].target, "iqn.2026-12.org.example:a");
	assert_int_equal(res.e[0].tpgt, 1);
	assert_int_equal(res.e[0].nr_luns, RBD_DISCOVER_MAX_LUNS + 3);
	for (i = 0; i < res.e[0].nr_luns; i++)
		assert_int_equal(res.e[0].luns[i], i);
	assert_string_equal(res.e[1].target, "iqn.2026-12.org.example:b");
	assert_int_equal(res.e[1].tpgt, 7);
	assert_int_equal(res.e[1].nr_luns, 1);
	assert_int_equal(res.e[1].luns[0], 5);
	/* Tags: qid 0, a control slot. */
	assert_int_equal(rbd_tag_qid(rbd_le64(req.hdr.tag)), 0);
	assert_true(rbd_tag_slot(rbd_le64(req.hdr.tag)) < RBD_CTRL_SLOTS);
	disc_result_free(&res);
	assert_int_equal(res.nr, 0);

	/* The entry count changes between answers. */
	memset(&req, 0, sizeof(req));
	disc_rsp(&rsp, 0, 2, "t:a", 1, 0, 1, false);
	assert_int_equal(disc_next(&res, &rsp, &req), 1);
	disc_rsp(&rsp, 1, 3, "t:b", 1, 0, 1, false);
	assert_int_equal(disc_next(&res, &rsp, &req), -1);
	disc_result_free(&res);

	/* Another index than asked for. */
	memset(&req, 0, sizeof(req));
	disc_rsp(&rsp, 1, 2, "t:a", 1, 0, 1, false);
	assert_int_equal(disc_next(&res, &rsp, &req), -1);
	disc_result_free(&res);

	/* The continuation of an entry names another target. */
	memset(&req, 0, sizeof(req));
	disc_rsp(&rsp, 0, 1, "t:a", 1, 0, 2, true);
	assert_int_equal(disc_next(&res, &rsp, &req), 1);
	disc_rsp(&rsp, 0, 1, "t:b", 1, 2, 2, false);
	assert_int_equal(disc_next(&res, &rsp, &req), -1);
	disc_result_free(&res);

	/* "More" after LUN 2^64-1 cannot be asked for. */
	memset(&req, 0, sizeof(req));
	disc_rsp(&rsp, 0, 1, "t:a", 1, UINT64_MAX, 1, true);
	assert_int_equal(disc_next(&res, &rsp, &req), -1);
	disc_result_free(&res);

	/* A target that never ends is cut off. */
	memset(&req, 0, sizeof(req));
	for (i = 0; i < 5000; i++) {
		int r;

		disc_rsp(&rsp, 0, 1, "t:a", 1, rbd_le64(req.start_lun), 1, true);
		r = disc_next(&res, &rsp, &req);
		if (r < 0)
			break;
		assert_int_equal(r, 1);
	}
	assert_true(i < 5000);
	disc_result_free(&res);
}

static void hex_to(uint8_t *out, const char *hex, size_t n)
{
	size_t i;
	unsigned int v;

	for (i = 0; i < n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void cred_set(struct auth_cred *c, const char *user,
		     const char *secret)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->user, user);
	c->secret_len = strlen(secret);
	memcpy(c->secret, secret, c->secret_len);
}

/*
 * Known answers, computed independently (Python's hmac module over the
 * 784-byte message of Documentation/protocol.rst). The kernel's proofs
 * meet these in the guest tests: rbdadm discover against rbdt, rbdi
 * against the fake target.
 */
static void test_auth_known_answers(void **state)
{
	struct rbd_auth_begin b;
	struct rbd_auth_begin_rsp r;
	struct rbd_auth_proof p;
	struct rbd_auth_proof_rsp pr;
	struct auth_cred ini, tgt;
	uint8_t want[RBD_AUTH_PROOF_LEN], got[RBD_AUTH_PROOF_LEN];

	(void)state;
	assert_int_equal(auth_begin_init(&b, rbd_tag(0, 1, 1), true,
					 "iqn.2026-12.org.example:host1",
					 "iqn.2026-12.org.example:disk1"), 0);
	assert_int_equal(rbd_check_auth_begin(&b, sizeof(b)), RBD_CHECK_OK);
	memset(b.challenge, 0xa5, sizeof(b.challenge));
	memset(&r, 0, sizeof(r));
	r.hash = RBD_AUTH_HMAC_SHA256;
	memset(r.challenge, 0x3c, sizeof(r.challenge));
	cred_set(&ini, "host1", "host1-secret-0123");
	cred_set(&tgt, "disk1-target", "target-secret-4567");

	hex_to(want, "cc29bd655987d6a3368d49d0f89f6c27"
		     "6d4ed548fb50c4df1b46d9467eb2991d", sizeof(want));
	assert_int_equal(auth_proof_init(&p, rbd_tag(0, 2, 1), &b, &r, &ini),
			 0);
	assert_memory_equal(p.proof, want, sizeof(want));
	assert_string_equal(p.user, "host1");
	assert_int_equal(rbd_check_auth_proof(&p, sizeof(p)), RBD_CHECK_OK);

	hex_to(want, "9338ab1277f3b545b1c935f1b16d7841"
		     "b6a7026a86eb1f368922a955d374d510", sizeof(want));
	assert_int_equal(auth_compute(got, 1, &b, r.challenge, &tgt), 0);
	assert_memory_equal(got, want, sizeof(want));

	/* The target's proof is accepted, a changed bit or user is not. */
	memset(&pr, 0, sizeof(pr));
	pr.flags = RBD_AUTH_F_MUTUAL;
	memcpy(pr.proof, want, sizeof(want));
	memcpy(pr.user, tgt.user, sizeof(pr.user));
	assert_int_equal(auth_check_target(&b, &r, &pr, &tgt), 0);
	pr.proof[31] ^= 1;
	assert_int_equal(auth_check_target(&b, &r, &pr, &tgt), -1);
	pr.proof[31] ^= 1;
	pr.user[0] = 'D';
	assert_int_equal(auth_check_target(&b, &r, &pr, &tgt), -1);
	pr.user[0] = 'd';
	/* The initiator's own proof reflected back is not the target's. */
	memcpy(pr.proof, p.proof, sizeof(pr.proof));
	memcpy(pr.user, ini.user, sizeof(pr.user));
	assert_int_equal(auth_check_target(&b, &r, &pr, &ini), -1);
	auth_cred_clear(&ini);
	assert_int_equal(ini.secret_len, 0);
}

static void secret_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_auth_secret_files(void **state)
{
	char path[] = "/tmp/rbd-secret-XXXXXX", err[256];
	struct auth_cred c;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	secret_file(path, "correct horse battery\n", 0600);
	assert_int_equal(auth_load_cred(&c, "host1", path, err, sizeof(err)),
			 0);
	assert_int_equal(c.secret_len, strlen("correct horse battery"));
	assert_memory_equal(c.secret, "correct horse battery", c.secret_len);

	secret_file(path, "correct horse battery\n", 0640);
	assert_int_equal(auth_load_cred(&c, "host1", path, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "chmod 600"));
	assert_int_equal(c.secret_len, 0);

	secret_file(path, "short\n", 0600);
	assert_int_equal(auth_load_cred(&c, "host1", path, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "has 5 bytes; 12 to 255"));

	secret_file(path, "correct horse battery", 0600);
	assert_int_equal(auth_load_cred(&c, "two words", path, err,
					sizeof(err)), -1);
	assert_non_null(strstr(err, "user name"));
	unlink(path);
	assert_int_equal(auth_load_cred(&c, "host1", path, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "cannot open secret file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_portal),
		cmocka_unit_test(test_portal_small_buffer),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_persist_line_name),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_initiatorname),
		cmocka_unit_test(test_stat_line),
		cmocka_unit_test(test_block_stat),
		cmocka_unit_test(test_latency_kernel_format),
		cmocka_unit_test(test_latency_percentile_rounding),
		cmocka_unit_test(test_latency_malformed),
		cmocka_unit_test(test_latency_load),
		cmocka_unit_test(test_latency_print),
		cmocka_unit_test(test_common_opts),
		cmocka_unit_test(test_output_format_opts),
		cmocka_unit_test(test_global_opts),
		cmocka_unit_test(test_exit_status_numbers),
		cmocka_unit_test(test_login_exit_status),
		cmocka_unit_test(test_modprobe_not_found),
		cmocka_unit_test(test_ensure_rbdi_modprobe),
		cmocka_unit_test(test_disc_next),
		cmocka_unit_test(test_auth_known_answers),
		cmocka_unit_test(test_auth_secret_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
