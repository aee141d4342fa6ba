// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --time (report/filter.c): the ranges perf 6.1 makes of each form, absolute and
 * in percent of the time from the first sample to the last, and which samples they keep.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report/filter.h"
#include "tests/tap.h"

/* Parse str over [1000, 2000] and check range i against start and end. */
static void range_is(const char *str, u32 nr, u32 i, u64 start, u64 end)
{
	struct time_range *r = NULL;
	char d[128];
	u32 n = 0;

	snprintf(d, sizeof(d), "'%s' parses into %u ranges", str, nr);
	if (!ok(filter_time_parse(str, 1000, 2000, &r, &n) == 0 && n == nr, d)) {
		free(r);
		return;
	}
	snprintf(d, sizeof(d), "'%s': range %u starts where perf's does", str, i);
	is(r[i].start, start, d);
	snprintf(d, sizeof(d), "'%s': range %u ends where perf's does", str, i);
	is(r[i].end, end, d);
	free(r);
}

static void refused(const char *str)
{
	struct time_range *r = NULL;
	char d[128];
	u32 n = 0;

	snprintf(d, sizeof(d), "'%s' is refused", str);
	ok(filter_time_parse(str, 1000, 2000, &r, &n) < 0 && !r && !n, d);
}

int main(void)
{
	struct filter_opts f = {0};
	u32 n;

	/* a slice ends a nanosecond before the next begins, unless it ends at the last sample */
	range_is("10%/2", 1, 0, 1100, 1199);
	range_is("10%/10", 1, 0, 1900, 2000);
	range_is("10%/2,10%/4", 2, 1, 1300, 1399);
	range_is("0%-10%,30%-40%", 2, 0, 1000, 1099);
	range_is("0%-10%,30%-40%", 2, 1, 1300, 1399);
	range_is("25%", 1, 0, 1000, 1249);
	range_is("100%", 1, 0, 1000, 2000);
	range_is("1.5,2.25", 1, 0, 1500000000, 2250000000);
	range_is("1.5,", 1, 0, 1500000000, 0);
	range_is(",2", 1, 0, 0, 2000000000);
	range_is("1.000000001,2", 1, 0, 1000000001, 2000000000);
	range_is("1,2 3,4", 2, 1, 3000000000, 4000000000);

	refused("");
	refused("abc");
	refused("2");
	refused("2,1");
	refused("1.0123456789,2");
	refused("1,3 2,4");
	refused("10%/2,0%-10%");
	refused("10%,20%");
	refused("150%");
	refused("0%/2");
	refused("10%/x");

	/* which samples are kept: one range may be open at either end; 0 (no time) always is */
	ok(filter_time_parse("1.5,", 0, 0, &f.times, &f.nr_times) == 0, "an open range");
	ok(!filter_time_skip(&f, 1500000000) && !filter_time_skip(&f, 9000000000),
	   "an open end keeps everything after the start");
	ok(filter_time_skip(&f, 1499999999), "a sample before the start is dropped");
	ok(!filter_time_skip(&f, 0), "a sample without a time is kept");
	free(f.times);
	ok(filter_time_parse("1,2 3,4", 0, 0, &f.times, &f.nr_times) == 0, "two ranges");
	ok(!filter_time_skip(&f, 2000000000) && !filter_time_skip(&f, 3000000000),
	   "their ends are in them");
	ok(filter_time_skip(&f, 2500000000) && filter_time_skip(&f, 4000000001),
	   "what is between and after is dropped");
	n = f.nr_times;
	is(n, 2, "two of them");
	free(f.times);
	return done_testing();
}
