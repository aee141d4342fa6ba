// SPDX-License-Identifier: GPL-2.0
/*
 * Record encoders: each appends one whole record to a pd_buf, laid out as the kernel (for kernel
 * record types) or perf 6.1 (for its own types) lays it out. Every record is padded to a multiple
 * of 8 bytes and may not exceed 65535 bytes, because header.size is a u16; an encoder that would
 * go past that leaves the buffer as it was and returns -E2BIG.
 */
#include <errno.h>
#include <string.h>

#include "format/internal.h"

/*
 * The record being built starts at out->len == start. enc_begin() reserves the header,
 * enc_end() pads, checks the size and fills the header in, or rolls the buffer back.
 */
static size_t enc_begin(struct pd_buf *out, u32 type, u16 misc)
{
	size_t start = out->len;
	struct pd_record_header h = { .type = type, .misc = misc, .size = 0 };

	pd_buf_append(out, &h, sizeof(h));
	return start;
}

static int enc_end(struct pd_buf *out, size_t start)
{
	struct pd_record_header *h;
	size_t size;

	if (out->err) {
		int err = out->err;

		/* The failed append left the length alone; drop what this record added. */
		if (out->len >= start)
			out->len = start;
		return err;
	}
	pd_buf_pad(out, 8);
	if (out->err) {
		out->len = start;
		return out->err;
	}
	size = out->len - start;
	if (size > PD_RECORD_MAX) {
		out->len = start;
		return -E2BIG;
	}
	h = (struct pd_record_header *)(out->data + start);
	h->size = (u16)size;
	return 0;
}

/* Roll back after an argument error found mid-record. */
static int enc_fail(struct pd_buf *out, size_t start, int err)
{
	if (out->len >= start)
		out->len = start;
	return err;
}

/* Append n bytes and then zeros up to a multiple of 8; returns the padded length. */
static size_t put_padded(struct pd_buf *out, const void *p, size_t n)
{
	size_t padded = (n + 7) & ~(size_t)7;

	if (n)
		pd_buf_append(out, p, n);
	if (padded > n)
		pd_buf_append(out, NULL, padded - n);
	return padded;
}

/* A NUL-terminated string padded to 8 bytes, as COMM and MMAP names are. */
static void put_name(struct pd_buf *out, const char *s)
{
	size_t n = strlen(s) + 1;

	put_padded(out, s, n);
}

/*
 * The sample_id trailer of non-sample kernel records (perf_event__output_id_sample order):
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
 */
static void put_trailer(struct pd_buf *out, const struct perf_event_attr *attr,
			const struct pd_sample *id)
{
	static const struct pd_sample zero;
	u64 type;

	if (!attr || !attr->sample_id_all)
		return;
	if (!id)
		id = &zero;
	type = attr->sample_type;
	if (type & PERF_SAMPLE_TID) {
		pd_buf_u32(out, id->pid);
		pd_buf_u32(out, id->tid);
	}
	if (type & PERF_SAMPLE_TIME)
		pd_buf_u64(out, id->time);
	if (type & PERF_SAMPLE_ID)
		pd_buf_u64(out, id->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		pd_buf_u64(out, id->stream_id);
	if (type & PERF_SAMPLE_CPU) {
		pd_buf_u32(out, id->cpu);
		pd_buf_u32(out, 0);
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		pd_buf_u64(out, id->id);
}

static int put_read(struct pd_buf *out, u64 read_format, const struct pd_read *rd)
{
	u64 i, nr;

	if (!rd->values)
		return -EINVAL;
	if (read_format & PERF_FORMAT_GROUP) {
		nr = rd->nr;
		pd_buf_u64(out, nr);
	} else {
		if (rd->nr != 1)
			return -EINVAL;
		nr = 1;
		pd_buf_u64(out, rd->values[0].value);
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		pd_buf_u64(out, rd->time_enabled);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		pd_buf_u64(out, rd->time_running);
	for (i = 0; i < nr; i++) {
		const struct pd_read_value *v = &rd->values[i];

		/* The single-value layout put the value first, before the times. */
		if (read_format & PERF_FORMAT_GROUP)
			pd_buf_u64(out, v->value);
		if (read_format & PERF_FORMAT_ID)
			pd_buf_u64(out, v->id);
		if (read_format & PERF_FORMAT_LOST)
			pd_buf_u64(out, v->lost);
	}
	return 0;
}

static int put_regs(struct pd_buf *out, u64 mask, const struct pd_regs *r)
{
	int n = __builtin_popcountll(mask);

	pd_buf_u64(out, r->abi);
	if (!r->abi)
		return 0;
	if (n && !r->regs)
		return -EINVAL;
	pd_buf_append(out, r->regs, (size_t)n * sizeof(u64));
	return 0;
}

/* Guard every variable-length field against sizes that cannot fit in a record at all. */
static bool too_big(u64 n, size_t elem)
{
	return n > PD_RECORD_MAX / elem;
}

/**
 * pd_encode_sample - append a PERF_RECORD_SAMPLE laid out for attr.
 *
 * Fields go in the kernel's order (perf_output_sample); s->sample_type is ignored, the layout
 * comes from attr alone.
 *
 * Return: 0; -EINVAL when s lacks data the attr asks for; -E2BIG past 65535 bytes; -ENOMEM.
 */
int pd_encode_sample(struct pd_buf *out, const struct perf_event_attr *attr,
		     const struct pd_sample *s)
{
	u64 type = attr->sample_type;
	size_t start;
	int err;

	if (type & ~(u64)(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	start = enc_begin(out, PERF_RECORD_SAMPLE, s->misc);
	if (type & PERF_SAMPLE_IDENTIFIER)
		pd_buf_u64(out, s->id);
	if (type & PERF_SAMPLE_IP)
		pd_buf_u64(out, s->ip);
	if (type & PERF_SAMPLE_TID) {
		pd_buf_u32(out, s->pid);
		pd_buf_u32(out, s->tid);
	}
	if (type & PERF_SAMPLE_TIME)
		pd_buf_u64(out, s->time);
	if (type & PERF_SAMPLE_ADDR)
		pd_buf_u64(out, s->addr);
	if (type & PERF_SAMPLE_ID)
		pd_buf_u64(out, s->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		pd_buf_u64(out, s->stream_id);
	if (type & PERF_SAMPLE_CPU) {
		pd_buf_u32(out, s->cpu);
		pd_buf_u32(out, 0);
	}
	if (type & PERF_SAMPLE_PERIOD)
		pd_buf_u64(out, s->period);
	if (type & PERF_SAMPLE_READ) {
		if (too_big(s->read.nr, 24))
			return enc_fail(out, start, -E2BIG);
		err = put_read(out, attr->read_format, &s->read);
		if (err)
			return enc_fail(out, start, err);
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (too_big(s->callchain_nr, 8))
			return enc_fail(out, start, -E2BIG);
		if (s->callchain_nr && !s->callchain)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u64(out, s->callchain_nr);
		if (s->callchain_nr)
			pd_buf_append(out, s->callchain, s->callchain_nr * sizeof(u64));
	}
	if (type & PERF_SAMPLE_RAW) {
		/* u32 size, then the data zero-padded so that 4 + size is a multiple of 8. */
		size_t padded = ((size_t)s->raw_size + 4 + 7) / 8 * 8 - 4;

		if (s->raw_size > PD_RECORD_MAX)
			return enc_fail(out, start, -E2BIG);
		if (s->raw_size && !s->raw)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u32(out, (u32)padded);
		if (s->raw_size)
			pd_buf_append(out, s->raw, s->raw_size);
		pd_buf_append(out, NULL, padded - s->raw_size);
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		if (too_big(s->branch_nr, sizeof(struct pd_branch_entry)))
			return enc_fail(out, start, -E2BIG);
		if (s->branch_nr && !s->branches)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u64(out, s->branch_nr);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			pd_buf_u64(out, s->branch_hw_idx);
		if (s->branch_nr)
			pd_buf_append(out, s->branches,
				      s->branch_nr * sizeof(struct pd_branch_entry));
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		err = put_regs(out, attr->sample_regs_user, &s->user_regs);
		if (err)
			return enc_fail(out, start, err);
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		/* The kernel dumps whole u64s: the size counts the padding, dyn_size does not. */
		u64 size = s->user_stack_size;

		if (size > PD_RECORD_MAX)
			return enc_fail(out, start, -E2BIG);
		if (size && !s->user_stack)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u64(out, (size + 7) & ~7ULL);
		if (size) {
			put_padded(out, s->user_stack, size);
			pd_buf_u64(out, s->user_stack_dyn_size);
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		pd_buf_u64(out, s->weight);
	if (type & PERF_SAMPLE_DATA_SRC)
		pd_buf_u64(out, s->data_src);
	if (type & PERF_SAMPLE_TRANSACTION)
		pd_buf_u64(out, s->transaction);
	if (type & PERF_SAMPLE_REGS_INTR) {
		err = put_regs(out, attr->sample_regs_intr, &s->intr_regs);
		if (err)
			return enc_fail(out, start, err);
	}
	if (type & PERF_SAMPLE_PHYS_ADDR)
		pd_buf_u64(out, s->phys_addr);
	if (type & PERF_SAMPLE_CGROUP)
		pd_buf_u64(out, s->cgroup);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		pd_buf_u64(out, s->data_page_size);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		pd_buf_u64(out, s->code_page_size);
	if (type & PERF_SAMPLE_AUX) {
		u64 size = s->aux_size;

		if (size > PD_RECORD_MAX)
			return enc_fail(out, start, -E2BIG);
		if (size && !s->aux)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u64(out, (size + 7) & ~7ULL);
		if (size)
			put_padded(out, s->aux, size);
	}
	return enc_end(out, start);
}

/**
 * pd_encode_comm - append a COMM record; exec sets PERF_RECORD_MISC_COMM_EXEC.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_comm(struct pd_buf *out, const struct perf_event_attr *attr, u32 pid, u32 tid,
		   const char *comm, bool exec, const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	struct pd_comm_body body = { .pid = pid, .tid = tid };

	if (strlen(comm) > PD_RECORD_MAX)
		return enc_fail(out, start, -E2BIG);
	pd_buf_append(out, &body, sizeof(body));
	put_name(out, comm);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_mmap - append a MMAP record (misc: the cpumode, e.g. PERF_RECORD_MISC_KERNEL).
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_mmap(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		   const struct pd_mmap_body *body, const char *filename, const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_MMAP, misc);

	if (strlen(filename) > PD_RECORD_MAX)
		return enc_fail(out, start, -E2BIG);
	pd_buf_append(out, body, sizeof(*body));
	put_name(out, filename);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_mmap2 - append a MMAP2 record; with PERF_RECORD_MISC_MMAP_BUILD_ID in misc the body
 * carries a build-id instead of the device and inode.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_mmap2(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		    const struct pd_mmap2_body *body, const char *filename,
		    const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_MMAP2, misc);

	if (strlen(filename) > PD_RECORD_MAX)
		return enc_fail(out, start, -E2BIG);
	pd_buf_append(out, body, sizeof(*body));
	put_name(out, filename);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_fork - append a FORK record, or an EXIT record when exit is true, with misc in its
 * header (PD_RECORD_MISC_FORK_EXEC for perf's synthesized FORKs).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_fork(struct pd_buf *out, const struct perf_event_attr *attr, bool exit, u16 misc,
		   const struct pd_fork_body *body, const struct pd_sample *id)
{
	size_t start = enc_begin(out, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, misc);

	pd_buf_append(out, body, sizeof(*body));
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_lost - append a LOST record: lost events of the event with id lost_id.
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_lost(struct pd_buf *out, const struct perf_event_attr *attr, u64 lost_id, u64 lost,
		   const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_LOST, 0);
	struct pd_lost_body body = { .id = lost_id, .lost = lost };

	pd_buf_append(out, &body, sizeof(body));
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_lost_samples - append a LOST_SAMPLES record.
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_lost_samples(struct pd_buf *out, const struct perf_event_attr *attr, u64 lost,
			   const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_LOST_SAMPLES, 0);

	pd_buf_u64(out, lost);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_throttle - append a THROTTLE record, or UNTHROTTLE when unthrottle is true.
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_throttle(struct pd_buf *out, const struct perf_event_attr *attr, bool unthrottle,
		       const struct pd_throttle_body *body, const struct pd_sample *id)
{
	size_t start = enc_begin(out, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);

	pd_buf_append(out, body, sizeof(*body));
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_ksymbol - append a KSYMBOL record: name covers [addr, addr + len) of kernel space.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_ksymbol(struct pd_buf *out, const struct perf_event_attr *attr,
		      const struct pd_ksymbol_body *body, const char *name,
		      const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_KSYMBOL, 0);

	if (strlen(name) > PD_RECORD_MAX)
		return enc_fail(out, start, -E2BIG);
	pd_buf_append(out, body, sizeof(*body));
	put_name(out, name);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_switch - append a SWITCH record, or SWITCH_CPU_WIDE when cpu_wide is given.
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_switch(struct pd_buf *out, const struct perf_event_attr *attr, u16 misc,
		     const struct pd_switch_cpu_wide_body *cpu_wide, const struct pd_sample *id)
{
	size_t start = enc_begin(out, cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH,
				 misc);

	if (cpu_wide)
		pd_buf_append(out, cpu_wide, sizeof(*cpu_wide));
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_cgroup - append a CGROUP record: the cgroup's id and its path from the cgroup root.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_cgroup(struct pd_buf *out, const struct perf_event_attr *attr, u64 cgroup_id,
		     const char *path, const struct pd_sample *id)
{
	size_t start = enc_begin(out, PERF_RECORD_CGROUP, 0);

	if (strlen(path) > PD_RECORD_MAX)
		return enc_fail(out, start, -E2BIG);
	pd_buf_u64(out, cgroup_id);
	put_name(out, path);
	put_trailer(out, attr, id);
	return enc_end(out, start);
}

/**
 * pd_encode_finished_round - append a FINISHED_ROUND record (header only).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_finished_round(struct pd_buf *out)
{
	return enc_end(out, enc_begin(out, PD_RECORD_FINISHED_ROUND, 0));
}

/**
 * pd_encode_finished_init - append a FINISHED_INIT record (header only).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_finished_init(struct pd_buf *out)
{
	return enc_end(out, enc_begin(out, PD_RECORD_FINISHED_INIT, 0));
}

/* A record that is a u64 count followed by that many fixed-size entries, copied as they are. */
static int enc_counted(struct pd_buf *out, u32 type, u64 nr, const void *entries, size_t size)
{
	size_t start;

	if (too_big(nr, size))
		return -E2BIG;
	start = enc_begin(out, type, 0);
	pd_buf_u64(out, nr);
	if (nr)
		pd_buf_append(out, entries, nr * size);
	return enc_end(out, start);
}

/**
 * pd_encode_thread_map - append a THREAD_MAP record; comms longer than 15 bytes are cut.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_thread_map(struct pd_buf *out, u64 nr, const struct pd_thread_map_entry *entries)
{
	size_t start;
	u64 i;

	if (too_big(nr, sizeof(*entries)))
		return -E2BIG;
	start = enc_begin(out, PD_RECORD_THREAD_MAP, 0);
	pd_buf_u64(out, nr);
	for (i = 0; i < nr; i++) {
		struct pd_thread_map_entry e = { .pid = entries[i].pid };

		/* perf prints comm with %s: keep it terminated whatever the caller gave. */
		memcpy(e.comm, entries[i].comm, sizeof(e.comm) - 1);
		pd_buf_append(out, &e, sizeof(e));
	}
	return enc_end(out, start);
}

/**
 * pd_encode_cpu_map - append a CPU_MAP record of type CPUS (u16 per CPU; -1 is 0xffff).
 *
 * Return: 0, -EINVAL for a CPU number that does not fit in a u16, -E2BIG or -ENOMEM.
 */
int pd_encode_cpu_map(struct pd_buf *out, u32 nr, const int *cpus)
{
	size_t start;
	u32 i;

	if (nr > 0xffff)
		return -E2BIG;
	start = enc_begin(out, PD_RECORD_CPU_MAP, 0);
	pd_buf_u16(out, PD_CPU_MAP_CPUS);
	pd_buf_u16(out, (u16)nr);
	for (i = 0; i < nr; i++) {
		if (cpus[i] < -1 || cpus[i] >= 0xffff)
			return enc_fail(out, start, -EINVAL);
		pd_buf_u16(out, cpus[i] == -1 ? 0xffff : (u16)cpus[i]);
	}
	return enc_end(out, start);
}

/**
 * pd_encode_stat_config - append a STAT_CONFIG record of nr {tag, val} pairs.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_stat_config(struct pd_buf *out, u64 nr, const struct pd_stat_config_entry *entries)
{
	return enc_counted(out, PD_RECORD_STAT_CONFIG, nr, entries, sizeof(*entries));
}

/**
 * pd_encode_stat - append a STAT record (48 bytes; values cumulative).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_stat(struct pd_buf *out, const struct pd_stat_body *body)
{
	size_t start = enc_begin(out, PD_RECORD_STAT, 0);

	pd_buf_append(out, body, sizeof(*body));
	return enc_end(out, start);
}

/**
 * pd_encode_stat_round - append a STAT_ROUND record (type PD_STAT_ROUND_*, time in ns).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_stat_round(struct pd_buf *out, u64 type, u64 time)
{
	size_t start = enc_begin(out, PD_RECORD_STAT_ROUND, 0);

	pd_buf_u64(out, type);
	pd_buf_u64(out, time);
	return enc_end(out, start);
}

static int event_update_string(struct pd_buf *out, u64 type, u64 id, const char *s)
{
	size_t start;

	if (strlen(s) > PD_RECORD_MAX)
		return -E2BIG;
	start = enc_begin(out, PD_RECORD_EVENT_UPDATE, 0);
	pd_buf_u64(out, type);
	pd_buf_u64(out, id);
	put_name(out, s);
	return enc_end(out, start);
}

/**
 * pd_encode_event_update_name - append an EVENT_UPDATE record naming the event with sample id.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_event_update_name(struct pd_buf *out, u64 id, const char *name)
{
	return event_update_string(out, PD_EVENT_UPDATE_NAME, id, name);
}

/**
 * pd_encode_event_update_unit - append an EVENT_UPDATE record giving the event's unit.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_event_update_unit(struct pd_buf *out, u64 id, const char *unit)
{
	return event_update_string(out, PD_EVENT_UPDATE_UNIT, id, unit);
}

/**
 * pd_encode_event_update_scale - append an EVENT_UPDATE record giving the event's scale.
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_event_update_scale(struct pd_buf *out, u64 id, double scale)
{
	size_t start = enc_begin(out, PD_RECORD_EVENT_UPDATE, 0);

	pd_buf_u64(out, PD_EVENT_UPDATE_SCALE);
	pd_buf_u64(out, id);
	pd_buf_append(out, &scale, sizeof(scale));
	return enc_end(out, start);
}

/**
 * pd_encode_time_conv - append a TIME_CONV record (the 6.1 layout with time_cycles/mask).
 *
 * Return: 0 or -ENOMEM.
 */
int pd_encode_time_conv(struct pd_buf *out, const struct pd_time_conv_body *body)
{
	size_t start = enc_begin(out, PD_RECORD_TIME_CONV, 0);

	pd_buf_append(out, body, sizeof(*body));
	return enc_end(out, start);
}

/**
 * pd_encode_id_index - append an ID_INDEX record of nr {id, idx, cpu, tid} entries.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int pd_encode_id_index(struct pd_buf *out, u64 nr, const struct pd_id_index_entry *entries)
{
	return enc_counted(out, PD_RECORD_ID_INDEX, nr, entries, sizeof(*entries));
}
