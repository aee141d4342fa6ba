// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel half of prec record --off-cpu (record/off-cpu.c loads it). At each sched_switch
 * the task leaving the CPU to sleep notes when it left, its user stack and its state; when it
 * comes back, the time it was away is added to its key (tid, pid, stack, state, cgroup) in a
 * hash map that user space reads once, at the end. Nothing is streamed.
 *
 * Only sleeps count (TASK_INTERRUPTIBLE and TASK_UNINTERRUPTIBLE, whatever other bits the state
 * has); a preempted task is runnable, not waiting, and kernel threads have no user stack to show.
 * What the maps cannot hold is counted in lost_keys / lost_ns / lost_stacks, never dropped
 * silently.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* Not in the BTF: include/linux/sched.h */
#define PF_KTHREAD 0x00200000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
/* nor the errno values */
#define EFAULT 14
#define EEXIST 17

/* The frames of a stack: perf's default kernel.perf_event_max_stack (BPF_STACK_MAX_DEPTH). */
#define STACK_DEPTH 127
#define MAX_STACKS 8192
#define MAX_KEYS 16384
#define MAX_TASKS 8192

struct offcpu_key {
	__u32 tid;
	__u32 pid;
	__s32 stack_id; /* or the error bpf_get_stackid() returned */
	__u32 state;
	__u64 cgroup;
};

struct offcpu_start {
	__u64 ts;
	__u64 cgroup;
	__s32 stack_id;
	__u32 state;
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, MAX_STACKS);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct offcpu_key);
	__type(value, __u64);
	__uint(max_entries, MAX_KEYS);
} offcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_start);
} start SEC(".maps");

/* The filters: present keys pass. The loader sizes cpus and cgroups before loading. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, MAX_TASKS);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u8);
	__uint(max_entries, 1);
} cgroups SEC(".maps");

/* Set by the loader before it loads (rodata) or before it enables (bss). */
const volatile bool filter_cpu = false;
const volatile bool filter_cgroup = false;
const volatile bool with_cgroup = false; /* put the cgroup in the key (--all-cgroups) */
bool filter_task = false;
bool task_by_pid = false; /* the tasks map holds processes (a workload and its children) */
bool enabled = false;

/* What did not fit: keys (and their time) the hash map could not take, stacks lost. */
__u64 lost_keys = 0;
__u64 lost_ns = 0;
__u64 lost_stacks = 0;
__u64 lost_tasks = 0; /* processes of a workload the tasks map had no room for */

static bool wanted(struct task_struct *t, unsigned int state)
{
	__u32 cpu, id;

	if (t->flags & PF_KTHREAD)
		return false;
	/*
	 * Any sleep: the state carries modifier bits beside the two perf tests for (nanosleep
	 * sleeps TASK_INTERRUPTIBLE | TASK_FREEZABLE since Linux 6.1, a killable wait adds
	 * TASK_WAKEKILL), and a test for equality would miss those waits.
	 */
	if (!(state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return false;
	if (filter_cpu) {
		cpu = bpf_get_smp_processor_id();
		if (!bpf_map_lookup_elem(&cpus, &cpu))
			return false;
	}
	if (filter_task) {
		id = task_by_pid ? t->tgid : t->pid;
		if (!bpf_map_lookup_elem(&tasks, &id))
			return false;
	}
	if (filter_cgroup) {
		/* The tracepoint runs before the switch: current is still t. */
		__u64 cg = bpf_get_current_cgroup_id();

		if (!bpf_map_lookup_elem(&cgroups, &cg))
			return false;
	}
	return true;
}

static void add(struct task_struct *t, struct offcpu_start *s, __u64 now)
{
	struct offcpu_key key = {
		.tid = t->pid,
		.pid = t->tgid,
		.stack_id = s->stack_id,
		.state = s->state,
		.cgroup = s->cgroup,
	};
	__u64 delta = now - s->ts;
	__u64 *total;
	long err;

	total = bpf_map_lookup_elem(&offcpu, &key);
	if (total) {
		__sync_fetch_and_add(total, delta);
		return;
	}
	err = bpf_map_update_elem(&offcpu, &key, &delta, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Another CPU added the key meanwhile. */
		total = bpf_map_lookup_elem(&offcpu, &key);
		if (total) {
			__sync_fetch_and_add(total, delta);
			return;
		}
	}
	if (err) {
		__sync_fetch_and_add(&lost_keys, 1);
		__sync_fetch_and_add(&lost_ns, delta);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_start *s;
	__u64 now;

	if (!enabled)
		return 0;
	now = bpf_ktime_get_ns();
	/*
	 * A task preempted between setting a sleep state and calling schedule() is still
	 * runnable: it waits for the CPU, not for an event.
	 */
	if (!preempt && wanted(prev, prev_state)) {
		s = bpf_task_storage_get(&start, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (s) {
			s->ts = now;
			s->state = prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE);
			s->cgroup = with_cgroup ? bpf_get_current_cgroup_id() : 0;
			s->stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
			if (s->stack_id < 0 && s->stack_id != -EFAULT)
				__sync_fetch_and_add(&lost_stacks, 1);
		}
	}
	s = bpf_task_storage_get(&start, next, 0, 0);
	if (s && s->ts) {
		add(next, s, now);
		s->ts = 0;
	}
	return 0;
}

/* A process of a watched workload forks: its children are watched too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(offcpu_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid, pid;
	__u8 one = 1;

	if (!filter_task || !task_by_pid)
		return 0;
	ppid = parent->tgid;
	pid = child->tgid;
	if (pid != ppid && bpf_map_lookup_elem(&tasks, &ppid) &&
	    bpf_map_update_elem(&tasks, &pid, &one, BPF_ANY))
		__sync_fetch_and_add(&lost_tasks, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
