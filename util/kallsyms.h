/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walking /proc/kallsyms (or a file of its format, such as the build-id cache's copy), one
 * symbol at a time. Each line is "ADDRESS TYPE NAME", followed for a module's symbols (and BPF
 * programs, ftrace trampolines ...) by a tab and "[MODULE]".
 */
#ifndef PREC_UTIL_KALLSYMS_H
#define PREC_UTIL_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "format/ondisk.h"

/* One symbol; name and module point into the text being walked and are not NUL-terminated. */
struct kallsyms_sym {
	u64 addr;  /* 0 for every symbol when kernel.kptr_restrict hides the addresses */
	char type; /* nm's letter: T/t text, W/w weak, D/d data, B/b bss ... */
	const char *name;
	size_t namelen;
	const char *module; /* NULL for the core kernel */
	size_t modlen;
};

/*
 * What a walk calls for each symbol: 0 to go on, anything else to stop the walk, which then
 * returns it (so a positive value can mean "found" and a negative errno a failure).
 */
typedef int (*kallsyms_cb)(const struct kallsyms_sym *sym, void *arg);

/* Whether sym's name is name. */
static inline bool kallsyms_name_is(const struct kallsyms_sym *sym, const char *name)
{
	return sym->namelen == strlen(name) && !memcmp(sym->name, name, sym->namelen);
}

/**
 * kallsyms_parse - call cb for each symbol of text in kallsyms format (len bytes, need not end
 * in a newline); lines that are not symbols are skipped.
 *
 * Return: 0 after the last symbol, or what cb returned to stop the walk.
 */
int kallsyms_parse(const char *text, size_t len, kallsyms_cb cb, void *arg);

/**
 * kallsyms_foreach - kallsyms_parse() of the file at path, read as it is walked: the kernel
 * formats /proc/kallsyms as it is read (about 0.3 us a symbol), so the first reads are small and
 * a walk that stops near the top costs little.
 *
 * Return: 0 after the last symbol, what cb returned to stop the walk, or a negative errno when
 * the file cannot be opened or read (-ENOMEM for the buffer).
 */
int kallsyms_foreach(const char *path, kallsyms_cb cb, void *arg);

#endif
