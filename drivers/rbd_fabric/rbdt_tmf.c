// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: task management (TMF capsules). ABORT TASK and LUN RESET go to
 * LIO as TMRs (&struct rbdt_tmr); LIO answers through the queue_tm_rsp
 * fabric op, and the TMF_RSP goes back on the control slot of the
 * request. Commands that LIO aborts are answered TASK ABORTED
 * (rbdt_aborted_task()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <target/target_core_backend.h>

#include "rbdt.h"

/* Answer the TMF request @tag of control slot @slot. */
static void rbdt_tmf_send(struct rbdt_queue *q, u32 slot, __le64 tag,
			  u8 response, struct rbdt_recv *r)
{
	struct rbd_tmf_rsp *rsp = q->ctrl[slot].buf;

	rbd_hdr_fill(rsp, RBD_OP_TMF_RSP, sizeof(*rsp), tag);
	rsp->response = response;
	rbdt_ctrl_send(q, slot, sizeof(*rsp), r);
}

static inline struct rbdt_tmr *to_rbdt_tmr(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct rbdt_tmr, se_cmd);
}

/**
 * rbdt_tmr_respond() - LIO finished a task management function
 * @se_cmd: The TMR (%SCF_SCSI_TMR_CDB).
 * @aborted: LIO aborted the TMR itself (a LUN RESET overtook it).
 *
 * Sends the TMF_RSP once; the receive buffer goes back with it.
 */
void rbdt_tmr_respond(struct se_cmd *se_cmd, bool aborted)
{
	struct rbdt_tmr *tmr = to_rbdt_tmr(se_cmd);
	u8 response;

	if (tmr->responded)
		return;
	tmr->responded = true;
	switch (aborted ? TMR_FUNCTION_REJECTED : se_cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		response = RBD_TMF_RSP_COMPLETE;
		break;
	case TMR_TASK_DOES_NOT_EXIST:
		response = RBD_TMF_RSP_NO_TASK;
		break;
	case TMR_LUN_DOES_NOT_EXIST:
		response = RBD_TMF_RSP_NO_LUN;
		break;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		response = RBD_TMF_RSP_NOT_SUPPORTED;
		break;
	default:
		response = RBD_TMF_RSP_REJECTED;
		break;
	}
	pr_info_ratelimited("session %016llx %pISpc: %s of tag %#llx: %s\n",
			    tmr->q->sess->handle, &tmr->q->peer,
			    tmr->function == RBD_TMF_ABORT_TASK ?
			    "ABORT TASK" : "LUN RESET",
			    tmr->ref_tag, rbd_tmf_rsp_str(response));
	rbdt_tmf_send(tmr->q, tmr->slot, tmr->tag, response, tmr->recv);
}

/**
 * rbdt_tmr_free() - LIO released a TMR
 * @se_cmd: The TMR.
 */
void rbdt_tmr_free(struct se_cmd *se_cmd)
{
	struct rbdt_tmr *tmr = to_rbdt_tmr(se_cmd);

	/* Never answered (cannot happen, but never lose the buffer). */
	if (!tmr->responded)
		rbdt_queue_post_recv(tmr->q, tmr->recv);
	kfree(tmr);
}

/*
 * ABORT TASK and LUN RESET go to LIO as TMRs; LIO answers through
 * rbdt_queue_tm_rsp() and aborts commands through rbdt_aborted_task(),
 * which answers each with TASK ABORTED.
 */
void rbdt_handle_tmf(struct rbdt_queue *q, struct rbdt_recv *r,
		     u32 slot)
{
	const struct rbd_tmf_req *req = r->buf;
	struct rbdt_session *sess = q->sess;
	u64 ref = le64_to_cpu(req->ref_tag);
	u64 lun = le64_to_cpu(req->lun);
	struct rbdt_tmr *tmr;
	u8 tm_type, response;

	switch (req->function) {
	case RBD_TMF_ABORT_TASK:
		tm_type = TMR_ABORT_TASK;
		break;
	case RBD_TMF_LUN_RESET:
		tm_type = TMR_LUN_RESET;
		break;
	default:
		response = RBD_TMF_RSP_NOT_SUPPORTED;
		goto out_respond;
	}
	/* A session reaches exactly one LUN. */
	if (lun != sess->lun) {
		response = RBD_TMF_RSP_NO_LUN;
		goto out_respond;
	}
	/* A tag that names no slot of the session names no task. */
	if (tm_type == TMR_ABORT_TASK &&
	    (!rbd_tag_qid(ref) || rbd_tag_qid(ref) > sess->nr_queues ||
	     rbd_tag_slot(ref) >= le16_to_cpu(sess->login.queue_depth))) {
		response = RBD_TMF_RSP_NO_TASK;
		goto out_respond;
	}

	tmr = kzalloc(sizeof(*tmr), GFP_KERNEL);
	if (!tmr) {
		response = RBD_TMF_RSP_REJECTED;
		goto out_respond;
	}
	tmr->q = q;
	tmr->recv = r;
	tmr->slot = slot;
	tmr->tag = req->hdr.tag;
	tmr->ref_tag = ref;
	tmr->function = req->function;
	rbdt_stat_inc(sess, RBDT_STAT_TMFS);
	if (target_submit_tmr(&tmr->se_cmd, sess->se_sess, tmr->sense, lun,
			      NULL, tm_type, GFP_KERNEL, ref, 0)) {
		/* The session is stopping. */
		kfree(tmr);
		response = RBD_TMF_RSP_REJECTED;
		goto out_respond;
	}
	return;

out_respond:
	rbdt_tmf_send(q, slot, req->hdr.tag, response, r);
}

/**
 * rbdt_queue_tm_rsp() - LIO finished a TMR: send its TMF_RSP
 * @se_cmd: The TMR.
 */
void rbdt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	rbdt_tmr_respond(se_cmd, false);
}
