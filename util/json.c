// SPDX-License-Identifier: GPL-2.0
#include "config.h"

#include "util/json.h"

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when s does not start one. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned cp;

	if (s[0] < 0xc2)
		return 0; /* ASCII is handled by the caller; 0x80-0xc1 never start a sequence */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	if (!n)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms and surrogates are not UTF-8 */
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', out);
	while (*p) {
		unsigned char ch = *p;
		int n;

		if (ch == '"' || ch == '\\') {
			fprintf(out, "\\%c", ch);
		} else if (ch == '\n') {
			fputs("\\n", out);
		} else if (ch == '\t') {
			fputs("\\t", out);
		} else if (ch < 0x20 || ch == 0x7f) {
			fprintf(out, "\\u%04x", ch);
		} else if (ch >= 0x80 && (n = utf8_len(p))) {
			fwrite(p, 1, (size_t)n, out);
			p += n;
			continue;
		} else if (ch >= 0x80) {
			fprintf(out, "\\u%04x", ch);
		} else {
			fputc(ch, out);
		}
		p++;
	}
	fputc('"', out);
}
