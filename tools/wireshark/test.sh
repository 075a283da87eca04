#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The MetaRoCE dissector (metaroce.lua) on a pcap written by mkpcap, which
# uses the transport core's encoders: every packet kind decodes to the
# fields it was built with; a reserved opcode, a truncated header, a wrong
# ICRC and a reserved bit are flagged; a RoCEv2 packet protected by the
# UDP checksum instead of the ICRC is told apart; RoCEv2 packets (rxe's over IPv4 and
# IPv6, one carrying the capability mark) still go to Wireshark's
# InfiniBand dissector unchanged; the script's own ICRC check agrees with
# the core's and rxe's and can be turned off; and `make install` puts the
# script where tshark looks.  TAP 13; exit 4 to skip when tshark is
# missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/wireshark}
LUA=$HERE/metaroce.lua

if ! command -v tshark >/dev/null; then
	echo "1..0 # SKIP tshark is not installed (tools/deps.sh)"
	exit 4
fi
make -s -C "$HERE" all BUILD="$BUILD" || { echo "Bail out! mkpcap does not build"; exit 1; }
echo "TAP version 13"
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $*"; }

# RC ACKs captured from rxe (selftests/vectors/rxe-ipv[46].hex, packet 3), and
# an IPv4/UDP packet whose opcode 0xC8 is reserved for later versions.
rxe_ack=$(sed -n '/^# 3: IPv4 RC_ACKNOWLEDGE/{n;p}' "$ROOT/selftests/vectors/rxe-ipv4.hex")
rxe_ack6=$(sed -n '/^# 3: IPv6 RC_ACKNOWLEDGE/{n;p}' "$ROOT/selftests/vectors/rxe-ipv6.hex")
reserved=4500002c000040004011000a0a4d00010a4d0002c00012b700180000
reserved+=c8000000000000110000000100000000
pcap=$BUILD/metaroce.pcap
# An MR_WRITE cut inside its MXH: BTH, 8 of the 12 MXH bytes, ICRC.
short=4500003400004000401100000a4d00010a4d0002c00012b700200000
short+=c30000000000001100000001100000000000000000000000
"$BUILD/mkpcap" "$pcap" "$rxe_ack" "$rxe_ack6" "$reserved" "$short" || { echo "Bail out! mkpcap"; exit 1; }

fields=(metaroce.opcode metaroce.ver metaroce.flags.first metaroce.flags.last
	metaroce.flags.ece metaroce.path metaroce.ts metaroce.tse metaroce.msn
	metaroce.offset metaroce.msglen metaroce.reth.va metaroce.reth.rkey
	metaroce.reth.len metaroce.aeth.syndrome metaroce.sack.words
	metaroce.sack.psn metaroce.imm metaroce.ieth.rkey metaroce.payload
	metaroce.icrc.status metaroce.mark.ver infiniband.bth.opcode infiniband.bth.psn
	infiniband.aeth.msn _ws.expert.message)
args=()
for f in "${fields[@]}"; do args+=(-e "$f"); done
tsh() { tshark -n -r "$pcap" -T fields -E separator='|' "$@" 2>/dev/null; }
got=$(tsh -X "lua_script:$LUA" -e frame.number "${args[@]}")

# What each frame must decode to: the non-empty fields, as name=value
# (names without "metaroce."; the payload as its length in bytes).
expect=(
"opcode=0xc0 ver=1 flags.first=1 flags.last=0 flags.ece=0 path=2 ts=1000 tse=0 msn=7 offset=0 msglen=300 payload=100 icrc.status=good"
"opcode=0xc1 ver=1 flags.first=0 flags.last=1 flags.ece=0 path=3 ts=1200 tse=900 msn=7 offset=200 msglen=300 imm=0xdeadbeef payload=100 icrc.status=good"
"opcode=0xc2 ver=1 flags.first=1 flags.last=1 flags.ece=0 path=0 ts=0 tse=0 msn=8 offset=0 msglen=5 ieth.rkey=0x00001234 payload=5 icrc.status=good"
"opcode=0xc3 ver=1 flags.first=0 flags.last=0 flags.ece=0 path=65535 ts=4294967295 tse=0 msn=9 offset=4096 msglen=8192 reth.va=0x00007f0000001000 reth.rkey=0x0000abcd reth.len=8192 payload=64 icrc.status=good"
"opcode=0xc4 ver=1 flags.first=0 flags.last=1 flags.ece=0 path=0 ts=0 tse=0 msn=10 offset=8128 msglen=8192 reth.va=0x00007f0000001000 reth.rkey=0x0000abcd reth.len=8192 imm=0x0000002a payload=64 icrc.status=good"
"opcode=0xc5 ver=1 flags.first=0 flags.last=0 flags.ece=0 path=0 ts=0 tse=0 reth.va=0x0000000000005000 reth.rkey=0x00000077 reth.len=1024 icrc.status=good"
"opcode=0xc6 ver=1 flags.first=1 flags.last=1 flags.ece=0 path=0 ts=0 tse=0 msn=11 offset=0 msglen=16 payload=16 icrc.status=good"
"opcode=0xc7 ver=1 flags.first=0 flags.last=0 flags.ece=1 path=2 ts=5000 tse=1000 aeth.syndrome=0x1f sack.words=2 sack.psn=1,2,69 icrc.status=good"
"icrc.status=good mark.ver=1 infiniband.bth.opcode=17 infiniband.bth.psn=66 infiniband.aeth.msn=0"
"icrc.status=good infiniband.bth.opcode=17 infiniband.bth.psn=8995439 infiniband.aeth.msn=1"
"icrc.status=good infiniband.bth.opcode=17 infiniband.bth.psn=7690462 infiniband.aeth.msn=1 _ws.expert.message=Illegal checksum value (0)"
)
names=(MR_SEND MR_SEND_IMM MR_SEND_INV MR_WRITE MR_WRITE_IMM MR_READ_REQ
	MR_READ_RESP MR_ACK "RoCEv2 ACK with the capability mark"
	"RoCEv2 ACK captured from rxe"
	"RoCEv2 ACK over IPv6 captured from rxe (UDP checksum 0, as rxe sends)")
norm=$(printf '%s\n' "$got" | awk -F'|' -v names="${fields[*]}" '
	BEGIN { nf = split(names, nm, " ") }
	{
		out = ""
		for (i = 1; i <= nf; i++) {
			v = $(i + 1)
			if (v == "")
				continue
			if (nm[i] == "metaroce.payload")
				v = length(v) / 2
			n = nm[i]
			sub(/^metaroce\./, "", n)
			out = out (out == "" ? "" : " ") n "=" v
		}
		print out
	}')
for i in "${!expect[@]}"; do
	line=$(printf '%s\n' "$norm" | sed -n "$((i + 1))p")
	if [ "$line" = "${expect[$i]}" ]; then
		ok "frame $((i + 1)): ${names[$i]} fields"
	else
		nok "frame $((i + 1)): ${names[$i]} fields"
		echo "#  want ${expect[$i]}"
		echo "#  got  $line"
	fi
done

# frame_like N PATTERN TITLE: frame N's fields match the glob PATTERN.
frame_like() {
	local line
	line=$(printf '%s\n' "$norm" | sed -n "$1p")
	if [[ $line == $2 ]]; then
		ok "frame $1: $3"
	else
		nok "frame $1: $3"
		echo "#  got  $line"
	fi
}
frame_like 12 'opcode=0xc8 *reserved for later*' \
	"reserved opcode 0xc8 flagged malformed"
frame_like 13 'opcode=0xc3 *truncated mxh*' \
	"truncated MR_WRITE flagged malformed"
frame_like 14 'opcode=0xc7 *icrc.status=bad*ICRC mismatch' \
	"MR_ACK with a wrong ICRC flagged"
frame_like 15 'opcode=0xc7 *icrc.status=good*Reserved bits set*' \
	"MR_ACK with a reserved MXH flag bit flagged"
frame_like 16 'icrc.status=udp-csum mark.ver=1 infiniband.bth.opcode=17 infiniband.bth.psn=67*' \
	"marked ACK with the UDP checksum option and a UDP checksum: udp-csum"
frame_like 17 'icrc.status=bad mark.ver=1 infiniband.bth.opcode=17 infiniband.bth.psn=67*' \
	"the same with a zero UDP checksum: the zero ICRC is checked, bad"

# mkpcap's UDP checksum of frame 16 is one Wireshark's UDP dissector finds
# good (1), and frame 17 carries none (3: not present).
st=$(tsh -o udp.check_checksum:TRUE -Y 'frame.number >= 16' \
	-e udp.checksum.status | tr '\n' ' ')
if [ "$st" = "1 3 " ]; then
	ok "frames 16 and 17: UDP checksum good, and absent"
else
	nok "frames 16 and 17: UDP checksum good, and absent (status '$st')"
fi

# RoCEv2 frames: the InfiniBand dissector's fields are the same with and
# without the script.
ib=(-e frame.number -e infiniband.bth.opcode -e infiniband.bth.psn
	-e infiniband.bth.destqp -e infiniband.aeth.syndrome -e infiniband.aeth.msn
	-e frame.protocols)
roce='frame.number >= 9 && frame.number <= 11'
a=$(tsh -Y "$roce" "${ib[@]}")
b=$(tsh -X "lua_script:$LUA" -Y "$roce" \
	"${ib[@]}" | sed 's/:metaroce//')
if [ -n "$a" ] && [ "$a" = "$b" ] && [[ $a == *infiniband* ]]; then
	ok "RoCEv2 frames dissect as InfiniBand, same as without the script"
else
	nok "RoCEv2 frames dissect as InfiniBand, same as without the script"
	printf '#  without: %s\n' "$a"
	printf '#  with:    %s\n' "$b"
fi

# The ICRC check can be turned off.
n_status=$(tsh -X "lua_script:$LUA" -o metaroce.check_icrc:FALSE \
	-e metaroce.icrc.status | grep -c .)
if [ "$n_status" -eq 0 ]; then
	ok "metaroce.check_icrc:FALSE turns the ICRC check off"
else
	nok "metaroce.check_icrc:FALSE turns the ICRC check off ($n_status verdicts)"
fi

# make install: where Debian's tshark reads global Lua plugins.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
if make -s -C "$HERE" install DESTDIR="$tmp" >/dev/null &&
	cmp -s "$LUA" "$tmp$dir/metaroce.lua"; then
	ok "make install puts metaroce.lua in $dir"
else
	nok "make install puts metaroce.lua in $dir"
fi

echo "1..$n"
[ "$bad" -eq 0 ]
