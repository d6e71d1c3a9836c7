// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: test-only fault injection, built only with RBD_FAULT_INJECTION=1
 * (the test rig's build; a default build has none of it).
 *
 * Debian's kernels, which the rig tests, lack CONFIG_FAULT_INJECTION, so
 * each fault is a counter in the session's debugfs directory: writing N
 * makes the next N occasions fail, reading says how many are left.
 *
 *   fault_capacity_ua  GOOD responses of reads and writes become UNIT
 *                      ATTENTION CAPACITY DATA HAS CHANGED
 *   fault_lose_cmd     commands are started but never posted, as if lost
 *                      on the way to the target
 *   fault_post_send    posts of commands fail with -ENOTCONN, as siw fails
 *                      them once the QP has left RTS
 */

#include <linux/blk-mq.h>
#include <linux/debugfs.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include "rbdi.h"

static bool rbdi_fault_take(atomic_t *count)
{
	return unlikely(atomic_read(count)) &&
	       atomic_dec_if_positive(count) >= 0;
}

bool rbdi_fault_lose_cmd(struct rbdi_session *sess)
{
	return rbdi_fault_take(&sess->fault.lose_cmd);
}

bool rbdi_fault_post_send(struct rbdi_session *sess)
{
	return rbdi_fault_take(&sess->fault.post_send);
}

/*
 * The UNIT ATTENTION that LIO never sends, as if the target had: the
 * command did run, and its retry runs it again.
 */
void rbdi_fault_capacity_ua(struct rbdi_session *sess, struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);

	if (likely(!atomic_read(&sess->fault.capacity_ua)) || req->sts ||
	    req->status != SAM_STAT_GOOD ||
	    (req_op(rq) != REQ_OP_READ && req_op(rq) != REQ_OP_WRITE) ||
	    !rbdi_fault_take(&sess->fault.capacity_ua))
		return;
	scsi_build_sense_buffer(0, req->sense, UNIT_ATTENTION, 0x2a, 0x09);
	req->sense_len = 18;
	req->status = SAM_STAT_CHECK_CONDITION;
	rbdi_sess_info(sess, "%s: fault injection: UNIT ATTENTION 2A/09 for a %s\n",
		       sess->disk_name, blk_op_str(req_op(rq)));
}

void rbdi_fault_debugfs_add(struct rbdi_session *sess)
{
	debugfs_create_atomic_t("fault_capacity_ua", 0600, sess->debugfs,
				&sess->fault.capacity_ua);
	debugfs_create_atomic_t("fault_lose_cmd", 0600, sess->debugfs,
				&sess->fault.lose_cmd);
	debugfs_create_atomic_t("fault_post_send", 0600, sess->debugfs,
				&sess->fault.post_send);
}
