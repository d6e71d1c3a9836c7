/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Authentication for userspace peers of the rbd protocol (rbdadm discover
 * and the test tools): credentials from secret files, the AUTH_BEGIN and
 * AUTH_PROOF capsules, and the HMAC-SHA-256 proofs of both sides
 * (Documentation/protocol.rst, "Authentication").
 */
#ifndef RBDADM_AUTH_H
#define RBDADM_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rbd/rbd_proto.h>

/* A user name and its secret; clear it with auth_cred_clear(). */
struct auth_cred {
	char user[RBD_AUTH_USER_LEN];		/* NUL padded, as sent */
	uint8_t secret[RBD_AUTH_SECRET_MAX];
	size_t secret_len;
};

int auth_load_cred(struct auth_cred *c, const char *user,
		   const char *secret_file, char *err, size_t errlen);
void auth_cred_clear(struct auth_cred *c);

int auth_begin_init(struct rbd_auth_begin *b, uint64_t tag, bool mutual,
		    const char *initiator, const char *target);
int auth_compute(uint8_t out[RBD_AUTH_PROOF_LEN], int target_side,
		 const struct rbd_auth_begin *b, const uint8_t *challenge_tgt,
		 const struct auth_cred *c);
int auth_proof_init(struct rbd_auth_proof *p, uint64_t tag,
		    const struct rbd_auth_begin *b,
		    const struct rbd_auth_begin_rsp *r,
		    const struct auth_cred *c);
int auth_check_target(const struct rbd_auth_begin *b,
		      const struct rbd_auth_begin_rsp *r,
		      const struct rbd_auth_proof_rsp *pr,
		      const struct auth_cred *mutual);

#endif /* RBDADM_AUTH_H */
