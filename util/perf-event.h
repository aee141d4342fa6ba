/* SPDX-License-Identifier: GPL-2.0 */
/* perf_event_open(2), which glibc does not wrap, and what the kernel does with some attrs. */
#ifndef PREC_UTIL_PERF_EVENT_H
#define PREC_UTIL_PERF_EVENT_H

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

#endif
