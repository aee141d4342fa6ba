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
 * KSYMBOL record) so that readers show where stacks were lost rather than drop the samples. A
 * lost user part goes at the end of the kernel part (after a kernel marker of its own when there
 * is none): perf looks a frame after the user marker up in the task's maps only, where lost_ip
 * would show as [unknown], while after the kernel frames it shows as the callers' place.
 *
 * A drain that reads many keys a short while apart reads the same stacks again and again: a
 * cache (bpf_stack_cache_new()) reads each id once, and keeps it while the map does, which is
 * until the map's user deletes it, since the kernel never gives a taken id to another stack.
 * Built only with BPF (HAVE_BPF).
 */
#ifndef PREC_RECORD_BPF_STACK_H
#define PREC_RECORD_BPF_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"

/* The deepest stack a stack map holds (perf's default kernel.perf_event_max_stack). */
#define BPF_STACK_MAX_DEPTH 127

/*
 * The frame that stands for a lost stack, in every hook's callchains: an address no kernel text
 * has (the first pages are never mapped), named by bpf_stack_encode_lost_ksymbol().
 */
#define BPF_STACK_LOST_IP 0x8000ULL
#define BPF_STACK_LOST_NAME "[lost stack]"

/**
 * bpf_stack_encode_lost_ksymbol - the KSYMBOL that names BPF_STACK_LOST_IP.
 * @out: receives the record
 * @attr: the attr whose sample_id_all trailer the record carries (the tracking event's)
 * @time: its time; no later than that of the first sample that uses the frame
 *
 * Return: 0, or a negative errno from the encoder (out->err is set then).
 */
int bpf_stack_encode_lost_ksymbol(struct pd_buf *out, const struct perf_event_attr *attr,
				  u64 time);

/* What one conversion found. */
struct bpf_stack_result {
	size_t nr;       /* entries written to chain */
	bool kernel_lost; /* the kernel part is the lost_ip frame */
	bool user_lost;   /* the user part was lost: the lost_ip frame ends the kernel part */
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

/* The frames of the ids of one stack map, read once. */
struct bpf_stack_cache;

/**
 * bpf_stack_cache_new - a cache of the stack map map_fd.
 * @map_fd: the stack map, of u32 keys and values of depth * 8 bytes
 * @depth: frames per stack in the map (at most BPF_STACK_MAX_DEPTH)
 * @max_entries: the map's max_entries (its ids are below it rounded up to a power of two)
 *
 * Return: the cache, or NULL for a depth or size out of range.
 */
struct bpf_stack_cache *bpf_stack_cache_new(int map_fd, u32 depth, u32 max_entries);

/**
 * bpf_stack_cache_callchain - bpf_stack_callchain() with the frames from the cache, the map
 * read only for an id the cache does not know yet.
 *
 * Return: as bpf_stack_callchain().
 */
int bpf_stack_cache_callchain(struct bpf_stack_cache *c, long long kstack, long long ustack,
			      u64 lost_ip, u64 *chain, size_t max, struct bpf_stack_result *res);

/* bpf_stack_cache_ids - the ids the cache knows (all of them taken in the map). */
u32 bpf_stack_cache_ids(const struct bpf_stack_cache *c);

/**
 * bpf_stack_cache_round - start a new round of use.
 *
 * Return: how many of the known ids were asked for since the last round began.
 */
u32 bpf_stack_cache_round(struct bpf_stack_cache *c);

/**
 * bpf_stack_cache_clear - empty the map and the cache.
 * @walk: delete every id of the map, not only those the cache knows (the map holds stacks that
 *	no callchain asked for, such as those of keys a count map had no room for)
 *
 * Return: 0, or the first negative errno of a delete that failed (the cache is emptied anyway).
 */
int bpf_stack_cache_clear(struct bpf_stack_cache *c, bool walk);

/* bpf_stack_cache_free - free the cache (the map is left as it is). */
void bpf_stack_cache_free(struct bpf_stack_cache *c);

/**
 * bpf_wait_for_runs - wait until every run of prec's programs that began before has ended, so
 * that their maps can be read whole: perf runs the programs of perf events inside an RCU
 * read-side section, tracepoint probes run with preemption off, and MEMBARRIER_CMD_GLOBAL is a
 * synchronize_rcu().
 *
 * Return: 0, or a negative errno (-ENOSYS, -EINVAL: the kernel has no such membarrier).
 */
int bpf_wait_for_runs(void);

#endif
