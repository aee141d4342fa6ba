// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols of one dso for prec report (see symbols.h): the array the loaders fill and sort,
 * the pool that owns their names, the names demangled when shown, and the words for why a dso
 * has none. Every loader (symbol-elf.c, kernel.c, the JIT maps of dso.c) builds on this file,
 * which knows nothing of where symbols come from.
 *
 * How perf 6.1 picks among the symbols at one address is what the output has to match: the best
 * of several by choose_best_symbol()'s rules (a sized one, a non-weak one, a global one, fewer
 * leading underscores, the longer name, else the first); a symbol without a size ends where the
 * next begins (symbols__fixup_end()); where symbols overlap, the one its walk down its tree of
 * symbols meets first.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols-internal.h"
#include "util/xalloc.h"

const char *dso_why_unresolved(const struct dso *dso)
{
	if (dso->status == DSO_OK && dso->dynsym_only)
		return "stripped: dynamic symbols only";
	return dso_status_str(dso->status);
}

const char *dso_status_str(enum dso_status s)
{
	switch (s) {
	case DSO_NOT_LOADED:
		return "not loaded";
	case DSO_OK:
		return "no symbol at these addresses";
	case DSO_MISSING:
		return "missing";
	case DSO_STRIPPED:
		return "stripped";
	case DSO_MISMATCH:
		return "build-id mismatch";
	case DSO_NOT_ELF:
		return "not an ELF file";
	case DSO_NO_KALLSYMS:
		return "no kallsyms";
	}
	return "?";
}

/* Names live in chunks that never move, so symbols can be added after a sort. */
const char *pool_strndup(struct strpool *p, const char *s, size_t n)
{
	char *out;

	if (n + 1 > p->left) {
		size_t size = n + 1 > 65536 ? n + 1 : 65536;
		struct strpool_chunk *c = xmalloc(sizeof(*c) + size);

		c->next = p->chunks;
		p->chunks = c;
		p->cur = c->data;
		p->left = size;
	}
	out = p->cur;
	memcpy(out, s, n);
	out[n] = '\0';
	p->cur += n + 1;
	p->left -= n + 1;
	return out;
}

void pool_free(struct strpool *p)
{
	struct strpool_chunk *c, *next;

	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(p, 0, sizeof(*p));
}

/* ---------------------------------------------------------------------------------------- */
/* Demangled names */

/* Names demangled after loading, by sym_demangle(): they outlive no session. */
static struct strpool lazy_names;

void sym_demangle_into(struct sym *s, struct strpool *pool)
{
	char dbuf[4096];
	const char *n = demangle(s->name, dbuf, sizeof(dbuf));

	if (n != s->name) {
		/* one copy, "demangled\0mangled": the name in the binary stays (sym_raw_name()) */
		size_t len = strlen(n), raw = s->namelen;
		char *both = xmalloc(len + 1 + raw);

		memcpy(both, n, len + 1);
		memcpy(both + len + 1, s->name, raw);
		s->name = pool_strndup(pool, both, len + 1 + raw);
		s->namelen = (u32)len;
		s->demangled = 1;
		free(both);
	}
	s->mangled = 0;
}

const char *sym_demangle(struct sym *s)
{
	if (s->mangled)
		sym_demangle_into(s, &lazy_names);
	return s->name;
}

void sym_demangle_exit(void)
{
	pool_free(&lazy_names);
}

/* ---------------------------------------------------------------------------------------- */
/* Symbol arrays */

void dso_add_sym(struct dso *dso, u64 start, u64 end, const char *name, size_t namelen, u8 binding)
{
	struct sym *s;

	if (dso->nr_syms == dso->cap_syms) {
		dso->cap_syms = dso->cap_syms ? 2 * dso->cap_syms : 256;
		dso->syms = xrealloc(dso->syms, dso->cap_syms * sizeof(*dso->syms));
	}
	s = &dso->syms[dso->nr_syms++];
	s->start = start;
	s->end = end;
	s->name = pool_strndup(&dso->strings, name, namelen);
	s->namelen = (u32)namelen;
	s->frame = 0;
	s->binding = binding;
	s->mangled = 0;
	s->inlined = 0;
	s->demangled = 0;
	s->seq = dso->nr_added++;
}

/* A stable merge sort by start: among symbols at one address, the first added comes first. */
static void sort_syms(struct sym *a, struct sym *tmp, u32 n)
{
	u32 mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_syms(a, tmp, mid);
	sort_syms(a + mid, tmp, n - mid);
	if (a[mid - 1].start <= a[mid].start)
		return;
	memcpy(tmp, a, mid * sizeof(*a));
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		a[k++] = a[j].start < tmp[i].start ? a[j++] : tmp[i++];
	while (i < mid)
		a[k++] = tmp[i++];
}

static u32 leading_underscores(const char *s)
{
	u32 n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a should be kept over b (same start). */
static bool better_sym(const struct sym *a, const struct sym *b)
{
	u64 la = a->end - a->start, lb = b->end - b->start;
	u32 ua, ub;

	if (la && !lb)
		return true;
	if (!la && lb)
		return false;
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
		return b->binding == STB_WEAK;
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
		return a->binding == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	if (a->namelen != b->namelen)
		return a->namelen > b->namelen;
	return true;
}

/* Every SYM_BLOCK-th of the n starts, for big tables. */
static void index_starts(struct dso *dso, u32 n)
{
	free(dso->starts_idx);
	dso->starts_idx = NULL;
	dso->nr_idx = 0;
	if (n < 4 * SYM_BLOCK)
		return;
	dso->nr_idx = (n + SYM_BLOCK - 1) / SYM_BLOCK;
	dso->starts_idx = xmalloc(dso->nr_idx * sizeof(u64));
	for (u32 i = 0; i < dso->nr_idx; i++)
		dso->starts_idx[i] = dso->starts[i * SYM_BLOCK];
}

static void log_erased(struct sym_log *log, const struct dso *dso, const struct sym *s)
{
	if (!log)
		return;
	if (log->nr == log->cap) {
		log->cap = log->cap ? 2 * log->cap : 64;
		log->v = xrealloc(log->v, log->cap * sizeof(*log->v));
	}
	log->v[log->nr].seq = s->seq;
	log->v[log->nr].added = dso->nr_added;
	log->v[log->nr].start = s->start;
	log->nr++;
}

void sym_log_free(struct sym_log *log)
{
	free(log->v);
	memset(log, 0, sizeof(*log));
}

void dso_sort_syms(struct dso *dso, bool fixup_ends)
{
	dso_sort_syms_log(dso, fixup_ends, NULL);
}

void dso_sort_syms_log(struct dso *dso, bool fixup_ends, struct sym_log *log)
{
	struct sym *s = dso->syms, *tmp;
	u32 n = dso->nr_syms, out = 0;

	if (!n)
		return;
	tmp = xmalloc((n / 2 + 1) * sizeof(*tmp));
	sort_syms(s, tmp, n);
	free(tmp);
	/*
	 * A symbol without a size ends where the next one starts (symbols__fixup_end()), before
	 * duplicates go: of several at one address only the last gets a size, and the sized one
	 * is the one kept.
	 */
	if (fixup_ends) {
		for (u32 i = 0; i + 1 < n; i++)
			if (s[i].end == s[i].start)
				s[i].end = s[i + 1].start;
		if (s[n - 1].end == s[n - 1].start)
			s[n - 1].end = ((s[n - 1].start + 4095) & ~(u64)4095) + 4096;
	}
	/* duplicates at one address: keep the best (symbols__fixup_duplicate()) */
	for (u32 i = 0; i < n; i++) {
		if (out && s[out - 1].start == s[i].start) {
			/* perf compares the demangled names */
			if (s[out - 1].mangled)
				sym_demangle_into(&s[out - 1], &dso->strings);
			if (s[i].mangled)
				sym_demangle_into(&s[i], &dso->strings);
			if (!better_sym(&s[out - 1], &s[i])) {
				log_erased(log, dso, &s[out - 1]);
				s[out - 1] = s[i];
			} else {
				log_erased(log, dso, &s[i]);
			}
			continue;
		}
		s[out++] = s[i];
	}
	dso->nr_syms = out;
	free(dso->starts);
	dso->starts = xmalloc(out * sizeof(u64));
	for (u32 i = 0; i < out; i++)
		dso->starts[i] = s[i].start;
	free(dso->pick);
	dso->pick = NULL;
	dso->nr_picks = 0;
	/*
	 * Every SYM_BLOCK-th start, for big symbol tables (the kernel's): a binary search of the
	 * whole array misses the cache at each of its last steps, this index stays in it.
	 */
	index_starts(dso, out);
}

/* ---------------------------------------------------------------------------------------- */
/* Overlapping symbols */

/*
 * perf keeps a dso's symbols in a red-black tree ordered by start (equal starts to the right)
 * and finds the symbol at an address by walking down from the root to the first node whose
 * range holds it. Where ranges overlap, as a zero-size symbol (_init) stretched to the next
 * symbol of .symtab does over the PLT entries added after it, which symbol that is depends on
 * the shape of the tree. That shape is the outcome of the same insertions and erasures, in the
 * same order, on any red-black tree that rebalances as the textbook one does (the kernel's
 * does): so the tree is rebuilt here, for the dsos that have overlaps only, and asked once per
 * stretch of addresses between two symbol boundaries.
 */

struct rb_node {
	u32 left, right, parent;
	bool red;
	u64 start;
};

struct rb_tree {
	struct rb_node *n; /* indexed by seq */
	u32 root;
};

#define RB_NIL UINT32_MAX

static bool rb_red(const struct rb_tree *t, u32 x)
{
	return x != RB_NIL && t->n[x].red;
}

/* Put y where x hangs from its parent p. */
static void rb_replace(struct rb_tree *t, u32 p, u32 x, u32 y)
{
	if (p == RB_NIL)
		t->root = y;
	else if (t->n[p].left == x)
		t->n[p].left = y;
	else
		t->n[p].right = y;
	if (y != RB_NIL)
		t->n[y].parent = p;
}

/* Rotate x down to the left (right: mirrored), its right child taking its place. */
static void rb_rotate(struct rb_tree *t, u32 x, bool left)
{
	struct rb_node *n = t->n;
	u32 y = left ? n[x].right : n[x].left;
	u32 inner = left ? n[y].left : n[y].right;

	if (left)
		n[x].right = inner;
	else
		n[x].left = inner;
	if (inner != RB_NIL)
		n[inner].parent = x;
	rb_replace(t, n[x].parent, x, y);
	if (left)
		n[y].left = x;
	else
		n[y].right = x;
	n[x].parent = y;
}

static void rb_insert(struct rb_tree *t, u32 x, u64 start)
{
	struct rb_node *n = t->n;
	u32 p = RB_NIL, *link = &t->root;

	while (*link != RB_NIL) {
		p = *link;
		link = start < n[p].start ? &n[p].left : &n[p].right;
	}
	*link = x;
	n[x] = (struct rb_node){RB_NIL, RB_NIL, p, true, start};
	while (rb_red(t, n[x].parent)) {
		u32 par = n[x].parent, g = n[par].parent;
		bool par_left = n[g].left == par;
		u32 uncle = par_left ? n[g].right : n[g].left;

		if (rb_red(t, uncle)) {
			n[par].red = n[uncle].red = false;
			n[g].red = true;
			x = g;
			continue;
		}
		if (x == (par_left ? n[par].right : n[par].left)) {
			rb_rotate(t, par, par_left);
			x = par;
			par = n[x].parent;
		}
		n[par].red = false;
		n[g].red = true;
		rb_rotate(t, g, !par_left);
	}
	n[t->root].red = false;
}

/* Restore the colours after a black node left x's place under parent p (x may be RB_NIL). */
static void rb_erase_fixup(struct rb_tree *t, u32 x, u32 p)
{
	struct rb_node *n = t->n;

	while (x != t->root && !rb_red(t, x)) {
		bool x_left = n[p].left == x;
		u32 w = x_left ? n[p].right : n[p].left;

		if (rb_red(t, w)) {
			n[w].red = false;
			n[p].red = true;
			rb_rotate(t, p, x_left);
			w = x_left ? n[p].right : n[p].left;
		}
		if (!rb_red(t, n[w].left) && !rb_red(t, n[w].right)) {
			n[w].red = true;
			x = p;
			p = n[x].parent;
			continue;
		}
		if (!rb_red(t, x_left ? n[w].right : n[w].left)) {
			n[x_left ? n[w].left : n[w].right].red = false;
			n[w].red = true;
			rb_rotate(t, w, !x_left);
			w = x_left ? n[p].right : n[p].left;
		}
		n[w].red = n[p].red;
		n[p].red = false;
		n[x_left ? n[w].right : n[w].left].red = false;
		rb_rotate(t, p, x_left);
		x = t->root;
	}
	if (x != RB_NIL)
		n[x].red = false;
}

/* Take z out, its successor taking its place when it has two children. */
static void rb_erase(struct rb_tree *t, u32 z)
{
	struct rb_node *n = t->n;
	u32 x, p;
	bool was_red = n[z].red;

	if (n[z].left == RB_NIL || n[z].right == RB_NIL) {
		x = n[z].left == RB_NIL ? n[z].right : n[z].left;
		p = n[z].parent;
		rb_replace(t, p, z, x);
	} else {
		u32 y = n[z].right;

		while (n[y].left != RB_NIL)
			y = n[y].left;
		was_red = n[y].red;
		x = n[y].right;
		if (n[y].parent == z) {
			p = y;
		} else {
			p = n[y].parent;
			rb_replace(t, p, y, x);
			n[y].right = n[z].right;
			n[n[y].right].parent = y;
		}
		rb_replace(t, n[z].parent, z, y);
		n[y].left = n[z].left;
		n[n[y].left].parent = y;
		n[y].red = n[z].red;
	}
	if (!was_red)
		rb_erase_fixup(t, x, p);
}

/* perf's walk down the tree: the seq of the symbol it finds at addr, or RB_NIL. */
static u32 rb_find(const struct rb_tree *t, const struct dso *dso, const u32 *idx, u64 addr)
{
	u32 x = t->root;

	while (x != RB_NIL) {
		const struct sym *s = &dso->syms[idx[x]];

		if (addr < s->start)
			x = t->n[x].left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = t->n[x].right;
		else
			return x;
	}
	return RB_NIL;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void add_pick(struct dso *dso, u64 start, u32 pick)
{
	if (dso->nr_picks && dso->pick[dso->nr_picks - 1] == pick)
		return;
	dso->starts[dso->nr_picks] = start;
	dso->pick[dso->nr_picks++] = pick;
}

void dso_pick_overlaps(struct dso *dso, const struct sym_log *log)
{
	const struct sym *s = dso->syms;
	u32 n = dso->nr_syms, nb = 0, uniq = 0, next = 0, *idx;
	struct rb_tree t;
	u64 *bounds, *start;
	bool overlap = false;

	for (u32 i = 0; i + 1 < n && !overlap; i++)
		overlap = s[i].end > s[i + 1].start;
	if (!overlap)
		return;
	/* replay: the symbols in the order they were added, the duplicates erased when they went */
	t.n = xcalloc(dso->nr_added, sizeof(*t.n));
	t.root = RB_NIL;
	idx = xmalloc(dso->nr_added * sizeof(*idx));
	start = xcalloc(dso->nr_added, sizeof(*start));
	for (u32 i = 0; i < dso->nr_added; i++)
		idx[i] = RB_NIL;
	for (u32 i = 0; i < n; i++) {
		idx[s[i].seq] = i;
		start[s[i].seq] = s[i].start;
	}
	for (u32 e = 0; e < log->nr; e++)
		start[log->v[e].seq] = log->v[e].start;
	for (u32 e = 0; e <= log->nr; e++) {
		u32 upto = e < log->nr ? log->v[e].added : dso->nr_added;

		for (; next < upto; next++)
			rb_insert(&t, next, start[next]);
		if (e < log->nr)
			rb_erase(&t, log->v[e].seq);
	}
	/* the answer changes at a boundary, or one past it (a zero-size symbol has one address) */
	bounds = xmalloc(2 * n * sizeof(*bounds));
	for (u32 i = 0; i < n; i++) {
		bounds[nb++] = s[i].start;
		bounds[nb++] = s[i].end;
	}
	qsort(bounds, nb, sizeof(*bounds), cmp_u64);
	for (u32 i = 0; i < nb; i++)
		if (!uniq || bounds[i] != bounds[uniq - 1])
			bounds[uniq++] = bounds[i];
	free(dso->starts);
	dso->starts = xmalloc(2 * uniq * sizeof(*dso->starts));
	dso->pick = xmalloc(2 * uniq * sizeof(*dso->pick));
	dso->nr_picks = 0;
	for (u32 i = 0; i < uniq; i++) {
		u64 b = bounds[i];
		u32 x = rb_find(&t, dso, idx, b);

		add_pick(dso, b, x == RB_NIL ? NO_PICK : idx[x]);
		if (i + 1 == uniq || bounds[i + 1] > b + 1) {
			x = rb_find(&t, dso, idx, b + 1);
			add_pick(dso, b + 1, x == RB_NIL ? NO_PICK : idx[x]);
		}
	}
	index_starts(dso, dso->nr_picks);
	free(bounds);
	free(start);
	free(idx);
	free(t.n);
}
