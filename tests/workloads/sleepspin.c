// SPDX-License-Identifier: GPL-2.0
/*
 * sleepspin: a workload that waits in one function and computes in another, for --off-cpu.
 * Each round, compute_fn() spins for about 10 ms of CPU time, then sleep_fn() sleeps 10 ms in
 * nanosleep() through wait_once(), so that a frame-pointer walk of the user stack from inside
 * libc (which keeps no frame pointer) still finds sleep_fn: the frame it reads first is
 * wait_once()'s, whose return address is in sleep_fn.
 *
 * usage: sleepspin [ROUNDS]   (default 100: about 2 s)
 * At the end it prints on stdout "slept NS", the time spent in the nanosleep() calls measured
 * around each call on CLOCK_MONOTONIC, the clock the off-CPU times are taken on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

static unsigned long long now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

NOINLINE void compute_fn(void)
{
	unsigned long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + 10000000ULL;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

NOINLINE void wait_once(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10000000 };

	nanosleep(&ts, NULL);
}

NOINLINE unsigned long long sleep_fn(void)
{
	unsigned long long t0 = now_ns(CLOCK_MONOTONIC);

	wait_once();
	return now_ns(CLOCK_MONOTONIC) - t0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	unsigned long long slept = 0;

	for (int r = 0; r < rounds; r++) {
		compute_fn();
		slept += sleep_fn();
	}
	printf("slept %llu\n", slept);
	return 0;
}
