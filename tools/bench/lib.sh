# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Helpers the bench's guest scripts share (sourced).

# gid_of IBDEV [ADDR]: the index of its RoCE v2 IPv4 GID (of address ADDR
# if given), waiting up to 5 s for it.
gid_of() {
	local d=/sys/class/infiniband/$1/ports/1 f v t i want=0000:0000:0000:0000:0000:ffff:*
	[ -n "${2:-}" ] &&
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
			$(tr . ' ' <<<"$2"))
	for i in $(seq 50); do
		for f in "$d"/gids/*; do
			read -r v <"$f" 2>/dev/null || continue
			# shellcheck disable=SC2254
			case $v in $want) ;; *) continue ;; esac
			read -r t <"$d/gid_attrs/types/${f##*/}" 2>/dev/null
			[ "$t" = "RoCE v2" ] && { echo "${f##*/}"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

# counter_sum NAME DEV...: a MetaRoCE counter summed over DEVs ("-" for rxe).
counter_sum() {
	local n=$1 s=0 d v
	shift
	for d in "$@"; do
		read -r v 2>/dev/null <"/sys/class/infiniband/$d/ports/1/hw_counters/$n" ||
			{ echo -; return; }
		s=$((s + v))
	done
	echo "$s"
}

# rdma_down STACK DEV...: remove the devices; rdma_rxe too for rxe.
rdma_down() {
	local stack=$1 dev
	shift
	for dev in "$@"; do
		rdma link del "$dev" 2>/dev/null
	done
	[ "$stack" = rxe ] && modprobe -r rdma_rxe 2>/dev/null
	return 0
}

# Every RDMA device of a bench topology sits in the initial namespace
# (rdma_rxe in 6.1 opens its UDP socket there only), on a veth whose
# other end is in a router namespace.  host_local_rules: what is for a
# local address is delivered only when it comes in on a veth (the local
# table moves from pref 0 to 1000 and each veth gets its own rule), so
# traffic between two local addresses crosses the routers.
host_local_rules() {
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	if ip rule show pref 0 | grep -q 'lookup local'; then
		ip rule add pref 1000 lookup local
		ip rule del pref 0 lookup local
	fi
}

# host_veth A B NS NET TABLE: veth A (NET.2/24, initial namespace) to B
# (NET.1/24, in NS, up); local delivery of what comes in on A (rule pref
# TABLE - 100), and what leaves NET.2 goes out of A (rule pref TABLE,
# routing table TABLE).  Appends both prefs to the caller's PREFS.
host_veth() {
	local a=$1 b=$2 ns=$3 net=$4 t=$5
	ip link add "$a" type veth peer name "$b" || return 1
	ip link set "$b" netns "$ns"
	ip addr add "$net.2/24" dev "$a"
	ip -n "$ns" addr add "$net.1/24" dev "$b"
	ip link set "$a" up && ip -n "$ns" link set "$b" up || return 1
	sysctl -qw "net.ipv4.conf.$a.rp_filter=0" \
		"net.ipv4.conf.$a.accept_local=1"
	ip rule add pref $((t - 100)) iif "$a" lookup local
	ip rule add pref "$t" from "$net.2" lookup "$t"
	PREFS+=($((t - 100)) "$t")
	ip route add default via "$net.1" dev "$a" src "$net.2" table "$t"
}
