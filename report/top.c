// SPDX-License-Identifier: GPL-2.0
/*
 * The table of prec report, as `perf report --stdio --no-children` prints it (perf 6.1,
 * ui/stdio/hist.c and util/sort.c): per event a header ("# Samples: 2K of event 'cpu-clock'",
 * the event count), the column titles padded to the widest value, one row per entry sorted by
 * period (ties by the sort keys), and under each row its call graph when the file has call
 * chains; and the same table as JSON.
 *
 * Column widths follow perf: at least the title; comm the longest command (of each row's first
 * thread, by its last name, as thread__comm_len() caches it), pid that plus 8, dso the longest
 * short name (16 at least when a row is unresolved), sym the longest name plus 4 ("[.] "), or 22
 * for an unresolved address. Columns pad themselves except the symbol, which pads only when it is
 * not the last. A --comm filter with one name hides the command column and says so in the
 * header, as perf's sort__setup_elide() does.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/filter.h"
#include "report/hist.h"
#include "report/top.h"
#include "util/json.h"
#include "util/log.h"
#include "util/xalloc.h"

#define MAX_PATH_DEPTH 256

/* A column of the table: a sort key (enum sort_key) or a value (enum field), and its width. */
struct column {
	int id;
	u32 width;
	bool elide;
};

#define COLUMNS_MAX (FIELD_MAX + SORT_MAX + 8)

/* The columns in order, and what orders the rows (the most significant first). */
struct columns {
	struct column v[COLUMNS_MAX];
	u32 nr;
	int sorts[COLUMNS_MAX];
	u32 nr_sorts;
};

static const char *const key_titles[] = {
    [SORT_COMM] = "Command",	  [SORT_PID] = "    Pid:Command", [SORT_TID] = "    Tid",
    [SORT_DSO] = "Shared Object", [SORT_SYM] = "Symbol",	  [SORT_CPU] = "CPU",
    [SORT_SRCLINE] = "Source:Line", [SORT_PARENT] = "Parent symbol",
};

static const char *const key_names[] = {
    [SORT_COMM] = "comm", [SORT_PID] = "pid", [SORT_TID] = "tid",
    [SORT_DSO] = "dso",	  [SORT_SYM] = "sym", [SORT_CPU] = "cpu",
    [SORT_SRCLINE] = "srcline", [SORT_PARENT] = "parent",
};

/* The value columns, by enum field less FIELD_OVERHEAD: titles and widths as perf's. */
static const struct {
	const char *title;
	u32 width;
} value_fmts[] = {
    {"Overhead", 8},  {"sys", 8},	 {"usr", 8},	 {"guest sys", 9},
    {"guest usr", 9}, {"Children", 8}, {"Samples", 12}, {"Period", 12},
};

static inline bool is_value(int id)
{
	return id >= FIELD_OVERHEAD;
}

static void id_add(int *v, u32 *nr, int id)
{
	for (u32 i = 0; i < *nr; i++)
		if (v[i] == id)
			return;
	if (*nr < COLUMNS_MAX)
		v[(*nr)++] = id;
}

static void col_add(struct columns *c, int id)
{
	for (u32 i = 0; i < c->nr; i++)
		if (c->v[i].id == id)
			return;
	if (c->nr < COLUMNS_MAX)
		c->v[c->nr++].id = id;
}

/*
 * The columns as perf lays them out (perf_hpp__init(), then -F's, then the sort keys not shown
 * yet) and the order of the rows: unless -F alone chose the columns, children and overhead
 * first; then the keys of --sort (or the default ones); then every other column
 * (perf_hpp__append_sort_keys()).
 */
static void columns_setup(const struct report_opts *o, struct columns *c)
{
	memset(c, 0, sizeof(*c));
	if (!o->fields_strict) {
		if (o->children) {
			col_add(c, FIELD_OVERHEAD_CHILDREN);
			id_add(c->sorts, &c->nr_sorts, FIELD_OVERHEAD_CHILDREN);
		}
		col_add(c, FIELD_OVERHEAD);
		id_add(c->sorts, &c->nr_sorts, FIELD_OVERHEAD);
		if (o->show_cpu_util) {
			col_add(c, FIELD_OVERHEAD_SYS);
			col_add(c, FIELD_OVERHEAD_US);
		}
		if (o->show_nr_samples)
			col_add(c, FIELD_SAMPLE);
		if (o->show_total_period)
			col_add(c, FIELD_PERIOD);
	}
	for (u32 i = 0; i < o->nr_fields; i++)
		col_add(c, o->fields[i]);
	for (u32 k = 0; k < o->nr_keys; k++)
		col_add(c, (int)o->keys[k]);
	for (u32 k = 0; k < o->nr_sort_keys; k++)
		id_add(c->sorts, &c->nr_sorts, (int)o->keys[k]);
	for (u32 i = 0; i < c->nr; i++)
		id_add(c->sorts, &c->nr_sorts, c->v[i].id);
}

/* What value column id counts of row e. */
static u64 entry_value(const struct hist_entry *e, int id)
{
	switch (id) {
	case FIELD_OVERHEAD:
	case FIELD_PERIOD:
		return e->period;
	case FIELD_OVERHEAD_SYS:
		return e->period_sys;
	case FIELD_OVERHEAD_US:
		return e->period_us;
	case FIELD_OVERHEAD_CHILDREN:
		return e->acc_period;
	case FIELD_SAMPLE:
		return e->samples;
	default:
		return 0; /* guest time: prec records no guest */
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Order */

static struct profile *sort_profile;
static const struct columns *sort_columns;

/* perf's cmp_null(): what has no value sorts after what has one. */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? -1 : b ? 1 : 0;
	return strcmp(a, b);
}

/* Rows a and b by sort key k, as perf shows them apart. */
static int key_cmp(const struct hist_entry *a, const struct hist_entry *b, enum sort_key k)
{
	int c;

	switch (k) {
	case SORT_COMM:
		return cmp_str(a->comm, b->comm);
	case SORT_PID:
	case SORT_TID:
		return a->tid < b->tid ? -1 : a->tid > b->tid;
	case SORT_DSO:
		return cmp_str(a->dso_name, b->dso_name);
	case SORT_SYM:
		c = cmp_str(a->resolved ? sym_name(session_frame(&sort_profile->s, a->frame)->sym)
					: NULL,
			    b->resolved ? sym_name(session_frame(&sort_profile->s, b->frame)->sym)
					: NULL);
		if (!c && !a->resolved && !b->resolved)
			c = a->rel < b->rel ? -1 : a->rel > b->rel;
		return c;
	case SORT_CPU:
		return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
	case SORT_SRCLINE:
		return cmp_str(a->srcline, b->srcline);
	case SORT_PARENT:
		return cmp_str(a->parent, b->parent);
	}
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct hist_entry *a = sort_profile->by_gid[*(const u32 *)pa];
	const struct hist_entry *b = sort_profile->by_gid[*(const u32 *)pb];
	int c;

	for (u32 i = 0; i < sort_columns->nr_sorts; i++) {
		int id = sort_columns->sorts[i];

		if (is_value(id)) {
			u64 va = entry_value(a, id), vb = entry_value(b, id);

			if (va != vb)
				return va > vb ? -1 : 1;
			continue;
		}
		c = key_cmp(a, b, (enum sort_key)id);
		if (c)
			return c;
	}
	return a->gid < b->gid ? -1 : a->gid > b->gid;
}

/* Sort the entries of every event (by gid, into hs->sorted). */
static void sort_entries(struct profile *p)
{
	struct columns c;

	columns_setup(p->o, &c);
	sort_profile = p;
	sort_columns = &c;
	for (u32 i = 0; i < p->nr_ev; i++) {
		struct hists *hs = &p->ev[i];

		free(hs->sorted);
		hs->sorted = xmalloc((hs->nr ? hs->nr : 1) * sizeof(u32));
		for (u32 j = 0; j < hs->nr; j++)
			hs->sorted[j] = hs->v[j].gid;
		qsort(hs->sorted, hs->nr, sizeof(u32), entry_cmp);
	}
	sort_columns = NULL;
}

static double pct(u64 v, u64 total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---------------------------------------------------------------------------------------- */
/* Cells */

static void sym_cell(struct profile *p, const struct hist_entry *e, char *buf, size_t len)
{
	const struct frame *fr = session_frame(&p->s, e->frame);

	if (fr->sym)
		snprintf(buf, len, "[%c] %s%s", fr->level, sym_name(fr->sym),
			 fr->sym->inlined ? " (inlined)" : "");
	else /* perf's "%-#.*llx" with 16 digits: no 0x for 0, as printf has it */
		snprintf(buf, len, "[%c] %#.16" PRIx64, e->level, e->rel);
}

static const char *dso_cell(struct profile *p, const struct hist_entry *e)
{
	const char *d = frame_dso_name(p, e->frame);

	return d ? d : "[unknown]";
}

/* As perf: when every sort key's column would be left out (one name each), none is. */
static void unelide(struct columns *c)
{
	u32 keys = 0, elided = 0;

	for (u32 k = 0; k < c->nr; k++) {
		keys += !is_value(c->v[k].id);
		elided += !is_value(c->v[k].id) && c->v[k].elide;
	}
	if (keys && elided == keys)
		for (u32 k = 0; k < c->nr; k++)
			c->v[k].elide = false;
}

/*
 * perf filters the rows by --dsos, --symbols and --symbol-filter. prec drops the samples whose
 * own frame fails them, which leaves the rows of the children view that only call chains made:
 * those are filtered here, as perf filters them.
 */
static bool row_filtered(const struct profile *p, const struct hist_entry *e)
{
	return p->o->children &&
	       filter_frame_skip(&p->o->filter, (u32)e->attr, session_frame(&p->s, e->frame));
}

/* The widths of the columns for the rows of hs: the widest value, at least the title. */
static void compute_widths(struct profile *p, const struct hists *hs, struct columns *c)
{
	const struct report_opts *o = p->o;
	u32 comm = 0, dso = 0, sym = 0, src = 0, parent = 0;
	bool unresolved = false;

	for (u32 i = 0; i < hs->nr; i++) {
		const struct hist_entry *e = &hs->v[i];
		const struct frame *fr = session_frame(&p->s, e->frame);
		u32 l;

		if ((o->exclude_other && !e->parent) || row_filtered(p, e))
			continue; /* -x: as wide as the rows shown, as perf's */
		l = (u32)strlen(e->thread->comm);

		if (l > comm)
			comm = l;
		if (fr->sym) {
			if (sym_namelen(fr->sym) + 4 > sym)
				sym = sym_namelen(fr->sym) + 4;
		} else {
			unresolved = true;
			if (22 > sym)
				sym = 22;
		}
		if (fr->dso && fr->dso->short_len > dso)
			dso = fr->dso->short_len;
		if (e->srcline && strlen(e->srcline) > src)
			src = (u32)strlen(e->srcline);
		if (e->parent && strlen(e->parent) > parent)
			parent = (u32)strlen(e->parent);
	}
	if (unresolved && dso < 16 && !o->field_sep) /* perf: not with -t */
		dso = 16;
	for (u32 k = 0; k < c->nr; k++) {
		struct column *col = &c->v[k];
		u32 w = 0;

		if (is_value(col->id)) {
			col->width = value_fmts[col->id - FIELD_OVERHEAD].width;
			continue;
		}
		switch ((enum sort_key)col->id) {
		case SORT_COMM:
			w = comm;
			col->elide = o->nr_comms == 1;
			break;
		case SORT_PID:
			w = comm + 8;
			break;
		case SORT_TID:
			w = 7;
			break;
		case SORT_DSO:
			w = dso;
			col->elide = o->filter.nr_dsos == 1;
			break;
		case SORT_SYM:
			w = sym;
			col->elide = o->filter.nr_syms == 1;
			break;
		case SORT_CPU:
			w = 3;
			break;
		case SORT_SRCLINE:
			w = src;
			break;
		case SORT_PARENT:
			w = parent;
			break;
		}
		if (w < strlen(key_titles[col->id]))
			w = (u32)strlen(key_titles[col->id]);
		col->width = w;
	}
	unelide(c);
}

/* The title of column col. */
static const char *column_title(const struct report_opts *o, const struct column *col)
{
	if (!is_value(col->id))
		return key_titles[col->id];
	/* perf calls its own column Self beside Children, unless -F named the columns */
	if (col->id == FIELD_OVERHEAD && o->children && !o->fields_strict)
		return "Self";
	return value_fmts[col->id - FIELD_OVERHEAD].title;
}

/* The text of value column col of row e: with -t, unpadded, as perf prints it then. */
static void value_cell(const struct report_opts *o, const struct hists *hs,
		       const struct hist_entry *e, const struct column *col, char *buf, size_t len)
{
	int w = o->field_sep ? 0 : (int)col->width - 1;

	switch (col->id) {
	case FIELD_OVERHEAD_CHILDREN:
		if (!o->children) { /* perf: not without call chains or with --no-children */
			snprintf(buf, len, "%*s", o->field_sep ? 0 : (int)col->width, "N/A");
			return;
		}
		break;
	case FIELD_SAMPLE:
	case FIELD_PERIOD:
		snprintf(buf, len, " %*" PRIu64, w, entry_value(e, col->id));
		return;
	}
	snprintf(buf, len, " %*.2f%%", w ? w - 1 : 0,
		 pct(entry_value(e, col->id), hists_pct_total(o, hs)));
}

/* The text of key column col of row e, padded to its width (sym: unless pad is false). */
static void key_cell(struct profile *p, const struct hist_entry *e, const struct column *col,
		     bool pad, char *cell, size_t len)
{
	char buf[4200];
	int w = (int)col->width;

	switch ((enum sort_key)col->id) {
	case SORT_COMM:
		snprintf(cell, len, "%-*.*s", w, w, e->comm);
		break;
	case SORT_PID:
		snprintf(cell, len, "%7d:%-*.*s", e->tid, w - 8, w - 8, e->thread->comm);
		break;
	case SORT_TID:
		snprintf(cell, len, "%*d", w, e->tid);
		break;
	case SORT_DSO:
		snprintf(cell, len, "%-*.*s", w, w, dso_cell(p, e));
		break;
	case SORT_SYM:
		sym_cell(p, e, buf, sizeof(buf));
		snprintf(cell, len, "%-*s", pad ? w : 0, buf);
		break;
	case SORT_CPU:
		snprintf(cell, len, "%*.*d", w, w, e->cpu);
		break;
	case SORT_SRCLINE:
		snprintf(cell, len, "%-*.*s", pad ? w : 0, w, e->srcline ? e->srcline : "");
		break;
	case SORT_PARENT:
		snprintf(cell, len, "%-*.*s", w, w, e->parent ? e->parent : "[other]");
		break;
	}
}

/* The title line of the table, and without -t the dotted line under it. */
static void print_titles(const struct report_opts *o, const struct columns *c, FILE *out)
{
	const char *sep = o->field_sep ? o->field_sep : "  ";
	bool first = true;

	fputs("# ", out);
	for (u32 i = 0; i < c->nr; i++) {
		const struct column *col = &c->v[i];

		if (col->elide)
			continue;
		fprintf(out, is_value(col->id) ? "%s%*s" : "%s%-*s", first ? "" : sep,
			(int)col->width, column_title(o, col));
		first = false;
	}
	fputc('\n', out);
	if (o->field_sep)
		return;
	fputs("# ", out);
	first = true;
	for (u32 i = 0; i < c->nr; i++) {
		if (c->v[i].elide)
			continue;
		fputs(first ? "" : "  ", out);
		for (u32 j = 0; j < c->v[i].width; j++)
			fputc('.', out);
		first = false;
	}
	fputs("\n#\n", out);
}

/*
 * With -t, perf turns the separator's first character into '.' inside the key columns. Written
 * a span at a time: a locked fputc() per character was a tenth of a big report's time.
 */
static void put_key(const struct report_opts *o, const char *s, FILE *out)
{
	const char *q;

	if (o->field_sep && *o->field_sep)
		for (; (q = strchr(s, *o->field_sep)); s = q + 1) {
			fwrite(s, 1, (size_t)(q - s), out);
			fputc('.', out);
		}
	fputs(s, out);
}

/* One row, as hist_entry__snprintf() lays it out. */
static void print_row(struct profile *p, const struct hists *hs, const struct hist_entry *e,
		      const struct columns *c, FILE *out)
{
	const struct report_opts *o = p->o;
	const char *sep = o->field_sep ? o->field_sep : "  ";
	char buf[4200], cell[4300];
	bool first = true;
	int last = -1;

	for (u32 k = 0; k < c->nr; k++)
		if (!c->v[k].elide)
			last = (int)k;
	for (u32 i = 0; i < c->nr; i++) {
		const struct column *col = &c->v[i];

		if (col->elide)
			continue;
		/* without -t every column starts with two blanks; with it, all but the first */
		fputs(o->field_sep && first ? "" : sep, out);
		first = false;
		if (is_value(col->id)) {
			value_cell(o, hs, e, col, buf, sizeof(buf));
			/* perf pads every column but the last to its width */
			fprintf(out, "%-*s", o->field_sep && (int)i != last ? (int)col->width : 0,
				buf);
			continue;
		}
		key_cell(p, e, col, (int)i != last, cell, sizeof(cell));
		put_key(o, cell, out);
	}
	fputc('\n', out);
}

/* ---------------------------------------------------------------------------------------- */
/* Call graphs (ui/stdio/hist.c: callchain__fprintf_graph()) */

struct graph {
	struct profile *p;
	FILE *out;
	u64 total; /* the event's total period */
	u64 min_hit;
	bool printed;
	char name[CHAIN_NAME_MAX]; /* a chain entry's text, while it is printed */
};

/* A compressed node starts at trie node x and runs while nodes have no hit and one child. */
static u32 run_end(const struct profile *p, u32 x)
{
	for (;;) {
		const struct cnode *n = &p->nodes[x];

		if (n->hit || !n->first_child || p->nodes[n->first_child].next_sibling)
			return x;
		x = n->first_child;
	}
}

static struct profile *child_sort_profile;

static int child_cmp(const void *pa, const void *pb)
{
	const struct cnode *a = &child_sort_profile->nodes[*(const u32 *)pa];
	const struct cnode *b = &child_sort_profile->nodes[*(const u32 *)pb];
	static char ba[CHAIN_NAME_MAX], bb[CHAIN_NAME_MAX];

	if (a->cumul != b->cumul)
		return a->cumul > b->cumul ? -1 : 1;
	return strcmp(frame_chain_name(child_sort_profile, a->key, ba, sizeof(ba)),
		      frame_chain_name(child_sort_profile, b->key, bb, sizeof(bb)));
}

/*
 * The least period a child shows with under a parent whose children add up to below: in fractal
 * mode a share of that, else the row's threshold (perf's callchain min_percent).
 */
static u64 child_min_hit(const struct graph *g, u64 below)
{
	const struct report_opts *o = g->p->o;

	if (o->chain_mode == CHAIN_FRACTAL)
		return (u64)ceil((double)below * o->chain_min / 100.0);
	return g->min_hit;
}

/* The children of trie node y that are shown, sorted; the caller frees the array. */
static u32 *children(struct graph *g, u32 y, u64 min_hit, u32 *nr)
{
	struct profile *p = g->p;
	u32 n = 0, cap = 8, *v = xmalloc(cap * sizeof(u32));

	for (u32 c = p->nodes[y].first_child; c; c = p->nodes[c].next_sibling) {
		if (p->nodes[c].cumul < min_hit)
			continue;
		if (n == cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof(u32));
		}
		v[n++] = c;
	}
	child_sort_profile = p;
	qsort(v, n, sizeof(u32), child_cmp);
	*nr = n;
	return v;
}

static void margin(FILE *out, int left)
{
	fprintf(out, "            %*s", left, "");
}

static void value(struct graph *g, u64 hits, u64 total)
{
	fprintf(g->out, "%.2f%%", total ? 100.0 * (double)hits / (double)total : 0.0);
}

static void graph_level(struct graph *g, u32 parent_end, u64 total, int depth, int depth_mask,
			int left)
{
	struct profile *p = g->p;
	const struct report_opts *o = p->o;
	u32 nr, *v;
	int new_mask = depth_mask;
	u64 remaining = total,
	    parent_children = p->nodes[parent_end].cumul - p->nodes[parent_end].hit;
	u64 min_hit = child_min_hit(g, parent_children);
	v = children(g, parent_end, min_hit, &nr);
	for (u32 i = 0; i < nr; i++) {
		u32 x = v[i], end = run_end(p, x), k = 0;
		u64 new_total;

		remaining -= p->nodes[x].cumul;
		if (i + 1 == nr && (o->chain_mode != CHAIN_FRACTAL || !remaining))
			new_mask &= ~(1 << (depth - 1));
		/* the separator line keeps the old mask */
		margin(g->out, left);
		for (int d = 0; d < depth; d++)
			fputs(depth_mask & (1 << d) ? "|          " : "           ", g->out);
		fputc('\n', g->out);
		for (u32 n = x;; n = p->nodes[n].first_child, k++) {
			margin(g->out, left);
			for (int d = 0; d < depth; d++) {
				fputc(new_mask & (1 << d) ? '|' : ' ', g->out);
				if (!k && d == depth - 1) {
					fputs("--", g->out);
					value(g, p->nodes[x].cumul, total);
					fputs("--", g->out);
				} else {
					fputs("          ", g->out);
				}
			}
			fprintf(g->out, "%s\n",
				frame_chain_name(p, p->nodes[n].key, g->name, sizeof(g->name)));
			if (n == end)
				break;
		}
		g->printed = true;
		new_total =
		    o->chain_mode == CHAIN_FRACTAL ? p->nodes[x].cumul - p->nodes[end].hit : total;
		graph_level(g, end, new_total, depth + 1, new_mask | (1 << depth), left);
	}
	if (o->chain_mode == CHAIN_FRACTAL && remaining && remaining != total) {
		new_mask &= ~(1 << (depth - 1));
		margin(g->out, left);
		for (int d = 0; d < depth; d++) {
			fputc(new_mask & (1 << d) ? '|' : ' ', g->out);
			if (d == depth - 1) {
				fputs("--", g->out);
				value(g, remaining, total);
				fputs("--", g->out);
			} else {
				fputs("          ", g->out);
			}
		}
		fputs("[...]\n", g->out);
		g->printed = true;
	}
	free(v);
}

static void print_graph(struct profile *p, const struct hists *hs, const struct hist_entry *e,
			FILE *out)
{
	const struct report_opts *o = p->o;
	struct graph g = {.p = p, .out = out, .total = hists_pct_total(o, hs)};
	u32 root = e->chain_root, nr, *v, top = root;
	u64 total = hists_pct_total(o, hs);
	int left = 0;
	char buf[CHAIN_NAME_MAX];

	if (!root)
		return;
	g.min_hit = hists_min_chain_hit(o, hs);
	v = children(&g, root, child_min_hit(&g, p->nodes[root].cumul), &nr);
	if (nr == 1 && p->nodes[v[0]].cumul == entry_shown_period(o, e)) {
		/* one root that holds it all: no percentage, and one column less */
		u32 x = v[0], end = run_end(p, x), k = 0;
		bool printed = false;

		for (u32 n = x;; n = p->nodes[n].first_child, k++) {
			if (!k && o->sort_given && !o->nr_fields && o->keys[0] == SORT_SYM) {
				/* the first entry is the row's symbol: perf does not repeat it */
			} else if (!printed) {
				margin(out, left);
				fputs("|\n", out);
				margin(out, left);
				fputs("---", out);
				left += 3;
				printed = true;
				fprintf(out, "%s\n",
					frame_chain_name(p, p->nodes[n].key, buf, sizeof(buf)));
			} else {
				margin(out, left);
				fprintf(out, "%s\n",
					frame_chain_name(p, p->nodes[n].key, buf, sizeof(buf)));
			}
			if (n == end)
				break;
		}
		g.printed = printed;
		top = end;
	}
	free(v);
	/* perf's callchain__fprintf_graph(): fractal shares below are of the row's period */
	if (o->chain_mode == CHAIN_FRACTAL)
		total = entry_shown_period(o, e);
	graph_level(&g, top, total, 1, 1, left);
	if (g.printed)
		fputc('\n', out);
}

/* perf's flat mode: every distinct chain, callee first, with its share. */
static void flat_collect(const struct profile *p, u32 x, u64 min_hit, u32 **v, u32 *nr, u32 *cap)
{
	for (u32 c = p->nodes[x].first_child; c; c = p->nodes[c].next_sibling) {
		if (p->nodes[c].hit && p->nodes[c].hit >= min_hit) {
			if (*nr == *cap) {
				*cap = *cap ? 2 * *cap : 16;
				*v = xrealloc(*v, *cap * sizeof(u32));
			}
			(*v)[(*nr)++] = c;
		}
		flat_collect(p, c, min_hit, v, nr, cap);
	}
}

static struct profile *flat_profile;

static int flat_cmp(const void *pa, const void *pb)
{
	const struct cnode *a = &flat_profile->nodes[*(const u32 *)pa];
	const struct cnode *b = &flat_profile->nodes[*(const u32 *)pb];

	if (a->hit != b->hit)
		return a->hit > b->hit ? -1 : 1;
	return *(const u32 *)pa < *(const u32 *)pb ? -1 : 1;
}

static void print_flat(struct profile *p, const struct hists *hs, const struct hist_entry *e,
		       FILE *out)
{
	u32 *v = NULL, nr = 0, cap = 0, path[MAX_PATH_DEPTH];
	u64 min_hit = hists_min_chain_hit(p->o, hs);
	char buf[CHAIN_NAME_MAX];

	if (!e->chain_root)
		return;
	flat_collect(p, e->chain_root, min_hit, &v, &nr, &cap);
	flat_profile = p;
	if (nr) /* v is NULL without chains above the threshold */
		qsort(v, nr, sizeof(u32), flat_cmp);
	for (u32 i = 0; i < nr; i++) {
		u32 d = 0;

		/* sorted by the chains that end here, shown with those that go on (perf's flat) */
		fprintf(out, "           %.2f%%\n",
			pct(p->nodes[v[i]].cumul, hists_pct_total(p->o, hs)));
		for (u32 n = v[i]; n != e->chain_root && d < MAX_PATH_DEPTH; n = p->nodes[n].parent)
			path[d++] = n;
		while (d--)
			fprintf(out, "                %s\n",
				frame_chain_name(p, p->nodes[path[d]].key, buf, sizeof(buf)));
		fputc('\n', out);
	}
	free(v);
}

/* ---------------------------------------------------------------------------------------- */
/* --hierarchy (ui/stdio/hist.c: hist_entry__hierarchy_fprintf()) */

#define HIERARCHY_INDENT 3

struct hier {
	struct profile *p;
	const struct hists *hs;
	const struct columns *c;
	FILE *out;
	u32 *rows; /* the rows (gids), grouped level by level */
	bool graph;
};

static u32 hier_level; /* the key the grouping sort compares up to, for hier_cmp() */

/* Rows by their keys up to level hier_level, as the levels group them. */
static int hier_cmp(const void *pa, const void *pb)
{
	const struct hist_entry *a = sort_profile->by_gid[*(const u32 *)pa];
	const struct hist_entry *b = sort_profile->by_gid[*(const u32 *)pb];
	const struct report_opts *o = sort_profile->o;

	for (u32 k = 0; k <= hier_level; k++) {
		int c = key_cmp(a, b, o->keys[k]);

		if (c)
			return c;
		/* two symbols of one name in different binaries are two entries */
		if (o->keys[k] == SORT_SYM && (c = cmp_str(a->dso_name, b->dso_name)))
			return c;
		if (o->keys[k] == SORT_SYM && a->resolved && b->resolved &&
		    a->sym_start != b->sym_start)
			return a->sym_start < b->sym_start ? -1 : 1;
	}
	return 0;
}

/* A group of rows that agree on the keys up to a level: the sum of their values. */
struct hier_group {
	u32 first, n;	      /* in rows[] */
	struct hist_entry sum; /* the first row with the values of all */
};

static int group_cmp(const void *pa, const void *pb)
{
	const struct hier_group *a = pa, *b = pb;
	u32 ga = a->sum.gid, gb = b->sum.gid;

	if (a->sum.period != b->sum.period)
		return a->sum.period > b->sum.period ? -1 : 1;
	return hier_cmp(&ga, &gb);
}

/* Perf's "no entry >= PCT%" under a level whose entries the limit all hides. */
static void hier_no_entry(struct hier *h, u32 depth)
{
	const struct report_opts *o = h->p->o;
	u32 width = 0, n = 0;

	for (u32 i = 0; i < h->c->nr; i++) {
		if (!is_value(h->c->v[i].id))
			continue;
		width += h->c->v[i].width + (n++ ? 2 : 0);
	}
	if (!o->field_sep)
		fprintf(h->out, "%*s", (int)((o->nr_keys + depth) * HIERARCHY_INDENT), "");
	fprintf(h->out, "%*sno entry >= %.2f%%\n", (int)width + 4, "", o->percent_limit);
}

/* One entry of a level: its values, then its key without the blanks before it. */
static void hier_line(struct hier *h, const struct hist_entry *e, u32 depth)
{
	const struct report_opts *o = h->p->o;
	const char *sep = o->field_sep;
	char buf[4300];
	const char *s;
	bool first = true;

	fprintf(h->out, "%*s", (int)(depth * HIERARCHY_INDENT), "");
	for (u32 i = 0; i < h->c->nr; i++) {
		const struct column *col = &h->c->v[i];

		if (!is_value(col->id))
			continue;
		fputs(sep && first ? "" : sep ? sep : "  ", h->out);
		first = false;
		value_cell(o, h->hs, e, col, buf, sizeof(buf));
		fprintf(h->out, "%-*s", (int)col->width, buf);
	}
	if (!sep)
		fprintf(h->out, "%*s", (int)((o->nr_keys - 1) * HIERARCHY_INDENT), "");
	for (u32 i = 0; i < h->c->nr; i++) {
		if (h->c->v[i].id == (int)o->keys[depth]) {
			/* the key is the last column of its level: a symbol is not padded */
			key_cell(h->p, e, &h->c->v[i], false, buf, sizeof(buf));
			break;
		}
	}
	for (s = buf; *s == ' '; s++)
		;
	fprintf(h->out, "%s", sep ? sep : "  ");
	put_key(o, s, h->out);
	fputc('\n', h->out);
}

/* The entries of level depth over rows[first, first + n), and the levels under each. */
static void hier_level_print(struct hier *h, u32 first, u32 n, u32 depth)
{
	const struct report_opts *o = h->p->o;
	struct hier_group *g = xmalloc((n ? n : 1) * sizeof(*g));
	u32 nr = 0;
	bool shown = false;

	/* the rows under the level before agree on its keys: group them by this one */
	hier_level = depth;
	qsort(h->rows + first, n, sizeof(u32), hier_cmp);
	for (u32 i = 0; i < n; i++) {
		const struct hist_entry *e = h->p->by_gid[h->rows[first + i]];

		if (i && !hier_cmp(&h->rows[first + i - 1], &h->rows[first + i])) {
			g[nr - 1].n++;
			g[nr - 1].sum.period += e->period;
			g[nr - 1].sum.period_sys += e->period_sys;
			g[nr - 1].sum.period_us += e->period_us;
			g[nr - 1].sum.samples += e->samples;
			continue;
		}
		g[nr].first = first + i;
		g[nr].n = 1;
		g[nr++].sum = *e;
	}
	hier_level = depth;
	qsort(g, nr, sizeof(*g), group_cmp);
	for (u32 i = 0; i < nr; i++) {
		const struct hist_entry *e = &g[i].sum;

		if (pct(e->period, hists_pct_total(o, h->hs)) < o->percent_limit ||
		    (o->exclude_other && !e->parent))
			continue;
		shown = true;
		hier_line(h, e, depth);
		if (depth + 1 < o->nr_keys) {
			hier_level_print(h, g[i].first, g[i].n, depth + 1);
			hier_level = depth;
		} else if (h->graph && o->chain_mode == CHAIN_FLAT) {
			print_flat(h->p, h->hs, h->p->by_gid[e->gid], h->out);
		} else if (h->graph) {
			print_graph(h->p, h->hs, h->p->by_gid[e->gid], h->out);
		}
	}
	if (!shown && depth && nr)
		hier_no_entry(h, depth - 1);
	free(g);
}

/* The titles of the hierarchy: the value columns, then the keys joined by " / ". */
static void hier_titles(struct hier *h)
{
	const struct report_opts *o = h->p->o;
	const char *sep = o->field_sep;
	u32 indent = (o->nr_keys - 1) * HIERARCHY_INDENT, title = 0, widest = 0, n = 0;

	fprintf(h->out, "# %*s", sep ? 0 : (int)indent, "");
	for (u32 i = 0; i < h->c->nr; i++)
		if (is_value(h->c->v[i].id))
			fprintf(h->out, "%*s%s", (int)h->c->v[i].width,
				column_title(o, &h->c->v[i]), sep ? sep : "  ");
	for (u32 k = 0; k < o->nr_keys; k++) {
		const char *t = key_titles[o->keys[k]];

		while (*t == ' ')
			t++;
		title += (u32)fprintf(h->out, "%s%s", k ? " / " : "", t);
	}
	fputs("\n# ", h->out);
	if (!sep)
		for (u32 i = 0; i < indent; i++)
			fputc('.', h->out);
	for (u32 i = 0; i < h->c->nr; i++) {
		if (!is_value(h->c->v[i].id))
			continue;
		fputs(n++ ? sep ? sep : ".." : "", h->out);
		for (u32 j = 0; j < h->c->v[i].width; j++)
			fputc('.', h->out);
	}
	for (u32 k = 0; k < o->nr_keys; k++)
		for (u32 i = 0; i < h->c->nr; i++)
			if (h->c->v[i].id == (int)o->keys[k] &&
			    k * HIERARCHY_INDENT + h->c->v[i].width > widest)
				widest = k * HIERARCHY_INDENT + h->c->v[i].width;
	fputs(sep ? sep : "  ", h->out);
	for (u32 i = 0; i < (title > widest ? title : widest); i++)
		fputc('.', h->out);
	fputs("\n#\n", h->out);
}

/* The rows of hs as perf's --hierarchy prints them: one level per sort key. */
static void print_hierarchy(struct profile *p, const struct hists *hs, const struct columns *c,
			    bool graph, FILE *out)
{
	struct hier h = {p, hs, c, out, xmalloc((hs->nr ? hs->nr : 1) * sizeof(u32)), graph};

	for (u32 j = 0; j < hs->nr; j++)
		h.rows[j] = hs->v[j].gid;
	sort_profile = p;
	if (!quiet)
		hier_titles(&h);
	if (p->o->nr_keys)
		hier_level_print(&h, 0, hs->nr, 0);
	free(h.rows);
}

/* ---------------------------------------------------------------------------------------- */

static void unit_number(u64 n, u64 *out, char *unit)
{
	*unit = ' ';
	if (n > 1000) {
		n /= 1000;
		*unit = 'K';
	}
	if (n > 1000) {
		n /= 1000;
		*unit = 'M';
	}
	if (n > 1000) {
		n /= 1000;
		*unit = 'G';
	}
	*out = n;
}

static bool show_graph(const struct profile *p, u32 attr)
{
	const struct perf_event_attr *a = pd_reader_attr(p->s.r, attr);

	return p->o->chain_mode != CHAIN_NONE && a && (a->sample_type & PERF_SAMPLE_CALLCHAIN);
}

/* The event's samples were counted in the kernel: each record stands for its WEIGHT. */
static bool event_aggregated(const struct profile *p, u32 i)
{
	return i < p->s.nr_aggregated && p->s.aggregated[i];
}

/* The lines above the first event's table: what the file holds and what was filtered. */
static void print_heading(struct profile *p, FILE *out)
{
	const struct report_opts *o = p->o;
	char *unres;
	u32 nr_events = 0;

	if (!o->filter.header)
		fprintf(out, "# To display the perf.data header info, please use "
			     "--header/--header-only options.\n#\n");
	for (u32 k = 0; k < o->nr_keys; k++)
		if (o->keys[k] == SORT_COMM && o->nr_comms == 1)
			fprintf(out, "# comm: %s\n", o->comms[0]);
	filter_heading(o, out);
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", p->s.lost_samples);
	for (u32 i = 0; i < p->nr_ev; i++)
		nr_events += p->ev[i].nr_samples ? 1 : 0;
	/* the exact count, which perf's "# Samples: 2K" rounds */
	fprintf(out, "# %" PRIu64 " samples in %u event%s\n", p->s.nr_samples, nr_events,
		nr_events == 1 ? "" : "s");
	unres = profile_unresolved_line(p, true);
	if (unres) {
		fprintf(out, "# %s\n", unres);
		free(unres);
	}
	fputs("#\n", out);
}

/* An event's lines above its table: "# Samples: 2K of event 'cpu-clock'" as perf's. */
static void print_event_heading(const struct profile *p, u32 i, FILE *out)
{
	const struct report_opts *o = p->o;
	const struct hists *hs = &p->ev[i];
	char name[256];
	u64 n;
	char unit;

	/* --percentage relative: the header counts what the filters let through */
	unit_number(hs->nr_samples - (o->pct_relative ? hs->nr_filtered : 0), &n, &unit);
	fprintf(out, "# Samples: %" PRIu64 "%c of event '%s'", n, unit,
		report_event_name(p->s.r, i, name, sizeof(name)));
	if (o->filter.time_str)
		fprintf(out, " (time slices: %s)", o->filter.time_str);
	fputc('\n', out);
	if (event_aggregated(p, i))
		fprintf(out,
			"# Aggregated in the kernel: %" PRIu64 " samples in %" PRIu64
			" records (perf report counts the records)\n",
			hs->nr_samples, hs->nr_records);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", hists_pct_total(o, hs));
}

int view_table(struct profile *p, FILE *out)
{
	const struct report_opts *o = p->o;
	bool any = false;

	sort_entries(p);
	if (p->want_chains)
		profile_chains_build(p);
	if (!quiet)
		print_heading(p, out);
	for (u32 i = 0; i < p->nr_ev; i++) {
		const struct hists *hs = &p->ev[i];
		struct columns c;
		bool graph = show_graph(p, i);

		if (!hs->nr_samples)
			continue;
		any = true;
		columns_setup(o, &c);
		compute_widths(p, hs, &c);
		if (!quiet)
			print_event_heading(p, i, out);
		if (o->hierarchy) {
			print_hierarchy(p, hs, &c, graph, out);
			fputs("\n\n", out);
			continue;
		}
		if (!quiet)
			print_titles(o, &c, out);
		for (u32 j = 0; j < hs->nr; j++) {
			const struct hist_entry *e = p->by_gid[hs->sorted[j]];

			/* -x leaves out the [other] rows, as perf's */
			if (pct(entry_shown_period(o, e), hists_pct_total(o, hs)) <
				o->percent_limit ||
			    (o->exclude_other && !e->parent) || row_filtered(p, e))
				continue;
			print_row(p, hs, e, &c, out);
			if (graph && o->chain_mode == CHAIN_FLAT)
				print_flat(p, hs, e, out);
			else if (graph)
				print_graph(p, hs, e, out);
		}
		fputs("\n\n", out);
	}
	if (!any && !p->s.nr_samples && p->s.nr_overhead)
		fprintf(out,
			"# The file has no samples but %" PRIu64 " of prec:overhead, which are "
			"costs: prec report --overhead shows them.\n",
			p->s.nr_overhead);
	else if (!any)
		fprintf(out, "# The file has no samples%s.\n",
			p->filtered || o->cpu_filter ? " that pass the filters" : "");
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* JSON */

/*
 * A row's call graph as JSON: the branches the text view shows, each with its share as the text
 * prints it ("percent", null where the text shows none), its period and samples, the entries of
 * its run ("frames", in the order of the text) and the branches under it ("children").
 */
static void json_frames(struct profile *p, u32 x, u32 end, bool skip_first, FILE *out)
{
	char buf[CHAIN_NAME_MAX];
	bool first = true;

	fputs(", \"frames\": [", out);
	for (u32 n = x, k = 0;; n = p->nodes[n].first_child, k++) {
		if (!(k == 0 && skip_first)) {
			fputs(first ? "" : ", ", out);
			json_str(out, frame_chain_name(p, p->nodes[n].key, buf, sizeof(buf)));
			first = false;
		}
		if (n == end)
			break;
	}
	fputc(']', out);
}

static void json_graph_level(struct graph *g, u32 parent_end, u64 total, bool *first)
{
	struct profile *p = g->p;
	const struct report_opts *o = p->o;
	FILE *out = g->out;
	u32 nr, *v;
	u64 remaining = total,
	    parent_children = p->nodes[parent_end].cumul - p->nodes[parent_end].hit;
	u64 min_hit = child_min_hit(g, parent_children);

	v = children(g, parent_end, min_hit, &nr);
	for (u32 i = 0; i < nr; i++) {
		u32 x = v[i], end = run_end(p, x);
		u64 new_total;
		bool sub_first = true;

		remaining -= p->nodes[x].cumul;
		fprintf(out, "%s{\"percent\": %.6f, \"period\": %" PRIu64 ", \"samples\": %" PRIu64,
			*first ? "" : ", ", pct(p->nodes[x].cumul, total), p->nodes[x].cumul,
			p->nodes[x].count);
		*first = false;
		json_frames(p, x, end, false, out);
		fputs(", \"children\": [", out);
		new_total =
		    o->chain_mode == CHAIN_FRACTAL ? p->nodes[x].cumul - p->nodes[end].hit : total;
		json_graph_level(g, end, new_total, &sub_first);
		fputs("]}", out);
	}
	if (o->chain_mode == CHAIN_FRACTAL && remaining && remaining != total) {
		fprintf(out,
			"%s{\"percent\": %.6f, \"period\": %" PRIu64
			", \"samples\": null, \"frames\": [\"[...]\"], \"children\": []}",
			*first ? "" : ", ", pct(remaining, total), remaining);
		*first = false;
	}
	free(v);
}

/* The call graph of row e, as print_graph() and print_flat() print it. */
static void json_graph(struct profile *p, const struct hists *hs, const struct hist_entry *e,
		       FILE *out)
{
	const struct report_opts *o = p->o;
	struct graph g = {.p = p, .out = out, .total = hists_pct_total(o, hs)};
	u32 root = e->chain_root, nr, *v, top = root;
	u64 total = hists_pct_total(o, hs);
	bool first = true;

	fputs(", \"callchain\": [", out);
	if (!root) {
		fputc(']', out);
		return;
	}
	g.min_hit = hists_min_chain_hit(o, hs);
	if (o->chain_mode == CHAIN_FLAT) {
		u32 *fv = NULL, fnr = 0, cap = 0, path[MAX_PATH_DEPTH];
		char buf[CHAIN_NAME_MAX];

		flat_collect(p, root, g.min_hit, &fv, &fnr, &cap);
		flat_profile = p;
		if (fnr)
			qsort(fv, fnr, sizeof(u32), flat_cmp);
		for (u32 i = 0; i < fnr; i++) {
			u32 d = 0;

			fprintf(out,
				"%s{\"percent\": %.6f, \"period\": %" PRIu64
				", \"samples\": %" PRIu64 ", \"frames\": [",
				i ? ", " : "", pct(p->nodes[fv[i]].cumul, total),
				p->nodes[fv[i]].cumul, p->nodes[fv[i]].count);
			for (u32 n = fv[i]; n != root && d < MAX_PATH_DEPTH; n = p->nodes[n].parent)
				path[d++] = n;
			for (u32 k = d; k-- > 0;) {
				fputs(k + 1 == d ? "" : ", ", out);
				json_str(out, frame_chain_name(p, p->nodes[path[k]].key, buf,
							       sizeof(buf)));
			}
			fputs("]}", out);
		}
		free(fv);
		fputc(']', out);
		return;
	}
	v = children(&g, root, child_min_hit(&g, p->nodes[root].cumul), &nr);
	if (nr == 1 && p->nodes[v[0]].cumul == entry_shown_period(o, e)) {
		/* one root that holds it all: the text shows it without a share */
		u32 x = v[0], end = run_end(p, x);
		bool sub_first = true;

		fprintf(out, "{\"percent\": null, \"period\": %" PRIu64 ", \"samples\": %" PRIu64,
			p->nodes[x].cumul, p->nodes[x].count);
		json_frames(p, x, end, o->sort_given && !o->nr_fields && o->keys[0] == SORT_SYM,
			    out);
		fputs(", \"children\": [", out);
		top = end;
		if (o->chain_mode == CHAIN_FRACTAL)
			total = entry_shown_period(o, e);
		json_graph_level(&g, top, total, &sub_first);
		fputs("]}", out);
		first = false;
	} else {
		if (o->chain_mode == CHAIN_FRACTAL)
			total = entry_shown_period(o, e);
		json_graph_level(&g, top, total, &first);
	}
	free(v);
	fputc(']', out);
}

int view_json(struct profile *p, FILE *out)
{
	const struct report_opts *o = p->o;
	char name[256], buf[4200];
	bool first_ev = true;
	struct dso **dsos;
	bool first;
	u32 nr;

	sort_entries(p);
	if (p->want_chains)
		profile_chains_build(p);
	fputs("{\n  \"file\": ", out);
	json_str(out, o->input);
	fprintf(out, ",\n  \"lost_samples\": %" PRIu64 ",\n  \"children\": %s,\n  \"sort\": [",
		p->s.lost_samples, o->children ? "true" : "false");
	for (u32 k = 0; k < o->nr_keys; k++)
		fprintf(out, "%s\"%s\"", k ? ", " : "", key_names[o->keys[k]]);
	fprintf(out, "],\n  \"percent_limit\": %g,\n  \"events\": [", o->percent_limit);
	for (u32 i = 0; i < p->nr_ev; i++) {
		const struct hists *hs = &p->ev[i];
		bool first_row = true;
		bool graph = show_graph(p, i);

		if (!hs->nr_samples)
			continue;
		fprintf(out, "%s\n    {\n      \"event\": ", first_ev ? "" : ",");
		first_ev = false;
		json_str(out, report_event_name(p->s.r, i, name, sizeof(name)));
		fprintf(out,
			",\n      \"samples\": %" PRIu64 ",\n      \"records\": %" PRIu64
			",\n      \"aggregated\": %s,\n      \"period\": %" PRIu64
			",\n      \"filtered\": %" PRIu64 ",\n      \"rows\": [",
			hs->nr_samples, hs->nr_records, event_aggregated(p, i) ? "true" : "false",
			hs->total_period, hs->nr_filtered);
		for (u32 j = 0; j < hs->nr; j++) {
			const struct hist_entry *e = p->by_gid[hs->sorted[j]];
			const struct frame *fr = session_frame(&p->s, e->frame);
			double v = pct(e->period, hists_pct_total(o, hs));

			/* -x leaves out the [other] rows, as perf's */
			if (pct(entry_shown_period(o, e), hists_pct_total(o, hs)) <
				o->percent_limit ||
			    (o->exclude_other && !e->parent) || row_filtered(p, e))
				continue;
			fprintf(out,
				"%s\n        {\"overhead\": %.6f, \"samples\": %" PRIu64
				", \"period\": %" PRIu64,
				first_row ? "" : ",", v, e->samples, e->period);
			if (o->children)
				fprintf(out,
					", \"children\": %.6f, \"children_samples\": %" PRIu64
					", \"children_period\": %" PRIu64,
					pct(e->acc_period, hists_pct_total(o, hs)), e->acc_samples,
					e->acc_period);
			first_row = false;
			for (u32 k = 0; k < o->nr_keys; k++) {
				switch (o->keys[k]) {
				case SORT_COMM:
					fputs(", \"comm\": ", out);
					json_str(out, e->comm);
					break;
				case SORT_PID:
					fprintf(out, ", \"pid\": %d, \"pid_comm\": ", e->tid);
					json_str(out, e->thread->comm);
					break;
				case SORT_TID:
					fprintf(out, ", \"tid\": %d", e->tid);
					break;
				case SORT_DSO:
					fputs(", \"dso\": ", out);
					json_str(out, dso_cell(p, e));
					break;
				case SORT_SYM:
					if (fr->sym) {
						fputs(", \"sym\": ", out);
						json_str(out, sym_name(fr->sym));
					} else {
						snprintf(buf, sizeof(buf), "%#.16" PRIx64, e->rel);
						fprintf(out, ", \"sym\": \"%s\"", buf);
					}
					fprintf(out, ", \"level\": \"%c\", \"resolved\": %s",
						fr->sym ? fr->level : e->level,
						fr->sym ? "true" : "false");
					break;
				case SORT_CPU:
					fprintf(out, ", \"cpu\": %d", e->cpu);
					break;
				case SORT_SRCLINE:
					fputs(", \"srcline\": ", out);
					json_str(out, e->srcline ? e->srcline : "");
					break;
				case SORT_PARENT:
					fputs(", \"parent\": ", out);
					if (e->parent)
						json_str(out, e->parent);
					else
						fputs("null", out);
					break;
				}
			}
			if (graph)
				json_graph(p, hs, e, out);
			fputc('}', out);
		}
		fprintf(out, "%s]\n    }", first_row ? "" : "\n      ");
	}
	fprintf(out, "%s],\n  \"unresolved\": {\"samples\": %" PRIu64 ", \"binaries\": [",
		first_ev ? "" : "\n  ", p->unresolved);
	first = true;
	dsos = profile_unresolved_dsos(p, &nr);
	for (u32 i = 0; i < nr; i++) {
		fprintf(out, "%s{\"path\": ", first ? "" : ", ");
		json_str(out, dsos[i]->name);
		fprintf(out, ", \"reason\": \"%s\", \"samples\": %" PRIu64 "}",
			dso_why_unresolved(dsos[i]), dsos[i]->unresolved);
		first = false;
	}
	free(dsos);
	if (p->unresolved_nomap)
		fprintf(out, "%s{\"path\": null, \"reason\": \"no map\", \"samples\": %" PRIu64 "}",
			first ? "" : ", ", p->unresolved_nomap);
	fputs("]}\n}\n", out);
	return 0;
}
