// SPDX-License-Identifier: GPL-2.0
/*
 * The replay of a perf.data file for prec report: threads, maps, the kernel, frames and the
 * ordered-events queue (see session.h).
 *
 * What perf 6.1 does, and so what is done here:
 * - machine__findnew_thread(): a thread is found by tid; a new one is named ":tid" until a COMM
 *   names it, and shares the maps of its leader (pid, pid) unless it is one;
 * - machine__process_fork_event(): a thread that exists with the child's tid is replaced; the
 *   child takes the parent's name if the parent had one, and a copy of its maps when it is a new
 *   process (not for the FORKs perf synthesizes, marked PERF_RECORD_MISC_FORK_EXEC);
 * - EXIT changes nothing that a report shows;
 * - map__new(): anonymous executable memory belongs to /tmp/perf-PID.map, [vdso] to the vdso,
 *   [heap] and [stack] to nothing; a new map cuts away what it overlaps of older ones
 *   (maps__fixup_overlappings());
 * - the kernel map is [_text, _etext) of the running kernel, replaced by the recording's kernel
 *   MMAP when there is one; modules from /proc/modules; KSYMBOL records add maps of their own;
 * - ordered events as described in session.h; records without a timestamp (synthesized ones
 *   have 0) are delivered at once; a file without sample_id_all is delivered in file order.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "overhead/event.h"
#include "report/session.h"
#include "report/unwind.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

#ifndef PERF_RECORD_MISC_FORK_EXEC
#define PERF_RECORD_MISC_FORK_EXEC (1 << 13)
#endif
#ifndef PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER
#define PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER (1 << 0)
#endif

static u32 next_gen = 1;

/* ---------------------------------------------------------------------------------------- */
/* Interned strings */

const struct interned *session_intern(struct session *s, const char *str, size_t len)
{
	u32 h = hash_fnv1a32(str, len);
	struct interned *e;
	char *copy;

	for (e = s->strs[h & s->strs_mask]; e; e = e->hnext)
		if (e->hash == h && e->len == len && !memcmp(e->str, str, len))
			return e;
	e = xmalloc(sizeof(*e) + len + 1);
	copy = (char *)(e + 1);
	memcpy(copy, str, len);
	copy[len] = '\0';
	e->str = copy;
	e->len = (u32)len;
	e->hash = h;
	e->canon = e->renamed = NULL;
	e->id = s->nr_strs;
	if (!(s->nr_strs & (s->nr_strs - 1)) || !s->str_by_id) {
		u32 cap = s->nr_strs ? 2 * s->nr_strs : 16;

		s->str_by_id = xrealloc(s->str_by_id, cap * sizeof(*s->str_by_id));
	}
	s->str_by_id[s->nr_strs++] = e;
	if (s->nr_strs > s->strs_mask) {
		u32 mask = 2 * s->strs_mask + 1;
		struct interned **t = xcalloc(mask + 1, sizeof(*t));

		for (u32 i = 0; i < s->nr_strs - 1; i++) {
			struct interned *x = s->str_by_id[i];

			x->hnext = t[x->hash & mask];
			t[x->hash & mask] = x;
		}
		free(s->strs);
		s->strs = t;
		s->strs_mask = mask;
	}
	e->hnext = s->strs[h & s->strs_mask];
	s->strs[h & s->strs_mask] = e;
	return e;
}

static const char *intern(struct session *s, const char *str)
{
	return session_intern(s, str, strlen(str))->str;
}

const char *session_comm_final(const struct session *s, const char *comm)
{
	const struct interned *e;

	if (!comm || !s->nr_own_comms)
		return comm;
	e = (const struct interned *)(const void *)comm - 1;
	if (e->renamed)
		return e->renamed;
	return e->canon ? e->canon : comm;
}

/* A thread's own ":tid" (session.h, struct interned). */
static void own_comm(struct session *s, struct thread *t)
{
	char name[32];
	struct interned *e;
	int len = snprintf(name, sizeof(name), ":%d", t->tid);

	e = xcalloc(1, sizeof(*e) + (size_t)len + 1);
	memcpy(e + 1, name, (size_t)len + 1);
	e->str = (const char *)(e + 1);
	e->len = (u32)len;
	e->canon = intern(s, name);
	t->own_comm = e;
	t->comm = e->str;
	s->nr_own_comms++;
}

/* ---------------------------------------------------------------------------------------- */
/* Maps */

static struct maps *maps_new(void)
{
	struct maps *m = xcalloc(1, sizeof(*m));

	m->refs = 1;
	m->gen = next_gen++;
	return m;
}

static struct maps *maps_get(struct maps *m)
{
	m->refs++;
	return m;
}

static void maps_put(struct maps *m)
{
	if (m && !--m->refs) {
		free(m->v);
		free(m);
	}
}

static struct maps *maps_clone(const struct maps *from)
{
	struct maps *m = maps_new();

	if (from->nr) {
		m->cap = from->nr;
		m->v = xmalloc(m->cap * sizeof(*m->v));
		memcpy(m->v, from->v, from->nr * sizeof(*m->v));
		m->nr = from->nr;
	}
	return m;
}

static void maps_room(struct maps *m, u32 more)
{
	if (m->nr + more > m->cap) {
		m->cap = (m->nr + more) * 2;
		m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	}
}

/* Insert nm, cutting away what it overlaps of the maps there (maps__fixup_overlappings()). */
static void maps_insert(struct maps *m, const struct map *nm)
{
	u32 i = 0, j, out;
	struct map before, after;
	bool have_before = false, have_after = false;

	if (nm->end <= nm->start)
		return;
	maps_room(m, 3);
	/* first map that ends after nm starts */
	while (i < m->nr && m->v[i].end <= nm->start)
		i++;
	j = i;
	while (j < m->nr && m->v[j].start < nm->end) {
		struct map *o = &m->v[j];

		if (o->start < nm->start) {
			before = *o;
			before.end = nm->start;
			have_before = true;
		}
		if (o->end > nm->end) {
			after = *o;
			if (!after.identity)
				after.pgoff += nm->end - o->start;
			after.start = nm->end;
			have_after = true;
		}
		j++;
	}
	/* replace v[i, j) by [before] nm [after] */
	out = (u32)have_before + 1 + (u32)have_after;
	memmove(&m->v[i + out], &m->v[j], (m->nr - j) * sizeof(*m->v));
	m->nr = m->nr - (j - i) + out;
	if (have_before)
		m->v[i++] = before;
	m->v[i++] = *nm;
	if (have_after)
		m->v[i++] = after;
	m->gen = next_gen++;
	m->last = 0;
}

static void maps_remove_at(struct maps *m, u64 addr)
{
	struct map *x = maps_find(m, addr);
	u32 i;

	if (!x)
		return;
	i = (u32)(x - m->v);
	memmove(&m->v[i], &m->v[i + 1], (m->nr - i - 1) * sizeof(*m->v));
	m->nr--;
	m->gen = next_gen++;
	m->last = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Threads */

static struct thread *thread_find(struct session *s, int tid)
{
	struct thread *t = s->last_thread;

	if (t && t->tid == tid)
		return t;
	for (t = s->threads[(u32)hash_mix64((u64)(u32)tid) & s->threads_mask]; t; t = t->hnext)
		if (t->tid == tid) {
			s->last_thread = t;
			return t;
		}
	return NULL;
}

static void thread_unhash(struct session *s, struct thread *t)
{
	struct thread **pp = &s->threads[(u32)hash_mix64((u64)(u32)t->tid) & s->threads_mask];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == t) {
			*pp = t->hnext;
			break;
		}
	}
	if (s->last_thread == t)
		s->last_thread = NULL;
	s->nr_threads--;
	t->replaced = true;
}

static void thread_hash(struct session *s, struct thread *t)
{
	u32 b;

	if (++s->nr_threads > s->threads_mask) {
		u32 mask = 2 * s->threads_mask + 1;
		struct thread **tab = xcalloc(mask + 1, sizeof(*tab));

		for (u32 i = 0; i <= s->threads_mask; i++) {
			struct thread *x, *next;

			for (x = s->threads[i]; x; x = next) {
				next = x->hnext;
				b = (u32)hash_mix64((u64)(u32)x->tid) & mask;
				x->hnext = tab[b];
				tab[b] = x;
			}
		}
		free(s->threads);
		s->threads = tab;
		s->threads_mask = mask;
	}
	b = (u32)hash_mix64((u64)(u32)t->tid) & s->threads_mask;
	t->hnext = s->threads[b];
	s->threads[b] = t;
}

static struct thread *thread_findnew(struct session *s, int pid, int tid)
{
	struct thread *t = thread_find(s, tid), *leader;

	if (t) {
		if (t->pid == -1 && pid != -1 && pid != tid) {
			/* learnt the process of a thread (machine__update_thread_pid()) */
			leader = thread_findnew(s, pid, pid);
			t->pid = pid;
			maps_put(t->maps);
			t->maps = maps_get(leader->maps);
		} else if (t->pid == -1) {
			t->pid = pid;
		}
		return t;
	}
	t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	own_comm(s, t);
	thread_hash(s, t);
	if (s->last_thread_added)
		s->last_thread_added->next = t;
	else
		s->all_threads = t;
	s->last_thread_added = t;
	if (pid == tid || pid == -1) {
		t->maps = maps_new();
	} else {
		leader = thread_findnew(s, pid, pid);
		t->maps = maps_get(leader->maps);
	}
	s->last_thread = t;
	return t;
}

/* ---------------------------------------------------------------------------------------- */
/* Frames */

#define FCACHE_BITS 16
#define FCACHE_SIZE (1u << FCACHE_BITS)

struct fcache_entry {
	u64 addr;
	u32 tag; /* the address space's gen and the cpumode; 0 is empty */
	u32 frame;
};

static u32 frame_hash(const struct dso *dso, const struct sym *sym, u64 ip, char level)
{
	u64 k = sym ? (u64)(uintptr_t)sym : ip ^ ((u64)(u8)level << 56);

	return (u32)hash_mix64(k ^ (u64)(uintptr_t)dso * 31);
}

static void frame_table_grow(struct session *s)
{
	u32 mask = 2 * s->frame_mask + 1;
	struct frame_bucket *t = xcalloc(mask + 1, sizeof(*t));

	for (u32 k = 0; k <= s->frame_mask; k++) {
		u32 i;

		if (!s->frame_table[k].id)
			continue;
		for (i = s->frame_table[k].hash & mask; t[i].id; i = (i + 1) & mask)
			;
		t[i] = s->frame_table[k];
	}
	free(s->frame_table);
	s->frame_table = t;
	s->frame_mask = mask;
}

static u32 frame_get(struct session *s, struct dso *dso, const struct sym *sym, u64 ip, u64 rel,
		     char level)
{
	u32 h = frame_hash(dso, sym, ip, level), i, id;
	struct frame *f;

	/* a symbol knows its frame: the common case needs no table */
	if (sym && sym->frame)
		return sym->frame;
	for (i = h & s->frame_mask; (id = s->frame_table[i].id); i = (i + 1) & s->frame_mask) {
		if (s->frame_table[i].hash != h)
			continue;
		f = &s->frames[id];
		if (f->dso != dso || f->sym != sym)
			continue;
		if (sym || (f->ip == ip && f->level == level))
			return id;
	}
	if (s->nr_frames == s->cap_frames) {
		if (s->cap_frames >= FRAME_UNRESOLVED / 2)
			die("more distinct functions and addresses than prec report can hold");
		s->cap_frames *= 2;
		s->frames = xrealloc(s->frames, s->cap_frames * sizeof(*s->frames));
	}
	id = s->nr_frames++;
	f = &s->frames[id];
	f->dso = dso;
	f->sym = sym;
	f->ip = ip;
	f->rel = rel;
	f->level = level;
	if (sym)
		((struct sym *)sym)->frame = id;
	s->frame_table[i].hash = h;
	s->frame_table[i].id = id;
	if (s->nr_frames * 2 > s->frame_mask)
		frame_table_grow(s);
	return id;
}

u32 session_frame_of_sym(struct session *s, struct dso *dso, const struct sym *sym, u64 ip,
			 u64 rel)
{
	return frame_get(s, dso, sym, ip, rel, '.');
}

static void kernel_ensure(struct session *s)
{
	u64 start = 0, end = 0;

	if (s->kernel_loaded)
		return;
	s->kernel_loaded = true;
	if (!s->kernel_map_set && !kernel_running_range(&start, &end)) {
		/* no kernel MMAP in the file: the running kernel's text, as perf sets it up */
		struct map m = {start, end ? end : ~0ULL, 0, s->kernel, true};

		/* without _etext the map ends where the first module starts */
		for (u32 i = 0; !end && i < s->kmaps->nr; i++)
			if (s->kmaps->v[i].start > start && s->kmaps->v[i].start < m.end)
				m.end = s->kmaps->v[i].start;
		maps_insert(s->kmaps, &m);
	}
	kernel_load(&s->dsos, s->kernel, s->kernel_reloc);
	/*
	 * perf's map__fixup_start() and map__fixup_end(): once kallsyms is loaded the kernel map
	 * spans its symbols, from the first to the end of the last (init text and data included).
	 */
	if (s->kernel->nr_syms) {
		for (u32 i = 0; i < s->kmaps->nr; i++) {
			struct map m = s->kmaps->v[i];

			if (m.dso != s->kernel)
				continue;
			memmove(&s->kmaps->v[i], &s->kmaps->v[i + 1],
				(s->kmaps->nr - i - 1) * sizeof(struct map));
			s->kmaps->nr--;
			m.start = s->kernel->syms[0].start;
			m.end = s->kernel->syms[s->kernel->nr_syms - 1].end;
			maps_insert(s->kmaps, &m);
			break;
		}
	}
}

/* The frame of ip, with FRAME_UNRESOLVED when no symbol holds it. */
static u32 resolve_slow(struct session *s, struct thread *t, u16 cpumode, u64 ip)
{
	struct maps *maps;
	struct map *m;
	const struct sym *sym = NULL;
	char level;
	u64 rel = ip;

	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		kernel_ensure(s);
		maps = s->kmaps;
		level = 'k';
		break;
	case PERF_RECORD_MISC_USER:
		maps = t->maps;
		level = '.';
		break;
	default:
		return frame_get(s, NULL, NULL, ip, ip, 'H') | FRAME_UNRESOLVED;
	}
	m = maps_find(maps, ip);
	if (!m)
		return frame_get(s, NULL, NULL, ip, ip, level) | FRAME_UNRESOLVED;
	if (!m->identity)
		rel = ip - m->start + m->pgoff;
	/* symbols of files sit at file offsets: what the map gives (see symbols.h) */
	sym = dso_find_sym(&s->dsos, m->dso, rel);
	return frame_get(s, m->dso, sym, ip, rel, level) | (sym ? 0 : FRAME_UNRESOLVED);
}

u32 session_resolve_flagged(struct session *s, struct thread *t, u16 cpumode, u64 ip)
{
	const struct maps *maps = cpumode == PERF_RECORD_MISC_KERNEL ? s->kmaps : t->maps;
	u32 tag = maps->gen << 3 | (cpumode & 7), frame;
	struct fcache_entry *e = &s->fcache[(u32)hash_mix64(ip ^ (u64)tag << 40) & (FCACHE_SIZE - 1)];

	if (e->tag == tag && e->addr == ip)
		return e->frame;
	s->fcache_misses++;
	frame = resolve_slow(s, t, cpumode, ip);
	/* loading the kernel may have changed the kernel maps: key on their gen now */
	tag = maps->gen << 3 | (cpumode & 7);
	e = &s->fcache[(u32)hash_mix64(ip ^ (u64)tag << 40) & (FCACHE_SIZE - 1)];
	e->frame = frame;
	e->tag = tag;
	e->addr = ip;
	return frame;
}

/* ---------------------------------------------------------------------------------------- */
/* Side-band records */

static const char *record_string(const struct pd_record_header *h, size_t off)
{
	const char *p = (const char *)h + off;

	if (off >= h->size || !memchr(p, '\0', h->size - off))
		return NULL;
	return p;
}

static bool is_anon(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

static void kernel_mmap(struct session *s, const char *name, u64 start, u64 len, u64 pgoff)
{
	struct map m = {start, start + len, 0, NULL, true};
	char modname[80];
	const char *base, *dot;

	if (!strncmp(name, "[kernel.kallsyms]", 17)) {
		if (!start && !len)
			m.end = ~0ULL;
		m.dso = s->kernel;
		/* the kernel map moves: drop the old one first */
		for (u32 i = 0; i < s->kmaps->nr; i++) {
			if (s->kmaps->v[i].dso == s->kernel) {
				memmove(&s->kmaps->v[i], &s->kmaps->v[i + 1],
					(s->kmaps->nr - i - 1) * sizeof(struct map));
				s->kmaps->nr--;
				break;
			}
		}
		maps_insert(s->kmaps, &m);
		s->kernel_map_set = true;
		if (pgoff)
			s->kernel_reloc = pgoff;
		return;
	}
	if (!strncmp(name, "[guest.kernel", 13))
		return;
	/* a module: "[name]" or a path to name.ko */
	if (name[0] == '[') {
		snprintf(modname, sizeof(modname), "%s", name);
	} else {
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		dot = strchr(base, '.');
		snprintf(modname, sizeof(modname), "[%.*s]", (int)(dot ? dot - base : 60), base);
		for (char *c = modname; *c; c++)
			if (*c == '-')
				*c = '_';
	}
	m.dso = dsos_findnew(&s->dsos, modname, DSO_MODULE);
	maps_insert(s->kmaps, &m);
}

static void user_mmap(struct session *s, int pid, int tid, const char *name, u64 start, u64 len,
		      u64 pgoff, u32 flags)
{
	struct thread *t = thread_findnew(s, pid, tid);
	struct map m = {start, start + len, pgoff, NULL, false};
	char path[64];

	if (is_anon(name) || (flags & MAP_HUGETLB)) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", t->pid);
		m.dso = dsos_findnew(&s->dsos, path, DSO_PERFMAP);
		m.dso->pid = t->pid;
		m.identity = true;
	} else if (!strcmp(name, "[vdso]")) {
		m.dso = dsos_findnew(&s->dsos, name, DSO_VDSO);
		m.pgoff = 0;
	} else if (!strncmp(name, "[stack", 6) || !strncmp(name, "/SYSV", 5) ||
		   !strcmp(name, "[heap]")) {
		m.dso = dsos_findnew(&s->dsos, name, DSO_NOSYMS);
		m.identity = true;
	} else {
		m.dso = dsos_findnew(&s->dsos, name, DSO_USER);
	}
	maps_insert(t->maps, &m);
}

static void process_mmap(struct session *s, const struct pd_record_header *h)
{
	struct pd_mmap_body b;
	const char *name = record_string(h, sizeof(*h) + sizeof(b));

	if (!name)
		return;
	memcpy(&b, h + 1, sizeof(b));
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		kernel_mmap(s, name, b.start, b.len, b.pgoff);
	else if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
		user_mmap(s, (int)b.pid, (int)b.tid, name, b.start, b.len, b.pgoff, 0);
}

static void process_mmap2(struct session *s, const struct pd_record_header *h)
{
	struct pd_mmap2_body b;
	const char *name = record_string(h, sizeof(*h) + sizeof(b));

	if (!name)
		return;
	memcpy(&b, h + 1, sizeof(b));
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		kernel_mmap(s, name, b.start, b.len, b.pgoff);
	else if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
		user_mmap(s, (int)b.pid, (int)b.tid, name, b.start, b.len, b.pgoff, b.flags);
}

static void process_comm(struct session *s, const struct pd_record_header *h)
{
	struct pd_comm_body b;
	const char *name = record_string(h, sizeof(*h) + sizeof(b));
	struct thread *t;

	if (!name)
		return;
	memcpy(&b, h + 1, sizeof(b));
	t = thread_findnew(s, (int)b.pid, (int)b.tid);
	name = intern(s, name);
	/* its own ":tid" becomes this name, also for the samples before (session.h) */
	if (!t->comm_set && t->own_comm && t->comm == t->own_comm->str)
		t->own_comm->renamed = name;
	t->comm = name;
	t->comm_set = true;
}

static void process_fork(struct session *s, const struct pd_record_header *h)
{
	struct pd_fork_body b;
	struct thread *t, *parent;

	if (h->size < sizeof(*h) + sizeof(b))
		return;
	memcpy(&b, h + 1, sizeof(b));
	t = thread_find(s, (int)b.tid);
	parent = thread_findnew(s, (int)b.ppid, (int)b.ptid);
	if (parent->pid != (int)b.ppid) {
		/* a stale thread with the parent's tid: forget it */
		thread_unhash(s, parent);
		parent = thread_findnew(s, (int)b.ppid, (int)b.ptid);
	}
	if (t && t != parent)
		thread_unhash(s, t);
	else if (t == parent)
		return;
	t = thread_findnew(s, (int)b.pid, (int)b.tid);
	t->ppid = parent->tid;
	if (parent->comm_set) {
		t->comm = parent->comm;
		t->comm_set = true;
	}
	if (t->pid == parent->pid || t->maps == parent->maps)
		return;
	if (!(h->misc & PERF_RECORD_MISC_FORK_EXEC)) {
		maps_put(t->maps);
		t->maps = maps_clone(parent->maps);
	}
}

/* A process's end: the unwinder lets go of what it holds for it. */
static void process_exit(struct session *s, const struct pd_record_header *h)
{
	struct pd_fork_body b;
	struct thread *t;

	if (!s->unwinder || h->size < sizeof(*h) + sizeof(b))
		return;
	memcpy(&b, h + 1, sizeof(b));
	/* a thread's end is not its process's, whose other threads go on */
	if (b.pid != b.tid)
		return;
	t = thread_find(s, (int)b.tid);
	if (t && t->pid == (int)b.pid)
		unwinder_forget(s->unwinder, t->maps);
}

static void process_ksymbol(struct session *s, const struct pd_record_header *h)
{
	struct {
		u64 addr;
		u32 len;
		u16 type, flags;
	} b;
	const char *name = record_string(h, sizeof(*h) + sizeof(b));
	struct map m, *old;

	if (!name)
		return;
	memcpy(&b, h + 1, sizeof(b));
	if (b.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		maps_remove_at(s->kmaps, b.addr);
		return;
	}
	old = maps_find(s->kmaps, b.addr);
	if (old && old->dso->kind == DSO_KSYMBOL) {
		dso_add_sym(old->dso, b.addr - old->start, b.addr - old->start + b.len, name,
			    strlen(name), STB_GLOBAL);
		dso_sort_syms(old->dso, false);
		return;
	}
	if (old)
		return; /* inside the kernel or a module: perf adds it there, kallsyms has it */
	m.start = b.addr;
	m.end = b.addr + b.len;
	m.pgoff = 0;
	m.identity = false;
	m.dso = dsos_findnew(&s->dsos, name, DSO_KSYMBOL);
	if (!m.dso->nr_syms) {
		dso_add_sym(m.dso, 0, b.len, name, strlen(name), STB_GLOBAL);
		dso_sort_syms(m.dso, false);
	}
	maps_insert(s->kmaps, &m);
}

/* ---------------------------------------------------------------------------------------- */
/* The ordered-events queue */

#define QCHUNK_SIZE (1u << 20)

struct qchunk {
	struct qchunk *next;
	u32 pending; /* events in it not delivered yet */
	u32 used;
	u64 data[];
};

struct qhdr {
	struct qchunk *chunk;
	struct pd_hold *hold; /* the reader's buffer its user stack is in, or NULL (copied) */
	u32 type;	      /* PERF_RECORD_SAMPLE: a struct psample follows; else the record */
	u32 size;
};

struct qent {
	u64 time;
	struct qhdr *ev;
};

struct queue {
	struct pd_reader *r;
	struct qchunk *cur, *free_chunks;
	struct qent *v, *tmp;
	u32 n, cap, nsorted;
	u64 max_time, next_flush, last_flush;
	u64 nr_unordered;
};

static void *queue_alloc(struct queue *q, size_t size)
{
	struct qchunk *c = q->cur;
	struct qhdr *h;

	size = (size + 7) & ~(size_t)7;
	if (!c || c->used + size > QCHUNK_SIZE) {
		if (c && !c->pending) {
			c->next = q->free_chunks;
			q->free_chunks = c;
		}
		if (q->free_chunks) {
			c = q->free_chunks;
			q->free_chunks = c->next;
		} else {
			c = xmalloc(sizeof(*c) + QCHUNK_SIZE);
		}
		c->pending = 0;
		c->used = 0;
		c->next = NULL;
		q->cur = c;
	}
	h = (struct qhdr *)((u8 *)c->data + c->used);
	c->used += (u32)size;
	c->pending++;
	h->chunk = c;
	h->hold = NULL;
	return h;
}

/*
 * The chunks the queue ever needed at once stay for reuse, never returned to malloc: a fresh
 * chunk costs a page fault per page as it fills.
 */
static void queue_release(struct queue *q, struct qhdr *h)
{
	struct qchunk *c = h->chunk;

	if (h->hold)
		pd_reader_release(q->r, h->hold);
	if (--c->pending || c == q->cur)
		return;
	c->next = q->free_chunks;
	q->free_chunks = c;
}

static void queue_push(struct queue *q, u64 time, struct qhdr *ev)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 4096;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
		q->tmp = xrealloc(q->tmp, q->cap * sizeof(*q->tmp));
	}
	q->v[q->n].time = time;
	q->v[q->n].ev = ev;
	q->n++;
	if (time > q->max_time)
		q->max_time = time;
	if (time < q->last_flush)
		q->nr_unordered++;
}

/* A stable merge sort by time of v[0, n), tmp as scratch. */
static void sort_qents(struct qent *v, struct qent *tmp, u32 n)
{
	u32 mid, i, j, k;

	if (n < 16) {
		/* insertion sort: stable, and the common case is nearly sorted */
		for (i = 1; i < n; i++) {
			struct qent x = v[i];

			for (j = i; j > 0 && v[j - 1].time > x.time; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	mid = n / 2;
	sort_qents(v, tmp, mid);
	sort_qents(v + mid, tmp, n - mid);
	if (v[mid - 1].time <= v[mid].time)
		return;
	memcpy(tmp, v, mid * sizeof(*v));
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		v[k++] = v[j].time < tmp[i].time ? v[j++] : tmp[i++];
	while (i < mid)
		v[k++] = tmp[i++];
}

static void emit(struct session *s, struct qhdr *ev);
static bool ahead_take(struct session *s, struct qhdr *ev);

static void queue_flush(struct session *s, u64 limit)
{
	struct queue *q = s->q;
	u32 i, j, k, n = q->n, ns = q->nsorted;

	if (!n)
		return;
	/* v[0, ns) is sorted from the last flush; sort the new part and merge */
	sort_qents(q->v + ns, q->tmp, n - ns);
	if (ns && n > ns && q->v[ns - 1].time > q->v[ns].time) {
		memcpy(q->tmp, q->v, ns * sizeof(*q->v));
		for (i = 0, j = ns, k = 0; i < ns && j < n;)
			q->v[k++] = q->v[j].time < q->tmp[i].time ? q->v[j++] : q->tmp[i++];
		while (i < ns)
			q->v[k++] = q->tmp[i++];
	}
	/* samples with stacks to unwind wait aside, to be unwound many at once (ahead_take()) */
	for (i = 0; i < n && q->v[i].time <= limit; i++)
		if (q->v[i].ev->type != PERF_RECORD_SAMPLE || !ahead_take(s, q->v[i].ev))
			emit(s, q->v[i].ev);
	if (i) {
		q->last_flush = q->v[i - 1].time;
		memmove(q->v, q->v + i, (n - i) * sizeof(*q->v));
	}
	q->n = n - i;
	q->nsorted = q->n;
}

static void queue_free(struct queue *q)
{
	struct qchunk *c, *next;

	for (c = q->free_chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	if (q->cur)
		free(q->cur);
	free(q->v);
	free(q->tmp);
	free(q);
}

/* ---------------------------------------------------------------------------------------- */
/* Delivery */

/*
 * The most user frames unwound for a sample: perf's PERF_MAX_STACK_DEPTH, or what --max-stack
 * asks, as perf unwinds, up to what the largest stack copy (64 KiB) can hold.
 */
#define UNWIND_MAX 127
#define UNWIND_MAX_ASKED 8192

/*
 * The most samples unwound together. Samples wait aside until there are that many, and are
 * unwound on the unwinder's threads while the file is read on; the next ones wait meanwhile.
 */
#define UNWIND_AHEAD 128

/* Samples out of the queue in their order, those with stacks to unwind as jobs. */
struct ahead_buf {
	struct qhdr *ev[UNWIND_AHEAD];
	struct unwind_job jobs[UNWIND_AHEAD];
	const struct psample *p[UNWIND_AHEAD]; /* whose each job is */
	u64 *frames; /* UNWIND_AHEAD times unwind_max() */
	u32 nr_ev, nr_jobs, at; /* at: the next job to be delivered */
};

struct unwind_ahead {
	struct ahead_buf buf[2];
	struct ahead_buf *fill;	  /* waiting for their turn to be unwound */
	struct ahead_buf *flight; /* being unwound on the unwinder's threads, or NULL */
	struct ahead_buf *out;	  /* being delivered: deliver_sample() takes its frames */
};

/* Forget the samples of b, and let go of the maps its jobs held (ahead_take()). */
static void ahead_clear(struct ahead_buf *b)
{
	for (u32 i = 0; i < b->nr_jobs; i++)
		maps_put(b->jobs[i].maps);
	b->nr_ev = b->nr_jobs = 0;
}

/* Deliver the samples of b, whose stacks are unwound, in their order. */
static void ahead_emit(struct session *s, struct ahead_buf *b)
{
	struct unwind_ahead *a = s->ahead;

	a->out = b;
	b->at = 0;
	for (u32 i = 0; i < b->nr_ev; i++)
		emit(s, b->ev[i]);
	a->out = NULL;
	ahead_clear(b);
}

/*
 * Deliver every sample waiting aside, before another record (or at the end): those being
 * unwound when they are, then the others, unwound now.
 */
static void ahead_deliver(struct session *s)
{
	struct unwind_ahead *a = s->ahead;
	struct ahead_buf *b;

	if (!a || a->out)
		return;
	if (a->flight) {
		b = a->flight;
		unwind_batch_wait(s->unwinder);
		a->flight = NULL;
		ahead_emit(s, b);
	}
	b = a->fill;
	if (b->nr_ev) {
		unwind_batch(s->unwinder, b->jobs, b->nr_jobs);
		ahead_emit(s, b);
	}
}

/* The session's unwinder, made for the first sample with a user stack. */
static struct unwinder *session_unwinder(struct session *s)
{
	if (!s->unwind_tried) {
		s->unwind_tried = true;
		s->unwinder = unwinder_new(&s->dsos);
		if (!s->unwinder)
			warning("%s: the user stacks of its samples (--call-graph dwarf) need prec "
				"built with libdw (elfutils 0.188 or later) to unwind: their call "
				"chains show the kernel part only",
				s->rep->path);
	}
	return s->unwinder;
}

static u32 unwind_max(const struct session *s)
{
	if (s->max_stack <= 0)
		return UNWIND_MAX;
	return s->max_stack < UNWIND_MAX_ASKED ? (u32)s->max_stack : UNWIND_MAX_ASKED;
}

static void unwind_job_of(struct unwind_job *job, struct thread *t, const struct psample *p)
{
	job->maps = t->maps;
	job->smp = (struct unwind_sample){
		.pid = p->pid, .tid = p->tid, .abi = p->uregs_abi, .regs_mask = p->uregs_mask,
		.regs = p->uregs, .stack = p->ustack, .stack_size = p->ustack_size,
	};
}

/*
 * Take the sample of ev out of the queue to wait aside, when it has a stack to unwind or others
 * wait already: return false to have it delivered now. A sample unwinds against its process's
 * maps as of its time, which only the records between samples change, and any of those
 * delivers the samples waiting first (emit()): so their threads are found (made) here, in the
 * order delivery would make them, and their stacks can be unwound at any time until then.
 */
static bool ahead_take(struct session *s, struct qhdr *ev)
{
	const struct psample *p = (const struct psample *)(ev + 1);
	struct unwind_ahead *a = s->ahead;
	struct ahead_buf *b;
	struct thread *t;
	bool job = p->uregs && session_unwinder(s);

	if (!job && (!a || (!a->fill->nr_ev && !a->flight)))
		return false;
	if (!a) {
		a = s->ahead = xcalloc(1, sizeof(*a));
		a->fill = &a->buf[0];
		for (u32 i = 0; i < 2; i++)
			a->buf[i].frames = xcalloc((size_t)UNWIND_AHEAD * unwind_max(s), sizeof(u64));
	}
	b = a->fill;
	t = thread_findnew(s, p->pid, p->tid);
	b->ev[b->nr_ev++] = ev;
	if (job) {
		unwind_job_of(&b->jobs[b->nr_jobs], t, p);
		/* a thread that learns its process takes its leader's maps: these stay */
		maps_get(t->maps);
		b->jobs[b->nr_jobs].ips = b->frames + (size_t)b->nr_jobs * unwind_max(s);
		b->jobs[b->nr_jobs].max = unwind_max(s);
		b->p[b->nr_jobs++] = p;
	}
	if (b->nr_ev < UNWIND_AHEAD)
		return true;
	/* full: the ones unwound meanwhile go out, and these are unwound while more are read */
	if (a->flight) {
		struct ahead_buf *done = a->flight;

		unwind_batch_wait(s->unwinder);
		a->flight = NULL;
		ahead_emit(s, done);
	}
	a->flight = b;
	a->fill = b == &a->buf[0] ? &a->buf[1] : &a->buf[0];
	unwind_batch_start(s->unwinder, b->jobs, b->nr_jobs);
	return true;
}

/*
 * A dwarf sample's chain as perf builds it: the kernel's callchain (with exclude_callchain_user
 * the kernel frames only), then the user frames unwound from the sample's registers and stack.
 */
static void unwind_chain(struct session *s, struct thread *t, struct psample *p)
{
	struct ahead_buf *b = s->ahead ? s->ahead->out : NULL;
	struct unwind_job job;
	const char *path;
	u32 n;
	int err;

	if (!session_unwinder(s))
		return;
	if (s->uchain_cap < p->nr_chain + 1 + unwind_max(s)) {
		s->uchain_cap = p->nr_chain + 1 + unwind_max(s);
		s->uchain = xrealloc(s->uchain, s->uchain_cap * sizeof(u64));
	}
	if (p->nr_chain)
		memcpy(s->uchain, p->chain, (size_t)p->nr_chain * sizeof(u64));
	if (b && b->at < b->nr_jobs && b->p[b->at] == p) {
		n = b->jobs[b->at].n;
		memcpy(s->uchain + p->nr_chain + 1, b->jobs[b->at++].ips, (size_t)n * sizeof(u64));
	} else {
		unwind_job_of(&job, t, p);
		n = unwind_user(s->unwinder, job.maps, &job.smp, s->uchain + p->nr_chain + 1,
				unwind_max(s));
	}
	err = unwinder_open_error(s->unwinder, &path);
	if (err)
		warning("%s: cannot open %s to unwind user stacks: %s: call chains end early",
			s->rep->path, path, strerror(-err));
	if (!n)
		return;
	s->uchain[p->nr_chain] = PERF_CONTEXT_USER;
	p->chain = s->uchain;
	p->unwound_at = p->nr_chain;
	p->unwound = true;
	p->nr_chain += 1 + n;
}

static void deliver_sample(struct session *s, struct psample *p)
{
	struct thread *t = thread_findnew(s, p->pid, p->tid);

	if (p->uregs)
		unwind_chain(s, t, p);
	s->sample(s, t, p, s->sample_arg);
}

static void deliver_record(struct session *s, const struct pd_record_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP:
		process_mmap(s, h);
		break;
	case PERF_RECORD_MMAP2:
		process_mmap2(s, h);
		break;
	case PERF_RECORD_COMM:
		process_comm(s, h);
		break;
	case PERF_RECORD_FORK:
		process_fork(s, h);
		break;
	case PERF_RECORD_EXIT:
		process_exit(s, h);
		break;
	case PERF_RECORD_KSYMBOL:
		process_ksymbol(s, h);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (s->throttle_fn)
			s->throttle_fn(s, h, s->sample_arg);
		break;
	}
}

static void deliver(struct session *s, struct qhdr *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		deliver_sample(s, (struct psample *)(ev + 1));
	else
		deliver_record(s, (const struct pd_record_header *)(ev + 1));
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

static void fill_psample(struct session *s, const struct pd_sample *smp, int idx, struct psample *p)
{
	const struct perf_event_attr *a = pd_reader_attr(s->r, (u32)idx);

	p->time = smp->sample_type & PERF_SAMPLE_TIME ? smp->time : 0;
	p->ip = smp->ip;
	p->pid = (int)smp->pid;
	p->tid = (int)smp->tid;
	p->cpu = smp->sample_type & PERF_SAMPLE_CPU ? (int)smp->cpu : -1;
	/* without PERF_SAMPLE_PERIOD perf takes the attr's sample_period (or sample_freq) */
	p->period =
	    smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : (a ? a->sample_period : 1);
	p->attr = idx;
	p->count = (u32)idx < s->nr_aggregated && s->aggregated[idx]
			   ? smp->weight
			   : 1;
	p->cpumode = smp->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	p->nr_chain = 0;
	p->chain = NULL;
	p->uregs = NULL;
	p->ustack = NULL;
	p->ustack_size = 0;
	p->unwound = false;
}

/* Whether the session keeps the sample's user registers and stack: to unwind them. */
static bool has_user_stack(const struct session *s, const struct pd_sample *smp)
{
	return s->want_user_stacks && smp->sample_type & PERF_SAMPLE_REGS_USER &&
	       smp->sample_type & PERF_SAMPLE_STACK_USER && smp->user_regs.abi &&
	       smp->user_stack_dyn_size && smp->user_stack_dyn_size <= smp->user_stack_size;
}

/*
 * A sample waits in the queue as its decoded fields, with copies of its call chain and of the
 * user registers: the record itself is valid only until the reader's next one. The used part of
 * the user stack it will be unwound from, most of the record, stays where the reader read it
 * while the sample waits (pd_reader_hold()); it is copied too when the reader cannot keep it, or
 * the sample is delivered at once.
 */
static int read_sample(struct session *s, const struct pd_record_header *h, bool ordered)
{
	struct pd_sample smp;
	struct psample *p;
	struct pd_hold *hold = NULL;
	struct qhdr *ev;
	int idx = 0, ret;
	u32 nr, nr_read = 0;
	size_t chain_bytes, read_bytes = 0, regs_bytes = 0, stack_bytes = 0;
	bool ustack, now;

	ret = pd_reader_parse_sample(s->r, h, &smp, &idx);
	if (ret == -ENOENT) {
		s->unknown_id++; /* perf skips these too (nr_unknown_id) */
		return 0;
	}
	if (ret)
		return report_read_error(s->rep);
	/*
	 * prec:overhead's samples are what profiling cost, not places in a program: no view of
	 * the session counts them (--overhead, -D and --stats read them without one).
	 */
	if (attr_is_overhead_event(pd_reader_attr(s->r, (u32)idx))) {
		s->nr_overhead++;
		return 0;
	}
	now = !ordered || !(smp.sample_type & PERF_SAMPLE_TIME) || !smp.time;
	nr = smp.sample_type & PERF_SAMPLE_CALLCHAIN ? (u32)smp.callchain_nr : 0;
	chain_bytes = (size_t)nr * 8;
	ustack = has_user_stack(s, &smp);
	if (ustack) {
		regs_bytes = (size_t)__builtin_popcountll(smp.user_regs.mask) * 8;
		/* delivered at once, the record outlives the sample: nothing to keep */
		if (!now)
			hold = pd_reader_hold(s->r, smp.user_stack, smp.user_stack_dyn_size);
		if (!hold && !now)
			stack_bytes = (smp.user_stack_dyn_size + 7) & ~(size_t)7;
	}
	/* the read values are decoded into the reader's scratch space: they are copied */
	if (s->want_read) {
		nr_read = smp.sample_type & PERF_SAMPLE_READ ? (u32)smp.read.nr : 0;
		read_bytes = sizeof(struct psample_read) + (size_t)nr_read * sizeof(*smp.read.values);
	}
	ev = queue_alloc(s->q, sizeof(*ev) + sizeof(*p) + read_bytes + chain_bytes + regs_bytes +
				  stack_bytes);
	ev->type = PERF_RECORD_SAMPLE;
	ev->hold = hold;
	p = (struct psample *)(ev + 1);
	fill_psample(s, &smp, idx, p);
	s->nr_samples += p->count;
	p->chain_recorded = !!(smp.sample_type & PERF_SAMPLE_CALLCHAIN);
	if (nr) {
		u64 *chain = (u64 *)((u8 *)(p + 1) + read_bytes);

		memcpy(chain, smp.callchain, chain_bytes);
		p->nr_chain = nr;
		p->chain = chain;
	}
	if (ustack) {
		u8 *copy = (u8 *)(p + 1) + read_bytes + chain_bytes;

		memcpy(copy, smp.user_regs.regs, regs_bytes);
		if (stack_bytes)
			memcpy(copy + regs_bytes, smp.user_stack, smp.user_stack_dyn_size);
		p->uregs_abi = smp.user_regs.abi;
		p->uregs_mask = smp.user_regs.mask;
		p->uregs = (const u64 *)copy;
		p->ustack = stack_bytes ? copy + regs_bytes : smp.user_stack;
		p->ustack_size = smp.user_stack_dyn_size;
	}
	if (s->want_read) {
		struct psample_read *rd = (struct psample_read *)(p + 1);

		rd->id = smp.id;
		rd->nr = nr_read;
		if (nr_read)
			memcpy(rd->values, smp.read.values, (size_t)nr_read * sizeof(*rd->values));
	}
	/* without a time (or ordering), delivered at once, before what waits in the queue */
	if (now)
		emit(s, ev);
	else
		queue_push(s->q, p->time, ev);
	return 0;
}

static int read_sideband(struct session *s, const struct pd_record_header *h, bool ordered)
{
	struct pd_sample smp;
	struct qhdr *ev;
	int ret;

	if (ordered) {
		ret = pd_reader_parse_sample(s->r, h, &smp, NULL);
		if (ret && ret != -ENOENT)
			return report_read_error(s->rep);
		if (ret)
			ordered = false; /* an id of no event: no time to order it by */
	}
	ev = queue_alloc(s->q, sizeof(*ev) + h->size);
	ev->type = h->type;
	ev->size = h->size;
	memcpy(ev + 1, h, h->size);
	if (!ordered || !(smp.sample_type & PERF_SAMPLE_TIME) || !smp.time)
		emit(s, ev);
	else
		queue_push(s->q, smp.time, ev);
	return 0;
}

/* A record's turn has come: deliver it and free its place in the queue. */
static void emit(struct session *s, struct qhdr *ev)
{
	ahead_deliver(s);
	deliver(s, ev);
	queue_release(s->q, ev);
}

static int process_records(struct session *s)
{
	struct pd_event ev;
	bool ordered = true;
	int ret;

	/* perf falls back to unordered processing without sample_id_all */
	if (!pd_reader_is_pipe(s->r) && pd_reader_nr_attrs(s->r) &&
	    !pd_reader_attr(s->r, 0)->sample_id_all)
		ordered = false;
	while ((ret = report_next(s->rep, &ev)) > 0) {
		const struct pd_record_header *h = ev.header;

		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			if (read_sample(s, h, ordered))
				return -1;
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_KSYMBOL:
			if (read_sideband(s, h, ordered))
				return -1;
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			if (s->throttle_fn && read_sideband(s, h, ordered))
				return -1;
			break;
		case PERF_RECORD_LOST_SAMPLES:
			if (h->size >= sizeof(*h) + 8) {
				u64 lost;

				memcpy(&lost, h + 1, 8);
				s->lost_samples += lost;
			}
			break;
		case PERF_RECORD_LOST:
			if (h->size >= sizeof(*h) + 16) {
				u64 lost;

				memcpy(&lost, (const u8 *)(h + 1) + 8, 8);
				s->lost_events += lost;
			}
			break;
		case PD_RECORD_FINISHED_ROUND:
			if (ordered) {
				queue_flush(s, s->q->next_flush);
				s->q->next_flush = s->q->max_time;
			}
			break;
		}
	}
	if (ret < 0)
		return -1;
	queue_flush(s, ~0ULL);
	ahead_deliver(s);
	s->nr_unordered = s->q->nr_unordered;
	return 0;
}

int session_process(struct session *s)
{
	struct unwind_ahead *a;

	if (!process_records(s))
		return 0;
	/*
	 * A read error ends the report: the samples being unwound are not delivered, but the
	 * unwinder's threads must be done with them (and with the binaries and the maps they read)
	 * before the view and the session free what they use.
	 */
	a = s->ahead;
	if (a && a->flight) {
		unwind_batch_wait(s->unwinder);
		a->flight = NULL;
	}
	if (a)
		for (u32 i = 0; i < 2; i++)
			ahead_clear(&a->buf[i]);
	return -1;
}

/* ---------------------------------------------------------------------------------------- */

void session_init(struct session *s, struct report *rep, sample_fn fn, void *arg)
{
	const void *bids;
	size_t len = 0;
	struct kmodule *mods;
	u32 nr;
	struct thread *idle;

	memset(s, 0, sizeof(*s));
	s->rep = rep;
	s->r = rep->r;
	s->sample = fn;
	s->sample_arg = arg;
	s->aggregated = report_aggregated_events(s->r);
	s->nr_aggregated = s->aggregated ? pd_reader_nr_attrs(s->r) : 0;
	bids = pd_reader_feature(s->r, PD_FEAT_BUILD_ID, &len);
	dsos_init(&s->dsos, bids, len);
	dsos_prefetch(&s->dsos);
	s->threads_mask = 1023;
	s->threads = xcalloc(s->threads_mask + 1, sizeof(*s->threads));
	s->strs_mask = 1023;
	s->strs = xcalloc(s->strs_mask + 1, sizeof(*s->strs));
	s->cap_frames = 4096;
	s->frames = xcalloc(s->cap_frames, sizeof(*s->frames));
	s->nr_frames = 1; /* 0 is no frame */
	s->frame_mask = 8191;
	s->frame_table = xcalloc(s->frame_mask + 1, sizeof(*s->frame_table));
	s->fcache = xcalloc(FCACHE_SIZE, sizeof(*s->fcache));
	s->q = xcalloc(1, sizeof(*s->q));
	s->q->r = s->r;
	s->kmaps = maps_new();
	s->kernel = dsos_findnew(&s->dsos, "[kernel.kallsyms]", DSO_KERNEL);
	/* kallsyms will be needed when some event samples the kernel (pipe mode: not known yet) */
	for (u32 i = 0; i < pd_reader_nr_attrs(s->r) || !pd_reader_nr_attrs(s->r); i++) {
		if (i >= pd_reader_nr_attrs(s->r) || !pd_reader_attr(s->r, i)->exclude_kernel) {
			char path[PATH_MAX];

			if (!symbols_conf.kallsyms && !symbols_conf.symfs &&
			    !kernel_kallsyms_path(&s->dsos, s->kernel, path))
				kernel_prefetch(&s->dsos, path);
			break;
		}
	}
	/* the modules now, as perf does at start; the kernel map when first needed */
	nr = kernel_modules(&mods);
	for (u32 i = 0; i < nr; i++) {
		char name[80];
		struct map m = {mods[i].start, mods[i].start + mods[i].size, 0, NULL, true};

		snprintf(name, sizeof(name), "[%s]", mods[i].name);
		m.dso = dsos_findnew(&s->dsos, name, DSO_MODULE);
		maps_insert(s->kmaps, &m);
	}
	free(mods);
	/* perf_session__register_idle_thread() */
	idle = thread_findnew(s, 0, 0);
	idle->comm = intern(s, "swapper");
	idle->comm_set = true;
}

void session_exit(struct session *s)
{
	struct thread *t, *next;

	if (s->unwinder) {
		u64 cached, libdwfl;

		unwinder_stats(s->unwinder, &cached, &libdwfl);
		debug(1, "user stacks: %llu unwound with the binaries' cached rules, %llu with "
			 "libdwfl",
		      (unsigned long long)cached, (unsigned long long)libdwfl);
	}
	unwinder_free(s->unwinder);
	free(s->uchain);
	if (s->ahead)
		for (u32 i = 0; i < 2; i++)
			free(s->ahead->buf[i].frames);
	free(s->ahead);
	for (t = s->all_threads; t; t = next) {
		next = t->next;
		maps_put(t->maps);
		if (t->memo_free)
			t->memo_free(t->memo);
		free(t->own_comm);
		free(t);
	}
	free(s->threads);
	for (u32 i = 0; i < s->nr_strs; i++)
		free(s->str_by_id[i]);
	free(s->str_by_id);
	free(s->strs);
	free(s->frames);
	free(s->frame_table);
	free(s->fcache);
	if (s->q)
		queue_free(s->q);
	maps_put(s->kmaps);
	dsos_exit(&s->dsos);
	free(s->aggregated);
	memset(s, 0, sizeof(*s));
}
