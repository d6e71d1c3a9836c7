#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs on the target host of the dual topology. Executes, in order, the
# requests that tests on the initiator host leave in shared/peer/ (NNN.req,
# a bash snippet run with tests/common/rc sourced) and answers each with
# NNN.out (its output) and NNN.rc (its exit status). Ends when the host
# creates shared/peer/shutdown.

OUT=/mnt/rbd-out
Q=$OUT/shared/peer
set -a
# shellcheck source=/dev/null
. "$OUT/peer.conf"
set +a

while [ ! -e "$Q/shutdown" ]; do
	found=0
	for req in "$Q"/*.req; do
		[ -e "$req" ] || continue
		found=1
		base=${req%.req}
		echo "$(date +%T) running $(basename "$req"): $(head -c 200 "$req")"
		echo "<5>rbd-peer: request $(basename "$base")" > /dev/kmsg
		timeout -k 5 600 bash -c '. "$1/tests/common/rc"; . "$2"' _ "$RBD_REPO" "$req" \
			> "$base.out.tmp" 2>&1
		rc=$?
		mv "$base.out.tmp" "$base.out"
		rm -f "$req"
		echo $rc > "$base.rc.tmp"
		mv "$base.rc.tmp" "$base.rc"
	done
	[ $found -eq 1 ] || sleep 0.2
done
