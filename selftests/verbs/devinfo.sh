#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# libibverbs finds the build tree's provider, matches a MetaRoCE device
# whatever its name, opens it and reports sane device and port attributes.
source "$(dirname "$0")/../lib.sh"

command -v ibv_devinfo >/dev/null || ksft_skip_all "ibverbs-utils not installed"
mroce_load_or_skip
use_build_provider

dev=v$$x
verbs_one_dev "$dev" "rdma link add $dev (a name without a metaroce prefix)"

t_check "sysfs attribute metaroce_abi_version" \
	grep -qx 2 "/sys/class/infiniband/$dev/metaroce_abi_version"

out=$(ibv_devices 2>&1)
if grep -qw "$dev" <<<"$out"; then t_pass "ibv_devices lists $dev"
else t_fail "ibv_devices lists $dev"; echo "$out" | sed 's/^/#   /'; fi

info=$(ibv_devinfo -v -d "$dev" 2>&1)
rc=$?
echo "$info" | sed 's/^/# /'
[ $rc -eq 0 ] && t_pass "ibv_devinfo -v -d $dev" || t_fail "ibv_devinfo -v -d $dev (exit $rc)"

field() { awk -v k="$1:" '$1 == k { print $2; exit }' <<<"$info"; }
t_check "transport InfiniBand" [ "$(field transport)" = "InfiniBand" ]
t_check "port state PORT_ACTIVE" [ "$(field state)" = "PORT_ACTIVE" ]
t_check "link_layer Ethernet" [ "$(field link_layer)" = "Ethernet" ]
mtu=$(field active_mtu) max=$(field max_mtu)
t_check "active_mtu ($mtu) 1024 for a 1500-byte netdev, max_mtu ($max) 4096" \
	[ "$mtu" = 1024 -a "$max" = 4096 ]
t_check "fw_ver 1.0.0" [ "$(field fw_ver)" = 1.0.0 ]
t_check "max_qp 65536, max_qp_wr 16384, max_sge 32" \
	[ "$(field max_qp)" = 65536 -a "$(field max_qp_wr)" = 16384 -a "$(field max_sge)" = 32 ]
t_check "max_cqe, max_srq_wr, max_qp_rd_atom" \
	[ "$(field max_cqe)" = 65536 -a "$(field max_srq_wr)" = 16384 -a "$(field max_qp_rd_atom)" = 128 ]
t_check "node_guid matches sysfs" \
	[ "$(field node_guid)" = "$(cat /sys/class/infiniband/$dev/node_guid)" ]
t_check "an IPv4 RoCE v2 GID for 192.0.2.1" \
	grep -Eq 'GID\[ *[0-9]+\]:.*::ffff:192\.0\.2\.1, RoCE v2' <<<"$info"
t_check "a link-local RoCE v2 GID" \
	grep -Eq 'GID\[ *[0-9]+\]:[[:space:]]*fe80:.*RoCE v2' <<<"$info"

# Matching does not depend on the name: rename the device and open it again.
new=q$$y
if rdma dev set "$dev" name "$new"; then
	defer rdma link del "$new"
	t_check "ibv_devinfo after renaming $dev to $new" ibv_devinfo -d "$new"
else
	t_fail "rdma dev set $dev name $new"
fi

t_done
