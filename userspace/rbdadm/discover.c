// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm discover: ask a target portal which targets and LUNs this
 * initiator may log in to. rbdadm talks to the target itself, from
 * userspace (librdmacm and libibverbs): queue 0 is connected as for a
 * login, but carries DISCOVER requests instead of the LOGIN
 * (Documentation/protocol.rst, "Discovery"); no kernel module is needed
 * on this host.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rbd/rbd_proto.h>
#include <rbd/rbd_proto_check.h>

#include "auth.h"
#include "cm.h"
#include "output.h"
#include "rbdadm.h"

#define DISC_TIMEOUT_MS	5000
/* A target answers at most this many DISCOVER requests per discovery. */
#define DISC_MAX_RSPS	4096

/*
 * disc_next() - take in one checked DISCOVER response, prepare the next
 * request. Returns 1 when @req was updated for another round, 0 when the
 * discovery is complete, -1 when the answers do not add up (an entry
 * count that changes, or more rounds than DISC_MAX_RSPS).
 */
int disc_next(struct disc_result *res, const struct rbd_discover_rsp *rsp,
	      struct rbd_discover_req *req)
{
	uint32_t nr = rbd_le32(rsp->nr_entries), idx = rbd_le32(rsp->index);
	uint16_t n = rbd_le16(rsp->nr_luns), i;
	struct disc_entry *e;

	if (++res->rounds > DISC_MAX_RSPS)
		return -1;
	if (res->nr_entries && res->nr_entries != nr)
		return -1;
	res->nr_entries = nr;
	if (idx != rbd_le32(req->index))
		return -1;
	if (res->nr && res->e[res->nr - 1].index == idx) {
		e = &res->e[res->nr - 1];
	} else {
		e = realloc(res->e, (res->nr + 1) * sizeof(*e));
		if (!e)
			return -1;
		res->e = e;
		e = &res->e[res->nr++];
		memset(e, 0, sizeof(*e));
		e->index = idx;
		e->tpgt = rbd_le16(rsp->tpgt);
		memcpy(e->target, rsp->target_name, sizeof(e->target));
	}
	if (strncmp(e->target, rsp->target_name, sizeof(e->target)) ||
	    e->tpgt != rbd_le16(rsp->tpgt))
		return -1;
	for (i = 0; i < n; i++) {
		unsigned long long *l = realloc(e->luns, (e->nr_luns + 1) * sizeof(*l));

		if (!l)
			return -1;
		e->luns = l;
		e->luns[e->nr_luns++] = rbd_le64(rsp->luns[i]);
	}
	req->hdr.tag = rbd_cpu_to_le64(rbd_tag(0, (uint16_t)(res->rounds >> 2),
					       res->rounds % RBD_CTRL_SLOTS));
	if (rbd_le16(rsp->flags) & RBD_DISCOVER_MORE_LUNS) {
		req->start_lun = rbd_cpu_to_le64(e->luns[e->nr_luns - 1] + 1);
		if (!req->start_lun)	/* wrapped: nothing above U64_MAX */
			return -1;
		return 1;
	}
	req->start_lun = 0;
	req->index = rbd_cpu_to_le32(idx + 1);
	return idx + 1 < nr ? 1 : 0;
}

void disc_result_free(struct disc_result *res)
{
	uint32_t i;

	for (i = 0; i < res->nr; i++)
		free(res->e[i].luns);
	free(res->e);
	memset(res, 0, sizeof(*res));
}

struct conn {
	struct cm_conn cm;
	struct ibv_mr *mr;
	uint8_t *buf;		/* RBD_CTRL_SLOTS receives, then one send */
	bool connected;
	bool auth;		/* the target can authenticate */
};

#define RECV_BUF(c, i)	((c)->buf + (size_t)(i) * RBD_CTRL_CAPSULE_MAX)
#define SEND_BUF(c)	RECV_BUF(c, RBD_CTRL_SLOTS)

static const struct cm_timeouts disc_timeouts = {
	.resolve = DISC_TIMEOUT_MS,
	.event = DISC_TIMEOUT_MS + 1000,
	.connect = 2 * DISC_TIMEOUT_MS,
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_close(struct conn *c)
{
	if (c->connected)
		rdma_disconnect(c->cm.id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	cm_free(&c->cm);
	free(c->buf);
}

static int post_recv(struct conn *c, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)RECV_BUF(c, i),
		.length = RBD_CTRL_CAPSULE_MAX,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->cm.id->qp, &wr, &bad);
}

/*
 * Address and route of @addr:@port (from @src if given) for @c. Prints
 * the error; returns 0, or the exit status: EXIT_UNREACHABLE when
 * nothing reaches the portal.
 */
static int conn_resolve(struct conn *c, const char *addr, unsigned int port,
			const char *src, const char *portal)
{
	struct cm_status st;
	char ps[8];

	snprintf(ps, sizeof(ps), "%u", port);
	if (!cm_resolve(&c->cm, addr, ps, src, true, &disc_timeouts, &st))
		return 0;
	switch (st.fail) {
	case CM_BAD_DST:
	case CM_BAD_SRC:
		err("discover: invalid address");
		return EXIT_FAIL;
	case CM_CREATE_ID:
		err("discover: cannot use RDMA: %s (is rdma_ucm loaded?)", strerror(st.err));
		return EXIT_FAIL;
	case CM_ADDR_EVENT:
		err("discover: address unreachable: %s (%s; no RDMA device reaches it)",
		    portal, cm_event_str(&st));
		return EXIT_UNREACHABLE;
	case CM_ROUTE_EVENT:
		err("discover: address unreachable: %s (%s)", portal, cm_event_str(&st));
		return EXIT_UNREACHABLE;
	default:
		err("discover: address unreachable: %s (%s)", portal, strerror(st.err));
		return EXIT_UNREACHABLE;
	}
}

/* Buffers, PD, CQ, MR and QP of the resolved @c, its receives posted. */
static int conn_setup_qp(struct conn *c)
{
	static const struct cm_qp_caps caps = {
		.cq_entries = 2 * RBD_CTRL_SLOTS + 4,
		.max_send_wr = RBD_CTRL_SLOTS,
		.max_recv_wr = RBD_CTRL_SLOTS,
	};
	struct cm_status st;
	size_t sz;
	int i;

	sz = (size_t)(RBD_CTRL_SLOTS + 1) * RBD_CTRL_CAPSULE_MAX;
	c->buf = aligned_alloc(4096, sz);
	if (!c->buf || cm_setup_qp(&c->cm, &caps, &st)) {
		if (!c->buf || st.fail == CM_RESOURCES)
			err("discover: out of resources");
		else
			err("discover: cannot create a queue pair: %s", strerror(st.err));
		return EXIT_FAIL;
	}
	memset(c->buf, 0, sz);
	c->mr = ibv_reg_mr(c->cm.pd, c->buf, sz, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		err("discover: cannot create a queue pair: %s", strerror(errno));
		return EXIT_FAIL;
	}
	for (i = 0; i < RBD_CTRL_SLOTS; i++)
		if (post_recv(c, i)) {
			err("discover: cannot post receives");
			return EXIT_FAIL;
		}
	return 0;
}

/* What the failed connect of @c to @portal means, as a message and status. */
static int conn_failed(const struct cm_status *st, const char *portal)
{
	switch (st->fail) {
	case CM_CONNECT:
		/* iWARP connects at once; a closed port is refused here. */
		if (st->err == ECONNREFUSED)
			break;
		err("discover: address unreachable: %s (%s)", portal, strerror(st->err));
		return EXIT_UNREACHABLE;
	case CM_BAD_REP:
		err("discover: %s is not an rbd target (connect reply: %s)",
		    portal, rbd_check_str(st->check));
		return EXIT_FAIL;
	case CM_REFUSED:
		break;
	case CM_REJECTED:
		err("discover: %s refused the connection: %s", portal,
		    rbd_reject_str(rbd_le16(st->rej.reason)));
		return EXIT_FAIL;
	default:
		err("discover: address unreachable: %s (%s)", portal,
		    st->timeout ? "connect timed out" : cm_event_str(st));
		return EXIT_UNREACHABLE;
	}
	err("discover: no rbd target listening at %s (connection refused)", portal);
	return EXIT_UNREACHABLE;
}

/* Connect @c to the rbd target at @portal for queue 0 (discovery). */
static int conn_connect(struct conn *c, const char *portal)
{
	struct rbd_cm_req cr;
	struct cm_status st;

	cm_req_init(&cr, 0, 0, RBD_FEAT_AUTH, 0);
	if (!cm_connect(&c->cm, &cr, 1, disc_timeouts.connect, &st)) {
		c->connected = true;
		c->auth = rbd_le32(st.rep.flags) & RBD_CM_REP_F_AUTH;
		return 0;
	}
	c->connected = st.fail == CM_BAD_REP;
	return conn_failed(&st, portal);
}

/*
 * Resolve, connect queue 0. Prints the error; returns 0, or the exit
 * status: EXIT_UNREACHABLE when no rbd target answers at the portal.
 */
static int conn_open(struct conn *c, const char *addr, unsigned int port,
		     const char *src, const char *portal)
{
	int rc;

	rc = conn_resolve(c, addr, port, src, portal);
	if (!rc)
		rc = conn_setup_qp(c);
	if (!rc)
		rc = conn_connect(c, portal);
	return rc;
}

/*
 * Send @len bytes of @req, wait for the response and copy at most
 * @rsp_size bytes of it to @rsp; returns its length or -1.
 */
static int conn_request(struct conn *c, const void *req, size_t len,
			void *rsp, size_t rsp_size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)SEND_BUF(c),
		.length = (uint32_t)len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = UINT64_MAX, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	uint64_t end = now_ms() + DISC_TIMEOUT_MS;
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	memcpy(SEND_BUF(c), req, len);
	if (ibv_post_send(c->cm.id->qp, &wr, &bad))
		return -1;
	while (now_ms() < end) {
		n = ibv_poll_cq(c->cm.cq, 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			return -1;
		if (!n) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		if (!(wc.opcode & IBV_WC_RECV))
			continue;
		n = wc.byte_len;
		memset(rsp, 0, rsp_size);
		memcpy(rsp, RECV_BUF(c, wc.wr_id),
		       (size_t)n < rsp_size ? (size_t)n : rsp_size);
		post_recv(c, wc.wr_id);
		return n;
	}
	return -1;
}

/*
 * Authenticate the connection for discovery by @ini (protocol.rst, "13.
 * Authentication"). Returns 0, or an exit status after printing why.
 */
static int disc_auth(struct conn *c, const char *portal, const char *ini,
		     const struct auth_cred *cred, const struct auth_cred *mut)
{
	struct rbd_auth_begin b;
	struct rbd_auth_begin_rsp br;
	struct rbd_auth_proof p;
	struct rbd_auth_proof_rsp pr;
	enum rbd_check chk;
	uint16_t status;
	int n;

	if (!c->auth) {
		err("discover: %s does not support authentication", portal);
		return EXIT_AUTH;
	}
	if (auth_begin_init(&b, rbd_tag(0, 1, 1), mut->user[0], ini, NULL))
		return EXIT_FAIL;
	n = conn_request(c, &b, sizeof(b), &br, sizeof(br));
	chk = n < 0 ? RBD_CHECK_SHORT :
		      rbd_check_auth_begin_rsp(&br, (size_t)n, &b);
	if (chk) {
		err("discover: bad answer to AUTH_BEGIN from %s: %s", portal,
		    n < 0 ? "none" : rbd_check_str(chk));
		return EXIT_FAIL;
	}
	status = rbd_le16(br.status);
	if (status) {
		err("discover: %s refused authentication: %s", portal,
		    rbd_reject_str(status));
		return EXIT_AUTH;
	}
	if (auth_proof_init(&p, rbd_tag(0, 2, 1), &b, &br, cred))
		return EXIT_FAIL;
	n = conn_request(c, &p, sizeof(p), &pr, sizeof(pr));
	chk = n < 0 ? RBD_CHECK_SHORT :
		      rbd_check_auth_proof_rsp(&pr, (size_t)n, &b, &p);
	if (chk) {
		err("discover: bad answer to AUTH_PROOF from %s: %s", portal,
		    n < 0 ? "none" : rbd_check_str(chk));
		return EXIT_FAIL;
	}
	status = rbd_le16(pr.status);
	if (status) {
		err("discover: %s: %s (check --auth-user and the secret; the target's log says why)",
		    portal, rbd_reject_str(status));
		return EXIT_AUTH;
	}
	if (mut->user[0] && auth_check_target(&b, &br, &pr, mut)) {
		err("discover: %s failed mutual authentication: it did not prove the secret of %s",
		    portal, mut->user);
		return EXIT_AUTH;
	}
	return 0;
}

void usage_discover(void)
{
	puts("Usage: rbdadm discover -a ADDR[:PORT] [-I|--initiator NAME] [-s|--source ADDR] [-j|-o json]\n"
	     "                       [--auth-user USER --auth-secret-file FILE\n"
	     "                        [--auth-mutual-user USER --auth-mutual-secret-file FILE]]\n"
	     "\n"
	     "Ask the target portal ADDR (port " STR(RBD_DEFAULT_PORT) " by default; IPv6 in\n"
	     "brackets) which targets and LUNs this initiator may log in to:\n"
	     "those its ACLs map, or every LUN of a target portal group in\n"
	     "demo mode. The initiator name defaults to the one in\n"
	     RBD_INITIATORNAME_FILE ". With --auth-user the connection first\n"
	     "authenticates with the target's discovery credentials\n"
	     "(discovery_auth), as rbdadm login does with an ACL's.");
}

/* What the command line of rbdadm discover asks for. */
struct disc_args {
	char addr[INET6_ADDRSTRLEN + 2];
	char src[INET6_ADDRSTRLEN + 2];
	const char *src_opt;
	unsigned int port;
	char portal[80];
	char ini[RBD_NAME_LEN];
	struct auth_opts ao;
};

/*
 * Options and names of rbdadm discover into @a. Returns -1 when the
 * command is to go on, else its exit status (usage errors, --help).
 */
static int disc_parse(int argc, char **argv, struct disc_args *a)
{
	static const struct option opts[] = {
		{ "address", required_argument, NULL, 'a' },
		{ "initiator", required_argument, NULL, 'I' },
		{ "source", required_argument, NULL, 's' },
		OUT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "auth-user", required_argument, NULL, 'U' },
		{ "auth-secret-file", required_argument, NULL, 'S' },
		{ "auth-mutual-user", required_argument, NULL, 'V' },
		{ "auth-mutual-secret-file", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	const char *a_opt = NULL, *i_opt = NULL;
	unsigned int sport;
	int ch, ret;

	while ((ch = getopt_long(argc, argv, "a:I:s:jo:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			a_opt = optarg;
			break;
		case 'I':
			i_opt = optarg;
			break;
		case 's':
			a->src_opt = optarg;
			break;
		case 'U':
			a->ao.user = optarg;
			break;
		case 'S':
			a->ao.secret_file = optarg;
			break;
		case 'V':
			a->ao.mutual_user = optarg;
			break;
		case 'W':
			a->ao.mutual_secret_file = optarg;
			break;
		case 'j':
			opt_json = 1;
			break;
		case 'o':
			if (out_format_opt(optarg))
				return EXIT_USAGE;
			break;
		case 'h':
			usage_discover();
			return EXIT_OK;
		default:
			usage_discover();
			return EXIT_USAGE;
		}
	}
	ret = no_operands(argc, argv, "discover");
	if (ret >= 0)
		return ret;
	if (!a_opt) {
		err("discover: -a ADDR[:PORT] is required");
		return EXIT_USAGE;
	}
	if (parse_portal(a_opt, a->addr, sizeof(a->addr), &a->port)) {
		err("discover: invalid address '%s' (ADDR, ADDR:PORT or [IPV6]:PORT)", a_opt);
		return EXIT_USAGE;
	}
	if (a->src_opt && parse_portal(a->src_opt, a->src, sizeof(a->src), &sport)) {
		err("discover: invalid source address '%s'", a->src_opt);
		return EXIT_USAGE;
	}
	if (i_opt) {
		if (strlen(i_opt) >= sizeof(a->ini)) {
			err("discover: initiator name too long");
			return EXIT_USAGE;
		}
		strcpy(a->ini, i_opt);
	} else if (read_initiatorname(RBD_INITIATORNAME_FILE, a->ini, sizeof(a->ini))) {
		err("discover: no initiator name: give --initiator or write InitiatorName= to %s",
		    RBD_INITIATORNAME_FILE);
		return EXIT_FAIL;
	}
	if (!rbd_check_name(a->ini)) {
		err("discover: invalid initiator name '%s'", a->ini);
		return EXIT_USAGE;
	}
	snprintf(a->portal, sizeof(a->portal), strchr(a->addr, ':') ? "[%s]:%u" : "%s:%u",
		 a->addr, a->port);
	return -1;
}

/*
 * DISCOVER requests on the connected @c until the target has listed
 * everything for @a's initiator, into @res. Returns an exit status.
 */
static int disc_query(struct conn *c, const struct disc_args *a,
		      struct disc_result *res)
{
	struct rbd_discover_req req = {};
	struct rbd_discover_rsp rsp;
	int n;

	req.hdr.opcode = RBD_OP_DISCOVER;
	req.hdr.version = RBD_PROTO_VERSION;
	req.hdr.length = rbd_cpu_to_le32(sizeof(req));
	req.hdr.tag = rbd_cpu_to_le64(rbd_tag(0, 0, 0));
	memcpy(req.initiator_name, a->ini, sizeof(a->ini));
	for (;;) {
		struct rbd_discover_req sent = req;
		enum rbd_check chk;
		uint16_t status;

		n = conn_request(c, &req, sizeof(req), &rsp, sizeof(rsp));
		if (n < 0) {
			err("discover: %s did not answer DISCOVER (a target without discovery?)",
			    a->portal);
			return EXIT_FAIL;
		}
		chk = rbd_check_discover_rsp(&rsp, n, &sent);
		if (chk) {
			err("discover: malformed answer from %s: %s", a->portal,
			    rbd_check_str(chk));
			return EXIT_FAIL;
		}
		status = rbd_le16(rsp.status);
		if (status == RBD_REJ_AUTH_REQUIRED) {
			err("discover: %s requires authentication for discovery (give --auth-user and --auth-secret-file)",
			    a->portal);
			return EXIT_AUTH;
		}
		if (status == RBD_REJ_ACL_DENIED) {
			err("discover: access denied: %s has no LUNs for initiator %s",
			    a->portal, a->ini);
			return EXIT_ACL;
		}
		if (status) {
			err("discover: %s refused: %s", a->portal, rbd_reject_str(status));
			return EXIT_FAIL;
		}
		n = disc_next(res, &rsp, &req);
		if (n < 0) {
			err("discover: inconsistent answers from %s (configuration changed?)",
			    a->portal);
			return EXIT_FAIL;
		}
		if (!n)
			return EXIT_OK;
	}
}

/* The discovered targets and LUNs, as text or JSON. */
static int disc_print(const struct disc_args *a, const struct disc_result *res)
{
	uint32_t i, j;

	out_init(opt_json ? OUT_JSON : OUT_TEXT);
	out_str("portal", "Portal:", a->portal);
	out_str("initiator", "Initiator:", a->ini);
	out_list_begin("targets");
	for (i = 0; i < res->nr; i++) {
		out_record_begin();
		out_str("target", "Target:", res->e[i].target);
		out_u64("tpgt", "TPG:", res->e[i].tpgt);
		out_list_begin("luns");
		for (j = 0; j < res->e[i].nr_luns; j++)
			out_u64(NULL, "LUN:", res->e[i].luns[j]);
		out_end();
		out_end();
	}
	out_end();
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

int cmd_discover(int argc, char **argv)
{
	struct disc_args a = {};
	struct disc_result res = {};
	struct auth_cred cred, mut;
	struct conn c = {};
	int have_auth, ret;

	ret = disc_parse(argc, argv, &a);
	if (ret >= 0)
		return ret;
	have_auth = auth_opts_load(&a.ao, "discover", &cred, &mut);
	if (have_auth < 0)
		return -have_auth;
	ret = conn_open(&c, a.addr, a.port, a.src_opt ? a.src : NULL, a.portal);
	if (!ret && have_auth)
		ret = disc_auth(&c, a.portal, a.ini, &cred, &mut);
	if (have_auth) {
		auth_cred_clear(&cred);
		auth_cred_clear(&mut);
	}
	if (!ret)
		ret = disc_query(&c, &a, &res);
	if (!ret)
		ret = disc_print(&a, &res);
	disc_result_free(&res);
	conn_close(&c);
	return ret;
}
