// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --counters: read the counter readings of a file and print, per logical event (one
 * attr), the last cumulative readings summed over its CPUs and threads, what they mean (exact,
 * scaled, not counted), the range of a scaled count, the rate, the shared counters (the facts
 * section's event.N.shared_with), and the differences between rounds (STAT_ROUND) as the
 * per-interval view, as text or JSON (the schema is in man/prec-report.1, COUNTERS).
 *
 * The records: STAT {id, cpu, thread, val, ena, run}, cumulative since the event was enabled,
 * one per (id, cpu, thread) and round; then STAT_ROUND {type, time}. The id names the logical
 * event (pd_reader_attr_by_id(), as perf decides it). perf stat report and perf script's stat__
 * handlers read the same records; tests/t2100 checks that the totals agree.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/event.h"
#include "overhead/facts.h"
#include "report/counters-model.h"
#include "report/report.h"
#include "util/json.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/xalloc.h"

/* One counter read: the last cumulative reading of (id, cpu, thread), and the one at the round. */
struct slot {
	u64 id;
	u32 cpu, thread;
	u32 ev;
	bool dirty; /* read since the last round */
	struct cm_reading cur, base;
};

/* The difference of an event's readings between two rounds. */
struct interval {
	u64 time;  /* the round's time: ns since the events were enabled */
	u64 round; /* its number, from 1 (end: one past the last) */
	bool end;  /* readings after the last round (no STAT_ROUND closed them) */
	unsigned flags;
	struct cm_reading d;
};

struct cev {
	bool have; /* some reading names it */
	u32 nr_slots;
	struct cm_reading total;
	unsigned flags;	  /* of the total: CM_SATURATED */
	u32 nr_decreased; /* intervals in which a reading went down */
	struct interval *iv;
	u32 nr_iv, cap_iv;
	struct cm_rates rates;
	struct cm_estimate est;
	int shared_with;	       /* the attr index whose counter it read; -1 */
	bool shared;		       /* it read another's counter (shared_with, or made-up ids) */
	bool made_ids;		       /* all its ids are made-up ones (a shared reading) */
	bool hidden;		       /* prec's own event, never read: not a counter */
	const char *bpf_counter;       /* "created", "joined": a counter shared across sessions */
	const char *bpf_fallback;      /* why it had none when asked (--bpf-counters), or NULL */
	int first_reader, next_reader; /* the events that read its counter: a list; -1 ends it */
	char name[256];
};

struct counters {
	struct report *rep;
	const char *name; /* the file, for messages ("stdin" for -) */
	struct cev *ev;
	u32 nr_ev;
	struct slot *slots;
	u32 nr_slots, cap_slots;
	u32 *hash; /* slot index + 1; 0 empty */
	u32 hash_cap;
	/*
	 * A round costs what changed in it, not what the file holds: the slots read since the last
	 * round (dirty), the events they belong to (touched, with their sums in acc), and the
	 * events that have readings at all (live), which get a row each while the rows stay under
	 * MAX_INTERVAL_ROWS.
	 */
	u32 *dirty, nr_dirty, cap_dirty;
	u32 *touched, nr_touched;
	u32 *live, nr_live;
	struct cm_reading *acc;
	unsigned *acc_flags;
	bool *acc_have;
	u64 nr_rows;
	u32 *row_ev; /* [nr_rows]: the event of each row kept, in the order they were made */
	u64 cap_row_ev;
	u64 rows_cut_at; /* the round from which no rows were kept; 0: all kept */
	u64 nr_stat, nr_rounds, nr_final, unknown_ids, short_records;
	u64 last_time;
	bool stat_since_round;
	bool have_config;
	u64 aggr_mode, interval_ms, scale;
	u32 thread_maps, cpu_maps;
	struct overhead_facts facts;
	bool have_facts;
};

/* ---------------------------------------------------------------------------------------- */
/* Reading */

static u64 slot_hash(u64 id, u32 cpu, u32 thread)
{
	u64 h = id * 0x9e3779b97f4a7c15ULL ^ ((u64)cpu << 32 | thread);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static void rehash(struct counters *c)
{
	u32 cap = c->hash_cap ? c->hash_cap * 2 : 64;

	free(c->hash);
	c->hash = xcalloc(cap, sizeof(*c->hash));
	c->hash_cap = cap;
	for (u32 i = 0; i < c->nr_slots; i++) {
		const struct slot *s = &c->slots[i];
		u32 h = (u32)slot_hash(s->id, s->cpu, s->thread) & (cap - 1);

		while (c->hash[h])
			h = (h + 1) & (cap - 1);
		c->hash[h] = i + 1;
	}
}

static struct slot *slot_of(struct counters *c, u64 id, u32 cpu, u32 thread, u32 ev)
{
	u32 h;

	if ((c->nr_slots + 1) * 2 > c->hash_cap)
		rehash(c);
	h = (u32)slot_hash(id, cpu, thread) & (c->hash_cap - 1);
	while (c->hash[h]) {
		struct slot *s = &c->slots[c->hash[h] - 1];

		if (s->id == id && s->cpu == cpu && s->thread == thread)
			return s;
		h = (h + 1) & (c->hash_cap - 1);
	}
	if (c->nr_slots == c->cap_slots) {
		c->cap_slots = c->cap_slots ? c->cap_slots * 2 : 64;
		c->slots = xrealloc(c->slots, c->cap_slots * sizeof(*c->slots));
	}
	c->hash[h] = ++c->nr_slots;
	memset(&c->slots[c->nr_slots - 1], 0, sizeof(struct slot));
	c->slots[c->nr_slots - 1].id = id;
	c->slots[c->nr_slots - 1].cpu = cpu;
	c->slots[c->nr_slots - 1].thread = thread;
	c->slots[c->nr_slots - 1].ev = ev;
	if (!c->ev[ev].nr_slots++)
		c->live[c->nr_live++] = ev;
	return &c->slots[c->nr_slots - 1];
}

/* Room for event idx (pipe mode declares events as it goes). */
static void grow_events(struct counters *c, u32 nr)
{
	if (nr <= c->nr_ev)
		return;
	c->ev = xrealloc(c->ev, nr * sizeof(*c->ev));
	c->acc = xrealloc(c->acc, nr * sizeof(*c->acc));
	c->acc_flags = xrealloc(c->acc_flags, nr * sizeof(*c->acc_flags));
	c->acc_have = xrealloc(c->acc_have, nr * sizeof(*c->acc_have));
	c->touched = xrealloc(c->touched, nr * sizeof(*c->touched));
	c->live = xrealloc(c->live, nr * sizeof(*c->live));
	for (u32 i = c->nr_ev; i < nr; i++) {
		memset(&c->ev[i], 0, sizeof(c->ev[i]));
		c->ev[i].shared_with = -1;
		c->ev[i].first_reader = c->ev[i].next_reader = -1;
		memset(&c->acc[i], 0, sizeof(c->acc[i]));
		c->acc_flags[i] = 0;
		c->acc_have[i] = false;
	}
	c->nr_ev = nr;
}

/* More interval rows than this (events times rounds) are not kept: the view stops there. */
#ifndef MAX_INTERVAL_ROWS
#define MAX_INTERVAL_ROWS (1u << 22)
#endif

/* One interval of an event: its rate always, its row when store. */
static void add_interval(struct cev *e, u64 round, u64 time, bool end, unsigned flags,
			 const struct cm_reading *d, bool store)
{
	struct interval *iv;

	if (flags & CM_DECREASED)
		e->nr_decreased++;
	else
		cm_rates_add(&e->rates, d);
	if (!store)
		return;
	if (e->nr_iv == e->cap_iv) {
		e->cap_iv = e->cap_iv ? e->cap_iv * 2 : 16;
		e->iv = xrealloc(e->iv, e->cap_iv * sizeof(*e->iv));
	}
	iv = &e->iv[e->nr_iv++];
	iv->time = time;
	iv->round = round;
	iv->end = end;
	iv->flags = flags;
	iv->d = *d;
}

/*
 * Close an interval: per event, the differences of its readings since the last round, summed.
 * Each reading is differenced by itself, so that one that went down spoils only its own part.
 * With end (readings after the last round), nothing is added when nothing changed.
 */
static void close_interval(struct counters *c, u64 time, bool end)
{
	static const struct cm_reading zero;
	u64 round = end ? c->nr_rounds + 1 : c->nr_rounds;
	bool any = false, store;

	for (u32 k = 0; k < c->nr_dirty; k++) {
		struct slot *s = &c->slots[c->dirty[k]];
		struct cm_reading d;
		unsigned f = cm_delta(&s->base, &s->cur, &d);

		f |= cm_add(&c->acc[s->ev], &d);
		c->acc_flags[s->ev] |= f;
		if (!c->acc_have[s->ev]) {
			c->acc_have[s->ev] = true;
			c->touched[c->nr_touched++] = s->ev;
		}
		if (f || d.val || d.ena || d.run)
			any = true;
		s->base = s->cur;
		s->dirty = false;
	}
	c->nr_dirty = 0;
	if (!end || any) {
		store = c->nr_rows + c->nr_live <= MAX_INTERVAL_ROWS;
		if (!store && !c->rows_cut_at)
			c->rows_cut_at = round;
		if (store) {
			/* every event with readings gets a row, a zero one when nothing changed */
			if (c->nr_rows + c->nr_live > c->cap_row_ev) {
				c->cap_row_ev = (c->nr_rows + c->nr_live) * 2;
				c->row_ev = xrealloc(c->row_ev, c->cap_row_ev * sizeof(*c->row_ev));
			}
			for (u32 k = 0; k < c->nr_live; k++) {
				u32 i = c->live[k];

				add_interval(&c->ev[i], round, time, end, c->acc_flags[i],
					     c->acc_have[i] ? &c->acc[i] : &zero, true);
				c->row_ev[c->nr_rows + k] = i;
			}
			c->nr_rows += c->nr_live;
		} else {
			for (u32 k = 0; k < c->nr_touched; k++) {
				u32 i = c->touched[k];

				add_interval(&c->ev[i], round, time, end, c->acc_flags[i],
					     &c->acc[i], false);
			}
		}
	}
	for (u32 k = 0; k < c->nr_touched; k++) {
		u32 i = c->touched[k];

		memset(&c->acc[i], 0, sizeof(c->acc[i]));
		c->acc_flags[i] = 0;
		c->acc_have[i] = false;
	}
	c->nr_touched = 0;
}

static void read_stat(struct counters *c, const struct pd_record_header *h)
{
	struct pd_stat_body b;
	struct slot *s;
	int idx;

	if (h->size < sizeof(*h) + sizeof(b)) {
		c->short_records++;
		return;
	}
	b.id = pd_get_u64((const u8 *)(h + 1));
	b.cpu = pd_get_u32((const u8 *)(h + 1) + 8);
	b.thread = pd_get_u32((const u8 *)(h + 1) + 12);
	b.val = pd_get_u64((const u8 *)(h + 1) + 16);
	b.ena = pd_get_u64((const u8 *)(h + 1) + 24);
	b.run = pd_get_u64((const u8 *)(h + 1) + 32);
	c->nr_stat++;
	idx = pd_reader_attr_by_id(c->rep->r, b.id);
	if (idx < 0) {
		c->unknown_ids++;
		return;
	}
	grow_events(c, pd_reader_nr_attrs(c->rep->r));
	if ((u32)idx >= c->nr_ev) {
		c->unknown_ids++;
		return;
	}
	s = slot_of(c, b.id, b.cpu, b.thread, (u32)idx);
	if (!s->dirty) {
		if (c->nr_dirty == c->cap_dirty) {
			c->cap_dirty = c->cap_dirty ? c->cap_dirty * 2 : 64;
			c->dirty = xrealloc(c->dirty, c->cap_dirty * sizeof(*c->dirty));
		}
		c->dirty[c->nr_dirty++] = (u32)(s - c->slots);
		s->dirty = true;
	}
	s->cur.val = b.val;
	s->cur.ena = b.ena;
	s->cur.run = b.run;
	c->ev[idx].have = true;
	c->stat_since_round = true;
}

static void read_stat_config(struct counters *c, const struct pd_record_header *h)
{
	const u8 *p = (const u8 *)(h + 1);
	u64 left = h->size - sizeof(*h), nr;

	if (left < 8) {
		c->short_records++;
		return;
	}
	nr = pd_get_u64(p);
	left -= 8;
	if (nr > left / 16) {
		c->short_records++;
		return;
	}
	c->have_config = true;
	for (u64 i = 0; i < nr; i++) {
		u64 tag = pd_get_u64(p + 8 + i * 16), val = pd_get_u64(p + 16 + i * 16);

		if (tag == PD_STAT_CONFIG_AGGR_MODE)
			c->aggr_mode = val;
		else if (tag == PD_STAT_CONFIG_INTERVAL)
			c->interval_ms = val;
		else if (tag == PD_STAT_CONFIG_SCALE)
			c->scale = val;
	}
}

static int read_file(struct counters *c)
{
	struct pd_reader *r = c->rep->r;
	const void *facts;
	struct pd_event ev;
	char why[256];
	size_t len;
	int ret;

	facts = pd_reader_feature(r, PD_FEAT_PREC, &len);
	if (facts) {
		if (overhead_facts_decode(facts, len, &c->facts, why, sizeof(why)))
			warning(
			    "%s: the prec facts section cannot be read (%s): the shared counters "
			    "are not known",
			    c->name, why);
		else
			c->have_facts = true;
	}
	c->scale = 1;
	grow_events(c, pd_reader_nr_attrs(r));
	while ((ret = report_next(c->rep, &ev)) > 0) {
		const struct pd_record_header *h = ev.header;

		switch (h->type) {
		case PD_RECORD_STAT:
			read_stat(c, h);
			break;
		case PD_RECORD_STAT_ROUND:
			if (h->size < sizeof(*h) + sizeof(struct pd_stat_round_body)) {
				c->short_records++;
				break;
			}
			c->last_time = pd_get_u64((const u8 *)(h + 1) + 8);
			if (pd_get_u64(h + 1) == PD_STAT_ROUND_FINAL)
				c->nr_final++;
			c->nr_rounds++;
			close_interval(c, c->last_time, false);
			c->stat_since_round = false;
			break;
		case PD_RECORD_STAT_CONFIG:
			read_stat_config(c, h);
			break;
		case PD_RECORD_THREAD_MAP:
			c->thread_maps++;
			break;
		case PD_RECORD_CPU_MAP:
			c->cpu_maps++;
			break;
		}
	}
	if (ret < 0)
		return -1;
	grow_events(c, pd_reader_nr_attrs(r));
	if (c->stat_since_round)
		close_interval(c, c->last_time, true);
	if (c->unknown_ids)
		warning("%s: %" PRIu64 " counter reading%s an id no event has; %s left out",
			c->name, c->unknown_ids, c->unknown_ids == 1 ? " names" : "s name",
			c->unknown_ids == 1 ? "it is" : "they are");
	if (c->rows_cut_at)
		warning(
		    "%s: more than %u interval rows: the per-interval view stops at round %" PRIu64
		    " (the totals and ranges use every round)",
		    c->name, MAX_INTERVAL_ROWS, c->rows_cut_at);
	if (c->short_records)
		warning("%s: %" PRIu64 " STAT record%s too short; %s left out", c->name,
			c->short_records, c->short_records == 1 ? " is" : "s are",
			c->short_records == 1 ? "it is" : "they are");
	return 0;
}

/* A damaged file may name every event: say it of the first few, then count the rest. */
#define MAX_EVENT_WARNINGS 5

/* All the event's ids are made-up ones: it read another event's counter (man/prec-data.5). */
static bool made_ids(const struct pd_reader *r, u32 i)
{
	u32 nr = 0;
	const u64 *ids = pd_reader_attr_ids(r, i, &nr);

	if (!ids || !nr)
		return false;
	for (u32 k = 0; k < nr; k++)
		if (ids[k] < PD_PREC_SHARED_ID_BASE || ids[k] >= PD_PREC_SHARED_ID_END)
			return false;
	return true;
}

/*
 * Finding the counter a shared reading read when the facts section does not say it (pipe mode):
 * the earlier event with a counter of its own (kernel ids, counting) of the same type, config,
 * config1, config2 and exclusion bits, and equal readings in every round; else the first such
 * event. An open-addressing table of event indexes keeps the first event of each key, so that
 * this is linear in the events.
 */
struct owner_table {
	u32 *slot; /* event index + 1; 0 empty */
	u32 cap;
};

static u64 exclusions(const struct perf_event_attr *a)
{
	return (u64)a->exclude_user | (u64)a->exclude_kernel << 1 | (u64)a->exclude_hv << 2 |
	       (u64)a->exclude_idle << 3 | (u64)a->exclude_host << 4 | (u64)a->exclude_guest << 5;
}

static u64 owner_hash(const struct counters *c, u32 i, bool readings)
{
	const struct perf_event_attr *a = pd_reader_attr(c->rep->r, i);
	u64 h = hash_mix64(a->type ^ a->config * 0x9e3779b97f4a7c15ULL);

	h = hash_mix64(h ^ a->config1) ^ hash_mix64(a->config2 + exclusions(a));
	if (readings)
		h = hash_mix64(h ^ c->ev[i].total.val) ^ hash_mix64(c->ev[i].total.ena) ^
		    hash_mix64(c->ev[i].total.run * 3);
	return h;
}

static bool owner_eq(const struct counters *c, u32 i, u32 j, bool readings)
{
	const struct perf_event_attr *a = pd_reader_attr(c->rep->r, i);
	const struct perf_event_attr *b = pd_reader_attr(c->rep->r, j);
	const struct cev *x = &c->ev[i], *y = &c->ev[j];

	if (a->type != b->type || a->config != b->config || a->config1 != b->config1 ||
	    a->config2 != b->config2 || exclusions(a) != exclusions(b))
		return false;
	return !readings || (x->total.val == y->total.val && x->total.ena == y->total.ena &&
			     x->total.run == y->total.run);
}

/* The first event put with i's key, or -1. */
static int owner_get(const struct counters *c, const struct owner_table *t, u32 i, bool readings)
{
	u32 h = (u32)owner_hash(c, i, readings) & (t->cap - 1);

	for (; t->slot[h]; h = (h + 1) & (t->cap - 1))
		if (owner_eq(c, i, t->slot[h] - 1, readings))
			return (int)t->slot[h] - 1;
	return -1;
}

static void owner_put(const struct counters *c, struct owner_table *t, u32 i, bool readings)
{
	u32 h = (u32)owner_hash(c, i, readings) & (t->cap - 1);

	for (; t->slot[h]; h = (h + 1) & (t->cap - 1))
		if (owner_eq(c, i, t->slot[h] - 1, readings))
			return; /* keep the first */
	t->slot[h] = i + 1;
}

/* The same readings round by round (as far as rows were kept). */
static bool same_intervals(const struct cev *x, const struct cev *y)
{
	if (x->nr_iv != y->nr_iv)
		return false;
	for (u32 k = 0; k < x->nr_iv; k++) {
		const struct interval *a = &x->iv[k], *b = &y->iv[k];

		if (a->round != b->round || a->flags != b->flags || a->d.val != b->d.val ||
		    a->d.ena != b->d.ena || a->d.run != b->d.run)
			return false;
	}
	return true;
}

/*
 * The shared readings the facts do not name: their counter, when it can be told. A counter shared
 * across sessions has made-up ids too (the session may hold no fd of it), but the facts say
 * whose it is: its own.
 */
static void find_owners(struct counters *c)
{
	struct owner_table by_attr = {NULL, 0}, by_readings = {NULL, 0};
	u32 cap = 16;
	bool any = false;

	for (u32 i = 0; i < c->nr_ev; i++) {
		if (c->ev[i].bpf_counter)
			c->ev[i].made_ids = false;
		any |= c->ev[i].made_ids && !c->ev[i].shared;
	}
	if (!any)
		return;
	while (cap < 2 * c->nr_ev)
		cap *= 2;
	by_attr.slot = xcalloc(cap, sizeof(u32));
	by_readings.slot = xcalloc(cap, sizeof(u32));
	by_attr.cap = by_readings.cap = cap;
	/* In file order: an event is looked up among the events before it only. */
	for (u32 i = 0; i < c->nr_ev; i++) {
		const struct perf_event_attr *a = pd_reader_attr(c->rep->r, i);
		struct cev *e = &c->ev[i];
		u32 nr = 0;

		if (!a)
			continue;
		if (e->made_ids && !e->shared) {
			int j = owner_get(c, &by_readings, i, true);

			if (j < 0 || !same_intervals(e, &c->ev[j]))
				j = owner_get(c, &by_attr, i, false);
			e->shared = true;
			e->shared_with = j;
			continue;
		}
		if (!e->made_ids && !e->shared && !a->freq && !a->sample_period &&
		    pd_reader_attr_ids(c->rep->r, i, &nr) && nr) {
			owner_put(c, &by_attr, i, false);
			owner_put(c, &by_readings, i, true);
		}
	}
	free(by_attr.slot);
	free(by_readings.slot);
}

/* Totals, estimates, names and sharing, once everything is read. */
static void finish(struct counters *c)
{
	u32 nr_decreased = 0, nr_saturated = 0, nr_above = 0;

	for (u32 i = 0; i < c->nr_slots; i++) {
		struct cev *e = &c->ev[c->slots[i].ev];

		e->flags |= cm_add(&e->total, &c->slots[i].cur);
	}
	for (u32 i = 0; i < c->nr_ev; i++) {
		struct cev *e = &c->ev[i];
		const struct overhead_fact_event *fe;
		char buf[256];

		snprintf(e->name, sizeof(e->name), "%s",
			 report_event_name(c->rep->r, i, buf, sizeof(buf)));
		cm_estimate(&e->total, e->have, &e->rates, &e->est);
		fe = c->have_facts ? overhead_facts_find_event(&c->facts, i) : NULL;
		if (fe && fe->shared_with >= 0 && (u32)fe->shared_with < c->nr_ev &&
		    (u32)fe->shared_with != i) {
			e->shared_with = fe->shared_with;
			e->shared = true;
		}
		if (fe) {
			e->bpf_counter = overhead_fact_bpf_name(fe->bpf_counter);
			e->bpf_fallback = fe->bpf_fallback[0] ? fe->bpf_fallback : NULL;
		}
		e->made_ids = made_ids(c->rep->r, i);
		/*
		 * prec's own events: samples that no counter stands behind. Never read, they are
		 * no counter of the recording (perf stat report shows them as <not supported>).
		 */
		e->hidden = !e->have && attr_is_prec_event(pd_reader_attr(c->rep->r, i));
		if (e->nr_decreased && ++nr_decreased <= MAX_EVENT_WARNINGS)
			warning("%s: the readings of %s (event %u) went down in %u interval%s (a "
				"damaged file?): those intervals count nothing and are left out of "
				"its range",
				c->name, e->name, i, e->nr_decreased,
				e->nr_decreased == 1 ? "" : "s");
		if ((e->flags & CM_SATURATED) && ++nr_saturated <= MAX_EVENT_WARNINGS)
			warning("%s: the readings of %s (event %u) add up past 2^64: its total is "
				"cut there",
				c->name, e->name, i);
		if ((e->est.flags & CM_RUN_ABOVE_ENA) && ++nr_above <= MAX_EVENT_WARNINGS)
			warning("%s: %s (event %u) ran longer (%" PRIu64 " ns) than it was enabled "
				"(%" PRIu64 " ns): its count is taken as exact",
				c->name, e->name, i, e->total.run, e->total.ena);
	}
	if (nr_decreased > MAX_EVENT_WARNINGS || nr_saturated > MAX_EVENT_WARNINGS ||
	    nr_above > MAX_EVENT_WARNINGS)
		warning("%s: in all %u events with readings that went down, %u that add up past "
			"2^64, %u that ran longer than enabled (the JSON flags name them)",
			c->name, nr_decreased, nr_saturated, nr_above);
	find_owners(c);
	/* the readers of each counter, in file order */
	for (u32 k = c->nr_ev; k-- > 0;) {
		struct cev *e = &c->ev[k];

		if (e->shared_with >= 0) {
			e->next_reader = c->ev[e->shared_with].first_reader;
			c->ev[e->shared_with].first_reader = (int)k;
		}
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Text */

/* The unit of an event's count: the software clocks count ns. */
static const char *unit_of(struct counters *c, u32 idx)
{
	const struct perf_event_attr *a = pd_reader_attr(c->rep->r, idx);

	if (a && perf_attr_is_hrtimer(a))
		return "ns";
	return "";
}

/* 12.346 M: three decimals and a K/M/G/T suffix, as perf stat prints rates. */
static char *fmt_si(char *buf, size_t len, double v)
{
	static const char *const sfx[] = {"", " K", " M", " G", " T", " P", " E"};
	unsigned i = 0;

	while (fabs(v) >= 1000 && i + 1 < sizeof(sfx) / sizeof(sfx[0])) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.3f%s", v, sfx[i]);
	return buf;
}

/* A rate for the rate column: "397.862 " lines up with "1.000 G" before "/s". */
static char *fmt_rate(char *buf, size_t len, double v)
{
	size_t n;

	fmt_si(buf, len, v);
	n = strlen(buf);
	if (n + 1 < len && !(buf[n - 1] >= 'A' && buf[n - 1] <= 'Z')) {
		buf[n] = ' ';
		buf[n + 1] = '\0';
	}
	return buf;
}

/* Append to a notes buffer, "; " between notes. */
__attribute__((format(printf, 3, 4))) static void add_note(char *buf, size_t len, const char *fmt,
							   ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* A line of the text view, built piece by piece and printed without trailing blanks. */
struct line {
	char b[1024];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void lput(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= sizeof(l->b) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->b + l->n, sizeof(l->b) - l->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->n = l->n + (size_t)n < sizeof(l->b) ? l->n + (size_t)n : sizeof(l->b) - 1;
}

static void lend(struct line *l)
{
	while (l->n && l->b[l->n - 1] == ' ')
		l->n--;
	l->b[l->n] = '\0';
	puts(l->b);
	l->n = 0;
}

static void print_total(struct counters *c, u32 i)
{
	const struct cev *e = &c->ev[i];
	const struct cm_estimate *x = &e->est;
	const char *none = cm_status_text(x->status);
	char a[32], b[32], d[32], notes[512] = "";
	struct line l = {.n = 0};
	bool first = true;

	lput(&l, "%5u ", i);
	if (none)
		lput(&l, "%20s", none);
	else
		lput(&l, "%20" PRIu64, e->total.val);
	lput(&l, " %-4s %-24s", unit_of(c, i), e->name);
	if (isnan(x->running_pct))
		lput(&l, " %8s", "");
	else
		lput(&l, " %7.2f%%", x->running_pct);
	if (isnan(x->rate))
		lput(&l, " %14s", "");
	else
		lput(&l, " %12s/s", fmt_rate(a, sizeof(a), x->rate));
	switch (x->status) {
	case CM_NOT_SUPPORTED:
		add_note(notes, sizeof(notes), "no readings");
		break;
	case CM_NOT_ENABLED:
		add_note(notes, sizeof(notes), "never enabled");
		break;
	case CM_NOT_COUNTED:
		add_note(notes, sizeof(notes), "enabled %.3f s, never running",
			 (double)e->total.ena / 1e9);
		break;
	case CM_SCALED:
		if (isnan(x->high))
			add_note(notes, sizeof(notes),
				 "scaled %.0f (at least %s; range unknown: fewer than 2 intervals "
				 "ran)",
				 x->scaled, fmt_si(b, sizeof(b), x->low));
		else
			add_note(notes, sizeof(notes), "scaled %.0f (%s .. %s, +-%.1f%%)",
				 x->scaled, fmt_si(b, sizeof(b), x->low),
				 fmt_si(d, sizeof(d), x->high), x->uncertainty_pct);
		break;
	case CM_COUNTED:
		if (x->flags & CM_RUN_ABOVE_ENA)
			add_note(notes, sizeof(notes), "ran longer than enabled: taken as exact");
		break;
	}
	if (e->shared_with >= 0)
		add_note(notes, sizeof(notes), "read the counter of event %d", e->shared_with);
	else if (e->shared)
		add_note(notes, sizeof(notes), "read another event's counter (not known which)");
	if (e->bpf_counter)
		add_note(notes, sizeof(notes), "read through a counter shared across sessions (%s)",
			 e->bpf_counter);
	else if (e->bpf_fallback)
		add_note(notes, sizeof(notes), "own counters, none shared across sessions: %s",
			 e->bpf_fallback);
	for (int j = e->first_reader; j >= 0; j = c->ev[j].next_reader) {
		size_t n = strlen(notes);

		if (first)
			add_note(notes, sizeof(notes), "its counter was also read for event %d", j);
		else
			snprintf(notes + n, sizeof(notes) - n, ", %d", j);
		first = false;
	}
	if (*notes)
		lput(&l, "  %s", notes);
	lend(&l);
}

static void print_interval_row(struct counters *c, u32 i, const struct interval *iv)
{
	struct line l = {.n = 0};
	struct cm_estimate x;

	cm_estimate(&iv->d, true, NULL, &x);
	if (iv->end)
		lput(&l, "%14s ", "end");
	else
		lput(&l, "%14.9f ", (double)iv->time / 1e9);
	lput(&l, "%5u ", i);
	if (iv->flags & CM_DECREASED)
		lput(&l, "%20s", "<went down>");
	else if (cm_status_text(x.status))
		lput(&l, "%20s", cm_status_text(x.status));
	else
		lput(&l, "%20" PRIu64, iv->d.val);
	lput(&l, " %-4s %-24s", unit_of(c, i), c->ev[i].name);
	if (!isnan(x.running_pct) && !(iv->flags & CM_DECREASED))
		lput(&l, " %7.2f%%", x.running_pct);
	if (x.status == CM_SCALED)
		lput(&l, "  scaled %.0f", x.scaled);
	lend(&l);
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Round by round, events in file order. row_ev holds the rows in the order close_interval()
 * made them, a round's rows together and each event at most once per round, and each event's
 * rows are in round order: so a round is the run of rows whose events' next rows (taken as the
 * run is walked) have its number, sorted by event. This costs the rows kept (and n log n within
 * a round), never events times rounds (a file of 20000 attrs and 100000 rounds of one event
 * read would otherwise cost 4 * 10^9 steps).
 */
static void print_intervals(struct counters *c)
{
	u32 *at = xcalloc(c->nr_ev + 1, sizeof(*at));

	printf("#\n# Per interval: the differences between rounds, summed over CPUs and threads\n");
	printf("#%13s %5s %20s %-4s %-24s %8s\n", "time", "event", "count", "unit", "name",
	       "running");
	for (u64 k = 0, end; k < c->nr_rows; k = end) {
		u32 i = c->row_ev[k];
		u64 round = c->ev[i].iv[at[i]].round;

		for (end = k; end < c->nr_rows; end++) {
			u32 j = c->row_ev[end];

			if (c->ev[j].iv[at[j]].round != round)
				break;
			at[j]++;
		}
		qsort(c->row_ev + k, end - k, sizeof(*c->row_ev), cmp_u32);
		/* an event's row of this round is the one just taken */
		for (u64 n = k; n < end; n++) {
			i = c->row_ev[n];
			print_interval_row(c, i, &c->ev[i].iv[at[i] - 1]);
		}
	}
	free(at);
}

static const char *aggr_name(u64 m)
{
	switch (m) {
	case PD_AGGR_NONE:
		return "none";
	case PD_AGGR_GLOBAL:
		return "global";
	case PD_AGGR_SOCKET:
		return "socket";
	case PD_AGGR_DIE:
		return "die";
	case PD_AGGR_CORE:
		return "core";
	case PD_AGGR_THREAD:
		return "thread";
	case PD_AGGR_NODE:
		return "node";
	default:
		return "unknown";
	}
}

static void print_text(struct counters *c, bool intervals)
{
	bool scaled = false, shared = false, bpf = false;

	printf("# Counter readings of %s: %" PRIu64 " readings, %" PRIu64 " round%s", c->name,
	       c->nr_stat, c->nr_rounds, c->nr_rounds == 1 ? "" : "s");
	if (c->interval_ms)
		printf(" every %" PRIu64 " ms", c->interval_ms);
	if (c->nr_rounds)
		printf(", %.3f s from the first enable to the last round",
		       (double)c->last_time / 1e9);
	printf(
	    "\n# Totals are the last readings summed over CPUs and threads; running is the share "
	    "of the enabled\n# time the counter was on the PMU; rates are per second of enabled "
	    "time (summed likewise).\n");
	if (c->have_config && c->aggr_mode != PD_AGGR_GLOBAL)
		printf("# (the file asks for aggregation '%s'; prec sums globally)\n",
		       aggr_name(c->aggr_mode));
	if (intervals)
		print_intervals(c);
	printf("#\n#%4s %20s %-4s %-24s %8s %14s  %s\n", "event", "count", "unit", "name",
	       "running", "rate", "notes");
	for (u32 i = 0; i < c->nr_ev; i++) {
		if (c->ev[i].hidden)
			continue;
		print_total(c, i);
		scaled |= c->ev[i].est.status == CM_SCALED;
		shared |= c->ev[i].shared;
		bpf |= c->ev[i].bpf_counter != NULL;
	}
	if (scaled)
		printf(
		    "#\n# Scaled: count * enabled / running, as perf scales. The range assumes the "
		    "rate while switched\n# out stayed between the lowest and highest rate of the "
		    "intervals in which the event ran.\n");
	if (shared)
		printf("#\n# Shared counters: an event that read another's counter was opened once "
		       "for both; its count is\n# the counter's increase since it was enabled.\n");
	if (bpf)
		printf("#\n# Counters shared across sessions (--bpf-counters): one counter per CPU "
		       "for every session\n# counting the event; this recording created it or "
		       "joined it, and counted its target's share.\n");
}

/* ---------------------------------------------------------------------------------------- */
/* JSON */

/* A number with decimals digits after the point, or null. */
static void json_num(double v, int decimals)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.*f", decimals, v);
}

/* A string, or null. */
static void json_str_or_null(const char *s)
{
	if (s)
		json_str(stdout, s);
	else
		printf("null");
}

static void json_flags(unsigned f)
{
	bool first = true;

	printf("[");
	if (f & CM_DECREASED) {
		printf("\"decreased\"");
		first = false;
	}
	if (f & CM_RUN_ABOVE_ENA) {
		printf("%s\"running-above-enabled\"", first ? "" : ",");
		first = false;
	}
	if (f & CM_SATURATED)
		printf("%s\"saturated\"", first ? "" : ",");
	printf("]");
}

static void json_reading(const struct cm_reading *r, const struct cm_estimate *x)
{
	printf("\"status\":\"%s\",\"count\":%" PRIu64 ",\"enabled_ns\":%" PRIu64
	       ",\"running_ns\":%" PRIu64 ",\"running_pct\":",
	       cm_status_name(x->status), r->val, r->ena, r->run);
	json_num(x->running_pct, 4);
	printf(",\"scaled\":");
	json_num(x->scaled, 1);
	printf(",\"rate_per_s\":");
	json_num(x->rate, 3);
}

static void print_json(struct counters *c)
{
	printf("{\"file\":");
	json_str(stdout, c->name);
	printf(",\"readings\":%" PRIu64 ",\"rounds\":%" PRIu64 ",\"final_rounds\":%" PRIu64,
	       c->nr_stat, c->nr_rounds, c->nr_final);
	printf(",\"elapsed_ns\":");
	if (c->nr_rounds)
		printf("%" PRIu64, c->last_time);
	else
		printf("null");
	printf(",\"stat_config\":");
	if (c->have_config)
		printf("{\"aggr_mode\":\"%s\",\"interval_ms\":%" PRIu64 ",\"scale\":%" PRIu64 "}",
		       aggr_name(c->aggr_mode), c->interval_ms, c->scale);
	else
		printf("null");
	printf(",\"uncertainty\":\"interval-rate-range\",\"events\":[");
	for (u32 i = 0, n = 0; i < c->nr_ev; i++) {
		const struct cev *e = &c->ev[i];
		bool first = true;

		if (e->hidden)
			continue;
		printf("%s\n{\"index\":%u,\"name\":", n++ ? "," : "", i);
		json_str(stdout, e->name);
		printf(",\"unit\":");
		json_str(stdout, unit_of(c, i));
		printf(",\"readings\":%u,", e->nr_slots);
		json_reading(&e->total, &e->est);
		printf(",\"low\":");
		json_num(e->est.low, 1);
		printf(",\"high\":");
		json_num(e->est.high, 1);
		printf(",\"uncertainty_pct\":");
		json_num(e->est.uncertainty_pct, 4);
		printf(",\"flags\":");
		json_flags(e->flags | e->est.flags | (e->nr_decreased ? CM_DECREASED : 0));
		printf(",\"shared\":%s,\"shared_with\":", e->shared ? "true" : "false");
		if (e->shared_with >= 0)
			printf("%d", e->shared_with);
		else
			printf("null");
		printf(",\"bpf_counter\":");
		json_str_or_null(e->bpf_counter);
		printf(",\"bpf_counter_fallback\":");
		json_str_or_null(e->bpf_fallback);
		printf(",\"read_for\":[");
		for (int j = e->first_reader; j >= 0; j = c->ev[j].next_reader) {
			printf("%s%d", first ? "" : ",", j);
			first = false;
		}
		printf("],\"intervals\":[");
		for (u32 k = 0; k < e->nr_iv; k++) {
			const struct interval *iv = &e->iv[k];
			struct cm_estimate x;

			cm_estimate(&iv->d, true, NULL, &x);
			printf("%s{\"time_ns\":%" PRIu64 ",\"end\":%s,", k ? "," : "", iv->time,
			       iv->end ? "true" : "false");
			json_reading(&iv->d, &x);
			printf(",\"flags\":");
			json_flags(iv->flags);
			printf("}");
		}
		printf("]}");
	}
	printf("\n]}\n");
}

/* ---------------------------------------------------------------------------------------- */

static void counters_free(struct counters *c)
{
	for (u32 i = 0; i < c->nr_ev; i++)
		free(c->ev[i].iv);
	free(c->ev);
	free(c->slots);
	free(c->hash);
	free(c->acc);
	free(c->acc_flags);
	free(c->acc_have);
	free(c->dirty);
	free(c->row_ev);
	free(c->touched);
	free(c->live);
	if (c->have_facts)
		overhead_facts_release(&c->facts);
}

/* The view: read the readings, work out what they mean, print. */
int report_counters(struct report *rep, const struct report_opts *o)
{
	struct counters c;
	int ret = 1;

	memset(&c, 0, sizeof(c));
	c.rep = rep;
	c.name = rep->name;
	if (read_file(&c))
		goto out;
	if (!c.nr_stat) {
		error("%s: no counter readings (PERF_RECORD_STAT): record them with prec record "
		      "--count EVENTS, or perf stat record",
		      c.name);
		goto out;
	}
	finish(&c);
	if (o->json)
		print_json(&c);
	else
		print_text(&c, o->intervals);
	ret = 0;
out:
	counters_free(&c);
	return ret;
}
