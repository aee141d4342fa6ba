// SPDX-License-Identifier: GPL-2.0
/*
 * format/writer.c, checked byte by byte: the file-mode layout (header, ids, attrs, data, the
 * feature table exactly at data.offset + data.size), the header written at begin, FILE.old and
 * abort, mode 0600 and symlinks, compressed records and their bounds, pipe mode's header records,
 * write errors; then read back with the reader.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "format/perf-data.h"
#include "tests/tap.h"

static char dir[] = "/tmp/prec-test-writer.XXXXXX";

static char *path_in(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* The whole file in memory. */
static u8 *slurp(const char *path, size_t *len)
{
	struct stat st;
	u8 *p;
	int fd = open(path, O_RDONLY);

	*len = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = malloc(st.st_size + 1);
	if (p && read(fd, p, st.st_size) != st.st_size) {
		free(p);
		p = NULL;
	}
	close(fd);
	*len = p ? (size_t)st.st_size : 0;
	return p;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			diag("write %s failed", path);
		close(fd);
	}
}

static struct perf_event_attr sw_attr(u64 config)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 64, .config = config };

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.sample_period = 1000;
	return a;
}

/* n samples of attr a with id, appended to b. */
static void samples(struct pd_buf *b, const struct perf_event_attr *a, u64 id, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct pd_sample s = { .id = id, .ip = 0x1000 + i, .pid = 1, .tid = 1,
				       .time = 1000 + i, .misc = PERF_RECORD_MISC_USER };

		pd_encode_sample(b, a, &s);
	}
}

/* Fields at any offset: feature payloads are not aligned. */
static u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool feat_bit(const struct pd_file_header *h, unsigned bit)
{
	return h->features[bit / 64] & (1ULL << (bit % 64));
}

static void test_file_layout(void)
{
	struct perf_event_attr a0 = sw_attr(PERF_COUNT_SW_CPU_CLOCK), a1 = sw_attr(1);
	const char *path = path_in("layout.data");
	u64 ids0[2] = { 101, 102 }, ids1[1] = { 201 };
	struct pd_buf b = PD_BUF_INIT, host = PD_BUF_INIT;
	const struct pd_file_section *sec, *ids;
	const struct pd_file_header *h;
	const struct perf_event_attr *fa;
	static const char prec_payload[] = "prec's own facts";
	struct pd_writer *w;
	struct stat st;
	size_t len, pos;
	u8 *f;
	u32 n;

	unlink(path);
	umask(0);
	is(pd_writer_open(&w, path, 0), 0, "open");
	umask(022);
	is(pd_writer_add_attr(w, &a0, "cpu-clock", ids0, 2), 0, "attr 0");
	is(pd_writer_add_attr(w, &a1, "task-clock", ids1, 1), 1, "attr 1");
	is(pd_writer_add_group(w, NULL, 0, 2), 0, "group");
	pd_buf_string(&host, "testhost");
	is(pd_writer_set_feature(w, PD_FEAT_HOSTNAME, host.data, host.len), 0, "HOSTNAME");
	is(pd_writer_set_feature(w, PD_FEAT_PREC, prec_payload, sizeof(prec_payload)), 0,
	   "bit 64 (PD_FEAT_PREC)");
	is(pd_writer_set_feature(w, 0, "x", 1), -EINVAL, "bit 0 is refused");
	is(pd_writer_set_feature(w, 256, "x", 1), -EINVAL, "bit 256 is refused");
	is(pd_writer_begin(w), 0, "begin");
	is(pd_writer_add_attr(w, &a0, "late", ids0, 1), -EBUSY, "no attrs after begin");

	/* After begin the header is complete, its data size 0 and its attrs final. */
	f = slurp(path, &len);
	h = (const void *)f;
	ok(f && len == h->data.offset, "begin wrote header, ids and attrs, nothing more");
	if (f) {
		ok(h->magic == PD_MAGIC && h->size == 104 && h->attr_size == 144, "magic, sizes");
		is(h->data.size, 0, "data size 0 until close");
		ok(!h->features[0] && !h->features[1], "no feature bits until close");
		is(h->attrs.size, 2 * 144, "attrs section: two attrs");
	}
	free(f);

	samples(&b, &a0, 101, 10);
	samples(&b, &a1, 201, 5);
	is(pd_writer_write(w, b.data, b.len), 0, "write records");
	is(pd_writer_records_bytes(w), b.len, "records bytes");
	is(pd_writer_data_bytes(w), b.len, "data bytes");
	is(pd_writer_close(w), 0, "close");

	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "created 0600 (umask 0)");
	f = slurp(path, &len);
	if (!f) {
		ok(0, "read back");
		return;
	}
	h = (const void *)f;
	is(h->data.size, b.len, "data size at close");
	ok(!memcmp(f + h->data.offset, b.data, b.len), "data section holds the records");
	is(h->attrs.offset + h->attrs.size, h->data.offset, "data right after the attrs");
	fa = (const void *)(f + h->attrs.offset);
	is(fa->size, 128, "attr.size written as 128 (given 64)");
	is(fa->config, 0, "attr 0 config");
	ids = (const void *)(f + h->attrs.offset + 128);
	ok(ids->size == 16 && get_u64(f + ids->offset) == 101 &&
	   get_u64(f + ids->offset + 8) == 102, "attr 0 ids");
	fa = (const void *)(f + h->attrs.offset + 144);
	is(fa->config, 1, "attr 1 at stride 144");
	ids = (const void *)(f + h->attrs.offset + 144 + 128);
	ok(ids->size == 8 && get_u64(f + ids->offset) == 201, "attr 1 ids");

	ok(feat_bit(h, PD_FEAT_HOSTNAME) && feat_bit(h, PD_FEAT_EVENT_DESC) &&
	   feat_bit(h, PD_FEAT_GROUP_DESC) && feat_bit(h, PD_FEAT_PREC), "feature bits set");
	ok(!feat_bit(h, PD_FEAT_COMPRESSED) && !feat_bit(h, PD_FEAT_TRACING_DATA),
	   "no bits for features not there");
	n = __builtin_popcountll(h->features[0]) + __builtin_popcountll(h->features[1]) +
	    __builtin_popcountll(h->features[2]) + __builtin_popcountll(h->features[3]);
	is(n, 4, "four features");
	/* The table starts exactly at data.offset + data.size, one entry per bit, ascending. */
	sec = (const void *)(f + h->data.offset + h->data.size);
	is(sec[0].offset, h->data.offset + h->data.size + 4 * 16, "payloads right after the table");
	ok(sec[0].size == host.len && !memcmp(f + sec[0].offset, host.data, host.len),
	   "entry 0: HOSTNAME (bit 3)");
	is(sec[1].offset, sec[0].offset + sec[0].size, "entry 1 follows");
	pos = sec[1].offset;
	ok(get_u32(f + pos) == 2 && get_u32(f + pos + 4) == 128, "entry 1: EVENT_DESC header");
	pos += 8 + 128;
	ok(get_u32(f + pos) == 2, "EVENT_DESC: attr 0 has 2 ids");
	pos += 4;
	is_str(pd_feat_next_string(f, len, &pos), "cpu-clock", "EVENT_DESC: name 0");
	ok(get_u64(f + pos) == 101 && get_u64(f + pos + 8) == 102, "EVENT_DESC: ids 0");
	pos = sec[2].offset;
	ok(get_u32(f + pos) == 1, "entry 2: GROUP_DESC, one group");
	pos += 4;
	is_str(pd_feat_next_string(f, len, &pos), "{anon_group}", "GROUP_DESC: anonymous");
	ok(get_u32(f + pos) == 0 && get_u32(f + pos + 4) == 2, "GROUP_DESC: leader 0, 2 members");
	ok(sec[3].size == sizeof(prec_payload) &&
	   !memcmp(f + sec[3].offset, prec_payload, sizeof(prec_payload)),
	   "entry 3: bit 64 after the known ones");
	is(sec[3].offset + sec[3].size, len, "the file ends with the last payload");
	free(f);
	pd_buf_release(&b);
	pd_buf_release(&host);
}

static void test_old_and_abort(void)
{
	const char *path = path_in("old.data"), *old = path_in("old.data.old");
	struct perf_event_attr a = sw_attr(0);
	struct pd_writer *w;
	size_t len;
	u8 *f;

	unlink(old);
	write_file(path, "previous recording");
	is(pd_writer_open(&w, path, 0), 0, "open over an existing file");
	f = slurp(old, &len);
	ok(f && len == 18 && !memcmp(f, "previous recording", 18), "it was moved to FILE.old");
	free(f);
	pd_writer_add_attr(w, &a, NULL, NULL, 0);
	pd_writer_begin(w);
	pd_writer_abort(w);
	f = slurp(path, &len);
	ok(f && len == 18 && !memcmp(f, "previous recording", 18), "abort put FILE.old back");
	free(f);
	ok(access(old, F_OK) != 0, "and FILE.old is gone");

	/* A second recording replaces an older FILE.old. */
	write_file(old, "older");
	is(pd_writer_open(&w, path, 0), 0, "open again");
	pd_writer_add_attr(w, &a, NULL, NULL, 0);
	is(pd_writer_close(w), 0, "close");
	f = slurp(old, &len);
	ok(f && len == 18, "FILE.old now holds the previous recording");
	free(f);

	/* An empty file is not worth keeping: it is reused, not renamed. */
	unlink(old);
	write_file(path, "");
	chmod(path, 0644);
	is(pd_writer_open(&w, path, 0), 0, "open over an empty file");
	ok(access(old, F_OK) != 0, "no FILE.old for an empty file");
	pd_writer_abort(w);
	ok(access(path, F_OK) != 0, "abort removed the new file");

	/* Nothing existed: abort leaves nothing. */
	is(pd_writer_open(&w, path, 0), 0, "open a new file");
	pd_writer_abort(w);
	ok(access(path, F_OK) != 0 && access(old, F_OK) != 0, "abort leaves nothing behind");
}

static void test_symlinks(void)
{
	const char *target = path_in("target"), *link = path_in("link.data");
	const char *dangling = path_in("dangling.data");
	struct pd_writer *w;
	struct stat st;
	int err;

	write_file(target, "");
	unlink(link);
	if (symlink(target, link)) {
		skip("symlinks", "cannot make a symlink");
		return;
	}
	err = pd_writer_open(&w, link, 0);
	is(err, 0, "our own symlink to our own empty file is followed");
	if (!err)
		pd_writer_abort(w);

	unlink(dangling);
	if (symlink(path_in("nowhere"), dangling) == 0) {
		err = pd_writer_open(&w, dangling, 0);
		is(err, -ELOOP, "a dangling symlink is refused");
		ok(access(path_in("nowhere"), F_OK) != 0, "and nothing was created through it");
		if (!err)
			pd_writer_abort(w);
	}

	/* Someone else's link pointing at our file: the classic /tmp attack on root. */
	write_file(target, "");
	if (geteuid() != 0 || lchown(link, 4321, 4321) || lstat(link, &st) || st.st_uid != 4321) {
		skip("a stranger's symlink is refused", "needs root to make one");
		return;
	}
	err = pd_writer_open(&w, link, 0);
	is(err, -EPERM, "a stranger's symlink to our file is refused");
	if (!err)
		pd_writer_abort(w);
}

static void test_errors(void)
{
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	struct pd_writer *w;
	int fds[2], fd;
	u8 junk[16] = { 0 };

	if (pipe(fds) == 0) {
		is(pd_writer_open_fd(&w, fds[1], 0), -ESPIPE, "file mode on a pipe: -ESPIPE");
		close(fds[0]);
		close(fds[1]);
	}

	fd = open("/dev/full", O_WRONLY);
	if (fd < 0) {
		skip("write errors", "no /dev/full");
	} else {
		is(pd_writer_open_fd(&w, fd, PD_WRITER_PIPE), 0, "pipe mode on /dev/full");
		pd_writer_add_attr(w, &a, "x", NULL, 0);
		pd_writer_begin(w);
		samples(&b, &a, 0, 1);
		pd_writer_write(w, b.data, b.len);
		is(pd_writer_flush(w), -ENOSPC, "a full disk is reported as -ENOSPC");
		is(pd_writer_write(w, b.data, b.len), -ENOSPC, "and the error is sticky");
		is(pd_writer_close(w), -ENOSPC, "close returns it too");
	}

	is(pd_writer_open(&w, path_in("bad.data"), 0), 0, "open");
	is(pd_writer_write(w, b.data, b.len), -EINVAL, "records before begin: -EINVAL");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_begin(w);
	is(pd_writer_write(w, junk, sizeof(junk)), -EINVAL, "a record of size 0: -EINVAL");
	junk[6] = 12;
	is(pd_writer_write(w, junk, sizeof(junk)), -EINVAL, "size 12, not a multiple of 8");
	junk[6] = 24;
	is(pd_writer_write(w, junk, sizeof(junk)), -EINVAL, "a record running past len");
	is(pd_writer_records_bytes(w), 0, "nothing was taken");
	is(pd_writer_add_group(w, NULL, 0, 1), -EBUSY, "groups after begin: -EBUSY");
	is(pd_writer_close(w), 0, "the file is still fine");
	pd_buf_release(&b);

	is(pd_writer_open(&w, path_in("badgroup.data"), 0), 0, "open");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_add_group(w, NULL, 0, 2);
	is(pd_writer_begin(w), -EINVAL, "a group running past the events: -EINVAL");
	pd_writer_abort(w);
}

static void test_empty_and_big(void)
{
	const char *path = path_in("empty.data");
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	const struct pd_file_header *h;
	struct pd_writer *w;
	size_t len;
	u8 *f;

	is(pd_writer_open(&w, path, 0), 0, "open");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	is(pd_writer_close(w), 0, "close without begin or records");
	f = slurp(path, &len);
	h = (const void *)f;
	ok(f && h->data.size == 8 &&
	   ((struct pd_record_header *)(f + h->data.offset))->type == PD_RECORD_FINISHED_ROUND,
	   "an empty recording gets one FINISHED_ROUND: perf refuses data size 0");
	free(f);

	/* One write larger than the output buffer, between small ones. */
	is(pd_writer_open(&w, path, 0), 0, "open");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_begin(w);
	samples(&b, &a, 0, 3);
	pd_writer_write(w, b.data, b.len);
	pd_buf_reset(&b);
	samples(&b, &a, 0, 40000);
	is(pd_writer_write(w, b.data, b.len), 0, "a 1.6 MB write");
	pd_writer_write(w, b.data, 40);
	is(pd_writer_close(w), 0, "close");
	f = slurp(path, &len);
	h = (const void *)f;
	ok(f && h->data.size == 3 * 40 + b.len + 40 &&
	   !memcmp(f + h->data.offset + 120, b.data, b.len) &&
	   !memcmp(f + h->data.offset + 120 + b.len, b.data, 40), "all of it, in order");
	free(f);
	pd_buf_release(&b);
}

static void test_compressed(void)
{
#ifdef HAVE_ZSTD
	const char *path = path_in("z.data");
	const u32 mmap_len = 200 * 1024;
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	const struct pd_file_header *h;
	struct pd_compressed_feature cf;
	struct pd_file_section sec[2];
	ZSTD_DStream *d;
	struct pd_writer *w;
	size_t len, off, out_len = 0, max_out = 0;
	int nrec = 0, i;
	bool sizes_ok = true, feat_ok, split = false;
	u8 *f, *out;
	u32 seed = 1;

	is(pd_writer_open(&w, path, 0), 0, "open");
	is(pd_writer_set_compression(w, 0, 0), -EINVAL, "level 0: -EINVAL");
	is(pd_writer_set_compression(w, 3, 64 * 1024), -EINVAL, "mmap_len 64 KiB: no room to carry");
	is(pd_writer_set_compression(w, 3, mmap_len), 0, "compression at level 3");
	a.sample_type |= PERF_SAMPLE_RAW;
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_begin(w);
	/* Incompressible raw data, so that chunks compress to many records. */
	for (i = 0; i < 3000; i++) {
		u8 raw[200];
		struct pd_sample s = { .pid = 1, .tid = 1, .time = i, .raw = raw };
		size_t k;

		for (k = 0; k < sizeof(raw); k++) {
			seed = seed * 1103515245 + 12345;
			raw[k] = seed >> 16;
		}
		s.raw_size = 1 + i % 199;
		pd_encode_sample(&b, &a, &s);
	}
	for (off = 0; off < b.len; off += 65536)
		pd_writer_write(w, b.data + off, 0); /* no-ops are fine */
	is(pd_writer_write(w, b.data, b.len), 0, "write 600 KB of records");
	is(pd_writer_close(w), 0, "close");

	f = slurp(path, &len);
	h = (const void *)f;
	if (!f)
		return;
	out = malloc(b.len + 1);
	d = ZSTD_createDStream();
	ZSTD_initDStream(d);
	for (off = h->data.offset; off < h->data.offset + h->data.size;) {
		struct pd_record_header rh;
		ZSTD_inBuffer in;
		size_t before = out_len;

		/* COMPRESSED records are not padded: the next one may start anywhere. */
		memcpy(&rh, f + off, sizeof(rh));
		in = (ZSTD_inBuffer){ f + off + 8, rh.size - 8u, 0 };
		if (rh.type != PD_RECORD_COMPRESSED || rh.size <= 8) {
			sizes_ok = false;
			break;
		}
		/* Decompress the record the way perf does: all of its input, nothing carried. */
		while (in.pos < in.size) {
			ZSTD_outBuffer o = { out + out_len, b.len - out_len, 0 };

			if (ZSTD_isError(ZSTD_decompressStream(d, &o, &in))) {
				sizes_ok = false;
				break;
			}
			out_len += o.pos;
			if (!o.pos && in.pos < in.size && out_len == b.len) {
				sizes_ok = false;
				break;
			}
		}
		if (rh.size == PD_RECORD_MAX)
			split = true;
		if (out_len - before > max_out)
			max_out = out_len - before;
		nrec++;
		off += rh.size;
	}
	ZSTD_freeDStream(d);
	ok(sizes_ok, "the data section is COMPRESSED records, each at most 65535 bytes");
	ok(nrec > 4 && split, "many records, a chunk split across full 65535-byte ones");
	diag("%d COMPRESSED records, at most %zu bytes out of one", nrec, max_out);
	ok(max_out <= mmap_len - 64 * 1024, "no record decompresses to more than mmap_len - 64 KiB");
	ok(out_len == b.len && !memcmp(out, b.data, b.len), "one stream: it decompresses to the records");
	ok(len > 4 && !memcmp(f + h->data.offset + 8, "\x28\xb5\x2f\xfd", 4),
	   "the first record opens the zstd frame");
	ok(feat_bit(h, PD_FEAT_COMPRESSED), "COMPRESSED feature bit");
	/* EVENT_DESC (bit 12), then COMPRESSED (bit 27); the table need not be aligned. */
	memcpy(sec, f + h->data.offset + h->data.size, sizeof(sec));
	memcpy(&cf, f + sec[1].offset, sizeof(cf));
	feat_ok = sec[1].size == 20 && cf.version == 0 && cf.type == PD_COMP_ZSTD &&
		  cf.level == 3 && cf.mmap_len == mmap_len && cf.ratio >= 1;
	ok(feat_ok, "COMPRESSED payload: {0, zstd, 3, ratio, mmap_len}");
	free(out);
	free(f);
	pd_buf_release(&b);
#else
	skip("compressed records", "built without zstd");
#endif
}

static void test_pipe(void)
{
	const char *path = path_in("pipe.data");
	struct perf_event_attr a = sw_attr(0), tp = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT, host = PD_BUF_INIT;
	static const char blob[13] = "tracing-blob";
	u64 ids[2] = { 7, 8 }, tid = 9;
	struct pd_writer *w;
	size_t len, off;
	u8 *f;
	const struct pd_record_header *rh;
	u64 last_feat = 0;
	bool order = true, marker = false, prec_bit = false;
	int attrs = 0, names = 0, feats = 0;

	tp.type = PERF_TYPE_TRACEPOINT;
	is(pd_writer_open(&w, path, PD_WRITER_PIPE), 0, "open in pipe mode");
	pd_writer_add_attr(w, &a, "cpu-clock", ids, 2);
	pd_writer_add_attr(w, &tp, "sched:sched_switch", &tid, 1);
	pd_buf_string(&host, "h");
	pd_writer_set_feature(w, PD_FEAT_HOSTNAME, host.data, host.len);
	pd_writer_set_feature(w, PD_FEAT_TRACING_DATA, blob, sizeof(blob));
	pd_writer_set_feature(w, PD_FEAT_STAT, NULL, 0);
	pd_writer_set_feature(w, PD_FEAT_PREC, "x", 1);
	is(pd_writer_begin(w), 0, "begin");
	samples(&b, &a, 7, 2);
	pd_writer_write(w, b.data, b.len);
	is(pd_writer_close(w), 0, "close");

	f = slurp(path, &len);
	if (!f)
		return;
	ok(*(u64 *)f == PD_MAGIC && ((u64 *)f)[1] == 16, "16-byte pipe header");
	for (off = 16; off + 8 <= len;) {
		rh = (const void *)(f + off);
		if (rh->size < 8 || off + rh->size > len)
			break;
		if (rh->type == PD_RECORD_HEADER_ATTR) {
			const struct perf_event_attr *fa = (const void *)(f + off + 8);

			ok(rh->size == 8 + 128 + 8 * (attrs ? 1 : 2) && fa->size == 128 &&
			   get_u64(f + off + 8 + 128) == (attrs ? 9 : 7), "HEADER_ATTR: attr, ids");
			attrs++;
		} else if (rh->type == PD_RECORD_EVENT_UPDATE) {
			names++;
		} else if (rh->type == PD_RECORD_HEADER_FEATURE) {
			u64 bit = get_u64(f + off + 8);

			if (bit <= last_feat || marker)
				order = false;
			if (bit == PD_FEAT_LAST_KNOWN)
				marker = true;
			if (bit == PD_FEAT_PREC || bit == PD_FEAT_STAT)
				prec_bit = true;
			ok(rh->size % 8 == 0, "HEADER_FEATURE padded to 8");
			last_feat = bit;
			feats++;
		} else if (rh->type == PD_RECORD_HEADER_TRACING_DATA) {
			u32 size = get_u32(f + off + 8);

			is(rh->size, 16, "HEADER_TRACING_DATA: a 16-byte record");
			is(size, 16, "whose size is the blob's, padded to 8");
			ok(marker, "after the end-of-features marker, as perf writes it");
			ok(!memcmp(f + off + 16, blob, sizeof(blob)) && f[off + 16 + 13] == 0,
			   "the blob follows the record, zero-padded");
			off += size; /* the blob is outside the record's size */
		} else {
			break;
		}
		off += rh->size;
	}
	is(attrs, 2, "two HEADER_ATTR records");
	is(names, 2, "an EVENT_UPDATE name per event");
	ok(order && marker, "HEADER_FEATURE in ascending order, ending with bit 32");
	ok(!prec_bit, "no HEADER_FEATURE perf would ignore (STAT) or reject (bit 64)");
	ok(feats >= 3, "HOSTNAME, EVENT_DESC and the marker at least");
	ok(off + b.len == len && !memcmp(f + off, b.data, b.len), "then the records");
	free(f);
	pd_buf_release(&b);
	pd_buf_release(&host);
}

/* A file whose writer never closed it: the header says data size 0; the reader recovers it. */
static void test_cut_short(void)
{
	const char *path = path_in("cut.data");
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	struct pd_writer *w;
	struct pd_reader *r;
	struct pd_event ev;
	int n = 0, err, fd;

	is(pd_writer_open(&w, path, 0), 0, "open");
	pd_writer_add_attr(w, &a, "cpu-clock", NULL, 0);
	pd_writer_begin(w);
	samples(&b, &a, 0, 25);
	pd_writer_write(w, b.data, b.len);
	is(pd_writer_flush(w), 0, "flush");
	/* Keep a copy of the file as a crash would leave it, then finish properly. */
	{
		size_t len;
		u8 *f = slurp(path, &len);

		fd = open(path_in("crash.data"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (f && fd >= 0 && write(fd, f, len - 20) != (ssize_t)(len - 20))
			diag("short write");
		if (fd >= 0)
			close(fd);
		free(f);
	}
	is(pd_writer_close(w), 0, "close");

	err = pd_reader_open(&r, path_in("crash.data"), 0);
	is(err, 0, "the reader opens the file cut short");
	if (err) {
		pd_buf_release(&b);
		return;
	}
	while (pd_reader_next(r, &ev) == 1)
		n++;
	is(n, 24, "all records but the cut one");
	ok(pd_reader_recovered(r), "and says it recovered");
	pd_reader_close(r);

	err = pd_reader_open(&r, path, 0);
	is(err, 0, "the reader opens the finished file");
	if (!err) {
		n = 0;
		while (pd_reader_next(r, &ev) == 1)
			n++;
		is(n, 25, "every record");
		ok(!pd_reader_recovered(r), "nothing to recover");
		is_str(pd_reader_attr_name(r, 0), "cpu-clock", "EVENT_DESC name read back");
		pd_reader_close(r);
	}
	pd_buf_release(&b);
}

/*
 * The data section as the recorder writes it: pieces of every size, a flush after each batch.
 * After every flush the file holds every byte given so far (what a killed recorder leaves, on
 * the O_DIRECT path too, whose partial last block goes through the page cache and is written
 * again whole later), and at the end the data section is exactly the records, in order.
 */
static void test_flushes(void)
{
	static const int pieces[] = { 1, 3, 100, 1, 2000, 7, 12000, 64, 1, 30000, 5, 511, 4096 };
	const char *path = path_in("flushes.data");
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf all = PD_BUF_INIT, b = PD_BUF_INIT;
	const struct pd_file_header *h;
	struct pd_writer *w;
	size_t len, given = 0, i;
	u64 data_off;
	int bad = 0;
	u8 *f;

	/* ids make the attrs section long, and the data start at no particular boundary */
	{
		u64 ids[37];

		for (i = 0; i < 37; i++)
			ids[i] = 100 + i;
		is(pd_writer_open(&w, path, 0), 0, "open");
		pd_writer_add_attr(w, &a, "x", ids, 37);
	}
	is(pd_writer_begin(w), 0, "begin");
	data_off = 104 + 37 * 8 + PD_FILE_ATTR_SIZE;
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		pd_buf_reset(&b);
		samples(&b, &a, 100, pieces[i]);
		pd_buf_append(&all, b.data, b.len);
		if (pd_writer_write(w, b.data, b.len) || pd_writer_flush(w))
			bad++;
		given += b.len;
		f = slurp(path, &len);
		if (!f || len < data_off + given || memcmp(f + data_off, all.data, given))
			bad++;
		if (f && memcmp(f, "PERFILE2", 8))
			bad++; /* the header block was written again whole, still the header */
		free(f);
	}
	is(bad, 0, "after each flush the file holds every record given so far");
	is(pd_writer_close(w), 0, "close");
	f = slurp(path, &len);
	h = (const void *)f;
	ok(f && h->data.offset == data_off && h->data.size == all.len &&
	   !memcmp(f + data_off, all.data, all.len), "the data section is the records, in order");
	ok(f && len > data_off + all.len + 16 && feat_bit(h, PD_FEAT_EVENT_DESC) &&
	   get_u64(f + data_off + all.len) >= data_off + all.len + 16 &&
	   get_u64(f + data_off + all.len) < len, "the feature table follows the data");
	free(f);
	pd_buf_release(&all);
	pd_buf_release(&b);
}

/*
 * Where the file system takes O_DIRECT (statx says so), the data section bypasses the page cache:
 * copying it there is most of what writing costs the recorder. Its blocks are not resident after
 * the close (mincore), but for the first and the last, which the page cache also wrote.
 */
static void test_direct(void)
{
	const char *path = path_in("direct.data");
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	struct pd_writer *w;
	size_t len, pages, resident = 0, i;
	void *map;
	int fd;

#ifdef STATX_DIOALIGN
	{
		struct statx stx;

		write_file(path, "");
		if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) ||
		    !(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_offset_align) {
			skip("O_DIRECT data", "the file system of /tmp takes no O_DIRECT");
			return;
		}
	}
#else
	skip("O_DIRECT data", "no statx STATX_DIOALIGN in these headers");
	return;
#endif
	unlink(path);
	is(pd_writer_open(&w, path, 0), 0, "open");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_begin(w);
	samples(&b, &a, 0, 50000); /* 2 MB */
	for (i = 0; i < 4; i++) {
		pd_writer_write(w, b.data, b.len);
		pd_writer_flush(w);
	}
	is(pd_writer_close(w), 0, "close after 8 MB of data in flushed batches");
	fd = open(path, O_RDONLY);
	len = (size_t)lseek(fd, 0, SEEK_END);
	pages = (len + page - 1) / page;
	map = fd >= 0 ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	vec = calloc(pages, 1);
	if (map == MAP_FAILED || !vec || mincore(map, len, vec)) {
		skip("O_DIRECT data", "mincore failed");
	} else {
		for (i = 0; i < pages; i++)
			resident += vec[i] & 1;
		diag("%zu of %zu pages resident", resident, pages);
		ok(resident < pages / 10, "the data did not go through the page cache");
	}
	if (map != MAP_FAILED)
		munmap(map, len);
	if (fd >= 0)
		close(fd);
	free(vec);
	pd_buf_release(&b);
}

/*
 * A write that fails when the file is closed (here the file size limit, as a full disk would)
 * leaves no half-written file at the path; the earlier file stays at path.old.
 */
static void test_close_fails(void)
{
	const char *path = path_in("toobig.data"), *old = path_in("toobig.data.old");
	struct perf_event_attr a = sw_attr(0);
	struct pd_buf b = PD_BUF_INIT;
	struct rlimit saved, lim;
	struct pd_writer *w;
	struct stat st;
	size_t len;
	u8 *f;
	int err;

	write_file(path, "the recording before");
	is(pd_writer_open(&w, path, 0), 0, "open over an earlier file");
	pd_writer_add_attr(w, &a, "x", NULL, 0);
	pd_writer_begin(w);
	samples(&b, &a, 0, 200);
	pd_writer_write(w, b.data, b.len);
	pd_writer_flush(w);
	if (getrlimit(RLIMIT_FSIZE, &saved) || stat(path, &st)) {
		skip("close fails", "no RLIMIT_FSIZE");
		pd_writer_abort(w);
		pd_buf_release(&b);
		return;
	}
	/* Room for the data, not for the features. */
	signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = (rlim_t)st.st_size + 4;
	setrlimit(RLIMIT_FSIZE, &lim);
	err = pd_writer_close(w);
	setrlimit(RLIMIT_FSIZE, &saved);
	signal(SIGXFSZ, SIG_DFL);
	is(err, -EFBIG, "close reports the failed write");
	ok(access(path, F_OK) != 0, "and leaves no half-written file behind");
	f = slurp(old, &len);
	ok(f && len == strlen("the recording before") && !memcmp(f, "the recording before", len),
	   "the earlier file is still at FILE.old");
	free(f);
	pd_buf_release(&b);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP mkdtemp failed\n");
		return 0;
	}
	test_file_layout();
	test_old_and_abort();
	test_symlinks();
	test_errors();
	test_empty_and_big();
	test_compressed();
	test_pipe();
	test_cut_short();
	test_flushes();
	test_direct();
	test_close_fails();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return done_testing();
}
