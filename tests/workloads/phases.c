// SPDX-License-Identifier: GPL-2.0
/*
 * phases: three functions called in turn, each doing one kind of work, for the per-function
 * metrics of group samples (prec report --metrics): fault_fn() takes page faults (it writes
 * once to each page of a fresh anonymous mapping, so every fault is at an instruction of its
 * own), compute_fn() only computes, sleep_fn() sleeps in nanosleep(). The phases are a few
 * sampling windows of 200 us of CPU time long, so that a window often begins in one function
 * and ends in the next: what perf report --group then charges to the function where a window
 * ends is partly the previous function's work, and that is what the discard filter removes.
 *
 * The mapping is made and removed by callees (map_pages(), unmap_pages()): their time is
 * spent in the kernel and libc, never at an address of fault_fn, and no fault happens in them
 * (MAP_POPULATE is not used). Everything is noinline, and the build gives the file the flags
 * that keep frame pointers and calls (see hot3.c), so each function's samples land in it.
 *
 * usage: phases [SECONDS [PAGES [ITERATIONS [SLEEP_US]]]]
 *        rounds until the process has run SECONDS (default 0.3) on a CPU: the same number of
 *        task-clock samples on a busy machine as on an idle one; each round touches PAGES
 *        pages (default 64), computes ITERATIONS steps (default 200000) and sleeps SLEEP_US
 *        microseconds (default 200). At the end it prints "rounds N pages M" on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
PHASE long fault_fn(long pages, long page)
{
	char *p = map_pages(pages, page);
	long i;

	if (!p)
		return 0;
	for (i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = (char)i;
	unmap_pages(p, pages, page);
	return pages;
}

PHASE void compute_fn(unsigned long n)
{
	unsigned long i, s = 0, k = salt;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0x5;
	sink += s;
}

PHASE void sleep_fn(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	long pages = argc > 2 ? atol(argv[2]) : 64;
	unsigned long iterations = argc > 3 ? strtoul(argv[3], NULL, 0) : 200000;
	long us = argc > 4 ? atol(argv[4]) : 200;
	long page = sysconf(_SC_PAGESIZE), rounds = 0, touched = 0;
	double end = cpu_s() + seconds;

	if (pages < 1 || us < 0)
		return 2;
	do {
		touched += fault_fn(pages, page);
		compute_fn(iterations);
		sleep_fn(us);
		rounds++;
	} while (cpu_s() < end);
	printf("rounds %ld pages %ld\n", rounds, touched);
	return 0;
}
