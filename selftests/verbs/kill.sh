#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A process holding one object of every type (verbs_hold.c: context, comp
# channel, PD, MR, CQs, SRQ, RC/UC/UD/SRQ QPs, AH, queued receives, mapped
# rings) is SIGKILLed, over and over; every fourth one is killed while it
# is still creating its objects.  Afterwards `rdma resource` counts, the
# module's own object counters (sysfs metaroce_objects), the ring buffers
# in /proc/vmallocinfo and the kmalloc slab usage are back to their
# baseline.
#
# verbs_hold -c forks the processes from one parent that initialised
# libibverbs once: about 0.2 s a cycle under TCG instead of 2 s for an
# exec.  MROCE_T_KILL_CYCLES (default 1000) cycles; all must complete.
#
# Slab: the module has no caches of its own; its objects, and ib_core's
# and ib_uverbs' for them, come from kmalloc-*.  The bytes in use there
# (active objects x object size) are compared before and after, within
# MROCE_T_KILL_SLAB_KB (default 512 KiB: per-CPU slabs and the rest of the
# system move it by tens of KiB).  A leak of 512 bytes per cycle exceeds it.
source "$(dirname "$0")/../lib.sh"

CYCLES=${MROCE_T_KILL_CYCLES:-1000}
SLAB_KB=${MROCE_T_KILL_SLAB_KB:-512}

verbs_prologue
dev=k$$x
verbs_one_dev "$dev" "rdma link add $dev"
gid=$VERBS_GID

objects() { cat "/sys/class/infiniband/$dev/metaroce_objects"; }
resources() { rdma resource show "$dev" 2>/dev/null | sed 's/^[0-9]*: //'; }
rings() { grep -c 'mroce_kring_alloc' /proc/vmallocinfo; }
state() { echo "objects: $(objects) | rdma: $(resources) | rings: $(rings)"; }

base=$(state)
echo "# baseline $base"
same_as_base() { [ "$(state)" = "$base" ]; }

kmalloc_kb() {
	awk '$1 ~ /^kmalloc-/ { b += $2 * $4 } END { print int(b / 1024) }' \
		/proc/slabinfo
}

# One held process, for the per-object counts.
coproc HOLD { exec "$SUITE_BIN/verbs_hold" "$dev" "$gid"; }
pid=$HOLD_PID
read -r -t 10 -u "${HOLD[0]}" line
t_check "verbs_hold created every object" [ "$line" = ready ]
echo "# holding  $(state)"
kill -9 "$pid"
wait "$pid" 2>/dev/null

# A few cycles first, so that one-time allocations (libibverbs' sysfs
# scan, first-use caches) are part of the slab baseline.
"$SUITE_BIN/verbs_hold" -c 8 "$dev" "$gid" >/dev/null
busywait 10000 same_as_base
slab0=$(kmalloc_kb)
slabs0=$(mktemp)
defer rm -f "$slabs0"
cp /proc/slabinfo "$slabs0"
echo "# kmalloc in use: ${slab0} KiB"

start=$(date +%s)
out=$("$SUITE_BIN/verbs_hold" -c "$CYCLES" "$dev" "$gid")
rc=$?
secs=$(($(date +%s) - start))
echo "$out"
echo "# wall time ${secs}s"
t_check "$CYCLES create/kill cycles, each child killed by us" [ "$rc" -eq 0 ]

busywait 10000 same_as_base
now=$(state)
echo "# after    $now"
t_check "module object counters back to baseline" \
	[ "$(objects)" = "$(sed 's/^objects: \(.*\) | rdma.*/\1/' <<<"$base")" ]
t_check "rdma resource counts back to baseline" \
	[ "$(resources)" = "$(sed 's/.*| rdma: \(.*\) | rings.*/\1/' <<<"$base")" ]
t_check "ring buffers (vmallocinfo) back to baseline" \
	[ "$(rings)" = "${base##*rings: }" ]
slab1=$(kmalloc_kb)
echo "# kmalloc in use: ${slab1} KiB ($((slab1 - slab0)) KiB more, $(((slab1 - slab0) * 1024 / CYCLES)) bytes a cycle)"
# The caches that moved most, whatever they are, for the record.
awk 'NR == FNR { if ($1 !~ /^#|^slabinfo/) a[$1] = $2 * $4; next }
     $1 in a { d = $2 * $4 - a[$1]; if (d > 4096 || d < -4096)
		printf "# slab %s %+d KiB\n", $1, d / 1024 }' \
	"$slabs0" /proc/slabinfo | sort -t' ' -k4 -g -r | head -8
t_check "kmalloc slab usage back to baseline (+${SLAB_KB} KiB)" \
	[ $((slab1 - slab0)) -le "$SLAB_KB" ]
t_check "rdma link del $dev with nothing left" rdma link del "$dev"
t_done
