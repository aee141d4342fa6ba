// SPDX-License-Identifier: GPL-2.0
/*
 * record/bpf-stack.c: how stack ids become callchains. The kernel fills stack maps only from BPF
 * programs, so a real stack map serves for the ids that are absent or errors; for the frames of
 * present ids a hash map of the same key and value sizes stands in (the reader only looks ids
 * up and deletes them), and the recordings' tests (t1016) see real stacks.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "record/bpf-stack.h"
#include "tests/tap.h"

#define LOST 0xffffffffff000123ULL

static const u64 kframes[4] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL, 0, 0 };
static const u64 uframes[4] = { 0x401000, 0x401100, 0x401200, 0x401300 };

/* Present ids, in a hash map standing in for a stack map: id 7 kernel frames, 9 user ones. */
static void frames_tests(void)
{
	struct bpf_stack_cache *c;
	struct bpf_stack_result r;
	u64 chain[2 + 2 * 4];
	u32 k = 7, u = 9;
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_frames", 4, 4 * 8, 16, NULL);

	if (fd < 0 || bpf_map_update_elem(fd, &k, kframes, BPF_ANY) ||
	    bpf_map_update_elem(fd, &u, uframes, BPF_ANY)) {
		skip("frames", "bpf_map_create(HASH) failed");
		if (fd >= 0)
			close(fd);
		return;
	}
	is(bpf_stack_callchain(fd, 4, 7, 9, LOST, chain, 10, &r), 0, "both stacks: ok");
	ok(r.nr == 8 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == kframes[0] &&
	   chain[2] == kframes[1] && chain[3] == PERF_CONTEXT_USER && chain[4] == uframes[0] &&
	   chain[7] == uframes[3] && !r.kernel_lost && !r.user_lost,
	   "kernel frames to the first zero, then the user ones to the depth, each after its marker");

	is(bpf_stack_callchain(fd, 4, 7, -ENOMEM, LOST, chain, 10, &r), 0, "user stack lost: ok");
	ok(r.nr == 4 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == kframes[0] &&
	   chain[2] == kframes[1] && chain[3] == LOST && r.user_lost && !r.kernel_lost,
	   "a lost user stack is the lost frame at the end of the kernel part");

	is(bpf_stack_callchain(fd, 4, 7, 9, LOST, chain, 7, &r), -EINVAL,
	   "a chain one entry short of the frames is refused");

	c = bpf_stack_cache_new(fd, 4, 16);
	ok(c != NULL, "a cache of the map");
	if (!c) {
		close(fd);
		return;
	}
	is(bpf_stack_cache_callchain(c, 7, 9, LOST, chain, 10, &r), 0, "cached: ok");
	ok(r.nr == 8 && chain[2] == kframes[1] && chain[7] == uframes[3], "cached: the same chain");
	is(bpf_stack_cache_ids(c), 2, "the cache knows the two ids");
	/* The cache answers without the map: the frames read before stay. */
	bpf_map_update_elem(fd, &k, uframes, BPF_ANY);
	is(bpf_stack_cache_callchain(c, 7, -EFAULT, LOST, chain, 10, &r), 0, "again: ok");
	ok(r.nr == 3 && chain[1] == kframes[0], "an id is read from the map once");
	is(bpf_stack_cache_callchain(c, 7, 11, LOST, chain, 10, &r), 0, "an id the map lacks: ok");
	ok(r.nr == 4 && chain[3] == LOST && r.user_lost, "an id the map lacks is lost");
	is(bpf_stack_cache_ids(c), 2, "an id the map lacks is not kept");
	is(bpf_stack_cache_round(c), 2, "two ids used in the round");
	is(bpf_stack_cache_round(c), 0, "none in the next");
	ok(bpf_stack_cache_new(fd, 0, 16) == NULL && bpf_stack_cache_new(fd, 4, 0) == NULL,
	   "a depth or size of 0 is refused");

	is(bpf_stack_cache_clear(c, false), 0, "clear: ok");
	is(bpf_stack_cache_ids(c), 0, "clear: the cache is empty");
	ok(bpf_map_lookup_elem(fd, &k, chain) && bpf_map_lookup_elem(fd, &u, chain),
	   "clear: the ids it knew are deleted from the map");
	k = 3;
	bpf_map_update_elem(fd, &k, kframes, BPF_ANY);
	is(bpf_stack_cache_clear(c, true), 0, "clear with a walk: ok");
	ok(bpf_map_lookup_elem(fd, &k, chain), "a walk deletes ids the cache never read");
	bpf_stack_cache_free(c);
	close(fd);
}

/*
 * A perf_event program's stacks are the sample's callchain, with the kernel's context markers
 * in it: the chain has each marker once.
 */
static void marker_tests(void)
{
	static const u64 kpe[4] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL,
				    0xffffffff81000020ULL, 0 };
	static const u64 upe[4] = { PERF_CONTEXT_USER, 0x401000, 0x401100, 0 };
	static const u64 bare[4] = { PERF_CONTEXT_USER, 0, 0, 0 };
	struct bpf_stack_result r;
	u64 chain[2 + 2 * 4];
	u32 k = 1, u = 2, b = 3;
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_markers", 4, 4 * 8, 16, NULL);

	if (fd < 0 || bpf_map_update_elem(fd, &k, kpe, BPF_ANY) ||
	    bpf_map_update_elem(fd, &u, upe, BPF_ANY) || bpf_map_update_elem(fd, &b, bare, BPF_ANY)) {
		skip("markers", "bpf_map_create(HASH) failed");
		if (fd >= 0)
			close(fd);
		return;
	}
	is(bpf_stack_callchain(fd, 4, 1, 2, LOST, chain, 10, &r), 0, "stacks with markers: ok");
	ok(r.nr == 6 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == kpe[1] &&
	   chain[2] == kpe[2] && chain[3] == PERF_CONTEXT_USER && chain[4] == upe[1] &&
	   chain[5] == upe[2] && !r.kernel_lost && !r.user_lost,
	   "the markers of a sample's own callchain are not written twice");
	is(bpf_stack_callchain(fd, 4, -EFAULT, 3, LOST, chain, 10, &r), 0, "markers only: ok");
	ok(r.nr == 2 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == LOST && r.user_lost,
	   "a stack of markers only has no frame: it counts as lost");
	close(fd);
}

/* The KSYMBOL of the lost-stack frame: its address and name, as every hook writes it. */
static void ksymbol_tests(void)
{
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_TIME, .sample_id_all = 1 };
	struct pd_buf out = { 0 };
	const struct perf_event_header *h;
	const struct pd_ksymbol_body *ks;

	is(bpf_stack_encode_lost_ksymbol(&out, &attr, 1234), 0, "lost-stack KSYMBOL: encoded");
	h = (const void *)out.data;
	ks = (const void *)(h + 1);
	ok(out.len >= sizeof(*h) + sizeof(*ks) && h->type == PERF_RECORD_KSYMBOL &&
	   h->size == out.len && ks->addr == BPF_STACK_LOST_IP &&
	   !strcmp((const char *)(ks + 1), BPF_STACK_LOST_NAME) &&
	   !memcmp(out.data + out.len - 8, &(u64){ 1234 }, 8),
	   "lost-stack KSYMBOL: its address, its name and the time given");
	pd_buf_release(&out);
}

int main(void)
{
	u64 chain[2 + 2 * 4];
	struct bpf_stack_result r;
	int fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "test_stacks", 4, 4 * 8, 16, NULL);

	if (fd < 0) {
		skip("stack map", "bpf_map_create(STACK_TRACE) failed: no BPF here");
		return done_testing();
	}

	is(bpf_stack_callchain(fd, 4, -EFAULT, -EFAULT, LOST, chain, 10, &r), 0, "no stacks: ok");
	is(r.nr, 0, "no stacks: an empty chain");

	is(bpf_stack_callchain(fd, 4, -ENOMEM, -EFAULT, LOST, chain, 10, &r), 0, "full map: ok");
	ok(r.nr == 2 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == LOST && r.kernel_lost &&
	   !r.user_lost, "a lost kernel stack is one frame at lost_ip after the kernel marker");

	is(bpf_stack_callchain(fd, 4, -EFAULT, -EEXIST, LOST, chain, 10, &r), 0, "bucket taken: ok");
	ok(r.nr == 2 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == LOST && r.user_lost &&
	   !r.kernel_lost,
	   "a lost user stack alone is one frame at lost_ip after a kernel marker of its own");

	is(bpf_stack_callchain(fd, 4, 3, 5, LOST, chain, 10, &r), 0, "ids the map lacks: ok");
	ok(r.nr == 2 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == LOST && r.kernel_lost &&
	   r.user_lost, "ids the map no longer holds count as lost, one lost frame for both");

	is(bpf_stack_callchain(fd, 4, -ENOMEM, -ENOMEM, LOST, chain, 3, &r), -EINVAL,
	   "a chain too small is refused");
	is(bpf_stack_callchain(fd, 0, -EFAULT, -EFAULT, LOST, chain, 10, &r), -EINVAL,
	   "depth 0 is refused");
	is(bpf_stack_callchain(fd, BPF_STACK_MAX_DEPTH + 1, -EFAULT, -EFAULT, LOST, chain, 10, &r),
	   -EINVAL, "a depth beyond the largest is refused");
	close(fd);
	frames_tests();
	marker_tests();
	ksymbol_tests();
	return done_testing();
}
