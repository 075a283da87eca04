#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make install` into the guest's writable root, then `modprobe metaroce`
# loads the installed module with its dependencies, and `rdma link add ...
# type metaroce` loads it on demand through the rdma-link-metaroce alias.
. "$(dirname "$0")/../lib.sh"

KVER=$(uname -r)
[ -d "/lib/modules/$KVER/build" ] || ksft_skip_all "no build tree for $KVER"
[ -w /lib/modules ] || ksft_skip_all "/lib/modules is not writable here"

# Start from a clean slate: nothing of ours loaded.
rmmod metaroce 2>/dev/null

# make install also puts the provider in place: it is not this test's
# subject, and selftests/verbs/install.sh wants to install it on a system
# without one, so it goes again at exit.  The module stays installed.
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
defer rm -f "/usr/lib/$multiarch/libibverbs/libmetaroce-rdmav34.so" \
	/etc/libibverbs.d/metaroce.driver
out=$(make -C "$MROCE_ROOT" install 2>&1)
if [ $? -eq 0 ]; then
	t_pass "make install"
else
	t_fail "make install"
	echo "$out" | tail -20 | sed 's/^/#   /'
fi
t_check "metaroce.ko installed under /lib/modules/$KVER/extra" \
	test -f "/lib/modules/$KVER/extra/metaroce.ko"
t_check "modinfo finds the installed module" \
	sh -c "modinfo -n metaroce | grep -q /lib/modules/$KVER/extra/metaroce.ko"
t_check "module alias rdma-link-metaroce is known" \
	sh -c "modinfo -F alias metaroce | grep -qx rdma-link-metaroce"

# Unload the RDMA stack so modprobe has to pull in the dependencies.
modprobe -r -a ib_uverbs rdma_ucm rdma_cm iw_cm ib_cm ib_core 2>/dev/null
t_check "modprobe metaroce" modprobe metaroce
t_check "metaroce is loaded from the installed copy" \
	sh -c "grep -q . /sys/module/metaroce/initstate && [ \"\$(modinfo -n metaroce)\" = /lib/modules/$KVER/extra/metaroce.ko ]"
for dep in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel; do
	t_check "dependency $dep loaded" test -d "/sys/module/$dep"
done
t_check "modprobe -r metaroce" modprobe -r metaroce
t_check "metaroce is gone" sh -c '! test -d /sys/module/metaroce'

# Auto-load: the RDMA core asks for "rdma-link-metaroce" on an unknown type.
a=$(uname_of a) b=$(uname_of b)
veth_pair "$a" "" "$b" ""
defer rdma link delete ml0
t_check "rdma link add loads metaroce on demand" \
	rdma link add ml0 type metaroce netdev "$a"
t_check "the device exists" ibdev_exists ml0
t_check "rdma link delete" rdma link delete ml0
t_check "rmmod after use" rmmod metaroce

t_done
