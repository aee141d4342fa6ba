// SPDX-License-Identifier: GPL-2.0
/*
 * The per-session reader of --bpf-counters (record/bperf.c loads it once per event). The
 * event's counters, one per CPU, sit in a perf event array shared by every session that counts
 * the same event; this program reads the counter of its CPU at every context switch and adds
 * the difference since its previous reading there to this session's accumulator when the task
 * leaving the CPU (still current in sched_switch) belongs to the session's target. The
 * arithmetic is record/bperf-calc.h's.
 *
 * User space runs the switch program on each CPU (BPF_PROG_TEST_RUN on a CPU) before it reads
 * the accumulators: the interval since the last switch is then attributed to the task running
 * there, so the figures are current.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "record/bperf-calc.h"

/* Set by the loader: enum bperf_mode, the workload's pid (followed from its exec), children. */
const volatile __u32 mode = BPERF_ALL;
const volatile __u32 workload = 0;
const volatile bool children = false;
/* The workload has exec'ed: this program counts for it (each event's program has its own). */
__u32 started = 0;

/* The shared counters (a pinned array that another session may have made). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bperf_prev);
} prev SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bperf_accum);
} accum SEC(".maps");

/* The session's target, shared by its programs: CPUs (BPERF_CPUS), tgids or tids. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} tasks SEC(".maps");

static __always_inline bool mine(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key;

	switch (mode) {
	case BPERF_ALL:
		return true;
	case BPERF_CPUS:
		key = bpf_get_smp_processor_id();
		__u8 *on = bpf_map_lookup_elem(&cpus, &key);
		return on && *on;
	case BPERF_TGIDS:
		key = pid_tgid >> 32;
		return bpf_map_lookup_elem(&tasks, &key) != NULL;
	default:
		key = (__u32)pid_tgid;
		return bpf_map_lookup_elem(&tasks, &key) != NULL;
	}
}

static __always_inline int step(bool count)
{
	struct bpf_perf_event_value v;
	struct bperf_reading now;
	struct bperf_prev *p;
	struct bperf_accum *a;
	__u32 zero = 0;

	if (bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU, &v, sizeof(v)))
		return 0;
	p = bpf_map_lookup_elem(&prev, &zero);
	a = bpf_map_lookup_elem(&accum, &zero);
	if (!p || !a)
		return 0;
	now.val = v.counter;
	now.ena = v.enabled;
	now.run = v.running;
	bperf_step(p, &now, count && mine(), a);
	return 0;
}

SEC("raw_tp/sched_switch")
int bperf_switch(void *ctx)
{
	return step(true);
}

/* execve and execveat, whose entry starts the workload's count. */
#if defined(__TARGET_ARCH_arm64)
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#else
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#endif

/*
 * The workload is counted from its exec, as an event enabled on exec is: what ran on this CPU
 * before (the forked recorder waiting to exec) is not the workload's. The count starts as the
 * exec begins rather than when it is done (sched_process_exec), since the kernel enables such an
 * event before it loads the program, whose page faults are the workload's. User space detaches
 * this program once started is set.
 */
SEC("raw_tp/sys_enter")
int bperf_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	long nr = (long)ctx->args[1];
	__u8 one = 1;

	if (started || tgid != workload || !workload || (nr != NR_EXECVE && nr != NR_EXECVEAT))
		return 0;
	started = 1;
	bpf_map_update_elem(&tasks, &tgid, &one, BPF_ANY);
	return step(false);
}

/* A process followed forks: its child is followed too (inherit). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(bperf_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = BPF_CORE_READ(parent, tgid), ctgid;
	__u8 one = 1;

	if (!children || mode != BPERF_TGIDS || !bpf_map_lookup_elem(&tasks, &tgid))
		return 0;
	ctgid = BPF_CORE_READ(child, tgid);
	bpf_map_update_elem(&tasks, &ctgid, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
