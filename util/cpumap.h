/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists as the kernel and perf write them ("0-3,7"): parsing, printing, and the online and
 * present CPUs of this machine.
 */
#ifndef PREC_UTIL_CPUMAP_H
#define PREC_UTIL_CPUMAP_H

#include <stdbool.h>

/* CPU numbers above this are refused: no machine has them and a typo should not allocate GBs. */
#define CPU_MAP_MAX_CPU 65534

struct cpu_map {
	int nr;
	int *cpus; /* ascending, no duplicates */
};

#define CPU_MAP_INIT { 0, NULL }

/**
 * cpu_map_parse - parse a CPU list such as "0-3,7" (surrounding white space and a trailing
 * newline allowed; "" is the empty list) into m, replacing what m held.
 *
 * Return: 0, -EINVAL for a malformed list or a CPU above CPU_MAP_MAX_CPU, or -ENOMEM. m is
 * left empty on failure.
 */
int cpu_map_parse(struct cpu_map *m, const char *s);

/**
 * cpu_map_read - parse the CPU list in a file such as /sys/devices/system/cpu/online.
 *
 * Return: 0 or a negative errno.
 */
int cpu_map_read(struct cpu_map *m, const char *path);

/* The CPUs online now, and those present (which perf counts as "available"). */
int cpu_map_online(struct cpu_map *m);
int cpu_map_present(struct cpu_map *m);

/**
 * cpu_map_print - write m as a CPU list ("0-3,7") into buf, like snprintf.
 *
 * Return: the length of the whole list, which may exceed size - 1 (then buf holds a prefix).
 */
int cpu_map_print(const struct cpu_map *m, char *buf, int size);

bool cpu_map_has(const struct cpu_map *m, int cpu);
/* The largest CPU number plus one; 0 for an empty map. */
int cpu_map_max(const struct cpu_map *m);
void cpu_map_free(struct cpu_map *m);

#endif
