// SPDX-License-Identifier: GPL-2.0
/*
 * Only a few names are wanted, once per recording, so one walk of kallsyms with a linear match
 * is enough; it stops when all are found.
 */
#include "config.h"

#include <errno.h>

#include "overhead/kallsyms.h"
#include "util/kallsyms.h"

struct lookup {
	const char *const *names;
	u64 *addrs;
	int nr, found, zero;
};

static int lookup_one(const struct kallsyms_sym *s, void *arg)
{
	struct lookup *l = arg;
	int i;

	/* Handlers are text of the core kernel: t or T, without a module. */
	if ((s->type != 't' && s->type != 'T') || s->module)
		return 0;
	for (i = 0; i < l->nr; i++) {
		if (l->addrs[i] || !kallsyms_name_is(s, l->names[i]))
			continue;
		if (!s->addr) {
			l->zero++;
			break;
		}
		l->addrs[i] = s->addr;
		l->found++;
		break;
	}
	return l->found == l->nr;
}

int kallsyms_lookup(const char *path, const char *const *names, u64 *addrs, int nr)
{
	struct lookup l = {.names = names, .addrs = addrs, .nr = nr};
	int i, err;

	for (i = 0; i < nr; i++)
		addrs[i] = 0;
	err = kallsyms_foreach(path, lookup_one, &l);
	if (err < 0)
		return err;
	if (!l.found && l.zero)
		return -EACCES;
	return l.found;
}
