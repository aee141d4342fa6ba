// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --overhead: read a perf.data file into the overhead model (overhead/model.h) and
 * print what the profiling cost, per CPU and per type, the worst CPU, the intervals and the
 * findings, as text or as JSON (the schema is in man/prec-report.1, OVERHEAD). The text and the
 * JSON print the same figures from the same model; scripts/prec-overhead.py prints the per-CPU
 * part from the prec:overhead samples alone, and tests/t4000 checks that it agrees.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/event.h"
#include "overhead/model.h"
#include "report/report.h"
#include "util/json.h"
#include "util/log.h"
#include "util/xalloc.h"

static const char *status_name(u32 s)
{
	switch (s) {
	case OVERHEAD_MEASURED:
		return "measured";
	case OVERHEAD_ESTIMATED:
		return "estimated";
	case OVERHEAD_UNAVAILABLE:
		return "unavailable";
	default:
		return "unknown";
	}
}

/* Costs sorted by CPU (-1 first), type (in enum overhead_type's order), source, status. */
static int cmp_cost(const void *a, const void *b)
{
	const struct om_cost *x = *(const struct om_cost *const *)a;
	const struct om_cost *y = *(const struct om_cost *const *)b;
	int r;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	r = (int)x->kind - (int)y->kind;
	if (r)
		return r;
	r = strcmp(x->type, y->type);
	if (r)
		return r;
	r = strcmp(x->source, y->source);
	if (r)
		return r;
	return (x->status > y->status) - (x->status < y->status);
}

struct view {
	const struct report_opts *o;
	struct overhead_model *m;
	const struct om_cost **costs; /* sorted */
	u32 nr_costs;
	struct om_finding *findings;
	int nr_findings;
	u64 session_wall_ns; /* the wall time cpu -1 figures are a share of */
	const char *name;
};

/* The wall time a cost is a share of: its CPU's, or the session's. */
static u64 cost_wall(const struct view *v, const struct om_cost *k)
{
	const struct om_cpu *c;

	if (k->cpu < 0)
		return v->session_wall_ns;
	c = overhead_model_cpu(v->m, k->cpu);
	return c ? c->wall_ns : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading the file into the model */

/* The u64 at off in h's body; 0 when the record is too short for it. */
static u64 body_u64(const struct pd_record_header *h, size_t off)
{
	return h->size >= sizeof(*h) + off + 8 ? pd_get_u64((const u8 *)(h + 1) + off) : 0;
}

struct reading {
	struct report *rep;
	struct overhead_model *m;
	u64 bad; /* prec:overhead samples that did not decode */
	const char *bad_why;
};

static void read_values(struct reading *rd, int idx, const struct pd_sample *s)
{
	const struct perf_event_attr *a = pd_reader_attr(rd->rep->r, (u32)idx);
	u64 need = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

	if (!a || !(a->sample_type & PERF_SAMPLE_READ) || (a->read_format & need) != need)
		return;
	for (u64 i = 0; i < s->read.nr && s->read.values; i++) {
		u64 id = a->read_format & PERF_FORMAT_ID ? s->read.values[i].id : 0;
		int ev = id ? pd_reader_attr_by_id(rd->rep->r, id) : idx;

		overhead_model_add_counter(rd->m, ev < 0 ? idx : ev, id,
					   s->sample_type & PERF_SAMPLE_CPU ? s->cpu : UINT32_MAX,
					   s->tid, s->read.time_enabled, s->read.time_running);
	}
}

static int read_sample(struct reading *rd, const struct pd_record_header *h)
{
	struct overhead_record r;
	struct pd_sample s;
	int idx = -1, err;

	err = pd_reader_parse_sample(rd->rep->r, h, &s, &idx);
	if (err == -ENOENT)
		return 0; /* an id no event has: perf skips these too */
	if (err)
		return report_read_error(rd->rep);
	if ((u32)idx < rd->m->nr_events && rd->m->events[idx].overhead) {
		if (!(s.sample_type & PERF_SAMPLE_RAW) ||
		    overhead_record_decode(s.raw, s.raw_size, &r)) {
			rd->bad++;
			return 0;
		}
		if (overhead_model_add_record(
			rd->m, &r, s.sample_type & PERF_SAMPLE_TIME ? s.time : 0) == -ENOMEM)
			return error("out of memory");
		return 0;
	}
	overhead_model_add_sample(rd->m, idx, s.sample_type & PERF_SAMPLE_CPU ? (int)s.cpu : -1,
				  s.sample_type & PERF_SAMPLE_TIME ? s.time : 0);
	read_values(rd, idx, &s);
	return 0;
}

/* The CPU and time of a non-sample record's trailer; -1 and 0 when it has none. */
static int trailer(struct reading *rd, const struct pd_record_header *h, struct pd_sample *s)
{
	int idx = -1;

	memset(s, 0, sizeof(*s));
	if (pd_reader_parse_sample(rd->rep->r, h, s, &idx)) {
		memset(s, 0, sizeof(*s));
		s->cpu = UINT32_MAX;
		return -1;
	}
	if (!(s->sample_type & PERF_SAMPLE_CPU))
		s->cpu = UINT32_MAX;
	if (!(s->sample_type & PERF_SAMPLE_TIME))
		s->time = 0;
	return idx;
}

static int cpu_of(const struct pd_sample *s)
{
	return s->cpu == UINT32_MAX || s->cpu > OM_MAX_CPU ? -1 : (int)s->cpu;
}

static int read_record(struct reading *rd, const struct pd_record_header *h)
{
	struct pd_sample s;
	int idx;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return read_sample(rd, h);
	case PERF_RECORD_LOST:
		trailer(rd, h, &s);
		overhead_model_add_lost(rd->m, pd_reader_attr_by_id(rd->rep->r, body_u64(h, 0)),
					cpu_of(&s), body_u64(h, 8), s.time, false);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		idx = trailer(rd, h, &s);
		overhead_model_add_lost(rd->m, idx, cpu_of(&s), body_u64(h, 0), s.time, true);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		trailer(rd, h, &s);
		overhead_model_add_throttle(rd->m, pd_reader_attr_by_id(rd->rep->r, body_u64(h, 8)),
					    body_u64(h, 8), cpu_of(&s), body_u64(h, 0),
					    h->type == PERF_RECORD_UNTHROTTLE);
		break;
	case PD_RECORD_STAT:
		/* {id, cpu, thread, val, ena, run}: the last of each (id, cpu, thread) counts */
		if (h->size >= sizeof(*h) + sizeof(struct pd_stat_body)) {
			const u8 *p = (const u8 *)(h + 1);
			u64 id = pd_get_u64(p);

			overhead_model_add_stat(rd->m, pd_reader_attr_by_id(rd->rep->r, id), id,
						pd_get_u32(p + 8), pd_get_u32(p + 12),
						pd_get_u64(p + 24), pd_get_u64(p + 32));
		}
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_COMM:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_TEXT_POKE:
		overhead_model_add_sideband(rd->m, h->type);
		break;
	}
	return 0;
}

/*
 * Give the model the attrs it has not seen: all of them in file mode, and in pipe mode those
 * that HEADER_ATTR records brought so far. With rename, take the names again: EVENT_UPDATE
 * records may have named them since.
 */
static int sync_events(struct reading *rd, bool rename)
{
	struct pd_reader *r = rd->rep->r;
	char name[128];

	if (rename)
		for (u32 i = 0; i < rd->m->nr_events; i++)
			snprintf(rd->m->events[i].name, sizeof(rd->m->events[i].name), "%s",
				 report_event_name(r, i, name, sizeof(name)));
	for (u32 i = rd->m->nr_events; i < pd_reader_nr_attrs(r); i++) {
		const struct perf_event_attr *a = pd_reader_attr(r, i);

		if (overhead_model_add_event(rd->m, a, report_event_name(r, i, name, sizeof(name)),
					     attr_is_overhead_event(a)) < 0)
			return error("out of memory");
	}
	return 0;
}

static int read_file(struct reading *rd)
{
	struct pd_reader *r = rd->rep->r;
	const void *facts;
	struct pd_event ev;
	size_t len;
	int ret;

	facts = pd_reader_feature(r, PD_FEAT_PREC, &len);
	if (facts && overhead_model_set_facts(rd->m, facts, len))
		warning("%s: the prec facts section cannot be read (%s): judging without it",
			rd->rep->path, rd->m->facts_error);
	if (sync_events(rd, false))
		return -1;
	while ((ret = report_next(rd->rep, &ev)) > 0) {
		if (rd->m->nr_events < pd_reader_nr_attrs(r) && sync_events(rd, false))
			return -1;
		if (read_record(rd, ev.header))
			return -1;
	}
	if (ret < 0 || sync_events(rd, true))
		return -1;
	if (rd->bad)
		warning("%s: %" PRIu64 " prec:overhead samples do not decode; they are left out",
			rd->rep->path, rd->bad);
	if (rd->m->bad_records)
		warning("%s: %" PRIu64 " prec:overhead samples name a CPU out of range; they are "
			"left out",
			rd->rep->path, rd->m->bad_records);
	return overhead_model_finish(rd->m) ? error("out of memory") : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The text view */

static const char *fmt_ns(char *buf, size_t len, double ns)
{
	return overhead_format_ns(buf, len, ns);
}

static void print_pct(double p)
{
	if (p < 0)
		printf(" %8s", "-");
	else
		printf(" %7.2f%%", p);
}

static const char *collector_words(const char *src)
{
	if (!strcmp(src, "bpf"))
		return "BPF programs, aggregated in the kernel";
	if (!strcmp(src, "tracepoint"))
		return "tracepoints read through perf_event_open (the fallback: its figures are "
		       "inflated)";
	if (!strcmp(src, "none"))
		return "none ran: the kernel-side costs are unavailable";
	return "";
}

/* The source of the sample figures when there are no facts. */
static const char *costs_collector(const struct view *v)
{
	for (u32 i = 0; i < v->nr_costs; i++)
		if (v->costs[i]->kind == OVERHEAD_TYPE_SAMPLE &&
		    v->costs[i]->status != OVERHEAD_UNAVAILABLE)
			return v->costs[i]->source;
	return NULL;
}

/* Median of the per-CPU collector costs in the facts; negative when none. */
static double collector_cost(const struct overhead_facts *f, double *handler)
{
	double sum = 0, hsum = 0;
	int n = 0;

	for (u32 i = 0; i < f->nr_cpus; i++) {
		if (f->cpus[i].collector.state != OVERHEAD_FACT_OK)
			continue;
		sum += f->cpus[i].collector.ns;
		hsum += f->cpus[i].collector.handler_ns;
		n++;
	}
	*handler = n ? hsum / n : 0;
	return n ? sum / n : -1;
}

static void print_header(const struct view *v)
{
	const struct overhead_model *m = v->m;
	const struct overhead_facts *f = &m->facts;
	const char *src = m->have_facts && f->source[0] ? f->source : costs_collector(v);
	char a[32], b[32], c[32];
	double cc, hn;
	int cal = 0, failed = 0;

	printf("# prec report --overhead: what profiling cost, %s\n", v->name);
	printf("#\n");
	if (!m->overhead_records)
		printf("# no prec:overhead records: the file was not recorded by prec record with "
		       "overhead collection;\n# only perf's own records (THROTTLE, LOST, STAT) and "
		       "the events are judged\n");
	if (!m->have_facts)
		printf(
		    "# facts: %s\n",
		    m->facts_error[0]
			? m->facts_error
			: "none (no prec facts section: pipe mode, or not written by prec record)");
	if (src) {
		printf("# collector: %s", src);
		if (*collector_words(src))
			printf(" (%s)", collector_words(src));
		if (!m->have_facts)
			printf(", as the records say");
		printf("\n");
	}
	if (m->have_facts && f->source_reason[0])
		printf("#   %s%s could not be used: %s\n",
		       f->source_wanted[0] ? f->source_wanted : "the source asked for",
		       !strcmp(f->source_wanted, "auto") ? " (bpf)" : "", f->source_reason);
	if (m->have_facts && (cc = collector_cost(f, &hn)) >= 0) {
		printf("#   the collector adds about %s per sample (calibrated)",
		       fmt_ns(a, sizeof(a), cc));
		if (!strcmp(f->source, "tracepoint"))
			printf(
			    "; the handler times it measured are inflated by about %s per sample",
			    fmt_ns(b, sizeof(b), cc / 2));
		printf("\n");
	}
	if (m->have_facts) {
		for (u32 i = 0; i < f->nr_cpus; i++) {
			if (f->cpus[i].stolen.state == OVERHEAD_FACT_OK)
				cal++;
			else if (f->cpus[i].stolen.state == OVERHEAD_FACT_FAILED)
				failed++;
		}
		if (cal || failed) {
			printf("# stolen time per sample: calibrated on %d CPU%s", cal,
			       cal == 1 ? "" : "s");
			if (failed)
				printf(", failed on %d", failed);
			if (f->calib_age_ns)
				printf(", %s before this recording (prec record's cache; "
				       "--recalibrate measures anew)",
				       fmt_ns(a, sizeof(a), (double)f->calib_age_ns));
			printf("\n");
		}
		for (u32 i = 0; i < f->nr_cpus; i++) {
			const struct overhead_fact_calib *k = &f->cpus[i].stolen;

			if (k->state == OVERHEAD_FACT_OK)
				printf("#   CPU %d: %s (%s to %s over %" PRIu32 " runs)\n",
				       f->cpus[i].cpu, fmt_ns(a, sizeof(a), k->ns),
				       fmt_ns(b, sizeof(b), k->min_ns),
				       fmt_ns(c, sizeof(c), k->max_ns), k->runs);
			else if (k->state == OVERHEAD_FACT_FAILED)
				printf("#   CPU %d: not calibrated: %s\n", f->cpus[i].cpu,
				       k->reason);
		}
		if (f->interval_ns)
			printf("# interval: %s\n", fmt_ns(a, sizeof(a), (double)f->interval_ns));
		if (f->aggregate_interval_ns || f->aggregate_entries)
			printf("# aggregated in the kernel: maps of %" PRIu64
			       " keys (--aggregate-entries), taken every %s\n",
			       f->aggregate_entries,
			       fmt_ns(a, sizeof(a), (double)f->aggregate_interval_ns));
		if (f->max_rate_before || f->max_rate_after) {
			printf("# kernel.perf_event_max_sample_rate:");
			if (f->max_rate_before)
				printf(" %" PRIu64 " before", f->max_rate_before);
			if (f->max_rate_after)
				printf("%s %" PRIu64 " after", f->max_rate_before ? "," : "",
				       f->max_rate_after);
			printf("\n");
		}
		if (f->nmi_watchdog >= 0)
			printf("# kernel.nmi_watchdog: %d\n", f->nmi_watchdog);
	}
	if (m->wall_ns)
		printf("# wall time: %s (%s)\n", fmt_ns(a, sizeof(a), (double)m->wall_ns),
		       m->overhead_records ? "the longest of the CPUs"
					   : "from the first to the last record");
	printf("#\n");
}

static void print_cost_row(const struct view *v, const struct om_cost *k)
{
	u64 wall = cost_wall(v, k);
	char a[32], b[32];

	printf("%5d  %-9s", k->cpu, k->type);
	if (k->status == OVERHEAD_UNAVAILABLE) {
		printf(" %12s %12s %10s %8s  %-12s %s\n", "-", "-", "-", "-", k->source,
		       "unavailable (see below)");
		return;
	}
	printf(" %12" PRIu64 " %12s %10s", k->nr, fmt_ns(a, sizeof(a), (double)k->time_ns),
	       k->nr ? fmt_ns(b, sizeof(b), (double)k->time_ns / (double)k->nr) : "-");
	if (k->kind == OVERHEAD_TYPE_LOST)
		printf(" %8s", "-"); /* a count, not a time */
	else
		print_pct(wall ? 100.0 * (double)k->time_ns / (double)wall : -1);
	printf("  %-12s %s", k->source, status_name(k->status));
	if (k->kind == OVERHEAD_TYPE_STOLEN)
		printf(" (includes the handler time)");
	else if (k->kind == OVERHEAD_TYPE_THROTTLE)
		printf(" (time without samples, not a cost)");
	else if (k->cpu < 0 && k->kind == OVERHEAD_TYPE_RECORDER)
		printf(" (of one CPU)");
	else if (k->kind == OVERHEAD_TYPE_AGGREGATE)
		printf(" (in-kernel aggregation, on top of the stolen time)");
	printf("\n");
}

static void print_cpu_total(const struct om_cpu *c)
{
	const char *agg = c->have_aggregate ? " + aggregate" : "";
	char a[32];

	printf("%5d  %-9s %12s %12s %10s", c->cpu, "=overhead", "",
	       fmt_ns(a, sizeof(a), (double)c->overhead_ns), "");
	print_pct(c->overhead_pct);
	if (c->basis == OM_BASIS_STOLEN)
		printf("  stolen + mux + sideband%s\n", agg);
	else if (c->basis == OM_BASIS_HANDLER)
		printf("  handler%s + mux + sideband%s (%s)\n",
		       c->handler_lower_bound ? " (a lower bound: the collector dropped records)"
					      : "",
		       agg, c->basis_note);
	else
		printf("  mux + sideband%s (no sampling figure)\n", agg);
}

static void print_table(const struct view *v)
{
	int last = INT32_MIN;

	printf("#%4s  %-9s %12s %12s %10s %8s  %-12s %s\n", "CPU", "type", "count", "total",
	       "avg/event", "share", "source", "status");
	for (u32 i = 0; i <= v->nr_costs; i++) {
		const struct om_cost *k = i < v->nr_costs ? v->costs[i] : NULL;

		if (last >= 0 && (!k || k->cpu != last)) {
			const struct om_cpu *c = overhead_model_cpu(v->m, last);

			if (c && c->overhead_pct >= 0)
				print_cpu_total(c);
		}
		if (!k)
			break;
		print_cost_row(v, k);
		last = k->cpu;
	}
	/* CPUs with samples but no prec:overhead figure: one walk, both are sorted by CPU. */
	for (u32 i = 0, j = 0; i < v->m->nr_cpus; i++) {
		const struct om_cpu *c = &v->m->cpus[i];

		while (j < v->nr_costs && v->costs[j]->cpu < c->cpu)
			j++;
		if (j == v->nr_costs || v->costs[j]->cpu != c->cpu)
			printf("%5d  %-9s %12" PRIu64 " samples, no overhead figure recorded\n",
			       c->cpu, "-", c->samples);
	}
	printf("#\n");
}

/* Sums over CPUs (cpu >= 0) of each type that is not unavailable, in the table's order. */
struct total {
	enum overhead_type kind;
	char type[16];
	u64 nr, time_ns;
	bool estimated;
};

static int totals(const struct view *v, struct total *t, int max)
{
	int n = 0;

	for (u32 i = 0; i < v->nr_costs; i++) {
		const struct om_cost *k = v->costs[i];
		int j;

		if (k->cpu < 0 || k->status == OVERHEAD_UNAVAILABLE)
			continue;
		for (j = 0; j < n && strcmp(t[j].type, k->type); j++)
			;
		if (j == n) {
			if (n == max)
				continue;
			memset(&t[n], 0, sizeof(t[n]));
			t[n].kind = k->kind;
			snprintf(t[n].type, sizeof(t[n].type), "%s", k->type);
			n++;
		}
		t[j].nr += k->nr;
		t[j].time_ns += k->time_ns;
		t[j].estimated |= k->status == OVERHEAD_ESTIMATED;
	}
	/* Ordered like the rows: sort by type rank. */
	for (int i = 1; i < n; i++) {
		struct total x = t[i];
		int j = i;

		while (j > 0 && (t[j - 1].kind > x.kind ||
				 (t[j - 1].kind == x.kind && strcmp(t[j - 1].type, x.type) > 0))) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = x;
	}
	return n;
}

static void all_cpus(const struct overhead_model *m, u64 *overhead, u64 *cpu_time)
{
	*overhead = *cpu_time = 0;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		if (m->cpus[i].overhead_pct < 0)
			continue;
		*overhead += m->cpus[i].overhead_ns;
		*cpu_time += m->cpus[i].wall_ns;
	}
}

static void print_totals(const struct view *v)
{
	const struct overhead_model *m = v->m;
	struct total t[32];
	int n = totals(v, t, 32);
	u64 ov, ct;
	char a[32], b[32];
	bool any = n > 0;

	if (n) {
		printf("# totals over the CPUs:\n");
		for (int i = 0; i < n; i++)
			printf("#   %-9s %12" PRIu64 " %12s%s\n", t[i].type, t[i].nr,
			       t[i].kind == OVERHEAD_TYPE_LOST
				   ? "-"
				   : fmt_ns(a, sizeof(a), (double)t[i].time_ns),
			       t[i].estimated ? "  (estimated)" : "");
	}
	all_cpus(m, &ov, &ct);
	if (ct)
		printf("#   overhead  %s over %s of CPU time: %.2f%%\n", fmt_ns(a, sizeof(a), ov),
		       fmt_ns(b, sizeof(b), ct), 100.0 * (double)ov / (double)ct);
	any |= ct || m->worst >= 0 || m->overhead_records;
	if (m->worst >= 0) {
		const struct om_cpu *w = &m->cpus[m->worst];

		printf("# worst CPU: %d, %.2f%% of its time (%s over %s; sampling cost from %s)\n",
		       w->cpu, w->overhead_pct, fmt_ns(a, sizeof(a), (double)w->overhead_ns),
		       fmt_ns(b, sizeof(b), (double)w->wall_ns),
		       w->basis == OM_BASIS_STOLEN    ? "the calibrated stolen time"
		       : w->basis != OM_BASIS_HANDLER ? "no sampling figure"
		       : w->handler_lower_bound
			   ? "the handler time only, a lower bound: the collector dropped records"
			   : "the measured handler time only");
	} else if (m->overhead_records) {
		printf("# worst CPU: unknown (no CPU has both a cost and a wall time)\n");
	}
	if (any)
		printf("#\n");
}

/* An unavailable figure, by where it stands in the table. */
struct unavail {
	const struct om_cost *k;
	u32 pos;   /* in v->costs */
	u32 first; /* the pos of the first figure with its type and reason */
};

static int cmp_unavail_reason(const void *a, const void *b)
{
	const struct unavail *x = a, *y = b;
	int r = strcmp(x->k->type, y->k->type);

	if (!r)
		r = strcmp(x->k->reason, y->k->reason);
	return r ? r : (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_unavail_first(const void *a, const void *b)
{
	const struct unavail *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * One line per (type, reason), in the order the table meets them, listing the CPUs it holds
 * for. Sorted, not compared pairwise: every CPU of a large machine may have the same line.
 */
static void print_unavailable(const struct view *v)
{
	struct unavail *u = xmalloc((v->nr_costs + 1) * sizeof(*u));
	u32 n = 0;

	for (u32 i = 0; i < v->nr_costs; i++)
		if (v->costs[i]->status == OVERHEAD_UNAVAILABLE)
			u[n++] = (struct unavail){v->costs[i], i, i};
	qsort(u, n, sizeof(*u), cmp_unavail_reason);
	for (u32 i = 1; i < n; i++)
		if (!strcmp(u[i].k->type, u[i - 1].k->type) &&
		    !strcmp(u[i].k->reason, u[i - 1].k->reason))
			u[i].first = u[i - 1].first;
	qsort(u, n, sizeof(*u), cmp_unavail_first);
	if (n)
		printf("# unavailable (never counted as zero):\n");
	for (u32 i = 0; i < n; i++) {
		const struct om_cost *k = u[i].k;

		if (i && u[i].first == u[i - 1].first) {
			printf(",%d", k->cpu);
			continue;
		}
		if (i)
			printf(": %s\n",
			       u[i - 1].k->reason[0] ? u[i - 1].k->reason : "no reason recorded");
		printf("#   %s on CPU %d", k->type, k->cpu);
	}
	if (n)
		printf(": %s\n#\n",
		       u[n - 1].k->reason[0] ? u[n - 1].k->reason : "no reason recorded");
	free(u);
}

static void print_intervals(const struct view *v)
{
	const struct overhead_model *m = v->m;
	u32 ncols = m->nr_cpus <= 8 ? m->nr_cpus : 0;
	char a[32];

	printf("# intervals (one line per interval of prec:overhead records; * marks a spike: "
	       "at least %.0fx the median)\n",
	       OM_SPIKE_FACTOR);
	if (!m->nr_intervals) {
		printf("#   none\n#\n");
		return;
	}
	printf("#%11s %10s %6s %8s", "end", "span", "worst", "overhead");
	for (u32 c = 0; c < ncols; c++) {
		char h[16];

		snprintf(h, sizeof(h), "cpu%d", m->cpus[c].cpu);
		printf(" %8s", h);
	}
	printf(" %9s %8s %10s\n", "throttled", "lost", "recorder");
	for (u32 i = 0; i < m->nr_intervals; i++) {
		const struct om_interval *iv = &m->intervals[i];

		printf("%c%10.3fs %10s", iv->spike ? '*' : ' ',
		       m->have_time && iv->time >= m->start ? (double)(iv->time - m->start) / 1e9
							    : 0.0,
		       fmt_ns(a, sizeof(a), (double)iv->span_ns));
		if (iv->worst_cpu >= 0)
			printf(" %6d", iv->worst_cpu);
		else
			printf(" %6s", "-");
		print_pct(iv->worst_cpu >= 0 ? iv->worst_pct : -1);
		for (u32 c = 0; c < ncols; c++) {
			double p = -1;

			for (u32 j = 0; j < iv->nr_cpus; j++)
				if (iv->cpus[j].cpu == m->cpus[c].cpu)
					p = iv->cpus[j].pct;
			print_pct(p);
		}
		printf(" %9" PRIu64 " %8" PRIu64 " %10s\n", iv->throttles, iv->lost,
		       fmt_ns(a, sizeof(a), (double)iv->recorder_ns));
	}
	printf("#\n");
}

static void print_findings(const struct view *v)
{
	if (!v->nr_findings) {
		printf("# findings: none (nothing above the thresholds in prec-report(1), "
		       "OVERHEAD)\n");
		return;
	}
	printf("# findings\n");
	for (int i = 0; i < v->nr_findings; i++) {
		const struct om_finding *f = &v->findings[i];

		printf("[%s] %s: %s\n", overhead_severity_name(f->severity), f->id, f->message);
		printf("    advice: %s\n", f->advice);
	}
}

static void print_text(const struct view *v)
{
	print_header(v);
	if (v->nr_costs)
		print_table(v);
	print_totals(v);
	print_unavailable(v);
	if (v->o->intervals)
		print_intervals(v);
	print_findings(v);
}

/* ---------------------------------------------------------------------------------------- */
/* JSON */

/* A ratio with 4 decimals, or null. */
static void json_pct(double p)
{
	if (p < 0 || !isfinite(p))
		printf("null");
	else
		printf("%.4f", p);
}

static void json_ns(double ns)
{
	if (ns < 0 || !isfinite(ns))
		printf("null");
	else
		printf("%.3f", ns);
}

static void json_cost(const struct view *v, const struct om_cost *k)
{
	u64 wall = cost_wall(v, k);
	bool unavailable = k->status == OVERHEAD_UNAVAILABLE;

	printf("{\"type\": ");
	json_str(stdout, k->type);
	printf(", \"nr\": %" PRIu64 ", \"time_ns\": %" PRIu64 ", \"span_ns\": %" PRIu64
	       ", \"avg_ns\": ",
	       k->nr, k->time_ns, k->span_ns);
	json_ns(k->nr && !unavailable ? (double)k->time_ns / (double)k->nr : -1);
	printf(", \"pct\": ");
	json_pct(!unavailable && wall && k->kind != OVERHEAD_TYPE_LOST
		     ? 100.0 * (double)k->time_ns / (double)wall
		     : -1);
	printf(", \"source\": ");
	json_str(stdout, k->source);
	printf(", \"status\": ");
	json_str(stdout, status_name(k->status));
	printf(", \"estimated\": %s, \"unavailable\": %s, \"reason\": ",
	       k->status == OVERHEAD_ESTIMATED ? "true" : "false", unavailable ? "true" : "false");
	json_str(stdout, k->reason);
	printf("}");
}

/*
 * The CPU's entry with its costs, which start at v->costs[*at] (they are sorted by CPU): *at
 * moves past them, so that all the CPUs take one walk over the costs.
 */
static void json_cpu(const struct view *v, int cpu, const struct om_cpu *c, u32 *at)
{
	bool first = true;

	printf("    {\"cpu\": %d", cpu);
	if (c) {
		printf(", \"wall_ns\": %" PRIu64 ", \"wall_source\": ", c->wall_ns);
		json_str(stdout, c->wall_source);
		printf(", \"samples\": %" PRIu64 ", \"basis\": ", c->samples);
		json_str(stdout, overhead_model_basis_name(c->basis));
		printf(", \"basis_note\": ");
		json_str(stdout, c->basis == OM_BASIS_HANDLER ? c->basis_note : "");
		printf(", \"sampling_ns\": %" PRIu64 ", \"mux_ns\": %" PRIu64
		       ", \"sideband_ns\": %" PRIu64 ", \"aggregate_ns\": %" PRIu64
		       ", \"overhead_ns\": %" PRIu64 ", \"overhead_pct\": ",
		       c->basis_ns, c->mux_ns, c->sideband_ns, c->aggregate_ns, c->overhead_ns);
		json_pct(c->overhead_pct);
		printf(", \"throttles\": %" PRIu64 ", \"throttled_ns\": %" PRIu64
		       ", \"lost\": %" PRIu64 ", \"lost_samples\": %" PRIu64,
		       c->throttles, c->throttled_ns, c->lost, c->lost_samples);
	} else {
		printf(", \"wall_ns\": %" PRIu64, v->session_wall_ns);
	}
	printf(",\n     \"costs\": [");
	while (*at < v->nr_costs && v->costs[*at]->cpu < cpu)
		(*at)++;
	for (; *at < v->nr_costs && v->costs[*at]->cpu == cpu; (*at)++) {
		printf("%s\n       ", first ? "" : ",");
		json_cost(v, v->costs[*at]);
		first = false;
	}
	printf("]}");
}

static void json_facts(const struct overhead_model *m)
{
	const struct overhead_facts *f = &m->facts;
	double hn, cc;

	printf("  \"facts\": {\"present\": %s, \"error\": ", m->have_facts ? "true" : "false");
	if (m->facts_error[0])
		json_str(stdout, m->facts_error);
	else
		printf("null");
	if (!m->have_facts) {
		printf("},\n");
		return;
	}
	printf(", \"source\": ");
	json_str(stdout, f->source);
	printf(", \"source_wanted\": ");
	json_str(stdout, f->source_wanted);
	printf(", \"source_reason\": ");
	json_str(stdout, f->source_reason);
	printf(",\n    \"interval_ns\": %" PRIu64 ", \"max_sample_rate_before\": %" PRIu64
	       ", \"max_sample_rate_after\": %" PRIu64
	       ", \"nmi_watchdog\": %d, \"mmap_pages\": %" PRIu32 ", \"compression_level\": %d"
	       ", \"calibration_age_ns\": %" PRIu64 ",\n    \"aggregate_interval_ns\": %" PRIu64
	       ", \"aggregate_entries\": %" PRIu64,
	       f->interval_ns, f->max_rate_before, f->max_rate_after, f->nmi_watchdog,
	       f->mmap_pages, f->comp_level, f->calib_age_ns, f->aggregate_interval_ns,
	       f->aggregate_entries);
	cc = collector_cost(f, &hn);
	printf(",\n    \"collector_ns\": ");
	json_ns(cc);
	printf(", \"collector_handler_ns\": ");
	json_ns(cc >= 0 ? hn : -1);
	printf(",\n    \"stolen\": [");
	for (u32 i = 0, n = 0; i < f->nr_cpus; i++) {
		const struct overhead_fact_calib *k = &f->cpus[i].stolen;

		if (k->state == OVERHEAD_FACT_ABSENT)
			continue;
		printf("%s{\"cpu\": %d, ", n++ ? ", " : "", f->cpus[i].cpu);
		if (k->state == OVERHEAD_FACT_OK)
			printf(
			    "\"ns\": %.3f, \"min_ns\": %.3f, \"max_ns\": %.3f, \"runs\": %" PRIu32
			    "}",
			    k->ns, k->min_ns, k->max_ns, k->runs);
		else {
			printf("\"error\": ");
			json_str(stdout, k->reason);
			printf("}");
		}
	}
	printf("]},\n");
}

static void json_interval(const struct overhead_model *m, const struct om_interval *iv)
{
	printf("    {\"time\": %" PRIu64 ", \"offset_ns\": %" PRIu64 ", \"span_ns\": %" PRIu64
	       ", \"worst_cpu\": ",
	       iv->time, m->have_time && iv->time >= m->start ? iv->time - m->start : 0,
	       iv->span_ns);
	if (iv->worst_cpu >= 0)
		printf("%d", iv->worst_cpu);
	else
		printf("null");
	printf(", \"worst_pct\": ");
	json_pct(iv->worst_cpu >= 0 ? iv->worst_pct : -1);
	printf(", \"spike\": %s, \"throttles\": %" PRIu64 ", \"lost\": %" PRIu64
	       ", \"recorder_ns\": %" PRIu64 ", \"cpus\": [",
	       iv->spike ? "true" : "false", iv->throttles, iv->lost, iv->recorder_ns);
	for (u32 j = 0; j < iv->nr_cpus; j++) {
		printf("%s{\"cpu\": %d, \"pct\": ", j ? ", " : "", iv->cpus[j].cpu);
		json_pct(iv->cpus[j].pct);
		printf("}");
	}
	printf("]}");
}

static void print_json(const struct view *v, bool failed)
{
	const struct overhead_model *m = v->m;
	struct total t[32];
	int n = totals(v, t, 32);
	bool first = true, session = false;
	u64 ov, ct;
	u32 at = 0;

	printf("{\n  \"file\": ");
	json_str(stdout, v->name);
	printf(",\n  \"budget_pct\": %g,\n  \"wall_ns\": %" PRIu64 ",\n",
	       v->o->overhead.budget_pct > 0 ? v->o->overhead.budget_pct : OM_DEFAULT_BUDGET_PCT,
	       m->wall_ns);
	printf("  \"overhead_records\": %" PRIu64 ",\n", m->overhead_records);
	json_facts(m);
	printf("  \"cpus\": [");
	for (u32 i = 0; i < v->nr_costs && !session; i++)
		session = v->costs[i]->cpu < 0;
	if (session) {
		printf("\n");
		json_cpu(v, -1, NULL, &at);
		first = false;
	}
	for (u32 i = 0; i < m->nr_cpus; i++) {
		printf("%s\n", first ? "" : ",");
		json_cpu(v, m->cpus[i].cpu, &m->cpus[i], &at);
		first = false;
	}
	printf("\n  ],\n  \"totals\": {\"costs\": [");
	for (int i = 0; i < n; i++) {
		printf("%s{\"type\": ", i ? ", " : "");
		json_str(stdout, t[i].type);
		printf(", \"nr\": %" PRIu64 ", \"time_ns\": %" PRIu64 ", \"estimated\": %s}",
		       t[i].nr, t[i].time_ns, t[i].estimated ? "true" : "false");
	}
	all_cpus(m, &ov, &ct);
	printf("],\n    \"overhead_ns\": %" PRIu64 ", \"cpu_time_ns\": %" PRIu64
	       ", \"overhead_pct\": ",
	       ov, ct);
	json_pct(ct ? 100.0 * (double)ov / (double)ct : -1);
	printf("},\n  \"worst_cpu\": ");
	if (m->worst >= 0) {
		const struct om_cpu *w = &m->cpus[m->worst];

		printf("{\"cpu\": %d, \"overhead_pct\": ", w->cpu);
		json_pct(w->overhead_pct);
		printf(", \"overhead_ns\": %" PRIu64 ", \"wall_ns\": %" PRIu64 ", \"basis\": ",
		       w->overhead_ns, w->wall_ns);
		json_str(stdout, overhead_model_basis_name(w->basis));
		printf("}");
	} else {
		printf("null");
	}
	printf(",\n  \"unavailable\": [");
	first = true;
	for (u32 i = 0; i < v->nr_costs; i++) {
		const struct om_cost *k = v->costs[i];

		if (k->status != OVERHEAD_UNAVAILABLE)
			continue;
		printf("%s\n    {\"cpu\": %d, \"type\": ", first ? "" : ",", k->cpu);
		json_str(stdout, k->type);
		printf(", \"source\": ");
		json_str(stdout, k->source);
		printf(", \"reason\": ");
		json_str(stdout, k->reason);
		printf("}");
		first = false;
	}
	printf("%s],\n", first ? "" : "\n  ");
	if (v->o->intervals) {
		printf("  \"intervals\": [");
		for (u32 i = 0; i < m->nr_intervals; i++) {
			printf("%s\n", i ? "," : "");
			json_interval(m, &m->intervals[i]);
		}
		printf("%s],\n", m->nr_intervals ? "\n  " : "");
	}
	printf("  \"findings\": [");
	for (int i = 0; i < v->nr_findings; i++) {
		const struct om_finding *f = &v->findings[i];

		printf("%s\n    {\"id\": ", i ? "," : "");
		json_str(stdout, f->id);
		printf(", \"severity\": ");
		json_str(stdout, overhead_severity_name(f->severity));
		printf(", \"cpu\": ");
		if (f->cpu >= 0)
			printf("%d", f->cpu);
		else
			printf("null");
		printf(", \"event\": ");
		if (f->event >= 0)
			json_str(stdout, m->events[f->event].name);
		else
			printf("null");
		printf(", \"value\": ");
		if (isfinite(f->value) && f->value >= 0)
			printf("%.4f", f->value);
		else
			printf("null");
		printf(",\n     \"message\": ");
		json_str(stdout, f->message);
		printf(",\n     \"advice\": ");
		json_str(stdout, f->advice);
		printf("}");
	}
	printf("%s]", v->nr_findings ? "\n  " : "");
	if (v->o->overhead.fail_above >= 0)
		printf(",\n  \"fail_above\": {\"pct\": %g, \"exceeded\": %s}",
		       v->o->overhead.fail_above, failed ? "true" : "false");
	printf("\n}\n");
}

/* ---------------------------------------------------------------------------------------- */

/* The view: read the file into the model, judge it, print. */
int report_overhead(struct report *rep, const struct report_opts *o)
{
	struct reading rd = {0};
	struct view v = {0};
	struct om_params p = {o->overhead.budget_pct};
	double fail_above = o->overhead.fail_above;
	bool failed = false;
	int ret = 1;

	rd.rep = rep;
	v.o = o;
	v.name = rep->name;
	rd.m = v.m = overhead_model_new(o->intervals);
	if (!v.m) {
		error("out of memory");
		goto out;
	}
	if (read_file(&rd))
		goto out;

	v.costs = malloc((v.m->nr_costs + 1) * sizeof(*v.costs));
	if (!v.costs) {
		error("out of memory");
		goto out;
	}
	for (u32 i = 0; i < v.m->nr_costs; i++)
		v.costs[i] = &v.m->costs[i];
	v.nr_costs = v.m->nr_costs;
	if (v.nr_costs)
		qsort(v.costs, v.nr_costs, sizeof(*v.costs), cmp_cost);
	v.session_wall_ns = v.m->wall_ns;

	v.nr_findings = overhead_model_judge(v.m, &p, &v.findings);
	if (v.nr_findings < 0) {
		error("out of memory");
		goto out;
	}
	if (fail_above >= 0) {
		if (v.m->worst < 0)
			warning("%s: --fail-above %g: no CPU has a known overhead to compare",
				v.name, fail_above);
		else
			failed = v.m->cpus[v.m->worst].overhead_pct > fail_above;
	}
	if (o->json)
		print_json(&v, failed);
	else
		print_text(&v);
	/* said by report_close() once the output is known to have reached stdout */
	if (failed)
		rep->note = xasprintf("the worst CPU's overhead, %.2f%% (CPU %d), is above "
				      "--fail-above %g%%",
				      v.m->cpus[v.m->worst].overhead_pct, v.m->cpus[v.m->worst].cpu,
				      fail_above);
	ret = failed ? 3 : 0;
out:
	free(v.costs);
	free(v.findings);
	overhead_model_free(v.m);
	return ret;
}
