// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: the configfs side of the fabric.
 *
 * target_core_fabric_configfs.c builds the tree and calls back into this
 * file (see rbdt_fabric_ops in rbdt_main.c for the wiring):
 *
 *   /sys/kernel/config/target/rbd/
 *	version				rbdt_fabric_attrs (tfc_wwn_attrs lands
 *					at the fabric root, as iSCSI's
 *					lio_version does)
 *	<target>/			rbdt_make_wwn() / rbdt_drop_wwn()
 *	    tpgt_<N>/			rbdt_make_tpg() / rbdt_drop_tpg()
 *		enable			core attribute; rbdt_enable_tpg()
 *		attrib/			rbdt_tpg_attrib_attrs
 *		auth/			rbdt_tpg_auth_attrs (demo mode)
 *		np/<addr>:<port>/	rbdt_make_np() / rbdt_drop_np()
 *		    state		rbdt_np_attrs
 *		acls/<initiator>/	rbdt_init_nodeacl()
 *		    auth/		rbdt_nacl_auth_attrs
 *	discovery_auth/			rbdt_discovery_attrs
 *		lun/lun_<M>/		core
 *
 * Every drop callback runs from the configfs release of its item, and
 * configfs refuses to rmdir a directory that still has user-made children,
 * so portals are gone before their TPG, and TPGs before their target.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kstrtox.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "rbd_limits.h"
#include "rbdt.h"

/* How much of a rejected value or name a log line quotes. */
#define RBDT_LOG_QUOTE_MAX	256

static int rbdt_quote_len(const char *s)
{
	return min_t(size_t, strcspn(s, "\n"), RBDT_LOG_QUOTE_MAX);
}

/* Fabric root: /sys/kernel/config/target/rbd/version */

static ssize_t rbdt_fabric_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", RBDT_VERSION_STRING);
}

CONFIGFS_ATTR_RO(rbdt_fabric_, version);

struct configfs_attribute *rbdt_fabric_attrs[] = {
	&rbdt_fabric_attr_version,
	NULL,
};

/* Targets */

/**
 * rbdt_make_wwn() - mkdir /sys/kernel/config/target/rbd/<name>
 * @tf: Unused.
 * @group: Unused.
 * @name: The target name; see rbd_name.c for the accepted formats.
 *
 * Return: The new target's &struct se_wwn, or an ERR_PTR (core turns any
 * error into -EINVAL for mkdir).
 */
struct se_wwn *rbdt_make_wwn(struct target_fabric_configfs *tf,
			     struct config_group *group, const char *name)
{
	struct rbdt_tport *tport;
	const char *reason;

	reason = rbd_name_check(name);
	if (reason) {
		pr_err("rejected target name '%*pE': %s; expected %s\n",
		       rbdt_quote_len(name), name, reason, RBD_NAME_FORMATS);
		return ERR_PTR(-EINVAL);
	}

	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	strscpy(tport->name, name, sizeof(tport->name));

	pr_debug("added target %s\n", tport->name);
	return &tport->wwn;
}

/**
 * rbdt_drop_wwn() - release a target once its directory is gone
 * @wwn: The target's &struct se_wwn, from rbdt_make_wwn().
 */
void rbdt_drop_wwn(struct se_wwn *wwn)
{
	struct rbdt_tport *tport = to_rbdt_tport(wwn);

	pr_debug("removed target %s\n", tport->name);
	kfree(tport);
}

/* Target portal groups */

/*
 * tpgt_<N>: N is 1..65535 in plain decimal. Leading zeros and signs are
 * refused so that every tag has exactly one directory name; otherwise
 * tpgt_1 and tpgt_01 could both exist with the same tag.
 */
static int rbdt_parse_tpgt(const char *name, u16 *tag)
{
	if (strncmp(name, "tpgt_", 5))
		return -EINVAL;
	return rbdt_parse_u16(name + 5, tag);
}

/**
 * rbdt_make_tpg() - mkdir <target>/tpgt_<N>
 * @wwn: The parent target.
 * @name: "tpgt_<N>" with N in 1..65535.
 *
 * Return: The new TPG's &struct se_portal_group or an ERR_PTR.
 */
struct se_portal_group *rbdt_make_tpg(struct se_wwn *wwn, const char *name)
{
	struct rbdt_tport *tport = to_rbdt_tport(wwn);
	struct rbdt_tpg *tpg;
	u16 tag;
	int ret;

	if (rbdt_parse_tpgt(name, &tag)) {
		pr_err("%s: rejected TPG name '%*pE': expected tpgt_<N> with N 1..65535, no leading zeros\n",
		       tport->name, rbdt_quote_len(name), name);
		return ERR_PTR(-EINVAL);
	}

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);

	/* core_tpg_register() already calls tpg_get_wwn() and tpg_get_tag(). */
	tpg->tport = tport;
	tpg->tag = tag;
	snprintf(tpg->name, sizeof(tpg->name), "%s/tpgt_%u", tport->name, tag);
	mutex_init(&tpg->lock);
	INIT_LIST_HEAD(&tpg->np_list);
	INIT_LIST_HEAD(&tpg->sess_list);
	tpg->attrib = (struct rbdt_tpg_attrib) {
		.generate_node_acls		= false,
		.demo_mode_write_protect	= true,
		.cache_dynamic_acls		= true,
		.max_io_size			= RBD_DEFAULT_MAX_IO_BYTES,
		.queue_depth			= RBD_DEFAULT_QUEUE_DEPTH,
		.max_queues			= RBD_DEFAULT_NR_QUEUES,
		.inline_data_size		= RBD_DEFAULT_INLINE_WRITE,
		.imm_read_size			= RBD_DEFAULT_IMM_READ,
		.max_halfopen			= 64,
		.max_halfopen_per_host		= 16,
		.max_sessions_per_acl		= 256,
		.data_pool_kb			= RBDT_DATA_POOL_KB_DEFAULT,
		.max_write_fetches		= -1,
	};

	/*
	 * SCSI_PROTOCOL_ISCSI: rbd initiator names are free-form iSCSI-style
	 * strings, so PR OUT TransportIDs use the iSCSI (variable length)
	 * format.
	 */
	ret = core_tpg_register(wwn, &tpg->se_tpg, SCSI_PROTOCOL_ISCSI);
	if (ret) {
		rbdt_tpg_err(tpg, "core_tpg_register failed (%d)\n", ret);
		goto out_free_tpg;
	}

	return &tpg->se_tpg;

out_free_tpg:
	mutex_destroy(&tpg->lock);
	kfree(tpg);
	return ERR_PTR(ret);
}

/**
 * rbdt_drop_tpg() - release a TPG once its directory is gone
 * @se_tpg: The TPG, from rbdt_make_tpg().
 */
void rbdt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct rbdt_tpg *tpg = to_rbdt_tpg(se_tpg);

	/*
	 * Sessions are not configfs items, so nothing kept this TPG from
	 * being removed while initiators are logged in. core_tpg_deregister()
	 * frees the dynamic ACLs and expects no session left, so every
	 * session of the TPG is closed here, synchronously, first. No new
	 * login can find the TPG: its portals are configfs children and are
	 * gone already.
	 */
	WARN_ON(!list_empty(&tpg->np_list));
	mutex_lock(&tpg->lock);
	tpg->enabled = false;
	mutex_unlock(&tpg->lock);
	rbdt_tpg_close_sessions(tpg);

	core_tpg_deregister(se_tpg);
	mutex_destroy(&tpg->lock);
	rbdt_auth_cred_clear(&tpg->auth);
	kfree(tpg);
}

/**
 * rbdt_enable_tpg() - write to tpgt_<N>/enable
 * @se_tpg: The TPG.
 * @enable: The new state. Core calls only on a change and records it in
 *	se_tpg->enabled after a 0 return.
 *
 * Return: 0.
 */
int rbdt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct rbdt_tpg *tpg = to_rbdt_tpg(se_tpg);

	mutex_lock(&tpg->lock);
	/* Logins check @enabled under @lock and join @sess_list under it. */
	WRITE_ONCE(tpg->enabled, enable);
	mutex_unlock(&tpg->lock);

	rbdt_tpg_info(tpg, "%s\n", enable ? "enabled" : "disabled");
	if (!enable)
		rbdt_tpg_close_sessions(tpg);
	return 0;
}

/* Network portals */

/**
 * rbdt_make_np() - mkdir tpgt_<N>/np/<address>:<port>
 * @se_tpg: The parent TPG.
 * @group: Unused.
 * @name: The portal, "<IPv4>:<port>" or "[<IPv6>]:<port>"; see
 *	rbdt_parse_portal().
 *
 * Starts listening on the address, or shares the listener that another
 * portal already started on it. A portal on a specific address whose
 * address or RDMA device is not there yet is created and waits for them;
 * one on a port that a wildcard portal holds leaves its connections to
 * the wildcard's listener (see rbdt_cm.c). np/<portal>/state says which.
 *
 * Return: The new portal or an ERR_PTR (core turns any error into -EINVAL
 * for mkdir, so every failure is logged with its cause).
 */
struct se_tpg_np *rbdt_make_np(struct se_portal_group *se_tpg,
			       struct config_group *group, const char *name)
{
	struct rbdt_tpg *tpg = to_rbdt_tpg(se_tpg);
	struct sockaddr_storage addr;
	struct rbdt_listener *l;
	const char *reason;
	struct rbdt_np *np;
	int ret;

	reason = rbdt_parse_portal(name, &addr);
	if (reason) {
		rbdt_tpg_err(tpg, "rejected network portal '%*pE': %s; expected <IPv4>:<port> or [<IPv6>]:<port>\n",
			     rbdt_quote_len(name), name, reason);
		return ERR_PTR(-EINVAL);
	}

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);

	l = rbdt_listener_get(&addr);
	if (IS_ERR(l)) {
		ret = PTR_ERR(l);
		goto out_free_np;
	}

	np->tpg = tpg;
	np->listener = l;
	mutex_lock(&tpg->lock);
	list_add_tail(&np->tpg_entry, &tpg->np_list);
	mutex_unlock(&tpg->lock);
	rbdt_listener_add_np(l, np);

	return &np->se_tpg_np;

out_free_np:
	kfree(np);
	return ERR_PTR(ret);
}

/**
 * rbdt_drop_np() - release a portal once its directory is gone
 * @se_tpg_np: The portal, from rbdt_make_np().
 *
 * The listener stops with its last portal.
 */
void rbdt_drop_np(struct se_tpg_np *se_tpg_np)
{
	struct rbdt_np *np = to_rbdt_np(se_tpg_np);
	struct rbdt_tpg *tpg = np->tpg;

	rbdt_listener_del_np(np->listener, np);
	mutex_lock(&tpg->lock);
	list_del(&np->tpg_entry);
	mutex_unlock(&tpg->lock);

	rbdt_listener_put(np->listener);
	kfree(np);
}

/* np/<portal>/state: "listening", "listening (through <wildcard>)" or "waiting (<why>)" */
static ssize_t rbdt_np_state_show(struct config_item *item, char *page)
{
	struct se_tpg_np *se_tpg_np = container_of(to_config_group(item),
						   struct se_tpg_np,
						   tpg_np_group);

	return rbdt_listener_state_show(to_rbdt_np(se_tpg_np)->listener, page);
}

CONFIGFS_ATTR_RO(rbdt_np_, state);

struct configfs_attribute *rbdt_np_attrs[] = {
	&rbdt_np_attr_state,
	NULL,
};

/* Initiator ACLs */

/**
 * rbdt_init_nodeacl() - validate the name of acls/<initiator>
 * @se_nacl: The ACL core has just allocated (node_acl_size bytes).
 * @name: The initiator name; same formats as target names.
 *
 * Return: 0, or -EINVAL to make core undo the mkdir.
 */
int rbdt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct rbdt_tpg *tpg = to_rbdt_tpg(se_nacl->se_tpg);
	const char *reason;

	reason = rbd_name_check(name);
	if (reason) {
		rbdt_tpg_err(tpg, "rejected initiator name '%*pE' in acls/: %s; expected %s\n",
			     rbdt_quote_len(name), name, reason,
			     RBD_NAME_FORMATS);
		return -EINVAL;
	}
	return 0;
}

/*
 * TPG attributes: tpgt_<N>/attrib/
 *
 *   attribute                default  range
 *   generate_node_acls       0        0 or 1
 *   demo_mode_write_protect  1        0 or 1
 *   cache_dynamic_acls       1        0 or 1
 *   max_io_size              1048576  4096..16777216, a multiple of 4096 (bytes)
 *   queue_depth              128      1..1024 (commands per queue)
 *   max_queues               16       1..64 (queues per session)
 *   inline_data_size         4096     0..16384 (bytes; 0 disables)
 *   imm_read_size            4096     0..16384 (bytes; 0 disables)
 *   max_halfopen             64       1..4096 (connections not logged in)
 *   max_halfopen_per_host    16       1..4096 (the same, per source address)
 *   max_sessions_per_acl     256      1..65535 (live sessions per initiator)
 *
 * The transport limits' defaults and ranges are the protocol's
 * (RBD_DEFAULT_*, RBD_MIN_* and RBD_MAX_* in rbd_proto.h), except the
 * inline and immediate data sizes, capped at 16 KiB (rbd_limits.h says
 * why).
 *
 * The ACL switches take effect at the next login (generate_node_acls,
 * cache_dynamic_acls) or the next dynamic ACL (demo_mode_write_protect).
 * The transport limits are what the target offers; a session uses the
 * smaller of these and what its initiator asks for, fixed at login. A
 * change therefore applies to new sessions only; sessions already logged
 * in keep the values they started with. An inline size above max_io_size
 * is allowed and is capped by it at login, so the values can be written
 * in any order.
 *
 * The caps on connections that have not logged in yet count per portal
 * address: such a connection has named no target yet, so it counts
 * against every TPG with a portal on its address, and the smallest cap
 * among them applies (rbdt_listener_update_caps()). A change applies to
 * the next connect request. max_sessions_per_acl applies at the next
 * LOGIN; sessions beyond it that were already logged in stay.
 */

static struct rbdt_tpg *attrib_to_rbdt_tpg(struct config_item *item)
{
	struct se_portal_group *se_tpg = container_of(to_config_group(item),
						      struct se_portal_group,
						      tpg_attrib_group);

	return to_rbdt_tpg(se_tpg);
}

static int rbdt_tpg_attrib_parse_bool(struct rbdt_tpg *tpg, const char *name,
				      const char *page, bool *val)
{
	if (kstrtobool(page, val)) {
		rbdt_tpg_err(tpg, "attrib/%s: invalid value '%*pE' (allowed: 0 or 1)\n",
			     name, rbdt_quote_len(page), page);
		return -EINVAL;
	}
	return 0;
}

/**
 * struct rbdt_attrib_range - the values a numeric TPG attribute accepts
 * @name: Attribute name, for log messages.
 * @min: Smallest value.
 * @max: Largest value.
 * @align: The value must be a multiple of this, or 0 for no constraint.
 */
struct rbdt_attrib_range {
	const char *name;
	u32 min;
	u32 max;
	u32 align;
};

static int rbdt_tpg_attrib_parse_u32(struct rbdt_tpg *tpg,
				     const struct rbdt_attrib_range *range,
				     const char *page, u32 *val)
{
	if (kstrtou32(page, 10, val) || *val < range->min ||
	    *val > range->max)
		goto out_invalid;
	if (range->align && *val % range->align)
		goto out_invalid;
	return 0;

out_invalid:
	if (range->align)
		rbdt_tpg_err(tpg, "attrib/%s: invalid value '%*pE' (allowed: %u..%u, a multiple of %u)\n",
			     range->name, rbdt_quote_len(page), page,
			     range->min, range->max, range->align);
	else
		rbdt_tpg_err(tpg, "attrib/%s: invalid value '%*pE' (allowed: %u..%u)\n",
			     range->name, rbdt_quote_len(page), page,
			     range->min, range->max);
	return -EINVAL;
}

/*
 * Generators for the show and store methods of an attribute backed by
 * tpg->attrib._name; CONFIGFS_ATTR() follows each use.
 */
#define RBDT_TPG_ATTRIB_BOOL(_name)					\
static bool *rbdt_tpg_attrib_##_name##_ptr(struct config_item *item)	\
{									\
	return &attrib_to_rbdt_tpg(item)->attrib._name;			\
}									\
									\
static ssize_t rbdt_tpg_attrib_##_name##_show(struct config_item *item, \
					      char *page)		\
{									\
	return sysfs_emit(page, "%d\n",					\
			  READ_ONCE(*rbdt_tpg_attrib_##_name##_ptr(item))); \
}									\
									\
static ssize_t rbdt_tpg_attrib_##_name##_store(struct config_item *item, \
					       const char *page,	\
					       size_t count)		\
{									\
	bool val;							\
	int ret;							\
									\
	ret = rbdt_tpg_attrib_parse_bool(attrib_to_rbdt_tpg(item),	\
					 #_name, page, &val);		\
	if (ret)							\
		return ret;						\
	WRITE_ONCE(*rbdt_tpg_attrib_##_name##_ptr(item), val);		\
	return count;							\
}

/* What a store of most attributes needs done after the write: nothing. */
static void rbdt_tpg_attrib_stored(struct rbdt_tpg *tpg)
{
}

#define RBDT_TPG_ATTRIB_U32(_name, _min, _max, _align)			\
	RBDT_TPG_ATTRIB_U32_HOOK(_name, _min, _max, _align,		\
				 rbdt_tpg_attrib_stored)

/* @_stored(tpg) runs after each successful write. */
#define RBDT_TPG_ATTRIB_U32_HOOK(_name, _min, _max, _align, _stored)	\
static u32 *rbdt_tpg_attrib_##_name##_ptr(struct config_item *item)	\
{									\
	return &attrib_to_rbdt_tpg(item)->attrib._name;			\
}									\
									\
static ssize_t rbdt_tpg_attrib_##_name##_show(struct config_item *item, \
					      char *page)		\
{									\
	return sysfs_emit(page, "%u\n",					\
			  READ_ONCE(*rbdt_tpg_attrib_##_name##_ptr(item))); \
}									\
									\
static ssize_t rbdt_tpg_attrib_##_name##_store(struct config_item *item, \
					       const char *page,	\
					       size_t count)		\
{									\
	static const struct rbdt_attrib_range range = {			\
		.name = #_name, .min = _min, .max = _max, .align = _align, \
	};								\
	u32 val;							\
	int ret;							\
									\
	ret = rbdt_tpg_attrib_parse_u32(attrib_to_rbdt_tpg(item),	\
					&range, page, &val);		\
	if (ret)							\
		return ret;						\
	WRITE_ONCE(*rbdt_tpg_attrib_##_name##_ptr(item), val);		\
	_stored(attrib_to_rbdt_tpg(item));				\
	return count;							\
}

RBDT_TPG_ATTRIB_BOOL(generate_node_acls);
CONFIGFS_ATTR(rbdt_tpg_attrib_, generate_node_acls);
RBDT_TPG_ATTRIB_BOOL(demo_mode_write_protect);
CONFIGFS_ATTR(rbdt_tpg_attrib_, demo_mode_write_protect);
RBDT_TPG_ATTRIB_BOOL(cache_dynamic_acls);
CONFIGFS_ATTR(rbdt_tpg_attrib_, cache_dynamic_acls);
RBDT_TPG_ATTRIB_U32(max_io_size, RBD_MIN_IO_BYTES, RBD_MAX_IO_BYTES,
		    RBD_IO_BYTES_ALIGN);
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_io_size);
RBDT_TPG_ATTRIB_U32(queue_depth, RBD_MIN_QUEUE_DEPTH, RBD_MAX_QUEUE_DEPTH, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, queue_depth);
RBDT_TPG_ATTRIB_U32(max_queues, RBD_MIN_NR_QUEUES, RBD_MAX_NR_QUEUES, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_queues);
RBDT_TPG_ATTRIB_U32(inline_data_size, 0, RBD_CFS_MAX_INLINE_WRITE, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, inline_data_size);
RBDT_TPG_ATTRIB_U32(imm_read_size, 0, RBD_CFS_MAX_IMM_READ, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, imm_read_size);
RBDT_TPG_ATTRIB_U32_HOOK(max_halfopen, 1, 4096, 0, rbdt_tpg_caps_changed);
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_halfopen);
RBDT_TPG_ATTRIB_U32_HOOK(max_halfopen_per_host, 1, 4096, 0,
			 rbdt_tpg_caps_changed);
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_halfopen_per_host);
RBDT_TPG_ATTRIB_U32(max_sessions_per_acl, 1, 65535, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_sessions_per_acl);
RBDT_TPG_ATTRIB_BOOL(authentication);
CONFIGFS_ATTR(rbdt_tpg_attrib_, authentication);
RBDT_TPG_ATTRIB_U32(data_pool_kb, 0, RBDT_DATA_POOL_KB_MAX, 0);
CONFIGFS_ATTR(rbdt_tpg_attrib_, data_pool_kb);

/* max_write_fetches: -1 (the device's default), 0 (no limit) or a limit. */
static ssize_t rbdt_tpg_attrib_max_write_fetches_show(struct config_item *item,
						      char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(attrib_to_rbdt_tpg(item)->attrib.max_write_fetches));
}

static ssize_t rbdt_tpg_attrib_max_write_fetches_store(struct config_item *item,
						       const char *page,
						       size_t count)
{
	struct rbdt_tpg *tpg = attrib_to_rbdt_tpg(item);
	int val;

	if (kstrtoint(page, 10, &val) || val < -1 || val > U16_MAX) {
		rbdt_tpg_err(tpg, "attrib/max_write_fetches: invalid value '%*pE' (allowed: -1..%u)\n",
			     rbdt_quote_len(page), page, U16_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(tpg->attrib.max_write_fetches, val);
	return count;
}
CONFIGFS_ATTR(rbdt_tpg_attrib_, max_write_fetches);

/*
 * auth/ of ACLs and TPGs, and discovery_auth/: LIO's (and iSCSI's) names.
 * Passwords are readable by root only (targetcli saves them); the values
 * and the locking are rbdt_auth.c's.
 */
static struct rbdt_auth_cred *rbdt_nacl_cred(struct config_item *item)
{
	return &container_of(auth_to_nacl(item), struct rbdt_nacl,
			     se_node_acl)->auth;
}

static struct rbdt_auth_cred *rbdt_tpg_cred(struct config_item *item)
{
	return &to_rbdt_tpg(auth_to_tpg(item))->auth;
}

static struct rbdt_auth_cred *rbdt_discovery_cred(struct config_item *item)
{
	return &rbdt_disc_cred;
}

/* Who an auth/ group belongs to, for log lines. */
static const char *rbdt_nacl_who(struct config_item *item)
{
	return auth_to_nacl(item)->initiatorname;
}

static const char *rbdt_tpg_who(struct config_item *item)
{
	return to_rbdt_tpg(auth_to_tpg(item))->name;
}

static const char *rbdt_discovery_who(struct config_item *item)
{
	return "discovery";
}

#define RBDT_AUTH_ATTR(_scope, _field, _f, _mode)			\
static const enum rbdt_auth_field rbdt_##_scope##_auth_##_field##_f = _f; \
									\
static ssize_t rbdt_##_scope##_auth_##_field##_show(struct config_item *item, \
						     char *page)	\
{									\
	return rbdt_auth_show(rbdt_##_scope##_cred(item),		\
			      rbdt_##_scope##_auth_##_field##_f, page);	\
}									\
									\
static ssize_t rbdt_##_scope##_auth_##_field##_store(struct config_item *item, \
						      const char *page,	\
						      size_t count)	\
{									\
	return rbdt_auth_store(rbdt_##_scope##_cred(item),		\
			       rbdt_##_scope##_auth_##_field##_f, page,	\
			       count, rbdt_##_scope##_who(item));	\
}									\
									\
static struct configfs_attribute rbdt_##_scope##_auth_attr_##_field = { \
	.ca_name	= #_field,					\
	.ca_mode	= _mode,					\
	.ca_owner	= THIS_MODULE,					\
	.show		= rbdt_##_scope##_auth_##_field##_show,		\
	.store		= rbdt_##_scope##_auth_##_field##_store,	\
}

/* authenticate_target: read-only, 1 when the target can prove itself. */
#define RBDT_AUTH_TARGET_ATTR(_scope)					\
static ssize_t rbdt_##_scope##_auth_authenticate_target_show(		\
		struct config_item *item, char *page)			\
{									\
	return rbdt_auth_target_show(rbdt_##_scope##_cred(item), page);	\
}									\
CONFIGFS_ATTR_RO(rbdt_##_scope##_auth_, authenticate_target)

RBDT_AUTH_ATTR(nacl, userid, RBDT_AUTH_USERID, 0644);
RBDT_AUTH_ATTR(nacl, password, RBDT_AUTH_PASSWORD, 0600);
RBDT_AUTH_ATTR(nacl, userid_mutual, RBDT_AUTH_USERID_MUTUAL, 0644);
RBDT_AUTH_ATTR(nacl, password_mutual, RBDT_AUTH_PASSWORD_MUTUAL, 0600);
RBDT_AUTH_TARGET_ATTR(nacl);

RBDT_AUTH_ATTR(tpg, userid, RBDT_AUTH_USERID, 0644);
RBDT_AUTH_ATTR(tpg, password, RBDT_AUTH_PASSWORD, 0600);
RBDT_AUTH_ATTR(tpg, userid_mutual, RBDT_AUTH_USERID_MUTUAL, 0644);
RBDT_AUTH_ATTR(tpg, password_mutual, RBDT_AUTH_PASSWORD_MUTUAL, 0600);
RBDT_AUTH_TARGET_ATTR(tpg);

RBDT_AUTH_ATTR(discovery, userid, RBDT_AUTH_USERID, 0644);
RBDT_AUTH_ATTR(discovery, password, RBDT_AUTH_PASSWORD, 0600);
RBDT_AUTH_ATTR(discovery, userid_mutual, RBDT_AUTH_USERID_MUTUAL, 0644);
RBDT_AUTH_ATTR(discovery, password_mutual, RBDT_AUTH_PASSWORD_MUTUAL, 0600);
RBDT_AUTH_TARGET_ATTR(discovery);

static ssize_t rbdt_disc_enforce_discovery_auth_show(struct config_item *item,
						     char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(rbdt_disc_enforce));
}

static ssize_t rbdt_disc_enforce_discovery_auth_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	bool val;

	if (kstrtobool(page, &val)) {
		pr_warn("discovery_auth/enforce_discovery_auth: invalid value '%*pE' (allowed: 0 or 1)\n",
			rbdt_quote_len(page), page);
		return -EINVAL;
	}
	WRITE_ONCE(rbdt_disc_enforce, val);
	return count;
}
CONFIGFS_ATTR(rbdt_disc_, enforce_discovery_auth);

struct configfs_attribute *rbdt_nacl_auth_attrs[] = {
	&rbdt_nacl_auth_attr_userid,
	&rbdt_nacl_auth_attr_password,
	&rbdt_nacl_auth_attr_userid_mutual,
	&rbdt_nacl_auth_attr_password_mutual,
	&rbdt_nacl_auth_attr_authenticate_target,
	NULL,
};

struct configfs_attribute *rbdt_tpg_auth_attrs[] = {
	&rbdt_tpg_auth_attr_userid,
	&rbdt_tpg_auth_attr_password,
	&rbdt_tpg_auth_attr_userid_mutual,
	&rbdt_tpg_auth_attr_password_mutual,
	&rbdt_tpg_auth_attr_authenticate_target,
	NULL,
};

struct configfs_attribute *rbdt_discovery_attrs[] = {
	&rbdt_disc_attr_enforce_discovery_auth,
	&rbdt_discovery_auth_attr_userid,
	&rbdt_discovery_auth_attr_password,
	&rbdt_discovery_auth_attr_userid_mutual,
	&rbdt_discovery_auth_attr_password_mutual,
	&rbdt_discovery_auth_attr_authenticate_target,
	NULL,
};

/* acls/<initiator>/info: the initiator's live sessions. */
static ssize_t rbdt_nacl_info_show(struct config_item *item, char *page)
{
	return rbdt_nacl_info(acl_to_nacl(item), page);
}
CONFIGFS_ATTR_RO(rbdt_nacl_, info);

struct configfs_attribute *rbdt_nacl_attrs[] = {
	&rbdt_nacl_attr_info,
	NULL,
};

struct configfs_attribute *rbdt_tpg_attrib_attrs[] = {
	&rbdt_tpg_attrib_attr_generate_node_acls,
	&rbdt_tpg_attrib_attr_demo_mode_write_protect,
	&rbdt_tpg_attrib_attr_cache_dynamic_acls,
	&rbdt_tpg_attrib_attr_max_io_size,
	&rbdt_tpg_attrib_attr_queue_depth,
	&rbdt_tpg_attrib_attr_max_queues,
	&rbdt_tpg_attrib_attr_inline_data_size,
	&rbdt_tpg_attrib_attr_imm_read_size,
	&rbdt_tpg_attrib_attr_max_halfopen,
	&rbdt_tpg_attrib_attr_max_halfopen_per_host,
	&rbdt_tpg_attrib_attr_max_sessions_per_acl,
	&rbdt_tpg_attrib_attr_authentication,
	&rbdt_tpg_attrib_attr_data_pool_kb,
	&rbdt_tpg_attrib_attr_max_write_fetches,
	NULL,
};
