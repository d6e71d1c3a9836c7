// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: SCSI responses. LIO's queue_data_in and queue_status fabric ops,
 * and the responses rbdt sends on its own (a refused capsule, BUSY, TASK
 * ABORTED), all end up here: the response is built in the command's
 * response buffer, the data of an immediate read goes with it (copied
 * behind the header, gathered from LIO's pages, or alone in a bare
 * response), the capsule's receive buffer is reposted, and the SEND is
 * posted, behind the RDMA WRITEs of a READ's data (rbdt_rw.c) or in a
 * batch with other responses of the same polling run. The send
 * completion releases the command.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <scsi/scsi_proto.h>

#include "rbdt.h"

/*
 * Build the response in @cmd->rsp; the immediate data, if any, has been
 * copied behind the header already.
 */
void rbdt_build_rsp(struct rbdt_cmd *cmd, u8 status, const u8 *sense,
		    u32 sense_len, u32 imm_len, u16 flags, u32 residual)
{
	struct rbd_rsp *rsp = cmd->rsp;
	u32 len = sizeof(*rsp) + imm_len + sense_len;

	memset(rsp, 0, sizeof(*rsp));
	rsp->hdr.opcode = RBD_OP_SCSI_RSP;
	rsp->hdr.version = RBD_PROTO_VERSION;
	rsp->hdr.length = cpu_to_le32(len);
	rsp->hdr.tag = cpu_to_le64(cmd->tag);
	if (cmd->invalidate)
		flags |= RBD_RSP_F_INVALIDATED;
	rsp->hdr.flags = cpu_to_le16(flags);
	rsp->residual = cpu_to_le32(residual);
	rsp->imm_len = cpu_to_le32(imm_len);
	rsp->credits = cpu_to_le16(cmd->q->depth);
	rsp->sense_len = cpu_to_le16(sense_len);
	rsp->status = status;
	if (sense_len)
		memcpy((u8 *)(rsp + 1) + imm_len, sense, sense_len);

	cmd->send_sge.length = len;
	cmd->send_wr.sg_list = &cmd->send_sge;
	cmd->send_wr.num_sge = 1;
	cmd->send_wr.next = NULL;
	if (cmd->invalidate) {
		cmd->send_wr.opcode = IB_WR_SEND_WITH_INV;
		cmd->send_wr.ex.invalidate_rkey = cmd->inv_rkey;
	} else {
		cmd->send_wr.opcode = IB_WR_SEND;
	}
	ib_dma_sync_single_for_device(cmd->q->dev->ib_dev, cmd->rsp_dma, len,
				      DMA_TO_DEVICE);
}

/* Unmap LIO's pages from an immediate read's SEND; before LIO frees them. */
static void rbdt_imm_unmap(struct rbdt_cmd *cmd)
{
	if (!cmd->imm_nents)
		return;
	ib_dma_unmap_sg(cmd->q->dev->ib_dev, cmd->imm_sg, cmd->imm_nents,
			DMA_TO_DEVICE);
	cmd->imm_nents = 0;
	cmd->imm_sg = NULL;
}

/*
 * Let the response SEND of an immediate read gather its @imm_len bytes of
 * data from LIO's pages instead of copying them behind the header: behind
 * the header from @cmd->rsp when @hdr (the response is built, with
 * @imm_len, and has no sense data), alone in a bare response. Returns
 * false if the pages need more SGEs than the send queue takes or cannot be
 * mapped; the caller copies then.
 */
static bool rbdt_imm_map(struct rbdt_cmd *cmd, u32 imm_len, bool hdr)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct rbdt_queue *q = cmd->q;
	u32 max = min_t(u32, q->qp->max_write_sge, RBDT_IMM_SGES);
	struct scatterlist *sg;
	int count, i, n = 0;

	if (!imm_len || se_cmd->t_data_nents + hdr > max)
		return false;
	count = ib_dma_map_sg(q->dev->ib_dev, se_cmd->t_data_sg,
			      se_cmd->t_data_nents, DMA_TO_DEVICE);
	if (count <= 0)
		return false;
	cmd->imm_sg = se_cmd->t_data_sg;
	cmd->imm_nents = se_cmd->t_data_nents;

	if (hdr) {
		cmd->imm_sge[0] = cmd->send_sge;
		cmd->imm_sge[0].length = sizeof(struct rbd_rsp);
		n = 1;
	}
	for_each_sg(se_cmd->t_data_sg, sg, count, i) {
		u32 len = min_t(u32, sg_dma_len(sg), imm_len);

		if (!len)
			break;
		cmd->imm_sge[n].addr = sg_dma_address(sg);
		cmd->imm_sge[n].length = len;
		cmd->imm_sge[n].lkey = q->dev->pd->local_dma_lkey;
		imm_len -= len;
		n++;
	}
	if (imm_len) {
		/* The SGL holds less than the response announces. */
		rbdt_imm_unmap(cmd);
		return false;
	}
	cmd->send_wr.sg_list = cmd->imm_sge;
	cmd->send_wr.num_sge = n;
	return true;
}

/* The initiator may reuse @cmd's tag. Called with @cmd->q->lock held. */
static void rbdt_cmd_settle(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;

	lockdep_assert_held(&q->lock);
	if (cmd->outstanding) {
		cmd->outstanding = false;
		WRITE_ONCE(q->nr_outstanding, q->nr_outstanding - 1);
	}
}

/* The response of @cmd is posted (or dropped): the slot is free. */
void rbdt_cmd_answered(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	rbdt_cmd_settle(cmd);
	spin_unlock_irqrestore(&q->lock, flags);
	rbdt_stat_inc(q->sess, RBDT_STAT_REQS_COMPLETED);
	rbdt_session_cmd_done(q);
}

/* The response SEND of @cmd completed with @status. */
void rbdt_cmd_send_finish(struct rbdt_cmd *cmd, enum ib_wc_status status)
{
	struct rbdt_queue *q = cmd->q;

	if (status != IB_WC_SUCCESS) {
		if (status != IB_WC_WR_FLUSH_ERR)
			rbdt_cmd_err(cmd, "response send failed: %s\n",
				     ib_wc_status_msg(status));
		rbdt_queue_error(q);
	}
	rbdt_sq_release(cmd);
	rbdt_imm_unmap(cmd);
	if (!cmd->lio) {
		rbdt_cmd_put_desc(cmd);
		return;
	}
	if (cmd->aborted)
		target_put_sess_cmd(&cmd->se_cmd);
	else
		transport_generic_free_cmd(&cmd->se_cmd, 0);
}

/*
 * Finish the commands of the response batch headed by @cmd with @status,
 * each unless the teardown already reaped it (its RBDT_WR_SEND bit).
 */
static void rbdt_rsp_batch_finish(struct rbdt_cmd *cmd,
				  enum ib_wc_status status)
{
	struct rbdt_cmd *next;

	for (; cmd; cmd = next) {
		next = cmd->batch_next;
		if (test_and_clear_bit(RBDT_WR_SEND, &cmd->wr_pending))
			rbdt_cmd_send_finish(cmd, status);
	}
}

/* Completion of a response batch: finishes each of its commands. */
static void rbdt_rsp_batch_done(struct ib_cq *cq, struct ib_wc *wc)
{
	rbdt_rsp_batch_finish(container_of(wc->wr_cqe, struct rbdt_cmd,
					   batch_cqe), wc->status);
}

/**
 * rbdt_cmd_send_done() - completion of a SCSI response SEND
 * @cq: The CQ.
 * @wc: The work completion.
 */
void rbdt_cmd_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdt_cmd *cmd = container_of(wc->wr_cqe, struct rbdt_cmd,
					    send_cqe);

	if (test_and_clear_bit(RBDT_WR_SEND, &cmd->wr_pending))
		rbdt_cmd_send_finish(cmd, wc->status);
}

/*
 * May the response of @cmd, about to be posted as @first, wait in the
 * queue's response batch? Only a plain 32-byte SEND (no data, no sense, no
 * invalidation), and only from the queue's own CQ poller, which flushes
 * the batch at the end of its polling batch (rbdt_rsp_flush()). Not from
 * an interrupt that came in on top of the poller: in_task().
 */
static bool rbdt_rsp_batchable(struct rbdt_cmd *cmd, struct ib_send_wr *first)
{
	struct rbdt_queue *q = cmd->q;

	return q->batch_max > 1 && first == &cmd->send_wr &&
	       cmd->send_wr.opcode == IB_WR_SEND &&
	       cmd->send_wr.num_sge == 1 &&
	       cmd->send_wr.sg_list == &cmd->send_sge &&
	       cmd->send_sge.length == sizeof(struct rbd_rsp) &&
	       in_task() && READ_ONCE(q->cq.poller) == current;
}

/*
 * Post the queue's response batch, if any: one response alone as it is,
 * several in one SEND gathering their 32-byte buffers. Called with
 * @q->lock held. Return the first command of a batch that could not be
 * posted, for rbdt_rsp_batch_failed(), or NULL.
 */
static struct rbdt_cmd *__rbdt_rsp_flush(struct rbdt_queue *q, int *err)
{
	struct rbdt_cmd *first = q->batch_first, *cmd;
	struct ib_send_wr wr = {};
	u16 n = q->batch_n, i = 0;
	int ret;

	lockdep_assert_held(&q->lock);
	q->batch_first = NULL;
	q->batch_last = NULL;
	q->batch_n = 0;
	if (!n)
		return NULL;
	*err = -ESHUTDOWN;
	if (q->dying)
		return first;
	if (n == 1) {
		ret = ib_post_send(q->qp, &first->send_wr, NULL);
	} else {
		for (cmd = first; i < n; cmd = cmd->batch_next)
			q->batch_sge[i++] = cmd->send_sge;
		first->batch_cqe.done = rbdt_rsp_batch_done;
		wr.wr_cqe = &first->batch_cqe;
		wr.opcode = IB_WR_SEND;
		wr.send_flags = IB_SEND_SIGNALED;
		wr.sg_list = q->batch_sge;
		wr.num_sge = n;
		ret = ib_post_send(q->qp, &wr, NULL);
		if (!ret) {
			rbdt_stat_inc(q->sess, RBDT_STAT_RSP_BATCHES);
			rbdt_stat_add(q->sess, RBDT_STAT_RSPS_BATCHED, n);
		}
	}
	*err = ret;
	return ret ? first : NULL;
}

/*
 * Finish the commands of a response batch that was not posted, as if
 * flushed: the initiator never gets their responses, and the queue is
 * going down. A command the teardown already reaped is skipped.
 */
static void rbdt_rsp_batch_failed(struct rbdt_queue *q, struct rbdt_cmd *cmd,
				  int err)
{
	if (err != -ESHUTDOWN) {
		rbdt_cmd_err(cmd, "posting a response batch failed (%d)\n",
			     err);
		rbdt_queue_error(q);
	}
	rbdt_rsp_batch_finish(cmd, IB_WC_WR_FLUSH_ERR);
}

/**
 * rbdt_rsp_flush() - post the responses waiting in a queue's batch
 * @q: The queue.
 *
 * Context: Process, the queue's CQ poller, at the end of a polling
 * batch.
 */
void rbdt_rsp_flush(struct rbdt_queue *q)
{
	struct rbdt_cmd *failed;
	unsigned long flags;
	int err = 0;
	bool bh;

	if (!READ_ONCE(q->batch_n))
		return;
	bh = rbdt_post_begin(q);
	spin_lock_irqsave(&q->lock, flags);
	failed = __rbdt_rsp_flush(q, &err);
	spin_unlock_irqrestore(&q->lock, flags);
	rbdt_post_end(bh);
	if (failed)
		rbdt_rsp_batch_failed(q, failed, err);
}

/*
 * Repost the capsule's receive buffer, then post @first (the response
 * SEND, possibly behind RDMA WRITEs), or add it to the queue's response
 * batch. Return 0 or an error; either way the slot is free for the
 * initiator afterwards. After 0 the SEND's completion, or the failure of
 * the batch, finishes the command.
 *
 * A response behind RDMA WRITEs of more than rbdt_post_bh_max_data bytes
 * is posted with bottom halves enabled even where rbdt_post_begin() would
 * disable them: on Soft-RoCE the whole transfer would otherwise be built,
 * checksummed and sent inside this (high-priority) CQ worker, which then
 * holds the CPU and receives no further command until it is out.
 */
int rbdt_post_rsp(struct rbdt_cmd *cmd, struct ib_send_wr *first)
{
	struct rbdt_queue *q = cmd->q;
	struct rbdt_recv *r = cmd->recv;
	bool batch = rbdt_rsp_batchable(cmd, first), full = false;
	unsigned long flags;
	int ret = -ESHUTDOWN;
	bool bh;

	cmd->recv = NULL;
	if (r)
		ib_dma_sync_single_for_device(q->dev->ib_dev, r->dma,
					      q->recv_size, DMA_FROM_DEVICE);
	bh = !batch && (first == &cmd->send_wr ||
			cmd->se_cmd.data_length <=
				READ_ONCE(rbdt_post_bh_max_data)) &&
	     rbdt_post_begin(q);
	spin_lock_irqsave(&q->lock, flags);
	if (!q->dying) {
		ret = r ? ib_post_recv(q->qp, &r->wr, NULL) : 0;
		if (!ret && batch) {
			set_bit(RBDT_WR_SEND, &cmd->wr_pending);
			cmd->batch_next = NULL;
			if (q->batch_last)
				q->batch_last->batch_next = cmd;
			else
				q->batch_first = cmd;
			q->batch_last = cmd;
			full = ++q->batch_n >= q->batch_max;
		} else if (!ret) {
			set_bit(RBDT_WR_SEND, &cmd->wr_pending);
			ret = ib_post_send(q->qp, first, NULL);
			if (ret)
				clear_bit(RBDT_WR_SEND, &cmd->wr_pending);
		}
	}
	rbdt_cmd_settle(cmd);
	spin_unlock_irqrestore(&q->lock, flags);
	rbdt_post_end(bh);
	if (full)
		rbdt_rsp_flush(q);

	if (ret && ret != -ESHUTDOWN) {
		rbdt_cmd_err(cmd, "posting the response failed (%d)\n", ret);
		rbdt_queue_error(q);
	}
	rbdt_stat_inc(q->sess, RBDT_STAT_REQS_COMPLETED);
	rbdt_session_cmd_done(q);
	return ret;
}

/*
 * A response that LIO knows nothing about: BUSY (@asc 0), or CHECK
 * CONDITION with sense key ILLEGAL REQUEST and @asc/@ascq in fixed format.
 */
void rbdt_send_local_rsp(struct rbdt_cmd *cmd, u8 status, u8 asc,
			 u8 ascq)
{
	u8 sense[18] = {
		[0] = 0x70, [2] = ILLEGAL_REQUEST, [7] = 0x0a,
		[12] = asc, [13] = ascq,
	};

	rbdt_build_rsp(cmd, status, sense,
		       status == SAM_STAT_CHECK_CONDITION ? sizeof(sense) : 0,
		       0, 0, 0);
	if (rbdt_post_rsp(cmd, &cmd->send_wr))
		rbdt_cmd_put_desc(cmd);
}

/* Sense bytes to send: 8 + additional length, at most the buffer. */
static u32 rbdt_sense_len(struct se_cmd *se_cmd)
{
	u32 len;

	if (!(se_cmd->se_cmd_flags &
	      (SCF_TRANSPORT_TASK_SENSE | SCF_EMULATED_TASK_SENSE)) ||
	    !se_cmd->scsi_sense_length)
		return 0;
	len = 8 + ((u8 *)se_cmd->sense_buffer)[7];
	return min3(len, (u32)se_cmd->scsi_sense_length,
		    (u32)RBD_MAX_SENSE_LEN);
}

static void rbdt_build_lio_rsp(struct rbdt_cmd *cmd, u32 imm_len)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	u32 residual = 0;
	u16 flags = 0;

	if (se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT) {
		flags = RBD_RSP_F_UNDERFLOW;
		residual = se_cmd->residual_count;
	} else if (se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT) {
		flags = RBD_RSP_F_OVERFLOW;
		residual = se_cmd->residual_count;
	}
	if (!residual)
		flags = 0;
	rbdt_build_rsp(cmd, se_cmd->scsi_status, se_cmd->sense_buffer,
		       rbdt_sense_len(se_cmd), imm_len, flags, residual);
}

/* Post a LIO response; on failure drop the ACK reference at once. */
static void rbdt_post_lio_rsp(struct rbdt_cmd *cmd, struct ib_send_wr *first)
{
	if (rbdt_post_rsp(cmd, first)) {
		rbdt_sq_release(cmd);
		rbdt_imm_unmap(cmd);
		target_put_sess_cmd(&cmd->se_cmd);
	}
}

/*
 * May the immediate read @cmd be answered with a bare response? Only if
 * the session has %RBD_FEAT_BARE_READ and the command ended well: GOOD,
 * no sense data, every expected byte (@imm_len) read.
 */
static bool rbdt_bare_ok(struct rbdt_cmd *cmd, u32 imm_len)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;

	return (cmd->q->lim.features & RBD_FEAT_BARE_READ) &&
	       !cmd->invalidate && imm_len &&
	       imm_len == se_cmd->data_length &&
	       se_cmd->scsi_status == SAM_STAT_GOOD &&
	       !rbdt_sense_len(se_cmd) &&
	       (!(se_cmd->se_cmd_flags &
		  (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)) ||
		!se_cmd->residual_count);
}

/*
 * Build the bare response of an immediate read: a SEND_WITH_IMM of the
 * @len bytes of data alone, gathered from LIO's pages, or copied to the
 * start of the response buffer when they do not fit the SGEs.
 */
static void rbdt_build_bare_rsp(struct rbdt_cmd *cmd, u32 len)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct rbdt_queue *q = cmd->q;

	cmd->send_wr.opcode = IB_WR_SEND_WITH_IMM;
	cmd->send_wr.ex.imm_data =
		(__force __be32)cpu_to_le32(rbd_bare_rsp(cmd->tag));
	cmd->send_wr.next = NULL;
	if (rbdt_imm_map(cmd, len, false))
		return;
	sg_copy_to_buffer(se_cmd->t_data_sg, se_cmd->t_data_nents, cmd->rsp,
			  len);
	cmd->send_sge.length = len;
	cmd->send_wr.sg_list = &cmd->send_sge;
	cmd->send_wr.num_sge = 1;
	ib_dma_sync_single_for_device(q->dev->ib_dev, cmd->rsp_dma, len,
				      DMA_TO_DEVICE);
}

/**
 * rbdt_queue_data_in() - send the data and GOOD status of a READ
 * @se_cmd: The command.
 *
 * Return: 0, or -EAGAIN/-ENOMEM to be called again later.
 */
int rbdt_queue_data_in(struct se_cmd *se_cmd)
{
	struct rbdt_cmd *cmd = to_rbdt_cmd(se_cmd);
	struct rbdt_queue *q = cmd->q;
	struct ib_send_wr *first = &cmd->send_wr;
	u32 imm_len = 0;
	int n, i;

	if (!cmd->nr_desc) {
		/*
		 * Immediate read; the validator bounded data_length. One that
		 * ended well gets a bare response where the session has
		 * them. Otherwise, without sense data the SEND gathers the
		 * data from LIO's pages, else (or if they do not fit) it is
		 * copied behind the header.
		 */
		imm_len = min(se_cmd->data_length, q->lim.imm_read_size);
		if (rbdt_bare_ok(cmd, imm_len)) {
			rbdt_build_bare_rsp(cmd, imm_len);
			rbdt_stat_inc(q->sess, RBDT_STAT_BARE_READS);
		} else if (rbdt_sense_len(se_cmd)) {
			sg_copy_to_buffer(se_cmd->t_data_sg,
					  se_cmd->t_data_nents,
					  (u8 *)cmd->rsp + sizeof(struct rbd_rsp),
					  imm_len);
			rbdt_build_lio_rsp(cmd, imm_len);
		} else {
			rbdt_build_lio_rsp(cmd, imm_len);
			if (!rbdt_imm_map(cmd, imm_len, true)) {
				sg_copy_to_buffer(se_cmd->t_data_sg,
						  se_cmd->t_data_nents,
						  (u8 *)cmd->rsp +
						  sizeof(struct rbd_rsp),
						  imm_len);
				ib_dma_sync_single_for_device(q->dev->ib_dev,
							      cmd->rsp_dma,
							      cmd->send_sge.length,
							      DMA_TO_DEVICE);
			}
		}
		rbdt_stat_inc(q->sess, RBDT_STAT_IMMD_READS);
		rbdt_stat_add(q->sess, RBDT_STAT_BYTES_OUT, imm_len);
		rbdt_post_lio_rsp(cmd, first);
		return 0;
	}

	n = rbdt_rw_init(cmd, DMA_TO_DEVICE);
	if (n == -EAGAIN || n == -ENOMEM)
		return n;
	if (n < 0 || n > q->sq_rdma_total) {
		rbdt_cmd_err(cmd, "cannot map the read data (%d)\n", n);
		rbdt_rw_destroy(cmd);
		rbdt_stat_inc(q->sess, RBDT_STAT_ERRORS);
		/* Status without data: the initiator sees CHECK CONDITION. */
		rbdt_build_rsp(cmd, SAM_STAT_CHECK_CONDITION, NULL, 0, 0, 0, 0);
		rbdt_post_lio_rsp(cmd, first);
		return 0;
	}
	if (n && !rbdt_sq_reserve(cmd, n)) {
		rbdt_rw_destroy(cmd);
		return -EAGAIN;
	}
	rbdt_build_lio_rsp(cmd, 0);
	for (i = cmd->nr_rw - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&cmd->rw[i].ctx, q->qp, q->port_num,
					NULL, first);
	rbdt_stat_add(q->sess, RBDT_STAT_BYTES_OUT, se_cmd->data_length);
	rbdt_post_lio_rsp(cmd, first);
	return 0;
}

/**
 * rbdt_queue_status() - send a status-only response
 * @se_cmd: The command.
 *
 * Return: 0.
 */
int rbdt_queue_status(struct se_cmd *se_cmd)
{
	struct rbdt_cmd *cmd = to_rbdt_cmd(se_cmd);

	rbdt_build_lio_rsp(cmd, 0);
	rbdt_post_lio_rsp(cmd, &cmd->send_wr);
	return 0;
}
