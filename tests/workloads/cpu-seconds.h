/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For workloads that run for an amount of CPU time, not of wall time: a busy machine stretches
 * how long they take, not how many samples they give.
 */
#ifndef PREC_WORKLOADS_CPU_SECONDS_H
#define PREC_WORKLOADS_CPU_SECONDS_H

#include <time.h>

/* The CPU time of the process so far, in seconds. */
static inline double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
