#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RC SEND/RECV between two MetaRoCE devices in two namespaces over a veth:
# ibv_rc_pingpong in both directions, data checked by the tool (-c), from
# one byte to multi-packet messages, over IPv4 and IPv6 GIDs.
source "$(dirname "$0")/../lib.sh"

dp_setup mm ibv_rc_pingpong

pp_sizes rc_pingpong ibv_rc_pingpong
pp_run "rc_pingpong IPv6 GID -s 8192" 2 60 ibv_rc_pingpong -6 -s 8192 -n 50 -c
echo "# $DEV1: $(dp_counters "$DEV1")"
echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
