/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the userspace test tools (rbd-client, rbd-fake-target).
 */
#ifndef RBD_TOOL_H
#define RBD_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/*
 * Length to allocate and register for a buffer of @len bytes: whole pages,
 * and never a multiple of 256 pages. rdma_rxe in 6.1 keeps an MR's pages
 * in maps of 256 and, after a copy that ends in the last page of the last
 * map, reads the pointer of the map behind it (rxe_mr_copy(); KASAN
 * reports a slab-out-of-bounds read). One page more avoids that layout.
 */
static inline size_t tool_mr_len(size_t len)
{
	size_t pages = (len + 4095) / 4096;

	if (pages % 256 == 0)
		pages++;
	return pages * 4096;
}

/* Post receive buffer @i of @size bytes from @base (key @lkey) on @qp. */
static inline int tool_post_recv(struct ibv_qp *qp, uint8_t *base,
				 uint32_t size, uint32_t lkey, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(base + (size_t)i * size),
		.length = size,
		.lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

#endif /* RBD_TOOL_H */
