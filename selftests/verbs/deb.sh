#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make deb`'s metaroce-provider package installed with dpkg: libibverbs
# programs find the packaged provider on their own and the packaged
# metaroce command runs; `dpkg --purge` leaves none of its files.  Needs a
# writable root (the test VM's overlay).  The package contents and
# metaroce-dkms are checked on the host (tools/deb_test.sh); building the
# module through DKMS under TCG takes too long for this suite.
source "$(dirname "$0")/../lib.sh"

command -v dpkg >/dev/null || ksft_skip_all "no dpkg"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
prov=/usr/lib/$multiarch/libibverbs/libmetaroce-rdmav34.so
probe=/usr/lib/$multiarch/libibverbs/.mroce-write-test
touch "$probe" 2>/dev/null || ksft_skip_all "read-only root: run in the test VM (overlay root)"
rm -f "$probe"
[ -e "$prov" ] && ksft_skip_all "a provider is already installed at $prov"
mroce_load_or_skip

out=$(mktemp -d)
defer rm -rf "$out"
DEB_OUT=$out "$MROCE_ROOT/tools/deb/build.sh" >"$out/build.log" 2>&1
t_check "tools/deb/build.sh" [ -f "$(ls "$out"/metaroce-provider_*.deb 2>/dev/null)" ]
deb=$(ls "$out"/metaroce-provider_*.deb)

unset RDMAV_DRIVERS IBV_DRIVERS
defer dpkg --purge metaroce-provider
log=$(dpkg -i "$deb" 2>&1)
rc=$?
[ $rc -eq 0 ] || echo "$log" | tail -5 | sed 's/^/# /'
t_check "dpkg -i $(basename "$deb") (exit $rc)" [ $rc -eq 0 ]
t_check "dpkg -L lists the provider" sh -c "dpkg -L metaroce-provider | grep -qx '$prov'"

dev=d$$b
verbs_one_dev "$dev"
t_check "ibv_devices lists $dev through the packaged provider" \
	sh -c "ibv_devices | grep -qw '$dev'"
t_check "libibverbs loaded $prov" \
	sh -c "LD_DEBUG=files ibv_devinfo -d '$dev' 2>&1 | grep -q 'file=$prov '"
t_check "/usr/sbin/metaroce status lists $dev" \
	sh -c "/usr/sbin/metaroce status 2>&1 | grep -qw '$dev'"

files=$(dpkg -L metaroce-provider | while read -r f; do [ -f "$f" ] && echo "$f"; done)
log=$(dpkg --purge metaroce-provider 2>&1)
rc=$?
t_check "dpkg --purge metaroce-provider (exit $rc)" [ $rc -eq 0 ]
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
t_check "none of its files is left${left:+: $left}" [ -z "$left" ]
t_done
