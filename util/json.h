/* SPDX-License-Identifier: GPL-2.0 */
/* JSON output shared by prec report's views. */
#ifndef PREC_UTIL_JSON_H
#define PREC_UTIL_JSON_H

#include <stdio.h>

/**
 * json_str - write s as a JSON string (quotes included) to out; NULL writes "".
 *
 * Names come from files and need not be UTF-8: valid UTF-8 sequences pass through, any other
 * byte of 0x80 and up is written as the code point of the same number (as if Latin-1), so the
 * output is always valid JSON. Quotes, backslashes, control characters and DEL are escaped.
 */
void json_str(FILE *out, const char *s);

#endif
