#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# PID 1 of the MetaRoCE test VM after switch_root: finish setting up the
# system, run the job described in /mroce-results/job.env, save the kernel
# log and the exit status into the results share, and power off.
export MROCE_RESULTS=/mroce-results
. "$MROCE_RESULTS/job.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# /tmp stays the overlay (writable, in guest memory) rather than a fresh
# tmpfs: the tree under test may itself live under the host's /tmp.
chmod 1777 /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/netns /run/lock
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# What udev would make: the kernel's kselftest runner writes to /dev/stdout.
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
hostname mroce-vm
ip link set lo up
# A kernel built here (run.sh --modules) brings its own module tree; copied
# so that depmod and `make install` in the guest can write to it.
if [ -n "${MROCE_MODROOT:-}" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	cp -a "$MROCE_MODROOT/lib/modules/$(uname -r)" /lib/modules/
fi
# kmemleak (debug kernel): what boot leaked is not ours, so scan once and
# mark it reported; from now on every new leak is printed to the kernel
# log, where run.sh finds it.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w "$kmemleak" ]; then
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
	echo 1 >/sys/module/kmemleak/parameters/verbose
fi
# The job sees the same tree the host built; nothing under it is writable
# except through the overlay.
cd "$MROCE_CWD" || cd /

export MROCE_SCRIPT MROCE_NAME MROCE_ROOT
for v in $(compgen -v | grep -E '^(MROCE_T_|V$|VERBOSE$|KVER$|KDIR$)'); do
	export "$v"
done

echo "guest: running $MROCE_SCRIPT ${MROCE_ARGS[*]}"
bash "$MROCE_SCRIPT" "${MROCE_ARGS[@]}" 2>&1 | tee "$MROCE_RESULTS/output.txt"
rc=${PIPESTATUS[0]}
echo "guest: $MROCE_SCRIPT exited with $rc"

# An object is reported once it is 5 s old and unreferenced on two scans.
if [ -w "$kmemleak" ]; then
	sleep 6
	echo scan >"$kmemleak"
	echo scan >"$kmemleak"
	cat "$kmemleak" >"$MROCE_RESULTS/kmemleak.txt"
fi
dmesg >"$MROCE_RESULTS/dmesg.txt"
echo "$rc" >"$MROCE_RESULTS/status"
sync
umount "$MROCE_RESULTS"
echo s >/proc/sysrq-trigger
echo b >/proc/sysrq-trigger
sleep 10
