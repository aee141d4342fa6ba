// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data writer, file mode and pipe mode.
 *
 * File mode lays the file out as perf does: the 104-byte header, the id arrays, the attrs, the
 * data, then the feature table exactly at data.offset + data.size followed by the payloads.
 * pd_writer_begin() writes a complete header whose attrs are final and whose data size is 0, so
 * that a recorder killed half-way leaves a file the reader can recover; pd_writer_close() writes
 * the features and rewrites the header last.
 *
 * Pipe mode writes what `perf record -o -` writes: the 16-byte header, one HEADER_ATTR per
 * event, then the features perf can take as HEADER_FEATURE records and the end-of-features
 * marker, then HEADER_TRACING_DATA (a 16-byte record followed by the tracing blob, which the
 * record's size does not count), then the data. The tracing data goes out only when the
 * kernel's tracepoints need it; otherwise prec's own events take their stream form
 * (format/prec-event.c).
 *
 * With compression, the records given to pd_writer_write() go into one zstd stream, flushed in
 * chunks no larger than mmap_len - 64 KiB so that what one chunk decompresses to, plus an event
 * carried over from the previous one, fits perf's per-record buffer of comp_mmap_len bytes. A
 * chunk's compressed bytes are cut into PERF_RECORD_COMPRESSED records of at most 65535 bytes;
 * like perf's, their sizes are not padded to 8, since bytes added to a zstd stream are not
 * padding.
 *
 * The data section of a file goes out with O_DIRECT where the file system takes it. Copying the
 * records into the page cache is most of what writing costs a recorder: on the development VM
 * 1 to 2 ms of CPU per MB (pages the guest touches for the first time are expensive), against
 * 0.05 to 0.2 ms with O_DIRECT, which also spares the kernel's writeback threads; a profile is
 * written once and read later. O_DIRECT wants aligned offsets, lengths and memory, so the data
 * is staged in an aligned buffer that always starts at an aligned file offset (its first bytes
 * are those of the header when the data does not start on a boundary): whole blocks go out
 * with O_DIRECT, and a flush writes the partial block that ends it through the page cache, so
 * that a recorder killed after a flush leaves all it flushed; that block, once complete, goes
 * through the page cache again (a direct write over a dirty cached page would wait for its
 * writeback). The header and the features go through the page cache. A file system that
 * refuses O_DIRECT gets plain writes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/internal.h"

/* Output is pushed to the file in chunks of this size. */
#define WBUF_SIZE (512 * 1024)
#ifndef STAGE_SIZE
/*
 * The O_DIRECT stage: the data goes out in writes of this size. What a direct write costs the
 * recorder is mostly per request (block allocation, the journal, the device's notification),
 * so fewer, larger ones.
 */
#define STAGE_SIZE (2 * 1024 * 1024)
#endif
/* Without O_DIRECT, records at least this long go to the file without a copy into the buffer. */
#define WRITE_THROUGH_MIN (64 * 1024)
/* O_DIRECT alignment when the file system does not say (statx STATX_DIOALIGN). */
#define DIO_ALIGN_DEFAULT 4096
#define DIO_ALIGN_MAX (1024 * 1024)
/* perf's default comp_mmap_len: 128 data pages and the control page. */
#define DEFAULT_MMAP_LEN ((128 + 1) * 4096)
/* Room left in perf's decompression buffer for an event carried over from the last record. */
#define COMP_CARRY (64 * 1024)
/* Payload bytes in one COMPRESSED record: the record size is a u16. */
#define COMP_PAYLOAD_MAX (PD_RECORD_MAX - sizeof(struct pd_record_header))
/* perf's marker for the end of the HEADER_FEATURE records (HEADER_LAST_FEATURE). */
#define PIPE_FEAT_END PD_FEAT_LAST_KNOWN

struct wattr {
	struct perf_event_attr attr;
	char *name;
	u64 *ids;
	u32 nr_ids;
};

struct wgroup {
	char *name;
	u32 leader;
	u32 nr_members;
};

struct pd_writer {
	int fd;
	bool close_fd; /* false for stdout */
	bool pipe;
	bool begun;
	struct pd_outfile file; /* its path is NULL when opened on a descriptor */

	struct wattr *attrs;
	u32 nr_attrs;
	struct wgroup *groups;
	u32 nr_groups;

	struct pd_buf feat[PD_FEAT_BITS];
	u64 feat_set[PD_FEAT_BITS / 64];

	bool compress;
	int level;
	u32 mmap_len;
	size_t chunk_max;
	struct pd_zstd *z;
	struct pd_buf zin;  /* records waiting to be compressed */
	struct pd_buf zout; /* compressed bytes of one chunk */
	u64 zbytes_in, zbytes_out;

	struct pd_buf out; /* bytes waiting to be written */
	u64 pos;           /* file offset of out's (or stage's) first byte (file mode) */
	/* the data section with O_DIRECT (file mode): see the top of this file */
	bool staged;       /* data goes through stage, not out */
	bool direct;       /* whole blocks of stage are written with O_DIRECT */
	bool fd_direct;    /* O_DIRECT is set on fd now */
	u32 dio_align;     /* offsets, lengths and addresses of direct writes: multiples of this */
	u8 *stage;         /* STAGE_SIZE bytes, aligned; starts at the aligned file offset pos */
	size_t stage_len;
	bool cached_block; /* the block at cached_at went to the page cache: write it there again */
	u64 cached_at;
	u64 data_offset;
	u64 data_size;    /* bytes of the data section, written or in out */
	u64 records_bytes;
	int err; /* sticky: the first write error */
};

static int emit_pipe_feature(struct pd_writer *w, unsigned bit, const void *payload, size_t len);

static bool feat_isset(const struct pd_writer *w, unsigned bit)
{
	return w->feat_set[bit / 64] & (1ULL << (bit % 64));
}

static void feat_mark(u64 *bits, unsigned bit)
{
	bits[bit / 64] |= 1ULL << (bit % 64);
}

static int set_err(struct pd_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

/* ---------------------------------------------------------------------------------------- */
/* Output. */

static int wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	for (;;) {
		int r = poll(&p, 1, -1);

		if (r >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* Write all of p: loop on short writes, EINTR and EAGAIN. Errors are sticky. */
static int write_all(struct pd_writer *w, const void *p, size_t n, u64 off)
{
	const u8 *b = p;

	if (w->err)
		return w->err;
	while (n) {
		ssize_t r = w->pipe ? write(w->fd, b, n) : pwrite(w->fd, b, n, (off_t)off);

		if (r < 0) {
			int err = -errno;

			if (err == -EINTR)
				continue;
			if (err == -EAGAIN) {
				err = wait_writable(w->fd);
				if (!err)
					continue;
			}
			pd_log(1, "write failed: %s", strerror(-err));
			return set_err(w, err);
		}
		if (r == 0)
			return set_err(w, -EIO);
		b += r;
		n -= (size_t)r;
		off += (u64)r;
	}
	return 0;
}

/* Set or clear O_DIRECT on the descriptor. */
static int set_direct(struct pd_writer *w, bool on)
{
	int fl;

	if (w->fd_direct == on)
		return 0;
	fl = fcntl(w->fd, F_GETFL);
	if (fl < 0 || fcntl(w->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
		return -errno;
	w->fd_direct = on;
	return 0;
}

/* The file system will not take O_DIRECT after all: plain writes from here on. */
static int direct_off(struct pd_writer *w, int why)
{
	pd_log(1, "O_DIRECT refused (%s): writing through the page cache", strerror(-why));
	w->direct = false;
	return set_direct(w, false);
}

/* Write n bytes of stage from skip on (both aligned) at pos + skip with O_DIRECT. */
static int write_direct(struct pd_writer *w, size_t skip, size_t n)
{
	const u8 *p = w->stage + skip;
	u64 off = w->pos + skip;
	size_t done = 0;
	int err = set_direct(w, true);

	while (!err && done < n) {
		ssize_t r = pwrite(w->fd, p + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EINVAL) {
			err = -errno;
			pd_log(1, "write failed: %s", strerror(-err));
			return set_err(w, err);
		}
		if (r == 0)
			return set_err(w, -EIO);
		if (r > 0)
			done += (size_t)r;
		if (r < 0 || done % w->dio_align)
			break; /* EINVAL, or a short write that leaves us unaligned */
	}
	if (err || done < n) {
		err = direct_off(w, err ? err : -EINVAL);
		if (err)
			return set_err(w, err);
		return write_all(w, p + done, n - done, off + done);
	}
	return 0;
}

/*
 * Write out the whole blocks of stage; with all, also the partial block at its end, through the
 * page cache, keeping it in stage to be written again whole. That block is then dirty in the
 * page cache, and a direct write over it would have to wait for its writeback first (with a
 * flush every second, that cost the recorder more than writing all its data): it is written
 * again through the page cache, and the direct writes start at the block after it.
 */
static int flush_stage(struct pd_writer *w, bool all)
{
	size_t n = w->direct ? w->stage_len & ~(size_t)(w->dio_align - 1) : w->stage_len;
	size_t cached = 0;
	int err = 0;

	if (n && w->direct && w->cached_block && w->cached_at == w->pos) {
		/* The first block went through the page cache last time: the same way again. */
		cached = w->dio_align;
		err = set_direct(w, false);
		if (err)
			return set_err(w, err);
		err = write_all(w, w->stage, cached, w->pos);
		if (err)
			return err;
		w->cached_block = false;
	}
	if (n > cached) {
		err = w->direct ? write_direct(w, cached, n - cached) :
				  write_all(w, w->stage, n, w->pos);
		if (err)
			return err;
	}
	if (n) {
		w->pos += n;
		w->stage_len -= n;
		memmove(w->stage, w->stage + n, w->stage_len);
	}
	if (all && w->stage_len) {
		err = set_direct(w, false);
		if (err)
			return set_err(w, err);
		err = write_all(w, w->stage, w->stage_len, w->pos);
		if (!err && !w->direct) {
			w->pos += w->stage_len;
			w->stage_len = 0;
		} else if (!err) {
			w->cached_block = true;
			w->cached_at = w->pos;
		}
	}
	return err;
}

static int flush_out(struct pd_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->staged)
		return flush_stage(w, true);
	if (!w->out.len)
		return 0;
	err = write_all(w, w->out.data, w->out.len, w->pos);
	if (err)
		return err;
	w->pos += w->out.len;
	pd_buf_reset(&w->out);
	return 0;
}

/* Queue n bytes of the data section in stage, writing the whole blocks when it is full. */
static int emit_staged(struct pd_writer *w, const u8 *p, size_t n)
{
	while (n) {
		size_t take = STAGE_SIZE - w->stage_len;
		int err;

		if (take > n)
			take = n;
		memcpy(w->stage + w->stage_len, p, take);
		w->stage_len += take;
		p += take;
		n -= take;
		if (w->stage_len == STAGE_SIZE) {
			err = flush_stage(w, false);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Queue n bytes for the file; data says whether they belong to the data section. */
static int emit(struct pd_writer *w, const void *p, size_t n, bool data)
{
	int err;

	if (w->err)
		return w->err;
	if (data)
		w->data_size += n;
	if (w->staged)
		return emit_staged(w, p, n);
	/* Large writes go straight out instead of through the buffer: one copy less. */
	if (n >= WRITE_THROUGH_MIN) {
		err = flush_out(w);
		if (!err)
			err = write_all(w, p, n, w->pos);
		if (!err)
			w->pos += n;
		return err;
	}
	if (w->out.len && w->out.len + n > WBUF_SIZE) {
		err = flush_out(w);
		if (err)
			return err;
	}
	if (n && !pd_buf_append(&w->out, p, n))
		return set_err(w, w->out.err);
	return 0;
}

/*
 * Stage the data section for O_DIRECT when the file is a regular file whose file system takes
 * it (statx STATX_DIOALIGN: 0 means it does not), starting at the aligned offset at or below
 * data_offset with the header bytes that precede the data there (head: the first data_offset
 * bytes of the file). Any failure leaves the plain path in place.
 */
static void direct_setup(struct pd_writer *w, const u8 *head)
{
	u32 align = DIO_ALIGN_DEFAULT;
	struct stat st;
	u64 start;
	void *buf;

	if (w->pipe || fstat(w->fd, &st) || !S_ISREG(st.st_mode))
		return;
#ifdef STATX_DIOALIGN
	{
		struct statx stx;

		if (!statx(w->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
		    (stx.stx_mask & STATX_DIOALIGN)) {
			if (!stx.stx_dio_offset_align || !stx.stx_dio_mem_align)
				return;
			if (stx.stx_dio_offset_align > align)
				align = stx.stx_dio_offset_align;
			if (stx.stx_dio_mem_align > align)
				align = stx.stx_dio_mem_align;
		}
	}
#endif
	if (align > DIO_ALIGN_MAX || (align & (align - 1)) || STAGE_SIZE % align)
		return;
	if (posix_memalign(&buf, align, STAGE_SIZE))
		return;
	if (set_direct(w, true)) {
		free(buf);
		return;
	}
	start = w->data_offset & ~(u64)(align - 1);
	w->stage = buf;
	w->stage_len = (size_t)(w->data_offset - start);
	memcpy(w->stage, head + start, w->stage_len);
	w->pos = start;
	w->dio_align = align;
	w->staged = w->direct = true;
	/* The header went through the page cache, the block it shares with the data too. */
	w->cached_block = w->stage_len > 0;
	w->cached_at = start;
}

/* ---------------------------------------------------------------------------------------- */
/* Compression. */

/* Compress the pending chunk and emit it as COMPRESSED records. */
static int zflush(struct pd_writer *w)
{
	size_t off;
	int err;

	if (!w->compress || !w->zin.len || w->err)
		return w->err;
	pd_buf_reset(&w->zout);
	err = pd_zstd_compress(w->z, w->zin.data, w->zin.len, &w->zout);
	if (err)
		return set_err(w, err);
	w->zbytes_in += w->zin.len;
	w->zbytes_out += w->zout.len;
	pd_buf_reset(&w->zin);
	for (off = 0; off < w->zout.len;) {
		size_t n = w->zout.len - off;
		struct pd_record_header h = { .type = PD_RECORD_COMPRESSED };

		if (n > COMP_PAYLOAD_MAX)
			n = COMP_PAYLOAD_MAX;
		h.size = (u16)(sizeof(h) + n);
		err = emit(w, &h, sizeof(h), true);
		if (!err)
			err = emit(w, w->zout.data + off, n, true);
		if (err)
			return err;
		off += n;
	}
	return 0;
}

/* header.size of the record at p, which need not be aligned. */
static u16 rec_size(const u8 *p)
{
	struct pd_record_header h;

	memcpy(&h, p, sizeof(h));
	return h.size;
}

/* Add whole records to the pending chunk, compressing whenever the next would not fit. */
static int zfeed(struct pd_writer *w, const u8 *p, size_t len)
{
	while (len) {
		size_t room = w->chunk_max - w->zin.len;
		size_t take = 0;
		int err;

		/* The longest run of whole records that fits. */
		while (take < len) {
			u16 size = rec_size(p + take);

			if (size > room - take)
				break;
			take += size;
		}
		if (!take) {
			/* A record is below 64 KiB and a chunk at least that: flush and retry. */
			if (!w->zin.len)
				return set_err(w, -E2BIG);
			err = zflush(w);
			if (err)
				return err;
			continue;
		}
		if (!pd_buf_append(&w->zin, p, take))
			return set_err(w, w->zin.err);
		p += take;
		len -= take;
		if (w->zin.len == w->chunk_max) {
			err = zflush(w);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening. */

static struct pd_writer *writer_new(unsigned flags)
{
	struct pd_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = -1;
	w->close_fd = true;
	w->pipe = flags & PD_WRITER_PIPE;
	return w;
}

static void writer_free(struct pd_writer *w)
{
	u32 i;

	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (i = 0; i < w->nr_groups; i++)
		free(w->groups[i].name);
	free(w->groups);
	for (i = 0; i < PD_FEAT_BITS; i++)
		pd_buf_release(&w->feat[i]);
	pd_zstd_free(w->z);
	pd_buf_release(&w->zin);
	pd_buf_release(&w->zout);
	pd_buf_release(&w->out);
	free(w->stage);
	pd_outfile_release(&w->file);
	free(w);
}

static int open_path(struct pd_writer *w, const char *path)
{
	int fd = pd_outfile_open(&w->file, path, 0600, NULL);

	if (fd < 0)
		return fd;
	w->fd = fd;
	return 0;
}

static int check_fd(struct pd_writer *w)
{
	/* File mode goes back to rewrite the header: it needs a file it can seek in. */
	if (!w->pipe && lseek(w->fd, 0, SEEK_CUR) < 0)
		return -ESPIPE;
	return 0;
}

/**
 * pd_writer_open - create path for writing ("-" is stdout, always in pipe mode).
 *
 * An existing non-empty regular file is renamed to path.old first, as perf does; the new file is
 * created with mode 0600. A symlink at path is followed only when it is the caller's or belongs
 * to the owner of the file it points to (-EPERM otherwise; -ELOOP when it dangles).
 *
 * Return: 0, or a negative errno (-ESPIPE: file mode on something that cannot seek).
 */
int pd_writer_open(struct pd_writer **wp, const char *path, unsigned flags)
{
	struct pd_writer *w;
	int err;

	*wp = NULL;
	if (!strcmp(path, "-"))
		flags |= PD_WRITER_PIPE;
	w = writer_new(flags);
	if (!w)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		w->fd = STDOUT_FILENO;
		w->close_fd = false;
		err = 0;
	} else {
		err = open_path(w, path);
	}
	if (!err)
		err = check_fd(w);
	if (err) {
		pd_writer_abort(w);
		return err;
	}
	*wp = w;
	return 0;
}

/**
 * pd_writer_open_fd - the same on an open descriptor, which the writer then owns.
 *
 * In file mode the descriptor must be seekable; the file is written from offset 0.
 *
 * Return: 0, or a negative errno.
 */
int pd_writer_open_fd(struct pd_writer **wp, int fd, unsigned flags)
{
	struct pd_writer *w;
	int err;

	*wp = NULL;
	w = writer_new(flags);
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	err = check_fd(w);
	if (err) {
		w->close_fd = false; /* the caller still has it on failure */
		pd_writer_abort(w);
		return err;
	}
	*wp = w;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Declarations. */

/**
 * pd_writer_add_attr - declare an event before pd_writer_begin().
 *
 * Return: the attr's index, -EBUSY after pd_writer_begin(), or -ENOMEM.
 */
int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr, const char *name,
		       const u64 *ids, u32 nr_ids)
{
	struct wattr *a;

	if (w->begun)
		return -EBUSY;
	if (nr_ids && !ids)
		return -EINVAL;
	a = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	w->attrs = a;
	a += w->nr_attrs;
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, sizeof(a->attr) < PD_ATTR_SIZE ? sizeof(a->attr) : PD_ATTR_SIZE);
	a->attr.size = PD_ATTR_SIZE;
	/* An empty name would replace perf's own one with nothing: it counts as none. */
	if (name && *name && !(a->name = strdup(name)))
		return -ENOMEM;
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(u64));
		if (!a->ids) {
			free(a->name);
			return -ENOMEM;
		}
		memcpy(a->ids, ids, nr_ids * sizeof(u64));
	}
	a->nr_ids = nr_ids;
	return (int)w->nr_attrs++;
}

/**
 * pd_writer_add_group - declare a group for GROUP_DESC: nr_members attrs from index leader.
 * @name: the group's name, or NULL for an anonymous group
 *
 * Return: 0, -EINVAL for an empty group, -EBUSY after pd_writer_begin(), or -ENOMEM.
 */
int pd_writer_add_group(struct pd_writer *w, const char *name, u32 leader, u32 nr_members)
{
	struct wgroup *g;

	if (w->begun)
		return -EBUSY;
	if (!nr_members)
		return -EINVAL;
	g = realloc(w->groups, (w->nr_groups + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	w->groups = g;
	g += w->nr_groups;
	g->name = strdup(name ? name : "{anon_group}");
	if (!g->name)
		return -ENOMEM;
	g->leader = leader;
	g->nr_members = nr_members;
	w->nr_groups++;
	return 0;
}

/**
 * pd_writer_set_compression - compress the data section with zstd at level.
 * @mmap_len: perf's comp_mmap_len, the decompression buffer per record; 0 for perf's default
 *	      (528384). It must leave room for 64 KiB of carried-over event: at least 128 KiB.
 *
 * Return: 0, -EINVAL for a level outside 1..22 or a small mmap_len, -EBUSY after
 * pd_writer_begin(), or -EOPNOTSUPP when prec was built without zstd.
 */
int pd_writer_set_compression(struct pd_writer *w, int level, u32 mmap_len)
{
	struct pd_zstd *z;
	int err;

	if (w->begun)
		return -EBUSY;
	if (!mmap_len)
		mmap_len = DEFAULT_MMAP_LEN;
	if (level < 1 || level > 22 || mmap_len < 2 * COMP_CARRY)
		return -EINVAL;
	err = pd_zstd_compressor_new(&z, level);
	if (err)
		return err;
	pd_zstd_free(w->z);
	w->z = z;
	w->compress = true;
	w->level = level;
	w->mmap_len = mmap_len;
	w->chunk_max = mmap_len - COMP_CARRY;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Features the writer makes itself. */

static bool all_named(const struct pd_writer *w)
{
	u32 i;

	for (i = 0; i < w->nr_attrs; i++)
		if (!w->attrs[i].name)
			return false;
	return w->nr_attrs > 0;
}

/*
 * EVENT_DESC: perf names events by their index in it, so it is written only when every event
 * has a name (a made-up name would be worse than the one perf derives from the attr).
 */
static void make_event_desc(const struct pd_writer *w, struct pd_buf *b)
{
	u32 i;

	pd_buf_u32(b, w->nr_attrs);
	pd_buf_u32(b, PD_ATTR_SIZE);
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		pd_buf_append(b, &a->attr, PD_ATTR_SIZE);
		pd_buf_u32(b, a->nr_ids);
		pd_buf_string(b, a->name);
		if (a->nr_ids)
			pd_buf_append(b, a->ids, a->nr_ids * sizeof(u64));
	}
}

static void make_group_desc(const struct pd_writer *w, struct pd_buf *b)
{
	u32 i;

	pd_buf_u32(b, w->nr_groups);
	for (i = 0; i < w->nr_groups; i++) {
		pd_buf_string(b, w->groups[i].name);
		pd_buf_u32(b, w->groups[i].leader);
		pd_buf_u32(b, w->groups[i].nr_members);
	}
}

static void make_compressed(const struct pd_writer *w, struct pd_buf *b)
{
	struct pd_compressed_feature f = {
		.version = 0,
		.type = PD_COMP_ZSTD,
		.level = (u32)w->level,
		.mmap_len = w->mmap_len,
	};

	/* perf's ratio: bytes in over bytes out, rounded. */
	if (w->zbytes_out)
		f.ratio = (u32)((double)w->zbytes_in / (double)w->zbytes_out + 0.5);
	pd_buf_append(b, &f, sizeof(f));
}

/*
 * The payload of bit as it will be written: the caller's, or one the writer makes (into
 * scratch). NULL when the feature is not in the file.
 */
static const struct pd_buf *feature_payload(const struct pd_writer *w, unsigned bit,
					    struct pd_buf *scratch)
{
	if (feat_isset(w, bit))
		return &w->feat[bit];
	pd_buf_reset(scratch);
	switch (bit) {
	case PD_FEAT_EVENT_DESC:
		if (!all_named(w))
			return NULL;
		make_event_desc(w, scratch);
		return scratch;
	case PD_FEAT_GROUP_DESC:
		if (!w->nr_groups)
			return NULL;
		make_group_desc(w, scratch);
		return scratch;
	case PD_FEAT_COMPRESSED:
		if (!w->compress)
			return NULL;
		make_compressed(w, scratch);
		return scratch;
	default:
		return NULL;
	}
}

/**
 * pd_writer_set_feature - set a feature's payload (copied), replacing an earlier one.
 *
 * A payload set for EVENT_DESC, GROUP_DESC or COMPRESSED replaces the one the writer makes.
 *
 * Return: 0, -EINVAL for bit 0 or bits past 255, -ENOMEM, or a write error (pipe mode).
 */
int pd_writer_set_feature(struct pd_writer *w, unsigned bit, const void *payload, size_t len)
{
	struct pd_buf *b;

	if (bit == PD_FEAT_RESERVED || bit >= PD_FEAT_BITS || (len && !payload))
		return -EINVAL;
	b = &w->feat[bit];
	pd_buf_reset(b);
	if (len && !pd_buf_append(b, payload, len))
		return b->err;
	feat_mark(w->feat_set, bit);
	if (w->pipe && w->begun)
		return emit_pipe_feature(w, bit, payload, len);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Beginning. */

static int check_layout(struct pd_writer *w)
{
	u32 i, end = 0;

	/* GROUP_DESC must list groups by ascending leader, members following their leader. */
	for (i = 0; i < w->nr_groups; i++) {
		const struct wgroup *g = &w->groups[i];

		if (g->leader < end || g->nr_members > w->nr_attrs ||
		    g->leader > w->nr_attrs - g->nr_members)
			return -EINVAL;
		end = g->leader + g->nr_members;
	}
	for (i = 1; i < w->nr_attrs; i++) {
		const struct perf_event_attr *a = &w->attrs[i].attr, *a0 = &w->attrs[0].attr;

		if (!(a->sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    !(a0->sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    a->sample_id_all != a0->sample_id_all) {
			pd_log(0, "events differ in sample id layout: perf will not read this file");
			break;
		}
	}
	return 0;
}

static int begin_file(struct pd_writer *w)
{
	struct pd_file_header fh = { .magic = PD_MAGIC, .size = sizeof(fh) };
	struct pd_buf b = PD_BUF_INIT;
	u64 ids_off = sizeof(fh), attrs_off;
	u32 i;
	int err;

	attrs_off = ids_off;
	for (i = 0; i < w->nr_attrs; i++)
		attrs_off += (u64)w->attrs[i].nr_ids * sizeof(u64);
	fh.attr_size = PD_FILE_ATTR_SIZE;
	fh.attrs.offset = attrs_off;
	fh.attrs.size = (u64)w->nr_attrs * PD_FILE_ATTR_SIZE;
	fh.data.offset = attrs_off + fh.attrs.size;
	fh.data.size = 0; /* until pd_writer_close(): the reader then recovers what is there */

	pd_buf_append(&b, &fh, sizeof(fh));
	for (i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].nr_ids)
			pd_buf_append(&b, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(u64));
	for (i = 0; i < w->nr_attrs; i++) {
		struct pd_file_section ids = { ids_off, (u64)w->attrs[i].nr_ids * sizeof(u64) };

		pd_buf_append(&b, &w->attrs[i].attr, PD_ATTR_SIZE);
		pd_buf_append(&b, &ids, sizeof(ids));
		ids_off += ids.size;
	}
	if (b.err) {
		err = b.err;
		pd_buf_release(&b);
		return set_err(w, err);
	}
	err = write_all(w, b.data, b.len, 0);
	if (!err) {
		w->data_offset = fh.data.offset;
		w->pos = w->data_offset;
		direct_setup(w, b.data);
	}
	pd_buf_release(&b);
	return err;
}

/* One pipe-mode header record built in b (header included): padded to 8, size checked. */
static int emit_header_record(struct pd_writer *w, struct pd_buf *b)
{
	struct pd_record_header *h;

	pd_buf_pad(b, 8);
	if (b->err)
		return set_err(w, b->err);
	if (b->len > PD_RECORD_MAX)
		return set_err(w, -E2BIG);
	h = (struct pd_record_header *)b->data;
	h->size = (u16)b->len;
	return emit(w, b->data, b->len, false);
}

static void start_record(struct pd_buf *b, u32 type)
{
	struct pd_record_header h = { .type = type };

	pd_buf_reset(b);
	pd_buf_append(b, &h, sizeof(h));
}

/* HEADER_TRACING_DATA: a 16-byte record, then the blob and its padding outside the record. */
static int emit_pipe_tracing(struct pd_writer *w, const void *blob, size_t len)
{
	size_t aligned = (len + 7) & ~(size_t)7;
	struct {
		struct pd_record_header h;
		u32 size;
		u32 pad;
	} rec = { { PD_RECORD_HEADER_TRACING_DATA, 0, sizeof(rec) }, (u32)aligned, 0 };
	static const u8 zeros[8];
	int err;

	if (aligned > UINT32_MAX)
		return set_err(w, -E2BIG);
	err = emit(w, &rec, sizeof(rec), false);
	if (!err && len)
		err = emit(w, blob, len, false);
	if (!err && aligned > len)
		err = emit(w, zeros, aligned - len, false);
	return err;
}

/* BUILD_ID in pipe mode: each entry of the feature becomes a HEADER_BUILD_ID record. */
static int emit_pipe_build_ids(struct pd_writer *w, const u8 *p, size_t len)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t off = 0;
	int err = 0;

	while (!err && len - off >= sizeof(struct pd_record_header)) {
		struct pd_record_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) + sizeof(struct pd_build_id_body) || h.size > len - off) {
			pd_log(0, "BUILD_ID payload malformed at byte %zu: rest left out", off);
			break;
		}
		start_record(&b, PD_RECORD_HEADER_BUILD_ID);
		((struct pd_record_header *)b.data)->misc = h.misc;
		pd_buf_append(&b, p + off + sizeof(h), h.size - sizeof(h));
		err = emit_header_record(w, &b);
		off += h.size;
	}
	pd_buf_release(&b);
	return err;
}

/*
 * A stream carries tracing data only for the tracepoints of the kernel (format/prec-event.c says
 * why); without them prec's own events go out in their stream form. With them perf's pipe tools
 * fail on the stream as on perf's own, and prec's events stay tracepoints that print by field.
 */
static bool pipe_needs_tracing(const struct pd_writer *w)
{
	for (u32 i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    !pd_prec_event_id(&w->attrs[i].attr))
			return true;
	return false;
}

/*
 * perf takes as HEADER_FEATURE records only the features it can synthesise itself (FEAT_OPR in
 * util/header.c); the others it would ignore or, for bits it does not know, fail on.
 */
static bool pipe_feature_ok(unsigned bit)
{
	switch (bit) {
	case PD_FEAT_HOSTNAME ... PD_FEAT_NUMA_TOPOLOGY:
	case PD_FEAT_PMU_MAPPINGS:
	case PD_FEAT_GROUP_DESC:
	case PD_FEAT_SAMPLE_TIME:
	case PD_FEAT_MEM_TOPOLOGY:
	case PD_FEAT_CLOCKID:
	case PD_FEAT_BPF_PROG_INFO ... PD_FEAT_CLOCK_DATA:
	case PD_FEAT_PMU_CAPS:
		return true;
	default:
		return false;
	}
}

static int emit_pipe_feature(struct pd_writer *w, unsigned bit, const void *payload, size_t len)
{
	struct pd_buf b = PD_BUF_INIT;
	int err;

	/* Records written in between must stay before this one. */
	err = zflush(w);
	if (err)
		return err;
	if (bit == PD_FEAT_TRACING_DATA)
		return pipe_needs_tracing(w) ? emit_pipe_tracing(w, payload, len) : 0;
	if (bit == PD_FEAT_BUILD_ID)
		return emit_pipe_build_ids(w, payload, len);
	if (!pipe_feature_ok(bit)) {
		pd_log(1, "feature %u has no pipe-mode record perf reads: left out", bit);
		return 0;
	}
	start_record(&b, PD_RECORD_HEADER_FEATURE);
	pd_buf_u64(&b, bit);
	if (len)
		pd_buf_append(&b, payload, len);
	err = emit_header_record(w, &b);
	pd_buf_release(&b);
	return err;
}

static int begin_pipe(struct pd_writer *w)
{
	struct pd_pipe_file_header ph = { PD_MAGIC, sizeof(ph) };
	struct pd_buf b = PD_BUF_INIT, scratch = PD_BUF_INIT;
	bool stream_form = !pipe_needs_tracing(w);
	unsigned bit;
	u32 i;
	int err;

	err = emit(w, &ph, sizeof(ph), false);
	for (i = 0; !err && i < w->nr_attrs; i++) {
		struct perf_event_attr attr = w->attrs[i].attr;

		if (stream_form)
			pd_prec_event_stream_attr(&attr);
		start_record(&b, PD_RECORD_HEADER_ATTR);
		pd_buf_append(&b, &attr, PD_ATTR_SIZE);
		if (w->attrs[i].nr_ids)
			pd_buf_append(&b, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(u64));
		err = emit_header_record(w, &b);
	}
	/*
	 * Names as EVENT_UPDATE records, keyed by the event's first id. An event without ids can
	 * only be named this way when it is the only one: perf gives id 0 to the first event.
	 */
	for (i = 0; !err && i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		if (!a->name || (!a->nr_ids && w->nr_attrs > 1))
			continue;
		pd_buf_reset(&b);
		err = pd_encode_event_update_name(&b, a->nr_ids ? a->ids[0] : 0, a->name);
		if (!err)
			err = emit(w, b.data, b.len, false);
	}
	for (bit = 1; !err && bit < PD_FEAT_LAST_KNOWN; bit++) {
		const struct pd_buf *p;

		if (bit == PD_FEAT_TRACING_DATA || bit == PD_FEAT_BUILD_ID)
			continue;
		p = feature_payload(w, bit, &scratch);
		if (p)
			err = p->err ? set_err(w, p->err) : emit_pipe_feature(w, bit, p->data, p->len);
	}
	for (bit = PD_FEAT_LAST_KNOWN; bit < PD_FEAT_BITS; bit++)
		if (feat_isset(w, bit))
			pd_log(1, "feature %u cannot be carried in pipe mode: left out", bit);
	if (!err) {
		/* The end of the features: perf report --header-only stops here. */
		start_record(&b, PD_RECORD_HEADER_FEATURE);
		pd_buf_u64(&b, PIPE_FEAT_END);
		err = emit_header_record(w, &b);
	}
	if (!err && feat_isset(w, PD_FEAT_TRACING_DATA) && pipe_needs_tracing(w))
		err = emit_pipe_tracing(w, w->feat[PD_FEAT_TRACING_DATA].data,
					w->feat[PD_FEAT_TRACING_DATA].len);
	if (!err && feat_isset(w, PD_FEAT_BUILD_ID))
		err = emit_pipe_build_ids(w, w->feat[PD_FEAT_BUILD_ID].data,
					  w->feat[PD_FEAT_BUILD_ID].len);
	pd_buf_release(&b);
	pd_buf_release(&scratch);
	return err ? set_err(w, err) : 0;
}

/**
 * pd_writer_begin - write the header (data size 0 until close) and the attrs.
 *
 * Return: 0, -EINVAL for groups that overlap or run past the events, -EBUSY when called twice,
 * or a write error.
 */
int pd_writer_begin(struct pd_writer *w)
{
	int err;

	if (w->begun)
		return -EBUSY;
	if (w->err)
		return w->err;
	err = check_layout(w);
	if (err)
		return err;
	w->begun = true;
	return w->pipe ? begin_pipe(w) : begin_file(w);
}

/* ---------------------------------------------------------------------------------------- */
/* Data. */

/**
 * pd_writer_write - append whole records (len bytes, each a multiple of 8 long) to the data.
 *
 * Return: 0; -EINVAL before pd_writer_begin() or when len does not hold whole records of valid
 * sizes (nothing is written then); or the first write error (-ENOSPC, -EIO ...), after which the
 * file is unusable.
 */
int pd_writer_write(struct pd_writer *w, const void *records, size_t len)
{
	const u8 *p = records;
	size_t off;

	if (w->err)
		return w->err;
	if (!w->begun)
		return -EINVAL;
	for (off = 0; off < len;) {
		u16 size;

		if (len - off < sizeof(struct pd_record_header))
			return -EINVAL;
		size = rec_size(p + off);
		if (size < sizeof(struct pd_record_header) || size % 8 || size > len - off)
			return -EINVAL;
		off += size;
	}
	w->records_bytes += len;
	if (w->compress)
		return zfeed(w, p, len);
	return emit(w, p, len, true);
}

/**
 * pd_writer_flush - push buffered and compressed bytes to the file.
 *
 * Return: 0 or the first write error.
 */
int pd_writer_flush(struct pd_writer *w)
{
	int err = zflush(w);

	return err ? err : flush_out(w);
}

/**
 * pd_writer_records_bytes - bytes of records given to pd_writer_write().
 */
u64 pd_writer_records_bytes(const struct pd_writer *w)
{
	return w->records_bytes;
}

/**
 * pd_writer_data_bytes - bytes of the data section so far (compressed, when compressing).
 */
u64 pd_writer_data_bytes(const struct pd_writer *w)
{
	return w->data_size;
}

/* ---------------------------------------------------------------------------------------- */
/* Closing. */

/* The feature table at data.offset + data.size, then the payloads, in ascending bit order. */
static int write_features(struct pd_writer *w, u64 *bits)
{
	struct pd_buf table = PD_BUF_INIT, payloads = PD_BUF_INIT, scratch = PD_BUF_INIT;
	u64 table_off = w->data_offset + w->data_size, nr = 0, off;
	unsigned bit;
	int err = 0;

	for (bit = 1; bit < PD_FEAT_BITS; bit++)
		if (feature_payload(w, bit, &scratch))
			nr++;
	off = table_off + nr * sizeof(struct pd_file_section);
	for (bit = 1; bit < PD_FEAT_BITS; bit++) {
		const struct pd_buf *p = feature_payload(w, bit, &scratch);
		struct pd_file_section sec;

		if (!p)
			continue;
		if (p->err) {
			err = p->err;
			break;
		}
		sec.offset = off;
		sec.size = p->len;
		pd_buf_append(&table, &sec, sizeof(sec));
		if (p->len)
			pd_buf_append(&payloads, p->data, p->len);
		off += p->len;
		feat_mark(bits, bit);
	}
	if (!err)
		err = table.err ? table.err : payloads.err;
	if (!err)
		err = write_all(w, table.data, table.len, table_off);
	if (!err)
		err = write_all(w, payloads.data, payloads.len, table_off + table.len);
	pd_buf_release(&table);
	pd_buf_release(&payloads);
	pd_buf_release(&scratch);
	return err ? set_err(w, err) : 0;
}

static int finish_file(struct pd_writer *w)
{
	u64 bits[PD_FEAT_BITS / 64] = { 0 };
	struct pd_file_header fh;
	int err;

	/* perf refuses a data section of size 0: give an empty recording one harmless record. */
	if (!w->data_size) {
		struct pd_record_header h = { PD_RECORD_FINISHED_ROUND, 0, sizeof(h) };

		err = emit(w, &h, sizeof(h), true);
		if (err)
			return err;
	}
	err = flush_out(w);
	/* The rest is not aligned: through the page cache. */
	if (!err && w->fd_direct && (err = set_direct(w, false)))
		set_err(w, err);
	if (!err)
		err = write_features(w, bits);
	if (err)
		return err;
	/* The header last: until here a reader sees data size 0 and recovers. */
	memset(&fh, 0, sizeof(fh));
	fh.magic = PD_MAGIC;
	fh.size = sizeof(fh);
	fh.attr_size = PD_FILE_ATTR_SIZE;
	fh.attrs.offset = w->data_offset - (u64)w->nr_attrs * PD_FILE_ATTR_SIZE;
	fh.attrs.size = (u64)w->nr_attrs * PD_FILE_ATTR_SIZE;
	fh.data.offset = w->data_offset;
	fh.data.size = w->data_size;
	memcpy(fh.features, bits, sizeof(bits));
	return write_all(w, &fh, sizeof(fh), 0);
}

/**
 * pd_writer_close - flush, write the features and the final header, close and free.
 *
 * On failure a file the writer created at the path given to pd_writer_open() is removed: no
 * half-written file is left behind. An earlier file moved to path.old stays there (its caller may
 * put it back; pd_writer_abort() does both).
 *
 * Return: 0, or the first error that any write met.
 */
int pd_writer_close(struct pd_writer *w)
{
	int err;

	if (!w)
		return 0;
	if (!w->begun)
		err = pd_writer_begin(w);
	else
		err = w->err;
	if (!err)
		err = zflush(w);
	if (!err)
		err = w->pipe ? flush_out(w) : finish_file(w);
	if (w->close_fd && w->fd >= 0 && close(w->fd) < 0 && !err)
		err = -errno;
	if (err && !w->pipe)
		pd_outfile_remove(&w->file);
	writer_free(w);
	return err;
}

/**
 * pd_writer_abort - give up: remove the new file, put path.old back if it was moved, free.
 */
void pd_writer_abort(struct pd_writer *w)
{
	if (!w)
		return;
	if (w->close_fd && w->fd >= 0)
		close(w->fd);
	pd_outfile_undo(&w->file);
	writer_free(w);
}
