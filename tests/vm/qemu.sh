# SPDX-License-Identifier: GPL-2.0
#
# Guest boot helpers for tests/check (sourced). Needs REPO, TESTS, KVER,
# INITRD, the modules array and optionally KIMAGE (the kernel to boot;
# default Debian's /boot/vmlinuz-KVER) and RBD_TIMEOUT_SCALE.
#
# Single topology: one guest runs every test; initiator and target share
# a soft RDMA device in loopback.
# Dual topology: a target host ("peer") and an initiator host, each with
# one virtio-net NIC whose QEMU socket netdev sends UDP to a relay on the
# host's loopback (tests/vm/relay.py). The relay is the wire: tests ask
# the host to cut and restore it, which neither NIC notices as a carrier
# loss, exactly like a failure in the network between two hosts.

RBD_GUEST_MEM=${RBD_GUEST_MEM:-3G}
RBD_GUEST_SMP=${RBD_GUEST_SMP:-2}

# write_conf DIR FILE ROLE HOSTNAME ENTRIES...
write_conf() {
	local dir=$1 file=$2 role=$3 host=$4
	shift 4
	cat > "$dir/$file" <<-EOF
	RBD_REPO='$REPO'
	RBD_ROLE='$role'
	RBD_HOSTNAME='$host'
	RBD_TESTS='$*'
	RBD_MODROOT='$MODROOT'
	RBD_TOPOLOGY='$TOPOLOGY'
	RBD_TIMEOUT_SCALE='${RBD_TIMEOUT_SCALE:-1}'
	RBD_HUNG_TASK_SECS='$((${RBD_HUNG_TASK_SECS:-90} * ${RBD_TIMEOUT_SCALE:-1}))'
	EOF
	# The soak's settings (tests/common/soak), as given to "make soak".
	local v
	for v in $(compgen -v SOAK_); do
		printf "export %s='%s'\n" "$v" "${!v}" >> "$dir/$file"
	done
}

# qemu_cmd DIR CONF SMP CONSOLE [EXTRA QEMU ARGS...]
# no5lvl: "-cpu max" offers 5-level paging. While the boot CPU's feature
# bits are being re-read (identify_cpu), pgtable_l5_enabled() is briefly
# false, and KASAN, whose shadow bounds depend on it, calls an interrupt's
# access to the 5-level direct map a wild-memory-access; the report also
# switches lockdep off for the whole run. 4-level paging, as on most hosts.
#
# A guest with one CPU gets room for a second (maxcpus=2): QEMU 7.2's
# TCG translates a machine whose maxcpus is 1 without CF_PARALLEL and
# then emits no host fence for the guest's memory barriers (fixed in QEMU
# 8.1, c914d46d0a64). The main loop, which runs the devices, then misses
# virtio kicks, and with event-idx one lost kick stalls a virtqueue for
# good: that is how the two-guest rig's NIC stopped transmitting in a
# CI run ("NETDEV WATCHDOG").
qemu_cmd() {
	local dir=$1 conf=$2 smp=$3 console=$4
	shift 4
	[ "$smp" = 1 ] && smp=1,maxcpus=2
	echo qemu-system-x86_64 -nodefaults -accel tcg,thread=multi -cpu max \
		-smp "$smp" -m "$RBD_GUEST_MEM" -display none -no-reboot \
		-chardev "file,id=con0,path=$console,append=on" -serial chardev:con0 \
		-kernel "${KIMAGE:-/boot/vmlinuz-$KVER}" -initrd "$INITRD" \
		-append "'console=ttyS0,115200 rbd.init=$TESTS/vm/guest-init.sh rbd.conf=$conf panic=-1 oops=panic tsc=reliable clocksource=tsc loglevel=7 nokaslr no5lvl'" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$dir,mount_tag=rbdout,security_model=none,multidevs=remap" \
		"$@"
}

# run_single_guest DIR TIMEOUT ENTRIES...
run_single_guest() {
	local dir=$1 tmo=$2
	shift 2
	TOPOLOGY=single
	mkdir -p "$dir/results"
	write_conf "$dir" run.conf runner rbd-guest "$@"
	echo "check: booting one guest for ${#} tests (kernel $KVER, timeout ${tmo}s)"
	eval timeout -k 10 "$tmo" "$(qemu_cmd "$dir" run.conf "$RBD_GUEST_SMP" "$dir/console.log")" \
		> "$dir/qemu.log" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && echo "check: guest timed out after ${tmo}s" | tee -a "$dir/qemu.log"
	[ -f "$dir/guest-done" ] || echo "check: the guest did not finish its run (see $dir/console.log)"
}

# Free UDP port on the loopback (the relay and both NICs need one each).
free_udp_port() {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nic_watch DIR: when a guest's console reports its NIC's transmit queue
# stuck (NETDEV WATCHDOG), save both guests' network and virtio-net
# queue state from their QEMU monitors (nic-state.log, once per run): the
# wire is the rig's, and a stuck NIC fails every later test of the run.
nic_watch() {
	local dir=$1 con
	while sleep 10; do
		for con in console.log console-peer.log; do
			grep -q "NETDEV WATCHDOG" "$dir/$con" 2> /dev/null || continue
			{
				echo "$(date +%T): NETDEV WATCHDOG in $con"
				echo "=== initiator host"
				python3 "$TESTS/vm/qmp-dump.py" "$dir/qmp.sock" 2>&1
				echo "=== target host"
				python3 "$TESTS/vm/qmp-dump.py" "$dir/qmp-peer.sock" 2>&1
			} > "$dir/nic-state.log"
			echo "check: a guest's NIC is stuck; its state is in $dir/nic-state.log"
			return
		done
	done
}

# run_dual_guest DIR TIMEOUT ENTRIES...
run_dual_guest() {
	local dir=$1 tmo=$2
	shift 2
	TOPOLOGY=dual
	mkdir -p "$dir/results" "$dir/shared/peer" "$dir/shared/host"
	write_conf "$dir" run.conf runner rbd-ini "$@"
	write_conf "$dir" peer.conf peer rbd-tgt
	local pa pb ra rb
	pa=$(free_udp_port); pb=$(free_udp_port); ra=$(free_udp_port); rb=$(free_udp_port)
	python3 "$TESTS/vm/relay.py" "$ra" "$pa" "$rb" "$pb" "$dir/shared/host" \
		> "$dir/relay.log" 2>&1 &
	local relay=$!
	local net_t="-netdev socket,id=n0,udp=127.0.0.1:$ra,localaddr=127.0.0.1:$pa -device virtio-net-pci,netdev=n0,mac=52:54:00:ab:00:01"
	local net_i="-netdev socket,id=n0,udp=127.0.0.1:$rb,localaddr=127.0.0.1:$pb -device virtio-net-pci,netdev=n0,mac=52:54:00:ab:00:02"
	# The target host's own disk (/dev/vda there), which outlives its
	# reboots.
	truncate -s 160M "$dir/peer-disk.img"
	net_t+=" -drive file=$dir/peer-disk.img,if=virtio,format=raw,cache=unsafe"
	# Monitors, for nic_watch.
	net_t+=" -qmp unix:$dir/qmp-peer.sock,server=on,wait=off"
	net_i+=" -qmp unix:$dir/qmp.sock,server=on,wait=off"
	echo "check: booting two guests for ${#} tests (kernel $KVER, timeout ${tmo}s)"
	# A test reboots the target host (tests/common/rc _peer_reboot) by
	# leaving shared/peer/reboot and resetting it; QEMU (-no-reboot)
	# exits, and it is booted again, its console appended to the same log.
	(
		while :; do
			eval timeout -k 10 "$tmo" "$(qemu_cmd "$dir" peer.conf 1 "$dir/console-peer.log" $net_t)" \
				>> "$dir/qemu-peer.log" 2>&1 &
			echo $! > "$dir/peer.pid"
			wait $!
			[ -e "$dir/shared/peer/reboot" ] && [ ! -e "$dir/shared/peer/shutdown" ] || break
			rm -f "$dir/shared/peer/reboot"
			echo "check: rebooting the target host" >> "$dir/qemu-peer.log"
		done
	) &
	local peer=$!
	nic_watch "$dir" &
	local watch=$!
	eval timeout -k 10 "$tmo" "$(qemu_cmd "$dir" run.conf 1 "$dir/console.log" $net_i)" \
		> "$dir/qemu.log" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && echo "check: initiator guest timed out after ${tmo}s" | tee -a "$dir/qemu.log"
	# The runner tells the peer to power off when it is done; give it time.
	touch "$dir/shared/peer/shutdown"
	local i
	for ((i = 0; i < 60; i++)); do
		kill -0 "$peer" 2> /dev/null || break
		sleep 1
	done
	kill "$peer" "$(cat "$dir/peer.pid" 2> /dev/null)" 2> /dev/null
	wait "$peer" 2> /dev/null
	kill "$relay" "$watch" 2> /dev/null
	wait "$relay" "$watch" 2> /dev/null
	[ -f "$dir/guest-done" ] || echo "check: the initiator guest did not finish its run (see $dir/console.log)"
}
