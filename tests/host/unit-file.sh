#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# systemd-analyze verify over rbd-sessions.service, on the host (the test
# guests do not run systemd). The unit's /usr/sbin/rbdadm is pointed at
# the rbdadm just built, as verify wants its commands to exist; any
# warning (a misspelt key, a value systemd cannot parse) fails.
set -uo pipefail
cd "$(dirname "$0")/../.."

unit=userspace/rbdadm/rbd-sessions.service
rbdadm=$PWD/userspace/rbdadm/rbdadm
command -v systemd-analyze > /dev/null ||
	{ echo "unit-file: no systemd-analyze, $unit not verified"; exit 0; }
[ -x "$rbdadm" ] || { echo "unit-file: build rbdadm first (make userspace)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/sbin/rbdadm|$rbdadm|g" "$unit" > "$tmp/rbd-sessions.service"
out=$(systemd-analyze verify --man=no "$tmp/rbd-sessions.service" 2>&1)
rc=$?
if [ "$rc" != 0 ] || [ -n "$out" ]; then
	echo "unit-file: systemd-analyze verify $unit (exit $rc):"
	echo "$out"
	exit 1
fi
echo "unit-file: $unit verified"
