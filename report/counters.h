/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report --counters: the counter readings of a file (PERF_RECORD_STAT and STAT_ROUND, as
 * prec record --count and perf stat record write them): per logical event the total, the rate,
 * the running/enabled ratio, the scaled estimate and its range when multiplexed, the counters
 * that were shared, and the per-interval view. report/report.c parses the options and calls
 * report_counters(); the arithmetic is in report/counters-model.c.
 */
#ifndef PREC_REPORT_COUNTERS_H
#define PREC_REPORT_COUNTERS_H

#include <stdbool.h>

struct counters_report_opts {
	const char *input; /* the perf.data path, "-" for a pipe */
	bool json;	   /* --json */
	bool intervals;	   /* --intervals: the per-interval view too (JSON always has it) */
};

/**
 * report_counters - print the counter readings of a file.
 *
 * Return: the exit status: 0, or 1 when the file cannot be read or has no readings (one line
 * already printed).
 */
int report_counters(const struct counters_report_opts *o);

#endif
