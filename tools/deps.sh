#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install every Debian package MetaRoCE needs, idempotently: packages already
# present are not touched, and apt is not called at all when nothing is
# missing.  Needs root and Debian's package mirror.
#
#   tools/deps.sh           what `make check` and `make demo` need
#   tools/deps.sh --debug   also what the debug kernel needs (make check-debug)
#   tools/deps.sh --bench   also what make bench needs: perf, for the profile
#                           of the round trip (gnuplot, for its chart, is in
#                           the main list)
set -u

PKGS=(
	# kernel the VM boots, and its headers for building metaroce.ko
	linux-image-amd64 linux-headers-amd64 kmod sparse
	# VM runner
	qemu-system-x86 busybox-static cpio xz-utils zstd
	# host tests of the transport core
	build-essential pkg-config clang-14 llvm-14 libclang-rt-14-dev
	# RDMA userspace: libibverbs, rdma-core's tools and tests, peers
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	rdmacm-utils perftest python3-pyverbs
	# network tools used by the selftests inside the guest
	iproute2 iputils-ping tcpdump tshark python3-scapy
	# the metaroce command (tools/metaroce), its live-view test (tmux) and
	# its mesh heatmap (gnuplot, also make bench's chart)
	python3 ethtool tmux gnuplot-nox
	# make dkms-install and its test (tools/dkms_test.sh); the cloud
	# flavour's headers are a second kernel for DKMS to rebuild the
	# module for (nothing boots it)
	dkms linux-headers-cloud-amd64
)

# The debug-kernel lane (tools/debugkernel/build.sh) builds Debian's kernel
# source: only installed when asked for.
DEBUG_PKGS=(linux-source-6.1 ccache flex bison bc libelf-dev libssl-dev rsync)
BENCH_PKGS=(linux-perf)
for arg in "$@"; do
	case $arg in
	--debug) PKGS+=("${DEBUG_PKGS[@]}") ;;
	--bench) PKGS+=("${BENCH_PKGS[@]}") ;;
	esac
done

die() {
	echo "metaroce deps: $*" >&2
	exit 1
}

missing=()
for p in "${PKGS[@]}"; do
	case "$p" in \#*) continue ;; esac
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = installed ] || missing+=("$p")
done

# linux-headers-amd64 may lag the image after an upgrade: insist on headers for
# the image we will boot.
if [ ${#missing[@]} -eq 0 ] && ! "$(dirname "$0")/kver.sh" >/dev/null; then
	missing+=(linux-image-amd64 linux-headers-amd64)
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "metaroce deps: all ${#PKGS[@]} packages present"
	exit 0
fi

[ "$(id -u)" -eq 0 ] ||
	die "missing packages: ${missing[*]}; run 'make deps' as root (it uses apt-get)"
command -v apt-get >/dev/null ||
	die "missing packages: ${missing[*]}; apt-get not found (MetaRoCE targets Debian 12)"

echo "metaroce deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections 2>/dev/null
apt-get update -q >/tmp/metaroce-apt-update.log 2>&1 ||
	die "apt-get update failed (see /tmp/metaroce-apt-update.log)"
apt-get install -y -q "${missing[@]}" >/tmp/metaroce-apt-install.log 2>&1 ||
	die "apt-get install failed for: ${missing[*]} (see /tmp/metaroce-apt-install.log)"
"$(dirname "$0")/kver.sh" >/dev/null ||
	die "linux-image-amd64 and linux-headers-amd64 installed, but no kernel has both an image and a build tree"
echo "metaroce deps: done"
