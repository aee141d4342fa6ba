// SPDX-License-Identifier: GPL-2.0
/*
 * Stack ids to callchains (bpf-stack.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <bpf/bpf.h>

#include "record/bpf-stack.h"

/*
 * One part of the chain: the marker, then the frames the map holds for id (zero ends a stack
 * shorter than depth), or lost_ip when id is an error other than -EFAULT or is gone. Returns the
 * entries written, -1 when out would overflow; *lost says which.
 */
static long put_part(int map_fd, u32 depth, long long id, u64 marker, u64 lost_ip, u64 *out,
		     size_t room, bool *lost)
{
	u64 frames[BPF_STACK_MAX_DEPTH];
	u32 key = (u32)id;
	size_t n = 0;

	*lost = false;
	if (id == -EFAULT)
		return 0;
	if (room < 2)
		return -1;
	out[n++] = marker;
	if (id < 0 || id > (long long)UINT32_MAX || bpf_map_lookup_elem(map_fd, &key, frames)) {
		*lost = true;
		out[n++] = lost_ip;
		return (long)n;
	}
	for (u32 i = 0; i < depth && frames[i]; i++) {
		if (n == room)
			return -1;
		out[n++] = frames[i];
	}
	if (n == 1) { /* an empty stack: nothing to show but the loss */
		*lost = true;
		out[n++] = lost_ip;
	}
	return (long)n;
}

int bpf_stack_callchain(int map_fd, u32 depth, long long kstack, long long ustack, u64 lost_ip,
			u64 *chain, size_t max, struct bpf_stack_result *res)
{
	long k, u;

	res->nr = 0;
	res->kernel_lost = res->user_lost = false;
	if (depth == 0 || depth > BPF_STACK_MAX_DEPTH)
		return -EINVAL;
	k = put_part(map_fd, depth, kstack, PERF_CONTEXT_KERNEL, lost_ip, chain, max,
		     &res->kernel_lost);
	if (k < 0)
		return -EINVAL;
	u = put_part(map_fd, depth, ustack, PERF_CONTEXT_USER, lost_ip, chain + k, max - (size_t)k,
		     &res->user_lost);
	if (u < 0)
		return -EINVAL;
	res->nr = (size_t)(k + u);
	return 0;
}
