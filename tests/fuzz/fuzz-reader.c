// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for format/'s reader. The input is a perf.data file; it is read the way
 * prec report reads one: open, every attr with its name and ids, every feature, the tracing
 * data, then every record with pd_reader_next(), every sample and sample_id trailer decoded with
 * pd_reader_parse_sample() and every byte it points to read (so that ASan sees a pointer that
 * leads outside the record), prec:overhead payloads decoded, and a second pass after
 * pd_reader_rewind(). Pipe-mode inputs are also read through a real pipe, which takes the
 * reader's streaming path. Errors are fine; crashes, sanitizer reports and hangs are not.
 *
 * Built with ./configure --enable-fuzzer CC=clang as tests/fuzz/fuzz-reader; replay-reader.c
 * runs the same function over files without libFuzzer (make check replays the corpus).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>

#include "format/perf-data.h"
#include "overhead/event.h"
#include "tests/fuzz/fuzz-reader.h"

struct fuzz_stats fuzz_stats;

/* Every byte a pointer claims is read and folded in here, so nothing is optimised away. */
static volatile u64 sink;

static void touch(const void *p, size_t n)
{
	const u8 *b = p;
	u64 sum = 0;

	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		sum += b[i];
	sink += sum;
}

static void touch_str(const char *s)
{
	if (s)
		touch(s, strlen(s) + 1);
}

static void read_sample(struct pd_reader *r, const struct pd_sample *s, int idx)
{
	const struct perf_event_attr *attr = pd_reader_attr(r, (u32)idx);
	struct tep_handle *tep = pd_reader_tep(r);

	touch(s->read.values, s->read.nr * sizeof(*s->read.values));
	touch(s->callchain, s->callchain_nr * sizeof(u64));
	touch(s->raw, s->raw_size);
	touch(s->branches, s->branch_nr * sizeof(*s->branches));
	if (s->user_regs.abi)
		touch(s->user_regs.regs, __builtin_popcountll(s->user_regs.mask) * sizeof(u64));
	touch(s->user_stack, s->user_stack_size);
	if (s->intr_regs.abi)
		touch(s->intr_regs.regs, __builtin_popcountll(s->intr_regs.mask) * sizeof(u64));
	touch(s->aux, s->aux_size);

	if (!attr || attr->type != PERF_TYPE_TRACEPOINT || !s->raw || s->raw_size < 2)
		return;
	/* As a report finds the format of a tracepoint sample: by its common_type. */
	if (tep) {
		u16 type;

		memcpy(&type, s->raw, 2);
		sink += tep_find_event(tep, type) != NULL;
	}
	if (attr->config == OVERHEAD_EVENT_ID) {
		struct overhead_record o;

		if (!overhead_record_decode(s->raw, s->raw_size, &o)) {
			touch_str(o.type);
			touch_str(o.source);
			touch_str(o.reason);
			fuzz_stats.overhead++;
		}
	}
}

static void read_features(struct pd_reader *r)
{
	for (unsigned bit = 0; bit < PD_FEAT_BITS; bit++) {
		const void *p;
		size_t len = 0, pos = 0;
		const char *s;

		touch_str(pd_feature_name(bit));
		if (!pd_reader_has_feature(r, bit))
			continue;
		p = pd_reader_feature(r, bit, &len);
		touch(p, len);
		/* String features, and the string lists of CMDLINE and the topologies. */
		while (p && pos < len && (s = pd_feat_next_string(p, len, &pos)))
			touch_str(s);
	}
}

static void read_attrs(struct pd_reader *r)
{
	u32 nr = pd_reader_nr_attrs(r);

	for (u32 i = 0; i < nr; i++) {
		const u64 *ids;
		u32 nr_ids = 0;

		touch(pd_reader_attr(r, i), PD_ATTR_SIZE);
		touch_str(pd_reader_attr_name(r, i));
		ids = pd_reader_attr_ids(r, i, &nr_ids);
		touch(ids, nr_ids * sizeof(u64));
		for (u32 j = 0; ids && j < nr_ids && j < 64; j++)
			sink += (u64)pd_reader_attr_by_id(r, ids[j]);
	}
}

/* One pass over the records. Return: the number of records read. */
static u64 read_records(struct pd_reader *r)
{
	struct pd_event ev;
	u64 n = 0;
	int ret;

	while ((ret = pd_reader_next(r, &ev)) == 1) {
		const struct pd_record_header *h = ev.header;
		struct pd_sample s;
		int idx = -1;

		n++;
		touch(h, h->size);
		touch_str(pd_record_type_name(h->type));
		if (h->type >= PD_RECORD_HEADER_ATTR)
			continue;
		if (!pd_reader_parse_sample(r, h, &s, &idx) && idx >= 0) {
			read_sample(r, &s, idx);
			fuzz_stats.samples += h->type == PERF_RECORD_SAMPLE;
		}
	}
	if (ret < 0)
		touch_str(pd_reader_errmsg(r));
	return n;
}

static void read_all(struct pd_reader *r)
{
	const struct pd_file_header *h = pd_reader_header(r);

	touch(h, sizeof(*h));
	sink += pd_reader_file_size(r) + pd_reader_is_pipe(r);
	read_attrs(r);
	read_features(r);
	sink += pd_reader_tep(r) != NULL;
	fuzz_stats.records += read_records(r);
	sink += pd_reader_recovered(r) + pd_reader_data_read(r);
	if (!pd_reader_rewind(r))
		read_records(r);
	/* Names can change while records are read (EVENT_UPDATE, pipe-mode HEADER_ATTR). */
	read_attrs(r);
}

static int read_fd(int fd)
{
	struct pd_reader *r = NULL;
	int ret = pd_reader_open_fd(&r, fd, PD_READER_TRACING_IN_CHILD);

	if (ret) {
		if (r)
			touch_str(pd_reader_errmsg(r));
	} else {
		fuzz_stats.opened++;
		read_all(r);
	}
	pd_reader_close(r);
	return ret;
}

static bool write_all(int fd, const u8 *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n <= 0)
			return false;
		data += n;
		size -= (size_t)n;
	}
	return true;
}

/* A pipe-mode input through a real pipe, when the pipe can hold it all. */
static void read_as_pipe(const u8 *data, size_t size)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return;
	if (fcntl(p[1], F_SETPIPE_SZ, size < 4096 ? 4096 : (int)size) >= (int)size &&
	    write_all(p[1], data, size)) {
		close(p[1]);
		p[1] = -1;
		read_fd(p[0]);
	}
	if (p[1] >= 0)
		close(p[1]);
	close(p[0]);
}

/**
 * LLVMFuzzerTestOneInput - read one input as a perf.data file.
 *
 * Return: 0 always (libFuzzer's convention); failures show up as crashes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u64 magic = 0, hsize = 0;
	int fd = memfd_create("perf.data", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write_all(fd, data, size) && lseek(fd, 0, SEEK_SET) == 0)
		read_fd(fd);
	close(fd);

	if (size >= 16) {
		memcpy(&magic, data, 8);
		memcpy(&hsize, data + 8, 8);
	}
	if (magic == PD_MAGIC && hsize == sizeof(struct pd_pipe_file_header) && size <= (1 << 20))
		read_as_pipe(data, size);
	return 0;
}
