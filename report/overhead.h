/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report --overhead: what the profiling cost, per CPU, and what to change. report/report.c
 * parses the options and calls report_overhead(); the view and the findings live in
 * report/overhead.c and overhead/model.c.
 */
#ifndef PREC_REPORT_OVERHEAD_H
#define PREC_REPORT_OVERHEAD_H

#include <stdbool.h>

struct overhead_report_opts {
	const char *input;  /* the perf.data path, "-" for a pipe */
	bool json;          /* --json */
	bool intervals;     /* --intervals: the per-interval view */
	double budget_pct;  /* --budget PCT (default 2) */
	double fail_above;  /* --fail-above PCT; negative when not given */
};

/**
 * report_overhead - print the overhead view of a file.
 *
 * Return: the exit status: 0, 3 when --fail-above was given and the worst CPU's overhead is
 * above it, 1 when the file cannot be read (one line already printed).
 */
int report_overhead(const struct overhead_report_opts *o);

#endif
