// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for include/uapi/rbd/rbd_proto_check.h: every outcome of every
 * validator, hostile lengths and counts, and a deterministic fuzz pass.
 *
 * Every validator call goes through a heap copy of exactly the received
 * length, so the AddressSanitizer build reports any read past the bytes a
 * peer actually sent. Connection private data is additionally placed at
 * an odd address, as rdma_cm may hand it over unaligned.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <rbd/rbd_proto_check.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define QID		3
#define SLOT		5
#define DEPTH		128
#define CMD_TAG		rbd_tag(QID, 1, SLOT)
#define CTRL_TAG	rbd_tag(0, 9, 1)

#define le16	rbd_cpu_to_le16
#define le32	rbd_cpu_to_le32
#define le64	rbd_cpu_to_le64

static const struct rbd_check_limits lim_io = {
	.features = RBD_FEAT_ALL,
	.max_io_bytes = 1U << 20,
	.inline_write_size = 16384,
	.imm_read_size = 16384,
	.qid = QID,
	.queue_depth = DEPTH,
	.max_desc = 8,
};

/* Queue 0 before LOGIN: everything zero. */
static const struct rbd_check_limits lim_q0;

/* Big enough for a command with the largest inline payload. */
static union {
	uint64_t align;
	uint8_t b[sizeof(struct rbd_cmd) + RBD_MAX_INLINE_WRITE + 4096];
} scratch;

#define CMD	((struct rbd_cmd *)scratch.b)
#define DESC	((struct rbd_desc *)(CMD + 1))
#define RSP	((struct rbd_rsp *)scratch.b)

/* Heap copy of exactly @len bytes (at least one, so malloc never fails). */
static void *dup_exact(const void *src, size_t len, size_t off)
{
	uint8_t *p = malloc(len + off + 1);

	assert_non_null(p);
	if (len)
		memcpy(p + off, src, len);
	return p;
}

static uint8_t cap_byte(const void *b, size_t i)
{
	return ((const uint8_t *)b)[i];
}

static enum rbd_check chk_cmd(const void *b, size_t len,
			      const struct rbd_check_limits *lim)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_cmd(len ? p : NULL, len, lim);

	/* The dispatcher must agree wherever it reaches rbd_check_cmd(). */
	if (len && lim->qid &&
	    (len < sizeof(struct rbd_hdr) ||
	     (cap_byte(b, 0) == RBD_OP_SCSI_CMD &&
	      cap_byte(b, 1) == RBD_PROTO_VERSION)))
		assert_int_equal(rbd_check_request(p, len, lim), r);
	free(p);
	return r;
}

static enum rbd_check chk_rsp(const void *b, size_t len,
			      const struct rbd_check_limits *lim)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_rsp(p, len, lim);

	if (len && lim->qid &&
	    (len < sizeof(struct rbd_hdr) ||
	     (cap_byte(b, 0) == RBD_OP_SCSI_RSP &&
	      cap_byte(b, 1) == RBD_PROTO_VERSION)))
		assert_int_equal(rbd_check_response(p, len, lim, NULL), r);
	free(p);
	return r;
}

static enum rbd_check chk_req(const void *b, size_t len,
			      const struct rbd_check_limits *lim)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_request(p, len, lim);

	free(p);
	return r;
}

static enum rbd_check chk_resp(const void *b, size_t len,
			       const struct rbd_check_limits *lim,
			       const struct rbd_login_req *login)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_response(p, len, lim, login);

	free(p);
	return r;
}

static enum rbd_check chk_login_rsp(const void *b, size_t len,
				    const struct rbd_login_req *req)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_login_rsp(p, len, req);

	free(p);
	return r;
}

static enum rbd_check chk_cm_req(const void *b, size_t len, size_t off,
				 struct rbd_cm_req *out)
{
	uint8_t *p = dup_exact(b, len, off);
	enum rbd_check r = rbd_check_cm_req(p + off, len, out);

	free(p);
	return r;
}

static enum rbd_check chk_cm_rep(const void *b, size_t len, size_t off,
				 const struct rbd_cm_req *req,
				 struct rbd_cm_rep *out)
{
	uint8_t *p = dup_exact(b, len, off);
	enum rbd_check r = rbd_check_cm_rep(p + off, len, req, out);

	free(p);
	return r;
}

static enum rbd_check chk_cm_rej(const void *b, size_t len, size_t off,
				 struct rbd_cm_rej *out)
{
	uint8_t *p = dup_exact(b, len, off);
	enum rbd_check r = rbd_check_cm_rej(p + off, len, out);

	free(p);
	return r;
}

/*
 * Builders. Each one produces a valid message and returns its length;
 * tests then break exactly one thing.
 */
static size_t build_cmd(uint8_t dir, uint32_t data_len, uint16_t nr_desc,
			int inline_data)
{
	size_t payload = 0;
	uint16_t i;

	memset(&scratch, 0, sizeof(scratch));
	CMD->hdr.opcode = RBD_OP_SCSI_CMD;
	CMD->hdr.version = RBD_PROTO_VERSION;
	CMD->hdr.tag = le64(CMD_TAG);
	CMD->lun = le64(1);
	CMD->data_length = le32(data_len);
	CMD->nr_desc = le16(nr_desc);
	CMD->dir = dir;
	CMD->task_attr = RBD_TASK_SIMPLE;
	if (dir == RBD_DIR_NONE) {
		CMD->cdb[0] = 0x00;		/* TEST UNIT READY */
		CMD->cdb_len = 6;
	} else {
		CMD->cdb[0] = dir == RBD_DIR_READ ? 0x28 : 0x2a;
		CMD->cdb_len = 10;
	}

	if (nr_desc) {
		uint32_t each = data_len / nr_desc;

		for (i = 0; i < nr_desc; i++) {
			uint32_t len = each;

			if (i == nr_desc - 1)
				len = data_len - each * (nr_desc - 1);
			DESC[i].addr = le64(0x7f0000000000ULL + 0x100000ULL * i);
			DESC[i].rkey = le32(0x1000 + i);
			DESC[i].len = le32(len);
		}
		payload = (size_t)nr_desc * sizeof(struct rbd_desc);
	} else if (inline_data) {
		memset(CMD + 1, 0xa5, data_len);
		payload = data_len;
	}
	CMD->hdr.length = le32(sizeof(struct rbd_cmd) + payload);
	return sizeof(struct rbd_cmd) + payload;
}

static void set_cmd_len(size_t len)
{
	CMD->hdr.length = le32((uint32_t)len);
}

static size_t build_rsp(uint8_t status, uint32_t imm_len, uint16_t sense_len)
{
	uint8_t *p = scratch.b + sizeof(struct rbd_rsp);
	size_t len = sizeof(struct rbd_rsp) + imm_len + sense_len;

	memset(&scratch, 0, sizeof(scratch));
	RSP->hdr.opcode = RBD_OP_SCSI_RSP;
	RSP->hdr.version = RBD_PROTO_VERSION;
	RSP->hdr.tag = le64(CMD_TAG);
	RSP->hdr.length = le32((uint32_t)len);
	RSP->status = status;
	RSP->imm_len = le32(imm_len);
	RSP->sense_len = le16(sense_len);
	RSP->credits = le16(DEPTH);
	memset(p, 0x5a, imm_len);
	if (sense_len) {
		p[imm_len] = 0x70;
		memset(p + imm_len + 1, 0, sense_len - 1);
	}
	return len;
}

static void set_name(char *field, const char *name)
{
	memset(field, 0, RBD_NAME_LEN);
	memcpy(field, name, strlen(name));
}

static size_t build_login_req(struct rbd_login_req *r)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_LOGIN;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = le64(CTRL_TAG);
	/* An offer may include bits the target does not know. */
	r->features = le64(RBD_FEAT_ALL | (1ULL << 40));
	r->lun = le64(0);
	r->max_io_bytes = le32(RBD_DEFAULT_MAX_IO_BYTES);
	r->inline_write_size = le32(RBD_DEFAULT_INLINE_WRITE);
	r->imm_read_size = le32(RBD_DEFAULT_IMM_READ);
	r->keepalive_ms = le32(RBD_DEFAULT_KEEPALIVE_MS);
	r->queue_depth = le16(RBD_DEFAULT_QUEUE_DEPTH);
	r->nr_queues = le16(RBD_DEFAULT_NR_QUEUES);
	r->max_desc = le16(RBD_DEFAULT_MAX_DESC);
	set_name(r->initiator_name, "iqn.2024-01.org.example:host-1");
	set_name(r->target_name, "iqn.2003-01.org.linux-iscsi.t1:sn.1234");
	return sizeof(*r);
}

static size_t build_login_rsp(struct rbd_login_rsp *r)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_LOGIN_RSP;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = le64(CTRL_TAG);
	r->features = le64(RBD_FEAT_REMOTE_INV);
	r->session_handle = le64(0x1122334455667788ULL);
	r->max_io_bytes = le32(RBD_DEFAULT_MAX_IO_BYTES);
	r->inline_write_size = le32(RBD_DEFAULT_INLINE_WRITE);
	r->imm_read_size = le32(0);
	r->keepalive_ms = le32(10000);
	r->queue_depth = le16(64);
	r->nr_queues = le16(4);
	r->max_desc = le16(RBD_DEFAULT_MAX_DESC);
	r->status = le16(RBD_REJ_NONE);
	return sizeof(*r);
}

static size_t build_tmf_req(struct rbd_tmf_req *t, uint8_t function)
{
	memset(t, 0, sizeof(*t));
	t->hdr.opcode = RBD_OP_TMF;
	t->hdr.version = RBD_PROTO_VERSION;
	t->hdr.length = le32(sizeof(*t));
	t->hdr.tag = le64(CTRL_TAG);
	t->lun = le64(1);
	t->function = function;
	if (function == RBD_TMF_ABORT_TASK)
		t->ref_tag = le64(CMD_TAG);
	return sizeof(*t);
}

static size_t build_tmf_rsp(struct rbd_tmf_rsp *t, uint8_t response)
{
	memset(t, 0, sizeof(*t));
	t->hdr.opcode = RBD_OP_TMF_RSP;
	t->hdr.version = RBD_PROTO_VERSION;
	t->hdr.length = le32(sizeof(*t));
	t->hdr.tag = le64(CTRL_TAG);
	t->response = response;
	return sizeof(*t);
}

static size_t build_nop(struct rbd_nop *n, uint8_t opcode, uint16_t qid)
{
	memset(n, 0, sizeof(*n));
	n->hdr.opcode = opcode;
	n->hdr.version = RBD_PROTO_VERSION;
	n->hdr.length = le32(sizeof(*n));
	n->hdr.tag = le64(rbd_tag(qid, 0, RBD_CTRL_SLOTS - 1));
	n->cookie = le64(0xdeadbeefcafef00dULL);
	return sizeof(*n);
}

static size_t build_logout(struct rbd_logout *l, uint8_t opcode)
{
	memset(l, 0, sizeof(*l));
	l->hdr.opcode = opcode;
	l->hdr.version = RBD_PROTO_VERSION;
	l->hdr.length = le32(sizeof(*l));
	l->hdr.tag = le64(CTRL_TAG);
	return sizeof(*l);
}

static void build_cm_req(struct rbd_cm_req *r, uint16_t qid)
{
	memset(r, 0, sizeof(*r));
	r->magic = le32(RBD_CM_MAGIC);
	r->version = le16(RBD_PROTO_VERSION);
	r->length = le16(sizeof(*r));
	r->qid = le16(qid);
	r->features = le64(RBD_FEAT_ALL);
	if (qid) {
		r->queue_depth = le16(DEPTH);
		r->session_handle = le64(0x1122334455667788ULL);
	}
}

static void build_cm_rep(struct rbd_cm_rep *r, const struct rbd_cm_req *req)
{
	memset(r, 0, sizeof(*r));
	r->magic = le32(RBD_CM_MAGIC);
	r->version = req->version;
	r->length = le16(sizeof(*r));
	r->qid = req->qid;
	r->queue_depth = req->queue_depth;
}

static void build_cm_rej(struct rbd_cm_rej *r, uint16_t reason)
{
	memset(r, 0, sizeof(*r));
	r->magic = le32(RBD_CM_MAGIC);
	r->version = le16(RBD_PROTO_VERSION);
	r->length = le16(sizeof(*r));
	r->reason = le16(reason);
	r->min_version = le16(RBD_PROTO_VERSION_MIN);
	r->max_version = le16(RBD_PROTO_VERSION_MAX);
}

/* ------------------------------------------------------------------ */
/* SCSI command capsule                                               */
/* ------------------------------------------------------------------ */

static void test_cmd_ok(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	assert_int_equal(len, 72);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	len = build_cmd(RBD_DIR_READ, 65536, 1, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	len = build_cmd(RBD_DIR_WRITE, 1U << 20, 8, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Inline write exactly at the limit. */
	len = build_cmd(RBD_DIR_WRITE, 16384, 0, 1);
	assert_int_equal(len, 72 + 16384);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Immediate read exactly at the limit: no descriptors. */
	len = build_cmd(RBD_DIR_READ, 16384, 0, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Remote invalidation with one descriptor. */
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Every task attribute. */
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->task_attr = RBD_TASK_ACA;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
	CMD->task_attr = RBD_TASK_HEAD;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
	CMD->task_attr = RBD_TASK_ORDERED;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Highest slot of the queue, any generation. */
	CMD->hdr.tag = le64(rbd_tag(QID, 0xffff, DEPTH - 1));
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
}

static void test_cmd_cdb_sizes_ok(void **state)
{
	size_t len;

	(void)state;
	/* READ(16) in a 16-byte CDB. */
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->cdb[0] = 0x88;
	CMD->cdb_len = 16;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* A 32-byte variable-length CDB (e.g. READ(32)). */
	CMD->cdb[0] = 0x7f;
	CMD->cdb[7] = 0x18;
	CMD->cdb_len = 32;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* cdb_len may exceed the implied length. */
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->cdb_len = 32;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
}

static void test_cmd_short(void **state)
{
	size_t len, i;

	(void)state;
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	assert_int_equal(rbd_check_cmd(NULL, 0, &lim_io), RBD_CHECK_SHORT);
	assert_int_equal(rbd_check_cmd(NULL, 4096, &lim_io), RBD_CHECK_SHORT);
	for (i = 0; i < len; i++) {
		assert_int_equal(chk_cmd(scratch.b, i, &lim_io), RBD_CHECK_SHORT);
		assert_true(rbd_check_cmd_fatal(RBD_CHECK_SHORT));
	}
}

static void test_cmd_version_opcode(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->hdr.version = 2;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_VERSION);
	CMD->hdr.version = 0;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_VERSION);
	assert_true(rbd_check_cmd_fatal(RBD_CHECK_BAD_VERSION));

	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->hdr.opcode = RBD_OP_SCSI_RSP;
	assert_int_equal(rbd_check_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_OPCODE);
	CMD->hdr.opcode = 0x42;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	assert_true(rbd_check_cmd_fatal(RBD_CHECK_BAD_OPCODE));

	/* SCSI commands are not accepted on queue 0. */
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->hdr.tag = le64(rbd_tag(0, 0, 0));
	assert_int_equal(chk_req(scratch.b, len, &lim_q0), RBD_CHECK_BAD_OPCODE);
}

static void test_cmd_bad_tag(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->hdr.tag = le64(rbd_tag(QID + 1, 1, SLOT));
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);
	CMD->hdr.tag = le64(rbd_tag(QID, 1, DEPTH));
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);
	CMD->hdr.tag = le64(~0ULL);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);
	assert_true(rbd_check_cmd_fatal(RBD_CHECK_BAD_TAG));

	/* The tag is checked before the length: a bad tag stays fatal. */
	set_cmd_len(0xffffffff);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);
}

static void test_cmd_bad_length(void **state)
{
	size_t len;

	(void)state;
	/* hdr.length disagrees with the completion's byte count. */
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	set_cmd_len(len + 1);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);
	set_cmd_len(0xffffffff);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);
	set_cmd_len(0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_BAD_LENGTH));

	/* Trailing bytes after a command without data. */
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	set_cmd_len(len + 8);
	assert_int_equal(chk_cmd(scratch.b, len + 8, &lim_io),
			 RBD_CHECK_BAD_LENGTH);

	/* Descriptor count and payload size disagree. */
	len = build_cmd(RBD_DIR_READ, 8192, 2, 0);
	set_cmd_len(len - 16);
	assert_int_equal(chk_cmd(scratch.b, len - 16, &lim_io),
			 RBD_CHECK_BAD_LENGTH);
	set_cmd_len(len + 16);
	assert_int_equal(chk_cmd(scratch.b, len + 16, &lim_io),
			 RBD_CHECK_BAD_LENGTH);
	set_cmd_len(len + 1);
	assert_int_equal(chk_cmd(scratch.b, len + 1, &lim_io),
			 RBD_CHECK_BAD_LENGTH);

	/* More inline bytes than the data length. */
	len = build_cmd(RBD_DIR_WRITE, 512, 0, 1);
	set_cmd_len(len + 8);
	assert_int_equal(chk_cmd(scratch.b, len + 8, &lim_io),
			 RBD_CHECK_BAD_LENGTH);

	/* An immediate read carries no payload. */
	len = build_cmd(RBD_DIR_READ, 512, 0, 0);
	set_cmd_len(len + 8);
	assert_int_equal(chk_cmd(scratch.b, len + 8, &lim_io),
			 RBD_CHECK_BAD_LENGTH);
}

static void test_cmd_flags_reserved(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len;
	unsigned int bit;

	(void)state;
	for (bit = 1; bit < 16; bit++) {
		len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
		CMD->hdr.flags = le16((uint16_t)(1U << bit));
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 RBD_CHECK_BAD_FLAGS);
	}

	/* INVALIDATE needs a descriptor... */
	len = build_cmd(RBD_DIR_READ, 4096, 0, 0);
	CMD->hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_FLAGS);
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_FLAGS);

	/* ...and the negotiated feature. */
	lim.features = RBD_FEAT_CREDIT_WINDOW;
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	assert_int_equal(chk_cmd(scratch.b, len, &lim), RBD_CHECK_BAD_FLAGS);

	for (bit = 0; bit < sizeof(CMD->reserved); bit++) {
		len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
		CMD->reserved[bit] = 0x80;
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 RBD_CHECK_RESERVED);
	}
}

static void test_cmd_task_attr(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->task_attr = 4;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_TASK_ATTR);
	CMD->task_attr = 0xff;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_TASK_ATTR);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_BAD_TASK_ATTR));
}

static void test_cmd_cdb_len(void **state)
{
	static const uint8_t bad[] = { 0, 1, 5, 33, 64, 255 };
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(bad); i++) {
		len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
		CMD->cdb_len = bad[i];
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 RBD_CHECK_CDB_LEN);
	}

	/* READ(16) claimed in 10 bytes. */
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->cdb[0] = 0x88;
	CMD->cdb_len = 10;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_LEN);

	/* READ(10) claimed in 6 bytes. */
	CMD->cdb[0] = 0x28;
	CMD->cdb_len = 6;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_LEN);

	/* Variable-length CDBs beyond the 32-byte field. */
	CMD->cdb[0] = 0x7f;
	CMD->cdb[7] = 25;
	CMD->cdb_len = 32;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_LEN);
	CMD->cdb[7] = 0xff;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_LEN);
	/* ... and longer than cdb_len. */
	CMD->cdb[7] = 0x18;
	CMD->cdb_len = 16;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_LEN);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_CDB_LEN));
}

static void test_cmd_too_many_desc(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_READ, 9 * 4096, 9, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_TOO_MANY_DESC);

	/* A hostile count with only one descriptor's worth of bytes. */
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->nr_desc = le16(0xffff);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_TOO_MANY_DESC);

	/*
	 * Even with a limit that allows it, the count must never make the
	 * validator read past the received bytes.
	 */
	lim.max_desc = 0xffff;
	assert_int_equal(chk_cmd(scratch.b, len, &lim), RBD_CHECK_BAD_LENGTH);

	/* With descriptors disabled entirely. */
	lim.max_desc = 0;
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim),
			 RBD_CHECK_TOO_MANY_DESC);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_TOO_MANY_DESC));
}

static void test_cmd_data_too_long(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_READ, (1U << 20) + 512, 1, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_DATA_TOO_LONG);

	len = build_cmd(RBD_DIR_WRITE, 4096, 1, 0);
	CMD->data_length = le32(0xffffffff);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_DATA_TOO_LONG);

	/* Huge inline claim with no data behind it. */
	len = build_cmd(RBD_DIR_WRITE, 16, 0, 1);
	CMD->data_length = le32(0xfffffff0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_DATA_TOO_LONG);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_DATA_TOO_LONG));
}

static void test_cmd_bad_dir(void **state)
{
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->dir = RBD_DIR_BIDI;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);
	CMD->dir = 4;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);
	CMD->dir = 0xff;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);

	/* No direction but data or descriptors. */
	CMD->dir = RBD_DIR_NONE;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);
	len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
	CMD->data_length = le32(512);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);

	/* A direction but no data. */
	len = build_cmd(RBD_DIR_READ, 0, 0, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);
	len = build_cmd(RBD_DIR_WRITE, 0, 0, 1);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_BAD_DIR);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_BAD_DIR));
}

/* Set the CDB of the capsule in scratch to @op (10-byte form). */
static void set_cdb(uint8_t op, uint8_t byte1)
{
	memset(CMD->cdb, 0, sizeof(CMD->cdb));
	CMD->cdb[0] = op;
	CMD->cdb[1] = byte1;
	CMD->cdb_len = 16;
}

/* The direction must be one the operation code allows. */
static void test_cmd_cdb_dir(void **state)
{
	static const struct {
		uint8_t op, byte1;
		uint8_t ok_none, ok_read, ok_write;
	} t[] = {
		{ 0x28, 0, 1, 1, 0 },	/* READ(10) */
		{ 0x88, 0, 1, 1, 0 },	/* READ(16) */
		{ 0x12, 0, 1, 1, 0 },	/* INQUIRY */
		{ 0xa3, 0, 1, 1, 0 },	/* MAINTENANCE IN */
		{ 0x2a, 0, 0, 0, 1 },	/* WRITE(10) */
		{ 0x93, 0, 0, 0, 1 },	/* WRITE SAME(16) */
		{ 0x93, 8, 0, 0, 1 },	/* WRITE SAME(16) with UNMAP */
		{ 0x89, 0, 0, 0, 1 },	/* COMPARE AND WRITE */
		{ 0x42, 0, 1, 0, 1 },	/* UNMAP */
		{ 0xa4, 0, 1, 0, 1 },	/* MAINTENANCE OUT */
		{ 0x5f, 0, 1, 0, 1 },	/* PERSISTENT RESERVE OUT */
		{ 0x00, 0, 1, 0, 0 },	/* TEST UNIT READY */
		{ 0x35, 0, 1, 0, 0 },	/* SYNCHRONIZE CACHE(10) */
		{ 0x2f, 0, 1, 0, 0 },	/* VERIFY(10) without BYTCHK */
		{ 0x2f, 2, 0, 0, 1 },	/* VERIFY(10) with BYTCHK */
		{ 0x53, 0, 0, 0, 0 },	/* XDWRITEREAD(10) */
		{ 0xc0, 0, 1, 1, 1 },	/* vendor specific */
	};
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		len = build_cmd(RBD_DIR_NONE, 0, 0, 0);
		set_cdb(t[i].op, t[i].byte1);
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 t[i].ok_none ? RBD_CHECK_OK : RBD_CHECK_CDB_DIR);
		len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
		set_cdb(t[i].op, t[i].byte1);
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 t[i].ok_read ? RBD_CHECK_OK : RBD_CHECK_CDB_DIR);
		len = build_cmd(RBD_DIR_WRITE, 4096, 0, 1);
		set_cdb(t[i].op, t[i].byte1);
		assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
				 t[i].ok_write ? RBD_CHECK_OK : RBD_CHECK_CDB_DIR);
	}

	/* Variable-length CDBs by service action: READ(32), WRITE(32). */
	len = build_cmd(RBD_DIR_WRITE, 4096, 1, 0);
	set_cdb(0x7f, 0);
	CMD->cdb[7] = 24;
	CMD->cdb_len = 32;
	CMD->cdb[9] = 0x09;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_CDB_DIR);
	CMD->cdb[9] = 0x0b;
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_CDB_DIR));
}

static void test_cmd_desc_len(void **state)
{
	size_t len;

	(void)state;
	/* Descriptors shorter than the data length. */
	len = build_cmd(RBD_DIR_READ, 8192, 2, 0);
	DESC[1].len = le32(4095);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);

	/* Longer. */
	DESC[1].len = le32(4097);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);

	/* An empty descriptor. */
	DESC[0].len = le32(0);
	DESC[1].len = le32(8192);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);

	/* Lengths whose 32-bit sum wraps to the data length. */
	len = build_cmd(RBD_DIR_READ, 4096, 2, 0);
	DESC[0].len = le32(0x80000000);
	DESC[1].len = le32(0x80001000);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);
	DESC[0].len = le32(0xffffffff);
	DESC[1].len = le32(0xffffffff);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);

	/* A descriptor that wraps the address space. */
	len = build_cmd(RBD_DIR_WRITE, 4096, 1, 0);
	DESC[0].addr = le64(0xfffffffffffff001ULL);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_DESC_LEN);
	/* Ending exactly at the top is fine. */
	DESC[0].addr = le64(0xfffffffffffff000ULL);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io), RBD_CHECK_OK);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_DESC_LEN));
}

static void test_cmd_inline(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len;

	(void)state;
	/* More inline data than negotiated, all of it present. */
	len = build_cmd(RBD_DIR_WRITE, 16384 + 512, 0, 1);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_INLINE_TOO_LONG);

	/* Claims 4096 inline bytes, only 100 received. */
	len = build_cmd(RBD_DIR_WRITE, 4096, 0, 1);
	set_cmd_len(72 + 100);
	assert_int_equal(chk_cmd(scratch.b, 72 + 100, &lim_io),
			 RBD_CHECK_INLINE_TOO_LONG);
	/* ... or none at all. */
	set_cmd_len(72);
	assert_int_equal(chk_cmd(scratch.b, 72, &lim_io),
			 RBD_CHECK_INLINE_TOO_LONG);

	/* Inline writes disabled. */
	lim.inline_write_size = 0;
	len = build_cmd(RBD_DIR_WRITE, 512, 0, 1);
	assert_int_equal(chk_cmd(scratch.b, len, &lim),
			 RBD_CHECK_INLINE_TOO_LONG);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_INLINE_TOO_LONG));
}

static void test_cmd_imm_read(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len;

	(void)state;
	len = build_cmd(RBD_DIR_READ, 16384 + 512, 0, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim_io),
			 RBD_CHECK_IMM_TOO_LONG);
	lim.imm_read_size = 0;
	len = build_cmd(RBD_DIR_READ, 512, 0, 0);
	assert_int_equal(chk_cmd(scratch.b, len, &lim), RBD_CHECK_IMM_TOO_LONG);
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_IMM_TOO_LONG));
	assert_false(rbd_check_cmd_fatal(RBD_CHECK_OK));
}

/* Exactly the outcomes found before the tag is trusted are fatal. */
static void test_cmd_fatal_map(void **state)
{
	unsigned int c;

	(void)state;
	for (c = 0; c <= RBD_CHECK_NR; c++) {
		int fatal = c == RBD_CHECK_SHORT || c == RBD_CHECK_BAD_VERSION ||
			    c == RBD_CHECK_BAD_OPCODE || c == RBD_CHECK_BAD_TAG;

		assert_int_equal(rbd_check_cmd_fatal((enum rbd_check)c), fatal);
	}
}

/* ------------------------------------------------------------------ */
/* SCSI response capsule                                              */
/* ------------------------------------------------------------------ */

static void test_rsp_ok(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len;

	(void)state;
	len = build_rsp(0x00, 0, 0);
	assert_int_equal(len, 32);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* CHECK CONDITION with 18 bytes of fixed-format sense. */
	len = build_rsp(0x02, 0, 18);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Immediate data at the limit plus maximal sense. */
	len = build_rsp(0x02, 16384, RBD_MAX_SENSE_LEN);
	assert_int_equal(len, rbd_rsp_capsule_max(16384));
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* Residuals and remote invalidation. */
	len = build_rsp(0x00, 512, 0);
	RSP->hdr.flags = le16(RBD_RSP_F_UNDERFLOW | RBD_RSP_F_INVALIDATED);
	RSP->residual = le32(3584);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);
	RSP->hdr.flags = le16(RBD_RSP_F_OVERFLOW);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* A lowered window with the credit window feature. */
	len = build_rsp(0x00, 0, 0);
	RSP->credits = le16(1);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_OK);

	/* SCSI statuses are not interpreted. */
	lim.features = 0;
	len = build_rsp(0x40, 0, 0);
	assert_int_equal(chk_rsp(scratch.b, len, &lim), RBD_CHECK_OK);
}

static void test_rsp_errors(void **state)
{
	struct rbd_check_limits lim = lim_io;
	size_t len, i;

	(void)state;
	len = build_rsp(0x02, 0, 18);
	for (i = 0; i < sizeof(struct rbd_rsp); i++)
		assert_int_equal(chk_rsp(scratch.b, i, &lim_io),
				 RBD_CHECK_SHORT);
	/* Truncated sense. */
	assert_int_equal(chk_rsp(scratch.b, len - 1, &lim_io),
			 RBD_CHECK_BAD_LENGTH);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.version = 7;
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_VERSION);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.opcode = RBD_OP_TMF_RSP;
	assert_int_equal(rbd_check_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_OPCODE);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.tag = le64(rbd_tag(QID - 1, 1, SLOT));
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);
	RSP->hdr.tag = le64(rbd_tag(QID, 1, 0x80000000));
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_TAG);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.length = le32(0xffffffff);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);

	/* imm_len and sense_len disagree with the received length. */
	len = build_rsp(0x00, 512, 0);
	RSP->imm_len = le32(256);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);
	len = build_rsp(0x02, 0, 18);
	RSP->sense_len = le16(96);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.flags = le16(0x8000);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_FLAGS);
	lim.features = 0;
	RSP->hdr.flags = le16(RBD_RSP_F_INVALIDATED);
	assert_int_equal(chk_rsp(scratch.b, len, &lim), RBD_CHECK_BAD_FLAGS);

	len = build_rsp(0x00, 0, 0);
	RSP->reserved[2] = 1;
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_RESERVED);

	len = build_rsp(0x00, 0, 0);
	RSP->hdr.flags = le16(RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW);
	RSP->residual = le32(1);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_RESIDUAL);
	RSP->hdr.flags = 0;
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_RESIDUAL);

	len = build_rsp(0x02, 0, 97);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_SENSE_TOO_LONG);
	len = build_rsp(0x02, 0, 18);
	RSP->sense_len = le16(0xffff);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_SENSE_TOO_LONG);

	len = build_rsp(0x00, 16384 + 8, 0);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_IMM_TOO_LONG);
	len = build_rsp(0x00, 0, 0);
	RSP->imm_len = le32(0xffffffff);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_IMM_TOO_LONG);

	len = build_rsp(0x00, 0, 0);
	RSP->credits = 0;
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_CREDITS);
	RSP->credits = le16(DEPTH + 1);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io),
			 RBD_CHECK_BAD_CREDITS);
	/* Without RBD_FEAT_CREDIT_WINDOW the window is the queue depth. */
	lim.features = RBD_FEAT_REMOTE_INV;
	RSP->credits = le16(DEPTH - 1);
	assert_int_equal(chk_rsp(scratch.b, len, &lim), RBD_CHECK_BAD_CREDITS);
	RSP->credits = le16(DEPTH);
	assert_int_equal(chk_rsp(scratch.b, len, &lim), RBD_CHECK_OK);
}

/* ------------------------------------------------------------------ */
/* Connection private data                                            */
/* ------------------------------------------------------------------ */

static void test_cm_req_ok(void **state)
{
	uint8_t ib[RBD_CM_REQ_PDATA_IB];
	struct rbd_cm_req req, out;
	size_t off;

	(void)state;
	for (off = 0; off < 8; off++) {
		build_cm_req(&req, 0);
		assert_int_equal(chk_cm_req(&req, sizeof(req), off, &out),
				 RBD_CHECK_OK);
		assert_memory_equal(&out, &req, sizeof(req));
		build_cm_req(&req, RBD_MAX_NR_QUEUES);
		assert_int_equal(chk_cm_req(&req, sizeof(req), off, &out),
				 RBD_CHECK_OK);
		assert_int_equal(rbd_le16(out.qid), RBD_MAX_NR_QUEUES);
	}

	/* IB/RoCE: the passive side sees 56 bytes, padded by the CM. */
	memset(ib, 0xee, sizeof(ib));
	build_cm_req(&req, 1);
	memcpy(ib, &req, sizeof(req));
	assert_int_equal(chk_cm_req(ib, sizeof(ib), 4, &out), RBD_CHECK_OK);
	assert_int_equal(rbd_le64(out.session_handle), 0x1122334455667788ULL);

	/* Unknown feature bits are not an error in the request. */
	build_cm_req(&req, 0);
	req.features = le64(~0ULL);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out), RBD_CHECK_OK);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_OK), RBD_REJ_NONE);
}

static void test_cm_req_errors(void **state)
{
	struct rbd_cm_req req, out;
	size_t i;

	(void)state;
	assert_int_equal(rbd_check_cm_req(NULL, 56, &out), RBD_CHECK_SHORT);
	build_cm_req(&req, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(chk_cm_req(&req, i, 1, &out), RBD_CHECK_SHORT);
	for (i = 8; i < sizeof(req); i++)
		assert_int_equal(chk_cm_req(&req, i, 1, &out), RBD_CHECK_SHORT);

	req.magic = le32(0x50444253);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_MAGIC);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_MAGIC),
			 RBD_REJ_BAD_REQUEST);

	/* The version is checked before the length. */
	build_cm_req(&req, 0);
	req.version = le16(2);
	req.length = le16(48);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_VERSION);
	assert_int_equal(rbd_le16(out.version), 2);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_VERSION),
			 RBD_REJ_VERSION);
	req.version = 0;
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_VERSION);

	build_cm_req(&req, 0);
	req.length = le16(56);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_LENGTH);
	req.length = 0;
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_LENGTH);

	build_cm_req(&req, 2);
	req.reserved = le32(1);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_RESERVED);
	build_cm_req(&req, 2);
	req.reserved2 = le64(1ULL << 63);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_RESERVED);

	build_cm_req(&req, RBD_MAX_NR_QUEUES + 1);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_QID);
	build_cm_req(&req, 0xffff);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_QID);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_QID),
			 RBD_REJ_INVALID_QID);

	build_cm_req(&req, 0);
	req.session_handle = le64(5);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_FIELD);
	build_cm_req(&req, 0);
	req.queue_depth = le16(32);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_FIELD);
	build_cm_req(&req, 1);
	req.session_handle = 0;
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_FIELD);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_FIELD),
			 RBD_REJ_BAD_REQUEST);

	build_cm_req(&req, 1);
	req.queue_depth = 0;
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_LIMITS);
	req.queue_depth = le16(RBD_MAX_QUEUE_DEPTH + 1);
	assert_int_equal(chk_cm_req(&req, sizeof(req), 1, &out),
			 RBD_CHECK_BAD_LIMITS);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_LIMITS),
			 RBD_REJ_LIMITS);
}

static void test_cm_rep(void **state)
{
	struct rbd_cm_req req;
	struct rbd_cm_rep rep, out;
	uint8_t ib[RBD_CM_REP_PDATA_IB];
	size_t i;

	(void)state;
	build_cm_req(&req, 7);
	build_cm_rep(&rep, &req);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 3, &req, &out),
			 RBD_CHECK_OK);
	assert_int_equal(rbd_le16(out.queue_depth), DEPTH);

	memset(ib, 0, sizeof(ib));
	memcpy(ib, &rep, sizeof(rep));
	assert_int_equal(chk_cm_rep(ib, sizeof(ib), 1, &req, &out),
			 RBD_CHECK_OK);

	assert_int_equal(rbd_check_cm_rep(NULL, 0, &req, &out),
			 RBD_CHECK_SHORT);
	for (i = 0; i < sizeof(rep); i++)
		assert_int_equal(chk_cm_rep(&rep, i, 1, &req, &out),
				 RBD_CHECK_SHORT);

	rep.magic = 0;
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_MAGIC);
	build_cm_rep(&rep, &req);
	rep.version = le16(2);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_VERSION);
	build_cm_rep(&rep, &req);
	rep.length = le16(40);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_LENGTH);
	build_cm_rep(&rep, &req);
	rep.flags = le32(0x100);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_FLAGS);
	build_cm_rep(&rep, &req);
	rep.flags = le32(RBD_CM_REP_F_AUTH);	/* not queue 0 */
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_FLAGS);
	build_cm_rep(&rep, &req);
	rep.qid = le16(8);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_QID);
	build_cm_rep(&rep, &req);
	rep.queue_depth = le16(DEPTH / 2);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 1, &req, &out),
			 RBD_CHECK_BAD_LIMITS);
}

static void test_cm_rej(void **state)
{
	struct rbd_cm_rej rej, out;
	uint8_t ib[RBD_CM_REJ_PDATA_IB];
	uint16_t reason;
	size_t i;

	(void)state;
	for (reason = 1; reason < RBD_REJ_NR; reason++) {
		build_cm_rej(&rej, reason);
		assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 5, &out),
				 RBD_CHECK_OK);
		assert_int_equal(rbd_le16(out.reason), reason);
	}

	/* IB delivers 148 bytes; a later version may append fields. */
	memset(ib, 0, sizeof(ib));
	build_cm_rej(&rej, RBD_REJ_VERSION);
	rej.length = le16(24);
	memcpy(ib, &rej, sizeof(rej));
	assert_int_equal(chk_cm_rej(ib, sizeof(ib), 1, &out), RBD_CHECK_OK);

	/* A reason from a newer target is still a valid reject. */
	build_cm_rej(&rej, 200);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out), RBD_CHECK_OK);
	assert_string_equal(rbd_reject_str(rbd_le16(out.reason)),
			    rbd_reject_str(0xffff));

	assert_int_equal(rbd_check_cm_rej(NULL, 0, &out), RBD_CHECK_SHORT);
	for (i = 0; i < 8; i++)
		assert_int_equal(chk_cm_rej(&rej, i, 1, &out), RBD_CHECK_SHORT);
	build_cm_rej(&rej, RBD_REJ_ACL_DENIED);
	assert_int_equal(chk_cm_rej(&rej, 12, 1, &out), RBD_CHECK_BAD_LENGTH);
	rej.length = le16(8);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out),
			 RBD_CHECK_BAD_LENGTH);
	rej.length = le16(0xffff);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out),
			 RBD_CHECK_BAD_LENGTH);
	build_cm_rej(&rej, RBD_REJ_ACL_DENIED);
	rej.magic = le32(0x12345678);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out),
			 RBD_CHECK_BAD_MAGIC);
	build_cm_rej(&rej, RBD_REJ_NONE);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out),
			 RBD_CHECK_BAD_FIELD);
	build_cm_rej(&rej, RBD_REJ_VERSION);
	rej.min_version = le16(3);
	rej.max_version = le16(2);
	assert_int_equal(chk_cm_rej(&rej, sizeof(rej), 1, &out),
			 RBD_CHECK_BAD_FIELD);
}

/* ------------------------------------------------------------------ */
/* LOGIN                                                              */
/* ------------------------------------------------------------------ */

static void test_login_req_ok(void **state)
{
	struct rbd_login_req req;
	size_t len;

	(void)state;
	len = build_login_req(&req);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	assert_int_equal(rbd_check_login_req(&req, len), RBD_CHECK_OK);

	/* Names of exactly 223 characters. */
	memset(req.initiator_name, 'i', RBD_NAME_LEN - 1);
	memset(req.target_name, 't', RBD_NAME_LEN - 1);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);

	/* Limits at both ends of the protocol ranges. */
	req.max_io_bytes = le32(RBD_MIN_IO_BYTES);
	req.inline_write_size = 0;
	req.imm_read_size = 0;
	req.keepalive_ms = 0;
	req.queue_depth = le16(RBD_MIN_QUEUE_DEPTH);
	req.nr_queues = le16(RBD_MIN_NR_QUEUES);
	req.max_desc = le16(RBD_MIN_DESC);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	req.max_io_bytes = le32(RBD_MAX_IO_BYTES);
	req.inline_write_size = le32(RBD_MAX_INLINE_WRITE);
	req.imm_read_size = le32(RBD_MAX_IMM_READ);
	req.keepalive_ms = le32(RBD_MAX_KEEPALIVE_MS);
	req.queue_depth = le16(RBD_MAX_QUEUE_DEPTH);
	req.nr_queues = le16(RBD_MAX_NR_QUEUES);
	req.max_desc = le16(RBD_MAX_DESC);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	req.keepalive_ms = le32(RBD_MIN_KEEPALIVE_MS);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
}

enum login_mutation {
	M_VERSION, M_OPCODE, M_TAG_QID, M_TAG_SLOT, M_LENGTH, M_FLAGS,
	M_RSVD, M_RSVD2, M_INAME_EMPTY, M_TNAME_EMPTY, M_INAME_UNTERM,
	M_TNAME_UNTERM, M_INAME_CTRL, M_INAME_SPACE, M_TNAME_HIGH,
	M_TNAME_DEL, M_INAME_TAIL, M_TNAME_TAIL, M_IO_SMALL, M_IO_ZERO,
	M_IO_BIG, M_IO_ALIGN, M_IO_HUGE, M_INLINE, M_IMM, M_KA_LOW,
	M_KA_HIGH, M_QD_ZERO, M_QD_BIG, M_NRQ_ZERO, M_NRQ_BIG, M_DESC_ZERO,
	M_DESC_BIG,
};

static void login_mutate(struct rbd_login_req *r, enum login_mutation m)
{
	switch (m) {
	case M_VERSION:
		r->hdr.version = 2;
		break;
	case M_OPCODE:
		r->hdr.opcode = RBD_OP_LOGIN_RSP;
		break;
	case M_TAG_QID:
		r->hdr.tag = le64(rbd_tag(1, 0, 0));
		break;
	case M_TAG_SLOT:
		r->hdr.tag = le64(rbd_tag(0, 0, RBD_CTRL_SLOTS));
		break;
	case M_LENGTH:
		r->hdr.length = le32(513);
		break;
	case M_FLAGS:
		r->hdr.flags = le16(1);
		break;
	case M_RSVD:
		r->reserved = le16(1);
		break;
	case M_RSVD2:
		/* An instance without the offer of reinstatement. */
		r->features = le64(RBD_FEAT_ALL & ~RBD_FEAT_REINSTATE);
		r->instance = le64(1ULL << 56);
		break;
	case M_INAME_EMPTY:
		memset(r->initiator_name, 0, RBD_NAME_LEN);
		break;
	case M_TNAME_EMPTY:
		memset(r->target_name, 0, RBD_NAME_LEN);
		break;
	case M_INAME_UNTERM:
		memset(r->initiator_name, 'a', RBD_NAME_LEN);
		break;
	case M_TNAME_UNTERM:
		memset(r->target_name, 'a', RBD_NAME_LEN);
		break;
	case M_INAME_CTRL:
		r->initiator_name[3] = '\n';
		break;
	case M_INAME_SPACE:
		r->initiator_name[3] = ' ';
		break;
	case M_TNAME_HIGH:
		r->target_name[0] = (char)0x80;
		break;
	case M_TNAME_DEL:
		r->target_name[5] = 0x7f;
		break;
	case M_INAME_TAIL:
		/* garbage after the terminating NUL */
		r->initiator_name[RBD_NAME_LEN - 1] = 'x';
		break;
	case M_TNAME_TAIL:
		r->target_name[200] = 'x';
		break;
	case M_IO_SMALL:
		r->max_io_bytes = le32(RBD_MIN_IO_BYTES - 1);
		break;
	case M_IO_ZERO:
		r->max_io_bytes = 0;
		break;
	case M_IO_BIG:
		r->max_io_bytes = le32(RBD_MAX_IO_BYTES + 4096);
		break;
	case M_IO_ALIGN:
		r->max_io_bytes = le32(65536 + 512);
		break;
	case M_IO_HUGE:
		r->max_io_bytes = le32(0xfffff000);
		break;
	case M_INLINE:
		r->inline_write_size = le32(RBD_MAX_INLINE_WRITE + 1);
		break;
	case M_IMM:
		r->imm_read_size = le32(0xffffffff);
		break;
	case M_KA_LOW:
		r->keepalive_ms = le32(RBD_MIN_KEEPALIVE_MS - 1);
		break;
	case M_KA_HIGH:
		r->keepalive_ms = le32(RBD_MAX_KEEPALIVE_MS + 1);
		break;
	case M_QD_ZERO:
		r->queue_depth = 0;
		break;
	case M_QD_BIG:
		r->queue_depth = le16(RBD_MAX_QUEUE_DEPTH + 1);
		break;
	case M_NRQ_ZERO:
		r->nr_queues = 0;
		break;
	case M_NRQ_BIG:
		r->nr_queues = le16(RBD_MAX_NR_QUEUES + 1);
		break;
	case M_DESC_ZERO:
		r->max_desc = 0;
		break;
	case M_DESC_BIG:
		r->max_desc = le16(0xffff);
		break;
	}
}

static void test_login_req_errors(void **state)
{
	static const struct {
		enum login_mutation m;
		enum rbd_check expect;
	} cases[] = {
		{ M_VERSION, RBD_CHECK_BAD_VERSION },
		{ M_OPCODE, RBD_CHECK_BAD_OPCODE },
		{ M_TAG_QID, RBD_CHECK_BAD_TAG },
		{ M_TAG_SLOT, RBD_CHECK_BAD_TAG },
		{ M_LENGTH, RBD_CHECK_BAD_LENGTH },
		{ M_FLAGS, RBD_CHECK_BAD_FLAGS },
		{ M_RSVD, RBD_CHECK_RESERVED },
		{ M_RSVD2, RBD_CHECK_RESERVED },
		{ M_INAME_EMPTY, RBD_CHECK_BAD_NAME },
		{ M_TNAME_EMPTY, RBD_CHECK_BAD_NAME },
		{ M_INAME_UNTERM, RBD_CHECK_BAD_NAME },
		{ M_TNAME_UNTERM, RBD_CHECK_BAD_NAME },
		{ M_INAME_CTRL, RBD_CHECK_BAD_NAME },
		{ M_INAME_SPACE, RBD_CHECK_BAD_NAME },
		{ M_TNAME_HIGH, RBD_CHECK_BAD_NAME },
		{ M_TNAME_DEL, RBD_CHECK_BAD_NAME },
		{ M_INAME_TAIL, RBD_CHECK_BAD_NAME },
		{ M_TNAME_TAIL, RBD_CHECK_BAD_NAME },
		{ M_IO_SMALL, RBD_CHECK_BAD_LIMITS },
		{ M_IO_ZERO, RBD_CHECK_BAD_LIMITS },
		{ M_IO_BIG, RBD_CHECK_BAD_LIMITS },
		{ M_IO_ALIGN, RBD_CHECK_BAD_LIMITS },
		{ M_IO_HUGE, RBD_CHECK_BAD_LIMITS },
		{ M_INLINE, RBD_CHECK_BAD_LIMITS },
		{ M_IMM, RBD_CHECK_BAD_LIMITS },
		{ M_KA_LOW, RBD_CHECK_BAD_LIMITS },
		{ M_KA_HIGH, RBD_CHECK_BAD_LIMITS },
		{ M_QD_ZERO, RBD_CHECK_BAD_LIMITS },
		{ M_QD_BIG, RBD_CHECK_BAD_LIMITS },
		{ M_NRQ_ZERO, RBD_CHECK_BAD_LIMITS },
		{ M_NRQ_BIG, RBD_CHECK_BAD_LIMITS },
		{ M_DESC_ZERO, RBD_CHECK_BAD_LIMITS },
		{ M_DESC_BIG, RBD_CHECK_BAD_LIMITS },
	};
	static union {
		uint64_t align;
		uint8_t b[sizeof(struct rbd_login_req) + 8];
	} big;
	struct rbd_login_req req;
	size_t len, i;

	(void)state;
	len = build_login_req(&req);
	assert_int_equal(rbd_check_login_req(NULL, len), RBD_CHECK_SHORT);
	for (i = 0; i < len; i++)
		assert_int_equal(chk_req(&req, i, &lim_q0), RBD_CHECK_SHORT);

	/* Longer than a LOGIN request, with a matching header length. */
	memset(&big, 0, sizeof(big));
	memcpy(big.b, &req, sizeof(req));
	((struct rbd_login_req *)big.b)->hdr.length = le32(sizeof(big.b));
	assert_int_equal(chk_req(big.b, sizeof(big.b), &lim_q0),
			 RBD_CHECK_BAD_LENGTH);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		build_login_req(&req);
		login_mutate(&req, cases[i].m);
		assert_int_equal(rbd_check_login_req(&req, len),
				 cases[i].expect);
		assert_int_equal(chk_req(&req, len, &lim_q0), cases[i].expect);
	}

	/* What the target puts into the LOGIN response status. */
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_VERSION),
			 RBD_REJ_VERSION);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_LIMITS),
			 RBD_REJ_LIMITS);
	assert_int_equal(rbd_check_reject_reason(RBD_CHECK_BAD_NAME),
			 RBD_REJ_BAD_REQUEST);
}

static void test_login_rsp(void **state)
{
	struct rbd_login_req req;
	struct rbd_login_rsp rsp;
	struct rbd_check_limits lim;
	size_t len;

	(void)state;
	build_login_req(&req);
	len = build_login_rsp(&rsp);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_OK);
	assert_int_equal(chk_login_rsp(&rsp, len, NULL), RBD_CHECK_OK);
	assert_int_equal(chk_resp(&rsp, len, &lim_q0, &req), RBD_CHECK_OK);

	rbd_check_limits_init(&lim, &rsp, 2, 64);
	assert_int_equal(lim.features, RBD_FEAT_REMOTE_INV);
	assert_int_equal(lim.max_io_bytes, RBD_DEFAULT_MAX_IO_BYTES);
	assert_int_equal(lim.inline_write_size, RBD_DEFAULT_INLINE_WRITE);
	assert_int_equal(lim.imm_read_size, 0);
	assert_int_equal(lim.qid, 2);
	assert_int_equal(lim.queue_depth, 64);
	assert_int_equal(lim.max_desc, RBD_DEFAULT_MAX_DESC);

	/* A failed login: status set, everything else zero. */
	memset((uint8_t *)&rsp + sizeof(rsp.hdr), 0,
	       sizeof(rsp) - sizeof(rsp.hdr));
	rsp.status = le16(RBD_REJ_ACL_DENIED);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_OK);
	rsp.queue_depth = le16(1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_FIELD);
	rsp.queue_depth = 0;
	rsp.status = le16(RBD_REJ_NR);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_FIELD);

	build_login_rsp(&rsp);
	rsp.session_handle = 0;
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_FIELD);

	build_login_rsp(&rsp);
	rsp.reserved[0] = 1;
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_RESERVED);

	build_login_rsp(&rsp);
	rsp.hdr.tag = le64(rbd_tag(0, 0, RBD_CTRL_SLOTS));
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_TAG);
	assert_int_equal(chk_login_rsp(&rsp, len - 1, &req), RBD_CHECK_SHORT);

	/* Grants must be known, offered and not above the request. */
	build_login_rsp(&rsp);
	rsp.features = le64(1ULL << 40);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_FEATURES);
	req.features = le64(RBD_FEAT_CREDIT_WINDOW);
	build_login_rsp(&rsp);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_FEATURES);
	assert_int_equal(chk_login_rsp(&rsp, len, NULL), RBD_CHECK_OK);

	build_login_req(&req);
	build_login_rsp(&rsp);
	rsp.max_io_bytes = le32(RBD_DEFAULT_MAX_IO_BYTES * 2);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.inline_write_size = le32(RBD_DEFAULT_INLINE_WRITE + 1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.imm_read_size = le32(RBD_DEFAULT_IMM_READ + 1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.queue_depth = le16(RBD_DEFAULT_QUEUE_DEPTH + 1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.nr_queues = le16(RBD_DEFAULT_NR_QUEUES + 1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.max_desc = le16(RBD_DEFAULT_MAX_DESC + 1);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_BAD_LIMITS);
	/* Keep-alive is the target's choice. */
	build_login_rsp(&rsp);
	rsp.keepalive_ms = le32(RBD_MAX_KEEPALIVE_MS);
	assert_int_equal(chk_login_rsp(&rsp, len, &req), RBD_CHECK_OK);
	/* Out of the protocol range even without a request to compare. */
	build_login_rsp(&rsp);
	rsp.queue_depth = 0;
	assert_int_equal(chk_login_rsp(&rsp, len, NULL), RBD_CHECK_BAD_LIMITS);
	build_login_rsp(&rsp);
	rsp.keepalive_ms = le32(1);
	assert_int_equal(chk_login_rsp(&rsp, len, NULL), RBD_CHECK_BAD_LIMITS);
}

/* ------------------------------------------------------------------ */
/* TMF, NOP, LOGOUT and the dispatchers                               */
/* ------------------------------------------------------------------ */

static void test_tmf(void **state)
{
	struct rbd_tmf_req req;
	struct rbd_tmf_rsp rsp;
	size_t len;
	unsigned int v;

	(void)state;
	len = build_tmf_req(&req, RBD_TMF_ABORT_TASK);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	len = build_tmf_req(&req, RBD_TMF_LUN_RESET);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	/* Unknown functions are answered NOT SUPPORTED, not rejected. */
	len = build_tmf_req(&req, 0x42);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);

	len = build_tmf_req(&req, RBD_TMF_LUN_RESET);
	req.ref_tag = le64(CMD_TAG);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_BAD_FIELD);
	len = build_tmf_req(&req, RBD_TMF_ABORT_TASK);
	req.reserved[6] = 2;
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_RESERVED);
	len = build_tmf_req(&req, RBD_TMF_ABORT_TASK);
	assert_int_equal(chk_req(&req, len - 8, &lim_q0), RBD_CHECK_SHORT);
	req.hdr.length = le32(48);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_BAD_LENGTH);
	/* TMFs travel on queue 0 only. */
	len = build_tmf_req(&req, RBD_TMF_ABORT_TASK);
	req.hdr.tag = le64(rbd_tag(QID, 0, 0));
	assert_int_equal(chk_req(&req, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	assert_int_equal(rbd_check_tmf_req(&req, len), RBD_CHECK_BAD_TAG);

	for (v = RBD_TMF_RSP_COMPLETE; v <= RBD_TMF_RSP_REJECTED; v++) {
		len = build_tmf_rsp(&rsp, (uint8_t)v);
		assert_int_equal(chk_resp(&rsp, len, &lim_q0, NULL),
				 RBD_CHECK_OK);
	}
	len = build_tmf_rsp(&rsp, RBD_TMF_RSP_REJECTED + 1);
	assert_int_equal(chk_resp(&rsp, len, &lim_q0, NULL),
			 RBD_CHECK_BAD_FIELD);
	len = build_tmf_rsp(&rsp, RBD_TMF_RSP_COMPLETE);
	rsp.reserved[0] = 1;
	assert_int_equal(chk_resp(&rsp, len, &lim_q0, NULL),
			 RBD_CHECK_RESERVED);
	len = build_tmf_rsp(&rsp, RBD_TMF_RSP_COMPLETE);
	rsp.hdr.flags = le16(RBD_RSP_F_UNDERFLOW);
	assert_int_equal(chk_resp(&rsp, len, &lim_q0, NULL),
			 RBD_CHECK_BAD_FLAGS);
}

static void test_nop_logout(void **state)
{
	struct rbd_nop nop;
	struct rbd_logout lo;
	size_t len;

	(void)state;
	len = build_nop(&nop, RBD_OP_NOP, 0);
	assert_int_equal(chk_req(&nop, len, &lim_q0), RBD_CHECK_OK);
	len = build_nop(&nop, RBD_OP_NOP, QID);
	assert_int_equal(chk_req(&nop, len, &lim_io), RBD_CHECK_OK);
	assert_int_equal(chk_req(&nop, len, &lim_q0), RBD_CHECK_BAD_TAG);
	len = build_nop(&nop, RBD_OP_NOP_RSP, QID);
	assert_int_equal(chk_resp(&nop, len, &lim_io, NULL), RBD_CHECK_OK);
	nop.hdr.tag = le64(rbd_tag(QID, 0, RBD_CTRL_SLOTS));
	assert_int_equal(chk_resp(&nop, len, &lim_io, NULL), RBD_CHECK_BAD_TAG);
	len = build_nop(&nop, RBD_OP_NOP, QID);
	nop.hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	assert_int_equal(chk_req(&nop, len, &lim_io), RBD_CHECK_BAD_FLAGS);
	len = build_nop(&nop, RBD_OP_NOP, QID);
	assert_int_equal(chk_req(&nop, len - 1, &lim_io), RBD_CHECK_SHORT);

	len = build_logout(&lo, RBD_OP_LOGOUT);
	assert_int_equal(chk_req(&lo, len, &lim_q0), RBD_CHECK_OK);
	assert_int_equal(chk_req(&lo, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	len = build_logout(&lo, RBD_OP_LOGOUT_RSP);
	assert_int_equal(chk_resp(&lo, len, &lim_q0, NULL), RBD_CHECK_OK);
	lo.reserved[3] = 9;
	assert_int_equal(chk_resp(&lo, len, &lim_q0, NULL), RBD_CHECK_RESERVED);
	len = build_logout(&lo, RBD_OP_LOGOUT);
	lo.hdr.version = 0;
	assert_int_equal(chk_req(&lo, len, &lim_q0), RBD_CHECK_BAD_VERSION);
}

static size_t build_discover_req(struct rbd_discover_req *r)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_DISCOVER;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = le64(CTRL_TAG);
	r->start_lun = le64(2);
	strcpy(r->initiator_name, "iqn.2026-12.org.example:host1");
	return sizeof(*r);
}

static size_t build_discover_rsp(struct rbd_discover_rsp *r,
				 const struct rbd_discover_req *req)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_DISCOVER_RSP;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = req->hdr.tag;
	r->tpgt = le16(1);
	r->nr_luns = le16(3);
	r->index = req->index;
	r->nr_entries = le32(2);
	strcpy(r->target_name, "iqn.2026-12.org.example:disk1");
	r->luns[0] = le64(2);
	r->luns[1] = le64(5);
	r->luns[2] = le64(1ULL << 40);
	return sizeof(*r);
}

static void test_discover(void **state)
{
	struct rbd_discover_req req, q;
	struct rbd_discover_rsp rsp;
	size_t len, rlen;
	uint16_t i;

	(void)state;
	len = build_discover_req(&req);
	assert_int_equal(chk_req(&req, len, &lim_q0), RBD_CHECK_OK);
	assert_int_equal(chk_req(&req, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	assert_int_equal(chk_req(&req, len - 8, &lim_q0), RBD_CHECK_SHORT);
	q = req;
	q.reserved = le32(1);
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_RESERVED);
	q = req;
	q.initiator_name[0] = 0;
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_BAD_NAME);
	q = req;
	q.initiator_name[RBD_NAME_LEN - 1] = 'x';
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_BAD_NAME);
	q = req;
	q.hdr.length = le32(sizeof(q) + 8);
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_BAD_LENGTH);
	q = req;
	q.hdr.tag = le64(rbd_tag(0, 0, RBD_CTRL_SLOTS));
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_BAD_TAG);
	q = req;
	q.hdr.flags = le16(1);
	assert_int_equal(chk_req(&q, len, &lim_q0), RBD_CHECK_BAD_FLAGS);

	rlen = build_discover_rsp(&rsp, &req);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req), RBD_CHECK_OK);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, NULL), RBD_CHECK_OK);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen - 1, &req),
			 RBD_CHECK_SHORT);
	rsp.flags = le16(RBD_DISCOVER_MORE_LUNS);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req), RBD_CHECK_OK);
	rsp.flags = le16(2);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FLAGS);
	/* LUNs: ascending, at or above start_lun, the rest zero. */
	build_discover_rsp(&rsp, &req);
	rsp.luns[1] = le64(2);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	build_discover_rsp(&rsp, &req);
	rsp.luns[0] = le64(1);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, NULL), RBD_CHECK_OK);
	build_discover_rsp(&rsp, &req);
	rsp.luns[3] = le64(9);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_RESERVED);
	build_discover_rsp(&rsp, &req);
	rsp.nr_luns = 0;
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	rsp.nr_luns = le16(RBD_DISCOVER_MAX_LUNS + 1);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	/* A full response. */
	rsp.nr_luns = le16(RBD_DISCOVER_MAX_LUNS);
	for (i = 0; i < RBD_DISCOVER_MAX_LUNS; i++)
		rsp.luns[i] = le64(2 + 3 * i);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req), RBD_CHECK_OK);
	/* Index, tag, name. */
	build_discover_rsp(&rsp, &req);
	rsp.index = le32(2);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, NULL),
			 RBD_CHECK_BAD_FIELD);
	build_discover_rsp(&rsp, &req);
	rsp.index = le32(1);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, NULL), RBD_CHECK_OK);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	build_discover_rsp(&rsp, &req);
	rsp.hdr.tag = le64(rbd_tag(0, 1, 0));
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_TAG);
	build_discover_rsp(&rsp, &req);
	rsp.target_name[3] = ' ';
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_NAME);
	build_discover_rsp(&rsp, &req);
	rsp.hdr.opcode = RBD_OP_LOGIN_RSP;
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_OPCODE);

	/* Failures: the status and nr_entries only. */
	memset(&rsp, 0, sizeof(rsp));
	rsp.hdr.opcode = RBD_OP_DISCOVER_RSP;
	rsp.hdr.version = RBD_PROTO_VERSION;
	rsp.hdr.length = le32(sizeof(rsp));
	rsp.hdr.tag = req.hdr.tag;
	rsp.status = le16(RBD_REJ_ACL_DENIED);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req), RBD_CHECK_OK);
	rsp.nr_entries = le32(1);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	rsp.status = le16(RBD_REJ_BAD_REQUEST);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req), RBD_CHECK_OK);
	rsp.luns[31] = le64(1);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_RESERVED);
	rsp.luns[31] = 0;
	rsp.target_name[0] = 'x';
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_RESERVED);
	rsp.target_name[0] = 0;
	rsp.status = le16(RBD_REJ_NR);
	assert_int_equal(rbd_check_discover_rsp(&rsp, rlen, &req),
			 RBD_CHECK_BAD_FIELD);
	assert_string_equal(rbd_opcode_str(RBD_OP_DISCOVER), "DISCOVER");
	assert_string_equal(rbd_opcode_str(RBD_OP_DISCOVER_RSP), "DISCOVER_RSP");
}

static void test_rsp_batch(void **state)
{
	struct rbd_check_limits nob = lim_io, small = lim_io;
	uint8_t batch[(RBD_RSP_BATCH_MAX + 1) * sizeof(struct rbd_rsp)];
	size_t len = sizeof(struct rbd_rsp), i;
	uint32_t n = 0;

	(void)state;
	for (i = 0; i <= RBD_RSP_BATCH_MAX; i++) {
		build_rsp(0, 0, 0);
		RSP->hdr.tag = le64(rbd_tag(QID, 1, i));
		memcpy(batch + i * len, scratch.b, len);
	}
	nob.features &= ~RBD_FEAT_RSP_BATCH;
	assert_int_equal(rbd_rsp_is_batch(batch, 2 * len, &lim_io), 1);
	assert_int_equal(rbd_rsp_is_batch(batch, len, &lim_io), 0);
	assert_int_equal(rbd_rsp_is_batch(batch, 2 * len, &nob), 0);
	assert_int_equal(rbd_check_rsp_batch(2 * len, &lim_io, &n),
			 RBD_CHECK_OK);
	assert_int_equal(n, 2);
	assert_int_equal(rbd_check_rsp_batch(2 * len + 8, &lim_io, &n),
			 RBD_CHECK_BAD_LENGTH);
	assert_int_equal(rbd_check_rsp_batch(RBD_RSP_BATCH_MAX * len, &lim_io,
					     &n), RBD_CHECK_OK);
	assert_int_equal(rbd_check_rsp_batch((RBD_RSP_BATCH_MAX + 1) * len,
					     &lim_io, &n),
			 RBD_CHECK_BAD_LENGTH);
	/* Without immediate reads a receive buffer holds fewer. */
	small.imm_read_size = 0;
	assert_int_equal(rbd_check_rsp_batch(rbd_rsp_batch_max(0) * len,
					     &small, &n), RBD_CHECK_OK);
	assert_int_equal(rbd_check_rsp_batch((rbd_rsp_batch_max(0) + 1) * len,
					     &small, &n),
			 RBD_CHECK_BAD_LENGTH);
	/* A response with data in a batch fails its own check. */
	build_rsp(0, 0, 0);
	RSP->sense_len = le16(18);
	assert_int_equal(chk_rsp(scratch.b, len, &lim_io), RBD_CHECK_BAD_LENGTH);
}

static void test_dispatch(void **state)
{
	static const uint8_t bad_req[] = {
		0x00, 0x09, 0x7f, 0x80, RBD_OP_SCSI_RSP, RBD_OP_LOGIN_RSP,
		RBD_OP_DISCOVER_RSP, 0xff,
	};
	/* The kernel initiator never sends DISCOVER: no DISCOVER_RSP either. */
	static const uint8_t bad_rsp[] = {
		0x00, RBD_OP_SCSI_CMD, RBD_OP_LOGIN, RBD_OP_NOP, 0x86, 0xff,
	};
	struct rbd_nop nop;
	struct rbd_login_rsp lrsp;
	size_t len, i;

	(void)state;
	len = build_nop(&nop, RBD_OP_NOP, 0);
	for (i = 0; i < sizeof(bad_req); i++) {
		nop.hdr.opcode = bad_req[i];
		assert_int_equal(chk_req(&nop, len, &lim_q0),
				 RBD_CHECK_BAD_OPCODE);
		assert_int_equal(chk_req(&nop, len, &lim_io),
				 RBD_CHECK_BAD_OPCODE);
	}
	for (i = 0; i < sizeof(bad_rsp); i++) {
		nop.hdr.opcode = bad_rsp[i];
		assert_int_equal(chk_resp(&nop, len, &lim_q0, NULL),
				 RBD_CHECK_BAD_OPCODE);
		assert_int_equal(chk_resp(&nop, len, &lim_io, NULL),
				 RBD_CHECK_BAD_OPCODE);
	}

	/* A header's worth is needed before anything else is looked at. */
	for (i = 0; i < sizeof(struct rbd_hdr); i++) {
		assert_int_equal(chk_req(&nop, i, &lim_io), RBD_CHECK_SHORT);
		assert_int_equal(chk_resp(&nop, i, &lim_io, NULL),
				 RBD_CHECK_SHORT);
	}
	assert_int_equal(rbd_check_request(NULL, 64, &lim_io), RBD_CHECK_SHORT);
	assert_int_equal(rbd_check_response(NULL, 64, &lim_io, NULL),
			 RBD_CHECK_SHORT);

	/* Responses that belong to the other kind of queue. */
	len = build_login_rsp(&lrsp);
	lrsp.hdr.tag = le64(rbd_tag(QID, 0, 0));
	assert_int_equal(chk_resp(&lrsp, len, &lim_io, NULL),
			 RBD_CHECK_BAD_OPCODE);
	len = build_rsp(0, 0, 0);
	RSP->hdr.tag = le64(rbd_tag(0, 0, 0));
	assert_int_equal(chk_resp(scratch.b, len, &lim_q0, NULL),
			 RBD_CHECK_BAD_OPCODE);
}

/* ------------------------------------------------------------------ */
/* Hostile input: truncation, byte mutation and random bytes          */
/* ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* One of @lo, @hi or a random value between them. */
static uint32_t pick(uint32_t lo, uint32_t hi)
{
	switch (rng() % 4) {
	case 0:
		return lo;
	case 1:
		return hi;
	default:
		return lo + (uint32_t)(rng() % ((uint64_t)hi - lo + 1));
	}
}

/* A valid LOGIN with random limits and features. */
static void random_login_req(struct rbd_login_req *req)
{
	build_login_req(req);
	req->features = le64(rng() & (RBD_FEAT_ALL | (1ULL << 40)));
	req->instance = rbd_le64(req->features) & RBD_FEAT_REINSTATE ?
			le64(rng() % 2 ? rng() : 0) : 0;
	req->max_io_bytes = le32(pick(RBD_MIN_IO_BYTES / RBD_IO_BYTES_ALIGN,
				      RBD_MAX_IO_BYTES / RBD_IO_BYTES_ALIGN) *
				 RBD_IO_BYTES_ALIGN);
	req->inline_write_size = le32(pick(0, RBD_MAX_INLINE_WRITE));
	req->imm_read_size = le32(pick(0, RBD_MAX_IMM_READ));
	req->queue_depth = le16(pick(RBD_MIN_QUEUE_DEPTH, RBD_MAX_QUEUE_DEPTH));
	req->nr_queues = le16(pick(RBD_MIN_NR_QUEUES, RBD_MAX_NR_QUEUES));
	req->max_desc = le16(pick(RBD_MIN_DESC, RBD_MAX_DESC));
}

/*
 * rbd_login_grant() against the initiator's rbd_check_login_rsp(): for
 * random valid requests and any allowance (zero, unaligned, huge), the
 * grant passes the check against its request, grants no feature not
 * allowed, and exceeds no allowance that is itself in the protocol's
 * range.
 */
static void test_login_grant(void **state)
{
	struct rbd_login_req req;
	struct rbd_login_rsp rsp;
	struct rbd_allowance a;
	unsigned int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		random_login_req(&req);
		assert_int_equal(rbd_check_login_req(&req, sizeof(req)),
				 RBD_CHECK_OK);
		a.features = rng();
		a.max_io_bytes = pick(0, UINT32_MAX);
		a.inline_write_size = pick(0, UINT32_MAX);
		a.imm_read_size = pick(0, UINT32_MAX);
		a.queue_depth = pick(0, UINT32_MAX);
		a.nr_queues = pick(0, UINT32_MAX);
		rbd_hdr_fill(&rsp, RBD_OP_LOGIN_RSP, sizeof(rsp), req.hdr.tag);
		rbd_login_grant(&rsp, &req, &a);
		rsp.session_handle = le64(1);
		assert_int_equal(chk_login_rsp(&rsp, sizeof(rsp), &req),
				 RBD_CHECK_OK);
		assert_int_equal(rbd_le64(rsp.features) & ~a.features, 0);
		if (a.max_io_bytes >= RBD_MIN_IO_BYTES)
			assert_true(rbd_le32(rsp.max_io_bytes) <= a.max_io_bytes);
		assert_true(rbd_le32(rsp.inline_write_size) <= a.inline_write_size);
		assert_true(rbd_le32(rsp.imm_read_size) <= a.imm_read_size);
		if (a.queue_depth >= RBD_MIN_QUEUE_DEPTH)
			assert_true(rbd_le16(rsp.queue_depth) <= a.queue_depth);
		if (a.nr_queues >= RBD_MIN_NR_QUEUES)
			assert_true(rbd_le16(rsp.nr_queues) <= a.nr_queues);
	}
}

static void all_validators(const uint8_t *b, size_t len)
{
	struct rbd_login_req login;
	struct rbd_cm_req cmreq, req;
	struct rbd_cm_rep cmrep;
	struct rbd_cm_rej cmrej;

	build_login_req(&login);
	build_cm_req(&req, 1);
	assert_true(chk_req(b, len, &lim_q0) < RBD_CHECK_NR);
	assert_true(chk_req(b, len, &lim_io) < RBD_CHECK_NR);
	assert_true(chk_resp(b, len, &lim_q0, &login) < RBD_CHECK_NR);
	assert_true(chk_resp(b, len, &lim_io, NULL) < RBD_CHECK_NR);
	assert_true(chk_cm_req(b, len, 1, &cmreq) < RBD_CHECK_NR);
	assert_true(chk_cm_rep(b, len, 1, &req, &cmrep) < RBD_CHECK_NR);
	assert_true(chk_cm_rej(b, len, 1, &cmrej) < RBD_CHECK_NR);
}

/* Every proper prefix of a valid capsule must be refused. */
static void test_hostile_truncation(void **state)
{
	static union {
		uint64_t align;
		uint8_t b[sizeof(struct rbd_login_req)];
	} u;
	size_t len, i;

	(void)state;
	len = build_cmd(RBD_DIR_WRITE, 3 * 4096, 3, 0);
	for (i = 0; i < len; i++)
		assert_int_not_equal(chk_cmd(scratch.b, i, &lim_io),
				     RBD_CHECK_OK);
	len = build_cmd(RBD_DIR_WRITE, 1000, 0, 1);
	for (i = 0; i < len; i++)
		assert_int_not_equal(chk_cmd(scratch.b, i, &lim_io),
				     RBD_CHECK_OK);
	len = build_rsp(0x02, 700, 18);
	for (i = 0; i < len; i++)
		assert_int_not_equal(chk_rsp(scratch.b, i, &lim_io),
				     RBD_CHECK_OK);
	len = build_login_req((struct rbd_login_req *)u.b);
	for (i = 0; i < len; i++)
		assert_int_not_equal(chk_req(u.b, i, &lim_q0), RBD_CHECK_OK);
}

/* Flip every byte of valid messages to a set of hostile values. */
static void test_hostile_mutation(void **state)
{
	static const uint8_t vals[] = { 0x00, 0x01, 0x20, 0x7f, 0x80, 0xff };
	static union {
		uint64_t align;
		uint8_t b[4096];
	} orig, u;
	size_t len, n, pos, v;

	(void)state;
	for (n = 0; n < 5; n++) {
		switch (n) {
		case 0:
			len = build_cmd(RBD_DIR_READ, 8192, 2, 0);
			break;
		case 1:
			len = build_cmd(RBD_DIR_WRITE, 512, 0, 1);
			break;
		case 2:
			len = build_rsp(0x02, 256, 18);
			break;
		case 3:
			len = build_login_req((struct rbd_login_req *)scratch.b);
			break;
		default:
			len = build_tmf_req((struct rbd_tmf_req *)scratch.b,
					    RBD_TMF_ABORT_TASK);
			break;
		}
		memcpy(orig.b, scratch.b, len);
		for (pos = 0; pos < len; pos++) {
			for (v = 0; v < sizeof(vals); v++) {
				memcpy(u.b, orig.b, len);
				u.b[pos] = vals[v];
				assert_true(chk_cmd(u.b, len, &lim_io) <
					    RBD_CHECK_NR);
				assert_true(chk_rsp(u.b, len, &lim_io) <
					    RBD_CHECK_NR);
				all_validators(u.b, len);
			}
		}
	}
}

/* Random bytes with plausible headers, at random lengths. */
static void test_hostile_random(void **state)
{
	static const uint8_t ops[] = {
		RBD_OP_LOGIN, RBD_OP_LOGOUT, RBD_OP_NOP, RBD_OP_SCSI_CMD,
		RBD_OP_TMF, RBD_OP_LOGIN_RSP, RBD_OP_LOGOUT_RSP,
		RBD_OP_NOP_RSP, RBD_OP_SCSI_RSP, RBD_OP_TMF_RSP, 0x00, 0xff,
	};
	static union {
		uint64_t align;
		uint8_t b[1024];
	} u;
	unsigned int iter, seen[RBD_CHECK_NR] = { 0 }, distinct = 0;
	size_t len, i;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		struct rbd_hdr *h = (struct rbd_hdr *)u.b;

		len = rng() % sizeof(u.b);
		for (i = 0; i < sizeof(u.b); i++)
			u.b[i] = (uint8_t)rng();
		if (rng() & 3) {
			h->version = RBD_PROTO_VERSION;
			h->opcode = ops[rng() % sizeof(ops)];
			h->tag = le64(rbd_tag(rng() & 1 ? QID : 0, 0,
					      (uint32_t)(rng() % 8)));
			if (rng() & 1)
				h->length = le32((uint32_t)len);
			if (rng() & 1)
				h->flags = 0;
		}
		all_validators(u.b, len);
		assert_true(chk_cmd(u.b, len, &lim_io) < RBD_CHECK_NR);
		assert_true(chk_rsp(u.b, len, &lim_io) < RBD_CHECK_NR);
		seen[chk_req(u.b, len, &lim_io)]++;
	}
	for (i = 0; i < RBD_CHECK_NR; i++)
		distinct += !!seen[i];
	/*
	 * Random bytes must get past the header checks (short, version,
	 * opcode, tag); the structured pass below covers the deeper ones.
	 */
	assert_true(distinct >= 6);
	print_message("random pass: %u distinct outcomes on an I/O queue\n",
		      distinct);
}

/*
 * Independent restatement of what an accepted command guarantees to the
 * target, written without the header's helpers.
 */
static void assert_cmd_invariants(const uint8_t *b, size_t len,
				  const struct rbd_check_limits *lim)
{
	const struct rbd_cmd *cmd = (const struct rbd_cmd *)b;
	const struct rbd_desc *d = (const struct rbd_desc *)(cmd + 1);
	uint32_t data_len = rbd_le32(cmd->data_length);
	uint16_t nr = rbd_le16(cmd->nr_desc);
	uint64_t tag = rbd_le64(cmd->hdr.tag);
	uint64_t sum = 0;
	uint16_t i;

	assert_true(len >= sizeof(*cmd));
	assert_int_equal(rbd_le32(cmd->hdr.length), len);
	assert_int_equal(tag >> 48, lim->qid);
	assert_true((uint32_t)tag < lim->queue_depth);
	assert_true(cmd->cdb_len >= 6 && cmd->cdb_len <= 32);
	assert_true(cmd->cdb[0] != 0x7f || cmd->cdb[7] + 8 <= cmd->cdb_len);
	assert_true(cmd->task_attr <= RBD_TASK_ACA);
	assert_true(cmd->dir <= RBD_DIR_READ);
	assert_true(data_len <= lim->max_io_bytes);
	assert_true(nr <= lim->max_desc);
	assert_int_equal(cmd->dir == RBD_DIR_NONE, data_len == 0);
	if (nr) {
		assert_int_equal(len, sizeof(*cmd) + nr * sizeof(*d));
		for (i = 0; i < nr; i++)
			sum += rbd_le32(d[i].len);
		assert_int_equal(sum, data_len);
	} else if (cmd->dir == RBD_DIR_WRITE) {
		assert_true(data_len <= lim->inline_write_size);
		assert_int_equal(len, sizeof(*cmd) + data_len);
	} else {
		assert_int_equal(len, sizeof(*cmd));
		if (cmd->dir == RBD_DIR_READ)
			assert_true(data_len <= lim->imm_read_size);
	}
}

/*
 * Valid commands with a few fields set to random or boundary values:
 * reaches every branch, and every accepted result is checked by the
 * oracle above.
 */
static void test_hostile_structured(void **state)
{
	static const uint32_t lens[] = {
		0, 1, 511, 512, 4096, 16384, 16385, 1U << 20, (1U << 20) + 1,
		0x7fffffff, 0xffffffff,
	};
	unsigned int iter, ok = 0, refused = 0;
	size_t len;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		uint8_t dir = (uint8_t)(rng() % 4);
		uint16_t nr = (uint16_t)(rng() % 10);
		uint32_t dlen = lens[rng() % ARRAY_SIZE(lens)];
		int inl = dir == RBD_DIR_WRITE && !nr && dlen <= 16384;
		unsigned int k, muts = (unsigned int)(rng() % 3);

		if (nr && dlen < nr)
			dlen = nr;
		if (dlen > 64 * 1024 && !nr)
			dlen = 4096;
		len = build_cmd(dir, dlen, nr, inl);
		for (k = 0; k < muts; k++) {
			size_t pos = rng() % (len + 8);

			if (pos < len)
				scratch.b[pos] = (uint8_t)rng();
			else
				len += rng() % 24;
		}
		if (rng() & 1)
			set_cmd_len(len);
		if (chk_cmd(scratch.b, len, &lim_io) == RBD_CHECK_OK) {
			assert_cmd_invariants(scratch.b, len, &lim_io);
			ok++;
		} else {
			refused++;
		}
	}
	assert_true(ok > 0);
	assert_true(refused > 0);
	print_message("structured pass: %u accepted, %u refused\n", ok,
		      refused);
}

static size_t build_auth_begin(struct rbd_auth_begin *r, uint8_t flags)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_AUTH_BEGIN;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = le64(CTRL_TAG);
	r->hash = RBD_AUTH_HMAC_SHA256;
	r->flags = flags;
	memset(r->challenge, 0xa5, sizeof(r->challenge));
	strcpy(r->initiator_name, "iqn.2026-12.org.example:host1");
	strcpy(r->target_name, "iqn.2026-12.org.example:disk1");
	return sizeof(*r);
}

static size_t build_auth_begin_rsp(struct rbd_auth_begin_rsp *r,
				   const struct rbd_auth_begin *req)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_AUTH_BEGIN_RSP;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = req->hdr.tag;
	r->hash = req->hash;
	memset(r->challenge, 0x3c, sizeof(r->challenge));
	return sizeof(*r);
}

static size_t build_auth_proof(struct rbd_auth_proof *r)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_AUTH_PROOF;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = le64(rbd_tag(0, 10, 1));
	memset(r->proof, 0x11, sizeof(r->proof));
	strcpy(r->user, "host1");
	return sizeof(*r);
}

static size_t build_auth_proof_rsp(struct rbd_auth_proof_rsp *r,
				   const struct rbd_auth_proof *req,
				   uint8_t flags)
{
	memset(r, 0, sizeof(*r));
	r->hdr.opcode = RBD_OP_AUTH_PROOF_RSP;
	r->hdr.version = RBD_PROTO_VERSION;
	r->hdr.length = le32(sizeof(*r));
	r->hdr.tag = req->hdr.tag;
	r->flags = flags;
	if (flags & RBD_AUTH_F_MUTUAL) {
		memset(r->proof, 0x22, sizeof(r->proof));
		strcpy(r->user, "disk1-target");
	}
	return sizeof(*r);
}

static void test_auth_requests(void **state)
{
	struct rbd_auth_begin b;
	struct rbd_auth_proof p;
	size_t len;

	(void)state;
	len = build_auth_begin(&b, RBD_AUTH_F_MUTUAL);
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_OK);
	assert_int_equal(chk_req(&b, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	assert_int_equal(chk_req(&b, len - 1, &lim_q0), RBD_CHECK_SHORT);
	/* Discovery: no target name. */
	memset(b.target_name, 0, sizeof(b.target_name));
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_OK);
	build_auth_begin(&b, 0);
	b.target_name[sizeof(b.target_name) - 1] = 'x';
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_BAD_NAME);
	build_auth_begin(&b, 0);
	b.initiator_name[0] = 0;
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_BAD_NAME);
	build_auth_begin(&b, 2);
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_BAD_FLAGS);
	build_auth_begin(&b, 0);
	b.hash = 2;
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_BAD_FIELD);
	build_auth_begin(&b, 0);
	memset(b.challenge, 0, sizeof(b.challenge));
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_BAD_FIELD);
	build_auth_begin(&b, 0);
	b.reserved[5] = 1;
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_RESERVED);
	build_auth_begin(&b, 0);
	b.reserved2[7] = 1;
	assert_int_equal(chk_req(&b, len, &lim_q0), RBD_CHECK_RESERVED);

	len = build_auth_proof(&p);
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_OK);
	assert_int_equal(chk_req(&p, len, &lim_io), RBD_CHECK_BAD_OPCODE);
	p.user[0] = 0;
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_BAD_NAME);
	build_auth_proof(&p);
	p.user[10] = 'x';	/* a character after the NUL */
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_BAD_NAME);
	build_auth_proof(&p);
	memset(p.user, 'u', sizeof(p.user));
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_BAD_NAME);
	p.user[RBD_AUTH_USER_LEN - 1] = 0;	/* 255 characters */
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_OK);
	p.user[3] = ' ';
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_BAD_NAME);
	build_auth_proof(&p);
	p.reserved[0] = 1;
	assert_int_equal(chk_req(&p, len, &lim_q0), RBD_CHECK_RESERVED);
}

static enum rbd_check chk_begin_rsp(const void *b, size_t len,
				    const struct rbd_auth_begin *req)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_auth_begin_rsp(p, len, req);

	free(p);
	return r;
}

static enum rbd_check chk_proof_rsp(const void *b, size_t len,
				    const struct rbd_auth_begin *begin,
				    const struct rbd_auth_proof *proof)
{
	void *p = dup_exact(b, len, 0);
	enum rbd_check r = rbd_check_auth_proof_rsp(p, len, begin, proof);

	free(p);
	return r;
}

static void test_auth_begin_rsp(void **state)
{
	struct rbd_auth_begin b;
	struct rbd_auth_begin_rsp r;
	size_t len;

	(void)state;
	build_auth_begin(&b, 0);
	len = build_auth_begin_rsp(&r, &b);
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_OK);
	assert_int_equal(chk_resp(&r, len, &lim_q0, NULL), RBD_CHECK_OK);
	assert_int_equal(chk_resp(&r, len, &lim_io, NULL),
			 RBD_CHECK_BAD_OPCODE);
	r.hdr.tag = le64(rbd_tag(0, 8, 1));
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_TAG);
	/* A reflected challenge: the target must bring its own. */
	build_auth_begin_rsp(&r, &b);
	memcpy(r.challenge, b.challenge, sizeof(r.challenge));
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_FIELD);
	assert_int_equal(chk_begin_rsp(&r, len, NULL), RBD_CHECK_OK);
	build_auth_begin_rsp(&r, &b);
	memset(r.challenge, 0, sizeof(r.challenge));
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_FIELD);
	build_auth_begin_rsp(&r, &b);
	r.hash = 3;
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_FIELD);
	build_auth_begin_rsp(&r, &b);
	r.reserved[4] = 1;
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_RESERVED);
	/* A refusal carries nothing else. */
	build_auth_begin_rsp(&r, &b);
	r.status = le16(RBD_REJ_UNKNOWN_TARGET);
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_FIELD);
	r.hash = 0;
	memset(r.challenge, 0, sizeof(r.challenge));
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_OK);
	r.status = le16(RBD_REJ_NR);
	assert_int_equal(chk_begin_rsp(&r, len, &b), RBD_CHECK_BAD_FIELD);
}

static void test_auth_proof_rsp(void **state)
{
	struct rbd_auth_begin b, bm;
	struct rbd_auth_proof p;
	struct rbd_auth_proof_rsp r;
	size_t len;

	(void)state;
	build_auth_begin(&b, 0);
	build_auth_begin(&bm, RBD_AUTH_F_MUTUAL);
	build_auth_proof(&p);
	len = build_auth_proof_rsp(&r, &p, 0);
	assert_int_equal(chk_proof_rsp(&r, len, &b, &p), RBD_CHECK_OK);
	assert_int_equal(chk_resp(&r, len, &lim_q0, NULL), RBD_CHECK_OK);
	/* Mutual asked for, not given; and given, not asked for. */
	assert_int_equal(chk_proof_rsp(&r, len, &bm, &p), RBD_CHECK_BAD_FLAGS);
	build_auth_proof_rsp(&r, &p, RBD_AUTH_F_MUTUAL);
	assert_int_equal(chk_proof_rsp(&r, len, &bm, &p), RBD_CHECK_OK);
	assert_int_equal(chk_proof_rsp(&r, len, &b, &p), RBD_CHECK_BAD_FLAGS);
	r.user[0] = 0;
	assert_int_equal(chk_proof_rsp(&r, len, &bm, &p), RBD_CHECK_BAD_NAME);
	build_auth_proof_rsp(&r, &p, 0);
	r.proof[0] = 1;
	assert_int_equal(chk_proof_rsp(&r, len, &b, &p), RBD_CHECK_BAD_FIELD);
	build_auth_proof_rsp(&r, &p, 0);
	r.flags = 4;
	assert_int_equal(chk_proof_rsp(&r, len, &b, &p), RBD_CHECK_BAD_FLAGS);
	build_auth_proof_rsp(&r, &p, 0);
	r.hdr.tag = le64(CTRL_TAG);
	assert_int_equal(chk_proof_rsp(&r, len, &b, &p), RBD_CHECK_BAD_TAG);
	/* A failure: no flags, proof or user. */
	build_auth_proof_rsp(&r, &p, RBD_AUTH_F_MUTUAL);
	r.status = le16(RBD_REJ_AUTH_FAILED);
	assert_int_equal(chk_proof_rsp(&r, len, &bm, &p), RBD_CHECK_BAD_FIELD);
	build_auth_proof_rsp(&r, &p, 0);
	r.status = le16(RBD_REJ_AUTH_FAILED);
	assert_int_equal(chk_proof_rsp(&r, len, &bm, &p), RBD_CHECK_OK);
}

/*
 * Connect reply flag @flag answers queue 0's offer of @feature: accepted
 * with it, refused with only @other offered.
 */
static void assert_rep_flag_needs_offer(uint64_t feature, uint32_t flag,
					uint64_t other)
{
	struct rbd_cm_req req;
	struct rbd_cm_rep rep, out;

	build_cm_req(&req, 0);
	req.features = le64(feature);
	build_cm_rep(&rep, &req);
	rep.flags = le32(flag);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 0, &req, &out),
			 RBD_CHECK_OK);
	req.features = le64(other);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 0, &req, &out),
			 RBD_CHECK_BAD_FLAGS);
	req.features = le64(feature);
	rep.flags = le32(RBD_CM_REP_F_ALL + 1);
	assert_int_equal(chk_cm_rep(&rep, sizeof(rep), 0, &req, &out),
			 RBD_CHECK_BAD_FLAGS);
}

static void test_reinstate_cm_and_login(void **state)
{
	struct rbd_login_req lreq;
	struct rbd_login_rsp lrsp;

	(void)state;
	assert_rep_flag_needs_offer(RBD_FEAT_REINSTATE, RBD_CM_REP_F_REINSTATE,
				    RBD_FEAT_AUTH);

	/* A LOGIN names its instance only where it offers reinstatement. */
	build_login_req(&lreq);
	lreq.instance = le64(0x0123456789abcdefULL);
	assert_int_equal(rbd_check_login_req(&lreq, sizeof(lreq)), RBD_CHECK_OK);
	lreq.features = le64(RBD_FEAT_REMOTE_INV);
	assert_int_equal(rbd_check_login_req(&lreq, sizeof(lreq)),
			 RBD_CHECK_RESERVED);
	lreq.instance = 0;
	assert_int_equal(rbd_check_login_req(&lreq, sizeof(lreq)), RBD_CHECK_OK);

	/* Granted for a named session only. */
	build_login_req(&lreq);
	build_login_rsp(&lrsp);
	lrsp.features = le64(RBD_FEAT_REINSTATE);
	assert_int_equal(chk_login_rsp(&lrsp, sizeof(lrsp), &lreq),
			 RBD_CHECK_BAD_FEATURES);
	lreq.instance = le64(7);
	assert_int_equal(chk_login_rsp(&lrsp, sizeof(lrsp), &lreq),
			 RBD_CHECK_OK);
}

static void test_auth_cm_and_login(void **state)
{
	struct rbd_login_req lreq;
	struct rbd_login_rsp lrsp;

	(void)state;
	assert_rep_flag_needs_offer(RBD_FEAT_AUTH, RBD_CM_REP_F_AUTH, 0);

	/* The authentication reasons only for an initiator that can. */
	build_login_req(&lreq);
	build_login_rsp(&lrsp);
	memset((uint8_t *)&lrsp + sizeof(lrsp.hdr), 0,
	       sizeof(lrsp) - sizeof(lrsp.hdr));
	lrsp.status = le16(RBD_REJ_AUTH_REQUIRED);
	lreq.features = le64(RBD_FEAT_ALL);
	assert_int_equal(chk_login_rsp(&lrsp, sizeof(lrsp), &lreq),
			 RBD_CHECK_OK);
	lreq.features = le64(RBD_FEAT_ALL & ~RBD_FEAT_AUTH);
	assert_int_equal(chk_login_rsp(&lrsp, sizeof(lrsp), &lreq),
			 RBD_CHECK_BAD_FIELD);
	lrsp.status = le16(RBD_REJ_ACL_DENIED);
	assert_int_equal(chk_login_rsp(&lrsp, sizeof(lrsp), &lreq),
			 RBD_CHECK_OK);
}

static void test_auth_msg(void **state)
{
	struct rbd_auth_begin b;
	struct rbd_auth_msg mi, mt;
	uint8_t ct[RBD_AUTH_CHALLENGE_LEN];
	char user[RBD_AUTH_USER_LEN] = "host1";

	(void)state;
	build_auth_begin(&b, 0);
	memset(ct, 0x3c, sizeof(ct));
	rbd_auth_msg_init(&mi, 0, &b, ct, user);
	rbd_auth_msg_init(&mt, 1, &b, ct, user);
	assert_string_equal(mi.label, RBD_AUTH_LABEL_INITIATOR);
	assert_string_equal(mt.label, RBD_AUTH_LABEL_TARGET);
	assert_int_equal(sizeof(RBD_AUTH_LABEL_INITIATOR) <= 16, 1);
	assert_int_equal(sizeof(RBD_AUTH_LABEL_TARGET) <= 16, 1);
	/* The two sides' messages differ in the label only. */
	assert_memory_not_equal(&mi, &mt, sizeof(mi.label));
	assert_memory_equal((char *)&mi + 16, (char *)&mt + 16,
			    sizeof(mi) - 16);
	assert_memory_equal(mi.challenge_ini, b.challenge, sizeof(ct));
	assert_memory_equal(mi.challenge_tgt, ct, sizeof(ct));
	assert_memory_equal(mi.user, user, sizeof(user));
	assert_memory_equal(mi.initiator_name, b.initiator_name,
			    RBD_NAME_LEN);
	assert_memory_equal(mi.target_name, b.target_name, RBD_NAME_LEN);
}

/*
 * Seeds for the libFuzzer harnesses (tests/fuzz/): the builders' valid
 * capsules, one file each, in @dir/<harness>/.
 */
static void write_seed(const char *dir, const char *harness,
		       const char *name, const void *b, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%s", dir, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void write_cmd_seeds(const char *dir)
{
	static const struct {
		const char *name;
		uint8_t dir;
		uint32_t data_len;
		uint16_t nr_desc;
		int inline_data;
	} c[] = {
		{ "none", RBD_DIR_NONE, 0, 0, 0 },
		{ "read-imm", RBD_DIR_READ, 4096, 0, 0 },
		{ "read-desc1", RBD_DIR_READ, 65536, 1, 0 },
		{ "read-desc8", RBD_DIR_READ, 1U << 20, 8, 0 },
		{ "write-inline", RBD_DIR_WRITE, 512, 0, 1 },
		{ "write-desc3", RBD_DIR_WRITE, 12288, 3, 0 },
	};
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		len = build_cmd(c[i].dir, c[i].data_len, c[i].nr_desc,
				c[i].inline_data);
		write_seed(dir, "cmd", c[i].name, scratch.b, len);
	}
	/* A VARIABLE LENGTH READ(32) and a VERIFY(10) with BYTCHK. */
	len = build_cmd(RBD_DIR_READ, 4096, 1, 0);
	CMD->cdb_len = 32;
	memset(CMD->cdb, 0, sizeof(CMD->cdb));
	CMD->cdb[0] = 0x7f;
	CMD->cdb[7] = 24;
	CMD->cdb[9] = 0x09;
	write_seed(dir, "cmd", "read32", scratch.b, len);
	len = build_cmd(RBD_DIR_WRITE, 8192, 2, 0);
	CMD->cdb[0] = 0x2f;
	CMD->cdb[1] = 0x02;
	CMD->hdr.flags = le16(RBD_CMD_F_INVALIDATE);
	write_seed(dir, "cmd", "verify-inv", scratch.b, len);
}

static void write_rsp_seeds(const char *dir)
{
	uint8_t batch[RBD_RSP_BATCH_MAX * sizeof(struct rbd_rsp)];
	size_t len, i;

	len = build_rsp(0, 0, 0);
	write_seed(dir, "rsp", "good", scratch.b, len);
	write_seed(dir, "batch", "single", scratch.b, len);
	for (i = 0; i < 4; i++) {
		build_rsp(0, 0, 0);
		RSP->hdr.tag = le64(rbd_tag(QID, 1, i));
		RSP->credits = le16(DEPTH - i);
		memcpy(batch + i * len, scratch.b, len);
	}
	write_seed(dir, "batch", "four", batch, 4 * len);
	len = build_rsp(0, 4096, 0);
	write_seed(dir, "rsp", "imm", scratch.b, len);
	len = build_rsp(2, 0, 18);
	write_seed(dir, "rsp", "sense", scratch.b, len);
	len = build_rsp(0, 512, 0);
	RSP->hdr.flags = le16(RBD_RSP_F_UNDERFLOW | RBD_RSP_F_INVALIDATED);
	RSP->residual = le32(512);
	RSP->credits = le16(7);
	write_seed(dir, "rsp", "underflow", scratch.b, len);
}

static void write_ctrl_seeds(const char *dir)
{
	struct rbd_login_req lreq;
	struct rbd_login_rsp lrsp;
	struct rbd_tmf_req treq;
	struct rbd_tmf_rsp trsp;
	struct rbd_nop nop;
	struct rbd_logout lo;
	struct rbd_discover_req dreq;
	struct rbd_discover_rsp drsp;
	struct rbd_cm_req cmreq;
	struct rbd_cm_rep cmrep;
	struct rbd_cm_rej cmrej;
	struct rbd_auth_begin abeg;
	struct rbd_auth_begin_rsp abrsp;
	struct rbd_auth_proof aproof;
	struct rbd_auth_proof_rsp aprsp;

	write_seed(dir, "ctrl_req", "login", &lreq, build_login_req(&lreq));
	write_seed(dir, "ctrl_req", "tmf-abort", &treq,
		   build_tmf_req(&treq, RBD_TMF_ABORT_TASK));
	write_seed(dir, "ctrl_req", "tmf-lun-reset", &treq,
		   build_tmf_req(&treq, RBD_TMF_LUN_RESET));
	write_seed(dir, "ctrl_req", "nop", &nop,
		   build_nop(&nop, RBD_OP_NOP, 0));
	write_seed(dir, "ctrl_req", "nop-io", &nop,
		   build_nop(&nop, RBD_OP_NOP, QID));
	write_seed(dir, "ctrl_req", "logout", &lo,
		   build_logout(&lo, RBD_OP_LOGOUT));

	write_seed(dir, "ctrl_rsp", "login", &lrsp, build_login_rsp(&lrsp));
	build_login_rsp(&lrsp);
	memset((uint8_t *)&lrsp + sizeof(lrsp.hdr), 0,
	       sizeof(lrsp) - sizeof(lrsp.hdr));
	lrsp.status = le16(RBD_REJ_ACL_DENIED);
	write_seed(dir, "ctrl_rsp", "login-denied", &lrsp, sizeof(lrsp));
	write_seed(dir, "ctrl_rsp", "tmf", &trsp,
		   build_tmf_rsp(&trsp, RBD_TMF_RSP_COMPLETE));
	write_seed(dir, "ctrl_rsp", "nop", &nop,
		   build_nop(&nop, RBD_OP_NOP_RSP, 0));
	write_seed(dir, "ctrl_rsp", "nop-io", &nop,
		   build_nop(&nop, RBD_OP_NOP_RSP, QID));
	write_seed(dir, "ctrl_rsp", "logout", &lo,
		   build_logout(&lo, RBD_OP_LOGOUT_RSP));

	write_seed(dir, "discover", "req", &dreq, build_discover_req(&dreq));
	write_seed(dir, "ctrl_req", "discover", &dreq, sizeof(dreq));
	write_seed(dir, "discover", "rsp", &drsp,
		   build_discover_rsp(&drsp, &dreq));
	memset((uint8_t *)&drsp + sizeof(drsp.hdr), 0,
	       sizeof(drsp) - sizeof(drsp.hdr));
	drsp.status = le16(RBD_REJ_ACL_DENIED);
	write_seed(dir, "discover", "rsp-denied", &drsp, sizeof(drsp));

	write_seed(dir, "ctrl_req", "auth-begin", &abeg,
		   build_auth_begin(&abeg, RBD_AUTH_F_MUTUAL));
	write_seed(dir, "ctrl_req", "auth-proof", &aproof,
		   build_auth_proof(&aproof));
	write_seed(dir, "ctrl_rsp", "auth-begin", &abrsp,
		   build_auth_begin_rsp(&abrsp, &abeg));
	write_seed(dir, "ctrl_rsp", "auth-proof", &aprsp,
		   build_auth_proof_rsp(&aprsp, &aproof, RBD_AUTH_F_MUTUAL));

	build_cm_req(&cmreq, 0);
	write_seed(dir, "cm", "req-q0", &cmreq, sizeof(cmreq));
	build_cm_req(&cmreq, 1);
	write_seed(dir, "cm", "req-io", &cmreq, sizeof(cmreq));
	build_cm_rep(&cmrep, &cmreq);
	write_seed(dir, "cm", "rep", &cmrep, sizeof(cmrep));
	build_cm_rej(&cmrej, RBD_REJ_VERSION);
	write_seed(dir, "cm", "rej", &cmrej, sizeof(cmrej));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_ok),
		cmocka_unit_test(test_cmd_cdb_sizes_ok),
		cmocka_unit_test(test_cmd_short),
		cmocka_unit_test(test_cmd_version_opcode),
		cmocka_unit_test(test_cmd_bad_tag),
		cmocka_unit_test(test_cmd_bad_length),
		cmocka_unit_test(test_cmd_flags_reserved),
		cmocka_unit_test(test_cmd_task_attr),
		cmocka_unit_test(test_cmd_cdb_len),
		cmocka_unit_test(test_cmd_too_many_desc),
		cmocka_unit_test(test_cmd_data_too_long),
		cmocka_unit_test(test_cmd_bad_dir),
		cmocka_unit_test(test_cmd_cdb_dir),
		cmocka_unit_test(test_cmd_desc_len),
		cmocka_unit_test(test_cmd_inline),
		cmocka_unit_test(test_cmd_imm_read),
		cmocka_unit_test(test_cmd_fatal_map),
		cmocka_unit_test(test_rsp_ok),
		cmocka_unit_test(test_rsp_errors),
		cmocka_unit_test(test_cm_req_ok),
		cmocka_unit_test(test_cm_req_errors),
		cmocka_unit_test(test_cm_rep),
		cmocka_unit_test(test_cm_rej),
		cmocka_unit_test(test_login_req_ok),
		cmocka_unit_test(test_login_req_errors),
		cmocka_unit_test(test_login_rsp),
		cmocka_unit_test(test_login_grant),
		cmocka_unit_test(test_tmf),
		cmocka_unit_test(test_nop_logout),
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_rsp_batch),
		cmocka_unit_test(test_auth_requests),
		cmocka_unit_test(test_auth_begin_rsp),
		cmocka_unit_test(test_auth_proof_rsp),
		cmocka_unit_test(test_auth_cm_and_login),
		cmocka_unit_test(test_reinstate_cm_and_login),
		cmocka_unit_test(test_auth_msg),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_hostile_truncation),
		cmocka_unit_test(test_hostile_mutation),
		cmocka_unit_test(test_hostile_random),
		cmocka_unit_test(test_hostile_structured),
	};

	if (argc == 3 && !strcmp(argv[1], "--write-seeds")) {
		write_cmd_seeds(argv[2]);
		write_rsp_seeds(argv[2]);
		write_ctrl_seeds(argv[2]);
		return 0;
	}
	return cmocka_run_group_tests_name("rbd_proto validators", tests,
					   NULL, NULL);
}
