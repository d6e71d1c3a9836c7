#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's test command: on a fresh Debian 12 machine, install what is
# missing, build everything, run the style checks, the unit tests and the
# whole guest suite. Arguments are passed to tests/check as the selection
# (default: all). Exit status is non-zero if anything failed.
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
make -s check-guest T="$*"
echo "test: everything passed in $(( $(date +%s) - start ))s"
