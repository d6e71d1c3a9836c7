// SPDX-License-Identifier: GPL-2.0
/*
 * rbdi: the sysfs attributes of a disk, /sys/block/rbdiN/rbd/.
 *
 * rbdi_blk_add() adds them with the disk (rbdi_disk_groups): the LUN's
 * identification and the session's address, read-only, and rescan,
 * write-only, which resizes the disk (rbdi_blk_rescan(), rbdi_scsi.c).
 */

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "rbdi.h"

/*
 * /sys/block/rbdiN/rbd/: who the LUN is and where it is reached, for
 * udev rules (60-rbdi.rules) and multipathd. Read-only; the values do
 * not change while the disk exists. Beside them, write-only, rescan.
 */
#define RBDI_DISK_ATTR(_name, _fmt, _val)				\
static ssize_t rbdi_##_name##_show(struct device *dev,			\
				   struct device_attribute *attr,	\
				   char *buf)				\
{									\
	const struct rbdi_session *sess = dev_to_disk(dev)->private_data; \
									\
	return sysfs_emit(buf, _fmt "\n", _val);			\
}									\
static struct device_attribute rbdi_attr_##_name =			\
	__ATTR(_name, 0444, rbdi_##_name##_show, NULL)

RBDI_DISK_ATTR(wwid, "%s", sess->lun_info.wwid);
RBDI_DISK_ATTR(serial, "%s", sess->lun_info.serial);
RBDI_DISK_ATTR(vendor, "%s", sess->lun_info.vendor);
RBDI_DISK_ATTR(model, "%s", sess->lun_info.model);
RBDI_DISK_ATTR(rev, "%s", sess->lun_info.rev);
RBDI_DISK_ATTR(session, "%s", sess->name);
RBDI_DISK_ATTR(target, "%s", sess->opts.target);
RBDI_DISK_ATTR(lun, "%llu", sess->opts.lun);
RBDI_DISK_ATTR(traddr, "%s", sess->opts.traddr);
RBDI_DISK_ATTR(trsvcid, "%u", sess->opts.trsvcid);
RBDI_DISK_ATTR(initiator, "%s", sess->opts.initiator);

/*
 * rescan (write-only): writing 1 reads the capacity again and resizes
 * the disk, as a UNIT ATTENTION CAPACITY DATA HAS CHANGED does. LIO
 * never sends that one when a backstore grows.
 */
static ssize_t rbdi_rescan_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct rbdi_session *sess = dev_to_disk(dev)->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	if (READ_ONCE(sess->state) != RBDI_SESS_LIVE)
		return -ENOTCONN;
	ret = rbdi_blk_rescan(sess);
	return ret ? ret : count;
}

static struct device_attribute rbdi_attr_rescan =
	__ATTR(rescan, 0200, NULL, rbdi_rescan_store);

static struct attribute *rbdi_disk_attrs[] = {
	&rbdi_attr_wwid.attr,
	&rbdi_attr_serial.attr,
	&rbdi_attr_vendor.attr,
	&rbdi_attr_model.attr,
	&rbdi_attr_rev.attr,
	&rbdi_attr_session.attr,
	&rbdi_attr_target.attr,
	&rbdi_attr_lun.attr,
	&rbdi_attr_traddr.attr,
	&rbdi_attr_trsvcid.attr,
	&rbdi_attr_initiator.attr,
	&rbdi_attr_rescan.attr,
	NULL,
};

static const struct attribute_group rbdi_disk_group = {
	.name	= "rbd",
	.attrs	= rbdi_disk_attrs,
};

const struct attribute_group *rbdi_disk_groups[] = {
	&rbdi_disk_group,
	NULL,
};
