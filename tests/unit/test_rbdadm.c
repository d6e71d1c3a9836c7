// SPDX-License-Identifier: GPL-2.0
/* Unit tests of rbdadm's parsers: portals, sizes, the initiator name file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_portal),
		cmocka_unit_test(test_portal_small_buffer),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_initiatorname),
		cmocka_unit_test(test_stat_line),
		cmocka_unit_test(test_block_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
