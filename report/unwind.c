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
 *   binary or of its debug file, and keeps it for every later sample of the process.
 * perf's unwinders create all of that anew for every sample: the cost of its dwarf reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "report/session.h"
#include "report/unwind.h"
#include "util/hash.h"
#include "util/xalloc.h"

/*
 * For each DWARF register of x86-64, perf's number of it (PERF_REG_X86_*, the bit in
 * sample_regs_user): ax bx cx dx si di bp sp ip are 0-8, r8-r15 are 16-23.
 */
static const u8 dwarf_from_perf[UNWIND_NR_REGS] = {
	0,  /* rax */
	3,  /* rdx */
	2,  /* rcx */
	1,  /* rbx */
	4,  /* rsi */
	5,  /* rdi */
	6,  /* rbp */
	7,  /* rsp */
	16, /* r8 */
	17, /* r9 */
	18, /* r10 */
	19, /* r11 */
	20, /* r12 */
	21, /* r13 */
	22, /* r14 */
	23, /* r15 */
	8,  /* rip, DWARF's return address column */
};

#define DWARF_SP 7
#define DWARF_IP 16

u32 unwind_regs_to_dwarf(const u64 *regs, u64 mask, u64 *out)
{
	u32 set = 0;

	for (u32 i = 0; i < UNWIND_NR_REGS; i++) {
		u32 bit = dwarf_from_perf[i];

		if (!(mask & (1ULL << bit)))
			continue;
		/* the values are packed: a register's place is the number of lower bits set */
		memcpy(&out[i], &regs[__builtin_popcountll(mask & ((1ULL << bit) - 1))],
		       sizeof(u64));
		set |= 1u << i;
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

#ifdef HAVE_LIBDW

/* A process's libdwfl session: its binaries as they were reported, and the sample at hand. */
struct uw_proc {
	struct maps *maps; /* the key: threads of a process share their maps */
	int pid;	   /* whose they were: freed maps may come back for another process */
	Dwfl *dwfl;
	bool attached;
	bool stale; /* a binary reported here is no longer where the maps say: start again */
	struct uw_state *cur; /* the sample being unwound: the callbacks' argument is pr */
	struct uw_proc *hnext;
};

/* An open binary, for reads outside the stack copy. */
struct uw_file {
	struct dso *dso;
	int fd;
};

struct unwinder {
	struct dsos *dsos;
	struct uw_proc **procs;
	u32 mask, nr;
	struct uw_file *files;
	u32 nr_files, cap_files;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

/* What the callbacks need of the sample being unwound. */
struct uw_state {
	struct unwinder *u;
	struct uw_proc *pr;
	struct maps *maps;
	const struct unwind_sample *smp;
	u64 regs[UNWIND_NR_REGS];
	u32 regs_set;
	u64 *ips;
	u32 n, max;
};

struct unwinder *unwinder_new(struct dsos *d)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->dsos = d;
	u->mask = 63;
	u->procs = xcalloc(u->mask + 1, sizeof(*u->procs));
	/* NULL: libdwfl's default search path for debug files (.gnu_debuglink, build-id) */
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.debuginfo_path = &u->debuginfo_path;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (u32 i = 0; i <= u->mask; i++) {
		struct uw_proc *pr, *next;

		for (pr = u->procs[i]; pr; pr = next) {
			next = pr->hnext;
			if (pr->dwfl)
				dwfl_end(pr->dwfl);
			free(pr);
		}
	}
	for (u32 i = 0; i < u->nr_files; i++)
		if (u->files[i].fd >= 0)
			close(u->files[i].fd);
	free(u->files);
	free(u->procs);
	free(u);
}

static u32 proc_slot(const struct unwinder *u, const struct maps *m)
{
	return (u32)hash_mix64((u64)(uintptr_t)m) & u->mask;
}

static void procs_grow(struct unwinder *u)
{
	u32 old = u->mask;
	struct uw_proc **v = u->procs;

	u->mask = 2 * old + 1;
	u->procs = xcalloc(u->mask + 1, sizeof(*u->procs));
	for (u32 i = 0; i <= old; i++) {
		struct uw_proc *pr, *next;

		for (pr = v[i]; pr; pr = next) {
			u32 h = proc_slot(u, pr->maps);

			next = pr->hnext;
			pr->hnext = u->procs[h];
			u->procs[h] = pr;
		}
	}
	free(v);
}

static struct uw_proc *proc_get(struct unwinder *u, struct maps *m)
{
	struct uw_proc *pr;
	u32 h = proc_slot(u, m);

	for (pr = u->procs[h]; pr; pr = pr->hnext)
		if (pr->maps == m)
			return pr;
	if (u->nr > u->mask) {
		procs_grow(u);
		h = proc_slot(u, m);
	}
	pr = xcalloc(1, sizeof(*pr));
	pr->maps = m;
	pr->hnext = u->procs[h];
	u->procs[h] = pr;
	u->nr++;
	return pr;
}

/* The load bias of dso mapped by map: where its ELF addresses are in the process. */
static u64 map_bias(const struct map *map)
{
	const struct dso *dso = map->dso;

	for (u32 i = 0; i < dso->nr_segs; i++) {
		const struct dso_seg *g = &dso->segs[i];

		if (map->pgoff >= g->offset && map->pgoff - g->offset < g->memsz)
			return map->start - (g->vaddr + (map->pgoff - g->offset));
	}
	/* no segments known: the file's addresses are its offsets (perf's start - pgoff) */
	return map->start - map->pgoff;
}

static struct map *user_map(struct uw_state *st, u64 addr)
{
	struct map *map = maps_find(st->maps, addr);

	if (!map || !map->dso || map->identity || map->dso->kind != DSO_USER)
		return NULL;
	dso_load(st->u->dsos, map->dso);
	return map->dso->binpath ? map : NULL;
}

/*
 * Make sure the binary that holds pc is reported, so that libdwfl finds the CFI to unwind the
 * frame at pc. Return: false when it cannot be (no map, no file), or a module reported before
 * stands there for another binary or bias.
 */
static bool report_module(struct uw_state *st, u64 pc)
{
	struct map *map = user_map(st, pc);
	Dwfl_Module *mod;
	void **userdata;
	u64 bias;

	if (!map)
		return false;
	bias = map_bias(map);
	mod = dwfl_addrmodule(st->pr->dwfl, pc);
	if (mod) {
		Dwarf_Addr mbias = 0;

		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (*userdata == map->dso && dwfl_module_getelf(mod, &mbias) && mbias == bias)
			return true;
		st->pr->stale = true;
		return false;
	}
	mod = dwfl_report_elf(st->pr->dwfl, map->dso->short_name, map->dso->binpath, -1, bias,
			      false);
	dwfl_report_end(st->pr->dwfl, NULL, NULL);
	if (!mod)
		return false;
	/* which binary it is, for the check above */
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = map->dso;
	return true;
}

static int file_fd(struct unwinder *u, struct dso *dso)
{
	for (u32 i = 0; i < u->nr_files; i++)
		if (u->files[i].dso == dso)
			return u->files[i].fd;
	if (u->nr_files == u->cap_files) {
		u->cap_files = u->cap_files ? 2 * u->cap_files : 16;
		u->files = xrealloc(u->files, u->cap_files * sizeof(*u->files));
	}
	u->files[u->nr_files].dso = dso;
	u->files[u->nr_files].fd = open(dso->binpath, O_RDONLY | O_CLOEXEC);
	return u->files[u->nr_files++].fd;
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
	struct map *map;
	u64 val;
	int fd;

	(void)dwfl;
	if (unwind_stack_word(smp->stack, smp->stack_size, st->regs[DWARF_SP], addr, &val)) {
		*result = val;
		return true;
	}
	map = user_map(st, addr);
	if (!map || addr + sizeof(val) > map->end)
		return false;
	fd = file_fd(st->u, map->dso);
	if (fd < 0 ||
	    pread(fd, &val, sizeof(val), (off_t)(addr - map->start + map->pgoff)) != 8)
		return false;
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
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, NULL))
		return DWARF_CB_ABORT;
	/* before the step to the caller, which needs this frame's binary */
	report_module(st, pc);
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's pc is a return address: the call is the byte before */
	st->ips[st->n++] = activation ? pc : pc - 1;
	return st->n < st->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * The process's Dwfl, attached with the unwinder's callbacks. Return: NULL when the binary at
 * the sample's address cannot be reported.
 */
static Dwfl *proc_dwfl(struct uw_state *st, u64 ip)
{
	struct uw_proc *pr = st->pr;

	if (pr->stale) {
		if (pr->dwfl)
			dwfl_end(pr->dwfl);
		pr->dwfl = NULL;
		pr->attached = false;
		pr->stale = false;
	}
	if (!pr->dwfl) {
		pr->dwfl = dwfl_begin(&st->u->cb);
		if (!pr->dwfl)
			return NULL;
	}
	if (!report_module(st, ip) && !pr->attached)
		return NULL;
	/* libdwfl takes the architecture from the first binary reported */
	if (!pr->attached) {
		if (!dwfl_attach_state(pr->dwfl, NULL, st->smp->pid, &thread_cbs, pr))
			return NULL;
		pr->attached = true;
	}
	return pr->dwfl;
}

u32 unwind_user(struct unwinder *u, struct maps *m, const struct unwind_sample *smp, u64 *ips,
		u32 max)
{
	struct uw_state st = {
		.u = u, .maps = m, .smp = smp, .ips = ips, .max = max,
	};
	Dwfl *dwfl;

	if (!max || smp->abi != PERF_SAMPLE_REGS_ABI_64 || !smp->regs)
		return 0;
	st.regs_set = unwind_regs_to_dwarf(smp->regs, smp->regs_mask, st.regs);
	if (!(st.regs_set & (1u << DWARF_IP)) || !(st.regs_set & (1u << DWARF_SP)))
		return 0;
	st.pr = proc_get(u, m);
	if (st.pr->pid != smp->pid)
		st.pr->stale = true;
	st.pr->pid = smp->pid;
	st.pr->cur = &st;
	for (int tries = 0; tries < 2; tries++) {
		st.n = 0;
		dwfl = proc_dwfl(&st, st.regs[DWARF_IP]);
		/* an error after some frames ends the chain there, as in perf */
		if (dwfl)
			dwfl_getthread_frames(dwfl, smp->tid, frame_cb, &st);
		/* a binary reported for an earlier layout was in the way: once more, afresh */
		if (!st.pr->stale)
			break;
	}
	st.pr->cur = NULL;
	/* the sample's own address is its first entry even when nothing unwinds */
	if (!st.n)
		ips[st.n++] = st.regs[DWARF_IP];
	return st.n;
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

#endif
