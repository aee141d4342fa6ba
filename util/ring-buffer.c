// SPDX-License-Identifier: GPL-2.0
/* Ring buffers of perf events, read forward (see ring-buffer.h). */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/ring-buffer.h"

int ring_mmap(struct ring *r, int fd, int cpu, unsigned pages)
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

void ring_unmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

uint64_t ring_head(const struct ring *r)
{
	const struct perf_event_mmap_page *pc = r->base;

	/* Pairs with the kernel's store-release of data_head after it wrote the records. */
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

void ring_copy(const struct ring *r, uint64_t head, void *dst)
{
	uint64_t size = r->mask + 1;
	uint64_t start = r->tail & r->mask;
	uint64_t len = head - r->tail;

	if (start + len > size) {
		size_t first = size - start;

		memcpy(dst, r->data + start, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	} else {
		memcpy(dst, r->data + start, len);
	}
}

void ring_consume(struct ring *r, uint64_t head)
{
	struct perf_event_mmap_page *pc = r->base;

	r->tail = head;
	/* All reads of the data must be done before the kernel may overwrite it. */
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
}
