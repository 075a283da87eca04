#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The provider's guard on libibverbs' private ABI, on the host (seconds):
# the build refuses a libibverbs release other than the one
# userspace/provider/mroce_pabi.h restates, and the built provider, loaded
# into a process whose libibverbs is another release, says so and does not
# register (selftests/verbs/pabi.sh checks, in the VM, that devices then
# get no provider).  With MROCE_RDMA_CORE_SRC=<rdma-core source tree of that
# release> it also builds the provider inside a copy of that tree as
# providers/metaroce (tools/rdma_core_tree.sh).  Prints TAP.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
echo "TAP version 13"
n=0 failed=0
tap() { # STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
want=$(sed -n 's/^#define MROCE_PABI_LIBIBVERBS[^"]*"\(.*\)"/\1/p' \
	"$ROOT/userspace/provider/mroce_pabi.h")
real=$(readlink -f /usr/lib/*-linux-gnu*/libibverbs.so.1 2>/dev/null | head -1)
case $real in
*".so.$want") ;;
*) echo "1..0 # SKIP the installed libibverbs ($real) is not $want"; exit 4 ;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Build time: pkg-config reporting another release stops the build.
printf '#!/bin/sh\necho 1.14.45.0\n' >"$T/pkg-config"
chmod +x "$T/pkg-config"
make -s -C "$ROOT/userspace" OUT="$T/other" PKG_CONFIG="$T/pkg-config" \
	>"$T/build.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "refusing to build" "$T/build.log"
tap $? "the build refuses libibverbs 1.14.45.0 (exit $rc): $(grep -m1 refusing "$T/build.log")"
[ ! -e "$T/other/libmetaroce-rdmav34.so" ]
tap $? "and writes no provider"

make -s -C "$ROOT/userspace" OUT="$T/lib" >"$T/build.log" 2>&1
tap $? "the build accepts libibverbs $want"
LIB=$T/lib/libmetaroce-rdmav34.so
load() { $PY -c "import ctypes; ctypes.CDLL('libibverbs.so.1'); ctypes.CDLL('$LIB')"; }

# Load time: the genuine libibverbs, then the same library under the file
# name of another release.
msg=$(load 2>&1)
tap $? "the provider loads next to libibverbs $want"
[ -z "$msg" ]
tap $? "silently${msg:+ (said: $msg)}"
mkdir "$T/other-ibverbs"
cp "$real" "$T/other-ibverbs/libibverbs.so.1.14.45.0"
ln -s libibverbs.so.1.14.45.0 "$T/other-ibverbs/libibverbs.so.1"
msg=$(LD_LIBRARY_PATH=$T/other-ibverbs load 2>&1)
echo "$msg" | grep -q "built for libibverbs $want .*libibverbs.so.1.14.45.0: not registering"
tap $? "next to libibverbs 1.14.45.0 it refuses: $msg"

if [ -n "${MROCE_RDMA_CORE_SRC:-}" ]; then
	cp -r "$MROCE_RDMA_CORE_SRC" "$T/rdma-core"
	"$ROOT/tools/rdma_core_tree.sh" "$T/rdma-core" --build >"$T/tree.log" 2>&1
	tap $? "builds as providers/metaroce of $MROCE_RDMA_CORE_SRC"
	! grep -E 'providers/metaroce/.*(warning|error):' "$T/tree.log"
	tap $? "without warnings"
else
	n=$((n + 1))
	echo "ok $n - providers/metaroce in an rdma-core tree # SKIP set MROCE_RDMA_CORE_SRC to an rdma-core ${want#1.14.} source tree"
fi
echo "1..$n"
exit $failed
