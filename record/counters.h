/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter readings of prec record: --count EVENTS adds counting-only events, and every
 * event of the recording, counting or sampling, is read every --count-interval and at the end.
 * The readings go into the file as perf stat record writes them (man/prec-data.5, COUNTER
 * READINGS): one STAT_CONFIG after the recorder's THREAD_MAP and CPU_MAP, a PERF_RECORD_STAT per
 * event, CPU and thread with cumulative value, time enabled and time running, and a STAT_ROUND
 * (INTERVAL, or FINAL at the end) after each set.
 *
 * A hook of the record session (record/hook.h), the glue between the session and the counting
 * engine (record/counting.h), which opens, shares and reads the counters:
 *
 *	declare	read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID on every event the recorder
 *		opens; one attr per --count event (sample_period 0)
 *	open	the engine fed the recorder's events (their fds) and the --count events in attr
 *		order; it plans the sharing (counters_plan()) and opens the counters that are not
 *		shared as perf stat opens them (per CPU with -a or -C, per thread on any CPU for a
 *		task; disabled, enable_on_exec with a workload, inherit unless -i or -t); the plan
 *		published to the session (record_set_shared_with()), and every counting attr
 *		given its ids: the kernel's for its own counter, made-up ones
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
#include "record/counting.h"

struct record_hook;

/* The default --count-interval. */
#define COUNTERS_INTERVAL_DEFAULT_NS 1000000000ULL

/* The hook, for the command's table of hooks; it reads its options from the session's. */
extern const struct record_hook counters_hook;

#endif
