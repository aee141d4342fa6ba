/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input layer of prec report, below every view: open a perf.data file, hand out its records
 * (counted, a reader error turned into the one-line message the tool prints), name its events,
 * and close it, saying once what was read of a file its writer did not finish and checking that
 * the view's output reached stdout.
 */
#ifndef PREC_REPORT_INPUT_H
#define PREC_REPORT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"

struct report {
	const char *path; /* as the user gave it ("-" for stdin) */
	const char *name; /* for messages: the path, or "stdin" */
	struct pd_reader *r;
	u64 nr_records; /* records handed out so far, those decompressed included */
	char *note;	/* said on stderr (unless -q) by report_close() unless the view failed */
};

/**
 * report_open - open path, a perf.data file or "-" for a pipe-mode stream on stdin.
 *
 * Return: 0, or -1 after printing why the file cannot be read.
 */
int report_open(struct report *rep, const char *path);

/**
 * report_next - the next record of the file, counted.
 *
 * Return: 1 with *ev set, 0 at the end, -1 after printing the reader's error.
 */
int report_next(struct report *rep, struct pd_event *ev);

/**
 * report_read_error - print the reader's last error as "prec: FILE: ..." and return -1.
 */
int report_read_error(struct report *rep);

/**
 * report_event_name - the name perf gives event idx: the file's (EVENT_DESC, EVENT_UPDATE, the
 * tracepoint's format), else one built from the attr as perf's evsel__name() builds it
 * ("cpu-clock", "cycles:u", "raw 0x1c2", "unknown attr type: 9").
 *
 * Return: buf, or the reader's own string.
 */
const char *report_event_name(struct pd_reader *r, u32 idx, char *buf, size_t len);

/**
 * report_aggregated_events - which events the file's facts say were counted in the kernel
 * (prec record --aggregate): each SAMPLE of such an event stands for one key, and its WEIGHT
 * says how many kernel samples it sums. An event whose attr lacks PERF_SAMPLE_WEIGHT is not
 * taken as aggregated, whatever the facts say.
 *
 * Return: a malloc'ed array of one flag per attr, or NULL when no event was aggregated (no
 * facts, or facts that cannot be read: the views say why elsewhere).
 */
bool *report_aggregated_events(struct pd_reader *r);

/**
 * report_hf_period - the alternating period the file's facts say event idx was recorded with
 * (prec record's hf-period= or alt-period=): the kernel alternated its period between the
 * attr's period minus it and it.
 * @rand: set to the jitter's exponent (the long period jittered over 1 << *rand counts), 0 for
 *	  none; may be NULL
 *
 * Return: the period, or 0 when the facts say none (or there are no facts that can be read).
 */
u32 report_hf_period(struct pd_reader *r, u32 idx, u32 *rand);

/**
 * report_close - end a view's reading and close the file: unless the view failed (status 1),
 * count what it left unread of a file its writer did not finish and say how much was read (a
 * warning, or an error when the file was cut after it was written); check that the view's
 * output reached stdout; say rep->note.
 *
 * Return: the exit status: status, or 1 after printing an error.
 */
int report_close(struct report *rep, int status);

#endif
