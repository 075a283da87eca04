#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Loopback: QPs of one MetaRoCE device talking to each other.  The packets
# go to one of the namespace's own addresses, so the IP stack hands them
# back through the loopback device; the receive hook must find the device
# by the destination address.  RC and UD pingpong over IPv4 and IPv6 GIDs
# and the random-opcode data check with both ends on the same device.
source "$(dirname "$0")/../lib.sh"

dp_setup mm ibv_rc_pingpong
BIN=$SUITE_BIN/mroce_dpcheck
build_c_tests

# Both ends of every exchange on side 1.
NS2=$NS1 DEV2=$DEV1 G2=$G1 G2_6=$G1_6
rx0=$(mroce_counter "$DEV1" rx_packets)

pp_run "loopback rc_pingpong -s 4096" 1 60 ibv_rc_pingpong -s 4096 -n 50 -c
pp_run "loopback rc_pingpong IPv6 GID -s 65536" 1 60 \
	ibv_rc_pingpong -6 -s 65536 -n 20 -c
pp_run "loopback ud_pingpong -s 1000" 1 60 ibv_ud_pingpong -s 1000 -n 50 -c
seed=$RANDOM
t_check "loopback dpcheck: $DEV1 <-> $DEV1, 200 random ops (seed $seed)" \
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV1" -G "$G1" -n 200 -s $seed
rx1=$(mroce_counter "$DEV1" rx_packets)
t_check "looped packets are received by $DEV1 (rx_packets $rx0 -> $rx1)" \
	test "$((rx1 - rx0))" -gt 500
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
