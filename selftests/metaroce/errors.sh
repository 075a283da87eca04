#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Bad input to `rdma link add ... type metaroce` fails with a clear errno
# and leaves nothing behind.
. "$(dirname "$0")/../lib.sh"

mroce_load_or_skip

ns=$(uname_of n) a=$(uname_of a) b=$(uname_of b)
new_netns "$ns"
veth_pair "$a" "$ns" "$b" ""
inn() { ip netns exec "$ns" "$@"; }
before=$(mroce_devices | wc -l)

# expect_errno DESC ERRNO_TEXT COMMAND...: the command fails with that text
expect_errno() {
	local desc=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		t_fail "$desc (unexpectedly succeeded)"
	elif echo "$out" | grep -qi "$want"; then
		t_pass "$desc: $want"
	else
		t_fail "$desc: wanted '$want'"
		echo "#   got: $out"
	fi
}

expect_errno "unknown netdev" "No such device" \
	inn rdma link add e0 type metaroce netdev nosuchdev0
expect_errno "non-Ethernet netdev (loopback)" "Invalid argument" \
	inn rdma link add e1 type metaroce netdev lo
modprobe tun 2>/dev/null
if inn ip tuntap add dev "${a}t" mode tun 2>/dev/null; then
	expect_errno "non-Ethernet netdev (tun)" "Invalid argument" \
		inn rdma link add e2 type metaroce netdev "${a}t"
	inn ip tuntap del dev "${a}t" mode tun
else
	t_skip "non-Ethernet netdev (tun)" "cannot create a tun device"
fi
expect_errno "name with a format character" "Invalid argument" \
	inn rdma link add 'e%d' type metaroce netdev "$a"

defer rdma link delete good0
t_check "a valid device" inn rdma link add good0 type metaroce netdev "$a"
expect_errno "netdev already bound" "File exists" \
	inn rdma link add e3 type metaroce netdev "$a"
t_check "the kernel log names the device holding the netdev" \
	sh -c "dmesg | grep -q 'netdev $a is already bound to good0'"

c=$(uname_of c) d=$(uname_of d)
veth_pair "$c" "$ns" "$d" ""
expect_errno "duplicate device name" "File exists" \
	inn rdma link add good0 type metaroce netdev "$c"
t_check "the first good0 is intact and still bound to $a" \
	sh -c "ip netns exec $ns rdma link show good0/1 | grep -q 'netdev $a'"
t_check "rdma link delete of an unknown device fails" \
	sh -c "! rdma link delete nosuchibdev 2>/dev/null"

after=$(mroce_devices | wc -l)
t_check "failed attempts left no device behind ($before + 1 = $after)" \
	test "$after" -eq $((before + 1))
t_check "rdma link delete good0" rdma link delete good0
t_check "no MetaRoCE device left" busywait 5000 sh -c "[ \$(ls /sys/class/infiniband | wc -l) -eq 0 ] || ! grep -lx metaroce /sys/class/infiniband/*/node_desc"
t_check "UDP 4791 closed after the failures and the deletion" \
	sh -c "! ip netns exec $ns ss -Hlun 'sport = :4791' | grep -q ."

t_done
