// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the blk-mq initiator of the RDMA block device.
 *
 * Sessions are configured in /sys/kernel/config/rbdi/ (rbdi_configfs.c);
 * their life is in rbdi_session.c. This file holds the module entry
 * points and the module-wide resources.
 *
 * rbdi_wq runs the error recovery and the keep-alives; it has
 * WQ_MEM_RECLAIM because writeback to an rbdi disk may wait for them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "rbdi.h"

/*
 * Our own block major. With major 0, add_disk() would hand out dynamic
 * numbers of the extended major 259, which sg3_utils takes for NVMe.
 */
int rbdi_major;
/* /sys/kernel/debug/rbdi; per-session statistics will live below it. */
struct dentry *rbdi_debugfs_root;
/* Error recovery and keep-alive work of all sessions. */
struct workqueue_struct *rbdi_wq;

/* See rbdi_map_mr(); read when a session first resolves its device. */
bool rbdi_rxe_reg_fence = true;
module_param_named(rxe_reg_fence, rbdi_rxe_reg_fence, bool, 0644);
MODULE_PARM_DESC(rxe_reg_fence,
		 "On Soft-RoCE (rxe), put a LOCAL_INV ahead of each memory registration, so that a retransmission cannot run it again (default Y)");

/* See __rbdi_queue_rq(). */
bool rbdi_post_bh_disabled;
module_param_named(post_bh_disabled, rbdi_post_bh_disabled, bool, 0644);
MODULE_PARM_DESC(post_bh_disabled,
		 "Post commands with bottom halves disabled, so that a software RDMA provider's send processing (rxe's tasklet) runs right after the post instead of waking ksoftirqd (default N: see __rbdi_queue_rq())");

/* See __rbdi_queue_rq(). */
bool rbdi_poll_post_bh_disabled = true;
module_param_named(poll_post_bh_disabled, rbdi_poll_post_bh_disabled, bool, 0644);
MODULE_PARM_DESC(poll_post_bh_disabled,
		 "Post commands of poll queues with bottom halves disabled, whatever post_bh_disabled says: the submitter, which will poll for the completion, runs a software RDMA provider's send processing itself (default Y)");

static int __init rbdi_init(void)
{
	int ret;

	rbdi_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);

	rbdi_wq = alloc_workqueue("rbdi_wq", WQ_MEM_RECLAIM, 0);
	if (!rbdi_wq) {
		ret = -ENOMEM;
		goto out_remove_debugfs;
	}

	ret = rbdi_blk_init();
	if (ret)
		goto out_destroy_wq;

	ret = register_blkdev(0, KBUILD_MODNAME);
	if (ret < 0) {
		pr_err("register_blkdev failed (%d)\n", ret);
		goto out_blk_exit;
	}
	rbdi_major = ret;

	ret = rbdi_sessions_init();
	if (ret)
		goto out_unregister_blkdev;

	/* Last: from here on, configfs can call into the module. */
	ret = rbdi_configfs_init();
	if (ret)
		goto out_sessions_exit;

	pr_info("%s loaded, block major %d\n", RBDI_VERSION_STRING,
		rbdi_major);
	return 0;

out_sessions_exit:
	rbdi_sessions_exit();
out_unregister_blkdev:
	unregister_blkdev(rbdi_major, KBUILD_MODNAME);
out_blk_exit:
	rbdi_blk_exit();
out_destroy_wq:
	destroy_workqueue(rbdi_wq);
out_remove_debugfs:
	debugfs_remove(rbdi_debugfs_root);
	return ret;
}

static void __exit rbdi_exit(void)
{
	/* Session directories pin the module: none is left by now. */
	rbdi_configfs_exit();
	rbdi_sessions_exit();
	unregister_blkdev(rbdi_major, KBUILD_MODNAME);
	rbdi_blk_exit();
	destroy_workqueue(rbdi_wq);
	debugfs_remove(rbdi_debugfs_root);
	pr_info("unloaded\n");
}

module_init(rbdi_init);
module_exit(rbdi_exit);

MODULE_DESCRIPTION("RDMA block device initiator");
MODULE_AUTHOR("rbd developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RBDI_VERSION);
