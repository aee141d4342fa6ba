// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms lines are "ADDRESS TYPE NAME [MODULE]". Only a few names are wanted, once per
 * recording, so one pass with a linear match is enough.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/kallsyms.h"

int kallsyms_lookup(const char *path, const char *const *names, u64 *addrs, int nr)
{
	char line[512];
	int found = 0, zero = 0, i;
	FILE *f;

	for (i = 0; i < nr; i++)
		addrs[i] = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found < nr && fgets(line, sizeof(line), f)) {
		char *end, *name, *nl;
		unsigned long long a;
		char type;

		a = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		/* Handlers are text: t or T. */
		if (type != 't' && type != 'T')
			continue;
		name = end + 3;
		nl = strpbrk(name, "\t\n");
		if (nl) {
			/* A tab starts the [module] column: module symbols are not wanted. */
			if (*nl == '\t')
				continue;
			*nl = '\0';
		}
		for (i = 0; i < nr; i++) {
			if (addrs[i] || strcmp(name, names[i]))
				continue;
			if (!a) {
				zero++;
				break;
			}
			addrs[i] = a;
			found++;
			break;
		}
	}
	fclose(f);
	if (!found && zero)
		return -EACCES;
	return found;
}
