// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: the LIO fabric "rbd" of the RDMA block device.
 *
 * This file holds the module entry points and the fabric ops that LIO
 * calls for TPG policy and for commands. The configfs callbacks are in
 * rbdt_configfs.c and the rdma_cm listeners in rbdt_cm.c.
 *
 * Connections are accepted in rbdt_conn.c and become queues
 * (rbdt_queue.c), whose capsules rbdt_recv.c hands to the file of their
 * type; sessions are in rbdt_session.c, SCSI commands in rbdt_cmd.c,
 * rbdt_rw.c and rbdt_rsp.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "rbd_compat.h"
#include "rbdt.h"

/* For deferred work: listener repair now, session teardown later. */
struct workqueue_struct *rbdt_wq;
/* /sys/kernel/debug/rbdt; per-session statistics will live below it. */
struct dentry *rbdt_debugfs_root;

/**
 * rbdt_parse_u16() - parse a strict decimal 1..65535
 * @s: The string: digits only, no sign, no leading zero, no newline.
 * @res: The value, on success.
 *
 * Used for names (tpgt_<N>, the port of a portal), where one value must
 * have exactly one spelling.
 *
 * Return: 0 or -EINVAL.
 */
int rbdt_parse_u16(const char *s, u16 *res)
{
	size_t len = strlen(s);
	unsigned int val;
	size_t i;

	if (len == 0 || len > 5 || s[0] == '0')
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!isdigit(s[i]))
			return -EINVAL;
	}
	if (kstrtouint(s, 10, &val) || val > U16_MAX)
		return -EINVAL;
	*res = val;
	return 0;
}

/* TPG policy */

static char *rbdt_tpg_get_wwn(struct se_portal_group *se_tpg)
{
	return to_rbdt_tpg(se_tpg)->tport->name;
}

static u16 rbdt_tpg_get_tag(struct se_portal_group *se_tpg)
{
	return to_rbdt_tpg(se_tpg)->tag;
}

static int rbdt_tpg_check_demo_mode(struct se_portal_group *se_tpg)
{
	return READ_ONCE(to_rbdt_tpg(se_tpg)->attrib.generate_node_acls);
}

static int rbdt_tpg_check_demo_mode_cache(struct se_portal_group *se_tpg)
{
	return READ_ONCE(to_rbdt_tpg(se_tpg)->attrib.cache_dynamic_acls);
}

static int
rbdt_tpg_check_demo_mode_write_protect(struct se_portal_group *se_tpg)
{
	return READ_ONCE(to_rbdt_tpg(se_tpg)->attrib.demo_mode_write_protect);
}

/* Explicitly mapped LUNs start writable; their write_protect decides. */
static int
rbdt_tpg_check_prod_mode_write_protect(struct se_portal_group *se_tpg)
{
	return 0;
}

static u32 rbdt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

/* Sessions and ACLs */

/* Only used for the SCSI-MIB statistics. */
static u32 rbdt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void rbdt_set_default_node_attributes(struct se_node_acl *se_nacl)
{
}

static const struct target_core_fabric_ops rbdt_fabric_ops = {
	.module					= THIS_MODULE,
	.fabric_name				= RBDT_FABRIC_NAME,
	.node_acl_size				= sizeof(struct rbdt_nacl),

	.tpg_get_wwn				= rbdt_tpg_get_wwn,
	.tpg_get_tag				= rbdt_tpg_get_tag,
	.tpg_check_demo_mode			= rbdt_tpg_check_demo_mode,
	.tpg_check_demo_mode_cache		= rbdt_tpg_check_demo_mode_cache,
	.tpg_check_demo_mode_write_protect	= rbdt_tpg_check_demo_mode_write_protect,
	.tpg_check_prod_mode_write_protect	= rbdt_tpg_check_prod_mode_write_protect,
	.tpg_get_inst_index			= rbdt_tpg_get_inst_index,

	.sess_get_index				= rbdt_sess_get_index,
	.set_default_node_attributes		= rbdt_set_default_node_attributes,
	.close_session				= rbdt_close_session,

	.get_cmd_state				= rbdt_get_cmd_state,
	.write_pending				= rbdt_write_pending,
	.queue_data_in				= rbdt_queue_data_in,
	.queue_status				= rbdt_queue_status,
	.queue_tm_rsp				= rbdt_queue_tm_rsp,
	.aborted_task				= rbdt_aborted_task,
	.check_stop_free			= rbdt_check_stop_free,
	.release_cmd				= rbdt_release_cmd,

	.fabric_make_wwn			= rbdt_make_wwn,
	.fabric_drop_wwn			= rbdt_drop_wwn,
	.fabric_make_tpg			= rbdt_make_tpg,
	.fabric_enable_tpg			= rbdt_enable_tpg,
	.fabric_drop_tpg			= rbdt_drop_tpg,
	.fabric_make_np				= rbdt_make_np,
	.fabric_drop_np				= rbdt_drop_np,
	.fabric_init_nodeacl			= rbdt_init_nodeacl,

	.tfc_wwn_attrs				= rbdt_fabric_attrs,
	.tfc_tpg_attrib_attrs			= rbdt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs		= rbdt_nacl_attrs,
	.tfc_tpg_np_base_attrs			= rbdt_np_attrs,
	.tfc_tpg_nacl_auth_attrs		= rbdt_nacl_auth_attrs,
	.tfc_tpg_auth_attrs			= rbdt_tpg_auth_attrs,
	.tfc_discovery_attrs			= rbdt_discovery_attrs,

	/* target_submit() runs the command here, in the CQ work. */
	RBD_FABRIC_SUBMIT
};

/* See rbdt_complete_here(). */
bool rbdt_complete_inline = true;
module_param_named(complete_inline, rbdt_complete_inline, bool, 0644);
MODULE_PARM_DESC(complete_inline,
		 "Run LIO's completion of a command that the backend completed synchronously in rbdt's own context, not in a worker of target_completion_wq (default Y)");

/* See rbdt_cq.c; read when a queue's CQ is created. */
bool rbdt_cq_highpri = true;
module_param_named(cq_highpri, rbdt_cq_highpri, bool, 0644);
MODULE_PARM_DESC(cq_highpri,
		 "Poll completion queues from high-priority workers, which preempt other tasks on their CPU; N where initiator and target share a host's CPUs (default Y)");

/* See rbdt_post_begin(). */
bool rbdt_post_bh_disabled = true;
module_param_named(post_bh_disabled, rbdt_post_bh_disabled, bool, 0644);
MODULE_PARM_DESC(post_bh_disabled,
		 "Post work requests with bottom halves disabled, so that a software RDMA provider's send processing (rxe's tasklet) runs right after the post instead of waking ksoftirqd (default Y)");

/* See rbdt_post_rsp(). */
unsigned int rbdt_post_bh_max_data = SZ_32K;
module_param_named(post_bh_max_data, rbdt_post_bh_max_data, uint, 0644);
MODULE_PARM_DESC(post_bh_max_data,
		 "Post a response behind RDMA WRITEs of more data than this (bytes) without disabling bottom halves, so that a software provider moves the data outside rbdt's CQ worker (default 32768)");

static int __init rbdt_init(void)
{
	int ret;

	rbdt_wq = alloc_workqueue("rbdt_wq", WQ_UNBOUND, 0);
	if (!rbdt_wq)
		return -ENOMEM;

	ret = rbdt_cq_init();
	if (ret)
		goto out_destroy_wq;

	rbdt_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	rbdt_conn_debugfs_init();

	/* Last: from here on, configfs can call into the module. */
	ret = target_register_template(&rbdt_fabric_ops);
	if (ret) {
		pr_err("target_register_template failed (%d)\n", ret);
		goto out_remove_debugfs;
	}

	/* After the template: the IB add callback may call into core. */
	ret = ib_register_client(&rbdt_ib_client);
	if (ret) {
		pr_err("ib_register_client failed (%d)\n", ret);
		goto out_unregister_template;
	}

	pr_info("%s loaded\n", RBDT_VERSION_STRING);
	return 0;

out_unregister_template:
	target_unregister_template(&rbdt_fabric_ops);
out_remove_debugfs:
	debugfs_remove(rbdt_debugfs_root);
	rbdt_cq_exit();
out_destroy_wq:
	destroy_workqueue(rbdt_wq);
	return ret;
}

static void __exit rbdt_exit(void)
{
	/*
	 * Every configfs directory of the fabric pins the module, so by now
	 * /sys/kernel/config/target/rbd is gone, and with it every portal,
	 * listener, TPG and session. Queues that never logged in are torn
	 * down by ib_unregister_client(), device by device.
	 */
	ib_unregister_client(&rbdt_ib_client);
	rbdt_conn_exit();
	target_unregister_template(&rbdt_fabric_ops);
	rbdt_cm_exit();
	debugfs_remove(rbdt_debugfs_root);
	rbdt_cq_exit();
	destroy_workqueue(rbdt_wq);
	pr_info("unloaded\n");
}

module_init(rbdt_init);
module_exit(rbdt_exit);

MODULE_DESCRIPTION("RDMA block device target: LIO fabric \"rbd\"");
MODULE_AUTHOR("rbd developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RBDT_VERSION);
