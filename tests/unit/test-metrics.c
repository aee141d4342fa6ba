// SPDX-License-Identifier: GPL-2.0
/*
 * The window rules of prec report --metrics (report/metrics.h), driven with built inputs: a key's
 * first sample starts a window, the next ends it with per-member deltas and whether the thread
 * stayed in one function; a throttled sample or a counter that went back ends no window and
 * restarts the key; a leader alternates when a quarter of its windows are below half its period;
 * the operands of the derived metrics are known by their attr, or a PMU event's by its name.
 */
#include <stdio.h>
#include <string.h>

#include "report/metrics.h"
#include "tests/tap.h"

static u64 state[3], deltas[3];
static struct metrics_key key = {.values = state};
static bool same;

/* The next sample of the one key: its values of the three members, its function. */
static enum metrics_step step(u64 a, u64 b, u64 c, u32 func, bool throttled)
{
	const u64 v[3] = {a, b, c};

	return metrics_step(&key, v, 3, func, throttled, deltas, &same);
}

/* The operand metrics_event_op() finds for an event of type and config named name. */
static int op(u32 type, u64 config, const char *name)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = config;
	return metrics_event_op(&a, name);
}

int main(void)
{
	is(step(100, 10, 1, 7, false), METRICS_START,
	   "the first sample of a key only starts a window");
	is(step(400, 30, 1, 7, false), METRICS_WINDOW, "the second ends a window");
	ok(deltas[0] == 300 && deltas[1] == 20 && deltas[2] == 0,
	   "its deltas are the read values minus the previous sample's");
	ok(same, "in the same function as the previous sample");
	is(step(700, 50, 2, 8, false), METRICS_WINDOW,
	   "a window that crosses functions is still a window");
	ok(!same, "... that says it crossed them");
	is(step(900, 60, 3, 8, true), METRICS_THROTTLED, "a throttled sample ends no window");
	is(step(1000, 70, 3, 8, false), METRICS_WINDOW,
	   "the throttled sample started the next window");
	ok(deltas[0] == 100 && deltas[1] == 10 && same, "from its values and function");
	is(step(1200, 5, 4, 8, false), METRICS_THROTTLED,
	   "a member that went back (a reset) ends no window");
	is(step(1300, 9, 4, 8, false), METRICS_WINDOW,
	   "and restarts it from the values after the reset");
	ok(deltas[0] == 100 && deltas[1] == 4, "deltas from the reset values");

	ok(metrics_is_short(1000000, 300) && !metrics_is_short(1000000, 999700),
	   "300 of 1000000 is a short window, 999700 a long one");
	ok(!metrics_is_short(1000000, 500000) && metrics_is_short(1000001, 500000),
	   "short is below half the period");
	ok(!metrics_is_short(1000, 5000), "a window longer than the period is long");
	ok(metrics_is_short(0, 5000000), "at a frequency every window is short");
	ok(metrics_alternates(1000000, 23, 12), "half the windows short: alternating");
	ok(metrics_alternates(1000000, 8, 2), "a quarter short: alternating");
	ok(!metrics_alternates(1000000, 9, 2), "less than a quarter: not alternating");
	ok(!metrics_alternates(0, 10, 10), "a frequency never alternates");
	ok(!metrics_alternates(1000000, 0, 0), "nor does a leader without windows");

	is(op(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles:u"), METRICS_OP_CYCLES,
	   "a hardware event is an operand by its attr: cpu-cycles:u is cycles");
	is(op(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "insns"), METRICS_OP_INSTRUCTIONS,
	   "whatever its name");
	is(op(PERF_TYPE_HARDWARE, (8ULL << 32) | PERF_COUNT_HW_CACHE_MISSES, "cpu_core/x/"),
	   METRICS_OP_CACHE_MISSES, "with a PMU type in the config's high bits too");
	is(op(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "cycles"), -1,
	   "bus-cycles is no operand, whatever its name");
	is(op(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "cycles"), -1,
	   "nor is a software event named cycles");
	is(op(8, 0x3c, "cpu/cycles/"), METRICS_OP_CYCLES, "a PMU's event by its name");
	is(op(8, 0x3c, "cpu/cycles,period=100/u"), METRICS_OP_CYCLES,
	   "a PMU's event name stops at its terms");
	is(op(8, 0xc0, "cpu/instructions=1/"), METRICS_OP_INSTRUCTIONS, "and at a term's value");
	is(op(8, 0xc5, "cpu/branch-misses/u"), METRICS_OP_BRANCH_MISSES, "cpu/branch-misses/u");
	is(op(PERF_TYPE_RAW, 0xc5, "r00c5"), -1, "a raw event without an operand's name is none");
	return done_testing();
}
