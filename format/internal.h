/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the files of format/ only. */
#ifndef PREC_FORMAT_INTERNAL_H
#define PREC_FORMAT_INTERNAL_H

#include "format/perf-data.h"

/* printf-style line to the installed log callback; level as pd_log_fn. */
__attribute__((format(printf, 2, 3))) void pd_log(int level, const char *fmt, ...);

/*
 * zstd streams (format/compress-zstd.c). One compressor per writer and one decompressor per
 * reader, both streaming across records as perf does. Without zstd they return -EOPNOTSUPP.
 */
struct pd_zstd;

int pd_zstd_compressor_new(struct pd_zstd **zp, int level);
int pd_zstd_decompressor_new(struct pd_zstd **zp);
void pd_zstd_free(struct pd_zstd *z);
/* Compress len bytes and flush, appending the compressed bytes to out. */
int pd_zstd_compress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out);
/*
 * Decompress len bytes of a record's payload, appending the output to out; at most max_out
 * bytes may come out of one call (perf's comp_mmap_len bound), -ENOSPC beyond that, -EBADMSG on
 * corrupt input.
 */
int pd_zstd_decompress(struct pd_zstd *z, const void *src, size_t len, struct pd_buf *out,
		       size_t max_out);

#endif
