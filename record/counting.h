/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting engine: counting events opened as perf stat opens them and read, without a record
 * session. prec record --count (record/counters.c, a hook that writes the readings into the file)
 * and a counting command both drive it.
 *
 * Events and sources. An event is one logical event of the caller (an index from counting_add()
 * or counting_add_opened(), in the order they were added). A source is the set of counters an
 * event's readings come from: the fds of an event the caller opened (the recorder's, sampling or
 * counting), the fds the engine opened for a counting event, or a caller's kind of counter read
 * through a callback (struct counting_source_ops). Events that may share a counter
 * (counters_plan()) read one source, read once per round, so that their readings come from the
 * same read() and agree exactly.
 *
 * Counters and slots. An event's counters are indexed k = cpu_idx * nr_threads + thread_idx for
 * fds opened on every CPU for each thread (the recorder's layout, and the engine's with
 * cpu_wide), or k = thread_idx for counters on any CPU (the engine's for a task target: one per
 * thread, with inherit unless told not to, so that one read() gives its value, time enabled and
 * time running). A reading is per slot: with cpu_wide the slot is k (the CPU index, one thread
 * -1), for a task target the thread index, a thread's per-CPU counters combined into one
 * reading (counters_combine()). A counter shared across sessions (bpf_counters) of a task target
 * is one counter and one slot: its reading is the whole target's. Readings count from
 * counting_enable().
 *
 * The life of an engine:
 *
 *	counting_new()		the target: CPUs, threads, scope
 *	counting_add*()		the events, in order
 *	counting_open()		the sharing plan, then the counters opened; a refusal is the event's
 *				(not counted), as in perf stat
 *	counting_enable()	the base readings; own counters enabled unless a workload's exec does
 *	counting_read()		one round: every source read once, every event's readings updated
 *	counting_disable()	own counters disabled (then a last counting_read())
 *	counting_free()
 *
 * It prints through util/log.h only: warnings for events it cannot count, a note when it falls
 * back to counting user space, one when an event that asked for a counter shared across sessions
 * counts with its own (and why), and at -v whether it created or joined one.
 */
#ifndef PREC_RECORD_COUNTING_H
#define PREC_RECORD_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "format/ondisk.h"

struct counting;

/* What the counters follow. */
struct counting_target {
	const int *cpus;       /* the CPUs; with a task target those the caller's fds are on */
	int nr_cpus;
	const pid_t *threads;  /* -1 alone when cpu_wide */
	int nr_threads;
	bool cpu_wide;         /* -a, -C: per CPU, pid -1 */
	bool workload;         /* enabled on exec of the workload (threads[0]) */
	bool inherit;          /* children counted (not with -i, -t) */
	bool bpf_counters;     /* a counter shared across sessions, where an event can have one */
};

/* A reading: cumulative since the event was enabled. */
struct counting_value {
	u64 val, ena, run;
};

/* How an event's readings are made. */
enum counting_via {
	COUNTING_NONE,        /* not counted: its counter could not be opened */
	COUNTING_OWN,         /* its own counters */
	COUNTING_SHARED,      /* the counter of another event of this engine (counting_shared()) */
	COUNTING_BPF_CREATED, /* a counter shared across sessions, which this one created */
	COUNTING_BPF_JOINED,  /* a counter shared across sessions, which another one created */
};

/*
 * Another kind of counter standing in for an event's fds: nr counters (indexed as the engine's
 * own would be for the target), each read as one cumulative value/enabled/running triple.
 */
struct counting_source_ops {
	/* Counter k: 0 with *v set, or a negative errno (the last reading is kept). */
	int (*read)(void *priv, int k, struct counting_value *v);
	/* From counting_enable() and counting_disable(); may be NULL. */
	void (*enable)(void *priv);
	void (*disable)(void *priv);
	/* From counting_free(). */
	void (*release)(void *priv);
};

/* What an event is to the sharing rule. */
enum counters_kind {
	COUNTERS_SAMPLING, /* samples: never shared, never shares */
	COUNTERS_OPENED,   /* counts, opened by the caller (-e ... :S members): may be shared */
	COUNTERS_COUNT,    /* a counting event: may share an earlier compatible counter */
};

/**
 * counters_compatible - may one counter stand for both events? Both count (no period, no
 * frequency) with the same type, config, config1, config2, bp_type, exclusion bits (user,
 * kernel, hv, idle, host, guest), precise_ip, pinned and exclusive, and the same scope: with
 * a task target the same inherit (with cpu_wide, pid -1 on each CPU, inherit means nothing).
 *
 * Return: true when they may.
 */
bool counters_compatible(const struct perf_event_attr *a, const struct perf_event_attr *b,
			 bool cpu_wide);

/**
 * counters_plan - which counter each event reads.
 * @attrs: n attrs in file order
 * @kind: what each one is
 * @shared_with: set per event: the index of the earlier event whose counter it reads (one that
 *		 opens its own), or -1 when it opens its own (always -1 but for COUNTERS_COUNT)
 */
void counters_plan(const struct perf_event_attr *const *attrs, const enum counters_kind *kind,
		   int n, bool cpu_wide, int *shared_with);

/* One of a thread's per-CPU counters, as counters_combine() takes it. */
struct counters_part {
	u64 id;           /* its id in the file; 0 where the event is not read on that CPU */
	bool ok;          /* there is a reading (the last read() that succeeded) */
	u64 val, ena, run; /* since the logical event was enabled */
};

/**
 * counters_combine - a task's counters on each CPU (the recorder's events of a task target) as
 * the one reading on any CPU that perf stat's counter per thread would give.
 * @p: nr parts, one per CPU
 * @never_mux: the event cannot be multiplexed (software or tracepoint, in a recording of only
 *	       such events)
 * @gap: the enabled - running of this reading's previous round (0 at first); updated
 * @st: set: id (the first nonzero part id, whether or not its CPU was read: a reading keeps
 *	one id), cpu -1, val, ena, run; thread is left 0 for the caller
 *
 * The values and the running times add up. The time enabled is the task's on every CPU (a CPU
 * the task did not run on sees its counter enabled and not running), so it would be taken once,
 * but each CPU's is read at a slightly different moment, and the kernel brings an inherited
 * child's time enabled forward only when the child runs or exits there (with children running
 * at once on two CPUs the largest was seen 70 us behind the sum of running times). So: with
 * never_mux, enabled = running (it ran whenever it was enabled); otherwise the largest, at least
 * the summed running time, and never leading running by less than in the previous round, so
 * that no interval runs longer than it was enabled and an event that was not multiplexed shows
 * no running share below 100% that perf stat report would print and scale by.
 *
 * Return: true when some part was read (st is set), false when none was.
 */
bool counters_combine(const struct counters_part *p, int nr, bool never_mux, u64 *gap,
		      struct pd_stat_body *st);

/**
 * counting_attr_init - make attr a counting event for target t, as the engine opens it: no
 * period or sample type, read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID, disabled,
 * enable_on_exec with a workload, inherit as t says, the size perf.data has.
 */
void counting_attr_init(struct perf_event_attr *attr, const struct counting_target *t);

/**
 * counting_new - an engine for target t (its arrays are kept, not copied: they must outlive it).
 *
 * Return: the engine; it aborts on no memory, as xalloc does.
 */
struct counting *counting_new(const struct counting_target *t);

/**
 * counting_add - a counting event the engine opens.
 * @attr: as counting_attr_init() makes it (copied; counting_attr() has it as opened)
 * @name: for messages (copied)
 * @leader: the index of its group leader (an earlier counting_add() event), or -1 (or its own
 *	    index to come): it is opened in the leader's group when the leader has its own counter
 *
 * Return: its index, or -EBUSY after counting_open().
 */
int counting_add(struct counting *c, const struct perf_event_attr *attr, const char *name,
		 int leader);

/**
 * counting_add_opened - an event the caller opened and keeps open: read, never enabled, disabled
 * or closed by the engine.
 * @attr: as opened (read_format with TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID); a sampling event
 *	  reads its own counter only
 * @fd, @id: [k] in the recorder's layout (nr_cpus * nr_threads entries): the fds, -1 where not
 *	     open, and their kernel ids; kept, not copied
 * @nr: the number of entries
 *
 * Return: its index; -EINVAL when nr is not nr_cpus * nr_threads; -EBUSY after counting_open().
 */
int counting_add_opened(struct counting *c, const struct perf_event_attr *attr, const char *name,
			const int *fd, const u64 *id, int nr);

/**
 * counting_open - plan which events share a counter (counters_plan()), then open the counters
 * of the counting events that do not share, in order. An event whose counter the kernel refuses
 * is not counted (a warning says why); without the permission to count the kernel, the events
 * count user space only (exclude_kernel and exclude_hv set, a note says so once).
 *
 * Return: 0; -EMFILE (or -ENFILE) after an error message when out of file descriptors; -EBUSY
 * when called twice.
 */
int counting_open(struct counting *c);

/**
 * counting_enable - take every event's base reading (every source read once), then enable the
 * engine's own counters, unless a workload's exec enables them (enable_on_exec). The caller
 * enables the events it opened after this.
 */
void counting_enable(struct counting *c);

/**
 * counting_exec_done - the workload's exec succeeded (after counting_enable()): what only had to
 * see it start stops, so that nothing runs on every system call of the machine meanwhile.
 */
void counting_exec_done(struct counting *c);

/* counting_disable - disable the engine's own counters (the caller disables its own). */
void counting_disable(struct counting *c);

/* counting_read - one round: every source read once, every event's readings updated. */
void counting_read(struct counting *c);

/* counting_nr_events - the number of events added. */
int counting_nr_events(const struct counting *c);

/**
 * counting_attr - event ev's attr as opened (the fallback to user space sets exclude_kernel and
 * exclude_hv; disabled and enable_on_exec as its group makes them).
 *
 * Return: the attr, or NULL for no such event.
 */
const struct perf_event_attr *counting_attr(const struct counting *c, int ev);

/**
 * counting_supported - is event ev counted at all (some counter opened, its own or shared)?
 *
 * Return: true when it is.
 */
bool counting_supported(const struct counting *c, int ev);

/**
 * counting_shared - the event whose counter ev reads.
 *
 * Return: that index, or -1 when ev has its own (or none).
 */
int counting_shared(const struct counting *c, int ev);

/**
 * counting_via - how event ev's readings are made.
 * @why: set, when not NULL, to the reason an event the target asked a counter shared across
 *	 sessions for counts otherwise (a group, no BPF), else to NULL
 *
 * Return: the way.
 */
enum counting_via counting_via(const struct counting *c, int ev, const char **why);

/**
 * counting_nr_counters - the counters event ev's readings come from (its source's, in its
 * layout; see the top of this file).
 *
 * Return: their number, 0 when ev is not counted.
 */
int counting_nr_counters(const struct counting *c, int ev);

/**
 * counting_counter - is counter k of event ev there?
 * @kid: set to its kernel id, or 0 when it has none (a callback source)
 *
 * Return: true when it is open.
 */
bool counting_counter(const struct counting *c, int ev, int k, u64 *kid);

/**
 * counting_nr_slots - the readings of event ev: CPUs (cpu_wide, times threads) or threads.
 *
 * Return: their number, 0 when ev is not counted.
 */
int counting_nr_slots(const struct counting *c, int ev);

/**
 * counting_slot_counter - the first counter of slot s that is open: its id names the slot's
 * reading in a file.
 *
 * Return: its k, or -1 when the slot has none.
 */
int counting_slot_counter(const struct counting *c, int ev, int s);

/**
 * counting_reading - event ev's reading of slot s, as of the last counting_read(): value, time
 * enabled and time running since counting_enable().
 *
 * Return: true with *v set, false when nothing of the slot was ever read.
 */
bool counting_reading(const struct counting *c, int ev, int s, struct counting_value *v);

/**
 * counting_total - event ev's readings summed over its slots (values, times enabled and times
 * running, as perf stat aggregates them).
 *
 * Return: true with *v set, false when no slot was read.
 */
bool counting_total(const struct counting *c, int ev, struct counting_value *v);

/* counting_free - close the engine's counters and free it (NULL is fine). */
void counting_free(struct counting *c);

#endif
