/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Authentication helpers shared by rbdt and rbdi: parsing of configured
 * user names and secrets, and the HMAC-SHA-256 proofs of
 * Documentation/protocol.rst, "13. Authentication".
 */
#ifndef RBD_AUTH_H
#define RBD_AUTH_H

#include <linux/types.h>
#include <rbd/rbd_proto.h>

/**
 * struct rbd_auth_secret - a user name and its secret
 * @user: NUL padded, as &rbd_auth_proof.user carries it; empty when unset.
 * @key: The secret, @key_len bytes.
 * @key_len: 0 when unset, else RBD_AUTH_SECRET_MIN..MAX.
 */
struct rbd_auth_secret {
	char user[RBD_AUTH_USER_LEN];
	u8 key[RBD_AUTH_SECRET_MAX];
	u8 key_len;
};

static inline bool rbd_auth_secret_set(const struct rbd_auth_secret *s)
{
	return s->user[0] && s->key_len;
}

int rbd_auth_parse_user(const char *page, size_t count,
			char user[RBD_AUTH_USER_LEN]);
int rbd_auth_parse_key(const char *page, size_t count,
		       u8 key[RBD_AUTH_SECRET_MAX], u8 *key_len);
int rbd_auth_proof(const struct rbd_auth_secret *s, int target_side,
		   const struct rbd_auth_begin *begin,
		   const u8 *challenge_tgt, u8 out[RBD_AUTH_PROOF_LEN]);

#endif /* RBD_AUTH_H */
