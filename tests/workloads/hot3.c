// SPDX-License-Identifier: GPL-2.0
/*
 * hot3: a CPU-bound workload with three hot functions doing 50%, 30% and 20% of the work,
 * called through a shallow call chain (main -> run_round -> hot_*).
 *
 * It must profile the same at any optimisation level the build uses, so:
 * - the three loops differ in a constant, or gcc folds identical functions into one symbol
 *   (the build also gives gcc -fno-ipa-icf; clang folds none unless asked to);
 * - gcc and clang drop the frame pointer in leaves at -O1 and up, and turn a final call into a
 *   jump, and frame-pointer callchains then skip the caller: the build gives this file
 *   -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls where the compiler has them
 *   (configure.ac, WORKLOAD_CFLAGS), which no -O level overrides, and each hot function also
 *   ends with a call (to consume()) for builds without those flags;
 * - everything is noinline, and the loop carries a dependency through a volatile read so that
 *   the compiler cannot vectorise or shorten it.
 *
 * usage: hot3 [SECONDS]   (default 1; the work is split into rounds until the time is up)
 *        hot3 -c SECONDS rounds until the process has run SECONDS on a CPU: as many samples on
 *                        a busy machine as on an idle one, where other work only stretches the
 *                        wall time (what the tests want)
 *        hot3 -r ROUNDS  a fixed amount of work, for benchmarks: ROUNDS rounds (about 1 ms each
 *                        here), then one line on stderr with the time they took, wall and CPU
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* clang has no noclone attribute, and warns about one it does not know */
#ifdef __has_attribute
#if __has_attribute(noclone)
#define HOT __attribute__((noinline, noclone))
#endif
#endif
#ifndef HOT
#define HOT __attribute__((noinline))
#endif

volatile unsigned long sink;
static volatile unsigned long salt = 3;

HOT void consume(unsigned long s)
{
	sink += s;
}

HOT void hot_a(unsigned long n)
{
	unsigned long i, s = 0, k = salt;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0xa;
	consume(s);
}

HOT void hot_b(unsigned long n)
{
	unsigned long i, s = 0, k = salt;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0xb;
	consume(s);
}

HOT void hot_c(unsigned long n)
{
	unsigned long i, s = 0, k = salt;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0xc;
	consume(s);
}

HOT void run_round(unsigned long unit)
{
	hot_a(5 * unit);
	hot_b(3 * unit);
	hot_c(2 * unit);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	double end = now() + seconds;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		/*
		 * The same rounds, a fixed number of them: the time they take is the measure.
		 * CPU time leaves out what the host ran meanwhile (steal) and keeps what the
		 * interrupts took, which the kernel charges to the task they interrupted.
		 */
		unsigned long rounds = strtoul(argv[2], NULL, 0), i;
		double w0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

		for (i = 0; i < rounds; i++)
			run_round(200000);
		fprintf(stderr, "hot3: %lu rounds in %.6f s wall, %.6f s CPU\n", rounds, now() - w0,
			clock_s(CLOCK_THREAD_CPUTIME_ID) - c0);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-c")) {
		/*
		 * The process's own CPU time, not the wall clock: a sampling event such as
		 * cpu-clock counts the former, so the samples do not depend on the CPU share
		 * the other work on the machine leaves.
		 */
		end = clock_s(CLOCK_PROCESS_CPUTIME_ID) + atof(argv[2]);
		do
			run_round(200000);
		while (clock_s(CLOCK_PROCESS_CPUTIME_ID) < end);
		return 0;
	}

	do
		run_round(200000);
	while (now() < end);
	return 0;
}
