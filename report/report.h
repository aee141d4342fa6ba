/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report: the views over one perf.data file. report.c parses the options, opens the file
 * and runs one view; each view reads the records through report_next(), which counts them and
 * turns a reader error into the one-line message the tool prints.
 */
#ifndef PREC_REPORT_REPORT_H
#define PREC_REPORT_REPORT_H

#include "report/input.h"

/* The views. Each returns 0, or -1 after printing an error. */
int report_stats(struct report *rep);
int report_dump(struct report *rep);
int report_header(struct report *rep);

#endif
