/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PREC_UTIL_LOG_H
#define PREC_UTIL_LOG_H

#include <stdarg.h>

/* 0 by default; each -v raises it. debug() prints only when it is above 0. */
extern int verbose;
/* Set by -q: warnings and notes are not printed, errors still are. */
extern int quiet;

/**
 * die - print "prec: <message>" on stderr and exit with status 1.
 */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);

/**
 * error - print "prec: <message>" on stderr.
 *
 * Return: -1, so that callers can write "return error(...)".
 */
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);

/**
 * warning - print "prec: warning: <message>" on stderr unless quiet.
 */
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);

/**
 * note - print "prec: <message>" on stderr unless quiet: facts the user should know, such as a
 * fallback that was taken.
 */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);

/**
 * debug - print "prec: <message>" on stderr when verbose >= level.
 */
__attribute__((format(printf, 2, 3))) void debug(int level, const char *fmt, ...);

/**
 * usage_error - print "prec <cmd>: <message>" and return 2, the status for bad usage.
 */
__attribute__((format(printf, 2, 3))) int usage_error(const char *cmd, const char *fmt, ...);

/**
 * log_format_message - the log callback installed into format/ (see pd_set_log()).
 */
void log_format_message(int level, const char *msg);

#endif
