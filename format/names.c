// SPDX-License-Identifier: GPL-2.0
/*
 * Names of record types and features, spelled as perf 6.1 prints them: the record types as in
 * util/event.c (perf_event__names, what `perf report --stats` shows before "events:"), the
 * features as in util/header.c (feat_ops[].name, what `perf report --header-only` lists after
 * "missing features:").
 */
#include "format/internal.h"

static const char *const record_names[PD_RECORD_HEADER_MAX] = {
    [PERF_RECORD_MMAP] = "MMAP",
    [PERF_RECORD_LOST] = "LOST",
    [PERF_RECORD_COMM] = "COMM",
    [PERF_RECORD_EXIT] = "EXIT",
    [PERF_RECORD_THROTTLE] = "THROTTLE",
    [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
    [PERF_RECORD_FORK] = "FORK",
    [PERF_RECORD_READ] = "READ",
    [PERF_RECORD_SAMPLE] = "SAMPLE",
    [PERF_RECORD_MMAP2] = "MMAP2",
    [PERF_RECORD_AUX] = "AUX",
    [PERF_RECORD_ITRACE_START] = "ITRACE_START",
    [PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
    [PERF_RECORD_SWITCH] = "SWITCH",
    [PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
    [PERF_RECORD_NAMESPACES] = "NAMESPACES",
    [PERF_RECORD_KSYMBOL] = "KSYMBOL",
    [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
    [PERF_RECORD_CGROUP] = "CGROUP",
    [PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
    [PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
    [PD_RECORD_HEADER_ATTR] = "ATTR",
    [PD_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
    [PD_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
    [PD_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
    [PD_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
    [PD_RECORD_ID_INDEX] = "ID_INDEX",
    [PD_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
    [PD_RECORD_AUXTRACE] = "AUXTRACE",
    [PD_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
    [PD_RECORD_THREAD_MAP] = "THREAD_MAP",
    [PD_RECORD_CPU_MAP] = "CPU_MAP",
    [PD_RECORD_STAT_CONFIG] = "STAT_CONFIG",
    [PD_RECORD_STAT] = "STAT",
    [PD_RECORD_STAT_ROUND] = "STAT_ROUND",
    [PD_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
    [PD_RECORD_TIME_CONV] = "TIME_CONV",
    [PD_RECORD_HEADER_FEATURE] = "FEATURE",
    [PD_RECORD_COMPRESSED] = "COMPRESSED",
    [PD_RECORD_FINISHED_INIT] = "FINISHED_INIT",
};

/**
 * pd_record_type_name - perf's label for a record type ("SAMPLE", "FINISHED_ROUND").
 *
 * Return: the label, or NULL for a type perf 6.1 does not know (0, 22-63, 83 and up).
 */
const char *pd_record_type_name(u32 type)
{
	if (type >= PD_RECORD_HEADER_MAX)
		return NULL;
	return record_names[type];
}

static const char *const feature_names[PD_FEAT_LAST_KNOWN] = {
    [PD_FEAT_TRACING_DATA] = "TRACING_DATA",
    [PD_FEAT_BUILD_ID] = "BUILD_ID",
    [PD_FEAT_HOSTNAME] = "HOSTNAME",
    [PD_FEAT_OSRELEASE] = "OSRELEASE",
    [PD_FEAT_VERSION] = "VERSION",
    [PD_FEAT_ARCH] = "ARCH",
    [PD_FEAT_NRCPUS] = "NRCPUS",
    [PD_FEAT_CPUDESC] = "CPUDESC",
    [PD_FEAT_CPUID] = "CPUID",
    [PD_FEAT_TOTAL_MEM] = "TOTAL_MEM",
    [PD_FEAT_CMDLINE] = "CMDLINE",
    [PD_FEAT_EVENT_DESC] = "EVENT_DESC",
    [PD_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
    [PD_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
    [PD_FEAT_BRANCH_STACK] = "BRANCH_STACK",
    [PD_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
    [PD_FEAT_GROUP_DESC] = "GROUP_DESC",
    [PD_FEAT_AUXTRACE] = "AUXTRACE",
    [PD_FEAT_STAT] = "STAT",
    [PD_FEAT_CACHE] = "CACHE",
    [PD_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
    [PD_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
    [PD_FEAT_CLOCKID] = "CLOCKID",
    [PD_FEAT_DIR_FORMAT] = "DIR_FORMAT",
    [PD_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
    [PD_FEAT_BPF_BTF] = "BPF_BTF",
    [PD_FEAT_COMPRESSED] = "COMPRESSED",
    [PD_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
    [PD_FEAT_CLOCK_DATA] = "CLOCK_DATA",
    [PD_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
    [PD_FEAT_PMU_CAPS] = "PMU_CAPS",
};

/**
 * pd_feature_name - perf's name of a feature bit ("HOSTNAME", "EVENT_DESC").
 *
 * Return: the name; "PREC" for prec's own bit (PD_FEAT_PREC); NULL for bit 0 and for the other
 * bits perf 6.1 does not know.
 */
const char *pd_feature_name(unsigned bit)
{
	if (bit == PD_FEAT_PREC)
		return "PREC";
	if (bit >= PD_FEAT_LAST_KNOWN)
		return NULL;
	return feature_names[bit];
}
