/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The active side of an rbd connection from userspace (librdmacm and
 * libibverbs), shared by rbdadm discover and the test client rbd-client:
 * address and route resolution, PD, CQ and QP, the connect request with
 * its private data and the checked answer (Documentation/protocol.rst,
 * "Connection establishment"). It prints nothing: each step that fails
 * says which in a struct cm_status, and the caller words the message.
 */
#ifndef RBDADM_CM_H
#define RBDADM_CM_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rbd/rbd_proto.h>

/* One queue's connection. */
struct cm_conn {
	struct rdma_event_channel *ech;	/* NULL: cm_resolve() makes one */
	bool own_ech;			/* cm_free() destroys it */
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;	/* with cm_qp_caps.comp_channel */
	struct ibv_cq *cq;
	/*
	 * Called with the events of other ids on @ech that arrive while this
	 * one waits (a channel shared by several queues); it acknowledges
	 * them. NULL: they are acknowledged and dropped.
	 */
	void (*stray)(struct rdma_cm_event *ev);
};

/* How long each step may take, in milliseconds. */
struct cm_timeouts {
	int resolve;	/* given to rdma_resolve_addr() and _route() */
	int event;	/* waiting for ADDR_ and ROUTE_RESOLVED */
	int connect;	/* waiting for the answer to the connect request */
};

/* The step that failed, and what is known about why. */
enum cm_fail {
	CM_OK,
	CM_BAD_DST,		/* the destination does not parse */
	CM_BAD_SRC,		/* the source does not parse */
	CM_CREATE_ID,		/* rdma_create_id(); errno */
	CM_RESOLVE_ADDR,	/* rdma_resolve_addr(); errno */
	CM_ADDR_EVENT,		/* no ADDR_RESOLVED; event or timeout */
	CM_RESOLVE_ROUTE,	/* rdma_resolve_route(); errno */
	CM_ROUTE_EVENT,		/* no ROUTE_RESOLVED; event or timeout */
	CM_RESOURCES,		/* PD, completion channel or CQ */
	CM_CREATE_QP,		/* rdma_create_qp(); errno */
	CM_CONNECT,		/* rdma_connect(); errno */
	CM_NO_ANSWER,		/* no answer to the connect request in time */
	CM_BAD_REP,		/* ESTABLISHED, not by an rbd target; check */
	CM_REJECTED,		/* an rbd reject; rej */
	CM_REFUSED,		/* a reject without rbd data; ev_status */
	CM_OTHER_EVENT,		/* another answer; event */
};

struct cm_status {
	enum cm_fail fail;
	int err;			/* errno of the failed call */
	bool timeout;			/* no event came (else @event) */
	enum rdma_cm_event_type event;	/* the event that came instead */
	int ev_status;			/* its status */
	enum rbd_check check;		/* CM_BAD_REP: what is wrong */
	struct rbd_cm_rep rep;		/* CM_OK: the target's reply */
	struct rbd_cm_rej rej;		/* CM_REJECTED: its reason */
};

/* The CQ and QP of a connection. */
struct cm_qp_caps {
	int cq_entries;
	uint32_t max_send_wr, max_recv_wr;
	bool comp_channel;	/* a completion channel, CQ armed */
};

/* The name of the event that came in place of another, or "timeout". */
const char *cm_event_str(const struct cm_status *st);

void cm_req_init(struct rbd_cm_req *r, uint16_t qid, uint16_t depth,
		 uint64_t features, uint64_t handle);
struct rdma_cm_event *cm_get_event(struct rdma_event_channel *ech, int ms);
int cm_resolve(struct cm_conn *c, const char *dst, const char *port,
	       const char *src, bool numeric, const struct cm_timeouts *t,
	       struct cm_status *st);
int cm_setup_qp(struct cm_conn *c, const struct cm_qp_caps *caps,
		struct cm_status *st);
int cm_max_responder(struct cm_conn *c);
int cm_connect(struct cm_conn *c, const struct rbd_cm_req *req,
	       uint8_t responder, int ms, struct cm_status *st);
void cm_free(struct cm_conn *c);

#endif /* RBDADM_CM_H */
