/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of counter readings for prec report --counters, kept apart from the file so
 * that the unit tests can feed it built readings: the status of a reading (counted, scaled, not
 * counted, not enabled), the multiplexing estimate and how uncertain it is, and the differences
 * between the cumulative readings of two rounds.
 *
 * A reading is perf's triple: the count, the time the event was enabled and the time it was
 * running (on the PMU), cumulative since the event was enabled. When 0 < running < enabled the
 * event was multiplexed and its count is scaled as perf scales it:
 *
 *	scaled = count * enabled / running
 *
 * which assumes the event kept, while it was switched out, the average rate it had while it
 * was counting. How wrong that can be is stated as a range: let rmin and rmax be the lowest and
 * highest rate (count / running time) of the event over the reading intervals in which it ran.
 * If its rate while switched out stayed within what was seen while it ran, the true count is in
 *
 *	[count + rmin * (enabled - running), count + rmax * (enabled - running)]
 *
 * and the scaled count is inside that range (count / running is a weighted mean of the interval
 * rates). The uncertainty is half the range's width as a share of the scaled count. With fewer
 * than two intervals in which the event ran there is no spread to go by: only the lower bound
 * (what was counted; counts never go down) is known and the uncertainty is unknown, never 0.
 */
#ifndef PREC_REPORT_COUNTERS_MODEL_H
#define PREC_REPORT_COUNTERS_MODEL_H

#include <stdbool.h>

#include "format/ondisk.h"

/* One reading, or the sum of several, or the difference of two. Times in ns. */
struct cm_reading {
	u64 val, ena, run;
};

enum cm_status {
	CM_NOT_SUPPORTED, /* no reading at all (perf: "<not supported>": it could not be opened) */
	CM_NOT_ENABLED,	  /* enabled time 0: never enabled (perf prints "<not counted>") */
	CM_NOT_COUNTED,	  /* enabled but never running: "<not counted>" */
	CM_COUNTED,	  /* running the whole enabled time: the count is exact */
	CM_SCALED,	  /* multiplexed: 0 < running < enabled, the count is scaled */
};

/* What was wrong with readings (a damaged file): bits, or-ed together. */
enum cm_flags {
	CM_DECREASED = 1 << 0,	   /* a cumulative value went down (or wrapped) */
	CM_RUN_ABOVE_ENA = 1 << 1, /* running longer than enabled: taken as running all along */
	CM_SATURATED = 1 << 2,	   /* a sum passed 2^64 - 1 and stopped there */
};

/* The rates (count per ns of running time) of the intervals in which an event ran. */
struct cm_rates {
	u32 n;
	double min, max;
};

struct cm_estimate {
	enum cm_status status;
	unsigned flags;		/* CM_RUN_ABOVE_ENA when the reading had it */
	double running_pct;	/* running / enabled * 100; NaN when never enabled */
	double scaled;		/* the count, scaled when multiplexed; NaN when not counted */
	double low, high;	/* the range of the true count; high is NaN when unknown */
	double uncertainty_pct; /* (high - low) / 2 / scaled * 100; NaN when unknown */
	double rate;		/* scaled per second of enabled time; NaN when not counted */
};

/**
 * cm_add - add r to sum, each field saturating at 2^64 - 1.
 *
 * Return: CM_SATURATED when a field saturated, else 0.
 */
unsigned cm_add(struct cm_reading *sum, const struct cm_reading *r);

/**
 * cm_delta - the difference cur - prev of two cumulative readings of one counter.
 *
 * A value that went down (a damaged file, or a counter that wrapped) has no meaningful
 * difference: the whole difference is then 0 and CM_DECREASED is returned, so that the interval
 * adds nothing instead of 2^64 - something.
 *
 * Return: 0, or CM_DECREASED.
 */
unsigned cm_delta(const struct cm_reading *prev, const struct cm_reading *cur,
		  struct cm_reading *d);

/**
 * cm_classify - the status of a reading (have: there is a reading at all).
 */
enum cm_status cm_classify(const struct cm_reading *r, bool have);

/**
 * cm_scale - the count scaled by enabled / running as perf scales it (computed in long double,
 * so no overflow); the count itself when not multiplexed.
 *
 * Return: the scaled count, or NaN when the reading was not counted (running 0).
 */
double cm_scale(const struct cm_reading *r);

/**
 * cm_rates_add - note the rate of one interval (a difference of readings) in which the event
 * ran; intervals with no running time, or damaged ones (running > enabled), are left out.
 */
void cm_rates_add(struct cm_rates *rates, const struct cm_reading *d);

/**
 * cm_estimate - the status, the scaled count, its range and rate of a total reading.
 * @rates: the interval rates of the event (may be NULL: none known)
 */
void cm_estimate(const struct cm_reading *total, bool have, const struct cm_rates *rates,
		 struct cm_estimate *e);

/**
 * cm_status_name - "counted", "scaled", "not-counted", "not-enabled" or "not-supported".
 */
const char *cm_status_name(enum cm_status s);

/**
 * cm_status_text - what perf stat prints in the count column when there is no count:
 * "<not counted>" (also for never enabled, as perf does) or "<not supported>"; NULL otherwise.
 */
const char *cm_status_text(enum cm_status s);

#endif
