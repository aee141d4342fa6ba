// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding PERF_RECORD_SAMPLE, and the sample_id trailer of the other kernel records, the way
 * perf 6.1's evsel__parse_sample() does: fields in sample_type bit order, the event found from
 * its id as evlist__event2evsel() finds it. This runs once per sample on files of hundreds of
 * megabytes, so it reads fields in place and copies only what does not fit a plain pointer (the
 * read values, whose layout depends on read_format, and arrays the file left misaligned).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"

struct cursor {
	const u8 *p, *end;
};

static int too_short(struct pd_reader *r, const struct pd_record_header *h, const struct cursor *c,
		     const char *what, u64 need)
{
	return pd_reader_record_error(r, h, -EINVAL,
				      "%s needs %llu bytes but only %zu are left in the record "
				      "(size %u)",
				      what, (unsigned long long)need, (size_t)(c->end - c->p),
				      h->size);
}

#define NEED(n, what)                                                                              \
	do {                                                                                       \
		if ((u64)(c.end - c.p) < (u64)(n))                                                 \
			return too_short(r, h, &c, what, (n));                                     \
	} while (0)

/*
 * Arrays of u64 are handed out as pointers into the record. The kernel keeps them 8-aligned;
 * a file that does not (an odd RAW size) gets the rest of the record copied to aligned scratch.
 */
static int realign(struct pd_reader *r, struct cursor *c)
{
	size_t left = (size_t)(c->end - c->p);
	size_t at = (r->scratch_used + 7) & ~(size_t)7;

	if (!r->scratch) {
		r->scratch = malloc(PD_SCRATCH_SIZE);
		if (!r->scratch)
			return -ENOMEM;
	}
	if (left > PD_SCRATCH_SIZE - at)
		return -ENOMEM; /* cannot happen: records are at most 64 KiB, arrays a handful */
	memcpy(r->scratch + at, c->p, left);
	r->scratch_used = at + left;
	c->p = r->scratch + at;
	c->end = c->p + left;
	return 0;
}

#define ALIGN_CURSOR()                                                                             \
	do {                                                                                       \
		if (((uintptr_t)c.p & 7) && realign(r, &c))                                        \
			return pd_reader_record_error(r, h, -ENOMEM, "out of memory");             \
	} while (0)

static int read_values_room(struct pd_reader *r, u64 nr)
{
	struct pd_read_value *v;

	if (nr <= r->read_values_cap)
		return 0;
	v = realloc(r->read_values, nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->read_values = v;
	r->read_values_cap = nr;
	return 0;
}

static int decode_read(struct pd_reader *r, const struct pd_record_header *h,
		       const struct pd_reader_attr *a, struct cursor *cp, struct pd_sample *s)
{
	struct cursor c = *cp;
	u64 rf = a->attr.read_format;
	struct pd_read_value *v;

	if (rf & PERF_FORMAT_GROUP) {
		u64 entry = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
		u64 nr;

		NEED(8, "the READ group size");
		nr = pd_get_u64(c.p);
		c.p += 8;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			NEED(8, "READ time_enabled");
			s->read.time_enabled = pd_get_u64(c.p);
			c.p += 8;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
			NEED(8, "READ time_running");
			s->read.time_running = pd_get_u64(c.p);
			c.p += 8;
		}
		if (nr > (u64)(c.end - c.p) / entry)
			return pd_reader_record_error(r, h, -EINVAL,
						      "a READ group of %llu values runs past the "
						      "record end (size %u)",
						      (unsigned long long)nr, h->size);
		if (read_values_room(r, nr))
			return pd_reader_record_error(r, h, -ENOMEM, "out of memory");
		v = r->read_values;
		for (u64 i = 0; i < nr; i++) {
			v[i].value = pd_get_u64(c.p);
			c.p += 8;
			v[i].id = 0;
			v[i].lost = 0;
			if (rf & PERF_FORMAT_ID) {
				v[i].id = pd_get_u64(c.p);
				c.p += 8;
			}
			if (rf & PERF_FORMAT_LOST) {
				v[i].lost = pd_get_u64(c.p);
				c.p += 8;
			}
		}
		s->read.nr = nr;
	} else {
		u64 need = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				!!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(rf & PERF_FORMAT_ID) +
				!!(rf & PERF_FORMAT_LOST));

		NEED(need, "the READ value");
		v = r->read_values;
		v->value = pd_get_u64(c.p);
		c.p += 8;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			s->read.time_enabled = pd_get_u64(c.p);
			c.p += 8;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
			s->read.time_running = pd_get_u64(c.p);
			c.p += 8;
		}
		v->id = 0;
		v->lost = 0;
		if (rf & PERF_FORMAT_ID) {
			v->id = pd_get_u64(c.p);
			c.p += 8;
		}
		if (rf & PERF_FORMAT_LOST) {
			v->lost = pd_get_u64(c.p);
			c.p += 8;
		}
		s->read.nr = 1;
	}
	s->read.values = r->read_values;
	*cp = c;
	return 0;
}

static int decode_regs(struct pd_reader *r, const struct pd_record_header *h, struct cursor *cp,
		       struct pd_regs *regs, u64 mask, u32 nr, const char *what)
{
	struct cursor c = *cp;

	NEED(8, what);
	regs->abi = pd_get_u64(c.p);
	c.p += 8;
	if (regs->abi) {
		NEED(8 * (u64)nr, what);
		if ((uintptr_t)c.p & 7) {
			if (realign(r, &c))
				return pd_reader_record_error(r, h, -ENOMEM, "out of memory");
		}
		regs->mask = mask;
		regs->regs = (const u64 *)(const void *)c.p;
		c.p += 8 * (u64)nr;
	}
	*cp = c;
	return 0;
}

static int decode_sample(struct pd_reader *r, const struct pd_record_header *h,
			 const struct pd_reader_attr *a, struct pd_sample *s)
{
	struct cursor c = {(const u8 *)(h + 1), (const u8 *)h + h->size};
	u64 type = a->attr.sample_type;
	int err;

	s->sample_type = type;
	NEED(a->fixed_size, "the fixed sample fields");
	if (type & PERF_SAMPLE_IDENTIFIER) {
		s->id = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_IP) {
		s->ip = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_TID) {
		s->pid = pd_get_u32(c.p);
		s->tid = pd_get_u32(c.p + 4);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_TIME) {
		s->time = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_ADDR) {
		s->addr = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_ID) {
		s->id = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		s->stream_id = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_CPU) {
		s->cpu = pd_get_u32(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_PERIOD) {
		s->period = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_READ) {
		err = decode_read(r, h, a, &c, s);
		if (err)
			return err;
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		u64 nr;

		NEED(8, "the callchain size");
		nr = pd_get_u64(c.p);
		c.p += 8;
		if (nr > (u64)(c.end - c.p) / 8)
			return pd_reader_record_error(r, h, -EINVAL,
						      "a callchain of %llu entries runs past the "
						      "record end (size %u)",
						      (unsigned long long)nr, h->size);
		ALIGN_CURSOR();
		s->callchain_nr = nr;
		s->callchain = (const u64 *)(const void *)c.p;
		c.p += 8 * nr;
	}
	if (type & PERF_SAMPLE_RAW) {
		u32 size;

		NEED(4, "the RAW size");
		size = pd_get_u32(c.p);
		c.p += 4;
		if (size > (u64)(c.end - c.p))
			return pd_reader_record_error(
			    r, h, -EINVAL,
			    "%u bytes of RAW data run past the record end "
			    "(size %u)",
			    size, h->size);
		s->raw_size = size;
		s->raw = c.p;
		c.p += size;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		u64 nr;

		NEED(8, "the branch stack size");
		nr = pd_get_u64(c.p);
		c.p += 8;
		if (a->hw_idx) {
			NEED(8, "the branch stack hw_idx");
			s->branch_hw_idx = pd_get_u64(c.p);
			c.p += 8;
		}
		if (nr > (u64)(c.end - c.p) / sizeof(struct pd_branch_entry))
			return pd_reader_record_error(
			    r, h, -EINVAL,
			    "a branch stack of %llu entries runs past the "
			    "record end (size %u)",
			    (unsigned long long)nr, h->size);
		ALIGN_CURSOR();
		s->branch_nr = nr;
		s->branches = (const struct pd_branch_entry *)(const void *)c.p;
		c.p += nr * sizeof(struct pd_branch_entry);
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		err = decode_regs(r, h, &c, &s->user_regs, a->attr.sample_regs_user, a->nr_uregs,
				  "the user registers");
		if (err)
			return err;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		u64 size;

		NEED(8, "the user stack size");
		size = pd_get_u64(c.p);
		c.p += 8;
		if (size) {
			if (size > (u64)(c.end - c.p))
				return pd_reader_record_error(
				    r, h, -EINVAL,
				    "a user stack of %llu bytes runs past "
				    "the record end (size %u)",
				    (unsigned long long)size, h->size);
			s->user_stack_size = size;
			s->user_stack = c.p;
			c.p += size;
			NEED(8, "the user stack dyn_size");
			s->user_stack_dyn_size = pd_get_u64(c.p);
			c.p += 8;
			if (s->user_stack_dyn_size > size)
				return pd_reader_record_error(
				    r, h, -EINVAL,
				    "the user stack dyn_size %llu exceeds "
				    "its size %llu",
				    (unsigned long long)s->user_stack_dyn_size,
				    (unsigned long long)size);
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8, "the weight");
		s->weight = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_DATA_SRC) {
		NEED(8, "data_src");
		s->data_src = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_TRANSACTION) {
		NEED(8, "the transaction");
		s->transaction = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_REGS_INTR) {
		err = decode_regs(r, h, &c, &s->intr_regs, a->attr.sample_regs_intr, a->nr_iregs,
				  "the interrupt registers");
		if (err)
			return err;
	}
	if (type & PERF_SAMPLE_PHYS_ADDR) {
		NEED(8, "phys_addr");
		s->phys_addr = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_CGROUP) {
		NEED(8, "the cgroup");
		s->cgroup = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE) {
		NEED(8, "data_page_size");
		s->data_page_size = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE) {
		NEED(8, "code_page_size");
		s->code_page_size = pd_get_u64(c.p);
		c.p += 8;
	}
	if (type & PERF_SAMPLE_AUX) {
		u64 size;

		NEED(8, "the AUX size");
		size = pd_get_u64(c.p);
		c.p += 8;
		if (size > (u64)(c.end - c.p))
			return pd_reader_record_error(r, h, -EINVAL,
						      "%llu bytes of AUX data run past the record "
						      "end (size %u)",
						      (unsigned long long)size, h->size);
		s->aux_size = size;
		s->aux = c.p;
		c.p += size;
	}
	return 0;
}

/* The trailer is read from the record's end backwards (perf_evsel__parse_id_sample()). */
static int decode_trailer(struct pd_reader *r, const struct pd_record_header *h,
			  const struct pd_reader_attr *a, struct pd_sample *s)
{
	u64 type = a->attr.sample_type;
	const u8 *p;

	if (!a->attr.sample_id_all)
		return 0;
	if (a->trailer_size > h->size - sizeof(*h))
		return pd_reader_record_error(r, h, -EINVAL,
					      "its sample_id trailer needs %u bytes but the record "
					      "has %u after its header",
					      a->trailer_size, h->size - (u32)sizeof(*h));
	s->sample_type = type & PD_TRAILER_MASK;
	p = (const u8 *)h + h->size;
	if (type & PERF_SAMPLE_IDENTIFIER) {
		p -= 8;
		s->id = pd_get_u64(p);
	}
	if (type & PERF_SAMPLE_CPU) {
		p -= 8;
		s->cpu = pd_get_u32(p);
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		p -= 8;
		s->stream_id = pd_get_u64(p);
	}
	if (type & PERF_SAMPLE_ID) {
		p -= 8;
		s->id = pd_get_u64(p);
	}
	if (type & PERF_SAMPLE_TIME) {
		p -= 8;
		s->time = pd_get_u64(p);
	}
	if (type & PERF_SAMPLE_TID) {
		p -= 8;
		s->pid = pd_get_u32(p);
		s->tid = pd_get_u32(p + 4);
	}
	return 0;
}

/* The attr of record h, as perf's evlist__event2evsel() picks it. */
static int attr_of(struct pd_reader *r, const struct pd_record_header *h)
{
	const u8 *body = (const u8 *)(h + 1);
	u64 n = (h->size - sizeof(*h)) / 8, id;
	int idx;

	if (!r->nr_attrs)
		return pd_reader_record_error(r, h, -ENOENT, "the file declares no events");
	if (r->nr_attrs == 1)
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0)
			return 0;
		if ((u64)r->id_pos >= n)
			return pd_reader_record_error(
			    r, h, -EINVAL, "size %u is too short to hold its sample id", h->size);
		id = pd_get_u64(body + 8 * (u64)r->id_pos);
	} else {
		if (!r->attrs[0].attr.sample_id_all || r->is_pos < 0)
			return 0;
		if ((u64)r->is_pos > n)
			return pd_reader_record_error(r, h, -EINVAL,
						      "size %u is too short to hold its sample_id "
						      "trailer",
						      h->size);
		id = pd_get_u64(body + 8 * (n - (u64)r->is_pos));
	}
	if (!id)
		return 0; /* synthesized records have id 0: the first event */
	/*
	 * No fallback to the first event for an id nobody declared: perf's evlist__event2evsel()
	 * returns NULL for it (a record other than a SAMPLE got here only with sample_id_all).
	 */
	idx = pd_reader_id_lookup(r, id);
	if (idx < 0)
		return pd_reader_record_error(r, h, -ENOENT,
					      "sample id %llu belongs to no event of the file",
					      (unsigned long long)id);
	return idx;
}

/**
 * pd_reader_parse_sample - decode a SAMPLE record, or the sample_id trailer of another kernel
 * record, with the attr its id names.
 * @attr_idx: set to that attr's index (may be NULL)
 *
 * Return: 0; -EINVAL when the record is shorter than its attr says or is not a kernel record;
 * -ENOENT when its id belongs to no event; -ENOMEM. pd_reader_errmsg() names the record.
 */
int pd_reader_parse_sample(struct pd_reader *r, const struct pd_record_header *h,
			   struct pd_sample *s, int *attr_idx)
{
	int idx;

	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	if (h->type >= PD_RECORD_HEADER_ATTR)
		return pd_reader_record_error(r, h, -EINVAL, "not a kernel record: no sample_id");
	idx = attr_of(r, h);
	if (idx < 0)
		return idx;
	if (attr_idx)
		*attr_idx = idx;
	r->scratch_used = 0;
	if (h->type == PERF_RECORD_SAMPLE)
		return decode_sample(r, h, &r->attrs[idx], s);
	return decode_trailer(r, h, &r->attrs[idx], s);
}
