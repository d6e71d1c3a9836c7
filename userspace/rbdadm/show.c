// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm show: one session in detail, as iscsiadm -m session -P3 shows
 * one: what was asked (rbdi's configfs directory), what the target
 * granted, the disk (sysfs), its counters (rbdi's debugfs) and the last
 * login error. Without a session it is rbdadm list.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "rbdadm.h"

enum field_type { F_STR, F_INT, F_SECTORS, F_BOOL };

struct show_field {
	const char *attr;	/* file under the directory shown */
	const char *key;	/* JSON key */
	const char *label;	/* text label */
	enum field_type type;
};

#define NR(a)	(sizeof(a) / sizeof((a)[0]))

/* The session's directory in /sys/kernel/config/rbdi. */
static const struct show_field sess_fields[] = {
	{ "state",            "state",            "State:",          F_STR },
	{ "last_error",       "last_error",       "Last error:",     F_STR },
	{ "target",           "target",           "Target:",         F_STR },
	{ "lun",              "lun",              "LUN:",            F_INT },
	{ "traddr",           "address",          "Address:",        F_STR },
	{ "trsvcid",          "port",             "Port:",           F_INT },
	{ "src_addr",         "source_address",   "Source address:", F_STR },
	{ "initiator",        "initiator",        "Initiator:",      F_STR },
	{ "auth_user",        "auth_user",        "Auth user:",      F_STR },
	{ "auth_mutual_user", "auth_mutual_user", "Auth mutual user:", F_STR },
};

static const struct show_field asked_fields[] = {
	{ "nr_queues",        "queues",           "  Queues:",           F_INT },
	{ "nr_poll_queues",   "poll_queues",      "  Poll queues:",      F_INT },
	{ "queue_depth",      "queue_depth",      "  Queue depth:",      F_INT },
	{ "max_io_size",      "max_io",           "  Max I/O:",          F_INT },
	{ "inline_data_size", "inline",           "  Inline data:",      F_INT },
	{ "imm_read_size",    "imm_read",         "  Imm. read:",        F_INT },
	{ "bare_reads",       "bare_reads",       "  Bare reads:",       F_INT },
	{ "rsp_batches",      "rsp_batches",      "  Response batches:", F_INT },
	{ "io_timeout",       "io_timeout",       "  I/O timeout:",      F_INT },
	{ "reconnect_delay",  "reconnect_delay",  "  Reconnect delay:",  F_INT },
	{ "ctrl_loss_tmo",    "ctrl_loss_tmo",    "  Ctrl loss tmo:",    F_INT },
	{ "fast_io_fail_tmo", "fast_io_fail_tmo", "  Fast I/O fail tmo:", F_INT },
};

static const struct show_field granted_fields[] = {
	{ "granted_nr_queues",        "queues",      "  Queues:",      F_INT },
	{ "granted_nr_poll_queues",   "poll_queues", "  Poll queues:", F_INT },
	{ "granted_queue_depth",      "queue_depth", "  Queue depth:", F_INT },
	{ "granted_max_io_size",      "max_io",      "  Max I/O:",     F_INT },
	{ "granted_inline_data_size", "inline",      "  Inline data:", F_INT },
	{ "granted_imm_read_size",    "imm_read",    "  Imm. read:",   F_INT },
};

/* The disk's directory in /sys/block. */
static const struct show_field disk_fields[] = {
	{ "size",                       "size",                "  Size (bytes):",    F_SECTORS },
	{ "queue/logical_block_size",   "logical_block_size",  "  Logical block:",   F_INT },
	{ "queue/physical_block_size",  "physical_block_size", "  Physical block:",  F_INT },
	{ "queue/max_hw_sectors_kb",    "max_hw_sectors_kb",   "  Max HW I/O (KiB):", F_INT },
	{ "queue/max_sectors_kb",       "max_sectors_kb",      "  Max I/O (KiB):",   F_INT },
	{ "queue/nr_requests",          "nr_requests",         "  Requests:",        F_INT },
	{ "ro",                         "read_only",           "  Read-only:",       F_BOOL },
	{ "rbd/wwid",                   "wwid",                "  WWID:",            F_STR },
	{ "rbd/serial",                 "serial",              "  Serial:",          F_STR },
	{ "rbd/vendor",                 "vendor",              "  Vendor:",          F_STR },
	{ "rbd/model",                  "model",               "  Model:",           F_STR },
	{ "rbd/rev",                    "rev",                 "  Revision:",        F_STR },
};

/* Print field F of DIR; one that this kernel does not have is left out. */
static void show_field(const char *dir, const struct show_field *f)
{
	char val[512], *end;
	long long n;

	if (read_attr(dir, f->attr, val, sizeof(val)))
		return;
	if (f->type == F_STR) {
		out_str(f->key, f->label, val);
		return;
	}
	errno = 0;
	n = strtoll(val, &end, 10);
	if (errno || !*val || *end)
		out_str(f->key, f->label, val);
	else if (f->type == F_BOOL)
		out_bool(f->key, f->label, n != 0);
	else if (f->type == F_SECTORS)
		out_i64(f->key, f->label, n * 512);
	else
		out_i64(f->key, f->label, n);
}

static void show_fields(const char *dir, const struct show_field *f, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		show_field(dir, &f[i]);
}

/* The number of hardware queues of the disk: entries of its mq/. */
static int count_hw_queues(const char *dev)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s/mq", dev);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void show_disk(const char *dev)
{
	char dir[PATH_MAX];
	int hwq;

	if (!*dev) {
		out_null("disk", "Disk:");
		return;
	}
	snprintf(dir, sizeof(dir), "/sys/block/%s", dev);
	out_section("disk", "Disk:");
	show_fields(dir, disk_fields, NR(disk_fields));
	hwq = count_hw_queues(dev);
	if (hwq >= 0)
		out_i64("hw_queues", "  HW queues:", hwq);
	out_end();
}

/* rbdi's counters of session NAME (debugfs, root only), or null. */
static void show_counters(const char *name)
{
	char path[PATH_MAX], line[256], key[64], sval[64], label[80];
	unsigned long long val;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "/sys/kernel/debug/rbdi/%s/stats", name);
	if (geteuid() == 0 && !ensure_debugfs())
		f = fopen(path, "re");
	if (!f) {
		out_null("counters", "Counters:");
		return;
	}
	out_section("counters", "Counters:");
	while (fgets(line, sizeof(line), f)) {
		if (parse_stat_line(line, key, sizeof(key), &val, sval,
				    sizeof(sval)) != 1)
			continue;
		snprintf(label, sizeof(label), "  %s:", key);
		out_u64(key, label, val);
	}
	fclose(f);
	out_end();
}

/* Everything about session NAME. Returns the exit status. */
static int show_session(const char *name)
{
	char dir[PATH_MAX], dev[64];

	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (read_attr(dir, "device", dev, sizeof(dev)))
		dev[0] = '\0';
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("session", "Session:", name);
	out_str("device", "Device:", dev);
	show_fields(dir, sess_fields, NR(sess_fields));
	out_section("requested", "Requested:");
	show_fields(dir, asked_fields, NR(asked_fields));
	out_end();
	out_section("granted", "Granted by the target:");
	show_fields(dir, granted_fields, NR(granted_fields));
	out_end();
	show_disk(dev);
	show_counters(name);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

void usage_show(void)
{
	puts("Usage: rbdadm show [-j|--json|-o normal|json] [DEVICE|SESSION]\n"
	     "\n"
	     "Show one session in detail: state, last login error, target,\n"
	     "LUN, portal, initiator, what was asked at login and what the\n"
	     "target granted, the disk (size, block sizes, limits, queues,\n"
	     "WWID) and, for root, rbdi's counters. DEVICE is /dev/rbdiN or\n"
	     "rbdiN. Without DEVICE or SESSION, the same as rbdadm list.");
}

/* rbdadm show [DEVICE|SESSION] */
int cmd_show(int argc, char **argv)
{
	char name[256];
	int ret;

	ret = parse_common_opts(argc, argv, usage_show);
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return list_sessions();
	if (argc - optind > 1) {
		err("show: one device or session only (see rbdadm show --help)");
		return EXIT_USAGE;
	}
	if (resolve_session(argv[optind], name, sizeof(name))) {
		err("show: no such device or session '%s'", argv[optind]);
		return EXIT_NOT_FOUND;
	}
	return show_session(name);
}
