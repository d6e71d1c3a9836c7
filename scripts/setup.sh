#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything rbd needs to build and test on Debian 12, from
# Debian's own packages, and prepare the pieces built from Debian's kernel
# source (checkpatch.pl, siw.ko, a fixed rdma_rxe.ko, RNBD) for both kernels
# the project supports:
#   6.1   Debian 12's own kernel, installed (image and headers) as usual;
#   6.12  Debian 13's, from bookworm-security, unpacked into
#         $RBD_CACHE/kernels/<kver> (image, modules, headers) and not
#         installed, so that the host boots and builds for 6.1 as before.
#         The guest rig boots it with RBD_GUEST_KERNEL=6.12; its headers
#         are $RBD_CACHE/kernels/6.12/usr/src/linux-headers-<kver>.
#         RBD_SETUP_612=0 skips it.
# Idempotent: a second run installs nothing and rebuilds nothing that is
# current.
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
	# the 6.12 guest kernel's siw, rxe and RNBD are built from its source;
	# its headers make BTF for modules with pahole (linux-kbuild-6.12
	# depends on it)
	linux-source-6.12 pahole
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

CACHE=${RBD_CACHE:-/var/cache/rbd}

# unpack_source SERIES: the parts of Debian's linux-source-SERIES we use
# (checkpatch, siw, rxe, RNBD) into $CACHE/linux-source-SERIES.
unpack_source() {
	local series=$1 tarball dir stamp
	tarball=/usr/src/linux-source-$series.tar.xz
	dir=$CACHE/linux-source-$series
	stamp=$dir/.rbd-unpacked-2
	[ -f "$tarball" ] || die "$tarball not found (package linux-source-$series)"
	[ -f "$stamp" ] && [ ! "$tarball" -nt "$stamp" ] && return 0
	echo "setup: unpacking checkpatch, siw, rxe and rnbd from $tarball into $dir"
	rm -rf "$dir"
	mkdir -p "$CACHE"
	tar -C "$CACHE" -xf "$tarball" --wildcards \
		"linux-source-$series/scripts/checkpatch.pl" \
		"linux-source-$series/scripts/spelling.txt" \
		"linux-source-$series/scripts/const_structs.checkpatch" \
		"linux-source-$series/drivers/infiniband/sw/siw/*" \
		"linux-source-$series/drivers/infiniband/sw/rxe/*" \
		"linux-source-$series/drivers/infiniband/ulp/rtrs/*" \
		"linux-source-$series/drivers/block/rnbd/*"
	touch "$stamp"
}

# build_siw SRCDIR HEADERS: soft-iWARP, which Debian's kernels do not ship,
# into $CACHE/siw/<kver>/.
build_siw() {
	local src=$1 hdr=$2 kver out
	kver=${hdr##*/linux-headers-}
	out=$CACHE/siw/$kver
	[ -f "$out/siw.ko" ] && return 0
	echo "setup: building siw.ko for $kver"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$src"/drivers/infiniband/sw/siw/* "$out/"
	make -s -C "$hdr" M="$out" CONFIG_RDMA_SIW=m "${btf[@]}" modules >"$out/build.log" 2>&1 ||
		die "building siw failed, see $out/build.log"
}

# Debian's 6.12 headers carry a vmlinux: without pahole, no BTF for modules.
btf=()
command -v pahole > /dev/null || btf=(CONFIG_DEBUG_INFO_BTF_MODULES=)

# 6.1: the installed kernel(s). checkpatch comes from this source.
unpack_source 6.1
SRCDIR=$CACHE/linux-source-6.1
for hdr in /usr/src/linux-headers-6.1.*-amd64; do
	[ -d "$hdr" ] && build_siw "$SRCDIR" "$hdr"
done
# Soft-RoCE with the fixes the link flap tests need (scripts/patches/).
"$(dirname "$0")/build-rxe.sh" "$SRCDIR"
# RNBD and RTRS, a peer for "make bench", built the same way.
"$(dirname "$0")/build-rnbd.sh" "$SRCDIR"

# 6.12: the kernel of the same version as linux-source-6.12, unpacked.
if [ "${RBD_SETUP_612:-1}" != 0 ]; then
	unpack_source 6.12
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	kver=${v%%-*}+deb12-amd64
	root=$("$(dirname "$0")/kernel-root.sh" "$kver" "$CACHE/kernels/$kver") ||
		die "unpacking kernel $kver failed"
	ln -sfn "$kver" "$CACHE/kernels/6.12"
	hdr=$root/usr/src/linux-headers-$kver
	build_siw "$CACHE/linux-source-6.12" "$hdr"
	"$(dirname "$0")/build-rxe.sh" "$CACHE/linux-source-6.12" "$hdr"
	"$(dirname "$0")/build-rnbd.sh" "$CACHE/linux-source-6.12" "$hdr"
fi

echo "setup: done"
