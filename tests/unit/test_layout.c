// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for include/uapi/rbd/rbd_proto.h: structure sizes and offsets,
 * constants, byte order of the encoding, tag and size helpers, and the
 * string helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <rbd/rbd_proto_check.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define assert_size(type, size) \
	assert_int_equal(sizeof(struct type), (size))
#define assert_off(type, member, off) \
	assert_int_equal(offsetof(struct type, member), (off))

static void test_sizes(void **state)
{
	(void)state;
	assert_size(rbd_cm_req, 40);
	assert_size(rbd_cm_rep, 16);
	assert_size(rbd_cm_rej, 16);
	assert_size(rbd_hdr, 16);
	assert_size(rbd_login_req, 512);
	assert_size(rbd_login_rsp, 64);
	assert_size(rbd_desc, 16);
	assert_size(rbd_cmd, 72);
	assert_size(rbd_rsp, 32);
	assert_size(rbd_tmf_req, 40);
	assert_size(rbd_tmf_rsp, 24);
	assert_size(rbd_nop, 24);
	assert_size(rbd_logout, 24);
	assert_size(rbd_discover_req, 256);
	assert_size(rbd_discover_rsp, 512);
}

/*
 * Every wire structure is a multiple of 8 bytes so that arrays and
 * trailing payloads stay 8-byte aligned on every ABI.
 */
static void test_sizes_aligned(void **state)
{
	static const size_t sizes[] = {
		sizeof(struct rbd_cm_req), sizeof(struct rbd_cm_rep),
		sizeof(struct rbd_cm_rej), sizeof(struct rbd_hdr),
		sizeof(struct rbd_login_req), sizeof(struct rbd_login_rsp),
		sizeof(struct rbd_desc), sizeof(struct rbd_cmd),
		sizeof(struct rbd_rsp), sizeof(struct rbd_tmf_req),
		sizeof(struct rbd_tmf_rsp), sizeof(struct rbd_nop),
		sizeof(struct rbd_logout), sizeof(struct rbd_discover_req),
		sizeof(struct rbd_discover_rsp),
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		assert_int_equal(sizes[i] % 8, 0);
}

static void test_pdata_budgets(void **state)
{
	(void)state;
	assert_int_equal(RBD_CM_REQ_PDATA_IB, 92 - 36);
	assert_true(RBD_CM_PDATA_MAX <= RBD_CM_REQ_PDATA_IB);
	assert_true(sizeof(struct rbd_cm_req) <= RBD_CM_PDATA_MAX);
	assert_true(sizeof(struct rbd_cm_rep) <= RBD_CM_PDATA_MAX);
	assert_true(sizeof(struct rbd_cm_rej) <= RBD_CM_PDATA_MAX);
	assert_true(RBD_CM_PDATA_MAX <= RBD_CM_REP_PDATA_IB);
	assert_true(RBD_CM_PDATA_MAX <= RBD_CM_REJ_PDATA_IB);
	/* rdma_conn_param.private_data_len is a u8 */
	assert_true(RBD_CM_REP_PDATA_IB <= 255);

	assert_true(sizeof(struct rbd_login_req) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_login_rsp) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_tmf_req) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_tmf_rsp) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_nop) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_logout) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_discover_req) <= RBD_CTRL_CAPSULE_MAX);
	assert_true(sizeof(struct rbd_discover_rsp) <= RBD_CTRL_CAPSULE_MAX);
}

static void test_offsets_cm(void **state)
{
	(void)state;
	assert_off(rbd_cm_req, magic, 0);
	assert_off(rbd_cm_req, version, 4);
	assert_off(rbd_cm_req, length, 6);
	assert_off(rbd_cm_req, qid, 8);
	assert_off(rbd_cm_req, queue_depth, 10);
	assert_off(rbd_cm_req, reserved, 12);
	assert_off(rbd_cm_req, features, 16);
	assert_off(rbd_cm_req, session_handle, 24);
	assert_off(rbd_cm_req, reserved2, 32);

	assert_off(rbd_cm_rep, magic, 0);
	assert_off(rbd_cm_rep, version, 4);
	assert_off(rbd_cm_rep, length, 6);
	assert_off(rbd_cm_rep, qid, 8);
	assert_off(rbd_cm_rep, queue_depth, 10);
	assert_off(rbd_cm_rep, flags, 12);

	assert_off(rbd_cm_rej, magic, 0);
	assert_off(rbd_cm_rej, version, 4);
	assert_off(rbd_cm_rej, length, 6);
	assert_off(rbd_cm_rej, reason, 8);
	assert_off(rbd_cm_rej, min_version, 10);
	assert_off(rbd_cm_rej, max_version, 12);
	assert_off(rbd_cm_rej, reserved, 14);
}

static void test_offsets_hdr_login(void **state)
{
	(void)state;
	assert_off(rbd_hdr, opcode, 0);
	assert_off(rbd_hdr, version, 1);
	assert_off(rbd_hdr, flags, 2);
	assert_off(rbd_hdr, length, 4);
	assert_off(rbd_hdr, tag, 8);

	assert_off(rbd_login_req, hdr, 0);
	assert_off(rbd_login_req, features, 16);
	assert_off(rbd_login_req, lun, 24);
	assert_off(rbd_login_req, max_io_bytes, 32);
	assert_off(rbd_login_req, inline_write_size, 36);
	assert_off(rbd_login_req, imm_read_size, 40);
	assert_off(rbd_login_req, keepalive_ms, 44);
	assert_off(rbd_login_req, queue_depth, 48);
	assert_off(rbd_login_req, nr_queues, 50);
	assert_off(rbd_login_req, max_desc, 52);
	assert_off(rbd_login_req, reserved, 54);
	assert_off(rbd_login_req, instance, 56);
	assert_off(rbd_login_req, initiator_name, 64);
	assert_off(rbd_login_req, target_name, 288);

	/* The limits sit at the same offsets in request and response. */
	assert_off(rbd_login_rsp, hdr, 0);
	assert_off(rbd_login_rsp, features, 16);
	assert_off(rbd_login_rsp, session_handle, 24);
	assert_off(rbd_login_rsp, max_io_bytes, 32);
	assert_off(rbd_login_rsp, inline_write_size, 36);
	assert_off(rbd_login_rsp, imm_read_size, 40);
	assert_off(rbd_login_rsp, keepalive_ms, 44);
	assert_off(rbd_login_rsp, queue_depth, 48);
	assert_off(rbd_login_rsp, nr_queues, 50);
	assert_off(rbd_login_rsp, max_desc, 52);
	assert_off(rbd_login_rsp, status, 54);
	assert_off(rbd_login_rsp, reserved, 56);
}

static void test_offsets_io(void **state)
{
	(void)state;
	assert_off(rbd_desc, addr, 0);
	assert_off(rbd_desc, rkey, 8);
	assert_off(rbd_desc, len, 12);

	assert_off(rbd_cmd, hdr, 0);
	assert_off(rbd_cmd, lun, 16);
	assert_off(rbd_cmd, data_length, 24);
	assert_off(rbd_cmd, nr_desc, 28);
	assert_off(rbd_cmd, dir, 30);
	assert_off(rbd_cmd, task_attr, 31);
	assert_off(rbd_cmd, cdb_len, 32);
	assert_off(rbd_cmd, reserved, 33);
	assert_off(rbd_cmd, cdb, 40);
	assert_int_equal(sizeof(((struct rbd_cmd *)0)->cdb), RBD_MAX_CDB_LEN);

	assert_off(rbd_rsp, hdr, 0);
	assert_off(rbd_rsp, residual, 16);
	assert_off(rbd_rsp, imm_len, 20);
	assert_off(rbd_rsp, credits, 24);
	assert_off(rbd_rsp, sense_len, 26);
	assert_off(rbd_rsp, status, 28);
	assert_off(rbd_rsp, reserved, 29);
}

static void test_offsets_ctrl(void **state)
{
	(void)state;
	assert_off(rbd_tmf_req, hdr, 0);
	assert_off(rbd_tmf_req, lun, 16);
	assert_off(rbd_tmf_req, ref_tag, 24);
	assert_off(rbd_tmf_req, function, 32);
	assert_off(rbd_tmf_req, reserved, 33);

	assert_off(rbd_tmf_rsp, hdr, 0);
	assert_off(rbd_tmf_rsp, response, 16);
	assert_off(rbd_tmf_rsp, reserved, 17);

	assert_off(rbd_nop, hdr, 0);
	assert_off(rbd_nop, cookie, 16);

	assert_off(rbd_logout, hdr, 0);
	assert_off(rbd_logout, reserved, 16);

	assert_off(rbd_discover_req, hdr, 0);
	assert_off(rbd_discover_req, index, 16);
	assert_off(rbd_discover_req, reserved, 20);
	assert_off(rbd_discover_req, start_lun, 24);
	assert_off(rbd_discover_req, initiator_name, 32);

	assert_off(rbd_discover_rsp, hdr, 0);
	assert_off(rbd_discover_rsp, status, 16);
	assert_off(rbd_discover_rsp, tpgt, 18);
	assert_off(rbd_discover_rsp, nr_luns, 20);
	assert_off(rbd_discover_rsp, flags, 22);
	assert_off(rbd_discover_rsp, index, 24);
	assert_off(rbd_discover_rsp, nr_entries, 28);
	assert_off(rbd_discover_rsp, target_name, 32);
	assert_off(rbd_discover_rsp, luns, 256);
	assert_off(rbd_auth_begin, hash, 16);
	assert_off(rbd_auth_begin, flags, 17);
	assert_off(rbd_auth_begin, challenge, 24);
	assert_off(rbd_auth_begin, initiator_name, 56);
	assert_off(rbd_auth_begin, target_name, 280);
	assert_off(rbd_auth_begin, reserved2, 504);
	assert_off(rbd_auth_begin_rsp, status, 16);
	assert_off(rbd_auth_begin_rsp, hash, 18);
	assert_off(rbd_auth_begin_rsp, challenge, 24);
	assert_off(rbd_auth_proof, proof, 24);
	assert_off(rbd_auth_proof, user, 56);
	assert_off(rbd_auth_proof_rsp, status, 16);
	assert_off(rbd_auth_proof_rsp, flags, 18);
	assert_off(rbd_auth_proof_rsp, proof, 24);
	assert_off(rbd_auth_proof_rsp, user, 56);
	assert_off(rbd_auth_msg, challenge_ini, 16);
	assert_off(rbd_auth_msg, challenge_tgt, 48);
	assert_off(rbd_auth_msg, user, 80);
	assert_off(rbd_auth_msg, initiator_name, 336);
	assert_off(rbd_auth_msg, target_name, 560);
}

static void test_constants(void **state)
{
	(void)state;
	assert_int_equal(RBD_DEFAULT_PORT, 65000);
	assert_int_equal(RBD_PROTO_VERSION, 1);
	assert_true(RBD_PROTO_VERSION_MIN <= RBD_PROTO_VERSION);
	assert_true(RBD_PROTO_VERSION <= RBD_PROTO_VERSION_MAX);

	/* Defaults lie within [min, max]. */
	assert_true(RBD_MIN_IO_BYTES <= RBD_DEFAULT_MAX_IO_BYTES);
	assert_true(RBD_DEFAULT_MAX_IO_BYTES <= RBD_MAX_IO_BYTES);
	assert_int_equal(RBD_DEFAULT_MAX_IO_BYTES % RBD_IO_BYTES_ALIGN, 0);
	assert_int_equal(RBD_MAX_IO_BYTES % RBD_IO_BYTES_ALIGN, 0);
	assert_true(RBD_MIN_QUEUE_DEPTH <= RBD_DEFAULT_QUEUE_DEPTH);
	assert_true(RBD_DEFAULT_QUEUE_DEPTH <= RBD_MAX_QUEUE_DEPTH);
	assert_true(RBD_MIN_NR_QUEUES <= RBD_DEFAULT_NR_QUEUES);
	assert_true(RBD_DEFAULT_NR_QUEUES <= RBD_MAX_NR_QUEUES);
	assert_true(RBD_DEFAULT_INLINE_WRITE <= RBD_MAX_INLINE_WRITE);
	assert_true(RBD_DEFAULT_IMM_READ <= RBD_MAX_IMM_READ);
	assert_true(RBD_MIN_DESC <= RBD_DEFAULT_MAX_DESC);
	assert_true(RBD_DEFAULT_MAX_DESC <= RBD_MAX_DESC);
	assert_true(RBD_MIN_KEEPALIVE_MS <= RBD_DEFAULT_KEEPALIVE_MS);
	assert_true(RBD_DEFAULT_KEEPALIVE_MS <= RBD_MAX_KEEPALIVE_MS);

	/* The maxima reach what the project requires. */
	assert_true(RBD_MAX_IO_BYTES >= 1U << 20);
	assert_true(RBD_MAX_QUEUE_DEPTH >= 1024);
	assert_true(RBD_MAX_NR_QUEUES >= 64);
	assert_true(RBD_MAX_INLINE_WRITE >= 16U << 10);
	assert_true(RBD_MAX_IMM_READ >= 16U << 10);

	/* Fields are wide enough for the maxima. */
	assert_true(RBD_MAX_QUEUE_DEPTH <= UINT16_MAX);
	assert_true(RBD_MAX_NR_QUEUES < UINT16_MAX);
	assert_true(RBD_MAX_DESC <= UINT16_MAX);
	assert_true((uint64_t)RBD_MAX_DESC * sizeof(struct rbd_desc) +
		    sizeof(struct rbd_cmd) <= UINT32_MAX);

	/* Names: 223 characters plus NUL, as iSCSI names. */
	assert_int_equal(RBD_NAME_LEN, 224);
	assert_int_equal(RBD_MAX_SENSE_LEN, 96);
	assert_int_equal(RBD_MIN_CDB_LEN, 6);
	assert_int_equal(RBD_MAX_CDB_LEN, 32);
	assert_true(RBD_CTRL_SLOTS >= 1);
}

static void test_feature_bits(void **state)
{
	(void)state;
	assert_int_equal(RBD_FEAT_REMOTE_INV & RBD_FEAT_CREDIT_WINDOW, 0);
	assert_int_equal(RBD_FEAT_BARE_READ &
			 (RBD_FEAT_REMOTE_INV | RBD_FEAT_CREDIT_WINDOW), 0);
	assert_int_equal(RBD_FEAT_RSP_BATCH &
			 (RBD_FEAT_REMOTE_INV | RBD_FEAT_CREDIT_WINDOW |
			  RBD_FEAT_BARE_READ), 0);
	assert_int_equal(RBD_FEAT_AUTH &
			 (RBD_FEAT_REMOTE_INV | RBD_FEAT_CREDIT_WINDOW |
			  RBD_FEAT_BARE_READ | RBD_FEAT_RSP_BATCH), 0);
	assert_int_equal(RBD_FEAT_REINSTATE &
			 (RBD_FEAT_REMOTE_INV | RBD_FEAT_CREDIT_WINDOW |
			  RBD_FEAT_BARE_READ | RBD_FEAT_RSP_BATCH |
			  RBD_FEAT_AUTH), 0);
	assert_int_equal(RBD_FEAT_ALL,
			 RBD_FEAT_REMOTE_INV | RBD_FEAT_CREDIT_WINDOW |
			 RBD_FEAT_BARE_READ | RBD_FEAT_RSP_BATCH |
			 RBD_FEAT_AUTH | RBD_FEAT_REINSTATE);
	assert_int_equal(RBD_CM_REP_F_AUTH & RBD_CM_REP_F_REINSTATE, 0);
	assert_int_equal(RBD_CMD_F_ALL & ~0xffffU, 0);
	assert_int_equal(RBD_RSP_F_ALL & ~0xffffU, 0);
	assert_int_equal(RBD_RSP_F_UNDERFLOW & RBD_RSP_F_OVERFLOW, 0);
	assert_int_equal(RBD_RSP_F_INVALIDATED &
			 (RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW), 0);
}

static void test_bare_rsp(void **state)
{
	static const uint16_t qids[] = { 1, 7, RBD_MAX_NR_QUEUES };
	static const uint16_t gens[] = { 0, 1, 0x8000, 0xffff };
	static const uint32_t slots[] = { 0, 1, 0x1234, RBD_MAX_QUEUE_DEPTH - 1 };
	size_t i, j, k;

	(void)state;
	/* Slot in bits 15:0, generation in bits 31:16. */
	assert_int_equal(rbd_bare_rsp(rbd_tag(3, 0xabcd, 0x0123)), 0xabcd0123U);
	for (i = 0; i < sizeof(qids) / sizeof(qids[0]); i++)
		for (j = 0; j < sizeof(gens) / sizeof(gens[0]); j++)
			for (k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
				uint64_t tag = rbd_tag(qids[i], gens[j],
						       slots[k]);

				assert_int_equal(rbd_bare_rsp_tag(qids[i],
							rbd_bare_rsp(tag)),
						 tag);
			}
	/* The qid comes from the queue, not from the immediate data. */
	assert_int_equal(rbd_bare_rsp_tag(2, rbd_bare_rsp(rbd_tag(5, 9, 4))),
			 rbd_tag(2, 9, 4));
}

static void test_rsp_batch_max(void **state)
{
	(void)state;
	/* Without immediate reads a receive holds 32 + 96 bytes: 4. */
	assert_int_equal(rbd_rsp_batch_max(0), 4);
	assert_int_equal(rbd_rsp_batch_max(31), 4);
	assert_int_equal(rbd_rsp_batch_max(32), 5);
	/* Capped by rule, however large the receive. */
	assert_int_equal(rbd_rsp_batch_max(4096), RBD_RSP_BATCH_MAX);
	assert_int_equal(rbd_rsp_batch_max(RBD_MAX_IMM_READ),
			 RBD_RSP_BATCH_MAX);
	/* A full batch fits the receive buffer of its queue. */
	assert_true(rbd_rsp_batch_max(0) * sizeof(struct rbd_rsp) <=
		    rbd_rsp_capsule_max(0));
}

static void test_opcodes(void **state)
{
	static const unsigned int req[] = {
		RBD_OP_LOGIN, RBD_OP_LOGOUT, RBD_OP_NOP, RBD_OP_SCSI_CMD,
		RBD_OP_TMF,
	};
	static const unsigned int rsp[] = {
		RBD_OP_LOGIN_RSP, RBD_OP_LOGOUT_RSP, RBD_OP_NOP_RSP,
		RBD_OP_SCSI_RSP, RBD_OP_TMF_RSP,
	};
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(req[i] & RBD_OP_RSP_BIT, 0);
		assert_int_equal(rsp[i], req[i] | RBD_OP_RSP_BIT);
	}
}

/*
 * The encoding is independent of the host: build a capsule with the
 * conversion helpers and compare it with literal little-endian bytes.
 */
static void test_encoding_cmd(void **state)
{
	static const uint8_t expect[] = {
		/* hdr: opcode, version, flags (le16), length (le32) */
		0x04, 0x01, 0x01, 0x00, 0x58, 0x00, 0x00, 0x00,
		/* tag: qid 2, gen 0x0304, slot 0x05060708 */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x00,
		/* lun */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		/* data_length, nr_desc, dir, task_attr */
		0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x02, 0x01,
		/* cdb_len, reserved[7] */
		0x0a, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t expect_desc[] = {
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
		0x44, 0x33, 0x22, 0x11, 0x00, 0x10, 0x00, 0x00,
	};
	union {
		uint64_t align;
		uint8_t b[sizeof(struct rbd_cmd) + sizeof(struct rbd_desc)];
	} u;
	struct rbd_cmd *cmd = (struct rbd_cmd *)u.b;
	struct rbd_desc *d = (struct rbd_desc *)(cmd + 1);

	(void)state;
	memset(&u, 0, sizeof(u));
	cmd->hdr.opcode = RBD_OP_SCSI_CMD;
	cmd->hdr.version = RBD_PROTO_VERSION;
	cmd->hdr.flags = rbd_cpu_to_le16(RBD_CMD_F_INVALIDATE);
	cmd->hdr.length = rbd_cpu_to_le32(sizeof(u.b));
	cmd->hdr.tag = rbd_cpu_to_le64(rbd_tag(2, 0x0304, 0x05060708));
	cmd->lun = rbd_cpu_to_le64(0x0807060504030201ULL);
	cmd->data_length = rbd_cpu_to_le32(4096);
	cmd->nr_desc = rbd_cpu_to_le16(1);
	cmd->dir = RBD_DIR_READ;
	cmd->task_attr = RBD_TASK_ORDERED;
	cmd->cdb_len = 10;
	d->addr = rbd_cpu_to_le64(0x0123456789abcdefULL);
	d->rkey = rbd_cpu_to_le32(0x11223344);
	d->len = rbd_cpu_to_le32(4096);

	assert_memory_equal(u.b, expect, sizeof(expect));
	assert_memory_equal(u.b + sizeof(*cmd), expect_desc,
			    sizeof(expect_desc));
}

static void test_encoding_decode(void **state)
{
	static const uint8_t b16[2] = { 0x34, 0x12 };
	static const uint8_t b32[4] = { 0x78, 0x56, 0x34, 0x12 };
	static const uint8_t b64[8] = {
		0xf0, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12,
	};
	__le16 v16;
	__le32 v32;
	__le64 v64;

	(void)state;
	memcpy(&v16, b16, sizeof(v16));
	memcpy(&v32, b32, sizeof(v32));
	memcpy(&v64, b64, sizeof(v64));
	assert_int_equal(rbd_le16(v16), 0x1234);
	assert_int_equal(rbd_le32(v32), 0x12345678);
	assert_int_equal(rbd_le64(v64), 0x123456789abcdef0ULL);

	/* Round trips, including the extreme values. */
	assert_int_equal(rbd_le16(rbd_cpu_to_le16(0xffff)), 0xffff);
	assert_int_equal(rbd_le32(rbd_cpu_to_le32(0x80000001)), 0x80000001);
	assert_int_equal(rbd_le64(rbd_cpu_to_le64(~0ULL)), ~0ULL);
}

static void test_encoding_magic(void **state)
{
	struct rbd_cm_req req;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.magic = rbd_cpu_to_le32(RBD_CM_MAGIC);
	assert_memory_equal(&req.magic, "RBDP", 4);
}

static void test_tags(void **state)
{
	uint64_t tag;

	(void)state;
	tag = rbd_tag(5, 0xbeef, 1023);
	assert_int_equal(tag, 0x0005beef000003ffULL);
	assert_int_equal(rbd_tag_qid(tag), 5);
	assert_int_equal(rbd_tag_gen(tag), 0xbeef);
	assert_int_equal(rbd_tag_slot(tag), 1023);

	tag = rbd_tag(0xffff, 0xffff, 0xffffffff);
	assert_int_equal(tag, ~0ULL);
	assert_int_equal(rbd_tag_qid(tag), 0xffff);
	assert_int_equal(rbd_tag_gen(tag), 0xffff);
	assert_int_equal(rbd_tag_slot(tag), 0xffffffff);

	assert_int_equal(rbd_tag(0, 0, 0), 0);
	/* Same slot on different queues gives different tags. */
	assert_true(rbd_tag(1, 0, 7) != rbd_tag(2, 0, 7));
}

static void test_capsule_sizes(void **state)
{
	(void)state;
	assert_int_equal(rbd_cmd_capsule_max(4096, 8), 72 + 4096);
	assert_int_equal(rbd_cmd_capsule_max(0, 32), 72 + 32 * 16);
	assert_int_equal(rbd_cmd_capsule_max(0, 0), 72);
	assert_int_equal(rbd_cmd_capsule_max(RBD_MAX_INLINE_WRITE, RBD_MAX_DESC),
			 72 + RBD_MAX_INLINE_WRITE);
	assert_int_equal(rbd_cmd_capsule_max(0, 0xffff), 72 + 0xffff * 16);
	assert_int_equal(rbd_rsp_capsule_max(0), 32 + 96);
	assert_int_equal(rbd_rsp_capsule_max(16384), 32 + 16384 + 96);
}

static void test_cdb_implied_len(void **state)
{
	uint8_t cdb[RBD_MAX_CDB_LEN];

	(void)state;
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x00;	/* TEST UNIT READY */
	assert_int_equal(rbd_cdb_implied_len(cdb), 6);
	cdb[0] = 0x28;	/* READ(10) */
	assert_int_equal(rbd_cdb_implied_len(cdb), 10);
	cdb[0] = 0x5a;	/* MODE SENSE(10) */
	assert_int_equal(rbd_cdb_implied_len(cdb), 10);
	cdb[0] = 0xa0;	/* REPORT LUNS */
	assert_int_equal(rbd_cdb_implied_len(cdb), 12);
	cdb[0] = 0x88;	/* READ(16) */
	assert_int_equal(rbd_cdb_implied_len(cdb), 16);
	cdb[0] = 0xc0;	/* vendor specific */
	assert_int_equal(rbd_cdb_implied_len(cdb), 10);
	cdb[0] = 0x7f;	/* VARIABLE LENGTH */
	cdb[7] = 0x18;
	assert_int_equal(rbd_cdb_implied_len(cdb), 32);
	cdb[7] = 0xff;
	assert_int_equal(rbd_cdb_implied_len(cdb), 263);
}

static void test_reject_str(void **state)
{
	const char *s[RBD_REJ_NR];
	const char *unknown = rbd_reject_str(0xffff);
	unsigned int i, j;

	(void)state;
	assert_non_null(unknown);
	assert_true(unknown[0] != '\0');
	for (i = 0; i < RBD_REJ_NR; i++) {
		s[i] = rbd_reject_str((__u16)i);
		assert_non_null(s[i]);
		assert_true(s[i][0] != '\0');
		assert_string_not_equal(s[i], unknown);
		for (j = 0; j < i; j++)
			assert_string_not_equal(s[i], s[j]);
	}
	assert_string_equal(rbd_reject_str(RBD_REJ_NR), unknown);
	assert_string_equal(rbd_reject_str(0x100), unknown);
	assert_string_equal(rbd_reject_str(RBD_REJ_NO_LUN), "no such LUN");
}

static void test_opcode_str(void **state)
{
	static const __u8 ops[] = {
		RBD_OP_LOGIN, RBD_OP_LOGOUT, RBD_OP_NOP, RBD_OP_SCSI_CMD,
		RBD_OP_TMF, RBD_OP_LOGIN_RSP, RBD_OP_LOGOUT_RSP,
		RBD_OP_NOP_RSP, RBD_OP_SCSI_RSP, RBD_OP_TMF_RSP,
	};
	const char *unknown = rbd_opcode_str(0);
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(ops); i++) {
		assert_true(rbd_opcode_str(ops[i])[0] != '\0');
		assert_string_not_equal(rbd_opcode_str(ops[i]), unknown);
		for (j = 0; j < i; j++)
			assert_string_not_equal(rbd_opcode_str(ops[i]),
						rbd_opcode_str(ops[j]));
	}
	assert_string_equal(rbd_opcode_str(RBD_OP_RSP_BIT), unknown);
	assert_string_equal(rbd_opcode_str(0xff), unknown);
}

static void test_check_str(void **state)
{
	const char *unknown = rbd_check_str(RBD_CHECK_NR);
	unsigned int i, j;

	(void)state;
	assert_true(unknown[0] != '\0');
	for (i = 0; i < RBD_CHECK_NR; i++) {
		const char *s = rbd_check_str((enum rbd_check)i);

		assert_true(s[0] != '\0');
		assert_string_not_equal(s, unknown);
		for (j = 0; j < i; j++)
			assert_string_not_equal(s,
						rbd_check_str((enum rbd_check)j));
	}
	assert_string_equal(rbd_check_str((enum rbd_check)1000), unknown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_sizes_aligned),
		cmocka_unit_test(test_pdata_budgets),
		cmocka_unit_test(test_offsets_cm),
		cmocka_unit_test(test_offsets_hdr_login),
		cmocka_unit_test(test_offsets_io),
		cmocka_unit_test(test_offsets_ctrl),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_feature_bits),
		cmocka_unit_test(test_opcodes),
		cmocka_unit_test(test_encoding_cmd),
		cmocka_unit_test(test_encoding_decode),
		cmocka_unit_test(test_encoding_magic),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_capsule_sizes),
		cmocka_unit_test(test_cdb_implied_len),
		cmocka_unit_test(test_reject_str),
		cmocka_unit_test(test_opcode_str),
		cmocka_unit_test(test_bare_rsp),
		cmocka_unit_test(test_rsp_batch_max),
		cmocka_unit_test(test_check_str),
	};

	return cmocka_run_group_tests_name("rbd_proto layout", tests, NULL,
					   NULL);
}
