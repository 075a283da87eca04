#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Every verbs object, limit, bad argument and destruction order through
# ibv_* calls only (verbs_objects.c), on a MetaRoCE device of the build tree.
source "$(dirname "$0")/../lib.sh"

verbs_prologue
dev=o$$z
verbs_one_dev "$dev"
"$SUITE_BIN/verbs_objects" "$dev" "$VERBS_GID"
