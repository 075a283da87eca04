#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# auto_attach: with the module parameters auto_attach=1 attach_drivers=veth
# every veth gets a device named mroce_<netdev>, at load and on arrival;
# renames, moves to another namespace, bond enslavement and removal are
# followed; other drivers and devices made with `rdma link add` are left
# alone and no netdev is bound twice.  Off by default; a bad name template
# fails the load.  The module is reloaded with parameters, and left
# unloaded at the end, so the next test loads it plain.
. "$(dirname "$0")/../lib.sh"

ko=$MROCE_ROOT/metaroce.ko
[ -f "$ko" ] || ksft_skip_all "no metaroce.ko (run 'make' first)"
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
if mroce_loaded; then
	rmmod metaroce 2>/dev/null || ksft_skip_all "metaroce is in use"
fi
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel dummy ||
	ksft_skip_all "cannot load the RDMA core"
defer rmmod metaroce

both_exist() { ibdev_exists "$1" && ibdev_exists "$2"; }
# bound_in NS DEV NETDEV: rdma link, seen from NS ("" for the initial
# one), shows DEV bound to NETDEV.
bound_in() {
	${1:+ip netns exec "$1"} rdma link show "$2/1" 2>/dev/null |
		grep -q "netdev $3"
}

# Netdevs present before the load: a veth pair and a dummy (not listed).
p=$(uname_of p) q=$(uname_of q) dm=$(uname_of d)
veth_pair "$p" "" "$q" "" || ksft_skip_all "cannot create a veth pair"
defer ip link del "$dm"
ip link add "$dm" type dummy && ip link set "$dm" up ||
	ksft_skip_all "cannot create a dummy netdev"

# ---- off by default
t_check "insmod without parameters" insmod "$ko"
t_check "auto_attach defaults to N, attach_drivers to mlx5_core" sh -c "
	grep -qx N /sys/module/metaroce/parameters/auto_attach &&
	grep -qx mlx5_core /sys/module/metaroce/parameters/attach_drivers"
t_check "no device appears by itself" \
	sh -c "sleep 1; ! test -e /sys/class/infiniband/mroce_$p"
rmmod metaroce

# ---- the name template is checked at load
for bad in nopercent 'a%sb%s' 'x%d%s' "$(printf 'l%.0s' {1..60})%s"; do
	t_check_fail "attach_name='$bad' refuses the load" \
		insmod "$ko" auto_attach=1 attach_drivers=veth "attach_name=$bad"
done
t_check "the refusal says why" \
	sh -c "dmesg | tail -20 | grep -q 'needs exactly one %s'"

# ---- on: netdevs present at load
t_check "insmod auto_attach=1 attach_drivers=veth" \
	insmod "$ko" auto_attach=1 attach_drivers=veth
t_check "veths present at load get mroce_$p and mroce_$q" \
	busywait 10000 both_exist "mroce_$p" "mroce_$q"
t_check "mroce_$p is bound to $p" bound_in "" "mroce_$p" "$p"
t_check "the dummy netdev (driver not listed) gets none" \
	ibdev_gone "mroce_$dm"

# ---- arrival in namespaces, and no double binding
two_hosts || ksft_skip_all "cannot build the two-namespace topology"
t_check "new veths in two namespaces get devices" \
	busywait 10000 both_exist "mroce_$VA" "mroce_$VB"
t_check "mroce_$VA is bound to $VA in $NS1" bound_in "$NS1" "mroce_$VA" "$VA"
t_check_fail "rdma link add on an auto-attached netdev fails (EEXIST)" \
	in1 rdma link add man0 type metaroce netdev "$VA"
defer rdma link delete man1
t_check "rdma link add still works on other netdevs" \
	rdma link add man1 type metaroce netdev "$dm"

# ---- rename and move follow the netdev
in1 ip link set "$VA" down
in1 ip link set "$VA" name "${VA}r"
in1 ip link set "${VA}r" up
t_check "rename: mroce_$VA goes" busywait 10000 ibdev_gone "mroce_$VA"
t_check "rename: mroce_${VA}r comes" \
	busywait 10000 ibdev_exists "mroce_${VA}r"
ns3=$(uname_of n3)
new_netns "$ns3"
ip -n "$NS2" link set "$VB" netns "$ns3"
ip -n "$ns3" link set "$VB" up
t_check "move: mroce_$VB is bound to $VB in its new namespace" \
	busywait 10000 bound_in "$ns3" "mroce_$VB" "$VB"

# ---- bond ports are skipped while enslaved
bond=$(uname_of bo)
if modprobe bonding 2>/dev/null && ip link add "$bond" type bond 2>/dev/null; then
	defer ip link del "$bond"
	ip link set "$p" down
	ip link set "$p" master "$bond"
	t_check "enslaving $p to a bond removes mroce_$p" \
		busywait 10000 ibdev_gone "mroce_$p"
	t_check "the bond itself (driver bonding, not listed) gets none" \
		ibdev_gone "mroce_$bond"
	ip link set "$p" nomaster
	t_check "releasing $p brings mroce_$p back" \
		busywait 10000 ibdev_exists "mroce_$p"
else
	t_skip "bond ports are skipped" "bonding unavailable"
fi

# ---- a device made by hand on a listed netdev is never touched
rdma link delete "mroce_$q"
busywait 5000 ibdev_gone "mroce_$q"
defer rdma link delete man2
t_check "rdma link add man2 on $q (listed driver, no device now)" \
	rdma link add man2 type metaroce netdev "$q"
ip link set "$q" down
ip link set "$q" name "${q}r"
ip link set "${q}r" up
# The work handles netdevs in order: once a later arrival has its device,
# the rename has been looked at.
e=$(uname_of e) f=$(uname_of f)
veth_pair "$e" "" "$f" ""
busywait 10000 ibdev_exists "mroce_$f"
t_check "renaming $q keeps man2 bound to ${q}r" \
	bound_in "" man2 "${q}r"
t_check "and makes no mroce_${q}r" ibdev_gone "mroce_${q}r"

# ---- removal
ip netns del "$NS1"
t_check "deleting $NS1 removes mroce_${VA}r" \
	busywait 20000 ibdev_gone "mroce_${VA}r"
ip link del "$e"
t_check "deleting a veth pair removes both devices" \
	busywait 10000 sh -c "! ls /sys/class/infiniband | grep -qx 'mroce_$e\|mroce_$f'"
t_check "rmmod with automatic devices" rmmod metaroce
t_check "no device is left" sh -c "! ls /sys/class/infiniband | grep -q mroce_"

t_done
