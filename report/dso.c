// SPDX-License-Identifier: GPL-2.0
/*
 * The table of binaries ("dsos") for prec report (see symbols.h), the thread that loads their
 * symbols ahead, and dso_load(), which hands a dso to the loader of its kind: symbol-elf.c for
 * ELF files and [vdso], the JIT maps here. Their symbol arrays are sym.c's; the kernel and its
 * modules are loaded by kernel.c, all at once, over this table.
 */
#include "config.h"

#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols-internal.h"
#include "util/buildid-cache.h"
#include "util/hash.h"
#include "util/xalloc.h"

static void prefetch_stop(struct dsos *d);

struct bid_entry {
	const char *name;
	u8 size;
	u8 id[BUILD_ID_MAX];
};

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

struct symbols_conf symbols_conf;

char *symfs_path(char *buf, size_t len, const char *path)
{
	if (symbols_conf.symfs)
		snprintf(buf, len, "%s/%s", symbols_conf.symfs, path);
	else
		snprintf(buf, len, "%s", path);
	return buf;
}

void dsos_init(struct dsos *d, const void *build_ids, size_t len)
{
	char dir[PATH_MAX];

	memset(d, 0, sizeof(*d));
	d->mask = 255;
	d->table = xcalloc(d->mask + 1, sizeof(*d->table));
	if (build_ids)
		parse_build_ids(d, build_ids, len);
	/*
	 * The build-id cache where perf report looks: a symfs has its own and the local one is not
	 * used; else perf's buildid.dir, else ~/.debug.
	 */
	if (symbols_conf.symfs)
		d->home_debug = xasprintf("%s/.debug", symbols_conf.symfs);
	else
		d->home_debug = xstrdup(buildid_cache_dir(NULL, dir, sizeof(dir)) ? ".debug" : dir);
}

void dso_free(struct dso *dso)
{
	free(dso->name);
	free(dso->syms);
	free(dso->starts);
	free(dso->starts_idx);
	free(dso->pick);
	free(dso->segs);
	pool_free(&dso->strings);
	free(dso->symsrc);
	free(dso->binpath);
	free(dso);
}

void dsos_exit(struct dsos *d)
{
	struct dso *dso, *next;

	kernel_prefetched(d, NULL, true);
	prefetch_stop(d);
	sym_demangle_exit();
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


const struct sym *dso_find_sym(struct dsos *d, struct dso *dso, u64 addr)
{
	const u64 *st;
	const struct sym *s;
	u32 lo = 0, hi;

	if (!dso->loaded)
		dso_load(d, dso);
	hi = dso->pick ? dso->nr_picks : dso->nr_syms;
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
	if (dso->pick)
		return dso->pick[lo] == NO_PICK ? NULL : &dso->syms[dso->pick[lo]];
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
		/*
		 * under the lock, which dsos_on_load() takes to change it; before it is done:
		 * dso_load() frees the thread's copy once it takes it
		 */
		if (d->loaded_fn)
			d->loaded_fn(d->loaded_arg, e->dso);
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

void dsos_on_load(struct dsos *d, void (*fn)(void *arg, struct dso *dso), void *arg)
{
	/* the thread may be loading already, and calls the old fn under the lock */
	if (d->prefetch)
		pthread_mutex_lock(&d->prefetch->lock);
	d->loaded_fn = fn;
	d->loaded_arg = arg;
	if (d->prefetch)
		pthread_mutex_unlock(&d->prefetch->lock);
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
	dso->nr_added = x->nr_added;
	dso->pick = x->pick;
	dso->nr_picks = x->nr_picks;
	dso->strings = x->strings;
	dso->segs = x->segs;
	dso->nr_segs = x->nr_segs;
	dso->symsrc = x->symsrc;
	dso->binpath = x->binpath;
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
		if (d->loaded_fn)
			d->loaded_fn(d->loaded_arg, dso);
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
