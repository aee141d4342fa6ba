/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --bpf-counters: one counter per CPU for an event, opened machine-wide (pid -1, inherit 0) by
 * the first session that counts it and shared by every later one through BPF, so that sessions
 * counting the same event do not multiplex each other.
 *
 * The state lives in bpffs under the pin root (/sys/fs/bpf/prec, or $PREC_BPF_PIN_ROOT, meant
 * for tests that must not see each other's counters):
 *
 *	attrs		a hash map keyed by the normalised attr (struct bperf_key), at most
 *			BPERF_MAX_EVENTS entries; the value (struct bperf_entry) names the event's
 *			perf event array by map id and the sessions using it by the ids of their
 *			reader programs
 *	events_<id>	the event's perf event array (BPF_F_PRESERVE_ELEMS, one slot per possible
 *			CPU), pinned under its own map id (bpffs refuses names with a dot)
 *
 * Every create, join and leave holds flock(LOCK_EX) on the attrs map. A session that is gone
 * (killed with SIGKILL) leaves ids that no longer resolve, or resolve to something else: they are
 * dropped when found; an entry whose array is gone is made again. Before an event is created,
 * every entry is swept: an entry without a live user is removed with its array, and so is an
 * array that no entry names (a session killed between pinning it and writing its entry), so that
 * killed sessions neither fill the map nor keep their counters running.
 *
 * Each session loads its own reader (record/bperf.bpf.c) per event: on sched_switch it adds the
 * counter's growth over the intervals in which a task of the session's target ran
 * (record/bperf-calc.h). Built only with BPF (HAVE_BPF); without it bperf_new() says -ENOTSUP.
 */
#ifndef PREC_RECORD_BPERF_H
#define PREC_RECORD_BPERF_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

#include "record/bperf-calc.h"

/* The attr map's size, as perf's bperf: more distinct events count with their own counters. */
#define BPERF_MAX_EVENTS 16
/* Sessions one shared counter serves at once. */
#define BPERF_MAX_USERS 14
#define BPERF_PIN_ROOT "/sys/fs/bpf/prec"

/* What a session counts: enum bperf_mode's target. */
struct bperf_target {
	enum bperf_mode mode;
	const int *cpus;      /* BPERF_CPUS: the CPUs */
	int nr_cpus;
	const pid_t *tasks;   /* BPERF_TGIDS (processes), BPERF_TIDS (threads) */
	int nr_tasks;
	pid_t workload;       /* BPERF_TGIDS: a process followed from its exec; 0 for none */
	bool children;        /* BPERF_TGIDS: the children the processes fork too */
};

/* How a session came by an event's counter. */
enum bperf_how {
	BPERF_CREATED,  /* it opened the counters */
	BPERF_JOINED,   /* another session had, and one still uses it */
	BPERF_REUSED,   /* another session had, and every one that used it is gone (killed) */
};

struct bperf;

#ifdef HAVE_BPF
/**
 * bperf_new - a session of shared counters for target t (copied). bpffs is mounted at
 * /sys/fs/bpf when the pin root is under it and nothing is mounted there.
 *
 * Return: 0 and *out, or a negative errno (-ENOTSUP when BPF cannot be used).
 */
int bperf_new(const struct bperf_target *t, struct bperf **out);

/**
 * bperf_add - count the event of attr (a counting attr) through the shared counter of its
 * normalised attr: join it, or create it when no session has. *how says which.
 *
 * Return: the event's index in b, or a negative errno: -E2BIG when the attr map is full,
 * -EUSERS when the counter serves BPERF_MAX_USERS sessions already, what the kernel said when
 * it would not open the event per CPU or load the reader.
 */
int bperf_add(struct bperf *b, const struct perf_event_attr *attr, enum bperf_how *how);

/**
 * bperf_enable - start counting: attach every event's reader, and take a first reading on each
 * CPU. Before it nothing counts.
 *
 * Return: 0 or a negative errno.
 */
int bperf_enable(struct bperf *b);

/**
 * bperf_disable - stop counting, after a last reading on each CPU; the values stay readable.
 */
void bperf_disable(struct bperf *b);

/**
 * bperf_read - bring event ev's accumulators up to now: its reader runs on each CPU, which
 * attributes the interval since the last switch there. Does nothing once disabled.
 *
 * Return: 0 or a negative errno.
 */
int bperf_read(struct bperf *b, int ev);

/**
 * bperf_value - what event ev counted on CPU cpu for this session since bperf_enable(), or on
 * all CPUs together when cpu is -1.
 *
 * Return: 0 and *v, or a negative errno.
 */
int bperf_value(struct bperf *b, int ev, int cpu, struct bperf_reading *v);

/**
 * bperf_exec_done - the workload has exec'ed (the caller saw its exec succeed): stop looking at
 * every system call for it. Harmless when there is no workload or it was done already.
 */
void bperf_exec_done(struct bperf *b);

/**
 * bperf_has_counter - does event ev's shared array hold a counter for CPU cpu? A CPU that came
 * online after the array was created has none: nothing is counted there. Meaningful once
 * bperf_enable() read every CPU.
 *
 * Return: true when it does.
 */
bool bperf_has_counter(struct bperf *b, int ev, int cpu);

/**
 * bperf_pin_root - the directory of the shared state: $PREC_BPF_PIN_ROOT or BPERF_PIN_ROOT.
 *
 * Return: a string that lives as long as the environment.
 */
const char *bperf_pin_root(void);

/**
 * bperf_free - leave every shared counter (the last session removes it, and the attr map and
 * the directory when nothing is left) and free b. NULL does nothing.
 */
void bperf_free(struct bperf *b);
#else
static inline int bperf_new(const struct bperf_target *t, struct bperf **out)
{
	(void)t;
	*out = NULL;
	return -ENOTSUP;
}
static inline int bperf_add(struct bperf *b, const struct perf_event_attr *a, enum bperf_how *h)
{
	(void)b, (void)a, (void)h;
	return -ENOTSUP;
}
static inline int bperf_enable(struct bperf *b)
{
	(void)b;
	return -ENOTSUP;
}
static inline void bperf_disable(struct bperf *b)
{
	(void)b;
}
static inline int bperf_read(struct bperf *b, int ev)
{
	(void)b, (void)ev;
	return -ENOTSUP;
}
static inline int bperf_value(struct bperf *b, int ev, int cpu, struct bperf_reading *v)
{
	(void)b, (void)ev, (void)cpu, (void)v;
	return -ENOTSUP;
}
static inline void bperf_exec_done(struct bperf *b)
{
	(void)b;
}
static inline bool bperf_has_counter(struct bperf *b, int ev, int cpu)
{
	(void)b, (void)ev, (void)cpu;
	return false;
}
static inline void bperf_free(struct bperf *b)
{
	(void)b;
}
#endif

#endif
