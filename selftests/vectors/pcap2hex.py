#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# pcap2hex.py OUT.hex IN.pcap [FUZZ_CORPUS_DIR]: turn a libpcap capture of
# RoCEv2 traffic (Ethernet link type) into a test-vector file: one IP
# packet per line in hex, from the IP header to the ICRC, preceded by a
# comment naming it.  Identical packets are dropped, and at most PER_KIND
# packets are kept for each (IP version, opcode, AETH syndrome class), so
# the file stays small but every kind of packet rxe sent is there.  With a
# corpus directory, each kept packet is also written there as a fuzz_pkt
# seed (mode byte 0: checksums as captured).
import os
import struct
import sys

PER_KIND = 3
ROCE_PORT = 4791

OPCODES = {
    0x00: "RC_SEND_FIRST", 0x01: "RC_SEND_MIDDLE", 0x02: "RC_SEND_LAST",
    0x03: "RC_SEND_LAST_WITH_IMMEDIATE", 0x04: "RC_SEND_ONLY",
    0x05: "RC_SEND_ONLY_WITH_IMMEDIATE", 0x06: "RC_RDMA_WRITE_FIRST",
    0x07: "RC_RDMA_WRITE_MIDDLE", 0x08: "RC_RDMA_WRITE_LAST",
    0x09: "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", 0x0a: "RC_RDMA_WRITE_ONLY",
    0x0b: "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x0c: "RC_RDMA_READ_REQUEST",
    0x0d: "RC_RDMA_READ_RESPONSE_FIRST", 0x0e: "RC_RDMA_READ_RESPONSE_MIDDLE",
    0x0f: "RC_RDMA_READ_RESPONSE_LAST", 0x10: "RC_RDMA_READ_RESPONSE_ONLY",
    0x11: "RC_ACKNOWLEDGE", 0x12: "RC_ATOMIC_ACKNOWLEDGE",
    0x13: "RC_COMPARE_SWAP", 0x14: "RC_FETCH_ADD",
    0x16: "RC_SEND_LAST_WITH_INVALIDATE", 0x17: "RC_SEND_ONLY_WITH_INVALIDATE",
    0x64: "UD_SEND_ONLY", 0x65: "UD_SEND_ONLY_WITH_IMMEDIATE", 0x81: "CNP",
}
AETH_OPS = (0x0d, 0x0f, 0x10, 0x11, 0x12)


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        end = "<"
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        end = ">"
    else:
        sys.exit("%s: not a libpcap file" % path)
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit("%s: link type %d, want Ethernet" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def ip_packet(frame):
    etype = struct.unpack(">H", frame[12:14])[0]
    body = frame[14:]
    if etype == 0x8100:
        etype = struct.unpack(">H", frame[16:18])[0]
        body = frame[18:]
    if etype == 0x0800 and len(body) >= 28:
        total = struct.unpack(">H", body[2:4])[0]
        ihl = (body[0] & 15) * 4
        if body[9] != 17:
            return None
        udp = ihl
        pkt = body[:total]
    elif etype == 0x86dd and len(body) >= 48:
        total = 40 + struct.unpack(">H", body[4:6])[0]
        if body[6] != 17:
            return None
        udp = 40
        pkt = body[:total]
    else:
        return None
    if len(pkt) < udp + 8 + 16:
        return None
    if struct.unpack(">H", pkt[udp + 2:udp + 4])[0] != ROCE_PORT:
        return None
    return pkt, udp + 8


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: pcap2hex.py OUT.hex IN.pcap [FUZZ_CORPUS_DIR]")
    out, pcap = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) == 4 else None
    seen = set()
    kinds = {}
    kept = []
    for frame in frames(pcap):
        r = ip_packet(frame)
        if not r:
            continue
        pkt, bth = r
        if pkt in seen:
            continue
        seen.add(pkt)
        op = pkt[bth]
        syn = None
        if op in AETH_OPS:
            syn = pkt[bth + 12] & 0xe0
        kind = (pkt[0] >> 4, op, syn)
        if kinds.get(kind, 0) >= PER_KIND:
            continue
        kinds[kind] = kinds.get(kind, 0) + 1
        kept.append((kind, pkt, bth))
    with open(out, "w") as f:
        f.write("# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB\n")
        f.write("# RoCEv2 packets sent by rdma_rxe (Linux 6.1), captured by\n")
        f.write("# selftests/vectors/update-rxe.sh from %s.\n" %
                os.path.basename(pcap))
        f.write("# One IP packet per line, IP header to ICRC, in hex.\n")
        for n, (kind, pkt, bth) in enumerate(kept):
            ver, op, syn = kind
            name = OPCODES.get(op, "0x%02x" % op)
            psn = struct.unpack(">I", b"\0" + pkt[bth + 9:bth + 12])[0]
            extra = "" if syn is None else " syndrome=0x%02x" % pkt[bth + 12]
            f.write("# %d: IPv%d %s psn=0x%06x len=%d%s\n" %
                    (n, ver, name, psn, len(pkt), extra))
            f.write(pkt.hex() + "\n")
            if corpus:
                os.makedirs(corpus, exist_ok=True)
                seed = os.path.join(corpus, "rxe-ipv%d-%d-%s" % (ver, n, name))
                with open(seed, "wb") as s:
                    s.write(b"\0" + pkt)
    print("%s: %d packets (%d unique in capture)" % (out, len(kept), len(seen)))


if __name__ == "__main__":
    main()
