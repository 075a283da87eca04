#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Send hand-made RoCEv2 packets (IPv4, UDP port 4791) to an RDMA device.

Builds the BTH and the extension headers itself (scapy has no maintained
RoCE layer), computes the ICRC as IBTA A17.8 specifies (CRC-32 over eight
0xff bytes standing for the LRH, then the IP, UDP and BTH headers with the
variant fields masked, then the rest of the packet) and sends the packet
through scapy's layer-3 socket with the IP identification fixed, so that
the ICRC still matches what arrives.

    inject.py --src IP --dst IP --qpn QPN CLASS... [--psn N] [--count N]
              [--rkey K --va ADDR --len N] [--wait FILE]
    inject.py --src IP --dst IP --live DEV [--comm COMM] CLASS...

CLASS is one of the names in CLASSES; each builds one kind of broken (or,
for the memory classes, hostile but well-formed) packet.  The first form
sends them to QPN and prints the number sent.  The second finds the RC QP
that process COMM (mroce_dpcheck) holds on DEV (`rdma resource show qp`),
attacks it one class at a time and checks that the class's counters of
DEV (EXPECT) grow, printing "ok"/"not ok" per class.
"""
import argparse
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time
import zlib

from scapy.all import IP, UDP, Raw, conf, send

ROCE_PORT = 4791

# IBTA 9.2 Table 38 opcodes (RC unless noted).
OP_SEND_ONLY = 0x04
OP_WRITE_FIRST = 0x06
OP_WRITE_ONLY = 0x0a
OP_READ_REQ = 0x0c
OP_CSWAP = 0x13
OP_UD_SEND_ONLY = 0x64
OP_ACK = 0x11
OP_UC_SEND_ONLY = 0x24
OP_UC_WRITE_ONLY = 0x2a
AETH_ACK = 0x1f                 # ACK, no credit count (IBTA 9.7.5.1)
OP_RC_RESERVED = 0x1d
OP_CLASS_RESERVED = 0xe5


def bth(opcode, qpn, psn, pad=0, tver=0, pkey=0xffff, ackreq=True, se=False):
    """Base Transport Header, IBTA 9.2 (12 bytes)."""
    b1 = (se << 7) | ((pad & 3) << 4) | (tver & 0xf)
    return struct.pack(">BBHBBHBBH", opcode, b1, pkey, 0,
                       (qpn >> 16) & 0xff, qpn & 0xffff,
                       0x80 if ackreq else 0, (psn >> 16) & 0xff,
                       psn & 0xffff)


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def icrc(ip_udp_bth_rest):
    """ICRC of an IPv4 packet given from its IP header, without the ICRC."""
    p = bytearray(ip_udp_bth_rest)
    p[1] = 0xff                 # TOS
    p[8] = 0xff                 # TTL
    p[10] = p[11] = 0xff        # header checksum
    p[20 + 6] = p[20 + 7] = 0xff  # UDP checksum
    p[28 + 4] = 0xff            # BTH reserved byte (F/B bits)
    crc = zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff
    return struct.pack("<I", crc)


def packet(args, roce, good_icrc=True, ipid=None):
    """IPv4/UDP around @roce (BTH onwards, no ICRC); ICRC appended."""
    ip = IP(src=args.src, dst=args.dst, id=ipid or random.randint(1, 0xffff),
            flags="DF", ttl=64, proto=17)
    sport = 0xc000 | random.randint(0, 0x3fff)
    pkt = ip / UDP(sport=sport, dport=ROCE_PORT, chksum=0) / Raw(roce + b"\0" * 4)
    raw = bytearray(bytes(pkt))
    crc = icrc(raw[:-4])
    if not good_icrc:
        crc = bytes(b ^ 0x5a for b in crc)
    raw[-4:] = crc
    return IP(bytes(raw))


def marked(b):
    """BTH @b with the MetaRoCE capability mark offering the UDP checksum
    instead of the ICRC (Documentation/wire.rst: byte 8, AckReq kept, 0x40
    capable, 0x10 the option, version 1)."""
    b = bytearray(b)
    b[8] = (b[8] & 0x80) | 0x40 | 0x10 | 1
    return bytes(b)


def csum_packet(args, roce, udp_csum):
    """IPv4/UDP around @roce (BTH onwards) in the UDP checksum form: the
    ICRC field zero; with @udp_csum a valid UDP checksum (scapy's), else 0."""
    ip = IP(src=args.src, dst=args.dst, id=random.randint(1, 0xffff),
            flags="DF", ttl=64, proto=17)
    sport = 0xc000 | random.randint(0, 0x3fff)
    pkt = ip / UDP(sport=sport, dport=ROCE_PORT,
                   chksum=None if udp_csum else 0) / Raw(roce + b"\0" * 4)
    return IP(bytes(pkt))


def truncated(args, data):
    """A UDP datagram to port 4791 with @data and nothing else (no ICRC)."""
    return IP(src=args.src, dst=args.dst, flags="DF") / \
        UDP(sport=0xc000, dport=ROCE_PORT, chksum=0) / Raw(data)


def far_psn(args):
    # The caller passes a PSN far from the live stream's: stay near it.
    return (args.psn + random.randint(0, 1000)) & 0xffffff


# Each class: list of packets.  Expected counters are the test's business.
def c_short_bth(a):
    return [truncated(a, bth(OP_SEND_ONLY, a.qpn, 0)[:n]) for n in (1, 7, 11)]


def c_short_hdr(a):
    # Opcodes whose RETH / AtomicETH / DETH is missing; ICRC present.
    return [packet(a, bth(op, a.qpn, far_psn(a))[:12] + b"\0" * 4)
            for op in (OP_WRITE_FIRST, OP_READ_REQ, OP_CSWAP, OP_UD_SEND_ONLY)]


def c_bad_icrc(a):
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, far_psn(a)) + b"x" * 32,
                   good_icrc=False) for _ in range(4)]


def c_csum_zero(a):
    # Marked as protected by the UDP checksum, but without one: the zeroed
    # ICRC field is checked, and fails.
    return [csum_packet(a, marked(bth(OP_SEND_ONLY, a.qpn, far_psn(a))) +
                        b"x" * 32, False) for _ in range(4)]


def c_csum_good(a):
    # Marked, with a valid UDP checksum and a zeroed ICRC field: accepted
    # on the checksum by a QP that offers it, then handled as a far PSN
    # (EXPECT: the counters that only move past the integrity check; the
    # live traffic moves rx_udp_csum_packets itself).
    return [csum_packet(a, marked(bth(OP_SEND_ONLY, a.qpn, far_psn(a))) +
                        b"x" * 32, True) for _ in range(4)]


def c_bad_opcode(a):
    return [packet(a, bth(op, a.qpn, far_psn(a)) + b"\0" * 16)
            for op in (OP_RC_RESERVED, OP_CLASS_RESERVED)]


def c_no_qp(a):
    return [packet(a, bth(OP_SEND_ONLY, q, 0) + b"\0" * 16)
            for q in (0xfffff0, 0x000abc, 0xffffff)]


def c_bad_pad(a):
    # Pad count larger than the payload that is there.
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, far_psn(a), pad=3) + b""),
            packet(a, bth(OP_WRITE_ONLY, a.qpn, far_psn(a), pad=3) +
                   reth(a.va, a.rkey, 0) + b"\0\0")]


def c_bad_tver(a):
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, far_psn(a), tver=t) + b"\0" * 8)
            for t in (1, 0xf)]


def c_bad_pkey(a):
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, far_psn(a), pkey=k) + b"\0" * 8)
            for k in (0x1234, 0x0000, 0x7ffe)]


def c_far_psn(a):
    # Well-formed requests whose PSN is half the space away from the live
    # stream: a sequence NAK at most once, then dropped (IBTA 9.7.5.2.1).
    data = b"W" * 256
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, far_psn(a)) + b"p" * 64)
            for _ in range(8)] + \
        [packet(a, bth(OP_WRITE_ONLY, a.qpn, far_psn(a)) +
                reth(a.va, a.rkey, 1 << 30) + data) for _ in range(2)]


def c_reth_overrun(a):
    # RDMA WRITE ONLY at the expected PSN, RETH running past the region.
    data = b"W" * 256
    return [packet(a, bth(OP_WRITE_ONLY, a.qpn, a.psn) +
                   reth(a.va + a.len - 128, a.rkey, len(data)) + data)]


def c_send_too_long(a):
    # SEND ONLY at the expected PSN, longer than the posted receive.
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, a.psn) + b"S" * 512)]


# Forgeries: well-formed packets at the expected PSN of a victim QP, with
# its QPN and R_Key, that only the connected peer may send.  Sent from an
# address other than the peer's (or to one that is not the QP's), they must
# be dropped whatever they carry.
def c_forged_rc_send(a):
    return [packet(a, bth(OP_SEND_ONLY, a.qpn, a.psn) + b"F" * 64)]


def c_forged_rc_write(a):
    return [packet(a, bth(OP_WRITE_ONLY, a.qpn, a.psn) +
                   reth(a.va, a.rkey, 64) + b"F" * 64)]


def c_forged_uc_send(a):
    return [packet(a, bth(OP_UC_SEND_ONLY, a.qpn, a.psn, ackreq=False) +
                   b"F" * 64)]


def c_forged_uc_write(a):
    return [packet(a, bth(OP_UC_WRITE_ONLY, a.qpn, a.psn, ackreq=False) +
                   reth(a.va, a.rkey, 64) + b"F" * 64)]


def c_forged_ack(a):
    # ACKs (AETH: syndrome, MSN) for the four PSNs from --psn on.
    return [packet(a, bth(OP_ACK, a.qpn, (a.psn + i) & 0xffffff,
                          ackreq=False) +
                   struct.pack(">I", AETH_ACK << 24)) for i in range(4)]


# What each class must raise on the attacked device: counters (summed) and
# the least growth for one round of its packets.  The memory classes aim at
# the expected PSN and are for a victim QP (run by hand, not by --live).
EXPECT = {
    "short_bth": (("rx_drop_malformed",), 3),
    "short_hdr": (("rx_drop_malformed",), 4),
    "bad_icrc": (("rx_drop_icrc",), 4),
    "csum_zero": (("rx_drop_icrc",), 4),
    "csum_good": (("rx_drop_seq", "rx_duplicates", "tx_naks"), 4),
    "bad_opcode": (("rx_drop_malformed",), 2),
    "no_qp": (("rx_drop_no_qp",), 3),
    "bad_pad": (("rx_drop_malformed",), 2),
    "bad_tver": (("rx_drop_malformed",), 2),
    "bad_pkey": (("rx_drop_malformed",), 3),
    "far_psn": (("rx_drop_seq", "rx_duplicates", "tx_naks"), 10),
}

CLASSES = {
    "short_bth": c_short_bth,
    "short_hdr": c_short_hdr,
    "bad_icrc": c_bad_icrc,
    "csum_zero": c_csum_zero,
    "csum_good": c_csum_good,
    "bad_opcode": c_bad_opcode,
    "no_qp": c_no_qp,
    "bad_pad": c_bad_pad,
    "bad_tver": c_bad_tver,
    "bad_pkey": c_bad_pkey,
    "far_psn": c_far_psn,
    "reth_overrun": c_reth_overrun,
    "send_too_long": c_send_too_long,
    "forged_rc_send": c_forged_rc_send,
    "forged_rc_write": c_forged_rc_write,
    "forged_uc_send": c_forged_uc_send,
    "forged_uc_write": c_forged_uc_write,
    "forged_ack": c_forged_ack,
}


def rdma_json(*args):
    out = subprocess.run(["rdma", "-j"] + list(args), capture_output=True,
                         text=True, check=False).stdout
    try:
        return json.loads(out or "[]")
    except json.JSONDecodeError:
        return []


def counters(dev):
    """The device's counters (the core caches them for 10 ms)."""
    time.sleep(0.03)
    res = {}
    for port in rdma_json("statistic", "show", "link", dev + "/1"):
        for k, v in port.items():
            if isinstance(v, dict):
                res.update({n: c for n, c in v.items() if isinstance(c, int)})
            elif isinstance(v, int):
                res[k] = v
    return res


def live_qp(dev, comm):
    """(QPN, RQ PSN) of an RC QP of @dev in RTS owned by @comm, or None."""
    for q in rdma_json("resource", "show", "qp", "link", dev + "/1"):
        if q.get("comm") == comm and q.get("type") == "RC" and \
                q.get("state") == "RTS":
            return q["lqpn"], q.get("rq-psn", 0)
    return None


def live(a):
    """Attack the live QP of @a.dev class by class; TAP lines; failures."""
    fails = 0
    for name in a.classes:
        ctrs, least = EXPECT[name]
        least *= a.count
        for attempt in range(3):
            deadline = time.monotonic() + 20
            qp = live_qp(a.dev, a.comm)
            while not qp and time.monotonic() < deadline:
                time.sleep(0.2)
                qp = live_qp(a.dev, a.comm)
            if not qp:
                break
            a.qpn = qp[0]
            # Half the PSN window ahead of the responder: never expected.
            a.psn = (qp[1] + (1 << 22)) & 0xffffff
            before = counters(a.dev)
            for _ in range(a.count):
                send(CLASSES[name](a))
            deadline = time.monotonic() + 5
            while True:
                now = counters(a.dev)
                grew = sum(now.get(c, 0) - before.get(c, 0) for c in ctrs)
                if grew >= least or time.monotonic() > deadline:
                    break
            same = live_qp(a.dev, a.comm)
            if grew >= least or (same and same[0] == a.qpn):
                break
            print(f"# {name}: QP {a.qpn} went away, again")
        what = "+".join(ctrs)
        if not qp:
            print(f"not ok {name}: no live QP of {a.comm}")
            fails += 1
        elif grew >= least:
            print(f"ok {name}: {what} +{grew} (QP {a.qpn})")
        else:
            print(f"not ok {name}: {what} +{grew}, want >= {least} (QP {a.qpn})")
            fails += 1
        sys.stdout.flush()
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--qpn", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--live", metavar="DEV",
                    help="attack DEV's QP of --comm, checking the counters")
    ap.add_argument("--comm", default="mroce_dpcheck")
    ap.add_argument("--psn", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--rkey", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--va", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--len", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--count", type=int, default=1,
                    help="repeat the class's packets this many times")
    ap.add_argument("--local", action="store_true",
                    help="--dst is an address of this namespace: send through "
                         "the kernel's routing (lo), not out of an interface")
    ap.add_argument("--wait", metavar="FILE",
                    help="build the packets, print 'ready', send once FILE exists")
    ap.add_argument("classes", nargs="+", choices=sorted(CLASSES))
    a = ap.parse_args()
    conf.verb = 0
    if a.live:
        a.dev = a.live
        return 1 if live(a) else 0
    built = [(name, [CLASSES[name](a) for _ in range(a.count)])
             for name in a.classes]
    if a.local:
        # Bytes and addresses now: scapy is slow to serialise under TCG.
        built = [(name, [[(bytes(p), p[IP].dst) for p in pkts]
                         for pkts in rounds]) for name, rounds in built]
    if a.wait:
        # Python and scapy start slowly under emulation: be ready first.
        print("ready", flush=True)
        end = time.monotonic() + 60
        while not os.path.exists(a.wait) and time.monotonic() < end:
            time.sleep(0.01)
    for name, rounds in built:
        n = 0
        for pkts in rounds:
            if a.local:
                send_local(pkts)
            else:
                send(pkts)
            n += len(pkts)
        print(f"{name} {n}", flush=True)
    return 0


def send_local(pkts):
    """Send (bytes, destination) pairs through a raw IP socket: the kernel
    routes to a local address (through lo), where scapy's own layer-3
    socket would pick an interface by scapy's routes and send the frame
    out of it.  Also much faster."""
    with socket.socket(socket.AF_INET, socket.SOCK_RAW,
                       socket.IPPROTO_RAW) as sk:
        for raw, dst in pkts:
            sk.sendto(raw, (dst, 0))


if __name__ == "__main__":
    sys.exit(main())
