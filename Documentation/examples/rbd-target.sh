#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Export a file as LUN 0 of an rbd target with plain configfs operations
# (mkdir, echo, ln): what targetcli does, without targetcli. Run as root
# on the target host. Documentation/admin-guide.rst explains each step.
#
#   rbd-target.sh [setup|teardown]
#
# Settings (environment):
#   TARGET     target name        (iqn.2026-12.org.example:disk1)
#   PORTAL     listen address     (0.0.0.0:65000; [::]:65000 for IPv6)
#   INITIATOR  allowed initiator  (iqn.2026-12.org.example:host1)
#   FILE       backing file       (/var/lib/rbd/disk1.img)
#   SIZE_MB    its size in MiB    (1024)
#   BLOCK_SIZE logical block size (512; or 4096)
#   SERIAL     unit serial number (a new UUID): without one LIO reports no
#              VPD pages and no NAA designator (no wwid, no by-id link)
set -eu

TARGET=${TARGET:-iqn.2026-12.org.example:disk1}
PORTAL=${PORTAL:-0.0.0.0:65000}
INITIATOR=${INITIATOR:-iqn.2026-12.org.example:host1}
FILE=${FILE:-/var/lib/rbd/disk1.img}
SIZE_MB=${SIZE_MB:-1024}
BLOCK_SIZE=${BLOCK_SIZE:-512}
SERIAL=${SERIAL:-$(cat /proc/sys/kernel/random/uuid)}

CFS=/sys/kernel/config
LIO=$CFS/target
BS=$LIO/core/fileio_0/disk1
TPG=$LIO/rbd/$TARGET/tpgt_1

setup() {
	# Modules and configfs. rbdt must be loaded before mkdir of the fabric:
	# LIO loads only its own fabrics on demand.
	modprobe target_core_mod
	modprobe target_core_file
	modprobe rbdt
	mountpoint -q $CFS || mount -t configfs none $CFS

	# 1. A fileio backstore.
	mkdir -p "$(dirname "$FILE")"
	[ -e "$FILE" ] || truncate -s "${SIZE_MB}M" "$FILE"
	mkdir -p $BS
	echo "fd_dev_name=$FILE,fd_dev_size=$((SIZE_MB * 1024 * 1024))" > $BS/control
	echo 1 > $BS/enable
	echo "$BLOCK_SIZE" > $BS/attrib/block_size
	# The serial can be set only while no LUN exports the backstore.
	echo "$SERIAL" > $BS/wwn/vpd_unit_serial

	# 2. The target and its portal group.
	mkdir -p $LIO/rbd
	mkdir -p "$TPG"

	# 3. LUN 0 -> the backstore.
	mkdir "$TPG/lun/lun_0"
	ln -s $BS "$TPG/lun/lun_0/disk1"

	# 4. An ACL for the initiator, mapping LUN 0 read-write.
	mkdir "$TPG/acls/$INITIATOR"
	mkdir "$TPG/acls/$INITIATOR/lun_0"
	ln -s "$TPG/lun/lun_0" "$TPG/acls/$INITIATOR/lun_0/lun_0"

	# 5. A portal: an rdma_cm listener.
	mkdir "$TPG/np/$PORTAL"

	# 6. Accept logins.
	echo 1 > "$TPG/enable"
	echo "rbd target $TARGET listening on $PORTAL, LUN 0 = $FILE"
}

teardown() {
	# Reverse order: disable, portal, ACL, LUN, target, backstore.
	[ -d "$TPG" ] && echo 0 > "$TPG/enable"
	[ -d "$TPG/np/$PORTAL" ] && rmdir "$TPG/np/$PORTAL"
	if [ -d "$TPG/acls/$INITIATOR" ]; then
		rm -f "$TPG/acls/$INITIATOR/lun_0/lun_0"
		rmdir "$TPG/acls/$INITIATOR/lun_0" "$TPG/acls/$INITIATOR"
	fi
	if [ -d "$TPG/lun/lun_0" ]; then
		rm -f "$TPG/lun/lun_0/disk1"
		rmdir "$TPG/lun/lun_0"
	fi
	[ -d "$TPG" ] && rmdir "$TPG" "$LIO/rbd/$TARGET"
	[ -d $BS ] && rmdir $BS
	echo "rbd target $TARGET removed (the file $FILE is kept)"
}

case "${1:-setup}" in
setup) setup ;;
teardown) teardown ;;
*) echo "usage: $0 [setup|teardown]" >&2; exit 2 ;;
esac
