#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Regenerate the rxe test vectors: boot the test VM, run capture-rxe.sh in
# it (rdma_rxe traffic captured with dumpcap), and convert the captures
# into selftests/vectors/rxe-ipv4.hex and rxe-ipv6.hex, adding each packet
# to the fuzz_pkt seed corpus.  The vectors are kept in git; run this only
# to refresh them (it takes a few minutes under TCG).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
here=$ROOT/selftests/vectors
res=$ROOT/build/vm/rxe-vectors

"$ROOT/tools/vm/run.sh" --name rxe-vectors --timeout "${VM_TIMEOUT:-600}" \
	-- "$here/capture-rxe.sh"
for v in ipv4 ipv6; do
	[ -s "$res/rxe-$v.pcap" ] || { echo "update-rxe: no $v capture" >&2; continue; }
	"$here/pcap2hex.py" "$here/rxe-$v.hex" "$res/rxe-$v.pcap" \
		"$ROOT/selftests/fuzz/corpus/fuzz_pkt"
done
