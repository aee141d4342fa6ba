// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate hook of prec record (record/aggregate.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "overhead/event.h"
#include "record/aggregate.h"
#include "record/hook.h"
#include "util/log.h"
#include "util/xalloc.h"

#ifdef HAVE_BPF
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/aggregate-maps.h"
#include "record/aggregate.skel.h"
#include "record/bpf-stack.h"
#include "util/bpf-log.h"

struct agg {
	struct aggregate_bpf *skel;
	struct bpf_link **links;
	int nr_links;
	bool callchain;
	u64 entries;
	u64 attrs;                  /* bit i: attr i aggregated */
	u64 *ids;                   /* by attr index: an id of its own, for the samples */
	int nr_attrs;
	int prog_attr[AGGREGATE_MAX_EVENTS]; /* by program (the keys' event): the attr index */
	int nr_progs;
	const int *cpus;
	int nr_cpus;
	int nr_possible;
	struct agg_stat *percpu;    /* nr_possible */
	struct record_aggregate_cpu *cum; /* nr_cpus, cumulative */
	u64 *lost_written;          /* nr_cpus: lost keys already written as LOST_SAMPLES */
	struct agg_key *keys;       /* entries: what the last drain took */
	struct agg_val *vals;
	u32 nr_drained;
	struct bpf_stack_cache *stacks[2]; /* -g: by generation, the frames of its stack map */
	u64 lost_keys_seen[2];      /* the generation's lost keys, all CPUs, when its stacks were
				     * last emptied */
	bool lost_named;            /* this drain has put the KSYMBOL of the lost-stack frame */
	u64 start_time;             /* record_now() at the start: no sample is older */
	u64 records, samples;       /* SAMPLE records written, the kernel samples they stand for */
	bool stopping;              /* the last drains: the maps go with the program */
	u64 *chain;
	struct pd_buf out;
	size_t emitted;             /* bytes of samples queued by the current drain */
	bool started;
};

#define CHAIN_MAX (2 + 2 * BPF_STACK_MAX_DEPTH)

static bool membarrier_works(void)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	return cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL);
}

/* The program of index i (the keys' event), i below AGGREGATE_MAX_EVENTS. */
static struct bpf_program *agg_prog(struct aggregate_bpf *s, int i)
{
	struct bpf_program *p[AGGREGATE_MAX_EVENTS] = {
		s->progs.aggregate0, s->progs.aggregate1, s->progs.aggregate2, s->progs.aggregate3,
		s->progs.aggregate4, s->progs.aggregate5, s->progs.aggregate6, s->progs.aggregate7,
	};

	return p[i];
}

/* A workload event that may sample: not a tracepoint, not prec's own, not the dummy. */
static bool aggregatable_kind(const struct perf_event_attr *attr)
{
	if (attr_is_prec_event(attr) || attr->type == PERF_TYPE_TRACEPOINT)
		return false;
	return !(attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY);
}

static int agg_declare(struct record *rec, void **priv)
{
	const struct record_opts *opts = record_options(rec);
	const struct record_attr_opts *ao = opts->attr;
	const struct perf_event_attr *attr;
	struct aggregate_bpf *s;
	struct agg *a;
	int err, want = 0;

	if (!opts->aggregate)
		return RECORD_HOOK_OFF;
	if (!membarrier_works())
		return error("--aggregate: the kernel cannot wait for BPF programs to finish "
			     "(membarrier MEMBARRIER_CMD_GLOBAL is not available)");
	bpf_log_begin(true);
	s = aggregate_bpf__open();
	if (!s) {
		err = errno ? -errno : -EINVAL;
		bpf_log_end();
		return error("--aggregate: cannot open the BPF program: %s", strerror(-err));
	}
	s->rodata->callchain = opts->callgraph;
	s->rodata->kernel_stacks = !(ao && ao->user_callchains);
	s->rodata->user_stacks = !(ao && ao->kernel_callchains);
	bpf_map__set_max_entries(s->maps.counts0, (u32)opts->aggregate_entries);
	bpf_map__set_max_entries(s->maps.counts1, (u32)opts->aggregate_entries);
	bpf_map__set_max_entries(s->maps.execs, (u32)opts->aggregate_entries);
	/* Without -g no stack is taken: the smallest stack maps the kernel accepts. */
	bpf_map__set_max_entries(s->maps.stacks0, opts->callgraph ? (u32)opts->aggregate_entries : 1);
	bpf_map__set_max_entries(s->maps.stacks1, opts->callgraph ? (u32)opts->aggregate_entries : 1);
	/* The events' kinds are known, their periods not yet: programs for all that may sample. */
	for (int i = 0; (attr = record_attr(rec, i)); i++)
		want += aggregatable_kind(attr);
	for (int i = want ? want : 1; i < AGGREGATE_MAX_EVENTS; i++)
		bpf_program__set_autoload(agg_prog(s, i), false);
	err = aggregate_bpf__load(s);
	bpf_log_end();
	if (err) {
		aggregate_bpf__destroy(s);
		if (err == -EPERM || err == -EACCES)
			return error("--aggregate: the kernel refused the BPF program: not permitted "
				     "(needs root, or CAP_BPF and CAP_PERFMON)");
		return error("--aggregate: the kernel refused the BPF program: %s%s%s%s",
			     strerror(-err), bpf_log_last()[0] ? " (" : "", bpf_log_last(),
			     bpf_log_last()[0] ? ")" : "");
	}
	a = xcalloc(1, sizeof(*a));
	a->skel = s;
	a->callchain = opts->callgraph;
	a->entries = opts->aggregate_entries;
	*priv = a;
	/* The samples come at interval ends, after side-band newer than they are. */
	record_set_no_rounds(rec);
	record_set_tick(rec, opts->aggregate_interval_ns);
	return 0;
}

/* A workload event that takes samples by interrupt or by count. */
static bool aggregatable(const struct perf_event_attr *attr)
{
	if (!aggregatable_kind(attr))
		return false;
	return attr->freq ? attr->sample_freq > 0 : attr->sample_period > 0;
}

static void publish(struct record *rec, struct agg *a)
{
	struct record_aggregate ra = {
		.interval_ns = record_options(rec)->aggregate_interval_ns,
		.entries = a->entries,
		.attrs = a->attrs,
		.nr_cpus = a->nr_cpus,
		.cpu = a->cum,
		.records = a->records,
		.samples = a->samples,
	};

	record_set_aggregate(rec, &ra);
}

static int agg_open(struct record *rec, void *priv)
{
	struct agg *a = priv;
	const struct perf_event_attr *attr;
	const int *fd;
	const u64 *id;
	int n;

	a->cpus = record_cpus(rec, &a->nr_cpus);
	a->nr_possible = libbpf_num_possible_cpus();
	if (a->nr_possible <= 0)
		return error("--aggregate: cannot count the possible CPUs");
	a->percpu = xcalloc(a->nr_possible, sizeof(*a->percpu));
	a->cum = xcalloc(a->nr_cpus + 1, sizeof(*a->cum));
	a->lost_written = xcalloc(a->nr_cpus + 1, sizeof(*a->lost_written));
	for (int i = 0; i < a->nr_cpus; i++)
		a->cum[i].cpu = a->cpus[i];
	for (int i = 0; (attr = record_attr(rec, i)); i++)
		a->nr_attrs = i + 1;
	a->ids = xcalloc(a->nr_attrs + 1, sizeof(*a->ids));
	for (int i = 0; i < a->nr_attrs && i < 64; i++) {
		struct perf_event_attr *edit;
		struct bpf_program *prog;

		attr = record_attr(rec, i);
		if (!aggregatable(attr))
			continue;
		n = record_event_fds(rec, i, &fd, &id);
		if (n <= 0)
			continue;
		if (a->nr_progs == AGGREGATE_MAX_EVENTS)
			return error("--aggregate: at most %d sampling events can be aggregated",
				     AGGREGATE_MAX_EVENTS);
		prog = agg_prog(a->skel, a->nr_progs);
		for (int k = 0; k < n; k++) {
			struct bpf_link *l;
			long err;

			if (fd[k] < 0)
				continue;
			l = bpf_program__attach_perf_event(prog, fd[k]);
			err = libbpf_get_error(l);
			if (err)
				return error("--aggregate: cannot attach the BPF program to event "
					     "%d: %s", i, strerror((int)-err));
			a->links = xrealloc(a->links, (a->nr_links + 1) * sizeof(*a->links));
			a->links[a->nr_links++] = l;
			if (!a->ids[i])
				a->ids[i] = id[k];
		}
		a->attrs |= 1ULL << i;
		if (attr->sample_type & PERF_SAMPLE_CPU)
			a->skel->bss->cpu_events |= 1ULL << a->nr_progs;
		a->prog_attr[a->nr_progs++] = i;
		/* The file's attr only: the kernel never writes a sample of these events. */
		edit = record_attr_edit(rec, i);
		if (edit)
			edit->sample_type |= PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT;
	}
	if (!a->attrs)
		return error("--aggregate: no event to aggregate (cpu-clock, task-clock or a "
			     "hardware event that samples)");
	if (!a->skel->links.aggregate_exec) {
		a->skel->links.aggregate_exec = bpf_program__attach(a->skel->progs.aggregate_exec);
		if (libbpf_get_error(a->skel->links.aggregate_exec)) {
			a->skel->links.aggregate_exec = NULL;
			warning("--aggregate: cannot follow execs: a key may span one");
		}
	}
	a->keys = xcalloc(a->entries, sizeof(*a->keys));
	a->vals = xcalloc(a->entries, sizeof(*a->vals));
	a->chain = xcalloc(CHAIN_MAX, sizeof(*a->chain));
	if (a->callchain) {
		struct bpf_map *m[2] = { a->skel->maps.stacks0, a->skel->maps.stacks1 };

		for (int g = 0; g < 2; g++) {
			a->stacks[g] = bpf_stack_cache_new(bpf_map__fd(m[g]), BPF_STACK_MAX_DEPTH,
							   bpf_map__max_entries(m[g]));
			if (!a->stacks[g])
				return error("--aggregate: cannot cache the stack map");
		}
	}
	publish(rec, a);
	return 0;
}

/* The trailer of the hook's records: the first aggregated event's, on cpu, now. */
static void trailer(struct record *rec, struct agg *a, struct pd_sample *id, int cpu)
{
	memset(id, 0, sizeof(*id));
	id->pid = id->tid = (u32)-1;
	id->time = record_now(rec);
	id->cpu = (u32)cpu;
	for (int i = 0; i < a->nr_attrs; i++)
		if (a->ids[i]) {
			id->id = a->ids[i];
			break;
		}
}

static int emit(struct record *rec, struct agg *a)
{
	int err;

	if (a->out.err)
		return error("--aggregate: out of memory");
	if (!a->out.len)
		return 0;
	err = record_emit(rec, a->out.data, a->out.len);
	a->emitted += a->out.len;
	pd_buf_reset(&a->out);
	if (err)
		return error("--aggregate: cannot queue the samples: %s", strerror(-err));
	return 0;
}

static int agg_start(struct record *rec, void *priv)
{
	struct agg *a = priv;

	a->started = true;
	a->start_time = record_now(rec);
	return 0;
}

/* One key as a SAMPLE of its event. */
static void put_sample(struct record *rec, struct agg *a, const struct agg_key *k,
		       const struct agg_val *v, struct bpf_stack_cache *stacks)
{
	const struct perf_event_attr *attr;
	struct pd_sample s;
	int idx;

	if (k->event >= (u32)a->nr_progs)
		return;
	idx = a->prog_attr[k->event];
	attr = record_attr(rec, idx);
	if (!attr)
		return;
	memset(&s, 0, sizeof(s));
	s.sample_type = attr->sample_type;
	s.id = a->ids[idx];
	s.pid = k->pid;
	s.tid = k->tid;
	s.time = v->last;
	s.cpu = k->cpu;
	s.period = v->period;
	s.weight = v->count;
	if (a->callchain) {
		struct bpf_stack_result r;

		if (bpf_stack_cache_callchain(stacks, k->kstack, k->ustack, BPF_STACK_LOST_IP,
					      a->chain, CHAIN_MAX, &r))
			return;
		/*
		 * The frame's name, in every drain that uses it, so that each file of
		 * --switch-output has it; as old as the recording, so that perf, which sorts
		 * the whole file by time, knows it before any sample.
		 */
		if ((r.kernel_lost || r.user_lost) && !a->lost_named) {
			bpf_stack_encode_lost_ksymbol(&a->out, record_tracking_attr(rec),
						      a->start_time);
			a->lost_named = true;
		}
		s.callchain = a->chain;
		s.callchain_nr = r.nr;
		/* The sample's IP is the chain's first frame, its mode the first part's. */
		for (size_t i = 0; i < r.nr; i++) {
			if (a->chain[i] == PERF_CONTEXT_KERNEL) {
				s.misc = PERF_RECORD_MISC_KERNEL;
			} else if (a->chain[i] == PERF_CONTEXT_USER) {
				s.misc = PERF_RECORD_MISC_USER;
			} else {
				s.ip = a->chain[i];
				break;
			}
		}
	} else {
		s.ip = k->ip;
		/* The kernel's half of the address space (x86_64, arm64) */
		s.misc = k->ip >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	}
	pd_encode_sample(&a->out, attr, &s);
	a->records++;
	a->samples += v->count;
}

/* Stacks the map may hold beyond twice those the last drain named, before it is emptied. */
#define STALE_STACKS(entries) ((entries) / 16)

/*
 * After a drain of generation g: empty its stack map only when it fills with what the keys no
 * longer name. A workload that keeps running the same code finds its stacks under the same ids
 * interval after interval (the kernel returns the id of an equal stack it holds), so the cache
 * reads each once and nothing is deleted; stale stacks take buckets that new ones would hash
 * to, and are dropped once they outnumber twice the live ones (plus a sixteenth of the map): a
 * new stack then finds a bucket taken at most about three times as often as in an empty map.
 * The stacks of lost keys are in the map but named by no key: after a loss the whole map is
 * walked, which costs a scan of the buckets per entry.
 */
static void clear_stacks(struct agg *a, int g)
{
	struct bpf_stack_cache *c = a->stacks[g];
	u64 lost = 0;
	u32 used = bpf_stack_cache_round(c), ids = bpf_stack_cache_ids(c);
	bool walk;

	/* The generation's own losses: those of the other go on while this one is cleared. */
	if (!bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.stats), &(u32){ 0 }, a->percpu))
		for (int cpu = 0; cpu < a->nr_possible; cpu++)
			lost += a->percpu[cpu].lost_keys_gen[g];
	walk = lost != a->lost_keys_seen[g];
	if (!walk && ids <= 2 * (u64)used + STALE_STACKS(a->entries))
		return;
	a->lost_keys_seen[g] = lost;
	debug(2, "aggregate: stack map %d emptied: %u stacks known, %u named by the drain%s", g,
	      ids, used, walk ? ", keys lost" : "");
	bpf_stack_cache_clear(c, walk);
}

/* Take and delete every key of generation g; then see to its stack map. */
static int drain_generation(struct record *rec, struct agg *a, int g)
{
	int counts_fd = bpf_map__fd(g ? a->skel->maps.counts1 : a->skel->maps.counts0);
	u32 token = 0, n;
	void *in = NULL;
	int err;

	a->nr_drained = 0;
	a->lost_named = false;
	do {
		struct agg_key *k = a->keys + a->nr_drained;
		struct agg_val *v = a->vals + a->nr_drained;

		/* The map never holds more than entries keys; room for them all, kept for later. */
		n = (u32)(a->entries - a->nr_drained);
		if (!n)
			break;
		err = bpf_map_lookup_and_delete_batch(counts_fd, in, &token, k, v, &n, NULL);
		if (err && err != -ENOENT)
			return error("--aggregate: cannot read the count map: %s", strerror(-err));
		for (u32 i = 0; i < n; i++)
			put_sample(rec, a, &k[i], &v[i], a->stacks[g]);
		a->nr_drained += n;
		if (emit(rec, a))
			return -1;
		in = &token;
	} while (!err);
	if (a->callchain && !a->stopping)
		clear_stacks(a, g);
	return 0;
}

static int cpu_index(const struct agg *a, int cpu)
{
	for (int i = 0; i < a->nr_cpus; i++)
		if (a->cpus[i] == cpu)
			return i;
	return -1;
}

/* The program's figures per CPU, cumulative; new losses as LOST_SAMPLES. */
static int read_stats(struct record *rec, struct agg *a)
{
	u32 zero = 0;
	int err;

	err = bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.stats), &zero, a->percpu);
	if (err)
		return error("--aggregate: cannot read the program's figures: %s", strerror(-err));
	for (int i = 0; i < a->nr_cpus; i++) {
		struct record_aggregate_cpu *c = &a->cum[i];

		c->runs = c->run_ns = c->lost_keys = c->lost_stacks = 0;
	}
	for (int cpu = 0; cpu < a->nr_possible; cpu++) {
		const struct agg_stat *st = &a->percpu[cpu];
		int i = cpu_index(a, cpu);

		/* A CPU outside the recording's (a per-thread recording): the first one's. */
		if (i < 0)
			i = 0;
		if (!a->nr_cpus)
			break;
		a->cum[i].runs += st->runs;
		a->cum[i].run_ns += st->ns;
		a->cum[i].lost_keys += st->lost_keys;
		a->cum[i].lost_stacks += st->lost_stacks;
	}
	for (int i = 0; i < a->nr_cpus; i++) {
		u64 lost = a->cum[i].lost_keys - a->lost_written[i];
		const struct perf_event_attr *attr;
		struct pd_sample id;
		int first = 0;

		if (!lost)
			continue;
		while (first < a->nr_attrs && !(a->attrs & (1ULL << first)))
			first++;
		attr = record_attr(rec, first);
		trailer(rec, a, &id, a->cpus[i]);
		pd_encode_lost_samples(&a->out, attr, lost, &id);
		a->lost_written[i] = a->cum[i].lost_keys;
	}
	publish(rec, a);
	return emit(rec, a);
}

static int drain(struct record *rec, struct agg *a)
{
	u32 old = a->skel->bss->gen & 1;
	u64 t0 = record_monotonic_ns(), t1;
	size_t bytes;
	int err;

	__atomic_store_n(&a->skel->bss->gen, old ^ 1, __ATOMIC_SEQ_CST);
	err = bpf_wait_for_runs(); /* every run that may have read the old generation */
	if (err)
		return error("--aggregate: cannot wait for the BPF program: %s", strerror(-err));
	t1 = record_monotonic_ns();
	a->emitted = 0;
	err = drain_generation(rec, a, (int)old);
	if (err)
		return err;
	bytes = a->emitted;
	debug(1, "aggregate: generation %u drained: %.1f ms waiting for runs, %.1f ms for %zu bytes "
		 "of samples", old, (t1 - t0) / 1e6, (record_monotonic_ns() - t1) / 1e6, bytes);
	return read_stats(rec, a);
}

static int agg_tick(struct record *rec, void *priv, u64 now)
{
	struct agg *a = priv;

	(void)now;
	return a->started ? drain(rec, a) : 0;
}

static int agg_stop(struct record *rec, void *priv)
{
	struct agg *a = priv;
	int err;

	if (!a->started)
		return 0;
	/* The events are disabled: no run is left to come. Both generations, the older first. */
	a->stopping = true;
	err = drain(rec, a);
	if (!err)
		err = drain(rec, a);
	a->started = false;
	return err;
}

static void agg_finish(struct record *rec, void *priv)
{
	struct agg *a = priv;

	(void)rec;
	if (!a)
		return;
	for (int i = 0; i < a->nr_links; i++)
		bpf_link__destroy(a->links[i]);
	free(a->links);
	aggregate_bpf__destroy(a->skel);
	free(a->ids);
	free(a->percpu);
	free(a->cum);
	free(a->lost_written);
	free(a->keys);
	free(a->vals);
	free(a->chain);
	bpf_stack_cache_free(a->stacks[0]);
	bpf_stack_cache_free(a->stacks[1]);
	pd_buf_release(&a->out);
	free(a);
}

const struct record_hook aggregate_hook = {
	.name = "aggregate",
	.declare = agg_declare,
	.start = agg_start,
	.tick = agg_tick,
	.stop = agg_stop,
	.finish = agg_finish,
	.open = agg_open,
};

#else /* !HAVE_BPF */

static int agg_declare(struct record *rec, void **priv)
{
	(void)priv;
	if (!record_options(rec)->aggregate)
		return RECORD_HOOK_OFF;
	return error("--aggregate: prec was built without BPF (libbpf, clang and bpftool)");
}

const struct record_hook aggregate_hook = {
	.name = "aggregate",
	.declare = agg_declare,
};

#endif
