// SPDX-License-Identifier: GPL-2.0
/*
 * Test-rig helper: provokes a real kernel warning on request, so that the
 * rig's self-test can prove its console detector catches one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bug.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Emit a WARNING with a stack trace at load time");

static int __init rbd_selftest_init(void)
{
	pr_info("loaded\n");
	WARN(warn, "rbd rig self-test: deliberate warning\n");
	return 0;
}

static void __exit rbd_selftest_exit(void)
{
	pr_info("unloaded\n");
}

module_init(rbd_selftest_init);
module_exit(rbd_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rbd test rig self-test helper");
