/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of a recording: their attrs, configured as perf record 6.1 configures them, opened
 * on every CPU and thread of the target, with one ring buffer per CPU that every event on that
 * CPU writes into (PERF_EVENT_IOC_SET_OUTPUT).
 */
#ifndef PREC_RECORD_EVLIST_H
#define PREC_RECORD_EVLIST_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "format/ondisk.h"
#include "record/parse-events.h"
#include "util/ring-buffer.h"

struct record_opts;
struct target;

struct evsel {
	struct perf_event_attr attr;
	char *name;
	const struct event_spec *spec; /* NULL for the default event and synthetic ones */
	bool synthetic;   /* declared by a hook: in the file, never opened */
	bool is_default;  /* the default event (cycles), which may fall back to cpu-clock */
	bool is_tracking_dummy; /* dummy:HG, added for -G: side-band of every task, all CPUs */
	int cgroup_fd;    /* -G: opened in this cgroup (PERF_FLAG_PID_CGROUP); -1: none */
	int leader;       /* index of the group leader, -1 when not in a group */
	int group_size;   /* on a leader */
	bool sample_read; /* the leader of a :S group */
	/*
	 * cpu-clock and task-clock asked for a frequency: the frequency, which the attr carries
	 * as the fixed period the kernel would have made of it (evlist.c, hrtimer_period()).
	 */
	u64 hrtimer_freq;
	bool fix_hrtimer; /* may do so (not in pipe mode, not without the kernel's limit) */
	bool keep_period; /* -P: PERIOD in every sample, even when the attr fixes it */
	const char *filter;
	int *fd;          /* [cpu * nr_threads + thread], -1 when not open */
	u64 *id;          /* same layout */
	u64 *ids;         /* the ids of the open fds, compact */
	u32 nr_ids;
};

struct evlist {
	struct evsel *ev;
	int nr;
	int nr_cpus, nr_threads; /* from the target, when opened */
	/*
	 * One per CPU, or one per thread with --per-thread (cpu -1): the kernel redirects no
	 * per-task event into another task's ring. base NULL when no event is open for it.
	 */
	struct ring_buffer *rings;
	int nr_rings;
	int *ring_cpu;           /* the CPU index of each ring */
	struct pollfd *pfd;
	int *pfd_ring;           /* the ring each pollfd drains */
	int nr_pfd;
	int nr_hup;              /* pollfds that reported POLLHUP (and are no longer polled) */
	bool poll_all;           /* task target: poll every fd, to see the tasks exit */
};

/**
 * evlist_add_events - one evsel per parsed event (names and groups from parse_events()).
 */
void evlist_add_events(struct evlist *evl, const struct event_list *list);
/* The default event: cycles (it falls back to cpu-clock when the machine has no PMU). */
void evlist_add_default(struct evlist *evl);
/**
 * evlist_add_synthetic - an event of prec's own, written to the file but never opened.
 *
 * Return: its index.
 */
int evlist_add_synthetic(struct evlist *evl, const struct perf_event_attr *attr,
			 const char *name);

/**
 * evlist_config - set every attr as perf record 6.1 does for these options (see evlist.c).
 */
void evlist_config(struct evlist *evl, const struct record_opts *opts, const struct target *t);

/* Exclude the kernel (and hypervisor) from every opened event; names get ":u" as in perf. */
void evlist_exclude_kernel(struct evlist *evl);
/* Do all opened events exclude the kernel? */
bool evlist_all_exclude_kernel(const struct evlist *evl);
/* Is there a tracepoint among the events? */
bool evlist_has_tracepoint(const struct evlist *evl);

/**
 * evlist_check_hf - check the alternating-period terms of every event (alt-period=, hf-period=,
 * hf-rand=, alt-period-jitter=) and, when one asks for it, whether the kernel has the field
 * (probed once per process); call it before anything is opened, evlist_open() does it again.
 *
 * Return: 0, or -1 after a one-line error message that says why.
 */
int evlist_check_hf(const struct evlist *evl);

/**
 * evsel_hf - the alternating period the event is opened with (hf-period=, alt-period=).
 * @rand: set to its jitter's exponent (hf-rand=, or alt-period-jitter= converted), 0 for none
 *
 * Return: the period, 0 for none.
 */
u32 evsel_hf(const struct evsel *ev, u32 *rand);

/* The perf_event_open() of evlist_set_open_fn(): a file descriptor, or -1 with errno set. */
typedef int (*evlist_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags);

/**
 * evlist_set_open_fn - make fn open the events and answer the probe of evlist_check_hf() (NULL:
 * the system call), and forget what the probe found: tests play a kernel with it.
 */
void evlist_set_open_fn(evlist_open_fn fn);

/**
 * evlist_open - open every event on every CPU and thread of the target, read the ids, set the
 * filters.
 *
 * Return: 0, or -1 after a one-line error message that says why.
 */
int evlist_open(struct evlist *evl, const struct target *t);

/**
 * evlist_mmap - map one ring buffer of pages data pages per CPU (per thread with
 * --per-thread) and redirect the other events on that CPU (thread) to it; build the poll set.
 *
 * Return: 0, or -1 after an error message.
 */
int evlist_mmap(struct evlist *evl, const struct target *t, unsigned pages);

/**
 * evlist_backward_end - where the whole records of a backward (--overwrite) ring that begin at
 * start end, at most one buffer's size further: the older ones were overwritten.
 *
 * Return: the end position.
 */
u64 evlist_backward_end(const struct ring_buffer *r, u64 start);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on every ring: the kernel writes nothing while it is read. */
void evlist_pause(struct evlist *evl, bool pause);

/* PERF_EVENT_IOC_ENABLE / DISABLE on every open fd. */
void evlist_enable(struct evlist *evl);
void evlist_disable(struct evlist *evl);

/**
 * evlist_read_lost - the samples each event lost (PERF_FORMAT_LOST), reported per fd.
 * @fn: called for every fd with a non-zero count
 */
void evlist_read_lost(struct evlist *evl, const struct target *t,
		      void (*fn)(void *arg, const struct evsel *ev, int cpu_idx, int thread_idx,
				 u64 id, u64 lost),
		      void *arg);

/* Unmap the rings, close every fd, free the evsels. */
void evlist_free(struct evlist *evl);

/* The default number of data pages per ring: perf's (perf_event_mlock_kb minus one page). */
unsigned evlist_default_mmap_pages(void);

#endif
