// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the SCSI side of the disk: the commands rbdi sends itself, and
 * what the SCSI outcome of a filesystem request means to the block layer.
 *
 * The commands go as passthrough requests (REQ_OP_DRV_IN) through the
 * disk's own queue (rbdi_exec_pt()), before add_disk() and at a rescan:
 *
 *  - READ CAPACITY(16): capacity and block sizes (rbdi_probe_lun(), and
 *    again for a rescan: /sys/block/rbdiN/rbd/rescan, or a UNIT
 *    ATTENTION CAPACITY DATA HAS CHANGED on any command, which resizes
 *    the disk);
 *  - MODE SENSE(10) of the caching page: write cache and FUA;
 *  - standard INQUIRY and VPD pages 0x80 and 0x83: the identification
 *    shown in /sys/block/rbdiN/rbd/ (rbdi_sysfs.c);
 *  - VPD pages 0xb0, 0xb1 and 0xb2: the provisioning limits, which with
 *    the above become the queue limits (rbdi_set_limits()).
 *
 * rbdi_scsi_sts() turns the status and sense data of a completed
 * filesystem request into a block status, or a retry.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include "rbdi.h"

/* Buffer for standard INQUIRY and VPD pages. */
#define RBDI_INQ_LEN		96
#define RBDI_VPD_LEN		1024

/**
 * struct rbdi_pt - a passthrough command and its outcome
 * @cdb: The CDB.
 * @cdb_len: Its length.
 * @status: SCSI status.
 * @sense_len: Valid bytes in @sense.
 * @resid: Residual (positive: underflow).
 * @sense: Sense data.
 */
struct rbdi_pt {
	u8 cdb[RBD_MAX_CDB_LEN];
	u8 cdb_len;
	u8 status;
	u16 sense_len;
	s32 resid;
	u8 sense[RBD_MAX_SENSE_LEN];
};

/* Run @pt, reading up to @len bytes into @buf (kmalloc'ed). */
static int rbdi_exec_pt(struct rbdi_session *sess, struct rbdi_pt *pt,
			void *buf, unsigned int len)
{
	struct request_queue *q = sess->disk->queue;
	struct rbdi_request *req;
	struct request *rq;
	blk_status_t sts;
	int ret;

	rq = blk_mq_alloc_request(q, REQ_OP_DRV_IN, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	req = blk_mq_rq_to_pdu(rq);
	memcpy(req->cdb, pt->cdb, sizeof(req->cdb));
	req->cdb_len = pt->cdb_len;
	if (len) {
		ret = blk_rq_map_kern(q, rq, buf, len, GFP_KERNEL);
		if (ret)
			goto out_free_rq;
	}
	sts = blk_execute_rq(rq, false);
	ret = blk_status_to_errno(sts);
	pt->status = req->status;
	pt->resid = req->resid;
	pt->sense_len = req->sense_len;
	memcpy(pt->sense, req->sense, req->sense_len);
out_free_rq:
	blk_mq_free_request(rq);
	return ret;
}

/* Run @pt until it succeeds; retries UNIT ATTENTION and BUSY. */
static int rbdi_exec_pt_retry(struct rbdi_session *sess, struct rbdi_pt *pt,
			      void *buf, unsigned int len)
{
	struct scsi_sense_hdr sshdr;
	int i, ret;

	for (i = 0; i < RBDI_MAX_RETRIES; i++) {
		ret = rbdi_exec_pt(sess, pt, buf, len);
		if (ret)
			return ret;
		if (pt->status == SAM_STAT_GOOD)
			return 0;
		if (pt->status == SAM_STAT_CHECK_CONDITION &&
		    scsi_normalize_sense(pt->sense, pt->sense_len, &sshdr) &&
		    sshdr.sense_key == UNIT_ATTENTION)
			continue;
		if (pt->status == SAM_STAT_BUSY ||
		    pt->status == SAM_STAT_TASK_SET_FULL)
			continue;
		break;
	}
	return -EIO;
}

/**
 * struct rbdi_capacity - what READ CAPACITY(16) returned
 * @sectors: Capacity in 512-byte sectors.
 * @lbs: Logical block size in bytes.
 * @pbs: Physical block size in bytes.
 * @lbpme: Logical block provisioning management enabled (false when
 *	the data is too short to tell).
 * @lbprz: Unmapped blocks read as zeroes (likewise).
 */
struct rbdi_capacity {
	u64 sectors;
	unsigned int lbs;
	unsigned int pbs;
	bool lbpme;
	bool lbprz;
};

/*
 * READ CAPACITY(16): capacity and block sizes, into @cap; at login and
 * at each rescan.
 */
static int rbdi_read_capacity(struct rbdi_session *sess,
			      struct rbdi_capacity *cap)
{
	struct rbdi_pt pt = { .cdb_len = 16 };
	unsigned int lbs, exp;
	u64 last;
	u8 *buf;
	int ret;

	buf = kzalloc(32, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pt.cdb[0] = SERVICE_ACTION_IN_16;
	pt.cdb[1] = SAI_READ_CAPACITY_16;
	put_unaligned_be32(32, &pt.cdb[10]);
	ret = rbdi_exec_pt_retry(sess, &pt, buf, 32);
	if (ret) {
		rbdi_sess_err(sess, "READ CAPACITY(16) failed: status 0x%02x (%d)\n",
			      pt.status, ret);
		goto out_free_buf;
	}
	ret = -EIO;
	if (32 - max(pt.resid, 0) < 14) {
		rbdi_sess_err(sess, "READ CAPACITY(16): short data\n");
		goto out_free_buf;
	}
	last = get_unaligned_be64(&buf[0]);
	lbs = get_unaligned_be32(&buf[8]);
	exp = buf[13] & 0x0f;
	if (lbs < SECTOR_SIZE || lbs > SZ_4K || !is_power_of_2(lbs) ||
	    last >= (U64_MAX >> 12)) {
		rbdi_sess_err(sess, "READ CAPACITY(16): unsupported geometry: %llu blocks of %u bytes\n",
			      last + 1, lbs);
		goto out_free_buf;
	}
	memset(cap, 0, sizeof(*cap));
	cap->lbs = lbs;
	cap->sectors = (last + 1) << (ilog2(lbs) - SECTOR_SHIFT);
	cap->pbs = exp <= 6 ? lbs << exp : lbs;
	if (32 - max(pt.resid, 0) >= 15) {
		cap->lbpme = buf[14] & 0x80;
		cap->lbprz = buf[14] & 0x40;
	}
	ret = 0;
out_free_buf:
	kfree(buf);
	return ret;
}

/*
 * Read the capacity of the LUN again and resize the disk to it, growing
 * or shrinking. A changed logical block size is refused: the data path
 * and the queue limits were built for the old one.
 *
 * Context: Process context, the disk added; sleeps.
 * Return: 0, or a negative errno (logged).
 */
int rbdi_blk_rescan(struct rbdi_session *sess)
{
	struct gendisk *disk = sess->disk;
	struct rbdi_capacity cap;
	sector_t old;
	int ret;

	mutex_lock(&sess->rescan_mutex);
	/* Not once the teardown has begun: del_gendisk() zeroes it. */
	if (!READ_ONCE(sess->rescan_on)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	ret = rbdi_read_capacity(sess, &cap);
	if (ret)
		goto out_unlock;
	if (cap.lbs != sess->lbs) {
		rbdi_sess_err(sess, "%s: logical block size changed from %u to %u bytes; not resizing (log in again)\n",
			      disk->disk_name, sess->lbs, cap.lbs);
		ret = -EIO;
		goto out_unlock;
	}
	old = get_capacity(disk);
	if (cap.sectors == old) {
		rbdi_sess_info(sess, "%s: capacity unchanged (%llu sectors)\n",
			       disk->disk_name, cap.sectors);
		goto out_unlock;
	}
	set_capacity_and_notify(disk, cap.sectors);
	rbdi_sess_info(sess, "%s: capacity changed from %llu to %llu sectors\n",
		       disk->disk_name, (u64)old, cap.sectors);
out_unlock:
	mutex_unlock(&sess->rescan_mutex);
	return ret;
}

/**
 * rbdi_rescan_work() - rescan the disk, for a UNIT ATTENTION
 * @work: &rbdi_session.rescan_work.
 */
void rbdi_rescan_work(struct work_struct *work)
{
	struct rbdi_session *sess = container_of(work, struct rbdi_session,
						 rescan_work);

	rbdi_blk_rescan(sess);
}

/**
 * rbdi_blk_stop_rescan() - no more rescans of the disk
 * @sess: The session, being torn down, its queue not quiesced (a rescan
 *	in progress must be able to finish or fail).
 *
 * Returns once no rescan runs, before the disk is deleted.
 */
void rbdi_blk_stop_rescan(struct rbdi_session *sess)
{
	spin_lock_irq(&sess->state_lock);
	WRITE_ONCE(sess->rescan_on, false);
	spin_unlock_irq(&sess->state_lock);
	cancel_work_sync(&sess->rescan_work);
	/* Wait for a rescan through sysfs; later ones see !rescan_on. */
	mutex_lock(&sess->rescan_mutex);
	mutex_unlock(&sess->rescan_mutex);
}

/* MODE SENSE(10) of the caching page: write cache and FUA support. */
static void rbdi_read_cache_mode(struct rbdi_session *sess)
{
	struct rbdi_pt pt = { .cdb_len = 10 };
	unsigned int got, off;
	u8 *buf;

	/* Without an answer: assume a volatile cache, flush it, no FUA. */
	sess->write_cache = true;
	sess->fua = false;

	buf = kzalloc(128, GFP_KERNEL);
	if (!buf)
		return;
	pt.cdb[0] = MODE_SENSE_10;
	pt.cdb[1] = 0x08;	/* DBD */
	pt.cdb[2] = 0x08;	/* current values, caching page */
	put_unaligned_be16(128, &pt.cdb[7]);
	if (rbdi_exec_pt_retry(sess, &pt, buf, 128))
		goto out_free_buf;
	got = 128 - clamp(pt.resid, 0, 128);
	if (got < 8)
		goto out_free_buf;
	off = 8 + get_unaligned_be16(&buf[6]);
	if (off + 3 > got || (buf[off] & 0x3f) != 0x08)
		goto out_free_buf;
	sess->write_cache = buf[off + 2] & 0x04;
	sess->fua = buf[3] & 0x10;
out_free_buf:
	kfree(buf);
}

/*
 * Copy the text field @src of @len bytes to @dst: up to the first NUL,
 * without leading and trailing blanks, other than printable ASCII as '_'.
 */
static void rbdi_copy_text(char *dst, size_t size, const u8 *src, size_t len)
{
	size_t i = 0, n = 0;

	len = strnlen((const char *)src, len);
	while (len && src[len - 1] == ' ')
		len--;
	while (i < len && src[i] == ' ')
		i++;
	for (; i < len && n + 1 < size; i++)
		dst[n++] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '_';
	dst[n] = '\0';
}

/* Standard INQUIRY: vendor, product and revision. */
static void rbdi_inquiry(struct rbdi_session *sess, u8 *buf)
{
	struct rbdi_lun_info *li = &sess->lun_info;
	struct rbdi_pt pt = { .cdb_len = 6 };

	pt.cdb[0] = INQUIRY;
	put_unaligned_be16(RBDI_INQ_LEN, &pt.cdb[3]);
	memset(buf, 0, RBDI_INQ_LEN);
	if (rbdi_exec_pt_retry(sess, &pt, buf, RBDI_INQ_LEN) ||
	    RBDI_INQ_LEN - clamp_t(s32, pt.resid, 0, RBDI_INQ_LEN) < 36)
		return;
	rbdi_copy_text(li->vendor, sizeof(li->vendor), &buf[8], 8);
	rbdi_copy_text(li->model, sizeof(li->model), &buf[16], 16);
	rbdi_copy_text(li->rev, sizeof(li->rev), &buf[32], 4);
}

/*
 * INQUIRY of VPD page @page into @buf (@len bytes, at most 65535).
 * Return: the valid length (at least 4), or a negative errno.
 */
static int rbdi_read_vpd(struct rbdi_session *sess, u8 page, u8 *buf,
			 unsigned int len)
{
	struct rbdi_pt pt = { .cdb_len = 6 };
	unsigned int got;
	int ret;

	pt.cdb[0] = INQUIRY;
	pt.cdb[1] = 0x01;	/* EVPD */
	pt.cdb[2] = page;
	put_unaligned_be16(len, &pt.cdb[3]);
	memset(buf, 0, len);
	ret = rbdi_exec_pt_retry(sess, &pt, buf, len);
	if (ret)
		return ret;
	got = len - clamp_t(s32, pt.resid, 0, len);
	if (got < 4 || buf[1] != page)
		return -EIO;
	return min_t(unsigned int, got, get_unaligned_be16(&buf[2]) + 4);
}

/*
 * Rank of VPD page 0x83 designator @d as the name of the logical unit;
 * 0 if unusable. Longer designators are less likely to clash: the order
 * is that of scsi_vpd_lun_id(), SCSI name string first, T10 vendor ID
 * last.
 */
static int rbdi_designator_rank(const u8 *d)
{
	u8 code_set = d[0] & 0x0f, len = d[3];

	/* Only designators of the addressed logical unit. */
	if ((d[1] & 0x30) || !len)
		return 0;
	switch (d[1] & 0x0f) {
	case 0x8:	/* SCSI name string, UTF-8 */
		return code_set == 3 ? 9 : 0;
	case 0x3:	/* NAA, binary */
		if (code_set != 1)
			return 0;
		switch (d[4] >> 4) {
		case 6:		/* IEEE Registered Extended */
			return len == 16 ? 8 : 0;
		case 5:		/* IEEE Registered */
			return len == 8 ? 5 : 0;
		case 2:		/* IEEE Extended */
		case 3:		/* Locally assigned */
			return len == 8 ? 4 : 0;
		}
		return 0;
	case 0x2:	/* EUI-64 based, binary */
		if (code_set != 1)
			return 0;
		return len == 16 ? 7 : len == 12 ? 6 : len == 8 ? 3 : 0;
	case 0x1:	/* T10 vendor ID */
		return 1;
	}
	return 0;
}

/*
 * "t10." and the T10 vendor ID designator @id: the vendor (8 bytes) and
 * a vendor specific identifier, runs of blanks as one '_'. Without the
 * vendor specific part it names no logical unit: false.
 */
static bool rbdi_format_t10(char *out, size_t size, const u8 *id, u8 len)
{
	bool blank = false;
	size_t i, n;

	len = strnlen((const char *)id, len);
	for (i = 8; i < len && id[i] == ' '; i++)
		;
	if (i >= len)
		return false;
	n = scnprintf(out, size, "t10.");
	for (i = 0; i < len && n + 2 < size; i++) {
		if (id[i] <= 0x20 || id[i] >= 0x7f) {
			blank = true;
			continue;
		}
		if (blank && n > 4)
			out[n++] = '_';
		blank = false;
		out[n++] = id[i];
	}
	out[n] = '\0';
	return true;
}

/* Format designator @d (ranked above 0) into @out; false if unusable. */
static bool rbdi_format_designator(char *out, size_t size, const u8 *d)
{
	const u8 *id = d + 4;
	u8 len = d[3];

	switch (d[1] & 0x0f) {
	case 0x8:
		rbdi_copy_text(out, size, id, len);
		return out[0];
	case 0x3:
		snprintf(out, size, "naa.%*phN", len, id);
		return true;
	case 0x2:
		snprintf(out, size, "eui.%*phN", len, id);
		return true;
	case 0x1:
		return rbdi_format_t10(out, size, id, len);
	}
	return false;
}

/* The best designator of VPD page 0x83 (@len valid bytes) as wwid. */
static void rbdi_pick_wwid(struct rbdi_lun_info *li, const u8 *buf,
			   unsigned int len)
{
	char id[RBDI_WWID_SIZE];
	unsigned int off = 4;
	int rank, best = 0;
	const u8 *d;

	while (off + 4 <= len) {
		d = buf + off;
		off += 4 + d[3];
		if (off > len)
			break;		/* truncated */
		rank = rbdi_designator_rank(d);
		if (rank > best &&
		    rbdi_format_designator(id, sizeof(id), d)) {
			strscpy(li->wwid, id, sizeof(li->wwid));
			best = rank;
		}
	}
}

/*
 * Identification and provisioning of the LUN. Nothing here is required:
 * a page the LUN does not have leaves its fields empty or zero.
 */
static void rbdi_read_lun_info(struct rbdi_session *sess)
{
	struct rbdi_lun_info *li = &sess->lun_info;
	u32 uga;
	u8 *buf;
	int n;

	buf = kmalloc(RBDI_VPD_LEN, GFP_KERNEL);
	if (!buf)
		return;
	rbdi_inquiry(sess, buf);

	n = rbdi_read_vpd(sess, 0x80, buf, RBDI_VPD_LEN);
	if (n > 4)
		rbdi_copy_text(li->serial, sizeof(li->serial), &buf[4], n - 4);
	n = rbdi_read_vpd(sess, 0x83, buf, RBDI_VPD_LEN);
	if (n > 4)
		rbdi_pick_wwid(li, buf, n);

	/* Block limits; a short page (no thin provisioning) ends early. */
	n = rbdi_read_vpd(sess, 0xb0, buf, 64);
	if (n >= 16) {
		li->max_xfer = get_unaligned_be32(&buf[8]);
		li->opt_xfer = get_unaligned_be32(&buf[12]);
	}
	if (n >= 36) {
		li->max_unmap = get_unaligned_be32(&buf[20]);
		li->max_unmap_desc = get_unaligned_be32(&buf[24]);
		li->unmap_gran = get_unaligned_be32(&buf[28]);
		uga = get_unaligned_be32(&buf[32]);
		li->unmap_align_valid = uga & 0x80000000;
		li->unmap_align = uga & 0x7fffffff;
	}
	if (n >= 44)
		li->max_ws = get_unaligned_be64(&buf[36]);

	n = rbdi_read_vpd(sess, 0xb1, buf, 64);
	if (n >= 6)
		li->rotation = get_unaligned_be16(&buf[4]);

	/* Logical block provisioning; LBPRZ field 001b: reads zeroes. */
	n = rbdi_read_vpd(sess, 0xb2, buf, 64);
	if (n >= 6) {
		li->tpu = buf[5] & 0x80;
		li->tpws = buf[5] & 0x40;
		if (((buf[5] >> 2) & 0x07) == 1)
			li->lbprz = true;
	}
	kfree(buf);
}

/*
 * Write cache, FUA and rotation as block layer features. Solid state or
 * spinning: without an answer, as before, not rotational.
 */
static unsigned int rbdi_features(const struct rbdi_session *sess)
{
	unsigned int features = 0;

	if (sess->write_cache)
		features |= RBD_FEAT_WRITE_CACHE;
	if (sess->fua)
		features |= RBD_FEAT_FUA;
	if (sess->lun_info.rotation >= 0x401)
		features |= RBD_FEAT_ROTATIONAL;
	return features;
}

/*
 * Queue limits from what the LUN reported, within @max_sectors, the most
 * the transport carries. Discard needs UNMAP (LBPME, TPU and both UNMAP
 * limits non-zero); write zeroes needs a MAXIMUM WRITE SAME LENGTH.
 * Nothing larger than the LUN's limits is ever sent.
 */
static int rbdi_set_limits(struct rbdi_session *sess,
			   const struct rbdi_capacity *cap,
			   unsigned int max_sectors)
{
	struct rbdi_lun_info *li = &sess->lun_info;
	struct request_queue *q = sess->disk->queue;
	unsigned int shift = ilog2(sess->lbs) - SECTOR_SHIFT;
	/* Most blocks of one request: sectors and CDB counts are 32 bits. */
	u64 blocks_max = min_t(u64, UINT_MAX >> shift, U32_MAX);
	struct queue_limits lim = rbd_limits_start(q);
	u64 blocks;

	lim.logical_block_size = sess->lbs;
	lim.physical_block_size = cap->pbs;
	lim.io_min = cap->pbs;
	if (li->max_xfer)
		max_sectors = min_t(u64, max_sectors, (u64)li->max_xfer << shift);
	/*
	 * The block layer needs a page per request: 6.1 raises a smaller
	 * limit to that itself, 6.12 warns and refuses it.
	 */
	lim.max_hw_sectors = max_t(unsigned int, max_sectors,
				   PAGE_SIZE >> SECTOR_SHIFT);

	if (li->lbpme && li->tpu && li->max_unmap && li->max_unmap_desc) {
		blocks = min_t(u64, li->max_unmap, blocks_max);
		lim.max_hw_discard_sectors = blocks << shift;
		lim.discard_granularity =
			max_t(u64, sess->lbs,
			      min_t(u64, (u64)li->unmap_gran * sess->lbs, SZ_1G));
		if (li->unmap_align_valid)
			lim.discard_alignment =
				min_t(u64, (u64)li->unmap_align * sess->lbs,
				      SZ_1G);
	}
	if (li->max_ws) {
		blocks = min_t(u64, li->max_ws, blocks_max);
		lim.max_write_zeroes_sectors = blocks << shift;
		sess->ws_unmap = li->lbpme && li->tpws && li->lbprz;
	}
	return rbd_limits_commit(q, &lim, rbdi_features(sess));
}

/**
 * rbdi_probe_lun() - what the disk of a new session needs from its LUN
 * @sess: The session; its disk allocated, not added, with the limits of
 *	the transport alone.
 * @max_sectors: The most the transport carries in one request.
 * @sectors: The capacity, in 512-byte sectors.
 *
 * Reads the capacity, the cache mode, the identification and the
 * provisioning limits of the LUN, and sets the queue limits from them.
 *
 * Context: Process context; sleeps.
 * Return: 0 or a negative errno (logged).
 */
int rbdi_probe_lun(struct rbdi_session *sess, unsigned int max_sectors,
		   u64 *sectors)
{
	struct rbdi_capacity cap;
	int ret;

	sess->lbs = SECTOR_SIZE;
	memset(&sess->lun_info, 0, sizeof(sess->lun_info));
	sess->ws_unmap = false;

	ret = rbdi_read_capacity(sess, &cap);
	if (ret)
		return ret;
	sess->lbs = cap.lbs;
	sess->lun_info.lbpme = cap.lbpme;
	sess->lun_info.lbprz = cap.lbprz;
	rbdi_read_cache_mode(sess);
	rbdi_read_lun_info(sess);

	ret = rbdi_set_limits(sess, &cap, max_sectors);
	if (ret) {
		rbdi_sess_err(sess, "queue limits refused (%d)\n", ret);
		return ret;
	}
	*sectors = cap.sectors;
	return 0;
}

/*
 * The LUN refused a discard or write zeroes that its VPD pages promised:
 * stop sending them, as sd does. Write zeroes then falls back to writing
 * pages of zeroes (blkdev_issue_zeroout()).
 */
static void rbdi_disable_op(struct rbdi_session *sess, struct request *rq)
{
	rbdi_sess_err_rl(sess, "%s: the LUN refuses %s; not sending it again\n",
			 sess->disk_name, blk_op_str(req_op(rq)));
	if (req_op(rq) == REQ_OP_DISCARD)
		blk_queue_disable_discard(rq->q);
	else
		blk_queue_disable_write_zeroes(rq->q);
}

/* SCSI outcome of a filesystem request; may ask for a retry. */
blk_status_t rbdi_scsi_sts(struct rbdi_session *sess, struct request *rq,
			   bool *retry)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct scsi_sense_hdr sshdr = { };

	*retry = false;
	switch (req->status) {
	case SAM_STAT_GOOD:
		if (!req->resid)
			return BLK_STS_OK;
		rbdi_sess_err_rl(sess, "%s: %s of %u bytes at sector %llu: residual %d\n",
				 sess->disk_name, blk_op_str(req_op(rq)),
				 req->data_len, blk_rq_pos(rq), req->resid);
		return BLK_STS_IOERR;
	case SAM_STAT_BUSY:
	case SAM_STAT_TASK_SET_FULL:
	case SAM_STAT_TASK_ABORTED:
		*retry = true;
		return BLK_STS_OK;
	case SAM_STAT_RESERVATION_CONFLICT:
		/*
		 * As sd and nvme: BLK_STS_RESV_CONFLICT (-EBADE; named
		 * BLK_STS_NEXUS before 6.5), which is not a path error, so
		 * dm-multipath does not fail the path over it.
		 */
		rbdi_sess_err_rl(sess, "%s: %s of %u bytes at %llu: reservation conflict\n",
				 sess->disk_name, blk_op_str(req_op(rq)),
				 req->data_len, blk_rq_pos(rq));
		return BLK_STS_RESV_CONFLICT;
	case SAM_STAT_CHECK_CONDITION:
		scsi_normalize_sense(req->sense, req->sense_len, &sshdr);
		if (sshdr.sense_key == UNIT_ATTENTION) {
			*retry = true;
			return BLK_STS_OK;
		}
		/* INVALID COMMAND OPERATION CODE or INVALID FIELD IN CDB */
		if (sshdr.sense_key == ILLEGAL_REQUEST &&
		    (sshdr.asc == 0x20 || sshdr.asc == 0x24) &&
		    (req_op(rq) == REQ_OP_DISCARD ||
		     req_op(rq) == REQ_OP_WRITE_ZEROES)) {
			rbdi_disable_op(sess, rq);
			return BLK_STS_NOTSUPP;
		}
		break;
	default:
		break;
	}
	rbdi_sess_err_rl(sess, "%s: %s of %u bytes at %llu: status 0x%02x, sense %x/%02x/%02x\n",
			 sess->disk_name, blk_op_str(req_op(rq)), req->data_len,
			 blk_rq_pos(rq), req->status, sshdr.sense_key,
			 sshdr.asc, sshdr.ascq);
	switch (sshdr.sense_key) {
	case MEDIUM_ERROR:
		return BLK_STS_MEDIUM;
	case DATA_PROTECT:
		return BLK_STS_PROTECTION;
	case ILLEGAL_REQUEST:
		return BLK_STS_TARGET;
	default:
		return BLK_STS_IOERR;
	}
}

/*
 * A UNIT ATTENTION CAPACITY DATA HAS CHANGED (2A/09), on any command,
 * queues a rescan; the command itself is retried (or, through SG_IO,
 * returned) like any UNIT ATTENTION.
 */
void rbdi_check_capacity_ua(struct rbdi_session *sess,
			    struct rbdi_request *req)
{
	struct scsi_sense_hdr sshdr;
	unsigned long flags;
	bool queued = false;

	if (!scsi_normalize_sense(req->sense, req->sense_len, &sshdr) ||
	    sshdr.sense_key != UNIT_ATTENTION || sshdr.asc != 0x2a ||
	    sshdr.ascq != 0x09)
		return;
	spin_lock_irqsave(&sess->state_lock, flags);
	if (sess->rescan_on)
		queued = queue_work(rbdi_wq, &sess->rescan_work);
	spin_unlock_irqrestore(&sess->state_lock, flags);
	if (queued)
		rbdi_sess_info(sess, "%s: the LUN reports CAPACITY DATA HAS CHANGED; rescanning\n",
			       sess->disk_name);
}
