// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead model (overhead/model.h): figures in, per-CPU costs and findings out. Adding is
 * cheap (hash lookups), because a long recording on many CPUs has millions of prec:overhead
 * samples; everything that needs the whole picture happens in overhead_model_finish() and
 * overhead_model_judge().
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/model.h"
#include "util/hash-index.h"
#include "util/hash.h"
#include "util/perf-event.h"

#define NS_PER_S 1e9

/* ---------------------------------------------------------------------------------------- */
/* Small helpers */

static double pct_of(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : -1;
}

static double rate_of(u64 n, u64 wall_ns)
{
	return wall_ns ? (double)n * NS_PER_S / (double)wall_ns : 0;
}

/**
 * overhead_format_ns - a duration for people, negative ones with their sign ("-45 ns").
 */
char *overhead_format_ns(char *buf, size_t len, double ns)
{
	if (ns < 0 && len > 1) {
		/* A calibrated difference may be negative (below what it resolves). */
		buf[0] = '-';
		overhead_format_ns(buf + 1, len - 1, -ns);
		return buf;
	}
	if (isnan(ns) || ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

/**
 * overhead_rate_for_budget - the per-CPU sampling rate that costs budget_pct of a CPU.
 */
u64 overhead_rate_for_budget(double cost_ns, double budget_pct)
{
	double r;

	if (!(cost_ns > 0) || !(budget_pct > 0))
		return 0;
	r = budget_pct / 100.0 * NS_PER_S / cost_ns;
	/* A hair above an exact integer must not round it down (14 us at 2% is 1428.57...). */
	return r > 1e15 ? (u64)1e15 : (u64)floor(r + 1e-9);
}

/**
 * overhead_model_basis_name - "stolen", "handler" or "none".
 */
const char *overhead_model_basis_name(enum om_basis b)
{
	switch (b) {
	case OM_BASIS_STOLEN:
		return "stolen";
	case OM_BASIS_HANDLER:
		return "handler";
	default:
		return "none";
	}
}

/**
 * overhead_severity_name - "info", "warn" or "severe".
 */
const char *overhead_severity_name(enum om_severity s)
{
	switch (s) {
	case OM_SEVERE:
		return "severe";
	case OM_WARN:
		return "warn";
	default:
		return "info";
	}
}

/* Grow an array to hold n + 1 elements of size sz. Return false without memory. */
static bool grow(void **p, u32 *cap, u32 n, size_t sz)
{
	void *q;
	u32 c;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 16;
	q = realloc(*p, (size_t)c * sz);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* The model's private state beyond the public struct */

/*
 * A table of (key, CPU) pairs, each with a value: the samples of event key on a CPU, where a
 * CPU's figures sit in interval key, the throttle state of sample id key on a CPU. Pairs, not
 * arrays indexed by CPU number: thousands of events each sampled once on a high CPU number would
 * take gigabytes.
 */
struct pair {
	u64 key;
	int cpu;
	u64 val;
};

struct pair_table {
	struct pair *e;
	u32 nr, cap;
	struct hash_index idx;
};

struct model_priv {
	struct overhead_model m;
	struct hash_index cost_idx, counter_idx;
	u32 *cpu_slot; /* CPU number -> index into m.cpus + 1 (m.cpus' order, sorted or not) */
	u32 nr_cpu_slot;
	struct pair_table ev_cpu;  /* (event, CPU) -> samples */
	struct pair_table iv_cpu;  /* (interval, CPU) -> index into the interval's cpus + 1 */
	struct pair_table thr_cpu; /* (sample id, CPU) -> index into m.thr + 1 */
};

static u64 pair_hash(u64 key, int cpu)
{
	return hash_mix64(key * 0x9e3779b97f4a7c15ULL ^ (u32)cpu);
}

static u64 pair_hash_at(const void *ctx, u32 i)
{
	const struct pair *x = &((const struct pair_table *)ctx)->e[i];

	return pair_hash(x->key, x->cpu);
}

static bool pair_eq(const void *ctx, u32 i, const void *key)
{
	const struct pair *x = &((const struct pair_table *)ctx)->e[i], *k = key;

	return x->key == k->key && x->cpu == k->cpu;
}

/* The pair (key, cpu); added with val 0 when missing if add. NULL: absent, or no memory. */
static struct pair *pair_entry(struct pair_table *t, u64 key, int cpu, bool add)
{
	struct pair k = {key, cpu, 0};
	s64 i;
	u32 s;

	if (!t->idx.mask && !add)
		return NULL;
	if (add && !hash_index_reserve(&t->idx, pair_hash_at, t))
		return NULL;
	s = hash_index_find(&t->idx, pair_hash(key, cpu), pair_eq, t, &k, &i);
	if (i >= 0)
		return &t->e[i];
	if (!add || !grow((void **)&t->e, &t->cap, t->nr, sizeof(*t->e)))
		return NULL;
	t->e[t->nr] = k;
	hash_index_set(&t->idx, s, t->nr);
	return &t->e[t->nr++];
}

static void pair_table_free(struct pair_table *t)
{
	hash_index_free(&t->idx);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static struct model_priv *priv(struct overhead_model *m)
{
	return (struct model_priv *)m;
}

/**
 * overhead_model_new - an empty model.
 */
struct overhead_model *overhead_model_new(bool keep_intervals)
{
	struct model_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	overhead_facts_init(&p->m.facts);
	p->m.keep_intervals = keep_intervals;
	p->m.worst = -1;
	return &p->m;
}

/**
 * overhead_model_free - free the model.
 */
void overhead_model_free(struct overhead_model *m)
{
	struct model_priv *p;

	if (!m)
		return;
	p = priv(m);
	overhead_facts_release(&m->facts);
	for (u32 i = 0; i < m->nr_intervals; i++)
		free(m->intervals[i].cpus);
	free(m->costs);
	free(m->events);
	free(m->cpus);
	free(m->intervals);
	free(m->thr);
	free(m->counters);
	hash_index_free(&p->cost_idx);
	hash_index_free(&p->counter_idx);
	free(p->cpu_slot);
	pair_table_free(&p->ev_cpu);
	pair_table_free(&p->iv_cpu);
	pair_table_free(&p->thr_cpu);
	free(p);
}

/**
 * overhead_model_set_facts - decode the facts section into the model.
 */
int overhead_model_set_facts(struct overhead_model *m, const void *payload, size_t len)
{
	int err;

	m->have_facts = false;
	m->facts_error[0] = '\0';
	overhead_facts_release(&m->facts); /* a second call replaces the first's facts */
	if (!payload)
		return 0;
	err =
	    overhead_facts_decode(payload, len, &m->facts, m->facts_error, sizeof(m->facts_error));
	if (err) {
		if (!m->facts_error[0])
			snprintf(m->facts_error, sizeof(m->facts_error), "%s", strerror(-err));
		return err;
	}
	m->have_facts = true;
	return 0;
}

/* The model's CPU entry of a CPU number, added when missing; NULL when out of range. */
static struct om_cpu *cpu_entry(struct overhead_model *m, int cpu)
{
	struct model_priv *p = priv(m);
	struct om_cpu *c;

	if (cpu < 0 || cpu > OM_MAX_CPU)
		return NULL;
	if ((u32)cpu >= p->nr_cpu_slot) {
		u32 n = (u32)cpu + 64, *s = realloc(p->cpu_slot, n * sizeof(*s));

		if (!s)
			return NULL;
		memset(s + p->nr_cpu_slot, 0, (n - p->nr_cpu_slot) * sizeof(*s));
		p->cpu_slot = s;
		p->nr_cpu_slot = n;
	}
	if (p->cpu_slot[cpu])
		return &m->cpus[p->cpu_slot[cpu] - 1];
	if (!grow((void **)&m->cpus, &m->cpus_cap, m->nr_cpus, sizeof(*m->cpus)))
		return NULL;
	c = &m->cpus[m->nr_cpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->wall_source = "none";
	c->overhead_pct = -1;
	p->cpu_slot[cpu] = m->nr_cpus;
	return c;
}

/**
 * overhead_model_cpu - the entry of a CPU number, or NULL.
 */
const struct om_cpu *overhead_model_cpu(const struct overhead_model *m, int cpu)
{
	const struct model_priv *p = (const struct model_priv *)m;

	overhead_steps++;
	if (cpu < 0 || (u32)cpu >= p->nr_cpu_slot || !p->cpu_slot[cpu])
		return NULL;
	return &m->cpus[p->cpu_slot[cpu] - 1];
}

/**
 * overhead_model_cost - the first figure of (cpu, type), or NULL.
 */
const struct om_cost *overhead_model_cost(const struct overhead_model *m, int cpu, const char *type)
{
	for (u32 i = 0; i < m->nr_costs; i++)
		if (m->costs[i].cpu == cpu && !strcmp(m->costs[i].type, type))
			return &m->costs[i];
	return NULL;
}

static void note_time(struct overhead_model *m, u64 t)
{
	if (!t)
		return;
	if (!m->have_time || t < m->start)
		m->start = t;
	if (!m->have_time || t > m->end)
		m->end = t;
	m->have_time = true;
}

/**
 * overhead_model_add_event - declare the file's next attr.
 */
int overhead_model_add_event(struct overhead_model *m, const struct perf_event_attr *attr,
			     const char *name, bool overhead)
{
	struct om_event *e = realloc(m->events, (m->nr_events + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	m->events = e;
	e = &m->events[m->nr_events];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->overhead = overhead;
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "?");
	return (int)m->nr_events++;
}

/* ---------------------------------------------------------------------------------------- */
/* prec:overhead records */

static u64 cost_hash(const struct om_cost *c)
{
	u64 h = HASH_FNV64_BASIS ^ (u64)(u32)c->cpu ^ ((u64)c->status << 32);

	h = hash_fnv1a64_str(h, c->type);
	h = hash_fnv1a64_str(h ^ 0xff, c->source);
	return hash_mix64(h);
}

static u64 cost_hash_at(const void *ctx, u32 i)
{
	return cost_hash(&((const struct overhead_model *)ctx)->costs[i]);
}

static bool cost_eq(const void *ctx, u32 i, const void *key)
{
	const struct om_cost *c = &((const struct overhead_model *)ctx)->costs[i], *k = key;

	return c->cpu == k->cpu && c->status == k->status && !strcmp(c->type, k->type) &&
	       !strcmp(c->source, k->source);
}

static struct om_cost *cost_entry(struct overhead_model *m, const struct overhead_record *r)
{
	struct model_priv *p = priv(m);
	struct om_cost key, *c;
	s64 i;
	u32 s;

	memset(&key, 0, sizeof(key));
	key.cpu = r->cpu;
	key.status = r->estimated;
	snprintf(key.type, sizeof(key.type), "%s", r->type);
	snprintf(key.source, sizeof(key.source), "%s", r->source);
	key.kind = overhead_type_parse(key.type);
	if (!hash_index_reserve(&p->cost_idx, cost_hash_at, m))
		return NULL;
	s = hash_index_find(&p->cost_idx, cost_hash(&key), cost_eq, m, &key, &i);
	if (i >= 0)
		return &m->costs[i];
	if (!grow((void **)&m->costs, &m->costs_cap, m->nr_costs, sizeof(*m->costs)))
		return NULL;
	c = &m->costs[m->nr_costs];
	*c = key;
	hash_index_set(&p->cost_idx, s, m->nr_costs++);
	return c;
}

static u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static struct om_interval *interval_at(struct overhead_model *m, u64 time)
{
	struct om_interval *iv;

	/* The records of one interval share a time and come together: look at the last few. */
	for (u32 i = m->nr_intervals, k = 0; i > 0 && k < 8; i--, k++)
		if (m->intervals[i - 1].time == time)
			return &m->intervals[i - 1];
	if (!grow((void **)&m->intervals, &m->intervals_cap, m->nr_intervals,
		  sizeof(*m->intervals)))
		return NULL;
	iv = &m->intervals[m->nr_intervals++];
	memset(iv, 0, sizeof(*iv));
	iv->time = time;
	iv->worst_cpu = -1;
	return iv;
}

/* The figures of cpu in interval iv, added when missing: an interval may hold every CPU. */
static struct om_interval_cpu *interval_cpu(struct overhead_model *m, struct om_interval *iv,
					    int cpu)
{
	struct pair *x = pair_entry(&priv(m)->iv_cpu, (u32)(iv - m->intervals), cpu, true);
	struct om_interval_cpu *c;

	if (!x)
		return NULL;
	if (x->val)
		return &iv->cpus[x->val - 1];
	/* The room doubles (an interval may hold every CPU): it is full at 8, 16, 32 ... */
	if (!iv->nr_cpus || (iv->nr_cpus >= 8 && !(iv->nr_cpus & (iv->nr_cpus - 1)))) {
		u32 cap = iv->nr_cpus ? 2 * iv->nr_cpus : 8;

		c = realloc(iv->cpus, cap * sizeof(*c));
		if (!c)
			return NULL;
		iv->cpus = c;
	}
	x->val = iv->nr_cpus + 1;
	c = &iv->cpus[iv->nr_cpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->pct = -1;
	return c;
}

/* The interval's per-CPU figures are appended in the order met and sorted when finishing. */
static int add_to_interval(struct overhead_model *m, const struct overhead_record *r,
			   enum overhead_type kind, u64 time)
{
	struct om_interval *iv = interval_at(m, time);
	struct om_interval_cpu *c;

	if (!iv)
		return -ENOMEM;
	if (r->span_ns > iv->span_ns)
		iv->span_ns = r->span_ns;
	if (r->cpu < 0) {
		if (kind == OVERHEAD_TYPE_RECORDER && r->estimated != OVERHEAD_UNAVAILABLE)
			iv->recorder_ns = sat_add(iv->recorder_ns, r->time_ns);
		return 0;
	}
	c = interval_cpu(m, iv, r->cpu);
	if (!c)
		return -ENOMEM;
	if (r->span_ns > c->span_ns)
		c->span_ns = r->span_ns;
	if (r->estimated == OVERHEAD_UNAVAILABLE)
		return 0;
	switch (kind) {
	case OVERHEAD_TYPE_SAMPLE:
		c->handler_nr = sat_add(c->handler_nr, r->nr);
		c->handler_ns = sat_add(c->handler_ns, r->time_ns);
		break;
	case OVERHEAD_TYPE_STOLEN:
		c->stolen = true;
		c->stolen_nr = sat_add(c->stolen_nr, r->nr);
		c->stolen_ns = sat_add(c->stolen_ns, r->time_ns);
		break;
	case OVERHEAD_TYPE_MUX:
		c->mux_ns = sat_add(c->mux_ns, r->time_ns);
		break;
	case OVERHEAD_TYPE_SIDEBAND:
		c->sideband_ns = sat_add(c->sideband_ns, r->time_ns);
		break;
	case OVERHEAD_TYPE_THROTTLE:
		c->throttles = sat_add(c->throttles, r->nr);
		iv->throttles = sat_add(iv->throttles, r->nr);
		break;
	case OVERHEAD_TYPE_LOST:
		c->lost = sat_add(c->lost, r->nr);
		iv->lost = sat_add(iv->lost, r->nr);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * overhead_model_add_record - add one prec:overhead sample.
 */
int overhead_model_add_record(struct overhead_model *m, const struct overhead_record *r, u64 time)
{
	struct om_cost *c;

	if (r->cpu < -1 || r->cpu > OM_MAX_CPU) {
		m->bad_records++;
		return -EINVAL;
	}
	if (r->cpu >= 0 && !cpu_entry(m, r->cpu))
		return -ENOMEM;
	c = cost_entry(m, r);
	if (!c)
		return -ENOMEM;
	c->nr = sat_add(c->nr, r->nr);
	c->time_ns = sat_add(c->time_ns, r->time_ns);
	c->span_ns = sat_add(c->span_ns, r->span_ns);
	c->records++;
	if (!c->reason[0] && r->reason && r->reason[0])
		snprintf(c->reason, sizeof(c->reason), "%s", r->reason);
	m->overhead_records++;
	if (time) {
		note_time(m, time);
		if (r->span_ns && r->span_ns < time)
			note_time(m, time - r->span_ns);
	}
	if (m->keep_intervals)
		return add_to_interval(m, r, c->kind, time);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* perf's own records */

static struct om_event *event_of(struct overhead_model *m, int ev)
{
	return ev >= 0 && (u32)ev < m->nr_events ? &m->events[ev] : NULL;
}

/* The samples of event ev on cpu. */
static u64 event_cpu_samples(const struct overhead_model *m, u32 ev, int cpu)
{
	const struct pair *x = pair_entry(&((struct model_priv *)m)->ev_cpu, ev, cpu, false);

	return x ? x->val : 0;
}

/**
 * overhead_model_add_sample - count a kernel sample.
 */
void overhead_model_add_sample(struct overhead_model *m, int ev, int cpu, u64 time)
{
	struct om_event *e = event_of(m, ev);
	struct om_cpu *c = cpu_entry(m, cpu);

	m->samples++;
	note_time(m, time);
	if (c)
		c->samples++;
	if (!e)
		return;
	e->samples++;
	if (c) {
		struct pair *x = pair_entry(&priv(m)->ev_cpu, (u32)ev, cpu, true);

		if (x)
			x->val++;
	}
}

/**
 * overhead_model_add_lost - a LOST or LOST_SAMPLES record.
 */
void overhead_model_add_lost(struct overhead_model *m, int ev, int cpu, u64 lost, u64 time,
			     bool samples)
{
	struct om_event *e = event_of(m, ev);
	struct om_cpu *c = cpu_entry(m, cpu);

	if (samples)
		m->lost_samples = sat_add(m->lost_samples, lost);
	else
		m->lost = sat_add(m->lost, lost);
	m->lost_records++;
	if (e) {
		if (samples)
			e->lost_samples = sat_add(e->lost_samples, lost);
		else
			e->lost = sat_add(e->lost, lost);
	}
	if (c && samples)
		c->lost_samples = sat_add(c->lost_samples, lost);
	else if (c)
		c->lost = sat_add(c->lost, lost);
	if (time) {
		if (!m->lost_first || time < m->lost_first)
			m->lost_first = time;
		if (time > m->lost_last)
			m->lost_last = time;
		note_time(m, time);
	}
}

/* The throttle state of (id, cpu), added when missing; NULL without memory. */
static struct om_throttle_state *throttle_state(struct overhead_model *m, u64 id, int cpu)
{
	struct pair *x = pair_entry(&priv(m)->thr_cpu, id, cpu, true);

	if (!x)
		return NULL;
	if (x->val)
		return &m->thr[x->val - 1];
	if (!grow((void **)&m->thr, &m->thr_cap, m->nr_thr, sizeof(*m->thr)))
		return NULL;
	m->thr[m->nr_thr] = (struct om_throttle_state){id, cpu, 0, false};
	x->val = ++m->nr_thr;
	return &m->thr[m->nr_thr - 1];
}

/**
 * overhead_model_add_throttle - a THROTTLE or UNTHROTTLE record.
 */
void overhead_model_add_throttle(struct overhead_model *m, int ev, u64 id, int cpu, u64 time,
				 bool unthrottle)
{
	struct om_event *e = event_of(m, ev);
	struct om_cpu *c = cpu_entry(m, cpu);
	struct om_throttle_state *t;

	note_time(m, time);
	t = throttle_state(m, id, cpu);
	if (!unthrottle) {
		m->throttles++;
		if (e)
			e->throttles++;
		if (c)
			c->throttles++;
		if (t && !t->open) {
			t->open = true;
			t->since = time;
		}
		return;
	}
	m->unthrottles++;
	if (c)
		c->unthrottles++;
	if (t && t->open) {
		u64 d = time > t->since ? time - t->since : 0;

		t->open = false;
		m->throttled_ns = sat_add(m->throttled_ns, d);
		if (c)
			c->throttled_ns = sat_add(c->throttled_ns, d);
	}
}

static u64 counter_hash(u64 id, u32 cpu, u32 thread, bool stat)
{
	return hash_mix64(id * 0x9e3779b97f4a7c15ULL ^ ((u64)cpu << 32 | thread) ^
			  (u64)stat << 63);
}

static u64 counter_hash_at(const void *ctx, u32 i)
{
	const struct om_counter *c = &((const struct overhead_model *)ctx)->counters[i];

	return counter_hash(c->id, c->cpu, c->thread, c->stat);
}

static bool counter_eq(const void *ctx, u32 i, const void *key)
{
	const struct om_counter *c = &((const struct overhead_model *)ctx)->counters[i], *k = key;

	return c->id == k->id && c->cpu == k->cpu && c->thread == k->thread && c->stat == k->stat;
}

static void add_counter(struct overhead_model *m, int ev, u64 id, u32 cpu, u32 thread,
			u64 enabled, u64 running, bool stat)
{
	struct model_priv *p = priv(m);
	struct om_counter key = {id, cpu, thread, ev, enabled, running, stat};
	s64 i;
	u32 s;

	if (!hash_index_reserve(&p->counter_idx, counter_hash_at, m))
		return;
	s = hash_index_find(&p->counter_idx, counter_hash(id, cpu, thread, stat), counter_eq, m,
			    &key, &i);
	if (i >= 0) {
		m->counters[i] = key;
		return;
	}
	if (!grow((void **)&m->counters, &m->counters_cap, m->nr_counters, sizeof(*m->counters)))
		return;
	m->counters[m->nr_counters] = key;
	hash_index_set(&p->counter_idx, s, m->nr_counters++);
}

/**
 * overhead_model_add_counter - a cumulative counter reading (a sample's read values).
 */
void overhead_model_add_counter(struct overhead_model *m, int ev, u64 id, u32 cpu, u32 thread,
				u64 enabled, u64 running)
{
	add_counter(m, ev, id, cpu, thread, enabled, running, false);
}

/**
 * overhead_model_add_stat - a STAT reading; it takes precedence over read values.
 */
void overhead_model_add_stat(struct overhead_model *m, int ev, u64 id, u32 cpu, u32 thread,
			     u64 enabled, u64 running)
{
	add_counter(m, ev, id, cpu, thread, enabled, running, true);
}

/**
 * overhead_model_add_sideband - count a side-band record seen in the data.
 */
void overhead_model_add_sideband(struct overhead_model *m, u32 type)
{
	if (type < PD_KERNEL_RECORD_MAX)
		m->sideband_records[type]++;
}

/* ---------------------------------------------------------------------------------------- */
/* Finishing: the per-CPU figures */

static int cmp_cpu(const void *a, const void *b)
{
	const struct om_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_icpu(const void *a, const void *b)
{
	const struct om_interval_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* What one pass over the costs gathers for a CPU. */
struct cpu_acc {
	u64 span[OVERHEAD_TYPE_NR + 1]; /* sum of span_ns by type */
	bool have_stolen, have_handler, have_any;
	const struct om_cost *no_stolen; /* the first unavailable stolen-time figure */
};

/* Sum the figures of every CPU in one pass over the costs: a file may have 65536 CPUs. */
static void sum_costs(struct overhead_model *m, struct cpu_acc *acc)
{
	const struct model_priv *p = priv(m);

	for (u32 i = 0; i < m->nr_costs; i++) {
		const struct om_cost *k = &m->costs[i];
		struct cpu_acc *a;
		struct om_cpu *c;

		overhead_steps++;
		if (k->cpu < 0 || (u32)k->cpu >= p->nr_cpu_slot || !p->cpu_slot[k->cpu])
			continue;
		c = &m->cpus[p->cpu_slot[k->cpu] - 1];
		a = &acc[p->cpu_slot[k->cpu] - 1];
		a->span[k->kind] = sat_add(a->span[k->kind], k->span_ns);
		if (k->status == OVERHEAD_UNAVAILABLE) {
			if (k->kind == OVERHEAD_TYPE_STOLEN && !a->no_stolen)
				a->no_stolen = k;
			continue;
		}
		switch (k->kind) {
		case OVERHEAD_TYPE_SAMPLE:
			a->have_handler = true;
			c->handler_nr = sat_add(c->handler_nr, k->nr);
			c->handler_ns = sat_add(c->handler_ns, k->time_ns);
			if (k->status == OVERHEAD_ESTIMATED)
				c->handler_lower_bound = true;
			break;
		case OVERHEAD_TYPE_STOLEN:
			a->have_stolen = true;
			c->stolen_nr = sat_add(c->stolen_nr, k->nr);
			c->stolen_ns = sat_add(c->stolen_ns, k->time_ns);
			break;
		case OVERHEAD_TYPE_MUX:
			a->have_any = true;
			c->mux_ns = sat_add(c->mux_ns, k->time_ns);
			break;
		case OVERHEAD_TYPE_SIDEBAND:
			a->have_any = true;
			c->sideband_nr = sat_add(c->sideband_nr, k->nr);
			c->sideband_ns = sat_add(c->sideband_ns, k->time_ns);
			break;
		default:
			break;
		}
	}
}

/* The reason a CPU's stolen time is missing, for the note beside its handler-time basis. */
static void basis_note(const struct overhead_model *m, struct om_cpu *c, const struct cpu_acc *a)
{
	const struct overhead_fact_cpu *fc =
	    m->have_facts ? overhead_facts_find_cpu(&m->facts, c->cpu) : NULL;

	if (a->no_stolen)
		snprintf(c->basis_note, sizeof(c->basis_note), "stolen time not calibrated: %s",
			 a->no_stolen->reason[0] ? a->no_stolen->reason : "no reason recorded");
	else if (fc && fc->stolen.state == OVERHEAD_FACT_FAILED)
		snprintf(c->basis_note, sizeof(c->basis_note), "stolen time not calibrated: %s",
			 fc->stolen.reason);
	else
		snprintf(c->basis_note, sizeof(c->basis_note), "no stolen-time figure recorded");
}

static void finish_cpu(struct overhead_model *m, struct om_cpu *c, const struct cpu_acc *a)
{
	const struct overhead_fact_cpu *fc =
	    m->have_facts ? overhead_facts_find_cpu(&m->facts, c->cpu) : NULL;

	for (int t = 0; t <= OVERHEAD_TYPE_NR; t++)
		if (a->span[t] > c->span_ns)
			c->span_ns = a->span[t];

	if (fc && fc->wall_ns) {
		c->wall_ns = fc->wall_ns;
		c->wall_source = "facts";
	} else if (c->span_ns) {
		c->wall_ns = c->span_ns;
		c->wall_source = "spans";
	} else if (m->have_time && m->end > m->start) {
		/* A file without prec:overhead: the recording lasted at least this. */
		c->wall_ns = m->end - m->start;
		c->wall_source = "samples";
	}

	if (a->have_stolen) {
		c->basis = OM_BASIS_STOLEN;
		c->basis_nr = c->stolen_nr;
		c->basis_ns = c->stolen_ns;
	} else if (a->have_handler) {
		c->basis = OM_BASIS_HANDLER;
		c->basis_nr = c->handler_nr;
		c->basis_ns = c->handler_ns;
		basis_note(m, c, a);
	}
	c->overhead_ns = sat_add(sat_add(c->basis_ns, c->mux_ns), c->sideband_ns);
	c->overhead_pct = c->sampling_pct = c->mux_pct = c->sideband_pct = -1;
	if (c->wall_ns && (c->basis != OM_BASIS_NONE || a->have_any)) {
		c->overhead_pct = pct_of((double)c->overhead_ns, (double)c->wall_ns);
		c->mux_pct = pct_of((double)c->mux_ns, (double)c->wall_ns);
		c->sideband_pct = pct_of((double)c->sideband_ns, (double)c->wall_ns);
		if (c->basis != OM_BASIS_NONE)
			c->sampling_pct = pct_of((double)c->basis_ns, (double)c->wall_ns);
	}
}

/* Where each event sampled fastest, from the (event, CPU) pairs: once, not per rule and CPU. */
static void finish_peaks(struct overhead_model *m)
{
	const struct model_priv *p = priv(m);

	for (u32 i = 0; i < m->nr_events; i++) {
		m->events[i].peak_cpu = -1;
		m->events[i].peak_rate = 0;
	}
	for (u32 i = 0; i < p->ev_cpu.nr; i++) {
		const struct pair *x = &p->ev_cpu.e[i];
		const struct om_cpu *c = overhead_model_cpu(m, x->cpu);
		struct om_event *e = event_of(m, (int)x->key);
		double r;

		if (!c || !e)
			continue;
		r = rate_of(x->val, c->wall_ns);
		/* The lowest CPU number among equals, as a walk over the sorted CPUs finds it. */
		if (r > e->peak_rate || (r > 0 && r == e->peak_rate && x->cpu < e->peak_cpu)) {
			e->peak_rate = r;
			e->peak_cpu = x->cpu;
		}
	}
}

static void finish_intervals(struct overhead_model *m)
{
	double *w;
	u32 n = 0;

	for (u32 i = 0; i < m->nr_intervals; i++) {
		struct om_interval *iv = &m->intervals[i];

		if (iv->nr_cpus)
			qsort(iv->cpus, iv->nr_cpus, sizeof(*iv->cpus), cmp_icpu);
		for (u32 j = 0; j < iv->nr_cpus; j++) {
			struct om_interval_cpu *c = &iv->cpus[j];
			u64 basis = c->stolen ? c->stolen_ns : c->handler_ns;
			u64 total = sat_add(sat_add(basis, c->mux_ns), c->sideband_ns);

			c->pct = pct_of((double)total, (double)c->span_ns);
			if (c->pct >= 0 && (iv->worst_cpu < 0 || c->pct > iv->worst_pct)) {
				iv->worst_cpu = c->cpu;
				iv->worst_pct = c->pct;
			}
		}
	}
	w = malloc((m->nr_intervals + 1) * sizeof(*w));
	if (!w)
		return;
	for (u32 i = 0; i < m->nr_intervals; i++)
		if (m->intervals[i].worst_cpu >= 0)
			w[n++] = m->intervals[i].worst_pct;
	if (n) {
		double median;

		qsort(w, n, sizeof(*w), cmp_double);
		median = n & 1 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
		for (u32 i = 0; i < m->nr_intervals; i++) {
			struct om_interval *iv = &m->intervals[i];

			iv->spike = iv->worst_cpu >= 0 && iv->worst_pct >= OM_SPIKE_MIN_PCT &&
				    iv->worst_pct >= OM_SPIKE_FACTOR * median && n >= 3;
		}
	}
	free(w);
}

/**
 * overhead_model_finish - derive the per-CPU figures, the worst CPU and the intervals.
 */
int overhead_model_finish(struct overhead_model *m)
{
	struct model_priv *p = priv(m);
	struct cpu_acc *acc;
	bool *stat_events;

	/* Throttles still open at the end lasted until the end. */
	for (u32 i = 0; i < m->nr_thr; i++) {
		struct om_throttle_state *t = &m->thr[i];
		struct om_cpu *c;
		u64 d;

		if (!t->open || m->end < t->since)
			continue;
		d = m->end - t->since;
		t->open = false;
		m->throttled_ns = sat_add(m->throttled_ns, d);
		c = cpu_entry(m, t->cpu);
		if (c)
			c->throttled_ns = sat_add(c->throttled_ns, d);
	}
	/*
	 * Counter readings: the last cumulative value of each (id, cpu, thread), summed; an event
	 * read by STAT records is summed from them alone.
	 */
	stat_events = calloc(m->nr_events + 1, sizeof(*stat_events));
	if (!stat_events)
		return -ENOMEM;
	for (u32 i = 0; i < m->nr_counters; i++)
		if (m->counters[i].stat && event_of(m, m->counters[i].event))
			stat_events[m->counters[i].event] = true;
	for (u32 i = 0; i < m->nr_counters; i++) {
		struct om_event *e = event_of(m, m->counters[i].event);

		if (!e || (stat_events[m->counters[i].event] && !m->counters[i].stat))
			continue;
		e->have_times = true;
		e->enabled = sat_add(e->enabled, m->counters[i].enabled);
		e->running = sat_add(e->running, m->counters[i].running);
	}
	free(stat_events);

	if (m->nr_cpus)
		qsort(m->cpus, m->nr_cpus, sizeof(*m->cpus), cmp_cpu);
	/* The CPU -> index map follows the sorted order. */
	for (u32 i = 0; i < m->nr_cpus; i++)
		p->cpu_slot[m->cpus[i].cpu] = i + 1;
	acc = calloc(m->nr_cpus + 1, sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	sum_costs(m, acc);

	m->worst = -1;
	m->wall_ns = 0;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		struct om_cpu *c = &m->cpus[i];

		overhead_steps++;
		finish_cpu(m, c, &acc[i]);
		if (c->wall_ns > m->wall_ns)
			m->wall_ns = c->wall_ns;
		if (c->overhead_pct >= 0 &&
		    (m->worst < 0 || c->overhead_pct > m->cpus[m->worst].overhead_pct))
			m->worst = (int)i;
	}
	if (!m->wall_ns) {
		/* No per-CPU figure: the session's own spans, else the samples' time span. */
		for (u32 i = 0; i < m->nr_costs; i++)
			if (m->costs[i].cpu < 0 && m->costs[i].span_ns > m->wall_ns)
				m->wall_ns = m->costs[i].span_ns;
		if (!m->wall_ns && m->have_time)
			m->wall_ns = m->end - m->start;
	}
	free(acc);
	finish_peaks(m);
	if (m->keep_intervals)
		finish_intervals(m);
	/* Positions in the intervals are stale once they are sorted. */
	pair_table_free(&p->iv_cpu);
	m->finished = true;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Findings */

struct findings {
	struct om_finding *f;
	int nr, cap;
	bool oom;
	double budget;
};

__attribute__((format(printf, 3, 4))) static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static struct om_finding *add_finding(struct findings *fs, const char *id, enum om_severity sev,
				      int cpu, int event, double value)
{
	struct om_finding *f;

	if (fs->nr == fs->cap) {
		int cap = fs->cap ? fs->cap * 2 : 8;

		f = realloc(fs->f, cap * sizeof(*f));
		if (!f) {
			fs->oom = true;
			return NULL;
		}
		fs->f = f;
		fs->cap = cap;
	}
	f = &fs->f[fs->nr++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = sev;
	f->cpu = cpu;
	f->event = event;
	f->value = value;
	return f;
}

/* A workload event that samples: not prec:overhead, not a counting-only event. */
static bool sampling_event(const struct om_event *e)
{
	if (e->overhead)
		return false;
	if (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY)
		return false;
	return e->attr.freq ? e->attr.sample_freq > 0 : e->attr.sample_period > 0;
}

/*
 * The frequency event idx sampled at, 0 for a fixed period. prec gives cpu-clock and task-clock
 * with -F the period the kernel makes of the frequency (record/evlist.c, hrtimer_period()), and
 * says in the facts that a frequency was asked.
 */
static u64 event_freq(const struct overhead_model *m, u32 idx)
{
	const struct om_event *e = &m->events[idx];
	const struct overhead_fact_event *fe;

	if (e->attr.freq)
		return e->attr.sample_freq;
	fe = m->have_facts ? overhead_facts_find_event(&m->facts, idx) : NULL;
	if (fe && fe->freq && e->attr.sample_period && perf_attr_is_hrtimer(&e->attr))
		return (u64)llround(1e9 / (double)e->attr.sample_period);
	return 0;
}

/* The frequency -F asked for an event: the facts' (before any cap), else the attr's. */
static u64 requested_freq(const struct overhead_model *m, u32 idx)
{
	const struct overhead_fact_event *fe =
	    m->have_facts ? overhead_facts_find_event(&m->facts, idx) : NULL;

	if (fe && fe->freq)
		return fe->freq;
	if (fe && fe->period)
		return 0;
	return event_freq(m, idx);
}

/* The kernel's sample-rate limit at the end of the recording (or at its start); 0 unknown. */
static u64 rate_limit(const struct overhead_model *m)
{
	if (!m->have_facts)
		return 0;
	return m->facts.max_rate_after ? m->facts.max_rate_after : m->facts.max_rate_before;
}

static const char *basis_words(const struct om_cpu *c)
{
	if (c->basis == OM_BASIS_STOLEN)
		return "stolen time, calibrated: it includes the handler";
	/* Records the collector dropped are runs of the handler it did not see. */
	return c->handler_lower_bound
		   ? "handler time, a lower bound (the collector dropped records)"
		   : "handler time, measured";
}

/*
 * The options that bring CPU c's sampling rate from rate to target: -F or -c per sampling event
 * on that CPU, scaled alike.
 */
static void rate_advice(const struct overhead_model *m, const struct om_cpu *c, double rate,
			double target, char *buf, size_t len)
{
	int n = 0;

	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];

		if (!sampling_event(e) || (c && !event_cpu_samples(m, i, c->cpu)))
			continue;
		if (n++ == 4) {
			cat(buf, len, ", ...");
			break;
		}
		cat(buf, len, "%s", n > 1 ? ", " : "");
		/*
		 * A frequency event gets its share of the target: it samples at -F whenever its
		 * task runs, so the advice holds even on a CPU that was busy all the time, and
		 * it does not trust a rate the kernel capped or throttled. A fixed period scales
		 * exactly: the rate is proportional to 1 / period. Multiply before dividing and
		 * forgive rounding: 1428 * 4000 / 4000 is 1428.
		 */
		if (event_freq(m, i) && rate > 0) {
			u64 f = (u64)floor(target *
					       rate_of(event_cpu_samples(m, i, c ? c->cpu : -1),
						       c ? c->wall_ns : 0) /
					       rate +
					   1e-6);

			if (!c)
				f = (u64)floor(target);

			cat(buf, len, "-F %" PRIu64 " for %s", f ? f : 1, e->name);
		} else if (rate > 0 && target > 0) {
			cat(buf, len, "-c %" PRIu64 " for %s",
			    (u64)ceil((double)e->attr.sample_period * rate / target - 1e-6),
			    e->name);
		}
	}
	if (!n)
		cat(buf, len, "-F %" PRIu64, (u64)floor(target));
}

static void rule_sample_cost(const struct overhead_model *m, struct findings *fs)
{
	const struct om_cpu *w = NULL;
	struct om_finding *f;
	double cost, rate, target;
	int over = 0;
	char a[32], b[32];

	for (u32 i = 0; i < m->nr_cpus; i++) {
		const struct om_cpu *c = &m->cpus[i];

		if (c->sampling_pct < 0 || !c->basis_nr)
			continue;
		if (c->sampling_pct > OM_SAMPLE_COST_WARN_PCT)
			over++;
		if (!w || c->sampling_pct > w->sampling_pct)
			w = c;
	}
	if (!w || w->sampling_pct <= OM_SAMPLE_COST_WARN_PCT)
		return;
	cost = (double)w->basis_ns / (double)w->basis_nr;
	rate = rate_of(w->basis_nr, w->wall_ns);
	target = (double)overhead_rate_for_budget(cost, fs->budget);
	f = add_finding(fs, "sample-cost",
			w->sampling_pct > OM_SAMPLE_COST_SEVERE_PCT ? OM_SEVERE : OM_WARN, w->cpu,
			-1, w->sampling_pct);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "CPU %d spends %.1f%% of its time taking samples: %.0f samples/s x %s per sample "
		 "(%s)",
		 w->cpu, w->sampling_pct, rate, overhead_format_ns(a, sizeof(a), cost),
		 basis_words(w));
	if (w->basis == OM_BASIS_HANDLER)
		cat(f->message, sizeof(f->message),
		    "; %s, so the real cost is higher (the handler is only part of what an "
		    "interrupt takes from the program)",
		    w->basis_note);
	else if (w->handler_nr)
		cat(f->message, sizeof(f->message), "; the handler alone takes %s",
		    overhead_format_ns(b, sizeof(b),
				       (double)w->handler_ns / (double)w->handler_nr));
	if (w->basis == OM_BASIS_HANDLER && m->have_facts &&
	    !strcmp(m->facts.source, "tracepoint")) {
		const struct overhead_fact_cpu *fc = overhead_facts_find_cpu(&m->facts, w->cpu);

		/* At or below 0 it is below what the calibration resolves: nothing to say. */
		if (fc && fc->collector.state == OVERHEAD_FACT_OK && fc->collector.ns > 0)
			cat(f->message, sizeof(f->message),
			    "; the tracepoint collector inflates each handler time by about %s "
			    "(half its calibrated cost)",
			    overhead_format_ns(b, sizeof(b), fc->collector.ns / 2));
	}
	if (over > 1)
		cat(f->message, sizeof(f->message), "; %d CPUs are above %.0f%%", over,
		    OM_SAMPLE_COST_WARN_PCT);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "at %s per sample, %.0f samples/s keep CPU %d under the %.3g%% budget (--budget): ", a,
	    target, w->cpu, fs->budget);
	rate_advice(m, w, rate, target, f->advice, sizeof(f->advice));
}

static void rule_throttle(const struct overhead_model *m, struct findings *fs)
{
	const struct om_cpu *w = NULL;
	u64 count = 0, ns = 0, limit = rate_limit(m);
	bool from_records = m->throttles > 0;
	int cpus = 0;
	struct om_finding *f;
	double share = -1, worst_ns = 0;
	char a[32];

	if (from_records) {
		count = m->throttles;
		ns = m->throttled_ns;
		for (u32 i = 0; i < m->nr_cpus; i++) {
			const struct om_cpu *c = &m->cpus[i];

			if (!c->throttles)
				continue;
			cpus++;
			if (!w || c->throttled_ns > w->throttled_ns ||
			    (c->throttled_ns == w->throttled_ns && c->throttles > w->throttles))
				w = c;
		}
		if (w)
			worst_ns = (double)w->throttled_ns;
	} else {
		/* A file without perf's records: prec:overhead throttle figures. */
		const struct om_cost *wk = NULL;

		for (u32 i = 0; i < m->nr_costs; i++) {
			const struct om_cost *k = &m->costs[i];

			if (k->kind != OVERHEAD_TYPE_THROTTLE ||
			    k->status == OVERHEAD_UNAVAILABLE || !k->nr)
				continue;
			count += k->nr;
			ns += k->time_ns;
			cpus++;
			if (!wk || k->time_ns > wk->time_ns)
				wk = k;
		}
		if (wk) {
			w = overhead_model_cpu(m, wk->cpu);
			worst_ns = (double)wk->time_ns;
		}
	}
	if (!count)
		return;
	if (w && w->wall_ns)
		share = pct_of(worst_ns, (double)w->wall_ns);
	f = add_finding(fs, "throttle", share >= OM_THROTTLE_SEVERE_PCT ? OM_SEVERE : OM_WARN,
			w ? w->cpu : -1, -1, share);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message), "the kernel throttled sampling %" PRIu64 " time%s",
		 count, count == 1 ? "" : "s");
	if (m->wall_ns)
		cat(f->message, sizeof(f->message), " (%.1f per second)",
		    rate_of(count, m->wall_ns));
	if (cpus)
		cat(f->message, sizeof(f->message), " on %d CPU%s, %s without samples in all", cpus,
		    cpus == 1 ? "" : "s", overhead_format_ns(a, sizeof(a), (double)ns));
	if (w) {
		cat(f->message, sizeof(f->message), "; CPU %d the longest: %s", w->cpu,
		    overhead_format_ns(a, sizeof(a), worst_ns));
		if (share >= 0)
			cat(f->message, sizeof(f->message), ", %.1f%% of its time", share);
	}
	if (m->have_facts && m->facts.max_rate_before && m->facts.max_rate_after) {
		cat(f->message, sizeof(f->message),
		    "; kernel.perf_event_max_sample_rate was %" PRIu64 " before and %" PRIu64
		    " after",
		    m->facts.max_rate_before, m->facts.max_rate_after);
		if (m->facts.max_rate_after < m->facts.max_rate_before)
			cat(f->message, sizeof(f->message),
			    " (the kernel lowered it: sampling interrupts took too long)");
	} else {
		cat(f->message, sizeof(f->message),
		    "; the kernel's sample-rate limit before and after was not recorded");
	}

	/*
	 * What to lower, and to what: the budget's rate where the cost per sample is known, never
	 * more than half the kernel's limit (bursts above the limit's share of a tick throttle).
	 */
	if (w) {
		const char *why = "the --budget at the measured cost per sample";
		double rate = 0, target = 0;

		for (u32 i = 0; i < m->nr_events; i++)
			if (sampling_event(&m->events[i]))
				rate += rate_of(event_cpu_samples(m, i, w->cpu), w->wall_ns);
		if (w->basis_nr)
			target = (double)overhead_rate_for_budget(
			    (double)w->basis_ns / (double)w->basis_nr, fs->budget);
		if (limit && (!target || target > (double)(limit / 2))) {
			target = (double)(limit / 2);
			why = "half the kernel's limit";
		}
		if (!target) {
			target = rate / 2;
			why = "half the rate";
		}
		if (rate > 0 && target > 0) {
			cat(f->advice, sizeof(f->advice),
			    "lower the sampling rate: CPU %d took %.0f samples/s; at most %.0f "
			    "(%s): ",
			    w->cpu, rate, target, why);
			rate_advice(m, w, rate, target, f->advice, sizeof(f->advice));
		}
	}
	if (!f->advice[0]) {
		if (limit)
			cat(f->advice, sizeof(f->advice),
			    "lower -F to %" PRIu64 " or less (half the "
			    "kernel's limit), or raise -c",
			    limit / 2);
		else
			cat(f->advice, sizeof(f->advice), "lower -F, or raise -c");
	}
	if (m->have_facts && m->facts.max_rate_after &&
	    m->facts.max_rate_after < m->facts.max_rate_before)
		cat(f->advice, sizeof(f->advice),
		    "; a rate within the budget also stops the kernel lowering its limit; "
		    "sysctl kernel.perf_event_max_sample_rate=%" PRIu64 " puts the limit back",
		    m->facts.max_rate_before);
}

/*
 * The side-band records the ring buffers carried: the facts' count (what the recorder drained
 * from the rings) when the file has it, else the records in the data (synthesized ones
 * included). *from_data says which.
 */
static u64 sideband_carried(const struct overhead_model *m, bool *from_data)
{
	const u64 *counts = m->have_facts && m->facts.have_sideband_records
				? m->facts.sideband_records
				: m->sideband_records;
	u64 n = 0;

	*from_data = counts == m->sideband_records;
	for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++)
		if (t != PERF_RECORD_SAMPLE && t != PERF_RECORD_LOST &&
		    t != PERF_RECORD_LOST_SAMPLES && t != PERF_RECORD_THROTTLE &&
		    t != PERF_RECORD_UNTHROTTLE)
			n = sat_add(n, counts[t]);
	return n;
}

/* Pages of -m that would have held what was lost: the next power of two, at least twice. */
static u64 pages_for(u64 pages, u64 kept, u64 lost)
{
	double want = (double)pages * (kept + lost) / (kept ? kept : 1);
	u64 p = pages * 2;

	while ((double)p < want && p < (1ULL << 20))
		p *= 2;
	return p;
}

/*
 * What the kernel drops when a ring buffer is full is records of every kind, side-band as much
 * as samples: LOST counts them per ring, and PERF_FORMAT_LOST (LOST_SAMPLES), despite its name,
 * counts them per event (the kernel's __perf_output_begin() bumps both for any record that does
 * not fit). So the share lost is lost records over the records the rings were to carry: the
 * samples, the side-band records and the THROTTLE/UNTHROTTLE records kept, and those lost. A
 * side-band storm loses side-band records by the thousand: over the samples alone that read as
 * 92% of the profile lost.
 */
static void rule_lost(const struct overhead_model *m, struct findings *fs)
{
	u64 lost = m->lost > m->lost_samples ? m->lost : m->lost_samples, sideband, kept;
	u64 pcost = 0;
	bool callchain = false, writer_behind, sb_from_data;
	struct om_finding *f;
	const struct om_cpu *w = NULL;
	double share;
	char a[32], b[32];

	if (!m->lost_records) {
		/* No perf records: the prec:overhead lost figures. */
		for (u32 i = 0; i < m->nr_costs; i++)
			if (m->costs[i].kind == OVERHEAD_TYPE_LOST &&
			    m->costs[i].status != OVERHEAD_UNAVAILABLE)
				pcost += m->costs[i].nr;
		lost = pcost;
	}
	if (!lost)
		return;
	sideband = sideband_carried(m, &sb_from_data);
	kept = sat_add(sat_add(m->samples, sideband), sat_add(m->throttles, m->unthrottles));
	share = pct_of((double)lost, (double)sat_add(kept, lost));
	f = add_finding(fs, "lost", share >= OM_LOST_SEVERE_PCT ? OM_SEVERE : OM_WARN, -1, -1,
			share);
	if (!f)
		return;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		const struct om_cpu *c = &m->cpus[i];
		u64 cl = c->lost > c->lost_samples ? c->lost : c->lost_samples;

		if (cl && (!w || cl > (w->lost > w->lost_samples ? w->lost : w->lost_samples)))
			w = c;
	}
	snprintf(f->message, sizeof(f->message),
		 "%" PRIu64 " events lost (%.2f%% of %" PRIu64 " records: %" PRIu64
		 " samples, %" PRIu64 " side-band%s, %" PRIu64 " lost%s)",
		 lost, share, sat_add(kept, lost), m->samples, sideband,
		 sb_from_data ? " in the file" : "", lost,
		 m->lost_records ? "" : "; prec:overhead");
	if (m->lost_records) {
		cat(f->message, sizeof(f->message), ":");
		if (m->lost)
			cat(f->message, sizeof(f->message),
			    " the ring buffers dropped %" PRIu64 " records (LOST)", m->lost);
		if (m->lost_samples)
			cat(f->message, sizeof(f->message),
			    "%s the events counted %" PRIu64 " records lost (LOST_SAMPLES%s)",
			    m->lost ? ";" : "", m->lost_samples,
			    m->lost ? ", the same loss seen from the event" : "");
		cat(f->message, sizeof(f->message), ", in %" PRIu64 " records", m->lost_records);
	}
	if (m->lost_first && m->have_time) {
		overhead_format_ns(a, sizeof(a), (double)(m->lost_first - m->start));
		overhead_format_ns(b, sizeof(b), (double)(m->lost_last - m->start));
		if (!strcmp(a, b))
			cat(f->message, sizeof(f->message), ", at %s into the recording", a);
		else
			cat(f->message, sizeof(f->message), ", from %s to %s into the recording", a,
			    b);
	}
	if (w)
		cat(f->message, sizeof(f->message), "; CPU %d lost the most (%" PRIu64 ")", w->cpu,
		    w->lost > w->lost_samples ? w->lost : w->lost_samples);
	f->cpu = w ? w->cpu : -1;

	writer_behind = m->have_facts && m->facts.dropped_passes > 0;
	for (u32 i = 0; i < m->nr_events; i++)
		if (sampling_event(&m->events[i]) &&
		    m->events[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			callchain = true;
	if (m->have_facts && m->facts.mmap_pages)
		cat(f->advice, sizeof(f->advice),
		    "larger ring buffers: -m %" PRIu64 " (now %" PRIu32 " page%s)",
		    pages_for(m->facts.mmap_pages, kept, lost), m->facts.mmap_pages,
		    m->facts.mmap_pages == 1 ? "" : "s");
	else
		cat(f->advice, sizeof(f->advice),
		    "larger ring buffers (-m, at least twice the pages)");
	if (writer_behind) {
		if (m->facts.comp_level > 0)
			cat(f->advice, sizeof(f->advice),
			    "; the writer fell behind: a lower -z level (now %d) or no -z",
			    m->facts.comp_level);
		else
			cat(f->advice, sizeof(f->advice),
			    "; the writer fell behind: -z shrinks what must be written");
	}
	cat(f->advice, sizeof(f->advice), "; less data per second: a lower -F, fewer events%s",
	    callchain ? ", or no -g (call chains make every sample larger)" : "");
}

static bool hardware_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type > PERF_TYPE_BREAKPOINT;
}

/* Same counter: type, config, config1, config2 and the exclusion bits. */
static bool compatible(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel && a->exclude_hv == b->exclude_hv &&
	       a->exclude_idle == b->exclude_idle && a->exclude_host == b->exclude_host &&
	       a->exclude_guest == b->exclude_guest;
}

/*
 * The events that read another event's counter (prec record --count opened it once for both):
 * the facts say so (event.N.shared_with), and without facts (pipe mode) their ids do: every
 * STAT reading of such an event names a made-up id (PD_PREC_SHARED_ID_BASE, man/prec-data.5).
 * An array by event index (nr_events + 1 entries), or NULL when out of memory.
 */
static bool *shared_events(const struct overhead_model *m)
{
	bool *sh = calloc(m->nr_events + 1, sizeof(*sh));
	bool *own = calloc(m->nr_events + 1, sizeof(*own));

	if (!sh || !own) {
		free(sh);
		free(own);
		return NULL;
	}
	for (u32 i = 0; i < m->nr_counters; i++) {
		const struct om_counter *k = &m->counters[i];

		if (k->event < 0 || (u32)k->event >= m->nr_events || !k->stat)
			continue;
		if (k->id >= PD_PREC_SHARED_ID_BASE && k->id < PD_PREC_SHARED_ID_END)
			sh[k->event] = true;
		else
			own[k->event] = true;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct overhead_fact_event *fe =
		    m->have_facts ? overhead_facts_find_event(&m->facts, i) : NULL;

		sh[i] = (sh[i] && !own[i]) || (fe && fe->shared_with >= 0);
	}
	free(own);
	return sh;
}

static bool shared(const bool *sh, u32 idx)
{
	return sh[idx];
}

/* The events that read event idx's counter (facts: event.N.shared_with=idx). */
static u32 readers_of(const struct overhead_model *m, u32 idx)
{
	u32 n = 0;

	if (!m->have_facts)
		return 0;
	for (u32 i = 0; i < m->facts.nr_events; i++)
		if (m->facts.events[i].shared_with == (int)idx && m->facts.events[i].idx != idx)
			n++;
	return n;
}

/*
 * Counters that ran less than they were enabled. An event that read another's counter (shared)
 * is not a counter of its own: its readings are that counter's, and it would be counted twice.
 */
static void rule_multiplex(const struct overhead_model *m, struct findings *fs)
{
	double worst = 101;
	int n = 0, worst_ev = -1, hw = 0, dup = 0;
	u64 mux_ns = 0;
	const struct om_cpu *wc = NULL;
	struct om_finding *f;
	char a[32];
	bool *sh = shared_events(m);

	if (!sh) {
		fs->oom = true;
		return;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		double p;

		if (e->overhead || !e->have_times || !e->enabled || shared(sh, i))
			continue;
		p = pct_of((double)e->running, (double)e->enabled);
		if (p >= OM_MUX_WARN_PCT)
			continue;
		n++;
		if (hardware_event(&e->attr))
			hw++;
		if (p < worst) {
			worst = p;
			worst_ev = (int)i;
		}
	}
	if (!n)
		goto out;
	f = add_finding(fs, "multiplex", worst < OM_MUX_SEVERE_PCT ? OM_SEVERE : OM_WARN, -1,
			worst_ev, worst);
	if (!f)
		goto out;
	snprintf(f->message, sizeof(f->message),
		 "%d counter%s ran less than the time %s enabled: ", n, n == 1 ? "" : "s",
		 n == 1 ? "it was" : "they were");
	for (u32 i = 0, k = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		u32 readers;
		double p;

		if (e->overhead || !e->have_times || !e->enabled || shared(sh, i))
			continue;
		p = pct_of((double)e->running, (double)e->enabled);
		if (p >= OM_MUX_WARN_PCT)
			continue;
		if (k++ == 6) {
			cat(f->message, sizeof(f->message), ", ...");
			break;
		}
		cat(f->message, sizeof(f->message), "%s%s %.1f%%%s", k > 1 ? ", " : "", e->name, p,
		    e->running ? "" : " (never running: not counted)");
		readers = readers_of(m, i);
		if (readers)
			cat(f->message, sizeof(f->message), " (its counter also read for %u other "
			    "event%s)", readers, readers == 1 ? "" : "s");
	}
	cat(f->message, sizeof(f->message), n == 1 ? " (its count is a scaled estimate)"
						   : " (their counts are scaled estimates)");
	for (u32 i = 0; i < m->nr_cpus; i++) {
		mux_ns += m->cpus[i].mux_ns;
		if (m->cpus[i].mux_pct >= 0 && (!wc || m->cpus[i].mux_pct > wc->mux_pct))
			wc = &m->cpus[i];
	}
	if (wc && wc->mux_pct >= 0)
		cat(f->message, sizeof(f->message),
		    "; rotating them cost %s in all, %.2f%% of CPU %d at most",
		    overhead_format_ns(a, sizeof(a), (double)mux_ns), wc->mux_pct, wc->cpu);
	else
		cat(f->message, sizeof(f->message), "; the rotation cost was not measured");

	cat(f->advice, sizeof(f->advice),
	    "fewer events at once; put the events you compare in one group ({a,b}) so that they "
	    "are counted over the same time");
	for (u32 i = 0; i < m->nr_events; i++)
		for (u32 j = i + 1; j < m->nr_events; j++)
			if (!m->events[i].overhead && !m->events[j].overhead &&
			    compatible(&m->events[i].attr, &m->events[j].attr) && !shared(sh, i) &&
			    !shared(sh, j))
				dup++;
	if (dup)
		cat(f->advice, sizeof(f->advice),
		    "; %d pair%s of events count the same thing and take a counter each: ask once "
		    "(see duplicate-events)",
		    dup, dup == 1 ? "" : "s");
	if (hw && m->have_facts && m->facts.nmi_watchdog == 1)
		cat(f->advice, sizeof(f->advice),
		    "; the NMI watchdog holds a hardware counter on every CPU "
		    "(kernel.nmi_watchdog = 1): sysctl kernel.nmi_watchdog=0 while recording frees "
		    "it");
out:
	free(sh);
}

static const char *sideband_kind_advice(u32 type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return "an mmap storm (JIT code, dlopen churn, or -d recording data maps): drop "
		       "-d, "
		       "or record a narrower target (-p, -t)";
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return "process and thread churn (short-lived children, exec): record a narrower "
		       "target (-p, -t) or use --no-inherit";
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return "context-switch records: drop --switch-events unless the analysis needs "
		       "them";
	default:
		return "records the kernel sends to every event that asks for side-band: fewer "
		       "events with side-band bits";
	}
}

static void rule_sideband(const struct overhead_model *m, struct findings *fs)
{
	const struct om_cpu *w = NULL;
	const u64 *counts;
	struct om_finding *f;
	u32 top = 0, second = 0;
	u64 total = 0;
	char a[32];
	int over = 0;

	for (u32 i = 0; i < m->nr_cpus; i++) {
		const struct om_cpu *c = &m->cpus[i];

		if (c->sideband_pct < 0)
			continue;
		if (c->sideband_pct > OM_SIDEBAND_WARN_PCT)
			over++;
		if (!w || c->sideband_pct > w->sideband_pct)
			w = c;
	}
	if (!w || w->sideband_pct <= OM_SIDEBAND_WARN_PCT)
		return;
	f = add_finding(fs, "sideband",
			w->sideband_pct > OM_SIDEBAND_SEVERE_PCT ? OM_SEVERE : OM_WARN, w->cpu, -1,
			w->sideband_pct);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "side-band records cost CPU %d %.1f%% of its time: %" PRIu64 " records (%.0f/s) "
		 "at %s each (estimated: calibrated)",
		 w->cpu, w->sideband_pct, w->sideband_nr, rate_of(w->sideband_nr, w->wall_ns),
		 overhead_format_ns(a, sizeof(a),
				    w->sideband_nr ? (double)w->sideband_ns / w->sideband_nr : 0));
	if (over > 1)
		cat(f->message, sizeof(f->message), "; %d CPUs are above %.0f%%", over,
		    OM_SIDEBAND_WARN_PCT);
	counts = m->have_facts && m->facts.have_sideband_records ? m->facts.sideband_records
								 : m->sideband_records;
	for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++) {
		if (t == PERF_RECORD_SAMPLE || t == PERF_RECORD_LOST ||
		    t == PERF_RECORD_LOST_SAMPLES || t == PERF_RECORD_THROTTLE ||
		    t == PERF_RECORD_UNTHROTTLE)
			continue;
		total += counts[t];
		if (counts[t] > counts[top]) {
			second = top;
			top = t;
		} else if (counts[t] > counts[second]) {
			second = t;
		}
	}
	if (total && counts[top]) {
		cat(f->message, sizeof(f->message), "; by kind%s: %s %.0f%%",
		    counts == m->sideband_records ? " (records in the file, synthesized ones "
						    "included)"
						  : "",
		    pd_record_type_name(top), pct_of((double)counts[top], (double)total));
		if (second && counts[second])
			cat(f->message, sizeof(f->message), ", %s %.0f%%",
			    pd_record_type_name(second),
			    pct_of((double)counts[second], (double)total));
		snprintf(f->advice, sizeof(f->advice), "mostly %s", sideband_kind_advice(top));
	} else {
		snprintf(f->advice, sizeof(f->advice),
			 "fewer events with side-band bits; drop --switch-events and -d unless "
			 "needed; record a narrower target (-p, -t)");
	}
}

static void rule_recorder(const struct overhead_model *m, struct findings *fs)
{
	u64 cpu_ns = 0, write_ns = 0, wall = 0;
	bool have_cpu = false, behind = m->have_facts && m->facts.dropped_passes > 0;
	double share = -1;
	struct om_finding *f;
	char a[32], b[32];

	for (u32 i = 0; i < m->nr_costs; i++) {
		const struct om_cost *k = &m->costs[i];

		if (k->cpu >= 0 || k->status == OVERHEAD_UNAVAILABLE)
			continue;
		if (k->kind == OVERHEAD_TYPE_RECORDER) {
			have_cpu = true;
			cpu_ns += k->time_ns;
			if (k->span_ns > wall)
				wall = k->span_ns;
		} else if (k->kind == OVERHEAD_TYPE_WRITE) {
			write_ns += k->time_ns;
		}
	}
	if (m->wall_ns > wall)
		wall = m->wall_ns;
	if (have_cpu)
		share = pct_of((double)cpu_ns, (double)wall);
	if (share <= OM_RECORDER_WARN_PCT && !behind)
		return;
	f = add_finding(fs, "recorder-cpu", share > OM_RECORDER_SEVERE_PCT ? OM_SEVERE : OM_WARN,
			-1, -1, share);
	if (!f)
		return;
	if (share > OM_RECORDER_WARN_PCT) {
		snprintf(f->message, sizeof(f->message),
			 "the recorder used %.0f%% of a CPU (%s of CPU time over %s)", share,
			 overhead_format_ns(a, sizeof(a), (double)cpu_ns),
			 overhead_format_ns(b, sizeof(b), (double)wall));
		if (write_ns)
			cat(f->message, sizeof(f->message), "; writing%s took %s",
			    m->have_facts && m->facts.comp_level > 0 ? " and compressing" : "",
			    overhead_format_ns(a, sizeof(a), (double)write_ns));
		snprintf(f->advice, sizeof(f->advice),
			 "less data to copy: a lower -F, fewer events, no -g");
		if (m->have_facts && m->facts.comp_level > 0)
			cat(f->advice, sizeof(f->advice),
			    "; -z %d costs the writer CPU: a lower level", m->facts.comp_level);
	}
	if (behind) {
		cat(f->message, sizeof(f->message),
		    "%swriting fell behind: %" PRId64 " drain passes left data in the ring buffers "
		    "because the write queue was full",
		    f->message[0] ? "; " : "", m->facts.dropped_passes);
		cat(f->advice, sizeof(f->advice),
		    "%sa faster disk for -o, a lower -z level or none, larger -m",
		    f->advice[0] ? "; " : "");
	}
}

static void rule_short_period(const struct overhead_model *m, struct findings *fs)
{
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		const struct om_cpu *w = NULL;
		double wrate = 0, cost = 0, share = -1, target;
		struct om_finding *f;
		enum om_severity sev;
		char a[32];

		if (!sampling_event(e) || event_freq(m, i))
			continue;
		if (e->peak_cpu >= 0) {
			w = overhead_model_cpu(m, e->peak_cpu);
			wrate = e->peak_rate;
		}
		if (!w && e->samples && m->wall_ns) {
			/* No CPU numbers in the file: the rate over all CPUs bounds none of them.
			 */
			wrate = rate_of(e->samples, m->wall_ns);
			if (wrate < OM_SHORT_PERIOD_HZ)
				continue;
			f = add_finding(fs, "short-period", OM_WARN, -1, (int)i, wrate);
			if (!f)
				return;
			snprintf(
			    f->message, sizeof(f->message),
			    "%s samples every %" PRIu64 " events: %.0f samples/s over all CPUs "
			    "(the file has no CPU numbers; the cost per sample was not measured)",
			    e->name, (u64)e->attr.sample_period, wrate);
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) gives about 4000 samples/s, "
				 "or sample by frequency: -F 4000",
				 (u64)ceil((double)e->attr.sample_period * wrate / 4000));
			continue;
		}
		if (!w || wrate < OM_SHORT_PERIOD_HZ)
			continue;
		if (w->basis_nr) {
			cost = (double)w->basis_ns / (double)w->basis_nr;
			share = wrate * cost / NS_PER_S * 100;
			if (share < OM_SAMPLE_COST_WARN_PCT)
				continue;
		}
		sev = share >= OM_SAMPLE_COST_SEVERE_PCT ? OM_SEVERE : OM_WARN;
		f = add_finding(fs, "short-period", sev, w->cpu, (int)i, wrate);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s samples every %" PRIu64 " events: %.0f samples/s on CPU %d", e->name,
			 (u64)e->attr.sample_period, wrate, w->cpu);
		if (share >= 0) {
			cat(f->message, sizeof(f->message),
			    ", whose interrupts take %.1f%% of the CPU at %s each (%s)", share,
			    overhead_format_ns(a, sizeof(a), cost), basis_words(w));
			target = (double)overhead_rate_for_budget(cost, fs->budget);
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) keeps it under the %.3g%% "
				 "budget (%.0f samples/s), or sample by frequency: -F %.0f",
				 (u64)ceil((double)e->attr.sample_period * wrate /
					   (target ? target : 1)),
				 fs->budget, target, target);
		} else {
			cat(f->message, sizeof(f->message),
			    " (the cost per sample was not measured)");
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) gives about 4000 samples/s, "
				 "or sample by frequency: -F 4000",
				 (u64)ceil((double)e->attr.sample_period * wrate / 4000));
		}
	}
}

static void rule_rate_capped(const struct overhead_model *m, struct findings *fs)
{
	u64 limit = rate_limit(m);

	if (!limit)
		return;
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		u64 want = requested_freq(m, i), freq = event_freq(m, i);
		double best = 0;
		struct om_finding *f;

		if (!sampling_event(e) || !freq || want <= limit)
			continue;
		f = add_finding(fs, "rate-capped", OM_WARN, -1, (int)i, (double)want);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s asked for %" PRIu64 " Hz, above the kernel's limit of %" PRIu64
			 " (kernel.perf_event_max_sample_rate%s): it was sampled at %" PRIu64
			 " Hz at most, without a word from the kernel",
			 e->name, want, limit,
			 m->facts.max_rate_after &&
				 m->facts.max_rate_after != m->facts.max_rate_before
			     ? " at the end of the recording"
			     : "",
			 freq < limit ? freq : limit);
		if (e->peak_cpu >= 0) {
			best = e->peak_rate;
			f->cpu = e->peak_cpu;
		}
		if (best > 0)
			cat(f->message, sizeof(f->message), "; it took %.0f samples/s on CPU %d",
			    best, f->cpu);
		snprintf(f->advice, sizeof(f->advice),
			 "ask for -F %" PRIu64 " or less; to sample faster raise the limit "
			 "(sysctl kernel.perf_event_max_sample_rate=%" PRIu64
			 "), which the kernel lowers again when interrupts take too long",
			 limit, want);
	}
}

static void rule_duplicates(const struct overhead_model *m, struct findings *fs)
{
	bool *seen = calloc(m->nr_events + 1, sizeof(*seen));
	bool *sh = shared_events(m);

	if (!seen || !sh) {
		free(seen);
		free(sh);
		fs->oom = true;
		return;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		struct om_finding *f;
		bool sampling = sampling_event(e);
		int n = 1;

		if (seen[i] || e->overhead || shared(sh, i) ||
		    (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		for (u32 j = i + 1; j < m->nr_events; j++) {
			if (seen[j] || m->events[j].overhead || shared(sh, j) ||
			    !compatible(&e->attr, &m->events[j].attr))
				continue;
			seen[j] = true;
			n++;
			sampling |= sampling_event(&m->events[j]);
		}
		if (n < 2)
			continue;
		f = add_finding(fs, "duplicate-events", sampling ? OM_WARN : OM_INFO, -1, (int)i,
				n);
		if (!f)
			break;
		snprintf(f->message, sizeof(f->message),
			 "%d events count the same thing (type %u, "
			 "config 0x%" PRIx64 ", the same exclusions) and were opened separately: ",
			 n, e->attr.type, (u64)e->attr.config);
		for (u32 j = i, k = 0; j < m->nr_events; j++) {
			if (j != i && (!seen[j] || m->events[j].overhead || shared(sh, j) ||
				       !compatible(&e->attr, &m->events[j].attr)))
				continue;
			cat(f->message, sizeof(f->message), "%s%s", k++ ? ", " : "",
			    m->events[j].name);
		}
		if (e->attr.type == PERF_TYPE_TRACEPOINT)
			cat(f->message, sizeof(f->message), " (unless their filters differ)");
		snprintf(f->advice, sizeof(f->advice), "ask for it once%s",
			 sampling ? ": every copy takes a counter and its own sampling interrupts"
				  : ": every copy takes a counter (prec record opens compatible "
				    "counting events once and reads them for each)");
	}
	free(seen);
	free(sh);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct om_finding *x = a, *y = b;

	return (int)y->severity - (int)x->severity;
}

/**
 * overhead_model_judge - apply every rule.
 *
 * Return: the number of findings (*out set, free() it), or -ENOMEM.
 */
int overhead_model_judge(const struct overhead_model *m, const struct om_params *p,
			 struct om_finding **out)
{
	struct findings fs = {NULL, 0, 0, false, OM_DEFAULT_BUDGET_PCT};

	*out = NULL;
	if (p && p->budget_pct > 0)
		fs.budget = p->budget_pct;
	rule_sample_cost(m, &fs);
	rule_throttle(m, &fs);
	rule_lost(m, &fs);
	rule_multiplex(m, &fs);
	rule_sideband(m, &fs);
	rule_recorder(m, &fs);
	rule_short_period(m, &fs);
	rule_rate_capped(m, &fs);
	rule_duplicates(m, &fs);
	if (fs.oom) {
		free(fs.f);
		return -ENOMEM;
	}
	/* Most severe first; rules keep their order within a severity (a stable sort). */
	for (int i = 1; i < fs.nr; i++) {
		struct om_finding t = fs.f[i];
		int j = i;

		while (j > 0 && cmp_finding(&fs.f[j - 1], &t) > 0) {
			fs.f[j] = fs.f[j - 1];
			j--;
		}
		fs.f[j] = t;
	}
	*out = fs.f;
	return fs.nr;
}
