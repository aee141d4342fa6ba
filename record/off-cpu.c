// SPDX-License-Identifier: GPL-2.0
/*
 * The --off-cpu hook (off-cpu.h): loads record/off-cpu.bpf.c, built into record/off-cpu.skel.h,
 * and writes what it counted as samples of offcpu-time.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/bpf-stack.h"
#include "record/hook.h"
#include "record/off-cpu.h"
#include "record/off-cpu.skel.h"
#include "util/bpf-log.h"
#include "util/log.h"
#include "util/xalloc.h"

/*
 * perf gives the samples no real time but one past any other, so that they sort last, and
 * counts up from there to keep them in the order they were written.
 */
#define OFFCPU_TIME_BASE (~0ULL << 32)

/* The key and the start of a sleep, as off-cpu.bpf.c lays them out. */
struct offcpu_key {
	u32 tid;
	u32 pid;
	s32 stack_id;
	u32 state;
	u64 cgroup;
};

struct offcpu {
	struct off_cpu_bpf *skel;
	int idx;       /* the attr of offcpu-time */
	u64 id;        /* its sample id */
	u32 depth;     /* frames per stack in the stack map */
	bool attached;
	struct pd_buf out;
};

/* What failed, with libbpf's last line (bpf_log_last()) when it said why. */
static int bpf_error(const char *what, int err)
{
	const char *why = bpf_log_last();

	if (err == -EPERM || err == -EACCES)
		return error("--off-cpu: cannot %s the BPF program: not permitted (needs root, or "
			     "CAP_BPF and CAP_PERFMON)", what);
	return error("--off-cpu: cannot %s the BPF program: %s%s%s%s", what, strerror(-err),
		     *why ? " (" : "", why, *why ? ")" : "");
}

/* A target that names no task, CPU or system: perf's target__none(). */
static bool no_target(const struct record_opts *opts)
{
	return !opts->system_wide && !opts->cpu_list && !opts->pid_list && !opts->tid_list &&
	       !opts->uid;
}

/*
 * The attr perf 6.1 writes: perf creates a bpf-output event with a period of 1 in frequency
 * mode and a callchain, evsel__config() treats it as any other event (-F and -c replace its
 * period, the target decides enable_on_exec and CPU, -g and --all-cgroups add their bits), then
 * keeps only OFFCPU_SAMPLE_TYPES of its sample_type. The session adds IDENTIFIER, the id
 * read_format and the clock.
 */
static void offcpu_attr(struct perf_event_attr *a, const struct record_opts *opts)
{
	const struct record_attr_opts *ao = opts->attr;

	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_BPF_OUTPUT;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CALLCHAIN;
	if (opts->period_set) {
		a->sample_period = opts->period;
	} else {
		a->freq = 1;
		a->sample_freq = opts->freq_set ? opts->freq : 1;
	}
	if (a->freq || opts->sample_period)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (opts->system_wide || opts->cpu_list || opts->sample_cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->inherit = !(opts->no_inherit || opts->tid_list);
	a->enable_on_exec = opts->argc && no_target(opts) && !opts->delay_ms;
	if (ao && ao->all_cgroups)
		a->sample_type |= PERF_SAMPLE_CGROUP;
	if (ao && ao->kernel_callchains)
		a->exclude_callchain_user = 1;
	if (ao && ao->user_callchains)
		a->exclude_callchain_kernel = 1;
	if (ao && ao->all_kernel)
		a->exclude_user = 1;
	if (ao && ao->all_user)
		a->exclude_kernel = 1;
}

static int oc_declare(struct record *rec, void **priv)
{
	const struct record_opts *opts = record_options(rec);
	struct perf_event_attr a;
	struct offcpu *o;
	int idx, err, ncpus;

	if (!opts->off_cpu)
		return RECORD_HOOK_OFF;
	o = xcalloc(1, sizeof(*o));
	*priv = o;
	offcpu_attr(&a, opts);
	idx = record_declare_attr(rec, &a, OFFCPU_EVENT, &o->id);
	if (idx < 0)
		return error("cannot add the %s event: %s", OFFCPU_EVENT, strerror(-idx));
	o->idx = idx;

	/* Loaded now, so that a kernel that refuses it fails the recording before it starts. */
	bpf_log_begin(true);
	o->skel = off_cpu_bpf__open();
	err = o->skel ? 0 : -errno;
	if (!err) {
		ncpus = libbpf_num_possible_cpus();
		if (opts->cpu_list && ncpus > 0) {
			bpf_map__set_max_entries(o->skel->maps.cpus, (u32)ncpus);
			o->skel->rodata->filter_cpu = true;
		}
		if (opts->nr_cgroup_fds > 0) {
			bpf_map__set_max_entries(o->skel->maps.cgroups, (u32)opts->nr_cgroup_fds);
			o->skel->rodata->filter_cgroup = true;
		}
		o->skel->rodata->with_cgroup = a.sample_type & PERF_SAMPLE_CGROUP;
		err = off_cpu_bpf__load(o->skel);
	}
	bpf_log_end();
	if (err)
		return bpf_error("load", err);
	o->depth = bpf_map__value_size(o->skel->maps.stacks) / sizeof(u64);
	return 0;
}

/* Fill the filter maps, as perf's target filters the tasks it counts. */
static int fill_filters(struct record *rec, struct offcpu *o)
{
	const struct record_opts *opts = record_options(rec);
	struct off_cpu_bpf *s = o->skel;
	int fd, nr;
	u8 one = 1;

	if (opts->cpu_list) {
		const int *cpu = record_cpus(rec, &nr);

		fd = bpf_map__fd(s->maps.cpus);
		for (int i = 0; i < nr; i++) {
			u32 c = (u32)cpu[i];

			if (bpf_map_update_elem(fd, &c, &one, BPF_ANY))
				return -errno;
		}
	}
	for (int i = 0; i < opts->nr_cgroup_fds; i++) {
		struct stat st;
		u64 cg;

		if (opts->cgroup_fds[i] < 0)
			continue;
		/* On cgroup v2 a cgroup's id is its directory's inode number. */
		if (fstat(opts->cgroup_fds[i], &st))
			return -errno;
		cg = (u64)st.st_ino;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.cgroups), &cg, &one, BPF_ANY))
			return -errno;
	}
	fd = bpf_map__fd(s->maps.tasks);
	if (opts->pid_list || opts->tid_list || opts->uid) {
		const pid_t *t = record_threads(rec, &nr);

		for (int i = 0; i < nr; i++) {
			u32 tid = (u32)t[i];

			if (t[i] < 0)
				continue;
			if (bpf_map_update_elem(fd, &tid, &one, BPF_ANY))
				return -errno;
		}
		s->bss->filter_task = true;
	} else if (no_target(opts) && record_workload_pid(rec) > 0) {
		/* The workload's process and every process it starts. */
		u32 pid = (u32)record_workload_pid(rec);

		if (bpf_map_update_elem(fd, &pid, &one, BPF_ANY))
			return -errno;
		s->bss->filter_task = true;
		s->bss->task_by_pid = true;
	}
	return 0;
}

static int oc_open(struct record *rec, void *priv)
{
	struct offcpu *o = priv;
	int err;

	err = fill_filters(rec, o);
	if (err)
		return error("--off-cpu: cannot set the task filter: %s", strerror(-err));
	bpf_log_begin(true);
	err = off_cpu_bpf__attach(o->skel);
	bpf_log_end();
	if (err)
		return bpf_error("attach", err);
	o->attached = true;
	return 0;
}

static int oc_start(struct record *rec, void *priv)
{
	struct offcpu *o = priv;

	(void)rec;
	o->skel->bss->enabled = true;
	return 0;
}

/* The sample of one key: the user stack as perf writes it, or the lost-stack frame. */
static void put_sample(struct offcpu *o, const struct perf_event_attr *attr,
		       const struct offcpu_key *k, u64 ns, u64 time, u64 *chain, size_t max,
		       bool *lost)
{
	struct bpf_stack_result r;
	struct pd_sample s;
	int fd = bpf_map__fd(o->skel->maps.stacks);

	memset(&s, 0, sizeof(s));
	s.sample_type = attr->sample_type;
	s.misc = PERF_RECORD_MISC_USER;
	/*
	 * Only the user stack is taken. A task with none (-EFAULT: it was leaving, or never ran
	 * in user mode) gets perf's empty user chain, which perf reports as [unknown]; a stack
	 * the map could not hold becomes the named frame, in kernel mode where the KSYMBOL can
	 * name it, so that reports say where time went to lost stacks.
	 */
	if (k->stack_id == -EFAULT) {
		chain[0] = PERF_CONTEXT_USER;
		chain[1] = 0;
		r.nr = 1;
	} else if (k->stack_id < 0 ||
		   bpf_stack_callchain(fd, o->depth, -EFAULT, k->stack_id, BPF_STACK_LOST_IP, chain,
				       max, &r) || r.user_lost) {
		chain[0] = PERF_CONTEXT_KERNEL;
		chain[1] = BPF_STACK_LOST_IP;
		r.nr = 2;
		s.misc = PERF_RECORD_MISC_KERNEL;
		*lost = true;
	}
	s.id = o->id;
	s.ip = chain[1];
	s.pid = k->pid;
	s.tid = k->tid;
	s.time = time;
	s.cpu = 0;
	s.period = ns;
	s.callchain_nr = r.nr;
	s.callchain = chain;
	s.cgroup = k->cgroup;
	pd_encode_sample(&o->out, attr, &s);
}

static int oc_stop(struct record *rec, void *priv)
{
	const struct perf_event_attr *attr = record_attr(rec, ((struct offcpu *)priv)->idx);
	struct offcpu *o = priv;
	struct off_cpu_bpf *s = o->skel;
	struct offcpu_key key, prev;
	size_t max = 2 + 2 * (size_t)o->depth;
	u64 *chain = xcalloc(max, sizeof(u64));
	u64 time = OFFCPU_TIME_BASE, ns;
	int fd = bpf_map__fd(s->maps.offcpu), err;
	bool lost = false, first = true;
	struct pd_buf samples = { 0 };

	/*
	 * Detached, then the runs in flight waited for: one that began before would still add
	 * to the map while it is read. Without membarrier those few may be missed, nothing worse.
	 */
	s->bss->enabled = false;
	off_cpu_bpf__detach(s);
	o->attached = false;
	bpf_wait_for_runs();
	pd_buf_reset(&o->out);
	while (!bpf_map_get_next_key(fd, first ? NULL : &prev, &key)) {
		first = false;
		prev = key;
		if (bpf_map_lookup_elem(fd, &key, &ns))
			continue;
		put_sample(o, attr, &key, ns, time++, chain, max, &lost);
	}
	free(chain);
	if (lost) {
		/* The name of the lost-stack frame, before any sample points at it. */
		samples = o->out;
		memset(&o->out, 0, sizeof(o->out));
		bpf_stack_encode_lost_ksymbol(&o->out, record_tracking_attr(rec), record_now(rec));
		pd_buf_append(&o->out, samples.data, samples.len);
		pd_buf_release(&samples);
	}
	if (o->out.err)
		return error("out of memory");
	if (o->out.len) {
		err = record_emit(rec, o->out.data, o->out.len);
		if (err)
			return error("cannot queue the %s samples: %s", OFFCPU_EVENT, strerror(-err));
	}
	if (s->bss->lost_keys)
		warning("off-cpu: %llu waits (%.3f ms off-CPU) were not counted: the BPF map "
			"holds %u keys", (unsigned long long)s->bss->lost_keys,
			s->bss->lost_ns / 1e6, bpf_map__max_entries(s->maps.offcpu));
	if (s->bss->lost_tasks)
		warning("off-cpu: %llu processes of the workload were not followed: the BPF map of "
			"tasks holds %u", (unsigned long long)s->bss->lost_tasks,
			bpf_map__max_entries(s->maps.tasks));
	if (s->bss->lost_stacks)
		warning("off-cpu: %llu user stacks did not fit the BPF stack map (%u stacks); "
			"their time is under %s", (unsigned long long)s->bss->lost_stacks,
			bpf_map__max_entries(s->maps.stacks), BPF_STACK_LOST_NAME);
	return 0;
}

static void oc_finish(struct record *rec, void *priv)
{
	struct offcpu *o = priv;

	(void)rec;
	if (!o)
		return;
	off_cpu_bpf__destroy(o->skel);
	pd_buf_release(&o->out);
	free(o);
}

const struct record_hook off_cpu_hook = {
	.name = "off-cpu",
	.declare = oc_declare,
	.start = oc_start,
	.stop = oc_stop,
	.finish = oc_finish,
	.open = oc_open,
};
