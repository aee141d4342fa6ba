/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel ring buffer (perf_event_mmap_page followed by 2^n data pages), read forward: the
 * drain loop copies [tail, head) out, wrap-around included, then moves the tail so that the
 * kernel may reuse the space.
 */
#ifndef PREC_UTIL_RING_BUFFER_H
#define PREC_UTIL_RING_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct ring {
	int fd;            /* the event the buffer belongs to (others are redirected to it) */
	int cpu;           /* the CPU number */
	void *base;        /* the control page; data follows */
	size_t map_len;    /* 1 + data pages, in bytes */
	uint64_t mask;     /* data bytes - 1 */
	uint64_t tail;     /* what we have consumed */
	unsigned char *data;
};

/**
 * ring_mmap - map a ring buffer of pages data pages (a power of 2) on fd.
 *
 * Return: 0, or a negative errno.
 */
int ring_mmap(struct ring *r, int fd, int cpu, unsigned pages);
/* Unmap the buffer (nothing happens when it is not mapped). */
void ring_unmap(struct ring *r);

/**
 * ring_head - the kernel's write position, read with the barrier that makes the data up to it
 * visible.
 */
uint64_t ring_head(const struct ring *r);

/**
 * ring_copy - copy the bytes from the tail up to head into dst (head - tail bytes).
 */
void ring_copy(const struct ring *r, uint64_t head, void *dst);

/**
 * ring_consume - give [tail, head) back to the kernel.
 */
void ring_consume(struct ring *r, uint64_t head);

#endif
