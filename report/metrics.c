// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics view of prec report (--metrics): per function, the counter deltas of the windows
 * between a group leader's samples (`-e '{a,b,c}:S'`), and the metrics derived from them.
 *
 * A window's deltas can only be given to one function when the thread stayed in it: a window
 * whose counter's previous sample was in another function, or in another thread (a counter that
 * is not inherit counts whichever thread runs), is discarded (unless --metrics=all).
 * A leader that alternates a long and a short period (hf-period, alt-period, or deltas that do)
 * only counts its short windows: the long ones mark where a short one starts. Samples inside a
 * throttled span, and the first after it, restart the window. The rules themselves are in
 * metrics_step() and metrics_alternates() (report/metrics.h), which a unit test drives.
 *
 * Samples come through the profile's session (report/session.c), which resolves their address
 * to the same symbol `prec report --sort sym` prints, with their read values.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/filter.h"
#include "report/hist.h"
#include "report/metrics.h"
#include "report/report.h"
#include "report/session.h"
#include "util/hash.h"
#include "util/hash-index.h"
#include "util/json.h"
#include "util/log.h"
#include "util/xalloc.h"

enum metrics_mode_value { MODE_DISCARD, MODE_ALL };

/* The largest group the view takes (a read of more members is left out, and said so). */
#define MAX_MEMBERS 64

/* The derived metrics, in the order the table and the JSON show them. */
enum op {
	OP_CYCLES = METRICS_OP_CYCLES,
	OP_INSNS = METRICS_OP_INSTRUCTIONS,
	OP_BRANCH_MISSES = METRICS_OP_BRANCH_MISSES,
	OP_CACHE_REFS = METRICS_OP_CACHE_REFERENCES,
	OP_CACHE_MISSES = METRICS_OP_CACHE_MISSES,
	OP_NR = METRICS_OP_NR
};

static const struct derived {
	const char *key;
	enum op num, den;
	double scale;
} derived[] = {
    {"CPI", OP_CYCLES, OP_INSNS, 1},
    {"BM/KI", OP_BRANCH_MISSES, OP_INSNS, 1000},
    {"CM/KI", OP_CACHE_MISSES, OP_INSNS, 1000},
    {"CM%", OP_CACHE_MISSES, OP_CACHE_REFS, 100},
};

#define NR_DERIVED (sizeof(derived) / sizeof(derived[0]))

/* Windows are added up apart by length, until the file tells whether the leader alternates. */
enum { BIN_SHORT, BIN_LONG, NR_BINS };

struct func {
	struct dso *dso;       /* NULL: no map holds the address */
	const struct sym *sym; /* NULL: no symbol: the row of the binary */
	char level;
	u64 windows[NR_BINS]; /* attributed */
	u64 discarded[NR_BINS];
	u64 *counts; /* NR_BINS * nr: the attributed deltas */
};

/* What one metric of a group shows: a derived one, or a member per unit of the leader. */
struct metric {
	char key[96];
	int num, den; /* member positions */
	double scale;
};

struct group {
	u32 leader; /* the leader's attr */
	u32 nr;	    /* members, the leader first, in read order */
	char **names;
	u64 period;	/* the leader's fixed period; 0 at a frequency */
	bool inherit;	/* the leader's attr: each inherited counter has its values under one id */
	bool saturated; /* a sum reached the largest u64: the file's values are damaged */
	int op[OP_NR];	/* the member of each operand; -1 if absent */
	struct metric metrics[NR_DERIVED + MAX_MEMBERS];
	u32 nr_metrics;
	struct func *funcs;
	u32 nr_funcs, cap_funcs;
	u32 *table; /* function index + 1 by (dso, sym); 0 empty */
	u32 mask;
	u64 samples, member_samples, mismatched;
	u64 throttled;
	u64 nr_windows[NR_BINS];
	bool alternating;
	u64 hf_period; /* from prec's facts; 0: not known */
	/* after the reading */
	u64 *totals;
	u64 attributed, discarded, long_windows;
	u32 *order;
};

/*
 * The throttled spans of an id, and of a thread of it (tid -1: every key of the id): whether
 * one is open, and where the last ended, so that a key whose previous sample came before that
 * knows its next sample is the first after the span.
 */
struct span {
	u64 id;
	int tid;
	bool open;
	u64 end_seq; /* the last UNTHROTTLE's place in the order of records */
};

/*
 * The window state of a counter instance: its id, and its thread (tid) when the leader is
 * inherit (tid -1 otherwise: one state for whichever thread the counter counted).
 */
struct key_state {
	const struct group *g;
	u64 id;
	int tid;
	int last_tid; /* the thread of its previous sample */
	u64 seq;      /* the place of its previous sample */
	struct metrics_key k;
};

/* Entries of an array found through a hash_index by (a, b, c). */
struct key3 {
	u64 a, b;
	int c;
};

struct metrics {
	struct session s;
	const struct report_opts *o;
	enum metrics_mode_value mode;
	struct group **by_attr; /* the group a leader's attr leads; NULL before its first sample */
	u32 nr_attrs;
	struct group **groups; /* sorted by their leaders' attrs once the file is read */
	u32 nr_groups;
	struct key_state *keys;
	u32 nr_keys, cap_keys;
	struct hash_index key_index;
	struct span *spans;
	u32 nr_spans, cap_spans;
	struct hash_index span_index;
	u32 *open_spans; /* the spans open now */
	u32 nr_open, cap_open;
	u64 seq;
	u64 too_large; /* samples of groups larger than MAX_MEMBERS */
};

/* ---------------------------------------------------------------------------------------- */
/* The rules */

enum metrics_step metrics_step(struct metrics_key *k, const u64 *values, u32 nr, u32 func,
			       bool throttled, u64 *deltas, bool *same)
{
	enum metrics_step ret = METRICS_WINDOW;

	if (!k->valid)
		ret = METRICS_START;
	else if (throttled)
		ret = METRICS_THROTTLED;
	for (u32 i = 0; ret == METRICS_WINDOW && i < nr; i++) {
		/* a counter that went back was reset: the window means nothing */
		if (values[i] < k->values[i])
			ret = METRICS_THROTTLED;
		else
			deltas[i] = values[i] - k->values[i];
	}
	if (ret == METRICS_WINDOW)
		*same = k->func == func;
	memcpy(k->values, values, (size_t)nr * sizeof(*values));
	k->func = func;
	k->valid = true;
	return ret;
}

bool metrics_alternates(u64 period, u64 nr_windows, u64 nr_short)
{
	return period && nr_windows && 4 * nr_short >= nr_windows;
}

/* ---------------------------------------------------------------------------------------- */
/* Groups */

int metrics_event_op(const struct perf_event_attr *a, const char *name)
{
	static const char *const names[OP_NR] = {"cycles", "instructions", "branch-misses",
						 "cache-references", "cache-misses"};
	static const u64 configs[OP_NR] = {
	    PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES,
	    PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES};
	char base[64];
	const char *p;
	size_t n;

	if (a->type == PERF_TYPE_HARDWARE) {
		for (int i = 0; i < OP_NR; i++)
			if ((a->config & 0xffffffffULL) == configs[i])
				return i;
		return -1;
	}
	if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT ||
	    a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_BREAKPOINT)
		return -1;
	/* "cpu/cycles/u", "cpu/cycles,period=100/", "cpu-cycles:u", "instructions" */
	p = strchr(name, '/');
	p = p ? p + 1 : name;
	n = strcspn(p, "/:,=");
	if (n >= sizeof(base))
		return -1;
	memcpy(base, p, n);
	base[n] = '\0';
	if (!strcmp(base, "cpu-cycles"))
		return OP_CYCLES;
	for (int i = 0; i < OP_NR; i++)
		if (!strcmp(base, names[i]))
			return i;
	return -1;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The metrics a group shows: the derived ones it has the operands of, then its other members. */
static void group_metrics(struct metrics *mx, struct group *g)
{
	bool operand[MAX_MEMBERS] = {false};
	const struct perf_event_attr *la = pd_reader_attr(mx->s.r, g->leader);

	for (size_t i = 0; i < NR_DERIVED; i++) {
		struct metric *m = &g->metrics[g->nr_metrics];

		if (g->op[derived[i].num] < 0 || g->op[derived[i].den] < 0)
			continue;
		snprintf(m->key, sizeof(m->key), "%s", derived[i].key);
		m->num = g->op[derived[i].num];
		m->den = g->op[derived[i].den];
		m->scale = derived[i].scale;
		operand[m->num] = operand[m->den] = true;
		g->nr_metrics++;
	}
	for (u32 i = 1; i < g->nr && i < MAX_MEMBERS; i++) {
		struct metric *m = &g->metrics[g->nr_metrics];

		if (operand[i])
			continue;
		m->num = (int)i;
		m->den = 0;
		if (la && is_clock(la)) {
			/* the clocks count nanoseconds */
			snprintf(m->key, sizeof(m->key), "%s/ms", g->names[i]);
			m->scale = 1e6;
		} else {
			snprintf(m->key, sizeof(m->key), "%s/%s", g->names[i], g->names[0]);
			m->scale = 1;
		}
		g->nr_metrics++;
	}
}

static u32 payload_u32(const u8 *p, size_t len, size_t *pos, bool *bad)
{
	u32 v = 0;

	if (len - *pos < sizeof(v)) {
		*bad = true;
		return 0;
	}
	memcpy(&v, p + *pos, sizeof(v));
	*pos += sizeof(v);
	return v;
}

/*
 * The leader of attr idx as GROUP_DESC declares it (idx itself when no group holds it), or -1
 * when the file has no GROUP_DESC that can be read.
 */
static int desc_leader(struct pd_reader *r, u32 idx)
{
	const u8 *p;
	size_t len = 0, pos = 0;
	bool bad = false;
	u32 nr;

	p = pd_reader_feature(r, PD_FEAT_GROUP_DESC, &len);
	if (!p)
		return -1;
	nr = payload_u32(p, len, &pos, &bad);
	for (u32 i = 0; i < nr && !bad; i++) {
		u32 leader, members;

		if (!pd_feat_next_string(p, len, &pos))
			return -1;
		leader = payload_u32(p, len, &pos, &bad);
		members = payload_u32(p, len, &pos, &bad);
		if (!bad && idx >= leader && idx - leader < members)
			return (int)leader;
	}
	return bad ? -1 : (int)idx;
}

/*
 * The leader of a sample's group when its read has no ids: GROUP_DESC's, else the sample's attr
 * unless the group of an earlier attr already holds it (a member that samples too).
 */
static int noid_leader(struct metrics *mx, u32 idx)
{
	int leader = desc_leader(mx->s.r, idx);

	if (leader >= 0)
		return leader;
	for (u32 i = 0; i < mx->nr_groups; i++) {
		const struct group *g = mx->groups[i];

		if (idx > g->leader && idx - g->leader < g->nr)
			return (int)g->leader;
	}
	return (int)idx;
}

/* The group a sample reads, made at the first sample of its leader; NULL if it reads none. */
static struct group *group_of(struct metrics *mx, const struct psample *smp,
			      const struct psample_read *rd)
{
	struct pd_reader *r = mx->s.r;
	const struct perf_event_attr *a = pd_reader_attr(r, (u32)smp->attr);
	struct group *g;
	char buf[256];
	int leader;

	if (!a || !(a->sample_type & PERF_SAMPLE_READ) || !(a->read_format & PERF_FORMAT_GROUP) ||
	    !rd->nr)
		return NULL;
	if (a->read_format & PERF_FORMAT_ID)
		leader = pd_reader_attr_by_id(r, rd->values[0].id);
	else
		leader = noid_leader(mx, (u32)smp->attr);
	if (leader < 0)
		return NULL;
	if ((u32)leader >= mx->nr_attrs) {
		u32 n = pd_reader_nr_attrs(r);

		mx->by_attr = xrealloc(mx->by_attr, n * sizeof(*mx->by_attr));
		memset(mx->by_attr + mx->nr_attrs, 0, (n - mx->nr_attrs) * sizeof(*mx->by_attr));
		mx->nr_attrs = n;
		if ((u32)leader >= n)
			return NULL;
	}
	g = mx->by_attr[leader];
	if (g)
		return g;
	if (rd->nr > MAX_MEMBERS) {
		mx->too_large++;
		return NULL;
	}
	g = xcalloc(1, sizeof(*g));
	g->leader = (u32)leader;
	g->nr = (u32)rd->nr;
	g->names = xcalloc(g->nr, sizeof(*g->names));
	for (int i = 0; i < OP_NR; i++)
		g->op[i] = -1;
	for (u32 i = 0; i < g->nr; i++) {
		const struct perf_event_attr *ma;
		int idx = (int)(g->leader + i);
		int op;

		if (a->read_format & PERF_FORMAT_ID)
			idx = pd_reader_attr_by_id(r, rd->values[i].id);
		ma = idx >= 0 ? pd_reader_attr(r, (u32)idx) : NULL;
		if (ma) {
			g->names[i] = xstrdup(report_event_name(r, (u32)idx, buf, sizeof(buf)));
			op = metrics_event_op(ma, g->names[i]);
			if (op >= 0 && g->op[op] < 0)
				g->op[op] = (int)i;
		} else {
			snprintf(buf, sizeof(buf), "member %u", i);
			g->names[i] = xstrdup(buf);
		}
	}
	a = pd_reader_attr(r, g->leader);
	g->period = a && !a->freq ? a->sample_period : 0;
	g->inherit = a && a->inherit;
	g->hf_period = report_hf_period(r, g->leader, NULL);
	group_metrics(mx, g);
	g->mask = 63;
	g->table = xcalloc(g->mask + 1, sizeof(*g->table));
	mx->by_attr[leader] = g;
	mx->groups = xrealloc(mx->groups, (mx->nr_groups + 1) * sizeof(*mx->groups));
	mx->groups[mx->nr_groups++] = g;
	return g;
}

static u32 func_hash(const struct dso *dso, const struct sym *sym)
{
	return (u32)hash_mix64((u64)(uintptr_t)dso * 31 + (u64)(uintptr_t)sym);
}

static void funcs_grow(struct group *g)
{
	u32 mask = g->mask * 2 + 1;
	u32 *t = xcalloc(mask + 1, sizeof(*t));

	for (u32 i = 0; i < g->nr_funcs; i++) {
		u32 j = func_hash(g->funcs[i].dso, g->funcs[i].sym) & mask;

		while (t[j])
			j = (j + 1) & mask;
		t[j] = i + 1;
	}
	free(g->table);
	g->table = t;
	g->mask = mask;
}

/* The function of a frame: its symbol, else its binary ("[unknown]" in it). */
static u32 func_of(struct group *g, const struct frame *fr)
{
	const struct sym *sym = fr->dso ? fr->sym : NULL;
	u32 j = func_hash(fr->dso, sym) & g->mask, i;
	struct func *f;

	for (; (i = g->table[j]); j = (j + 1) & g->mask)
		if (g->funcs[i - 1].dso == fr->dso && g->funcs[i - 1].sym == sym)
			return i - 1;
	if (g->nr_funcs == g->cap_funcs) {
		g->cap_funcs = g->cap_funcs ? 2 * g->cap_funcs : 16;
		g->funcs = xrealloc(g->funcs, g->cap_funcs * sizeof(*g->funcs));
	}
	i = g->nr_funcs++;
	f = &g->funcs[i];
	memset(f, 0, sizeof(*f));
	f->dso = fr->dso;
	f->sym = sym;
	f->level = fr->level;
	f->counts = xcalloc((size_t)NR_BINS * g->nr, sizeof(*f->counts));
	g->table[j] = i + 1;
	if (g->nr_funcs * 2 > g->mask)
		funcs_grow(g);
	return i;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

static u64 key3_hash(const struct key3 *k)
{
	return hash_mix64(k->a * 31 + k->b * 17 + (u64)(u32)k->c);
}

static u64 key_hash_at(const void *ctx, u32 i)
{
	const struct key_state *ks = &((const struct metrics *)ctx)->keys[i];
	struct key3 k = {(u64)(uintptr_t)ks->g, ks->id, ks->tid};

	return key3_hash(&k);
}

static bool key_eq(const void *ctx, u32 i, const void *key)
{
	const struct key_state *ks = &((const struct metrics *)ctx)->keys[i];
	const struct key3 *k = key;

	return (uintptr_t)ks->g == k->a && ks->id == k->b && ks->tid == k->c;
}

/* The window state of a sample of group g: by its id, and its thread when g is inherit. */
static struct key_state *key_of(struct metrics *mx, const struct group *g, u64 id, int tid)
{
	struct key3 k = {(u64)(uintptr_t)g, id, g->inherit ? tid : -1};
	struct key_state *ks;
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&mx->key_index, key_hash_at, mx))
		die("out of memory");
	slot = hash_index_find(&mx->key_index, key3_hash(&k), key_eq, mx, &k, &i);
	if (i >= 0)
		return &mx->keys[i];
	if (mx->nr_keys == mx->cap_keys) {
		mx->cap_keys = mx->cap_keys ? 2 * mx->cap_keys : 16;
		mx->keys = xrealloc(mx->keys, mx->cap_keys * sizeof(*mx->keys));
	}
	ks = &mx->keys[mx->nr_keys];
	memset(ks, 0, sizeof(*ks));
	ks->g = g;
	ks->id = id;
	ks->tid = k.c;
	ks->last_tid = tid;
	ks->k.values = xcalloc(g->nr, sizeof(*ks->k.values));
	hash_index_set(&mx->key_index, slot, mx->nr_keys++);
	return ks;
}

static u64 span_hash_at(const void *ctx, u32 i)
{
	const struct span *sp = &((const struct metrics *)ctx)->spans[i];
	struct key3 k = {sp->id, 0, sp->tid};

	return key3_hash(&k);
}

static bool span_eq(const void *ctx, u32 i, const void *key)
{
	const struct span *sp = &((const struct metrics *)ctx)->spans[i];
	const struct key3 *k = key;

	return sp->id == k->a && sp->tid == k->c;
}

/* The spans of an id and thread (tid -1: of every key of the id); NULL when none began. */
static struct span *span_of(struct metrics *mx, u64 id, int tid, bool create)
{
	struct key3 k = {id, 0, tid};
	struct span *sp;
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&mx->span_index, span_hash_at, mx))
		die("out of memory");
	slot = hash_index_find(&mx->span_index, key3_hash(&k), span_eq, mx, &k, &i);
	if (i >= 0)
		return &mx->spans[i];
	if (!create)
		return NULL;
	if (mx->nr_spans == mx->cap_spans) {
		mx->cap_spans = mx->cap_spans ? 2 * mx->cap_spans : 8;
		mx->spans = xrealloc(mx->spans, mx->cap_spans * sizeof(*mx->spans));
	}
	sp = &mx->spans[mx->nr_spans];
	memset(sp, 0, sizeof(*sp));
	sp->id = id;
	sp->tid = tid;
	hash_index_set(&mx->span_index, slot, mx->nr_spans++);
	return sp;
}

/* Does span sp hold the next sample of key ks: open, or ended after the key's previous sample? */
static bool span_holds(const struct span *sp, const struct key_state *ks)
{
	return sp && (sp->open || (ks->k.valid && ks->seq < sp->end_seq));
}

/* Is a sample of key ks throttled: inside a span of it, or the first after one? */
static bool key_throttled(struct metrics *mx, const struct key_state *ks)
{
	if (!mx->nr_spans)
		return false;
	if (span_holds(span_of(mx, ks->id, -1, false), ks))
		return true;
	return ks->tid != -1 && span_holds(span_of(mx, ks->id, ks->tid, false), ks);
}

/*
 * THROTTLE begins a span: of the record's thread when the leader is inherit (each thread has its
 * counter), else of every key of the id. UNTHROTTLE ends every open span of the id: the kernel
 * writes it from the tick, in whichever thread runs then.
 */
static void on_throttle(struct session *s, const struct pd_record_header *h, void *arg)
{
	struct metrics *mx = arg;
	const struct perf_event_attr *a;
	struct pd_throttle_body body;
	struct pd_sample smp;
	struct span *sp;
	int tid = -1, idx;

	mx->seq++;
	if (h->size < sizeof(*h) + sizeof(body))
		return;
	memcpy(&body, h + 1, sizeof(body));
	if (h->type == PERF_RECORD_UNTHROTTLE) {
		for (u32 i = 0; i < mx->nr_open;) {
			sp = &mx->spans[mx->open_spans[i]];
			if (sp->id == body.id) {
				sp->open = false;
				sp->end_seq = mx->seq;
				mx->open_spans[i] = mx->open_spans[--mx->nr_open];
			} else {
				i++;
			}
		}
		return;
	}
	idx = pd_reader_attr_by_id(s->r, body.id);
	a = idx >= 0 ? pd_reader_attr(s->r, (u32)idx) : NULL;
	if (a && a->inherit && !pd_reader_parse_sample(s->r, h, &smp, NULL) &&
	    (smp.sample_type & PERF_SAMPLE_TID))
		tid = (int)smp.tid;
	sp = span_of(mx, body.id, tid, true);
	if (sp->open)
		return;
	sp->open = true;
	if (mx->nr_open == mx->cap_open) {
		mx->cap_open = mx->cap_open ? 2 * mx->cap_open : 8;
		mx->open_spans = xrealloc(mx->open_spans, mx->cap_open * sizeof(*mx->open_spans));
	}
	mx->open_spans[mx->nr_open++] = (u32)(sp - mx->spans);
}

/* Add v to the sum at *sum; a sum that would wrap stays at the largest value, and is said. */
static void add_sat(struct group *g, u64 *sum, u64 v)
{
	if (*sum > UINT64_MAX - v) {
		*sum = UINT64_MAX;
		g->saturated = true;
	} else {
		*sum += v;
	}
}

static void on_sample(struct session *s, struct thread *t, const struct psample *smp, void *arg)
{
	struct metrics *mx = arg;
	const struct report_opts *o = mx->o;
	const struct psample_read *rd = session_sample_read(s, smp);
	u64 values[MAX_MEMBERS], deltas[MAX_MEMBERS];
	struct key_state *ks;
	struct group *g;
	struct func *f;
	bool same = false;
	u32 fi, bin;

	mx->seq++;
	g = group_of(mx, smp, rd);
	if (!g)
		return;
	if ((u32)smp->attr != g->leader) {
		/* a member that samples too: the leader's samples make the windows */
		g->member_samples++;
		return;
	}
	if (rd->nr != g->nr) {
		g->mismatched++;
		return;
	}
	if (g->inherit && thread_filtered(o, t))
		return;
	ks = key_of(mx, g, rd->id, smp->tid);
	if (filter_sample_skip(o, s, t, smp, NULL) & (FILTER_SKIP_OUTSIDE | FILTER_SKIP_THREAD)) {
		/* outside what the user asked for: a window may not reach across it */
		ks->k.valid = false;
		return;
	}
	g->samples++;
	for (u32 i = 0; i < g->nr; i++)
		values[i] = rd->values[i].value;
	fi = func_of(g, session_frame(s, session_resolve(s, t, smp->cpumode, smp->ip)));
	switch (metrics_step(&ks->k, values, g->nr, fi, key_throttled(mx, ks), deltas, &same)) {
	case METRICS_START:
		break;
	case METRICS_THROTTLED:
		g->throttled++;
		break;
	case METRICS_WINDOW:
		/* another thread ran on the counter since the previous sample: its counts are in */
		if (ks->last_tid != smp->tid)
			same = false;
		f = &g->funcs[fi];
		bin = metrics_is_short(g->period, deltas[0]) ? BIN_SHORT : BIN_LONG;
		g->nr_windows[bin]++;
		if (!same && mx->mode == MODE_DISCARD) {
			f->discarded[bin]++;
			break;
		}
		f->windows[bin]++;
		for (u32 i = 0; i < g->nr; i++)
			add_sat(g, &f->counts[bin * g->nr + i], deltas[i]);
		break;
	}
	ks->seq = mx->seq;
	ks->last_tid = smp->tid;
}

/* ---------------------------------------------------------------------------------------- */
/* The results */

static const char *func_symbol(const struct func *f)
{
	return f->sym ? sym_name(f->sym) : "[unknown]";
}

static const char *func_dso(const struct func *f)
{
	return f->dso ? f->dso->name : "[unknown]";
}

static const char *func_dso_short(const struct func *f)
{
	return f->dso ? f->dso->short_name : "[unknown]";
}

static const struct group *sort_group;

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = *(const struct group *const *)pa;
	const struct group *b = *(const struct group *const *)pb;

	return a->leader < b->leader ? -1 : a->leader > b->leader;
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct func *a = &sort_group->funcs[*(const u32 *)pa];
	const struct func *b = &sort_group->funcs[*(const u32 *)pb];
	u64 la = a->counts[0], lb = b->counts[0];
	int c;

	if (la != lb)
		return la > lb ? -1 : 1;
	c = strcmp(func_symbol(a), func_symbol(b));
	return c ? c : strcmp(func_dso(a), func_dso(b));
}

/* Settle the windows once the file is read: alternating or not, totals, the order of rows. */
static void group_finish(struct group *g)
{
	u64 short_w = g->nr_windows[BIN_SHORT];
	u64 all_w = short_w + g->nr_windows[BIN_LONG];

	g->alternating = metrics_alternates(g->period, all_w, short_w);
	g->totals = xcalloc(g->nr, sizeof(*g->totals));
	for (u32 i = 0; i < g->nr_funcs; i++) {
		struct func *f = &g->funcs[i];

		if (g->alternating) {
			/* the long windows only mark where the short ones start */
			g->long_windows += f->windows[BIN_LONG] + f->discarded[BIN_LONG];
			f->windows[BIN_LONG] = f->discarded[BIN_LONG] = 0;
		} else {
			f->windows[BIN_SHORT] += f->windows[BIN_LONG];
			f->discarded[BIN_SHORT] += f->discarded[BIN_LONG];
			for (u32 j = 0; j < g->nr; j++)
				add_sat(g, &f->counts[j], f->counts[g->nr + j]);
		}
		g->attributed += f->windows[BIN_SHORT];
		g->discarded += f->discarded[BIN_SHORT];
		for (u32 j = 0; j < g->nr; j++)
			add_sat(g, &g->totals[j], f->counts[j]);
	}
	g->order = xcalloc(g->nr_funcs ? g->nr_funcs : 1, sizeof(*g->order));
	for (u32 i = 0; i < g->nr_funcs; i++)
		g->order[i] = i;
	sort_group = g;
	qsort(g->order, g->nr_funcs, sizeof(*g->order), func_cmp);
}

/* A row is shown when a window ended in it, and --dsos, --symbols, -U let it through. */
static bool row_shown(const struct metrics *mx, const struct func *f)
{
	struct frame fr = {.dso = f->dso, .sym = f->sym, .level = f->level};

	if (!f->windows[BIN_SHORT] && !f->discarded[BIN_SHORT])
		return false;
	if (mx->o->filter.hide_unresolved && !f->sym)
		return false;
	return !filter_frame_skip(&mx->o->filter, 0, &fr);
}

/* A metric of counts c: false when its denominator is zero. */
static bool metric_value(const struct metric *m, const u64 *c, double *v)
{
	if (!c[m->den])
		return false;
	*v = (double)c[m->num] * m->scale / (double)c[m->den];
	return true;
}

static double pct(u64 part, u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_counts_json(const struct group *g, const u64 *c)
{
	putchar('{');
	for (u32 j = 0; j < g->nr; j++) {
		if (j)
			printf(", ");
		json_str(stdout, g->names[j]);
		printf(": %" PRIu64, c[j]);
	}
	putchar('}');
}

static void print_group_json(const struct metrics *mx, const struct group *g)
{
	bool first = true;

	printf("\"functions\": [");
	for (u32 i = 0; i < g->nr_funcs; i++) {
		const struct func *f = &g->funcs[g->order[i]];
		double v;

		if (!row_shown(mx, f))
			continue;
		printf("%s\n  {\"symbol\": ", first ? "" : ",");
		first = false;
		json_str(stdout, func_symbol(f));
		printf(", \"dso\": ");
		json_str(stdout, func_dso(f));
		printf(", \"samples\": %" PRIu64 ", \"discarded\": %" PRIu64, f->windows[BIN_SHORT],
		       f->discarded[BIN_SHORT]);
		if (f->windows[BIN_SHORT] + f->discarded[BIN_SHORT])
			printf(", \"discard_ratio\": %.10g",
			       (double)f->discarded[BIN_SHORT] /
				   (double)(f->windows[BIN_SHORT] + f->discarded[BIN_SHORT]));
		else
			printf(", \"discard_ratio\": null");
		printf(", \"counts\": ");
		print_counts_json(g, f->counts);
		printf(", \"metrics\": {");
		for (u32 m = 0; m < g->nr_metrics; m++) {
			printf("%s", m ? ", " : "");
			json_str(stdout, g->metrics[m].key);
			if (metric_value(&g->metrics[m], f->counts, &v))
				printf(": %.10g", v);
			else
				printf(": null");
		}
		printf("}}");
	}
	printf("],\n \"totals\": ");
	print_counts_json(g, g->totals);
	printf(",\n \"leader\": ");
	json_str(stdout, g->names[0]);
	printf(", \"members\": [");
	for (u32 j = 0; j < g->nr; j++) {
		printf("%s", j ? ", " : "");
		json_str(stdout, g->names[j]);
	}
	printf("],\n \"mode\": \"%s\", \"alternating\": %s,\n",
	       mx->mode == MODE_ALL ? "all" : "discard", g->alternating ? "true" : "false");
	printf(" \"windows\": {\"attributed\": %" PRIu64 ", \"discarded\": %" PRIu64
	       ", \"long\": %" PRIu64 ", \"throttled\": %" PRIu64 "}",
	       g->attributed, g->discarded, g->long_windows, g->throttled);
}

static void print_json(const struct metrics *mx)
{
	putchar('{');
	print_group_json(mx, mx->groups[0]);
	if (mx->nr_groups > 1) {
		printf(",\n \"groups\": [");
		for (u32 i = 0; i < mx->nr_groups; i++) {
			printf("%s\n {", i ? "," : "");
			print_group_json(mx, mx->groups[i]);
			putchar('}');
		}
		putchar(']');
	}
	printf("}\n");
}

static void group_title(const struct group *g, char *buf, size_t len)
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, len - n, "{");
	for (u32 j = 0; j < g->nr && n < len; j++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", j ? "," : "", g->names[j]);
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

static void print_table(const struct metrics *mx, const struct group *g)
{
	char title[1024], num[32];
	int cw[MAX_MEMBERS], mw[NR_DERIVED + MAX_MEMBERS], dw = 13;
	double v;

	group_title(g, title, sizeof(title));
	printf("# Group %s: %" PRIu64 " samples of %s\n", title, g->samples, g->names[0]);
	printf("# Windows: %" PRIu64 " attributed, %" PRIu64 " discarded (%.2f%%)", g->attributed,
	       g->discarded, pct(g->discarded, g->attributed + g->discarded));
	if (g->long_windows)
		printf(", %" PRIu64 " long (skipped)", g->long_windows);
	if (g->throttled)
		printf(", %" PRIu64 " throttled", g->throttled);
	printf("\n");
	if (g->alternating)
		printf("# The leader alternates its period (%" PRIu64
		       " and short): the long windows "
		       "only mark where a short one starts\n",
		       g->period);
	if (g->hf_period)
		printf("# prec recorded it with hf-period=%" PRIu64 "\n", g->hf_period);
	if (mx->mode == MODE_ALL)
		printf(
		    "# --metrics=all: every window counts for the function of its last sample\n");
	else
		printf("# A window is discarded when the counter's previous sample was in another "
		       "function or thread: its counts cannot be given to one function\n");
	if (g->member_samples)
		printf("# %" PRIu64 " samples of members that sample too were left out: the "
		       "leader's samples make the windows\n",
		       g->member_samples);
	printf("#\n#   Samples  Discarded    Disc%%");
	for (u32 j = 0; j < g->nr; j++) {
		cw[j] = (int)strlen(g->names[j]);
		if (cw[j] < 12)
			cw[j] = 12;
		printf("  %*s   Share", cw[j], g->names[j]);
	}
	for (u32 m = 0; m < g->nr_metrics; m++) {
		mw[m] = (int)strlen(g->metrics[m].key);
		if (mw[m] < 9)
			mw[m] = 9;
		printf("  %*s", mw[m], g->metrics[m].key);
	}
	for (u32 i = 0; i < g->nr_funcs; i++) {
		const struct func *f = &g->funcs[i];

		if (row_shown(mx, f) && (int)strlen(func_dso_short(f)) > dw)
			dw = (int)strlen(func_dso_short(f));
	}
	printf("  %-*s  Symbol\n#\n", dw, "Shared Object");
	for (u32 i = 0; i < g->nr_funcs; i++) {
		const struct func *f = &g->funcs[g->order[i]];

		if (!row_shown(mx, f))
			continue;
		printf(
		    "  %9" PRIu64 "  %9" PRIu64 "  %6.2f%%", f->windows[BIN_SHORT],
		    f->discarded[BIN_SHORT],
		    pct(f->discarded[BIN_SHORT], f->windows[BIN_SHORT] + f->discarded[BIN_SHORT]));
		for (u32 j = 0; j < g->nr; j++) {
			if (g->totals[j])
				snprintf(num, sizeof(num), "%.2f%%",
					 pct(f->counts[j], g->totals[j]));
			else
				snprintf(num, sizeof(num), "-");
			printf("  %*" PRIu64 " %7s", cw[j], f->counts[j], num);
		}
		for (u32 m = 0; m < g->nr_metrics; m++) {
			if (metric_value(&g->metrics[m], f->counts, &v))
				snprintf(num, sizeof(num), "%.4f", v);
			else
				snprintf(num, sizeof(num), "-");
			printf("  %*s", mw[m], num);
		}
		printf("  %-*s  [%c] %s\n", dw, func_dso_short(f), f->level ? f->level : '.',
		       func_symbol(f));
	}
}

static void metrics_free(struct metrics *mx)
{
	for (u32 i = 0; i < mx->nr_groups; i++) {
		struct group *g = mx->groups[i];

		for (u32 j = 0; j < g->nr_funcs; j++)
			free(g->funcs[j].counts);
		for (u32 j = 0; j < g->nr; j++)
			free(g->names[j]);
		free(g->names);
		free(g->funcs);
		free(g->table);
		free(g->totals);
		free(g->order);
		free(g);
	}
	for (u32 i = 0; i < mx->nr_keys; i++)
		free(mx->keys[i].k.values);
	free(mx->keys);
	hash_index_free(&mx->key_index);
	free(mx->groups);
	free(mx->by_attr);
	free(mx->spans);
	hash_index_free(&mx->span_index);
	free(mx->open_spans);
	session_exit(&mx->s);
}

int report_metrics(struct report *rep, const struct report_opts *o)
{
	struct metrics mx;
	int ret;

	memset(&mx, 0, sizeof(mx));
	mx.o = o;
	mx.mode = o->metrics_all ? MODE_ALL : MODE_DISCARD;
	session_init(&mx.s, rep, on_sample, &mx);
	mx.s.want_read = true;
	mx.s.throttle_fn = on_throttle;
	ret = session_process(&mx.s);
	if (!ret && !mx.nr_groups)
		ret = error("%s: no samples that read a group: record with -e '{EVENT,EVENT...}:S'",
			    rep->path);
	if (!ret) {
		qsort(mx.groups, mx.nr_groups, sizeof(*mx.groups), group_cmp);
		for (u32 i = 0; i < mx.nr_groups; i++)
			group_finish(mx.groups[i]);
		if (o->json) {
			print_json(&mx);
		} else {
			for (u32 i = 0; i < mx.nr_groups; i++) {
				if (i)
					printf("\n");
				print_table(&mx, mx.groups[i]);
			}
		}
		for (u32 i = 0; i < mx.nr_groups; i++)
			if (mx.groups[i]->saturated)
				warning("%s: sums of %s's group reached the largest count and were "
					"held there: the file's values are damaged",
					rep->path, mx.groups[i]->names[0]);
		for (u32 i = 0; i < mx.nr_groups; i++)
			if (mx.groups[i]->mismatched)
				warning("%s: %" PRIu64 " samples of %s were left out: they read "
					"another number of values than its first sample",
					rep->path, mx.groups[i]->mismatched,
					mx.groups[i]->names[0]);
	}
	if (mx.too_large)
		warning("%s: %" PRIu64 " samples that read groups of more than %d members were "
			"left out",
			rep->path, mx.too_large, MAX_MEMBERS);
	metrics_free(&mx);
	return ret ? 1 : 0;
}
