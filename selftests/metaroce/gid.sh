#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The GID table holds RoCEv2 GIDs for the netdev's IPv4 and IPv6 addresses
# and follows address changes (the RDMA core's RoCE GID management, fed by
# the netdev we registered).
. "$(dirname "$0")/../lib.sh"

mroce_load_or_skip

two_hosts || ksft_skip_all "cannot build the two-namespace topology"
a=$VA
inn() { in1 "$@"; }
dev=mrgid
defer rdma link delete $dev
t_check "rdma link add $dev" inn rdma link add $dev type metaroce netdev "$a"

# gid_index DEV GID (lib.sh) prints the index of GID in the table.
gid_present() { gid_index "$@" >/dev/null; }
gid_absent() { ! gid_index "$@" >/dev/null; }
gid_type() { cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$2"; }
gid_ndev() { cat "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/$2"; }

V4=192.0.2.17
V4GID=0000:0000:0000:0000:0000:ffff:c000:0211
V6=2001:db8:5::17
V6GID=2001:0db8:0005:0000:0000:0000:0000:0017

inn ip addr add $V4/24 dev "$a"
t_check "IPv4 address appears as a GID" busywait 10000 gid_present $dev $V4GID
idx=$(gid_index $dev $V4GID)
t_check "its type is RoCE v2" sh -c "[ \"$(gid_type $dev "${idx:-0}")\" = 'RoCE v2' ]"
t_check "its netdev is $a" sh -c "[ \"$(gid_ndev $dev "${idx:-0}")\" = '$a' ]"

inn ip -6 addr add $V6/64 dev "$a" nodad
t_check "IPv6 address appears as a GID" busywait 10000 gid_present $dev $V6GID

t_check "an IPv6 link-local GID (fe80::) is present" \
	busywait 10000 sh -c "cat /sys/class/infiniband/$dev/ports/1/gids/* | grep -q '^fe80:'"

inn ip addr del $V4/24 dev "$a"
t_check "IPv4 GID removed with the address" busywait 10000 gid_absent $dev $V4GID
inn ip -6 addr del $V6/64 dev "$a"
t_check "IPv6 GID removed with the address" busywait 10000 gid_absent $dev $V6GID

inn ip addr add 198.51.100.5/24 dev "$a"
t_check "a new address after removal appears too" \
	busywait 10000 gid_present $dev 0000:0000:0000:0000:0000:ffff:c633:6405

# No GID of this device may point at a netdev other than its own.
others=$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/ndevs/* 2>/dev/null |
	grep -v -x -e "$a" -e '' | sort -u)
[ -z "$others" ] && t_pass "every GID belongs to $a" || t_fail "every GID belongs to $a"

t_done
