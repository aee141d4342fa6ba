// SPDX-License-Identifier: GPL-2.0
/*
 * prec's own synthetic events (prec:overhead and any after it) in the two forms they take.
 *
 * In a file they are tracepoints whose formats travel in HEADER_TRACING_DATA. A stream cannot
 * carry tracing data that perf 6.1's pipe tools all survive: the blob follows its 16-byte record
 * outside the record's size, and perf reads it straight from the descriptor, so `perf inject`
 * (which reads its input through a stdio buffer) finds the descriptor already past it ("tracing
 * data size mismatch"), and `perf report --task` (whose tool has no handler for it) takes the
 * blob for records ("unexpected end of event stream"). perf's own pipe recordings of any
 * tracepoint fail the same way. So in a stream that has no tracepoint of the kernel they travel
 * as what perf has for opaque raw payloads, bpf-output software events, with the tracepoint id
 * in config1 (unused by software events, kept by every perf tool that copies the attr); the
 * samples are the same bytes in both forms, and the raw payload still begins with common_type =
 * the id.
 */
#include "format/internal.h"

/**
 * pd_prec_event_id - the tracepoint id of one of prec's own events, in either form.
 *
 * Return: the id (PD_PREC_EVENT_ID_BASE to PD_PREC_EVENT_ID_MAX), or 0 for any other attr and
 * for NULL.
 */
u64 pd_prec_event_id(const struct perf_event_attr *a)
{
	u64 id;

	if (!a)
		return 0;
	if (a->type == PERF_TYPE_TRACEPOINT)
		id = a->config;
	else if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT)
		id = a->config1;
	else
		return 0;
	return id >= PD_PREC_EVENT_ID_BASE && id <= PD_PREC_EVENT_ID_MAX ? id : 0;
}

/**
 * pd_prec_event_stream_attr - turn the tracepoint form of one of prec's events into the form
 * it takes in a stream; any other attr is left as it is.
 *
 * Return: true when a was changed.
 */
bool pd_prec_event_stream_attr(struct perf_event_attr *a)
{
	if (a->type != PERF_TYPE_TRACEPOINT || !pd_prec_event_id(a))
		return false;
	a->type = PERF_TYPE_SOFTWARE;
	a->config1 = a->config;
	a->config = PERF_COUNT_SW_BPF_OUTPUT;
	return true;
}
