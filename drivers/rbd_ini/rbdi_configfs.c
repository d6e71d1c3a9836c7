// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the configfs interface, /sys/kernel/config/rbdi/.
 *
 *   /sys/kernel/config/rbdi/
 *	version			read-only, e.g. "rbdi 0.1.0 (protocol 1)"
 *	<session>/		mkdir creates a session, rmdir deletes it
 *
 * A session name is 1..64 characters of A-Z, a-z, 0-9, '.', '_' and '-',
 * starting with a letter or a digit. A session directory holds:
 *
 *   attribute         default        accepted values
 *   traddr            (unset)        IPv4 or IPv6 literal, no brackets;
 *                                    "fe80::1%eth0" for link-local
 *   trsvcid           65000          1..65535
 *   src_addr          (unset)        as traddr, same family; "" clears
 *   target            (unset)        target name (rbd_name.c formats)
 *   lun               0              0..18446744073709551615
 *   initiator         (unset)        initiator name (rbd_name.c formats)
 *   auth_user         (unset)        user name proved to the target: 1..255
 *                                    printable characters, no blanks
 *   auth_secret       (unset)        its secret, 12..255 bytes; write-only
 *   auth_mutual_user  (unset)        user name the target must prove
 *   auth_mutual_secret (unset)       its secret; write-only
 *   nr_queues         online CPUs,   1..64
 *                     at most 64
 *   nr_poll_queues    0              0..63; with nr_queues at most 64
 *   queue_depth       128            1..1024 (commands per queue)
 *   max_io_size       1048576        4096..16777216, a multiple of 4096
 *   inline_data_size  4096           0..16384 (bytes; 0 disables)
 *   imm_read_size     4096           0..16384 (bytes; 0 disables)
 *   io_timeout        30             1..3600 (seconds)
 *   reconnect_delay   10             1..3600 (seconds)
 *   ctrl_loss_tmo     600            -1 (forever) or 0..31536000 (seconds)
 *   fast_io_fail_tmo  -1             -1 (off) or 0..31536000 (seconds)
 *   bare_reads        1              0 or 1: offer bare read responses
 *   rsp_batches       1              0 or 1: offer response batches
 *   enable            0              0 or 1
 *   state             read-only: offline, connecting, live, reconnecting,
 *                     deleting
 *   device            read-only: block device name, empty while none
 *   granted_*         read-only: what the target granted (nr_queues,
 *                     nr_poll_queues, queue_depth, max_io_size,
 *                     inline_data_size, imm_read_size); 0 while no disk
 *
 * The values negotiated at login take the protocol's defaults and ranges
 * (RBD_DEFAULT_*, RBD_MIN_* and RBD_MAX_* in rbd_proto.h, trsvcid's
 * default too), except nr_queues' default, one queue per online CPU, and
 * the inline and immediate data sizes, capped at 16 KiB (rbd_limits.h
 * says why).
 *
 * There is deliberately no default for initiator. Reading
 * /etc/rbd/initiatorname is policy, and the kernel would have to read it
 * in whatever mount namespace the mkdir came from; so rbdadm reads the
 * file (its "InitiatorName=" line) and writes this attribute, and enable
 * refuses a session without one. Raw configfs users write it themselves.
 *
 * Every write is checked on its own: a bad value fails with -EINVAL and a
 * log line naming the session, the attribute and what is accepted.
 * Checks between attributes (traddr, target and initiator set; src_addr
 * in traddr's family; fast_io_fail_tmo not above ctrl_loss_tmo) are made
 * when 1 is written to enable, so attributes can be written in any order.
 * While a session is enabled its configuration is fixed, and writes fail
 * with -EBUSY. The session lock serialises all of this.
 *
 * configfs itself guarantees that show and store never run once rmdir
 * has started, and that the module stays loaded while a session
 * directory exists.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kstrtox.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "rbd_limits.h"
#include "rbdi.h"

/* How much of a rejected value or name a log line quotes. */
#define RBDI_LOG_QUOTE_MAX	256

/* Upper bound for the loss timeouts: a year; -1 means "forever". */
#define RBDI_TMO_MAX		(365 * 24 * 3600)

static int rbdi_quote_len(const char *s)
{
	return min_t(size_t, strcspn(s, "\n"), RBDI_LOG_QUOTE_MAX);
}

static inline struct rbdi_session *to_rbdi_sess(struct config_item *item)
{
	return container_of(to_config_group(item), struct rbdi_session, group);
}

/* Subsystem root: /sys/kernel/config/rbdi/version */

static ssize_t rbdi_subsys_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", RBDI_VERSION_STRING);
}

CONFIGFS_ATTR_RO(rbdi_subsys_, version);

static struct configfs_attribute *rbdi_subsys_attrs[] = {
	&rbdi_subsys_attr_version,
	NULL,
};

/* Session attributes */

/* Called with sess->lock held, before changing any configuration. */
static int rbdi_sess_check_idle(struct rbdi_session *sess, const char *attr)
{
	lockdep_assert_held(&sess->lock);

	if (sess->enabled) {
		rbdi_sess_err(sess, "cannot change %s while the session is enabled; write 0 to enable first\n",
			      attr);
		return -EBUSY;
	}
	return 0;
}

/**
 * struct rbdi_int_range - the values a numeric session attribute accepts
 * @name: Attribute name, for log messages.
 * @min: Smallest value.
 * @max: Largest value.
 * @align: The value must be a multiple of this, or 0 for no constraint.
 * @minus_one: -1 is accepted as well (meaning "off" or "forever").
 */
struct rbdi_int_range {
	const char *name;
	long long min;
	long long max;
	unsigned int align;
	bool minus_one;
};

static int rbdi_sess_parse_int(struct rbdi_session *sess,
			       const struct rbdi_int_range *range,
			       const char *page, long long *val)
{
	if (kstrtoll(page, 10, val))
		goto out_invalid;
	if (range->minus_one && *val == -1)
		return 0;
	if (*val < range->min || *val > range->max)
		goto out_invalid;
	if (range->align && *val % range->align)
		goto out_invalid;
	return 0;

out_invalid:
	if (range->minus_one)
		rbdi_sess_err(sess, "%s: invalid value '%*pE' (allowed: -1 or %lld..%lld)\n",
			      range->name, rbdi_quote_len(page), page,
			      range->min, range->max);
	else if (range->align)
		rbdi_sess_err(sess, "%s: invalid value '%*pE' (allowed: %lld..%lld, a multiple of %u)\n",
			      range->name, rbdi_quote_len(page), page,
			      range->min, range->max, range->align);
	else
		rbdi_sess_err(sess, "%s: invalid value '%*pE' (allowed: %lld..%lld)\n",
			      range->name, rbdi_quote_len(page), page,
			      range->min, range->max);
	return -EINVAL;
}

/*
 * Show and store methods for a numeric attribute backed by
 * sess->opts._field, of the given type (u16, u32 or s32), which holds
 * the whole range the parser enforces. CONFIGFS_ATTR() follows each use.
 */
#define RBDI_SESS_INT_ATTR(type, _field, _min, _max, _align, _minus_one) \
static type *rbdi_sess_##_field##_ptr(struct rbdi_session *sess)	\
{									\
	return &sess->opts._field;					\
}									\
									\
static ssize_t rbdi_sess_##_field##_show(struct config_item *item,	\
					 char *page)			\
{									\
	struct rbdi_session *sess = to_rbdi_sess(item);			\
	long long val;							\
									\
	mutex_lock(&sess->lock);					\
	val = *rbdi_sess_##_field##_ptr(sess);				\
	mutex_unlock(&sess->lock);					\
	return sysfs_emit(page, "%lld\n", val);				\
}									\
									\
static ssize_t rbdi_sess_##_field##_store(struct config_item *item,	\
					  const char *page,		\
					  size_t count)			\
{									\
	static const struct rbdi_int_range range = {			\
		.name = #_field, .min = _min, .max = _max,		\
		.align = _align, .minus_one = _minus_one,		\
	};								\
	struct rbdi_session *sess = to_rbdi_sess(item);			\
	long long val;							\
	int ret;							\
									\
	ret = rbdi_sess_parse_int(sess, &range, page, &val);		\
	if (ret)							\
		return ret;						\
	mutex_lock(&sess->lock);					\
	ret = rbdi_sess_check_idle(sess, #_field);			\
	if (!ret)							\
		*rbdi_sess_##_field##_ptr(sess) = val;			\
	mutex_unlock(&sess->lock);					\
	if (ret)							\
		return ret;						\
	return count;							\
}

RBDI_SESS_INT_ATTR(u16, trsvcid, 1, U16_MAX, 0, false);
CONFIGFS_ATTR(rbdi_sess_, trsvcid);
RBDI_SESS_INT_ATTR(u32, nr_queues, RBD_MIN_NR_QUEUES, RBD_MAX_NR_QUEUES, 0,
		   false);
CONFIGFS_ATTR(rbdi_sess_, nr_queues);
RBDI_SESS_INT_ATTR(u32, nr_poll_queues, 0, RBD_MAX_NR_QUEUES - 1, 0, false);
CONFIGFS_ATTR(rbdi_sess_, nr_poll_queues);
RBDI_SESS_INT_ATTR(u32, queue_depth, RBD_MIN_QUEUE_DEPTH, RBD_MAX_QUEUE_DEPTH,
		   0, false);
CONFIGFS_ATTR(rbdi_sess_, queue_depth);
RBDI_SESS_INT_ATTR(u32, max_io_size, RBD_MIN_IO_BYTES, RBD_MAX_IO_BYTES,
		   RBD_IO_BYTES_ALIGN, false);
CONFIGFS_ATTR(rbdi_sess_, max_io_size);
RBDI_SESS_INT_ATTR(u32, inline_data_size, 0, RBD_CFS_MAX_INLINE_WRITE, 0,
		   false);
CONFIGFS_ATTR(rbdi_sess_, inline_data_size);
RBDI_SESS_INT_ATTR(u32, imm_read_size, 0, RBD_CFS_MAX_IMM_READ, 0, false);
CONFIGFS_ATTR(rbdi_sess_, imm_read_size);
RBDI_SESS_INT_ATTR(u32, io_timeout, 1, 3600, 0, false);
CONFIGFS_ATTR(rbdi_sess_, io_timeout);
RBDI_SESS_INT_ATTR(u32, reconnect_delay, 1, 3600, 0, false);
CONFIGFS_ATTR(rbdi_sess_, reconnect_delay);
RBDI_SESS_INT_ATTR(s32, ctrl_loss_tmo, 0, RBDI_TMO_MAX, 0, true);
CONFIGFS_ATTR(rbdi_sess_, ctrl_loss_tmo);
RBDI_SESS_INT_ATTR(s32, fast_io_fail_tmo, 0, RBDI_TMO_MAX, 0, true);
CONFIGFS_ATTR(rbdi_sess_, fast_io_fail_tmo);
RBDI_SESS_INT_ATTR(u32, bare_reads, 0, 1, 0, false);
CONFIGFS_ATTR(rbdi_sess_, bare_reads);
RBDI_SESS_INT_ATTR(u32, rsp_batches, 0, 1, 0, false);
CONFIGFS_ATTR(rbdi_sess_, rsp_batches);

/* lun spans all of u64, beyond what the signed parser above can hold. */
static ssize_t rbdi_sess_lun_show(struct config_item *item, char *page)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	u64 lun;

	mutex_lock(&sess->lock);
	lun = sess->opts.lun;
	mutex_unlock(&sess->lock);
	return sysfs_emit(page, "%llu\n", lun);
}

static ssize_t rbdi_sess_lun_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	u64 lun;
	int ret;

	if (kstrtou64(page, 10, &lun)) {
		rbdi_sess_err(sess, "lun: invalid value '%*pE' (allowed: 0..%llu)\n",
			      rbdi_quote_len(page), page, U64_MAX);
		return -EINVAL;
	}

	mutex_lock(&sess->lock);
	ret = rbdi_sess_check_idle(sess, "lun");
	if (!ret)
		sess->opts.lun = lun;
	mutex_unlock(&sess->lock);
	if (ret)
		return ret;
	return count;
}

CONFIGFS_ATTR(rbdi_sess_, lun);

/*
 * A string attribute: one line, without the trailing newline; writing an
 * empty line unsets it. @check, if given, validates a non-empty value.
 */
static ssize_t rbdi_sess_store_str(struct rbdi_session *sess,
				   const char *attr, char *dst,
				   const char *page, size_t count,
				   const char *(*check)(const char *))
{
	char buf[RBDI_STR_SIZE];
	const char *reason;
	size_t len;
	int ret;

	len = strcspn(page, "\n");
	if (page[len] == '\n' && page[len + 1] != '\0') {
		rbdi_sess_err(sess, "%s: invalid value: only one line is accepted\n",
			      attr);
		return -EINVAL;
	}
	if (len >= sizeof(buf)) {
		rbdi_sess_err(sess, "%s: invalid value: longer than %zu bytes\n",
			      attr, sizeof(buf) - 1);
		return -EINVAL;
	}
	memcpy(buf, page, len);
	buf[len] = '\0';

	reason = len && check ? check(buf) : NULL;
	if (reason) {
		rbdi_sess_err(sess, "%s: invalid value '%*pE': %s\n", attr,
			      rbdi_quote_len(page), page, reason);
		return -EINVAL;
	}

	mutex_lock(&sess->lock);
	ret = rbdi_sess_check_idle(sess, attr);
	if (!ret)
		strscpy(dst, buf, RBDI_STR_SIZE);
	mutex_unlock(&sess->lock);
	if (ret)
		return ret;
	return count;
}

/*
 * Show and store methods for a string attribute backed by
 * sess->opts._field (RBDI_STR_SIZE bytes, asserted in rbdi.h), validated
 * by _check. CONFIGFS_ATTR() follows each use.
 */
#define RBDI_SESS_STR_ATTR(_field, _check)				\
static char *rbdi_sess_##_field##_str(struct rbdi_session *sess)	\
{									\
	return sess->opts._field;					\
}									\
									\
static ssize_t rbdi_sess_##_field##_show(struct config_item *item,	\
					 char *page)			\
{									\
	struct rbdi_session *sess = to_rbdi_sess(item);			\
	ssize_t ret;							\
									\
	mutex_lock(&sess->lock);					\
	ret = sysfs_emit(page, "%s\n", rbdi_sess_##_field##_str(sess));	\
	mutex_unlock(&sess->lock);					\
	return ret;							\
}									\
									\
static ssize_t rbdi_sess_##_field##_store(struct config_item *item,	\
					  const char *page,		\
					  size_t count)			\
{									\
	struct rbdi_session *sess = to_rbdi_sess(item);			\
									\
	return rbdi_sess_store_str(sess, #_field,			\
				   rbdi_sess_##_field##_str(sess),	\
				   page, count, _check);		\
}

RBDI_SESS_STR_ATTR(traddr, rbdi_check_addr);
CONFIGFS_ATTR(rbdi_sess_, traddr);
RBDI_SESS_STR_ATTR(src_addr, rbdi_check_addr);
CONFIGFS_ATTR(rbdi_sess_, src_addr);
RBDI_SESS_STR_ATTR(target, rbd_name_check);
CONFIGFS_ATTR(rbdi_sess_, target);
RBDI_SESS_STR_ATTR(initiator, rbd_name_check);
CONFIGFS_ATTR(rbdi_sess_, initiator);

/*
 * Credentials (rbdi_auth.c). User names read back; secrets are write-only
 * (mode 0200, no show) and never logged. "" or "\n" clears either.
 */
static ssize_t rbdi_sess_auth_store(struct config_item *item,
				    const char *attr, const char *page,
				    size_t count, bool mutual, bool secret)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	struct rbd_auth_secret *dst, *tmp;
	int ret;

	tmp = kzalloc(sizeof(*tmp), GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	if (secret)
		ret = rbd_auth_parse_key(page, count, tmp->key, &tmp->key_len);
	else
		ret = rbd_auth_parse_user(page, count, tmp->user);
	if (ret) {
		if (secret)
			rbdi_sess_err(sess, "%s: invalid value: %u to %u bytes are needed\n",
				      attr, RBD_AUTH_SECRET_MIN,
				      RBD_AUTH_SECRET_MAX);
		else
			/* Not quoted: it may be a secret in the wrong file. */
			rbdi_sess_err(sess, "%s: invalid value of %zu bytes: 1 to %u printable characters without blanks\n",
				      attr, count, RBD_AUTH_USER_LEN - 1);
		goto out;
	}
	mutex_lock(&sess->lock);
	ret = rbdi_sess_check_idle(sess, attr);
	if (!ret) {
		dst = mutual ? &sess->auth->tgt : &sess->auth->ini;
		if (secret) {
			memcpy(dst->key, tmp->key, sizeof(dst->key));
			dst->key_len = tmp->key_len;
		} else {
			memcpy(dst->user, tmp->user, sizeof(dst->user));
		}
	}
	mutex_unlock(&sess->lock);
	if (!ret)
		ret = count;
out:
	kfree_sensitive(tmp);
	return ret;
}

static ssize_t rbdi_sess_auth_show(struct config_item *item, char *page,
				   bool mutual)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	ssize_t ret;

	mutex_lock(&sess->lock);
	ret = sysfs_emit(page, "%s\n", mutual ? sess->auth->tgt.user :
						sess->auth->ini.user);
	mutex_unlock(&sess->lock);
	return ret;
}

static ssize_t rbdi_sess_auth_user_show(struct config_item *item, char *page)
{
	return rbdi_sess_auth_show(item, page, false);
}

static ssize_t rbdi_sess_auth_user_store(struct config_item *item,
					 const char *page, size_t count)
{
	return rbdi_sess_auth_store(item, "auth_user", page, count, false,
				    false);
}
CONFIGFS_ATTR(rbdi_sess_, auth_user);

static ssize_t rbdi_sess_auth_mutual_user_show(struct config_item *item,
					       char *page)
{
	return rbdi_sess_auth_show(item, page, true);
}

static ssize_t rbdi_sess_auth_mutual_user_store(struct config_item *item,
						const char *page, size_t count)
{
	return rbdi_sess_auth_store(item, "auth_mutual_user", page, count,
				    true, false);
}
CONFIGFS_ATTR(rbdi_sess_, auth_mutual_user);

static ssize_t rbdi_sess_auth_secret_store(struct config_item *item,
					   const char *page, size_t count)
{
	return rbdi_sess_auth_store(item, "auth_secret", page, count, false,
				    true);
}
CONFIGFS_ATTR_WO(rbdi_sess_, auth_secret);

static ssize_t rbdi_sess_auth_mutual_secret_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	return rbdi_sess_auth_store(item, "auth_mutual_secret", page, count,
				    true, true);
}
CONFIGFS_ATTR_WO(rbdi_sess_, auth_mutual_secret);

static ssize_t rbdi_sess_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_rbdi_sess(item)->enabled));
}

/**
 * rbdi_sess_set_last_error() - record why logging in failed
 * @sess: the session.
 * @why: a short reason, such as rbd_reject_str()'s; "" clears it.
 *
 * The reason is readable in the session's last_error attribute, so that
 * tools can tell the user more than an errno.
 */
void rbdi_sess_set_last_error(struct rbdi_session *sess, const char *why)
{
	unsigned long flags;

	spin_lock_irqsave(&sess->state_lock, flags);
	strscpy(sess->last_error, why, sizeof(sess->last_error));
	spin_unlock_irqrestore(&sess->state_lock, flags);
}

/* After a failed enable: a reason from the errno unless one is recorded. */
static void rbdi_sess_set_last_error_errno(struct rbdi_session *sess, int err)
{
	unsigned long flags;
	const char *why;
	bool empty;

	spin_lock_irqsave(&sess->state_lock, flags);
	empty = !sess->last_error[0];
	spin_unlock_irqrestore(&sess->state_lock, flags);
	if (!empty)
		return;
	switch (err) {
	case -ETIMEDOUT:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -EADDRNOTAVAIL:
	case -ENODEV:
		why = "address unreachable";
		break;
	case -ECONNREFUSED:
		why = "connection refused: no rbd portal at that address and port";
		break;
	case -EPROTO:
		why = "protocol error";
		break;
	case -ENOMEM:
		why = "out of memory";
		break;
	case -EINVAL:
		why = "invalid configuration";
		break;
	default:
		why = "login failed";
		break;
	}
	rbdi_sess_set_last_error(sess, why);
}

static ssize_t rbdi_sess_enable_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	bool enable;
	int ret = 0;

	if (kstrtobool(page, &enable)) {
		rbdi_sess_err(sess, "enable: invalid value '%*pE' (allowed: 0 or 1)\n",
			      rbdi_quote_len(page), page);
		return -EINVAL;
	}

	mutex_lock(&sess->lock);
	if (enable && !sess->enabled) {
		rbdi_sess_set_last_error(sess, "");
		ret = rbdi_sess_enable(sess);
		if (ret)
			rbdi_sess_set_last_error_errno(sess, ret);
	} else if (!enable) {
		rbdi_sess_disable(sess);
	}
	mutex_unlock(&sess->lock);
	if (ret)
		return ret;
	return count;
}

CONFIGFS_ATTR(rbdi_sess_, enable);

static ssize_t rbdi_sess_state_show(struct config_item *item, char *page)
{
	struct rbdi_session *sess = to_rbdi_sess(item);

	return sysfs_emit(page, "%s\n",
			  rbdi_sess_state_name(READ_ONCE(sess->state)));
}

CONFIGFS_ATTR_RO(rbdi_sess_, state);

static ssize_t rbdi_sess_device_show(struct config_item *item, char *page)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	ssize_t ret;

	mutex_lock(&sess->lock);
	ret = sysfs_emit(page, "%s\n", sess->disk_name);
	mutex_unlock(&sess->lock);
	return ret;
}

CONFIGFS_ATTR_RO(rbdi_sess_, device);

/*
 * What the target granted at the login that created the disk; a
 * reconnect must get the same grant, but for the inline and immediate
 * sizes, of which it uses no more than these. 0 while there is no disk.
 */
#define RBDI_SESS_GRANT_ATTR(_name, _expr)				\
static ssize_t rbdi_sess_granted_##_name##_show(struct config_item *item, \
						 char *page)		\
{									\
	struct rbdi_session *sess = to_rbdi_sess(item);			\
	const struct rbd_login_rsp *g __maybe_unused = &sess->tag_rsp;	\
	unsigned long long v;						\
									\
	mutex_lock(&sess->lock);					\
	v = sess->disk_added ? (_expr) : 0;				\
	mutex_unlock(&sess->lock);					\
	return sysfs_emit(page, "%llu\n", v);				\
}									\
CONFIGFS_ATTR_RO(rbdi_sess_, granted_##_name)

RBDI_SESS_GRANT_ATTR(nr_queues, le16_to_cpu(g->nr_queues));
RBDI_SESS_GRANT_ATTR(nr_poll_queues, sess->nr_poll);
RBDI_SESS_GRANT_ATTR(queue_depth, le16_to_cpu(g->queue_depth));
RBDI_SESS_GRANT_ATTR(max_io_size, le32_to_cpu(g->max_io_bytes));
RBDI_SESS_GRANT_ATTR(inline_data_size, le32_to_cpu(g->inline_write_size));
RBDI_SESS_GRANT_ATTR(imm_read_size, le32_to_cpu(g->imm_read_size));

static ssize_t rbdi_sess_last_error_show(struct config_item *item, char *page)
{
	struct rbdi_session *sess = to_rbdi_sess(item);
	char why[sizeof(sess->last_error)];
	unsigned long flags;

	spin_lock_irqsave(&sess->state_lock, flags);
	memcpy(why, sess->last_error, sizeof(why));
	spin_unlock_irqrestore(&sess->state_lock, flags);
	return sysfs_emit(page, "%s\n", why);
}

CONFIGFS_ATTR_RO(rbdi_sess_, last_error);

static struct configfs_attribute *rbdi_sess_attrs[] = {
	&rbdi_sess_attr_last_error,
	&rbdi_sess_attr_traddr,
	&rbdi_sess_attr_trsvcid,
	&rbdi_sess_attr_src_addr,
	&rbdi_sess_attr_target,
	&rbdi_sess_attr_lun,
	&rbdi_sess_attr_initiator,
	&rbdi_sess_attr_auth_user,
	&rbdi_sess_attr_auth_secret,
	&rbdi_sess_attr_auth_mutual_user,
	&rbdi_sess_attr_auth_mutual_secret,
	&rbdi_sess_attr_nr_queues,
	&rbdi_sess_attr_nr_poll_queues,
	&rbdi_sess_attr_queue_depth,
	&rbdi_sess_attr_max_io_size,
	&rbdi_sess_attr_inline_data_size,
	&rbdi_sess_attr_imm_read_size,
	&rbdi_sess_attr_io_timeout,
	&rbdi_sess_attr_reconnect_delay,
	&rbdi_sess_attr_ctrl_loss_tmo,
	&rbdi_sess_attr_fast_io_fail_tmo,
	&rbdi_sess_attr_bare_reads,
	&rbdi_sess_attr_rsp_batches,
	&rbdi_sess_attr_enable,
	&rbdi_sess_attr_state,
	&rbdi_sess_attr_device,
	&rbdi_sess_attr_granted_nr_queues,
	&rbdi_sess_attr_granted_nr_poll_queues,
	&rbdi_sess_attr_granted_queue_depth,
	&rbdi_sess_attr_granted_max_io_size,
	&rbdi_sess_attr_granted_inline_data_size,
	&rbdi_sess_attr_granted_imm_read_size,
	NULL,
};

/* The last reference of the directory is gone; the session may outlive it. */
static void rbdi_sess_release(struct config_item *item)
{
	rbdi_sess_put(to_rbdi_sess(item));
}

static struct configfs_item_operations rbdi_sess_item_ops = {
	.release	= rbdi_sess_release,
};

static const struct config_item_type rbdi_sess_type = {
	.ct_item_ops	= &rbdi_sess_item_ops,
	.ct_attrs	= rbdi_sess_attrs,
	.ct_owner	= THIS_MODULE,
};

/* Session directories */

static bool rbdi_sess_name_valid(const char *name)
{
	size_t len = strlen(name);
	size_t i;

	if (len == 0 || len > RBDI_SESS_NAME_MAX || !isalnum(name[0]))
		return false;
	for (i = 0; i < len; i++) {
		if (!isascii(name[i]))
			return false;
		if (!isalnum(name[i]) && name[i] != '.' && name[i] != '_' &&
		    name[i] != '-')
			return false;
	}
	return true;
}

/* mkdir, under configfs' subsystem mutex: allocate only, never connect. */
static struct config_group *rbdi_sess_make_group(struct config_group *group,
						 const char *name)
{
	struct rbdi_session *sess;

	if (!rbdi_sess_name_valid(name)) {
		pr_err("rejected session name '%*pE': use 1..%d characters of A-Z, a-z, 0-9, '.', '_' and '-', starting with a letter or digit\n",
		       rbdi_quote_len(name), name, RBDI_SESS_NAME_MAX);
		return ERR_PTR(-EINVAL);
	}

	sess = rbdi_sess_create(name);
	if (IS_ERR(sess))
		return ERR_CAST(sess);

	config_group_init_type_name(&sess->group, name, &rbdi_sess_type);
	return &sess->group;
}

/* rmdir: take the session down, then drop the directory's reference. */
static void rbdi_sess_drop_item(struct config_group *group,
				struct config_item *item)
{
	rbdi_sess_delete(to_rbdi_sess(item));
	config_item_put(item);
}

static struct configfs_group_operations rbdi_subsys_group_ops = {
	.make_group	= rbdi_sess_make_group,
	.drop_item	= rbdi_sess_drop_item,
};

static const struct config_item_type rbdi_subsys_type = {
	.ct_group_ops	= &rbdi_subsys_group_ops,
	.ct_attrs	= rbdi_subsys_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem rbdi_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "rbdi",
			.ci_type	= &rbdi_subsys_type,
		},
	},
};

/**
 * rbdi_configfs_init() - register /sys/kernel/config/rbdi
 *
 * Return: 0 or the negative errno of configfs_register_subsystem().
 */
int rbdi_configfs_init(void)
{
	int ret;

	config_group_init(&rbdi_subsys.su_group);
	mutex_init(&rbdi_subsys.su_mutex);

	ret = configfs_register_subsystem(&rbdi_subsys);
	if (ret)
		pr_err("configfs_register_subsystem failed (%d)\n", ret);
	return ret;
}

/**
 * rbdi_configfs_exit() - unregister /sys/kernel/config/rbdi
 *
 * No session directory can exist here: each one pins the module.
 */
void rbdi_configfs_exit(void)
{
	configfs_unregister_subsystem(&rbdi_subsys);
}
