// SPDX-License-Identifier: GPL-2.0
/*
 * Byte-level checks of format/encode.c and format/features.c: every sample_type field in the
 * kernel's order, the RAW padding, the sample_id trailer, size limits, the user-space records and
 * the feature payloads, compared with layouts written out here by hand from the kernel's and
 * perf's definitions. Samples are then read back with the reader where it applies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "tests/tap.h"

/* A cursor over an encoded record, to compare it field by field. */
struct rd {
	const u8 *p;
	size_t len, pos;
	bool bad;
};

static u64 rd_u64(struct rd *r)
{
	u64 v = 0;

	if (r->pos + 8 > r->len) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->pos, 8);
	r->pos += 8;
	return v;
}

static u32 rd_u32(struct rd *r)
{
	u32 v = 0;

	if (r->pos + 4 > r->len) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->pos, 4);
	r->pos += 4;
	return v;
}

static u16 rd_u16(struct rd *r)
{
	u16 v = 0;

	if (r->pos + 2 > r->len) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->pos, 2);
	r->pos += 2;
	return v;
}

static struct rd rd_record(const struct pd_buf *b, u32 type)
{
	struct rd r = { b->data, b->len, 0, false };
	const struct pd_record_header *h = (const void *)b->data;

	if (b->len < 8 || h->type != type || h->size != b->len)
		r.bad = true;
	r.pos = 8;
	return r;
}

static bool all_zero(const u8 *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

#define ALL_SAMPLE_BITS                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |          \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |              \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |              \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                      \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* Every field, in perf_output_sample()'s order. */
static void test_sample_all_fields(void)
{
	static const u64 chain[] = { PERF_CONTEXT_USER, 0x401000, 0x401100 };
	static const u8 raw[5] = { 1, 2, 3, 4, 5 };
	static const struct pd_branch_entry br[2] = { { 1, 2, 3 }, { 4, 5, 6 } };
	static const u64 uregs[2] = { 0xaa, 0xbb }, iregs[3] = { 0x11, 0x22, 0x33 };
	static const u8 stack[12] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 };
	static const u8 aux[3] = { 7, 7, 7 };
	static const struct pd_read_value vals[2] = { { 100, 11, 1 }, { 200, 12, 2 } };
	struct perf_event_attr a = { .size = sizeof(a) };
	struct pd_buf b = PD_BUF_INIT;
	struct pd_sample s = { 0 };
	struct rd r;
	int err;

	a.sample_type = ALL_SAMPLE_BITS;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x5;  /* two registers */
	a.sample_regs_intr = 0x70; /* three */
	s.misc = PERF_RECORD_MISC_USER;
	s.id = 0x1d;
	s.ip = 0x401000;
	s.pid = 10;
	s.tid = 11;
	s.time = 123456789;
	s.addr = 0xadd;
	s.stream_id = 0x5d;
	s.cpu = 3;
	s.period = 4000;
	s.read = (struct pd_read){ 2, 1000, 900, vals };
	s.callchain_nr = 3;
	s.callchain = chain;
	s.raw_size = 5;
	s.raw = raw;
	s.branch_nr = 2;
	s.branch_hw_idx = 1;
	s.branches = br;
	s.user_regs = (struct pd_regs){ PERF_SAMPLE_REGS_ABI_64, 0x5, uregs };
	s.user_stack_size = 12;
	s.user_stack = stack;
	s.user_stack_dyn_size = 10;
	s.weight = 0x00030002;
	s.data_src = 0xd5;
	s.transaction = 0x7a;
	s.intr_regs = (struct pd_regs){ PERF_SAMPLE_REGS_ABI_64, 0x70, iregs };
	s.phys_addr = 0xf00;
	s.cgroup = 0xc6;
	s.data_page_size = 4096;
	s.code_page_size = 2 << 20;
	s.aux_size = 3;
	s.aux = aux;

	err = pd_encode_sample(&b, &a, &s);
	is(err, 0, "sample with every field encodes");
	ok(b.len % 8 == 0, "sample size is a multiple of 8");
	r = rd_record(&b, PERF_RECORD_SAMPLE);
	is(((struct pd_record_header *)b.data)->misc, PERF_RECORD_MISC_USER, "misc kept");
	is(rd_u64(&r), 0x1d, "IDENTIFIER first");
	is(rd_u64(&r), 0x401000, "IP");
	is(rd_u32(&r), 10, "TID: pid");
	is(rd_u32(&r), 11, "TID: tid");
	is(rd_u64(&r), 123456789, "TIME");
	is(rd_u64(&r), 0xadd, "ADDR");
	is(rd_u64(&r), 0x1d, "ID");
	is(rd_u64(&r), 0x5d, "STREAM_ID");
	is(rd_u32(&r), 3, "CPU");
	is(rd_u32(&r), 0, "CPU: reserved word");
	is(rd_u64(&r), 4000, "PERIOD");
	is(rd_u64(&r), 2, "READ group: nr");
	is(rd_u64(&r), 1000, "READ: time_enabled");
	is(rd_u64(&r), 900, "READ: time_running");
	is(rd_u64(&r), 100, "READ: value 0");
	is(rd_u64(&r), 11, "READ: id 0");
	is(rd_u64(&r), 1, "READ: lost 0");
	is(rd_u64(&r), 200, "READ: value 1");
	is(rd_u64(&r), 12, "READ: id 1");
	is(rd_u64(&r), 2, "READ: lost 1");
	is(rd_u64(&r), 3, "CALLCHAIN: nr");
	is(rd_u64(&r), PERF_CONTEXT_USER, "CALLCHAIN: context marker");
	is(rd_u64(&r), 0x401000, "CALLCHAIN: ip 1");
	is(rd_u64(&r), 0x401100, "CALLCHAIN: ip 2");
	is(rd_u32(&r), 12, "RAW: size counts the padding (4 + 12 = 16)");
	ok(!memcmp(r.p + r.pos, raw, 5) && all_zero(r.p + r.pos + 5, 7), "RAW: data, zero pad");
	r.pos += 12;
	is(rd_u64(&r), 2, "BRANCH_STACK: nr");
	is(rd_u64(&r), 1, "BRANCH_STACK: hw_idx with PERF_SAMPLE_BRANCH_HW_INDEX");
	is(rd_u64(&r), 1, "BRANCH_STACK: from");
	is(rd_u64(&r), 2, "BRANCH_STACK: to");
	is(rd_u64(&r), 3, "BRANCH_STACK: flags");
	r.pos += 24;
	is(rd_u64(&r), PERF_SAMPLE_REGS_ABI_64, "REGS_USER: abi");
	is(rd_u64(&r), 0xaa, "REGS_USER: reg 0");
	is(rd_u64(&r), 0xbb, "REGS_USER: reg 1 (popcount of the attr's mask)");
	is(rd_u64(&r), 16, "STACK_USER: size rounded to u64s");
	ok(!memcmp(r.p + r.pos, stack, 12) && all_zero(r.p + r.pos + 12, 4), "STACK_USER: data");
	r.pos += 16;
	is(rd_u64(&r), 10, "STACK_USER: dyn_size");
	is(rd_u64(&r), 0x00030002, "WEIGHT_STRUCT");
	is(rd_u64(&r), 0xd5, "DATA_SRC");
	is(rd_u64(&r), 0x7a, "TRANSACTION");
	is(rd_u64(&r), PERF_SAMPLE_REGS_ABI_64, "REGS_INTR: abi");
	is(rd_u64(&r), 0x11, "REGS_INTR: reg 0");
	is(rd_u64(&r), 0x22, "REGS_INTR: reg 1");
	is(rd_u64(&r), 0x33, "REGS_INTR: reg 2");
	is(rd_u64(&r), 0xf00, "PHYS_ADDR");
	is(rd_u64(&r), 0xc6, "CGROUP");
	is(rd_u64(&r), 4096, "DATA_PAGE_SIZE");
	is(rd_u64(&r), 2 << 20, "CODE_PAGE_SIZE");
	is(rd_u64(&r), 8, "AUX: size rounded to u64s");
	ok(!memcmp(r.p + r.pos, aux, 3) && all_zero(r.p + r.pos + 3, 5), "AUX: data, zero pad");
	r.pos += 8;
	ok(!r.bad && r.pos == b.len, "nothing after AUX, nothing missing");

	/* Without HW_INDEX there is no hw_idx word. */
	pd_buf_reset(&b);
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	is(pd_encode_sample(&b, &a, &s), 0, "branch stack without hw_idx");
	r = rd_record(&b, PERF_RECORD_SAMPLE);
	is(rd_u64(&r), 2, "nr");
	is(rd_u64(&r), 1, "first entry's from right after nr");
	is(b.len, 8 + 8 + 2 * 24, "size");

	/* Empty user stack: only the size word, no dyn_size. Registers with abi 0: only abi. */
	pd_buf_reset(&b);
	a.sample_type = PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER;
	s.user_stack_size = 0;
	s.user_regs.abi = 0;
	is(pd_encode_sample(&b, &a, &s), 0, "empty stack, no registers");
	is(b.len, 8 + 8 + 8, "abi word and size word only");
	pd_buf_release(&b);
}

static void test_sample_read_single(void)
{
	static const struct pd_read_value v = { 555, 77, 3 };
	struct perf_event_attr a = { .size = sizeof(a) };
	struct pd_sample s = { 0 };
	struct pd_buf b = PD_BUF_INIT;
	struct rd r;

	a.sample_type = PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED;
	s.read = (struct pd_read){ 1, 999, 0, &v };
	is(pd_encode_sample(&b, &a, &s), 0, "single-value READ");
	r = rd_record(&b, PERF_RECORD_SAMPLE);
	is(rd_u64(&r), 555, "value first");
	is(rd_u64(&r), 999, "then time_enabled");
	is(rd_u64(&r), 77, "then id");
	is(rd_u64(&r), 3, "then lost");
	ok(!r.bad && r.pos == b.len, "no time_running without its flag");
	pd_buf_reset(&b);
	s.read.nr = 2;
	is(pd_encode_sample(&b, &a, &s), -EINVAL, "nr 2 without PERF_FORMAT_GROUP is refused");
	is(b.len, 0, "and leaves the buffer as it was");
	pd_buf_release(&b);
}

static void test_raw_padding(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_RAW };
	u8 data[64];
	u32 n;

	memset(data, 0xee, sizeof(data));
	for (n = 0; n <= 20; n++) {
		struct pd_buf b = PD_BUF_INIT;
		struct pd_sample s = { .raw = data, .raw_size = n };
		struct rd r;
		u32 size;
		char msg[64];

		pd_encode_sample(&b, &a, &s);
		r = rd_record(&b, PERF_RECORD_SAMPLE);
		size = rd_u32(&r);
		snprintf(msg, sizeof(msg), "raw %u bytes: size %u, 4 + size a multiple of 8", n, size);
		ok(!r.bad && size >= n && size < n + 8 && (4 + size) % 8 == 0 &&
		   b.len == 8 + 4 + size && all_zero(r.p + r.pos + n, size - n), msg);
		pd_buf_release(&b);
	}
}

static void test_trailer(void)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct pd_sample id = { 0 };
	struct pd_buf b = PD_BUF_INIT;
	struct rd r;

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	id.pid = 7;
	id.tid = 8;
	id.time = 99;
	id.id = 0x1d;
	id.stream_id = 0x5d;
	id.cpu = 1;
	is(pd_encode_comm(&b, &a, 7, 8, "worker", true, &id), 0, "COMM with a trailer");
	r = rd_record(&b, PERF_RECORD_COMM);
	is(((struct pd_record_header *)b.data)->misc, PERF_RECORD_MISC_COMM_EXEC, "exec flag");
	is(rd_u32(&r), 7, "pid");
	is(rd_u32(&r), 8, "tid");
	ok(!strcmp((const char *)r.p + r.pos, "worker") && all_zero(r.p + r.pos + 6, 2),
	   "comm NUL-terminated, padded to 8");
	r.pos += 8;
	is(rd_u32(&r), 7, "trailer: pid (TID first)");
	is(rd_u32(&r), 8, "trailer: tid");
	is(rd_u64(&r), 99, "trailer: TIME");
	is(rd_u64(&r), 0x1d, "trailer: ID");
	is(rd_u64(&r), 0x5d, "trailer: STREAM_ID");
	is(rd_u32(&r), 1, "trailer: CPU");
	is(rd_u32(&r), 0, "trailer: CPU reserved word");
	is(rd_u64(&r), 0x1d, "trailer: IDENTIFIER last");
	ok(!r.bad && r.pos == b.len, "IP, PERIOD and CALLCHAIN are not in a trailer");

	pd_buf_reset(&b);
	a.sample_id_all = 0;
	is(pd_encode_comm(&b, &a, 7, 8, "1234567", false, &id), 0, "COMM without sample_id_all");
	is(b.len, 8 + 8 + 8, "no trailer: header, pid and tid, a name of 7 + NUL");

	pd_buf_reset(&b);
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	is(pd_encode_lost(&b, &a, 0x1d, 42, NULL), 0, "LOST with a NULL trailer");
	r = rd_record(&b, PERF_RECORD_LOST);
	is(rd_u64(&r), 0x1d, "lost id");
	is(rd_u64(&r), 42, "lost count");
	is(rd_u64(&r), 0, "zero trailer: pid, tid");
	is(rd_u64(&r), 0, "zero trailer: time");
	ok(!r.bad && r.pos == b.len, "LOST size");
	pd_buf_release(&b);
}

static void test_kernel_records(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_TIME,
				     .sample_id_all = 1 };
	struct pd_sample id = { .time = 5 };
	struct pd_buf b = PD_BUF_INIT;
	struct pd_mmap_body mm = { (u32)-1, 0, 0xffffffff81000000ULL, 0x1000000,
				   0xffffffff81000000ULL };
	struct pd_mmap2_body mm2 = { .pid = 1, .tid = 1, .start = 0x1000, .len = 0x2000 };
	struct pd_fork_body fk = { 1, 2, 3, 4, 6 };
	struct pd_throttle_body th = { 7, 8, 9 };
	struct pd_switch_cpu_wide_body sw = { 10, 11 };
	const struct pd_record_header *h;
	struct rd r;

	is(pd_encode_mmap(&b, &a, PERF_RECORD_MISC_KERNEL, &mm, "[kernel.kallsyms]_text", &id), 0,
	   "kernel MMAP");
	r = rd_record(&b, PERF_RECORD_MMAP);
	r.pos += sizeof(mm);
	ok(!strcmp((const char *)r.p + r.pos, "[kernel.kallsyms]_text"), "MMAP filename");
	is(b.len, 8 + sizeof(mm) + 24 + 8, "MMAP: 23-byte name padded to 24, then the trailer");
	pd_buf_reset(&b);
	is(pd_encode_mmap2(&b, &a, PERF_RECORD_MISC_USER, &mm2, "/bin/true", &id), 0, "MMAP2");
	is(b.len, 8 + sizeof(mm2) + 16 + 8, "MMAP2 size");
	is(sizeof(mm2), 64, "MMAP2 body is the kernel's 64 bytes");
	pd_buf_reset(&b);
	is(pd_encode_fork(&b, &a, true, 0, &fk, &id), 0, "EXIT");
	h = (const void *)b.data;
	is(h->type, PERF_RECORD_EXIT, "EXIT type");
	is(h->size, 8 + 24 + 8, "EXIT size");
	is(h->misc, 0, "EXIT misc 0");
	pd_buf_reset(&b);
	is(pd_encode_fork(&b, &a, false, PD_RECORD_MISC_FORK_EXEC, &fk, &id), 0, "FORK");
	h = (const void *)b.data;
	is(h->type, PERF_RECORD_FORK, "FORK type");
	is(h->misc, PD_RECORD_MISC_FORK_EXEC, "FORK misc: perf's FORK_EXEC bit, as given");
	ok(!memcmp(b.data + 8, &fk, sizeof(fk)), "FORK body");
	pd_buf_reset(&b);
	is(pd_encode_throttle(&b, &a, true, &th, &id), 0, "UNTHROTTLE");
	is(((const struct pd_record_header *)b.data)->type, PERF_RECORD_UNTHROTTLE, "type");
	pd_buf_reset(&b);
	is(pd_encode_switch(&b, &a, PERF_RECORD_MISC_SWITCH_OUT, NULL, &id), 0, "SWITCH");
	h = (const void *)b.data;
	ok(h->type == PERF_RECORD_SWITCH && h->size == 16 && h->misc == PERF_RECORD_MISC_SWITCH_OUT,
	   "SWITCH: header, trailer, misc");
	pd_buf_reset(&b);
	is(pd_encode_switch(&b, &a, 0, &sw, &id), 0, "SWITCH_CPU_WIDE");
	h = (const void *)b.data;
	ok(h->type == PERF_RECORD_SWITCH_CPU_WIDE && h->size == 24, "SWITCH_CPU_WIDE size");
	pd_buf_reset(&b);
	is(pd_encode_lost_samples(&b, &a, 17, &id), 0, "LOST_SAMPLES");
	is(((const struct pd_record_header *)b.data)->size, 24, "LOST_SAMPLES size");
	pd_buf_reset(&b);
	is(pd_encode_cgroup(&b, &a, 0x1234, "/system.slice", &id), 0, "CGROUP");
	h = (const void *)b.data;
	ok(h->type == PERF_RECORD_CGROUP && h->size == 8 + 8 + 16 + 8 &&
		   *(const u64 *)(const void *)(b.data + 8) == 0x1234 &&
		   !strcmp((const char *)b.data + 16, "/system.slice"),
	   "CGROUP: id, the path padded to 16, the trailer");
	pd_buf_release(&b);
}

static void test_limits(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_CALLCHAIN };
	struct pd_buf b = PD_BUF_INIT;
	struct pd_sample s = { 0 };
	u64 *chain = calloc(9000, sizeof(u64));
	char *name = malloc(70000);
	int err;

	pd_buf_append(&b, "prefix..", 8);
	s.callchain = chain;
	s.callchain_nr = 8189; /* 8 + 8 + 8189 * 8 = 65528: fits */
	err = pd_encode_sample(&b, &a, &s);
	is(err, 0, "a 65528-byte sample fits");
	is(b.len, 8 + 65528, "appended after what was there");
	b.len = 8;
	s.callchain_nr = 8190;
	is(pd_encode_sample(&b, &a, &s), -E2BIG, "65536 bytes: -E2BIG");
	is(b.len, 8, "the buffer is left as it was");
	s.callchain_nr = 1ULL << 60;
	is(pd_encode_sample(&b, &a, &s), -E2BIG, "an absurd count: -E2BIG, no overflow");
	memset(name, 'x', 69999);
	name[69999] = '\0';
	is(pd_encode_comm(&b, &a, 1, 1, name, false, NULL), -E2BIG, "a 70000-byte comm: -E2BIG");
	is(b.len, 8, "still as it was");
	a.sample_type = 1ULL << 40;
	is(pd_encode_sample(&b, &a, &s), -EINVAL, "unknown sample_type bits: -EINVAL");
	a.sample_type = PERF_SAMPLE_RAW;
	s.raw = NULL;
	s.raw_size = 4;
	is(pd_encode_sample(&b, &a, &s), -EINVAL, "raw size without data: -EINVAL");
	is(b.len, 8, "still as it was");
	free(chain);
	free(name);
	pd_buf_release(&b);
}

static void test_user_records(void)
{
	struct pd_buf b = PD_BUF_INIT;
	struct pd_thread_map_entry t[2] = { { 1, "init" }, { 2, "" } };
	struct pd_stat_config_entry cfg[2] = { { 0, 1 }, { 1, 100 } };
	struct pd_stat_body st = { 5, 1, 0, 100, 200, 150 };
	struct pd_id_index_entry idx[1] = { { 9, 0, 1, 2 } };
	struct pd_time_conv_body tc = { .time_shift = 10, .time_mult = 20 };
	const int cpus[3] = { 0, 2, -1 };
	double scale = 0;
	struct rd r;

	memcpy(t[1].comm, "sixteen-bytes-xx", 16); /* no NUL of its own */
	is(pd_encode_thread_map(&b, 2, t), 0, "THREAD_MAP");
	r = rd_record(&b, PD_RECORD_THREAD_MAP);
	is(rd_u64(&r), 2, "nr");
	is(rd_u64(&r), 1, "pid 0");
	ok(!strcmp((const char *)r.p + r.pos, "init"), "comm 0");
	r.pos += 16;
	is(rd_u64(&r), 2, "pid 1");
	ok(r.p[r.pos + 15] == 0 && !memcmp(r.p + r.pos, "sixteen-bytes-x", 15),
	   "a 16-byte comm is cut to 15 and terminated");
	is(b.len, 8 + 8 + 2 * 24, "THREAD_MAP size");

	pd_buf_reset(&b);
	is(pd_encode_cpu_map(&b, 3, cpus), 0, "CPU_MAP");
	r = rd_record(&b, PD_RECORD_CPU_MAP);
	is(rd_u16(&r), PD_CPU_MAP_CPUS, "type CPUS");
	is(rd_u16(&r), 3, "nr");
	is(rd_u16(&r), 0, "cpu 0");
	is(rd_u16(&r), 2, "cpu 2");
	is(rd_u16(&r), 0xffff, "cpu -1 is 0xffff");
	is(b.len, 24, "8 + 10 bytes padded to 24");
	pd_buf_reset(&b);
	{
		const int bad[1] = { 70000 };

		is(pd_encode_cpu_map(&b, 1, bad), -EINVAL, "a CPU past u16: -EINVAL");
		is(b.len, 0, "nothing left behind");
	}

	pd_buf_reset(&b);
	is(pd_encode_stat_config(&b, 2, cfg), 0, "STAT_CONFIG");
	r = rd_record(&b, PD_RECORD_STAT_CONFIG);
	is(rd_u64(&r), 2, "nr");
	is(rd_u64(&r), 0, "tag 0");
	is(rd_u64(&r), 1, "val 0");
	is(rd_u64(&r), 1, "tag 1");
	is(rd_u64(&r), 100, "val 1");

	pd_buf_reset(&b);
	is(pd_encode_stat(&b, &st), 0, "STAT");
	r = rd_record(&b, PD_RECORD_STAT);
	is(b.len, 48, "STAT is 48 bytes");
	is(rd_u64(&r), 5, "id");
	is(rd_u32(&r), 1, "cpu");
	is(rd_u32(&r), 0, "thread");
	is(rd_u64(&r), 100, "val");
	is(rd_u64(&r), 200, "ena");
	is(rd_u64(&r), 150, "run");

	pd_buf_reset(&b);
	is(pd_encode_stat_round(&b, PD_STAT_ROUND_FINAL, 777), 0, "STAT_ROUND");
	r = rd_record(&b, PD_RECORD_STAT_ROUND);
	is(b.len, 24, "STAT_ROUND is 24 bytes");
	is(rd_u64(&r), PD_STAT_ROUND_FINAL, "type");
	is(rd_u64(&r), 777, "time");

	pd_buf_reset(&b);
	is(pd_encode_event_update_name(&b, 9, "cpu-clock"), 0, "EVENT_UPDATE name");
	r = rd_record(&b, PD_RECORD_EVENT_UPDATE);
	is(rd_u64(&r), PD_EVENT_UPDATE_NAME, "type NAME");
	is(rd_u64(&r), 9, "id");
	ok(!strcmp((const char *)r.p + r.pos, "cpu-clock"), "name");
	is(b.len, 8 + 16 + 16, "10 bytes of name padded to 16");
	pd_buf_reset(&b);
	is(pd_encode_event_update_scale(&b, 9, 1e-6), 0, "EVENT_UPDATE scale");
	r = rd_record(&b, PD_RECORD_EVENT_UPDATE);
	is(rd_u64(&r), PD_EVENT_UPDATE_SCALE, "type SCALE");
	r.pos += 8;
	memcpy(&scale, r.p + r.pos, 8);
	ok(scale == 1e-6, "the scale as a double");
	pd_buf_reset(&b);
	is(pd_encode_event_update_unit(&b, 9, "msec"), 0, "EVENT_UPDATE unit");
	is(((u64 *)(b.data + 8))[0], PD_EVENT_UPDATE_UNIT, "type UNIT");

	pd_buf_reset(&b);
	is(pd_encode_time_conv(&b, &tc), 0, "TIME_CONV");
	is(b.len, 56, "TIME_CONV: the 6.1 layout, 56 bytes");
	pd_buf_reset(&b);
	is(pd_encode_id_index(&b, 1, idx), 0, "ID_INDEX");
	is(b.len, 8 + 8 + 32, "ID_INDEX size");
	pd_buf_reset(&b);
	is(pd_encode_finished_round(&b), 0, "FINISHED_ROUND");
	ok(b.len == 8 && ((struct pd_record_header *)b.data)->type == PD_RECORD_FINISHED_ROUND,
	   "header only");
	pd_buf_reset(&b);
	is(pd_encode_finished_init(&b), 0, "FINISHED_INIT");
	ok(b.len == 8 && ((struct pd_record_header *)b.data)->type == PD_RECORD_FINISHED_INIT,
	   "header only");
	pd_buf_release(&b);
}

static void test_features(void)
{
	static const char *const argv[] = { "prec", "record", "--", "./a b" };
	static const char *const sib[] = { "0-3" }, *const thr[] = { "0-1", "2-3" };
	static const u32 core[4] = { 0, 0, 1, 1 }, sock[4] = { 0 }, die[4] = { 0 };
	static const u8 bid[20] = { 0xbf, 0x30 };
	struct pd_buf b = PD_BUF_INIT;
	size_t pos = 0;
	const char *s;
	struct rd r;
	int i;

	pd_buf_string(&b, "vm");
	is(b.len, 4 + 64, "a string is padded to 64");
	is(*(u32 *)b.data, 64, "and its length counts the padding");
	pd_buf_reset(&b);

	pd_feat_cmdline(&b, 4, argv);
	is(*(u32 *)b.data, 4, "CMDLINE: count");
	pos = 4;
	for (i = 0; i < 4; i++) {
		s = pd_feat_next_string(b.data, b.len, &pos);
		is_str(s, argv[i], "CMDLINE: argument as given");
	}
	is(pos, b.len, "CMDLINE: nothing after");
	ok(!pd_feat_next_string(b.data, b.len, &pos), "no string past the end");
	pos = 4;
	ok(!pd_feat_next_string(b.data, 60, &pos) && pos == 4,
	   "a string cut short is refused and pos left alone");
	pos = 2;
	ok(!pd_feat_next_string(b.data, 5, &pos), "less than a length word: refused");
	pos = 100000;
	ok(!pd_feat_next_string(b.data, b.len, &pos), "pos past len: refused");
	{
		u8 bad[12] = { 8, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h' };
		u8 big[8] = { 0xff, 0xff, 0xff, 0xff, 'a', 0 };

		pos = 0;
		ok(!pd_feat_next_string(bad, sizeof(bad), &pos), "a string without NUL: refused");
		pos = 0;
		ok(!pd_feat_next_string(big, sizeof(big), &pos), "a 4 GiB length: refused");
		ok(!pd_feat_next_string(NULL, 0, &pos), "NULL payload: refused");
	}

	pd_buf_reset(&b);
	pd_feat_nrcpus(&b, 8, 6);
	ok(b.len == 8 && ((u32 *)b.data)[0] == 8 && ((u32 *)b.data)[1] == 6, "NRCPUS");
	pd_buf_reset(&b);
	pd_feat_total_mem(&b, 12345);
	ok(b.len == 8 && *(u64 *)b.data == 12345, "TOTAL_MEM");
	pd_buf_reset(&b);
	pd_feat_sample_time(&b, 10, 20);
	ok(b.len == 16 && ((u64 *)b.data)[0] == 10 && ((u64 *)b.data)[1] == 20, "SAMPLE_TIME");
	pd_buf_reset(&b);
	pd_feat_clockid(&b, 1);
	ok(b.len == 8 && *(u64 *)b.data == 1, "CLOCKID");
	pd_buf_reset(&b);
	pd_feat_clock_data(&b, 1, 1700000000000000000ULL, 5000);
	r = (struct rd){ b.data, b.len, 0, false };
	is(rd_u32(&r), 1, "CLOCK_DATA: version 1");
	is(rd_u32(&r), 1, "CLOCK_DATA: clockid");
	is(rd_u64(&r), 1700000000000000000ULL, "CLOCK_DATA: tod");
	is(rd_u64(&r), 5000, "CLOCK_DATA: clock");
	ok(!r.bad && r.pos == b.len, "CLOCK_DATA: 24 bytes");

	pd_buf_reset(&b);
	pd_feat_cpu_topology(&b, 1, sib, 2, thr, 4, core, sock, 1, sib, die);
	pos = 0;
	r = (struct rd){ b.data, b.len, 0, false };
	is(rd_u32(&r), 1, "CPU_TOPOLOGY: package lists");
	pos = 4;
	is_str(pd_feat_next_string(b.data, b.len, &pos), "0-3", "package list");
	r.pos = pos;
	is(rd_u32(&r), 2, "core lists");
	pos = r.pos;
	is_str(pd_feat_next_string(b.data, b.len, &pos), "0-1", "core list 0");
	is_str(pd_feat_next_string(b.data, b.len, &pos), "2-3", "core list 1");
	r.pos = pos;
	for (i = 0; i < 4; i++) {
		is(rd_u32(&r), core[i], "core id");
		is(rd_u32(&r), sock[i], "socket id");
	}
	is(rd_u32(&r), 1, "die lists");
	r.pos += 4 + 64;
	for (i = 0; i < 4; i++)
		is(rd_u32(&r), die[i], "die id");
	ok(!r.bad && r.pos == b.len, "CPU_TOPOLOGY: nothing after");
	{
		size_t with_dies = b.len;

		pd_buf_reset(&b);
		pd_feat_cpu_topology(&b, 1, sib, 2, thr, 4, core, sock, 0, NULL, NULL);
		is(b.len, with_dies - (4 + 68 + 16), "without dies the die block is left out");
	}

	pd_buf_reset(&b);
	pd_feat_build_id_add(&b, PERF_RECORD_MISC_USER, bid, 20, "/usr/bin/hot3");
	r = (struct rd){ b.data, b.len, 0, false };
	is(rd_u32(&r), 0, "BUILD_ID entry: type 0");
	is(rd_u16(&r), PERF_RECORD_MISC_USER | PD_BUILD_ID_MISC_SIZE, "misc with the size flag");
	is(rd_u16(&r), 36 + 64, "size: 36 + the name padded to 64");
	is((s32)rd_u32(&r), -1, "pid -1: the host");
	ok(b.data[12] == 0xbf && b.data[13] == 0x30, "build-id bytes");
	is(b.data[32], 20, "build-id size");
	ok(!strcmp((const char *)b.data + 36, "/usr/bin/hot3"), "file name");
	is(b.len, 100, "entry length");
	pd_buf_release(&b);
}

/* What the encoder writes, the reader reads back the same. */
static void test_round_trip(void)
{
	static const u64 chain[] = { PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200 };
	static const u8 raw[7] = { 1, 2, 3, 4, 5, 6, 7 };
	static const struct pd_read_value vals[2] = { { 100, 11, 1 }, { 200, 12, 2 } };
	struct perf_event_attr a = { .size = sizeof(a) };
	char path[] = "/tmp/prec-test-encode.XXXXXX";
	struct pd_buf b = PD_BUF_INIT;
	struct pd_sample s = { 0 }, got;
	struct pd_writer *w;
	struct pd_reader *r;
	struct pd_event ev;
	u64 ids[2] = { 11, 12 };
	int fd, n = 0, idx = -1, err;

	fd = mkstemp(path);
	if (fd < 0) {
		skip("round trip", "mkstemp failed");
		return;
	}
	close(fd);
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	s.id = 11;
	s.ip = 0x401000;
	s.pid = s.tid = 42;
	s.time = 1000;
	s.cpu = 1;
	s.period = 3;
	s.read = (struct pd_read){ 2, 0, 0, vals };
	s.callchain_nr = 4;
	s.callchain = chain;
	s.raw = raw;
	s.raw_size = 7;
	is(pd_encode_sample(&b, &a, &s), 0, "round trip: sample encodes");
	is(pd_encode_comm(&b, &a, 42, 42, "rt", false, &s), 0, "round trip: COMM encodes");
	if (pd_writer_open(&w, path, 0) || pd_writer_add_attr(w, &a, "ev", ids, 2) < 0 ||
	    pd_writer_begin(w) || pd_writer_write(w, b.data, b.len) || pd_writer_close(w)) {
		ok(0, "round trip: file written");
		goto out;
	}
	err = pd_reader_open(&r, path, 0);
	is(err, 0, "round trip: the reader opens it");
	if (err)
		goto out;
	while (pd_reader_next(r, &ev) == 1) {
		memset(&got, 0, sizeof(got));
		if (ev.header->type != PERF_RECORD_SAMPLE && ev.header->type != PERF_RECORD_COMM)
			continue;
		n++;
		err = pd_reader_parse_sample(r, ev.header, &got, &idx);
		is(err, 0, "round trip: parses");
		is(idx, 0, "round trip: the attr found by id");
		is(got.id, 11, "round trip: id");
		is(got.pid, 42, "round trip: pid");
		is(got.time, 1000, "round trip: time");
		is(got.cpu, 1, "round trip: cpu");
		if (ev.header->type != PERF_RECORD_SAMPLE)
			continue;
		is(got.ip, 0x401000, "round trip: ip");
		is(got.period, 3, "round trip: period");
		is(got.read.nr, 2, "round trip: read nr");
		ok(got.read.values && got.read.values[1].value == 200 && got.read.values[1].id == 12 &&
		   got.read.values[1].lost == 2, "round trip: read values");
		is(got.callchain_nr, 4, "round trip: callchain nr");
		ok(got.callchain && got.callchain[3] == 0x401200, "round trip: callchain");
		ok(got.raw_size >= 7 && got.raw && !memcmp(got.raw, raw, 7), "round trip: raw");
	}
	is(n, 2, "round trip: both records back");
	pd_reader_close(r);
out:
	unlink(path);
	pd_buf_release(&b);
}

int main(void)
{
	test_sample_all_fields();
	test_sample_read_single();
	test_raw_padding();
	test_trailer();
	test_kernel_records();
	test_limits();
	test_user_records();
	test_features();
	test_round_trip();
	return done_testing();
}
