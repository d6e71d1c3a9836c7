#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a test guest, started by the initramfs after switch_root into
# the overlay of the host's root. Reads /mnt/rbd-out/run.conf (written by
# tests/check on the host), prepares the system the way the tests expect
# it, runs the guest runner and powers off. It must never exit: PID 1
# exiting panics the kernel.

OUT=/mnt/rbd-out

finish() {
	sync
	echo "<5>rbd-guest: powering off" > /dev/kmsg
	poweroff -f
	sleep 60
}
trap finish EXIT

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
# devtmpfs has no /dev/fd; bash process substitution needs it.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

conf=run.conf
for arg in $(cat /proc/cmdline); do
	case "$arg" in rbd.conf=*) conf=${arg#rbd.conf=} ;; esac
done
# shellcheck source=/dev/null
. "$OUT/$conf" || { echo "<3>rbd-guest: no $conf" > /dev/kmsg; exit 1; }

# Fresh, empty /tmp, /run and /var/tmp (the host's copies hold its own
# pid files and sockets), except where the tree under test lives there:
# hiding it would hide the tests.
for d in /tmp /run /var/tmp; do
	case "$RBD_REPO/" in "$d"/*) continue ;; esac
	mount -t tmpfs -o mode=1777 tmpfs "$d"
done
chmod 755 /run

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
hostname "${RBD_HOSTNAME:-rbd-guest}"
ip link set lo up

# Make the freshly built modules (ours, siw, test helpers) loadable with
# modprobe, as after "make install"; the host ran depmod for us.
# A kernel of our own (RBD_KERNEL) or one unpacked outside /boot
# (RBD_KROOT) has no /lib/modules entry on the host:
# its module tree comes whole from the host's (symbolic links into the
# kernel's cache directory).
kver=$(uname -r)
if [ -d "/lib/modules/$kver" ]; then
	cp -r "$RBD_MODROOT/lib/modules/$kver/extra" "/lib/modules/$kver/"
	[ ! -d "$RBD_MODROOT/lib/modules/$kver/updates" ] ||
		cp -r "$RBD_MODROOT/lib/modules/$kver/updates" "/lib/modules/$kver/"
	cp "$RBD_MODROOT/lib/modules/$kver"/modules.* "/lib/modules/$kver/"
else
	cp -a "$RBD_MODROOT/lib/modules/$kver" "/lib/modules/$kver"
fi
# Once the module tree is in place: a kernel unpacked outside /boot
# (RBD_KROOT) has its configfs module only there.
modprobe configfs
mount -t configfs configfs /sys/kernel/config

# Kernel checks the detector relies on.
sysctl -qw kernel.hung_task_timeout_secs="${RBD_HUNG_TASK_SECS:-90}"
sysctl -qw kernel.hung_task_warnings=-1
sysctl -qw kernel.printk="7 4 1 7"

# The dual topology's wire: eth0, on a subnet that exists only between
# the two guests.
if [ "$RBD_TOPOLOGY" = dual ]; then
	modprobe virtio_net
	_wait=0
	while ! ip link show eth0 > /dev/null 2>&1 && [ $_wait -lt 50 ]; do
		sleep 0.1
		_wait=$((_wait + 1))
	done
	ethtool -K eth0 gro off gso off tso off > /dev/null 2>&1
	if [ "$RBD_ROLE" = peer ]; then
		# Its disk, /dev/vda, outlives its reboots (rbdi/018).
		modprobe virtio_blk
		ip addr add 10.10.1.1/24 dev eth0
		ip -6 addr add fd00:10:11::1/64 dev eth0 nodad
	else
		ip addr add 10.10.1.2/24 dev eth0
		ip -6 addr add fd00:10:11::2/64 dev eth0 nodad
	fi
	ip link set eth0 up
fi

echo "<5>rbd-guest: ready ($kver, $RBD_ROLE)" > /dev/kmsg
if [ "$RBD_ROLE" = peer ]; then
	"$RBD_REPO/tests/vm/peer-agent.sh" > "$OUT/peer-agent.log" 2>&1
else
	"$RBD_REPO/tests/vm/guest-runner.sh" > "$OUT/guest-runner.log" 2>&1
fi
echo "<5>rbd-guest: $RBD_ROLE exited with $?" > /dev/kmsg
