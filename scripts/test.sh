#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's test command: on a fresh Debian 12 machine, install what is
# missing, build everything, run the style checks, the unit tests and the
# whole guest suite on Debian 12's 6.1, then the core set (tests with
# CORE=1) on 6.12 (Documentation/testing.rst, "Kernels: 6.1 and 6.12").
# Arguments are passed to tests/check as the selection
# (default: all; a selection runs on 6.1 only). Exit status is non-zero if
# anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "test: must be run as root (set-up installs packages; the guest rig shares /): try sudo $0" >&2
	exit 2
fi

start=$(date +%s)
scripts/setup.sh
make -s all
make -s check-style
make -s check-unit
make -s check-fuzz
make -s check-dkms
make -s check-guest T="$*" KERNELS=6.1
# The core set on the other kernels (RBD_CORE_KERNELS, default 6.12; empty
# for none), unless a selection was given.
core_kernels=${RBD_CORE_KERNELS-6.12}
if [ $# -eq 0 ] && [ -n "$core_kernels" ]; then
	make -s check-core KERNELS="$core_kernels"
fi
echo "test: everything passed in $(( $(date +%s) - start ))s"
