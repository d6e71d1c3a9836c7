// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: authentication (Documentation/protocol.rst, "13. Authentication").
 *
 * Before its LOGIN, queue 0 proves the configured user's secret to the
 * target (AUTH_BEGIN, AUTH_PROOF) and, with mutual credentials set,
 * checks the target's proof of its own. It runs on every connect, so a
 * reconnect authenticates again; the secrets stay in the session for
 * that, written once through the write-only configfs attributes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/random.h>
#include <linux/string.h>

#include "rbdi.h"

/* Refuse with @why: logged, kept in last_error. */
static int rbdi_auth_fail(struct rbdi_session *sess, const char *why)
{
	rbdi_sess_err(sess, "login as %s to %s at %pISpc: %s\n",
		      sess->opts.initiator, sess->opts.target, &sess->dst, why);
	rbdi_sess_set_last_error(sess, why);
	return -EACCES;
}

/* Send @len bytes of @req on queue 0's login slot and wait for @rsp_op. */
static int rbdi_auth_exec(struct rbdi_session *sess, void *req, u32 len,
			  u8 rsp_op)
{
	struct rbdi_queue *q0 = &sess->queues[0];

	/* The copy in sess->auth keeps the tag the response must carry. */
	((struct rbd_hdr *)req)->tag = cpu_to_le64(rbdi_ctrl_arm(sess, rsp_op));
	memcpy(q0->slots[RBDI_SLOT_LOGIN].buf, req, len);
	return rbdi_ctrl_exec(sess, rsp_op, len, RBDI_CTRL_WAIT_MS);
}

static int rbdi_auth_begin(struct rbdi_session *sess)
{
	struct rbd_auth_begin *b = &sess->auth->begin;
	u16 status;
	int ret;

	rbd_hdr_fill(b, RBD_OP_AUTH_BEGIN, sizeof(*b), 0);
	b->hash = RBD_AUTH_HMAC_SHA256;
	if (rbd_auth_secret_set(&sess->auth->tgt))
		b->flags = RBD_AUTH_F_MUTUAL;
	do {
		get_random_bytes(b->challenge, sizeof(b->challenge));
	} while (!memchr_inv(b->challenge, 0, sizeof(b->challenge)));
	strscpy(b->initiator_name, sess->opts.initiator,
		sizeof(b->initiator_name));
	strscpy(b->target_name, sess->opts.target, sizeof(b->target_name));
	ret = rbdi_auth_exec(sess, b, sizeof(*b), RBD_OP_AUTH_BEGIN_RSP);
	if (ret)
		return ret;
	status = le16_to_cpu(sess->auth->begin_rsp.status);
	if (status)
		return rbdi_auth_fail(sess, rbd_reject_str(status));
	return 0;
}

static int rbdi_auth_prove(struct rbdi_session *sess)
{
	struct rbdi_auth *a = sess->auth;
	struct rbd_auth_proof *p = &a->proof;
	u8 want[RBD_AUTH_PROOF_LEN];
	u16 status;
	int ret;

	rbd_hdr_fill(p, RBD_OP_AUTH_PROOF, sizeof(*p), 0);
	memcpy(p->user, a->ini.user, sizeof(p->user));
	ret = rbd_auth_proof(&a->ini, 0, &a->begin, a->begin_rsp.challenge,
			     p->proof);
	if (ret)
		return ret;
	ret = rbdi_auth_exec(sess, p, sizeof(*p), RBD_OP_AUTH_PROOF_RSP);
	memzero_explicit(p->proof, sizeof(p->proof));
	if (ret)
		return ret;
	status = le16_to_cpu(a->proof_rsp.status);
	if (status)
		return rbdi_auth_fail(sess, rbd_reject_str(status));
	if (!(a->begin.flags & RBD_AUTH_F_MUTUAL))
		return 0;
	if (memcmp(a->proof_rsp.user, a->tgt.user, sizeof(a->tgt.user)))
		return rbdi_auth_fail(sess,
				      "target failed mutual authentication (user name)");
	ret = rbd_auth_proof(&a->tgt, 1, &a->begin, a->begin_rsp.challenge,
			     want);
	if (!ret && crypto_memneq(want, a->proof_rsp.proof, sizeof(want)))
		ret = rbdi_auth_fail(sess, "target failed mutual authentication");
	memzero_explicit(want, sizeof(want));
	return ret;
}

/**
 * rbdi_authenticate() - authenticate queue 0, if credentials are set
 * @sess: The session; queue 0 is connected, nothing sent on it yet.
 *
 * Context: Process context, with @sess->lock held.
 * Return: 0 (also without credentials), -EACCES when the target refused
 * or failed to prove itself (logged, in last_error), or another errno.
 */
int rbdi_authenticate(struct rbdi_session *sess)
{
	int ret;

	if (!rbd_auth_secret_set(&sess->auth->ini))
		return 0;
	if (!sess->cm_auth)
		return rbdi_auth_fail(sess, "target does not support authentication");
	ret = rbdi_auth_begin(sess);
	if (!ret)
		ret = rbdi_auth_prove(sess);
	if (!ret)
		rbdi_sess_info(sess, "authenticated as user %s%s\n",
			       sess->auth->ini.user,
			       sess->auth->begin.flags & RBD_AUTH_F_MUTUAL ?
			       "; the target proved itself" : "");
	return ret;
}

/**
 * rbdi_auth_take_rsp() - check an AUTH response against its request
 * @sess: The session.
 * @buf: The response, accepted by rbd_check_response().
 * @len: Its byte count.
 *
 * Context: The receive completion, with @sess->ctrl_lock held.
 * Return: true when it answers what was sent; it is then copied.
 */
bool rbdi_auth_take_rsp(struct rbdi_session *sess, const void *buf, u32 len)
{
	struct rbdi_auth *a = sess->auth;
	const struct rbd_hdr *hdr = buf;

	if (hdr->opcode == RBD_OP_AUTH_BEGIN_RSP) {
		if (rbd_check_auth_begin_rsp(buf, len, &a->begin))
			return false;
		memcpy(&a->begin_rsp, buf, sizeof(a->begin_rsp));
		return true;
	}
	if (rbd_check_auth_proof_rsp(buf, len, &a->begin, &a->proof))
		return false;
	memcpy(&a->proof_rsp, buf, sizeof(a->proof_rsp));
	return true;
}

/**
 * rbdi_auth_check_config() - are the credentials complete
 * @sess: The session, being enabled, with @sess->lock held.
 *
 * Return: 0, or -EINVAL (logged) for a user without its secret or the
 * reverse, or mutual credentials without one-way ones.
 */
int rbdi_auth_check_config(struct rbdi_session *sess)
{
	const struct rbdi_auth *a = sess->auth;

	if (!a->ini.user[0] != !a->ini.key_len) {
		rbdi_sess_err(sess, "cannot enable: auth_user and auth_secret must be set together\n");
		return -EINVAL;
	}
	if (!a->tgt.user[0] != !a->tgt.key_len) {
		rbdi_sess_err(sess, "cannot enable: auth_mutual_user and auth_mutual_secret must be set together\n");
		return -EINVAL;
	}
	if (a->tgt.user[0] && !a->ini.user[0]) {
		rbdi_sess_err(sess, "cannot enable: mutual authentication needs auth_user and auth_secret too\n");
		return -EINVAL;
	}
	return 0;
}
