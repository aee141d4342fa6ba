// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --stats: the records of each type, printed as `perf report --stats` prints them
 * (perf 6.1: perf_session__fprintf_nr_events() and evlist__fprintf_nr_events() with
 * --skip-empty, its default). perf counts every record it processes, so a COMPRESSED record
 * counts once and each record decompressed from it counts again; per event, it counts the
 * samples whose id names that event and the lost samples of the LOST_SAMPLES records. An event
 * counted in the kernel (prec record --aggregate) also gets the samples its records stand for
 * (their WEIGHT), beside perf's count of records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/log.h"
#include "util/xalloc.h"

struct per_event {
	u64 samples;
	u64 weight; /* aggregated events: the kernel samples the records stand for */
	u64 lost_samples;
};

static struct per_event *event_slot(struct per_event **ev, u32 *nr, int idx)
{
	if (idx < 0)
		return NULL;
	if ((u32)idx >= *nr) {
		u32 n = (u32)idx + 8;

		*ev = xrealloc(*ev, n * sizeof(**ev));
		memset(*ev + *nr, 0, (n - *nr) * sizeof(**ev));
		*nr = n;
	}
	return &(*ev)[idx];
}

int report_stats(struct report *rep, const struct report_opts *o)
{
	u64 count[PD_RECORD_HEADER_MAX] = {0};
	u64 unknown = 0, unknown_id = 0, unknown_offset = 0;
	u32 unknown_type = 0, nr_ev = 0;
	struct per_event *ev = NULL, *e;
	bool *aggregated = report_aggregated_events(rep->r);
	u32 nr_aggregated = aggregated ? pd_reader_nr_attrs(rep->r) : 0;
	struct pd_event event;
	struct pd_sample s;
	char name[256];
	int ret, idx;
	u64 total;

	while ((ret = report_next(rep, &event)) > 0) {
		const struct pd_record_header *h = event.header;
		u64 lost;

		if (h->type >= PD_RECORD_HEADER_MAX || !pd_record_type_name(h->type)) {
			/* perf stops at these; counting the rest is more useful here */
			if (!unknown++) {
				unknown_type = h->type;
				unknown_offset = event.offset;
			}
			if (h->type >= PD_RECORD_HEADER_MAX)
				continue;
		}
		count[h->type]++;
		if (h->type == PERF_RECORD_SAMPLE) {
			ret = pd_reader_parse_sample(rep->r, h, &s, &idx);
			if (ret == -ENOENT) {
				unknown_id++; /* perf's nr_unknown_id: not counted for any event */
				continue;
			}
			if (ret)
				goto fail;
			e = event_slot(&ev, &nr_ev, idx);
			e->samples++;
			if ((u32)idx < nr_aggregated && aggregated[idx])
				e->weight += s.weight;
		} else if (h->type == PERF_RECORD_LOST_SAMPLES) {
			if (h->size < sizeof(*h) + sizeof(u64))
				continue;
			memcpy(&lost, h + 1, sizeof(lost));
			ret = pd_reader_parse_sample(rep->r, h, &s, &idx);
			if (ret && ret != -ENOENT)
				goto fail;
			e = event_slot(&ev, &nr_ev, pd_reader_attr_by_id(rep->r, s.id));
			if (e)
				e->lost_samples += lost;
		}
	}
	if (ret < 0) {
		free(ev);
		free(aggregated);
		return 1;
	}

	total = 0;
	for (u32 t = 1; t < PD_RECORD_HEADER_MAX; t++)
		total += count[t];
	printf("\nAggregated stats:%s\n",
	       pd_reader_has_feature(rep->r, PD_FEAT_AUXTRACE)
		   ? " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
		   : "");
	if (total)
		printf("%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (u32 t = 1; t < PD_RECORD_HEADER_MAX; t++) {
		const char *label = pd_record_type_name(t);

		if (!label || !count[t])
			continue;
		printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", label, count[t],
		       100.0 * (double)count[t] / (double)total);
	}
	for (u32 i = 0; i < pd_reader_nr_attrs(rep->r); i++) {
		struct per_event zero = {0};

		e = i < nr_ev ? &ev[i] : &zero;
		if (!e->samples && !e->lost_samples)
			continue;
		printf("%s stats:\n", report_event_name(rep->r, i, name, sizeof(name)));
		if (e->samples && i < nr_aggregated && aggregated[i])
			printf("%16s events: %10" PRIu64 "  (aggregated in the kernel: %" PRIu64
			       " samples)\n",
			       "SAMPLE", e->samples, e->weight);
		else if (e->samples)
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE", e->samples);
		if (e->lost_samples)
			printf("%16s events: %10" PRIu64 "\n", "LOST_SAMPLES", e->lost_samples);
	}
	if (unknown)
		warning("%s: %" PRIu64 " records of types perf 6.1 does not know (the first: type "
			"%u at offset %#" PRIx64 ")",
			rep->path, unknown, unknown_type, unknown_offset);
	if (unknown_id)
		warning("%s: %" PRIu64 " samples have an id that belongs to no event", rep->path,
			unknown_id);
	free(ev);
	free(aggregated);
	return 0;
fail:
	free(ev);
	free(aggregated);
	report_read_error(rep);
	return 1;
}
