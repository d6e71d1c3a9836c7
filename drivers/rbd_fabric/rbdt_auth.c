// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: authentication (Documentation/protocol.rst, "13. Authentication").
 *
 * Credentials live in the auth/ groups of ACLs and TPGs and in the
 * fabric's discovery_auth/ group (configfs side in rbdt_configfs.c); this
 * file stores and shows them, runs the AUTH_BEGIN / AUTH_PROOF exchange
 * of a queue 0 before its LOGIN or DISCOVER, and tells LOGIN and DISCOVER
 * whether the connection is authenticated for what they ask.
 *
 * A queue 0 goes NONE -> CHALLENGED (AUTH_BEGIN answered) -> DONE or
 * FAILED. A failed proof is answered RBDT_AUTH_FAIL_DELAY_MS after it
 * arrived, then the connection is closed; capsules that arrive meanwhile
 * are dropped, so the time of the disconnect tells nothing either.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>

#include "rbdt.h"

/* How long a failed proof waits for its answer. */
#define RBDT_AUTH_FAIL_DELAY_MS	2000

/* Protects every struct rbdt_auth_cred. */
static DEFINE_SPINLOCK(rbdt_auth_lock);

/* discovery_auth/: credentials for discovery, and whether it needs them. */
struct rbdt_auth_cred rbdt_disc_cred;
bool rbdt_disc_enforce;

static atomic64_t rbdt_auth_ok = ATOMIC64_INIT(0);
static atomic64_t rbdt_auth_failed_nr = ATOMIC64_INIT(0);

enum rbdt_auth_state {
	RBDT_AUTH_CHALLENGED,
	RBDT_AUTH_DONE,
	RBDT_AUTH_FAILED,
};

/**
 * struct rbdt_auth - authentication state of one queue 0
 * @state: &enum rbdt_auth_state.
 * @begin: The AUTH_BEGIN received.
 * @challenge: The target's challenge.
 * @cred: The credentials that applied at AUTH_BEGIN (copied).
 * @fail_work: Sends the delayed answer to a failed proof.
 * @q: The queue.
 * @fail_r: Receive buffer of the failed AUTH_PROOF, reposted by the answer.
 * @fail_tag: Its tag.
 */
struct rbdt_auth {
	enum rbdt_auth_state state;
	struct rbd_auth_begin begin;
	u8 challenge[RBD_AUTH_CHALLENGE_LEN];
	struct rbdt_auth_cred cred;
	struct delayed_work fail_work;
	struct rbdt_queue *q;
	struct rbdt_recv *fail_r;
	__le64 fail_tag;
};

static struct rbd_auth_secret *rbdt_auth_secret(struct rbdt_auth_cred *c,
						enum rbdt_auth_field f)
{
	return f == RBDT_AUTH_USERID || f == RBDT_AUTH_PASSWORD ?
	       &c->ini : &c->tgt;
}

ssize_t rbdt_auth_show(struct rbdt_auth_cred *c, enum rbdt_auth_field f,
		       char *page)
{
	struct rbd_auth_secret *s = rbdt_auth_secret(c, f);
	ssize_t ret;

	spin_lock(&rbdt_auth_lock);
	if (f == RBDT_AUTH_USERID || f == RBDT_AUTH_USERID_MUTUAL)
		ret = sysfs_emit(page, "%s\n", s->user);
	else
		ret = sysfs_emit(page, "%.*s\n", s->key_len, s->key);
	spin_unlock(&rbdt_auth_lock);
	return ret;
}

/*
 * Store one field of @c; "", "\n" and "NULL" (what targetcli writes)
 * clear it. @where names the ACL, TPG or discovery in the log line of a
 * refusal, which never quotes a secret.
 */
ssize_t rbdt_auth_store(struct rbdt_auth_cred *c, enum rbdt_auth_field f,
			const char *page, size_t count, const char *where)
{
	struct rbd_auth_secret *s = rbdt_auth_secret(c, f), *tmp;
	bool user = f == RBDT_AUTH_USERID || f == RBDT_AUTH_USERID_MUTUAL;
	int ret;

	tmp = kzalloc(sizeof(*tmp), GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	if (user)
		ret = rbd_auth_parse_user(page, count, tmp->user);
	else
		ret = rbd_auth_parse_key(page, count, tmp->key, &tmp->key_len);
	if (ret) {
		/* Not quoted: it may be a secret written to the wrong file. */
		if (user)
			pr_warn("%s: auth user name of %zu bytes refused: 1 to %u printable characters without blanks\n",
				where, count, RBD_AUTH_USER_LEN - 1);
		else
			pr_warn("%s: auth secret of %zu bytes refused: %u to %u bytes\n",
				where, count && page[count - 1] == '\n' ?
				count - 1 : count,
				RBD_AUTH_SECRET_MIN, RBD_AUTH_SECRET_MAX);
		goto out_free;
	}
	spin_lock(&rbdt_auth_lock);
	if (user) {
		memcpy(s->user, tmp->user, sizeof(s->user));
	} else {
		memcpy(s->key, tmp->key, sizeof(s->key));
		s->key_len = tmp->key_len;
	}
	spin_unlock(&rbdt_auth_lock);
	ret = count;
out_free:
	kfree_sensitive(tmp);
	return ret;
}

/* authenticate_target: 1 when the target can prove itself. */
ssize_t rbdt_auth_target_show(struct rbdt_auth_cred *c, char *page)
{
	bool set;

	spin_lock(&rbdt_auth_lock);
	set = rbd_auth_secret_set(&c->tgt);
	spin_unlock(&rbdt_auth_lock);
	return sysfs_emit(page, "%d\n", set);
}

void rbdt_auth_cred_clear(struct rbdt_auth_cred *c)
{
	spin_lock(&rbdt_auth_lock);
	memzero_explicit(c, sizeof(*c));
	spin_unlock(&rbdt_auth_lock);
}

/*
 * The credentials AUTH_BEGIN asks for: discovery's for an empty target
 * name, else those of the initiator's ACL in the TPG behind this portal,
 * or the TPG's own for an initiator without one in demo mode. Nothing
 * found leaves @out empty, which fails at the proof. Returns a reason to
 * refuse AUTH_BEGIN, or 0.
 */
static u16 rbdt_auth_lookup(struct rbdt_queue *q,
			    const struct rbd_auth_begin *b,
			    struct rbdt_auth_cred *out)
{
	struct se_node_acl *nacl;
	struct rbdt_tpg *tpg;
	u16 reason = 0;

	if (!b->target_name[0]) {
		spin_lock(&rbdt_auth_lock);
		*out = rbdt_disc_cred;
		spin_unlock(&rbdt_auth_lock);
		return 0;
	}
	rbdt_listeners_lock();
	tpg = rbdt_listener_find_tpg(&q->local, b->target_name);
	if (!tpg) {
		reason = RBD_REJ_UNKNOWN_TARGET;
	} else if (!READ_ONCE(tpg->enabled)) {
		reason = RBD_REJ_TPG_DISABLED;
	} else {
		nacl = core_tpg_get_initiator_node_acl(&tpg->se_tpg,
						       (unsigned char *)b->initiator_name);
		spin_lock(&rbdt_auth_lock);
		if (nacl && !nacl->dynamic_node_acl)
			*out = container_of(nacl, struct rbdt_nacl,
					    se_node_acl)->auth;
		else if (READ_ONCE(tpg->attrib.generate_node_acls))
			*out = tpg->auth;
		spin_unlock(&rbdt_auth_lock);
		if (nacl)
			target_put_nacl(nacl);
	}
	rbdt_listeners_unlock();
	return reason;
}

/* Send the AUTH response built in control slot @slot. */
static void rbdt_auth_send(struct rbdt_queue *q, u32 slot, u16 status,
			   u32 len, struct rbdt_recv *r)
{
	q->ctrl[slot].status = status;
	rbdt_ctrl_send(q, slot, len, r);
}

static void rbdt_auth_begin(struct rbdt_queue *q, struct rbdt_recv *r)
{
	const struct rbd_auth_begin *b = r->buf;
	u32 slot = rbd_tag_slot(le64_to_cpu(b->hdr.tag));
	struct rbd_auth_begin_rsp *rsp = q->ctrl[slot].buf;
	struct rbdt_auth *a;
	u16 status;

	rbd_hdr_fill(rsp, RBD_OP_AUTH_BEGIN_RSP, sizeof(*rsp), b->hdr.tag);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		rsp->status = cpu_to_le16(RBD_REJ_NO_RESOURCES);
		rbdt_auth_send(q, slot, RBD_REJ_NO_RESOURCES, sizeof(*rsp), r);
		return;
	}
	a->q = q;
	a->begin = *b;
	q->auth = a;
	status = rbdt_auth_lookup(q, b, &a->cred);
	if (status) {
		a->state = RBDT_AUTH_FAILED;
		pr_info_ratelimited("qid 0 %pISpc: authentication of %s for %s refused: %s\n",
				    &q->peer, b->initiator_name,
				    b->target_name, rbd_reject_str(status));
		rsp->status = cpu_to_le16(status);
		rbdt_auth_send(q, slot, status, sizeof(*rsp), r);
		return;
	}
	do {
		get_random_bytes(a->challenge, sizeof(a->challenge));
	} while (!memchr_inv(a->challenge, 0, sizeof(a->challenge)) ||
		 !memcmp(a->challenge, b->challenge, sizeof(a->challenge)));
	a->state = RBDT_AUTH_CHALLENGED;
	rsp->hash = b->hash;
	memcpy(rsp->challenge, a->challenge, sizeof(rsp->challenge));
	rbdt_auth_send(q, slot, 0, sizeof(*rsp), r);
}

/* Why @p does not prove the initiator, or NULL when it does. */
static const char *rbdt_auth_verify(struct rbdt_auth *a,
				    const struct rbd_auth_proof *p)
{
	u8 want[RBD_AUTH_PROOF_LEN];
	bool bad;

	if (!rbd_auth_secret_set(&a->cred.ini))
		return "no credentials set";
	if (memcmp(p->user, a->cred.ini.user, sizeof(p->user)))
		return "unknown user";
	if (rbd_auth_proof(&a->cred.ini, 0, &a->begin, a->challenge, want))
		return "cannot compute HMAC-SHA-256";
	bad = crypto_memneq(want, p->proof, sizeof(want));
	memzero_explicit(want, sizeof(want));
	if (bad)
		return "wrong proof";
	if ((a->begin.flags & RBD_AUTH_F_MUTUAL) &&
	    !rbd_auth_secret_set(&a->cred.tgt))
		return "mutual authentication asked for but not set";
	return NULL;
}

static void rbdt_auth_fail_work(struct work_struct *work)
{
	struct rbdt_auth *a = container_of(to_delayed_work(work),
					   struct rbdt_auth, fail_work);
	struct rbdt_queue *q = a->q;
	u32 slot = rbd_tag_slot(le64_to_cpu(a->fail_tag));
	struct rbd_auth_proof_rsp *rsp = q->ctrl[slot].buf;

	rbd_hdr_fill(rsp, RBD_OP_AUTH_PROOF_RSP, sizeof(*rsp), a->fail_tag);
	rsp->status = cpu_to_le16(RBD_REJ_AUTH_FAILED);
	rbdt_auth_send(q, slot, RBD_REJ_AUTH_FAILED, sizeof(*rsp), a->fail_r);
}

static const char *rbdt_auth_for(const struct rbd_auth_begin *b)
{
	return b->target_name[0] ? b->target_name : "discovery";
}

static void rbdt_auth_proof_rcvd(struct rbdt_queue *q, struct rbdt_recv *r)
{
	const struct rbd_auth_proof *p = r->buf;
	u32 slot = rbd_tag_slot(le64_to_cpu(p->hdr.tag));
	struct rbd_auth_proof_rsp *rsp = q->ctrl[slot].buf;
	struct rbdt_auth *a = q->auth;
	const char *why;

	why = rbdt_auth_verify(a, p);
	if (why) {
		a->state = RBDT_AUTH_FAILED;
		atomic64_inc(&rbdt_auth_failed_nr);
		pr_warn_ratelimited("qid 0 %pISpc: authentication of %s as user %s for %s failed: %s\n",
				    &q->peer, a->begin.initiator_name, p->user,
				    rbdt_auth_for(&a->begin), why);
		a->fail_r = r;
		a->fail_tag = p->hdr.tag;
		INIT_DELAYED_WORK(&a->fail_work, rbdt_auth_fail_work);
		queue_delayed_work(rbdt_wq, &a->fail_work,
				   msecs_to_jiffies(RBDT_AUTH_FAIL_DELAY_MS));
		return;
	}
	rbd_hdr_fill(rsp, RBD_OP_AUTH_PROOF_RSP, sizeof(*rsp), p->hdr.tag);
	if ((a->begin.flags & RBD_AUTH_F_MUTUAL) &&
	    rbd_auth_proof(&a->cred.tgt, 1, &a->begin, a->challenge,
			   rsp->proof)) {
		rsp->status = cpu_to_le16(RBD_REJ_NO_RESOURCES);
		rbdt_auth_send(q, slot, RBD_REJ_NO_RESOURCES, sizeof(*rsp), r);
		return;
	}
	if (a->begin.flags & RBD_AUTH_F_MUTUAL) {
		rsp->flags = RBD_AUTH_F_MUTUAL;
		memcpy(rsp->user, a->cred.tgt.user, sizeof(rsp->user));
	}
	a->state = RBDT_AUTH_DONE;
	memzero_explicit(&a->cred, sizeof(a->cred));
	atomic64_inc(&rbdt_auth_ok);
	pr_info_ratelimited("qid 0 %pISpc: authenticated %s as user %s for %s%s\n",
			    &q->peer, a->begin.initiator_name, p->user,
			    rbdt_auth_for(&a->begin),
			    rsp->flags ? ", target proved to it" : "");
	rbdt_auth_send(q, slot, 0, sizeof(*rsp), r);
}

/**
 * rbdt_auth_handle() - an AUTH_BEGIN or AUTH_PROOF on queue 0
 * @q: Queue 0, not logged in.
 * @r: The receive buffer, holding a capsule that rbd_check_request()
 *	accepted; its control slot is claimed.
 *
 * Return: false for a capsule out of order (the caller disconnects):
 * authentication not offered, AUTH_BEGIN twice or after a DISCOVER,
 * AUTH_PROOF without a challenge.
 */
bool rbdt_auth_handle(struct rbdt_queue *q, struct rbdt_recv *r)
{
	const struct rbd_hdr *hdr = r->buf;

	if (!(q->features & RBD_FEAT_AUTH))
		return false;
	if (hdr->opcode == RBD_OP_AUTH_BEGIN) {
		if (q->auth || q->prelogin_used)
			return false;
		rbdt_auth_begin(q, r);
		return true;
	}
	if (!q->auth || q->auth->state != RBDT_AUTH_CHALLENGED)
		return false;
	rbdt_auth_proof_rcvd(q, r);
	return true;
}

/* A failed proof waits for its answer: drop what comes meanwhile. */
bool rbdt_auth_failed(struct rbdt_queue *q)
{
	return q->auth && q->auth->state == RBDT_AUTH_FAILED;
}

static bool rbdt_auth_done_for(struct rbdt_queue *q, const char *ini,
			       const char *tgt)
{
	const struct rbdt_auth *a = q->auth;

	return a && a->state == RBDT_AUTH_DONE &&
	       !strncmp(a->begin.initiator_name, ini, RBD_NAME_LEN) &&
	       !strncmp(a->begin.target_name, tgt, RBD_NAME_LEN);
}

/* The refusal for a LOGIN or DISCOVER that needs authentication. */
u16 rbdt_auth_required(struct rbdt_queue *q)
{
	return q->features & RBD_FEAT_AUTH ? RBD_REJ_AUTH_REQUIRED :
					     RBD_REJ_ACL_DENIED;
}

/**
 * rbdt_auth_login_check() - may this LOGIN proceed
 * @q: Queue 0.
 * @tpg: The TPG it logs in to.
 * @ini: Its initiator name.
 * @tgt: Its target name.
 *
 * Return: 0, or the LOGIN status: the TPG requires authentication, or the
 * connection authenticated for other names.
 */
u16 rbdt_auth_login_check(struct rbdt_queue *q, struct rbdt_tpg *tpg,
			  const char *ini, const char *tgt)
{
	if (rbdt_auth_done_for(q, ini, tgt))
		return 0;
	if (!q->auth && !READ_ONCE(tpg->attrib.authentication))
		return 0;
	pr_info_ratelimited("qid 0 %pISpc: login of %s to %s refused: not authenticated for it\n",
			    &q->peer, ini, tgt);
	return rbdt_auth_required(q);
}

/* Is @q authenticated for discovery by @ini? */
bool rbdt_auth_discovery(struct rbdt_queue *q, const char *ini)
{
	return rbdt_auth_done_for(q, ini, "");
}

/* Free queue 0's state; the queue is going away. */
void rbdt_auth_queue_free(struct rbdt_queue *q)
{
	struct rbdt_auth *a = q->auth;

	if (!a)
		return;
	if (a->fail_r)
		cancel_delayed_work_sync(&a->fail_work);
	q->auth = NULL;
	kfree_sensitive(a);
}

void rbdt_auth_stats_show(struct seq_file *m)
{
	seq_printf(m, "auth_ok: %lld\n", atomic64_read(&rbdt_auth_ok));
	seq_printf(m, "auth_failed: %lld\n",
		   atomic64_read(&rbdt_auth_failed_nr));
}
