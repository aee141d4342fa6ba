// SPDX-License-Identifier: GPL-2.0
/*
 * The table of binaries ("dsos") and their symbol arrays for prec report (see symbols.h), and
 * the thread that loads them ahead.
 *
 * How perf 6.1 picks among the symbols at one address is what the output has to match: the best
 * of several by choose_best_symbol()'s rules (a sized one, a non-weak one, a global one, fewer
 * leading underscores, the longer name, else the first); a symbol without a size ends where the
 * next begins (symbols__fixup_end()).
 */
#include "config.h"

#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols-internal.h"
#include "util/hash.h"
#include "util/xalloc.h"

static void prefetch_stop(struct dsos *d);

__thread bool in_prefetch_thread;

struct bid_entry {
	const char *name;
	u8 size;
	u8 id[BUILD_ID_MAX];
};

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
/* The table of dsos */

static void parse_build_ids(struct dsos *d, const u8 *p, size_t len)
{
	size_t pos = 0;
	u32 cap = 0;

	/* struct perf_record_header_build_id: header, pid, data[20], size, pad, filename */
	while (len - pos >= 8 + 4 + 24) {
		struct pd_record_header h;
		struct pd_build_id_body b;
		size_t name_off = pos + 8 + sizeof(b), name_max;
		const char *name;
		struct bid_entry *e;

		memcpy(&h, p + pos, sizeof(h));
		if (h.size < 8 + sizeof(b) || h.size > len - pos)
			break;
		memcpy(&b, p + pos + 8, sizeof(b));
		name = (const char *)p + name_off;
		name_max = pos + h.size - name_off;
		pos += h.size;
		if (!name_max || !memchr(name, '\0', name_max))
			continue;
		if (b.pid != -1 && b.pid != 0)
			continue; /* a guest machine */
		if (d->nr_bids == cap) {
			cap = cap ? 2 * cap : 64;
			d->bids = xrealloc(d->bids, cap * sizeof(*d->bids));
		}
		e = &d->bids[d->nr_bids++];
		e->name = name;
		e->size = (h.misc & PD_BUILD_ID_MISC_SIZE) && b.size <= BUILD_ID_MAX ? b.size
										     : BUILD_ID_MAX;
		memcpy(e->id, b.data, BUILD_ID_MAX);
	}
}

void dsos_init(struct dsos *d, const void *build_ids, size_t len)
{
	const char *home = getenv("HOME");

	memset(d, 0, sizeof(*d));
	d->mask = 255;
	d->table = xcalloc(d->mask + 1, sizeof(*d->table));
	if (build_ids)
		parse_build_ids(d, build_ids, len);
	d->home_debug = xasprintf("%s/.debug", home && *home ? home : "/root");
}

void dso_free(struct dso *dso)
{
	free(dso->name);
	free(dso->syms);
	free(dso->starts);
	free(dso->starts_idx);
	free(dso->segs);
	pool_free(&dso->strings);
	free(dso->symsrc);
	free(dso);
}

void dsos_exit(struct dsos *d)
{
	struct dso *dso, *next;
	size_t len;

	free(kernel_prefetched(d, &len, true));
	prefetch_stop(d);
	demangle_exit();
	for (dso = d->first; dso; dso = next) {
		next = dso->next;
		dso_free(dso);
	}
	free(d->table);
	free(d->bids);
	free(d->home_debug);
	memset(d, 0, sizeof(*d));
}

static void dsos_grow(struct dsos *d)
{
	u32 mask = 2 * d->mask + 1;
	struct dso **t = xcalloc(mask + 1, sizeof(*t));

	for (struct dso *dso = d->first; dso; dso = dso->next) {
		dso->hnext = t[dso->hash & mask];
		t[dso->hash & mask] = dso;
	}
	free(d->table);
	d->table = t;
	d->mask = mask;
}

static void set_short_name(struct dso *dso)
{
	const char *slash;

	if (dso->kind == DSO_USER || dso->kind == DSO_PERFMAP) {
		slash = strrchr(dso->name, '/');
		dso->short_name = slash && slash[1] ? slash + 1 : dso->name;
	} else {
		dso->short_name = dso->name;
	}
	dso->short_len = (u32)strlen(dso->short_name);
}

struct dso *dsos_findnew(struct dsos *d, const char *name, enum dso_kind kind)
{
	u32 h = hash_fnv1a32_str(name);
	struct dso *dso;

	for (dso = d->table[h & d->mask]; dso; dso = dso->hnext)
		if (dso->hash == h && !strcmp(dso->name, name))
			return dso;
	dso = xcalloc(1, sizeof(*dso));
	dso->name = xstrdup(name);
	dso->kind = kind;
	dso->hash = h;
	set_short_name(dso);
	for (u32 i = 0; i < d->nr_bids; i++) {
		if (!strcmp(d->bids[i].name, name)) {
			dso->has_build_id = true;
			dso->build_id_size = d->bids[i].size;
			memcpy(dso->build_id, d->bids[i].id, BUILD_ID_MAX);
			break;
		}
	}
	if (kind == DSO_NOSYMS || kind == DSO_KSYMBOL) {
		dso->loaded = true;
		dso->status = kind == DSO_NOSYMS ? DSO_STRIPPED : DSO_OK;
	}
	if (d->last)
		d->last->next = dso;
	else
		d->first = dso;
	d->last = dso;
	if (++d->nr > d->mask)
		dsos_grow(d);
	else {
		dso->hnext = d->table[h & d->mask];
		d->table[h & d->mask] = dso;
	}
	return dso;
}

struct dso *dsos_find(struct dsos *d, const char *name)
{
	u32 h = hash_fnv1a32_str(name);

	for (struct dso *dso = d->table[h & d->mask]; dso; dso = dso->hnext)
		if (dso->hash == h && !strcmp(dso->name, name))
			return dso;
	return NULL;
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

const struct sym *dso_find_sym(struct dsos *d, struct dso *dso, u64 addr)
{
	const u64 *st;
	const struct sym *s;
	u32 lo = 0, hi;

	if (!dso->loaded)
		dso_load(d, dso);
	hi = dso->nr_syms;
	st = dso->starts;
	if (!hi || addr < st[0])
		return NULL;
	if (dso->nr_idx) {
		/* the block of the last start at or below addr, then within it */
		u32 blo = 0, bhi = dso->nr_idx;

		while (bhi - blo > 1) {
			u32 mid = blo + (bhi - blo) / 2;

			if (dso->starts_idx[mid] <= addr)
				blo = mid;
			else
				bhi = mid;
		}
		lo = blo * SYM_BLOCK;
		if (lo + SYM_BLOCK < hi)
			hi = lo + SYM_BLOCK;
	}
	/* the last symbol starting at or below addr, searched in the starts alone (dense) */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (st[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &dso->syms[lo];
	if (addr < s->end || addr == s->start)
		return s;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* JIT code */

/* /tmp/perf-PID.map: "START SIZE name" per line, in hex, as JITs write it for perf. */
static void load_perf_map(struct dso *dso)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp = fopen(dso->name, "re");

	if (!fp) {
		dso->status = DSO_MISSING;
		return;
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		char *p = line, *end;
		u64 start, size;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		n = (ssize_t)strlen(p);
		while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
			n--;
		dso_add_sym(dso, start, start + size, p, (size_t)n, STB_GLOBAL);
	}
	free(line);
	fclose(fp);
	dso_sort_syms(dso, false);
	dso->status = dso->nr_syms ? DSO_OK : DSO_STRIPPED;
}

/* ---------------------------------------------------------------------------------------- */
/* Loading ahead */

/*
 * Reading a binary's symbols (ELF sections, demangling, sorting) is a fixed cost per binary that
 * on a big profile adds up to a tenth of the time. The binaries the file has build-ids for are
 * the ones it has samples in, as perf writes that feature: a thread loads them, in that order,
 * into dsos of its own while the main thread reads the file, and dso_load() takes the result
 * (or waits for the one being loaded, or loads one the thread has not started itself).
 */
enum { PF_TODO, PF_BUSY, PF_DONE };

struct pf_entry {
	struct dso *dso; /* the thread's; NULL once taken, or when the main thread loaded it */
	int state;	 /* PF_*, under the lock */
};

struct dso_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct pf_entry *v;
	u32 nr;
	bool stop;
};

static void *prefetch_main(void *arg)
{
	struct dsos *d = arg;
	struct dso_prefetch *pf = d->prefetch;

	in_prefetch_thread = true;
	for (u32 i = 0; i < pf->nr; i++) {
		struct pf_entry *e = &pf->v[i];
		bool mine;

		pthread_mutex_lock(&pf->lock);
		if (pf->stop) {
			pthread_mutex_unlock(&pf->lock);
			break;
		}
		mine = e->state == PF_TODO;
		if (mine)
			e->state = PF_BUSY;
		pthread_mutex_unlock(&pf->lock);
		if (!mine)
			continue;
		load_elf_dso_quiet(d, e->dso);
		pthread_mutex_lock(&pf->lock);
		e->state = PF_DONE;
		pthread_cond_broadcast(&pf->done);
		pthread_mutex_unlock(&pf->lock);
	}
	return NULL;
}

static bool prefetchable(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '/' && !strstr(name, "/lib/modules/") &&
	       !(n > 3 && !strcmp(name + n - 3, ".ko")) && strncmp(name, "/tmp/perf-", 10);
}

void dsos_prefetch(struct dsos *d)
{
	struct dso_prefetch *pf;

	if (d->prefetch || !d->nr_bids)
		return;
	/* what the thread shares with the main thread, set up before it starts */
	elf_version(EV_CURRENT);
	demangle_init();
	pf = xcalloc(1, sizeof(*pf));
	pf->v = xcalloc(d->nr_bids, sizeof(*pf->v));
	for (u32 i = 0; i < d->nr_bids; i++) {
		const struct bid_entry *b = &d->bids[i];
		struct dso *dso;

		if (!prefetchable(b->name))
			continue;
		dso = xcalloc(1, sizeof(*dso));
		dso->name = xstrdup(b->name);
		dso->kind = DSO_USER;
		dso->has_build_id = true;
		dso->build_id_size = b->size;
		memcpy(dso->build_id, b->id, BUILD_ID_MAX);
		pf->v[pf->nr++].dso = dso;
	}
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->done, NULL);
	d->prefetch = pf;
	if (pthread_create(&pf->thread, NULL, prefetch_main, d)) {
		d->prefetch = NULL;
		for (u32 i = 0; i < pf->nr; i++)
			dso_free(pf->v[i].dso);
		free(pf->v);
		free(pf);
	}
}

/* Stop the thread and free what it loaded and nobody took. */
static void prefetch_stop(struct dsos *d)
{
	struct dso_prefetch *pf = d->prefetch;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	for (u32 i = 0; i < pf->nr; i++)
		if (pf->v[i].dso)
			dso_free(pf->v[i].dso);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->done);
	free(pf->v);
	free(pf);
	d->prefetch = NULL;
}

/*
 * Load dso from the thread's work when it is there: true when done (taken, or loaded here
 * while the thread skips it), false when the thread has no such binary.
 */
static bool prefetch_take(struct dsos *d, struct dso *dso)
{
	struct dso_prefetch *pf = d->prefetch;
	struct pf_entry *e = NULL;
	struct dso *x;

	if (!pf || dso->kind != DSO_USER)
		return false;
	for (u32 i = 0; i < pf->nr && !e; i++) {
		x = pf->v[i].dso;
		if (x && x->build_id_size == dso->build_id_size && dso->has_build_id &&
		    !memcmp(x->build_id, dso->build_id, BUILD_ID_MAX) &&
		    !strcmp(x->name, dso->name))
			e = &pf->v[i];
	}
	if (!e)
		return false;
	pthread_mutex_lock(&pf->lock);
	if (e->state == PF_TODO) {
		/* not started: load it here, the thread will pass it by */
		e->state = PF_DONE;
		x = e->dso;
		e->dso = NULL;
		pthread_mutex_unlock(&pf->lock);
		dso_free(x);
		load_elf_dso(d, dso);
		return true;
	}
	while (e->state != PF_DONE)
		pthread_cond_wait(&pf->done, &pf->lock);
	x = e->dso;
	e->dso = NULL;
	pthread_mutex_unlock(&pf->lock);
	/* take what the thread found */
	dso->status = x->status;
	dso->dynsym_only = x->dynsym_only;
	dso->syms = x->syms;
	dso->starts = x->starts;
	dso->starts_idx = x->starts_idx;
	dso->nr_idx = x->nr_idx;
	dso->nr_syms = x->nr_syms;
	dso->cap_syms = x->cap_syms;
	dso->strings = x->strings;
	dso->segs = x->segs;
	dso->nr_segs = x->nr_segs;
	dso->symsrc = x->symsrc;
	free(x->name);
	free(x);
	load_elf_report(d, dso);
	return true;
}

void dso_load(struct dsos *d, struct dso *dso)
{
	static bool elf_ready;

	if (dso->loaded)
		return;
	dso->loaded = true;
	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
	switch (dso->kind) {
	case DSO_USER:
		if (!prefetch_take(d, dso))
			load_elf_dso(d, dso);
		break;
	case DSO_VDSO:
		load_elf_dso(d, dso);
		break;
	case DSO_PERFMAP:
		load_perf_map(dso);
		break;
	case DSO_KERNEL:
	case DSO_MODULE:
		/* loaded by kernel_load(), all at once; one that was not has no symbols */
		if (dso->status == DSO_NOT_LOADED)
			dso->status = DSO_NO_KALLSYMS;
		break;
	case DSO_NOSYMS:
	case DSO_KSYMBOL:
		break;
	}
}
