/* SPDX-License-Identifier: GPL-2.0 */
/* perf_event_open(2), which glibc does not wrap. */
#ifndef PREC_UTIL_PERF_EVENT_H
#define PREC_UTIL_PERF_EVENT_H

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* sys_perf_event_open - the system call: a file descriptor, or -1 with errno set. */
static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				      int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

#endif
