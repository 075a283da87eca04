#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest half of the debug lane (tools/debugkernel/lane.sh), run by
# tools/vm/run.sh on the debug kernel.
#
#   guest.sh plant BUG...      load metaroce.ko once with no planted bug, then
#                              once per BUG with plant_bug=BUG; each load is
#                              framed in the kernel log by
#                              "mroce-plant: begin <bug>" / "end <bug>"
#                              ("none" for the load without a bug)
#   guest.sh tests SUITE...    the selftests, as selftests/run_guest.sh runs
#                              them (MROCE_T_ONLY picks the subset)
#
# $MROCE_T_DEBUG_MODULE is metaroce.ko built against the debug kernel; it is
# copied over the tree's metaroce.ko in the guest's overlay (the host's file
# is untouched), so every test, `make install` included, uses it; the
# selftests' kmod/ modules built against it ($MROCE_T_DEBUG_KMODS/<suite>)
# likewise.
set -u
ROOT=${MROCE_ROOT:?}
kmemleak=/sys/kernel/debug/kmemleak

mark() {
	echo "mroce-plant: $*" >/dev/kmsg
}

use_debug_module() {
	[ -f "${MROCE_T_DEBUG_MODULE:-}" ] || {
		echo "guest.sh: no debug metaroce.ko (MROCE_T_DEBUG_MODULE)" >&2
		exit 1
	}
	cp "$MROCE_T_DEBUG_MODULE" "$ROOT/metaroce.ko" || exit 1
	# The selftests' test modules, built against this kernel by build.sh.
	local ko suite
	for suite in verbs metaroce; do
		for ko in "${MROCE_T_DEBUG_KMODS:-/nonexistent}/$suite"/*.ko; do
			[ -f "$ko" ] && { cp "$ko" "$ROOT/selftests/$suite/kmod/" || exit 1; }
		done
	done
	modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel || exit 1
}

# A leak is reported once the object is 5 s old (kmemleak's minimum age)
# and unreferenced on a scan; guest-init.sh made kmemleak print reports to
# the kernel log.
leak_scan() {
	[ -w "$kmemleak" ] || return 0
	sleep 6
	echo scan >"$kmemleak"
	echo scan >"$kmemleak"
}

plant_one() {
	local bug=$1 arg=
	[ "$bug" = none ] || arg="plant_bug=$bug"
	mark "begin $bug"
	# shellcheck disable=SC2086  # $arg is empty or one word
	if insmod "$ROOT/metaroce.ko" $arg; then
		rmmod metaroce || echo "guest.sh: rmmod after plant_bug=$bug failed"
	else
		echo "guest.sh: insmod plant_bug=$bug failed"
	fi
	case "$bug" in none|leak) leak_scan ;; esac
	# Reports are printed from other contexts too (RCU, timers): give them
	# the time to land inside this bug's frame.
	sleep 1
	mark "end $bug"
}

case "${1:-}" in
plant)
	shift
	use_debug_module
	plant_one none
	for bug in "$@"; do
		plant_one "$bug"
	done
	;;
tests)
	shift
	use_debug_module
	exec bash "$ROOT/selftests/run_guest.sh" "$@"
	;;
*)
	echo "usage: guest.sh plant BUG... | tests SUITE..." >&2
	exit 2
	;;
esac
