/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prec:overhead, the synthetic tracepoint that carries what profiling cost. perf 6.1 aborts on
 * record types it does not know, so overhead figures are samples of this event, whose format goes
 * into HEADER_TRACING_DATA: `perf script` prints the fields by name and `perf script -s` calls
 * prec__overhead(..., cpu, type, nr, time_ns, span_ns, source, estimated, reason).
 *
 * Raw payload layout (little-endian; offsets from the start of the raw data):
 *	 0 u16 common_type = OVERHEAD_EVENT_ID, u8 common_flags, u8 common_preempt_count
 *	 4 s32 common_pid
 *	 8 s64 cpu		CPU the figure is for; -1 for whole-session costs
 *	16 char type[16]	sample, stolen, mux, sideband, recorder, write, throttle, lost,
 *				aggregate
 *	32 u64 nr		events counted (samples, rotations, records, ...)
 *	40 u64 time_ns		their cost in ns (0 with estimated=2: unavailable)
 *	48 u64 span_ns		the length of time the figure covers
 *	56 char source[16]	bpf, tracepoint, calibration, ring-buffer, rusage, clock, ...
 *	72 u32 estimated	0 measured, 1 estimated, 2 unavailable (reason says why)
 *	76 __data_loc char[] reason	(u32: len << 16 | offset; len counts the NUL)
 *	80 the reason string, NUL-terminated, then zeros up to (4 + size) % 8 == 0
 *
 * cpu is 8 bytes on disk because perf 6.1 hands a signed field to Python as its zero-extended
 * value read as a long long: an s32 -1 would arrive as 4294967295 (checked with perf 6.1).
 */
#ifndef PREC_OVERHEAD_EVENT_H
#define PREC_OVERHEAD_EVENT_H

#include "format/perf-data.h"

#define OVERHEAD_SYSTEM "prec"
#define OVERHEAD_EVENT "overhead"
#define OVERHEAD_EVENT_ID PD_PREC_EVENT_ID_BASE

/**
 * attr_is_prec_event - whether attr is one of prec's own synthetic events (prec:overhead and any
 * that come after it): a tracepoint with an id from PD_PREC_EVENT_ID_BASE to
 * PD_PREC_EVENT_ID_MAX, or the bpf-output event it becomes in a stream (pd_prec_event_id()).
 * No counter and no workload stand behind their samples.
 *
 * Return: true for such an attr, false for any other and for NULL.
 */
bool attr_is_prec_event(const struct perf_event_attr *attr);

/**
 * attr_is_overhead_event - whether attr is prec:overhead, whose samples carry the records
 * overhead_record_decode() reads.
 *
 * Return: true for prec:overhead, false for any other attr and for NULL.
 */
bool attr_is_overhead_event(const struct perf_event_attr *attr);

enum overhead_estimated {
	OVERHEAD_MEASURED = 0,
	OVERHEAD_ESTIMATED = 1,
	OVERHEAD_UNAVAILABLE = 2,
};

/*
 * What a figure is (the type field), in the order reports list them: the interrupt time of the
 * sampling handler (sample) and what sampling steals from the program in all (stolen), the
 * multiplexing rotation (mux), side-band records (sideband), time throttled without samples
 * (throttle), records the ring buffers dropped (lost), and the recorder's own CPU time and write
 * time (recorder, write; cpu -1), and the run time of the BPF program that counts stacks in the
 * kernel under --aggregate (aggregate).
 */
enum overhead_type {
	OVERHEAD_TYPE_SAMPLE,
	OVERHEAD_TYPE_STOLEN,
	OVERHEAD_TYPE_MUX,
	OVERHEAD_TYPE_SIDEBAND,
	OVERHEAD_TYPE_THROTTLE,
	OVERHEAD_TYPE_LOST,
	OVERHEAD_TYPE_RECORDER,
	OVERHEAD_TYPE_WRITE,
	OVERHEAD_TYPE_AGGREGATE,
	OVERHEAD_TYPE_NR,
	OVERHEAD_TYPE_OTHER = OVERHEAD_TYPE_NR, /* a name this prec does not know (a newer one) */
};

/**
 * overhead_type_name - "sample", "stolen", ... as the type field carries it.
 *
 * Return: the name, or NULL for OVERHEAD_TYPE_OTHER and values out of range.
 */
const char *overhead_type_name(enum overhead_type t);

/**
 * overhead_type_parse - the type a type field names.
 *
 * Return: the type, or OVERHEAD_TYPE_OTHER for NULL and names this prec does not know.
 */
enum overhead_type overhead_type_parse(const char *s);

/*
 * perf report lists the samples of an event by symbol; each prec:overhead sample has the address
 * of its type as its ip (in kernel space, where no kernel or module code is), and a KSYMBOL record
 * names that address "[prec:<type>]", so the section perf report prints for prec:overhead has one
 * row per type, weighted by the period, which is the figure's time_ns. Types this prec does not
 * know share the OVERHEAD_TYPE_OTHER slot, "[prec:other]".
 */
#define OVERHEAD_SYMBOL_BASE 0x10000ULL
#define OVERHEAD_SYMBOL_STRIDE 0x1000ULL

/**
 * overhead_type_ip - the address that stands for a type in the ip of prec:overhead samples.
 *
 * Return: the address; values out of range get OVERHEAD_TYPE_OTHER's.
 */
u64 overhead_type_ip(enum overhead_type t);

/**
 * overhead_type_symbol - the symbol of a type: "[prec:sample]", ..., "[prec:other]".
 *
 * Return: the name; values out of range get OVERHEAD_TYPE_OTHER's.
 */
const char *overhead_type_symbol(enum overhead_type t);

/* What a prec:overhead attr samples: overhead_sample_fill() sets ip and period. */
#define OVERHEAD_SAMPLE_TYPE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/**
 * overhead_symbols_encode - append the KSYMBOL records that name every type's address, which must
 * come before the first prec:overhead sample.
 * @attr: the layout of their sample_id trailer
 * @id: the trailer's values (its time at or before the first sample), or NULL
 *
 * Return: 0, or the negative errno of the encoder (-ENOMEM).
 */
int overhead_symbols_encode(struct pd_buf *out, const struct perf_event_attr *attr,
			    const struct pd_sample *id);

struct overhead_record;

/**
 * overhead_sample_fill - what perf report reads of the sample of one record: the ip of its type,
 * a call chain of that ip alone (used when the attr samples call chains: perf report 6.1 would
 * otherwise show the previous sample's chain under it), kernel mode, and time_ns as the period.
 * @chain: two u64s that s->callchain points to afterwards
 */
void overhead_sample_fill(struct pd_sample *s, const struct overhead_record *r, u64 chain[2]);

/* The longest reason an encoded record carries, without its NUL. */
#define OVERHEAD_REASON_MAX 1023

struct overhead_record {
	s32 cpu;
	const char *type;   /* at most 15 characters */
	u64 nr;
	u64 time_ns;
	u64 span_ns;
	const char *source; /* at most 15 characters */
	u32 estimated;      /* enum overhead_estimated */
	const char *reason; /* "" when there is nothing to say */
};

/* The format text of prec:overhead, for pd_tracing_add_format(). */
extern const char overhead_event_format[];

/**
 * overhead_record_encode - append the raw payload of one prec:overhead sample to raw.
 * @pid: the common_pid field
 *
 * The payload is zero-padded so that 4 + its length is a multiple of 8 (as the kernel pads raw
 * data): use its length as the sample's raw_size.
 *
 * Return: 0, or -EINVAL when type, source or reason is too long or type or source is NULL.
 */
int overhead_record_encode(struct pd_buf *raw, s32 pid, const struct overhead_record *r);

/**
 * overhead_record_decode - decode a raw payload; strings point into raw.
 *
 * Return: 0, or -EINVAL when the payload is short, has another common_type, a cpu outside s32,
 * a type or source without its NUL, or a reason that is empty, unterminated or outside the
 * payload. estimated is returned as stored (it may be above OVERHEAD_UNAVAILABLE in a foreign
 * file).
 */
int overhead_record_decode(const void *raw, u32 size, struct overhead_record *r);

#endif
