// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: control capsules as the target receives them on
 * queue 0 and on an I/O queue. Covers rbd_check_request() and its
 * agreement with the validator it dispatches to: rbd_check_login_req(),
 * rbd_check_logout(), rbd_check_tmf_req(), rbd_check_nop(),
 * rbd_check_discover_req(), rbd_check_auth_begin(), rbd_check_auth_proof()
 * and rbd_check_cmd(); each of them is also run on every input directly.
 * Accepted capsules are re-checked: header, names, user names, negotiated
 * ranges, TMF reference tag, challenge and hash.
 */
#include "fuzz.h"

static void login_ok(const uint8_t *p)
{
	const struct rbd_login_req *r = (const struct rbd_login_req *)p;
	uint32_t io = rbd_le32(r->max_io_bytes);

	fuzz_name_ok(r->initiator_name);
	fuzz_name_ok(r->target_name);
	FUZZ_ASSERT(io >= RBD_MIN_IO_BYTES && io <= RBD_MAX_IO_BYTES &&
		    !(io % RBD_IO_BYTES_ALIGN));
	FUZZ_ASSERT(rbd_le32(r->inline_write_size) <= RBD_MAX_INLINE_WRITE);
	FUZZ_ASSERT(rbd_le32(r->imm_read_size) <= RBD_MAX_IMM_READ);
	FUZZ_ASSERT(rbd_le16(r->queue_depth) >= RBD_MIN_QUEUE_DEPTH &&
		    rbd_le16(r->queue_depth) <= RBD_MAX_QUEUE_DEPTH);
	FUZZ_ASSERT(rbd_le16(r->nr_queues) >= RBD_MIN_NR_QUEUES &&
		    rbd_le16(r->nr_queues) <= RBD_MAX_NR_QUEUES);
	FUZZ_ASSERT(rbd_le16(r->max_desc) >= RBD_MIN_DESC &&
		    rbd_le16(r->max_desc) <= RBD_MAX_DESC);
	FUZZ_ASSERT(!r->instance ||
		    (rbd_le64(r->features) & RBD_FEAT_REINSTATE));
}

/* What rbd_check_request() must return for a header-valid capsule. */
static enum rbd_check expected(const uint8_t *p, size_t size,
			       const struct rbd_check_limits *lim)
{
	uint32_t q0 = !lim->qid;

	switch (p[0]) {
	case RBD_OP_NOP:
		return rbd_check_nop(p, size, RBD_OP_NOP, lim->qid);
	case RBD_OP_SCSI_CMD:
		return q0 ? RBD_CHECK_BAD_OPCODE : rbd_check_cmd(p, size, lim);
	case RBD_OP_LOGIN:
		return q0 ? rbd_check_login_req(p, size) : RBD_CHECK_BAD_OPCODE;
	case RBD_OP_LOGOUT:
		return q0 ? rbd_check_logout(p, size, RBD_OP_LOGOUT) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_TMF:
		return q0 ? rbd_check_tmf_req(p, size) : RBD_CHECK_BAD_OPCODE;
	case RBD_OP_DISCOVER:
		return q0 ? rbd_check_discover_req(p, size) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_AUTH_BEGIN:
		return q0 ? rbd_check_auth_begin(p, size) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_AUTH_PROOF:
		return q0 ? rbd_check_auth_proof(p, size) :
			    RBD_CHECK_BAD_OPCODE;
	default:
		return RBD_CHECK_BAD_OPCODE;
	}
}

static void auth_direct(const uint8_t *p, size_t size)
{
	const struct rbd_auth_begin *b = (const struct rbd_auth_begin *)p;
	const struct rbd_auth_proof *pr = (const struct rbd_auth_proof *)p;
	enum rbd_check c;

	c = rbd_check_auth_begin(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		FUZZ_ASSERT(b->hash == RBD_AUTH_HMAC_SHA256);
		FUZZ_ASSERT(!(b->flags & ~RBD_AUTH_F_MUTUAL));
		FUZZ_ASSERT(!fuzz_zero(b->challenge, sizeof(b->challenge)));
		fuzz_name_ok(b->initiator_name);
		if (!fuzz_zero(b->target_name, sizeof(b->target_name)))
			fuzz_name_ok(b->target_name);
	}
	c = rbd_check_auth_proof(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		fuzz_user_ok(pr->user);
	}
}

static void direct(const uint8_t *p, size_t size)
{
	const struct rbd_tmf_req *tmf = (const struct rbd_tmf_req *)p;
	enum rbd_check c;

	c = rbd_check_login_req(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		login_ok(p);
	}
	c = rbd_check_tmf_req(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		FUZZ_ASSERT(tmf->function != RBD_TMF_LUN_RESET ||
			    !tmf->ref_tag);
	}
	c = rbd_check_nop(p, size, RBD_OP_NOP, FUZZ_QID);
	fuzz_outcome(c);
	if (!c)
		fuzz_ctrl_ok(p, size, FUZZ_QID);
	c = rbd_check_nop(p, size, RBD_OP_NOP, 0);
	fuzz_outcome(c);
	if (!c)
		fuzz_ctrl_ok(p, size, 0);
	c = rbd_check_logout(p, size, RBD_OP_LOGOUT);
	fuzz_outcome(c);
	if (!c)
		fuzz_ctrl_ok(p, size, 0);
	c = rbd_check_discover_req(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		fuzz_name_ok(((const struct rbd_discover_req *)p)->initiator_name);
	}
	auth_direct(p, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 0);
	enum rbd_check r;
	size_t i;

	direct(p, size);
	for (i = 0; i < ARRAY_SIZE(fuzz_lims); i++) {
		const struct rbd_check_limits *lim = fuzz_lims[i];

		r = rbd_check_request(p, size, lim);
		fuzz_outcome(r);
		if (size < sizeof(struct rbd_hdr))
			FUZZ_ASSERT(r == RBD_CHECK_SHORT);
		else if (p[1] != RBD_PROTO_VERSION)
			FUZZ_ASSERT(r == RBD_CHECK_BAD_VERSION);
		else
			FUZZ_ASSERT(r == expected(p, size, lim));
		/* Only requests; nothing with the response bit passes. */
		if (r == RBD_CHECK_OK)
			FUZZ_ASSERT(!(p[0] & RBD_OP_RSP_BIT));
	}
	fuzz_free(p, 0);
	return 0;
}
