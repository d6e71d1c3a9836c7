#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-rxe.sh [SRCDIR [HEADERS...]]
#
# Build Soft-RoCE (rdma_rxe) out of tree from a Debian linux-source tree
# (SRCDIR, default $RBD_CACHE/linux-source-6.1) with the fixes in
# scripts/patches/rxe-<series>/, for each kernel headers directory given
# (default: every installed Debian 6.1 kernel), into
# $RBD_CACHE/rxe/<kver>/. <series> is the headers' major.minor: rxe-6.1
# for Debian 12's kernel, rxe-6.12 for 6.12; every headers directory must
# be of SRCDIR's series. The guest rig loads the result in place of
# Debian's module (tests/check puts it in the module tree's updates/).
# Each patch says which defect of Debian's rxe it fixes; without them the
# link flap tests fail whatever the ULP does. Idempotent: a kernel whose
# module was built from the current patches is skipped. Called by
# scripts/setup.sh, which unpacks the sources into SRCDIR.
set -euo pipefail

CACHE=${RBD_CACHE:-/var/cache/rbd}
SRCDIR=${1:-$CACHE/linux-source-6.1}
RXE_SRC=$SRCDIR/drivers/infiniband/sw/rxe
shift || true
[ $# -gt 0 ] || set -- /usr/src/linux-headers-6.1.*-amd64

die() { echo "build-rxe: $*" >&2; exit 1; }

[ -f "$RXE_SRC/rxe_req.c" ] || die "no rxe source in $RXE_SRC (run scripts/setup.sh)"
# Debian's 6.12 headers carry a vmlinux: without pahole, no BTF for us.
btf=()
command -v pahole > /dev/null || btf=(CONFIG_DEBUG_INFO_BTF_MODULES=)

for hdr in "$@"; do
	[ -d "$hdr" ] || continue
	kver=${hdr##*/linux-headers-}
	series=$(echo "$kver" | cut -d. -f1,2)
	patches=$(cd "$(dirname "$0")" && pwd)/patches/rxe-$series
	[ -d "$patches" ] || die "no fixes for rxe $series in $patches"
	sum=$(cat "$patches"/*.patch | sha256sum | cut -d' ' -f1)
	out=$CACHE/rxe/$kver
	[ -f "$out/rdma_rxe.ko" ] && [ "$(cat "$out/patches.sum" 2>/dev/null)" = "$sum" ] && continue
	echo "build-rxe: building rdma_rxe for $kver with $(ls "$patches" | wc -l) fixes"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$RXE_SRC"/* "$out/"
	for p in "$patches"/*.patch; do
		patch -s -d "$out" -p5 < "$p" || die "$(basename "$p") does not apply"
	done
	make -s -C "$hdr" M="$out" CONFIG_RDMA_RXE=m "${btf[@]}" modules > "$out/build.log" 2>&1 ||
		die "building rdma_rxe failed, see $out/build.log"
	echo "$sum" > "$out/patches.sum"
done
