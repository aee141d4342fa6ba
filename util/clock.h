/* SPDX-License-Identifier: GPL-2.0 */
/* Clocks for measuring how long things take. */
#ifndef PREC_UTIL_CLOCK_H
#define PREC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * mono_ns - CLOCK_MONOTONIC in ns: for durations (not the perf clock of the samples). Inline:
 * the calibration probes call it in their tight loops.
 */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
