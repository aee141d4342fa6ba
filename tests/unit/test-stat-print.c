// SPDX-License-Identifier: GPL-2.0
/*
 * prec stat's printer (record/stat-print.c) fed built readings, against the text perf stat 6.1
 * printed here for the same figures. perf stat -v prints each counter's value, time enabled and
 * time running before its output: those are the readings below. Where perf printed no raw value
 * (-A, -x), the readings are ones that perf's printed figures (a count and its rate) pin down
 * to their last digit; the comment of each case says which.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/stat-print.h"
#include "tests/tap.h"

#define CLOCK(n) { n, "msec", 1e-6, true, true }
#define SOFT(n) { n, "", 1, false, true }
#define HW(n) { n, "", 1, false, false }

struct capture {
	char *buf;
	size_t len;
};

static struct stat_print printer(struct capture *c, const char *sep, int runs)
{
	struct stat_print p;

	memset(&p, 0, sizeof(p));
	p.out = open_memstream(&c->buf, &c->len);
	p.sep = sep;
	p.run_count = runs;
	return p;
}

static void check(struct stat_print *p, struct capture *c, const char *want, const char *what)
{
	fclose(p->out);
	is_str(c->buf, want, what);
	free(c->buf);
}

/* perf stat -v true (the default events; the hardware ones are not supported here) */
static void test_default(void)
{
	static const struct stat_print_event ev[] = {
		CLOCK("task-clock"), SOFT("context-switches"), SOFT("cpu-migrations"),
		SOFT("page-faults"), HW("cycles"), HW("instructions"), HW("branches"),
		HW("branch-misses"),
	};
	const struct stat_print_value v[] = {
		{ 1966812, 1966812, 1966812, 0 }, { 0, 1966812, 1966812, 0 },
		{ 0, 1966812, 1966812, 0 }, { 48, 1966812, 1966812, 0 },
		{ 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
	};
	struct rusage ru = { .ru_utime = { 0, 3158 }, .ru_stime = { 0, 3158 } };
	struct capture c;
	struct stat_print p = printer(&c, NULL, 1);
	static const char want[] =
	"\n"
	" Performance counter stats for 'true':\n"
	"\n"
	"              1.97 msec task-clock                       #    0.574 CPUs utilize"
		"d          \n"
	"                 0      context-switches                 #    0.000 /sec        "
		"           \n"
	"                 0      cpu-migrations                   #    0.000 /sec        "
		"           \n"
	"                48      page-faults                      #   24.405 K/sec       "
		"           \n"
	"   <not supported>      cycles                                                      \n"
	"   <not supported>      instructions                                                \n"
	"   <not supported>      branches                                                    \n"
	"   <not supported>      branch-misses                                               \n"
	"\n"
	"       0.003426869 seconds time elapsed\n"
	"\n"
	"       0.003158000 seconds user\n"
	"       0.003158000 seconds sys\n"
	"\n"
	"\n";
	stat_print_header(&p, "'true'");
	stat_print_counters(&p, ev, 8, v, 3426869, NULL);
	stat_print_footer(&p, 0.003426869, 0, &ru);
	check(&p, &c, want, "the default events, user and sys");
}

/*
 * perf stat -v -e task-clock,page-faults -r 3 true: the runs' task-clock 2210463, 2817689 and
 * 1889407 ns, 48 page-faults each. perf 6.1 prints the last run's count, the runs' noise in % of
 * it, and "/sec" over the runs' mean task-clock. The elapsed times were not printed: their mean
 * and deviation are ones that print perf's figures.
 */
static void test_repeat(void)
{
	static const struct stat_print_event ev[] = { CLOCK("task-clock"), SOFT("page-faults") };
	static const double runs[] = { 2210463, 2817689, 1889407 };
	struct stat_print_value v[] = {
		{ 1889407, 1889407, 1889407, 0 }, { 48, 1889407, 1889407, 0 },
	};
	double sum = 0, sumsq = 0, clock;
	struct capture c;
	struct stat_print p = printer(&c, NULL, 3);
	static const char want[] =
	"\n"
	" Performance counter stats for 'true' (3 runs):\n"
	"\n"
	"              1.89 msec task-clock                       #    0.480 CPUs utilize"
		"d            ( +- 14.41% )\n"
	"                48      page-faults                      #   20.817 K/sec       "
		"           \n"
	"\n"
	"          0.003939 +- 0.000229 seconds time elapsed  ( +-  5.83% )\n"
	"\n";
	for (int i = 0; i < 3; i++) {
		sum += runs[i];
		sumsq += runs[i] * runs[i];
	}
	clock = sum / 3;
	v[0].noise_pct = 100.0 * stat_print_sd_mean(sum, sumsq, 3) / v[0].val;
	v[1].noise_pct = 100.0 * stat_print_sd_mean(3 * 48, 3 * 48 * 48, 3) / 48;
	p.clock_ns = &clock;
	stat_print_header(&p, "'true'");
	stat_print_counters(&p, ev, 2, v, 3938600, NULL);
	stat_print_footer(&p, 0.0039386, 0.00022949, NULL);
	check(&p, &c, want, "-r 3: the last run, the noise, the elapsed mean and deviation");
}

/*
 * perf stat -A -C 0,1 -e task-clock,page-faults sleep 0.1: task-clock from the page-faults'
 * rates (79 at 747.367 /sec, 2 at 18.920 /sec).
 */
static void test_no_aggr(void)
{
	static const struct stat_print_event ev[] = { CLOCK("task-clock"), SOFT("page-faults") };
	static const int cpus[] = { 0, 1 };
	static const struct stat_print_value v[] = {
		{ 105704450, 105704450, 105704450, 0 }, { 105708200, 105708200, 105708200, 0 },
		{ 79, 105704450, 105704450, 0 }, { 2, 105708200, 105708200, 0 },
	};
	struct capture c;
	struct stat_print p = printer(&c, NULL, 1);
	static const char want[] =
	"\n"
	" Performance counter stats for 'CPU(s) 0,1':\n"
	"\n"
	"CPU0                   105.70 msec task-clock                       #    1.000 C"
		"PUs utilized          \n"
	"CPU1                   105.71 msec task-clock                       #    1.000 C"
		"PUs utilized          \n"
	"CPU0                       79      page-faults                      #  747.367 /"
		"sec                   \n"
	"CPU1                        2      page-faults                      #   18.920 /"
		"sec                   \n"
	"\n"
	"       0.105659985 seconds time elapsed\n"
	"\n";
	p.no_aggr = true;
	p.cpus = cpus;
	p.nr_cpus = 2;
	stat_print_header(&p, "'CPU(s) 0,1'");
	stat_print_counters(&p, ev, 2, v, 105659985, NULL);
	stat_print_footer(&p, 0.105659985, 0, NULL);
	check(&p, &c, want, "-A: one line per CPU per event");
}

/*
 * perf stat -I 200 -e task-clock,page-faults -- sleep 0.5, its first two intervals: the second
 * saw the command asleep (nothing enabled); task-clock from 74 page-faults at 15.564 K/sec.
 */
static void test_interval(void)
{
	static const struct stat_print_event ev[] = { CLOCK("task-clock"), SOFT("page-faults") };
	static const struct stat_print_value v1[] = {
		{ 4754600, 4754600, 4754600, 0 }, { 74, 4754600, 4754600, 0 },
	};
	static const struct stat_print_value v2[] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
	struct capture c;
	struct stat_print p = printer(&c, NULL, 1);
	char prefix[64];
	static const char want[] =
	"#           time             counts unit events\n"
	"     0.202471239               4.75 msec task-clock                       #    0"
		".024 CPUs utilized          \n"
	"     0.202471239                 74      page-faults                      #   15"
		".564 K/sec                  \n"
	"     0.403860846      <not counted> msec task-clock                             "
		"                     \n"
	"     0.403860846      <not counted>      page-faults                            "
		"                     \n";
	stat_print_interval_header(&p);
	stat_print_timestamp(&p, 202471239, prefix, sizeof(prefix));
	stat_print_counters(&p, ev, 2, v1, 200e6, prefix);
	stat_print_interval_header(&p);
	stat_print_timestamp(&p, 403860846, prefix, sizeof(prefix));
	stat_print_counters(&p, ev, 2, v2, 200e6, prefix);
	check(&p, &c, want, "-I: the header once, timestamps, <not counted>");
}

/*
 * perf stat -I 200 -A -x, -C 0,1 -e task-clock,page-faults -- sleep 0.3: the times running are
 * perf's; a task-clock value where it differs from its time running is the one the page-faults'
 * rate pins down.
 */
static void test_csv_interval_no_aggr(void)
{
	static const struct stat_print_event ev[] = { CLOCK("task-clock"), SOFT("page-faults") };
	static const int cpus[] = { 0, 1 };
	static const struct stat_print_value v1[] = {
		{ 207938900, 207937858, 207937858, 0 }, { 207908532, 207908532, 207908532, 0 },
		{ 144, 207983714, 207983714, 0 }, { 3423, 207906298, 207906298, 0 },
	};
	static const struct stat_print_value v2[] = {
		{ 120063800, 120064596, 120064596, 0 }, { 120118048, 120118048, 120118048, 0 },
		{ 104, 120056260, 120056260, 0 }, { 1620, 120117566, 120117566, 0 },
	};
	struct capture c;
	struct stat_print p = printer(&c, ",", 1);
	char prefix[64];
	static const char want[] =
	"     0.203958968,CPU0,207.94,msec,task-clock,207937858,100.00,1.040,CPUs utilized\n"
	"     0.203958968,CPU1,207.91,msec,task-clock,207908532,100.00,1.040,CPUs utilized\n"
	"     0.203958968,CPU0,144,,page-faults,207983714,100.00,692.511,/sec\n"
	"     0.203958968,CPU1,3423,,page-faults,207906298,100.00,16.464,K/sec\n"
	"     0.327345935,CPU0,120.06,msec,task-clock,120064596,100.00,0.600,CPUs utilized\n"
	"     0.327345935,CPU1,120.12,msec,task-clock,120118048,100.00,0.601,CPUs utilized\n"
	"     0.327345935,CPU0,104,,page-faults,120056260,100.00,866.206,/sec\n"
	"     0.327345935,CPU1,1620,,page-faults,120117566,100.00,13.487,K/sec\n";
	p.no_aggr = true;
	p.cpus = cpus;
	p.nr_cpus = 2;
	stat_print_interval_header(&p);
	stat_print_timestamp(&p, 203958968, prefix, sizeof(prefix));
	stat_print_counters(&p, ev, 2, v1, 200e6, prefix);
	stat_print_interval_header(&p);
	stat_print_timestamp(&p, 327345935, prefix, sizeof(prefix));
	stat_print_counters(&p, ev, 2, v2, 200e6, prefix);
	check(&p, &c, want, "-x, -I -A: perf's fields in perf's order");
}

/*
 * perf stat -x, true: the elapsed time is not printed with -x; 30.94 ms is one that gives its
 * 0.153 CPUs utilized.
 */
static void test_csv_default(void)
{
	static const struct stat_print_event ev[] = {
		CLOCK("task-clock"), SOFT("context-switches"), SOFT("cpu-migrations"),
		SOFT("page-faults"), HW("cycles"), HW("instructions"), HW("branches"),
		HW("branch-misses"),
	};
	const struct stat_print_value v[] = {
		{ 4733374, 4733374, 4733374, 0 }, { 2, 4733374, 4733374, 0 },
		{ 0, 4733374, 4733374, 0 }, { 48, 4733374, 4733374, 0 },
		{ 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
	};
	struct capture c;
	struct stat_print p = printer(&c, ",", 1);
	static const char want[] =
	"4.73,msec,task-clock,4733374,100.00,0.153,CPUs utilized\n"
	"2,,context-switches,4733374,100.00,422.532,/sec\n"
	"0,,cpu-migrations,4733374,100.00,0.000,/sec\n"
	"48,,page-faults,4733374,100.00,10.141,K/sec\n"
	"<not supported>,,cycles,0,100.00,,\n"
	"<not supported>,,instructions,0,100.00,,\n"
	"<not supported>,,branches,0,100.00,,\n"
	"<not supported>,,branch-misses,0,100.00,,\n";
	stat_print_header(&p, "'true'");
	stat_print_counters(&p, ev, 8, v, 30.94e6, NULL);
	stat_print_footer(&p, 0.03094, 0, NULL);
	check(&p, &c, want, "-x,: no header, no footer, <not supported>");
}

/*
 * A multiplexed event, which this machine (no PMU) cannot show perf doing: perf scales the count
 * by enabled/running and prints the running share; in CSV the share is a whole percentage.
 */
static void test_scaled(void)
{
	static const struct stat_print_event ev[] = { SOFT("page-faults") };
	static const struct stat_print_value v[] = { { 1000, 3000, 2000, 0 } };
	struct capture c;
	struct stat_print p = printer(&c, NULL, 1);

	stat_print_counters(&p, ev, 1, v, 1e9, NULL);
	check(&p, &c,
	      "              1500      page-faults                                                        "
	      "  (66.67%)\n", "a running share under 100%: scaled, and the share");
	p = printer(&c, ",", 1);
	stat_print_counters(&p, ev, 1, v, 1e9, NULL);
	check(&p, &c, "1500,,page-faults,2000,66.00,,\n", "-x: the share perf's integer way");
}

int main(void)
{
	test_default();
	test_repeat();
	test_no_aggr();
	test_interval();
	test_csv_interval_no_aggr();
	test_csv_default();
	test_scaled();
	return done_testing();
}
