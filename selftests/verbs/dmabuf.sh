#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# dma-buf memory regions (ibv_reg_dmabuf_mr) between two MetaRoCE devices in
# two namespaces (dmabuf_xfer.c): RC WRITE, READ, SEND and FETCH_ADD in and
# out of a region of a dma-buf, data checked through the buffer's own
# mapping; buffers from vgem (the DRM exporter of Debian's kernel) and from
# the test exporter kmod/mroce_dbx.ko, which alone can revoke a buffer
# (move_notify) and count what an importer holds.  Then rdma-core's pyverbs
# dma-buf tests, which allocate on amdgpu or i915 only: on vgem they skip.
source "$(dirname "$0")/../lib.sh"

DBX=$SUITE_DIR/kmod/mroce_dbx.ko
BIN=$SUITE_BIN/dmabuf_xfer

verbs_prologue
dp_topo mm || ksft_skip_all "cannot build the two-namespace topology"
args=(-a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2")
out=$(mktemp)
defer rm -f "$out"

# xfer SOURCE: dmabuf_xfer's results as subtests, then its exit status
# (it bails out, exit 2, when a setup step such as a registration fails).
xfer() {
	local rc
	timeout 120 "$BIN" "${args[@]}" -x "$1" >"$out" 2>&1
	rc=$?
	tap_relay "$1: " <"$out"
	t_check "$1: dmabuf_xfer exit status $rc" [ $rc -eq 0 ]
}

# vgem: the card node appears once the module is in.
if modprobe vgem 2>/dev/null && busywait 5000 sh -c 'ls /dev/dri/card* >/dev/null 2>&1'; then
	defer modprobe -r vgem
	xfer vgem
else
	t_skip "vgem" "no vgem module or no /dev/dri card"
fi

# The top-level make builds mroce_dbx.ko for the kernel of the tests; on
# another one (the debug lane's) build a copy for it, as kconsumer.sh does.
kver=$(uname -r)
if [ -f "$DBX" ] && [ "$(modinfo -F vermagic "$DBX" | cut -d' ' -f1)" != "$kver" ]; then
	kdir=$(mktemp -d)
	defer rm -rf "$kdir"
	cp "$SUITE_DIR"/kmod/mroce_dbx.[ch] "$kdir/" && echo 'obj-m := mroce_dbx.o' >"$kdir/Kbuild"
	timeout 900 make -s -C "/lib/modules/$kver/build" M="$kdir" modules >/dev/null 2>&1 &&
		DBX=$kdir/mroce_dbx.ko
fi
if [ "$(modinfo -F vermagic "$DBX" 2>/dev/null | cut -d' ' -f1)" != "$kver" ]; then
	t_skip "dbx" "no mroce_dbx.ko for kernel $kver (top-level make builds it)"
elif insmod "$DBX"; then
	defer rmmod mroce_dbx
	busywait 5000 test -c /dev/mroce_dbx
	xfer dbx
	t_check "rmmod mroce_dbx: no buffer left behind" rmmod mroce_dbx
else
	t_fail "insmod $DBX"
fi

# rdma-core's DmaBufMRTest: report what it does on this machine.
SRC=/usr/share/doc/rdma-core/tests
if $PY -c 'import pyverbs' 2>/dev/null && [ -f "$SRC/test_mr.py.gz" ]; then
	work=$(mktemp -d)
	defer rm -rf "$work"
	cp -r "$SRC" "$work/tests" && gunzip -f "$work"/tests/*.gz
	modprobe vgem 2>/dev/null
	log=$work/pyverbs-dmabuf.log
	(cd "$work" && timeout 300 $PY tests/run_tests.py --dev "$DEV1" --port 1 \
		--gid "$G1" -v tests.test_mr.DmaBufMRTest) >"$log" 2>&1
	[ -n "${MROCE_RESULTS:-}" ] && cp "$log" "$MROCE_RESULTS/" 2>/dev/null
	# unittest -v: "<description> ... ok|skipped '<why>'|FAIL|ERROR".
	while read -r line; do
		name=${line%% ... *}
		case $line in
		*"... ok") t_pass "pyverbs DmaBufMRTest: $name" ;;
		*"... skipped"*) t_skip "pyverbs DmaBufMRTest: $name" "${line#* ... skipped }" ;;
		*) t_fail "pyverbs DmaBufMRTest: $name" ;;
		esac
	done < <(grep -E ' \.\.\. (ok|skipped|FAIL|ERROR)' "$log")
	grep -qE ' \.\.\. (ok|skipped|FAIL|ERROR)' "$log" ||
		t_fail "pyverbs DmaBufMRTest ran no test (see $log)"
	modprobe -r vgem 2>/dev/null
else
	t_skip "pyverbs DmaBufMRTest" "python3-pyverbs or its tests not installed"
fi
t_done
