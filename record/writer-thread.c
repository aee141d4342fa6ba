// SPDX-License-Identifier: GPL-2.0
/* The writer thread of prec record (see writer-thread.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "record/hook.h"
#include "record/synthesize.h"
#include "record/writer-thread.h"
#include "util/clock.h"

/* Blocks are at least this big, so that a quiet pass does not allocate a block per ring. */
#define BLOCK_MIN (64 * 1024)
/* Free blocks the producer keeps for reuse. */
#define FREE_MAX 32
/*
 * What was handed to the file writer goes to the file at least this often, and not after every
 * batch: each flush is one or two write requests of their own (with O_DIRECT ones the thread
 * waits for, and a virtio notification each on a VM). Flushing after every batch took about a
 * third of the recorder's CPU with -g at 20 kHz; every 250 ms still cost plain cpu-clock
 * recording at 20 kHz about 1.6 times what every second costs (bench/README.md). A recorder
 * killed with SIGKILL loses at most this much more than its queue. -DFLUSH_INTERVAL_NS=...
 * changes it, for measuring.
 */
#ifndef FLUSH_INTERVAL_NS
#define FLUSH_INTERVAL_NS 1000000000ULL
#endif

/*
 * The hand-off takes no lock on the drain loop's side: a writer preempted at a bad moment must
 * never hold the drain loop up. Filled blocks go on an atomic stack (the producer pushes a
 * newest-first chain, the writer takes the whole stack and reverses it), the writer sleeps on an
 * eventfd, and written blocks come back on a second atomic stack that the producer takes whole
 * when its own pool is empty. With one pusher-of-chains and one taker-of-all per stack there is
 * no ABA problem.
 */
/* A THROTTLE not yet followed by its UNTHROTTLE. */
struct open_throttle {
	u64 stream_id; /* the event the kernel throttled */
	u64 start;     /* the THROTTLE's time */
	int ring;      /* the ring it came from */
};

struct wthread {
	struct wthread_config cfg;
	pthread_t thread;
	bool started;
	int wake_fd;                      /* eventfd: blocks were queued, or stop */

	struct block *queue;              /* filled blocks, newest first (atomic) */
	struct block *returned;           /* written blocks, for reuse (atomic) */
	bool stopping;                    /* (atomic) */
	size_t in_flight;                 /* bytes pushed and not yet written (atomic) */
	int err;                          /* the first write error (atomic) */

	/* The producer's side: blocks filled and not yet handed over (newest first), its pool. */
	struct block *pending, *pending_oldest;
	struct block *pool;
	int nr_pool;
	/* Blocks allocated, and the bytes of the blocks that exist (in the pool or out), the most. */
	u64 nr_allocs, held_bytes, held_max;

	/* Figures, kept by the writer and published at the end of each batch (stats_lock). */
	pthread_mutex_t stats_lock;
	struct record_stats st;
	struct record_cpu_stats *cpu;
	struct record_stats pub;
	struct record_cpu_stats *pub_cpu;
	/* The throttles in force: nr_throttled of them, room for throttled_max. */
	struct open_throttle *throttled;
	int nr_throttled, throttled_max;
	u64 max_time;  /* the latest time seen in a sample or throttle record */
	u64 end_time;  /* the recording's end, from wthread_end_time(); 0 until then (atomic) */
	bool end_closed; /* the writer closed the throttles at end_time */

	/* Where a sample keeps its id and time (the same in every attr of a recording). */
	size_t id_off, time_off;
	bool has_identifier, has_time;

	/* The writer's side: written but not flushed since last_flush (CLOCK_MONOTONIC). */
	bool unflushed;
	u64 last_flush;
};

static const struct perf_event_attr *attr_of_sample(struct wthread *t, const u8 *rec, size_t size)
{
	const struct wthread_config *c = &t->cfg;
	u64 id;
	int lo = 0, hi = c->nr_ids - 1;

	if (c->nr_attrs == 1 || !t->has_identifier || size < 16)
		return c->attrs[0];
	memcpy(&id, rec + t->id_off, sizeof(id));
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (c->ids[mid] == id)
			return c->attrs[c->id_attr[mid]];
		if (c->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return c->attrs[0];
}

/*
 * The kernel throttles and unthrottles each event on its own and names it by stream_id (its
 * own id; id is the primary one, which every inherited child shares with its parent, so two
 * threads of a command throttled at once have one id and two stream_ids). A THROTTLE opens the
 * event's throttled time, its UNTHROTTLE closes it and adds it to the ring's CPU. Repeated
 * THROTTLEs keep the first time; an UNTHROTTLE without a THROTTLE only counts. Few events are
 * throttled at any one time (the kernel unthrottles them at its next tick), so a list will do.
 */
static void note_throttle(struct wthread *t, int ring, bool throttle, const u8 *body)
{
	struct record_cpu_stats *cs = &t->cpu[ring];
	u64 time, stream_id;
	int i;

	memcpy(&time, body, 8);
	memcpy(&stream_id, body + 16, 8);
	if (time > t->max_time)
		t->max_time = time;
	for (i = 0; i < t->nr_throttled && t->throttled[i].stream_id != stream_id; i++)
		;
	if (throttle) {
		cs->throttle++;
		if (i < t->nr_throttled)
			return;
		if (t->nr_throttled == t->throttled_max) {
			int max = t->throttled_max ? 2 * t->throttled_max : 16;
			struct open_throttle *n = realloc(t->throttled, max * sizeof(*n));

			if (!n)
				return; /* counted, not timed */
			t->throttled = n;
			t->throttled_max = max;
		}
		t->throttled[t->nr_throttled++] = (struct open_throttle){ stream_id, time, ring };
		return;
	}
	cs->unthrottle++;
	if (i == t->nr_throttled)
		return;
	if (time > t->throttled[i].start)
		t->cpu[t->throttled[i].ring].throttled_ns += time - t->throttled[i].start;
	t->throttled[i] = t->throttled[--t->nr_throttled];
}

/* At the end: the throttles still in force count until the end of the recording. */
static void close_throttles(struct wthread *t)
{
	u64 end = __atomic_load_n(&t->end_time, __ATOMIC_RELAXED);

	if (!end)
		end = t->max_time;
	for (int i = 0; i < t->nr_throttled; i++)
		if (end > t->throttled[i].start)
			t->cpu[t->throttled[i].ring].throttled_ns += end - t->throttled[i].start;
	t->nr_throttled = 0;
}

/* Look at every record of a block: counts per CPU, sample times, and the build-id tracker. */
static void scan_block(struct wthread *t, const struct block *b)
{
	struct record_cpu_stats *cs = b->ring >= 0 ? &t->cpu[b->ring] : NULL;
	const u8 *p = b->data;
	size_t off = 0;

	while (off + sizeof(struct pd_record_header) <= b->len) {
		const struct pd_record_header *h = (const void *)(p + off);
		const u8 *body = p + off + sizeof(*h);
		u64 v;

		if (h->size < sizeof(*h) || h->size > b->len - off)
			break;
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			/* The kernel's samples; the recorder's own (prec:overhead) are not counted. */
			if (cs) {
				t->st.samples++;
				cs->samples++;
			} else {
				t->st.own_samples++;
			}
			if (t->has_time && t->time_off + 8 <= h->size) {
				memcpy(&v, p + off + t->time_off, 8);
				if (!t->st.first_time || v < t->st.first_time)
					t->st.first_time = v;
				if (v > t->st.last_time)
					t->st.last_time = v;
				if (v > t->max_time)
					t->max_time = v;
			}
			if (t->cfg.bt)
				buildid_note_record(t->cfg.bt, h, attr_of_sample(t, p + off, h->size));
			break;
		case PERF_RECORD_LOST:
			if (h->size >= sizeof(*h) + 16) {
				memcpy(&v, body + 8, 8);
				t->st.lost += v;
				if (cs) {
					cs->lost += v;
					cs->lost_records++;
				}
			}
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			if (cs && h->size >= sizeof(*h) + 16)
				note_throttle(t, b->ring, h->type == PERF_RECORD_THROTTLE, body);
			break;
		default:
			if (cs && h->type < RECORD_NR_KINDS)
				cs->sideband[h->type]++;
			/* Side-band, and FINISHED_ROUND: the tracker frees exited tasks there. */
			if (t->cfg.bt)
				buildid_note_record(t->cfg.bt, h, t->cfg.attrs[0]);
			break;
		}
		off += h->size;
	}
}

static void set_error(struct wthread *t, int err)
{
	int zero = 0;

	if (__atomic_compare_exchange_n(&t->err, &zero, err, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST) &&
	    t->cfg.notify_fd >= 0) {
		u64 one = 1;

		if (write(t->cfg.notify_fd, &one, sizeof(one)) < 0) {
			/* The drain loop also checks wthread_error() after every pass. */
		}
	}
}

static void write_block(struct wthread *t, struct block *b)
{
	u64 t0;
	int err;

	if (__atomic_load_n(&t->err, __ATOMIC_RELAXED))
		return;
	scan_block(t, b);
	t0 = mono_ns();
	err = pd_writer_write(t->cfg.w, b->data, b->len);
	t->st.write_ns += mono_ns() - t0;
	t->st.records_bytes += b->len;
	if (err)
		set_error(t, err);
}

/* Push what the file writer holds to the file. */
static void flush_now(struct wthread *t)
{
	u64 t0 = mono_ns();
	int err;

	t->unflushed = false;
	t->last_flush = t0;
	if (__atomic_load_n(&t->err, __ATOMIC_RELAXED))
		return;
	err = pd_writer_flush(t->cfg.w);
	t->st.write_ns += mono_ns() - t0;
	if (err)
		set_error(t, err);
}

/*
 * Wait for blocks (or the stop). With data not yet flushed, only until it is due: then flush it,
 * so that nothing sits in memory longer than FLUSH_INTERVAL_NS. Return: false when the wake-up
 * descriptor failed.
 */
static bool wait_for_blocks(struct wthread *t)
{
	u64 count;

	if (t->unflushed) {
		struct pollfd p = { .fd = t->wake_fd, .events = POLLIN };
		u64 now = mono_ns(), due = t->last_flush + FLUSH_INTERVAL_NS;
		int ms = due > now ? (int)((due - now + 999999) / 1000000) : 0;
		int n = poll(&p, 1, ms);

		if (n == 0) {
			flush_now(t);
			return true;
		}
		if (n < 0)
			return errno == EINTR;
	}
	return read(t->wake_fd, &count, sizeof(count)) >= 0 || errno == EINTR || errno == EAGAIN;
}

static void publish(struct wthread *t)
{
	pthread_mutex_lock(&t->stats_lock);
	t->st.data_bytes = pd_writer_data_bytes(t->cfg.w);
	t->pub = t->st;
	memcpy(t->pub_cpu, t->cpu, t->cfg.nr_rings * sizeof(*t->cpu));
	pthread_mutex_unlock(&t->stats_lock);
}

/* Push a newest-first chain (first .. last) on an atomic stack. */
static void stack_push(struct block **top, struct block *first, struct block *last)
{
	struct block *old = __atomic_load_n(top, __ATOMIC_RELAXED);

	do
		last->next = old;
	while (!__atomic_compare_exchange_n(top, &old, first, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static struct block *stack_take(struct block **top)
{
	return __atomic_exchange_n(top, NULL, __ATOMIC_ACQUIRE);
}

static struct block *reverse(struct block *b)
{
	struct block *prev = NULL, *next;

	for (; b; b = next) {
		next = b->next;
		b->next = prev;
		prev = b;
	}
	return prev;
}

static void record_thread_cpu(struct wthread *t)
{
	struct rusage ru;

	/* What writing cost, compression and the build-id tracker included. */
	if (!getrusage(RUSAGE_THREAD, &ru))
		t->st.writer_cpu_ns = (u64)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
				      (u64)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/*
 * Once the end time is set and the batch taken after it is done: close the throttles still in
 * force, publish, and give back the byte of backlog wthread_end_time() added, so that
 * record_sync() (which waits for no backlog) returns only after this.
 */
static void close_at_end(struct wthread *t)
{
	close_throttles(t);
	t->end_closed = true;
	publish(t);
	__atomic_sub_fetch(&t->in_flight, 1, __ATOMIC_RELEASE);
}

static void *writer_main(void *arg)
{
	struct wthread *t = arg;

	for (;;) {
		struct block *batch, *b, *first, *last = NULL;
		size_t bytes = 0;
		/*
		 * The end time is set after the last drain has queued everything the kernel wrote:
		 * seen before this batch is taken, the batch holds the rest of it.
		 */
		bool ended = __atomic_load_n(&t->end_time, __ATOMIC_ACQUIRE);

		batch = reverse(stack_take(&t->queue));
		if (!batch && ended && !t->end_closed) {
			close_at_end(t);
			continue;
		}
		if (!batch) {
			if (__atomic_load_n(&t->stopping, __ATOMIC_ACQUIRE)) {
				/* Pushes happen before the stop is set: one more look. */
				batch = reverse(stack_take(&t->queue));
				if (!batch)
					break;
			} else {
				if (!wait_for_blocks(t))
					break;
				continue;
			}
		}
		for (b = batch; b; b = b->next) {
			write_block(t, b);
			bytes += b->len;
		}
		t->unflushed = true;
		/* The first batch (the synthesized records) at once, then every interval. */
		if (mono_ns() - t->last_flush >= FLUSH_INTERVAL_NS)
			flush_now(t);
		publish(t);
		/* Hand the blocks back, newest first as the stack wants them. */
		first = reverse(batch);
		for (b = first; b; b = b->next)
			last = b;
		stack_push(&t->returned, first, last);
		/* After the stats: a backlog of 0 seen with ACQUIRE means they are published. */
		__atomic_sub_fetch(&t->in_flight, bytes, __ATOMIC_RELEASE);
		if (ended && !t->end_closed)
			close_at_end(t);
	}
	if (t->unflushed)
		flush_now(t);
	close_throttles(t);
	record_thread_cpu(t);
	publish(t);
	return NULL;
}

int wthread_start(struct wthread **tp, const struct wthread_config *cfg)
{
	struct wthread *t = calloc(1, sizeof(*t));
	const struct perf_event_attr *a;
	int err;

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->stats_lock, NULL);
	t->wake_fd = -1;
	t->cfg = *cfg;
	t->cpu = calloc(cfg->nr_rings + 1, sizeof(*t->cpu));
	t->pub_cpu = calloc(cfg->nr_rings + 1, sizeof(*t->cpu));
	t->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (!t->cpu || !t->pub_cpu || t->wake_fd < 0) {
		err = t->wake_fd < 0 ? -errno : -ENOMEM;
		wthread_free(t);
		return err;
	}
	a = cfg->attrs[0];
	/* Sample layout: header, [IDENTIFIER], [IP], [TID], TIME (every attr has IP|TID|TIME). */
	t->has_identifier = a->sample_type & PERF_SAMPLE_IDENTIFIER;
	t->id_off = sizeof(struct pd_record_header);
	t->time_off = t->id_off + (t->has_identifier ? 8 : 0) +
		      (a->sample_type & PERF_SAMPLE_IP ? 8 : 0) +
		      (a->sample_type & PERF_SAMPLE_TID ? 8 : 0);
	t->has_time = a->sample_type & PERF_SAMPLE_TIME;
	err = pthread_create(&t->thread, NULL, writer_main, t);
	if (err) {
		wthread_free(t);
		return -err;
	}
	t->started = true;
	*tp = t;
	return 0;
}

static void free_chain(struct block *b)
{
	struct block *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
}

/* Free a pool block, keeping the allocation figures. */
static void block_free(struct wthread *t, struct block *b)
{
	t->held_bytes -= b->cap;
	free(b);
}

/* Take back every block the writer has written into the pool. */
static void reclaim(struct wthread *t)
{
	struct block *r = stack_take(&t->returned), *next;

	for (; r; r = next) {
		next = r->next;
		r->next = t->pool;
		t->pool = r;
		t->nr_pool++;
	}
}

/* Keep at most FREE_MAX blocks in the pool: free the smallest, the least likely to serve. */
static void trim_pool(struct wthread *t)
{
	while (t->nr_pool > FREE_MAX) {
		struct block **pp, **min = &t->pool, *b;

		for (pp = &t->pool; *pp; pp = &(*pp)->next)
			if ((*pp)->cap < (*min)->cap)
				min = pp;
		b = *min;
		*min = b->next;
		t->nr_pool--;
		block_free(t, b);
	}
}

/* The smallest pool block with room for need bytes, off the pool; NULL when none has. */
static struct block *pool_get(struct wthread *t, size_t need)
{
	struct block **pp, **best = NULL, *b;

	for (pp = &t->pool; *pp; pp = &(*pp)->next)
		if ((*pp)->cap >= need && (!best || (*pp)->cap < (*best)->cap))
			best = pp;
	if (!best)
		return NULL;
	b = *best;
	*best = b->next;
	t->nr_pool--;
	return b;
}

struct block *wthread_block(struct wthread *t, size_t need, bool force)
{
	struct block *b;

	if (!force && __atomic_load_n(&t->in_flight, __ATOMIC_RELAXED) > t->cfg.queue_limit)
		return NULL;
	b = pool_get(t, need);
	if (!b) {
		/*
		 * Take back what the writer has written before allocating: with blocks of several
		 * sizes in the pool, allocating while the pool is not empty would leave the written
		 * blocks piling up on the returned stack.
		 */
		reclaim(t);
		b = pool_get(t, need);
		trim_pool(t);
	}
	if (!b) {
		/* Powers of two, so that the pool serves the next requests too. */
		size_t cap = BLOCK_MIN;

		while (cap < need)
			cap <<= 1;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		t->nr_allocs++;
		t->held_bytes += cap;
		if (t->held_bytes > t->held_max)
			t->held_max = t->held_bytes;
	}
	b->next = NULL;
	b->len = 0;
	b->ring = -1;
	return b;
}

void wthread_alloc_stats(struct wthread *t, u64 *nr_allocs, u64 *held_bytes, u64 *held_max)
{
	*nr_allocs = t->nr_allocs;
	*held_bytes = t->held_bytes;
	*held_max = t->held_max;
}

void wthread_push(struct wthread *t, struct block *b)
{
	__atomic_add_fetch(&t->in_flight, b->len, __ATOMIC_RELAXED);
	b->next = t->pending;
	t->pending = b;
	if (!t->pending_oldest)
		t->pending_oldest = b;
}

void wthread_kick(struct wthread *t)
{
	u64 one = 1;

	if (!t->pending)
		return;
	stack_push(&t->queue, t->pending, t->pending_oldest);
	t->pending = t->pending_oldest = NULL;
	if (write(t->wake_fd, &one, sizeof(one)) < 0) {
		/* An eventfd write fails only on overflow, and then the writer is awake anyway. */
	}
}

int wthread_error(struct wthread *t)
{
	return __atomic_load_n(&t->err, __ATOMIC_RELAXED);
}

size_t wthread_backlog(struct wthread *t)
{
	return __atomic_load_n(&t->in_flight, __ATOMIC_ACQUIRE);
}

void wthread_end_time(struct wthread *t, u64 time)
{
	u64 one = 1;

	if (__atomic_load_n(&t->end_time, __ATOMIC_RELAXED) || !time)
		return; /* once */
	wthread_kick(t);
	__atomic_add_fetch(&t->in_flight, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&t->end_time, time, __ATOMIC_RELEASE);
	if (write(t->wake_fd, &one, sizeof(one)) < 0) {
		/* only on overflow, and then the writer is awake anyway */
	}
}

int wthread_stop(struct wthread *t)
{
	u64 one = 1;

	if (!t->started)
		return wthread_error(t);
	wthread_kick(t);
	__atomic_store_n(&t->stopping, true, __ATOMIC_RELEASE);
	if (write(t->wake_fd, &one, sizeof(one)) < 0) {
		/* see wthread_kick() */
	}
	pthread_join(t->thread, NULL);
	t->started = false;
	return wthread_error(t);
}

void wthread_stats(struct wthread *t, struct record_stats *s, struct record_cpu_stats *cpu)
{
	pthread_mutex_lock(&t->stats_lock);
	s->samples = t->pub.samples;
	s->own_samples = t->pub.own_samples;
	s->lost = t->pub.lost;
	s->records_bytes = t->pub.records_bytes;
	s->data_bytes = t->pub.data_bytes;
	s->write_ns = t->pub.write_ns;
	s->writer_cpu_ns = t->pub.writer_cpu_ns;
	s->first_time = t->pub.first_time;
	s->last_time = t->pub.last_time;
	for (int i = 0; cpu && i < t->cfg.nr_rings && i < s->nr_cpus; i++) {
		const struct record_cpu_stats *w = &t->pub_cpu[i];

		cpu[i].samples = w->samples;
		cpu[i].lost = w->lost;
		cpu[i].lost_records = w->lost_records;
		cpu[i].throttle = w->throttle;
		cpu[i].unthrottle = w->unthrottle;
		cpu[i].throttled_ns = w->throttled_ns;
		memcpy(cpu[i].sideband, w->sideband, sizeof(w->sideband));
	}
	pthread_mutex_unlock(&t->stats_lock);
}

void wthread_free(struct wthread *t)
{
	if (!t)
		return;
	if (t->started)
		wthread_stop(t);
	free_chain(t->pool);
	free_chain(stack_take(&t->returned));
	free_chain(stack_take(&t->queue));
	free_chain(t->pending);
	free(t->cpu);
	free(t->pub_cpu);
	free(t->throttled);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	pthread_mutex_destroy(&t->stats_lock);
	free(t);
}
