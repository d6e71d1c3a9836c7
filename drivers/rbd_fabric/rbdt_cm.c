// SPDX-License-Identifier: GPL-2.0
/*
 * rbdt: network portals and their rdma_cm listeners.
 *
 * A network portal, tpgt_N/np/<address>:<port>, asks the target to listen
 * on an address. All portals with the same address share one listener,
 * as iSCSI network portals do: rdma_cm allows only one listener per
 * address and port, and the login that follows a connection names the
 * target, which selects the TPG among the portals that cover the
 * connection's destination address. The connections themselves are
 * handled in rbdt_conn.c.
 *
 * rdma_cm does not let a wildcard listener (0.0.0.0 or ::) and one on a
 * specific address share a port either. rbdt lets their portals coexist:
 * while a wildcard listener holds a port, the listeners of specific
 * addresses on that port are "covered": they give up their own rdma_cm id
 * and the wildcard's id takes their connections. A connection reaches the
 * TPGs whose portals cover its destination address: those of the
 * wildcard, and those of its own address if it has portals. When the
 * wildcard goes, the covered listeners bind their addresses again.
 *
 * A listener bound to a specific address is tied to the RDMA device that
 * owns the address. If the address is not assigned yet or has no RDMA
 * device (at boot, while the saved configuration is restored), the
 * portal is created all the same and waits. When that device goes away
 * (RDMA_CM_EVENT_DEVICE_REMOVAL) or the address moves
 * (RDMA_CM_EVENT_ADDR_CHANGE), the listener is lost and waits likewise. A
 * repair work re-creates a waiting listener, retrying every
 * RBDT_LISTEN_RETRY_SECS until it succeeds, the wildcard covers it, or the
 * last portal on the address is removed. np/<portal>/state says which.
 * A wildcard listener is bound to no device and needs none: rdma_cm
 * extends it to every RDMA device present now or added later.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rbdt.h"

#define RBDT_LISTEN_BACKLOG	128
#define RBDT_LISTEN_RETRY_SECS	5

/* "[" + IPv6 with scope (inet6_pton takes at most 48) + "]:" + 5 digits */
#define RBDT_PORTAL_MAX		(1 + INET6_ADDRSTRLEN + 2 + 5)

/**
 * enum rbdt_listener_state - what np/<portal>/state shows
 * @RBDT_LISTENER_NEW: Being set up; nothing logged yet.
 * @RBDT_LISTENER_LISTENING: Listening on its own rdma_cm id.
 * @RBDT_LISTENER_COVERED: A wildcard listener on the port takes its
 *	connections.
 * @RBDT_LISTENER_WAITING: Not listening; the repair work retries.
 */
enum rbdt_listener_state {
	RBDT_LISTENER_NEW,
	RBDT_LISTENER_LISTENING,
	RBDT_LISTENER_COVERED,
	RBDT_LISTENER_WAITING,
};

/**
 * struct rbdt_listener - an rdma_cm listener shared by the portals of one
 *	address
 * @addr: The address and port listened on.
 * @ref: One reference per &struct rbdt_np on @addr. Dropped under
 *	rbdt_listeners_mutex, so that a lookup never finds a dying listener.
 * @entry: Entry in rbdt_listeners. Protected by rbdt_listeners_mutex.
 * @lock: Protects @cm_id, @stopping, @covered, @lost, @state and @why.
 * @cm_id: The listening id, or NULL while the listener is covered, lost or
 *	being repaired. Whoever clears it owns the id and destroys it: the
 *	repair work, the release, the wildcard that covers it, or the CM
 *	itself when the handler returns non-zero for DEVICE_REMOVAL.
 * @stopping: Set by the release; no repair may be scheduled or publish a
 *	new id afterwards.
 * @covered: A wildcard listener on the same port takes the connections of
 *	this specific address; no id of its own may be published. Changed
 *	under rbdt_listeners_mutex as well.
 * @lost: The listener went away and has not been re-created yet; set when
 *	that was logged, so that only the recovery is logged next.
 * @state: What the listener does now.
 * @why: For %RBDT_LISTENER_WAITING, why it is not listening.
 * @repair_work: Re-creates @cm_id; see the comment at the top of the file.
 * @np_list: The portals sharing this listener. Protected by
 *	rbdt_listeners_mutex.
 * @max_halfopen: The smallest attrib/max_halfopen of the TPGs whose
 *	connections this listener's id takes, 0 without a portal; see
 *	rbdt_listener_update_caps().
 * @max_halfopen_per_host: Likewise for attrib/max_halfopen_per_host.
 *
 * Never call rdma_destroy_id() with @lock held: the CM handler of that id
 * may be waiting for @lock, and rdma_destroy_id() waits for the handler.
 */
struct rbdt_listener {
	struct sockaddr_storage addr;
	struct kref ref;
	struct list_head entry;
	struct mutex lock;	/* protects cm_id, flags, state, why */
	struct rdma_cm_id *cm_id;
	bool stopping;
	bool covered;
	bool lost;
	enum rbdt_listener_state state;
	const char *why;
	struct delayed_work repair_work;
	struct list_head np_list;
	u32 max_halfopen;
	u32 max_halfopen_per_host;
};

static LIST_HEAD(rbdt_listeners);
static DEFINE_MUTEX(rbdt_listeners_mutex);

/**
 * rbdt_addr_equal() - same address and port
 * @a: An IPv4 or IPv6 address.
 * @b: Another one.
 *
 * Return: true if they are equal.
 */
bool rbdt_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;

	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
		const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	} else {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
		const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
		       a6->sin6_port == b6->sin6_port &&
		       a6->sin6_scope_id == b6->sin6_scope_id;
	}
}

/**
 * rbdt_parse_portal() - parse the name of a network portal directory
 * @name: "<IPv4>:<port>" or "[<IPv6>]:<port>", e.g. "0.0.0.0:65000",
 *	"10.0.0.1:65000", "[::]:65000" or "[fe80::1%eth0]:65000" (a link-local
 *	IPv6 address needs its interface as scope).
 * @addr: Filled in with the address and port.
 *
 * The port is mandatory, as for iSCSI portals. rbd's customary port is
 * 65000, but a portal without one is rejected rather than defaulted: the
 * directory name is the only record of the address, and defaulting would
 * give one listener two names ("10.0.0.1" and "10.0.0.1:65000"). Since
 * rbdt listens "AF-only", [::]:<port> accepts IPv6 connections only; add
 * 0.0.0.0:<port> as well to accept IPv4.
 *
 * Return: NULL on success, otherwise why @name is not a valid portal.
 */
const char *rbdt_parse_portal(const char *name, struct sockaddr_storage *addr)
{
	char buf[RBDT_PORTAL_MAX + 1];
	const char *host, *port;
	sa_family_t af;
	u16 port_num;
	char *sep;

	if (strscpy(buf, name, sizeof(buf)) < 0)
		return "the name is too long";

	if (buf[0] == '[') {
		sep = strchr(buf, ']');
		if (!sep)
			return "missing ']' after the IPv6 address";
		if (sep[1] != ':')
			return "missing ':<port>' after ']'";
		*sep = '\0';
		host = buf + 1;
		port = sep + 2;
		af = AF_INET6;
	} else {
		sep = strchr(buf, ':');
		if (!sep)
			return "missing ':<port>'";
		*sep = '\0';
		host = buf;
		port = sep + 1;
		af = AF_INET;
	}

	if (rbdt_parse_u16(port, &port_num))
		return "the port must be a decimal number 1..65535";

	memset(addr, 0, sizeof(*addr));
	if (inet_pton_with_scope(&init_net, af, host, port, addr))
		return af == AF_INET ? "not a valid IPv4 address (IPv6 needs brackets)" :
				       "not a valid IPv6 address";
	return NULL;
}

/* The wildcard address of its family, 0.0.0.0 or ::. */
static bool rbdt_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/* Same family and port, whatever the address. */
static bool rbdt_addr_same_port(const struct sockaddr_storage *a,
				const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_port ==
		       ((const struct sockaddr_in *)b)->sin_port;
	return ((const struct sockaddr_in6 *)a)->sin6_port ==
	       ((const struct sockaddr_in6 *)b)->sin6_port;
}

static u16 rbdt_addr_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
}

/*
 * Whether connections to @dst are for the portals of @l: all on its port
 * for a wildcard, those to its address otherwise. An IPv6 destination
 * has no scope, so the scope of @l is not compared.
 */
static bool rbdt_listener_covers(const struct rbdt_listener *l,
				 const struct sockaddr_storage *dst)
{
	if (!rbdt_addr_same_port(&l->addr, dst))
		return false;
	if (rbdt_addr_any(&l->addr))
		return true;
	if (dst->ss_family == AF_INET)
		return ((const struct sockaddr_in *)&l->addr)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)dst)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)&l->addr)->sin6_addr,
			       &((const struct sockaddr_in6 *)dst)->sin6_addr);
}

/* Whether a local interface has the address of @addr. */
static bool rbdt_addr_is_local(const struct sockaddr_storage *addr)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)addr;

	if (addr->ss_family == AF_INET)
		return inet_addr_type(&init_net, a4->sin_addr.s_addr) ==
		       RTN_LOCAL;
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(&init_net, &a6->sin6_addr, NULL, 0);
}

/* What an rdma_cm error of a listener on @addr means for the admin. */
static const char *rbdt_listen_cause(const struct sockaddr_storage *addr,
				     int err)
{
	switch (err) {
	case -EADDRINUSE:
		return "another RDMA listener (e.g. nvmet, iSER, srpt) has this address and port";
	case -EADDRNOTAVAIL:
		if (rbdt_addr_any(addr))
			return "another RDMA listener (e.g. nvmet, iSER, srpt) has the port";
		if (!rbdt_addr_is_local(addr))
			return "the address is not assigned to any local interface";
		return "another RDMA listener (e.g. nvmet, iSER, srpt) listens on 0.0.0.0 or ::";
	case -ENODEV:
		return "no RDMA device serves the interface that owns the address";
	default:
		return "rdma_cm error, see the kernel log";
	}
}

/*
 * A portal on a specific address is created even if its address or RDMA
 * device is not there yet; it waits for them. Other causes are refusals.
 */
static bool rbdt_listen_can_wait(const struct sockaddr_storage *addr,
				 int err)
{
	if (err == -ENODEV)
		return true;
	return err == -EADDRNOTAVAIL && !rbdt_addr_any(addr) &&
	       !rbdt_addr_is_local(addr);
}

/* Listening, or covered by a wildcard; logs a change after the set-up. */
static void rbdt_listener_set_state(struct rbdt_listener *l,
				    enum rbdt_listener_state state)
{
	enum rbdt_listener_state old = l->state;

	lockdep_assert_held(&l->lock);
	l->state = state;
	l->why = NULL;
	if (old == state)
		return;
	if (state == RBDT_LISTENER_COVERED)
		pr_info("rdma target on %pISpc: its connections come through the wildcard portal on its port\n",
			(struct sockaddr *)&l->addr);
	else if (old != RBDT_LISTENER_NEW)
		pr_info("rdma target on %pISpc is listening%s\n",
			(struct sockaddr *)&l->addr, l->lost ? " again" : "");
}

/* Not listening: say why once, and retry later. */
static void rbdt_listener_wait(struct rbdt_listener *l, const char *step,
			       int err)
{
	const char *why = rbdt_listen_cause(&l->addr, err);

	lockdep_assert_held(&l->lock);
	if (l->state != RBDT_LISTENER_WAITING || l->why != why)
		pr_warn("rdma target on %pISpc is waiting: %s failed (%d): %s; retrying every %d s\n",
			(struct sockaddr *)&l->addr, step, err, why,
			RBDT_LISTEN_RETRY_SECS);
	else
		pr_debug("re-creating rdma target on %pISpc: %s failed (%d)\n",
			 (struct sockaddr *)&l->addr, step, err);
	l->state = RBDT_LISTENER_WAITING;
	l->why = why;
	queue_delayed_work(rbdt_wq, &l->repair_work,
			   RBDT_LISTEN_RETRY_SECS * HZ);
}

/* Called from the CM handler; must not sleep for long or destroy ids. */
static void rbdt_listener_lost(struct rbdt_listener *l, const char *why)
{
	lockdep_assert_held(&l->lock);

	if (l->stopping || l->covered)
		return;
	if (!l->lost) {
		l->lost = true;
		pr_warn("rdma target on %pISpc lost (%s); re-creating it, retrying every %d s\n",
			(struct sockaddr *)&l->addr, why, RBDT_LISTEN_RETRY_SECS);
	}
	l->state = RBDT_LISTENER_WAITING;
	l->why = why;
	mod_delayed_work(rbdt_wq, &l->repair_work, 0);
}

/*
 * The listener's own id is a plain listener, with no connection state of
 * its own: DEVICE_REMOVAL and ADDR_CHANGE for it are handled here. New ids
 * of incoming connections inherit the listener as their context; once a
 * connection has a QP, its events go to rbdt_queue_cm_event().
 */
static int rbdt_cm_handler(struct rdma_cm_id *cm_id,
			   struct rdma_cm_event *event)
{
	struct rbdt_listener *l = cm_id->context;
	int ret = 0;

	if (cm_id->qp)
		return rbdt_queue_cm_event(cm_id, event);

	pr_debug("%pISpc: %s (%d), status %d\n", (struct sockaddr *)&l->addr,
		 rdma_event_msg(event->event), event->event, event->status);

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		ret = rbdt_connect_request(cm_id, event);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * Claim the id if it is still the published listener, and
		 * return 1 so that the CM destroys it: a listener kept after
		 * DEVICE_REMOVAL would block the device's unregistration.
		 * Once claimed, nobody else destroys it. If the repair or
		 * the release cleared @cm_id first, they own the id, and it
		 * must be left to them.
		 */
		mutex_lock(&l->lock);
		if (l->cm_id == cm_id) {
			l->cm_id = NULL;
			rbdt_listener_lost(l, "RDMA device removed");
			ret = 1;
		}
		mutex_unlock(&l->lock);
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/* The id cannot be destroyed here; the repair work does it. */
		mutex_lock(&l->lock);
		if (l->cm_id == cm_id)
			rbdt_listener_lost(l, "address changed");
		mutex_unlock(&l->lock);
		break;
	default:
		break;
	}

	return ret;
}

/*
 * Create, bind and start the listening id of @l, and publish it in
 * @l->cm_id. On failure *@step names the call that failed.
 *
 * The bind, listen and publish happen under @l->lock: from the bind on, the
 * id can get DEVICE_REMOVAL, and the handler must then find it published
 * in order to claim it; the handler waits for @l->lock meanwhile. For the
 * same reason, on failure the lock is dropped before the id is destroyed.
 *
 * Return: 0, -EALREADY if @l is stopping or covered by a wildcard, or the
 * errno of the failed call.
 */
static int rbdt_listener_open(struct rbdt_listener *l, const char **step)
{
	struct rdma_cm_id *cm_id;
	int ret;

	*step = "rdma_create_id";
	cm_id = rdma_create_id(&init_net, rbdt_cm_handler, l, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);

	/* IPv4 and IPv6 listeners on the same port are separate portals. */
	*step = "rdma_set_afonly";
	ret = rdma_set_afonly(cm_id, 1);
	if (ret)
		goto out_destroy_id;

	mutex_lock(&l->lock);
	if (l->stopping || l->covered) {
		*step = "listener setup";
		ret = -EALREADY;
		goto out_unlock;
	}

	*step = "rdma_bind_addr";
	ret = rdma_bind_addr(cm_id, (struct sockaddr *)&l->addr);
	if (ret)
		goto out_unlock;

	*step = "rdma_listen";
	ret = rdma_listen(cm_id, RBDT_LISTEN_BACKLOG);
	if (ret)
		goto out_unlock;

	l->cm_id = cm_id;
	rbdt_listener_set_state(l, RBDT_LISTENER_LISTENING);
	l->lost = false;
	mutex_unlock(&l->lock);
	return 0;

out_unlock:
	mutex_unlock(&l->lock);
out_destroy_id:
	rdma_destroy_id(cm_id);
	return ret;
}

static void rbdt_listener_repair_work(struct work_struct *work)
{
	struct rbdt_listener *l = container_of(to_delayed_work(work),
					       struct rbdt_listener,
					       repair_work);
	struct rdma_cm_id *old;
	const char *step;
	int ret;

	mutex_lock(&l->lock);
	old = l->cm_id;
	l->cm_id = NULL;
	mutex_unlock(&l->lock);
	if (old)
		rdma_destroy_id(old);

	ret = rbdt_listener_open(l, &step);
	if (!ret || ret == -EALREADY)
		return;

	mutex_lock(&l->lock);
	if (!l->stopping && !l->covered)
		rbdt_listener_wait(l, step, ret);
	mutex_unlock(&l->lock);
}

/* Hand the connections of @l to the wildcard listener on its port. */
static void rbdt_listener_cover(struct rbdt_listener *l)
{
	struct rdma_cm_id *old;

	mutex_lock(&l->lock);
	l->covered = true;
	old = l->cm_id;
	l->cm_id = NULL;
	rbdt_listener_set_state(l, RBDT_LISTENER_COVERED);
	l->lost = false;
	mutex_unlock(&l->lock);
	if (old)
		rdma_destroy_id(old);
}

/* The wildcard on the port of @l is gone: @l listens on its own again. */
static void rbdt_listener_uncover(struct rbdt_listener *l)
{
	mutex_lock(&l->lock);
	l->covered = false;
	l->state = RBDT_LISTENER_WAITING;
	l->why = "the wildcard portal on its port was removed";
	mod_delayed_work(rbdt_wq, &l->repair_work, 0);
	mutex_unlock(&l->lock);
}

/*
 * Cover (or uncover) the specific listeners on the port of the wildcard
 * listener @w. Covering destroys their ids, so that @w can bind the port.
 */
static void rbdt_port_cover(struct rbdt_listener *w, bool cover)
{
	struct rbdt_listener *l;

	lockdep_assert_held(&rbdt_listeners_mutex);
	list_for_each_entry(l, &rbdt_listeners, entry) {
		if (l == w || rbdt_addr_any(&l->addr) ||
		    !rbdt_addr_same_port(&l->addr, &w->addr))
			continue;
		if (cover)
			rbdt_listener_cover(l);
		else
			rbdt_listener_uncover(l);
	}
}

/* The wildcard listener on the port of @addr, if any. */
static struct rbdt_listener *
rbdt_wildcard_find(const struct sockaddr_storage *addr)
{
	struct rbdt_listener *l;

	lockdep_assert_held(&rbdt_listeners_mutex);
	list_for_each_entry(l, &rbdt_listeners, entry)
		if (rbdt_addr_any(&l->addr) &&
		    rbdt_addr_same_port(&l->addr, addr))
			return l;
	return NULL;
}

/*
 * Start the new listener @l, not on the list yet: listen, leave its
 * connections to the wildcard of its port, or wait for its address.
 * Return: 0, or the errno of a refusal, which is logged with its cause.
 */
static int rbdt_listener_start(struct rbdt_listener *l)
{
	bool any = rbdt_addr_any(&l->addr);
	const char *step;
	int ret;

	if (!any && rbdt_wildcard_find(&l->addr)) {
		rbdt_listener_cover(l);
		return 0;
	}
	if (any)
		rbdt_port_cover(l, true);

	ret = rbdt_listener_open(l, &step);
	if (!ret)
		return 0;
	if (rbdt_listen_can_wait(&l->addr, ret)) {
		mutex_lock(&l->lock);
		rbdt_listener_wait(l, step, ret);
		mutex_unlock(&l->lock);
		return 0;
	}

	pr_err("cannot listen on %pISpc: %s failed (%d): %s\n",
	       (struct sockaddr *)&l->addr, step, ret,
	       rbdt_listen_cause(&l->addr, ret));
	if (any)
		rbdt_port_cover(l, false);
	return ret;
}

static struct rbdt_listener *
rbdt_listener_alloc(const struct sockaddr_storage *addr)
{
	struct rbdt_listener *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return NULL;
	l->addr = *addr;
	kref_init(&l->ref);
	mutex_init(&l->lock);
	INIT_DELAYED_WORK(&l->repair_work, rbdt_listener_repair_work);
	INIT_LIST_HEAD(&l->np_list);
	return l;
}

/**
 * rbdt_listener_get() - find or create the listener for an address
 * @addr: Address and port, as filled in by rbdt_parse_portal().
 *
 * Logs "setting up rdma target on <addr>:<port>" when a new listener is
 * created, and then what it does: listen, leave its connections to the
 * wildcard portal of its port, wait for its address or RDMA device, or
 * nothing, with the cause, if it is refused.
 *
 * Context: Process context; takes mutexes and may sleep.
 * Return: A referenced listener, or an ERR_PTR: the errno of the failed
 * rdma_cm call, e.g. -EADDRINUSE or -EADDRNOTAVAIL, or -ENOMEM.
 */
struct rbdt_listener *rbdt_listener_get(const struct sockaddr_storage *addr)
{
	struct rbdt_listener *l;
	int ret;

	mutex_lock(&rbdt_listeners_mutex);
	list_for_each_entry(l, &rbdt_listeners, entry) {
		if (rbdt_addr_equal(&l->addr, addr)) {
			kref_get(&l->ref);
			pr_info("sharing rdma target on %pISpc\n",
				(struct sockaddr *)&l->addr);
			goto out_unlock;
		}
	}

	l = rbdt_listener_alloc(addr);
	if (!l) {
		l = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	pr_info("setting up rdma target on %pISpc\n",
		(struct sockaddr *)&l->addr);
	ret = rbdt_listener_start(l);
	if (ret) {
		mutex_destroy(&l->lock);
		kfree(l);
		l = ERR_PTR(ret);
		goto out_unlock;
	}
	list_add_tail(&l->entry, &rbdt_listeners);

out_unlock:
	mutex_unlock(&rbdt_listeners_mutex);
	return l;
}

/* Called with rbdt_listeners_mutex held, which no CM handler takes. */
static void rbdt_listener_release(struct kref *ref)
{
	struct rbdt_listener *l = container_of(ref, struct rbdt_listener, ref);
	struct rdma_cm_id *cm_id;

	list_del(&l->entry);

	mutex_lock(&l->lock);
	l->stopping = true;
	cm_id = l->cm_id;
	l->cm_id = NULL;
	mutex_unlock(&l->lock);

	/* With @stopping set, neither the handler nor the work requeues it. */
	cancel_delayed_work_sync(&l->repair_work);
	if (cm_id)
		rdma_destroy_id(cm_id);

	pr_info("stopped rdma target on %pISpc\n", (struct sockaddr *)&l->addr);
	if (rbdt_addr_any(&l->addr))
		rbdt_port_cover(l, false);
	mutex_destroy(&l->lock);
	kfree(l);
}

/**
 * rbdt_listener_put() - drop a reference taken by rbdt_listener_get()
 * @l: The listener.
 *
 * The last reference stops the listener: its id is destroyed, which waits
 * for running CM handlers, and its repair work is cancelled. The last
 * wildcard portal of a port hands the specific addresses on the port back
 * to their own listeners.
 *
 * Context: Process context; may sleep.
 */
void rbdt_listener_put(struct rbdt_listener *l)
{
	mutex_lock(&rbdt_listeners_mutex);
	kref_put(&l->ref, rbdt_listener_release);
	mutex_unlock(&rbdt_listeners_mutex);
}

/**
 * rbdt_listener_state_show() - show np/<portal>/state
 * @l: The portal's listener.
 * @page: The configfs page.
 *
 * Return: The length of "listening", "listening (through <wildcard>)" or
 * "waiting (<why>)", with a newline.
 */
ssize_t rbdt_listener_state_show(struct rbdt_listener *l, char *page)
{
	const char *any = l->addr.ss_family == AF_INET ? "0.0.0.0" : "[::]";
	ssize_t ret;

	mutex_lock(&l->lock);
	switch (l->state) {
	case RBDT_LISTENER_LISTENING:
		ret = sysfs_emit(page, "listening\n");
		break;
	case RBDT_LISTENER_COVERED:
		ret = sysfs_emit(page, "listening (through %s:%u)\n", any,
				 rbdt_addr_port(&l->addr));
		break;
	default:
		ret = sysfs_emit(page, "waiting (%s)\n", l->why ?: "starting");
		break;
	}
	mutex_unlock(&l->lock);
	return ret;
}

/* Lower *@total and *@per_host to the caps of the TPGs of @l's portals. */
static void rbdt_listener_caps_min(struct rbdt_listener *l, u32 *total,
				   u32 *per_host)
{
	struct rbdt_np *np;

	list_for_each_entry(np, &l->np_list, listener_entry) {
		*total = min(*total, READ_ONCE(np->tpg->attrib.max_halfopen));
		*per_host = min(*per_host,
				READ_ONCE(np->tpg->attrib.max_halfopen_per_host));
	}
}

/*
 * The caps on connections not logged in yet that the connect requests of
 * @l obey: the smallest of the TPGs whose connections its id takes, those
 * of its portals and, for a wildcard, of the portals it covers. A
 * connection names its target only in its LOGIN, so until then it may be
 * meant for any of them. The CM handler reads them without
 * rbdt_listeners_mutex, which it must not take.
 */
static void rbdt_listener_update_caps(struct rbdt_listener *l)
{
	u32 total = U32_MAX, per_host = U32_MAX;
	struct rbdt_listener *s;

	lockdep_assert_held(&rbdt_listeners_mutex);
	rbdt_listener_caps_min(l, &total, &per_host);
	if (rbdt_addr_any(&l->addr)) {
		list_for_each_entry(s, &rbdt_listeners, entry)
			if (s != l && rbdt_addr_same_port(&s->addr, &l->addr))
				rbdt_listener_caps_min(s, &total, &per_host);
	}
	if (total == U32_MAX) {
		total = 0;
		per_host = 0;
	}
	WRITE_ONCE(l->max_halfopen, total);
	WRITE_ONCE(l->max_halfopen_per_host, per_host);
}

/* @l's portals changed: update its caps and those of its wildcard. */
static void rbdt_port_update_caps(struct rbdt_listener *l)
{
	struct rbdt_listener *w = rbdt_wildcard_find(&l->addr);

	rbdt_listener_update_caps(l);
	if (w && w != l)
		rbdt_listener_update_caps(w);
}

/**
 * rbdt_listener_caps() - caps on connections not logged in yet
 * @cm_id: The new id of a CONNECT_REQUEST; its context is the listener,
 *	which its CM handler keeps alive.
 * @max_total: Filled in with the cap on such connections on the address.
 * @max_per_host: Filled in with the cap on those from one source address.
 */
void rbdt_listener_caps(struct rdma_cm_id *cm_id, u32 *max_total,
			u32 *max_per_host)
{
	struct rbdt_listener *l = cm_id->context;

	*max_total = READ_ONCE(l->max_halfopen);
	*max_per_host = READ_ONCE(l->max_halfopen_per_host);
}

/**
 * rbdt_tpg_caps_changed() - a TPG's connection caps were written
 * @tpg: The TPG.
 *
 * Context: Process context; takes rbdt_listeners_mutex and @tpg->lock.
 */
void rbdt_tpg_caps_changed(struct rbdt_tpg *tpg)
{
	struct rbdt_np *np;

	mutex_lock(&rbdt_listeners_mutex);
	mutex_lock(&tpg->lock);
	list_for_each_entry(np, &tpg->np_list, tpg_entry)
		rbdt_port_update_caps(np->listener);
	mutex_unlock(&tpg->lock);
	mutex_unlock(&rbdt_listeners_mutex);
}

/**
 * rbdt_listener_add_np() - record a portal that uses a listener
 * @l: The listener, referenced by @np.
 * @np: The portal.
 */
void rbdt_listener_add_np(struct rbdt_listener *l, struct rbdt_np *np)
{
	mutex_lock(&rbdt_listeners_mutex);
	list_add_tail(&np->listener_entry, &l->np_list);
	rbdt_port_update_caps(l);
	mutex_unlock(&rbdt_listeners_mutex);
}

/**
 * rbdt_listener_del_np() - forget a portal, before its reference is put
 * @l: The listener.
 * @np: The portal.
 */
void rbdt_listener_del_np(struct rbdt_listener *l, struct rbdt_np *np)
{
	mutex_lock(&rbdt_listeners_mutex);
	list_del(&np->listener_entry);
	rbdt_port_update_caps(l);
	mutex_unlock(&rbdt_listeners_mutex);
}

/**
 * rbdt_listeners_lock() - keep portals (and so their TPGs) from going away
 *
 * Held by a login from the TPG lookup until its session is on the TPG's
 * session list: a TPG is dropped only after its last portal, so it cannot
 * disappear under the login, and its drop finds the new session.
 */
void rbdt_listeners_lock(void)
{
	mutex_lock(&rbdt_listeners_mutex);
}

/**
 * rbdt_listeners_unlock() - undo rbdt_listeners_lock()
 */
void rbdt_listeners_unlock(void)
{
	mutex_unlock(&rbdt_listeners_mutex);
}

/* Whether @tpg has a portal covering @dst before @stop, in list order. */
static bool rbdt_tpg_seen(const struct sockaddr_storage *dst,
			  const struct rbdt_tpg *tpg,
			  const struct rbdt_np *stop)
{
	struct rbdt_listener *l;
	struct rbdt_np *np;

	list_for_each_entry(l, &rbdt_listeners, entry) {
		if (!rbdt_listener_covers(l, dst))
			continue;
		list_for_each_entry(np, &l->np_list, listener_entry) {
			if (np == stop)
				return false;
			if (np->tpg == tpg)
				return true;
		}
	}
	return false;
}

/**
 * rbdt_listener_tpg() - the TPGs a connection may reach, one by one
 * @dst: The address the connection came to (see rbdt_listener_addr()).
 * @i: Which one, from 0.
 *
 * The TPGs with a portal that covers @dst: a wildcard portal on its port,
 * or a portal on its address. Each TPG comes once.
 *
 * Context: rbdt_listeners_lock() held, which keeps the TPG alive.
 * Return: The @i-th TPG, or NULL after the last.
 */
struct rbdt_tpg *rbdt_listener_tpg(const struct sockaddr_storage *dst,
				   unsigned int i)
{
	struct rbdt_listener *l;
	struct rbdt_np *np;

	lockdep_assert_held(&rbdt_listeners_mutex);
	list_for_each_entry(l, &rbdt_listeners, entry) {
		if (!rbdt_listener_covers(l, dst))
			continue;
		list_for_each_entry(np, &l->np_list, listener_entry) {
			if (rbdt_tpg_seen(dst, np->tpg, np))
				continue;
			if (!i--)
				return np->tpg;
		}
	}
	return NULL;
}

/**
 * rbdt_listener_find_tpg() - the TPG of a target a connection may reach
 * @dst: The address the connection came to.
 * @target_name: Target name from the LOGIN.
 *
 * Context: rbdt_listeners_lock() held.
 * Return: The first TPG of @target_name with a portal covering @dst,
 * preferring an enabled one, or NULL.
 */
struct rbdt_tpg *rbdt_listener_find_tpg(const struct sockaddr_storage *dst,
					const char *target_name)
{
	struct rbdt_tpg *tpg, *found = NULL;
	unsigned int i;

	for (i = 0; (tpg = rbdt_listener_tpg(dst, i)); i++) {
		if (strcmp(tpg->tport->name, target_name))
			continue;
		if (READ_ONCE(tpg->enabled))
			return tpg;
		if (!found)
			found = tpg;
	}
	return found;
}

/**
 * rbdt_listener_addr() - the address a new connection came to
 * @cm_id: The new id of a CONNECT_REQUEST; its context is the listener.
 * @addr: Filled in with the connection's local address and the
 *	listener's port. Through a wildcard listener, that is the specific
 *	address the initiator connected to.
 */
void rbdt_listener_addr(struct rdma_cm_id *cm_id,
			struct sockaddr_storage *addr)
{
	struct rbdt_listener *l = cm_id->context;
	const struct sockaddr_storage *src = &cm_id->route.addr.src_addr;

	if (src->ss_family != l->addr.ss_family) {
		*addr = l->addr;
		return;
	}
	*addr = *src;
	if (addr->ss_family == AF_INET)
		((struct sockaddr_in *)addr)->sin_port =
			((struct sockaddr_in *)&l->addr)->sin_port;
	else
		((struct sockaddr_in6 *)addr)->sin6_port =
			((struct sockaddr_in6 *)&l->addr)->sin6_port;
}

/**
 * rbdt_cm_exit() - module exit check for the listeners
 *
 * Every portal pins the module through configfs, so none can remain when
 * the module goes; say so loudly if one did.
 */
void rbdt_cm_exit(void)
{
	WARN_ON(!list_empty(&rbdt_listeners));
}
