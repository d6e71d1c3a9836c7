/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * rbd wire protocol: validators shared by rbdt, rbdi and the unit tests.
 *
 * Every function here takes bytes received from the peer and the length the
 * transport reported, and decides whether they form a well-formed message
 * before any other code looks at them. The functions never read outside
 * [buf, buf + len) and never trust a length or count taken from the buffer.
 *
 * Capsule buffers (command, response and control capsules) must be 8-byte
 * aligned, as every RDMA receive buffer is. Connection private data may be
 * unaligned (rdma_cm hands it over at a 4-byte offset on IB); the private
 * data validators copy it into a caller-provided structure first.
 *
 * What each side does with each outcome is specified in
 * Documentation/protocol.rst, section "Malformed and hostile input".
 */
#ifndef _UAPI_RBD_PROTO_CHECK_H
#define _UAPI_RBD_PROTO_CHECK_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <asm/byteorder.h>
#else
#include <stddef.h>
#endif

#include "rbd_proto.h"

#ifdef __KERNEL__
#define rbd_le16(x)	le16_to_cpu(x)
#define rbd_le32(x)	le32_to_cpu(x)
#define rbd_le64(x)	le64_to_cpu(x)
#define rbd_cpu_to_le16(x)	cpu_to_le16(x)
#define rbd_cpu_to_le32(x)	cpu_to_le32(x)
#define rbd_cpu_to_le64(x)	cpu_to_le64(x)
#else /* !__KERNEL__ */

#ifdef __CHECKER__
#define RBD_FORCE	__attribute__((force))
#else
#define RBD_FORCE
#endif

/*
 * glibc's le16toh() family is hidden under strict -std=c99, so userspace
 * uses the compiler's byte order macros instead.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RBD_SWAP16(x)	__builtin_bswap16(x)
#define RBD_SWAP32(x)	__builtin_bswap32(x)
#define RBD_SWAP64(x)	__builtin_bswap64(x)
#else
#define RBD_SWAP16(x)	(x)
#define RBD_SWAP32(x)	(x)
#define RBD_SWAP64(x)	(x)
#endif

static inline __u16 rbd_le16(__le16 v)
{
	return RBD_SWAP16((RBD_FORCE __u16)v);
}

static inline __u32 rbd_le32(__le32 v)
{
	return RBD_SWAP32((RBD_FORCE __u32)v);
}

static inline __u64 rbd_le64(__le64 v)
{
	return RBD_SWAP64((RBD_FORCE __u64)v);
}

static inline __le16 rbd_cpu_to_le16(__u16 v)
{
	return (RBD_FORCE __le16)RBD_SWAP16(v);
}

static inline __le32 rbd_cpu_to_le32(__u32 v)
{
	return (RBD_FORCE __le32)RBD_SWAP32(v);
}

static inline __le64 rbd_cpu_to_le64(__u64 v)
{
	return (RBD_FORCE __le64)RBD_SWAP64(v);
}
#endif /* !__KERNEL__ */

/**
 * enum rbd_check - outcome of a validator
 * @RBD_CHECK_OK: well formed.
 * @RBD_CHECK_SHORT: fewer bytes than the fixed part of the message.
 * @RBD_CHECK_BAD_VERSION: version other than %RBD_PROTO_VERSION.
 * @RBD_CHECK_BAD_OPCODE: unknown opcode, or one not allowed in this
 *	direction or on this queue.
 * @RBD_CHECK_BAD_TAG: tag names another queue or a slot beyond the queue.
 * @RBD_CHECK_BAD_LENGTH: a length field disagrees with the bytes received
 *	or with the rest of the message.
 * @RBD_CHECK_BAD_FLAGS: undefined flag bit, or a flag not allowed here.
 * @RBD_CHECK_RESERVED: non-zero reserved field.
 * @RBD_CHECK_BAD_FIELD: a field holds an undefined or inconsistent value.
 * @RBD_CHECK_BAD_TASK_ATTR: undefined task attribute.
 * @RBD_CHECK_CDB_LEN: cdb_len outside 6..32 or shorter than the CDB's
 *	operation code implies.
 * @RBD_CHECK_TOO_MANY_DESC: more data descriptors than negotiated.
 * @RBD_CHECK_DATA_TOO_LONG: data length above the negotiated maximum.
 * @RBD_CHECK_BAD_DIR: undefined or bidirectional direction, or a direction
 *	that contradicts the data length.
 * @RBD_CHECK_DESC_LEN: descriptors do not exactly cover the data length,
 *	or one is empty or wraps the address space.
 * @RBD_CHECK_INLINE_TOO_LONG: inline write data longer than the negotiated
 *	size or than the bytes actually received.
 * @RBD_CHECK_IMM_TOO_LONG: immediate read data longer than negotiated.
 * @RBD_CHECK_SENSE_TOO_LONG: sense data longer than %RBD_MAX_SENSE_LEN.
 * @RBD_CHECK_BAD_RESIDUAL: both residual flags, or a residual without one.
 * @RBD_CHECK_BAD_CREDITS: command window outside 1..queue depth, or below
 *	the depth without %RBD_FEAT_CREDIT_WINDOW.
 * @RBD_CHECK_BAD_MAGIC: private data without %RBD_CM_MAGIC.
 * @RBD_CHECK_BAD_QID: queue id out of range or not the one requested.
 * @RBD_CHECK_BAD_LIMITS: a limit outside the protocol range, or a grant
 *	above the request.
 * @RBD_CHECK_BAD_FEATURES: feature bits granted that were not offered.
 * @RBD_CHECK_BAD_NAME: empty, unterminated, non-printable or not
 *	NUL-padded name.
 * @RBD_CHECK_CDB_DIR: the direction contradicts the CDB's operation code
 *	(see rbd_cdb_dirs()).
 * @RBD_CHECK_NR: number of outcomes; not an outcome itself.
 */
enum rbd_check {
	RBD_CHECK_OK = 0,
	RBD_CHECK_SHORT,
	RBD_CHECK_BAD_VERSION,
	RBD_CHECK_BAD_OPCODE,
	RBD_CHECK_BAD_TAG,
	RBD_CHECK_BAD_LENGTH,
	RBD_CHECK_BAD_FLAGS,
	RBD_CHECK_RESERVED,
	RBD_CHECK_BAD_FIELD,
	RBD_CHECK_BAD_TASK_ATTR,
	RBD_CHECK_CDB_LEN,
	RBD_CHECK_TOO_MANY_DESC,
	RBD_CHECK_DATA_TOO_LONG,
	RBD_CHECK_BAD_DIR,
	RBD_CHECK_DESC_LEN,
	RBD_CHECK_INLINE_TOO_LONG,
	RBD_CHECK_IMM_TOO_LONG,
	RBD_CHECK_SENSE_TOO_LONG,
	RBD_CHECK_BAD_RESIDUAL,
	RBD_CHECK_BAD_CREDITS,
	RBD_CHECK_BAD_MAGIC,
	RBD_CHECK_BAD_QID,
	RBD_CHECK_BAD_LIMITS,
	RBD_CHECK_BAD_FEATURES,
	RBD_CHECK_BAD_NAME,
	RBD_CHECK_CDB_DIR,
	RBD_CHECK_NR,
};

/**
 * struct rbd_check_limits - negotiated state a queue validates against
 * @features: granted feature bits (%RBD_FEAT_*).
 * @max_io_bytes: granted maximum data length of one command.
 * @inline_write_size: granted inline write size.
 * @imm_read_size: granted immediate read size.
 * @qid: id of the queue the message arrived on.
 * @queue_depth: command slots of this queue; 0 on queue 0.
 * @max_desc: granted number of data descriptors per command.
 *
 * Host byte order; this structure never goes on the wire. On queue 0
 * before LOGIN completes, all members are zero. The members are 32 bits
 * wide only to leave no padding.
 */
struct rbd_check_limits {
	__u64	features;
	__u32	max_io_bytes;
	__u32	inline_write_size;
	__u32	imm_read_size;
	__u32	qid;
	__u32	queue_depth;
	__u32	max_desc;
};

/**
 * rbd_check_str() - describe a validator outcome, for log messages
 * @c: outcome.
 *
 * Return: a constant string; "unknown outcome" for undefined values.
 */
static inline const char *rbd_check_str(enum rbd_check c)
{
	switch (c) {
	case RBD_CHECK_OK:
		return "ok";
	case RBD_CHECK_SHORT:
		return "message too short";
	case RBD_CHECK_BAD_VERSION:
		return "unsupported version";
	case RBD_CHECK_BAD_OPCODE:
		return "unexpected opcode";
	case RBD_CHECK_BAD_TAG:
		return "invalid tag";
	case RBD_CHECK_BAD_LENGTH:
		return "inconsistent length";
	case RBD_CHECK_BAD_FLAGS:
		return "invalid flags";
	case RBD_CHECK_RESERVED:
		return "reserved field not zero";
	case RBD_CHECK_BAD_FIELD:
		return "invalid field value";
	case RBD_CHECK_BAD_TASK_ATTR:
		return "invalid task attribute";
	case RBD_CHECK_CDB_LEN:
		return "CDB length out of range";
	case RBD_CHECK_TOO_MANY_DESC:
		return "too many data descriptors";
	case RBD_CHECK_DATA_TOO_LONG:
		return "data length beyond limit";
	case RBD_CHECK_BAD_DIR:
		return "invalid data direction";
	case RBD_CHECK_DESC_LEN:
		return "descriptors do not cover data length";
	case RBD_CHECK_INLINE_TOO_LONG:
		return "inline data longer than buffer";
	case RBD_CHECK_IMM_TOO_LONG:
		return "immediate data longer than limit";
	case RBD_CHECK_SENSE_TOO_LONG:
		return "sense data too long";
	case RBD_CHECK_BAD_RESIDUAL:
		return "invalid residual";
	case RBD_CHECK_BAD_CREDITS:
		return "invalid credit window";
	case RBD_CHECK_BAD_MAGIC:
		return "bad magic";
	case RBD_CHECK_BAD_QID:
		return "invalid queue id";
	case RBD_CHECK_BAD_LIMITS:
		return "limits out of range";
	case RBD_CHECK_BAD_FEATURES:
		return "unexpected feature bits";
	case RBD_CHECK_BAD_NAME:
		return "invalid name";
	case RBD_CHECK_CDB_DIR:
		return "data direction contradicts the CDB";
	default:
		return "unknown outcome";
	}
}

/**
 * rbd_check_cmd_fatal() - must the target drop the connection?
 * @c: outcome of rbd_check_cmd() or rbd_check_request() for a capsule
 *	carrying %RBD_OP_SCSI_CMD.
 *
 * The outcomes found before the tag was validated leave the target without
 * a trustworthy tag to answer to; the target logs them and disconnects.
 * All later outcomes are answered with CHECK CONDITION.
 *
 * Return: 1 to disconnect, 0 to answer (or, for %RBD_CHECK_OK, execute).
 */
static inline int rbd_check_cmd_fatal(enum rbd_check c)
{
	switch (c) {
	case RBD_CHECK_SHORT:
	case RBD_CHECK_BAD_VERSION:
	case RBD_CHECK_BAD_OPCODE:
	case RBD_CHECK_BAD_TAG:
		return 1;
	default:
		return 0;
	}
}

/**
 * rbd_check_reject_reason() - reject reason for a refused connection or login
 * @c: outcome of rbd_check_cm_req() or rbd_check_login_req().
 *
 * Return: the &enum rbd_reject_reason to send; %RBD_REJ_NONE for
 * %RBD_CHECK_OK.
 */
static inline __u16 rbd_check_reject_reason(enum rbd_check c)
{
	switch (c) {
	case RBD_CHECK_OK:
		return RBD_REJ_NONE;
	case RBD_CHECK_BAD_VERSION:
		return RBD_REJ_VERSION;
	case RBD_CHECK_BAD_QID:
		return RBD_REJ_INVALID_QID;
	case RBD_CHECK_BAD_LIMITS:
		return RBD_REJ_LIMITS;
	default:
		return RBD_REJ_BAD_REQUEST;
	}
}

/**
 * rbd_check_limits_init() - fill limits from a successful LOGIN response
 * @lim: limits to fill.
 * @rsp: LOGIN response, already validated.
 * @qid: queue the limits are for.
 * @queue_depth: command slots of that queue (0 for queue 0).
 */
static inline void rbd_check_limits_init(struct rbd_check_limits *lim,
					 const struct rbd_login_rsp *rsp,
					 __u16 qid, __u16 queue_depth)
{
	lim->features = rbd_le64(rsp->features);
	lim->max_io_bytes = rbd_le32(rsp->max_io_bytes);
	lim->inline_write_size = rbd_le32(rsp->inline_write_size);
	lim->imm_read_size = rbd_le32(rsp->imm_read_size);
	lim->qid = qid;
	lim->queue_depth = queue_depth;
	lim->max_desc = rbd_le16(rsp->max_desc);
}

/**
 * rbd_cdb_implied_len() - CDB length implied by the operation code
 * @cdb: CDB of at least %RBD_MAX_CDB_LEN bytes.
 *
 * Mirrors the SCSI group code table; for VARIABLE LENGTH (7Fh) CDBs the
 * length is the additional CDB length in byte 7 plus 8. A target must not
 * hand LIO a CDB whose implied length exceeds the bytes it holds.
 *
 * Return: the implied length in bytes, 6..263.
 */
static inline unsigned int rbd_cdb_implied_len(const __u8 *cdb)
{
	static const __u8 group_len[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	if (cdb[0] == 0x7f)
		return cdb[7] + 8U;
	return group_len[(cdb[0] >> 5) & 7];
}

/* Direction sets of rbd_cdb_dirs(), one bit per &enum rbd_data_dir. */
#define RBD_DIRS_NONE	(1U << RBD_DIR_NONE)
#define RBD_DIRS_IN	((1U << RBD_DIR_READ) | RBD_DIRS_NONE)
#define RBD_DIRS_OUT	(1U << RBD_DIR_WRITE)
#define RBD_DIRS_OUT0	(RBD_DIRS_OUT | RBD_DIRS_NONE)
#define RBD_DIRS_ANY	(RBD_DIRS_IN | RBD_DIRS_OUT)

/* rbd_cdb_dirs() of a VARIABLE LENGTH (7Fh) CDB, by service action. */
static inline unsigned int rbd_cdb_dirs_var(const __u8 *cdb)
{
	switch ((cdb[8] << 8) | cdb[9]) {
	case 0x0009:			/* READ(32) */
		return RBD_DIRS_IN;
	case 0x000a:			/* VERIFY(32) */
		return cdb[10] & 0x06 ? RBD_DIRS_OUT : RBD_DIRS_NONE;
	case 0x000b:			/* WRITE(32) */
	case 0x000c:			/* WRITE AND VERIFY(32) */
	case 0x000d:			/* WRITE SAME(32) */
		return RBD_DIRS_OUT;
	case 0x0007:			/* XDWRITEREAD(32): bidirectional */
		return 0;
	default:
		return RBD_DIRS_ANY;
	}
}

/**
 * rbd_cdb_dirs() - data directions a CDB's operation code allows
 * @cdb: CDB of at least %RBD_MAX_CDB_LEN bytes.
 *
 * LIO and its backstores take a command's direction from the transport,
 * not from the CDB: a READ sent as a data-out command writes the medium,
 * and its write-protect check only sees data-out commands. So the target
 * derives the direction from the operation code of every command SBC or
 * SPC defines:
 *
 * - data-in commands (READ, INQUIRY, MODE SENSE, ...): READ, or NONE
 *   (nothing is transferred: an allocation length of 0);
 * - commands that write the medium (the WRITE, WRITE AND VERIFY, WRITE
 *   SAME and COMPARE AND WRITE families): WRITE only, since LIO executes
 *   some of them (WRITE SAME with UNMAP) without looking at the data;
 * - other data-out commands, whose parameter list may be empty (MODE
 *   SELECT, UNMAP, PERSISTENT RESERVE OUT, SET TARGET PORT GROUPS, ...):
 *   WRITE or NONE;
 * - commands without data (TEST UNIT READY, SYNCHRONIZE CACHE, ...): NONE;
 * - bidirectional commands: none at all (rbd has no bidirectional data).
 *
 * Other operation codes (vendor specific, or for passthrough backstores)
 * keep the direction the initiator gives; LIO refuses them on emulating
 * backstores.
 *
 * Return: a set of %RBD_DIRS_* bits; 0 refuses every direction.
 */
static inline unsigned int rbd_cdb_dirs(const __u8 *cdb)
{
	switch (cdb[0]) {
	case 0x03: case 0x08: case 0x12: case 0x1a: case 0x1c: case 0x25:
	case 0x28: case 0x37: case 0x3c: case 0x3e: case 0x4d: case 0x5a:
	case 0x5e: case 0x84: case 0x88: case 0x8c: case 0x9e: case 0xa0:
	case 0xa2: case 0xa3: case 0xa8: case 0xb7:
		/*
		 * REQUEST SENSE, READ(6), INQUIRY, MODE SENSE(6), RECEIVE
		 * DIAGNOSTIC RESULTS, READ CAPACITY(10), READ(10), READ DEFECT
		 * DATA(10), READ BUFFER, READ LONG(10), LOG SENSE, MODE
		 * SENSE(10), PERSISTENT RESERVE IN, RECEIVE COPY RESULTS,
		 * READ(16), READ ATTRIBUTE, SERVICE ACTION IN(16), REPORT
		 * LUNS, SECURITY PROTOCOL IN, MAINTENANCE IN, READ(12), READ
		 * DEFECT DATA(12)
		 */
		return RBD_DIRS_IN;
	case 0x0a: case 0x2a: case 0x2e: case 0x41: case 0x89: case 0x8a:
	case 0x8e: case 0x93: case 0xaa: case 0xae: case 0x3f: case 0x9c:
		/*
		 * WRITE(6), WRITE(10), WRITE AND VERIFY(10), WRITE SAME(10),
		 * COMPARE AND WRITE, WRITE(16), WRITE AND VERIFY(16), WRITE
		 * SAME(16), WRITE(12), WRITE AND VERIFY(12), WRITE LONG(10),
		 * WRITE ATOMIC(16)
		 */
		return RBD_DIRS_OUT;
	case 0x04: case 0x07: case 0x15: case 0x16: case 0x1d: case 0x3b:
	case 0x42: case 0x4c: case 0x55: case 0x56: case 0x5f: case 0x83:
	case 0x8d: case 0xa4: case 0xb5:
		/*
		 * FORMAT UNIT, REASSIGN BLOCKS, MODE SELECT(6), RESERVE(6),
		 * SEND DIAGNOSTIC, WRITE BUFFER, UNMAP, LOG SELECT, MODE
		 * SELECT(10), RESERVE(10), PERSISTENT RESERVE OUT, EXTENDED
		 * COPY, WRITE ATTRIBUTE, MAINTENANCE OUT, SECURITY PROTOCOL
		 * OUT
		 */
		return RBD_DIRS_OUT0;
	case 0x2f: case 0x8f: case 0xaf:
		/* VERIFY(10/16/12): data-out only with BYTCHK. */
		return cdb[1] & 0x06 ? RBD_DIRS_OUT : RBD_DIRS_NONE;
	case 0x00: case 0x01: case 0x0b: case 0x17: case 0x1b: case 0x1e:
	case 0x2b: case 0x35: case 0x57: case 0x91:
		/*
		 * TEST UNIT READY, REZERO UNIT, SEEK(6), RELEASE(6), START
		 * STOP UNIT, PREVENT ALLOW MEDIUM REMOVAL, SEEK(10),
		 * SYNCHRONIZE CACHE(10), RELEASE(10), SYNCHRONIZE CACHE(16)
		 */
		return RBD_DIRS_NONE;
	case 0x53:			/* XDWRITEREAD(10) */
		return 0;
	case 0x7f:
		return rbd_cdb_dirs_var(cdb);
	default:
		return RBD_DIRS_ANY;
	}
}

/**
 * rbd_hdr_fill() - zero a capsule and fill in its header
 * @buf: the capsule, @len bytes.
 * @opcode: &enum rbd_opcode.
 * @len: its length, also &rbd_hdr.length.
 * @tag: &rbd_hdr.tag, in wire order.
 */
static inline void rbd_hdr_fill(void *buf, __u8 opcode, __u32 len,
				__le64 tag)
{
	struct rbd_hdr *hdr = (struct rbd_hdr *)buf;

	__builtin_memset(buf, 0, len);
	hdr->opcode = opcode;
	hdr->version = RBD_PROTO_VERSION;
	hdr->length = rbd_cpu_to_le32(len);
	hdr->tag = tag;
}

/* Return 1 when the @n bytes at @p are all zero. */
static inline int rbd_check_zero(const void *p, size_t n)
{
	const __u8 *b = (const __u8 *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Check the tag of a message received on queue @qid with @nslots slots. */
static inline enum rbd_check rbd_check_tag(__le64 wire_tag, __u32 qid,
					   __u32 nslots)
{
	__u64 tag = rbd_le64(wire_tag);

	if (rbd_tag_qid(tag) != qid || rbd_tag_slot(tag) >= nslots)
		return RBD_CHECK_BAD_TAG;
	return RBD_CHECK_OK;
}

/*
 * Checks shared by all fixed-size control capsules: size, version, opcode,
 * control-slot tag, length and flags (always zero for control capsules).
 */
static inline enum rbd_check rbd_check_ctrl(const void *buf, size_t len,
					    size_t size, __u8 opcode,
					    __u32 qid)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)buf;

	if (!buf || len < size)
		return RBD_CHECK_SHORT;
	if (hdr->version != RBD_PROTO_VERSION)
		return RBD_CHECK_BAD_VERSION;
	if (hdr->opcode != opcode)
		return RBD_CHECK_BAD_OPCODE;
	if (rbd_check_tag(hdr->tag, qid, RBD_CTRL_SLOTS))
		return RBD_CHECK_BAD_TAG;
	if (len != size || rbd_le32(hdr->length) != len)
		return RBD_CHECK_BAD_LENGTH;
	if (hdr->flags)
		return RBD_CHECK_BAD_FLAGS;
	return RBD_CHECK_OK;
}

/* Return 1 when @name is a valid, NUL-terminated, NUL-padded name. */
static inline int rbd_check_name(const char *name)
{
	const __u8 *b = (const __u8 *)name;
	size_t i;

	if (!b[0])
		return 0;
	for (i = 0; i < RBD_NAME_LEN && b[i]; i++)
		if (b[i] < 0x21 || b[i] > 0x7e)
			return 0;
	if (i == RBD_NAME_LEN)
		return 0;
	return rbd_check_zero(b + i, RBD_NAME_LEN - i);
}

/*
 * Protocol ranges of the negotiated limits; shared by LOGIN requests and
 * responses. @keepalive_ms may be 0.
 */
static inline int rbd_check_limit_ranges(__u32 max_io_bytes,
					 __u32 inline_write_size,
					 __u32 imm_read_size, __u32 keepalive_ms,
					 __u16 queue_depth, __u16 nr_queues,
					 __u16 max_desc)
{
	if (max_io_bytes < RBD_MIN_IO_BYTES || max_io_bytes > RBD_MAX_IO_BYTES ||
	    max_io_bytes % RBD_IO_BYTES_ALIGN)
		return 0;
	if (inline_write_size > RBD_MAX_INLINE_WRITE ||
	    imm_read_size > RBD_MAX_IMM_READ)
		return 0;
	if (keepalive_ms && (keepalive_ms < RBD_MIN_KEEPALIVE_MS ||
			     keepalive_ms > RBD_MAX_KEEPALIVE_MS))
		return 0;
	if (queue_depth < RBD_MIN_QUEUE_DEPTH ||
	    queue_depth > RBD_MAX_QUEUE_DEPTH)
		return 0;
	if (nr_queues < RBD_MIN_NR_QUEUES || nr_queues > RBD_MAX_NR_QUEUES)
		return 0;
	if (max_desc < RBD_MIN_DESC || max_desc > RBD_MAX_DESC)
		return 0;
	return 1;
}

/**
 * rbd_check_cm_req() - validate connect request private data (target side)
 * @pdata: private data of the CONNECT_REQUEST event; may be unaligned.
 * @len: private data length reported by rdma_cm (56 on IB/RoCE).
 * @out: receives a copy of the request; valid when %RBD_CHECK_OK is
 *	returned, and its version is valid for %RBD_CHECK_BAD_VERSION.
 *
 * Session state (does the handle exist, is the qid free, does the depth fit
 * the session) is for the caller to check.
 *
 * Return: %RBD_CHECK_OK or the first problem found. Map it to a reject
 * reason with rbd_check_reject_reason().
 */
static inline enum rbd_check rbd_check_cm_req(const void *pdata, size_t len,
					      struct rbd_cm_req *out)
{
	size_t n = len < sizeof(*out) ? len : sizeof(*out);
	__u16 qid, depth;

	__builtin_memset(out, 0, sizeof(*out));
	if (!pdata || len < 8)
		return RBD_CHECK_SHORT;
	__builtin_memcpy(out, pdata, n);

	if (rbd_le32(out->magic) != RBD_CM_MAGIC)
		return RBD_CHECK_BAD_MAGIC;
	if (rbd_le16(out->version) != RBD_PROTO_VERSION)
		return RBD_CHECK_BAD_VERSION;
	if (rbd_le16(out->length) != sizeof(*out))
		return RBD_CHECK_BAD_LENGTH;
	if (len < sizeof(*out))
		return RBD_CHECK_SHORT;
	if (out->reserved || out->reserved2)
		return RBD_CHECK_RESERVED;

	qid = rbd_le16(out->qid);
	depth = rbd_le16(out->queue_depth);
	if (qid > RBD_MAX_NR_QUEUES)
		return RBD_CHECK_BAD_QID;
	if (!qid) {
		if (out->session_handle || depth)
			return RBD_CHECK_BAD_FIELD;
	} else {
		if (!out->session_handle)
			return RBD_CHECK_BAD_FIELD;
		if (depth < RBD_MIN_QUEUE_DEPTH || depth > RBD_MAX_QUEUE_DEPTH)
			return RBD_CHECK_BAD_LIMITS;
	}
	return RBD_CHECK_OK;
}

/**
 * rbd_check_cm_rep() - validate accept private data (initiator side)
 * @pdata: private data of the ESTABLISHED event; may be unaligned.
 * @len: private data length reported by rdma_cm.
 * @req: the connect request this initiator sent, in wire format.
 * @out: receives a copy of the reply; valid when %RBD_CHECK_OK is returned.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_cm_rep(const void *pdata, size_t len,
					      const struct rbd_cm_req *req,
					      struct rbd_cm_rep *out)
{
	size_t n = len < sizeof(*out) ? len : sizeof(*out);

	__builtin_memset(out, 0, sizeof(*out));
	if (!pdata || len < 8)
		return RBD_CHECK_SHORT;
	__builtin_memcpy(out, pdata, n);

	if (rbd_le32(out->magic) != RBD_CM_MAGIC)
		return RBD_CHECK_BAD_MAGIC;
	if (out->version != req->version)
		return RBD_CHECK_BAD_VERSION;
	if (rbd_le16(out->length) != sizeof(*out))
		return RBD_CHECK_BAD_LENGTH;
	if (len < sizeof(*out))
		return RBD_CHECK_SHORT;
	if (rbd_le32(out->flags) & ~(__u32)RBD_CM_REP_F_ALL)
		return RBD_CHECK_BAD_FLAGS;
	/* Only a queue 0 that offered a feature may hear of it. */
	if ((rbd_le32(out->flags) & RBD_CM_REP_F_AUTH) &&
	    (req->qid || !(rbd_le64(req->features) & RBD_FEAT_AUTH)))
		return RBD_CHECK_BAD_FLAGS;
	if ((rbd_le32(out->flags) & RBD_CM_REP_F_REINSTATE) &&
	    (req->qid || !(rbd_le64(req->features) & RBD_FEAT_REINSTATE)))
		return RBD_CHECK_BAD_FLAGS;
	if (out->qid != req->qid)
		return RBD_CHECK_BAD_QID;
	if (out->queue_depth != req->queue_depth)
		return RBD_CHECK_BAD_LIMITS;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_cm_rej() - validate reject private data (initiator side)
 * @pdata: result of rdma_consumer_reject_data(); may be NULL or unaligned.
 * @len: its length.
 * @out: receives a copy of the reject; valid when %RBD_CHECK_OK is
 *	returned.
 *
 * The first 16 bytes of &struct rbd_cm_rej keep their layout in every
 * protocol version, so @version is not checked and a longer @length is
 * accepted. Reason codes unknown to this header are accepted as well;
 * rbd_reject_str() has a fallback for them.
 *
 * Return: %RBD_CHECK_OK, or a problem meaning "not an rbd reject".
 */
static inline enum rbd_check rbd_check_cm_rej(const void *pdata, size_t len,
					      struct rbd_cm_rej *out)
{
	size_t n = len < sizeof(*out) ? len : sizeof(*out);

	__builtin_memset(out, 0, sizeof(*out));
	if (!pdata || len < 8)
		return RBD_CHECK_SHORT;
	__builtin_memcpy(out, pdata, n);

	if (rbd_le32(out->magic) != RBD_CM_MAGIC)
		return RBD_CHECK_BAD_MAGIC;
	if (rbd_le16(out->length) < sizeof(*out) ||
	    rbd_le16(out->length) > len)
		return RBD_CHECK_BAD_LENGTH;
	if (rbd_le16(out->reason) == RBD_REJ_NONE ||
	    rbd_le16(out->min_version) > rbd_le16(out->max_version))
		return RBD_CHECK_BAD_FIELD;
	return RBD_CHECK_OK;
}

/* Return 1 for the reasons only an initiator offering RBD_FEAT_AUTH hears. */
static inline int rbd_reject_is_auth(__u16 reason)
{
	return reason == RBD_REJ_AUTH_REQUIRED ||
	       reason == RBD_REJ_AUTH_FAILED;
}

/**
 * rbd_check_login_req() - validate a LOGIN request (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * Checks format, names and protocol ranges. Whether the target, ACL and
 * LUN exist, and that @features matches the queue 0 connect request, is
 * for the caller to check.
 *
 * Return: %RBD_CHECK_OK or the first problem found. Map it to a LOGIN
 * status with rbd_check_reject_reason().
 */
static inline enum rbd_check rbd_check_login_req(const void *buf, size_t len)
{
	const struct rbd_login_req *req = (const struct rbd_login_req *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*req), RBD_OP_LOGIN, 0);
	if (c)
		return c;
	if (req->reserved)
		return RBD_CHECK_RESERVED;
	/* An instance only where reinstatement is offered. */
	if (req->instance &&
	    !(rbd_le64(req->features) & RBD_FEAT_REINSTATE))
		return RBD_CHECK_RESERVED;
	if (!rbd_check_name(req->initiator_name) ||
	    !rbd_check_name(req->target_name))
		return RBD_CHECK_BAD_NAME;
	if (!rbd_check_limit_ranges(rbd_le32(req->max_io_bytes),
				    rbd_le32(req->inline_write_size),
				    rbd_le32(req->imm_read_size),
				    rbd_le32(req->keepalive_ms),
				    rbd_le16(req->queue_depth),
				    rbd_le16(req->nr_queues),
				    rbd_le16(req->max_desc)))
		return RBD_CHECK_BAD_LIMITS;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_login_rsp() - validate a LOGIN response (initiator side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @req: the LOGIN request that was sent, or NULL to skip the comparison of
 *	grants against requests.
 *
 * A well-formed response with a non-zero status returns %RBD_CHECK_OK; the
 * caller then reports rbd_reject_str() of the status.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_login_rsp(const void *buf, size_t len,
		    const struct rbd_login_req *req)
{
	const struct rbd_login_rsp *rsp = (const struct rbd_login_rsp *)buf;
	const size_t body = sizeof(*rsp) - sizeof(rsp->hdr);
	__u16 status;
	__u64 features;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*rsp), RBD_OP_LOGIN_RSP, 0);
	if (c)
		return c;
	if (!rbd_check_zero(rsp->reserved, sizeof(rsp->reserved)))
		return RBD_CHECK_RESERVED;
	status = rbd_le16(rsp->status);
	if (status >= RBD_REJ_NR)
		return RBD_CHECK_BAD_FIELD;
	if (req && rbd_reject_is_auth(status) &&
	    !(rbd_le64(req->features) & RBD_FEAT_AUTH))
		return RBD_CHECK_BAD_FIELD;
	if (status != RBD_REJ_NONE) {
		/* Everything but the status must be zero. */
		struct rbd_login_rsp tmp = *rsp;

		tmp.status = 0;
		if (!rbd_check_zero((const __u8 *)&tmp + sizeof(tmp.hdr),
				    body))
			return RBD_CHECK_BAD_FIELD;
		return RBD_CHECK_OK;
	}
	if (!rsp->session_handle)
		return RBD_CHECK_BAD_FIELD;
	features = rbd_le64(rsp->features);
	if (features & ~RBD_FEAT_ALL)
		return RBD_CHECK_BAD_FEATURES;
	if (!rbd_check_limit_ranges(rbd_le32(rsp->max_io_bytes),
				    rbd_le32(rsp->inline_write_size),
				    rbd_le32(rsp->imm_read_size),
				    rbd_le32(rsp->keepalive_ms),
				    rbd_le16(rsp->queue_depth),
				    rbd_le16(rsp->nr_queues),
				    rbd_le16(rsp->max_desc)))
		return RBD_CHECK_BAD_LIMITS;
	if (!req)
		return RBD_CHECK_OK;
	if (features & ~rbd_le64(req->features))
		return RBD_CHECK_BAD_FEATURES;
	/* Reinstatement is granted for a named session only. */
	if ((features & RBD_FEAT_REINSTATE) && !req->instance)
		return RBD_CHECK_BAD_FEATURES;
	if (rbd_le32(rsp->max_io_bytes) > rbd_le32(req->max_io_bytes) ||
	    rbd_le32(rsp->inline_write_size) >
			rbd_le32(req->inline_write_size) ||
	    rbd_le32(rsp->imm_read_size) > rbd_le32(req->imm_read_size) ||
	    rbd_le16(rsp->queue_depth) > rbd_le16(req->queue_depth) ||
	    rbd_le16(rsp->nr_queues) > rbd_le16(req->nr_queues) ||
	    rbd_le16(rsp->max_desc) > rbd_le16(req->max_desc))
		return RBD_CHECK_BAD_LIMITS;
	return RBD_CHECK_OK;
}

/**
 * struct rbd_allowance - what a target allows one session
 * @features: Feature bits it grants where they are requested.
 * @max_io_bytes: The smaller of the TPG's max_io_size and the device's
 *	largest transfer.
 * @inline_write_size: The TPG's inline_data_size.
 * @imm_read_size: The TPG's imm_read_size.
 * @queue_depth: The TPG's queue_depth.
 * @nr_queues: The TPG's max_queues.
 */
struct rbd_allowance {
	__u64 features;
	__u32 max_io_bytes;
	__u32 inline_write_size;
	__u32 imm_read_size;
	__u32 queue_depth;
	__u32 nr_queues;
};

static inline __u32 rbd_min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

static inline __u32 rbd_max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/**
 * rbd_login_grant() - the grants of a LOGIN response (target side)
 * @rsp: Response whose features and limits are set; its header, status
 *	and session handle are the caller's.
 * @req: LOGIN request that passed rbd_check_login_req().
 * @allow: What the target allows.
 *
 * Each grant is the smaller of what @req asks and @allow allows, kept in
 * the protocol's ranges whatever @allow holds: max_io_bytes rounded down
 * to RBD_IO_BYTES_ALIGN but not below RBD_MIN_IO_BYTES, the inline and
 * immediate sizes not above it, a depth and a queue count not below one.
 * keepalive_ms is granted as asked (the caller has checked it), and
 * RBD_FEAT_REINSTATE only with an instance. The result passes
 * rbd_check_login_rsp() against @req.
 */
static inline void rbd_login_grant(struct rbd_login_rsp *rsp,
				   const struct rbd_login_req *req,
				   const struct rbd_allowance *allow)
{
	__u64 features = rbd_le64(req->features) & allow->features &
			 RBD_FEAT_ALL;
	__u32 max_io, inl, imm, depth, queues;

	max_io = rbd_min_u32(rbd_le32(req->max_io_bytes), allow->max_io_bytes);
	max_io = rbd_max_u32(max_io - max_io % RBD_IO_BYTES_ALIGN,
			     RBD_MIN_IO_BYTES);
	inl = rbd_min_u32(rbd_le32(req->inline_write_size),
			  allow->inline_write_size);
	imm = rbd_min_u32(rbd_le32(req->imm_read_size), allow->imm_read_size);
	depth = rbd_min_u32(rbd_le16(req->queue_depth), allow->queue_depth);
	queues = rbd_min_u32(rbd_le16(req->nr_queues), allow->nr_queues);

	/* Reinstatement is granted for a named session only. */
	if (!req->instance)
		features &= ~(__u64)RBD_FEAT_REINSTATE;
	rsp->features = rbd_cpu_to_le64(features);
	rsp->max_io_bytes = rbd_cpu_to_le32(max_io);
	rsp->inline_write_size = rbd_cpu_to_le32(rbd_min_u32(inl, max_io));
	rsp->imm_read_size = rbd_cpu_to_le32(rbd_min_u32(imm, max_io));
	rsp->keepalive_ms = req->keepalive_ms;
	rsp->queue_depth = rbd_cpu_to_le16(rbd_max_u32(depth,
						       RBD_MIN_QUEUE_DEPTH));
	rsp->nr_queues = rbd_cpu_to_le16(rbd_max_u32(queues,
						     RBD_MIN_NR_QUEUES));
	rsp->max_desc = req->max_desc;
}

/**
 * rbd_check_cmd() - validate a SCSI command capsule (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 *
 * The checks run in a fixed order and the first failure is returned:
 * size, version, opcode, tag (all fatal, see rbd_check_cmd_fatal()), then
 * length, flags, reserved bytes, task attribute, CDB length, descriptor
 * count, data length, direction, the invalidate flag, the direction
 * against the CDB (rbd_cdb_dirs()), and finally the payload: descriptors,
 * inline data or nothing. All arithmetic is done in
 * 64 bits on values bounded beforehand, so no count or length taken from
 * the capsule can overflow or lead outside @buf.
 *
 * Whether the tag's slot is already in use (a reused tag) is session state
 * and is checked by the caller.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_cmd(const void *buf, size_t len, const struct rbd_check_limits *lim)
{
	const struct rbd_cmd *cmd = (const struct rbd_cmd *)buf;
	const struct rbd_desc *desc;
	__u64 payload, sum = 0;
	__u32 data_len;
	__u16 flags, nr_desc;
	unsigned int i;

	if (!buf || len < sizeof(*cmd))
		return RBD_CHECK_SHORT;
	if (cmd->hdr.version != RBD_PROTO_VERSION)
		return RBD_CHECK_BAD_VERSION;
	if (cmd->hdr.opcode != RBD_OP_SCSI_CMD)
		return RBD_CHECK_BAD_OPCODE;
	if (rbd_check_tag(cmd->hdr.tag, lim->qid, lim->queue_depth))
		return RBD_CHECK_BAD_TAG;

	if (rbd_le32(cmd->hdr.length) != len)
		return RBD_CHECK_BAD_LENGTH;
	flags = rbd_le16(cmd->hdr.flags);
	if (flags & ~RBD_CMD_F_ALL)
		return RBD_CHECK_BAD_FLAGS;
	if (!rbd_check_zero(cmd->reserved, sizeof(cmd->reserved)))
		return RBD_CHECK_RESERVED;
	if (cmd->task_attr > RBD_TASK_ACA)
		return RBD_CHECK_BAD_TASK_ATTR;
	if (cmd->cdb_len < RBD_MIN_CDB_LEN || cmd->cdb_len > RBD_MAX_CDB_LEN ||
	    rbd_cdb_implied_len(cmd->cdb) > cmd->cdb_len)
		return RBD_CHECK_CDB_LEN;

	nr_desc = rbd_le16(cmd->nr_desc);
	data_len = rbd_le32(cmd->data_length);
	if (nr_desc > lim->max_desc)
		return RBD_CHECK_TOO_MANY_DESC;
	if (data_len > lim->max_io_bytes)
		return RBD_CHECK_DATA_TOO_LONG;

	switch (cmd->dir) {
	case RBD_DIR_NONE:
		if (data_len || nr_desc)
			return RBD_CHECK_BAD_DIR;
		break;
	case RBD_DIR_WRITE:
	case RBD_DIR_READ:
		if (!data_len)
			return RBD_CHECK_BAD_DIR;
		break;
	default:
		return RBD_CHECK_BAD_DIR;
	}

	if ((flags & RBD_CMD_F_INVALIDATE) &&
	    (!nr_desc || !(lim->features & RBD_FEAT_REMOTE_INV)))
		return RBD_CHECK_BAD_FLAGS;
	if (!(rbd_cdb_dirs(cmd->cdb) & (1U << cmd->dir)))
		return RBD_CHECK_CDB_DIR;

	payload = (__u64)len - sizeof(*cmd);
	if (nr_desc) {
		desc = (const struct rbd_desc *)(cmd + 1);
		if (payload != (__u64)nr_desc * sizeof(*desc))
			return RBD_CHECK_BAD_LENGTH;
		for (i = 0; i < nr_desc; i++) {
			__u64 addr = rbd_le64(desc[i].addr);
			__u32 dlen = rbd_le32(desc[i].len);

			if (!dlen || addr + dlen - 1 < addr)
				return RBD_CHECK_DESC_LEN;
			sum += dlen;
		}
		if (sum != data_len)
			return RBD_CHECK_DESC_LEN;
	} else if (cmd->dir == RBD_DIR_WRITE) {
		if (data_len > lim->inline_write_size || payload < data_len)
			return RBD_CHECK_INLINE_TOO_LONG;
		if (payload != data_len)
			return RBD_CHECK_BAD_LENGTH;
	} else {
		if (cmd->dir == RBD_DIR_READ && data_len > lim->imm_read_size)
			return RBD_CHECK_IMM_TOO_LONG;
		if (payload)
			return RBD_CHECK_BAD_LENGTH;
	}
	return RBD_CHECK_OK;
}

/**
 * rbd_check_rsp() - validate a SCSI response capsule (initiator side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 *
 * Whether the tag belongs to an outstanding command, and whether
 * &rbd_rsp.imm_len fits that command's expected length and direction, is
 * for the caller to check.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_rsp(const void *buf, size_t len, const struct rbd_check_limits *lim)
{
	const struct rbd_rsp *rsp = (const struct rbd_rsp *)buf;
	__u32 imm_len, residual;
	__u16 flags, sense_len, credits;

	if (!buf || len < sizeof(*rsp))
		return RBD_CHECK_SHORT;
	if (rsp->hdr.version != RBD_PROTO_VERSION)
		return RBD_CHECK_BAD_VERSION;
	if (rsp->hdr.opcode != RBD_OP_SCSI_RSP)
		return RBD_CHECK_BAD_OPCODE;
	if (rbd_check_tag(rsp->hdr.tag, lim->qid, lim->queue_depth))
		return RBD_CHECK_BAD_TAG;
	if (rbd_le32(rsp->hdr.length) != len)
		return RBD_CHECK_BAD_LENGTH;

	flags = rbd_le16(rsp->hdr.flags);
	if ((flags & ~RBD_RSP_F_ALL) ||
	    ((flags & RBD_RSP_F_INVALIDATED) &&
	     !(lim->features & RBD_FEAT_REMOTE_INV)))
		return RBD_CHECK_BAD_FLAGS;
	if (!rbd_check_zero(rsp->reserved, sizeof(rsp->reserved)))
		return RBD_CHECK_RESERVED;

	residual = rbd_le32(rsp->residual);
	if ((flags & RBD_RSP_F_UNDERFLOW) && (flags & RBD_RSP_F_OVERFLOW))
		return RBD_CHECK_BAD_RESIDUAL;
	if (residual && !(flags & (RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW)))
		return RBD_CHECK_BAD_RESIDUAL;

	sense_len = rbd_le16(rsp->sense_len);
	imm_len = rbd_le32(rsp->imm_len);
	if (sense_len > RBD_MAX_SENSE_LEN)
		return RBD_CHECK_SENSE_TOO_LONG;
	if (imm_len > lim->imm_read_size)
		return RBD_CHECK_IMM_TOO_LONG;
	if ((__u64)sizeof(*rsp) + imm_len + sense_len != len)
		return RBD_CHECK_BAD_LENGTH;

	credits = rbd_le16(rsp->credits);
	if (!credits || credits > lim->queue_depth ||
	    (credits != lim->queue_depth &&
	     !(lim->features & RBD_FEAT_CREDIT_WINDOW)))
		return RBD_CHECK_BAD_CREDITS;
	return RBD_CHECK_OK;
}

/**
 * rbd_rsp_is_batch() - does a receive on an I/O queue hold a response batch
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 *
 * A receive is a batch when %RBD_FEAT_RSP_BATCH is granted, it is longer
 * than one &struct rbd_rsp and its first response says it is 32 bytes
 * long. Check its framing with rbd_check_rsp_batch(); anything else goes
 * whole to rbd_check_rsp().
 *
 * Return: 1 for a batch, 0 otherwise.
 */
static inline int rbd_rsp_is_batch(const void *buf, size_t len,
				   const struct rbd_check_limits *lim)
{
	const struct rbd_rsp *rsp = (const struct rbd_rsp *)buf;

	return (lim->features & RBD_FEAT_RSP_BATCH) && len > sizeof(*rsp) &&
	       rbd_le32(rsp->hdr.length) == sizeof(*rsp);
}

/**
 * rbd_check_rsp_batch() - validate the framing of a response batch
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 * @n: receives the number of responses when %RBD_CHECK_OK is returned.
 *
 * A batch is a whole number of 32-byte responses, 2 to
 * rbd_rsp_batch_max() of them. Each one must then pass rbd_check_rsp()
 * on its own 32 bytes, which refuses immediate and sense data in it; all
 * must, before any is used.
 *
 * Return: %RBD_CHECK_OK or %RBD_CHECK_BAD_LENGTH.
 */
static inline enum rbd_check
rbd_check_rsp_batch(size_t len, const struct rbd_check_limits *lim, __u32 *n)
{
	size_t size = sizeof(struct rbd_rsp);

	if (len % size || len / size < 2 ||
	    len / size > rbd_rsp_batch_max(lim->imm_read_size))
		return RBD_CHECK_BAD_LENGTH;
	*n = (__u32)(len / size);
	return RBD_CHECK_OK;
}

/**
 * rbd_check_tmf_req() - validate a task management request (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * An undefined function is well formed: the target answers it with
 * %RBD_TMF_RSP_NOT_SUPPORTED.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_tmf_req(const void *buf, size_t len)
{
	const struct rbd_tmf_req *tmf = (const struct rbd_tmf_req *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*tmf), RBD_OP_TMF, 0);
	if (c)
		return c;
	if (!rbd_check_zero(tmf->reserved, sizeof(tmf->reserved)))
		return RBD_CHECK_RESERVED;
	if (tmf->function == RBD_TMF_LUN_RESET && tmf->ref_tag)
		return RBD_CHECK_BAD_FIELD;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_tmf_rsp() - validate a task management response (initiator side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_tmf_rsp(const void *buf, size_t len)
{
	const struct rbd_tmf_rsp *rsp = (const struct rbd_tmf_rsp *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*rsp), RBD_OP_TMF_RSP, 0);
	if (c)
		return c;
	if (!rbd_check_zero(rsp->reserved, sizeof(rsp->reserved)))
		return RBD_CHECK_RESERVED;
	if (rsp->response > RBD_TMF_RSP_REJECTED)
		return RBD_CHECK_BAD_FIELD;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_nop() - validate a NOP request or response (either side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @opcode: %RBD_OP_NOP or %RBD_OP_NOP_RSP.
 * @qid: queue it arrived on.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_nop(const void *buf, size_t len,
					   __u8 opcode, __u32 qid)
{
	return rbd_check_ctrl(buf, len, sizeof(struct rbd_nop), opcode, qid);
}

/**
 * rbd_check_logout() - validate a LOGOUT request or response (either side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @opcode: %RBD_OP_LOGOUT or %RBD_OP_LOGOUT_RSP.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_logout(const void *buf, size_t len,
					      __u8 opcode)
{
	const struct rbd_logout *lo = (const struct rbd_logout *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*lo), opcode, 0);
	if (c)
		return c;
	if (!rbd_check_zero(lo->reserved, sizeof(lo->reserved)))
		return RBD_CHECK_RESERVED;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_discover_req() - validate a DISCOVER request (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_discover_req(const void *buf,
						    size_t len)
{
	const struct rbd_discover_req *req =
		(const struct rbd_discover_req *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*req), RBD_OP_DISCOVER, 0);
	if (c)
		return c;
	if (req->reserved)
		return RBD_CHECK_RESERVED;
	if (!rbd_check_name(req->initiator_name))
		return RBD_CHECK_BAD_NAME;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_discover_rsp() - validate a DISCOVER response (initiator side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @req: the request that was sent, or NULL to skip the comparison of
 *	index, tag and LUN range against it.
 *
 * A well-formed response with a non-zero status returns %RBD_CHECK_OK;
 * the caller then reports rbd_reject_str() of the status.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_discover_rsp(const void *buf, size_t len,
		       const struct rbd_discover_req *req)
{
	const struct rbd_discover_rsp *rsp =
		(const struct rbd_discover_rsp *)buf;
	__u16 nr, status, flags, i;
	__u64 prev = 0, lun;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*rsp), RBD_OP_DISCOVER_RSP, 0);
	if (c)
		return c;
	if (req && rsp->hdr.tag != req->hdr.tag)
		return RBD_CHECK_BAD_TAG;
	status = rbd_le16(rsp->status);
	nr = rbd_le16(rsp->nr_luns);
	flags = rbd_le16(rsp->flags);
	if (status >= RBD_REJ_NR)
		return RBD_CHECK_BAD_FIELD;
	if (status) {
		if (rsp->tpgt || rsp->nr_luns || rsp->flags || rsp->index ||
		    !rbd_check_zero(rsp->target_name,
				    sizeof(rsp->target_name)) ||
		    !rbd_check_zero(rsp->luns, sizeof(rsp->luns)))
			return RBD_CHECK_RESERVED;
		if (status == RBD_REJ_ACL_DENIED && rsp->nr_entries)
			return RBD_CHECK_BAD_FIELD;
		return RBD_CHECK_OK;
	}
	if (flags & ~(__u16)RBD_DISCOVER_MORE_LUNS)
		return RBD_CHECK_BAD_FLAGS;
	if (nr < 1 || nr > RBD_DISCOVER_MAX_LUNS)
		return RBD_CHECK_BAD_FIELD;
	if (rbd_le32(rsp->index) >= rbd_le32(rsp->nr_entries))
		return RBD_CHECK_BAD_FIELD;
	if (req && rsp->index != req->index)
		return RBD_CHECK_BAD_FIELD;
	if (!rbd_check_name(rsp->target_name))
		return RBD_CHECK_BAD_NAME;
	for (i = 0; i < nr; i++) {
		lun = rbd_le64(rsp->luns[i]);
		if ((i && lun <= prev) ||
		    (req && lun < rbd_le64(req->start_lun)))
			return RBD_CHECK_BAD_FIELD;
		prev = lun;
	}
	if (!rbd_check_zero(&rsp->luns[nr],
			    (RBD_DISCOVER_MAX_LUNS - nr) * sizeof(rsp->luns[0])))
		return RBD_CHECK_RESERVED;
	return RBD_CHECK_OK;
}

/* Return 1 when @user is a valid, NUL-terminated, NUL-padded user name. */
static inline int rbd_check_auth_user(const char *user)
{
	const __u8 *b = (const __u8 *)user;
	size_t i;

	if (!b[0])
		return 0;
	for (i = 0; i < RBD_AUTH_USER_LEN && b[i]; i++)
		if (b[i] < 0x21 || b[i] > 0x7e)
			return 0;
	if (i == RBD_AUTH_USER_LEN)
		return 0;
	return rbd_check_zero(b + i, RBD_AUTH_USER_LEN - i);
}

/**
 * rbd_check_auth_begin() - validate an AUTH_BEGIN request (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * Whether authentication was offered, the order of capsules and whether
 * the target knows the names are for the caller to check.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_auth_begin(const void *buf, size_t len)
{
	const struct rbd_auth_begin *req = (const struct rbd_auth_begin *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*req), RBD_OP_AUTH_BEGIN, 0);
	if (c)
		return c;
	if (!rbd_check_zero(req->reserved, sizeof(req->reserved)) ||
	    !rbd_check_zero(req->reserved2, sizeof(req->reserved2)))
		return RBD_CHECK_RESERVED;
	if (req->flags & ~(__u8)RBD_AUTH_F_MUTUAL)
		return RBD_CHECK_BAD_FLAGS;
	if (req->hash != RBD_AUTH_HMAC_SHA256)
		return RBD_CHECK_BAD_FIELD;
	if (rbd_check_zero(req->challenge, sizeof(req->challenge)))
		return RBD_CHECK_BAD_FIELD;
	if (!rbd_check_name(req->initiator_name))
		return RBD_CHECK_BAD_NAME;
	/* All zero: authentication for discovery. */
	if (!rbd_check_zero(req->target_name, sizeof(req->target_name)) &&
	    !rbd_check_name(req->target_name))
		return RBD_CHECK_BAD_NAME;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_auth_proof() - validate an AUTH_PROOF request (target side)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check rbd_check_auth_proof(const void *buf, size_t len)
{
	const struct rbd_auth_proof *req = (const struct rbd_auth_proof *)buf;
	enum rbd_check c;

	c = rbd_check_ctrl(buf, len, sizeof(*req), RBD_OP_AUTH_PROOF, 0);
	if (c)
		return c;
	if (!rbd_check_zero(req->reserved, sizeof(req->reserved)))
		return RBD_CHECK_RESERVED;
	if (!rbd_check_auth_user(req->user))
		return RBD_CHECK_BAD_NAME;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_auth_begin_rsp() - validate an AUTH_BEGIN response (initiator)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @req: the AUTH_BEGIN that was sent, or NULL to skip the comparisons
 *	with it (tag, hash, challenge).
 *
 * A well-formed response with a non-zero status returns %RBD_CHECK_OK.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_auth_begin_rsp(const void *buf, size_t len,
			 const struct rbd_auth_begin *req)
{
	const struct rbd_auth_begin_rsp *rsp =
		(const struct rbd_auth_begin_rsp *)buf;
	enum rbd_check c;
	__u16 status;

	c = rbd_check_ctrl(buf, len, sizeof(*rsp), RBD_OP_AUTH_BEGIN_RSP, 0);
	if (c)
		return c;
	if (req && rsp->hdr.tag != req->hdr.tag)
		return RBD_CHECK_BAD_TAG;
	if (!rbd_check_zero(rsp->reserved, sizeof(rsp->reserved)))
		return RBD_CHECK_RESERVED;
	status = rbd_le16(rsp->status);
	if (status >= RBD_REJ_NR)
		return RBD_CHECK_BAD_FIELD;
	if (status)
		return rsp->hash || !rbd_check_zero(rsp->challenge,
						    sizeof(rsp->challenge)) ?
		       RBD_CHECK_BAD_FIELD : RBD_CHECK_OK;
	if (rsp->hash != RBD_AUTH_HMAC_SHA256 ||
	    rbd_check_zero(rsp->challenge, sizeof(rsp->challenge)))
		return RBD_CHECK_BAD_FIELD;
	if (req && (rsp->hash != req->hash ||
		    !__builtin_memcmp(rsp->challenge, req->challenge,
				      sizeof(rsp->challenge))))
		return RBD_CHECK_BAD_FIELD;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_auth_proof_rsp() - validate an AUTH_PROOF response (initiator)
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @begin: the AUTH_BEGIN sent on this connection, or NULL to skip the
 *	check of %RBD_AUTH_F_MUTUAL against it.
 * @proof: the AUTH_PROOF that was sent, or NULL to skip the tag check.
 *
 * Checks the format only; comparing the target's proof is the caller's
 * job (in constant time).
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_auth_proof_rsp(const void *buf, size_t len,
			 const struct rbd_auth_begin *begin,
			 const struct rbd_auth_proof *proof)
{
	const struct rbd_auth_proof_rsp *rsp =
		(const struct rbd_auth_proof_rsp *)buf;
	enum rbd_check c;
	__u16 status;

	c = rbd_check_ctrl(buf, len, sizeof(*rsp), RBD_OP_AUTH_PROOF_RSP, 0);
	if (c)
		return c;
	if (proof && rsp->hdr.tag != proof->hdr.tag)
		return RBD_CHECK_BAD_TAG;
	if (!rbd_check_zero(rsp->reserved, sizeof(rsp->reserved)))
		return RBD_CHECK_RESERVED;
	if (rsp->flags & ~(__u8)RBD_AUTH_F_MUTUAL)
		return RBD_CHECK_BAD_FLAGS;
	status = rbd_le16(rsp->status);
	if (status >= RBD_REJ_NR)
		return RBD_CHECK_BAD_FIELD;
	if (status || !(rsp->flags & RBD_AUTH_F_MUTUAL)) {
		if (rsp->flags || !rbd_check_zero(rsp->proof,
						  sizeof(rsp->proof)) ||
		    !rbd_check_zero(rsp->user, sizeof(rsp->user)))
			return RBD_CHECK_BAD_FIELD;
	} else if (!rbd_check_auth_user(rsp->user)) {
		return RBD_CHECK_BAD_NAME;
	}
	if (!status && begin &&
	    (rsp->flags & RBD_AUTH_F_MUTUAL) != (begin->flags & RBD_AUTH_F_MUTUAL))
		return RBD_CHECK_BAD_FLAGS;
	return RBD_CHECK_OK;
}

/*
 * Common prefix of the dispatchers: enough bytes for a header and the
 * right version, so that the opcode can be trusted for dispatch.
 */
static inline enum rbd_check rbd_check_hdr(const void *buf, size_t len)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)buf;

	if (!buf || len < sizeof(*hdr))
		return RBD_CHECK_SHORT;
	if (hdr->version != RBD_PROTO_VERSION)
		return RBD_CHECK_BAD_VERSION;
	return RBD_CHECK_OK;
}

/**
 * rbd_check_request() - validate any capsule received by the target
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 *
 * Queue 0 accepts LOGIN, LOGOUT, TMF, NOP, DISCOVER, AUTH_BEGIN and
 * AUTH_PROOF; I/O queues accept
 * SCSI_CMD and NOP. Anything else is %RBD_CHECK_BAD_OPCODE. Ordering rules (LOGIN
 * first and only once) are session state and checked by the caller.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_request(const void *buf, size_t len,
		  const struct rbd_check_limits *lim)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)buf;
	enum rbd_check c;

	c = rbd_check_hdr(buf, len);
	if (c)
		return c;
	switch (hdr->opcode) {
	case RBD_OP_NOP:
		return rbd_check_nop(buf, len, RBD_OP_NOP, lim->qid);
	case RBD_OP_SCSI_CMD:
		if (!lim->qid)
			break;
		return rbd_check_cmd(buf, len, lim);
	case RBD_OP_LOGIN:
		if (lim->qid)
			break;
		return rbd_check_login_req(buf, len);
	case RBD_OP_LOGOUT:
		if (lim->qid)
			break;
		return rbd_check_logout(buf, len, RBD_OP_LOGOUT);
	case RBD_OP_TMF:
		if (lim->qid)
			break;
		return rbd_check_tmf_req(buf, len);
	case RBD_OP_DISCOVER:
		if (lim->qid)
			break;
		return rbd_check_discover_req(buf, len);
	case RBD_OP_AUTH_BEGIN:
		if (lim->qid)
			break;
		return rbd_check_auth_begin(buf, len);
	case RBD_OP_AUTH_PROOF:
		if (lim->qid)
			break;
		return rbd_check_auth_proof(buf, len);
	default:
		break;
	}
	return RBD_CHECK_BAD_OPCODE;
}

/**
 * rbd_check_response() - validate any capsule received by the initiator
 * @buf: received capsule, 8-byte aligned.
 * @len: byte count of the receive completion.
 * @lim: limits of the queue it arrived on.
 * @login: the LOGIN request sent on this session, or NULL; passed on to
 *	rbd_check_login_rsp().
 *
 * Queue 0 carries LOGIN_RSP, LOGOUT_RSP, TMF_RSP, NOP_RSP and the AUTH
 * responses (checked here without their requests); I/O queues carry
 * SCSI_RSP and NOP_RSP.
 *
 * Return: %RBD_CHECK_OK or the first problem found.
 */
static inline enum rbd_check
rbd_check_response(const void *buf, size_t len,
		   const struct rbd_check_limits *lim,
		   const struct rbd_login_req *login)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)buf;
	enum rbd_check c;

	c = rbd_check_hdr(buf, len);
	if (c)
		return c;
	switch (hdr->opcode) {
	case RBD_OP_NOP_RSP:
		return rbd_check_nop(buf, len, RBD_OP_NOP_RSP, lim->qid);
	case RBD_OP_SCSI_RSP:
		if (!lim->qid)
			break;
		return rbd_check_rsp(buf, len, lim);
	case RBD_OP_LOGIN_RSP:
		if (lim->qid)
			break;
		return rbd_check_login_rsp(buf, len, login);
	case RBD_OP_LOGOUT_RSP:
		if (lim->qid)
			break;
		return rbd_check_logout(buf, len, RBD_OP_LOGOUT_RSP);
	case RBD_OP_TMF_RSP:
		if (lim->qid)
			break;
		return rbd_check_tmf_rsp(buf, len);
	case RBD_OP_AUTH_BEGIN_RSP:
		if (lim->qid)
			break;
		return rbd_check_auth_begin_rsp(buf, len, NULL);
	case RBD_OP_AUTH_PROOF_RSP:
		if (lim->qid)
			break;
		return rbd_check_auth_proof_rsp(buf, len, NULL, NULL);
	default:
		break;
	}
	return RBD_CHECK_BAD_OPCODE;
}

#endif /* _UAPI_RBD_PROTO_CHECK_H */
