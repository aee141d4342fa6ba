/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TAP harness for prec's C unit tests, in the spirit of libperf's: ok() and friends print one
 * TAP line each; done_testing() prints the plan and returns the exit status.
 *
 *	int main(void) { ok(1 + 1 == 2, "arithmetic"); return done_testing(); }
 */
#ifndef PREC_TESTS_TAP_H
#define PREC_TESTS_TAP_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *desc)
{
	tap_count++;
	if (cond) {
		printf("ok %d - %s\n", tap_count, desc);
	} else {
		tap_failed++;
		printf("not ok %d - %s\n# at %s:%d\n", tap_count, desc, file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, desc) tap_ok(!!(cond), __FILE__, __LINE__, desc)
/* is(a, b, desc): integers compared as long long, both printed on failure. */
#define is(a, b, desc)                                                                            \
	do {                                                                                      \
		long long _a = (long long)(a), _b = (long long)(b);                              \
		if (!tap_ok(_a == _b, __FILE__, __LINE__, desc))                                  \
			printf("#   got %lld, expected %lld\n", _a, _b);                         \
	} while (0)
#define is_str(a, b, desc)                                                                        \
	do {                                                                                      \
		const char *_a = (a), *_b = (b);                                                  \
		if (!tap_ok(_a && _b && !strcmp(_a, _b), __FILE__, __LINE__, desc))               \
			printf("#   got '%s', expected '%s'\n", _a ? _a : "(null)",               \
			       _b ? _b : "(null)");                                               \
	} while (0)
#define skip(desc, why)                                                                           \
	do {                                                                                      \
		printf("ok %d - %s # SKIP %s\n", ++tap_count, desc, why);                         \
	} while (0)
#define diag(...)                                                                                 \
	do {                                                                                      \
		printf("# ");                                                                     \
		printf(__VA_ARGS__);                                                              \
		printf("\n");                                                                     \
	} while (0)

/*
 * tap_exclusive - hold the machine-wide test lock exclusively until exit (see tests/lib.sh): for
 * tests that measure what sampling costs, which any other sampling on the machine would disturb.
 */
static inline void tap_exclusive(void)
{
	const char *path = getenv("PREC_TEST_LOCK");
	int fd = open(path ? path : "/tmp/prec-tests-sampling.lock", O_WRONLY | O_CREAT | O_APPEND,
		      0666);

	if (fd >= 0)
		flock(fd, LOCK_EX); /* held until the process exits */
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
