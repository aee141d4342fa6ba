/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table printers of prec report (report/top.c): perf's table, text or JSON, of a profile that
 * report/hist.c built. The profile view (report/profile.c) chooses between them.
 */
#ifndef PREC_REPORT_TOP_H
#define PREC_REPORT_TOP_H

#include <stdio.h>

#include "report/hist.h"

/**
 * view_table - print perf report's table of p, with the call graphs the options ask for, on out.
 *
 * Return: 0, or -1 after printing an error.
 */
int view_table(struct profile *p, FILE *out);

/**
 * view_json - print the same table as view_table() as one JSON document on out.
 *
 * Return: 0, or -1 after printing an error.
 */
int view_json(struct profile *p, FILE *out);

#endif
