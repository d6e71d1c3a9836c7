// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the block device, /dev/rbdiN: its blk-mq queues, a request's
 * submission as a command (rbdi_queue_rq()) and its completion, timeouts,
 * and the life of the disk (rbdi_blk_add() to rbdi_blk_free()).
 *
 * One blk-mq hardware queue per I/O queue; its depth is the granted
 * queue depth and the blk-mq tag is the command slot of the wire tag.
 * Every request carries a command capsule, DMA-mapped once in
 * init_request. Data goes
 *
 *  - inside the capsule for writes up to the granted inline size,
 *  - inside the response for reads up to the granted immediate size,
 *  - otherwise through one fast-registration MR per request (the queue
 *    limits make every request fit one MR), posted as REG_MR chained
 *    before the SEND. The target invalidates it with SEND_WITH_INV when
 *    remote invalidation was granted; otherwise a LOCAL_INV is posted
 *    when the response arrives.
 *
 * A request completes when its reference count, two at the start, drops
 * to zero: one for the SEND completion and one for the response (or the
 * LOCAL_INV that follows it), both in rbdi_rsp.c. Until then the HCA may
 * still own the capsule, the MR or the data.
 *
 * Geometry, cache mode, identification and provisioning limits come from
 * SCSI commands sent as passthrough requests (REQ_OP_DRV_IN) through the
 * same path (rbdi_scsi.c); SG_IO uses that path too (rbdi_sgio.c). The
 * disk's attributes in /sys/block/rbdiN/rbd/ are in rbdi_sysfs.c.
 *
 * Each completed request is counted in a per-CPU latency histogram
 * (debugfs latency, rbdi_debugfs.c), from its first send to its
 * completion.
 *
 * Discard becomes UNMAP and write zeroes WRITE SAME(16), within the
 * limits of VPD page 0xb0. Their parameter data (the UNMAP block
 * descriptor, the block of zeroes) is a page from rbdi_page_pool attached
 * as the request's special payload, which then travels like write data.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/bvec.h>
#include <linux/hdreg.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>
#include <scsi/scsi_proto.h>

#include "rbdi.h"

/* Minor numbers per disk: the disk and 15 partitions. */
#define RBDI_MINORS		16
/* UNMAP parameter list: an 8-byte header and one block descriptor. */
#define RBDI_UNMAP_PARAM_LEN	24
/* Pages kept for UNMAP and WRITE SAME parameter data. */
#define RBDI_PAGE_POOL_SIZE	16

static DEFINE_IDA(rbdi_ida);
static mempool_t *rbdi_page_pool;

/* Copy the data of @rq into @dst (an inline write). */
static void rbdi_copy_from_rq(struct request *rq, u8 *dst)
{
	struct req_iterator iter;
	struct bio_vec bv;

	if (rq->rq_flags & RQF_SPECIAL_PAYLOAD) {
		memcpy_from_bvec(dst, &rq->special_vec);
		return;
	}
	rq_for_each_segment(bv, rq, iter) {
		memcpy_from_bvec(dst, &bv);
		dst += bv.bv_len;
	}
}

static void rbdi_unmap_data(struct rbdi_queue *q, struct rbdi_request *req)
{
	if (req->mr) {
		ib_mr_pool_put(q->qp, &q->qp->rdma_mrs, req->mr);
		req->mr = NULL;
	}
	if (req->nents) {
		ib_dma_unmap_sg(q->sess->ibdev, req->sgt.sgl, req->nents,
				req->dir);
		sg_free_table_chained(&req->sgt, RBDI_INLINE_SG_CNT);
		req->nents = 0;
	}
}

/*
 * DMA-map the data of @rq through @req->sgt (rbdi_unmap_data() undoes
 * it). Return the number of DMA segments, or 0 if out of memory or the
 * mapping failed, with nothing left to undo.
 */
static int rbdi_dma_map_rq(struct rbdi_queue *q, struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	int nents, count;

	req->dir = rq_data_dir(rq) == WRITE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	req->sgt.sgl = req->first_sgl;
	if (sg_alloc_table_chained(&req->sgt, blk_rq_nr_phys_segments(rq),
				   req->first_sgl, RBDI_INLINE_SG_CNT))
		return 0;
	nents = blk_rq_map_sg(rq->q, rq, req->sgt.sgl);
	count = ib_dma_map_sg(q->sess->ibdev, req->sgt.sgl, nents, req->dir);
	if (unlikely(count <= 0)) {
		sg_free_table_chained(&req->sgt, RBDI_INLINE_SG_CNT);
		return 0;
	}
	req->nents = nents;
	return count;
}

/*
 * Map the data of an inline write for the SEND to gather it behind the
 * header: @sge gets one entry per DMA segment. Return their number, or 0
 * if they would be too many (or mapping failed), so the data is copied
 * into the capsule instead.
 */
static u32 rbdi_map_inline(struct rbdi_queue *q, struct request *rq,
			   struct ib_sge *sge)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct scatterlist *sg;
	int count, i;

	/* DMA segments are never more than the physical segments. */
	if (blk_rq_nr_phys_segments(rq) >= q->send_sges)
		return 0;
	count = rbdi_dma_map_rq(q, rq);
	if (count <= 0)
		return 0;
	for_each_sg(req->sgt.sgl, sg, count, i) {
		sge[i].addr = sg_dma_address(sg);
		sge[i].length = sg_dma_len(sg);
		sge[i].lkey = q->sess->pd->local_dma_lkey;
	}
	return count;
}

/*
 * Register the data of @rq in one MR and describe it in the capsule.
 * @reg is the REG_MR to post; on a session with reg_fence, @fence is a
 * LOCAL_INV to post ahead of it, and the caller posts from @fence.
 *
 * The fence is for Soft-RoCE (Linux 6.1 and 6.12), whose requester runs every
 * work request from the oldest unacknowledged one again when it
 * retransmits, local ones included (req_retry() leaves them done, and
 * rxe_requester() executes them anyway). A REG_MR of an MR in use then
 * fails ("rxe_reg_fast_mr: ... not free"), the command behind it is
 * never sent, and its error completion comes late or never. rxe starts a
 * LOCAL_INV only once every work request before it has completed, so a
 * LOCAL_INV of this MR, free and with its current key (a no-op), ahead
 * of the REG_MR means that no unacknowledged SEND precedes it, and the
 * completer retires both before it can ever retransmit. The cost is a
 * wait for the acknowledgment of the previous SEND on the queue.
 */
static blk_status_t rbdi_map_mr(struct rbdi_queue *q, struct request *rq,
				struct ib_reg_wr *reg, struct ib_send_wr *fence)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_desc *desc = (struct rbd_desc *)(req->cmd + 1);
	int count, n;

	count = rbdi_dma_map_rq(q, rq);
	if (count <= 0)
		return BLK_STS_RESOURCE;

	req->mr = ib_mr_pool_get(q->qp, &q->qp->rdma_mrs);
	if (unlikely(!req->mr)) {
		rbdi_unmap_data(q, req);
		return BLK_STS_RESOURCE;
	}
	n = ib_map_mr_sg(req->mr, req->sgt.sgl, count, NULL, SZ_4K);
	if (unlikely(n != count)) {
		rbdi_sess_err_rl(q->sess, "queue %u: cannot map %d segments (%d)\n",
				 q->qid, count, n);
		rbdi_unmap_data(q, req);
		return BLK_STS_IOERR;
	}
	if (q->sess->reg_fence) {
		memset(fence, 0, sizeof(*fence));
		fence->opcode = IB_WR_LOCAL_INV;
		fence->wr_cqe = &req->reg_cqe;
		fence->ex.invalidate_rkey = req->mr->rkey;
		fence->next = &reg->wr;
		rbdi_stat_inc(q->sess, RBDI_STAT_REG_FENCES);
	}
	ib_update_fast_reg_key(req->mr, ib_inc_rkey(req->mr->rkey));

	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = &req->reg_cqe;
	reg->mr = req->mr;
	reg->key = req->mr->rkey;
	/* The target reads a write's data and writes a read's: no more. */
	if (req->cmd->dir == RBD_DIR_WRITE)
		reg->access = IB_ACCESS_REMOTE_READ;
	else
		reg->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	desc->addr = cpu_to_le64(req->mr->iova);
	desc->rkey = cpu_to_le32(req->mr->rkey);
	desc->len = cpu_to_le32(req->mr->length);
	req->cmd->nr_desc = cpu_to_le16(1);
	if (q->lim.features & RBD_FEAT_REMOTE_INV)
		req->cmd->hdr.flags = cpu_to_le16(RBD_CMD_F_INVALIDATE);
	return BLK_STS_OK;
}

/*
 * Attach @len zeroed bytes of parameter data to @rq as its special
 * payload; rbdi_free_payload() gives the page back.
 */
static u8 *rbdi_alloc_payload(struct request *rq, unsigned int len)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct page *page;

	page = mempool_alloc(rbdi_page_pool, GFP_ATOMIC);
	if (!page)
		return NULL;
	req->payload = page;
	rq->special_vec.bv_page = page;
	rq->special_vec.bv_offset = 0;
	rq->special_vec.bv_len = len;
	rq->rq_flags |= RQF_SPECIAL_PAYLOAD;
	return memset(page_address(page), 0, len);
}

static void rbdi_free_payload(struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);

	if (!req->payload)
		return;
	rq->rq_flags &= ~RQF_SPECIAL_PAYLOAD;
	mempool_free(req->payload, rbdi_page_pool);
	req->payload = NULL;
}

/* READ(16) or WRITE(16) of the blocks of @rq, with FUA if it asks. */
static void rbdi_setup_rw(struct rbdi_session *sess, struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_cmd *cmd = req->cmd;
	unsigned int shift = ilog2(sess->lbs);
	u64 lba;

	lba = blk_rq_pos(rq) >> (shift - SECTOR_SHIFT);
	if (req_op(rq) == REQ_OP_READ) {
		cmd->cdb[0] = READ_16;
		cmd->dir = RBD_DIR_READ;
	} else {
		cmd->cdb[0] = WRITE_16;
		cmd->dir = RBD_DIR_WRITE;
		if (rq->cmd_flags & REQ_FUA)
			cmd->cdb[1] = 0x08;
	}
	put_unaligned_be64(lba, &cmd->cdb[2]);
	put_unaligned_be32(req->data_len >> shift, &cmd->cdb[10]);
	cmd->cdb_len = 16;
}

/*
 * The first logical block of @rq in @lba; return its number of blocks
 * (the limits keep the count of a discard or write zeroes within 32 bits).
 */
static u32 rbdi_rq_blocks(struct rbdi_session *sess, struct request *rq,
			  u64 *lba)
{
	unsigned int shift = ilog2(sess->lbs);

	*lba = blk_rq_pos(rq) >> (shift - SECTOR_SHIFT);
	return blk_rq_bytes(rq) >> shift;
}

/* UNMAP of the blocks of @rq; its parameter list is the payload. */
static blk_status_t rbdi_setup_discard(struct rbdi_session *sess,
				       struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_cmd *cmd = req->cmd;
	u32 blocks;
	u64 lba;
	u8 *buf;

	blocks = rbdi_rq_blocks(sess, rq, &lba);
	buf = rbdi_alloc_payload(rq, RBDI_UNMAP_PARAM_LEN);
	if (!buf)
		return BLK_STS_RESOURCE;
	put_unaligned_be16(RBDI_UNMAP_PARAM_LEN - 2, &buf[0]);
	put_unaligned_be16(16, &buf[2]);
	put_unaligned_be64(lba, &buf[8]);
	put_unaligned_be32(blocks, &buf[16]);
	cmd->cdb[0] = UNMAP;
	put_unaligned_be16(RBDI_UNMAP_PARAM_LEN, &cmd->cdb[7]);
	cmd->cdb_len = 10;
	cmd->dir = RBD_DIR_WRITE;
	req->data_len = RBDI_UNMAP_PARAM_LEN;
	return BLK_STS_OK;
}

/* WRITE SAME(16) of a block of zeroes, the payload, over @rq's blocks. */
static blk_status_t rbdi_setup_write_zeroes(struct rbdi_session *sess,
					    struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_cmd *cmd = req->cmd;
	u32 blocks;
	u64 lba;

	blocks = rbdi_rq_blocks(sess, rq, &lba);
	if (!rbdi_alloc_payload(rq, sess->lbs))
		return BLK_STS_RESOURCE;
	cmd->cdb[0] = WRITE_SAME_16;
	/* Unmapping is allowed and reads back zeroes (LBPRZ). */
	if (sess->ws_unmap && !(rq->cmd_flags & REQ_NOUNMAP))
		cmd->cdb[1] = 0x08;
	put_unaligned_be64(lba, &cmd->cdb[2]);
	put_unaligned_be32(blocks, &cmd->cdb[10]);
	cmd->cdb_len = 16;
	cmd->dir = RBD_DIR_WRITE;
	req->data_len = sess->lbs;
	return BLK_STS_OK;
}

/* The CDB of a passthrough request (SG_IO, rbdi_exec_pt()) as it came. */
static void rbdi_setup_pt(struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_cmd *cmd = req->cmd;

	memcpy(cmd->cdb, req->cdb, req->cdb_len);
	cmd->cdb_len = req->cdb_len;
	if (!req->data_len)
		cmd->dir = RBD_DIR_NONE;
	else if (req_op(rq) == REQ_OP_DRV_IN)
		cmd->dir = RBD_DIR_READ;
	else
		cmd->dir = RBD_DIR_WRITE;
}

/* Fill CDB, direction and data length of the capsule from @rq. */
static blk_status_t rbdi_setup_cmd(struct rbdi_session *sess,
				   struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbd_cmd *cmd = req->cmd;
	blk_status_t sts = BLK_STS_OK;

	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = RBD_OP_SCSI_CMD;
	cmd->hdr.version = RBD_PROTO_VERSION;
	cmd->lun = cpu_to_le64(sess->opts.lun);
	cmd->task_attr = RBD_TASK_SIMPLE;
	req->data_len = blk_rq_bytes(rq);

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		rbdi_setup_rw(sess, rq);
		break;
	case REQ_OP_FLUSH:
		cmd->cdb[0] = SYNCHRONIZE_CACHE;
		cmd->cdb_len = 10;
		cmd->dir = RBD_DIR_NONE;
		req->data_len = 0;
		break;
	case REQ_OP_DISCARD:
		sts = rbdi_setup_discard(sess, rq);
		break;
	case REQ_OP_WRITE_ZEROES:
		sts = rbdi_setup_write_zeroes(sess, rq);
		break;
	case REQ_OP_DRV_IN:
	case REQ_OP_DRV_OUT:
		rbdi_setup_pt(rq);
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	if (sts)
		return sts;
	cmd->data_length = cpu_to_le32(req->data_len);
	return BLK_STS_OK;
}

/*
 * Post a command's work requests, the first @first.
 *
 * Soft-RoCE in Linux 6.1 (6.12 queues its sends on a workqueue, where
 * this changes nothing) only schedules the QP's send tasklet in ib_post_send(),
 * and raise_softirq_irqoff() wakes ksoftirqd for it outside
 * interrupt context. With bottom halves disabled around the post,
 * the tasklet runs here, when they are enabled again. Off by
 * default: it shortens QD1 a little beyond what rbdt's own posting
 * with bottom halves disabled does, but in the bench's 4k QD32 jobs
 * commands then make their round trips one at a time (five context
 * switches per command instead of half of one), even when it is
 * limited to a queue with nothing else in flight.
 *
 * A poll queue's submitter is about to poll for the completion. Left
 * to ksoftirqd, the send processing would wait for a thread of the
 * submitter's own priority that the busy poller keeps off its CPU,
 * at worst until the next scheduler tick; poll queues therefore post
 * with bottom halves disabled unless poll_post_bh_disabled says no.
 */
static int rbdi_post_cmd(struct rbdi_queue *q, struct ib_send_wr *first)
{
	bool bh;
	int ret;

	if (rbdi_fault_post_send(q->sess))
		return -ENOTCONN;
	bh = READ_ONCE(rbdi_post_bh_disabled) ||
	     (q->polled && READ_ONCE(rbdi_poll_post_bh_disabled));
	if (bh)
		local_bh_disable();
	ret = ib_post_send(q->qp, first, NULL);
	if (bh)
		local_bh_enable();
	return ret;
}

/*
 * The provider refused the post: the QP has left RTS (the link or the
 * peer is gone) before the error recovery stopped the queue, and nothing
 * was sent. The request is not lost: returned as a resource shortage, it
 * stays with blk-mq, which dispatches it again, on the new connection
 * once the recovery has held the queue and reconnected, or to be failed
 * once the queue is no longer live (no reconnect). nvme-rdma's host path
 * error plays this part.
 */
static blk_status_t rbdi_post_failed(struct rbdi_queue *q, struct request *rq,
				     int ret)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);

	req->awaiting = false;
	rbdi_sess_err_rl(q->sess, "queue %u: tag %#llx: post refused (%d); held for recovery\n",
			 q->qid, le64_to_cpu(req->cmd->hdr.tag), ret);
	rbdi_unmap_data(q, req);
	rbdi_free_payload(rq);
	rbdi_sess_error(q->sess);
	return BLK_STS_RESOURCE;
}

/* The work requests of one command, built on the submitter's stack. */
struct rbdi_cmd_wrs {
	struct ib_send_wr send;
	struct ib_send_wr fence;
	struct ib_reg_wr reg;
	struct ib_sge sge[RBDI_SEND_SGES];
	struct ib_send_wr *first;
	u32 len;
};

/*
 * How the data of a command travels: inline behind a write's capsule,
 * as immediate data of a read's response, or through a registration
 * that @w's work requests carry before the send.
 */
static blk_status_t rbdi_map_data(struct rbdi_queue *q, struct request *rq,
				  struct rbdi_cmd_wrs *w)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	blk_status_t sts;

	if (req->cmd->dir == RBD_DIR_WRITE && req->data_len <= q->inline_max) {
		/* Gathered from the pages if it can be, else copied. */
		w->send.num_sge += rbdi_map_inline(q, rq, &w->sge[1]);
		if (w->send.num_sge == 1)
			rbdi_copy_from_rq(rq, (u8 *)(req->cmd + 1));
		else
			rbdi_stat_inc(q->sess, RBDI_STAT_INLINE_GATHERED);
		w->len += req->data_len;
		rbdi_stat_inc(q->sess, RBDI_STAT_INLINE_WRITES);
	} else if (req->cmd->dir == RBD_DIR_READ &&
		   req->data_len <= q->imm_max) {
		req->imm = true;
		rbdi_stat_inc(q->sess, RBDI_STAT_IMM_READS);
	} else {
		sts = rbdi_map_mr(q, rq, &w->reg, &w->fence);
		if (sts)
			return sts;
		rbdi_stat_inc(q->sess, RBDI_STAT_MR_MAPS);
		w->reg.wr.next = &w->send;
		w->first = q->sess->reg_fence ? &w->fence : &w->reg.wr;
		w->len += sizeof(struct rbd_desc);
	}
	return BLK_STS_OK;
}

static void rbdi_count_op(struct rbdi_session *sess, struct request *rq)
{
	enum rbdi_stat i;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		i = RBDI_STAT_READS;
		break;
	case REQ_OP_WRITE:
		i = RBDI_STAT_WRITES;
		break;
	case REQ_OP_FLUSH:
		i = RBDI_STAT_FLUSHES;
		break;
	case REQ_OP_DISCARD:
		i = RBDI_STAT_DISCARDS;
		break;
	case REQ_OP_WRITE_ZEROES:
		i = RBDI_STAT_WRITE_ZEROES;
		break;
	default:
		i = RBDI_STAT_PASSTHROUGH;
		break;
	}
	rbdi_stat_inc(sess, i);
}

/* Start @rq for blk-mq and give it a fresh tag and outcome. */
static void rbdi_start_cmd(struct rbdi_queue *q, struct request *rq, u32 len)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);

	blk_mq_start_request(rq);
	/* A retry or requeue keeps the time of the first send. */
	if (!req->start_ns)
		req->start_ns = ktime_get_ns();
	req->gen++;
	req->cmd->hdr.tag = cpu_to_le64(rbd_tag(q->qid, req->gen, rq->tag));
	req->cmd->hdr.length = cpu_to_le32(len);
	refcount_set(&req->ref, 2);
	req->sts = BLK_STS_OK;
	req->status = SAM_STAT_GOOD;
	req->sense_len = 0;
	req->resid = 0;
	req->awaiting = true;
	if (!req->retries)
		req->abort_sent = false;
}

static blk_status_t __rbdi_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	struct rbdi_queue *q = hctx->driver_data;
	struct request *rq = bd->rq;
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct ib_device *dev = q->sess->ibdev;
	struct rbdi_cmd_wrs w = {
		.send = {
			.wr_cqe		= &req->send_cqe,
			.sg_list	= w.sge,
			.num_sge	= 1,
			.opcode		= IB_WR_SEND,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.first	= &w.send,
		.len	= sizeof(struct rbd_cmd),
	};
	blk_status_t sts;
	u32 hdr_len;
	int ret;

	if (unlikely(!test_bit(RBDI_Q_LIVE, &q->flags)))
		return BLK_STS_IOERR;

	ib_dma_sync_single_for_cpu(dev, req->cmd_dma, q->cmd_size,
				   DMA_TO_DEVICE);
	sts = rbdi_setup_cmd(q->sess, rq);
	if (sts)
		return sts;

	req->mr = NULL;
	req->nents = 0;
	req->imm = false;
	if (req->data_len) {
		sts = rbdi_map_data(q, rq, &w);
		if (sts)
			goto out_free_payload;
	}
	rbdi_count_op(q->sess, rq);
	rbdi_start_cmd(q, rq, w.len);

	/* The header, and the inline data unless it is gathered. */
	hdr_len = w.send.num_sge > 1 ? sizeof(struct rbd_cmd) : w.len;
	w.sge[0].addr = req->cmd_dma;
	w.sge[0].length = hdr_len;
	w.sge[0].lkey = q->sess->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(dev, req->cmd_dma, hdr_len,
				      DMA_TO_DEVICE);
	if (rbdi_fault_lose_cmd(q->sess))
		/* Lost on the way; the MR stays unregistered. */
		return BLK_STS_OK;
	ret = rbdi_post_cmd(q, w.first);
	if (unlikely(ret))
		return rbdi_post_failed(q, rq, ret);
	return BLK_STS_OK;

out_free_payload:
	rbdi_free_payload(rq);
	return sts;
}

static blk_status_t rbdi_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	blk_status_t sts = __rbdi_queue_rq(hctx, bd);
	struct rbdi_request *req;

	/*
	 * blk-mq ends a request refused with an error other than a
	 * resource shortage itself, without rbdi_complete_rq(): it is no
	 * longer in flight for the latency histogram.
	 */
	if (unlikely(sts) && sts != BLK_STS_RESOURCE &&
	    sts != BLK_STS_DEV_RESOURCE) {
		req = blk_mq_rq_to_pdu(bd->rq);
		req->start_ns = 0;
	}
	return sts;
}

/* Count the completion of @rq in the latency histogram. */
static void rbdi_account_latency(struct rbdi_session *sess,
				 struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	unsigned int col, b;
	u64 us;

	if (!req->start_ns)
		return;
	us = div_u64(ktime_get_ns() - req->start_ns, NSEC_PER_USEC);
	req->start_ns = 0;
	b = us ? min_t(unsigned int, fls64(us), RBDI_LAT_BUCKETS - 1) : 0;
	switch (req_op(rq)) {
	case REQ_OP_READ:
		col = RBDI_LAT_READ;
		break;
	case REQ_OP_WRITE:
		col = RBDI_LAT_WRITE;
		break;
	default:
		col = RBDI_LAT_OTHER;
		break;
	}
	this_cpu_inc(sess->lat->cnt[col][b]);
}

static void rbdi_complete_rq(struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbdi_session *sess = req->q->sess;
	blk_status_t sts;
	bool retry = false;

	rbdi_unmap_data(req->q, req);
	rbdi_free_payload(rq);
	if (req->requeue) {
		/* Held (quiesced) until the session is back or given up. */
		req->requeue = false;
		blk_mq_requeue_request(rq, false);
		return;
	}
	rbdi_fault_capacity_ua(sess, rq);
	sts = req->sts;
	if (!sts && req->status == SAM_STAT_CHECK_CONDITION)
		rbdi_check_capacity_ua(sess, req);
	if (!sts && !blk_rq_is_passthrough(rq))
		sts = rbdi_scsi_sts(req->q->sess, rq, &retry);
	if (retry && req->retries < RBDI_MAX_RETRIES) {
		req->retries++;
		rbdi_stat_inc(req->q->sess, RBDI_STAT_RETRIES);
		blk_mq_requeue_request(rq, false);
		blk_mq_delay_kick_requeue_list(rq->q, 10);
		return;
	}
	if (retry)
		sts = BLK_STS_IOERR;
	if (sts)
		rbdi_stat_inc(req->q->sess, RBDI_STAT_ERRORS);
	req->retries = 0;
	rbdi_account_latency(sess, rq);
	blk_mq_end_request(rq, sts);
}

/**
 * rbdi_lost_work() - recover from a command the target does not have
 * @work: &rbdi_session.lost_work.
 *
 * ABORT TASK was answered "no such task": the target either answered the
 * command already, on the command's own queue, or never received it. If
 * its response has not arrived within rbdi_lost_grace_ms(), it never
 * will: waiting for a second io_timeout would gain nothing, so the
 * session is recovered now and the command resent.
 *
 * Context: rbdi_wq; cancelled once the queues are stopped.
 */
void rbdi_lost_work(struct work_struct *work)
{
	struct rbdi_session *sess = container_of(to_delayed_work(work),
						 struct rbdi_session,
						 lost_work);
	u64 tag = READ_ONCE(sess->lost_tag);
	u16 qid = rbd_tag_qid(tag);
	const char *why;

	if (!qid || qid > sess->nr_queues ||
	    !rbdi_awaiting_rq(&sess->queues[qid], tag, &why))
		return;
	rbdi_sess_err_rl(sess,
			 "queue %u: tag %#llx: no such task at the target and no response after %u ms; recovering the session\n",
			 qid, tag, rbdi_lost_grace_ms(sess));
	rbdi_sess_error(sess);
}

/*
 * A command timed out. The first time, ask the target to abort it: it
 * then answers TASK ABORTED (retried) or its result. If it times out
 * again, or no ABORT TASK can be sent, recover the session.
 */
static enum blk_eh_timer_return rbdi_timeout(struct request *rq)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbdi_session *sess = req->q->sess;
	u64 tag = le64_to_cpu(req->cmd->hdr.tag);
	int ret;

	if (!req->abort_sent) {
		ret = rbdi_send_abort(sess, tag);
		if (!ret) {
			req->abort_sent = true;
			rbdi_sess_err_rl(sess, "queue %u: tag %#llx timed out; sent ABORT TASK\n",
					 req->q->qid, tag);
			return BLK_EH_RESET_TIMER;
		}
		if (ret == -EBUSY)
			/* Another abort is outstanding: wait one more period. */
			return BLK_EH_RESET_TIMER;
	}
	rbdi_sess_err_rl(sess, "queue %u: tag %#llx timed out%s; recovering the session\n",
			 req->q->qid, tag,
			 req->abort_sent ? " after ABORT TASK" : "");
	/*
	 * The recovery drains the queues and then completes every started
	 * request; until the HCA is stopped, the request must stay.
	 */
	rbdi_sess_error(req->q->sess);
	return BLK_EH_RESET_TIMER;
}

static int rbdi_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			  unsigned int hctx_idx)
{
	struct rbdi_session *sess = data;
	struct rbdi_queue *q = &sess->queues[hctx_idx + 1];

	q->tags = hctx->tags;
	hctx->driver_data = q;
	return 0;
}

static int rbdi_init_request(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx, unsigned int numa_node)
{
	struct rbdi_session *sess = set->driver_data;
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	struct rbdi_queue *q = &sess->queues[hctx_idx + 1];

	req->q = q;
	req->cmd = kzalloc_node(q->cmd_size, GFP_KERNEL, numa_node);
	if (!req->cmd)
		return -ENOMEM;
	req->cmd_dma = ib_dma_map_single(sess->ibdev, req->cmd, q->cmd_size,
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(sess->ibdev, req->cmd_dma)) {
		kfree(req->cmd);
		req->cmd = NULL;
		return -ENOMEM;
	}
	rbdi_req_init_cqes(req);
	req->gen = 0;
	req->retries = 0;
	req->abort_sent = false;
	req->mr = NULL;
	req->nents = 0;
	req->awaiting = false;
	req->requeue = false;
	req->payload = NULL;
	req->start_ns = 0;
	return 0;
}

static void rbdi_exit_request(struct blk_mq_tag_set *set, struct request *rq,
			      unsigned int hctx_idx)
{
	struct rbdi_session *sess = set->driver_data;
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);

	if (!req->cmd)
		return;
	ib_dma_unmap_single(sess->ibdev, req->cmd_dma, req->q->cmd_size,
			    DMA_TO_DEVICE);
	kfree(req->cmd);
	req->cmd = NULL;
}

/*
 * Interrupt-driven queues serve the default and read maps alike; the poll
 * queues, the last ones, serve REQ_POLLED I/O.
 */
static void rbdi_map_queues(struct blk_mq_tag_set *set)
{
	struct rbdi_session *sess = set->driver_data;
	unsigned int nr_irq = sess->nr_queues - sess->nr_poll;

	set->map[HCTX_TYPE_DEFAULT].nr_queues = nr_irq;
	set->map[HCTX_TYPE_DEFAULT].queue_offset = 0;
	blk_mq_map_queues(&set->map[HCTX_TYPE_DEFAULT]);
	if (set->nr_maps == 1)
		return;
	set->map[HCTX_TYPE_READ].nr_queues = nr_irq;
	set->map[HCTX_TYPE_READ].queue_offset = 0;
	blk_mq_map_queues(&set->map[HCTX_TYPE_READ]);
	set->map[HCTX_TYPE_POLL].nr_queues = sess->nr_poll;
	set->map[HCTX_TYPE_POLL].queue_offset = nr_irq;
	blk_mq_map_queues(&set->map[HCTX_TYPE_POLL]);
}

/* Reap the completions of a poll queue for the submitter that polls. */
static int rbdi_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct rbdi_queue *q = hctx->driver_data;
	int n = 0;

	spin_lock(&q->poll_lock);
	/* Once stopped, the drain reaps the CQ; see rbdi_queue_stop(). */
	if (test_bit(RBDI_Q_LIVE, &q->flags))
		n = ib_process_cq_direct(q->cq, -1);
	spin_unlock(&q->poll_lock);
	if (n > 0)
		rbdi_stat_add(q->sess, RBDI_STAT_POLLED, n);
	return n;
}

static const struct blk_mq_ops rbdi_mq_ops = {
	.queue_rq	= rbdi_queue_rq,
	.complete	= rbdi_complete_rq,
	.timeout	= rbdi_timeout,
	.map_queues	= rbdi_map_queues,
	.poll		= rbdi_poll,
	.init_hctx	= rbdi_init_hctx,
	.init_request	= rbdi_init_request,
	.exit_request	= rbdi_exit_request,
};

/* A made-up geometry for HDIO_GETGEO users, as virtio_blk has. */
static int rbdi_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	geo->heads = 64;
	geo->sectors = 32;
	geo->cylinders = get_capacity(bdev->bd_disk) >> 11;
	return 0;
}

/* The last reference of an added disk is gone. */
static void rbdi_free_disk(struct gendisk *disk)
{
	ida_free(&rbdi_ida, disk->first_minor / RBDI_MINORS);
	rbdi_sess_put(disk->private_data);
}

static const struct block_device_operations rbdi_fops = {
	.owner		= THIS_MODULE,
	.ioctl		= rbdi_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.getgeo		= rbdi_getgeo,
	.free_disk	= rbdi_free_disk,
};

/* The tag set of a new disk, for the grant of the login. */
static int rbdi_alloc_tag_set(struct rbdi_session *sess)
{
	struct blk_mq_tag_set *set = &sess->tag_set;
	const struct rbd_login_rsp *rsp = &sess->login_rsp;
	int ret;

	memset(set, 0, sizeof(*set));
	set->ops = &rbdi_mq_ops;
	set->nr_hw_queues = sess->nr_queues;
	set->nr_maps = sess->nr_poll ? HCTX_MAX_TYPES : 1;
	set->queue_depth = le16_to_cpu(rsp->queue_depth);
	set->cmd_size = sizeof(struct rbdi_request) +
			sizeof(struct scatterlist) * RBDI_INLINE_SG_CNT;
	set->numa_node = NUMA_NO_NODE;
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	set->timeout = sess->opts.io_timeout * HZ;
	set->driver_data = sess;
	/* What rbdi_init_request() sizes the command buffers for. */
	sess->tag_rsp = sess->login_rsp;
	ret = blk_mq_alloc_tag_set(set);
	if (ret) {
		rbdi_sess_err(sess, "blk_mq_alloc_tag_set failed (%d)\n", ret);
		return ret;
	}
	sess->tag_set_ready = true;
	return 0;
}

/* The disk on the tag set, its index and its name; not added yet. */
static int rbdi_alloc_disk(struct rbdi_session *sess)
{
	struct gendisk *disk;
	int ret;

	ret = ida_alloc_max(&rbdi_ida, (MINORMASK + 1) / RBDI_MINORS - 1,
			    GFP_KERNEL);
	if (ret < 0) {
		rbdi_sess_err(sess, "no free disk index (%d)\n", ret);
		return ret;
	}
	sess->idx = ret;

	disk = rbd_alloc_disk(&sess->tag_set, sess);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		rbdi_sess_err(sess, "blk_mq_alloc_disk failed (%d)\n", ret);
		return ret;
	}
	sess->disk = disk;
	disk->major = rbdi_major;
	disk->first_minor = sess->idx * RBDI_MINORS;
	disk->minors = RBDI_MINORS;
	disk->fops = &rbdi_fops;
	disk->private_data = sess;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "rbdi%d",
		 sess->idx);
	return 0;
}

/**
 * rbdi_blk_add() - create the tag set and the disk of a live session
 * @sess: The session, logged in, with @sess->lock held.
 *
 * Probes the LUN through the new queue before add_disk().
 *
 * Return: 0 or a negative errno (logged). On failure the caller calls
 * rbdi_blk_free() after stopping the queues.
 */
int rbdi_blk_add(struct rbdi_session *sess)
{
	const struct rbd_login_rsp *rsp = &sess->login_rsp;
	struct queue_limits lim;
	struct request_queue *q;
	struct gendisk *disk;
	unsigned int max_sectors;
	u64 sectors;
	int ret;

	ret = rbdi_alloc_tag_set(sess);
	if (ret)
		return ret;
	ret = rbdi_alloc_disk(sess);
	if (ret)
		return ret;
	disk = sess->disk;
	q = disk->queue;
	max_sectors = min_t(u32, le32_to_cpu(rsp->max_io_bytes),
			    sess->max_fr_pages * SZ_4K) >> SECTOR_SHIFT;
	/* What the transport carries, for READ CAPACITY and the VPD pages. */
	lim = rbd_limits_start(q);
	lim.max_hw_sectors = max_sectors;
	lim.max_segments = sess->max_fr_pages;
	lim.virt_boundary_mask = SZ_4K - 1;
	ret = rbd_limits_commit(q, &lim, 0);
	if (ret) {
		rbdi_sess_err(sess, "queue limits refused (%d)\n", ret);
		return ret;
	}
	ret = rbdi_probe_lun(sess, max_sectors, &sectors);
	if (ret)
		return ret;
	set_capacity(disk, sectors);

	ret = device_add_disk(NULL, disk, rbdi_disk_groups);
	if (ret) {
		rbdi_sess_err(sess, "add_disk failed (%d)\n", ret);
		return ret;
	}
	/* Dropped by rbdi_free_disk() when the last opener is gone. */
	rbdi_sess_get(sess);
	sess->disk_added = true;
	strscpy(sess->disk_name, disk->disk_name, sizeof(sess->disk_name));
	spin_lock_irq(&sess->state_lock);
	WRITE_ONCE(sess->rescan_on, true);
	spin_unlock_irq(&sess->state_lock);
	rbdi_sess_info(sess, "initialized /dev/%s (%llu sectors; %llu bytes)\n",
		       disk->disk_name, sectors, sectors << SECTOR_SHIFT);
	return 0;
}

/**
 * rbdi_blk_del() - delete the disk of a session, flushing it
 * @sess: The session; its queues may be live or dead.
 */
void rbdi_blk_del(struct rbdi_session *sess)
{
	if (sess->disk_added)
		del_gendisk(sess->disk);
}

static bool rbdi_cancel_rq(struct request *rq, void *data)
{
	struct rbdi_request *req = blk_mq_rq_to_pdu(rq);
	bool requeue = *(bool *)data;

	if (blk_mq_request_completed(rq))
		return true;
	req->awaiting = false;
	req->sts = BLK_STS_IOERR;
	/* Passthrough (SG_IO) fails: its outcome is unknown. */
	req->requeue = requeue && !blk_rq_is_passthrough(rq);
	blk_mq_complete_request(rq);
	return true;
}

/**
 * rbdi_blk_cancel() - complete every started request
 * @sess: The session, its queues stopped (drained).
 * @requeue: Requeue filesystem requests instead of failing them.
 *
 * After the drain no completion can race with this.
 */
void rbdi_blk_cancel(struct rbdi_session *sess, bool requeue)
{
	if (!sess->tag_set_ready)
		return;
	blk_mq_tagset_busy_iter(&sess->tag_set, rbdi_cancel_rq, &requeue);
	blk_mq_tagset_wait_completed_request(&sess->tag_set);
}

/**
 * rbdi_blk_free() - drop the disk and the tag set
 * @sess: The session, its disk deleted and its queues stopped.
 */
void rbdi_blk_free(struct rbdi_session *sess)
{
	/* An added disk frees its index and reference in free_disk. */
	if (sess->disk_added)
		sess->idx = -1;
	sess->disk_added = false;
	if (sess->disk)
		put_disk(sess->disk);
	sess->disk = NULL;
	if (sess->tag_set_ready)
		blk_mq_free_tag_set(&sess->tag_set);
	sess->tag_set_ready = false;
	if (sess->idx >= 0)
		ida_free(&rbdi_ida, sess->idx);
	sess->idx = -1;
	sess->disk_name[0] = '\0';
}

/**
 * rbdi_blk_sess_init() - block device state and counters of a new session
 * @sess: The session, zeroed.
 *
 * Return: 0 or -ENOMEM.
 */
int rbdi_blk_sess_init(struct rbdi_session *sess)
{
	sess->lat = alloc_percpu(struct rbdi_lat);
	if (!sess->lat)
		return -ENOMEM;
	sess->stats = alloc_percpu(struct rbdi_stats);
	if (!sess->stats) {
		free_percpu(sess->lat);
		return -ENOMEM;
	}
	INIT_WORK(&sess->rescan_work, rbdi_rescan_work);
	mutex_init(&sess->rescan_mutex);
	return 0;
}

/**
 * rbdi_blk_sess_free() - free what rbdi_blk_sess_init() made
 * @sess: The session, its disk gone.
 */
void rbdi_blk_sess_free(struct rbdi_session *sess)
{
	mutex_destroy(&sess->rescan_mutex);
	free_percpu(sess->stats);
	free_percpu(sess->lat);
}

/**
 * rbdi_blk_init() - module-wide resources of the block device
 *
 * Return: 0 or -ENOMEM.
 */
int rbdi_blk_init(void)
{
	rbdi_page_pool = mempool_create_page_pool(RBDI_PAGE_POOL_SIZE, 0);
	return rbdi_page_pool ? 0 : -ENOMEM;
}

/**
 * rbdi_blk_exit() - free what rbdi_blk_init() made; every disk is gone
 */
void rbdi_blk_exit(void)
{
	mempool_destroy(rbdi_page_pool);
	ida_destroy(&rbdi_ida);
}
