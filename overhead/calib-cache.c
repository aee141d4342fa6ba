// SPDX-License-Identifier: GPL-2.0
/* The calibration cache of overhead/calib-cache.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "overhead/calib-cache.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define MAGIC "prec-calibration 1"
#define BOOT_ID_MAX 63
#define WORD_MAX 127
/* Lines kept at most: a file that grew beyond this (by hand) keeps its newest. */
#define ENTRIES_MAX 4096

struct entry {
	char kind[WORD_MAX + 1], key[WORD_MAX + 1];
	u64 time_ns;
	struct overhead_calib c; /* c.cpu is the entry's; no err, reason or elapsed_ns */
};

struct calib_cache {
	char *path;
	char boot_id[BOOT_ID_MAX + 1];
	u64 now_ns;
	struct entry *e;
	size_t nr, cap;
	bool dirty;
};

/* A word for the file: at most WORD_MAX characters, no white space. */
static bool good_word(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > WORD_MAX)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static struct entry *find(const struct calib_cache *cc, const char *kind, const char *key, int cpu)
{
	for (size_t i = 0; i < cc->nr; i++) {
		struct entry *e = &cc->e[i];

		if (e->c.cpu == cpu && !strcmp(e->kind, kind) && !strcmp(e->key, key))
			return e;
	}
	return NULL;
}

static struct entry *add(struct calib_cache *cc)
{
	if (cc->nr == ENTRIES_MAX) {
		/* The oldest goes. */
		size_t old = 0;

		for (size_t i = 1; i < cc->nr; i++)
			if (cc->e[i].time_ns < cc->e[old].time_ns)
				old = i;
		return &cc->e[old];
	}
	if (cc->nr == cc->cap) {
		cc->cap = cc->cap ? 2 * cc->cap : 16;
		cc->e = xrealloc(cc->e, cc->cap * sizeof(*cc->e));
	}
	return &cc->e[cc->nr++];
}

/* A figure in ns as calibrations give them: finite, and within a day either way. */
static bool plausible(double ns)
{
	return isfinite(ns) && fabs(ns) <= 86400e9;
}

/* Keep c (for its CPU) under kind and key, measured at time t, unless a newer one is there. */
static void set_entry(struct calib_cache *cc, const char *kind, const char *key, u64 t,
		      const struct overhead_calib *c)
{
	struct entry *e = find(cc, kind, key, c->cpu);

	if (e && e->time_ns > t)
		return;
	if (!e)
		e = add(cc);
	memset(e, 0, sizeof(*e));
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->time_ns = t;
	e->c = *c;
	e->c.err = 0;
	e->c.reason[0] = '\0';
	e->c.elapsed_ns = 0;
}

/* One line of the file; false when it is damaged or of another boot. */
static bool parse_line(struct calib_cache *cc, const char *line)
{
	char boot[BOOT_ID_MAX + 1], kind[WORD_MAX + 1], key[WORD_MAX + 1];
	unsigned long long t, units, gap;
	double ns, min_ns, max_ns, loop_ns, handler_ns;
	int cpu, runs, rejected, end = 0;
	struct overhead_calib c;

	if (sscanf(line, "%63s %127s %127s %d %llu %lf %lf %lf %d %d %llu %lf %llu %lf %n", boot,
		   kind, key, &cpu, &t, &ns, &min_ns, &max_ns, &runs, &rejected, &units, &loop_ns,
		   &gap, &handler_ns, &end) != 14 ||
	    line[end])
		return false;
	if (strcmp(boot, cc->boot_id) || cpu < -1 || runs <= 0 || runs > OVERHEAD_CALIB_MAX_RUNS ||
	    rejected < 0 || !plausible(min_ns) || !plausible(ns) || !plausible(max_ns) ||
	    !(min_ns <= ns && ns <= max_ns) || !plausible(loop_ns) || loop_ns < 0 ||
	    !plausible(handler_ns) || handler_ns < 0 || t > cc->now_ns)
		return false;
	memset(&c, 0, sizeof(c));
	c.cpu = cpu;
	c.ns = ns;
	c.min_ns = min_ns;
	c.max_ns = max_ns;
	c.runs = runs;
	c.rejected = rejected;
	c.units = units;
	c.loop_ns = loop_ns;
	c.gap_ns = gap;
	c.handler_ns = handler_ns;
	set_entry(cc, kind, key, t, &c);
	return true;
}

struct calib_cache *calib_cache_open_at(const char *path, const char *boot_id, u64 now_ns)
{
	struct calib_cache *cc;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (!path || !boot_id || !*boot_id || strlen(boot_id) > BOOT_ID_MAX)
		return NULL;
	cc = xcalloc(1, sizeof(*cc));
	cc->path = xstrdup(path);
	snprintf(cc->boot_id, sizeof(cc->boot_id), "%s", boot_id);
	cc->now_ns = now_ns;
	f = fopen(path, "re");
	if (!f)
		return cc;
	n = getline(&line, &cap, f);
	if (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n < 0 || strcmp(line, MAGIC)) {
		/* Another layout, or damaged: rewritten at the next save. */
		cc->dirty = true;
	} else {
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] == '\n')
				line[--n] = '\0';
			if (!parse_line(cc, line))
				cc->dirty = true; /* dropped at the next save */
		}
	}
	free(line);
	fclose(f);
	return cc;
}

struct calib_cache *calib_cache_open(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char boot[BOOT_ID_MAX + 1], path[4096];
	struct timespec ts;
	ssize_t n;
	int len;

	n = read_small_file("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (n <= 0)
		return NULL;
	boot[strcspn(boot, " \t\n")] = '\0';
	if (!good_word(boot) || clock_gettime(CLOCK_BOOTTIME, &ts))
		return NULL;
	if (xdg && *xdg == '/')
		len = snprintf(path, sizeof(path), "%s/prec/calibration", xdg);
	else if (home && *home == '/')
		len = snprintf(path, sizeof(path), "%s/.cache/prec/calibration", home);
	else
		return NULL;
	if (len < 0 || (size_t)len >= sizeof(path))
		return NULL;
	return calib_cache_open_at(path, boot, (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec);
}

void calib_cache_key(const struct perf_event_attr *a, char *buf, size_t len)
{
	if (!a) {
		snprintf(buf, len, "none");
		return;
	}
	/* The rate, or the period when the rate is not known from the attr (-c of other events). */
	snprintf(buf, len, "t%u,c%llx,%llx,%llx,s%llx,x%u%u%u%u%u,p%u,i%u,m%u,k%d,%s%.0f", a->type,
		 (unsigned long long)a->config, (unsigned long long)a->config1,
		 (unsigned long long)a->config2, (unsigned long long)a->sample_type,
		 a->exclude_user, a->exclude_kernel, a->exclude_hv, a->exclude_callchain_user,
		 a->exclude_callchain_kernel, a->precise_ip, a->sample_id_all, a->sample_max_stack,
		 a->use_clockid ? a->clockid : -1, overhead_calib_rate(a) > 0 ? "r" : "c",
		 overhead_calib_rate(a) > 0 ? overhead_calib_rate(a) : (double)a->sample_period);
	/* A stack copy in each sample (dwarf call graphs) costs the interrupt by its size. */
	if (a->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) {
		size_t n = strlen(buf);

		snprintf(buf + n, len > n ? len - n : 0, ",u%llx,%u",
			 (unsigned long long)a->sample_regs_user, a->sample_stack_user);
	}
}

bool calib_cache_get(const struct calib_cache *cc, const char *kind, const char *key, int cpu,
		     struct overhead_calib *out, u64 *age_ns)
{
	const struct entry *e;

	if (!cc)
		return false;
	e = find(cc, kind, key, cpu);
	if (!e || cc->now_ns - e->time_ns > OVERHEAD_CALIB_CACHE_MAX_AGE_NS)
		return false;
	*out = e->c;
	*age_ns = cc->now_ns - e->time_ns;
	return true;
}

void calib_cache_put(struct calib_cache *cc, const char *kind, const char *key,
		     const struct overhead_calib *c)
{
	if (!cc || c->err || c->reason[0] || c->runs <= 0 || !good_word(kind) || !good_word(key))
		return;
	set_entry(cc, kind, key, cc->now_ns, c);
	cc->dirty = true;
}

/* mkdir -p of the directory of path, private to the user. */
static int make_dir_of(const char *path)
{
	char *d = xstrdup(path), *end = strrchr(d, '/'), *p;
	int err = 0;

	if (end && end != d) {
		*end = '\0';
		for (p = strchr(d + 1, '/');; p = strchr(p + 1, '/')) {
			if (p)
				*p = '\0';
			if (mkdir(d, 0700) && errno != EEXIST)
				err = -errno;
			if (!p || err)
				break;
			*p = '/';
		}
	}
	free(d);
	return err;
}

int calib_cache_save(struct calib_cache *cc)
{
	char tmp[4200];
	FILE *f;
	int err;

	if (!cc || !cc->dirty)
		return 0;
	err = make_dir_of(cc->path);
	if (err)
		return err;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", cc->path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", MAGIC);
	for (size_t i = 0; i < cc->nr; i++) {
		const struct entry *e = &cc->e[i];

		fprintf(f, "%s %s %s %d %" PRIu64 " %.3f %.3f %.3f %d %d %" PRIu64 " %.3f %" PRIu64
			   " %.3f\n",
			cc->boot_id, e->kind, e->key, e->c.cpu, e->time_ns, e->c.ns, e->c.min_ns,
			e->c.max_ns, e->c.runs, e->c.rejected, e->c.units, e->c.loop_ns, e->c.gap_ns,
			e->c.handler_ns);
	}
	if (fflush(f) || ferror(f)) {
		err = -errno;
		fclose(f);
		unlink(tmp);
		return err ? err : -EIO;
	}
	if (fclose(f) || rename(tmp, cc->path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	cc->dirty = false;
	return 0;
}

void calib_cache_close(struct calib_cache *cc)
{
	if (!cc)
		return;
	free(cc->e);
	free(cc->path);
	free(cc);
}
