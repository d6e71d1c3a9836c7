// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: rdma_cm private data, placed at an odd address as
 * rdma_cm may hand it over unaligned. Covers rbd_check_cm_req() (target
 * side), rbd_check_cm_rep() against a queue 0 and an I/O queue connect
 * request, rbd_check_cm_rej() and rbd_check_reject_reason(). The copy
 * each validator returns must match the input and be zero-filled beyond
 * it; accepted private data is re-checked field by field.
 */
#include "fuzz.h"

static struct rbd_cm_req cm_reqs[2];

static void reqs_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cm_reqs); i++) {
		struct rbd_cm_req *r = &cm_reqs[i];

		memset(r, 0, sizeof(*r));
		r->magic = rbd_cpu_to_le32(RBD_CM_MAGIC);
		r->version = rbd_cpu_to_le16(RBD_PROTO_VERSION);
		r->length = rbd_cpu_to_le16(sizeof(*r));
		r->qid = rbd_cpu_to_le16(i);
		r->features = rbd_cpu_to_le64(RBD_FEAT_ALL);
		if (i) {
			r->queue_depth = rbd_cpu_to_le16(FUZZ_DEPTH);
			r->session_handle =
				rbd_cpu_to_le64(0x1122334455667788ULL);
		}
	}
}

/* @out holds min(@size, @n) bytes of @p and zeros after them. */
static void copied(const void *out, size_t n, const uint8_t *p, size_t size)
{
	size_t k = size < n ? size : n;

	if (size < 8)
		k = 0;
	FUZZ_ASSERT(!k || !memcmp(out, p, k));
	FUZZ_ASSERT(rbd_check_zero((const uint8_t *)out + k, n - k));
}

static void cm_req(const uint8_t *p, size_t size)
{
	struct rbd_cm_req out;
	enum rbd_check c = rbd_check_cm_req(p, size, &out);
	uint16_t qid = rbd_le16(out.qid), depth = rbd_le16(out.queue_depth);

	fuzz_outcome(c);
	copied(&out, sizeof(out), p, size);
	if (c != RBD_CHECK_OK)
		return;
	FUZZ_ASSERT(size >= sizeof(out));
	FUZZ_ASSERT(rbd_le32(out.magic) == RBD_CM_MAGIC);
	FUZZ_ASSERT(rbd_le16(out.version) == RBD_PROTO_VERSION);
	FUZZ_ASSERT(rbd_le16(out.length) == sizeof(out));
	FUZZ_ASSERT(qid <= RBD_MAX_NR_QUEUES);
	FUZZ_ASSERT(!out.reserved && !out.reserved2);
	if (!qid)
		FUZZ_ASSERT(!depth && !out.session_handle);
	else
		FUZZ_ASSERT(out.session_handle && depth >= RBD_MIN_QUEUE_DEPTH &&
			    depth <= RBD_MAX_QUEUE_DEPTH);
}

static void cm_rep(const uint8_t *p, size_t size, const struct rbd_cm_req *req)
{
	struct rbd_cm_rep out;
	enum rbd_check c = rbd_check_cm_rep(p, size, req, &out);

	fuzz_outcome(c);
	copied(&out, sizeof(out), p, size);
	if (c != RBD_CHECK_OK)
		return;
	FUZZ_ASSERT(size >= sizeof(out));
	FUZZ_ASSERT(rbd_le32(out.magic) == RBD_CM_MAGIC);
	FUZZ_ASSERT(out.version == req->version);
	FUZZ_ASSERT(rbd_le16(out.length) == sizeof(out));
	FUZZ_ASSERT(out.qid == req->qid && out.queue_depth == req->queue_depth);
	/* Only queue 0, and only after an offer, hears of a feature. */
	FUZZ_ASSERT(!(rbd_le32(out.flags) & ~(uint32_t)RBD_CM_REP_F_ALL));
	if (out.flags)
		FUZZ_ASSERT(!req->qid);
	if (rbd_le32(out.flags) & RBD_CM_REP_F_AUTH)
		FUZZ_ASSERT(rbd_le64(req->features) & RBD_FEAT_AUTH);
	if (rbd_le32(out.flags) & RBD_CM_REP_F_REINSTATE)
		FUZZ_ASSERT(rbd_le64(req->features) & RBD_FEAT_REINSTATE);
}

static void cm_rej(const uint8_t *p, size_t size)
{
	struct rbd_cm_rej out;
	enum rbd_check c = rbd_check_cm_rej(p, size, &out);

	fuzz_outcome(c);
	copied(&out, sizeof(out), p, size);
	if (c != RBD_CHECK_OK)
		return;
	FUZZ_ASSERT(rbd_le32(out.magic) == RBD_CM_MAGIC);
	FUZZ_ASSERT(rbd_le16(out.length) >= sizeof(out) &&
		    rbd_le16(out.length) <= size);
	FUZZ_ASSERT(out.reason);
	FUZZ_ASSERT(rbd_le16(out.min_version) <= rbd_le16(out.max_version));
	FUZZ_ASSERT(rbd_reject_str(rbd_le16(out.reason)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 1);
	size_t i;

	if (!cm_reqs[0].magic)
		reqs_init();
	cm_req(p, size);
	for (i = 0; i < ARRAY_SIZE(cm_reqs); i++)
		cm_rep(p, size, &cm_reqs[i]);
	cm_rej(p, size);
	fuzz_free(p, 1);
	return 0;
}
