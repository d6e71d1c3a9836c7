// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: command data over RDMA. The data of a command that names
 * descriptors (buffers of the initiator) moves with RDMA READs (a WRITE's
 * data, fetched in the write_pending fabric op) or RDMA WRITEs (a READ's,
 * chained in front of its response by rbdt_queue_data_in()), through one
 * rdma_rw context per descriptor. Send queue slots for these are reserved
 * per command. A queue may limit the WRITEs that fetch at once
 * (rbdt_fetch_limit()); the others wait in line, and a stall check keeps
 * a fetch that waits for a retransmission from holding up the rest.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "rbdt.h"

void rbdt_rw_destroy(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;
	u32 i;

	for (i = 0; i < cmd->nr_rw; i++)
		rdma_rw_ctx_destroy(&cmd->rw[i].ctx, q->qp, q->port_num,
				    cmd->rw[i].sg, cmd->rw[i].nents,
				    cmd->rw_dir);
	cmd->nr_rw = 0;
	kfree(cmd->sgl);
	cmd->sgl = NULL;
}

/*
 * Set up one rdma_rw context per descriptor, for the se_cmd->data_length
 * bytes of LIO's SGL, starting at the first descriptor. With several
 * descriptors the SGL is split at their boundaries into @cmd->sgl.
 * Returns the number of send work requests needed, or a negative errno.
 */
int rbdt_rw_init(struct rbdt_cmd *cmd, enum dma_data_direction dir)
{
	const struct rbd_desc *desc = (const struct rbd_desc *)(cmd->req + 1);
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct rbdt_queue *q = cmd->q;
	struct scatterlist *src = se_cmd->t_data_sg, *dst;
	u32 remaining = se_cmd->data_length, src_off = 0;
	int ret, wrs = 0;
	u32 i;

	cmd->rw_dir = dir;
	cmd->nr_rw = 0;
	if (!remaining)
		return 0;

	if (cmd->nr_desc == 1) {
		ret = rdma_rw_ctx_init(&cmd->rw[0].ctx, q->qp, q->port_num,
				       se_cmd->t_data_sg, se_cmd->t_data_nents,
				       0, le64_to_cpu(desc[0].addr),
				       le32_to_cpu(desc[0].rkey), dir);
		if (ret < 0)
			return ret;
		cmd->rw[0].sg = se_cmd->t_data_sg;
		cmd->rw[0].nents = se_cmd->t_data_nents;
		cmd->nr_rw = 1;
		return ret;
	}

	cmd->sgl = kmalloc_array(se_cmd->t_data_nents + cmd->nr_desc,
				 sizeof(*cmd->sgl), GFP_NOIO);
	if (!cmd->sgl)
		return -ENOMEM;
	sg_init_table(cmd->sgl, se_cmd->t_data_nents + cmd->nr_desc);
	dst = cmd->sgl;

	for (i = 0; i < cmd->nr_desc && remaining; i++) {
		u32 len = min(le32_to_cpu(desc[i].len), remaining);
		struct scatterlist *first = dst;
		u32 nents = 0;

		remaining -= len;
		while (len) {
			u32 chunk = min(src->length - src_off, len);

			sg_set_page(dst, sg_page(src), chunk,
				    src->offset + src_off);
			dst++;
			nents++;
			len -= chunk;
			src_off += chunk;
			if (src_off == src->length) {
				src = sg_next(src);
				src_off = 0;
				if (!src && (len || remaining)) {
					ret = -EINVAL;
					goto out_destroy;
				}
			}
		}
		sg_mark_end(dst - 1);
		ret = rdma_rw_ctx_init(&cmd->rw[i].ctx, q->qp, q->port_num,
				       first, nents, 0,
				       le64_to_cpu(desc[i].addr),
				       le32_to_cpu(desc[i].rkey), dir);
		if (ret < 0)
			goto out_destroy;
		cmd->rw[i].sg = first;
		cmd->rw[i].nents = nents;
		cmd->nr_rw = i + 1;
		wrs += ret;
	}
	return wrs;

out_destroy:
	rbdt_rw_destroy(cmd);
	return ret;
}

/* Reserve @n send queue slots for RDMA work requests. */
bool rbdt_sq_reserve(struct rbdt_cmd *cmd, int n)
{
	struct rbdt_queue *q = cmd->q;

	if (atomic_sub_return(n, &q->sq_rdma_avail) < 0) {
		atomic_add(n, &q->sq_rdma_avail);
		rbdt_stat_inc(q->sess, RBDT_STAT_STALL_SQ_FULL);
		return false;
	}
	cmd->rdma_wrs = n;
	return true;
}

void rbdt_sq_release(struct rbdt_cmd *cmd)
{
	if (cmd->rdma_wrs) {
		atomic_add(cmd->rdma_wrs, &cmd->q->sq_rdma_avail);
		cmd->rdma_wrs = 0;
	}
}

/**
 * rbdt_fetch_limit() - WRITE commands a queue on @dev fetches data for at once
 * @dev: The queue's RDMA device.
 * @setting: The TPG attribute max_write_fetches (-1 for the default).
 *
 * Soft-RoCE's responder takes the requests that reach a QP strictly one
 * after the other, and answers an RDMA READ in full before it looks at
 * the next request: a response SEND posted behind other commands' RDMA
 * READs reaches the initiator only once all their data is across. With
 * every WRITE fetching at once, the responses of a deep queue of large
 * writes then arrive together, after the last fetch, and the initiator
 * refills its queue in bursts, with the CPUs idle in between. One fetch
 * at a time puts each response ahead of the next command's RDMA READs
 * (rbdt_read_finish()); Documentation/performance.rst has the figures.
 * Hardware answers RDMA READs in engines of its own, and siw from its
 * transmit thread, apart from the receive path that delivers a SEND; a
 * limit there is not measured.
 *
 * On a link that loses packets, a fetch that waits for a retransmission
 * would hold up the queue's next ones for the QP's whole timeout; the
 * stall check (rbdt_fetch_stall_work()) starts the next one early, and
 * with it the retry (tests/rbdi/022, 2 % loss).
 *
 * Return: @setting; for -1, 1 on rxe and 0 (no limit) on any other device.
 */
u16 rbdt_fetch_limit(struct ib_device *dev, int setting)
{
	if (setting >= 0)
		return setting;
	return dev->ops.driver_id == RDMA_DRIVER_RXE ? 1 : 0;
}

/*
 * Count the RDMA READs @cmd is about to post. The adapter keeps at most
 * the connection's initiator depth (ORD) of them in flight and holds the
 * rest back; count when that happens.
 */
static void rbdt_reads_get(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;
	u32 i, ops = 0;

	for (i = 0; i < cmd->nr_rw; i++)
		ops += cmd->rw[i].ctx.nr_ops;
	cmd->read_ops = ops;
	if (atomic_add_return(ops, &q->reads_inflight) > q->ord)
		rbdt_stat_inc(q->sess, RBDT_STAT_STALL_ORDQ_FULL);
}

static void rbdt_reads_put(struct rbdt_cmd *cmd)
{
	atomic_sub(cmd->read_ops, &cmd->q->reads_inflight);
	cmd->read_ops = 0;
}

/* Post the RDMA READs of @cmd; on failure release what they held. */
static int rbdt_read_post(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;
	struct ib_send_wr *first = NULL;
	int i, ret;

	for (i = cmd->nr_rw - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&cmd->rw[i].ctx, q->qp, q->port_num,
					first ? NULL : &cmd->read_cqe, first);
	rbdt_reads_get(cmd);
	set_bit(RBDT_WR_READ, &cmd->wr_pending);
	ret = rbdt_queue_post_send(q, first);
	if (ret) {
		clear_bit(RBDT_WR_READ, &cmd->wr_pending);
		rbdt_reads_put(cmd);
		/* Nothing or a flushed part posted; fail the command. */
		if (ret != -ESHUTDOWN) {
			rbdt_cmd_err(cmd, "posting RDMA READ failed (%d)\n", ret);
			rbdt_queue_error(q);
		}
		rbdt_sq_release(cmd);
		rbdt_rw_destroy(cmd);
	}
	return ret;
}

/* Take the first command waiting for its fetch off @q's list, or NULL. */
static struct rbdt_cmd *rbdt_fetch_dequeue(struct rbdt_queue *q)
{
	struct rbdt_cmd *cmd = q->fetch_wait_first;

	lockdep_assert_held(&q->lock);
	if (cmd) {
		q->fetch_wait_first = cmd->fetch_next;
		if (!q->fetch_wait_first)
			q->fetch_wait_last = NULL;
	}
	return cmd;
}

/* Start the fetch of a waiting @cmd; false if it failed (and @cmd with it). */
static bool rbdt_fetch_start(struct rbdt_cmd *cmd)
{
	if (!rbdt_read_post(cmd))
		return true;
	rbdt_stat_inc(cmd->q->sess, RBDT_STAT_ERRORS);
	transport_generic_request_failure(&cmd->se_cmd,
					  TCM_CHECK_CONDITION_ABORT_CMD);
	return false;
}

/*
 * A command's data fetch ended (its RDMA READs completed, or could not be
 * posted): on a queue that limits its fetches (see rbdt_fetch_limit()),
 * pass the turn to the first waiting command, failing any whose post
 * fails in turn, or give it back. A turn taken by the stall check (more
 * fetches than the limit) is given back.
 */
static void rbdt_fetch_next(struct rbdt_queue *q)
{
	struct rbdt_cmd *next;
	unsigned long flags;

	if (!q->fetch_max)
		return;
	do {
		spin_lock_irqsave(&q->lock, flags);
		q->fetch_ends++;
		next = NULL;
		if (q->fetches <= q->fetch_max)
			next = rbdt_fetch_dequeue(q);
		if (!next)
			q->fetches--;
		spin_unlock_irqrestore(&q->lock, flags);
	} while (next && !rbdt_fetch_start(next));
}

/*
 * How long a queue's fetches may all make no progress before the stall
 * check starts a waiting one; between one and two of these pass.
 */
#define RBDT_FETCH_STALL_MS	10

/**
 * rbdt_fetch_stall_work() - start a waiting fetch when the running ones stall
 * @work: &rbdt_queue.fetch_work.
 *
 * A fetch whose RDMA READ response lost a packet waits for the QP's ACK
 * timeout (2 s and more with rdma_cm's defaults on RoCE) unless a later
 * work request of the QP is answered first: that answer tells the
 * requester the READ's response is incomplete, and the READ is retried at
 * once. Without a limit the other WRITEs' fetches do that; with one,
 * nothing follows the stalled fetch and the waiting WRITEs pay the whole
 * timeout in turn. So while commands wait, this runs every
 * %RBDT_FETCH_STALL_MS; when no fetch ended since the last run, it starts
 * the first waiting command beyond the limit, which does both: it uses
 * the link and makes the requester retry. The extra turn is given back
 * when a fetch ends (rbdt_fetch_next()).
 *
 * Context: Process, rbdt_wq; the queue's session holds the waiting
 * commands, so the queue outlives this (rbdt_queue_destroy() cancels it).
 */
void rbdt_fetch_stall_work(struct work_struct *work)
{
	struct rbdt_queue *q = container_of(to_delayed_work(work),
					    struct rbdt_queue, fetch_work);
	struct rbdt_cmd *cmd = NULL;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->fetch_ends == q->fetch_seen) {
		cmd = rbdt_fetch_dequeue(q);
		if (cmd)
			q->fetches++;
	}
	q->fetch_seen = q->fetch_ends;
	q->fetch_watched = !!q->fetch_wait_first;
	if (q->fetch_watched)
		queue_delayed_work(rbdt_wq, &q->fetch_work,
				   msecs_to_jiffies(RBDT_FETCH_STALL_MS));
	spin_unlock_irqrestore(&q->lock, flags);

	if (!cmd)
		return;
	rbdt_stat_inc(q->sess, RBDT_STAT_FETCH_STALLS);
	if (!rbdt_fetch_start(cmd))
		rbdt_fetch_next(q);
}

/*
 * The RDMA READs of @cmd completed, the last one with @status. The next
 * fetch starts only after the response of this command is posted (where
 * the backend completed at once): it then goes ahead of that fetch's
 * RDMA READs in the send queue.
 */
static void rbdt_read_finish(struct rbdt_cmd *cmd, enum ib_wc_status status)
{
	struct rbdt_queue *q = cmd->q;

	rbdt_reads_put(cmd);
	rbdt_sq_release(cmd);
	rbdt_rw_destroy(cmd);
	if (status != IB_WC_SUCCESS) {
		if (status != IB_WC_WR_FLUSH_ERR)
			rbdt_cmd_err(cmd, "RDMA READ failed: %s\n",
				     ib_wc_status_msg(status));
		rbdt_stat_inc(cmd->q->sess, RBDT_STAT_ERRORS);
		rbdt_queue_error(cmd->q);
		transport_generic_request_failure(&cmd->se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		rbdt_fetch_next(q);
		return;
	}
	rbdt_stat_add(cmd->q->sess, RBDT_STAT_BYTES_IN,
		      cmd->se_cmd.data_length);
	target_execute_cmd(&cmd->se_cmd);
	rbdt_complete_here(cmd);
	rbdt_fetch_next(q);
}

static void rbdt_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rbdt_cmd *cmd = container_of(wc->wr_cqe, struct rbdt_cmd,
					    read_cqe);

	if (test_and_clear_bit(RBDT_WR_READ, &cmd->wr_pending))
		rbdt_read_finish(cmd, wc->status);
}

/**
 * rbdt_queue_reap_lost() - finish work requests whose completion was lost
 * @q: A dying queue, after ib_drain_qp().
 *
 * After the drain every completion of @q has been handled, as far as the
 * verbs contract goes. siw (6.1) can drop the flush completion of an RDMA
 * READ that was in flight when the connection closed; the command would
 * then hold its session forever. Finish such commands as flushed. A
 * completion that still arrives later finds its bit clear and is ignored.
 *
 * Context: Process; the queue's session is being released.
 */
void rbdt_queue_reap_lost(struct rbdt_queue *q)
{
	u32 i;

	for (i = 0; i < q->depth; i++) {
		struct rbdt_cmd *cmd = &q->cmds[i];

		if (test_and_clear_bit(RBDT_WR_READ, &cmd->wr_pending)) {
			rbdt_cmd_err(cmd, "RDMA READ completion lost after the drain; failing the command\n");
			rbdt_read_finish(cmd, IB_WC_WR_FLUSH_ERR);
		}
		if (test_and_clear_bit(RBDT_WR_SEND, &cmd->wr_pending)) {
			rbdt_cmd_err(cmd, "response completion lost after the drain\n");
			rbdt_cmd_send_finish(cmd, IB_WC_WR_FLUSH_ERR);
		}
	}
}

/**
 * rbdt_write_pending() - fetch the data of a WRITE
 * @se_cmd: The command; LIO has allocated its SGL.
 *
 * Return: 0, -EAGAIN/-ENOMEM to be called again later, or another error
 * to fail the command.
 */
int rbdt_write_pending(struct se_cmd *se_cmd)
{
	struct rbdt_cmd *cmd = to_rbdt_cmd(se_cmd);
	struct rbdt_queue *q = cmd->q;
	int n, ret;

	if (!cmd->nr_desc) {
		/* Inline data; the validator checked its length. */
		if (cmd->inline_zc)
			rbdt_stat_inc(q->sess, RBDT_STAT_IMMD_WRITES_NOCOPY);
		else
			sg_copy_from_buffer(se_cmd->t_data_sg,
					    se_cmd->t_data_nents,
					    (const void *)(cmd->req + 1),
					    se_cmd->data_length);
		rbdt_stat_inc(q->sess, RBDT_STAT_IMMD_WRITES);
		rbdt_stat_add(q->sess, RBDT_STAT_BYTES_IN, se_cmd->data_length);
		target_execute_cmd(se_cmd);
		return 0;
	}

	n = rbdt_rw_init(cmd, DMA_FROM_DEVICE);
	if (n < 0)
		return n == -EAGAIN || n == -ENOMEM ? n : -EIO;
	if (!cmd->nr_rw) {
		target_execute_cmd(se_cmd);
		return 0;
	}
	if (n > q->sq_rdma_total) {
		rbdt_cmd_err(cmd, "needs %d work requests, the queue has %u\n",
			     n, q->sq_rdma_total);
		rbdt_rw_destroy(cmd);
		return -EIO;
	}
	if (!rbdt_sq_reserve(cmd, n)) {
		rbdt_rw_destroy(cmd);
		return -EAGAIN;
	}

	cmd->read_cqe.done = rbdt_read_done;
	if (q->fetch_max) {
		unsigned long flags;
		bool wait;

		spin_lock_irqsave(&q->lock, flags);
		wait = q->fetches >= q->fetch_max;
		if (wait) {
			cmd->fetch_next = NULL;
			if (q->fetch_wait_last)
				q->fetch_wait_last->fetch_next = cmd;
			else
				q->fetch_wait_first = cmd;
			q->fetch_wait_last = cmd;
			if (!q->fetch_watched) {
				q->fetch_watched = true;
				q->fetch_seen = q->fetch_ends;
				queue_delayed_work(rbdt_wq, &q->fetch_work,
						   msecs_to_jiffies(RBDT_FETCH_STALL_MS));
			}
		} else {
			q->fetches++;
		}
		spin_unlock_irqrestore(&q->lock, flags);
		if (wait) {
			rbdt_stat_inc(q->sess, RBDT_STAT_FETCH_WAITS);
			return 0;
		}
	}
	ret = rbdt_read_post(cmd);
	if (ret) {
		rbdt_fetch_next(q);
		return -EIO;
	}
	return 0;
}
