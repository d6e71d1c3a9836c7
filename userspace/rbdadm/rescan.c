// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm rescan: read the capacity of a session's LUN again and resize
 * its disk, through rbdi's /sys/block/rbdiN/rbd/rescan. LIO does not
 * tell the initiator when a backstore grows, so after growing one the
 * administrator rescans.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "rbdadm.h"

void usage_rescan(void)
{
	puts("Usage: rbdadm rescan [-j|--json|-o normal|json] DEVICE|SESSION\n"
	     "\n"
	     "Read the capacity of the session's LUN again and resize its disk,\n"
	     "after the LUN was grown (or shrunk) on the target: LIO does not\n"
	     "tell the initiator. DEVICE is /dev/rbdiN or rbdiN. Shows the size\n"
	     "in bytes before and after; the kernel logs the change.");
}

/* Size of /sys/block/DEV in bytes. Returns 0 or -errno. */
static int disk_size(const char *dev, unsigned long long *bytes)
{
	char dir[PATH_MAX], buf[64], *end;
	unsigned long long v;
	int ret;

	snprintf(dir, sizeof(dir), "/sys/block/%s", dev);
	ret = read_attr(dir, "size", buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || !*buf || *end)
		return -EINVAL;
	*bytes = v * 512;
	return 0;
}

/* rbdadm rescan: resize a session's disk to its LUN's capacity now. */
int cmd_rescan(int argc, char **argv)
{
	char name[256], dir[PATH_MAX], dev[64];
	unsigned long long before, after;
	const char *why;
	int fd, ret;

	ret = parse_common_opts(argc, argv, usage_rescan);
	if (ret >= 0)
		return ret;
	if (optind != argc - 1) {
		err(optind < argc ? "rescan: one device only" :
		    "rescan: a device or session is required (see rbdadm rescan --help)");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("rescan: not root: rescanning needs root");
		return EXIT_FAIL;
	}
	if (resolve_session(argv[optind], name, sizeof(name))) {
		err("rescan: no such device or session '%s'", argv[optind]);
		return EXIT_NOT_FOUND;
	}
	snprintf(dir, sizeof(dir), "%s/%s", RBDI_CONFIGFS, name);
	if (read_attr(dir, "device", dev, sizeof(dev)) || !*dev) {
		err("rescan: session %s has no device (not logged in)", name);
		return EXIT_FAIL;
	}
	ret = disk_size(dev, &before);
	if (ret) {
		err("rescan: cannot read the size of /dev/%s: %s", dev, strerror(-ret));
		return EXIT_FAIL;
	}

	snprintf(dir, sizeof(dir), "/sys/block/%s/rbd/rescan", dev);
	fd = open(dir, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			err("rescan: /dev/%s: the loaded rbdi has no rescan (%s missing)",
			    dev, dir);
		else
			err("rescan: cannot open %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (write(fd, "1", 1) != 1) {
		ret = errno;
		close(fd);
		switch (ret) {
		case ENOTCONN:
			why = "the session is not live (reconnecting or offline; see rbdadm list)";
			break;
		case EIO:
			why = "the LUN did not report its capacity, or changed its block size (see the kernel log)";
			break;
		case ENODEV:
			why = "the disk is being removed";
			break;
		default:
			why = strerror(ret);
			break;
		}
		err("rescan: /dev/%s: cannot rescan: %s", dev, why);
		return EXIT_FAIL;
	}
	close(fd);
	ret = disk_size(dev, &after);
	if (ret) {
		err("rescan: cannot read the size of /dev/%s: %s", dev, strerror(-ret));
		return EXIT_FAIL;
	}

	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("device", "Device:", dev);
	out_str("session", "Session:", name);
	out_u64("old_size", "Old size:", before);
	out_u64("size", "Size:", after);
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}
