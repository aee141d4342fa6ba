// SPDX-License-Identifier: GPL-2.0
/*
 * Adding samples up into rows and call chains (see hist.h), as perf report 6.1 does with
 * --no-children:
 * - a sample's row is found by the sort keys: comm compares names, pid the thread (its tid),
 *   dso the short name, sym the symbol (within its dso), or the map-relative address when there
 *   is none; cpu the sample's CPU;
 * - rows count periods: percentages are of the event's total period, filtered samples included
 *   (perf's default, "absolute" percentages);
 * - --cpu drops samples before they are counted, --comm, --pid and --tid after (perf marks those
 *   rows filtered and does not show them);
 * - a call chain is resolved entry by entry, the context markers switching between kernel and
 *   user (thread__resolve_callchain_sample()); an unknown marker discards the whole chain; at most
 *   127 entries of the file's callchain are kept (kernel.perf_event_max_stack), the frames
 *   unwound from a dwarf sample's stack copy coming on top;
 * - chains are compared by function: the same symbol of the same binary, or the same address
 *   when unresolved (match_chain()).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/filter.h"
#include "report/hist.h"
#include "report/srcline.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

/* ---------------------------------------------------------------------------------------- */
/* Frame names */

static void frame_cache_room(struct profile *p)
{
	u32 n = p->s.nr_frames;

	if (n <= p->frame_cache_len)
		return;
	n = n * 2;
	p->frame_dso = xrealloc(p->frame_dso, n * sizeof(*p->frame_dso));
	p->frame_name = xrealloc(p->frame_name, n * sizeof(*p->frame_name));
	memset(p->frame_dso + p->frame_cache_len, 0,
	       (n - p->frame_cache_len) * sizeof(*p->frame_dso));
	memset(p->frame_name + p->frame_cache_len, 0xff,
	       (n - p->frame_cache_len) * sizeof(*p->frame_name));
	p->frame_cache_len = n;
}

const char *frame_dso_name(struct profile *p, u32 f)
{
	const struct frame *fr = session_frame(&p->s, f);

	if (!fr->dso)
		return NULL;
	frame_cache_room(p);
	if (!p->frame_dso[f])
		p->frame_dso[f] =
		    session_intern(&p->s, fr->dso->short_name, fr->dso->short_len)->str;
	return p->frame_dso[f];
}

const char *frame_chain_name(struct profile *p, u32 f, char *buf, size_t len)
{
	const struct frame *fr;

	if (p->addr_key) {
		const struct chain_loc *l = &p->locs[f];

		fr = session_frame(&p->s, l->frame);
		/* perf's callchain_list__sym_name() with the address sort key */
		if (fr->sym)
			snprintf(buf, len, "%s%s%s%s", sym_name(fr->sym), l->line ? " " : "",
				 l->line ? l->line : "", fr->sym->inlined ? " (inlined)" : "");
		else
			snprintf(buf, len, "%#" PRIx64, l->ip);
		return buf;
	}
	fr = session_frame(&p->s, f);
	if (fr->sym && fr->sym->inlined) {
		snprintf(buf, len, "%s (inlined)", sym_name(fr->sym));
		return buf;
	}
	if (fr->sym)
		return sym_name(fr->sym);
	snprintf(buf, len, "%#" PRIx64, fr->ip);
	return buf;
}

/* The folded name's interned number. */
static u32 frame_folded_id(struct profile *p, u32 f)
{
	const struct frame *fr = session_frame(&p->s, f);
	char buf[4200];
	const char *name, *base;
	size_t n;

	frame_cache_room(p);
	if (p->frame_name[f] != 0xffffffffu)
		return p->frame_name[f];
	if (fr->sym) {
		name = sym_name(fr->sym);
		n = sym_namelen(fr->sym);
		if (memchr(name, ';', n) || memchr(name, '\n', n)) {
			n = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
			memcpy(buf, name, n);
			buf[n] = '\0';
			for (size_t i = 0; i < n; i++)
				if (buf[i] == ';' || buf[i] == '\n')
					buf[i] = ':';
			name = buf;
		}
	} else {
		/* as stackcollapse-perf.pl names what perf script shows as [unknown] */
		if (fr->dso) {
			base = strrchr(fr->dso->name, '/');
			base = base ? base + 1 : fr->dso->name;
		} else {
			base = "unknown";
		}
		snprintf(buf, sizeof(buf), "[%s]", base);
		name = buf;
		n = strlen(buf);
	}
	p->frame_name[f] = session_intern(&p->s, name, n)->id;
	return p->frame_name[f];
}

const char *frame_folded_name(struct profile *p, u32 f)
{
	return session_str(&p->s, frame_folded_id(p, f))->str;
}

/* ---------------------------------------------------------------------------------------- */
/* Rows */

static struct hists *event_hists(struct profile *p, int attr)
{
	if ((u32)attr >= p->nr_ev) {
		u32 n = (u32)attr + 1;

		p->ev = xrealloc(p->ev, n * sizeof(*p->ev));
		memset(p->ev + p->nr_ev, 0, (n - p->nr_ev) * sizeof(*p->ev));
		p->nr_ev = n;
	}
	return &p->ev[attr];
}

static u32 key_hash(const struct hist_entry *k)
{
	u64 h = (u64)(uintptr_t)k->comm * 0x9e3779b97f4a7c15ULL;

	h ^= (u64)(uintptr_t)k->dso_name * 0xc2b2ae3d27d4eb4fULL;
	h ^= (k->sym_start + (k->sym_end << 7) + k->resolved) * 0x165667b19e3779f9ULL;
	h ^= k->rel * 0x27d4eb2f165667c5ULL;
	h ^= (u64)(uintptr_t)k->inl * 0x165667b19e3779f9ULL;
	h ^= (u64)(u32)k->tid << 32 | (u32)k->cpu;
	h ^= (u64)(uintptr_t)k->srcline * 0x9e3779b97f4a7c15ULL;
	h ^= (u64)(uintptr_t)k->parent * 0xc2b2ae3d27d4eb4fULL;
	return (u32)hash_mix64(h);
}

static bool key_equal(const struct hist_entry *a, const struct hist_entry *b)
{
	/* not the level: perf's sort__sym_cmp() compares the addresses only; the first shows */
	return a->comm == b->comm && a->dso_name == b->dso_name && a->resolved == b->resolved &&
	       a->sym_start == b->sym_start && a->sym_end == b->sym_end && a->rel == b->rel &&
	       a->inl == b->inl &&
	       a->tid == b->tid && a->cpu == b->cpu && a->srcline == b->srcline &&
	       a->parent == b->parent;
}

/* The table holds (hash, index) pairs: probing touches no entry until a hash matches. */
static void hists_table_grow(struct hists *hs)
{
	u32 mask = hs->mask ? 2 * hs->mask + 1 : 1023;
	struct hist_bucket *t = xmalloc((mask + 1) * sizeof(*t));

	for (u32 i = 0; i <= mask; i++)
		t[i].idx = 0xffffffffu;
	for (u32 k = 0; hs->table && k <= hs->mask; k++) {
		u32 i;

		if (hs->table[k].idx == 0xffffffffu)
			continue;
		for (i = hs->table[k].hash & mask; t[i].idx != 0xffffffffu; i = (i + 1) & mask)
			;
		t[i] = hs->table[k];
	}
	free(hs->table);
	hs->table = t;
	hs->mask = mask;
}

static struct hist_entry *hists_findnew(struct profile *p, struct hists *hs, struct hist_entry *key)
{
	u32 h = key_hash(key), i;
	struct hist_entry *e;

	if (!hs->table)
		hists_table_grow(hs);
	for (i = h & hs->mask; hs->table[i].idx != 0xffffffffu; i = (i + 1) & hs->mask)
		if (hs->table[i].hash == h && key_equal(&hs->v[hs->table[i].idx], key))
			return &hs->v[hs->table[i].idx];
	if (hs->nr == hs->cap) {
		hs->cap = hs->cap ? 2 * hs->cap : 256;
		hs->v = xrealloc(hs->v, hs->cap * sizeof(*hs->v));
	}
	e = &hs->v[hs->nr];
	*e = *key;
	e->hash = h;
	e->gid = p->next_gid++;
	hs->table[i].hash = h;
	hs->table[i].idx = hs->nr++;
	if (hs->nr * 2 > hs->mask)
		hists_table_grow(hs);
	return e;
}

/* ---------------------------------------------------------------------------------------- */
/* Distinct chains */

#define EMPTY 0xffffffffu

/* nf: the number of frames, with the top bit of struct chain_rec's n */
static u32 chain_hash(u32 gid, const char *comm, u32 nf, const u32 *f)
{
	u64 h = hash_mix64((u64)gid << 32 ^ nf ^ (u64)(uintptr_t)comm);
	u32 n = nf & 0x7fffffffu;

	for (u32 i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x100000001b3ULL + (h >> 29);
	return (u32)hash_mix64(h);
}

static inline struct chain_rec *chain_at(const struct profile *p, u32 off)
{
	return (struct chain_rec *)(void *)(p->arena + off);
}

static void buckets_grow(struct profile *p)
{
	u32 mask = p->bucket_mask ? 2 * p->bucket_mask + 1 : 4095;
	struct chain_bucket *b = xmalloc((mask + 1) * sizeof(*b));

	for (u32 i = 0; i <= mask; i++)
		b[i].off = EMPTY;
	/* from the old table, which has the hashes: no record is touched */
	for (u32 k = 0; p->buckets && k <= p->bucket_mask; k++) {
		u32 i;

		if (p->buckets[k].off == EMPTY)
			continue;
		for (i = p->buckets[k].hash & mask; b[i].off != EMPTY; i = (i + 1) & mask)
			;
		b[i] = p->buckets[k];
	}
	free(p->buckets);
	p->buckets = b;
	p->bucket_mask = mask;
}

/* The 8-byte words of a record of n frames: with -g address, their places follow them. */
static size_t chain_words(const struct profile *p, u32 n)
{
	return (sizeof(struct chain_rec) + (p->addr_key ? 2 : 1) * (size_t)n * sizeof(u32) + 7) / 8;
}

/* The node keys of record r's frames: the frames, or with -g address their places. */
static const u32 *chain_keys(const struct profile *p, const struct chain_rec *r)
{
	return p->addr_key ? r->frames + (r->n & 0x7fffffffu) : r->frames;
}

/*
 * Count a sample of chain (gid, comm, frames); with -g address locs are the places of the
 * frames (NULL: none, a synthetic chain). Return: its record's offset.
 */
static u32 chain_add(struct profile *p, u32 gid, const char *comm, bool synthetic,
		     const u32 *frames, const u32 *locs, u32 n, u64 period, u64 count)
{
	u32 nf = n | (synthetic ? 0x80000000u : 0), h = chain_hash(gid, comm, nf, frames), i;
	size_t words = chain_words(p, n);
	struct chain_rec *r;

	if (p->addr_key && locs)
		h ^= chain_hash(0, NULL, n, locs);
	for (i = h & p->bucket_mask; p->buckets[i].off != EMPTY; i = (i + 1) & p->bucket_mask) {
		if (p->buckets[i].hash != h)
			continue;
		r = chain_at(p, p->buckets[i].off);
		if (r->gid == gid && r->comm == comm && r->n == nf &&
		    !memcmp(r->frames, frames, n * sizeof(u32)) &&
		    (!p->addr_key || !locs || !memcmp(r->frames + n, locs, n * sizeof(u32)))) {
			r->count += count;
			r->period += period;
			return p->buckets[i].off;
		}
	}
	if (p->arena_len + words > p->arena_cap) {
		p->arena_cap = (p->arena_len + words) * 2;
		if (p->arena_cap > EMPTY)
			die("more distinct call chains than prec report can hold");
		p->arena = xrealloc(p->arena, p->arena_cap * 8);
	}
	if (n > p->max_chain)
		p->max_chain = n;
	r = chain_at(p, (u32)p->arena_len);
	r->count = count;
	r->period = period;
	r->comm = comm;
	r->gid = gid;
	r->n = nf;
	memcpy(r->frames, frames, n * sizeof(u32));
	if (p->addr_key && locs)
		memcpy(r->frames + n, locs, n * sizeof(u32));
	else if (p->addr_key)
		memset(r->frames + n, 0, n * sizeof(u32));
	p->buckets[i].hash = h;
	p->buckets[i].off = (u32)p->arena_len;
	p->arena_len += words;
	if (++p->nr_chains * 2 > p->bucket_mask) {
		u32 off = p->buckets[i].off;

		buckets_grow(p);
		return off;
	}
	return p->buckets[i].off;
}

/*
 * What a thread's last few samples were: most samples of a busy thread land in the same row with
 * the same chain (the same return addresses, a leaf in the same function), and then nothing
 * needs resolving or hashing again. A slot also keeps the counts of the samples it matched since
 * it last handed them on (memo_flush()): a sample that matches touches neither its row nor its
 * chain record, which on a big file sit anywhere in memory.
 */
struct memo {
	u32 ugen, kgen; /* the address spaces the raw chain was resolved in */
	u32 leaf_pos;	/* where the leaf address sits in the raw chain */
	bool raw_valid;
	const struct srcline_func *leaf_fn; /* the functions at the leaf (unwound chains) */
	u32 leaf_nfn;
	u32 n, cap;
	u64 *raw;    /* the raw chain */
	u32 *frames; /* what each of its entries resolved to (0 for context marks) */
	u8 *modes;   /* and in which cpumode */
};

struct memo_slot {
	/* the key: a sample of this event, command and CPU whose own address is in leaf */
	u32 leaf;
	int attr, cpu;
	u32 entry; /* index of the row in its hists */
	u16 cpumode; /* the samples' own: a row counts kernel and user time apart */
	const char *comm;
	const char *srcline; /* with the sort key srcline: the samples' own */
	const char *parent;  /* with the sort key parent: the samples' own */
	u32 chain;	  /* its chain record, EMPTY if none yet */
	u64 row_samples;  /* samples not yet added to the row */
	u64 row_period;	  /* and their period */
	u64 chain_period; /* samples of the chain record not yet added to it */
	u64 chain_samples;
	bool used;
	struct memo *m;
};

#define MEMO_SLOTS 4

/* A thread's last few rows and chains: a loop that calls three functions keeps hitting. */
struct memo_set {
	struct memo_slot slot[MEMO_SLOTS];
	u32 last; /* the slot of the thread's previous sample */
	u32 next; /* the slot to reuse */
};

static void memo_free(void *p)
{
	struct memo_set *ms = p;

	if (!ms)
		return;
	for (u32 i = 0; i < MEMO_SLOTS; i++) {
		if (ms->slot[i].m)
			free(ms->slot[i].m->raw);
		free(ms->slot[i].m);
	}
	free(ms);
}

/* Hand the counts a slot kept on to its chain record. */
static void memo_flush_chain(struct profile *p, struct memo_slot *sl)
{
	if (sl->chain_samples) {
		struct chain_rec *r = chain_at(p, sl->chain);

		r->count += sl->chain_samples;
		r->period += sl->chain_period;
		sl->chain_samples = 0;
		sl->chain_period = 0;
	}
}

/* The kernel or user share of a row's period, as perf's he_stat__add_cpumode_period(). */
static inline void entry_add_mode(struct hist_entry *e, u16 cpumode, u64 period)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		e->period_sys += period;
	else if (cpumode == PERF_RECORD_MISC_USER)
		e->period_us += period;
}

/* Hand the counts a slot kept on to its row and chain record. */
static void memo_flush(struct profile *p, struct memo_slot *sl)
{
	if (sl->row_samples) {
		struct hist_entry *e = &p->ev[sl->attr].v[sl->entry];

		e->samples += sl->row_samples;
		e->period += sl->row_period;
		entry_add_mode(e, sl->cpumode, sl->row_period);
		sl->row_samples = 0;
		sl->row_period = 0;
	}
	memo_flush_chain(p, sl);
}

/* Every thread's slots: after the last sample, before the views. */
static void memo_flush_all(struct profile *p)
{
	for (struct thread *t = p->s.all_threads; t; t = t->next) {
		struct memo_set *ms = t->memo;

		for (u32 i = 0; ms && i < MEMO_SLOTS; i++)
			if (ms->slot[i].used)
				memo_flush(p, &ms->slot[i]);
	}
}

/* The slot for a new row of thread t (the oldest one), emptied. */
static struct memo_slot *memo_take(struct profile *p, struct thread *t)
{
	struct memo_set *ms = t->memo;
	struct memo_slot *sl;

	if (!ms) {
		ms = t->memo = xcalloc(1, sizeof(struct memo_set));
		t->memo_free = memo_free;
	}
	sl = &ms->slot[ms->next];
	if (sl->used)
		memo_flush(p, sl);
	if (!sl->m)
		sl->m = xcalloc(1, sizeof(*sl->m));
	sl->used = true;
	ms->last = ms->next;
	ms->next = (ms->next + 1) % MEMO_SLOTS;
	sl->chain = EMPTY;
	sl->m->raw_valid = false;
	return sl;
}

static void memo_room(struct memo *m, u32 n)
{
	if (m->cap < n) {
		u32 cap = n < 16 ? 16 : n;

		free(m->raw);
		m->raw = xmalloc(cap * (sizeof(u64) + sizeof(u32) + 1));
		m->frames = (u32 *)(m->raw + cap);
		m->modes = (u8 *)(m->frames + cap);
		m->cap = cap;
		m->raw_valid = false;
	}
}

/*
 * The frames of a sample's callchain, callee first, into out, and where each is in the raw chain
 * into pos (its mode stays in p->scratch until the next sample); 0 when perf would discard the
 * chain. Entries equal to those of the thread's previous chain, aligned at the outer end (where
 * chains of one thread agree most), are not resolved again.
 */
static u32 chain_frames(struct profile *p, struct thread *t, const struct psample *smp, u32 *out,
			u32 *pos, const struct memo *m, struct memo *dst)
{
	u16 cpumode = PERF_RECORD_MISC_USER;
	u32 n = 0, nfile = 0, nr = smp->nr_chain;
	bool reuse = m && m->raw_valid && m->ugen == t->maps->gen && m->kgen == p->s.kmaps->gen;
	long delta = m ? (long)m->n - (long)nr : 0;
	u32 *rf;
	u8 *rm;

	if (nr > p->scratch_cap) {
		p->scratch_cap = nr;
		p->scratch = xrealloc(p->scratch, nr * (sizeof(u32) + 1));
	}
	rf = p->scratch;
	rm = (u8 *)(rf + nr);

	for (u32 i = 0; i < nr; i++) {
		u64 ip = smp->chain[i];
		long j = (long)i + delta;
		u32 f;

		rm[i] = (u8)cpumode;
		rf[i] = 0;
		if (ip >= PERF_CONTEXT_MAX) {
			switch (ip) {
			case PERF_CONTEXT_HV:
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
				break;
			case PERF_CONTEXT_KERNEL:
				cpumode = PERF_RECORD_MISC_KERNEL;
				break;
			case PERF_CONTEXT_USER:
				cpumode = PERF_RECORD_MISC_USER;
				break;
			default:
				dst->raw_valid = false;
				return 0; /* a corrupt chain: perf drops all of it */
			}
			continue;
		}
		/* the file's chain is capped, the frames unwound from the user stack come on top */
		if (!(smp->unwound && i > smp->unwound_at)) {
			if (nfile == FILTER_MAX_STACK)
				continue;
			nfile++;
		}
		if (reuse && j >= 0 && j < (long)m->n && m->raw[j] == ip &&
		    m->modes[j] == cpumode && m->frames[j]) {
			f = m->frames[j];
		} else {
			f = session_resolve(&p->s, t, cpumode, ip);
			p->resolves++;
		}
		rf[i] = f;
		pos[n] = i;
		out[n++] = f;
	}
	memo_room(dst, nr);
	/* an empty chain (a dwarf sample of a kernel thread) has no arrays to copy */
	if (nr) {
		memcpy(dst->raw, smp->chain, (size_t)nr * 8);
		memcpy(dst->frames, rf, nr * sizeof(u32));
		memcpy(dst->modes, rm, nr);
	}
	dst->n = nr;
	dst->raw_valid = true;
	return n;
}

/* The position of the sample's own address in its raw chain (after the first context mark). */
static u32 leaf_position(const struct psample *smp)
{
	for (u32 i = 0; i < smp->nr_chain; i++)
		if (smp->chain[i] < PERF_CONTEXT_MAX)
			return smp->chain[i] == smp->ip ? i : EMPTY;
	return EMPTY;
}

/*
 * The functions the debug information places at a user leaf of an unwound chain, which its
 * chain lists (chain_inlines()); none for other leaves. Return: how many, in *fn.
 */
static u32 leaf_inlines(struct profile *p, struct thread *t, const struct psample *smp, u32 f,
			const struct srcline_func **fn)
{
	const struct frame *fr = session_frame(&p->s, f);
	const struct map *mp;

	*fn = NULL;
	if (smp->cpumode != PERF_RECORD_MISC_USER || !fr->sym || !fr->dso ||
	    fr->dso->kind != DSO_USER || !(mp = maps_find(t->maps, smp->ip)))
		return 0;
	return srcline_inlines(p->srclines, fr->dso, fr->sym, smp->ip - mp->start + mp->pgoff, fn);
}

/* Whether two leaves list the same functions: their chains are the same then. */
static bool same_funcs(const struct srcline_func *a, u32 na, const struct srcline_func *b, u32 nb)
{
	if (na != nb)
		return false;
	for (u32 i = 0; i < na && a != b; i++)
		if (a[i].sym != b[i].sym)
			return false;
	return true;
}

static bool memo_chain_matches(const struct memo *m, const struct psample *smp, u32 leaf_pos,
			       u32 ugen, u32 kgen, const struct srcline_func *leaf_fn, u32 leaf_nfn)
{
	if (!m->raw_valid || m->n != smp->nr_chain || m->ugen != ugen || m->kgen != kgen ||
	    m->leaf_pos != leaf_pos || !same_funcs(m->leaf_fn, m->leaf_nfn, leaf_fn, leaf_nfn))
		return false;
	/* a sample without a chain has none to compare (and memcmp takes no NULL) */
	if (!m->n)
		return true;
	if (leaf_pos == EMPTY)
		return !memcmp(m->raw, smp->chain, (size_t)m->n * 8);
	return !memcmp(m->raw, smp->chain, (size_t)leaf_pos * 8) &&
	       !memcmp(m->raw + leaf_pos + 1, smp->chain + leaf_pos + 1,
		       (size_t)(m->n - leaf_pos - 1) * 8);
}

/*
 * The row of a (frame, command, event) seen before, without building its key: a direct-mapped
 * cache in front of the rows' hash table. A frame is one symbol of one binary (or one address),
 * so with the thread or the CPU when the sort keys hold them it decides the row. The samples'
 * rows use it while the file is read, the rows of call-chain entries (--children) after.
 */
struct row_cache_entry {
	const char *comm, *srcline, *parent;
	u32 frame, entry;
	int attr, cpu, tid;
};

#define ROW_CACHE_BITS 15

/* The CPU and the thread as far as the rows tell them apart (0 when they do not). */
static inline int row_cpu(const struct report_opts *o, const struct psample *smp)
{
	return o->row_by_cpu ? smp->cpu : 0;
}

static inline int row_tid(const struct report_opts *o, const struct thread *t)
{
	return o->row_by_tid ? t->tid : 0;
}

/*
 * The row key of frame f under the sort keys: a sample's own row and a call-chain entry's row
 * (--children) differ only in the comm, tid and cpu they come with and in how an address without
 * a symbol is keyed (rel, level).
 */
static void row_key(struct profile *p, struct hist_entry *key, const char *comm, int tid, int cpu,
		    u32 f, const struct frame *fr, u64 rel, char level, const char *srcline,
		    const char *parent)
{
	const struct report_opts *o = p->o;

	memset(key, 0, sizeof(*key));
	for (u32 i = 0; i < o->nr_keys; i++) {
		switch (o->keys[i]) {
		case SORT_COMM:
			key->comm = comm;
			break;
		case SORT_PID:
		case SORT_TID:
			key->tid = tid;
			break;
		case SORT_DSO:
			key->dso_name = frame_dso_name(p, f);
			break;
		case SORT_SYM:
			key->dso_name = frame_dso_name(p, f);
			if (fr->sym) {
				key->resolved = true;
				key->sym_start = fr->sym->start;
				key->sym_end = fr->sym->end;
				key->inl = fr->sym->inlined ? fr->sym : NULL;
			} else {
				key->rel = rel;
				key->level = level;
			}
			break;
		case SORT_CPU:
			key->cpu = cpu;
			break;
		case SORT_SRCLINE:
			key->srcline = srcline;
			break;
		case SORT_PARENT:
			key->parent = parent;
			break;
		}
	}
}

static bool chain_caller(const struct report_opts *o);

/*
 * The sort key parent of a sample (perf's thread__resolve_callchain_sample()): the name of the
 * first function of its call chain, the sampled one included, whose name matches -p, walked in
 * the order the call graphs show; NULL (perf's [other]) for none, or without a call chain.
 */
static const char *sample_parent(struct profile *p, struct thread *t, const struct psample *smp)
{
	u16 cpumode = PERF_RECORD_MISC_USER;
	u32 frames[FILTER_MAX_STACK], n = 0;

	/* the entries callee first, each resolved in the mode of the context mark before it */
	for (u32 i = 0; i < smp->nr_chain && n < FILTER_MAX_STACK; i++) {
		u64 ip = smp->chain[i];

		if (ip < PERF_CONTEXT_MAX)
			frames[n++] = session_resolve(&p->s, t, cpumode, ip);
		else if (ip == PERF_CONTEXT_KERNEL)
			cpumode = PERF_RECORD_MISC_KERNEL;
		else if (ip == PERF_CONTEXT_USER)
			cpumode = PERF_RECORD_MISC_USER;
		else if (ip == PERF_CONTEXT_HV)
			cpumode = PERF_RECORD_MISC_HYPERVISOR;
		else
			return NULL; /* a corrupt chain: perf drops all of it */
	}
	for (u32 i = 0; i < n; i++) {
		u32 f = frames[chain_caller(p->o) ? n - 1 - i : i];
		const struct frame *fr = session_frame(&p->s, f);

		if (!fr->sym)
			continue;
		if (f >= p->parent_match_len) {
			u32 len = (f + 1) * 2;

			p->parent_match = xrealloc(p->parent_match, len);
			memset(p->parent_match + p->parent_match_len, 0, len - p->parent_match_len);
			p->parent_match_len = len;
		}
		if (!p->parent_match[f])
			p->parent_match[f] =
			    regexec(p->parent_re, sym_name(fr->sym), 0, NULL, 0) ? 2 : 1;
		if (p->parent_match[f] == 1)
			return session_intern(&p->s, sym_name(fr->sym), sym_namelen(fr->sym))->str;
	}
	return NULL;
}

/*
 * The source line of a sample's own address (the sort key srcline): its map-relative address,
 * found as the frame's was, since a frame stands for a whole symbol.
 */
static u64 frame_rel(struct profile *p, struct thread *t, u16 cpumode, u64 ip,
		     const struct frame *fr)
{
	const struct maps *ms = cpumode == PERF_RECORD_MISC_KERNEL ? p->s.kmaps : t->maps;
	u32 lo = 0, hi = ms->nr;

	while (fr->dso && lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct map *m = &ms->v[mid];

		if (ip < m->start)
			hi = mid;
		else if (ip >= m->end)
			lo = mid + 1;
		else
			return m->identity ? ip : ip - m->start + m->pgoff;
	}
	return ip;
}

static const char *sample_srcline(struct profile *p, struct thread *t, const struct psample *smp,
				  const struct frame *fr)
{
	return srcline_get(p->srclines, fr->dso, fr->sym,
			   frame_rel(p, t, smp->cpumode, smp->ip, fr));
}

static u64 loc_hash(u32 frame, u64 ip)
{
	return hash_mix64(ip ^ (u64)frame << 40 ^ frame);
}

static u64 loc_hash_at(const void *ctx, u32 i)
{
	const struct profile *p = ctx;

	return loc_hash(p->locs[i].frame, p->locs[i].ip);
}

static bool loc_eq(const void *ctx, u32 i, const void *key)
{
	const struct profile *p = ctx;
	const struct chain_loc *k = key;

	return p->locs[i].frame == k->frame && p->locs[i].ip == k->ip;
}

/*
 * The place of a chain entry with -g address, which perf's graphs tell apart by address (of the
 * same binary: match_chain_dso_addresses()) and show with its source line: frame at ip, whose
 * line is line, or when line is NULL the one the line tables give (perf's callchain_srcline()).
 */
static u32 chain_loc(struct profile *p, struct thread *t, u16 cpumode, u32 frame, u64 ip,
		     const char *line, bool have_line)
{
	struct chain_loc key = {frame, ip, line};
	u32 slot;
	int64_t i;

	if (!p->nr_locs)
		p->nr_locs = 1; /* 0 is no place */
	if (!hash_index_reserve(&p->loc_ix, loc_hash_at, p))
		die("out of memory");
	slot = hash_index_find(&p->loc_ix, loc_hash(frame, ip), loc_eq, p, &key, &i);
	if (i >= 0)
		return (u32)i;
	if (!have_line) {
		const struct frame *fr = session_frame(&p->s, frame);

		key.line = fr->dso ? srcline_chain_get(p->srclines, fr->dso, fr->sym,
						       frame_rel(p, t, cpumode, ip, fr))
				   : NULL;
	}
	if (p->nr_locs >= p->cap_locs) {
		p->cap_locs = p->cap_locs ? 2 * p->cap_locs : 1024;
		p->locs = xrealloc(p->locs, p->cap_locs * sizeof(*p->locs));
	}
	p->locs[p->nr_locs] = key;
	hash_index_set(&p->loc_ix, slot, p->nr_locs);
	return p->nr_locs++;
}

/* Room for n frames and their places in p->xframes and p->xlocs. */
static void xframes_room(struct profile *p, u32 n)
{
	if (n <= p->xframes_cap)
		return;
	p->xframes_cap = 2 * n + 64;
	p->xframes = xrealloc(p->xframes, p->xframes_cap * sizeof(u32));
	p->xlocs = xrealloc(p->xlocs, p->xframes_cap * sizeof(u32));
}

/* With -g address, the places of a chain's frames (pos: where each is in the raw chain). */
static void chain_locs(struct profile *p, struct thread *t, const struct psample *smp,
		       const u32 *frames, const u32 *pos, u32 n)
{
	const u8 *modes = (const u8 *)(p->scratch + smp->nr_chain);

	xframes_room(p, n);
	for (u32 i = 0; i < n; i++)
		p->xlocs[i] = chain_loc(p, t, modes[pos[i]], frames[i], smp->chain[pos[i]], NULL,
					false);
}

/* The slot of key k (its entry unused) in the row cache. */
static inline struct row_cache_entry *row_cache_slot(struct profile *p,
						     const struct row_cache_entry *k)
{
	u64 h = (u64)k->frame << 32 ^ (u64)(uintptr_t)k->comm ^ (u64)(u32)k->attr << 24 ^
		(u64)(u32)k->cpu << 40 ^ (u64)(u32)k->tid << 8;

	return &p->row_cache[(u32)hash_mix64(h) & ((1u << ROW_CACHE_BITS) - 1)];
}

/* Whether slot rc holds the row of key k. */
static inline bool row_cache_holds(const struct row_cache_entry *rc,
				   const struct row_cache_entry *k)
{
	return rc->frame == k->frame && rc->comm == k->comm && rc->attr == k->attr &&
	       rc->cpu == k->cpu && rc->tid == k->tid && rc->srcline == k->srcline &&
	       rc->parent == k->parent;
}

static bool children_caller(const struct report_opts *o);

/* --max-stack and --hide-unresolved on a sample's frames, in the order the view shows them. */
static u32 sample_filter_chain(struct profile *p, const struct psample *smp, u32 *frames, u32 *pos,
			       u32 n, u32 *kept_kernel)
{
	const struct report_opts *o = p->o;
	bool caller = o->children ? children_caller(o) : o->caller;

	return filter_sample_chain(&o->filter, &p->s, smp, caller, frames, pos, n, kept_kernel);
}

/*
 * The inlined functions of a dwarf sample's unwound user frames, as perf 6.1 lists them
 * (append_inlines() of its unwinder's entries): each frame whose address the debug information
 * covers becomes the functions there, innermost first, the last one the function that holds
 * them; a function whose name is not its symbol's is an inlined one, "(inlined)" (so is the
 * holder where the debug information names it otherwise). Kernel frames and frame-pointer
 * chains keep one entry per address. The frames are those the filters kept, the first nk of
 * them the kernel's, pos where each is in the raw chain. Return: the frames in p->xframes
 * (with -g address their places in p->xlocs), and how many.
 */
static u32 chain_inlines(struct profile *p, struct thread *t, const struct psample *smp,
			 const u32 *frames, const u32 *pos, u32 n, u32 nk)
{
	u32 m = 0;

	for (u32 i = 0; i < n; i++) {
		const struct frame *fr = session_frame(&p->s, frames[i]);
		const struct srcline_func *fn;
		const struct map *mp;
		u64 ip = smp->chain[pos[i]];
		u32 k = 0;

		if (i >= nk && fr->sym && fr->dso && fr->dso->kind == DSO_USER &&
		    (mp = maps_find(t->maps, ip)))
			k = srcline_inlines(p->srclines, fr->dso, fr->sym,
					    ip - mp->start + mp->pgoff, &fn);
		xframes_room(p, m + (k ? k : 1));
		if (!k) {
			if (p->addr_key)
				p->xlocs[m] = chain_loc(p, t, i < nk ? PERF_RECORD_MISC_KERNEL
								  : PERF_RECORD_MISC_USER,
							frames[i], ip, NULL, false);
			p->xframes[m++] = frames[i];
			continue;
		}
		for (u32 j = 0; j < k; j++) {
			u32 f = fn[j].sym == fr->sym
					? frames[i]
					: session_frame_of_sym(&p->s, fr->dso, fn[j].sym, fr->ip,
							       fr->rel);

			if (p->addr_key)
				p->xlocs[m] = chain_loc(p, t, PERF_RECORD_MISC_USER, f, ip,
							fn[j].line, true);
			p->xframes[m++] = f;
			fr = session_frame(&p->s, frames[i]); /* the frames may have moved */
		}
	}
	return m;
}

static void add_sample(struct session *s, struct thread *t, const struct psample *smp, void *arg)
{
	struct profile *p = arg;
	const struct report_opts *o = p->o;
	struct hists *hs;
	struct hist_entry key, *e;
	const struct frame *fr;
	u32 f, *frames, *locs = NULL, n, nk, leaf_pos = EMPTY, ugen, kgen, leaf_nfn = 0, skip;
	const struct srcline_func *leaf_fn = NULL;
	struct memo_set *ms = t->memo;
	struct memo_slot *sl = NULL;
	const struct memo *prev;
	struct memo *m;
	const char *src = NULL, *par = NULL;

	skip = filter_sample_skip(o, s, t, smp, &f);
	if (skip & (FILTER_SKIP_OUTSIDE | FILTER_SKIP_UNRESOLVED))
		return;
	hs = event_hists(p, smp->attr);
	/* the one sample count: what the sample stands for (many when counted in the kernel) */
	hs->nr_samples += smp->count;
	hs->nr_records++;
	hs->total_period += smp->period;
	if (f & FRAME_UNRESOLVED) {
		f &= ~FRAME_UNRESOLVED;
		fr = session_frame(s, f);
		if (fr->dso)
			fr->dso->unresolved += smp->count;
		else
			p->unresolved_nomap += smp->count;
		p->unresolved += smp->count;
	}
	if (skip) {
		/* a row hidden: its samples still count in the event's total */
		p->filtered += smp->count;
		hs->nr_filtered += smp->count;
		hs->filtered_period += smp->period;
		return;
	}
	p->samples_shown += smp->count;
	if (p->srcline_key)
		src = sample_srcline(p, t, smp, session_frame(s, f));
	if (p->parent_re)
		par = sample_parent(p, t, smp);
	for (u32 k = 0; ms && k < MEMO_SLOTS; k++) {
		struct memo_slot *x = &ms->slot[k];

		if (x->leaf == f && x->used && x->attr == smp->attr && x->comm == t->comm &&
		    x->cpu == smp->cpu && x->cpumode == smp->cpumode && x->srcline == src &&
		    x->parent == par) {
			sl = x;
			break;
		}
	}
	/* the raw chain of the thread's previous sample, whose resolved entries can be reused */
	prev = ms ? ms->slot[ms->last].m : NULL;
	if (sl) {
		ms->last = (u32)(sl - ms->slot);
		/* counted in the slot, added to the row later (memo_flush()) */
		sl->row_samples += smp->count;
		sl->row_period += smp->period;
		e = NULL;
	} else {
		struct row_cache_entry rk = {
			.comm = t->comm, .srcline = src, .parent = par, .frame = f,
			.attr = smp->attr, .cpu = row_cpu(o, smp), .tid = row_tid(o, t),
		};
		struct row_cache_entry *rc = row_cache_slot(p, &rk);

		if (row_cache_holds(rc, &rk)) {
			e = &hs->v[rc->entry];
			goto found;
		}
		fr = session_frame(s, f);
		row_key(p, &key, t->comm, t->tid, smp->cpu, f, fr, fr->rel, fr->level, src, par);
		e = hists_findnew(p, hs, &key);
		p->row_lookups++;
		e->attr = smp->attr;
		rk.entry = (u32)(e - hs->v);
		*rc = rk;
	found:
		if (!e->samples) {
			e->frame = f;
			e->thread = t;
		}
		e->samples += smp->count;
		e->period += smp->period;
		entry_add_mode(e, smp->cpumode, smp->period);
		/* when the previous sample's slot is the one taken, its raw chain is gone */
		sl = memo_take(p, t);
		sl->attr = smp->attr;
		sl->comm = t->comm;
		sl->leaf = f;
		sl->cpu = smp->cpu;
		sl->cpumode = smp->cpumode;
		sl->srcline = src;
		sl->parent = par;
		sl->entry = (u32)(e - hs->v);
	}
	if (!p->want_chains)
		return;
	m = sl->m;
	if (!smp->chain_recorded) {
		/* no callchain recorded: the sample's own frame, for folded stacks */
		if (!p->want_folded)
			return;
		if (sl->chain == EMPTY) {
			sl->chain = chain_add(p, hs->v[sl->entry].gid, t->comm, true, &f, NULL, 1,
					      smp->period, smp->count);
		} else {
			sl->chain_samples += smp->count;
			sl->chain_period += smp->period;
		}
		return;
	}
	/*
	 * The sample's own address decides its chain's first entries with -g address, and in an
	 * unwound chain the inlined functions there: those are compared, not the address.
	 */
	leaf_pos = p->addr_key ? EMPTY : leaf_position(smp);
	if (p->inlines && smp->unwound && leaf_pos != EMPTY)
		leaf_nfn = leaf_inlines(p, t, smp, f, &leaf_fn);
	ugen = t->maps->gen;
	kgen = s->kmaps->gen;
	if (sl->chain != EMPTY &&
	    memo_chain_matches(m, smp, leaf_pos, ugen, kgen, leaf_fn, leaf_nfn)) {
		sl->chain_samples += smp->count;
		sl->chain_period += smp->period;
		p->memo_hits++;
		return;
	}
	memo_flush_chain(p, sl);
	if (smp->nr_chain > p->cframes_cap) {
		p->cframes_cap = 2 * smp->nr_chain + 64;
		p->cframes = xrealloc(p->cframes, 2 * p->cframes_cap * sizeof(u32));
	}
	frames = p->cframes;
	n = chain_frames(p, t, smp, frames, frames + p->cframes_cap, prev, m);
	n = sample_filter_chain(p, smp, frames, frames + p->cframes_cap, n, &nk);
	if (p->inlines && smp->unwound) {
		n = chain_inlines(p, t, smp, frames, frames + p->cframes_cap, n, nk);
		frames = p->xframes;
		locs = p->xlocs;
	} else if (p->addr_key) {
		chain_locs(p, t, smp, frames, frames + p->cframes_cap, n);
		locs = p->xlocs;
	}
	sl->chain = chain_add(p, hs->v[sl->entry].gid, t->comm, false, frames, locs, n, smp->period,
			      smp->count);
	/* resolving may have loaded the kernel, which changes its maps: take the gens now */
	m->ugen = t->maps->gen;
	m->kgen = s->kmaps->gen;
	m->leaf_pos = leaf_pos;
	m->leaf_fn = leaf_fn;
	m->leaf_nfn = leaf_nfn;
}

/* ---------------------------------------------------------------------------------------- */
/* Trees */

static u32 node_new(struct profile *p, u32 parent, u32 key)
{
	struct cnode *n;
	u32 id;

	if (p->nr_nodes == p->cap_nodes) {
		p->cap_nodes = p->cap_nodes ? 2 * p->cap_nodes : 4096;
		p->nodes = xrealloc(p->nodes, p->cap_nodes * sizeof(*p->nodes));
	}
	id = p->nr_nodes++;
	n = &p->nodes[id];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->parent = parent;
	if (parent) {
		n->next_sibling = p->nodes[parent].first_child;
		p->nodes[parent].first_child = id;
	}
	return id;
}

static u32 node_hash(u32 parent, u32 key)
{
	return (u32)hash_mix64((u64)parent << 32 | key);
}

static void node_table_grow(struct profile *p)
{
	u32 mask = p->node_mask ? 2 * p->node_mask + 1 : 4095;

	free(p->node_table);
	p->node_table = xmalloc((mask + 1) * sizeof(u32));
	memset(p->node_table, 0, (mask + 1) * sizeof(u32));
	p->node_mask = mask;
	for (u32 id = 1; id < p->nr_nodes; id++) {
		u32 i;

		if (!p->nodes[id].parent)
			continue;
		for (i = node_hash(p->nodes[id].parent, p->nodes[id].key) & mask; p->node_table[i];
		     i = (i + 1) & mask)
			;
		p->node_table[i] = id;
	}
}

static u32 node_child(struct profile *p, u32 parent, u32 key)
{
	u32 i, id;

	if ((p->nr_nodes + 1) * 2 > p->node_mask)
		node_table_grow(p);
	for (i = node_hash(parent, key) & p->node_mask; (id = p->node_table[i]);
	     i = (i + 1) & p->node_mask)
		if (p->nodes[id].parent == parent && p->nodes[id].key == key)
			return id;
	id = node_new(p, parent, key);
	p->node_table[i] = id;
	return id;
}

/*
 * The node key of frame f in a call graph: perf's graphs tell inlined functions apart by name
 * only (match_chain()), so those of one name share the frame of the first.
 */
static u32 graph_key(struct profile *p, u32 f)
{
	const struct frame *fr;

	if (p->addr_key)
		return f; /* a place: perf compares those by address */
	fr = session_frame(&p->s, f);
	return fr->sym && fr->sym->inlined ? srcline_inline_canon(fr->sym)->frame : f;
}

static void tree_add(struct profile *p, u32 root, const u32 *keys, u32 n, bool reverse, u64 period,
		     u64 count)
{
	bool graph = root != p->folded_root;
	u32 cur = root;

	p->nodes[root].cumul += period;
	p->nodes[root].count += count;
	for (u32 i = 0; i < n; i++) {
		u32 k = keys[reverse ? n - 1 - i : i];

		cur = node_child(p, cur, graph ? graph_key(p, k) : k);
		p->nodes[cur].cumul += period;
		p->nodes[cur].count += count;
	}
	p->nodes[cur].hit += period;
	p->nodes[cur].count_self += count;
}

static u32 chain_rows(struct profile *p, struct hists *hs, u32 self_idx, const struct chain_rec *r,
		      u32 *rows, u32 *pos);

/*
 * The call graphs of the children view (perf's callchain_append() of the cumulative entries):
 * a row's own samples add their whole chain, and every other row a chain passes through adds
 * the part of it from that row's entry to the sampled function, in the view's order.
 */
static void children_trees(struct profile *p, struct hist_entry *self, const struct chain_rec *r)
{
	const struct report_opts *o = p->o;
	struct hists *hs = &p->ev[self->attr];
	bool caller = children_caller(o);
	u32 *rows = p->tree_buf, *pos = rows + p->max_chain + 2, *path = pos + p->max_chain + 2;
	u32 n = r->n & 0x7fffffffu, nr;
	u64 min_hit = hists_min_chain_hit(o, hs);
	const u32 *keys = chain_keys(p, r);

	if (o->chain_mode == CHAIN_FRACTAL || self->acc_period >= min_hit) {
		if (!self->chain_root)
			self->chain_root = node_new(p, 0, 0);
		tree_add(p, self->chain_root, keys, n, caller, r->period, r->count);
	}
	nr = chain_rows(p, hs, (u32)(self - hs->v), r, rows, pos);
	for (u32 i = 0; i < nr; i++) {
		struct hist_entry *e = &hs->v[rows[i]];
		u32 m = 0;

		if (o->chain_mode != CHAIN_FRACTAL && e->acc_period < min_hit)
			continue;
		/* from the entry to the sampled function (caller), or out to the root (callee) */
		if (caller)
			for (u32 k = pos[i] + 1; k-- > 0;)
				path[m++] = keys[k];
		else
			for (u32 k = pos[i]; k < n; k++)
				path[m++] = keys[k];
		if (!e->chain_root)
			e->chain_root = node_new(p, 0, 0);
		tree_add(p, e->chain_root, path, m, false, r->period, r->count);
	}
}

void profile_chains_build(struct profile *p)
{
	const struct report_opts *o = p->o;
	bool folded = o->folded || o->flamegraph;
	struct hist_entry *e;
	u32 *names;
	size_t off = 0;

	if (p->nr_nodes)
		return;
	p->tree_buf = xmalloc(3 * (p->max_chain + 2) * sizeof(u32));
	names = p->tree_buf;
	node_new(p, 0, 0); /* node 0: nothing */
	p->folded_root = node_new(p, 0, 0);
	while (off < p->arena_len) {
		const struct chain_rec *r = chain_at(p, (u32)off);
		u32 n = r->n & 0x7fffffffu, m = 0;
		bool synthetic = r->n & 0x80000000u;
		char tmp[4096];

		off += chain_words(p, n);
		e = p->by_gid[r->gid];
		/*
		 * A graph shows nothing of a row below the threshold (every branch is smaller
		 * than the row), except in fractal mode: such rows get no tree.
		 */
		if (!synthetic && n && o->chain_mode != CHAIN_NONE && o->children) {
			children_trees(p, e, r);
		} else if (!synthetic && n && o->chain_mode != CHAIN_NONE &&
			   (o->chain_mode == CHAIN_FRACTAL ||
			    e->period >= hists_min_chain_hit(o, &p->ev[e->attr]))) {
			if (!e->chain_root)
				e->chain_root = node_new(p, 0, 0);
			tree_add(p, e->chain_root, chain_keys(p, r), n, o->caller, r->period,
				 r->count);
		}
		if (!folded)
			continue;
		/* the folded tree: command, then the frames root first, by name */
		snprintf(tmp, sizeof(tmp), "%s", r->comm);
		for (char *c = tmp; *c; c++)
			if (*c == ' ' || *c == ';')
				*c = *c == ' ' ? '_' : ':';
		names[m++] = session_intern(&p->s, tmp, strlen(tmp))->id;
		for (u32 j = 0; j < n; j++)
			names[m++] = frame_folded_id(p, r->frames[n - 1 - j]);
		tree_add(p, p->folded_root, names, m, false, r->period, r->count);
	}
}

/* ---------------------------------------------------------------------------------------- */

static struct dso **unresolved_sorted(struct profile *p, u32 *nr)
{
	struct dso *dso, **v;
	u32 n = 0;

	for (dso = p->s.dsos.first; dso; dso = dso->next)
		n += dso->unresolved ? 1 : 0;
	v = xmalloc((n ? n : 1) * sizeof(*v));
	n = 0;
	for (dso = p->s.dsos.first; dso; dso = dso->next)
		if (dso->unresolved)
			v[n++] = dso;
	/* most samples first (an insertion sort: there are few) */
	for (u32 i = 1; i < n; i++) {
		struct dso *x = v[i];
		u32 j;

		for (j = i; j > 0 && v[j - 1]->unresolved < x->unresolved; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	*nr = n;
	return v;
}

struct dso **profile_unresolved_dsos(struct profile *p, u32 *nr)
{
	return unresolved_sorted(p, nr);
}

#define UNRESOLVED_SHOWN 4

char *profile_unresolved_line(struct profile *p, bool header)
{
	struct dso **v;
	u32 nr, bins;
	size_t len, cap = 512;
	char *out;

	if (!p->unresolved)
		return NULL;
	v = unresolved_sorted(p, &nr);
	bins = nr + (p->unresolved_nomap ? 1 : 0);
	out = xmalloc(cap);
	/* the header's line must not start with a number of samples: that line is the total */
	len = (size_t)snprintf(out, cap,
			       header ? "Could not resolve %" PRIu64 " samples in %u binar%s:"
				      : "%" PRIu64 " samples in %u binar%s could not be resolved:",
			       p->unresolved, bins, bins == 1 ? "y" : "ies");
	for (u32 i = 0; i < nr && i < UNRESOLVED_SHOWN; i++) {
		char item[4400];
		int n = snprintf(item, sizeof(item), "%s %s (%s, %" PRIu64 ")", i ? "," : "",
				 v[i]->name, dso_why_unresolved(v[i]), v[i]->unresolved);

		if (n < 0)
			continue;
		if (len + (size_t)n + 64 > cap) {
			cap = (len + (size_t)n + 64) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + len, item, (size_t)n + 1);
		len += (size_t)n;
	}
	if (p->unresolved_nomap)
		len += (size_t)snprintf(out + len, cap - len, "%s no map (%" PRIu64 ")",
					nr ? "," : "", p->unresolved_nomap);
	if (nr > UNRESOLVED_SHOWN)
		snprintf(out + len, cap - len, " and %u more (--json lists them all)",
			 nr - UNRESOLVED_SHOWN);
	free(v);
	return out;
}

/*
 * Asked after reading: pipe mode declares events as it goes. The profile view asks it too, to
 * refuse -g on a file without chains.
 */
bool file_has_chains(struct pd_reader *r)
{
	for (u32 i = 0; i < pd_reader_nr_attrs(r); i++)
		if (pd_reader_attr(r, i)->sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* The row of frame f in a call chain whose sample's own row is self (perf's cumulative entry). */
static u32 chain_entry_row(struct profile *p, struct hists *hs, const struct hist_entry *self,
			   const char *comm, u32 f, char level)
{
	/*
	 * The row cache, emptied of the samples' rows (children_add()): a frame with the comm,
	 * event, CPU, thread and parent of the row a chain comes from decides the row of its entry
	 * (the level is not compared, as key_equal() does not).
	 */
	struct row_cache_entry rk = {
		.comm = comm, .parent = self->parent, .frame = f,
		.attr = self->attr, .cpu = self->cpu, .tid = self->tid,
	};
	struct row_cache_entry *rc = row_cache_slot(p, &rk);
	const struct frame *fr;
	struct hist_entry key, *e;

	if (row_cache_holds(rc, &rk))
		return rc->entry;
	fr = session_frame(&p->s, f);
	/* perf keys a chain entry without a symbol by its address, not the map's offset */
	/* perf's cumulative entries take the parent of the sample they come from */
	row_key(p, &key, comm, self->tid, self->cpu, f, fr, fr->ip, level, NULL, self->parent);
	e = hists_findnew(p, hs, &key);
	if (!e->frame) {
		/* new: a row that only call chains pass through */
		e->frame = f;
		e->thread = self->thread;
		e->attr = self->attr;
	}
	rk.entry = (u32)(e - hs->v);
	*rc = rk;
	return rk.entry;
}

/* The order perf's children view walks and shows chains in: caller, unless -g callee said. */
static bool children_caller(const struct report_opts *o)
{
	return o->order_given ? o->caller : true;
}

/* The order the call graphs show chains in (perf's callchain_param.order). */
static bool chain_caller(const struct report_opts *o)
{
	return o->children ? children_caller(o) : o->caller;
}

/*
 * The distinct rows that the entries of chain r fall in, other than its own row self (index
 * self_idx), each with the chain position of its first entry in the order perf walks the chain
 * (iter_add_next_cumulative_entry(): from the outermost caller in, in the children view's
 * caller order); an entry without a map keeps the level of the last one before it that had a
 * map, or the sample's own (fill_callchain_info() leaves it as it was). Return: how many, in
 * rows[] and pos[].
 */
static u32 chain_rows(struct profile *p, struct hists *hs, u32 self_idx, const struct chain_rec *r,
		      u32 *rows, u32 *pos)
{
	const struct hist_entry self = hs->v[self_idx];
	bool caller = children_caller(p->o);
	u32 n = r->n & 0x7fffffffu, nr = 0;
	char level = session_frame(&p->s, self.frame)->level;

	for (u32 i = 0; i < n; i++) {
		u32 k = caller ? n - 1 - i : i, row, m;
		const struct frame *fr = session_frame(&p->s, r->frames[k]);

		if (fr->dso)
			level = fr->level;
		row = chain_entry_row(p, hs, &self, session_comm_final(&p->s, r->comm),
				      r->frames[k], level);
		if (row == self_idx)
			continue;
		for (m = 0; m < nr && rows[m] != row; m++)
			;
		if (m < nr)
			continue;
		rows[nr] = row;
		pos[nr++] = k;
	}
	return nr;
}

/*
 * --children, as perf's cumulative entries count (hist.c, iter_add_next_cumulative_entry()):
 * every row gets the period of its own samples, and every other distinct row that the entries of
 * a sample's call chain fall in gets the sample's period once, however often the chain passes it
 * (recursion). Done once per distinct chain with its counts, after the file is read.
 */
static void children_add(struct profile *p)
{
	/* rows by gid, as (event, index): the rows added here move the arrays */
	u32 *ev_of = xmalloc((p->next_gid ? p->next_gid : 1) * 2 * sizeof(u32));
	u32 *rows = xmalloc(2 * (p->max_chain + 2) * sizeof(u32)), *pos = rows + p->max_chain + 2;
	size_t off = 0;

	/* the samples' rows were keyed by the map's offset, and rename_comms() moved rows */
	memset(p->row_cache, 0, (1u << ROW_CACHE_BITS) * sizeof(*p->row_cache));
	for (u32 i = 0; i < p->nr_ev; i++) {
		for (u32 j = 0; j < p->ev[i].nr; j++) {
			p->ev[i].v[j].acc_period = p->ev[i].v[j].period;
			p->ev[i].v[j].acc_samples = p->ev[i].v[j].samples;
			ev_of[2 * p->ev[i].v[j].gid] = i;
			ev_of[2 * p->ev[i].v[j].gid + 1] = j;
		}
	}
	while (off < p->arena_len) {
		const struct chain_rec *r = chain_at(p, (u32)off);
		u32 n = r->n & 0x7fffffffu, nr;
		struct hists *hs;

		off += chain_words(p, n);
		if (r->n & 0x80000000u)
			continue; /* no call chain: the sample counts in its own row only */
		hs = &p->ev[ev_of[2 * r->gid]];
		nr = chain_rows(p, hs, ev_of[2 * r->gid + 1], r, rows, pos);
		for (u32 k = 0; k < nr; k++) {
			hs->v[rows[k]].acc_period += r->period;
			hs->v[rows[k]].acc_samples += r->count;
		}
	}
	free(ev_of);
	free(rows);
}

/*
 * Rows of a thread's own ":tid" take the name it stands for (session_comm_final(): the name of
 * a later COMM, as perf report overrides the comm those samples point to, or the shared ":tid"),
 * and rows that become equal merge: the first keeps its place, the chains of the others move to
 * it. The chains keep the name of their time, which is what perf script prints and so what
 * --folded shows; their rows under --children are looked up with the final name.
 */
static void rename_comms(struct profile *p)
{
	u32 *gid_to = NULL;
	size_t off = 0;

	if (!p->s.nr_own_comms)
		return;
	for (u32 k = 0; k < p->nr_ev; k++) {
		struct hists *hs = &p->ev[k];
		struct hist_entry *v = hs->v;
		u32 nr = hs->nr;
		bool renamed = false;

		for (u32 i = 0; i < nr && !renamed; i++)
			renamed = session_comm_final(&p->s, v[i].comm) != v[i].comm;
		if (!renamed)
			continue;
		if (!gid_to) {
			gid_to = xmalloc((p->next_gid ? p->next_gid : 1) * sizeof(*gid_to));
			for (u32 g = 0; g < p->next_gid; g++)
				gid_to[g] = g;
		}
		/* Insert the rows again, renamed, into an empty table. */
		hs->v = NULL;
		hs->nr = hs->cap = 0;
		free(hs->table);
		hs->table = NULL;
		hs->mask = 0;
		for (u32 i = 0; i < nr; i++) {
			struct hist_entry key = v[i], *e;
			u32 gid = p->next_gid;

			key.comm = session_comm_final(&p->s, key.comm);
			e = hists_findnew(p, hs, &key);
			if (p->next_gid != gid) {
				/* new: it is this row, with its own number */
				p->next_gid = gid;
				e->gid = v[i].gid;
				continue;
			}
			e->period += v[i].period;
			e->period_sys += v[i].period_sys;
			e->period_us += v[i].period_us;
			e->samples += v[i].samples;
			gid_to[v[i].gid] = e->gid;
		}
		free(v);
	}
	while (gid_to && off < p->arena_len) {
		struct chain_rec *r = chain_at(p, (u32)off);

		off += chain_words(p, r->n & 0x7fffffffu);
		r->gid = gid_to[r->gid];
	}
	free(gid_to);
}

/*
 * The sort keys among the -F fields group the rows too, after those of --sort (none when -F
 * alone chose the columns, as perf takes its keys from them then).
 */
static void fields_keys(struct report_opts *o)
{
	if (o->nr_fields && o->fields_strict && !o->sort_given)
		o->nr_keys = 0;
	/* -p adds the sort key parent after those of --sort, as perf's setup_sorting() */
	for (u32 k = 0; o->parent && k <= o->nr_keys && k < SORT_MAX; k++)
		if (k == o->nr_keys || o->keys[k] == SORT_PARENT) {
			if (k == o->nr_keys)
				o->keys[o->nr_keys++] = SORT_PARENT;
			break;
		}
	o->nr_sort_keys = o->nr_keys;
	for (u32 i = 0; i < o->nr_fields; i++) {
		u32 k;

		if (o->fields[i] >= FIELD_OVERHEAD)
			continue;
		for (k = 0; k < o->nr_keys && o->keys[k] != (enum sort_key)o->fields[i]; k++)
			;
		if (k == o->nr_keys && k < SORT_MAX)
			o->keys[o->nr_keys++] = (enum sort_key)o->fields[i];
	}
	if (o->hierarchy && o->children) {
		/* perf's hierarchy has no children view; the chains keep that view's order */
		o->children = false;
		if (!o->order_given)
			o->caller = true;
	}
}

/* Whether some event of the file records user stacks to unwind (dwarf call graphs). */
static bool file_has_user_stacks(struct pd_reader *r)
{
	const u64 dwarf = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	for (u32 i = 0; i < pd_reader_nr_attrs(r); i++)
		if ((pd_reader_attr(r, i)->sample_type & dwarf) == dwarf)
			return true;
	return false;
}

/*
 * A user binary's symbols were loaded (maybe on another thread, before the samples in it come
 * up): open its line tables ahead where they will be read, for every binary whose frames are
 * shown: -g address, the unwound chains of dwarf samples with their inlined functions (known
 * from the file's events, or in a pipe from the first such sample), --sort srcline without
 * chains (only the samples' own addresses are resolved then). Otherwise some binaries would
 * have debug files opened that never were.
 */
static void dso_loaded(void *arg, struct dso *dso)
{
	struct profile *p = arg;

	if (p->addr_key || (p->inlines && (p->user_stacks || p->s.unwind_tried)) ||
	    (p->srcline_key && !p->want_chains))
		srclines_prefetch(p->srclines, dso);
}

int profile_run(struct profile *p, struct report *rep, struct report_opts *o)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->o = o;
	fields_keys(o);
	for (u32 i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == SORT_SRCLINE && !srclines_available())
			return error("the sort key srcline needs prec built with libdw (elfutils)");
	session_init(&p->s, rep, add_sample, p);
	/* pipe mode tells its events as it goes: whether they have chains is known then */
	p->want_folded = o->folded || o->flamegraph;
	p->want_chains = p->want_folded || o->chain_mode != CHAIN_NONE || o->children;
	p->s.want_user_stacks = p->want_chains;
	p->s.max_stack = o->filter.max_stack;
	buckets_grow(p);
	/* frame 0 is no frame: an empty entry never matches */
	p->row_cache = xcalloc(1u << ROW_CACHE_BITS, sizeof(*p->row_cache));
	for (u32 i = 0; i < o->nr_keys; i++) {
		if (o->keys[i] == SORT_SRCLINE && !p->srclines) {
			p->srclines = srclines_new();
			p->srcline_key = true;
		}
		if (o->keys[i] == SORT_PARENT && !p->parent_re) {
			p->parent_re = xmalloc(sizeof(*p->parent_re));
			/* report.c checked -p; perf's default pattern compiles */
			if (regcomp(p->parent_re, o->parent ? o->parent : "^sys_|^do_page_fault",
				    REG_EXTENDED)) {
				free(p->parent_re);
				p->parent_re = NULL;
				return error("-p: '%s' is not a regular expression", o->parent);
			}
		}
		if (o->keys[i] == SORT_CPU)
			o->row_by_cpu = true;
		if (o->keys[i] == SORT_PID || o->keys[i] == SORT_TID)
			o->row_by_tid = true;
	}
	/* perf adds inlined functions to unwound chains unless --no-inline */
	p->inlines = p->want_chains && !o->no_inline && srclines_available();
	p->addr_key = p->want_chains && o->chain_address;
	if ((p->inlines || p->addr_key) && !p->srclines)
		p->srclines = srclines_new();
	p->user_stacks = p->want_chains && file_has_user_stacks(p->s.r);
	if (p->srclines)
		dsos_on_load(&p->s.dsos, dso_loaded, p);
	ret = session_process(&p->s);
	if (ret)
		return ret;
	memo_flush_all(p);
	rename_comms(p);
	debug(2,
	      "%" PRIu64 " samples, %" PRIu64 " rows looked up, %" PRIu64
	      " with their thread's previous chain, %u distinct chains (%zu bytes), %u frames, "
	      "%" PRIu64 " addresses resolved, %" PRIu64 " the slow way",
	      p->s.nr_samples, p->row_lookups, p->memo_hits, p->nr_chains, p->arena_len * 8,
	      p->s.nr_frames, p->resolves, p->s.fcache_misses);
	/* as perf: without call chains in the file there is nothing to add up */
	if (o->children && !file_has_chains(p->s.r))
		o->children = false;
	for (u32 i = 0; i < o->nr_sort_keys; i++)
		if (o->keys[i] == SORT_PARENT && !file_has_chains(p->s.r))
			return error("%s: the sort key parent looks in call chains, but the "
				     "samples have none (record with -g)",
				     o->input);
	if (o->children && p->srcline_key)
		return error("%s: prec report shows the sort key srcline without the children "
			     "view: add --no-children",
			     o->input);
	if (o->children)
		children_add(p);
	p->by_gid = xcalloc(p->next_gid ? p->next_gid : 1, sizeof(*p->by_gid));
	for (u32 i = 0; i < p->nr_ev; i++)
		for (u32 j = 0; j < p->ev[i].nr; j++)
			p->by_gid[p->ev[i].v[j].gid] = &p->ev[i].v[j];
	return 0;
}

void profile_free(struct profile *p)
{
	for (u32 i = 0; i < p->nr_ev; i++) {
		free(p->ev[i].v);
		free(p->ev[i].table);
		free(p->ev[i].sorted);
	}
	free(p->ev);
	free(p->arena);
	free(p->buckets);
	free(p->scratch);
	free(p->cframes);
	free(p->tree_buf);
	free(p->xframes);
	free(p->xlocs);
	free(p->locs);
	hash_index_free(&p->loc_ix);
	free(p->nodes);
	free(p->node_table);
	free(p->frame_dso);
	free(p->frame_name);
	free(p->by_gid);
	free(p->row_cache);
	dsos_on_load(&p->s.dsos, NULL, NULL);
	if (p->srclines) {
		u32 ahead, here;

		srclines_stats(p->srclines, &ahead, &here);
		debug(1, "line tables of binaries: %u opened ahead, %u on first use", ahead, here);
	}
	srclines_free(p->srclines);
	if (p->parent_re)
		regfree(p->parent_re);
	free(p->parent_re);
	free(p->parent_match);
	session_exit(&p->s);
}
