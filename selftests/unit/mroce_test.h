/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A small TAP 13 test harness for the host unit tests of the transport
 * core, in the spirit of the kselftest harness: TEST(name) defines one test
 * case, EXPECT_* records a failure and goes on, ASSERT_* ends the case.
 * Each case prints exactly one "ok" or "not ok" line; diagnostics are TAP
 * comments ("# ...").
 */
#ifndef MROCE_TEST_H
#define MROCE_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct mroce_test {
	const char *name;
	void (*fn)(int *failed);
	struct mroce_test *next;
};

void mroce_test_register(struct mroce_test *t);
void mroce_test_hexdump(const char *what, const unsigned char *p,
			size_t len);

#define TEST(tname)							\
	static void mroce_test_fn_##tname(int *_failed);		\
	static struct mroce_test mroce_test_##tname = {			\
		.name = #tname, .fn = mroce_test_fn_##tname,		\
	};								\
	__attribute__((constructor)) static void			\
	mroce_test_reg_##tname(void)					\
	{								\
		mroce_test_register(&mroce_test_##tname);		\
	}								\
	static void mroce_test_fn_##tname(int *_failed)

#define MROCE_CHECK(cond, fmt, ...) ({					\
	bool _ok = (cond);						\
	if (!_ok) {							\
		printf("# %s:%d: " fmt "\n", __FILE__, __LINE__,	\
		       ##__VA_ARGS__);					\
		(*_failed)++;						\
	}								\
	_ok;								\
})

#define EXPECT_EQ(a, b) MROCE_CHECK((unsigned long long)(a) ==		\
	(unsigned long long)(b), "%s == %s: 0x%llx != 0x%llx", #a, #b,	\
	(unsigned long long)(a), (unsigned long long)(b))
#define EXPECT_NE(a, b) MROCE_CHECK((unsigned long long)(a) !=		\
	(unsigned long long)(b), "%s != %s: both 0x%llx", #a, #b,	\
	(unsigned long long)(a))
#define EXPECT_TRUE(c)	MROCE_CHECK(!!(c), "%s is false", #c)
#define EXPECT_FALSE(c)	MROCE_CHECK(!(c), "%s is true", #c)
#define EXPECT_MEM(a, b, n) MROCE_CHECK(!memcmp((a), (b), (n)),	\
	"%s and %s differ", #a, #b)

#define ASSERT_EQ(a, b)	do { if (!EXPECT_EQ(a, b)) return; } while (0)
#define ASSERT_TRUE(c)	do { if (!EXPECT_TRUE(c)) return; } while (0)

#endif /* MROCE_TEST_H */
