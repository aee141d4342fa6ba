// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead hook of prec record (record/overhead.h): it opens the collector, runs the
 * calibrations before the workload starts, and turns cumulative figures (the collector's, the
 * recorder's statistics, its rusage) into prec:overhead samples that each cover one interval, as
 * man/prec-data.5 lays down: one per CPU and type, all samples of an interval with the same
 * time, a cost that could not be measured written as unavailable with the reason, never as 0.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "format/perf-data.h"
#include "overhead/calib-cache.h"
#include "overhead/calibrate.h"
#include "overhead/collect.h"
#include "overhead/event.h"
#include "overhead/facts.h"
#include "overhead/model.h"
#include "record/hook.h"
#include "record/overhead.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/xalloc.h"

/*
 * The writer thread counts samples, LOST and side-band per CPU as it writes, and a tick comes
 * right after a drain pass whose blocks it has not looked at yet: its counts would lag an
 * interval behind the collector's. So each interval waits until the writer has looked at
 * everything queued (record_sync()) before it takes the writer's counts. The drain loop waits
 * meanwhile, so a tick waits a short while only (a writer that far behind leaves the rest to the
 * next interval); the end, where nothing is left to drain, waits longer.
 */
#define SYNC_TICK_NS 20000000ULL
#define SYNC_END_NS 10000000000ULL
#define NS_PER_S 1000000000ULL

/* The cumulative figures of a CPU at the end of the last interval. */
struct ovr_cpu {
	u64 handler_nr, handler_ns, mux_nr, mux_ns, coll_lost;
	u64 samples, lost, throttle, throttled_ns;
	u64 sideband[RECORD_NR_KINDS];
	u64 agg_runs, agg_ns, agg_lost_keys, agg_lost_stacks; /* record_aggregate()'s */
};

struct ovr {
	enum overhead_source want;
	bool off;                   /* --overhead-source=none: nothing collected or calibrated */
	bool recalibrate;           /* --recalibrate: the cache is not read */
	u64 interval_ns;            /* --overhead-interval */
	struct overhead_collector *c;
	char coll_why[640];         /* why the kernel-side costs are not measured; "" when they are */
	int idx;                    /* prec:overhead's attr index */
	u64 id;
	int sample_idx;             /* the sampling event the stolen time is calibrated for; -1 */
	bool hw_sampling;           /* a hardware event samples: the NMI handler matters */
	const int *cpus;
	int nr_cpus;
	struct overhead_calib *stolen, *coll;
	bool coll_run;
	struct overhead_calib sb[OVERHEAD_SIDEBAND_NR];
	u64 calib_age_ns;           /* from the cache: how old the calibrations are; 0 measured */
	struct overhead_cpu_stats *cs;
	struct record_cpu_stats *rcs;
	struct ovr_cpu *prev;
	u64 prev_mono, prev_passes, prev_cpu_ns, prev_write_ns, prev_bytes;
	int nmi_watchdog;
	s32 pid;
	bool started;
	bool first;                 /* no interval written yet */
	struct pd_buf out, raw;
};

static int ovr_declare(struct record *rec, void **priv);
static int ovr_prepare(struct record *rec, void *priv);
static int ovr_start(struct record *rec, void *priv);
static int ovr_tick(struct record *rec, void *priv, u64 now);
static int ovr_stop(struct record *rec, void *priv);
static void ovr_finish(struct record *rec, void *priv);

const struct record_hook overhead_hook = {
	.name = "overhead",
	.declare = ovr_declare,
	.prepare = ovr_prepare,
	.start = ovr_start,
	.tick = ovr_tick,
	.stop = ovr_stop,
	.finish = ovr_finish,
};

/* ---------------------------------------------------------------------------------------- */
/* Setting up */

static bool hardware_attr(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;
}

/* A workload event that samples (not a counting event, not dummy, not prec's own). */
static bool sampling_attr(const struct perf_event_attr *a)
{
	if (attr_is_prec_event(a))
		return false;
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
		return false;
	return a->freq ? a->sample_freq > 0 : a->sample_period > 0;
}

/*
 * The event whose samples the stolen time is calibrated for: the first one that samples by
 * interrupt (cpu-clock, task-clock, a hardware event). Tracepoints and other software events
 * take their samples where the program already is in the kernel; no interrupt to time.
 */
static void pick_sampling_event(struct record *rec, struct ovr *o)
{
	const struct perf_event_attr *a;

	o->sample_idx = -1;
	for (int i = 0; (a = record_attr(rec, i)); i++) {
		if (i == o->idx || !sampling_attr(a))
			continue;
		if (hardware_attr(a))
			o->hw_sampling = true;
		if (o->sample_idx < 0 && (hardware_attr(a) || overhead_calib_rate(a) > 0))
			o->sample_idx = i;
	}
}

/* Nothing calibrated for these n figures: err and the reason. */
static void calib_fail(struct overhead_calib *c, int n, int err, const char *why)
{
	for (int i = 0; i < n; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].cpu = -1;
		c[i].err = err;
		snprintf(c[i].reason, sizeof(c[i].reason), "%s", why);
	}
}

static int ovr_declare(struct record *rec, void **priv)
{
	const struct record_opts *opts = record_options(rec);
	struct ovr *o = xcalloc(1, sizeof(*o));
	struct perf_event_attr a;
	int idx;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = OVERHEAD_EVENT_ID;
	a.sample_period = 1;
	a.sample_type = OVERHEAD_SAMPLE_TYPE;
	/* Never opened; excluding the kernel keeps perf quiet about kernel maps either way. */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	/* With -g, as overhead_sample_fill() says. */
	if (opts->callgraph)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	*priv = o;
	o->want = opts->overhead_source;
	o->off = o->want == OVERHEAD_SOURCE_NONE;
	o->interval_ns = opts->overhead_interval_ns;
	o->recalibrate = opts->recalibrate;
	o->pid = (s32)getpid();
	o->nmi_watchdog = -1;
	o->idx = -1;
	record_set_tick(rec, o->interval_ns);
	/* Turned off: the file's events and attrs stay exactly perf record's. */
	if (o->off)
		return 0;
	idx = record_declare_attr(rec, &a, OVERHEAD_SYSTEM ":" OVERHEAD_EVENT, &o->id);
	if (idx < 0)
		return error("cannot add the prec:overhead event: %s", strerror(-idx));
	o->idx = idx;
	return 0;
}

static double median_of(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The one line that says what was measured and how, before perf's summary lines (not with -q). */
static void say_what(const struct ovr *o)
{
	double *v = xcalloc(o->nr_cpus + 1, sizeof(*v));
	char line[1400], a[32];
	int n = 0, len;

	if (o->coll_why[0]) {
		len = snprintf(line, sizeof(line), "interrupt and rotation costs not measured (%s)",
			       o->coll_why);
	} else {
		enum overhead_source s = overhead_collector_source(o->c);

		len = snprintf(line, sizeof(line), "overhead measured by %s", overhead_source_name(s));
		if (s == OVERHEAD_SOURCE_TRACEPOINT) {
			for (int i = 0; o->coll_run && i < o->nr_cpus; i++)
				if (!o->coll[i].err)
					v[n++] = o->coll[i].ns;
			if (n)
				len += snprintf(line + len, sizeof(line) - len,
						", which adds %s per sample",
						overhead_format_ns(a, sizeof(a), median_of(v, n)));
			if (overhead_collector_reason(o->c)[0])
				len += snprintf(line + len, sizeof(line) - len, " (%s)",
						overhead_collector_reason(o->c));
			n = 0;
		}
	}
	for (int i = 0; i < o->nr_cpus; i++)
		if (!o->stolen[i].err && o->stolen[i].ns > 0)
			v[n++] = o->stolen[i].ns;
	if (n) {
		len += snprintf(line + len, sizeof(line) - len,
				"; stolen time calibrated at %s/sample",
				overhead_format_ns(a, sizeof(a), median_of(v, n)));
		if (o->calib_age_ns)
			snprintf(line + len, sizeof(line) - len,
				 " %.0f s ago (cached; --recalibrate measures anew)",
				 ceil((double)o->calib_age_ns / 1e9));
	} else if (o->nr_cpus) {
		snprintf(line + len, sizeof(line) - len, "; stolen time not calibrated (%s)",
			 o->stolen[0].reason[0] ? o->stolen[0].reason : strerror(-o->stolen[0].err));
	}
	free(v);
	if (!quiet)
		fprintf(stderr, "[ prec record: %s ]\n", line);
}

static void debug_calib(const char *what, const struct overhead_calib *c)
{
	if (c->err)
		debug(1, "%s on CPU %d: not calibrated: %s", what, c->cpu,
		      c->reason[0] ? c->reason : strerror(-c->err));
	else
		debug(1, "%s on CPU %d: %.1f ns (%.1f to %.1f, %d runs kept, %d rejected, %llu "
			 "units, %.1f ms)%s%s",
		      what, c->cpu, c->ns, c->min_ns, c->max_ns, c->runs, c->rejected,
		      (unsigned long long)c->units, c->elapsed_ns / 1e6, c->reason[0] ? ": " : "",
		      c->reason);
}

static const char *const sb_kinds[OVERHEAD_SIDEBAND_NR] = { "sideband-mmap", "sideband-comm" };

/*
 * The calibrations of an earlier recording of this boot with the same events, when all of them
 * are there and none is too old (overhead/calib-cache.h).
 */
static bool calibrations_cached(const struct calib_cache *cc, struct ovr *o, const char *key,
				const char *sb_key, bool coll)
{
	u64 age, oldest = 0;

	for (int i = 0; i < o->nr_cpus; i++) {
		if (!calib_cache_get(cc, "stolen", key, o->cpus[i], &o->stolen[i], &age))
			return false;
		oldest = age > oldest ? age : oldest;
		if (coll && !calib_cache_get(cc, "collector-tracepoint", key, o->cpus[i],
					     &o->coll[i], &age))
			return false;
		oldest = age > oldest ? age : oldest;
	}
	for (int k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
		if (!calib_cache_get(cc, sb_kinds[k], sb_key, -1, &o->sb[k], &age))
			return false;
		oldest = age > oldest ? age : oldest;
	}
	o->coll_run = coll;
	o->calib_age_ns = oldest ? oldest : 1;
	return true;
}

/* Keep what was measured for the next recordings. */
static void cache_calibrations(struct calib_cache *cc, const struct ovr *o, const char *key,
			       const char *sb_key)
{
	int err;

	for (int i = 0; i < o->nr_cpus; i++) {
		calib_cache_put(cc, "stolen", key, &o->stolen[i]);
		if (o->coll_run)
			calib_cache_put(cc, "collector-tracepoint", key, &o->coll[i]);
	}
	for (int k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
		struct overhead_calib c = o->sb[k];

		c.cpu = -1;
		calib_cache_put(cc, sb_kinds[k], sb_key, &c);
	}
	err = calib_cache_save(cc);
	if (err)
		debug(1, "cannot keep the calibrations for the next recordings: %s",
		      strerror(-err));
}

/* The calibrations, all before the collector starts and before the workload runs. */
static void calibrate(struct record *rec, struct ovr *o)
{
	const struct perf_event_attr *attr = o->sample_idx >= 0 ? record_attr(rec, o->sample_idx)
								: NULL;
	bool coll = o->c && overhead_collector_source(o->c) == OVERHEAD_SOURCE_TRACEPOINT && attr;
	struct calib_cache *cc = calib_cache_open();
	char why[256] = "", key[160], sb_key[160];
	int n;

	calib_cache_key(attr, key, sizeof(key));
	calib_cache_key(record_tracking_attr(rec), sb_key, sizeof(sb_key));
	if (attr && !o->recalibrate && calibrations_cached(cc, o, key, sb_key, coll)) {
		debug(1, "overhead calibrations from the cache, %.1f s old",
		      o->calib_age_ns / 1e9);
		calib_cache_close(cc);
		return;
	}

	if (attr) {
		n = overhead_calibrate_stolen(o->cpus, o->nr_cpus, attr, NULL, o->stolen);
		if (n < 0)
			calib_fail(o->stolen, o->nr_cpus, n, strerror(-n));
	} else {
		calib_fail(o->stolen, o->nr_cpus, -ENOENT,
			   "no event samples by interrupt (cpu-clock, task-clock or a hardware "
			   "event)");
	}
	for (int i = 0; i < o->nr_cpus; i++) {
		o->stolen[i].cpu = o->cpus[i];
		debug_calib("stolen time per sample", &o->stolen[i]);
	}

	n = overhead_calibrate_sideband(-1, record_tracking_attr(rec), NULL, o->sb);
	if (n < 0)
		calib_fail(o->sb, OVERHEAD_SIDEBAND_NR, n, strerror(-n));
	for (int k = 0; k < OVERHEAD_SIDEBAND_NR; k++)
		debug_calib(k == OVERHEAD_SIDEBAND_MMAP ? "side-band MMAP2 record"
							: "side-band COMM record",
			    &o->sb[k]);

	/*
	 * What the tracepoint collector adds to every sample, so that the report can say by how
	 * much its handler times are inflated. (The BPF collector's few tens of ns are left to
	 * bench/overhead-collector.sh: calibrating them costs 0.3 s at every start.)
	 */
	if (coll) {
		o->coll_run = true;
		n = overhead_calibrate_collector(o->cpus, o->nr_cpus, OVERHEAD_SOURCE_TRACEPOINT,
						 attr, NULL, o->coll, why, sizeof(why));
		if (n < 0)
			calib_fail(o->coll, o->nr_cpus, n, why[0] ? why : strerror(-n));
		for (int i = 0; i < o->nr_cpus; i++) {
			o->coll[i].cpu = o->cpus[i];
			debug_calib("tracepoint collector cost per sample", &o->coll[i]);
		}
	}
	if (attr)
		cache_calibrations(cc, o, key, sb_key);
	calib_cache_close(cc);
}

static int ovr_prepare(struct record *rec, void *priv)
{
	struct ovr *o = priv;
	struct pd_tracing *t;
	u64 t0 = record_monotonic_ns();
	int err;

	o->cpus = record_cpus(rec, &o->nr_cpus);
	o->stolen = xcalloc(o->nr_cpus + 1, sizeof(*o->stolen));
	o->coll = xcalloc(o->nr_cpus + 1, sizeof(*o->coll));
	o->cs = xcalloc(o->nr_cpus + 1, sizeof(*o->cs));
	o->rcs = xcalloc(o->nr_cpus + 1, sizeof(*o->rcs));
	o->prev = xcalloc(o->nr_cpus + 1, sizeof(*o->prev));
	read_sysctl_int("/proc/sys/kernel/nmi_watchdog", &o->nmi_watchdog);
	if (o->off)
		return 0;

	t = record_tracing(rec);
	if (!t)
		return error("out of memory");
	err = pd_tracing_add_format(t, OVERHEAD_SYSTEM, overhead_event_format);
	if (err)
		return error("cannot add the format of prec:overhead: %s", strerror(-err));
	pick_sampling_event(rec, o);
	if (!o->nr_cpus) {
		snprintf(o->coll_why, sizeof(o->coll_why), "the recording has no CPUs");
	} else {
		err = overhead_collector_open(&o->c, o->cpus, o->nr_cpus, o->want);
		if (!o->c)
			return error("cannot set up the overhead collector: %s", strerror(-err));
		debug(1, "overhead collector %s opened in %.1f ms",
		      overhead_source_name(overhead_collector_source(o->c)),
		      (record_monotonic_ns() - t0) / 1e6);
		if (overhead_collector_source(o->c) == OVERHEAD_SOURCE_NONE) {
			snprintf(o->coll_why, sizeof(o->coll_why), "%s",
				 overhead_collector_reason(o->c));
			if (o->want != OVERHEAD_SOURCE_AUTO)
				warning("--overhead-source=%s cannot be used: %s",
					overhead_source_name(o->want), o->coll_why);
		}
	}
	calibrate(rec, o);
	debug(1, "overhead calibrations took %.1f ms", (record_monotonic_ns() - t0) / 1e6);
	return 0;
}

/* The recorder's CPU time, user and system, all threads. */
static u64 rusage_ns(const struct rusage *ru)
{
	return (u64)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * NS_PER_S +
	       (u64)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000;
}

static u64 cpu_lost(const struct record_cpu_stats *c)
{
	/* LOST and PERF_FORMAT_LOST count the same loss: the larger, never the sum. */
	return c->lost > c->lost_samples ? c->lost : c->lost_samples;
}

/* The side-band kinds: every kernel record but samples and what has a type of its own. */
static bool sideband_kind(u32 t)
{
	return t && t != PERF_RECORD_SAMPLE && t != PERF_RECORD_LOST &&
	       t != PERF_RECORD_THROTTLE && t != PERF_RECORD_UNTHROTTLE &&
	       t != PERF_RECORD_LOST_SAMPLES;
}

/* Take the cumulative figures of the writer and the recorder as the start of the next interval. */
static void keep_writer_figures(struct ovr *o, const struct record_stats *st)
{
	for (int i = 0; i < o->nr_cpus; i++) {
		struct ovr_cpu *p = &o->prev[i];
		const struct record_cpu_stats *c = &o->rcs[i];

		p->samples = c->samples;
		p->lost = cpu_lost(c);
		p->throttle = c->throttle;
		p->throttled_ns = c->throttled_ns;
		memcpy(p->sideband, c->sideband, sizeof(p->sideband));
	}
	o->prev_passes = st->passes;
	o->prev_cpu_ns = rusage_ns(&st->ru_end);
	o->prev_write_ns = st->write_ns;
	o->prev_bytes = st->data_bytes;
}

static int ovr_start(struct record *rec, void *priv)
{
	struct ovr *o = priv;
	struct record_stats st;
	struct pd_sample id;
	int err;

	if (o->c && !o->coll_why[0]) {
		err = overhead_collector_start(o->c);
		if (err) {
			snprintf(o->coll_why, sizeof(o->coll_why), "the %s collector did not start: %s",
				 overhead_source_name(overhead_collector_source(o->c)),
				 overhead_collector_reason(o->c)[0] ? overhead_collector_reason(o->c)
								    : strerror(-err));
			warning("%s", o->coll_why);
		}
	}
	o->started = o->first = true;
	if (o->off)
		return 0;
	record_stats_snapshot(rec, &st, o->rcs);
	keep_writer_figures(o, &st);
	o->prev_mono = record_monotonic_ns();

	/* A name for the recorder's pid, which the prec:overhead samples carry. */
	memset(&id, 0, sizeof(id));
	id.pid = id.tid = (u32)o->pid;
	id.time = record_now(rec);
	pd_buf_reset(&o->out);
	pd_encode_comm(&o->out, record_tracking_attr(rec), (u32)o->pid, (u32)o->pid, "prec", false,
		       &id);
	/* The names of the types, before any sample points at them. */
	overhead_symbols_encode(&o->out, record_tracking_attr(rec), &id);
	if (o->out.err)
		return error("out of memory");
	err = record_emit(rec, o->out.data, o->out.len);
	if (err)
		return error("cannot queue a record: %s", strerror(-err));
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The intervals */

static void put(struct record *rec, struct ovr *o, u64 time, int cpu, enum overhead_type type,
		u64 nr, u64 time_ns, u64 span, const char *source, u32 estimated,
		const char *reason)
{
	const struct perf_event_attr *attr = record_attr(rec, o->idx);
	struct overhead_record r = {
		.cpu = cpu,
		.type = overhead_type_name(type),
		.nr = estimated == OVERHEAD_UNAVAILABLE ? 0 : nr,
		.time_ns = estimated == OVERHEAD_UNAVAILABLE ? 0 : time_ns,
		.span_ns = span,
		.source = source,
		.estimated = estimated,
		.reason = reason ? reason : "",
	};
	struct pd_sample s;
	u64 chain[2];

	pd_buf_reset(&o->raw);
	if (overhead_record_encode(&o->raw, o->pid, &r) || o->raw.err)
		return;
	memset(&s, 0, sizeof(s));
	s.sample_type = attr->sample_type;
	overhead_sample_fill(&s, &r, chain);
	s.id = o->id;
	s.pid = s.tid = (u32)o->pid;
	s.time = time;
	s.cpu = cpu < 0 ? 0 : (u32)cpu;
	s.raw = o->raw.data;
	s.raw_size = (u32)o->raw.len;
	pd_encode_sample(&o->out, attr, &s);
}

static int flush(struct record *rec, struct ovr *o)
{
	int err;

	if (o->out.err)
		return error("out of memory");
	if (!o->out.len)
		return 0;
	err = record_emit(rec, o->out.data, o->out.len);
	pd_buf_reset(&o->out);
	if (err)
		return error("cannot queue the prec:overhead samples: %s", strerror(-err));
	return 0;
}

/* The sampling interrupt and rotation of each CPU, from the collector. */
static void put_collector(struct record *rec, struct ovr *o, u64 time, u64 span)
{
	const char *source = overhead_source_name(o->c && !o->coll_why[0]
							  ? overhead_collector_source(o->c)
							  : OVERHEAD_SOURCE_NONE);
	char why[640] = "";
	int err = 0;

	if (!o->coll_why[0]) {
		err = overhead_collector_read(o->c, o->cs);
		if (err)
			snprintf(why, sizeof(why), "the %s collector could not be read: %s", source,
				 strerror(-err));
	}
	for (int i = 0; i < o->nr_cpus; i++) {
		const struct overhead_cpu_stats *cs = &o->cs[i];
		struct ovr_cpu *p = &o->prev[i];
		const int hs[] = { OVERHEAD_HANDLER_SWEVENT, OVERHEAD_HANDLER_NMI };
		const char *r, *missing = NULL;
		char note[700] = "";
		u64 nr = 0, ns = 0, lost;
		int seen = 0;
		u32 status = OVERHEAD_MEASURED;

		if (o->coll_why[0] || err) {
			r = o->coll_why[0] ? o->coll_why : why;
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_SAMPLE, 0, 0, span, source,
			    OVERHEAD_UNAVAILABLE, r);
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_MUX, 0, 0, span, source,
			    OVERHEAD_UNAVAILABLE, r);
			continue;
		}
		for (size_t k = 0; k < sizeof(hs) / sizeof(hs[0]); k++) {
			r = overhead_collector_handler_reason(o->c, hs[k]);
			if (r) {
				if (!missing && (hs[k] != OVERHEAD_HANDLER_NMI || o->hw_sampling))
					missing = r;
				continue;
			}
			seen++;
		}
		nr = cs->h[OVERHEAD_HANDLER_SWEVENT].nr + cs->h[OVERHEAD_HANDLER_NMI].nr;
		ns = cs->h[OVERHEAD_HANDLER_SWEVENT].ns + cs->h[OVERHEAD_HANDLER_NMI].ns;
		lost = cs->lost - p->coll_lost;
		if (!seen) {
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_SAMPLE, 0, 0, span, source,
			    OVERHEAD_UNAVAILABLE, missing);
		} else {
			if (missing)
				snprintf(note, sizeof(note), "partly: %s", missing);
			if (lost) {
				/* Runs in the records the collector's buffer dropped are missing. */
				status = OVERHEAD_ESTIMATED;
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 "%sthe collector's buffer dropped %llu records: a lower "
					 "bound",
					 note[0] ? "; " : "", (unsigned long long)lost);
			}
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_SAMPLE, nr - p->handler_nr,
			    ns - p->handler_ns, span, source, status, note);
		}
		r = overhead_collector_handler_reason(o->c, OVERHEAD_HANDLER_MUX);
		if (r)
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_MUX, 0, 0, span, source,
			    OVERHEAD_UNAVAILABLE, r);
		else
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_MUX,
			    cs->h[OVERHEAD_HANDLER_MUX].nr - p->mux_nr,
			    cs->h[OVERHEAD_HANDLER_MUX].ns - p->mux_ns, span, source,
			    lost ? OVERHEAD_ESTIMATED : OVERHEAD_MEASURED, "");
		p->handler_nr = nr;
		p->handler_ns = ns;
		p->mux_nr = cs->h[OVERHEAD_HANDLER_MUX].nr;
		p->mux_ns = cs->h[OVERHEAD_HANDLER_MUX].ns;
		p->coll_lost = cs->lost;
	}
}

/* The aggregation's figures for one CPU (record_aggregate()), or NULL. */
static const struct record_aggregate_cpu *agg_cpu(const struct record_aggregate *ra, int cpu)
{
	for (int k = 0; ra && k < ra->nr_cpus; k++)
		if (ra->cpu[k].cpu == cpu)
			return &ra->cpu[k];
	return NULL;
}

/* What the writer and the recorder counted: stolen time, side-band, throttling, losses. */
static void put_recorder(struct record *rec, struct ovr *o, u64 time, u64 span,
			 const struct record_stats *st)
{
	for (int i = 0; i < o->nr_cpus; i++) {
		const struct record_cpu_stats *c = &o->rcs[i];
		const struct ovr_cpu *p = &o->prev[i];
		const struct overhead_calib *sc = &o->stolen[i];
		int cpu = o->cpus[i];
		u64 samples = c->samples - p->samples, sb_nr = 0;
		double sb_ns = 0;
		const char *sb_why = NULL;
		char why[256], below[160] = "";
		const struct record_aggregate_cpu *ac = agg_cpu(record_aggregate(rec), cpu);

		/*
		 * Samples counted in the kernel never reach a ring, but each was an interrupt that
		 * stole its time all the same: the program's runs count as samples here.
		 */
		if (ac)
			samples += ac->runs - p->agg_runs;

		/* Nothing calibrated: the time is unknown even in an interval without records. */
		if (o->sb[OVERHEAD_SIDEBAND_MMAP].err && o->sb[OVERHEAD_SIDEBAND_COMM].err)
			sb_why = o->sb[OVERHEAD_SIDEBAND_MMAP].reason;

		if (!sc->err && sc->ns > 0) {
			put(rec, o, time, cpu, OVERHEAD_TYPE_STOLEN, samples,
			    (u64)llround(samples * sc->ns), span, "calibration", OVERHEAD_ESTIMATED,
			    sc->reason);
		} else if (!sc->err) {
			snprintf(why, sizeof(why), "calibrated at %.0f ns per sample: below what the "
				 "probe resolves", sc->ns);
			put(rec, o, time, cpu, OVERHEAD_TYPE_STOLEN, 0, 0, span, "calibration",
			    OVERHEAD_UNAVAILABLE, why);
		} else {
			snprintf(why, sizeof(why), "not calibrated: %s",
				 sc->reason[0] ? sc->reason : strerror(-sc->err));
			put(rec, o, time, cpu, OVERHEAD_TYPE_STOLEN, 0, 0, span, "calibration",
			    OVERHEAD_UNAVAILABLE, why);
		}

		for (u32 t = 0; t < RECORD_NR_KINDS; t++) {
			u64 n = c->sideband[t] - p->sideband[t];
			double each;

			if (sb_why || !sideband_kind(t) || !n)
				continue;
			each = overhead_sideband_ns(o->sb, t);
			/*
			 * Calibrated, but at or below zero: the cost per record is below what the
			 * calibration resolves. Unknown, not 0.
			 */
			if (each <= 0 && !below[0])
				snprintf(below, sizeof(below),
					 "the cost per %s record was calibrated at %.0f ns: below "
					 "what the calibration resolves",
					 pd_record_type_name(t) ? pd_record_type_name(t)
								: "side-band",
					 each);
			sb_nr += n;
			sb_ns += n * each;
		}
		if (sb_why) {
			snprintf(why, sizeof(why), "the cost per record was not calibrated: %s",
				 sb_why[0] ? sb_why : "no reason given");
			put(rec, o, time, cpu, OVERHEAD_TYPE_SIDEBAND, 0, 0, span, "calibration",
			    OVERHEAD_UNAVAILABLE, why);
		} else if (below[0]) {
			put(rec, o, time, cpu, OVERHEAD_TYPE_SIDEBAND, 0, 0, span, "calibration",
			    OVERHEAD_UNAVAILABLE, below);
		} else {
			put(rec, o, time, cpu, OVERHEAD_TYPE_SIDEBAND, sb_nr,
			    (u64)llround(sb_ns), span, "calibration", OVERHEAD_ESTIMATED, "");
		}
		put(rec, o, time, cpu, OVERHEAD_TYPE_THROTTLE, c->throttle - p->throttle,
		    c->throttled_ns - p->throttled_ns, span, "ring-buffer", OVERHEAD_MEASURED, "");
		put(rec, o, time, cpu, OVERHEAD_TYPE_LOST, cpu_lost(c) - p->lost, 0, span,
		    "ring-buffer", OVERHEAD_MEASURED, "");
	}
	put(rec, o, time, -1, OVERHEAD_TYPE_RECORDER, st->passes - o->prev_passes,
	    rusage_ns(&st->ru_end) - o->prev_cpu_ns, span, "rusage", OVERHEAD_MEASURED, "");
	put(rec, o, time, -1, OVERHEAD_TYPE_WRITE, st->data_bytes - o->prev_bytes,
	    st->write_ns - o->prev_write_ns, span, "clock", OVERHEAD_MEASURED, "");
}

/*
 * What in-kernel aggregation cost on each CPU (the program's run time, as it measured it) and
 * what its maps could not hold, as the aggregate hook published them (record_aggregate()).
 */
static void put_aggregate(struct record *rec, struct ovr *o, u64 time, u64 span)
{
	const struct record_aggregate *ra = record_aggregate(rec);
	const struct record_opts *opts = record_options(rec);

	if (!ra)
		return;
	for (int i = 0; i < o->nr_cpus; i++) {
		const struct record_aggregate_cpu *c = agg_cpu(ra, o->cpus[i]);
		struct ovr_cpu *p = &o->prev[i];
		char why[160];
		u64 lost;

		if (!c)
			continue;
		put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_AGGREGATE, c->runs - p->agg_runs,
		    c->run_ns - p->agg_ns, span, "bpf", OVERHEAD_MEASURED, "");
		/*
		 * Two kinds of loss, kept apart (the model keeps one reason per source): samples
		 * whose key found the count map full are gone (LOST_SAMPLES says so too); samples
		 * whose stack found its bucket taken are counted, under a [lost stack] frame.
		 */
		lost = c->lost_keys - p->agg_lost_keys;
		if (lost) {
			snprintf(why, sizeof(why), "aggregate: count map full (--aggregate-entries %llu)",
				 (unsigned long long)opts->aggregate_entries);
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_LOST, lost, 0, span, "bpf",
			    OVERHEAD_MEASURED, why);
		}
		lost = c->lost_stacks - p->agg_lost_stacks;
		if (lost) {
			snprintf(why, sizeof(why), "aggregate: stack map bucket taken or map full "
				 "(--aggregate-entries %llu); the samples are under [lost stack]",
				 (unsigned long long)opts->aggregate_entries);
			put(rec, o, time, o->cpus[i], OVERHEAD_TYPE_LOST, lost, 0, span, "bpf-stack",
			    OVERHEAD_MEASURED, why);
		}
		p->agg_runs = c->runs;
		p->agg_ns = c->run_ns;
		p->agg_lost_keys = c->lost_keys;
		p->agg_lost_stacks = c->lost_stacks;
	}
}

/*
 * One interval: every figure the difference between now and the end of the previous one, all
 * samples with the same time. final: the end of the recording.
 */
static int emit_interval(struct record *rec, struct ovr *o, u64 time, bool final)
{
	const struct record_stats *rs = record_stats(rec);
	u64 mono = record_monotonic_ns(), span, timeout;
	struct record_stats st;

	/*
	 * The spans add up to the recording's wall time as the facts give it: from when the
	 * events were enabled (just after the start hook) to when they were disabled.
	 */
	if (o->first && rs->start_ns > o->prev_mono && rs->start_ns < mono)
		o->prev_mono = rs->start_ns;
	o->first = false;
	if (final && rs->end_ns > o->prev_mono && rs->end_ns < mono)
		mono = rs->end_ns;
	span = mono - o->prev_mono;

	pd_buf_reset(&o->out);
	put_collector(rec, o, time, span);
	if (flush(rec, o))
		return -1;
	timeout = final ? SYNC_END_NS : SYNC_TICK_NS;
	if (record_sync(rec, timeout) == -ETIMEDOUT)
		debug(1, "the writer did not catch up in %llu ms: %s",
		      (unsigned long long)(timeout / 1000000),
		      final ? "the last interval misses what it had not counted"
			    : "its counts go to the next interval");
	record_stats_snapshot(rec, &st, o->rcs);
	put_recorder(rec, o, time, span, &st);
	put_aggregate(rec, o, time, span);
	if (flush(rec, o))
		return -1;
	keep_writer_figures(o, &st);
	o->prev_mono = mono;
	return 0;
}

static int ovr_tick(struct record *rec, void *priv, u64 now)
{
	struct ovr *o = priv;

	return o->started && !o->off ? emit_interval(rec, o, now, false) : 0;
}

/* The facts section, as overhead/facts.h describes it. */
static void set_facts(struct record *rec, struct ovr *o)
{
	const struct record_opts *opts = record_options(rec);
	struct record_stats *st = record_stats(rec);
	const struct perf_event_attr *a;
	struct overhead_facts f;
	struct pd_buf b = PD_BUF_INIT;
	int err;

	overhead_facts_init(&f);
	overhead_fact_set_string(
	    f.source, sizeof(f.source),
	    overhead_source_name(o->c && !o->coll_why[0] ? overhead_collector_source(o->c)
							 : OVERHEAD_SOURCE_NONE));
	overhead_fact_set_string(f.source_wanted, sizeof(f.source_wanted),
				 overhead_source_name(o->want));
	if (o->coll_why[0] && !o->off)
		overhead_fact_set_string(f.source_reason, sizeof(f.source_reason), o->coll_why);
	else if (o->c)
		overhead_fact_set_string(f.source_reason, sizeof(f.source_reason),
					 overhead_collector_reason(o->c));
	f.interval_ns = o->off ? 0 : o->interval_ns;
	f.max_rate_before = st->max_sample_rate_before;
	f.max_rate_after = st->max_sample_rate_after;
	f.nmi_watchdog = o->nmi_watchdog;
	f.mmap_pages = opts->mmap_pages;
	f.comp_level = opts->comp_level;
	f.calib_age_ns = o->calib_age_ns;
	f.dropped_passes = (s64)st->dropped_passes;
	f.queue_max_bytes = (s64)st->queue_max_bytes;
	for (int k = 0; k < OVERHEAD_SIDEBAND_NR && !o->off; k++)
		overhead_fact_from_calib(&f.sideband[k], &o->sb[k]);
	f.have_sideband_records = !o->off;
	for (int i = 0; i < o->nr_cpus && !o->off; i++)
		for (u32 t = 0; t < RECORD_NR_KINDS && t < PD_KERNEL_RECORD_MAX; t++)
			if (sideband_kind(t))
				f.sideband_records[t] += o->rcs[i].sideband[t];
	for (int i = 0; i < o->nr_cpus; i++) {
		struct overhead_fact_cpu *fc = overhead_facts_cpu(&f, o->cpus[i]);

		if (!fc)
			continue;
		if (st->end_ns > st->start_ns)
			fc->wall_ns = st->end_ns - st->start_ns;
		if (!o->off)
			overhead_fact_from_calib(&fc->stolen, &o->stolen[i]);
		if (o->coll_run)
			overhead_fact_from_calib(&fc->collector, &o->coll[i]);
	}
	for (int i = 0; (a = record_attr(rec, i)); i++) {
		struct overhead_fact_event *fe;
		u64 freq;

		if (i == o->idx || !sampling_attr(a))
			continue;
		fe = overhead_facts_event(&f, (u32)i);
		if (!fe)
			continue;
		/*
		 * The kernel's limit lowered -F (record.c, cap_frequency): say what was asked.
		 * cpu-clock and task-clock with -F have the fixed period in their attr.
		 */
		freq = record_event_freq(rec, i);
		if (freq)
			fe->freq = st->freq_requested > freq && freq == opts->freq
					   ? st->freq_requested
					   : freq;
		else
			fe->period = a->sample_period;
		fe->hf_period = record_event_hf(rec, i, &fe->hf_rand);
	}
	/* Counting events that read another's counter (the counters hook's plan). */
	for (int i = 0; record_attr(rec, i); i++) {
		struct overhead_fact_event *fe;
		int with = record_shared_with(rec, i);

		if (with >= 0 && (fe = overhead_facts_event(&f, (u32)i)))
			fe->shared_with = with;
	}
	/* Counting events that asked for a counter shared across sessions (--bpf-counters). */
	for (int i = 0; record_attr(rec, i); i++) {
		struct overhead_fact_event *fe;
		const char *why;
		enum record_bpf_counter how = record_bpf_counter(rec, i, &why);

		if ((how == RECORD_BPF_NONE && !why) || !(fe = overhead_facts_event(&f, (u32)i)))
			continue;
		fe->bpf_counter = how == RECORD_BPF_CREATED  ? OVERHEAD_FACT_BPF_CREATED
				  : how == RECORD_BPF_JOINED ? OVERHEAD_FACT_BPF_JOINED
							     : OVERHEAD_FACT_BPF_NONE;
		if (how == RECORD_BPF_NONE)
			overhead_fact_set_string(fe->bpf_fallback, sizeof(fe->bpf_fallback), why);
	}
	f.counters_interval_ns = record_read_interval(rec);
	if (record_aggregate(rec)) {
		const struct record_aggregate *ra = record_aggregate(rec);
		struct overhead_fact_event *fe;

		f.aggregate_interval_ns = ra->interval_ns;
		f.aggregate_entries = ra->entries;
		for (int i = 0; i < 64; i++)
			if ((ra->attrs & (1ULL << i)) && (fe = overhead_facts_event(&f, (u32)i)))
				fe->aggregated = true;
	}
	err = overhead_facts_encode(&f, &b);
	if (!err)
		err = record_set_feature(rec, PD_FEAT_PREC, b.data, b.len);
	if (err)
		warning("cannot write the prec facts section: %s", strerror(-err));
	pd_buf_release(&b);
	overhead_facts_release(&f);
}

static int ovr_stop(struct record *rec, void *priv)
{
	struct ovr *o = priv;
	int err = 0;

	if (!o->started)
		return 0;
	if (o->c)
		overhead_collector_stop(o->c);
	if (!o->off) {
		err = emit_interval(rec, o, record_now(rec), true);
		say_what(o);
	}
	/* The wall times and the rate limit after are known now (record.c set them before). */
	set_facts(rec, o);
	o->started = false;
	return err;
}

static void ovr_finish(struct record *rec, void *priv)
{
	struct ovr *o = priv;

	if (!o)
		return;
	overhead_collector_close(o->c);
	free(o->stolen);
	free(o->coll);
	free(o->cs);
	free(o->rcs);
	free(o->prev);
	pd_buf_release(&o->out);
	pd_buf_release(&o->raw);
	free(o);
}
