// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: DISCOVER requests (target side) and responses
 * (initiator side). Covers rbd_check_discover_req(), its dispatch by
 * rbd_check_request() on queue 0, and rbd_check_discover_rsp() with and
 * without the request to compare against. An accepted response is
 * re-checked: a refusal carries nothing but its status; an answer has a
 * valid target name, 1 to 32 strictly ascending LUNs at or above the
 * requested start, zero padding after them, and an index below the count.
 */
#include "fuzz.h"

/* The DISCOVER request of the unit tests (build_discover_req()). */
static struct rbd_discover_req req;

static void req_init(void)
{
	memset(&req, 0, sizeof(req));
	req.hdr.opcode = RBD_OP_DISCOVER;
	req.hdr.version = RBD_PROTO_VERSION;
	req.hdr.length = rbd_cpu_to_le32(sizeof(req));
	req.hdr.tag = rbd_cpu_to_le64(rbd_tag(0, 9, 1));
	req.start_lun = rbd_cpu_to_le64(2);
	strcpy(req.initiator_name, "iqn.2026-12.org.example:host1");
	FUZZ_ASSERT(rbd_check_discover_req(&req, sizeof(req)) == RBD_CHECK_OK);
}

static void rsp_ok(const uint8_t *p, size_t size,
		   const struct rbd_discover_req *q)
{
	const struct rbd_discover_rsp *rsp = (const struct rbd_discover_rsp *)p;
	uint16_t nr = rbd_le16(rsp->nr_luns), i;

	fuzz_ctrl_ok(p, size, 0);
	FUZZ_ASSERT(rbd_le16(rsp->status) < RBD_REJ_NR);
	if (q)
		FUZZ_ASSERT(rsp->hdr.tag == q->hdr.tag);
	if (rsp->status) {
		FUZZ_ASSERT(!nr && !rsp->flags && !rsp->index && !rsp->tpgt);
		FUZZ_ASSERT(!rsp->target_name[0]);
		return;
	}
	FUZZ_ASSERT(nr >= 1 && nr <= RBD_DISCOVER_MAX_LUNS);
	FUZZ_ASSERT(!(rbd_le16(rsp->flags) & ~RBD_DISCOVER_MORE_LUNS));
	FUZZ_ASSERT(rbd_le32(rsp->index) < rbd_le32(rsp->nr_entries));
	fuzz_name_ok(rsp->target_name);
	for (i = 0; i < RBD_DISCOVER_MAX_LUNS; i++) {
		uint64_t lun = rbd_le64(rsp->luns[i]);

		if (i >= nr)
			FUZZ_ASSERT(!lun);
		else if (i)
			FUZZ_ASSERT(lun > rbd_le64(rsp->luns[i - 1]));
		if (q && i < nr)
			FUZZ_ASSERT(lun >= rbd_le64(q->start_lun));
	}
	if (q)
		FUZZ_ASSERT(rsp->index == q->index);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 0);
	enum rbd_check c, cq, r;

	if (!req.hdr.opcode)
		req_init();

	c = rbd_check_discover_req(p, size);
	fuzz_outcome(c);
	if (c == RBD_CHECK_OK) {
		fuzz_ctrl_ok(p, size, 0);
		fuzz_name_ok(((const struct rbd_discover_req *)p)->initiator_name);
	}
	r = rbd_check_request(p, size, &fuzz_lim_q0);
	if (fuzz_is(p, size, RBD_OP_DISCOVER)) {
		FUZZ_ASSERT(r == c);
		FUZZ_ASSERT(rbd_check_request(p, size, &fuzz_lim_io) ==
			    RBD_CHECK_BAD_OPCODE);
	}

	c = rbd_check_discover_rsp(p, size, NULL);
	cq = rbd_check_discover_rsp(p, size, &req);
	fuzz_outcome(c);
	fuzz_outcome(cq);
	if (cq == RBD_CHECK_OK)
		FUZZ_ASSERT(c == RBD_CHECK_OK);
	if (c == RBD_CHECK_OK)
		rsp_ok(p, size, NULL);
	if (cq == RBD_CHECK_OK)
		rsp_ok(p, size, &req);
	fuzz_free(p, 0);
	return 0;
}
