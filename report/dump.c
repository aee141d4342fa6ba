// SPDX-License-Identifier: GPL-2.0
/*
 * prec report -D: every record in file order, in the spirit of `perf report -D`: one line per
 * record with its time (when the record carries one), file offset, size and type, the fields
 * that matter, and for samples the decoded fields on the lines below. Records that came out of
 * a COMPRESSED record show that record's offset, as perf shows them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "util/event-names.h"
#include "util/log.h"

/* The body of record h, checked to hold n bytes. */
static const void *body(const struct pd_record_header *h, size_t n)
{
	return h->size >= sizeof(*h) + n ? (const void *)(h + 1) : NULL;
}

static size_t body_len(const struct pd_record_header *h)
{
	return h->size - sizeof(*h);
}

static u64 rd64(const void *p, size_t off)
{
	u64 v;

	memcpy(&v, (const u8 *)p + off, sizeof(v));
	return v;
}

static u32 rd32(const void *p, size_t off)
{
	u32 v;

	memcpy(&v, (const u8 *)p + off, sizeof(v));
	return v;
}

/* A string field of a record, cut at the record's end. */
static void print_str(const void *p, size_t off, size_t len)
{
	const char *s = (const char *)p + off;

	if (off >= len) {
		printf("(none)");
		return;
	}
	printf("%.*s", (int)strnlen(s, len - off), s);
}

static void print_short(const struct pd_record_header *h)
{
	printf(" (body too short: %zu bytes)\n", body_len(h));
}

static void dump_sample(struct report *rep, const struct pd_record_header *h,
			const struct pd_sample *s, int idx)
{
	char name[256];
	u64 t = s->sample_type;

	printf("(IP, %#x): %u/%u: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n", h->misc,
	       s->pid, s->tid, s->ip, s->period, s->addr);
	printf(" ... event: %s", report_event_name(rep->r, (u32)idx, name, sizeof(name)));
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		printf(" id: %" PRIu64, s->id);
	if (t & PERF_SAMPLE_CPU)
		printf(" cpu: %u", s->cpu);
	if (t & PERF_SAMPLE_STREAM_ID)
		printf(" stream_id: %" PRIu64, s->stream_id);
	printf("\n");
	if (t & PERF_SAMPLE_READ) {
		printf(" ... sample_read: nr %" PRIu64 " time enabled %" PRIu64 " running %" PRIu64
		       "\n",
		       s->read.nr, s->read.time_enabled, s->read.time_running);
		for (u64 i = 0; i < s->read.nr; i++)
			printf(" ..... id %016" PRIx64 ", value %016" PRIx64 ", lost %" PRIu64 "\n",
			       s->read.values[i].id, s->read.values[i].value,
			       s->read.values[i].lost);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		printf("... FP chain: nr:%" PRIu64 "\n", s->callchain_nr);
		for (u64 i = 0; i < s->callchain_nr; i++)
			printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i, s->callchain[i]);
	}
	if (t & PERF_SAMPLE_RAW)
		printf(" ... raw: %u bytes\n", s->raw_size);
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		printf("... branch stack: nr:%" PRIu64 " hw_idx: %" PRIu64 "\n", s->branch_nr,
		       s->branch_hw_idx);
		for (u64 i = 0; i < s->branch_nr; i++)
			printf("..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
			       " flags %#" PRIx64 "\n",
			       i, s->branches[i].from, s->branches[i].to, s->branches[i].flags);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		printf("... user regs: abi %" PRIu64 " mask %#" PRIx64 "\n", s->user_regs.abi,
		       s->user_regs.mask);
		for (int i = 0, n = 0; s->user_regs.abi && i < 64; i++)
			if (s->user_regs.mask & (1ULL << i))
				printf(".... reg %-2d 0x%016" PRIx64 "\n", i,
				       s->user_regs.regs[n++]);
	}
	if (t & PERF_SAMPLE_STACK_USER)
		printf("... ustack: size %" PRIu64 ", dyn_size %" PRIu64 "\n", s->user_stack_size,
		       s->user_stack_dyn_size);
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf("... weight: %" PRIu64 "\n", s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		printf(" . data_src: %#" PRIx64 "\n", s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		printf("... transaction: %" PRIx64 "\n", s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		printf("... intr regs: abi %" PRIu64 " mask %#" PRIx64 "\n", s->intr_regs.abi,
		       s->intr_regs.mask);
		for (int i = 0, n = 0; s->intr_regs.abi && i < 64; i++)
			if (s->intr_regs.mask & (1ULL << i))
				printf(".... reg %-2d 0x%016" PRIx64 "\n", i,
				       s->intr_regs.regs[n++]);
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		printf(" .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		printf(" .. cgroup: %" PRIu64 "\n", s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		printf(" .. data page size: %" PRIu64 "\n", s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		printf(" .. code page size: %" PRIu64 "\n", s->code_page_size);
	if (t & PERF_SAMPLE_AUX)
		printf("... AUX size: %" PRIu64 "\n", s->aux_size);
}

static void dump_cpu_map(const struct pd_record_header *h)
{
	const u8 *b = body(h, 2);
	size_t len = body_len(h);
	u16 type, nr;

	if (!b) {
		print_short(h);
		return;
	}
	memcpy(&type, b, 2);
	if (type == PD_CPU_MAP_CPUS && len >= 4) {
		memcpy(&nr, b + 2, 2);
		printf(" cpus:");
		for (u32 i = 0; i < nr && 4 + 2 * (size_t)i + 2 <= len; i++) {
			u16 c;

			memcpy(&c, b + 4 + 2 * i, 2);
			printf(" %d", c == 0xffff ? -1 : (int)c);
		}
	} else if (type == PD_CPU_MAP_MASK && len >= 6) {
		u16 long_size;

		memcpy(&nr, b + 2, 2);
		memcpy(&long_size, b + 4, 2);
		printf(" mask of %u words of %u bytes", nr, long_size);
	} else if (type == PD_CPU_MAP_RANGE && len >= 8) {
		u16 start, end;

		memcpy(&start, b + 4, 2);
		memcpy(&end, b + 6, 2);
		printf(" %u-%u%s", start, end, b[2] ? " and any" : "");
	} else {
		printf(" type %u", type);
	}
	printf("\n");
}

#define NEED_BODY(n)                                                                               \
	do {                                                                                       \
		b = body(h, (n));                                                                  \
		if (!b) {                                                                          \
			print_short(h);                                                            \
			return;                                                                    \
		}                                                                                  \
	} while (0)

/* The fields after "PERF_RECORD_X"; a newline ends them. */
static void dump_details(struct report *rep, const struct pd_record_header *h)
{
	const u8 *b;
	size_t len = body_len(h);

	switch (h->type) {
	case PERF_RECORD_MMAP:
		NEED_BODY(32);
		printf(" %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c ", (int)rd32(b, 0),
		       (int)rd32(b, 4), rd64(b, 8), rd64(b, 16), rd64(b, 24),
		       (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x');
		print_str(b, 32, len);
		printf("\n");
		return;
	case PERF_RECORD_MMAP2:
		NEED_BODY(64);
		printf(" %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int)rd32(b, 0),
		       (int)rd32(b, 4), rd64(b, 8), rd64(b, 16), rd64(b, 24));
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			printf(" build_id ");
			for (u32 i = 0; i < b[32] && i < 20; i++)
				printf("%02x", b[36 + i]);
		} else {
			printf(" %02x:%02x %" PRIu64 " %" PRIu64, rd32(b, 32), rd32(b, 36),
			       rd64(b, 40), rd64(b, 48));
		}
		printf("]: %c%c%c%c ", (rd32(b, 56) & 1) ? 'r' : '-', (rd32(b, 56) & 2) ? 'w' : '-',
		       (rd32(b, 56) & 4) ? 'x' : '-', (rd32(b, 60) & 1) ? 's' : 'p');
		print_str(b, 64, len);
		printf("\n");
		return;
	case PERF_RECORD_COMM:
		NEED_BODY(8);
		printf("%s ", (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec:" : ":");
		print_str(b, 8, len);
		printf(":%d/%d\n", (int)rd32(b, 0), (int)rd32(b, 4));
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		NEED_BODY(16);
		printf("(%d:%d):(%d:%d)\n", (int)rd32(b, 0), (int)rd32(b, 8), (int)rd32(b, 4),
		       (int)rd32(b, 12));
		return;
	case PERF_RECORD_LOST:
		NEED_BODY(16);
		printf(" id %" PRIu64 " lost %" PRIu64 "\n", rd64(b, 0), rd64(b, 8));
		return;
	case PERF_RECORD_LOST_SAMPLES:
		NEED_BODY(8);
		printf(" lost %" PRIu64 "\n", rd64(b, 0));
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		NEED_BODY(24);
		printf(": time %" PRIu64 " id %" PRIu64 " stream_id %" PRIu64 "\n", rd64(b, 0),
		       rd64(b, 8), rd64(b, 16));
		return;
	case PERF_RECORD_READ:
		NEED_BODY(16);
		printf(": %d %d value %" PRIu64 "\n", (int)rd32(b, 0), (int)rd32(b, 4),
		       len >= 16 ? rd64(b, 8) : 0);
		return;
	case PERF_RECORD_SWITCH:
		printf(" %s%s\n", (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? "OUT" : "IN ",
		       (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? " preempt" : "");
		return;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		NEED_BODY(8);
		printf(" %s %s pid/tid: %5u/%-5u\n",
		       (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? "OUT" : "IN ",
		       (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? "next" : "prev", rd32(b, 0),
		       rd32(b, 4));
		return;
	case PERF_RECORD_AUX:
		NEED_BODY(24);
		printf(" offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64 "\n", rd64(b, 0),
		       rd64(b, 8), rd64(b, 16));
		return;
	case PERF_RECORD_ITRACE_START:
		NEED_BODY(8);
		printf(" pid: %u tid: %u\n", rd32(b, 0), rd32(b, 4));
		return;
	case PERF_RECORD_KSYMBOL:
		NEED_BODY(24);
		printf(" addr %" PRIx64 " len %u type %u flags %#x name ", rd64(b, 0), rd32(b, 8),
		       rd32(b, 12) & 0xffff, rd32(b, 12) >> 16);
		print_str(b, 16, len);
		printf("\n");
		return;
	case PERF_RECORD_BPF_EVENT:
		NEED_BODY(8);
		printf(" type %u, flags %u, id %u\n", rd32(b, 0) & 0xffff, rd32(b, 0) >> 16,
		       rd32(b, 4));
		return;
	case PERF_RECORD_CGROUP:
		NEED_BODY(8);
		printf(" cgroup: %" PRIu64 " ", rd64(b, 0));
		print_str(b, 8, len);
		printf("\n");
		return;
	case PERF_RECORD_TEXT_POKE:
		NEED_BODY(12);
		printf(" %#" PRIx64 " old len %u new len %u\n", rd64(b, 0), rd32(b, 8) & 0xffff,
		       rd32(b, 8) >> 16);
		return;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		NEED_BODY(8);
		printf(" hw_id: %#" PRIx64 "\n", rd64(b, 0));
		return;
	case PD_RECORD_HEADER_ATTR: {
		struct perf_event_attr a;
		char name[256];

		NEED_BODY(64);
		memset(&a, 0, sizeof(a));
		memcpy(&a, b, len < sizeof(a) ? len : sizeof(a));
		event_attr_name(&a, name, sizeof(name));
		printf(": type %u config %#" PRIx64 " (%s)\n", a.type, (u64)a.config, name);
		return;
	}
	case PD_RECORD_HEADER_TRACING_DATA:
		NEED_BODY(4);
		printf(": %u bytes of tracing data follow\n", rd32(b, 0));
		return;
	case PD_RECORD_HEADER_BUILD_ID:
		NEED_BODY(28);
		printf(": pid %d ", (int)rd32(b, 0));
		for (u32 i = 0; i < b[24] && i < 20; i++)
			printf("%02x", b[4 + i]);
		printf(" ");
		print_str(b, 28, len);
		printf("\n");
		return;
	case PD_RECORD_ID_INDEX: {
		u64 nr;

		NEED_BODY(8);
		nr = rd64(b, 0);
		printf(" nr: %" PRIu64 "\n", nr);
		for (u64 i = 0; i < nr && 8 + 32 * (i + 1) <= len; i++)
			printf(" ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64
			       "  tid: %" PRId64 "\n",
			       rd64(b, 8 + 32 * i), rd64(b, 16 + 32 * i), (s64)rd64(b, 24 + 32 * i),
			       (s64)rd64(b, 32 + 32 * i));
		return;
	}
	case PD_RECORD_THREAD_MAP: {
		u64 nr;

		NEED_BODY(8);
		nr = rd64(b, 0);
		printf(" nr: %" PRIu64, nr);
		for (u64 i = 0; i < nr && 8 + 24 * (i + 1) <= len; i++) {
			printf(" %" PRId64 ":", (s64)rd64(b, 8 + 24 * i));
			printf("%.16s", (const char *)b + 16 + 24 * i);
		}
		printf("\n");
		return;
	}
	case PD_RECORD_CPU_MAP:
		dump_cpu_map(h);
		return;
	case PD_RECORD_STAT_CONFIG: {
		u64 nr;

		NEED_BODY(8);
		nr = rd64(b, 0);
		printf(" nr: %" PRIu64, nr);
		for (u64 i = 0; i < nr && 8 + 16 * (i + 1) <= len; i++)
			printf(" %" PRIu64 "=%" PRIu64, rd64(b, 8 + 16 * i), rd64(b, 16 + 16 * i));
		printf("\n");
		return;
	}
	case PD_RECORD_STAT:
		NEED_BODY(40);
		printf(": id %" PRIu64 ", cpu %d, thread %d, val %" PRIu64 ", ena %" PRIu64
		       ", run %" PRIu64 "\n",
		       rd64(b, 0), (int)rd32(b, 8), (int)rd32(b, 12), rd64(b, 16), rd64(b, 24),
		       rd64(b, 32));
		return;
	case PD_RECORD_STAT_ROUND:
		NEED_BODY(16);
		printf(": type %s, time %" PRIu64 "\n", rd64(b, 0) ? "FINAL" : "INTERVAL",
		       rd64(b, 8));
		return;
	case PD_RECORD_EVENT_UPDATE: {
		static const char *const types[] = {"UNIT", "SCALE", "NAME", "CPUS"};
		u64 type;

		NEED_BODY(16);
		type = rd64(b, 0);
		printf(": type %s, id %" PRIu64, type < 4 ? types[type] : "unknown", rd64(b, 8));
		if (type == PD_EVENT_UPDATE_UNIT || type == PD_EVENT_UPDATE_NAME) {
			printf(", ");
			print_str(b, 16, len);
		} else if (type == PD_EVENT_UPDATE_SCALE && len >= 24) {
			double scale;

			memcpy(&scale, b + 16, sizeof(scale));
			printf(", scale %g", scale);
		}
		printf("\n");
		return;
	}
	case PD_RECORD_TIME_CONV:
		NEED_BODY(24);
		printf(": time_shift %" PRIu64 " time_mult %" PRIu64 " time_zero %" PRIu64 "\n",
		       rd64(b, 0), rd64(b, 8), rd64(b, 16));
		return;
	case PD_RECORD_HEADER_FEATURE: {
		const char *name;

		NEED_BODY(8);
		name = rd64(b, 0) < PD_FEAT_BITS ? pd_feature_name((unsigned)rd64(b, 0)) : NULL;
		printf(": feature %" PRIu64 " (%s), %zu bytes\n", rd64(b, 0),
		       name ? name : "unknown", len - 8);
		return;
	}
	case PD_RECORD_COMPRESSED:
		printf(": %zu bytes of zstd data\n", len);
		return;
	case PD_RECORD_AUXTRACE:
		NEED_BODY(40);
		printf(" size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64
		       "  idx: %u  tid: "
		       "%d  cpu: %d\n",
		       rd64(b, 0), rd64(b, 8), rd64(b, 16), rd32(b, 24), (int)rd32(b, 28),
		       (int)rd32(b, 32));
		return;
	}
	printf("\n");
}

int report_dump(struct report *rep, const struct report_opts *o)
{
	struct pd_event ev;
	struct pd_sample s;
	int ret, idx;

	printf("# prec report -D: every record of %s in file order; records that came out of a "
	       "COMPRESSED record show its offset\n#\n",
	       rep->name);
	while ((ret = report_next(rep, &ev)) > 0) {
		const struct pd_record_header *h = ev.header;
		const char *name = pd_record_type_name(h->type);
		u64 time = 0;

		idx = 0;
		memset(&s, 0, sizeof(s));
		if (h->type < PD_RECORD_HEADER_ATTR) {
			ret = pd_reader_parse_sample(rep->r, h, &s, &idx);
			if (ret == -ENOENT) {
				/* not malformed, but nothing says how to decode it */
				printf("%" PRIu64 " %#" PRIx64 " [%#x]: PERF_RECORD_%s: %s\n", time,
				       ev.offset, h->size, name ? name : "?",
				       pd_reader_errmsg(rep->r));
				continue;
			}
			if (ret) {
				report_read_error(rep);
				return 1;
			}
			if (s.sample_type & PERF_SAMPLE_TIME)
				time = s.time;
		}
		printf("%" PRIu64 " %#" PRIx64 " [%#x]: ", time, ev.offset, h->size);
		if (name)
			printf("PERF_RECORD_%s", name);
		else
			printf("unknown record type %u", h->type);
		if (h->type == PERF_RECORD_SAMPLE)
			dump_sample(rep, h, &s, idx);
		else
			dump_details(rep, h);
		if (h->type != PERF_RECORD_SAMPLE && h->type < PD_RECORD_HEADER_ATTR &&
		    (s.sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_CPU))) {
			printf(" ... sample_id: pid/tid %u/%u", s.pid, s.tid);
			if (s.sample_type & PERF_SAMPLE_CPU)
				printf(" cpu %u", s.cpu);
			printf("\n");
		}
	}
	return ret < 0 ? 1 : 0;
}
