/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf report's sample filters for the profile (report/filter.c): --time, --dsos, --symbols,
 * --symbol-filter, --hide-unresolved and --max-stack, on the options of struct filter_opts
 * (report/report.h).
 */
#ifndef PREC_REPORT_FILTER_H
#define PREC_REPORT_FILTER_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "report/session.h"

/**
 * filter_time_parse - parse --time as perf does: "START,STOP" in seconds (either may be
 * empty), several separated by spaces; or percentages of [first, last]: "10%/2" (the second
 * tenth), "0%-10%,30%-40%", "10%" (the first tenth).
 *
 * Return: 0 with *out (malloc'ed) and *nr set, or -EINVAL.
 */
int filter_time_parse(const char *str, u64 first, u64 last, struct time_range **out, u32 *nr);

/**
 * filter_time_setup - turn f->time_str into ranges, with the first and last sample times the
 * file records (its SAMPLE_TIME feature) for the percent forms.
 *
 * Return: 0, or -1 after printing why.
 */
int filter_time_setup(struct report *rep, struct filter_opts *f);

/**
 * filter_time_skip - is a sample taken at time outside the --time ranges? A sample without a
 * time never is.
 *
 * Return: true to drop the sample.
 */
bool filter_time_skip(const struct filter_opts *f, u64 time);

/**
 * filter_frame_skip - does the sample's own frame fail --dsos, --symbols or --symbol-filter
 * (which perf applies to the first event, attr 0, alone)?
 *
 * Return: true when its row is hidden (the sample still counts in the total).
 */
bool filter_frame_skip(const struct filter_opts *f, u32 attr, const struct frame *fr);

/**
 * thread_filtered - whether --comm, --pid or --tid leave out the samples of thread t (its
 * command as it is at the sample).
 *
 * Return: true to leave them out.
 */
bool thread_filtered(const struct report_opts *o, const struct thread *t);

/* Why filter_sample_skip() leaves a sample out: bits, any number of them but OUTSIDE. */
#define FILTER_SKIP_OUTSIDE 0x1u    /* --cpu or --time: the sample is not in the file's view */
#define FILTER_SKIP_UNRESOLVED 0x2u /* --hide-unresolved, and the sample has no symbol */
#define FILTER_SKIP_THREAD 0x4u	    /* --comm, --pid or --tid */
#define FILTER_SKIP_FRAME 0x8u	    /* --dsos, --symbols or --symbol-filter (filter_frame_skip) */

/**
 * filter_sample_skip - the one decision of whether the views show sample smp of thread t, the
 * checks in perf's order: --cpu and --time first (OUTSIDE, returned alone: nothing else is
 * checked), then --comm, --pid and --tid (THREAD), then the sample's own frame: without a
 * symbol under --hide-unresolved (UNRESOLVED), and when no other reason was found, --dsos,
 * --symbols and --symbol-filter (FRAME). The callers decide what each reason costs: the table
 * counts THREAD and FRAME samples in the event's total and hides their rows, pprof leaves
 * them all out, the metrics view ends its windows at OUTSIDE and THREAD ones.
 * @frame: NULL, or where to put the sample's frame (session_resolve_flagged(), with
 * FRAME_UNRESOLVED) whenever OUTSIDE is not returned; NULL resolves it only when a frame
 * filter needs it
 *
 * Return: 0 when the sample is shown, else the FILTER_SKIP_* bits of why it is not.
 */
u32 filter_sample_skip(const struct report_opts *o, struct session *s, struct thread *t,
		       const struct psample *smp, u32 *frame);

/* The most frames of a sample's recorded chain a report shows, as perf's default max stack. */
#define FILTER_MAX_STACK 127

/**
 * filter_chain - apply --max-stack and --hide-unresolved to a chain of n frames, callee first;
 * caller: the chains are shown (and cut) from the outermost caller; aux (NULL: none), a number
 * per frame, is kept or left out with its frame.
 *
 * Return: the number of frames left at the start of frames.
 */
u32 filter_chain(const struct filter_opts *f, const struct session *s, bool caller, u32 *frames,
		 u32 *aux, u32 n);

/**
 * filter_sample_chain - filter_chain() on the frames of smp's chain (pos: where each is in
 * smp->chain) as perf limits them: a chain unwound from the user stack (dwarf) in two parts,
 * the kernel's callchain as any other and the user frames as the unwinder found them, the ones
 * nearest the sample first (the session unwound no more than --max-stack).
 * @kept_kernel: set to how many of the frames left are the kernel's (all, for other chains)
 *
 * Return: the number of frames left at the start of frames.
 */
u32 filter_sample_chain(const struct filter_opts *f, const struct session *s,
			const struct psample *smp, bool caller, u32 *frames, u32 *pos, u32 n,
			u32 *kept_kernel);

/**
 * filter_list_add - add the names of a comma list to *list.
 *
 * Return: 0, or -EINVAL when arg holds no name.
 */
int filter_list_add(char ***list, u32 *nr, const char *arg);

/**
 * filter_heading - print perf's "# dso: NAME" and "# symbol: NAME" lines for a --dsos or
 * --symbols of one name whose column is shown (it is then left out of the table).
 */
void filter_heading(const struct report_opts *o, FILE *out);

/* Free what the options hold. */
void filter_opts_free(struct filter_opts *f);

#endif
