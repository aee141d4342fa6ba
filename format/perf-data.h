/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format/: the perf.data library. It knows bytes, not meaning: it writes and reads perf.data
 * files as perf 6.1 does (file and pipe mode, zstd-compressed records, features, tracing data).
 * It never prints and never exits: functions return a negative errno, the reader keeps a one-line
 * explanation of its last error (pd_reader_errmsg()), and anything worth a debug line goes to the
 * log callback the tool installs with pd_set_log().
 */
#ifndef PREC_FORMAT_PERF_DATA_H
#define PREC_FORMAT_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "format/ondisk.h"

struct tep_handle;

/* Log levels passed to the callback: 0 warning, 1 debug, 2 more detail. */
typedef void (*pd_log_fn)(int level, const char *msg);

/**
 * pd_set_log - install the function that receives format/'s warnings and debug lines.
 */
void pd_set_log(pd_log_fn fn);

/* ---------------------------------------------------------------------------------------- */
/* Byte buffers: records and feature payloads are built in these. */

struct pd_buf {
	u8 *data;
	size_t len, cap;
	int err; /* sticky: the first allocation failure (-ENOMEM); appends then do nothing */
};

#define PD_BUF_INIT { NULL, 0, 0, 0 }

void pd_buf_release(struct pd_buf *b);
/* Forget the contents, keep the memory. */
void pd_buf_reset(struct pd_buf *b);
/**
 * pd_buf_append - append n bytes (zeros when p is NULL).
 *
 * Return: a pointer to the appended bytes in the buffer, or NULL after an allocation failure.
 */
void *pd_buf_append(struct pd_buf *b, const void *p, size_t n);
/**
 * pd_buf_reserve - make room for n more bytes without adding them (len is unchanged).
 *
 * Return: where they would go (b->data + b->len), or NULL after an allocation failure.
 */
void *pd_buf_reserve(struct pd_buf *b, size_t n);
void pd_buf_u16(struct pd_buf *b, u16 v);
void pd_buf_u32(struct pd_buf *b, u32 v);
void pd_buf_u64(struct pd_buf *b, u64 v);
/* Zero-pad the length up to a multiple of align. */
void pd_buf_pad(struct pd_buf *b, size_t align);
/* A feature string: u32 len, then the bytes NUL-terminated and zero-padded to PD_NAME_ALIGN. */
void pd_buf_string(struct pd_buf *b, const char *s);

/* ---------------------------------------------------------------------------------------- */
/* Samples, decoded or to be encoded. */

struct pd_read_value {
	u64 value;
	u64 id;   /* with PERF_FORMAT_ID */
	u64 lost; /* with PERF_FORMAT_LOST */
};

struct pd_read {
	u64 nr; /* entries in values: the group size with PERF_FORMAT_GROUP, else 1 */
	u64 time_enabled;
	u64 time_running;
	const struct pd_read_value *values;
};

struct pd_branch_entry {
	u64 from;
	u64 to;
	u64 flags;
};

struct pd_regs {
	u64 abi; /* PERF_SAMPLE_REGS_ABI_*; 0 means no registers follow */
	u64 mask;
	const u64 *regs; /* popcount(mask) values when abi != 0 */
};

/*
 * One sample, or the sample_id trailer of another record. Which fields are valid is what
 * sample_type says (a trailer only has TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER). Pointers
 * point into the record or into the reader's scratch space: valid until the next call.
 */
struct pd_sample {
	u64 sample_type;
	u16 misc;
	u64 id; /* from PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID */
	u64 ip;
	u32 pid, tid;
	u64 time;
	u64 addr;
	u64 stream_id;
	u32 cpu;
	u64 period;
	struct pd_read read;
	u64 callchain_nr;
	const u64 *callchain;
	u32 raw_size;
	const void *raw;
	u64 branch_nr;
	u64 branch_hw_idx; /* valid when the attr has PERF_SAMPLE_BRANCH_HW_INDEX */
	const struct pd_branch_entry *branches;
	struct pd_regs user_regs;
	u64 user_stack_size; /* bytes in user_stack */
	const void *user_stack;
	u64 user_stack_dyn_size;
	u64 weight; /* PERF_SAMPLE_WEIGHT, or the packed PERF_SAMPLE_WEIGHT_STRUCT */
	u64 data_src;
	u64 transaction;
	struct pd_regs intr_regs;
	u64 phys_addr;
	u64 cgroup;
	u64 data_page_size;
	u64 code_page_size;
	u64 aux_size;
	const void *aux;
};

/* ---------------------------------------------------------------------------------------- */
/* Record encoders. Each appends one whole record (header included, size a multiple of 8) to out. */

/*
 * attr gives the layout: sample_type (and read_format, sample_regs_*, branch_sample_type) for a
 * sample; sample_type and sample_id_all for the trailer of the other records, which is appended
 * from id when attr->sample_id_all is set. id may be NULL for a zero trailer.
 */
int pd_encode_sample(struct pd_buf *out, const struct perf_event_attr *attr,
		     const struct pd_sample *s);
int pd_encode_comm(struct pd_buf *out, const struct perf_event_attr *attr, u32 pid, u32 tid,
		   const char *comm, bool exec, const struct pd_sample *id);
int pd_encode_mmap(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		   const struct pd_mmap_body *body, const char *filename, const struct pd_sample *id);
int pd_encode_mmap2(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		    const struct pd_mmap2_body *body, const char *filename,
		    const struct pd_sample *id);
/*
 * FORK when exit is false, EXIT when true; misc is the header's (0 from the kernel, perf's
 * PD_RECORD_MISC_FORK_EXEC on a synthesized FORK).
 */
int pd_encode_fork(struct pd_buf *out, const struct perf_event_attr *attr, bool exit, u16 misc,
		   const struct pd_fork_body *body, const struct pd_sample *id);
int pd_encode_lost(struct pd_buf *out, const struct perf_event_attr *attr, u64 lost_id, u64 lost,
		   const struct pd_sample *id);
int pd_encode_lost_samples(struct pd_buf *out, const struct perf_event_attr *attr, u64 lost,
			   const struct pd_sample *id);
/* THROTTLE when unthrottle is false, UNTHROTTLE when true. */
int pd_encode_throttle(struct pd_buf *out, const struct perf_event_attr *attr, bool unthrottle,
		       const struct pd_throttle_body *body, const struct pd_sample *id);
int pd_encode_ksymbol(struct pd_buf *out, const struct perf_event_attr *attr,
		      const struct pd_ksymbol_body *body, const char *name,
		      const struct pd_sample *id);
/* SWITCH when cpu_wide is NULL, SWITCH_CPU_WIDE otherwise; misc carries the out/preempt bits. */
int pd_encode_switch(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		     const struct pd_switch_cpu_wide_body *cpu_wide, const struct pd_sample *id);
/* CGROUP: the id (the cgroup directory's file handle) and the path from the cgroup root. */
int pd_encode_cgroup(struct pd_buf *out, const struct perf_event_attr *attr, u64 cgroup_id,
		     const char *path, const struct pd_sample *id);
int pd_encode_finished_round(struct pd_buf *out);
int pd_encode_finished_init(struct pd_buf *out);
int pd_encode_thread_map(struct pd_buf *out, u64 nr, const struct pd_thread_map_entry *entries);
/* A CPU_MAP of type CPUS; cpu -1 ("any CPU") is written as 0xffff. */
int pd_encode_cpu_map(struct pd_buf *out, u32 nr, const int *cpus);
int pd_encode_stat_config(struct pd_buf *out, u64 nr, const struct pd_stat_config_entry *entries);
int pd_encode_stat(struct pd_buf *out, const struct pd_stat_body *body);
int pd_encode_stat_round(struct pd_buf *out, u64 type, u64 time);
int pd_encode_event_update_name(struct pd_buf *out, u64 id, const char *name);
int pd_encode_event_update_unit(struct pd_buf *out, u64 id, const char *unit);
int pd_encode_event_update_scale(struct pd_buf *out, u64 id, double scale);
int pd_encode_time_conv(struct pd_buf *out, const struct pd_time_conv_body *body);
int pd_encode_id_index(struct pd_buf *out, u64 nr, const struct pd_id_index_entry *entries);

/* ---------------------------------------------------------------------------------------- */
/* Feature payload encoders (append to b; hand the result to pd_writer_set_feature()). */

void pd_feat_nrcpus(struct pd_buf *b, u32 avail, u32 online);
void pd_feat_total_mem(struct pd_buf *b, u64 kib);
void pd_feat_cmdline(struct pd_buf *b, int argc, const char *const *argv);
void pd_feat_sample_time(struct pd_buf *b, u64 first, u64 last);
void pd_feat_clockid(struct pd_buf *b, u64 res_ns);
void pd_feat_clock_data(struct pd_buf *b, u32 clockid, u64 tod_ns, u64 clockid_ns);
/*
 * CPU_TOPOLOGY: core and thread sibling lists (as "0-3" strings), then per CPU its core and
 * socket ids, then die lists and per CPU its die id. Arrays have nr_cpus entries.
 */
void pd_feat_cpu_topology(struct pd_buf *b, u32 nr_core_sib, const char *const *core_sib,
			  u32 nr_thread_sib, const char *const *thread_sib, u32 nr_cpus,
			  const u32 *core_id, const u32 *socket_id, u32 nr_die_sib,
			  const char *const *die_sib, const u32 *die_id);
/* One BUILD_ID entry (pid -1, the host); misc is PERF_RECORD_MISC_KERNEL or _USER. */
void pd_feat_build_id_add(struct pd_buf *b, u16 misc, const u8 *id, u8 id_size,
			  const char *filename);

/**
 * pd_feat_next_string - decode one feature string at *pos, advancing *pos.
 *
 * Return: the string (NUL-terminated inside the payload), or NULL if it runs past len.
 */
const char *pd_feat_next_string(const void *payload, size_t len, size_t *pos);

/* ---------------------------------------------------------------------------------------- */
/* Tracing data (HEADER_TRACING_DATA): the formats of the tracepoints in a file. */

struct pd_tracing;

int pd_tracing_new(struct pd_tracing **tp);
void pd_tracing_free(struct pd_tracing *t);
/**
 * pd_tracing_add_tracefs_event - copy the format of system:event from tracefs (twice is fine).
 * @id: set to the event's ID (the attr config to use)
 *
 * Return: 0, -ENOENT when the event does not exist, -ENODEV without tracefs, or another
 * negative errno.
 */
int pd_tracing_add_tracefs_event(struct pd_tracing *t, const char *system, const char *event,
				 u64 *id);
/*
 * Add a format text of our own (the "name:", "ID:", "format:" and "print fmt:" lines); its ID
 * must be unused and at most PD_PREC_EVENT_ID_MAX. Return: 0, -EINVAL, -ERANGE, -EEXIST.
 */
int pd_tracing_add_format(struct pd_tracing *t, const char *system, const char *format);
/* Append the whole HEADER_TRACING_DATA payload. */
int pd_tracing_encode(const struct pd_tracing *t, struct pd_buf *out);
/**
 * pd_tracing_parse - parse a HEADER_TRACING_DATA payload into a libtraceevent handle.
 * @flags: PD_READER_TRACING_IN_CHILD or 0 (enum pd_reader_flags)
 * @used: set to the bytes the payload took (pipe mode needs it to find the next record)
 *
 * Return: 0 with *tep set (free it with tep_free()), or -EINVAL (the reason, with its offset in
 * the payload, goes to the log callback at debug level) or -ENOMEM.
 */
int pd_tracing_parse(const void *data, size_t len, unsigned flags, struct tep_handle **tep,
		     size_t *used);

/* ---------------------------------------------------------------------------------------- */
/* prec's own synthetic events: a tracepoint in a file, a bpf-output event in a stream. */

/**
 * pd_prec_event_id - the tracepoint id of one of prec's own events, in either form.
 *
 * Return: the id (PD_PREC_EVENT_ID_BASE to PD_PREC_EVENT_ID_MAX), or 0 for any other attr and
 * for NULL.
 */
u64 pd_prec_event_id(const struct perf_event_attr *a);
/**
 * pd_prec_event_stream_attr - turn the tracepoint form of one of prec's events into the form
 * it takes in a stream (pipe mode); any other attr is left as it is.
 *
 * Return: true when a was changed.
 */
bool pd_prec_event_stream_attr(struct perf_event_attr *a);

/* ---------------------------------------------------------------------------------------- */
/* Output files. */

/* A file opened for writing by pd_outfile_open(), and what undoing it needs. */
struct pd_outfile {
	char *path;
	char *old_path; /* set when an earlier file was moved to path.old */
	bool created;	/* a regular file at path is this process's: pd_outfile_remove() removes it */
};

/**
 * pd_outfile_open - open path for writing as perf opens perf.data.
 * @mode: the new file's mode (perf.data's is 0600)
 * @keep: a file that must survive (a report's input), or NULL
 *
 * An existing non-empty regular file is renamed to path.old first; a new file is created
 * exclusively. A symlink at path is followed only when it is the caller's or belongs to the
 * owner of the file it points to (-EPERM otherwise; -ELOOP when it dangles). Anything else
 * already there (a device, a pipe) is written to as it is, and never removed.
 *
 * Return: the descriptor, or a negative errno: -EEXIST when path, or the path.old it would be
 * renamed to, is keep.
 */
int pd_outfile_open(struct pd_outfile *f, const char *path, mode_t mode, const char *keep);
/* pd_outfile_remove - after a failed write: remove the file at path if this process made it. */
void pd_outfile_remove(struct pd_outfile *f);
/* pd_outfile_undo - the same, and put path.old back where it was moved from. */
void pd_outfile_undo(struct pd_outfile *f);
/* pd_outfile_release - free what f holds (the descriptor is the caller's to close). */
void pd_outfile_release(struct pd_outfile *f);

/* ---------------------------------------------------------------------------------------- */
/* Writer. */

struct pd_writer;

enum pd_writer_flags {
	PD_WRITER_PIPE = 1 << 0, /* pipe mode: a 16-byte header, then header records */
};

/**
 * pd_writer_open - create path for writing ("-" is stdout in pipe mode).
 *
 * An existing non-empty file is renamed to path.old first, as perf does; the new file is created
 * with mode 0600. Nothing is written until pd_writer_begin().
 */
int pd_writer_open(struct pd_writer **wp, const char *path, unsigned flags);
/* The same on an open descriptor, which the writer then owns. */
int pd_writer_open_fd(struct pd_writer **wp, int fd, unsigned flags);

/**
 * pd_writer_add_attr - declare an event before pd_writer_begin().
 * @name: the name for EVENT_DESC (file mode) or EVENT_UPDATE (pipe mode); NULL for none
 * @ids: the sample ids the kernel gave this event, one per opened fd
 *
 * Return: the attr's index, or a negative errno. The attr is written with size 128.
 */
int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr, const char *name,
		       const u64 *ids, u32 nr_ids);
/* Declare a group for GROUP_DESC: nr_members attrs starting at index leader. */
int pd_writer_add_group(struct pd_writer *w, const char *name, u32 leader, u32 nr_members);

/**
 * pd_writer_set_compression - compress the data section with zstd at level.
 * @mmap_len: the largest decompressed size of one COMPRESSED record (perf's comp_mmap_len)
 *
 * Return: 0, or -EOPNOTSUPP when prec was built without zstd.
 */
int pd_writer_set_compression(struct pd_writer *w, int level, u32 mmap_len);

/**
 * pd_writer_set_feature - set a feature's payload (copied), replacing an earlier one.
 *
 * In file mode features are written at pd_writer_close(). In pipe mode those set before
 * pd_writer_begin() go out as HEADER_FEATURE / HEADER_TRACING_DATA records at the start and those
 * set later as HEADER_FEATURE records at the point of the call. EVENT_DESC, GROUP_DESC and
 * COMPRESSED are made by the writer itself from what it was told.
 */
int pd_writer_set_feature(struct pd_writer *w, unsigned bit, const void *payload, size_t len);

/**
 * pd_writer_begin - write the header (data size 0 until close) and the attrs.
 *
 * From here on a file cut short is still readable up to its last complete record.
 */
int pd_writer_begin(struct pd_writer *w);

/**
 * pd_writer_write - append whole records (len bytes, each a multiple of 8 long) to the data.
 *
 * Return: 0, or a negative errno (-ENOSPC, -EIO ...) after which the file is unusable.
 */
int pd_writer_write(struct pd_writer *w, const void *records, size_t len);
/* Push buffered and compressed bytes to the file. */
int pd_writer_flush(struct pd_writer *w);
/* Bytes of records given to pd_writer_write(), and bytes written to the file's data section. */
u64 pd_writer_records_bytes(const struct pd_writer *w);
u64 pd_writer_data_bytes(const struct pd_writer *w);

/**
 * pd_writer_close - flush, write the features and the final header, close and free.
 *
 * On failure the file the writer created at path is removed (no half-written file is left); an
 * earlier file moved to path.old stays there for the caller to put back.
 *
 * Return: 0, or the first error that any write met.
 */
int pd_writer_close(struct pd_writer *w);
/**
 * pd_writer_abort - give up: remove the new file, put path.old back if it was moved, free.
 */
void pd_writer_abort(struct pd_writer *w);

/* ---------------------------------------------------------------------------------------- */
/* Reader. */

struct pd_reader;
struct pd_hold;

struct pd_event {
	const struct pd_record_header *header; /* the whole record: header->size bytes */
	u64 offset;      /* file offset of the record, or of the COMPRESSED record carrying it */
	bool compressed; /* it came out of a COMPRESSED record */
};

enum pd_reader_flags {
	/*
	 * Parse the formats of HEADER_TRACING_DATA in a child process first (its output to
	 * /dev/null), and refuse the tracing data if the child dies: libtraceevent crashes on
	 * some malformed formats that the reader's own checks do not catch, and with this flag a
	 * file cannot kill the caller through it. It costs a fork per tracing data; the child is
	 * reaped before the call returns (a caller that ignores SIGCHLD makes the check a no-op).
	 * Without it, libtraceevent parses the formats in the caller's process, which suits a
	 * file the caller wrote itself.
	 */
	PD_READER_TRACING_IN_CHILD = 1 << 0,
};

/**
 * pd_reader_open - open a perf.data file ("-" reads a pipe-mode stream from stdin).
 * @flags: enum pd_reader_flags: PD_READER_TRACING_IN_CHILD for a file that may be hostile
 *
 * Reads the header, attrs and features (file mode) and checks every offset and size against the
 * file. A header whose data size is 0 (the writer never finished) is read up to the last
 * complete record, and pd_reader_recovered() says so.
 *
 * With PD_READER_TRACING_IN_CHILD it may fork once, for HEADER_TRACING_DATA, and
 * pd_reader_next() may fork the same way at a HEADER_TRACING_DATA record among the records
 * (pipe mode puts it there).
 *
 * Return: 0, or a negative errno with the reason in pd_reader_errmsg(*rp) when *rp is not NULL.
 */
int pd_reader_open(struct pd_reader **rp, const char *path, unsigned flags);
int pd_reader_open_fd(struct pd_reader **rp, int fd, unsigned flags);
void pd_reader_close(struct pd_reader *r);
/* One line on the last error, naming the byte offset and the record. */
const char *pd_reader_errmsg(const struct pd_reader *r);

bool pd_reader_is_pipe(const struct pd_reader *r);
/* The file header (pipe mode: a made-up one with only magic and size set). */
const struct pd_file_header *pd_reader_header(const struct pd_reader *r);
u64 pd_reader_file_size(const struct pd_reader *r);

u32 pd_reader_nr_attrs(const struct pd_reader *r);
const struct perf_event_attr *pd_reader_attr(const struct pd_reader *r, u32 idx);
/* The event's name from EVENT_DESC, EVENT_UPDATE or the tracepoint format; NULL if none. */
const char *pd_reader_attr_name(const struct pd_reader *r, u32 idx);
const u64 *pd_reader_attr_ids(const struct pd_reader *r, u32 idx, u32 *nr);
/* The attr index a sample id belongs to, as perf decides it; -ENOENT if none. */
int pd_reader_attr_by_id(const struct pd_reader *r, u64 id);

bool pd_reader_has_feature(const struct pd_reader *r, unsigned bit);
/* The feature's payload as stored, or NULL. */
const void *pd_reader_feature(const struct pd_reader *r, unsigned bit, size_t *len);
/* The parsed tracing data, or NULL when the file has none. */
struct tep_handle *pd_reader_tep(struct pd_reader *r);

/**
 * pd_reader_next - the next record in file order, COMPRESSED ones decompressed in place.
 *
 * A COMPRESSED record is returned itself (perf counts it) and the records decompressed from it
 * follow, with compressed set. In pipe mode the header records (HEADER_ATTR, HEADER_FEATURE,
 * HEADER_TRACING_DATA ...) are applied and also returned; EVENT_UPDATE names are applied in both
 * modes. Records are returned 8-aligned. The record is valid until the next call.
 *
 * Return: 1 with *ev set, 0 at the end, or a negative errno (see pd_reader_errmsg()).
 */
int pd_reader_next(struct pd_reader *r, struct pd_event *ev);
/* Go back to the first record (file mode only). */
int pd_reader_rewind(struct pd_reader *r);

/**
 * pd_reader_parse_sample - decode a SAMPLE record, or the sample_id trailer of another kernel
 * record, using the attr its id names.
 * @attr_idx: set to that attr's index (may be NULL)
 *
 * Return: 0, or -EINVAL when the record is shorter than its attr says (errmsg names it), or
 * -ENOENT when its id belongs to no event.
 */
int pd_reader_parse_sample(struct pd_reader *r, const struct pd_record_header *h,
			   struct pd_sample *s, int *attr_idx);

/**
 * pd_reader_hold - keep the bytes [p, p + len) of the record pd_reader_next() handed out last
 * valid after the next calls, until pd_reader_release(): for callers that keep records waiting
 * (a queue in time order) without copying them. The reader reads on into other buffers meanwhile.
 *
 * Return: a handle for pd_reader_release(), or NULL when those bytes cannot be held (they are
 * not in the read buffer: decompressed or realigned records) and must be copied to be kept.
 */
struct pd_hold *pd_reader_hold(struct pd_reader *r, const void *p, size_t len);
/**
 * pd_reader_release - drop a hold of pd_reader_hold(); the buffer is reused once no hold is left.
 * Holds not released are freed with the reader, after which they must not be used.
 */
void pd_reader_release(struct pd_reader *r, struct pd_hold *h);

/* The file was not finished by its writer (data size 0, or cut short): read what was there. */
bool pd_reader_recovered(const struct pd_reader *r);
/* Bytes of data read so far, and where the last complete record ended. */
u64 pd_reader_data_read(const struct pd_reader *r);

/* Human names of record types, as `perf report --stats` prints them ("SAMPLE"); NULL if none. */
const char *pd_record_type_name(u32 type);
/* perf's names of features, as `perf report --header-only` lists the missing ones ("HOSTNAME"). */
const char *pd_feature_name(unsigned bit);

#endif
