/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of a recorded machine while prec report replays a perf.data file, as perf's
 * session, machine and thread code keeps it: threads from COMM, FORK and EXIT; per process the
 * maps of MMAP and MMAP2 (a fork copies the parent's, a thread shares its leader's); the kernel
 * map and the modules, from the kernel MMAP and /proc/kallsyms and /proc/modules at report time;
 * and the records in time order, as perf's ordered-events queue delivers them: every record with
 * a timestamp waits in the queue, and at each FINISHED_ROUND the records up to the largest
 * timestamp seen before the previous FINISHED_ROUND go out, sorted by time (records of equal time
 * in file order).
 *
 * Addresses resolve to "frames": a binary and a symbol in it, or a binary and an address when no
 * symbol holds it. Each frame gets a small number, and a cache keyed by (address space, address)
 * makes resolving an address that was seen before a single lookup: this is the hot path.
 */
#ifndef PREC_REPORT_SESSION_H
#define PREC_REPORT_SESSION_H

#include <stdbool.h>

#include "format/perf-data.h"
#include "report/input.h"
#include "report/symbols.h"

struct map {
	u64 start, end, pgoff;
	struct dso *dso;
	bool identity; /* the map-relative address is the address itself (kernel, anon, [heap]) */
};

struct maps {
	struct map *v; /* sorted by start, not overlapping */
	u32 nr, cap;
	u32 refs;
	u32 gen;  /* changes whenever the maps do: the address cache keys on it */
	u32 last; /* the map the previous lookup found */
};

/* The map of m that holds addr, or NULL. */
static inline struct map *maps_find(struct maps *m, u64 addr)
{
	u32 lo = 0, hi = m->nr;
	struct map *v = m->v;

	if (m->last < m->nr && addr >= v[m->last].start && addr < v[m->last].end)
		return &v[m->last];
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (addr < v[mid].start)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else {
			m->last = mid;
			return &v[mid];
		}
	}
	return NULL;
}

struct thread {
	struct thread *hnext;
	struct thread *next; /* every thread, in creation order */
	int pid, tid;
	const char *comm; /* interned: equal names, equal pointers; but the thread's own ":tid" */
	bool comm_set;	  /* a COMM (or the parent's at FORK) named it; else ":tid" */
	struct interned *own_comm; /* that ":tid" */
	struct maps *maps;
	int ppid;      /* the parent's tid, from FORK (perf's thread->ppid); -1 if none */
	bool replaced; /* a newer thread of its tid took its place */
	void *memo; /* the view's memory of this thread's previous sample */
	void (*memo_free)(void *memo);
};

/* One resolved address. */
struct frame {
	struct dso *dso;       /* NULL: no map holds the address */
	const struct sym *sym; /* NULL: unresolved */
	u64 ip;		       /* the address (perf's callchains show it unresolved) */
	u64 rel;	       /* map-relative (what perf's table shows when unresolved) */
	char level;	       /* '.' user, 'k' kernel, 'H' hypervisor */
};

struct frame_bucket {
	u32 hash, id; /* id 0: empty */
};

/* A sample, as the session hands it to the view. */
struct psample {
	u64 time, ip, period;
	int pid, tid;
	int cpu; /* -1 without PERF_SAMPLE_CPU */
	int attr;
	/* the samples it stands for: its WEIGHT when its event was aggregated in the kernel, else 1 */
	u64 count;
	u16 cpumode;
	u32 nr_chain;	     /* 0 without PERF_SAMPLE_CALLCHAIN */
	bool chain_recorded; /* its event has PERF_SAMPLE_CALLCHAIN */
	const u64 *chain;    /* a copy in the queue (or the unwound chain): valid in the call */
	/*
	 * With session.want_user_stacks, what dwarf call graphs record (REGS_USER, STACK_USER),
	 * copied with the chain: uregs NULL when the sample has none. The session unwinds them and
	 * appends the user frames to chain before the view sees the sample.
	 */
	u64 uregs_abi, uregs_mask;
	const u64 *uregs;
	const void *ustack;
	u64 ustack_size; /* the valid bytes (the kernel's dyn_size) */
	u32 unwound_at; /* the chain's user frames the session unwound start after this mark */
	bool unwound;
};

/*
 * With session.want_read, the sample's id and read values follow its struct psample in the
 * queue (session_sample_read()): the other views do not pay for them.
 */
struct psample_read {
	u64 id;
	u64 nr; /* 0 without PERF_SAMPLE_READ */
	struct pd_read_value values[];
};

struct session;
typedef void (*sample_fn)(struct session *s, struct thread *t, const struct psample *smp,
			  void *arg);
/* A THROTTLE or UNTHROTTLE record in its time order (session.throttle_fn). */
typedef void (*record_fn)(struct session *s, const struct pd_record_header *h, void *arg);

/* Interned strings: one copy of each, with a small number. */
struct interned {
	const char *str;
	u32 len, id, hash;
	struct interned *hnext;
	/*
	 * A thread's own ":tid" (thread.comm before anything named it) is not in the table: it
	 * stands for canon, the shared ":tid", or for renamed once a COMM named the thread.
	 */
	const char *canon, *renamed;
};

struct session {
	struct report *rep;
	struct pd_reader *r;
	struct dsos dsos;

	/* threads by tid */
	struct thread **threads;
	u32 threads_mask, nr_threads;
	struct thread *all_threads, *last_thread_added, *last_thread;

	/* strings (comms, dso names) */
	struct interned **strs;
	u32 strs_mask, nr_strs;
	struct interned **str_by_id;

	/* the kernel */
	struct maps *kmaps;
	struct dso *kernel;
	bool kernel_map_set; /* by the file's kernel MMAP */
	bool kernel_loaded;
	u64 kernel_reloc;

	/* frames and the address cache */
	struct frame *frames;
	u32 nr_frames, cap_frames;
	struct frame_bucket *frame_table;
	u32 frame_mask;
	struct fcache_entry *fcache;

	/* the ordered-events queue */
	struct queue *q;

	sample_fn sample;
	void *sample_arg;
	/* set by the view before session_process(): what it needs beyond the samples' addresses */
	bool want_read;	     /* each sample's id and read values: session_sample_read() */
	record_fn throttle_fn; /* THROTTLE and UNTHROTTLE records, queued in time order */
	bool want_user_stacks; /* dwarf call graphs unwound into the samples' chains */
	int max_stack;	       /* --max-stack: the most user frames unwound (0: perf's 127) */

	/* unwinding user stacks (report/unwind.h): NULL until a sample has one */
	struct unwinder *unwinder;
	bool unwind_tried; /* unwinder_new() was called (it gives NULL without libdw) */
	u64 *uchain;	   /* a sample's chain with its unwound user frames */
	u32 uchain_cap;
	struct unwind_ahead *ahead; /* the user frames of the samples next in the queue */

	/* per attr: counted in the kernel, each SAMPLE WEIGHT samples; NULL when none was */
	bool *aggregated;
	u32 nr_aggregated; /* its length: the attrs when the session began */

	/* what was seen; nr_samples counts what the samples stand for (psample.count) */
	u64 nr_samples, unknown_id, lost_samples, lost_events;
	u32 nr_own_comms; /* threads given their own ":tid" (struct thread.own_comm) */
	u64 nr_unordered;  /* records that came after a flush that should have covered them */
	u64 fcache_misses; /* addresses resolved the slow way (-vv prints it) */
	/* prec:overhead's samples: not in nr_samples, never delivered (session_init()) */
	u64 nr_overhead;
};

/**
 * session_init - set up the state for the open file of rep.
 * @fn: called for every sample, in time order, with the thread it belongs to; never for those of
 *	prec:overhead, which are costs, not places in a program (nor are they in nr_samples)
 */
void session_init(struct session *s, struct report *rep, sample_fn fn, void *arg);
/* Free everything the session holds (the reader stays open). */
void session_exit(struct session *s);

/**
 * session_process - read every record, queue and deliver them in time order.
 *
 * Return: 0, or -1 after printing the reader's error.
 */
int session_process(struct session *s);

/* The flag session_resolve_flagged() sets on frames that have no symbol. */
#define FRAME_UNRESOLVED 0x80000000u

/**
 * session_resolve_flagged - the frame of address ip of thread t in cpumode, with
 * FRAME_UNRESOLVED set when it has no symbol (so that the caller need not look at the frame).
 *
 * Return: the frame's number (1 and up), maybe with FRAME_UNRESOLVED.
 */
u32 session_resolve_flagged(struct session *s, struct thread *t, u16 cpumode, u64 ip);

/**
 * session_sample_read - the id and read values of a sample being delivered, when the view set
 * session.want_read.
 *
 * Return: them (valid in the call), or NULL when the view did not ask for them.
 */
static inline const struct psample_read *session_sample_read(const struct session *s,
							     const struct psample *p)
{
	return s->want_read ? (const struct psample_read *)(p + 1) : NULL;
}

/**
 * session_resolve - the frame of address ip of thread t in cpumode.
 *
 * Return: the frame's number (1 and up).
 */
static inline u32 session_resolve(struct session *s, struct thread *t, u16 cpumode, u64 ip)
{
	return session_resolve_flagged(s, t, cpumode, ip) & ~FRAME_UNRESOLVED;
}

/**
 * session_frame_of_sym - the frame of symbol sym of user binary dso (one the symbol tables do
 * not hold: an inlined function's), first seen at address ip (map-relative rel).
 *
 * Return: the frame's number (1 and up).
 */
u32 session_frame_of_sym(struct session *s, struct dso *dso, const struct sym *sym, u64 ip,
			 u64 rel);

static inline const struct frame *session_frame(const struct session *s, u32 id)
{
	return &s->frames[id];
}

/**
 * session_intern - the one copy of string str (len bytes).
 */
const struct interned *session_intern(struct session *s, const char *str, size_t len);

/**
 * session_comm_final - the name a comm stands for once the file is read. A thread shows its own
 * ":tid" until a COMM names it, and perf then renames that ":tid" rather than replacing it
 * (____thread__set_comm() overrides the default comm), so the samples the thread took before
 * show the new name as well; a ":tid" never renamed becomes the one shared ":tid", which other
 * threads of that tid show too. Other names stay; NULL stays NULL.
 */
const char *session_comm_final(const struct session *s, const char *comm);

static inline const struct interned *session_str(const struct session *s, u32 id)
{
	return s->str_by_id[id];
}

#endif
