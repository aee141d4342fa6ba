// SPDX-License-Identifier: GPL-2.0
/*
 * The one ring-buffer reader (util/ring-buffer.h) on a buffer laid out as the kernel lays it out,
 * in memory: whole spans copied (the drain loop's way) and records one by one (the collectors'
 * way), across the end of the buffer, and the tail given back to the kernel either way.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "util/ring-buffer.h"

#define DATA 256

static struct perf_event_mmap_page ctl;
static unsigned char data[DATA];

/* A buffer in memory (never mapped: ring_buffer_unmap() is not for it, only its copy is freed). */
static void ring_init(struct ring_buffer *r, uint64_t start)
{
	free(r->tmp);
	memset(r, 0, sizeof(*r));
	memset(&ctl, 0, sizeof(ctl));
	memset(data, 0, sizeof(data));
	r->fd = -1;
	r->base = &ctl;
	r->data = data;
	r->mask = DATA - 1;
	r->tail = start;
	ctl.data_head = start;
	ctl.data_tail = start;
}

/* What the kernel does: a record of size bytes, type type, each payload byte its offset. */
static void ring_write(uint64_t *head, uint32_t type, uint16_t size)
{
	unsigned char rec[DATA];
	struct perf_event_header h = { type, 0, size };

	memcpy(rec, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		rec[i] = (unsigned char)i;
	for (size_t i = 0; i < size; i++)
		data[(*head + i) & (DATA - 1)] = rec[i];
	*head += size;
	ctl.data_head = *head;
}

struct seen {
	int n;
	uint32_t types[8];
	int whole; /* records whose payload arrived intact */
};

static void on_record(void *arg, const struct perf_event_header *h)
{
	struct seen *s = arg;
	const unsigned char *p = (const unsigned char *)h;
	int ok = 1;

	for (size_t i = sizeof(*h); i < h->size; i++)
		ok &= p[i] == (unsigned char)i;
	if (s->n < 8)
		s->types[s->n] = h->type;
	s->n++;
	s->whole += ok;
}

int main(void)
{
	static struct ring_buffer r;
	struct seen s;
	unsigned char out[DATA];
	uint64_t head;

	/* Records one by one, the second across the end of the buffer. */
	ring_init(&r, DATA - 72);
	head = r.tail;
	ring_write(&head, 1, 40);
	ring_write(&head, 2, 64); /* 32 bytes before the end, 32 after */
	ring_write(&head, 3, 16);
	memset(&s, 0, sizeof(s));
	is(ring_buffer_read(&r, on_record, &s), 3, "read: three records");
	is(s.types[0] * 100 + s.types[1] * 10 + s.types[2], 123, "read: in order");
	is(s.whole, 3, "read: the wrapped record arrives whole");
	ok(r.tail == head && ctl.data_tail == head, "read: the tail is given back");
	is(ring_buffer_read(&r, on_record, &s), 0, "read: nothing more");

	/* A record the kernel has not finished (head inside it) waits for the next read. */
	ring_write(&head, 4, 24);
	ctl.data_head = head - 8;
	memset(&s, 0, sizeof(s));
	is(ring_buffer_read(&r, on_record, &s), 0, "read: an incomplete record is left");
	ok(ctl.data_tail == head - 24, "read: and its space kept");
	ctl.data_head = head;
	is(ring_buffer_read(&r, on_record, &s), 1, "read: then read whole");

	/* A bad size stops the reading where it is. */
	ring_write(&head, 5, 8);
	((struct perf_event_header *)(data + ((head - 8) & (DATA - 1))))->size = 4;
	memset(&s, 0, sizeof(s));
	is(ring_buffer_read(&r, on_record, &s), 0, "read: a size below the header stops");

	/* Whole spans: head, copy across the end, consume. */
	ring_init(&r, DATA - 24);
	head = r.tail;
	ring_write(&head, 6, 48);
	ring_write(&head, 7, 32);
	is(ring_buffer_head(&r) - r.tail, 80, "copy: head - tail is what was written");
	ring_buffer_copy(&r, ring_buffer_head(&r), out);
	is(((struct perf_event_header *)out)->type, 6, "copy: the first record first");
	is(((struct perf_event_header *)(out + 48))->type, 7, "copy: the second after it");
	ok(out[47] == 47 && out[24] == 24 && out[23] == 23,
	   "copy: the bytes across the end in order");
	ring_buffer_consume(&r, head);
	ok(r.tail == head && ctl.data_tail == head, "consume: the tail is given back");

	/* Unmapping what was never mapped (base NULL) is safe, and so is doing it twice. */
	free(r.tmp);
	memset(&r, 0, sizeof(r));
	ring_buffer_unmap(&r);
	ring_buffer_unmap(&r);
	is(ring_buffer_read(&r, on_record, &s), 0, "read: an unmapped buffer has nothing");
	return done_testing();
}
