// SPDX-License-Identifier: GPL-2.0
/* perf's names of the generic events (see event-names.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/event-names.h"

const char *const event_hw_names[EVENT_HW_NAMES][EVENT_NAME_ALIASES] = {
    [PERF_COUNT_HW_CPU_CYCLES] = {"cycles", "cpu-cycles"},
    [PERF_COUNT_HW_INSTRUCTIONS] = {"instructions"},
    [PERF_COUNT_HW_CACHE_REFERENCES] = {"cache-references"},
    [PERF_COUNT_HW_CACHE_MISSES] = {"cache-misses"},
    [PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = {"branches", "branch-instructions"},
    [PERF_COUNT_HW_BRANCH_MISSES] = {"branch-misses"},
    [PERF_COUNT_HW_BUS_CYCLES] = {"bus-cycles"},
    [PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = {"stalled-cycles-frontend", "idle-cycles-frontend"},
    [PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = {"stalled-cycles-backend", "idle-cycles-backend"},
    [PERF_COUNT_HW_REF_CPU_CYCLES] = {"ref-cycles"},
};

const char *const event_sw_names[EVENT_SW_NAMES][EVENT_NAME_ALIASES] = {
    [PERF_COUNT_SW_CPU_CLOCK] = {"cpu-clock"},
    [PERF_COUNT_SW_TASK_CLOCK] = {"task-clock"},
    [PERF_COUNT_SW_PAGE_FAULTS] = {"page-faults", "faults"},
    [PERF_COUNT_SW_CONTEXT_SWITCHES] = {"context-switches", "cs"},
    [PERF_COUNT_SW_CPU_MIGRATIONS] = {"cpu-migrations", "migrations"},
    [PERF_COUNT_SW_PAGE_FAULTS_MIN] = {"minor-faults"},
    [PERF_COUNT_SW_PAGE_FAULTS_MAJ] = {"major-faults"},
    [PERF_COUNT_SW_ALIGNMENT_FAULTS] = {"alignment-faults"},
    [PERF_COUNT_SW_EMULATION_FAULTS] = {"emulation-faults"},
    [PERF_COUNT_SW_DUMMY] = {"dummy"},
    [PERF_COUNT_SW_BPF_OUTPUT] = {"bpf-output"},
    [PERF_COUNT_SW_CGROUP_SWITCHES] = {"cgroup-switches"},
};

/* Hardware cache events: type[-op][-result], with perf's spellings. */
const char *const event_cache_types[PERF_COUNT_HW_CACHE_MAX][EVENT_NAME_ALIASES] = {
    {"L1-dcache", "l1-d", "l1d", "L1-data"},
    {"L1-icache", "l1-i", "l1i", "L1-instruction"},
    {"LLC", "L2"},
    {"dTLB", "d-tlb", "Data-TLB"},
    {"iTLB", "i-tlb", "Instruction-TLB"},
    {"branch", "branches", "bpu", "btb", "bpc"},
    {"node"},
};

const char *const event_cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][EVENT_NAME_ALIASES] = {
    {"load", "loads", "read"},
    {"store", "stores", "write"},
    {"prefetch", "prefetches", "speculative-read", "speculative-load"},
};

const char *const event_cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][EVENT_NAME_ALIASES] = {
    {"refs", "Reference", "ops", "access"},
    {"misses", "miss"},
};

/* evsel__add_modifiers(): ":u", ":k", ":ppp", ":H", ":G" as the exclusion bits say. */
static void add_modifiers(const struct perf_event_attr *a, char *buf, size_t len)
{
	size_t n = strlen(buf), colon = 0;
	bool exclude_guest_default = false;

#define MOD(excluded, c)                                                                           \
	do {                                                                                       \
		if (!(excluded) && n + 2 < len) {                                                  \
			if (!colon)                                                                \
				colon = ++n;                                                       \
			buf[n++] = (c);                                                            \
		}                                                                                  \
	} while (0)

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		exclude_guest_default = true;
	}
	if (a->precise_ip) {
		if (!colon && n + 1 < len)
			colon = ++n;
		for (unsigned i = 0; i < a->precise_ip && i < 3 && n + 1 < len; i++)
			buf[n++] = 'p';
		exclude_guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == exclude_guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	buf[n] = '\0';
	if (colon)
		buf[colon - 1] = ':';
}

void event_attr_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	__u64 c = a->config;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		snprintf(buf, len, "%s",
			 c < EVENT_HW_NAMES ? event_hw_names[c][0] : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		snprintf(buf, len, "%s",
			 c < EVENT_SW_NAMES ? event_sw_names[c][0] : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE: {
		__u64 type = c & 0xff, op = (c >> 8) & 0xff, result = (c >> 16) & 0xff;

		if (type >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			snprintf(buf, len, "invalid-cache");
		else if (result == 0)
			snprintf(buf, len, "%s-%s", event_cache_types[type][0],
				 event_cache_ops[op][0]);
		else
			snprintf(buf, len, "%s-%s-%s", event_cache_types[type][0],
				 event_cache_ops[op][0], event_cache_results[result][0]);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, len, "raw %#" PRIx64, (uint64_t)c);
		break;
	case PERF_TYPE_BREAKPOINT: {
		int n = snprintf(buf, len, "mem:%#" PRIx64 ":", (uint64_t)a->bp_addr);

		if (n > 0 && (size_t)n + 4 < len) {
			if (a->bp_type & 1)
				buf[n++] = 'r';
			if (a->bp_type & 2)
				buf[n++] = 'w';
			if (a->bp_type & 4)
				buf[n++] = 'x';
			buf[n] = '\0';
		}
		break;
	}
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, len, "unknown tracepoint");
		return;
	default:
		snprintf(buf, len, "unknown attr type: %u", a->type);
		return;
	}
	add_modifiers(a, buf, len);
}
