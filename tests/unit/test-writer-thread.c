// SPDX-License-Identifier: GPL-2.0
/*
 * The writer thread of prec record (record/writer-thread.c): the block pool stays bounded however
 * the sizes asked for vary, what is handed over reaches the file without more hand-overs (the
 * periodic flush) and all of it at the stop, and throttled time is kept per sample id.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "record/hook.h"
#include "record/writer-thread.h"
#include "tests/tap.h"

static char dir[] = "/tmp/prec-test-wthread.XXXXXX";

static const char *path_in(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static struct perf_event_attr sample_attr(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = PD_ATTR_SIZE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME,
		.sample_id_all = 1,
	};

	return a;
}

struct rig {
	struct pd_writer *w;
	struct wthread *t;
	struct perf_event_attr attr;
	const struct perf_event_attr *attrs[1];
	u64 ids[2];
	int id_attr[2];
};

static int rig_start(struct rig *r, const char *name)
{
	struct wthread_config cfg = { 0 };
	int err;

	memset(r, 0, sizeof(*r));
	r->attr = sample_attr();
	r->attrs[0] = &r->attr;
	r->ids[0] = 11;
	r->ids[1] = 22;
	err = pd_writer_open(&r->w, path_in(name), 0);
	if (!err)
		err = pd_writer_add_attr(r->w, &r->attr, "cpu-clock", r->ids, 2);
	if (!err)
		err = pd_writer_begin(r->w);
	if (err)
		return err;
	cfg.w = r->w;
	cfg.attrs = r->attrs;
	cfg.nr_attrs = 1;
	cfg.ids = r->ids;
	cfg.id_attr = r->id_attr;
	cfg.nr_ids = 2;
	cfg.nr_rings = 1;
	cfg.queue_limit = 64 << 20;
	cfg.notify_fd = -1;
	return wthread_start(&r->t, &cfg);
}

static void put_record(struct block *b, u32 type, const void *body, u16 body_len)
{
	struct pd_record_header h = { type, 0, (u16)(sizeof(h) + body_len) };

	memcpy(b->data + b->len, &h, sizeof(h));
	memcpy(b->data + b->len + sizeof(h), body, body_len);
	b->len += h.size;
}

/* Wait until the writer has taken everything queued (what record_sync() does). */
static bool drained(struct wthread *t)
{
	struct timespec nap = { 0, 100000 };

	for (int i = 0; i < 50000; i++) {
		if (!wthread_backlog(t))
			return true;
		nanosleep(&nap, NULL);
	}
	return false;
}

/* Does the file at path hold the 16 bytes of marker (now)? */
static bool file_has(const char *path, const u8 *marker)
{
	FILE *f = fopen(path, "rb");
	static u8 buf[1 << 20];
	size_t n;
	bool found = false;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i + 16 <= n && !found; i++)
		found = !memcmp(buf + i, marker, 16);
	return found;
}

/*
 * Blocks of every size are recycled: a pool holding only small blocks while large ones are
 * asked for must take back what the writer returned before allocating (it used to allocate a
 * new block on every request, and the written ones piled up: 91 MB for a 16 s recording).
 */
static void test_pool_bounded(void)
{
	static const size_t sizes[] = { 1000, 70000, 300000, 600000, 5000, 140000, 1 << 20 };
	struct rig r;
	u64 nr_allocs, held, held_max, marker[2] = { 0x1234, 0x5678 };
	int bad = 0, cycles = 0;

	if (rig_start(&r, "pool.data")) {
		ok(0, "writer thread started");
		return;
	}
	/* Two small blocks first: they are what the pool holds when the large requests start. */
	for (int i = 0; i < 2; i++) {
		struct block *b = wthread_block(r.t, 100, false);

		if (!b) {
			bad++;
			continue;
		}
		put_record(b, PERF_RECORD_COMM, marker, sizeof(marker));
		wthread_push(r.t, b);
	}
	wthread_kick(r.t);
	bad += !drained(r.t);
	for (int i = 0; i < 600; i++) {
		/* Large blocks for a while, then every size in turn, a few blocks per hand-over. */
		int per = 1 + i % 3;

		for (int j = 0; j < per; j++) {
			size_t need = i < 300 ? 300000 : sizes[(i + j) % 7];
			struct block *b = wthread_block(r.t, need, false);

			if (!b || b->cap < need) {
				bad++;
				continue;
			}
			put_record(b, PERF_RECORD_COMM, marker, sizeof(marker));
			wthread_push(r.t, b);
		}
		wthread_kick(r.t);
		if (i % 4 == 3)
			bad += !drained(r.t);
		cycles++;
	}
	bad += !drained(r.t);
	wthread_alloc_stats(r.t, &nr_allocs, &held, &held_max);
	is(bad, 0, "every request got a block big enough, and the writer kept up");
	diag("%d hand-overs: %llu blocks allocated, %llu KiB held, at most %llu KiB", cycles,
	     (unsigned long long)nr_allocs, (unsigned long long)held >> 10,
	     (unsigned long long)held_max >> 10);
	/* At most 4 blocks out at a time and 32 in the pool, the largest 1 MiB. */
	ok(nr_allocs <= 100, "blocks are reused: a bounded number allocated over 600 hand-overs");
	ok(held_max <= 40ULL << 20, "the memory held stays bounded");
	is(wthread_stop(r.t), 0, "stop");
	wthread_free(r.t);
	is(pd_writer_close(r.w), 0, "close");
}

/*
 * Blocks handed over reach the file without any further hand-over (the writer flushes on its
 * own every second, not only after a batch), and at the stop nothing is left behind.
 */
static void test_flush_interval(void)
{
	const char *path;
	struct rig r;
	u8 m1[16] = "first-batch-001", m2[16] = "second-batch-02", m3[16] = "the-last-one-03";
	struct block *b;
	bool seen = false;
	u64 end;

	if (rig_start(&r, "flush.data")) {
		ok(0, "writer thread started");
		return;
	}
	path = path_in("flush.data");
	b = wthread_block(r.t, 64, true);
	put_record(b, PERF_RECORD_COMM, m1, 16);
	wthread_push(r.t, b);
	wthread_kick(r.t);
	drained(r.t);
	for (int i = 0; i < 500 && !(seen = file_has(path, m1)); i++)
		usleep(10000);
	ok(seen, "the first batch reaches the file while recording");

	b = wthread_block(r.t, 64, true);
	put_record(b, PERF_RECORD_COMM, m2, 16);
	wthread_push(r.t, b);
	wthread_kick(r.t);
	drained(r.t);
	/* Nothing more is handed over: only the writer's own timer can flush this. */
	end = 0;
	for (int i = 0; i < 500 && !(seen = file_has(path, m2)); i++)
		end++, usleep(10000);
	ok(seen, "a later batch reaches the file with no further hand-over");
	diag("after about %llu ms", (unsigned long long)end * 10);

	b = wthread_block(r.t, 64, true);
	put_record(b, PERF_RECORD_COMM, m3, 16);
	wthread_push(r.t, b);
	wthread_kick(r.t);
	is(wthread_stop(r.t), 0, "stop");
	ok(file_has(path, m3), "at the stop everything queued is in the file");
	wthread_free(r.t);
	is(pd_writer_close(r.w), 0, "close");
}

struct throttle_rec {
	u64 time, id, stream_id;
	u64 sample_id[3]; /* IDENTIFIER is last in a sample_id trailer; TID and TIME before it */
};

/* A THROTTLE or UNTHROTTLE of event stream_id, whose primary id (its parent's) is id. */
static void put_throttle2(struct block *b, bool throttle, u64 time, u64 id, u64 stream_id)
{
	struct throttle_rec t = { time, id, stream_id, { 0, time, id } };

	put_record(b, throttle ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE, &t, sizeof(t));
}

static void put_throttle(struct block *b, bool throttle, u64 time, u64 id)
{
	struct throttle_rec t = { time, id, id, { 0, time, id } };

	put_record(b, throttle ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE, &t, sizeof(t));
}

/*
 * The kernel throttles each event (stream id) on its own. Two ids on one ring: the second
 * THROTTLE is not a repeat of the first, and the first UNTHROTTLE ends only its own id's time.
 * What is still throttled at the stop counts until the end time.
 */
static void test_throttle_per_id(void)
{
	struct record_cpu_stats cpu[1];
	struct record_stats st;
	struct block *b;
	struct rig r;

	if (rig_start(&r, "throttle.data")) {
		ok(0, "writer thread started");
		return;
	}
	b = wthread_block(r.t, 4096, true);
	b->ring = 0;
	put_throttle(b, true, 1000, 11);
	put_throttle(b, true, 1500, 22);
	put_throttle(b, true, 1700, 11);   /* a repeat: the time runs from 1000 */
	put_throttle(b, false, 2000, 11);  /* 11: 1000 .. 2000 */
	put_throttle(b, false, 2500, 99);  /* an unknown id, never throttled: counted only */
	put_throttle(b, true, 3000, 11);   /* 11 again, open at the stop */
	/*
	 * Two inherited events of one parent (primary id 33, stream ids 34 and 35), throttled at
	 * once: each UNTHROTTLE ends its own event's time (34: 6000..6300, 35: 6100..6600).
	 */
	put_throttle2(b, true, 6000, 33, 34);
	put_throttle2(b, true, 6100, 33, 35);
	put_throttle2(b, false, 6300, 33, 34);
	put_throttle2(b, false, 6600, 33, 35);
	wthread_push(r.t, b);
	wthread_kick(r.t);
	wthread_end_time(r.t, 7000);
	/*
	 * What record_sync() does before the stop hooks' last snapshot: wait for no backlog. The
	 * throttles still in force must be closed by then, not only at the stop.
	 */
	for (int i = 0; i < 5000 && wthread_backlog(r.t); i++)
		usleep(1000);
	memset(&st, 0, sizeof(st));
	memset(cpu, 0, sizeof(cpu));
	st.nr_cpus = 1;
	wthread_stats(r.t, &st, cpu);
	is(cpu[0].throttled_ns, 1000 + 4000 + 5500 + 300 + 500,
	   "no backlog after the end time: the open throttles are closed and published");
	is(wthread_stop(r.t), 0, "stop");
	memset(&st, 0, sizeof(st));
	memset(cpu, 0, sizeof(cpu));
	st.nr_cpus = 1;
	wthread_stats(r.t, &st, cpu);
	is(cpu[0].throttle, 6, "THROTTLE records counted");
	is(cpu[0].unthrottle, 4, "UNTHROTTLE records counted");
	/* 11: 1000..2000 and 3000..7000 (the end); 22: 1500..7000 (the end); 34, 35 as above */
	is(cpu[0].throttled_ns, 1000 + 4000 + 5500 + 300 + 500,
	   "throttled time per event (stream id), open ones to the end");
	wthread_free(r.t);
	is(pd_writer_close(r.w), 0, "close");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP mkdtemp failed\n");
		return 0;
	}
	test_pool_bounded();
	test_flush_interval();
	test_throttle_per_id();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return done_testing();
}
