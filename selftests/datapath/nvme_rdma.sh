#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Fast registration (FRWR) as a real kernel consumer uses it: the kernel's
# NVMe over RDMA target (nvmet-rdma) exports a memory-backed null_blk
# device, the kernel's NVMe over RDMA host (nvme-rdma) connects to it over
# one MetaRoCE device (both ends on it: nvme-rdma and nvmet-rdma use the
# initial namespace only).  The host maps every I/O buffer with
# ib_alloc_mr + ib_map_mr_sg + IB_WR_REG_MR; the target RDMA READs (host
# writes) and WRITEs (host reads) through that rkey and answers with a
# SEND with invalidate naming it (or the host posts IB_WR_LOCAL_INV).
# 8 MiB of random data written with O_DIRECT must read back the same.
source "$(dirname "$0")/../lib.sh"

NQN=mroce-$$
CFG=/sys/kernel/config/nvmet
IP=192.0.2.71

mroce_load_or_skip
for m in null_blk nvmet nvmet-rdma nvme-rdma; do
	modinfo "$m" >/dev/null 2>&1 || ksft_skip_all "no $m module"
done
modprobe null_blk nr_devices=1 memory_backed=1 gb=1 ||
	ksft_skip_all "cannot load null_blk"
defer modprobe -r null_blk
defer modprobe -r nvme-rdma nvmet-rdma nvmet
modprobe nvmet-rdma && modprobe nvme-rdma || ksft_skip_all "cannot load nvme rdma modules"
# nvmet loaded configfs, which made its mount point.
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	ksft_skip_all "no configfs"

va=$(uname_of a) vb=$(uname_of b) dev=$(uname_of v)
veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
ip addr add $IP/24 dev "$va"
defer rdma link del "$dev"
rdma link add "$dev" type metaroce netdev "$va" || ksft_skip_all "rdma link add failed"
busywait 5000 port_state_is "$dev" ACTIVE
use_build_provider
info=$(ibv_devinfo -v -d "$dev" 2>&1)
t_check "$dev advertises memory management extensions" \
	grep -q MEM_MGT_EXTENSIONS <<<"$info"
t_check "$dev advertises memory windows of type 2B" \
	grep -q MEM_WINDOW_TYPE_2B <<<"$info"
klog_mark

# Target: subsystem NQN with namespace 1 on /dev/nullb0, RDMA port 4420.
sub=$CFG/subsystems/$NQN port=$CFG/ports/$(($$ % 65000 + 1))
defer rmdir "$sub"
defer rmdir "$sub/namespaces/1"
defer sh -c "echo 0 > '$sub/namespaces/1/enable'"
mkdir "$sub" && echo 1 >"$sub/attr_allow_any_host" &&
	mkdir "$sub/namespaces/1" &&
	echo /dev/nullb0 >"$sub/namespaces/1/device_path" &&
	echo 1 >"$sub/namespaces/1/enable" || ksft_skip_all "nvmet configfs refused the subsystem"
defer rmdir "$port"
mkdir "$port" && echo rdma >"$port/addr_trtype" && echo ipv4 >"$port/addr_adrfam" &&
	echo $IP >"$port/addr_traddr" && echo 4420 >"$port/addr_trsvcid" ||
	ksft_skip_all "nvmet configfs refused the port"
defer rm -f "$port/subsystems/$NQN"
t_check "nvmet-rdma listens on $IP:4420 ($dev)" ln -s "$sub" "$port/subsystems/$NQN"

# Host: connect through /dev/nvme-fabrics (no nvme-cli needed).
ctrl_of_nqn() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}
# keep_alive_tmo 30 s, not the default 5 s: the host stops its keep-alives
# when it starts removing the controller, and removing the I/O queues took
# about 12 s under TCG; with 5 s the target declares the controller dead
# and the host's final shutdown command waits out the 60 s admin timeout.
t_check "nvme-rdma connects to $NQN" \
	sh -c "echo 'transport=rdma,traddr=$IP,trsvcid=4420,nqn=$NQN,keep_alive_tmo=30' >/dev/nvme-fabrics"
busywait 10000 ctrl_of_nqn >/dev/null
ctrl=$(ctrl_of_nqn)
# The namespace's block device (nvmeXnY, not the hidden path nvmeXcZnY)
# whose subsystem is ours.
ns_blk() {
	local b
	for b in /sys/block/nvme*n*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		grep -qx "$NQN" "$b/device/subsysnqn" 2>/dev/null ||
			grep -qx "$NQN" "$b/../../subsysnqn" 2>/dev/null ||
			[ "$(ls /sys/class/nvme | wc -l)" -eq 1 ] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}
busywait 10000 ns_blk >/dev/null
blk=$(ns_blk)
t_check "namespace block device of $ctrl (${blk:-none})" test -b "${blk:-/nonexistent}"

work=$(mktemp -d)
defer rm -rf "$work"
dd if=/dev/urandom of="$work/pat" bs=1M count=8 status=none
t_check "8 MiB written with O_DIRECT (128 KiB requests)" \
	timeout 120 dd if="$work/pat" of="$blk" bs=128k oflag=direct status=none
t_check "read back with O_DIRECT" \
	timeout 120 dd if="$blk" of="$work/back" bs=128k count=64 iflag=direct status=none
t_check "data read back equals data written" cmp "$work/pat" "$work/back"
delete_ctrl() {
	echo 1 >"/sys/class/nvme/$ctrl/delete_controller" && ! ctrl_of_nqn >/dev/null
}
t0=$(date +%s)
t_check "controller $ctrl removed" timeout 90 bash -c "$(declare -f ctrl_of_nqn delete_ctrl); NQN=$NQN ctrl=$ctrl delete_ctrl"
echo "# controller removal took $(($(date +%s) - t0)) s"
log_has_error() { klog_since | grep -iE '(nvme|rdma).*(error|fail|timeout)'; }
t_check_fail "the kernel log has no nvme or rdma error" log_has_error
echo "# $dev: $(dp_counters "$dev")"
t_done
