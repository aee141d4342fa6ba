/* SPDX-License-Identifier: GPL-2.0 */
/* perf_event_open(2), which glibc does not wrap, and what the kernel does with some attrs. */
#ifndef PREC_UTIL_PERF_EVENT_H
#define PREC_UTIL_PERF_EVENT_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* sys_perf_event_open - the system call: a file descriptor, or -1 with errno set. */
static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				      int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* perf_event_open_fd - perf_event_open(2) with O_CLOEXEC: the fd, or a negative errno. */
static inline int perf_event_open_fd(struct perf_event_attr *attr, pid_t pid, int cpu,
				     int group_fd)
{
	int fd = sys_perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * perf_attr_is_hrtimer - cpu-clock or task-clock: software events on an hrtimer, whose frequency
 * the kernel turns into the fixed period 1e9 / freq when it creates them
 * (perf_swevent_init_hrtimer()), so that their rate follows from the period too.
 */
static inline bool perf_attr_is_hrtimer(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/**
 * perf_attr_can_share - could one counter count for both events? The same type, config, config1,
 * config2 (a breakpoint's address and length), bp_type for a breakpoint, exclusion bits (user,
 * kernel, hv, idle, host, guest), precise_ip, pinned and exclusive; and the same scope: with a
 * task target (cpu_wide false) the same inherit and inherit_stat, which decide whether children
 * count too (on each CPU with pid -1, cpu_wide, inherit means nothing). Whether an event samples
 * is the caller's to judge: a counter that samples serves one event only.
 *
 * Return: true when they could share a counter.
 */
bool perf_attr_can_share(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide);

/*
 * The alternating period of the hf-period series ("A mechanism for efficient support for
 * per-function metrics", not in mainline as of 6.18): one u64 after config3, the attr growing to
 * 144 bytes (PERF_ATTR_SIZE_VER9), laid out as the series' uapi header has it:
 *
 *	union { __u64 hf_sample; struct { __u64 hf_sample_period:32, hf_sample_rand:4,
 *					   __reserved_4:28; }; };
 *
 * The event then alternates between its period minus hf_sample_period and hf_sample_period;
 * hf_sample_rand R (needs a period) adds a jitter 1 << R wide, centred on the long period. A
 * kernel without the field refuses any non-zero byte past its own attr with E2BIG and writes
 * its size back into attr.size.
 */
#define PERF_ATTR_HF_SIZE 144
#define PERF_ATTR_HF_OFFSET 136
#define PERF_ATTR_HF_RAND_MAX 15

/**
 * perf_attr_hf_build - the bytes perf_event_open() gets for an event with an alternating period:
 * in's bytes (zeros up to config3's end when in is shorter), size set to PERF_ATTR_HF_SIZE, and
 * the hf_sample word at PERF_ATTR_HF_OFFSET made of period and rand.
 * @out: PERF_ATTR_HF_SIZE bytes
 *
 * Return: 0, or -EINVAL for a rand above PERF_ATTR_HF_RAND_MAX or a rand without a period (the
 * kernel refuses the latter); out is then left untouched.
 */
int perf_attr_hf_build(const struct perf_event_attr *in, unsigned int period, unsigned int rand,
		       void *out);

#endif
