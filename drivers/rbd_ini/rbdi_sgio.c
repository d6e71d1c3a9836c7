// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: which SCSI commands an opener of /dev/rbdiN may send with SG_IO.
 *
 * This file only decides; rbdi_sg_io() asks before it sends anything and
 * fails a refused request with EPERM. A command is sent when all of:
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

#include <linux/capability.h>
#include <linux/fs.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/scsi_proto.h>
#include <scsi/sg.h>

#include "rbdi.h"

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
bool rbdi_sgio_allowed(u8 *cdb, const struct sg_io_hdr *hdr, blk_mode_t mode)
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
