/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbdi: the blk-mq initiator of the RDMA block device (private header).
 */
#ifndef RBDI_H
#define RBDI_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/configfs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <rbd/rbd_proto.h>
#include <rbd/rbd_proto_check.h>

#include "rbd_auth.h"
#include "rbd_compat.h"
#include "rbd_name.h"

#define RBDI_VERSION		"0.1.0"
/* Wire protocol version this module speaks. */
#define RBDI_PROTO_VERSION	RBD_PROTO_VERSION
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
/*
 * After ABORT TASK is answered "no such task", how long the command's own
 * response, which travels on another queue, may still take to arrive: the
 * keep-alive timeout (the silence a session tolerates), at least this.
 */
#define RBDI_LOST_GRACE_MS	2000

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
 * Changed under @state_lock of the session. A lost connection moves a
 * live session to RECONNECTING (I/O held) and from there back to LIVE, or
 * to OFFLINE after ctrl_loss_tmo (the disk stays and fails I/O until
 * enable is written 0).
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
 * @nr_queues: Queues (QPs) to open for interrupt-driven I/O.
 * @nr_poll_queues: Extra queues for polled I/O (io_uring hipri, preadv2
 *	RWF_HIPRI); their CQs are polled by the submitter, not interrupts.
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
 * @bare_reads: 1 to offer %RBD_FEAT_BARE_READ at login: the target may
 *	answer an immediate read that ended well with its data alone.
 * @rsp_batches: 1 to offer %RBD_FEAT_RSP_BATCH: the target may answer
 *	several commands of a queue in one SEND.
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
	u32 nr_poll_queues;
	u32 queue_depth;
	u32 max_io_size;
	u32 inline_data_size;
	u32 imm_read_size;
	u32 io_timeout;
	u32 reconnect_delay;
	s32 ctrl_loss_tmo;
	s32 fast_io_fail_tmo;
	u32 bare_reads;
	u32 rsp_batches;
};

/* rbdi_configfs.c handles every string attribute as RBDI_STR_SIZE bytes. */
static_assert(sizeof_field(struct rbdi_sess_opts, traddr) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, src_addr) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, target) == RBDI_STR_SIZE);
static_assert(sizeof_field(struct rbdi_sess_opts, initiator) == RBDI_STR_SIZE);

/*
 * enum rbdi_stat - the counters of a session, shown in debugfs:
 * @reads: READ commands sent.
 * @writes: WRITE commands sent.
 * @flushes: SYNCHRONIZE CACHE commands sent.
 * @passthrough: Passthrough (SG_IO and probe) commands sent.
 * @inline_writes: Writes with their data in the capsule.
 * @inline_gathered: Those whose SEND gathered the data from the request's
 *	pages instead of a copy in the capsule buffer.
 * @imm_reads: Reads answered with immediate data.
 * @bare_reads: Of those, answered with a bare response (the data alone).
 * @rsp_batches: Response batches received (several responses in one SEND).
 * @rsps_batched: Responses received in them.
 * @mr_maps: Requests that registered an MR.
 * @reg_fences: Of those, registrations fenced with a LOCAL_INV.
 * @remote_invs: MRs invalidated by the target (SEND_WITH_INV).
 * @local_invs: MRs invalidated with LOCAL_INV.
 * @errors: Commands that ended with an error status.
 * @retries: Commands retried (BUSY, TASK ABORTED, UNIT ATTENTION).
 * @aborts: ABORT TASK requests sent for commands that timed out.
 * @polled: Work completions reaped by polling (poll queues).
 * @conn_losses: Error recoveries started.
 * @reconnects: Successful reconnects.
 * @discards: UNMAP commands sent (discard requests).
 * @write_zeroes: WRITE SAME(16) commands sent (write-zeroes requests).
 *
 * Each CPU counts in its own copy (&rbdi_session.stats), without atomics;
 * a reader sums the copies (rbd_stats_sum()). The names are
 * rbdi_stat_names[], the enumerators the same in upper case.
 */
enum rbdi_stat {
	RBDI_STAT_READS,
	RBDI_STAT_WRITES,
	RBDI_STAT_FLUSHES,
	RBDI_STAT_DISCARDS,
	RBDI_STAT_WRITE_ZEROES,
	RBDI_STAT_PASSTHROUGH,
	RBDI_STAT_INLINE_WRITES,
	RBDI_STAT_INLINE_GATHERED,
	RBDI_STAT_IMM_READS,
	RBDI_STAT_BARE_READS,
	RBDI_STAT_RSP_BATCHES,
	RBDI_STAT_RSPS_BATCHED,
	RBDI_STAT_MR_MAPS,
	RBDI_STAT_REG_FENCES,
	RBDI_STAT_REMOTE_INVS,
	RBDI_STAT_LOCAL_INVS,
	RBDI_STAT_ERRORS,
	RBDI_STAT_RETRIES,
	RBDI_STAT_ABORTS,
	RBDI_STAT_POLLED,
	RBDI_STAT_CONN_LOSSES,
	RBDI_STAT_RECONNECTS,
	RBDI_NR_STATS
};

/* struct rbdi_stats - one CPU's share of a session's counters */
struct rbdi_stats {
	u64 v[RBDI_NR_STATS];
};

extern const char * const rbdi_stat_names[RBDI_NR_STATS];

/*
 * Latency histogram buckets: <1 us, then [2^(i-1), 2^i) us for i = 1..20,
 * then >= 2^20 us (about 1 s).
 */
#define RBDI_LAT_BUCKETS	22

/* Columns of the latency histogram. */
enum {
	RBDI_LAT_READ,
	RBDI_LAT_WRITE,
	RBDI_LAT_OTHER,
	RBDI_LAT_OPS,
};

/**
 * struct rbdi_lat - per-CPU completion latency histogram of a session
 * @cnt: Requests completed, by column (read, write, other) and bucket.
 */
struct rbdi_lat {
	u64 cnt[RBDI_LAT_OPS][RBDI_LAT_BUCKETS];
};

/* Sizes of the identification strings of a LUN, with the NUL. */
#define RBDI_SERIAL_SIZE	256
#define RBDI_WWID_SIZE		264

/**
 * struct rbdi_lun_info - what the LUN told about itself at device creation
 * @vendor: T10 vendor identification (standard INQUIRY), trimmed.
 * @model: Product identification, trimmed.
 * @rev: Product revision level, trimmed.
 * @serial: Unit serial number (VPD page 0x80), trimmed; "" if none.
 * @wwid: Best logical unit designator of VPD page 0x83 as "naa.<hex>",
 *	"eui.<hex>", "t10.<text>" or a SCSI name string; "" if none.
 * @lbpme: Logical block provisioning is enabled (READ CAPACITY(16)).
 * @lbprz: Unmapped blocks read as zeroes (READ CAPACITY(16) or VPD 0xb2).
 * @tpu: UNMAP is supported (VPD 0xb2).
 * @tpws: WRITE SAME(16) with UNMAP is supported (VPD 0xb2).
 * @max_xfer: MAXIMUM TRANSFER LENGTH in blocks (VPD 0xb0), 0 for none.
 * @opt_xfer: OPTIMAL TRANSFER LENGTH in blocks (VPD 0xb0), 0 for none.
 * @max_unmap: MAXIMUM UNMAP LBA COUNT (VPD 0xb0), 0: no UNMAP.
 * @max_unmap_desc: MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT, 0: no UNMAP.
 * @unmap_gran: OPTIMAL UNMAP GRANULARITY in blocks, 0 for none.
 * @unmap_align: UNMAP GRANULARITY ALIGNMENT in blocks, if @unmap_align_valid.
 * @unmap_align_valid: The UGAVALID bit.
 * @max_ws: MAXIMUM WRITE SAME LENGTH in blocks (VPD 0xb0), 0 for none.
 * @rotation: MEDIUM ROTATION RATE (VPD 0xb1): 0 not reported, 1 solid
 *	state, else revolutions per minute.
 *
 * Written by rbdi_blk_add() before the disk is added, then constant: the
 * sysfs attributes read it without locking.
 */
struct rbdi_lun_info {
	char vendor[9];
	char model[17];
	char rev[5];
	char serial[RBDI_SERIAL_SIZE];
	char wwid[RBDI_WWID_SIZE];
	bool lbpme;
	bool lbprz;
	bool tpu;
	bool tpws;
	u32 max_xfer;
	u32 opt_xfer;
	u32 max_unmap;
	u32 max_unmap_desc;
	u32 unmap_gran;
	u32 unmap_align;
	bool unmap_align_valid;
	u64 max_ws;
	u16 rotation;
};

/**
 * struct rbdi_fault - a session's fault counters (rbdi_fault.c)
 * @capacity_ua: GOOD responses to turn into UNIT ATTENTION 2A/09.
 * @lose_cmd: Commands to start without posting them.
 * @post_send: Posts of commands to fail with -ENOTCONN.
 */
struct rbdi_fault {
	atomic_t capacity_ua;
	atomic_t lose_cmd;
	atomic_t post_send;
};

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
 * @state_lock: Protects the writes of @state, which the error work
 *	changes without @lock.
 * @dst: Target address, parsed from @opts at enable.
 * @src: Source address, if @has_src.
 * @has_src: @opts.src_addr was set.
 * @ibdev: RDMA device of the session; all queues must resolve to it.
 * @pd: Protection domain on @ibdev, shared by all queues.
 * @max_fr_pages: Pages one fast-registration MR maps.
 * @reg_fence: Put a LOCAL_INV ahead of every REG_MR (Soft-RoCE; see
 *	rbdi_map_mr()).
 * @offer: Feature bits offered at login, kept through reconnects so that
 *	the target grants the same; 0 until queue 0 first connects.
 * @queues: @nr_queues + 1 queues; [0] is the control queue.
 * @queues_alloc: Entries allocated in @queues.
 * @nr_queues: Number of I/O queues (granted at LOGIN).
 * @nr_poll: How many of them, the last ones, are poll queues.
 * @login_req: The LOGIN request sent on queue 0 (wire format).
 * @login_rsp: The LOGIN response, valid after a successful login.
 * @ctrl_done: Completed by the receive handler of queue 0 when the
 *	awaited LOGIN or LOGOUT response arrives.
 * @ctrl_opcode: Response opcode awaited on control slot 0, 0 for none.
 *	Written under @ctrl_lock.
 * @ctrl_result: Outcome for the waiter on @ctrl_done.
 * @ctrl_lock: Protects @ctrl_opcode, @ctrl_result, the NOP and TMF state,
 *	and orders posts of an ABORT TASK against queue 0 going down.
 * @ka_ms: Keep-alive timeout granted at LOGIN, 0 for none.
 * @ka_work: Sends the keep-alive NOPs.
 * @nop_pending: A NOP is outstanding since @nop_sent (jiffies).
 * @nop_sent: When the outstanding NOP was sent.
 * @tmf_pending: An ABORT TASK is outstanding (one at a time).
 * @tmf_ref: The tag it aborts.
 * @lost_tag: Tag of a command the target answered "no such task" for.
 * @lost_work: Recovers the session if @lost_tag is still unanswered
 *	after rbdi_lost_grace_ms(); runs on rbdi_wq.
 * @err_work: Error recovery; runs on rbdi_wq.
 * @reconnect_work: Reconnect attempts; runs on rbdi_wq.
 * @loss_time: When the connection was lost (jiffies).
 * @attempt_start: When the last reconnect attempt began (jiffies); the
 *	next begins reconnect_delay seconds later.
 * @q0_connect_ms: How long queue 0 takes to connect, a running average;
 *	a reconnect attempt waits a multiple of it.
 * @q0_timeouts: Connects of queue 0 in a row that timed out.
 * @quiesced: The error work quiesced the disk's queue; the reconnect
 *	work or the teardown unquiesces it. Only touched by these, which
 *	never run concurrently.
 * @deleting: Teardown has begun: a lost connection is not reconnected.
 *	Written under @state_lock.
 * @tag_rsp: The LOGIN response the tag set, its command buffers and the
 *	disk's limits were sized for, valid while @tag_set_ready. A
 *	reconnect must be granted the same limits, except that inline
 *	writes and immediate reads are then used only up to the smaller of
 *	the two sizes (rbdi_check_grant()).
 * @tag_set: blk-mq tag set, one hardware queue per I/O queue.
 * @tag_set_ready: @tag_set was allocated.
 * @disk: The block device, or NULL.
 * @disk_added: add_disk() succeeded for @disk.
 * @idx: Index N of /dev/rbdiN, or -1.
 * @lbs: Logical block size of the LUN.
 * @write_cache: The LUN reports a volatile write cache (WCE).
 * @fua: The LUN accepts FUA (DPOFUA).
 * @lun_info: Identification and provisioning limits of the LUN.
 * @ws_unmap: Write zeroes may set UNMAP in WRITE SAME(16) (TPWS and
 *	LBPRZ).
 * @debugfs: /sys/kernel/debug/rbdi/<name>/.
 * @stats: Counters, one copy per CPU.
 * @lat: Completion latency histogram (debugfs latency), per CPU.
 * @rescan_work: Reads the capacity again after a UNIT ATTENTION
 *	CAPACITY DATA HAS CHANGED; runs on rbdi_wq.
 * @rescan_mutex: Serialises rescans (the work and the sysfs attribute).
 * @rescan_on: @rescan_work may be queued: the disk is added and the
 *	teardown has not begun. Written under @state_lock.
 * @fault: Test-only fault injection (rbdi_fault.c), in test builds only.
 */
/**
 * struct rbdi_auth - a session's credentials and its last exchange
 * @ini: auth_user and auth_secret: what this initiator proves.
 * @tgt: auth_mutual_user and auth_mutual_secret: what the target must
 *	prove; unset for one-way authentication.
 * @begin: The AUTH_BEGIN sent on the current queue 0.
 * @begin_rsp: Its checked answer.
 * @proof: The AUTH_PROOF sent.
 * @proof_rsp: Its checked answer.
 */
struct rbdi_auth {
	struct rbd_auth_secret ini;
	struct rbd_auth_secret tgt;
	struct rbd_auth_begin begin;
	struct rbd_auth_begin_rsp begin_rsp;
	struct rbd_auth_proof proof;
	struct rbd_auth_proof_rsp proof_rsp;
};

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
	struct rbdi_auth *auth;
	bool cm_auth;
	/*
	 * The LOGIN's instance, the same on every reconnect, so that the
	 * target closes the earlier session first (RBD_FEAT_REINSTATE), if
	 * queue 0's connect reply said it can (cm_reinstate).
	 */
	u64 instance;
	bool cm_reinstate;

	spinlock_t state_lock;	/* writes of state, last_error */
	char last_error[128];
	struct sockaddr_storage dst;
	struct sockaddr_storage src;
	bool has_src;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 max_fr_pages;
	bool reg_fence;
	u64 offer;
	struct rbdi_queue *queues;
	unsigned int queues_alloc;
	unsigned int nr_queues;
	unsigned int nr_poll;
	struct rbd_login_req login_req;
	struct rbd_login_rsp login_rsp;
	struct completion ctrl_done;
	u8 ctrl_opcode;
	int ctrl_result;
	spinlock_t ctrl_lock;	/* ctrl_opcode, NOP state */
	u32 ka_ms;
	struct delayed_work ka_work;
	bool nop_pending;
	unsigned long nop_sent;
	bool tmf_pending;
	u64 tmf_ref;
	u64 lost_tag;
	struct delayed_work lost_work;
	struct work_struct err_work;
	struct delayed_work reconnect_work;
	unsigned long loss_time;
	unsigned long attempt_start;
	unsigned int q0_connect_ms;
	unsigned int q0_timeouts;
	bool quiesced;
	bool deleting;
	struct rbd_login_rsp tag_rsp;
	struct blk_mq_tag_set tag_set;
	bool tag_set_ready;
	struct gendisk *disk;
	bool disk_added;
	int idx;
	u32 lbs;
	bool write_cache;
	bool fua;
	struct rbdi_lun_info lun_info;
	bool ws_unmap;
	struct dentry *debugfs;
	struct rbdi_stats __percpu *stats;
	struct rbdi_lat __percpu *lat;
	struct work_struct rescan_work;
	struct mutex rescan_mutex;	/* serialises rescans */
	bool rescan_on;
#if IS_ENABLED(CONFIG_RBD_FAULT_INJECTION)
	struct rbdi_fault fault;
#endif
};

/* Count @n events of counter @i of @sess on this CPU. */
static inline void rbdi_stat_add(struct rbdi_session *sess,
				 enum rbdi_stat i, u64 n)
{
	this_cpu_add(sess->stats->v[i], n);
}

static inline void rbdi_stat_inc(struct rbdi_session *sess, enum rbdi_stat i)
{
	this_cpu_inc(sess->stats->v[i]);
}

/* Bits of &rbdi_queue.flags. */
enum {
	RBDI_Q_CONNECTED,	/* ESTABLISHED was seen */
	RBDI_Q_LIVE,		/* may post commands */
	RBDI_Q_DRAINED,		/* disconnected and drained */
};

/**
 * struct rbdi_rbuf - a receive buffer
 * @cqe: Completion entry of the posted receive.
 * @buf: The buffer, 8-byte aligned.
 * @dma: Its DMA address.
 */
struct rbdi_rbuf {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
};

/**
 * struct rbdi_ctrl_slot - a control slot of queue 0 (LOGIN/LOGOUT, NOP)
 * @cqe: Completion entry of the send.
 * @buf: Capsule buffer of %RBD_CTRL_CAPSULE_MAX bytes.
 * @dma: Its DMA address.
 * @gen: Generation of the last request sent on the slot.
 */
struct rbdi_ctrl_slot {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
	u16 gen;
};

/* Control slots used on queue 0. */
#define RBDI_SLOT_LOGIN		0
/* How long a control request (LOGIN, AUTH, LOGOUT) waits for its answer. */
#define RBDI_CTRL_WAIT_MS	15000
#define RBDI_SLOT_NOP		1
#define RBDI_SLOT_TMF		2
#define RBDI_NR_USED_SLOTS	3

/**
 * struct rbdi_queue - one RDMA connection of a session
 * @sess: The session.
 * @qid: 0 for the control queue, 1..nr_queues for I/O queues.
 * @depth: Command slots (0 on queue 0).
 * @flags: %RBDI_Q_CONNECTED, %RBDI_Q_LIVE.
 * @cm_id: rdma_cm id, or NULL.
 * @qp: The QP, created on @cm_id.
 * @cq: Completion queue (shared CQ pool).
 * @cq_size: Number of CQEs taken from the pool.
 * @mr_pool_ready: The MR pool of @qp was set up.
 * @polled: A poll queue: @cq is IB_POLL_DIRECT, from ib_alloc_cq().
 * @poll_lock: Serialises pollers of @cq: ib_process_cq_direct() uses one
 *	work-completion array per CQ.
 * @cm_done: Completed by the CM handler when connecting ends.
 * @cm_error: Result of connecting.
 * @cm_req: Private data of the connect request.
 * @lim: Limits that responses on this queue are checked against: the
 *	grant of the current login.
 * @rbufs: Receive buffers, @nr_rbufs of @rbuf_size bytes.
 * @nr_rbufs: @depth + %RBD_CTRL_SLOTS.
 * @rbuf_size: Size of each receive buffer.
 * @slots: Control slots (queue 0 only).
 * @cmd_size: Size of a command capsule buffer of this queue. Computed
 *	from the grant that sized the tag set (&rbdi_session.tag_rsp) once
 *	there is one, so that it stays what the buffers were allocated with.
 * @inline_max: Largest write sent inside the command: the granted inline
 *	size, but never more than the command buffers were sized for.
 * @imm_max: Largest read that asks for immediate data: the granted
 *	immediate size, but never more than when the tag set was sized.
 * @send_sges: SGEs a SEND of this queue may gather (the QP's max_send_sge):
 *	the capsule header, then the pages of an inline write.
 * @tags: blk-mq tags of the hardware queue (I/O queues).
 * @last_rx: jiffies of the last capsule received (keep-alive).
 */
struct rbdi_queue {
	struct rbdi_session *sess;
	u16 qid;
	u16 depth;
	unsigned long flags;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	int cq_size;
	bool mr_pool_ready;
	bool polled;
	spinlock_t poll_lock;	/* see above */
	struct completion cm_done;
	int cm_error;
	struct rbd_cm_req cm_req;
	struct rbd_check_limits lim;
	struct rbdi_rbuf *rbufs;
	unsigned int nr_rbufs;
	u32 rbuf_size;
	struct rbdi_ctrl_slot slots[RBDI_NR_USED_SLOTS];
	u32 cmd_size;
	u32 inline_max;
	u32 imm_max;
	u32 send_sges;
	struct blk_mq_tags *tags;
	unsigned long last_rx;
};

/* Scatterlist entries embedded in each request before chaining. */
#define RBDI_INLINE_SG_CNT	2

/*
 * SGEs of a command SEND: the header and up to four pieces of inline data
 * gathered from the request's pages (within siw's limit of six).
 */
#define RBDI_SEND_SGES		5

/**
 * struct rbdi_request - per-request driver data (the blk-mq PDU)
 * @q: The queue of the request's hardware context.
 * @cmd: Command capsule buffer (@queue->cmd_size bytes), DMA-mapped.
 * @cmd_dma: Its DMA address.
 * @ref: Completes the request at zero: one for the send completion,
 *	one for the response (or the local invalidation after it).
 * @send_cqe: Completion entry of the command SEND.
 * @reg_cqe: Completion entry of the REG_MR (errors only).
 * @inv_cqe: Completion entry of a LOCAL_INV.
 * @mr: Fast-registration MR of the data, or NULL.
 * @sgt: Scatterlist of the data when @mr is used.
 * @nents: Entries of @sgt that are DMA-mapped, 0 when none.
 * @dir: DMA direction of the mapping.
 * @gen: Generation of the current tag.
 * @awaiting: The command was posted and its response has not arrived.
 * @requeue: Cancelled by the error recovery; requeue it on completion.
 * @imm: The command is a READ asking for immediate data.
 * @retries: Retries of a busy or aborted command.
 * @start_ns: When the command was first sent (ktime_get_ns()), for the
 *	latency histogram; 0 while the request is not in flight.
 * @abort_sent: The command timed out once and ABORT TASK was sent.
 * @sts: Transport-level result.
 * @status: SCSI status of the response.
 * @sense_len: Valid bytes in @sense.
 * @resid: Residual of the response (positive: underflow).
 * @data_len: Expected data length of the command.
 * @cdb: CDB of a passthrough request, set by the submitter.
 * @cdb_len: Its length.
 * @sense: Sense data of the response.
 * @payload: Page of the parameter data of a discard (UNMAP) or
 *	write-zeroes (WRITE SAME) request, from rbdi_page_pool; NULL for
 *	other requests.
 * @first_sgl: Embedded scatterlist entries.
 */
struct rbdi_request {
	struct rbdi_queue *q;
	struct rbd_cmd *cmd;
	u64 cmd_dma;
	refcount_t ref;
	struct ib_cqe send_cqe;
	struct ib_cqe reg_cqe;
	struct ib_cqe inv_cqe;
	struct ib_mr *mr;
	struct sg_table sgt;
	int nents;
	enum dma_data_direction dir;
	u16 gen;
	bool awaiting;
	bool requeue;
	bool imm;
	bool abort_sent;
	u8 retries;
	u64 start_ns;
	blk_status_t sts;
	u8 status;
	u16 sense_len;
	s32 resid;
	u32 data_len;
	u8 cdb[RBD_MAX_CDB_LEN];
	u8 cdb_len;
	u8 sense[RBD_MAX_SENSE_LEN];
	struct page *payload;
	struct scatterlist first_sgl[];
};

/* Log lines about a session start with "session <name>: ". */
#define rbdi_sess_err(sess, fmt, ...)					\
	pr_err("session %s: " fmt, (sess)->name, ##__VA_ARGS__)
#define rbdi_sess_info(sess, fmt, ...)					\
	pr_info("session %s: " fmt, (sess)->name, ##__VA_ARGS__)

/* Rate-limited log lines of the data path, naming session and address. */
#define rbdi_sess_err_rl(sess, fmt, ...)				\
	do {								\
		const struct rbdi_session *__s = (sess);		\
									\
		pr_err_ratelimited("session %s (%pISpc): " fmt,		\
				   __s->name, &__s->dst, ##__VA_ARGS__); \
	} while (0)

/* rbdi_main.c */
extern int rbdi_major;
extern struct dentry *rbdi_debugfs_root;
extern struct workqueue_struct *rbdi_wq;
extern bool rbdi_rxe_reg_fence;
extern bool rbdi_post_bh_disabled;
extern bool rbdi_poll_post_bh_disabled;

/* rbdi_session.c */
struct rbdi_session *rbdi_sess_create(const char *name);
void rbdi_sess_delete(struct rbdi_session *sess);
void rbdi_sess_get(struct rbdi_session *sess);
void rbdi_sess_put(struct rbdi_session *sess);
const char *rbdi_sess_state_name(enum rbdi_sess_state state);
int rbdi_sess_enable(struct rbdi_session *sess);
void rbdi_sess_disable(struct rbdi_session *sess);
const char *rbdi_check_addr(const char *addr);
int rbdi_sessions_init(void);
void rbdi_sessions_exit(void);
void rbdi_sess_error(struct rbdi_session *sess);
void rbdi_sess_set_last_error(struct rbdi_session *sess, const char *why);

/* rbdi_rdma.c */
int rbdi_connect(struct rbdi_session *sess);
void rbdi_stop_queues(struct rbdi_session *sess);
void rbdi_free_queues(struct rbdi_session *sess, bool all);
int rbdi_post_recv(struct rbdi_queue *q, struct rbdi_rbuf *rb);
void rbdi_queue_lost(struct rbdi_queue *q);

/* rbdi_ctrl.c */
u64 rbdi_ctrl_arm(struct rbdi_session *sess, u8 opcode);
int rbdi_ctrl_exec(struct rbdi_session *sess, u8 rsp_opcode, u32 len,
		   unsigned int wait_ms);
void rbdi_ctrl_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		   struct ib_wc *wc);
void rbdi_ctrl_lost(struct rbdi_session *sess);
int rbdi_login(struct rbdi_session *sess);
void rbdi_logout(struct rbdi_session *sess);
void rbdi_ka_work(struct work_struct *work);
int rbdi_send_abort(struct rbdi_session *sess, u64 ref_tag);

/* rbdi_auth.c */
int rbdi_authenticate(struct rbdi_session *sess);
bool rbdi_auth_take_rsp(struct rbdi_session *sess, const void *buf, u32 len);
int rbdi_auth_check_config(struct rbdi_session *sess);

/* rbdi_sgio.c */
int rbdi_ioctl(struct block_device *bdev, blk_mode_t mode,
	       unsigned int cmd, unsigned long arg);

/* rbdi_blk.c */
int rbdi_blk_add(struct rbdi_session *sess);
void rbdi_blk_del(struct rbdi_session *sess);
void rbdi_blk_free(struct rbdi_session *sess);
void rbdi_blk_cancel(struct rbdi_session *sess, bool requeue);
void rbdi_lost_work(struct work_struct *work);

static inline u32 rbdi_lost_grace_ms(const struct rbdi_session *sess)
{
	return max_t(u32, sess->ka_ms, RBDI_LOST_GRACE_MS);
}

int rbdi_blk_init(void);
void rbdi_blk_exit(void);
int rbdi_blk_sess_init(struct rbdi_session *sess);
void rbdi_blk_sess_free(struct rbdi_session *sess);

/* rbdi_rsp.c */
void rbdi_req_init_cqes(struct rbdi_request *req);
struct request *rbdi_awaiting_rq(struct rbdi_queue *q, u64 tag,
				 const char **why);
void rbdi_blk_bare_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		       struct ib_wc *wc);
void rbdi_blk_rsp(struct rbdi_queue *q, struct rbdi_rbuf *rb,
		  struct ib_wc *wc);

/* rbdi_scsi.c */
/* Retries of a command answered BUSY, TASK ABORTED or UNIT ATTENTION. */
#define RBDI_MAX_RETRIES	5

int rbdi_probe_lun(struct rbdi_session *sess, unsigned int max_sectors,
		   u64 *sectors);
int rbdi_blk_rescan(struct rbdi_session *sess);
void rbdi_rescan_work(struct work_struct *work);
void rbdi_blk_stop_rescan(struct rbdi_session *sess);
blk_status_t rbdi_scsi_sts(struct rbdi_session *sess, struct request *rq,
			   bool *retry);
void rbdi_check_capacity_ua(struct rbdi_session *sess,
			    struct rbdi_request *req);

/* rbdi_sysfs.c */
extern const struct attribute_group *rbdi_disk_groups[];

/* rbdi_debugfs.c */
void rbdi_debugfs_add(struct rbdi_session *sess);

/* rbdi_configfs.c */
int rbdi_configfs_init(void);
void rbdi_configfs_exit(void);

/* rbdi_fault.c: empty unless built with RBD_FAULT_INJECTION=1 */
#if IS_ENABLED(CONFIG_RBD_FAULT_INJECTION)
bool rbdi_fault_lose_cmd(struct rbdi_session *sess);
bool rbdi_fault_post_send(struct rbdi_session *sess);
void rbdi_fault_capacity_ua(struct rbdi_session *sess, struct request *rq);
void rbdi_fault_debugfs_add(struct rbdi_session *sess);
#else
static inline bool rbdi_fault_lose_cmd(struct rbdi_session *sess)
{
	return false;
}

static inline bool rbdi_fault_post_send(struct rbdi_session *sess)
{
	return false;
}

static inline void rbdi_fault_capacity_ua(struct rbdi_session *sess,
					  struct request *rq)
{
}

static inline void rbdi_fault_debugfs_add(struct rbdi_session *sess)
{
}
#endif

#endif /* RBDI_H */
