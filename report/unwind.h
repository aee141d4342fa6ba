/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks of dwarf call graphs (perf record --call-graph dwarf): a sample carries the user
 * registers (PERF_SAMPLE_REGS_USER) and a copy of the top of the user stack (PERF_SAMPLE_STACK_USER);
 * the unwinder walks them with the binaries' call frame information (.eh_frame, .debug_frame) as
 * perf report does, giving the sample's address then each caller's return address less one (the
 * call instruction's last byte, as dwfl_frame_pc() reports frames that are not activations).
 *
 * State is per unwinder: the binaries, each opened once with the rules of the frames seen in it;
 * per process the modules reported to libdwfl, with their CFI cached for every later sample while
 * the process lives and is among the most recently sampled. One thread calls the unwinder at a
 * time; unwind_batch() and unwind_batch_start() spread a batch over threads of its own. Without
 * libdw 0.188 or later, unwinder_new() gives NULL.
 */
#ifndef PREC_REPORT_UNWIND_H
#define PREC_REPORT_UNWIND_H

#include <stdbool.h>

#include "format/ondisk.h"

struct dsos;
struct maps;
struct unwinder;

/* DWARF's x86-64 registers: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, then rip. */
#define UNWIND_NR_REGS 17

/* One sample's user state, as the file holds it. */
struct unwind_sample {
	int pid, tid;
	u64 abi;	 /* PERF_SAMPLE_REGS_ABI_*: only 64-bit samples unwind */
	u64 regs_mask;	 /* the attr's sample_regs_user: which perf registers regs holds */
	const u64 *regs; /* in the order of the mask's bits (may be unaligned) */
	const void *stack;
	u64 stack_size; /* the valid bytes of the copy (dyn_size), from the stack pointer up */
};

/**
 * unwind_regs_to_dwarf - the DWARF registers of x86-64 from a sample's registers, which perf
 * orders by the bits of sample_regs_user (PERF_REG_X86_*).
 * @out: UNWIND_NR_REGS values; those absent from the mask are left alone
 *
 * Return: the mask of the DWARF registers set (bit i: register i).
 */
u32 unwind_regs_to_dwarf(const u64 *regs, u64 mask, u64 *out);

/**
 * unwind_stack_word - the 8 bytes at addr from a copy of the stack whose first byte was at sp.
 *
 * Return: true with *val set when all 8 bytes are in the copy, else false.
 */
bool unwind_stack_word(const void *stack, u64 size, u64 sp, u64 addr, u64 *val);

/**
 * unwinder_new - an unwinder over the binaries of d (which the session fills and loads), on as
 * many threads as the machine has CPUs (at most 8), or PREC_UNWIND_THREADS, and with the
 * binaries' cached rules unless PREC_UNWIND_CFI is 0.
 *
 * Return: the unwinder, or NULL when prec was built without libdw (0.188 or later).
 */
struct unwinder *unwinder_new(struct dsos *d);

/**
 * unwinder_configure - how to unwind from now on: on at most threads threads (0: one), and
 * with the binaries' cached rules where they are simple, or always with libdwfl.
 */
void unwinder_configure(struct unwinder *u, u32 threads, bool cached_rules);

/**
 * unwinder_stats - how many samples were unwound with the cached rules alone, and how many
 * had at least one frame unwound by libdwfl. Either pointer may be NULL.
 */
void unwinder_stats(const struct unwinder *u, u64 *cached, u64 *libdwfl);

/* Free the unwinder and close every binary it opened. */
void unwinder_free(struct unwinder *u);

/**
 * unwinder_forget - drop what the unwinder holds for the process whose maps are m, which has
 * exited: its binaries' modules and their CFI (a sample of it after that starts afresh).
 */
void unwinder_forget(struct unwinder *u, struct maps *m);

/**
 * unwinder_open_error - the first failure to open a file that the stacks needed for want of
 * resources (descriptors, memory), each told once: chains that needed it end early.
 * @path: set to the file's path, owned by the unwinder
 *
 * Return: a negative errno the first time it is asked after such a failure, else 0.
 */
int unwinder_open_error(struct unwinder *u, const char **path);

/**
 * unwind_user - the user call chain of a sample whose process has the maps m: its own address
 * first, then the callers' (return addresses less one), at most max.
 *
 * Return: the number of addresses written to ips (0 when nothing could be unwound).
 */
u32 unwind_user(struct unwinder *u, struct maps *m, const struct unwind_sample *smp, u64 *ips,
		u32 max);

/* One sample of a batch: its process's maps, what to unwind, and where the frames go. */
struct unwind_job {
	struct maps *maps;
	struct unwind_sample smp;
	u64 *ips;
	u32 max;
	u32 n; /* set: what unwind_user() returns */
};

/**
 * unwind_batch - unwind_user() for each job, on the unwinder's threads. The maps must not
 * change until it returns; the frames are the same whatever the number of threads.
 */
void unwind_batch(struct unwinder *u, struct unwind_job *jobs, u32 nr);

/**
 * unwind_batch_start - unwind_batch() on the unwinder's own threads, returning at once (when it
 * has none: once all are unwound), so that the caller can do other work meanwhile; the maps
 * and the jobs must stay as they are until unwind_batch_wait() returns.
 */
void unwind_batch_start(struct unwinder *u, struct unwind_job *jobs, u32 nr);

/**
 * unwind_batch_wait - wait until the batch unwind_batch_start() began is all unwound (at once
 * when there is none).
 */
void unwind_batch_wait(struct unwinder *u);

#endif
