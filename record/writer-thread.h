/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writing side of prec record: a thread that takes blocks of records off a queue, looks at
 * every record (counts, times, the build-id tracker) and writes them through format/'s writer
 * (which compresses with -z, and stages the data for O_DIRECT). The drain loop only copies
 * records into blocks and queues them, so disk writes and compression never delay it. What the
 * file writer holds is flushed to the file every second (the first batch at once), not after every
 * batch: a recorder killed with SIGKILL loses its queue and at most that.
 *
 * The queue has one producer (the drain loop, the main thread) and one consumer. Blocks are
 * recycled; the bytes in flight are bounded: when the writer falls that far behind, the drain
 * loop leaves the data in the ring buffers and the kernel counts what it has to drop (LOST), as
 * it would for perf.
 */
#ifndef PREC_RECORD_WRITER_THREAD_H
#define PREC_RECORD_WRITER_THREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"

struct buildid_tracker;
struct record_stats;
struct record_cpu_stats;

struct block {
	struct block *next;
	int ring;   /* the ring (CPU index) the records came from; -1 for the recorder's own */
	size_t len; /* bytes of whole records in data */
	size_t cap;
	u8 data[];
};

struct wthread_config {
	struct pd_writer *w;
	struct buildid_tracker *bt; /* NULL: no build-ids */
	const struct perf_event_attr *const *attrs; /* nr_attrs: the layout of each attr */
	int nr_attrs;
	const u64 *ids;      /* every sample id, sorted */
	const int *id_attr;  /* the attr index of each id */
	int nr_ids;
	int nr_rings;
	size_t queue_limit;  /* bytes in flight beyond which wthread_block() says no */
	int notify_fd;       /* an eventfd written once when a write fails; -1 for none */
};

struct wthread;

/**
 * wthread_start - start the writer thread.
 *
 * Return: 0, or a negative errno.
 */
int wthread_start(struct wthread **tp, const struct wthread_config *cfg);

/**
 * wthread_block - a block with room for at least need bytes, for the producer to fill.
 * @force: allocate even over the limit (records of the recorder's own, which it cannot leave
 *	   anywhere else)
 *
 * Return: the block, or NULL when the bytes in flight are over the limit (the caller leaves its
 * data where it is and tries again later) or memory is short.
 */
struct block *wthread_block(struct wthread *t, size_t need, bool force);

/* Queue a filled block; it becomes visible to the writer at the next wthread_kick(). */
void wthread_push(struct wthread *t, struct block *b);
/* Hand the pushed blocks to the writer and wake it. */
void wthread_kick(struct wthread *t);

/* The first write error (negative errno), or 0. */
int wthread_error(struct wthread *t);
/* Bytes queued and not yet written. */
size_t wthread_backlog(struct wthread *t);

/**
 * wthread_end_time - the recording's end in the sample clock, up to which the throttles still in
 * force at the stop count (without it: the latest time the writer saw). Call once the last drain
 * has queued everything (only the first call counts): the writer closes them with the next batch
 * it takes, and the backlog stays above 0 until it has, so that record_sync() then sees them.
 */
void wthread_end_time(struct wthread *t, u64 time);

/**
 * wthread_stop - write everything queued, stop the thread and wait for it.
 *
 * Return: 0, or the first write error.
 */
int wthread_stop(struct wthread *t);

/**
 * wthread_stats - add the writer's figures into stats (the fields record/hook.h marks W).
 * @cpu: stats->nr_cpus entries
 */
void wthread_stats(struct wthread *t, struct record_stats *stats, struct record_cpu_stats *cpu);

/**
 * wthread_alloc_stats - what the producer's block pool allocated: blocks malloc()ed so far, and
 * the bytes of the blocks that exist now and at most (queued, in the pool, or being filled).
 * Producer side only.
 */
void wthread_alloc_stats(struct wthread *t, u64 *nr_allocs, u64 *held_bytes, u64 *held_max);

/* Stop the thread if it runs, free the blocks and the state; NULL is fine. */
void wthread_free(struct wthread *t);

#endif
