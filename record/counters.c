// SPDX-License-Identifier: GPL-2.0
/*
 * Counter readings: --count events opened once per compatible set, and every event of the
 * recording read every --count-interval into PERF_RECORD_STAT / STAT_ROUND (see counters.h and
 * man/prec-data.5). The counting engine (record/counting.c) opens and reads the counters; this
 * hook feeds it the session's events and writes its readings under the file's ids.
 *
 * A reader is one logical event in the file: an engine event, its readings under its own ids.
 * Events that share a counter read the same engine source, read once per round, so their
 * readings come from the same read() and agree exactly.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf-data.h"
#include "record/counters.h"
#include "record/counting.h"
#include "record/hook.h"
#include "record/parse-events.h"
#include "util/log.h"
#include "util/xalloc.h"

/*
 * Ids of the logical events that read another event's counter: no kernel counter reaches them,
 * and they lie above record.c's synthetic ids (SYNTHETIC_ID_BASE + a few). The report knows a
 * shared reading by them when the facts section is missing (pipe mode).
 */
#define MADE_ID_BASE PD_PREC_SHARED_ID_BASE

#define READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* One event the hook reads: an engine event and the ids its readings have in the file. */
struct cnt_reader {
	int idx;             /* attr index */
	int ev;              /* the engine's index */
	u64 *fid;            /* [k]: the id in the file, 0 where nothing is read */
};

/* One --count event of the recording. */
struct cnt_event {
	const struct event_spec *spec;
	int idx;      /* attr index */
	int ev;       /* the engine's index, -1 before open */
};

struct counters {
	struct counting *eng;
	struct counting_target target;
	struct cnt_event *ev;
	int nr_ev;
	struct cnt_reader *rd;  /* the recorder's events in attr order, then the --count ones */
	int nr_rd;
	const struct event_list *events; /* --count */
	u64 interval_ns;  /* --count-interval */
	u64 next_made_id;
	u64 start_ns;
	bool started;
	struct pd_buf out;
};

static int cnt_declare(struct record *rec, void **priv);
static int cnt_open(struct record *rec, void *priv);
static int cnt_prepare(struct record *rec, void *priv);
static int cnt_start(struct record *rec, void *priv);
static int cnt_tick(struct record *rec, void *priv, u64 now);
static int cnt_stop(struct record *rec, void *priv);
static void cnt_finish(struct record *rec, void *priv);

const struct record_hook counters_hook = {
	.name = "counters",
	.declare = cnt_declare,
	.prepare = cnt_prepare,
	.start = cnt_start,
	.tick = cnt_tick,
	.stop = cnt_stop,
	.finish = cnt_finish,
	.open = cnt_open,
};

/* ---------------------------------------------------------------------------------------- */
/* Declaring and opening */

static int cnt_declare(struct record *rec, void **priv)
{
	static const struct event_list no_events;
	const struct record_opts *o = record_options(rec);
	const struct event_list *events = o->count_events ? o->count_events : &no_events;
	struct counters *c;
	struct perf_event_attr *a;
	const int *fd;
	const u64 *id;

	/* Nothing is read unless asked: a plain recording stays what perf record writes. */
	if (!events->nr && !o->count_interval_ns)
		return RECORD_HOOK_OFF;
	c = xcalloc(1, sizeof(*c));
	*priv = c;
	c->events = events;
	c->interval_ns = o->count_interval_ns ? o->count_interval_ns : COUNTERS_INTERVAL_DEFAULT_NS;
	record_set_tick(rec, c->interval_ns);
	record_set_read_interval(rec, c->interval_ns);
	c->target.workload = o->argc && !o->system_wide && !o->cpu_list && !o->pid_list &&
			     !o->tid_list;
	c->target.cpu_wide = !o->pid_list && !o->tid_list && (o->system_wide || o->cpu_list);
	c->target.inherit = !(o->no_inherit || o->tid_list);
	c->target.bpf_counters = o->bpf_counters;

	/* Every event the recorder opens is read with its times (man/prec-data.5). */
	for (int i = 0; (a = record_attr_edit(rec, i)); i++)
		if (record_event_fds(rec, i, &fd, &id) >= 0)
			a->read_format |= READ_TIMES | PERF_FORMAT_ID;

	c->ev = xcalloc(c->events->nr ? c->events->nr : 1, sizeof(*c->ev));
	for (int i = 0; i < c->events->nr; i++) {
		const struct event_spec *s = &c->events->ev[i];
		struct cnt_event *e = &c->ev[c->nr_ev];
		struct perf_event_attr attr = s->attr;
		u64 synthetic_id;
		int idx;

		counting_attr_init(&attr, &c->target);
		idx = record_declare_attr(rec, &attr, s->name ? s->name : "unknown", &synthetic_id);
		if (idx < 0)
			return error("cannot add the counting event %s: %s", s->name,
				     strerror(-idx));
		e->spec = s;
		e->idx = idx;
		e->ev = -1;
		c->nr_ev++;
	}
	return 0;
}

static struct cnt_reader *new_reader(struct counters *c, int idx, int ev)
{
	int nr = counting_nr_counters(c->eng, ev);
	struct cnt_reader *r;

	c->rd = xrealloc(c->rd, (c->nr_rd + 1) * sizeof(*c->rd));
	r = &c->rd[c->nr_rd++];
	r->idx = idx;
	r->ev = ev;
	r->fid = xcalloc(nr > 0 ? nr : 1, sizeof(u64));
	return r;
}

/* The ids attr idx has in the file: fid, compact. */
static int set_ids(struct record *rec, struct counters *c, const struct cnt_reader *r)
{
	int nr = counting_nr_counters(c->eng, r->ev);
	u64 *ids = xcalloc(nr > 0 ? nr : 1, sizeof(u64));
	u32 n = 0;
	int err = 0;

	for (int k = 0; k < nr; k++)
		if (r->fid[k])
			ids[n++] = r->fid[k];
	if (n)
		err = record_set_attr_ids(rec, r->idx, ids, n);
	free(ids);
	return err ? error("cannot give counting event %d its ids: %s", r->idx, strerror(-err))
		   : 0;
}

/* The --count event of attr idx, or NULL. */
static struct cnt_event *count_event(struct counters *c, int idx)
{
	for (int i = 0; i < c->nr_ev; i++)
		if (c->ev[i].idx == idx)
			return &c->ev[i];
	return NULL;
}

/* The engine's index of the --count event of spec s, -1 when there is none (yet). */
static int engine_index(const struct counters *c, const struct event_spec *s)
{
	for (int i = 0; i < c->nr_ev; i++)
		if (c->ev[i].spec == s)
			return c->ev[i].ev;
	return -1;
}

/*
 * The engine's events in attr order, as the sharing plan takes them: the recorder's (sampling
 * or counting) with their fds, and the --count events. Return 0 or a negative errno.
 */
static int add_events(struct record *rec, struct counters *c, int *eng_attr)
{
	const struct perf_event_attr *a;
	const int *fd;
	const u64 *id;

	for (int i = 0; (a = record_attr(rec, i)); i++) {
		struct cnt_event *e = count_event(c, i);
		int nr = record_event_fds(rec, i, &fd, &id);
		int ev;

		if (e) {
			const struct event_spec *s = e->spec;
			int leader = -1;

			if (s->leader >= 0 && &c->events->ev[s->leader] != s)
				leader = engine_index(c, &c->events->ev[s->leader]);
			ev = counting_add(c->eng, a, s->name, leader);
			e->ev = ev;
		} else if (nr > 0) {
			ev = counting_add_opened(c->eng, a, NULL, fd, id, nr);
			if (ev == -EINVAL)
				return error("the recorder's events are not on %d CPUs x %d threads",
					     c->target.nr_cpus, c->target.nr_threads);
		} else {
			continue;
		}
		if (ev < 0)
			return error("cannot count event %d: %s", i, strerror(-ev));
		eng_attr[ev] = i;
	}
	return 0;
}

static int cnt_open(struct record *rec, void *priv)
{
	struct counters *c = priv;
	int nr_attrs = 0, *eng_attr;
	int err;

	if (!c)
		return 0;
	c->target.cpus = record_cpus(rec, &c->target.nr_cpus);
	c->target.threads = record_threads(rec, &c->target.nr_threads);
	/* A task target reads per thread on any CPU (counters_combine()): the CPU_MAP says -1. */
	if (!c->target.cpu_wide) {
		static const int any_cpu = -1;

		err = record_set_cpu_map(rec, &any_cpu, 1);
		if (err)
			return error("cannot set the CPU map of the readings: %s", strerror(-err));
	}
	while (record_attr(rec, nr_attrs))
		nr_attrs++;
	c->eng = counting_new(&c->target);
	eng_attr = xcalloc(nr_attrs > 0 ? nr_attrs : 1, sizeof(int));
	err = add_events(rec, c, eng_attr);
	if (!err && counting_open(c->eng))
		err = -1;
	/* Other hooks (the facts of the overhead hook) learn the plan from the session. */
	for (int ev = 0; !err && ev < counting_nr_events(c->eng); ev++) {
		int with = counting_shared(c->eng, ev);

		if (with >= 0)
			record_set_shared_with(rec, eng_attr[ev], eng_attr[with]);
	}
	/* And how each event met --bpf-counters: a counter shared across sessions, or why not. */
	for (int ev = 0; !err && ev < counting_nr_events(c->eng); ev++) {
		const char *why;
		enum counting_via via = counting_via(c->eng, ev, &why);

		if (via == COUNTING_BPF_CREATED || via == COUNTING_BPF_JOINED || why)
			record_set_bpf_counter(rec, eng_attr[ev],
					       via == COUNTING_BPF_CREATED  ? RECORD_BPF_CREATED
					       : via == COUNTING_BPF_JOINED ? RECORD_BPF_JOINED
									    : RECORD_BPF_NONE,
					       why);
	}
	/* The --count attrs as opened: disabled in a group, user space only without permission. */
	for (int i = 0; !err && i < c->nr_ev; i++) {
		struct perf_event_attr *a = record_attr_edit(rec, c->ev[i].idx);

		if (!a) {
			err = error("counting event %s: its attr is gone", c->ev[i].spec->name);
			break;
		}
		*a = *counting_attr(c->eng, c->ev[i].ev);
	}
	if (err) {
		free(eng_attr);
		return -1;
	}

	/* The readers: every opened event under its kernel ids, every --count event. */
	for (int ev = 0; ev < counting_nr_events(c->eng); ev++) {
		struct cnt_reader *r;
		u64 kid;

		if (count_event(c, eng_attr[ev]) || !counting_supported(c->eng, ev))
			continue; /* a --count event's; added below, in --count order */
		r = new_reader(c, eng_attr[ev], ev);
		for (int k = 0; k < counting_nr_counters(c->eng, ev); k++)
			r->fid[k] = counting_counter(c->eng, ev, k, &kid) ? kid : 0;
	}
	for (int i = 0; i < c->nr_ev; i++) {
		struct cnt_event *e = &c->ev[i];
		int with = counting_shared(c->eng, e->ev);
		struct cnt_reader *r;

		if (!counting_supported(c->eng, e->ev))
			continue;
		r = new_reader(c, e->idx, e->ev);
		for (int k = 0; k < counting_nr_counters(c->eng, e->ev); k++) {
			u64 kid;

			if (!counting_counter(c->eng, e->ev, k, &kid))
				continue;
			/* A reading of another event's counter has no kernel id of its own. */
			r->fid[k] = with < 0 && kid ? kid : MADE_ID_BASE + c->next_made_id++;
		}
		if (with >= 0)
			debug(1, "counting %s with the counter of event %d", e->spec->name,
			      eng_attr[with]);
		if (set_ids(rec, c, r)) {
			free(eng_attr);
			return -1;
		}
	}
	free(eng_attr);
	return 0;
}

static int cnt_prepare(struct record *rec, void *priv)
{
	struct counters *c = priv;

	for (int i = 0; c && i < c->nr_ev; i++) {
		const struct event_spec *s = c->ev[i].spec;
		struct pd_tracing *t;
		u64 id = 0;
		int err;

		if (s->attr.type != PERF_TYPE_TRACEPOINT || !s->tp_system)
			continue;
		t = record_tracing(rec);
		if (!t)
			return error("out of memory");
		err = pd_tracing_add_tracefs_event(t, s->tp_system, s->tp_event, &id);
		if (err)
			return error("cannot read the format of %s from tracefs: %s", s->name,
				     strerror(-err));
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

/* Every reader's STATs from a new round of readings, then the STAT_ROUND; queued for the file. */
static int emit_round(struct record *rec, struct counters *c, u64 type)
{
	int nr_threads = c->target.nr_threads;
	int err;

	counting_read(c->eng);
	pd_buf_reset(&c->out);
	for (int i = 0; i < c->nr_rd; i++) {
		const struct cnt_reader *r = &c->rd[i];

		for (int s = 0; s < counting_nr_slots(c->eng, r->ev); s++) {
			int k = counting_slot_counter(c->eng, r->ev, s);
			struct counting_value v;
			struct pd_stat_body st;

			if (k < 0 || !r->fid[k] || !counting_reading(c->eng, r->ev, s, &v))
				continue;
			st.id = r->fid[k];
			/* A slot is a CPU (and thread) with -a or -C, else a thread on any CPU. */
			st.cpu = c->target.cpu_wide ? (u32)c->target.cpus[s / nr_threads] : (u32)-1;
			st.thread = (u32)(c->target.cpu_wide ? s % nr_threads : s);
			st.val = v.val;
			st.ena = v.ena;
			st.run = v.run;
			pd_encode_stat(&c->out, &st);
		}
	}
	pd_encode_stat_round(&c->out, type, record_monotonic_ns() - c->start_ns);
	if (c->out.err)
		return error("out of memory");
	err = record_emit(rec, c->out.data, c->out.len);
	if (err)
		return error("cannot queue the counter readings: %s", strerror(-err));
	return 0;
}

static int cnt_start(struct record *rec, void *priv)
{
	struct counters *c = priv;
	struct pd_stat_config_entry cfg[] = {
		{ PD_STAT_CONFIG_AGGR_MODE, PD_AGGR_GLOBAL },
		{ PD_STAT_CONFIG_INTERVAL, c ? c->interval_ns / 1000000 : 0 },
		{ PD_STAT_CONFIG_SCALE, 1 },
	};
	int err;

	if (!c)
		return 0;
	pd_buf_reset(&c->out);
	pd_encode_stat_config(&c->out, sizeof(cfg) / sizeof(cfg[0]), cfg);
	err = c->out.err ? c->out.err : record_emit(rec, c->out.data, c->out.len);
	if (err)
		return error("cannot queue the counter configuration: %s", strerror(-err));
	/*
	 * The bases, and without a workload the counters enabled: the recorder enables its own
	 * events right after this.
	 */
	counting_enable(c->eng);
	c->start_ns = record_monotonic_ns();
	c->started = true;
	return 0;
}

static int cnt_tick(struct record *rec, void *priv, u64 now)
{
	struct counters *c = priv;

	(void)now;
	if (!c || !c->started)
		return 0;
	return emit_round(rec, c, PD_STAT_ROUND_INTERVAL);
}

static int cnt_stop(struct record *rec, void *priv)
{
	struct counters *c = priv;
	int err;

	if (!c || !c->started)
		return 0;
	/* The recorder disabled its events already. */
	counting_disable(c->eng);
	err = emit_round(rec, c, PD_STAT_ROUND_FINAL);
	c->started = false;
	return err;
}

static void cnt_finish(struct record *rec, void *priv)
{
	struct counters *c = priv;

	(void)rec;
	if (!c)
		return;
	counting_free(c->eng);
	for (int i = 0; i < c->nr_rd; i++)
		free(c->rd[i].fid);
	free(c->rd);
	free(c->ev);
	pd_buf_release(&c->out);
	free(c);
}
