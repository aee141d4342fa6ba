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

/* ---- The reader (reader.c opens and iterates, sample.c decodes samples) ---- */

/* The sample_type bits of the sample_id trailer that sample_id_all appends to other records. */
#define PD_TRAILER_MASK                                                                            \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Where an event's name came from; a later source replaces an earlier one, as in perf. */
enum pd_name_source {
	PD_NAME_NONE,
	PD_NAME_TRACEPOINT, /* "system:event" from the tracing data */
	PD_NAME_EVENT_DESC,
	PD_NAME_EVENT_UPDATE,
};

struct pd_reader_attr {
	struct perf_event_attr attr; /* zero-extended to 128 bytes */
	u64 *ids;
	u32 nr_ids;
	char *name;
	enum pd_name_source name_src;
	/* what the sample decoder needs, computed once */
	u32 fixed_size;   /* bytes of the u64 fields a sample starts with (IDENTIFIER..PERIOD) */
	u32 trailer_size; /* bytes of the sample_id trailer (sample_id_all) */
	u32 nr_uregs, nr_iregs;
	bool hw_idx;
};

struct pd_feature_slot {
	const void *data; /* into the mapping (file mode) or owned (pipe mode, HEADER_FEATURE) */
	size_t len;
	void *owned;
	bool present;
};

/* Scratch for re-aligning what a sample points to: a record is at most PD_RECORD_MAX long. */
#define PD_SCRATCH_SIZE (8 * (PD_RECORD_MAX + 1))

/*
 * A buffer records were read into and handed out from (pd_reader_hold()). While it is the input
 * buffer, data and cap are in_data's as of its first hold; after, they are the buffer's own.
 */
struct pd_hold {
	u8 *data;
	size_t cap;
	u32 refs;
	struct pd_hold *next;	  /* in spare */
	struct pd_hold *all_next; /* in holds */
};

struct pd_reader {
	int fd;
	bool own_fd;
	bool pipe;
	unsigned flags; /* enum pd_reader_flags */
	const u8 *map; /* file mode: the whole file, for the headers and the features */
	size_t map_len;
	u64 file_size;
	struct pd_file_header hdr;
	char errmsg[320];

	struct pd_reader_attr *attrs;
	u32 nr_attrs, cap_attrs;
	/* id -> attr: open addressing on non-zero ids; a later attr wins, as in perf's hlist */
	u64 *id_keys;
	u32 *id_vals;
	u32 id_mask, id_count;
	/* where the id sits, from the first attr (perf's evlist id_pos / is_pos) */
	int id_pos, is_pos;

	struct pd_feature_slot feat[PD_FEAT_BITS];
	struct tep_handle *tep;
	struct pd_buf build_ids; /* pipe mode: HEADER_BUILD_ID records, as the BUILD_ID feature */
	u32 comp_mmap_len;

	/* iteration */
	u64 data_start, data_end; /* file offsets (file mode) */
	u64 pos;                  /* file mode: offset of the next record; pipe: stream offset */
	u64 data_read;            /* bytes up to the end of the last complete record */
	bool recovered, at_end;

	/* compressed records: one stream for the whole file */
	struct pd_zstd *zstd;
	struct pd_buf decomp;
	size_t decomp_pos;
	u64 decomp_offset; /* file offset of the COMPRESSED record the bytes came from */

	/*
	 * The records as read() (pipe) or pread() (file: the data section) brought them in:
	 * in_data + in_pos is the record at pos; [in_pos, in_len) is not used yet.
	 */
	u8 *in_data;
	size_t in_pos, in_len, in_cap;
	bool in_eof;
	/*
	 * Buffers a caller holds records in (pd_reader_hold()): in_hold is in_data's while it has
	 * holders (a buffer with holders is never written again: reading goes on in another), and
	 * spare the buffers they gave back, reused before any new one is allocated, so that their
	 * pages need not be faulted in again. holds lists every one, for reader_free().
	 */
	struct pd_hold *in_hold, *spare, *holds;

	/* the last record handed out, for error messages of pd_reader_parse_sample() */
	const struct pd_record_header *last;
	u64 last_offset;
	size_t last_inner; /* its position in the decompressed data, when last_compressed */
	bool last_compressed;

	struct pd_buf align; /* a misaligned record, copied */
	u8 *scratch;         /* PD_SCRATCH_SIZE bytes, 8-aligned, allocated when first needed */
	size_t scratch_used;
	struct pd_read_value *read_values;
	size_t read_values_cap;
};

/*
 * The attr that declared sample id id (a later attr wins, as in perf's hash), or -ENOENT: the
 * strict lookup, without pd_reader_attr_by_id()'s fallbacks to the first attr.
 */
int pd_reader_id_lookup(const struct pd_reader *r, u64 id);

/* Set r->errmsg ("at offset 0x..., record type N (NAME): ...") for record h; returns err. */
__attribute__((format(printf, 4, 5))) int pd_reader_record_error(struct pd_reader *r,
								  const struct pd_record_header *h,
								  int err, const char *fmt, ...);

#endif
