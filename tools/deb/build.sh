#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make deb`: two binary packages, built with dpkg-deb alone (no debhelper):
#   metaroce-dkms_<v>_all.deb       the module's sources and dkms.conf under
#                                   /usr/src/metaroce-<v> (what `make
#                                   dkms-src` writes); installing it builds
#                                   and installs metaroce.ko through DKMS for
#                                   every kernel with headers, and DKMS's
#                                   kernel hooks rebuild it for new kernels
#   metaroce-provider_<v>_<arch>.deb  the libibverbs provider, its driver
#                                   file and the metaroce command with its
#                                   manual page, under /usr
# into DEB_OUT (default build/deb).  The provider package depends on the
# libibverbs release the provider is built for (its private ABI,
# Documentation/verbs.rst).  Documentation/deployment.rst, "Debian packages".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${DEB_OUT:-$ROOT/build/deb}
VER=$(sed -n 's/^MROCE_VERSION := //p' "$ROOT/Makefile")
ARCH=$(dpkg --print-architecture)
PABI=$(sed -n 's/^#define MROCE_PABI_LIBIBVERBS[^"]*"\(.*\)"/\1/p' \
	"$ROOT/userspace/provider/mroce_pabi.h")
REL=${PABI#1.14.}			# rdma-core release, e.g. 44.0
NEXT=${REL%.*}.$((${REL##*.} + 1))	# the next one, e.g. 44.1
MAINT="MetaRoCE developers <metaroce@localhost>"

rm -rf "$OUT"
mkdir -p "$OUT"

# --- metaroce-dkms ---------------------------------------------------------
D=$OUT/metaroce-dkms
make -s -C "$ROOT" dkms-src DESTDIR="$D" >/dev/null
mkdir -p "$D/DEBIAN"
cat >"$D/DEBIAN/control" <<CTRL
Package: metaroce-dkms
Version: $VER
Architecture: all
Maintainer: $MAINT
Depends: dkms, kmod
Recommends: linux-headers-amd64 | linux-headers-generic
Section: kernel
Priority: optional
Description: MetaRoCE RDMA provider: kernel module (DKMS)
 metaroce.ko registers a software RDMA device on an Ethernet netdev and
 speaks RoCEv2.  This package builds it through DKMS for every kernel with
 headers, and again for each kernel installed later.
CTRL
cat >"$D/DEBIAN/postinst" <<POST
#!/bin/sh
set -e
[ "\$1" = configure ] || exit 0
dkms status -m metaroce -v $VER | grep -q . || dkms add -m metaroce -v $VER
for b in /lib/modules/*/build; do
	[ -d "\$b" ] || continue
	k=\$(basename "\$(dirname "\$b")")
	dkms install -m metaroce -v $VER -k "\$k" ||
		echo "metaroce-dkms: building metaroce.ko for \$k failed; see 'dkms status'" >&2
done
POST
cat >"$D/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
case "\$1" in
remove|upgrade|deconfigure)
	dkms remove -m metaroce -v $VER --all >/dev/null 2>&1 || true ;;
esac
PRERM
chmod 0755 "$D/DEBIAN/postinst" "$D/DEBIAN/prerm"

# --- metaroce-provider -----------------------------------------------------
P=$OUT/metaroce-provider
make -s -C "$ROOT/userspace" install DESTDIR="$P" >/dev/null
make -s -C "$ROOT/tools/metaroce" install DESTDIR="$P" PREFIX=/usr >/dev/null
make -s -C "$ROOT/tools/wireshark" install DESTDIR="$P" >/dev/null
mkdir -p "$P/DEBIAN"
cat >"$P/DEBIAN/control" <<CTRL
Package: metaroce-provider
Version: $VER
Architecture: $ARCH
Maintainer: $MAINT
Depends: libibverbs1 (>= $REL), libibverbs1 (<< $NEXT), libc6, python3
Recommends: metaroce-dkms
Suggests: tshark | wireshark
Section: net
Priority: optional
Description: MetaRoCE RDMA provider: libibverbs provider and metaroce command
 The userspace half of MetaRoCE: the libibverbs provider
 (libmetaroce-rdmav34.so, for libibverbs $PABI only: rdma-core $REL),
 the metaroce operator command and the Wireshark/tshark dissector of
 MetaRoCE extension packets.
CTRL
# The conffile dpkg must not overwrite silently.
echo /etc/libibverbs.d/metaroce.driver >"$P/DEBIAN/conffiles"

for d in "$D" "$P"; do
	find "$d" -type d -exec chmod 0755 {} +
	dpkg-deb --root-owner-group -Zxz --build "$d" "$OUT" >/dev/null
	rm -rf "$d"
done
ls "$OUT"/*.deb
