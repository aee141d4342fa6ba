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
 * next begins (symbols__fixup_end()).
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
		s->namelen = (u32)strlen(n);
		s->name = pool_strndup(pool, n, s->namelen);
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

void dso_sort_syms(struct dso *dso, bool fixup_ends)
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
			if (!better_sym(&s[out - 1], &s[i]))
				s[out - 1] = s[i];
			continue;
		}
		s[out++] = s[i];
	}
	dso->nr_syms = out;
	free(dso->starts);
	dso->starts = xmalloc(out * sizeof(u64));
	for (u32 i = 0; i < out; i++)
		dso->starts[i] = s[i].start;
	/*
	 * Every SYM_BLOCK-th start, for big symbol tables (the kernel's): a binary search of the
	 * whole array misses the cache at each of its last steps, this index stays in it.
	 */
	free(dso->starts_idx);
	dso->starts_idx = NULL;
	dso->nr_idx = 0;
	if (out >= 4 * SYM_BLOCK) {
		dso->nr_idx = (out + SYM_BLOCK - 1) / SYM_BLOCK;
		dso->starts_idx = xmalloc(dso->nr_idx * sizeof(u64));
		for (u32 i = 0; i < dso->nr_idx; i++)
			dso->starts_idx[i] = dso->starts[i * SYM_BLOCK];
	}
}
