#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the MetaRoCE debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault
# injection, ...) from Debian's linux-source-6.1, and metaroce.ko against it.
#
#   tools/debugkernel/build.sh [--print-env] [--no-module]
#
# The configuration is x86_64_defconfig + kvm_guest.config + vm.config (what
# the test VM needs, minus what it does not) + debug.config (the detectors).
# Everything is cached under build/debugkernel/ (DEBUG_KERNEL_CACHE to move
# it): the extracted source, a ccache, and one kernel tree per key, the hash
# of (linux-source version, compiler, fragments).  A tree whose key matches
# is reused as it is; a changed fragment rebuilds through the ccache.
#
# Leaves build/debugkernel/env (sourced by tools/debugkernel/lane.sh and
# `make check-debug`):
#   DEBUG_KREL     the kernel release (uname -r in the guest)
#   DEBUG_KIMAGE   bzImage
#   DEBUG_KDIR     the kernel build tree (make -C $DEBUG_KDIR M=...)
#   DEBUG_MODROOT  root of the installed modules (lib/modules/$DEBUG_KREL)
#   DEBUG_MODULE   metaroce.ko built against it
#   DEBUG_TEST_KMODS  the selftests' kmod/ folders built against it
#                  (<suite>/*.ko)
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tools/debugkernel
CACHE=${DEBUG_KERNEL_CACHE:-$ROOT/build/debugkernel}
JOBS=${DEBUG_KERNEL_JOBS:-$(nproc)}
SRC_PKG=linux-source-6.1
FRAGMENTS=("$HERE/vm.config" "$HERE/debug.config")
build_module=1
print_env=0

die() {
	echo "debugkernel: $*" >&2
	exit 1
}

log() {
	echo "debugkernel: $*"
}

for a in "$@"; do
	case "$a" in
	--no-module) build_module=0 ;;
	--print-env) print_env=1 ;;
	*) die "unknown option $a" ;;
	esac
done

"$ROOT/tools/deps.sh" --debug || exit 1

srcver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) ||
	die "$SRC_PKG is not installed"
tarball=$(dpkg-query -L "$SRC_PKG" | grep -m1 '/usr/src/linux-source-.*\.tar\.xz$') ||
	die "no source tarball in $SRC_PKG"
key=$( { echo "$srcver"; gcc --version | head -1; cat "${FRAGMENTS[@]}"; } |
	sha256sum | cut -c1-16)
tree=$CACHE/$key
obj=$tree/obj
src=$CACHE/src/$srcver

mkdir -p "$CACHE/src" "$CACHE/ccache"

# ---- source: extract once per package version ----
extract_source() {
	[ -f "$src/.mroce-extracted" ] && return 0
	log "extracting $tarball ($SRC_PKG $srcver)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1 || die "cannot extract $tarball"
	mv "$src.tmp" "$src"
	touch "$src/.mroce-extracted"
}

# ---- configuration: defconfig + fragments, and proof they all applied ----
kmake() {
	make -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="$srcver" KBUILD_BUILD_USER=mroce \
		KBUILD_BUILD_HOST=debug "$@"
}

# Every line of the fragments must survive olddefconfig: a symbol that a
# dependency silently drops would leave a detector off.
check_config() {
	local f line sym want got bad=0
	for f in "${FRAGMENTS[@]}"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*}; want=${line#*=} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want=n ;;
			*) continue ;;
			esac
			got=$(sed -n "s/^$sym=//p" "$obj/.config")
			[ -z "$got" ] && got=n
			if [ "$got" != "$want" ]; then
				echo "debugkernel: $(basename "$f"): $sym=$want did not apply (got $got)" >&2
				bad=1
			fi
		done <"$f"
	done
	return $bad
}

configure() {
	mkdir -p "$obj"
	kmake -s x86_64_defconfig >/dev/null || die "defconfig failed"
	KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" -m \
		-O "$obj" "$obj/.config" "$src/kernel/configs/kvm_guest.config" \
		"${FRAGMENTS[@]}" >"$tree/merge.log" 2>&1 || die "merge_config failed: $tree/merge.log"
	kmake -s olddefconfig >/dev/null || die "olddefconfig failed"
	check_config || die "configuration fragments did not apply"
}

build_kernel() {
	local start=$SECONDS
	export CCACHE_DIR=$CACHE/ccache CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}
	# Hits across trees of other keys: paths under the cache are the same.
	export CCACHE_BASEDIR=$CACHE CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
	if ! [ -f "$obj/.config" ] || ! check_config 2>/dev/null; then
		configure
	fi
	log "building $key with make -j$JOBS (cold: 15-25 minutes on 2 cores)"
	kmake -j"$JOBS" bzImage modules >"$tree/build.log" 2>&1 ||
		{ tail -30 "$tree/build.log" >&2; die "kernel build failed: $tree/build.log"; }
	rm -rf "$tree/root"
	kmake -s INSTALL_MOD_PATH="$tree/root" modules_install >>"$tree/build.log" 2>&1 ||
		die "modules_install failed: $tree/build.log"
	echo $((SECONDS - start)) >"$tree/build-seconds"
	log "kernel built in $((SECONDS - start))s ($(ccache -s 2>/dev/null | grep -m1 -i 'hits' | tr -s ' '))"
	touch "$tree/.mroce-built"
}

# ---- metaroce.ko against the debug tree, in a copy of the sources so the
# stock build in the top directory is left alone ----
build_module() {
	local mdir=$tree/metaroce
	mkdir -p "$mdir"
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		"$ROOT/Kbuild" "$ROOT/drivers" "$ROOT/include" "$mdir/" 2>/dev/null ||
		{ rm -rf "$mdir"/{Kbuild,drivers,include}; cp -a "$ROOT"/{Kbuild,drivers,include} "$mdir/"; }
	make -C "$obj" M="$mdir" W=1 MROCE_PLANT_BUGS=1 modules >"$tree/module.log" 2>&1 ||
		{ tail -30 "$tree/module.log" >&2; die "metaroce.ko failed to build against the debug kernel: $tree/module.log"; }
	if grep -q 'warning:' "$tree/module.log"; then
		grep 'warning:' "$tree/module.log" >&2
		die "metaroce.ko has warnings against the debug kernel"
	fi
}

# ---- the selftests' own kernel modules (kconsumer.sh, dmabuf.sh, nic.sh)
# against the debug tree, so the guest does not build them under TCG ----
build_test_kmods() {
	local suite kdir
	for suite in verbs metaroce; do
		kdir=$tree/kmods/$suite
		mkdir -p "$kdir"
		rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			"$ROOT/selftests/$suite/kmod/" "$kdir/" ||
			die "cannot copy selftests/$suite/kmod"
		make -C "$obj" M="$kdir" W=1 modules >"$tree/kmods-$suite.log" 2>&1 ||
			{ tail -30 "$tree/kmods-$suite.log" >&2; die "selftests/$suite/kmod failed to build against the debug kernel"; }
	done
}

extract_source
mkdir -p "$tree"
if [ -f "$tree/.mroce-built" ]; then
	log "reusing $tree (key $key)"
else
	build_kernel
	# Trees of other keys are stale: keep the disk small (the ccache stays).
	for old in "$CACHE"/*/; do
		case "$old" in "$CACHE/src/"|"$CACHE/ccache/"|"$tree/") continue ;; esac
		[ -f "$old/.mroce-built" ] && rm -rf "$old"
	done
fi
krel=$(cat "$obj/include/config/kernel.release")
if [ "$build_module" = 1 ]; then
	build_module
	build_test_kmods
fi

cat >"$CACHE/env" <<EOF
DEBUG_KREL=$krel
DEBUG_KIMAGE=$obj/arch/x86/boot/bzImage
DEBUG_KDIR=$obj
DEBUG_MODROOT=$tree/root
DEBUG_MODULE=$tree/metaroce/metaroce.ko
DEBUG_TEST_KMODS=$tree/kmods
EOF
[ "$print_env" = 1 ] && cat "$CACHE/env"
exit 0
