#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-root.sh KVER [ROOT]
#
# Unpack a Debian kernel (image, modules, headers) into ROOT (default
# $RBD_CACHE/kernels/KVER) without installing it, for the guest rig to boot
# (RBD_KROOT=ROOT tests/check) and for building our modules against
# (make KDIR=ROOT/usr/src/linux-headers-KVER). Nothing lands in /boot,
# /lib/modules or /usr/src, so the host's default kernel (the newest one
# there) stays what it was. KVER as Debian names it, for example
# 6.12.118+deb12-amd64 (apt-cache search linux-headers-6.12). Idempotent.
set -euo pipefail

die() { echo "kernel-root: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 KVER [ROOT]"
kver=$1
flavour=${kver##*-}
abi=${kver%-"$flavour"}
root=${2:-${RBD_CACHE:-/var/cache/rbd}/kernels/$kver}
[ -f "$root/done" ] && { echo "$root"; exit 0; }

mkdir -p "$root/debs"
root=$(cd "$root" && pwd)
(cd "$root/debs" && apt-get download -q "linux-image-$kver-unsigned" \
	"linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-$abi" >&2) ||
	die "apt-get download failed (is bookworm-security in the sources?)"
for deb in "$root"/debs/*.deb; do
	dpkg -x "$deb" "$root"
done
# The headers' Makefile includes the common part by its installed path.
hdr=$root/usr/src/linux-headers-$kver
[ -f "$hdr/Makefile" ] || die "no $hdr/Makefile after unpacking"
echo "include $root/usr/src/linux-headers-$abi-common/Makefile" > "$hdr/Makefile"
# What the package's postinst would have generated.
depmod -b "$root" "$kver"
touch "$root/done"
echo "$root"
