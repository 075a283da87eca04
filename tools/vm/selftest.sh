#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Check the VM runner itself, so a broken runner cannot turn every VM test
# green: the guest script's exit status must come back, a kernel splat in
# the guest log must fail an otherwise passing run, and the wall-clock limit
# must stop a hung guest.  TAP output.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/tools/vm/run.sh
G=$ROOT/tools/vm/selftest-guest.sh
n=0 failed=0

check() {
	local desc=$1 want=$2 got=$3
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (want $want, got $got)"
		failed=1
	fi
}

echo "TAP version 13"
"$RUN" --name runner-status --timeout 300 -- "$G" status >/dev/null 2>&1
check "guest exit status is returned" 3 $?
grep -q "runner-selftest-output" "$ROOT/build/vm/runner-status/console.log" 2>/dev/null
check "guest output is kept in console.log" 0 $?

"$RUN" --name runner-splat --timeout 300 -- "$G" splat >/dev/null 2>&1
check "a WARNING in the guest kernel log fails the run" 126 $?

"$RUN" --name runner-timeout --timeout 15 -- "$G" hang >/dev/null 2>&1
check "a hung guest is stopped by the timeout" 124 $?
echo "1..$n"
exit $failed
