// SPDX-License-Identifier: GPL-2.0
/* CPU lists: "0-3,7" to a sorted array of CPU numbers and back. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpumap.h"

void cpu_map_free(struct cpu_map *m)
{
	free(m->cpus);
	m->cpus = NULL;
	m->nr = 0;
}

static int parse_cpu(const char **sp, int *cpu)
{
	const char *s = *sp;
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s++ - '0');
		if (v > CPU_MAP_MAX_CPU)
			return -EINVAL;
	}
	*cpu = (int)v;
	*sp = s;
	return 0;
}

int cpu_map_parse(struct cpu_map *m, const char *s)
{
	unsigned char *set = NULL;
	int max = -1, i, n, err = -EINVAL;

	cpu_map_free(m);
	set = calloc(CPU_MAP_MAX_CPU + 1, 1);
	if (!set)
		return -ENOMEM;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		int lo, hi;

		if (parse_cpu(&s, &lo))
			goto out;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_cpu(&s, &hi) || hi < lo)
				goto out;
		}
		for (i = lo; i <= hi; i++)
			set[i] = 1;
		if (hi > max)
			max = hi;
		if (*s == ',') {
			s++;
			if (!isdigit((unsigned char)*s))
				goto out;
		} else if (*s && !isspace((unsigned char)*s)) {
			goto out;
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		goto out;
	for (i = 0, n = 0; i <= max; i++)
		n += set[i];
	err = 0;
	if (!n)
		goto out;
	m->cpus = malloc(n * sizeof(int));
	if (!m->cpus) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= max; i++)
		if (set[i])
			m->cpus[m->nr++] = i;
out:
	free(set);
	return err;
}

int cpu_map_read(struct cpu_map *m, const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f;

	cpu_map_free(m);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* A list that fills the buffer was cut: better an error than a wrong map. */
	if (n == sizeof(buf) - 1)
		return -E2BIG;
	buf[n] = '\0';
	return cpu_map_parse(m, buf);
}

int cpu_map_online(struct cpu_map *m)
{
	return cpu_map_read(m, "/sys/devices/system/cpu/online");
}

int cpu_map_present(struct cpu_map *m)
{
	return cpu_map_read(m, "/sys/devices/system/cpu/present");
}

int cpu_map_print(const struct cpu_map *m, char *buf, int size)
{
	int i = 0, len = 0;

	if (size > 0)
		buf[0] = '\0';
	while (i < m->nr) {
		int j = i, n;

		while (j + 1 < m->nr && m->cpus[j + 1] == m->cpus[j] + 1)
			j++;
		if (j == i)
			n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
				     "%s%d", i ? "," : "", m->cpus[i]);
		else
			n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
				     "%s%d-%d", i ? "," : "", m->cpus[i], m->cpus[j]);
		len += n;
		i = j + 1;
	}
	return len;
}

bool cpu_map_has(const struct cpu_map *m, int cpu)
{
	int lo = 0, hi = m->nr - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (m->cpus[mid] == cpu)
			return true;
		if (m->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

int cpu_map_max(const struct cpu_map *m)
{
	return m->nr ? m->cpus[m->nr - 1] + 1 : 0;
}
