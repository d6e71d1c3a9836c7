/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * rbd wire protocol: every structure exchanged between the rbd initiator
 * (rbdi) and the rbd LIO fabric (rbdt) over an RDMA reliable connection.
 *
 * All multi-byte fields are little-endian. Every structure has a fixed size
 * that is a multiple of 8 bytes, declares its padding explicitly and is
 * followed by a size assertion, so the layout is identical on every
 * architecture and ABI (including i386, where __u64 is only 4-byte aligned).
 * Reserved fields and undefined flag bits must be sent as zero and are
 * checked by the receiver.
 *
 * The protocol is described in Documentation/protocol.rst; the validators
 * used by both sides live in rbd_proto_check.h.
 */
#ifndef _UAPI_RBD_PROTO_H
#define _UAPI_RBD_PROTO_H

#include <linux/types.h>

/*
 * Compile-time assertion usable from the kernel, from C99 and C11 userspace
 * and from C++11. In C it declares an extern array, never defined, whose
 * size turns negative when @expr is false; the compiler's error then names
 * rbd_static_assert_@name. Each @name must be unique.
 */
#ifdef __cplusplus
#define RBD_STATIC_ASSERT(name, expr)	static_assert(expr, #name)
#else
#define RBD_STATIC_ASSERT(name, expr)	\
	extern int rbd_static_assert_##name[(expr) ? 1 : -1]
#endif

/* Protocol version carried in every message; bumped on incompatible change. */
#define RBD_PROTO_VERSION		1
/* Oldest and newest versions this header can describe. */
#define RBD_PROTO_VERSION_MIN		1
#define RBD_PROTO_VERSION_MAX		1

/* Magic of all connection private data: the bytes "RBDP" in wire order. */
#define RBD_CM_MAGIC			0x50444252U

/* Default rdma_cm port (RDMA_PS_TCP port space). */
#define RBD_DEFAULT_PORT		65000

/*
 * Private data budgets of the transports. An IB/RoCE CM REQ carries 92
 * bytes, of which rdma_cm uses 36 for its own header; REP and REJ carry 196
 * and 148 bytes. iWARP carries private data in MPA frames; rbd keeps every
 * private data structure within RBD_CM_PDATA_MAX bytes on all transports.
 */
#define RBD_CM_REQ_PDATA_IB		56
#define RBD_CM_REP_PDATA_IB		196
#define RBD_CM_REJ_PDATA_IB		148
#define RBD_CM_PDATA_MAX		56

/*
 * Feature bits, offered by the initiator and granted by the target. A bit
 * is in effect for a session only when the target grants it.
 */
/* The target may answer with SEND_WITH_INV when RBD_CMD_F_INVALIDATE is set. */
#define RBD_FEAT_REMOTE_INV		(1ULL << 0)
/* The target may advertise a command window below the queue depth. */
#define RBD_FEAT_CREDIT_WINDOW		(1ULL << 1)
/*
 * The target may answer an immediate read that ends well (GOOD status, no
 * sense data, every expected byte transferred) with a bare response: a
 * SEND_WITH_IMM carrying only the data, its immediate data naming the
 * command (rbd_bare_rsp()). Never granted on iWARP, which has no
 * immediate data.
 */
#define RBD_FEAT_BARE_READ		(1ULL << 2)
/*
 * The target may answer several commands of an I/O queue in one SEND: a
 * response batch, 2 to rbd_rsp_batch_max() responses back to back, each 32
 * bytes (no immediate data, no sense data, not invalidating). The receive
 * then carries no invalidation either.
 */
#define RBD_FEAT_RSP_BATCH		(1ULL << 3)
/*
 * The initiator can authenticate: queue 0 may carry AUTH_BEGIN and
 * AUTH_PROOF before LOGIN or DISCOVER, and the target may answer LOGIN and
 * DISCOVER with %RBD_REJ_AUTH_REQUIRED or %RBD_REJ_AUTH_FAILED. Offered in
 * queue 0's connect request; a target that implements authentication
 * answers such a request with %RBD_CM_REP_F_AUTH.
 */
#define RBD_FEAT_AUTH			(1ULL << 4)
/*
 * Session reinstatement: the LOGIN names the initiator's session with
 * &rbd_login_req.instance, the same number on every reconnect of that
 * session. Before a target that grants this bit answers the LOGIN, it
 * closes every earlier session of the same initiator name, target and
 * instance and waits until none of their commands is left: a command
 * sent before a reconnect cannot reach the device after one sent since.
 * Offered in queue 0's connect request; a target that implements it
 * answers such a request with %RBD_CM_REP_F_REINSTATE, and only then may
 * the LOGIN carry an instance.
 */
#define RBD_FEAT_REINSTATE		(1ULL << 5)
/* All feature bits defined by this version of the header. */
#define RBD_FEAT_ALL			(RBD_FEAT_REMOTE_INV | \
					 RBD_FEAT_CREDIT_WINDOW | \
					 RBD_FEAT_BARE_READ | \
					 RBD_FEAT_RSP_BATCH | \
					 RBD_FEAT_AUTH | \
					 RBD_FEAT_REINSTATE)

/*
 * Negotiated limits: protocol minimum, default and maximum of every value
 * that the LOGIN exchange negotiates. The defaults are what rbdi requests
 * and what rbdt grants unless configured otherwise.
 */
#define RBD_MIN_IO_BYTES		4096U
#define RBD_DEFAULT_MAX_IO_BYTES	(1U << 20)
#define RBD_MAX_IO_BYTES		(16U << 20)
/* max_io_bytes must be a multiple of this. */
#define RBD_IO_BYTES_ALIGN		4096U

#define RBD_MIN_QUEUE_DEPTH		1
#define RBD_DEFAULT_QUEUE_DEPTH		128
#define RBD_MAX_QUEUE_DEPTH		1024

#define RBD_MIN_NR_QUEUES		1
#define RBD_DEFAULT_NR_QUEUES		16
#define RBD_MAX_NR_QUEUES		64

#define RBD_DEFAULT_INLINE_WRITE	4096U
#define RBD_MAX_INLINE_WRITE		(64U << 10)

#define RBD_DEFAULT_IMM_READ		4096U
#define RBD_MAX_IMM_READ		(64U << 10)

#define RBD_MIN_DESC			1
#define RBD_DEFAULT_MAX_DESC		8
#define RBD_MAX_DESC			32

/* A target drops a queue 0 that has not logged in within this time. */
#define RBD_LOGIN_TIMEOUT_MS		10000U

/* Keep-alive timeout in milliseconds; 0 requests no keep-alive. */
#define RBD_MIN_KEEPALIVE_MS		1000U
#define RBD_DEFAULT_KEEPALIVE_MS	5000U
#define RBD_MAX_KEEPALIVE_MS		600000U

/*
 * Control slots: on every queue the initiator may have this many control
 * requests (LOGIN, LOGOUT, NOP, TMF) outstanding in addition to its
 * command window, and the target keeps as many extra receives posted.
 */
#define RBD_CTRL_SLOTS			4
/* Largest control capsule in either direction (the LOGIN request). */
#define RBD_CTRL_CAPSULE_MAX		512

/* CDB field size and the accepted range of cdb_len. */
#define RBD_MIN_CDB_LEN			6
#define RBD_MAX_CDB_LEN			32
/* Largest sense data carried in a response (TRANSPORT_SENSE_BUFFER). */
#define RBD_MAX_SENSE_LEN		96
/* Size of a name field: up to 223 characters plus a terminating NUL. */
#define RBD_NAME_LEN			224

/* Bit positions of the qid and generation parts of a request tag. */
#define RBD_TAG_QID_SHIFT		48
#define RBD_TAG_GEN_SHIFT		32
/* Bit position of the generation in a bare response's immediate data. */
#define RBD_BARE_GEN_SHIFT		16

/**
 * enum rbd_opcode - capsule opcodes
 * @RBD_OP_LOGIN: session login request, first capsule on queue 0.
 * @RBD_OP_LOGOUT: session logout request, queue 0 only.
 * @RBD_OP_NOP: keep-alive request, any queue.
 * @RBD_OP_SCSI_CMD: SCSI command, I/O queues only.
 * @RBD_OP_TMF: task management request, queue 0 only.
 * @RBD_OP_DISCOVER: discovery request, queue 0 only, before LOGIN.
 * @RBD_OP_AUTH_BEGIN: authentication start, queue 0, first capsule.
 * @RBD_OP_AUTH_PROOF: the initiator's proof, right after AUTH_BEGIN.
 * @RBD_OP_RSP_BIT: set in the opcode of every target-to-initiator capsule.
 * @RBD_OP_LOGIN_RSP: answer to @RBD_OP_LOGIN.
 * @RBD_OP_LOGOUT_RSP: answer to @RBD_OP_LOGOUT.
 * @RBD_OP_NOP_RSP: answer to @RBD_OP_NOP.
 * @RBD_OP_SCSI_RSP: answer to @RBD_OP_SCSI_CMD.
 * @RBD_OP_TMF_RSP: answer to @RBD_OP_TMF.
 * @RBD_OP_DISCOVER_RSP: answer to @RBD_OP_DISCOVER.
 * @RBD_OP_AUTH_BEGIN_RSP: answer to @RBD_OP_AUTH_BEGIN: the target's
 *	challenge.
 * @RBD_OP_AUTH_PROOF_RSP: answer to @RBD_OP_AUTH_PROOF: the outcome and,
 *	for mutual authentication, the target's proof.
 */
enum rbd_opcode {
	RBD_OP_LOGIN		= 0x01,
	RBD_OP_LOGOUT		= 0x02,
	RBD_OP_NOP		= 0x03,
	RBD_OP_SCSI_CMD		= 0x04,
	RBD_OP_TMF		= 0x05,
	RBD_OP_DISCOVER		= 0x06,
	RBD_OP_AUTH_BEGIN	= 0x07,
	RBD_OP_AUTH_PROOF	= 0x08,

	RBD_OP_RSP_BIT		= 0x80,
	RBD_OP_LOGIN_RSP	= 0x81,
	RBD_OP_LOGOUT_RSP	= 0x82,
	RBD_OP_NOP_RSP		= 0x83,
	RBD_OP_SCSI_RSP		= 0x84,
	RBD_OP_TMF_RSP		= 0x85,
	RBD_OP_DISCOVER_RSP	= 0x86,
	RBD_OP_AUTH_BEGIN_RSP	= 0x87,
	RBD_OP_AUTH_PROOF_RSP	= 0x88,
};

/**
 * enum rbd_reject_reason - why a connection or login was refused
 * @RBD_REJ_NONE: no error; only valid as a LOGIN response status.
 * @RBD_REJ_BAD_REQUEST: malformed private data or LOGIN capsule.
 * @RBD_REJ_VERSION: protocol version not supported; see &struct rbd_cm_rej.
 * @RBD_REJ_UNKNOWN_TARGET: no target of that name behind this portal.
 * @RBD_REJ_ACL_DENIED: the initiator name is not allowed by the ACLs.
 * @RBD_REJ_NO_LUN: the LUN is not mapped for this initiator.
 * @RBD_REJ_LIMITS: requested limits outside the protocol or target range.
 * @RBD_REJ_TPG_DISABLED: the target portal group is not enabled.
 * @RBD_REJ_NO_RESOURCES: the target is out of memory, QPs or sessions.
 * @RBD_REJ_UNKNOWN_SESSION: an I/O queue named a session that does not
 *	exist or belongs to another initiator address.
 * @RBD_REJ_INVALID_QID: queue id out of range or already connected.
 * @RBD_REJ_SHUTTING_DOWN: the session or target is being torn down.
 * @RBD_REJ_AUTH_REQUIRED: the target requires authentication and this
 *	connection has not authenticated (only with %RBD_FEAT_AUTH offered).
 * @RBD_REJ_AUTH_FAILED: wrong user name or proof, or the target cannot
 *	prove itself as asked (only with %RBD_FEAT_AUTH offered).
 * @RBD_REJ_NR: number of defined reasons; not a reason itself.
 */
enum rbd_reject_reason {
	RBD_REJ_NONE		= 0,
	RBD_REJ_BAD_REQUEST	= 1,
	RBD_REJ_VERSION		= 2,
	RBD_REJ_UNKNOWN_TARGET	= 3,
	RBD_REJ_ACL_DENIED	= 4,
	RBD_REJ_NO_LUN		= 5,
	RBD_REJ_LIMITS		= 6,
	RBD_REJ_TPG_DISABLED	= 7,
	RBD_REJ_NO_RESOURCES	= 8,
	RBD_REJ_UNKNOWN_SESSION	= 9,
	RBD_REJ_INVALID_QID	= 10,
	RBD_REJ_SHUTTING_DOWN	= 11,
	RBD_REJ_AUTH_REQUIRED	= 12,
	RBD_REJ_AUTH_FAILED	= 13,
	RBD_REJ_NR,
};

/**
 * enum rbd_data_dir - data direction of a SCSI command
 * @RBD_DIR_NONE: no data transfer.
 * @RBD_DIR_WRITE: data moves from initiator to target (RDMA READ by the
 *	target, or inline data in the command capsule).
 * @RBD_DIR_READ: data moves from target to initiator (RDMA WRITE by the
 *	target, or immediate data in the response capsule).
 * @RBD_DIR_BIDI: reserved; bidirectional commands are not supported in
 *	protocol version 1 and are rejected.
 */
enum rbd_data_dir {
	RBD_DIR_NONE		= 0,
	RBD_DIR_WRITE		= 1,
	RBD_DIR_READ		= 2,
	RBD_DIR_BIDI		= 3,
};

/**
 * enum rbd_task_attr - SAM task attribute of a SCSI command
 * @RBD_TASK_SIMPLE: SIMPLE.
 * @RBD_TASK_ORDERED: ORDERED.
 * @RBD_TASK_HEAD: HEAD OF QUEUE.
 * @RBD_TASK_ACA: ACA.
 */
enum rbd_task_attr {
	RBD_TASK_SIMPLE		= 0,
	RBD_TASK_ORDERED	= 1,
	RBD_TASK_HEAD		= 2,
	RBD_TASK_ACA		= 3,
};

/**
 * enum rbd_cmd_flags - &rbd_hdr.flags of a SCSI command capsule
 * @RBD_CMD_F_INVALIDATE: ask the target to invalidate the rkey of the first
 *	data descriptor by answering with SEND_WITH_INV. Only valid with at
 *	least one descriptor and with %RBD_FEAT_REMOTE_INV granted.
 * @RBD_CMD_F_ALL: every flag defined for this opcode.
 */
enum rbd_cmd_flags {
	RBD_CMD_F_INVALIDATE	= 1U << 0,
	RBD_CMD_F_ALL		= RBD_CMD_F_INVALIDATE,
};

/**
 * enum rbd_rsp_flags - &rbd_hdr.flags of a SCSI response capsule
 * @RBD_RSP_F_UNDERFLOW: fewer bytes than the expected data length were
 *	transferred; &rbd_rsp.residual holds the difference.
 * @RBD_RSP_F_OVERFLOW: the command wanted more bytes than the expected data
 *	length; &rbd_rsp.residual holds the excess.
 * @RBD_RSP_F_INVALIDATED: the target sent this response with SEND_WITH_INV
 *	for the rkey of the first data descriptor.
 * @RBD_RSP_F_ALL: every flag defined for this opcode.
 */
enum rbd_rsp_flags {
	RBD_RSP_F_UNDERFLOW	= 1U << 0,
	RBD_RSP_F_OVERFLOW	= 1U << 1,
	RBD_RSP_F_INVALIDATED	= 1U << 2,
	RBD_RSP_F_ALL		= RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW |
				  RBD_RSP_F_INVALIDATED,
};

/**
 * enum rbd_tmf_function - task management functions
 * @RBD_TMF_ABORT_TASK: abort the command named by &rbd_tmf_req.ref_tag.
 * @RBD_TMF_LUN_RESET: abort every command on &rbd_tmf_req.lun and reset
 *	the logical unit.
 */
enum rbd_tmf_function {
	RBD_TMF_ABORT_TASK	= 1,
	RBD_TMF_LUN_RESET	= 2,
};

/**
 * enum rbd_tmf_response - outcome of a task management function
 * @RBD_TMF_RSP_COMPLETE: the function completed.
 * @RBD_TMF_RSP_NO_TASK: ABORT TASK found no such command; it has
 *	completed or was never received.
 * @RBD_TMF_RSP_NO_LUN: the LUN is not mapped.
 * @RBD_TMF_RSP_NOT_SUPPORTED: unknown or unsupported function.
 * @RBD_TMF_RSP_REJECTED: the target could not run the function.
 */
enum rbd_tmf_response {
	RBD_TMF_RSP_COMPLETE		= 0,
	RBD_TMF_RSP_NO_TASK		= 1,
	RBD_TMF_RSP_NO_LUN		= 2,
	RBD_TMF_RSP_NOT_SUPPORTED	= 3,
	RBD_TMF_RSP_REJECTED		= 4,
};

/**
 * struct rbd_cm_req - private data of the rdma_cm connect request
 * @magic: %RBD_CM_MAGIC.
 * @version: protocol version the initiator speaks (%RBD_PROTO_VERSION).
 * @length: sizeof(struct rbd_cm_req). The passive side of an IB/RoCE
 *	connection always sees 56 bytes of private data, so this field tells
 *	how many of them are meaningful.
 * @qid: queue id; 0 creates a new session, 1..nr_queues joins one.
 * @queue_depth: command slots of this queue: 0 on queue 0, otherwise
 *	1..the queue depth granted at LOGIN.
 * @reserved: must be zero.
 * @features: queue 0: the feature bits that the LOGIN request will offer;
 *	I/O queue: the feature bits granted to the session.
 * @session_handle: 0 on queue 0, otherwise &rbd_login_rsp.session_handle.
 * @reserved2: must be zero.
 */
struct rbd_cm_req {
	__le32	magic;
	__le16	version;
	__le16	length;
	__le16	qid;
	__le16	queue_depth;
	__le32	reserved;
	__le64	features;
	__le64	session_handle;
	__le64	reserved2;
};

RBD_STATIC_ASSERT(cm_req_size, sizeof(struct rbd_cm_req) == 40);
RBD_STATIC_ASSERT(cm_req_in_pdata,
		  sizeof(struct rbd_cm_req) <= RBD_CM_PDATA_MAX);

/**
 * struct rbd_cm_rep - private data of the rdma_cm accept (REP)
 * @magic: %RBD_CM_MAGIC.
 * @version: protocol version of the connection (%RBD_PROTO_VERSION).
 * @length: sizeof(struct rbd_cm_rep).
 * @qid: queue id copied from the request.
 * @queue_depth: command slots of this queue, equal to the request.
 * @flags: &enum rbd_cm_rep_flags; undefined bits must be zero.
 */
struct rbd_cm_rep {
	__le32	magic;
	__le16	version;
	__le16	length;
	__le16	qid;
	__le16	queue_depth;
	__le32	flags;
};

/**
 * enum rbd_cm_rep_flags - flags of &rbd_cm_rep.flags
 * @RBD_CM_REP_F_AUTH: the target implements authentication. Set only on
 *	queue 0 and only when the request offered %RBD_FEAT_AUTH.
 * @RBD_CM_REP_F_REINSTATE: the target implements session reinstatement.
 *	Set only on queue 0 and only when the request offered
 *	%RBD_FEAT_REINSTATE.
 * @RBD_CM_REP_F_ALL: every flag defined by this version of the header.
 */
enum rbd_cm_rep_flags {
	RBD_CM_REP_F_AUTH	= 1 << 0,
	RBD_CM_REP_F_REINSTATE	= 1 << 1,
	RBD_CM_REP_F_ALL	= RBD_CM_REP_F_AUTH | RBD_CM_REP_F_REINSTATE,
};

RBD_STATIC_ASSERT(cm_rep_size, sizeof(struct rbd_cm_rep) == 16);
RBD_STATIC_ASSERT(cm_rep_in_pdata,
		  sizeof(struct rbd_cm_rep) <= RBD_CM_PDATA_MAX);

/**
 * struct rbd_cm_rej - private data of an rdma_cm reject sent by the target
 * @magic: %RBD_CM_MAGIC.
 * @version: layout version of this structure (%RBD_PROTO_VERSION).
 * @length: sizeof(struct rbd_cm_rej).
 * @reason: &enum rbd_reject_reason, never %RBD_REJ_NONE.
 * @min_version: oldest protocol version the target speaks.
 * @max_version: newest protocol version the target speaks.
 * @reserved: must be zero; ignored by the receiver.
 */
struct rbd_cm_rej {
	__le32	magic;
	__le16	version;
	__le16	length;
	__le16	reason;
	__le16	min_version;
	__le16	max_version;
	__le16	reserved;
};

RBD_STATIC_ASSERT(cm_rej_size, sizeof(struct rbd_cm_rej) == 16);
RBD_STATIC_ASSERT(cm_rej_in_pdata,
		  sizeof(struct rbd_cm_rej) <= RBD_CM_PDATA_MAX);

/**
 * struct rbd_hdr - common header at the start of every capsule
 * @opcode: &enum rbd_opcode.
 * @version: %RBD_PROTO_VERSION.
 * @flags: opcode-specific flags (&enum rbd_cmd_flags, &enum rbd_rsp_flags);
 *	zero for other opcodes.
 * @length: total capsule length in bytes, header and payload included. It
 *	must equal the byte count of the receive completion.
 * @tag: request tag; a response carries the tag of its request. Bits 63:48
 *	hold the qid of the queue the request was sent on, bits 47:32 a
 *	generation number that only the initiator interprets, and bits 31:0
 *	a slot: below the queue depth for SCSI commands, below
 *	%RBD_CTRL_SLOTS for control requests.
 */
struct rbd_hdr {
	__u8	opcode;
	__u8	version;
	__le16	flags;
	__le32	length;
	__le64	tag;
};

RBD_STATIC_ASSERT(hdr_size, sizeof(struct rbd_hdr) == 16);

/**
 * struct rbd_login_req - LOGIN request, the first capsule on queue 0
 * @hdr: common header, opcode %RBD_OP_LOGIN, length 512.
 * @features: offered feature bits; must equal &rbd_cm_req.features of
 *	queue 0. Bits unknown to the target are ignored.
 * @lun: LUN this session is for, in LIO's unpacked (flat u64) form.
 * @max_io_bytes: largest data transfer of one command; a multiple of 4096.
 * @inline_write_size: largest inline write; 0 disables inline writes.
 * @imm_read_size: largest immediate read; 0 disables immediate reads.
 * @keepalive_ms: keep-alive timeout in milliseconds, 0 for none.
 * @queue_depth: command slots per I/O queue.
 * @nr_queues: number of I/O queues, qids 1..nr_queues.
 * @max_desc: largest number of data descriptors in one command.
 * @reserved: must be zero.
 * @instance: 0, or with %RBD_FEAT_REINSTATE offered and the connect reply
 *	flag %RBD_CM_REP_F_REINSTATE seen, a number that names this session
 *	of the initiator, unpredictable and the same on every reconnect.
 * @initiator_name: initiator name (the LIO node ACL name), printable
 *	ASCII, NUL terminated and NUL padded, at most 223 characters.
 * @target_name: name of the target (the LIO WWN, e.g. an IQN), same rules.
 */
struct rbd_login_req {
	struct rbd_hdr	hdr;
	__le64	features;
	__le64	lun;
	__le32	max_io_bytes;
	__le32	inline_write_size;
	__le32	imm_read_size;
	__le32	keepalive_ms;
	__le16	queue_depth;
	__le16	nr_queues;
	__le16	max_desc;
	__le16	reserved;
	__le64	instance;
	char	initiator_name[RBD_NAME_LEN];
	char	target_name[RBD_NAME_LEN];
};

RBD_STATIC_ASSERT(login_req_size, sizeof(struct rbd_login_req) == 512);
RBD_STATIC_ASSERT(login_req_in_ctrl_capsule,
		  sizeof(struct rbd_login_req) <= RBD_CTRL_CAPSULE_MAX);

/**
 * struct rbd_login_rsp - LOGIN response
 * @hdr: common header, opcode %RBD_OP_LOGIN_RSP, length 64, the tag of
 *	the LOGIN request.
 * @features: granted feature bits, a subset of the offered ones.
 * @session_handle: non-zero, unpredictable handle that I/O queues present
 *	in &rbd_cm_req.session_handle.
 * @max_io_bytes: granted; not above the request.
 * @inline_write_size: granted; not above the request.
 * @imm_read_size: granted; not above the request.
 * @keepalive_ms: granted keep-alive timeout, which the initiator must use.
 * @queue_depth: granted; not above the request.
 * @nr_queues: granted; not above the request.
 * @max_desc: granted; not above the request.
 * @status: %RBD_REJ_NONE on success, otherwise the reason the login
 *	failed; all other fields after @hdr are then zero.
 * @reserved: must be zero.
 */
struct rbd_login_rsp {
	struct rbd_hdr	hdr;
	__le64	features;
	__le64	session_handle;
	__le32	max_io_bytes;
	__le32	inline_write_size;
	__le32	imm_read_size;
	__le32	keepalive_ms;
	__le16	queue_depth;
	__le16	nr_queues;
	__le16	max_desc;
	__le16	status;
	__u8	reserved[8];
};

RBD_STATIC_ASSERT(login_rsp_size, sizeof(struct rbd_login_rsp) == 64);

/**
 * struct rbd_desc - keyed data descriptor: memory the initiator registered
 * @addr: remote virtual address (the MR's iova plus offset).
 * @rkey: remote key of the memory region.
 * @len: length in bytes, not zero.
 */
struct rbd_desc {
	__le64	addr;
	__le32	rkey;
	__le32	len;
};

RBD_STATIC_ASSERT(desc_size, sizeof(struct rbd_desc) == 16);

/**
 * struct rbd_cmd - SCSI command capsule
 * @hdr: common header, opcode %RBD_OP_SCSI_CMD, flags &enum rbd_cmd_flags.
 *	@hdr.length is sizeof(struct rbd_cmd) plus the payload: @nr_desc
 *	&struct rbd_desc entries, or for an inline write @data_length bytes
 *	of data, or nothing.
 * @lun: logical unit, in LIO's unpacked (flat u64) form.
 * @data_length: expected data transfer length in bytes.
 * @nr_desc: number of &struct rbd_desc following this structure.
 * @dir: &enum rbd_data_dir.
 * @task_attr: &enum rbd_task_attr.
 * @cdb_len: valid bytes in @cdb, %RBD_MIN_CDB_LEN..%RBD_MAX_CDB_LEN, and at
 *	least the length implied by the operation code.
 * @reserved: must be zero.
 * @cdb: SCSI CDB; bytes past @cdb_len are ignored.
 */
struct rbd_cmd {
	struct rbd_hdr	hdr;
	__le64	lun;
	__le32	data_length;
	__le16	nr_desc;
	__u8	dir;
	__u8	task_attr;
	__u8	cdb_len;
	__u8	reserved[7];
	__u8	cdb[RBD_MAX_CDB_LEN];
};

RBD_STATIC_ASSERT(cmd_size, sizeof(struct rbd_cmd) == 72);

/**
 * struct rbd_rsp - SCSI response capsule
 * @hdr: common header, opcode %RBD_OP_SCSI_RSP, flags &enum rbd_rsp_flags,
 *	the tag of the command. @hdr.length is sizeof(struct rbd_rsp) plus
 *	@imm_len plus @sense_len.
 * @residual: residual count for %RBD_RSP_F_UNDERFLOW or
 *	%RBD_RSP_F_OVERFLOW, otherwise zero.
 * @imm_len: bytes of immediate read data that directly follow this
 *	structure; only for reads sent without data descriptors.
 * @credits: command window: how many commands the initiator may have
 *	outstanding on this queue from now on, 1..queue depth. Always the
 *	queue depth unless %RBD_FEAT_CREDIT_WINDOW is granted.
 * @sense_len: bytes of sense data that follow the immediate data,
 *	at most %RBD_MAX_SENSE_LEN.
 * @status: SCSI status byte (SAM-5).
 * @reserved: must be zero.
 */
struct rbd_rsp {
	struct rbd_hdr	hdr;
	__le32	residual;
	__le32	imm_len;
	__le16	credits;
	__le16	sense_len;
	__u8	status;
	__u8	reserved[3];
};

RBD_STATIC_ASSERT(rsp_size, sizeof(struct rbd_rsp) == 32);

/**
 * struct rbd_tmf_req - task management request, queue 0 only
 * @hdr: common header, opcode %RBD_OP_TMF, length 40.
 * @lun: logical unit the function applies to; for ABORT TASK the LUN of
 *	the command to abort.
 * @ref_tag: tag of the command to abort; zero for LUN RESET.
 * @function: &enum rbd_tmf_function.
 * @reserved: must be zero.
 */
struct rbd_tmf_req {
	struct rbd_hdr	hdr;
	__le64	lun;
	__le64	ref_tag;
	__u8	function;
	__u8	reserved[7];
};

RBD_STATIC_ASSERT(tmf_req_size, sizeof(struct rbd_tmf_req) == 40);

/**
 * struct rbd_tmf_rsp - task management response
 * @hdr: common header, opcode %RBD_OP_TMF_RSP, length 24, the tag of the
 *	request.
 * @response: &enum rbd_tmf_response.
 * @reserved: must be zero.
 */
struct rbd_tmf_rsp {
	struct rbd_hdr	hdr;
	__u8	response;
	__u8	reserved[7];
};

RBD_STATIC_ASSERT(tmf_rsp_size, sizeof(struct rbd_tmf_rsp) == 24);

/**
 * struct rbd_nop - keep-alive request (%RBD_OP_NOP) and response
 *	(%RBD_OP_NOP_RSP)
 * @hdr: common header, length 24; the response carries the request's tag.
 * @cookie: any value; the response echoes the request's cookie.
 */
struct rbd_nop {
	struct rbd_hdr	hdr;
	__le64	cookie;
};

RBD_STATIC_ASSERT(nop_size, sizeof(struct rbd_nop) == 24);

/**
 * struct rbd_logout - logout request (%RBD_OP_LOGOUT) and response
 *	(%RBD_OP_LOGOUT_RSP), queue 0 only
 * @hdr: common header, length 24; the response carries the request's tag.
 * @reserved: must be zero.
 */
struct rbd_logout {
	struct rbd_hdr	hdr;
	__u8	reserved[8];
};

RBD_STATIC_ASSERT(logout_size, sizeof(struct rbd_logout) == 24);

/* LUN numbers in one DISCOVER response, at most. */
#define RBD_DISCOVER_MAX_LUNS		32

/**
 * enum rbd_discover_flags - flags of &rbd_discover_rsp.flags
 * @RBD_DISCOVER_MORE_LUNS: the entry has more LUNs than this response
 *	lists; ask again for the same index with &rbd_discover_req.start_lun
 *	one above the last LUN listed.
 */
enum rbd_discover_flags {
	RBD_DISCOVER_MORE_LUNS	= 1 << 0,
};

/**
 * struct rbd_discover_req - DISCOVER request, queue 0 only, before LOGIN
 * @hdr: common header, opcode %RBD_OP_DISCOVER, length 256, a control
 *	slot tag.
 * @index: the entry asked for, 0 to &rbd_discover_rsp.nr_entries - 1.
 * @reserved: must be zero.
 * @start_lun: list the entry's LUNs from this number up (0 at first).
 * @initiator_name: the initiator name whose ACLs decide what is listed;
 *	the rules of &rbd_login_req.initiator_name.
 */
struct rbd_discover_req {
	struct rbd_hdr	hdr;
	__le32	index;
	__le32	reserved;
	__le64	start_lun;
	char	initiator_name[RBD_NAME_LEN];
};

RBD_STATIC_ASSERT(discover_req_size, sizeof(struct rbd_discover_req) == 256);
RBD_STATIC_ASSERT(discover_req_in_ctrl_capsule,
		  sizeof(struct rbd_discover_req) <= RBD_CTRL_CAPSULE_MAX);

/**
 * struct rbd_discover_rsp - DISCOVER response: one entry, a target portal
 *	group behind the portal and the LUNs the initiator may log in to
 * @hdr: common header, opcode %RBD_OP_DISCOVER_RSP, length 512, the tag of
 *	the request.
 * @status: %RBD_REJ_NONE; %RBD_REJ_ACL_DENIED when the initiator may use
 *	no LUN at this portal (@nr_entries is 0); %RBD_REJ_BAD_REQUEST for a
 *	malformed request or an @index not below @nr_entries;
 *	%RBD_REJ_NO_RESOURCES. All other fields after @hdr but @nr_entries
 *	are then zero.
 * @tpgt: the target portal group tag (tpgt_N) of the entry.
 * @nr_luns: number of valid @luns, 1..%RBD_DISCOVER_MAX_LUNS on success.
 * @flags: &enum rbd_discover_flags.
 * @index: the index asked for.
 * @nr_entries: number of entries: enabled target portal groups with a
 *	portal on this address in which the initiator may use at least one
 *	LUN.
 * @target_name: the target's name, as &rbd_login_req.target_name takes it.
 * @luns: LUN numbers as &rbd_login_req.lun takes them, strictly
 *	ascending, all at or above the request's start_lun; the rest zero.
 */
struct rbd_discover_rsp {
	struct rbd_hdr	hdr;
	__le16	status;
	__le16	tpgt;
	__le16	nr_luns;
	__le16	flags;
	__le32	index;
	__le32	nr_entries;
	char	target_name[RBD_NAME_LEN];
	__le64	luns[RBD_DISCOVER_MAX_LUNS];
};

RBD_STATIC_ASSERT(discover_rsp_size, sizeof(struct rbd_discover_rsp) == 512);
RBD_STATIC_ASSERT(discover_rsp_in_ctrl_capsule,
		  sizeof(struct rbd_discover_rsp) <= RBD_CTRL_CAPSULE_MAX);

/* Authentication (%RBD_FEAT_AUTH): random challenge bytes of each side. */
#define RBD_AUTH_CHALLENGE_LEN		32
/* Length of a proof: an HMAC-SHA-256 value. */
#define RBD_AUTH_PROOF_LEN		32
/* User name field: 1..255 printable ASCII characters, NUL padded. */
#define RBD_AUTH_USER_LEN		256
/* Secrets (HMAC keys) are 12..255 bytes; both sides refuse others. */
#define RBD_AUTH_SECRET_MIN		12
#define RBD_AUTH_SECRET_MAX		255

/**
 * enum rbd_auth_hash - MAC of &rbd_auth_begin.hash
 * @RBD_AUTH_HMAC_SHA256: HMAC-SHA-256 (RFC 2104, FIPS 180-4).
 */
enum rbd_auth_hash {
	RBD_AUTH_HMAC_SHA256	= 1,
};

/**
 * enum rbd_auth_flags - flags of &rbd_auth_begin.flags and
 *	&rbd_auth_proof_rsp.flags
 * @RBD_AUTH_F_MUTUAL: in AUTH_BEGIN, the initiator asks the target to prove
 *	itself; in AUTH_PROOF_RSP, the response carries the target's proof.
 */
enum rbd_auth_flags {
	RBD_AUTH_F_MUTUAL	= 1 << 0,
};

/**
 * struct rbd_auth_begin - AUTH_BEGIN request, queue 0, before anything but
 *	NOPs, at most once per connection
 * @hdr: common header, opcode %RBD_OP_AUTH_BEGIN, length 512.
 * @hash: &enum rbd_auth_hash.
 * @flags: &enum rbd_auth_flags.
 * @reserved: must be zero.
 * @challenge: the initiator's challenge, random.
 * @initiator_name: the name to authenticate, as in &rbd_login_req.
 * @target_name: the target the connection will log in to, as in
 *	&rbd_login_req; all zero to authenticate for discovery.
 * @reserved2: must be zero.
 */
struct rbd_auth_begin {
	struct rbd_hdr	hdr;
	__u8	hash;
	__u8	flags;
	__u8	reserved[6];
	__u8	challenge[RBD_AUTH_CHALLENGE_LEN];
	char	initiator_name[RBD_NAME_LEN];
	char	target_name[RBD_NAME_LEN];
	__u8	reserved2[8];
};

RBD_STATIC_ASSERT(auth_begin_size, sizeof(struct rbd_auth_begin) == 512);
RBD_STATIC_ASSERT(auth_begin_in_ctrl_capsule,
		  sizeof(struct rbd_auth_begin) <= RBD_CTRL_CAPSULE_MAX);

/**
 * struct rbd_auth_begin_rsp - AUTH_BEGIN response: the target's challenge
 * @hdr: common header, opcode %RBD_OP_AUTH_BEGIN_RSP, length 56, the tag
 *	of the request.
 * @status: %RBD_REJ_NONE, or why no authentication can take place
 *	(%RBD_REJ_UNKNOWN_TARGET, %RBD_REJ_TPG_DISABLED, ...); all other
 *	fields after @hdr are then zero and the target disconnects.
 * @hash: the request's hash.
 * @reserved: must be zero.
 * @challenge: the target's challenge, random, not all zero and not the
 *	initiator's.
 */
struct rbd_auth_begin_rsp {
	struct rbd_hdr	hdr;
	__le16	status;
	__u8	hash;
	__u8	reserved[5];
	__u8	challenge[RBD_AUTH_CHALLENGE_LEN];
};

RBD_STATIC_ASSERT(auth_begin_rsp_size,
		  sizeof(struct rbd_auth_begin_rsp) == 56);

/**
 * struct rbd_auth_proof - AUTH_PROOF request: the initiator's proof
 * @hdr: common header, opcode %RBD_OP_AUTH_PROOF, length 312.
 * @reserved: must be zero.
 * @proof: rbd_auth_msg_init() with @target_side 0, under the secret of
 *	@user.
 * @user: the initiator's user name (LIO's auth/userid).
 */
struct rbd_auth_proof {
	struct rbd_hdr	hdr;
	__u8	reserved[8];
	__u8	proof[RBD_AUTH_PROOF_LEN];
	char	user[RBD_AUTH_USER_LEN];
};

RBD_STATIC_ASSERT(auth_proof_size, sizeof(struct rbd_auth_proof) == 312);

/**
 * struct rbd_auth_proof_rsp - AUTH_PROOF response
 * @hdr: common header, opcode %RBD_OP_AUTH_PROOF_RSP, length 312, the tag
 *	of the request.
 * @status: %RBD_REJ_NONE when the initiator is authenticated, otherwise
 *	%RBD_REJ_AUTH_FAILED (or another reason) with all other fields after
 *	@hdr zero; the target then disconnects.
 * @flags: %RBD_AUTH_F_MUTUAL exactly when AUTH_BEGIN asked for it and
 *	@status is %RBD_REJ_NONE.
 * @reserved: must be zero.
 * @proof: with %RBD_AUTH_F_MUTUAL, rbd_auth_msg_init() with @target_side 1
 *	under the secret of @user; otherwise zero.
 * @user: with %RBD_AUTH_F_MUTUAL, the target's user name (LIO's
 *	auth/userid_mutual); otherwise zero.
 */
struct rbd_auth_proof_rsp {
	struct rbd_hdr	hdr;
	__le16	status;
	__u8	flags;
	__u8	reserved[5];
	__u8	proof[RBD_AUTH_PROOF_LEN];
	char	user[RBD_AUTH_USER_LEN];
};

RBD_STATIC_ASSERT(auth_proof_rsp_size,
		  sizeof(struct rbd_auth_proof_rsp) == 312);

/* Labels of &rbd_auth_msg.label: who proves. */
#define RBD_AUTH_LABEL_INITIATOR	"rbd-auth-1 ini"
#define RBD_AUTH_LABEL_TARGET		"rbd-auth-1 tgt"

/**
 * struct rbd_auth_msg - what a proof is the HMAC of; never sent
 * @label: %RBD_AUTH_LABEL_INITIATOR or %RBD_AUTH_LABEL_TARGET, NUL padded,
 *	so that one side's proof is never valid as the other's.
 * @challenge_ini: &rbd_auth_begin.challenge.
 * @challenge_tgt: &rbd_auth_begin_rsp.challenge.
 * @user: the user name of the prover, as sent, NUL padded.
 * @initiator_name: &rbd_auth_begin.initiator_name, as sent.
 * @target_name: &rbd_auth_begin.target_name, as sent.
 *
 * Both challenges are fresh for each connection, so a proof is good for
 * one connection only, and the names bind it to what AUTH_BEGIN asked for.
 */
struct rbd_auth_msg {
	char	label[16];
	__u8	challenge_ini[RBD_AUTH_CHALLENGE_LEN];
	__u8	challenge_tgt[RBD_AUTH_CHALLENGE_LEN];
	char	user[RBD_AUTH_USER_LEN];
	char	initiator_name[RBD_NAME_LEN];
	char	target_name[RBD_NAME_LEN];
};

RBD_STATIC_ASSERT(auth_msg_size, sizeof(struct rbd_auth_msg) == 784);

/**
 * rbd_auth_msg_init() - fill in the message a proof authenticates
 * @m: the message.
 * @target_side: 0 for the initiator's proof, 1 for the target's.
 * @begin: the AUTH_BEGIN request of the connection.
 * @challenge_tgt: the target's challenge.
 * @user: the prover's user name field, %RBD_AUTH_USER_LEN bytes as sent.
 */
static inline void rbd_auth_msg_init(struct rbd_auth_msg *m, int target_side,
				     const struct rbd_auth_begin *begin,
				     const __u8 *challenge_tgt,
				     const char *user)
{
	static const char ini[16] = RBD_AUTH_LABEL_INITIATOR;
	static const char tgt[16] = RBD_AUTH_LABEL_TARGET;

	__builtin_memcpy(m->label, target_side ? tgt : ini, sizeof(m->label));
	__builtin_memcpy(m->challenge_ini, begin->challenge,
			 sizeof(m->challenge_ini));
	__builtin_memcpy(m->challenge_tgt, challenge_tgt,
			 sizeof(m->challenge_tgt));
	__builtin_memcpy(m->user, user, sizeof(m->user));
	__builtin_memcpy(m->initiator_name, begin->initiator_name,
			 sizeof(m->initiator_name));
	__builtin_memcpy(m->target_name, begin->target_name,
			 sizeof(m->target_name));
}

/**
 * rbd_tag() - build a request tag
 * @qid: queue the request is sent on.
 * @gen: generation number, opaque to the target.
 * @slot: command slot (below the queue depth) or control slot (below
 *	%RBD_CTRL_SLOTS).
 *
 * Return: the tag for &rbd_hdr.tag, in CPU byte order.
 */
static inline __u64 rbd_tag(__u16 qid, __u16 gen, __u32 slot)
{
	return ((__u64)qid << RBD_TAG_QID_SHIFT) |
	       ((__u64)gen << RBD_TAG_GEN_SHIFT) | slot;
}

/**
 * rbd_tag_qid() - queue id encoded in a tag
 * @tag: tag in CPU byte order.
 *
 * Return: bits 63:48 of @tag.
 */
static inline __u16 rbd_tag_qid(__u64 tag)
{
	return (__u16)(tag >> RBD_TAG_QID_SHIFT);
}

/**
 * rbd_tag_gen() - generation number encoded in a tag
 * @tag: tag in CPU byte order.
 *
 * Return: bits 47:32 of @tag.
 */
static inline __u16 rbd_tag_gen(__u64 tag)
{
	return (__u16)(tag >> RBD_TAG_GEN_SHIFT);
}

/**
 * rbd_tag_slot() - slot encoded in a tag
 * @tag: tag in CPU byte order.
 *
 * Return: bits 31:0 of @tag.
 */
static inline __u32 rbd_tag_slot(__u64 tag)
{
	return (__u32)tag;
}

/**
 * rbd_bare_rsp() - immediate data of a bare response (%RBD_FEAT_BARE_READ)
 * @tag: tag of the command answered, in CPU byte order.
 *
 * A bare response names its command by the slot (bits 15:0) and the
 * generation (bits 31:16) of its tag; the qid is that of
 * the queue it arrives on. It carries status GOOD, no residual, no sense
 * data, and leaves the command window as it was. On the wire the value is
 * little-endian, like every rbd field: the four immediate data bytes are
 * its bytes in little-endian order.
 *
 * Return: the immediate data value, in CPU byte order.
 */
static inline __u32 rbd_bare_rsp(__u64 tag)
{
	return ((__u32)rbd_tag_gen(tag) << RBD_BARE_GEN_SHIFT) |
	       (rbd_tag_slot(tag) & 0xffff);
}

/**
 * rbd_bare_rsp_tag() - the tag a bare response answers
 * @qid: queue the response arrived on.
 * @imm: its immediate data value, in CPU byte order.
 *
 * Return: the tag, in CPU byte order.
 */
static inline __u64 rbd_bare_rsp_tag(__u16 qid, __u32 imm)
{
	return rbd_tag(qid, (__u16)(imm >> RBD_BARE_GEN_SHIFT),
		       imm & 0xffff);
}

/* Every command slot fits the 16 bits a bare response has for it. */
RBD_STATIC_ASSERT(bare_rsp_slot, RBD_MAX_QUEUE_DEPTH <= 0x10000);

/**
 * rbd_cmd_capsule_max() - receive buffer size for commands on an I/O queue
 * @inline_write_size: granted inline write size.
 * @max_desc: granted number of data descriptors.
 *
 * Return: the largest valid command capsule, which is the size of every
 * receive buffer the target posts on an I/O queue.
 */
static inline __u32 rbd_cmd_capsule_max(__u32 inline_write_size,
					__u16 max_desc)
{
	__u32 desc_bytes = (__u32)(max_desc * sizeof(struct rbd_desc));
	__u32 payload = inline_write_size > desc_bytes ?
			inline_write_size : desc_bytes;

	return (__u32)sizeof(struct rbd_cmd) + payload;
}

/**
 * rbd_rsp_capsule_max() - receive buffer size for responses on an I/O queue
 * @imm_read_size: granted immediate read size.
 *
 * Return: the largest valid response capsule, which is the size of every
 * receive buffer the initiator posts on an I/O queue.
 */
static inline __u32 rbd_rsp_capsule_max(__u32 imm_read_size)
{
	return (__u32)sizeof(struct rbd_rsp) + imm_read_size + RBD_MAX_SENSE_LEN;
}

/* Most responses in one response batch (%RBD_FEAT_RSP_BATCH), by rule. */
#define RBD_RSP_BATCH_MAX		16

/**
 * rbd_rsp_batch_max() - most responses in one response batch
 * @imm_read_size: granted immediate read size.
 *
 * A batch fills at most one receive buffer (rbd_rsp_capsule_max()) and
 * holds at most %RBD_RSP_BATCH_MAX responses.
 *
 * Return: the limit, at least 4.
 */
static inline __u32 rbd_rsp_batch_max(__u32 imm_read_size)
{
	__u32 n = rbd_rsp_capsule_max(imm_read_size) /
		  (__u32)sizeof(struct rbd_rsp);

	return n < RBD_RSP_BATCH_MAX ? n : RBD_RSP_BATCH_MAX;
}

/**
 * rbd_reject_str() - describe a reject reason
 * @reason: &enum rbd_reject_reason, as found in &rbd_cm_rej.reason or
 *	&rbd_login_rsp.status (after conversion to CPU byte order).
 *
 * Return: a constant string; "unknown reason" for undefined values.
 */
static inline const char *rbd_reject_str(__u16 reason)
{
	switch (reason) {
	case RBD_REJ_NONE:
		return "success";
	case RBD_REJ_BAD_REQUEST:
		return "malformed request";
	case RBD_REJ_VERSION:
		return "unsupported protocol version";
	case RBD_REJ_UNKNOWN_TARGET:
		return "unknown target";
	case RBD_REJ_ACL_DENIED:
		return "access denied by ACL";
	case RBD_REJ_NO_LUN:
		return "no such LUN";
	case RBD_REJ_LIMITS:
		return "unacceptable limits";
	case RBD_REJ_TPG_DISABLED:
		return "target portal group disabled";
	case RBD_REJ_NO_RESOURCES:
		return "target out of resources";
	case RBD_REJ_UNKNOWN_SESSION:
		return "unknown session";
	case RBD_REJ_INVALID_QID:
		return "invalid queue id";
	case RBD_REJ_SHUTTING_DOWN:
		return "shutting down";
	case RBD_REJ_AUTH_REQUIRED:
		return "authentication required";
	case RBD_REJ_AUTH_FAILED:
		return "authentication failed";
	default:
		return "unknown reason";
	}
}

/**
 * rbd_opcode_str() - name of an opcode, for log messages
 * @opcode: &enum rbd_opcode.
 *
 * Return: a constant string; "UNKNOWN" for undefined values.
 */
static inline const char *rbd_opcode_str(__u8 opcode)
{
	switch (opcode) {
	case RBD_OP_LOGIN:
		return "LOGIN";
	case RBD_OP_LOGOUT:
		return "LOGOUT";
	case RBD_OP_NOP:
		return "NOP";
	case RBD_OP_SCSI_CMD:
		return "SCSI_CMD";
	case RBD_OP_TMF:
		return "TMF";
	case RBD_OP_DISCOVER:
		return "DISCOVER";
	case RBD_OP_AUTH_BEGIN:
		return "AUTH_BEGIN";
	case RBD_OP_AUTH_PROOF:
		return "AUTH_PROOF";
	case RBD_OP_LOGIN_RSP:
		return "LOGIN_RSP";
	case RBD_OP_LOGOUT_RSP:
		return "LOGOUT_RSP";
	case RBD_OP_NOP_RSP:
		return "NOP_RSP";
	case RBD_OP_SCSI_RSP:
		return "SCSI_RSP";
	case RBD_OP_TMF_RSP:
		return "TMF_RSP";
	case RBD_OP_DISCOVER_RSP:
		return "DISCOVER_RSP";
	case RBD_OP_AUTH_BEGIN_RSP:
		return "AUTH_BEGIN_RSP";
	case RBD_OP_AUTH_PROOF_RSP:
		return "AUTH_PROOF_RSP";
	default:
		return "UNKNOWN";
	}
}

/**
 * rbd_tmf_rsp_str() - name of a task management response, for messages
 * @response: &enum rbd_tmf_response.
 *
 * Return: a constant string; "unknown response" for undefined values.
 */
static inline const char *rbd_tmf_rsp_str(__u8 response)
{
	switch (response) {
	case RBD_TMF_RSP_COMPLETE:
		return "function complete";
	case RBD_TMF_RSP_NO_TASK:
		return "no such task";
	case RBD_TMF_RSP_NO_LUN:
		return "no such LUN";
	case RBD_TMF_RSP_NOT_SUPPORTED:
		return "function not supported";
	case RBD_TMF_RSP_REJECTED:
		return "function rejected";
	default:
		return "unknown response";
	}
}

#endif /* _UAPI_RBD_PROTO_H */
