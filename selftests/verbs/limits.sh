#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Resource limits (Documentation/operators.rst, "Resource limits"):
#  - every per-device limit (sysfs metaroce_max_*) set, reported by
#    query_device, hit (ENOMEM for a count, EINVAL for CQ depth and region
#    size), recovered from, restored; bad values refused (limits.c);
#  - ibv_devinfo -v shows a limit set through sysfs;
#  - the module parameters give a new device its limits, and refuse bad
#    values;
#  - RLIMIT_MEMLOCK: an unprivileged user with `ulimit -l 256` registers
#    256 KiB and no more (ENOMEM), through ib_umem (limits.c -m);
#  - the device's objects and `rdma resource` counts end where they began.
source "$(dirname "$0")/../lib.sh"

verbs_prologue
dev=l$$m
verbs_one_dev "$dev" "rdma link add $dev"

objects() { cat "/sys/class/infiniband/$dev/metaroce_objects"; }
resources() { rdma resource show "$dev" 2>/dev/null | sed 's/^[0-9]*: //'; }
state() { echo "objects: $(objects) | rdma: $(resources)"; }
base=$(state)
echo "# baseline $base"

# Not a pipe into tap_relay: its counts must stay in this shell.
out=$("$SUITE_BIN/limits" "$dev" 2>&1)
rc=$?
tap_relay "sysfs: " <<<"$out"
t_check "limits ran to its end, every case passed" [ "$rc" = 0 ]

# devinfo_field DEV FIELD: FIELD of `ibv_devinfo -v`.
devinfo_field() {
	ibv_devinfo -v -d "$1" | awk -v f="$2:" '$1 == f { print $2; exit }'
}
param=/sys/module/metaroce/parameters

sys=/sys/class/infiniband/$dev
qp0=$(cat "$sys/metaroce_max_qp") cqe0=$(cat "$sys/metaroce_max_cqe")
echo 100 >"$sys/metaroce_max_qp"
echo 50000 >"$sys/metaroce_max_cqe"
t_check "ibv_devinfo -v shows max_qp 100 and max_cqe 50000 set through sysfs" \
	[ "$(devinfo_field "$dev" max_qp)/$(devinfo_field "$dev" max_cqe)" = 100/50000 ]
echo "$qp0" >"$sys/metaroce_max_qp"
echo "$cqe0" >"$sys/metaroce_max_cqe"

# Module parameters: the limits of devices created from now on.
old_qp=$(cat "$param/max_qp") old_mr=$(cat "$param/max_mr")
defer "echo $old_qp >$param/max_qp; echo $old_mr >$param/max_mr"
t_check_fail "module parameter max_qp=0 refused" sh -c "echo 0 >$param/max_qp"
t_check_fail "module parameter max_mr=65537 refused" sh -c "echo 65537 >$param/max_mr"
t_check "refused module parameters unchanged" \
	[ "$(cat "$param/max_qp")/$(cat "$param/max_mr")" = "$old_qp/$old_mr" ]
echo 40 >"$param/max_qp"
echo 30 >"$param/max_mr"
dev2=l$$n
va2=$(uname_of c) vb2=$(uname_of d)
veth_pair "$va2" "" "$vb2" "" || t_fail "second veth"
t_check "rdma link add $dev2 with max_qp=40 max_mr=30" mroce_dev_on "$dev2" "$va2"
t_check "$dev2 has the module's limits (sysfs, ibv_devinfo -v)" \
	[ "$(cat "/sys/class/infiniband/$dev2/metaroce_max_qp")/$(devinfo_field "$dev2" max_qp)/$(devinfo_field "$dev2" max_mr)" = 40/40/30 ]
t_check "$dev keeps its own (max_qp $qp0)" \
	[ "$(devinfo_field "$dev" max_qp)" = "$qp0" ]
echo "$old_qp" >"$param/max_qp"
echo "$old_mr" >"$param/max_mr"
rdma link del "$dev2"

# RLIMIT_MEMLOCK through ib_umem_get(): an unprivileged process (uverbs
# devices are mode 0666) without CAP_IPC_LOCK.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"
}
if ! command -v setpriv >/dev/null; then
	t_skip "memlock" "setpriv not installed"
elif ! nobody test -x "$SUITE_BIN/limits" -a -r "$MROCE_PROVIDER-rdmav34.so"; then
	t_skip "memlock" "user 65534 cannot run $SUITE_BIN/limits"
else
	out=$(bash -c 'ulimit -l 256 && exec "$@"' memlock \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all \
		"$SUITE_BIN/limits" -m "$dev" 256 2>&1)
	rc=$?
	tap_relay "nobody, ulimit -l 256: " <<<"$out"
	t_check "limits -m ran to its end, every case passed" [ "$rc" = 0 ]
fi

same_as_base() { [ "$(state)" = "$base" ]; }
busywait 5000 same_as_base
t_check "objects and rdma resources back to the baseline" same_as_base
echo "# now $(state)"
t_done
