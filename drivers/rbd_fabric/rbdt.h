/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbdt: the LIO fabric "rbd" of the RDMA block device (private header).
 */
#ifndef RBDT_H
#define RBDT_H

#include <linux/build_bug.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "rbd_name.h"

#define RBDT_VERSION		"0.1.0"
/*
 * Wire protocol version this module speaks. To be replaced by
 * RBD_PROTO_VER_MAJOR from include/uapi/rbd/rbd_proto.h once it lands.
 */
#define RBDT_PROTO_VERSION	1
#define RBDT_VERSION_STRING						\
	"rbdt " RBDT_VERSION " (protocol " __stringify(RBDT_PROTO_VERSION) ")"

/* The LIO fabric name: /sys/kernel/config/target/rbd. Never rename it. */
#define RBDT_FABRIC_NAME	"rbd"

static_assert(RBD_NAME_MAX < TRANSPORT_IQN_LEN);

/**
 * struct rbdt_tport - a target, /sys/kernel/config/target/rbd/<name>
 * @wwn: LIO's part; configfs and core reach us through it.
 * @name: The target name, validated by rbd_name_check(). It is what
 *	tpg_get_wwn() returns, so it lives as long as any TPG below it.
 */
struct rbdt_tport {
	struct se_wwn wwn;
	char name[RBD_NAME_MAX + 1];
};

/**
 * struct rbdt_tpg_attrib - the tunables in tpgt_N/attrib/
 * @generate_node_acls: Let initiators without an explicit ACL log in, with
 *	a dynamic ACL (LIO "demo mode").
 * @demo_mode_write_protect: Map LUNs read-only through dynamic ACLs.
 * @cache_dynamic_acls: Keep a dynamic ACL after its last session ended.
 * @max_io_size: Largest data transfer of one command, in bytes.
 * @queue_depth: Commands outstanding per queue (QP).
 * @max_queues: Queues (QPs) one session may open.
 * @inline_data_size: Largest write whose data travels inside the command.
 * @imm_read_size: Largest read whose data travels inside the response.
 *
 * Written by configfs stores with WRITE_ONCE() and read with READ_ONCE();
 * no lock, since each is a single independent value. The transport limits
 * are read once when a session logs in, so a change applies to new
 * sessions only. Defaults and ranges are in rbdt_configfs.c.
 */
struct rbdt_tpg_attrib {
	bool generate_node_acls;
	bool demo_mode_write_protect;
	bool cache_dynamic_acls;
	u32 max_io_size;
	u32 queue_depth;
	u32 max_queues;
	u32 inline_data_size;
	u32 imm_read_size;
};

/**
 * struct rbdt_tpg - a target portal group, <target>/tpgt_<tag>
 * @se_tpg: LIO's part.
 * @tport: The target this TPG belongs to (its configfs parent).
 * @tag: The N of tpgt_N, 1..65535.
 * @name: "<target>/tpgt_<N>", the prefix of log lines about the TPG.
 * @lock: Protects @enabled and @np_list.
 * @enabled: Logins are accepted only while set; mirrors the core's
 *	tpgt_N/enable, but under @lock so that a login can test it
 *	consistently against a concurrent disable.
 * @np_list: The &struct rbdt_np portals of this TPG. Protected by @lock.
 * @attrib: The tunables of tpgt_N/attrib/.
 */
struct rbdt_tpg {
	struct se_portal_group se_tpg;
	struct rbdt_tport *tport;
	u16 tag;
	char name[RBD_NAME_MAX + sizeof("/tpgt_65535")];
	struct mutex lock;	/* protects enabled, np_list */
	bool enabled;
	struct list_head np_list;
	struct rbdt_tpg_attrib attrib;
};

struct rbdt_listener;

/**
 * struct rbdt_np - a network portal, tpgt_N/np/<address>:<port>
 * @se_tpg_np: LIO's part.
 * @tpg: The TPG the portal belongs to (its configfs grandparent).
 * @listener: The rdma_cm listener for the address; several portals with
 *	the same address share one (see rbdt_cm.c). Holds a reference.
 * @tpg_entry: Entry in @tpg->np_list.
 */
struct rbdt_np {
	struct se_tpg_np se_tpg_np;
	struct rbdt_tpg *tpg;
	struct rbdt_listener *listener;
	struct list_head tpg_entry;
};

/**
 * struct rbdt_nacl - an initiator ACL, explicit (acls/<name>) or dynamic
 * @se_node_acl: LIO's part. Must stay the first member: core allocates
 *	node_acl_size bytes and uses them as a &struct se_node_acl.
 */
struct rbdt_nacl {
	struct se_node_acl se_node_acl;
};

static inline struct rbdt_tport *to_rbdt_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct rbdt_tport, wwn);
}

static inline struct rbdt_tpg *to_rbdt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct rbdt_tpg, se_tpg);
}

static inline struct rbdt_np *to_rbdt_np(struct se_tpg_np *se_tpg_np)
{
	return container_of(se_tpg_np, struct rbdt_np, se_tpg_np);
}

/* Log lines about a TPG start with "<target>/tpgt_<tag>: ". */
#define rbdt_tpg_err(tpg, fmt, ...)					\
	pr_err("%s: " fmt, (tpg)->name, ##__VA_ARGS__)
#define rbdt_tpg_info(tpg, fmt, ...)					\
	pr_info("%s: " fmt, (tpg)->name, ##__VA_ARGS__)

/* rbdt_main.c */
extern struct workqueue_struct *rbdt_wq;
extern struct dentry *rbdt_debugfs_root;

int rbdt_parse_u16(const char *s, u16 *res);

/* rbdt_configfs.c */
extern struct configfs_attribute *rbdt_fabric_attrs[];
extern struct configfs_attribute *rbdt_tpg_attrib_attrs[];

struct se_wwn *rbdt_make_wwn(struct target_fabric_configfs *tf,
			     struct config_group *group, const char *name);
void rbdt_drop_wwn(struct se_wwn *wwn);
struct se_portal_group *rbdt_make_tpg(struct se_wwn *wwn, const char *name);
void rbdt_drop_tpg(struct se_portal_group *se_tpg);
int rbdt_enable_tpg(struct se_portal_group *se_tpg, bool enable);
struct se_tpg_np *rbdt_make_np(struct se_portal_group *se_tpg,
			       struct config_group *group, const char *name);
void rbdt_drop_np(struct se_tpg_np *se_tpg_np);
int rbdt_init_nodeacl(struct se_node_acl *se_nacl, const char *name);

/* rbdt_cm.c */
const char *rbdt_parse_portal(const char *name, struct sockaddr_storage *addr);
struct rbdt_listener *rbdt_listener_get(const struct sockaddr_storage *addr);
void rbdt_listener_put(struct rbdt_listener *l);
void rbdt_cm_exit(void);

#endif /* RBDT_H */
