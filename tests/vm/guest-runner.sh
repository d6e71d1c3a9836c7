#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test guest: executes the tests listed in RBD_TESTS
# (from run.conf) one after the other and records, for each, its status,
# golden-output diff and full log under $OUT/results/. The host side
# (tests/check) reads those and the guest console afterwards, so a test
# that crashes the kernel is still reported.
#
# An entry of RBD_TESTS is GROUP/NNN or GROUP/NNN@PROVIDER; with a
# provider, the soft RDMA device of that kind (rxe or siw) is set up first.

OUT=/mnt/rbd-out
set -a
# shellcheck source=/dev/null
. "$OUT/run.conf"
set +a
TESTDIR=$RBD_REPO/tests
# shellcheck source=../common/rc
. "$TESTDIR/common/rc"

# Test markers go to both consoles, so the host can tell which test a
# kernel message belongs to on either host.
# _teardown_provider: tear the soft RDMA provider down, waiting at most
# 60 s. A teardown that does not finish (e.g. a netdev that never becomes
# free because something still holds the RDMA device) is recorded as the
# failing entry teardown@PROVIDER; the runner goes on with the next tests.
_teardown_provider() {
	local prov=$1 pid i res=$OUT/results/teardown@$1
	_rdma_teardown >> "$OUT/rdma-setup.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		mkdir -p "$res"
		echo fail > "$res/status"
		echo "tearing down $prov did not finish in 60 s (an RDMA device or netdev is still held)" > "$res/reason"
		echo 60.0 > "$res/runtime"
		kmsg "teardown of $prov hangs"
		return 1
	fi
	wait $pid
}

kmsg() {
	echo "<5>rbd-test: $*" > /dev/kmsg
	if [ "$RBD_TOPOLOGY" = dual ]; then
		_peer "echo '<5>rbd-test: $*' > /dev/kmsg" > /dev/null 2>&1
	fi
}

cur_provider=
for entry in $RBD_TESTS; do
	name=${entry%@*}
	provider=
	[ "$entry" != "$name" ] && provider=${entry#*@}
	res=$OUT/results/$entry
	mkdir -p "$res"

	if [ "$provider" != "$cur_provider" ]; then
		[ -n "$cur_provider" ] && _teardown_provider "$cur_provider"
		cur_provider=
		if [ -n "$provider" ]; then
			# A provider that does not come up fails each of its
			# tests: a skip would not fail the run, and a run with
			# nothing tested would pass. The set-up's output is the
			# entry's log (tests/check prints its tail).
			if ! _rdma_setup "$provider" > "$res/full" 2>&1; then
				cat "$res/full" >> "$OUT/rdma-setup.log"
				echo fail > "$res/status"
				why=$(grep . "$res/full" | tail -n1)
				echo "soft RDMA provider $provider could not be set up: ${why:-no message} (see rdma-setup.log)" > "$res/reason"
				echo 0.0 > "$res/runtime"
				continue
			fi
			cat "$res/full" >> "$OUT/rdma-setup.log"
			rm -f "$res/full"
			cur_provider=$provider
		fi
	fi

	kmsg "START $entry"
	start=$(date +%s.%N)
	(
		TEST_NAME=$name
		RDMA_PROVIDER=$provider
		RESULTS=$res
		FULL=$res/full
		export TEST_NAME RDMA_PROVIDER RESULTS FULL
		cd "$res" || exit 1
		# shellcheck source=/dev/null
		. "$TESTDIR/$name"
		SKIP_REASONS=()
		if declare -F requires > /dev/null; then
			requires
		fi
		if [ ${#SKIP_REASONS[@]} -gt 0 ]; then
			echo skip > "$res/status"
			printf '%s\n' "${SKIP_REASONS[@]}" > "$res/reason"
			exit 0
		fi
		tmo=$(( ${TIMEOUT:-300} * ${RBD_TIMEOUT_SCALE:-1} ))
		timeout -k 10 "$tmo" bash -c '
			. "$1/common/rc"; . "$1/$2"
			test' _ "$TESTDIR" "$name" > "$res/out" 2>> "$FULL"
		rc=$?
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			echo fail > "$res/status"
			echo "timed out after ${tmo}s" > "$res/reason"
		elif ! diff -u "$TESTDIR/$name.out" "$res/out" > "$res/diff" 2>&1; then
			echo fail > "$res/status"
			echo "output differs from $name.out (exit status $rc)" > "$res/reason"
		else
			echo pass > "$res/status"
		fi
	)
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' > "$res/runtime"
	kmsg "END $entry"
done
[ -n "$cur_provider" ] && _teardown_provider "$cur_provider"

# On a kernel with kmemleak (the debug kernel): scan twice, a while
# apart (an object is reported only once it has been unreferenced for a
# scan), while our modules are still loaded so that their functions in
# the backtraces have names. A report whose allocation backtrace goes
# through rbdt, rbdi or the rig's own modules fails final/kmemleak; the
# others (the kernel's own, rxe's, Debian userspace's) are only recorded
# in its log. The scan's "new suspected memory leaks" line is kept off
# the console: the filter here decides, not the console scanner.
if [ -w /sys/kernel/debug/kmemleak ]; then
	res=$OUT/results/final/kmemleak
	mkdir -p "$res"
	kmsg "START final/kmemleak"
	kstart=$(date +%s.%N)
	{
		printk=$(cat /proc/sys/kernel/printk)
		echo 4 > /proc/sys/kernel/printk
		sleep 5
		echo scan > /sys/kernel/debug/kmemleak
		sleep 10
		echo scan > /sys/kernel/debug/kmemleak
		echo "$printk" > /proc/sys/kernel/printk
		cat /sys/kernel/debug/kmemleak > "$res/all"
		awk -f "$RBD_REPO/tests/vm/kmemleak-ours" "$res/all" > "$res/ours"
		n_all=$(grep -c '^unreferenced object' "$res/all")
		n_ours=$(grep -c '^unreferenced object' "$res/ours")
		echo "kmemleak: $n_all suspected leaks in all, $n_ours from our modules"
		if [ "$n_ours" -gt 0 ]; then
			echo fail > "$res/status"
			echo "kmemleak: $n_ours suspected leaks allocated by our modules (of $n_all in all; see final/kmemleak/ours)" > "$res/reason"
			cat "$res/ours"
		else
			echo pass > "$res/status"
		fi
	} > "$res/full" 2>&1
	echo "$kstart $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' > "$res/runtime"
	kmsg "END final/kmemleak"
fi

# Final check: every module of ours unloads, i.e. no test leaked a
# reference, and the console is quiet while it does.
res=$OUT/results/final/unload
mkdir -p "$res"
kmsg "START final/unload"
{
	status=pass
	for m in rbdi rbdt; do
		if [ -d "/sys/module/$m" ]; then
			if ! modprobe -r "$m"; then
				status=fail
				echo "module $m could not be unloaded (refcnt $(cat /sys/module/$m/refcnt))" >> "$res/reason"
			fi
		fi
	done
	echo $status > "$res/status"
} > "$res/full" 2>&1
echo 0.0 > "$res/runtime"
kmsg "END final/unload"
echo done > "$OUT/guest-done"
