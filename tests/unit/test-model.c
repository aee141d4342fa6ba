// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead model and its findings, fed with built figures: every rule fires above its
 * threshold, stays silent below it, and its advice carries the numbers computed from the figures
 * (14 us per sample at 4 kHz is 5.6% of a CPU; a 2% budget then allows 1428 samples/s). And the
 * facts section (overhead/facts.h): encoded, decoded, and refused when damaged.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/facts.h"
#include "overhead/model.h"
#include "record/counters.h"
#include "tests/tap.h"
#include "util/hash-index.h"

#define SEC 1000000000ULL
#define T0 (5 * SEC)

/* ---------------------------------------------------------------------------------------- */
/* Building models */

static struct perf_event_attr attr_of(u32 type, u64 config, bool freq, u64 value)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.freq = freq;
	if (freq)
		a.sample_freq = value;
	else
		a.sample_period = value;
	a.exclude_kernel = 1;
	return a;
}

static int add_event(struct overhead_model *m, const char *name, u32 type, u64 config, bool freq,
		     u64 value)
{
	struct perf_event_attr a = attr_of(type, config, freq, value);

	return overhead_model_add_event(m, &a, name, false);
}

static void rec(struct overhead_model *m, int cpu, const char *type, u64 nr, u64 ns, u64 span,
		const char *source, u32 status, const char *reason, u64 time)
{
	struct overhead_record r = {cpu, type, nr, ns, span, source, status, reason};

	if (overhead_model_add_record(m, &r, time))
		diag("overhead_model_add_record failed");
}

/* n samples of event ev on cpu, spread over [T0, T0 + span). */
static void samples(struct overhead_model *m, int ev, int cpu, u64 n, u64 span)
{
	for (u64 i = 0; i < n; i++)
		overhead_model_add_sample(m, ev, cpu, T0 + i * span / (n ? n : 1));
}

/*
 * One CPU sampled at rate Hz for span ns: its samples, their handler time (handler_ns each,
 * measured) and their stolen time (stolen_ns each, calibrated; 0 for none).
 */
static void sampled_cpu(struct overhead_model *m, int ev, int cpu, u64 rate, double handler_ns,
			double stolen_ns, u64 span)
{
	u64 n = rate * span / SEC;

	samples(m, ev, cpu, n, span);
	rec(m, cpu, "sample", n, (u64)llround(handler_ns * (double)n), span, "bpf",
	    OVERHEAD_MEASURED, "", T0 + span);
	if (stolen_ns > 0)
		rec(m, cpu, "stolen", n, (u64)llround(stolen_ns * (double)n), span, "calibration",
		    OVERHEAD_ESTIMATED, "", T0 + span);
}

static void set_facts(struct overhead_model *m, struct overhead_facts *f)
{
	struct pd_buf b = PD_BUF_INIT;

	if (overhead_facts_encode(f, &b) || overhead_model_set_facts(m, b.data, b.len))
		diag("facts: %s", m->facts_error);
	pd_buf_release(&b);
	overhead_facts_release(f);
}

static int judge(struct overhead_model *m, double budget, struct om_finding **out)
{
	struct om_params p = {budget};

	overhead_model_finish(m);
	return overhead_model_judge(m, &p, out);
}

static const struct om_finding *find(const struct om_finding *f, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return &f[i];
	return NULL;
}

static bool has(const char *s, const char *needle)
{
	if (!strstr(s, needle)) {
		diag("'%s' not in: %s", needle, s);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Facts */

static void test_facts(void)
{
	struct overhead_facts f, g;
	struct overhead_fact_cpu *c;
	struct overhead_fact_event *e;
	struct overhead_calib cal;
	struct pd_buf b = PD_BUF_INIT;
	char why[256];
	int err;

	overhead_facts_init(&f);
	overhead_fact_set_string(f.source, sizeof(f.source), "tracepoint");
	overhead_fact_set_string(f.source_wanted, sizeof(f.source_wanted), "auto");
	overhead_fact_set_string(f.source_reason, sizeof(f.source_reason),
				 "bpf: no BTF\nsecond line with a \\ backslash");
	f.interval_ns = SEC;
	f.max_rate_before = 100000;
	f.max_rate_after = 25000;
	f.nmi_watchdog = 1;
	f.mmap_pages = 128;
	f.comp_level = 3;
	f.dropped_passes = 0;
	f.queue_max_bytes = 4096;
	f.sideband[OVERHEAD_SIDEBAND_MMAP].state = OVERHEAD_FACT_OK;
	f.sideband[OVERHEAD_SIDEBAND_MMAP].ns = 812.5;
	f.sideband[OVERHEAD_SIDEBAND_MMAP].min_ns = 790;
	f.sideband[OVERHEAD_SIDEBAND_MMAP].max_ns = 901.25;
	f.sideband[OVERHEAD_SIDEBAND_MMAP].runs = 7;
	f.sideband[OVERHEAD_SIDEBAND_COMM].state = OVERHEAD_FACT_FAILED;
	snprintf(f.sideband[OVERHEAD_SIDEBAND_COMM].reason, 64, "prctl refused");
	f.have_sideband_records = true;
	f.sideband_records[PERF_RECORD_MMAP2] = 1234;
	f.sideband_records[PERF_RECORD_SWITCH_CPU_WIDE] = 5;
	c = overhead_facts_cpu(&f, 3);
	c->wall_ns = 10 * SEC;
	memset(&cal, 0, sizeof(cal));
	cal.ns = 13612.5;
	cal.min_ns = 12900;
	cal.max_ns = 14100;
	cal.runs = 7;
	cal.units = 712;
	overhead_fact_from_calib(&c->stolen, &cal);
	memset(&cal, 0, sizeof(cal));
	cal.err = -EPERM;
	overhead_fact_from_calib(&c->collector, &cal);
	c = overhead_facts_cpu(&f, 0);
	c->wall_ns = 9 * SEC;
	ok(!overhead_facts_cpu(&f, -1) && !overhead_facts_cpu(&f, OVERHEAD_FACTS_MAX_CPU + 1),
	   "facts: CPUs out of range are refused");
	e = overhead_facts_event(&f, 0);
	e->freq = 50000;
	e = overhead_facts_event(&f, 2);
	e->period = 100003;
	e->shared_with = 1;
	overhead_facts_event(&f, 4)->aggregated = true;
	f.aggregate_interval_ns = 2 * SEC;
	f.aggregate_entries = 4096;

	is(overhead_facts_encode(&f, &b), 0, "facts: encode");
	is(b.len % 8, 0, "facts: the payload is a whole number of u64s");
	ok(b.len && b.data[b.len - 1] == '\0', "facts: NUL-terminated");
	ok(!strncmp((char *)b.data, "prec-facts 1\n", 13), "facts: the first line is the version");
	ok(strstr((char *)b.data, "\nsource.reason=bpf: no BTF\\nsecond line with a \\\\ "
				  "backslash\n"),
	   "facts: a string is escaped on one line");
	ok(strstr((char *)b.data, "\ncpu.3.stolen.ns=13612.500\n"), "facts: key=value per figure");
	ok(strstr((char *)b.data, "\nsideband.records.MMAP2=1234\n"),
	   "facts: side-band records by perf's type name");
	ok(!strstr((char *)b.data, "cpu.0.stolen"), "facts: unknown figures are left out");

	err = overhead_facts_decode(b.data, b.len, &g, why, sizeof(why));
	is(err, 0, "facts: decode");
	is_str(g.source, "tracepoint", "facts: source");
	is_str(g.source_wanted, "auto", "facts: source.wanted");
	is_str(g.source_reason, f.source_reason, "facts: source.reason survives its escapes");
	is(g.interval_ns, SEC, "facts: interval");
	is(g.max_rate_before, 100000, "facts: rate limit before");
	is(g.max_rate_after, 25000, "facts: rate limit after");
	is(g.nmi_watchdog, 1, "facts: nmi_watchdog");
	is(g.mmap_pages, 128, "facts: mmap_pages");
	is(g.comp_level, 3, "facts: compression level");
	is(g.dropped_passes, 0, "facts: dropped passes (0 is known, not absent)");
	is(g.queue_max_bytes, 4096, "facts: queue");
	is(g.sideband[OVERHEAD_SIDEBAND_MMAP].state, OVERHEAD_FACT_OK, "facts: mmap calibrated");
	ok(fabs(g.sideband[OVERHEAD_SIDEBAND_MMAP].ns - 812.5) < 1e-9 &&
	       fabs(g.sideband[OVERHEAD_SIDEBAND_MMAP].max_ns - 901.25) < 1e-9 &&
	       g.sideband[OVERHEAD_SIDEBAND_MMAP].runs == 7,
	   "facts: mmap figures");
	is(g.sideband[OVERHEAD_SIDEBAND_COMM].state, OVERHEAD_FACT_FAILED, "facts: comm failed");
	is_str(g.sideband[OVERHEAD_SIDEBAND_COMM].reason, "prctl refused", "facts: comm reason");
	ok(g.have_sideband_records && g.sideband_records[PERF_RECORD_MMAP2] == 1234 &&
	       g.sideband_records[PERF_RECORD_SWITCH_CPU_WIDE] == 5,
	   "facts: side-band counts");
	{
		const struct overhead_fact_cpu *c3 = overhead_facts_find_cpu(&g, 3);
		const struct overhead_fact_cpu *c0 = overhead_facts_find_cpu(&g, 0);

		ok(c3 && c3->wall_ns == 10 * SEC && c3->stolen.state == OVERHEAD_FACT_OK &&
		       fabs(c3->stolen.ns - 13612.5) < 1e-9 && c3->stolen.units == 712 &&
		       c3->stolen.runs == 7,
		   "facts: CPU 3 wall time and stolen time");
		ok(c3 && c3->collector.state == OVERHEAD_FACT_FAILED &&
		       !strcmp(c3->collector.reason, strerror(EPERM)),
		   "facts: a failed calibration keeps strerror as its reason");
		ok(c0 && c0->wall_ns == 9 * SEC && c0->stolen.state == OVERHEAD_FACT_ABSENT,
		   "facts: CPU 0 has a wall time and no calibration");
		ok(!overhead_facts_find_cpu(&g, 1), "facts: no CPU 1");
	}
	{
		const struct overhead_fact_event *e0 = overhead_facts_find_event(&g, 0);
		const struct overhead_fact_event *e2 = overhead_facts_find_event(&g, 2);

		ok(e0 && e0->freq == 50000 && e0->period == 0 && e0->shared_with == -1,
		   "facts: event 0 asked for -F 50000");
		ok(e2 && e2->period == 100003 && e2->shared_with == 1 && !e2->aggregated,
		   "facts: event 2: -c, shared");
		ok(overhead_facts_find_event(&g, 4) && overhead_facts_find_event(&g, 4)->aggregated,
		   "facts: event 4 was aggregated");
		ok(g.aggregate_interval_ns == 2 * SEC && g.aggregate_entries == 4096,
		   "facts: the aggregation's interval and map size");
	}
	overhead_facts_release(&g);
	overhead_facts_release(&f);
	pd_buf_release(&b);

	/* Readers of version 1 skip keys they do not know and read the rest. */
	{
		static const char t[] = "prec-facts 1\nfuture.key=7\ncpu.1.future=x\n"
					"nmi_watchdog=0\n\nmax_sample_rate.after=5\n";

		is(overhead_facts_decode(t, sizeof(t), &g, why, sizeof(why)), 0,
		   "facts: unknown keys are skipped");
		ok(g.nmi_watchdog == 0 && g.max_rate_after == 5, "facts: ... and the rest is read");
		overhead_facts_release(&g);
	}
	{
		/* No NUL: the length bounds the text. */
		static const char t[] = "prec-facts 1\ninterval_ns=42";

		is(overhead_facts_decode(t, sizeof(t) - 1, &g, why, sizeof(why)), 0,
		   "facts: a payload without NUL ends at its length");
		is(g.interval_ns, 42, "facts: ... its last line is read");
		overhead_facts_release(&g);
	}
	is(overhead_facts_decode("prec-facts 2\n", 14, &g, why, sizeof(why)), -EPROTO,
	   "facts: a later version is refused");
	ok(strstr(why, "version 2"), "facts: ... and why says which");
	is(overhead_facts_decode("hello\n", 7, &g, why, sizeof(why)), -EPROTO,
	   "facts: not a facts text");
	is(overhead_facts_decode("", 0, &g, why, sizeof(why)), -EPROTO, "facts: empty");
	is(overhead_facts_decode(NULL, 0, &g, NULL, 0), -EPROTO, "facts: NULL");
	is(overhead_facts_decode("prec-facts 1\nnmi_watchdog\n", 27, &g, why, sizeof(why)), -EINVAL,
	   "facts: a line without '='");
	ok(strstr(why, "line 2"), "facts: ... named by its line");
	is(overhead_facts_decode("prec-facts 1\ninterval_ns=12x\n", 30, &g, why, sizeof(why)),
	   -EINVAL, "facts: a number with junk");
	is(overhead_facts_decode("prec-facts 1\ninterval_ns=-1\n", 29, &g, why, sizeof(why)),
	   -EINVAL, "facts: a negative count");
	is(overhead_facts_decode("prec-facts 1\ninterval_ns=99999999999999999999\n", 46, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: a number beyond 64 bits");
	is(overhead_facts_decode("prec-facts 1\ncpu.70000.wall_ns=1\n", 34, &g, why, sizeof(why)),
	   -EINVAL, "facts: a CPU number out of range");
	is(overhead_facts_decode("prec-facts 1\ncpu.1.stolen.ns=nan\n", 34, &g, why, sizeof(why)),
	   -EINVAL, "facts: a time that is not a number");
	is(overhead_facts_decode("prec-facts 1\ncpu.1.stolen.ns=1e300\n", 36, &g, why, sizeof(why)),
	   -EINVAL, "facts: a time beyond reason");
	is(overhead_facts_decode("prec-facts 1\nevent.1.shared_with=70000\n", 40, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: shared_with an event out of range");
	is(overhead_facts_decode("prec-facts 1\nevent.1.aggregated=2\n", 34, &g, why, sizeof(why)),
	   -EINVAL, "facts: aggregated is 0 or 1");
	is(overhead_facts_decode("prec-facts 1\nevent.1.bpf_counter=shared\n", 40, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: bpf_counter is created or joined");
	{
		/* --bpf-counters: how each event met it, written and read back. */
		struct overhead_facts w, r;
		struct pd_buf bb = { 0 };
		const struct overhead_fact_event *fe;

		overhead_facts_init(&w);
		overhead_facts_event(&w, 2)->bpf_counter = OVERHEAD_FACT_BPF_CREATED;
		overhead_facts_event(&w, 3)->bpf_counter = OVERHEAD_FACT_BPF_JOINED;
		overhead_fact_set_string(overhead_facts_event(&w, 5)->bpf_fallback,
					 sizeof(overhead_facts_event(&w, 5)->bpf_fallback),
					 "the attr map is full\nline two");
		ok(!overhead_facts_encode(&w, &bb), "facts: bpf_counter encoded");
		ok(bb.data && strstr((const char *)bb.data, "event.2.bpf_counter=created\n") &&
			   strstr((const char *)bb.data, "event.3.bpf_counter=joined\n") &&
			   strstr((const char *)bb.data,
				  "event.5.bpf_counter_fallback=the attr map is full\\nline two\n"),
		   "facts: the keys as man/prec-data.5 has them");
		ok(!overhead_facts_decode(bb.data, bb.len, &r, why, sizeof(why)),
		   "facts: bpf_counter decoded");
		fe = overhead_facts_find_event(&r, 2);
		ok(fe && fe->bpf_counter == OVERHEAD_FACT_BPF_CREATED && !fe->bpf_fallback[0],
		   "facts: created");
		fe = overhead_facts_find_event(&r, 3);
		ok(fe && fe->bpf_counter == OVERHEAD_FACT_BPF_JOINED, "facts: joined");
		fe = overhead_facts_find_event(&r, 5);
		ok(fe && fe->bpf_counter == OVERHEAD_FACT_BPF_NONE &&
			   !strcmp(fe->bpf_fallback, "the attr map is full\nline two"),
		   "facts: the fallback's reason");
		is_str(overhead_fact_bpf_name(OVERHEAD_FACT_BPF_JOINED), "joined",
		       "facts: the word for joined");
		ok(!overhead_fact_bpf_name(OVERHEAD_FACT_BPF_NONE), "facts: none has no word");
		overhead_facts_release(&w);
		overhead_facts_release(&r);
		pd_buf_release(&bb);
	}
	is(overhead_facts_decode("prec-facts 1\nnmi_watchdog=-3\n", 29, &g, why, sizeof(why)),
	   -EINVAL, "facts: nmi_watchdog out of range");
	{
		/* Calibrated figures are differences: a noisy run comes out below zero. */
		static const char t[] = "prec-facts 1\ncpu.1.stolen.ns=-45.000\n"
					"cpu.1.stolen.min_ns=-2364.000\ncpu.1.stolen.max_ns=-0.000\n"
					"sideband.comm.ns=-12.500\n";
		const struct overhead_fact_cpu *c1;

		is(overhead_facts_decode(t, sizeof(t), &g, why, sizeof(why)), 0,
		   "facts: negative calibrated figures are read");
		c1 = overhead_facts_find_cpu(&g, 1);
		ok(c1 && c1->stolen.state == OVERHEAD_FACT_OK && c1->stolen.ns == -45 &&
		       c1->stolen.min_ns == -2364 && g.sideband[OVERHEAD_SIDEBAND_COMM].ns == -12.5,
		   "facts: ... with their sign");
		overhead_facts_release(&g);
		overhead_facts_init(&f);
		c = overhead_facts_cpu(&f, 0);
		memset(&cal, 0, sizeof(cal));
		cal.ns = 13600;
		cal.min_ns = -2364;
		cal.max_ns = 14100;
		cal.runs = 7;
		overhead_fact_from_calib(&c->stolen, &cal);
		overhead_facts_encode(&f, &b);
		ok(!overhead_facts_decode(b.data, b.len, &g, why, sizeof(why)) &&
		       (c1 = overhead_facts_find_cpu(&g, 0)) && c1->stolen.min_ns == -2364 &&
		       c1->stolen.ns == 13600,
		   "facts: a negative spread survives encode and decode");
		overhead_facts_release(&g);
		overhead_facts_release(&f);
		pd_buf_release(&b);
	}
	is(overhead_facts_decode("prec-facts 1\ncpu.1.collector.handler_ns=-5\n", 42, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: a negative handler time (measured, not a difference)");
	is(overhead_facts_decode("prec-facts 1\ncpu.1.stolen.ns=-1e300\n", 37, &g, why,
				 sizeof(why)),
	   -EINVAL, "facts: a negative time beyond reason");
	is(overhead_facts_decode("prec-facts 1\ncpu.1.stolen.ns=--5\n", 34, &g, why, sizeof(why)),
	   -EINVAL, "facts: a time with two signs");
	is(g.nr_cpus + g.nr_events, 0, "facts: nothing is left allocated after a failure");
}

/* ---------------------------------------------------------------------------------------- */
/* The per-CPU figures */

static void test_budget_rate(void)
{
	is(overhead_rate_for_budget(14000, 2), 1428, "14 us per sample at 2%: 1428 Hz");
	is(overhead_rate_for_budget(13600, 2), 1470, "13.6 us per sample at 2%: 1470 Hz");
	is(overhead_rate_for_budget(1000, 1), 10000, "1 us per sample at 1%: 10000 Hz exactly");
	is(overhead_rate_for_budget(0, 2), 0, "no cost: no rate");
	is(overhead_rate_for_budget(1000, 0), 0, "no budget: no rate");
}

static void test_format_ns(void)
{
	char buf[32];

	is_str(overhead_format_ns(buf, sizeof(buf), 812), "812 ns", "format: ns");
	is_str(overhead_format_ns(buf, sizeof(buf), 13612.5), "13.6 us", "format: us");
	is_str(overhead_format_ns(buf, sizeof(buf), -2364), "-2.4 us",
	       "format: a negative calibrated difference keeps its sign");
	is_str(overhead_format_ns(buf, sizeof(buf), NAN), "-", "format: not a number");
}

static void test_basis(void)
{
	struct overhead_model *m = overhead_model_new(false);
	struct om_finding *f;
	const struct om_cpu *c0, *c1;
	int ev, n;

	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	/* CPU 0: handler 1 us and stolen 14 us per sample; CPU 1: handler only. */
	sampled_cpu(m, ev, 0, 4000, 1000, 14000, SEC);
	sampled_cpu(m, ev, 1, 4000, 1000, 0, SEC);
	rec(m, 1, "stolen", 0, 0, SEC, "calibration", OVERHEAD_UNAVAILABLE, "no SCHED_FIFO",
	    T0 + SEC);
	rec(m, 0, "mux", 10, 50000, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
	rec(m, 0, "sideband", 100, 150000, SEC, "calibration", OVERHEAD_ESTIMATED, "", T0 + SEC);
	rec(m, -1, "recorder", 1, 30000000, SEC, "rusage", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	c0 = overhead_model_cpu(m, 0);
	c1 = overhead_model_cpu(m, 1);
	ok(c0 && c1, "both CPUs are in the model");
	if (!c0 || !c1)
		goto out;
	is(c0->basis, OM_BASIS_STOLEN, "CPU 0's sampling cost is its stolen time");
	is(c0->basis_ns, 56000000, "... 4000 x 14 us");
	ok(fabs(c0->sampling_pct - 5.6) < 1e-9, "stolen and handler time are never added: 5.6%");
	is(c0->overhead_ns, 56000000 + 50000 + 150000, "overhead = stolen + mux + sideband");
	ok(fabs(c0->overhead_pct - 5.62) < 1e-9, "CPU 0's overhead is 5.62% of its wall time");
	is_str(c0->wall_source, "spans", "without facts the wall time comes from the spans");
	is(c1->basis, OM_BASIS_HANDLER, "CPU 1 has only handler time");
	ok(strstr(c1->basis_note, "no SCHED_FIFO"), "... and says why stolen time is missing");
	ok(fabs(c1->overhead_pct - 0.4) < 1e-9, "CPU 1's overhead is 0.4%");
	is(m->worst >= 0 ? m->cpus[m->worst].cpu : -1, 0, "the worst CPU is CPU 0");
	ok(n >= 1 && find(f, n, "sample-cost"), "sample-cost fires");
out:
	free(f);
	overhead_model_free(m);

	/* Facts give the wall time; a CPU with only unavailable figures has no overhead %. */
	m = overhead_model_new(false);
	{
		struct overhead_facts fa;

		overhead_facts_init(&fa);
		overhead_facts_cpu(&fa, 0)->wall_ns = 4 * SEC;
		set_facts(m, &fa);
	}
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 1000);
	sampled_cpu(m, ev, 0, 1000, 1000, 10000, SEC);
	rec(m, 1, "sample", 0, 0, SEC, "none", OVERHEAD_UNAVAILABLE, "no collector", T0 + SEC);
	rec(m, 1, "mux", 0, 0, SEC, "none", OVERHEAD_UNAVAILABLE, "no collector", T0 + SEC);
	n = judge(m, 2, &f);
	c0 = overhead_model_cpu(m, 0);
	c1 = overhead_model_cpu(m, 1);
	ok(c0 && !strcmp(c0->wall_source, "facts") && c0->wall_ns == 4 * SEC,
	   "the facts' wall time wins over the spans");
	ok(c0 && fabs(c0->overhead_pct - 0.25) < 1e-9, "... 10 ms over 4 s: 0.25%");
	ok(c1 && c1->overhead_pct < 0 && c1->basis == OM_BASIS_NONE,
	   "unavailable figures are not a 0% overhead");
	is(n, 0, "no finding");
	free(f);
	overhead_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* The rules */

static void test_sample_cost(void)
{
	static const struct {
		double stolen;
		u64 rate;
		int severity; /* -1: silent */
		const char *advice;
	} cases[] = {
	    {14000, 4000, OM_WARN, "-F 1428 for cpu-clock"},
	    {12000, 4000, -1, NULL},			      /* 4.8% */
	    {12500, 4000, -1, NULL},			      /* 5.0%: not above */
	    {70000, 4000, OM_SEVERE, "-F 285 for cpu-clock"}, /* 28% */
	    {62500, 4000, OM_WARN, "-F 320 for cpu-clock"},   /* 25%: not above */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		char desc[128];
		int ev, n;

		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			       cases[i].rate);
		sampled_cpu(m, ev, 0, cases[i].rate, 1000, cases[i].stolen, SEC);
		sampled_cpu(m, ev, 1, 100, 1000, 13600, SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "sample-cost");
		snprintf(desc, sizeof(desc), "sample-cost at %.1f us x %llu Hz: %s",
			 cases[i].stolen / 1000, (unsigned long long)cases[i].rate,
			 cases[i].severity < 0 ? "silent"
					       : overhead_severity_name(cases[i].severity));
		if (cases[i].severity < 0) {
			ok(!s, desc);
		} else {
			ok(s && (int)s->severity == cases[i].severity && s->cpu == 0, desc);
			ok(s && has(s->advice, cases[i].advice), "... advice names the rate");
			ok(s && has(s->message, "stolen time, calibrated"),
			   "... and says the cost is the calibrated stolen time");
		}
		free(f);
		overhead_model_free(m);
	}

	/* The 14 us at 4 kHz case, in detail. */
	{
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		int ev, n;

		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			       4000);
		sampled_cpu(m, ev, 0, 4000, 1000, 14000, SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "sample-cost");
		ok(s && fabs(s->value - 5.6) < 1e-9, "14 us x 4 kHz is 5.6% of the CPU");
		ok(s && has(s->message, "CPU 0") && has(s->message, "4000 samples/s") &&
		       has(s->message, "14.0 us per sample") && has(s->message, "1.0 us"),
		   "the message names the CPU, the rate, the cost per sample and the handler");
		ok(s && has(s->advice, "1428 samples/s") && has(s->advice, "2% budget"),
		   "the advice: at most 1428 samples/s for the 2% budget");
		free(f);
		overhead_model_free(m);
	}
	/* --budget 1: half the rate. */
	{
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		int ev, n;

		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			       4000);
		sampled_cpu(m, ev, 0, 4000, 1000, 14000, SEC);
		n = judge(m, 1, &f);
		s = find(f, n, "sample-cost");
		ok(s && has(s->advice, "-F 714 for cpu-clock"), "--budget 1: -F 714");
		free(f);
		overhead_model_free(m);
	}
	/* Two events at 2 kHz each share the budget; a fixed period is scaled as a period. */
	{
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		int a, b, n;

		a = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			      2000);
		b = add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false,
			      500000);
		samples(m, a, 0, 2000, SEC);
		samples(m, b, 0, 2000, SEC);
		rec(m, 0, "stolen", 4000, 56000000, SEC, "calibration", OVERHEAD_ESTIMATED, "",
		    T0 + SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "sample-cost");
		ok(s && has(s->advice, "-F 714 for cpu-clock") &&
		       has(s->advice, "-c 1400561 for task-clock"),
		   "two events: -F 714 for one, -c 1400561 (500000 x 4000 / 1428, up) for the "
		   "other");
		free(f);
		overhead_model_free(m);
	}
	/* Handler time only: said so, and the real cost is higher. */
	{
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		int ev, n;

		ev = add_event(m, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true,
			       20000);
		sampled_cpu(m, ev, 0, 20000, 3000, 0, SEC); /* 6% */
		n = judge(m, 2, &f);
		s = find(f, n, "sample-cost");
		ok(s && has(s->message, "handler time, measured") &&
		       has(s->message, "real cost is higher"),
		   "handler-time basis: said, and the cost called a lower bound");
		ok(s && has(s->advice, "-F 6666 for cycles"), "... 2% at 3 us: 6666 Hz");
		free(f);
		overhead_model_free(m);
	}
}

static void test_throttle(void)
{
	struct overhead_model *m;
	const struct om_finding *s;
	struct om_finding *f;
	struct overhead_facts fa;
	int ev, n;

	/* 5 THROTTLE/UNTHROTTLE pairs of 50 ms on CPU 1 over 1 s: 25% of it, severe. */
	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	fa.max_rate_before = 100000;
	fa.max_rate_after = 25000;
	overhead_facts_event(&fa, 0)->freq = 50000;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 50000);
	sampled_cpu(m, ev, 0, 4000, 1000, 13600, SEC);
	sampled_cpu(m, ev, 1, 4000, 1000, 13600, SEC);
	for (int i = 0; i < 5; i++) {
		u64 t = T0 + (u64)i * 200000000ULL + 10000000ULL;

		overhead_model_add_throttle(m, ev, 1001, 1, t, false);
		overhead_model_add_throttle(m, ev, 1001, 1, t + 50000000ULL, true);
	}
	n = judge(m, 2, &f);
	s = find(f, n, "throttle");
	ok(s && s->severity == OM_SEVERE && s->cpu == 1, "throttle: 25% of CPU 1: severe");
	ok(s && fabs(s->value - 25.0) < 1e-6, "... value: the throttled share");
	ok(s && has(s->message, "5 times") && has(s->message, "250.00 ms"),
	   "... how often and how long");
	ok(s && has(s->message, "was 100000 before and 25000 after") && has(s->message, "lowered"),
	   "... the rate limit before and after");
	ok(s && has(s->advice, "at most 1470") && has(s->advice, "-F 1470 for cpu-clock") &&
	       has(s->advice, "perf_event_max_sample_rate=100000"),
	   "... what to lower, to what, and how to restore the limit");
	ok(find(f, n, "rate-capped"), "rate-capped fires too: 50000 asked, limit now 25000");
	free(f);
	overhead_model_free(m);

	/* One short throttle: a warning. An unthrottle never seen lasts to the end. */
	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	sampled_cpu(m, ev, 0, 4000, 1000, 1000, SEC);
	overhead_model_add_throttle(m, ev, 1000, 0, T0 + SEC - 10000000ULL, false);
	n = judge(m, 2, &f);
	s = find(f, n, "throttle");
	ok(s && s->severity == OM_WARN, "throttle: one short throttle warns");
	ok(m->throttled_ns > 0 && m->throttled_ns <= 10000000ULL,
	   "... an open throttle lasts until the last time seen");
	ok(s && has(s->message, "was not recorded"), "... without facts the limit is unknown");
	free(f);
	overhead_model_free(m);

	/* prec:overhead throttle figures alone (a file without perf's records). */
	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	sampled_cpu(m, ev, 0, 4000, 1000, 1000, SEC);
	rec(m, 0, "throttle", 3, 30000000, SEC, "ring-buffer", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	s = find(f, n, "throttle");
	ok(s && has(s->message, "3 times") && has(s->message, "30.00 ms"),
	   "throttle: from prec:overhead figures");
	free(f);
	overhead_model_free(m);

	/* Silent without throttling. */
	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	sampled_cpu(m, ev, 0, 4000, 1000, 1000, SEC);
	rec(m, 0, "throttle", 0, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	ok(!find(f, n, "throttle"), "throttle: silent with nothing throttled");
	free(f);
	overhead_model_free(m);
}

static void test_lost(void)
{
	struct overhead_model *m;
	const struct om_finding *s;
	struct om_finding *f;
	struct overhead_facts fa;
	int ev, n;

	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	fa.mmap_pages = 128;
	fa.dropped_passes = 3;
	fa.comp_level = 5;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	m->events[ev].attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	samples(m, ev, 0, 10000, SEC);
	overhead_model_add_lost(m, ev, 1, 400, T0 + 300000000ULL, false);
	overhead_model_add_lost(m, ev, 1, 100, T0 + 700000000ULL, true);
	n = judge(m, 2, &f);
	s = find(f, n, "lost");
	ok(s && s->severity == OM_WARN, "lost: 400 of 10400 (3.85%) warns");
	ok(s && has(s->message, "400 events lost (3.85% of 10400 records: 10000 samples, "
				"0 side-band in the file, 400 lost)") &&
	       has(s->message, "dropped 400 records (LOST)") &&
	       has(s->message, "100 records lost (LOST_SAMPLES"),
	   "... how much: LOST and LOST_SAMPLES overlap and are not added");
	ok(s && has(s->message, "from 300.00 ms to 700.00 ms"), "... when");
	ok(s && s->cpu == 1, "... where");
	ok(s && has(s->advice, "-m 256 (now 128 pages)"), "... -m: the next power of two");
	ok(s && fabs(s->value - 100.0 * 400 / 10400) < 1e-9, "... value: the lost share");
	ok(s && has(s->advice, "lower -z level (now 5)"), "... -z: the writer fell behind");
	ok(s && has(s->advice, "no -g"), "... -g: call chains make samples larger");
	free(f);
	overhead_model_free(m);

	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	samples(m, ev, 0, 1000, SEC);
	overhead_model_add_lost(m, ev, 0, 100, T0 + 1000, false);
	n = judge(m, 2, &f);
	s = find(f, n, "lost");
	ok(s && s->severity == OM_SEVERE, "lost: 100 of 1100 (9.1%) is severe");
	ok(s && !strstr(s->advice, "-z"), "... the writer kept up: no -z advice");
	free(f);
	overhead_model_free(m);

	/*
	 * A side-band storm: what the kernel drops is side-band records as much as samples, so
	 * the share is of every record the rings carried (the facts' count), not of the samples.
	 */
	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	fa.have_sideband_records = true;
	fa.sideband_records[PERF_RECORD_MMAP2] = 189000;
	fa.sideband_records[PERF_RECORD_COMM] = 1000;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 1000);
	samples(m, ev, 0, 1000, SEC);
	for (int i = 0; i < 500; i++)
		overhead_model_add_sideband(m, PERF_RECORD_MMAP2); /* the facts' count wins */
	overhead_model_add_lost(m, ev, 0, 10000, T0 + 1000, false);
	n = judge(m, 2, &f);
	s = find(f, n, "lost");
	ok(s && s->severity == OM_WARN && fabs(s->value - 100.0 * 10000 / 201000) < 1e-9,
	   "lost: 10000 of 201000 records (4.98%) warns, not 10000 of 11000 samples");
	ok(s && has(s->message, "10000 events lost (4.98% of 201000 records: 1000 samples, "
				"190000 side-band, 10000 lost)"),
	   "... and says the share is of the records, side-band included");
	free(f);
	overhead_model_free(m);

	/* Without facts, the side-band records in the file, said so. */
	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 1000);
	samples(m, ev, 0, 1000, SEC);
	for (int i = 0; i < 9000; i++)
		overhead_model_add_sideband(m, PERF_RECORD_MMAP2);
	overhead_model_add_throttle(m, ev, 7, 0, T0 + 10, false);
	overhead_model_add_throttle(m, ev, 7, 0, T0 + 20, true);
	overhead_model_add_lost(m, ev, 0, 998, T0 + 1000, false);
	n = judge(m, 2, &f);
	s = find(f, n, "lost");
	ok(s && s->severity == OM_SEVERE && fabs(s->value - 100.0 * 998 / 11000) < 1e-9 &&
	       has(s->message, "(9.07% of 11000 records: 1000 samples, 9000 side-band in the file, "
			       "998 lost)"),
	   "lost: side-band records from the file, THROTTLE/UNTHROTTLE counted as records");
	free(f);
	overhead_model_free(m);

	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	samples(m, ev, 0, 1000, SEC);
	rec(m, 0, "lost", 20, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	ok(find(f, n, "lost"), "lost: from prec:overhead figures alone");
	free(f);
	overhead_model_free(m);

	m = overhead_model_new(false);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	samples(m, ev, 0, 1000, SEC);
	rec(m, 0, "lost", 0, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	ok(!find(f, n, "lost"), "lost: silent when nothing was lost");
	free(f);
	overhead_model_free(m);
}

static void test_multiplex(void)
{
	static const struct {
		double running;
		int watchdog;
		int severity;
	} cases[] = {
	    {0.60, 1, OM_WARN},
	    {0.40, 0, OM_SEVERE},
	    {0.995, 1, -1},
	    {1.0, 1, -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		struct overhead_facts fa;
		char desc[96];
		int a, b, n;

		overhead_facts_init(&fa);
		fa.nmi_watchdog = cases[i].watchdog;
		set_facts(m, &fa);
		a = add_event(m, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, 0);
		b = add_event(m, "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
			      false, 0);
		for (int c = 0; c < 2; c++) {
			/* Cumulative: only the last reading of each counter counts. */
			overhead_model_add_counter(m, a, 11 + c, c, 0, SEC / 2, SEC / 4);
			overhead_model_add_counter(m, a, 11 + c, c, 0, SEC,
						   (u64)(cases[i].running * SEC));
			overhead_model_add_counter(m, b, 21 + c, c, 0, SEC, SEC);
		}
		rec(m, 0, "mux", 250, 750000, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "multiplex");
		snprintf(
		    desc, sizeof(desc), "multiplex at %.1f%% running: %s", cases[i].running * 100,
		    cases[i].severity < 0 ? "silent" : overhead_severity_name(cases[i].severity));
		if (cases[i].severity < 0) {
			ok(!s, desc);
			free(f);
			overhead_model_free(m);
			continue;
		}
		ok(s && (int)s->severity == cases[i].severity, desc);
		snprintf(desc, sizeof(desc), "instructions %.1f%%", cases[i].running * 100);
		ok(s && has(s->message, desc) && !strstr(s->message, "cache-misses"),
		   "... names the event that ran less, and only it");
		ok(s && has(s->message, "750.0 us"), "... the rotation cost");
		ok(s && has(s->advice, "group"), "... advice: groups");
		if (cases[i].watchdog)
			ok(s && has(s->advice, "nmi_watchdog=0"), "... the NMI watchdog holds one");
		else
			ok(s && !strstr(s->advice, "watchdog"),
			   "... no watchdog advice when it is off");
		free(f);
		overhead_model_free(m);
	}
}

static void test_sideband(void)
{
	static const struct {
		double pct;
		u32 kind;
		int severity;
		const char *advice;
	} cases[] = {
	    {2.0, PERF_RECORD_MMAP2, OM_WARN, "mmap storm"},
	    {6.0, PERF_RECORD_SWITCH_CPU_WIDE, OM_SEVERE, "--switch-events"},
	    {3.0, PERF_RECORD_FORK, OM_WARN, "--no-inherit"},
	    {0.5, PERF_RECORD_MMAP2, -1, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		struct overhead_facts fa;
		u64 nr = (u64)(cases[i].pct / 100 * SEC / 2000);
		char desc[96];
		int ev, n;

		overhead_facts_init(&fa);
		fa.have_sideband_records = true;
		fa.sideband_records[cases[i].kind] = nr * 9 / 10;
		fa.sideband_records[PERF_RECORD_COMM] = nr / 10;
		set_facts(m, &fa);
		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			       1000);
		sampled_cpu(m, ev, 0, 1000, 1000, 13600, SEC);
		rec(m, 0, "sideband", nr, nr * 2000, SEC, "calibration", OVERHEAD_ESTIMATED, "",
		    T0 + SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "sideband");
		snprintf(desc, sizeof(desc), "sideband at %.1f%%: %s", cases[i].pct,
			 cases[i].severity < 0 ? "silent"
					       : overhead_severity_name(cases[i].severity));
		if (cases[i].severity < 0) {
			ok(!s, desc);
		} else {
			ok(s && (int)s->severity == cases[i].severity && s->cpu == 0, desc);
			ok(s && has(s->message, pd_record_type_name(cases[i].kind)) &&
			       has(s->message, "90%") && has(s->message, "2.0 us each"),
			   "... by kind, with the cost per record");
			ok(s && has(s->advice, cases[i].advice), "... advice for that kind");
		}
		free(f);
		overhead_model_free(m);
	}
}

static void test_recorder(void)
{
	static const struct {
		double pct;
		s64 dropped;
		int severity;
	} cases[] = {
	    {60, 0, OM_WARN}, {95, 0, OM_SEVERE}, {30, 0, -1}, {10, 4, OM_WARN}, {50, 0, -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		struct overhead_facts fa;
		char desc[96];
		int ev, n;

		overhead_facts_init(&fa);
		fa.dropped_passes = cases[i].dropped;
		set_facts(m, &fa);
		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true,
			       1000);
		sampled_cpu(m, ev, 0, 1000, 1000, 13600, 2 * SEC);
		rec(m, -1, "recorder", 2, (u64)(cases[i].pct / 100 * 2 * SEC), 2 * SEC, "rusage",
		    OVERHEAD_MEASURED, "", T0 + 2 * SEC);
		rec(m, -1, "write", 1 << 20, SEC / 10, 2 * SEC, "clock", OVERHEAD_MEASURED, "",
		    T0 + 2 * SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "recorder-cpu");
		snprintf(desc, sizeof(desc), "recorder-cpu at %.0f%%%s: %s", cases[i].pct,
			 cases[i].dropped ? ", writer behind" : "",
			 cases[i].severity < 0 ? "silent"
					       : overhead_severity_name(cases[i].severity));
		if (cases[i].severity < 0) {
			ok(!s, desc);
		} else {
			ok(s && (int)s->severity == cases[i].severity, desc);
			if (cases[i].dropped)
				ok(s && has(s->message, "fell behind") &&
				       has(s->message, "4 drain"),
				   "... writing fell behind, by how much");
			else
				ok(s && has(s->message, "of a CPU") && has(s->message, "100.00 ms"),
				   "... the share of a CPU and the write time");
		}
		free(f);
		overhead_model_free(m);
	}
}

static void test_short_period(void)
{
	struct overhead_model *m;
	const struct om_finding *s;
	struct overhead_facts fa;
	struct om_finding *f;
	int ev, n;

	/* task-clock every 20000 ns at 1.2 us a sample: 50 kHz, 6%. */
	m = overhead_model_new(false);
	ev = add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, 20000);
	sampled_cpu(m, ev, 0, 50000, 1200, 0, SEC);
	n = judge(m, 2, &f);
	s = find(f, n, "short-period");
	ok(s && s->severity == OM_WARN && s->cpu == 0, "short-period: 50 kHz at 6% warns");
	ok(s && has(s->message, "every 20000 events") && has(s->message, "50000 samples/s"),
	   "... names the period and the rate");
	ok(s && has(s->advice, "period of 60003 or more") && has(s->advice, "-F 16666"),
	   "... a period of ceil(20000 x 50000 / 16666) = 60003, or -F 16666");
	free(f);
	overhead_model_free(m);

	/*
	 * The same attr from prec record -e task-clock -F 50000, whose facts say a frequency was
	 * asked: not a short period, and the advice is a lower -F.
	 */
	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	overhead_facts_event(&fa, 0)->freq = 50000;
	set_facts(m, &fa);
	ev = add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, 20000);
	sampled_cpu(m, ev, 0, 50000, 1200, 0, SEC);
	n = judge(m, 2, &f);
	ok(!find(f, n, "short-period"), "short-period: silent for -F 50000 as prec's fixed period");
	s = find(f, n, "sample-cost");
	ok(s && has(s->advice, "-F ") && !has(s->advice, "-c "),
	   "... and any advice on its rate is a frequency");
	free(f);
	overhead_model_free(m);

	/* 5 kHz: not short. */
	m = overhead_model_new(false);
	ev =
	    add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, 200000);
	sampled_cpu(m, ev, 0, 5000, 1200, 14000, SEC); /* 7%, but 5 kHz */
	n = judge(m, 2, &f);
	ok(!find(f, n, "short-period"), "short-period: silent at 5 kHz");
	ok(find(f, n, "sample-cost"), "... while sample-cost speaks for the 7%");
	free(f);
	overhead_model_free(m);

	/* 20 kHz with a cheap interrupt (0.2 us: 0.4%): interrupts do not dominate. */
	m = overhead_model_new(false);
	ev = add_event(m, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, 1);
	sampled_cpu(m, ev, 0, 20000, 200, 0, SEC);
	n = judge(m, 2, &f);
	ok(!find(f, n, "short-period"), "short-period: silent when each interrupt is cheap");
	free(f);
	overhead_model_free(m);

	/* No cost figure at all: the rate alone, and no figure invented. */
	m = overhead_model_new(false);
	ev = add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, 20000);
	samples(m, ev, 0, 50000, SEC);
	rec(m, 0, "sideband", 1, 1000, SEC, "calibration", OVERHEAD_ESTIMATED, "", T0 + SEC);
	n = judge(m, 2, &f);
	s = find(f, n, "short-period");
	ok(s && has(s->message, "not measured") && has(s->advice, "period of 250000"),
	   "short-period: without a cost, the rate alone: -c 250000 for about 4000 samples/s");
	free(f);
	overhead_model_free(m);
}

static void test_rate_capped(void)
{
	static const struct {
		u64 want, before, after;
		bool facts;
		bool fires;
	} cases[] = {
	    {50000, 100000, 25000, true, true},
	    {50000, 40000, 40000, true, true},
	    {20000, 100000, 25000, true, false},
	    {50000, 0, 0, false, false},
	};

	/*
	 * Each case twice: with the attr perf writes (freq), then with prec's for cpu-clock (the
	 * fixed period 1e9/F the kernel makes of it; the facts keep the frequency asked).
	 */
	for (size_t k = 0; k < 2 * sizeof(cases) / sizeof(cases[0]); k++) {
		size_t i = k % (sizeof(cases) / sizeof(cases[0]));
		bool as_period = k >= sizeof(cases) / sizeof(cases[0]);
		struct overhead_model *m = overhead_model_new(false);
		const struct om_finding *s;
		struct om_finding *f;
		char desc[160], want[64];
		int ev, n;
		u64 freq;

		if (cases[i].facts) {
			struct overhead_facts fa;

			overhead_facts_init(&fa);
			fa.max_rate_before = cases[i].before;
			fa.max_rate_after = cases[i].after;
			overhead_facts_event(&fa, 0)->freq = cases[i].want;
			set_facts(m, &fa);
		}
		/* The recorder capped the attr at the limit before opening the event. */
		freq = cases[i].before && cases[i].want > cases[i].before ? cases[i].before
									  : cases[i].want;
		ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			       !as_period, as_period ? 1000000000 / freq : freq);
		sampled_cpu(m, ev, 0, 1000, 1000, 1000, SEC);
		n = judge(m, 2, &f);
		s = find(f, n, "rate-capped");
		snprintf(desc, sizeof(desc), "rate-capped: -F %llu, limit %llu then %llu%s: %s",
			 (unsigned long long)cases[i].want, (unsigned long long)cases[i].before,
			 (unsigned long long)cases[i].after,
			 as_period ? ", prec's fixed period" : "", cases[i].fires ? "fires" : "silent");
		ok(!s == !cases[i].fires, desc);
		if (s) {
			snprintf(want, sizeof(want), "ask for -F %llu or less",
				 (unsigned long long)cases[i].after);
			ok(has(s->message, "cpu-clock") && has(s->advice, want),
			   "... names the event and the frequency to ask for");
		}
		free(f);
		overhead_model_free(m);
	}
}

static void test_duplicates(void)
{
	struct overhead_model *m;
	const struct om_finding *s;
	struct om_finding *f;
	struct perf_event_attr a;
	int n;

	/* cycles sampled and cycles counted: the same counter twice, with interrupts: warn. */
	m = overhead_model_new(false);
	add_event(m, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, 4000);
	add_event(m, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 0);
	add_event(m, "cycles-again", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0);
	a = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0);
	a.exclude_user = 1; /* cycles:k: another counter */
	overhead_model_add_event(m, &a, "cycles:k", false);
	a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false, 1);
	overhead_model_add_event(m, &a, "dummy", false);
	overhead_model_add_event(m, &a, "dummy", false);
	a = attr_of(PERF_TYPE_TRACEPOINT, OVERHEAD_EVENT_ID, false, 1);
	overhead_model_add_event(m, &a, "prec:overhead", true);
	overhead_model_add_event(m, &a, "prec:overhead", true);
	n = judge(m, 2, &f);
	s = find(f, n, "duplicate-events");
	ok(s && s->severity == OM_WARN, "duplicate-events: a sampled event opened twice warns");
	ok(s && has(s->message, "cycles, cycles-again") && !strstr(s->message, "cycles:k"),
	   "... names the copies, not an event with other exclusions");
	ok(s && s->value == 2, "... two copies");
	is(n, 1, "... dummy events and prec:overhead are never duplicates");
	free(f);
	overhead_model_free(m);

	/* Counting only: info. And shared ones (opened once, facts say so) are fine. */
	m = overhead_model_new(false);
	{
		struct overhead_facts fa;

		overhead_facts_init(&fa);
		overhead_facts_event(&fa, 3)->shared_with = 2;
		set_facts(m, &fa);
	}
	add_event(m, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 0);
	add_event(m, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 0);
	add_event(m, "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, 0);
	add_event(m, "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, 0);
	n = judge(m, 2, &f);
	s = find(f, n, "duplicate-events");
	ok(s && s->severity == OM_INFO && has(s->message, "instructions"),
	   "duplicate-events: counting copies are info");
	is(n, 1, "... and events sharing one counter are not reported");
	free(f);
	overhead_model_free(m);
}

/* A modest recording: 1 kHz, 13.6 us per sample, a little side-band, a quiet recorder. */
static void test_modest(void)
{
	struct overhead_model *m = overhead_model_new(true);
	struct om_finding *f;
	struct overhead_facts fa;
	int ev, n;

	overhead_facts_init(&fa);
	fa.max_rate_before = fa.max_rate_after = 100000;
	fa.nmi_watchdog = 1;
	fa.mmap_pages = 128;
	fa.dropped_passes = 0;
	overhead_facts_event(&fa, 0)->freq = 1000;
	for (int c = 0; c < 2; c++)
		overhead_facts_cpu(&fa, c)->wall_ns = 3 * SEC;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 1000);
	for (int iv = 1; iv <= 3; iv++) {
		for (int c = 0; c < 2; c++) {
			for (int i = 0; i < 1000; i++)
				overhead_model_add_sample(m, ev, c, T0 + (u64)(iv - 1) * SEC + i);
			rec(m, c, "sample", 1000, 1000000, SEC, "bpf", OVERHEAD_MEASURED, "",
			    T0 + iv * SEC);
			rec(m, c, "stolen", 1000, 13600000, SEC, "calibration", OVERHEAD_ESTIMATED,
			    "", T0 + iv * SEC);
			rec(m, c, "mux", 0, 0, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + iv * SEC);
			rec(m, c, "sideband", 20, 30000, SEC, "calibration", OVERHEAD_ESTIMATED, "",
			    T0 + iv * SEC);
			rec(m, c, "throttle", 0, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "",
			    T0 + iv * SEC);
			rec(m, c, "lost", 0, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "",
			    T0 + iv * SEC);
		}
		rec(m, -1, "recorder", 1, 30000000, SEC, "rusage", OVERHEAD_MEASURED, "",
		    T0 + iv * SEC);
		rec(m, -1, "write", 100000, 2000000, SEC, "clock", OVERHEAD_MEASURED, "",
		    T0 + iv * SEC);
	}
	n = judge(m, 2, &f);
	is(n, 0, "a modest recording has no findings");
	for (int i = 0; i < n; i++)
		diag("%s: %s", f[i].id, f[i].message);
	is(m->nr_intervals, 3, "three intervals");
	ok(m->nr_intervals == 3 && !m->intervals[0].spike && !m->intervals[2].spike,
	   "no spike in a steady recording");
	ok(m->worst >= 0 && fabs(m->cpus[m->worst].overhead_pct - 1.363) < 1e-9,
	   "the worst CPU: 13.6 ms + 30 us a second: 1.363%");
	free(f);
	overhead_model_free(m);
}

static void test_intervals(void)
{
	struct overhead_model *m = overhead_model_new(true);
	struct om_finding *f;
	int ev;

	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 1000);
	(void)ev;
	for (int iv = 1; iv <= 5; iv++) {
		u64 n = iv == 4 ? 3000 : 1000; /* a spike in the fourth */

		rec(m, 0, "stolen", n, n * 14000, SEC, "calibration", OVERHEAD_ESTIMATED, "",
		    T0 + iv * SEC);
		rec(m, 0, "sample", n, n * 1000, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + iv * SEC);
		rec(m, 1, "sample", 500, 500000, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + iv * SEC);
		rec(m, 1, "throttle", iv == 2 ? 7 : 0, 0, SEC, "ring-buffer", OVERHEAD_MEASURED, "",
		    T0 + iv * SEC);
	}
	judge(m, 2, &f);
	is(m->nr_intervals, 5, "five intervals, one per time");
	ok(m->nr_intervals == 5 && m->intervals[3].spike && !m->intervals[2].spike,
	   "the fourth is a spike, the others are not");
	ok(m->nr_intervals == 5 && fabs(m->intervals[3].worst_pct - 4.2) < 1e-9 &&
	       m->intervals[3].worst_cpu == 0,
	   "... CPU 0 at 4.2% (stolen, not stolen + handler)");
	ok(m->nr_intervals == 5 && fabs(m->intervals[0].cpus[1].pct - 0.05) < 1e-9,
	   "CPU 1 has handler time only: 0.05%");
	ok(m->nr_intervals == 5 && m->intervals[1].throttles == 7, "throttles per interval");
	free(f);
	overhead_model_free(m);
}

/*
 * Handler time the tracepoint collector wrote as estimated (its buffer dropped records) is a
 * lower bound, and the findings say so instead of calling it measured.
 */
static void test_lower_bound(void)
{
	struct overhead_model *m = overhead_model_new(false);
	const struct om_finding *sc;
	const struct om_cpu *c;
	struct om_finding *f;
	int ev, n;

	ev = add_event(m, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, 20000);
	samples(m, ev, 0, 20000, SEC);
	/* CPU 0: 8% of its second in the handler, a quarter of it estimated; CPU 1: 6% */
	rec(m, 0, "sample", 15000, 60000000, SEC / 2, "tracepoint", OVERHEAD_MEASURED, "",
	    T0 + SEC / 2);
	rec(m, 0, "sample", 5000, 20000000, SEC / 2, "tracepoint", OVERHEAD_ESTIMATED,
	    "the collector's buffer dropped 5000 records: a lower bound", T0 + SEC);
	samples(m, ev, 1, 20000, SEC);
	rec(m, 1, "sample", 20000, 60000000, SEC, "tracepoint", OVERHEAD_MEASURED, "", T0 + SEC);
	n = judge(m, 2, &f);
	c = overhead_model_cpu(m, 0);
	ok(c && c->basis == OM_BASIS_HANDLER && c->handler_nr == 20000 && c->handler_lower_bound,
	   "estimated handler time is summed with the measured, and marked a lower bound");
	c = overhead_model_cpu(m, 1);
	ok(c && !c->handler_lower_bound, "measured handler time alone is not");
	sc = find(f, n, "sample-cost");
	ok(sc && sc->cpu == 0 &&
	       has(sc->message, "handler time, a lower bound (the collector dropped records)") &&
	       !strstr(sc->message, "measured"),
	   "sample-cost calls it a lower bound, not measured");
	free(f);
	overhead_model_free(m);
}

/*
 * One rule for "can one counter serve both events?": prec record --count shares a counter by
 * counters_compatible(), and the duplicate-events finding advises asking once for what it calls
 * duplicates. Two counting events that differ in one field go through both: the finding names
 * them exactly when prec record would open them once. The model does not know the target, so
 * both are judged as for a task (cpu_wide false), where inherit matters too.
 */
static void test_duplicates_share_rule(void)
{
	/* b is a with the bits of flip flipped: one field differs, or none. */
	static const struct {
		const char *what;
		u32 type;
		struct perf_event_attr flip;
		bool share;
	} cases[] = {
		{"the same attr", PERF_TYPE_HARDWARE, {.size = 0}, true},
		{"precise_ip differs", PERF_TYPE_HARDWARE, {.precise_ip = 2}, false},
		{"pinned differs", PERF_TYPE_HARDWARE, {.pinned = 1}, false},
		{"exclusive differs", PERF_TYPE_HARDWARE, {.exclusive = 1}, false},
		{"inherit differs (a task)", PERF_TYPE_HARDWARE, {.inherit = 1}, false},
		{"inherit_stat differs (a task)", PERF_TYPE_HARDWARE, {.inherit_stat = 1}, false},
		{"a breakpoint's bp_type differs", PERF_TYPE_BREAKPOINT, {.bp_type = 3}, false},
		{"exclude_idle differs", PERF_TYPE_HARDWARE, {.exclude_idle = 1}, false},
		{"config1 differs", PERF_TYPE_RAW, {.config1 = 1}, false},
	};
	char desc[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_attr a = attr_of(cases[i].type, 0x11, false, 0), b;
		struct overhead_model *m = overhead_model_new(false);
		struct om_finding *f;
		bool dup;
		int n;

		a.inherit = 1;
		if (cases[i].type == PERF_TYPE_BREAKPOINT)
			a.bp_type = 2;
		b = a;
		for (size_t k = 0; k < sizeof(b); k++)
			((unsigned char *)&b)[k] ^= ((const unsigned char *)&cases[i].flip)[k];
		overhead_model_add_event(m, &a, "a", false);
		overhead_model_add_event(m, &b, "b", false);
		n = judge(m, 2, &f);
		dup = find(f, n, "duplicate-events") != NULL;
		snprintf(desc, sizeof(desc), "counting events, %s: %s", cases[i].what,
			 cases[i].share ? "duplicate-events names them" : "no duplicate-events");
		ok(dup == cases[i].share, desc);
		snprintf(desc, sizeof(desc), "... and counters_compatible() %s",
			 cases[i].share ? "shares them" : "keeps them apart");
		ok(counters_compatible(&a, &b, false) == cases[i].share, desc);
		free(f);
		overhead_model_free(m);
	}
}

/* Sampled cycles and cycles:pp take their samples differently: not one event asked twice. */
static void test_duplicates_precise(void)
{
	struct overhead_model *m = overhead_model_new(false);
	struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, 4000);
	struct om_finding *f;
	int n;

	overhead_model_add_event(m, &a, "cycles", false);
	a.precise_ip = 2;
	overhead_model_add_event(m, &a, "cycles:pp", false);
	n = judge(m, 2, &f);
	ok(!find(f, n, "duplicate-events"), "sampled cycles and cycles:pp are not duplicates");
	free(f);
	overhead_model_free(m);
}

/* The steps taken so far: the model's loop turns and the slots its hash lookups looked at. */
static u64 steps_now(void)
{
	return overhead_steps + hash_index_probes;
}

/*
 * 65536 CPUs, each with its figures, throttles, samples and a facts entry: reading the facts,
 * adding and finishing take steps (steps_now()) in proportion to the figures. A lookup that
 * walks the CPUs for each CPU would take billions here.
 */
static void test_many_cpus(void)
{
	const int nr = OM_MAX_CPU + 1;
	struct overhead_model *m = overhead_model_new(true);
	struct pd_buf b = PD_BUF_INIT;
	struct om_finding *f = NULL;
	const struct om_cpu *c;
	char line[96];
	u64 steps;
	int ev, n;

	pd_buf_append(&b, "prec-facts 1\n", 13);
	for (int cpu = nr - 1; cpu >= 0; cpu--) {
		n = snprintf(line, sizeof(line), "cpu.%d.wall_ns=%llu\ncpu.%d.stolen.error=busy\n",
			     cpu, 2 * SEC, cpu);
		pd_buf_append(&b, line, (size_t)n);
	}
	pd_buf_append(&b, "", 1);
	steps = steps_now();
	is(overhead_model_set_facts(m, b.data, b.len), 0, "facts for 65536 CPUs decode");
	steps = steps_now() - steps;
	ok(m->have_facts && m->facts.nr_cpus == (u32)nr && steps <= 4 * 2 * (u64)nr,
	   "in steps in proportion to their lines");
	diag("facts: %llu steps for %d lines", (unsigned long long)steps, 2 * nr);
	pd_buf_release(&b);

	steps = steps_now();
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, false, 100000);
	for (int cpu = 0; cpu < nr; cpu++) {
		rec(m, cpu, "sample", 10, 10000, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
		rec(m, cpu, "stolen", 0, 0, SEC, "calibration", OVERHEAD_UNAVAILABLE,
		    "no SCHED_FIFO", T0 + SEC);
		overhead_model_add_sample(m, ev, cpu, T0 + (u64)cpu);
		overhead_model_add_throttle(m, ev, 7, cpu, T0 + 10, false);
		overhead_model_add_throttle(m, ev, 7, cpu, T0 + 20 + (u64)cpu, true);
	}
	overhead_model_add_sample(m, ev, nr / 2, T0 + 1);
	n = judge(m, 2, &f);
	steps = steps_now() - steps;
	ok(n >= 0 && steps <= 64 * (u64)nr,
	   "adding, finishing and judging take steps in proportion");
	diag("model: %llu steps for %d CPUs", (unsigned long long)steps, nr);
	c = overhead_model_cpu(m, nr - 1);
	ok(c && c->cpu == nr - 1 && c->basis == OM_BASIS_HANDLER && c->wall_ns == 2 * SEC &&
	       strstr(c->basis_note, "no SCHED_FIFO") && c->throttled_ns == 10 + (u64)(nr - 1),
	   "and the last CPU has its figures, its facts, its note and its throttled time");
	ok(m->nr_intervals == 1 && m->intervals[0].nr_cpus == (u32)nr &&
	       m->intervals[0].cpus[nr - 1].cpu == nr - 1,
	   "the interval holds every CPU once, in order");
	ok(m->events[ev].peak_cpu == nr / 2, "the event's fastest CPU is the one with two samples");
	free(f);
	overhead_model_free(m);
}

/* Damaged figures must not crash or mislead the arithmetic. */
static void test_hostile(void)
{
	struct overhead_model *m = overhead_model_new(true);
	struct overhead_record r = {70000, "sample", 1, 1, 1, "bpf", 0, ""};
	struct om_finding *f;
	int n;

	is(overhead_model_add_record(m, &r, T0), -EINVAL, "a CPU out of range is refused");
	r.cpu = -2;
	is(overhead_model_add_record(m, &r, T0), -EINVAL, "so is a CPU below -1");
	r.cpu = 0;
	r.nr = UINT64_MAX;
	r.time_ns = UINT64_MAX;
	r.span_ns = 0;
	overhead_model_add_record(m, &r, T0);
	overhead_model_add_record(m, &r, T0);
	r.type = "stolen";
	r.estimated = 7;
	overhead_model_add_record(m, &r, 0);
	overhead_model_add_sample(m, 99, 5, 0);
	overhead_model_add_sample(m, -1, -1, 0);
	overhead_model_add_lost(m, 42, 70000, 5, 0, false);
	overhead_model_add_throttle(m, 7, 1, 1, 10, true);
	overhead_model_add_counter(m, 99, 1, 0, 0, 0, 5);
	overhead_model_add_sideband(m, 4000);
	n = judge(m, 2, &f);
	ok(n >= 0, "judging damaged figures works");
	ok(!overhead_model_cpu(m, 70000), "no CPU 70000");
	{
		const struct om_cpu *c = overhead_model_cpu(m, 0);

		ok(c && c->handler_ns == UINT64_MAX, "sums saturate instead of wrapping");
		ok(c && !strcmp(c->wall_source, "samples") && isfinite(c->overhead_pct),
		   "no span: the wall time from the first to the last record, a finite %");
	}
	free(f);
	overhead_model_free(m);
	overhead_model_free(NULL);
}

/*
 * --aggregate: the program's run time adds to a CPU's overhead (the stolen time was calibrated
 * without it), and what its full maps lost is advised on with --aggregate-entries, not -m, while
 * a ring-buffer loss in the same file keeps its own advice.
 */
static void test_aggregate(void)
{
	struct overhead_model *m;
	const struct om_cpu *c;
	const struct om_finding *s;
	struct om_finding *f;
	struct overhead_facts fa;
	int ev, n, nr_lost = 0;

	m = overhead_model_new(true);
	overhead_facts_init(&fa);
	fa.mmap_pages = 128;
	fa.aggregate_entries = 64;
	fa.aggregate_interval_ns = SEC;
	overhead_facts_event(&fa, 0)->aggregated = true;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	/* 48 keys written for 4000 kernel samples (the program's runs), 300 of them lost */
	samples(m, ev, 0, 48, SEC);
	rec(m, 0, "stolen", 4000, 4000 * 13600ULL, SEC, "calibration", OVERHEAD_ESTIMATED, "",
	    T0 + SEC);
	rec(m, 0, "aggregate", 4000, 4000 * 800ULL, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
	rec(m, 0, "lost", 300, 0, SEC, "bpf", OVERHEAD_MEASURED,
	    "aggregate: count map full (--aggregate-entries 64)", T0 + SEC);
	overhead_model_add_lost(m, ev, 0, 300, T0 + SEC, true);
	n = judge(m, 2, &f);
	c = overhead_model_cpu(m, 0);
	ok(c && c->aggregate_ns == 4000 * 800ULL && c->have_aggregate,
	   "aggregate: the program's run time per CPU");
	ok(c && c->overhead_ns == 4000 * 13600ULL + 4000 * 800ULL,
	   "... added to the stolen time in the CPU's overhead");
	ok(m->nr_intervals == 1 && m->intervals[0].cpus[0].aggregate_ns == 4000 * 800ULL &&
	       fabs(m->intervals[0].cpus[0].pct - 100.0 * (4000 * 14400.0) / SEC) < 1e-9,
	   "... and in the interval's");
	for (int i = 0; i < n; i++)
		nr_lost += !strcmp(f[i].id, "lost");
	s = find(f, n, "lost");
	is(nr_lost, 1, "aggregate lost: one finding, the LOST_SAMPLES carrying the same loss");
	ok(s && has(s->message, "300 samples lost in the kernel (7.50% of 4000)") &&
	       has(s->message, "count map full (--aggregate-entries 64)") &&
	       has(s->message, "the count map holds 64 keys, 48 were written"),
	   "... the count lost, the map size, the keys written");
	ok(s && s->severity == OM_SEVERE, "... 7.50% of the kernel samples is severe");
	ok(s && has(s->advice, "--aggregate-entries 512 (now 64)") && !strstr(s->advice, "-m "),
	   "... advice: 64 * (48 + 300) / 48 = 464 keys: --aggregate-entries 512, not -m");
	free(f);
	overhead_model_free(m);

	/* the rings lost records too: a second finding, with -m */
	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	fa.mmap_pages = 128;
	fa.aggregate_entries = 64;
	overhead_facts_event(&fa, 0)->aggregated = true;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	samples(m, ev, 0, 48, SEC);
	rec(m, 0, "aggregate", 4000, 4000 * 800ULL, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
	rec(m, 0, "lost", 300, 0, SEC, "bpf", OVERHEAD_MEASURED,
	    "aggregate: count map full (--aggregate-entries 64)", T0 + SEC);
	overhead_model_add_lost(m, ev, 0, 300, T0 + SEC, true);
	overhead_model_add_lost(m, ev, 0, 20, T0 + SEC, false);
	n = judge(m, 2, &f);
	nr_lost = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(f[i].id, "lost"))
			continue;
		nr_lost++;
		ok(strstr(f[i].advice, "--aggregate-entries") ? !strstr(f[i].advice, "-m ")
							       : has(f[i].message, "20 events lost") &&
								 has(f[i].advice, "-m 256"),
		   "... each loss with its own advice");
	}
	is(nr_lost, 2, "aggregate and ring-buffer losses: two findings");
	free(f);
	overhead_model_free(m);

	/*
	 * Stacks that found their bucket taken: the samples are counted (under [lost stack]),
	 * no LOST_SAMPLES; one finding that says so, apart from lost keys.
	 */
	m = overhead_model_new(false);
	overhead_facts_init(&fa);
	fa.aggregate_entries = 64;
	overhead_facts_event(&fa, 0)->aggregated = true;
	set_facts(m, &fa);
	ev = add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 4000);
	samples(m, ev, 0, 48, SEC);
	rec(m, 0, "aggregate", 4000, 4000 * 800ULL, SEC, "bpf", OVERHEAD_MEASURED, "", T0 + SEC);
	rec(m, 0, "lost", 40, 0, SEC, "bpf-stack", OVERHEAD_MEASURED,
	    "aggregate: stack map bucket taken or map full (--aggregate-entries 64)", T0 + SEC);
	n = judge(m, 2, &f);
	nr_lost = 0;
	for (int i = 0; i < n; i++)
		nr_lost += !strcmp(f[i].id, "lost");
	s = find(f, n, "lost");
	is(nr_lost, 1, "lost stacks alone: one finding");
	ok(s && has(s->message, "40 samples (1.00% of 4000) lost their stack") &&
	       !strstr(s->message, "samples lost in the kernel") &&
	       has(s->advice, "--aggregate-entries"),
	   "... the samples kept under [lost stack], not called lost, and larger maps advised");
	free(f);
	overhead_model_free(m);
}

int main(void)
{
	test_facts();
	test_budget_rate();
	test_format_ns();
	test_basis();
	test_sample_cost();
	test_throttle();
	test_lost();
	test_aggregate();
	test_multiplex();
	test_sideband();
	test_recorder();
	test_short_period();
	test_rate_capped();
	test_duplicates();
	test_duplicates_share_rule();
	test_duplicates_precise();
	test_modest();
	test_intervals();
	test_lower_bound();
	test_many_cpus();
	test_hostile();
	return done_testing();
}
