#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's pyverbs resource modules against MetaRoCE and rxe in one run,
# with a pass/fail/skip table per module; every test rxe passes and MetaRoCE
# does not must have a known explanation (pyverbs_table.py).
#
# Only resource tests run: those that create, query, modify and destroy
# objects.  Tests that move data between two QPs are left out by name, on
# both devices alike, so that the two columns of the table count the same
# tests; pyverbs_traffic.sh runs them.
source "$(dirname "$0")/pyverbs_lib.sh"

MODULES=(test_device test_pd test_mr test_cq test_cq_events test_qp test_addr
	 test_srq)

# Tests to run per module: class or class.method names; "*" is the whole
# module; an empty entry means the module exchanges traffic in every test.
declare -A SELECT=(
	[test_device]='*'
	[test_pd]='*'
	# MRTest.test_mr_rereg_* and MWTest.test_mw_* check the MR or MW by
	# traffic; DmaBufTestCase and DeviceMemoryTest are traffic only.
	[test_mr]='MRTest.test_reg_mr_bad_flags MWTest.test_reg_mw_wrong_type DeviceMemoryAPITest DmaBufMRTest'
	# CQTest.test_resize_cq fills the CQ with UD sends.
	[test_cq]='CQAPITest'
	# test_cq_events_ud and test_cq_events_rc are traffic loops.
	[test_cq_events]=''
	[test_qp]='*'
	[test_addr]='*'
	[test_srq]='*'
)

SKIPNOTE="traffic tests only, not run here (pyverbs_traffic.sh)"
pyverbs_compare
