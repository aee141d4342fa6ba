// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel half of the bpf overhead collector (overhead/collect-bpf.c loads it). Per CPU it
 * pairs timer:hrtimer_expire_entry with the exit of the same hrtimer when the callback is one of
 * perf's, and counts nmi:nmi_handler runs of perf's NMI handler with the time the tracepoint
 * carries. Count and nanoseconds add up in per-CPU maps that user space reads; nothing is
 * streamed, so an interrupt costs a map lookup and a clock read or two more.
 *
 * Two sets of programs do the same work: tp_btf (raw tracepoints with BTF: the arguments as the
 * kernel passes them, the cheapest) and classic tracepoint programs (the formatted record, for
 * kernels that refuse the first set). The loader keeps one set.
 *
 * Hard-interrupt hrtimer callbacks do not nest on a CPU, and perf's run in hard-interrupt
 * context, so one in-flight slot per CPU is enough; softirq hrtimers that they interrupt are
 * never recorded in the slot.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* The handler indexes, as enum overhead_handler in collect.h. */
#define H_SWEVENT 0
#define H_NMI 1
#define H_MUX 2
#define H_NR 3

/* A pair longer than this is not a handler run but a slot left over from a detach: dropped. */
#define MAX_PAIR_NS 100000000ULL

/* Set by the loader from /proc/kallsyms; 0 matches nothing. */
const volatile __u64 swevent_fn = 0;
const volatile __u64 mux_fn = 0;
const volatile __u64 nmi_fn = 0;

struct inflight {
	__u64 start;
	__u64 hrtimer;
	__u32 handler;
	__u32 pad;
};

struct totals {
	__u64 nr;
	__u64 ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, H_NR);
	__type(key, __u32);
	__type(value, struct totals);
} totals SEC(".maps");

static __always_inline void pair_entry(__u64 hrtimer, __u64 fn)
{
	struct inflight *f;
	__u32 zero = 0, h;

	if (fn == swevent_fn)
		h = H_SWEVENT;
	else if (fn == mux_fn)
		h = H_MUX;
	else
		return;
	f = bpf_map_lookup_elem(&inflight, &zero);
	if (!f)
		return;
	f->hrtimer = hrtimer;
	f->handler = h;
	f->start = bpf_ktime_get_ns();
}

static __always_inline void pair_exit(__u64 hrtimer)
{
	struct inflight *f;
	struct totals *t;
	__u32 zero = 0, h;
	__u64 d;

	f = bpf_map_lookup_elem(&inflight, &zero);
	if (!f || !f->start || f->hrtimer != hrtimer)
		return;
	d = bpf_ktime_get_ns() - f->start;
	f->start = 0;
	h = f->handler;
	if (d > MAX_PAIR_NS)
		return;
	t = bpf_map_lookup_elem(&totals, &h);
	if (!t)
		return;
	t->nr++;
	t->ns += d;
}

static __always_inline void count_nmi(__u64 handler, __s64 delta_ns)
{
	struct totals *t;
	__u32 h = H_NMI;

	if (!nmi_fn || handler != nmi_fn)
		return;
	t = bpf_map_lookup_elem(&totals, &h);
	if (!t)
		return;
	t->nr++;
	if (delta_ns > 0)
		t->ns += delta_ns;
}

/* ---- raw tracepoints with BTF */

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(btf_hrtimer_entry, struct hrtimer *timer, ktime_t *now)
{
	pair_entry((__u64)timer, (__u64)timer->function);
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(btf_hrtimer_exit, struct hrtimer *timer)
{
	pair_exit((__u64)timer);
	return 0;
}

SEC("tp_btf/nmi_handler")
int BPF_PROG(btf_nmi_handler, void *handler, s64 delta_ns, int handled)
{
	count_nmi((__u64)handler, delta_ns);
	return 0;
}

/* ---- classic tracepoints: the same from the formatted record */

SEC("tp/timer/hrtimer_expire_entry")
int tp_hrtimer_entry(struct trace_event_raw_hrtimer_expire_entry *ctx)
{
	pair_entry((__u64)ctx->hrtimer, (__u64)ctx->function);
	return 0;
}

SEC("tp/timer/hrtimer_expire_exit")
int tp_hrtimer_exit(struct trace_event_raw_hrtimer_class *ctx)
{
	pair_exit((__u64)ctx->hrtimer);
	return 0;
}

SEC("tp/nmi/nmi_handler")
int tp_nmi_handler(struct trace_event_raw_nmi_handler *ctx)
{
	count_nmi((__u64)ctx->handler, ctx->delta_ns);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
