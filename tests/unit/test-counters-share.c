// SPDX-License-Identifier: GPL-2.0
/*
 * The sharing rule of prec record --count (record/counters.c): which counting events may read one
 * counter, and which counter each reads, on attrs as the event parser makes them; and how a
 * task's counters on each CPU make one reading (counters_combine()).
 */
#include <string.h>

#include "record/counters.h"
#include "record/parse-events.h"
#include "tests/tap.h"

/* The attr of the only event of str, as a counting event. */
static struct perf_event_attr counting(const char *str)
{
	struct event_list l = { 0 };
	struct parse_error err;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	if (parse_events(&l, str, &err) || l.nr != 1) {
		diag("cannot parse %s: %s", str, err.msg);
		a.type = 0xdead;
		return a;
	}
	a = l.ev[0].attr;
	a.sample_period = 0;
	a.freq = 0;
	a.inherit = 1;
	event_list_free(&l);
	return a;
}

/* Plan a list of events; kinds as a string: s sampling, o opened (-e :S member), c --count. */
static void plan(const char *const *events, const char *kinds, bool cpu_wide, int *out)
{
	int n = (int)strlen(kinds);
	struct perf_event_attr attrs[16];
	const struct perf_event_attr *p[16];
	enum counters_kind kind[16];

	for (int i = 0; i < n; i++) {
		attrs[i] = counting(events[i]);
		if (kinds[i] == 's') {
			attrs[i].freq = 1;
			attrs[i].sample_freq = 4000;
		}
		kind[i] = kinds[i] == 's' ? COUNTERS_SAMPLING
			  : kinds[i] == 'o' ? COUNTERS_OPENED
					    : COUNTERS_COUNT;
		p[i] = &attrs[i];
	}
	counters_plan(p, kind, n, cpu_wide, out);
}

/* counters_combine() on built per-CPU readings of one thread. */
static void test_combine(void)
{
	struct counters_part p[2];
	struct pd_stat_body st;
	u64 gap = 0;

	/* Read a few us apart: CPU 1's time enabled leads the sum of running by 3000 ns. */
	memset(p, 0, sizeof(p));
	p[0] = (struct counters_part){101, true, 600, 1000000, 600000};
	p[1] = (struct counters_part){102, true, 400, 1003000, 400000};
	ok(counters_combine(p, 2, true, &gap, &st), "combine: read");
	is(st.id, 101, "combine: the first CPU's id");
	is(st.cpu, (u32)-1, "combine: on any CPU");
	is(st.val, 1000, "combine: the values add up");
	is(st.run, 1000000, "combine: the running times add up");
	is(st.ena, st.run, "combine: software never multiplexes: enabled = running, no share");

	/* CPU 0's read() failed (not ok): the reading keeps its id, no double key. */
	p[0].ok = false;
	ok(counters_combine(p, 2, true, &gap, &st), "combine: one CPU read");
	is(st.id, 101, "combine: a failed read on the first CPU does not change the id");
	is(st.val, 400, "combine: ... and only the CPU read counts");
	p[1].ok = false;
	ok(!counters_combine(p, 2, true, &gap, &st), "combine: nothing read, no reading");
	p[0].id = 0;
	p[0].ok = true;
	p[1].ok = true;
	ok(counters_combine(p, 2, true, &gap, &st) && st.id == 102,
	   "combine: not read on the first CPU at all: the next CPU's id");

	/* Other events: the largest enabled time, the lead over running never shrinking. */
	p[0] = (struct counters_part){101, true, 600, 1000000, 500000};
	p[1] = (struct counters_part){102, true, 400, 1003000, 400000};
	gap = 0;
	ok(counters_combine(p, 2, false, &gap, &st), "combine (may multiplex): read");
	is(st.ena, 1003000, "combine (may multiplex): the largest time enabled");
	is(gap, 103000, "combine (may multiplex): its lead over running kept");
	/* Next round: a lagging time enabled would make the lead shrink to 1000 ns. */
	p[0] = (struct counters_part){101, true, 1200, 2000000, 1000000};
	p[1] = (struct counters_part){102, true, 800, 2001000, 1000000};
	ok(counters_combine(p, 2, false, &gap, &st), "combine (may multiplex): next round");
	is(st.run, 2000000, "combine (may multiplex): running summed");
	is(st.ena, 2103000, "combine (may multiplex): enabled keeps the lead of 103000 ns");
	ok(st.ena - 1003000 >= st.run - 900000,
	   "combine (may multiplex): the interval ran no longer than it was enabled");
	/* Running above the largest enabled (an inherited child's lag): enabled is raised. */
	gap = 0;
	p[0] = (struct counters_part){101, true, 10, 1000, 900};
	p[1] = (struct counters_part){102, true, 10, 1000, 900};
	ok(counters_combine(p, 2, false, &gap, &st) && st.ena == 1800 && st.run == 1800,
	   "combine (may multiplex): never running longer than enabled");
}

int main(void)
{
	struct perf_event_attr a, b;
	int sw[16];

	/* The generic events only: nothing here depends on the machine's PMUs. */
	setenv("PREC_SYSFS_ROOT", "/nonexistent", 1);
	a = counting("task-clock");
	b = counting("task-clock");

	ok(counters_compatible(&a, &b, false), "task-clock and task-clock share");
	b = counting("task-clock:u");
	ok(!counters_compatible(&a, &b, false), "task-clock:u does not (exclude_kernel differs)");
	b = counting("task-clock:k");
	ok(!counters_compatible(&a, &b, false), "task-clock:k does not (exclude_user differs)");
	b = counting("task-clock:G");
	ok(!counters_compatible(&a, &b, false), "task-clock:G does not (exclude_host/guest)");
	b = counting("page-faults");
	ok(!counters_compatible(&a, &b, false), "page-faults is another config");
	b = counting("cpu-clock");
	ok(!counters_compatible(&a, &b, false), "cpu-clock is another config");
	b = counting("r1a8");
	ok(!counters_compatible(&a, &b, false), "a raw event is another type");
	b = counting("task-clock");
	b.inherit = 0;
	ok(!counters_compatible(&a, &b, false), "inherit differs: another scope on a task");
	ok(counters_compatible(&a, &b, true), "... but not system-wide, where inherit means nothing");
	b = counting("task-clock:D");
	ok(!counters_compatible(&a, &b, false), "a pinned request keeps its own counter");
	b = counting("task-clock");
	b.sample_period = 1000;
	ok(!counters_compatible(&a, &b, false), "a sampling event is never shared");
	b = counting("task-clock");
	b.freq = 1;
	b.sample_freq = 4000;
	ok(!counters_compatible(&b, &b, false), "... not even with itself");
	a = counting("r1a8");
	b = counting("r1a8");
	b.config1 = 1;
	ok(!counters_compatible(&a, &b, false), "config1 differs");
	b = counting("r1a8");
	b.config2 = 1;
	ok(!counters_compatible(&a, &b, false), "config2 differs");

	{
		/* --count task-clock,task-clock,{task-clock,page-faults},
		 * task-clock:u after a sampling cpu-clock. */
		const char *ev[] = { "cpu-clock", "task-clock", "task-clock", "task-clock",
				     "page-faults", "task-clock:u" };

		plan(ev, "scccc" "c", false, sw);
		is(sw[0], -1, "the sampling event opens its own");
		is(sw[1], -1, "the first task-clock opens the counter");
		is(sw[2], 1, "the second reads it");
		is(sw[3], 1, "the one in a group reads it too");
		is(sw[4], -1, "page-faults opens its own");
		is(sw[5], -1, "task-clock:u opens its own");
	}
	{
		/* A sampling task-clock is never the counter of a --count task-clock. */
		const char *ev[] = { "task-clock", "task-clock", "task-clock" };

		plan(ev, "scc", false, sw);
		is(sw[1], -1, "a --count event never reads a sampling event's counter");
		is(sw[2], 1, "the next compatible one reads the first --count one");
	}
	{
		/* -e '{cpu-clock,task-clock}:S' --count task-clock: the member counts with inherit
		 * 0 on a task, so only system-wide does the --count event read it. */
		const char *ev[] = { "cpu-clock", "task-clock", "task-clock" };
		struct perf_event_attr attrs[3];
		const struct perf_event_attr *p[3] = { &attrs[0], &attrs[1], &attrs[2] };
		enum counters_kind kind[3] = { COUNTERS_SAMPLING, COUNTERS_OPENED, COUNTERS_COUNT };

		for (int i = 0; i < 3; i++)
			attrs[i] = counting(ev[i]);
		attrs[0].freq = 1;
		attrs[0].sample_freq = 4000;
		attrs[1].inherit = 0;
		counters_plan(p, kind, 3, false, sw);
		is(sw[2], -1, "a task target: the :S member (no inherit) is another scope");
		counters_plan(p, kind, 3, true, sw);
		is(sw[2], 1, "system-wide: the --count event reads the :S member's counter");
		is(sw[1], -1, "the recorder's own counting event never reads another");
	}
	{
		const char *ev[] = { "sched:sched_switch", "sched:sched_switch" };
		struct perf_event_attr attrs[2];
		const struct perf_event_attr *p[2] = { &attrs[0], &attrs[1] };
		enum counters_kind kind[2] = { COUNTERS_OPENED, COUNTERS_COUNT };

		memset(attrs, 0, sizeof(attrs));
		for (int i = 0; i < 2; i++) {
			attrs[i].type = PERF_TYPE_TRACEPOINT;
			attrs[i].config = 300;
			attrs[i].inherit = 1;
		}
		(void)ev;
		counters_plan(p, kind, 2, false, sw);
		is(sw[1], -1, "an -e tracepoint may carry a filter: never read for --count");
		kind[0] = COUNTERS_COUNT;
		counters_plan(p, kind, 2, false, sw);
		is(sw[1], 0, "two --count tracepoints share");
	}
	test_combine();
	return done_testing();
}
