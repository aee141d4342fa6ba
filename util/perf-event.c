// SPDX-License-Identifier: GPL-2.0
/* What the kernel does with some attrs (util/perf-event.h). */
#include "util/perf-event.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * perf_attr_can_share - could one counter count for both events?
 *
 * Return: true when they could.
 */
bool perf_attr_can_share(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide)
{
	if (a->type != b->type || a->config != b->config || a->config1 != b->config1 ||
	    a->config2 != b->config2)
		return false;
	if (a->type == PERF_TYPE_BREAKPOINT && a->bp_type != b->bp_type)
		return false;
	if (a->exclude_user != b->exclude_user || a->exclude_kernel != b->exclude_kernel ||
	    a->exclude_hv != b->exclude_hv || a->exclude_idle != b->exclude_idle ||
	    a->exclude_host != b->exclude_host || a->exclude_guest != b->exclude_guest)
		return false;
	/* A pinned or exclusive request changes when the counter runs: it keeps its own. */
	if (a->precise_ip != b->precise_ip || a->pinned != b->pinned ||
	    a->exclusive != b->exclusive)
		return false;
	/* The scope: the same CPUs and threads always; whether children count too, for tasks. */
	if (!cpu_wide && (a->inherit != b->inherit || a->inherit_stat != b->inherit_stat))
		return false;
	return true;
}

/* The series' hf_sample word: bit-fields, so that the compiler lays it out as the kernel's. */
union hf_sample {
	uint64_t word;
	struct {
		uint64_t period : 32, rand : 4, reserved : 28;
	} f;
};

/**
 * perf_attr_hf_build - the bytes perf_event_open() gets for an event with an alternating period.
 *
 * Return: 0, or -EINVAL.
 */
int perf_attr_hf_build(const struct perf_event_attr *in, unsigned int period, unsigned int rand,
		       void *out)
{
	union hf_sample hf = { .word = 0 };
	unsigned char *b = out;
	__u32 size = PERF_ATTR_HF_SIZE;
	size_t n = sizeof(*in) < PERF_ATTR_HF_OFFSET ? sizeof(*in) : PERF_ATTR_HF_OFFSET;

	if (rand > PERF_ATTR_HF_RAND_MAX || (rand && !period))
		return -EINVAL;
	memset(b, 0, PERF_ATTR_HF_SIZE);
	memcpy(b, in, n);
	memcpy(b + offsetof(struct perf_event_attr, size), &size, sizeof(size));
	hf.f.period = period;
	hf.f.rand = rand;
	memcpy(b + PERF_ATTR_HF_OFFSET, &hf.word, sizeof(hf.word));
	return 0;
}
