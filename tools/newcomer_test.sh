#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The newcomer path: `make demo`, `make bench` and `make check` must work
# the first time on a machine that has no kernel packages yet, where only
# their own `make deps` step installs the kernel the module is built for.
# The kernel cannot be uninstalled here, so the test runs the real
# Makefile and tools/*.sh in a scratch copy of the tree where
#   - tools/kver.sh finds no kernel until the fake deps step has run, then
#     the real one;
#   - tools/deps.sh only marks the kernel "installed";
#   - Kbuild builds a one-line module, userspace/ nothing, and the VM
#     runner records the kernel it would boot instead of booting it.
# What is checked is how the kernel version travels from the deps step to
# kbuild and to the VM runner.  TAP output; exit 4 (skip) without a kernel
# build tree on this machine.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REAL_KVER=$("$ROOT/tools/kver.sh" 2>/dev/null) || {
	echo "1..0 # SKIP no kernel with image and build tree (run 'make deps')"
	exit 4
}
T=$(mktemp -d /tmp/mroce-newcomer.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 nfail=0

tap() { # RESULT DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		nfail=$((nfail + 1))
	fi
}

stub() { # PATH: write stdin to PATH in the copy, executable
	cat >"$T/$1"
	chmod +x "$T/$1"
}

# The copy: the real Makefile and scripts; this test is a stub there, so
# that make check in the copy does not run it again.
mkdir -p "$T/tools/vm" "$T/userspace"
cp "$ROOT/Makefile" "$T/"
cp "$ROOT/tools/check.sh" "$ROOT/tools/kver.sh" "$T/tools/"
cp -r "$ROOT/tools/bench" "$T/tools/"
cp "$ROOT/tools/kver.sh" "$T/tools/kver-real.sh"
stub tools/kver.sh <<'EOF'
#!/bin/sh
[ -e "$(dirname "$0")/../.kernel-installed" ] || exit 1
exec "$(dirname "$0")/kver-real.sh"
EOF
stub tools/deps.sh <<'EOF'
#!/bin/sh
touch "$(dirname "$0")/../.kernel-installed"
echo "fake deps: kernel installed"
EOF
# The runner: boot nothing, record what it would boot, pass.
stub tools/vm/run.sh <<'EOF'
#!/bin/bash
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
while [ "$1" != -- ]; do [ "$1" = --name ] && name=$2; shift; done
KVER=${KVER:-$("$ROOT/tools/kver.sh")} || { echo "run.sh: no kernel" >&2; exit 2; }
[ -r "/boot/vmlinuz-$KVER" ] || { echo "run.sh: no /boot/vmlinuz-$KVER" >&2; exit 2; }
mkdir -p "$ROOT/build/vm/$name"
echo "$KVER" >"$ROOT/build/vm/$name/booted"
printf 'passed 1\nfailed 0\nskipped 0\n' >"$ROOT/build/vm/$name/summary.txt"
EOF
# The checks make check runs that are not about the newcomer path (this
# test among them): each a stub that passes.
while IFS=: read -r path what; do
	mkdir -p "$T/$(dirname "$path")"
	printf '#!/bin/sh\necho "ok 1 - %s (not run here)"\n' "$what" |
		stub "$path"
done <<'EOF'
tools/vm/selftest.sh:runner self-check
tools/newcomer_test.sh:newcomer path
tools/dkms_test.sh:DKMS packaging
tools/provider_abi_test.sh:provider ABI guard
tools/deb_test.sh:Debian packages
tools/wireshark/test.sh:Wireshark dissector
EOF
printf 'obj-m := metaroce.o\n' >"$T/Kbuild"
cat >"$T/metaroce.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <linux/module.h>
MODULE_LICENSE("GPL");
EOF
printf 'all:\ninstall:\nclean:\n' >"$T/userspace/Makefile"
# What make builds besides the module, and make bench's test programs:
# nothing here.
mkdir -p "$T/selftests/verbs/kmod" "$T/selftests/metaroce/kmod" \
	"$T/selftests/datapath"
printf 'obj-m :=\n' >"$T/selftests/verbs/kmod/Kbuild"
printf 'obj-m :=\n' >"$T/selftests/metaroce/kmod/Kbuild"
printf 'all:\n' >"$T/selftests/datapath/Makefile"

# fresh TARGET: run `make TARGET` in the copy as on a machine without a
# kernel; pass when it succeeds, built the module for the kernel the fake
# deps step installed and "booted" that kernel.
fresh() {
	local target=$1 vm=$2 log=$T/$1.log before=$nfail
	rm -f "$T/.kernel-installed" "$T/metaroce.ko"
	rm -rf "$T/build"
	# Nothing from this shell's environment may hide the bug.
	env -u KVER -u KDIR -u MAKEFLAGS -u MAKELEVEL \
		make -C "$T" --no-print-directory "$target" >"$log" 2>&1
	tap $? "make $target succeeds before the kernel is installed"
	modinfo -F vermagic "$T/metaroce.ko" 2>/dev/null |
		grep -q "^$REAL_KVER "
	tap $? "make $target builds the module for $REAL_KVER"
	grep -qx "$REAL_KVER" "$T/build/vm/$vm/booted" 2>/dev/null
	tap $? "make $target boots $REAL_KVER"
	[ "$nfail" -eq "$before" ] || tail -n 15 "$log" | sed 's/^/#   /'
}

echo "TAP version 13"
fresh demo demo
fresh bench bench
fresh check selftests
echo "1..$n"
[ "$nfail" -eq 0 ]
