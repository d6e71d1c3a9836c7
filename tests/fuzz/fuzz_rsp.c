// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: SCSI response capsules as the initiator receives
 * them. Covers rbd_check_rsp(), its agreement with rbd_check_response(),
 * and the bare response encoding (rbd_bare_rsp(), rbd_bare_rsp_tag()) of
 * the input's first four bytes taken as immediate data. An accepted
 * response is re-checked: length, tag, flags, residual, sense and
 * immediate data lengths, credit window.
 */
#include "fuzz.h"

static void rsp_ok(const uint8_t *p, size_t len,
		   const struct rbd_check_limits *lim)
{
	const struct rbd_rsp *rsp = (const struct rbd_rsp *)p;
	uint64_t tag = rbd_le64(rsp->hdr.tag);
	uint16_t flags = rbd_le16(rsp->hdr.flags);
	uint16_t credits = rbd_le16(rsp->credits);
	uint16_t sense_len = rbd_le16(rsp->sense_len);
	uint32_t imm_len = rbd_le32(rsp->imm_len);

	FUZZ_ASSERT(lim->qid != 0);
	FUZZ_ASSERT(rbd_le32(rsp->hdr.length) == len);
	FUZZ_ASSERT(rbd_tag_qid(tag) == lim->qid);
	FUZZ_ASSERT(rbd_tag_slot(tag) < lim->queue_depth);
	FUZZ_ASSERT(!(flags & ~RBD_RSP_F_ALL));
	if (flags & RBD_RSP_F_INVALIDATED)
		FUZZ_ASSERT(lim->features & RBD_FEAT_REMOTE_INV);
	FUZZ_ASSERT((flags & (RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW)) !=
		    (RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW));
	if (rsp->residual)
		FUZZ_ASSERT(flags & (RBD_RSP_F_UNDERFLOW | RBD_RSP_F_OVERFLOW));
	FUZZ_ASSERT(sense_len <= RBD_MAX_SENSE_LEN);
	FUZZ_ASSERT(imm_len <= lim->imm_read_size);
	FUZZ_ASSERT(len == sizeof(*rsp) + imm_len + sense_len);
	FUZZ_ASSERT(len <= rbd_rsp_capsule_max(lim->imm_read_size));
	FUZZ_ASSERT(credits >= 1 && credits <= lim->queue_depth);
	if (credits != lim->queue_depth)
		FUZZ_ASSERT(lim->features & RBD_FEAT_CREDIT_WINDOW);
}

static void bare(const uint8_t *p)
{
	uint32_t imm = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	uint64_t tag = rbd_bare_rsp_tag(FUZZ_QID, imm);

	FUZZ_ASSERT(rbd_tag_qid(tag) == FUZZ_QID);
	FUZZ_ASSERT(rbd_tag_slot(tag) <= 0xffff);
	FUZZ_ASSERT(rbd_bare_rsp(tag) == imm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 0);
	enum rbd_check c, r;
	size_t i;

	if (size >= 4)
		bare(p);
	for (i = 0; i < ARRAY_SIZE(fuzz_lims); i++) {
		const struct rbd_check_limits *lim = fuzz_lims[i];

		c = rbd_check_rsp(p, size, lim);
		fuzz_outcome(c);
		r = rbd_check_response(p, size, lim, NULL);
		fuzz_outcome(r);
		if (size < sizeof(struct rbd_hdr))
			FUZZ_ASSERT(r == RBD_CHECK_SHORT &&
				    c == RBD_CHECK_SHORT);
		else if (fuzz_is(p, size, RBD_OP_SCSI_RSP))
			FUZZ_ASSERT(r == (lim->qid ? c : RBD_CHECK_BAD_OPCODE));
		if (c == RBD_CHECK_OK)
			rsp_ok(p, size, lim);
	}
	fuzz_free(p, 0);
	return 0;
}
