#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's pyverbs tests on MetaRoCE and rxe in one run, compared module
# by module (pyverbs_table.py).  The caller sources this file, sets
#   MODULES  the test modules, in order
#   SELECT   per module: class or class.method names; "*" is the whole
#            module; an empty entry leaves the module out (with a note)
#   SKIPNOTE what an empty SELECT entry means, for the table
# and calls pyverbs_compare.  Each module runs once per device, within
# PYV_TIMEOUT seconds (default 300).  MROCE_T_PYV_MODULES="m1 m2" runs only
# those of MODULES (for development).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SRC=/usr/share/doc/rdma-core/tests
PYV_TIMEOUT=${PYV_TIMEOUT:-300}

pyverbs_compare() {
	$PY -c 'import pyverbs' 2>/dev/null || ksft_skip_all "python3-pyverbs not installed"
	[ -f "$SRC/run_tests.py" ] || ksft_skip_all "no pyverbs tests in $SRC"
	mroce_load_or_skip
	use_build_provider
	modprobe rdma_rxe 2>/dev/null || ksft_skip_all "no rdma_rxe"
	# rxe keeps UDP 4791 of init_net while loaded: unload it at exit so later
	# tests can put MetaRoCE devices in the initial namespace.
	defer modprobe -r rdma_rxe

	# MetaRoCE in its own namespace: rxe binds UDP 4791 in init_net (6.1).
	ns=$(uname_of n) va=$(uname_of a) vb=$(uname_of b)
	mdev=m$$p rdev=r$$x
	new_netns "$ns" || ksft_skip_all "cannot create a namespace"
	veth_pair "$va" "$ns" "$vb" "" || ksft_skip_all "cannot create veth"
	ip -n "$ns" addr add 192.0.2.1/24 dev "$va"
	ip addr add 192.0.2.2/24 dev "$vb"
	t_check "rdma link add $mdev (metaroce, netns $ns)" mroce_dev_on "$mdev" "$va" "$ns"
	defer rdma link del "$rdev"
	t_check "rdma link add $rdev (rxe)" rdma link add "$rdev" type rxe netdev "$vb"
	busywait 5000 port_state_is "$mdev" ACTIVE
	busywait 5000 port_state_is "$rdev" ACTIVE
	busywait 5000 gid_index "$mdev" v4 >/dev/null
	busywait 5000 gid_index "$rdev" v4 >/dev/null
	mgid=$(gid_index "$mdev" v4) rgid=$(gid_index "$rdev" v4)
	t_check "IPv4 RoCE v2 GIDs: $mdev $mgid, $rdev $rgid" [ -n "$mgid" -a -n "$rgid" ]

	work=$(mktemp -d)
	defer rm -rf "$work"
	cp -r "$SRC" "$work/tests"
	gunzip -f "$work"/tests/*.gz

	logs=$work/logs
	mkdir -p "$logs"
	[ -n "${MROCE_T_PYV_MODULES:-}" ] && read -ra MODULES <<<"$MROCE_T_PYV_MODULES"
	for m in "${MODULES[@]}"; do
		sel=${SELECT[$m]}
		if [ ! -f "$work/tests/$m.py" ]; then
			echo "# $m: not shipped by this rdma-core" >"$logs/absent-$m"
			continue
		fi
		if [ -z "$sel" ]; then
			echo "# $m: $SKIPNOTE" >"$logs/traffic-$m"
			continue
		fi
		names=()
		if [ "$sel" = '*' ]; then
			names=("tests.$m")
		else
			for s in $sel; do names+=("tests.$m.$s"); done
		fi
		(cd "$work" && timeout "$PYV_TIMEOUT" $PY tests/run_tests.py --dev "$mdev" --port 1 \
			--gid "$mgid" -v "${names[@]}") >"$logs/metaroce-$m.log" 2>&1
		(cd "$work" && timeout "$PYV_TIMEOUT" $PY tests/run_tests.py --dev "$rdev" --port 1 \
			--gid "$rgid" -v "${names[@]}") >"$logs/rxe-$m.log" 2>&1
	done
	[ -n "${MROCE_RESULTS:-}" ] &&
		cp -r "$logs" "$MROCE_RESULTS/$(basename "$0" .sh)-logs" 2>/dev/null

	$PY "$SUITE_DIR/pyverbs_table.py" "$logs" "${MODULES[@]}"
	rc=$?
	[ $rc -eq 0 ] && t_pass "pyverbs: MetaRoCE passes wherever rxe does, or the difference is explained" ||
		t_fail "pyverbs: unexplained differences with rxe (see table)"
	t_done
}
