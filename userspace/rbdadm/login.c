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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "output.h"
#include "rbdadm.h"

#define DEFAULT_PORT	65000

/* One attribute to write before enable, with the user's spelling of it. */
struct setting {
	const char *attr;
	const char *option;
	char value[256];
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

	*port = DEFAULT_PORT;
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

static int run_modprobe(const char *mod)
{
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("modprobe", "modprobe", "-q", mod, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Make sure the rbdi configfs tree exists: load the module if needed. */
int ensure_rbdi(void)
{
	if (is_dir(RBDI_CONFIGFS))
		return 0;
	if (run_modprobe("rbdi") != 0) {
		err("module missing: cannot load rbdi (is it installed for kernel %s? see make install)",
		    getenv("RBDADM_KVER") ? getenv("RBDADM_KVER") : "this kernel");
		return -1;
	}
	if (!is_dir("/sys/kernel/config/rbdi") && !is_dir("/sys/kernel/config")) {
		err("configfs is not mounted on /sys/kernel/config (mount -t configfs none /sys/kernel/config)");
		return -1;
	}
	if (!is_dir(RBDI_CONFIGFS)) {
		err("rbdi is loaded but %s is missing; is configfs mounted?", RBDI_CONFIGFS);
		return -1;
	}
	return 0;
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

static const char *login_error(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "connection refused: no rbd portal at that address and port";
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EADDRNOTAVAIL:
		return "address unreachable (no RDMA route to the target)";
	case EACCES:
	case EPERM:
		return "access denied by the target's ACLs";
	case ENOENT:
		return "unknown target";
	case ENXIO:
	case ENODEV:
		return "no such LUN";
	case EPROTO:
		return "protocol error (incompatible target?)";
	case ENOTCONN:
		return "the target closed the connection";
	default:
		return strerror(e);
	}
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
		    !strcmp(argv[i], "--json"))
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
	     "  -a, --address ADDR[:PORT]   target portal (port 65000 by default)\n"
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
	     "  -j, --json                  JSON output");
}

int cmd_login(int argc, char **argv)
{
	enum { O_INLINE = 256, O_IMM, O_IOTMO, O_RDELAY, O_LOSS, O_FAST, O_PERSIST,
	       O_POLL, O_AUSER, O_ASECRET, O_AMUSER, O_AMSECRET };
	static const struct option opts[] = {
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
		{ "io-timeout", required_argument, NULL, O_IOTMO },
		{ "reconnect-delay", required_argument, NULL, O_RDELAY },
		{ "ctrl-loss-tmo", required_argument, NULL, O_LOSS },
		{ "fast-io-fail-tmo", required_argument, NULL, O_FAST },
		{ "persist", no_argument, NULL, O_PERSIST },
		{ "auth-user", required_argument, NULL, O_AUSER },
		{ "auth-secret-file", required_argument, NULL, O_ASECRET },
		{ "auth-mutual-user", required_argument, NULL, O_AMUSER },
		{ "auth-mutual-secret-file", required_argument, NULL, O_AMSECRET },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct setting set[16];
	int nset = 0, c, i, ret;
	const char *portal = NULL, *target = NULL, *initiator = NULL;
	const char *source = NULL, *sname = NULL;
	char addr[INET6_ADDRSTRLEN + 16], srcaddr[INET6_ADDRSTRLEN + 16];
	char ininame[256], name[256];
	char dir[PATH_MAX], dev[64];
	unsigned long long lun = 0, v;
	unsigned int port;
	struct auth_opts ao = {};
	struct auth_cred ini_cred, tgt_cred;
	int have_auth;
	bool persist = false;
	char *ep;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:t:l:I:s:n:q:d:m:jh", opts, NULL)) != -1) {
		const char *attr = NULL, *opt = NULL;
		bool size = false;

		switch (c) {
		case 'a': portal = optarg; continue;
		case 't': target = optarg; continue;
		case 'I': initiator = optarg; continue;
		case 's': source = optarg; continue;
		case 'n': sname = optarg; continue;
		case 'j': opt_json = 1; continue;
		case O_PERSIST: persist = true; continue;
		case O_AUSER: ao.user = optarg; continue;
		case O_ASECRET: ao.secret_file = optarg; continue;
		case O_AMUSER: ao.mutual_user = optarg; continue;
		case O_AMSECRET: ao.mutual_secret_file = optarg; continue;
		case 'h': usage_login(); return EXIT_OK;
		case 'l':
			errno = 0;
			lun = strtoull(optarg, &ep, 0);
			if (errno || *ep || !*optarg || optarg[0] == '-') {
				err("login: invalid LUN '%s'", optarg);
				return EXIT_USAGE;
			}
			continue;
		case 'q': attr = "nr_queues"; opt = "--queues"; break;
		case O_POLL: attr = "nr_poll_queues"; opt = "--poll-queues"; break;
		case 'd': attr = "queue_depth"; opt = "--queue-depth"; break;
		case 'm': attr = "max_io_size"; opt = "--max-io"; size = true; break;
		case O_INLINE: attr = "inline_data_size"; opt = "--inline"; size = true; break;
		case O_IMM: attr = "imm_read_size"; opt = "--imm-read"; size = true; break;
		case O_IOTMO: attr = "io_timeout"; opt = "--io-timeout"; break;
		case O_RDELAY: attr = "reconnect_delay"; opt = "--reconnect-delay"; break;
		case O_LOSS: attr = "ctrl_loss_tmo"; opt = "--ctrl-loss-tmo"; break;
		case O_FAST: attr = "fast_io_fail_tmo"; opt = "--fast-io-fail-tmo"; break;
		default:
			usage_login();
			return EXIT_USAGE;
		}
		if (size) {
			if (parse_size(optarg, &v)) {
				err("login: %s: invalid size '%s' (e.g. 4096, 64K, 1M)", opt, optarg);
				return EXIT_USAGE;
			}
			snprintf(set[nset].value, sizeof(set[nset].value), "%llu", v);
		} else {
			long long n;

			errno = 0;
			n = strtoll(optarg, &ep, 10);
			if (errno || *ep || !*optarg) {
				err("login: %s: invalid number '%s'", opt, optarg);
				return EXIT_USAGE;
			}
			snprintf(set[nset].value, sizeof(set[nset].value), "%lld", n);
		}
		set[nset].attr = attr;
		set[nset].option = opt;
		nset++;
	}
	if (optind < argc) {
		err("login: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!portal || !target) {
		err("login: -a ADDR[:PORT] and -t TARGET are required (see rbdadm login --help)");
		return EXIT_USAGE;
	}
	if (persist && ((ao.secret_file && ao.secret_file[0] != '/') ||
			(ao.mutual_secret_file && ao.mutual_secret_file[0] != '/'))) {
		err("login: --persist needs absolute paths of the secret files (restore runs from another directory)");
		return EXIT_USAGE;
	}
	have_auth = auth_opts_load(&ao, "login", &ini_cred, &tgt_cred);
	if (have_auth < 0)
		return -have_auth;
	if (parse_portal(portal, addr, sizeof(addr), &port)) {
		err("login: invalid address '%s': expected IPv4[:PORT] or [IPv6][:PORT]", portal);
		return EXIT_USAGE;
	}
	if (source) {
		unsigned int unused;

		if (parse_portal(source, srcaddr, sizeof(srcaddr), &unused)) {
			err("login: invalid source address '%s'", source);
			return EXIT_USAGE;
		}
		source = srcaddr;	/* without brackets */
	}
	if (!initiator) {
		ret = read_initiatorname(RBD_INITIATORNAME_FILE, ininame, sizeof(ininame));
		if (ret) {
			err("login: no initiator name: pass --initiator NAME or create %s (InitiatorName=iqn....; make install generates one)",
			    RBD_INITIATORNAME_FILE);
			return EXIT_FAIL;
		}
		initiator = ininame;
	}
	if (geteuid() != 0) {
		err("login: not root: logging in needs root (it writes the rbdi configfs tree)");
		return EXIT_FAIL;
	}
	if (ensure_rbdi())
		return EXIT_FAIL;

	if (find_session(addr, port, target, lun, initiator, name, sizeof(name))) {
		snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
		if (attr_is(dir, "enable", "1") && !read_attr(dir, "device", dev, sizeof(dev)) &&
		    *dev) {
			out_init(opt_json ? OUT_JSON : OUT_TEXT);
			if (!opt_json)
				printf("already logged in: /dev/%s (session %s)\n", dev, name);
			else {
				out_str("device", "Device:", dev);
				out_str("session", "Session:", name);
				out_bool("existing", "Existing:", true);
			}
			return out_finish() ? EXIT_FAIL : EXIT_OK;
		}
		err("login: session %s exists for this target but is not logged in; log it out first (rbdadm logout %s)",
		    name, name);
		return EXIT_FAIL;
	}

	if (sname)
		snprintf(name, sizeof(name), "%s", sname);
	else
		new_session_name(name, sizeof(name));
	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (mkdir(dir, 0755)) {
		err("login: cannot create session %s: %s%s", name, strerror(errno),
		    errno == EEXIST ? " (choose another --name)" :
		    errno == EINVAL ? " (names: letters, digits, . _ -)" : "");
		return EXIT_FAIL;
	}

	{
		char buf[32];
		const struct { const char *attr; const char *val; const char *what; } base[] = {
			{ "traddr", addr, "address" },
			{ "trsvcid", (snprintf(buf, sizeof(buf), "%u", port), buf), "port" },
			{ "target", target, "target name" },
			{ "initiator", initiator, "initiator name" },
			{ "src_addr", source, "source address" },
		};
		char lunbuf[32];

		for (i = 0; i < (int)(sizeof(base) / sizeof(base[0])); i++) {
			if (!base[i].val)
				continue;
			ret = write_attr(dir, base[i].attr, base[i].val);
			if (ret) {
				err("login: invalid %s '%s' (%s)", base[i].what, base[i].val,
				    strerror(-ret));
				goto fail;
			}
		}
		snprintf(lunbuf, sizeof(lunbuf), "%llu", lun);
		ret = write_attr(dir, "lun", lunbuf);
		if (ret) {
			err("login: invalid LUN %llu (%s)", lun, strerror(-ret));
			goto fail;
		}
	}
	if (have_auth) {
		ret = write_auth(dir, &ini_cred, &tgt_cred);
		auth_cred_clear(&ini_cred);
		auth_cred_clear(&tgt_cred);
		if (ret) {
			err("login: credentials refused by rbdi (%s; the kernel log says why)",
			    strerror(-ret));
			goto fail;
		}
	}
	for (i = 0; i < nset; i++) {
		ret = write_attr(dir, set[i].attr, set[i].value);
		if (ret) {
			err("login: %s %s refused by rbdi (%s; the kernel log says why)",
			    set[i].option, set[i].value, strerror(-ret));
			goto fail;
		}
	}

	ret = write_attr(dir, "enable", "1");
	if (ret) {
		char why[256];

		/* rbdi says why in last_error; errno alone is ambiguous. */
		if (read_attr(dir, "last_error", why, sizeof(why)) || !*why)
			snprintf(why, sizeof(why), "%s", login_error(-ret));
		if (strstr(why, "authentic")) {
			err("login: %s:%u %s: %s%s", addr, port, target, why,
			    strstr(why, "mutual") ?
			    " (it did not prove the secret of --auth-mutual-user: another secret, or not the target meant)" :
			    have_auth ? " (check --auth-user and the secret; the target's log says why)" :
			    " (give --auth-user and --auth-secret-file)");
			rmdir(dir);
			return EXIT_AUTH;
		}
		err("login: %s:%u %s: %s", addr, port, target, why);
		goto fail;
	}
	if (read_attr(dir, "device", dev, sizeof(dev)) || !*dev) {
		err("login: logged in but rbdi reports no device");
		write_attr(dir, "enable", "0");
		goto fail;
	}
	if (wait_dev(dev))
		err("login: warning: /dev/%s did not appear within 10 s", dev);
	if (persist) {
		ret = persist_add(name, argc, argv);
		if (ret)
			err("login: warning: logged in, but cannot record it in %s: %s",
			    RBD_SESSIONS_FILE, strerror(-ret));
	}

	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	if (opt_json) {
		out_str("device", "Device:", dev);
		out_str("session", "Session:", name);
		out_bool("existing", "Existing:", false);
	} else {
		printf("/dev/%s\n", dev);
	}
	return out_finish() ? EXIT_FAIL : EXIT_OK;

fail:
	rmdir(dir);
	return EXIT_FAIL;
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
	if (!opt_json)
		printf("logged out %s%s%s\n", *dev ? "/dev/" : "", *dev ? dev : "session ",
		       *dev ? "" : name);
	return EXIT_OK;
}

void usage_logout(void)
{
	puts("Usage: rbdadm logout DEVICE|SESSION [--force] [--keep-persistent]\n"
	     "       rbdadm logout --all [--force] [--keep-persistent]\n"
	     "\n"
	     "Log out and remove a session, named by its device (/dev/rbdi0 or\n"
	     "rbdi0) or its session name. A device that is mounted, held by\n"
	     "another device or opened exclusively is refused unless --force is\n"
	     "given; with --force its outstanding I/O fails with an I/O error.\n"
	     "A login recorded with --persist is forgotten too, unless\n"
	     "--keep-persistent is given (rbd-sessions.service does so at\n"
	     "shutdown).");
}

int cmd_logout(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "keep-persistent", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool all = false, force = false, keep = false;
	char name[256];
	struct dirent **ents;
	int c, n, i, rc = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "afkjh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'f': force = true; break;
		case 'k': keep = true; break;
		case 'j': opt_json = 1; break;
		case 'h': usage_logout(); return EXIT_OK;
		default: usage_logout(); return EXIT_USAGE;
		}
	}
	if (all == (optind < argc) || argc - optind > 1) {
		err("logout: name one DEVICE or SESSION, or --all (see rbdadm logout --help)");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("logout: not root: logging out needs root");
		return EXIT_FAIL;
	}
	if (!is_dir(RBDI_CONFIGFS)) {
		if (all)
			return EXIT_OK;
		err("logout: no such device or session '%s' (rbdi is not loaded)", argv[optind]);
		return EXIT_FAIL;
	}
	if (!all) {
		if (resolve_session(argv[optind], name, sizeof(name))) {
			err("logout: no such device or session '%s'", argv[optind]);
			return EXIT_FAIL;
		}
		return logout_one(name, force, keep);
	}
	n = scandir(RBDI_CONFIGFS, &ents, NULL, alphasort);
	if (n < 0) {
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

void usage_geniname(void)
{
	puts("Usage: rbdadm gen-initiatorname\n"
	     "\n"
	     "Print a new, unique initiator name such as\n"
	     "iqn.2026-12.org.rbd:host.1f2e3d4c5b6a, for " RBD_INITIATORNAME_FILE ".\n"
	     "make install writes one there when the file does not exist.");
}

int cmd_geniname(int argc, char **argv)
{
	unsigned char rnd[6];
	char host[64] = "host", *p;
	int fd, i;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage_geniname();
			return EXIT_OK;
		}
		err("gen-initiatorname: unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd)) {
		err("gen-initiatorname: cannot read /dev/urandom");
		if (fd >= 0)
			close(fd);
		return EXIT_FAIL;
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
	printf("iqn.2026-12.org.rbd:%s.", host);
	for (i = 0; i < (int)sizeof(rnd); i++)
		printf("%02x", rnd[i]);
	putchar('\n');
	return EXIT_OK;
}

void usage_restore(void)
{
	puts("Usage: rbdadm restore\n"
	     "\n"
	     "Log in to every session recorded with login --persist in\n"
	     RBD_SESSIONS_FILE ". Sessions that exist already are left alone.\n"
	     "rbd-sessions.service runs this at boot, after the network is up.");
}

int cmd_restore(int argc, char **argv)
{
	char line[4096], *args[64], *tok, *save;
	int n, rc = EXIT_OK, lineno = 0;
	FILE *f;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage_restore();
			return EXIT_OK;
		}
		err("restore: unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	f = fopen(RBD_SESSIONS_FILE, "re");
	if (!f) {
		if (errno == ENOENT)
			return EXIT_OK;
		err("restore: cannot read %s: %s", RBD_SESSIONS_FILE, strerror(errno));
		return EXIT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		n = 0;
		args[n++] = "login";
		for (tok = strtok_r(line, " \t", &save); tok && n < 63;
		     tok = strtok_r(NULL, " \t", &save))
			args[n++] = tok;
		args[n] = NULL;
		if (cmd_login(n, args) != EXIT_OK) {
			err("restore: %s line %d failed", RBD_SESSIONS_FILE, lineno);
			rc = EXIT_FAIL;
		}
	}
	fclose(f);
	return rc;
}
