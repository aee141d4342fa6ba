// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of --bpf-counters (record/bperf-calc.h), which the reader program runs at
 * every context switch: built readings of a shared counter, and what each session adds up.
 */
#include <stdlib.h>
#include <string.h>

#include "record/bperf-calc.h"
#include "tests/tap.h"

static struct bperf_reading rd(__u64 val, __u64 ena, __u64 run)
{
	struct bperf_reading r = { val, ena, run };

	return r;
}

/* The first reading on a CPU only marks the start; the next ones add their growth. */
static void first_reading(void)
{
	struct bperf_prev p = { 0 };
	struct bperf_accum a = { 0 };
	struct bperf_reading r = rd(1000, 500, 400);

	bperf_step(&p, &r, true, &a);
	is(a.sum.val, 0, "the first reading on a CPU counts nothing");
	is(a.intervals, 0, "and adds no interval");
	ok(p.valid && p.r.val == 1000, "it becomes the previous reading");
	r = rd(1300, 800, 650);
	bperf_step(&p, &r, true, &a);
	is(a.sum.val, 300, "the next one adds the counter's growth");
	is(a.sum.ena, 300, "enabled time's growth");
	is(a.sum.run, 250, "running time's growth");
}

/* A monotonic sequence all of the session's: the sum is the last reading minus the first. */
static void monotonic(void)
{
	struct bperf_prev p = { 0 };
	struct bperf_accum a = { 0 };
	__u64 v = 1ULL << 40, e = 7, first = v, first_e = e;

	srand(13);
	for (int i = 0; i < 10000; i++) {
		struct bperf_reading r;

		v += (__u64)(rand() % 100000);
		e += (__u64)(rand() % 1000) + 1;
		r = rd(v, e, e);
		if (!i) {
			first = v;
			first_e = e;
		}
		bperf_step(&p, &r, true, &a);
	}
	is(a.sum.val, v - first, "10000 readings: the sum of differences is last - first");
	is(a.sum.ena, e - first_e, "and so is enabled time");
	is(a.intervals, 9999, "one interval between each two readings");
}

/* Intervals in which another task ran count for nobody but its own sessions. */
static void other_task(void)
{
	struct bperf_prev p = { 0 };
	struct bperf_accum a = { 0 };
	struct bperf_reading r[] = { rd(100, 0, 0), rd(150, 10, 10), rd(400, 20, 20),
				     rd(410, 30, 30), rd(1000, 40, 40) };
	bool mine[] = { true, true, false, true, false };

	for (int i = 0; i < 5; i++)
		bperf_step(&p, &r[i], mine[i], &a);
	/* mine[i] says who ran from reading i-1 to reading i. */
	is(a.sum.val, 50 + 10, "only the intervals of the target's task are added");
	is(a.sum.ena, 20, "with their enabled time");
	is(a.intervals, 2, "two intervals");
}

/* A counter read lower than before (it never should) adds nothing rather than wrapping. */
static void never_negative(void)
{
	struct bperf_prev p = { 0 };
	struct bperf_accum a = { 0 };
	struct bperf_reading r1 = rd(500, 100, 100), r2 = rd(400, 90, 90), r3 = rd(450, 95, 95);

	bperf_step(&p, &r1, true, &a);
	bperf_step(&p, &r2, true, &a);
	is(a.sum.val, 0, "a lower reading adds nothing");
	bperf_step(&p, &r3, true, &a);
	is(a.sum.val, 50, "the growth after it counts from it");
}

#define NR_CPUS 3
#define NR_SWITCHES 2000

/*
 * The rule: a logical event's count is the sum of the shared counter's differences over that
 * event's own enabled intervals. Two CPUs' counters grow at random; at every switch a random task
 * (of 4) leaves; three sessions that start and stop at different switches count task 1, task 2
 * and every task. Each must equal the sum computed directly from the built counter.
 */
static void shared_rule(void)
{
	struct {
		int who, start, stop;
	} s[] = { { 1, 0, NR_SWITCHES }, { 2, 300, 1700 }, { -1, 1000, NR_SWITCHES } };
	struct bperf_prev prev[3][NR_CPUS];
	struct bperf_accum acc[3][NR_CPUS];
	__u64 counter[NR_CPUS] = { 0 }, want[3] = { 0 }, got[3] = { 0 };
	__u64 ena[NR_CPUS] = { 0 }, want_ena[3] = { 0 }, got_ena[3] = { 0 };
	bool seen[3][NR_CPUS];

	memset(prev, 0, sizeof(prev));
	memset(acc, 0, sizeof(acc));
	memset(seen, 0, sizeof(seen));
	srand(1);
	for (int i = 0; i < NR_SWITCHES; i++) {
		int cpu = rand() % NR_CPUS, task = rand() % 4;
		__u64 grow = (__u64)(rand() % 5000), time = (__u64)(rand() % 300) + 1;
		struct bperf_reading r;

		counter[cpu] += grow;
		ena[cpu] += time;
		r = rd(counter[cpu], ena[cpu], ena[cpu]);
		for (int k = 0; k < 3; k++) {
			bool on = i >= s[k].start && i < s[k].stop;
			bool target = s[k].who < 0 || s[k].who == task;

			/*
			 * Enabled: the session's reader runs. Its first reading on a CPU only
			 * starts it there, so the interval that ends at it is not the session's.
			 */
			if (!on)
				continue;
			if (seen[k][cpu] && target) {
				want[k] += grow;
				want_ena[k] += time;
			}
			seen[k][cpu] = true;
			bperf_step(&prev[k][cpu], &r, target, &acc[k][cpu]);
		}
	}
	for (int k = 0; k < 3; k++) {
		for (int c = 0; c < NR_CPUS; c++) {
			got[k] += acc[k][c].sum.val;
			got_ena[k] += acc[k][c].sum.ena;
		}
	}
	is(got[0], want[0], "a session on one task: the sum over its intervals");
	is(got[1], want[1], "a session started and stopped later: only its own intervals");
	is(got[2], want[2], "a machine-wide session started late: every interval from its start");
	is(got_ena[1], want_ena[1], "enabled time over the same intervals");
	ok(want[0] && want[1] && want[2], "every session counted something");
	ok(got[2] < counter[0] + counter[1] + counter[2], "the late session misses what came before");
}

int main(void)
{
	first_reading();
	monotonic();
	other_task();
	never_negative();
	shared_rule();
	return done_testing();
}
