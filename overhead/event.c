// SPDX-License-Identifier: GPL-2.0
/*
 * prec:overhead: its format text and the raw payload of its samples. The offsets below and the
 * format text say the same thing; tests/unit/test-overhead-event.c parses the text with
 * libtraceevent and checks every field against what overhead_record_encode() writes.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "overhead/event.h"

#define OFF_CPU 8
#define OFF_TYPE 16
#define LEN_TYPE 16
#define OFF_NR 32
#define OFF_TIME 40
#define OFF_SPAN 48
#define OFF_SOURCE 56
#define LEN_SOURCE 16
#define OFF_ESTIMATED 72
#define OFF_REASON 76
#define OFF_STRINGS 80

#define STR(x) #x
#define XSTR(x) STR(x)

/*
 * Written like tracefs writes kernel formats. Char arrays are signed:0 because perf's Python
 * binding turns them into str either way; the only signed number is cpu (-1: no CPU), 8 bytes
 * wide so that perf's Python binding passes -1 and not 4294967295 (see event.h).
 */
const char overhead_event_format[] =
	"name: " OVERHEAD_EVENT "\n"
	"ID: " XSTR(PD_PREC_EVENT_ID_BASE) "\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:s64 cpu;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:char type[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:u64 nr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 time_ns;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 span_ns;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:char source[16];\toffset:56;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned int estimated;\toffset:72;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] reason;\toffset:76;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"cpu=%d type=%s nr=%llu time_ns=%llu span_ns=%llu source=%s estimated=%u "
	"reason=%s\", REC->cpu, REC->type, REC->nr, REC->time_ns, REC->span_ns, REC->source, "
	"REC->estimated, __get_str(reason)\n";

/* The ID is spelled out in the text above, so it must be the literal the macro expands to. */
_Static_assert(OVERHEAD_EVENT_ID == 65000, "update the ID in overhead_event_format");

static const char *const type_names[OVERHEAD_TYPE_NR] = {
	[OVERHEAD_TYPE_SAMPLE] = "sample",
	[OVERHEAD_TYPE_STOLEN] = "stolen",
	[OVERHEAD_TYPE_MUX] = "mux",
	[OVERHEAD_TYPE_SIDEBAND] = "sideband",
	[OVERHEAD_TYPE_THROTTLE] = "throttle",
	[OVERHEAD_TYPE_LOST] = "lost",
	[OVERHEAD_TYPE_RECORDER] = "recorder",
	[OVERHEAD_TYPE_WRITE] = "write",
	[OVERHEAD_TYPE_AGGREGATE] = "aggregate",
};

/**
 * overhead_type_name - the name of a type, as the type field carries it.
 *
 * Return: the name, or NULL for OVERHEAD_TYPE_OTHER and anything out of range.
 */
const char *overhead_type_name(enum overhead_type t)
{
	return (unsigned)t < OVERHEAD_TYPE_NR ? type_names[t] : NULL;
}

/**
 * overhead_type_parse - the type a type field names.
 *
 * Return: the type, or OVERHEAD_TYPE_OTHER for NULL and names this prec does not know.
 */
enum overhead_type overhead_type_parse(const char *s)
{
	for (int t = 0; s && t < OVERHEAD_TYPE_NR; t++)
		if (!strcmp(s, type_names[t]))
			return (enum overhead_type)t;
	return OVERHEAD_TYPE_OTHER;
}

static const char *const type_symbols[OVERHEAD_TYPE_NR + 1] = {
	[OVERHEAD_TYPE_SAMPLE] = "[prec:sample]",
	[OVERHEAD_TYPE_STOLEN] = "[prec:stolen]",
	[OVERHEAD_TYPE_MUX] = "[prec:mux]",
	[OVERHEAD_TYPE_SIDEBAND] = "[prec:sideband]",
	[OVERHEAD_TYPE_THROTTLE] = "[prec:throttle]",
	[OVERHEAD_TYPE_LOST] = "[prec:lost]",
	[OVERHEAD_TYPE_RECORDER] = "[prec:recorder]",
	[OVERHEAD_TYPE_WRITE] = "[prec:write]",
	[OVERHEAD_TYPE_AGGREGATE] = "[prec:aggregate]",
	[OVERHEAD_TYPE_OTHER] = "[prec:other]",
};

/**
 * overhead_type_ip - the address that stands for a type in the ip of prec:overhead samples.
 *
 * Return: the address; values out of range get OVERHEAD_TYPE_OTHER's.
 */
u64 overhead_type_ip(enum overhead_type t)
{
	if ((unsigned)t > OVERHEAD_TYPE_OTHER)
		t = OVERHEAD_TYPE_OTHER;
	return OVERHEAD_SYMBOL_BASE + (u64)t * OVERHEAD_SYMBOL_STRIDE;
}

/**
 * overhead_type_symbol - the symbol of a type, as a KSYMBOL record names overhead_type_ip(t).
 *
 * The brackets are perf's mark of a name that is no file: perf does not look for one (with
 * --sort srcline, perf 6.1 runs addr2line on any other name and dies of SIGPIPE when it fails).
 *
 * Return: the name; values out of range get OVERHEAD_TYPE_OTHER's.
 */
const char *overhead_type_symbol(enum overhead_type t)
{
	return type_symbols[(unsigned)t > OVERHEAD_TYPE_OTHER ? OVERHEAD_TYPE_OTHER : t];
}

/**
 * overhead_symbols_encode - append the KSYMBOL records that name every type's address.
 *
 * Return: 0, or the negative errno of the encoder.
 */
int overhead_symbols_encode(struct pd_buf *out, const struct perf_event_attr *attr,
			    const struct pd_sample *id)
{
	for (int t = 0; t <= OVERHEAD_TYPE_OTHER; t++) {
		struct pd_ksymbol_body ks = {
			.addr = overhead_type_ip((enum overhead_type)t),
			.len = OVERHEAD_SYMBOL_STRIDE,
		};
		const char *name = overhead_type_symbol((enum overhead_type)t);
		int err = pd_encode_ksymbol(out, attr, &ks, name, id);

		if (err)
			return err;
	}
	return 0;
}

/**
 * overhead_sample_fill - set ip, call chain, cpumode and period of the sample of record r.
 */
void overhead_sample_fill(struct pd_sample *s, const struct overhead_record *r, u64 chain[2])
{
	chain[0] = PERF_CONTEXT_KERNEL;
	chain[1] = overhead_type_ip(overhead_type_parse(r->type));
	s->misc = PERF_RECORD_MISC_KERNEL;
	s->ip = chain[1];
	s->callchain_nr = 2;
	s->callchain = chain;
	s->period = r->time_ns;
}

/**
 * attr_is_prec_event - whether attr is one of prec's own synthetic events.
 *
 * Return: true for a tracepoint with an id in prec's range (or its stream form), false
 * otherwise and for NULL.
 */
bool attr_is_prec_event(const struct perf_event_attr *attr)
{
	return pd_prec_event_id(attr) != 0;
}

/**
 * attr_is_overhead_event - whether attr is prec:overhead.
 *
 * Return: true for prec:overhead, false otherwise and for NULL.
 */
bool attr_is_overhead_event(const struct perf_event_attr *attr)
{
	return pd_prec_event_id(attr) == OVERHEAD_EVENT_ID;
}

/**
 * overhead_record_encode - append the raw payload of one prec:overhead sample to raw.
 * @pid: the common_pid field
 *
 * The payload is zero-padded so that 4 + its length is a multiple of 8, as the kernel pads raw
 * data: with the u32 size in front it fills whole u64s of the sample.
 *
 * Return: 0, or -EINVAL when type, source or reason is too long (or NULL), -ENOMEM.
 */
int overhead_record_encode(struct pd_buf *raw, s32 pid, const struct overhead_record *r)
{
	size_t tlen, slen, rlen, len;
	const char *reason;
	u8 *p;

	if (!r->type || !r->source)
		return -EINVAL;
	reason = r->reason ? r->reason : "";
	tlen = strlen(r->type);
	slen = strlen(r->source);
	rlen = strlen(reason) + 1;
	if (tlen >= LEN_TYPE || slen >= LEN_SOURCE || rlen > OVERHEAD_REASON_MAX + 1)
		return -EINVAL;
	len = OFF_STRINGS + rlen;
	len += (8 - (4 + len) % 8) % 8;

	p = pd_buf_append(raw, NULL, len);
	if (!p)
		return raw->err ? raw->err : -ENOMEM;
	pd_put_u16(p, OVERHEAD_EVENT_ID);
	/* common_flags and common_preempt_count stay 0: nothing was interrupted. */
	pd_put_u32(p + 4, (u32)pid);
	pd_put_u64(p + OFF_CPU, (u64)(s64)r->cpu);
	memcpy(p + OFF_TYPE, r->type, tlen);
	pd_put_u64(p + OFF_NR, r->nr);
	pd_put_u64(p + OFF_TIME, r->time_ns);
	pd_put_u64(p + OFF_SPAN, r->span_ns);
	memcpy(p + OFF_SOURCE, r->source, slen);
	pd_put_u32(p + OFF_ESTIMATED, r->estimated);
	pd_put_u32(p + OFF_REASON, (u32)(rlen << 16 | OFF_STRINGS));
	memcpy(p + OFF_STRINGS, reason, rlen);
	return 0;
}

/**
 * overhead_record_decode - decode a raw payload; strings point into raw.
 *
 * Return: 0, or -EINVAL when the payload is short, has another common_type, a cpu outside s32, a
 * string that is not NUL-terminated inside its field, or a reason outside the payload.
 */
int overhead_record_decode(const void *raw, u32 size, struct overhead_record *r)
{
	const u8 *p = raw;
	u32 loc, off, len;
	s64 cpu;

	if (!raw || size < OFF_STRINGS || pd_get_u16(p) != OVERHEAD_EVENT_ID)
		return -EINVAL;
	if (!memchr(p + OFF_TYPE, '\0', LEN_TYPE) || !memchr(p + OFF_SOURCE, '\0', LEN_SOURCE))
		return -EINVAL;
	loc = pd_get_u32(p + OFF_REASON);
	off = loc & 0xffff;
	len = loc >> 16;
	if (off < OFF_STRINGS || off > size || !len || len > size - off || p[off + len - 1] != '\0')
		return -EINVAL;

	cpu = (s64)pd_get_u64(p + OFF_CPU);
	if (cpu < INT32_MIN || cpu > INT32_MAX)
		return -EINVAL;
	r->cpu = (s32)cpu;
	r->type = (const char *)p + OFF_TYPE;
	r->nr = pd_get_u64(p + OFF_NR);
	r->time_ns = pd_get_u64(p + OFF_TIME);
	r->span_ns = pd_get_u64(p + OFF_SPAN);
	r->source = (const char *)p + OFF_SOURCE;
	r->estimated = pd_get_u32(p + OFF_ESTIMATED);
	r->reason = (const char *)p + off;
	return 0;
}
