// SPDX-License-Identifier: GPL-2.0
/*
 * Counter readings: --count events opened once per compatible set, and every event of the
 * recording read every --count-interval into PERF_RECORD_STAT / STAT_ROUND (see counters.h and
 * man/prec-data.5).
 *
 * Sources and readers. A source is one counter per (CPU, thread) that is read: the fds of an
 * event the recorder opened (sampling, or counting as a member of an -e ... :S group), or the
 * fds this file opened for a --count event. A reader is one logical event in the file: it takes
 * its values from a source, under its own ids. Events that share a counter read the same
 * source, which is read once per round, so their readings come from the same read() and agree
 * exactly.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "record/counters.h"
#include "record/hook.h"
#include "record/parse-events.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/xalloc.h"

/*
 * Ids of the logical events that read another event's counter: no kernel counter reaches them,
 * and they lie above record.c's synthetic ids (SYNTHETIC_ID_BASE + a few). The report knows a
 * shared reading by them when the facts section is missing (pipe mode).
 */
#define MADE_ID_BASE PD_PREC_SHARED_ID_BASE

#define READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
/* A task's counters on all CPUs are read again (up to READ_TRIES times) when that took longer. */
#define READ_SPAN_NS 50000ULL
#define READ_TRIES 3
/* The largest read() taken: a group of up to 1000 members with every field. */
#define READ_MAX_U64 (3 + 3 * 1000)

struct cnt_val {
	u64 val, ena, run;
};

/*
 * A source's counters are indexed k = cpu_idx * nr_threads + thread_idx (the recorder's
 * layout), or, for a --count event of a task target (any_cpu), k = thread_idx: one counter per
 * thread on any CPU, as perf stat opens them.
 */
struct cnt_source {
	int idx;          /* the attr index of the event whose counter this is */
	u64 read_format;
	int nr;           /* counters: nr_k, or nr_threads when any_cpu */
	bool any_cpu;     /* opened on CPU -1, one per thread */
	bool never_mux;   /* per-CPU counters of a task that never multiplex (combine()) */
	const int *fd;    /* [k]: -1 where not open */
	const u64 *kid;   /* [k]: the kernel id to find in the read */
	int *own_fd;      /* opened here (a --count event), else NULL */
	u64 *own_id;
	struct cnt_val *now; /* [k]: the last reading */
	bool *ok;            /* [k]: now[k] holds a reading (the last one that succeeded) */
};

struct cnt_reader {
	int idx;             /* attr index */
	int src;
	u64 *fid;            /* [k]: the id in the file, 0 where nothing is read */
	struct cnt_val *base; /* [k]: the source's value when this event was enabled */
	u64 *gap;            /* [thread]: enabled - running of the last combined reading */
};

/* One --count event of the recording. */
struct cnt_event {
	const struct event_spec *spec;
	int idx;      /* attr index */
	int shared;   /* attr index whose counter it reads; -1 */
	int src;      /* its source, -1 when it could not be counted */
};

struct counters {
	int nr_k, nr_threads, nr_cpus;
	const int *cpus;
	bool workload;
	bool cpu_wide;
	struct cnt_event *ev;
	int nr_ev;
	struct cnt_source *src;
	int nr_src;
	struct cnt_reader *rd;
	int nr_rd;
	const struct event_list *events; /* --count */
	u64 interval_ns;  /* --count-interval */
	struct counters_part *parts; /* [nr_cpus]: one thread's counters, for combine() */
	int *shared_with; /* by attr index; -1 */
	int nr_attrs;
	u64 next_made_id;
	u64 start_ns;
	bool started;
	bool said_user;   /* the fallback to user space was told */
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
/* Options */

/* ---------------------------------------------------------------------------------------- */
/* The sharing rule */

static bool counting(const struct perf_event_attr *a)
{
	return !a->freq && !a->sample_period;
}

bool counters_compatible(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide)
{
	/* A sampling counter serves its own event only. */
	return counting(a) && counting(b) && perf_attr_can_share(a, b, cpu_wide);
}

void counters_plan(const struct perf_event_attr *const *attrs, const enum counters_kind *kind,
		   int n, bool cpu_wide, int *shared_with)
{
	for (int i = 0; i < n; i++) {
		shared_with[i] = -1;
		if (kind[i] != COUNTERS_COUNT)
			continue;
		/* Compatibility is an equivalence: the first earlier owner found is the one. */
		for (int j = 0; j < i; j++) {
			if (kind[j] == COUNTERS_SAMPLING || shared_with[j] >= 0)
				continue;
			/* A filter may sit on a tracepoint of -e: never assume it has none. */
			if (kind[j] == COUNTERS_OPENED && attrs[j]->type == PERF_TYPE_TRACEPOINT)
				continue;
			if (counters_compatible(attrs[i], attrs[j], cpu_wide)) {
				shared_with[i] = j;
				break;
			}
		}
	}
}

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
	c->workload = o->argc && !o->system_wide && !o->cpu_list && !o->pid_list && !o->tid_list;
	c->cpu_wide = !o->pid_list && !o->tid_list && (o->system_wide || o->cpu_list);

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

		/* Counting only: the parser's weak period (tracepoints) does not apply. */
		attr.sample_period = 0;
		attr.freq = 0;
		attr.sample_type = 0;
		attr.read_format = READ_TIMES | PERF_FORMAT_ID;
		attr.size = PD_ATTR_SIZE;
		attr.disabled = 1;
		attr.enable_on_exec = c->workload;
		attr.inherit = !(o->no_inherit || o->tid_list);
		idx = record_declare_attr(rec, &attr, s->name ? s->name : "unknown", &synthetic_id);
		if (idx < 0)
			return error("cannot add the counting event %s: %s", s->name,
				     strerror(-idx));
		e->spec = s;
		e->idx = idx;
		e->shared = -1;
		e->src = -1;
		c->nr_ev++;
	}
	return 0;
}

static struct cnt_source *new_source(struct counters *c, int idx, u64 read_format, bool any_cpu)
{
	struct cnt_source *s;

	c->src = xrealloc(c->src, (c->nr_src + 1) * sizeof(*c->src));
	s = &c->src[c->nr_src++];
	memset(s, 0, sizeof(*s));
	s->idx = idx;
	s->read_format = read_format;
	s->any_cpu = any_cpu;
	s->nr = any_cpu ? c->nr_threads : c->nr_k;
	s->now = xcalloc(s->nr, sizeof(*s->now));
	s->ok = xcalloc(s->nr, sizeof(*s->ok));
	return s;
}

static struct cnt_reader *new_reader(struct counters *c, int idx, int src)
{
	int nr = c->src[src].nr;
	struct cnt_reader *r;

	c->rd = xrealloc(c->rd, (c->nr_rd + 1) * sizeof(*c->rd));
	r = &c->rd[c->nr_rd++];
	r->idx = idx;
	r->src = src;
	r->fid = xcalloc(nr, sizeof(u64));
	r->base = xcalloc(nr, sizeof(*r->base));
	r->gap = xcalloc(c->nr_threads, sizeof(u64));
	return r;
}

/* The source of the counter event idx opened (-1: none, e.g. it could not be opened). */
static int source_of_attr(const struct counters *c, int idx)
{
	for (int i = 0; i < c->nr_src; i++)
		if (c->src[i].idx == idx)
			return i;
	return -1;
}

/*
 * Open the counter of --count event e, in its --count group when the leader has a counter of its
 * own: with -a or -C on every CPU (and thread), for a task target once per thread on any CPU
 * (with inherit unless -i or -t), as perf stat opens them, so that one read() gives the
 * thread's value, time enabled and time running together. A refusal is not fatal, as in perf
 * stat: the event is "not counted" (the file has its attr and no readings). Return 0, or -1
 * after an error message.
 */
static int open_count_event(struct record *rec, struct counters *c, struct cnt_event *e,
			    const pid_t *threads)
{
	struct perf_event_attr *a = record_attr_edit(rec, e->idx);
	const struct event_spec *s = e->spec;
	bool any_cpu = !c->cpu_wide;
	int nr = any_cpu ? c->nr_threads : c->nr_k;
	int leader_src = -1;
	struct cnt_source *src;
	int *fd = xmalloc(nr * sizeof(int));
	u64 *id = xcalloc(nr, sizeof(u64));
	int opened = 0;

	if (!a) {
		free(fd);
		free(id);
		return error("counting event %s: its attr is gone", s->name);
	}
	for (int k = 0; k < nr; k++)
		fd[k] = -1;
	/* The leader of its --count group, when it has a counter of its own (perf stat's group). */
	if (s->leader >= 0 && &c->events->ev[s->leader] != s) {
		for (int i = 0; i < c->nr_ev; i++)
			if (c->ev[i].spec == &c->events->ev[s->leader] && c->ev[i].shared < 0)
				leader_src = c->ev[i].src;
	}
	a->disabled = leader_src < 0;
	a->enable_on_exec = leader_src < 0 && c->workload;

	for (int k = 0; k < nr; k++) {
		int cpu = any_cpu ? -1 : c->cpus[k / c->nr_threads];
		pid_t pid = threads[k % c->nr_threads];
		int group_fd = leader_src >= 0 ? c->src[leader_src].own_fd[k] : -1;
		int err;

		if (leader_src >= 0 && group_fd < 0)
			continue;
		fd[k] = sys_perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd[k] >= 0) {
			if (ioctl(fd[k], PERF_EVENT_IOC_ID, &id[k]) < 0) {
				error("cannot read the id of counter %s: %s", s->name,
				      strerror(errno));
				goto fail;
			}
			opened++;
			continue;
		}
		err = errno;
		/*
		 * Unprivileged with kernel.perf_event_paranoid >= 2: count user space only, as
		 * perf stat falls back, and so do the events that read this counter.
		 */
		if ((err == EACCES || err == EPERM) && !a->exclude_kernel && !opened) {
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			for (int j = 0; j < c->nr_attrs; j++) {
				struct perf_event_attr *o;

				if (c->shared_with[j] == e->idx && (o = record_attr_edit(rec, j))) {
					o->exclude_kernel = 1;
					o->exclude_hv = 1;
				}
			}
			if (!c->said_user)
				note("no permission to count in the kernel (kernel.perf_event_paranoid):"
				     " counting user space only");
			c->said_user = true;
			k = -1;
			continue;
		}
		/* A thread of -p that exited meanwhile: as the recorder does, go on. */
		if (err == ESRCH && c->nr_threads > 1)
			continue;
		if (err == EMFILE || err == ENFILE) {
			error("too many open files counting '%s': raise the limit with ulimit -n",
			      s->name);
			goto fail;
		}
		if (any_cpu)
			warning("cannot count '%s' in thread %d: %s; it is not counted", s->name,
				(int)pid, strerror(err));
		else
			warning("cannot count '%s' on CPU %d: %s; it is not counted", s->name, cpu,
				strerror(err));
		for (int j = 0; j < k; j++)
			if (fd[j] >= 0)
				close(fd[j]);
		free(fd);
		free(id);
		return 0;
	}
	if (!opened) {
		warning("cannot count '%s': every thread of the target is gone", s->name);
		free(fd);
		free(id);
		return 0;
	}
	debug(1, "counting %s: %d counters (type %u config %#llx)", s->name, opened, a->type,
	      (unsigned long long)a->config);
	src = new_source(c, e->idx, a->read_format, any_cpu);
	src->own_fd = fd;
	src->own_id = id;
	src->fd = fd;
	src->kid = id;
	e->src = c->nr_src - 1;
	return 0;
fail:
	for (int k = 0; k < nr; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	free(fd);
	free(id);
	return -1;
}

/* The ids attr idx has in the file: fid, compact. */
static int set_ids(struct record *rec, struct counters *c, const struct cnt_reader *r)
{
	int nr = c->src[r->src].nr;
	u64 *ids = xcalloc(nr, sizeof(u64));
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

static int cnt_open(struct record *rec, void *priv)
{
	struct counters *c = priv;
	const struct perf_event_attr **attrs;
	enum counters_kind *kind;
	const pid_t *threads;
	const int *fd;
	const u64 *id;
	int n = 0, nr_cpus;
	bool only_soft = true;

	if (!c)
		return 0;
	c->cpus = record_cpus(rec, &nr_cpus);
	c->nr_cpus = nr_cpus;
	threads = record_threads(rec, &c->nr_threads);
	c->nr_k = c->nr_cpus * c->nr_threads;
	c->parts = xcalloc(c->nr_cpus ? c->nr_cpus : 1, sizeof(*c->parts));
	/* A task target reads per thread on any CPU (counters_combine()): the CPU_MAP says -1. */
	if (!c->cpu_wide) {
		static const int any_cpu = -1;
		int err = record_set_cpu_map(rec, &any_cpu, 1);

		if (err)
			return error("cannot set the CPU map of the readings: %s", strerror(-err));
	}
	while (record_attr(rec, n))
		n++;
	c->nr_attrs = n;
	c->shared_with = xmalloc(n * sizeof(int));
	attrs = xcalloc(n, sizeof(*attrs));
	kind = xcalloc(n, sizeof(*kind));
	for (int i = 0; i < n; i++) {
		attrs[i] = record_attr(rec, i);
		kind[i] = COUNTERS_SAMPLING;
		if (record_event_fds(rec, i, &fd, &id) > 0)
			kind[i] = counting(attrs[i]) ? COUNTERS_OPENED : COUNTERS_SAMPLING;
	}
	for (int i = 0; i < c->nr_ev; i++)
		kind[c->ev[i].idx] = COUNTERS_COUNT;
	counters_plan(attrs, kind, n, c->cpu_wide, c->shared_with);
	/* Other hooks (the facts of the overhead hook) learn the plan from the session. */
	for (int i = 0; i < n; i++)
		if (c->shared_with[i] >= 0)
			record_set_shared_with(rec, i, c->shared_with[i]);

	/*
	 * Whether the recorder's software events (and tracepoints) of a task target can be
	 * multiplexed: only in a group led by a counter that can, and the recording has none when
	 * all its events are of those types (combine()).
	 */
	for (int i = 0; i < n; i++)
		if (record_event_fds(rec, i, &fd, &id) > 0 &&
		    attrs[i]->type != PERF_TYPE_SOFTWARE && attrs[i]->type != PERF_TYPE_TRACEPOINT)
			only_soft = false;

	/* The events the recorder opened: their own fds are their sources. */
	for (int i = 0; i < n; i++) {
		struct cnt_source *s;
		int nr = record_event_fds(rec, i, &fd, &id);

		if (nr <= 0)
			continue;
		if (nr != c->nr_k) {
			free(attrs);
			free(kind);
			return error("the recorder's events are not on %d CPUs x %d threads",
				     c->nr_cpus, c->nr_threads);
		}
		s = new_source(c, i, attrs[i]->read_format, false);
		s->fd = fd;
		s->kid = id;
		s->never_mux = only_soft;
	}
	free(attrs);
	free(kind);

	/* The --count events: opened once per compatible set, in order. */
	for (int i = 0; i < c->nr_ev; i++) {
		struct cnt_event *e = &c->ev[i];
		int with = c->shared_with[e->idx];

		if (with >= 0) {
			e->shared = with;
			e->src = source_of_attr(c, with);
			continue;
		}
		if (open_count_event(rec, c, e, threads))
			return -1;
	}

	/* The readers: every opened event under its kernel ids, every --count event. */
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];
		struct cnt_reader *r;

		if (s->own_fd || s->own_id)
			continue; /* a --count event's; added below, in attr order */
		r = new_reader(c, s->idx, i);
		for (int k = 0; k < s->nr; k++)
			r->fid[k] = s->fd[k] >= 0 ? s->kid[k] : 0;
	}
	for (int i = 0; i < c->nr_ev; i++) {
		struct cnt_event *e = &c->ev[i];
		const struct cnt_source *s;
		struct cnt_reader *r;

		if (e->src < 0)
			continue;
		s = &c->src[e->src];
		r = new_reader(c, e->idx, e->src);
		for (int k = 0; k < s->nr; k++) {
			if (s->fd[k] < 0)
				continue;
			r->fid[k] = e->shared < 0 ? s->kid[k] : MADE_ID_BASE + c->next_made_id++;
		}
		if (e->shared >= 0) {
			debug(1, "counting %s with the counter of event %d", e->spec->name,
			      e->shared);
		}
		if (set_ids(rec, c, r))
			return -1;
	}
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

/*
 * One read() of a counter, the value of kernel id kid in it: {value, [ena], [run], [id],
 * [lost]}, or with GROUP {nr, [ena], [run], {value, [id], [lost]} x nr}.
 */
static int read_counter(int fd, u64 read_format, u64 kid, struct cnt_val *v)
{
	u64 buf[READ_MAX_U64];
	ssize_t n = read(fd, buf, sizeof(buf));
	size_t nr = n > 0 ? (size_t)n / 8 : 0, p = 0;
	bool has_id = read_format & PERF_FORMAT_ID, has_lost = read_format & PERF_FORMAT_LOST;
	u64 ena = 0, run = 0, members = 1;

	if (n <= 0)
		return -1;
	if (read_format & PERF_FORMAT_GROUP) {
		if (p >= nr)
			return -1;
		members = buf[p++];
	} else {
		if (p >= nr)
			return -1;
		v->val = buf[p++];
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		if (p >= nr)
			return -1;
		ena = buf[p++];
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		if (p >= nr)
			return -1;
		run = buf[p++];
	}
	v->ena = ena;
	v->run = run;
	if (!(read_format & PERF_FORMAT_GROUP))
		return 0;
	for (u64 m = 0; m < members; m++) {
		u64 val, id = 0;

		if (p >= nr)
			return -1;
		val = buf[p++];
		if (has_id) {
			if (p >= nr)
				return -1;
			id = buf[p++];
		}
		if (has_lost)
			p++;
		if (id == kid) {
			v->val = val;
			return 0;
		}
	}
	return -1;
}

/*
 * Read counter k of a source. A failed read() keeps the last reading that succeeded (now[k] and
 * ok[k] stay): the counter's cumulative value is then a round late, instead of missing from the
 * sum for one round and back in the next.
 */
static void read_one(struct cnt_source *s, int k)
{
	struct cnt_val v;

	if (s->fd[k] >= 0 && !read_counter(s->fd[k], s->read_format, s->kid[k], &v)) {
		s->now[k] = v;
		s->ok[k] = true;
	}
}

static void read_sources(struct counters *c)
{
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];

		if (c->cpu_wide || s->any_cpu) {
			for (int k = 0; k < s->nr; k++)
				read_one(s, k);
			continue;
		}
		/*
		 * A thread's counters on each CPU make one reading (counters_combine()): read them
		 * close together. While the task runs, the time enabled read last leads the
		 * running times read before it by the gap, which would look like multiplexing;
		 * when the recorder was preempted in between, read them again.
		 */
		for (int t = 0; t < c->nr_threads; t++) {
			for (int tries = 0; tries < READ_TRIES; tries++) {
				u64 t0 = record_monotonic_ns();

				for (int cpu = 0; cpu < c->nr_cpus; cpu++)
					read_one(s, cpu * c->nr_threads + t);
				if (record_monotonic_ns() - t0 <= READ_SPAN_NS)
					break;
			}
		}
	}
}

static u64 sub(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

bool counters_combine(const struct counters_part *p, int nr, bool never_mux, u64 *gap,
		      struct pd_stat_body *st)
{
	bool any = false;
	u64 max_ena = 0;

	memset(st, 0, sizeof(*st));
	st->cpu = (u32)-1;
	for (int k = 0; k < nr; k++) {
		/* The reading's id is fixed: the same whichever CPU's read() failed this round. */
		if (!st->id)
			st->id = p[k].id;
		if (!p[k].id || !p[k].ok)
			continue;
		any = true;
		st->val = st->val + p[k].val < st->val ? UINT64_MAX : st->val + p[k].val;
		st->run = st->run + p[k].run < st->run ? UINT64_MAX : st->run + p[k].run;
		if (p[k].ena > max_ena)
			max_ena = p[k].ena;
	}
	if (!any)
		return false;
	if (never_mux) {
		st->ena = st->run;
		return true;
	}
	/* See counters.h: the largest, at least the sum of running, the lead never shrinking. */
	st->ena = max_ena > st->run ? max_ena : st->run;
	if (st->ena - st->run < *gap)
		st->ena = UINT64_MAX - st->run < *gap ? UINT64_MAX : st->run + *gap;
	*gap = st->ena - st->run;
	return true;
}

/* The reading of thread t of a task's per-CPU counters (a recorder's event), combined. */
static bool thread_reading(struct counters *c, const struct cnt_reader *r, int t,
			   struct pd_stat_body *st)
{
	const struct cnt_source *s = &c->src[r->src];

	for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
		int k = cpu * c->nr_threads + t;
		struct counters_part *p = &c->parts[cpu];

		p->id = r->fid[k];
		p->ok = s->ok[k];
		p->val = sub(s->now[k].val, r->base[k].val);
		p->ena = sub(s->now[k].ena, r->base[k].ena);
		p->run = sub(s->now[k].run, r->base[k].run);
	}
	if (!counters_combine(c->parts, c->nr_cpus, s->never_mux, &r->gap[t], st))
		return false;
	st->thread = (u32)t;
	return true;
}

/* Every reader's STATs from this round's readings, then the STAT_ROUND; queued for the file. */
static int emit_round(struct record *rec, struct counters *c, u64 type)
{
	int err;

	read_sources(c);
	pd_buf_reset(&c->out);
	for (int i = 0; i < c->nr_rd; i++) {
		const struct cnt_reader *r = &c->rd[i];
		const struct cnt_source *s = &c->src[r->src];
		struct pd_stat_body st;

		if (!c->cpu_wide && !s->any_cpu) {
			for (int t = 0; t < c->nr_threads; t++)
				if (thread_reading(c, r, t, &st))
					pd_encode_stat(&c->out, &st);
			continue;
		}
		for (int k = 0; k < s->nr; k++) {
			if (!r->fid[k] || !s->ok[k])
				continue;
			st.id = r->fid[k];
			st.cpu = s->any_cpu ? (u32)-1 : (u32)c->cpus[k / c->nr_threads];
			st.thread = (u32)(k % c->nr_threads);
			st.val = sub(s->now[k].val, r->base[k].val);
			st.ena = sub(s->now[k].ena, r->base[k].ena);
			st.run = sub(s->now[k].run, r->base[k].run);
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

static void ioctl_own(struct counters *c, unsigned long req)
{
	for (int i = 0; i < c->nr_src; i++)
		for (int k = 0; c->src[i].own_fd && k < c->src[i].nr; k++)
			if (c->src[i].own_fd[k] >= 0)
				ioctl(c->src[i].own_fd[k], req, 0);
}

static int cnt_start(struct record *rec, void *priv)
{
	struct counters *c = priv;
	struct pd_stat_config_entry cfg[] = {
		{ PD_STAT_CONFIG_AGGR_MODE, PD_AGGR_GLOBAL },
		{ PD_STAT_CONFIG_INTERVAL, c->interval_ns / 1000000 },
		{ PD_STAT_CONFIG_SCALE, 1 },
	};
	int err;

	if (!c)
		return 0;
	/*
	 * Every logical event is enabled with the counter it reads (on exec, or right below and
	 * by the recorder): its base is the counter's value now, before anything runs.
	 */
	read_sources(c);
	for (int i = 0; i < c->nr_rd; i++)
		for (int k = 0; k < c->src[c->rd[i].src].nr; k++)
			if (c->src[c->rd[i].src].ok[k])
				c->rd[i].base[k] = c->src[c->rd[i].src].now[k];

	pd_buf_reset(&c->out);
	pd_encode_stat_config(&c->out, sizeof(cfg) / sizeof(cfg[0]), cfg);
	err = c->out.err ? c->out.err : record_emit(rec, c->out.data, c->out.len);
	if (err)
		return error("cannot queue the counter configuration: %s", strerror(-err));
	/* Without a workload the recorder enables its events right after this; these too. */
	if (!c->workload)
		ioctl_own(c, PERF_EVENT_IOC_ENABLE);
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
	ioctl_own(c, PERF_EVENT_IOC_DISABLE);
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
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];

		for (int k = 0; s->own_fd && k < s->nr; k++)
			if (s->own_fd[k] >= 0)
				close(s->own_fd[k]);
		free(s->own_fd);
		free(s->own_id);
		free(s->now);
		free(s->ok);
	}
	for (int i = 0; i < c->nr_rd; i++) {
		free(c->rd[i].fid);
		free(c->rd[i].base);
		free(c->rd[i].gap);
	}
	free(c->parts);
	free(c->src);
	free(c->rd);
	free(c->ev);
	free(c->shared_with);
	pd_buf_release(&c->out);
	free(c);
}
