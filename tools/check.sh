#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make check`: every test, fastest first.
#   1. build checks on the host: metaroce.ko with W=1 (no warnings), sparse
#      (make C=2), the provider;
#   2. host unit tests and a short fuzz smoke of the transport core, the
#      host tests of the metaroce command, the Wireshark dissector
#      (tools/wireshark/test.sh), the newcomer path
#      (tools/newcomer_test.sh), the provider's libibverbs ABI guard
#      (tools/provider_abi_test.sh), DKMS packaging (tools/dkms_test.sh)
#      and the Debian packages (tools/deb_test.sh);
#   3. the VM runner's own check (a planted splat must fail a run);
#   4. all VM selftests in one QEMU boot.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero on any
# failure.  Logs go to build/check/.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
LOG=$ROOT/build/check
# Start from a clean build (make clean empties build/ but for the debug
# kernel cache, build/debugkernel/).
make -s clean >/dev/null 2>&1
mkdir -p "$LOG"

pass=0 fail=0 skip=0
failed_names=()

ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); failed_names+=("$1"); echo "not ok - $*"; }
skp() { skip=$((skip + 1)); echo "ok - $1 # SKIP $2"; }

# Count TAP results (ok / not ok / # SKIP) from a log into the totals.
count_tap() {
	local f=$1 p s n
	p=$(grep -cE '^ok [0-9]+' "$f")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$f")
	n=$(grep -cE '^not ok [0-9]+' "$f")
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + n))
	[ "$n" -gt 0 ] && failed_names+=("$(grep -E '^not ok' "$f" | head -5 | tr '\n' ';')")
	return 0
}

echo "== dependencies"
if ! "$ROOT/tools/deps.sh"; then
	echo "0 passed, 1 failed"
	exit 1
fi
export KVER=${KVER:-$("$ROOT/tools/kver.sh")}

echo "== build (W=1, sparse)"
if make W=1 modules >"$LOG/build.log" 2>&1 && [ -f metaroce.ko ]; then
	if grep -E 'warning:|error:' "$LOG/build.log"; then
		nok "metaroce.ko builds with W=1 without warnings"
	else
		ok "metaroce.ko builds with W=1 without warnings"
	fi
else
	tail -40 "$LOG/build.log"
	nok "metaroce.ko builds"
	echo "$pass passed, $fail failed, $skip skipped"
	exit 1
fi
if make C=2 W=1 modules >"$LOG/sparse.log" 2>&1; then
	if grep -E 'warning:|error:' "$LOG/sparse.log"; then
		nok "sparse (make C=2) is clean"
	else
		ok "sparse (make C=2) is clean"
	fi
else
	tail -20 "$LOG/sparse.log"
	nok "sparse (make C=2) runs"
fi
# Leave the tree built with the default flags: kbuild rebuilds every object
# whose command line changed, and the VM's `make install` must not have to
# (a rebuild under TCG takes many minutes).
if ! make -s modules >"$LOG/build-default.log" 2>&1; then
	tail -20 "$LOG/build-default.log"
	nok "metaroce.ko builds with default flags"
fi
if [ -f userspace/Makefile ]; then
	if make -s provider >"$LOG/provider.log" 2>&1 &&
		! grep -E 'warning:|error:' "$LOG/provider.log"; then
		ok "provider builds without warnings"
	else
		tail -20 "$LOG/provider.log"
		nok "provider builds without warnings"
	fi
fi

# tap_run TITLE LOG CMD...: run CMD, which prints TAP, and count its
# results; exit status 4 with no result is a skip.
tap_run() {
	local title=$1 log=$2 rc
	shift 2
	"$@" >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq 4 ] && ! grep -qE '^(not )?ok [0-9]' "$log"; then
		skp "$title" "$(grep -m1 -o 'SKIP.*' "$log")"
		return
	fi
	count_tap "$log"
	grep -E '^not ok' "$log"
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$log"; then
		tail -20 "$log"
		nok "$* exited $rc"
	fi
	echo "$title: $(grep -cE '^ok' "$log") ok, $(grep -cE '^not ok' "$log") not ok"
}

# host_tap TITLE TARGET: run a make target that prints TAP and count it.
host_tap() {
	local title=$1 target=$2
	echo "== $title"
	if [ ! -f "selftests/${target%%-*}/Makefile" ]; then
		skp "$title" "selftests/${target%%-*} does not exist yet"
		return
	fi
	tap_run "$target" "$LOG/$target.log" make -s "$target"
}
host_tap "host unit tests" unit
host_tap "fuzz smoke" fuzz-smoke
host_tap "metaroce command (fixture sysfs)" cli-test

echo "== Wireshark dissector (tshark on a pcap from the core's encoders)"
tap_run wireshark "$LOG/wireshark.log" "$ROOT/tools/wireshark/test.sh"

echo "== newcomer path (make demo, bench and check before the kernel is installed)"
tap_run newcomer "$LOG/newcomer.log" "$ROOT/tools/newcomer_test.sh"

echo "== provider ABI guard (build and load against another libibverbs release)"
tap_run provider-abi "$LOG/provider-abi.log" "$ROOT/tools/provider_abi_test.sh"

echo "== DKMS (make dkms-install, autoinstall for a second kernel, dkms-uninstall)"
tap_run dkms "$LOG/dkms.log" "$ROOT/tools/dkms_test.sh"

echo "== Debian packages (make deb)"
tap_run deb "$LOG/deb.log" "$ROOT/tools/deb_test.sh"

echo "== VM runner self-check"
"$ROOT/tools/vm/selftest.sh" >"$LOG/vm-selftest.log" 2>&1
count_tap "$LOG/vm-selftest.log"
grep -E '^(ok|not ok)' "$LOG/vm-selftest.log"

echo "== VM selftests (one boot)"
"$ROOT/tools/vm/run.sh" --name selftests --timeout "${VM_TIMEOUT:-4200}" -- \
	"$ROOT/selftests/run_guest.sh"
rc=$?
sum=$ROOT/build/vm/selftests/summary.txt
if [ -f "$sum" ]; then
	p=$(awk '$1 == "passed" {print $2}' "$sum")
	f=$(awk '$1 == "failed" {print $2}' "$sum")
	s=$(awk '$1 == "skipped" {print $2}' "$sum")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_names+=("VM selftests: $f subtests")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		nok "VM run exited $rc (kernel splat or VM failure)"
	fi
else
	nok "VM selftests produced no summary (run.sh exit $rc)"
fi

echo
[ "$fail" -gt 0 ] && printf 'failed: %s\n' "${failed_names[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
