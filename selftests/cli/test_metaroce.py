#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Host tests of tools/metaroce/metaroce against a fixture sysfs tree.

The tool reads METAROCE_SYSFS instead of /sys, and finds fake `rdma`,
`ibv_devinfo`, `modinfo`, `ip` and `ethtool` first on PATH: each test
builds the machine it wants (devices, netdevs, counters, GIDs), runs the
command and checks its output and exit status.  The real devices are
tested in the VM (selftests/metaroce/cli.sh).  Prints TAP 13.
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "metaroce", "metaroce")

EXIT_OK, EXIT_WARN, EXIT_USAGE, EXIT_ERROR, EXIT_NODEV = 0, 1, 2, 3, 4
COUNTERS = ("rx_packets", "tx_packets", "rx_drop_no_qp", "rx_drop_malformed",
            "rx_drop_icrc", "retransmits", "tx_naks", "rx_duplicates",
            "port_events", "sq_doorbells")


def load_tool():
    loader = importlib.machinery.SourceFileLoader("metaroce_tool", TOOL)
    spec = importlib.util.spec_from_loader("metaroce_tool", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Machine:
    """A fixture: a sysfs tree and fake commands in a temporary folder."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="mroce-cli-")
        self.sys = os.path.join(self.root, "sys")
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.bin)
        self.links = []
        self.qps = []
        self.mtus = {}
        self.devinfo = []
        self.fake("modinfo", "exit 1")
        self.fake("ip", "exit 0")
        self.fake("ethtool", "exit 1")
        self.write_rdma()

    def put(self, rel, text, mode="w"):
        path = os.path.join(self.sys, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(text)

    def fake(self, name, body):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n%s\n" % body)
        os.chmod(path, 0o755)

    def write_rdma(self):
        """`rdma -j link show` and `rdma -j res show qp`."""
        state = os.path.join(self.root, "qp.json")
        with open(state, "w") as f:
            json.dump(self.qps, f)
        links = json.dumps(self.links)
        self.fake("rdma", """case "$*" in
*"link show"*) echo '%s' ;;
*"res show qp"*) cat "%s" ;;
*) exit 1 ;;
esac""" % (links, state))

    def module(self, build_id="ab" * 20):
        m = "module/metaroce/"
        self.put(m + "initstate", "live\n")
        self.put(m + "taint", "OE\n")
        self.put(m + "refcnt", "0\n")
        desc = bytes.fromhex(build_id)
        note = (len(b"GNU\0").to_bytes(4, "little") +
                len(desc).to_bytes(4, "little") + (3).to_bytes(4, "little") +
                b"GNU\0" + desc)
        self.put(m + "notes/.note.gnu.build-id", note, "wb")

    def netdev(self, name, ifindex, mtu, state="up"):
        self.put("class/net/%s/ifindex" % name, "%d\n" % ifindex)
        self.put("class/net/%s/mtu" % name, "%d\n" % mtu)
        self.put("class/net/%s/operstate" % name, state + "\n")
        self.mtus[name] = mtu

    def device(self, name, netdev, ifindex, gids=(), metaroce=True,
               counters=None, state="4: ACTIVE", abi="2", settings=True):
        d = "class/infiniband/%s/" % name
        p = d + "ports/1/"
        if metaroce:
            self.put(d + "metaroce_abi_version", abi + "\n")
            self.put(d + "metaroce_objects",
                     "ucontext 0 pd 1 mr 0 mw 0 cq 2 qp 2 srq 0 ah 0 "
                     "ring 0 mmap 0\n")
        if metaroce and settings:
            for k, v in (("mode_policy", "auto"), ("fabric", "lossless"),
                         ("path_mode", "spray"), ("paths", "16"),
                         ("path_hold_us", "2000"), ("ecn", "1"),
                         ("rp_enable", "1")):
                self.put(d + "metaroce_" + k, v + "\n")
        self.put(d + "node_guid", "0200:00ff:fe00:0001\n")
        self.put(d + "fw_ver", "1.0.0\n")
        self.put(p + "state", state + "\n")
        self.put(p + "phys_state", "5: LinkUp\n")
        self.put(p + "link_layer", "Ethernet\n")
        allg = [("fe80:0000:0000:0000:0000:00ff:fe00:0001", "RoCE v2")]
        allg += [(g, "RoCE v2") for g in gids]
        for i in range(4):
            g, t = allg[i] if i < len(allg) else ("0000:" * 7 + "0000", None)
            self.put(p + "gids/%d" % i, g + "\n")
            if t:
                self.put(p + "gid_attrs/types/%d" % i, t + "\n")
                self.put(p + "gid_attrs/ndevs/%d" % i, netdev + "\n")
        for c in COUNTERS if metaroce else ():
            self.counter(name, c, (counters or {}).get(c, 0))
        self.links.append({"ifname": name, "port": 1, "netdev": netdev,
                           "netdev_index": ifindex})
        self.write_rdma()
        mtu = self.mtus.get(netdev, 1500)
        active = max([m for m in (256, 512, 1024, 2048, 4096)
                      if m <= mtu - 96] or [256])
        self.devinfo.append("hca_id:\t%s\n\tport:\t1\n"
                            "\t\t\tactive_mtu:\t\t%d (x)" % (name, active))
        self.fake("ibv_devinfo", "cat <<'EOF'\n%s\nEOF"
                  % "\n".join(self.devinfo))

    def counter(self, dev, name, value):
        self.put("class/infiniband/%s/ports/1/hw_counters/%s" % (dev, name),
                 "%d\n" % value)

    def qp(self, dev, qpn, peer, sq_psn):
        self.qps.append({"ifname": dev, "lqpn": qpn, "rqpn": peer,
                         "type": "RC", "state": "RTS", "sq-psn": sq_psn,
                         "rq-psn": 10, "pid": 42, "comm": "ib_write_bw"})
        self.write_rdma()

    def run(self, *args, env=None):
        e = dict(os.environ)
        e.update({"METAROCE_SYSFS": self.sys,
                  "PATH": self.bin + ":" + os.environ.get("PATH", ""),
                  "RDMAV_DRIVERS": "/fixture/libmetaroce"})
        e.update(env or {})
        p = subprocess.run([sys.executable, TOOL] + list(args),
                           capture_output=True, text=True, env=e, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def json(self, *args, env=None):
        rc, out, err = self.run(*args, "--json", env=env)
        try:
            return rc, json.loads(out)
        except ValueError:
            raise AssertionError("not JSON (rc %d): %s %s" % (rc, out, err))

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def two_devices(mtu_b=1500):
    m = Machine()
    m.module()
    m.netdev("eth0", 2, 9000)
    m.netdev("eth1", 3, mtu_b)
    m.device("mroce0", "eth0", 2, gids=["0000:0000:0000:0000:0000:ffff:c000:0201"],
             counters={"rx_packets": 1000, "tx_packets": 900,
                       "rx_drop_malformed": 3, "retransmits": 7})
    m.device("mroce1", "eth1", 3, gids=["0000:0000:0000:0000:0000:ffff:c000:0202"])
    return m


def ids(findings):
    return sorted({f["id"] for f in findings})


# ---- tests: each returns nothing or raises AssertionError -----------------

def t_usage():
    m = Machine()
    try:
        for args in ([], ["bogus"], ["stats", "--output", "/tmp/x"],
                     ["doctor", "--tos", "300"], ["doctor", "--tos", "x"],
                     ["top", "--interval", "0"], ["top", "--sort", "nope"],
                     ["status", "--nope"]):
            rc, _, err = m.run(*args)
            assert rc == EXIT_USAGE, "%s: exit %d, want 2" % (args, rc)
            assert "usage:" in err, "%s: no usage message" % args
        for sub in ("status", "stats", "top", "doctor"):
            rc, out, _ = m.run(sub, "--help")
            assert rc == 0 and "--json" in out, "%s --help" % sub
    finally:
        m.close()


def t_no_module():
    m = Machine()
    try:
        rc, data = m.json("status")
        assert rc == EXIT_NODEV, "exit %d, want 4" % rc
        assert ids(data["findings"]) == ["module_not_loaded"], data
        rc, out, _ = m.run("stats", "--prometheus")
        assert rc == EXIT_NODEV and "metaroce_module_loaded 0\n" in out, out
    finally:
        m.close()


def t_status_healthy():
    m = Machine()
    try:
        m.module()
        m.netdev("eth0", 2, 9000)
        m.device("mroce0", "eth0", 2,
                 gids=["0000:0000:0000:0000:0000:ffff:c000:0201"])
        rc, data = m.json("status")
        st = data["status"]
        assert ids(data["findings"]) == ["module_not_installed"], data
        assert rc == EXIT_OK, "exit %d" % rc
        d = st["devices"][0]
        assert d["name"] == "mroce0" and d["state"] == "ACTIVE", d
        assert d["netdev"]["mtu"] == 9000 and d["active_mtu"] == 4096, d
        assert len(d["gids"]) == 2 and d["gids"][1]["index"] == 1, d["gids"]
        assert d["objects"]["qp"] == 2 and d["objects"]["cq"] == 2, d
        assert st["module"]["build_id"] == "ab" * 20, st["module"]
        assert d["transport_policy"] == "auto", d
        assert d["paths"] == {"mode": "spray", "per_qp": 16,
                              "hold_us": 2000}, d["paths"]
        assert d["congestion_control"]["delay_window"] is False, d
        rc, out, _ = m.run("status")
        assert rc == EXIT_OK and "mroce0: port 1 ACTIVE" in out, out
        assert "MTU 9000" in out and "transport policy auto, fabric " \
            "lossless, paths spray x16, ECN on, DCQCN on, delay window " \
            "off" in out, out
        # a module without the knobs: said so, not guessed
        m.device("mroce1", "eth0", 2, settings=False)
        rc, data = m.json("status")
        d = [x for x in data["status"]["devices"] if x["name"] == "mroce1"]
        assert d and d[0]["fabric_policy"] == "not available in this version"
        assert d[0]["paths"]["mode"] == "not available in this version", d
    finally:
        m.close()


def t_status_problems():
    m = two_devices()
    try:
        m.device("rxe0", "eth1", 3, metaroce=False)
        m.netdev("eth2", 4, 4096)
        m.device("mroce2", "eth2", 4, state="1: DOWN")
        rc, data = m.json("status")
        mtus = {d["name"]: d["active_mtu"] for d in data["status"]["devices"]}
        assert mtus == {"mroce0": 4096, "mroce1": 1024, "mroce2": 2048}, mtus
        got = ids(data["findings"])
        for want in ("mtu_mismatch", "shared_netdev", "port_down",
                     "mtu_headroom"):
            assert want in got, "%s missing from %s" % (want, got)
        assert rc == EXIT_ERROR, "exit %d, want 3" % rc
        f = next(f for f in data["findings"] if f["id"] == "shared_netdev")
        assert f["device"] == "mroce1" and "rxe0" in f["cause"], f
        for f in data["findings"]:
            for k in ("symptom", "cause", "fix", "severity"):
                assert f.get(k), "finding %s lacks %s" % (f["id"], k)
        h = next(f for f in data["findings"] if f["id"] == "mtu_headroom")
        assert "4192" in h["fix"], h
        rc, out, _ = m.run("status")
        assert "ERROR mtu_mismatch" in out and "  fix:" in out, out
    finally:
        m.close()


def t_versions():
    m = Machine()
    try:
        m.module(build_id="cd" * 20)
        m.netdev("eth0", 2, 1500)
        m.device("mroce0", "eth0", 2, abi="99",
                 gids=["0000:0000:0000:0000:0000:ffff:c000:0201"])
        ko = os.path.join(m.root, "fake.ko")
        shutil.copy("/bin/true", ko)        # any ELF64 with a build-id
        m.fake("modinfo", "echo %s" % ko)
        rc, data = m.json("status", env={"RDMAV_DRIVERS": ""})
        got = ids(data["findings"])
        for want in ("abi_skew", "stale_module", "provider_missing"):
            assert want in got, "%s missing from %s" % (want, got)
        bid = data["status"]["module"]["installed_build_id"]
        ref = subprocess.run(["readelf", "-n", "/bin/true"],
                             capture_output=True, text=True).stdout
        assert bid and bid in ref, "build-id %s not in readelf -n" % bid
    finally:
        m.close()


def t_gids():
    m = two_devices()
    try:
        m.netdev("eth2", 4, 9000)
        m.device("mroce2", "eth2", 4)          # link-local GID only
        m.netdev("eth3", 5, 9000)
        m.device("mroce3", "eth3", 5,
                 gids=["0000:0000:0000:0000:0000:ffff:c000:0201"])
        _, data = m.json("status")
        got = ids(data["findings"])
        assert "gid_no_ip" in got and "gid_duplicate" in got, got
        f = next(f for f in data["findings"] if f["id"] == "gid_no_ip")
        assert f["device"] == "mroce2", f
    finally:
        m.close()


PROM_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)'
                       r'(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})?'
                       r' (-?[0-9.e+]+)$')


def parse_prom(text):
    """Samples by (name, labels), checking the exposition format's rules:
    HELP and TYPE before a family's samples, families contiguous."""
    samples, typed, seen, current = {}, {}, set(), None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in seen, "family %s split" % name
            seen.add(name)
            current = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, mtype = line.split()
            assert name == current, "TYPE %s after HELP %s" % (name, current)
            typed[name] = mtype
            continue
        m = PROM_LINE.match(line)
        assert m, "bad sample line: %r" % line
        name = m.group(1)
        assert name == current, "sample %s outside its family" % name
        if typed[name] == "counter":
            assert name.endswith("_total"), "counter %s without _total" % name
        labels = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"',
                                 m.group(2) or ""))
        samples[(name, tuple(sorted(labels.items())))] = float(m.group(5))
    return samples, typed


def t_prometheus():
    m = two_devices()
    try:
        rc, out, err = m.run("stats", "--prometheus")
        assert rc == EXIT_OK, "exit %d: %s" % (rc, err)
        samples, typed = parse_prom(out)
        dl = (("device", "mroce0"), ("port", "1"))
        assert samples[("metaroce_rx_packets_total", dl)] == 1000
        assert samples[("metaroce_retransmits_total", dl)] == 7
        drop = tuple(sorted(dl + (("reason", "malformed"),)))
        assert samples[("metaroce_rx_dropped_packets_total", drop)] == 3
        assert samples[("metaroce_netdev_mtu_bytes", dl)] == 9000
        assert samples[("metaroce_port_up", dl)] == 1
        assert samples[("metaroce_module_loaded", ())] == 1
        assert typed["metaroce_rx_dropped_packets_total"] == "counter"
        assert typed["metaroce_port_up"] == "gauge"
        qp = tuple(sorted(dl + (("type", "qp"),)))
        assert samples[("metaroce_objects", qp)] == 2
        assert not any(k[0].startswith("metaroce_rx_drop_") for k in samples)
        # Every counter the device has is exported, under some name.
        n = sum(1 for k in samples if k[1][:2] == dl and
                typed[k[0]] == "counter")
        assert n == len(COUNTERS), "%d counters exported" % n
    finally:
        m.close()


def t_prometheus_file_and_escaping():
    m = two_devices()
    try:
        m.counter("mroce0", "new_thing", 5)     # a counter the tool never saw
        tool = load_tool()
        assert tool.prom_escape('a"b\\c\nd') == 'a\\"b\\\\c\\nd'
        path = os.path.join(m.root, "metaroce.prom")
        rc, out, _ = m.run("stats", "--prometheus", "--output", path)
        assert rc == EXIT_OK and out == "", out
        with open(path) as f:
            samples, typed = parse_prom(f.read())
        key = ("metaroce_new_thing_total",
               (("device", "mroce0"), ("port", "1")))
        assert samples[key] == 5 and typed[key[0]] == "counter"
        assert not [n for n in os.listdir(m.root) if n.endswith(".tmp")]
    finally:
        m.close()


def t_stats_json():
    m = two_devices()
    try:
        rc, data = m.json("stats")
        assert rc == EXIT_OK
        assert data["devices"]["mroce0"]["retransmits"] == 7, data
        assert data["devices"]["mroce1"]["rx_packets"] == 0, data
        rc, out, _ = m.run("stats")
        assert re.search(r"retransmits\s+7", out), out
    finally:
        m.close()


def t_top_once():
    m = two_devices()
    try:
        m.qp("mroce0", 17, 18, 100)
        m.qp("mroce1", 18, 17, 5)
        m.qp("rxe0", 19, 20, 5)                   # not ours: not shown
        # Device rates from the counters' growth between the two samples.
        m.counter("mroce0", "tx_packets", 900)
        rc, data = m.json("top", "--once", "--interval", "0.3")
        assert rc == EXIT_OK, rc
        assert [d["device"] for d in data["devices"]] == ["mroce0", "mroce1"]
        assert data["devices"][0]["tx"] == 0, data["devices"][0]
        qps = {q["qpn"]: q for q in data["qps"]}
        assert sorted(qps) == [17, 18], qps
        assert qps[17]["comm"] == "ib_write_bw" and qps[17]["peer_qpn"] == 18
        tool = load_tool()
        a = {"time": 0.0, "dev": {"d": {"tx_packets": 10, "rx_drop_seq": 1,
                                        "rx_drop_icrc": 0}},
             "state": {"d": "ACTIVE"}, "qps": []}
        b = {"time": 2.0, "dev": {"d": {"tx_packets": 30, "rx_drop_seq": 3,
                                        "rx_drop_icrc": 4}},
             "state": {"d": "ACTIVE"}, "qps": []}
        devs, _ = tool.top_rows(a, b)
        assert devs[0]["tx"] == 10 and devs[0]["drops"] == 3, devs
        rc, out, _ = m.run("top", "--once", "--interval", "0.2", "--sort",
                           "tx")
        assert rc == EXIT_OK and "DEVICE" in out and "ib_write_bw" in out
        assert "sort: tx" in out and "ECN marks received" in out, out
    finally:
        m.close()


def t_trends():
    tool = load_tool()
    a = {"time": 0.0, "dev": {"d0": {"rx_drop_malformed": 5, "retransmits": 1,
                                     "rx_packets": 10}},
         "nic": {"d0": {"rx_pause": 3, "rx_discards": 0}}}
    b = {"time": 2.0, "dev": {"d0": {"rx_drop_malformed": 9, "retransmits": 1,
                                     "rx_packets": 90}},
         "nic": {"d0": {"rx_pause": 3, "rx_discards": 4}}}
    got = tool.check_trends(a, b)
    assert ids(got) == ["counter_climbing", "nic_counter_climbing"], got
    c = next(f for f in got if f["id"] == "counter_climbing")
    assert "rx_drop_malformed +4" in c["detail"], c
    assert "retransmits" not in c["detail"], c
    n = next(f for f in got if f["id"] == "nic_counter_climbing")
    assert "rx_discards" in n["detail"] and "rx_pause" not in n["detail"]
    assert tool.check_trends(a, a) == [], "a flat counter is no finding"
    # ECN marks and CNPs: one finding for congestion, one for CNPs ignored.
    e0 = {"time": 0.0, "dev": {"d0": {"np_ecn_marked_roce_packets": 1,
                                      "rp_cnp_handled": 0,
                                      "rp_cnp_ignored": 0}}, "nic": {}}
    e1 = {"time": 1.0, "dev": {"d0": {"np_ecn_marked_roce_packets": 41,
                                      "rp_cnp_handled": 7,
                                      "rp_cnp_ignored": 3}}, "nic": {}}
    got = tool.check_trends(e0, e1)
    assert [f["id"] for f in got] == ["counter_climbing"] * 2, got
    assert "np_ecn_marked_roce_packets +40" in got[0]["detail"], got
    assert "rp_cnp_handled +7" in got[0]["detail"], got
    assert "Congestion Experienced" in got[0]["symptom"], got
    assert got[1]["detail"] == "rp_cnp_ignored +3 in 1.0s", got
    assert "metaroce_rp_enable" in got[1]["fix"], got


def t_doctor():
    m = two_devices(mtu_b=9000)
    try:
        m.put("kernel/config/rdma_cm/mroce0/ports/1/default_roce_tos",
              "106\n")
        rc, data = m.json("doctor", "--interval", "0.1", "--tos", "106")
        got = ids(data["findings"])
        assert got == ["module_not_installed", "tos_mismatch"], got
        tos = [f for f in data["findings"] if f["id"] == "tos_mismatch"]
        assert [f["device"] for f in tos] == ["mroce1"], tos
        assert "default_roce_tos" in tos[0]["fix"], tos
        assert rc == EXIT_WARN, "exit %d, want 1" % rc
        peer = os.path.join(m.root, "peer.json")
        _, st = m.json("status")
        st["status"]["devices"][0]["netdev"]["mtu"] = 1500
        st["status"]["devices"][0]["active_mtu"] = 1024
        with open(peer, "w") as f:
            json.dump(st, f)
        rc, data = m.json("doctor", "--interval", "0.1", "--peer-json", peer)
        assert "mtu_mismatch" in ids(data["findings"]), data
        assert rc == EXIT_ERROR, rc
        rc, out, _ = m.run("doctor", "--interval", "0.1", "--peer-json",
                           peer)
        assert "peer.json:mroce0: netdev MTU 1500" in out, out
    finally:
        m.close()


def t_doctor_climbing():
    """A counter that climbs between doctor's two samples."""
    m = two_devices(mtu_b=9000)
    try:
        env = dict(os.environ, METAROCE_SYSFS=m.sys,
                   PATH=m.bin + ":" + os.environ["PATH"],
                   RDMAV_DRIVERS="/fixture")
        p = subprocess.Popen([sys.executable, TOOL, "doctor", "--json",
                              "--interval", "3"], env=env,
                             stdout=subprocess.PIPE, text=True)
        time.sleep(1.5)
        m.counter("mroce1", "retransmits", 50)
        out, _ = p.communicate(timeout=60)
        data = json.loads(out)
        f = [f for f in data["findings"] if f["id"] == "counter_climbing"]
        assert [x["device"] for x in f] == ["mroce1"], data
        assert "retransmits +50" in f[0]["detail"], f
        assert p.returncode == EXIT_WARN, p.returncode
    finally:
        m.close()


def mesh_machine(slow=None, broken=None):
    """Three namespaces, each with one MetaRoCE device; fake perftest whose
    bandwidth is 40 Gb/s, or 8 from the namespace `slow`; `broken` fails
    as a server."""
    m = Machine()
    m.module()
    for k in (1, 2, 3):
        ns, dev, nd = "n%d" % k, "mroce%d" % k, "v%d" % k
        m.device(dev, nd, 10 + k,
                 gids=["0000:0000:0000:0000:0000:ffff:c000:02%02x" % k])
        m.put("netns/%s/link.json" % ns, json.dumps(
            [{"ifname": dev, "port": 1, "netdev": nd,
              "netdev_index": 10 + k}]))
        m.put("netns/%s/addr.json" % ns, json.dumps(
            [{"ifname": nd, "ifindex": 10 + k, "addr_info": [
                {"local": "192.0.2.%d" % k, "scope": "global"}]}]))
    # `ip netns exec NS CMD`: CMD with MESH_NS=NS; the fake rdma and ip
    # then answer for that namespace.
    m.fake("ip", """if [ "$1 $2" = "netns exec" ]; then
ns=$3; shift 3; MESH_NS=$ns exec "$@"; fi
case "$*" in *"addr show"*) cat %s/netns/$MESH_NS/addr.json ;; esac"""
           % m.sys)
    m.fake("rdma", """case "$*" in
*"link show"*) cat %s/netns/$MESH_NS/link.json ;;
*) exit 1 ;;
esac""" % m.sys)
    m.fake("ss", 'echo "LISTEN 0 5 0.0.0.0:$4 0.0.0.0:*"')
    for prog, head, row in (
            ("ib_write_bw", " #bytes     #iterations    BW peak[Gb/sec]"
             "    BW average[Gb/sec]   MsgRate[Mpps]",
             " 65536      1000      $bw      $bw      0.07"),
            ("ib_read_lat", " #bytes #iterations    t_min[usec]    "
             "t_max[usec]  t_typical[usec]    t_avg[usec]",
             " 2       1000      1.0      9.0      $lat      3.0")):
        m.fake(prog, """last=$(eval echo \\${$#})
case "$last" in
192.*) ;;
*) [ "$MESH_NS" = "%s" ] && exit 1; exit 0 ;;
esac
bw=40.00 lat=2.50
[ "$MESH_NS" = "%s" ] && bw=8.00 lat=9.50
echo '%s'
echo "%s"
""" % (broken, slow, head, row))
    return m


def t_mesh_suspects():
    """The ranking of likely culprits, on figures of a VM run where noise
    flagged one more pair than the planted slow link."""
    tool = load_tool()
    mx = [[None, 0.0895, 0.2], [0.2, None, 0.17], [0.0189, 0.0189, None]]
    _, _, flagged = tool.mesh_outliers(mx, True, 0.25)
    assert flagged == [(0, 1), (2, 0), (2, 1)], flagged
    got = [(s["host"], s["role"]) for s in
           tool.mesh_suspects(["a", "b", "c"], mx, flagged, True)]
    assert got == [("c", "client"), ("b", "server")], got
    assert tool.mesh_suspects(["a", "b"], [[None, 1], [0.1, None]],
                              [(1, 0)], True) == [], "two hosts: no culprit"


def t_mesh():
    m = mesh_machine(slow="n3")
    try:
        png = os.path.join(m.root, "mesh.png")
        hosts = os.path.join(m.root, "hosts")
        with open(hosts, "w") as f:
            f.write("# the mesh\nnetns:n1\nnetns:n2  # second\nnetns:n3\n")
        rc, data = m.json("mesh", "--hosts-file", hosts, "--lat", "--png",
                          png, "--port", "20000")
        assert rc == EXIT_WARN, "exit %d, want 1 (outliers)" % rc
        assert [(h["device"], h["address"], h["gid_index"])
                for h in data["hosts"]] == [
            ("mroce1", "192.0.2.1", 1), ("mroce2", "192.0.2.2", 1),
            ("mroce3", "192.0.2.3", 1)], data["hosts"]
        bw, lat = data["results"]
        assert bw["matrix"] == [[None, 40.0, 40.0], [40.0, None, 40.0],
                                [8.0, 8.0, None]], bw["matrix"]
        assert bw["median"] == 40.0 and bw["limit"] == 30.0, bw
        assert [(o["from"], o["to"]) for o in bw["outliers"]] == [
            ("netns:n3", "netns:n1"), ("netns:n3", "netns:n2")], bw
        assert bw["suspects"] == [{"host": "netns:n3", "role": "client",
                                   "best": 8.0}], bw["suspects"]
        assert lat["matrix"][2] == [9.5, 9.5, None], lat
        assert len(lat["outliers"]) == 2, lat
        with open(png, "rb") as f:
            head = f.read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        rc, out, _ = m.run("mesh", "netns:n1", "netns:n2/mroce2",
                           "netns:n3")
        assert rc == EXIT_WARN, rc
        assert re.search(r"netns:n3 +8\.00! +8\.00! +-", out), out
        assert re.search(r"netns:n1 +- +40\.0 +40\.0", out), out
        assert "more than 25% below the median" in out, out
        assert "likely culprit: netns:n3, every pair with it as client " \
            "flagged (its best 8.00 Gb/s)" in out, out
        # A tolerance that accepts 8 of 40: no outlier, exit 0.
        rc, out, _ = m.run("mesh", "--tolerance", "0.9", "netns:n1",
                           "netns:n2", "netns:n3")
        assert rc == EXIT_OK and "8.00!" not in out, out
        assert "no outlier (none more than 90% below" in out, out
    finally:
        m.close()


def t_mesh_errors():
    m = mesh_machine(broken="n2")
    try:
        for args in (["mesh", "netns:n1"], ["mesh", "netns:n1", "netns:n1"],
                     ["mesh", "netns:", "netns:n1"],
                     ["mesh", "netns:n1", "bad host"],
                     ["mesh", "--tolerance", "1.5", "a", "b"],
                     ["mesh", "--iters", "0", "a", "b"]):
            rc, _, err = m.run(*args)
            assert rc == EXIT_USAGE, "%s: exit %d, want 2" % (args, rc)
        rc, _, err = m.run("mesh", "netns:n1", "netns:n2/mroce9")
        assert rc == EXIT_ERROR and "no MetaRoCE device mroce9" in err, err
        # n2's server fails: the pairs towards it fail, the rest stand.
        rc, data = m.json("mesh", "netns:n1", "netns:n2", "netns:n3",
                          "--timeout", "5")
        assert rc == EXIT_ERROR, rc
        assert sorted((e["from"], e["to"]) for e in data["errors"]) == [
            ("netns:n1", "netns:n2"), ("netns:n3", "netns:n2")], data
        assert data["results"][0]["matrix"][0] == [None, None, 40.0]
    finally:
        m.close()


def t_config():
    m = two_devices()
    try:
        p = "module/metaroce/parameters/"
        for name, value, mode in (("udp_port", "4791", 0o644),
                                  ("max_qp", "65536", 0o644),
                                  ("auto_attach", "N", 0o444),
                                  ("attach_drivers", "mlx5_core", 0o444),
                                  ("attach_name", "mroce_%s", 0o444)):
            m.put(p + name, value + "\n")
            os.chmod(os.path.join(m.sys, p + name), mode)
        m.put("class/infiniband/mroce0/metaroce_udp_port", "4791\n")
        rc, data = m.json("config")
        assert rc == EXIT_OK, rc
        keys = {k["key"]: (k["value"], k["settable"]) for k in data["keys"]}
        assert keys == {"udp_port": ("4791", "runtime"),
                        "max_qp": ("65536", "runtime"),
                        "auto_attach": ("N", "load"),
                        "attach_drivers": ("mlx5_core", "load"),
                        "attach_name": ("mroce_%s", "load"),
                        "mroce0.udp_port": ("4791", "no")}, keys
        rc, out, _ = m.run("config", "udp_port")
        assert (rc, out) == (EXIT_OK, "4791\n"), (rc, out)
        rc, out, _ = m.run("config", "udp_port=0x12b8")
        assert rc == EXIT_OK and "udp_port: 4791 -> 4792" in out, out
        for bad, why in (("udp_port=0", "1 to 65535"),
                         ("udp_port=65536", "1 to 65535"),
                         ("udp_port=abc", "1 to 65535"),
                         ("max_qp=0", "1 to 65536"),
                         ("max_qp=65537", "1 to 65536"),
                         ("auto_attach=1", "modprobe.d"),
                         ("mroce0.udp_port=5000", "rdma link"),
                         ("transport=multipath", "unknown key"),
                         ("nope", "unknown key")):
            rc, _, err = m.run("config", bad)
            assert rc == EXIT_USAGE and why in err, (bad, rc, err)
        # Nothing is written when one assignment of several is refused.
        rc, _, _ = m.run("config", "udp_port=5000", "auto_attach=1")
        assert rc == EXIT_USAGE and m.run("config", "udp_port")[1] == \
            "4792\n", "a refused set wrote"
        rc, out, _ = m.run("config", "max_qp=1024")
        assert rc == EXIT_OK and "max_qp: 65536 -> 1024" in out, out
        rc, out, _ = m.run("config")
        assert re.search(r"^auto_attach +N +load ", out, re.M), out
        assert re.search(r"^max_qp +1024 +runtime +most QPs alive", out,
                         re.M), out
        shutil.rmtree(os.path.join(m.sys, "module"))
        rc, _, err = m.run("config")
        assert rc == EXIT_NODEV and "not loaded" in err, (rc, err)
    finally:
        m.close()


def t_plan():
    """metaroce plan: a job's flows onto the fabric's paths, applied to
    this host's devices, and the file's errors by line."""
    m = two_devices()
    try:
        m.put("class/infiniband/mroce0/metaroce_path_plan", "")
        job = os.path.join(m.root, "job.plan")

        def write(text):
            with open(job, "w") as f:
                f.write(text)

        write("# two flows over four spines\n"
              "path s1 49152,49157\npath s2 49153\n"
              "path s3 49154 # a comment\npath s4 49155,49156\n"
              "flow mroce0 10.2.0.2\nflow remote0 2001:DB8::2\n")
        rc, data = m.json("plan", job)
        assert rc == EXIT_OK, rc
        f = data["flows"]
        assert [x["paths"] for x in f] == [["s1", "s3"], ["s2", "s4"]], f
        assert f[0]["ports"] == [49152, 49157, 49154], f
        assert f[1]["peer"] == "2001:db8::2" and not f[1]["here"], f
        assert not f[0]["applied"], f
        rc, out, _ = m.run("plan", job, "--apply")
        assert rc == EXIT_OK, rc
        assert "mroce0 -> 10.2.0.2: paths s1,s3, ports 49152,49157,49154 " \
            "(applied)" in out and "(not here)" in out, out
        with open(os.path.join(m.sys, "class/infiniband/mroce0/"
                               "metaroce_path_plan")) as fh:
            assert fh.read() == "10.2.0.2 49152,49157,49154\n"
        # weights, and more flows than paths
        write("path a 1\npath b 2\npath c 3\n"
              "flow mroce0 10.0.0.1 2\nflow mroce0 10.0.0.2\n"
              "flow mroce0 10.0.0.3\n")
        rc, data = m.json("plan", job)
        assert [x["paths"] for x in data["flows"]] == \
            [["a"], ["b"], ["c"]], data
        write("path a 1\npath b 2\npath c 3\npath d 4\n"
              "flow mroce0 10.0.0.1 2\nflow mroce0 10.0.0.2\n"
              "flow mroce0 10.0.0.3\n")
        rc, data = m.json("plan", job)
        assert [x["paths"] for x in data["flows"]] == \
            [["a", "d"], ["b"], ["c"]], data
        write("path a 1\nflow mroce0 10.0.0.1\nflow mroce0 10.0.0.2\n")
        rc, data = m.json("plan", job)
        assert [x["paths"] for x in data["flows"]] == [["a"], ["a"]], data
        for text, why in (
                ("path a 0\nflow mroce0 10.0.0.1\n", ":1: '0' is not a UDP"),
                ("path a 1\nflow mroce0 10.0.0\n", ":2: '10.0.0' is not"),
                ("path a 1\npath a 2\nflow d 10.0.0.1\n", ":2: path a twice"),
                ("path a 1\nflow d 10.0.0.1\nflow d 10.0.0.1\n",
                 ":3: flow d 10.0.0.1 twice"),
                ("path a 1\nflow d 10.0.0.1 0\n", "weight '0'"),
                ("path a 1\nroute x\n", ":2: expected 'path"),
                ("path a 1\n", "needs at least one path and one flow"),
                ("path a %s\nflow d 10.0.0.1\n"
                 % ",".join(str(50000 + i) for i in range(65)),
                 "65 ports, a plan holds 64")):
            write(text)
            rc, _, err = m.run("plan", job)
            assert rc == EXIT_USAGE and why in err, (text, rc, err)
        rc, _, err = m.run("plan", os.path.join(m.root, "nope"))
        assert rc == EXIT_USAGE and "nope" in err, err
        write("path a 1\nflow remote0 10.0.0.1\n")
        rc, _, err = m.run("plan", job, "--apply")
        assert rc == EXIT_NODEV and "no flow's device is here" in err, err
    finally:
        m.close()


def t_top_qp():
    """Per-QP rows from the driver fields of `rdma -dd res show qp`."""
    tool = load_tool()
    q = {"ifname": "d", "lqpn": 17, "rqpn": 18, "type": "RC",
         "state": "RTS", "pid": 7, "comm": "x"}
    a = dict(q, **{"drv_sq-una": 0xfffff0, "drv_sq-nxt": 0xfffff8,
                   "drv_sq-max": 0xfffffa, "drv_rq-epsn": 100,
                   "drv_sq-wnd": 128, "drv_cpu": 1, "drv_rxq": 0,
                   "drv_rnr-wait": 0})
    b = dict(q, **{"drv_sq-una": 0xfffffe, "drv_sq-nxt": 4,
                   "drv_sq-max": 8, "drv_rq-epsn": 300, "drv_sq-wnd": 128,
                   "drv_cpu": 1, "drv_rxq": 2, "drv_rnr-wait": 1})
    snap = {"dev": {}, "state": {}}
    devs, qps = tool.top_rows(dict(snap, time=0.0, qps=[a]),
                              dict(snap, time=2.0, qps=[b]))
    r = qps[0]
    # sq-max wrapped from 0xfffffa to 8: 14 PSNs in 2 s.
    assert (r["tx"], r["rx"], r["inflight"], r["resend"]) == \
        (7.0, 100.0, 10, 4), r
    assert (r["window"], r["rxq"], r["rnr_wait"]) == (128, 2, 1), r
    m = two_devices()
    try:
        m.qps.append(dict(q, ifname="mroce0", **{
            "sq-una": 5, "sq-nxt": 9, "sq-max": 9, "rq-epsn": 1,
            "sq-wnd": 64, "cpu": 0, "rxq": 0, "rnr-wait": 0}))
        m.qps.append({"ifname": "mroce1", "lqpn": 1, "type": "GSI",
                      "state": "RTS", "pid": None})
        m.write_rdma()
        rc, data = m.json("top", "--once", "--interval", "0.2")
        rows = {x["qpn"]: x for x in data["qps"]}
        assert rows[17]["inflight"] == 4 and rows[17]["window"] == 64, rows
        assert rows[17]["tx"] == 0.0 and rows[1]["tx"] is None, rows
        rc, out, _ = m.run("top", "--once", "--interval", "0.2")
        assert re.search(r"^mroce0 +17 RC +RTS +18 +0 +0 +4 +64 +0 +0 +0 +no"
                         r" +7 x$", out, re.M), out
    finally:
        m.close()


def t_docs():
    """Every finding and subcommand is in the man page and the guide."""
    with open(TOOL) as f:
        src = f.read()
    fids = set(re.findall(r'finding\(\s*"([a-z_]+)"', src))
    assert len(fids) >= 15, fids
    root = os.path.join(HERE, "..", "..")
    for doc in ("tools/metaroce/metaroce.8", "Documentation/operators.rst"):
        with open(os.path.join(root, doc)) as f:
            text = f.read().replace("\\", "")
        missing = [i for i in sorted(fids) if i not in text]
        assert not missing, "%s lacks %s" % (doc, missing)
        for sub in ("status", "stats", "top", "doctor", "--prometheus",
                    "--once", "--tos"):
            assert sub in text, "%s lacks %s" % (doc, sub)


TESTS = [t_docs, t_usage, t_no_module, t_status_healthy, t_status_problems,
         t_versions, t_gids, t_prometheus, t_prometheus_file_and_escaping,
         t_stats_json, t_top_once, t_top_qp, t_trends, t_doctor,
         t_doctor_climbing, t_config, t_mesh_suspects, t_mesh,
         t_mesh_errors, t_plan]


def main():
    print("TAP version 13")
    print("1..%d" % len(TESTS))
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print("ok %d - %s" % (i, t.__name__[2:]))
        except Exception as e:      # any failure is the test's, reported
            failed += 1
            print("not ok %d - %s" % (i, t.__name__[2:]))
            for line in ("%s: %s" % (type(e).__name__, e)).splitlines():
                print("#   " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
