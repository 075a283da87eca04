#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install the VM selftest suites as a kselftest tree (see selftests/Makefile).
#
#   ksft_install.sh INSTALL_PATH KSFT_SRC|"" SUITE...
#
# Layout, as the kernel's `make -C tools/testing/selftests install` makes it:
#   run_kselftest.sh, kselftest/        the kernel's runner, unchanged
#   kselftest-list.txt                  one "collection:program" a line
#   drivers/infiniband/metaroce/SUITE/  the suite: programs, helpers, C
#                                       sources, config, settings
#   drivers/infiniband/metaroce/lib.mk  shared build rules of the suites
#   drivers/infiniband/metaroce/lib.sh  the shell library of every program
#   drivers/infiniband/metaroce/verbs_test.h
#                                       the C tests' shared setup
#   drivers/infiniband/metaroce/mroce-root
#                                       the MetaRoCE tree the programs use
#                                       (metaroce.ko, the provider, the C
#                                       test programs under build/) unless
#                                       MROCE_ROOT says otherwise
#
# Into a tree the kernel's install already filled (INSTALL_PATH with a
# run_kselftest.sh and no KSFT_SRC), the runner is kept and the MetaRoCE
# lines replace their old selves in kselftest-list.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
COLLECTION_DIR=drivers/infiniband/metaroce
# Per program, as selftests/run_guest.sh allows (MROCE_T_TIMEOUT).
TIMEOUT=900

die() {
	echo "ksft_install: $*" >&2
	exit 1
}

[ $# -ge 3 ] || die "usage: ksft_install.sh INSTALL_PATH KSFT_SRC|\"\" SUITE..."
mkdir -p "$1" || die "cannot create $1"
dest=$(cd "$1" && pwd)
ksft_src=$2
shift 2

# The kernel's runner: run_kselftest.sh and kselftest/ (runner.sh,
# prefix.pl, module.sh) of a kernel tree, by default Debian's 6.1 source.
install_runner() {
	local tmp tarball
	[ -z "$ksft_src" ] && [ -f "$dest/run_kselftest.sh" ] && return 0
	if [ -z "$ksft_src" ]; then
		tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null) ||
			die "no KSFT_SRC and no /usr/src/linux-source-6.1.tar.xz (tools/deps.sh --debug)"
		tmp=$(mktemp -d)
		tar -xJf "$tarball" -C "$tmp" --strip-components=4 \
			linux-source-6.1/tools/testing/selftests/run_kselftest.sh \
			linux-source-6.1/tools/testing/selftests/kselftest ||
			{ rm -rf "$tmp"; die "cannot extract the runner from $tarball"; }
		ksft_src=$tmp
	fi
	[ -f "$ksft_src/run_kselftest.sh" ] && [ -f "$ksft_src/kselftest/runner.sh" ] ||
		die "$ksft_src has no run_kselftest.sh and kselftest/runner.sh"
	install -m 755 "$ksft_src/run_kselftest.sh" "$dest/"
	rm -rf "$dest/kselftest"
	cp -a "$ksft_src/kselftest" "$dest/"
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
	return 0
}

install_suite() {
	local suite=$1 src=$HERE/$1 out=$dest/$COLLECTION_DIR/$1 prog
	[ -f "$src/Makefile" ] || die "no suite $suite"
	# The C programs are built in the MetaRoCE tree, where the scripts
	# look for them.
	if grep -q '^TEST_GEN_PROGS' "$src/Makefile"; then
		make -s -C "$src" >/dev/null || die "cannot build the $suite programs"
	fi
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$src/." "$out/"
	echo "timeout=$TIMEOUT" >"$out/settings"
	for prog in $(make -s -C "$src" --no-print-directory list); do
		[ -f "$out/$prog" ] || die "$suite/$prog is missing"
		# run_kselftest.sh runs ./<program>: it must be executable.
		chmod 755 "$out/$prog"
		echo "$COLLECTION_DIR/$suite:$prog" >>"$dest/kselftest-list.txt"
	done
}

install_runner
mkdir -p "$dest/$COLLECTION_DIR"
install -p -m 644 "$HERE/lib.mk" "$HERE/lib.sh" "$HERE/verbs_test.h" \
	"$dest/$COLLECTION_DIR/"
echo "$ROOT" >"$dest/$COLLECTION_DIR/mroce-root"
touch "$dest/kselftest-list.txt"
sed -i "\|^$COLLECTION_DIR/|d" "$dest/kselftest-list.txt"
for s in "$@"; do
	install_suite "$s"
done
echo "ksft_install: $(grep -c "^$COLLECTION_DIR/" "$dest/kselftest-list.txt") programs in $dest (run_kselftest.sh -l lists them)"
