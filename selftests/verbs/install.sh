#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make install` from the top of the tree, then libibverbs programs find the
# INSTALLED provider on their own: no RDMAV_DRIVERS, no LD_LIBRARY_PATH.
# Needs a writable root (the test VM's overlay); everything installed is
# removed again at exit so later tests see the build tree only.
source "$(dirname "$0")/../lib.sh"

command -v ibv_devinfo >/dev/null || ksft_skip_all "ibverbs-utils not installed"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
prov=/usr/lib/$multiarch/libibverbs/libmetaroce-rdmav34.so
conf=/etc/libibverbs.d/metaroce.driver
kmod=/lib/modules/$(uname -r)/extra/metaroce.ko
cli=/usr/local/sbin/metaroce
man8=/usr/local/share/man/man8/metaroce.8
probe=/usr/lib/$multiarch/libibverbs/.mroce-write-test
touch "$probe" 2>/dev/null || ksft_skip_all "read-only root: run in the test VM (overlay root)"
rm -f "$probe"
[ -e "$prov" ] && ksft_skip_all "a provider is already installed at $prov"

unset RDMAV_DRIVERS IBV_DRIVERS
defer depmod "$(uname -r)"
defer rm -f "$prov" "$conf" "$kmod" "$cli" "$man8"
out=$(make -s -C "$MROCE_ROOT" install 2>&1)
rc=$?
[ $rc -eq 0 ] || echo "$out" | tail -20 | sed 's/^/# /'
t_check "make install (exit $rc)" [ $rc -eq 0 ]
t_check "provider installed in $(dirname "$prov")" [ -f "$prov" ]
t_check "driver file $conf says 'driver metaroce'" grep -qx 'driver metaroce' "$conf"
t_check "module installed, modinfo finds it" \
	sh -c "modinfo -n metaroce | grep -qx '$kmod'"
t_check "metaroce command and metaroce(8) installed" [ -x "$cli" -a -f "$man8" ]

# The installed module is the one loaded from here on, unless a build-tree
# copy is loaded already (an earlier test of this boot).
mroce_loaded || t_check "modprobe metaroce (installed copy)" modprobe metaroce
mroce_loaded || ksft_skip_all "metaroce not loaded"

dev=i$$x
verbs_one_dev "$dev" "rdma link add $dev"

t_check "ibv_devices lists $dev" sh -c "ibv_devices | grep -qw '$dev'"
info=$(ibv_devinfo -d "$dev" 2>&1)
echo "$info" | sed 's/^/# /'
t_check "ibv_devinfo -d $dev: PORT_ACTIVE" grep -q 'state:.*PORT_ACTIVE' <<<"$info"
# The dynamic loader says which file libibverbs opened.
t_check "libibverbs loaded the installed provider" \
	sh -c "LD_DEBUG=files ibv_devinfo -d '$dev' 2>&1 | grep -q 'file=$prov '"
t_check "and not the build tree's" \
	sh -c "! LD_DEBUG=files ibv_devinfo -d '$dev' 2>&1 | grep -q 'file=$MROCE_ROOT/'"

# The installed operator command sees the device, the installed provider
# (no provider_missing) and carries the tree's ABI version.
st=$(metaroce status --json 2>&1)
t_check "metaroce status (installed) lists $dev, ABI $(sed -n 's/.*"tool_abi_version": "\(.*\)".*/\1/p' <<<"$st")" \
	/usr/bin/python3 -c '
import json, sys
j = json.loads(sys.argv[1])
names = [d["name"] for d in j["status"]["devices"]]
ids = [f["id"] for f in j["findings"]]
dev = [d for d in j["status"]["devices"] if d["name"] == sys.argv[2]][0]
assert sys.argv[2] in names, names
assert "provider_missing" not in ids and "abi_skew" not in ids, ids
assert j["status"]["provider"]["installed"], j["status"]["provider"]
assert dev["abi_version"] == j["status"]["tool_abi_version"], dev
' "$st" "$dev"

# Every object through the installed provider.
build_c_tests
vo=$("$SUITE_BIN/verbs_objects" "$dev" "$VERBS_GID" 2>&1)
rc=$?
echo "$vo" | grep -E '^not ok' | sed 's/^/# /'
t_check "verbs_objects through the installed provider ($(grep -c '^ok' <<<"$vo") ok, exit $rc)" \
	[ $rc -eq 0 ]
t_done
