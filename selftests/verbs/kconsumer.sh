#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A kernel verbs consumer (kmod/mroce_kconsumer.c, a test module built with
# metaroce.ko) on one MetaRoCE device: completion handlers that post from
# the handler, during traffic and during the flush of a QP entering ERR,
# and inline SGE lengths whose 32-bit sum wraps.  The module reports TAP
# lines in the kernel log; each becomes a subtest here.
source "$(dirname "$0")/../lib.sh"

KMOD=$SUITE_DIR/kmod/mroce_kconsumer.ko

verbs_prologue
if [ ! -f "$KMOD" ] || [ "$KMOD" -ot "$SUITE_DIR/kmod/mroce_kconsumer.c" ]; then
	timeout 900 make -s -C "/lib/modules/$(uname -r)/build" \
		M="$SUITE_DIR/kmod" modules >/dev/null 2>&1 ||
		ksft_skip_all "cannot build the test module"
fi
dev=k$$c
verbs_one_dev "$dev"

klog_mark
defer rmmod mroce_kconsumer
timeout 120 insmod "$KMOD" dev="$dev" gid="$VERBS_GID"
rc=$?
t_check "insmod mroce_kconsumer (exit $rc)" [ $rc -eq 0 ]
# Not a pipe into tap_relay: its counts must stay in this shell.
tap_relay "" < <(klog_since | sed -n 's/.*mroce_kconsumer: //p')
reported_three() { klog_since | grep -q 'mroce_kconsumer: 1\.\.3$'; }
t_check "the module reported three results" reported_three
t_check "rmmod mroce_kconsumer" rmmod mroce_kconsumer
t_done
