// SPDX-License-Identifier: GPL-2.0
/* Unit tests of rbdadm's parsers: portals, sizes, the initiator name file. */
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
#include <cmocka.h>

#include <rbd/rbd_proto.h>
#include <rbd/rbd_proto_check.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_portal),
		cmocka_unit_test(test_portal_small_buffer),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_initiatorname),
		cmocka_unit_test(test_stat_line),
		cmocka_unit_test(test_block_stat),
		cmocka_unit_test(test_disc_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
