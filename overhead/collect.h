/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Overhead collectors: per CPU, how many times and for how long the kernel ran the handlers that
 * profiling adds (DESIGN.md, "The three costs of profiling"):
 *
 *	swevent	timer:hrtimer_expire_entry/exit pairs whose function is perf_swevent_hrtimer: the
 *		sampling interrupt of cpu-clock and task-clock;
 *	nmi	nmi:nmi_handler entries whose handler is perf_event_nmi_handler, with the delta_ns
 *		the tracepoint carries: the sampling interrupt of hardware events;
 *	mux	hrtimer pairs whose function is perf_mux_hrtimer_handler: multiplexing rotation.
 *
 * Two sources measure the same thing. "bpf" attaches small tracepoint programs that pair entry
 * and exit per CPU and add up count and nanoseconds in per-CPU maps; nothing is streamed. It costs
 * a few tens of nanoseconds per interrupt. "tracepoint" opens the same tracepoints with
 * perf_event_open and kernel-side filters and pairs them in user space; every interrupt then
 * writes two records, which costs the program more and inflates the measured handler time
 * (overhead_calibrate_collector() in overhead/calibrate.h measures by how much). "auto" tries bpf,
 * then tracepoint. The handler addresses come from /proc/kallsyms.
 *
 * A source that cannot be used is never silently replaced by zeros: the collector says which
 * source runs (possibly "none") and why the others could not, and overhead_collector_read()
 * fails on "none".
 *
 * The recorder's order of calls (the calibrations are in overhead/calibrate.h):
 *
 *	overhead_collector_open(&c, cpus, nr_cpus, source);	before enabling the events
 *	overhead_calibrate_stolen(cpus, nr_cpus, &attr, ...);	before the workload starts and
 *	overhead_calibrate_sideband(...);			before overhead_collector_start()
 *	overhead_calibrate_collector(cpus, nr_cpus, overhead_collector_source(c), ...);
 *								(the tracepoint source at least)
 *	overhead_collector_start(c);				just before enabling the events
 *	overhead_collector_read(c, stats);			every interval: cumulative figures
 *	overhead_collector_stop(c);				after disabling them
 *	overhead_collector_read(c, stats);			the final figures
 *	overhead_collector_close(c);
 *
 * None of these print; they return negative errno and keep a one-line reason.
 */
#ifndef PREC_OVERHEAD_COLLECT_H
#define PREC_OVERHEAD_COLLECT_H

#include "format/ondisk.h"

enum overhead_source {
	OVERHEAD_SOURCE_AUTO,
	OVERHEAD_SOURCE_BPF,
	OVERHEAD_SOURCE_TRACEPOINT,
	OVERHEAD_SOURCE_NONE,
};

/* The handlers a collector times; the index into overhead_cpu_stats.h[]. */
enum overhead_handler {
	OVERHEAD_HANDLER_SWEVENT, /* perf_swevent_hrtimer: software sampling */
	OVERHEAD_HANDLER_NMI,     /* perf_event_nmi_handler: hardware sampling */
	OVERHEAD_HANDLER_MUX,     /* perf_mux_hrtimer_handler: multiplexing rotation */
	OVERHEAD_HANDLER_NR,
};

struct overhead_handler_stats {
	u64 nr; /* handler runs */
	u64 ns; /* their total time */
};

/* Cumulative figures of one CPU since overhead_collector_start(). */
struct overhead_cpu_stats {
	int cpu;
	struct overhead_handler_stats h[OVERHEAD_HANDLER_NR];
	/*
	 * Tracepoint source only: records the kernel dropped because the collector's ring buffer
	 * was full. Handler runs in them are missing from the figures above; 0 for bpf.
	 */
	u64 lost;
};

struct overhead_collector;

/**
 * overhead_source_parse - parse auto, bpf, tracepoint or none (--overhead-source).
 *
 * Return: 0, or -EINVAL for anything else.
 */
int overhead_source_parse(const char *s, enum overhead_source *out);

/**
 * overhead_source_name - "auto", "bpf", "tracepoint" or "none": the source field of prec:overhead.
 *
 * Return: a static string.
 */
const char *overhead_source_name(enum overhead_source source);

/**
 * overhead_handler_name - "swevent", "nmi" or "mux".
 *
 * Return: a static string.
 */
const char *overhead_handler_name(enum overhead_handler h);

/**
 * overhead_collector_open - prepare a collector for a set of CPUs; nothing is counted before
 * overhead_collector_start().
 * @cpup: where the collector goes
 * @cpus: the CPU numbers to collect for (the recording's CPUs), nr_cpus of them
 * @want: auto tries bpf then tracepoint; bpf, tracepoint or none asks for that one only
 *
 * A collector is returned even when no source could be used: its source is then
 * OVERHEAD_SOURCE_NONE and overhead_collector_reason() says why, so that the costs can be recorded
 * as unavailable with that reason.
 *
 * Return: 0 when the source asked for (for auto: either) is ready, or when none was asked for;
 * a negative errno when it could not be used (*cpup is still a usable collector with source
 * none); -ENOMEM or -EINVAL with *cpup set to NULL.
 */
int overhead_collector_open(struct overhead_collector **cpup, const int *cpus, int nr_cpus,
			    enum overhead_source want);

/**
 * overhead_collector_start - begin counting (again, after a stop: figures stay cumulative).
 *
 * Return: 0, or a negative errno (the reason is kept).
 */
int overhead_collector_start(struct overhead_collector *c);

/**
 * overhead_collector_stop - stop counting; the figures stay readable.
 *
 * Return: 0, or a negative errno.
 */
int overhead_collector_stop(struct overhead_collector *c);

/**
 * overhead_collector_read - the cumulative figures of every CPU of the collector.
 * @stats: overhead_collector_nr_cpus() entries, in the order of the cpus given to open
 *
 * Figures of a handler the collector cannot see (overhead_collector_handler_reason() is not NULL)
 * are 0 and mean nothing.
 *
 * Return: 0; -ENODATA when the source is none; another negative errno when reading failed.
 */
int overhead_collector_read(struct overhead_collector *c, struct overhead_cpu_stats *stats);

/**
 * overhead_collector_source - the source that runs: bpf, tracepoint or none.
 */
enum overhead_source overhead_collector_source(const struct overhead_collector *c);

/**
 * overhead_collector_reason - why the source asked for could not be used, in one line ("" when it
 * runs). With auto and the tracepoint fallback running, it says why bpf was not used.
 *
 * Return: a string owned by the collector.
 */
const char *overhead_collector_reason(const struct overhead_collector *c);

/**
 * overhead_collector_handler_reason - why one handler cannot be measured although the source runs
 * (its symbol missing from /proc/kallsyms, its tracepoint missing from the kernel).
 *
 * Return: NULL when the handler is measured, else a string owned by the collector.
 */
const char *overhead_collector_handler_reason(const struct overhead_collector *c,
					      enum overhead_handler h);

/**
 * overhead_collector_nr_cpus - the number of CPUs given to overhead_collector_open().
 */
int overhead_collector_nr_cpus(const struct overhead_collector *c);

/**
 * overhead_collector_close - stop if needed and free everything; NULL is fine.
 */
void overhead_collector_close(struct overhead_collector *c);

#endif
