/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's names of the generic events, by their config: the hardware, software and hardware-cache
 * events as -e spells them (record/parse-events.c reads them) and as perf's evsel__name() shows
 * them (prec report names a file's events with them). Each row holds the name perf shows, then
 * the other spellings -e takes for the same event; unused slots are NULL.
 */
#ifndef PREC_UTIL_EVENT_NAMES_H
#define PREC_UTIL_EVENT_NAMES_H

#include <stddef.h>
#include <linux/perf_event.h>

#define EVENT_NAME_ALIASES 5
/* The configs perf 6.1 names: PERF_COUNT_HW_MAX and PERF_COUNT_SW_MAX of its headers. */
#define EVENT_HW_NAMES 10
#define EVENT_SW_NAMES 12

extern const char *const event_hw_names[EVENT_HW_NAMES][EVENT_NAME_ALIASES];
extern const char *const event_sw_names[EVENT_SW_NAMES][EVENT_NAME_ALIASES];
extern const char *const event_cache_types[PERF_COUNT_HW_CACHE_MAX][EVENT_NAME_ALIASES];
extern const char *const event_cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][EVENT_NAME_ALIASES];
extern const char *const event_cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][EVENT_NAME_ALIASES];

/**
 * event_attr_name - the name perf's evsel__name() builds from an attr alone, modifiers
 * included: "cpu-clock", "cycles:u", "L1-dcache-load-misses", "raw 0x1c2", "mem:0x10:rw",
 * "unknown attr type: 9". The result is cut to fit len.
 */
void event_attr_name(const struct perf_event_attr *attr, char *buf, size_t len);

#endif
