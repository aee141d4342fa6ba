// SPDX-License-Identifier: GPL-2.0
/* The one reader of kallsyms-format text (see kallsyms.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/kallsyms.h"

/* Lines longer than this are skipped: no symbol line comes near it (names are 512 at most). */
#define KALLSYMS_BUF (256 * 1024)
/* The first read: /proc/kallsyms starts with _text, which is often all a caller wants. */
#define KALLSYMS_FIRST_READ 4096

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One line, [p, nl): "ADDR TYPE NAME[\t[MODULE]]". Return: false when it is not one. */
static bool parse_line(const char *p, const char *nl, struct kallsyms_sym *s)
{
	const char *start = p, *q;
	u64 a = 0;
	int v;

	while (p < nl && (v = hexval(*p)) >= 0) {
		a = a << 4 | (u64)v;
		p++;
	}
	if (p == start || p + 3 > nl || *p != ' ' || p[2] != ' ')
		return false;
	s->addr = a;
	s->type = p[1];
	p += 3;
	q = p;
	while (q < nl && *q != '\t' && *q != ' ')
		q++;
	s->name = p;
	s->namelen = (size_t)(q - p);
	s->module = NULL;
	s->modlen = 0;
	while (q < nl && (*q == '\t' || *q == ' '))
		q++;
	if (q < nl && *q == '[') {
		const char *e = memchr(q, ']', (size_t)(nl - q));

		if (e) {
			s->module = q + 1;
			s->modlen = (size_t)(e - q - 1);
		}
	}
	return true;
}

int kallsyms_parse(const char *text, size_t len, kallsyms_cb cb, void *arg)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct kallsyms_sym s;
		int ret;

		if (!nl)
			nl = end;
		if (parse_line(p, nl, &s) && (ret = cb(&s, arg)))
			return ret;
		p = nl + (nl < end);
	}
	return 0;
}

int kallsyms_foreach(const char *path, kallsyms_cb cb, void *arg)
{
	size_t have = 0, chunk = KALLSYMS_FIRST_READ;
	bool skipping = false; /* inside an overlong line, until its newline */
	int fd, ret = 0;
	char *buf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(KALLSYMS_BUF);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		size_t want = KALLSYMS_BUF - have < chunk ? KALLSYMS_BUF - have : chunk;
		ssize_t n = read(fd, buf + have, want);
		const char *last_nl;
		size_t done;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0) {
			/* a last line without a newline */
			if (have && !skipping)
				ret = kallsyms_parse(buf, have, cb, arg);
			break;
		}
		have += (size_t)n;
		if (chunk < KALLSYMS_BUF)
			chunk *= 2;
		last_nl = memrchr(buf, '\n', have);
		if (!last_nl) {
			/* no whole line in a full buffer: drop it, and the rest of that line */
			if (have == KALLSYMS_BUF) {
				have = 0;
				skipping = true;
			}
			continue;
		}
		done = (size_t)(last_nl - buf) + 1;
		if (skipping) {
			const char *first_nl = memchr(buf, '\n', done);
			size_t skip = (size_t)(first_nl - buf) + 1;

			skipping = false;
			ret = kallsyms_parse(buf + skip, done - skip, cb, arg);
		} else {
			ret = kallsyms_parse(buf, done, cb, arg);
		}
		if (ret)
			break;
		memmove(buf, buf + done, have - done);
		have -= done;
	}
	free(buf);
	close(fd);
	return ret;
}
