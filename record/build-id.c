// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids of the binaries that samples hit, collected while recording instead of in a second
 * pass over the file as perf record does.
 *
 * perf's second pass (build_id__mark_dso_hit) replays the file in time order and marks the
 * binary of the map each sample's ip falls in. The recorder hands records over per CPU buffer,
 * so they are not in time order: a parent's MMAP2 read from one CPU's buffer often comes after
 * the FORK and the first samples of its child from another. So the tracker does what perf's
 * ordered-events queue does, with less: each record becomes a 32-byte queue entry (a sample
 * keeps only its time, pid, ip and cpumode; a side-band record is reduced to what changes maps),
 * and at each FINISHED_ROUND the entries up to the largest time seen before the previous one are
 * sorted by time and applied: the same rule by which perf flushes its queue, so the same order.
 *
 * Applying an entry is cheap: per process a sorted, non-overlapping table of executable maps,
 * each pointing at a binary ("dso"), plus one table for the kernel and its modules; a sample
 * costs a hash lookup of its pid and a binary search (nothing when it falls in the same map as
 * the sample before) and sets the binary's hit flag. No memory is allocated per sample: the
 * queue is an array that is reused. Build-ids are read only at the end, with libelf, for the
 * binaries that were hit.
 *
 * Where this differs from perf: an exec drops the maps of the old image (perf keeps them until
 * new maps overlap them), so a sample after a lost MMAP2 is not pinned on a binary the process
 * no longer runs; and [vdso] gets no entry (see note_mmap()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/synthesize.h"
#include "util/build-id.h"
#include "util/buildid-cache.h"
#include "util/xalloc.h"

#define KERNEL_NAME "[kernel.kallsyms]"

/*
 * Entries kept waiting for FINISHED_ROUNDs that do not come: past this many, the older half is
 * applied anyway.
 */
#define QUEUE_MAX (1u << 20)

enum dso_kind {
	DSO_NONE = -1, /* a map of nothing with a build-id */
	DSO_USER,
	DSO_KERNEL,
	DSO_MODULE,
};

struct bt_dso {
	char *name;
	u32 hash;
	u8 kind;
	bool hit;
	bool has_bid; /* from a MMAP2 that carried it, or read at the end */
	bool tried;   /* reading was attempted */
	bool via_root; /* read through /proc/PID/root: the name is not ours to open */
	u8 bid_size;
	u8 bid[BUILD_ID_MAX];
	u32 maj, min;
	u64 ino; /* 0: unknown (MMAP, or MMAP2 with a build-id) */
	int pid; /* a process that mapped it, for /proc/PID/root */
};

struct bt_map {
	u64 start, end;
	s32 dso; /* DSO_NONE: //anon, [heap], JIT code ... */
	u32 unused;
};

struct bt_proc {
	struct bt_proc *next; /* hash chain */
	int pid;
	struct bt_map *maps;
	u32 nr, cap;
};

/* What a side-band record changes, waiting in the queue. */
struct bt_sideband {
	u64 start, end;
	s32 dso;
	int pid, ppid;
	u16 type;
	bool synthesized; /* FORK: perf's PD_RECORD_MISC_FORK_EXEC */
};

/* One record in the queue: 32 bytes. */
struct bt_event {
	u64 time;
	u64 data; /* SAMPLE: the ip; otherwise an index into sideband */
	u32 seq;  /* arrival order (renumbered at each flush): equal times keep it, as perf's queue
		   */
	int pid;  /* SAMPLE */
	u16 type;
	u16 cpumode; /* SAMPLE */
	u32 unused;
};

struct buildid_tracker {
	struct bt_proc **procs; /* hash by pid, chained */
	u32 procs_mask, nr_procs;
	struct bt_proc kernel; /* pid -1: the kernel and modules */

	struct bt_dso *dsos;
	u32 nr_dsos, cap_dsos;
	s32 *dso_slots; /* open addressing: indices into dsos, -1 empty */
	u32 dso_mask;

	struct bt_map *scratch;
	u32 scratch_cap;

	struct bt_event *queue, *spare; /* spare: for sorting */
	u32 nr_queue, cap_queue, cap_spare, seq;
	struct bt_sideband *sideband;
	u32 nr_sideband, cap_sideband;
	struct bt_sideband *sideband_spare; /* for compacting */
	u32 cap_sideband_spare;
	u64 max_time;	/* the largest time queued so far */
	u64 next_flush; /* a FINISHED_ROUND applies what is not later than this */

	bool all; /* --buildid-all: every binary mapped, hit or not */

	/* The map the previous sample fell in; valid while gen is unchanged. */
	u64 gen, cache_gen;
	int cache_pid;
	u64 cache_start, cache_end;
};

/* ---------------------------------------------------------------------------------------- */
/* Binaries. */

static u32 hash_bytes(const char *s, u32 h)
{
	while (*s)
		h = (h ^ (u8)*s++) * 16777619u;
	return h;
}

static u32 dso_hash(const char *name, u32 maj, u32 min, u64 ino)
{
	u32 h = hash_bytes(name, 2166136261u);

	h ^= (u32)(ino ^ ino >> 32) * 2654435761u;
	h ^= (maj << 20 | min) * 40503u;
	return h;
}

static void dso_slots_grow(struct buildid_tracker *t)
{
	u32 i, size = t->dso_mask ? (t->dso_mask + 1) * 2 : 256;

	free(t->dso_slots);
	t->dso_slots = xmalloc(size * sizeof(*t->dso_slots));
	memset(t->dso_slots, 0xff, size * sizeof(*t->dso_slots));
	t->dso_mask = size - 1;
	for (i = 0; i < t->nr_dsos; i++) {
		u32 s = t->dsos[i].hash & t->dso_mask;

		while (t->dso_slots[s] >= 0)
			s = (s + 1) & t->dso_mask;
		t->dso_slots[s] = (s32)i;
	}
}

static s32 dso_findnew(struct buildid_tracker *t, const char *name, enum dso_kind kind, u32 maj,
		       u32 min, u64 ino, int pid)
{
	u32 h = dso_hash(name, maj, min, ino), s;
	struct bt_dso *d;

	if (t->dso_mask) {
		for (s = h & t->dso_mask; t->dso_slots[s] >= 0; s = (s + 1) & t->dso_mask) {
			d = &t->dsos[t->dso_slots[s]];
			if (d->hash == h && d->kind == kind && d->ino == ino && d->maj == maj &&
			    d->min == min && !strcmp(d->name, name))
				return t->dso_slots[s];
		}
	}
	if (t->nr_dsos == t->cap_dsos) {
		t->cap_dsos = t->cap_dsos ? t->cap_dsos * 2 : 64;
		t->dsos = xrealloc(t->dsos, t->cap_dsos * sizeof(*t->dsos));
	}
	d = &t->dsos[t->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->hash = h;
	d->kind = kind;
	d->maj = maj;
	d->min = min;
	d->ino = ino;
	d->pid = pid;
	t->nr_dsos++;
	if (!t->dso_mask || t->nr_dsos * 2 > t->dso_mask + 1) {
		dso_slots_grow(t);
	} else {
		for (s = h & t->dso_mask; t->dso_slots[s] >= 0; s = (s + 1) & t->dso_mask)
			;
		t->dso_slots[s] = (s32)(t->nr_dsos - 1);
	}
	return (s32)(t->nr_dsos - 1);
}

/* ---------------------------------------------------------------------------------------- */
/* Processes and their maps. */

static struct bt_proc *proc_find(struct buildid_tracker *t, int pid)
{
	struct bt_proc *p;

	if (pid == -1)
		return &t->kernel;
	if (!t->procs)
		return NULL;
	for (p = t->procs[(u32)pid & t->procs_mask]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void procs_grow(struct buildid_tracker *t)
{
	u32 i, size = t->procs_mask ? (t->procs_mask + 1) * 2 : 1024;
	struct bt_proc **procs = xcalloc(size, sizeof(*procs));

	for (i = 0; t->procs && i <= t->procs_mask; i++) {
		struct bt_proc *p = t->procs[i], *next;

		for (; p; p = next) {
			next = p->next;
			p->next = procs[(u32)p->pid & (size - 1)];
			procs[(u32)p->pid & (size - 1)] = p;
		}
	}
	free(t->procs);
	t->procs = procs;
	t->procs_mask = size - 1;
}

static struct bt_proc *proc_findnew(struct buildid_tracker *t, int pid)
{
	struct bt_proc *p = proc_find(t, pid);

	if (p)
		return p;
	if (!t->procs || t->nr_procs >= t->procs_mask + 1)
		procs_grow(t);
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->next = t->procs[(u32)pid & t->procs_mask];
	t->procs[(u32)pid & t->procs_mask] = p;
	t->nr_procs++;
	return p;
}

static void proc_remove(struct buildid_tracker *t, struct bt_proc *p)
{
	struct bt_proc **pp = &t->procs[(u32)p->pid & t->procs_mask];

	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	t->nr_procs--;
	free(p->maps);
	free(p);
	t->gen++;
}

static void proc_reserve(struct bt_proc *p, u32 n)
{
	if (p->nr + n <= p->cap)
		return;
	while (p->cap < p->nr + n)
		p->cap = p->cap ? p->cap * 2 : 16;
	p->maps = xrealloc(p->maps, p->cap * sizeof(*p->maps));
}

/* The index of the map holding ip, or -1. */
static int proc_lookup(const struct bt_proc *p, u64 ip)
{
	u32 lo = 0, hi = p->nr;

	/* the last map starting at or below ip */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= p->maps[lo - 1].end)
		return -1;
	return (int)lo - 1;
}

static void scratch_push(struct buildid_tracker *t, u32 *n, u64 start, u64 end, s32 dso)
{
	if (*n == t->scratch_cap) {
		t->scratch_cap = t->scratch_cap ? t->scratch_cap * 2 : 64;
		t->scratch = xrealloc(t->scratch, t->scratch_cap * sizeof(*t->scratch));
	}
	t->scratch[(*n)++] = (struct bt_map){.start = start, .end = end, .dso = dso};
}

/* Insert [start, end): it replaces what it overlaps of the maps already there, as mmap does. */
static void proc_insert(struct buildid_tracker *t, struct bt_proc *p, u64 start, u64 end, s32 dso)
{
	u32 lo = 0, hi, n = 0;

	if (end <= start)
		return;
	/* sorted and disjoint, so the ends are sorted too: find the first map ending after start */
	hi = p->nr;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < p->nr && p->maps[hi].start < end; hi++)
		;
	t->gen++;
	/* what is left of the first and last overlapped maps on either side */
	if (lo < hi && p->maps[lo].start < start)
		scratch_push(t, &n, p->maps[lo].start, start, p->maps[lo].dso);
	scratch_push(t, &n, start, end, dso);
	if (lo < hi && p->maps[hi - 1].end > end)
		scratch_push(t, &n, end, p->maps[hi - 1].end, p->maps[hi - 1].dso);

	if (n > hi - lo)
		proc_reserve(p, n - (hi - lo));
	memmove(p->maps + lo + n, p->maps + hi, (p->nr - hi) * sizeof(*p->maps));
	memcpy(p->maps + lo, t->scratch, n * sizeof(*p->maps));
	p->nr = p->nr - (hi - lo) + n;
}

/* ---------------------------------------------------------------------------------------- */
/* Applying records, in time order. */

static void apply_sample(struct buildid_tracker *t, const struct bt_event *e)
{
	struct bt_proc *p;
	int idx;

	if (e->cpumode == PERF_RECORD_MISC_KERNEL) {
		p = &t->kernel;
	} else {
		if (t->cache_gen == t->gen && t->cache_pid == e->pid && e->data >= t->cache_start &&
		    e->data < t->cache_end)
			return; /* the same map as the sample before: already marked */
		p = proc_find(t, e->pid);
		if (!p)
			return;
	}
	idx = proc_lookup(p, e->data);
	if (idx < 0)
		return;
	if (p->maps[idx].dso >= 0)
		t->dsos[p->maps[idx].dso].hit = true;
	if (p != &t->kernel) {
		t->cache_gen = t->gen;
		t->cache_pid = e->pid;
		t->cache_start = p->maps[idx].start;
		t->cache_end = p->maps[idx].end;
	}
}

static void apply_sideband(struct buildid_tracker *t, const struct bt_sideband *sb)
{
	struct bt_proc *p, *parent;

	switch (sb->type) {
	case PERF_RECORD_MMAP:
		proc_insert(t, sb->pid == -1 ? &t->kernel : proc_findnew(t, sb->pid), sb->start,
			    sb->end, sb->dso);
		break;
	case PERF_RECORD_COMM:
		/* an exec: the old image's maps are gone, the new one's MMAPs follow */
		p = proc_find(t, sb->pid);
		if (p) {
			p->nr = 0;
			t->gen++;
		}
		break;
	case PERF_RECORD_FORK:
		/* a synthesized one only says the process exists; its MMAP2s follow */
		p = proc_findnew(t, sb->pid);
		if (sb->synthesized)
			break;
		/* a new process (or a reused pid) starts with a copy of its parent's maps */
		p->nr = 0;
		t->gen++;
		parent = proc_find(t, sb->ppid);
		if (!parent || parent == p)
			break;
		if (!parent->nr)
			break; /* no maps (and maybe no array): memcpy() must not see NULL */
		proc_reserve(p, parent->nr);
		memcpy(p->maps, parent->maps, parent->nr * sizeof(*p->maps));
		p->nr = parent->nr;
		break;
	case PERF_RECORD_EXIT:
		p = proc_find(t, sb->pid);
		if (p)
			proc_remove(t, p);
		break;
	default:
		break;
	}
}

static bool event_before(const struct bt_event *x, const struct bt_event *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/*
 * Sort the queue by (time, arrival). It is made of a few sorted runs, one per CPU buffer the
 * recorder read plus what was left from the round before, so a natural merge sort does it in
 * a few linear passes.
 */
static void queue_sort(struct buildid_tracker *t)
{
	struct bt_event *src = t->queue, *dst;
	u32 n = t->nr_queue;

	if (t->cap_spare < t->cap_queue) {
		t->cap_spare = t->cap_queue;
		t->spare = xrealloc(t->spare, t->cap_spare * sizeof(*t->spare));
	}
	dst = t->spare;
	for (;;) {
		u32 i = 0, runs = 0;

		while (i < n) {
			u32 a = i, b, c;

			/* two runs [a, b) and [b, c), merged into dst */
			for (b = a + 1; b < n && !event_before(&src[b], &src[b - 1]); b++)
				;
			for (c = b < n ? b + 1 : b; c < n && !event_before(&src[c], &src[c - 1]);
			     c++)
				;
			{
				u32 x = a, y = b, o = a;

				while (x < b && y < c)
					dst[o++] =
					    event_before(&src[y], &src[x]) ? src[y++] : src[x++];
				while (x < b)
					dst[o++] = src[x++];
				while (y < c)
					dst[o++] = src[y++];
			}
			runs++;
			i = c;
		}
		/* dst holds the merged pairs; swap roles */
		{
			struct bt_event *tmp = src;

			src = dst;
			dst = tmp;
		}
		if (runs <= 1)
			break;
	}
	if (src != t->queue) {
		/* the sorted events are in the spare array: swap the arrays, not the contents */
		struct bt_event *q = t->queue;
		u32 cap = t->cap_queue;

		t->queue = t->spare;
		t->cap_queue = t->cap_spare;
		t->spare = q;
		t->cap_spare = cap;
	}
}

/*
 * Apply the queued records not later than limit (all of them with all), in time order; keep the
 * others, and the side-band entries they point at, for the next time.
 */
static void queue_flush(struct buildid_tracker *t, u64 limit, bool all)
{
	u32 i, kept = 0, nr_sb = 0;

	if (!t->nr_queue)
		return;
	if (!t->nr_sideband) {
		/* Samples alone change nothing: their order does not matter. */
		for (i = 0; i < t->nr_queue; i++) {
			if (all || t->queue[i].time <= limit)
				apply_sample(t, &t->queue[i]);
			else
				t->queue[kept++] = t->queue[i];
		}
		goto renumber;
	}
	queue_sort(t);
	for (i = 0; i < t->nr_queue && (all || t->queue[i].time <= limit); i++) {
		const struct bt_event *e = &t->queue[i];

		if (e->type == PERF_RECORD_SAMPLE)
			apply_sample(t, e);
		else
			apply_sideband(t, &t->sideband[e->data]);
	}
	if (t->cap_sideband_spare < t->nr_sideband) {
		t->cap_sideband_spare = t->cap_sideband;
		t->sideband_spare =
		    xrealloc(t->sideband_spare, t->cap_sideband_spare * sizeof(*t->sideband_spare));
	}
	for (; i < t->nr_queue; i++) {
		struct bt_event e = t->queue[i];

		if (e.type != PERF_RECORD_SAMPLE) {
			t->sideband_spare[nr_sb] = t->sideband[e.data];
			e.data = nr_sb++;
		}
		t->queue[kept++] = e;
	}
	/* the spare array now holds what is left: swap */
	{
		struct bt_sideband *sb = t->sideband;
		u32 cap = t->cap_sideband;

		t->sideband = t->sideband_spare;
		t->cap_sideband = t->cap_sideband_spare;
		t->sideband_spare = sb;
		t->cap_sideband_spare = cap;
		t->nr_sideband = nr_sb;
	}
renumber:
	/* what is kept is in arrival order (or sorted, which keeps it among equal times) */
	t->nr_queue = kept;
	for (i = 0; i < kept; i++)
		t->queue[i].seq = i;
	t->seq = kept;
}

static struct bt_event *queue_push(struct buildid_tracker *t, u64 time, u16 type)
{
	struct bt_event *e;

	if (t->nr_queue == QUEUE_MAX) {
		/* No FINISHED_ROUND for a long while: apply the older half anyway. */
		queue_sort(t);
		queue_flush(t, t->queue[t->nr_queue / 2].time, false);
		if (t->nr_queue == QUEUE_MAX)
			queue_flush(t, 0, true);
	}
	if (t->nr_queue == t->cap_queue) {
		t->cap_queue = t->cap_queue ? t->cap_queue * 2 : 4096;
		t->queue = xrealloc(t->queue, t->cap_queue * sizeof(*t->queue));
	}
	e = &t->queue[t->nr_queue++];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->type = type;
	e->seq = t->seq++;
	if (time > t->max_time)
		t->max_time = time;
	return e;
}

static struct bt_sideband *sideband_push(struct buildid_tracker *t, u64 time, u16 type)
{
	struct bt_event *e = queue_push(t, time, type);
	struct bt_sideband *sb;

	if (t->nr_sideband == t->cap_sideband) {
		t->cap_sideband = t->cap_sideband ? t->cap_sideband * 2 : 256;
		t->sideband = xrealloc(t->sideband, t->cap_sideband * sizeof(*t->sideband));
	}
	e->data = t->nr_sideband;
	sb = &t->sideband[t->nr_sideband++];
	memset(sb, 0, sizeof(*sb));
	sb->type = type;
	return sb;
}

/* ---------------------------------------------------------------------------------------- */
/* Records as they arrive. */

static u64 get_u64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get_u32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes of the sample_id trailer of non-sample records made for attr. */
static u32 trailer_size(const struct perf_event_attr *attr)
{
	u64 st;

	if (!attr || !attr->sample_id_all)
		return 0;
	st = attr->sample_type;
	return 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
		    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
		    !!(st & PERF_SAMPLE_IDENTIFIER));
}

/* The time in the sample_id trailer; 0 (before everything) when there is none. */
static u64 trailer_time(const struct pd_record_header *h, const struct perf_event_attr *attr,
			u32 tsize, u32 body)
{
	u32 off;

	if (!tsize || !(attr->sample_type & PERF_SAMPLE_TIME) ||
	    sizeof(*h) + body + tsize > h->size)
		return 0;
	off = h->size - tsize + ((attr->sample_type & PERF_SAMPLE_TID) ? 8 : 0);
	return get_u64((const u8 *)h + off);
}

static void note_sample(struct buildid_tracker *t, const struct pd_record_header *h,
			const struct perf_event_attr *attr)
{
	const u8 *p = (const u8 *)(h + 1), *end = (const u8 *)h + h->size;
	u16 cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct bt_event *e;
	u64 st, ip, time = 0;
	int pid = -1;

	if (!attr || (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER))
		return; /* guests, hypervisor */
	st = attr->sample_type;
	if (!(st & PERF_SAMPLE_IP))
		return;
	/* IDENTIFIER, IP, TID, TIME come first and in this order */
	if (st & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (end - p < 8)
		return;
	ip = get_u64(p);
	p += 8;
	if (st & PERF_SAMPLE_TID) {
		if (end - p < 8)
			return;
		pid = (int)get_u32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		if (end - p < 8)
			return;
		time = get_u64(p);
	}
	if (cpumode == PERF_RECORD_MISC_USER && pid <= 0)
		return;
	e = queue_push(t, time, PERF_RECORD_SAMPLE);
	e->data = ip;
	e->pid = pid;
	e->cpumode = cpumode;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void note_mmap(struct buildid_tracker *t, const struct pd_record_header *h,
		      const struct perf_event_attr *attr, bool mmap2)
{
	u32 body_size = mmap2 ? sizeof(struct pd_mmap2_body) : sizeof(struct pd_mmap_body);
	u32 tsize = trailer_size(attr);
	u16 cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	u32 maj = 0, min = 0, pid;
	u64 start, len, ino = 0;
	const char *name;
	size_t name_max;
	struct bt_sideband *sb;
	enum dso_kind kind;
	s32 dso = DSO_NONE;

	if (h->size < sizeof(*h) + body_size + 8)
		return;
	/* Data maps (perf record -d) cannot hold an ip. */
	if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
		return;
	if (mmap2) {
		struct pd_mmap2_body b;

		memcpy(&b, h + 1, sizeof(b));
		if (!(b.prot & PROT_EXEC))
			return;
		pid = b.pid;
		start = b.start;
		len = b.len;
		if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			maj = b.maj;
			min = b.min;
			ino = b.ino;
		}
	} else {
		struct pd_mmap_body b;

		memcpy(&b, h + 1, sizeof(b));
		pid = b.pid;
		start = b.start;
		len = b.len;
	}
	name = (const char *)(h + 1) + body_size;
	name_max = h->size - sizeof(*h) - body_size;
	if (tsize < name_max)
		name_max -= tsize;
	if (strnlen(name, name_max) == name_max)
		return; /* not terminated within the record */

	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		pid = (u32)-1;
		/* perf maps x86's per-CPU entry trampolines onto the kernel itself */
		if (starts_with(name, KERNEL_NAME) ||
		    !strcmp(name, "__entry_SYSCALL_64_trampoline")) {
			name = KERNEL_NAME;
			kind = DSO_KERNEL;
		} else if (name[0] == '/' || name[0] == '[') {
			kind = DSO_MODULE;
		} else {
			kind = DSO_NONE;
		}
	} else if (cpumode == PERF_RECORD_MISC_USER && (int)pid > 0) {
		/*
		 * Files only: not //anon or //toolong, and not [vdso]. perf record puts the vDSO in
		 * its build-id cache (~/.debug) with the entry; perf report, given a [vdso] entry
		 * that its cache does not hold, leaves every vDSO sample unresolved, while without
		 * the entry it reads its own vDSO, which is the same image on this machine.
		 */
		if (name[0] == '/' && name[1] != '/')
			kind = DSO_USER;
		else
			kind = DSO_NONE;
	} else {
		return; /* guests, hypervisor */
	}
	if (kind != DSO_NONE) {
		dso = dso_findnew(t, name, kind, maj, min, ino, (int)pid);
		if (mmap2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			const struct pd_mmap2_body *b = (const void *)(h + 1);
			struct bt_dso *d = &t->dsos[dso];

			if (!d->has_bid && b->build_id_size && b->build_id_size <= BUILD_ID_MAX) {
				memcpy(d->bid, b->build_id, b->build_id_size);
				d->bid_size = b->build_id_size;
				d->has_bid = true;
			}
		}
	}
	if (start + len < start)
		len = ~0ULL - start;
	sb = sideband_push(t, trailer_time(h, attr, tsize, body_size), PERF_RECORD_MMAP);
	sb->pid = (int)pid;
	sb->start = start;
	sb->end = start + len;
	sb->dso = dso;
}

static void note_comm(struct buildid_tracker *t, const struct pd_record_header *h,
		      const struct perf_event_attr *attr)
{
	struct pd_comm_body b;
	struct bt_sideband *sb;

	/* Only an exec changes maps. */
	if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < sizeof(*h) + sizeof(b))
		return;
	memcpy(&b, h + 1, sizeof(b));
	if ((int)b.pid <= 0)
		return;
	sb = sideband_push(t, trailer_time(h, attr, trailer_size(attr), sizeof(b)),
			   PERF_RECORD_COMM);
	sb->pid = (int)b.pid;
}

static void note_task(struct buildid_tracker *t, const struct pd_record_header *h)
{
	struct pd_fork_body b;
	struct bt_sideband *sb;

	if (h->size < sizeof(*h) + sizeof(b))
		return;
	memcpy(&b, h + 1, sizeof(b));
	if ((int)b.pid <= 0)
		return;
	/* A new thread shares its process's maps; only a process's own exit frees them. */
	if (h->type == PERF_RECORD_FORK ? b.pid == b.ppid : b.pid != b.tid)
		return;
	sb = sideband_push(t, b.time, (u16)h->type);
	sb->pid = (int)b.pid;
	sb->ppid = (int)b.ppid;
	sb->synthesized = h->type == PERF_RECORD_FORK && (h->misc & PD_RECORD_MISC_FORK_EXEC);
}

/**
 * buildid_tracker_new - an empty tracker.
 *
 * Return: the tracker (allocation failure is fatal, as for the rest of the tool).
 */
struct buildid_tracker *buildid_tracker_new(void)
{
	struct buildid_tracker *t = xcalloc(1, sizeof(*t));

	t->kernel.pid = -1;
	t->cache_pid = -2;
	t->gen = 1;
	return t;
}

/**
 * buildid_tracker_free - free t and everything it holds; NULL is fine.
 */
void buildid_tracker_free(struct buildid_tracker *t)
{
	u32 i;

	if (!t)
		return;
	for (i = 0; t->procs && i <= t->procs_mask; i++) {
		struct bt_proc *p = t->procs[i], *next;

		for (; p; p = next) {
			next = p->next;
			free(p->maps);
			free(p);
		}
	}
	free(t->procs);
	free(t->kernel.maps);
	for (i = 0; i < t->nr_dsos; i++)
		free(t->dsos[i].name);
	free(t->dsos);
	free(t->dso_slots);
	free(t->scratch);
	free(t->queue);
	free(t->spare);
	free(t->sideband);
	free(t->sideband_spare);
	free(t);
}

/**
 * buildid_note_record - account one record the recorder passes on (samples, MMAP/MMAP2, COMM,
 * FORK, EXIT and FINISHED_ROUND matter; the rest is ignored). Synthesized records must go
 * through here too (buildid_note_records()), before the first FINISHED_ROUND, as they come
 * before the ring buffers' records in the file.
 * @attr: the attr the record belongs to (its sample_type lays out samples and trailers); NULL
 *        when unknown, which loses the record's time (and a sample altogether).
 */
void buildid_note_record(struct buildid_tracker *t, const struct pd_record_header *h,
			 const struct perf_event_attr *attr)
{
	if (h->size < sizeof(*h))
		return;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		note_sample(t, h, attr);
		break;
	case PERF_RECORD_MMAP:
		note_mmap(t, h, attr, false);
		break;
	case PERF_RECORD_MMAP2:
		note_mmap(t, h, attr, true);
		break;
	case PERF_RECORD_COMM:
		note_comm(t, h, attr);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		note_task(t, h);
		break;
	case PD_RECORD_FINISHED_ROUND:
		/* perf's rule: what is not later than the last round's latest time is complete */
		queue_flush(t, t->next_flush, false);
		t->next_flush = t->max_time;
		break;
	default:
		break;
	}
}

/**
 * buildid_note_records - buildid_note_record() for each whole record in buf (len bytes), all laid
 * out for attr: for the synthesized side-band. A record that runs past len ends the walk.
 */
void buildid_note_records(struct buildid_tracker *t, const void *buf, size_t len,
			  const struct perf_event_attr *attr)
{
	size_t off = 0;

	while (len - off >= sizeof(struct pd_record_header)) {
		struct pd_record_header h;

		memcpy(&h, (const u8 *)buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		buildid_note_record(t, (const struct pd_record_header *)((const u8 *)buf + off),
				    attr);
		off += h.size;
	}
}

/**
 * buildid_is_hit - whether a sample fell in the binary named name (tests and debugging). It
 * applies everything queued first, as the end of the recording does.
 */
bool buildid_is_hit(struct buildid_tracker *t, const char *name)
{
	u32 i;

	queue_flush(t, 0, true);
	for (i = 0; i < t->nr_dsos; i++)
		if (t->dsos[i].hit && !strcmp(t->dsos[i].name, name))
			return true;
	return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading build-ids. */

/*
 * A regular file that may be the mapped one: the path as the process saw it, looked up in our
 * mount namespace and then in the process's (/proc/PID/root), the one whose device and inode
 * match the MMAP2 record preferred.
 */
static bool file_build_id(struct bt_dso *d, u8 *bid, u8 *size)
{
	char alt[PATH_MAX + 32];
	const char *paths[2] = {d->name, NULL};
	int fallback = -1, match = -1;
	bool found = false, fallback_root = false, match_root = false;
	size_t i;

	if (d->pid > 0 &&
	    (size_t)snprintf(alt, sizeof(alt), "/proc/%d/root%s", d->pid, d->name) < sizeof(alt))
		paths[1] = alt;
	for (i = 0; i < 2 && paths[i] && match < 0 && !(fallback >= 0 && !d->ino); i++) {
		struct stat st;
		/* O_NONBLOCK: the name may be a FIFO by now */
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		if (d->ino && st.st_ino == d->ino && major(st.st_dev) == d->maj &&
		    minor(st.st_dev) == d->min) {
			match = fd;
			match_root = i == 1;
		} else if (fallback < 0) {
			fallback = fd;
			fallback_root = i == 1;
		} else {
			close(fd);
		}
	}
	if (match >= 0) {
		if (fallback >= 0)
			close(fallback);
		fallback = match;
		fallback_root = match_root;
	}
	d->via_root = fallback_root;
	if (fallback >= 0) {
		found = !build_id_from_fd(fallback, bid, size);
		close(fallback);
	}
	return found;
}

/* "[name]" or ".../name.ko.xz" as /sys/module spells it: name up to the first '.', '-' as '_'. */
static void module_sysfs_name(const char *dso, char *name, size_t size)
{
	const char *base = strrchr(dso, '/');
	size_t i;

	base = base ? base + 1 : dso;
	if (*base == '[')
		base++;
	for (i = 0; i + 1 < size && base[i] && base[i] != '.' && base[i] != ']'; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[i] = '\0';
}

static bool dso_read_build_id(struct bt_dso *d)
{
	char path[PATH_MAX], name[256];

	if (d->has_bid || d->tried)
		return d->has_bid;
	d->tried = true;
	switch (d->kind) {
	case DSO_KERNEL:
		d->has_bid = !build_id_from_notes_file("/sys/kernel/notes", d->bid, &d->bid_size);
		break;
	case DSO_MODULE:
		module_sysfs_name(d->name, name, sizeof(name));
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		d->has_bid = !build_id_from_notes_file(path, d->bid, &d->bid_size);
		break;
	default:
		d->has_bid = file_build_id(d, d->bid, &d->bid_size);
		break;
	}
	return d->has_bid;
}

/*
 * Whether the binary at index i goes into the file and the cache: hit (or --buildid-all), with a
 * build-id, and not a second binary of the same name and build-id.
 */
static bool dso_wanted(struct buildid_tracker *t, u32 i)
{
	struct bt_dso *d = &t->dsos[i];

	if (!(d->hit || t->all) || !dso_read_build_id(d))
		return false;
	for (u32 j = 0; j < i; j++) {
		const struct bt_dso *e = &t->dsos[j];

		if ((e->hit || t->all) && e->has_bid && e->bid_size == d->bid_size &&
		    !memcmp(e->bid, d->bid, d->bid_size) && !strcmp(e->name, d->name))
			return false;
	}
	return true;
}

/**
 * buildid_tracker_set_all - take every binary mapped, not only those samples fell in, as perf
 * record --buildid-all does.
 */
void buildid_tracker_set_all(struct buildid_tracker *t)
{
	t->all = true;
}

/**
 * buildid_feature - append a BUILD_ID entry (pid -1) for every binary a sample fell in (every
 * binary, after buildid_tracker_set_all()) and whose build-id can be read: the kernel as
 * "[kernel.kallsyms]" (/sys/kernel/notes), modules by their map name (/sys/module/NAME/notes),
 * and files with libelf. Binaries without a build-id are left out, and so is a second entry with
 * the same name and build-id; so is [vdso] (see note_mmap()).
 *
 * Return: the number of entries appended, or -ENOMEM when payload could not grow.
 */
int buildid_feature(struct buildid_tracker *t, struct pd_buf *payload)
{
	int nr = 0;

	queue_flush(t, 0, true);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	for (u32 i = 0; i < t->nr_dsos; i++) {
		const struct bt_dso *d = &t->dsos[i];

		if (!dso_wanted(t, i))
			continue;
		pd_feat_build_id_add(payload,
				     d->kind == DSO_KERNEL || d->kind == DSO_MODULE
					 ? PERF_RECORD_MISC_KERNEL
					 : PERF_RECORD_MISC_USER,
				     d->bid, d->bid_size, d->name);
		nr++;
	}
	return payload->err ? payload->err : nr;
}

/**
 * buildid_cache_fill - file the binaries buildid_feature() lists in the build-id cache dir, as
 * perf record does at its end: the kernel's symbols as a copy of /proc/kallsyms, files (and
 * modules that are files) by their real path; modules known only as "[name]" are left out, as
 * perf has no file of them either. Entries already there are not copied again.
 * @added: the number of entries made; @failed: the first error, or 0
 *
 * Return: the number of binaries taken (made or already there).
 */
int buildid_cache_fill(struct buildid_tracker *t, const char *dir, int *added, int *failed)
{
	char alt[PATH_MAX + 32], real[PATH_MAX];
	int nr = 0;

	*added = 0;
	*failed = 0;
	queue_flush(t, 0, true);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	for (u32 i = 0; i < t->nr_dsos; i++) {
		const struct bt_dso *d = &t->dsos[i];
		const char *src = d->name, *name = d->name;
		int err;

		if (!dso_wanted(t, i))
			continue;
		if (d->kind == DSO_KERNEL) {
			err = buildid_cache_add(dir, KERNEL_NAME, NULL, d->bid, d->bid_size,
						BUILDID_CACHE_KALLSYMS);
		} else if (d->name[0] != '/') {
			continue;
		} else {
			if (d->via_root) {
				snprintf(alt, sizeof(alt), "/proc/%d/root%s", d->pid, d->name);
				src = alt;
			} else if (realpath(d->name, real)) {
				name = real;
			}
			err = buildid_cache_add(dir, name, src, d->bid, d->bid_size,
						BUILDID_CACHE_ELF);
		}
		if (err > 0)
			(*added)++;
		else if (err < 0 && !*failed)
			*failed = err;
		if (err >= 0)
			nr++;
	}
	return nr;
}
