/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache perf keeps (~/.debug): a copy of every binary a recording hit, filed under
 * its path and build-id, so that a report still finds the recorded binary after it was rebuilt
 * or removed. The layout is perf's, so that perf and prec share one cache:
 *
 *	DIR/<absolute path>/<build-id>/elf	the binary (a hard link when it can be, else a copy)
 *	DIR/<absolute path>/<build-id>/debug	its separate debug info, when the system has it
 *	DIR/<absolute path>/<build-id>/probes	the SDT probe cache (left empty)
 *	DIR/[kernel.kallsyms]/<build-id>/kallsyms	a copy of /proc/kallsyms
 *	DIR/.build-id/<xx>/<the other 38 digits> -> ../../<path>/<build-id>
 */
#ifndef PREC_UTIL_BUILDID_CACHE_H
#define PREC_UTIL_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "format/ondisk.h"

/* What an entry holds: the file it is made from decides its name in the entry. */
enum buildid_cache_kind {
	BUILDID_CACHE_ELF,	/* a binary: "elf" (and "debug", "probes") */
	BUILDID_CACHE_KALLSYMS, /* the kernel: "kallsyms", a copy of /proc/kallsyms */
};

/**
 * buildid_cache_set_dir - the directory perf's global option names (perf --buildid-dir DIR
 * record ...): buildid_cache_dir() takes it when its caller gives none.
 * @dir: the directory, kept (not copied); NULL forgets it
 */
void buildid_cache_set_dir(const char *dir);

/**
 * buildid_cache_dir - the cache directory as perf 6.1 chooses it: @opt (the command's
 * --buildid-dir) when given, else the global one (buildid_cache_set_dir()), else buildid.dir of perf's configuration (perf_config_get()), else $HOME/.debug.
 * perf sets PERF_BUILDID_DIR for the programs it runs but does not read it, so neither does this.
 * @out: @size bytes
 *
 * Return: 0, or -ENAMETOOLONG when the path does not fit.
 */
int buildid_cache_dir(const char *opt, char *out, size_t size);

/**
 * buildid_cache_add - file the binary @src under @name and its build-id in the cache @dir, with
 * the .build-id link, unless the entry is there already.
 * @name: the name the entry is filed under: the binary's absolute path, or "[kernel.kallsyms]"
 * @src: the file to copy: the binary as this process can open it (a path under /proc/PID/root
 *       for another mount namespace); unused for BUILDID_CACHE_KALLSYMS
 *
 * Return: 1 when an entry was made, 0 when it was there, or a negative errno (-EINVAL for a
 * name that is not absolute or an empty build-id).
 */
int buildid_cache_add(const char *dir, const char *name, const char *src, const u8 *bid,
		      u8 bid_size, enum buildid_cache_kind kind);

/**
 * buildid_cache_find - the file of the cache entry for a build-id, found as perf finds it:
 * through DIR/.build-id/<xx>/<rest>, then @base ("elf", "debug" or "kallsyms") in the entry.
 * @out: @size bytes; the path, which exists when 0 is returned
 *
 * Return: 0, -ENOENT when the cache has no such file, or -ENAMETOOLONG.
 */
int buildid_cache_find(const char *dir, const u8 *bid, u8 bid_size, const char *base, char *out,
		       size_t size);

#endif
