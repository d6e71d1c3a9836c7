// SPDX-License-Identifier: GPL-2.0
/*
 * rbd-client: a userspace rbd protocol client (librdmacm + libibverbs) for
 * testing rbdt independently of the kernel initiator.
 *
 *   rbd-client -a ADDR [-s SRCADDR] -t TARGET -i INITIATOR [-l LUN] [-p PORT]
 *              [-Q NQUEUES] [-d DEPTH] [-R RESPONDER] [-K MS] COMMAND...
 *
 * -R offers the target at most RESPONDER RDMA READs in flight per queue
 * (the connection's responder resources; default the device's maximum).
 * -K asks for a keep-alive timeout of MS milliseconds at LOGIN (default
 * the protocol's maximum, since this client sends no NOPs of its own).
 *
 * Commands run in order on one session (connect + LOGIN first):
 *   login                       print the grants
 *   inquiry                     standard INQUIRY
 *   readcap                     READ CAPACITY(16)
 *   write LBA FILE [MODE]       write FILE; MODE desc (default), multi, inline
 *   read LBA NBLK FILE [MODE]   read into FILE; MODE desc, multi, imm
 *   verify LBA NBLK             write patterns in every mode, read back in
 *                               every mode, over every queue, compare
 *   io SECONDS [LBA NBLK]       write/read/verify loop until done or error,
 *                               within NBLK blocks from LBA (default: all)
 *   nop                         NOP on queue 0
 *   tmf FUNCTION                TMF with a function number
 *   tmflun LUN FUNCTION         the same, addressed to another LUN
 *   raw DIR LEN LUN CDB         one command as given: DIR none, read or
 *                               write, LEN data bytes (one descriptor;
 *                               written bytes are 5Ah), CDB in hex; prints
 *                               "raw: status S [sense K/ASC/ASCQ]"
 *   abort                       a READ, then ABORT TASK of it; reports the
 *                               TMF response and the READ's status
 *   reset N                     N READs, then LUN RESET; reports the TMF
 *                               response and how the READs ended
 *   storm SECONDS SEED          sessions of valid commands, each ended by a
 *                               hostile act drawn from SEED (mutation, tag
 *                               reuse, abort race, disconnect mid-command,
 *                               bad join, other LUN, wrong direction,
 *                               logout); fails on a malformed or wrong
 *                               answer or a command never answered
 *   churn N SECONDS             up to N sessions: READs that reuse their
 *                               slot the moment the response arrives, the
 *                               last one followed by a disconnect; prints
 *                               the sum of the sessions' slot_waits
 *   stats                       print the target's debugfs counters of
 *                               this session (client and target on one
 *                               host), as "stats: name: value" lines
 *   logout                      LOGOUT
 *   hostile                     every malformed capsule of protocol.rst,
 *                               each on a fresh session; reports answers
 *   discover-check              DISCOVER before LOGIN: a malformed one, entry
 *                               0, an index past the end, LOGIN on the same
 *                               queue, a DISCOVER after LOGIN (disconnects)
 *   flood N HOLD [churn]        N bare connects of queue 0 that never log
 *                               in, for at most HOLD seconds; each accepted
 *                               one is held until then (or until the target
 *                               drops it), with churn disconnected at once
 *                               (the flood then ends with its last connect);
 *                               reports how many were accepted and refused
 *
 * Exit status: 0 success; 1 usage or local error; 2 connection or login
 * refused; 3 disconnected by the target or protocol error; 4 SCSI error
 * or data mismatch; 5 a hostile case got an undocumented answer.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rbd/rbd_proto.h"
#include "rbd/rbd_proto_check.h"
#include "rbd-tool.h"
#include "auth.h"
#include "cm.h"

#define EX_OK		0
#define EX_USAGE	1
#define EX_REFUSED	2
#define EX_DISC		3
#define EX_SCSI		4
#define EX_HOSTILE	5

#define TIMEOUT_MS	10000
#define MAX_QUEUES	16
#define MAX_DEPTH	1024

struct queue {
	struct cm_conn cm;
	struct ibv_mr *recv_mr, *send_mr, *data_mr;
	uint8_t *recv_buf, *send_buf, *data;
	uint32_t recv_size, send_size, nrecv, nsend, data_size;
	uint16_t qid, depth;
	uint32_t next_slot;
	uint16_t gen;
	struct rbd_check_limits lim;
	bool dead;
};

static struct {
	const char *addr, *port, *target, *initiator, *src;
	uint64_t lun;
	int nqueues;
	int depth;
	int responder;	/* -R, or 0: the device's maximum */
	uint32_t keepalive_ms;	/* -K */
	bool ctrl_only;	/* queues send control capsules only (flood) */
	uint64_t features;
	int verbose;
	struct rdma_event_channel *ech;
	struct queue q[MAX_QUEUES + 1];
	int nq;		/* I/O queues connected */
	int join_max;	/* connect at most this many I/O queues */
	struct rbd_login_req login;
	struct rbd_login_rsp grant;
	uint32_t block_size;
	uint64_t nblocks;
	/* Last response */
	uint8_t status;
	uint8_t sense[RBD_MAX_SENSE_LEN];
	uint32_t sense_len, imm_len, residual;
	uint16_t rsp_flags;
	uint8_t imm[RBD_MAX_IMM_READ];
	uint16_t last_reject;
	uint64_t malformed;	/* responses refused by the validators */
} g = {
	.port = "65000",
	.nqueues = 1,
	.depth = 16,
	.join_max = MAX_QUEUES,
	.keepalive_ms = RBD_MAX_KEEPALIVE_MS,
};

static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!g.verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Handle a CM event that arrived while not expected. */
static void stray_event(struct rdma_cm_event *ev)
{
	int i;

	vlog("cm event %s on %p\n", rdma_event_str(ev->event), ev->id);
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
	    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ||
	    ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
		for (i = 0; i <= MAX_QUEUES; i++)
			if (g.q[i].cm.id == ev->id)
				g.q[i].dead = true;
	}
	rdma_ack_cm_event(ev);
}

static void drain_cm_events(void)
{
	struct rdma_cm_event *ev;

	while ((ev = cm_get_event(g.ech, 0)))
		stray_event(ev);
}

static int post_recv(struct queue *q, uint32_t i)
{
	return tool_post_recv(q->cm.id->qp, q->recv_buf, q->recv_size,
			      q->recv_mr->lkey, i);
}

static void queue_free(struct queue *q)
{
	if (q->recv_mr)
		ibv_dereg_mr(q->recv_mr);
	if (q->send_mr)
		ibv_dereg_mr(q->send_mr);
	if (q->data_mr)
		ibv_dereg_mr(q->data_mr);
	cm_free(&q->cm);
	free(q->recv_buf);
	free(q->send_buf);
	free(q->data);
	memset(q, 0, sizeof(*q));
}

static void disconnect_all(void)
{
	int i;

	for (i = 0; i <= MAX_QUEUES; i++)
		if (g.q[i].cm.id)
			rdma_disconnect(g.q[i].cm.id);
	drain_cm_events();
	for (i = 0; i <= MAX_QUEUES; i++)
		if (g.q[i].cm.id)
			queue_free(&g.q[i]);
	g.nq = 0;
}

/* rbd-client's waits: 2 s to resolve, 10 s for each event. */
static const struct cm_timeouts client_timeouts = {
	.resolve = 2000,
	.event = TIMEOUT_MS,
	.connect = TIMEOUT_MS,
};

/* Sizes of @q's buffers for connect request @req. */
static void queue_size(struct queue *q, const struct rbd_cm_req *req,
		       uint32_t recv_size, uint32_t nrecv, uint32_t data_size)
{
	uint32_t cmd_max = rbd_cmd_capsule_max(RBD_MAX_INLINE_WRITE, RBD_MAX_DESC);

	q->qid = rbd_le16(req->qid);
	q->depth = rbd_le16(req->queue_depth);
	q->recv_size = recv_size;
	q->nrecv = nrecv;
	q->send_size = RBD_CTRL_CAPSULE_MAX > cmd_max ? RBD_CTRL_CAPSULE_MAX : cmd_max;
	/* A flood's connections pin little: the memlock limit is per process. */
	if (g.ctrl_only)
		q->send_size = RBD_CTRL_CAPSULE_MAX;
	q->nsend = q->depth + RBD_CTRL_SLOTS + 4;
	q->data_size = data_size;
}

/* Receive, send and data buffers of @q, registered, receives posted. */
static int queue_bufs(struct queue *q)
{
	size_t rlen, slen, dlen;
	uint32_t i;

	rlen = tool_mr_len((size_t)q->nrecv * q->recv_size + 4096);
	slen = tool_mr_len((size_t)q->nsend * q->send_size);
	dlen = tool_mr_len(q->data_size ? q->data_size : 4096);
	q->recv_buf = aligned_alloc(4096, rlen);
	q->send_buf = aligned_alloc(4096, slen);
	q->data = aligned_alloc(4096, dlen);
	if (!q->recv_buf || !q->send_buf || !q->data) {
		fprintf(stderr, "out of resources\n");
		return EX_USAGE;
	}
	memset(q->data, 0, dlen);
	q->recv_mr = ibv_reg_mr(q->cm.pd, q->recv_buf, rlen,
				IBV_ACCESS_LOCAL_WRITE);
	q->send_mr = ibv_reg_mr(q->cm.pd, q->send_buf, slen,
				IBV_ACCESS_LOCAL_WRITE);
	q->data_mr = ibv_reg_mr(q->cm.pd, q->data, dlen,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE);
	if (!q->recv_mr || !q->send_mr || !q->data_mr) {
		perror("ibv_reg_mr");
		return EX_USAGE;
	}
	for (i = 0; i < q->nrecv; i++)
		if (post_recv(q, i)) {
			perror("ibv_post_recv");
			return EX_USAGE;
		}
	return 0;
}

static void print_errno(const char *call, int err)
{
	fprintf(stderr, "%s: %s\n", call, strerror(err));
}

/* Why resolving or setting up a queue failed (always EX_USAGE). */
static int queue_setup_failed(const struct cm_status *st)
{
	switch (st->fail) {
	case CM_BAD_DST:
		fprintf(stderr, "cannot resolve %s\n", g.addr);
		break;
	case CM_BAD_SRC:
		fprintf(stderr, "cannot resolve %s\n", g.src);
		break;
	case CM_CREATE_ID:
		print_errno("rdma_create_id", st->err);
		break;
	case CM_RESOLVE_ADDR:
		print_errno("rdma_resolve_addr", st->err);
		break;
	case CM_ADDR_EVENT:
		fprintf(stderr, "address resolution failed (%s)\n", cm_event_str(st));
		break;
	case CM_RESOLVE_ROUTE:
		print_errno("rdma_resolve_route", st->err);
		break;
	case CM_ROUTE_EVENT:
		fprintf(stderr, "route resolution failed\n");
		break;
	case CM_RESOURCES:
		fprintf(stderr, "out of resources\n");
		break;
	default:
		print_errno("rdma_create_qp", st->err);
		break;
	}
	return EX_USAGE;
}

/*
 * What the target answered to @q's connect request: 0, EX_REFUSED (a
 * reject; g.last_reject holds the reason, 0 without rbd data), EX_DISC
 * or EX_USAGE.
 */
static int queue_answer(struct queue *q, const struct cm_status *st)
{
	switch (st->fail) {
	case CM_OK:
		vlog("qid %u connected\n", q->qid);
		return 0;
	case CM_CONNECT:
		print_errno("rdma_connect", st->err);
		return EX_USAGE;
	case CM_NO_ANSWER:
		fprintf(stderr, "qid %u: connect timed out\n", q->qid);
		return EX_DISC;
	case CM_BAD_REP:
		printf("qid %u: bad connect reply: %s\n", q->qid,
		       rbd_check_str(st->check));
		return EX_DISC;
	case CM_REJECTED:
		g.last_reject = rbd_le16(st->rej.reason);
		printf("qid %u: connection rejected: %s (%u)\n", q->qid,
		       rbd_reject_str(g.last_reject), g.last_reject);
		return EX_REFUSED;
	case CM_REFUSED:
		g.last_reject = 0;
		printf("qid %u: connection rejected without rbd data (status %d)\n",
		       q->qid, st->ev_status);
		return EX_REFUSED;
	default:
		printf("qid %u: connect failed: %s\n", q->qid, cm_event_str(st));
		return EX_DISC;
	}
}

/*
 * Connect queue @q with connect request @req, sent as given (hostile
 * cases make it malformed). Returns 0, EX_REFUSED (reject; g.last_reject
 * holds the reason) or EX_DISC/EX_USAGE on other failures.
 */
static int queue_connect(struct queue *q, const struct rbd_cm_req *req,
			 uint32_t recv_size, uint32_t nrecv, uint32_t data_size)
{
	struct cm_qp_caps caps = { .comp_channel = true };
	struct cm_status st;
	int responder, ret;

	queue_size(q, req, recv_size, nrecv, data_size);
	caps.cq_entries = 2 * (nrecv + q->nsend) + 8;
	caps.max_send_wr = q->nsend;
	caps.max_recv_wr = nrecv;
	q->cm.ech = g.ech;
	q->cm.stray = stray_event;
	if (cm_resolve(&q->cm, g.addr, g.port, g.src, false, &client_timeouts, &st) ||
	    cm_setup_qp(&q->cm, &caps, &st))
		return queue_setup_failed(&st);
	ret = queue_bufs(q);
	if (ret)
		return ret;
	responder = cm_max_responder(&q->cm);
	if (g.responder && g.responder < responder)
		responder = g.responder;
	cm_connect(&q->cm, req, (uint8_t)responder, client_timeouts.connect, &st);
	return queue_answer(q, &st);
}

static uint8_t *send_slot(struct queue *q, uint32_t i)
{
	return q->send_buf + (size_t)(i % q->nsend) * q->send_size;
}

/* Post a SEND of @len bytes at @buf, with immediate data @imm if @with_imm. */
static int post_send_imm(struct queue *q, void *buf, uint32_t len,
			 bool with_imm, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = q->send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x5e5d,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (with_imm)
		wr.imm_data = htonl(imm);
	return ibv_post_send(q->cm.id->qp, &wr, &bad);
}

static int post_send(struct queue *q, void *buf, uint32_t len)
{
	return post_send_imm(q, buf, len, false, 0);
}

/*
 * Wait for the next received capsule on @q. Returns its length and sets
 * *@buf, -1 on disconnect or error, -2 on timeout. The caller reposts
 * receive *@idx when done.
 */
static int wait_recv(struct queue *q, uint8_t **buf, uint32_t *idx,
		     int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	struct ibv_wc wc;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = q->cm.ch->fd, .events = POLLIN },
			{ .fd = g.ech->fd, .events = POLLIN },
		};
		int n, left;

		while ((n = ibv_poll_cq(q->cm.cq, 1, &wc)) > 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				vlog("qid %u: completion error %s\n", q->qid,
				     ibv_wc_status_str(wc.status));
				q->dead = true;
				return -1;
			}
			if (wc.opcode & IBV_WC_RECV) {
				*idx = wc.wr_id;
				*buf = q->recv_buf + (size_t)wc.wr_id * q->recv_size;
				return wc.byte_len;
			}
		}
		if (q->dead)
			return -1;
		left = (int)(end - now_ms());
		if (left <= 0)
			return -2;
		if (poll(p, 2, left) <= 0)
			continue;
		if (p[1].revents) {
			struct rdma_cm_event *ev = cm_get_event(g.ech, 0);

			if (ev)
				stray_event(ev);
		}
		if (p[0].revents) {
			struct ibv_cq *cq;
			void *ctx;

			if (!ibv_get_cq_event(q->cm.ch, &cq, &ctx)) {
				ibv_ack_cq_events(cq, 1);
				ibv_req_notify_cq(cq, 0);
			}
		}
	}
}

static uint64_t next_tag(struct queue *q, uint32_t nslots)
{
	uint32_t slot = q->next_slot++ % nslots;

	if (!slot)
		q->gen++;
	return rbd_tag(q->qid, q->gen, slot);
}

/* Control request on queue @q; returns the response length or -1/-2. */
static int ctrl_request(struct queue *q, void *req, uint32_t len,
			uint8_t *rsp, uint32_t rsp_max)
{
	uint8_t *buf;
	uint32_t idx;
	int n;

	memcpy(send_slot(q, 0), req, len);
	if (post_send(q, send_slot(q, 0), len))
		return -1;
	n = wait_recv(q, &buf, &idx, TIMEOUT_MS);
	if (n < 0)
		return n;
	memcpy(rsp, buf, (uint32_t)n < rsp_max ? (uint32_t)n : rsp_max);
	post_recv(q, idx);
	return n;
}

static void fill_hdr(struct rbd_hdr *h, uint8_t op, uint32_t len, uint64_t tag)
{
	h->opcode = op;
	h->version = RBD_PROTO_VERSION;
	h->flags = 0;
	h->length = rbd_cpu_to_le32(len);
	h->tag = rbd_cpu_to_le64(tag);
}

/* Connect queue 0, LOGIN, connect the I/O queues. */
static int session_open(int nqueues)
{
	struct rbd_login_req *req = &g.login;
	struct rbd_cm_req cr;
	uint8_t rsp[RBD_CTRL_CAPSULE_MAX];
	enum rbd_check c;
	int ret, i, n;
	uint16_t status;

	if (!g.q[0].cm.id) {	/* else connected by discover-check */
		cm_req_init(&cr, 0, 0, g.features, 0);
		ret = queue_connect(&g.q[0], &cr, RBD_CTRL_CAPSULE_MAX,
				    RBD_CTRL_SLOTS, 0);
		if (ret)
			return ret;
	}

	memset(req, 0, sizeof(*req));
	fill_hdr(&req->hdr, RBD_OP_LOGIN, sizeof(*req),
		 next_tag(&g.q[0], RBD_CTRL_SLOTS));
	req->features = rbd_cpu_to_le64(g.features);
	req->lun = rbd_cpu_to_le64(g.lun);
	req->max_io_bytes = rbd_cpu_to_le32(RBD_DEFAULT_MAX_IO_BYTES);
	req->inline_write_size = rbd_cpu_to_le32(RBD_DEFAULT_INLINE_WRITE);
	req->imm_read_size = rbd_cpu_to_le32(RBD_DEFAULT_IMM_READ);
	req->keepalive_ms = rbd_cpu_to_le32(g.keepalive_ms);
	req->queue_depth = rbd_cpu_to_le16(g.depth);
	req->nr_queues = rbd_cpu_to_le16(nqueues);
	req->max_desc = rbd_cpu_to_le16(RBD_DEFAULT_MAX_DESC);
	snprintf(req->initiator_name, sizeof(req->initiator_name), "%s",
		 g.initiator);
	snprintf(req->target_name, sizeof(req->target_name), "%s", g.target);

	n = ctrl_request(&g.q[0], req, sizeof(*req), rsp, sizeof(rsp));
	if (n < 0) {
		printf("login: disconnected without an answer\n");
		return EX_DISC;
	}
	c = rbd_check_login_rsp(rsp, n, req);
	if (c) {
		printf("login: malformed LOGIN_RSP: %s\n", rbd_check_str(c));
		return EX_DISC;
	}
	memcpy(&g.grant, rsp, sizeof(g.grant));
	status = rbd_le16(g.grant.status);
	if (status) {
		g.last_reject = status;
		printf("login refused: %s (%u)\n", rbd_reject_str(status),
		       status);
		return EX_REFUSED;
	}
	vlog("logged in, handle %016llx\n",
	     (unsigned long long)rbd_le64(g.grant.session_handle));

	for (i = 1; i <= nqueues && i <= rbd_le16(g.grant.nr_queues) &&
		    i <= g.join_max; i++) {
		uint16_t depth = rbd_le16(g.grant.queue_depth);
		struct queue *q = &g.q[i];

		cm_req_init(&cr, i, depth, rbd_le64(g.grant.features),
			    rbd_le64(g.grant.session_handle));
		ret = queue_connect(q, &cr,
				    rbd_rsp_capsule_max(rbd_le32(g.grant.imm_read_size)),
				    depth + RBD_CTRL_SLOTS,
				    rbd_le32(g.grant.max_io_bytes));
		if (ret)
			return ret;
		rbd_check_limits_init(&q->lim, &g.grant, i, depth);
		g.nq = i;
	}
	return 0;
}

enum mode { M_DESC, M_MULTI, M_INLINE, M_IMM, M_NONE };

static const char *mode_str[] = { "desc", "multi", "inline", "imm", "none" };

/*
 * Build a SCSI command capsule in @buf. Data for M_INLINE is taken from
 * @q->data. Returns the capsule length.
 */
static uint32_t build_cmd(struct queue *q, uint8_t *buf, uint64_t tag,
			  const uint8_t *cdb, uint8_t cdb_len, uint8_t dir,
			  uint32_t len, enum mode m)
{
	struct rbd_cmd *cmd = (struct rbd_cmd *)buf;
	struct rbd_desc *d = (struct rbd_desc *)(cmd + 1);
	uint32_t clen = sizeof(*cmd), off = 0, i, nd = 0;

	memset(cmd, 0, sizeof(*cmd));
	cmd->lun = rbd_cpu_to_le64(g.lun);
	cmd->data_length = rbd_cpu_to_le32(len);
	cmd->dir = dir;
	cmd->task_attr = RBD_TASK_SIMPLE;
	cmd->cdb_len = cdb_len;
	memcpy(cmd->cdb, cdb, cdb_len);
	if (len && m == M_DESC) {
		nd = 1;
		d[0].addr = rbd_cpu_to_le64((uintptr_t)q->data);
		d[0].rkey = rbd_cpu_to_le32(q->data_mr->rkey);
		d[0].len = rbd_cpu_to_le32(len);
	} else if (len && m == M_MULTI) {
		/* Uneven pieces, not block aligned, in reverse order. */
		uint32_t max = q->lim.max_desc < 4 ? q->lim.max_desc : 4;
		uint32_t piece[4], rest = len;

		for (i = 0; i < max && rest; i++) {
			piece[i] = i == max - 1 ? rest : (rest / 3 ? rest / 3 + 5 : rest);
			if (piece[i] > rest)
				piece[i] = rest;
			rest -= piece[i];
			nd++;
		}
		/* Descriptor i covers stream bytes [off, off + piece[i]). */
		for (i = 0; i < nd; i++) {
			d[i].addr = rbd_cpu_to_le64((uintptr_t)q->data + off);
			d[i].rkey = rbd_cpu_to_le32(q->data_mr->rkey);
			d[i].len = rbd_cpu_to_le32(piece[i]);
			off += piece[i];
		}
	} else if (len && m == M_INLINE) {
		memcpy(cmd + 1, q->data, len);
		clen += len;
	}
	cmd->nr_desc = rbd_cpu_to_le16(nd);
	clen += nd * sizeof(*d);
	fill_hdr(&cmd->hdr, RBD_OP_SCSI_CMD, clen, tag);
	return clen;
}

/*
 * Wait for the SCSI response of @tag on @q. Returns 0 (g.status etc. set),
 * EX_DISC on disconnect or malformed response.
 */
#define TAG_ANY		UINT64_MAX

static uint64_t rsp_tag;	/* tag of the last response wait_rsp() took */

static int wait_rsp(struct queue *q, uint64_t tag, int timeout_ms)
{
	uint8_t *buf;
	uint32_t idx;
	int n;

	for (;;) {
		const struct rbd_rsp *rsp;
		enum rbd_check c;

		n = wait_recv(q, &buf, &idx, timeout_ms);
		if (n == -2)
			return -2;
		if (n < 0)
			return EX_DISC;
		c = rbd_check_response(buf, n, &q->lim, NULL);
		if (c) {
			printf("qid %u: malformed response: %s\n", q->qid,
			       rbd_check_str(c));
			g.malformed++;
			post_recv(q, idx);
			return EX_DISC;
		}
		rsp = (const struct rbd_rsp *)buf;
		if (rsp->hdr.opcode != RBD_OP_SCSI_RSP ||
		    (tag != TAG_ANY && rbd_le64(rsp->hdr.tag) != tag)) {
			vlog("qid %u: unexpected capsule %s tag %llx\n", q->qid,
			     rbd_opcode_str(rsp->hdr.opcode),
			     (unsigned long long)rbd_le64(rsp->hdr.tag));
			post_recv(q, idx);
			continue;
		}
		rsp_tag = rbd_le64(rsp->hdr.tag);
		g.status = rsp->status;
		g.imm_len = rbd_le32(rsp->imm_len);
		g.sense_len = rbd_le16(rsp->sense_len);
		g.residual = rbd_le32(rsp->residual);
		g.rsp_flags = rbd_le16(rsp->hdr.flags);
		memcpy(g.imm, rsp + 1, g.imm_len);
		memcpy(g.sense, (const uint8_t *)(rsp + 1) + g.imm_len,
		       g.sense_len);
		post_recv(q, idx);
		return 0;
	}
}

/* Run one SCSI command on @q; data in/out through q->data. */
static int scsi_once(struct queue *q, const uint8_t *cdb, uint8_t cdb_len,
		     uint8_t dir, uint32_t len, enum mode m)
{
	uint64_t tag = next_tag(q, q->depth);
	uint8_t *buf = send_slot(q, tag);
	uint32_t clen;
	int ret;

	clen = build_cmd(q, buf, tag, cdb, cdb_len, dir, len, m);
	if (post_send(q, buf, clen))
		return EX_DISC;
	ret = wait_rsp(q, tag, TIMEOUT_MS);
	if (ret == -2) {
		printf("qid %u: no response within %d ms\n", q->qid, TIMEOUT_MS);
		return EX_DISC;
	}
	if (ret)
		return ret;
	if (m == M_IMM && dir == RBD_DIR_READ)
		memcpy(q->data, g.imm, g.imm_len);
	return 0;
}

/* Run a command, retrying it after a UNIT ATTENTION as initiators do. */
static int scsi(struct queue *q, const uint8_t *cdb, uint8_t cdb_len,
		uint8_t dir, uint32_t len, enum mode m)
{
	int ret, i;

	for (i = 0; i < 4; i++) {
		ret = scsi_once(q, cdb, cdb_len, dir, len, m);
		if (ret || g.status != 2 || g.sense_len < 14 ||
		    (g.sense[2] & 0xf) != 6)
			break;
		vlog("unit attention %02x/%02x; retrying\n", g.sense[12],
		     g.sense[13]);
	}
	return ret;
}

static int check_good(const char *what)
{
	if (g.status == 0)
		return 0;
	if (g.sense_len >= 14)
		printf("%s: status %#x sense key %#x asc/ascq %02x/%02x\n",
		       what, g.status, g.sense[2] & 0xf, g.sense[12],
		       g.sense[13]);
	else
		printf("%s: status %#x\n", what, g.status);
	return EX_SCSI;
}

static int cmd_inquiry(void)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 96, 0 };
	int ret;

	ret = scsi(&g.q[1], cdb, 6, RBD_DIR_READ, 96, M_DESC);
	if (ret || (ret = check_good("INQUIRY")))
		return ret;
	printf("inquiry: type %u vendor '%.8s' product '%.16s'\n",
	       g.q[1].data[0] & 0x1f, g.q[1].data + 8, g.q[1].data + 16);
	return 0;
}

static int cmd_readcap(bool quiet)
{
	uint8_t cdb[16] = { 0x9e, 0x10, [13] = 32 };
	uint8_t *d = g.q[1].data;
	int ret, i;

	ret = scsi(&g.q[1], cdb, 16, RBD_DIR_READ, 32, M_IMM);
	if (ret || (ret = check_good("READ CAPACITY(16)")))
		return ret;
	g.nblocks = 0;
	for (i = 0; i < 8; i++)
		g.nblocks = g.nblocks << 8 | d[i];
	g.nblocks++;
	g.block_size = (uint32_t)d[8] << 24 | d[9] << 16 | d[10] << 8 | d[11];
	if (!quiet)
		printf("capacity: %llu blocks of %u bytes\n",
		       (unsigned long long)g.nblocks, g.block_size);
	return 0;
}

static void rw_cdb(uint8_t *cdb, bool write, uint64_t lba, uint32_t nblk)
{
	int i;

	memset(cdb, 0, 16);
	cdb[0] = write ? 0x8a : 0x88;
	for (i = 0; i < 8; i++)
		cdb[2 + i] = lba >> (56 - 8 * i);
	for (i = 0; i < 4; i++)
		cdb[10 + i] = nblk >> (24 - 8 * i);
}

/* Largest chunk for mode @m in bytes, a multiple of the block size. */
static uint32_t chunk_max(enum mode m)
{
	uint32_t max = rbd_le32(g.grant.max_io_bytes);

	if (m == M_INLINE)
		max = rbd_le32(g.grant.inline_write_size);
	else if (m == M_IMM)
		max = rbd_le32(g.grant.imm_read_size);
	return max / g.block_size * g.block_size;
}

/* Write or read @nblk blocks at @lba through @q; buffer @data. */
static int do_io(struct queue *q, bool write, uint64_t lba, uint32_t nblk,
		 uint8_t *data, enum mode m)
{
	uint64_t total = (uint64_t)nblk * g.block_size, off = 0;
	uint32_t max = chunk_max(m);
	uint8_t cdb[16];
	int ret;

	if (!max) {
		printf("mode %s not granted\n", mode_str[m]);
		return EX_SCSI;
	}
	while (off < total) {
		uint32_t len = total - off > max ? max : total - off;

		rw_cdb(cdb, write, lba + off / g.block_size,
		       len / g.block_size);
		if (write)
			memcpy(q->data, data + off, len);
		ret = scsi(q, cdb, 16, write ? RBD_DIR_WRITE : RBD_DIR_READ,
			   len, m);
		if (ret)
			return ret;
		ret = check_good(write ? "WRITE(16)" : "READ(16)");
		if (ret)
			return ret;
		if (!write)
			memcpy(data + off, q->data, len);
		off += len;
	}
	return 0;
}

static enum mode parse_mode(const char *s, enum mode def)
{
	int i;

	if (!s)
		return def;
	for (i = 0; i < M_NONE; i++)
		if (!strcmp(s, mode_str[i]))
			return i;
	fprintf(stderr, "unknown mode %s\n", s);
	exit(EX_USAGE);
}

static int cmd_write(uint64_t lba, const char *file, enum mode m)
{
	FILE *f = fopen(file, "rb");
	uint8_t *data;
	long size;
	int ret;

	if (!f) {
		perror(file);
		return EX_USAGE;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	if (size <= 0 || size % g.block_size) {
		fprintf(stderr, "%s: size is not a multiple of %u\n", file,
			g.block_size);
		fclose(f);
		return EX_USAGE;
	}
	data = malloc(size);
	if (!data || fread(data, 1, size, f) != (size_t)size) {
		fclose(f);
		free(data);
		return EX_USAGE;
	}
	fclose(f);
	ret = do_io(&g.q[1], true, lba, size / g.block_size, data, m);
	free(data);
	return ret;
}

static int cmd_read(uint64_t lba, uint32_t nblk, const char *file, enum mode m)
{
	uint8_t *data = malloc((size_t)nblk * g.block_size);
	FILE *f;
	int ret;

	if (!data)
		return EX_USAGE;
	ret = do_io(&g.q[1], false, lba, nblk, data, m);
	if (!ret) {
		f = fopen(file, "wb");
		if (!f || fwrite(data, g.block_size, nblk, f) != nblk) {
			perror(file);
			ret = EX_USAGE;
		}
		if (f)
			fclose(f);
	}
	free(data);
	return ret;
}

static void pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

/* Write in @wm, read back in @rm on queue @qi and compare. */
static int verify_one(int qi, uint64_t lba, uint32_t nblk, enum mode wm,
		      enum mode rm, uint32_t seed)
{
	size_t len = (size_t)nblk * g.block_size;
	uint8_t *a = malloc(len), *b = malloc(len);
	int ret;

	if (!a || !b)
		return EX_USAGE;
	pattern(a, len, seed);
	memset(b, 0, len);
	ret = do_io(&g.q[qi], true, lba, nblk, a, wm);
	if (!ret)
		ret = do_io(&g.q[qi], false, lba, nblk, b, rm);
	if (!ret && memcmp(a, b, len)) {
		printf("verify: data mismatch (qid %d, write %s, read %s, lba %llu, %u blocks)\n",
		       qi, mode_str[wm], mode_str[rm],
		       (unsigned long long)lba, nblk);
		ret = EX_SCSI;
	}
	free(a);
	free(b);
	return ret;
}

static int cmd_verify(uint64_t lba, uint32_t nblk)
{
	static const enum mode wm[] = { M_DESC, M_MULTI, M_INLINE };
	static const enum mode rm[] = { M_DESC, M_MULTI, M_IMM };
	uint32_t small = chunk_max(M_INLINE) / g.block_size;
	uint32_t smalli = chunk_max(M_IMM) / g.block_size;
	int qi, w, r, ret;
	uint32_t seed = 1;

	for (qi = 1; qi <= g.nq; qi++) {
		for (w = 0; w < 3; w++) {
			for (r = 0; r < 3; r++) {
				uint32_t n = nblk;

				/* Inline and immediate: small transfers. */
				if (wm[w] == M_INLINE || rm[r] == M_IMM) {
					n = small < smalli ? small : smalli;
					if (!n)
						continue;
				}
				ret = verify_one(qi, lba, n, wm[w], rm[r],
						 seed++);
				if (ret)
					return ret;
			}
		}
	}
	printf("verify: ok\n");
	return 0;
}

/*
 * Write, read back and compare 64 KiB at a time for @seconds, walking the
 * @span blocks from @base (all of the LUN when @span is 0). Sessions that
 * run at once must be given ranges of their own: one's write between the
 * other's write and read would read back as a mismatch.
 */
static int cmd_io(int seconds, uint64_t base, uint64_t span)
{
	uint64_t end = now_ms() + seconds * 1000ULL;
	uint32_t seed = 100, nblk = 65536 / g.block_size;
	int ret, qi = 1;
	uint64_t n = 0;

	if (!span)
		span = g.nblocks - base;
	if (base >= g.nblocks || span > g.nblocks - base || span <= nblk) {
		printf("io: range %llu+%llu does not fit %llu blocks of %u\n",
		       (unsigned long long)base, (unsigned long long)span,
		       (unsigned long long)g.nblocks, g.block_size);
		return EX_USAGE;
	}
	while (now_ms() < end) {
		ret = verify_one(qi, base + (n * nblk) % (span - nblk), nblk,
				 M_DESC, M_DESC, seed++);
		if (ret) {
			printf("io: stopped after %llu rounds (%s)\n",
			       (unsigned long long)n,
			       ret == EX_DISC ? "disconnected" : "error");
			return ret;
		}
		n++;
		qi = qi % g.nq + 1;
	}
	printf("io: %llu rounds ok\n", (unsigned long long)n);
	return 0;
}

static int cmd_nop(void)
{
	struct rbd_nop nop = {}, rsp;
	uint8_t buf[64];
	int n;

	fill_hdr(&nop.hdr, RBD_OP_NOP, sizeof(nop),
		 next_tag(&g.q[0], RBD_CTRL_SLOTS));
	nop.cookie = rbd_cpu_to_le64(0x1234567890abcdefULL);
	n = ctrl_request(&g.q[0], &nop, sizeof(nop), buf, sizeof(buf));
	if (n < 0 || rbd_check_nop(buf, n, RBD_OP_NOP_RSP, 0)) {
		printf("nop: no valid answer\n");
		return EX_DISC;
	}
	memcpy(&rsp, buf, sizeof(rsp));
	if (rsp.cookie != nop.cookie || rsp.hdr.tag != nop.hdr.tag) {
		printf("nop: cookie or tag not echoed\n");
		return EX_DISC;
	}
	printf("nop: ok\n");
	return 0;
}

/* The target's counters of this session; see "Target statistics". */
static int cmd_stats(void)
{
	char path[128], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/rbdt/%016llx/stats",
		 (unsigned long long)rbd_le64(g.grant.session_handle));
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return EX_USAGE;
	}
	while (fgets(line, sizeof(line), f))
		printf("stats: %s", line);
	fclose(f);
	return 0;
}

/* The target's debugfs counter @name of this session, or -1. */
static long long target_stat(const char *name)
{
	char path[128], line[256];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/rbdt/%016llx/stats",
		 (unsigned long long)rbd_le64(g.grant.session_handle));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = strtoll(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Post a 1-block READ(16) of LBA 0 on @q; returns its tag, 0 on failure. */
static uint64_t post_read1(struct queue *q)
{
	uint64_t tag = next_tag(q, q->depth);
	uint8_t *buf = send_slot(q, tag);
	uint8_t cdb[16];
	uint32_t len;

	rw_cdb(cdb, false, 0, 1);
	len = build_cmd(q, buf, tag, cdb, 16, RBD_DIR_READ, g.block_size,
			M_DESC);
	return post_send(q, buf, len) ? 0 : tag;
}

/*
 * One session of "churn": READs on queue 1, each sent the moment the
 * previous one's response arrives (the target may not have released the
 * slot yet), @rounds of them, then one more and a disconnect without
 * waiting for it. Adds the session's slot_waits counter to @waits.
 */
static int churn_one(int rounds, long long *waits)
{
	struct queue *q;
	long long w;
	int ret, i;

	ret = session_open(1);
	if (ret)
		return ret;
	q = &g.q[1];
	if (!g.block_size && (ret = cmd_readcap(true)))
		return ret;
	for (i = 0; i < rounds; i++) {
		uint64_t tag = post_read1(q);

		if (!tag)
			return EX_DISC;
		ret = wait_rsp(q, tag, TIMEOUT_MS);
		if (ret)
			return ret == -2 ? EX_DISC : ret;
		if (g.status && g.status != 8)	/* BUSY is allowed */
			return check_good("churn READ");
	}
	w = target_stat("slot_waits");
	if (w < 0 || *waits < 0)
		*waits = -1;
	else
		*waits += w;
	post_read1(q);
	disconnect_all();
	return 0;
}

/*
 * churn N SECONDS: up to N sessions (at most SECONDS long in all) of
 * churn_one(); prints how often a capsule waited for its slot.
 */
static int cmd_churn(int n, int seconds)
{
	uint64_t end = now_ms() + (uint64_t)seconds * 1000;
	long long waits = 0;
	int i, ret = 0;

	for (i = 0; i < n && now_ms() < end; i++) {
		ret = churn_one(i ? 8 : 200, &waits);
		if (ret) {
			printf("churn: session %d failed (%d)\n", i + 1, ret);
			break;
		}
	}
	printf("churn: %d sessions, slot waits: %lld\n", i, waits);
	return ret;
}

static int tmf_response;

static int tmf_request_lun(uint64_t lun, uint8_t function, uint64_t ref_tag)
{
	struct rbd_tmf_req tmf = {};
	struct rbd_tmf_rsp rsp;
	uint8_t buf[64];
	int n;

	fill_hdr(&tmf.hdr, RBD_OP_TMF, sizeof(tmf),
		 next_tag(&g.q[0], RBD_CTRL_SLOTS));
	tmf.lun = rbd_cpu_to_le64(lun);
	tmf.function = function;
	tmf.ref_tag = rbd_cpu_to_le64(ref_tag);
	n = ctrl_request(&g.q[0], &tmf, sizeof(tmf), buf, sizeof(buf));
	if (n < 0 || rbd_check_tmf_rsp(buf, n)) {
		printf("tmf: no valid answer\n");
		return EX_DISC;
	}
	memcpy(&rsp, buf, sizeof(rsp));
	tmf_response = rsp.response;
	printf("tmf %u: response %u\n", function, rsp.response);
	return 0;
}

static int tmf_request(uint8_t function, uint64_t ref_tag)
{
	return tmf_request_lun(g.lun, function, ref_tag);
}

static int cmd_tmf(uint8_t function)
{
	return tmf_request(function, function == RBD_TMF_ABORT_TASK ?
				     rbd_tag(1, 0, 0) : 0);
}

/*
 * Start @n one-block READs on queue 1 without waiting; their tags go to
 * @tags. The backstore is expected to be slow enough for a TMF to find
 * them outstanding.
 */
static int start_reads(uint64_t *tags, uint32_t n)
{
	struct queue *q = &g.q[1];
	uint8_t cdb[16];
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t *buf;
		uint32_t clen;

		tags[i] = next_tag(q, q->depth);
		buf = send_slot(q, tags[i]);
		rw_cdb(cdb, false, i, 1);
		clen = build_cmd(q, buf, tags[i], cdb, 16, RBD_DIR_READ,
				 g.block_size, M_DESC);
		if (post_send(q, buf, clen))
			return EX_DISC;
	}
	return 0;
}

/* Collect the responses of @n commands; count GOOD and TASK ABORTED. */
static int collect(const char *what, uint32_t n)
{
	uint32_t i, good = 0, aborted = 0, other = 0;
	int ret;

	for (i = 0; i < n; i++) {
		ret = wait_rsp(&g.q[1], TAG_ANY, 30000);
		if (ret) {
			printf("%s: %u of %u commands unanswered\n", what,
			       n - i, n);
			return EX_DISC;
		}
		if (g.status == 0)
			good++;
		else if (g.status == 0x40)
			aborted++;
		else
			other++;
		vlog("%s: tag %llx status %#x\n", what,
		     (unsigned long long)rsp_tag, g.status);
	}
	printf("%s: %u commands: %u aborted, %u good, %u other\n", what, n,
	       aborted, good, other);
	return 0;
}

/* READ, ABORT TASK of it, then its answer. */
static int cmd_abort(void)
{
	uint64_t tag;
	int ret;

	ret = start_reads(&tag, 1);
	usleep(200000);	/* let the target receive the READ first */
	if (!ret)
		ret = tmf_request(RBD_TMF_ABORT_TASK, tag);
	if (!ret)
		ret = collect("abort", 1);
	return ret;
}

/* @n READs, LUN RESET, then their answers. */
static int cmd_reset(uint32_t n)
{
	uint64_t tags[MAX_DEPTH];
	int ret;

	if (n < 1 || n > g.q[1].depth || n > MAX_DEPTH) {
		printf("reset: 1 to %u commands\n", g.q[1].depth);
		return EX_USAGE;
	}
	ret = start_reads(tags, n);
	usleep(200000);
	if (!ret)
		ret = tmf_request(RBD_TMF_LUN_RESET, 0);
	if (!ret)
		ret = collect("reset", n);
	return ret;
}

/*
 * One command exactly as given: direction none, read or write, @len bytes
 * by one descriptor (written data: bytes 5Ah), to LUN @lun, CDB in hex.
 * Prints the status and, for CHECK CONDITION, key/ASC/ASCQ.
 */
static int cmd_raw(const char *dirs, uint32_t len, uint64_t lun,
		   const char *hex)
{
	struct queue *q = &g.q[1];
	uint8_t cdb[RBD_MAX_CDB_LEN] = { 0 };
	uint64_t saved = g.lun;
	size_t n = strlen(hex) / 2, i;
	uint8_t dir;
	int ret;

	if (!strcmp(dirs, "none"))
		dir = RBD_DIR_NONE;
	else if (!strcmp(dirs, "read"))
		dir = RBD_DIR_READ;
	else if (!strcmp(dirs, "write"))
		dir = RBD_DIR_WRITE;
	else
		return EX_USAGE;
	if (n < RBD_MIN_CDB_LEN || n > RBD_MAX_CDB_LEN || strlen(hex) % 2 ||
	    len > q->data_size || (!len) != (dir == RBD_DIR_NONE))
		return EX_USAGE;
	for (i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &cdb[i]) != 1)
			return EX_USAGE;
	if (dir == RBD_DIR_WRITE)
		memset(q->data, 0x5a, len);
	g.lun = lun;
	ret = scsi_once(q, cdb, n, dir, len, M_DESC);
	g.lun = saved;
	if (ret)
		return ret;
	if (g.status == 2 && g.sense_len >= 14)
		printf("raw: status 0x%x sense %x/%02x/%02x\n", g.status,
		       g.sense[2] & 0xf, g.sense[12], g.sense[13]);
	else
		printf("raw: status 0x%x\n", g.status);
	return 0;
}

static int cmd_logout(void)
{
	struct rbd_logout lo = {};
	uint8_t buf[64];
	int n;

	fill_hdr(&lo.hdr, RBD_OP_LOGOUT, sizeof(lo),
		 next_tag(&g.q[0], RBD_CTRL_SLOTS));
	n = ctrl_request(&g.q[0], &lo, sizeof(lo), buf, sizeof(buf));
	if (n < 0 || rbd_check_logout(buf, n, RBD_OP_LOGOUT_RSP)) {
		printf("logout: no valid answer\n");
		return EX_DISC;
	}
	printf("logout: ok\n");
	return 0;
}

/* Hostile input */

enum expect { E_CHECK, E_DISC, E_BUSY };

static const char *expect_str[] = { "CHECK CONDITION 0e/03", "disconnect",
				    "BUSY" };

/* Mutators of a valid 1-block READ(16) capsule with one descriptor. */
enum hcase {
	H_SHORT, H_VERSION, H_OPCODE_RSP, H_OPCODE_LOGIN, H_TAG_QID,
	H_TAG_SLOT, H_REUSED, H_LENGTH, H_FLAGS, H_INV_NOFEAT, H_RESERVED,
	H_TASK_ATTR, H_CDB_SHORT, H_CDB_LONG, H_CDB_IMPLIED, H_CDB_VAR,
	H_TOO_MANY_DESC, H_DATA_TOO_LONG, H_DIR_BIDI, H_DIR_NONE_DATA,
	H_DIR_READ_ZERO, H_DESC_SUM, H_DESC_EMPTY, H_DESC_WRAP,
	H_INLINE_TOO_LONG, H_IMM_TOO_LONG, H_SEND_IMM, H_NR
};

static const struct {
	const char *name;
	enum expect expect;
} hcases[H_NR] = {
	[H_SHORT]		= { "short capsule", E_DISC },
	[H_VERSION]		= { "bad version", E_DISC },
	[H_OPCODE_RSP]		= { "response opcode", E_DISC },
	[H_OPCODE_LOGIN]	= { "LOGIN on an I/O queue", E_DISC },
	[H_TAG_QID]		= { "tag of another queue", E_DISC },
	[H_TAG_SLOT]		= { "slot beyond the queue depth", E_DISC },
	[H_REUSED]		= { "reused tag", E_DISC },
	[H_LENGTH]		= { "bad length", E_CHECK },
	[H_FLAGS]		= { "undefined flag", E_CHECK },
	[H_INV_NOFEAT]		= { "INVALIDATE not granted", E_CHECK },
	[H_RESERVED]		= { "reserved byte", E_CHECK },
	[H_TASK_ATTR]		= { "undefined task attribute", E_CHECK },
	[H_CDB_SHORT]		= { "cdb_len 5", E_CHECK },
	[H_CDB_LONG]		= { "cdb_len 33", E_CHECK },
	[H_CDB_IMPLIED]		= { "cdb_len below the opcode's", E_CHECK },
	[H_CDB_VAR]		= { "7Fh CDB longer than 32", E_CHECK },
	[H_TOO_MANY_DESC]	= { "too many descriptors", E_CHECK },
	[H_DATA_TOO_LONG]	= { "data length beyond max_io", E_CHECK },
	[H_DIR_BIDI]		= { "BIDI direction", E_CHECK },
	[H_DIR_NONE_DATA]	= { "NONE with data", E_CHECK },
	[H_DIR_READ_ZERO]	= { "READ of 0 bytes", E_CHECK },
	[H_DESC_SUM]		= { "descriptors do not cover", E_CHECK },
	[H_DESC_EMPTY]		= { "empty descriptor", E_CHECK },
	[H_DESC_WRAP]		= { "wrapping descriptor", E_CHECK },
	[H_INLINE_TOO_LONG]	= { "inline data too long", E_CHECK },
	[H_IMM_TOO_LONG]	= { "immediate read too long", E_CHECK },
	[H_SEND_IMM]		= { "SEND with immediate data", E_DISC },
};

/* Header cases of hostile capsule @h (@len bytes); its new length. */
static uint32_t hostile_hdr(struct queue *q, struct rbd_cmd *cmd,
			    enum hcase h, uint32_t len)
{
	switch (h) {
	case H_SHORT:
		len = 40;
		cmd->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_VERSION:
		cmd->hdr.version = RBD_PROTO_VERSION + 1;
		break;
	case H_OPCODE_RSP:
		cmd->hdr.opcode = RBD_OP_SCSI_RSP;
		break;
	case H_OPCODE_LOGIN:
		cmd->hdr.opcode = RBD_OP_LOGIN;
		break;
	case H_TAG_QID:
		cmd->hdr.tag = rbd_cpu_to_le64(rbd_tag(q->qid + 1, 0, 0));
		break;
	case H_TAG_SLOT:
		cmd->hdr.tag = rbd_cpu_to_le64(rbd_tag(q->qid, 0, q->depth));
		break;
	case H_LENGTH:
		cmd->hdr.length = rbd_cpu_to_le32(len + 8);
		break;
	case H_FLAGS:
		cmd->hdr.flags = rbd_cpu_to_le16(0x8000);
		break;
	case H_INV_NOFEAT:
		cmd->hdr.flags = rbd_cpu_to_le16(RBD_CMD_F_INVALIDATE);
		break;
	default:
		break;
	}
	return len;
}

/* Command field cases of hostile capsule @h. */
static void hostile_fields(struct rbd_cmd *cmd, enum hcase h)
{
	switch (h) {
	case H_RESERVED:
		cmd->reserved[3] = 1;
		break;
	case H_TASK_ATTR:
		cmd->task_attr = 9;
		break;
	case H_CDB_SHORT:
		cmd->cdb_len = 5;
		break;
	case H_CDB_LONG:
		cmd->cdb_len = 33;
		break;
	case H_CDB_IMPLIED:
		cmd->cdb_len = 10;
		break;
	case H_CDB_VAR:
		cmd->cdb[0] = 0x7f;
		cmd->cdb[7] = 32;	/* 40 bytes */
		cmd->cdb_len = 32;
		break;
	case H_DIR_BIDI:
		cmd->dir = RBD_DIR_BIDI;
		break;
	case H_DIR_NONE_DATA:
		cmd->dir = RBD_DIR_NONE;
		break;
	case H_DIR_READ_ZERO:
		cmd->data_length = 0;
		break;
	default:
		break;
	}
}

/* Data cases of hostile capsule @h (@len bytes); its new length. */
static uint32_t hostile_data(struct queue *q, struct rbd_cmd *cmd,
			     enum hcase h, uint32_t len)
{
	struct rbd_desc *d = (struct rbd_desc *)(cmd + 1);
	uint32_t bs = g.block_size, i;

	switch (h) {
	case H_TOO_MANY_DESC:
		cmd->nr_desc = rbd_cpu_to_le16(q->lim.max_desc + 1);
		for (i = 1; i <= q->lim.max_desc; i++)
			d[i] = d[0];
		len += q->lim.max_desc * sizeof(*d);
		cmd->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_DATA_TOO_LONG:
		cmd->data_length = rbd_cpu_to_le32(q->lim.max_io_bytes + 4096);
		d[0].len = cmd->data_length;
		break;
	case H_DESC_SUM:
		d[0].len = rbd_cpu_to_le32(bs - 1);
		break;
	case H_DESC_EMPTY:
		cmd->nr_desc = rbd_cpu_to_le16(2);
		d[1] = d[0];
		d[1].len = 0;
		len += sizeof(*d);
		cmd->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_DESC_WRAP:
		d[0].addr = rbd_cpu_to_le64(UINT64_MAX - 10);
		break;
	case H_INLINE_TOO_LONG:
		/* A WRITE announcing more inline data than was sent. */
		cmd->dir = RBD_DIR_WRITE;
		cmd->cdb[0] = 0x8a;
		cmd->nr_desc = 0;
		cmd->data_length = rbd_cpu_to_le32(q->lim.inline_write_size + bs);
		len = sizeof(*cmd) + 16;
		cmd->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_IMM_TOO_LONG:
		cmd->nr_desc = 0;
		cmd->data_length = rbd_cpu_to_le32(q->lim.imm_read_size + bs);
		len = sizeof(*cmd);
		cmd->hdr.length = rbd_cpu_to_le32(len);
		break;
	default:
		break;
	}
	return len;
}

/* Build hostile capsule @h in @buf; returns its length. */
static uint32_t build_hostile(struct queue *q, uint8_t *buf, enum hcase h,
			      uint64_t tag)
{
	struct rbd_cmd *cmd = (struct rbd_cmd *)buf;
	uint32_t len;
	uint8_t cdb[16];

	rw_cdb(cdb, false, 0, 1);
	len = build_cmd(q, buf, tag, cdb, 16, RBD_DIR_READ, g.block_size, M_DESC);
	len = hostile_hdr(q, cmd, h, len);
	hostile_fields(cmd, h);
	return hostile_data(q, cmd, h, len);
}

/*
 * H_REUSED: a large WRITE with tag @tag in @buf and its copy in one post:
 * the target reads the data with RDMA READ before it can answer, and the
 * copy arrives before that READ can complete.
 */
static void post_reused(struct queue *q, uint8_t *buf, uint64_t tag)
{
	uint8_t cdb[16];
	uint32_t max = q->lim.max_io_bytes, len;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr[2], *bad;

	rw_cdb(cdb, true, 0, max / g.block_size);
	len = build_cmd(q, buf, tag, cdb, 16, RBD_DIR_WRITE, max, M_DESC);
	memcpy(send_slot(q, 2), buf, len);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 2; i++) {
		sge[i].addr = (uintptr_t)send_slot(q, 1 + i);
		sge[i].length = len;
		sge[i].lkey = q->send_mr->lkey;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i ? NULL : &wr[1];
	}
	ibv_post_send(q->cm.id->qp, wr, &bad);
}

/* How the target answered hostile case @h (tag @tag): an expect_str. */
static const char *hostile_answer(struct queue *q, enum hcase h, uint64_t tag,
				  char *buf, size_t size)
{
	int ret;

	for (;;) {
		ret = wait_rsp(q, tag, 5000);
		if (ret == EX_DISC)
			return expect_str[E_DISC];
		if (ret == -2)
			return "no answer";
		if (h == H_REUSED && g.status == 0)
			continue;	/* the first READ's answer */
		if (g.status == 2 && g.sense_len >= 14 &&
		    (g.sense[2] & 0xf) == 5 && g.sense[12] == 0x0e &&
		    g.sense[13] == 0x03)
			return expect_str[E_CHECK];
		if (g.status == 8 && !g.sense_len)
			return expect_str[E_BUSY];
		snprintf(buf, size, "status %#x", g.status);
		return buf;
	}
}

static int run_hostile(enum hcase h)
{
	struct queue *q;
	uint64_t tag;
	uint8_t *buf;
	uint32_t len;
	const char *got;
	char gotbuf[64];
	int ret;

	ret = session_open(1);
	if (ret) {
		printf("hostile %s: cannot open a session\n", hcases[h].name);
		disconnect_all();
		return EX_DISC;
	}
	q = &g.q[1];
	if (!g.block_size && cmd_readcap(true)) {
		disconnect_all();
		return EX_DISC;
	}
	if (h == H_SEND_IMM &&
	    q->cm.id->verbs->device->transport_type == IBV_TRANSPORT_IWARP) {
		/* iWARP has no immediate data to send. */
		disconnect_all();
		printf("hostile %s: skipped (iWARP)\n", hcases[h].name);
		return 0;
	}
	tag = next_tag(q, q->depth);
	buf = send_slot(q, 1);
	if (h == H_REUSED) {
		post_reused(q, buf, tag);
	} else {
		len = build_hostile(q, buf, h, tag);
		/* H_SEND_IMM: a valid capsule, but with immediate data. */
		post_send_imm(q, buf, len, h == H_SEND_IMM,
			      (uint32_t)rbd_tag_slot(tag));
	}
	got = hostile_answer(q, h, tag, gotbuf, sizeof(gotbuf));
	disconnect_all();
	ret = strcmp(got, expect_str[hcases[h].expect]) ? EX_HOSTILE : 0;
	printf("hostile %s: %s%s%s\n", hcases[h].name, got,
	       ret ? ", expected " : "",
	       ret ? expect_str[hcases[h].expect] : "");
	return ret;
}

/* Connection-level and control-capsule hostility. */
static int hostile_conn(const char *name, struct rbd_cm_req *cr,
			uint16_t expect)
{
	struct queue *q = &g.q[MAX_QUEUES];
	int ret;

	ret = queue_connect(q, cr, RBD_CTRL_CAPSULE_MAX,
			    rbd_le16(cr->queue_depth) + RBD_CTRL_SLOTS, 4096);
	if (!ret)
		rdma_disconnect(q->cm.id);
	drain_cm_events();
	queue_free(q);
	if (ret == EX_REFUSED && g.last_reject == expect) {
		printf("hostile %s: rejected %s\n", name, rbd_reject_str(expect));
		return 0;
	}
	printf("hostile %s: expected reject %s\n", name, rbd_reject_str(expect));
	return EX_HOSTILE;
}

static int hostile_ctrl(const char *name, bool before_login)
{
	struct queue *q = &g.q[0];
	struct rbd_nop nop = {};
	uint8_t rsp[RBD_CTRL_CAPSULE_MAX];
	struct rbd_cm_req cr;
	int n, ret;

	if (before_login) {
		cm_req_init(&cr, 0, 0, g.features, 0);
		ret = queue_connect(q, &cr, RBD_CTRL_CAPSULE_MAX,
				    RBD_CTRL_SLOTS, 0);
	} else {
		ret = session_open(1);
	}
	if (ret) {
		disconnect_all();
		printf("hostile %s: cannot connect\n", name);
		return EX_HOSTILE;
	}
	fill_hdr(&nop.hdr, RBD_OP_NOP, sizeof(nop), next_tag(q, RBD_CTRL_SLOTS));
	if (!before_login)
		nop.hdr.length = rbd_cpu_to_le32(sizeof(nop) + 8);
	n = ctrl_request(q, &nop, sizeof(nop), rsp, sizeof(rsp));
	disconnect_all();
	if (n == -1) {
		printf("hostile %s: disconnect\n", name);
		return 0;
	}
	printf("hostile %s: answered, expected disconnect\n", name);
	return EX_HOSTILE;
}

/* One DISCOVER on queue 0; returns the checked response's status or < 0. */
static int discover_one(uint32_t index, bool reserved,
			struct rbd_discover_rsp *rsp)
{
	struct rbd_discover_req req;
	uint8_t buf[RBD_CTRL_CAPSULE_MAX];
	enum rbd_check c;
	int n;

	memset(&req, 0, sizeof(req));
	fill_hdr(&req.hdr, RBD_OP_DISCOVER, sizeof(req),
		 next_tag(&g.q[0], RBD_CTRL_SLOTS));
	req.index = rbd_cpu_to_le32(index);
	req.reserved = rbd_cpu_to_le32(reserved);
	snprintf(req.initiator_name, sizeof(req.initiator_name), "%s",
		 g.initiator);
	n = ctrl_request(&g.q[0], &req, sizeof(req), buf, sizeof(buf));
	if (n < 0)
		return n;	/* -1 disconnected, -2 no answer in time */
	c = rbd_check_discover_rsp(buf, n, &req);
	if (c) {
		printf("discover: malformed DISCOVER_RSP: %s\n", rbd_check_str(c));
		return -1;
	}
	memcpy(rsp, buf, sizeof(*rsp));
	return rbd_le16(rsp->status);
}

/*
 * discover-check: DISCOVER before LOGIN (protocol.rst, 12. Discovery).
 * A malformed request is answered BAD_REQUEST and the connection stays;
 * entry 0 is listed; an index past the end is BAD_REQUEST; LOGIN then
 * works on the same queue 0; a DISCOVER after LOGIN is a violation.
 */
static int cmd_discover_check(void)
{
	struct rbd_discover_rsp rsp;
	struct rbd_cm_req cr;
	uint32_t nr;
	int st, ret;

	cm_req_init(&cr, 0, 0, g.features, 0);
	ret = queue_connect(&g.q[0], &cr, RBD_CTRL_CAPSULE_MAX, RBD_CTRL_SLOTS,
			    0);
	if (ret)
		return ret;
	st = discover_one(0, true, &rsp);
	if (st != RBD_REJ_BAD_REQUEST) {
		printf("discover: reserved field: status %d, not BAD_REQUEST\n", st);
		return EX_HOSTILE;
	}
	st = discover_one(0, false, &rsp);
	if (st) {
		printf("discover: entry 0: %s\n",
		       st < 0 ? "no answer" : rbd_reject_str(st));
		return st < 0 ? EX_DISC : EX_REFUSED;
	}
	nr = rbd_le32(rsp.nr_entries);
	printf("discover: entry 0 of %u: %s tpgt %u, %u LUNs from %llu\n", nr,
	       rsp.target_name, rbd_le16(rsp.tpgt), rbd_le16(rsp.nr_luns),
	       (unsigned long long)rbd_le64(rsp.luns[0]));
	st = discover_one(nr, false, &rsp);
	if (st != RBD_REJ_BAD_REQUEST || rbd_le32(rsp.nr_entries) != nr) {
		printf("discover: index %u: status %d, not BAD_REQUEST\n", nr, st);
		return EX_HOSTILE;
	}
	ret = session_open(1);
	if (ret)
		return ret;
	printf("discover: login after discovery: ok\n");
	st = discover_one(0, false, &rsp);
	if (st != -1) {
		printf("discover: after LOGIN: status %d, not a disconnect\n", st);
		return EX_HOSTILE;
	}
	printf("discover: after LOGIN: disconnected\n");
	return 0;
}

static int cmd_hostile(void)
{
	struct rbd_cm_req cr;
	uint64_t handle;
	int h, ret, worst = 0;

	for (h = 0; h < H_NR; h++) {
		ret = run_hostile(h);
		if (ret > worst)
			worst = ret;
	}

	/* Connect requests. */
	cm_req_init(&cr, 0, 0, 0, 0);
	cr.magic = 0;
	worst |= hostile_conn("bad magic", &cr, RBD_REJ_BAD_REQUEST) ? EX_HOSTILE : 0;
	cm_req_init(&cr, 0, 0, 0, 0);
	cr.version = rbd_cpu_to_le16(RBD_PROTO_VERSION + 1);
	worst |= hostile_conn("bad version", &cr, RBD_REJ_VERSION) ? EX_HOSTILE : 0;
	cm_req_init(&cr, 0, 0, 0, 0);
	cr.reserved = rbd_cpu_to_le32(1);
	worst |= hostile_conn("reserved field", &cr, RBD_REJ_BAD_REQUEST) ? EX_HOSTILE : 0;
	cm_req_init(&cr, 1, 4, 0, 0x1234);
	worst |= hostile_conn("unknown session", &cr, RBD_REJ_UNKNOWN_SESSION) ? EX_HOSTILE : 0;

	/* Joins against a live session of two queues, one connected. */
	g.join_max = 1;
	ret = session_open(2);
	g.join_max = MAX_QUEUES;
	if (ret == 0) {
		handle = rbd_le64(g.grant.session_handle);
		cm_req_init(&cr, 1, rbd_le16(g.grant.queue_depth),
			    rbd_le64(g.grant.features), handle);
		worst |= hostile_conn("qid already connected", &cr,
				      RBD_REJ_INVALID_QID) ? EX_HOSTILE : 0;
		cm_req_init(&cr, rbd_le16(g.grant.nr_queues) + 1, 4,
			    rbd_le64(g.grant.features), handle);
		worst |= hostile_conn("qid beyond nr_queues", &cr,
				      RBD_REJ_INVALID_QID) ? EX_HOSTILE : 0;
		cm_req_init(&cr, 2, rbd_le16(g.grant.queue_depth) + 1,
			    rbd_le64(g.grant.features), handle);
		worst |= hostile_conn("depth above grant", &cr,
				      RBD_REJ_LIMITS) ? EX_HOSTILE : 0;
		cm_req_init(&cr, 2, rbd_le16(g.grant.queue_depth),
			    rbd_le64(g.grant.features) | RBD_FEAT_CREDIT_WINDOW,
			    handle);
		worst |= hostile_conn("features differ from the grant", &cr,
				      RBD_REJ_BAD_REQUEST) ? EX_HOSTILE : 0;
		ret = cmd_tmf(9);
		if (ret || tmf_response != RBD_TMF_RSP_NOT_SUPPORTED)
			worst |= EX_HOSTILE;
		disconnect_all();
	} else {
		worst |= EX_HOSTILE;
	}
	worst |= hostile_ctrl("NOP before LOGIN", true);
	worst |= hostile_ctrl("malformed NOP", false);
	if (worst)
		worst = EX_HOSTILE;
	printf("hostile: %s\n", worst ? "FAILED" : "all answers as documented");
	return worst;
}

/*
 * flood N HOLD [churn]: N connects of queue 0 that never send a LOGIN, as
 * an unauthenticated peer can make. Accepted ones are held until HOLD
 * seconds after the start (the target drops them after its login
 * timeout), or with @churn disconnected as soon as they are made.
 */
static int cmd_flood(int n, int hold, bool churn)
{
	int i, accepted = 0, refused = 0, failed = 0, ret;
	uint64_t end = now_ms() + hold * 1000ULL;
	struct rdma_cm_event *ev;
	struct rbd_cm_req cr;
	struct queue *qs;

	qs = calloc(n, sizeof(*qs));
	if (!qs)
		return EX_USAGE;
	g.ctrl_only = true;
	cm_req_init(&cr, 0, 0, g.features, 0);
	for (i = 0; i < n && now_ms() < end; i++) {
		ret = queue_connect(&qs[i], &cr, RBD_CTRL_CAPSULE_MAX,
				    RBD_CTRL_SLOTS, 0);
		if (!ret)
			accepted++;
		else if (ret == EX_REFUSED &&
			 g.last_reject == RBD_REJ_NO_RESOURCES)
			refused++;
		else
			failed++;
		if (ret || churn) {
			if (!ret)
				rdma_disconnect(qs[i].cm.id);
			drain_cm_events();
			queue_free(&qs[i]);
		}
	}
	while (!churn && now_ms() < end) {
		ev = cm_get_event(g.ech, end - now_ms());
		if (ev)
			stray_event(ev);
	}
	for (i = 0; i < n; i++)
		if (qs[i].cm.id)
			rdma_disconnect(qs[i].cm.id);
	drain_cm_events();
	for (i = 0; i < n; i++)
		if (qs[i].cm.id)
			queue_free(&qs[i]);
	free(qs);
	printf("flood: %d accepted, %d refused (no resources), %d failed\n",
	       accepted, refused, failed);
	return failed ? EX_DISC : 0;
}

/* ---------------------------------------------------------- storm */

/* The storm's reproducible randomness (xorshift64*). */
static uint64_t storm_x;

static uint32_t rnd(uint32_t n)
{
	storm_x ^= storm_x >> 12;
	storm_x ^= storm_x << 25;
	storm_x ^= storm_x >> 27;
	return (uint32_t)((storm_x * 2685821657736338717ULL) >> 32) % n;
}

/* How a storm session ends: the hostile act after its valid commands. */
enum storm_act {
	S_MUTATE, S_REUSE, S_ABORT, S_DROP, S_JOIN, S_LUN, S_DIR, S_LOGOUT,
	S_NR
};

static const char *const storm_name[S_NR] = {
	[S_MUTATE] = "mutated", [S_REUSE] = "reused-tag",
	[S_ABORT] = "abort-race", [S_DROP] = "drop-mid-command",
	[S_JOIN] = "bad-join", [S_LUN] = "other-lun", [S_DIR] = "wrong-dir",
	[S_LOGOUT] = "logout",
};

static struct {
	uint64_t sessions, valid, acts[S_NR];
	uint64_t answered, disconnects, silent, hangs, violations;
} st;

/* A command that must be refused with sense 05h/@asc/00h. */
static void storm_expect(struct queue *q, uint64_t tag, uint8_t asc,
			 const char *what)
{
	int ret = wait_rsp(q, tag, TIMEOUT_MS);

	if (ret == -2) {
		st.hangs++;
		printf("storm: %s: no answer\n", what);
	} else if (ret) {
		st.disconnects++;
	} else if (g.status != 2 || g.sense_len < 14 ||
		   (g.sense[2] & 0xf) != 5 || g.sense[12] != asc) {
		st.violations++;
		printf("storm: %s: status %#x, expected CHECK CONDITION 05/%02x\n",
		       what, g.status, asc);
	} else {
		st.answered++;
	}
}

/* One valid READ or WRITE of 1..8 blocks in any transfer mode. */
static int storm_valid(struct queue *q)
{
	uint32_t nblk = 1 + rnd(8), len = nblk * g.block_size;
	uint64_t lba = rnd((uint32_t)(g.nblocks - 8));
	bool write = rnd(2);
	enum mode m = (enum mode)rnd(3);
	uint8_t cdb[16];
	int ret;

	if (m == M_INLINE && (!write || len > q->lim.inline_write_size))
		m = M_DESC;
	if (m == M_MULTI && !write && len <= q->lim.imm_read_size)
		m = M_IMM;
	rw_cdb(cdb, write, lba, nblk);
	if (write)
		memset(q->data, (int)rnd(256), len);
	ret = scsi_once(q, cdb, 16, write ? RBD_DIR_WRITE : RBD_DIR_READ,
			len, m);
	st.valid++;
	if (ret) {
		if (ret == EX_DISC && !g.malformed)
			printf("storm: a valid command lost its session\n");
		return ret;
	}
	return 0;
}

/*
 * Post a 1-block READ(16) of a random LBA with direction @dir to @lun,
 * with @nmut random bytes of the capsule changed. Returns its tag.
 */
static uint64_t storm_post(struct queue *q, uint8_t dir, uint64_t lun,
			   int nmut)
{
	uint64_t tag = next_tag(q, q->depth), saved = g.lun;
	uint8_t *buf = send_slot(q, tag);
	uint8_t cdb[16];
	uint32_t len;
	int i;

	rw_cdb(cdb, false, rnd((uint32_t)g.nblocks), 1);
	g.lun = lun;
	len = build_cmd(q, buf, tag, cdb, 16, dir, g.block_size, M_DESC);
	g.lun = saved;
	for (i = 0; i < nmut; i++)
		buf[rnd(len)] ^= (uint8_t)(1 + rnd(255));
	return post_send(q, buf, len) ? 0 : tag;
}

/* S_MUTATE: a READ with 1 to 4 random bytes flipped. */
static void storm_mutate(struct queue *q)
{
	int ret;

	storm_post(q, RBD_DIR_READ, g.lun, 1 + (int)rnd(4));
	ret = wait_rsp(q, TAG_ANY, 3000);
	if (ret == -2)
		st.silent++;	/* e.g. mutated into a NOP */
	else if (ret)
		st.disconnects++;
	else
		st.answered++;
}

/* S_REUSE: a READ sent twice with one tag. */
static void storm_reuse(struct queue *q)
{
	uint64_t tag = storm_post(q, RBD_DIR_READ, g.lun, 0);
	uint8_t *buf = send_slot(q, tag);
	int ret;

	post_send(q, buf, rbd_le32(((struct rbd_hdr *)buf)->length));
	ret = wait_rsp(q, tag, TIMEOUT_MS);
	if (!ret)
		ret = wait_rsp(q, tag, TIMEOUT_MS);
	if (ret == -2) {
		st.hangs++;
		printf("storm: reused tag: neither answer nor disconnect\n");
	} else {
		st.disconnects += ret != 0;
	}
}

/* S_ABORT: ABORT TASK racing the READ it names. */
static void storm_abort(struct queue *q)
{
	uint64_t tag = storm_post(q, RBD_DIR_READ, g.lun, 0);
	int ret;

	if (tmf_request(RBD_TMF_ABORT_TASK, tag)) {
		st.disconnects++;
		return;
	}
	/* Aborted or not, the READ gets exactly one response. */
	ret = wait_rsp(q, tag, TIMEOUT_MS);
	if (ret == -2) {
		st.hangs++;
		printf("storm: abort race: the READ was never answered (TMF response %d)\n",
		       tmf_response);
	}
	st.answered += !ret;
	st.disconnects += ret == EX_DISC;
}

/* S_DROP: a WRITE of max_io bytes, the session dropped in the middle. */
static void storm_drop(struct queue *q)
{
	uint64_t tag = next_tag(q, q->depth);
	uint32_t n = q->lim.max_io_bytes / g.block_size;
	uint8_t *buf = send_slot(q, tag);
	uint8_t cdb[16];

	rw_cdb(cdb, true, 0, n);
	post_send(q, buf, build_cmd(q, buf, tag, cdb, 16, RBD_DIR_WRITE,
				    n * g.block_size, M_DESC));
}

/* S_JOIN: a queue join with a made-up session handle. */
static void storm_join(void)
{
	struct rbd_cm_req cr;

	cm_req_init(&cr, 1, 1, rbd_le64(g.grant.features),
		    ((uint64_t)rnd(UINT32_MAX) << 32) | rnd(UINT32_MAX));
	if (!queue_connect(&g.q[MAX_QUEUES], &cr, RBD_CTRL_CAPSULE_MAX,
			   1 + RBD_CTRL_SLOTS, 4096)) {
		st.violations++;
		printf("storm: a join with a made-up handle was accepted\n");
		rdma_disconnect(g.q[MAX_QUEUES].cm.id);
	}
	drain_cm_events();
	queue_free(&g.q[MAX_QUEUES]);
}

static void storm_act(enum storm_act a)
{
	struct queue *q = &g.q[1];
	uint64_t tag;

	st.acts[a]++;
	switch (a) {
	case S_MUTATE:
		storm_mutate(q);
		break;
	case S_REUSE:
		storm_reuse(q);
		break;
	case S_ABORT:
		storm_abort(q);
		break;
	case S_DROP:
		storm_drop(q);
		break;
	case S_JOIN:
		storm_join();
		break;
	case S_LUN:
		tag = storm_post(q, RBD_DIR_READ, g.lun ? 0 : 1, 0);
		storm_expect(q, tag, 0x25, "command to another LUN");
		break;
	case S_DIR:
		tag = storm_post(q, RBD_DIR_WRITE, g.lun, 0);
		storm_expect(q, tag, 0x24, "READ sent as data-out");
		break;
	default:
		cmd_logout();
		break;
	}
}

/*
 * storm SECONDS SEED: sessions, each of a few valid commands and then one
 * hostile act (a mutated capsule, a reused tag, ABORT TASK racing its
 * READ, a disconnect in the middle of a WRITE, a join with a made-up
 * handle, a command to another LUN or with the wrong direction, a LOGOUT),
 * in an order drawn from SEED. Fails on a malformed answer, an answer that
 * contradicts protocol.rst, or a command neither answered nor ended.
 */
static int cmd_storm(int seconds, uint64_t seed)
{
	uint64_t end = now_ms() + (uint64_t)seconds * 1000;
	int i, n, ret;

	storm_x = seed ? seed : 1;
	disconnect_all();
	while (now_ms() < end && !st.hangs) {
		ret = session_open(1 + (int)rnd(2));
		if (ret) {
			printf("storm: cannot open session %llu (%d)\n",
			       (unsigned long long)st.sessions + 1, ret);
			return ret;
		}
		st.sessions++;
		if (!g.block_size && cmd_readcap(true))
			return EX_DISC;
		n = (int)rnd(6);
		for (i = 0, ret = 0; i < n && !ret; i++)
			ret = storm_valid(&g.q[1 + rnd((uint32_t)g.nq)]);
		if (!ret)
			storm_act((enum storm_act)rnd(S_NR));
		disconnect_all();
	}
	printf("storm: seed %llu, %llu sessions, %llu valid commands;",
	       (unsigned long long)seed, (unsigned long long)st.sessions,
	       (unsigned long long)st.valid);
	for (i = 0; i < S_NR; i++)
		printf(" %s %llu", storm_name[i],
		       (unsigned long long)st.acts[i]);
	printf("; answered %llu, disconnects %llu, silent %llu; malformed %llu, hangs %llu, violations %llu\n",
	       (unsigned long long)st.answered,
	       (unsigned long long)st.disconnects,
	       (unsigned long long)st.silent, (unsigned long long)g.malformed,
	       (unsigned long long)st.hangs,
	       (unsigned long long)st.violations);
	return g.malformed || st.hangs || st.violations ? EX_HOSTILE : 0;
}

/*
 * authcheck USER SECRETFILE: hostile uses of authentication, each on a
 * fresh queue 0, one line each; the credentials must be right for the
 * initiator and target names given (an ACL with authentication on).
 */
static int auth_connect(uint64_t features)
{
	struct rbd_cm_req cr;

	disconnect_all();
	cm_req_init(&cr, 0, 0, features, 0);
	return queue_connect(&g.q[0], &cr, RBD_CTRL_CAPSULE_MAX,
			     RBD_CTRL_SLOTS, 0);
}

/* Send @len bytes of @req; the answer's status, -1 disconnect, -2 none. */
static int auth_send(void *req, uint32_t len, void *rsp, uint32_t rsp_max)
{
	struct queue *q = &g.q[0];
	int n;

	((struct rbd_hdr *)req)->tag =
		rbd_cpu_to_le64(next_tag(q, RBD_CTRL_SLOTS));
	n = ctrl_request(q, req, len, rsp, rsp_max);
	if (n < 0)
		return n;
	return rbd_le16(((struct rbd_auth_begin_rsp *)rsp)->status);
}

static const char *auth_outcome(int st)
{
	static char buf[64];

	if (st == -1)
		return "disconnect";
	if (st == -2)
		return "no answer";
	snprintf(buf, sizeof(buf), "%s", st ? rbd_reject_str(st) : "accepted");
	return buf;
}

/* BEGIN (as @b, filled in) then PROOF (as @p, or computed when NULL). */
static int auth_run(struct rbd_auth_begin *b, struct rbd_auth_proof *p,
		    const struct auth_cred *c, struct rbd_auth_begin_rsp *br)
{
	struct rbd_auth_proof_rsp pr;
	struct rbd_auth_proof mine;
	int st;

	st = auth_send(b, sizeof(*b), br, sizeof(*br));
	if (st)
		return st;
	if (!p) {
		auth_proof_init(&mine, 0, b, br, c);
		p = &mine;
	}
	return auth_send(p, sizeof(*p), &pr, sizeof(pr));
}

static int cmd_authcheck(const char *user, const char *file)
{
	struct rbd_auth_begin b, b0;
	struct rbd_auth_begin_rsp br;
	struct rbd_auth_proof p0;
	struct auth_cred c;
	char why[256];
	uint64_t t0;
	int st;

	if (auth_load_cred(&c, user, file, why, sizeof(why))) {
		fprintf(stderr, "authcheck: %s\n", why);
		return EX_USAGE;
	}
	g.features |= RBD_FEAT_AUTH;
	/* A good exchange, recorded for the replay. */
	if (auth_connect(g.features))
		return EX_DISC;
	auth_begin_init(&b0, 0, false, g.initiator, g.target);
	st = auth_send(&b0, sizeof(b0), &br, sizeof(br));
	if (!st)
		st = auth_proof_init(&p0, 0, &b0, &br, &c) ? -2 :
		     auth_send(&p0, sizeof(p0), &(struct rbd_auth_proof_rsp){},
			       sizeof(struct rbd_auth_proof_rsp));
	printf("authcheck right secret: %s\n", auth_outcome(st));

	/* The same AUTH_BEGIN and proof on a new connection. */
	if (auth_connect(g.features))
		return EX_DISC;
	b = b0;
	t0 = now_ms();
	st = auth_run(&b, &p0, &c, &br);
	printf("authcheck replayed proof: %s%s\n", auth_outcome(st),
	       st > 0 && now_ms() - t0 >= 2000 ? " after 2 s" : "");

	/* A LOGIN for other names than those authenticated. */
	if (auth_connect(g.features))
		return EX_DISC;
	auth_begin_init(&b, 0, false, g.initiator, g.target);
	st = auth_run(&b, NULL, &c, &br);
	if (!st) {
		const char *ini = g.initiator;

		g.initiator = "iqn.2026-12.org.example.rbd:other";
		st = session_open(1);
		g.initiator = ini;
		printf("authcheck login as another initiator: %s\n",
		       st == EX_REFUSED ? rbd_reject_str(g.last_reject) :
					  "not refused");
	} else {
		printf("authcheck login as another initiator: %s\n",
		       auth_outcome(st));
	}

	/* Out of order: PROOF first, BEGIN twice, BEGIN without the offer. */
	if (auth_connect(g.features))
		return EX_DISC;
	st = auth_send(&p0, sizeof(p0), &br, sizeof(br));
	printf("authcheck proof before begin: %s\n", auth_outcome(st));
	if (auth_connect(g.features))
		return EX_DISC;
	auth_begin_init(&b, 0, false, g.initiator, g.target);
	st = auth_send(&b, sizeof(b), &br, sizeof(br));
	if (!st)
		st = auth_send(&b, sizeof(b), &br, sizeof(br));
	printf("authcheck begin twice: %s\n", auth_outcome(st));
	if (auth_connect(g.features & ~RBD_FEAT_AUTH))
		return EX_DISC;
	st = auth_send(&b, sizeof(b), &br, sizeof(br));
	printf("authcheck begin without the offer: %s\n", auth_outcome(st));
	disconnect_all();
	auth_cred_clear(&c);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rbd-client -a ADDR [-s SRCADDR] -t TARGET -i INITIATOR [-l LUN] [-p PORT]\n"
		"                  [-Q NQUEUES] [-d DEPTH] [-R RESPONDER] [-K MS] [-v] COMMAND...\n"
		"commands: login inquiry readcap write LBA FILE [MODE]\n"
		"          read LBA NBLK FILE [MODE] verify LBA NBLK\n"
		"          io SECONDS [LBA NBLK]\n"
		"          nop tmf FUNCTION tmflun LUN FUNCTION abort reset N stats\n"
		"          raw DIR LEN LUN CDB churn N SECONDS storm SECONDS SEED\n"
		"          logout hostile\n"
		"          discover-check\n"
		"          flood N HOLD [churn]\n"
		"          authcheck USER SECRETFILE\n");
	exit(EX_USAGE);
}

/* The options before the commands, into g; exits with usage() if wrong. */
static void parse_opts(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "a:s:p:t:i:l:Q:d:R:K:v")) != -1) {
		switch (opt) {
		case 'a':
			g.addr = optarg;
			break;
		case 's':
			g.src = optarg;
			break;
		case 'p':
			g.port = optarg;
			break;
		case 't':
			g.target = optarg;
			break;
		case 'i':
			g.initiator = optarg;
			break;
		case 'l':
			g.lun = strtoull(optarg, NULL, 0);
			break;
		case 'Q':
			g.nqueues = atoi(optarg);
			break;
		case 'd':
			g.depth = atoi(optarg);
			break;
		case 'R':
			g.responder = atoi(optarg);
			break;
		case 'K':
			g.keepalive_ms = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			g.verbose++;
			break;
		default:
			usage();
		}
	}
	if (!g.addr || !g.target || !g.initiator || optind >= argc ||
	    g.nqueues < 1 || g.nqueues > MAX_QUEUES - 1 || g.depth < 1 ||
	    g.responder < 0 || g.responder > 255)
		usage();
}

/*
 * The commands that make their own sessions and run alone: @a holds the
 * command and its @n - 1 arguments. Returns the exit status, or -1 when
 * a[0] is none of them.
 */
static int run_alone(char **a, int n)
{
	if (!strcmp(a[0], "hostile"))
		return cmd_hostile();
	if (!strcmp(a[0], "flood")) {
		if (n < 3 || atoi(a[1]) < 1 || atoi(a[2]) < 1)
			usage();
		return cmd_flood(atoi(a[1]), atoi(a[2]),
				 n > 3 && !strcmp(a[3], "churn"));
	}
	if (!strcmp(a[0], "authcheck")) {
		if (n < 3)
			usage();
		return cmd_authcheck(a[1], a[2]);
	}
	if (!strcmp(a[0], "discover-check"))
		return cmd_discover_check();
	return -1;
}

/*
 * The commands of a session, run in order (rbd-client's usage). Each
 * handler gets its arguments @a (@n of them, at least the entry's
 * nargs) and sets *@used to how many it took.
 */
static int run_login(char **a, int n, int *used)
{
	(void)a;
	(void)n;
	(void)used;
	printf("login: ok, %u queues, depth %u, max_io %u, inline %u, imm %u, max_desc %u\n",
	       rbd_le16(g.grant.nr_queues), rbd_le16(g.grant.queue_depth),
	       rbd_le32(g.grant.max_io_bytes), rbd_le32(g.grant.inline_write_size),
	       rbd_le32(g.grant.imm_read_size), rbd_le16(g.grant.max_desc));
	return 0;
}

/* The optional MODE word @m of write or read when it is one of @ok. */
static const char *mode_word(const char *m, const char *ok1, const char *ok2,
			     const char *ok3)
{
	if (m && strcmp(m, ok1) && strcmp(m, ok2) && strcmp(m, ok3))
		return NULL;
	return m;
}

static int run_write(char **a, int n, int *used)
{
	const char *m = mode_word(n > 2 ? a[2] : NULL, "desc", "multi", "inline");

	*used = 2 + (m != NULL);
	return cmd_write(strtoull(a[0], NULL, 0), a[1], parse_mode(m, M_DESC));
}

static int run_read(char **a, int n, int *used)
{
	const char *m = mode_word(n > 3 ? a[3] : NULL, "desc", "multi", "imm");

	*used = 3 + (m != NULL);
	return cmd_read(strtoull(a[0], NULL, 0), strtoul(a[1], NULL, 0), a[2],
			parse_mode(m, M_DESC));
}

static int run_verify(char **a, int n, int *used)
{
	(void)n;
	*used = 2;
	return cmd_verify(strtoull(a[0], NULL, 0), strtoul(a[1], NULL, 0));
}

static int run_io(char **a, int n, int *used)
{
	if (n > 2 && isdigit((unsigned char)a[1][0])) {
		*used = 3;
		return cmd_io(atoi(a[0]), strtoull(a[1], NULL, 0),
			      strtoull(a[2], NULL, 0));
	}
	*used = 1;
	return cmd_io(atoi(a[0]), 0, 0);
}

static int run_reset(char **a, int n, int *used)
{
	(void)n;
	*used = 1;
	return cmd_reset(atoi(a[0]));
}

static int run_tmf(char **a, int n, int *used)
{
	(void)n;
	*used = 1;
	return cmd_tmf(atoi(a[0]));
}

static int run_tmflun(char **a, int n, int *used)
{
	(void)n;
	*used = 2;
	return tmf_request_lun(strtoull(a[0], NULL, 0), atoi(a[1]), 0);
}

static int run_raw(char **a, int n, int *used)
{
	(void)n;
	*used = 4;
	return cmd_raw(a[0], strtoul(a[1], NULL, 0), strtoull(a[2], NULL, 0),
		       a[3]);
}

static int run_storm(char **a, int n, int *used)
{
	(void)n;
	*used = 2;
	return cmd_storm(atoi(a[0]), strtoull(a[1], NULL, 0));
}

static int run_churn(char **a, int n, int *used)
{
	(void)n;
	*used = 2;
	disconnect_all();
	return cmd_churn(atoi(a[0]), atoi(a[1]));
}

static int run_readcap(void)
{
	return cmd_readcap(false);
}

static const struct session_cmd {
	const char *name;
	int nargs;				/* arguments it needs */
	int (*run)(char **a, int n, int *used);
	int (*run0)(void);			/* or this, without any */
} session_cmds[] = {
	{ "login", 0, run_login, NULL },
	{ "inquiry", 0, NULL, cmd_inquiry },
	{ "readcap", 0, NULL, run_readcap },
	{ "write", 2, run_write, NULL },
	{ "read", 3, run_read, NULL },
	{ "verify", 2, run_verify, NULL },
	{ "io", 1, run_io, NULL },
	{ "nop", 0, NULL, cmd_nop },
	{ "abort", 0, NULL, cmd_abort },
	{ "reset", 1, run_reset, NULL },
	{ "tmf", 1, run_tmf, NULL },
	{ "tmflun", 2, run_tmflun, NULL },
	{ "raw", 4, run_raw, NULL },
	{ "storm", 2, run_storm, NULL },
	{ "churn", 2, run_churn, NULL },
	{ "stats", 0, NULL, cmd_stats },
	{ "logout", 0, NULL, cmd_logout },
};
#define N_SESSION_CMDS	((int)(sizeof(session_cmds) / sizeof(session_cmds[0])))

/* Run the @n words of @a as commands, until one fails; its status. */
static int run_session(char **a, int n)
{
	int i, k, used, ret = 0;

	for (i = 0; i < n && !ret; i += 1 + used) {
		const struct session_cmd *c = NULL;

		for (k = 0; k < N_SESSION_CMDS; k++)
			if (!strcmp(a[i], session_cmds[k].name) &&
			    n - i - 1 >= session_cmds[k].nargs)
				c = &session_cmds[k];
		used = 0;
		if (!c) {
			fprintf(stderr, "bad command '%s'\n", a[i]);
			ret = EX_USAGE;
		} else if (c->run0) {
			ret = c->run0();
		} else {
			ret = c->run(a + i + 1, n - i - 1, &used);
		}
	}
	return ret;
}

int main(int argc, char **argv)
{
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * siw transmits a user QP's first work request in the context of
	 * the ibv_post_send() call, on a kernel TCP socket; if the target
	 * has just reset the connection (hostile input is answered with a
	 * disconnect), that send raises SIGPIPE in this process. A post on
	 * a dead connection is an error to report, not a reason to die.
	 */
	signal(SIGPIPE, SIG_IGN);
	parse_opts(argc, argv);
	g.ech = rdma_create_event_channel();
	if (!g.ech) {
		perror("rdma_create_event_channel");
		return EX_USAGE;
	}
	fcntl(g.ech->fd, F_SETFL, fcntl(g.ech->fd, F_GETFL) | O_NONBLOCK);

	ret = run_alone(argv + optind, argc - optind);
	if (ret < 0) {
		ret = session_open(g.nqueues);
		if (!ret)
			ret = cmd_readcap(true);
		if (!ret)
			ret = run_session(argv + optind, argc - optind);
	}
	disconnect_all();
	rdma_destroy_event_channel(g.ech);
	return ret;
}
