/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window rules of prec report --metrics (report/metrics.c), kept apart from the reading so
 * that a unit test can drive them with built inputs: a window runs between two samples of one
 * counter instance (a "key": the sample's id, and its thread when the leader is inherit), and
 * what becomes of it depends on the leader's alternating period, on where the previous sample
 * was and on throttling.
 */
#ifndef PREC_REPORT_METRICS_H
#define PREC_REPORT_METRICS_H

#include <stdbool.h>

#include "format/perf-data.h"

/* The operands of the derived metrics (CPI, BM/KI, CM/KI, CM%). */
enum metrics_op {
	METRICS_OP_CYCLES,
	METRICS_OP_INSTRUCTIONS,
	METRICS_OP_BRANCH_MISSES,
	METRICS_OP_CACHE_REFERENCES,
	METRICS_OP_CACHE_MISSES,
	METRICS_OP_NR
};

/**
 * metrics_event_op - which operand of the derived metrics an event is: by its attr for the
 * hardware events (whatever their name), by its name for a PMU's or a raw one ("cpu/cycles/",
 * "cpu/cycles,period=100/u", "cpu-cycles:u").
 * @a: the event's attr
 * @name: its name as prec report prints it
 *
 * Return: its enum metrics_op, or -1 when it is none of them.
 */
int metrics_event_op(const struct perf_event_attr *a, const char *name);

/* The window state of one key: the previous sample's read values and function. */
struct metrics_key {
	bool valid;  /* a previous sample started a window */
	u32 func;    /* its function */
	u64 *values; /* its read values, one per member (the caller's array of nr) */
};

enum metrics_step {
	METRICS_START,	   /* the first sample of the key: only the start of a window */
	METRICS_THROTTLED, /* a throttled sample or a counter that went back: dropped, restarted */
	METRICS_WINDOW,	   /* a window ended: deltas and same are set */
};

/**
 * metrics_step - take the next sample of key k: its nr read values and its function.
 * @throttled: the sample is inside a throttled span, or the first of the key after one
 * @deltas: set to the window's deltas, one per member, on METRICS_WINDOW
 * @same: set on METRICS_WINDOW when the previous sample was in the same function
 *
 * The key then holds this sample as the start of the next window, whatever the result.
 *
 * Return: what the sample did (enum metrics_step).
 */
enum metrics_step metrics_step(struct metrics_key *k, const u64 *values, u32 nr, u32 func,
			       bool throttled, u64 *deltas, bool *same);

/**
 * metrics_alternates - whether a leader of fixed period alternates a long and a short period:
 * at least a quarter of its windows are shorter than half the period.
 * @period: the leader's fixed sample period; 0 when it samples at a frequency
 * @nr_windows: its windows
 * @nr_short: of them, those whose leader delta is below period / 2
 *
 * Return: true when it alternates (its long windows are then skipped).
 */
bool metrics_alternates(u64 period, u64 nr_windows, u64 nr_short);

/**
 * metrics_is_short - whether a window whose leader counted delta is a short one (below half
 * the fixed period; every window is when the period is not fixed).
 *
 * Return: true for a short window.
 */
static inline bool metrics_is_short(u64 period, u64 delta)
{
	return !period || (delta < period && 2 * delta < period);
}

#endif
