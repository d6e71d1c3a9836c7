// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: SCSI command capsules as the target receives them.
 * Covers rbd_check_cmd(), its agreement with rbd_check_request(),
 * rbd_check_cmd_fatal(), rbd_cdb_implied_len() and rbd_cdb_dirs(), on an
 * I/O queue with every feature, one with the smallest limits, and queue 0.
 * An accepted command is re-checked by an independent oracle: length,
 * tag, CDB, direction against the CDB, and descriptors summing to the
 * data length.
 */
#include "fuzz.h"

static void cmd_ok(const uint8_t *p, size_t len,
		   const struct rbd_check_limits *lim)
{
	const struct rbd_cmd *cmd = (const struct rbd_cmd *)p;
	const struct rbd_desc *d = (const struct rbd_desc *)(cmd + 1);
	uint32_t data_len = rbd_le32(cmd->data_length);
	uint16_t nr = rbd_le16(cmd->nr_desc), i;
	uint64_t tag = rbd_le64(cmd->hdr.tag), sum = 0;

	FUZZ_ASSERT(lim->qid != 0);
	FUZZ_ASSERT(len >= sizeof(*cmd));
	FUZZ_ASSERT(rbd_le32(cmd->hdr.length) == len);
	FUZZ_ASSERT(rbd_tag_qid(tag) == lim->qid);
	FUZZ_ASSERT(rbd_tag_slot(tag) < lim->queue_depth);
	FUZZ_ASSERT(!(rbd_le16(cmd->hdr.flags) & ~RBD_CMD_F_ALL));
	FUZZ_ASSERT(cmd->cdb_len >= RBD_MIN_CDB_LEN &&
		    cmd->cdb_len <= RBD_MAX_CDB_LEN);
	FUZZ_ASSERT(cmd->cdb[0] != 0x7f || cmd->cdb[7] + 8 <= cmd->cdb_len);
	FUZZ_ASSERT(cmd->task_attr <= RBD_TASK_ACA);
	FUZZ_ASSERT(cmd->dir <= RBD_DIR_READ);
	FUZZ_ASSERT(rbd_cdb_dirs(cmd->cdb) & (1U << cmd->dir));
	FUZZ_ASSERT(data_len <= lim->max_io_bytes);
	FUZZ_ASSERT(nr <= lim->max_desc);
	FUZZ_ASSERT((cmd->dir == RBD_DIR_NONE) == (data_len == 0));
	if (rbd_le16(cmd->hdr.flags) & RBD_CMD_F_INVALIDATE)
		FUZZ_ASSERT(nr && (lim->features & RBD_FEAT_REMOTE_INV));
	if (nr) {
		FUZZ_ASSERT(len == sizeof(*cmd) + nr * sizeof(*d));
		for (i = 0; i < nr; i++) {
			uint64_t addr = rbd_le64(d[i].addr);
			uint32_t dlen = rbd_le32(d[i].len);

			FUZZ_ASSERT(dlen && addr + (dlen - 1) >= addr);
			sum += dlen;
		}
		FUZZ_ASSERT(sum == data_len);
	} else if (cmd->dir == RBD_DIR_WRITE) {
		FUZZ_ASSERT(data_len <= lim->inline_write_size);
		FUZZ_ASSERT(len == sizeof(*cmd) + data_len);
	} else {
		FUZZ_ASSERT(len == sizeof(*cmd));
		if (cmd->dir == RBD_DIR_READ)
			FUZZ_ASSERT(data_len <= lim->imm_read_size);
	}
}

static void cdb_helpers(const uint8_t *cdb)
{
	unsigned int dirs = rbd_cdb_dirs(cdb), n = rbd_cdb_implied_len(cdb);

	FUZZ_ASSERT(!(dirs & ~RBD_DIRS_ANY));
	FUZZ_ASSERT(n >= 6 && n <= 263);
	/* One of the documented sets, never READ and WRITE without NONE. */
	FUZZ_ASSERT(dirs == 0 || dirs == RBD_DIRS_NONE || dirs == RBD_DIRS_IN ||
		    dirs == RBD_DIRS_OUT || dirs == RBD_DIRS_OUT0 ||
		    dirs == RBD_DIRS_ANY);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size, 0);
	enum rbd_check c, r;
	size_t i;
	int fatal;

	if (size >= sizeof(struct rbd_cmd))
		cdb_helpers(((const struct rbd_cmd *)p)->cdb);
	for (i = 0; i < ARRAY_SIZE(fuzz_lims); i++) {
		const struct rbd_check_limits *lim = fuzz_lims[i];

		c = rbd_check_cmd(p, size, lim);
		fuzz_outcome(c);
		fatal = rbd_check_cmd_fatal(c);
		FUZZ_ASSERT(fatal == (c >= RBD_CHECK_SHORT &&
				      c <= RBD_CHECK_BAD_TAG));
		r = rbd_check_request(p, size, lim);
		fuzz_outcome(r);
		if (size < sizeof(struct rbd_hdr))
			FUZZ_ASSERT(r == RBD_CHECK_SHORT &&
				    c == RBD_CHECK_SHORT);
		else if (fuzz_is(p, size, RBD_OP_SCSI_CMD))
			FUZZ_ASSERT(r == (lim->qid ? c : RBD_CHECK_BAD_OPCODE));
		if (c == RBD_CHECK_OK)
			cmd_ok(p, size, lim);
	}
	FUZZ_ASSERT(rbd_check_cmd(NULL, size, &fuzz_lim_io) ==
		    RBD_CHECK_SHORT);
	fuzz_free(p, 0);
	return 0;
}
