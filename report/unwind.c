// SPDX-License-Identifier: GPL-2.0
/*
 * Dwarf call graphs unwound with libdwfl (see unwind.h), as perf report does with its
 * libdw or libunwind unwinder:
 * - the initial registers are the sample's user registers, moved from perf's order to DWARF's;
 * - memory between the stack pointer and the end of the stack copy comes from the copy; other
 *   addresses are read from the file mapped there, at its offset (code and read-only data: what
 *   the kernel did not copy is not known);
 * - each binary is reported to libdwfl the first time a frame lands in it, at the load bias its
 *   map and its segments give; libdwfl finds its CFI in .eh_frame, else in .debug_frame of the
 *   binary or of its debug file, and keeps it for every later sample of the process;
 * - a binary is opened once for all processes (they share its mapped ELF), and a process's
 *   state goes when it exits or when it is the least recently sampled of too many.
 * perf's unwinders create all of that anew for every sample: the cost of its dwarf reports.
 *
 * Most frames need none of that machinery: their rules are "the caller's CFA is a register plus
 * an offset, the return address and callee-saved registers are at the CFA plus an offset, or in
 * another register". Those are asked of libdw once per binary and pc, the way libdwfl asks
 * (.eh_frame first, then .debug_frame, a caller's pc less one), kept in the binary's table for
 * every process that maps it, and applied to the sample's registers and stack copy directly. A
 * frame that needs anything else (an expression, a signal frame, a pc without CFI or binary)
 * is unwound by libdwfl, that frame alone, from the registers the frames below it left: both
 * ways give the same chains, and a sample with one such frame keeps the fast way for the rest.
 *
 * Samples can be unwound on several threads at once (unwind_batch()): libdw is not thread-safe,
 * so every call into it, and everything the threads share and change, is under the unwinder's
 * lock; each thread remembers the rules it has seen, so that frames seen before need no lock.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW_UNWIND
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#endif

#include "report/session.h"
#include "report/unwind.h"
#include "util/hash-index.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

#define DWARF_RBX 3
#define DWARF_SP 7
#define DWARF_IP 16

/*
 * For perf's x86-64 registers (PERF_REG_X86_*, the bits of sample_regs_user), DWARF's number plus
 * one, 0 for those DWARF does not unwind (flags, the segment registers): perf's ax bx cx dx si di
 * bp sp ip are 0-8, r8-r15 16-23; DWARF's order is rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip.
 */
static const u8 perf_to_dwarf[24] = {
	[0] = 1, [1] = 4, [2] = 3, [3] = 2, [4] = 5, [5] = 6, [6] = 7, [7] = 8, [8] = 17,
	[16] = 9, [17] = 10, [18] = 11, [19] = 12, [20] = 13, [21] = 14, [22] = 15, [23] = 16,
};

u32 unwind_regs_to_dwarf(const u64 *regs, u64 mask, u64 *out)
{
	u32 set = 0, k = 0;

	/* the values are packed in the order of the mask's bits: one pass over the bits set */
	for (u64 left = mask; left; left &= left - 1, k++) {
		u32 bit = (u32)__builtin_ctzll(left), d;

		if (bit >= 24 || !perf_to_dwarf[bit])
			continue;
		d = perf_to_dwarf[bit] - 1u;
		memcpy(&out[d], &regs[k], sizeof(u64));
		set |= 1u << d;
	}
	return set;
}

bool unwind_stack_word(const void *stack, u64 size, u64 sp, u64 addr, u64 *val)
{
	if (addr < sp || addr - sp > size || size - (addr - sp) < sizeof(u64))
		return false;
	memcpy(val, (const u8 *)stack + (addr - sp), sizeof(u64));
	return true;
}

#ifdef HAVE_LIBDW_UNWIND

/*
 * Processes whose Dwfl stays open at once: each holds its binaries' CFI. One that ends
 * (PERF_RECORD_EXIT) frees its own at once; in a long recording of many processes the least
 * recently sampled go first, and one sampled again after that starts afresh.
 */
#define UW_LIVE_MAX 32

/* A process's libdwfl session: its binaries as they were reported, and the sample at hand. */
struct uw_proc {
	struct maps *maps; /* the key: threads of a process share their maps */
	int pid;	   /* whose they were: freed maps may come back for another process */
	Dwfl *dwfl;
	bool attached;
	bool stale; /* a binary reported here is no longer where the maps say: start again */
	struct uw_state *cur;	       /* the sample being unwound: the callbacks' argument is pr */
	struct uw_proc *newer, *older; /* among those with a Dwfl, the most recent first */
};

/* Entries found by the pointer each holds first: processes by their maps, files by their dso. */
struct uw_table {
	void **v;
	u32 nr, cap;
	struct hash_index ix;
};

/* How a caller's register is found, the forms x86-64 code uses (DWARF's rules). */
enum uw_rule_kind {
	UW_UNDEFINED, /* not known: unset in the caller (for the return address: the end) */
	UW_SAME,      /* the callee's value */
	UW_AT_CFA,    /* saved at CFA + off */
	UW_VAL_CFA,   /* the value CFA + off */
	UW_REG,	      /* the value of the callee's register reg, plus off */
};

struct uw_rule {
	u8 kind;
	u8 reg;
	s64 off;
};

/* What the CFI at a pc is: rules prec applies itself, or a frame libdwfl must unwind. */
enum uw_frame_kind {
	UW_FRAME_SIMPLE,  /* every rule simple: cfa_reg, cfa_off and r[] hold them */
	UW_FRAME_LIBDWFL, /* an expression, or a register prec does not follow */
	UW_FRAME_SIGNAL,  /* a signal frame (unwound by libdwfl): its caller's pc is not adjusted */
};

/* The rules of a frame at one pc of a binary: the CFA is register cfa_reg plus cfa_off. */
struct uw_rules {
	u8 kind;
	/*
	 * The CFI leaves rbx as libdw's x86-64 defaults do: undefined, where the ABI has it
	 * callee-saved. Those defaults name rax instead of rbx (elfutils 0.188, Debian 12's), so
	 * a caller would lose rbx wherever a frame does not mention it, and with it the CFA of
	 * a frame computed from rbx (ld.so's _dl_runtime_resolve under _dl_fixup). libunwind,
	 * perf's unwinder here, keeps the callee's value: so does prec, on both of its ways.
	 */
	bool rbx_default;
	u8 cfa_reg;
	s64 cfa_off;
	struct uw_rule r[UNWIND_NR_REGS];
};

/* A pc's rules in a binary's table: NULL when the binary has no CFI for it. */
struct uw_pc_rules {
	u64 pc;
	const struct uw_rules *rules;
};

struct uw_rule_table {
	struct uw_pc_rules *v;
	u32 nr, cap;
	struct hash_index ix;
};

/*
 * A binary, opened once for every process that maps it: the processes' modules share its Elf
 * (libelf counts the references) and reads outside the stack copy come from its image. libelf
 * maps the file whole, so no descriptor stays open for the binaries themselves. A separate
 * debug file is looked at once: a module is given it only when it holds a .debug_frame, the
 * one part of it libdwfl unwinds with; libdwfl then keeps a descriptor on it for each Dwfl that
 * holds the module (it takes a descriptor, never an Elf), so a process's Dwfl holds one for
 * each such binary it has reported, and none for the usual binaries whose debug files have
 * only .debug_info (their CFI is in .eh_frame).
 */
struct uw_file {
	struct dso *dso; /* the key: first, as in uw_proc */
	struct unwinder *u;
	Elf *elf;	 /* NULL when the file could not be read */
	const u8 *image; /* the file's bytes */
	size_t size;
	u64 vlo, vhi; /* the span of its PT_LOADs, the first's start aligned: libdwfl's range */
	/* the binary alone in a Dwfl at its own addresses: the CFI libdwfl finds for it */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct uw_rule_table rules;
	bool debug_known; /* debug_path was looked for */
	char *debug_path; /* the debug file with a .debug_frame, or NULL */
};

/* What a thread remembers of the shared tables, read without the lock. */
#define UW_MEMO_RULES 4096
#define UW_MEMO_FILES 256

struct uw_memo_rules {
	const struct uw_file *f; /* NULL: an empty slot */
	u64 pc;
	const struct uw_rules *rules;
};

struct uw_memo_file {
	const struct dso *dso; /* NULL: an empty slot */
	struct uw_file *f;     /* NULL: no binary to unwind with */
};

struct uw_worker {
	struct unwinder *u;
	pthread_t thread;
	struct uw_memo_rules rules[UW_MEMO_RULES];
	struct uw_memo_file files[UW_MEMO_FILES];
};

/* The most threads that unwind at once. */
#define UW_MAX_THREADS 8
/* A batch smaller than this is unwound on the calling thread: waking the others costs more. */
#define UW_BATCH_MIN 32
/* The samples a thread takes from a batch at a time. */
#define UW_CHUNK 8

struct unwinder {
	struct dsos *dsos;
	struct uw_table procs; /* every process seen: one whose maps come back is used again */
	struct uw_proc *newest, *oldest;
	u32 nr_live;
	struct uw_table files;
	int open_err; /* the first failure to open a file for want of resources, or 0 */
	char *open_path;
	bool open_told;
	char *debuginfo_path;
	Dwfl_Callbacks cb;

	pthread_mutex_t lock; /* libdw, and all of the above */
	bool cached_rules;    /* unwind with the binaries' rules where they are simple */
	u64 nr_cached, nr_libdwfl;
	u32 nr_threads;
	struct uw_worker *workers[UW_MAX_THREADS]; /* [0]: the calling thread's */
	u32 nr_started;
	/* the batch under way, and the threads waiting for the next */
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_start, pool_done;
	struct unwind_job *jobs;
	u32 nr_jobs, next_job, busy;
	u64 batch_gen;
	bool in_flight; /* a batch started and not waited for */
	bool quit;
};

/* What the callbacks need of the sample being unwound. */
struct uw_state {
	struct unwinder *u;
	struct uw_proc *pr;
	struct maps *maps;
	const struct unwind_sample *smp;
	u64 stack_sp; /* the sample's stack pointer: where its stack copy starts */
	/* the frame to unwind, its pc where its rules are looked up */
	u64 regs[UNWIND_NR_REGS];
	u32 regs_set;
	/* its caller, when libdwfl found one */
	u64 next[UNWIND_NR_REGS];
	u32 next_set;
	u32 depth;
};

/*
 * Keep the first failure that cut chains short for want of resources (descriptors, memory):
 * a missing or unreadable file is the recording's matter, as in perf, and is not told.
 */
static void note_open_error(struct unwinder *u, int err, const char *path)
{
	if (u->open_err || (err != EMFILE && err != ENFILE && err != ENOMEM))
		return;
	u->open_err = err;
	u->open_path = xstrdup(path);
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct uw_file *f = *userdata;

	(void)mod;
	(void)modname;
	(void)base;
	/* a reference of the module's own, which its dwfl_end() drops */
	*elfp = f && f->elf ? elf_begin(-1, ELF_C_READ_MMAP, f->elf) : NULL;
	/* the path, for the debug files it links to */
	if (*elfp)
		*file_name = strdup(f->dso->binpath);
	return -1;
}

/* Whether the ELF file open on fd has a .debug_frame with contents. */
static bool has_debug_frame(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;

	if (!elf)
		return false;
	if (elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = name && !strcmp(name, ".debug_frame");
		}
	}
	elf_end(elf);
	return found;
}

/*
 * Find f's debug file once: the one its symbols came from when that is another file than the
 * binary (dso_load() checked its build-id), else where libdwfl would look. It is kept only when
 * it holds a .debug_frame. A failure for want of resources leaves it to be looked for again.
 */
static void debug_lookup(struct uw_file *f, Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			 GElf_Word debuglink_crc)
{
	const struct dso *dso = f->dso;
	char *name = NULL;
	int fd, err = 0;

	if (dso->symsrc && dso->symsrc[0] == '/' && strcmp(dso->symsrc, dso->binpath)) {
		name = xstrdup(dso->symsrc);
		fd = open(name, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
	} else {
		/* it tries several paths: what errno says after it is the last one's */
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink_file, debuglink_crc, &name);
	}
	note_open_error(f->u, err, dso->symsrc);
	f->debug_known = err != EMFILE && err != ENFILE && err != ENOMEM;
	if (fd >= 0) {
		if (has_debug_frame(fd) && name) {
			f->debug_path = name;
			name = NULL;
		}
		close(fd);
	}
	free(name);
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct uw_file *f = *userdata;
	int fd;

	if (!f)
		return -1;
	if (!f->debug_known)
		debug_lookup(f, mod, userdata, modname, base, file_name, debuglink_file,
			     debuglink_crc);
	if (!f->debug_path)
		return -1;
	/* libdwfl closes the descriptor when the module goes */
	fd = open(f->debug_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		note_open_error(f->u, errno, f->debug_path);
	else
		*debuginfo_file_name = strdup(f->debug_path);
	return fd;
}

struct unwinder *unwinder_new(struct dsos *d)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));
	const char *env = getenv("PREC_UNWIND_THREADS");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	u32 threads = cpus > 0 ? (u32)cpus : 1;

	elf_version(EV_CURRENT);
	u->dsos = d;
	u->cb.find_elf = find_elf;
	/* debuginfo_path NULL: libdwfl's default search path (.gnu_debuglink, build-id) */
	u->cb.find_debuginfo = find_debuginfo;
	u->cb.debuginfo_path = &u->debuginfo_path;
	pthread_mutex_init(&u->lock, NULL);
	pthread_mutex_init(&u->pool_lock, NULL);
	pthread_cond_init(&u->pool_start, NULL);
	pthread_cond_init(&u->pool_done, NULL);
	u->workers[0] = xcalloc(1, sizeof(*u->workers[0]));
	u->workers[0]->u = u;
	if (env && *env)
		threads = (u32)strtoul(env, NULL, 10);
	env = getenv("PREC_UNWIND_CFI");
	unwinder_configure(u, threads, !env || strcmp(env, "0"));
	return u;
}

void unwinder_configure(struct unwinder *u, u32 threads, bool cached_rules)
{
	if (!u)
		return;
	u->nr_threads = threads < 1 ? 1 : threads > UW_MAX_THREADS ? UW_MAX_THREADS : threads;
	u->cached_rules = cached_rules;
}

void unwinder_stats(const struct unwinder *u, u64 *cached, u64 *libdwfl)
{
	if (cached)
		*cached = u ? u->nr_cached : 0;
	if (libdwfl)
		*libdwfl = u ? u->nr_libdwfl : 0;
}

static void stop_threads(struct unwinder *u)
{
	pthread_mutex_lock(&u->pool_lock);
	u->quit = true;
	pthread_cond_broadcast(&u->pool_start);
	pthread_mutex_unlock(&u->pool_lock);
	for (u32 i = 1; i <= u->nr_started; i++)
		pthread_join(u->workers[i]->thread, NULL);
	for (u32 i = 0; i < UW_MAX_THREADS; i++)
		free(u->workers[i]);
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	stop_threads(u);
	for (u32 i = 0; i < u->procs.nr; i++) {
		struct uw_proc *pr = u->procs.v[i];

		if (pr->dwfl)
			dwfl_end(pr->dwfl);
		free(pr);
	}
	for (u32 i = 0; i < u->files.nr; i++) {
		struct uw_file *f = u->files.v[i];

		if (f->dwfl)
			dwfl_end(f->dwfl);
		if (f->elf)
			elf_end(f->elf);
		for (u32 j = 0; j < f->rules.nr; j++)
			free((void *)f->rules.v[j].rules);
		free(f->rules.v);
		hash_index_free(&f->rules.ix);
		free(f->debug_path);
		free(f);
	}
	free(u->procs.v);
	hash_index_free(&u->procs.ix);
	free(u->files.v);
	hash_index_free(&u->files.ix);
	free(u->open_path);
	pthread_mutex_destroy(&u->lock);
	pthread_mutex_destroy(&u->pool_lock);
	pthread_cond_destroy(&u->pool_start);
	pthread_cond_destroy(&u->pool_done);
	free(u);
}

int unwinder_open_error(struct unwinder *u, const char **path)
{
	if (!u || !u->open_err || u->open_told)
		return 0;
	u->open_told = true;
	*path = u->open_path;
	return -u->open_err;
}

/* The key an entry holds first. */
static const void *table_key(const void *e)
{
	const void *key;

	memcpy(&key, e, sizeof(key));
	return key;
}

static u64 table_hash_at(const void *ctx, u32 i)
{
	const struct uw_table *t = ctx;

	return hash_mix64((u64)(uintptr_t)table_key(t->v[i]));
}

static bool table_eq(const void *ctx, u32 i, const void *key)
{
	const struct uw_table *t = ctx;

	return table_key(t->v[i]) == key;
}

/* The entry of key in t, else a new one of size bytes, zeroed but for the key: *fresh says. */
static void *table_get(struct uw_table *t, void *key, size_t size, bool *fresh)
{
	void *e;
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&t->ix, table_hash_at, t))
		die("out of memory");
	slot = hash_index_find(&t->ix, hash_mix64((u64)(uintptr_t)key), table_eq, t, key, &i);
	*fresh = i < 0;
	if (i >= 0)
		return t->v[i];
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	e = xcalloc(1, size);
	memcpy(e, &key, sizeof(key));
	t->v[t->nr] = e;
	hash_index_set(&t->ix, slot, t->nr++);
	return e;
}

static struct uw_proc *proc_get(struct unwinder *u, struct maps *m)
{
	bool fresh;

	return table_get(&u->procs, m, sizeof(struct uw_proc), &fresh);
}

static void live_unlink(struct unwinder *u, struct uw_proc *pr)
{
	if (pr->newer)
		pr->newer->older = pr->older;
	else
		u->newest = pr->older;
	if (pr->older)
		pr->older->newer = pr->newer;
	else
		u->oldest = pr->newer;
	pr->newer = pr->older = NULL;
}

static void live_push(struct unwinder *u, struct uw_proc *pr)
{
	pr->older = u->newest;
	pr->newer = NULL;
	if (u->newest)
		u->newest->newer = pr;
	else
		u->oldest = pr;
	u->newest = pr;
}

/* End a process's Dwfl, closing what it opened; the next sample of it begins a new one. */
static void proc_drop(struct unwinder *u, struct uw_proc *pr)
{
	if (!pr->dwfl)
		return;
	live_unlink(u, pr);
	u->nr_live--;
	dwfl_end(pr->dwfl);
	pr->dwfl = NULL;
	pr->attached = false;
	pr->stale = false;
}

void unwinder_forget(struct unwinder *u, struct maps *m)
{
	int64_t i;

	if (!u || !u->procs.ix.mask)
		return;
	unwind_batch_wait(u);
	hash_index_find(&u->procs.ix, hash_mix64((u64)(uintptr_t)m), table_eq, &u->procs, m, &i);
	if (i >= 0)
		proc_drop(u, u->procs.v[i]);
}

/* The span libdwfl gives a module of f: from the first PT_LOAD's aligned start to the end. */
static void file_span(struct uw_file *f)
{
	size_t n;
	bool first = true;

	if (elf_getphdrnum(f->elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			f->vlo = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		first = false;
		if (ph.p_vaddr + ph.p_memsz > f->vhi)
			f->vhi = ph.p_vaddr + ph.p_memsz;
	}
}

/* The binary of dso, opened the first time any process needs it. */
static struct uw_file *file_get(struct unwinder *u, struct dso *dso)
{
	bool fresh;
	struct uw_file *f = table_get(&u->files, dso, sizeof(*f), &fresh);
	int fd;

	if (!fresh)
		return f;
	f->u = u;
	fd = open(dso->binpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		note_open_error(u, errno, dso->binpath);
		return f;
	}
	f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* all of it in memory (mapped): the descriptor is not needed after */
	if (f->elf && (elf_kind(f->elf) != ELF_K_ELF || elf_cntl(f->elf, ELF_C_FDREAD))) {
		elf_end(f->elf);
		f->elf = NULL;
	}
	close(fd);
	if (f->elf) {
		f->image = (const u8 *)elf_rawfile(f->elf, &f->size);
		file_span(f);
	}
	if (!f->image || f->vhi <= f->vlo) {
		if (f->elf)
			elf_end(f->elf);
		f->elf = NULL;
		f->image = NULL;
		f->size = 0;
	}
	return f;
}

/*
 * The load bias of map's binary at addr, an address in map: addr less its ELF address. That
 * address comes from the segment holding addr's file offset, not the map's: a linker may start
 * a segment mid-page (lld does), so that its map begins with the end of the segment before,
 * whose addresses are another distance from their offsets. perf (start - pgoff, less the first
 * PT_LOAD) and the kernel agree with this for the binaries GNU ld makes.
 */
static u64 map_bias(const struct map *map, u64 addr)
{
	const struct dso *dso = map->dso;
	u64 off = addr - map->start + map->pgoff;

	for (u32 i = 0; i < dso->nr_segs; i++) {
		const struct dso_seg *g = &dso->segs[i];

		if (off >= g->offset && off - g->offset < g->memsz)
			return addr - (g->vaddr + (off - g->offset));
	}
	/* no segments known: the file's addresses are its offsets (perf's start - pgoff) */
	return map->start - map->pgoff;
}

/*
 * The map of m that holds addr. Not maps_find(): that one remembers its last find in the maps,
 * which the unwinding threads share.
 */
static struct map *map_at(const struct maps *m, u64 addr)
{
	u32 lo = 0, hi = m->nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

/*
 * Whether map's dso may be a file to unwind with: an ELF file, or the vdso, whose copy in the
 * build-id cache dso_load() finds (it has .eh_frame, and its functions are called from the
 * program's: without it, a sample in the vdso would have no callers).
 */
static bool unwind_kind(const struct map *map)
{
	return map->dso && !map->identity &&
	       (map->dso->kind == DSO_USER || map->dso->kind == DSO_VDSO);
}

static struct map *user_map(struct uw_state *st, u64 addr)
{
	struct map *map = map_at(st->maps, addr);

	if (!map || !unwind_kind(map))
		return NULL;
	dso_load(st->u->dsos, map->dso);
	return map->dso->binpath ? map : NULL;
}

struct overlap {
	const struct uw_file *f;
	u64 lo, hi;
	bool found, same; /* same: the very module, reported before: pc is outside its span */
};

static int overlap_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		      void *arg)
{
	struct overlap *o = arg;
	Dwarf_Addr lo, hi;

	(void)name;
	(void)start;
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	o->same = *userdata == o->f && lo == o->lo && hi == o->hi;
	o->found = lo < o->hi && o->lo < hi;
	return o->found ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * Make sure the binary that holds pc is reported, so that libdwfl finds the CFI to unwind the
 * frame at pc. Return: false when it cannot be (no map, no file), or when a module reported
 * before stands there for another binary or bias: then the process is stale, and its Dwfl,
 * which libdwfl may be walking, is left as it is until the walk ends.
 */
static bool report_module(struct uw_state *st, u64 pc)
{
	struct map *map = user_map(st, pc);
	struct overlap o;
	struct uw_file *f;
	Dwfl_Module *mod;
	void **userdata;
	Dwarf_Addr lo;

	if (!map)
		return false;
	f = file_get(st->u, map->dso);
	if (!f->elf)
		return false;
	o.lo = map_bias(map, pc) + f->vlo;
	o.hi = o.lo + (f->vhi - f->vlo);
	mod = dwfl_addrmodule(st->pr->dwfl, pc);
	if (mod) {
		dwfl_module_info(mod, &userdata, &lo, NULL, NULL, NULL, NULL, NULL);
		if (*userdata == f && lo == o.lo)
			return true;
		st->pr->stale = true;
		return false;
	}
	/*
	 * libdwfl does not look for overlaps among modules reported by their range; the binary
	 * itself at the same bias is there when pc is in its map but past its segments (the rest
	 * of a page): nothing to report, no CFI for pc.
	 */
	o.f = f;
	o.found = false;
	dwfl_getmodules(st->pr->dwfl, overlap_cb, &o, 0);
	if (o.found) {
		st->pr->stale = !o.same;
		return false;
	}
	mod = dwfl_report_module(st->pr->dwfl, map->dso->short_name, o.lo, o.hi);
	if (!mod)
		return false;
	/* which binary it is: for find_elf, and for the check above */
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	dwfl_report_end(st->pr->dwfl, NULL, NULL);
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw_state *st = ((struct uw_proc *)arg)->cur;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = st;
	return st->smp->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = ((struct uw_proc *)arg)->cur;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_state *st = ((struct uw_proc *)arg)->cur;
	const struct unwind_sample *smp = st->smp;
	struct uw_file *f;
	struct map *map;
	u64 val, off;

	(void)dwfl;
	if (unwind_stack_word(smp->stack, smp->stack_size, st->stack_sp, addr, &val)) {
		*result = val;
		return true;
	}
	map = user_map(st, addr);
	if (!map || addr + sizeof(val) > map->end)
		return false;
	f = file_get(st->u, map->dso);
	off = addr - map->start + map->pgoff;
	if (!f->image || off > f->size || f->size - off < sizeof(val))
		return false;
	memcpy(&val, f->image + off, sizeof(val));
	*result = val;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_state *st = arg;

	/* registers the sample lacks stay undefined: libdwfl stops where it needs one */
	for (u32 i = 0; i < UNWIND_NR_REGS; i++)
		if (st->regs_set & (1u << i) &&
		    !dwfl_thread_state_registers(thread, (int)i, 1, &st->regs[i]))
			return false;
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct uw_state *st = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the frame to unwind: proc_dwfl() reported its binary; the step follows */
	if (!st->depth++)
		return DWARF_CB_OK;
	/* the caller: libdwfl has unwound it, and the step ends there */
	for (u32 i = 0; i < UNWIND_NR_REGS; i++) {
		Dwarf_Word val;

		if (!dwfl_frame_reg(frame, i, &val)) {
			st->next[i] = val;
			st->next_set |= 1u << i;
		}
	}
	st->next[DWARF_IP] = pc;
	st->next_set |= 1u << DWARF_IP;
	return DWARF_CB_ABORT;
}

/*
 * Report some binary of the process, the first that can be: libdwfl learns the architecture
 * from it, so that a new Dwfl can be attached when the sample's address is in no binary it can
 * report (its first frame is then unwound without CFI, as on an attached Dwfl).
 */
static bool report_any(struct uw_state *st)
{
	for (u32 i = 0; i < st->maps->nr; i++) {
		struct map *map = &st->maps->v[i];

		if (unwind_kind(map) && report_module(st, map->start))
			return true;
		if (st->pr->stale)
			return false;
	}
	return false;
}

/*
 * The process's Dwfl, attached with the unwinder's callbacks, a new one when the process is
 * stale or had none. Return: NULL when no binary of the process can be reported.
 */
static Dwfl *proc_dwfl(struct uw_state *st, u64 ip)
{
	struct unwinder *u = st->u;
	struct uw_proc *pr = st->pr;

	if (pr->stale)
		proc_drop(u, pr);
	if (!pr->dwfl) {
		if (u->nr_live >= UW_LIVE_MAX)
			proc_drop(u, u->oldest);
		pr->dwfl = dwfl_begin(&u->cb);
		if (!pr->dwfl)
			return NULL;
		live_push(u, pr);
		u->nr_live++;
	} else if (u->newest != pr) {
		live_unlink(u, pr);
		live_push(u, pr);
	}
	if (!report_module(st, ip) && !pr->attached && !report_any(st))
		return NULL;
	/* libdwfl takes the architecture from the first binary reported */
	if (!pr->attached) {
		if (!dwfl_attach_state(pr->dwfl, NULL, st->smp->pid, &thread_cbs, pr))
			return NULL;
		pr->attached = true;
	}
	return pr->dwfl;
}

/*
 * One frame unwound by libdwfl, with the unwinder's lock held: its registers are regs (set:
 * those known), its pc where its rules are looked up, stack_sp the sample's stack pointer.
 * Return: the caller's registers known, in next (0: libdwfl found no caller).
 */
static u32 step_libdwfl(struct unwinder *u, struct maps *m, const struct unwind_sample *smp,
			u64 stack_sp, const u64 *regs, u32 set, u64 *next)
{
	struct uw_state st = {
		.u = u, .maps = m, .smp = smp, .stack_sp = stack_sp, .regs_set = set,
	};
	Dwfl *dwfl;

	memcpy(st.regs, regs, sizeof(st.regs));
	st.pr = proc_get(u, m);
	if (st.pr->pid != smp->pid)
		st.pr->stale = true;
	st.pr->pid = smp->pid;
	st.pr->cur = &st;
	for (int tries = 0; tries < 2; tries++) {
		st.depth = 0;
		st.next_set = 0;
		dwfl = proc_dwfl(&st, st.regs[DWARF_IP]);
		/* the frame's binary is reported, unless another stands where it should be */
		if (dwfl && !st.pr->stale)
			dwfl_getthread_frames(dwfl, smp->tid, frame_cb, &st);
		/* a binary reported for an earlier layout was in the way: once more, afresh */
		if (!st.pr->stale)
			break;
	}
	st.pr->cur = NULL;
	memcpy(next, st.next, sizeof(st.next));
	return st.next_set;
}

/* ---------------------------------------------------------------------------------------- */
/* The binaries' cached rules */

/* The binary alone in a Dwfl at its own addresses (bias 0): the module libdwfl's CFI comes from. */
static Dwfl_Module *file_module(struct unwinder *u, struct uw_file *f)
{
	void **userdata;

	if (f->dwfl || !f->elf)
		return f->mod;
	f->dwfl = dwfl_begin(&u->cb);
	if (!f->dwfl)
		return NULL;
	f->mod = dwfl_report_module(f->dwfl, f->dso->short_name, f->vlo, f->vhi);
	if (f->mod) {
		dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = f;
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	return f->mod;
}

/* One register's rule as libdw gives it, in a simple form. Return: false when it is not. */
static bool simple_rule(Dwarf_Frame *frame, int regno, struct uw_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops, k = 1;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return false;
	r->off = 0;
	r->reg = 0;
	if (!nops) {
		/* no operations: undefined (ops is mem) or the same value (ops is NULL) */
		if (ops && ops != mem)
			return false;
		r->kind = ops ? UW_UNDEFINED : UW_SAME;
		return true;
	}
	switch (ops[0].atom) {
	case DW_OP_call_frame_cfa:
		/* CFA [+ N]: where it is saved; with DW_OP_stack_value, the value itself */
		if (k < nops && ops[k].atom == DW_OP_plus_uconst)
			r->off = (s64)ops[k++].number;
		r->kind = UW_AT_CFA;
		if (k < nops && ops[k].atom == DW_OP_stack_value) {
			r->kind = UW_VAL_CFA;
			k++;
		}
		return k == nops;
	case DW_OP_regx:
		r->reg = (u8)(ops[0].number < UNWIND_NR_REGS ? ops[0].number : 0xff);
		break;
	case DW_OP_bregx:
		r->reg = (u8)(ops[0].number < UNWIND_NR_REGS ? ops[0].number : 0xff);
		r->off = (s64)ops[0].number2;
		break;
	default:
		if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
			r->reg = (u8)(ops[0].atom - DW_OP_reg0);
		else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			r->reg = (u8)(ops[0].atom - DW_OP_breg0);
			r->off = (s64)ops[0].number;
		} else
			return false;
	}
	/* another register's value (libdwfl evaluates these as values, not locations) */
	if (k < nops && ops[k].atom == DW_OP_stack_value)
		k++;
	r->kind = UW_REG;
	return k == nops && r->reg < UNWIND_NR_REGS;
}

/*
 * What the CFI says of a frame: its rules when they are all simple and it is not a signal
 * frame, else which kind of frame libdwfl must unwind; and whether rbx keeps libdw's default.
 */
static struct uw_rules *frame_rules(Dwarf_Frame *frame)
{
	struct uw_rules rules;
	struct uw_rule rbx;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	bool signal;

	memset(&rules, 0, sizeof(rules));
	rules.kind = UW_FRAME_LIBDWFL;
	rules.rbx_default = simple_rule(frame, DWARF_RBX, &rbx) && rbx.kind == UW_UNDEFINED;
	if (dwarf_frame_info(frame, &start, &end, &signal) != DWARF_IP || signal) {
		rules.kind = signal ? UW_FRAME_SIGNAL : UW_FRAME_LIBDWFL;
		goto out;
	}
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= UNWIND_NR_REGS)
		goto out;
	rules.cfa_reg = (u8)ops[0].number;
	rules.cfa_off = (s64)ops[0].number2;
	for (int i = 0; i < UNWIND_NR_REGS; i++)
		if (!simple_rule(frame, i, &rules.r[i]))
			goto out;
	if (rules.rbx_default)
		rules.r[DWARF_RBX].kind = UW_SAME;
	rules.kind = UW_FRAME_SIMPLE;
out:
	return memcpy(xmalloc(sizeof(rules)), &rules, sizeof(rules));
}

/*
 * The rules at pc (in the binary's addresses) from the CFI libdwfl would use: .eh_frame, then
 * .debug_frame. NULL: the binary has no CFI for pc (libdwfl unwinds the frame without).
 */
static struct uw_rules *rules_at(struct unwinder *u, struct uw_file *f, u64 pc)
{
	Dwfl_Module *mod = file_module(u, f);
	Dwarf_Frame *frame = NULL;
	struct uw_rules *rules;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	if (!mod)
		return NULL;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		frame = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
			return NULL;
	}
	rules = frame_rules(frame);
	free(frame);
	return rules;
}

static u64 rule_hash_at(const void *ctx, u32 i)
{
	const struct uw_rule_table *t = ctx;

	return hash_mix64(t->v[i].pc);
}

static bool rule_eq(const void *ctx, u32 i, const void *key)
{
	const struct uw_rule_table *t = ctx;

	return t->v[i].pc == *(const u64 *)key;
}

/* The binary's rules at pc, asked of libdw the first time: with the unwinder's lock held. */
static const struct uw_rules *file_rules(struct unwinder *u, struct uw_file *f, u64 pc)
{
	struct uw_rule_table *t = &f->rules;
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&t->ix, rule_hash_at, t))
		die("out of memory");
	slot = hash_index_find(&t->ix, hash_mix64(pc), rule_eq, t, &pc, &i);
	if (i >= 0)
		return t->v[i].rules;
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->nr].pc = pc;
	t->v[t->nr].rules = rules_at(u, f, pc);
	hash_index_set(&t->ix, slot, t->nr);
	return t->v[t->nr++].rules;
}

/* The binary to unwind a frame of map with, as the thread remembers it: NULL when none. */
static struct uw_file *worker_file(struct uw_worker *w, const struct map *map)
{
	struct dso *dso = map->dso;
	struct uw_memo_file *e;
	struct uw_file *f = NULL;

	if (!unwind_kind(map))
		return NULL;
	e = &w->files[hash_mix64((u64)(uintptr_t)dso) & (UW_MEMO_FILES - 1)];
	if (e->dso == dso)
		return e->f;
	pthread_mutex_lock(&w->u->lock);
	dso_load(w->u->dsos, dso);
	if (dso->binpath)
		f = file_get(w->u, dso);
	pthread_mutex_unlock(&w->u->lock);
	e->dso = dso;
	e->f = f && f->image ? f : NULL;
	return e->f;
}

/* The binary's rules at pc, as the thread remembers them. */
static const struct uw_rules *worker_rules(struct uw_worker *w, struct uw_file *f, u64 pc)
{
	struct uw_memo_rules *e;

	e = &w->rules[hash_mix64(pc ^ (u64)(uintptr_t)f) & (UW_MEMO_RULES - 1)];
	if (e->f == f && e->pc == pc)
		return e->rules;
	pthread_mutex_lock(&w->u->lock);
	e->rules = file_rules(w->u, f, pc);
	pthread_mutex_unlock(&w->u->lock);
	e->f = f;
	e->pc = pc;
	return e->rules;
}

/* The word at addr, as memory_read() finds it: the stack copy, else the file mapped there. */
static bool read_word(struct uw_worker *w, const struct maps *m, const struct unwind_sample *smp,
		      u64 sp, u64 addr, u64 *val)
{
	const struct map *map;
	struct uw_file *f;
	u64 off;

	if (unwind_stack_word(smp->stack, smp->stack_size, sp, addr, val))
		return true;
	map = map_at(m, addr);
	if (!map || addr + sizeof(*val) > map->end)
		return false;
	f = worker_file(w, map);
	off = addr - map->start + map->pgoff;
	if (!f || off > f->size || f->size - off < sizeof(*val))
		return false;
	memcpy(val, f->image + off, sizeof(*val));
	return true;
}

/* The caller's registers from a frame's simple rules. Return: those known. */
static u32 step_rules(struct uw_worker *w, const struct maps *m, const struct unwind_sample *smp,
		      u64 stack_sp, const struct uw_rules *rules, const u64 *regs, u32 set,
		      u64 *next)
{
	bool cfa_ok = set & (1u << rules->cfa_reg);
	u64 cfa = regs[rules->cfa_reg] + (u64)rules->cfa_off;
	u32 nset = 0;

	for (u32 i = 0; i < UNWIND_NR_REGS; i++) {
		const struct uw_rule *r = &rules->r[i];
		bool have = false;

		switch (r->kind) {
		case UW_UNDEFINED:
			break;
		case UW_SAME:
			have = set & (1u << i);
			next[i] = regs[i];
			break;
		case UW_AT_CFA:
			have = cfa_ok && read_word(w, m, smp, stack_sp, cfa + (u64)r->off, &next[i]);
			break;
		case UW_VAL_CFA:
			have = cfa_ok;
			next[i] = cfa + (u64)r->off;
			break;
		case UW_REG:
			have = set & (1u << r->reg);
			next[i] = regs[r->reg] + (u64)r->off;
			break;
		}
		if (have)
			nset |= 1u << i;
	}
	return nset;
}

/*
 * The rules of the frame at pc (looked up at look), NULL when libdwfl must find them: no binary
 * holds look, or it has no CFI for it, or pc is in another map than look.
 */
static const struct uw_rules *frame_rules_at(struct uw_worker *w, const struct maps *m, u64 pc,
					     u64 look)
{
	const struct map *map = map_at(m, look);
	struct uw_file *f;

	if (!map || pc < map->start || pc >= map->end)
		return NULL;
	f = worker_file(w, map);
	if (!f)
		return NULL;
	look -= map_bias(map, look);
	if (look < f->vlo || look >= f->vhi)
		return NULL;
	return worker_rules(w, f, look);
}

/*
 * A sample's user stack, frame by frame as libdwfl unwinds it (its frame_unwind.c): the rules
 * of the frame at pc (a caller's at pc - 1, unless its callee is a signal frame) give every
 * register of the caller from the callee's; one that cannot be had is unset in the caller; the
 * chain ends where the return address is undefined, unset or 0. Frames whose rules are simple
 * are unwound here, without the lock; the others, one frame at a time, by libdwfl.
 */
static u32 unwind_one(struct uw_worker *w, struct maps *m, const struct unwind_sample *smp,
		      u64 *ips, u32 max)
{
	struct unwinder *u = w->u;
	u64 regs[UNWIND_NR_REGS], next[UNWIND_NR_REGS], stack_sp;
	bool adjust = false, by_libdwfl = false;
	u32 set, nset, n = 0;

	if (!max || smp->abi != PERF_SAMPLE_REGS_ABI_64 || !smp->regs)
		return 0;
	set = unwind_regs_to_dwarf(smp->regs, smp->regs_mask, regs);
	if (!(set & (1u << DWARF_IP)) || !(set & (1u << DWARF_SP)))
		return 0;
	stack_sp = regs[DWARF_SP];
	for (;;) {
		u64 pc = regs[DWARF_IP], look = adjust ? pc - 1 : pc;
		const struct uw_rules *rules = frame_rules_at(w, m, pc, look);
		u8 kind = rules ? rules->kind : UW_FRAME_LIBDWFL;
		bool signal_caller = adjust && kind == UW_FRAME_SIGNAL, found;

		/* a caller's pc is a return address: the call is the byte before */
		ips[n++] = look;
		/* a signal frame's entry depends on its step, below */
		if (n >= max && !signal_caller)
			break;
		if (kind == UW_FRAME_SIMPLE && u->cached_rules) {
			nset = step_rules(w, m, smp, stack_sp, rules, regs, set, next);
		} else {
			/*
			 * libdwfl takes the frame as a first one, whose rules are those at its
			 * pc: so it is given look (an expression that reads rip sees look too,
			 * where libdwfl would give a caller's return address: only PLT entries
			 * have those, and they call nothing)
			 */
			regs[DWARF_IP] = look;
			pthread_mutex_lock(&u->lock);
			nset = step_libdwfl(u, m, smp, stack_sp, regs, set, next);
			pthread_mutex_unlock(&u->lock);
			by_libdwfl = true;
			/* libdwfl applies libdw's defaults as they are: see struct uw_rules */
			if (rules && rules->rbx_default && (set & (1u << DWARF_RBX)) &&
			    !(nset & (1u << DWARF_RBX))) {
				next[DWARF_RBX] = regs[DWARF_RBX];
				nset |= 1u << DWARF_RBX;
			}
		}
		found = (nset & (1u << DWARF_IP)) && next[DWARF_IP];
		/*
		 * a signal frame is an activation, reported at its pc (not a return address),
		 * when it unwinds: dwfl_frame_pc() tells it by the caller its step finds
		 */
		if (signal_caller && found)
			ips[n - 1] = pc;
		if (!found || n >= max)
			break;
		/* the pc interrupted by a signal is not a return address */
		adjust = kind != UW_FRAME_SIGNAL;
		memcpy(regs, next, sizeof(regs));
		set = nset;
	}
	if (by_libdwfl)
		__atomic_fetch_add(&u->nr_libdwfl, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&u->nr_cached, 1, __ATOMIC_RELAXED);
	return n;
}

u32 unwind_user(struct unwinder *u, struct maps *m, const struct unwind_sample *smp, u64 *ips,
		u32 max)
{
	unwind_batch_wait(u);
	return unwind_one(u->workers[0], m, smp, ips, max);
}

/* ---------------------------------------------------------------------------------------- */
/* Threads */

/* Take samples of the batch a few at a time until none is left. */
static void run_jobs(struct uw_worker *w, struct unwind_job *jobs, u32 nr)
{
	struct unwinder *u = w->u;

	for (;;) {
		u32 i = __atomic_fetch_add(&u->next_job, UW_CHUNK, __ATOMIC_RELAXED);

		if (i >= nr)
			return;
		for (u32 j = i; j < i + UW_CHUNK && j < nr; j++) {
			struct unwind_job *job = &jobs[j];

			job->n = unwind_one(w, job->maps, &job->smp, job->ips, job->max);
		}
	}
}

static void *worker_main(void *arg)
{
	struct uw_worker *w = arg;
	struct unwinder *u = w->u;
	u64 seen = 0;

	pthread_mutex_lock(&u->pool_lock);
	for (;;) {
		struct unwind_job *jobs;
		u32 nr;

		while (!u->quit && u->batch_gen == seen)
			pthread_cond_wait(&u->pool_start, &u->pool_lock);
		if (u->quit)
			break;
		seen = u->batch_gen;
		jobs = u->jobs;
		nr = u->nr_jobs;
		pthread_mutex_unlock(&u->pool_lock);
		run_jobs(w, jobs, nr);
		pthread_mutex_lock(&u->pool_lock);
		if (!--u->busy)
			pthread_cond_signal(&u->pool_done);
	}
	pthread_mutex_unlock(&u->pool_lock);
	return NULL;
}

/* The threads a batch wants, started the first time: fewer when the system gives fewer. */
static void start_threads(struct unwinder *u)
{
	while (u->nr_started + 1 < u->nr_threads) {
		struct uw_worker *w = xcalloc(1, sizeof(*w));

		w->u = u;
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			free(w);
			u->nr_threads = u->nr_started + 1;
			return;
		}
		u->workers[++u->nr_started] = w;
	}
}

/* Hand the batch to the started threads. */
static void post_batch(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	pthread_mutex_lock(&u->pool_lock);
	u->jobs = jobs;
	u->nr_jobs = nr;
	__atomic_store_n(&u->next_job, 0, __ATOMIC_RELAXED);
	u->busy = u->nr_started;
	u->batch_gen++;
	pthread_cond_broadcast(&u->pool_start);
	pthread_mutex_unlock(&u->pool_lock);
}

static void run_here(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	for (u32 i = 0; i < nr; i++)
		jobs[i].n = unwind_one(u->workers[0], jobs[i].maps, &jobs[i].smp, jobs[i].ips,
				       jobs[i].max);
}

void unwind_batch_wait(struct unwinder *u)
{
	if (!u || !u->in_flight)
		return;
	pthread_mutex_lock(&u->pool_lock);
	while (u->busy)
		pthread_cond_wait(&u->pool_done, &u->pool_lock);
	pthread_mutex_unlock(&u->pool_lock);
	u->in_flight = false;
}

void unwind_batch_start(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	unwind_batch_wait(u);
	if (u->nr_threads > 1)
		start_threads(u);
	if (u->nr_threads <= 1 || !u->nr_started) {
		run_here(u, jobs, nr);
		return;
	}
	post_batch(u, jobs, nr);
	u->in_flight = true;
}

void unwind_batch(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	unwind_batch_wait(u);
	if (u->nr_threads > 1 && nr >= UW_BATCH_MIN)
		start_threads(u);
	if (u->nr_threads <= 1 || nr < UW_BATCH_MIN || !u->nr_started) {
		run_here(u, jobs, nr);
		return;
	}
	post_batch(u, jobs, nr);
	/* this thread takes its share too */
	run_jobs(u->workers[0], jobs, nr);
	u->in_flight = true;
	unwind_batch_wait(u);
}

#else

struct unwinder *unwinder_new(struct dsos *d)
{
	(void)d;
	return NULL;
}

void unwinder_free(struct unwinder *u)
{
	(void)u;
}

void unwinder_forget(struct unwinder *u, struct maps *m)
{
	(void)u;
	(void)m;
}

int unwinder_open_error(struct unwinder *u, const char **path)
{
	(void)u;
	(void)path;
	return 0;
}

u32 unwind_user(struct unwinder *u, struct maps *m, const struct unwind_sample *smp, u64 *ips,
		u32 max)
{
	(void)u;
	(void)m;
	(void)smp;
	(void)ips;
	(void)max;
	return 0;
}

void unwinder_configure(struct unwinder *u, u32 threads, bool cached_rules)
{
	(void)u;
	(void)threads;
	(void)cached_rules;
}

void unwinder_stats(const struct unwinder *u, u64 *cached, u64 *libdwfl)
{
	(void)u;
	if (cached)
		*cached = 0;
	if (libdwfl)
		*libdwfl = 0;
}

void unwind_batch(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	(void)u;
	for (u32 i = 0; i < nr; i++)
		jobs[i].n = 0;
}

void unwind_batch_start(struct unwinder *u, struct unwind_job *jobs, u32 nr)
{
	unwind_batch(u, jobs, nr);
}

void unwind_batch_wait(struct unwinder *u)
{
	(void)u;
}

#endif
