#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Boot the Debian kernel the module is built for in QEMU and run one guest
# script in it.
#
#   tools/vm/run.sh [options] -- GUEST_SCRIPT [ARGS...]
#
#   --name NAME       results go to build/vm/NAME (default: run)
#   --timeout SEC     wall-clock limit for the whole VM (default: $VM_TIMEOUT or 1800)
#   --mem MB          guest memory (default: $VM_MEM or 2048)
#   --cpus N          guest CPUs (default: $VM_CPUS or 2)
#   --kvm             use KVM instead of TCG (also VM_KVM=1); nested KVM hangs
#                     on the project's build machines, so TCG is the default
#   --kernel IMAGE    boot IMAGE instead of /boot/vmlinuz-$KVER (a kernel
#                     built here, e.g. the debug kernel of make check-debug)
#   --modules DIR     that kernel's modules, installed under DIR/lib/modules/
#                     <release> (make modules_install INSTALL_MOD_PATH=DIR);
#                     the guest sees them at /lib/modules/<release> and KVER
#                     becomes <release>
#   --append ARGS     more kernel command line
#
# The guest sees the host's root file system read-only over 9p, with a tmpfs
# overlay on top (so `make install`, apt state and /lib/modules are writable
# in the guest and the host is never touched).  The results folder is shared
# read-write and appears in the guest as $MROCE_RESULTS (/mroce-results).
# The script runs as root with the host's current directory as its working
# directory; its exit status becomes this command's exit status.
#
# Left in the results folder: console.log (everything the serial console
# printed), dmesg.txt (the guest kernel log at the end), status (the script's
# exit code) and whatever the script wrote.  A run is a failure when the
# script fails, when the VM times out or dies, or when the guest kernel log
# holds an Oops, BUG, WARNING, KASAN/UBSAN report, refcount or lockdep splat,
# or a hung-task report.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
name=run
timeout=${VM_TIMEOUT:-1800}
mem=${VM_MEM:-2048}
cpus=${VM_CPUS:-2}
accel=tcg
[ "${VM_KVM:-0}" = 1 ] && accel=kvm
kernel=
modroot=
append=

usage() {
	sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--kvm) accel=kvm; shift ;;
	--kernel) kernel=$(realpath "$2"); shift 2 ;;
	--modules) modroot=$(realpath "$2"); shift 2 ;;
	--append) append=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "run.sh: unknown option $1" >&2; usage ;;
	esac
done
[ $# -ge 1 ] || usage
script=$(realpath "$1")
shift
[ -f "$script" ] || { echo "run.sh: no such guest script: $script" >&2; exit 2; }

if [ -n "$modroot" ]; then
	# The release is the one folder under lib/modules of the staged tree.
	KVER=$(ls "$modroot/lib/modules" 2>/dev/null)
	[ -n "$KVER" ] && [ "$(echo "$KVER" | wc -l)" -eq 1 ] ||
		{ echo "run.sh: $modroot/lib/modules must hold exactly one release" >&2; exit 2; }
	[ -n "$kernel" ] || { echo "run.sh: --modules needs --kernel" >&2; exit 2; }
else
	KVER=${KVER:-$("$ROOT/tools/kver.sh")} ||
		{ echo "run.sh: no kernel with image and headers installed; run 'make deps'" >&2; exit 2; }
fi
[ -n "$kernel" ] || kernel=/boot/vmlinuz-$KVER
[ -r "$kernel" ] || { echo "run.sh: cannot read $kernel" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run.sh: qemu-system-x86_64 missing; run 'make deps'" >&2; exit 2; }
[ -x /bin/busybox ] || { echo "run.sh: busybox missing; run 'make deps'" >&2; exit 2; }

vmdir=$ROOT/build/vm
results=$vmdir/$name
rm -rf "$results"
mkdir -p "$results"

# ---- initramfs: busybox, the modules to reach the host root, /init ----
# Per run name, so runs in parallel never share a staging folder.
initrd=$vmdir/$name.initramfs-$KVER.cpio.gz
staging=$vmdir/$name.initramfs-$KVER
rm -rf "$staging"
mkdir -p "$staging"/{bin,dev,proc,sys,host,upper,newroot,lib/modules}
cp /bin/busybox "$staging/bin/busybox"
cp "$ROOT/tools/vm/initramfs-init" "$staging/init"
chmod +x "$staging/init"
: >"$staging/modules.list"
# modprobe prints the dependency-ordered insmod list for the target kernel.
while read -r verb path _; do
	[ "$verb" = insmod ] || continue
	base=$(basename "$path")
	case "$base" in
	*.ko.xz) xz -dc "$path" >"$staging/lib/modules/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -qdc "$path" >"$staging/lib/modules/${base%.zst}"; base=${base%.zst} ;;
	*.ko.gz) gzip -dc "$path" >"$staging/lib/modules/${base%.gz}"; base=${base%.gz} ;;
	*) cp "$path" "$staging/lib/modules/$base" ;;
	esac
	grep -qx "$base" "$staging/modules.list" || echo "$base" >>"$staging/modules.list"
done < <(modprobe ${modroot:+-d "$modroot"} -S "$KVER" --show-depends \
	-a virtio_pci 9pnet_virtio 9p overlay virtio-rng 2>/dev/null)
# A kernel built here may have 9p built in: modprobe then prints "builtin 9p".
grep -q '^9p.ko$' "$staging/modules.list" ||
	modprobe ${modroot:+-d "$modroot"} -S "$KVER" --show-depends 9p 2>/dev/null | grep -q '^builtin 9p' ||
	{ echo "run.sh: cannot resolve the 9p modules of $KVER" >&2; exit 2; }
(cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

# ---- the job the guest runs ----
{
	printf 'MROCE_SCRIPT=%q\n' "$script"
	printf 'MROCE_CWD=%q\n' "$PWD"
	printf 'MROCE_ARGS=('
	for a in "$@"; do printf '%q ' "$a"; done
	printf ')\n'
	printf 'MROCE_NAME=%q\n' "$name"
	printf 'MROCE_ROOT=%q\n' "$ROOT"
	printf 'MROCE_HOST_PATH=%q\n' "$PATH"
	printf 'MROCE_MODROOT=%q\n' "$modroot"
	# Pass through variables the tests understand.
	for v in $(compgen -e | grep -E '^(MROCE_T_|V$|VERBOSE$|KVER$|KDIR$)'); do
		printf '%s=%q\n' "$v" "${!v}"
	done
	# A kernel with its own module tree: the tests' KVER is its release.
	[ -n "$modroot" ] && printf 'KVER=%q\n' "$KVER"
} >"$results/job.env"

accel_opts=(-accel tcg,thread=multi -cpu max)
[ "$accel" = kvm ] && accel_opts=(-accel kvm -cpu host)

echo "run.sh: booting $KVER ($accel, ${cpus} CPUs, ${mem} MiB), script $(basename "$script"), timeout ${timeout}s"
start=$(date +%s)
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
	"${accel_opts[@]}" -m "$mem" -smp "$cpus" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 loglevel=5 panic=-1 oops=panic softlockup_panic=1 mitigations=off${append:+ $append}" \
	-no-reboot -display none -monitor none -nic none \
	-chardev stdio,id=con,signal=off,logfile="$results/console.log" \
	-serial chardev:con \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$results",mount_tag=results,security_model=none,multidevs=remap \
	-device virtio-rng-pci </dev/null
qrc=$?
elapsed=$(( $(date +%s) - start ))

rc=0
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "run.sh: FAIL: VM timed out after ${timeout}s" >&2
	rc=124
elif [ ! -s "$results/status" ]; then
	echo "run.sh: FAIL: the guest did not report a status (qemu exit $qrc); see $results/console.log" >&2
	rc=125
else
	rc=$(cat "$results/status")
fi

# Kernel splats anywhere in the guest's log fail the run.
for f in "$results/dmesg.txt" "$results/console.log"; do
	[ -f "$f" ] || continue
	if "$ROOT/tools/vm/splat.sh" "$f" >"$results/splat.txt"; then
		echo "run.sh: FAIL: kernel splat in $(basename "$f"):" >&2
		head -60 "$results/splat.txt" >&2
		[ "$rc" -eq 0 ] && rc=126
		break
	fi
done
[ -s "$results/splat.txt" ] || rm -f "$results/splat.txt"
echo "run.sh: guest finished in ${elapsed}s, status $rc; results in ${results#$ROOT/}"
exit "$rc"
