// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics view of prec report (--metrics): per function, the counter deltas of the windows
 * between a group leader's samples (`-e '{a,b,c}:S'`), and the metrics derived from them.
 *
 * A window's deltas can only be given to one function when the thread stayed in it: a window
 * whose thread's previous sample was in another function is discarded (unless --metrics=all).
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
#include "util/json.h"
#include "util/log.h"
#include "util/xalloc.h"

enum metrics_mode_value { MODE_DISCARD, MODE_ALL };

/* The derived metrics, in the order the table and the JSON show them. */
enum op { OP_CYCLES, OP_INSNS, OP_BRANCH_MISSES, OP_CACHE_REFS, OP_CACHE_MISSES, OP_NR };

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
	u64 period;    /* the leader's fixed period; 0 at a frequency */
	int op[OP_NR]; /* the member of each operand; -1 if absent */
	struct metric metrics[NR_DERIVED + 64];
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

/* A throttled span, of an id, and of a thread or (tid -1) every thread of it. */
struct span {
	u64 id;
	int tid;
	bool open;
	u64 end_seq; /* the UNTHROTTLE's place in the order of records */
};

struct key_state {
	u64 id;
	u64 seq; /* the place of its previous sample */
	struct group *g;
	struct metrics_key k;
};

struct thread_keys {
	struct key_state *v;
	u32 nr, cap;
};

struct metrics {
	struct session s;
	const struct report_opts *o;
	enum metrics_mode_value mode;
	struct group **by_attr; /* the group a leader's attr leads; NULL before its first sample */
	u32 nr_attrs;
	struct group **groups; /* sorted by their leaders' attrs once the file is read */
	u32 nr_groups;
	struct span *spans;
	u32 nr_spans, cap_spans;
	u64 seq;
	u64 *deltas; /* scratch */
	u32 deltas_cap;
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

/* Which operand of the derived metrics an event is, by its attr or, for a PMU's, its name. */
static int event_op(const struct perf_event_attr *a, const char *name)
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
	/* "cpu/cycles/u", "cpu-cycles:u", "instructions" */
	p = strchr(name, '/');
	p = p ? p + 1 : name;
	n = strcspn(p, "/:");
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
	bool operand[64] = {false};
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
	for (u32 i = 1; i < g->nr && i < 64; i++) {
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

/* The group a sample reads, made at the first sample of its leader; NULL if it reads none. */
static struct group *group_of(struct metrics *mx, const struct psample *smp)
{
	struct pd_reader *r = mx->s.r;
	const struct perf_event_attr *a = pd_reader_attr(r, (u32)smp->attr);
	struct group *g;
	char buf[256];
	int leader;

	if (!a || !(a->sample_type & PERF_SAMPLE_READ) || !(a->read_format & PERF_FORMAT_GROUP) ||
	    !smp->nr_read)
		return NULL;
	leader = smp->attr;
	if (a->read_format & PERF_FORMAT_ID) {
		leader = pd_reader_attr_by_id(r, smp->read[0].id);
		if (leader < 0)
			return NULL;
	}
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
	g = xcalloc(1, sizeof(*g));
	g->leader = (u32)leader;
	g->nr = (u32)smp->nr_read;
	g->names = xcalloc(g->nr, sizeof(*g->names));
	for (int i = 0; i < OP_NR; i++)
		g->op[i] = -1;
	for (u32 i = 0; i < g->nr; i++) {
		const struct perf_event_attr *ma;
		int idx = (int)(g->leader + i);
		int op;

		if (a->read_format & PERF_FORMAT_ID)
			idx = pd_reader_attr_by_id(r, smp->read[i].id);
		ma = idx >= 0 ? pd_reader_attr(r, (u32)idx) : NULL;
		if (ma) {
			g->names[i] = xstrdup(report_event_name(r, (u32)idx, buf, sizeof(buf)));
			op = event_op(ma, g->names[i]);
			if (op >= 0 && g->op[op] < 0)
				g->op[op] = (int)i;
		} else {
			snprintf(buf, sizeof(buf), "member %u", i);
			g->names[i] = xstrdup(buf);
		}
	}
	a = pd_reader_attr(r, g->leader);
	g->period = a && !a->freq ? a->sample_period : 0;
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

static void thread_keys_free(void *p)
{
	struct thread_keys *tk = p;

	for (u32 i = 0; i < tk->nr; i++)
		free(tk->v[i].k.values);
	free(tk->v);
	free(tk);
}

static struct key_state *key_of(struct thread *t, struct group *g, u64 id)
{
	struct thread_keys *tk = t->memo;
	struct key_state *ks;

	if (!tk) {
		tk = xcalloc(1, sizeof(*tk));
		t->memo = tk;
		t->memo_free = thread_keys_free;
	}
	for (u32 i = 0; i < tk->nr; i++)
		if (tk->v[i].id == id && tk->v[i].g == g)
			return &tk->v[i];
	if (tk->nr == tk->cap) {
		tk->cap = tk->cap ? 2 * tk->cap : 2;
		tk->v = xrealloc(tk->v, tk->cap * sizeof(*tk->v));
	}
	ks = &tk->v[tk->nr++];
	memset(ks, 0, sizeof(*ks));
	ks->id = id;
	ks->g = g;
	ks->k.values = xcalloc(g->nr, sizeof(*ks->k.values));
	return ks;
}

/* Is a sample of key ks throttled: inside a span of its id and thread, or the first after one? */
static bool key_throttled(const struct metrics *mx, const struct key_state *ks, int tid)
{
	for (u32 i = 0; i < mx->nr_spans; i++) {
		const struct span *sp = &mx->spans[i];

		if (sp->id != ks->id || (sp->tid != -1 && sp->tid != tid))
			continue;
		if (sp->open || (ks->k.valid && ks->seq < sp->end_seq))
			return true;
	}
	return false;
}

static void on_throttle(struct session *s, const struct pd_record_header *h, void *arg)
{
	struct metrics *mx = arg;
	struct pd_throttle_body body;
	struct pd_sample smp;
	struct span *sp = NULL;
	int tid = -1;

	mx->seq++;
	if (h->size < sizeof(*h) + sizeof(body))
		return;
	memcpy(&body, h + 1, sizeof(body));
	if (!pd_reader_parse_sample(s->r, h, &smp, NULL) && (smp.sample_type & PERF_SAMPLE_TID))
		tid = (int)smp.tid;
	for (u32 i = 0; i < mx->nr_spans && !sp; i++)
		if (mx->spans[i].id == body.id && mx->spans[i].tid == tid)
			sp = &mx->spans[i];
	if (!sp) {
		if (mx->nr_spans == mx->cap_spans) {
			mx->cap_spans = mx->cap_spans ? 2 * mx->cap_spans : 8;
			mx->spans = xrealloc(mx->spans, mx->cap_spans * sizeof(*mx->spans));
		}
		sp = &mx->spans[mx->nr_spans++];
		memset(sp, 0, sizeof(*sp));
		sp->id = body.id;
		sp->tid = tid;
	}
	sp->open = h->type == PERF_RECORD_THROTTLE;
	if (!sp->open)
		sp->end_seq = mx->seq;
}

static bool cpu_skip(const struct report_opts *o, const struct psample *smp)
{
	return o->cpu_filter && (smp->cpu < 0 || !cpu_map_has(&o->cpus, smp->cpu));
}

static void on_sample(struct session *s, struct thread *t, const struct psample *smp, void *arg)
{
	struct metrics *mx = arg;
	const struct report_opts *o = mx->o;
	u64 values[64];
	struct key_state *ks;
	struct group *g;
	struct func *f;
	bool same = false;
	u32 fi, bin;

	mx->seq++;
	g = group_of(mx, smp);
	if (!g)
		return;
	if ((u32)smp->attr != g->leader) {
		/* a member that samples too: the leader's samples make the windows */
		g->member_samples++;
		return;
	}
	if (smp->nr_read != g->nr || g->nr > 64) {
		g->mismatched++;
		return;
	}
	if (thread_filtered(o, t))
		return;
	ks = key_of(t, g, smp->id);
	if (cpu_skip(o, smp) || filter_time_skip(&o->filter, smp->time)) {
		/* outside what the user asked for: a window may not reach across it */
		ks->k.valid = false;
		return;
	}
	g->samples++;
	for (u32 i = 0; i < g->nr; i++)
		values[i] = smp->read[i].value;
	if (mx->deltas_cap < g->nr) {
		mx->deltas_cap = 64;
		mx->deltas = xrealloc(mx->deltas, mx->deltas_cap * sizeof(*mx->deltas));
	}
	fi = func_of(g, session_frame(s, session_resolve(s, t, smp->cpumode, smp->ip)));
	switch (metrics_step(&ks->k, values, g->nr, fi, key_throttled(mx, ks, smp->tid), mx->deltas,
			     &same)) {
	case METRICS_START:
		break;
	case METRICS_THROTTLED:
		g->throttled++;
		break;
	case METRICS_WINDOW:
		f = &g->funcs[fi];
		bin = metrics_is_short(g->period, mx->deltas[0]) ? BIN_SHORT : BIN_LONG;
		g->nr_windows[bin]++;
		if (!same && mx->mode == MODE_DISCARD) {
			f->discarded[bin]++;
			break;
		}
		f->windows[bin]++;
		for (u32 i = 0; i < g->nr; i++)
			f->counts[bin * g->nr + i] += mx->deltas[i];
		break;
	}
	ks->seq = mx->seq;
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
				f->counts[j] += f->counts[g->nr + j];
		}
		g->attributed += f->windows[BIN_SHORT];
		g->discarded += f->discarded[BIN_SHORT];
		for (u32 j = 0; j < g->nr; j++)
			g->totals[j] += f->counts[j];
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
		printf(", \"samples\": %" PRIu64 ", \"discarded\": %" PRIu64 ", \"counts\": ",
		       f->windows[BIN_SHORT], f->discarded[BIN_SHORT]);
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
	int cw[64], mw[NR_DERIVED + 64], dw = 13;
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
		printf("# A window is discarded when the thread's previous sample was in another "
		       "function: its counts cannot be given to one function\n");
	if (g->member_samples)
		printf("# %" PRIu64 " samples of members that sample too were left out: the "
		       "leader's samples make the windows\n",
		       g->member_samples);
	printf("#\n#   Samples  Discarded");
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
		printf("  %9" PRIu64 "  %9" PRIu64, f->windows[BIN_SHORT], f->discarded[BIN_SHORT]);
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
	free(mx->groups);
	free(mx->by_attr);
	free(mx->spans);
	free(mx->deltas);
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
			if (mx.groups[i]->mismatched)
				warning("%s: %" PRIu64 " samples of %s read another number of "
					"values than the group has: left out",
					rep->path, mx.groups[i]->mismatched,
					mx.groups[i]->names[0]);
	}
	metrics_free(&mx);
	return ret ? 1 : 0;
}
