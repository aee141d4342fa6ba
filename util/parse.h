/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers of option values, one of each kind: a number, a percentage, a duration as perf takes
 * them. They accept the whole string or nothing, and never print: the caller says which option
 * was wrong.
 */
#ifndef PREC_UTIL_PARSE_H
#define PREC_UTIL_PARSE_H

#include <stdbool.h>

#include "format/ondisk.h"

/**
 * parse_u64 - parse an unsigned number, decimal, 0x hexadecimal or 0 octal (strtoull's base 0),
 * with nothing before or after it (no sign, no space, no unit).
 *
 * Return: 0 with *v set, or -EINVAL.
 */
int parse_u64(const char *s, u64 *v);

/**
 * parse_percent - parse a percentage from 0 to 100, decimals allowed, with or without a
 * trailing '%' ("5", "0.5", "12.5%").
 *
 * Return: 0 with *v set, or -EINVAL.
 */
int parse_percent(const char *s, double *v);

/**
 * parse_duration - parse a duration: a number (decimals allowed) followed by ns, us, ms, s, m
 * or h; without a unit, milliseconds (as perf stat -I).
 *
 * Return: 0 with *ns set, or -EINVAL.
 */
int parse_duration(const char *s, u64 *ns);

/**
 * parse_size - parse a size in bytes: a decimal number, alone or followed by one of B, K, M or G
 * (either case; K is 1024 bytes), as perf record's --max-size, --mmap-flush and -m take it.
 * @s: the text
 * @bytes: the size, in bytes when a unit was given, else the bare number
 * @unit: set to whether a unit was given (-m counts pages without one); may be NULL
 *
 * Return: 0 with *bytes set, or -EINVAL (no number, another unit, or more than 2^64 bytes).
 */
int parse_size(const char *s, u64 *bytes, bool *unit);

#endif
