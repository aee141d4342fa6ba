/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbol addresses from /proc/kallsyms, for matching tracepoint fields to handlers. */
#ifndef PREC_OVERHEAD_KALLSYMS_H
#define PREC_OVERHEAD_KALLSYMS_H

#include "format/ondisk.h"

/**
 * kallsyms_lookup - find the addresses of nr text symbols in a kallsyms-format file.
 * @path: the file, normally /proc/kallsyms
 * @names: the symbol names (module symbols are not considered)
 * @addrs: nr entries; 0 for a name that was not found
 *
 * Return: the number of names found; -EACCES when the file hides addresses (every found address
 * reads as 0: kernel.kptr_restrict, or not privileged); another negative errno when it cannot be
 * read.
 */
int kallsyms_lookup(const char *path, const char *const *names, u64 *addrs, int nr);

#endif
