// SPDX-License-Identifier: GPL-2.0
/*
 * Authentication for userspace peers of the rbd protocol: credentials
 * from secret files, the initiator's capsules, and the HMAC-SHA-256 proofs
 * of both sides, with OpenSSL's libcrypto. The layout of what is
 * authenticated is rbd_auth_msg_init() of the shared header, so these
 * proofs are those the kernel computes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <rbd/rbd_proto_check.h>

#include "auth.h"

static int auth_user_set(struct auth_cred *c, const char *user)
{
	size_t n = strlen(user);

	memset(c->user, 0, sizeof(c->user));
	if (!n || n >= sizeof(c->user))
		return -1;
	memcpy(c->user, user, n);
	return rbd_check_auth_user(c->user) ? 0 : -1;
}

/* Read a secret that only its owner can read; strip one final newline. */
static int auth_read_secret(struct auth_cred *c, const char *path, char *err,
			    size_t errlen)
{
	uint8_t buf[RBD_AUTH_SECRET_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open secret file %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "secret file %s is not a regular file",
			 path);
		goto fail;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen,
			 "secret file %s is accessible by group or others (mode %03o); chmod 600 it",
			 path, (unsigned int)(st.st_mode & 0777));
		goto fail;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen,
			 "secret file %s belongs to another user (uid %u)",
			 path, (unsigned int)st.st_uid);
		goto fail;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		snprintf(err, errlen, "cannot read secret file %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < RBD_AUTH_SECRET_MIN || n > RBD_AUTH_SECRET_MAX) {
		snprintf(err, errlen,
			 "the secret in %s has %zd bytes; %u to %u are needed",
			 path, n, RBD_AUTH_SECRET_MIN, RBD_AUTH_SECRET_MAX);
		goto fail;
	}
	memcpy(c->secret, buf, (size_t)n);
	c->secret_len = (size_t)n;
	OPENSSL_cleanse(buf, sizeof(buf));
	close(fd);
	return 0;
fail:
	OPENSSL_cleanse(buf, sizeof(buf));
	close(fd);
	return -1;
}

/**
 * auth_load_cred() - a user name and the secret in a file
 * @c: filled in; cleared on failure.
 * @user: 1..255 printable ASCII characters, no blanks.
 * @secret_file: a regular file that group and others cannot access,
 *	owned by the caller or root, holding 12..255 bytes (one trailing
 *	newline is not part of the secret).
 * @err: receives a message naming the problem.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int auth_load_cred(struct auth_cred *c, const char *user,
		   const char *secret_file, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (auth_user_set(c, user)) {
		snprintf(err, errlen,
			 "user name '%s' is not 1 to %u printable characters without blanks",
			 user, RBD_AUTH_USER_LEN - 1);
		return -1;
	}
	if (auth_read_secret(c, secret_file, err, errlen)) {
		auth_cred_clear(c);
		return -1;
	}
	return 0;
}

void auth_cred_clear(struct auth_cred *c)
{
	OPENSSL_cleanse(c, sizeof(*c));
}

/**
 * auth_begin_init() - an AUTH_BEGIN with a fresh random challenge
 * @b: the capsule.
 * @tag: its tag (a control slot of queue 0).
 * @mutual: ask the target to prove itself.
 * @initiator: the initiator name.
 * @target: the target name, or NULL to authenticate for discovery.
 *
 * Return: 0, or -1 when no random bytes could be had or a name is too
 * long.
 */
int auth_begin_init(struct rbd_auth_begin *b, uint64_t tag, bool mutual,
		    const char *initiator, const char *target)
{
	memset(b, 0, sizeof(*b));
	if (strlen(initiator) >= RBD_NAME_LEN ||
	    (target && strlen(target) >= RBD_NAME_LEN))
		return -1;
	b->hdr.opcode = RBD_OP_AUTH_BEGIN;
	b->hdr.version = RBD_PROTO_VERSION;
	b->hdr.length = rbd_cpu_to_le32(sizeof(*b));
	b->hdr.tag = rbd_cpu_to_le64(tag);
	b->hash = RBD_AUTH_HMAC_SHA256;
	b->flags = mutual ? RBD_AUTH_F_MUTUAL : 0;
	do {
		if (getrandom(b->challenge, sizeof(b->challenge), 0) !=
		    (ssize_t)sizeof(b->challenge))
			return -1;
	} while (rbd_check_zero(b->challenge, sizeof(b->challenge)));
	memcpy(b->initiator_name, initiator, strlen(initiator));
	if (target)
		memcpy(b->target_name, target, strlen(target));
	return 0;
}

/**
 * auth_compute() - the proof of one side
 * @out: the HMAC-SHA-256 value.
 * @target_side: 0 for the initiator's proof, 1 for the target's.
 * @b: the connection's AUTH_BEGIN.
 * @challenge_tgt: the target's challenge.
 * @c: the prover's credentials.
 *
 * Return: 0, or -1 when libcrypto fails.
 */
int auth_compute(uint8_t out[RBD_AUTH_PROOF_LEN], int target_side,
		 const struct rbd_auth_begin *b, const uint8_t *challenge_tgt,
		 const struct auth_cred *c)
{
	struct rbd_auth_msg m;
	unsigned int len = RBD_AUTH_PROOF_LEN;

	rbd_auth_msg_init(&m, target_side, b, challenge_tgt, c->user);
	if (!HMAC(EVP_sha256(), c->secret, (int)c->secret_len,
		  (const unsigned char *)&m, sizeof(m), out, &len) ||
	    len != RBD_AUTH_PROOF_LEN)
		return -1;
	return 0;
}

/**
 * auth_proof_init() - the AUTH_PROOF answering a target's challenge
 * @p: the capsule.
 * @tag: its tag.
 * @b: the AUTH_BEGIN sent.
 * @r: the target's checked AUTH_BEGIN response, status 0.
 * @c: the initiator's credentials.
 *
 * Return: 0, or -1 when libcrypto fails.
 */
int auth_proof_init(struct rbd_auth_proof *p, uint64_t tag,
		    const struct rbd_auth_begin *b,
		    const struct rbd_auth_begin_rsp *r,
		    const struct auth_cred *c)
{
	memset(p, 0, sizeof(*p));
	p->hdr.opcode = RBD_OP_AUTH_PROOF;
	p->hdr.version = RBD_PROTO_VERSION;
	p->hdr.length = rbd_cpu_to_le32(sizeof(*p));
	p->hdr.tag = rbd_cpu_to_le64(tag);
	memcpy(p->user, c->user, sizeof(p->user));
	return auth_compute(p->proof, 0, b, r->challenge, c);
}

/**
 * auth_check_target() - did the target prove itself
 * @b: the AUTH_BEGIN sent, with %RBD_AUTH_F_MUTUAL.
 * @r: the target's AUTH_BEGIN response.
 * @pr: the checked AUTH_PROOF response, status 0.
 * @mutual: the credentials the target must prove.
 *
 * Return: 0 when @pr carries @mutual's user name and the right proof
 * (compared in constant time), -1 otherwise.
 */
int auth_check_target(const struct rbd_auth_begin *b,
		      const struct rbd_auth_begin_rsp *r,
		      const struct rbd_auth_proof_rsp *pr,
		      const struct auth_cred *mutual)
{
	uint8_t want[RBD_AUTH_PROOF_LEN];
	int ret;

	if (!(pr->flags & RBD_AUTH_F_MUTUAL) ||
	    memcmp(pr->user, mutual->user, sizeof(pr->user)))
		return -1;
	if (auth_compute(want, 1, b, r->challenge, mutual))
		return -1;
	ret = CRYPTO_memcmp(want, pr->proof, sizeof(want)) ? -1 : 0;
	OPENSSL_cleanse(want, sizeof(want));
	return ret;
}
