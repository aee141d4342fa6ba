/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report: the views over one perf.data file. report.c parses the options, opens the file
 * and runs one view; each view reads the records through report_next(), which counts them and
 * turns a reader error into the one-line message the tool prints.
 */
#ifndef PREC_REPORT_REPORT_H
#define PREC_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"

struct report {
	const char *path; /* as the user gave it ("-" for stdin) */
	struct pd_reader *r;
	u64 nr_records; /* records handed out so far, those decompressed included */
	char *note;	/* said on stderr (unless -q) when the whole file was read */
};

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

/* The views. Each returns 0, or -1 after printing an error. */
int report_stats(struct report *rep);
int report_dump(struct report *rep);
int report_header(struct report *rep);

#endif
