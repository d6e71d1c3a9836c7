#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS builds both modules from the tree that "make install-dkms" would put
# in /usr/src, against every installed Debian kernel's headers and every
# kernel scripts/setup.sh unpacked into $RBD_CACHE/kernels/ (6.12). Uses
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

# build_for KVER HEADERS
build_for() {
	local kver=$1 hdr=$2 m ok=1
	if ! dkms build -m rbd -v "$ver" -k "$kver" --sourcetree "$tmp/src" \
			--dkmstree "$tmp/dkms" --kernelsourcedir "$hdr" > "$tmp/build.log" 2>&1; then
		echo "dkms: build for $kver failed:"
		tail -n 30 "$tmp/build.log"
		return 1
	fi
	for m in rbdt rbdi; do
		if ! find "$tmp/dkms/rbd/$ver/$kver" -name "$m.ko*" | grep -q .; then
			echo "dkms: $m.ko missing after the build for $kver"
			ok=0
		fi
	done
	[ $ok = 1 ] && echo "dkms: rbd $ver builds for $kver"
}

rc=0
n=0
for hdr in /usr/src/linux-headers-*-amd64 "${RBD_CACHE:-/var/cache/rbd}"/kernels/*/usr/src/linux-headers-*-amd64; do
	[ -f "$hdr/Makefile" ] || continue
	kver=${hdr##*/linux-headers-}
	case "$hdr" in
	/usr/src/*) [ -d "/lib/modules/$kver" ] || continue ;;
	*) [ -L "${hdr%/usr/src/*}" ] && continue ;;	# kernels/6.12 -> <kver>
	esac
	build_for "$kver" "$hdr" || rc=1
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "dkms: no kernel headers found (scripts/setup.sh)"; rc=1; }
exit $rc
