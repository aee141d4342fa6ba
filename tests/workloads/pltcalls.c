// SPDX-License-Identifier: GPL-2.0
/*
 * pltcalls: a workload that spends much of its time in the PLT entries of the executable, for
 * tests/t2004: it calls two small libc functions, abs() and labs(), in a loop. The zero-size
 * symbol before .plt (_init) stretches over the entries, and whether perf names a sample there
 * after it or after the entry (abs@plt) depends on where each sits in perf's tree of symbols:
 * the first entries are often under _init. Those two are the only functions called through the
 * PLT; the others are called through pointers (the GOT), so that the two are the first entries.
 * The CPU time is read with getrusage(), a system call, not through the vdso, whose samples perf
 * leaves unresolved without a build-id cache. The build gives it -O0 -fno-builtin, so that every
 * call is a real call.
 *
 * usage: pltcalls [SECONDS]   (default 1) of CPU time, so that a busy machine gives as many
 *                             samples as an idle one
 */
#include <stdlib.h>
#include <sys/resource.h>

volatile long sink;

static double cpu_seconds(int (*get)(int, struct rusage *))
{
	struct rusage ru;

	get(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	double (*volatile to_double)(const char *) = atof;
	int (*volatile usage)(int, struct rusage *) = getrusage;
	double end = argc > 1 ? to_double(argv[1]) : 1;
	long s = 0;

	while (cpu_seconds(usage) < end)
		for (int i = 0; i < 10000; i++)
			s += abs(i - 5000) + labs(i);
	sink = s;
	return 0;
}
