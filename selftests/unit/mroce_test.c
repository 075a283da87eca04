// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * TAP 13 runner for the host unit tests: runs every registered TEST in
 * the order the test files list them, or only those named on the command
 * line.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "mroce_test.h"

static struct mroce_test *mroce_tests;
static struct mroce_test **mroce_tests_tail = &mroce_tests;

void mroce_test_register(struct mroce_test *t)
{
	*mroce_tests_tail = t;
	mroce_tests_tail = &t->next;
}

void mroce_test_hexdump(const char *what, const unsigned char *p,
			size_t len)
{
	size_t i;

	printf("# %s:", what);
	for (i = 0; i < len; i++)
		printf("%s%02x", i % 32 ? "" : "\n#  ", p[i]);
	printf("\n");
}

static bool mroce_test_selected(const struct mroce_test *t, int argc,
				char **argv)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], t->name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct mroce_test *t;
	int n = 0, i = 0, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = mroce_tests; t; t = t->next)
		n += mroce_test_selected(t, argc, argv);
	printf("TAP version 13\n1..%d\n", n);
	for (t = mroce_tests; t; t = t->next) {
		int failed = 0;

		if (!mroce_test_selected(t, argc, argv))
			continue;
		t->fn(&failed);
		printf("%sok %d - %s\n", failed ? "not " : "", ++i, t->name);
		bad += !!failed;
	}
	printf("# %d passed, %d failed\n", n - bad, bad);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
