// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines (see srcline.h), as perf 6.1's srcline sort key finds them: the address the map
 * gives is turned into the ELF virtual address of the binary (map__rip_2objdump()), looked up in
 * the line table of the file the symbols came from (or of the binary itself), and shown as the
 * base name of the source file and the line (srcline_from_fileline()). Where no line is found,
 * perf's fallbacks (__get_srcline()): the symbol and the offset into it, in decimal, or the
 * binary's short name and the address in hex.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#endif

#include "report/srcline.h"
#include "report/symbols-internal.h"
#include "util/hash-index.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

/* A binary's line tables, opened on first use (or ahead: srclines_prefetch()). */
struct src_dso {
	struct dso *dso;
	struct src_dso *next;
#ifdef HAVE_LIBDW
	Dwarf *dw; /* NULL: no line tables */
	Elf *elf;  /* dw's file */
	int fd;
	/* queued: what to open, as dso has it (dso may be another thread's copy, freed since) */
	char *symsrc, *name;
	bool busy; /* being opened by the prefetch thread */
#endif
};

/*
 * Opening the line tables of a big debug file (dwarf_begin()) decompresses its debug sections:
 * a tenth of a second for libc's, on the main thread, where the first chain through it is shown.
 * Known sooner, when the binary's symbols are loaded, they are opened by one thread, in the
 * order they were asked for, while the main thread reads the samples. Each handle is used by one
 * thread at a time (libdw's error state is per thread, its handles are not shared).
 */
struct src_prefetch {
	pthread_t thread;
	pthread_cond_t cond;   /* work queued, stop asked, or a binary opened */
	struct src_dso **v;    /* queued; NULL once taken by src_dso() */
	u32 nr, cap, next;     /* next: the first the thread has not started */
	bool stop;
};

struct src_entry {
	struct dso *dso;
	u64 rel;
	bool chain; /* for a call chain: the fallback without the symbol's name */
	const char *text;
};

/* The functions at one address (srcline_inlines()): funcs[first ... first + n). */
struct src_inl {
	struct dso *dso;
	u64 rel;
	u32 first, n;
};

/* A function the debug information names at an address, while the scopes are walked. */
struct src_name {
	const char *name; /* interned */
	const char *line; /* interned; NULL: no file */
};

/* An inlined function's symbol, one per (base, name). */
struct src_isym {
	struct sym sym;
	const struct sym *base;
	const struct sym *canon; /* the first of that name */
	struct src_isym *next;
	struct src_isym *next_name; /* of the first ones: the next of the same hash of name */
};

struct srclines {
	struct src_inl *inl; /* each (dso, rel) whose functions were looked up, through iix */
	u32 ninl, inlcap;
	struct hash_index iix;
	struct srcline_func *funcs; /* their functions */
	u32 nfuncs, funccap;
	struct src_name *names; /* the names and lines of one address, while it is looked up */
	u32 nnames, namecap;
	const char *call_line; /* the call site of the last inlined function named */
	struct src_isym **isyms; /* hashed by (base, name) */
	u32 isym_mask, nisyms;
	struct src_isym **canons; /* the first symbol of each name, hashed by name */
	u32 canon_mask, ncanons;
	struct src_entry *v; /* each (dso, rel) looked up, found through ix */
	u32 nr, cap;
	struct hash_index ix;
	char **texts; /* each text once, found through tix: rows compare them by pointer */
	u32 ntexts, tcap;
	struct hash_index tix;
	struct src_dso *dsos;
	pthread_mutex_t lock; /* pf, and the queue in it: srclines_prefetch() comes from any thread */
	struct src_prefetch *pf; /* NULL: nothing was queued (or one CPU) */
	int cpus;		 /* online (or 1: PREC_SRCLINE_AHEAD=0), when the first was queued */
	u32 nr_ahead, nr_here;	 /* binaries whose line tables were opened ahead, on first use */
};

static u64 entry_hash(struct dso *dso, u64 rel)
{
	return hash_mix64((u64)(uintptr_t)dso ^ rel * 0x9e3779b97f4a7c15ULL);
}

static u64 entry_hash_at(const void *ctx, u32 i)
{
	const struct srclines *sl = ctx;

	return entry_hash(sl->v[i].dso, sl->v[i].rel) ^ sl->v[i].chain;
}

static bool entry_eq(const void *ctx, u32 i, const void *key)
{
	const struct srclines *sl = ctx;
	const struct src_entry *k = key;

	return sl->v[i].dso == k->dso && sl->v[i].rel == k->rel && sl->v[i].chain == k->chain;
}

static u64 text_hash_at(const void *ctx, u32 i)
{
	return hash_fnv1a32_str(((const struct srclines *)ctx)->texts[i]);
}

static bool text_eq(const void *ctx, u32 i, const void *key)
{
	return !strcmp(((const struct srclines *)ctx)->texts[i], key);
}

bool srclines_available(void)
{
#ifdef HAVE_LIBDW
	return true;
#else
	return false;
#endif
}

struct srclines *srclines_new(void)
{
	struct srclines *sl = xcalloc(1, sizeof(struct srclines));

	pthread_mutex_init(&sl->lock, NULL);
	return sl;
}

static void src_dso_free(struct src_dso *d)
{
#ifdef HAVE_LIBDW
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d->symsrc);
	free(d->name);
#endif
	free(d);
}

/* Stop the prefetch thread and close what it opened and nobody took. */
static void prefetch_stop(struct srclines *sl)
{
	struct src_prefetch *pf;

	pthread_mutex_lock(&sl->lock);
	pf = sl->pf;
	if (!pf) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&sl->lock);
	pthread_join(pf->thread, NULL);
	for (u32 i = 0; i < pf->nr; i++)
		if (pf->v[i])
			src_dso_free(pf->v[i]);
	pthread_cond_destroy(&pf->cond);
	free(pf->v);
	free(pf);
	sl->pf = NULL;
}

void srclines_free(struct srclines *sl)
{
	if (!sl)
		return;
	prefetch_stop(sl);
	pthread_mutex_destroy(&sl->lock);
	for (struct src_dso *d = sl->dsos, *n; d; d = n) {
		n = d->next;
		src_dso_free(d);
	}
	for (u32 i = 0; sl->isyms && i <= sl->isym_mask; i++)
		for (struct src_isym *y = sl->isyms[i], *n; y; y = n) {
			n = y->next;
			free(y);
		}
	free(sl->isyms);
	free(sl->canons);
	free(sl->inl);
	free(sl->funcs);
	free(sl->names);
	hash_index_free(&sl->iix);
	for (u32 i = 0; i < sl->ntexts; i++)
		free(sl->texts[i]);
	free(sl->texts);
	free(sl->v);
	hash_index_free(&sl->ix);
	hash_index_free(&sl->tix);
	free(sl);
}

/* The one copy of text s (taken over). */
static const char *text_intern(struct srclines *sl, char *s)
{
	u32 slot;
	int64_t i;

	if (!hash_index_reserve(&sl->tix, text_hash_at, sl))
		die("out of memory");
	slot = hash_index_find(&sl->tix, hash_fnv1a32_str(s), text_eq, sl, s, &i);
	if (i >= 0) {
		free(s);
		return sl->texts[i];
	}
	if (sl->ntexts == sl->tcap) {
		sl->tcap = sl->tcap ? 2 * sl->tcap : 256;
		sl->texts = xrealloc(sl->texts, sl->tcap * sizeof(*sl->texts));
	}
	sl->texts[sl->ntexts] = s;
	hash_index_set(&sl->tix, slot, sl->ntexts++);
	return s;
}

/* The ELF virtual address of map-relative address rel: through the PT_LOAD that holds it. */
static u64 objdump_addr(const struct dso *dso, u64 rel)
{
	for (u32 i = 0; i < dso->nr_segs; i++) {
		const struct dso_seg *sg = &dso->segs[i];

		if (rel >= sg->offset && rel < sg->offset + sg->memsz)
			return rel - sg->offset + sg->vaddr;
	}
	return rel;
}

#ifdef HAVE_LIBDW
/*
 * Debug sections that libdw decompresses when it opens a file (dwarf_begin_elf() takes every
 * debug section it knows) but that line tables and inline scopes never read: variable
 * locations, macros, name indexes, call frames. libc's .debug_loclists alone is 1.4 of the
 * 10 MB its debug sections decompress to.
 */
static const char *const unread_sections[] = {
    ".debug_loc",      ".debug_loclists", ".debug_macinfo", ".debug_macro",
    ".debug_pubnames", ".debug_pubtypes", ".debug_frame",
};

/* Whether section name is one of unread_sections (".zdebug_x": ".debug_x" compressed by GNU). */
static bool section_unread(const char *name)
{
	const char *base = !strncmp(name, ".zdebug_", 8) ? name + 2 : name + 1;

	if (name[0] != '.')
		return false;
	for (size_t i = 0; i < sizeof(unread_sections) / sizeof(unread_sections[0]); i++)
		if (!strcmp(base, unread_sections[i] + 1))
			return true;
	return false;
}

/*
 * The debug information of file fd for line tables and inline scopes: the sections they do not
 * read are marked SHT_NOBITS in libelf's copy of the section headers, which libdw passes by.
 */
static Dwarf *lines_begin(int fd, Elf **elfp)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Dwarf *dw;

	if (!elf)
		return NULL;
	if (!elf_getshdrstrndx(elf, &shstrndx))
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
			const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

			if (name && sh->sh_type != SHT_NOBITS && section_unread(name)) {
				sh->sh_type = SHT_NOBITS;
				gelf_update_shdr(scn, sh);
			}
		}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		elf_end(elf);
		return NULL;
	}
	*elfp = elf;
	return dw;
}

/* Open the line tables of a binary: those of the file its symbols came from, else its own. */
static void lines_open(struct src_dso *d, const char *symsrc, const char *name)
{
	const char *paths[2] = {symsrc, name};

	for (u32 i = 0; i < 2 && !d->dw; i++) {
		if (!paths[i] || (i && paths[0] && !strcmp(paths[0], paths[1])))
			continue;
		d->fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (d->fd < 0)
			continue;
		d->dw = lines_begin(d->fd, &d->elf);
		if (!d->dw) {
			close(d->fd);
			d->fd = -1;
		}
	}
}

static void *prefetch_main(void *arg)
{
	struct srclines *sl = arg;
	struct src_prefetch *pf = sl->pf;

	pthread_mutex_lock(&sl->lock);
	for (;;) {
		struct src_dso *d;

		while (!pf->stop && pf->next == pf->nr)
			pthread_cond_wait(&pf->cond, &sl->lock);
		if (pf->stop)
			break;
		d = pf->v[pf->next++];
		if (!d)
			continue; /* src_dso() opened it itself */
		d->busy = true;
		pthread_mutex_unlock(&sl->lock);
		lines_open(d, d->symsrc, d->name);
		pthread_mutex_lock(&sl->lock);
		d->busy = false;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&sl->lock);
	return NULL;
}

/* Whether queued entry d is the binary of dso: the same file, its symbols from the same file. */
static bool queued_is(const struct src_dso *d, const struct dso *dso)
{
	return !strcmp(d->name, dso->name) &&
	       (d->symsrc && dso->symsrc ? !strcmp(d->symsrc, dso->symsrc) : d->symsrc == dso->symsrc);
}

/* dso's line tables from the prefetch queue (waited for when being opened); NULL: not queued. */
static struct src_dso *prefetch_take(struct srclines *sl, struct dso *dso)
{
	struct src_dso *d = NULL;
	bool started = true;
	u32 i;

	/* the symbols thread may be making the queue: look at it under the lock only */
	pthread_mutex_lock(&sl->lock);
	if (!sl->pf) {
		pthread_mutex_unlock(&sl->lock);
		return NULL;
	}
	for (i = 0; i < sl->pf->nr; i++)
		if (sl->pf->v[i] && queued_is(sl->pf->v[i], dso))
			break;
	if (i < sl->pf->nr) {
		d = sl->pf->v[i];
		while (d->busy)
			pthread_cond_wait(&sl->pf->cond, &sl->lock);
		sl->pf->v[i] = NULL;
		started = i < sl->pf->next;
	}
	pthread_mutex_unlock(&sl->lock);
	/* one not started is opened here: the thread passes it by */
	if (!started)
		lines_open(d, dso->symsrc, dso->name);
	if (d)
		d->dso = dso;
	if (d && started)
		sl->nr_ahead++;
	else if (d)
		sl->nr_here++;
	return d;
}
#endif

void srclines_prefetch(struct srclines *sl, struct dso *dso)
{
#ifdef HAVE_LIBDW
	struct src_prefetch *pf;
	struct src_dso *d;

	if (dso->kind != DSO_USER)
		return;
	pthread_mutex_lock(&sl->lock);
	if (!sl->cpus) {
		const char *env = getenv("PREC_SRCLINE_AHEAD");
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		sl->cpus = n > 0 && !(env && !strcmp(env, "0")) ? (int)n : 1;
	}
	pf = sl->pf;
	/* on one CPU the thread would only take turns with the main one */
	if (sl->cpus < 2 || (pf && pf->stop))
		goto out;
	if (!pf) {
		pf = xcalloc(1, sizeof(*pf));
		pthread_cond_init(&pf->cond, NULL);
		sl->pf = pf;
		if (pthread_create(&pf->thread, NULL, prefetch_main, sl)) {
			pthread_cond_destroy(&pf->cond);
			free(pf);
			sl->pf = NULL;
			sl->cpus = 1; /* not again: src_dso() opens them */
			goto out;
		}
	}
	for (u32 i = 0; i < pf->nr; i++)
		if (pf->v[i] && queued_is(pf->v[i], dso))
			goto out;
	if (pf->nr == pf->cap) {
		pf->cap = pf->cap ? 2 * pf->cap : 16;
		pf->v = xrealloc(pf->v, pf->cap * sizeof(*pf->v));
	}
	d = xcalloc(1, sizeof(*d));
	d->fd = -1;
	d->symsrc = dso->symsrc ? xstrdup(dso->symsrc) : NULL;
	d->name = xstrdup(dso->name);
	pf->v[pf->nr++] = d;
	pthread_cond_broadcast(&pf->cond);
out:
	pthread_mutex_unlock(&sl->lock);
#else
	(void)sl;
	(void)dso;
#endif
}

#ifdef HAVE_LIBDW
static struct src_dso *src_dso(struct srclines *sl, struct dso *dso)
{
	struct src_dso *d;

	for (d = sl->dsos; d; d = d->next)
		if (d->dso == dso)
			return d;
	d = prefetch_take(sl, dso);
	if (!d) {
		d = xcalloc(1, sizeof(*d));
		d->dso = dso;
		d->fd = -1;
		/* the kernel, [vdso], JIT maps: no line tables at hand, as perf's */
		if (dso->kind == DSO_USER) {
			lines_open(d, dso->symsrc, dso->name);
			sl->nr_here++;
		}
	}
	d->next = sl->dsos;
	sl->dsos = d;
	return d;
}

/* "file:line" as perf shows it: the base name of the file. */
static char *file_line(const char *file, int line)
{
	const char *base = strrchr(file, '/');

	return xasprintf("%s:%u", base ? base + 1 : file, (unsigned)line);
}

/* "file:line" of ELF address addr in the unit cu; NULL when its line table has no file there. */
static char *unit_line(Dwarf_Die *cu, u64 addr)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, addr);
	const char *file = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	int lineno = 0;

	if (!file)
		return NULL;
	dwarf_lineno(line, &lineno);
	return file_line(file, lineno);
}

/*
 * "file:line" of ELF address addr, from the line tables of dso; where they do not hold it, what
 * perf makes of addr2line's answer: "??:0" outside every unit, ":0" in a unit without that line.
 * NULL when dso has no line tables (perf's fallbacks then).
 */
static char *dwarf_line(struct srclines *sl, struct dso *dso, u64 addr)
{
	struct src_dso *d = src_dso(sl, dso);
	Dwarf_Die cu;
	char *s;

	if (!d->dw)
		return NULL;
	if (!dwarf_addrdie(d->dw, addr, &cu))
		return xstrdup("??:0");
	/* a unit that holds the address but no line for it: addr2line's ":?", perf's ":0" */
	s = unit_line(&cu, addr);
	return s ? s : xstrdup(":0");
}
#else
static char *dwarf_line(struct srclines *sl, struct dso *dso, u64 addr)
{
	(void)sl;
	(void)dso;
	(void)addr;
	return NULL;
}
#endif

static const char *lookup(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel,
			  bool chain)
{
	char *s;
	u64 addr;

	if (!dso)
		return text_intern(sl, xstrdup("??:0"));
	addr = dso->kind == DSO_USER ? objdump_addr(dso, rel) : rel;
	s = dwarf_line(sl, dso, addr);
	if (!s && sym)
		s = xasprintf("%s+%" PRIu64, chain ? "" : sym_name(sym), rel - sym->start);
	else if (!s)
		s = xasprintf("%s[%" PRIx64 "]", dso->short_name, addr);
	return text_intern(sl, s);
}

static const char *get(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel,
		       bool chain)
{
	struct src_entry key = {dso, rel, chain, NULL};
	u32 slot;
	int64_t i;

	if (!hash_index_reserve(&sl->ix, entry_hash_at, sl))
		die("out of memory");
	slot = hash_index_find(&sl->ix, entry_hash(dso, rel) ^ chain, entry_eq, sl, &key, &i);
	if (i >= 0)
		return sl->v[i].text;
	key.text = lookup(sl, dso, sym, rel, chain);
	if (sl->nr == sl->cap) {
		sl->cap = sl->cap ? 2 * sl->cap : 1024;
		sl->v = xrealloc(sl->v, sl->cap * sizeof(*sl->v));
	}
	sl->v[sl->nr] = key;
	hash_index_set(&sl->ix, slot, sl->nr++);
	return key.text;
}

const char *srcline_get(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel)
{
	return get(sl, dso, sym, rel, false);
}

const char *srcline_chain_get(struct srclines *sl, struct dso *dso, const struct sym *sym,
			      u64 rel)
{
	return get(sl, dso, sym, rel, true);
}

/* ---------------------------------------------------------------------------------------- */
/* Inlined functions */

static u64 inl_hash_at(const void *ctx, u32 i)
{
	const struct srclines *sl = ctx;

	return entry_hash(sl->inl[i].dso, sl->inl[i].rel);
}

static bool inl_eq(const void *ctx, u32 i, const void *key)
{
	const struct srclines *sl = ctx;
	const struct src_inl *k = key;

	return sl->inl[i].dso == k->dso && sl->inl[i].rel == k->rel;
}

#ifdef HAVE_LIBDW
/*
 * The next function at the address, innermost first: its line is where the one before was
 * inlined into it (the first's, the address's own).
 */
static void name_add(struct srclines *sl, const char *name)
{
	if (sl->nnames == sl->namecap) {
		sl->namecap = sl->namecap ? 2 * sl->namecap : 16;
		sl->names = xrealloc(sl->names, sl->namecap * sizeof(*sl->names));
	}
	sl->names[sl->nnames].name = text_intern(sl, xstrdup(name));
	sl->names[sl->nnames++].line = sl->call_line;
	sl->call_line = NULL;
}

/*
 * The name addr2line gives a function, which perf shows: its linkage name where it has one
 * (glibc's internal aliases, "__GI___clock_gettime"; C++ names, demangled as perf does), else
 * its name, either found through DW_AT_abstract_origin or DW_AT_specification.
 */
static const char *function_name(Dwarf_Die *die)
{
	static const int attrs[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name};
	Dwarf_Attribute a;
	const char *name;
	static char buf[4096];

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		name = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &a));
		if (name)
			return demangle(name, buf, sizeof(buf));
	}
	name = dwarf_diename(die);
	return name ? name : "??";
}

/* "file:line" of the call an inlined function's entry die stands for; NULL without a file. */
static const char *call_site(struct srclines *sl, Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line = 0;
	Dwarf_Files *files;
	size_t nfiles;
	const char *name;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || file >= nfiles)
		return NULL;
	name = dwarf_filesrc(files, file, NULL, NULL);
	if (!name)
		return NULL;
	dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line);
	return text_intern(sl, file_line(name, (int)line));
}

/*
 * Below die, the functions whose code holds ELF address addr, innermost first: the inlined
 * ones (addr2line -i's list, which perf reads), then the one that holds them. Walked by hand:
 * dwarf_getscopes() goes on from an inlined function into its abstract definition, not into
 * the function it was inlined into. Return: whether one was found.
 */
static bool scope_names(struct srclines *sl, Dwarf_Die *cu, Dwarf_Die *die, u64 addr, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		bool fn = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;

		/* functions of C++ sit in namespaces, which have no addresses */
		if (tag == DW_TAG_namespace) {
			if (scope_names(sl, cu, &child, addr, depth + 1))
				return true;
			continue;
		}
		if (!fn && tag != DW_TAG_lexical_block)
			continue;
		if (dwarf_haspc(&child, addr) <= 0)
			continue;
		if (scope_names(sl, cu, &child, addr, depth + 1) && !fn)
			return true;
		if (!fn)
			continue;
		name_add(sl, function_name(&child));
		if (tag == DW_TAG_inlined_subroutine)
			sl->call_line = call_site(sl, cu, &child);
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void dwarf_inlines(struct srclines *sl, struct dso *dso, u64 addr)
{
	struct src_dso *d = src_dso(sl, dso);
	Dwarf_Die cu;
	char *line;

	if (!d->dw || !dwarf_addrdie(d->dw, addr, &cu))
		return;
	line = unit_line(&cu, addr);
	sl->call_line = line ? text_intern(sl, line) : NULL;
	scope_names(sl, &cu, &cu, addr, 0);
	sl->call_line = NULL;
}
#else
static void dwarf_inlines(struct srclines *sl, struct dso *dso, u64 addr)
{
	(void)sl;
	(void)dso;
	(void)addr;
}
#endif

static u32 isym_hash(const struct sym *base, const char *name)
{
	return (u32)hash_mix64((u64)(uintptr_t)base * 31 ^ (u64)(uintptr_t)name);
}

static u32 name_hash(const char *name)
{
	return (u32)hash_mix64((u64)(uintptr_t)name);
}

/* A table of chains twice as big, its entries linked through the member at offset link. */
static struct src_isym **rehash(struct src_isym **old, u32 old_mask, u32 mask, size_t link,
				bool by_name)
{
	struct src_isym **t = xcalloc(mask + 1, sizeof(*t));

	for (u32 i = 0; old && i <= old_mask; i++) {
		struct src_isym *y, *n;

		for (y = old[i]; y; y = n) {
			struct src_isym **next = (struct src_isym **)(void *)((char *)y + link);
			u32 h = (by_name ? name_hash(y->sym.name) : isym_hash(y->base, y->sym.name)) &
				mask;

			n = *next;
			*next = t[h];
			t[h] = y;
		}
	}
	free(old);
	return t;
}

/* The first inlined function's symbol called name (interned), NULL when there is none yet. */
static struct src_isym *canon_find(const struct srclines *sl, const char *name)
{
	struct src_isym *y;

	for (y = sl->canons ? sl->canons[name_hash(name) & sl->canon_mask] : NULL; y;
	     y = y->next_name)
		if (y->sym.name == name)
			return y;
	return NULL;
}

/* The symbol perf makes for an inlined function called name (interned) in base's code. */
static const struct sym *inline_sym(struct srclines *sl, const struct sym *base, const char *name)
{
	struct src_isym *y, *canon;
	u32 h;

	if (!sl->isyms || sl->nisyms > sl->isym_mask) {
		u32 mask = sl->isyms ? 2 * sl->isym_mask + 1 : 255;

		sl->isyms = rehash(sl->isyms, sl->isym_mask, mask, offsetof(struct src_isym, next),
				   false);
		sl->isym_mask = mask;
	}
	h = isym_hash(base, name) & sl->isym_mask;
	for (y = sl->isyms[h]; y; y = y->next)
		if (y->base == base && y->sym.name == name)
			return &y->sym;
	canon = canon_find(sl, name);
	y = xcalloc(1, sizeof(*y));
	y->canon = canon ? &canon->sym : &y->sym;
	y->base = base;
	y->sym.start = base->start;
	y->sym.end = base->end;
	y->sym.name = name;
	y->sym.namelen = (u32)strlen(name);
	y->sym.binding = base->binding;
	y->sym.inlined = 1;
	y->next = sl->isyms[h];
	sl->isyms[h] = y;
	sl->nisyms++;
	if (!canon) {
		if (!sl->canons || sl->ncanons > sl->canon_mask) {
			u32 mask = sl->canons ? 2 * sl->canon_mask + 1 : 255;

			sl->canons = rehash(sl->canons, sl->canon_mask, mask,
					    offsetof(struct src_isym, next_name), true);
			sl->canon_mask = mask;
		}
		h = name_hash(name) & sl->canon_mask;
		y->next_name = sl->canons[h];
		sl->canons[h] = y;
		sl->ncanons++;
	}
	return &y->sym;
}

u32 srcline_inlines(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel,
		    const struct srcline_func **funcs)
{
	struct src_inl key = {dso, rel, 0, 0};
	u32 slot;
	int64_t i;

	if (!hash_index_reserve(&sl->iix, inl_hash_at, sl))
		die("out of memory");
	slot = hash_index_find(&sl->iix, entry_hash(dso, rel), inl_eq, sl, &key, &i);
	if (i < 0) {
		sl->nnames = 0;
		if (dso && dso->kind == DSO_USER && sym)
			dwarf_inlines(sl, dso, objdump_addr(dso, rel));
		if (sl->nfuncs + sl->nnames > sl->funccap) {
			sl->funccap = 2 * (sl->nfuncs + sl->nnames) + 256;
			sl->funcs = xrealloc(sl->funcs, sl->funccap * sizeof(*sl->funcs));
		}
		key.first = sl->nfuncs;
		key.n = sl->nnames;
		/* perf's new_inline_sym(): the symbol's own name is the symbol, not an inlined one */
		for (u32 j = 0; j < sl->nnames; j++) {
			const char *name = sl->names[j].name;
			struct srcline_func *f = &sl->funcs[sl->nfuncs++];

			f->sym = strcmp(name, sym_name(sym)) ? inline_sym(sl, sym, name) : sym;
			f->line = sl->names[j].line;
		}
		if (sl->ninl == sl->inlcap) {
			sl->inlcap = sl->inlcap ? 2 * sl->inlcap : 1024;
			sl->inl = xrealloc(sl->inl, sl->inlcap * sizeof(*sl->inl));
		}
		sl->inl[sl->ninl] = key;
		hash_index_set(&sl->iix, slot, sl->ninl);
		i = sl->ninl++;
	}
	*funcs = sl->funcs + sl->inl[i].first;
	return sl->inl[i].n;
}

void srclines_stats(const struct srclines *sl, u32 *ahead, u32 *here)
{
	*ahead = sl->nr_ahead;
	*here = sl->nr_here;
}

const struct sym *srcline_inline_canon(const struct sym *sym)
{
	return sym->inlined ? ((const struct src_isym *)(const void *)sym)->canon : sym;
}
