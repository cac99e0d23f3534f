/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP 13 output for the native C test programs: one test function per
 * case, checks that report file:line and keep going.
 *
 *	tap_plan(N); TAP_RUN(case_a); TAP_RUN(case_b); return tap_exit();
 *
 * Each test binary is one translation unit: include this once.
 */
#ifndef _TONIC_TAP_H
#define _TONIC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define TAP_UNUSED __attribute__((unused))

static int tap_count, tap_failed, tap_cur_bad;

/*
 * Call first, before any work: with TAP_PLAN_ONLY set in the environment
 * it prints only the plan and exits, so the runner knows what to expect.
 */
static TAP_UNUSED void tap_plan(int n)
{
	if (getenv("TAP_PLAN_ONLY")) {
		printf("1..%d\n", n);
		exit(0);
	}
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static TAP_UNUSED void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Run one test function; it returns nothing and uses CHECK(). */
#define TAP_RUN(fn) do {						\
	tap_cur_bad = 0;						\
	fn();								\
	tap_count++;							\
	if (tap_cur_bad)						\
		tap_failed++;						\
	printf("%sok %d - %s\n", tap_cur_bad ? "not " : "",		\
	       tap_count, #fn);						\
	fflush(stdout);							\
} while (0)

/* The first ten failed checks of a case are shown. */
#define CHECK(cond) do {						\
	if (!(cond) && tap_cur_bad++ < 10)				\
		tap_diag("%s:%d: check failed: %s", __FILE__, __LINE__, \
			 #cond);					\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b && tap_cur_bad++ < 10)				\
		tap_diag("%s:%d: %s == %lld, expected %s == %lld",	\
			 __FILE__, __LINE__, #a, _a, #b, _b);		\
} while (0)

static TAP_UNUSED int tap_exit(void)
{
	if (tap_failed)
		tap_diag("%d of %d tests failed", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* _TONIC_TAP_H */
