// SPDX-License-Identifier: GPL-2.0
/*
 * nofp: a CPU-bound workload built -O2 without frame pointers, for dwarf call graphs: only the
 * call frame information (.eh_frame) tells where each caller is. Work is done at every depth of
 * the chain main -> run -> outer -> inner -> leaf, so that samples land in each: about 20%, 30%,
 * 20% and 30% (each a loop of its own, noinline, with a dependency through a volatile read so
 * that the compiler keeps the loop as written); and a tenth of the time run -> sys goes into
 * the kernel, by system calls made without libc, so that kernel samples have user stacks too.
 *
 * usage: nofp [SECONDS]   (default 1, of CPU time: a busy machine stretches only the wall time)
 */
#include <stdlib.h>

#include "cpu-seconds.h"

#ifdef __has_attribute
#if __has_attribute(noclone)
#define WORK __attribute__((noinline, noclone))
#endif
#endif
#ifndef WORK
#define WORK __attribute__((noinline))
#endif

volatile unsigned long sink;
static volatile unsigned long salt = 3;

static unsigned long spin(unsigned long n, unsigned long x)
{
	unsigned long s = x, k = salt;

	for (unsigned long i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ x;
	return s;
}

WORK unsigned long leaf(unsigned long n)
{
	return spin(3 * n, 0x1);
}

WORK unsigned long inner(unsigned long n)
{
	unsigned long s = spin(2 * n, 0x2);

	return s + leaf(n) * salt;
}

WORK unsigned long outer(unsigned long n)
{
	unsigned long s = spin(3 * n, 0x3);

	return s ^ inner(n) * salt;
}

/* getppid, the cheapest system call, without a libc frame above it */
static unsigned long raw_getppid(void)
{
	unsigned long r = 110;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
	return r;
}

WORK unsigned long sys(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += raw_getppid();
	return s;
}

WORK unsigned long run(unsigned long n)
{
	unsigned long s = spin(2 * n, 0x4);

	s += sys(n / 1024);
	return s - outer(n) * salt;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, start = cpu_seconds();

	while (cpu_seconds() - start < secs)
		sink += run(100000);
	return 0;
}
