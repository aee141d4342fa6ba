// SPDX-License-Identifier: GPL-2.0
/*
 * The profile view of prec report: it reads the file through the profile builder (report/hist.c)
 * and prints the profile with the printer the options chose, the table or its JSON
 * (report/top.c), folded stacks or the flame graph (report/flame.c). The builder knows no
 * printer, and no printer knows another: this file alone ties them.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/flame.h"
#include "report/hist.h"
#include "report/report.h"
#include "report/top.h"
#include "util/log.h"

/* Every attr records the CPU: --cpu needs it (perf refuses -C otherwise). */
static bool file_has_cpu(struct pd_reader *r)
{
	u32 nr = pd_reader_nr_attrs(r);

	for (u32 i = 0; i < nr; i++)
		if (!(pd_reader_attr(r, i)->sample_type & PERF_SAMPLE_CPU))
			return false;
	return nr > 0;
}

/*
 * The profile view. profile_run() notes in its options how the rows differ (row_by_cpu,
 * row_by_tid): it works on a copy of the command's.
 */
int report_profile(struct report *rep, const struct report_opts *opts)
{
	struct report_opts copy = *opts, *o = &copy;
	struct profile p;
	int ret;

	if (o->cpu_filter && !file_has_cpu(rep->r)) {
		error("%s: the samples do not record their CPU (record with -a or --sample-cpu); "
		      "--cpu cannot select them",
		      rep->path);
		return 1;
	}
	ret = profile_run(&p, rep, o);
	if (!ret && o->chain_mode_given && o->chain_mode != CHAIN_NONE && !file_has_chains(rep->r))
		ret = error("%s: -g shows call chains, but the samples have none (record with -g)",
			    rep->path);
	if (!ret) {
		if (o->folded)
			ret = view_folded(&p, stdout);
		else if (o->flamegraph)
			ret = view_flamegraph(&p, o->flamegraph);
		else if (o->json)
			ret = view_json(&p, stdout);
		else
			ret = view_table(&p, stdout);
	}
	if (!ret && p.s.nr_unordered)
		warning("%s: %" PRIu64 " records came after the time they belong to had been "
			"reported (out of order)",
			rep->path, p.s.nr_unordered);
	profile_free(&p);
	return ret ? 1 : 0;
}
