// SPDX-License-Identifier: GPL-2.0
/* Parsers of option values (see parse.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

int parse_u64(const char *s, u64 *v)
{
	char *end;
	unsigned long long x;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

int parse_percent(const char *s, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")) || !(x >= 0 && x <= 100))
		return -EINVAL;
	*v = x;
	return 0;
}

int parse_duration(const char *s, u64 *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!*end) {
		v *= 1e6;
	} else {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].unit))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		v *= units[i].ns;
	}
	if (v > 1e18)
		return -EINVAL;
	*ns = (u64)llround(v);
	return 0;
}

int parse_size(const char *s, u64 *bytes, bool *unit)
{
	static const char units[] = "BKMG";
	const char *u;
	char *end;
	u64 v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (unit)
		*unit = *end;
	if (!*end) {
		*bytes = v;
		return 0;
	}
	u = strchr(units, *end & ~0x20);
	if (!u || !*u || end[1])
		return -EINVAL;
	if (v > (UINT64_MAX >> (10 * (u - units))))
		return -EINVAL;
	*bytes = v << (10 * (u - units));
	return 0;
}
