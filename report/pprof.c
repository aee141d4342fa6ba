// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --pprof FILE: the samples as pprof's profile.proto, gzipped, for pprof itself and
 * the services that take it (Grafana Pyroscope, Parca).
 *
 * The profile has per event two sample types, its number of samples and its period in the
 * event's unit (clock events count nanoseconds: "cpu"/"nanoseconds", as pprof's CPU profiles
 * say); one sample per distinct stack and labels (pid, tid, comm, cpu), the values added up. A
 * stack is what prec report resolves for the sample: the kernel's frames, then the user's, the
 * leaf first; dwarf samples with the frames unwound from their user stacks, and in those the
 * inlined functions as further lines of one location, innermost first. Locations keep the
 * address and its mapping (start, limit, file offset, the file and its build-id), so pprof can
 * tell addresses apart and a service can symbolize them again.
 *
 * profile.proto is written here with protobuf's wire format (varints, length-delimited and
 * packed fields): one message, a few dozen lines, no generated code to build or keep up to date.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "overhead/event.h"
#include "report/filter.h"
#include "report/hist.h"
#include "report/pprof.h"
#include "report/session.h"
#include "report/srcline.h"
#include "util/build-id.h"
#include "util/hash-index.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"

/* ---------------------------------------------------------------------------------------- */
/* The wire format */

#define WIRE_VARINT 0
#define WIRE_LEN 2

static void pb_room(struct pb_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = 2 * (b->len + n) + 256;
	b->b = xrealloc(b->b, b->cap);
}

void pb_varint(struct pb_buf *b, u64 v)
{
	pb_room(b, 10);
	while (v >= 0x80) {
		b->b[b->len++] = (u8)(v | 0x80);
		v >>= 7;
	}
	b->b[b->len++] = (u8)v;
}

void pb_uint(struct pb_buf *b, u32 f, u64 v)
{
	if (!v)
		return;
	pb_varint(b, (u64)f << 3 | WIRE_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb_buf *b, u32 f, const void *p, size_t n)
{
	pb_varint(b, (u64)f << 3 | WIRE_LEN);
	pb_varint(b, n);
	pb_room(b, n);
	if (n)
		memcpy(b->b + b->len, p, n);
	b->len += n;
}

static size_t varint_len(u64 v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_packed(struct pb_buf *b, u32 f, const u64 *v, u32 n)
{
	size_t len = 0;

	if (!n)
		return;
	for (u32 i = 0; i < n; i++)
		len += varint_len(v[i]);
	pb_varint(b, (u64)f << 3 | WIRE_LEN);
	pb_varint(b, len);
	for (u32 i = 0; i < n; i++)
		pb_varint(b, v[i]);
}

void pb_free(struct pb_buf *b)
{
	free(b->b);
	b->b = NULL;
	b->len = b->cap = 0;
}

int pprof_gzip(const void *p, size_t n, u8 **out, size_t *out_len)
{
	z_stream z;
	size_t cap;
	int ret;

	/* one call of deflate() takes at most a uInt of input and of output */
	if (n > UINT_MAX / 2)
		return -EFBIG;
	memset(&z, 0, sizeof(z));
	/* 15 + 16: the largest window, with a gzip header and trailer rather than zlib's */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)n) + 32;
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	ret = deflate(&z, Z_FINISH);
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -EIO;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The profile, as it is built */

struct pp_mapping {
	const struct dso *dso;
	u64 start, limit, offset;
	bool unnamed; /* one of its locations has no function */
	/* some location has: a function's source file, a line number, an inlined function */
	bool filenames, line_numbers, inline_frames;
};

struct pp_function {
	const struct sym *sym;
	u32 name, system_name, filename;
};

struct pp_location {
	u32 mapping; /* 0: no map holds the address */
	u64 addr;
	bool inlines; /* with the inlined functions of an unwound frame */
	u32 first_line, nr_lines;
};

struct pp_line {
	u32 function;
	s64 line;
};

/* A sample while reading: its stack, its event and what the labels will say. */
struct pp_sample {
	u32 stack, depth;	 /* location ids in pp.stacks */
	int attr, pid, tid, cpu; /* -1: not recorded */
	const char *comm;	 /* the session's interned comm (its final name comes at the end) */
	u32 comm_str, pid_str, tid_str, cpu_str; /* the labels' strings, at the end */
	u64 count, period;
};

struct pp {
	struct session s;
	const struct report_opts *o;
	struct srclines *srclines; /* the inlined functions of unwound frames; NULL: none */
	/* the string table: strs[0] is "" */
	char **strs;
	u32 nr_strs, cap_strs;
	struct hash_index str_ix;
	struct pp_mapping *maps;
	u32 nr_maps, cap_maps;
	struct hash_index map_ix;
	struct pp_function *funcs;
	u32 nr_funcs, cap_funcs;
	struct hash_index func_ix;
	struct pp_location *locs;
	u32 nr_locs, cap_locs;
	struct hash_index loc_ix;
	struct pp_line *lines;
	u32 nr_lines, cap_lines;
	u32 *stacks; /* the stacks of the samples, one after the other */
	u32 nr_stacks, cap_stacks;
	struct pp_sample *samples;
	u32 nr_samples, cap_samples;
	struct hash_index sample_ix;
	/* a sample's stack while it is built: location ids, frames and where each is in the chain
	 */
	u32 *cur, *frames, *pos;
	u8 *modes; /* per entry of the raw chain: its cpumode */
	u32 cap_cur;
	u64 first_time, last_time;
	bool have_time;
};

#define GROW(v, nr, cap)                                                                           \
	do {                                                                                       \
		if ((nr) >= (cap)) {                                                               \
			(cap) = (cap) ? 2 * (cap) : 64;                                            \
			(v) = xrealloc((v), (size_t)(cap) * sizeof(*(v)));                         \
		}                                                                                  \
	} while (0)

static u64 str_hash_at(const void *ctx, u32 i)
{
	return hash_fnv1a64_str(HASH_FNV64_BASIS, ((const struct pp *)ctx)->strs[i]);
}

static bool str_eq(const void *ctx, u32 i, const void *key)
{
	return !strcmp(((const struct pp *)ctx)->strs[i], key);
}

/* The index of s in the string table, added when new. */
static u32 pp_str(struct pp *pp, const char *s)
{
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&pp->str_ix, str_hash_at, pp))
		die("out of memory");
	slot =
	    hash_index_find(&pp->str_ix, hash_fnv1a64_str(HASH_FNV64_BASIS, s), str_eq, pp, s, &i);
	if (i >= 0)
		return (u32)i;
	GROW(pp->strs, pp->nr_strs, pp->cap_strs);
	pp->strs[pp->nr_strs] = xstrdup(s);
	hash_index_set(&pp->str_ix, slot, pp->nr_strs);
	return pp->nr_strs++;
}

static u64 map_hash(const struct pp_mapping *m)
{
	return hash_mix64((u64)(uintptr_t)m->dso ^ hash_mix64(m->start ^ m->limit << 7) ^
			  m->offset);
}

static u64 map_hash_at(const void *ctx, u32 i)
{
	return map_hash(&((const struct pp *)ctx)->maps[i]);
}

static bool map_eq(const void *ctx, u32 i, const void *key)
{
	const struct pp_mapping *a = &((const struct pp *)ctx)->maps[i], *b = key;

	return a->dso == b->dso && a->start == b->start && a->limit == b->limit &&
	       a->offset == b->offset;
}

/* The id (1 and up) of the mapping of map m. */
static u32 pp_mapping(struct pp *pp, const struct map *m)
{
	struct pp_mapping key = {.dso = m->dso,
				 .start = m->start,
				 .limit = m->end,
				 .offset = m->identity ? 0 : m->pgoff};
	int64_t i;
	u32 slot;

	if (!hash_index_reserve(&pp->map_ix, map_hash_at, pp))
		die("out of memory");
	slot = hash_index_find(&pp->map_ix, map_hash(&key), map_eq, pp, &key, &i);
	if (i >= 0)
		return (u32)i + 1;
	GROW(pp->maps, pp->nr_maps, pp->cap_maps);
	pp->maps[pp->nr_maps] = key;
	hash_index_set(&pp->map_ix, slot, pp->nr_maps);
	return ++pp->nr_maps;
}

static u64 func_hash_at(const void *ctx, u32 i)
{
	return hash_mix64((u64)(uintptr_t)((const struct pp *)ctx)->funcs[i].sym);
}

static bool func_eq(const void *ctx, u32 i, const void *key)
{
	return ((const struct pp *)ctx)->funcs[i].sym == key;
}

/* A source line "file:line" split: the file into the string table, the line returned. */
static s64 split_line(struct pp *pp, const char *text, u32 *file)
{
	const char *colon = text ? strrchr(text, ':') : NULL;
	char *f;

	*file = 0;
	if (!colon)
		return 0;
	f = xmalloc((size_t)(colon - text) + 1);
	memcpy(f, text, (size_t)(colon - text));
	f[colon - text] = '\0';
	*file = pp_str(pp, f);
	free(f);
	return strtoll(colon + 1, NULL, 10);
}

/* The id (1 and up) of the function of symbol sym, its file named by file when known. */
static u32 pp_function(struct pp *pp, const struct sym *sym, u32 file)
{
	struct pp_function *fn;
	int64_t i;
	u32 slot, raw;

	if (!hash_index_reserve(&pp->func_ix, func_hash_at, pp))
		die("out of memory");
	slot = hash_index_find(&pp->func_ix, hash_mix64((u64)(uintptr_t)sym), func_eq, pp, sym, &i);
	if (i >= 0) {
		fn = &pp->funcs[i];
		if (!fn->filename)
			fn->filename = file;
		return (u32)i + 1;
	}
	/* the name in the binary, which sym_name() may have demangled in place already */
	raw = pp_str(pp, sym_raw_name(sym));
	GROW(pp->funcs, pp->nr_funcs, pp->cap_funcs);
	fn = &pp->funcs[pp->nr_funcs];
	fn->sym = sym;
	fn->system_name = raw;
	fn->name = pp_str(pp, sym_name(sym));
	fn->filename = file;
	hash_index_set(&pp->func_ix, slot, pp->nr_funcs);
	return ++pp->nr_funcs;
}

static u64 loc_hash(const struct pp_location *l)
{
	return hash_mix64(l->addr ^ (u64)l->mapping << 40 ^ l->inlines);
}

static u64 loc_hash_at(const void *ctx, u32 i)
{
	return loc_hash(&((const struct pp *)ctx)->locs[i]);
}

static bool loc_eq(const void *ctx, u32 i, const void *key)
{
	const struct pp_location *a = &((const struct pp *)ctx)->locs[i], *b = key;

	return a->addr == b->addr && a->mapping == b->mapping && a->inlines == b->inlines;
}

static void pp_line_add(struct pp *pp, u32 function, s64 line)
{
	GROW(pp->lines, pp->nr_lines, pp->cap_lines);
	pp->lines[pp->nr_lines].function = function;
	pp->lines[pp->nr_lines++].line = line;
}

/*
 * The location id (1 and up) of address ip, which resolved to frame f in cpumode; with
 * want_inlines, an unwound user frame, the functions the debug information places there.
 */
static u32 pp_location(struct pp *pp, struct thread *t, u16 cpumode, u64 ip, u32 f,
		       bool want_inlines)
{
	const struct frame *fr = session_frame(&pp->s, f);
	struct maps *maps = cpumode == PERF_RECORD_MISC_KERNEL ? pp->s.kmaps : t->maps;
	struct map *m = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER
			    ? maps_find(maps, ip)
			    : NULL;
	struct pp_location key = {0};
	const struct srcline_func *fn = NULL;
	u32 slot, k = 0;
	int64_t i;

	key.mapping = m ? pp_mapping(pp, m) : 0;
	key.addr = ip;
	key.inlines =
	    want_inlines && pp->srclines && fr->sym && m && fr->dso && fr->dso->kind == DSO_USER;
	if (!hash_index_reserve(&pp->loc_ix, loc_hash_at, pp))
		die("out of memory");
	slot = hash_index_find(&pp->loc_ix, loc_hash(&key), loc_eq, pp, &key, &i);
	if (i >= 0)
		return (u32)i + 1;
	key.first_line = pp->nr_lines;
	if (key.inlines)
		k = srcline_inlines(pp->srclines, fr->dso, fr->sym, ip - m->start + m->pgoff, &fn);
	for (u32 j = 0; j < k; j++) {
		u32 file;
		s64 line = split_line(pp, fn[j].line, &file);

		pp_line_add(pp, pp_function(pp, fn[j].sym, file), line);
		if (file)
			pp->maps[key.mapping - 1].filenames = true;
		if (line)
			pp->maps[key.mapping - 1].line_numbers = true;
	}
	fr = session_frame(&pp->s, f); /* interning may not move frames, but be plain about it */
	if (!k && fr->sym)
		pp_line_add(pp, pp_function(pp, fr->sym, 0), 0);
	key.nr_lines = pp->nr_lines - key.first_line;
	if (!key.nr_lines && key.mapping)
		pp->maps[key.mapping - 1].unnamed = true;
	if (key.nr_lines > 1)
		pp->maps[key.mapping - 1].inline_frames = true;
	GROW(pp->locs, pp->nr_locs, pp->cap_locs);
	pp->locs[pp->nr_locs] = key;
	hash_index_set(&pp->loc_ix, slot, pp->nr_locs);
	return ++pp->nr_locs;
}

static u64 sample_hash(const struct pp_sample *x, const u32 *stack)
{
	u64 h = hash_mix64((u64)(u32)x->attr << 32 ^ (u32)x->tid) ^
		hash_mix64((u64)(u32)x->pid << 32 ^ (u32)x->cpu) ^ (u64)(uintptr_t)x->comm;

	for (u32 i = 0; i < x->depth; i++)
		h = hash_mix64(h ^ stack[i]);
	return h;
}

static u64 sample_hash_at(const void *ctx, u32 i)
{
	const struct pp *pp = ctx;

	return sample_hash(&pp->samples[i], pp->stacks + pp->samples[i].stack);
}

/* The key of a lookup: the sample, its stack still in pp->cur. */
struct sample_key {
	const struct pp_sample *x;
	const u32 *stack;
};

static bool sample_eq(const void *ctx, u32 i, const void *key)
{
	const struct pp *pp = ctx;
	const struct pp_sample *a = &pp->samples[i];
	const struct sample_key *k = key;
	const struct pp_sample *b = k->x;

	return a->attr == b->attr && a->tid == b->tid && a->pid == b->pid && a->cpu == b->cpu &&
	       a->comm == b->comm && a->depth == b->depth &&
	       !memcmp(pp->stacks + a->stack, k->stack, a->depth * sizeof(u32));
}

static void cur_room(struct pp *pp, u32 n)
{
	if (n <= pp->cap_cur)
		return;
	pp->cap_cur = 2 * n + 64;
	pp->cur = xrealloc(pp->cur, pp->cap_cur * sizeof(u32));
	pp->frames = xrealloc(pp->frames, pp->cap_cur * sizeof(u32));
	pp->pos = xrealloc(pp->pos, pp->cap_cur * sizeof(u32));
	pp->modes = xrealloc(pp->modes, pp->cap_cur);
}

/* The stack of a sample into pp->cur, leaf first. Return: its depth. */
static u32 sample_stack(struct pp *pp, struct thread *t, const struct psample *smp)
{
	u16 cpumode = PERF_RECORD_MISC_USER;
	u8 *modes;
	u32 n = 0, nfile = 0, nk;

	cur_room(pp, smp->nr_chain + 1);
	modes = pp->modes;

	if (!smp->chain_recorded || !smp->nr_chain) {
		pp->cur[0] = pp_location(pp, t, smp->cpumode, smp->ip,
					 session_resolve(&pp->s, t, smp->cpumode, smp->ip), false);
		return 1;
	}
	for (u32 i = 0; i < smp->nr_chain; i++) {
		u64 ip = smp->chain[i];

		modes[i] = (u8)cpumode;
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				cpumode = PERF_RECORD_MISC_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				cpumode = PERF_RECORD_MISC_USER;
			else if (ip == PERF_CONTEXT_HV)
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
			else {
				n = 0; /* a corrupt chain: perf drops all of it */
				break;
			}
			continue;
		}
		if (!(smp->unwound && i > smp->unwound_at)) {
			if (nfile == FILTER_MAX_STACK)
				continue;
			nfile++;
		}
		modes[i] = (u8)cpumode;
		pp->frames[n] = session_resolve(&pp->s, t, cpumode, ip);
		pp->pos[n++] = i;
	}
	n = filter_sample_chain(&pp->o->filter, &pp->s, smp, false, pp->frames, pp->pos, n, &nk);
	for (u32 i = 0; i < n; i++) {
		u32 at = pp->pos[i];

		pp->cur[i] = pp_location(pp, t, modes[at], smp->chain[at], pp->frames[i],
					 smp->unwound && at > smp->unwound_at);
	}
	if (!n) {
		pp->cur[0] = pp_location(pp, t, smp->cpumode, smp->ip,
					 session_resolve(&pp->s, t, smp->cpumode, smp->ip), false);
		n = 1;
	}
	return n;
}

static void add_sample(struct session *s, struct thread *t, const struct psample *smp, void *arg)
{
	struct pp *pp = arg;
	const struct perf_event_attr *attr = pd_reader_attr(s->r, (u32)smp->attr);
	struct pp_sample x = {0}, *e;
	struct sample_key key;
	int64_t i;
	u32 slot;

	if (filter_sample_skip(pp->o, s, t, smp, NULL))
		return;
	if (attr && (attr->sample_type & PERF_SAMPLE_TIME) && smp->time) {
		if (!pp->have_time || smp->time < pp->first_time)
			pp->first_time = smp->time;
		if (!pp->have_time || smp->time > pp->last_time)
			pp->last_time = smp->time;
		pp->have_time = true;
	}
	x.depth = sample_stack(pp, t, smp);
	x.attr = smp->attr;
	x.pid = attr && (attr->sample_type & PERF_SAMPLE_TID) ? t->pid : -1;
	x.tid = attr && (attr->sample_type & PERF_SAMPLE_TID) ? t->tid : -1;
	x.cpu = smp->cpu;
	x.comm = t->comm;
	key.x = &x;
	key.stack = pp->cur;
	if (!hash_index_reserve(&pp->sample_ix, sample_hash_at, pp))
		die("out of memory");
	slot = hash_index_find(&pp->sample_ix, sample_hash(&x, pp->cur), sample_eq, pp, &key, &i);
	if (i < 0) {
		GROW(pp->samples, pp->nr_samples, pp->cap_samples);
		while (pp->nr_stacks + x.depth > pp->cap_stacks) {
			pp->cap_stacks = pp->cap_stacks ? 2 * pp->cap_stacks : 4096;
			pp->stacks = xrealloc(pp->stacks, pp->cap_stacks * sizeof(u32));
		}
		memcpy(pp->stacks + pp->nr_stacks, pp->cur, x.depth * sizeof(u32));
		x.stack = pp->nr_stacks;
		pp->nr_stacks += x.depth;
		pp->samples[pp->nr_samples] = x;
		hash_index_set(&pp->sample_ix, slot, pp->nr_samples);
		i = pp->nr_samples++;
	}
	e = &pp->samples[i];
	e->count += smp->count;
	e->period += smp->period;
}

/* ---------------------------------------------------------------------------------------- */
/* Encoding */

/* The sample types of one event: its count and its period. */
struct pp_event {
	u32 attr;
	u32 count_type, count_unit, period_type, period_unit;
	u64 period; /* the period one sample stands for, for period_type/period */
};

static bool attr_is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * The events of the file and their sample types. The first event's types are those pprof's own
 * CPU profiles use; later events prefix their names so that -sample_index can tell them apart.
 */
static u32 pp_events(struct pp *pp, struct pp_event **out, int **col)
{
	struct pd_reader *r = pp->s.r;
	u32 nr = pd_reader_nr_attrs(r), k = 0;
	struct pp_event *ev = xcalloc(nr ? nr : 1, sizeof(*ev));
	bool clock_named = false, *used = xcalloc(nr ? nr : 1, sizeof(*used)), any = false;
	char buf[256], *s;

	/* the events that have samples (not perf's dummy:HG, say); all of them if none has */
	for (u32 i = 0; i < pp->nr_samples; i++)
		if (pp->samples[i].attr >= 0 && (u32)pp->samples[i].attr < nr)
			any = used[pp->samples[i].attr] = true;
	*col = xmalloc((nr ? nr : 1) * sizeof(**col));
	for (u32 i = 0; i < nr; i++) {
		const struct perf_event_attr *a = pd_reader_attr(r, i);
		struct pp_event *e = &ev[k];
		const char *name;

		(*col)[i] = -1;
		if (attr_is_overhead_event(a) || (any && !used[i]))
			continue;
		name = report_event_name(r, i, buf, sizeof(buf));
		e->attr = i;
		if (!k) {
			e->count_type = pp_str(pp, "samples");
		} else {
			s = xasprintf("%s_samples", name);
			e->count_type = pp_str(pp, s);
			free(s);
		}
		e->count_unit = pp_str(pp, "count");
		if (attr_is_clock(a) && !clock_named) {
			e->period_type = pp_str(pp, "cpu");
			clock_named = true;
		} else {
			e->period_type = pp_str(pp, name);
		}
		e->period_unit = pp_str(pp, attr_is_clock(a) ? "nanoseconds" : "count");
		if (!a->freq)
			e->period = a->sample_period;
		else if (attr_is_clock(a) && a->sample_freq)
			e->period = 1000000000ull / a->sample_freq;
		(*col)[i] = (int)k++;
	}
	free(used);
	*out = ev;
	return k;
}

/*
 * With the samples' final comms named, the order that puts equal (stack, labels) together: a
 * qsort_r() comparison of two sample numbers, ctx the profile.
 */
static int sample_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct pp *sort_pp = ctx;
	const struct pp_sample *a = &sort_pp->samples[*(const u32 *)pa];
	const struct pp_sample *b = &sort_pp->samples[*(const u32 *)pb];
	int c;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	c = memcmp(sort_pp->stacks + a->stack, sort_pp->stacks + b->stack, a->depth * sizeof(u32));
	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->comm_str != b->comm_str)
		return a->comm_str < b->comm_str ? -1 : 1;
	return 0;
}

static void enc_label(struct pb_buf *out, struct pb_buf *m, u32 key, u32 str)
{
	m->len = 0;
	pb_uint(m, 1, key);
	pb_uint(m, 2, str);
	pb_bytes(out, 3, m->b, m->len);
}

/*
 * A number as a label: a string, since pprof drops a numeric label whose value is 0 (CPU 0, the
 * idle task's pid) unless it has a unit, older readers even with one, and Pyroscope takes only
 * string labels.
 */
static u32 num_str(struct pp *pp, int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", v);
	return pp_str(pp, buf);
}

static void enc_value_type(struct pb_buf *out, struct pb_buf *m, u32 f, u32 type, u32 unit)
{
	m->len = 0;
	pb_uint(m, 1, type);
	pb_uint(m, 2, unit);
	pb_bytes(out, f, m->b, m->len);
}

/* The samples, merged per (stack, labels), one value per sample type. */
static void enc_samples(struct pp *pp, struct pb_buf *out, const int *col, u32 nr_ev)
{
	struct pb_buf m = {0}, lm = {0};
	u32 *order = xmalloc((pp->nr_samples ? pp->nr_samples : 1) * sizeof(u32));
	u64 *vals = xmalloc(2 * (nr_ev ? nr_ev : 1) * sizeof(u64)), *ids = NULL;
	u32 k_pid = pp_str(pp, "pid"), k_tid = pp_str(pp, "tid"), k_comm = pp_str(pp, "comm");
	u32 k_cpu = pp_str(pp, "cpu"), cap_ids = 0;

	for (u32 i = 0; i < pp->nr_samples; i++) {
		const char *comm = session_comm_final(&pp->s, pp->samples[i].comm);
		struct pp_sample *x = &pp->samples[i];

		x->comm_str = comm ? pp_str(pp, comm) : 0;
		x->pid_str = num_str(pp, x->pid);
		x->tid_str = num_str(pp, x->tid);
		x->cpu_str = num_str(pp, x->cpu);
		order[i] = i;
	}
	qsort_r(order, pp->nr_samples, sizeof(u32), sample_cmp, pp);
	for (u32 i = 0; i < pp->nr_samples;) {
		const struct pp_sample *x = &pp->samples[order[i]];
		u32 j = i;

		memset(vals, 0, 2 * nr_ev * sizeof(u64));
		for (; j < pp->nr_samples && !sample_cmp(&order[i], &order[j], pp); j++) {
			const struct pp_sample *y = &pp->samples[order[j]];
			int c = col[y->attr];

			/* a sample of an event left out (prec:overhead, which the session drops) */
			if (c < 0)
				continue;
			vals[2 * c] += y->count;
			vals[2 * c + 1] += y->period;
		}
		i = j;
		if (x->depth > cap_ids) {
			cap_ids = 2 * x->depth;
			ids = xrealloc(ids, cap_ids * sizeof(u64));
		}
		for (u32 d = 0; d < x->depth; d++)
			ids[d] = pp->stacks[x->stack + d];
		m.len = 0;
		pb_packed(&m, 1, ids, x->depth);
		pb_packed(&m, 2, vals, 2 * nr_ev);
		if (x->pid >= 0) {
			enc_label(&m, &lm, k_pid, x->pid_str);
			enc_label(&m, &lm, k_tid, x->tid_str);
		}
		if (x->comm_str)
			enc_label(&m, &lm, k_comm, x->comm_str);
		if (x->cpu >= 0)
			enc_label(&m, &lm, k_cpu, x->cpu_str);
		pb_bytes(out, 2, m.b, m.len);
	}
	free(ids);
	free(vals);
	free(order);
	pb_free(&m);
	pb_free(&lm);
}

/* The file's clock at the first sample as wall-clock time, when CLOCK_DATA tells it. */
static s64 wall_time(struct pp *pp, u64 t)
{
	size_t len = 0;
	const struct pd_clock_data_feature *cd =
	    pd_reader_feature(pp->s.r, PD_FEAT_CLOCK_DATA, &len);
	struct stat st;

	if (cd && len >= sizeof(*cd) && cd->tod_ns)
		return (s64)(cd->tod_ns + (t - cd->clockid_ns));
	/*
	 * Without the clock's data (perf record -k writes it), the file was last written when the
	 * recording ended, as perf report's "captured on" says: the first sample came the
	 * samples' span before that
	 */
	if (strcmp(pp->o->input, "-") && !stat(pp->o->input, &st))
		return (s64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec -
		       (s64)(pp->last_time - pp->first_time);
	return 0;
}

/*
 * The mapping pprof names as the profile's file (it takes the first): the binary whose code the
 * most samples ran in, their innermost user frame's, rather than whichever was mapped first.
 */
static u32 main_mapping(const struct pp *pp)
{
	u64 *w = xcalloc(pp->nr_maps ? pp->nr_maps : 1, sizeof(u64)), best_w = 0;
	u32 best = 0;

	for (u32 i = 0; i < pp->nr_samples; i++) {
		const struct pp_sample *x = &pp->samples[i];

		for (u32 d = 0; d < x->depth; d++) {
			u32 mid = pp->locs[pp->stacks[x->stack + d] - 1].mapping;

			if (mid && pp->maps[mid - 1].dso->kind == DSO_USER) {
				w[mid - 1] += x->count;
				break;
			}
		}
	}
	for (u32 i = 0; i < pp->nr_maps; i++)
		if (w[i] > best_w) {
			best_w = w[i];
			best = i;
		}
	free(w);
	return best;
}

/*
 * The id mapping number i (0 and up) is written with: the main one is 1, the first one takes
 * its place (a swap, so the same function also gives the mapping of an id).
 */
static u32 mapping_id(u32 i, u32 main)
{
	return i == main ? 1 : i == 0 ? main + 1 : i + 1;
}

static void pp_encode(struct pp *pp, struct pb_buf *out)
{
	struct pb_buf m = {0}, sub = {0};
	struct pp_event *ev;
	int *col;
	u32 nr_ev = pp_events(pp, &ev, &col), *fname, main = main_mapping(pp);
	char hex[2 * BUILD_ID_MAX + 1];

	for (u32 i = 0; i < nr_ev; i++) {
		enc_value_type(out, &m, 1, ev[i].count_type, ev[i].count_unit);
		enc_value_type(out, &m, 1, ev[i].period_type, ev[i].period_unit);
	}
	enc_samples(pp, out, col, nr_ev);
	/* the strings the mappings need, before the string table is written */
	fname = xcalloc(2 * (pp->nr_maps ? pp->nr_maps : 1), sizeof(u32));
	for (u32 i = 0; i < pp->nr_maps; i++) {
		const struct dso *d = pp->maps[i].dso;

		fname[2 * i] = pp_str(pp, d->name);
		if (d->has_build_id) {
			build_id_hex(hex, d->build_id, d->build_id_size);
			fname[2 * i + 1] = pp_str(pp, hex);
		}
	}
	/* in the order of their ids: pprof numbers them again by their order in the file */
	for (u32 k = 0; k < pp->nr_maps; k++) {
		u32 i = mapping_id(k, main) - 1;
		const struct pp_mapping *mp = &pp->maps[i];

		m.len = 0;
		pb_uint(&m, 1, k + 1);
		pb_uint(&m, 2, mp->start);
		pb_uint(&m, 3, mp->limit);
		pb_uint(&m, 4, mp->offset);
		pb_uint(&m, 5, fname[2 * i]);
		pb_uint(&m, 6, fname[2 * i + 1]);
		pb_uint(&m, 7, !mp->unnamed); /* has_functions */
		pb_uint(&m, 8, mp->filenames);
		pb_uint(&m, 9, mp->line_numbers);
		pb_uint(&m, 10, mp->inline_frames);
		pb_bytes(out, 3, m.b, m.len);
	}
	free(fname);
	for (u32 i = 0; i < pp->nr_locs; i++) {
		const struct pp_location *l = &pp->locs[i];

		m.len = 0;
		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, l->mapping ? mapping_id(l->mapping - 1, main) : 0);
		pb_uint(&m, 3, l->addr);
		for (u32 j = 0; j < l->nr_lines; j++) {
			const struct pp_line *ln = &pp->lines[l->first_line + j];

			sub.len = 0;
			pb_uint(&sub, 1, ln->function);
			pb_uint(&sub, 2, (u64)ln->line);
			pb_bytes(&m, 4, sub.b, sub.len);
		}
		pb_bytes(out, 4, m.b, m.len);
	}
	for (u32 i = 0; i < pp->nr_funcs; i++) {
		const struct pp_function *fn = &pp->funcs[i];

		m.len = 0;
		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, fn->name);
		pb_uint(&m, 3, fn->system_name);
		pb_uint(&m, 4, fn->filename);
		pb_bytes(out, 5, m.b, m.len);
	}
	for (u32 i = 0; i < pp->nr_strs; i++)
		pb_bytes(out, 6, pp->strs[i], strlen(pp->strs[i]));
	if (pp->have_time) {
		pb_uint(out, 9, (u64)wall_time(pp, pp->first_time));
		pb_uint(out, 10, pp->last_time - pp->first_time);
	}
	if (nr_ev) {
		enc_value_type(out, &m, 11, ev[0].period_type, ev[0].period_unit);
		pb_uint(out, 12, ev[0].period);
		pb_uint(out, 14, ev[0].period_type);
	}
	free(ev);
	free(col);
	pb_free(&m);
	pb_free(&sub);
}

/* ---------------------------------------------------------------------------------------- */
/* The file */

/*
 * The output, opened before the input is read so that a long read does not end in a refusal:
 * "-" is stdout; a file is opened as perf opens perf.data (an earlier one kept as FILE.old),
 * never the input itself. Return: the descriptor, or -1 when told why.
 */
static int open_output(struct pd_outfile *f, const char *path, const char *input)
{
	int fd;

	memset(f, 0, sizeof(*f));
	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	fd = pd_outfile_open(f, path, 0644, strcmp(input, "-") ? input : NULL);
	if (fd == -EEXIST)
		error("%s: --pprof would write over the input file %s, or keep it as .old: give "
		      "another name",
		      path, input);
	else if (fd < 0)
		error("%s: cannot write the pprof profile: %s", path, strerror(-fd));
	return fd < 0 ? -1 : fd;
}

/* Write n bytes at p to fd. Return: 0, or an errno. */
static int write_all(int fd, const u8 *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void pp_free(struct pp *pp)
{
	for (u32 i = 0; i < pp->nr_strs; i++)
		free(pp->strs[i]);
	free(pp->strs);
	free(pp->maps);
	free(pp->funcs);
	free(pp->locs);
	free(pp->lines);
	free(pp->stacks);
	free(pp->samples);
	free(pp->cur);
	free(pp->frames);
	free(pp->pos);
	free(pp->modes);
	hash_index_free(&pp->str_ix);
	hash_index_free(&pp->map_ix);
	hash_index_free(&pp->func_ix);
	hash_index_free(&pp->loc_ix);
	hash_index_free(&pp->sample_ix);
	srclines_free(pp->srclines);
	session_exit(&pp->s);
}

int report_pprof(struct report *rep, const struct report_opts *o)
{
	struct pp pp;
	struct pb_buf out = {0};
	u8 *gz = NULL;
	size_t gz_len = 0;
	struct pd_outfile f;
	int ret, fd, err;

	fd = open_output(&f, o->pprof, o->input);
	if (fd < 0)
		return 1;
	memset(&pp, 0, sizeof(pp));
	pp.o = o;
	pp_str(&pp, ""); /* pprof's rule: the string table starts with the empty string */
	session_init(&pp.s, rep, add_sample, &pp);
	pp.s.want_user_stacks = true;
	pp.s.max_stack = o->filter.max_stack;
	/* as prec report's call graphs: the inlined functions of unwound frames, unless told not */
	if (!o->no_inline && srclines_available())
		pp.srclines = srclines_new();
	ret = session_process(&pp.s);
	/* as the table says it: an empty profile is still written, but not silently */
	if (!ret && !pp.nr_samples && !pp.s.nr_samples && pp.s.nr_overhead)
		note("%s has no samples but %" PRIu64 " of prec:overhead, which are costs "
		     "(prec report --overhead shows them): the pprof profile is empty",
		     o->input, pp.s.nr_overhead);
	else if (!ret && !pp.nr_samples)
		note("%s has no samples%s: the pprof profile is empty", o->input,
		     pp.s.nr_samples ? " that pass the filters" : "");
	if (!ret) {
		pp_encode(&pp, &out);
		err = -pprof_gzip(out.b, out.len, &gz, &gz_len);
		if (err) {
			ret = error("%s: cannot compress the pprof profile: %s", o->pprof,
				    err == EFBIG ? "larger than 2 GiB" : strerror(err));
		} else {
			err = write_all(fd, gz, gz_len);
			if (fd != STDOUT_FILENO && close(fd) && !err)
				err = errno;
			fd = -1;
			if (err)
				ret = error("%s: cannot write the pprof profile: %s", o->pprof,
					    strerror(err));
		}
	}
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	if (ret)
		pd_outfile_undo(&f);
	pd_outfile_release(&f);
	free(gz);
	pb_free(&out);
	pp_free(&pp);
	return ret ? 1 : 0;
}
