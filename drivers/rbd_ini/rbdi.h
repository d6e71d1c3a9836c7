/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbdi: the blk-mq initiator of the RDMA block device (private header).
 */
#ifndef RBDI_H
#define RBDI_H

#include <linux/blkdev.h>
#include <linux/build_bug.h>
#include <linux/configfs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/stringify.h>
#include <linux/types.h>

#include "rbd_name.h"

#define RBDI_VERSION		"0.1.0"
/*
 * Wire protocol version this module speaks. To be replaced by
 * RBD_PROTO_VER_MAJOR from include/uapi/rbd/rbd_proto.h once it lands.
 */
#define RBDI_PROTO_VERSION	1
#define RBDI_VERSION_STRING						\
	"rbdi " RBDI_VERSION " (protocol " __stringify(RBDI_PROTO_VERSION) ")"

/* Longest session (configfs directory) name. */
#define RBDI_SESS_NAME_MAX	64
/*
 * Size of the string attributes (names and addresses) in
 * &struct rbdi_sess_opts: the longest name plus the NUL. Address literals
 * are shorter; inet_pton_with_scope() accepts at most 48 characters.
 */
#define RBDI_STR_SIZE		(RBD_NAME_MAX + 1)
/* Most queues (QPs) per session. */
#define RBDI_MAX_QUEUES		64

/**
 * enum rbdi_sess_state - where a session is in its life
 * @RBDI_SESS_OFFLINE: Configured but not enabled, or given up on after
 *	ctrl_loss_tmo. The initial state.
 * @RBDI_SESS_CONNECTING: enable was written; connecting and logging in.
 * @RBDI_SESS_LIVE: Logged in; the disk accepts I/O.
 * @RBDI_SESS_RECONNECTING: The connection was lost; I/O is held while a
 *	reconnect is attempted every reconnect_delay seconds.
 * @RBDI_SESS_DELETING: The directory is being removed. Final.
 *
 * Changed only by rbdi_sess_set_state(), under the session lock. Today
 * only OFFLINE and DELETING are reachable: the login is not written yet.
 */
enum rbdi_sess_state {
	RBDI_SESS_OFFLINE,
	RBDI_SESS_CONNECTING,
	RBDI_SESS_LIVE,
	RBDI_SESS_RECONNECTING,
	RBDI_SESS_DELETING,
};

/**
 * struct rbdi_sess_opts - the configuration of a session
 * @traddr: Target address, an IPv4 or IPv6 literal; "" until set.
 * @trsvcid: Target port.
 * @src_addr: Local address to connect from, or "" to let routing choose.
 * @target: Target name (rbd_name_check() format); "" until set.
 * @lun: LUN to attach.
 * @initiator: Our initiator name (rbd_name_check() format); "" until set.
 * @nr_queues: Queues (QPs) to open.
 * @queue_depth: Commands outstanding per queue.
 * @max_io_size: Largest transfer of one request, in bytes.
 * @inline_data_size: Largest write to send inside the command.
 * @imm_read_size: Largest read to accept inside the response.
 * @io_timeout: Seconds before a request times out.
 * @reconnect_delay: Seconds between reconnect attempts.
 * @ctrl_loss_tmo: Seconds to keep reconnecting before giving up, or -1
 *	to reconnect forever.
 * @fast_io_fail_tmo: Seconds after a connection loss before held I/O is
 *	failed while reconnects go on, or -1 to hold I/O until
 *	ctrl_loss_tmo.
 *
 * Defaults and ranges are listed in rbdi_configfs.c.
 */
struct rbdi_sess_opts {
	char traddr[RBDI_STR_SIZE];
	u16 trsvcid;
	char src_addr[RBDI_STR_SIZE];
	char target[RBDI_STR_SIZE];
	u64 lun;
	char initiator[RBDI_STR_SIZE];
	u32 nr_queues;
	u32 queue_depth;
	u32 max_io_size;
	u32 inline_data_size;
	u32 imm_read_size;
	u32 io_timeout;
	u32 reconnect_delay;
	s32 ctrl_loss_tmo;
	s32 fast_io_fail_tmo;
};

/* rbdi_configfs.c handles every string attribute as RBDI_STR_SIZE bytes. */
static_assert(sizeof_field(struct rbdi_sess_opts, traddr) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, src_addr) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, target) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, initiator) == RBDI_STR_SIZE);

/**
 * struct rbdi_session - one session, /sys/kernel/config/rbdi/<name>
 * @group: The configfs directory. Its release drops the reference that
 *	the directory holds on @ref.
 * @ref: Lifetime of the object. The configfs directory holds one
 *	reference; connect and reconnect work will hold one while they
 *	run. Freed by the last rbdi_sess_put(), never directly.
 * @name: The directory name, for log messages.
 * @entry: Entry in the list of all sessions. Protected by
 *	rbdi_sessions_mutex.
 * @lock: Serialises configuration stores against enable and against each
 *	other, so that enable reads a consistent @opts. Protects @opts,
 *	@disk_name, and the writes of @enabled and @state.
 * @enabled: The value of the enable attribute. Written under @lock; read
 *	with READ_ONCE() where @lock is not held.
 * @state: See &enum rbdi_sess_state. Written under @lock; read with
 *	READ_ONCE() by the state attribute, which must not block behind a
 *	connect in progress.
 * @disk_name: Name of the block device, "" while there is none.
 * @opts: The configuration.
 */
struct rbdi_session {
	struct config_group group;
	struct kref ref;
	char name[RBDI_SESS_NAME_MAX + 1];
	struct list_head entry;
	struct mutex lock;	/* serialises stores, enable */
	bool enabled;
	enum rbdi_sess_state state;
	char disk_name[DISK_NAME_LEN];
	struct rbdi_sess_opts opts;
};

/* Log lines about a session start with "session <name>: ". */
#define rbdi_sess_err(sess, fmt, ...)					\
	pr_err("session %s: " fmt, (sess)->name, ##__VA_ARGS__)
#define rbdi_sess_info(sess, fmt, ...)					\
	pr_info("session %s: " fmt, (sess)->name, ##__VA_ARGS__)

/* rbdi_main.c */
extern int rbdi_major;
extern struct dentry *rbdi_debugfs_root;

/* rbdi_session.c */
struct rbdi_session *rbdi_sess_create(const char *name);
void rbdi_sess_delete(struct rbdi_session *sess);
void rbdi_sess_get(struct rbdi_session *sess);
void rbdi_sess_put(struct rbdi_session *sess);
const char *rbdi_sess_state_name(enum rbdi_sess_state state);
int rbdi_sess_enable(struct rbdi_session *sess);
void rbdi_sess_disable(struct rbdi_session *sess);
const char *rbdi_check_addr(const char *addr);
void rbdi_sessions_exit(void);

/* rbdi_configfs.c */
int rbdi_configfs_init(void);
void rbdi_configfs_exit(void);

#endif /* RBDI_H */
