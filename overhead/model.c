// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead model (overhead/model.h): figures in, per-CPU costs out. Adding is cheap (hash
 * lookups), because a long recording on many CPUs has millions of prec:overhead samples;
 * everything that needs the whole picture happens in overhead_model_finish(). The findings are
 * the rules' (overhead/rules.c), which read the finished model.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/figures.h"
#include "overhead/model.h"
#include "util/hash-index.h"
#include "util/hash.h"

/* ---------------------------------------------------------------------------------------- */
/* Small helpers */

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
	case OVERHEAD_TYPE_AGGREGATE:
		c->aggregate_ns = sat_add(c->aggregate_ns, r->time_ns);
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

/**
 * om_event_cpu_samples - the samples of event ev on cpu.
 *
 * Return: their number; 0 for an event or CPU the model has no samples of.
 */
u64 om_event_cpu_samples(const struct overhead_model *m, u32 ev, int cpu)
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
		case OVERHEAD_TYPE_AGGREGATE:
			a->have_any = true;
			c->have_aggregate = true;
			c->aggregate_nr = sat_add(c->aggregate_nr, k->nr);
			c->aggregate_ns = sat_add(c->aggregate_ns, k->time_ns);
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
	c->overhead_ns = sat_add(sat_add(c->basis_ns, c->mux_ns),
				 sat_add(c->sideband_ns, c->aggregate_ns));
	c->overhead_pct = c->sampling_pct = c->mux_pct = c->sideband_pct = c->aggregate_pct = -1;
	if (c->wall_ns && (c->basis != OM_BASIS_NONE || a->have_any)) {
		c->overhead_pct = pct_of((double)c->overhead_ns, (double)c->wall_ns);
		c->mux_pct = pct_of((double)c->mux_ns, (double)c->wall_ns);
		c->sideband_pct = pct_of((double)c->sideband_ns, (double)c->wall_ns);
		c->aggregate_pct = pct_of((double)c->aggregate_ns, (double)c->wall_ns);
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
			u64 total = sat_add(sat_add(basis, c->mux_ns),
					    sat_add(c->sideband_ns, c->aggregate_ns));

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
