// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band synthesis and build-id tracking, checked against the running system: the records
 * written for this very process are parsed back and compared with what /proc, /proc/kallsyms
 * and readelf say; the kernel/module layout is also checked on a made-up /proc with modules
 * (the test machine may have none); the tracker is fed hand-made records in the orders a
 * per-CPU recorder delivers them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "record/synthesize.h"
#include "tests/tap.h"

#define FORK_EXEC (1 << 13)

static const struct perf_event_attr attr = {
    .type = PERF_TYPE_SOFTWARE,
    .size = sizeof(struct perf_event_attr),
    .config = PERF_COUNT_SW_CPU_CLOCK,
    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
    .sample_id_all = 1,
};

/* Trailer: TID, TIME, CPU, IDENTIFIER. */
#define TRAILER 32

__attribute__((noinline)) int marker_function(int x)
{
	return x * 3 + 1;
}

/* ---- walking what was synthesized ---- */

struct rec {
	const struct pd_record_header *h;
	const void *body;
	const char *name; /* COMM, MMAP, MMAP2 */
};

static int next_rec(const struct pd_buf *b, size_t *off, struct rec *r)
{
	const struct pd_record_header *h;

	if (*off + sizeof(*h) > b->len)
		return 0;
	h = (const void *)(b->data + *off);
	if (h->size < sizeof(*h) || *off + h->size > b->len || h->size % 8)
		return -1;
	r->h = h;
	r->body = h + 1;
	r->name = NULL;
	if (h->type == PERF_RECORD_COMM)
		r->name = (const char *)r->body + sizeof(struct pd_comm_body);
	else if (h->type == PERF_RECORD_MMAP)
		r->name = (const char *)r->body + sizeof(struct pd_mmap_body);
	else if (h->type == PERF_RECORD_MMAP2)
		r->name = (const char *)r->body + sizeof(struct pd_mmap2_body);
	*off += h->size;
	return 1;
}

/* Every record is well formed: sizes add up, names end inside, the trailer is all zeros. */
static int check_layout(const struct pd_buf *b)
{
	size_t off = 0;
	struct rec r;
	int n, i;

	while ((n = next_rec(b, &off, &r)) > 0) {
		const u8 *tr = (const u8 *)r.h + r.h->size - TRAILER;

		if (r.name) {
			size_t max = (const char *)tr - r.name;

			if (strnlen(r.name, max) >= max)
				return -1;
		}
		for (i = 0; i < TRAILER; i++)
			if (tr[i])
				return -1;
	}
	return n;
}

static void read_comm(pid_t tid, char *comm, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	comm[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, (int)size, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

static volatile int thread_stop;

static void *idle_thread(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	while (!thread_stop)
		usleep(1000);
	return NULL;
}

static void test_process(void)
{
	struct pd_buf b = PD_BUF_INIT;
	char exe[4096], comm[32], tcomm[32];
	ssize_t n;
	size_t off = 0;
	struct rec r;
	pthread_t th;
	volatile pid_t tid = 0;
	pid_t me = getpid();
	u64 fn = (u64)(uintptr_t)marker_function;
	void *anon;
	int comms = 0, thread_comm = 0, forks = 0, covers = 0, anon_seen = 0, err;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	pthread_setname_np(pthread_self(), "synth-main");
	if (pthread_create(&th, NULL, idle_thread, (void *)&tid) == 0) {
		while (!tid)
			usleep(100);
		pthread_setname_np(th, "synth-worker");
	}
	anon = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	read_comm(me, comm, sizeof(comm));
	read_comm(tid, tcomm, sizeof(tcomm));

	err = synthesize_process(&attr, me, false, &b);
	is(err, 0, "synthesize_process(self) succeeds");
	is(check_layout(&b), 0, "every record is whole, names end inside, trailers are zero");
	while (next_rec(&b, &off, &r) > 0) {
		if (r.h->type == PERF_RECORD_COMM) {
			const struct pd_comm_body *c = r.body;

			comms++;
			if (c->pid == (u32)me && c->tid == (u32)me)
				is_str(r.name, comm,
				       "COMM of the main thread matches /proc/self/comm");
			if (c->pid == (u32)me && c->tid == (u32)tid && !strcmp(r.name, tcomm))
				thread_comm = 1;
		} else if (r.h->type == PERF_RECORD_FORK) {
			forks++;
		} else if (r.h->type == PERF_RECORD_MMAP2) {
			const struct pd_mmap2_body *m = r.body;

			if ((r.h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
			    !(m->prot & PROT_EXEC) || m->pid != (u32)me || m->tid != (u32)me)
				covers = -1000;
			if (fn >= m->start && fn < m->start + m->len && !strcmp(r.name, exe) &&
			    m->ino && (m->flags & MAP_PRIVATE))
				covers++;
			if (anon != MAP_FAILED && (u64)(uintptr_t)anon >= m->start &&
			    (u64)(uintptr_t)anon < m->start + m->len && !strcmp(r.name, "//anon"))
				anon_seen = 1;
		}
	}
	is(comms, 2, "one COMM per thread");
	ok(thread_comm, "the second thread's COMM has its tid and name");
	is(forks, 0, "no FORK for -p, as perf's thread-map synthesis");
	is(covers, 1,
	   "one user MMAP2 (exec, pid/tid = us) covers marker_function, named /proc/self/exe");
	ok(anon_seen, "an anonymous executable map is named //anon");

	/* -d: the readable data maps come too, flagged. */
	pd_buf_reset(&b);
	err = synthesize_process(&attr, me, true, &b);
	{
		int data = 0;

		off = 0;
		while (next_rec(&b, &off, &r) > 0) {
			const struct pd_mmap2_body *m = r.body;

			if (r.h->type == PERF_RECORD_MMAP2 &&
			    (r.h->misc & PERF_RECORD_MISC_MMAP_DATA) && !(m->prot & PROT_EXEC) &&
			    (m->prot & PROT_READ))
				data++;
		}
		ok(!err && data > 0, "with data_maps, non-exec maps come with MISC_MMAP_DATA");
	}

	/* -t on the second thread: its COMM, then the leader's COMM and the maps. */
	pd_buf_reset(&b);
	err = synthesize_thread(&attr, tid, false, &b);
	{
		int first_is_thread = 0, leader = 0, maps = 0, nr_comm = 0;

		off = 0;
		while (next_rec(&b, &off, &r) > 0) {
			const struct pd_comm_body *c = r.body;

			if (r.h->type == PERF_RECORD_COMM && nr_comm++ == 0)
				first_is_thread = c->tid == (u32)tid;
			if (r.h->type == PERF_RECORD_COMM && c->tid == (u32)me)
				leader = 1;
			if (r.h->type == PERF_RECORD_MMAP2)
				maps++;
		}
		ok(!err && first_is_thread && leader && maps > 0,
		   "synthesize_thread: the thread's COMM, the leader's COMM, the maps");
	}

	pd_buf_reset(&b);
	is(synthesize_process(&attr, 0x7ffffff0, false, &b), -ESRCH, "a missing pid is -ESRCH");
	is(b.len, 0, "and appends nothing");

	thread_stop = 1;
	if (tid)
		pthread_join(th, NULL);
	if (anon != MAP_FAILED)
		munmap(anon, 8192);
	pd_buf_release(&b);
}

static void test_all_processes(void)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t off = 0;
	struct rec r;
	pid_t me = getpid();
	int err, init_fork = 0, init_comm = 0, self_maps = 0, fork_misc = 1, order = 1;
	const struct pd_fork_body *last_fork = NULL;

	err = synthesize_all_processes(&attr, false, &b);
	is(err, 0, "synthesize_all_processes succeeds");
	is(check_layout(&b), 0, "all records well formed");
	while (next_rec(&b, &off, &r) > 0) {
		if (r.h->type == PERF_RECORD_FORK) {
			const struct pd_fork_body *f = r.body;

			last_fork = f;
			if (!(r.h->misc & FORK_EXEC))
				fork_misc = 0;
			if (f->pid == 1 && f->tid == 1)
				init_fork = 1;
		} else if (r.h->type == PERF_RECORD_COMM) {
			const struct pd_comm_body *c = r.body;

			/* perf writes each thread's FORK right before its COMM */
			if (!last_fork || last_fork->pid != c->pid || last_fork->tid != c->tid)
				order = 0;
			if (c->pid == 1 && c->tid == 1)
				init_comm = 1;
		} else if (r.h->type == PERF_RECORD_MMAP2) {
			const struct pd_mmap2_body *m = r.body;

			if (m->pid == (u32)me)
				self_maps++;
		}
	}
	ok(init_fork && init_comm, "pid 1 has a FORK and a COMM");
	ok(fork_misc, "every FORK has perf's FORK_EXEC misc bit");
	ok(order, "every COMM follows the FORK of the same thread");
	ok(self_maps > 0, "our own maps are among them");
	pd_buf_release(&b);
}

/* ---- the kernel ---- */

/* The address of a core kernel symbol, reading all of /proc/kallsyms. */
static int kallsyms_find(const char *want, u64 *value)
{
	char line[512], type, name[256];
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '\t'))
			break; /* the modules' */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, want)) {
			*value = addr;
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -1;
}

static int kallsyms_text(u64 *text)
{
	return kallsyms_find("_text", text);
}

static void test_kernel(u64 *text_out)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t off = 0;
	struct rec r;
	u64 text = 0, etext;
	int err = synthesize_kernel_maps(&attr, &b);

	*text_out = 0;
	if (err == -EACCES || kallsyms_text(&text) || !text) {
		skip("kernel map", "kallsyms addresses are hidden (kptr_restrict) or unreadable");
		ok(err == -EACCES || err == 0, "restricted kallsyms gives -EACCES");
		pd_buf_release(&b);
		return;
	}
	is(err, 0, "synthesize_kernel_maps succeeds");
	ok(next_rec(&b, &off, &r) > 0 && r.h->type == PERF_RECORD_MMAP, "the first record is MMAP");
	if (r.h && r.h->type == PERF_RECORD_MMAP) {
		const struct pd_mmap_body *m = r.body;

		is(r.h->misc, PERF_RECORD_MISC_KERNEL, "misc is KERNEL");
		is(m->pid, (u32)-1, "pid is -1");
		is_str(r.name, "[kernel.kallsyms]_text", "named [kernel.kallsyms]_text");
		is(m->pgoff, text, "pgoff is _text from /proc/kallsyms");
		is(m->start, text, "start is _text");
		ok(m->len > 0 && m->len < (1ULL << 40), "len is sane");
		if (kallsyms_find("_etext", &etext))
			skip("len is _etext - _text", "no _etext in /proc/kallsyms");
		else
			is(m->len, etext - text, "len is _etext - _text, as perf 6.1 has it");
		*text_out = text;
	}
	pd_buf_release(&b);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The kernel map of what root holds: its length, and how many records came with it. */
static u64 fake_kernel_len(const char *root, struct pd_buf *b, int *nr)
{
	size_t off = 0;
	struct rec r;
	u64 len = 0;

	pd_buf_reset(b);
	*nr = -1;
	if (synthesize_kernel_maps_at(&attr, root, b))
		return 0;
	for (*nr = 0; next_rec(b, &off, &r) > 0; (*nr)++)
		if (!*nr && r.h->type == PERF_RECORD_MMAP)
			len = ((const struct pd_mmap_body *)r.body)->len;
	return len;
}

/*
 * Without page table isolation, x86 takes the kernel's text size from /proc/iomem's "Kernel
 * code" and reads kallsyms only up to _text: the _etext below, which disagrees with iomem on
 * purpose, shows which was used.
 */
static void test_fake_iomem(const char *root, struct pd_buf *b)
{
	char path[4096];
	u64 len;
	int nr;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/vulnerabilities", root);
	for (size_t i = strlen(root) + 1; path[i]; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			mkdir(path, 0755);
			path[i] = '/';
		}
	mkdir(path, 0755);
	write_file(root, "proc/kallsyms",
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000000 T _text\n"
		   "ffffffff81000100 t some_function\n"
		   "ffffffff81e00000 T _entry_trampoline\n"
		   "ffffffff82000000 T _etext\n"
		   "fffffe0000042000 t __entry_SYSCALL_64_trampoline\n");
	write_file(root, "proc/modules", "");
	write_file(root, "proc/iomem",
		   "00000000-00000fff : Reserved\n"
		   "00100000-bffdffff : System RAM\n"
		   "  01000000-01c0197f : Kernel code\n"
		   "  01e00000-0240ffff : Kernel rodata\n"
		   "  02600000-0287f0ff : Kernel data\n");
	write_file(root, "sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
	len = fake_kernel_len(root, b, &nr);
#if defined(__x86_64__) || defined(__i386__)
	is(len, 0xc01980, "no PTI: the kernel map is as long as iomem's Kernel code");
	is(nr, 1, "and kallsyms is not read past _text (no trampoline)");
#else
	is(len, 0x1000000, "not x86: the kernel map ends at kallsyms' _etext");
#endif

	write_file(root, "sys/devices/system/cpu/vulnerabilities/meltdown", "Mitigation: PTI\n");
	len = fake_kernel_len(root, b, &nr);
	is(len, 0x1000000, "with PTI: kallsyms is read whole, the map ends at _etext");
	is(nr, 2, "and the trampoline comes with it");

	write_file(root, "sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
	write_file(root, "proc/iomem", "00000000-00000000 : Kernel code\n");
	len = fake_kernel_len(root, b, &nr);
	is(len, 0x1000000, "iomem without addresses (not root): the map ends at _etext");
}

static void test_fake_root(void)
{
	char root[] = "/tmp/prec-synth-XXXXXX", path[4096], ko[4096];
	struct pd_buf b = PD_BUF_INIT;
	struct utsname uts;
	size_t off = 0;
	struct rec r;
	int err, i;

	if (!mkdtemp(root) || uname(&uts)) {
		skip("fake /proc", "cannot make a scratch directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib/modules/%s/kernel/fs", root, uts.release);
	for (i = 0; path[i]; i++)
		if (i && path[i] == '/') {
			path[i] = '\0';
			mkdir(path, 0755);
			path[i] = '/';
		}
	mkdir(path, 0755);
	write_file(path, "x-fs.ko.xz", "");
	write_file(root, "proc/kallsyms",
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000000 T _text\n"
		   "ffffffff81000100 t some_function\n"
		   "ffffffff81e00000 T _entry_trampoline\n"
		   "ffffffff82000000 T _etext\n"
		   "fffffe0000042000 t __entry_SYSCALL_64_trampoline\n"
		   "fffffe0000003000 t __entry_SYSCALL_64_trampoline\n"
		   "ffffffffc0002000 t mod_fn\t[x_fs]\n"
		   "fffffe0000081000 t __entry_SYSCALL_64_trampoline\n");
	write_file(root, "proc/modules",
		   "x_fs 12288 0 - Live 0xffffffffc0002000\n"
		   "other 4096 1 x_fs, Live 0xffffffffc0000000 (OE)\n");
	snprintf(path, sizeof(path), "%s/lib/modules/%s", root, uts.release);
	write_file(path, "modules.dep", "kernel/fs/x-fs.ko.xz:\n");

	err = synthesize_kernel_maps_at(&attr, root, &b);
	is(err, 0, "fake root: synthesize_kernel_maps_at succeeds");
	{
		const u64 page = (u64)sysconf(_SC_PAGESIZE);
		const struct {
			u64 start, len, pgoff;
			const char *name;
		} want[] = {
		    {0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
		     "[kernel.kallsyms]_text"},
		    {0xfffffe0000003000ULL, page, 0xffffffff81e00000ULL,
		     "__entry_SYSCALL_64_trampoline"},
		    {0xfffffe0000042000ULL, page, 0xffffffff81e00000ULL,
		     "__entry_SYSCALL_64_trampoline"},
		    {0xffffffffc0000000ULL, 4096, 0, "[other]"},
		    {0xffffffffc0002000ULL, 12288, 0, NULL /* the .ko path */},
		};
		int n = 0, good = 0;

		snprintf(ko, sizeof(ko), "%s/lib/modules/%s/kernel/fs/x-fs.ko.xz", root,
			 uts.release);
		while (next_rec(&b, &off, &r) > 0 && n < 5) {
			const struct pd_mmap_body *m = r.body;

			if (r.h->type == PERF_RECORD_MMAP && r.h->misc == PERF_RECORD_MISC_KERNEL &&
			    m->pid == (u32)-1 && m->start == want[n].start &&
			    m->len == want[n].len && m->pgoff == want[n].pgoff &&
			    !strcmp(r.name, want[n].name ? want[n].name : ko))
				good++;
			else
				diag("record %d: %s %llx %llx %llx", n, r.name,
				     (unsigned long long)m->start, (unsigned long long)m->len,
				     (unsigned long long)m->pgoff);
			n++;
		}
		is(n, 5, "five records: the kernel, two trampolines, two modules");
		is(good, 5, "kernel to _etext, trampolines and modules by address, .ko or [name]");
	}

	/* No _etext: the kernel map ends at the first module above it. */
	write_file(root, "proc/kallsyms", "ffffffff81000000 T _text\n");
	pd_buf_reset(&b);
	err = synthesize_kernel_maps_at(&attr, root, &b);
	off = 0;
	ok(!err && next_rec(&b, &off, &r) > 0 &&
	       ((const struct pd_mmap_body *)r.body)->len ==
		   0xffffffffc0000000ULL - 0xffffffff81000000ULL,
	   "without _etext the kernel map ends at the first module");

	test_fake_iomem(root, &b);

	/* kptr_restrict: zeros. */
	write_file(
	    root, "proc/kallsyms",
	    "0000000000000000 T _stext\n0000000000000000 T _text\n0000000000000000 T _etext\n");
	pd_buf_reset(&b);
	is(synthesize_kernel_maps_at(&attr, root, &b), -EACCES, "zero addresses give -EACCES");
	is(b.len, 0, "and nothing is appended");

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		diag("could not remove %s", root);
	pd_buf_release(&b);
}

/* ---- the tracker ---- */

static void add_sample(struct pd_buf *b, u16 cpumode, u32 pid, u64 ip, u64 time)
{
	struct pd_sample s = {
	    .misc = cpumode, .ip = ip, .pid = pid, .tid = pid, .time = time, .period = 1};

	s.sample_type = attr.sample_type;
	if (pd_encode_sample(b, &attr, &s))
		diag("pd_encode_sample failed");
}

static void add_mmap2(struct pd_buf *b, u32 pid, u64 start, u64 len, const char *name, u64 time)
{
	struct pd_mmap2_body m = {.pid = pid,
				  .tid = pid,
				  .start = start,
				  .len = len,
				  .prot = PROT_READ | PROT_EXEC,
				  .flags = MAP_PRIVATE,
				  .ino = 1};
	struct pd_sample id = {.pid = pid, .tid = pid, .time = time};

	pd_encode_mmap2(b, &attr, PERF_RECORD_MISC_USER, &m, name, &id);
}

static void add_fork(struct pd_buf *b, u32 pid, u32 ppid, u64 time)
{
	struct pd_fork_body f = {.pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid, .time = time};
	struct pd_sample id = {.pid = pid, .tid = pid, .time = time};

	pd_encode_fork(b, &attr, false, 0, &f, &id);
}

static void add_comm_exec(struct pd_buf *b, u32 pid, u64 time)
{
	struct pd_sample id = {.pid = pid, .tid = pid, .time = time};

	pd_encode_comm(b, &attr, pid, pid, "new-image", true, &id);
}

static void add_exit(struct pd_buf *b, u32 pid, u64 time)
{
	struct pd_fork_body f = {.pid = pid, .ppid = 1, .tid = pid, .ptid = 1, .time = time};
	struct pd_sample id = {.pid = pid, .tid = pid, .time = time};

	pd_encode_fork(b, &attr, true, 0, &f, &id);
}

static char nonelf_name[64];

static void test_tracker(u64 text)
{
	struct buildid_tracker *t = buildid_tracker_new();
	struct pd_buf b = PD_BUF_INIT, s = PD_BUF_INIT;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	u64 fn = (u64)(uintptr_t)marker_function;

	exe[n > 0 ? n : 0] = '\0';
	synthesize_process(&attr, getpid(), false, &b);
	buildid_note_records(t, b.data, b.len, &attr);

	add_sample(&s, PERF_RECORD_MISC_USER, (u32)getpid(), 0x10, 1);
	add_sample(&s, PERF_RECORD_MISC_USER, (u32)getpid() + 100000, fn, 1);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(!buildid_is_hit(t, exe), "samples outside the binary (or in another pid) do not hit it");

	pd_buf_reset(&s);
	add_sample(&s, PERF_RECORD_MISC_USER, (u32)getpid(), fn, 2);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(buildid_is_hit(t, exe), "a sample in marker_function hits the test binary");

	if (text) {
		pd_buf_reset(&b);
		synthesize_kernel_maps(&attr, &b);
		buildid_note_records(t, b.data, b.len, &attr);
		ok(!buildid_is_hit(t, "[kernel.kallsyms]"),
		   "the kernel is not hit before a sample");
		pd_buf_reset(&s);
		add_sample(&s, PERF_RECORD_MISC_KERNEL, 0, text + 0x100, 3);
		buildid_note_records(t, s.data, s.len, &attr);
		ok(buildid_is_hit(t, "[kernel.kallsyms]"),
		   "a kernel sample hits [kernel.kallsyms]");
	} else {
		skip("kernel hit", "no kernel map on this machine");
		skip("kernel hit", "no kernel map on this machine");
	}

	/* Not in time order: the child's MMAP2 (t=200) and sample come before its FORK (t=100). */
	pd_buf_reset(&s);
	add_mmap2(&s, 5000, 0x400000, 0x1000, "/opt/parent-bin", 50);
	add_mmap2(&s, 5001, 0x800000, 0x1000, "/opt/child-lib", 200);
	add_sample(&s, PERF_RECORD_MISC_USER, 5001, 0x800010, 210);
	add_fork(&s, 5001, 5000, 100);
	add_sample(&s, PERF_RECORD_MISC_USER, 5001, 0x400010, 220);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(buildid_is_hit(t, "/opt/child-lib"),
	   "a map that came before its FORK survives the FORK");
	ok(buildid_is_hit(t, "/opt/parent-bin"), "the child inherits the parent's maps");

	/* A newer map that arrived first is not overwritten by an older overlapping one. */
	pd_buf_reset(&s);
	add_mmap2(&s, 6000, 0x10000, 0x4000, "/opt/newer", 300);
	add_mmap2(&s, 6000, 0x11000, 0x1000, "/opt/older", 100);
	add_sample(&s, PERF_RECORD_MISC_USER, 6000, 0x11010, 310);
	add_mmap2(&s, 6000, 0x20000, 0x4000, "/opt/first", 100);
	add_mmap2(&s, 6000, 0x21000, 0x1000, "/opt/second", 150);
	add_sample(&s, PERF_RECORD_MISC_USER, 6000, 0x23010, 160);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(buildid_is_hit(t, "/opt/newer") && !buildid_is_hit(t, "/opt/older"),
	   "an older map does not cover a newer one");
	ok(buildid_is_hit(t, "/opt/first") && !buildid_is_hit(t, "/opt/second"),
	   "a newer map splits an older one, whose tail still resolves");

	/* A sample that arrives before the MMAP2 explaining it is applied after it. */
	pd_buf_reset(&s);
	add_sample(&s, PERF_RECORD_MISC_USER, 7000, 0x30010, 400);
	add_mmap2(&s, 7000, 0x30000, 0x1000, "/opt/late", 390);
	buildid_note_records(t, s.data, s.len, &attr);
	{
		struct pd_buf round = PD_BUF_INIT;

		pd_encode_finished_round(&round);
		buildid_note_records(t, round.data, round.len, &attr);
		pd_buf_release(&round);
	}
	ok(buildid_is_hit(t, "/opt/late"), "a sample that came before its MMAP2 still resolves");

	/* An exec drops the maps made before it. */
	pd_buf_reset(&s);
	add_mmap2(&s, 8000, 0x50000, 0x1000, "/opt/pre-exec", 100);
	add_comm_exec(&s, 8000, 150);
	add_mmap2(&s, 8000, 0x60000, 0x1000, "/opt/post-exec", 160);
	add_sample(&s, PERF_RECORD_MISC_USER, 8000, 0x50010, 170);
	add_sample(&s, PERF_RECORD_MISC_USER, 8000, 0x60010, 170);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(!buildid_is_hit(t, "/opt/pre-exec") && buildid_is_hit(t, "/opt/post-exec"),
	   "an exec drops the maps older than itself");

	/*
	 * An EXIT frees the process, in time order: a sample taken before it resolves even when it
	 * arrives after it; one that comes after the round rule let the EXIT through does not
	 * (perf, which would call it out of order, finds nothing for it either).
	 */
	pd_buf_reset(&s);
	add_mmap2(&s, 9000, 0x70000, 0x1000, "/opt/exit-a", 10);
	add_mmap2(&s, 9000, 0x71000, 0x1000, "/opt/exit-b", 10);
	add_exit(&s, 9000, 30);
	add_sample(&s, PERF_RECORD_MISC_USER, 9000, 0x70010, 20);
	pd_encode_finished_round(&s);
	pd_encode_finished_round(&s);
	add_sample(&s, PERF_RECORD_MISC_USER, 9000, 0x71010, 25);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(buildid_is_hit(t, "/opt/exit-a"), "a sample that arrives after its EXIT but was before");
	ok(!buildid_is_hit(t, "/opt/exit-b"), "a sample after the EXIT was applied finds nothing");

	/*
	 * Two CPU buffers read one after the other in one round: on the first, a child forks from
	 * a shell, runs for a moment in the shell's code, execs; on the second, from earlier, the
	 * shell's own exec and MMAP2. The child's sample belongs to the shell's binary.
	 */
	pd_buf_reset(&s);
	add_fork(&s, 9101, 9100, 785);
	add_sample(&s, PERF_RECORD_MISC_USER, 9101, 0xa0010, 786);
	add_comm_exec(&s, 9101, 787);
	add_mmap2(&s, 9101, 0xb0000, 0x1000, "/opt/ls", 788);
	add_comm_exec(&s, 9100, 680);
	add_mmap2(&s, 9100, 0xa0000, 0x1000, "/opt/dash", 681);
	pd_encode_finished_round(&s);
	pd_encode_finished_round(&s);
	buildid_note_records(t, s.data, s.len, &attr);
	ok(buildid_is_hit(t, "/opt/dash"), "a child's sample before its exec hits the parent's map "
					   "that another CPU's buffer delivered later");
	ok(!buildid_is_hit(t, "/opt/ls"), "and not the map of the image it exec'd");

	/* A hit file that is not an ELF gets no entry. */
	pd_buf_reset(&s);
	{
		char notelf[] = "/tmp/prec-synth-notelf-XXXXXX";
		int fd = mkstemp(notelf);

		if (fd >= 0) {
			if (write(fd, "not an ELF file\n", 16) != 16)
				diag("short write");
			close(fd);
		}
		add_mmap2(&s, 9500, 0x90000, 0x1000, notelf, 10);
		add_sample(&s, PERF_RECORD_MISC_USER, 9500, 0x90010, 20);
		buildid_note_records(t, s.data, s.len, &attr);
		ok(fd >= 0 && buildid_is_hit(t, notelf), "a sample hits a non-ELF file");
		strcpy(nonelf_name, notelf);
	}

	/* The BUILD_ID payload: the test binary's entry equals what readelf reports. */
	{
		struct pd_buf feat = PD_BUF_INIT;
		char cmd[4200], line[512], want[64] = "", got[64] = "";
		int nr = buildid_feature(t, &feat), entries = 0, unreadable = 0, i;
		size_t pos = 0;
		FILE *p;

		ok(nr > 0, "buildid_feature writes entries");
		while (pos + sizeof(struct pd_record_header) + sizeof(struct pd_build_id_body) <=
		       feat.len) {
			const struct pd_record_header *h = (const void *)(feat.data + pos);
			const struct pd_build_id_body *e = (const void *)(h + 1);
			const char *name = (const char *)(e + 1);

			if (h->size < sizeof(*h) + sizeof(*e) || pos + h->size > feat.len)
				break;
			entries++;
			if (e->pid != -1)
				diag("entry with pid %d", e->pid);
			if (!strcmp(name, exe) &&
			    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER) {
				for (i = 0; i < e->size && i < 20; i++)
					sprintf(got + 2 * i, "%02x", e->data[i]);
			}
			if (!strncmp(name, "/opt/", 5) || !strcmp(name, nonelf_name))
				unreadable++;
			pos += h->size;
		}
		is(entries, nr, "the payload holds as many entries as returned");
		is(unreadable, 0, "hit files that are missing or not ELF get no entry");
		unlink(nonelf_name);
		snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", exe);
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p)) {
			char *bid = strstr(line, "Build ID: ");

			if (bid) {
				sscanf(bid + 10, "%63s", want);
				break;
			}
		}
		if (p)
			pclose(p);
		if (!want[0])
			skip("build-id of the test binary",
			     "readelf is missing or found no build-id");
		else
			is_str(got, want, "the test binary's build-id is what readelf -n reports");
		pd_buf_release(&feat);
	}

	buildid_tracker_free(t);
	pd_buf_release(&b);
	pd_buf_release(&s);
}

/* ---- write mode, for tests/t1200-synthesize.sh ---- */

struct sym {
	const char *name;
	u64 addr; /* where it runs in the process */
};

/* The runtime address of each named function of pid's executable (libelf on /proc/PID/exe). */
static int find_syms(pid_t pid, struct sym *syms, int nr)
{
	char path[64], exe[4096], line[8192];
	unsigned long long start = 0, end, pgoff = 0;
	Elf_Scn *scn = NULL;
	size_t phnum, i;
	int fd, found = 0, j;
	ssize_t n;
	FILE *f;
	Elf *elf;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	/* the executable mapping of the binary */
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char perms[8], name[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   name) >= 4 &&
		    perms[2] == 'x' && !strcmp(name, exe))
			break;
		start = 0;
	}
	fclose(f);
	if (!start || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(exe, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &phnum))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;
			GElf_Sym sym;
			size_t k;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (j = 0; name && j < nr; j++) {
				if (strcmp(name, syms[j].name) || syms[j].addr)
					continue;
				/* file offset of the symbol, through the PT_LOAD holding it */
				for (k = 0; k < phnum; k++) {
					GElf_Phdr ph;

					if (gelf_getphdr(elf, (int)k, &ph) &&
					    ph.p_type == PT_LOAD && sym.st_value >= ph.p_vaddr &&
					    sym.st_value < ph.p_vaddr + ph.p_memsz) {
						u64 off = sym.st_value - ph.p_vaddr + ph.p_offset;

						syms[j].addr = start + off - pgoff;
						found++;
					}
				}
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found == nr ? 0 : -1;
}

/* Where __vdso_clock_gettime runs in pid: its [vdso] map plus the symbol's value in our vDSO. */
static int vdso_function(pid_t pid, u64 *addr)
{
	char path[64], line[512];
	unsigned long long start = 0, end = 0, mine = 0, mine_end = 0;
	Elf_Scn *scn = NULL;
	int found = -1;
	char *copy;
	Elf *elf;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	for (int pass = 0; pass < 2; pass++) {
		f = fopen(pass ? "/proc/self/maps" : path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (strstr(line, "[vdso]"))
				sscanf(line, "%llx-%llx", pass ? &mine : &start,
				       pass ? &mine_end : &end);
		}
		if (f)
			fclose(f);
	}
	if (!start || !mine || mine_end - mine != end - start || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	copy = malloc(mine_end - mine);
	memcpy(copy, (void *)(uintptr_t)mine, mine_end - mine);
	elf = elf_memory(copy, mine_end - mine);
	while (elf && found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, "__vdso_clock_gettime") && sym.st_value) {
				*addr = start + sym.st_value;
				found = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return found;
}

/* The first kernel function after _text, for a kernel sample perf can name. */
static int kernel_function(u64 text, char *name, size_t size, u64 *addr)
{
	char line[512], type, sym[256];
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && a > text &&
		    (type == 'T' || type == 't') && sym[0] != '_' && !strchr(line, '[')) {
			snprintf(name, size, "%s", sym);
			*addr = a;
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

/* how: "" (-p), "all" (-a synthesis), "nokernel" (no kernel map, kernel not excluded) */
static int write_mode(const char *file, pid_t pid, const char *how)
{
	struct sym syms[] = {{"hot_a", 0}, {"run_round", 0}, {"main", 0}};
	static const int count[] = {5, 3, 2};
	struct perf_event_attr a = attr;
	struct buildid_tracker *t = buildid_tracker_new();
	struct pd_buf rec = PD_BUF_INIT, feat = PD_BUF_INIT;
	struct pd_writer *w;
	char kname[256];
	u64 id = 42, time = 1000000000ULL, text = 0, kaddr = 0, vaddr = 0;
	int err, i, j, nr_bid;
	bool kernel;

	bool samples = strcmp(how, "thread") && !find_syms(pid, syms, 3);

	if (!strcmp(how, "nokernel")) {
		kernel = false;
	} else {
		err = synthesize_kernel_maps(&a, &rec);
		kernel = !err && !kallsyms_text(&text) &&
			 !kernel_function(text, kname, sizeof(kname), &kaddr);
		if (err)
			a.exclude_kernel = 1;
	}
	a.exclude_guest = 1;
	a.sample_period = 250000;
	a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
	if (!strcmp(how, "all"))
		err = synthesize_all_processes(&a, false, &rec);
	else if (!strcmp(how, "thread"))
		err = synthesize_thread(&a, pid, false, &rec);
	else
		err = synthesize_process(&a, pid, false, &rec);
	if (err) {
		fprintf(stderr, "synthesis failed: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; samples && i < 3; i++) {
		for (j = 0; j < count[i]; j++) {
			struct pd_sample s = {.sample_type = a.sample_type,
					      .misc = PERF_RECORD_MISC_USER,
					      .id = id,
					      .ip = syms[i].addr + 4 + j,
					      .pid = (u32)pid,
					      .tid = (u32)pid,
					      .time = time += 1000000,
					      .period = 250000};

			pd_encode_sample(&rec, &a, &s);
		}
		printf("sym %s %d\n", syms[i].name, count[i]);
	}
	if (samples && !vdso_function(pid, &vaddr)) {
		struct pd_sample s = {.sample_type = a.sample_type,
				      .misc = PERF_RECORD_MISC_USER,
				      .id = id,
				      .ip = vaddr,
				      .pid = (u32)pid,
				      .tid = (u32)pid,
				      .time = time += 1000000,
				      .period = 250000};

		pd_encode_sample(&rec, &a, &s);
		printf("vdso __vdso_clock_gettime\n");
	}
	if (samples && kernel) {
		struct pd_sample s = {.sample_type = a.sample_type,
				      .misc = PERF_RECORD_MISC_KERNEL,
				      .id = id,
				      .ip = kaddr,
				      .pid = (u32)pid,
				      .tid = (u32)pid,
				      .time = time += 1000000,
				      .period = 250000};

		pd_encode_sample(&rec, &a, &s);
		printf("ksym %s\n", kname);
	}
	buildid_note_records(t, rec.data, rec.len, &a);
	nr_bid = buildid_feature(t, &feat);
	err = rec.err ? rec.err : nr_bid < 0 ? nr_bid : 0;
	if (!err)
		err = pd_writer_open(&w, file, 0);
	if (!err) {
		err = pd_writer_add_attr(w, &a, "cpu-clock", &id, 1);
		if (err >= 0)
			err = pd_writer_set_feature(w, PD_FEAT_BUILD_ID, feat.data, feat.len);
		if (!err)
			err = pd_writer_begin(w);
		if (!err)
			err = pd_writer_write(w, rec.data, rec.len);
		if (!err)
			err = pd_writer_close(w);
		else
			pd_writer_abort(w);
	}
	printf("build-ids %d\n", nr_bid);
	buildid_tracker_free(t);
	pd_buf_release(&rec);
	pd_buf_release(&feat);
	if (err) {
		fprintf(stderr, "writing %s: %s\n", file, strerror(-err));
		return 1;
	}
	return 0;
}

/* A process with named threads to synthesize: "synth-t1" .. "synth-t3" next to the main one. */
static void *sleeping_thread(void *arg)
{
	sleep((unsigned)(uintptr_t)arg);
	return NULL;
}

static int threads_mode(int seconds)
{
	pthread_t th[3];
	char name[16];
	int i;

	for (i = 0; i < 3; i++) {
		if (pthread_create(&th[i], NULL, sleeping_thread, (void *)(uintptr_t)seconds))
			return 1;
		snprintf(name, sizeof(name), "synth-t%d", i + 1);
		pthread_setname_np(th[i], name);
	}
	sleep((unsigned)seconds);
	return 0;
}

/*
 * Feed every record of a perf.data (one perf record wrote: per-CPU buffers, FINISHED_ROUNDs,
 * records out of time order across CPUs) to a tracker, and print the BUILD_ID entries it makes
 * as perf buildid-list prints them.
 */
static int replay_mode(const char *file)
{
	struct buildid_tracker *t = buildid_tracker_new();
	struct pd_buf feat = PD_BUF_INIT;
	struct pd_reader *r;
	struct pd_event ev;
	size_t pos = 0;
	int err, n;

	err = pd_reader_open(&r, file, 0);
	if (err) {
		fprintf(stderr, "%s: %s\n", file, r ? pd_reader_errmsg(r) : strerror(-err));
		pd_reader_close(r);
		return 1;
	}
	while ((err = pd_reader_next(r, &ev)) > 0) {
		const struct perf_event_attr *a = NULL;
		struct pd_sample sample;
		int idx;

		if (ev.header->type < PD_RECORD_HEADER_ATTR &&
		    !pd_reader_parse_sample(r, ev.header, &sample, &idx))
			a = pd_reader_attr(r, (u32)idx);
		buildid_note_record(t, ev.header, a);
	}
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", file, pd_reader_errmsg(r));
		pd_reader_close(r);
		return 1;
	}
	n = buildid_feature(t, &feat);
	while (n > 0 && pos + sizeof(struct pd_record_header) + sizeof(struct pd_build_id_body) <=
			    feat.len) {
		const struct pd_record_header *h = (const void *)(feat.data + pos);
		const struct pd_build_id_body *e = (const void *)(h + 1);
		int i;

		for (i = 0; i < e->size; i++)
			printf("%02x", e->data[i]);
		printf(" %s\n", (const char *)(e + 1));
		pos += h->size;
	}
	pd_buf_release(&feat);
	buildid_tracker_free(t);
	pd_reader_close(r);
	return n < 0;
}

/*
 * usage: test-synthesize                         the unit tests (TAP)
 *        test-synthesize write FILE PID [HOW]    a perf.data of the kernel map and PID's
 *                                                synthesized side-band (HOW "all": of every
 *                                                process; "nokernel": without the kernel map;
 *                                                "thread": of the thread PID, as for -t), and
 *                                                when PID runs hot3, samples in its hot_a,
 *                                                run_round and main, one in the [vdso] and one in
 *                                                the kernel, and the BUILD_ID feature
 *        test-synthesize threads SECONDS         sleep in a process of four named threads
 *        test-synthesize replay FILE             the build-ids the tracker finds in FILE
 */
/*
 * Random overlapping maps with random times: a sample must hit the map that covers it with the
 * greatest time (the later record on a tie), whatever order the records came in.
 */
static void test_tracker_random(void)
{
	enum { TRIALS = 300, MAPS = 12 };
	struct {
		u64 start, end, time;
	} m[MAPS];
	unsigned seed = 12345;
	int trial, i, bad = 0;

	for (trial = 0; trial < TRIALS; trial++) {
		struct buildid_tracker *t = buildid_tracker_new();
		struct pd_buf b = PD_BUF_INIT;
		char name[32];
		u64 x;
		int want = -1;

		for (i = 0; i < MAPS; i++) {
			m[i].start = 0x1000 * (rand_r(&seed) % 64);
			m[i].end = m[i].start + 0x1000 * (1 + rand_r(&seed) % 16);
			m[i].time = 1 + rand_r(&seed) % 8;
			snprintf(name, sizeof(name), "/r/%d", i);
			add_mmap2(&b, 100, m[i].start, m[i].end - m[i].start, name, m[i].time);
		}
		x = 0x10 + 0x1000 * (rand_r(&seed) % 80);
		for (i = 0; i < MAPS; i++)
			if (x >= m[i].start && x < m[i].end &&
			    (want < 0 || m[i].time >= m[want].time))
				want = i;
		add_sample(&b, PERF_RECORD_MISC_USER, 100, x, 100);
		buildid_note_records(t, b.data, b.len, &attr);
		for (i = 0; i < MAPS; i++) {
			snprintf(name, sizeof(name), "/r/%d", i);
			if (buildid_is_hit(t, name) != (i == want))
				bad++;
		}
		buildid_tracker_free(t);
		pd_buf_release(&b);
	}
	is(bad, 0, "random overlapping maps: the newest map covering a sample gets the hit");
}

/* A recorder that never sends FINISHED_ROUND: the queue is applied in halves past its bound. */
static void test_tracker_no_rounds(void)
{
	struct buildid_tracker *t = buildid_tracker_new();
	struct pd_buf b = PD_BUF_INIT, s = PD_BUF_INIT;
	int i;

	add_mmap2(&b, 300, 0x40000, 0x1000, "/opt/busy", 5);
	buildid_note_records(t, b.data, b.len, &attr);
	for (i = 0; i < 1000; i++)
		add_sample(&s, PERF_RECORD_MISC_USER, 300, 0x40010, 10 + (u64)i % 7);
	/* 1.2 million samples, more than the queue keeps */
	for (i = 0; i < 1200; i++)
		buildid_note_records(t, s.data, s.len, &attr);
	add_mmap2(&b, 300, 0x50000, 0x1000, "/opt/later", 20);
	buildid_note_records(t, b.data, b.len, &attr);
	ok(buildid_is_hit(t, "/opt/busy") && !buildid_is_hit(t, "/opt/later"),
	   "without FINISHED_ROUND the tracker still applies everything, in order");
	buildid_tracker_free(t);
	pd_buf_release(&b);
	pd_buf_release(&s);
}

int main(int argc, char **argv)
{
	u64 text;

	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "write"))
		return write_mode(argv[2], (pid_t)atoi(argv[3]), argc == 5 ? argv[4] : "");
	if (argc == 3 && !strcmp(argv[1], "threads"))
		return threads_mode(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "replay"))
		return replay_mode(argv[2]);

	test_process();
	test_all_processes();
	test_kernel(&text);
	test_fake_root();
	test_tracker(text);
	test_tracker_random();
	test_tracker_no_rounds();
	return done_testing();
}
