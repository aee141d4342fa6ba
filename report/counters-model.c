// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of counter readings: status, scaling, the range of a scaled count, differences
 * between rounds. The reasoning is in report/counters-model.h and man/prec-report.1 (COUNTERS).
 */
#include <math.h>

#include "report/counters-model.h"

static unsigned add_sat(u64 *a, u64 b)
{
	if (*a > UINT64_MAX - b) {
		*a = UINT64_MAX;
		return CM_SATURATED;
	}
	*a += b;
	return 0;
}

/**
 * cm_add - add r to sum, saturating.
 *
 * Return: CM_SATURATED when a field saturated, else 0.
 */
unsigned cm_add(struct cm_reading *sum, const struct cm_reading *r)
{
	return add_sat(&sum->val, r->val) | add_sat(&sum->ena, r->ena) | add_sat(&sum->run, r->run);
}

/**
 * cm_delta - cur - prev, or nothing when a value went down.
 *
 * Return: 0, or CM_DECREASED.
 */
unsigned cm_delta(const struct cm_reading *prev, const struct cm_reading *cur, struct cm_reading *d)
{
	if (cur->val < prev->val || cur->ena < prev->ena || cur->run < prev->run) {
		d->val = d->ena = d->run = 0;
		return CM_DECREASED;
	}
	d->val = cur->val - prev->val;
	d->ena = cur->ena - prev->ena;
	d->run = cur->run - prev->run;
	return 0;
}

/**
 * cm_classify - the status of a reading.
 */
enum cm_status cm_classify(const struct cm_reading *r, bool have)
{
	if (!have)
		return CM_NOT_SUPPORTED;
	if (!r->ena)
		return CM_NOT_ENABLED;
	if (!r->run)
		return CM_NOT_COUNTED;
	/* running > enabled cannot happen in the kernel: a damaged reading, taken as exact */
	return r->run >= r->ena ? CM_COUNTED : CM_SCALED;
}

/**
 * cm_scale - the count scaled by enabled / running.
 *
 * Return: the scaled count, or NaN when running is 0.
 */
double cm_scale(const struct cm_reading *r)
{
	if (!r->run)
		return NAN;
	if (r->run >= r->ena)
		return (double)r->val;
	return (double)((long double)r->val * (long double)r->ena / (long double)r->run);
}

/**
 * cm_rates_add - note one interval's rate.
 */
void cm_rates_add(struct cm_rates *rates, const struct cm_reading *d)
{
	double r;

	if (!d->run || d->run > d->ena)
		return;
	r = (double)d->val / (double)d->run;
	if (!rates->n || r < rates->min)
		rates->min = r;
	if (!rates->n || r > rates->max)
		rates->max = r;
	rates->n++;
}

/**
 * cm_estimate - status, scaled count, range and rate of a total reading.
 */
void cm_estimate(const struct cm_reading *total, bool have, const struct cm_rates *rates,
		 struct cm_estimate *e)
{
	double unseen;

	e->status = cm_classify(total, have);
	e->flags = have && total->run > total->ena ? CM_RUN_ABOVE_ENA : 0;
	e->running_pct = NAN;
	e->scaled = e->low = e->high = e->uncertainty_pct = e->rate = NAN;
	if (e->status == CM_NOT_SUPPORTED || e->status == CM_NOT_ENABLED)
		return;
	/* above 100 when running > enabled: shown as it is, as perf shows it */
	e->running_pct = 100.0 * (double)total->run / (double)total->ena;
	if (e->status == CM_NOT_COUNTED)
		return;
	e->scaled = cm_scale(total);
	e->rate = e->scaled * 1e9 / (double)total->ena;
	e->low = (double)total->val;
	if (e->status == CM_COUNTED) {
		e->high = e->low;
		e->uncertainty_pct = 0;
		return;
	}
	/* Multiplexed: the range needs the spread of at least two intervals' rates. */
	if (!rates || rates->n < 2)
		return;
	unseen = (double)(total->ena - total->run);
	e->low = (double)total->val + rates->min * unseen;
	e->high = (double)total->val + rates->max * unseen;
	/* Rounding must not put the estimate outside its own range. */
	if (e->low > e->scaled)
		e->low = e->scaled;
	if (e->high < e->scaled)
		e->high = e->scaled;
	e->uncertainty_pct = e->scaled > 0 ? (e->high - e->low) / 2 / e->scaled * 100 : 0;
}

/**
 * cm_status_name - the status as JSON says it.
 */
const char *cm_status_name(enum cm_status s)
{
	switch (s) {
	case CM_NOT_SUPPORTED:
		return "not-supported";
	case CM_NOT_ENABLED:
		return "not-enabled";
	case CM_NOT_COUNTED:
		return "not-counted";
	case CM_COUNTED:
		return "counted";
	case CM_SCALED:
		return "scaled";
	}
	return "?";
}

/**
 * cm_status_text - perf stat's words for a missing count, or NULL.
 */
const char *cm_status_text(enum cm_status s)
{
	switch (s) {
	case CM_NOT_SUPPORTED:
		return "<not supported>";
	case CM_NOT_ENABLED:
	case CM_NOT_COUNTED:
		return "<not counted>";
	default:
		return NULL;
	}
}
