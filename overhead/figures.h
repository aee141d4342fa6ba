/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of the overhead figures, shared by the model (overhead/model.c) and its rules
 * (overhead/rules.c), so that neither needs the other for it. Inside overhead/ only: the names
 * are short, and files that include overhead/model.h define some of them their own way.
 */
#ifndef PREC_OVERHEAD_FIGURES_H
#define PREC_OVERHEAD_FIGURES_H

#include <stdint.h>

#include "format/ondisk.h"

#define NS_PER_S 1e9

/* part as a share of whole, in %; -1 when whole is not positive (unknown). */
static inline double pct_of(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : -1;
}

/* n per second over wall_ns; 0 when the time is unknown. */
static inline double rate_of(u64 n, u64 wall_ns)
{
	return wall_ns ? (double)n * NS_PER_S / (double)wall_ns : 0;
}

/* a + b, held at the largest u64: figures from a damaged file must not wrap around. */
static inline u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif
