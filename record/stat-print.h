/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output of prec stat, as perf stat 6.1 prints it: the header, one line per event (and per
 * CPU with -A) with the count, its unit, the name and the metric perf computes for software
 * events, the running share, -r's noise, the elapsed time and the child's user and sys time; -x
 * prints perf's CSV fields in perf's order and -I a timestamp before every line. It takes built
 * readings, so that it can be tested against text perf stat printed.
 */
#ifndef PREC_RECORD_STAT_PRINT_H
#define PREC_RECORD_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>

/* An event as the printer shows it. */
struct stat_print_event {
	const char *name;
	const char *unit;  /* "msec" for the clock events, else "" */
	double scale;      /* counts to unit: 1e-6 for the clock events (ns to msec), else 1 */
	bool clock;        /* task-clock or cpu-clock: "CPUs utilized", and the time of "/sec" */
	bool supported;    /* a counter was opened ("<not supported>" otherwise) */
};

/*
 * One line's reading: raw counts (before scale). With -r, perf stat 6.1 prints the last run's
 * count and its noise: the standard deviation of the runs' mean, in % of that last count.
 */
struct stat_print_value {
	double val, ena, run;
	double noise_pct;
};

struct stat_print {
	FILE *out;
	const char *sep;   /* -x: the separator; NULL for perf's aligned columns */
	int run_count;     /* -r */
	bool no_aggr;      /* -A: one line per CPU */
	const int *cpus;   /* with no_aggr: the CPU of each slot */
	int nr_cpus;
	int nr_intervals;  /* -I: intervals printed so far (the column header every 25) */
	/*
	 * The clock events' time (ns) per slot that "/sec" divides by, below 0 where there is
	 * none; NULL: the mean of the clock events' lines printed. -r gives the mean over the
	 * runs, as perf's shadow figures are.
	 */
	const double *clock_ns;
};

/**
 * stat_print_counters - every event's line, in the order given (with no_aggr, each event's
 * line for every CPU).
 * @ev: nr events
 * @v: the readings: [e] for the aggregated count, [e * nr_cpus + slot] with no_aggr
 * @walltime_ns: the time the metric "CPUs utilized" divides by (the elapsed time, or the
 *		 interval of -I)
 * @prefix: -I's timestamp ("%6lu.%09lu" and the separator), or NULL
 */
void stat_print_counters(struct stat_print *p, const struct stat_print_event *ev, int nr,
			 const struct stat_print_value *v, double walltime_ns, const char *prefix);

/**
 * stat_print_header - " Performance counter stats for WHAT:" and its blank lines; nothing with
 * -x. @what is perf's: "'CMD ARGS'", "'system wide'", "'CPU(s) LIST'", "process id 'PID'" or
 * "thread id 'TID'".
 */
void stat_print_header(const struct stat_print *p, const char *what);

/**
 * stat_print_interval_header - -I's column header, before the first interval and every 25th
 * (nothing with -x); counts the interval.
 */
void stat_print_interval_header(struct stat_print *p);

/**
 * stat_print_footer - the elapsed time (its mean and standard deviation of the mean with -r),
 * then the child's user and sys times when @ru is not NULL; nothing with -x.
 */
void stat_print_footer(const struct stat_print *p, double elapsed_s, double elapsed_sd_s,
		       const struct rusage *ru);

/**
 * stat_print_timestamp - -I's prefix for the time ts_ns since counting started, into buf.
 */
void stat_print_timestamp(const struct stat_print *p, unsigned long long ts_ns, char *buf,
			  size_t len);

/**
 * stat_print_sd_mean - the standard deviation of the mean of n values, from their sum and the
 * sum of their squares (what -r's noise is).
 *
 * Return: it, 0 for fewer than two values.
 */
double stat_print_sd_mean(double sum, double sumsq, int n);

#endif
