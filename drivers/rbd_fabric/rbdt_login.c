// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: LOGIN (Documentation/protocol.rst). The first capsule of a queue 0
 * that is not AUTH or DISCOVER must be a LOGIN; it names the initiator,
 * the target and the LUN. The target selects the TPG among the portals of
 * the connection's address, LIO checks the ACL (target_setup_session()),
 * and the response grants what the TPG's attributes, the LUN and the
 * device allow. A LOGIN of an initiator instance that still has a session
 * there reinstates it: the old session is closed first, and the LOGIN is
 * handled again once it is gone (rbdt_login_work()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <target/target_core_backend.h>

#include "rbdt.h"

/* Answer a LOGIN with @reason; the caller has logged why. */
static void __rbdt_login_fail(struct rbdt_queue *q, u32 slot, __le64 tag,
			      struct rbdt_recv *r, u16 reason)
{
	struct rbd_login_rsp *rsp = q->ctrl[slot].buf;

	rbd_hdr_fill(rsp, RBD_OP_LOGIN_RSP, sizeof(*rsp), tag);
	rsp->status = cpu_to_le16(reason);
	q->ctrl[slot].status = reason;
	rbdt_ctrl_send(q, slot, sizeof(*rsp), r);
}

static void rbdt_login_fail(struct rbdt_queue *q, u32 slot, __le64 tag,
			    struct rbdt_recv *r, u16 reason, const char *ini,
			    const char *tgt)
{
	pr_info_ratelimited("qid 0 %pISpc: login of %s to %s refused: %s\n",
			    &q->peer, ini, tgt, rbd_reject_str(reason));
	__rbdt_login_fail(q, slot, tag, r, reason);
}

/*
 * Live sessions of initiator @ini on @tpg, the sessions of its ACL.
 * Called with @tpg->lock held, which protects the TPG's session list.
 */
static u32 rbdt_acl_sessions(struct rbdt_tpg *tpg, const char *ini)
{
	struct rbdt_session *s;
	u32 n = 0;

	lockdep_assert_held(&tpg->lock);
	list_for_each_entry(s, &tpg->sess_list, tpg_entry)
		if (READ_ONCE(s->state) == RBDT_SESS_LIVE &&
		    !strcmp(s->se_sess->se_node_acl->initiatorname, ini))
			n++;
	return n;
}

/*
 * A session without keep-alive would hold its queues, LIO session and
 * ACL slot for good once its initiator falls silent: refuse it.
 */
static bool rbdt_login_keepalive_ok(struct rbdt_queue *q,
				    const struct rbd_login_req *req,
				    const char *ini, const char *tgt)
{
	if (req->keepalive_ms)
		return true;
	atomic64_inc(&rbdt_refused.keepalive);
	pr_info_ratelimited("qid 0 %pISpc: login of %s to %s refused: keep-alive 0 (none) is not accepted; ask for %u..%u ms\n",
			    &q->peer, ini, tgt, RBD_MIN_KEEPALIVE_MS,
			    RBD_MAX_KEEPALIVE_MS);
	return false;
}

/* Room for one more session of @ini on @tpg (max_sessions_per_acl)? */
static bool rbdt_login_acl_room(struct rbdt_queue *q, struct rbdt_tpg *tpg,
				const char *ini)
{
	u32 max = READ_ONCE(tpg->attrib.max_sessions_per_acl);
	u32 n = rbdt_acl_sessions(tpg, ini);

	if (n < max)
		return true;
	atomic64_inc(&rbdt_refused.sessions_acl);
	pr_info_ratelimited("%s: login of %s from %pISpc refused: it has %u sessions (max_sessions_per_acl %u)\n",
			    tpg->name, ini, &q->peer, n, max);
	return false;
}

/*
 * Look the LUN up in the session's ACL. Return false if it is not mapped;
 * otherwise *@max_bytes is what the backstore takes in one command.
 */
static bool rbdt_lun_limits(struct se_session *se_sess, u64 lun,
			    u32 *max_bytes)
{
	struct se_node_acl *nacl = se_sess->se_node_acl;
	struct se_dev_entry *deve;
	struct se_device *dev;
	struct se_lun *se_lun;
	bool found = false;
	u64 bytes;

	rcu_read_lock();
	hlist_for_each_entry_rcu(deve, &nacl->lun_entry_hlist, link) {
		if (deve->mapped_lun != lun)
			continue;
		found = true;
		se_lun = deve->se_lun;
		dev = se_lun ? rcu_dereference(se_lun->lun_se_dev) : NULL;
		*max_bytes = RBD_MAX_IO_BYTES;
		if (dev && dev->dev_attrib.hw_max_sectors) {
			bytes = (u64)dev->dev_attrib.hw_max_sectors *
				dev->dev_attrib.block_size;
			if (bytes < *max_bytes)
				*max_bytes = max_t(u64,
						   round_down(bytes, RBD_IO_BYTES_ALIGN),
						   RBD_MIN_IO_BYTES);
		}
		break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * An earlier session of initiator instance @instance of @ini on @tpg, live
 * or closing, referenced; NULL if none. Called with @tpg->lock held.
 */
static struct rbdt_session *rbdt_instance_find(struct rbdt_tpg *tpg,
					       const char *ini, u64 instance)
{
	struct rbdt_session *s;

	lockdep_assert_held(&tpg->lock);
	if (!instance)
		return NULL;
	list_for_each_entry(s, &tpg->sess_list, tpg_entry)
		if (s->instance == instance &&
		    !strcmp(s->se_sess->se_node_acl->initiatorname, ini)) {
			kref_get(&s->ref);
			return s;
		}
	return NULL;
}

/*
 * Reinstatement: close @old, an earlier session of the same initiator
 * instance, and handle the LOGIN in @r again once it is gone
 * (rbdt_login_work()), so that none of its commands can reach the device
 * after one of the new session. Takes over the reference on @old.
 */
static void rbdt_login_defer(struct rbdt_queue *q, struct rbdt_recv *r,
			     u32 len, struct rbdt_session *old)
{
	unsigned long flags;

	pr_info("%s: login from %pISpc reinstates session %016llx (%s): closing it first\n",
		old->tpg->name, &q->peer, old->handle, old->name);
	spin_lock_irqsave(&rbdt_sess_lock, flags);
	__rbdt_session_shutdown(old);
	spin_unlock_irqrestore(&rbdt_sess_lock, flags);
	q->login_recv = r;
	q->login_len = len;
	q->login_old = old;
	queue_work(rbdt_wq, &q->login_work);
}

/*
 * The checks of a LOGIN that need no TPG: format, names and limits, the
 * features of the connect request, the keep-alive. A LOGIN that fails
 * one is refused here. @ini and @tgt (RBD_NAME_LEN) receive the names,
 * "?" where they cannot be read.
 */
static bool rbdt_login_precheck(struct rbdt_queue *q, struct rbdt_recv *r,
				u32 len, char *ini, char *tgt)
{
	const struct rbd_login_req *req = r->buf;
	u32 slot = rbd_tag_slot(le64_to_cpu(req->hdr.tag));
	__le64 tag = req->hdr.tag;
	enum rbd_check c;

	c = rbd_check_login_req(r->buf, len);
	strscpy(ini, "?", RBD_NAME_LEN);
	strscpy(tgt, "?", RBD_NAME_LEN);
	if (c) {
		rbdt_login_fail(q, slot, tag, r, rbd_check_reject_reason(c),
				ini, tgt);
		return false;
	}
	memcpy(ini, req->initiator_name, RBD_NAME_LEN);
	memcpy(tgt, req->target_name, RBD_NAME_LEN);
	if (le64_to_cpu(req->features) != q->features) {
		rbdt_login_fail(q, slot, tag, r, RBD_REJ_BAD_REQUEST, ini, tgt);
		return false;
	}
	if (!rbdt_login_keepalive_ok(q, req, ini, tgt)) {
		__rbdt_login_fail(q, slot, tag, r, RBD_REJ_LIMITS);
		return false;
	}
	return true;
}

/*
 * The LOGIN response of @sess, its TPG set: rbd_login_grant() over what
 * the TPG's attributes, the LUN (@dev_max bytes at most) and the device
 * allow.
 */
static void rbdt_login_grant(struct rbdt_queue *q, struct rbdt_session *sess,
			     const struct rbd_login_req *req, u32 dev_max)
{
	const struct rbdt_tpg *tpg = sess->tpg;
	struct rbd_allowance allow = {
		.features	= RBD_FEAT_REMOTE_INV | RBD_FEAT_RSP_BATCH |
				  RBD_FEAT_AUTH | RBD_FEAT_REINSTATE,
		.max_io_bytes	= min(READ_ONCE(tpg->attrib.max_io_size),
				      dev_max),
		.inline_write_size = READ_ONCE(tpg->attrib.inline_data_size),
		.imm_read_size	= READ_ONCE(tpg->attrib.imm_read_size),
		.queue_depth	= READ_ONCE(tpg->attrib.queue_depth),
		.nr_queues	= READ_ONCE(tpg->attrib.max_queues),
	};

	/* iWARP has no immediate data for a bare response to carry. */
	if (!rdma_protocol_iwarp(q->dev->ib_dev, q->port_num))
		allow.features |= RBD_FEAT_BARE_READ;
	rbd_hdr_fill(&sess->login, RBD_OP_LOGIN_RSP, sizeof(sess->login),
		     req->hdr.tag);
	rbd_login_grant(&sess->login, req, &allow);
	sess->nr_queues = le16_to_cpu(sess->login.nr_queues);
	sess->data_pool_kb = READ_ONCE(tpg->attrib.data_pool_kb);
	sess->max_write_fetches = READ_ONCE(tpg->attrib.max_write_fetches);
}

/*
 * Attach @sess to @tpg for the LOGIN @req of @ini, with @tpg->lock held:
 * LIO's session, the LUN's limits, the grant, the session lists. Return 0,
 * or why the LOGIN is refused.
 */
static u16 rbdt_login_attach(struct rbdt_queue *q, struct rbdt_session *sess,
			     struct rbdt_tpg *tpg,
			     const struct rbd_login_req *req, const char *ini)
{
	struct se_session *se_sess;
	u32 dev_max;

	se_sess = target_setup_session(&tpg->se_tpg, 0, 0, TARGET_PROT_NORMAL,
				       ini, sess, NULL);
	if (IS_ERR(se_sess))
		return PTR_ERR(se_sess) == -EACCES ? RBD_REJ_ACL_DENIED :
						     RBD_REJ_NO_RESOURCES;
	if (!rbdt_lun_limits(se_sess, sess->lun, &dev_max)) {
		target_remove_session(se_sess);
		return RBD_REJ_NO_LUN;
	}
	sess->se_sess = se_sess;
	sess->tpg = tpg;
	rbdt_login_grant(q, sess, req, dev_max);
	rbdt_session_add(q, sess);
	return 0;
}

/* The rest of a login, out of every lock: debugfs, keep-alive, answer. */
static void rbdt_login_done(struct rbdt_queue *q, struct rbdt_session *sess,
			    u32 slot, struct rbdt_recv *r)
{
	rbdt_session_debugfs_add(sess);

	q->keepalive_ms = le32_to_cpu(sess->login.keepalive_ms);
	WRITE_ONCE(q->last_rx, jiffies);
	if (q->keepalive_ms)
		mod_delayed_work(rbdt_wq, &q->timeout_work,
				 msecs_to_jiffies(q->keepalive_ms));
	else
		cancel_delayed_work(&q->timeout_work);

	pr_info("%s: session %016llx logged in from %pISpc: initiator %s, LUN %llu (%u queues, depth %u, max_io %u)\n",
		sess->tpg->name, sess->handle, &q->peer,
		sess->se_sess->se_node_acl->initiatorname, sess->lun,
		sess->nr_queues, le16_to_cpu(sess->login.queue_depth),
		le32_to_cpu(sess->login.max_io_bytes));

	memcpy(q->ctrl[slot].buf, &sess->login, sizeof(sess->login));
	rbdt_ctrl_send(q, slot, sizeof(sess->login), r);
}

/* LOGIN on queue 0; runs in the CQ work, or in rbdt_login_work(). */
void rbdt_handle_login(struct rbdt_queue *q, struct rbdt_recv *r,
		       u32 len)
{
	const struct rbd_login_req *req = r->buf;
	char ini[RBD_NAME_LEN], tgt[RBD_NAME_LEN];
	u32 slot = rbd_tag_slot(le64_to_cpu(req->hdr.tag));
	__le64 tag = req->hdr.tag;
	struct rbdt_session *sess, *old;
	struct rbdt_tpg *tpg;
	bool logged = false;
	u16 reason;

	if (!rbdt_login_precheck(q, r, len, ini, tgt))
		return;
	sess = rbdt_session_alloc(req, ini, tgt);
	if (!sess) {
		rbdt_login_fail(q, slot, tag, r, RBD_REJ_NO_RESOURCES, ini,
				tgt);
		return;
	}

	rbdt_listeners_lock();
	tpg = rbdt_listener_find_tpg(&q->local, tgt);
	if (!tpg) {
		reason = RBD_REJ_UNKNOWN_TARGET;
		goto out_unlock_listeners;
	}
	mutex_lock(&tpg->lock);
	if (!tpg->enabled) {
		reason = RBD_REJ_TPG_DISABLED;
		goto out_unlock_tpg;
	}
	reason = rbdt_auth_login_check(q, tpg, ini, tgt);
	if (reason) {
		logged = true;
		goto out_unlock_tpg;
	}
	old = rbdt_instance_find(tpg, ini, sess->instance);
	if (old)
		goto out_defer;
	if (!rbdt_login_acl_room(q, tpg, ini)) {
		reason = RBD_REJ_NO_RESOURCES;
		logged = true;
		goto out_unlock_tpg;
	}
	reason = rbdt_login_attach(q, sess, tpg, req, ini);
	if (reason)
		goto out_unlock_tpg;
	mutex_unlock(&tpg->lock);
	rbdt_listeners_unlock();
	rbdt_login_done(q, sess, slot, r);
	return;

out_defer:
	mutex_unlock(&tpg->lock);
	rbdt_listeners_unlock();
	kfree(sess);
	rbdt_login_defer(q, r, len, old);
	return;
out_unlock_tpg:
	mutex_unlock(&tpg->lock);
out_unlock_listeners:
	rbdt_listeners_unlock();
	kfree(sess);
	if (logged)
		__rbdt_login_fail(q, slot, tag, r, reason);
	else
		rbdt_login_fail(q, slot, tag, r, reason, ini, tgt);
}

/*
 * The deferred LOGIN of @q, once the session it reinstates is closed;
 * dropped when @q goes away first.
 */
void rbdt_login_work(struct work_struct *work)
{
	struct rbdt_queue *q = container_of(work, struct rbdt_queue,
					    login_work);
	struct rbdt_session *old = q->login_old;
	unsigned long flags;
	bool dying;

	while (!wait_for_completion_timeout(&old->released, HZ) &&
	       !READ_ONCE(q->dying))
		;
	q->login_old = NULL;
	rbdt_session_put(old);

	spin_lock_irqsave(&q->lock, flags);
	dying = q->dying;
	spin_unlock_irqrestore(&q->lock, flags);
	if (!dying)
		rbdt_handle_login(q, q->login_recv, q->login_len);
}
