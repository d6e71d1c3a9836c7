#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything rbd needs to build and test on Debian 12, from
# Debian's own packages, and prepare the pieces built from Debian's kernel
# source (checkpatch.pl, siw.ko, a fixed rdma_rxe.ko).  Idempotent: a second run installs
# nothing and rebuilds nothing that is current.
set -euo pipefail

die() { echo "setup: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	die "must be run as root (it installs Debian packages with apt-get); try: sudo $0"
fi

[ -r /etc/debian_version ] || die "this script supports Debian 12 (bookworm) only"

PKGS=(
	# build
	build-essential gcc-12 make bc kmod sparse pkg-config dkms
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 xz-utils
	# the debug kernel of "make check-debug" (scripts/build-debug-kernel.sh)
	flex bison libelf-dev libssl-dev
	# userspace libraries and unit tests
	libcmocka-dev libjson-c-dev librdmacm-dev libibverbs-dev
	# make fuzz: clang and its libFuzzer runtime (libclang_rt.fuzzer)
	clang libclang-rt-14-dev
	# guest rig
	qemu-system-x86 busybox-static cpio
	# inside the guest (it sees the host root)
	rdma-core ibverbs-utils rdmacm-utils perftest targetcli-fb
	python3-rtslib-fb python3-jsonschema sg3-utils fio dbus ethtool iproute2 e2fsprogs
	util-linux procps
	# udev links and dm-multipath over rbdi (tests/rbdi/009, 011, 035,
	# 041: multipath, multipathd, sg_rtpg);
	# sd's udev identity to compare with, LVM, partitioning (035)
	udev multipath-tools sg3-utils-udev lvm2 fdisk
	# peers for "make bench" (Documentation/performance.rst)
	nvme-cli open-iscsi nbd-server nbd-client srptools python3-matplotlib
	# BENCH_PERF: perf record/report inside the guest
	linux-perf
)

missing=()
for p in "${PKGS[@]}"; do
	case "$p" in \#*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "setup: all Debian packages present"
fi

# Unpack the parts of Debian's kernel source we use (checkpatch, siw) into a
# cache outside the work tree.
CACHE=${RBD_CACHE:-/var/cache/rbd}
SRCTAR=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
[ -n "$SRCTAR" ] || die "linux-source-6.1 tarball not found in /usr/src"
SRCDIR=$CACHE/linux-source-6.1
stamp=$SRCDIR/.rbd-unpacked-2
if [ ! -f "$stamp" ] || [ "$SRCTAR" -nt "$stamp" ]; then
	echo "setup: unpacking checkpatch, siw and rxe from $SRCTAR into $SRCDIR"
	rm -rf "$SRCDIR"
	mkdir -p "$CACHE"
	tar -C "$CACHE" -xf "$SRCTAR" --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch' \
		'linux-source-6.1/drivers/infiniband/sw/siw/*' \
		'linux-source-6.1/drivers/infiniband/sw/rxe/*' \
		'linux-source-6.1/drivers/infiniband/ulp/rtrs/*' \
		'linux-source-6.1/drivers/block/rnbd/*'
	touch "$stamp"
fi

# Build soft-iWARP (siw), which Debian's kernel does not ship, for every
# installed Debian kernel.
for hdr in /usr/src/linux-headers-*-amd64; do
	[ -d "$hdr" ] || continue
	kver=${hdr#/usr/src/linux-headers-}
	out=$CACHE/siw/$kver
	if [ ! -f "$out/siw.ko" ]; then
		echo "setup: building siw.ko for $kver"
		rm -rf "$out"
		mkdir -p "$out"
		cp "$SRCDIR"/drivers/infiniband/sw/siw/* "$out/"
		make -s -C "$hdr" M="$out" CONFIG_RDMA_SIW=m modules >"$out/build.log" 2>&1 ||
			die "building siw failed, see $out/build.log"
	fi
done

# Soft-RoCE with the fixes the link flap tests need (scripts/patches/).
"$(dirname "$0")/build-rxe.sh" "$SRCDIR"

# RNBD and RTRS, a peer for "make bench", built the same way.
"$(dirname "$0")/build-rnbd.sh" "$SRCDIR"

echo "setup: done"
