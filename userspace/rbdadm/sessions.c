// SPDX-License-Identifier: GPL-2.0
/* rbdadm list: the initiator's sessions, from its configfs tree. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "rbdadm.h"

int read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

struct field {
	const char *attr;
	const char *key;
	const char *label;
	bool number;
};

static const struct field list_fields[] = {
	{ "device",      "device",      "Device:",      false },
	{ "target",      "target",      "Target:",      false },
	{ "lun",         "lun",         "LUN:",         true },
	{ "traddr",      "address",     "Address:",     false },
	{ "trsvcid",     "port",        "Port:",        true },
	{ "initiator",   "initiator",   "Initiator:",   false },
	{ "state",       "state",       "State:",       false },
	/* What the target granted; 0 while the session has no disk. */
	{ "granted_nr_queues",        "queues",      "Queues:",      true },
	{ "granted_nr_poll_queues",   "poll_queues", "Poll queues:", true },
	{ "granted_queue_depth",      "queue_depth", "Queue depth:", true },
	{ "granted_max_io_size",      "max_io",      "Max I/O:",     true },
	{ "granted_inline_data_size", "inline",      "Inline data:", true },
	{ "granted_imm_read_size",    "imm_read",    "Imm. read:",   true },
};

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.' && d->d_type == DT_DIR;
}

void usage_list(void)
{
	puts("Usage: rbdadm list [-j|--json|-o normal|json]\n"
	     "\n"
	     "Show every session of this initiator: device, target, LUN,\n"
	     "address, state and the negotiated limits. Without the rbdi\n"
	     "module loaded there are none (JSON: an empty list). rbdadm show\n"
	     "without a session does the same.");
}

/* One session of the list, from its configfs directory DIR. */
static void list_one(const char *dir, const char *name)
{
	char val[512], *end;
	unsigned long long n;
	size_t f;

	out_record_begin();
	out_str("session", "Session:", name);
	for (f = 0; f < sizeof(list_fields) / sizeof(list_fields[0]); f++) {
		if (read_attr(dir, list_fields[f].attr, val, sizeof(val)))
			continue;
		errno = 0;
		n = strtoull(val, &end, 10);
		if (list_fields[f].number && *val && !*end && !errno)
			out_u64(list_fields[f].key, list_fields[f].label, n);
		else
			out_str(list_fields[f].key, list_fields[f].label, val);
	}
	out_end();
}

/*
 * Print every session (rbdadm list, and show without a session). No
 * rbdi configfs tree (the module not loaded) means no sessions.
 */
int list_sessions(void)
{
	struct dirent **ents = NULL;
	char dir[4096];
	int n, i;

	n = scandir(RBDI_CONFIGFS, &ents, skip_dots, name_cmp);
	if (n < 0 && errno != ENOENT) {
		err("list: cannot read %s: %s", RBDI_CONFIGFS, strerror(errno));
		return EXIT_FAIL;
	}
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_list_begin("sessions");
	for (i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, ents[i]->d_name);
		list_one(dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	out_end();
	if (!opt_json && n <= 0)
		puts("No sessions.");
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

/* rbdadm list: every session and its attributes. */
int cmd_list(int argc, char **argv)
{
	int ret;

	ret = parse_common_opts(argc, argv, usage_list);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		err("list: unexpected argument '%s' (rbdadm show %s shows one session)",
		    argv[optind], argv[optind]);
		return EXIT_USAGE;
	}
	return list_sessions();
}
