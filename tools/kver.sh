#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Print the newest installed kernel version that has both a bootable image in
# /boot and a build tree under /lib/modules: the kernel the VM tests boot and
# the module is built for.  Never the running kernel (uname -r): the host runs
# a different kernel that cannot load the module.
set -eu
best=
for img in /boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	v=${img#/boot/vmlinuz-}
	[ -d "/lib/modules/$v/build" ] || continue
	[ -d "/lib/modules/$v/kernel" ] || continue
	best="$best $v"
done
[ -n "$best" ] || exit 1
printf '%s\n' $best | sort -V | tail -n 1
