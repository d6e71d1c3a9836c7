// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm login and logout: create, enable, disable and remove sessions in
 * the rbdi configfs tree.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <rbd/rbd_proto.h>

#include "auth.h"
#include "output.h"
#include "rbdadm.h"

/* One attribute to write before enable, with the user's spelling of it. */
struct setting {
	const char *attr;
	const char *option;
	char value[256];
};

/* The outcome of a login, for its output. */
struct login_result {
	char session[256];
	char dev[64];
	bool existing;
};

static int write_attr_len(const char *dir, const char *name, const void *val,
			  size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

static int write_attr(const char *dir, const char *name, const char *val)
{
	return write_attr_len(dir, name, val, strlen(val));
}

/**
 * auth_opts_load() - the credentials the --auth-* options name
 * @o: The options given.
 * @cmd: "login" or "discover", for messages.
 * @ini: Receives the user and secret this initiator proves.
 * @tgt: Receives those the target must prove (user empty: not asked).
 *
 * Return: 1 with credentials, 0 without any option, or an exit status
 * (EXIT_USAGE, EXIT_FAIL) after printing why.
 */
int auth_opts_load(const struct auth_opts *o, const char *cmd,
		   struct auth_cred *ini, struct auth_cred *tgt)
{
	char why[512];

	memset(ini, 0, sizeof(*ini));
	memset(tgt, 0, sizeof(*tgt));
	if (!o->user && !o->secret_file && !o->mutual_user &&
	    !o->mutual_secret_file)
		return 0;
	if (!o->user != !o->secret_file) {
		err("%s: --auth-user and --auth-secret-file go together", cmd);
		return -EXIT_USAGE;
	}
	if (!o->mutual_user != !o->mutual_secret_file) {
		err("%s: --auth-mutual-user and --auth-mutual-secret-file go together", cmd);
		return -EXIT_USAGE;
	}
	if (!o->user) {
		err("%s: mutual authentication needs --auth-user and --auth-secret-file too", cmd);
		return -EXIT_USAGE;
	}
	if (auth_load_cred(ini, o->user, o->secret_file, why, sizeof(why))) {
		err("%s: %s", cmd, why);
		return -EXIT_FAIL;
	}
	if (o->mutual_user &&
	    auth_load_cred(tgt, o->mutual_user, o->mutual_secret_file, why,
			   sizeof(why))) {
		auth_cred_clear(ini);
		err("%s: %s", cmd, why);
		return -EXIT_FAIL;
	}
	if (o->mutual_user && ini->secret_len == tgt->secret_len &&
	    !memcmp(ini->secret, tgt->secret, ini->secret_len)) {
		auth_cred_clear(ini);
		auth_cred_clear(tgt);
		err("%s: the mutual secret must differ from the initiator's", cmd);
		return -EXIT_USAGE;
	}
	return 1;
}

/* Write the credentials to the session; 0 or a negative errno. */
static int write_auth(const char *dir, const struct auth_cred *ini,
		      const struct auth_cred *tgt)
{
	int ret;

	ret = write_attr(dir, "auth_user", ini->user);
	if (!ret)
		ret = write_attr_len(dir, "auth_secret", ini->secret,
				     ini->secret_len);
	if (!ret && tgt->user[0])
		ret = write_attr(dir, "auth_mutual_user", tgt->user);
	if (!ret && tgt->user[0])
		ret = write_attr_len(dir, "auth_mutual_secret", tgt->secret,
				     tgt->secret_len);
	return ret;
}

/* Parse "ADDR", "ADDR:PORT", "[V6]" or "[V6]:PORT" into addr and port. */
int parse_portal(const char *s, char *addr, size_t len, unsigned int *port)
{
	const char *end, *colon;
	unsigned char buf[sizeof(struct in6_addr)];
	char *ep;
	unsigned long p;
	size_t alen;

	*port = RBD_DEFAULT_PORT;
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end)
			return -1;
		alen = end - s - 1;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return -1;
		s++;
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;	/* a bare IPv6 address without a port */
		alen = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (alen == 0 || alen >= len)
		return -1;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, buf) != 1 && inet_pton(AF_INET6, addr, buf) != 1)
		return -1;
	if (colon) {
		errno = 0;
		p = strtoul(colon + 1, &ep, 10);
		if (errno || *ep || ep == colon + 1 || p < 1 || p > 65535)
			return -1;
		*port = p;
	}
	return 0;
}

/* Parse a size with an optional K, M or G suffix (powers of 1024). */
int parse_size(const char *s, unsigned long long *res)
{
	unsigned long long v;
	char *ep;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &ep, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*ep)) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		ep++;
		if (toupper((unsigned char)*ep) == 'I')
			ep++;
		if (toupper((unsigned char)*ep) == 'B')
			ep++;
		break;
	default:
		break;
	}
	if (*ep)
		return -1;
	*res = v;
	return 0;
}

/* Read /etc/rbd/initiatorname ("InitiatorName=NAME", # comments). */
int read_initiatorname(const char *file, char *name, size_t len)
{
	char line[512];
	FILE *f;
	int ret = -ENOENT;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v, *e;

		if (strncmp(line, "InitiatorName=", 14))
			continue;
		v = line + 14;
		e = v + strcspn(v, " \t\r\n");
		*e = '\0';
		if (!*v || (size_t)(e - v) >= len)
			continue;
		strcpy(name, v);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool attr_is(const char *dir, const char *name, const char *want)
{
	char val[512];

	return !read_attr(dir, name, val, sizeof(val)) && !strcmp(val, want);
}

/*
 * Find a session for the same address, port, target, LUN and initiator;
 * copy its name into NAME. Returns 1 if found, 0 if not.
 */
static int find_session(const char *addr, unsigned int port, const char *target,
			unsigned long long lun, const char *initiator,
			char *name, size_t len)
{
	char dir[PATH_MAX], buf[32];
	struct dirent *de;
	DIR *d;
	int found = 0;

	d = opendir(RBDI_CONFIGFS);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, de->d_name);
		snprintf(buf, sizeof(buf), "%u", port);
		if (!attr_is(dir, "traddr", addr) || !attr_is(dir, "trsvcid", buf) ||
		    !attr_is(dir, "target", target) || !attr_is(dir, "initiator", initiator))
			continue;
		snprintf(buf, sizeof(buf), "%llu", lun);
		if (!attr_is(dir, "lun", buf))
			continue;
		snprintf(name, len, "%s", de->d_name);
		found = 1;
		break;
	}
	closedir(d);
	return found;
}

static void new_session_name(char *name, size_t len)
{
	char dir[PATH_MAX];
	int i;

	for (i = 0; ; i++) {
		snprintf(name, len, "sess%d", i);
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
		if (!is_dir(dir))
			return;
	}
}

/* Wait up to 10 s for /dev/NAME to appear (devtmpfs or udev). */
static int wait_dev(const char *dev)
{
	char path[PATH_MAX];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	for (i = 0; i < 200; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/*
 * Persistent logins: RBD_SESSIONS_FILE holds one login per line, as the
 * options of "rbdadm login" (the first is always --name NAME); lines
 * starting with # are comments. rbdadm restore replays them at boot.
 */
static int persist_remove(const char *name)
{
	char tmp[PATH_MAX], line[4096], want[300];
	FILE *in, *out;
	int found = 0;

	in = fopen(RBD_SESSIONS_FILE, "re");
	if (!in)
		return errno == ENOENT ? 0 : -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", RBD_SESSIONS_FILE);
	out = fopen(tmp, "we");
	if (!out) {
		fclose(in);
		return -errno;
	}
	snprintf(want, sizeof(want), "--name %s ", name);
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, want, strlen(want))) {
			found = 1;
			continue;
		}
		fputs(line, out);
	}
	fclose(in);
	if (fclose(out) || rename(tmp, RBD_SESSIONS_FILE)) {
		unlink(tmp);
		return -errno;
	}
	return found;
}

/**
 * persist_line_name() - the session a line of the sessions file names
 * @line: The line, "--name NAME OPTIONS...".
 * @name: Receives NAME.
 * @len: Size of @name.
 *
 * Return: 0, or -1 for a comment, a blank line or a line without a name.
 */
int persist_line_name(const char *line, char *name, size_t len)
{
	size_t n;

	line += strspn(line, " \t");
	if (strncmp(line, "--name", 6) || (line[6] != ' ' && line[6] != '\t'))
		return -1;
	line += 6;
	line += strspn(line, " \t");
	n = strcspn(line, " \t\r\n");
	if (!n || n >= len)
		return -1;
	memcpy(name, line, n);
	name[n] = '\0';
	return 0;
}

static int persist_add(const char *name, int argc, char **argv)
{
	FILE *f;
	int i, ret;

	ret = persist_remove(name);
	if (ret < 0)
		return ret;
	if (mkdir(RBD_CONF_DIR, 0755) && errno != EEXIST)
		return -errno;
	f = fopen(RBD_SESSIONS_FILE, "ae");
	if (!f)
		return -errno;
	fprintf(f, "--name %s", name);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--persist") || !strcmp(argv[i], "-j") ||
		    !strcmp(argv[i], "--json") || !strncmp(argv[i], "--output-format=", 16))
			continue;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output-format")) {
			i++;	/* the output format is not the session's */
			continue;
		}
		if (!strncmp(argv[i], "-o", 2))
			continue;
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--name")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--name=", 7))
			continue;
		fprintf(f, " %s", argv[i]);
	}
	fputc('\n', f);
	return fclose(f) ? -errno : 0;
}

void usage_login(void)
{
	puts("Usage: rbdadm login -a ADDR[:PORT] -t TARGET [options]\n"
	     "\n"
	     "Log in to LUN of TARGET at ADDR (IPv4, or IPv6 in brackets:\n"
	     "[fd00::1]:65000) and print the block device, e.g. /dev/rbdi0.\n"
	     "Logging in again to the same address, target and LUN says so and\n"
	     "prints the existing device.\n"
	     "\n"
	     "Options:\n"
	     "  -a, --address ADDR[:PORT]   target portal (port " STR(RBD_DEFAULT_PORT)
	     " by default)\n"
	     "  -t, --target NAME           target name (iqn., naa. or eui.)\n"
	     "  -l, --lun N                 LUN (default 0)\n"
	     "  -I, --initiator NAME        initiator name (default: /etc/rbd/initiatorname)\n"
	     "  -s, --source ADDR           source address\n"
	     "  -n, --name NAME             session name (default: sessN)\n"
	     "  -q, --queues N              I/O queues (default: online CPUs)\n"
	     "      --poll-queues N         extra queues, polled, for io_uring --hipri\n"
	     "                              I/O (default 0)\n"
	     "  -d, --queue-depth N         commands per queue (default 128)\n"
	     "  -m, --max-io SIZE           largest I/O, e.g. 1M (default 1M)\n"
	     "      --inline SIZE           largest inline write (default 4K)\n"
	     "      --imm-read SIZE         largest immediate read (default 4K)\n"
	     "      --bare-reads 0|1        offer bare read responses (default 1)\n"
	     "      --rsp-batches 0|1       offer response batches (default 1)\n"
	     "      --io-timeout SEC        request timeout (default 30)\n"
	     "      --reconnect-delay SEC   between reconnect attempts (default 10)\n"
	     "      --ctrl-loss-tmo SEC     give up reconnecting after (default 600, -1 never)\n"
	     "      --fast-io-fail-tmo SEC  fail I/O while reconnecting after (default off)\n"
	     "      --auth-user USER        authenticate as USER (the target's auth userid)\n"
	     "      --auth-secret-file FILE USER's secret, 12 to 255 bytes, in a file only\n"
	     "                              its owner can read\n"
	     "      --auth-mutual-user USER the target must prove it is USER (userid_mutual)\n"
	     "      --auth-mutual-secret-file FILE  that user's secret\n"
	     "      --persist               record the login in " RBD_SESSIONS_FILE ";\n"
	     "                              rbd-sessions.service logs in again at boot\n"
	     "  -j, --json                  JSON output (also -o json, --output-format=json):\n"
	     "                              device, session, existing");
}

/* What the options of rbdadm login ask for. */
struct login_req {
	const char *portal, *target, *initiator, *source, *sname;
	unsigned long long lun;
	struct setting set[16];
	int nset;
	struct auth_opts ao;
	bool persist;
	/* Set by login_parse() and login_prepare(). */
	char addr[INET6_ADDRSTRLEN + 16], srcaddr[INET6_ADDRSTRLEN + 16];
	unsigned int port;
	char ininame[256];
	int have_auth;
	struct auth_cred ini_cred, tgt_cred;
};

enum { O_INLINE = 256, O_IMM, O_IOTMO, O_RDELAY, O_LOSS, O_FAST, O_PERSIST,
       O_POLL, O_AUSER, O_ASECRET, O_AMUSER, O_AMSECRET, O_BARE, O_BATCH };

static const struct option login_opts[] = {
	{ "address", required_argument, NULL, 'a' },
	{ "target", required_argument, NULL, 't' },
	{ "lun", required_argument, NULL, 'l' },
	{ "initiator", required_argument, NULL, 'I' },
	{ "source", required_argument, NULL, 's' },
	{ "name", required_argument, NULL, 'n' },
	{ "queues", required_argument, NULL, 'q' },
	{ "poll-queues", required_argument, NULL, O_POLL },
	{ "queue-depth", required_argument, NULL, 'd' },
	{ "max-io", required_argument, NULL, 'm' },
	{ "inline", required_argument, NULL, O_INLINE },
	{ "imm-read", required_argument, NULL, O_IMM },
	{ "bare-reads", required_argument, NULL, O_BARE },
	{ "rsp-batches", required_argument, NULL, O_BATCH },
	{ "io-timeout", required_argument, NULL, O_IOTMO },
	{ "reconnect-delay", required_argument, NULL, O_RDELAY },
	{ "ctrl-loss-tmo", required_argument, NULL, O_LOSS },
	{ "fast-io-fail-tmo", required_argument, NULL, O_FAST },
	{ "persist", no_argument, NULL, O_PERSIST },
	{ "auth-user", required_argument, NULL, O_AUSER },
	{ "auth-secret-file", required_argument, NULL, O_ASECRET },
	{ "auth-mutual-user", required_argument, NULL, O_AMUSER },
	{ "auth-mutual-secret-file", required_argument, NULL, O_AMSECRET },
	OUT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options that set an rbdi attribute before enable. */
static const struct {
	int opt;
	const char *attr;
	const char *option;
	bool size;
} login_tunables[] = {
	{ 'q', "nr_queues", "--queues", false },
	{ O_POLL, "nr_poll_queues", "--poll-queues", false },
	{ 'd', "queue_depth", "--queue-depth", false },
	{ 'm', "max_io_size", "--max-io", true },
	{ O_INLINE, "inline_data_size", "--inline", true },
	{ O_IMM, "imm_read_size", "--imm-read", true },
	{ O_BARE, "bare_reads", "--bare-reads", false },
	{ O_BATCH, "rsp_batches", "--rsp-batches", false },
	{ O_IOTMO, "io_timeout", "--io-timeout", false },
	{ O_RDELAY, "reconnect_delay", "--reconnect-delay", false },
	{ O_LOSS, "ctrl_loss_tmo", "--ctrl-loss-tmo", false },
	{ O_FAST, "fast_io_fail_tmo", "--fast-io-fail-tmo", false },
};

/* Record tunable option C with value ARG. Returns -1, or EXIT_USAGE. */
static int login_tunable(struct login_req *r, int c, const char *arg)
{
	struct setting *s = &r->set[r->nset];
	unsigned long long v;
	long long n;
	size_t i;
	char *ep;

	for (i = 0; i < sizeof(login_tunables) / sizeof(login_tunables[0]); i++)
		if (login_tunables[i].opt == c)
			break;
	if (i == sizeof(login_tunables) / sizeof(login_tunables[0])) {
		usage_login();
		return EXIT_USAGE;
	}
	if (r->nset == (int)(sizeof(r->set) / sizeof(r->set[0]))) {
		err("login: too many options");
		return EXIT_USAGE;
	}
	s->attr = login_tunables[i].attr;
	s->option = login_tunables[i].option;
	if (login_tunables[i].size) {
		if (parse_size(arg, &v)) {
			err("login: %s: invalid size '%s' (e.g. 4096, 64K, 1M)", s->option, arg);
			return EXIT_USAGE;
		}
		snprintf(s->value, sizeof(s->value), "%llu", v);
	} else {
		errno = 0;
		n = strtoll(arg, &ep, 10);
		if (errno || *ep || !*arg) {
			err("login: %s: invalid number '%s'", s->option, arg);
			return EXIT_USAGE;
		}
		snprintf(s->value, sizeof(s->value), "%lld", n);
	}
	r->nset++;
	return -1;
}

/* Take option C of login. Returns -1 to go on, else the exit status. */
static int login_opt(struct login_req *r, int c, const char *arg)
{
	char *ep;

	switch (c) {
	case 'a': r->portal = arg; return -1;
	case 't': r->target = arg; return -1;
	case 'I': r->initiator = arg; return -1;
	case 's': r->source = arg; return -1;
	case 'n': r->sname = arg; return -1;
	case 'j': opt_json = 1; return -1;
	case 'o': return out_format_opt(arg) ? EXIT_USAGE : -1;
	case O_PERSIST: r->persist = true; return -1;
	case O_AUSER: r->ao.user = arg; return -1;
	case O_ASECRET: r->ao.secret_file = arg; return -1;
	case O_AMUSER: r->ao.mutual_user = arg; return -1;
	case O_AMSECRET: r->ao.mutual_secret_file = arg; return -1;
	case 'h': usage_login(); return EXIT_OK;
	case 'l':
		errno = 0;
		r->lun = strtoull(arg, &ep, 0);
		if (errno || *ep || !*arg || arg[0] == '-') {
			err("login: invalid LUN '%s'", arg);
			return EXIT_USAGE;
		}
		return -1;
	default:
		return login_tunable(r, c, arg);
	}
}

/* Check what the options ask for. Returns -1 to go on, else the status. */
static int login_check(struct login_req *r, int argc, char **argv)
{
	const struct auth_opts *ao = &r->ao;
	unsigned int unused;
	int ret;

	ret = no_operands(argc, argv, "login");
	if (ret >= 0)
		return ret;
	if (!r->portal || !r->target) {
		err("login: -a ADDR[:PORT] and -t TARGET are required (see rbdadm login --help)");
		return EXIT_USAGE;
	}
	if (r->persist && ((ao->secret_file && ao->secret_file[0] != '/') ||
			   (ao->mutual_secret_file && ao->mutual_secret_file[0] != '/'))) {
		err("login: --persist needs absolute paths of the secret files (restore runs from another directory)");
		return EXIT_USAGE;
	}
	r->have_auth = auth_opts_load(ao, "login", &r->ini_cred, &r->tgt_cred);
	if (r->have_auth < 0)
		return -r->have_auth;
	if (parse_portal(r->portal, r->addr, sizeof(r->addr), &r->port)) {
		err("login: invalid address '%s': expected IPv4[:PORT] or [IPv6][:PORT]", r->portal);
		return EXIT_USAGE;
	}
	if (r->source) {
		if (parse_portal(r->source, r->srcaddr, sizeof(r->srcaddr), &unused)) {
			err("login: invalid source address '%s'", r->source);
			return EXIT_USAGE;
		}
		r->source = r->srcaddr;	/* without brackets */
	}
	return -1;
}

/* Parse login's options into R. Returns -1 to go on, else the status. */
static int login_parse(struct login_req *r, int argc, char **argv)
{
	int c, ret;

	optind = 0;	/* a full reset of getopt, for a second parse */
	while ((c = getopt_long(argc, argv, "a:t:l:I:s:n:q:d:m:jo:h", login_opts,
				NULL)) != -1) {
		ret = login_opt(r, c, optarg);
		if (ret >= 0)
			return ret;
	}
	return login_check(r, argc, argv);
}

/* The initiator name, root, rbdi. Returns -1 to go on, else the status. */
static int login_prepare(struct login_req *r)
{
	int ret;

	if (!r->initiator) {
		if (read_initiatorname(RBD_INITIATORNAME_FILE, r->ininame,
				       sizeof(r->ininame))) {
			err("login: no initiator name: pass --initiator NAME or create %s (InitiatorName=iqn....; make install generates one)",
			    RBD_INITIATORNAME_FILE);
			return EXIT_FAIL;
		}
		r->initiator = r->ininame;
	}
	if (geteuid() != 0) {
		err("login: not root: logging in needs root (it writes the rbdi configfs tree)");
		return EXIT_FAIL;
	}
	ret = ensure_rbdi("login");
	return ret ? ret : -1;
}

/*
 * A session for the same portal, target, LUN and initiator exists: if it
 * is logged in, that is the result. Returns the exit status.
 */
static int login_existing(const char *name, struct login_result *res)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (attr_is(dir, "enable", "1") &&
	    !read_attr(dir, "device", res->dev, sizeof(res->dev)) && *res->dev) {
		res->existing = true;
		return EXIT_OK;
	}
	err("login: session %s exists for this target but is not logged in; log it out first (rbdadm logout %s)",
	    name, name);
	return EXIT_FAIL;
}

/* Write the portal, names and LUN to the new session DIR. 0 or -1. */
static int login_write_names(const struct login_req *r, const char *dir)
{
	char port[32], lun[32];
	const struct { const char *attr; const char *val; const char *what; } base[] = {
		{ "traddr", r->addr, "address" },
		{ "trsvcid", port, "port" },
		{ "target", r->target, "target name" },
		{ "initiator", r->initiator, "initiator name" },
		{ "src_addr", r->source, "source address" },
		{ "lun", lun, "LUN" },
	};
	size_t i;
	int ret;

	snprintf(port, sizeof(port), "%u", r->port);
	snprintf(lun, sizeof(lun), "%llu", r->lun);
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		if (!base[i].val)
			continue;
		ret = write_attr(dir, base[i].attr, base[i].val);
		if (ret) {
			err("login: invalid %s '%s' (%s)", base[i].what, base[i].val,
			    strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* Write everything but enable to the new session DIR. 0 or -1. */
static int login_write_attrs(struct login_req *r, const char *dir)
{
	int i, ret;

	if (login_write_names(r, dir))
		return -1;
	if (r->have_auth) {
		ret = write_auth(dir, &r->ini_cred, &r->tgt_cred);
		auth_cred_clear(&r->ini_cred);
		auth_cred_clear(&r->tgt_cred);
		if (ret) {
			err("login: credentials refused by rbdi (%s; the kernel log says why)",
			    strerror(-ret));
			return -1;
		}
	}
	for (i = 0; i < r->nset; i++) {
		ret = write_attr(dir, r->set[i].attr, r->set[i].value);
		if (ret) {
			err("login: %s %s refused by rbdi (%s; the kernel log says why)",
			    r->set[i].option, r->set[i].value, strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/*
 * Enabling session DIR failed with errno ERR: say why, as rbdi recorded
 * it in last_error (errno alone is ambiguous). Returns the exit status.
 */
static int login_enable_failed(const struct login_req *r, const char *dir, int e)
{
	char why[256] = "";
	const char *hint = "";
	int status;

	read_attr(dir, "last_error", why, sizeof(why));
	status = login_exit_status(why, e);
	if (!*why)
		snprintf(why, sizeof(why), "%s", login_error(e));
	if (status == EXIT_AUTH)
		hint = strstr(why, "mutual") ?
		       " (it did not prove the secret of --auth-mutual-user: another secret, or not the target meant)" :
		       r->have_auth ? " (check --auth-user and the secret; the target's log says why)" :
		       " (give --auth-user and --auth-secret-file)";
	err("login: %s:%u %s: %s%s", r->addr, r->port, r->target, why, hint);
	return status;
}

/* Create session RES->session, log it in. Returns the exit status. */
static int login_new(struct login_req *r, struct login_result *res)
{
	char dir[PATH_MAX];
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, res->session);
	if (mkdir(dir, 0755)) {
		err("login: cannot create session %s: %s%s", res->session, strerror(errno),
		    errno == EEXIST ? " (choose another --name)" :
		    errno == EINVAL ? " (names: letters, digits, . _ -)" : "");
		return EXIT_FAIL;
	}
	if (login_write_attrs(r, dir))
		goto fail;
	ret = write_attr(dir, "enable", "1");
	if (ret) {
		ret = login_enable_failed(r, dir, -ret);
		rmdir(dir);
		return ret;
	}
	if (read_attr(dir, "device", res->dev, sizeof(res->dev)) || !*res->dev) {
		err("login: logged in but rbdi reports no device");
		write_attr(dir, "enable", "0");
		goto fail;
	}
	if (wait_dev(res->dev))
		err("login: warning: /dev/%s did not appear within 10 s", res->dev);
	return EXIT_OK;
fail:
	rmdir(dir);
	return EXIT_FAIL;
}

/* Record the login of session NAME (new or existing) for restore. */
static void login_persist(const char *name, int argc, char **argv)
{
	int ret;

	ret = persist_add(name, argc, argv);
	if (ret)
		err("login: warning: logged in, but cannot record it in %s: %s",
		    RBD_SESSIONS_FILE, strerror(-ret));
}

/* rbdadm login without its output (restore uses it). */
static int login_run(int argc, char **argv, struct login_result *res)
{
	struct login_req r = {};
	int ret;

	memset(res, 0, sizeof(*res));
	ret = login_parse(&r, argc, argv);
	if (ret < 0)
		ret = login_prepare(&r);
	if (ret >= 0)
		goto out;
	if (find_session(r.addr, r.port, r.target, r.lun, r.initiator,
			 res->session, sizeof(res->session))) {
		ret = login_existing(res->session, res);
		if (!ret && r.persist)
			login_persist(res->session, argc, argv);
		goto out;
	}
	if (r.sname)
		snprintf(res->session, sizeof(res->session), "%s", r.sname);
	else
		new_session_name(res->session, sizeof(res->session));
	ret = login_new(&r, res);
	if (!ret && r.persist)
		login_persist(res->session, argc, argv);
out:
	auth_cred_clear(&r.ini_cred);
	auth_cred_clear(&r.tgt_cred);
	return ret;
}

/* The result of one login: a record in JSON, a line in text. */
static void login_print(const struct login_result *res)
{
	if (!opt_json) {
		if (res->existing)
			printf("already logged in: /dev/%s (session %s)\n", res->dev,
			       res->session);
		else
			printf("/dev/%s\n", res->dev);
		return;
	}
	out_str("device", "Device:", res->dev);
	out_str("session", "Session:", res->session);
	out_bool("existing", "Existing:", res->existing);
}

int cmd_login(int argc, char **argv)
{
	struct login_result res;
	int ret;

	ret = login_run(argc, argv, &res);
	if (ret || !*res.dev)
		return ret;
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	login_print(&res);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

/* Resolve DEVICE (/dev/rbdiN or rbdiN) or SESSION to a session name. */
int resolve_session(const char *what, char *name, size_t len)
{
	char dir[PATH_MAX], dev[64];
	const char *want = what;
	struct dirent *de;
	DIR *d;
	int found = 0;

	if (!strncmp(want, "/dev/", 5))
		want += 5;
	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, what);
	if (!strchr(what, '/') && is_dir(dir)) {
		snprintf(name, len, "%s", what);
		return 0;
	}
	d = opendir(RBDI_CONFIGFS);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, de->d_name);
		if (!read_attr(dir, "device", dev, sizeof(dev)) && !strcmp(dev, want)) {
			snprintf(name, len, "%s", de->d_name);
			found = 1;
			break;
		}
	}
	closedir(d);
	return found ? 0 : -1;
}

/* Is /dev/DEV mounted, held by another device, or opened exclusively? */
static const char *device_busy(const char *dev)
{
	char path[PATH_MAX], line[1024];
	DIR *d;
	struct dirent *de;
	FILE *f;
	int fd;

	f = fopen("/proc/mounts", "re");
	if (f) {
		snprintf(path, sizeof(path), "/dev/%s", dev);
		while (fgets(line, sizeof(line), f)) {
			size_t n = strlen(path);

			if (!strncmp(line, path, n) && (line[n] == ' ' || line[n] == 'p')) {
				fclose(f);
				return "mounted";
			}
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/sys/block/%s/holders", dev);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] != '.') {
				closedir(d);
				return "held by another device (e.g. device-mapper or md)";
			}
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return "in use";
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Session NAME (/dev/DEV) is logged out: a line, or a JSON record. */
static void logout_print(const char *name, const char *dev)
{
	if (opt_json) {
		out_record_begin();
		out_str("session", "Session:", name);
		out_str("device", "Device:", dev);
		out_end();
	} else if (*dev) {
		printf("logged out /dev/%s\n", dev);
	} else {
		printf("logged out session %s\n", name);
	}
}

static int logout_one(const char *name, bool force, bool keep)
{
	char dir[PATH_MAX], dev[64] = "";
	const char *busy;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	read_attr(dir, "device", dev, sizeof(dev));
	if (*dev && !force) {
		busy = device_busy(dev);
		if (busy) {
			err("logout: /dev/%s is %s; unmount it first or use --force (outstanding I/O then fails)",
			    dev, busy);
			return EXIT_FAIL;
		}
	}
	if (attr_is(dir, "enable", "1")) {
		ret = write_attr(dir, "enable", "0");
		if (ret) {
			err("logout: session %s: cannot log out: %s", name, strerror(-ret));
			return EXIT_FAIL;
		}
	}
	if (rmdir(dir)) {
		err("logout: session %s: cannot remove %s: %s", name, dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (!keep && persist_remove(name) < 0)
		err("logout: warning: cannot update %s: %s", RBD_SESSIONS_FILE, strerror(errno));
	logout_print(name, dev);
	return EXIT_OK;
}

void usage_logout(void)
{
	puts("Usage: rbdadm logout [-j|-o json] DEVICE|SESSION [--force] [--keep-persistent]\n"
	     "       rbdadm logout [-j|-o json] --all [--force] [--keep-persistent]\n"
	     "       rbdadm logout [-j|-o json] --persisted [--force]\n"
	     "\n"
	     "Log out and remove a session, named by its device (/dev/rbdi0 or\n"
	     "rbdi0) or its session name. A device that is mounted, held by\n"
	     "another device or opened exclusively is refused unless --force is\n"
	     "given; with --force its outstanding I/O fails with an I/O error.\n"
	     "A login recorded with --persist is forgotten too, unless\n"
	     "--keep-persistent is given. --persisted logs out only the\n"
	     "sessions named in " RBD_SESSIONS_FILE " and keeps the file\n"
	     "(rbd-sessions.service does so when stopped); sessions logged in\n"
	     "without --persist stay. JSON: the list logged_out of the sessions\n"
	     "logged out.");
}

/* Log out every session. Returns the exit status. */
static int logout_all(bool force, bool keep)
{
	struct dirent **ents;
	int n, i, rc = EXIT_OK;

	n = scandir(RBDI_CONFIGFS, &ents, NULL, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return EXIT_OK;	/* rbdi not loaded: no sessions */
		err("logout: cannot read %s: %s", RBDI_CONFIGFS, strerror(errno));
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && ents[i]->d_type == DT_DIR &&
		    logout_one(ents[i]->d_name, force, keep) != EXIT_OK)
			rc = EXIT_FAIL;
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/*
 * Log out the sessions named in the sessions file, keeping the file:
 * those rbd-sessions.service logged in, not those an admin logged in
 * by hand. Returns the exit status.
 */
static int logout_persisted(bool force)
{
	char line[4096], name[256], dir[PATH_MAX];
	int rc = EXIT_OK;
	FILE *f;

	f = fopen(RBD_SESSIONS_FILE, "re");
	if (!f) {
		if (errno == ENOENT)
			return EXIT_OK;
		err("logout: cannot read %s: %s", RBD_SESSIONS_FILE, strerror(errno));
		return EXIT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (persist_line_name(line, name, sizeof(name)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
		if (is_dir(dir) && logout_one(name, force, true) != EXIT_OK)
			rc = EXIT_FAIL;
	}
	fclose(f);
	return rc;
}

/* Log out the session WHAT names. Returns the exit status. */
static int logout_named(const char *what, bool force, bool keep)
{
	char name[256];

	if (resolve_session(what, name, sizeof(name))) {
		err("logout: no such device or session '%s'%s", what,
		    is_dir(RBDI_CONFIGFS) ? "" : " (rbdi is not loaded)");
		return EXIT_NOT_FOUND;
	}
	return logout_one(name, force, keep);
}

int cmd_logout(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "keep-persistent", no_argument, NULL, 'k' },
		{ "persisted", no_argument, NULL, 'p' },
		OUT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool all = false, force = false, keep = false, persisted = false;
	int c, rc;

	optind = 0;	/* a full reset of getopt, for a second parse */
	while ((c = getopt_long(argc, argv, "afkjo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'f': force = true; break;
		case 'k': keep = true; break;
		case 'p': persisted = true; break;
		case 'j': opt_json = 1; break;
		case 'o': if (out_format_opt(optarg)) return EXIT_USAGE; break;
		case 'h': usage_logout(); return EXIT_OK;
		default: usage_logout(); return EXIT_USAGE;
		}
	}
	if (all + persisted + (optind < argc) != 1 || argc - optind > 1) {
		err("logout: name one DEVICE or SESSION, or --all, or --persisted (see rbdadm logout --help)");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("logout: not root: logging out needs root");
		return EXIT_FAIL;
	}
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_list_begin("logged_out");
	if (persisted)
		rc = logout_persisted(force);
	else
		rc = all ? logout_all(force, keep) : logout_named(argv[optind], force, keep);
	out_end();
	if (out_finish() && rc == EXIT_OK)
		rc = EXIT_FAIL;
	return rc;
}

void usage_geniname(void)
{
	puts("Usage: rbdadm gen-initiatorname [-j|-o json]\n"
	     "\n"
	     "Print a new, unique initiator name such as\n"
	     "iqn.2026-12.org.rbd:host.1f2e3d4c5b6a, for " RBD_INITIATORNAME_FILE ".\n"
	     "make install writes one there when the file does not exist.\n"
	     "JSON: initiator_name.");
}

/* A new initiator name into NAME: iqn.2026-12.org.rbd:HOST.RANDOM. */
static int gen_iname(char *name, size_t len)
{
	unsigned char rnd[6];
	char host[64] = "host", *p;
	int fd, i, n;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (gethostname(host, sizeof(host) - 1) == 0)
		host[sizeof(host) - 1] = '\0';
	/* IQN names are compared byte for byte: lowercase, [a-z0-9-] only. */
	for (p = host; *p; p++) {
		*p = tolower((unsigned char)*p);
		if (!isalnum((unsigned char)*p) && *p != '-')
			*p = '-';
	}
	if (!*host || *host == '-')
		strcpy(host, "host");
	n = snprintf(name, len, "iqn.2026-12.org.rbd:%s.", host);
	for (i = 0; i < (int)sizeof(rnd); i++)
		n += snprintf(name + n, len - n, "%02x", rnd[i]);
	return 0;
}

int cmd_geniname(int argc, char **argv)
{
	char name[128];
	int ret;

	ret = parse_common_opts(argc, argv, usage_geniname);
	if (ret >= 0)
		return ret;
	ret = no_operands(argc, argv, "gen-initiatorname");
	if (ret >= 0)
		return ret;
	if (gen_iname(name, sizeof(name))) {
		err("gen-initiatorname: cannot read /dev/urandom");
		return EXIT_FAIL;
	}
	if (!opt_json) {
		puts(name);
		return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	out_init(OUT_JSON);
	out_str("initiator_name", "Initiator name:", name);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

void usage_restore(void)
{
	puts("Usage: rbdadm restore [-j|-o json] [--retry-for SECONDS]\n"
	     "\n"
	     "Log in to every session recorded with login --persist in\n"
	     RBD_SESSIONS_FILE ". Sessions that exist already are left alone.\n"
	     "rbd-sessions.service runs this at boot, after the network is up.\n"
	     "With --retry-for, failed logins (but bad options) are tried again\n"
	     "every " RESTORE_RETRY_GAP_S " s for up to SECONDS, for a target or a\n"
	     "network that comes up later; each failure is logged with its cause.\n"
	     "The exit status is that of the first login that failed for good.\n"
	     "JSON: the list sessions, per line of the file: line, session,\n"
	     "device, existing, attempts and exit_status.");
}

/**
 * parse_seconds() - a number of seconds, as --retry-for takes it
 * @s: Decimal digits, at most 86400 (a day).
 * @res: Receives the number.
 *
 * Return: 0, or -1 if @s is not such a number.
 */
int parse_seconds(const char *s, unsigned int *res)
{
	unsigned long v;
	char *ep;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &ep, 10);
	if (errno || *ep || v > 86400)
		return -1;
	*res = v;
	return 0;
}

/* One login of the sessions file, and how restore fared with it. */
struct restore_entry {
	char *text;
	int lineno;
	int status;
	unsigned int attempts;
	bool done;
	struct login_result res;
};

/* Try the login of E once; E->done once it needs no other try. */
static void restore_try(struct restore_entry *e)
{
	char line[4096], *args[64], *tok, *save;
	int n = 0, json = opt_json;

	snprintf(line, sizeof(line), "%s", e->text);
	args[n++] = "login";
	for (tok = strtok_r(line, " \t", &save); tok && n < 63;
	     tok = strtok_r(NULL, " \t", &save))
		args[n++] = tok;
	args[n] = NULL;
	e->attempts++;
	e->status = login_run(n, args, &e->res);
	opt_json = json;	/* the file's options do not choose the output */
	/* Bad options in the file do not get better with time. */
	e->done = e->status == EXIT_OK || e->status == EXIT_USAGE;
}

/* Read the logins of the sessions file F into *ENTS. Returns their number. */
static int restore_read(FILE *f, struct restore_entry **ents)
{
	char line[4096];
	struct restore_entry *e = NULL, *ne;
	int n = 0, lineno = 0;

	while (f && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		ne = realloc(e, (n + 1) * sizeof(*e));
		if (!ne)
			break;
		e = ne;
		memset(&e[n], 0, sizeof(e[n]));
		e[n].text = strdup(line);
		e[n].lineno = lineno;
		if (e[n].text)
			n++;
	}
	*ents = e;
	return n;
}

/* Try every pending login once; log each failure. Returns those pending. */
static int restore_round(struct restore_entry *e, int n, bool retry)
{
	int i, pending = 0;

	for (i = 0; i < n; i++) {
		if (e[i].done)
			continue;
		restore_try(&e[i]);
		if (e[i].done)
			continue;
		pending++;
		err("restore: %s line %d failed (exit status %d, attempt %u)%s",
		    RBD_SESSIONS_FILE, e[i].lineno, e[i].status, e[i].attempts,
		    retry ? "; will retry" : "");
	}
	return pending;
}

/* Log in as the file says, retrying for up to RETRY_FOR seconds. */
static void restore_all(struct restore_entry *e, int n, unsigned int retry_for)
{
	struct timespec now, end;
	unsigned int gap = atoi(RESTORE_RETRY_GAP_S);
	long left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += retry_for;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = end.tv_sec - now.tv_sec;
		if (!restore_round(e, n, left > 0) || left <= 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = end.tv_sec - now.tv_sec;
		sleep(left < (long)gap ? (left > 0 ? left : 0) : gap);
	}
}

/* The outcome of line E, and its exit status. */
static int restore_print(const struct restore_entry *e)
{
	if (e->status && e->attempts > 1)
		err("restore: %s line %d: gave up after %u attempts", RBD_SESSIONS_FILE,
		    e->lineno, e->attempts);
	if (!opt_json) {
		if (!e->status)
			login_print(&e->res);
		return e->status;
	}
	out_record_begin();
	out_u64("line", "Line:", e->lineno);
	login_print(&e->res);
	out_u64("attempts", "Attempts:", e->attempts);
	out_i64("exit_status", "Exit status:", e->status);
	out_end();
	return e->status;
}

/* Options of restore. Returns -1 to go on, else the exit status. */
static int restore_opts(int argc, char **argv, unsigned int *retry_for)
{
	static const struct option opts[] = {
		{ "retry-for", required_argument, NULL, 'r' },
		OUT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_seconds(optarg, retry_for)) {
				err("restore: --retry-for: invalid number of seconds '%s' (0 to 86400)",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j': opt_json = 1; break;
		case 'o': if (out_format_opt(optarg)) return EXIT_USAGE; break;
		case 'h': usage_restore(); return EXIT_OK;
		default: usage_restore(); return EXIT_USAGE;
		}
	}
	ret = no_operands(argc, argv, "restore");
	if (ret >= 0)
		return ret;
	return -1;
}

int cmd_restore(int argc, char **argv)
{
	struct restore_entry *e;
	unsigned int retry_for = 0;
	int ret, rc = EXIT_OK, i, n;
	FILE *f;

	ret = restore_opts(argc, argv, &retry_for);
	if (ret >= 0)
		return ret;
	f = fopen(RBD_SESSIONS_FILE, "re");
	if (!f && errno != ENOENT) {
		err("restore: cannot read %s: %s", RBD_SESSIONS_FILE, strerror(errno));
		return EXIT_FAIL;
	}
	n = restore_read(f, &e);
	if (f)
		fclose(f);
	restore_all(e, n, retry_for);
	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_list_begin("sessions");
	for (i = 0; i < n; i++) {
		ret = restore_print(&e[i]);
		if (ret && rc == EXIT_OK)
			rc = ret;
		free(e[i].text);
	}
	free(e);
	out_end();
	if (out_finish() && rc == EXIT_OK)
		rc = EXIT_FAIL;
	return rc;
}
