// SPDX-License-Identifier: GPL-2.0
/*
 * Test-rig helper: provokes a real kernel warning on request, so that the
 * rig's self-test can prove its console detector catches one, and a
 * memory leak that kmemleak reports, so that the rig can prove its
 * kmemleak filter catches one of our modules' leaks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bug.h>
#include <linux/slab.h>
#include <linux/string.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Emit a WARNING with a stack trace at load time");

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "Allocate 256 bytes at load time that kmemleak sees as leaked");

/*
 * The "leaked" buffer's address, scrambled so that kmemleak finds no
 * pointer to it anywhere and reports it. The module still knows it and
 * frees it on unload, so nothing really leaks. Not inlined into the
 * init function: init code is gone once loaded, and the report must
 * name this module in its backtrace.
 */
#define RBD_SELFTEST_SCRAMBLE	0x5a5a5a5a5a5a5a5aUL
static unsigned long hidden_buf;

static noinline int rbd_selftest_leak(void)
{
	char *buf = kmalloc(256, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	strscpy(buf, "rbd rig self-test: deliberate leak", 256);
	hidden_buf = (unsigned long)buf ^ RBD_SELFTEST_SCRAMBLE;
	pr_info("allocated a buffer that kmemleak will report\n");
	return 0;
}

static int __init rbd_selftest_init(void)
{
	pr_info("loaded\n");
	WARN(warn, "rbd rig self-test: deliberate warning\n");
	if (leak)
		return rbd_selftest_leak();
	return 0;
}

static void __exit rbd_selftest_exit(void)
{
	if (hidden_buf)
		kfree((void *)(hidden_buf ^ RBD_SELFTEST_SCRAMBLE));
	pr_info("unloaded\n");
}

module_init(rbd_selftest_init);
module_exit(rbd_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rbd test rig self-test helper");
