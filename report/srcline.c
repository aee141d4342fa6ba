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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#endif

#include "report/srcline.h"
#include "util/hash-index.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

/* A binary's line tables, opened on first use. */
struct src_dso {
	struct dso *dso;
	struct src_dso *next;
#ifdef HAVE_LIBDW
	Dwarf *dw; /* NULL: no line tables */
	int fd;
#endif
};

struct src_entry {
	struct dso *dso;
	u64 rel;
	const char *text;
};

struct srclines {
	struct src_entry *v; /* each (dso, rel) looked up, found through ix */
	u32 nr, cap;
	struct hash_index ix;
	char **texts; /* each text once, found through tix: rows compare them by pointer */
	u32 ntexts, tcap;
	struct hash_index tix;
	struct src_dso *dsos;
};

static u64 entry_hash(struct dso *dso, u64 rel)
{
	return hash_mix64((u64)(uintptr_t)dso ^ rel * 0x9e3779b97f4a7c15ULL);
}

static u64 entry_hash_at(const void *ctx, u32 i)
{
	const struct srclines *sl = ctx;

	return entry_hash(sl->v[i].dso, sl->v[i].rel);
}

static bool entry_eq(const void *ctx, u32 i, const void *key)
{
	const struct srclines *sl = ctx;
	const struct src_entry *k = key;

	return sl->v[i].dso == k->dso && sl->v[i].rel == k->rel;
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
	return xcalloc(1, sizeof(struct srclines));
}

void srclines_free(struct srclines *sl)
{
	if (!sl)
		return;
	for (struct src_dso *d = sl->dsos, *n; d; d = n) {
		n = d->next;
#ifdef HAVE_LIBDW
		if (d->dw)
			dwarf_end(d->dw);
		if (d->fd >= 0)
			close(d->fd);
#endif
		free(d);
	}
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
static struct src_dso *src_dso(struct srclines *sl, struct dso *dso)
{
	struct src_dso *d;
	const char *paths[2] = {dso->symsrc, dso->name};

	for (d = sl->dsos; d; d = d->next)
		if (d->dso == dso)
			return d;
	d = xcalloc(1, sizeof(*d));
	d->dso = dso;
	d->fd = -1;
	d->next = sl->dsos;
	sl->dsos = d;
	if (dso->kind != DSO_USER)
		return d; /* the kernel, [vdso], JIT maps: no line tables at hand, as perf's */
	for (u32 i = 0; i < 2 && !d->dw; i++) {
		if (!paths[i] || (i && paths[0] && !strcmp(paths[0], paths[1])))
			continue;
		d->fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (d->fd < 0)
			continue;
		d->dw = dwarf_begin(d->fd, DWARF_C_READ);
		if (!d->dw) {
			close(d->fd);
			d->fd = -1;
		}
	}
	return d;
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
	Dwarf_Line *line;
	const char *file, *base;
	int lineno = 0;

	if (!d->dw)
		return NULL;
	if (!dwarf_addrdie(d->dw, addr, &cu))
		return xstrdup("??:0");
	/* a unit that holds the address but no line for it: addr2line's ":?", perf's ":0" */
	line = dwarf_getsrc_die(&cu, addr);
	file = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	if (!file)
		return xstrdup(":0");
	dwarf_lineno(line, &lineno);
	base = strrchr(file, '/');
	return xasprintf("%s:%u", base ? base + 1 : file, (unsigned)lineno);
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

static const char *lookup(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel)
{
	char *s;
	u64 addr;

	if (!dso)
		return text_intern(sl, xstrdup("??:0"));
	addr = dso->kind == DSO_USER ? objdump_addr(dso, rel) : rel;
	s = dwarf_line(sl, dso, addr);
	if (!s && sym)
		s = xasprintf("%s+%" PRIu64, sym_name(sym), rel - sym->start);
	else if (!s)
		s = xasprintf("%s[%" PRIx64 "]", dso->short_name, addr);
	return text_intern(sl, s);
}

const char *srcline_get(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel)
{
	struct src_entry key = {dso, rel, NULL};
	u32 slot;
	int64_t i;

	if (!hash_index_reserve(&sl->ix, entry_hash_at, sl))
		die("out of memory");
	slot = hash_index_find(&sl->ix, entry_hash(dso, rel), entry_eq, sl, &key, &i);
	if (i >= 0)
		return sl->v[i].text;
	key.text = lookup(sl, dso, sym, rel);
	if (sl->nr == sl->cap) {
		sl->cap = sl->cap ? 2 * sl->cap : 1024;
		sl->v = xrealloc(sl->v, sl->cap * sizeof(*sl->v));
	}
	sl->v[sl->nr] = key;
	hash_index_set(&sl->ix, slot, sl->nr++);
	return key.text;
}
