// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xalloc.h"

static void *check(void *p, size_t size)
{
	if (!p && size)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size ? size : 1), size);
}

void *xcalloc(size_t nmemb, size_t size)
{
	return check(calloc(nmemb ? nmemb : 1, size ? size : 1), nmemb * size);
}

void *xrealloc(void *ptr, size_t size)
{
	return check(realloc(ptr, size ? size : 1), size);
}

char *xstrdup(const char *s)
{
	return check(strdup(s), strlen(s) + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory formatting a string");
	return s;
}
