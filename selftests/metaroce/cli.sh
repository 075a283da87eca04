#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The `metaroce` operator command (tools/metaroce) on real devices: status,
# stats --prometheus and top (devices and QPs) against what sysfs and the
# tools say, config (set, read back, refused), top in
# tmux (renders, refreshes, takes keys), then doctor with planted
# problems (an MTU mismatch, a drop counter that climbs during its
# sampling, a wrong rdma_cm default TOS) and again once they are fixed.
. "$(dirname "$0")/../lib.sh"

mroce_load_or_skip
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
[ -x $PY ] || ksft_skip_all "Debian's python3 missing"
M=$MROCE_ROOT/tools/metaroce/metaroce
mroce() { "$M" "$@"; }
use_build_provider
TMP=$(mktemp -d)
defer rm -rf "$TMP"

two_hosts || ksft_skip_all "cannot build the two-namespace topology"
dA=mrcliA dB=mrcliB
in1 ip addr add 192.0.2.1/24 dev "$VA"
in2 ip addr add 192.0.2.2/24 dev "$VB"
defer rdma link delete $dA
defer rdma link delete $dB
in1 rdma link add $dA type metaroce netdev "$VA" &&
	in2 rdma link add $dB type metaroce netdev "$VB" ||
	ksft_skip_all "rdma link add failed"
# v4gid DEV N: the index of the GID of 192.0.2.N on DEV.
v4gid() { gid_index "$1" "0000:0000:0000:0000:0000:ffff:c000:020$2"; }
has_v4gid() { v4gid "$@" >/dev/null; }
busywait 10000 port_state_is $dA ACTIVE && busywait 10000 port_state_is $dB ACTIVE &&
	busywait 10000 has_v4gid $dA 1 && busywait 10000 has_v4gid $dB 2 ||
	ksft_skip_all "ports or GIDs did not come up"
gA=$(v4gid $dA 1) gB=$(v4gid $dB 2)

# ---- status
mroce status --json >"$TMP/st.json"
rc=$?
t_check "status --json exits 0 on two healthy devices (exit $rc)" [ $rc -eq 0 ]
dev_expr="[d for d in j['status']['devices'] if d['name'] == '$dA'][0]"
t_check "status lists $dA and $dB" test "$(jget "$TMP/st.json" \
	"sorted(d['name'] for d in j['status']['devices'] if d['name'].startswith('mrcli'))")" \
	= "['$dA', '$dB']"
t_check "$dA: netdev $VA found in namespace $NS1, MTU 1500" test "$(jget "$TMP/st.json" \
	"($dev_expr)['netdev']['netns'], ($dev_expr)['netdev']['mtu']")" = "('$NS1', 1500)"
t_check "$dA: active MTU 1024 (ibv_devinfo), port ACTIVE" test "$(jget "$TMP/st.json" \
	"($dev_expr)['active_mtu'], ($dev_expr)['state']")" = "(1024, 'ACTIVE')"
t_check "$dA: its IPv4 GID at index $gA" test "$(jget "$TMP/st.json" \
	"[g['index'] for g in ($dev_expr)['gids'] if g['gid'].endswith('c000:0201')]")" = "[$gA]"
bid=$(readelf -n "$MROCE_ROOT/metaroce.ko" 2>/dev/null | sed -n 's/.*Build ID: //p')
t_check "module build-id is metaroce.ko's ($bid)" test "$(jget "$TMP/st.json" \
	"j['status']['module']['build_id']")" = "$bid"
t_check "device ABI version = tools' ABI version" test "$(jget "$TMP/st.json" \
	"($dev_expr)['abi_version'] == j['status']['tool_abi_version'] != None")" = True
t_check "transport settings from sysfs (policy auto, fabric lossless, paths spray x16)" \
	test "$(jget "$TMP/st.json" "'%s %s %s %s' % (($dev_expr)['transport_policy'], \
	($dev_expr)['fabric_policy'], ($dev_expr)['paths']['mode'], \
	($dev_expr)['paths']['per_qp'])")" = "auto lossless spray 16"
mroce status >"$TMP/st.txt"
t_check "status text shows $dA ACTIVE on $VA" \
	grep -q "^$dA: port 1 ACTIVE .*netdev $VA (netns $NS1) up, MTU 1500" "$TMP/st.txt"

# ---- config: the module's parameters, set and refused
P=/sys/module/metaroce/parameters
mroce config --json >"$TMP/cfg.json"
t_check "config lists udp_port (runtime), auto_attach, attach_* (load), $dA.udp_port" \
	test "$(jget "$TMP/cfg.json" "sorted((k['key'], k['settable']) for k in j['keys'] if k['key'] in ('udp_port', 'auto_attach', 'attach_drivers', 'attach_name', '$dA.udp_port'))")" \
	= "[('attach_drivers', 'load'), ('attach_name', 'load'), ('auto_attach', 'load'), ('$dA.udp_port', 'no'), ('udp_port', 'runtime')]"
defer "echo $(cat $P/udp_port) >$P/udp_port"
mroce config udp_port=4792 >/dev/null
t_check "config udp_port=4792 sets the parameter" test "$(cat $P/udp_port)" = 4792
ip link add mrcliD type dummy && ip link set mrcliD up
defer ip link del mrcliD
defer rdma link delete mrcliC
rdma link add mrcliC type metaroce netdev mrcliD
t_check "a device created now gets UDP port 4792 (config mrcliC.udp_port)" \
	test "$(mroce config mrcliC.udp_port)" = 4792
mroce config udp_port=4791 >/dev/null
rdma link delete mrcliC         # not a device for the checks below
ip link del mrcliD
for bad in "udp_port=0:1 to 65535" "auto_attach=1:modprobe" \
	"transport=multipath:unknown key" "$dA.udp_port=5000:rdma link"; do
	mroce config "${bad%%:*}" >/dev/null 2>"$TMP/cfg.err"
	rc=$?
	t_check "config ${bad%%:*} refused: exit 2, says '${bad#*:}' (exit $rc)" \
		sh -c "[ $rc -eq 2 ] && grep -q '${bad#*:}' $TMP/cfg.err"
done
t_check "refused sets left udp_port at 4791" test "$(cat $P/udp_port)" = 4791

# ---- traffic for the counters and the rates
# Not through in1/in2: $! must be the program (ip netns exec execs it).
ip netns exec "$NS2" ibv_rc_pingpong -d $dB -g "$gB" -n 1000000 -s 64 >/dev/null 2>&1 &
srv=$!
defer kill $srv
sleep 1
ip netns exec "$NS1" ibv_rc_pingpong -d $dA -g "$gA" -n 1000000 -s 64 192.0.2.2 >/dev/null 2>&1 &
cli=$!
defer kill $cli
tx_moving() {
	local a
	a=$(cat /sys/class/infiniband/$dA/ports/1/hw_counters/tx_packets)
	[ "$a" -gt 100 ]
}
t_check "pingpong traffic flows ($dA tx_packets > 100)" busywait 20000 tx_moving

# ---- top --once: device and QP rates while the pingpong runs
mroce top --once --json --interval 2 >"$TMP/top.json"
t_check "top --once: $dA sends and receives packets every second" test "$(jget "$TMP/top.json" \
	"[d['tx'] > 0 and d['rx'] > 0 for d in j['devices'] if d['device'] == '$dA']")" = "[True]"
t_check "top --once: $dA's RC QP, of ibv_rc_pingpong, peer QP of $dB" test "$(jget "$TMP/top.json" \
	"[(q['comm'], q['peer_qpn'] in [p['qpn'] for p in j['qps'] if p['device'] == '$dB']) for q in j['qps'] if q['device'] == '$dA' and q['type'] == 'RC']")" \
	= "[('ibv_rc_pingpong', True)]"
qp_expr="[q for q in j['qps'] if q['device'] == '$dA' and q['type'] == 'RC'][0]"
t_check "top --once: per-QP rows from the driver state, PSNs sent and received" \
	test "$(jget "$TMP/top.json" "($qp_expr)['tx'] > 0 and ($qp_expr)['rx'] > 0 and ($qp_expr)['window'] > 0 and ($qp_expr)['cpu'] is not None")" = True
jget "$TMP/top.json" "$qp_expr" | sed 's/^/# /'
kill $cli $srv 2>/dev/null
wait $cli $srv 2>/dev/null

# ---- stats --prometheus equals the sysfs counters (traffic stopped)
mroce stats --prometheus --output "$TMP/m.prom"
rx=$(cat /sys/class/infiniband/$dA/ports/1/hw_counters/rx_packets)
t_check "stats --prometheus: rx_packets of $dA = sysfs ($rx)" \
	grep -x "metaroce_rx_packets_total{device=\"$dA\",port=\"1\"} $rx" "$TMP/m.prom"
grep "^metaroce_rx_packets_total" "$TMP/m.prom" | sed 's/^/# /'
t_check "stats --prometheus: HELP and TYPE for the drop family" \
	sh -c "grep -q '^# TYPE metaroce_rx_dropped_packets_total counter' $TMP/m.prom &&
	       grep -q 'metaroce_rx_dropped_packets_total{device=\"$dA\",port=\"1\",reason=\"malformed\"}' $TMP/m.prom"

# ---- top, live, in tmux: renders, refreshes every second, takes keys
if command -v tmux >/dev/null; then
	s=mrcli$$
	defer tmux kill-server
	tmux new-session -d -s $s -x 150 -y 30 \
		"RDMAV_DRIVERS=$RDMAV_DRIVERS $M top --interval 1 2>$TMP/top.err"
	pane() { tmux capture-pane -p -t $s; }
	refresh() { pane | sed -n 's/.*refresh \([0-9]*\).*/\1/p'; }
	shows() { pane | grep -q "$1"; }
	t_check "top renders in tmux (header and $dA)" \
		busywait 20000 sh -c "tmux capture-pane -p -t $s | grep -q 'metaroce top' &&
		                      tmux capture-pane -p -t $s | grep -q '^$dA '"
	r1=$(refresh)
	later() { [ "$(refresh)" -gt "${r1:-0}" ] 2>/dev/null; }
	t_check "top refreshes (frame ${r1:-none} then more)" busywait 10000 later
	sed 's/^/# top: /' "$TMP/top.err"
	tmux send-keys -t $s x
	t_check "key x sorts by retransmissions" busywait 10000 shows "sort: retrans"
	tmux send-keys -t $s q
	gone() { ! tmux has-session -t $s 2>/dev/null; }
	t_check "key q quits" busywait 10000 gone
else
	t_skip "top in tmux" "tmux not installed"
fi

# ---- doctor with planted problems
in1 ip link set "$VA" mtu 9000                     # 1: MTU mismatch
modprobe -a configfs rdma_cm 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
cm=/sys/kernel/config/rdma_cm
defer rmdir $cm/$dA
defer rmdir $cm/$dB
mkdir -p $cm/$dA 2>/dev/null                      # 3: TOS left at 0
# 2: runts to UDP 4791 of $dA while doctor samples: a drop counter climbs.
ip netns exec "$NS2" $PY -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 60
while time.time() < end:
    s.sendto(b"short", ("192.0.2.1", 4791))    # shorter than a BTH
    time.sleep(0.05)
' &
junk=$!
defer kill $junk
mroce doctor --json --interval 2 --tos 106 >"$TMP/doc.json"
rc=$?
kill $junk 2>/dev/null
wait $junk 2>/dev/null
fid() { jget "$TMP/doc.json" "sorted(f.get('device', '-') for f in j['findings'] if f['id'] == '$1')"; }
t_check "doctor exits 3 (errors found) with the problems planted (exit $rc)" [ $rc -eq 3 ]
t_check "doctor: mtu_mismatch, an error (IB MTU 4096 vs 1024)" test "$(jget "$TMP/doc.json" \
	"[f['severity'] + ' ' + f['detail'] for f in j['findings'] if f['id'] == 'mtu_mismatch']")" \
	= "['error $dA: netdev MTU 9000 (IB MTU 4096), $dB: netdev MTU 1500 (IB MTU 1024)']"
t_check "doctor: rx_drop_malformed climbing on $dA only" test "$(jget "$TMP/doc.json" \
	"[(f['device'], 'rx_drop_malformed +' in f['detail']) for f in j['findings'] if f['id'] == 'counter_climbing']")" \
	= "[('$dA', True)]"
t_check "doctor: tos_mismatch on both devices" test "$(fid tos_mismatch)" = "['$dA', '$dB']"
t_check "doctor: the TOS finding names configfs in its fix" test "$(jget "$TMP/doc.json" \
	"all('$cm' in f['fix'] for f in j['findings'] if f['id'] == 'tos_mismatch')")" = True
# ---- fixed: the same checks find nothing
in1 ip link set "$VA" mtu 1500
mkdir -p $cm/$dB
echo 106 >$cm/$dA/ports/1/default_roce_tos
echo 106 >$cm/$dB/ports/1/default_roce_tos
mroce doctor --json --interval 1 --tos 106 >"$TMP/doc2.json"
rc=$?
left=$(jget "$TMP/doc2.json" "sorted(f['id'] for f in j['findings'] if f['severity'] != 'info')")
t_check "doctor after the fixes: nothing above info, exit 0 (exit $rc, $left)" \
	sh -c "[ $rc -eq 0 ] && [ \"$left\" = '[]' ]"
echo "# cli.sh took ${SECONDS}s"
t_done
