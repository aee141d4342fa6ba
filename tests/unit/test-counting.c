// SPDX-License-Identifier: GPL-2.0
/*
 * The counting engine (record/counting.c) on this process's own counters: which events are
 * counted and how, the slots and readings a counting command prints, the sharing of one counter
 * (the same read for both), a caller's per-CPU fds combined into one reading per thread, and the
 * events that cannot have a counter shared across sessions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "record/counting.h"
#include "tests/tap.h"
#include "util/log.h"
#include "util/perf-event.h"

#define NR_CPUS_MAX 64

/* Keep the CPU busy about ms milliseconds and take some page faults. */
static void work(int ms)
{
	size_t len = 64 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec t0, t;
	volatile unsigned long x = 0;

	if (p != MAP_FAILED) {
		for (size_t i = 0; i < len; i += 4096)
			p[i] = 1;
		munmap(p, len);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static struct perf_event_attr sw(u64 config, const struct counting_target *t)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	counting_attr_init(&a, t);
	return a;
}

/* Events of its own, one shared, one the kernel refuses; readings per slot and summed. */
static void test_own(void)
{
	static const pid_t self[] = { 0 };
	static const int cpu0[] = { 0 };
	struct counting_target t = { .cpus = cpu0, .nr_cpus = 1, .threads = self, .nr_threads = 1,
				     .inherit = true };
	struct perf_event_attr tc = sw(PERF_COUNT_SW_TASK_CLOCK, &t);
	struct perf_event_attr pf = sw(PERF_COUNT_SW_PAGE_FAULTS, &t);
	struct perf_event_attr bad = tc;
	struct counting_value v0, v1, v2, sum;
	struct counting *c = counting_new(&t);
	const char *why = "x";
	int e0, e1, e2, e3;
	u64 kid;

	bad.type = 0x7ffffff0; /* no such PMU */
	e0 = counting_add(c, &tc, "task-clock", -1);
	e1 = counting_add(c, &pf, "page-faults", -1);
	e2 = counting_add(c, &tc, "task-clock", -1);
	e3 = counting_add(c, &bad, "bad", -1);
	is(e3, 3, "events are indexed in the order added");
	is(counting_open(c), 0, "open");
	is(counting_add(c, &tc, "late", -1), -EBUSY, "no event added after open");
	ok(counting_supported(c, e0) && counting_supported(c, e1) && counting_supported(c, e2),
	   "task-clock and page-faults are counted");
	ok(!counting_supported(c, e3), "an event the kernel refuses is not supported");
	is(counting_via(c, e3, NULL), COUNTING_NONE, "... and counted no way");
	is(counting_nr_slots(c, e3), 0, "... with no slots");
	is(counting_via(c, e0, &why), COUNTING_OWN, "the first task-clock has its own counter");
	ok(why == NULL, "... and no reason to tell");
	is(counting_via(c, e2, NULL), COUNTING_SHARED, "the second reads a counter of another");
	is(counting_shared(c, e2), e0, "... the first task-clock's");
	is(counting_shared(c, e0), -1, "the first has none to read");
	is(counting_nr_slots(c, e0), 1, "a task target: one slot per thread");
	is(counting_slot_counter(c, e0, 0), 0, "the slot's counter");
	ok(counting_counter(c, e0, 0, &kid) && kid, "the counter has a kernel id");

	counting_enable(c);
	work(30);
	counting_read(c);
	ok(counting_reading(c, e0, 0, &v0), "task-clock is read");
	ok(v0.val >= 20000000 && v0.val <= 2000000000ULL, "... about the CPU time the work took");
	ok(v0.ena >= v0.run && v0.run > 0, "... with its times enabled and running");
	ok(counting_reading(c, e2, 0, &v2), "the shared task-clock is read");
	ok(v2.val == v0.val && v2.ena == v0.ena && v2.run == v0.run,
	   "... the same read: equal readings");
	ok(counting_reading(c, e1, 0, &v1) && v1.val >= 64, "page-faults counts the faults taken");
	ok(counting_total(c, e0, &sum) && sum.val == v0.val && sum.run == v0.run,
	   "the total of one slot is its reading");
	ok(!counting_reading(c, e0, 1, &v1), "no slot past the last");
	work(5);
	counting_disable(c);
	counting_read(c);
	ok(counting_reading(c, e0, 0, &v1) && v1.val > v0.val, "readings are cumulative");
	work(5);
	counting_read(c);
	ok(counting_reading(c, e0, 0, &v2) && v2.val == v1.val, "nothing counted once disabled");
	counting_free(c);
}

/* A caller's fds on each CPU, read as one reading per thread, and shared by a counting event. */
static void test_opened(void)
{
	static const pid_t self[] = { 0 };
	int cpus[NR_CPUS_MAX], fd[NR_CPUS_MAX];
	u64 id[NR_CPUS_MAX];
	int nr = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct counting_target t = { .cpus = cpus, .threads = self, .nr_threads = 1,
				     .inherit = true };
	struct perf_event_attr tc;
	struct counting_value v0, v1;
	struct counting *c;
	int own, rd;

	if (nr < 1 || nr > NR_CPUS_MAX)
		nr = 1;
	t.nr_cpus = nr;
	tc = sw(PERF_COUNT_SW_TASK_CLOCK, &t);
	tc.enable_on_exec = 0;
	for (int i = 0; i < nr; i++) {
		cpus[i] = i;
		id[i] = 0;
		fd[i] = perf_event_open_fd(&tc, 0, i, -1);
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]);
	}
	c = counting_new(&t);
	is(counting_add_opened(c, &tc, "task-clock", fd, id, nr + 1), -EINVAL,
	   "the caller's fds must be one per CPU and thread");
	own = counting_add_opened(c, &tc, "task-clock", fd, id, nr);
	rd = counting_add(c, &tc, "task-clock", -1);
	is(counting_open(c), 0, "open");
	is(counting_via(c, own, NULL), COUNTING_OWN, "the caller's event reads its own fds");
	is(counting_via(c, rd, NULL), COUNTING_SHARED, "a counting event reads the caller's counter");
	is(counting_nr_counters(c, rd), nr, "... one counter per CPU");
	is(counting_nr_slots(c, rd), 1, "... read as one slot for the thread");
	counting_enable(c);
	for (int i = 0; i < nr; i++)
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	work(30);
	for (int i = 0; i < nr; i++)
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	counting_read(c);
	ok(counting_reading(c, own, 0, &v0) && v0.val >= 20000000,
	   "the per-CPU counters add up to the CPU time the work took");
	ok(counting_reading(c, rd, 0, &v1) && v1.val == v0.val, "... and so does the shared event");
	ok(v0.ena >= v0.run, "... never running longer than enabled");
	counting_free(c);
	for (int i = 0; i < nr; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* Per CPU (-a): one slot per CPU, the total their sum. */
static void test_cpu_wide(void)
{
	static const pid_t any[] = { -1 };
	int cpus[NR_CPUS_MAX];
	int nr = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct counting_target t = { .cpus = cpus, .threads = any, .nr_threads = 1,
				     .cpu_wide = true };
	struct perf_event_attr cc;
	struct counting_value v, sum;
	struct counting *c;
	u64 val = 0, run = 0;
	int ev, read = 0;

	if (nr < 1 || nr > NR_CPUS_MAX)
		nr = 1;
	for (int i = 0; i < nr; i++)
		cpus[i] = i;
	t.nr_cpus = nr;
	cc = sw(PERF_COUNT_SW_CPU_CLOCK, &t);
	c = counting_new(&t);
	ev = counting_add(c, &cc, "cpu-clock", -1);
	is(counting_open(c), 0, "open per CPU");
	is(counting_nr_slots(c, ev), nr, "one slot per CPU");
	counting_enable(c);
	work(10);
	counting_read(c);
	for (int s = 0; s < nr; s++) {
		if (!counting_reading(c, ev, s, &v))
			continue;
		read++;
		val += v.val;
		run += v.run;
	}
	is(read, nr, "every CPU read");
	ok(counting_total(c, ev, &sum) && sum.val == val && sum.run == run,
	   "the total sums the CPUs' readings");
	counting_free(c);
}

/* Events that ask for a counter shared across sessions and cannot have one. */
static void test_shared_refused(void)
{
	static const pid_t self[] = { 0 };
	static const int cpu0[] = { 0 };
	struct counting_target t = { .cpus = cpu0, .nr_cpus = 1, .threads = self, .nr_threads = 1,
				     .inherit = true, .bpf_counters = true };
	struct perf_event_attr cs = sw(PERF_COUNT_SW_CONTEXT_SWITCHES, &t);
	struct perf_event_attr mig = sw(PERF_COUNT_SW_CPU_MIGRATIONS, &t);
	struct counting *c = counting_new(&t);
	const char *why = NULL;
	int leader, member;

	leader = counting_add(c, &cs, "context-switches", -1);
	member = counting_add(c, &mig, "cpu-migrations", leader);
	is(counting_open(c), 0, "open");
	is(counting_via(c, leader, &why), COUNTING_OWN, "a group leader counts with its own");
	ok(why && strstr(why, "group"), "... because of its group");
	is(counting_via(c, member, &why), COUNTING_OWN, "a group member counts with its own");
	ok(why && strstr(why, "group"), "... because of its group");
	counting_free(c);
}

int main(void)
{
	if (geteuid()) {
		skip("the counting engine", "needs root to count");
		return done_testing();
	}
	test_own();
	test_opened();
	test_cpu_wide();
	test_shared_refused();
	return done_testing();
}
