// SPDX-License-Identifier: GPL-2.0
/* Tool messages: one line on stderr, starting "prec: ". */
#include <stdio.h>
#include <stdlib.h>

#include "util/log.h"

int verbose;
int quiet;

__attribute__((format(printf, 2, 0))) static void vmsg(const char *prefix, const char *fmt,
							 va_list ap)
{
	fputs("prec: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbose < level)
		return;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prec %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'prec %s -h')\n", cmd);
	return 2;
}

void log_format_message(int level, const char *msg)
{
	if (level == 0 && !quiet)
		fprintf(stderr, "prec: warning: %s\n", msg);
	else if (level > 0 && verbose >= level)
		fprintf(stderr, "prec: %s\n", msg);
}
