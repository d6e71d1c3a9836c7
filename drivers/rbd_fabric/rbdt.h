/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbdt: the LIO fabric "rbd" of the RDMA block device (private header).
 */
#ifndef RBDT_H
#define RBDT_H

#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/configfs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "rbd_auth.h"
#include "rbd_name.h"
#include "rbd/rbd_proto.h"
#include "rbd/rbd_proto_check.h"

#define RBDT_VERSION		"0.1.0"
/* Wire protocol version this module speaks. */
#define RBDT_PROTO_VERSION	RBD_PROTO_VERSION
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
 * struct rbdt_auth_cred - one auth/ group: what the initiator proves
 *	(userid, password) and what the target proves (userid_mutual,
 *	password_mutual)
 */
struct rbdt_auth_cred {
	struct rbd_auth_secret ini;
	struct rbd_auth_secret tgt;
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
 * @max_halfopen: Connections on a portal address of this TPG that have
 *	not logged in yet (see rbdt_halfopen_admit()).
 * @max_halfopen_per_host: The same, from one source address.
 * @max_sessions_per_acl: Live sessions of one initiator (ACL) at a time.
 * @authentication: A LOGIN needs a connection authenticated for its names,
 *	and unauthenticated discovery does not list the TPG.
 * @data_pool_kb: Free data pages each I/O queue of a session keeps for the
 *	data buffers of its READs and WRITEs, in KiB (struct rbdt_pool).
 * @max_write_fetches: WRITE commands of a queue that fetch their data at
 *	a time; 0 for no limit, -1 for the device's default
 *	(rbdt_fetch_limit()).
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
	u32 max_halfopen;
	u32 max_halfopen_per_host;
	u32 max_sessions_per_acl;
	bool authentication;
	u32 data_pool_kb;
	int max_write_fetches;
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
 * @sess_list: The &struct rbdt_session logged in through this TPG.
 *	Protected by @lock.
 * @attrib: The tunables of tpgt_N/attrib/.
 * @auth: Credentials of tpgt_N/auth/, for initiators without an ACL in
 *	demo mode. Protected by rbdt_auth_lock.
 */
struct rbdt_tpg {
	struct se_portal_group se_tpg;
	struct rbdt_tport *tport;
	u16 tag;
	char name[RBD_NAME_MAX + sizeof("/tpgt_65535")];
	struct mutex lock;	/* protects enabled, np_list */
	bool enabled;
	struct list_head np_list;
	struct list_head sess_list;
	struct rbdt_tpg_attrib attrib;
	struct rbdt_auth_cred auth;
};

struct rbdt_listener;
struct rbdt_auth;
struct seq_file;

/**
 * struct rbdt_np - a network portal, tpgt_N/np/<address>:<port>
 * @se_tpg_np: LIO's part.
 * @tpg: The TPG the portal belongs to (its configfs grandparent).
 * @listener: The rdma_cm listener for the address; several portals with
 *	the same address share one (see rbdt_cm.c). Holds a reference.
 * @tpg_entry: Entry in @tpg->np_list.
 * @listener_entry: Entry in the listener's list of portals. Protected by
 *	the listeners mutex (rbdt_cm.c).
 */
struct rbdt_np {
	struct se_tpg_np se_tpg_np;
	struct rbdt_tpg *tpg;
	struct rbdt_listener *listener;
	struct list_head tpg_entry;
	struct list_head listener_entry;
};

/**
 * struct rbdt_nacl - an initiator ACL, explicit (acls/<name>) or dynamic
 * @se_node_acl: LIO's part. Must stay the first member: core allocates
 *	node_acl_size bytes and uses them as a &struct se_node_acl.
 * @auth: Credentials of acls/<name>/auth/. Protected by rbdt_auth_lock.
 */
struct rbdt_nacl {
	struct se_node_acl se_node_acl;
	struct rbdt_auth_cred auth;
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

/**
 * struct rbdt_device - per-RDMA-device state shared by its queues
 * @ib_dev: The RDMA device.
 * @pd: Protection domain of every queue on @ib_dev.
 * @ref: One reference per queue; the last put frees the PD.
 * @entry: Entry in the device list (rbdt_conn.c).
 */
struct rbdt_device {
	struct ib_device *ib_dev;
	struct ib_pd *pd;
	struct kref ref;
	struct list_head entry;
};

/**
 * struct rbdt_recv - a receive buffer of a queue
 * @cqe: Completion entry.
 * @wr: Receive work request.
 * @sge: Its one SGE.
 * @buf: The buffer, 8-byte aligned.
 * @dma: Its DMA address.
 * @pages: On an I/O queue with inline writes, the allocation @buf lies
 *	in: @buf is placed so that what follows a &struct rbd_cmd, the
 *	inline data, starts on a page of its own. NULL otherwise (@buf is
 *	kmalloc'ed).
 * @sg: On such a queue, room for a scatterlist over the inline data,
 *	handed to LIO as the command's data buffer (no copy).
 */
struct rbdt_recv {
	struct ib_cqe cqe;
	struct ib_recv_wr wr;
	struct ib_sge sge;
	void *buf;
	u64 dma;
	void *pages;
	struct scatterlist *sg;
};

/**
 * struct rbdt_ctrl - a control slot: the response buffer of LOGIN,
 *	LOGOUT, NOP and TMF requests
 * @cqe: Completion entry of the response SEND.
 * @buf: Response buffer (DMA mapped).
 * @dma: Its DMA address.
 * @busy: A request holds the slot until its response completes.
 * @opcode: Opcode of the response being sent.
 * @status: Status of a refused LOGIN or AUTH, whose send completion
 *	disconnects; 0 for every other response.
 */
struct rbdt_ctrl {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
	bool busy;
	u8 opcode;
	u16 status;
};

/**
 * struct rbdt_rw - one RDMA READ or WRITE context, for one descriptor
 * @ctx: The rdma_rw context.
 * @sg: First entry of the scatterlist it maps.
 * @nents: Entries in @sg.
 */
struct rbdt_rw {
	struct rdma_rw_ctx ctx;
	struct scatterlist *sg;
	u32 nents;
};

/**
 * struct rbdt_cmd - a command slot of an I/O queue
 * @se_cmd: LIO's part; zeroed for each command.
 * @sense: Sense buffer handed to LIO.
 * @q: The queue.
 * @slot: Index in @q->cmds, the slot of the tag.
 * @tag: The full request tag, CPU order.
 * @outstanding: The initiator holds the slot: set when the capsule
 *	arrives, cleared when its response is posted. Protected by @q->lock.
 * @busy: The descriptor is in use, until the response completed and LIO
 *	released the command. Protected by @q->lock.
 * @pending: A new capsule for the slot arrived while the descriptor was
 *	still busy; @pending_recv and @pending_check hold it until then.
 * @start_pending: @pending_work is to start the pending capsule.
 * @pending_recv: See @pending.
 * @pending_check: rbd_check_cmd()'s outcome for it, see @pending.
 * @lio: @se_cmd was initialised; LIO owns the end of the command.
 * @aborted: An extra reference was taken to send TASK ABORTED.
 * @recv: Receive buffer of the capsule, held until the response is posted.
 * @wr_pending: Bits %RBDT_WR_READ and %RBDT_WR_SEND: a signalled work
 *	request is posted and its completion has not been handled. Whoever
 *	clears a bit (the completion handler, or rbdt_queue_reap_lost()
 *	after the drain) finishes that part of the command.
 * @req: The capsule, inside @recv.
 * @dir: &enum rbd_data_dir of the capsule.
 * @nr_desc: Descriptors of the capsule.
 * @inline_zc: LIO's data buffer is the capsule's inline data (@recv's
 *	pages), so there is nothing to copy.
 * @invalidate: Answer with SEND_WITH_INV of @inv_rkey.
 * @inv_rkey: rkey of the first descriptor.
 * @rw: Contexts, one per descriptor in use.
 * @nr_rw: Initialised contexts in @rw.
 * @rw_dir: DMA direction of @rw.
 * @sgl: Scatterlist split at descriptor boundaries.
 * @rdma_wrs: Send queue slots taken by the RDMA work requests.
 * @read_ops: RDMA READs posted for the write data and not completed.
 * @fetch_next: The next command waiting for its data fetch on the queue.
 * @read_cqe: Completion of the RDMA READs.
 * @send_cqe: Completion of the response SEND.
 * @batch_cqe: Completion of a response batch that this command heads.
 * @batch_next: Next command of the response batch @batch_cqe completes,
 *	or NULL after the last.
 * @send_wr: Response SEND.
 * @send_sge: Its SGE.
 * @imm_sge: SGEs of a response that gathers its immediate data from LIO's
 *	pages: the header from @rsp (none in a bare response), then the data.
 * @imm_sg: LIO's SGL, mapped for @imm_sge until the SEND completed.
 * @imm_nents: Entries of @imm_sg mapped; 0 if none.
 * @data_pooled: LIO's data buffer is @data_sgt, pages of the queue's
 *	&struct rbdt_pool (rbdt_data_attach()).
 * @data_sgt: The scatterlist of those pages; its first entries are
 *	@data_sg, further ones come from the kernel's SG pools.
 * @data_sg: See @data_sgt.
 * @rsp: Response buffer.
 * @rsp_dma: Its DMA address.
 * @rsp_size: Its size.
 */
/*
 * SGEs of a response SEND with immediate data gathered from LIO's pages:
 * the header and up to five pages, enough for the largest immediate read
 * (16 KiB) and within siw's limit of six.
 */
#define RBDT_IMM_SGES	6

/*
 * Scatterlist entries kept in each command for a data buffer from the
 * queue's pool: enough for 128 KiB; larger buffers chain more entries
 * from the kernel's SG pools (sg_alloc_table_chained()).
 */
#define RBDT_DATA_SG	32

/* Bits of &rbdt_cmd.wr_pending. */
enum {
	RBDT_WR_READ,
	RBDT_WR_SEND,
};

struct rbdt_cmd {
	struct se_cmd se_cmd;
	u8 sense[TRANSPORT_SENSE_BUFFER];
	struct rbdt_queue *q;
	u32 slot;
	u64 tag;
	bool outstanding;
	bool busy;
	bool pending;
	bool start_pending;
	struct rbdt_recv *pending_recv;
	enum rbd_check pending_check;
	bool lio;
	bool aborted;
	struct rbdt_recv *recv;
	unsigned long wr_pending;
	const struct rbd_cmd *req;
	u8 dir;
	u16 nr_desc;
	bool inline_zc;
	bool invalidate;
	u32 inv_rkey;
	struct rbdt_rw *rw;
	u32 nr_rw;
	enum dma_data_direction rw_dir;
	struct scatterlist *sgl;
	u32 rdma_wrs;
	u32 read_ops;
	struct rbdt_cmd *fetch_next;
	struct ib_cqe read_cqe;
	struct ib_cqe send_cqe;
	struct ib_cqe batch_cqe;
	struct rbdt_cmd *batch_next;
	struct ib_send_wr send_wr;
	struct ib_sge send_sge;
	struct ib_sge imm_sge[RBDT_IMM_SGES];
	struct scatterlist *imm_sg;
	u32 imm_nents;
	bool data_pooled;
	struct sg_table data_sgt;
	struct scatterlist data_sg[RBDT_DATA_SG];
	void *rsp;
	u64 rsp_dma;
	u32 rsp_size;
};

struct rbdt_session;

/**
 * struct rbdt_tmr - a task management function handed to LIO
 * @se_cmd: LIO's part (%SCF_SCSI_TMR_CDB set).
 * @sense: Sense buffer LIO wants, unused by TMRs.
 * @q: Queue 0 of the session; it outlives the TMR, since the session's
 *	teardown waits for every se_cmd, TMRs included.
 * @recv: Receive buffer of the request, reposted with the response.
 * @slot: Control slot of the request; its buffer carries the response.
 * @tag: Tag of the request, echoed in the response.
 * @ref_tag: Tag of the command to abort (ABORT TASK).
 * @function: &enum rbd_tmf_function.
 * @responded: The TMF_RSP has been sent.
 *
 * Allocated per request, freed by rbdt_release_cmd() through
 * rbdt_tmr_free().
 */
struct rbdt_tmr {
	struct se_cmd se_cmd;
	u8 sense[TRANSPORT_SENSE_BUFFER];
	struct rbdt_queue *q;
	struct rbdt_recv *recv;
	u32 slot;
	__le64 tag;
	u64 ref_tag;
	u8 function;
	bool responded;
};

/* Work completions rbdt_cq_work() takes from a CQ at a time. */
#define RBDT_CQ_BATCH	16

/**
 * struct rbdt_cq - a completion queue polled by rbdt (rbdt_cq.c)
 * @cq: The CQ.
 * @work: Polls @cq; queued by its completion event.
 * @waits: Times the poller found @cq empty, re-armed it and waited for
 *	the next event. Written by @work only.
 * @max_polled: Most completions one run of @work handled. Written by
 *	@work only.
 * @more: The completion being handled is not the last one in hand.
 * @wq: The workqueue @work runs on, chosen when the CQ is created.
 * @poller: The task running @work, NULL between runs: responses posted
 *	by it may wait in a response batch until the end of the polling
 *	batch (rbdt_rsp_flush()).
 * @wc: Work completions of the current batch.
 */
struct rbdt_cq {
	struct ib_cq *cq;
	struct work_struct work;
	u64 waits;
	u32 max_polled;
	bool more;
	struct workqueue_struct *wq;
	struct task_struct *poller;
	struct ib_wc wc[RBDT_CQ_BATCH];
};

/* tpgt_N/attrib/data_pool_kb: the default, and the most it takes. */
#define RBDT_DATA_POOL_KB_DEFAULT	SZ_4K
#define RBDT_DATA_POOL_KB_MAX		SZ_1M

/**
 * struct rbdt_pool - data pages a queue keeps for its commands
 * @lock: Protects @nr and @pages.
 * @pages: Free pages, a stack of @max entries.
 * @nr: Pages on the stack.
 * @max: Its size, from the session's data_pool_kb (0 on a queue 0); set
 *	at connect (rbdt_queue_new()).
 *
 * READs and WRITEs take their data buffer from here instead of LIO's
 * per-command allocation (pages that the kernel clears, with
 * init_on_alloc, and frees again), and give it back when LIO releases
 * them; pages beyond @max are freed. The pool only keeps pages that the
 * queue once had in flight at the same time, up to @max.
 */
struct rbdt_pool {
	spinlock_t lock;	/* see above */
	struct page **pages;
	u32 nr;
	u32 max;
};

/**
 * struct rbdt_queue - one rdma_cm connection (queue pair) of a session
 * @cm_id: The connection's id.
 * @dev: Its RDMA device (referenced).
 * @cq: Completion queue of receives and sends alike (responses, RDMA
 *	READs, control sends).
 * @qp: The queue pair.
 * @port_num: Port of @cm_id, for rdma_rw.
 * @qid: Queue id: 0 control queue, 1..nr_queues I/O.
 * @depth: Command slots (0 on queue 0).
 * @recv_size: Size of each receive buffer.
 * @features: Connect request feature bits (queue 0: the offer).
 * @lim: Limits for rbd_check_request().
 * @lock: Protects @dying, @logged_in, @ctrl[].busy, @cmds[].in_use and
 *	every post on @qp.
 * @dying: Set once teardown began; nothing is posted afterwards.
 * @logged_in: Queue 0 received its LOGIN.
 * @nr_outstanding: Commands whose capsule arrived and whose response is
 *	not yet posted (&struct rbdt_cmd @outstanding set); written under
 *	@lock, read without it by rbdt_post_begin().
 * @sess: The session, NULL on a queue 0 before login. Set once.
 * @sq_rdma_avail: Send queue slots free for RDMA work requests.
 * @sq_rdma_total: Send queue slots for RDMA work requests in all.
 * @ord: RDMA READs the connection may have in flight (initiator depth).
 * @reads_inflight: RDMA READs posted and not completed.
 * @inflight: Commands received and not yet answered (rbdt_logout.c).
 * @max_inflight: Highest @inflight seen; written without a lock.
 * @fetch_max: WRITE commands that may fetch their data at a time, 0 for
 *	no limit (rbdt_fetch_limit()); set at connect.
 * @fetches: Commands fetching their data now, while @fetch_max is set.
 *	Above @fetch_max after rbdt_fetch_stall_work() started waiters early.
 * @fetch_wait_first: The first command waiting for its turn to fetch, the
 *	rest linked through &rbdt_cmd.fetch_next to @fetch_wait_last.
 * @fetch_wait_last: See @fetch_wait_first.
 * @fetch_ends: Fetches ended (count, wraps), for the stall check.
 * @fetch_seen: @fetch_ends when @fetch_work last looked.
 * @fetch_watched: @fetch_work is queued or about to requeue itself.
 *	@fetches, the waiters and @fetch_ends to @fetch_watched are under
 *	@lock.
 * @fetch_work: Starts a waiting command when the running fetches make no
 *	progress (rbdt_fetch_stall_work()).
 * @ctrl_sends: Control responses posted and not completed.
 * @nr_recv: Entries in @recv.
 * @recv: Receive buffers.
 * @recv_alloc: Size of the page allocation of each of @recv, or 0 if
 *	they are kmalloc'ed (see &struct rbdt_recv).
 * @recv_sg: The scatterlists of @recv, one array for all.
 * @ctrl: Control slots.
 * @cmds: Command slots (@depth of them).
 * @pool: Data pages of @cmds.
 * @peer: Address of the initiator.
 * @local: The address the connection came to, with the port of the
 *	listener it came through (rbdt_listener_addr()).
 * @entry: Entry in the global queue list.
 * @release_work: Teardown of a queue that belongs to no session.
 * @pending_work: Starts capsules that waited for their slot's descriptor.
 * @timeout_work: Login timeout, then keep-alive timeout of queue 0.
 * @keepalive_ms: Keep-alive timeout granted at login, or 0.
 * @batch_max: Most responses in one response batch; below 2 if the
 *	session has no %RBD_FEAT_RSP_BATCH.
 * @batch_n: Responses waiting in the batch, from @batch_first to
 *	@batch_last through &rbdt_cmd.batch_next. The batch and
 *	@batch_sge are protected by @lock.
 * @batch_first: See @batch_n.
 * @batch_last: See @batch_n.
 * @batch_sge: SGEs of the batch's SEND, filled when it is posted.
 * @last_rx: jiffies of the last capsule received; any queue's traffic
 *	keeps the session alive.
 * @halfopen: A queue 0 counted against the caps on connections not
 *	logged in yet, from its connect request until its LOGIN succeeds or
 *	it is destroyed; on the half-open list through @halfopen_entry.
 *	Both are protected by rbdt_sess_lock.
 * @halfopen_entry: See @halfopen.
 * @auth: Queue 0's authentication state (rbdt_auth.c), from AUTH_BEGIN on.
 * @prelogin_used: Queue 0 carried a DISCOVER, after which no AUTH_BEGIN
 *	may come.
 * @login_seen: Queue 0 received its LOGIN; a second one is a protocol
 *	violation.
 * @login_work: Handles a LOGIN again once the session it reinstates is
 *	gone (rbdt_login_defer()); flushed before the queue is released.
 * @login_recv: The receive holding that LOGIN, owned by @login_work.
 * @login_len: Its byte count.
 * @login_old: The session being reinstated; @login_work's reference.
 */
struct rbdt_queue {
	struct rdma_cm_id *cm_id;
	struct rbdt_device *dev;
	struct rbdt_cq cq;
	struct ib_qp *qp;
	u32 port_num;
	u16 qid;
	u16 depth;
	u32 recv_size;
	u64 features;
	struct rbd_check_limits lim;
	spinlock_t lock;	/* see above */
	bool dying;
	bool logged_in;
	u16 nr_outstanding;
	struct rbdt_session *sess;
	atomic_t sq_rdma_avail;
	u32 sq_rdma_total;
	u8 ord;
	atomic_t reads_inflight;
	atomic_t inflight;
	u32 max_inflight;
	u16 fetch_max;
	u16 fetches;
	struct rbdt_cmd *fetch_wait_first;
	struct rbdt_cmd *fetch_wait_last;
	u32 fetch_ends;
	u32 fetch_seen;
	bool fetch_watched;
	struct delayed_work fetch_work;
	atomic_t ctrl_sends;
	u32 nr_recv;
	struct rbdt_recv *recv;
	size_t recv_alloc;
	struct scatterlist *recv_sg;
	struct rbdt_ctrl ctrl[RBD_CTRL_SLOTS];
	struct rbdt_cmd *cmds;
	struct rbdt_pool pool;
	struct sockaddr_storage peer;
	struct sockaddr_storage local;
	struct list_head entry;
	struct work_struct release_work;
	struct work_struct pending_work;
	struct delayed_work timeout_work;
	u32 keepalive_ms;
	unsigned long last_rx;
	bool halfopen;
	struct list_head halfopen_entry;
	u16 batch_max;
	u16 batch_n;
	struct rbdt_cmd *batch_first;
	struct rbdt_cmd *batch_last;
	struct ib_sge batch_sge[RBD_RSP_BATCH_MAX];
	struct rbdt_auth *auth;
	bool prelogin_used;
	bool login_seen;
	struct work_struct login_work;
	struct rbdt_recv *login_recv;
	u32 login_len;
	struct rbdt_session *login_old;
};

static inline struct rbdt_cmd *to_rbdt_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct rbdt_cmd, se_cmd);
}

/* Rate-limited error about a command, naming session, peer, queue, tag. */
#define rbdt_cmd_err(cmd, fmt, ...)					\
do {									\
	const struct rbdt_cmd *__c = (cmd);				\
									\
	pr_err_ratelimited("session %016llx %pISpc qid %u tag %#llx: " fmt, \
			   __c->q->sess->handle, &__c->q->peer,		\
			   __c->q->qid, __c->tag, ##__VA_ARGS__);	\
} while (0)

/* The queue of a work completion. */
static inline struct rbdt_queue *cq_to_q(struct ib_wc *wc)
{
	return wc->qp->qp_context;
}

/*
 * enum rbdt_stat - the counters of a session (debugfs), in the order shown:
 * @reqs_started: Commands received.
 * @reqs_completed: Responses posted.
 * @immd_writes: Inline writes.
 * @immd_writes_nocopy: Those whose data LIO took as it was (plain WRITEs).
 * @immd_reads: Immediate reads.
 * @bare_reads: Those answered with a bare response (%RBD_FEAT_BARE_READ).
 * @rsp_batches: Response batches sent (%RBD_FEAT_RSP_BATCH).
 * @rsps_batched: Responses sent in them.
 * @compl_here: Completions that rbdt ran itself, right after a backend
 *	that completed the command synchronously (rbdt_complete_here()).
 * @slot_waits: Capsules that arrived while LIO still held their slot's
 *	previous command, and waited for it (rbdt_pending_work()).
 * @posts_bh_disabled: Posts made with bottom halves disabled
 *	(rbdt_post_begin()).
 * @stall_sq_full: Commands deferred for lack of send queue slots.
 * @stall_ordq_full: RDMA READs posted while the queue already had as many
 *	in flight as its initiator depth allows; the adapter held them back.
 * @fetch_waits: WRITE commands whose data fetch waited for an earlier
 *	command's (rbdt_fetch_limit()).
 * @fetch_stalls: Waiting WRITEs started early because no fetch of their
 *	queue ended for a while (rbdt_fetch_stall_work()).
 * @data_pooled: Commands whose data buffer came from the queue's pool.
 * @data_pool_new: Pages allocated for them because the pool had too few.
 * @data_pool_busy: Pages not taken back into the pool because someone
 *	else (the provider) still held them.
 * @bytes_in: Bytes written by the initiator.
 * @bytes_out: Bytes read by the initiator.
 * @errors: Refused capsules and failed transfers.
 * @tmfs: Task management requests received.
 *
 * Each CPU counts in its own copy (&rbdt_session.stats), without atomics;
 * a reader sums the copies (rbd_stats_sum()). The names are
 * rbdt_stat_names[], the enumerators the same in upper case.
 */
enum rbdt_stat {
	RBDT_STAT_REQS_STARTED,
	RBDT_STAT_REQS_COMPLETED,
	RBDT_STAT_IMMD_WRITES,
	RBDT_STAT_IMMD_WRITES_NOCOPY,
	RBDT_STAT_IMMD_READS,
	RBDT_STAT_BARE_READS,
	RBDT_STAT_RSP_BATCHES,
	RBDT_STAT_RSPS_BATCHED,
	RBDT_STAT_COMPL_HERE,
	RBDT_STAT_SLOT_WAITS,
	RBDT_STAT_POSTS_BH_DISABLED,
	RBDT_STAT_STALL_SQ_FULL,
	RBDT_STAT_STALL_ORDQ_FULL,
	RBDT_STAT_FETCH_WAITS,
	RBDT_STAT_FETCH_STALLS,
	RBDT_STAT_DATA_POOLED,
	RBDT_STAT_DATA_POOL_NEW,
	RBDT_STAT_DATA_POOL_BUSY,
	RBDT_STAT_BYTES_IN,
	RBDT_STAT_BYTES_OUT,
	RBDT_STAT_ERRORS,
	RBDT_STAT_TMFS,
	RBDT_NR_STATS
};

/* struct rbdt_stats - one CPU's share of a session's counters */
struct rbdt_stats {
	u64 v[RBDT_NR_STATS];
};

extern const char * const rbdt_stat_names[RBDT_NR_STATS];

/**
 * enum rbdt_sess_state - life of a session
 * @RBDT_SESS_LIVE: Logged in; queues may join.
 * @RBDT_SESS_DYING: Being torn down.
 */
enum rbdt_sess_state {
	RBDT_SESS_LIVE,
	RBDT_SESS_DYING,
};

/**
 * struct rbdt_fault - a session's fault counters (rbdt_fault.c)
 * @drop_nop: NOPs to leave unanswered.
 */
struct rbdt_fault {
	atomic_t drop_nop;
};

/**
 * struct rbdt_session - an rbd session: one se_session and its queues
 * @se_sess: LIO's session.
 * @tpg: The TPG it logged in through.
 * @handle: Session handle given to the initiator.
 * @instance: The initiator's name for the session (&rbd_login_req.instance)
 *	when reinstatement was granted, otherwise 0.
 * @name: "<initiator> -> <target> lun <n>", for log lines.
 * @ref: Reference count.
 * @state: &enum rbdt_sess_state; protected by rbdt_sess_lock.
 * @queues: Queues by qid; protected by rbdt_sess_lock.
 * @lun: The LUN of the session.
 * @login: The LOGIN grants (a LOGIN_RSP in wire order).
 * @nr_queues: Granted I/O queues.
 * @data_pool_kb: The TPG's data_pool_kb at login, for each I/O queue.
 * @max_write_fetches: The TPG's max_write_fetches at login.
 * @lock: Protects @logout and @logout_sent.
 * @logout: LOGOUT received: new commands get BUSY. Set under @lock, read
 *	without it by the command path (rbdt_logout.c).
 * @logout_sent: LOGOUT_RSP posted.
 * @logout_tag: Tag of the LOGOUT.
 * @release_work: Tears the session down.
 * @released: Completed once the session is removed from LIO.
 * @entry: Entry in the global session list.
 * @tpg_entry: Entry in @tpg->sess_list.
 * @debugfs: Directory in debugfs.
 * @stats: Counters, one copy per CPU.
 * @fault: Test-only fault injection (rbdt_fault.c), in test builds only.
 */
struct rbdt_session {
	struct se_session *se_sess;
	struct rbdt_tpg *tpg;
	u64 handle;
	u64 instance;
	char name[2 * RBD_NAME_LEN + 32];
	struct kref ref;
	enum rbdt_sess_state state;
	struct rbdt_queue *queues[RBD_MAX_NR_QUEUES + 1];
	u64 lun;
	struct rbd_login_rsp login;
	u16 nr_queues;
	u32 data_pool_kb;
	int max_write_fetches;
	spinlock_t lock;	/* see above */
	bool logout;
	bool logout_sent;
	u64 logout_tag;
	struct work_struct release_work;
	struct completion released;
	struct list_head entry;
	struct list_head tpg_entry;
	struct dentry *debugfs;
	struct rbdt_stats __percpu *stats;
#if IS_ENABLED(CONFIG_RBD_FAULT_INJECTION)
	struct rbdt_fault fault;
#endif
};

/* Count @n events of counter @i of @sess on this CPU. */
static inline void rbdt_stat_add(struct rbdt_session *sess,
				 enum rbdt_stat i, u64 n)
{
	this_cpu_add(sess->stats->v[i], n);
}

static inline void rbdt_stat_inc(struct rbdt_session *sess, enum rbdt_stat i)
{
	this_cpu_inc(sess->stats->v[i]);
}

/**
 * struct rbdt_refusals - connections and logins refused by a cap (debugfs)
 * @halfopen: Connect requests over a TPG's max_halfopen.
 * @halfopen_host: Connect requests over its max_halfopen_per_host.
 * @sessions_acl: LOGINs over its max_sessions_per_acl.
 * @keepalive: LOGINs that asked for no keep-alive.
 */
struct rbdt_refusals {
	atomic64_t halfopen;
	atomic64_t halfopen_host;
	atomic64_t sessions_acl;
	atomic64_t keepalive;
};

/* rbdt_main.c */
extern struct workqueue_struct *rbdt_wq;
extern struct dentry *rbdt_debugfs_root;
extern bool rbdt_complete_inline;
extern bool rbdt_post_bh_disabled;
extern unsigned int rbdt_post_bh_max_data;
extern bool rbdt_cq_highpri;

/**
 * rbdt_post_begin() - enter a section that posts work requests on a queue
 * @q: The queue.
 *
 * Soft-RoCE in Linux 6.1 (6.12 queues its sends on a workqueue, where this
 * changes nothing) only schedules the QP's send tasklet in ib_post_send(). Outside
 * interrupt context, raise_softirq_irqoff() then wakes ksoftirqd, and the
 * send is processed only after a switch to that thread (and back). With
 * bottom halves disabled around the post, the tasklet instead runs in
 * this context when rbdt_post_end() enables them again, and sends
 * everything queued on the QP so far. Other providers lose nothing but
 * the pair of calls.
 *
 * Only when the CQ work has no further completion in hand, and the queue
 * no other command outstanding: a response sent at once per command would
 * reach the initiator one at a time and wake its submitter per command,
 * where one send of the whole batch wakes it once. With commands queued
 * behind it, the latency of this one is not what the initiator waits for;
 * on Soft-RoCE the deferred send then goes out with the others, and in a
 * one-host loopback the sends made at once stall deep queues (see
 * Documentation/performance.rst).
 *
 * Context: Process or softirq, not hardirq; @q belongs to a session.
 * Return: The argument for rbdt_post_end().
 */
static inline bool rbdt_post_begin(struct rbdt_queue *q)
{
	bool bh = READ_ONCE(rbdt_post_bh_disabled) && !READ_ONCE(q->cq.more) &&
		  READ_ONCE(q->nr_outstanding) <= 1;

	if (bh) {
		local_bh_disable();
		rbdt_stat_inc(q->sess, RBDT_STAT_POSTS_BH_DISABLED);
	}
	return bh;
}

/* End a section begun by rbdt_post_begin(), with interrupts enabled. */
static inline void rbdt_post_end(bool bh)
{
	if (bh)
		local_bh_enable();
}

int rbdt_parse_u16(const char *s, u16 *res);

/* rbdt_cq.c */
int rbdt_cq_create(struct rbdt_cq *rcq, struct ib_device *dev, u32 nr_cqe,
		   int vector);
void rbdt_cq_destroy(struct rbdt_cq *rcq);
int rbdt_cq_init(void);
void rbdt_cq_exit(void);

/* rbdt_configfs.c */
extern struct configfs_attribute *rbdt_fabric_attrs[];
extern struct configfs_attribute *rbdt_tpg_attrib_attrs[];
extern struct configfs_attribute *rbdt_nacl_attrs[];
extern struct configfs_attribute *rbdt_np_attrs[];
extern struct configfs_attribute *rbdt_nacl_auth_attrs[];
extern struct configfs_attribute *rbdt_tpg_auth_attrs[];
extern struct configfs_attribute *rbdt_discovery_attrs[];

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

/* rbdt_auth.c */
enum rbdt_auth_field {
	RBDT_AUTH_USERID,
	RBDT_AUTH_PASSWORD,
	RBDT_AUTH_USERID_MUTUAL,
	RBDT_AUTH_PASSWORD_MUTUAL,
};

extern struct rbdt_auth_cred rbdt_disc_cred;
extern bool rbdt_disc_enforce;

ssize_t rbdt_auth_show(struct rbdt_auth_cred *c, enum rbdt_auth_field f,
		       char *page);
ssize_t rbdt_auth_store(struct rbdt_auth_cred *c, enum rbdt_auth_field f,
			const char *page, size_t count, const char *where);
ssize_t rbdt_auth_target_show(struct rbdt_auth_cred *c, char *page);
void rbdt_auth_cred_clear(struct rbdt_auth_cred *c);
bool rbdt_auth_handle(struct rbdt_queue *q, struct rbdt_recv *r);
bool rbdt_auth_failed(struct rbdt_queue *q);
u16 rbdt_auth_login_check(struct rbdt_queue *q, struct rbdt_tpg *tpg,
			  const char *ini, const char *tgt);
bool rbdt_auth_discovery(struct rbdt_queue *q, const char *ini);
u16 rbdt_auth_required(struct rbdt_queue *q);
void rbdt_auth_queue_free(struct rbdt_queue *q);
void rbdt_auth_stats_show(struct seq_file *m);

/* rbdt_cm.c */
const char *rbdt_parse_portal(const char *name, struct sockaddr_storage *addr);
struct rbdt_listener *rbdt_listener_get(const struct sockaddr_storage *addr);
void rbdt_listener_put(struct rbdt_listener *l);
ssize_t rbdt_listener_state_show(struct rbdt_listener *l, char *page);
void rbdt_listener_add_np(struct rbdt_listener *l, struct rbdt_np *np);
void rbdt_listener_del_np(struct rbdt_listener *l, struct rbdt_np *np);
void rbdt_listeners_lock(void);
void rbdt_listeners_unlock(void);
struct rbdt_tpg *rbdt_listener_find_tpg(const struct sockaddr_storage *addr,
					const char *target_name);
void rbdt_listener_addr(struct rdma_cm_id *cm_id,
			struct sockaddr_storage *addr);
struct rbdt_tpg *rbdt_listener_tpg(const struct sockaddr_storage *addr,
				   unsigned int i);
void rbdt_listener_caps(struct rdma_cm_id *cm_id, u32 *max_total,
			u32 *max_per_host);
void rbdt_tpg_caps_changed(struct rbdt_tpg *tpg);
bool rbdt_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b);
void rbdt_cm_exit(void);

/* rbdt_conn.c */
extern spinlock_t rbdt_sess_lock;
extern struct list_head rbdt_sessions;
extern struct list_head rbdt_queues;
extern struct list_head rbdt_halfopen;
extern struct rbdt_refusals rbdt_refused;
extern struct ib_client rbdt_ib_client;

int rbdt_connect_request(struct rdma_cm_id *cm_id,
			 struct rdma_cm_event *event);
int rbdt_queue_cm_event(struct rdma_cm_id *cm_id, struct rdma_cm_event *event);
void rbdt_halfopen_del(struct rbdt_queue *q);
void rbdt_device_put(struct rbdt_device *dev);
void rbdt_conn_exit(void);

/* rbdt_session.c */
struct rbdt_session *rbdt_session_alloc(const struct rbd_login_req *req,
					const char *ini, const char *tgt);
void rbdt_session_add(struct rbdt_queue *q, struct rbdt_session *sess);
void __rbdt_session_shutdown(struct rbdt_session *sess);
void rbdt_session_put(struct rbdt_session *sess);
void rbdt_tpg_close_sessions(struct rbdt_tpg *tpg);
void rbdt_close_session(struct se_session *se_sess);
ssize_t rbdt_nacl_info(struct se_node_acl *se_nacl, char *page);

/* rbdt_queue.c */
struct rbdt_queue *rbdt_queue_new(struct rdma_cm_id *cm_id,
				  const struct rbd_cm_req *req,
				  struct rbdt_session *sess);
int rbdt_queue_start_ib(struct rbdt_queue *q);
void rbdt_queue_drain_unused(struct rbdt_queue *q);
void rbdt_queue_destroy(struct rbdt_queue *q);
void __rbdt_queue_error(struct rbdt_queue *q);
void rbdt_queue_error(struct rbdt_queue *q);
bool rbdt_queue_post_recv(struct rbdt_queue *q, struct rbdt_recv *r);
int rbdt_queue_post_send(struct rbdt_queue *q, struct ib_send_wr *wr);
void rbdt_ctrl_send(struct rbdt_queue *q, u32 slot, u32 len,
		    struct rbdt_recv *r);

/* rbdt_recv.c */
void rbdt_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/* rbdt_login.c */
void rbdt_handle_login(struct rbdt_queue *q, struct rbdt_recv *r, u32 len);
void rbdt_login_work(struct work_struct *work);

/* rbdt_logout.c */
void rbdt_handle_logout(struct rbdt_queue *q, struct rbdt_recv *r, u64 tag);
void rbdt_session_cmd_done(struct rbdt_queue *q);
u32 rbdt_session_inflight(struct rbdt_session *sess);

/* rbdt_keepalive.c */
void rbdt_handle_nop(struct rbdt_queue *q, struct rbdt_recv *r, u32 slot);
void rbdt_timeout_work(struct work_struct *work);

/* rbdt_tmf.c */
void rbdt_handle_tmf(struct rbdt_queue *q, struct rbdt_recv *r, u32 slot);
void rbdt_tmr_respond(struct se_cmd *se_cmd, bool aborted);
void rbdt_tmr_free(struct se_cmd *se_cmd);
void rbdt_queue_tm_rsp(struct se_cmd *se_cmd);

/* rbdt_debugfs.c */
void rbdt_conn_debugfs_init(void);
void rbdt_session_debugfs_add(struct rbdt_session *sess);

/* rbdt_discovery.c */
void rbdt_handle_discover(struct rbdt_queue *q, struct rbdt_recv *r, u32 len);

/* rbdt_cmd.c */
u32 rbdt_pool_pages(u32 kb);
int rbdt_pool_init(struct rbdt_pool *pool);
void rbdt_pool_destroy(struct rbdt_pool *pool);
void rbdt_handle_cmd(struct rbdt_queue *q, struct rbdt_recv *r, u32 len);
void rbdt_pending_work(struct work_struct *work);
void rbdt_complete_here(struct rbdt_cmd *cmd);
void rbdt_cmd_put_desc(struct rbdt_cmd *cmd);
void rbdt_aborted_task(struct se_cmd *se_cmd);
int rbdt_check_stop_free(struct se_cmd *se_cmd);
void rbdt_release_cmd(struct se_cmd *se_cmd);
int rbdt_get_cmd_state(struct se_cmd *se_cmd);

/* rbdt_rsp.c */
void rbdt_build_rsp(struct rbdt_cmd *cmd, u8 status, const u8 *sense,
		    u32 sense_len, u32 imm_len, u16 flags, u32 residual);
int rbdt_post_rsp(struct rbdt_cmd *cmd, struct ib_send_wr *first);
void rbdt_send_local_rsp(struct rbdt_cmd *cmd, u8 status, u8 asc, u8 ascq);
void rbdt_cmd_answered(struct rbdt_cmd *cmd);
void rbdt_cmd_send_finish(struct rbdt_cmd *cmd, enum ib_wc_status status);
void rbdt_cmd_send_done(struct ib_cq *cq, struct ib_wc *wc);
void rbdt_rsp_flush(struct rbdt_queue *q);
int rbdt_queue_data_in(struct se_cmd *se_cmd);
int rbdt_queue_status(struct se_cmd *se_cmd);

/* rbdt_rw.c */
u16 rbdt_fetch_limit(struct ib_device *dev, int setting);
int rbdt_rw_init(struct rbdt_cmd *cmd, enum dma_data_direction dir);
void rbdt_rw_destroy(struct rbdt_cmd *cmd);
bool rbdt_sq_reserve(struct rbdt_cmd *cmd, int n);
void rbdt_sq_release(struct rbdt_cmd *cmd);
void rbdt_fetch_stall_work(struct work_struct *work);
void rbdt_queue_reap_lost(struct rbdt_queue *q);
int rbdt_write_pending(struct se_cmd *se_cmd);

/* rbdt_fault.c: empty unless built with RBD_FAULT_INJECTION=1 */
#if IS_ENABLED(CONFIG_RBD_FAULT_INJECTION)
bool rbdt_fault_drop_nop(struct rbdt_queue *q);
void rbdt_fault_debugfs_add(struct rbdt_session *sess);
#else
static inline bool rbdt_fault_drop_nop(struct rbdt_queue *q)
{
	return false;
}

static inline void rbdt_fault_debugfs_add(struct rbdt_session *sess)
{
}
#endif

#endif /* RBDT_H */
