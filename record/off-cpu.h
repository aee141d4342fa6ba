/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --off-cpu: where the recorded tasks waited, as perf record --off-cpu writes it. A BPF program
 * on sched_switch (record/off-cpu.bpf.c) adds up, per thread, user stack and sleep state, the
 * time a task spent off the CPU; at the end the hook writes one sample per such key of the
 * event perf names offcpu-time (a bpf-output software event, never opened), whose period is
 * that time in ns, with the user stack as its callchain.
 *
 *	declare	the offcpu-time attr, as perf's evsel__config() leaves it; the program loaded
 *	open	the filters filled (the workload and the processes it forks, -p/-t/-u threads,
 *		-C CPUs, -G cgroups), the programs attached
 *	start	counting on
 *	stop	counting off, the samples written, the keys the map could not hold reported
 *
 * Built only with BPF (HAVE_BPF); without it the command refuses --off-cpu before recording.
 */
#ifndef PREC_RECORD_OFF_CPU_H
#define PREC_RECORD_OFF_CPU_H

struct record_hook;

/* perf's name of the event. */
#define OFFCPU_EVENT "offcpu-time"

/* The hook, for the command's table of hooks; it turns itself off without --off-cpu. */
extern const struct record_hook off_cpu_hook;

#endif
