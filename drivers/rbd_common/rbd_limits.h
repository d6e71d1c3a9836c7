/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the configfs attributes of rbdt (tpgt_N/attrib/) and rbdi (session
 * directories) accept less than the protocol allows. Every other range of
 * a negotiated value is the protocol's own, RBD_MIN_* to RBD_MAX_* of
 * include/uapi/rbd/rbd_proto.h, and every default is its RBD_DEFAULT_*.
 */
#ifndef RBD_LIMITS_H
#define RBD_LIMITS_H

#include <linux/sizes.h>

/*
 * Inline write and immediate read data: at most 16 KiB, not the protocol's
 * 64 KiB. The send paths gather such data from the pages without copying
 * in at most four pieces besides the header (rbdi's RBDI_SEND_SGES,
 * rbdt's RBDT_IMM_SGES, within siw's limit of six SGEs), that is 16 KiB
 * of whole pages; more would be copied. And each receive buffer of a
 * queue is that large, (queue depth + 4) of them per queue.
 */
#define RBD_CFS_MAX_INLINE_WRITE	SZ_16K
#define RBD_CFS_MAX_IMM_READ		SZ_16K

#endif /* RBD_LIMITS_H */
