/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one reader of perf ring buffers (perf_event_mmap_page followed by 2^n data pages), read
 * forward. Two ways to read, on the same buffer:
 *
 *	whole spans, for the record's drain loop: ring_buffer_head(), ring_buffer_copy() of
 *	[tail, head) into one block (wrap-around included), ring_buffer_consume()
 *	record by record, for the collectors and probes that look at each record:
 *	ring_buffer_read() with a callback
 *
 * Either way the tail written back is what tells the kernel the space is free.
 */
#ifndef PREC_UTIL_RING_BUFFER_H
#define PREC_UTIL_RING_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct ring_buffer {
	int fd;            /* the event the buffer belongs to (others are redirected to it) */
	int cpu;           /* the CPU number, -1 when the buffer is not one CPU's */
	void *base;        /* the control page; data follows; NULL when not mapped */
	size_t map_len;    /* 1 + data pages, in bytes */
	uint64_t mask;     /* data bytes - 1 */
	uint64_t tail;     /* what we have consumed */
	unsigned char *data;
	unsigned char *tmp; /* ring_buffer_read(): a record that wraps around the end, copied */
};

/**
 * ring_buffer_mmap - map a ring buffer of pages data pages (a power of 2) on fd.
 *
 * Return: 0, or a negative errno.
 */
int ring_buffer_mmap(struct ring_buffer *r, int fd, int cpu, unsigned pages);

/* Unmap the buffer; the fd stays open. Nothing happens when it is not mapped: safe to repeat. */
void ring_buffer_unmap(struct ring_buffer *r);

/**
 * ring_buffer_head - the kernel's write position, read with the barrier that makes the data up
 * to it visible.
 *
 * Return: the head.
 */
uint64_t ring_buffer_head(const struct ring_buffer *r);

/* Copy the bytes from the tail up to head into dst (head - tail bytes). */
void ring_buffer_copy(const struct ring_buffer *r, uint64_t head, void *dst);

/* Give [tail, head) back to the kernel. */
void ring_buffer_consume(struct ring_buffer *r, uint64_t head);

typedef void (*ring_buffer_fn)(void *arg, const struct perf_event_header *h);

/**
 * ring_buffer_read - pass every complete record in the buffer to fn, in order, and give their
 * space back. A record that wraps around the end reaches fn whole, copied.
 *
 * Return: the number of records (0 when the buffer is not mapped).
 */
uint64_t ring_buffer_read(struct ring_buffer *r, ring_buffer_fn fn, void *arg);

#endif
