// SPDX-License-Identifier: GPL-2.0
/*
 * deep: a call chain deeper than the kernel's default cap of 127 entries, for the tests of long
 * chains: main -> run -> recurse, 200 times by default, then a loop that uses the CPU.
 *
 * Built -O0 with frame pointers, so that no call becomes a jump and both frame-pointer and
 * dwarf unwinding see every level (a 200-deep -O0 stack fits in a 64 KiB dwarf stack copy).
 *
 * usage: deep [SECONDS] [DEPTH]   (default 0.5 s of CPU time, 200 levels)
 */
#include <stdlib.h>

#include "cpu-seconds.h"

volatile unsigned long sink;

/*
 * The clock is read every 20,000 steps: a system call often enough that a few percent of the
 * samples are in the kernel, on top of the deep user stack (t2016 needs some such samples, and
 * at every 200,000 steps a run of 250 samples had 4 to 8 of them).
 */
__attribute__((noinline)) void spin(double until)
{
	while (cpu_seconds() < until)
		for (unsigned long i = 0; i < 20000; i++)
			sink += i;
}

__attribute__((noinline)) void recurse(int n, double until)
{
	if (n > 1)
		recurse(n - 1, until);
	else
		spin(until);
	sink++;
}

__attribute__((noinline)) void run(int depth, double seconds)
{
	recurse(depth, cpu_seconds() + seconds);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	int depth = argc > 2 ? atoi(argv[2]) : 200;

	run(depth < 1 ? 1 : depth, seconds);
	return 0;
}
