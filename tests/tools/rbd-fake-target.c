// SPDX-License-Identifier: GPL-2.0
/*
 * rbd-fake-target: a minimal userspace rbd target (librdmacm + libibverbs)
 * that serves one RAM disk with a known pattern and, on request, answers
 * one chosen READ with a malformed response, to test the initiator's
 * validation of what comes from the network (rbdi's response checks).
 *
 *   rbd-fake-target -a ADDR [-p PORT] [-n BLOCKS] [-H CASE] [-T LBA]
 *                   [-c COUNT] [-R WRITES] [-A MS] [-X write|read]
 *                   [-M SEED] [-Z USER] [-W TYPE:VALUE] [-v]
 *   rbd-fake-target -P LBA NBLK      print the pattern of those blocks
 *
 * The disk has BLOCKS 512-byte blocks (default 16384, 8 MiB); every
 * 8-byte word holds its byte offset XOR 0x5242440000000000, so misplaced
 * data shows. -H answers the first COUNT (default 1) READs that start at
 * LBA (default 8192) with the malformed response CASE instead of the data;
 * every other command, and the retry after the initiator reconnects, is
 * answered correctly. Cases:
 *
 *   tag         a response whose tag names no outstanding command
 *   opcode      a well-formed TMF_RSP (of queue 0) instead of a SCSI_RSP
 *   length      hdr.length 8 bytes more than the bytes sent
 *   credits     a command window of 0
 *   sense       112 bytes of sense data (the limit is 96)
 *   imm-long    4096 bytes of immediate data (for a READ of less)
 *   batch-dup   a response batch answering the command twice
 *   batch-len   a response batch of 48 bytes
 *   batch-data  a response batch whose first entry claims immediate data
 *   bare-len    a bare response 512 bytes short
 *   bare-slot   a bare response for slot 65535
 *
 * -X probes, once, the access the initiator granted to its data buffers:
 * before serving the first command with descriptors of that direction, it
 * tries an RDMA WRITE into a WRITE's buffer (of 8 bytes an RDMA READ has
 * just taken from it, then read again, so nothing changes) or an RDMA
 * READ of a READ's buffer, and prints "probe: ... allowed" or
 * "probe: ... refused (STATUS)". A refused probe kills the connection;
 * the initiator reconnects and the command is served on the new one.
 *
 * -M changes, in about one of eight of the 400 SCSI responses after the
 * first 64 (which let the initiator log in and set up its disk; chosen by
 * SEED), one to three bytes of the header that the initiator
 * must validate: opcode, version, flags, length, immediate data length,
 * command window, sense length, reserved bytes. Never the tag, the status
 * or the residual, which no validator can check, so that the data stays
 * right. Each change is printed as "mutate: ..."; the initiator must
 * refuse what is wrong, reconnect and go on.
 *
 * -Z plays an impostor that claims to be the target user USER (a name that
 * is no secret) without knowing its secret: it announces authentication,
 * answers AUTH_BEGIN with a challenge and any AUTH_PROOF with success
 * and, when asked to prove itself, USER and a made-up proof. Printed as
 * "impostor: ...". Without -Z the fake target does not announce
 * authentication at all, as a target without it.
 *
 * Any LOGIN is accepted (any names, LUN 0 only matters for nothing):
 * the grants are the requests capped at 128 KiB I/O, 4 KiB inline writes
 * and immediate reads, depth 32, 4 queues, 8 descriptors, and of the
 * features bare responses (not on iWARP) and response batches.
 *
 * -R (regrant) changes the inline and immediate grants: the first LOGIN
 * gets neither (0 bytes), every later one up to 16 KiB of both. After
 * WRITES write commands on the first session its queue drops the
 * connection, as a target restarted with a larger inline_data_size would.
 * Every command is then checked against that first grant, which sized
 * the initiator's command buffers: one whose capsule is longer, that
 * carries more inline data, or that asks for more immediate data than it
 * allowed is reported on a line starting "oversize:" (and still served).
 *
 * -W gives the disk one logical-unit designator in VPD page 0x83 (and
 * lists that page in page 0x00): naa:HEX or eui:HEX (binary, 8 to 16
 * bytes), t10:TEXT (ASCII, the first 8 characters being the vendor) or
 * name:TEXT (a SCSI name string, UTF-8, padded with NULs to a multiple
 * of 4). Without -W the disk has no page 0x83, as before.
 *
 * -A accepts the I/O queues after the first of each session MS
 * milliseconds late, serving the other queues meanwhile: a window in
 * which a session is partly connected.
 * Everything is answered synchronously, one command at a time; it is a
 * test tool, not a target. It runs until SIGINT or SIGTERM.
 *
 * Exit status: 0 after a signal; 1 usage or setup error.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rbd/rbd_proto.h"
#include "rbd/rbd_proto_check.h"
#include "rbd-tool.h"

#define BLOCK		512U
#define PATTERN_XOR	0x5242440000000000ULL
#define MAX_IO		(128U << 10)
#define MAX_CONNS	64
#define MAX_SESSIONS	8
/* Inline and immediate grants after the first LOGIN with -R. */
#define REGRANT_SIZE	(16U << 10)
/* "oversize:" lines printed at most; the exit line has the count. */
#define OVERSIZE_LINES	20
/* Largest message this target sends: a response with data and sense. */
#define SEND_SIZE	(sizeof(struct rbd_rsp) + RBD_MAX_IMM_READ + 128)

enum hcase {
	H_NONE, H_TAG, H_OPCODE, H_LENGTH, H_CREDITS, H_SENSE, H_IMM_LONG,
	H_BATCH_DUP, H_BATCH_LEN, H_BATCH_DATA, H_BARE_LEN, H_BARE_SLOT,
};

static const char *const hcase_name[] = {
	[H_NONE] = "none", [H_TAG] = "tag", [H_OPCODE] = "opcode",
	[H_LENGTH] = "length", [H_CREDITS] = "credits", [H_SENSE] = "sense",
	[H_IMM_LONG] = "imm-long", [H_BATCH_DUP] = "batch-dup",
	[H_BATCH_LEN] = "batch-len", [H_BATCH_DATA] = "batch-data",
	[H_BARE_LEN] = "bare-len", [H_BARE_SLOT] = "bare-slot",
};

struct session {
	uint64_t handle;
	struct rbd_login_rsp grant;
};

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *rcq, *scq;
	struct ibv_mr *recv_mr, *send_mr, *data_mr;
	uint8_t *recv_buf, *send_buf, *data;
	uint32_t nrecv, rsize;
	uint16_t qid, depth;
	struct session *sess;	/* NULL on queue 0 before LOGIN */
	struct rbd_check_limits lim;
	bool iwarp;
	bool dead;
	bool pending;		/* accept deferred until @accept_at (-A) */
	uint64_t accept_at;	/* CLOCK_MONOTONIC ms */
	uint8_t ini_depth;	/* initiator_depth of the accept */
	struct rbd_cm_rep rep;
};

static struct {
	const char *addr, *port;
	uint64_t nblocks;
	enum hcase hcase;
	uint64_t trigger_lba;
	int count;
	uint64_t mutate_x;	/* -M: xorshift64* state, 0 when off */
	unsigned int mutate_skip, mutate_left;
	int probe;		/* -X: 0 none, 1 write, 2 read; cleared when done */
	enum ibv_wc_status wc_status;	/* of the last failed work request */
	int verbose;
	uint64_t regrant;	/* -R: writes before the first session drops */
	uint64_t accept_delay;	/* -A, ms */
	const char *impostor;	/* -Z: the target user it claims to be */
	uint8_t desig[4 + 48];	/* -W: the designator of page 0x83 */
	unsigned int desig_len;	/* its length with its header; 0: none */
	struct rbd_auth_begin begin;	/* the last AUTH_BEGIN (-Z) */
	unsigned int logins;
	uint64_t first_handle;
	struct rbd_login_rsp first;	/* the first LOGIN's grant */
	uint64_t first_writes;
	uint64_t oversize;
	uint8_t *disk;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen_id;
	struct conn *conns[MAX_CONNS];
	struct session sessions[MAX_SESSIONS];
	unsigned int next_session;
} g = {
	.port = "65000",
	.nblocks = 16384,
	.trigger_lba = 8192,
	.count = 1,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

#define vlog(...) do { if (g.verbose) fprintf(stderr, __VA_ARGS__); } while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fill_pattern(uint8_t *p, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w = (off + i) ^ PATTERN_XOR;

		memcpy(p + i, &w, 8);
	}
}

static void conn_free(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->recv_buf);
	free(c->send_buf);
	free(c->data);
	free(c);
}

static int post_recv(struct conn *c, uint32_t i)
{
	return tool_post_recv(c->id->qp, c->recv_buf, c->rsize,
			      c->recv_mr->lkey, i);
}

/* Post @wr (a chain, the last one signaled) and wait until it completed. */
static int post_wait(struct conn *c, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	uint64_t spins = 0;
	int n;

	if (ibv_post_send(c->id->qp, wr, &bad)) {
		perror("ibv_post_send");
		return -1;
	}
	for (;;) {
		n = ibv_poll_cq(c->scq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (++spins > 1000)
				usleep(100);
			if (spins > 100000 || stop)
				return -1;
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			vlog("qid %u: send failed: %s\n", c->qid,
			     ibv_wc_status_str(wc.status));
			g.wc_status = wc.status;
			return -1;
		}
		if (wc.wr_id == 1)
			return 0;
	}
}

/* SEND @len bytes of the send buffer, with immediate data if @imm. */
static int send_msg(struct conn *c, uint32_t len, bool with_imm, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->send_buf, .length = len,
		.lkey = c->send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.imm_data = imm;	/* already in wire (little-endian) order */
	return post_wait(c, &wr);
}

/* RDMA READ or WRITE @len bytes of the data buffer at @off to/from @d. */
static int rdma_data(struct conn *c, const struct rbd_desc *d, uint32_t off,
		     bool write)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->data + off), .length = rbd_le32(d->len),
		.lkey = c->data_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = rbd_le64(d->addr);
	wr.wr.rdma.rkey = rbd_le32(d->rkey);
	return post_wait(c, &wr);
}

static void fill_hdr(struct rbd_hdr *h, uint8_t op, uint32_t len,
		     __le64 tag)
{
	h->opcode = op;
	h->version = RBD_PROTO_VERSION;
	h->flags = 0;
	h->length = rbd_cpu_to_le32(len);
	h->tag = tag;
}

/* ------------------------------------------------------------ queue 0 */

static int ctrl_login(struct conn *c, const uint8_t *buf, uint32_t len)
{
	const struct rbd_login_req *req = (const void *)buf;
	struct rbd_login_rsp *rsp = (void *)c->send_buf;
	struct session *s;
	uint64_t feat;
	uint32_t inl = 4096, imm = 4096;
	enum rbd_check chk;

#define MIN(a, b) ((a) < (b) ? (a) : (b))
	chk = rbd_check_login_req(buf, len);
	if (chk) {
		printf("qid 0: bad LOGIN: %s\n", rbd_check_str(chk));
		return -1;
	}
	s = &g.sessions[g.next_session++ % MAX_SESSIONS];
	memset(s, 0, sizeof(*s));
	s->handle = ((uint64_t)time(NULL) << 20) ^ ((uint64_t)getpid() << 8) ^
		    g.next_session;
	if (!s->handle)
		s->handle = 1;
	if (g.regrant)
		inl = imm = g.logins ? REGRANT_SIZE : 0;
	feat = rbd_le64(req->features) & (RBD_FEAT_RSP_BATCH |
					  (c->iwarp ? 0 : RBD_FEAT_BARE_READ));
	memset(rsp, 0, sizeof(*rsp));
	fill_hdr(&rsp->hdr, RBD_OP_LOGIN_RSP, sizeof(*rsp), req->hdr.tag);
	rsp->features = rbd_cpu_to_le64(feat);
	rsp->session_handle = rbd_cpu_to_le64(s->handle);
	rsp->max_io_bytes = rbd_cpu_to_le32(MIN(rbd_le32(req->max_io_bytes),
						MAX_IO));
	rsp->inline_write_size =
		rbd_cpu_to_le32(MIN(rbd_le32(req->inline_write_size), inl));
	rsp->imm_read_size =
		rbd_cpu_to_le32(MIN(rbd_le32(req->imm_read_size), imm));
	rsp->keepalive_ms = req->keepalive_ms;
	rsp->queue_depth = rbd_cpu_to_le16(MIN(rbd_le16(req->queue_depth), 32));
	rsp->nr_queues = rbd_cpu_to_le16(MIN(rbd_le16(req->nr_queues), 4));
	rsp->max_desc = rbd_cpu_to_le16(MIN(rbd_le16(req->max_desc), 8));
	rsp->status = rbd_cpu_to_le16(RBD_REJ_NONE);
	s->grant = *rsp;
	c->sess = s;
	if (!g.logins++) {
		g.first = *rsp;
		g.first_handle = s->handle;
	}
	printf("login: %.*s to %.*s, features %#llx, %u queues of %u, inline %u, immediate %u\n",
	       RBD_NAME_LEN, req->initiator_name, RBD_NAME_LEN,
	       req->target_name, (unsigned long long)feat,
	       rbd_le16(rsp->nr_queues), rbd_le16(rsp->queue_depth),
	       rbd_le32(rsp->inline_write_size), rbd_le32(rsp->imm_read_size));
	fflush(stdout);
	return send_msg(c, sizeof(*rsp), false, 0);
#undef MIN
}

/* -Z: accept any proof and "prove" itself with random bytes. */
static int ctrl_auth(struct conn *c, const uint8_t *buf, uint32_t len)
{
	const struct rbd_hdr *h = (const void *)buf;

	if (!g.impostor || rbd_check_request(buf, len, &c->lim)) {
		printf("qid 0: unexpected %s\n", rbd_opcode_str(h->opcode));
		return -1;
	}
	if (h->opcode == RBD_OP_AUTH_BEGIN) {
		struct rbd_auth_begin_rsp *r = (void *)c->send_buf;

		memcpy(&g.begin, buf, sizeof(g.begin));
		memset(r, 0, sizeof(*r));
		fill_hdr(&r->hdr, RBD_OP_AUTH_BEGIN_RSP, sizeof(*r), h->tag);
		r->hash = g.begin.hash;
		fill_pattern(r->challenge, now_ms(), sizeof(r->challenge));
		r->challenge[0] |= 1;
		return send_msg(c, sizeof(*r), false, 0);
	} else {
		struct rbd_auth_proof_rsp *r = (void *)c->send_buf;

		memset(r, 0, sizeof(*r));
		fill_hdr(&r->hdr, RBD_OP_AUTH_PROOF_RSP, sizeof(*r), h->tag);
		if (g.begin.flags & RBD_AUTH_F_MUTUAL) {
			r->flags = RBD_AUTH_F_MUTUAL;
			snprintf(r->user, sizeof(r->user), "%s", g.impostor);
			fill_pattern(r->proof, now_ms() * 7, sizeof(r->proof));
		}
		printf("impostor: accepted the proof of %.*s, %s\n",
		       RBD_AUTH_USER_LEN, ((const struct rbd_auth_proof *)buf)->user,
		       r->flags ? "sent a made-up proof" : "asked for none");
		fflush(stdout);
		return send_msg(c, sizeof(*r), false, 0);
	}
}

static int ctrl_capsule(struct conn *c, const uint8_t *buf, uint32_t len)
{
	const struct rbd_hdr *h = (const void *)buf;

	if (len < sizeof(*h)) {
		printf("qid 0: short capsule (%u bytes)\n", len);
		return -1;
	}
	switch (h->opcode) {
	case RBD_OP_LOGIN:
		return ctrl_login(c, buf, len);
	case RBD_OP_AUTH_BEGIN:
	case RBD_OP_AUTH_PROOF:
		return ctrl_auth(c, buf, len);
	case RBD_OP_NOP:
		if (len != sizeof(struct rbd_nop))
			return -1;
		memcpy(c->send_buf, buf, len);
		((struct rbd_hdr *)c->send_buf)->opcode = RBD_OP_NOP_RSP;
		return send_msg(c, len, false, 0);
	case RBD_OP_LOGOUT:
		memset(c->send_buf, 0, sizeof(struct rbd_logout));
		fill_hdr((void *)c->send_buf, RBD_OP_LOGOUT_RSP,
			 sizeof(struct rbd_logout), h->tag);
		return send_msg(c, sizeof(struct rbd_logout), false, 0);
	default:
		printf("qid 0: unexpected opcode %#x\n", h->opcode);
		return -1;
	}
}

/* ---------------------------------------------------------- I/O queues */

struct result {
	uint8_t status;
	uint8_t sense[18];
	uint32_t sense_len;
	uint32_t xfer;		/* data bytes moved */
};

static void check_condition(struct result *r, uint8_t key, uint8_t asc)
{
	memset(r->sense, 0, sizeof(r->sense));
	r->sense[0] = 0x70;
	r->sense[2] = key;
	r->sense[7] = 10;
	r->sense[12] = asc;
	r->status = 0x02;	/* CHECK CONDITION */
	r->sense_len = 18;
	r->xfer = 0;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | *p++;
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/* Decode a READ or WRITE CDB; false if @cdb is neither. */
static bool rw_cdb(const uint8_t *cdb, bool *write, uint64_t *lba,
		   uint32_t *nblk)
{
	switch (cdb[0]) {
	case 0x08: case 0x0a:
		*lba = be(cdb + 1, 3) & 0x1fffff;
		*nblk = cdb[4] ? cdb[4] : 256;
		break;
	case 0x28: case 0x2a:
		*lba = be(cdb + 2, 4);
		*nblk = be(cdb + 7, 2);
		break;
	case 0x88: case 0x8a:
		*lba = be(cdb + 2, 8);
		*nblk = be(cdb + 10, 4);
		break;
	default:
		return false;
	}
	*write = cdb[0] & 0x02;
	return true;
}

/* Non-data-transfer and small data-in commands, answered from @out. */
static void exec_other(const struct rbd_cmd *cmd, uint8_t *out,
		       struct result *r)
{
	const uint8_t *cdb = cmd->cdb;
	uint32_t alloc = 0, n = 0;

	memset(out, 0, 64);
	switch (cdb[0]) {
	case 0x00:	/* TEST UNIT READY */
	case 0x35:	/* SYNCHRONIZE CACHE(10) */
	case 0x91:	/* SYNCHRONIZE CACHE(16) */
		return;
	case 0x12:	/* INQUIRY */
		alloc = be(cdb + 3, 2);
		if (cdb[1] & 1) {
			if (cdb[2] == 0x83 && g.desig_len) {
				out[1] = 0x83;
				out[3] = g.desig_len;
				memcpy(out + 4, g.desig, g.desig_len);
				n = 4 + g.desig_len;
				break;
			}
			if (cdb[2] != 0) {
				check_condition(r, 0x05, 0x24);
				return;
			}
			/* supported pages: 00h, and 83h with -W */
			out[3] = g.desig_len ? 2 : 1;
			out[5] = g.desig_len ? 0x83 : 0;
			n = 4 + out[3];
			break;
		}
		out[2] = 6;
		out[3] = 2;
		out[4] = 31;
		memcpy(out + 8, "RBDFAKE fake target     0001", 28);
		n = 36;
		break;
	case 0x9e:	/* SERVICE ACTION IN(16) */
		if ((cdb[1] & 0x1f) != 0x10) {
			check_condition(r, 0x05, 0x24);
			return;
		}
		alloc = be(cdb + 10, 4);
		put_be(out, g.nblocks - 1, 8);
		put_be(out + 8, BLOCK, 4);
		n = 32;
		break;
	case 0x25:	/* READ CAPACITY(10) */
		alloc = 8;
		put_be(out, g.nblocks - 1, 4);
		put_be(out + 4, BLOCK, 4);
		n = 8;
		break;
	default:
		check_condition(r, 0x05, 0x20);
		return;
	}
	if (n > alloc)
		n = alloc;
	if (n > rbd_le32(cmd->data_length))
		n = rbd_le32(cmd->data_length);
	r->xfer = n;
}

/* Move @len bytes between the data buffer and the command's descriptors. */
static int move_desc(struct conn *c, const struct rbd_cmd *cmd, uint32_t len,
		     bool to_initiator)
{
	const struct rbd_desc *d = (const void *)(cmd + 1);
	uint32_t off = 0, i;

	for (i = 0; i < rbd_le16(cmd->nr_desc) && off < len; i++) {
		struct rbd_desc one = d[i];

		if (rbd_le32(one.len) > len - off)
			one.len = rbd_cpu_to_le32(len - off);
		if (rdma_data(c, &one, off, to_initiator))
			return -1;
		off += rbd_le32(one.len);
	}
	return 0;
}

/*
 * -X: try the access @cmd's buffer must not grant. On iWARP an RDMA WRITE
 * completes locally before the peer has checked it, so the 8 bytes are
 * read once more: the peer refuses by ending the connection, and that
 * READ fails. Return -1 when refused (the connection is dead).
 */
static int probe_access(struct conn *c, const struct rbd_cmd *cmd)
{
	struct rbd_desc d = *(const struct rbd_desc *)(cmd + 1);
	bool write = cmd->dir == RBD_DIR_WRITE;
	const char *what = write ? "RDMA WRITE into a write's buffer" :
				   "RDMA READ of a read's buffer";
	int ret;

	g.probe = 0;
	d.len = rbd_cpu_to_le32(8);
	if (write) {
		ret = rdma_data(c, &d, 0, false);
		if (ret) {
			printf("probe: RDMA READ of a write's buffer failed (%s)\n",
			       ibv_wc_status_str(g.wc_status));
			return -1;
		}
		ret = rdma_data(c, &d, 0, true) || rdma_data(c, &d, 0, false);
	} else {
		ret = rdma_data(c, &d, 0, false);
	}
	if (ret)
		printf("probe: %s refused (%s)\n", what,
		       ibv_wc_status_str(g.wc_status));
	else
		printf("probe: %s allowed\n", what);
	fflush(stdout);
	return ret ? -1 : 0;
}

static uint32_t mutate_rnd(uint32_t n)
{
	g.mutate_x ^= g.mutate_x >> 12;
	g.mutate_x ^= g.mutate_x << 25;
	g.mutate_x ^= g.mutate_x >> 27;
	return (uint32_t)((g.mutate_x * 2685821657736338717ULL) >> 32) % n;
}

/* -M: maybe change a few checkable header bytes of response @rsp. */
static void mutate_rsp(struct rbd_rsp *rsp)
{
	/* Offsets in struct rbd_rsp: all but tag, residual and status. */
	static const uint8_t off[] = { 0, 1, 2, 3, 4, 5, 6, 7, 20, 21, 22,
				       23, 24, 25, 26, 27, 29, 30, 31 };
	uint8_t *b = (uint8_t *)rsp;
	uint32_t i, n;

	if (!g.mutate_x || !g.mutate_left)
		return;
	if (g.mutate_skip) {
		g.mutate_skip--;
		return;
	}
	g.mutate_left--;
	if (mutate_rnd(8))
		return;
	n = 1 + mutate_rnd(3);
	for (i = 0; i < n; i++) {
		uint8_t o = off[mutate_rnd(sizeof(off))];

		b[o] ^= (uint8_t)(1 + mutate_rnd(255));
		printf("mutate: tag %#llx byte %u\n",
		       (unsigned long long)rbd_le64(rsp->hdr.tag), o);
	}
	fflush(stdout);
}

/* Answer the triggering READ with the malformed response of g.hcase. */
static int hostile_rsp(struct conn *c, const struct rbd_cmd *cmd)
{
	struct rbd_rsp *rsp = (void *)c->send_buf;
	uint64_t tag = rbd_le64(cmd->hdr.tag);
	uint32_t dlen = rbd_le32(cmd->data_length), len = sizeof(*rsp);
	__le16 credits = rbd_cpu_to_le16(c->depth);

	memset(c->send_buf, 0, SEND_SIZE);
	fill_hdr(&rsp->hdr, RBD_OP_SCSI_RSP, sizeof(*rsp), cmd->hdr.tag);
	rsp->credits = credits;
	switch (g.hcase) {
	case H_TAG:
		rsp->hdr.tag = rbd_cpu_to_le64(rbd_tag(c->qid,
						       rbd_tag_gen(tag) + 1,
						       rbd_tag_slot(tag)));
		break;
	case H_OPCODE:
		memset(rsp, 0, sizeof(struct rbd_tmf_rsp));
		fill_hdr(&rsp->hdr, RBD_OP_TMF_RSP, sizeof(struct rbd_tmf_rsp),
			 rbd_cpu_to_le64(rbd_tag(0, 0, 0)));
		len = sizeof(struct rbd_tmf_rsp);
		break;
	case H_LENGTH:
		rsp->hdr.length = rbd_cpu_to_le32(len + 8);
		break;
	case H_CREDITS:
		rsp->credits = 0;
		break;
	case H_SENSE:
		rsp->status = 0x02;
		rsp->sense_len = rbd_cpu_to_le16(112);
		len += 112;
		rsp->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_IMM_LONG:
		rsp->imm_len = rbd_cpu_to_le32(4096);
		len += 4096;
		rsp->hdr.length = rbd_cpu_to_le32(len);
		break;
	case H_BATCH_DUP:
		rsp[1] = rsp[0];
		len *= 2;
		break;
	case H_BATCH_LEN:
		len += 16;
		break;
	case H_BATCH_DATA:
		rsp[0].imm_len = rbd_cpu_to_le32(4);
		rsp[1] = rsp[0];
		rsp[1].imm_len = 0;
		len *= 2;
		break;
	case H_BARE_LEN:
		fill_pattern(c->send_buf, 0, dlen);
		return send_msg(c, dlen - 512, true,
				rbd_cpu_to_le32(rbd_bare_rsp(tag)));
	case H_BARE_SLOT:
		fill_pattern(c->send_buf, 0, dlen);
		return send_msg(c, dlen, true,
				rbd_cpu_to_le32((rbd_bare_rsp(tag) & 0xffff0000) |
						0xffff));
	case H_NONE:
		break;
	}
	return send_msg(c, len, false, 0);
}

/* -R: report a command that the first LOGIN's grant does not allow. */
static void check_first_grant(const struct conn *c, const struct rbd_cmd *cmd,
			      uint32_t len)
{
	uint32_t inl = rbd_le32(g.first.inline_write_size);
	uint32_t imm = rbd_le32(g.first.imm_read_size);
	uint32_t max = rbd_cmd_capsule_max(inl, rbd_le16(g.first.max_desc));
	uint32_t dlen = rbd_le32(cmd->data_length);
	bool no_desc = !cmd->nr_desc && dlen;

	if (len <= max &&
	    !(no_desc && cmd->dir == RBD_DIR_WRITE && dlen > inl) &&
	    !(no_desc && cmd->dir == RBD_DIR_READ && dlen > imm))
		return;
	if (g.oversize++ < OVERSIZE_LINES)
		printf("oversize: qid %u: tag %#llx: %u-byte capsule, %s of %u bytes without descriptors; the first login granted %u inline, %u immediate (capsules up to %u)\n",
		       c->qid, (unsigned long long)rbd_le64(cmd->hdr.tag), len,
		       cmd->dir == RBD_DIR_WRITE ? "write" : "read", dlen,
		       inl, imm, max);
	fflush(stdout);
}

/* -R: true once the first session has served its last write. */
static bool first_session_done(const struct conn *c, bool write)
{
	if (!g.regrant || !write || c->sess->handle != g.first_handle ||
	    ++g.first_writes != g.regrant)
		return false;
	printf("regrant: dropping the first session after %llu writes\n",
	       (unsigned long long)g.first_writes);
	fflush(stdout);
	return true;
}

static int io_capsule(struct conn *c, const uint8_t *buf, uint32_t len)
{
	const struct rbd_cmd *cmd = (const void *)buf;
	struct rbd_rsp *rsp = (void *)c->send_buf;
	uint8_t *imm = c->send_buf + sizeof(*rsp);
	struct result r = { 0 };
	uint32_t dlen, rlen;
	uint64_t lba;
	uint32_t nblk;
	bool write = false, immediate;
	enum rbd_check chk;
	int ret;

	chk = rbd_check_cmd(buf, len, &c->lim);
	if (chk) {
		printf("qid %u: bad command: %s\n", c->qid, rbd_check_str(chk));
		return -1;
	}
	if (g.regrant)
		check_first_grant(c, cmd, len);
	dlen = rbd_le32(cmd->data_length);
	immediate = cmd->dir == RBD_DIR_READ && !cmd->nr_desc;
	if (g.probe && cmd->nr_desc &&
	    cmd->dir == (g.probe == 1 ? RBD_DIR_WRITE : RBD_DIR_READ) &&
	    probe_access(c, cmd))
		return -1;

	if (rw_cdb(cmd->cdb, &write, &lba, &nblk)) {
		uint64_t bytes = (uint64_t)nblk * BLOCK;

		if (lba + nblk > g.nblocks || lba + nblk < lba) {
			check_condition(&r, 0x05, 0x21);
		} else if (bytes != dlen ||
			   cmd->dir != (write ? RBD_DIR_WRITE : RBD_DIR_READ)) {
			check_condition(&r, 0x05, 0x24);
		} else if (!write) {
			if (g.hcase != H_NONE && g.count > 0 &&
			    lba == g.trigger_lba) {
				g.count--;
				printf("hostile: %s for tag %#llx (READ at %llu)\n",
				       hcase_name[g.hcase],
				       (unsigned long long)rbd_le64(cmd->hdr.tag),
				       (unsigned long long)lba);
				fflush(stdout);
				return hostile_rsp(c, cmd);
			}
			memcpy(immediate ? imm : c->data,
			       g.disk + lba * BLOCK, bytes);
			if (!immediate && move_desc(c, cmd, bytes, true))
				return -1;
			r.xfer = bytes;
		} else {
			if (cmd->nr_desc) {
				if (move_desc(c, cmd, bytes, false))
					return -1;
				memcpy(g.disk + lba * BLOCK, c->data, bytes);
			} else {
				memcpy(g.disk + lba * BLOCK, cmd + 1, bytes);
			}
			r.xfer = bytes;
		}
	} else {
		exec_other(cmd, immediate ? imm : c->data, &r);
		if (!immediate && r.xfer && cmd->dir == RBD_DIR_READ &&
		    move_desc(c, cmd, r.xfer, true))
			return -1;
		if (cmd->dir != RBD_DIR_READ)
			r.xfer = 0;
	}

	memset(rsp, 0, sizeof(*rsp));
	rsp->status = r.status;
	rsp->credits = rbd_cpu_to_le16(c->depth);

	rlen = sizeof(*rsp);
	if (immediate) {
		rsp->imm_len = rbd_cpu_to_le32(r.xfer);
		rlen += r.xfer;
	}
	if (r.sense_len) {
		memcpy(c->send_buf + rlen, r.sense, r.sense_len);
		rsp->sense_len = rbd_cpu_to_le16(r.sense_len);
		rlen += r.sense_len;
	}
	fill_hdr(&rsp->hdr, RBD_OP_SCSI_RSP, rlen, cmd->hdr.tag);
	if (r.xfer < dlen && !r.status) {
		rsp->hdr.flags = rbd_cpu_to_le16(RBD_RSP_F_UNDERFLOW);
		rsp->residual = rbd_cpu_to_le32(dlen - r.xfer);
	}
	mutate_rsp(rsp);
	ret = send_msg(c, rlen, false, 0);
	/* A positive return drops the connection. */
	if (!ret && first_session_done(c, write && !r.status))
		return 1;
	return ret;
}

/* --------------------------------------------------------- connections */

static struct session *find_session(uint64_t handle)
{
	unsigned int i;

	for (i = 0; i < MAX_SESSIONS; i++)
		if (g.sessions[i].handle && g.sessions[i].handle == handle)
			return &g.sessions[i];
	return NULL;
}

static void reject(struct rdma_cm_id *id, uint16_t reason)
{
	struct rbd_cm_rej rej = {
		.magic = rbd_cpu_to_le32(RBD_CM_MAGIC),
		.version = rbd_cpu_to_le16(RBD_PROTO_VERSION),
		.length = rbd_cpu_to_le16(sizeof(rej)),
		.reason = rbd_cpu_to_le16(reason),
		.min_version = rbd_cpu_to_le16(RBD_PROTO_VERSION),
		.max_version = rbd_cpu_to_le16(RBD_PROTO_VERSION),
	};

	rdma_reject(id, &rej, sizeof(rej));
}

static int accept_conn(struct conn *c)
{
	struct rdma_conn_param param = {
		.private_data = &c->rep,
		.private_data_len = sizeof(c->rep),
		.responder_resources = 0,
		.initiator_depth = c->ini_depth,
		.rnr_retry_count = 7,
	};

	c->pending = false;
	if (rdma_accept(c->id, &param)) {
		perror("rdma_accept");
		return -1;
	}
	vlog("qid %u: accepted (depth %u)\n", c->qid, c->depth);
	return 0;
}

/*
 * Accept or reject a connect request. Return true if its id is to be
 * destroyed (rejected), which may happen only once the event is acked.
 */
static bool on_connect_request(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct ibv_qp_init_attr attr = {};
	struct ibv_device_attr dattr;
	struct rbd_cm_req req;
	struct session *s = NULL;
	struct conn *c;
	enum rbd_check chk;
	size_t rlen;
	uint32_t i;
	int slot;

	chk = rbd_check_cm_req(ev->param.conn.private_data,
			       ev->param.conn.private_data_len, &req);
	if (chk) {
		printf("connect request: %s\n", rbd_check_str(chk));
		reject(id, rbd_check_reject_reason(chk));
		return true;
	}
	if (rbd_le16(req.qid)) {
		s = find_session(rbd_le64(req.session_handle));
		if (!s || rbd_le16(req.qid) > rbd_le16(s->grant.nr_queues) ||
		    rbd_le16(req.queue_depth) > rbd_le16(s->grant.queue_depth)) {
			reject(id, s ? RBD_REJ_INVALID_QID :
				       RBD_REJ_UNKNOWN_SESSION);
			return true;
		}
	}
	for (slot = 0; slot < MAX_CONNS && g.conns[slot]; slot++)
		;
	c = slot < MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		reject(id, RBD_REJ_NO_RESOURCES);
		return true;
	}
	c->id = id;
	id->context = c;
	c->qid = rbd_le16(req.qid);
	c->depth = rbd_le16(req.queue_depth);
	c->sess = s;
	c->iwarp = id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (s) {
		rbd_check_limits_init(&c->lim, &s->grant, c->qid, c->depth);
		c->nrecv = c->depth;
		c->rsize = rbd_cmd_capsule_max(c->lim.inline_write_size,
					       c->lim.max_desc);
	} else {
		c->nrecv = RBD_CTRL_SLOTS;
		c->rsize = RBD_CTRL_CAPSULE_MAX;
	}
	c->rsize = (c->rsize + 63) & ~63U;
	rlen = tool_mr_len((size_t)c->nrecv * c->rsize);
	c->pd = ibv_alloc_pd(id->verbs);
	c->rcq = ibv_create_cq(id->verbs, c->nrecv + 1, NULL, NULL, 0);
	c->scq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	c->recv_buf = aligned_alloc(4096, rlen);
	c->send_buf = aligned_alloc(4096, tool_mr_len(SEND_SIZE));
	c->data = aligned_alloc(4096, tool_mr_len(MAX_IO));
	if (!c->pd || !c->rcq || !c->scq || !c->recv_buf || !c->send_buf ||
	    !c->data)
		goto fail;
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf, rlen,
				IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf, tool_mr_len(SEND_SIZE),
				IBV_ACCESS_LOCAL_WRITE);
	c->data_mr = ibv_reg_mr(c->pd, c->data, tool_mr_len(MAX_IO),
				IBV_ACCESS_LOCAL_WRITE);
	if (!c->recv_mr || !c->send_mr || !c->data_mr)
		goto fail;
	attr.send_cq = c->scq;
	attr.recv_cq = c->rcq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = c->nrecv;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &attr))
		goto fail;
	for (i = 0; i < c->nrecv; i++)
		if (post_recv(c, i))
			goto fail;

	if (ibv_query_device(id->verbs, &dattr))
		dattr.max_qp_init_rd_atom = 1;
	c->rep.magic = rbd_cpu_to_le32(RBD_CM_MAGIC);
	c->rep.version = req.version;
	c->rep.length = rbd_cpu_to_le16(sizeof(c->rep));
	c->rep.qid = req.qid;
	c->rep.queue_depth = req.queue_depth;
	if (g.impostor && !req.qid &&
	    (rbd_le64(req.features) & RBD_FEAT_AUTH))
		c->rep.flags = rbd_cpu_to_le32(RBD_CM_REP_F_AUTH);
	c->ini_depth = ev->param.conn.responder_resources;
	if (c->ini_depth > dattr.max_qp_init_rd_atom)
		c->ini_depth = dattr.max_qp_init_rd_atom;
	if (!c->ini_depth)
		c->ini_depth = 1;
	if (g.accept_delay && c->qid >= 2) {
		c->pending = true;
		c->accept_at = now_ms() + g.accept_delay;
		g.conns[slot] = c;
		vlog("qid %u: accepting in %llu ms\n", c->qid,
		     (unsigned long long)g.accept_delay);
		return false;
	}
	if (accept_conn(c))
		goto fail;
	g.conns[slot] = c;
	return false;

fail:
	printf("qid %u: cannot set up the connection\n", c->qid);
	reject(id, RBD_REJ_NO_RESOURCES);
	if (id->qp)
		rdma_destroy_qp(id);
	c->id = NULL;	/* destroyed by the caller, after the ack */
	id->context = NULL;
	conn_free(c);
	return true;
}

static void conn_drop(struct conn *c)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (g.conns[i] == c)
			g.conns[i] = NULL;
	vlog("qid %u: closed\n", c->qid);
	conn_free(c);
}

static void handle_cm_event(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct conn *c;
	enum rdma_cm_event_type type;

	if (rdma_get_cm_event(g.ech, &ev))
		return;
	type = ev->event;
	id = ev->id;
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		bool destroy = on_connect_request(ev);

		rdma_ack_cm_event(ev);
		if (destroy)
			rdma_destroy_id(id);
		return;
	}
	c = id == g.listen_id ? NULL : id->context;
	rdma_ack_cm_event(ev);
	vlog("cm event %s\n", rdma_event_str(type));
	if (!c)
		return;
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		rdma_disconnect(id);
		conn_drop(c);
		break;
	default:
		/* Unreachable, rejected, device removal, ...: drop it. */
		conn_drop(c);
		break;
	}
}

/* Handle the receive completions of @c; false if it must be dropped. */
static bool poll_conn(struct conn *c)
{
	struct ibv_wc wc[8];
	int n, i, ret;

	n = ibv_poll_cq(c->rcq, 8, wc);
	for (i = 0; i < n; i++) {
		const uint8_t *buf;

		if (wc[i].status != IBV_WC_SUCCESS) {
			vlog("qid %u: receive: %s\n", c->qid,
			     ibv_wc_status_str(wc[i].status));
			return false;
		}
		buf = c->recv_buf + (size_t)wc[i].wr_id * c->rsize;
		if (c->qid == 0)
			ret = ctrl_capsule(c, buf, wc[i].byte_len);
		else
			ret = io_capsule(c, buf, wc[i].byte_len);
		if (ret || post_recv(c, wc[i].wr_id))
			return false;
	}
	return true;
}

static int setup_listener(void)
{
	struct addrinfo *ai, hints = { .ai_socktype = SOCK_STREAM,
				       .ai_flags = AI_PASSIVE };

	if (getaddrinfo(g.addr, g.port, &hints, &ai)) {
		fprintf(stderr, "rbd-fake-target: cannot resolve %s:%s\n",
			g.addr, g.port);
		return -1;
	}
	g.ech = rdma_create_event_channel();
	if (!g.ech || rdma_create_id(g.ech, &g.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(g.listen_id, ai->ai_addr) ||
	    rdma_listen(g.listen_id, 16)) {
		perror("rbd-fake-target: listen");
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	return 0;
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: rbd-fake-target -a ADDR [-p PORT] [-n BLOCKS] [-H CASE] [-T LBA] [-c COUNT]\n"
		"                       [-R WRITES] [-A MS] [-X write|read] [-M SEED] [-Z USER]\n"
		"                       [-W naa|eui:HEX, t10|name:TEXT] [-v]\n"
		"       rbd-fake-target -P LBA NBLK   (print the pattern of those blocks)\n"
		"cases:");
	for (i = H_TAG; i < sizeof(hcase_name) / sizeof(hcase_name[0]); i++)
		fprintf(f, " %s", hcase_name[i]);
	fprintf(f, "\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end;
}

/*
 * -W TYPE:VALUE into g.desig: code set, designator type (association:
 * the logical unit), length, value. False if malformed.
 */
static bool parse_designator(const char *arg)
{
	const char *v = strchr(arg, ':');
	size_t len, i;
	uint8_t *d = g.desig;
	unsigned int byte;

	if (!v)
		return false;
	v++;
	len = strlen(v);
	if (!strncmp(arg, "naa:", 4) || !strncmp(arg, "eui:", 4)) {
		if (len % 2 || len < 16 || len > 32)
			return false;
		for (i = 0; i < len / 2; i++) {
			if (sscanf(v + 2 * i, "%2x", &byte) != 1 ||
			    !isxdigit((unsigned char)v[2 * i + 1]))
				return false;
			d[4 + i] = byte;
		}
		d[0] = 1;				/* binary */
		d[1] = arg[0] == 'n' ? 0x3 : 0x2;	/* NAA, EUI-64 */
		d[3] = len / 2;
	} else if (!strncmp(arg, "t10:", 4) && len > 8 && len <= 48) {
		d[0] = 2;				/* ASCII */
		d[1] = 0x1;				/* T10 vendor ID */
		memcpy(d + 4, v, len);
		d[3] = len;
	} else if (!strncmp(arg, "name:", 5) && len && len < 48) {
		d[0] = 3;				/* UTF-8 */
		d[1] = 0x8;				/* SCSI name string */
		memset(d + 4, 0, 48);
		memcpy(d + 4, v, len);
		d[3] = (len + 4) & ~3u;			/* NUL-terminated, x4 */
	} else {
		return false;
	}
	g.desig_len = 4 + d[3];
	return true;
}

/* -P LBA NBLK: print the pattern of those blocks, as the disk starts. */
static int print_pattern(const char *lba_s, const char *nblk_s)
{
	uint64_t lba, nblk;
	size_t len;
	uint8_t *p;

	if (!lba_s || !nblk_s || !parse_u64(lba_s, &lba) ||
	    !parse_u64(nblk_s, &nblk) || nblk > 4096) {
		fprintf(stderr, "rbd-fake-target: -P LBA NBLK (NBLK <= 4096)\n");
		return 1;
	}
	len = nblk * BLOCK;
	p = malloc(len ? len : 1);
	if (!p)
		return 1;
	fill_pattern(p, lba * BLOCK, len);
	fwrite(p, 1, len, stdout);
	free(p);
	return 0;
}

/* -H CASE: the misbehaviour to act out, by name. */
static bool parse_case(const char *name)
{
	unsigned int i;

	for (i = H_TAG; i < sizeof(hcase_name) / sizeof(hcase_name[0]); i++)
		if (!strcmp(name, hcase_name[i]))
			g.hcase = i;
	return g.hcase != H_NONE;
}

/*
 * An option with a number in @lo..@hi (@what names it in the error), into
 * @out.
 */
static bool parse_opt_u64(const char *arg, uint64_t lo, uint64_t hi,
			  uint64_t *out, const char *what)
{
	uint64_t v;

	if (!parse_u64(arg, &v) || v < lo || v > hi) {
		fprintf(stderr, "rbd-fake-target: %s\n", what);
		return false;
	}
	*out = v;
	return true;
}

/* One option of the command line other than -P, -v and -h. */
static bool parse_opt(int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'a':
		g.addr = arg;
		return true;
	case 'p':
		g.port = arg;
		return true;
	case 'n':
		return parse_opt_u64(arg, 8, 1ULL << 21, &g.nblocks,
				     "-n: 8..2097152 blocks");
	case 'H':
		if (parse_case(arg))
			return true;
		fprintf(stderr, "rbd-fake-target: unknown case '%s'\n", arg);
		usage(stderr);
		return false;
	case 'M':
		if (!parse_opt_u64(arg, 1, UINT64_MAX, &g.mutate_x,
				   "-M: a seed above 0"))
			return false;
		g.mutate_skip = 64;
		g.mutate_left = 400;
		return true;
	case 'W':
		if (parse_designator(arg))
			return true;
		fprintf(stderr, "rbd-fake-target: bad designator '%s'\n", arg);
		return false;
	case 'Z':
		g.impostor = arg;
		return true;
	case 'X':
		if (strcmp(arg, "write") && strcmp(arg, "read")) {
			fprintf(stderr, "rbd-fake-target: -X write or -X read\n");
			return false;
		}
		g.probe = strcmp(arg, "write") ? 2 : 1;
		return true;
	case 'T':
		return parse_opt_u64(arg, 0, UINT64_MAX, &g.trigger_lba,
				     "-T: not a number");
	case 'c':
		if (!parse_opt_u64(arg, 0, 1000, &v, "-c: 0..1000"))
			return false;
		g.count = v;
		return true;
	case 'R':
		return parse_opt_u64(arg, 1, UINT64_MAX, &g.regrant,
				     "-R: a number of writes, at least 1");
	case 'A':
		return parse_opt_u64(arg, 0, 10000, &g.accept_delay,
				     "-A: 0..10000 ms");
	default:
		usage(stderr);
		return false;
	}
}

/* One round of the main loop: CM events, pending accepts, each queue. */
static void serve_once(void)
{
	struct pollfd p = { .fd = g.ech->fd, .events = POLLIN };
	unsigned int i;

	if (poll(&p, 1, 1) > 0)
		handle_cm_event();
	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = g.conns[i];

		if (!c || c->dead)
			continue;
		if (c->pending) {
			if (now_ms() >= c->accept_at && accept_conn(c)) {
				reject(c->id, RBD_REJ_NO_RESOURCES);
				conn_drop(c);
			}
			continue;
		}
		if (!poll_conn(c)) {
			/* Disconnect; the DISCONNECTED event frees it. */
			c->dead = true;
			rdma_disconnect(c->id);
		}
	}
}

/* Serve until SIGINT or SIGTERM, then drop every connection. */
static int serve(void)
{
	unsigned int i;

	g.disk = malloc(g.nblocks * BLOCK);
	if (!g.disk) {
		fprintf(stderr, "rbd-fake-target: out of memory\n");
		return 1;
	}
	fill_pattern(g.disk, 0, g.nblocks * BLOCK);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup_listener()) {
		free(g.disk);
		return 1;
	}
	printf("listening on %s:%s, %llu blocks, case %s at LBA %llu x%d\n",
	       g.addr, g.port, (unsigned long long)g.nblocks,
	       hcase_name[g.hcase], (unsigned long long)g.trigger_lba, g.count);
	fflush(stdout);

	while (!stop)
		serve_once();
	for (i = 0; i < MAX_CONNS; i++)
		if (g.conns[i]) {
			rdma_disconnect(g.conns[i]->id);
			conn_free(g.conns[i]);
		}
	if (g.regrant)
		printf("logins %u, oversize capsules %llu\n", g.logins,
		       (unsigned long long)g.oversize);
	rdma_destroy_id(g.listen_id);
	rdma_destroy_event_channel(g.ech);
	free(g.disk);
	return 0;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "a:p:n:H:T:c:R:A:X:M:P:Z:W:vh")) != -1) {
		switch (opt) {
		case 'P':
			return print_pattern(optarg, optind < argc ? argv[optind] : NULL);
		case 'v':
			g.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (!parse_opt(opt, optarg))
				return 1;
		}
	}
	if (!g.addr || optind != argc) {
		usage(stderr);
		return 1;
	}
	return serve();
}
