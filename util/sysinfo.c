// SPDX-License-Identifier: GPL-2.0
/*
 * The system features of a perf.data file, gathered as perf 6.1 gathers them (util/header.c
 * write_*(), arch/x86/util/header.c get_cpuid()), so that `perf report --header-only` prints the
 * same lines for prec's files as for perf's.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "format/perf-data.h"
#include "util/cpumap.h"
#include "util/sysinfo.h"

#define SYSFS_CPU "/sys/devices/system/cpu"

int sysinfo_cpuid(char *buf, int size)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int lvl, a, b, c, d, family = 0, model = 0, step = 0;
	char vendor[13];

	if (!__get_cpuid(0, &lvl, &b, &c, &d))
		return -ENOTSUP;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (lvl >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(buf, size, "%s,%u,%u,%u", vendor, family, model, step);
	return 0;
#else
	/* perf's other architectures each have their own format (arm64: the MIDR): not here. */
	(void)buf;
	(void)size;
	return -ENOTSUP;
#endif
}

int sysinfo_cpudesc(char *buf, int size)
{
	static const char *const keys[] = { "model name", "Processor", "cpu model", "cpu" };
	char line[1024];
	unsigned k;
	FILE *f;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t klen = strlen(keys[k]);
		bool found = false;

		f = fopen("/proc/cpuinfo", "re");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			char *p = line + klen, *o;
			bool space = false;

			if (strncmp(line, keys[k], klen) || (!isspace((unsigned char)*p) && *p != ':'))
				continue;
			p = strchr(p, ':');
			if (!p)
				continue;
			p++;
			while (isspace((unsigned char)*p))
				p++;
			/* Squash runs of white space (branding strings pad with them). */
			for (o = buf; *p && o < buf + size - 1; p++) {
				if (isspace((unsigned char)*p)) {
					space = true;
					continue;
				}
				if (space && o > buf && o < buf + size - 2)
					*o++ = ' ';
				space = false;
				*o++ = *p;
			}
			*o = '\0';
			found = true;
			break;
		}
		fclose(f);
		if (found)
			return 0;
	}
	return -ENOENT;
}

static int set_string(struct pd_writer *w, unsigned bit, const char *s)
{
	struct pd_buf b = PD_BUF_INIT;
	int err;

	pd_buf_string(&b, s);
	err = b.err ? b.err : pd_writer_set_feature(w, bit, b.data, b.len);
	pd_buf_release(&b);
	return err;
}

static u64 total_mem_kib(void)
{
	char line[256];
	u64 kib = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64, &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* A CPU's topology file's first line, newline stripped; NULL when it cannot be read. */
static char *read_topo(int cpu, const char *name)
{
	char path[256], buf[4096];
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_CPU "/cpu%d/topology/%s", cpu, name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

static u32 read_topo_u32(int cpu, const char *name)
{
	char *s = read_topo(cpu, name);
	long v;

	if (!s)
		return (u32)-1;
	v = strtol(s, NULL, 10);
	free(s);
	return (u32)v;
}

/* The first of two names that exists (newer kernels renamed the sibling lists). */
static char *read_topo2(int cpu, const char *name, const char *old_name)
{
	char *s = read_topo(cpu, name);

	return s ? s : read_topo(cpu, old_name);
}

struct strset {
	char **s;
	u32 nr;
};

/* Add s (taking it) unless it is there already. */
static int strset_add(struct strset *set, char *s)
{
	char **n;
	u32 i;

	if (!s)
		return 0;
	for (i = 0; i < set->nr; i++) {
		if (!strcmp(set->s[i], s)) {
			free(s);
			return 0;
		}
	}
	n = realloc(set->s, (set->nr + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return -ENOMEM;
	}
	set->s = n;
	set->s[set->nr++] = s;
	return 0;
}

static void strset_free(struct strset *set)
{
	u32 i;

	for (i = 0; i < set->nr; i++)
		free(set->s[i]);
	free(set->s);
}

/* perf looks for die topology only where the kernel has it to give: x86_64 and s390x. */
static bool has_die_topology(void)
{
	struct utsname u;
	char *s;

	if (uname(&u) < 0 || (strcmp(u.machine, "x86_64") && strcmp(u.machine, "s390x")))
		return false;
	s = read_topo(0, "die_cpus_list");
	free(s);
	return s != NULL;
}

/*
 * CPU_TOPOLOGY as perf's cpu_topology__new() and perf_env__read_cpu_topology_map() build it:
 * the distinct package and core sibling lists of the online CPUs, then core, socket and die ids
 * for each of nr_cpus (the "available" count of NRCPUS), -1 for CPUs that are not online.
 */
static int set_cpu_topology(struct pd_writer *w, const struct cpu_map *online, int nr_cpus)
{
	struct strset pkg = { 0 }, core = { 0 }, die = { 0 };
	u32 *core_id = NULL, *socket_id = NULL, *die_id = NULL;
	bool dies = has_die_topology();
	struct pd_buf b = PD_BUF_INIT;
	int i, err = 0;

	core_id = calloc(nr_cpus, sizeof(u32));
	socket_id = calloc(nr_cpus, sizeof(u32));
	die_id = calloc(nr_cpus, sizeof(u32));
	if (!core_id || !socket_id || !die_id) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr_cpus && !err; i++) {
		core_id[i] = socket_id[i] = die_id[i] = (u32)-1;
		if (!cpu_map_has(online, i))
			continue;
		err = strset_add(&pkg, read_topo2(i, "package_cpus_list", "core_siblings_list"));
		if (!err)
			err = strset_add(&core, read_topo2(i, "core_cpus_list", "thread_siblings_list"));
		if (!err && dies)
			err = strset_add(&die, read_topo(i, "die_cpus_list"));
		core_id[i] = read_topo_u32(i, "core_id");
		socket_id[i] = read_topo_u32(i, "physical_package_id");
		die_id[i] = read_topo_u32(i, "die_id");
	}
	/* Without sibling lists there is no topology to give (some containers hide it). */
	if (err || !pkg.nr || !core.nr)
		goto out;
	pd_feat_cpu_topology(&b, pkg.nr, (const char *const *)pkg.s, core.nr,
			     (const char *const *)core.s, (u32)nr_cpus, core_id, socket_id,
			     dies ? die.nr : 0, (const char *const *)die.s, die_id);
	err = b.err ? b.err : pd_writer_set_feature(w, PD_FEAT_CPU_TOPOLOGY, b.data, b.len);
out:
	pd_buf_release(&b);
	strset_free(&pkg);
	strset_free(&core);
	strset_free(&die);
	free(core_id);
	free(socket_id);
	free(die_id);
	return err;
}

int sysinfo_set_features(struct pd_writer *w, int argc, const char *const *argv)
{
	struct cpu_map online = CPU_MAP_INIT, present = CPU_MAP_INIT;
	struct pd_buf b = PD_BUF_INIT;
	struct utsname u;
	char buf[512];
	int err = 0, avail, nr_online;
	u64 mem;

	if (uname(&u) == 0) {
		err = set_string(w, PD_FEAT_HOSTNAME, u.nodename);
		if (!err)
			err = set_string(w, PD_FEAT_OSRELEASE, u.release);
		if (!err)
			err = set_string(w, PD_FEAT_ARCH, u.machine);
	}
	if (!err)
		err = set_string(w, PD_FEAT_VERSION, PACKAGE_NAME " " PACKAGE_VERSION);
	if (err)
		return err;

	/* perf: available = the highest present CPU + 1; online = sysconf's count. */
	cpu_map_online(&online);
	cpu_map_present(&present);
	avail = cpu_map_max(&present);
	nr_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (avail <= 0)
		avail = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (avail > 0 && nr_online > 0) {
		pd_feat_nrcpus(&b, (u32)avail, (u32)nr_online);
		err = b.err ? b.err : pd_writer_set_feature(w, PD_FEAT_NRCPUS, b.data, b.len);
		pd_buf_reset(&b);
	}
	if (!err && sysinfo_cpudesc(buf, sizeof(buf)) == 0)
		err = set_string(w, PD_FEAT_CPUDESC, buf);
	if (!err && sysinfo_cpuid(buf, sizeof(buf)) == 0)
		err = set_string(w, PD_FEAT_CPUID, buf);
	mem = total_mem_kib();
	if (!err && mem) {
		pd_feat_total_mem(&b, mem);
		err = b.err ? b.err : pd_writer_set_feature(w, PD_FEAT_TOTAL_MEM, b.data, b.len);
		pd_buf_reset(&b);
	}
	if (!err && argc > 0) {
		pd_feat_cmdline(&b, argc, argv);
		err = b.err ? b.err : pd_writer_set_feature(w, PD_FEAT_CMDLINE, b.data, b.len);
		pd_buf_reset(&b);
	}
	/* CPU_TOPOLOGY is read by perf against NRCPUS: only with it. */
	if (!err && avail > 0 && online.nr)
		err = set_cpu_topology(w, &online, avail);
	pd_buf_release(&b);
	cpu_map_free(&online);
	cpu_map_free(&present);
	return err;
}
