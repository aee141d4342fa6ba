// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader. File mode maps the whole file and checks the header, the attrs and their
 * id arrays and the feature table against its size before anything is used; records are then
 * read with pread() into a buffer and handed out in file order from there. Pipe mode (a 16-byte
 * header, then records only) reads with read() into the same buffer and applies the header
 * records (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA, ...) as they come, as perf does.
 *
 * COMPRESSED records go through one zstd stream for the whole file, as perf writes them: the
 * decompressed bytes are one continuous stream of records, and an event may straddle two
 * COMPRESSED records, so what is left over after one is carried to the next. Each record's output
 * is bounded by the mmap_len of HEADER_COMPRESSED, the buffer perf 6.1 decompresses into.
 *
 * Nothing from the file is trusted: every size is checked against what is left, and a malformed
 * file gets -EINVAL and one line in errmsg naming the byte offset and the record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "format/internal.h"

/* perf's legacy (v1) magic, "PERFFILE" read as a little-endian u64. */
#define PD_MAGIC_V1 0x454c494646524550ULL

/* What a read of the records asks for at a time. */
#define INPUT_CHUNK (1024 * 1024)
/*
 * The most one COMPRESSED record may decompress to, whatever mmap_len says: pd_zstd_decompress()
 * sets the whole bound aside at once, and a file's mmap_len is a u32. perf's is the ring buffer
 * (528384 bytes by default, a few MiB with a large -m).
 */
#define PD_DECOMP_MAX (64u << 20)
/* The most tracing data a pipe may announce: a stream cannot be checked against a size. */
#define PIPE_BLOB_MAX (256 << 20)

/* ---------------------------------------------------------------------------------------- */
/* Errors */

static __attribute__((format(printf, 3, 4))) int fail(struct pd_reader *r, int err, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static const char *type_name(u32 type)
{
	const char *name = pd_record_type_name(type);

	return name ? name : "unknown";
}

/* "at offset 0x1234, record type 9 (SAMPLE)" for a record about to be handed out. */
static int where(char *buf, size_t len, u64 offset, bool compressed, size_t inner, u32 type)
{
	if (compressed)
		return snprintf(buf, len,
				"at offset %#llx (byte %#zx of the data decompressed from there), "
				"record type %u (%s)",
				(unsigned long long)offset, inner, type, type_name(type));
	return snprintf(buf, len, "at offset %#llx, record type %u (%s)",
			(unsigned long long)offset, type, type_name(type));
}

static __attribute__((format(printf, 7, 8))) int fail_at(struct pd_reader *r, int err, u64 offset,
							 bool compressed, size_t inner, u32 type,
							 const char *fmt, ...)
{
	int n = where(r->errmsg, sizeof(r->errmsg), offset, compressed, inner, type);
	va_list ap;

	if (n < 0 || (size_t)n >= sizeof(r->errmsg) - 3)
		return err;
	memcpy(r->errmsg + n, ": ", 3);
	n += 2;
	va_start(ap, fmt);
	vsnprintf(r->errmsg + n, sizeof(r->errmsg) - n, fmt, ap);
	va_end(ap);
	return err;
}

/**
 * pd_reader_record_error - set the reader's error for record h (sample.c uses it too).
 *
 * The message names h's offset when h is the record pd_reader_next() handed out last.
 *
 * Return: err.
 */
int pd_reader_record_error(struct pd_reader *r, const struct pd_record_header *h, int err,
			   const char *fmt, ...)
{
	int n;
	va_list ap;

	if (h == r->last)
		n = where(r->errmsg, sizeof(r->errmsg), r->last_offset, r->last_compressed,
			  r->last_inner, h->type);
	else
		n = snprintf(r->errmsg, sizeof(r->errmsg), "record type %u (%s)", h->type,
			     type_name(h->type));
	if (n < 0 || (size_t)n >= sizeof(r->errmsg) - 3)
		return err;
	memcpy(r->errmsg + n, ": ", 3);
	n += 2;
	va_start(ap, fmt);
	vsnprintf(r->errmsg + n, sizeof(r->errmsg) - n, fmt, ap);
	va_end(ap);
	return err;
}

/* ---------------------------------------------------------------------------------------- */
/* Small helpers */

/* [off, off + size) lies inside [0, total). */
static bool fits(u64 off, u64 size, u64 total)
{
	return off <= total && size <= total - off;
}

/* ---------------------------------------------------------------------------------------- */
/* Attrs and the id -> attr lookup */

static u32 id_hash(u64 id)
{
	return (u32)((id * 0x9e3779b97f4a7c15ULL) >> 32);
}

static int id_table_grow(struct pd_reader *r)
{
	u32 size = r->id_mask ? (r->id_mask + 1) * 2 : 64;
	u64 *keys = calloc(size, sizeof(*keys));
	u32 *vals = calloc(size, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (u32 i = 0; r->id_mask && i <= r->id_mask; i++) {
		u32 h;

		if (!r->id_keys[i])
			continue;
		for (h = id_hash(r->id_keys[i]) & (size - 1); keys[h]; h = (h + 1) & (size - 1))
			;
		keys[h] = r->id_keys[i];
		vals[h] = r->id_vals[i];
	}
	free(r->id_keys);
	free(r->id_vals);
	r->id_keys = keys;
	r->id_vals = vals;
	r->id_mask = size - 1;
	return 0;
}

/* A later attr with the same id wins, as with perf's hash lists (newest first). */
static int id_insert(struct pd_reader *r, u64 id, u32 idx)
{
	u32 h;

	if (!id)
		return 0; /* id 0 always means the first attr */
	if ((r->id_count + 1) * 2 > r->id_mask + 1) {
		int err = id_table_grow(r);

		if (err)
			return err;
	}
	for (h = id_hash(id) & r->id_mask; r->id_keys[h]; h = (h + 1) & r->id_mask) {
		if (r->id_keys[h] == id) {
			r->id_vals[h] = idx;
			return 0;
		}
	}
	r->id_keys[h] = id;
	r->id_vals[h] = idx;
	r->id_count++;
	return 0;
}

/**
 * pd_reader_id_lookup - the attr that declared sample id id, with no fallback (sample.c uses it
 * for SAMPLE records, as perf's evlist__event2evsel() does).
 *
 * Return: the attr index, or -ENOENT.
 */
int pd_reader_id_lookup(const struct pd_reader *r, u64 id)
{
	u32 h;

	if (!r->id_mask)
		return -ENOENT;
	for (h = id_hash(id) & r->id_mask; r->id_keys[h]; h = (h + 1) & r->id_mask)
		if (r->id_keys[h] == id)
			return (int)r->id_vals[h];
	return -ENOENT;
}

/* Where the id sits in a sample (id_pos) and from the end of other records (is_pos). */
static int calc_id_pos(u64 type)
{
	int idx = 0;

	if (type & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	idx += !!(type & PERF_SAMPLE_IP);
	idx += !!(type & PERF_SAMPLE_TID);
	idx += !!(type & PERF_SAMPLE_TIME);
	idx += !!(type & PERF_SAMPLE_ADDR);
	return idx;
}

static int calc_is_pos(u64 type)
{
	int idx = 1;

	if (type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	idx += !!(type & PERF_SAMPLE_CPU);
	idx += !!(type & PERF_SAMPLE_STREAM_ID);
	return idx;
}

#define FIXED_MASK                                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD)

static void set_name(struct pd_reader_attr *a, const char *name, size_t len,
		     enum pd_name_source src)
{
	char *copy;

	if (src < a->name_src)
		return;
	copy = strndup(name, len);
	if (!copy)
		return; /* a name is a nicety; the caller goes on without it */
	free(a->name);
	a->name = copy;
	a->name_src = src;
}

static void name_tracepoint(struct pd_reader *r, struct pd_reader_attr *a)
{
	struct tep_event *ev;
	char buf[256];
	int n;

	if (!r->tep || a->attr.type != PERF_TYPE_TRACEPOINT || a->name_src > PD_NAME_TRACEPOINT)
		return;
	if (a->attr.config > INT32_MAX)
		return;
	ev = tep_find_event(r->tep, (int)a->attr.config);
	if (!ev || !ev->system || !ev->name)
		return;
	n = snprintf(buf, sizeof(buf), "%s:%s", ev->system, ev->name);
	if (n > 0 && (size_t)n < sizeof(buf))
		set_name(a, buf, (size_t)n, PD_NAME_TRACEPOINT);
}

/*
 * Add an attr read from the file (its first attr_size bytes at p) and its ids. The caller checked
 * that attr_size is between 64 and 128.
 */
static int add_attr(struct pd_reader *r, const void *p, u32 attr_size, const void *ids, u32 nr_ids)
{
	struct pd_reader_attr *a;
	u32 idx = r->nr_attrs;
	int err;

	if (r->nr_attrs == r->cap_attrs) {
		u32 cap = r->cap_attrs ? r->cap_attrs * 2 : 8;
		struct pd_reader_attr *n = realloc(r->attrs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->attrs = n;
		r->cap_attrs = cap;
	}
	a = &r->attrs[idx];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, p, attr_size);
	if (nr_ids) {
		a->ids = malloc((size_t)nr_ids * sizeof(u64));
		if (!a->ids)
			return -ENOMEM;
		memcpy(a->ids, ids, (size_t)nr_ids * sizeof(u64));
		a->nr_ids = nr_ids;
	}
	a->fixed_size = 8 * (u32)__builtin_popcountll(a->attr.sample_type & FIXED_MASK);
	a->trailer_size = 8 * (u32)__builtin_popcountll(a->attr.sample_type & PD_TRAILER_MASK);
	a->nr_uregs = (u32)__builtin_popcountll(a->attr.sample_regs_user);
	a->nr_iregs = (u32)__builtin_popcountll(a->attr.sample_regs_intr);
	a->hw_idx = !!(a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	r->nr_attrs++;

	if (idx == 0) {
		r->id_pos = calc_id_pos(a->attr.sample_type);
		r->is_pos = calc_is_pos(a->attr.sample_type);
	}
	for (u32 i = 0; i < nr_ids; i++) {
		err = id_insert(r, a->ids[i], idx);
		if (err)
			return err;
	}
	name_tracepoint(r, a);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Features */

static const char *feat_label(unsigned bit)
{
	const char *name = pd_feature_name(bit);

	return name ? name : "unknown";
}

/* EVENT_DESC: names by attr index (perf's process_event_desc / evlist__set_event_name). */
static void apply_event_desc(struct pd_reader *r, const u8 *p, size_t len)
{
	u32 nr, attr_sz;
	size_t pos = 8;

	if (len < 8) {
		pd_log(0, "the EVENT_DESC feature is %zu bytes, too short; event names ignored",
		       len);
		return;
	}
	nr = pd_get_u32(p);
	attr_sz = pd_get_u32(p + 4);
	for (u32 i = 0; i < nr; i++) {
		const char *name;
		u32 nr_ids;

		if (attr_sz > len - pos || len - pos - attr_sz < 4) {
			pd_log(0,
			       "the EVENT_DESC feature ends inside event %u; event names ignored",
			       i);
			return;
		}
		pos += attr_sz;
		nr_ids = pd_get_u32(p + pos);
		pos += 4;
		name = pd_feat_next_string(p, len, &pos);
		if (!name || nr_ids > (len - pos) / 8) {
			pd_log(0,
			       "the EVENT_DESC feature ends inside event %u; event names ignored",
			       i);
			return;
		}
		pos += (size_t)nr_ids * 8;
		if (i < r->nr_attrs)
			set_name(&r->attrs[i], name, strlen(name), PD_NAME_EVENT_DESC);
	}
}

static void apply_tracing_data(struct pd_reader *r, const void *p, size_t len)
{
	struct tep_handle *tep = NULL;
	bool has_tp = false;
	int err;

	err = pd_tracing_parse(p, len, r->flags, &tep, NULL);
	for (u32 i = 0; i < r->nr_attrs; i++)
		has_tp |= r->attrs[i].attr.type == PERF_TYPE_TRACEPOINT;
	if (err) {
		/* perf refuses such a file; the records are still readable without formats */
		pd_log(has_tp ? 0 : 1,
		       "the tracing data does not parse (%s); tracepoints have no "
		       "names or fields",
		       strerror(-err));
		return;
	}
	if (r->tep)
		tep_free(r->tep);
	r->tep = tep;
	for (u32 i = 0; i < r->nr_attrs; i++)
		name_tracepoint(r, &r->attrs[i]);
}

static void apply_feature(struct pd_reader *r, unsigned bit)
{
	const u8 *p = r->feat[bit].data;
	size_t len = r->feat[bit].len;

	switch (bit) {
	case PD_FEAT_COMPRESSED:
		/* version, type, level, ratio, mmap_len */
		if (len >= sizeof(struct pd_compressed_feature) &&
		    pd_get_u32(p + 4) == PD_COMP_ZSTD)
			r->comp_mmap_len = pd_get_u32(p + 16);
		else
			r->comp_mmap_len = 0;
		break;
	case PD_FEAT_EVENT_DESC:
		apply_event_desc(r, p, len);
		break;
	case PD_FEAT_TRACING_DATA:
		apply_tracing_data(r, p, len);
		break;
	}
}

static int read_features(struct pd_reader *r)
{
	const struct pd_file_header *h = &r->hdr;
	u64 table, nr = 0;
	u32 i = 0;

	for (int w = 0; w < 4; w++)
		nr += (u64)__builtin_popcountll(h->features[w]);
	if (!nr)
		return 0;
	table = h->data.offset + h->data.size;
	if (table < h->data.offset || !fits(table, nr * 16, r->file_size))
		return fail(r, -EINVAL,
			    "at offset %#llx: the feature table (%llu entries, one per feature bit "
			    "set) runs past the end of the file (%#llx bytes)",
			    (unsigned long long)table, (unsigned long long)nr,
			    (unsigned long long)r->file_size);
	for (unsigned bit = 0; bit < PD_FEAT_BITS; bit++) {
		const u8 *e;
		u64 off, size;

		if (!(h->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		e = r->map + table + 16 * (u64)i++;
		off = pd_get_u64(e);
		size = pd_get_u64(e + 8);
		if (!fits(off, size, r->file_size))
			return fail(
			    r, -EINVAL,
			    "at offset %#llx: feature %s (bit %u) says its %#llx bytes are at "
			    "%#llx, past the end of the file (%#llx bytes)",
			    (unsigned long long)(table + 16 * (u64)(i - 1)), feat_label(bit), bit,
			    (unsigned long long)size, (unsigned long long)off,
			    (unsigned long long)r->file_size);
		r->feat[bit].data = r->map + off;
		r->feat[bit].len = size;
		r->feat[bit].present = true;
	}
	/* In bit order, as perf: EVENT_DESC names come after the tracing data's. */
	for (unsigned bit = 0; bit < PD_FEAT_BITS; bit++)
		if (r->feat[bit].present)
			apply_feature(r, bit);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening */

static int check_magic(struct pd_reader *r, u64 magic)
{
	if (magic == PD_MAGIC)
		return 0;
	if (magic == PD_MAGIC_SWAPPED)
		return fail(r, -EINVAL,
			    "at offset 0: the magic is byte-swapped: a big-endian perf.data file, "
			    "which prec does not read");
	if (magic == PD_MAGIC_V1)
		return fail(
		    r, -EINVAL,
		    "at offset 0: the magic is PERFFILE, perf's first format (before 2010), "
		    "which prec does not read");
	return fail(r, -EINVAL, "at offset 0: bad magic %#018llx: not a perf.data file",
		    (unsigned long long)magic);
}

static int read_attrs(struct pd_reader *r)
{
	const struct pd_file_header *h = &r->hdr;
	u64 nr = h->attrs.size / h->attr_size;
	u64 p = h->attrs.offset, end = h->attrs.offset + h->attrs.size;
	u64 all_ids = 0; /* bytes of the id arrays so far */

	for (u64 i = 0; i < nr; i++) {
		const u8 *a = r->map + p;
		u64 ids_off, ids_size;
		u32 size;
		int err;

		if (end - p < PERF_ATTR_SIZE_VER0)
			return fail(r, -EINVAL,
				    "at offset %#llx: attr %llu runs past the end of the attrs "
				    "section (%#llx + %#llx; attr_size %llu)",
				    (unsigned long long)p, (unsigned long long)i,
				    (unsigned long long)h->attrs.offset,
				    (unsigned long long)h->attrs.size,
				    (unsigned long long)h->attr_size);
		size = pd_get_u32(a + 4);
		if (size == 0)
			size = PERF_ATTR_SIZE_VER0; /* ABI 0 */
		if (size < PERF_ATTR_SIZE_VER0)
			return fail(r, -EINVAL,
				    "at offset %#llx: attr %llu has size %u, below the "
				    "64 bytes of the first attr ABI",
				    (unsigned long long)p, (unsigned long long)i, size);
		if (size > PD_ATTR_SIZE)
			return fail(r, -EINVAL,
				    "at offset %#llx: attr %llu has size %u: a newer ABI than the "
				    "%d bytes perf 6.1 and prec read (%u bytes extra)",
				    (unsigned long long)p, (unsigned long long)i, size,
				    PD_ATTR_SIZE, size - PD_ATTR_SIZE);
		if (end - p < (u64)size + 16)
			return fail(
			    r, -EINVAL,
			    "at offset %#llx: attr %llu (%u bytes and its ids section) runs "
			    "past the end of the attrs section (%#llx + %#llx)",
			    (unsigned long long)p, (unsigned long long)i, size,
			    (unsigned long long)h->attrs.offset, (unsigned long long)h->attrs.size);
		ids_off = pd_get_u64(a + size);
		ids_size = pd_get_u64(a + size + 8);
		if (!fits(ids_off, ids_size, r->file_size) || ids_size / 8 > UINT32_MAX)
			return fail(
			    r, -EINVAL,
			    "at offset %#llx: the ids of attr %llu (%#llx bytes at %#llx) run "
			    "past the end of the file (%#llx bytes)",
			    (unsigned long long)(p + size), (unsigned long long)i,
			    (unsigned long long)ids_size, (unsigned long long)ids_off,
			    (unsigned long long)r->file_size);
		/*
		 * Each attr's ids are copied: arrays that all point at one large region would make
		 * a small file take gigabytes. perf writes them one after the other, so together
		 * they fit in the file.
		 */
		if (ids_size > r->file_size - all_ids)
			return fail(
			    r, -EINVAL,
			    "at offset %#llx: the ids of attr %llu (%#llx bytes at %#llx) make the "
			    "id arrays larger than the file (%#llx bytes): they overlap",
			    (unsigned long long)(p + size), (unsigned long long)i,
			    (unsigned long long)ids_size, (unsigned long long)ids_off,
			    (unsigned long long)r->file_size);
		all_ids += ids_size;
		err = add_attr(r, a, size, r->map + ids_off, (u32)(ids_size / 8));
		if (err)
			return fail(r, err, "out of memory reading attr %llu",
				    (unsigned long long)i);
		p += (u64)size + 16;
	}
	return 0;
}

static int open_file_mode(struct pd_reader *r)
{
	struct pd_file_header *h = &r->hdr;
	int err;

	if (h->size != sizeof(*h) && h->size != offsetof(struct pd_file_header, features))
		return fail(r, -EINVAL,
			    "at offset 0x8: the header size is %llu; perf.data headers are 104 "
			    "bytes (72 without features, 16 in pipe mode)",
			    (unsigned long long)h->size);
	if (r->file_size < h->size)
		return fail(r, -EINVAL,
			    "at offset 0: the file is %llu bytes, shorter than its "
			    "%llu-byte header",
			    (unsigned long long)r->file_size, (unsigned long long)h->size);
	memcpy(h, r->map, h->size);
	if (!h->attr_size)
		return fail(r, -EINVAL,
			    "at offset 0x10: attr_size is 0, so the attrs cannot be "
			    "counted");
	if (!fits(h->attrs.offset, h->attrs.size, r->file_size))
		return fail(r, -EINVAL,
			    "at offset 0x18: the attrs section (%#llx bytes at %#llx) runs past "
			    "the end of the file (%#llx bytes)",
			    (unsigned long long)h->attrs.size, (unsigned long long)h->attrs.offset,
			    (unsigned long long)r->file_size);
	if (h->data.offset > r->file_size)
		return fail(r, -EINVAL,
			    "at offset 0x28: the data section starts at %#llx, past the end of "
			    "the file (%#llx bytes)",
			    (unsigned long long)h->data.offset, (unsigned long long)r->file_size);

	r->data_start = h->data.offset;
	if (h->data.size == 0 || !fits(h->data.offset, h->data.size, r->file_size)) {
		/* The writer never finished (or the file was cut): read what is there. */
		r->recovered = true;
		r->data_end = r->file_size;
	} else {
		r->data_end = h->data.offset + h->data.size;
	}
	r->pos = r->data_start;
	/* the records are read once, front to back (a hint: failing it changes nothing) */
	posix_fadvise(r->fd, (off_t)r->data_start, (off_t)(r->data_end - r->data_start),
		      POSIX_FADV_SEQUENTIAL);

	err = read_attrs(r);
	if (err)
		return err;
	/* Without a finished data section there is no telling where features would be. */
	if (!r->recovered) {
		err = read_features(r);
		if (err)
			return err;
	}
	return 0;
}

static void reader_free(struct pd_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap((void *)r->map, r->map_len);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (u32 i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i].ids);
		free(r->attrs[i].name);
	}
	free(r->attrs);
	free(r->id_keys);
	free(r->id_vals);
	for (unsigned i = 0; i < PD_FEAT_BITS; i++)
		free(r->feat[i].owned);
	if (r->tep)
		tep_free(r->tep);
	pd_buf_release(&r->build_ids);
	pd_zstd_free(r->zstd);
	pd_buf_release(&r->decomp);
	while (r->holds) {
		struct pd_hold *h = r->holds;

		r->holds = h->all_next;
		if (h != r->in_hold) /* in_data is the input buffer's own */
			free(h->data);
		free(h);
	}
	free(r->in_data);
	pd_buf_release(&r->align);
	free(r->scratch);
	free(r->read_values);
	free(r);
}

static struct pd_reader *reader_alloc(int fd, bool own_fd, unsigned flags)
{
	struct pd_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = fd;
	r->own_fd = own_fd;
	r->flags = flags;
	r->id_pos = r->is_pos = -1;
	r->read_values_cap = 16;
	r->read_values = calloc(r->read_values_cap, sizeof(*r->read_values));
	if (!r->read_values) {
		free(r);
		return NULL;
	}
	return r;
}

/* Read exactly len bytes from the pipe, or fewer at its end. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (u8 *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int open_pipe_mode(struct pd_reader *r, const u8 *first16)
{
	u8 buf[16];

	if (!first16) {
		ssize_t n = read_full(r->fd, buf, sizeof(buf));

		if (n < 0)
			return fail(r, (int)n, "reading the header: %s", strerror((int)-n));
		if (n < (ssize_t)sizeof(buf))
			return fail(r, -EINVAL,
				    "at offset 0: the input ends after %zd bytes, "
				    "before the 16-byte pipe header",
				    n);
		first16 = buf;
	}
	r->pipe = true;
	r->hdr.magic = pd_get_u64(first16);
	r->hdr.size = pd_get_u64(first16 + 8);
	if (check_magic(r, r->hdr.magic))
		return -EINVAL;
	if (r->hdr.size != sizeof(struct pd_pipe_file_header))
		return fail(r, -EINVAL,
			    "at offset 0x8: the header size is %llu: a file-mode perf.data cannot "
			    "be read from a pipe (give its path instead)",
			    (unsigned long long)r->hdr.size);
	r->pos = sizeof(struct pd_pipe_file_header);
	r->data_start = r->pos;
	return 0;
}

static int open_fd(struct pd_reader *r)
{
	struct stat st;
	u64 magic, size;
	void *map;

	if (fstat(r->fd, &st) < 0)
		return fail(r, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return open_pipe_mode(r, NULL);

	r->file_size = (u64)st.st_size;
	if (r->file_size < 16)
		return fail(r, -EINVAL,
			    "at offset 0: the file is %llu bytes, too short for a "
			    "perf.data header",
			    (unsigned long long)r->file_size);
	map = mmap(NULL, r->file_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (map == MAP_FAILED)
		return fail(r, -errno, "cannot map the file: %s", strerror(errno));
	r->map = map;
	r->map_len = r->file_size;

	magic = pd_get_u64(r->map);
	size = pd_get_u64(r->map + 8);
	if (check_magic(r, magic))
		return -EINVAL;
	r->hdr.magic = magic;
	r->hdr.size = size;
	if (size == sizeof(struct pd_pipe_file_header)) {
		/* A pipe-mode stream saved to a file: read it as a stream. */
		u8 first[16];

		memcpy(first, r->map, sizeof(first));
		munmap((void *)r->map, r->map_len);
		r->map = NULL;
		r->map_len = 0;
		if (lseek(r->fd, sizeof(first), SEEK_SET) < 0)
			return fail(r, -errno, "cannot seek: %s", strerror(errno));
		return open_pipe_mode(r, first);
	}
	return open_file_mode(r);
}

static int open_common(struct pd_reader **rp, struct pd_reader *r)
{
	int err;

	*rp = r;
	if (!r)
		return -ENOMEM;
	err = open_fd(r);
	if (err && !r->errmsg[0])
		fail(r, err, "%s", strerror(-err));
	return err;
}

/**
 * pd_reader_open - open a perf.data file ("-" reads a pipe-mode stream from stdin).
 * @flags: enum pd_reader_flags
 *
 * Return: 0, or a negative errno with the reason in pd_reader_errmsg(*rp) when *rp is not NULL
 * (close it with pd_reader_close() either way).
 */
int pd_reader_open(struct pd_reader **rp, const char *path, unsigned flags)
{
	struct pd_reader *r;
	int fd;

	*rp = NULL;
	if (!strcmp(path, "-"))
		return open_common(rp, reader_alloc(STDIN_FILENO, false, flags));
	/* The reader first: once the file is open, nothing can fail before the reader owns it. */
	r = reader_alloc(-1, true, flags);
	*rp = r;
	if (!r)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		return fail(r, err, "cannot open: %s", strerror(-err));
	}
	r->fd = fd;
	return open_common(rp, r);
}

/**
 * pd_reader_open_fd - like pd_reader_open() on a descriptor the caller keeps: a regular file is
 * mapped (file mode, or pipe mode when its header says so), anything else is read as a stream.
 *
 * @flags: enum pd_reader_flags
 *
 * Return: 0, or a negative errno with the reason in pd_reader_errmsg(*rp).
 */
int pd_reader_open_fd(struct pd_reader **rp, int fd, unsigned flags)
{
	*rp = NULL;
	return open_common(rp, reader_alloc(fd, false, flags));
}

/**
 * pd_reader_close - free the reader (NULL is fine); the descriptor is closed if it opened it.
 */
void pd_reader_close(struct pd_reader *r)
{
	reader_free(r);
}

/**
 * pd_reader_errmsg - the last error, one line naming the byte offset and the record.
 *
 * Return: the message, "" when there was none.
 */
const char *pd_reader_errmsg(const struct pd_reader *r)
{
	return r ? r->errmsg : "out of memory";
}

/** pd_reader_is_pipe - whether the input is a pipe-mode stream. */
bool pd_reader_is_pipe(const struct pd_reader *r)
{
	return r->pipe;
}

/** pd_reader_header - the file header (pipe mode: only magic and size are set). */
const struct pd_file_header *pd_reader_header(const struct pd_reader *r)
{
	return &r->hdr;
}

/** pd_reader_file_size - bytes in the file; 0 in pipe mode. */
u64 pd_reader_file_size(const struct pd_reader *r)
{
	return r->file_size;
}

/** pd_reader_nr_attrs - the number of events (attrs) known so far. */
u32 pd_reader_nr_attrs(const struct pd_reader *r)
{
	return r->nr_attrs;
}

/** pd_reader_attr - attr idx, zero-extended to 128 bytes; NULL when idx is out of range. */
const struct perf_event_attr *pd_reader_attr(const struct pd_reader *r, u32 idx)
{
	return idx < r->nr_attrs ? &r->attrs[idx].attr : NULL;
}

/** pd_reader_attr_name - the name the file gives event idx, or NULL. */
const char *pd_reader_attr_name(const struct pd_reader *r, u32 idx)
{
	return idx < r->nr_attrs ? r->attrs[idx].name : NULL;
}

/** pd_reader_attr_ids - the sample ids of event idx; NULL (and *nr 0) when it has none. */
const u64 *pd_reader_attr_ids(const struct pd_reader *r, u32 idx, u32 *nr)
{
	if (idx >= r->nr_attrs) {
		*nr = 0;
		return NULL;
	}
	*nr = r->attrs[idx].nr_ids;
	return r->attrs[idx].ids;
}

/**
 * pd_reader_attr_by_id - the attr an id belongs to, as perf's evlist__id2evsel() decides: the
 * only attr, the first one for id 0 or when the file has no sample_id_all, else the hash.
 *
 * Return: the attr index, or -ENOENT.
 */
int pd_reader_attr_by_id(const struct pd_reader *r, u64 id)
{
	int idx;

	if (!r->nr_attrs)
		return -ENOENT;
	if (r->nr_attrs == 1 || !id)
		return 0;
	idx = pd_reader_id_lookup(r, id);
	if (idx >= 0)
		return idx;
	if (!r->attrs[0].attr.sample_id_all)
		return 0;
	return -ENOENT;
}

/** pd_reader_has_feature - whether the file carries feature bit (with a readable payload). */
bool pd_reader_has_feature(const struct pd_reader *r, unsigned bit)
{
	if (bit >= PD_FEAT_BITS)
		return false;
	if (bit == PD_FEAT_BUILD_ID && r->build_ids.len)
		return true;
	return r->feat[bit].present;
}

/**
 * pd_reader_feature - a feature's payload as stored (in pipe mode: as the last HEADER_FEATURE
 * gave it; BUILD_ID collects the HEADER_BUILD_ID records).
 *
 * Return: the payload, or NULL when the file does not have it.
 */
const void *pd_reader_feature(const struct pd_reader *r, unsigned bit, size_t *len)
{
	if (bit >= PD_FEAT_BITS || !pd_reader_has_feature(r, bit)) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (bit == PD_FEAT_BUILD_ID && r->build_ids.len && !r->feat[bit].present) {
		if (len)
			*len = r->build_ids.len;
		return r->build_ids.data;
	}
	if (len)
		*len = r->feat[bit].len;
	/* An empty payload is still there: never hand out NULL for a present feature. */
	return r->feat[bit].data ? r->feat[bit].data : (const void *)"";
}

/** pd_reader_tep - the parsed tracing data, or NULL when the file has none (or it did not parse).
 */
struct tep_handle *pd_reader_tep(struct pd_reader *r)
{
	return r->tep;
}

/** pd_reader_recovered - the writer did not finish the file: only what was there was read. */
bool pd_reader_recovered(const struct pd_reader *r)
{
	return r->recovered;
}

/** pd_reader_data_read - bytes of data up to the end of the last complete record read. */
u64 pd_reader_data_read(const struct pd_reader *r)
{
	return r->data_read;
}

/* ---------------------------------------------------------------------------------------- */
/* Records that change what the reader knows: pipe mode's header records, EVENT_UPDATE */

static int apply_header_attr(struct pd_reader *r, const struct pd_record_header *h)
{
	const u8 *p = (const u8 *)(h + 1);
	size_t body = h->size - sizeof(*h);
	u32 size;
	int err;

	if (body < PERF_ATTR_SIZE_VER0)
		return pd_reader_record_error(r, h, -EINVAL,
					      "size %u cannot hold an attr (at least 72)", h->size);
	size = pd_get_u32(p + 4);
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PD_ATTR_SIZE)
		return pd_reader_record_error(
		    r, h, -EINVAL, "attr size %u is not between 64 and %d", size, PD_ATTR_SIZE);
	if (size > body)
		return pd_reader_record_error(r, h, -EINVAL,
					      "its %u-byte attr runs past the record end (size %u)",
					      size, h->size);
	err = add_attr(r, p, size, p + size, (u32)((body - size) / 8));
	if (err)
		return pd_reader_record_error(r, h, err, "out of memory");
	return 0;
}

static int apply_header_feature(struct pd_reader *r, const struct pd_record_header *h, u64 off)
{
	const u8 *p = (const u8 *)(h + 1);
	struct pd_feature_slot *slot;
	size_t len;
	u64 bit;

	if (h->size < 16)
		return pd_reader_record_error(
		    r, h, -EINVAL, "size %u cannot hold a feature id (at least 16)", h->size);
	bit = pd_get_u64(p);
	if (bit == PD_FEAT_LAST_KNOWN)
		return 0; /* perf's marker for the end of the features of a pipe */
	if (bit >= PD_FEAT_BITS) {
		pd_log(1,
		       "at offset %#llx: HEADER_FEATURE for bit %llu, beyond the %d bits; "
		       "ignored",
		       (unsigned long long)off, (unsigned long long)bit, PD_FEAT_BITS);
		return 0;
	}
	len = h->size - 16;
	slot = &r->feat[bit];
	free(slot->owned);
	slot->owned = malloc(len ? len : 1);
	if (!slot->owned) {
		memset(slot, 0, sizeof(*slot));
		return pd_reader_record_error(r, h, -ENOMEM, "out of memory");
	}
	memcpy(slot->owned, p + 8, len);
	slot->data = slot->owned;
	slot->len = len;
	slot->present = true;
	apply_feature(r, (unsigned)bit);
	return 0;
}

static void apply_event_update(struct pd_reader *r, const struct pd_record_header *h, u64 off)
{
	const u8 *p = (const u8 *)(h + 1);
	size_t body = h->size - sizeof(*h);
	u64 type, id;
	int idx;

	if (body < 16)
		return;
	type = pd_get_u64(p);
	id = pd_get_u64(p + 8);
	if (type != PD_EVENT_UPDATE_NAME)
		return;
	idx = pd_reader_attr_by_id(r, id);
	if (idx < 0) {
		pd_log(1,
		       "at offset %#llx: EVENT_UPDATE names id %llu, which no event has; ignored",
		       (unsigned long long)off, (unsigned long long)id);
		return;
	}
	set_name(&r->attrs[idx], (const char *)p + 16, strnlen((const char *)p + 16, body - 16),
		 PD_NAME_EVENT_UPDATE);
}

/* h is complete; blob is what follows a TRACING_DATA record (blob_len bytes). */
static int apply_record(struct pd_reader *r, const struct pd_record_header *h, u64 off,
			const void *blob, size_t blob_len)
{
	switch (h->type) {
	case PD_RECORD_HEADER_ATTR:
		return apply_header_attr(r, h);
	case PD_RECORD_HEADER_FEATURE:
		return apply_header_feature(r, h, off);
	case PD_RECORD_HEADER_TRACING_DATA:
		apply_tracing_data(r, blob, blob_len);
		return 0;
	case PD_RECORD_HEADER_BUILD_ID:
		if (!pd_buf_append(&r->build_ids, h, h->size))
			return pd_reader_record_error(r, h, -ENOMEM, "out of memory");
		return 0;
	case PD_RECORD_EVENT_UPDATE:
		apply_event_update(r, h, off);
		return 0;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Iteration */

/* HEADER_TRACING_DATA is followed by its payload, which the record's u32 size announces. */
static int tracing_blob_size(struct pd_reader *r, const struct pd_record_header *hdr, const u8 *p,
			     u64 off, u64 *blob)
{
	*blob = 0;
	if (hdr->type != PD_RECORD_HEADER_TRACING_DATA)
		return 0;
	if (hdr->size < 12)
		return fail_at(r, -EINVAL, off, false, 0, hdr->type,
			       "size %u cannot hold the size of the tracing data (at least 12)",
			       hdr->size);
	*blob = pd_get_u32(p + 8);
	return 0;
}

/*
 * Records are read in place, but a file does not keep them 8-aligned (perf's COMPRESSED and
 * HEADER_FEATURE records have any size): copy a misaligned one, so that callers and the
 * decoders may read its fields directly. NULL when out of memory.
 */
static const struct pd_record_header *aligned(struct pd_reader *r, const u8 *p, u16 size)
{
	if (!((uintptr_t)p & 7))
		return (const void *)p;
	pd_buf_reset(&r->align);
	if (!pd_buf_append(&r->align, p, size))
		return NULL;
	return (const void *)r->align.data;
}

/* The next complete record in the decompressed bytes, or NULL when more input is needed. */
static int next_decompressed(struct pd_reader *r, struct pd_event *ev)
{
	size_t avail = r->decomp.len - r->decomp_pos;
	const struct pd_record_header *h;
	struct pd_record_header hdr;
	int err;

	if (avail < sizeof(hdr))
		return 0;
	h = (const void *)(r->decomp.data + r->decomp_pos);
	memcpy(&hdr, h, sizeof(hdr));
	if (hdr.size < sizeof(hdr))
		return fail_at(r, -EINVAL, r->decomp_offset, true, r->decomp_pos, hdr.type,
			       "size %u is below 8", hdr.size);
	if (hdr.type == PD_RECORD_COMPRESSED)
		return fail_at(r, -EINVAL, r->decomp_offset, true, r->decomp_pos, hdr.type,
			       "a COMPRESSED record inside compressed data");
	/*
	 * perf writes the tracing data uncompressed and reads its payload from the file, so it
	 * cannot be in here; waiting for the payload it announces would keep every decompressed
	 * byte until then.
	 */
	if (hdr.type == PD_RECORD_HEADER_TRACING_DATA)
		return fail_at(r, -EINVAL, r->decomp_offset, true, r->decomp_pos, hdr.type,
			       "tracing data inside compressed data (perf writes it "
			       "uncompressed)");
	if (hdr.size > avail)
		return 0;
	h = aligned(r, (const u8 *)h, hdr.size);
	if (!h)
		return fail(r, -ENOMEM, "out of memory");
	r->last = h;
	r->last_offset = r->decomp_offset;
	r->last_compressed = true;
	r->last_inner = r->decomp_pos;
	r->decomp_pos += hdr.size;
	err = apply_record(r, h, r->decomp_offset, NULL, 0);
	if (err)
		return err;
	ev->header = h;
	ev->offset = r->decomp_offset;
	ev->compressed = true;
	return 1;
}

static int decompress(struct pd_reader *r, const struct pd_record_header *h, u64 off)
{
	size_t rem = r->decomp.len - r->decomp_pos;
	u32 limit;
	int err;

	/*
	 * A file whose writer was killed has no features, HEADER_COMPRESSED among them, as they
	 * come at the end: its compressed records are zstd (the only kind perf and prec write),
	 * and no buffer size bounds them but ours.
	 */
	if (!r->comp_mmap_len && r->recovered)
		r->comp_mmap_len = PD_DECOMP_MAX;
	if (!r->comp_mmap_len)
		return fail_at(r, -EINVAL, off, false, 0, h->type,
			       "the file has compressed records but no usable HEADER_COMPRESSED "
			       "feature (zstd, with the buffer size mmap_len)");
	if (!r->zstd) {
		err = pd_zstd_decompressor_new(&r->zstd);
		if (err == -EOPNOTSUPP)
			return fail_at(r, err, off, false, 0, h->type,
				       "prec was built without zstd and cannot read compressed "
				       "records");
		if (err)
			return fail_at(r, err, off, false, 0, h->type, "out of memory");
	}
	/* Carry what the last record left unfinished to the front, as perf does. */
	if (rem && r->decomp_pos)
		memmove(r->decomp.data, r->decomp.data + r->decomp_pos, rem);
	r->decomp.len = rem;
	r->decomp_pos = 0;
	r->decomp_offset = off;
	limit = r->comp_mmap_len < PD_DECOMP_MAX ? r->comp_mmap_len : PD_DECOMP_MAX;
	err = pd_zstd_decompress(r->zstd, h + 1, h->size - sizeof(*h), &r->decomp, limit);
	if (err == -ENOSPC && limit < r->comp_mmap_len)
		return fail_at(r, -EINVAL, off, false, 0, h->type,
			       "it decompresses to more than %u MiB, the most prec takes from one "
			       "record (HEADER_COMPRESSED's mmap_len is %u)",
			       PD_DECOMP_MAX >> 20, r->comp_mmap_len);
	if (err == -ENOSPC)
		return fail_at(r, -EINVAL, off, false, 0, h->type,
			       "it decompresses to more than the %u bytes of HEADER_COMPRESSED's "
			       "mmap_len",
			       r->comp_mmap_len);
	if (err == -EBADMSG)
		return fail_at(r, -EINVAL, off, false, 0, h->type,
			       "its %u bytes of zstd data do not decompress (corrupt data)",
			       h->size - (u32)sizeof(*h));
	if (err)
		return fail_at(r, err, off, false, 0, h->type, "decompression failed: %s",
			       strerror(-err));
	return 0;
}

struct pd_hold *pd_reader_hold(struct pd_reader *r, const void *p, size_t len)
{
	const u8 *b = p;
	struct pd_hold *h = r->in_hold;

	if (!r->in_data || b < r->in_data || b > r->in_data + r->in_len ||
	    len > (size_t)(r->in_data + r->in_len - b))
		return NULL;
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return NULL;
		h->all_next = r->holds;
		r->holds = h;
		r->in_hold = h;
	}
	if (!h->refs) {
		h->data = r->in_data;
		h->cap = r->in_cap;
	}
	h->refs++;
	return h;
}

void pd_reader_release(struct pd_reader *r, struct pd_hold *h)
{
	if (--h->refs || h == r->in_hold)
		return;
	h->next = r->spare;
	r->spare = h;
}

/*
 * The input buffer has holders: go on in a spare buffer (or a new one) of want bytes at least,
 * the unused bytes copied there at lead. Return: 0, or -ENOMEM.
 */
static int input_detach(struct pd_reader *r, size_t lead, size_t want)
{
	size_t keep = r->in_len - r->in_pos;
	struct pd_hold *h = r->spare;
	u8 *d;

	if (want < r->in_cap)
		want = r->in_cap;
	if (h) {
		d = h->cap >= want ? h->data : realloc(h->data, want);
		if (!d)
			return -ENOMEM;
		r->spare = h->next;
		h->data = d;
		h->cap = h->cap >= want ? h->cap : want;
	} else {
		d = malloc(want);
		if (!d)
			return -ENOMEM;
	}
	memcpy(d + lead, r->in_data + r->in_pos, keep);
	r->in_hold = h; /* a spare's record comes along, with no holders */
	r->in_data = d;
	r->in_cap = h ? h->cap : want;
	r->in_pos = lead;
	r->in_len = lead + keep;
	return 0;
}

/*
 * Make the input buffer hold need bytes from in_pos on. A pipe gives 0 when it ends before; a
 * file's caller has checked that the data section holds them, so a short read means the file
 * shrank. The unused bytes move to the front at the file's alignment modulo 8, so that records
 * aligned in the file stay aligned here and need no copy.
 */
static int input_fill(struct pd_reader *r, size_t need)
{
	while (r->in_len - r->in_pos < need) {
		size_t keep = r->in_len - r->in_pos, lead = r->pos & 7, want, room;
		u64 at = r->pos + keep; /* the stream offset of in_data + in_len */
		ssize_t n;

		if (r->in_eof)
			return 0;
		want = lead + (need > INPUT_CHUNK ? need : INPUT_CHUNK);
		if (r->in_hold && r->in_hold->refs && input_detach(r, lead, want))
			return fail(r, -ENOMEM, "out of memory reading the %s",
				    r->pipe ? "pipe" : "file");
		if (r->in_pos != lead) {
			memmove(r->in_data + lead, r->in_data + r->in_pos, keep);
			r->in_pos = lead;
			r->in_len = lead + keep;
		}
		if (r->in_cap < want) {
			u8 *d = realloc(r->in_data, want);

			if (!d)
				return fail(r, -ENOMEM, "out of memory reading the %s",
					    r->pipe ? "pipe" : "file");
			r->in_data = d;
			r->in_cap = want;
		}
		room = r->in_cap - r->in_len;
		if (r->pipe) {
			n = read(r->fd, r->in_data + r->in_len, room);
		} else {
			if (room > r->data_end - at)
				room = (size_t)(r->data_end - at);
			n = pread(r->fd, r->in_data + r->in_len, room, (off_t)at);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(r, -errno, "at offset %#llx: reading the %s: %s",
				    (unsigned long long)at, r->pipe ? "pipe" : "file",
				    strerror(errno));
		if (n == 0 && !r->pipe)
			return fail(
			    r, -EIO,
			    "at offset %#llx: the file ends before its data section (%#llx): "
			    "it shrank while being read",
			    (unsigned long long)at, (unsigned long long)r->data_end);
		if (n == 0)
			r->in_eof = true;
		r->in_len += (size_t)n;
	}
	return 1;
}

/*
 * The next raw record of the file or the pipe: *hp, its offset, and the size of what follows it
 * (the tracing data after HEADER_TRACING_DATA). Return 1, 0 at the end, or a negative errno.
 * The data section is read into a buffer, not through the mapping: a page fault per page of a
 * large file costs several times what read() does, and the buffer's pages are reused.
 */
static int next_raw(struct pd_reader *r, const struct pd_record_header **hp, u64 *offp,
		    const u8 **blob_at, u64 *blobp)
{
	struct pd_record_header hdr;
	const u8 *p;
	u64 left, blob;
	int err;

	if (r->pipe) {
		left = UINT64_MAX;
	} else {
		if (r->pos >= r->data_end)
			return 0;
		left = r->data_end - r->pos;
		if (left < sizeof(hdr)) {
			if (r->recovered)
				return 0;
			return fail(r, -EINVAL,
				    "at offset %#llx: %llu bytes are left in the data section, too "
				    "few for a record header",
				    (unsigned long long)r->pos, (unsigned long long)left);
		}
	}
	err = input_fill(r, sizeof(hdr));
	if (err <= 0) {
		if (!err && r->in_len > r->in_pos)
			r->recovered = true; /* the stream stopped inside a header */
		return err;
	}
	p = r->in_data + r->in_pos;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.size < sizeof(hdr)) {
		/* A writer killed after the file grew leaves zeros: the end of what it wrote. */
		if (r->recovered && !r->pipe && !hdr.type && !hdr.misc && !hdr.size)
			return 0;
		return fail_at(r, -EINVAL, r->pos, false, 0, hdr.type, "size %u is below 8",
			       hdr.size);
	}
	if (hdr.size > left) {
		if (r->recovered)
			return 0;
		return fail_at(r, -EINVAL, r->pos, false, 0, hdr.type,
			       "size %u runs past the end of the data section (%llu bytes left)",
			       hdr.size, (unsigned long long)left);
	}
	err = tracing_blob_size(r, &hdr, p, r->pos, &blob);
	if (err)
		return err;
	if (blob && r->pipe && blob > PIPE_BLOB_MAX)
		return fail_at(r, -EINVAL, r->pos, false, 0, hdr.type,
			       "%llu bytes of tracing data is more than the %d MiB prec "
			       "takes from a pipe",
			       (unsigned long long)blob, PIPE_BLOB_MAX >> 20);
	if (blob && blob > left - hdr.size) {
		if (r->recovered)
			return 0;
		return fail_at(r, -EINVAL, r->pos, false, 0, hdr.type,
			       "the %llu bytes of tracing data after it run past the end of "
			       "the data section (%llu bytes left)",
			       (unsigned long long)blob, (unsigned long long)(left - hdr.size));
	}
	err = input_fill(r, hdr.size + blob);
	if (err <= 0) {
		if (!err)
			r->recovered = true;
		return err;
	}
	p = r->in_data + r->in_pos;
	*hp = aligned(r, p, hdr.size);
	if (!*hp)
		return fail(r, -ENOMEM, "out of memory");
	*blob_at = p + hdr.size;
	*offp = r->pos;
	*blobp = blob;
	r->pos += hdr.size + blob;
	r->in_pos += hdr.size + blob;
	r->data_read = r->pos - r->data_start;
	return 1;
}

/**
 * pd_reader_next - the next record in file order.
 *
 * A COMPRESSED record is handed out itself (so that callers can count it, as perf does) and its
 * records follow, decompressed, with compressed set and offset naming the COMPRESSED record. In
 * pipe mode the header records (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA ...) are
 * applied and also handed out. The record is valid until the next call.
 *
 * Return: 1 with *ev set, 0 at the end, or a negative errno (see pd_reader_errmsg()).
 */
int pd_reader_next(struct pd_reader *r, struct pd_event *ev)
{
	const struct pd_record_header *h = NULL;
	const u8 *blob_at = NULL;
	u64 off = 0, blob = 0;
	int ret;

	if (r->at_end)
		return 0;
	/* Each path sets r->last before applying the record, for the errors that name it. */
	ret = next_decompressed(r, ev);
	if (ret)
		return ret;

	ret = next_raw(r, &h, &off, &blob_at, &blob);
	if (ret <= 0) {
		if (ret == 0) {
			size_t rem = r->decomp.len - r->decomp_pos;

			r->at_end = true;
			if (rem && !r->recovered)
				return fail(
				    r, -EINVAL,
				    "at offset %#llx: the compressed data ends inside a "
				    "record (%zu bytes left over from the COMPRESSED record "
				    "at %#llx)",
				    (unsigned long long)r->pos, rem,
				    (unsigned long long)r->decomp_offset);
		}
		return ret;
	}
	r->last = h;
	r->last_offset = off;
	r->last_compressed = false;
	if (h->type == PD_RECORD_COMPRESSED)
		ret = decompress(r, h, off);
	else
		ret = apply_record(r, h, off, blob_at, (size_t)blob);
	if (ret)
		return ret;
	ev->header = h;
	ev->offset = off;
	ev->compressed = false;
	return 1;
}

/**
 * pd_reader_rewind - go back to the first record (file mode only).
 *
 * Return: 0, or -ESPIPE in pipe mode.
 */
int pd_reader_rewind(struct pd_reader *r)
{
	if (r->pipe)
		return -ESPIPE;
	r->pos = r->data_start;
	r->data_read = 0;
	r->at_end = false;
	r->in_pos = r->in_len = 0;
	pd_zstd_free(r->zstd);
	r->zstd = NULL;
	pd_buf_reset(&r->decomp);
	r->decomp_pos = 0;
	r->last = NULL;
	return 0;
}
