// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: discovery. Before LOGIN, queue 0 may carry DISCOVER requests
 * (Documentation/protocol.rst, "Discovery"): each asks for one entry, an
 * enabled target portal group behind the portal the connection came in
 * on, and the LUNs that the named initiator could log in to there. The
 * answer follows what a LOGIN would find: the initiator's explicit ACL
 * when it has one (its mapped LUNs), else every LUN of the TPG in demo
 * mode, else nothing. Entries without LUNs are not listed, nor TPGs that
 * require authentication unless the connection authenticated for
 * discovery (rbdt_auth.c); with discovery_auth/enforce_discovery_auth set,
 * nothing is answered without that.
 */

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/string.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "rbdt.h"

/**
 * struct rbdt_discover - state of one DISCOVER while visiting the TPGs
 * @ini: Initiator name from the request.
 * @index: The entry asked for.
 * @start_lun: List LUNs from this number up.
 * @nr_entries: Entries seen so far.
 * @authed: The connection authenticated for discovery by @ini.
 * @rsp: The response being built.
 */
struct rbdt_discover {
	char ini[RBD_NAME_LEN];
	u32 index;
	u64 start_lun;
	u32 nr_entries;
	bool authed;
	struct rbd_discover_rsp *rsp;
};

/*
 * The LUN set of one TPG is walked once per LUN listed: each pass finds
 * the smallest LUN above the previous one, so the list comes out sorted
 * without allocating. At most RBD_DISCOVER_MAX_LUNS + 1 passes.
 */
struct rbdt_lun_walk {
	u64 floor;	/* smallest acceptable LUN */
	u64 best;
	bool found;
};

static void rbdt_lun_walk_see(struct rbdt_lun_walk *w, u64 lun)
{
	if (lun < w->floor || (w->found && lun >= w->best))
		return;
	w->best = lun;
	w->found = true;
}

/* One pass over the LUNs @tpg offers @nacl (NULL: demo mode, all LUNs). */
static void rbdt_lun_walk(struct se_portal_group *se_tpg,
			  struct se_node_acl *nacl, struct rbdt_lun_walk *w)
{
	struct se_dev_entry *deve;
	struct se_lun *lun;

	w->found = false;
	if (nacl) {
		rcu_read_lock();
		hlist_for_each_entry_rcu(deve, &nacl->lun_entry_hlist, link)
			rbdt_lun_walk_see(w, deve->mapped_lun);
		rcu_read_unlock();
		return;
	}
	mutex_lock(&se_tpg->tpg_lun_mutex);
	hlist_for_each_entry_rcu(lun, &se_tpg->tpg_lun_hlist, link,
				 lockdep_is_held(&se_tpg->tpg_lun_mutex))
		rbdt_lun_walk_see(w, lun->unpacked_lun);
	mutex_unlock(&se_tpg->tpg_lun_mutex);
}

/*
 * Fill @luns with up to @max LUNs of @tpg for @d->ini from @start up.
 * Return the number filled in; *@more tells whether others follow.
 */
static u16 rbdt_discover_luns(struct rbdt_tpg *tpg, struct rbdt_discover *d,
			      u64 start, __le64 *luns, u16 max, bool *more)
{
	struct se_portal_group *se_tpg = &tpg->se_tpg;
	struct rbdt_lun_walk w = { .floor = start };
	struct se_node_acl *nacl;
	u16 n = 0;

	*more = false;
	nacl = core_tpg_get_initiator_node_acl(se_tpg, d->ini);
	if (!nacl && !se_tpg->se_tpg_tfo->tpg_check_demo_mode(se_tpg))
		return 0;
	for (;;) {
		rbdt_lun_walk(se_tpg, nacl, &w);
		if (!w.found)
			break;
		if (n == max) {
			*more = true;
			break;
		}
		if (luns)
			luns[n] = cpu_to_le64(w.best);
		n++;
		if (w.best == U64_MAX)
			break;
		w.floor = w.best + 1;
	}
	if (nacl)
		target_put_nacl(nacl);
	return n;
}

static void rbdt_discover_tpg(struct rbdt_tpg *tpg, struct rbdt_discover *d)
{
	struct rbd_discover_rsp *rsp = d->rsp;
	bool more;
	u16 n;

	if (!READ_ONCE(tpg->enabled) ||
	    (READ_ONCE(tpg->attrib.authentication) && !d->authed))
		return;
	/* Does the entry exist at all: one LUN from 0 up? */
	if (!rbdt_discover_luns(tpg, d, 0, NULL, 1, &more))
		return;
	if (d->nr_entries++ != d->index)
		return;
	n = rbdt_discover_luns(tpg, d, d->start_lun, rsp->luns,
			       RBD_DISCOVER_MAX_LUNS, &more);
	strscpy(rsp->target_name, tpg->tport->name, sizeof(rsp->target_name));
	rsp->tpgt = cpu_to_le16(tpg->tag);
	rsp->nr_luns = cpu_to_le16(n);
	rsp->flags = cpu_to_le16(more ? RBD_DISCOVER_MORE_LUNS : 0);
}

/**
 * rbdt_handle_discover() - answer a DISCOVER request on queue 0
 * @q: Queue 0, not logged in.
 * @r: The receive buffer holding the request; reposted.
 * @len: Its byte count.
 *
 * Context: The queue's receive completion (process context, the CQ is
 * IB_POLL_WORKQUEUE); the control slot of the request's tag is claimed.
 */
void rbdt_handle_discover(struct rbdt_queue *q, struct rbdt_recv *r, u32 len)
{
	const struct rbd_discover_req *req = r->buf;
	u32 slot = rbd_tag_slot(le64_to_cpu(req->hdr.tag));
	struct rbd_discover_rsp *rsp = q->ctrl[slot].buf;
	struct rbdt_discover *d;
	__le64 tag = req->hdr.tag;
	u16 status = RBD_REJ_NONE;
	struct rbdt_tpg *tpg;
	unsigned int i;
	u32 nr = 0;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	memset(rsp, 0, sizeof(*rsp));
	if (!d) {
		status = RBD_REJ_NO_RESOURCES;
	} else if (rbd_check_discover_req(r->buf, len)) {
		status = RBD_REJ_BAD_REQUEST;
	} else if (!rbdt_auth_discovery(q, req->initiator_name) &&
		   (READ_ONCE(rbdt_disc_enforce) || q->auth)) {
		status = rbdt_auth_required(q);
		pr_info_ratelimited("qid 0 %pISpc: discovery by %.*s refused: not authenticated for discovery\n",
				    &q->peer, RBD_NAME_LEN,
				    req->initiator_name);
	} else {
		d->authed = rbdt_auth_discovery(q, req->initiator_name);
		memcpy(d->ini, req->initiator_name, sizeof(d->ini));
		d->index = le32_to_cpu(req->index);
		d->start_lun = le64_to_cpu(req->start_lun);
		d->rsp = rsp;
		rbdt_listeners_lock();
		for (i = 0; (tpg = rbdt_listener_tpg(&q->local, i)); i++)
			rbdt_discover_tpg(tpg, d);
		rbdt_listeners_unlock();
		nr = d->nr_entries;
		if (!nr)
			status = RBD_REJ_ACL_DENIED;
		else if (d->index >= nr || !rsp->nr_luns)
			status = RBD_REJ_BAD_REQUEST;
		pr_debug("qid 0 %pISpc: discovery by %s: entry %u of %u: %s\n",
			 &q->peer, d->ini, d->index, nr,
			 rbd_reject_str(status));
	}
	if (status) {
		/* Only the status and the entry count survive a failure. */
		memset(rsp, 0, sizeof(*rsp));
		rsp->status = cpu_to_le16(status);
		if (status != RBD_REJ_ACL_DENIED &&
		    status != RBD_REJ_AUTH_REQUIRED)
			rsp->nr_entries = cpu_to_le32(nr);
	} else {
		rsp->index = cpu_to_le32(d->index);
		rsp->nr_entries = cpu_to_le32(nr);
	}
	rsp->hdr.opcode = RBD_OP_DISCOVER_RSP;
	rsp->hdr.version = RBD_PROTO_VERSION;
	rsp->hdr.length = cpu_to_le32(sizeof(*rsp));
	rsp->hdr.tag = tag;
	kfree(d);
	rbdt_ctrl_send(q, slot, sizeof(*rsp), r);
}
