/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source lines of sampled addresses, for prec report's srcline sort key: "file:line" from the
 * DWARF line table of the binary (or of its debug file), the file's base name as perf shows it;
 * else perf's fallbacks, "symbol+offset" (the offset in decimal) or "dso[address]". Each
 * (binary, address) is looked up once.
 */
#ifndef PREC_REPORT_SRCLINE_H
#define PREC_REPORT_SRCLINE_H

#include <stdbool.h>

#include "report/symbols.h"

struct srclines;

/**
 * srclines_available - whether prec was built with libdw, which reads the line tables.
 *
 * Return: true when it was.
 */
bool srclines_available(void);

/**
 * srclines_new - an empty cache of source lines.
 *
 * Return: the cache (never NULL: allocation failures end the program).
 */
struct srclines *srclines_new(void);

/* Free the cache, its strings and the binaries it opened. */
void srclines_free(struct srclines *sl);

/**
 * srcline_get - the source line of map-relative address rel in dso (NULL: no map), whose
 * symbol is sym (NULL: none), as perf's srcline sort key shows it.
 *
 * Return: a string the cache owns; the same pointer for the same text.
 */
const char *srcline_get(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel);

/**
 * srcline_inlines - the functions the debug information of dso places at map-relative address
 * rel: those inlined there, innermost first, then the function that holds them, each named as
 * its DWARF entry (or abstract origin) names it.
 * @names: set to the names, strings the cache owns (valid until srclines_free())
 *
 * Return: how many; 0 when the debug information does not cover rel (or without libdw).
 */
u32 srcline_inlines(struct srclines *sl, struct dso *dso, u64 rel, const char *const **names);

/**
 * srcline_inline_sym - the symbol perf makes for an inlined function called name (interned by
 * srcline_inlines()) whose code lies in base: base's range, name, marked inlined.
 *
 * Return: the one symbol of (base, name), owned by the cache.
 */
const struct sym *srcline_inline_sym(struct srclines *sl, const struct sym *base,
				     const char *name);

/**
 * srcline_inline_canon - the first symbol srcline_inline_sym() made with the name of sym, which
 * perf's call graphs do not tell from sym (they compare inlined functions by name).
 *
 * Return: that symbol; sym itself when it is not an inlined function's.
 */
const struct sym *srcline_inline_canon(const struct sym *sym);

#endif
