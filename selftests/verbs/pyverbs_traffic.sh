#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's pyverbs traffic modules against MetaRoCE and rxe in one run
# (issue 5 item 7): the tests that move data between two QPs of one device
# (UD, RC, READ, WRITE, atomics, CQ events and resize, rereg MR, MW), the
# extended QP and CQ interfaces and rdma_cm, with the same table and rule
# as pyverbs.sh: every test rxe passes and MetaRoCE does not must have a
# known explanation (pyverbs_table.py).
source "$(dirname "$0")/pyverbs_lib.sh"

# test_qp is not here: in rdma-core 44 its only traffic tests
# (test_modify_ud_qp, test_query_data_in_order) run with the rest of the
# module in pyverbs.sh.
MODULES=(test_mr test_cq test_cq_events test_qpex test_atomic test_cqex
	 test_shared_pd test_relaxed_ordering test_fork test_rdmacm)

declare -A SELECT=(
	# The traffic half of test_mr (pyverbs.sh has the rest).
	[test_mr]='MRTest.test_mr_rereg_access MRTest.test_mr_rereg_access_bad_flow MRTest.test_mr_rereg_pd MRTest.test_mr_rereg_addr MWTest.test_mw_type1 MWTest.test_invalidate_mw_type1 MWTest.test_mw_type2 MWTest.test_mw_type2_invalidate_local MWTest.test_mw_type2_invalidate_remote MWTest.test_mw_type2_invalidate_dealloc DmaBufTestCase DeviceMemoryTest'
	[test_cq]='CQTest'
	[test_cq_events]='*'
	[test_qpex]='*'
	[test_atomic]='*'
	[test_cqex]='*'
	[test_shared_pd]='*'
	[test_relaxed_ordering]='*'
	[test_fork]='*'
	[test_rdmacm]='*'
)

SKIPNOTE="not selected"
PYV_TIMEOUT=${PYV_TIMEOUT:-400}
pyverbs_compare
