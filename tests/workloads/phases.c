// SPDX-License-Identifier: GPL-2.0
/*
 * phases: three functions called in turn, each doing one kind of work, for the per-function
 * metrics of group samples (prec report --metrics): fault_fn() takes page faults, compute_fn()
 * only computes, sleep_fn() sleeps in nanosleep(). Sampling windows are 200 us of CPU time
 * when the machine is idle, and longer on a busy one (the timer that ends them fires late), so
 * the phases are built to keep two properties whatever the windows' length, up to a few
 * milliseconds:
 * - fault_fn() lasts much longer than any window: it first computes for FAULT_US of CPU time
 *   (2 ms by default) without a fault, and only then touches its pages. No window can begin
 *   before fault_fn() and end after it while holding its faults, so the windows that begin
 *   and end in one function (those prec report --metrics keeps) give fault_fn() all of them.
 * - its faults come in a burst at its end (each write to a page of a fresh anonymous mapping
 *   faults, at an instruction of fault_fn() itself, and GAP_US of computing follows each
 *   one): the window that holds the end of the burst ends in the next function, and perf
 *   report --group charges that function with the part of the burst the window holds. The
 *   burst is a few windows long, so that part is about a third of every burst, and a longer
 *   window only makes it larger.
 * compute_fn() computes for COMPUTE_US of CPU time, sleep_fn() sleeps SLEEP_US.
 *
 * The mapping is made and removed by callees (map_pages(), unmap_pages()): their time is
 * spent in the kernel and libc, never at an address of fault_fn, and no fault happens in them
 * (MAP_POPULATE is not used). Everything is noinline, and the build gives the file the flags
 * that keep frame pointers and calls (see hot3.c), so each function's samples land in it.
 * The computing is a number of steps per microsecond of the thread's CPU time, measured once
 * at the start, so the phases last as long in CPU time on a busy machine as on an idle one.
 *
 * usage: phases [SECONDS [PAGES [FAULT_US [GAP_US [COMPUTE_US [SLEEP_US]]]]]]
 *        rounds until the process has run SECONDS (default 0.3) on a CPU: the same number of
 *        task-clock samples on a busy machine as on an idle one; each round calls fault_fn()
 *        (FAULT_US, default 2000, then PAGES pages, default 24, GAP_US after each, default 8),
 *        compute_fn() (COMPUTE_US, default 1000) and sleep_fn() (SLEEP_US, default 200). At
 *        the end it prints "rounds N pages M" on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cpu-seconds.h"

/* clang has no noclone attribute, and warns about one it does not know */
#ifdef __has_attribute
#if __has_attribute(noclone)
#define PHASE __attribute__((noinline, noclone))
#endif
#endif
#ifndef PHASE
#define PHASE __attribute__((noinline))
#endif

volatile unsigned long sink;
static volatile unsigned long salt = 5;

/* iterations of spin() per microsecond of CPU time, measured once by calibrate() */
static double per_us;

/* Computes N steps. Inlined, so its samples land in the function that calls it. */
static inline __attribute__((always_inline)) void spin(unsigned long n)
{
	unsigned long i, s = 0, k = salt;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0x5;
	sink += s;
}

static double thread_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The phases compute for a number of steps measured here once, in CPU time (the same on a
 * busy machine as on an idle one), rather than reading the clock as they go: a sample in
 * clock_gettime() between two faults would make a window that begins and ends outside
 * fault_fn() and holds its faults.
 */
static void calibrate(void)
{
	unsigned long n = 0;
	double start = thread_us(), now;

	do {
		spin(4096);
		n += 4096;
		now = thread_us();
	} while (now - start < 10000);
	per_us = n / (now - start);
}

static inline __attribute__((always_inline)) void spin_us(double us)
{
	spin((unsigned long)(us * per_us));
}

PHASE char *map_pages(long pages, long page)
{
	char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* one fault per page: no huge page would take 512 of them at once */
	madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
	return p;
}

PHASE void unmap_pages(char *p, long pages, long page)
{
	munmap(p, (size_t)(pages * page));
}

/* Returns the pages it touched, 0 when the mapping failed. */
PHASE long fault_fn(long pages, long page, double us, double gap_us)
{
	char *p = map_pages(pages, page);
	long i;

	if (!p)
		return 0;
	/* the prologue: longer than any window, so none holds both ends of fault_fn */
	spin_us(us);
	/*
	 * The burst, last: the window that holds its end ends in the next function. Computing
	 * between the faults keeps the burst long enough for several windows, and those windows
	 * end in fault_fn (a sample is not taken while the kernel handles a fault: :u).
	 */
	for (i = 0; i < pages; i++) {
		((volatile char *)p)[i * page] = (char)i;
		spin_us(gap_us);
	}
	unmap_pages(p, pages, page);
	return pages;
}

PHASE void compute_fn(double us)
{
	spin_us(us);
}

PHASE void sleep_fn(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	long pages = argc > 2 ? atol(argv[2]) : 24;
	double fault_us = argc > 3 ? atof(argv[3]) : 2000;
	double gap_us = argc > 4 ? atof(argv[4]) : 8;
	double compute_us = argc > 5 ? atof(argv[5]) : 1000;
	long us = argc > 6 ? atol(argv[6]) : 200;
	long page = sysconf(_SC_PAGESIZE), rounds = 0, touched = 0;
	double end;

	if (pages < 1 || fault_us < 0 || gap_us < 0 || compute_us < 0 || us < 0)
		return 2;
	calibrate();
	end = cpu_seconds() + seconds;
	do {
		touched += fault_fn(pages, page, fault_us, gap_us);
		compute_fn(compute_us);
		sleep_fn(us);
		rounds++;
	} while (cpu_seconds() < end);
	printf("rounds %ld pages %ld\n", rounds, touched);
	return 0;
}
