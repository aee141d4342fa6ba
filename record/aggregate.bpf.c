// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel half of prec record --aggregate (record/aggregate.c loads it). Attached to every
 * sampling event, it adds each sample's period and one to the entry of its key (event, pid,
 * tid, CPU when the event samples it, exec generation, and the kernel and user stack ids with
 * -g, else the IP) and returns 0, so that the kernel writes no sample at all.
 *
 * Two generations of maps: the program writes to those gen names; user space flips gen, waits
 * for an RCU grace period (every run that read the old gen has ended: perf runs these programs
 * inside rcu_read_lock()), then drains and clears the old generation. A stack id therefore never
 * disappears while a key of its generation may still refer to it.
 */
/*
 * Plain field accesses, no CO-RE relocations: the program reads only its context, whose layout
 * (struct bpf_perf_event_data, pt_regs) is the kernel's ABI, and it attaches to perf events and
 * a raw tracepoint, none of which needs the kernel's BTF; so libbpf never reads and parses
 * that BTF (some megabytes) when it loads the program.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "record/aggregate-maps.h"

#define EFAULT 14
#define EEXIST 17
#define BPF_F_USER_STACK_ (1ULL << 8)

/* -g: stack ids in the key; without it the IP. Set by the loader. */
const volatile bool callchain = false;
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

/* Written by user space after load: the generation, the programs whose attr samples the CPU. */
__u32 gen = 0;
__u64 cpu_events = 0;

#define COUNT_MAP(n)                                                                          \
	struct {                                                                              \
		__uint(type, BPF_MAP_TYPE_HASH);                                              \
		__uint(max_entries, 16384);                                                   \
		__type(key, struct agg_key);                                                  \
		__type(value, struct agg_val);                                                \
	} n SEC(".maps")

#define STACK_MAP(n)                                                                          \
	struct {                                                                              \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                                       \
		__uint(max_entries, 16384);                                                   \
		__uint(key_size, sizeof(__u32));                                              \
		__uint(value_size, 127 * sizeof(__u64));                                      \
	} n SEC(".maps")

COUNT_MAP(counts0);
COUNT_MAP(counts1);
STACK_MAP(stacks0);
STACK_MAP(stacks1);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct agg_stat);
} stats SEC(".maps");

/* By process: how many times it has exec'ed, so that a key never spans two programs. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} execs SEC(".maps");

static __always_inline void count(struct bpf_perf_event_data *ctx, struct agg_key *key,
				  void *counts, void *stacks, struct agg_stat *st, __u64 now,
				  int g)
{
	struct agg_val *v, init = { ctx->sample_period, 1, now };
	long err;

	if (callchain) {
		key->kstack = kernel_stacks ? bpf_get_stackid(ctx, stacks, 0) : -EFAULT;
		key->ustack = user_stacks ? bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK_)
					  : -EFAULT;
		if ((key->kstack < 0 && key->kstack != -EFAULT) ||
		    (key->ustack < 0 && key->ustack != -EFAULT))
			st->lost_stacks++;
	} else {
		key->ip = PT_REGS_IP(&ctx->regs);
	}
	v = bpf_map_lookup_elem(counts, key);
	if (!v) {
		err = bpf_map_update_elem(counts, key, &init, BPF_NOEXIST);
		if (!err)
			return;
		/* Another CPU added the key meanwhile: it is there to add to. */
		if (err == -EEXIST)
			v = bpf_map_lookup_elem(counts, key);
		if (!v) {
			st->lost_keys++;
			st->lost_keys_gen[g]++;
			return;
		}
	}
	__sync_fetch_and_add(&v->period, ctx->sample_period);
	__sync_fetch_and_add(&v->count, 1);
	v->last = now;
}

/*
 * The body of every program: event is a constant of each, since the kernel copies no attach
 * cookie into the events it inherits to child tasks and new threads.
 */
static __always_inline int aggregate(struct bpf_perf_event_data *ctx, __u32 event)
{
	__u64 t0 = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct agg_key key = {};
	struct agg_stat *st;
	__u32 zero = 0, *ex;

	st = bpf_map_lookup_elem(&stats, &zero);
	if (!st)
		return 0;
	key.event = event;
	key.pid = id >> 32;
	key.tid = (__u32)id;
	if (cpu_events & (1ULL << event))
		key.cpu = bpf_get_smp_processor_id();
	ex = bpf_map_lookup_elem(&execs, &key.pid);
	if (ex)
		key.exec = *ex;
	if (*(volatile __u32 *)&gen & 1)
		count(ctx, &key, &counts1, &stacks1, st, t0, 1);
	else
		count(ctx, &key, &counts0, &stacks0, st, t0, 0);
	st->runs++;
	st->ns += bpf_ktime_get_ns() - t0;
	return 0;
}

#define AGGREGATE_PROG(n)                                                                     \
	SEC("perf_event")                                                                     \
	int aggregate##n(struct bpf_perf_event_data *ctx)                                    \
	{                                                                                     \
		return aggregate(ctx, n);                                                     \
	}

/* As many as AGGREGATE_MAX_EVENTS. */
AGGREGATE_PROG(0)
AGGREGATE_PROG(1)
AGGREGATE_PROG(2)
AGGREGATE_PROG(3)
AGGREGATE_PROG(4)
AGGREGATE_PROG(5)
AGGREGATE_PROG(6)
AGGREGATE_PROG(7)

/*
 * A raw tracepoint, not a classic one: a classic tracepoint program raises bpf_prog_active, and
 * a sample that lands while it runs is dropped by the kernel before any program sees it.
 */
SEC("raw_tp/sched_process_exec")
int aggregate_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, one = 1, *n;

	n = bpf_map_lookup_elem(&execs, &pid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&execs, &pid, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
