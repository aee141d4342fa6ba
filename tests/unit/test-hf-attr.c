// SPDX-License-Identifier: GPL-2.0
/*
 * The alternating period of the hf-period series: the 144-byte attr the kernel gets
 * (util/perf-event.h), the probe of the kernel's attr size and the open through a kernel played
 * by the test (record/evlist.c), the facts that carry it into the file and their reader.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "overhead/facts.h"
#include "record/evlist.h"
#include "record/parse-events.h"
#include "record/target.h"
#include "report/input.h"
#include "prec.h"
#include "tests/tap.h"
#include "util/perf-event.h"

/* The hf_sample word as the series' bit-fields put it on a little-endian machine. */
static void hf_word_le(unsigned int period, unsigned int rand, unsigned char out[8])
{
	unsigned long long w = (unsigned long long)period | (unsigned long long)rand << 32;

	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(w >> (8 * i));
}

static bool little_endian(void)
{
	unsigned int one = 1;

	return *(unsigned char *)&one == 1;
}

/* Every input byte kept but the size, zeros up to config3's end. */
static bool head_kept(const unsigned char *out, const struct perf_event_attr *in)
{
	const unsigned char *b = (const unsigned char *)in;
	size_t size_at = offsetof(struct perf_event_attr, size);
	__u32 size;

	memcpy(&size, out + size_at, sizeof(size));
	if (size != PERF_ATTR_HF_SIZE)
		return false;
	for (size_t i = 0; i < PERF_ATTR_HF_OFFSET; i++) {
		unsigned char want = i < sizeof(*in) ? b[i] : 0;

		if (i >= size_at && i < size_at + sizeof(size))
			continue;
		if (out[i] != want)
			return false;
	}
	return true;
}

static void test_build(void)
{
	static const struct {
		unsigned int period, rand;
		const char *what;
	} cases[] = {
	    {300, 0, "period only"},
	    {300, 4, "period and rand"},
	    {0xffffffffu, 0, "the largest period"},
	    {1, 15, "rand 15"},
	    {0xffffffffu, 15, "both at their largest"},
	};
	struct perf_event_attr in;
	unsigned char out[PERF_ATTR_HF_SIZE], want[8], before[PERF_ATTR_HF_SIZE];
	char desc[128];

	/* every byte of the input distinct from zero, so that a byte lost shows */
	for (size_t i = 0; i < sizeof(in); i++)
		((unsigned char *)&in)[i] = (unsigned char)(i * 7 + 1);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memset(out, 0xa5, sizeof(out));
		snprintf(desc, sizeof(desc), "build: %s", cases[k].what);
		is(perf_attr_hf_build(&in, cases[k].period, cases[k].rand, out), 0, desc);
		snprintf(desc, sizeof(desc),
			 "build: %s: the first %d bytes are the input's, size %d", cases[k].what,
			 PERF_ATTR_HF_OFFSET, PERF_ATTR_HF_SIZE);
		ok(head_kept(out, &in), desc);
		snprintf(desc, sizeof(desc), "build: %s: bytes %d..%d", cases[k].what,
			 PERF_ATTR_HF_OFFSET, PERF_ATTR_HF_SIZE - 1);
		if (!little_endian()) {
			skip(desc, "the expected bytes are written for little-endian");
			continue;
		}
		hf_word_le(cases[k].period, cases[k].rand, want);
		if (!ok(!memcmp(out + PERF_ATTR_HF_OFFSET, want, 8), desc))
			for (int i = 0; i < 8; i++)
				diag("byte %d: %#x, expected %#x", PERF_ATTR_HF_OFFSET + i,
				     out[PERF_ATTR_HF_OFFSET + i], want[i]);
	}
	memset(out, 0x5a, sizeof(out));
	memcpy(before, out, sizeof(out));
	is(perf_attr_hf_build(&in, 300, 16, out), -EINVAL, "build: rand 16 does not fit 4 bits");
	is(perf_attr_hf_build(&in, 0, 3, out), -EINVAL, "build: rand without a period");
	ok(!memcmp(out, before, sizeof(out)), "build: a refusal leaves the output alone");
}

/* ---- a kernel played by the test ---------------------------------------------------------- */

#define MAX_CALLS 8
static struct {
	/* read back as a struct perf_event_attr: aligned as one, in every element */
	unsigned char bytes[PERF_ATTR_HF_SIZE] __attribute__((aligned(8)));
	__u32 size;
	pid_t pid;
	int cpu;
} calls[MAX_CALLS];
static int nr_calls;
static int answer;	  /* 0: open it; else the errno to refuse with */
static int answer_second; /* likewise for the second probe (hf_sample_period 2000000) */

static void note_call(const struct perf_event_attr *attr, pid_t pid, int cpu)
{
	if (nr_calls >= MAX_CALLS)
		return;
	memset(calls[nr_calls].bytes, 0, sizeof(calls[nr_calls].bytes));
	memcpy(calls[nr_calls].bytes, attr,
	       attr->size < PERF_ATTR_HF_SIZE ? attr->size : PERF_ATTR_HF_SIZE);
	calls[nr_calls].size = attr->size;
	calls[nr_calls].pid = pid;
	calls[nr_calls].cpu = cpu;
	nr_calls++;
}

/* The hf_sample_period of an attr as the kernel got it, 0 for a short one. */
static uint32_t hf_of(const struct perf_event_attr *attr)
{
	uint32_t hf;

	if (attr->size < PERF_ATTR_HF_SIZE)
		return 0;
	memcpy(&hf, (const unsigned char *)attr + PERF_ATTR_HF_OFFSET, sizeof(hf));
	return hf;
}

/* Open attr on this machine's kernel without the bytes past config3 (it may not know them). */
static int open_short(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags)
{
	struct perf_event_attr a;

	memcpy(&a, attr, sizeof(a));
	a.size = sizeof(a) < PERF_ATTR_HF_OFFSET ? sizeof(a) : PERF_ATTR_HF_OFFSET;
	return sys_perf_event_open(&a, pid, cpu, group_fd, flags);
}

/*
 * A kernel with the hf_sample field: it keeps what it was given, refuses as the series does an
 * hf_sample_period not below a fixed period, and opens the event without the field, so that the
 * fd is a real event's.
 */
static int kernel_with_hf(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			  unsigned long flags)
{
	uint32_t hf = hf_of(attr);

	note_call(attr, pid, cpu);
	if (answer_second && hf >= 2000000) {
		errno = answer_second;
		return -1;
	}
	if (answer) {
		errno = answer;
		return -1;
	}
	if (hf && !attr->freq && hf >= attr->sample_period) {
		errno = EINVAL;
		return -1;
	}
	return open_short(attr, pid, cpu, group_fd, flags);
}

/*
 * A kernel with another field at byte 136 (config4 of Arm's SPE series), which cpu-clock
 * ignores: it opens whatever the word says.
 */
static int kernel_config4(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			  unsigned long flags)
{
	note_call(attr, pid, cpu);
	return open_short(attr, pid, cpu, group_fd, flags);
}

/* A kernel whose attr ends at config3: E2BIG for anything longer, its size written back. */
static int kernel_without_hf(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			     unsigned long flags)
{
	note_call(attr, pid, cpu);
	if (attr->size > PERF_ATTR_HF_OFFSET) {
		attr->size = PERF_ATTR_HF_OFFSET;
		errno = E2BIG;
		return -1;
	}
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* One line of prec's: "prec: ...\n" and nothing after. */
static bool one_line(const char *msg)
{
	const char *nl = strchr(msg, '\n');

	return !strncmp(msg, "prec: ", 6) && nl && !nl[1];
}

/* stderr into a file while fn runs: what prec said, and fn's return. */
static int capture_stderr(int (*fn)(void *), void *arg, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return ret;
}

struct opened {
	struct event_list list;
	struct evlist evl;
	struct target t;
	int cpu;
	pid_t pid;
};

/* The events parsed, to be opened on ourselves through kernel, which has seen nothing yet. */
static int setup(struct opened *o, const char *events, evlist_open_fn kernel)
{
	struct parse_error err;

	evlist_set_open_fn(kernel);
	nr_calls = 0;
	answer = 0;
	answer_second = 0;
	memset(o, 0, sizeof(*o));
	if (parse_events(&o->list, events, &err))
		return -1;
	evlist_add_events(&o->evl, &o->list);
	for (int i = 0; i < o->evl.nr; i++) {
		o->evl.ev[i].attr.disabled = 1;
		o->evl.ev[i].attr.exclude_kernel = 1;
		o->evl.ev[i].attr.exclude_hv = 1;
	}
	/* ourselves, on any CPU */
	o->cpu = -1;
	o->pid = 0;
	o->t.cpus = &o->cpu;
	o->t.nr_cpus = 1;
	o->t.threads = &o->pid;
	o->t.nr_threads = 1;
	o->t.workload_pid = -1;
	return 0;
}

static void teardown(struct opened *o)
{
	evlist_free(&o->evl);
	event_list_free(&o->list);
}

static int do_check(void *arg)
{
	return evlist_check_hf(&((struct opened *)arg)->evl);
}

static int do_open(void *arg)
{
	struct opened *o = arg;

	return evlist_open(&o->evl, &o->t);
}

static void test_kernel_with_hf(void)
{
	struct opened o;
	unsigned char want[8];
	char msg[1024];
	int ret;

	if (setup(&o, "cpu-clock/period=1000000,hf-period=20000,hf-rand=4/", kernel_with_hf)) {
		ok(0, "with hf: parse the event");
		return;
	}
	ret = capture_stderr(do_open, &o, msg, sizeof(msg));
	if (ret && strstr(msg, "permission")) {
		skip("with hf: the probe and the open", "no permission to open events here");
		teardown(&o);
		evlist_set_open_fn(NULL);
		return;
	}
	if (!ok(ret == 0, "with hf: the events open"))
		diag("%s", msg);
	is(nr_calls, 3, "with hf: two probes, then the event");
	if (nr_calls == 3) {
		struct perf_event_attr a;

		memcpy(&a, calls[0].bytes, sizeof(a));
		ok(calls[0].size == PERF_ATTR_HF_SIZE && a.type == PERF_TYPE_SOFTWARE &&
		       a.config == PERF_COUNT_SW_CPU_CLOCK && a.disabled && !a.freq &&
		       a.sample_period && calls[0].pid == 0 && calls[0].cpu == -1,
		   "with hf: the probe is a disabled cpu-clock on ourselves with a 144-byte attr");
		ok(hf_of((struct perf_event_attr *)calls[0].bytes) &&
		       hf_of((struct perf_event_attr *)calls[0].bytes) < a.sample_period,
		   "with hf: the first probe sets hf_sample_period below the period");
		memcpy(&a, calls[1].bytes, sizeof(a));
		ok(calls[1].size == PERF_ATTR_HF_SIZE && a.config == PERF_COUNT_SW_CPU_CLOCK &&
		       !a.freq &&
		       hf_of((struct perf_event_attr *)calls[1].bytes) >= a.sample_period,
		   "with hf: the second probe sets it above, which only the series refuses");
		is(calls[2].size, PERF_ATTR_HF_SIZE, "with hf: the event's attr is 144 bytes");
		ok(head_kept(calls[2].bytes, &o.evl.ev[0].attr),
		   "with hf: the event's first 136 bytes are its attr's");
		hf_word_le(20000, 4, want);
		if (little_endian())
			ok(!memcmp(calls[2].bytes + PERF_ATTR_HF_OFFSET, want, 8),
			   "with hf: the event gets hf_sample_period 20000, hf_sample_rand 4");
		else
			skip("with hf: the event's hf_sample", "little-endian bytes");
	}
	is(o.evl.ev[0].attr.size, sizeof(o.evl.ev[0].attr),
	   "with hf: the attr written to the file keeps its size");
	teardown(&o);

	/* The series may refuse this software event: the field is there all the same. */
	if (setup(&o, "cpu-clock/period=1000000,hf-period=20000/", kernel_with_hf) == 0) {
		answer = EINVAL;
		ret = capture_stderr(do_check, &o, msg, sizeof(msg));
		is(ret, 0, "probe: EINVAL means the kernel read the field: go on to the real open");
		ret = capture_stderr(do_open, &o, msg, sizeof(msg));
		ok(ret == -1 && strstr(msg, "cpu-clock") && strstr(msg, "hf-period=20000") &&
		       one_line(msg),
		   "probe: the real open's refusal names the event, in one line");
		is(nr_calls, 2, "probe: once per process, then the event");
		teardown(&o);
	}
	/* no permission for the second probe: the first one's answer stands */
	if (setup(&o, "cpu-clock/period=1000000,hf-period=20000/", kernel_with_hf) == 0) {
		answer_second = EACCES;
		ret = capture_stderr(do_check, &o, msg, sizeof(msg));
		ok(ret == 0 && nr_calls == 2, "probe: EACCES on the second probe keeps the field");
		teardown(&o);
	}
	answer = 0;
	answer_second = 0;
	evlist_set_open_fn(NULL);
}

/* A kernel whose 144-byte attr has another field at byte 136: it opens both probes. */
static void test_kernel_config4(void)
{
	struct opened o;
	char msg[1024];
	int ret;

	if (setup(&o, "cpu-clock/period=1000000,alt-period=20000/", kernel_config4)) {
		ok(0, "config4: parse the event");
		return;
	}
	ret = capture_stderr(do_check, &o, msg, sizeof(msg));
	is(ret, -1, "config4: refused");
	is_str(msg,
	       "prec: cannot open 'cpu-clock/period=1000000,alt-period=20000/': alt-period=: this "
	       "kernel's 144-byte perf_event_attr is not the hf-period series' (another field sits "
	       "at byte 136)\n",
	       "config4: one line that says the field at byte 136 is another");
	ret = capture_stderr(do_open, &o, msg, sizeof(msg));
	ok(ret == -1 && nr_calls == 2, "config4: two probes and no event opened");
	teardown(&o);
	evlist_set_open_fn(NULL);
}

/*
 * cycles falls back to cpu-clock where there is no hardware PMU: the fallen-back event's own
 * limits apply to its terms.
 */
static void test_fallback(void)
{
	struct opened o;
	char msg[1024];
	int ret;

	if (setup(&o, "cycles/period=1000000,hf-period=5000/", kernel_with_hf)) {
		ok(0, "fallback: parse the event");
		return;
	}
	ret = capture_stderr(do_check, &o, msg, sizeof(msg));
	is(ret, 0, "fallback: cycles has no 10 us floor");
	ret = capture_stderr(do_open, &o, msg, sizeof(msg));
	if (ret == 0 && o.evl.ev[0].attr.type == PERF_TYPE_HARDWARE) {
		skip("fallback: cpu-clock's floor", "this machine counts cycles");
	} else if (ret && strstr(msg, "permission")) {
		skip("fallback: cpu-clock's floor", "no permission to open events here");
	} else {
		ok(ret == -1 && one_line(msg) && strstr(msg, "hf-period=5000 is below") &&
		       strstr(msg, "10 us"),
		   "fallback: hf-period=5000 on the cpu-clock that cycles fell back to: refused");
		if (ret != -1)
			diag("said: %s", msg);
	}
	teardown(&o);
	evlist_set_open_fn(NULL);
}

static void test_kernel_without_hf(void)
{
	struct opened o;
	char msg[1024];
	int ret;

	if (setup(&o, "cpu-clock/period=1000000,alt-period=20000/", kernel_without_hf)) {
		ok(0, "without hf: parse the event");
		return;
	}
	ret = capture_stderr(do_check, &o, msg, sizeof(msg));
	is(ret, -1, "without hf: refused");
	is_str(
	    msg,
	    "prec: cannot open 'cpu-clock/period=1000000,alt-period=20000/': alt-period= needs a "
	    "kernel with the alternating-period patches (a 144-byte perf_event_attr); this one "
	    "takes 136 bytes\n",
	    "without hf: one line with the size the kernel wrote back");
	ret = capture_stderr(do_open, &o, msg, sizeof(msg));
	is(ret, -1, "without hf: evlist_open refuses too");
	is(nr_calls, 1, "without hf: the probe ran once and no event was opened");
	teardown(&o);
	evlist_set_open_fn(NULL);
}

/* What prec refuses before asking the kernel: one line each. */
static void test_terms(void)
{
	static const struct {
		const char *events, *says;
	} bad[] = {
	    {"cpu-clock/period=1000000,hf-rand=3/", "hf-rand= needs hf-period="},
	    {"cpu-clock/period=1000000,hf-rand=0/", "'cpu-clock/period=1000000,hf-rand=0/': "
						    "hf-rand= needs hf-period="},
	    {"cpu-clock/period=1000000,alt-period-jitter=3/",
	     "alt-period-jitter= needs alt-period="},
	    {"cpu-clock/alt-period-jitter=0/", "alt-period-jitter= needs alt-period="},
	    {"cpu-clock/period=1000000,hf-period=20000,hf-rand=16/", "above the limit of 15"},
	    {"cpu-clock/period=1000000,hf-period=20000,alt-period-jitter=8/",
	     "above the limit of 7"},
	    {"page-faults/period=0x200000000,hf-period=0x100000000/", "limit of 4294967295"},
	    {"page-faults/period=1000,hf-period=1000/", "not below the event's period 1000"},
	    {"page-faults/period=1000,hf-period=10,alt-period=20/", "give one"},
	    {"page-faults/period=1000,hf-period=10,hf-rand=2,alt-period-jitter=2/", "give one"},
	    /* the kernel takes half the jitter off the long period: 1 << 15 / 2 wraps 990 */
	    {"page-faults/period=1000,hf-period=10,hf-rand=15/",
	     "hf-rand=15 jitters the long period by up to 16384 either way, not below the 990"},
	    {"page-faults/period=1000,hf-period=10,hf-rand=11/", "up to 1024 either way"},
	    {"page-faults/period=1000,alt-period=10,alt-period-jitter=9/", "above the limit of 7"},
	    {"page-faults/period=100,alt-period=10,alt-period-jitter=7/",
	     "alt-period-jitter=7 jitters the long period by up to 128 either way, not below the "
	     "90"},
	    /* the hrtimer of cpu-clock and task-clock fires after 10 us at the soonest */
	    {"cpu-clock/period=1000000,hf-period=300/",
	     "hf-period=300 is below the kernel's 10 us"},
	    {"task-clock/period=1000000,alt-period=9999/", "alt-period=9999 is below the kernel's"},
	    {"cpu-clock/period=15000,hf-period=10000/", "the long window, period 15000 minus"},
	    /* in frequency mode cpu-clock's period is 1 s / freq: 250000 ns at 4000 Hz */
	    {"cpu-clock/freq=4000,hf-period=300000/", "not below the event's period 250000"},
	    {"task-clock/freq=50000,hf-period=15000/", "the long window, period 20000 minus"},
	    /* 40000 - 20000 - 16384 leaves 3616 ns: under the hrtimer's floor */
	    {"cpu-clock/period=40000,hf-period=20000,hf-rand=15/",
	     "hf-rand=15 can shorten the long window to 3616 ns"},
	};
	static const struct {
		const char *events;
		unsigned int period, rand;
	} good[] = {
	    {"page-faults/period=1000,hf-period=10,hf-rand=10/", 10, 10},
	    {"page-faults/period=100000,hf-period=10,hf-rand=15/", 10, 15},
	    {"cpu-clock/period=1000000,hf-period=20000,hf-rand=15/", 20000, 15},
	    {"cpu-clock/period=1000000,alt-period=10000,alt-period-jitter=2/", 10000, 3},
	    {"cpu-clock/period=1000000,alt-period=10000,alt-period-jitter=7/", 10000, 8},
	    {"cpu-clock/period=1000000,hf-period=10000,alt-period-jitter=0/", 10000, 0},
	    {"cpu-clock/period=20000,hf-period=10000/", 10000, 0},
	    {"cpu-clock/period=1000000,hf-period=10000,hf-rand=3,alt-period-jitter=2/", 10000, 3},
	    {"page-faults/period=1000,hf-period=1/", 1, 0},
	    {"cpu-clock/freq=1000,hf-period=20000,hf-rand=4/", 20000, 4},
	    {"page-faults/freq=100,hf-period=10,hf-rand=15/", 10, 15},
	    {"cpu-clock/period=1000/", 0, 0},
	};
	struct opened o;
	char msg[1024], desc[256];

	/* a kernel that has the field, so that only prec's own checks can refuse */
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(desc, sizeof(desc), "refused before the kernel, in one line: %s",
			 bad[k].events);
		if (setup(&o, bad[k].events, kernel_with_hf)) {
			ok(0, desc);
			continue;
		}
		capture_stderr(do_check, &o, msg, sizeof(msg));
		if (!ok(nr_calls == 0 && one_line(msg) && strstr(msg, bad[k].says), desc))
			diag("said: %s", msg);
		teardown(&o);
	}
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
		u32 rand = 99, period;

		if (setup(&o, good[k].events, kernel_with_hf)) {
			ok(0, good[k].events);
			continue;
		}
		period = evsel_hf(&o.evl.ev[0], &rand);
		snprintf(desc, sizeof(desc), "%s: period %u, rand %u", good[k].events,
			 good[k].period, good[k].rand);
		ok(capture_stderr(do_check, &o, msg, sizeof(msg)) == 0 &&
		       period == good[k].period && rand == good[k].rand,
		   desc);
		teardown(&o);
	}
	evlist_set_open_fn(NULL);
}

/* The facts carry the period into the file; the report side reads them back. */
static void test_facts(void)
{
	struct overhead_facts f, g;
	struct pd_buf b = {0};
	char why[256], path[] = "/tmp/prec-test-hf-XXXXXX";
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = PD_ATTR_SIZE,
	    .config = PERF_COUNT_SW_TASK_CLOCK,
	    .sample_period = 1000000,
	    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
	};
	u64 ids[2][1] = {{1}, {2}};
	struct pd_writer *w = NULL;
	struct pd_reader *r = NULL;
	u32 rand = 99;
	int fd;

	overhead_facts_init(&f);
	overhead_facts_event(&f, 1)->hf_period = 300;
	overhead_facts_event(&f, 1)->hf_rand = 4;
	overhead_facts_event(&f, 0)->period = 1000;
	is(overhead_facts_encode(&f, &b), 0, "facts: encode");
	ok(b.data && strstr((char *)b.data, "\nevent.1.hf_period=300\nevent.1.hf_rand=4\n"),
	   "facts: event.N.hf_period and event.N.hf_rand");
	ok(b.data && !strstr((char *)b.data, "event.0.hf_"), "facts: nothing for an event without");
	is(overhead_facts_decode(b.data, b.len, &g, why, sizeof(why)), 0, "facts: decode");
	ok(overhead_facts_find_event(&g, 1) && overhead_facts_find_event(&g, 1)->hf_period == 300 &&
	       overhead_facts_find_event(&g, 1)->hf_rand == 4,
	   "facts: read back");
	overhead_facts_release(&g);
	is(overhead_facts_decode("prec-facts 1\nevent.1.hf_rand=16\n", 33, &g, why, sizeof(why)),
	   -EINVAL, "facts: hf_rand beyond 4 bits");
	is(overhead_facts_decode("prec-facts 1\nevent.1.hf_period=4294967296\n", 42, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: hf_period beyond 32 bits");

	fd = mkstemp(path);
	if (fd < 0 || pd_writer_open_fd(&w, fd, 0) ||
	    pd_writer_add_attr(w, &a, "task-clock", ids[0], 1) < 0 ||
	    pd_writer_add_attr(w, &a, "task-clock", ids[1], 1) < 0 ||
	    pd_writer_set_feature(w, PD_FEAT_PREC, b.data, b.len) || pd_writer_begin(w) ||
	    pd_writer_close(w) || pd_reader_open(&r, path, 0)) {
		ok(0, "report_hf_period: write and open a file with the facts");
	} else {
		is(report_hf_period(r, 1, &rand), 300, "report_hf_period: the period of event 1");
		is(rand, 4, "report_hf_period: and its jitter");
		is(report_hf_period(r, 0, &rand), 0, "report_hf_period: none for event 0");
		is(rand, 0, "report_hf_period: nor a jitter");
	}
	if (r)
		pd_reader_close(r);
	unlink(path);
	pd_buf_release(&b);
	overhead_facts_release(&f);
}

static int do_record(void *arg)
{
	char **argv = arg;
	int argc = 0;

	while (argv[argc])
		argc++;
	return cmd_record(argc, argv);
}

/*
 * A whole recording through a kernel with the field: the facts of the file say which event
 * alternated its period, and only that event's samples carry their PERIOD.
 */
static void test_record(void)
{
	char path[] = "/tmp/prec-test-hf-rec-XXXXXX", msg[4096];
	char *argv[] = {"record", "-q",
			"-o",	  path,
			"-e",	  "cpu-clock/period=1000000,hf-period=20000,hf-rand=4/",
			"-e",	  "task-clock/period=1000000/",
			"--",	  "true",
			NULL};
	struct pd_reader *r = NULL;
	const struct perf_event_attr *a;
	u32 rand = 99;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0) {
		ok(0, "record: a temporary file");
		return;
	}
	close(fd);
	evlist_set_open_fn(kernel_with_hf);
	nr_calls = 0;
	answer = 0;
	answer_second = 0;
	ret = capture_stderr(do_record, argv, msg, sizeof(msg));
	evlist_set_open_fn(NULL);
	if (ret && strstr(msg, "ermission")) {
		skip("record: the facts and the attrs", "no permission to open events here");
		unlink(path);
		return;
	}
	if (!ok(ret == 0 && pd_reader_open(&r, path, 0) == 0, "record: it records"))
		diag("status %d, said: %s", ret, msg);
	if (r) {
		is(report_hf_period(r, 0, &rand), 20000, "record: the facts keep hf-period=20000");
		is(rand, 4, "record: and hf-rand=4");
		is(report_hf_period(r, 1, &rand), 0, "record: none for the other event");
		a = pd_reader_attr(r, 0);
		ok(a && a->config == PERF_COUNT_SW_CPU_CLOCK && a->size == PD_ATTR_SIZE &&
		       a->sample_type & PERF_SAMPLE_PERIOD,
		   "record: the alternating event's samples carry PERIOD, in perf 6.1's attr");
		a = pd_reader_attr(r, 1);
		ok(a && a->config == PERF_COUNT_SW_TASK_CLOCK &&
		       !(a->sample_type & PERF_SAMPLE_PERIOD),
		   "record: the other event's do not (a fixed period, as perf)");
		pd_reader_close(r);
	}
	unlink(path);
}

int main(void)
{
	test_build();
	test_terms();
	test_kernel_without_hf();
	test_kernel_with_hf();
	test_kernel_config4();
	test_fallback();
	test_facts();
	test_record();
	return done_testing();
}
