// SPDX-License-Identifier: GPL-2.0
/*
 * The input layer of prec report (see input.h): every view opens, reads and closes its file
 * here, so that a reader error, a file its writer did not finish and an output that did not
 * reach stdout are said the same way whatever the view.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/facts.h"
#include "report/input.h"
#include "util/event-names.h"
#include "util/log.h"
#include "util/xalloc.h"

int report_open(struct report *rep, const char *path)
{
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->path = path;
	rep->name = strcmp(path, "-") ? path : "stdin";
	err = pd_reader_open(&rep->r, path, PD_READER_TRACING_IN_CHILD);
	if (err) {
		if (rep->r)
			error("%s: %s", path, pd_reader_errmsg(rep->r));
		else
			error("%s: %s", path, strerror(-err));
		pd_reader_close(rep->r);
		rep->r = NULL;
		return -1;
	}
	return 0;
}

int report_read_error(struct report *rep)
{
	return error("%s: %s", rep->path, pd_reader_errmsg(rep->r));
}

int report_next(struct report *rep, struct pd_event *ev)
{
	int ret = pd_reader_next(rep->r, ev);

	if (ret < 0)
		return report_read_error(rep);
	if (ret > 0)
		rep->nr_records++;
	return ret;
}

const char *report_event_name(struct pd_reader *r, u32 idx, char *buf, size_t len)
{
	const char *name = pd_reader_attr_name(r, idx);
	const struct perf_event_attr *a;

	if (name)
		return name;
	a = pd_reader_attr(r, idx);
	if (!a) {
		snprintf(buf, len, "event %u", idx);
		return buf;
	}
	event_attr_name(a, buf, len);
	return buf;
}

bool *report_aggregated_events(struct pd_reader *r)
{
	u32 nr = pd_reader_nr_attrs(r);
	struct overhead_facts f;
	const void *payload;
	size_t len = 0;
	bool *v, any = false;

	payload = pd_reader_feature(r, PD_FEAT_PREC, &len);
	if (!payload || !nr || overhead_facts_decode(payload, len, &f, NULL, 0))
		return NULL;
	v = xcalloc(nr, sizeof(*v));
	for (u32 i = 0; i < nr; i++) {
		const struct overhead_fact_event *fe = overhead_facts_find_event(&f, i);
		const struct perf_event_attr *a = pd_reader_attr(r, i);

		v[i] = fe && fe->aggregated && a && (a->sample_type & PERF_SAMPLE_WEIGHT);
		any |= v[i];
	}
	overhead_facts_release(&f);
	if (!any) {
		free(v);
		return NULL;
	}
	return v;
}

u32 report_hf_period(struct pd_reader *r, u32 idx, u32 *rand)
{
	const struct overhead_fact_event *fe;
	struct overhead_facts f;
	const void *payload;
	size_t len = 0;
	u32 hf = 0;

	if (rand)
		*rand = 0;
	payload = pd_reader_feature(r, PD_FEAT_PREC, &len);
	if (!payload || overhead_facts_decode(payload, len, &f, NULL, 0))
		return 0;
	fe = overhead_facts_find_event(&f, idx);
	if (fe && fe->hf_period) {
		hf = fe->hf_period;
		if (rand)
			*rand = fe->hf_rand;
	}
	overhead_facts_release(&f);
	return hf;
}

/* The file was not finished, or was cut: say how much was read. */
static int report_recovery(struct report *rep)
{
	const struct pd_file_header *h = pd_reader_header(rep->r);
	u64 bytes = pd_reader_data_read(rep->r);
	u64 start = pd_reader_is_pipe(rep->r) ? sizeof(struct pd_pipe_file_header) : h->data.offset;

	if (!pd_reader_recovered(rep->r))
		return 0;
	if (pd_reader_is_pipe(rep->r) || h->data.size == 0) {
		warning("%s was not finished by its writer; read %" PRIu64 " records (%" PRIu64
			" bytes) up to offset %#" PRIx64,
			rep->name, rep->nr_records, bytes, start + bytes);
		return 0;
	}
	/* The header says how long the data is, and the file is shorter: it was cut. */
	return error("%s: the file is cut short: its data section should end at %#" PRIx64
		     " but the file is %#" PRIx64 " bytes; read %" PRIu64 " records (%" PRIu64
		     " bytes) up to offset %#" PRIx64,
		     rep->name, h->data.offset + h->data.size, pd_reader_file_size(rep->r),
		     rep->nr_records, bytes, start + bytes);
}

/* Count the records of a file that a view did not read, for the recovery message. */
static int count_records(struct report *rep)
{
	struct pd_event ev;
	int ret;

	while ((ret = report_next(rep, &ev)) > 0)
		;
	return ret;
}

int report_close(struct report *rep, int status)
{
	fflush(stdout);
	/* A view that needs no records leaves them unread: count them for the recovery message. */
	if (status != 1 && pd_reader_recovered(rep->r) && !pd_reader_is_pipe(rep->r) &&
	    count_records(rep))
		status = 1;
	if (status != 1 && report_recovery(rep))
		status = 1;
	if (ferror(stdout)) {
		error("%s: writing the report: %s", rep->name, strerror(errno));
		status = 1;
	}
	if (status != 1 && rep->note)
		note("%s", rep->note);
	free(rep->note);
	pd_reader_close(rep->r);
	rep->note = NULL;
	rep->r = NULL;
	return status;
}
