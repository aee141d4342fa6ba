// SPDX-License-Identifier: GPL-2.0
/*
 * The counting engine (record/counting.h): counting events opened once per compatible set, as
 * perf stat opens them, and read in rounds.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "record/bperf.h"
#include "record/counting.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/xalloc.h"

#define READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
/* A task's counters on all CPUs are read again (up to READ_TRIES times) when that took longer. */
#define READ_SPAN_NS 50000ULL
#define READ_TRIES 3
/* The largest read() taken: a group of up to 1000 members with every field. */
#define READ_MAX_U64 (3 + 3 * 1000)

/* The counters one or more events read (see counting.h: counters and slots). */
struct cnt_source {
	u64 read_format;
	int nr;           /* counters: nr_k, or nr_threads when any_cpu */
	bool any_cpu;     /* one per thread on CPU -1 (or a callback source of a task target) */
	bool never_mux;   /* per-CPU counters of a task that never multiplex (combine()) */
	const int *fd;    /* [k]: -1 where not open; NULL for a callback source */
	const u64 *kid;   /* [k]: the kernel id to find in the read */
	int *own_fd;      /* opened here (a counting event), else NULL */
	u64 *own_id;
	const struct counting_source_ops *ops; /* a callback source, else NULL */
	void *priv;
	struct counting_value *now; /* [k]: the last reading */
	bool *ok;                   /* [k]: now[k] holds a reading (the last one that succeeded) */
};

struct cnt_event {
	struct perf_event_attr attr;
	char *name;
	int leader;       /* its group leader's index, -1 */
	bool opened;      /* the caller's (counting_add_opened()) */
	const int *fd;    /* the caller's fds and ids */
	const u64 *kid;
	int shared;       /* the event whose counter it reads, -1 */
	int src;          /* its source, -1 when it is not counted */
	enum counting_via via;
	const char *why;  /* why it has no counter shared across sessions, when asked */
	char why_text[96]; /* why, when it says what the kernel said */
	struct counting_value *base; /* [k]: the source's reading when it was enabled */
	struct counting_value *cur;  /* [slot]: the last reading, since enabled */
	bool *cur_ok;                /* [slot] */
	u64 *gap;                    /* [thread]: enabled - running of the last combined reading */
};

struct counting {
	struct counting_target t;
	int nr_k;
	struct cnt_event *ev;
	int nr_ev;
	struct cnt_source *src;
	int nr_src;
	struct counters_part *parts; /* [nr_cpus]: one thread's counters, for combine() */
	bool opened;
	bool said_user;   /* the fallback to user space was told */
	struct bperf *bperf; /* bpf_counters: this engine's counters shared across sessions */
	int bperf_err;    /* why it has none (a negative errno), once tried */
};

/* ---------------------------------------------------------------------------------------- */
/* The sharing rule */

static bool counts(const struct perf_event_attr *a)
{
	return !a->freq && !a->sample_period;
}

bool counters_compatible(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide)
{
	/* A sampling counter serves its own event only. */
	return counts(a) && counts(b) && perf_attr_can_share(a, b, cpu_wide);
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
/* Events */

void counting_attr_init(struct perf_event_attr *attr, const struct counting_target *t)
{
	/* Counting only: the parser's weak period (tracepoints) does not apply. */
	attr->sample_period = 0;
	attr->freq = 0;
	attr->sample_type = 0;
	attr->read_format = READ_TIMES | PERF_FORMAT_ID;
	attr->size = PD_ATTR_SIZE;
	attr->disabled = 1;
	attr->enable_on_exec = t->workload;
	attr->inherit = t->inherit;
}

struct counting *counting_new(const struct counting_target *t)
{
	struct counting *c = xcalloc(1, sizeof(*c));

	c->t = *t;
	c->nr_k = t->nr_cpus * t->nr_threads;
	c->parts = xcalloc(t->nr_cpus > 0 ? t->nr_cpus : 1, sizeof(*c->parts));
	return c;
}

static struct cnt_event *new_event(struct counting *c, const struct perf_event_attr *attr,
				   const char *name)
{
	struct cnt_event *e;

	c->ev = xrealloc(c->ev, (c->nr_ev + 1) * sizeof(*c->ev));
	e = &c->ev[c->nr_ev++];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->name = xstrdup(name ? name : "unknown");
	e->leader = -1;
	e->shared = -1;
	e->src = -1;
	return e;
}

int counting_add(struct counting *c, const struct perf_event_attr *attr, const char *name,
		 int leader)
{
	struct cnt_event *e;

	if (c->opened)
		return -EBUSY;
	e = new_event(c, attr, name);
	e->leader = leader >= 0 && leader < c->nr_ev - 1 ? leader : -1;
	return c->nr_ev - 1;
}

int counting_add_opened(struct counting *c, const struct perf_event_attr *attr, const char *name,
			const int *fd, const u64 *id, int nr)
{
	struct cnt_event *e;

	if (c->opened)
		return -EBUSY;
	if (nr != c->nr_k)
		return -EINVAL;
	e = new_event(c, attr, name);
	e->opened = true;
	e->fd = fd;
	e->kid = id;
	return c->nr_ev - 1;
}

static struct cnt_source *new_source(struct counting *c, u64 read_format, bool any_cpu)
{
	struct cnt_source *s;

	c->src = xrealloc(c->src, (c->nr_src + 1) * sizeof(*c->src));
	s = &c->src[c->nr_src++];
	memset(s, 0, sizeof(*s));
	s->read_format = read_format;
	s->any_cpu = any_cpu;
	s->nr = any_cpu ? c->t.nr_threads : c->nr_k;
	s->now = xcalloc(s->nr > 0 ? s->nr : 1, sizeof(*s->now));
	s->ok = xcalloc(s->nr > 0 ? s->nr : 1, sizeof(*s->ok));
	return s;
}

/*
 * Use a callback source for event e: one counter per CPU with cpu_wide, else one for the whole
 * target.
 */
static void use_source(struct counting *c, struct cnt_event *e,
		       const struct counting_source_ops *ops, void *priv, enum counting_via via)
{
	struct cnt_source *s = new_source(c, 0, !c->t.cpu_wide);

	/* A counter shared across sessions reads a task target whole: one counter, one slot. */
	if (!c->t.cpu_wide)
		s->nr = 1;

	s->ops = ops;
	s->priv = priv;
	e->src = c->nr_src - 1;
	e->via = via;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening */

/* A source read from a counter shared across sessions (record/bperf.h). */
struct shared_source {
	struct counting *c;
	int ev;       /* its index in c->bperf */
	int idx;      /* the engine's event */
};

/*
 * The session's share: per CPU with cpu_wide; for a task target the whole target in its one
 * counter (the program cannot tell the threads apart on a counter of the CPU).
 */
static int shared_read(void *priv, int k, struct counting_value *v)
{
	struct shared_source *p = priv;
	struct counting *c = p->c;
	struct bperf_reading r;
	int err;
	/* Once per round, before its first counter: the readers run on each CPU. */
	if (!k)
		bperf_read(c->bperf, p->ev);
	err = bperf_value(c->bperf, p->ev, c->t.cpu_wide ? c->t.cpus[k] : -1, &r);
	if (err)
		return err;
	v->val = r.val;
	v->ena = r.ena;
	v->run = r.run;
	return 0;
}

static void shared_enable(void *priv)
{
	struct shared_source *p = priv;
	int err = bperf_enable(p->c->bperf);

	if (err) {
		warning("--bpf-counters: cannot attach the readers of the shared counters: %s",
			strerror(-err));
		return;
	}
	/* The array holds the CPUs online when it was made: a CPU that came up since has none. */
	for (int i = 0; i < p->c->t.nr_cpus; i++) {
		int cpu = p->c->t.cpus[i];

		if (cpu >= 0 && !bperf_has_counter(p->c->bperf, p->ev, cpu))
			debug(1, "--bpf-counters: %s: CPU %d has no counter in the shared array "
			      "(online since it was made): not counted there", p->c->ev[p->idx].name,
			      cpu);
	}
}

static void shared_disable(void *priv)
{
	bperf_disable(((struct shared_source *)priv)->c->bperf);
}

static const struct counting_source_ops shared_ops = {
	.read = shared_read,
	.enable = shared_enable,
	.disable = shared_disable,
	.release = free,
};

/* The process (tgid) of thread tid, or -1 when it is gone. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[4096];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)atoi(p + 6) : -1;
}

/*
 * The processes of n threads, each once, into out (room for n): the readers look a task up by
 * its process, and a thread id that another process had as its own would be counted otherwise.
 * Return: their number.
 */
static int tgids_of(const pid_t *threads, int n, pid_t *out)
{
	int nr = 0;

	for (int i = 0; i < n; i++) {
		pid_t tgid = tgid_of(threads[i]);
		bool seen = false;

		for (int j = 0; j < nr; j++)
			seen |= out[j] == tgid;
		if (tgid > 0 && !seen)
			out[nr++] = tgid;
	}
	return nr;
}

/*
 * What the shared counters' readers follow: the target, in their terms (bperf-calc.h). tgids
 * has room for the target's threads: the processes go there.
 */
static void shared_target(const struct counting_target *t, struct bperf_target *b, pid_t *tgids)
{
	memset(b, 0, sizeof(*b));
	if (t->cpu_wide) {
		b->mode = BPERF_CPUS;
		b->cpus = t->cpus;
		b->nr_cpus = t->nr_cpus;
		return;
	}
	/* With inherit, processes and their children; without, threads (-t, -i). */
	b->mode = t->inherit ? BPERF_TGIDS : BPERF_TIDS;
	b->children = t->inherit;
	if (t->workload) {
		b->workload = t->threads[0];
	} else if (b->mode == BPERF_TIDS) {
		b->tasks = t->threads;
		b->nr_tasks = t->nr_threads;
	} else {
		b->tasks = tgids;
		b->nr_tasks = tgids_of(t->threads, t->nr_threads, tgids);
	}
}

/*
 * A counter shared across sessions for event e (target bpf_counters): 0 with e's source set
 * (use_source()), or a negative errno with *why saying why e counts with its own counters.
 */
static int open_shared_counter(struct counting *c, struct cnt_event *e, const char **why)
{
	const struct counting_source_ops *ops = &shared_ops;
	struct shared_source *priv;
	struct bperf_target bt;
	enum bperf_how how;
	int ev;

	/* One counter per CPU cannot be read as a member of a group. */
	if (e->leader >= 0) {
		*why = "it is in a group";
		return -EOPNOTSUPP;
	}
	for (int i = 0; i < c->nr_ev; i++) {
		if (c->ev[i].leader == e - c->ev) {
			*why = "it is in a group";
			return -EOPNOTSUPP;
		}
	}
	if (!c->bperf && !c->bperf_err) {
		pid_t *tgids = xcalloc(c->t.nr_threads > 0 ? c->t.nr_threads : 1, sizeof(pid_t));

		shared_target(&c->t, &bt, tgids);
		c->bperf_err = bperf_new(&bt, &c->bperf);
		free(tgids);
	}
	if (c->bperf_err == -ENOTSUP) {
		*why = "BPF cannot be used (this prec was built without it)";
		return c->bperf_err;
	}
	if (c->bperf_err) {
		snprintf(e->why_text, sizeof(e->why_text), "BPF cannot be used (%s)",
			 strerror(-c->bperf_err));
		*why = e->why_text;
		return c->bperf_err;
	}
	ev = bperf_add(c->bperf, &e->attr, &how);
	if (ev < 0) {
		if (ev == -E2BIG)
			snprintf(e->why_text, sizeof(e->why_text), "the map of shared events is "
				 "full (%d events)", BPERF_MAX_EVENTS);
		else if (ev == -EUSERS)
			snprintf(e->why_text, sizeof(e->why_text), "its shared counter serves %d "
				 "sessions already", BPERF_MAX_USERS);
		else
			snprintf(e->why_text, sizeof(e->why_text), "the kernel will not share it "
				 "on each CPU (%s)", strerror(-ev));
		*why = e->why_text;
		return ev;
	}
	/* Reused: every session that used it was killed; this one reads it alone. */
	debug(1, "--bpf-counters: %s the shared counter of %s",
	      how == BPERF_CREATED ? "created" : how == BPERF_REUSED ? "reused" : "joined", e->name);
	priv = xmalloc(sizeof(*priv));
	priv->c = c;
	priv->ev = ev;
	priv->idx = (int)(e - c->ev);
	use_source(c, e, ops, priv, how == BPERF_CREATED ? COUNTING_BPF_CREATED
							   : COUNTING_BPF_JOINED);
	return 0;
}

/*
 * Open the counters of counting event e, in its group when the leader has a counter of its own:
 * with cpu_wide on every CPU (and thread), for a task target once per thread on any CPU (with
 * inherit as its attr says), as perf stat opens them, so that one read() gives the thread's
 * value, time enabled and time running. A refusal is not fatal, as in perf stat: the event is
 * "not counted". Return 0, or a negative errno after an error message.
 */
static int open_event(struct counting *c, struct cnt_event *e)
{
	struct perf_event_attr *a = &e->attr;
	bool any_cpu = !c->t.cpu_wide;
	int nr = any_cpu ? c->t.nr_threads : c->nr_k;
	int leader_src = -1;
	struct cnt_source *src;
	int *fd = xmalloc((nr > 0 ? nr : 1) * sizeof(int));
	u64 *id = xcalloc(nr > 0 ? nr : 1, sizeof(u64));
	int opened = 0, ret = 0;

	for (int k = 0; k < nr; k++)
		fd[k] = -1;
	/* The leader of its group, when it has a counter of its own (perf stat's group). */
	if (e->leader >= 0 && c->ev[e->leader].shared < 0)
		leader_src = c->ev[e->leader].src;
	if (leader_src >= 0 && !c->src[leader_src].own_fd)
		leader_src = -1;
	a->disabled = leader_src < 0;
	a->enable_on_exec = leader_src < 0 && c->t.workload;

	for (int k = 0; k < nr; k++) {
		int cpu = any_cpu ? -1 : c->t.cpus[k / c->t.nr_threads];
		pid_t pid = c->t.threads[k % c->t.nr_threads];
		int group_fd = leader_src >= 0 ? c->src[leader_src].own_fd[k] : -1;
		int err;

		if (leader_src >= 0 && group_fd < 0)
			continue;
		fd[k] = sys_perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd[k] >= 0) {
			if (ioctl(fd[k], PERF_EVENT_IOC_ID, &id[k]) < 0) {
				ret = -errno;
				error("cannot read the id of counter %s: %s", e->name,
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
			for (int j = 0; j < c->nr_ev; j++) {
				if (c->ev[j].shared == e - c->ev) {
					c->ev[j].attr.exclude_kernel = 1;
					c->ev[j].attr.exclude_hv = 1;
				}
			}
			if (!c->said_user)
				note("no permission to count in the kernel (kernel.perf_event_paranoid):"
				     " counting user space only");
			c->said_user = true;
			k = -1;
			continue;
		}
		/*
		 * A PMU that cannot tell a guest from its host (msr, uncore) refuses the
		 * exclude_guest the parser sets by default: count without it, as perf stat 6.1
		 * does when it finds that missing, and so do the events that read this counter.
		 */
		if (err == EINVAL && (a->exclude_guest || a->exclude_host) && !opened) {
			a->exclude_guest = a->exclude_host = 0;
			for (int j = 0; j < c->nr_ev; j++) {
				if (c->ev[j].shared == e - c->ev)
					c->ev[j].attr.exclude_guest = c->ev[j].attr.exclude_host = 0;
			}
			debug(1, "counting %s: the PMU refuses exclude_guest, counting without it",
			      e->name);
			k = -1;
			continue;
		}
		/* A thread of -p that exited meanwhile: as the recorder does, go on. */
		if (err == ESRCH && c->t.nr_threads > 1)
			continue;
		if (err == EMFILE || err == ENFILE) {
			ret = -err;
			error("too many open files counting '%s': raise the limit with ulimit -n",
			      e->name);
			goto fail;
		}
		if (any_cpu)
			warning("cannot count '%s' in thread %d: %s; it is not counted", e->name,
				(int)pid, strerror(err));
		else
			warning("cannot count '%s' on CPU %d: %s; it is not counted", e->name, cpu,
				strerror(err));
		goto fail;
	}
	if (!opened) {
		warning("cannot count '%s': every thread of the target is gone", e->name);
		goto fail;
	}
	debug(1, "counting %s: %d counters (type %u config %#llx)", e->name, opened, a->type,
	      (unsigned long long)a->config);
	src = new_source(c, a->read_format, any_cpu);
	src->own_fd = fd;
	src->own_id = id;
	src->fd = fd;
	src->kid = id;
	e->src = c->nr_src - 1;
	e->via = COUNTING_OWN;
	return 0;
fail:
	for (int k = 0; k < nr; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	free(fd);
	free(id);
	return ret;
}

/* The source of the counter event idx has (-1: none). */
static int source_of(const struct counting *c, int idx)
{
	return idx >= 0 && idx < c->nr_ev ? c->ev[idx].src : -1;
}

int counting_open(struct counting *c)
{
	const struct perf_event_attr **attrs;
	enum counters_kind *kind;
	int *shared_with;
	int n = c->nr_ev;
	bool only_soft = true;

	if (c->opened)
		return -EBUSY;
	c->opened = true;
	attrs = xcalloc(n > 0 ? n : 1, sizeof(*attrs));
	kind = xcalloc(n > 0 ? n : 1, sizeof(*kind));
	shared_with = xcalloc(n > 0 ? n : 1, sizeof(*shared_with));
	for (int i = 0; i < n; i++) {
		attrs[i] = &c->ev[i].attr;
		kind[i] = !c->ev[i].opened ? COUNTERS_COUNT
			  : counts(attrs[i]) ? COUNTERS_OPENED
					     : COUNTERS_SAMPLING;
	}
	counters_plan(attrs, kind, n, c->t.cpu_wide, shared_with);
	for (int i = 0; i < n; i++)
		c->ev[i].shared = shared_with[i];
	free(attrs);
	free(kind);
	free(shared_with);

	/*
	 * Whether the caller's software events (and tracepoints) of a task target can be
	 * multiplexed: only in a group led by a counter that can, and there is none when all its
	 * events are of those types (combine()).
	 */
	for (int i = 0; i < n; i++)
		if (c->ev[i].opened && c->ev[i].attr.type != PERF_TYPE_SOFTWARE &&
		    c->ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			only_soft = false;

	/* The events the caller opened: their own fds are their sources. */
	for (int i = 0; i < n; i++) {
		struct cnt_event *e = &c->ev[i];
		struct cnt_source *s;

		if (!e->opened)
			continue;
		s = new_source(c, e->attr.read_format, false);
		s->fd = e->fd;
		s->kid = e->kid;
		s->never_mux = only_soft;
		e->src = c->nr_src - 1;
		e->via = COUNTING_OWN;
	}

	/* The counting events: opened once per compatible set, in order. */
	for (int i = 0; i < n; i++) {
		struct cnt_event *e = &c->ev[i];
		int err;

		if (e->opened)
			continue;
		if (e->shared >= 0) {
			e->src = source_of(c, e->shared);
			e->via = e->src >= 0 ? COUNTING_SHARED : COUNTING_NONE;
			continue;
		}
		if (c->t.bpf_counters) {
			if (!open_shared_counter(c, e, &e->why))
				continue;
			note("--bpf-counters: %s counts with its own counters: %s", e->name, e->why);
		}
		err = open_event(c, e);
		if (err)
			return err;
	}

	for (int i = 0; i < n; i++) {
		struct cnt_event *e = &c->ev[i];
		int nr;

		if (e->src < 0)
			continue;
		nr = c->src[e->src].nr;
		e->base = xcalloc(nr > 0 ? nr : 1, sizeof(*e->base));
		nr = counting_nr_slots(c, i);
		e->cur = xcalloc(nr > 0 ? nr : 1, sizeof(*e->cur));
		e->cur_ok = xcalloc(nr > 0 ? nr : 1, sizeof(*e->cur_ok));
		e->gap = xcalloc(c->t.nr_threads > 0 ? c->t.nr_threads : 1, sizeof(u64));
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

/*
 * One read() of a counter, the value of kernel id kid in it: {value, [ena], [run], [id],
 * [lost]}, or with GROUP {nr, [ena], [run], {value, [id], [lost]} x nr}.
 */
static int read_counter(int fd, u64 read_format, u64 kid, struct counting_value *v)
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

/* Is counter k of a source there? */
static bool source_has(const struct cnt_source *s, int k)
{
	return s->ops ? true : s->fd[k] >= 0;
}

/*
 * Read counter k of a source. A failed read keeps the last reading that succeeded (now[k] and
 * ok[k] stay): the counter's cumulative value is then a round late, instead of missing from the
 * sum for one round and back in the next.
 */
static void read_one(struct cnt_source *s, int k)
{
	struct counting_value v;

	if (s->ops) {
		if (!s->ops->read(s->priv, k, &v)) {
			s->now[k] = v;
			s->ok[k] = true;
		}
		return;
	}
	if (s->fd[k] >= 0 && !read_counter(s->fd[k], s->read_format, s->kid[k], &v)) {
		s->now[k] = v;
		s->ok[k] = true;
	}
}

static void read_sources(struct counting *c)
{
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];

		if (c->t.cpu_wide || s->any_cpu) {
			for (int k = 0; k < s->nr; k++)
				read_one(s, k);
			continue;
		}
		/*
		 * A thread's counters on each CPU make one reading (counters_combine()): read them
		 * close together. While the task runs, the time enabled read last leads the
		 * running times read before it by the gap, which would look like multiplexing;
		 * when the reader was preempted in between, read them again.
		 */
		for (int t = 0; t < c->t.nr_threads; t++) {
			for (int tries = 0; tries < READ_TRIES; tries++) {
				u64 t0 = mono_ns();

				for (int cpu = 0; cpu < c->t.nr_cpus; cpu++)
					read_one(s, cpu * c->t.nr_threads + t);
				if (mono_ns() - t0 <= READ_SPAN_NS)
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
	/* See counting.h: the largest, at least the sum of running, the lead never shrinking. */
	st->ena = max_ena > st->run ? max_ena : st->run;
	if (st->ena - st->run < *gap)
		st->ena = UINT64_MAX - st->run < *gap ? UINT64_MAX : st->run + *gap;
	*gap = st->ena - st->run;
	return true;
}

/* Whether event e's slots combine a thread's per-CPU counters (the caller's, a task target). */
static bool combined(const struct counting *c, const struct cnt_source *s)
{
	return !c->t.cpu_wide && !s->any_cpu;
}

/* Event e's readings of this round, from its source's. */
static void update_event(struct counting *c, struct cnt_event *e)
{
	const struct cnt_source *s = &c->src[e->src];

	if (combined(c, s)) {
		for (int t = 0; t < c->t.nr_threads; t++) {
			struct pd_stat_body st;

			for (int cpu = 0; cpu < c->t.nr_cpus; cpu++) {
				int k = cpu * c->t.nr_threads + t;
				struct counters_part *p = &c->parts[cpu];

				p->id = source_has(s, k);
				p->ok = s->ok[k];
				p->val = sub(s->now[k].val, e->base[k].val);
				p->ena = sub(s->now[k].ena, e->base[k].ena);
				p->run = sub(s->now[k].run, e->base[k].run);
			}
			if (!counters_combine(c->parts, c->t.nr_cpus, s->never_mux, &e->gap[t],
					      &st))
				continue;
			e->cur[t] = (struct counting_value){ st.val, st.ena, st.run };
			e->cur_ok[t] = true;
		}
		return;
	}
	for (int k = 0; k < s->nr; k++) {
		if (!source_has(s, k) || !s->ok[k])
			continue;
		e->cur[k].val = sub(s->now[k].val, e->base[k].val);
		e->cur[k].ena = sub(s->now[k].ena, e->base[k].ena);
		e->cur[k].run = sub(s->now[k].run, e->base[k].run);
		e->cur_ok[k] = true;
	}
}

void counting_read(struct counting *c)
{
	read_sources(c);
	for (int i = 0; i < c->nr_ev; i++)
		if (c->ev[i].src >= 0)
			update_event(c, &c->ev[i]);
}

static void ioctl_own(struct counting *c, unsigned long req)
{
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];

		if (s->ops) {
			if (req == PERF_EVENT_IOC_ENABLE && s->ops->enable)
				s->ops->enable(s->priv);
			if (req == PERF_EVENT_IOC_DISABLE && s->ops->disable)
				s->ops->disable(s->priv);
			continue;
		}
		for (int k = 0; s->own_fd && k < s->nr; k++)
			if (s->own_fd[k] >= 0)
				ioctl(s->own_fd[k], req, 0);
	}
}

void counting_enable(struct counting *c)
{
	/*
	 * Every event is enabled with the counter it reads (on exec, or right below and by the
	 * caller): its base is the counter's value now, before anything runs.
	 */
	read_sources(c);
	for (int i = 0; i < c->nr_ev; i++) {
		struct cnt_event *e = &c->ev[i];
		const struct cnt_source *s;

		if (e->src < 0)
			continue;
		s = &c->src[e->src];
		for (int k = 0; k < s->nr; k++)
			if (s->ok[k])
				e->base[k] = s->now[k];
	}
	if (!c->t.workload) {
		ioctl_own(c, PERF_EVENT_IOC_ENABLE);
		return;
	}
	/* Shared counters follow a workload from its exec themselves (record/bperf.bpf.c). */
	for (int i = 0; i < c->nr_src; i++)
		if (c->src[i].ops && c->src[i].ops->enable)
			c->src[i].ops->enable(c->src[i].priv);
}

void counting_exec_done(struct counting *c)
{
	if (c && c->bperf)
		bperf_exec_done(c->bperf);
}

void counting_disable(struct counting *c)
{
	ioctl_own(c, PERF_EVENT_IOC_DISABLE);
}

/* ---------------------------------------------------------------------------------------- */
/* What the events are and read */

static const struct cnt_event *event(const struct counting *c, int ev)
{
	return c && ev >= 0 && ev < c->nr_ev ? &c->ev[ev] : NULL;
}

int counting_nr_events(const struct counting *c)
{
	return c ? c->nr_ev : 0;
}

const struct perf_event_attr *counting_attr(const struct counting *c, int ev)
{
	const struct cnt_event *e = event(c, ev);

	return e ? &e->attr : NULL;
}

bool counting_supported(const struct counting *c, int ev)
{
	const struct cnt_event *e = event(c, ev);

	return e && e->src >= 0;
}

int counting_shared(const struct counting *c, int ev)
{
	const struct cnt_event *e = event(c, ev);

	return e ? e->shared : -1;
}

enum counting_via counting_via(const struct counting *c, int ev, const char **why)
{
	const struct cnt_event *e = event(c, ev);

	if (why)
		*why = e && e->via != COUNTING_BPF_CREATED && e->via != COUNTING_BPF_JOINED ? e->why
											     : NULL;
	return e ? e->via : COUNTING_NONE;
}

int counting_nr_counters(const struct counting *c, int ev)
{
	const struct cnt_event *e = event(c, ev);

	return e && e->src >= 0 ? c->src[e->src].nr : 0;
}

bool counting_counter(const struct counting *c, int ev, int k, u64 *kid)
{
	const struct cnt_event *e = event(c, ev);
	const struct cnt_source *s;

	*kid = 0;
	if (!e || e->src < 0)
		return false;
	s = &c->src[e->src];
	if (k < 0 || k >= s->nr || !source_has(s, k))
		return false;
	if (!s->ops)
		*kid = s->kid[k];
	return true;
}

int counting_nr_slots(const struct counting *c, int ev)
{
	const struct cnt_event *e = event(c, ev);

	if (!e || e->src < 0)
		return 0;
	return combined(c, &c->src[e->src]) ? c->t.nr_threads : c->src[e->src].nr;
}

int counting_slot_counter(const struct counting *c, int ev, int s)
{
	const struct cnt_event *e = event(c, ev);
	const struct cnt_source *src;

	if (!e || e->src < 0 || s < 0 || s >= counting_nr_slots(c, ev))
		return -1;
	src = &c->src[e->src];
	if (!combined(c, src))
		return source_has(src, s) ? s : -1;
	for (int cpu = 0; cpu < c->t.nr_cpus; cpu++)
		if (source_has(src, cpu * c->t.nr_threads + s))
			return cpu * c->t.nr_threads + s;
	return -1;
}

bool counting_reading(const struct counting *c, int ev, int s, struct counting_value *v)
{
	const struct cnt_event *e = event(c, ev);

	if (!e || e->src < 0 || s < 0 || s >= counting_nr_slots(c, ev) || !e->cur_ok[s])
		return false;
	*v = e->cur[s];
	return true;
}

bool counting_total(const struct counting *c, int ev, struct counting_value *v)
{
	struct counting_value r;
	bool any = false;

	memset(v, 0, sizeof(*v));
	for (int s = 0; s < counting_nr_slots(c, ev); s++) {
		if (!counting_reading(c, ev, s, &r))
			continue;
		v->val += r.val;
		v->ena += r.ena;
		v->run += r.run;
		any = true;
	}
	return any;
}

void counting_free(struct counting *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_src; i++) {
		struct cnt_source *s = &c->src[i];

		if (s->ops && s->ops->release)
			s->ops->release(s->priv);
		for (int k = 0; s->own_fd && k < s->nr; k++)
			if (s->own_fd[k] >= 0)
				close(s->own_fd[k]);
		free(s->own_fd);
		free(s->own_id);
		free(s->now);
		free(s->ok);
	}
	for (int i = 0; i < c->nr_ev; i++) {
		free(c->ev[i].name);
		free(c->ev[i].base);
		free(c->ev[i].cur);
		free(c->ev[i].cur_ok);
		free(c->ev[i].gap);
	}
	bperf_free(c->bperf);
	free(c->parts);
	free(c->src);
	free(c->ev);
	free(c);
}
