/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files behind symbols.h share among themselves. The rest of the report uses
 * symbols.h only. They stand in layers, each using only those below it, so that any of them
 * can be read without the ones above:
 *
 *   kernel.c           the kernel and its modules, loaded at once over the table
 *   dso.c              the table of dsos, loading ahead, dso_load() handing a dso to its loader
 *   symbol-elf.c       the symbols of ELF files and [vdso]
 *   kernel-prefetch.c  kallsyms read ahead and made into symbol tables, in a thread
 *   sym.c              a dso's symbol array, the pool of its names, their demangling
 *   demangle.c         C++ names as perf shows them
 *
 * The sections below go from the bottom up.
 */
#ifndef PREC_REPORT_SYMBOLS_INTERNAL_H
#define PREC_REPORT_SYMBOLS_INTERNAL_H

#include <elf.h>
#include <stdatomic.h>

#include "report/symbols.h"

/* ---- demangle.c ---- */

/**
 * demangle_init - look up the C++ runtime's demangler, once: call it before threads use
 * demangle().
 *
 * Return: whether there is one.
 */
bool demangle_init(void);

/**
 * demangle - name demangled as perf shows it, into buf (len bytes).
 *
 * Return: buf, or name itself when it is not a C++ name or does not demangle.
 */
const char *demangle(const char *name, char *buf, size_t len);

/* ---- sym.c ---- */

/**
 * pool_strndup - copy n bytes of s into p, NUL-terminated.
 *
 * Return: the copy; it lives as long as p (allocation failure dies).
 */
const char *pool_strndup(struct strpool *p, const char *s, size_t n);

/**
 * pool_free - free every string of p and empty it.
 */
void pool_free(struct strpool *p);

/**
 * sym_demangle_into - demangle s's name in place, the new name kept in pool.
 */
void sym_demangle_into(struct sym *s, struct strpool *pool);

/**
 * sym_demangle_exit - free the names sym_demangle() made.
 */
void sym_demangle_exit(void);

/* The duplicates dso_sort_syms_log() dropped, in the order it dropped them. */
struct sym_log {
	struct sym_erased {
		u32 seq;   /* the dropped symbol's */
		u32 added; /* how many symbols had been added by then */
		u64 start;
	} *v;
	u32 nr, cap;
};

/**
 * dso_sort_syms_log - dso_sort_syms(), noting in log (when not NULL) each duplicate it drops.
 */
void dso_sort_syms_log(struct dso *dso, bool fixup_ends, struct sym_log *log);

/**
 * sym_log_free - free what log holds and empty it.
 */
void sym_log_free(struct sym_log *log);

/**
 * dso_pick_overlaps - where the symbols of dso overlap, note for each stretch of addresses the
 * one perf's lookup finds (dso->pick), from the order they were added and log, the duplicates
 * dropped since; call it after the last dso_sort_syms_log(), which drops the notes.
 */
void dso_pick_overlaps(struct dso *dso, const struct sym_log *log);

/* ---- kernel-prefetch.c ---- */

/*
 * The symbols of a kallsyms text as kernel_load() takes them, at the addresses the text gives:
 * one table for the kernel, one for each module the text names, each sorted as
 * dso_sort_syms(dso, true) leaves it.
 */
struct ksym_tables {
	struct dso *kernel; /* a dso of no name, only its symbols used */
	struct ksym_module {
		const char *name; /* in text, not NUL-terminated, without the brackets */
		size_t len;
		struct dso *dso;
	} *mods;
	u32 nr_mods, cap_mods;
	u64 text_addr, stext_addr; /* the kernel's first _text, and the _stext before; or 0 */
	bool nonzero; /* some address is not 0 (kernel.kptr_restrict hides them all); when none
		       * is, the tables are left unsorted */
	struct ksym_text {
		char *buf; /* mapped or malloc'ed */
		size_t len;
		bool mapped;
	} text;
};

/* Which kallsyms types perf 6.1 keeps (symbol_type__filter()) and with which binding. */
static inline bool ksym_binding(char type, u8 *binding)
{
	char t = type & ~0x20; /* upper case */

	if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
		return false;
	*binding = type == 'W' ? STB_WEAK : type == t ? STB_GLOBAL : STB_LOCAL;
	return true;
}

/**
 * ksym_tables_read - read the kallsyms file at path and make its tables, in this thread.
 *
 * Return: the tables (ksym_tables_free() frees them), or NULL when the file cannot be read.
 */
struct ksym_tables *ksym_tables_read(const char *path);

/**
 * ksym_tables_free - free t, its symbols and its text; NULL is ignored.
 */
void ksym_tables_free(struct ksym_tables *t);

/**
 * kernel_prefetched - the tables kernel_prefetch()'s thread made of path (NULL: of whichever
 * file), waiting for it to finish; with cancel, the thread is stopped where it is (nobody needs
 * kallsyms any more).
 *
 * Return: the tables (the caller frees them with ksym_tables_free()), or NULL when nothing was
 * read, it was another file, or with cancel.
 */
struct ksym_tables *kernel_prefetched(struct dsos *d, const char *path, bool cancel);

/* ---- symbol-elf.c ---- */

/* Set in dsos_prefetch()'s thread, which must not print. */
extern __thread bool in_prefetch_thread;

/**
 * load_elf_dso_quiet - read the symbols of a user-space ELF dso (or [vdso]) and set its status;
 * prints nothing, as it may run in the prefetch thread.
 */
void load_elf_dso_quiet(struct dsos *d, struct dso *dso);

/**
 * load_elf_report - say, from the main thread, what load_elf_dso_quiet() found for dso: a
 * build-id mismatch as a warning, the rest at -v.
 */
void load_elf_report(struct dsos *d, struct dso *dso);

/**
 * load_elf_dso - load_elf_dso_quiet() then load_elf_report().
 */
void load_elf_dso(struct dsos *d, struct dso *dso);

/* ---- dso.c ---- */

/**
 * dso_free - free dso, its symbols and their names.
 */
void dso_free(struct dso *dso);

/**
 * dsos_find - the dso of that name.
 *
 * Return: the dso, or NULL when there is none (nothing is created).
 */
struct dso *dsos_find(struct dsos *d, const char *name);

#endif
