/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record side of the overhead measurement: a hook of prec record (record/hook.h) that
 * measures, per CPU, what the profiling costs while it records, and writes it into the file as
 * prec:overhead samples (overhead/event.h) every --overhead-interval and at the end, with the
 * facts of the recording in the PD_FEAT_PREC section (overhead/facts.h).
 *
 *	declare	the prec:overhead attr
 *	prepare	the collector opened (overhead/collect.h), the calibrations run while the CPUs are
 *		quiet (overhead/calibrate.h: stolen time per sample, side-band cost per record, and
 *		the tracepoint collector's own cost), the format of prec:overhead added
 *	start	the collector started, the baselines taken, a COMM for the recorder's own pid
 *	tick	one prec:overhead sample per CPU and type, and per session type, each a delta
 *	stop	the last interval, the facts section, and one line that says what was measured
 *
 * When no collector can run (no privileges, no BPF and no tracepoints), the kernel-side costs are
 * written as unavailable with the reason, never as 0; the rest is measured as usual.
 * --overhead-source=none turns the measurement off: no collector, no calibration, no
 * prec:overhead event (the attrs stay exactly perf record's), only the facts section, which says
 * so.
 */
#ifndef PREC_RECORD_OVERHEAD_H
#define PREC_RECORD_OVERHEAD_H

struct record_hook;

/* The default --overhead-interval. */
#define OVERHEAD_INTERVAL_DEFAULT_NS 1000000000ULL

/* The hook, for the command's table of hooks; it reads its options from the session's. */
extern const struct record_hook overhead_hook;

#endif
