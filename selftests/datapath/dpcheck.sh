#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Data integrity: mroce_dpcheck moves random lengths, offsets and SGE
# layouts with every RC opcode (SEND, SEND_IMM, WRITE, WRITE_IMM, READ,
# CMP_SWP, FETCH_ADD, inline or gathered) in both directions and compares
# checksums of source and destination.  DP_TOPO=mx runs it against rxe.
source "$(dirname "$0")/../lib.sh"

verbs_prologue
BIN=$SUITE_BIN/mroce_dpcheck
topo=${DP_TOPO:-mm}
dp_topo "$topo" || ksft_skip_all "cannot build the $topo topology"

for fam in v4 v6; do
	if [ $fam = v4 ]; then g1=$G1 g2=$G2; else g1=$G1_6 g2=$G2_6; fi
	seed=$RANDOM
	t_check "dpcheck $topo $fam: $DEV1 <-> $DEV2, 300 random ops (seed $seed)" \
		timeout 300 "$BIN" -a "$DEV1" -g "$g1" -b "$DEV2" -G "$g2" -n 300 -s $seed
done
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
