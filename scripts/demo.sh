#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's demo command: on a fresh Debian 12 machine, install what is
# missing, build everything, boot the test guest (QEMU, Debian's kernel,
# Soft-RoCE) and run tests/demo/001 in it: targetcli exports a fileio and
# a block LUN, rbdadm discovers and logs in to both, sg_inq/sg_readcap/
# sg_vpd and a fio verify job on each device, rbdadm stats, a summary
# table, log out. Its transcript is shown as it runs.
# Exit status is non-zero if any step failed.
#
# RBD_TRANSPORTS=siw scripts/demo.sh runs it on soft-iWARP instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: must be run as root (set-up installs packages; the guest rig shares /): try sudo $0" >&2
	exit 2
fi

say() { printf '\n##### %s\n' "$*"; }

start=$(date +%s)
say "set-up: Debian packages, checkpatch, siw (scripts/setup.sh)"
scripts/setup.sh
say "build: rbdt.ko, rbdi.ko, rbdadm, test tools (make)"
make -s all
prov=${RBD_TRANSPORTS:-rxe}
prov=${prov%% *}
results=$PWD/results/demo-$(date +%Y%m%d-%H%M%S)-$$
log=$results/single/results/demo/001@$prov/full
say "boot the guest and run the demo on $prov (tests/check demo/001@$prov)"
RBD_RESULTS=$results RBD_TRANSPORTS=$prov tests/check "demo/001@$prov" &
check=$!
# The guest writes the transcript into the results share as it goes.
tail -n +1 -F --pid=$check "$log" 2>/dev/null &
tailer=$!
rc=0
wait $check || rc=$?
wait $tailer 2>/dev/null || true
if [ $rc -ne 0 ]; then
	say "DEMO FAILED (exit $rc): see the lines above and $results"
	[ -s "${log%/full}/out" ] && sed 's/^/    /' "${log%/full}/out"
	exit 1
fi
say "demo passed in $(( $(date +%s) - start ))s; transcript: $log"
