/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RBDADM_H
#define RBDADM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Exit statuses, documented in rbdadm(8) and rbdadm --help; scripts
 * rely on them, so a number never changes its meaning.
 */
#define EXIT_OK			0
#define EXIT_FAIL		1	/* any other failure */
#define EXIT_USAGE		2
#define EXIT_AUTH		3	/* authentication required or failed */
#define EXIT_UNREACHABLE	4	/* no route, no rbd portal listening */
#define EXIT_NO_TARGET		5	/* login refused: unknown target */
#define EXIT_ACL		6	/* login refused by the target's ACLs */
#define EXIT_NO_LUN		7	/* login refused: no such LUN */
#define EXIT_NOT_FOUND		8	/* no such device or session */
#define EXIT_NO_MODULE		9	/* rbdi missing or refused by the kernel */

/* A number as a string literal, e.g. RBD_DEFAULT_PORT for help texts. */
#define STR_(x)		#x
#define STR(x)		STR_(x)

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

/*
 * The output options every command takes, for its struct option table:
 * -j/--json and -o/--output-format normal|json (as nvme-cli spells it).
 */
#define OUT_LONG_OPTS						\
	{ "json", no_argument, NULL, 'j' },			\
	{ "output-format", required_argument, NULL, 'o' }

/*
 * Set the output format from the value of -o/--output-format ("normal"
 * or "json"). Returns 0, or EXIT_USAGE after saying why (in output.c).
 */
int out_format_opt(const char *val);

/*
 * Options of the commands that take only the output options and
 * -h/--help (in output.c). Returns -1 to go on, else the command's exit
 * status.
 */
int parse_common_opts(int argc, char **argv, void (*usage)(void));

/*
 * After a command's options: an operand left at optind is a usage error,
 * reported for command @cmd. Returns EXIT_USAGE, or -1 to go on.
 */
int no_operands(int argc, char **argv, const char *cmd);

/*
 * The options before the command (in output.c): -j, -o FORMAT, -h, -V.
 * Returns -1 with *next at the command, or the exit status to return.
 */
int parse_global_opts(int argc, char **argv, int *next, void (*usage)(FILE *f));

/* The table of exit statuses, as rbdadm --help shows it (in status.c). */
void usage_exit_status(FILE *f);

/*
 * The exit status of a login that rbdi refused: from its last_error
 * WHY ("" if none), else from the errno ERR (positive). In status.c.
 */
int login_exit_status(const char *why, int err);
/* A reason for errno E when rbdi recorded none. */
const char *login_error(int e);

/*
 * Whether modprobe's error text OUT says the module is not installed
 * (as opposed to refused by the kernel: a bad signature, a bad parameter).
 */
bool modprobe_not_found(const char *out);

/* Configuration files, documented in rbdadm(8). */
#define RBD_CONF_DIR		"/etc/rbd"
#define RBD_INITIATORNAME_FILE	RBD_CONF_DIR "/initiatorname"
#define RBD_SESSIONS_FILE	RBD_CONF_DIR "/sessions.conf"

int cmd_list(int argc, char **argv);
void usage_list(void);
int list_sessions(void);
int cmd_show(int argc, char **argv);
void usage_show(void);
int cmd_login(int argc, char **argv);
void usage_login(void);
int cmd_logout(int argc, char **argv);
void usage_logout(void);
int cmd_geniname(int argc, char **argv);
int cmd_restore(int argc, char **argv);
void usage_restore(void);
void usage_geniname(void);
int cmd_stats(int argc, char **argv);
void usage_stats(void);
int cmd_rescan(int argc, char **argv);
void usage_rescan(void);
int resolve_session(const char *what, char *name, size_t len);

/* --auth-* options of login and discover (in login.c). */
struct auth_cred;
struct auth_opts {
	const char *user;
	const char *secret_file;
	const char *mutual_user;
	const char *mutual_secret_file;
};
int auth_opts_load(const struct auth_opts *o, const char *cmd,
		   struct auth_cred *ini, struct auth_cred *tgt);

int cmd_discover(int argc, char **argv);
void usage_discover(void);

/* What rbdadm discover collected: one entry per target portal group. */
struct disc_entry {
	char target[224];	/* RBD_NAME_LEN */
	unsigned int tpgt;
	unsigned int index;
	unsigned int nr_luns;
	unsigned long long *luns;
};

struct disc_result {
	struct disc_entry *e;
	unsigned int nr;
	unsigned int nr_entries;	/* as the target counts them */
	unsigned int rounds;		/* responses taken in */
};

struct rbd_discover_rsp;
struct rbd_discover_req;
/* Helpers of discover.c, also unit-tested. */
int disc_next(struct disc_result *res, const struct rbd_discover_rsp *rsp,
	      struct rbd_discover_req *req);
void disc_result_free(struct disc_result *res);

/* Helpers of stats.c, also unit-tested. */
#define BLOCK_STAT_FIELDS	17
int parse_stat_line(const char *line, char *name, size_t nlen,
		    unsigned long long *val, char *str, size_t slen);
int parse_block_stat(const char *s, unsigned long long *v, int max);

/*
 * rbdi's latency histogram, /sys/kernel/debug/rbdi/<session>/latency:
 * buckets of completion latency in microseconds, counted per column.
 */
#define LAT_MAX_BUCKETS	64
enum { LAT_READ, LAT_WRITE, LAT_OTHER, LAT_OPS };

struct lat_bucket {
	unsigned long long lo_us;	/* at least this many us */
	unsigned long long hi_us;	/* less than this; unset if open */
	bool open;			/* the last bucket, ">=lo_us" */
	unsigned long long cnt[LAT_OPS];
};

struct lat_table {
	unsigned int nr;
	struct lat_bucket b[LAT_MAX_BUCKETS];
	unsigned long long total[LAT_OPS];
	/* After a failed parse: the line (1-based, 0: none) and why. */
	unsigned int err_line;
	const char *err;
};

int parse_latency_table(FILE *f, struct lat_table *t);
int lat_percentile(const struct lat_table *t, int op, unsigned int pct);
int load_latency(const char *path, struct lat_table *t);
void print_latency(const struct lat_table *t);

/* Helpers of login.c, also unit-tested. */
int parse_portal(const char *s, char *addr, size_t len, unsigned int *port);
int parse_size(const char *s, unsigned long long *res);
int read_initiatorname(const char *file, char *name, size_t len);
int persist_line_name(const char *line, char *name, size_t len);
int parse_seconds(const char *s, unsigned int *res);

/* Seconds between the tries of rbdadm restore --retry-for (a string). */
#define RESTORE_RETRY_GAP_S	"2"

/*
 * Make sure the rbdi configfs tree exists, loading the module if needed
 * (in status.c). CMD names the command in messages. Returns EXIT_OK, or
 * the exit status after saying why, with modprobe's own words.
 */
int ensure_rbdi(const char *cmd);

/* Make sure debugfs is mounted (in stats.c). Returns 0 or -errno. */
int ensure_debugfs(void);

/*
 * Read configfs attribute DIR/NAME into BUF (trailing newline removed).
 * Returns 0, or -errno.
 */
int read_attr(const char *dir, const char *name, char *buf, size_t len);

#endif
