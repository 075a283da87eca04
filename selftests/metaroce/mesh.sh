#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `metaroce mesh` on real devices: three namespaces on one bridge, each
# with its own MetaRoCE device, one namespace's egress rate-limited by
# netem; ib_write_bw and ib_read_lat between every ordered pair must give
# complete matrices of positive figures and a heatmap PNG, flag the pairs
# the slow namespace sends in and name it the likely culprit.
source "$(dirname "$0")/../lib.sh"

mroce_load_or_skip
use_build_provider
for t in ib_write_bw ib_read_lat ss tc gnuplot; do
	command -v $t >/dev/null || ksft_skip_all "$t missing"
done
M=$MROCE_ROOT/tools/metaroce/metaroce
OUT=${MROCE_RESULTS:-/tmp}
TMP=$(mktemp -d)
defer rm -rf "$TMP"

BR=$(uname_of br)
defer ip link del "$BR"
ip link add "$BR" type bridge && ip link set "$BR" up ||
	ksft_skip_all "cannot make a bridge"
NS=()
for k in 1 2 3; do
	ns=$(uname_of n$k)
	NS+=("$ns")
	new_netns "$ns" && veth_pair "${ns}v" "$ns" "${ns}b" "" &&
		ip link set "${ns}b" master "$BR" &&
		ip -n "$ns" addr add 192.0.2.$k/24 dev "${ns}v" &&
		mroce_dev_on "${ns}m" "${ns}v" "$ns" ||
		ksft_skip_all "cannot build namespace $k"
done
has_v4gid() { gid_index "$1" v4 >/dev/null; }
for ns in "${NS[@]}"; do
	busywait 10000 port_state_is "${ns}m" ACTIVE &&
		busywait 10000 has_v4gid "${ns}m" ||
		ksft_skip_all "${ns}m: port or IPv4 GID did not come up"
done
H=("netns:${NS[0]}" "netns:${NS[1]}" "netns:${NS[2]}")

# One namespace's egress slowed (netem): ib_write_bw from it crawls.
modprobe sch_netem 2>/dev/null
ip netns exec "${NS[2]}" tc qdisc add dev "${NS[2]}v" root netem rate 20mbit ||
	ksft_skip_all "netem unavailable"
png_ok() { # FILE: a PNG (signature, IHDR) of at least 400x300 pixels
	$PY -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR", "not a PNG"
w, h = struct.unpack(">II", d[16:24])
print("%dx%d, %d bytes" % (w, h, len(d)))
assert w >= 400 and h >= 300 and len(d) > 5000, "too small"' "$1"
}
printf '# the hosts\n%s\n%s\n%s\n' "${H[@]}" >"$TMP/hosts"
s=$SECONDS
"$M" mesh --json --lat --size 16384 --iters 100 --timeout 30 \
	--png "$OUT/mesh.png" --hosts-file "$TMP/hosts" >"$TMP/m.json"
rc=$?
echo "# mesh of 3 hosts, bandwidth and latency: $((SECONDS - s))s, exit $rc"
jget "$TMP/m.json" "'\n'.join('%s %s' % (r['test'], r['matrix']) for r in j['results'])" |
	sed 's/^/# /'
t_check "mesh: no failed pair, exit 1 for the outliers (exit $rc)" \
	test "$(jget "$TMP/m.json" "len(j['errors'])")/$rc" = 0/1
t_check "hosts resolved to their device and address" test "$(jget "$TMP/m.json" \
	"[(h['device'], h['address']) for h in j['hosts']]")" = \
	"[('${NS[0]}m', '192.0.2.1'), ('${NS[1]}m', '192.0.2.2'), ('${NS[2]}m', '192.0.2.3')]"
full="all((v is None) == (i == k) and (v is None or v > 0) for i, row in enumerate(r['matrix']) for k, v in enumerate(row))"
t_check "both matrices complete (6 pairs), every figure positive" test "$(jget "$TMP/m.json" \
	"[r['test'] for r in j['results'] if $full]")" = "['ib_write_bw', 'ib_read_lat']"
t_check "the pairs ${H[2]} sends in are flagged" test "$(jget "$TMP/m.json" \
	"sorted((o['from'], o['to']) for o in j['results'][0]['outliers'] if o['from'] == '${H[2]}')")" \
	= "[('${H[2]}', '${H[0]}'), ('${H[2]}', '${H[1]}')]"
t_check "${H[2]} named the likeliest culprit, as client" test "$(jget "$TMP/m.json" \
	"[(x['host'], x['role']) for x in j['results'][0]['suspects']][:1]")" = "[('${H[2]}', 'client')]"
t_check "heatmap: a PNG, $(png_ok "$OUT/mesh.png" 2>&1 | tail -1)" png_ok "$OUT/mesh.png"

# ---- a host without a device: the mesh refuses, exit 3
"$M" mesh --timeout 10 "${H[0]}" netns:$(uname_of none) >"$TMP/e.txt" 2>&1
rc=$?
t_check "a missing namespace: exit 3 and a message (exit $rc)" \
	sh -c "[ $rc -eq 3 ] && grep -q 'cannot read its devices' $TMP/e.txt"
echo "# mesh.sh took ${SECONDS}s"
t_done
