#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The parent NIC check: a MetaRoCE device whose netdev shares its parent
# device (a PCI function on a ConnectX) with another RDMA device warns once,
# with the devlink commands for that function; with udp_port other than
# 4791 it says the port avoids the NIC's steering; a veth (no parent) and
# a device created again without the fixture say nothing.  The fixture
# (kmod/mroce_fakenic.c) lays out a NIC as mlx5 does: one parent device,
# an Ethernet netdev and an RDMA device below it.
. "$(dirname "$0")/../lib.sh"

KMOD=$(dirname "$0")/kmod/mroce_fakenic.ko
mroce_load_or_skip
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
if [ ! -f "$KMOD" ] || [ "$KMOD" -ot "${KMOD%.ko}.c" ]; then
	timeout 900 make -s -C "/lib/modules/$(uname -r)/build" \
		M="$(cd "$(dirname "$KMOD")" && pwd)" modules >/dev/null 2>&1 ||
		ksft_skip_all "cannot build the test module"
fi
param=/sys/module/metaroce/parameters/udp_port
defer "echo 4791 > $param"
echo 4791 >"$param"

defer rmmod mroce_fakenic
t_check "insmod mroce_fakenic" insmod "$KMOD"
fnic=$(ls /sys/devices/platform/mroce_fakenic/net 2>/dev/null | head -1)
rdev=$(ls /sys/devices/platform/mroce_fakenic/infiniband 2>/dev/null | head -1)
[ -n "$fnic" ] && [ -n "$rdev" ] || ksft_skip_all "the fixture made no netdev or RDMA device"
ip link set "$fnic" up

# new_log_has PATTERN: the kernel log since the mark has PATTERN.
mark() { klog_mark; }
new_log() { klog_since; }
new_log_has() { new_log | grep -qF -- "$1"; }
new_log_count() { new_log | grep -cF -- "$1"; }

dev=$(uname_of m)
mark
defer rdma link delete "$dev"
t_check "rdma link add on $fnic" rdma link add "$dev" type metaroce netdev "$fnic"
t_check "the warning names the netdev, the parent and the RDMA device" \
	new_log_has "$dev: netdev $fnic shares platform/mroce_fakenic with RDMA device $rdev"
t_check "it says which traffic does not arrive" \
	new_log_has "it takes UDP port 4791 and this device receives nothing"
t_check "it gives the devlink commands for that function" \
	new_log_has "'devlink dev param set platform/mroce_fakenic name enable_roce value false cmode driverinit' then 'devlink dev reload platform/mroce_fakenic'"
t_check "it is printed once" test "$(new_log_count "shares platform/mroce_fakenic")" = 1
t_check "as a warning (level 4)" \
	sh -c "dmesg -l warn | grep -qF '$dev: netdev $fnic shares'"
t_check "sysfs metaroce_nic_roce says it too, with the devlink commands" \
	grep -qF "platform/mroce_fakenic $rdev: UDP port 4791 is taken by the NIC if its RoCE is enabled; disable: devlink dev param set platform/mroce_fakenic name enable_roce value false cmode driverinit && devlink dev reload platform/mroce_fakenic" \
	"/sys/class/infiniband/$dev/metaroce_nic_roce"
rdma link delete "$dev"
busywait 5000 ibdev_gone "$dev"

echo 4793 >"$param"
mark
t_check "with udp_port=4793" rdma link add "$dev" type metaroce netdev "$fnic"
t_check "it says port 4793 avoids the steering instead" \
	new_log_has "$dev: netdev $fnic shares platform/mroce_fakenic with RDMA device $rdev; UDP port 4793 avoids"
t_check_fail "and gives no warning" new_log_has 'receives nothing'
rdma link delete "$dev"
busywait 5000 ibdev_gone "$dev"
echo 4791 >"$param"

a=$(uname_of a) b=$(uname_of b)
veth_pair "$a" "" "$b" ""
mark
defer rdma link delete "${dev}v"
t_check "rdma link add on a veth" rdma link add "${dev}v" type metaroce netdev "$a"
t_check_fail "a veth (no parent device) gives no warning" \
	new_log_has shares
t_check "and metaroce_nic_roce reads none" \
	grep -qx none "/sys/class/infiniband/${dev}v/metaroce_nic_roce"
t_done
