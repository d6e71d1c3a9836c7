// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: SG_IO on /dev/rbdiN: which SCSI commands an opener may send, and
 * sending them.
 *
 * rbdi_ioctl() answers SG_GET_VERSION_NUM and SG_IO (sg v3). rbdi_sg_io()
 * sends the command as a passthrough request on the normal path; it asks
 * rbdi_sgio_allowed() before it sends anything and fails a refused
 * request with EPERM. A command is sent when all of:
 *
 *  1. it carries no data out (SG_DXFER_TO_DEV or SG_DXFER_TO_FROM_DEV
 *     with a length), or the device is open for writing (FMODE_WRITE),
 *     even for CAP_SYS_RAWIO: the target has only the direction of the
 *     transfer to go by, not the opener's mode;
 *  2. it is one of the read-only commands of rbdi_sgio_read_only(), or
 *     the device is open for writing: anything else counts as changing
 *     state;
 *  3. it is not one that reaches beyond the LUN's data (MAINTENANCE OUT
 *     changes the target's port groups, ATA PASS-THROUGH reaches the
 *     drive behind a pscsi backstore), or the opener has CAP_SYS_RAWIO;
 *  4. the block layer's scsi_cmd_allowed() allows it: without
 *     CAP_SYS_RAWIO, its lists of read-safe and writing commands. Those
 *     lists hold MMC opcodes that mean other commands to a disk (0x42
 *     READ SUB-CHANNEL is UNMAP, 0xa4 REPORT KEY is MAINTENANCE OUT,
 *     0xa1 BLANK is ATA PASS-THROUGH(12)), which 2 and 3 catch.
 *
 * Documentation/admin-guide.rst has the resulting table.
 */

#include <linux/blk-mq.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>
#include <scsi/sg.h>

#include "rbdi.h"

/* sg3_utils asks for this version of the sg driver interface. */
#define RBDI_SG_VERSION		30527

/* Service actions of MAINTENANCE IN that only report. */
static bool rbdi_sgio_mi_report(u8 sa)
{
	switch (sa) {
	case MI_REPORT_IDENTIFYING_INFORMATION:
	case MI_REPORT_TARGET_PGS:
	case MI_REPORT_ALIASES:
	case MI_REPORT_SUPPORTED_OPERATION_CODES:
	case MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS:
	case MI_REPORT_PRIORITY:
	case MI_REPORT_TIMESTAMP:
		return true;
	default:
		return false;
	}
}

/*
 * Commands that change nothing on the target, sent with data in or no
 * data. @cdb holds RBD_MAX_CDB_LEN bytes.
 */
static bool rbdi_sgio_read_only(const u8 *cdb)
{
	u8 sa = cdb[1] & 0x1f;

	switch (cdb[0]) {
	case TEST_UNIT_READY:
	case REQUEST_SENSE:
	case INQUIRY:
	case MODE_SENSE:
	case MODE_SENSE_10:
	case RECEIVE_DIAGNOSTIC:
	case READ_CAPACITY:
	case REPORT_LUNS:
	case PERSISTENT_RESERVE_IN:
	case READ_6:
	case READ_10:
	case READ_12:
	case READ_16:
		return true;
	case LOG_SENSE:
		/* SP set saves the log parameters. */
		return !(cdb[1] & 0x01);
	case VERIFY:
	case VERIFY_12:
	case VERIFY_16:
		/* BYTCHK set: the data to compare comes with the command. */
		return !(cdb[1] & 0x06);
	case SERVICE_ACTION_IN_16:
		return sa == SAI_READ_CAPACITY_16 || sa == SAI_GET_LBA_STATUS;
	case MAINTENANCE_IN:
		return rbdi_sgio_mi_report(sa);
	case VARIABLE_LENGTH_CMD:
		return get_unaligned_be16(&cdb[8]) == READ_32;
	default:
		return false;
	}
}

/* Commands that need CAP_SYS_RAWIO whatever the block layer allows. */
static bool rbdi_sgio_rawio_only(const u8 *cdb)
{
	switch (cdb[0]) {
	case MAINTENANCE_OUT:
	case ATA_12:
	case ATA_16:
		return true;
	default:
		return false;
	}
}

/**
 * rbdi_sgio_allowed() - may this opener send this SG_IO request
 * @cdb: the CDB, RBD_MAX_CDB_LEN bytes (zero beyond the command's length)
 * @hdr: the request's header, as copied from the caller
 * @mode: the mode the block device was opened with
 *
 * Return: true to send the request, false to fail it with EPERM.
 */
static bool rbdi_sgio_allowed(u8 *cdb, const struct sg_io_hdr *hdr,
			      blk_mode_t mode)
{
	bool data_out = hdr->dxfer_len &&
			(hdr->dxfer_direction == SG_DXFER_TO_DEV ||
			 hdr->dxfer_direction == SG_DXFER_TO_FROM_DEV);
	bool writer = mode & BLK_OPEN_WRITE;

	if (data_out && !writer)
		return false;
	if (!rbdi_sgio_read_only(cdb) && !writer)
		return false;
	if (rbdi_sgio_rawio_only(cdb) && !capable(CAP_SYS_RAWIO))
		return false;
	return rbd_scsi_cmd_allowed(cdb, mode);
}

/*
 * Check an SG_IO header and its CDB (copied into @cdb) before anything is
 * sent; @writing says whether data goes to the device.
 */
static int rbdi_sg_io_check(struct request_queue *q, blk_mode_t mode,
			    struct sg_io_hdr *hdr, u8 *cdb, bool *writing)
{
	if (hdr->interface_id != 'S')
		return -EINVAL;
	if (hdr->cmd_len < RBD_MIN_CDB_LEN || hdr->cmd_len > RBD_MAX_CDB_LEN)
		return -EINVAL;
	if (hdr->dxfer_len > (queue_max_hw_sectors(q) << SECTOR_SHIFT))
		return -EIO;
	if (copy_from_user(cdb, hdr->cmdp, hdr->cmd_len))
		return -EFAULT;
	if (rbd_cdb_implied_len(cdb) > hdr->cmd_len)
		return -EINVAL;
	if (!rbdi_sgio_allowed(cdb, hdr, mode))
		return -EPERM;

	switch (hdr->dxfer_direction) {
	case SG_DXFER_NONE:
		hdr->dxfer_len = 0;
		*writing = false;
		return 0;
	case SG_DXFER_TO_DEV:
		*writing = true;
		return 0;
	case SG_DXFER_FROM_DEV:
	case SG_DXFER_TO_FROM_DEV:
		*writing = false;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The outcome of an SG_IO command in its header, sense data copied out. */
static void rbdi_sg_io_result(struct sg_io_hdr *hdr,
			      const struct rbdi_request *req, blk_status_t sts)
{
	hdr->status = sts ? 0 : req->status;
	hdr->masked_status = (hdr->status >> 1) & 0x7f;
	hdr->msg_status = 0;
	hdr->host_status = sts ? (sts == BLK_STS_TIMEOUT ? DID_TIME_OUT :
				  DID_TRANSPORT_DISRUPTED) : DID_OK;
	hdr->driver_status = 0;
	hdr->sb_len_wr = 0;
	if (!sts && req->sense_len && hdr->sbp && hdr->mx_sb_len) {
		unsigned int n = min_t(unsigned int, hdr->mx_sb_len,
				       req->sense_len);

		if (!copy_to_user(hdr->sbp, req->sense, n))
			hdr->sb_len_wr = n;
		hdr->driver_status = DRIVER_SENSE;
	}
	hdr->resid = sts ? hdr->dxfer_len :
		     clamp_t(s32, req->resid, 0, hdr->dxfer_len);
	hdr->info = 0;
	if (hdr->masked_status || hdr->host_status || hdr->driver_status)
		hdr->info |= SG_INFO_CHECK;
}

static int rbdi_sg_io(struct request_queue *q, blk_mode_t mode,
		      void __user *argp)
{
	struct sg_io_hdr hdr;
	struct rbdi_request *req;
	struct request *rq;
	struct bio *bio = NULL;
	u8 cdb[RBD_MAX_CDB_LEN] = { };
	unsigned long start;
	blk_status_t sts;
	bool writing;
	int ret;

	if (get_sg_io_hdr(&hdr, argp))
		return -EFAULT;
	ret = rbdi_sg_io_check(q, mode, &hdr, cdb, &writing);
	if (ret)
		return ret;

	rq = blk_mq_alloc_request(q, writing ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN,
				  0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	req = blk_mq_rq_to_pdu(rq);
	memcpy(req->cdb, cdb, sizeof(req->cdb));
	req->cdb_len = hdr.cmd_len;
	if (hdr.timeout)
		rq->timeout = max(msecs_to_jiffies(hdr.timeout),
				  (unsigned long)BLK_MIN_SG_TIMEOUT);
	else
		rq->timeout = BLK_DEFAULT_SG_TIMEOUT;

	if (hdr.dxfer_len) {
		ret = blk_rq_map_user_io(rq, NULL, hdr.dxferp, hdr.dxfer_len,
					 GFP_KERNEL, hdr.iovec_count != 0,
					 hdr.iovec_count, false,
					 rq_data_dir(rq));
		if (ret)
			goto out_free_rq;
		bio = rq->bio;
	}

	start = jiffies;
	sts = blk_execute_rq(rq, hdr.flags & SG_FLAG_Q_AT_HEAD);
	hdr.duration = jiffies_to_msecs(jiffies - start);
	rbdi_sg_io_result(&hdr, req, sts);

	if (bio && blk_rq_unmap_user(bio))
		ret = -EFAULT;
	if (!ret && put_sg_io_hdr(&hdr, argp))
		ret = -EFAULT;
out_free_rq:
	blk_mq_free_request(rq);
	return ret;
}

/**
 * rbdi_ioctl() - the ioctls of /dev/rbdiN: SG_GET_VERSION_NUM and SG_IO
 * @bdev: The block device.
 * @mode: The mode it was opened with.
 * @cmd: The ioctl.
 * @arg: Its argument.
 *
 * Return: 0, a negative errno, or -ENOTTY for any other ioctl.
 */
int rbdi_ioctl(struct block_device *bdev, blk_mode_t mode,
	       unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case SG_GET_VERSION_NUM:
		return put_user(RBDI_SG_VERSION, (int __user *)argp);
	case SG_IO:
		return rbdi_sg_io(bdev->bd_disk->queue, mode, argp);
	default:
		return -ENOTTY;
	}
}
