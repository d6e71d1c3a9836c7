// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm's exit statuses: the table rbdadm --help shows, the status of
 * a login rbdi refused (from its last_error), and loading rbdi with
 * modprobe's own words when that fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rbd/rbd_proto.h>

#include "output.h"
#include "rbdadm.h"

void usage_exit_status(FILE *f)
{
	fputs("\nExit status:\n"
	      "  0  success\n"
	      "  1  failure (any other)\n"
	      "  2  usage error\n"
	      "  3  authentication required or failed\n"
	      "  4  target unreachable (no route, no rbd portal listening)\n"
	      "  5  login refused: unknown target\n"
	      "  6  login refused by the target's ACLs (discover: no LUN for\n"
	      "     this initiator)\n"
	      "  7  login refused: no such LUN\n"
	      "  8  no such device or session\n"
	      "  9  the rbdi module is missing or the kernel refused it\n", f);
}

/* The exit status for each reason a target gives in a reject. */
static int reject_exit_status(unsigned int reason)
{
	switch (reason) {
	case RBD_REJ_UNKNOWN_TARGET:
		return EXIT_NO_TARGET;
	case RBD_REJ_ACL_DENIED:
		return EXIT_ACL;
	case RBD_REJ_NO_LUN:
		return EXIT_NO_LUN;
	case RBD_REJ_AUTH_REQUIRED:
	case RBD_REJ_AUTH_FAILED:
		return EXIT_AUTH;
	default:
		return EXIT_FAIL;
	}
}

static int errno_exit_status(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EADDRNOTAVAIL:
		return EXIT_UNREACHABLE;
	case ENOENT:
		return EXIT_NO_TARGET;
	case EACCES:
	case EPERM:
		return EXIT_ACL;
	case ENXIO:
		return EXIT_NO_LUN;
	default:
		return EXIT_FAIL;
	}
}

int login_exit_status(const char *why, int err)
{
	unsigned int r;

	if (!why || !*why)
		return errno_exit_status(err);
	for (r = RBD_REJ_NONE + 1; r < RBD_REJ_NR; r++)
		if (!strcmp(why, rbd_reject_str(r)))
			return reject_exit_status(r);
	/* rbdi's own reasons (rbdi_configfs.c, rbdi_auth.c). */
	if (strstr(why, "authentic"))
		return EXIT_AUTH;
	if (!strcmp(why, "address unreachable") ||
	    !strncmp(why, "connection refused", 18))
		return EXIT_UNREACHABLE;
	return EXIT_FAIL;
}

const char *login_error(int e)
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
		return "no such LUN";
	case EPROTO:
		return "protocol error (incompatible target?)";
	case ENOTCONN:
		return "the target closed the connection";
	default:
		return strerror(e);
	}
}

bool modprobe_not_found(const char *out)
{
	return strstr(out, "not found") != NULL;
}

/* The child: modprobe MOD with its output into the pipe FD. */
static void modprobe_child(int fd, const char *mod)
{
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	execlp("modprobe", "modprobe", mod, (char *)NULL);
	fprintf(stderr, "cannot run modprobe: %s", strerror(errno));
	_exit(127);
}

/* Copy IN to OUT (LEN bytes) as one line: lines joined with "; ". */
static void one_line(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (; *in && n + 3 < len; in++) {
		if (*in != '\n')
			out[n++] = *in;
		else if (in[1] && in[1] != '\n')
			n += snprintf(out + n, len - n, "; ");
	}
	out[n] = '\0';
	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
}

/*
 * Run modprobe MOD; its output (both streams) goes to OUT as one line.
 * Returns its exit status, or -1.
 */
static int run_modprobe(const char *mod, char *out, size_t len)
{
	char buf[1024];
	size_t n = 0;
	ssize_t r;
	int fds[2], status;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0)
		modprobe_child(fds[1], mod);
	close(fds[1]);
	while (pid > 0 && n < sizeof(buf) - 1 &&
	       (r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(fds[0]);
	buf[n] = '\0';
	one_line(buf, out, len);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ensure_rbdi(const char *cmd)
{
	char out[1024];

	if (is_dir(RBDI_CONFIGFS))
		return EXIT_OK;
	if (run_modprobe("rbdi", out, sizeof(out)) != 0) {
		if (modprobe_not_found(out))
			err("%s: module missing: rbdi is not installed for this kernel (see make install): %s",
			    cmd, out);
		else
			err("%s: cannot load the rbdi module: %s", cmd,
			    *out ? out : "modprobe failed without a message");
		return EXIT_NO_MODULE;
	}
	if (!is_dir("/sys/kernel/config")) {
		err("%s: configfs is not mounted on /sys/kernel/config (mount -t configfs none /sys/kernel/config)",
		    cmd);
		return EXIT_FAIL;
	}
	if (!is_dir(RBDI_CONFIGFS)) {
		err("%s: rbdi is loaded but %s is missing; is configfs mounted?", cmd,
		    RBDI_CONFIGFS);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
