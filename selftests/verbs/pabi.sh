#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The provider refuses a libibverbs release other than the one it was built
# for (userspace/provider/mroce_pabi.h): run against the same library under
# another release's file name, it says why and does not register, so the
# device gets no provider, where with the right one it is listed.  The
# build-time half and the message are tested on the host
# (tools/provider_abi_test.sh).
source "$(dirname "$0")/../lib.sh"

verbs_prologue
dev=p$$a
verbs_one_dev "$dev"
real=$(readlink -f /usr/lib/*-linux-gnu*/libibverbs.so.1 | head -1)
other=$(mktemp -d)
defer rm -rf "$other"
cp "$real" "$other/libibverbs.so.1.14.45.0"
ln -s libibverbs.so.1.14.45.0 "$other/libibverbs.so.1"

out=$(ibv_devices 2>&1)
t_check "ibv_devices lists $dev (libibverbs ${real##*.so.})" \
	grep -qw "$dev" <<<"$out"
out=$(LD_LIBRARY_PATH=$other ibv_devices 2>&1)
echo "# $(grep -m1 libmetaroce <<<"$out")"
t_check "with libibverbs named 1.14.45.0 the provider says it does not register" \
	grep -q "libmetaroce: built for libibverbs .* not registering" <<<"$out"
t_check "... and $dev is not listed" sh -c "! grep -qw '$dev' <<'E'
$out
E"
t_done
