#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Put the MetaRoCE provider into an rdma-core source tree as
# providers/metaroce (the upstream layout), and optionally build it there:
#
#   tools/rdma_core_tree.sh RDMA_CORE_DIR [--build]
#
# Copies userspace/provider/*.[ch], the kernel ABI header (as
# providers/metaroce/uapi/rdma/metaroce-abi.h, the path the sources
# include) and userspace/rdma-core/CMakeLists.txt, and adds
# add_subdirectory(providers/metaroce) to the tree's CMakeLists.txt.  In the
# tree the sources use rdma-core's own libibverbs/driver.h instead of the
# restated mroce_pabi.h (MROCE_IN_RDMA_CORE).  --build configures the tree
# in RDMA_CORE_DIR/build-metaroce (cmake + ninja, no pyverbs, no man pages)
# and builds the provider and libibverbs: it needs what rdma-core needs
# (cmake, ninja-build, pkg-config, libnl-3-dev, libnl-route-3-dev), no
# network.  Documentation/verbs.rst, "Building inside rdma-core".
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREE=${1:?usage: $0 RDMA_CORE_DIR [--build]}
BUILD=${2:-}
[ -f "$TREE/CMakeLists.txt" ] && [ -d "$TREE/providers" ] ||
	{ echo "$TREE: not an rdma-core source tree" >&2; exit 1; }

DST=$TREE/providers/metaroce
rm -rf "$DST"
mkdir -p "$DST/uapi/rdma"
cp "$ROOT"/userspace/provider/*.[ch] "$DST/"
cp "$ROOT/include/uapi/rdma/metaroce-abi.h" "$DST/uapi/rdma/"
cp "$ROOT/userspace/rdma-core/CMakeLists.txt" "$DST/"
grep -q '^add_subdirectory(providers/metaroce)' "$TREE/CMakeLists.txt" ||
	sed -i '0,/^add_subdirectory(providers\//s//add_subdirectory(providers\/metaroce)\n&/' \
		"$TREE/CMakeLists.txt"
grep -q '^add_subdirectory(providers/metaroce)' "$TREE/CMakeLists.txt" ||
	{ echo "$TREE/CMakeLists.txt: no add_subdirectory(providers/...) to join" >&2; exit 1; }
echo "providers/metaroce: in $TREE"

[ "$BUILD" = --build ] || exit 0
mkdir -p "$TREE/build-metaroce"
cd "$TREE/build-metaroce"
cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0 .. >cmake.log
ninja metaroce-rdmav"$(sed -n 's/^set(IBVERBS_PABI_VERSION "\(.*\)")/\1/p' ../CMakeLists.txt)"
ls -l lib/libmetaroce-rdmav*.so
