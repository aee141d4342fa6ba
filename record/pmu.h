/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PMUs the kernel lists under /sys/bus/event_source/devices: each has a type number for
 * perf_event_attr.type, format/ files that say which bits of config, config1 and config2 a term
 * such as event= or umask= fills, and events/ files that name term lists ("event=0x3c").
 *
 * The sysfs root is /sys unless PREC_SYSFS_ROOT names another directory with the same layout
 * (the unit tests point it at tests/fixtures/sysfs to get an x86-like core PMU on any machine).
 */
#ifndef PREC_RECORD_PMU_H
#define PREC_RECORD_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct pmu_format {
	char *name;
	int field;  /* which attr word: 0 config, 1 config1, 2 config2 */
	__u64 bits; /* the bits of that word a value is spread over, its low bit in the lowest */
};

struct pmu_alias {
	char *name;  /* file name in events/ */
	char *terms; /* its contents, e.g. "event=0x3c,umask=0x00" (whitespace removed) */
};

struct pmu {
	char *name;
	__u32 type;
	bool is_core; /* the CPU's own PMU: "cpu", type PERF_TYPE_RAW, or one with a cpus file */
	struct pmu_format *formats;
	int nr_formats;
	struct pmu_alias *aliases;
	int nr_aliases;
};

/**
 * pmu_pathf - snprintf for paths.
 *
 * Return: 0, or -ENAMETOOLONG when the path did not fit (buf then holds a truncated string).
 */
__attribute__((format(printf, 3, 4))) int pmu_pathf(char *buf, size_t size, const char *fmt, ...);

/**
 * pmu_devices_dir - the directory that holds one subdirectory per PMU.
 *
 * Return: "$PREC_SYSFS_ROOT/bus/event_source/devices", or /sys/bus/event_source/devices, in a
 * static buffer.
 */
const char *pmu_devices_dir(void);

/**
 * pmu_load - read one PMU's type, formats and event aliases from sysfs.
 * @name: the PMU's directory name
 * @errbuf: receives the reason when the PMU exists but cannot be read
 *
 * Return: the PMU, or NULL with errno set: ENOENT when there is no such PMU (errbuf untouched),
 * anything else with errbuf explaining (a format file that does not parse, an unreadable type).
 */
struct pmu *pmu_load(const char *name, char *errbuf, size_t errlen);

/**
 * pmu_free - free what pmu_load() returned (NULL is fine).
 */
void pmu_free(struct pmu *pmu);

/**
 * pmu_names - list the PMUs, sorted by name.
 *
 * Return: a NULL-terminated array to free with pmu_names_free(), or NULL when the devices
 * directory cannot be read (errno set).
 */
char **pmu_names(void);

/**
 * pmu_names_free - free what pmu_names() returned (NULL is fine).
 */
void pmu_names_free(char **names);

/**
 * pmu_find_format - the format term called name (exact match, as the kernel names them).
 *
 * Return: the format or NULL.
 */
const struct pmu_format *pmu_find_format(const struct pmu *pmu, const char *name);

/**
 * pmu_find_alias - the event alias called name, ignoring case as perf does.
 *
 * Return: the alias or NULL.
 */
const struct pmu_alias *pmu_find_alias(const struct pmu *pmu, const char *name);

/**
 * pmu_format_max - the largest value a format term can hold (2^bits - 1).
 */
__u64 pmu_format_max(const struct pmu_format *f);

/**
 * pmu_format_spread - spread value over the bits of f (lowest value bit into the lowest format
 * bit).
 *
 * Return: the bits to OR into the attr word f->field names.
 */
__u64 pmu_format_spread(const struct pmu_format *f, __u64 value);

#endif
