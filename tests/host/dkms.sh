#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS builds both modules from the tree that "make install-dkms" would put
# in /usr/src, against every installed Debian kernel's headers. Uses
# private DKMS trees under a temporary directory, so the system's DKMS
# state is untouched.
set -uo pipefail
cd "$(dirname "$0")/../.."

command -v dkms > /dev/null || { echo "dkms: dkms is not installed (scripts/setup.sh)"; exit 1; }
ver=$(cat VERSION)
grep -qx "PACKAGE_VERSION=\"$ver\"" dkms.conf ||
	{ echo "dkms: dkms.conf PACKAGE_VERSION differs from VERSION ($ver)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/rbd-$ver
mkdir -p "$tmp/dkms"
make -s dkms-source DKMS_SRC="$src" || { echo "dkms: copying the source failed"; exit 1; }

rc=0
for hdr in /usr/src/linux-headers-*-amd64; do
	kver=${hdr#/usr/src/linux-headers-}
	[ -d "/lib/modules/$kver" ] || continue
	if ! dkms build -m rbd -v "$ver" -k "$kver" --sourcetree "$tmp/src" \
			--dkmstree "$tmp/dkms" > "$tmp/build.log" 2>&1; then
		echo "dkms: build for $kver failed:"
		tail -n 30 "$tmp/build.log"
		rc=1
		continue
	fi
	for m in rbdt rbdi; do
		if ! find "$tmp/dkms/rbd/$ver/$kver" -name "$m.ko*" | grep -q .; then
			echo "dkms: $m.ko missing after the build for $kver"
			rc=1
		fi
	done
	[ $rc = 0 ] && echo "dkms: rbd $ver builds for $kver"
done
exit $rc
