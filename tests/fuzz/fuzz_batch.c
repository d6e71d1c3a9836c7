// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: response batches (%RBD_FEAT_RSP_BATCH) as rbdi
 * receives them (rbdi_blk_rsp(), rbdi_blk_rsp_batch()). A receive longer
 * than 32 bytes whose first response says length 32 is a batch: a
 * multiple of 32 bytes, at most rbd_rsp_batch_max() responses, each
 * without immediate or sense data and accepted by rbd_check_rsp() on its
 * own 32 bytes (each copied to its own exact-size buffer). Anything else
 * goes to rbd_check_rsp() whole. Also covers rbd_rsp_batch_max() and
 * rbd_rsp_capsule_max() for an imm_read_size taken from the input.
 */
#include "fuzz.h"

#define RSP_SIZE	sizeof(struct rbd_rsp)

/* The batch rule; returns the number of responses, 0 if refused. */
static size_t batch(const uint8_t *p, size_t size,
		    const struct rbd_check_limits *lim)
{
	size_t n = size / RSP_SIZE, i;
	enum rbd_check c;
	uint32_t got = 0;
	int bad = 0;

	c = rbd_check_rsp_batch(size, lim, &got);
	fuzz_outcome(c);
	if (size % RSP_SIZE || n > rbd_rsp_batch_max(lim->imm_read_size)) {
		FUZZ_ASSERT(c == RBD_CHECK_BAD_LENGTH);
		return 0;
	}
	FUZZ_ASSERT(n >= 2);
	FUZZ_ASSERT(c == RBD_CHECK_OK && got == n);
	for (i = 0; i < n; i++) {
		uint8_t *e = fuzz_copy(p + i * RSP_SIZE, RSP_SIZE, 0);
		const struct rbd_rsp *rsp = (const struct rbd_rsp *)e;

		c = rbd_check_rsp(e, RSP_SIZE, lim);
		fuzz_outcome(c);
		if (rsp->imm_len || rsp->sense_len)
			FUZZ_ASSERT(c != RBD_CHECK_OK);
		if (c)
			bad = 1;
		else
			FUZZ_ASSERT(rbd_le32(rsp->hdr.length) == RSP_SIZE);
		fuzz_free(e, 0);
	}
	if (bad)
		return 0;
	FUZZ_ASSERT(size <= rbd_rsp_capsule_max(lim->imm_read_size));
	return n;
}

static void batch_max(const uint8_t *p)
{
	uint32_t imm = ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			(uint32_t)p[2] << 16) % (RBD_MAX_IMM_READ + 1);
	uint32_t n = rbd_rsp_batch_max(imm);

	FUZZ_ASSERT(n >= 4 && n <= RBD_RSP_BATCH_MAX);
	FUZZ_ASSERT(n * RSP_SIZE <= rbd_rsp_capsule_max(imm));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rbd_check_limits lim = fuzz_lim_io;
	uint8_t *p = fuzz_copy(data, size, 0);
	const struct rbd_rsp *rsp = (const struct rbd_rsp *)p;
	size_t i;

	if (size >= 3)
		batch_max(p);
	/* Batches under the largest and the smallest receive buffer. */
	for (i = 0; i < 2; i++) {
		int is_batch = size > RSP_SIZE &&
			       rbd_le32(rsp->hdr.length) == RSP_SIZE;

		lim.imm_read_size = i ? 0 : fuzz_lim_io.imm_read_size;
		FUZZ_ASSERT(rbd_rsp_is_batch(p, size, &lim) ==
			    (is_batch && (lim.features & RBD_FEAT_RSP_BATCH)));
		if (is_batch)
			batch(p, size, &lim);
		else
			fuzz_outcome(rbd_check_rsp(p, size, &lim));
	}
	fuzz_free(p, 0);
	return 0;
}
