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
 *	 8 s32 cpu		CPU the figure is for; -1 for whole-session costs
 *	12 char type[12]	sample, stolen, mux, sideband, recorder, write, throttle, lost
 *	24 u64 nr		events counted (samples, rotations, records, ...)
 *	32 u64 time_ns		their cost in ns (0 with estimated=2: unavailable)
 *	40 u64 span_ns		the length of time the figure covers
 *	48 char source[16]	bpf, tracepoint, calibration, ring-buffer, rusage, clock, ...
 *	64 u32 estimated	0 measured, 1 estimated, 2 unavailable (reason says why)
 *	68 __data_loc char[] reason	(u32: len << 16 | offset)
 *	72 the reason string, NUL-terminated
 */
#ifndef PREC_OVERHEAD_EVENT_H
#define PREC_OVERHEAD_EVENT_H

#include "format/perf-data.h"

#define OVERHEAD_SYSTEM "prec"
#define OVERHEAD_EVENT "overhead"
#define OVERHEAD_EVENT_ID PD_PREC_EVENT_ID_BASE

enum overhead_estimated {
	OVERHEAD_MEASURED = 0,
	OVERHEAD_ESTIMATED = 1,
	OVERHEAD_UNAVAILABLE = 2,
};

struct overhead_record {
	s32 cpu;
	const char *type;   /* at most 11 characters */
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
 * Return: 0, or -EINVAL when type or source is too long.
 */
int overhead_record_encode(struct pd_buf *raw, s32 pid, const struct overhead_record *r);

/**
 * overhead_record_decode - decode a raw payload; strings point into raw.
 *
 * Return: 0, or -EINVAL when the payload is short, has another common_type or a bad reason.
 */
int overhead_record_decode(const void *raw, u32 size, struct overhead_record *r);

#endif
