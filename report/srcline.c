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
#include "util/hash.h"
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
	const char *text; /* NULL: an empty slot */
};

/* The texts, each once: rows compare source lines by pointer. */
struct src_text {
	char *s;
	u32 hash;
};

struct srclines {
	struct src_entry *v; /* open addressing on (dso, rel) */
	u32 mask, nr;
	struct src_text *texts;
	u32 tmask, ntexts;
	struct src_dso *dsos;
};

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
	struct srclines *sl = xcalloc(1, sizeof(*sl));

	sl->mask = 1023;
	sl->v = xcalloc(sl->mask + 1, sizeof(*sl->v));
	sl->tmask = 255;
	sl->texts = xcalloc(sl->tmask + 1, sizeof(*sl->texts));
	return sl;
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
	for (u32 i = 0; i <= sl->tmask; i++)
		free(sl->texts[i].s);
	free(sl->texts);
	free(sl->v);
	free(sl);
}

/* The one copy of text s (taken over). */
static const char *text_intern(struct srclines *sl, char *s)
{
	u32 h = hash_fnv1a32_str(s), i;

	if ((sl->ntexts + 1) * 2 > sl->tmask) {
		u32 mask = sl->tmask * 2 + 1;
		struct src_text *t = xcalloc(mask + 1, sizeof(*t));

		for (u32 k = 0; k <= sl->tmask; k++) {
			if (!sl->texts[k].s)
				continue;
			for (i = sl->texts[k].hash & mask; t[i].s; i = (i + 1) & mask)
				;
			t[i] = sl->texts[k];
		}
		free(sl->texts);
		sl->texts = t;
		sl->tmask = mask;
	}
	for (i = h & sl->tmask; sl->texts[i].s; i = (i + 1) & sl->tmask) {
		if (sl->texts[i].hash == h && !strcmp(sl->texts[i].s, s)) {
			free(s);
			return sl->texts[i].s;
		}
	}
	sl->texts[i].s = s;
	sl->texts[i].hash = h;
	sl->ntexts++;
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
	u32 h = (u32)hash_mix64((u64)(uintptr_t)dso ^ rel * 0x9e3779b97f4a7c15ULL), i;
	const char *text;

	for (i = h & sl->mask; sl->v[i].text; i = (i + 1) & sl->mask)
		if (sl->v[i].dso == dso && sl->v[i].rel == rel)
			return sl->v[i].text;
	sl->v[i].dso = dso;
	sl->v[i].rel = rel;
	sl->v[i].text = text = lookup(sl, dso, sym, rel);
	if (++sl->nr * 2 > sl->mask) {
		u32 mask = sl->mask * 2 + 1;
		struct src_entry *t = xcalloc(mask + 1, sizeof(*t));

		for (u32 k = 0; k <= sl->mask; k++) {
			struct src_entry *e = &sl->v[k];

			if (!e->text)
				continue;
			h = (u32)hash_mix64((u64)(uintptr_t)e->dso ^ e->rel * 0x9e3779b97f4a7c15ULL);
			for (i = h & mask; t[i].text; i = (i + 1) & mask)
				;
			t[i] = *e;
		}
		free(sl->v);
		sl->v = t;
		sl->mask = mask;
	}
	return text;
}
