#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-rnbd.sh [SRCDIR [HEADERS...]]
#
# Build RNBD and its transport RTRS (client and server), which Debian's
# kernel does not ship, out of tree from a Debian linux-source tree (SRCDIR,
# default $RBD_CACHE/linux-source-6.1), for each kernel headers directory
# given (default: every installed Debian 6.1 kernel; each of SRCDIR's
# series), into $RBD_CACHE/rnbd/<kver>/. They are
# only a peer for "make bench" (Documentation/performance.rst); nothing of
# rbd uses them. Idempotent: kernels with a complete build are skipped.
# Called by scripts/setup.sh, which unpacks the sources into SRCDIR.
set -euo pipefail

CACHE=${RBD_CACHE:-/var/cache/rbd}
SRCDIR=${1:-$CACHE/linux-source-6.1}
RTRS_SRC=$SRCDIR/drivers/infiniband/ulp/rtrs
RNBD_SRC=$SRCDIR/drivers/block/rnbd
shift || true
[ $# -gt 0 ] || set -- /usr/src/linux-headers-6.1.*-amd64
# Debian's 6.12 headers carry a vmlinux: without pahole, no BTF for us.
btf=()
command -v pahole > /dev/null || btf=(CONFIG_DEBUG_INFO_BTF_MODULES=)

die() { echo "build-rnbd: $*" >&2; exit 1; }

[ -f "$RTRS_SRC/rtrs.c" ] || die "no RTRS source in $RTRS_SRC (run scripts/setup.sh)"
[ -f "$RNBD_SRC/rnbd-clt.c" ] || die "no RNBD source in $RNBD_SRC (run scripts/setup.sh)"

KOS="rtrs-core.ko rtrs-client.ko rtrs-server.ko rnbd-client.ko rnbd-server.ko"

for hdr in "$@"; do
	[ -d "$hdr" ] || continue
	kver=${hdr##*/linux-headers-}
	out=$CACHE/rnbd/$kver
	done_all=1
	for ko in $KOS; do [ -f "$out/$ko" ] || done_all=0; done
	[ $done_all = 1 ] && continue
	echo "build-rnbd: building rtrs and rnbd for $kver"
	rm -rf "$out"
	mkdir -p "$out/rtrs" "$out/rnbd"
	cp "$RTRS_SRC"/* "$out/rtrs/"
	cp "$RNBD_SRC"/* "$out/rnbd/"
	# The in-tree Makefile of rnbd finds rtrs.h through $(srctree); here it
	# is the copy next to it.
	sed -i "s|-I\$(srctree)/drivers/infiniband/ulp/rtrs|-I$out/rtrs|" "$out/rnbd/Makefile"
	make -s -C "$hdr" M="$out/rtrs" CONFIG_INFINIBAND_RTRS=m \
		CONFIG_INFINIBAND_RTRS_CLIENT=m CONFIG_INFINIBAND_RTRS_SERVER=m \
		"${btf[@]}" modules > "$out/build-rtrs.log" 2>&1 ||
		die "building rtrs failed, see $out/build-rtrs.log"
	make -s -C "$hdr" M="$out/rnbd" CONFIG_BLK_DEV_RNBD_CLIENT=m \
		CONFIG_BLK_DEV_RNBD_SERVER=m \
		KBUILD_EXTRA_SYMBOLS="$out/rtrs/Module.symvers" "${btf[@]}" \
		modules > "$out/build-rnbd.log" 2>&1 ||
		die "building rnbd failed, see $out/build-rnbd.log"
	cp "$out"/rtrs/*.ko "$out"/rnbd/*.ko "$out/"
done
