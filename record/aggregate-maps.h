/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps' keys and values of prec record --aggregate, as both its BPF program
 * (record/aggregate.bpf.c) and its loader (record/aggregate.c) see them: one definition, so that
 * the two never disagree on a layout. Only fixed-size types, which mean the same to both
 * compilers.
 */
#ifndef PREC_RECORD_AGGREGATE_MAPS_H
#define PREC_RECORD_AGGREGATE_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The sampling events the program can tell apart: one program per aggregated event, each with
 * its index as a constant, since the kernel gives inherited events (child tasks, new threads)
 * no attach cookie of their own.
 */
#define AGGREGATE_MAX_EVENTS 8

/* One key of the count maps. */
struct agg_key {
	__u32 event;  /* the program's index (AGGREGATE_MAX_EVENTS), not the attr's */
	__u32 pid;
	__u32 tid;
	__u32 cpu;    /* 0 when the event's attr does not sample the CPU */
	__u32 exec;   /* how many times the process had exec'ed */
	__s32 kstack; /* stack ids with -g, or bpf_get_stackid()'s negative errno */
	__s32 ustack;
	__u32 pad;
	__u64 ip;     /* without -g */
};

struct agg_val {
	__u64 period; /* summed */
	__u64 count;  /* samples */
	__u64 last;   /* CLOCK_MONOTONIC ns of the last one */
};

/* Per CPU, cumulative. */
struct agg_stat {
	__u64 runs;
	__u64 ns;
	__u64 lost_keys;
	__u64 lost_stacks;
	__u64 lost_keys_gen[2]; /* lost_keys by generation: their stacks are in that stack map */
};

#endif
