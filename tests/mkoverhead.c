// SPDX-License-Identifier: GPL-2.0
/*
 * mkoverhead: write perf.data files of known overhead figures, for what this machine cannot
 * produce (NMI handler cost, multiplexing, heavy throttling) and for recordings whose every
 * figure a test must know: tests/t31xx read them through prec report --overhead and its JSON,
 * tests/t40xx through perf script -s scripts/prec-overhead.py.
 *
 * A file holds, per interval of SPAN ns: the workload's samples at the rates of the kind, perf's
 * own THROTTLE/UNTHROTTLE, LOST and LOST_SAMPLES records, STAT rounds for counting events, and
 * at the interval's end the prec:overhead samples a recorder writes (one per CPU and type, and
 * the session's with cpu -1); then the facts section, encoded with overhead/facts.h as the
 * recorder does. The manifest on stdout says what went in:
 *
 *	cost CPU TYPE NR TIME_NS SOURCE STATUS	summed over the intervals
 *	wall CPU NS				the CPU's wall time
 *	samples EVENT CPU N			workload samples written
 *	stolen_ns CPU NS, handler_ns CPU NS	the per-sample figures behind the costs
 *	rate EVENT CPU HZ			samples per second written (interval average)
 *	freq EVENT HZ / period EVENT N		the attr, and requested EVENT HZ from the facts
 *	running EVENT PCT			STAT: running / enabled
 *	throttles N, throttled_ns N, lost N, lost_samples N, limit BEFORE AFTER, nmi_watchdog N
 *	unavailable TYPE REASON			a figure recorded as unavailable on every CPU
 *	collector SOURCE NS			the collector's calibrated cost per sample
 *	intervals N, spike I			intervals written; the one sampled 3x on CPU 0
 *	expect ID				the finding the kind is built to provoke
 *	kernel_samples EVENT CPU N		aggregated events: the WEIGHTs of its records
 *	aggregate ENTRIES LOST			aggregated: the count map's keys, samples lost
 *
 * An aggregated kind writes what prec record --aggregate does: per interval and CPU a few SAMPLE
 * records (keys) whose WEIGHTs sum to the samples of the rate, an aggregate cost (the BPF
 * program's runs and run time), and what the maps could not hold as lost figures whose reason
 * starts "aggregate:" with their LOST_SAMPLES record.
 *
 * usage: mkoverhead KIND FILE	(kinds: modest nofacts hardware throttle storm fixed none aggregate)
 *
 * Exit status: 0; 1 on an error; 2 for bad usage.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf-data.h"
#include "overhead/event.h"
#include "overhead/facts.h"
#include "util/sysinfo.h"

#define PID 4242
#define T0 1000000000ULL /* the recording starts at 1 s */
#define NR_CPUS 2
#define MAX_EV 6
#define OVERHEAD_ID 9000
#define NS 1000000000.0

static const char *prog = "mkoverhead";

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void check(int err, const char *what)
{
	if (err < 0)
		fail("%s: %s", what, strerror(-err));
}

struct mk_event {
	const char *name;
	u32 type;
	u64 config;
	bool freq;
	u64 value;	      /* sample_freq or sample_period; 0: a counting event */
	u64 requested;	      /* the facts' -F (freq events); 0: the same as value */
	double rate[NR_CPUS]; /* samples per second written on each CPU */
	double running;	      /* STAT running / enabled, 0..1; 0: no STAT */
};

struct mk_kind {
	const char *kind;
	int intervals;
	u64 span_ns;
	struct mk_event ev[MAX_EV];
	int nr_ev;
	const char *source, *wanted, *source_reason;
	double handler_ns; /* per sample; 0: the sample figure is unavailable */
	double stolen_ns;  /* per sample; 0: stolen time unavailable (stolen_reason) */
	const char *stolen_reason;
	double collector_ns; /* the collector's calibrated cost per sample; 0: none */
	double mux_per_s,
	    mux_ns; /* rotations per second per CPU and ns each; mux_ns < 0: unavail. */
	double sb_per_s[NR_CPUS], sb_ns;
	double recorder_pct, write_pct; /* of one CPU */
	int throttles;			/* THROTTLE/UNTHROTTLE pairs per interval on CPU 1 */
	u64 throttle_ns;		/* each */
	u64 lost, lost_samples;		/* in the middle interval, on CPU 1 */
	u64 rate_before, rate_after;
	int nmi_watchdog;
	s64 dropped_passes;
	int comp_level;
	u64 mmap_pages;
	int spike; /* this interval samples 3x on CPU 0; -1: none */
	bool no_facts;
	const char *expect[8];
	/* --aggregate: event 0 counted in the kernel */
	int keys;	    /* SAMPLE records per interval and CPU; 0: not aggregated */
	double agg_ns;	    /* the program's run time per kernel sample */
	u64 agg_entries;    /* --aggregate-entries */
	u64 agg_lost;	    /* samples the maps could not hold, in the middle interval on CPU 1 */
};

static const struct mk_kind kinds[] = {
    {
	.kind = "modest",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		1000,
		0,
		{1000, 1000},
		0}},
	.nr_ev = 1,
	.source = "bpf",
	.wanted = "auto",
	.handler_ns = 1000,
	.stolen_ns = 13600,
	.collector_ns = 150,
	.mux_per_s = 0,
	.mux_ns = 0,
	.sb_per_s = {20, 10},
	.sb_ns = 1500,
	.recorder_pct = 3,
	.write_pct = 0.5,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 0,
	.dropped_passes = 0,
	.comp_level = 0,
	.mmap_pages = 128,
	.spike = -1,
    },
    {
	.kind = "nofacts",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		1000,
		0,
		{1000, 900},
		0}},
	.nr_ev = 1,
	.source = "bpf",
	.handler_ns = 1100,
	.stolen_ns = 13000,
	.mux_ns = 0,
	.sb_per_s = {5, 5},
	.sb_ns = 1500,
	.recorder_pct = 2,
	.write_pct = 0.2,
	.spike = -1,
	.no_facts = true,
    },
    {
	/* An NMI-sampled hardware event at 4 kHz with 14 us stolen per sample: 5.6%. */
	.kind = "hardware",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cycles",
		PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_CPU_CYCLES,
		true,
		4000,
		0,
		{4000, 4000},
		0},
	       {"instructions",
		PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS,
		false,
		0,
		0,
		{0, 0},
		0.6},
	       {"cache-misses",
		PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_CACHE_MISSES,
		false,
		0,
		0,
		{0, 0},
		0.6},
	       {"branch-misses",
		PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_BRANCH_MISSES,
		false,
		0,
		0,
		{0, 0},
		0.75},
	       {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 0, {0, 0}, 0.75}},
	.nr_ev = 5,
	.source = "bpf",
	.wanted = "auto",
	.handler_ns = 2500,
	.stolen_ns = 14000,
	.collector_ns = 120,
	.mux_per_s = 250,
	.mux_ns = 3000,
	.sb_per_s = {10, 10},
	.sb_ns = 1500,
	.recorder_pct = 4,
	.write_pct = 1,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 1,
	.dropped_passes = 0,
	.comp_level = 0,
	.mmap_pages = 128,
	.spike = -1,
	.expect = {"sample-cost", "multiplex", "duplicate-events"},
    },
    {
	/* -F 50000 asked, the kernel lowered its limit to 25000 and throttled CPU 1. */
	.kind = "throttle",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		50000,
		50000,
		{20000, 15000},
		0}},
	.nr_ev = 1,
	.source = "bpf",
	.wanted = "auto",
	.handler_ns = 1000,
	.stolen_ns = 13600,
	.collector_ns = 150,
	.mux_ns = 0,
	.sb_per_s = {10, 10},
	.sb_ns = 1500,
	.recorder_pct = 20,
	.write_pct = 5,
	.throttles = 4,
	.throttle_ns = 20000000,
	.lost = 500,
	.lost_samples = 100,
	.rate_before = 100000,
	.rate_after = 25000,
	.nmi_watchdog = 0,
	.dropped_passes = 0,
	.comp_level = 0,
	.mmap_pages = 1,
	.spike = 1,
	.expect = {"sample-cost", "throttle", "lost", "rate-capped"},
    },
    {
	/* An mmap storm on CPU 0 and a recorder that used most of a CPU and fell behind. */
	.kind = "storm",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		1000,
		0,
		{1000, 1000},
		0}},
	.nr_ev = 1,
	.source = "bpf",
	.wanted = "auto",
	.handler_ns = 1000,
	.stolen_ns = 13600,
	.collector_ns = 150,
	.mux_ns = 0,
	.sb_per_s = {20000, 500},
	.sb_ns = 2000,
	.recorder_pct = 70,
	.write_pct = 30,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 0,
	.dropped_passes = 12,
	.comp_level = 3,
	.mmap_pages = 128,
	.spike = -1,
	.expect = {"sideband", "recorder-cpu"},
    },
    {
	/* task-clock every 20000 ns: 50 kHz; stolen time not calibrated: handler basis. */
	.kind = "fixed",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"task-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_TASK_CLOCK,
		false,
		20000,
		0,
		{50000, 0},
		0}},
	.nr_ev = 1,
	.source = "tracepoint",
	.wanted = "auto",
	.source_reason = "BPF: prec was built without libbpf",
	.handler_ns = 1200,
	.stolen_ns = 0,
	.stolen_reason = "every calibration run was disturbed",
	.collector_ns = 1400,
	.mux_ns = 0,
	.sb_per_s = {10, 10},
	.sb_ns = 1500,
	.recorder_pct = 5,
	.write_pct = 1,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 0,
	.dropped_passes = 0,
	.comp_level = 0,
	.mmap_pages = 128,
	.spike = -1,
	.expect = {"sample-cost", "short-period"},
    },
    {
	/* --aggregate at 1 kHz: a count map of 64 keys that could not hold them all. */
	.kind = "aggregate",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		1000,
		0,
		{1000, 1000},
		0}},
	.nr_ev = 1,
	.source = "bpf",
	.wanted = "auto",
	.handler_ns = 1000,
	.stolen_ns = 13600,
	.collector_ns = 150,
	.mux_ns = 0,
	.sb_per_s = {20, 10},
	.sb_ns = 1500,
	.recorder_pct = 1,
	.write_pct = 0.1,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 0,
	.mmap_pages = 128,
	.spike = -1,
	.keys = 8,
	.agg_ns = 800,
	.agg_entries = 64,
	.agg_lost = 300,
	.expect = {"lost"},
    },
    {
	/* No collector could run: the kernel-side costs are unavailable, never zero. */
	.kind = "none",
	.intervals = 3,
	.span_ns = 200000000,
	.ev = {{"cpu-clock",
		PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_CLOCK,
		true,
		1000,
		0,
		{1000, 1000},
		0}},
	.nr_ev = 1,
	.source = "none",
	.wanted = "auto",
	.source_reason = "bpf: Operation not permitted; tracepoint: perf_event_paranoid is 2",
	.handler_ns = 0,
	.stolen_ns = 13600,
	.mux_ns = -1,
	.sb_per_s = {10, 10},
	.sb_ns = 1500,
	.recorder_pct = 3,
	.write_pct = 0.5,
	.rate_before = 100000,
	.rate_after = 100000,
	.nmi_watchdog = 0,
	.dropped_passes = 0,
	.comp_level = 0,
	.mmap_pages = 128,
	.spike = -1,
    },
};

/* ---------------------------------------------------------------------------------------- */

struct item {
	u64 time;
	int kind; /* 0 sample, 1 throttle, 2 unthrottle, 3 lost, 4 lost_samples */
	int ev, cpu;
	u64 n;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

struct mk {
	const struct mk_kind *k;
	struct pd_writer *w;
	struct pd_buf rec, raw;
	struct perf_event_attr attr[MAX_EV + 1];
	u64 ids[MAX_EV + 1][NR_CPUS];
	int ov; /* the prec:overhead attr's index */
	/* manifest sums */
	u64 cost_nr[NR_CPUS + 1][OVERHEAD_TYPE_NR], cost_ns[NR_CPUS + 1][OVERHEAD_TYPE_NR];
	u64 samples[MAX_EV][NR_CPUS];
	u64 kernel_samples[MAX_EV][NR_CPUS]; /* aggregated: what the records' WEIGHTs sum to */
	u64 stat_ena[MAX_EV][NR_CPUS], stat_run[MAX_EV][NR_CPUS];
};

static void put(struct mk *m)
{
	check(m->rec.err, "building a record");
	check(pd_writer_write(m->w, m->rec.data, m->rec.len), "pd_writer_write");
	pd_buf_reset(&m->rec);
}

static struct perf_event_attr base_attr(u32 type, u64 config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	a.exclude_kernel = 1;
	a.exclude_guest = 1;
	a.disabled = 1;
	return a;
}

static struct pd_sample trailer(u64 time, u64 id, int cpu)
{
	struct pd_sample s = {.pid = PID, .tid = PID, .time = time, .id = id, .cpu = (u32)cpu};

	return s;
}

static void overhead(struct mk *m, int cpu, enum overhead_type t, u64 nr, u64 ns, u64 span,
		     u64 time, const char *source, u32 status, const char *reason)
{
	const char *type = overhead_type_name(t);
	struct overhead_record r = {cpu, type, nr, ns, span, source, status, reason};
	struct pd_sample s = trailer(time, OVERHEAD_ID, cpu < 0 ? 0 : cpu);
	u64 chain[2];

	pd_buf_reset(&m->raw);
	check(overhead_record_encode(&m->raw, PID, &r), "overhead_record_encode");
	check(m->raw.err, "overhead raw");
	overhead_sample_fill(&s, &r, chain);
	s.raw = m->raw.data;
	s.raw_size = (u32)m->raw.len;
	check(pd_encode_sample(&m->rec, &m->attr[m->ov], &s), "prec:overhead SAMPLE");
	if (status != OVERHEAD_UNAVAILABLE) {
		m->cost_nr[cpu + 1][t] += nr;
		m->cost_ns[cpu + 1][t] += ns;
	}
}

static void setup(struct mk *m, const char *file, int argc, char **argv)
{
	const struct mk_kind *k = m->k;
	struct pd_tracing *t;
	struct pd_buf b = PD_BUF_INIT;
	int i, c;

	check(pd_writer_open(&m->w, file, 0), file);
	check(sysinfo_set_features(m->w, argc, (const char *const *)argv), "system features");
	check(pd_tracing_new(&t), "pd_tracing_new");
	check(pd_tracing_add_format(t, OVERHEAD_SYSTEM, overhead_event_format), "format");
	check(pd_tracing_encode(t, &b), "pd_tracing_encode");
	check(pd_writer_set_feature(m->w, PD_FEAT_TRACING_DATA, b.data, b.len), "TRACING_DATA");
	pd_buf_release(&b);
	pd_tracing_free(t);

	for (i = 0; i < k->nr_ev; i++) {
		const struct mk_event *e = &k->ev[i];
		struct perf_event_attr a = base_attr(e->type, e->config);

		a.freq = e->freq;
		if (e->freq)
			a.sample_freq = e->value;
		else
			a.sample_period = e->value;
		if (i == 0)
			a.comm = a.task = 1;
		if (i == 0 && k->keys) {
			/* an aggregated event: WEIGHT, on CLOCK_MONOTONIC */
			a.sample_type |= PERF_SAMPLE_WEIGHT;
			a.use_clockid = 1;
			a.clockid = 1;
		}
		m->attr[i] = a;
		for (c = 0; c < NR_CPUS; c++)
			m->ids[i][c] = 1000 * (u64)(i + 1) + (u64)c;
		check(pd_writer_add_attr(m->w, &a, e->name, m->ids[i], NR_CPUS), "add attr");
		if (e->freq)
			printf("freq %s %" PRIu64 "\n", e->name, e->value);
		else if (e->value)
			printf("period %s %" PRIu64 "\n", e->name, e->value);
		if (e->requested)
			printf("requested %s %" PRIu64 "\n", e->name, e->requested);
	}
	m->ov = k->nr_ev;
	m->attr[m->ov] = base_attr(PERF_TYPE_TRACEPOINT, OVERHEAD_EVENT_ID);
	m->attr[m->ov].sample_period = 1;
	m->attr[m->ov].sample_type |= OVERHEAD_SAMPLE_TYPE;
	m->ids[m->ov][0] = OVERHEAD_ID;
	check(pd_writer_add_attr(m->w, &m->attr[m->ov], "prec:overhead", m->ids[m->ov], 1),
	      "add prec:overhead");
	check(pd_writer_begin(m->w), "pd_writer_begin");
	check(pd_encode_comm(&m->rec, &m->attr[0], PID, PID, "work", false, NULL), "COMM");
	check(overhead_symbols_encode(&m->rec, &m->attr[0], NULL), "KSYMBOL");
	put(m);
}

/* The STAT maps, once, before the first reading. */
static void stat_maps(struct mk *m)
{
	struct pd_thread_map_entry thr = {.pid = PID, .comm = "work"};
	struct pd_stat_config_entry cfg[] = {
	    {PD_STAT_CONFIG_AGGR_MODE, PD_AGGR_GLOBAL},
	    {PD_STAT_CONFIG_INTERVAL, m->k->span_ns / 1000000},
	    {PD_STAT_CONFIG_SCALE, 1},
	};
	int cpus[NR_CPUS];

	for (int c = 0; c < NR_CPUS; c++)
		cpus[c] = c;
	check(pd_encode_thread_map(&m->rec, 1, &thr), "THREAD_MAP");
	check(pd_encode_cpu_map(&m->rec, NR_CPUS, cpus), "CPU_MAP");
	check(pd_encode_stat_config(&m->rec, 3, cfg), "STAT_CONFIG");
	put(m);
}

static void interval(struct mk *m, int iv, bool *maps)
{
	const struct mk_kind *k = m->k;
	u64 start = T0 + (u64)iv * k->span_ns, end = start + k->span_ns;
	struct item *items = NULL;
	size_t n = 0, cap = 0;
	u64 nr_cpu[NR_CPUS] = {0};
	bool stat = false;
	int e, c;

#define ADD(t, kd, ev_, cpu_, n_)                                                                  \
	do {                                                                                       \
		if (n == cap) {                                                                    \
			cap = cap ? cap * 2 : 1024;                                                \
			items = realloc(items, cap * sizeof(*items));                              \
			if (!items)                                                                \
				fail("out of memory");                                             \
		}                                                                                  \
		items[n++] = (struct item){(t), (kd), (ev_), (cpu_), (n_)};                        \
	} while (0)

	for (e = 0; e < k->nr_ev; e++) {
		for (c = 0; c < NR_CPUS; c++) {
			double rate = k->ev[e].rate[c] * (iv == k->spike && c == 0 ? 3 : 1);
			u64 cnt = (u64)llround(rate * (double)k->span_ns / NS);

			nr_cpu[c] += cnt;
			if (e == 0 && k->keys) {
				/* the keys, drained at the interval's end: weights 1, 2, ... rest */
				u64 left = cnt;

				for (int i = 0; i < k->keys && left; i++) {
					u64 w = i + 1 < k->keys && left > (u64)i + 1 ? (u64)i + 1
										      : left;

					ADD(end - (u64)(k->keys - i) * 1000, 0, e, c, w);
					left -= w;
					m->samples[e][c]++;
				}
				m->kernel_samples[e][c] += cnt;
				continue;
			}
			for (u64 i = 0; i < cnt; i++)
				ADD(start +
					(u64)(((double)i + 0.5) * (double)k->span_ns / (double)cnt),
				    0, e, c, 0);
			m->samples[e][c] += cnt;
		}
		stat |= k->ev[e].running > 0;
	}
	for (int i = 0; i < k->throttles; i++) {
		u64 t = start + (u64)(i + 1) * k->span_ns / (u64)(k->throttles + 1);

		ADD(t - k->throttle_ns / 2, 1, 0, 1, 0);
		ADD(t + k->throttle_ns / 2, 2, 0, 1, 0);
	}
	if (iv == k->intervals / 2 && k->agg_lost)
		ADD(end - 1, 4, 0, 1, k->agg_lost);
	if (iv == k->intervals / 2 && (k->lost || k->lost_samples)) {
		if (k->lost)
			ADD(start + k->span_ns / 2 + 1, 3, 0, 1, k->lost);
		if (k->lost_samples)
			ADD(start + k->span_ns / 2 + 2, 4, 0, 1, k->lost_samples);
	}
	qsort(items, n, sizeof(*items), cmp_item);
	for (size_t i = 0; i < n; i++) {
		const struct item *it = &items[i];
		struct pd_sample s = trailer(it->time, m->ids[it->ev][it->cpu], it->cpu);
		struct pd_throttle_body tb = {it->time, m->ids[it->ev][it->cpu], 0};

		switch (it->kind) {
		case 0:
			s.misc = PERF_RECORD_MISC_USER;
			s.ip = 0x401000 + (it->time % 7) * 16;
			s.period = k->ev[it->ev].freq ? 10007 : k->ev[it->ev].value;
			if (it->n) {
				/* a key: its own IP, the summed period, the samples in WEIGHT */
				s.ip = 0x402000 + (it->time % 16) * 16;
				s.period *= it->n;
				s.weight = it->n;
			}
			check(pd_encode_sample(&m->rec, &m->attr[it->ev], &s), "SAMPLE");
			break;
		case 1:
		case 2:
			check(pd_encode_throttle(&m->rec, &m->attr[0], it->kind == 2, &tb, &s),
			      "THROTTLE");
			break;
		case 3:
			check(pd_encode_lost(&m->rec, &m->attr[0], m->ids[it->ev][it->cpu], it->n,
					     &s),
			      "LOST");
			break;
		case 4:
			check(pd_encode_lost_samples(&m->rec, &m->attr[0], it->n, &s),
			      "LOST_SAMPLES");
			break;
		}
		if (m->rec.len > 60000)
			put(m);
	}
	put(m);
	free(items);
#undef ADD

	if (stat) {
		if (!*maps)
			stat_maps(m);
		*maps = true;
		for (e = 0; e < k->nr_ev; e++) {
			if (!(k->ev[e].running > 0))
				continue;
			for (c = 0; c < NR_CPUS; c++) {
				struct pd_stat_body st = {.id = m->ids[e][c], .cpu = (u32)c};

				m->stat_ena[e][c] += k->span_ns;
				m->stat_run[e][c] +=
				    (u64)llround((double)k->span_ns * k->ev[e].running);
				st.ena = m->stat_ena[e][c];
				st.run = m->stat_run[e][c];
				st.val = st.run / 3;
				check(pd_encode_stat(&m->rec, &st), "STAT");
			}
		}
		check(pd_encode_stat_round(&m->rec,
					   iv + 1 < k->intervals ? PD_STAT_ROUND_INTERVAL
								 : PD_STAT_ROUND_FINAL,
					   end - T0),
		      "STAT_ROUND");
		put(m);
	}

	/* The interval's prec:overhead samples, all at its end, as the recorder writes them. */
	for (c = 0; c < NR_CPUS; c++) {
		u64 sb = (u64)llround(k->sb_per_s[c] * (double)k->span_ns / NS);
		u64 mux = (u64)llround(k->mux_per_s * (double)k->span_ns / NS);

		if (k->handler_ns > 0)
			overhead(m, c, OVERHEAD_TYPE_SAMPLE, nr_cpu[c],
				 (u64)llround(k->handler_ns * (double)nr_cpu[c]), k->span_ns, end,
				 k->source, OVERHEAD_MEASURED, "");
		else
			overhead(m, c, OVERHEAD_TYPE_SAMPLE, 0, 0, k->span_ns, end, k->source,
				 OVERHEAD_UNAVAILABLE, k->source_reason);
		if (k->stolen_ns > 0)
			overhead(m, c, OVERHEAD_TYPE_STOLEN, nr_cpu[c],
				 (u64)llround(k->stolen_ns * (double)nr_cpu[c]), k->span_ns, end,
				 "calibration", OVERHEAD_ESTIMATED, "");
		else
			overhead(m, c, OVERHEAD_TYPE_STOLEN, 0, 0, k->span_ns, end, "calibration",
				 OVERHEAD_UNAVAILABLE, k->stolen_reason);
		if (k->mux_ns >= 0)
			overhead(m, c, OVERHEAD_TYPE_MUX, mux,
				 (u64)llround(k->mux_ns * (double)mux), k->span_ns, end, k->source,
				 OVERHEAD_MEASURED, "");
		else
			overhead(m, c, OVERHEAD_TYPE_MUX, 0, 0, k->span_ns, end, k->source,
				 OVERHEAD_UNAVAILABLE, k->source_reason);
		overhead(m, c, OVERHEAD_TYPE_SIDEBAND, sb, (u64)llround(k->sb_ns * (double)sb),
			 k->span_ns, end, "calibration", OVERHEAD_ESTIMATED, "");
		if (k->throttles && c == 1)
			overhead(m, c, OVERHEAD_TYPE_THROTTLE, (u64)k->throttles,
				 (u64)k->throttles * k->throttle_ns, k->span_ns, end, "ring-buffer",
				 OVERHEAD_MEASURED, "");
		if ((k->lost || k->lost_samples) && c == 1)
			overhead(m, c, OVERHEAD_TYPE_LOST,
				 iv == k->intervals / 2 ? k->lost + k->lost_samples : 0, 0,
				 k->span_ns, end, "ring-buffer", OVERHEAD_MEASURED, "");
		if (k->keys) {
			char why[80];

			overhead(m, c, OVERHEAD_TYPE_AGGREGATE, nr_cpu[c],
				 (u64)llround(k->agg_ns * (double)nr_cpu[c]), k->span_ns, end, "bpf",
				 OVERHEAD_MEASURED, "");
			snprintf(why, sizeof(why),
				 "aggregate: count map full (--aggregate-entries %" PRIu64 ")",
				 k->agg_entries);
			if (k->agg_lost && c == 1)
				overhead(m, c, OVERHEAD_TYPE_LOST,
					 iv == k->intervals / 2 ? k->agg_lost : 0, 0, k->span_ns, end,
					 "bpf", OVERHEAD_MEASURED, why);
		}
	}
	overhead(m, -1, OVERHEAD_TYPE_RECORDER, 1,
		 (u64)llround(k->recorder_pct / 100 * (double)k->span_ns), k->span_ns, end,
		 "rusage", OVERHEAD_MEASURED, "");
	overhead(m, -1, OVERHEAD_TYPE_WRITE, 65536,
		 (u64)llround(k->write_pct / 100 * (double)k->span_ns), k->span_ns, end, "clock",
		 OVERHEAD_MEASURED, "");
	put(m);
}

static void facts(struct mk *m)
{
	const struct mk_kind *k = m->k;
	struct overhead_facts f;
	struct pd_buf b = PD_BUF_INIT;
	int c, e;

	overhead_facts_init(&f);
	overhead_fact_set_string(f.source, sizeof(f.source), k->source);
	overhead_fact_set_string(f.source_wanted, sizeof(f.source_wanted), k->wanted);
	overhead_fact_set_string(f.source_reason, sizeof(f.source_reason), k->source_reason);
	f.interval_ns = k->span_ns;
	f.max_rate_before = k->rate_before;
	f.max_rate_after = k->rate_after;
	f.nmi_watchdog = k->nmi_watchdog;
	f.mmap_pages = (u32)k->mmap_pages;
	f.comp_level = k->comp_level;
	f.dropped_passes = k->dropped_passes;
	f.queue_max_bytes = 65536;
	for (int s = 0; s < OVERHEAD_SIDEBAND_NR; s++) {
		f.sideband[s].state = OVERHEAD_FACT_OK;
		f.sideband[s].ns = f.sideband[s].min_ns = f.sideband[s].max_ns = k->sb_ns;
		f.sideband[s].runs = 7;
	}
	f.have_sideband_records = true;
	for (c = 0; c < NR_CPUS; c++) {
		u64 sb = (u64)llround(k->sb_per_s[c] * (double)k->span_ns / NS) * (u64)k->intervals;

		/* Storms are mmaps: nine in ten records an MMAP2, the rest COMM. */
		f.sideband_records[PERF_RECORD_MMAP2] += sb - sb / 10;
		f.sideband_records[PERF_RECORD_COMM] += sb / 10;
	}
	for (c = 0; c < NR_CPUS; c++) {
		struct overhead_fact_cpu *fc = overhead_facts_cpu(&f, c);
		struct overhead_calib cal;

		if (!fc)
			fail("out of memory");
		fc->wall_ns = k->span_ns * (u64)k->intervals;
		memset(&cal, 0, sizeof(cal));
		if (k->stolen_ns > 0) {
			cal.ns = k->stolen_ns;
			cal.min_ns = k->stolen_ns * 0.95;
			cal.max_ns = k->stolen_ns * 1.05;
			cal.runs = 7;
			cal.units = 700;
		} else {
			cal.err = -EAGAIN;
			snprintf(cal.reason, sizeof(cal.reason), "%s", k->stolen_reason);
		}
		overhead_fact_from_calib(&fc->stolen, &cal);
		if (k->collector_ns > 0) {
			memset(&cal, 0, sizeof(cal));
			cal.ns = cal.min_ns = cal.max_ns = k->collector_ns;
			cal.handler_ns = k->handler_ns;
			cal.runs = 15;
			overhead_fact_from_calib(&fc->collector, &cal);
		}
	}
	for (e = 0; e < k->nr_ev; e++) {
		struct overhead_fact_event *fe = overhead_facts_event(&f, (u32)e);

		if (!fe)
			fail("out of memory");
		if (k->ev[e].freq)
			fe->freq = k->ev[e].requested ? k->ev[e].requested : k->ev[e].value;
		else
			fe->period = k->ev[e].value;
		fe->aggregated = e == 0 && k->keys;
	}
	if (k->keys) {
		f.aggregate_interval_ns = k->span_ns;
		f.aggregate_entries = k->agg_entries;
	}
	check(overhead_facts_encode(&f, &b), "overhead_facts_encode");
	check(pd_writer_set_feature(m->w, PD_FEAT_PREC, b.data, b.len), "PD_FEAT_PREC");
	pd_buf_release(&b);
	overhead_facts_release(&f);
}

static void manifest(const struct mk *m)
{
	const struct mk_kind *k = m->k;
	u64 wall = k->span_ns * (u64)k->intervals;
	int c, t, e;

	for (c = -1; c < NR_CPUS; c++)
		for (t = 0; t < OVERHEAD_TYPE_NR; t++)
			if (m->cost_nr[c + 1][t] || m->cost_ns[c + 1][t])
				printf("cost %d %s %" PRIu64 " %" PRIu64 "\n", c,
				       overhead_type_name(t), m->cost_nr[c + 1][t],
				       m->cost_ns[c + 1][t]);
	for (c = 0; c < NR_CPUS; c++) {
		printf("wall %d %" PRIu64 "\n", c, wall);
		if (k->stolen_ns > 0)
			printf("stolen_ns %d %.0f\n", c, k->stolen_ns);
		if (k->handler_ns > 0)
			printf("handler_ns %d %.0f\n", c, k->handler_ns);
	}
	for (e = 0; e < k->nr_ev; e++) {
		for (c = 0; c < NR_CPUS; c++) {
			if (!m->samples[e][c])
				continue;
			printf("samples %s %d %" PRIu64 "\n", k->ev[e].name, c, m->samples[e][c]);
			if (m->kernel_samples[e][c])
				printf("kernel_samples %s %d %" PRIu64 "\n", k->ev[e].name, c,
				       m->kernel_samples[e][c]);
			printf("rate %s %d %.3f\n", k->ev[e].name, c,
			       (double)m->samples[e][c] * NS / (double)wall);
		}
		if (k->ev[e].running > 0)
			printf("running %s %.1f\n", k->ev[e].name, k->ev[e].running * 100);
	}
	if (k->throttles)
		printf("throttles %d\nthrottled_ns %" PRIu64 "\n", k->throttles * k->intervals,
		       (u64)k->throttles * k->throttle_ns * (u64)k->intervals);
	if (k->lost)
		printf("lost %" PRIu64 "\n", k->lost);
	if (k->lost_samples || k->agg_lost)
		printf("lost_samples %" PRIu64 "\n", k->lost_samples + k->agg_lost);
	if (k->keys)
		printf("aggregate %" PRIu64 " %" PRIu64 "\n", k->agg_entries, k->agg_lost);
	if (!k->no_facts)
		printf("limit %" PRIu64 " %" PRIu64 "\nnmi_watchdog %d\n", k->rate_before,
		       k->rate_after, k->nmi_watchdog);
	if (k->handler_ns <= 0)
		printf("unavailable sample %s\n", k->source_reason);
	if (k->mux_ns < 0)
		printf("unavailable mux %s\n", k->source_reason);
	if (k->stolen_ns <= 0)
		printf("unavailable stolen %s\n", k->stolen_reason);
	if (k->collector_ns > 0 && !k->no_facts)
		printf("collector %s %.0f\n", k->source, k->collector_ns);
	printf("intervals %d\n", k->intervals);
	if (k->spike >= 0)
		printf("spike %d\n", k->spike);
	for (int i = 0; i < 8 && k->expect[i]; i++)
		printf("expect %s\n", k->expect[i]);
}

static int make(const char *kind, const char *file, int argc, char **argv)
{
	struct mk m;
	bool maps = false;
	size_t i;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			m.k = &kinds[i];
	if (!m.k) {
		fprintf(stderr, "%s: unknown kind %s\n", prog, kind);
		return 2;
	}
	setup(&m, file, argc, argv);
	for (int iv = 0; iv < m.k->intervals; iv++)
		interval(&m, iv, &maps);
	if (!m.k->no_facts)
		facts(&m);
	{
		struct pd_buf b = PD_BUF_INIT;

		pd_feat_sample_time(&b, T0, T0 + m.k->span_ns * (u64)m.k->intervals);
		check(pd_writer_set_feature(m.w, PD_FEAT_SAMPLE_TIME, b.data, b.len),
		      "SAMPLE_TIME");
		pd_buf_release(&b);
	}
	check(pd_writer_close(m.w), "pd_writer_close");
	manifest(&m);
	pd_buf_release(&m.rec);
	pd_buf_release(&m.raw);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr,
			"usage: %s modest|nofacts|hardware|throttle|storm|fixed|none|aggregate FILE\n",
			prog);
		return 2;
	}
	return make(argv[1], argv[2], argc, argv);
}
