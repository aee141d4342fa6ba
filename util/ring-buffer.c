// SPDX-License-Identifier: GPL-2.0
/* Ring buffers of perf events, read forward (see ring-buffer.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/ring-buffer.h"

/* A record's size is a u16: the largest one that may wrap. */
#define RECORD_MAX 65536

int ring_buffer_mmap(struct ring_buffer *r, int fd, int cpu, unsigned pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->map_len = (pages + 1) * page;
	/* Writable: the tail we write back is what tells the kernel the space is free. */
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int e = errno;

		r->base = NULL;
		return -e;
	}
	r->data = (unsigned char *)r->base + page;
	r->mask = (uint64_t)pages * page - 1;
	r->tail = 0;
	return 0;
}

void ring_buffer_unmap(struct ring_buffer *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	free(r->tmp);
	r->base = NULL;
	r->tmp = NULL;
}

uint64_t ring_buffer_head(const struct ring_buffer *r)
{
	const struct perf_event_mmap_page *pc = r->base;

	/* Pairs with the kernel's store-release of data_head after it wrote the records. */
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/* len bytes from position from (from + len <= head) into dst, wrap-around included. */
static void copy_out(const struct ring_buffer *r, uint64_t from, uint64_t len, void *dst)
{
	uint64_t size = r->mask + 1;
	uint64_t start = from & r->mask;

	if (start + len > size) {
		size_t first = size - start;

		memcpy(dst, r->data + start, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	} else {
		memcpy(dst, r->data + start, len);
	}
}

void ring_buffer_copy(const struct ring_buffer *r, uint64_t head, void *dst)
{
	copy_out(r, r->tail, head - r->tail, dst);
}

void ring_buffer_consume(struct ring_buffer *r, uint64_t head)
{
	struct perf_event_mmap_page *pc = r->base;

	r->tail = head;
	/* All reads of the data must be done before the kernel may overwrite it. */
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
}

uint64_t ring_buffer_read(struct ring_buffer *r, ring_buffer_fn fn, void *arg)
{
	uint64_t head, tail, n = 0;

	if (!r->base)
		return 0;
	head = ring_buffer_head(r);
	tail = r->tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(r->data + (tail & r->mask));
		uint64_t sz = h->size;

		/* A header never wraps: records are 8-byte aligned and so is the buffer end. */
		if (sz < sizeof(*h) || sz > head - tail)
			break;
		if ((tail & r->mask) + sz > r->mask + 1) {
			if (!r->tmp && !(r->tmp = malloc(RECORD_MAX)))
				break;
			copy_out(r, tail, sz, r->tmp);
			h = (const void *)r->tmp;
		}
		fn(arg, h);
		tail += sz;
		n++;
	}
	ring_buffer_consume(r, tail);
	return n;
}
