// SPDX-License-Identifier: GPL-2.0
/*
 * prec:overhead: the format text must describe exactly what overhead_record_encode() writes, or
 * perf prints garbage and Python handlers get wrong values. libtraceevent (what perf uses) parses
 * the text here, and every field is read back through it from an encoded record.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "overhead/event.h"
#include "tests/tap.h"

/*
 * The fields in the order perf passes them to prec__overhead(). The only signed one is cpu:
 * overhead_record.cpu is an s32 that may be -1.
 */
enum kind { NUMBER, CHARS, DATA_LOC };

static const struct expect {
	const char *name;
	enum kind kind;
	int is_signed;
} fields[] = {
	{ "cpu", NUMBER, 1 },     { "type", CHARS, 0 },      { "nr", NUMBER, 0 },
	{ "time_ns", NUMBER, 0 }, { "span_ns", NUMBER, 0 },  { "source", CHARS, 0 },
	{ "estimated", NUMBER, 0 }, { "reason", DATA_LOC, 0 },
};

#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

/*
 * Raw data sits 4 bytes into an 8-aligned sample field (after its u32 size), so decode from such
 * an address: the u64 fields are then misaligned, as they are in a real file.
 */
static u8 *misaligned_copy(const struct pd_buf *b, u8 **base)
{
	*base = malloc(b->len + 8); /* malloc aligns to at least 8 */
	memcpy(*base + 4, b->data, b->len);
	return *base + 4;
}

static void test_format(struct tep_handle *tep, struct tep_event **evp)
{
	struct tep_format_field **list, *f;
	struct tep_event *ev;
	int n = 0, end = 8;

	is(tep_parse_event(tep, overhead_event_format, strlen(overhead_event_format), "prec"), 0,
	   "libtraceevent parses the prec:overhead format");
	ev = tep_find_event(tep, OVERHEAD_EVENT_ID);
	*evp = ev;
	ok(ev, "the format has ID OVERHEAD_EVENT_ID");
	if (!ev)
		return;
	is_str(ev->system, OVERHEAD_SYSTEM, "system is prec");
	is_str(ev->name, OVERHEAD_EVENT, "event is overhead");
	ok(!(ev->flags & TEP_EVENT_FL_FAILED), "its print fmt parses");

	f = tep_find_common_field(ev, "common_type");
	ok(f && f->offset == 0 && f->size == 2, "common_type is a u16 at offset 0");
	f = tep_find_common_field(ev, "common_pid");
	ok(f && f->offset == 4 && f->size == 4 && (f->flags & TEP_FIELD_IS_SIGNED),
	   "common_pid is an s32 at offset 4");

	list = tep_event_fields(ev);
	for (; list && list[n]; n++) {
		const struct expect *e = n < (int)NR_FIELDS ? &fields[n] : NULL;
		char desc[128];

		f = list[n];
		snprintf(desc, sizeof(desc), "field %d is %s", n, e ? e->name : "(none)");
		is_str(f->name, e ? e->name : "(extra field)", desc);
		if (!e)
			continue;
		snprintf(desc, sizeof(desc), "%s: its kind and signedness", e->name);
		if (e->kind == NUMBER)
			ok(!!(f->flags & TEP_FIELD_IS_SIGNED) == e->is_signed &&
				   !(f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY)),
			   desc);
		else if (e->kind == CHARS)
			ok((f->flags & TEP_FIELD_IS_STRING) && (f->flags & TEP_FIELD_IS_ARRAY) &&
				   !(f->flags & TEP_FIELD_IS_DYNAMIC),
			   desc);
		else
			ok((f->flags & TEP_FIELD_IS_STRING) && (f->flags & TEP_FIELD_IS_DYNAMIC) &&
				   f->size == 4,
			   desc);
		snprintf(desc, sizeof(desc), "%s: after the previous field, without overlap",
			 e->name);
		ok(f->offset >= end && f->size > 0, desc);
		end = f->offset + f->size;
	}
	free(list);
	is(n, NR_FIELDS, "the format has exactly the documented fields");
}

/* The char arrays: the encoder must take size - 1 characters and refuse size. */
static void test_string_sizes(struct tep_event *ev)
{
	struct tep_format_field *ft = tep_find_field(ev, "type");
	struct tep_format_field *fs = tep_find_field(ev, "source");
	char longest[64];
	struct pd_buf b = PD_BUF_INIT;
	struct overhead_record r = { .type = "sample", .source = "bpf", .reason = "" };

	if (!ft || !fs) {
		ok(0, "type and source fields exist");
		return;
	}
	memset(longest, 'x', sizeof(longest));
	longest[ft->size - 1] = '\0';
	r.type = longest;
	is(overhead_record_encode(&b, 1, &r), 0, "type of its field size - 1 is encoded");
	longest[ft->size - 1] = 'x';
	longest[ft->size] = '\0';
	is(overhead_record_encode(&b, 1, &r), -EINVAL, "type of its field size is refused");
	r.type = "sample";
	memset(longest, 'y', sizeof(longest));
	longest[fs->size - 1] = '\0';
	r.source = longest;
	is(overhead_record_encode(&b, 1, &r), 0, "source of its field size - 1 is encoded");
	longest[fs->size - 1] = 'y';
	longest[fs->size] = '\0';
	is(overhead_record_encode(&b, 1, &r), -EINVAL, "source of its field size is refused");
	pd_buf_release(&b);
}

static unsigned long long get(struct tep_event *ev, struct tep_record *rec, const char *name)
{
	unsigned long long v = ~0ULL;

	if (tep_get_field_val(NULL, ev, name, rec, &v, 0))
		diag("tep_get_field_val(%s) failed", name);
	return v;
}

static const char *get_str(struct tep_event *ev, struct tep_record *rec, const char *name)
{
	int len = 0;
	const char *s = tep_get_field_raw(NULL, ev, name, rec, &len, 0);

	return s && len > 0 && memchr(s, '\0', len) ? s : "(bad)";
}

/* Encode, then let libtraceevent read every field and print the event as perf would. */
static void test_tep_decodes(struct tep_handle *tep, struct tep_event *ev)
{
	static const struct overhead_record recs[] = {
		{ -1, "recorder", 123456789012345ULL, 987654321ULL, 1000000000ULL, "rusage",
		  OVERHEAD_MEASURED, "" },
		{ 1, "stolen", 40000, 544000000ULL, 1000000000ULL, "calibration",
		  OVERHEAD_ESTIMATED, "13.6 us per sample, calibrated" },
		{ 0, "mux", 0, 0, 2000000000ULL, "tracepoint", OVERHEAD_UNAVAILABLE,
		  "perf_event_open(timer:hrtimer_expire_entry): Permission denied" },
		{ 2147483647, "sample", ~0ULL, ~0ULL - 1, 1, "bpf", OVERHEAD_MEASURED, "x" },
		/* Every byte distinct: a wrong offset or size cannot read the right value. */
		{ -2147483647 - 1, "fifteen-chars-x", 0x0102030405060708ULL, 0x1112131415161718ULL,
		  0x2122232425262728ULL, "fifteen-chars-y", 0x31323334, "z" },
	};

	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		const struct overhead_record *r = &recs[i];
		struct pd_buf b = PD_BUF_INIT;
		struct tep_record rec = { 0 };
		struct overhead_record back;
		struct trace_seq s;
		char want[512], desc[128];
		u8 *base, *raw;

		pd_buf_append(&b, "prefix", 6); /* the payload starts where raw->len was */
		is(overhead_record_encode(&b, 4242, r), 0, "encode");
		raw = misaligned_copy(&(struct pd_buf){ b.data + 6, b.len - 6, 0, 0 }, &base);
		rec.data = raw;
		rec.size = (int)(b.len - 6);
		ok((4 + rec.size) % 8 == 0, "the payload fills whole u64s with its u32 size");

		/*
		 * perf 6.1's Python binding passes a signed field as its zero-extended value
		 * read as a long long: cpu must come back right that way, not only after a cast
		 * to int.
		 */
		snprintf(desc, sizeof(desc), "record %zu: libtraceevent reads every field back", i);
		ok(tep_data_type(tep, &rec) == OVERHEAD_EVENT_ID &&
			   tep_data_pid(tep, &rec) == 4242 &&
			   (long long)get(ev, &rec, "cpu") == r->cpu &&
			   !strcmp(get_str(ev, &rec, "type"), r->type) &&
			   get(ev, &rec, "nr") == r->nr && get(ev, &rec, "time_ns") == r->time_ns &&
			   get(ev, &rec, "span_ns") == r->span_ns &&
			   !strcmp(get_str(ev, &rec, "source"), r->source) &&
			   get(ev, &rec, "estimated") == r->estimated &&
			   !strcmp(get_str(ev, &rec, "reason"), r->reason),
		   desc);

		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		snprintf(want, sizeof(want),
			 "cpu=%d type=%s nr=%llu time_ns=%llu span_ns=%llu source=%s estimated=%u "
			 "reason=%s",
			 r->cpu, r->type, (unsigned long long)r->nr, (unsigned long long)r->time_ns,
			 (unsigned long long)r->span_ns, r->source, r->estimated, r->reason);
		snprintf(desc, sizeof(desc), "record %zu: the print fmt prints it as perf will", i);
		is_str(s.buffer, want, desc);
		trace_seq_destroy(&s);

		snprintf(desc, sizeof(desc), "record %zu: overhead_record_decode gives it back", i);
		ok(overhead_record_decode(raw, rec.size, &back) == 0 && back.cpu == r->cpu &&
			   !strcmp(back.type, r->type) && back.nr == r->nr &&
			   back.time_ns == r->time_ns && back.span_ns == r->span_ns &&
			   !strcmp(back.source, r->source) && back.estimated == r->estimated &&
			   !strcmp(back.reason, r->reason),
		   desc);
		free(base);
		pd_buf_release(&b);
	}
}

static void test_encode_errors(void)
{
	struct pd_buf b = PD_BUF_INIT;
	struct overhead_record r = { 0, "sample", 1, 1, 1, "bpf", 0, NULL };
	char *big = malloc(OVERHEAD_REASON_MAX + 2);
	struct overhead_record back;
	int pad_ok = 1;

	is(overhead_record_encode(&b, 1, &r), 0, "a NULL reason is encoded as \"\"");
	r.type = NULL;
	is(overhead_record_encode(&b, 1, &r), -EINVAL, "a NULL type is refused");
	r.type = "sample";
	r.source = NULL;
	is(overhead_record_encode(&b, 1, &r), -EINVAL, "a NULL source is refused");
	r.source = "bpf";
	memset(big, 'r', OVERHEAD_REASON_MAX + 1);
	big[OVERHEAD_REASON_MAX] = '\0';
	r.reason = big;
	is(overhead_record_encode(&b, 1, &r), 0, "a reason of OVERHEAD_REASON_MAX is encoded");
	big[OVERHEAD_REASON_MAX] = 'r';
	big[OVERHEAD_REASON_MAX + 1] = '\0';
	is(overhead_record_encode(&b, 1, &r), -EINVAL, "a longer reason is refused");
	for (int n = 0; n < 24; n++) {
		size_t before = b.len;

		big[n] = '\0';
		overhead_record_encode(&b, 1, &r);
		pad_ok &= (4 + b.len - before) % 8 == 0 &&
			  !overhead_record_decode(b.data + before, (u32)(b.len - before), &back) &&
			  strlen(back.reason) == (size_t)n;
		big[n] = 'r';
	}
	ok(pad_ok, "every reason length gives a padded payload that holds it");
	free(big);
	pd_buf_release(&b);
}

/* Offsets come from the parsed format, so that this test does not restate the layout. */
static void test_decode_errors(struct tep_event *ev)
{
	struct tep_format_field *ft = tep_find_field(ev, "type");
	struct tep_format_field *fs = tep_find_field(ev, "source");
	struct tep_format_field *fr = tep_find_field(ev, "reason");
	struct overhead_record r = { 3, "sideband", 7, 70, 1000, "calibration",
				     OVERHEAD_ESTIMATED, "0.5 us per record" };
	struct pd_buf b = PD_BUF_INIT;
	struct overhead_record back;
	size_t fixed, need;
	int bad = 0, good = 1;
	u8 *p, *saved;

	if (!ft || !fs || !fr) {
		ok(0, "type, source and reason fields exist");
		return;
	}
	fixed = fr->offset + fr->size;
	need = fixed + strlen(r.reason) + 1;
	overhead_record_encode(&b, 1, &r);
	p = b.data;
	/* Every cut short of the reason's NUL fails; cutting only padding is fine. */
	for (size_t n = 0; n < b.len; n++) {
		u8 *copy = malloc(n ? n : 1);
		int ret;

		memcpy(copy, p, n);
		ret = overhead_record_decode(copy, (u32)n, &back);
		if (n < need)
			bad += ret == -EINVAL;
		else
			good &= ret == 0 && !strcmp(back.reason, r.reason);
		free(copy);
	}
	is(bad, need, "every payload cut before the reason's end is refused");
	ok(good, "a payload cut inside its padding still decodes");
	is(overhead_record_decode(NULL, 100, &back), -EINVAL, "NULL is refused");

	saved = malloc(b.len);
	memcpy(saved, p, b.len);
	p[0] ^= 1;
	is(overhead_record_decode(p, b.len, &back), -EINVAL, "another common_type is refused");
	memcpy(p, saved, b.len);
	memset(p + ft->offset, 'T', ft->size);
	is(overhead_record_decode(p, b.len, &back), -EINVAL, "a type without NUL is refused");
	memcpy(p, saved, b.len);
	memset(p + fs->offset, 'S', fs->size);
	is(overhead_record_decode(p, b.len, &back), -EINVAL, "a source without NUL is refused");
	memcpy(p, saved, b.len);
	memset(p + tep_find_field(ev, "cpu")->offset + 4, 0x01, 1);
	is(overhead_record_decode(p, b.len, &back), -EINVAL, "a cpu beyond s32 is refused");
	memcpy(p, saved, b.len);
	is(overhead_record_decode(p, b.len, &back), 0, "restored, it decodes");

	{
		const u32 len = (u32)strlen(r.reason) + 1, off = (u32)fixed;
		const u32 locs[] = {
			0,                               /* empty */
			len << 16 | 8,                   /* into the fixed fields */
			len << 16 | 0xfff0,              /* past the end */
			0xffffu << 16 | off,             /* too long */
			(len - 1) << 16 | off,           /* without its NUL */
		};
		u32 loc;

		for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
			loc = locs[i];
			memcpy(p + fr->offset, &loc, 4);
			ok(overhead_record_decode(p, b.len, &back) == -EINVAL,
			   "a bad reason __data_loc is refused");
		}
	}
	free(saved);
	pd_buf_release(&b);
}

/* The type names: one table, every name parses back to its type, and encodes. */
static void test_types(void)
{
	int round = 1, fits = 1;

	for (int t = 0; t < OVERHEAD_TYPE_NR; t++) {
		const char *name = overhead_type_name((enum overhead_type)t);
		struct overhead_record r = { 0, name, 1, 1, 1, "bpf", 0, "" };
		struct pd_buf b = PD_BUF_INIT;

		round &= name && overhead_type_parse(name) == (enum overhead_type)t;
		fits &= name && !overhead_record_encode(&b, 1, &r);
		pd_buf_release(&b);
	}
	ok(round, "every type's name parses back to it");
	ok(fits, "and fits the type field");
	is_str(overhead_type_name(OVERHEAD_TYPE_SAMPLE), "sample", "the first type is sample");
	is_str(overhead_type_name(OVERHEAD_TYPE_AGGREGATE), "aggregate", "the last is aggregate");
	is(overhead_type_parse("sampl"), OVERHEAD_TYPE_OTHER, "a name it does not know is other");
	is(overhead_type_parse(NULL), OVERHEAD_TYPE_OTHER, "so is NULL");
	ok(!overhead_type_name(OVERHEAD_TYPE_OTHER) && !overhead_type_name((enum overhead_type)-1),
	   "other and out-of-range types have no name");
}

/*
 * What perf report reads of prec:overhead: one KSYMBOL per type naming a distinct address, and
 * samples at that address weighted by time_ns.
 */
static void test_symbols(void)
{
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_TIME, .sample_id_all = 1};
	struct overhead_record r = { 1, "stolen", 3, 12345, 1000, "calibration", 1, "" };
	struct pd_buf b = PD_BUF_INIT;
	struct pd_sample s = {0};
	size_t off = 0;
	int n = 0, each = 1, names = 1, distinct = 1;
	u64 chain[2];

	ok(!overhead_symbols_encode(&b, &a, NULL) && !b.err, "the KSYMBOL records encode");
	while (off + 8 <= b.len) {
		const u8 *p = b.data + off;
		const char *name = overhead_type_name((enum overhead_type)n);
		u16 size = pd_get_u16(p + 6);
		char want[32];

		if (size < 8 || off + size > b.len)
			break;
		snprintf(want, sizeof(want), "[prec:%s]", name ? name : "other");
		each &= pd_get_u32(p) == PERF_RECORD_KSYMBOL &&
			pd_get_u64(p + 8) == overhead_type_ip((enum overhead_type)n) &&
			pd_get_u32(p + 16) == OVERHEAD_SYMBOL_STRIDE;
		names &= !strcmp((const char *)p + 24, want) &&
			 !strcmp(overhead_type_symbol((enum overhead_type)n), want);
		for (int t = 0; t < n; t++)
			distinct &= overhead_type_ip((enum overhead_type)t) !=
				    overhead_type_ip((enum overhead_type)n);
		off += size;
		n++;
	}
	is(n, OVERHEAD_TYPE_OTHER + 1, "one KSYMBOL per type, and one for types it does not know");
	is(off, b.len, "and nothing else");
	ok(each, "each names its type's address, as long as the stride");
	ok(names, "as [prec:<type>]");
	ok(distinct, "every type has an address of its own");
	is(overhead_type_ip((enum overhead_type)99), overhead_type_ip(OVERHEAD_TYPE_OTHER),
	   "an out-of-range type gets other's address");

	overhead_sample_fill(&s, &r, chain);
	ok(s.ip == overhead_type_ip(OVERHEAD_TYPE_STOLEN) && s.misc == PERF_RECORD_MISC_KERNEL,
	   "a sample's ip is its type's address, in kernel mode");
	is(s.period, 12345, "its period is time_ns");
	ok(s.callchain_nr == 2 && s.callchain == chain && chain[0] == PERF_CONTEXT_KERNEL &&
	   chain[1] == s.ip, "its call chain is that address alone");
	r.type = "newer";
	overhead_sample_fill(&s, &r, chain);
	is(s.ip, overhead_type_ip(OVERHEAD_TYPE_OTHER), "a type this prec does not know is other");
	pd_buf_release(&b);
}

/* Which attrs are prec's own events, and which one of them is prec:overhead. */
static void test_attr_predicates(void)
{
	struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT, .config = OVERHEAD_EVENT_ID};

	ok(attr_is_prec_event(&a) && attr_is_overhead_event(&a), "prec:overhead is prec's own");
	a.config = PD_PREC_EVENT_ID_MAX;
	ok(attr_is_prec_event(&a) && !attr_is_overhead_event(&a),
	   "the last id of prec's range is prec's own, but not prec:overhead");
	a.config = PD_PREC_EVENT_ID_MAX + 1;
	ok(!attr_is_prec_event(&a), "an id above the range is not prec's");
	a.config = PD_PREC_EVENT_ID_BASE - 1;
	ok(!attr_is_prec_event(&a) && !attr_is_overhead_event(&a), "nor one below it");
	a.type = PERF_TYPE_SOFTWARE;
	a.config = OVERHEAD_EVENT_ID;
	ok(!attr_is_prec_event(&a) && !attr_is_overhead_event(&a),
	   "the same config on another type is not prec's");
	ok(!attr_is_prec_event(NULL) && !attr_is_overhead_event(NULL), "nor is no attr");

	/* The form a stream carries them in: bpf-output with the id in config1. */
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = OVERHEAD_EVENT_ID;
	ok(pd_prec_event_stream_attr(&a) && a.type == PERF_TYPE_SOFTWARE &&
	   a.config == PERF_COUNT_SW_BPF_OUTPUT && a.config1 == OVERHEAD_EVENT_ID,
	   "prec:overhead becomes bpf-output with its id in config1 in a stream");
	ok(attr_is_prec_event(&a) && attr_is_overhead_event(&a) &&
	   pd_prec_event_id(&a) == OVERHEAD_EVENT_ID, "and is still prec:overhead in that form");
	ok(!pd_prec_event_stream_attr(&a), "turning it twice changes nothing");
	a.config1 = PD_PREC_EVENT_ID_BASE - 1;
	ok(!attr_is_prec_event(&a), "a bpf-output event with another config1 is not prec's");
	a.config = PERF_COUNT_SW_DUMMY;
	a.config1 = OVERHEAD_EVENT_ID;
	ok(!attr_is_overhead_event(&a), "nor is another software event with that config1");
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = 300;
	ok(!pd_prec_event_stream_attr(&a) && a.type == PERF_TYPE_TRACEPOINT && a.config == 300,
	   "a kernel tracepoint keeps its form");
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;

	tep_set_long_size(tep, 8);
	test_format(tep, &ev);
	if (ev) {
		test_string_sizes(ev);
		test_tep_decodes(tep, ev);
		test_decode_errors(ev);
	}
	test_encode_errors();
	test_types();
	test_symbols();
	test_attr_predicates();
	tep_free(tep);
	return done_testing();
}
