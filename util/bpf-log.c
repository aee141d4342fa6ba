// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "util/bpf-log.h"
#include "util/log.h"

static char last[256];
static bool echo_lines;
static libbpf_print_fn_t saved;

__attribute__((format(printf, 2, 0)))
static int keep(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(last)];
	size_t n;

	if (level == LIBBPF_DEBUG && !echo_lines)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (!n)
		return 0;
	if (echo_lines)
		debug(2, "libbpf: %s", line);
	/* The verifier's log comes line by line; its last lines are the least useful. */
	if (level != LIBBPF_DEBUG && strncmp(line, "-- END", 6) && strncmp(line, "processed ", 10))
		memcpy(last, line, n + 1);
	return 0;
}

void bpf_log_begin(bool echo)
{
	last[0] = '\0';
	echo_lines = echo;
	saved = libbpf_set_print(keep);
}

void bpf_log_end(void)
{
	libbpf_set_print(saved);
	saved = NULL;
}

const char *bpf_log_last(void)
{
	return last;
}
