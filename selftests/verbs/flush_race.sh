#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Bounded flush (IBTA 10.3.1, 11.4.2.1): flush_race.c first posts more
# sends than its CQ holds to a QP in ERR (the flush must stop at the full
# CQ and resume as the CQ drains), then races the producer
# indices of its own SQ and RQ rings from a second thread while its QP is
# in ERR and the main thread rings empty doorbells, cycles the QP through
# RESET back to ERR and lets the 16-entry CQ overrun.  With the soft
# lockup detector armed at a 4 s threshold (softlockup_panic=1 is on the
# VM's command line: a lockup panics the guest and fails the run) and the
# RCU stall timeout at 3 s, no doorbell may take half the race (the host
# of a TCG guest can stall a vCPU for a second or two; an unbounded flush
# spins for as long as the race lasts), the
# CQ overrun must be reported as IBV_EVENT_CQ_ERR, and the guest must stay
# responsive.  MROCE_T_FLUSH_RACE_SECS (default 8) sets the race length.
source "$(dirname "$0")/../lib.sh"

SECS=${MROCE_T_FLUSH_RACE_SECS:-8}

verbs_prologue
dev=f$$r
verbs_one_dev "$dev"

# Arm the detectors for this test only.
stall=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
old_thresh=$(sysctl -n kernel.watchdog_thresh)
old_panic=$(sysctl -n kernel.softlockup_panic)
defer sysctl -qw kernel.watchdog_thresh="$old_thresh" kernel.softlockup_panic="$old_panic"
sysctl -qw kernel.watchdog_thresh=2 kernel.softlockup_panic=1
if [ -w "$stall" ]; then
	old_stall=$(cat "$stall")
	defer sh -c "echo $old_stall > $stall"
	echo 3 > "$stall"
fi
echo "# watchdog_thresh $(sysctl -n kernel.watchdog_thresh), softlockup_panic $(sysctl -n kernel.softlockup_panic)"

out=$(timeout $((SECS + 60)) "$SUITE_BIN/flush_race" "$dev" "$SECS")
rc=$?
tap_relay "" <<<"$out"
[ $rc -le 1 ] || t_fail "flush_race exited $rc"
t_check "the guest still answers: a fresh device comes and goes" \
	sh -c "rdma link add ${dev}2 type metaroce netdev $(uname_of b) &&
	       rdma link del ${dev}2"
t_done
