// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of prec report --counters (report/counters-model.c) on built readings: the
 * status of a reading, scaling when running < enabled, zero running and zero enabled time, the
 * range of a scaled count, differences of cumulative readings that go down or wrap, sums that
 * saturate; and the multiplex finding of prec report --overhead on STAT readings with a shared
 * counter (overhead/model.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/facts.h"
#include "overhead/model.h"
#include "report/counters-model.h"
#include "tests/tap.h"

#define SEC 1000000000ULL

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static void test_classify(void)
{
	struct cm_reading r = {0, 0, 0};

	is(cm_classify(&r, false), CM_NOT_SUPPORTED, "no reading at all: not supported");
	is(cm_classify(&r, true), CM_NOT_ENABLED, "enabled 0: not enabled");
	r = (struct cm_reading){0, 100, 0};
	is(cm_classify(&r, true), CM_NOT_COUNTED, "running 0 < enabled: not counted");
	r = (struct cm_reading){5, 100, 100};
	is(cm_classify(&r, true), CM_COUNTED, "running == enabled: counted");
	r = (struct cm_reading){5, 100, 40};
	is(cm_classify(&r, true), CM_SCALED, "0 < running < enabled: scaled");
	r = (struct cm_reading){5, 100, 140};
	is(cm_classify(&r, true), CM_COUNTED, "running > enabled (damaged): taken as counted");
	is_str(cm_status_text(CM_NOT_COUNTED), "<not counted>", "perf's words: not counted");
	is_str(cm_status_text(CM_NOT_ENABLED), "<not counted>",
	       "never enabled: perf says not counted too");
	is_str(cm_status_text(CM_NOT_SUPPORTED), "<not supported>", "perf's words: not supported");
	ok(!cm_status_text(CM_SCALED), "a scaled count has a count");
	is_str(cm_status_name(CM_NOT_ENABLED), "not-enabled", "JSON: not-enabled");
}

static void test_scale(void)
{
	struct cm_reading r = {100, 200, 50};

	ok(near(cm_scale(&r), 400), "scaled = count * enabled / running");
	r = (struct cm_reading){7, 300, 300};
	ok(cm_scale(&r) == 7, "not multiplexed: the count itself");
	r = (struct cm_reading){0, 300, 0};
	ok(isnan(cm_scale(&r)), "running 0: no scaled count (NaN, never 0)");
	/* count * enabled passes 2^64: long double keeps it */
	r = (struct cm_reading){1ULL << 62, 1ULL << 40, 1ULL << 39};
	ok(cm_scale(&r) == ldexp(1, 63), "count * enabled past 2^64 does not overflow");
	r = (struct cm_reading){1000, 3, 2};
	ok(near(cm_scale(&r), 1500), "small times scale too");
}

static void test_estimate(void)
{
	struct cm_rates rates = {0};
	struct cm_reading d, total;
	struct cm_estimate e;

	/* two intervals: rate 1 per ns (100 of 100 running), rate 3 per ns (0 of 300 running) */
	d = (struct cm_reading){100, 100, 100};
	cm_rates_add(&rates, &d);
	d = (struct cm_reading){0, 200, 0};
	cm_rates_add(&rates, &d);
	is(rates.n, 1, "an interval with no running time has no rate");
	d = (struct cm_reading){300, 150, 100};
	cm_rates_add(&rates, &d);
	d = (struct cm_reading){1, 5, 10};
	cm_rates_add(&rates, &d);
	is(rates.n, 2, "a damaged interval (running > enabled) has no rate");
	ok(rates.min == 1 && rates.max == 3, "rates: lowest 1, highest 3 per ns");

	total = (struct cm_reading){400, 450, 200};
	cm_estimate(&total, true, &rates, &e);
	is(e.status, CM_SCALED, "estimate: scaled");
	ok(near(e.scaled, 900), "estimate: 400 * 450 / 200");
	ok(near(e.running_pct, 200.0 / 450 * 100), "estimate: running share");
	ok(near(e.low, 400 + 1 * 250.0) && near(e.high, 400 + 3 * 250.0),
	   "range: count + lowest and highest rate times the time switched out");
	ok(e.low <= e.scaled && e.scaled <= e.high, "the scaled count is inside its range");
	ok(near(e.uncertainty_pct, (1150.0 - 650) / 2 / 900 * 100), "uncertainty: half-width");
	ok(near(e.rate, 900 * 1e9 / 450), "rate: scaled per second of enabled time");

	rates.n = 1;
	cm_estimate(&total, true, &rates, &e);
	ok(isnan(e.high) && isnan(e.uncertainty_pct) && e.low == 400,
	   "one interval's rate: no range (never 0%), only the lower bound: what was counted");
	cm_estimate(&total, true, NULL, &e);
	ok(isnan(e.high) && e.low == 400, "no rates at all: the same");

	total = (struct cm_reading){0, 450, 0};
	cm_estimate(&total, true, &rates, &e);
	ok(e.status == CM_NOT_COUNTED && e.running_pct == 0 && isnan(e.scaled) && isnan(e.rate),
	   "running 0: not counted, 0% running, no scaled count, no rate");
	total = (struct cm_reading){0, 0, 0};
	cm_estimate(&total, true, &rates, &e);
	ok(e.status == CM_NOT_ENABLED && isnan(e.running_pct) && isnan(e.scaled),
	   "enabled 0: not enabled, no running share (0/0)");
	cm_estimate(&total, false, NULL, &e);
	is(e.status, CM_NOT_SUPPORTED, "no reading: not supported");
	total = (struct cm_reading){42, 100, 100};
	cm_estimate(&total, true, &rates, &e);
	ok(e.status == CM_COUNTED && e.low == 42 && e.high == 42 && e.uncertainty_pct == 0,
	   "counted all along: exact, no uncertainty");
	total = (struct cm_reading){42, 100, 120};
	cm_estimate(&total, true, &rates, &e);
	ok(e.status == CM_COUNTED && (e.flags & CM_RUN_ABOVE_ENA) && near(e.running_pct, 120) &&
	       e.scaled == 42,
	   "running above enabled: flagged, shown as it is (120%), not scaled down");
}

/*
 * A counter multiplexed over intervals with known true rates: where the rate while switched out
 * is the interval's own rate (inside what was seen), the true count is inside the range.
 */
static void test_range_holds(void)
{
	static const double rate[] = {1.5, 0.2, 4.0, 2.5, 0.9, 3.3};
	static const double running[] = {0.3, 0.5, 0.25, 0.8, 0.6, 0.1};
	struct cm_reading cum = {0, 0, 0}, prev = {0, 0, 0}, d;
	struct cm_rates rates = {0};
	struct cm_estimate e;
	double truth = 0;

	for (unsigned i = 0; i < sizeof(rate) / sizeof(rate[0]); i++) {
		u64 run = (u64)(running[i] * SEC);

		cum.ena += SEC;
		cum.run += run;
		cum.val += (u64)(rate[i] * (double)run);
		truth += rate[i] * SEC;
		is(cm_delta(&prev, &cum, &d), 0, "interval difference");
		cm_rates_add(&rates, &d);
		prev = cum;
	}
	cm_estimate(&cum, true, &rates, &e);
	diag("truth %.0f, scaled %.0f, range %.0f .. %.0f (+-%.1f%%)", truth, e.scaled, e.low,
	     e.high, e.uncertainty_pct);
	ok(e.low <= truth && truth <= e.high, "the true count is inside the range");
	ok(fabs(e.scaled - truth) > 0,
	   "... while the scaled count misses it (so the range matters)");
}

static void test_delta(void)
{
	struct cm_reading a = {100, 1000, 500}, b = {150, 2000, 900}, d;

	is(cm_delta(&a, &b, &d), 0, "difference of cumulative readings");
	ok(d.val == 50 && d.ena == 1000 && d.run == 400, "... field by field");
	is(cm_delta(&b, &b, &d), 0, "no change: no flag");
	ok(!d.val && !d.ena && !d.run, "... a zero difference");
	b.val = 90;
	is(cm_delta(&a, &b, &d), CM_DECREASED, "a count that went down is flagged");
	ok(!d.val && !d.ena && !d.run, "... and adds nothing (not 2^64 - 10)");
	a = (struct cm_reading){UINT64_MAX - 5, 1000, 1000};
	b = (struct cm_reading){3, 2000, 2000};
	is(cm_delta(&a, &b, &d), CM_DECREASED, "a count that wrapped past 2^64 is flagged");
	a = (struct cm_reading){10, 1000, 1000};
	b = (struct cm_reading){20, 900, 1000};
	is(cm_delta(&a, &b, &d), CM_DECREASED, "enabled time going down is flagged");
	b = (struct cm_reading){20, 1000, 999};
	is(cm_delta(&a, &b, &d), CM_DECREASED, "running time going down is flagged");
}

static void test_add(void)
{
	struct cm_reading s = {UINT64_MAX - 10, 5, 5}, r = {20, 1, 1};

	is(cm_add(&s, &r), CM_SATURATED, "a sum past 2^64 is flagged");
	ok(s.val == UINT64_MAX && s.ena == 6 && s.run == 6, "... and stops at 2^64 - 1");
	r = (struct cm_reading){1, 1, 1};
	s = (struct cm_reading){1, 1, 1};
	is(cm_add(&s, &r), 0, "an ordinary sum");
	ok(s.val == 2 && s.ena == 2 && s.run == 2, "... adds each field");
}

/* ---------------------------------------------------------------------------------------- */
/* The multiplex finding of the overhead model on STAT readings */

static int add_event(struct overhead_model *m, const char *name, u64 config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.read_format =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	return overhead_model_add_event(m, &a, name, false);
}

static const struct om_finding *find(const struct om_finding *f, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return &f[i];
	return NULL;
}

/*
 * instructions (event 0) runs 40% of the time; event 1, instructions again, read event 0's
 * counter (shared) when share is set; cycles (event 2) runs all the time.
 */
static struct overhead_model *mux_model(bool share, bool sample_reads)
{
	struct overhead_model *m = overhead_model_new(false);
	struct overhead_facts f;
	struct pd_buf b = PD_BUF_INIT;

	overhead_facts_init(&f);
	if (share)
		overhead_facts_event(&f, 1)->shared_with = 0;
	overhead_facts_encode(&f, &b);
	overhead_model_set_facts(m, b.data, b.len);
	pd_buf_release(&b);
	overhead_facts_release(&f);
	add_event(m, "instructions", PERF_COUNT_HW_INSTRUCTIONS);
	add_event(m, "instructions", PERF_COUNT_HW_INSTRUCTIONS);
	add_event(m, "cycles", PERF_COUNT_HW_CPU_CYCLES);
	for (u32 c = 0; c < 2; c++) {
		if (sample_reads) /* read values of samples: the same counters, keyed by tid */
			overhead_model_add_counter(m, 0, 100 + c, c, 4242, SEC, SEC);
		overhead_model_add_stat(m, 0, 100 + c, c, 0, SEC / 2, SEC / 5); /* cumulative */
		overhead_model_add_stat(m, 0, 100 + c, c, 0, SEC, SEC * 2 / 5);
		overhead_model_add_stat(m, 1, 200 + c, c, 0, SEC / 2, SEC / 5);
		overhead_model_add_stat(m, 2, 300 + c, c, 0, SEC, SEC);
	}
	overhead_model_finish(m);
	return m;
}

static void test_overhead_multiplex(void)
{
	struct overhead_model *m;
	const struct om_finding *s;
	struct om_finding *f;
	int n;

	m = mux_model(true, false);
	n = overhead_model_judge(m, NULL, &f);
	s = find(f, n, "multiplex");
	ok(s != NULL, "multiplex: found on STAT readings");
	diag("%s", s ? s->message : "(none)");
	ok(s && strstr(s->message, "1 counter ran less"),
	   "... the shared event is not a counter of its own");
	ok(s && strstr(s->message, "instructions 40.0%") &&
	       strstr(s->message, "also read for 1 other event"),
	   "... the counter says it was read for the other event");
	ok(s && !strstr(s->message, "cycles"), "... cycles ran all the time: not named");
	ok(!find(f, n, "duplicate-events"), "a shared counter is not a duplicate");
	free(f);
	overhead_model_free(m);

	m = mux_model(false, false);
	n = overhead_model_judge(m, NULL, &f);
	s = find(f, n, "multiplex");
	ok(s && strstr(s->message, "2 counters ran less"),
	   "without sharing, the two instructions are two counters");
	ok(find(f, n, "duplicate-events") != NULL, "... and duplicates");
	free(f);
	overhead_model_free(m);

	m = mux_model(true, true);
	n = overhead_model_judge(m, NULL, &f);
	s = find(f, n, "multiplex");
	ok(s && strstr(s->message, "instructions 40.0%"),
	   "an event with STAT readings is judged by them, not by its samples' read values");
	free(f);
	overhead_model_free(m);
}

int main(void)
{
	test_classify();
	test_scale();
	test_estimate();
	test_range_holds();
	test_delta();
	test_add();
	test_overhead_multiplex();
	return done_testing();
}
