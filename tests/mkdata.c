// SPDX-License-Identifier: GPL-2.0
/*
 * mkdata: write perf.data files of known contents with format/'s writer, for
 * tests/t0010-perf-reads-prec.sh, which has the real perf read them and compares what perf prints
 * with the manifest mkdata prints on stdout: one "key value..." line per fact written.
 *
 * usage: mkdata KIND FILE
 *   events      cpu-clock, task-clock and the group {page-faults,context-switches}: COMM, MMAP2
 *               of the bundled hot3 workload, samples whose callchains are hot3's real symbols
 *   compressed  the same with many more samples, zstd-compressed into several COMPRESSED records
 *   pipe        the same as events, in pipe mode
 *   compressed-pipe  compressed, in pipe mode
 *   tracepoint  sched:sched_switch samples whose raw payloads follow tracefs's format
 *   tracepoint-pipe  the same in pipe mode (HEADER_TRACING_DATA)
 *   overhead    prec:overhead samples
 *   stat        cpu-clock samples and counter readings: THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT
 *               and STAT_ROUND records for task-clock and context-switches
 *   latecomm    cpu-clock samples (with call chains) of hot3, of a second process that no FORK
 *               announced, sampled as ":4243" until its COMM (exec) names it "late", and of a
 *               thread 4244 sampled unnamed, then forked anew from an unnamed parent and named
 *               "again"
 *   aggregated  what prec record --aggregate writes: cpu-clock samples of hot3 counted in the
 *               kernel (one SAMPLE per key and interval, WEIGHT the kernel samples, PERIOD
 *               their sum), one key whose kernel stack was lost ("[lost stack]", a KSYMBOL),
 *               the facts saying so, and task-clock samples recorded as usual beside them
 *   groupread   group samples that read their group (-e '{...}:S'): the hardware group
 *               {cycles,instructions,branch-misses,cache-references,cache-misses} whose leader
 *               alternates windows of 999700 and 300 (two threads, two CPUs, a throttled span,
 *               an address without a symbol; the facts say hf-period=300), and
 *               {task-clock,page-faults,context-switches}
 *   groupthrottle  two {task-clock,page-faults}:S groups, one per-CPU (not inherit), one
 *               inherit (two threads under one id), each with a throttled span whose UNTHROTTLE
 *               names another thread than its THROTTLE, as the kernel writes them
 *   groupnoid   {task-clock,page-faults}:S read without ids (no PERF_FORMAT_ID), the member
 *               sampling too, one sample on the second CPU; the group is in GROUP_DESC
 *   groupwrap   {task-clock,page-faults}:S whose leader's windows add up past 2^64 (damaged
 *               values: two windows of 2^63 ns, a reset between them)
 *
 * Exit status: 0; 77 when KIND cannot be made here (the reason on stderr); 1 on an error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

#include "format/perf-data.h"
#include "overhead/event.h"
#include "overhead/facts.h"
#include "util/sysinfo.h"

#define SKIP 77
#define PID 4242
#define T0 1000000000ULL	/* the first timestamp: 1 s */
#define TSTEP 1000000ULL	/* 1 ms between records */
#define PIE_BASE 0x555555554000ULL

static const char *prog = "mkdata";

/* Everything one file needs while it is being made. */
struct mk {
	struct pd_writer *w;
	struct pd_buf rec;
	struct perf_event_attr attr0; /* the layout of trailers (every attr has the same) */
	u64 time;
	int nr_samples;
};

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

__attribute__((format(printf, 1, 2), noreturn)) static void skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: cannot make this here: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(SKIP);
}

static void check(int err, const char *what)
{
	if (err < 0)
		fail("%s: %s", what, strerror(-err));
}

/* Hand the records built so far to the writer. */
static void put(struct mk *m)
{
	check(m->rec.err, "building a record");
	check(pd_writer_write(m->w, m->rec.data, m->rec.len), "pd_writer_write");
	pd_buf_reset(&m->rec);
}

static struct perf_event_attr base_attr(u32 type, u64 config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 10007;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	a.exclude_guest = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	return a;
}

static struct pd_sample id_of(const struct mk *m, u64 id, u32 cpu)
{
	struct pd_sample s = {
		.pid = PID, .tid = PID, .time = m->time, .id = id, .cpu = cpu,
	};

	return s;
}

/* ---------------------------------------------------------------------------------------- */
/* The kernel map: with it perf report does not warn that kernel maps were restricted. */

struct ksym {
	u64 text, etext;
};

static int kernel_text(struct ksym *k)
{
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");

	k->text = k->etext = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			k->text = addr;
		else if (!strcmp(name, "_etext"))
			k->etext = addr;
	}
	fclose(f);
	return k->text ? 0 : -EACCES;
}

/*
 * The kernel MMAP perf record writes ([kernel.kallsyms]_text, pgoff = _text) when addresses can be
 * had; otherwise every attr gets exclude_kernel, the other way to keep perf report quiet.
 * Returns whether the map was written.
 */
static bool kernel_map(struct mk *m)
{
	struct pd_mmap_body body = { .pid = (u32)-1, .tid = 0 };
	struct pd_sample id = id_of(m, 0, 0);
	struct ksym k;

	if (kernel_text(&k))
		return false;
	id.pid = id.tid = (u32)-1;
	id.time = 0;
	id.cpu = (u32)-1;
	body.start = k.text;
	body.len = k.etext > k.text ? k.etext - k.text : 0x1000000;
	body.pgoff = k.text;
	check(pd_encode_mmap(&m->rec, &m->attr0, PERF_RECORD_MISC_KERNEL, &body,
			     "[kernel.kallsyms]_text", &id), "kernel MMAP");
	put(m);
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* hot3: the workload's path, its executable segment and the addresses of its symbols. */

struct hot3 {
	char path[PATH_MAX];
	u64 base; /* where the file is mapped (PIE) or 0 */
	u64 start, len, pgoff;
	struct stat st;
	struct {
		const char *name;
		u64 addr, size;
	} sym[5];
};

enum { SYM_HOT_A, SYM_HOT_B, SYM_HOT_C, SYM_RUN_ROUND, SYM_MAIN };

static void find_hot3(struct hot3 *h)
{
	const char *env = getenv("PREC_HOT3");
	char self[PATH_MAX];
	ssize_t n;

	if (env) {
		snprintf(h->path, sizeof(h->path), "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			fail("/proc/self/exe: %s", strerror(errno));
		self[n] = '\0';
		snprintf(h->path, sizeof(h->path), "%s/workloads/hot3", dirname(self));
	}
	if (!realpath(h->path, self))
		skip("the hot3 workload is not built (%s): %s", h->path, strerror(errno));
	snprintf(h->path, sizeof(h->path), "%s", self);
}

static void load_hot3(struct hot3 *h)
{
	static const char *const names[] = { "hot_a", "hot_b", "hot_c", "run_round", "main" };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	bool text = false;
	int fd, found = 0;
	Elf *e;

	find_hot3(h);
	if (elf_version(EV_CURRENT) == EV_NONE)
		fail("libelf: %s", elf_errmsg(-1));
	fd = open(h->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &h->st) < 0)
		fail("%s: %s", h->path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		fail("%s: %s", h->path, elf_errmsg(-1));
	h->base = eh.e_type == ET_DYN ? PIE_BASE : 0;
	for (i = 0; i < nph && !text; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		h->start = h->base + (ph.p_vaddr & ~0xfffULL);
		h->len = ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL) - (ph.p_vaddr & ~0xfffULL);
		h->pgoff = ph.p_offset & ~0xfffULL;
		text = true;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t j;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (j = 0; d && j < sh.sh_size / sh.sh_entsize; j++) {
			GElf_Sym sym;
			const char *name;
			size_t k;

			if (!gelf_getsym(d, (int)j, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			for (k = 0; name && k < 5; k++) {
				if (strcmp(name, names[k]) || h->sym[k].name)
					continue;
				h->sym[k].name = names[k];
				h->sym[k].addr = h->base + sym.st_value;
				h->sym[k].size = sym.st_size;
				found++;
			}
		}
	}
	elf_end(e);
	close(fd);
	if (!text || found != 5)
		fail("%s: no executable segment or not all of hot_a, hot_b, hot_c, run_round, main",
		     h->path);
}

/* An address inside a function: a quarter of the way in, away from both ends. */
static u64 inside(const struct hot3 *h, int sym)
{
	return h->sym[sym].addr + h->sym[sym].size / 4;
}

static void comm_and_mmap(struct mk *m, const struct hot3 *h)
{
	struct pd_mmap2_body mm = { .pid = PID, .tid = PID };
	struct pd_sample id = id_of(m, 0, 0);

	check(pd_encode_comm(&m->rec, &m->attr0, PID, PID, "hot3", true, &id), "COMM");
	mm.start = h->start;
	mm.len = h->len;
	mm.pgoff = h->pgoff;
	mm.maj = major(h->st.st_dev);
	mm.min = minor(h->st.st_dev);
	mm.ino = h->st.st_ino;
	mm.prot = PROT_READ | PROT_EXEC;
	mm.flags = MAP_PRIVATE;
	check(pd_encode_mmap2(&m->rec, &m->attr0, PERF_RECORD_MISC_USER, &mm, h->path, &id),
	      "MMAP2");
	put(m);
	printf("comm hot3\n");
	printf("dso %s\n", h->path);
}

static void exit_record(struct mk *m)
{
	struct pd_fork_body body = { PID, PID, PID, PID, m->time };
	struct pd_sample id = id_of(m, 0, 0);

	check(pd_encode_fork(&m->rec, &m->attr0, true, 0, &body, &id), "EXIT");
	put(m);
}

static void open_writer(struct mk *m, const char *file, unsigned flags, int argc, char **argv)
{
	memset(m, 0, sizeof(*m));
	m->time = T0;
	check(pd_writer_open(&m->w, file, flags), file);
	check(sysinfo_set_features(m->w, argc, (const char *const *)argv), "system features");
}

static void close_writer(struct mk *m, u64 first, u64 last)
{
	struct pd_buf b = PD_BUF_INIT;

	pd_feat_sample_time(&b, first, last);
	check(b.err, "SAMPLE_TIME");
	check(pd_writer_set_feature(m->w, PD_FEAT_SAMPLE_TIME, b.data, b.len), "SAMPLE_TIME");
	pd_buf_release(&b);
	check(pd_writer_close(m->w), "pd_writer_close");
	pd_buf_release(&m->rec);
}

/* ---------------------------------------------------------------------------------------- */
/* events, compressed, pipe */

static void make_events(const char *file, unsigned flags, bool compress, int scale, int argc,
			char **argv)
{
	static const struct {
		const char *name;
		u64 config;
		int leaf[3]; /* samples whose leaf is hot_a, hot_b, hot_c */
	} ev[] = {
		{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, { 20, 12, 8 } },
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK, { 15, 9, 6 } },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS, { 3, 2, 1 } },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, { 2, 1, 1 } },
	};
	const int nr_ev = 4;
	int left[4][3], i, j, n, total = 0;
	bool kmap, any = true;
	struct hot3 h;
	struct mk m;
	u64 first;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	open_writer(&m, file, flags, argc, argv);
	if (compress)
		check(pd_writer_set_compression(m.w, 1, 128 * 1024), "compression");
	/* exclude_kernel is only set when the kernel map cannot be written: decided first. */
	{
		struct ksym k;

		kmap = kernel_text(&k) == 0;
	}
	for (i = 0; i < nr_ev; i++) {
		struct perf_event_attr a = base_attr(PERF_TYPE_SOFTWARE, ev[i].config);
		u64 id = 1001 + i;

		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_kernel = !kmap;
		if (i == 0) {
			a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
			m.attr0 = a;
		}
		check(pd_writer_add_attr(m.w, &a, ev[i].name, &id, 1), "add attr");
		printf("event %s\n", ev[i].name);
		for (j = 0, n = 0; j < 3; j++) {
			left[i][j] = ev[i].leaf[j] * scale;
			n += left[i][j];
			printf("leaf %s %s %d\n", ev[i].name, h.sym[SYM_HOT_A + j].name, left[i][j]);
		}
		printf("samples %s %d\n", ev[i].name, n);
		total += n;
	}
	check(pd_writer_add_group(m.w, NULL, 2, 2), "add group");
	printf("group page-faults context-switches\n");
	check(pd_writer_begin(m.w), "pd_writer_begin");

	if (kmap && !kernel_map(&m))
		fail("kernel map");
	comm_and_mmap(&m, &h);
	first = m.time;
	/* Round-robin over events and leaves until every count is used up, in time order. */
	while (any) {
		any = false;
		for (i = 0; i < nr_ev; i++) {
			for (j = 0; j < 3; j++) {
				u64 chain[4];
				struct pd_sample s;

				if (!left[i][j])
					continue;
				any = true;
				left[i][j]--;
				chain[0] = PERF_CONTEXT_USER;
				chain[1] = inside(&h, SYM_HOT_A + j);
				chain[2] = inside(&h, SYM_RUN_ROUND);
				chain[3] = inside(&h, SYM_MAIN);
				s = id_of(&m, 1001 + i, m.nr_samples % 2);
				s.misc = PERF_RECORD_MISC_USER;
				s.ip = chain[1];
				s.period = 10007;
				s.callchain_nr = 4;
				s.callchain = chain;
				check(pd_encode_sample(&m.rec, &m.attr0, &s), "SAMPLE");
				m.nr_samples++;
				m.time += TSTEP;
				if (m.rec.len > 60000)
					put(&m);
			}
		}
	}
	put(&m);
	exit_record(&m);
	printf("symbols hot_a hot_b hot_c run_round main\n");
	printf("total %d\n", total);
	close_writer(&m, first, m.time - TSTEP);
}

/* ---------------------------------------------------------------------------------------- */
/* latecomm */

static void make_latecomm(const char *file, int argc, char **argv)
{
	struct perf_event_attr a = base_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	const int late = PID + 1, stale = PID + 2;
	struct pd_mmap2_body mm = { .pid = late, .tid = late };
	u64 id = 1001, first, chain[4];
	struct pd_sample s;
	struct hot3 h;
	struct mk m;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	open_writer(&m, file, 0, argc, argv);
	a.exclude_kernel = 1;
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
	m.attr0 = a;
	check(pd_writer_add_attr(m.w, &a, "cpu-clock", &id, 1), "add attr");
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	first = m.time;
	/*
	 * 30 samples: hot3's at hot_a; the unnamed process "late" at hot_b, every third, until
	 * its COMM (and MMAP2) at the 15th; an unnamed thread "stale" at 1 and 2, which a FORK
	 * then makes a new thread of the same tid (of an unnamed parent) that a COMM names "again"
	 * at the 20th: perf keeps ":tid" for the stale one's samples.
	 */
	for (int i = 0; i < 30; i++) {
		int pid = i % 3 == 0 ? late : i == 1 || i == 2 || (i > 20 && i % 3 == 1) ? stale : PID;

		if (i == 15 || i == 20) {
			s = id_of(&m, 0, 1);
			s.pid = s.tid = i == 15 ? late : stale;
			if (i == 20) {
				struct pd_fork_body fb = { stale, PID + 3, stale, PID + 3, m.time };

				check(pd_encode_fork(&m.rec, &m.attr0, false, 0, &fb, &s), "FORK");
				m.time += TSTEP;
				s.time = m.time;
			}
			check(pd_encode_comm(&m.rec, &m.attr0, s.pid, s.tid,
					     i == 15 ? "late" : "again", true, &s),
			      "COMM");
			mm.pid = mm.tid = s.pid;
			mm.start = h.start;
			mm.len = h.len;
			mm.pgoff = h.pgoff;
			mm.maj = major(h.st.st_dev);
			mm.min = minor(h.st.st_dev);
			mm.ino = h.st.st_ino;
			mm.prot = PROT_READ | PROT_EXEC;
			mm.flags = MAP_PRIVATE;
			check(pd_encode_mmap2(&m.rec, &m.attr0, PERF_RECORD_MISC_USER, &mm, h.path, &s),
			      "MMAP2");
			m.time += TSTEP;
		}
		s = id_of(&m, id, pid == PID ? 0 : 1);
		s.pid = s.tid = pid;
		s.misc = PERF_RECORD_MISC_USER;
		chain[0] = PERF_CONTEXT_USER;
		chain[1] = s.ip = inside(&h, pid == PID ? SYM_HOT_A : SYM_HOT_B);
		chain[2] = inside(&h, SYM_RUN_ROUND);
		chain[3] = inside(&h, SYM_MAIN);
		s.callchain_nr = 4;
		s.callchain = chain;
		s.period = 10007;
		check(pd_encode_sample(&m.rec, &m.attr0, &s), "SAMPLE");
		m.nr_samples++;
		m.time += TSTEP;
	}
	put(&m);
	exit_record(&m);
	close_writer(&m, first, m.time - TSTEP);
}

/* ---------------------------------------------------------------------------------------- */
/* aggregated: what prec record --aggregate writes */

#define LOST_STACK_IP 0x30000ULL
#define AGG_ENTRIES 16384
#define AGG_INTERVAL (10 * TSTEP)

static void make_aggregated(const char *file, int argc, char **argv)
{
	/* The keys drained at the end of each of two intervals; SYM_MAIN + 1: the lost stack. */
	static const struct {
		int leaf, cpu, interval;
		u64 weight;
	} keys[] = {
		{ SYM_HOT_A, 0, 0, 37 }, { SYM_HOT_A, 1, 0, 25 }, { SYM_HOT_B, 0, 0, 21 },
		{ SYM_HOT_C, 1, 0, 12 }, { SYM_MAIN + 1, 1, 0, 4 }, { SYM_HOT_A, 0, 1, 41 },
		{ SYM_HOT_B, 0, 1, 9 },	 { SYM_HOT_B, 1, 1, 17 },   { SYM_HOT_C, 0, 1, 6 },
	};
	/* task-clock, not aggregated: one record per sample */
	static const int plain[] = { SYM_HOT_A, SYM_HOT_A, SYM_HOT_A, SYM_HOT_B, SYM_HOT_C };
	const size_t nr_plain = sizeof(plain) / sizeof(plain[0]);
	const char *names[] = { "hot_a", "hot_b", "hot_c", "run_round", "main", "[lost stack]" };
	struct perf_event_attr agg = base_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct perf_event_attr tc = base_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct pd_ksymbol_body ks = { .addr = LOST_STACK_IP, .len = 0x1000 };
	u64 weight[6] = { 0 }, records[6] = { 0 }, total = 0, nrec = 0, first, id_agg = 1001,
	    id_tc = 1002;
	struct overhead_facts f;
	struct pd_buf b = PD_BUF_INIT;
	struct pd_sample s;
	struct hot3 h;
	struct mk m;
	bool kmap;
	u32 i;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	open_writer(&m, file, 0, argc, argv);
	{
		struct ksym k;

		kmap = kernel_text(&k) == 0;
	}
	/* an aggregated recording runs its events on CLOCK_MONOTONIC (-k monotonic) */
	agg.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT;
	agg.exclude_kernel = !kmap;
	agg.use_clockid = 1;
	agg.clockid = 1;
	agg.mmap = agg.comm = agg.task = agg.mmap2 = agg.comm_exec = 1;
	tc.sample_type |= PERF_SAMPLE_CALLCHAIN;
	tc.exclude_kernel = !kmap;
	tc.use_clockid = 1;
	tc.clockid = 1;
	m.attr0 = agg;
	check(pd_writer_add_attr(m.w, &agg, "cpu-clock", &id_agg, 1), "add attr");
	check(pd_writer_add_attr(m.w, &tc, "task-clock", &id_tc, 1), "add attr");
	check(pd_writer_begin(m.w), "pd_writer_begin");
	if (kmap && !kernel_map(&m))
		fail("kernel map");
	comm_and_mmap(&m, &h);
	s = id_of(&m, 0, 0);
	check(pd_encode_ksymbol(&m.rec, &m.attr0, &ks, names[5], &s), "KSYMBOL");
	put(&m);
	first = m.time;
	for (int iv = 0; iv < 2; iv++) {
		/* the plain event's samples during the interval, the keys at its end */
		for (i = 0; i < nr_plain; i++) {
			u64 chain[4] = { PERF_CONTEXT_USER, inside(&h, plain[i]),
					 inside(&h, SYM_RUN_ROUND), inside(&h, SYM_MAIN) };

			s = id_of(&m, id_tc, i % 2);
			s.misc = PERF_RECORD_MISC_USER;
			s.ip = chain[1];
			s.period = 10007;
			s.callchain_nr = 4;
			s.callchain = chain;
			check(pd_encode_sample(&m.rec, &tc, &s), "SAMPLE");
			m.time += TSTEP;
		}
		m.time = first + (u64)(iv + 1) * AGG_INTERVAL;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			u64 chain[6];
			bool lost = keys[i].leaf > SYM_MAIN;

			if (keys[i].interval != iv || (lost && !kmap))
				continue;
			s = id_of(&m, id_agg, (u32)keys[i].cpu);
			if (lost) {
				/* the kernel stack was lost, the user stack kept */
				chain[0] = PERF_CONTEXT_KERNEL;
				chain[1] = LOST_STACK_IP;
				chain[2] = PERF_CONTEXT_USER;
				chain[3] = inside(&h, SYM_HOT_C);
				chain[4] = inside(&h, SYM_RUN_ROUND);
				chain[5] = inside(&h, SYM_MAIN);
				s.callchain_nr = 6;
				s.misc = PERF_RECORD_MISC_KERNEL;
			} else {
				chain[0] = PERF_CONTEXT_USER;
				chain[1] = inside(&h, keys[i].leaf);
				chain[2] = inside(&h, SYM_RUN_ROUND);
				chain[3] = inside(&h, SYM_MAIN);
				s.callchain_nr = 4;
				s.misc = PERF_RECORD_MISC_USER;
			}
			s.ip = chain[1];
			s.callchain = chain;
			s.weight = keys[i].weight;
			s.period = keys[i].weight * 10007;
			/* the last time the key was seen: within the interval, before the drain */
			s.time = m.time - TSTEP * (u64)(i + 1) / 4;
			check(pd_encode_sample(&m.rec, &agg, &s), "SAMPLE");
			weight[keys[i].leaf] += keys[i].weight;
			records[keys[i].leaf]++;
			total += keys[i].weight;
		}
		put(&m);
	}
	exit_record(&m);
	printf("event cpu-clock aggregated\nevent task-clock\n");
	for (i = 0; i < 6; i++) {
		if (!records[i])
			continue;
		printf("leaf cpu-clock %s %" PRIu64 " %" PRIu64 "\n", names[i], weight[i],
		       records[i]);
		nrec += records[i];
	}
	printf("samples cpu-clock %" PRIu64 "\nrecords cpu-clock %" PRIu64 "\n", total, nrec);
	printf("period cpu-clock %" PRIu64 "\n", total * 10007);
	/* the plain samples, written in both intervals */
	for (i = 0; i < 3; i++) {
		u64 n = 0;

		for (u32 j = 0; j < nr_plain; j++)
			n += plain[j] == (int)i;
		printf("leaf task-clock %s %" PRIu64 " %" PRIu64 "\n", names[i], 2 * n, 2 * n);
	}
	printf("samples task-clock %zu\nrecords task-clock %zu\n", 2 * nr_plain,
	       2 * nr_plain);
	printf("entries %d\ninterval_ns %" PRIu64 "\n", AGG_ENTRIES, (u64)AGG_INTERVAL);

	overhead_facts_init(&f);
	f.aggregate_interval_ns = AGG_INTERVAL;
	f.aggregate_entries = AGG_ENTRIES;
	if (!overhead_facts_event(&f, 0))
		fail("out of memory");
	overhead_facts_event(&f, 0)->aggregated = true;
	check(overhead_facts_encode(&f, &b), "overhead_facts_encode");
	check(pd_writer_set_feature(m.w, PD_FEAT_PREC, b.data, b.len), "PD_FEAT_PREC");
	pd_buf_release(&b);
	overhead_facts_release(&f);
	close_writer(&m, first, m.time);
}

/* ---------------------------------------------------------------------------------------- */
/* tracepoint: sched:sched_switch */

static struct tep_format_field *field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f)
		fail("sched:sched_switch has no field %s", name);
	return f;
}

static void set_num(struct tep_event *ev, u8 *raw, const char *name, long long v)
{
	struct tep_format_field *f = field(ev, name);

	/* Little-endian: the low bytes of v, as many as the field has. */
	if (f->size > 8)
		fail("field %s is %d bytes", name, f->size);
	memcpy(raw + f->offset, &v, f->size);
}

static void set_str(struct tep_event *ev, u8 *raw, const char *name, const char *v)
{
	struct tep_format_field *f = field(ev, name);

	memset(raw + f->offset, 0, f->size);
	memcpy(raw + f->offset, v, strnlen(v, f->size - 1));
}

static int event_size(struct tep_event *ev)
{
	struct tep_format_field **fs[2] = { tep_event_common_fields(ev), tep_event_fields(ev) };
	int i, j, size = 0;

	for (i = 0; i < 2; i++) {
		for (j = 0; fs[i] && fs[i][j]; j++)
			if (fs[i][j]->offset + fs[i][j]->size > size)
				size = fs[i][j]->offset + fs[i][j]->size;
		free(fs[i]);
	}
	return size;
}

static void add_tracing(struct mk *m, struct pd_tracing *t)
{
	struct pd_buf b = PD_BUF_INIT;

	check(pd_tracing_encode(t, &b), "pd_tracing_encode");
	check(b.err, "tracing data");
	check(pd_writer_set_feature(m->w, PD_FEAT_TRACING_DATA, b.data, b.len), "TRACING_DATA");
	pd_buf_release(&b);
}

static void make_tracepoint(const char *file, unsigned flags, int argc, char **argv)
{
	const char *systems[] = { "sched", NULL };
	static const char *const next[] = { "swapper/0", "kworker/1:2", "sshd" };
	struct pd_tracing *t;
	struct tep_handle *tep;
	struct tep_event *ev;
	struct perf_event_attr a;
	struct mk m;
	u8 raw[256];
	u64 id, sid = 2001, first;
	int i, size, err;

	tep = tracefs_local_events_system(NULL, systems);
	ev = tep ? tep_find_event_by_name(tep, "sched", "sched_switch") : NULL;
	if (!ev)
		skip("no sched:sched_switch in tracefs (is it mounted, and are we root?)");
	size = event_size(ev);
	if (size <= 0 || size > (int)sizeof(raw))
		fail("sched_switch payload of %d bytes", size);
	check(pd_tracing_new(&t), "pd_tracing_new");
	err = pd_tracing_add_tracefs_event(t, "sched", "sched_switch", &id);
	if (err == -ENOENT)
		skip("pd_tracing_add_tracefs_event: sched:sched_switch not found");
	check(err, "pd_tracing_add_tracefs_event");
	if (id != (u64)ev->id)
		fail("tracing data gives sched_switch ID %" PRIu64 ", tracefs %d", id, ev->id);

	open_writer(&m, file, flags, argc, argv);
	add_tracing(&m, t);
	a = base_attr(PERF_TYPE_TRACEPOINT, id);
	a.sample_period = 1;
	a.sample_type |= PERF_SAMPLE_RAW;
	a.exclude_kernel = 1;
	a.comm = a.task = 1;
	m.attr0 = a;
	check(pd_writer_add_attr(m.w, &a, "sched:sched_switch", &sid, 1), "add attr");
	check(pd_writer_begin(m.w), "pd_writer_begin");
	check(pd_encode_comm(&m.rec, &a, PID, PID, "hot3", false, NULL), "COMM");
	put(&m);
	printf("event sched:sched_switch\n");
	first = m.time;
	for (i = 0; i < 9; i++) {
		struct pd_sample s = id_of(&m, sid, i % 2);

		memset(raw, 0, sizeof(raw));
		set_num(ev, raw, "common_type", ev->id);
		set_num(ev, raw, "common_pid", PID);
		set_str(ev, raw, "prev_comm", "hot3");
		set_num(ev, raw, "prev_pid", PID);
		set_num(ev, raw, "prev_prio", 120);
		set_num(ev, raw, "prev_state", 1); /* S */
		set_str(ev, raw, "next_comm", next[i % 3]);
		set_num(ev, raw, "next_pid", 100 + i);
		set_num(ev, raw, "next_prio", 120 - i);
		s.misc = PERF_RECORD_MISC_USER;
		s.period = 1;
		s.raw = raw;
		s.raw_size = (u32)size;
		check(pd_encode_sample(&m.rec, &a, &s), "SAMPLE");
		printf("raw prev_comm=hot3 prev_pid=%d next_comm=%s next_pid=%d next_prio=%d\n",
		       PID, next[i % 3], 100 + i, 120 - i);
		m.time += TSTEP;
	}
	put(&m);
	printf("samples sched:sched_switch 9\n");
	close_writer(&m, first, m.time - TSTEP);
	pd_tracing_free(t);
	tep_free(tep);
}

/* ---------------------------------------------------------------------------------------- */
/* overhead: prec:overhead */

static void make_overhead(const char *file, int argc, char **argv)
{
	static const struct overhead_record recs[] = {
		{ 0, "sample", 4012, 54156000, 1000000000, "calibration", OVERHEAD_ESTIMATED,
		  "13.5 us per sample, calibrated" },
		{ 1, "sample", 3988, 53838000, 1000000000, "calibration", OVERHEAD_ESTIMATED, "" },
		{ 0, "sideband", 77, 19250, 1000000000, "calibration", OVERHEAD_ESTIMATED, "" },
		{ -1, "recorder", 1, 8123456, 1000000000, "rusage", OVERHEAD_MEASURED, "" },
		{ -1, "mux", 0, 0, 1000000000, "none", OVERHEAD_UNAVAILABLE,
		  "no hardware PMU: nothing multiplexed" },
	};
	struct pd_tracing *t;
	struct perf_event_attr a;
	struct pd_buf raw = PD_BUF_INIT;
	struct mk m;
	u64 sid = 3001, first;
	unsigned i;
	int err;

	check(pd_tracing_new(&t), "pd_tracing_new");
	err = pd_tracing_add_format(t, OVERHEAD_SYSTEM, overhead_event_format);
	check(err, "pd_tracing_add_format(prec:overhead)");

	open_writer(&m, file, 0, argc, argv);
	add_tracing(&m, t);
	a = base_attr(PERF_TYPE_TRACEPOINT, OVERHEAD_EVENT_ID);
	a.sample_period = 1;
	a.sample_type |= OVERHEAD_SAMPLE_TYPE;
	a.exclude_kernel = 1;
	a.comm = a.task = 1;
	m.attr0 = a;
	check(pd_writer_add_attr(m.w, &a, "prec:overhead", &sid, 1), "add attr");
	check(pd_writer_begin(m.w), "pd_writer_begin");
	check(pd_encode_comm(&m.rec, &a, PID, PID, "prec", false, NULL), "COMM");
	check(overhead_symbols_encode(&m.rec, &a, NULL), "KSYMBOL");
	put(&m);
	printf("event prec:overhead\n");
	first = m.time;
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		struct pd_sample s = id_of(&m, sid, recs[i].cpu < 0 ? 0 : (u32)recs[i].cpu);
		u64 chain[2];

		pd_buf_reset(&raw);
		check(overhead_record_encode(&raw, PID, &recs[i]), "overhead_record_encode");
		check(raw.err, "overhead raw");
		overhead_sample_fill(&s, &recs[i], chain);
		s.raw = raw.data;
		s.raw_size = (u32)raw.len;
		check(pd_encode_sample(&m.rec, &a, &s), "SAMPLE");
		printf("overhead %s %" PRIu64 " %" PRIu64 " %s\n", recs[i].type, recs[i].nr,
		       recs[i].time_ns, recs[i].source);
		m.time += TSTEP;
	}
	put(&m);
	printf("samples prec:overhead %zu\n", sizeof(recs) / sizeof(recs[0]));
	close_writer(&m, first, m.time - TSTEP);
	pd_buf_release(&raw);
	pd_tracing_free(t);
}

/* ---------------------------------------------------------------------------------------- */
/* stat: counter readings beside a sampled event */

static void make_stat(const char *file, int argc, char **argv)
{
	/* Counters with one id per CPU; cpu-clock (the sampled event) is read as well. */
	static const struct {
		const char *name;
		u64 ids[2];
		u64 per_round[2]; /* added on CPU 0 and CPU 1 in each round */
		const char *unit;
		double scale;
	} ctr[] = {
		{ "cpu-clock", { 4001, 4002 }, { 50000000, 49000000 }, "msec", 1e-6 },
		{ "task-clock", { 4101, 4102 }, { 60000000, 40000000 }, "msec", 1e-6 },
		{ "context-switches", { 4111, 4112 }, { 700, 300 }, NULL, 1 },
	};
	const int rounds = 3, cpus[2] = { 0, 1 };
	struct pd_stat_config_entry cfg[] = {
		{ PD_STAT_CONFIG_AGGR_MODE, PD_AGGR_GLOBAL },
		{ PD_STAT_CONFIG_INTERVAL, 100 },
		{ PD_STAT_CONFIG_SCALE, 1 },
	};
	struct pd_thread_map_entry thr = { .pid = PID, .comm = "hot3" };
	struct perf_event_attr a;
	struct hot3 h;
	struct mk m;
	u64 first;
	int i, r, c;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	open_writer(&m, file, 0, argc, argv);
	for (i = 0; i < 3; i++) {
		a = base_attr(PERF_TYPE_SOFTWARE, i == 0 ? PERF_COUNT_SW_CPU_CLOCK :
				i == 1 ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CONTEXT_SWITCHES);
		a.exclude_kernel = 1;
		if (i == 0) {
			/* Sampled, so that perf report has samples to show beside the readings. */
			a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
			m.attr0 = a;
		} else {
			a.sample_period = 0;
		}
		check(pd_writer_add_attr(m.w, &a, ctr[i].name, ctr[i].ids, 2), "add attr");
		printf("event %s\n", ctr[i].name);
	}
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	first = m.time;
	for (i = 0; i < 10; i++) {
		struct pd_sample s = id_of(&m, ctr[0].ids[i % 2], i % 2);

		s.misc = PERF_RECORD_MISC_USER;
		s.ip = inside(&h, SYM_HOT_A);
		s.period = 10007;
		check(pd_encode_sample(&m.rec, &m.attr0, &s), "SAMPLE");
		m.time += TSTEP;
	}
	put(&m);
	printf("samples cpu-clock 10\n");

	for (i = 0; i < 3; i++) {
		if (!ctr[i].unit)
			continue;
		check(pd_encode_event_update_unit(&m.rec, ctr[i].ids[0], ctr[i].unit), "unit");
		check(pd_encode_event_update_scale(&m.rec, ctr[i].ids[0], ctr[i].scale), "scale");
	}
	check(pd_encode_thread_map(&m.rec, 1, &thr), "THREAD_MAP");
	check(pd_encode_cpu_map(&m.rec, 2, cpus), "CPU_MAP");
	check(pd_encode_stat_config(&m.rec, 3, cfg), "STAT_CONFIG");
	put(&m);
	for (r = 1; r <= rounds; r++) {
		for (i = 0; i < 3; i++) {
			for (c = 0; c < 2; c++) {
				struct pd_stat_body st = {
					.id = ctr[i].ids[c],
					.cpu = (u32)c,
					.thread = 0,
					.val = ctr[i].per_round[c] * r,
					.ena = 100000000ULL * r,
					.run = 100000000ULL * r,
				};

				check(pd_encode_stat(&m.rec, &st), "STAT");
				/* perf script prints the cumulative values per CPU and thread. */
				printf("stat %s %d %d %" PRIu64 " %" PRIu64 "\n", ctr[i].name, c, PID,
				       st.val, (u64)(100000000ULL * r));
			}
		}
		check(pd_encode_stat_round(&m.rec, r < rounds ? PD_STAT_ROUND_INTERVAL :
					   PD_STAT_ROUND_FINAL, 100000000ULL * r),
		      "STAT_ROUND");
		put(&m);
	}
	/* perf stat report prints the sum over CPUs of each round's increase, scaled. */
	for (i = 0; i < 3; i++) {
		double v = (double)(ctr[i].per_round[0] + ctr[i].per_round[1]) * ctr[i].scale;

		if (ctr[i].unit)
			printf("interval %s %.2f %s\n", ctr[i].name, v, ctr[i].unit);
		else
			printf("interval %s %.0f\n", ctr[i].name, v);
	}
	close_writer(&m, first, m.time - TSTEP);
}

/* ---------------------------------------------------------------------------------------- */
/* groupread */

/* One counter instance of a group: the read values it has reached. */
struct gr_instance {
	u64 ids[5];
	u64 values[5];
	u32 cpu;
};

enum { GR_A, GR_B, GR_C, GR_MAIN, GR_NOSYM, GR_LONG };

/*
 * The hardware group's deltas per window: a short window by the function it ends in, and a long
 * one (the leader's 999700 of a period of 1000000 alternating with 300). Chosen so that every
 * derived metric of a function is a round number (t2013 computes the table from these).
 */
static const u64 gr_delta[][5] = {
	[GR_A] = { 300, 200, 2, 10, 5 },     /* CPI 1.5, BM/KI 10, CM/KI 25, CM% 50 */
	[GR_B] = { 300, 600, 3, 20, 3 },     /* CPI 0.5, BM/KI 5, CM/KI 5, CM% 15 */
	[GR_C] = { 300, 100, 1, 40, 10 },    /* CPI 3, BM/KI 10, CM/KI 100, CM% 25 */
	[GR_MAIN] = { 300, 150, 0, 0, 0 },   /* CPI 2, BM/KI 0, CM/KI 0, CM% - */
	[GR_NOSYM] = { 300, 300, 3, 10, 3 }, /* CPI 1, BM/KI 10, CM/KI 10, CM% 30 */
	[GR_LONG] = { 999700, 999000, 100, 1000, 100 },
};

static void gr_sample(struct mk *m, const struct perf_event_attr *a, struct gr_instance *in,
		      u32 nr, u32 tid, u64 ip, const u64 *delta)
{
	struct pd_read_value v[5];
	struct pd_sample s;

	for (u32 i = 0; i < nr; i++) {
		in->values[i] += delta[i];
		v[i].value = in->values[i];
		v[i].id = in->ids[i];
		v[i].lost = 0;
	}
	s = id_of(m, in->ids[0], in->cpu);
	s.tid = tid;
	s.misc = PERF_RECORD_MISC_USER;
	s.ip = ip;
	s.read.nr = nr;
	s.read.values = v;
	check(pd_encode_sample(&m->rec, a, &s), "SAMPLE");
	m->nr_samples++;
	m->time += TSTEP;
}

static void gr_throttle(struct mk *m, bool unthrottle, u64 id, u32 tid)
{
	struct pd_throttle_body body = { m->time, id, id };
	struct pd_sample sid = id_of(m, id, 0);

	sid.tid = tid;
	check(pd_encode_throttle(&m->rec, &m->attr0, unthrottle, &body, &sid), "THROTTLE");
	m->time += TSTEP;
}

/* The COMM of hot3's second thread, tid. */
static void gr_comm(struct mk *m, u32 tid)
{
	struct pd_sample id = id_of(m, 0, 0);

	id.tid = tid;
	check(pd_encode_comm(&m->rec, &m->attr0, PID, tid, "hot3", false, &id), "COMM");
	put(m);
}

static void make_groupread(const char *file, int argc, char **argv)
{
	static const struct {
		const char *name;
		u32 type;
		u64 config;
	} ev[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	};
	/* the hardware group on two CPUs (instances 1 and 2), the software group on one */
	struct gr_instance k1 = { { 11, 12, 13, 14, 15 }, { 0 }, 0 };
	struct gr_instance k3 = { { 21, 22, 23, 24, 25 }, { 0 }, 1 };
	struct gr_instance sw = { { 31, 32, 33 }, { 0 }, 0 };
	static const u64 sw_delta[3][3] = {
		{ 1000000, 4, 0 }, /* ends in hot_a */
		{ 1000000, 0, 1 }, /* hot_b */
		{ 1000000, 2, 0 }, /* hot_c */
	};
	struct perf_event_attr attr[8];
	const u32 t1 = PID, t2 = PID + 1;
	u64 addr[GR_NOSYM + 1], first;
	struct hot3 h;
	struct mk m;
	int i;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	addr[GR_A] = inside(&h, SYM_HOT_A);
	addr[GR_B] = inside(&h, SYM_HOT_B);
	addr[GR_C] = inside(&h, SYM_HOT_C);
	addr[GR_MAIN] = inside(&h, SYM_MAIN);
	/* the padding after hot_a: in hot3's map, in no symbol */
	addr[GR_NOSYM] = h.sym[SYM_HOT_A].addr + h.sym[SYM_HOT_A].size;
	if (addr[GR_NOSYM] >= h.sym[SYM_HOT_B].addr)
		skip("%s: no padding after hot_a to sample an address without a symbol", h.path);
	open_writer(&m, file, 0, argc, argv);
	for (i = 0; i < 8; i++) {
		struct perf_event_attr *a = &attr[i];
		u64 ids[2];
		u32 nr_ids = 1;

		/* as perf record -e '{...}:uS' -c 1000000 sets them: the leader samples */
		*a = base_attr(ev[i].type, ev[i].config);
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_READ;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
		a->exclude_kernel = a->exclude_hv = 1;
		a->sample_period = 0;
		a->disabled = a->enable_on_exec = 0;
		if (i == 0 || i == 5) {
			a->sample_period = 1000000;
			a->disabled = a->enable_on_exec = 1;
		}
		/*
		 * the hardware group counts each thread apart under one id (inherited counters);
		 * the software one is a per-CPU counter that counts whichever thread runs
		 */
		a->inherit = i < 5;
		if (i == 0) {
			a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = 1;
			m.attr0 = *a;
		}
		if (i < 5) {
			ids[0] = k1.ids[i];
			ids[1] = k3.ids[i];
			nr_ids = 2;
		} else {
			ids[0] = sw.ids[i - 5];
		}
		check(pd_writer_add_attr(m.w, a, ev[i].name, ids, nr_ids), "add attr");
		printf("event %s\n", ev[i].name);
	}
	check(pd_writer_add_group(m.w, NULL, 0, 5), "add group");
	check(pd_writer_add_group(m.w, NULL, 5, 3), "add group");
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	gr_comm(&m, t2);
	first = m.time;
	{
		/* instance 1 of thread 2: its windows interleave with thread 1's, on the same id */
		struct gr_instance k2 = k1;
		const struct perf_event_attr *a = &attr[0];

		memset(k2.values, 0, sizeof(k2.values));
		/* k1: a (start); k2: c (start); k3: b (start) */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);
		gr_sample(&m, a, &k2, 5, t2, addr[GR_C], gr_delta[GR_C]);
		gr_sample(&m, a, &k3, 5, t1, addr[GR_B], gr_delta[GR_B]);
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);     /* hot_a */
		gr_sample(&m, a, &k2, 5, t2, addr[GR_C], gr_delta[GR_C]);     /* hot_c */
		gr_sample(&m, a, &k3, 5, t1, addr[GR_B], gr_delta[GR_B]);     /* hot_b */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k2, 5, t2, addr[GR_C], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k3, 5, t1, addr[GR_B], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);     /* hot_a */
		gr_sample(&m, a, &k2, 5, t2, addr[GR_C], gr_delta[GR_C]);     /* hot_c */
		gr_sample(&m, a, &k3, 5, t1, addr[GR_C], gr_delta[GR_C]);     /* discarded: b..c */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_B], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k2, 5, t2, addr[GR_B], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k3, 5, t1, addr[GR_C], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_B], gr_delta[GR_B]);     /* hot_b */
		gr_sample(&m, a, &k2, 5, t2, addr[GR_B], gr_delta[GR_B]);     /* hot_b */
		/* discarded: c..main */
		gr_sample(&m, a, &k3, 5, t1, addr[GR_MAIN], gr_delta[GR_MAIN]);
		gr_sample(&m, a, &k1, 5, t1, addr[GR_B], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);     /* discarded: b..a */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_NOSYM], gr_delta[GR_LONG]); /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_NOSYM], gr_delta[GR_NOSYM]); /* [unknown] */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_LONG]);  /* long */
		gr_throttle(&m, false, k1.ids[0], t1);
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);     /* throttled */
		gr_throttle(&m, true, k1.ids[0], t1);
		/* throttled: the first after the span */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_LONG]);  /* long */
		gr_sample(&m, a, &k1, 5, t1, addr[GR_A], gr_delta[GR_A]);     /* hot_a */
		put(&m);
	}
	/*
	 * the software group: not alternating; its windows by the function they end in; its last
	 * two samples are of thread 2 then thread 1 again, on the one per-CPU counter
	 */
	{
		static const int seq[] = { 0, 0, 0, 1, 1, 2, 2, 0, 0, 0 };
		static const int syms[] = { SYM_HOT_A, SYM_HOT_B, SYM_HOT_C };

		for (i = 0; i < 10; i++)
			gr_sample(&m, &attr[5], &sw, 3, i == 8 ? t2 : t1, inside(&h, syms[seq[i]]),
				  sw_delta[seq[i]]);
		put(&m);
	}
	exit_record(&m);
	/* what prec record says of a leader it opened with hf-period=300 */
	{
		struct pd_buf b = PD_BUF_INIT;
		struct overhead_facts f;

		overhead_facts_init(&f);
		if (!overhead_facts_event(&f, 0))
			fail("out of memory");
		overhead_facts_event(&f, 0)->hf_period = 300;
		check(overhead_facts_encode(&f, &b), "overhead_facts_encode");
		check(pd_writer_set_feature(m.w, PD_FEAT_PREC, b.data, b.len), "PD_FEAT_PREC");
		pd_buf_release(&b);
		overhead_facts_release(&f);
		printf("hf_period cycles 300\n");
	}
	printf("group cycles instructions branch-misses cache-references cache-misses\n");
	printf("group task-clock page-faults context-switches\n");
	printf("samples %d\n", m.nr_samples);
	close_writer(&m, first, m.time - TSTEP);
}

/* ---------------------------------------------------------------------------------------- */
/* groupthrottle, groupnoid: small {task-clock,page-faults} groups */

/*
 * Add the two attrs of a {task-clock,page-faults} group reading ids id and id + 1, the leader
 * sampling every 1000000 ns, the member every sample_member page faults (0: it does not).
 */
static void small_group(struct mk *m, struct perf_event_attr *a, u32 first, u64 read_format,
			bool inherit, u64 sample_member, u64 id)
{
	static const char *const names[2] = { "task-clock", "page-faults" };
	static const u64 configs[2] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS };
	for (u32 i = 0; i < 2; i++) {
		u64 ids = id + i;

		a[i] = base_attr(PERF_TYPE_SOFTWARE, configs[i]);
		a[i].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_READ;
		a[i].read_format = read_format;
		a[i].inherit = inherit;
		a[i].sample_period = i ? sample_member : 1000000;
		a[i].disabled = a[i].enable_on_exec = !i;
		if (!first && !i) {
			a[i].mmap = a[i].comm = a[i].task = a[i].mmap2 = a[i].comm_exec = 1;
			m->attr0 = a[i];
		}
		check(pd_writer_add_attr(m->w, &a[i], names[i], &ids, 1), "add attr");
	}
	check(pd_writer_add_group(m->w, NULL, first, 2), "add group");
}

static void make_groupthrottle(const char *file, int argc, char **argv)
{
	const u64 rf = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	static const u64 d4[2] = { 1000000, 4 }, d1[2] = { 1000000, 1 };
	const u32 t1 = PID, t2 = PID + 1;
	struct gr_instance va = { { 101, 102 }, { 0 }, 0 };
	struct gr_instance v1 = { { 201, 202 }, { 0 }, 0 }, v2 = v1;
	struct perf_event_attr a[2], b[2];
	u64 first, ha;
	struct hot3 h;
	struct mk m;
	int i;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	ha = inside(&h, SYM_HOT_A);
	open_writer(&m, file, 0, argc, argv);
	small_group(&m, a, 0, rf, false, 0, 101);
	small_group(&m, b, 2, rf, true, 0, 201);
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	gr_comm(&m, t2);
	first = m.time;
	/*
	 * per-CPU: 3 samples (2 windows), THROTTLE in thread 1, 1 sample inside, UNTHROTTLE in
	 * thread 2 (the tick's), 6 samples: the first after the span is throttled, then 5 windows
	 */
	for (i = 0; i < 3; i++)
		gr_sample(&m, &a[0], &va, 2, t1, ha, d4);
	gr_throttle(&m, false, 101, t1);
	gr_sample(&m, &a[0], &va, 2, t1, ha, d4);
	gr_throttle(&m, true, 101, t2);
	for (i = 0; i < 6; i++)
		gr_sample(&m, &a[0], &va, 2, t1, ha, d4);
	/*
	 * inherit: threads 1 and 2 each have their counter under id 201; the THROTTLE of thread 1
	 * spans only its samples, and the UNTHROTTLE (in thread 2) ends it
	 */
	gr_sample(&m, &b[0], &v1, 2, t1, ha, d1); /* t1 start */
	gr_sample(&m, &b[0], &v2, 2, t2, ha, d1); /* t2 start */
	gr_sample(&m, &b[0], &v1, 2, t1, ha, d1); /* t1 window */
	gr_throttle(&m, false, 201, t1);
	gr_sample(&m, &b[0], &v2, 2, t2, ha, d1); /* t2 window: not its span */
	gr_sample(&m, &b[0], &v1, 2, t1, ha, d1); /* t1 throttled: inside */
	gr_throttle(&m, true, 201, t2);
	gr_sample(&m, &b[0], &v1, 2, t1, ha, d1); /* t1 throttled: first after */
	gr_sample(&m, &b[0], &v1, 2, t1, ha, d1); /* t1 window */
	gr_sample(&m, &b[0], &v2, 2, t2, ha, d1); /* t2 window */
	put(&m);
	exit_record(&m);
	printf("samples %d\n", m.nr_samples);
	close_writer(&m, first, m.time - TSTEP);
}

static void make_groupnoid(const char *file, int argc, char **argv)
{
	static const u64 da[2] = { 1000000, 4 }, db[2] = { 1000000, 0 }, none[2] = { 0, 0 };
	struct gr_instance lead = { { 101, 102 }, { 0 }, 0 }, member;
	struct perf_event_attr a[2];
	struct hot3 h;
	struct mk m;
	u64 first;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	open_writer(&m, file, 0, argc, argv);
	small_group(&m, a, 0, PERF_FORMAT_GROUP, false, 1, 101);
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	first = m.time;
	/*
	 * the leader: hot_a 4 times (4 faults a window), then hot_b 4 times (none), the sixth
	 * sample on the second CPU; after each, a sample of the member, in hot_c
	 */
	for (int i = 0; i < 8; i++) {
		lead.cpu = i == 5;
		gr_sample(&m, &a[0], &lead, 2, PID, inside(&h, i < 4 ? SYM_HOT_A : SYM_HOT_B),
			  i < 4 ? da : db);
		/* the member's sample: its id, the same read */
		member = lead;
		member.ids[0] = 102;
		gr_sample(&m, &a[1], &member, 2, PID, inside(&h, SYM_HOT_C), none);
	}
	put(&m);
	exit_record(&m);
	printf("samples %d\n", m.nr_samples);
	close_writer(&m, first, m.time - TSTEP);
}

static void make_groupwrap(const char *file, int argc, char **argv)
{
	const u64 rf = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	static const u64 zero[2] = { 0, 0 }, half[2] = { 1ULL << 63, 1 }, one[2] = { 0, 1 };
	struct gr_instance in = { { 101, 102 }, { 0 }, 0 };
	struct perf_event_attr a[2];
	u64 first, ha;
	struct hot3 h;
	struct mk m;

	memset(&h, 0, sizeof(h));
	load_hot3(&h);
	ha = inside(&h, SYM_HOT_A);
	open_writer(&m, file, 0, argc, argv);
	small_group(&m, a, 0, rf, false, 0, 101);
	check(pd_writer_begin(m.w), "pd_writer_begin");
	comm_and_mmap(&m, &h);
	first = m.time;
	gr_sample(&m, &a[0], &in, 2, PID, ha, zero);
	gr_sample(&m, &a[0], &in, 2, PID, ha, half);
	in.values[0] = 0; /* a reset: the next sample restarts the window */
	gr_sample(&m, &a[0], &in, 2, PID, ha, one);
	gr_sample(&m, &a[0], &in, 2, PID, ha, half);
	put(&m);
	exit_record(&m);
	printf("samples %d\n", m.nr_samples);
	close_writer(&m, first, m.time - TSTEP);
}

int main(int argc, char **argv)
{
	const char *kind, *file;

	if (argc != 3) {
		fprintf(stderr, "usage: %s events|compressed|compressed-pipe|pipe|tracepoint|tracepoint-pipe|\n"
			"       overhead|stat|latecomm|aggregated|groupread|groupthrottle|groupnoid|\n"
			"       groupwrap FILE\n", prog);
		return 2;
	}
	kind = argv[1];
	file = argv[2];
	if (!strcmp(kind, "events")) {
		make_events(file, 0, false, 1, argc, argv);
	} else if (!strcmp(kind, "compressed")) {
#ifndef HAVE_ZSTD
		skip("prec was built without zstd");
#endif
		make_events(file, 0, true, 40, argc, argv);
	} else if (!strcmp(kind, "compressed-pipe")) {
#ifndef HAVE_ZSTD
		skip("prec was built without zstd");
#endif
		make_events(file, PD_WRITER_PIPE, true, 40, argc, argv);
	} else if (!strcmp(kind, "pipe")) {
		make_events(file, PD_WRITER_PIPE, false, 1, argc, argv);
	} else if (!strcmp(kind, "tracepoint")) {
		make_tracepoint(file, 0, argc, argv);
	} else if (!strcmp(kind, "tracepoint-pipe")) {
		make_tracepoint(file, PD_WRITER_PIPE, argc, argv);
	} else if (!strcmp(kind, "overhead")) {
		make_overhead(file, argc, argv);
	} else if (!strcmp(kind, "stat")) {
		make_stat(file, argc, argv);
	} else if (!strcmp(kind, "latecomm")) {
		make_latecomm(file, argc, argv);
	} else if (!strcmp(kind, "aggregated")) {
		make_aggregated(file, argc, argv);
	} else if (!strcmp(kind, "groupread")) {
		make_groupread(file, argc, argv);
	} else if (!strcmp(kind, "groupthrottle")) {
		make_groupthrottle(file, argc, argv);
	} else if (!strcmp(kind, "groupnoid")) {
		make_groupnoid(file, argc, argv);
	} else if (!strcmp(kind, "groupwrap")) {
		make_groupwrap(file, argc, argv);
	} else {
		fprintf(stderr, "%s: unknown kind %s\n", prog, kind);
		return 2;
	}
	return 0;
}
