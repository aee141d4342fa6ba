// SPDX-License-Identifier: GPL-2.0
/*
 * The rules behind the findings, and overhead_model_judge() that runs them (declared with the
 * rest of the model's calls in overhead/model.h): each rule reads the finished model and appends
 * the findings it makes, with the advice computed from the figures. They run in the order of the
 * table at the end, which is the order of findings of one severity. The rules use the model; the
 * model never uses them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead/figures.h"
#include "overhead/model.h"
#include "util/perf-event.h"

/* The findings being gathered: each rule appends its own. */
struct om_findings {
	struct om_finding *f;
	int nr, cap;
	bool oom;	  /* a rule ran out of memory: the judgement fails */
	const char *rule; /* the id of the rule that runs: its findings' id */
	double budget;	  /* --budget, in % of a CPU */
};

__attribute__((format(printf, 3, 4))) static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* A finding of the rule that runs (its id from the table). NULL without memory (fs->oom set). */
static struct om_finding *add_finding(struct om_findings *fs, enum om_severity sev, int cpu,
				      int event, double value)
{
	struct om_finding *f;

	if (fs->nr == fs->cap) {
		int cap = fs->cap ? fs->cap * 2 : 8;

		f = realloc(fs->f, cap * sizeof(*f));
		if (!f) {
			fs->oom = true;
			return NULL;
		}
		fs->f = f;
		fs->cap = cap;
	}
	f = &fs->f[fs->nr++];
	memset(f, 0, sizeof(*f));
	f->id = fs->rule;
	f->severity = sev;
	f->cpu = cpu;
	f->event = event;
	f->value = value;
	return f;
}

/* A workload event that samples: not prec:overhead, not a counting-only event. */
static bool sampling_event(const struct om_event *e)
{
	if (e->overhead)
		return false;
	if (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY)
		return false;
	return e->attr.freq ? e->attr.sample_freq > 0 : e->attr.sample_period > 0;
}

/*
 * The frequency event idx sampled at, 0 for a fixed period. prec gives cpu-clock and task-clock
 * with -F the period the kernel makes of the frequency (record/evlist.c, hrtimer_period()), and
 * says in the facts that a frequency was asked.
 */
static u64 event_freq(const struct overhead_model *m, u32 idx)
{
	const struct om_event *e = &m->events[idx];
	const struct overhead_fact_event *fe;

	if (e->attr.freq)
		return e->attr.sample_freq;
	fe = m->have_facts ? overhead_facts_find_event(&m->facts, idx) : NULL;
	if (fe && fe->freq && e->attr.sample_period && perf_attr_is_hrtimer(&e->attr))
		return (u64)llround(1e9 / (double)e->attr.sample_period);
	return 0;
}

/* The frequency -F asked for an event: the facts' (before any cap), else the attr's. */
static u64 requested_freq(const struct overhead_model *m, u32 idx)
{
	const struct overhead_fact_event *fe =
	    m->have_facts ? overhead_facts_find_event(&m->facts, idx) : NULL;

	if (fe && fe->freq)
		return fe->freq;
	if (fe && fe->period)
		return 0;
	return event_freq(m, idx);
}

/* The kernel's sample-rate limit at the end of the recording (or at its start); 0 unknown. */
static u64 rate_limit(const struct overhead_model *m)
{
	if (!m->have_facts)
		return 0;
	return m->facts.max_rate_after ? m->facts.max_rate_after : m->facts.max_rate_before;
}

static const char *basis_words(const struct om_cpu *c)
{
	if (c->basis == OM_BASIS_STOLEN)
		return "stolen time, calibrated: it includes the handler";
	/* Records the collector dropped are runs of the handler it did not see. */
	return c->handler_lower_bound
		   ? "handler time, a lower bound (the collector dropped records)"
		   : "handler time, measured";
}

/*
 * The options that bring CPU c's sampling rate from rate to target: -F or -c per sampling event
 * on that CPU, scaled alike.
 */
static void rate_advice(const struct overhead_model *m, const struct om_cpu *c, double rate,
			double target, char *buf, size_t len)
{
	int n = 0;

	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];

		if (!sampling_event(e) || (c && !om_event_cpu_samples(m, i, c->cpu)))
			continue;
		if (n++ == 4) {
			cat(buf, len, ", ...");
			break;
		}
		cat(buf, len, "%s", n > 1 ? ", " : "");
		/*
		 * A frequency event gets its share of the target: it samples at -F whenever its
		 * task runs, so the advice holds even on a CPU that was busy all the time, and
		 * it does not trust a rate the kernel capped or throttled. A fixed period scales
		 * exactly: the rate is proportional to 1 / period. Multiply before dividing and
		 * forgive rounding: 1428 * 4000 / 4000 is 1428.
		 */
		if (event_freq(m, i) && rate > 0) {
			u64 f = (u64)floor(target *
					       rate_of(om_event_cpu_samples(m, i, c ? c->cpu : -1),
						       c ? c->wall_ns : 0) /
					       rate +
					   1e-6);

			if (!c)
				f = (u64)floor(target);

			cat(buf, len, "-F %" PRIu64 " for %s", f ? f : 1, e->name);
		} else if (rate > 0 && target > 0) {
			cat(buf, len, "-c %" PRIu64 " for %s",
			    (u64)ceil((double)e->attr.sample_period * rate / target - 1e-6),
			    e->name);
		}
	}
	if (!n)
		cat(buf, len, "-F %" PRIu64, (u64)floor(target));
}

/*
 * The CPU where pct() is highest among those it measured (pct() >= 0), or NULL; *over: how many
 * are above warn.
 */
static const struct om_cpu *worst_cpu(const struct overhead_model *m,
				      double (*pct)(const struct om_cpu *), double warn, int *over)
{
	const struct om_cpu *w = NULL;

	*over = 0;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		const struct om_cpu *c = &m->cpus[i];

		if (pct(c) < 0)
			continue;
		if (pct(c) > warn)
			(*over)++;
		if (!w || pct(c) > pct(w))
			w = c;
	}
	return w;
}

/* The sampling interrupt's share of a CPU, when some samples measured it. */
static double sampling_pct(const struct om_cpu *c)
{
	return c->basis_nr ? c->sampling_pct : -1;
}

static double sideband_pct(const struct om_cpu *c)
{
	return c->sideband_pct;
}

static void rule_sample_cost(const struct overhead_model *m, struct om_findings *fs)
{
	const struct om_cpu *w = NULL;
	struct om_finding *f;
	double cost, rate, target;
	int over = 0;
	char a[32], b[32];

	w = worst_cpu(m, sampling_pct, OM_SAMPLE_COST_WARN_PCT, &over);
	if (!w || w->sampling_pct <= OM_SAMPLE_COST_WARN_PCT)
		return;
	cost = (double)w->basis_ns / (double)w->basis_nr;
	rate = rate_of(w->basis_nr, w->wall_ns);
	target = (double)overhead_rate_for_budget(cost, fs->budget);
	f = add_finding(fs, w->sampling_pct > OM_SAMPLE_COST_SEVERE_PCT ? OM_SEVERE : OM_WARN,
			w->cpu, -1, w->sampling_pct);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "CPU %d spends %.1f%% of its time taking samples: %.0f samples/s x %s per sample "
		 "(%s)",
		 w->cpu, w->sampling_pct, rate, overhead_format_ns(a, sizeof(a), cost),
		 basis_words(w));
	if (w->basis == OM_BASIS_HANDLER)
		cat(f->message, sizeof(f->message),
		    "; %s, so the real cost is higher (the handler is only part of what an "
		    "interrupt takes from the program)",
		    w->basis_note);
	else if (w->handler_nr)
		cat(f->message, sizeof(f->message), "; the handler alone takes %s",
		    overhead_format_ns(b, sizeof(b),
				       (double)w->handler_ns / (double)w->handler_nr));
	if (w->basis == OM_BASIS_HANDLER && m->have_facts &&
	    !strcmp(m->facts.source, "tracepoint")) {
		const struct overhead_fact_cpu *fc = overhead_facts_find_cpu(&m->facts, w->cpu);

		/* At or below 0 it is below what the calibration resolves: nothing to say. */
		if (fc && fc->collector.state == OVERHEAD_FACT_OK && fc->collector.ns > 0)
			cat(f->message, sizeof(f->message),
			    "; the tracepoint collector inflates each handler time by about %s "
			    "(half its calibrated cost)",
			    overhead_format_ns(b, sizeof(b), fc->collector.ns / 2));
	}
	if (over > 1)
		cat(f->message, sizeof(f->message), "; %d CPUs are above %.0f%%", over,
		    OM_SAMPLE_COST_WARN_PCT);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "at %s per sample, %.0f samples/s keep CPU %d under the %.3g%% budget (--budget): ", a,
	    target, w->cpu, fs->budget);
	rate_advice(m, w, rate, target, f->advice, sizeof(f->advice));
}

static void rule_throttle(const struct overhead_model *m, struct om_findings *fs)
{
	const struct om_cpu *w = NULL;
	u64 count = 0, ns = 0, limit = rate_limit(m);
	bool from_records = m->throttles > 0;
	int cpus = 0;
	struct om_finding *f;
	double share = -1, worst_ns = 0;
	char a[32];

	if (from_records) {
		count = m->throttles;
		ns = m->throttled_ns;
		for (u32 i = 0; i < m->nr_cpus; i++) {
			const struct om_cpu *c = &m->cpus[i];

			if (!c->throttles)
				continue;
			cpus++;
			if (!w || c->throttled_ns > w->throttled_ns ||
			    (c->throttled_ns == w->throttled_ns && c->throttles > w->throttles))
				w = c;
		}
		if (w)
			worst_ns = (double)w->throttled_ns;
	} else {
		/* A file without perf's records: prec:overhead throttle figures. */
		const struct om_cost *wk = NULL;

		for (u32 i = 0; i < m->nr_costs; i++) {
			const struct om_cost *k = &m->costs[i];

			if (k->kind != OVERHEAD_TYPE_THROTTLE ||
			    k->status == OVERHEAD_UNAVAILABLE || !k->nr)
				continue;
			count += k->nr;
			ns += k->time_ns;
			cpus++;
			if (!wk || k->time_ns > wk->time_ns)
				wk = k;
		}
		if (wk) {
			w = overhead_model_cpu(m, wk->cpu);
			worst_ns = (double)wk->time_ns;
		}
	}
	if (!count)
		return;
	if (w && w->wall_ns)
		share = pct_of(worst_ns, (double)w->wall_ns);
	f = add_finding(fs, share >= OM_THROTTLE_SEVERE_PCT ? OM_SEVERE : OM_WARN, w ? w->cpu : -1,
			-1, share);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message), "the kernel throttled sampling %" PRIu64 " time%s",
		 count, count == 1 ? "" : "s");
	if (m->wall_ns)
		cat(f->message, sizeof(f->message), " (%.1f per second)",
		    rate_of(count, m->wall_ns));
	if (cpus)
		cat(f->message, sizeof(f->message), " on %d CPU%s, %s without samples in all", cpus,
		    cpus == 1 ? "" : "s", overhead_format_ns(a, sizeof(a), (double)ns));
	if (w) {
		cat(f->message, sizeof(f->message), "; CPU %d the longest: %s", w->cpu,
		    overhead_format_ns(a, sizeof(a), worst_ns));
		if (share >= 0)
			cat(f->message, sizeof(f->message), ", %.1f%% of its time", share);
	}
	if (m->have_facts && m->facts.max_rate_before && m->facts.max_rate_after) {
		cat(f->message, sizeof(f->message),
		    "; kernel.perf_event_max_sample_rate was %" PRIu64 " before and %" PRIu64
		    " after",
		    m->facts.max_rate_before, m->facts.max_rate_after);
		if (m->facts.max_rate_after < m->facts.max_rate_before)
			cat(f->message, sizeof(f->message),
			    " (the kernel lowered it: sampling interrupts took too long)");
	} else {
		cat(f->message, sizeof(f->message),
		    "; the kernel's sample-rate limit before and after was not recorded");
	}

	/*
	 * What to lower, and to what: the budget's rate where the cost per sample is known, never
	 * more than half the kernel's limit (bursts above the limit's share of a tick throttle).
	 */
	if (w) {
		const char *why = "the --budget at the measured cost per sample";
		double rate = 0, target = 0;

		for (u32 i = 0; i < m->nr_events; i++)
			if (sampling_event(&m->events[i]))
				rate += rate_of(om_event_cpu_samples(m, i, w->cpu), w->wall_ns);
		if (w->basis_nr)
			target = (double)overhead_rate_for_budget(
			    (double)w->basis_ns / (double)w->basis_nr, fs->budget);
		if (limit && (!target || target > (double)(limit / 2))) {
			target = (double)(limit / 2);
			why = "half the kernel's limit";
		}
		if (!target) {
			target = rate / 2;
			why = "half the rate";
		}
		if (rate > 0 && target > 0) {
			cat(f->advice, sizeof(f->advice),
			    "lower the sampling rate: CPU %d took %.0f samples/s; at most %.0f "
			    "(%s): ",
			    w->cpu, rate, target, why);
			rate_advice(m, w, rate, target, f->advice, sizeof(f->advice));
		}
	}
	if (!f->advice[0]) {
		if (limit)
			cat(f->advice, sizeof(f->advice),
			    "lower -F to %" PRIu64 " or less (half the "
			    "kernel's limit), or raise -c",
			    limit / 2);
		else
			cat(f->advice, sizeof(f->advice), "lower -F, or raise -c");
	}
	if (m->have_facts && m->facts.max_rate_after &&
	    m->facts.max_rate_after < m->facts.max_rate_before)
		cat(f->advice, sizeof(f->advice),
		    "; a rate within the budget also stops the kernel lowering its limit; "
		    "sysctl kernel.perf_event_max_sample_rate=%" PRIu64 " puts the limit back",
		    m->facts.max_rate_before);
}

/*
 * The side-band records the ring buffers carried: the facts' count (what the recorder drained
 * from the rings) when the file has it, else the records in the data (synthesized ones
 * included). *from_data says which.
 */
static u64 sideband_carried(const struct overhead_model *m, bool *from_data)
{
	const u64 *counts = m->have_facts && m->facts.have_sideband_records
				? m->facts.sideband_records
				: m->sideband_records;
	u64 n = 0;

	*from_data = counts == m->sideband_records;
	for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++)
		if (t != PERF_RECORD_SAMPLE && t != PERF_RECORD_LOST &&
		    t != PERF_RECORD_LOST_SAMPLES && t != PERF_RECORD_THROTTLE &&
		    t != PERF_RECORD_UNTHROTTLE)
			n = sat_add(n, counts[t]);
	return n;
}

/*
 * A size that would have held what was lost, when size held what was kept: the next power of two
 * (as -m and the map sizes are), at least twice. Pages of -m, keys of --aggregate-entries.
 */
static u64 pages_for(u64 pages, u64 kept, u64 lost)
{
	double want = (double)pages * (kept + lost) / (kept ? kept : 1);
	u64 p = pages * 2;

	while ((double)p < want && p < (1ULL << 20))
		p *= 2;
	return p;
}

/*
 * What the kernel drops when a ring buffer is full is records of every kind, side-band as much
 * as samples: LOST counts them per ring, and PERF_FORMAT_LOST (LOST_SAMPLES), despite its name,
 * counts them per event (the kernel's __perf_output_begin() bumps both for any record that does
 * not fit). So the share lost is lost records over the records the rings were to carry: the
 * samples, the side-band records and the THROTTLE/UNTHROTTLE records kept, and those lost. A
 * side-band storm loses side-band records by the thousand: over the samples alone that read as
 * 92% of the profile lost.
 */
/* A lost figure of prec:overhead that the aggregation's maps lost, not a ring buffer. */
static bool aggregate_loss(const struct om_cost *k)
{
	return k->kind == OVERHEAD_TYPE_LOST && k->status != OVERHEAD_UNAVAILABLE &&
	       !strncmp(k->reason, "aggregate:", 10);
}

/*
 * What prec record --aggregate could not count: keys (or stacks) that found its maps full. The
 * samples were never in a ring buffer, so -m cannot help: the maps must hold more keys. Keys
 * seen are the records of the aggregated events (one per key and interval); a map of
 * aggregate.entries keys held them, so one that holds keys + lost in that proportion is advised.
 * The share is of the kernel samples, which the aggregate figures count (one program run each).
 */
static u64 rule_lost_aggregate(const struct overhead_model *m, struct om_findings *fs)
{
	u64 lost = 0, stacks = 0, keys = 0, runs = 0;
	u64 entries = m->have_facts ? m->facts.aggregate_entries : 0;
	const struct om_cost *first = NULL;
	const char *why;
	int worst = -1;
	u64 worst_n = 0;
	struct om_finding *f;
	double share;

	for (u32 i = 0; i < m->nr_costs; i++) {
		const struct om_cost *k = &m->costs[i];

		if (k->kind == OVERHEAD_TYPE_AGGREGATE && k->status != OVERHEAD_UNAVAILABLE)
			runs = sat_add(runs, k->nr);
		if (!aggregate_loss(k) || !k->nr)
			continue;
		/* A lost stack is a sample counted under [lost stack]; a lost key is gone. */
		if (!strncmp(k->reason, "aggregate: stack", 16)) {
			stacks = sat_add(stacks, k->nr);
			continue;
		}
		lost = sat_add(lost, k->nr);
		if (!first)
			first = k;
		if (k->cpu >= 0 && k->nr > worst_n) {
			worst = k->cpu;
			worst_n = k->nr;
		}
	}
	if (!lost && !stacks)
		return 0;
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct overhead_fact_event *fe =
		    m->have_facts ? overhead_facts_find_event(&m->facts, i) : NULL;

		if (fe && fe->aggregated)
			keys = sat_add(keys, m->events[i].samples);
	}
	/* The program counts every run, lost or not: the runs are all the samples taken. */
	if (runs < sat_add(lost, stacks))
		runs = sat_add(lost, stacks);
	share = pct_of((double)sat_add(lost, stacks), (double)runs);
	f = add_finding(fs, share >= OM_LOST_SEVERE_PCT ? OM_SEVERE : OM_WARN, worst, -1, share);
	if (!f)
		return lost;
	if (lost) {
		why = first->reason + strlen("aggregate:");
		while (*why == ' ')
			why++;
		snprintf(f->message, sizeof(f->message),
			 "%" PRIu64 " samples lost in the kernel (%.2f%% of %" PRIu64
			 "): the aggregation's maps could not hold their keys (%s)",
			 lost, pct_of((double)lost, (double)runs), runs, why);
	} else {
		f->message[0] = '\0';
	}
	if (stacks)
		cat(f->message, sizeof(f->message),
		    "%s%" PRIu64 " samples (%.2f%% of %" PRIu64 ") lost their stack: the stack map "
		    "had no room or the stack's bucket was taken; they are under [lost stack]",
		    lost ? "; " : "", stacks, pct_of((double)stacks, (double)runs), runs);
	if (entries)
		cat(f->message, sizeof(f->message),
		    "; the count map holds %" PRIu64 " keys, %" PRIu64 " were written", entries,
		    keys);
	if (worst >= 0)
		cat(f->message, sizeof(f->message), "; CPU %d lost the most (%" PRIu64 ")", worst,
		    worst_n);
	if (entries)
		cat(f->advice, sizeof(f->advice),
		    "larger maps: --aggregate-entries %" PRIu64 " (now %" PRIu64 ")",
		    pages_for(entries, keys, sat_add(lost, stacks)), entries);
	else
		cat(f->advice, sizeof(f->advice),
		    "larger maps (--aggregate-entries, at least twice the keys)");
	cat(f->advice, sizeof(f->advice),
	    "; not -m: these samples never went through the ring buffers");
	/* Only lost keys are in LOST_SAMPLES: the caller takes them from the rings' losses. */
	return lost;
}

static void rule_lost(const struct overhead_model *m, struct om_findings *fs)
{
	u64 lost = m->lost > m->lost_samples ? m->lost : m->lost_samples, sideband, kept;
	u64 pcost = 0, agg = rule_lost_aggregate(m, fs);
	bool callchain = false, writer_behind, sb_from_data;
	struct om_finding *f;
	const struct om_cpu *w = NULL;
	double share;
	char a[32], b[32];

	if (!m->lost_records) {
		/* No perf records: the prec:overhead lost figures. */
		for (u32 i = 0; i < m->nr_costs; i++)
			if (m->costs[i].kind == OVERHEAD_TYPE_LOST &&
			    m->costs[i].status != OVERHEAD_UNAVAILABLE &&
			    !aggregate_loss(&m->costs[i]))
				pcost += m->costs[i].nr;
		lost = pcost;
	} else if (agg) {
		/* LOST_SAMPLES carry the aggregation's losses too: the rings lost the rest */
		u64 ring = m->lost_samples > agg ? m->lost_samples - agg : 0;

		lost = m->lost > ring ? m->lost : ring;
	}
	if (!lost)
		return;
	sideband = sideband_carried(m, &sb_from_data);
	kept = sat_add(sat_add(m->samples, sideband), sat_add(m->throttles, m->unthrottles));
	share = pct_of((double)lost, (double)sat_add(kept, lost));
	f = add_finding(fs, share >= OM_LOST_SEVERE_PCT ? OM_SEVERE : OM_WARN, -1, -1, share);
	if (!f)
		return;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		const struct om_cpu *c = &m->cpus[i];
		u64 cl = c->lost > c->lost_samples ? c->lost : c->lost_samples;

		if (cl && (!w || cl > (w->lost > w->lost_samples ? w->lost : w->lost_samples)))
			w = c;
	}
	snprintf(f->message, sizeof(f->message),
		 "%" PRIu64 " events lost (%.2f%% of %" PRIu64 " records: %" PRIu64
		 " samples, %" PRIu64 " side-band%s, %" PRIu64 " lost%s)",
		 lost, share, sat_add(kept, lost), m->samples, sideband,
		 sb_from_data ? " in the file" : "", lost,
		 m->lost_records ? "" : "; prec:overhead");
	if (m->lost_records) {
		cat(f->message, sizeof(f->message), ":");
		if (m->lost)
			cat(f->message, sizeof(f->message),
			    " the ring buffers dropped %" PRIu64 " records (LOST)", m->lost);
		if (m->lost_samples)
			cat(f->message, sizeof(f->message),
			    "%s the events counted %" PRIu64 " records lost (LOST_SAMPLES%s)",
			    m->lost ? ";" : "", m->lost_samples,
			    m->lost ? ", the same loss seen from the event" : "");
		cat(f->message, sizeof(f->message), ", in %" PRIu64 " records", m->lost_records);
	}
	if (m->lost_first && m->have_time) {
		overhead_format_ns(a, sizeof(a), (double)(m->lost_first - m->start));
		overhead_format_ns(b, sizeof(b), (double)(m->lost_last - m->start));
		if (!strcmp(a, b))
			cat(f->message, sizeof(f->message), ", at %s into the recording", a);
		else
			cat(f->message, sizeof(f->message), ", from %s to %s into the recording", a,
			    b);
	}
	if (w)
		cat(f->message, sizeof(f->message), "; CPU %d lost the most (%" PRIu64 ")", w->cpu,
		    w->lost > w->lost_samples ? w->lost : w->lost_samples);
	f->cpu = w ? w->cpu : -1;

	writer_behind = m->have_facts && m->facts.dropped_passes > 0;
	for (u32 i = 0; i < m->nr_events; i++)
		if (sampling_event(&m->events[i]) &&
		    m->events[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			callchain = true;
	if (m->have_facts && m->facts.mmap_pages)
		cat(f->advice, sizeof(f->advice),
		    "larger ring buffers: -m %" PRIu64 " (now %" PRIu32 " page%s)",
		    pages_for(m->facts.mmap_pages, kept, lost), m->facts.mmap_pages,
		    m->facts.mmap_pages == 1 ? "" : "s");
	else
		cat(f->advice, sizeof(f->advice),
		    "larger ring buffers (-m, at least twice the pages)");
	if (writer_behind) {
		if (m->facts.comp_level > 0)
			cat(f->advice, sizeof(f->advice),
			    "; the writer fell behind: a lower -z level (now %d) or no -z",
			    m->facts.comp_level);
		else
			cat(f->advice, sizeof(f->advice),
			    "; the writer fell behind: -z shrinks what must be written");
	}
	cat(f->advice, sizeof(f->advice), "; less data per second: a lower -F, fewer events%s",
	    callchain ? ", or no -g (call chains make every sample larger)" : "");
}

static bool hardware_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type > PERF_TYPE_BREAKPOINT;
}

/*
 * Same counter, by the rule prec record shares counters by (perf_attr_can_share()). The file does
 * not say whether the target was a task or CPUs: judged as a task's, where inherit matters too,
 * so that a finding never advises asking once for what prec record keeps apart.
 */
static bool compatible(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return perf_attr_can_share(a, b, false);
}

/*
 * The events that read another event's counter (prec record --count opened it once for both):
 * the facts say so (event.N.shared_with), and without facts (pipe mode) their ids do: every
 * STAT reading of such an event names a made-up id (PD_PREC_SHARED_ID_BASE, man/prec-data.5).
 * An array by event index (nr_events + 1 entries), or NULL when out of memory.
 */
static bool *shared_events(const struct overhead_model *m)
{
	bool *sh = calloc(m->nr_events + 1, sizeof(*sh));
	bool *own = calloc(m->nr_events + 1, sizeof(*own));

	if (!sh || !own) {
		free(sh);
		free(own);
		return NULL;
	}
	for (u32 i = 0; i < m->nr_counters; i++) {
		const struct om_counter *k = &m->counters[i];

		if (k->event < 0 || (u32)k->event >= m->nr_events || !k->stat)
			continue;
		if (k->id >= PD_PREC_SHARED_ID_BASE && k->id < PD_PREC_SHARED_ID_END)
			sh[k->event] = true;
		else
			own[k->event] = true;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct overhead_fact_event *fe =
		    m->have_facts ? overhead_facts_find_event(&m->facts, i) : NULL;

		sh[i] = (sh[i] && !own[i]) || (fe && fe->shared_with >= 0);
	}
	free(own);
	return sh;
}

static bool shared(const bool *sh, u32 idx)
{
	return sh[idx];
}

/* The events that read event idx's counter (facts: event.N.shared_with=idx). */
static u32 readers_of(const struct overhead_model *m, u32 idx)
{
	u32 n = 0;

	if (!m->have_facts)
		return 0;
	for (u32 i = 0; i < m->facts.nr_events; i++)
		if (m->facts.events[i].shared_with == (int)idx && m->facts.events[i].idx != idx)
			n++;
	return n;
}

/*
 * Counters that ran less than they were enabled. An event that read another's counter (shared)
 * is not a counter of its own: its readings are that counter's, and it would be counted twice.
 */
static void rule_multiplex(const struct overhead_model *m, struct om_findings *fs)
{
	double worst = 101;
	int n = 0, worst_ev = -1, hw = 0, dup = 0;
	u64 mux_ns = 0;
	const struct om_cpu *wc = NULL;
	struct om_finding *f;
	char a[32];
	bool *sh = shared_events(m);

	if (!sh) {
		fs->oom = true;
		return;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		double p;

		if (e->overhead || !e->have_times || !e->enabled || shared(sh, i))
			continue;
		p = pct_of((double)e->running, (double)e->enabled);
		if (p >= OM_MUX_WARN_PCT)
			continue;
		n++;
		if (hardware_event(&e->attr))
			hw++;
		if (p < worst) {
			worst = p;
			worst_ev = (int)i;
		}
	}
	if (!n)
		goto out;
	f = add_finding(fs, worst < OM_MUX_SEVERE_PCT ? OM_SEVERE : OM_WARN, -1, worst_ev, worst);
	if (!f)
		goto out;
	snprintf(f->message, sizeof(f->message),
		 "%d counter%s ran less than the time %s enabled: ", n, n == 1 ? "" : "s",
		 n == 1 ? "it was" : "they were");
	for (u32 i = 0, k = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		u32 readers;
		double p;

		if (e->overhead || !e->have_times || !e->enabled || shared(sh, i))
			continue;
		p = pct_of((double)e->running, (double)e->enabled);
		if (p >= OM_MUX_WARN_PCT)
			continue;
		if (k++ == 6) {
			cat(f->message, sizeof(f->message), ", ...");
			break;
		}
		cat(f->message, sizeof(f->message), "%s%s %.1f%%%s", k > 1 ? ", " : "", e->name, p,
		    e->running ? "" : " (never running: not counted)");
		readers = readers_of(m, i);
		if (readers)
			cat(f->message, sizeof(f->message), " (its counter also read for %u other "
			    "event%s)", readers, readers == 1 ? "" : "s");
	}
	cat(f->message, sizeof(f->message), n == 1 ? " (its count is a scaled estimate)"
						   : " (their counts are scaled estimates)");
	for (u32 i = 0; i < m->nr_cpus; i++) {
		mux_ns += m->cpus[i].mux_ns;
		if (m->cpus[i].mux_pct >= 0 && (!wc || m->cpus[i].mux_pct > wc->mux_pct))
			wc = &m->cpus[i];
	}
	if (wc && wc->mux_pct >= 0)
		cat(f->message, sizeof(f->message),
		    "; rotating them cost %s in all, %.2f%% of CPU %d at most",
		    overhead_format_ns(a, sizeof(a), (double)mux_ns), wc->mux_pct, wc->cpu);
	else
		cat(f->message, sizeof(f->message), "; the rotation cost was not measured");

	cat(f->advice, sizeof(f->advice),
	    "fewer events at once; put the events you compare in one group ({a,b}) so that they "
	    "are counted over the same time");
	for (u32 i = 0; i < m->nr_events; i++)
		for (u32 j = i + 1; j < m->nr_events; j++)
			if (!m->events[i].overhead && !m->events[j].overhead &&
			    compatible(&m->events[i].attr, &m->events[j].attr) && !shared(sh, i) &&
			    !shared(sh, j))
				dup++;
	if (dup)
		cat(f->advice, sizeof(f->advice),
		    "; %d pair%s of events count the same thing and take a counter each: ask once "
		    "(see duplicate-events)",
		    dup, dup == 1 ? "" : "s");
	if (hw && m->have_facts && m->facts.nmi_watchdog == 1)
		cat(f->advice, sizeof(f->advice),
		    "; the NMI watchdog holds a hardware counter on every CPU "
		    "(kernel.nmi_watchdog = 1): sysctl kernel.nmi_watchdog=0 while recording frees "
		    "it");
out:
	free(sh);
}

static const char *sideband_kind_advice(u32 type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return "an mmap storm (JIT code, dlopen churn, or -d recording data maps): drop "
		       "-d, "
		       "or record a narrower target (-p, -t)";
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return "process and thread churn (short-lived children, exec): record a narrower "
		       "target (-p, -t) or use --no-inherit";
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return "context-switch records: drop --switch-events unless the analysis needs "
		       "them";
	default:
		return "records the kernel sends to every event that asks for side-band: fewer "
		       "events with side-band bits";
	}
}

static void rule_sideband(const struct overhead_model *m, struct om_findings *fs)
{
	const struct om_cpu *w = NULL;
	const u64 *counts;
	struct om_finding *f;
	u32 top = 0, second = 0;
	u64 total = 0;
	char a[32];
	int over = 0;

	w = worst_cpu(m, sideband_pct, OM_SIDEBAND_WARN_PCT, &over);
	if (!w || w->sideband_pct <= OM_SIDEBAND_WARN_PCT)
		return;
	f = add_finding(fs, w->sideband_pct > OM_SIDEBAND_SEVERE_PCT ? OM_SEVERE : OM_WARN, w->cpu,
			-1, w->sideband_pct);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "side-band records cost CPU %d %.1f%% of its time: %" PRIu64 " records (%.0f/s) "
		 "at %s each (estimated: calibrated)",
		 w->cpu, w->sideband_pct, w->sideband_nr, rate_of(w->sideband_nr, w->wall_ns),
		 overhead_format_ns(a, sizeof(a),
				    w->sideband_nr ? (double)w->sideband_ns / w->sideband_nr : 0));
	if (over > 1)
		cat(f->message, sizeof(f->message), "; %d CPUs are above %.0f%%", over,
		    OM_SIDEBAND_WARN_PCT);
	counts = m->have_facts && m->facts.have_sideband_records ? m->facts.sideband_records
								 : m->sideband_records;
	for (u32 t = 1; t < PD_KERNEL_RECORD_MAX; t++) {
		if (t == PERF_RECORD_SAMPLE || t == PERF_RECORD_LOST ||
		    t == PERF_RECORD_LOST_SAMPLES || t == PERF_RECORD_THROTTLE ||
		    t == PERF_RECORD_UNTHROTTLE)
			continue;
		total += counts[t];
		if (counts[t] > counts[top]) {
			second = top;
			top = t;
		} else if (counts[t] > counts[second]) {
			second = t;
		}
	}
	if (total && counts[top]) {
		cat(f->message, sizeof(f->message), "; by kind%s: %s %.0f%%",
		    counts == m->sideband_records ? " (records in the file, synthesized ones "
						    "included)"
						  : "",
		    pd_record_type_name(top), pct_of((double)counts[top], (double)total));
		if (second && counts[second])
			cat(f->message, sizeof(f->message), ", %s %.0f%%",
			    pd_record_type_name(second),
			    pct_of((double)counts[second], (double)total));
		snprintf(f->advice, sizeof(f->advice), "mostly %s", sideband_kind_advice(top));
	} else {
		snprintf(f->advice, sizeof(f->advice),
			 "fewer events with side-band bits; drop --switch-events and -d unless "
			 "needed; record a narrower target (-p, -t)");
	}
}

static void rule_recorder(const struct overhead_model *m, struct om_findings *fs)
{
	u64 cpu_ns = 0, write_ns = 0, wall = 0;
	bool have_cpu = false, behind = m->have_facts && m->facts.dropped_passes > 0;
	double share = -1;
	struct om_finding *f;
	char a[32], b[32];

	for (u32 i = 0; i < m->nr_costs; i++) {
		const struct om_cost *k = &m->costs[i];

		if (k->cpu >= 0 || k->status == OVERHEAD_UNAVAILABLE)
			continue;
		if (k->kind == OVERHEAD_TYPE_RECORDER) {
			have_cpu = true;
			cpu_ns += k->time_ns;
			if (k->span_ns > wall)
				wall = k->span_ns;
		} else if (k->kind == OVERHEAD_TYPE_WRITE) {
			write_ns += k->time_ns;
		}
	}
	if (m->wall_ns > wall)
		wall = m->wall_ns;
	if (have_cpu)
		share = pct_of((double)cpu_ns, (double)wall);
	if (share <= OM_RECORDER_WARN_PCT && !behind)
		return;
	f = add_finding(fs, share > OM_RECORDER_SEVERE_PCT ? OM_SEVERE : OM_WARN, -1, -1, share);
	if (!f)
		return;
	if (share > OM_RECORDER_WARN_PCT) {
		snprintf(f->message, sizeof(f->message),
			 "the recorder used %.0f%% of a CPU (%s of CPU time over %s)", share,
			 overhead_format_ns(a, sizeof(a), (double)cpu_ns),
			 overhead_format_ns(b, sizeof(b), (double)wall));
		if (write_ns)
			cat(f->message, sizeof(f->message), "; writing%s took %s",
			    m->have_facts && m->facts.comp_level > 0 ? " and compressing" : "",
			    overhead_format_ns(a, sizeof(a), (double)write_ns));
		snprintf(f->advice, sizeof(f->advice),
			 "less data to copy: a lower -F, fewer events, no -g");
		if (m->have_facts && m->facts.comp_level > 0)
			cat(f->advice, sizeof(f->advice),
			    "; -z %d costs the writer CPU: a lower level", m->facts.comp_level);
	}
	if (behind) {
		cat(f->message, sizeof(f->message),
		    "%swriting fell behind: %" PRId64 " drain passes left data in the ring buffers "
		    "because the write queue was full",
		    f->message[0] ? "; " : "", m->facts.dropped_passes);
		cat(f->advice, sizeof(f->advice),
		    "%sa faster disk for -o, a lower -z level or none, larger -m",
		    f->advice[0] ? "; " : "");
	}
}

static void rule_short_period(const struct overhead_model *m, struct om_findings *fs)
{
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		const struct om_cpu *w = NULL;
		double wrate = 0, cost = 0, share = -1, target;
		struct om_finding *f;
		enum om_severity sev;
		char a[32];

		if (!sampling_event(e) || event_freq(m, i))
			continue;
		if (e->peak_cpu >= 0) {
			w = overhead_model_cpu(m, e->peak_cpu);
			wrate = e->peak_rate;
		}
		if (!w && e->samples && m->wall_ns) {
			/* No CPU numbers in the file: the rate over all CPUs bounds none of them.
			 */
			wrate = rate_of(e->samples, m->wall_ns);
			if (wrate < OM_SHORT_PERIOD_HZ)
				continue;
			f = add_finding(fs, OM_WARN, -1, (int)i, wrate);
			if (!f)
				return;
			snprintf(
			    f->message, sizeof(f->message),
			    "%s samples every %" PRIu64 " events: %.0f samples/s over all CPUs "
			    "(the file has no CPU numbers; the cost per sample was not measured)",
			    e->name, (u64)e->attr.sample_period, wrate);
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) gives about 4000 samples/s, "
				 "or sample by frequency: -F 4000",
				 (u64)ceil((double)e->attr.sample_period * wrate / 4000));
			continue;
		}
		if (!w || wrate < OM_SHORT_PERIOD_HZ)
			continue;
		if (w->basis_nr) {
			cost = (double)w->basis_ns / (double)w->basis_nr;
			share = wrate * cost / NS_PER_S * 100;
			if (share < OM_SAMPLE_COST_WARN_PCT)
				continue;
		}
		sev = share >= OM_SAMPLE_COST_SEVERE_PCT ? OM_SEVERE : OM_WARN;
		f = add_finding(fs, sev, w->cpu, (int)i, wrate);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s samples every %" PRIu64 " events: %.0f samples/s on CPU %d", e->name,
			 (u64)e->attr.sample_period, wrate, w->cpu);
		if (share >= 0) {
			cat(f->message, sizeof(f->message),
			    ", whose interrupts take %.1f%% of the CPU at %s each (%s)", share,
			    overhead_format_ns(a, sizeof(a), cost), basis_words(w));
			target = (double)overhead_rate_for_budget(cost, fs->budget);
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) keeps it under the %.3g%% "
				 "budget (%.0f samples/s), or sample by frequency: -F %.0f",
				 (u64)ceil((double)e->attr.sample_period * wrate /
					   (target ? target : 1)),
				 fs->budget, target, target);
		} else {
			cat(f->message, sizeof(f->message),
			    " (the cost per sample was not measured)");
			snprintf(f->advice, sizeof(f->advice),
				 "a period of %" PRIu64 " or more (-c) gives about 4000 samples/s, "
				 "or sample by frequency: -F 4000",
				 (u64)ceil((double)e->attr.sample_period * wrate / 4000));
		}
	}
}

static void rule_rate_capped(const struct overhead_model *m, struct om_findings *fs)
{
	u64 limit = rate_limit(m);

	if (!limit)
		return;
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		u64 want = requested_freq(m, i), freq = event_freq(m, i);
		double best = 0;
		struct om_finding *f;

		if (!sampling_event(e) || !freq || want <= limit)
			continue;
		f = add_finding(fs, OM_WARN, -1, (int)i, (double)want);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s asked for %" PRIu64 " Hz, above the kernel's limit of %" PRIu64
			 " (kernel.perf_event_max_sample_rate%s): it was sampled at %" PRIu64
			 " Hz at most, without a word from the kernel",
			 e->name, want, limit,
			 m->facts.max_rate_after &&
				 m->facts.max_rate_after != m->facts.max_rate_before
			     ? " at the end of the recording"
			     : "",
			 freq < limit ? freq : limit);
		if (e->peak_cpu >= 0) {
			best = e->peak_rate;
			f->cpu = e->peak_cpu;
		}
		if (best > 0)
			cat(f->message, sizeof(f->message), "; it took %.0f samples/s on CPU %d",
			    best, f->cpu);
		snprintf(f->advice, sizeof(f->advice),
			 "ask for -F %" PRIu64 " or less; to sample faster raise the limit "
			 "(sysctl kernel.perf_event_max_sample_rate=%" PRIu64
			 "), which the kernel lowers again when interrupts take too long",
			 limit, want);
	}
}

static void rule_duplicates(const struct overhead_model *m, struct om_findings *fs)
{
	bool *seen = calloc(m->nr_events + 1, sizeof(*seen));
	bool *sh = shared_events(m);

	if (!seen || !sh) {
		free(seen);
		free(sh);
		fs->oom = true;
		return;
	}
	for (u32 i = 0; i < m->nr_events; i++) {
		const struct om_event *e = &m->events[i];
		struct om_finding *f;
		bool sampling = sampling_event(e);
		int n = 1;

		if (seen[i] || e->overhead || shared(sh, i) ||
		    (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		for (u32 j = i + 1; j < m->nr_events; j++) {
			if (seen[j] || m->events[j].overhead || shared(sh, j) ||
			    !compatible(&e->attr, &m->events[j].attr))
				continue;
			seen[j] = true;
			n++;
			sampling |= sampling_event(&m->events[j]);
		}
		if (n < 2)
			continue;
		f = add_finding(fs, sampling ? OM_WARN : OM_INFO, -1, (int)i, n);
		if (!f)
			break;
		snprintf(f->message, sizeof(f->message),
			 "%d events count the same thing (type %u, "
			 "config 0x%" PRIx64 ", the same exclusions) and were opened separately: ",
			 n, e->attr.type, (u64)e->attr.config);
		for (u32 j = i, k = 0; j < m->nr_events; j++) {
			if (j != i && (!seen[j] || m->events[j].overhead || shared(sh, j) ||
				       !compatible(&e->attr, &m->events[j].attr)))
				continue;
			cat(f->message, sizeof(f->message), "%s%s", k++ ? ", " : "",
			    m->events[j].name);
		}
		if (e->attr.type == PERF_TYPE_TRACEPOINT)
			cat(f->message, sizeof(f->message), " (unless their filters differ)");
		snprintf(f->advice, sizeof(f->advice), "ask for it once%s",
			 sampling ? ": every copy takes a counter and its own sampling interrupts"
				  : ": every copy takes a counter (prec record opens compatible "
				    "counting events once and reads them for each)");
	}
	free(seen);
	free(sh);
}


/* The rules, in the order they run. */
static const struct {
	const char *id;
	void (*run)(const struct overhead_model *m, struct om_findings *fs);
} rules[] = {
	{"sample-cost", rule_sample_cost},
	{"throttle", rule_throttle},
	{"lost", rule_lost},
	{"multiplex", rule_multiplex},
	{"sideband", rule_sideband},
	{"recorder-cpu", rule_recorder},
	{"short-period", rule_short_period},
	{"rate-capped", rule_rate_capped},
	{"duplicate-events", rule_duplicates},
};

/* Apply every rule, in the table's order; a finding that cannot get its memory sets fs->oom. */
static void run_rules(const struct overhead_model *m, struct om_findings *fs)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		fs->rule = rules[i].id;
		rules[i].run(m, fs);
	}
}

static int cmp_finding(const void *a, const void *b)
{
	const struct om_finding *x = a, *y = b;

	return (int)y->severity - (int)x->severity;
}

/**
 * overhead_model_judge - apply every rule.
 *
 * Return: the number of findings (*out set, free() it), or -ENOMEM.
 */
int overhead_model_judge(const struct overhead_model *m, const struct om_params *p,
			 struct om_finding **out)
{
	struct om_findings fs = {.budget = OM_DEFAULT_BUDGET_PCT};

	*out = NULL;
	if (p && p->budget_pct > 0)
		fs.budget = p->budget_pct;
	run_rules(m, &fs);
	if (fs.oom) {
		free(fs.f);
		return -ENOMEM;
	}
	/* Most severe first; rules keep their order within a severity (a stable sort). */
	for (int i = 1; i < fs.nr; i++) {
		struct om_finding t = fs.f[i];
		int j = i;

		while (j > 0 && cmp_finding(&fs.f[j - 1], &t) > 0) {
			fs.f[j] = fs.f[j - 1];
			j--;
		}
		fs.f[j] = t;
	}
	*out = fs.f;
	return fs.nr;
}
