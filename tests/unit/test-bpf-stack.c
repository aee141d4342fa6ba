// SPDX-License-Identifier: GPL-2.0
/*
 * record/bpf-stack.c: how stack ids become callchains. The kernel fills stack maps only from BPF
 * programs, so a real map serves for the ids that are absent or errors, and the frames of a
 * present id are left to the recordings' tests (t1016).
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "record/bpf-stack.h"
#include "tests/tap.h"

#define LOST 0xffffffffff000123ULL

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
	ok(r.nr == 2 && chain[0] == PERF_CONTEXT_USER && chain[1] == LOST && r.user_lost,
	   "a lost user stack is one frame at lost_ip after the user marker");

	is(bpf_stack_callchain(fd, 4, 3, 5, LOST, chain, 10, &r), 0, "ids the map lacks: ok");
	ok(r.nr == 4 && chain[0] == PERF_CONTEXT_KERNEL && chain[1] == LOST &&
	   chain[2] == PERF_CONTEXT_USER && chain[3] == LOST && r.kernel_lost && r.user_lost,
	   "ids the map no longer holds count as lost, kernel part first");

	is(bpf_stack_callchain(fd, 4, -ENOMEM, -ENOMEM, LOST, chain, 3, &r), -EINVAL,
	   "a chain too small is refused");
	is(bpf_stack_callchain(fd, 0, -EFAULT, -EFAULT, LOST, chain, 10, &r), -EINVAL,
	   "depth 0 is refused");
	is(bpf_stack_callchain(fd, BPF_STACK_MAX_DEPTH + 1, -EFAULT, -EFAULT, LOST, chain, 10, &r),
	   -EINVAL, "a depth beyond the largest is refused");
	close(fd);
	return done_testing();
}
