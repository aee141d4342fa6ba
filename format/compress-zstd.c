// SPDX-License-Identifier: GPL-2.0
/*
 * zstd for PERF_RECORD_COMPRESSED. perf keeps one stream per session and flushes it at every
 * ring-buffer push, so a record may end mid-event; prec does the same on both sides.
 */
#include <errno.h>
#include <stdlib.h>

#include "config.h"
#include "format/internal.h"

#ifdef HAVE_ZSTD
#include <zstd.h>

struct pd_zstd {
	ZSTD_CStream *c;
	ZSTD_DStream *d;
};

int pd_zstd_compressor_new(struct pd_zstd **zp, int level)
{
	struct pd_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->c = ZSTD_createCStream();
	if (!z->c || ZSTD_isError(ZSTD_initCStream(z->c, level))) {
		pd_zstd_free(z);
		return -ENOMEM;
	}
	*zp = z;
	return 0;
}

int pd_zstd_decompressor_new(struct pd_zstd **zp)
{
	struct pd_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->d = ZSTD_createDStream();
	if (!z->d || ZSTD_isError(ZSTD_initDStream(z->d))) {
		pd_zstd_free(z);
		return -ENOMEM;
	}
	*zp = z;
	return 0;
}

void pd_zstd_free(struct pd_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCStream(z->c);
	ZSTD_freeDStream(z->d);
	free(z);
}

int pd_zstd_compress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t room = ZSTD_CStreamOutSize();
	size_t ret;

	for (;;) {
		ZSTD_outBuffer o = { pd_buf_reserve(out, room), room, 0 };

		if (!o.dst)
			return out->err;
		if (in.pos < in.size)
			ret = ZSTD_compressStream(z->c, &o, &in);
		else
			ret = ZSTD_flushStream(z->c, &o);
		out->len += o.pos;
		if (ZSTD_isError(ret)) {
			pd_log(1, "zstd compression failed: %s", ZSTD_getErrorName(ret));
			return -EIO;
		}
		if (in.pos == in.size && ret == 0 && o.pos < room)
			return 0;
	}
}

/* Output grows by this much at a time: most records decompress to far less than max_out. */
#define DECOMPRESS_STEP (128u << 10)

int pd_zstd_decompress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out,
		       size_t max_out)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t produced = 0;

	for (;;) {
		size_t room = max_out - produced;
		ZSTD_outBuffer o;
		size_t ret;

		if (room > DECOMPRESS_STEP)
			room = DECOMPRESS_STEP;
		o = (ZSTD_outBuffer){ pd_buf_reserve(out, room), room, 0 };
		if (!o.dst)
			return out->err;
		ret = ZSTD_decompressStream(z->d, &o, &in);
		out->len += o.pos;
		produced += o.pos;
		if (ZSTD_isError(ret)) {
			pd_log(1, "zstd decompression failed: %s", ZSTD_getErrorName(ret));
			return -EBADMSG;
		}
		/* Done when the input is used up and zstd did not fill what it was given. */
		if (in.pos == in.size && o.pos < room)
			return 0;
		if (produced == max_out) {
			/* Exactly full: an error only if zstd still holds output. */
			u8 probe;
			ZSTD_outBuffer p = { &probe, 1, 0 };

			if (in.pos < in.size)
				return -ENOSPC;
			ret = ZSTD_decompressStream(z->d, &p, &in);
			return ZSTD_isError(ret) || p.pos ? -ENOSPC : 0;
		}
	}
}

#else

int pd_zstd_compressor_new(struct pd_zstd **zp, int level)
{
	return -EOPNOTSUPP;
}

int pd_zstd_decompressor_new(struct pd_zstd **zp)
{
	return -EOPNOTSUPP;
}

void pd_zstd_free(struct pd_zstd *z)
{
}

int pd_zstd_compress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out)
{
	return -EOPNOTSUPP;
}

int pd_zstd_decompress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out,
		       size_t max_out)
{
	return -EOPNOTSUPP;
}
#endif
