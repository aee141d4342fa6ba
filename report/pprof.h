/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec report --pprof FILE (report/pprof.c): the samples as a gzipped profile.proto, the format
 * pprof and the continuous-profiling services (Grafana Pyroscope, Parca) read. The encoder is
 * protobuf's wire format written by hand for that one message; the helpers below are its
 * pieces, declared here so that a unit test can check them byte by byte.
 */
#ifndef PREC_REPORT_PPROF_H
#define PREC_REPORT_PPROF_H

#include <stddef.h>

#include "format/perf-data.h"
#include "report/report.h"

/* A growing buffer of encoded bytes. */
struct pb_buf {
	u8 *b;
	size_t len, cap;
};

/* Append v as a base-128 varint (protobuf's wire type 0). */
void pb_varint(struct pb_buf *b, u64 v);
/* Append field f as a varint; a zero is left out, as proto3 leaves out defaults. */
void pb_uint(struct pb_buf *b, u32 f, u64 v);
/* Append field f as length-delimited bytes (strings, embedded messages): always written. */
void pb_bytes(struct pb_buf *b, u32 f, const void *p, size_t n);
/* Append repeated varint field f, packed (one length-delimited run); nothing when n is 0. */
void pb_packed(struct pb_buf *b, u32 f, const u64 *v, u32 n);
/* Free the bytes; the buffer is empty again. */
void pb_free(struct pb_buf *b);

/**
 * pprof_gzip - compress n bytes at p into a gzip stream (zlib's deflate with its gzip header).
 * @out: set to the compressed bytes (malloc'ed), @out_len to their length
 *
 * Return: 0, or -EFBIG above 2 GiB (one call of zlib), -ENOMEM / -EIO when zlib fails.
 */
int pprof_gzip(const void *p, size_t n, u8 **out, size_t *out_len);

/**
 * report_pprof - write the samples of the opened file rep to o->pprof as a gzipped
 * profile.proto: per event a count and a period, one sample per distinct stack and labels.
 *
 * Return: 0, or 1 after printing an error.
 */
int report_pprof(struct report *rep, const struct report_opts *o);

#endif
