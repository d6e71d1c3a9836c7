/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the libFuzzer harnesses over
 * include/uapi/rbd/rbd_proto_check.h: exact-size copies of the input, the
 * limits the validators run against, and the invariant check.
 */
#ifndef RBD_FUZZ_H
#define RBD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rbd/rbd_proto_check.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Queue id and depth of the unit tests' capsules (tests/unit/test_check.c). */
#define FUZZ_QID	3
#define FUZZ_DEPTH	128

/* An invariant that must hold whatever the input; abort() is a crash. */
#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* An I/O queue with every feature and the unit tests' limits. */
static const struct rbd_check_limits fuzz_lim_io = {
	.features = RBD_FEAT_ALL,
	.max_io_bytes = 1U << 20,
	.inline_write_size = 16384,
	.imm_read_size = 16384,
	.qid = FUZZ_QID,
	.queue_depth = FUZZ_DEPTH,
	.max_desc = 8,
};

/* An I/O queue with no features and the smallest payload limits. */
static const struct rbd_check_limits fuzz_lim_io_min = {
	.features = 0,
	.max_io_bytes = RBD_MIN_IO_BYTES,
	.inline_write_size = 0,
	.imm_read_size = 0,
	.qid = FUZZ_QID,
	.queue_depth = FUZZ_DEPTH,
	.max_desc = RBD_MIN_DESC,
};

/* Queue 0 before LOGIN: everything zero. */
static const struct rbd_check_limits fuzz_lim_q0;

static const struct rbd_check_limits *const fuzz_lims[] = {
	&fuzz_lim_io, &fuzz_lim_io_min, &fuzz_lim_q0,
};

/*
 * Heap copy of exactly @size bytes at offset @off of the allocation
 * (malloc() aligns to 16, so offset 0 is 8-byte aligned): AddressSanitizer
 * reports any read past the bytes a peer sent. Free with fuzz_free().
 */
static inline uint8_t *fuzz_copy(const uint8_t *data, size_t size, size_t off)
{
	uint8_t *p = malloc(size + off + 1);

	if (!p)
		abort();
	if (size)
		memcpy(p + off, data, size);
	return p + off;
}

static inline void fuzz_free(uint8_t *p, size_t off)
{
	free(p - off);
}

/* Every outcome is defined and has a description. */
static inline void fuzz_outcome(enum rbd_check c)
{
	FUZZ_ASSERT((unsigned int)c < RBD_CHECK_NR);
	FUZZ_ASSERT(strcmp(rbd_check_str(c), "unknown outcome") != 0);
	FUZZ_ASSERT(rbd_check_reject_reason(c) < RBD_REJ_NR);
	FUZZ_ASSERT((rbd_check_reject_reason(c) == RBD_REJ_NONE) ==
		    (c == RBD_CHECK_OK));
}

/* The header has room, the right version and the given opcode. */
static inline int fuzz_is(const uint8_t *p, size_t size, uint8_t opcode)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)p;

	return size >= sizeof(*hdr) && hdr->version == RBD_PROTO_VERSION &&
	       hdr->opcode == opcode;
}

/* An accepted capsule's header: length, control-slot tag on @qid, flags. */
static inline void fuzz_ctrl_ok(const uint8_t *p, size_t size, uint32_t qid)
{
	const struct rbd_hdr *hdr = (const struct rbd_hdr *)p;
	uint64_t tag = rbd_le64(hdr->tag);

	FUZZ_ASSERT(rbd_le32(hdr->length) == size);
	FUZZ_ASSERT(rbd_tag_qid(tag) == qid);
	FUZZ_ASSERT(rbd_tag_slot(tag) < RBD_CTRL_SLOTS);
	FUZZ_ASSERT(!hdr->flags);
}

/* A valid name or user name: printable, terminated, NUL-padded. */
static inline void fuzz_field_ok(const char *name, size_t size)
{
	size_t n = strnlen(name, size), i;

	FUZZ_ASSERT(n > 0 && n < size);
	for (i = 0; i < size; i++)
		FUZZ_ASSERT(i < n ? name[i] > 0x20 && name[i] < 0x7f :
				    !name[i]);
}

#define fuzz_name_ok(name)	fuzz_field_ok(name, RBD_NAME_LEN)
#define fuzz_user_ok(user)	fuzz_field_ok(user, RBD_AUTH_USER_LEN)

/* Return 1 when the @n bytes at @p are all zero. */
static inline int fuzz_zero(const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

#endif /* RBD_FUZZ_H */
