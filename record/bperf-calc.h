/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of --bpf-counters, shared by the reader program (record/bperf.bpf.c) and its
 * unit test: one machine-wide counter per CPU, read at every context switch, and each session's
 * share of it. At a switch the task leaving the CPU is the one that ran since the previous
 * reading on that CPU, so the difference between the two readings is that task's; a session
 * adds it to its own accumulator when the task is one it follows. A logical event's count is
 * thus the sum of the shared counter's differences over the intervals in which that event was
 * enabled for a task of its target; the counter itself is never reset, so any number of
 * sessions read it, each from its own start.
 */
#ifndef PREC_RECORD_BPERF_CALC_H
#define PREC_RECORD_BPERF_CALC_H

#ifndef __bpf__
#include <linux/types.h>
#include <stdbool.h>
#endif

/* One reading of a counter: what bpf_perf_event_read_value() gives (counter, enabled, running). */
struct bperf_reading {
	__u64 val;
	__u64 ena;
	__u64 run;
};

/* A session's last reading on one CPU; valid is 0 until the first reading there. */
struct bperf_prev {
	struct bperf_reading r;
	__u64 valid;
};

/* What one session counted on one CPU since it started. */
struct bperf_accum {
	struct bperf_reading sum;
	__u64 intervals; /* the intervals added */
};

/* How a session picks the intervals that are its target's (the reader's mode). */
enum bperf_mode {
	BPERF_ALL = 0,   /* every CPU (-a) */
	BPERF_CPUS = 1,  /* the CPUs of a list (-C) */
	BPERF_TGIDS = 2, /* processes (-p, a workload) and, unless -i, the children they fork */
	BPERF_TIDS = 3,  /* threads (-t) */
};

/* The growth of a monotonic counter from a to b: never negative, whatever b is. */
static inline __u64 bperf_delta(__u64 a, __u64 b)
{
	return b > a ? b - a : 0;
}

/*
 * bperf_step - the counter read now on a CPU. The difference from the previous reading there
 * is added to acc when mine (the interval belonged to the session's target); the first reading
 * on a CPU adds nothing, it only marks where the session starts. The reading becomes the
 * previous one either way.
 */
static inline void bperf_step(struct bperf_prev *prev, const struct bperf_reading *now, bool mine,
			      struct bperf_accum *acc)
{
	if (prev->valid && mine) {
		acc->sum.val += bperf_delta(prev->r.val, now->val);
		acc->sum.ena += bperf_delta(prev->r.ena, now->ena);
		acc->sum.run += bperf_delta(prev->r.run, now->run);
		acc->intervals++;
	}
	prev->r = *now;
	prev->valid = 1;
}

#endif
