// SPDX-License-Identifier: GPL-2.0
/*
 * The active side of an rbd connection from userspace: resolve, set up
 * the queue pair, connect with a struct rbd_cm_req and check the answer
 * (Documentation/protocol.rst, "Connection establishment"). Shared by
 * rbdadm discover and tests/tools/rbd-client; see cm.h.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <rbd/rbd_proto_check.h>

#include "cm.h"

const char *cm_event_str(const struct cm_status *st)
{
	return st->timeout ? "timeout" : rdma_event_str(st->event);
}

/* A connect request of queue @qid in wire format, reserved fields zero. */
void cm_req_init(struct rbd_cm_req *r, uint16_t qid, uint16_t depth,
		 uint64_t features, uint64_t handle)
{
	memset(r, 0, sizeof(*r));
	r->magic = rbd_cpu_to_le32(RBD_CM_MAGIC);
	r->version = rbd_cpu_to_le16(RBD_PROTO_VERSION);
	r->length = rbd_cpu_to_le16(sizeof(*r));
	r->qid = rbd_cpu_to_le16(qid);
	r->queue_depth = rbd_cpu_to_le16(depth);
	r->features = rbd_cpu_to_le64(features);
	r->session_handle = rbd_cpu_to_le64(handle);
}

/* The next CM event on @ech within @ms milliseconds, or NULL. */
struct rdma_cm_event *cm_get_event(struct rdma_event_channel *ech, int ms)
{
	struct pollfd p = { .fd = ech->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ech, &ev))
		return NULL;
	return ev;
}

static int64_t cm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next event of @c's id within @ms; those of other ids go to ->stray. */
static struct rdma_cm_event *cm_wait(struct cm_conn *c, int ms)
{
	int64_t end = cm_now_ms() + ms, left;
	struct rdma_cm_event *ev;

	for (;;) {
		left = end - cm_now_ms();
		ev = cm_get_event(c->ech, left > 0 ? (int)left : 0);
		if (!ev || ev->id == c->id)
			return ev;
		if (c->stray)
			c->stray(ev);
		else
			rdma_ack_cm_event(ev);
	}
}

/* Wait for event @want; else say which came in @st under @fail. */
static int cm_expect(struct cm_conn *c, enum rdma_cm_event_type want, int ms,
		     enum cm_fail fail, struct cm_status *st)
{
	struct rdma_cm_event *ev = cm_wait(c, ms);

	if (ev && ev->event == want) {
		rdma_ack_cm_event(ev);
		return 0;
	}
	st->fail = fail;
	st->timeout = !ev;
	if (ev) {
		st->event = ev->event;
		st->ev_status = ev->status;
		rdma_ack_cm_event(ev);
	}
	return -1;
}

/* Record the failure of a call that set errno. */
static int cm_errno(struct cm_status *st, enum cm_fail fail)
{
	st->fail = fail;
	st->err = errno;
	return -1;
}

/* The event channel (unless given) and the id of @c. */
static int cm_create_id(struct cm_conn *c, struct cm_status *st)
{
	if (!c->ech) {
		c->ech = rdma_create_event_channel();
		if (!c->ech)
			return cm_errno(st, CM_CREATE_ID);
		c->own_ech = true;
	}
	if (rdma_create_id(c->ech, &c->id, c, RDMA_PS_TCP))
		return cm_errno(st, CM_CREATE_ID);
	return 0;
}

/* Address, then route, from @sa (or any) to @da within @t. */
static int cm_resolve_route(struct cm_conn *c, struct sockaddr *sa,
			    struct sockaddr *da, const struct cm_timeouts *t,
			    struct cm_status *st)
{
	if (rdma_resolve_addr(c->id, sa, da, t->resolve))
		return cm_errno(st, CM_RESOLVE_ADDR);
	if (cm_expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, t->event, CM_ADDR_EVENT, st))
		return -1;
	if (rdma_resolve_route(c->id, t->resolve))
		return cm_errno(st, CM_RESOLVE_ROUTE);
	return cm_expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, t->event,
			 CM_ROUTE_EVENT, st);
}

/*
 * cm_resolve() - make @c's id and resolve @dst:@port, from @src when
 * not NULL. @numeric: addresses only, no host or service names.
 * Returns 0, or -1 with the failed step in @st.
 */
int cm_resolve(struct cm_conn *c, const char *dst, const char *port,
	       const char *src, bool numeric, const struct cm_timeouts *t,
	       struct cm_status *st)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *da = NULL, *sa = NULL;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (numeric)
		hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(dst, port, &hints, &da)) {
		st->fail = CM_BAD_DST;
		goto out;
	}
	if (src && getaddrinfo(src, NULL, &hints, &sa)) {
		st->fail = CM_BAD_SRC;
		goto out;
	}
	if (!cm_create_id(c, st))
		ret = cm_resolve_route(c, sa ? sa->ai_addr : NULL, da->ai_addr,
				       t, st);
out:
	if (da)
		freeaddrinfo(da);
	if (sa)
		freeaddrinfo(sa);
	return ret;
}

/*
 * cm_setup_qp() - PD, CQ (with a completion channel if asked) and an RC
 * QP of one SGE per work request on the resolved @c. Returns 0, or -1
 * with CM_RESOURCES or CM_CREATE_QP in @st.
 */
int cm_setup_qp(struct cm_conn *c, const struct cm_qp_caps *caps,
		struct cm_status *st)
{
	struct ibv_qp_init_attr attr = {};

	memset(st, 0, sizeof(*st));
	c->pd = ibv_alloc_pd(c->id->verbs);
	if (caps->comp_channel)
		c->ch = ibv_create_comp_channel(c->id->verbs);
	if (!caps->comp_channel || c->ch)
		c->cq = ibv_create_cq(c->id->verbs, caps->cq_entries, NULL,
				      c->ch, 0);
	if (!c->pd || !c->cq) {
		st->fail = CM_RESOURCES;
		return -1;
	}
	if (c->ch)
		ibv_req_notify_cq(c->cq, 0);
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = caps->max_send_wr;
	attr.cap.max_recv_wr = caps->max_recv_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &attr))
		return cm_errno(st, CM_CREATE_QP);
	return 0;
}

/* The most RDMA READs @c's device answers at once (at least 1). */
int cm_max_responder(struct cm_conn *c)
{
	struct ibv_device_attr dattr;

	if (ibv_query_device(c->id->verbs, &dattr) || !dattr.max_qp_rd_atom)
		return 1;
	return dattr.max_qp_rd_atom;
}

/* What the answer @ev (NULL: none) to connect request @req says. */
static int cm_answer(const struct rdma_cm_event *ev,
		     const struct rbd_cm_req *req, struct cm_status *st)
{
	const void *pdata = ev ? ev->param.conn.private_data : NULL;
	uint8_t len = ev ? ev->param.conn.private_data_len : 0;

	if (!ev) {
		st->fail = CM_NO_ANSWER;
		st->timeout = true;
		return -1;
	}
	st->event = ev->event;
	st->ev_status = ev->status;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		st->check = rbd_check_cm_rep(pdata, len, req, &st->rep);
		st->fail = st->check ? CM_BAD_REP : CM_OK;
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		st->fail = rbd_check_cm_rej(pdata, len, &st->rej) ?
			   CM_REFUSED : CM_REJECTED;
	} else {
		st->fail = CM_OTHER_EVENT;
	}
	return st->fail == CM_OK ? 0 : -1;
}

/*
 * cm_connect() - send connect request @req (sent as given, so that it
 * may be malformed on purpose), offering @responder RDMA READs in
 * flight, and wait @ms for the answer. Returns 0 when the target
 * accepted with a valid reply (in @st->rep), else -1 with @st saying
 * why; the connection is up also on CM_BAD_REP.
 */
int cm_connect(struct cm_conn *c, const struct rbd_cm_req *req,
	       uint8_t responder, int ms, struct cm_status *st)
{
	struct rdma_conn_param param = {
		.private_data = req,
		.private_data_len = sizeof(*req),
		.responder_resources = responder,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	int ret;

	memset(st, 0, sizeof(*st));
	if (rdma_connect(c->id, &param))
		return cm_errno(st, CM_CONNECT);
	ev = cm_wait(c, ms);
	ret = cm_answer(ev, req, st);
	if (ev)
		rdma_ack_cm_event(ev);
	return ret;
}

/* Destroy what cm_resolve() and cm_setup_qp() made; MRs go first. */
void cm_free(struct cm_conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->own_ech)
		rdma_destroy_event_channel(c->ech);
	c->id = NULL;
	c->cq = NULL;
	c->ch = NULL;
	c->pd = NULL;
	if (c->own_ech)
		c->ech = NULL;
	c->own_ech = false;
}
