/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report's views and their one contract. The command (report.c) parses every option into a
 * struct report_opts, opens the file, runs the one view the options chose and closes the file
 * (report/input.h); a view reads the records through the input layer and prints.
 */
#ifndef PREC_REPORT_REPORT_H
#define PREC_REPORT_REPORT_H

#include <stdbool.h>

#include "report/input.h"
#include "util/cpumap.h"

enum sort_key {
	SORT_COMM,
	SORT_PID, /* perf's "pid": the thread, shown as tid:comm */
	SORT_TID,
	SORT_DSO,
	SORT_SYM,
	SORT_CPU,
	SORT_SRCLINE, /* the source file and line of the sampled address */
	SORT_PARENT,  /* the first caller whose name matches -p (perf's parent) */
};

#define SORT_MAX 8

/* perf report's output fields that are not sort keys (-F), numbered after the sort keys. */
enum field {
	FIELD_OVERHEAD = 32,
	FIELD_OVERHEAD_SYS,
	FIELD_OVERHEAD_US,
	FIELD_OVERHEAD_GUEST_SYS,
	FIELD_OVERHEAD_GUEST_US,
	FIELD_OVERHEAD_CHILDREN,
	FIELD_SAMPLE,
	FIELD_PERIOD,
};

#define FIELD_MAX 24

enum chain_mode {
	CHAIN_NONE,
	CHAIN_GRAPH,   /* percentages of the event's total (perf's graph) */
	CHAIN_FRACTAL, /* percentages of the parent (perf's fractal) */
	CHAIN_FLAT,
};

/* What --overhead alone takes. */
struct overhead_opts {
	double budget_pct; /* --budget PCT (default 2) */
	double fail_above; /* --fail-above PCT; negative when not given */
};

/* A time range of --time, in the samples' clock: 0 leaves that end open. */
struct time_range {
	u64 start, end;
};

/* perf report's input and filter options (report/filter.c). */
struct filter_opts {
	char **dsos; /* --dsos */
	u32 nr_dsos;
	char **syms; /* --symbols */
	u32 nr_syms;
	const char *sym_substr;	  /* --symbol-filter */
	const char *time_str;	  /* --time, as given */
	struct time_range *times; /* its ranges, once the file gave its first and last sample */
	u32 nr_times;
	int max_stack;	      /* --max-stack; 0 when not given */
	bool hide_unresolved; /* --hide-unresolved: only samples (and frames) with a symbol */
	bool header;	      /* --header: the header, then the report */
	bool show_info;	      /* -I: the topology and the rest of the header in full */
};

/* Every option of prec report, as the command parsed them; each view reads those it takes. */
struct report_opts {
	const char *input;
	enum sort_key keys[SORT_MAX];
	u32 nr_keys;
	bool sort_given; /* --sort was given (perf hides a chain's first entry for sym...) */
	char **comms;	 /* --comm */
	u32 nr_comms;
	int *pids, *tids; /* --pid, --tid */
	u32 nr_pids, nr_tids;
	struct cpu_map cpus; /* --cpu */
	bool cpu_filter;
	enum chain_mode chain_mode;
	bool chain_mode_given; /* -g given (none included) */
	bool caller;	       /* -g caller: root first */
	bool order_given;      /* -g caller or callee was given (--children defaults to caller) */
	double chain_min;      /* percent, 0.5 by default */
	bool chain_address;    /* -g address: chain entries by address, with their source lines */
	double percent_limit;  /* --percent-limit */
	bool json;
	bool folded;
	bool row_by_cpu, row_by_tid; /* set by profile_run(): rows differ by CPU, by thread */
	bool children; /* --children: rows also count the samples whose call chains pass them */
	bool no_inline; /* --no-inline: no inlined functions in unwound call chains */
	const char *flamegraph; /* --flamegraph FILE */
	bool intervals;		/* --intervals: --overhead and --counters per interval */
	/* the table's columns and percentages, as perf report's output options */
	bool show_nr_samples;	/* -n: a Samples column */
	bool show_total_period; /* --show-total-period: a Period column */
	bool show_cpu_util;	/* --show-cpu-utilization: sys and usr columns */
	bool pct_relative;	/* --percentage relative: of what the filters let through */
	const char *field_sep;	/* -t: columns separated by this, not padded with blanks */
	/* -F: the columns, sort keys (enum sort_key) and values (enum field), in order */
	int fields[FIELD_MAX];
	u32 nr_fields;
	bool fields_strict; /* -F without a leading '+': only these columns, keys from them */
	u32 nr_sort_keys;   /* of keys, those that order the rows before the -F columns do */
	bool hierarchy;	    /* --hierarchy: one level per sort key, indented */
	const char *parent; /* -p: what the sort key parent looks for (NULL: perf's default) */
	bool exclude_other; /* -x: no rows whose parent is [other] */
	struct overhead_opts overhead;
	struct filter_opts filter;
	bool metrics_all; /* --metrics=all: every window counts, none is discarded */
	const char *pprof; /* --pprof FILE: the samples as a gzipped profile.proto */
};

/*
 * A view: what it shows of the opened file rep, printed on stdout. It returns the exit status: 0,
 * 1 after printing an error, or a status of its own (--overhead: 3 above --fail-above).
 * report_close() then has the last word on the file and on stdout.
 */
typedef int report_view_fn(struct report *rep, const struct report_opts *o);

/**
 * report_profile - where the samples went: perf report's table, or with --folded, --flamegraph
 * or --json the same profile in those forms (report/profile.c).
 *
 * Return: 0, or 1 after printing an error.
 */
int report_profile(struct report *rep, const struct report_opts *o);

/**
 * report_stats - the records of each type, as perf report --stats counts them.
 *
 * Return: 0, or 1 after printing an error.
 */
int report_stats(struct report *rep, const struct report_opts *o);

/**
 * report_dump - every record in file order, as perf report -D prints them.
 *
 * Return: 0, or 1 after printing an error.
 */
int report_dump(struct report *rep, const struct report_opts *o);

/**
 * report_header - the header and the features, as perf report --header-only prints them.
 *
 * Return: 0, or 1 after printing an error.
 */
int report_header(struct report *rep, const struct report_opts *o);

/**
 * report_overhead - what the profiling cost, per CPU, and what to change (report/overhead.c).
 *
 * Return: 0; 3 when --fail-above was given and the worst CPU's overhead is above it; 1 after
 * printing an error.
 */
int report_overhead(struct report *rep, const struct report_opts *o);

/**
 * report_counters - the counter readings: totals, rates, multiplexing, shared counters
 * (report/counters.c).
 *
 * Return: 0, or 1 after printing an error (a file without readings is one).
 */
int report_counters(struct report *rep, const struct report_opts *o);

/**
 * report_tasks - the threads of the file, each under its parent, as perf report --tasks prints
 * them (report/tasks.c).
 *
 * Return: 0, or 1 after printing an error.
 */
int report_tasks(struct report *rep, const struct report_opts *o);

/**
 * report_metrics - per function, the counter deltas of the windows between a group leader's
 * samples and the metrics derived from them (report/metrics.c).
 *
 * Return: 0, or 1 after printing an error (a file without group-read samples is one).
 */
int report_metrics(struct report *rep, const struct report_opts *o);

#endif
