// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: SCSI_CMD capsules, and the life of a command in LIO. This file
 * receives and starts commands, attaches data buffers (from the queue's
 * page pool, or the capsule's inline data), and implements LIO's command
 * lifecycle ops (release_cmd, aborted_task, ...). The data transfers are
 * in rbdt_rw.c, the responses in rbdt_rsp.c.
 *
 * A command capsule occupies the command slot named by its tag. The slot's
 * descriptor (&struct rbdt_cmd) embeds the se_cmd, sense buffer, rdma_rw
 * contexts and response buffer. Life of a command:
 *
 *   receive: validate (rbd_check_cmd), claim the slot, target_init_cmd
 *	(TARGET_SCF_ACK_KREF), target_submit_prep, target_submit
 *   write_pending (rbdt_rw.c): inline data is LIO's SGL already (plain
 *	WRITEs, whose data starts on a page of the receive buffer) or is
 *	copied into it; otherwise one rdma_rw context per descriptor issues
 *	the RDMA READs, whose completion calls target_execute_cmd()
 *   queue_data_in (rbdt_rsp.c): RDMA WRITEs chained in front of the
 *	response SEND, or an immediate read: the SEND gathers the data from
 *	LIO's pages behind the header (copied into the response when it has
 *	sense data or the pages need too many SGEs)
 *   queue_status: the response SEND alone
 *   send completion: drop the ACK reference; release_cmd frees the rw
 *	contexts and the descriptor
 *
 * The receive buffer of a capsule is kept until its response is posted
 * and reposted just before that post (rule F3). The slot is free for the
 * initiator once the response is posted; the descriptor only once LIO
 * released the command, so a capsule that reuses a slot early waits for
 * the descriptor (@pending).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <scsi/scsi_proto.h>

#include "rbdt.h"

/**
 * rbdt_complete_here() - run a completion LIO has just queued
 * @cmd: A command rbdt has just handed to LIO (target_submit() or
 *	target_execute_cmd() has returned).
 *
 * LIO (6.1) never answers from the backend's completion: it queues
 * se_cmd->work (target_complete_ok_work) on target_completion_wq. When
 * the backend completes synchronously (ramdisk, fileio, iblock over a
 * RAM disk) that work item is still pending here, and handing it to a
 * worker costs a wake-up and a context switch per command. Take it back
 * and run it in this context instead, as the worker would have. If a
 * worker has already started it, cancel_work() fails and nothing
 * changes.
 *
 * The descriptor cannot be started again meanwhile: a capsule for it
 * needs the response's send completion and then arrives as a receive,
 * both delivered by the queue's CQ work, which is the caller (not
 * rbdt_pending_work(), which is why the receive handler calls this and
 * rbdt_start_cmd() does not).
 *
 * Context: the queue's CQ work, after rbdt_start_cmd() or after the RDMA
 * READs of a write completed; no locks held.
 */
void rbdt_complete_here(struct rbdt_cmd *cmd)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;

	if (!READ_ONCE(rbdt_complete_inline))
		return;
	if (!cancel_work(&se_cmd->work))
		return;
	rbdt_stat_inc(cmd->q->sess, RBDT_STAT_COMPL_HERE);
	se_cmd->work.func(&se_cmd->work);
}

/* Give the descriptor back, or start the capsule that waited for it. */
void rbdt_cmd_put_desc(struct rbdt_cmd *cmd)
{
	struct rbdt_queue *q = cmd->q;
	unsigned long flags;
	bool start = false;

	spin_lock_irqsave(&q->lock, flags);
	if (cmd->pending) {
		cmd->pending = false;
		cmd->start_pending = true;
		start = true;
	} else {
		cmd->busy = false;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (start)
		queue_work(rbdt_wq, &q->pending_work);
}

/*
 * Refuse a capsule that rbd_check_cmd() did not accept, or that names
 * another LUN than the session's: CHECK CONDITION without passing it to
 * LIO. A direction that contradicts the CDB is an invalid field in the CDB;
 * every other problem is one of the capsule, the information unit.
 */
static void rbdt_refuse_cmd(struct rbdt_cmd *cmd, enum rbd_check c, u64 lun)
{
	rbdt_stat_inc(cmd->q->sess, RBDT_STAT_ERRORS);
	if (c == RBD_CHECK_OK) {
		rbdt_cmd_err(cmd, "refused command: LUN %llu is not the session's\n",
			     lun);
		rbdt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x25, 0x00);
	} else if (c == RBD_CHECK_CDB_DIR) {
		rbdt_cmd_err(cmd, "refused command: %s (opcode %#04x, direction %u)\n",
			     rbd_check_str(c), cmd->req->cdb[0], cmd->req->dir);
		rbdt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x24, 0x00);
	} else {
		rbdt_cmd_err(cmd, "refused command: %s\n", rbd_check_str(c));
		rbdt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x0e, 0x03);
	}
}

static const int rbdt_task_attr[] = {
	[RBD_TASK_SIMPLE]	= TCM_SIMPLE_TAG,
	[RBD_TASK_ORDERED]	= TCM_ORDERED_TAG,
	[RBD_TASK_HEAD]		= TCM_HEAD_TAG,
	[RBD_TASK_ACA]		= TCM_ACA_TAG,
};

/*
 * Describe the inline data of a WRITE (data_length bytes, checked by
 * rbd_check_cmd()) by the scatterlist of its receive buffer, to be LIO's
 * data buffer: the data starts on a page (rbdt_recv_alloc_paged()).
 * Only plain WRITEs: a data CDB whose length disagrees with data_length is
 * refused by LIO either way, whereas for other CDBs (overflow) LIO cannot
 * take a buffer from the fabric. The buffer stays the command's until its
 * response is posted, after LIO is done with the data (rule F3).
 *
 * Return: the number of entries, or 0 to let LIO allocate and copy.
 */
static u32 rbdt_inline_sgl(const struct rbdt_cmd *cmd)
{
	const struct rbd_cmd *req = cmd->req;
	const struct rbdt_recv *r = cmd->recv;
	u8 *data = (u8 *)(req + 1);
	u32 len = le32_to_cpu(req->data_length);
	u32 i, n;

	if (!r->pages || cmd->dir != RBD_DIR_WRITE || cmd->nr_desc)
		return 0;
	switch (req->cdb[0]) {
	case WRITE_6:
	case WRITE_10:
	case WRITE_12:
	case WRITE_16:
		break;
	default:
		return 0;
	}
	n = DIV_ROUND_UP(len, PAGE_SIZE);
	sg_init_table(r->sg, n);
	for (i = 0; i < n; i++) {
		u32 l = min_t(u32, len, PAGE_SIZE);

		sg_set_page(&r->sg[i], virt_to_page(data), l, 0);
		data += l;
		len -= l;
	}
	return n;
}

/* The pages of a data pool of @kb KiB (rbdt_queue_new()). */
u32 rbdt_pool_pages(u32 kb)
{
	return DIV_ROUND_UP(kb, PAGE_SIZE / SZ_1K);
}

/**
 * rbdt_pool_init() - set up the data page pool of a new queue
 * @pool: The pool, zeroed but for its size @max.
 *
 * The pool starts empty; rbdt_data_attach() fills it on demand.
 *
 * Return: 0 or -ENOMEM.
 */
int rbdt_pool_init(struct rbdt_pool *pool)
{
	spin_lock_init(&pool->lock);
	if (!pool->max)
		return 0;
	pool->pages = kvcalloc(pool->max, sizeof(*pool->pages), GFP_KERNEL);
	if (!pool->pages) {
		pool->max = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * rbdt_pool_destroy() - free a queue's pool
 * @pool: The pool; every command of the queue has been released.
 */
void rbdt_pool_destroy(struct rbdt_pool *pool)
{
	while (pool->nr)
		__free_page(pool->pages[--pool->nr]);
	kvfree(pool->pages);
	pool->pages = NULL;
	pool->max = 0;
}

/*
 * Give the first @n pages of @cmd's data buffer back to the pool and free
 * the scatterlist. Only a page that nobody else holds goes back: a
 * provider may still reference one after the work request that sent it
 * has completed (soft-iWARP hands the pages of an unsignalled RDMA WRITE
 * to TCP without copying them, and TCP keeps them until the peer
 * acknowledges). Reused at once, such a page would change the data on
 * the wire; dropped instead, it is freed when its last holder lets go.
 * The pages the pool has no room for are dropped too.
 */
static void rbdt_data_put(struct rbdt_cmd *cmd, u32 n)
{
	struct rbdt_pool *pool = &cmd->q->pool;
	struct scatterlist *sg = cmd->data_sgt.sgl;
	unsigned long flags;
	u32 i, busy = 0;

	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < n; i++, sg = sg_next(sg)) {
		struct page *page = sg_page(sg);

		if (page_count(page) == 1 && pool->nr < pool->max) {
			pool->pages[pool->nr++] = page;
			continue;
		}
		busy += page_count(page) > 1;
		put_page(page);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (busy)
		rbdt_stat_add(cmd->q->sess, RBDT_STAT_DATA_POOL_BUSY, busy);
	sg_free_table_chained(&cmd->data_sgt, RBDT_DATA_SG);
}

/*
 * Give a READ or WRITE a data buffer from the queue's pool instead of the
 * one LIO would allocate in target_submit(). Called after
 * target_submit_prep(), once LIO has parsed the CDB and settled the data
 * length, which is why the buffer is attached here as target_submit_prep()
 * attaches a fabric's SGL, rather than passed to it. Only where LIO takes
 * a fabric's buffer: data CDBs without overflow (which LIO refuses with
 * such a buffer) that need no second buffer (COMPARE AND WRITE,
 * bidirectional). If pages run out, LIO allocates as usual.
 */
static void rbdt_data_attach(struct rbdt_cmd *cmd)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct rbdt_pool *pool = &cmd->q->pool;
	u32 len = se_cmd->data_length;
	struct scatterlist *sg;
	unsigned long flags;
	u32 n, i, pooled;

	if (!pool->max || !len || se_cmd->t_data_nents ||
	    !(se_cmd->se_cmd_flags & SCF_SCSI_DATA_CDB) ||
	    (se_cmd->se_cmd_flags &
	     (SCF_OVERFLOW_BIT | SCF_BIDI | SCF_COMPARE_AND_WRITE)))
		return;
	n = DIV_ROUND_UP(len, PAGE_SIZE);
	cmd->data_sgt.sgl = cmd->data_sg;
	if (sg_alloc_table_chained(&cmd->data_sgt, n, cmd->data_sg,
				   RBDT_DATA_SG))
		return;

	sg = cmd->data_sgt.sgl;
	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < n && pool->nr; i++, sg = sg_next(sg))
		sg_set_page(sg, pool->pages[--pool->nr],
			    min_t(u32, len - i * PAGE_SIZE, PAGE_SIZE), 0);
	spin_unlock_irqrestore(&pool->lock, flags);
	for (pooled = i; i < n; i++, sg = sg_next(sg)) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			break;
		sg_set_page(sg, page, min_t(u32, len - i * PAGE_SIZE,
					    PAGE_SIZE), 0);
	}
	if (i > pooled)
		rbdt_stat_add(cmd->q->sess, RBDT_STAT_DATA_POOL_NEW,
			      i - pooled);
	if (i < n) {
		/* Into the pool: the next command will want them. */
		rbdt_data_put(cmd, i);
		return;
	}

	se_cmd->t_data_sg = cmd->data_sgt.sgl;
	se_cmd->t_data_nents = n;
	se_cmd->se_cmd_flags |= SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC;
	cmd->data_pooled = true;
	rbdt_stat_inc(cmd->q->sess, RBDT_STAT_DATA_POOLED);
}

/* Reset @cmd for the capsule in @r, and count it in its session. */
static void rbdt_cmd_begin(struct rbdt_cmd *cmd, struct rbdt_recv *r)
{
	struct rbdt_queue *q = cmd->q;
	u32 n;

	cmd->recv = r;
	cmd->req = r->buf;
	cmd->lio = false;
	cmd->aborted = false;
	cmd->inline_zc = false;
	cmd->invalidate = false;
	cmd->data_pooled = false;
	cmd->nr_rw = 0;
	cmd->rdma_wrs = 0;
	rbdt_stat_inc(q->sess, RBDT_STAT_REQS_STARTED);

	n = atomic_inc_return(&q->inflight);
	if (n > READ_ONCE(q->max_inflight))
		WRITE_ONCE(q->max_inflight, n);
}

/* The DMA direction of a capsule's data direction. */
static enum dma_data_direction rbdt_dma_dir(u8 dir)
{
	switch (dir) {
	case RBD_DIR_WRITE:
		return DMA_TO_DEVICE;
	case RBD_DIR_READ:
		return DMA_FROM_DEVICE;
	default:
		return DMA_NONE;
	}
}

/*
 * Start a capsule whose slot is claimed and whose descriptor is ours; @c
 * is what rbd_check_cmd() found in it (rbdt_handle_cmd()).
 */
static void rbdt_start_cmd(struct rbdt_cmd *cmd, struct rbdt_recv *r,
			   enum rbd_check c)
{
	const struct rbd_cmd *req = r->buf;
	struct rbdt_queue *q = cmd->q;
	struct rbdt_session *sess = q->sess;
	struct se_cmd *se_cmd = &cmd->se_cmd;
	u32 nents;

	rbdt_cmd_begin(cmd, r);
	if (c || le64_to_cpu(req->lun) != sess->lun) {
		rbdt_refuse_cmd(cmd, c, le64_to_cpu(req->lun));
		return;
	}
	cmd->dir = req->dir;
	cmd->nr_desc = le16_to_cpu(req->nr_desc);
	if (le16_to_cpu(req->hdr.flags) & RBD_CMD_F_INVALIDATE) {
		const struct rbd_desc *desc = (const void *)(req + 1);

		cmd->invalidate = true;
		cmd->inv_rkey = le32_to_cpu(desc[0].rkey);
	}

	if (READ_ONCE(sess->logout)) {
		rbdt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}

	memset(se_cmd, 0, sizeof(*se_cmd));
	se_cmd->tag = cmd->tag;
	if (target_init_cmd(se_cmd, sess->se_sess, cmd->sense,
			    le64_to_cpu(req->lun), le32_to_cpu(req->data_length),
			    rbdt_task_attr[req->task_attr],
			    rbdt_dma_dir(req->dir), TARGET_SCF_ACK_KREF)) {
		/* The session is stopping. */
		rbdt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}
	cmd->lio = true;
	nents = rbdt_inline_sgl(cmd);
	cmd->inline_zc = nents > 0;
	/* On failure LIO has sent CHECK CONDITION through queue_status. */
	if (target_submit_prep(se_cmd, (unsigned char *)req->cdb,
			       nents ? r->sg : NULL, nents, NULL, 0, NULL, 0,
			       GFP_KERNEL))
		return;
	rbdt_data_attach(cmd);
	target_submit(se_cmd);
}

/**
 * rbdt_handle_cmd() - a SCSI_CMD capsule arrived on an I/O queue
 * @q: The queue.
 * @r: Its receive buffer.
 * @len: Byte count of the receive completion.
 *
 * Capsules refused before their tag is known, and reused tags, disconnect
 * the session; every other capsule is answered.
 *
 * Context: CQ work (process context).
 */
void rbdt_handle_cmd(struct rbdt_queue *q, struct rbdt_recv *r, u32 len)
{
	const struct rbd_cmd *req = r->buf;
	struct rbdt_cmd *cmd;
	unsigned long flags;
	enum rbd_check c;
	bool reused, wait;
	u64 tag;

	c = rbd_check_cmd(r->buf, len, &q->lim);
	if (rbd_check_cmd_fatal(c)) {
		pr_err_ratelimited("session %016llx %pISpc qid %u: refused command capsule: %s; disconnecting\n",
				   q->sess->handle, &q->peer, q->qid,
				   rbd_check_str(c));
		rbdt_stat_inc(q->sess, RBDT_STAT_ERRORS);
		rbdt_queue_error(q);
		return;
	}
	tag = le64_to_cpu(req->hdr.tag);
	cmd = &q->cmds[rbd_tag_slot(tag)];

	spin_lock_irqsave(&q->lock, flags);
	reused = cmd->outstanding;
	wait = false;
	if (!reused) {
		cmd->outstanding = true;
		WRITE_ONCE(q->nr_outstanding, q->nr_outstanding + 1);
		if (cmd->busy) {
			cmd->pending = true;
			cmd->pending_recv = r;
			cmd->pending_check = c;
			wait = true;
		} else {
			cmd->busy = true;
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);

	if (reused) {
		pr_err_ratelimited("session %016llx %pISpc qid %u tag %#llx: reused tag of an outstanding command; disconnecting\n",
				   q->sess->handle, &q->peer, q->qid, tag);
		rbdt_stat_inc(q->sess, RBDT_STAT_ERRORS);
		rbdt_queue_error(q);
		return;
	}
	if (wait) {
		rbdt_stat_inc(q->sess, RBDT_STAT_SLOT_WAITS);
		return;
	}
	cmd->tag = tag;
	rbdt_start_cmd(cmd, r, c);
	rbdt_complete_here(cmd);
}

/**
 * rbdt_pending_work() - start capsules that waited for their descriptor
 * @work: &rbdt_queue.pending_work.
 *
 * LIO queues this from rbdt_release_cmd() before it drops the command's
 * count on the session, so it can run after the session's commands are
 * all gone. Nothing is started on a dying queue: the session teardown
 * cancels this work (sync) before it removes the LIO session, and a
 * capsule started here would hand that session to target_init_cmd().
 */
void rbdt_pending_work(struct work_struct *work)
{
	struct rbdt_queue *q = container_of(work, struct rbdt_queue,
					    pending_work);
	unsigned long flags;
	u32 i;

	for (i = 0; i < q->depth; i++) {
		struct rbdt_cmd *cmd = &q->cmds[i];
		struct rbdt_recv *r;
		enum rbd_check c;
		bool start;

		spin_lock_irqsave(&q->lock, flags);
		start = cmd->start_pending && !q->dying;
		cmd->start_pending = false;
		r = cmd->pending_recv;
		c = cmd->pending_check;
		spin_unlock_irqrestore(&q->lock, flags);
		if (!start)
			continue;
		cmd->tag = le64_to_cpu(((struct rbd_hdr *)r->buf)->tag);
		rbdt_start_cmd(cmd, r, c);
	}
}

/**
 * rbdt_aborted_task() - LIO aborted a command without TAS
 * @se_cmd: The command, or a TMR that a LUN RESET overtook.
 *
 * The protocol answers every accepted command: send TASK ABORTED (a TMR:
 * its TMF_RSP, "rejected"). Core drops the ACK reference after this
 * returns, so an extra one keeps the descriptor until the SEND completed.
 */
void rbdt_aborted_task(struct se_cmd *se_cmd)
{
	struct rbdt_cmd *cmd;

	if (se_cmd->se_cmd_flags & SCF_SCSI_TMR_CDB) {
		rbdt_tmr_respond(se_cmd, true);
		return;
	}
	cmd = to_rbdt_cmd(se_cmd);
	rbdt_sq_release(cmd);
	if (!kref_get_unless_zero(&se_cmd->cmd_kref)) {
		rbdt_cmd_answered(cmd);
		return;
	}
	cmd->aborted = true;
	rbdt_build_rsp(cmd, SAM_STAT_TASK_ABORTED, NULL, 0, 0, 0, 0);
	if (rbdt_post_rsp(cmd, &cmd->send_wr))
		target_put_sess_cmd(se_cmd);
}

/**
 * rbdt_check_stop_free() - drop the reference of the queue_* call
 * @se_cmd: The command.
 *
 * Return: 1 if the command was released.
 */
int rbdt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

/**
 * rbdt_release_cmd() - LIO is done with a command
 * @se_cmd: The command.
 *
 * Context: Any; does not sleep.
 */
void rbdt_release_cmd(struct se_cmd *se_cmd)
{
	struct rbdt_cmd *cmd;
	struct rbdt_recv *r;

	if (se_cmd->se_cmd_flags & SCF_SCSI_TMR_CDB) {
		rbdt_tmr_free(se_cmd);
		return;
	}
	cmd = to_rbdt_cmd(se_cmd);
	r = cmd->recv;

	rbdt_rw_destroy(cmd);
	rbdt_sq_release(cmd);
	if (cmd->data_pooled) {
		rbdt_data_put(cmd, cmd->data_sgt.orig_nents);
		cmd->data_pooled = false;
	}
	if (r) {
		/* Never answered (session teardown): give the buffer back. */
		cmd->recv = NULL;
		rbdt_queue_post_recv(cmd->q, r);
		rbdt_cmd_answered(cmd);
	}
	cmd->lio = false;
	rbdt_cmd_put_desc(cmd);
}

/**
 * rbdt_get_cmd_state() - for LIO's debug messages
 * @se_cmd: The command.
 *
 * Return: 0.
 */
int rbdt_get_cmd_state(struct se_cmd *se_cmd)
{
	return 0;
}
