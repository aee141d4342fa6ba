/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks counted in the kernel, turned into perf's callchains. The BPF programs of prec record
 * (--aggregate on the sampling events, --off-cpu on sched_switch) keep stacks in a
 * BPF_MAP_TYPE_STACK_TRACE map and put the ids bpf_get_stackid() returned in their keys; this
 * reads them back as a PERF_SAMPLE_CALLCHAIN array, kernel frames first, each part after perf's
 * context marker, as the kernel itself would have written it.
 *
 * A negative id is what bpf_get_stackid() returned instead of an id: -EFAULT means there is no
 * such stack (a kernel thread has no user stack, a task in user mode no kernel one) and the part
 * is left out; any other error (-ENOMEM or -EEXIST: the map was full or the bucket taken) means
 * the stack was lost, and the part becomes one frame at lost_ip, which the caller names (a
 * KSYMBOL record) so that readers show where stacks were lost rather than drop the samples.
 * Built only with BPF (HAVE_BPF).
 */
#ifndef PREC_RECORD_BPF_STACK_H
#define PREC_RECORD_BPF_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"

/* The deepest stack a stack map holds (perf's default kernel.perf_event_max_stack). */
#define BPF_STACK_MAX_DEPTH 127

/* What one conversion found. */
struct bpf_stack_result {
	size_t nr;       /* entries written to chain */
	bool kernel_lost; /* the kernel part is the lost_ip frame */
	bool user_lost;   /* the user part is the lost_ip frame */
};

/**
 * bpf_stack_callchain - the callchain of a kernel stack id and a user stack id.
 * @map_fd: the stack map; its value size must be depth * 8
 * @depth: frames per stack in the map (at most BPF_STACK_MAX_DEPTH)
 * @kstack: the kernel stack id, or a negative errno from bpf_get_stackid()
 * @ustack: the user stack id (BPF_F_USER_STACK), or a negative errno
 * @lost_ip: the frame that stands for a lost part
 * @chain: receives at most max entries (2 + 2 * depth always suffice)
 * @res: what was written
 *
 * An id the map no longer holds counts as lost. Return: 0, or -EINVAL for a depth out of range
 * or a max too small for what is written.
 */
int bpf_stack_callchain(int map_fd, u32 depth, long long kstack, long long ustack, u64 lost_ip,
			u64 *chain, size_t max, struct bpf_stack_result *res);

#endif
