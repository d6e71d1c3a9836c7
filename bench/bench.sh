#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench.sh: "make bench". Boots one guest through the test rig
# (tests/check bench/001@rxe, so the guest lock is respected), runs
# bench/run-guest.sh inside it, then writes the table, JSON and PNG with
# bench/report.py. See Documentation/performance.rst.
#
# Environment:
#   BENCH_QUICK=1      one repetition, two short jobs, two transports'
#                      worth of perftest: for development
#   BENCH_REPS         repetitions, interleaved across transports (2)
#   BENCH_RUNTIME      seconds per fio job (8), BENCH_RAMP ramp seconds (2)
#   BENCH_JOBS         fio jobs: qd1 qd1poll randread32 randwrite32
#                      read128k write128k read1m
#   BENCH_TRANSPORTS   local rbd rnbd nvme srp iser iscsi nbd; also rbdx:
#                      rbd with the session attributes BENCH_RBDX_ATTRS
#                      ("imm_read_size=0 ..."), the target's TPG
#                      attributes BENCH_RBDX_TPG ("data_pool_kb=0
#                      ...") and the module parameters BENCH_RBDX_PARAMS
#                      ("rbdt.complete_inline=0 ..."), for an A/B in one
#                      boot; BENCH_RBDX_MODULES, a directory with another
#                      build's rbdt.ko and rbdi.ko that rbdx runs instead
#   BENCH_PERFTEST     perftest runs, TEST:SIZE (empty: none)
#   BENCH_BACKEND      the RAM disk every transport exports: nullb
#                      (memory-backed null_blk, 1 MiB transfers; default)
#                      or brd (255-sector limit)
#   BENCH_PERF         TRANSPORT:JOB pairs to profile (perf record -a -g in
#                      the guest), e.g. "rbd:randread32 nvme:randread32"
#   BENCH_PERF_MODE    cpu (perf record -a -g: where the CPU time goes;
#                      default) or sched (perf sched record: who runs
#                      when, on which CPU, and the CPUs' idle time)
#   RBD_RESULTS        results directory (results/bench-<date>)
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench: must run as root (the test rig needs it)" >&2; exit 2; }

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	: "${BENCH_REPS:=1}" "${BENCH_RUNTIME:=4}" "${BENCH_RAMP:=1}"
	: "${BENCH_JOBS:=qd1 randread32}"
	: "${BENCH_PERFTEST:=write_bw:4096 write_lat:4096}"
fi
RUN=${RBD_RESULTS:-$REPO/results/bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$RUN/single"
# The guest reads its settings from the run's shared directory.
{
	for v in BENCH_REPS BENCH_RUNTIME BENCH_RAMP BENCH_JOBS BENCH_TRANSPORTS BENCH_PERFTEST BENCH_PERF BENCH_PERF_MODE BENCH_RBDX_ATTRS BENCH_RBDX_TPG BENCH_RBDX_PARAMS BENCH_RBDX_MODULES BENCH_BACKEND; do
		[ -n "${!v+x}" ] && printf "%s='%s'\n" "$v" "${!v}"
	done
} > "$RUN/single/bench.conf"

start=$(date +%s)
RBD_RESULTS=$RUN RBD_TRANSPORTS=rxe "$REPO/tests/check" bench/001@rxe
rc=$?
echo "bench: guest run took $(( $(date +%s) - start ))s"

raw=$RUN/single/results/bench/001@rxe/raw
if [ ! -d "$raw" ]; then
	echo "bench: no raw results in $raw" >&2
	exit 1
fi
# Debian's python3, which has python3-matplotlib (not one earlier in PATH).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" "$REPO/bench/report.py" "$raw" --out "$RUN" || exit 1
cp "$RUN/bench.json" "$REPO/results/bench.json"
cp "$RUN/bench.png" "$REPO/results/bench.png" 2>/dev/null
cp "$RUN/bench.txt" "$REPO/results/bench.txt"
echo "bench: $RUN/bench.txt, $RUN/bench.json, $RUN/bench.png (copies in results/)"
exit $rc
