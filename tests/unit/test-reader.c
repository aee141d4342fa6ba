// SPDX-License-Identifier: GPL-2.0
/*
 * The reader on files built here byte by byte (not with the writer, so that a mistake shared by
 * both cannot hide): every sample_type bit perf 6.1 knows is decoded from a hand-laid record and
 * every truncation of it is refused; the sample_id trailer is read from the end; events are found
 * by id as perf finds them; arrays a file leaves misaligned still come out right; COMPRESSED
 * records decompress as one stream with events straddling records, bounded by mmap_len; pipe
 * mode applies its header records; a file whose writer never finished is recovered; bad headers
 * get an error naming the offset.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/internal.h"
#include "tests/tap.h"

/* ---------------------------------------------------------------------------------------- */
/* Building files */

static void rec_begin(struct pd_buf *b, u32 type, u16 misc, size_t *start)
{
	struct pd_record_header h = {type, misc, 0};

	*start = b->len;
	pd_buf_append(b, &h, sizeof(h));
}

static void rec_end(struct pd_buf *b, size_t start)
{
	u16 size = (u16)(b->len - start);

	memcpy(b->data + start + 6, &size, sizeof(size));
}

struct feat {
	unsigned bit;
	const void *data;
	size_t len;
};

struct file_attr {
	struct perf_event_attr attr;
	const u64 *ids;
	u32 nr_ids;
};

static char tmpdir[] = "/tmp/prec-test-reader.XXXXXX";
static int file_no;

/*
 * A file-mode perf.data as perf lays it out: header, id arrays, attrs, data, feature table,
 * feature payloads. data_size_zero leaves the header's data size at 0 (a killed writer).
 */
static char *write_file(const struct file_attr *attrs, int nr_attrs, const void *data,
			size_t data_len, const struct feat *feats, int nr_feats,
			bool data_size_zero)
{
	struct pd_file_header h = {0};
	struct pd_buf b = PD_BUF_INIT;
	u64 ids_off[8], pos;
	char *path;
	int fd;

	pd_buf_append(&b, NULL, sizeof(h));
	for (int i = 0; i < nr_attrs; i++) {
		ids_off[i] = b.len;
		pd_buf_append(&b, attrs[i].ids, attrs[i].nr_ids * sizeof(u64));
	}
	h.attrs.offset = b.len;
	for (int i = 0; i < nr_attrs; i++) {
		struct perf_event_attr a = attrs[i].attr;

		a.size = PD_ATTR_SIZE;
		pd_buf_append(&b, &a, sizeof(a));
		pd_buf_u64(&b, ids_off[i]);
		pd_buf_u64(&b, attrs[i].nr_ids * sizeof(u64));
	}
	h.attrs.size = b.len - h.attrs.offset;
	h.data.offset = b.len;
	pd_buf_append(&b, data, data_len);
	h.data.size = data_size_zero ? 0 : data_len;
	pos = b.len + 16 * (u64)nr_feats;
	for (int i = 0; i < nr_feats; i++) {
		pd_buf_u64(&b, pos);
		pd_buf_u64(&b, feats[i].len);
		pos += feats[i].len;
		h.features[feats[i].bit / 64] |= 1ULL << (feats[i].bit % 64);
	}
	for (int i = 0; i < nr_feats; i++)
		pd_buf_append(&b, feats[i].data, feats[i].len);
	h.magic = PD_MAGIC;
	h.size = sizeof(h);
	h.attr_size = PD_FILE_ATTR_SIZE;
	memcpy(b.data, &h, sizeof(h));

	if (asprintf(&path, "%s/f%d.data", tmpdir, file_no++) < 0)
		abort();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, b.data, b.len) != (ssize_t)b.len)
		abort();
	close(fd);
	pd_buf_release(&b);
	return path;
}

/* Open a file of one attr and these records; the first record handed out is returned. */
static struct pd_reader *open_records(const struct file_attr *attrs, int nr_attrs,
				      const struct pd_buf *data, const struct feat *feats,
				      int nr_feats)
{
	char *path = write_file(attrs, nr_attrs, data->data, data->len, feats, nr_feats, false);
	struct pd_reader *r;
	int err = pd_reader_open(&r, path, PD_READER_TRACING_IN_CHILD);

	if (err)
		diag("open %s: %s", path, pd_reader_errmsg(r));
	unlink(path);
	free(path);
	if (err) {
		pd_reader_close(r);
		return NULL;
	}
	return r;
}

static int open_bytes(const void *p, size_t len, struct pd_reader **r);

/* ---------------------------------------------------------------------------------------- */
/* Every sample_type bit */

#define ALL_BITS                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |         \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |               \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |                     \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                      \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static struct perf_event_attr full_attr(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = ALL_BITS;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7;    /* 3 registers */
	a.sample_regs_intr = 0x1100; /* 2 registers */
	a.sample_id_all = 1;
	return a;
}

/*
 * The sample of full_attr(), laid out by hand in sample_type bit order. raw_len is the RAW size
 * as written: 4 keeps what follows aligned, 3 does not (the arrays after it are then misaligned).
 */
static void build_full_sample(struct pd_buf *b, u32 raw_len, bool weight_struct)
{
	size_t start;

	rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &start);
	pd_buf_u64(b, 77);	   /* IDENTIFIER */
	pd_buf_u64(b, 0x401000);   /* IP */
	pd_buf_u32(b, 100);	   /* pid */
	pd_buf_u32(b, 101);	   /* tid */
	pd_buf_u64(b, 123456789);  /* TIME */
	pd_buf_u64(b, 0xdead0000); /* ADDR */
	pd_buf_u64(b, 77);	   /* ID */
	pd_buf_u64(b, 78);	   /* STREAM_ID */
	pd_buf_u32(b, 3);	   /* CPU */
	pd_buf_u32(b, 0);	   /* res */
	pd_buf_u64(b, 4000);	   /* PERIOD */
	/* READ, group: nr, enabled, running, then {value, id, lost} per member */
	pd_buf_u64(b, 2);
	pd_buf_u64(b, 1000);
	pd_buf_u64(b, 900);
	pd_buf_u64(b, 11);
	pd_buf_u64(b, 77);
	pd_buf_u64(b, 0);
	pd_buf_u64(b, 22);
	pd_buf_u64(b, 79);
	pd_buf_u64(b, 5);
	/* CALLCHAIN */
	pd_buf_u64(b, 3);
	pd_buf_u64(b, (u64)PERF_CONTEXT_USER);
	pd_buf_u64(b, 0x401000);
	pd_buf_u64(b, 0x402000);
	/* RAW */
	pd_buf_u32(b, raw_len);
	pd_buf_append(b, "abcd", raw_len);
	/* BRANCH_STACK with hw_idx: nr, hw_idx, {from, to, flags} */
	pd_buf_u64(b, 2);
	pd_buf_u64(b, 9);
	pd_buf_u64(b, 0x1000);
	pd_buf_u64(b, 0x2000);
	pd_buf_u64(b, 1);
	pd_buf_u64(b, 0x3000);
	pd_buf_u64(b, 0x4000);
	pd_buf_u64(b, 2);
	/* REGS_USER: abi, 3 registers */
	pd_buf_u64(b, PERF_SAMPLE_REGS_ABI_64);
	pd_buf_u64(b, 0xa0);
	pd_buf_u64(b, 0xa1);
	pd_buf_u64(b, 0xa2);
	/* STACK_USER: size, data, dyn_size */
	pd_buf_u64(b, 16);
	pd_buf_append(b, "0123456789abcdef", 16);
	pd_buf_u64(b, 12);
	/* WEIGHT or WEIGHT_STRUCT: one u64 */
	pd_buf_u64(b, weight_struct ? 0x0003000200000001ULL : 555);
	pd_buf_u64(b, 0x1234); /* DATA_SRC */
	pd_buf_u64(b, 0x8);    /* TRANSACTION */
	/* REGS_INTR: abi, 2 registers */
	pd_buf_u64(b, PERF_SAMPLE_REGS_ABI_64);
	pd_buf_u64(b, 0xb0);
	pd_buf_u64(b, 0xb1);
	pd_buf_u64(b, 0x7fff0000); /* PHYS_ADDR */
	pd_buf_u64(b, 42);	   /* CGROUP */
	pd_buf_u64(b, 4096);	   /* DATA_PAGE_SIZE */
	pd_buf_u64(b, 2097152);	   /* CODE_PAGE_SIZE */
	/* AUX: size, data */
	pd_buf_u64(b, 8);
	pd_buf_append(b, "AUXDATA!", 8);
	rec_end(b, start);
}

static bool aligned(const void *p)
{
	return ((uintptr_t)p & 7) == 0;
}

static void check_full_sample(const struct pd_sample *s, u32 raw_len, bool weight_struct,
			      const char *what)
{
	char d[160];

#define CHECK(cond, name)                                                                          \
	do {                                                                                       \
		snprintf(d, sizeof(d), "%s: %s", what, name);                                      \
		ok(cond, d);                                                                       \
	} while (0)

	CHECK(s->misc == PERF_RECORD_MISC_USER, "misc");
	CHECK(s->id == 77, "IDENTIFIER / ID");
	CHECK(s->ip == 0x401000, "IP");
	CHECK(s->pid == 100 && s->tid == 101, "TID");
	CHECK(s->time == 123456789, "TIME");
	CHECK(s->addr == 0xdead0000, "ADDR");
	CHECK(s->stream_id == 78, "STREAM_ID");
	CHECK(s->cpu == 3, "CPU");
	CHECK(s->period == 4000, "PERIOD");
	CHECK(s->read.nr == 2 && s->read.time_enabled == 1000 && s->read.time_running == 900,
	      "READ group header");
	CHECK(s->read.values && s->read.values[0].value == 11 && s->read.values[0].id == 77 &&
		  s->read.values[0].lost == 0 && s->read.values[1].value == 22 &&
		  s->read.values[1].id == 79 && s->read.values[1].lost == 5,
	      "READ group values with id and lost");
	CHECK(s->callchain_nr == 3 && s->callchain && aligned(s->callchain) &&
		  s->callchain[0] == (u64)PERF_CONTEXT_USER && s->callchain[2] == 0x402000,
	      "CALLCHAIN");
	CHECK(s->raw_size == raw_len && s->raw && !memcmp(s->raw, "abcd", raw_len), "RAW");
	CHECK(s->branch_nr == 2 && s->branch_hw_idx == 9 && s->branches && aligned(s->branches) &&
		  s->branches[0].from == 0x1000 && s->branches[1].to == 0x4000 &&
		  s->branches[1].flags == 2,
	      "BRANCH_STACK with hw_idx");
	CHECK(s->user_regs.abi == PERF_SAMPLE_REGS_ABI_64 && s->user_regs.mask == 0x7 &&
		  s->user_regs.regs && aligned(s->user_regs.regs) && s->user_regs.regs[0] == 0xa0 &&
		  s->user_regs.regs[2] == 0xa2,
	      "REGS_USER");
	CHECK(s->user_stack_size == 16 && s->user_stack_dyn_size == 12 && s->user_stack &&
		  !memcmp(s->user_stack, "0123456789abcdef", 16),
	      "STACK_USER size, data, dyn_size");
	CHECK(s->weight == (weight_struct ? 0x0003000200000001ULL : 555),
	      weight_struct ? "WEIGHT_STRUCT" : "WEIGHT");
	CHECK(s->data_src == 0x1234, "DATA_SRC");
	CHECK(s->transaction == 0x8, "TRANSACTION");
	CHECK(s->intr_regs.abi == PERF_SAMPLE_REGS_ABI_64 && s->intr_regs.mask == 0x1100 &&
		  s->intr_regs.regs && aligned(s->intr_regs.regs) && s->intr_regs.regs[0] == 0xb0 &&
		  s->intr_regs.regs[1] == 0xb1,
	      "REGS_INTR");
	CHECK(s->phys_addr == 0x7fff0000, "PHYS_ADDR");
	CHECK(s->cgroup == 42, "CGROUP");
	CHECK(s->data_page_size == 4096, "DATA_PAGE_SIZE");
	CHECK(s->code_page_size == 2097152, "CODE_PAGE_SIZE");
	CHECK(s->aux_size == 8 && s->aux && !memcmp(s->aux, "AUXDATA!", 8), "AUX");
#undef CHECK
}

/* The first record of r that has the given type. */
static const struct pd_record_header *first_of(struct pd_reader *r, u32 type)
{
	struct pd_event ev;

	while (pd_reader_next(r, &ev) == 1)
		if (ev.header->type == type)
			return ev.header;
	return NULL;
}

static void test_every_bit(bool weight_struct)
{
	struct file_attr fa = {full_attr(), (const u64[]){77, 79}, 2};
	struct pd_buf data = PD_BUF_INIT;
	const struct pd_record_header *h;
	struct pd_reader *r;
	struct pd_sample s;
	int idx = -1;

	if (weight_struct)
		fa.attr.sample_type ^= PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	build_full_sample(&data, 4, weight_struct);
	r = open_records(&fa, 1, &data, NULL, 0);
	ok(r, "a file with a sample of every sample_type bit opens");
	if (!r)
		goto out;
	h = first_of(r, PERF_RECORD_SAMPLE);
	ok(h, "the sample comes back");
	if (h) {
		is(pd_reader_parse_sample(r, h, &s, &idx), 0, "it decodes");
		is(idx, 0, "its attr");
		is(s.sample_type, fa.attr.sample_type, "sample_type is the attr's");
		check_full_sample(&s, 4, weight_struct,
				  weight_struct ? "weight_struct" : "all bits");
	}
	pd_reader_close(r);
out:
	pd_buf_release(&data);
}

/* An odd RAW size leaves the branch stack and the registers misaligned: they must still be right.
 */
static void test_misaligned(void)
{
	struct file_attr fa = {full_attr(), (const u64[]){77}, 1};
	struct pd_buf data = PD_BUF_INIT;
	const struct pd_record_header *h;
	struct pd_reader *r;
	struct pd_sample s;

	build_full_sample(&data, 3, false);
	pd_buf_pad(&data, 8);
	{
		u16 size = (u16)data.len;

		memcpy(data.data + 6, &size, 2); /* the padding is part of the record */
	}
	r = open_records(&fa, 1, &data, NULL, 0);
	h = r ? first_of(r, PERF_RECORD_SAMPLE) : NULL;
	ok(h, "a sample with a 3-byte RAW field comes back");
	if (h) {
		is(pd_reader_parse_sample(r, h, &s, NULL), 0, "it decodes");
		check_full_sample(&s, 3, false, "misaligned after RAW");
	}
	pd_reader_close(r);
	pd_buf_release(&data);
}

/* Every shorter size of the full sample is refused with an error that names the record. */
static void test_truncated_samples(void)
{
	struct file_attr fa = {full_attr(), (const u64[]){77}, 1};
	struct pd_buf data = PD_BUF_INIT, cut = PD_BUF_INIT;
	struct pd_reader *r;
	struct pd_sample s;
	int refused = 0, named = 0, tries = 0;
	u16 full;

	build_full_sample(&data, 4, false);
	memcpy(&full, data.data + 6, 2);
	for (u16 size = 8; size < full; size += 8) {
		const struct pd_record_header *h;

		pd_buf_reset(&cut);
		pd_buf_append(&cut, data.data, size);
		memcpy(cut.data + 6, &size, 2);
		r = open_records(&fa, 1, &cut, NULL, 0);
		h = r ? first_of(r, PERF_RECORD_SAMPLE) : NULL;
		tries++;
		if (h && pd_reader_parse_sample(r, h, &s, NULL) == -EINVAL) {
			refused++;
			named += strstr(pd_reader_errmsg(r), "at offset 0x") &&
				 strstr(pd_reader_errmsg(r), "record type 9 (SAMPLE)");
		}
		pd_reader_close(r);
	}
	is(refused, tries, "every truncation of the sample is refused with -EINVAL");
	is(named, tries, "and the error names the offset and the record");

	/* Sizes inside a field that say too much: a callchain of 2^61 entries. */
	pd_buf_reset(&cut);
	pd_buf_append(&cut, data.data, data.len);
	{
		u64 huge = 1ULL << 61;
		size_t at = 8 + 8 * 9 + 8 * 9; /* header, fixed fields, the READ group */

		memcpy(cut.data + at, &huge, 8);
	}
	r = open_records(&fa, 1, &cut, NULL, 0);
	if (r) {
		const struct pd_record_header *h = first_of(r, PERF_RECORD_SAMPLE);

		is(h ? pd_reader_parse_sample(r, h, &s, NULL) : 0, -EINVAL,
		   "a callchain count past the record end is refused");
		ok(strstr(pd_reader_errmsg(r), "callchain"), "and the error says what");
	}
	pd_reader_close(r);
	pd_buf_release(&data);
	pd_buf_release(&cut);
}

/* Variations: non-group READ, no hw_idx, registers with abi 0, an empty user stack. */
static void test_variants(void)
{
	struct file_attr fa;
	struct pd_buf data = PD_BUF_INIT;
	const struct pd_record_header *h;
	struct pd_reader *r;
	struct pd_sample s;
	size_t start;

	memset(&fa, 0, sizeof(fa));
	fa.attr.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			      PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR;
	fa.attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fa.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	fa.attr.sample_regs_user = 0xff;
	fa.attr.sample_regs_intr = 0x1;
	rec_begin(&data, PERF_RECORD_SAMPLE, 0, &start);
	pd_buf_u64(&data, 500); /* value */
	pd_buf_u64(&data, 60);	/* time_running */
	pd_buf_u64(&data, 7);	/* id */
	pd_buf_u64(&data, 1);	/* branch nr, no hw_idx */
	pd_buf_u64(&data, 0xa);
	pd_buf_u64(&data, 0xb);
	pd_buf_u64(&data, 0xc);
	pd_buf_u64(&data, 0); /* user regs abi 0: no registers */
	pd_buf_u64(&data, 0); /* user stack size 0: no data, no dyn_size */
	pd_buf_u64(&data, PERF_SAMPLE_REGS_ABI_64);
	pd_buf_u64(&data, 0xee);
	rec_end(&data, start);
	r = open_records(&fa, 1, &data, NULL, 0);
	h = r ? first_of(r, PERF_RECORD_SAMPLE) : NULL;
	ok(h, "variant sample comes back");
	if (h) {
		is(pd_reader_parse_sample(r, h, &s, NULL), 0, "variant decodes");
		ok(s.read.nr == 1 && s.read.values[0].value == 500 && s.read.values[0].id == 7 &&
		       s.read.time_running == 60 && s.read.time_enabled == 0,
		   "READ without GROUP: value, time_running, id");
		ok(s.branch_nr == 1 && s.branch_hw_idx == 0 && s.branches[0].from == 0xa &&
		       s.branches[0].flags == 0xc,
		   "BRANCH_STACK without hw_idx");
		ok(s.user_regs.abi == 0 && !s.user_regs.regs,
		   "REGS_USER with abi 0 has no registers");
		ok(s.user_stack_size == 0 && !s.user_stack && s.user_stack_dyn_size == 0,
		   "STACK_USER of size 0 has no data and no dyn_size");
		ok(s.intr_regs.abi == PERF_SAMPLE_REGS_ABI_64 && s.intr_regs.regs[0] == 0xee,
		   "REGS_INTR after them");
	}
	pd_reader_close(r);

	/* dyn_size above size is what perf calls a stack dump failure */
	pd_buf_reset(&data);
	fa.attr.sample_type = PERF_SAMPLE_STACK_USER;
	rec_begin(&data, PERF_RECORD_SAMPLE, 0, &start);
	pd_buf_u64(&data, 8);
	pd_buf_u64(&data, 0);
	pd_buf_u64(&data, 9);
	rec_end(&data, start);
	r = open_records(&fa, 1, &data, NULL, 0);
	h = r ? first_of(r, PERF_RECORD_SAMPLE) : NULL;
	is(h ? pd_reader_parse_sample(r, h, &s, NULL) : 0, -EINVAL,
	   "a user stack dyn_size above its size is refused");
	pd_reader_close(r);
	pd_buf_release(&data);
}

/* ---------------------------------------------------------------------------------------- */
/* Trailers and the id -> attr lookup */

static void add_comm(struct pd_buf *b, u64 id, u32 pid, u64 time, u32 cpu)
{
	size_t start;

	rec_begin(b, PERF_RECORD_COMM, 0, &start);
	pd_buf_u32(b, pid);
	pd_buf_u32(b, pid);
	pd_buf_append(b, "prog\0\0\0\0", 8);
	/* trailer for TID|TIME|CPU|IDENTIFIER: pid/tid, time, cpu, identifier */
	pd_buf_u32(b, pid);
	pd_buf_u32(b, pid + 1);
	pd_buf_u64(b, time);
	pd_buf_u32(b, cpu);
	pd_buf_u32(b, 0);
	pd_buf_u64(b, id);
	rec_end(b, start);
}

static void add_sample(struct pd_buf *b, u64 id, u64 ip)
{
	size_t start;

	rec_begin(b, PERF_RECORD_SAMPLE, 0, &start);
	pd_buf_u64(b, id); /* IDENTIFIER */
	pd_buf_u64(b, ip); /* IP */
	pd_buf_u32(b, 1);
	pd_buf_u32(b, 2); /* TID */
	pd_buf_u64(b, 5); /* TIME */
	pd_buf_u32(b, 1);
	pd_buf_u32(b, 0); /* CPU */
	rec_end(b, start);
}

/* Decode the first SAMPLE with this ip; its return value, or -1 when there is none. */
static int seek_sample(struct pd_reader *r, u64 ip, struct pd_sample *s, int *idx)
{
	struct pd_event ev;

	pd_reader_rewind(r);
	while (pd_reader_next(r, &ev) == 1) {
		const u8 *body = (const u8 *)(ev.header + 1);
		int ret;

		if (ev.header->type != PERF_RECORD_SAMPLE || pd_get_u64(body + 8) != ip)
			continue;
		*idx = -1;
		ret = pd_reader_parse_sample(r, ev.header, s, idx);
		return ret;
	}
	return -1;
}

static void test_ids(void)
{
	struct file_attr fa[2];
	struct pd_buf data = PD_BUF_INIT;
	struct pd_reader *r;
	struct pd_event ev;
	struct pd_sample s;
	int idx, n = 0, got[4] = {-1, -1, -1, -1};

	memset(fa, 0, sizeof(fa));
	for (int i = 0; i < 2; i++) {
		fa[i].attr.type = PERF_TYPE_SOFTWARE;
		fa[i].attr.config = i;
		fa[i].attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		fa[i].attr.sample_id_all = 1;
	}
	fa[0].ids = (const u64[]){10, 11};
	fa[0].nr_ids = 2;
	fa[1].ids = (const u64[]){20};
	fa[1].nr_ids = 1;
	add_sample(&data, 20, 0x1);
	add_sample(&data, 11, 0x2);
	add_sample(&data, 0, 0x3);
	add_comm(&data, 20, 300, 777, 1);
	add_sample(&data, 99, 0x4);
	r = open_records(fa, 2, &data, NULL, 0);
	ok(r, "two events open");
	if (!r)
		goto out;
	is(pd_reader_nr_attrs(r), 2, "two attrs");
	is(pd_reader_attr_by_id(r, 20), 1, "id 20 is the second event");
	is(pd_reader_attr_by_id(r, 10), 0, "id 10 is the first");
	is(pd_reader_attr_by_id(r, 0), 0, "id 0 is the first, as perf takes it");
	is(pd_reader_attr_by_id(r, 12345), -ENOENT, "an unknown id is -ENOENT");
	while (n < 4 && pd_reader_next(r, &ev) == 1) {
		is(pd_reader_parse_sample(r, ev.header, &s, &idx), 0, "record decodes");
		got[n++] = idx;
		if (ev.header->type == PERF_RECORD_COMM) {
			ok(s.pid == 300 && s.tid == 301 && s.time == 777 && s.cpu == 1 &&
			       s.id == 20,
			   "the COMM trailer, read from the end");
			is(s.sample_type,
			   PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
			   "the trailer's fields, no IP");
		}
	}
	ok(got[0] == 1 && got[1] == 0 && got[2] == 0 && got[3] == 1,
	   "samples and the trailer find their events by id");
	ok(pd_reader_next(r, &ev) == 1 && pd_reader_parse_sample(r, ev.header, &s, &idx) == -ENOENT,
	   "a sample whose id no event has is -ENOENT");
	ok(strstr(pd_reader_errmsg(r), "99"), "and the error names the id");
	pd_reader_close(r);

	/* One event takes every id */
	r = open_records(fa, 1, &data, NULL, 0);
	if (r) {
		is(pd_reader_attr_by_id(r, 99), 0, "a single event takes any id");
		ok(seek_sample(r, 0x4, &s, &idx) == 0 && idx == 0,
		   "and so does its sample with an unknown id");
		pd_reader_close(r);
	}

	/*
	 * Without sample_id_all, perf's evlist__event2evsel() still looks a SAMPLE's id up and
	 * finds no event for an unknown one; only the other records go to the first event.
	 */
	fa[0].attr.sample_id_all = fa[1].attr.sample_id_all = 0;
	r = open_records(fa, 2, &data, NULL, 0);
	ok(r, "two events without sample_id_all open");
	if (r) {
		ok(seek_sample(r, 0x1, &s, &idx) == 0 && idx == 1,
		   "without sample_id_all a sample still finds its event by id");
		ok(seek_sample(r, 0x4, &s, &idx) == -ENOENT,
		   "and a sample whose id no event has is -ENOENT, not the first event");
		pd_reader_close(r);
	}
out:
	pd_buf_release(&data);
}

/*
 * A file of nr_attrs attrs whose id sections all point at the same nr_ids ids (overlap) or at
 * consecutive slices of them (one nr_ids / nr_attrs each), with one FINISHED_ROUND as data.
 */
static void build_shared_ids(struct pd_buf *b, int nr_attrs, u32 nr_ids, bool overlap)
{
	struct pd_file_header h = {0};
	struct perf_event_attr a;
	u32 per = nr_ids / nr_attrs;
	size_t start;

	pd_buf_append(b, NULL, sizeof(h));
	for (u32 i = 0; i < nr_ids; i++)
		pd_buf_u64(b, 1000 + i);
	h.attrs.offset = b->len;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = PD_ATTR_SIZE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	for (int i = 0; i < nr_attrs; i++) {
		pd_buf_append(b, &a, sizeof(a));
		pd_buf_u64(b, sizeof(h) + (overlap ? 0 : 8 * (u64)per * i));
		pd_buf_u64(b, 8 * (u64)(overlap ? nr_ids : per));
	}
	h.attrs.size = b->len - h.attrs.offset;
	h.data.offset = b->len;
	rec_begin(b, PD_RECORD_FINISHED_ROUND, 0, &start);
	rec_end(b, start);
	h.data.size = b->len - h.data.offset;
	h.magic = PD_MAGIC;
	h.size = sizeof(h);
	h.attr_size = PD_FILE_ATTR_SIZE;
	memcpy(b->data, &h, sizeof(h));
}

/* Every attr copies its ids: arrays that overlap would let a small file take gigabytes. */
static void test_shared_ids(void)
{
	struct pd_buf b = PD_BUF_INIT;
	struct pd_reader *r;
	u32 nr;

	build_shared_ids(&b, 4, 1000, false);
	is(open_bytes(b.data, b.len, &r), 0, "attrs with disjoint id arrays open");
	ok(r && pd_reader_attr_ids(r, 3, &nr) && nr == 250 && pd_reader_attr_by_id(r, 1999) == 3,
	   "each has its own ids");
	pd_reader_close(r);
	pd_buf_reset(&b);

	build_shared_ids(&b, 4, 1000, true);
	ok(open_bytes(b.data, b.len, &r) == -EINVAL && strstr(pd_reader_errmsg(r), "overlap"),
	   "attrs whose id arrays all point at one region are refused");
	ok(strstr(pd_reader_errmsg(r), "at offset 0x"), "the error names the offset");
	diag("%s", pd_reader_errmsg(r));
	pd_reader_close(r);
	pd_buf_release(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* Compressed records */

#ifdef HAVE_ZSTD
static void add_compressed(struct pd_buf *out, struct pd_zstd *z, const void *p, size_t len)
{
	struct pd_buf c = PD_BUF_INIT;
	size_t start;

	pd_zstd_compress(z, p, len, &c);
	rec_begin(out, PD_RECORD_COMPRESSED, 0, &start);
	pd_buf_append(out, c.data, c.len);
	rec_end(out, start);
	pd_buf_release(&c);
}

static void test_compressed(void)
{
	struct file_attr fa;
	struct pd_buf inner = PD_BUF_INIT, data = PD_BUF_INIT;
	struct pd_compressed_feature cf = {0, PD_COMP_ZSTD, 1, 1, 4096};
	struct feat feat = {PD_FEAT_COMPRESSED, &cf, sizeof(cf)};
	struct pd_reader *r;
	struct pd_event ev;
	struct pd_zstd *z;
	size_t cut, finished_round;
	int samples = 0, comp = 0, in_order = 1, compressed_flag = 1;
	u64 next_ip = 1;

	memset(&fa, 0, sizeof(fa));
	fa.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	for (u64 i = 1; i <= 100; i++)
		add_sample(&inner, 0, i);
	if (pd_zstd_compressor_new(&z, 1)) {
		skip("compressed records", "no zstd compressor");
		return;
	}
	/* Two COMPRESSED records cut mid-event, an uncompressed record between them. */
	cut = inner.len / 2 + 3;
	add_compressed(&data, z, inner.data, cut);
	rec_begin(&data, PD_RECORD_FINISHED_ROUND, 0, &finished_round);
	rec_end(&data, finished_round);
	add_compressed(&data, z, inner.data + cut, inner.len - cut);
	pd_zstd_free(z);

	r = open_records(&fa, 1, &data, &feat, 1);
	ok(r, "a file with COMPRESSED records opens");
	if (!r)
		goto out;
	while (pd_reader_next(r, &ev) == 1) {
		struct pd_sample s;

		if (ev.header->type == PD_RECORD_COMPRESSED) {
			comp++;
			continue;
		}
		if (ev.header->type != PERF_RECORD_SAMPLE)
			continue;
		compressed_flag &= ev.compressed;
		if (pd_reader_parse_sample(r, ev.header, &s, NULL) || s.ip != next_ip)
			in_order = 0;
		next_ip++;
		samples++;
	}
	is(comp, 2, "both COMPRESSED records are handed out");
	is(samples, 100, "every sample comes out, the one straddling two records too");
	ok(in_order, "in order");
	ok(compressed_flag, "marked as decompressed");
	pd_reader_close(r);

	/* mmap_len below what one record decompresses to: refused, as perf refuses it */
	cf.mmap_len = 256;
	r = open_records(&fa, 1, &data, &feat, 1);
	if (r) {
		int ret;

		while ((ret = pd_reader_next(r, &ev)) == 1)
			;
		is(ret, -EINVAL, "output beyond mmap_len is refused");
		ok(strstr(pd_reader_errmsg(r), "mmap_len"), "and the error says so");
		pd_reader_close(r);
	}

	/* no HEADER_COMPRESSED at all */
	r = open_records(&fa, 1, &data, NULL, 0);
	if (r) {
		int ret;

		while ((ret = pd_reader_next(r, &ev)) == 1)
			;
		is(ret, -EINVAL, "COMPRESSED records without HEADER_COMPRESSED are refused");
		ok(strstr(pd_reader_errmsg(r), "record type 81 (COMPRESSED)"),
		   "the error names the record");
		pd_reader_close(r);
	}

	/* garbage in the payload */
	cf.mmap_len = 4096;
	for (size_t i = 8; i < 64 && i < data.len; i++)
		data.data[i] ^= 0x5a;
	r = open_records(&fa, 1, &data, &feat, 1);
	if (r) {
		int ret;

		while ((ret = pd_reader_next(r, &ev)) == 1)
			;
		is(ret, -EINVAL, "a garbage zstd payload is refused");
		pd_reader_close(r);
	}
out:
	pd_buf_release(&inner);
	pd_buf_release(&data);
}

/*
 * A HEADER_TRACING_DATA record inside compressed data announces a payload that would follow it
 * there: waiting for it would keep every decompressed byte. It is refused where it stands.
 */
static void test_compressed_tracing_data(void)
{
	struct file_attr fa;
	struct pd_buf chunk = PD_BUF_INIT, data = PD_BUF_INIT;
	struct pd_compressed_feature cf = {0, PD_COMP_ZSTD, 1, 1, 8192};
	struct feat feat = {PD_FEAT_COMPRESSED, &cf, sizeof(cf)};
	struct pd_reader *r;
	struct pd_event ev;
	struct pd_zstd *z;
	size_t start;
	int ret, comp = 0;

	memset(&fa, 0, sizeof(fa));
	fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (pd_zstd_compressor_new(&z, 1)) {
		skip("tracing data inside compressed data", "no zstd compressor");
		return;
	}
	rec_begin(&chunk, PD_RECORD_HEADER_TRACING_DATA, 0, &start);
	pd_buf_u32(&chunk, 0x7ffffff0); /* the payload it announces */
	pd_buf_u32(&chunk, 0);
	rec_end(&chunk, start);
	pd_buf_append(&chunk, NULL, 4096 - chunk.len);
	add_compressed(&data, z, chunk.data, chunk.len);
	pd_buf_reset(&chunk);
	pd_buf_append(&chunk, NULL, 4096);
	for (int i = 0; i < 32; i++)
		add_compressed(&data, z, chunk.data, chunk.len);
	pd_zstd_free(z);

	r = open_records(&fa, 1, &data, &feat, 1);
	ok(r, "a file with tracing data in a COMPRESSED record opens");
	if (r) {
		while ((ret = pd_reader_next(r, &ev)) == 1)
			comp += ev.header->type == PD_RECORD_COMPRESSED;
		is(ret, -EINVAL, "tracing data inside compressed data is refused");
		ok(strstr(pd_reader_errmsg(r), "tracing data inside compressed data"),
		   "and the error says so");
		is(comp, 1, "at the first COMPRESSED record, with nothing kept waiting for more");
		diag("%s", pd_reader_errmsg(r));
		pd_reader_close(r);
	}
	pd_buf_release(&chunk);
	pd_buf_release(&data);
}
#endif

/* ---------------------------------------------------------------------------------------- */
/* Pipe mode */

static void test_pipe(void)
{
	struct pd_buf s = PD_BUF_INIT;
	struct perf_event_attr a;
	struct pd_reader *r;
	struct pd_event ev;
	int fds[2], n = 0, samples = 0, ret;
	size_t start;
	u64 pipe_hdr[2] = {PD_MAGIC, 16};

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = PD_ATTR_SIZE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	pd_buf_append(&s, pipe_hdr, sizeof(pipe_hdr));
	/* HEADER_ATTR: the attr then its ids */
	rec_begin(&s, PD_RECORD_HEADER_ATTR, 0, &start);
	pd_buf_append(&s, &a, sizeof(a));
	pd_buf_u64(&s, 5);
	rec_end(&s, start);
	/* HEADER_FEATURE: hostname, an odd size as perf writes them */
	rec_begin(&s, PD_RECORD_HEADER_FEATURE, 0, &start);
	pd_buf_u64(&s, PD_FEAT_HOSTNAME);
	pd_buf_u32(&s, 4);
	pd_buf_append(&s, "box", 4);
	pd_buf_append(&s, "", 1); /* 25 bytes: the records after it are misaligned */
	rec_end(&s, start);
	/* EVENT_UPDATE NAME */
	rec_begin(&s, PD_RECORD_EVENT_UPDATE, 0, &start);
	pd_buf_u64(&s, PD_EVENT_UPDATE_NAME);
	pd_buf_u64(&s, 5);
	pd_buf_append(&s, "my-event\0\0\0\0\0\0\0\0", 16);
	rec_end(&s, start);
	add_sample(&s, 5, 0x10);
	add_sample(&s, 5, 0x20);
	pd_buf_append(&s, "\x09\0\0\0", 4); /* the start of a record the writer never finished */

	if (pipe(fds)) {
		skip("pipe mode", "no pipe");
		pd_buf_release(&s);
		return;
	}
	if (fork() == 0) {
		close(fds[0]);
		if (write(fds[1], s.data, s.len) != (ssize_t)s.len)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	is(pd_reader_open_fd(&r, fds[0], PD_READER_TRACING_IN_CHILD), 0,
	   "a pipe-mode stream opens");
	ok(pd_reader_is_pipe(r), "in pipe mode");
	while ((ret = pd_reader_next(r, &ev)) == 1) {
		struct pd_sample smp;

		n++;
		if (ev.header->type == PERF_RECORD_SAMPLE &&
		    !pd_reader_parse_sample(r, ev.header, &smp, NULL))
			samples++;
		ok(((uintptr_t)ev.header & 7) == 0, "records are handed out aligned");
	}
	is(ret, 0, "it ends cleanly");
	is(n, 5, "the header records are handed out too");
	is(samples, 2, "both samples decode with the attr from HEADER_ATTR");
	is(pd_reader_nr_attrs(r), 1, "HEADER_ATTR added the event");
	is_str(pd_reader_attr_name(r, 0), "my-event", "EVENT_UPDATE named it");
	{
		size_t len;
		const char *host = pd_reader_feature(r, PD_FEAT_HOSTNAME, &len);

		ok(host && len == 9 && !strcmp(host + 4, "box"), "HEADER_FEATURE is the feature");
	}
	ok(pd_reader_recovered(r), "the unfinished last record is noticed");
	pd_reader_close(r);
	close(fds[0]);
	wait(NULL);
	pd_buf_release(&s);
}

/* ---------------------------------------------------------------------------------------- */
/* Whole-file checks */

static int open_bytes(const void *p, size_t len, struct pd_reader **r)
{
	char *path;
	int fd, err;

	if (asprintf(&path, "%s/b%d.data", tmpdir, file_no++) < 0)
		abort();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, p, len) != (ssize_t)len)
		abort();
	close(fd);
	err = pd_reader_open(r, path, PD_READER_TRACING_IN_CHILD);
	unlink(path);
	free(path);
	return err;
}

static void test_headers(void)
{
	struct file_attr fa;
	struct pd_buf data = PD_BUF_INIT;
	const char *name = "cpu-clock";
	struct pd_buf desc = PD_BUF_INIT;
	struct feat feat[2];
	struct pd_reader *r;
	struct pd_event ev;
	u8 *file;
	size_t len;
	char *path;
	int n = 0;

	memset(&fa, 0, sizeof(fa));
	fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	for (int i = 0; i < 10; i++)
		add_comm(&data, 0, 1, 1, 0);
	/* EVENT_DESC: nr, attr_sz, then attr, nr_ids, name, ids */
	pd_buf_u32(&desc, 1);
	pd_buf_u32(&desc, sizeof(fa.attr));
	pd_buf_append(&desc, &fa.attr, sizeof(fa.attr));
	pd_buf_u32(&desc, 0);
	pd_buf_string(&desc, name);
	feat[0] = (struct feat){PD_FEAT_EVENT_DESC, desc.data, desc.len};
	/* a bit perf 6.1 does not know: its entry still comes in bit order */
	feat[1] = (struct feat){PD_FEAT_PREC, "prec-own", 8};

	path = write_file(&fa, 1, data.data, data.len, feat, 2, false);
	is(pd_reader_open(&r, path, PD_READER_TRACING_IN_CHILD), 0, "a plain file opens");
	is_str(pd_reader_attr_name(r, 0), "cpu-clock", "EVENT_DESC names the event");
	ok(pd_reader_has_feature(r, PD_FEAT_EVENT_DESC), "the feature is there");
	ok(!pd_reader_has_feature(r, PD_FEAT_HOSTNAME), "others are not");
	{
		size_t flen;
		const char *own = pd_reader_feature(r, PD_FEAT_PREC, &flen);

		ok(own && flen == 8 && !memcmp(own, "prec-own", 8),
		   "a feature bit above 31 has its entry and payload");
	}
	while (pd_reader_next(r, &ev) == 1)
		n++;
	is(n, 10, "ten records");
	is(pd_reader_data_read(r), data.len, "all of the data was read");
	ok(!pd_reader_recovered(r), "nothing to recover");
	is(pd_reader_rewind(r), 0, "rewind");
	n = 0;
	while (pd_reader_next(r, &ev) == 1)
		n++;
	is(n, 10, "ten records again");
	pd_reader_close(r);
	{
		FILE *f = fopen(path, "rb");

		file = malloc(1 << 16);
		len = f ? fread(file, 1, 1 << 16, f) : 0;
		if (f)
			fclose(f);
	}
	unlink(path);
	free(path);

#define EXPECT_FAIL(desc_, needle)                                                                 \
	do {                                                                                       \
		int _e = open_bytes(file, len, &r);                                                \
		ok(_e < 0 && strstr(pd_reader_errmsg(r), needle), desc_);                          \
		if (_e >= 0 || !strstr(pd_reader_errmsg(r), needle))                               \
			diag("got %d: %s", _e, pd_reader_errmsg(r));                               \
		pd_reader_close(r);                                                                \
	} while (0)

	{
		u8 save[104];
		u64 v;

		memcpy(save, file, sizeof(save));
		memcpy(file, "PERFILE2", 8);
		for (int i = 0; i < 4; i++) { /* big-endian: the magic byte-swapped */
			u8 t = file[i];

			file[i] = file[7 - i];
			file[7 - i] = t;
		}
		EXPECT_FAIL("a byte-swapped magic is a big-endian file, refused", "big-endian");
		memcpy(file, "PERFFILE", 8);
		EXPECT_FAIL("the legacy PERFFILE magic is refused", "PERFFILE");
		memcpy(file, "NOTPERF!", 8);
		EXPECT_FAIL("a bad magic is refused", "bad magic");
		memcpy(file, save, sizeof(save));

		v = 50;
		memcpy(file + 8, &v, 8);
		EXPECT_FAIL("a header size that is not 104 or 72 is refused", "at offset 0x8");
		memcpy(file, save, sizeof(save));

		v = 72; /* the old header, without the feature bitmap */
		memcpy(file + 8, &v, 8);
		if (open_bytes(file, len, &r) == 0) {
			n = 0;
			while (pd_reader_next(r, &ev) == 1)
				n++;
			ok(n == 10 && !pd_reader_has_feature(r, PD_FEAT_EVENT_DESC) &&
			       !pd_reader_attr_name(r, 0),
			   "a 72-byte header is read, without features");
		} else {
			ok(0, "a 72-byte header is read, without features");
		}
		pd_reader_close(r);
		memcpy(file, save, sizeof(save));

		v = 0;
		memcpy(file + 16, &v, 8);
		EXPECT_FAIL("attr_size 0 is refused", "attr_size is 0");
		memcpy(file, save, sizeof(save));

		v = 1ULL << 40;
		memcpy(file + 32, &v, 8);
		EXPECT_FAIL("attrs past the end are refused", "attrs section");
		memcpy(file, save, sizeof(save));

		v = 8; /* attr_size 8: the count says 18 attrs where there is room for one */
		memcpy(file + 16, &v, 8);
		EXPECT_FAIL("a huge attr count is refused", "runs past the end of the attrs");
		memcpy(file, save, sizeof(save));

		{
			u64 attrs_off;
			u32 big = 136;

			memcpy(&attrs_off, file + 24, 8);
			memcpy(file + attrs_off + 4, &big, 4);
			EXPECT_FAIL("an attr larger than 128 bytes is refused", "size 136");
			big = PD_ATTR_SIZE;
			memcpy(file + attrs_off + 4, &big, 4);
		}

		{
			u64 doff, dsize, bad = 1ULL << 50;

			memcpy(&doff, file + 40, 8);
			memcpy(&dsize, file + 48, 8);
			u8 entry[8];

			/* the first feature entry points past the end */
			memcpy(entry, file + doff + dsize, 8);
			memcpy(file + doff + dsize, &bad, 8);
			EXPECT_FAIL("a feature section past the end is refused", "EVENT_DESC");
			memcpy(file + doff + dsize, entry, 8);

			/* a zero-size record */
			{
				u16 zero = 0;
				u8 keep[2];

				memcpy(keep, file + doff + 6, 2);
				memcpy(file + doff + 6, &zero, 2);
				if (open_bytes(file, len, &r) == 0) {
					int ret;

					while ((ret = pd_reader_next(r, &ev)) == 1)
						;
					ok(ret == -EINVAL &&
					       strstr(pd_reader_errmsg(r), "size 0 is below 8"),
					   "a zero-size record is an error, not a loop");
				} else {
					ok(0, "a zero-size record is an error, not a loop");
				}
				pd_reader_close(r);
				memcpy(file + doff + 6, keep, 2);
			}

			/* the feature table cut off */
			if (open_bytes(file, doff + dsize + 8, &r) == 0)
				ok(0, "a feature table past the end is refused");
			else
				ok(strstr(pd_reader_errmsg(r), "feature table"),
				   "a feature table past the end is refused");
			pd_reader_close(r);

			/* a killed writer: data size 0, the file ends inside a record */
			v = 0;
			memcpy(file + 48, &v, 8);
			is(open_bytes(file, doff + dsize - 5, &r), 0,
			   "a file whose data size is 0 opens");
			n = 0;
			if (r)
				while (pd_reader_next(r, &ev) == 1)
					n++;
			is(n, 9, "the complete records are read");
			ok(r && pd_reader_recovered(r), "and it says it recovered");
			is(r ? pd_reader_data_read(r) : 0, dsize / 10 * 9,
			   "up to the end of the last complete record");
			pd_reader_close(r);
			memcpy(file, save, sizeof(save));

			/* cut inside the data: recovered too (the header says more) */
			is(open_bytes(file, doff + dsize / 2, &r), 0,
			   "a file cut in its data opens");
			ok(r && pd_reader_recovered(r), "recovered");
			pd_reader_close(r);
		}
	}
	free(file);
	pd_buf_release(&data);
	pd_buf_release(&desc);
}

static void test_names(void)
{
	is_str(pd_record_type_name(PERF_RECORD_SAMPLE), "SAMPLE", "SAMPLE");
	is_str(pd_record_type_name(PERF_RECORD_MMAP2), "MMAP2", "MMAP2");
	is_str(pd_record_type_name(PERF_RECORD_AUX_OUTPUT_HW_ID), "AUX_OUTPUT_HW_ID",
	       "AUX_OUTPUT_HW_ID");
	is_str(pd_record_type_name(PD_RECORD_HEADER_ATTR), "ATTR", "ATTR, as perf labels it");
	is_str(pd_record_type_name(PD_RECORD_HEADER_FEATURE), "FEATURE", "FEATURE");
	is_str(pd_record_type_name(PD_RECORD_FINISHED_INIT), "FINISHED_INIT", "FINISHED_INIT");
	ok(!pd_record_type_name(0) && !pd_record_type_name(22) && !pd_record_type_name(83),
	   "no name for types perf 6.1 does not know");
	is_str(pd_feature_name(PD_FEAT_TRACING_DATA), "TRACING_DATA", "TRACING_DATA");
	is_str(pd_feature_name(PD_FEAT_PMU_CAPS), "PMU_CAPS", "PMU_CAPS");
	ok(!pd_feature_name(0) && !pd_feature_name(40), "no name for bit 0 or unknown bits");
}

/* ---------------------------------------------------------------------------------------- */
/* A data section larger than what the reader reads at a time */

/* Record i: an unknown type (handed out, never decoded), of any size, its bytes from i. */
static u16 big_size(u32 i)
{
	return (u16)(8 + (i * 37u) % 4001u);
}

static void add_big(struct pd_buf *b, u32 i)
{
	size_t start;

	rec_begin(b, 70, 0, &start);
	for (u32 k = 8; k < big_size(i); k++) {
		u8 v = (u8)(i + k);

		pd_buf_append(b, &v, 1);
	}
	rec_end(b, start);
}

static bool big_ok(const struct pd_event *ev, u32 i, u64 off)
{
	const u8 *p = (const u8 *)ev->header;

	if (ev->header->type != 70 || ev->header->size != big_size(i) || ev->offset != off ||
	    !aligned(p))
		return false;
	for (u32 k = 8; k < big_size(i); k++)
		if (p[k] != (u8)(i + k))
			return false;
	return true;
}

static void test_large(void)
{
	struct file_attr fa = {.attr = full_attr()};
	struct pd_buf data = PD_BUF_INIT;
	struct pd_reader *r = NULL;
	struct pd_event ev;
	const u32 nr = 2500;
	u32 i, good;
	u64 off, doff;
	char *path;
	int ret;

	for (i = 0; i < nr; i++)
		add_big(&data, i);
	path = write_file(&fa, 1, data.data, data.len, NULL, 0, false);
	ok(data.len > 4 * 1024 * 1024, "a data section of over 4 MiB");
	is(pd_reader_open(&r, path, 0), 0, "it opens");
	doff = pd_reader_header(r)->data.offset;
	for (int pass = 0; pass < 2; pass++) {
		good = 0;
		off = doff;
		for (i = 0; pd_reader_next(r, &ev) == 1; i++) {
			if (i < nr && big_ok(&ev, i, off))
				good++;
			off += i < nr ? big_size(i) : 0;
		}
		is(good, nr,
		   pass ? "after rewind: every record again"
			: "every record, whole, aligned, at its offset, in order");
		pd_reader_rewind(r);
	}

	/* the file cut short while it is read: an error naming the offset, not a crash */
	for (i = 0; i < 10; i++)
		pd_reader_next(r, &ev);
	if (truncate(path, (off_t)(doff + data.len / 2)))
		abort();
	while ((ret = pd_reader_next(r, &ev)) == 1)
		;
	if (!ok(ret == -EIO && strstr(pd_reader_errmsg(r), "at offset 0x") &&
		    strstr(pd_reader_errmsg(r), "shrank"),
		"a file that shrinks while it is read gives an error naming the offset"))
		diag("%d: %s", ret, pd_reader_errmsg(r));
	pd_reader_close(r);
	unlink(path);
	free(path);
	pd_buf_release(&data);
}

/* How many buffers the reader has made for holders. */
static u32 nr_hold_buffers(const struct pd_reader *r)
{
	u32 n = 0;

	for (const struct pd_hold *h = r->holds; h; h = h->all_next)
		n++;
	return n;
}

/*
 * Records held with pd_reader_hold() stay as they were while the reader reads on, through
 * several buffers; released, their buffers are reused rather than new ones made.
 */
static void test_hold(void)
{
	struct file_attr fa = {.attr = full_attr()};
	struct pd_buf data = PD_BUF_INIT;
	struct pd_reader *r = NULL;
	struct pd_event ev, kept[64];
	struct pd_hold *holds[64];
	const u32 nr = 2500;
	u32 i, nk, good, bufs = 0, idx[64];
	u64 off, offs[64];
	char *path;
	u8 local[8];

	for (i = 0; i < nr; i++)
		add_big(&data, i);
	path = write_file(&fa, 1, data.data, data.len, NULL, 0, false);
	is(pd_reader_open(&r, path, 0), 0, "it opens");
	for (int pass = 0; pass < 2; pass++) {
		off = pd_reader_header(r)->data.offset;
		nk = good = 0;
		for (i = 0; pd_reader_next(r, &ev) == 1; i++) {
			good += big_ok(&ev, i, off);
			/* records not 8-aligned in the file are handed out as copies: those of
			 * about every 35th record that are */
			if (!(off & 7) && nk < 64 && (!nk || i >= idx[nk - 1] + 35)) {
				holds[nk] = pd_reader_hold(r, ev.header, ev.header->size);
				kept[nk] = ev;
				idx[nk] = i;
				offs[nk++] = off;
			}
			off += big_size(i);
		}
		if (pass)
			is(good, nr, "after rewind, with buffers given back: every record whole");
		else
			ok(!pd_reader_hold(r, local, sizeof(local)),
			   "bytes not in the read buffer cannot be held");
		ok(nk > 40, "records can be held");
		for (i = 0, good = 0; i < nk; i++)
			good += holds[i] && big_ok(&kept[i], idx[i], offs[i]);
		is(good, nk,
		   pass ? "the records held again are intact"
			: "held records are intact after the reader read on");
		if (!pass) {
			bufs = nr_hold_buffers(r);
			if (!ok(bufs > 2, "the reader read on in other buffers"))
				diag("%u buffers", bufs);
		} else {
			is(nr_hold_buffers(r), bufs,
			   "the buffers given back were reused, none made");
		}
		/* the second time some are left held: the reader frees them when it closes */
		for (i = 0; i < nk; i += 1 + pass)
			if (holds[i])
				pd_reader_release(r, holds[i]);
		pd_reader_rewind(r);
	}
	pd_reader_close(r);
	unlink(path);
	free(path);
	pd_buf_release(&data);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_names();
	test_every_bit(false);
	test_every_bit(true);
	test_misaligned();
	test_truncated_samples();
	test_variants();
	test_ids();
	test_shared_ids();
#ifdef HAVE_ZSTD
	test_compressed();
	test_compressed_tracing_data();
#else
	skip("compressed records", "prec was built without zstd");
#endif
	test_pipe();
	test_headers();
	test_large();
	test_hold();
	rmdir(tmpdir);
	return done_testing();
}
