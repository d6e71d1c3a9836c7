/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RBDADM_H
#define RBDADM_H

#include <stddef.h>

/* Exit statuses, documented in rbdadm(8). */
#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* The initiator's configfs tree (rbdi.ko). */
#define RBDI_CONFIGFS	"/sys/kernel/config/rbdi"

struct cmd {
	const char *name;
	const char *alias;
	const char *summary;
	int (*fn)(int argc, char **argv);
	void (*usage)(void);
};

extern int opt_json;

int cmd_list(int argc, char **argv);
void usage_list(void);

/*
 * Read configfs attribute DIR/NAME into BUF (trailing newline removed).
 * Returns 0, or -errno.
 */
int read_attr(const char *dir, const char *name, char *buf, size_t len);

#endif
