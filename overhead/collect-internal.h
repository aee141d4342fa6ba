/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the files of overhead/ that measure: the collector object and the two sources behind
 * it (they open events with util/perf-event.h and read them with util/ring-buffer.h).
 */
#ifndef PREC_OVERHEAD_COLLECT_INTERNAL_H
#define PREC_OVERHEAD_COLLECT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "config.h"
#include "overhead/collect.h"

#define KALLSYMS_PATH "/proc/kallsyms"

/* The kernel functions behind enum overhead_handler. */
extern const char *const overhead_handler_symbol[OVERHEAD_HANDLER_NR];

struct collect_bpf;
struct collect_tp;

struct overhead_collector {
	enum overhead_source source; /* what runs: bpf, tracepoint or none */
	int nr_cpus;
	int *cpus;
	u64 addr[OVERHEAD_HANDLER_NR]; /* from /proc/kallsyms; 0: not found */
	char handler_reason[OVERHEAD_HANDLER_NR][640];
	char reason[640];
	bool started;
	struct collect_bpf *bpf;
	struct collect_tp *tp;
};

/*
 * The sources, collect_bpf_*() in collect-bpf.c and collect_tp_*() in collect-tp.c, called by
 * collect.c only:
 *
 * open: set up for c->cpus with the handler addresses in c->addr; fill c->bpf or c->tp and
 *	return 0, or return a negative errno with a one-line reason in why (len bytes). It may
 *	also fill c->handler_reason for a handler it cannot see.
 * start, stop: return 0 or a negative errno (start keeps its reason in c->reason).
 * read: fill the handler figures and lost of c->nr_cpus entries (cpu is already set); return 0
 *	or a negative errno.
 * close: free what open made; safe after a failed open.
 */
#ifdef HAVE_BPF
int collect_bpf_open(struct overhead_collector *c, char *why, size_t len);
int collect_bpf_start(struct overhead_collector *c);
int collect_bpf_stop(struct overhead_collector *c);
int collect_bpf_read(struct overhead_collector *c, struct overhead_cpu_stats *st);
void collect_bpf_close(struct overhead_collector *c);
#else
#include <stdio.h>

static inline int collect_bpf_open(struct overhead_collector *c, char *why, size_t len)
{
	snprintf(why, len, "prec was built without the BPF collector (configure --without-bpf, or "
		 "libbpf, clang, bpftool or kernel BTF missing)");
	return -EOPNOTSUPP;
}

static inline int collect_bpf_start(struct overhead_collector *c)
{
	return -EOPNOTSUPP;
}

static inline int collect_bpf_stop(struct overhead_collector *c)
{
	return -EOPNOTSUPP;
}

static inline int collect_bpf_read(struct overhead_collector *c, struct overhead_cpu_stats *st)
{
	return -EOPNOTSUPP;
}

static inline void collect_bpf_close(struct overhead_collector *c)
{
}
#endif

int collect_tp_open(struct overhead_collector *c, char *why, size_t len);
int collect_tp_start(struct overhead_collector *c);
int collect_tp_stop(struct overhead_collector *c);
int collect_tp_read(struct overhead_collector *c, struct overhead_cpu_stats *st);
void collect_tp_close(struct overhead_collector *c);

#endif
