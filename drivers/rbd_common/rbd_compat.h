/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that differ between the kernels rbdt and rbdi
 * build against (Debian's 6.1 and 6.12), in one place, keyed on
 * LINUX_VERSION_CODE. The drivers use the newer interface or the rbd_
 * helpers here, never #if of their own. Each block names the release
 * that changed the interface; only 6.1 and 6.12 are built and tested.
 */
#ifndef RBD_COMPAT_H
#define RBD_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/bits.h>
#include <linux/blkdev.h>
#include <linux/version.h>
#include <scsi/scsi_ioctl.h>

/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.5 gave block devices their own open mode type (blk_mode_t,
 * BLK_OPEN_*), renamed BLK_STS_NEXUS and made scsi_cmd_allowed() take
 * a bool "open for write".
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
typedef fmode_t blk_mode_t;
#define BLK_OPEN_WRITE		FMODE_WRITE
#define BLK_STS_RESV_CONFLICT	BLK_STS_NEXUS
#endif

static inline bool rbd_scsi_cmd_allowed(unsigned char *cdb, blk_mode_t mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return scsi_cmd_allowed(cdb, mode & BLK_OPEN_WRITE);
#else
	return scsi_cmd_allowed(cdb, mode);
#endif
}

/*
 * Queue limits. Since 6.11 a driver changes them as a whole, between
 * queue_limits_start_update() and queue_limits_commit_update(), and the
 * write cache, FUA and rotational flags are limit features. Before, each
 * limit had a setter and those flags were queue flags. rbdi edits a
 * struct queue_limits between rbd_limits_start() and rbd_limits_commit(),
 * and names those flags with RBD_FEAT_*; on older kernels the commit
 * passes the fields rbdi sets through the setters, in the order rbdi has
 * always called them.
 */
#define RBD_FEAT_WRITE_CACHE	BIT(0)
#define RBD_FEAT_FUA		BIT(1)
#define RBD_FEAT_ROTATIONAL	BIT(2)

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)

static inline struct gendisk *rbd_alloc_disk(struct blk_mq_tag_set *set,
					     void *queuedata)
{
	return blk_mq_alloc_disk(set, NULL, queuedata);
}

static inline struct queue_limits rbd_limits_start(struct request_queue *q)
{
	return queue_limits_start_update(q);
}

static inline int rbd_limits_commit(struct request_queue *q,
				    struct queue_limits *lim,
				    unsigned int features)
{
	lim->features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
			   BLK_FEAT_ROTATIONAL);
	if (features & RBD_FEAT_WRITE_CACHE)
		lim->features |= BLK_FEAT_WRITE_CACHE;
	if (features & RBD_FEAT_FUA)
		lim->features |= BLK_FEAT_FUA;
	if (features & RBD_FEAT_ROTATIONAL)
		lim->features |= BLK_FEAT_ROTATIONAL;
	return queue_limits_commit_update(q, lim);
}

#else /* before 6.11 */

static inline struct gendisk *rbd_alloc_disk(struct blk_mq_tag_set *set,
					     void *queuedata)
{
	return blk_mq_alloc_disk(set, queuedata);
}

static inline struct queue_limits rbd_limits_start(struct request_queue *q)
{
	return q->limits;
}

static inline int rbd_limits_commit(struct request_queue *q,
				    struct queue_limits *lim,
				    unsigned int features)
{
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_io_min(q, lim->io_min);
	blk_queue_write_cache(q, features & RBD_FEAT_WRITE_CACHE,
			      features & RBD_FEAT_FUA);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_virt_boundary(q, lim->virt_boundary_mask);
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
	q->limits.discard_alignment = lim->discard_alignment;
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	if (features & RBD_FEAT_ROTATIONAL)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	return 0;
}

/*
 * For a LUN that refuses what it promised, from the completion path:
 * no limits update there.
 */
static inline void blk_queue_disable_discard(struct request_queue *q)
{
	blk_queue_max_discard_sectors(q, 0);
}

static inline void blk_queue_disable_write_zeroes(struct request_queue *q)
{
	blk_queue_max_write_zeroes_sectors(q, 0);
}

#endif /* 6.11 */

/*
 * 6.10 lets a fabric say whether target_submit() may run the command in
 * the caller's context (direct_submit_supp) and which way it does by
 * default. Before, target_submit() always did. rbdt submits from its CQ
 * work, as on 6.1: RBD_FABRIC_SUBMIT goes into its fabric ops.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define RBD_FABRIC_SUBMIT					\
	.direct_submit_supp	= 1,				\
	.default_submit_type	= TARGET_DIRECT_SUBMIT,
#else
#define RBD_FABRIC_SUBMIT
#endif

#endif /* RBD_COMPAT_H */
