# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Shared rules of the VM selftest suites (the kselftest lib.mk pattern).  A
# suite's Makefile sets SUITE, TEST_PROGS (run in order by run_guest.sh) and
# TEST_GEN_PROGS (C programs built from <name>.c, which include
# ../verbs_test.h, against libibverbs into
# <repo>/build/selftests/$(SUITE)), then includes this file.

# The MetaRoCE tree; an installed kselftest tree records it in ../mroce-root.
ROOT := $(or $(MROCE_ROOT),$(shell cat ../mroce-root 2>/dev/null),$(abspath $(CURDIR)/../..))
OUT := $(ROOT)/build/selftests/$(SUITE)
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
		    -I$(ROOT)/include/uapi

TEST_GEN_PROGS := $(addprefix $(OUT)/,$(TEST_GEN_PROGS))

.PHONY: all list clean
all: $(TEST_GEN_PROGS)

$(OUT)/%: %.c $(wildcard *.h ../verbs_test.h) | $(OUT)
	$(CC) $(CFLAGS) -o $@ $< -libverbs

$(OUT):
	mkdir -p $@

list:
	@echo $(TEST_PROGS)

clean:
	rm -f $(TEST_GEN_PROGS)
