#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest half of tools/vm/selftest.sh.
case "$1" in
status)
	echo runner-selftest-output
	exit 3
	;;
splat)
	# A line shaped like the kernel's own WARN() report.
	echo "<4>WARNING: CPU: 0 PID: 1 at runner-selftest planted splat" >/dev/kmsg
	exit 0
	;;
hang)
	sleep 600
	;;
esac
