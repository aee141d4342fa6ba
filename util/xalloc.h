/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PREC_UTIL_XALLOC_H
#define PREC_UTIL_XALLOC_H

#include <stddef.h>

/*
 * Allocation for the tool (not for format/, which returns -ENOMEM): running out of memory is
 * not something a profiler can recover from, so these die with a message instead.
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* asprintf that dies on failure. */
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);

#endif
