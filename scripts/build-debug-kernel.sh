#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-debug-kernel.sh
#
# Builds, once, the debug kernel "make check-debug" runs the guest suite
# on: Debian's linux-source-6.1, x86_64_defconfig, the options of
# tests/vm/debug-kernel.config (KASAN, lockdep, kmemleak, fault injection;
# rxe, siw and LIO as modules), "make olddefconfig".
#
# The result lives in $RBD_CACHE/debug-kernel/<hash>/, the hash covering
# the fragment, this script and the linux-source-6.1 package version, so
# it is rebuilt only when one of them changes:
#   linux/          the built tree (KDIR= for out-of-tree modules)
#   bzImage         the kernel
#   modroot/        "make modules_install INSTALL_MOD_PATH=modroot"
#   kver            its release string (uname -r in the guest)
#   srcver          the linux-source-6.1 version it was built from
#   done            written last; its absence means an unfinished build
# Prints that directory on stdout (the build log goes to build.log there).
# Takes about 70 minutes on 2 cores from scratch, 3 GB of disk; after a
# change of the fragment alone, it starts from the previous build.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
RBD_CACHE=${RBD_CACHE:-/var/cache/rbd}
FRAG=$REPO/tests/vm/debug-kernel.config
SRCTAR=/usr/src/linux-source-6.1.tar.xz

die() { echo "build-debug-kernel: $*" >&2; exit 1; }
[ -f "$SRCTAR" ] || die "$SRCTAR missing; run scripts/setup.sh"
for t in flex bison bc; do
	command -v $t > /dev/null || die "$t missing; run scripts/setup.sh"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing; run scripts/setup.sh"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %s-%Y "$SRCTAR")
# The recipe: the fragment, the part of this script above the build, the source.
hash=$( { cat "$FRAG"; sed -n '/^# --- recipe/,$p' "$0"; echo "$srcver"; } |
	sha256sum | cut -c1-16)
dir=$RBD_CACHE/debug-kernel/$hash
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$RBD_CACHE/debug-kernel"
exec 8> "$RBD_CACHE/debug-kernel/.lock"
if ! flock -n 8; then
	echo "build-debug-kernel: waiting for another build" >&2
	flock 8
	[ -f "$dir/done" ] && { echo "$dir"; exit 0; }
fi

# --- recipe (changing anything below rebuilds the kernel)
rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
# A finished build of the same source is a valid starting point: kbuild
# tracks every object's CONFIG_ dependencies (include/config/), so after
# the new .config only what the changed options touch is rebuilt. The
# copy keeps the timestamps; the old build is removed once this one is done.
# objtool's build records absolute paths: left as they are, objtool is
# relinked, and every object, which depends on it, is rebuilt.
seed=
for d in "$RBD_CACHE"/debug-kernel/*/; do
	d=${d%/}
	[ "$d" != "$dir" ] && [ -f "$d/done" ] && [ -d "$d/linux" ] || continue
	[ "$(cat "$d/srcver" 2>/dev/null)" = "$srcver" ] || continue
	seed=$d
done
echo "build-debug-kernel: building in $dir (${seed:+incremental from $seed, }cold: about 70 minutes on 2 cores; log: $log)" >&2
start=$(date +%s)
{
	if [ -n "$seed" ]; then
		cp -a "$seed/linux" "$dir/linux"
		grep -rlZ --include='.*.cmd' "$seed/linux" "$dir/linux/tools" |
			xargs -0 -r sed -i "s|$seed/linux|$dir/linux|g"
	else
		tar -C "$dir" -xf "$SRCTAR"
		mv "$dir/linux-source-6.1" "$dir/linux"
	fi
	cd "$dir/linux"
	make x86_64_defconfig
	# Apply the fragment with scripts/config, then let olddefconfig
	# resolve dependencies.
	grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAG" | while IFS='=' read -r key val; do
		key=${key#CONFIG_}
		case "$val" in
		y) scripts/config --enable "$key" ;;
		m) scripts/config --module "$key" ;;
		n) scripts/config --disable "$key" ;;
		\"*\") v=${val#\"}; scripts/config --set-str "$key" "${v%\"}" ;;
		*) scripts/config --set-val "$key" "$val" ;;
		esac
	done
	make olddefconfig
	# A requested option olddefconfig dropped (unmet dependency) is a
	# mistake in the fragment: say which.
	grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAG" | while IFS='=' read -r key val; do
		case "$val" in
		n) grep -qx "$key=[ym]" .config && echo "build-debug-kernel: $key still set" ;;
		y|m) grep -qx "$key=$val" .config || echo "build-debug-kernel: warning: $key=$val not taken: $(grep "^$key=\|^# $key " .config)" ;;
		esac
	done
	nice -n 10 make -j"$(nproc)" bzImage modules
	nice -n 10 make INSTALL_MOD_PATH="$dir/modroot" INSTALL_MOD_STRIP=1 modules_install
	cp arch/x86/boot/bzImage "$dir/bzImage"
	make -s kernelrelease > "$dir/kver"
} > "$log" 2>&1 || die "build failed; see $log"
grep 'build-debug-kernel:' "$log" >&2 || true
echo "$(( $(date +%s) - start ))" > "$dir/build-seconds"
echo "$srcver" > "$dir/srcver"
echo done > "$dir/done"
[ -z "$seed" ] || rm -rf "$seed"
echo "build-debug-kernel: built $(cat "$dir/kver") in $(( $(date +%s) - start ))s" >&2
echo "$dir"
