/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack printers of prec report (report/flame.c): folded stacks and the flame graph of a
 * profile that report/hist.c built. The profile view (report/profile.c) chooses between them.
 */
#ifndef PREC_REPORT_FLAME_H
#define PREC_REPORT_FLAME_H

#include <stdio.h>

#include "report/hist.h"

/**
 * view_folded - print the folded stacks of p on out, one line per distinct stack, root first.
 *
 * Return: 0, or -1 after printing an error.
 */
int view_folded(struct profile *p, FILE *out);

/**
 * view_flamegraph - write the flame graph of p as a self-contained SVG to path.
 *
 * Return: 0, or -1 after printing an error.
 */
int view_flamegraph(struct profile *p, const char *path);

#endif
