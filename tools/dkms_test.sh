#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make dkms-install` and `make dkms-uninstall`, with every tree of DKMS
# (its state, the sources, the installed modules) in a scratch folder so
# the machine's own /usr/src, /var/lib/dkms state and /lib/modules stay
# untouched (DKMS still keeps its module signing key in /var/lib/dkms, as on
# any machine it runs on).  Checks: the module is built and installed for
# every kernel with headers, for the right kernel; a kernel whose headers
# come later gets it from `dkms autoinstall` (what Debian's kernel hooks
# run), when a second kernel's headers are installed; uninstall leaves no
# file behind.  Prints TAP; exit 4 without dkms or kernel headers.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
echo "TAP version 13"
command -v dkms >/dev/null || { echo "1..0 # SKIP dkms not installed"; exit 4; }
mapfile -t kernels < <(for b in /lib/modules/*/build; do
	[ -d "$b" ] && basename "$(dirname "$b")"; done)
[ ${#kernels[@]} -gt 0 ] || { echo "1..0 # SKIP no kernel headers"; exit 4; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/var" "$T/src"
for k in "${kernels[@]}"; do mkdir -p "$T/lib/$k"; done
flags="--dkmstree $T/var --sourcetree $T/src --installtree $T/lib --no-depmod"
n=0 failed=0
tap() { # STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
dmake() { # TARGET [VAR=VALUE...]
	make -C "$ROOT" --no-print-directory "$@" DKMS_FLAGS="$flags" \
		DKMS_SRC_TREE="$T/src" >>"$T/make.log" 2>&1
}
# installed_for K: metaroce.ko is installed for kernel K, built for K.
installed_for() {
	local ko=$T/lib/$1/updates/dkms/metaroce.ko
	[ -f "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$1 "
}

first=${kernels[0]}
dmake dkms-install DKMS_KERNELS="$first"
tap $? "make dkms-install (kernel $first)"
installed_for "$first"
tap $? "metaroce.ko installed under updates/dkms for $first, vermagic $first"
dkms status $flags -m metaroce | grep -q "metaroce/0.1, $first, .*: installed"
tap $? "dkms status: metaroce/0.1 installed for $first"
[ -f "$T/src/metaroce-0.1/dkms.conf" ] && ! find "$T/src" -name '*.o' | grep -q .
tap $? "the sources under src/metaroce-0.1 have dkms.conf and no build products"

if [ ${#kernels[@]} -ge 2 ]; then
	second=${kernels[1]}
	dkms autoinstall $flags -k "$second" >>"$T/make.log" 2>&1
	tap $? "dkms autoinstall for a second kernel ($second)"
	installed_for "$second"
	tap $? "metaroce.ko rebuilt and installed for $second"
else
	n=$((n + 1))
	echo "ok $n - a second kernel gets the module # SKIP headers of only one kernel installed"
fi

dmake dkms-uninstall
tap $? "make dkms-uninstall"
left=$(find "$T/var" "$T/src" "$T/lib" -type f | head -5)
[ -z "$left" ]
tap $? "nothing left behind${left:+: $left}"
[ "$failed" -eq 0 ] || sed 's/^/#   /' "$T/make.log" | tail -20
echo "1..$n"
exit $failed
