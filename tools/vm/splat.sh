#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Does a guest kernel log hold a kernel bug report?  The one definition
# used by tools/vm/run.sh (which fails a run on it) and by the debug lane's
# planted-bug checks (tools/debugkernel/lane.sh), so the lane proves the
# runner's own pattern catches each detector.
#
#   tools/vm/splat.sh LOG    exit 0 and print the reports when LOG has one,
#                            exit 1 when it has none
#
# Covered: oopses, BUG/WARN (which include the "sleeping function called
# from invalid context" and "scheduling while atomic" BUGs of
# DEBUG_ATOMIC_SLEEP and debugobjects' ODEBUG warnings), KASAN and UBSAN
# reports, refcount_t warnings, lockdep (circular locking, inconsistent
# lock state, ... all printed as "WARNING:" or "BUG:"), kmemleak's
# "unreferenced object" (printed to the log when its verbose parameter is
# on, as guest-init.sh sets it), hung tasks, soft/hard lockups, RCU stalls.
set -u
splat='(Oops|BUG:|WARNING:|KASAN|UBSAN|ODEBUG|refcount_t:|general protection fault|Kernel panic|kernel BUG|possible circular locking|INFO: task .* blocked|unreferenced object|watchdog: BUG|rcu.*(stall|self-detected))'
# Not covered: "traps: <comm>[pid] general protection fault ... in <lib>",
# the kernel's note that a user-space process crashed (seen with perftest's
# -R programs in librdmacm); the test that ran the program judges it.
user_fault=' traps: [^ ]+\[[0-9]+\] '
[ -f "${1:-}" ] || { echo "usage: splat.sh LOG" >&2; exit 2; }
grep -avE "$user_fault" "$1" | grep -aEq "$splat" || exit 1
grep -avE "$user_fault" "$1" | grep -aE -B2 -A20 "$splat"
exit 0
