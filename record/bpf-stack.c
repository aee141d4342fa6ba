// SPDX-License-Identifier: GPL-2.0
/*
 * Stack ids to callchains (bpf-stack.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "record/bpf-stack.h"
#include "util/xalloc.h"

/* What the cache knows of one id. */
struct stack_slot {
	u32 off;   /* first frame in frames */
	u16 nr;    /* frames */
	u8 known;  /* read from the map: off and nr hold its frames */
	u8 used;   /* asked for since the last bpf_stack_cache_round() */
};

struct bpf_stack_cache {
	int map_fd;
	u32 depth;
	u32 nr_slots;
	struct stack_slot *slot; /* by id */
	u32 *ids;                /* the known ids, in the order they were read */
	u32 nr_ids;
	u32 nr_used;
	u64 *frames;
	size_t nr_frames, max_frames;
};

/* Where the frames of an id come from: the map, or a cache of it. */
struct frames_src {
	int map_fd;
	u32 depth;
	struct bpf_stack_cache *cache;
	u64 buf[BPF_STACK_MAX_DEPTH];
};

/* The frames the map holds for id (zero ends a stack shorter than depth); -1 when it holds none. */
static long read_frames(struct frames_src *src, u32 id, const u64 **frames)
{
	long n = 0;

	if (bpf_map_lookup_elem(src->map_fd, &id, src->buf))
		return -1;
	while ((u32)n < src->depth && src->buf[n])
		n++;
	*frames = src->buf;
	return n;
}

/* read_frames() through the cache: the map is read once per id until the cache is cleared. */
static long cached_frames(struct frames_src *src, u32 id, const u64 **frames)
{
	struct bpf_stack_cache *c = src->cache;
	struct stack_slot *s;
	const u64 *p;
	long n;

	if (id >= c->nr_slots)
		return read_frames(src, id, frames);
	s = &c->slot[id];
	if (!s->known) {
		n = read_frames(src, id, &p);
		/* Not there: a later stack may take the id, so nothing is kept. */
		if (n < 0)
			return n;
		if (c->nr_frames + (size_t)n > c->max_frames) {
			c->max_frames = 2 * (c->nr_frames + (size_t)n) + 1024;
			c->frames = xrealloc(c->frames, c->max_frames * sizeof(*c->frames));
		}
		memcpy(c->frames + c->nr_frames, p, (size_t)n * sizeof(*p));
		s->off = (u32)c->nr_frames;
		s->nr = (u16)n;
		s->known = 1;
		c->nr_frames += (size_t)n;
		c->ids[c->nr_ids++] = id;
	}
	if (!s->used) {
		s->used = 1;
		c->nr_used++;
	}
	*frames = c->frames + s->off;
	return s->nr;
}

/*
 * One part of the chain: the marker, then the frames of id, or lost_ip when id is an error other
 * than -EFAULT or names no stack. Returns the entries written, -1 when out would overflow; *lost
 * says which.
 */
static long put_part(struct frames_src *src, long long id, u64 marker, u64 lost_ip, u64 *out,
		     size_t room, bool *lost)
{
	const u64 *frames;
	long nr = -1;
	size_t n = 0;

	*lost = false;
	if (id == -EFAULT)
		return 0;
	if (room < 2)
		return -1;
	out[n++] = marker;
	if (id >= 0 && id <= (long long)UINT32_MAX)
		nr = src->cache ? cached_frames(src, (u32)id, &frames) : read_frames(src, (u32)id,
										      &frames);
	if (nr <= 0) { /* gone, or an empty stack: nothing to show but the loss */
		*lost = true;
		out[n++] = lost_ip;
		return (long)n;
	}
	/*
	 * A perf_event program's stack is the sample's own callchain, which holds the kernel's
	 * context markers already: only the marker written above stays.
	 */
	for (long i = 0; i < nr; i++) {
		if (frames[i] >= PERF_CONTEXT_MAX)
			continue;
		if (n >= room)
			return -1;
		out[n++] = frames[i];
	}
	if (n == 1) { /* markers only */
		*lost = true;
		out[n++] = lost_ip;
	}
	return (long)n;
}

static int callchain(struct frames_src *src, long long kstack, long long ustack, u64 lost_ip,
		     u64 *chain, size_t max, struct bpf_stack_result *res)
{
	long k, u;

	res->nr = 0;
	res->kernel_lost = res->user_lost = false;
	if (src->depth == 0 || src->depth > BPF_STACK_MAX_DEPTH)
		return -EINVAL;
	k = put_part(src, kstack, PERF_CONTEXT_KERNEL, lost_ip, chain, max, &res->kernel_lost);
	if (k < 0)
		return -EINVAL;
	u = put_part(src, ustack, PERF_CONTEXT_USER, lost_ip, chain + k, max - (size_t)k,
		     &res->user_lost);
	if (u < 0)
		return -EINVAL;
	/*
	 * perf resolves a frame after the user marker in the task's maps only, where the lost
	 * frame is [unknown]: it goes at the end of the kernel part instead, where the callers
	 * would have been (once, when the kernel part is already the lost frame).
	 */
	if (res->user_lost) {
		if (res->kernel_lost) {
			u = 0;
		} else if (k == 0) {
			chain[0] = PERF_CONTEXT_KERNEL;
		} else {
			chain[k] = lost_ip;
			u = 1;
		}
	}
	res->nr = (size_t)(k + u);
	return 0;
}

int bpf_stack_encode_lost_ksymbol(struct pd_buf *out, const struct perf_event_attr *attr,
				  u64 time)
{
	struct pd_ksymbol_body ks = { .addr = BPF_STACK_LOST_IP, .len = 0x1000 };
	struct pd_sample id;

	memset(&id, 0, sizeof(id));
	id.pid = id.tid = (u32)-1;
	id.time = time;
	return pd_encode_ksymbol(out, attr, &ks, BPF_STACK_LOST_NAME, &id);
}

int bpf_stack_callchain(int map_fd, u32 depth, long long kstack, long long ustack, u64 lost_ip,
			u64 *chain, size_t max, struct bpf_stack_result *res)
{
	struct frames_src src = { .map_fd = map_fd, .depth = depth };

	return callchain(&src, kstack, ustack, lost_ip, chain, max, res);
}

struct bpf_stack_cache *bpf_stack_cache_new(int map_fd, u32 depth, u32 max_entries)
{
	struct bpf_stack_cache *c;
	u32 n = 1;

	if (depth == 0 || depth > BPF_STACK_MAX_DEPTH || max_entries == 0 ||
	    max_entries > (1U << 31))
		return NULL;
	/* The kernel takes ids below max_entries rounded up to a power of two (its buckets). */
	while (n < max_entries)
		n <<= 1;
	c = xcalloc(1, sizeof(*c));
	c->map_fd = map_fd;
	c->depth = depth;
	c->nr_slots = n;
	c->slot = xcalloc(n, sizeof(*c->slot));
	c->ids = xcalloc(n, sizeof(*c->ids));
	return c;
}

int bpf_stack_cache_callchain(struct bpf_stack_cache *c, long long kstack, long long ustack,
			      u64 lost_ip, u64 *chain, size_t max, struct bpf_stack_result *res)
{
	struct frames_src src = { .map_fd = c->map_fd, .depth = c->depth, .cache = c };

	return callchain(&src, kstack, ustack, lost_ip, chain, max, res);
}

u32 bpf_stack_cache_ids(const struct bpf_stack_cache *c)
{
	return c->nr_ids;
}

u32 bpf_stack_cache_round(struct bpf_stack_cache *c)
{
	u32 used = c->nr_used;

	for (u32 i = 0; i < c->nr_ids; i++)
		c->slot[c->ids[i]].used = 0;
	c->nr_used = 0;
	return used;
}

int bpf_stack_cache_clear(struct bpf_stack_cache *c, bool walk)
{
	int err = 0;

	if (walk) {
		u32 key, next;
		bool first = true;

		/* Each step after a delete starts over from the deleted key's bucket. */
		while (!bpf_map_get_next_key(c->map_fd, first ? NULL : &key, &next)) {
			if (bpf_map_delete_elem(c->map_fd, &next) && errno != ENOENT && !err)
				err = -errno;
			key = next;
			first = false;
		}
	} else {
		for (u32 i = 0; i < c->nr_ids; i++)
			if (bpf_map_delete_elem(c->map_fd, &c->ids[i]) && errno != ENOENT && !err)
				err = -errno;
	}
	for (u32 i = 0; i < c->nr_ids; i++)
		memset(&c->slot[c->ids[i]], 0, sizeof(*c->slot));
	c->nr_ids = c->nr_used = 0;
	c->nr_frames = 0;
	return err;
}

void bpf_stack_cache_free(struct bpf_stack_cache *c)
{
	if (!c)
		return;
	free(c->slot);
	free(c->ids);
	free(c->frames);
	free(c);
}

int bpf_wait_for_runs(void)
{
	return syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) ? -errno : 0;
}
