/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec record: the command and the session engine it runs. Hooks include record/hook.h only.
 */
#ifndef PREC_RECORD_RECORD_H
#define PREC_RECORD_RECORD_H

#include "record/hook.h"

struct event_list;

/**
 * record_new - a session, before its recording (the recorder's rusage counts from here).
 *
 * Return: the session; record_free() frees it.
 */
struct record *record_new(void);

/**
 * record_run - make the recording opts describe, of events (the -e events, parsed; none for
 * the default event), with nr_hooks hooks (declared, opened, prepared ... in this order):
 * prepare, open the output, start, drain until the end, finish. Messages are printed;
 * record_stats() then has the figures of the summary.
 *
 * Return: 0 when the file was written; -1 after an error, the file removed; a positive exit
 * status (126, 127) when the workload could not be executed.
 */
int record_run(struct record *rec, const struct record_opts *opts,
	       const struct event_list *events, const struct record_hook *const *hooks,
	       int nr_hooks);

/**
 * record_exit_status - the exit status of a finished recording, as perf record's: the
 * workload's (128 + the signal that ended it), else 128 + the signal that stopped the
 * recording, else 0.
 *
 * Return: the exit status.
 */
int record_exit_status(const struct record *rec);

/**
 * record_summary_name - the name the summary lines give the command: "perf" with --summary=perf
 * (or PREC_SUMMARY=perf), else "prec".
 *
 * Return: the name.
 */
const char *record_summary_name(const struct record *rec);

/**
 * record_output_file - the finished output's name (with its timestamp under
 * --timestamp-filename and --switch-output), where its data section ends (0 in pipe mode) and
 * the wakeups since it began (the last rotation of --switch-output, else the start).
 *
 * Return: the name.
 */
const char *record_output_file(const struct record *rec, u64 *data_end, u64 *wakeups);

/* Free the session and everything it still holds (NULL does nothing). */
void record_free(struct record *rec);

#endif
