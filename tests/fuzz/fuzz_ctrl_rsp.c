// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: control capsules as the initiator receives them on
 * queue 0 and on an I/O queue. Covers rbd_check_response() and its
 * agreement with the validator it dispatches to: rbd_check_login_rsp()
 * (with and without the LOGIN request to compare against),
 * rbd_check_logout(), rbd_check_tmf_rsp(), rbd_check_nop(),
 * rbd_check_auth_begin_rsp(), rbd_check_auth_proof_rsp() and
 * rbd_check_rsp(); each of them is also run on every input directly. An
 * accepted LOGIN response must grant no more than was requested and give
 * limits (rbd_check_limits_init()) inside the protocol ranges; an accepted
 * AUTH response must not reflect the initiator's challenge, and carries a
 * mutual proof exactly when it was asked for.
 */
#include "fuzz.h"

/* The LOGIN request of the unit tests (build_login_req()). */
static struct rbd_login_req login;

static void login_init(void)
{
	memset(&login, 0, sizeof(login));
	login.hdr.opcode = RBD_OP_LOGIN;
	login.hdr.version = RBD_PROTO_VERSION;
	login.hdr.length = rbd_cpu_to_le32(sizeof(login));
	login.hdr.tag = rbd_cpu_to_le64(rbd_tag(0, 9, 1));
	login.features = rbd_cpu_to_le64(RBD_FEAT_ALL | (1ULL << 40));
	login.max_io_bytes = rbd_cpu_to_le32(RBD_DEFAULT_MAX_IO_BYTES);
	login.inline_write_size = rbd_cpu_to_le32(RBD_DEFAULT_INLINE_WRITE);
	login.imm_read_size = rbd_cpu_to_le32(RBD_DEFAULT_IMM_READ);
	login.keepalive_ms = rbd_cpu_to_le32(RBD_DEFAULT_KEEPALIVE_MS);
	login.queue_depth = rbd_cpu_to_le16(RBD_DEFAULT_QUEUE_DEPTH);
	login.nr_queues = rbd_cpu_to_le16(RBD_DEFAULT_NR_QUEUES);
	login.max_desc = rbd_cpu_to_le16(RBD_DEFAULT_MAX_DESC);
	login.instance = rbd_cpu_to_le64(0x5eed5eed5eed5eedULL);
	strcpy(login.initiator_name, "iqn.2024-01.org.example:host-1");
	strcpy(login.target_name, "iqn.2003-01.org.linux-iscsi.t1:sn.1234");
	FUZZ_ASSERT(rbd_check_login_req(&login, sizeof(login)) ==
		    RBD_CHECK_OK);
}

static void login_rsp(const uint8_t *p, size_t size)
{
	const struct rbd_login_rsp *rsp = (const struct rbd_login_rsp *)p;
	struct rbd_check_limits lim;
	enum rbd_check c, cr;

	c = rbd_check_login_rsp(p, size, NULL);
	cr = rbd_check_login_rsp(p, size, &login);
	fuzz_outcome(c);
	fuzz_outcome(cr);
	/* The comparison with the request only adds refusals. */
	if (cr == RBD_CHECK_OK)
		FUZZ_ASSERT(c == RBD_CHECK_OK);
	if (c != RBD_CHECK_OK)
		return;
	fuzz_ctrl_ok(p, size, 0);
	FUZZ_ASSERT(rbd_le16(rsp->status) < RBD_REJ_NR);
	if (rsp->status) {
		FUZZ_ASSERT(!rsp->session_handle && !rsp->features);
		return;
	}
	FUZZ_ASSERT(rsp->session_handle);
	FUZZ_ASSERT(!(rbd_le64(rsp->features) & ~RBD_FEAT_ALL));
	rbd_check_limits_init(&lim, rsp, FUZZ_QID, rbd_le16(rsp->queue_depth));
	FUZZ_ASSERT(lim.max_io_bytes >= RBD_MIN_IO_BYTES &&
		    lim.max_io_bytes <= RBD_MAX_IO_BYTES);
	FUZZ_ASSERT(lim.inline_write_size <= RBD_MAX_INLINE_WRITE);
	FUZZ_ASSERT(lim.imm_read_size <= RBD_MAX_IMM_READ);
	FUZZ_ASSERT(lim.queue_depth >= RBD_MIN_QUEUE_DEPTH &&
		    lim.queue_depth <= RBD_MAX_QUEUE_DEPTH);
	FUZZ_ASSERT(lim.max_desc >= RBD_MIN_DESC &&
		    lim.max_desc <= RBD_MAX_DESC);
	if (cr != RBD_CHECK_OK)
		return;
	FUZZ_ASSERT(!(lim.features & ~rbd_le64(login.features)));
	FUZZ_ASSERT(lim.max_io_bytes <= rbd_le32(login.max_io_bytes));
	FUZZ_ASSERT(lim.inline_write_size <=
		    rbd_le32(login.inline_write_size));
	FUZZ_ASSERT(lim.imm_read_size <= rbd_le32(login.imm_read_size));
	FUZZ_ASSERT(lim.queue_depth <= rbd_le16(login.queue_depth));
	FUZZ_ASSERT(lim.max_desc <= rbd_le16(login.max_desc));
	FUZZ_ASSERT(rbd_le16(rsp->nr_queues) <= rbd_le16(login.nr_queues));
}

/* The AUTH requests of the unit tests (build_auth_begin/proof()). */
static struct rbd_auth_begin begin;
static struct rbd_auth_proof proof;

static void auth_init(void)
{
	begin.hdr.opcode = RBD_OP_AUTH_BEGIN;
	begin.hdr.version = RBD_PROTO_VERSION;
	begin.hdr.length = rbd_cpu_to_le32(sizeof(begin));
	begin.hdr.tag = rbd_cpu_to_le64(rbd_tag(0, 9, 1));
	begin.hash = RBD_AUTH_HMAC_SHA256;
	begin.flags = RBD_AUTH_F_MUTUAL;
	memset(begin.challenge, 0xa5, sizeof(begin.challenge));
	strcpy(begin.initiator_name, "iqn.2026-12.org.example:host1");
	proof.hdr.opcode = RBD_OP_AUTH_PROOF;
	proof.hdr.version = RBD_PROTO_VERSION;
	proof.hdr.length = rbd_cpu_to_le32(sizeof(proof));
	proof.hdr.tag = rbd_cpu_to_le64(rbd_tag(0, 10, 1));
	strcpy(proof.user, "host1");
	FUZZ_ASSERT(rbd_check_auth_begin(&begin, sizeof(begin)) ==
		    RBD_CHECK_OK);
}

static void auth_rsp(const uint8_t *p, size_t size)
{
	const struct rbd_auth_begin_rsp *br =
		(const struct rbd_auth_begin_rsp *)p;
	const struct rbd_auth_proof_rsp *pr =
		(const struct rbd_auth_proof_rsp *)p;
	enum rbd_check c, cr;

	c = rbd_check_auth_begin_rsp(p, size, NULL);
	cr = rbd_check_auth_begin_rsp(p, size, &begin);
	fuzz_outcome(c);
	fuzz_outcome(cr);
	if (cr == RBD_CHECK_OK) {
		FUZZ_ASSERT(c == RBD_CHECK_OK);
		fuzz_ctrl_ok(p, size, 0);
		if (br->status)
			FUZZ_ASSERT(fuzz_zero(br->challenge,
					      sizeof(br->challenge)));
		else
			FUZZ_ASSERT(memcmp(br->challenge, begin.challenge,
					   sizeof(br->challenge)) &&
				    !fuzz_zero(br->challenge,
					       sizeof(br->challenge)));
	}
	c = rbd_check_auth_proof_rsp(p, size, NULL, NULL);
	cr = rbd_check_auth_proof_rsp(p, size, &begin, &proof);
	fuzz_outcome(c);
	fuzz_outcome(cr);
	if (cr == RBD_CHECK_OK) {
		FUZZ_ASSERT(c == RBD_CHECK_OK);
		fuzz_ctrl_ok(p, size, 0);
		FUZZ_ASSERT(rbd_le16(pr->status) < RBD_REJ_NR);
		if (pr->status) {
			FUZZ_ASSERT(!pr->flags);
			FUZZ_ASSERT(fuzz_zero(pr->proof, sizeof(pr->proof)));
		} else {
			FUZZ_ASSERT(pr->flags == RBD_AUTH_F_MUTUAL);
			fuzz_user_ok(pr->user);
		}
	}
}

static void direct(const uint8_t *p, size_t size)
{
	enum rbd_check c;

	login_rsp(p, size);
	auth_rsp(p, size);
	c = rbd_check_tmf_rsp(p, size);
	fuzz_outcome(c);
	if (!c) {
		fuzz_ctrl_ok(p, size, 0);
		FUZZ_ASSERT(((const struct rbd_tmf_rsp *)p)->response <=
			    RBD_TMF_RSP_REJECTED);
	}
	c = rbd_check_nop(p, size, RBD_OP_NOP_RSP, FUZZ_QID);
	fuzz_outcome(c);
	if (!c)
		fuzz_ctrl_ok(p, size, FUZZ_QID);
	c = rbd_check_logout(p, size, RBD_OP_LOGOUT_RSP);
	fuzz_outcome(c);
	if (!c)
		fuzz_ctrl_ok(p, size, 0);
}

/* What rbd_check_response() must return for a header-valid capsule. */
static enum rbd_check expected(const uint8_t *p, size_t size,
			       const struct rbd_check_limits *lim,
			       const struct rbd_login_req *req)
{
	uint32_t q0 = !lim->qid;

	switch (p[0]) {
	case RBD_OP_NOP_RSP:
		return rbd_check_nop(p, size, RBD_OP_NOP_RSP, lim->qid);
	case RBD_OP_SCSI_RSP:
		return q0 ? RBD_CHECK_BAD_OPCODE : rbd_check_rsp(p, size, lim);
	case RBD_OP_LOGIN_RSP:
		return q0 ? rbd_check_login_rsp(p, size, req) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_LOGOUT_RSP:
		return q0 ? rbd_check_logout(p, size, RBD_OP_LOGOUT_RSP) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_TMF_RSP:
		return q0 ? rbd_check_tmf_rsp(p, size) : RBD_CHECK_BAD_OPCODE;
	case RBD_OP_AUTH_BEGIN_RSP:
		return q0 ? rbd_check_auth_begin_rsp(p, size, NULL) :
			    RBD_CHECK_BAD_OPCODE;
	case RBD_OP_AUTH_PROOF_RSP:
		return q0 ? rbd_check_auth_proof_rsp(p, size, NULL, NULL) :
			    RBD_CHECK_BAD_OPCODE;
	default:
		/* DISCOVER_RSP included: rbd_check_discover_rsp() only. */
		return RBD_CHECK_BAD_OPCODE;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 0);
	const struct rbd_login_req *req;
	enum rbd_check r;
	size_t i, j;

	if (!login.hdr.opcode) {
		login_init();
		auth_init();
	}
	direct(p, size);
	for (i = 0; i < ARRAY_SIZE(fuzz_lims); i++) {
		for (j = 0; j < 2; j++) {
			const struct rbd_check_limits *lim = fuzz_lims[i];

			req = j ? &login : NULL;
			r = rbd_check_response(p, size, lim, req);
			fuzz_outcome(r);
			if (size < sizeof(struct rbd_hdr))
				FUZZ_ASSERT(r == RBD_CHECK_SHORT);
			else if (p[1] != RBD_PROTO_VERSION)
				FUZZ_ASSERT(r == RBD_CHECK_BAD_VERSION);
			else
				FUZZ_ASSERT(r == expected(p, size, lim, req));
			if (r == RBD_CHECK_OK)
				FUZZ_ASSERT(p[0] & RBD_OP_RSP_BIT);
		}
	}
	fuzz_free(p, 0);
	return 0;
}
