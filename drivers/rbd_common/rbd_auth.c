// SPDX-License-Identifier: GPL-2.0
/*
 * Authentication helpers shared by rbdt and rbdi (compiled into each by
 * drivers/rbd_common/rbd_common.mk): the rules for configured user names
 * and secrets, and the HMAC-SHA-256 proof over &struct rbd_auth_msg, so
 * that target and initiator compute proofs with one piece of code.
 */
#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rbd/rbd_proto_check.h>

#include "rbd_auth.h"

/* A configfs value without its one trailing newline; "NULL" is empty. */
static size_t rbd_auth_value_len(const char *page, size_t count)
{
	if (count && page[count - 1] == '\n')
		count--;
	if (count == 4 && !memcmp(page, "NULL", 4))
		return 0;
	return count;
}

/**
 * rbd_auth_parse_user() - a user name written to configfs
 * @page: The value written.
 * @count: Its length.
 * @user: Receives the name, NUL padded; all zero for "", "\n" or "NULL".
 *
 * Return: 0, or -EINVAL unless the name is 1..255 printable ASCII
 * characters without blanks.
 */
int rbd_auth_parse_user(const char *page, size_t count,
			char user[RBD_AUTH_USER_LEN])
{
	size_t n = rbd_auth_value_len(page, count);

	memset(user, 0, RBD_AUTH_USER_LEN);
	if (!n)
		return 0;
	if (n >= RBD_AUTH_USER_LEN)
		return -EINVAL;
	memcpy(user, page, n);
	if (!rbd_check_auth_user(user)) {
		memset(user, 0, RBD_AUTH_USER_LEN);
		return -EINVAL;
	}
	return 0;
}

/**
 * rbd_auth_parse_key() - a secret written to configfs
 * @page: The value written.
 * @count: Its length.
 * @key: Receives the secret.
 * @key_len: Receives its length; 0 for "", "\n" or "NULL".
 *
 * Return: 0, or -EINVAL unless the secret has RBD_AUTH_SECRET_MIN to
 * RBD_AUTH_SECRET_MAX bytes.
 */
int rbd_auth_parse_key(const char *page, size_t count,
		       u8 key[RBD_AUTH_SECRET_MAX], u8 *key_len)
{
	size_t n = rbd_auth_value_len(page, count);

	if (n && (n < RBD_AUTH_SECRET_MIN || n > RBD_AUTH_SECRET_MAX))
		return -EINVAL;
	memzero_explicit(key, RBD_AUTH_SECRET_MAX);
	memcpy(key, page, n);
	*key_len = n;
	return 0;
}

/**
 * rbd_auth_proof() - the proof of one side
 * @s: The prover's user name and secret.
 * @target_side: 0 for the initiator's proof, 1 for the target's.
 * @begin: The connection's AUTH_BEGIN.
 * @challenge_tgt: The target's challenge.
 * @out: Receives HMAC-SHA-256(secret, rbd_auth_msg).
 *
 * Context: Process context; allocates.
 * Return: 0 or a negative errno.
 */
int rbd_auth_proof(const struct rbd_auth_secret *s, int target_side,
		   const struct rbd_auth_begin *begin,
		   const u8 *challenge_tgt, u8 out[RBD_AUTH_PROOF_LEN])
{
	struct crypto_shash *tfm;
	struct rbd_auth_msg *m;
	int ret;

	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	rbd_auth_msg_init(m, target_side, begin, challenge_tgt, s->user);
	/* A keyed tfm is not shared: setkey changes it. */
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		ret = PTR_ERR(tfm);
		goto out_free;
	}
	ret = crypto_shash_setkey(tfm, s->key, s->key_len);
	if (!ret)
		ret = crypto_shash_tfm_digest(tfm, (const u8 *)m, sizeof(*m),
					      out);
	crypto_free_shash(tfm);
out_free:
	kfree(m);
	return ret;
}
