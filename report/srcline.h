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
 * srclines_prefetch - open the line tables of dso's binary ahead, on a thread of the cache's own,
 * for lookups to come: call it, from any thread, once the dso's symbols are loaded (where they
 * came from is known); dso may be a copy that the lookups' dso will take the symbols of.
 * Nothing is done on one CPU, with PREC_SRCLINE_AHEAD=0, or for a dso that is not a user binary.
 */
void srclines_prefetch(struct srclines *sl, struct dso *dso);

/**
 * srclines_stats - how the line tables of the user binaries looked up so far were opened: ahead
 * (by srclines_prefetch()'s thread) or on first use.
 */
void srclines_stats(const struct srclines *sl, u32 *ahead, u32 *here);

/**
 * srcline_get - the source line of map-relative address rel in dso (NULL: no map), whose
 * symbol is sym (NULL: none), as perf's srcline sort key shows it.
 *
 * Return: a string the cache owns; the same pointer for the same text.
 */
const char *srcline_get(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel);

/**
 * srcline_chain_get - the source line of map-relative address rel in dso (NULL: no map), whose
 * symbol is sym (NULL: none), as perf shows it beside a call-chain entry (-g address): as
 * srcline_get(), but the fallback within a symbol is "+offset", without its name.
 *
 * Return: a string the cache owns; the same pointer for the same text.
 */
const char *srcline_chain_get(struct srclines *sl, struct dso *dso, const struct sym *sym,
			      u64 rel);

/* A function the debug information places at an address. */
struct srcline_func {
	const struct sym *sym; /* the symbol's own, or an inlined function's (sym->inlined) */
	const char *line;      /* where in it: "file:line"; NULL where no file is named */
};

/**
 * srcline_inlines - the functions the debug information of dso places at map-relative address
 * rel, whose symbol is sym: those inlined there, innermost first, then the function that holds
 * them, as perf 6.1 lists them (addr2line -i): a function named as sym is sym, any other is
 * an inlined function's symbol, one per (sym, name), with sym's range. Each line is the
 * address's for the first, and for the others the call of the one before. Looked up once per
 * (dso, rel).
 * @funcs: set to the functions, owned by the cache (valid until srclines_free())
 *
 * Return: how many; 0 when the debug information does not cover rel (or without libdw).
 */
u32 srcline_inlines(struct srclines *sl, struct dso *dso, const struct sym *sym, u64 rel,
		    const struct srcline_func **funcs);

/**
 * srcline_inline_canon - the first inlined function's symbol that srcline_inlines() made with
 * the name of sym, which perf's call graphs do not tell from sym (they compare inlined
 * functions by name).
 *
 * Return: that symbol; sym itself when it is not an inlined function's.
 */
const struct sym *srcline_inline_canon(const struct sym *sym);

#endif
