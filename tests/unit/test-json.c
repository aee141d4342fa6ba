// SPDX-License-Identifier: GPL-2.0
/* util/json: names from files become valid JSON strings, whatever bytes they hold. */
#include "config.h"

#include <stdlib.h>

#include "tests/tap.h"
#include "util/json.h"

/* json_str of s, as a string (a static buffer). */
static const char *js(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	json_str(f, s);
	fclose(f);
	return out;
}

int main(void)
{
	is_str(js("cpu-clock"), "\"cpu-clock\"", "ASCII as it is");
	is_str(js(NULL), "\"\"", "NULL is the empty string");
	is_str(js("a\"b\\c"), "\"a\\\"b\\\\c\"", "quotes and backslashes escaped");
	is_str(js("a\nb\tc\x01\x7f"), "\"a\\nb\\tc\\u0001\\u007f\"", "control characters and DEL");
	is_str(js("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"",
	       "valid UTF-8 of 2, 3 and 4 bytes passes through");
	is_str(js("a\xe9z"), "\"a\\u00e9z\"", "a lone Latin-1 byte becomes its code point");
	is_str(js("\xc3"), "\"\\u00c3\"", "a sequence cut by the end");
	is_str(js("\xc0\xaf"), "\"\\u00c0\\u00af\"", "an overlong form is not UTF-8");
	is_str(js("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"", "nor a surrogate");
	is_str(js("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"",
	       "nor a code point above U+10FFFF");
	return done_testing();
}
