/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Binaries ("dsos", as perf calls them) and their symbols, for prec report.
 *
 * A dso is loaded the first time an address in it is looked up: the symbols of an ELF file from
 * .symtab, else .dynsym, taken from the first of these that has them and whose build-id matches
 * the one the perf.data file recorded: the build-id cache (~/.debug/.build-id/xx/yyyy...), the
 * distribution's debug file (/usr/lib/debug/.build-id/xx/yyyy....debug), the path itself. The
 * kernel's symbols come from /proc/kallsyms (and its modules from /proc/modules) at report time,
 * as perf does; [vdso] from prec's own vdso; JIT code from /tmp/perf-PID.map.
 *
 * Symbols are kept in one array per dso sorted by address and found by binary search (where
 * they overlap, the search is over stretches of addresses, each naming the symbol perf finds
 * there: see dso_pick_overlaps()). Their addresses are what a map gives for an address in it
 * (pgoff plus the distance into the map): for files, the file offset (a symbol's ELF virtual
 * address less the load bias, p_vaddr - p_offset, of the PT_LOAD of the mapped file that holds
 * it, as perf does); for the kernel, the address itself.
 *
 * dso.c holds the table of dsos, JIT maps and the thread that loads ahead; sym.c the symbol
 * arrays and their names; symbol-elf.c reads ELF files and [vdso]; kernel.c reads kallsyms and
 * the modules, with kernel-prefetch.c reading kallsyms ahead; demangle.c turns C++ names into
 * perf's. What they share among themselves, and how they stand on one another, is in
 * symbols-internal.h.
 */
#ifndef PREC_REPORT_SYMBOLS_H
#define PREC_REPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "format/ondisk.h"
#include "util/build-id.h"

struct sym {
	u64 start, end; /* [start, end); a zero-size symbol matches only its start */
	const char *name;
	u32 namelen;
	u32 frame;  /* the session's frame for it, once there is one (0 until then) */
	u8 binding; /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	u8 mangled; /* name is still the C++ mangled name: sym_name() demangles it once */
	u8 inlined; /* a function inlined into another (report/srcline.h): perf's "(inlined)" */
	/* name is "demangled\0mangled": the name in the binary follows (sym_raw_name()) */
	u8 demangled;
	u32 seq;    /* the order it was added in: perf's lookup among overlapping symbols uses it */
};

/*
 * sym_demangle - demangle s's name in place (main thread only), as perf shows C++ names.
 *
 * Return: the name.
 */
const char *sym_demangle(struct sym *s);

/* The name of s, demangled: most symbols of a binary are never shown, so that waits till then. */
static inline const char *sym_name(const struct sym *s)
{
	return s->mangled ? sym_demangle((struct sym *)s) : s->name;
}

/*
 * The name of s as the binary has it (a C++ name mangled), whether or not sym_name() has
 * demangled it; the demangled name is what the debug information names an inlined function.
 */
static inline const char *sym_raw_name(const struct sym *s)
{
	return s->demangled ? s->name + s->namelen + 1 : s->name;
}

static inline u32 sym_namelen(const struct sym *s)
{
	if (s->mangled)
		sym_demangle((struct sym *)s);
	return s->namelen;
}

enum dso_kind {
	DSO_USER,    /* an ELF file mapped by a process */
	DSO_KERNEL,  /* [kernel.kallsyms] */
	DSO_MODULE,  /* a kernel module, [name] */
	DSO_VDSO,    /* [vdso] */
	DSO_PERFMAP, /* anonymous executable memory: /tmp/perf-PID.map, as perf names it */
	DSO_NOSYMS,  /* [heap], [stack], [vsyscall]: never has symbols */
	DSO_KSYMBOL, /* kernel code announced by a KSYMBOL record (BPF programs, trampolines) */
};

/* Why a dso has no symbols, for the summary of what could not be resolved. */
enum dso_status {
	DSO_NOT_LOADED,
	DSO_OK,
	DSO_MISSING,	 /* no file at that path (nor in the build-id cache) */
	DSO_STRIPPED,	 /* an ELF file without function symbols */
	DSO_MISMATCH,	 /* the file on disk has another build-id than the recording */
	DSO_NOT_ELF,	 /* unreadable, or not an ELF file */
	DSO_NO_KALLSYMS, /* kernel: /proc/kallsyms unreadable or all zeros (kptr_restrict) */
};

#define SYM_BLOCK 64
#define NO_PICK UINT32_MAX

struct dso_seg {
	u64 vaddr, memsz, offset;
};

struct strpool_chunk {
	struct strpool_chunk *next;
	char data[];
};

struct strpool {
	struct strpool_chunk *chunks;
	char *cur;
	size_t left;
};

struct dso {
	char *name;		/* long name: the path the map gave, or [kernel.kallsyms] ... */
	const char *short_name; /* what perf shows: the basename, or the bracketed name */
	u32 short_len;
	enum dso_kind kind;
	enum dso_status status;
	bool loaded;
	bool dynsym_only;  /* its symbols came from .dynsym: no .symtab anywhere */
	bool has_build_id; /* from the perf.data file's BUILD_ID feature */
	u8 build_id_size;
	u8 build_id[BUILD_ID_MAX];
	int pid; /* DSO_PERFMAP: whose map file */

	struct sym *syms; /* sorted by start */
	u64 *starts;	  /* their starts, for the binary search (after dso_sort_syms()) */
	u64 *starts_idx;  /* every SYM_BLOCK-th of them, for big tables (NULL for small ones) */
	u32 nr_idx;
	u32 nr_syms, cap_syms;
	u32 nr_added; /* symbols ever added, duplicates included: the next sym's seq */
	/*
	 * Where symbols overlap: starts[] holds nr_picks stretches of addresses instead, and
	 * pick[] the index in syms of the one perf finds in each (NO_PICK: none); NULL otherwise.
	 */
	u32 *pick;
	u32 nr_picks;
	struct strpool strings; /* owns the names of syms */

	struct dso_seg *segs; /* the mapped file's PT_LOADs: where its symbols sit in the file */
	u32 nr_segs;
	char *symsrc; /* the file the symbols came from */
	char *binpath; /* the mapped file itself, its build-id checked: the unwinder's; or NULL */

	u64 unresolved; /* samples whose ip found no symbol here */
	u32 hash;
	struct dso *hnext;
	struct dso *next; /* every dso, in creation order */
};

struct dsos {
	struct dso **table;
	u32 mask, nr;
	struct dso *first, *last;
	/* the perf.data file's BUILD_ID feature: name -> build-id, applied to new dsos */
	struct bid_entry *bids;
	u32 nr_bids;
	char *home_debug;		/* ~/.debug */
	struct kallsyms_prefetch *kpre; /* kernel_prefetch()'s thread, until kernel_load() */
	struct dso_prefetch *prefetch;	/* dsos_prefetch()'s thread */
	/* dsos_on_load()'s */
	void (*loaded_fn)(void *arg, struct dso *dso);
	void *loaded_arg;
};

/**
 * dsos_init - set up the table; build_ids is the BUILD_ID feature payload (or NULL).
 */
void dsos_init(struct dsos *d, const void *build_ids, size_t len);
/* Free every dso and its symbols. */
void dsos_exit(struct dsos *d);

/**
 * dsos_findnew - the dso of that name, created (not loaded) when new.
 *
 * Return: the dso; never NULL (allocation failure dies).
 */
struct dso *dsos_findnew(struct dsos *d, const char *name, enum dso_kind kind);

/**
 * dsos_prefetch - start loading, in a thread, the symbols of the binaries the file has build-ids
 * for; dso_load() takes them. The thread is stopped by dsos_exit().
 */
void dsos_prefetch(struct dsos *d);

/**
 * dsos_on_load - have fn called when a user binary's symbols were loaded, on the thread that
 * loaded them (dsos_prefetch()'s too, with its copy of the dso, before dso_load() takes it);
 * NULL: no more.
 */
void dsos_on_load(struct dsos *d, void (*fn)(void *arg, struct dso *dso), void *arg);

/**
 * dso_load - read the symbols of a user-space dso (ELF, vdso, perf map) once.
 *
 * Never fails: a dso that has no symbols gets a status that says why.
 */
void dso_load(struct dsos *d, struct dso *dso);

/**
 * dso_find_sym - the symbol at addr (in the dso's own space), loading the dso first.
 *
 * Return: the symbol, or NULL.
 */
const struct sym *dso_find_sym(struct dsos *d, struct dso *dso, u64 addr);

/**
 * dso_add_sym - add a symbol (names are copied); the array is sorted again by dso_sort_syms().
 */
void dso_add_sym(struct dso *dso, u64 start, u64 end, const char *name, size_t namelen, u8 binding);
/*
 * Sort; with fixup_ends, give zero-size symbols the start of the next as their end; then drop
 * duplicates (perf's choose_best_symbol()).
 */
void dso_sort_syms(struct dso *dso, bool fixup_ends);

/* Human words for a status ("missing", "stripped", ...). */
const char *dso_status_str(enum dso_status s);
/* Why addresses of dso found no symbol: its status, or that it has only dynamic symbols. */
const char *dso_why_unresolved(const struct dso *dso);

/*
 * Where symbols are looked for and how they are shown: perf report's --symfs, --kallsyms and
 * --no-demangle. Set before the session starts; the loaders only read it.
 */
struct symbols_conf {
	const char *symfs;    /* every path of a binary, debug file or cache is under it; or NULL */
	const char *kallsyms; /* the kernel's symbols from this file, not /proc/kallsyms */
	bool no_demangle;     /* C++ names as the binary has them */
};

extern struct symbols_conf symbols_conf;

/**
 * symfs_path - path under --symfs (or path itself without it), into buf of len bytes.
 *
 * Return: buf.
 */
char *symfs_path(char *buf, size_t len, const char *path);

/* ---- the kernel ---- */

struct kernel_info {
	u64 text_start, text_end; /* from kallsyms: _text (or _stext) and _etext; 0 if unknown */
	bool have_kallsyms;
};

struct maps;

/**
 * kernel_load - read the kallsyms kernel_kallsyms_path() names into kernel, and the symbols of
 * the modules into the module dsos of kmaps, whose addresses are taken from /proc/modules.
 * @reloc: the address of _text in the recording (the kernel MMAP's pgoff), 0 if unknown
 *
 * Return: nothing; the kernel dso's status says what happened.
 */
void kernel_load(struct dsos *d, struct dso *kernel, u64 reloc);

/**
 * kernel_kallsyms_path - where kernel_load() takes the kernel's symbols from: the build-id
 * cache's copy of the recorded kernel's kallsyms when it is there (a regular file, quick to read,
 * unlike /proc/kallsyms, which the kernel formats line by line) and was saved during this boot
 * or the recorded kernel is not the running one; else /proc/kallsyms.
 * @path: PATH_MAX bytes
 *
 * Return: 0 with the file in path, or -ENOENT when the recorded kernel is not the running one
 * and the cache has no copy of its kallsyms (path is then the copy that is missing).
 */
int kernel_kallsyms_path(const struct dsos *d, const struct dso *kernel, char *path);

/**
 * kernel_prefetch - start reading the kallsyms file path and making its symbol tables in a
 * thread, for kernel_load() to use; the thread is joined by kernel_load() or dsos_exit().
 */
void kernel_prefetch(struct dsos *d, const char *path);

/**
 * kernel_running_range - _text and _etext of the running kernel, from /proc/kallsyms (cheap:
 * only those two symbols are looked for).
 *
 * Return: 0, or -1 when kallsyms cannot be read or is restricted.
 */
int kernel_running_range(u64 *start, u64 *end);

/* One module of /proc/modules. */
struct kmodule {
	char name[64];
	u64 start, size;
};

/**
 * kernel_modules - read /proc/modules.
 *
 * Return: the number of modules (0 when the file is absent), with *mods malloc'ed.
 */
u32 kernel_modules(struct kmodule **mods);

#endif
