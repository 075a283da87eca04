#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make deb` on the host (seconds): both packages are built, carry the
# right control fields and exactly the files `make dkms-src` and the
# provider's install write, their maintainer scripts are valid shell, and
# metaroce-dkms's scripts drive DKMS as intended (run against a `dkms` that
# records its calls: DKMS itself, on the same sources, is tested by
# tools/dkms_test.sh).  selftests/verbs/deb.sh installs metaroce-provider
# with dpkg in the test VM.  Prints TAP.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
echo "TAP version 13"
command -v dpkg-deb >/dev/null || { echo "1..0 # SKIP no dpkg-deb"; exit 4; }
[ -f "$ROOT/build/lib/libmetaroce-rdmav34.so" ] ||
	{ echo "1..0 # SKIP provider not built (make)"; exit 4; }
n=0 failed=0
tap() { # STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
VER=$(sed -n 's/^MROCE_VERSION := //p' "$ROOT/Makefile")
ARCH=$(dpkg --print-architecture)

DEB_OUT=$T/deb "$ROOT/tools/deb/build.sh" >"$T/build.log" 2>&1
tap $? "tools/deb/build.sh"
dk=$T/deb/metaroce-dkms_${VER}_all.deb
pv=$T/deb/metaroce-provider_${VER}_${ARCH}.deb
[ -f "$dk" ] && [ -f "$pv" ]
tap $? "metaroce-dkms_${VER}_all.deb and metaroce-provider_${VER}_${ARCH}.deb"

field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$dk" Package)" = metaroce-dkms ] &&
	field "$dk" Depends | grep -qw dkms
tap $? "metaroce-dkms depends on dkms"
dep=$(field "$pv" Depends)
echo "$dep" | grep -q 'libibverbs1 (>= 44\.0), libibverbs1 (<< 44\.1)'
tap $? "metaroce-provider depends on the libibverbs release it is built for ($dep)"

# Contents: the dkms tree is exactly what `make dkms-src` writes.
make -s -C "$ROOT" dkms-src DESTDIR="$T/ref" >/dev/null 2>&1
dpkg-deb -x "$dk" "$T/dk"
diff -r "$T/ref/usr/src" "$T/dk/usr/src" >"$T/diff" 2>&1
tap $? "metaroce-dkms holds /usr/src/metaroce-$VER as make dkms-src writes it"
! find "$T/dk" -name '*.o' -o -name '*.ko' -o -name '*.mod*' | grep -q .
tap $? "and no build products"
dpkg-deb -x "$pv" "$T/pv"
so=$(find "$T/pv" -name libmetaroce-rdmav34.so)
cmp -s "$so" "$ROOT/build/lib/libmetaroce-rdmav34.so" &&
	[ "${so#"$T/pv"}" = "/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libibverbs/libmetaroce-rdmav34.so" ]
tap $? "metaroce-provider: the built provider where libibverbs looks (${so#"$T/pv"})"
grep -qx 'driver metaroce' "$T/pv/etc/libibverbs.d/metaroce.driver" &&
	dpkg-deb --ctrl-tarfile "$pv" | tar -xO ./conffiles | grep -qx /etc/libibverbs.d/metaroce.driver
tap $? "its driver file, a conffile"
[ -x "$T/pv/usr/sbin/metaroce" ] && [ -f "$T/pv/usr/share/man/man8/metaroce.8" ] &&
	! grep -q '@MROCE_PABI_LIBIBVERBS@' "$T/pv/usr/sbin/metaroce"
tap $? "the metaroce command (ABI versions filled in) and metaroce(8)"
lua=$(find "$T/pv" -name metaroce.lua)
cmp -s "$lua" "$ROOT/tools/wireshark/metaroce.lua" &&
	case ${lua#"$T/pv"} in /usr/lib/*/wireshark/plugins/metaroce.lua) true ;; *) false ;; esac
tap $? "the Wireshark dissector in Wireshark's global Lua plugin folder (${lua#"$T/pv"})"

# metaroce-dkms's maintainer scripts against a recording dkms.
dpkg-deb -e "$dk" "$T/ctl"
sh -n "$T/ctl/postinst" && sh -n "$T/ctl/prerm"
tap $? "maintainer scripts parse"
mkdir "$T/bin"
printf '#!/bin/sh\necho "$*" >>%s\n' "$T/calls" >"$T/bin/dkms"
chmod +x "$T/bin/dkms"
PATH=$T/bin:$PATH sh "$T/ctl/postinst" configure
nk=$(ls -d /lib/modules/*/build 2>/dev/null | wc -l)
grep -qx "add -m metaroce -v $VER" "$T/calls" &&
	[ "$(grep -c "^install -m metaroce -v $VER -k " "$T/calls")" -eq "$nk" ]
tap $? "postinst configure: dkms add, then install for each of the $nk kernels with headers"
: >"$T/calls"
PATH=$T/bin:$PATH sh "$T/ctl/prerm" remove
grep -qx "remove -m metaroce -v $VER --all" "$T/calls"
tap $? "prerm remove: dkms remove --all"
[ "$failed" -eq 0 ] || sed 's/^/#   /' "$T/build.log" | tail -20
echo "1..$n"
exit $failed
