// SPDX-License-Identifier: GPL-2.0
/* Growable byte buffers, and the log callback of format/. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"

static pd_log_fn log_fn;

void pd_set_log(pd_log_fn fn)
{
	log_fn = fn;
}

void pd_log(int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg);
}

void pd_buf_release(struct pd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

void pd_buf_reset(struct pd_buf *b)
{
	b->len = 0;
	b->err = 0;
}

void *pd_buf_reserve(struct pd_buf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		u8 *data;

		while (cap < b->len + n)
			cap *= 2;
		data = realloc(b->data, cap);
		if (!data) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->data = data;
		b->cap = cap;
	}
	return b->data + b->len;
}

void *pd_buf_append(struct pd_buf *b, const void *p, size_t n)
{
	void *dst = pd_buf_reserve(b, n);

	if (!dst)
		return NULL;
	if (p)
		memcpy(dst, p, n);
	else
		memset(dst, 0, n);
	b->len += n;
	return dst;
}

void pd_buf_u16(struct pd_buf *b, u16 v)
{
	pd_buf_append(b, &v, sizeof(v));
}

void pd_buf_u32(struct pd_buf *b, u32 v)
{
	pd_buf_append(b, &v, sizeof(v));
}

void pd_buf_u64(struct pd_buf *b, u64 v)
{
	pd_buf_append(b, &v, sizeof(v));
}

void pd_buf_pad(struct pd_buf *b, size_t align)
{
	size_t rem = b->len % align;

	if (rem)
		pd_buf_append(b, NULL, align - rem);
}

void pd_buf_string(struct pd_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
	u8 *dst;

	pd_buf_u32(b, (u32)padded);
	dst = pd_buf_append(b, NULL, padded);
	if (dst)
		memcpy(dst, s, n);
}
