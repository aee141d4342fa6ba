/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter readings of prec record: --count EVENTS adds counting-only events, and every
 * event of the recording, counting or sampling, is read every --count-interval and at the end.
 * The readings go into the file as perf stat record writes them (man/prec-data.5, COUNTER
 * READINGS): one STAT_CONFIG after the recorder's THREAD_MAP and CPU_MAP, a PERF_RECORD_STAT per
 * event, CPU and thread with cumulative value, time enabled and time running, and a STAT_ROUND
 * (INTERVAL, or FINAL at the end) after each set.
 *
 * A hook of the record session (record/hook.h):
 *
 *	declare	read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID on every event the recorder
 *		opens; one attr per --count event (sample_period 0)
 *	open	the sharing plan (counters_plan()), then the counters that are not shared opened
 *		as perf stat opens them (per CPU with -a or -C, per thread on any CPU for a task;
 *		disabled, enable_on_exec with a workload, inherit unless -i or -t), and every
 *		counting attr given its ids: the kernel's for its own counter, made-up ones
 *		(PD_PREC_SHARED_ID_BASE up) where it shares
 *	prepare	tracepoint formats of counted tracepoints
 *	start	STAT_CONFIG; the counters enabled when there is no workload to enable them
 *	tick	one reading of everything, STAT_ROUND INTERVAL
 *	stop	the counters disabled, the last reading, STAT_ROUND FINAL
 *
 * With -a or -C the readings are per CPU. For a task target (a command, -p, -t) every reading
 * is per thread on any CPU (-1, the file's CPU_MAP then says -1). A --count event is opened as
 * perf stat opens it: one counter per thread on CPU -1 (inherit unless -i or -t), so that one
 * read() gives its value, time enabled and time running. The recorder's own events are opened
 * on every CPU for each thread, as perf record opens them, and a thread's counters on all CPUs
 * make one reading (counters_combine()).
 *
 * Nothing is read unless --count or --count-interval is given: a plain recording stays what
 * perf record writes.
 */
#ifndef PREC_RECORD_COUNTERS_H
#define PREC_RECORD_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "format/ondisk.h"

struct record_hook;

/* The default --count-interval. */
#define COUNTERS_INTERVAL_DEFAULT_NS 1000000000ULL

/* The hook, for the command's table of hooks; it reads its options from the session's. */
extern const struct record_hook counters_hook;

/* What an event is to the sharing rule. */
enum counters_kind {
	COUNTERS_SAMPLING, /* samples: never shared, never shares */
	COUNTERS_OPENED,   /* counts, opened by the recorder (-e ... :S members): may be shared */
	COUNTERS_COUNT,    /* --count: may share an earlier compatible counter */
};

/**
 * counters_compatible - may one counter stand for both events? Both count (no period, no
 * frequency) with the same type, config, config1, config2, bp_type, exclusion bits (user,
 * kernel, hv, idle, host, guest), precise_ip, pinned and exclusive, and the same scope: with
 * a task target the same inherit (with cpu_wide, pid -1 on each CPU, inherit means nothing).
 */
bool counters_compatible(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide);

/* One of a thread's per-CPU counters, as counters_combine() takes it. */
struct counters_part {
	u64 id;           /* its id in the file; 0 where the event is not read on that CPU */
	bool ok;          /* there is a reading (the last read() that succeeded) */
	u64 val, ena, run; /* since the logical event was enabled */
};

/**
 * counters_combine - a task's counters on each CPU (the recorder's events of a task target) as
 * the one reading on any CPU that perf stat's counter per thread would give.
 * @p: nr parts, one per CPU
 * @never_mux: the event cannot be multiplexed (software or tracepoint, in a recording of only
 *	       such events)
 * @gap: the enabled - running of this reading's previous round (0 at first); updated
 * @st: set: id (the first nonzero part id, whether or not its CPU was read: a reading keeps
 *	one id), cpu -1, val, ena, run; thread is left 0 for the caller
 *
 * The values and the running times add up. The time enabled is the task's on every CPU (a CPU
 * the task did not run on sees its counter enabled and not running), so it would be taken once,
 * but each CPU's is read at a slightly different moment, and the kernel brings an inherited
 * child's time enabled forward only when the child runs or exits there (with children running
 * at once on two CPUs the largest was seen 70 us behind the sum of running times). So: with
 * never_mux, enabled = running (it ran whenever it was enabled); otherwise the largest, at least
 * the summed running time, and never leading running by less than in the previous round, so
 * that no interval runs longer than it was enabled and an event that was not multiplexed shows
 * no running share below 100% that perf stat report would print and scale by.
 *
 * Return: true when some part was read (st is set), false when none was.
 */
bool counters_combine(const struct counters_part *p, int nr, bool never_mux, u64 *gap,
		      struct pd_stat_body *st);

/**
 * counters_plan - which counter each event reads.
 * @attrs: n attrs in file order
 * @kind: what each one is
 * @shared_with: set per event: the index of the earlier event whose counter it reads (one that
 *		 opens its own), or -1 when it opens its own (always -1 but for COUNTERS_COUNT)
 */
void counters_plan(const struct perf_event_attr *const *attrs, const enum counters_kind *kind,
		   int n, bool cpu_wide, int *shared_with);

#endif
