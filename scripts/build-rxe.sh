#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-rxe.sh [SRCDIR]
#
# Build Soft-RoCE (rdma_rxe) out of tree from Debian's linux-source-6.1
# with the fixes in scripts/patches/rxe-6.1/, for every installed Debian
# 6.1 kernel, into $RBD_CACHE/rxe/<kver>/. The guest rig loads it in place
# of Debian's module (tests/check puts it in the module tree's updates/).
# Each patch says which defect of Debian's rxe it fixes; without them
# the link flap tests fail whatever the ULP does. Idempotent: a kernel
# whose module was built from the current patches is skipped.
# Called by scripts/setup.sh, which unpacks the sources into SRCDIR.
set -euo pipefail

CACHE=${RBD_CACHE:-/var/cache/rbd}
SRCDIR=${1:-$CACHE/linux-source-6.1}
RXE_SRC=$SRCDIR/drivers/infiniband/sw/rxe
PATCHES=$(cd "$(dirname "$0")" && pwd)/patches/rxe-6.1

die() { echo "build-rxe: $*" >&2; exit 1; }

[ -f "$RXE_SRC/rxe_req.c" ] || die "no rxe source in $RXE_SRC (run scripts/setup.sh)"
sum=$(cat "$PATCHES"/*.patch | sha256sum | cut -d' ' -f1)

for hdr in /usr/src/linux-headers-6.1.*-amd64; do
	[ -d "$hdr" ] || continue
	kver=${hdr#/usr/src/linux-headers-}
	out=$CACHE/rxe/$kver
	[ -f "$out/rdma_rxe.ko" ] && [ "$(cat "$out/patches.sum" 2>/dev/null)" = "$sum" ] && continue
	echo "build-rxe: building rdma_rxe for $kver with $(ls "$PATCHES" | wc -l) fixes"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$RXE_SRC"/* "$out/"
	for p in "$PATCHES"/*.patch; do
		patch -s -d "$out" -p5 < "$p" || die "$(basename "$p") does not apply"
	done
	make -s -C "$hdr" M="$out" CONFIG_RDMA_RXE=m modules > "$out/build.log" 2>&1 ||
		die "building rdma_rxe failed, see $out/build.log"
	echo "$sum" > "$out/patches.sum"
done
