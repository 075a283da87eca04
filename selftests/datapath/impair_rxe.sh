#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# impair.sh between MetaRoCE (in a namespace) and rdma_rxe.
modprobe rdma_rxe 2>/dev/null || { echo "1..0 # SKIP rdma_rxe not available"; exit 4; }
DP_TOPO=mx exec bash "$(dirname "$0")/impair.sh"
