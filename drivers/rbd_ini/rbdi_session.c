// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the session object, its lifetime and its state.
 *
 * A session is created by mkdir in /sys/kernel/config/rbdi/ and deleted by
 * rmdir (rbdi_configfs.c). In between, writing 1 to its enable attribute
 * connects, logs in and creates the block device (rbdi_rdma.c,
 * rbdi_blk.c); writing 0, or rmdir, logs out and tears it all down.
 *
 * A lost connection (CM disconnect, a failed work completion, a bad
 * response, a timeout, an expired keep-alive) calls rbdi_sess_error(),
 * which moves a live session to reconnecting once and queues the error
 * work: quiesce the disk, disconnect and drain every queue, requeue the
 * requests in flight (SG_IO ones fail). The reconnect work then tries
 * every reconnect_delay seconds to connect and log in again (a new
 * session on the target); on success the queue is unquiesced and the
 * held requests run again. After ctrl_loss_tmo seconds it gives up: the
 * disk stays, failing I/O, until enable is written 0. After
 * fast_io_fail_tmo seconds (checked at each attempt) held and new I/O
 * fail while the attempts go on.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "rbdi.h"

static LIST_HEAD(rbdi_sessions);
static DEFINE_MUTEX(rbdi_sessions_mutex);
static struct ib_client rbdi_ib_client;

static const char * const rbdi_sess_state_names[] = {
	[RBDI_SESS_OFFLINE]		= "offline",
	[RBDI_SESS_CONNECTING]		= "connecting",
	[RBDI_SESS_LIVE]		= "live",
	[RBDI_SESS_RECONNECTING]	= "reconnecting",
	[RBDI_SESS_DELETING]		= "deleting",
};

/**
 * rbdi_sess_state_name() - the name the state attribute shows
 * @state: A session state.
 *
 * Return: A static string.
 */
const char *rbdi_sess_state_name(enum rbdi_sess_state state)
{
	if (state >= ARRAY_SIZE(rbdi_sess_state_names))
		return "unknown";
	return rbdi_sess_state_names[state];
}

/* Change the state; called with @sess->state_lock held. */
static void __rbdi_sess_set_state(struct rbdi_session *sess,
				  enum rbdi_sess_state state)
{
	lockdep_assert_held(&sess->state_lock);

	if (sess->state == state)
		return;
	pr_debug("session %s: %s -> %s\n", sess->name,
		 rbdi_sess_state_name(sess->state), rbdi_sess_state_name(state));
	WRITE_ONCE(sess->state, state);
}

/* Change the state; returns the previous one. */
static enum rbdi_sess_state rbdi_sess_set_state(struct rbdi_session *sess,
						enum rbdi_sess_state state)
{
	enum rbdi_sess_state old;
	unsigned long flags;

	spin_lock_irqsave(&sess->state_lock, flags);
	old = sess->state;
	__rbdi_sess_set_state(sess, state);
	spin_unlock_irqrestore(&sess->state_lock, flags);
	return old;
}

/**
 * rbdi_sess_error() - a connection of a session failed
 * @sess: The session.
 *
 * Starts the error recovery once if the session is live; otherwise the
 * code bringing the session up or down cleans up.
 *
 * Context: Any.
 */
void rbdi_sess_error(struct rbdi_session *sess)
{
	unsigned long flags;

	spin_lock_irqsave(&sess->state_lock, flags);
	if (sess->state == RBDI_SESS_LIVE) {
		__rbdi_sess_set_state(sess, RBDI_SESS_RECONNECTING);
		queue_work(rbdi_wq, &sess->err_work);
	}
	spin_unlock_irqrestore(&sess->state_lock, flags);
}

/*
 * Error recovery (nvme-rdma's model): hold the disk's queue, stop every
 * connection, and take back the requests in flight: requeued while a
 * reconnect is coming, failed otherwise (during bring-up or teardown, or
 * with ctrl_loss_tmo 0).
 */
static void rbdi_err_work(struct work_struct *work)
{
	struct rbdi_session *sess = container_of(work, struct rbdi_session,
						 err_work);
	bool reconnect;

	spin_lock_irq(&sess->state_lock);
	reconnect = sess->disk_added && !sess->deleting &&
		    sess->opts.ctrl_loss_tmo != 0;
	if (!reconnect)
		__rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
	spin_unlock_irq(&sess->state_lock);

	if (reconnect && !sess->quiesced) {
		blk_mq_quiesce_queue(sess->disk->queue);
		sess->quiesced = true;
	}
	rbdi_stop_queues(sess);
	rbdi_blk_cancel(sess, reconnect);
	if (!reconnect) {
		rbdi_sess_err(sess, "connection to %pISpc lost; failing I/O until enable is written 0\n",
			      &sess->dst);
		return;
	}
	sess->loss_time = jiffies;
	rbdi_stat_inc(sess, RBDI_STAT_CONN_LOSSES);
	rbdi_sess_err(sess, "connection to %pISpc lost; reconnecting every %u s\n",
		      &sess->dst, sess->opts.reconnect_delay);
	queue_delayed_work(rbdi_wq, &sess->reconnect_work,
			   sess->opts.reconnect_delay * HZ);
}

/*
 * Attempts begin reconnect_delay seconds apart; one that took that long
 * already is followed by the next at once.
 */
static void rbdi_next_attempt(struct rbdi_session *sess)
{
	unsigned long next = sess->attempt_start +
			     sess->opts.reconnect_delay * HZ;

	queue_delayed_work(rbdi_wq, &sess->reconnect_work,
			   time_after(next, jiffies) ? next - jiffies : 0);
}

static void rbdi_reconnect_work(struct work_struct *work)
{
	struct rbdi_session *sess = container_of(to_delayed_work(work),
						 struct rbdi_session,
						 reconnect_work);
	s32 tmo = sess->opts.ctrl_loss_tmo;
	s32 fail_tmo = sess->opts.fast_io_fail_tmo;
	bool live = false;
	int ret;

	if (READ_ONCE(sess->state) != RBDI_SESS_RECONNECTING)
		return;

	sess->attempt_start = jiffies;
	rbdi_free_queues(sess, false);
	/* Checks the grant against the disk's before any queue goes live. */
	ret = rbdi_connect(sess);
	if (!ret) {
		if (sess->quiesced)
			blk_mq_unquiesce_queue(sess->disk->queue);
		sess->quiesced = false;
		spin_lock_irq(&sess->state_lock);
		if (sess->state == RBDI_SESS_RECONNECTING) {
			__rbdi_sess_set_state(sess, RBDI_SESS_LIVE);
			live = true;
		}
		spin_unlock_irq(&sess->state_lock);
		blk_mq_kick_requeue_list(sess->disk->queue);
		rbdi_stat_inc(sess, RBDI_STAT_RECONNECTS);
		if (live)
			rbdi_sess_info(sess, "reconnected to %pISpc\n",
				       &sess->dst);
		return;
	}

	rbdi_stop_queues(sess);
	/* Only after fast_io_fail_tmo can requests have reached a queue. */
	rbdi_blk_cancel(sess, false);
	if (tmo >= 0 && time_after(jiffies, sess->loss_time + tmo * HZ)) {
		rbdi_sess_err(sess, "no connection to %pISpc for %d s (ctrl_loss_tmo); failing I/O until enable is written 0\n",
			      &sess->dst, tmo);
		rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
		if (sess->quiesced)
			blk_mq_unquiesce_queue(sess->disk->queue);
		sess->quiesced = false;
		blk_mq_kick_requeue_list(sess->disk->queue);
		return;
	}
	/* fast_io_fail_tmo: fail held and new I/O, keep reconnecting. */
	if (sess->quiesced && fail_tmo >= 0 &&
	    time_after_eq(jiffies, sess->loss_time + fail_tmo * HZ)) {
		rbdi_sess_err(sess, "no connection to %pISpc for %d s (fast_io_fail_tmo); failing I/O while reconnecting\n",
			      &sess->dst, fail_tmo);
		blk_mq_unquiesce_queue(sess->disk->queue);
		sess->quiesced = false;
		blk_mq_kick_requeue_list(sess->disk->queue);
	}
	rbdi_next_attempt(sess);
}

/**
 * rbdi_check_addr() - check an address literal for traddr or src_addr
 * @addr: NUL-terminated candidate.
 *
 * Accepts what inet_pton_with_scope() accepts: a dotted IPv4 address, or
 * an IPv6 address without brackets, with "%<interface>" as scope for a
 * link-local one.
 *
 * Return: NULL if valid, otherwise the reason why not.
 */
const char *rbdi_check_addr(const char *addr)
{
	struct sockaddr_storage ss = { };

	if (inet_pton_with_scope(&init_net, AF_UNSPEC, addr, NULL, &ss))
		return "not an IPv4 or IPv6 address literal (no brackets, no port)";
	return NULL;
}

/**
 * rbdi_sess_create() - allocate a session with the default configuration
 * @name: The configfs directory name, already validated.
 *
 * The caller initialises @group and owns the initial reference, which the
 * configfs release of @group drops.
 *
 * Context: Process context (configfs mkdir).
 * Return: The session or ERR_PTR(-ENOMEM).
 */
struct rbdi_session *rbdi_sess_create(const char *name)
{
	struct rbdi_session *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return ERR_PTR(-ENOMEM);
	sess->auth = kzalloc(sizeof(*sess->auth), GFP_KERNEL);
	if (!sess->auth || rbdi_blk_sess_init(sess)) {
		kfree(sess->auth);
		kfree(sess);
		return ERR_PTR(-ENOMEM);
	}

	kref_init(&sess->ref);
	strscpy(sess->name, name, sizeof(sess->name));
	mutex_init(&sess->lock);
	spin_lock_init(&sess->state_lock);
	spin_lock_init(&sess->ctrl_lock);
	init_completion(&sess->ctrl_done);
	INIT_WORK(&sess->err_work, rbdi_err_work);
	INIT_DELAYED_WORK(&sess->reconnect_work, rbdi_reconnect_work);
	INIT_DELAYED_WORK(&sess->ka_work, rbdi_ka_work);
	INIT_DELAYED_WORK(&sess->lost_work, rbdi_lost_work);
	sess->idx = -1;
	do {
		sess->instance = get_random_u64();
	} while (!sess->instance);
	sess->state = RBDI_SESS_OFFLINE;
	sess->opts = (struct rbdi_sess_opts) {
		.trsvcid		= RBD_DEFAULT_PORT,
		.lun			= 0,
		.nr_queues		= min_t(unsigned int, num_online_cpus(),
						RBD_MAX_NR_QUEUES),
		.queue_depth		= RBD_DEFAULT_QUEUE_DEPTH,
		.max_io_size		= RBD_DEFAULT_MAX_IO_BYTES,
		.inline_data_size	= RBD_DEFAULT_INLINE_WRITE,
		.imm_read_size		= RBD_DEFAULT_IMM_READ,
		.io_timeout		= 30,
		.reconnect_delay	= 10,
		.ctrl_loss_tmo		= 600,
		.fast_io_fail_tmo	= -1,
		.bare_reads		= 1,
		.rsp_batches		= 1,
	};

	rbdi_debugfs_add(sess);

	mutex_lock(&rbdi_sessions_mutex);
	list_add_tail(&sess->entry, &rbdi_sessions);
	mutex_unlock(&rbdi_sessions_mutex);

	return sess;
}

/**
 * rbdi_sess_delete() - take a session out of service before its rmdir
 *	completes
 * @sess: The session.
 *
 * Once connections exist, this is where they are torn down and the disk
 * deleted, synchronously. The memory stays until the last reference goes.
 *
 * Context: Process context (configfs rmdir).
 */
void rbdi_sess_delete(struct rbdi_session *sess)
{
	mutex_lock(&rbdi_sessions_mutex);
	list_del_init(&sess->entry);
	mutex_unlock(&rbdi_sessions_mutex);

	mutex_lock(&sess->lock);
	rbdi_sess_disable(sess);
	rbdi_sess_set_state(sess, RBDI_SESS_DELETING);
	mutex_unlock(&sess->lock);
	flush_work(&sess->err_work);
	/* Before the name can be reused by a new session. */
	debugfs_remove(sess->debugfs);
	sess->debugfs = NULL;
}

static void rbdi_sess_free(struct kref *ref)
{
	struct rbdi_session *sess = container_of(ref, struct rbdi_session, ref);

	mutex_destroy(&sess->lock);
	rbdi_blk_sess_free(sess);
	kfree_sensitive(sess->auth);
	kfree(sess);
}

/**
 * rbdi_sess_get() - take a reference on a session
 * @sess: The session.
 */
void rbdi_sess_get(struct rbdi_session *sess)
{
	kref_get(&sess->ref);
}

/**
 * rbdi_sess_put() - drop a reference on a session; the last one frees it
 * @sess: The session.
 */
void rbdi_sess_put(struct rbdi_session *sess)
{
	kref_put(&sess->ref, rbdi_sess_free);
}

/*
 * Checks that need more than one attribute, so that the attributes can be
 * written in any order. Each attribute's own range was checked when it
 * was written.
 */
static int rbdi_sess_check_config(struct rbdi_session *sess)
{
	const struct rbdi_sess_opts *o = &sess->opts;
	struct sockaddr_storage dst = { }, src = { };
	char port[8];

	lockdep_assert_held(&sess->lock);

	if (!o->traddr[0]) {
		rbdi_sess_err(sess, "cannot enable: traddr is not set\n");
		return -EINVAL;
	}
	if (!o->target[0]) {
		rbdi_sess_err(sess, "cannot enable: target is not set\n");
		return -EINVAL;
	}
	if (!o->initiator[0]) {
		rbdi_sess_err(sess, "cannot enable: initiator is not set (rbdadm sets it from /etc/rbd/initiatorname)\n");
		return -EINVAL;
	}
	if (rbdi_auth_check_config(sess))
		return -EINVAL;

	/* Parsed again: the interface named as IPv6 scope may be gone. */
	snprintf(port, sizeof(port), "%u", o->trsvcid);
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, o->traddr, port,
				 &dst)) {
		rbdi_sess_err(sess, "cannot enable: traddr '%s' is no longer a valid address\n",
			      o->traddr);
		return -EINVAL;
	}
	if (o->src_addr[0]) {
		if (inet_pton_with_scope(&init_net, AF_UNSPEC, o->src_addr,
					 NULL, &src)) {
			rbdi_sess_err(sess, "cannot enable: src_addr '%s' is no longer a valid address\n",
				      o->src_addr);
			return -EINVAL;
		}
		if (src.ss_family != dst.ss_family) {
			rbdi_sess_err(sess, "cannot enable: src_addr '%s' and traddr '%s' are of different address families\n",
				      o->src_addr, o->traddr);
			return -EINVAL;
		}
	}

	if (o->nr_queues + o->nr_poll_queues > RBD_MAX_NR_QUEUES) {
		rbdi_sess_err(sess, "cannot enable: nr_queues (%u) plus nr_poll_queues (%u) exceed %u\n",
			      o->nr_queues, o->nr_poll_queues, RBD_MAX_NR_QUEUES);
		return -EINVAL;
	}
	if (o->ctrl_loss_tmo >= 0 && o->fast_io_fail_tmo > o->ctrl_loss_tmo) {
		rbdi_sess_err(sess, "cannot enable: fast_io_fail_tmo (%d) exceeds ctrl_loss_tmo (%d); use -1 or a smaller value\n",
			      o->fast_io_fail_tmo, o->ctrl_loss_tmo);
		return -EINVAL;
	}

	sess->dst = dst;
	sess->src = src;
	sess->has_src = o->src_addr[0];

	return 0;
}

/*
 * Take down whatever rbdi_sess_enable() built, in reverse: delete the
 * disk (flushing it while the queues may still work), stop the error
 * recovery, log out, disconnect and drain, fail what is left, free.
 */
static void rbdi_sess_teardown(struct rbdi_session *sess)
{
	/* No more reconnects; a pending one gives up. */
	spin_lock_irq(&sess->state_lock);
	sess->deleting = true;
	if (sess->state == RBDI_SESS_RECONNECTING)
		__rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
	spin_unlock_irq(&sess->state_lock);
	cancel_work_sync(&sess->err_work);
	cancel_delayed_work_sync(&sess->reconnect_work);
	if (sess->quiesced) {
		/* Held requests now fail: no queue is live. */
		blk_mq_unquiesce_queue(sess->disk->queue);
		sess->quiesced = false;
		blk_mq_kick_requeue_list(sess->disk->queue);
	}
	/* A rescan in progress finishes, or fails on the dead queues. */
	rbdi_blk_stop_rescan(sess);

	rbdi_blk_del(sess);
	rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
	cancel_work_sync(&sess->err_work);
	rbdi_logout(sess);
	rbdi_stop_queues(sess);
	rbdi_blk_cancel(sess, false);
	rbdi_blk_free(sess);
	rbdi_free_queues(sess, true);
	sess->deleting = false;
}

/**
 * rbdi_sess_enable() - bring a session up (write 1 to enable)
 * @sess: The session, with @sess->lock held.
 *
 * Checks the configuration as a whole, connects queue 0, logs in,
 * connects the I/O queues and creates the disk. Returns only when the
 * disk exists, or after undoing everything.
 *
 * Return: 0, or a negative errno, logged: -EINVAL for a configuration
 * that cannot work, -ECONNREFUSED or -EACCES for a refused connection or
 * login, -ETIMEDOUT, -EHOSTUNREACH and others for connection problems.
 */
int rbdi_sess_enable(struct rbdi_session *sess)
{
	int ret;

	lockdep_assert_held(&sess->lock);

	ret = rbdi_sess_check_config(sess);
	if (ret)
		return ret;

	rbdi_sess_set_state(sess, RBDI_SESS_CONNECTING);
	ret = rbdi_connect(sess);
	if (ret)
		goto out_teardown;
	rbdi_sess_set_state(sess, RBDI_SESS_LIVE);
	ret = rbdi_blk_add(sess);
	if (ret)
		goto out_teardown;
	if (READ_ONCE(sess->state) != RBDI_SESS_LIVE) {
		rbdi_sess_err(sess, "connection lost while the disk was created\n");
		ret = -ECONNRESET;
		goto out_teardown;
	}
	WRITE_ONCE(sess->enabled, true);
	return 0;

out_teardown:
	rbdi_sess_teardown(sess);
	rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
	return ret;
}

/**
 * rbdi_sess_disable() - take a session down (write 0 to enable)
 * @sess: The session, with @sess->lock held.
 *
 * Deletes the disk, logs out and disconnects before it returns. Does
 * nothing for a disabled session.
 */
void rbdi_sess_disable(struct rbdi_session *sess)
{
	lockdep_assert_held(&sess->lock);

	if (!sess->enabled)
		return;
	rbdi_sess_teardown(sess);
	WRITE_ONCE(sess->enabled, false);
	rbdi_sess_set_state(sess, RBDI_SESS_OFFLINE);
	rbdi_sess_info(sess, "disabled\n");
}

/*
 * An RDMA device is going away. Everything of a session on it (QPs, CQs,
 * MRs, DMA mappings, the PD, the cm_ids) must be gone before this
 * returns, so the session is taken down like enable=0, disk included;
 * its directory stays and can be enabled again.
 */
static void rbdi_ib_remove(struct ib_device *device)
{
	struct rbdi_session *sess, **list;
	unsigned int n = 0, i;

	mutex_lock(&rbdi_sessions_mutex);
	list_for_each_entry(sess, &rbdi_sessions, entry)
		n++;
	list = kcalloc(n, sizeof(*list), GFP_KERNEL);
	n = 0;
	if (list) {
		list_for_each_entry(sess, &rbdi_sessions, entry) {
			rbdi_sess_get(sess);
			list[n++] = sess;
		}
	}
	mutex_unlock(&rbdi_sessions_mutex);

	for (i = 0; i < n; i++) {
		sess = list[i];
		mutex_lock(&sess->lock);
		if (sess->enabled && sess->ibdev == device) {
			rbdi_sess_err(sess, "RDMA device %s removed; disabling the session\n",
				      dev_name(&device->dev));
			rbdi_sess_disable(sess);
		}
		mutex_unlock(&sess->lock);
		rbdi_sess_put(sess);
	}
	kfree(list);
}

/*
 * A port came up: a session waiting for its next reconnect attempt tries
 * at once instead of after the rest of reconnect_delay, so it returns as
 * soon as its link does. Only a pending attempt is moved: the error work
 * queues the first one, and one that runs finishes on its own. Every
 * reconnecting session is kicked; one on another device makes an early
 * attempt, no more.
 */
static void rbdi_ib_event(struct ib_event_handler *handler,
			  struct ib_event *event)
{
	struct rbdi_session *sess;

	if (event->event != IB_EVENT_PORT_ACTIVE)
		return;
	mutex_lock(&rbdi_sessions_mutex);
	list_for_each_entry(sess, &rbdi_sessions, entry) {
		spin_lock_irq(&sess->state_lock);
		if (sess->state == RBDI_SESS_RECONNECTING &&
		    delayed_work_pending(&sess->reconnect_work))
			mod_delayed_work(rbdi_wq, &sess->reconnect_work, 0);
		spin_unlock_irq(&sess->state_lock);
	}
	mutex_unlock(&rbdi_sessions_mutex);
}

static int rbdi_ib_add(struct ib_device *device)
{
	struct ib_event_handler *handler;

	handler = kzalloc(sizeof(*handler), GFP_KERNEL);
	if (!handler)
		return -ENOMEM;
	INIT_IB_EVENT_HANDLER(handler, device, rbdi_ib_event);
	ib_register_event_handler(handler);
	ib_set_client_data(device, &rbdi_ib_client, handler);
	return 0;
}

static void rbdi_ib_remove_client(struct ib_device *device, void *client_data)
{
	struct ib_event_handler *handler = client_data;

	ib_unregister_event_handler(handler);
	kfree(handler);
	rbdi_ib_remove(device);
}

static struct ib_client rbdi_ib_client = {
	.name	= "rbdi",
	.add	= rbdi_ib_add,
	.remove	= rbdi_ib_remove_client,
};

/**
 * rbdi_sessions_init() - register for RDMA devices: their ports coming up
 * and their removal
 *
 * Return: 0 or the error of ib_register_client().
 */
int rbdi_sessions_init(void)
{
	int ret;

	ret = ib_register_client(&rbdi_ib_client);
	if (ret)
		pr_err("ib_register_client failed (%d)\n", ret);
	return ret;
}

/**
 * rbdi_sessions_exit() - module exit check for the sessions
 *
 * Every session directory pins the module through configfs, so none can
 * remain when the module goes; say so loudly if one did.
 */
void rbdi_sessions_exit(void)
{
	ib_unregister_client(&rbdi_ib_client);
	WARN_ON(!list_empty(&rbdi_sessions));
}
