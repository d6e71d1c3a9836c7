#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUTPUT [MODDIR]
#
# Build the tiny initramfs the test guests boot with: a static busybox and
# the modules needed to mount the host's root over virtio-9p with a tmpfs
# overlay on top. /init then switch_roots into that overlay and runs the
# script named by rbd.init= on the kernel command line. MODDIR (default
# /lib/modules/KVER) is the kernel's module tree; modules built into the
# kernel are skipped.
set -euo pipefail

kver=$1
out=$2
moddir=${3:-/lib/modules/$kver}
[ -d "$moddir" ] || { echo "mkinitramfs: no modules for $kver in $moddir" >&2; exit 1; }
[ -x /bin/busybox ] || { echo "mkinitramfs: busybox-static is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,lower,upper,newroot,lib/mod}
cp /bin/busybox "$work/bin/busybox"

# Resolve load order with modprobe itself; a wrong order gives
# "unknown symbol in module".
: > "$work/modules.order"
for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe -d "${moddir%/lib/modules/$kver}/" -S "$kver" --show-depends "$m" | while read -r kw path _; do
		[ "$kw" = insmod ] || continue
		# busybox's insmod wants them plain (6.12's are .ko.xz).
		base=$(basename "$path")
		base=${base%.xz}
		base=${base%.zst}
		grep -qx "$base" "$work/modules.order" && continue
		case "$path" in
		*.xz) xz -dc "$path" > "$work/lib/mod/$base" ;;
		*.zst) zstd -qdc "$path" > "$work/lib/mod/$base" ;;
		*) cp "$path" "$work/lib/mod/$base" ;;
		esac
		echo "$base" >> "$work/modules.order"
	done
done

cat > "$work/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() { echo "rbd-initramfs: $*"; poweroff -f; }
while read -r m; do
	insmod "/lib/mod/$m" || fail "insmod $m failed"
done < /modules.order
init=
for arg in $(cat /proc/cmdline); do
	case "$arg" in rbd.init=*) init=${arg#rbd.init=} ;; esac
done
[ -n "$init" ] || fail "no rbd.init= on the kernel command line"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower ||
	fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=755 tmpfs /upper || fail "cannot mount tmpfs"
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot ||
	fail "cannot mount the overlay root"
mkdir -p /newroot/mnt/rbd-out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 rbdout /newroot/mnt/rbd-out ||
	fail "cannot mount the results share"
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash "$init"
INIT
chmod 755 "$work/init"
(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
