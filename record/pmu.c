// SPDX-License-Identifier: GPL-2.0
/* Reading sysfs PMUs: type, format/ bit layouts and events/ aliases. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "record/pmu.h"
#include "util/fs.h"
#include "util/xalloc.h"

int pmu_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

const char *pmu_devices_dir(void)
{
	static char path[PATH_MAX];
	const char *root = getenv("PREC_SYSFS_ROOT");

	if (!root || !*root)
		root = "/sys";
	if (pmu_pathf(path, sizeof(path), "%s/bus/event_source/devices", root) < 0)
		snprintf(path, sizeof(path), "/nonexistent"); /* a root that long names nothing */
	return path;
}

/* Drop all whitespace: sysfs files end with a newline and some aliases carry spaces. */
static void squeeze(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			*d++ = *s;
	*d = '\0';
}

/*
 * "config:0-7,21" or "config1:0-15": which attr word, and which of its bits. Return: 0, or -1
 * when the text is not of that form (bits above 63, config3 which perf_event_attr here lacks).
 */
static int parse_format(const char *text, struct pmu_format *f)
{
	const char *p;
	char *end;

	if (!strncmp(text, "config2:", 8)) {
		f->field = 2;
		p = text + 8;
	} else if (!strncmp(text, "config1:", 8)) {
		f->field = 1;
		p = text + 8;
	} else if (!strncmp(text, "config:", 7)) {
		f->field = 0;
		p = text + 7;
	} else {
		return -1;
	}
	f->bits = 0;
	for (;;) {
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -1;
		for (unsigned long b = lo; b <= hi; b++)
			f->bits |= 1ULL << b;
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

/* Skip . and .., and the side files of an event that perf also ignores. */
static bool skip_entry(const char *name)
{
	static const char *const side[] = {".scale", ".unit", ".per-pkg", ".snapshot"};
	size_t len = strlen(name);

	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		size_t n = strlen(side[i]);

		if (len > n && !strcmp(name + len - n, side[i]))
			return true;
	}
	return false;
}

static int load_formats(struct pmu *pmu, const char *dir, char *errbuf, size_t errlen)
{
	char path[PATH_MAX], text[256];
	struct dirent *de;
	DIR *d;

	if (pmu_pathf(path, sizeof(path), "%s/format", dir) < 0)
		return 0;
	d = opendir(path);
	if (!d)
		return 0; /* software-like PMUs have no formats */
	while ((de = readdir(d))) {
		struct pmu_format f;

		if (skip_entry(de->d_name))
			continue;
		if (pmu_pathf(path, sizeof(path), "%s/format/%s", dir, de->d_name) < 0 ||
		    read_small_file(path, text, sizeof(text)) < 0)
			continue;
		squeeze(text);
		if (parse_format(text, &f) < 0) {
			snprintf(errbuf, errlen, "%s: cannot parse '%s' (expected config:N-M,...)",
				 path, text);
			closedir(d);
			errno = EINVAL;
			return -1;
		}
		f.name = xstrdup(de->d_name);
		pmu->formats = xrealloc(pmu->formats, (pmu->nr_formats + 1) * sizeof(f));
		pmu->formats[pmu->nr_formats++] = f;
	}
	closedir(d);
	return 0;
}

static void load_aliases(struct pmu *pmu, const char *dir)
{
	char path[PATH_MAX], text[4096];
	struct dirent *de;
	DIR *d;

	if (pmu_pathf(path, sizeof(path), "%s/events", dir) < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct pmu_alias a;

		if (skip_entry(de->d_name))
			continue;
		if (pmu_pathf(path, sizeof(path), "%s/events/%s", dir, de->d_name) < 0 ||
		    read_small_file(path, text, sizeof(text)) < 0)
			continue;
		squeeze(text);
		a.name = xstrdup(de->d_name);
		a.terms = xstrdup(text);
		pmu->aliases = xrealloc(pmu->aliases, (pmu->nr_aliases + 1) * sizeof(a));
		pmu->aliases[pmu->nr_aliases++] = a;
	}
	closedir(d);
}

struct pmu *pmu_load(const char *name, char *errbuf, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], text[64];
	unsigned long type;
	struct pmu *pmu;
	char *end;
	int ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = ENOENT;
		return NULL;
	}
	if (pmu_pathf(dir, sizeof(dir), "%s/%s", pmu_devices_dir(), name) < 0 ||
	    pmu_pathf(path, sizeof(path), "%s/type", dir) < 0)
		ret = -ENOENT;
	else
		ret = read_small_file(path, text, sizeof(text));
	if (ret < 0) {
		if (ret == -ENOENT || ret == -ENOTDIR) {
			errno = ENOENT;
			return NULL;
		}
		snprintf(errbuf, errlen, "cannot read %s: %s", path, strerror(-ret));
		errno = -ret;
		return NULL;
	}
	squeeze(text);
	errno = 0;
	type = strtoul(text, &end, 10);
	if (!*text || *end || errno || type > UINT_MAX) {
		snprintf(errbuf, errlen, "%s: '%s' is not a PMU type number", path, text);
		errno = EINVAL;
		return NULL;
	}
	pmu = xcalloc(1, sizeof(*pmu));
	pmu->name = xstrdup(name);
	pmu->type = type;
	pmu->is_core =
	    !strcmp(name, "cpu") || type == PERF_TYPE_RAW ||
	    (pmu_pathf(path, sizeof(path), "%s/cpus", dir) == 0 && access(path, F_OK) == 0);
	if (load_formats(pmu, dir, errbuf, errlen) < 0) {
		int e = errno;

		pmu_free(pmu);
		errno = e;
		return NULL;
	}
	load_aliases(pmu, dir);
	return pmu;
}

void pmu_free(struct pmu *pmu)
{
	if (!pmu)
		return;
	for (int i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	for (int i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
	}
	free(pmu->formats);
	free(pmu->aliases);
	free(pmu->name);
	free(pmu);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **pmu_names(void)
{
	struct dirent *de;
	char **names;
	int nr = 0;
	DIR *d;

	d = opendir(pmu_devices_dir());
	if (!d)
		return NULL;
	names = xcalloc(1, sizeof(*names));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (nr + 2) * sizeof(*names));
		names[nr++] = xstrdup(de->d_name);
		names[nr] = NULL;
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp_names);
	return names;
}

void pmu_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

const struct pmu_format *pmu_find_format(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const struct pmu_alias *pmu_find_alias(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_aliases; i++)
		if (!strcasecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

__u64 pmu_format_max(const struct pmu_format *f)
{
	int n = __builtin_popcountll(f->bits);

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

__u64 pmu_format_spread(const struct pmu_format *f, __u64 value)
{
	__u64 out = 0;
	int vbit = 0;

	for (int b = 0; b < 64; b++) {
		if (!(f->bits & (1ULL << b)))
			continue;
		if (value & (1ULL << vbit))
			out |= 1ULL << b;
		vbit++;
	}
	return out;
}
