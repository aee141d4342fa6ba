// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --header-only: the file header and its features, printed as `perf report
 * --header-only` prints them (perf 6.1: perf_header__fprintf_info() and the print_* functions of
 * util/header.c), so that the two can be compared line by line. Features perf prints only with
 * -I get the same "info available" line. Feature bits perf does not know (prec's own among them)
 * get one line each, which perf does not print.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "config.h"
#ifdef HAVE_BPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#endif

#include "report/report.h"
#include "util/log.h"
#include "util/xalloc.h"

struct payload {
	const u8 *p;
	size_t len, pos;
	bool bad; /* ran past the end: stop printing this feature */
};

static u32 take_u32(struct payload *pl)
{
	u32 v = 0;

	if (pl->bad || pl->len - pl->pos < sizeof(v)) {
		pl->bad = true;
		return 0;
	}
	memcpy(&v, pl->p + pl->pos, sizeof(v));
	pl->pos += sizeof(v);
	return v;
}

static u64 take_u64(struct payload *pl)
{
	u64 v = 0;

	if (pl->bad || pl->len - pl->pos < sizeof(v)) {
		pl->bad = true;
		return 0;
	}
	memcpy(&v, pl->p + pl->pos, sizeof(v));
	pl->pos += sizeof(v);
	return v;
}

static const char *take_string(struct payload *pl)
{
	const char *s;

	if (pl->bad)
		return "";
	s = pd_feat_next_string(pl->p, pl->len, &pl->pos);
	if (!s) {
		pl->bad = true;
		return "";
	}
	return s;
}

/* ---------------------------------------------------------------------------------------- */
/* perf_event_attr__fprintf() */

struct bit_name {
	u64 bit;
	const char *name;
};

static const struct bit_name sample_type_bits[] = {
    {PERF_SAMPLE_IP, "IP"},
    {PERF_SAMPLE_TID, "TID"},
    {PERF_SAMPLE_TIME, "TIME"},
    {PERF_SAMPLE_ADDR, "ADDR"},
    {PERF_SAMPLE_READ, "READ"},
    {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {PERF_SAMPLE_ID, "ID"},
    {PERF_SAMPLE_CPU, "CPU"},
    {PERF_SAMPLE_PERIOD, "PERIOD"},
    {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
    {PERF_SAMPLE_RAW, "RAW"},
    {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {PERF_SAMPLE_REGS_USER, "REGS_USER"},
    {PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {PERF_SAMPLE_WEIGHT, "WEIGHT"},
    {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
    {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
    {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
    {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
    {PERF_SAMPLE_AUX, "AUX"},
    {PERF_SAMPLE_CGROUP, "CGROUP"},
    {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
    {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
    {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
    {0, NULL},
};

static const struct bit_name read_format_bits[] = {
    {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
    {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
    {PERF_FORMAT_ID, "ID"},
    {PERF_FORMAT_GROUP, "GROUP"},
    {PERF_FORMAT_LOST, "LOST"},
    {0, NULL},
};

static const struct bit_name branch_bits[] = {
    {PERF_SAMPLE_BRANCH_USER, "USER"},
    {PERF_SAMPLE_BRANCH_KERNEL, "KERNEL"},
    {PERF_SAMPLE_BRANCH_HV, "HV"},
    {PERF_SAMPLE_BRANCH_ANY, "ANY"},
    {PERF_SAMPLE_BRANCH_ANY_CALL, "ANY_CALL"},
    {PERF_SAMPLE_BRANCH_ANY_RETURN, "ANY_RETURN"},
    {PERF_SAMPLE_BRANCH_IND_CALL, "IND_CALL"},
    {PERF_SAMPLE_BRANCH_ABORT_TX, "ABORT_TX"},
    {PERF_SAMPLE_BRANCH_IN_TX, "IN_TX"},
    {PERF_SAMPLE_BRANCH_NO_TX, "NO_TX"},
    {PERF_SAMPLE_BRANCH_COND, "COND"},
    {PERF_SAMPLE_BRANCH_CALL_STACK, "CALL_STACK"},
    {PERF_SAMPLE_BRANCH_IND_JUMP, "IND_JUMP"},
    {PERF_SAMPLE_BRANCH_CALL, "CALL"},
    {PERF_SAMPLE_BRANCH_NO_FLAGS, "NO_FLAGS"},
    {PERF_SAMPLE_BRANCH_NO_CYCLES, "NO_CYCLES"},
    {PERF_SAMPLE_BRANCH_TYPE_SAVE, "TYPE_SAVE"},
    {PERF_SAMPLE_BRANCH_HW_INDEX, "HW_INDEX"},
    {0, NULL},
};

static void print_bits(FILE *f, const char *label, u64 v, const struct bit_name *names)
{
	const char *sep = "";

	if (!v)
		return;
	fprintf(f, ", %s = ", label);
	for (int i = 0; names[i].name; i++) {
		if (v & names[i].bit) {
			fprintf(f, "%s%s", sep, names[i].name);
			sep = "|";
		}
	}
}

static void print_u(FILE *f, const char *label, u64 v)
{
	if (v)
		fprintf(f, ", %s = %" PRIu64, label, v);
}

static void print_x(FILE *f, const char *label, u64 v)
{
	if (v)
		fprintf(f, ", %s = %#" PRIx64, label, v);
}

/* The fields of an attr that are not zero, as perf_event_attr__fprintf() lists them. */
static void print_attr(FILE *f, const struct perf_event_attr *a)
{
	fprintf(f, ", type = %u", a->type);
	print_u(f, "size", a->size);
	print_x(f, "config", a->config);
	print_u(f, "{ sample_period, sample_freq }", a->sample_period);
	print_bits(f, "sample_type", a->sample_type, sample_type_bits);
	print_bits(f, "read_format", a->read_format, read_format_bits);
#define FLAG(x) print_u(f, #x, a->x)
	FLAG(disabled);
	FLAG(inherit);
	FLAG(pinned);
	FLAG(exclusive);
	FLAG(exclude_user);
	FLAG(exclude_kernel);
	FLAG(exclude_hv);
	FLAG(exclude_idle);
	FLAG(mmap);
	FLAG(comm);
	FLAG(freq);
	FLAG(inherit_stat);
	FLAG(enable_on_exec);
	FLAG(task);
	FLAG(watermark);
	FLAG(precise_ip);
	FLAG(mmap_data);
	FLAG(sample_id_all);
	FLAG(exclude_host);
	FLAG(exclude_guest);
	FLAG(exclude_callchain_kernel);
	FLAG(exclude_callchain_user);
	FLAG(mmap2);
	FLAG(comm_exec);
	FLAG(use_clockid);
	FLAG(context_switch);
	FLAG(write_backward);
	FLAG(namespaces);
	FLAG(ksymbol);
	FLAG(bpf_event);
	FLAG(aux_output);
	FLAG(cgroup);
	FLAG(text_poke);
	FLAG(build_id);
	FLAG(inherit_thread);
	FLAG(remove_on_exec);
	FLAG(sigtrap);
#undef FLAG
	print_u(f, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	print_u(f, "bp_type", a->bp_type);
	print_x(f, "{ bp_addr, config1 }", a->bp_addr);
	print_x(f, "{ bp_len, config2 }", a->bp_len);
	print_bits(f, "branch_sample_type", a->branch_sample_type, branch_bits);
	print_x(f, "sample_regs_user", a->sample_regs_user);
	print_u(f, "sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		fprintf(f, ", clockid = %d", a->clockid);
	print_x(f, "sample_regs_intr", a->sample_regs_intr);
	print_u(f, "aux_watermark", a->aux_watermark);
	print_u(f, "sample_max_stack", a->sample_max_stack);
	print_u(f, "aux_sample_size", a->aux_sample_size);
	print_u(f, "sig_data", a->sig_data);
}

/* ---------------------------------------------------------------------------------------- */
/* Features */

static void print_event_desc(struct payload *pl)
{
	u32 nr = take_u32(pl), attr_sz = take_u32(pl);

	for (u32 i = 0; i < nr && !pl->bad; i++) {
		struct perf_event_attr attr;
		const char *name;
		u32 nr_ids;

		memset(&attr, 0, sizeof(attr));
		if (attr_sz > pl->len - pl->pos) {
			pl->bad = true;
			break;
		}
		memcpy(&attr, pl->p + pl->pos, attr_sz < sizeof(attr) ? attr_sz : sizeof(attr));
		pl->pos += attr_sz;
		nr_ids = take_u32(pl);
		name = take_string(pl);
		if (pl->bad || nr_ids > (pl->len - pl->pos) / 8) {
			pl->bad = true;
			break;
		}
		printf("# event : name = %s, ", name);
		if (nr_ids) {
			printf(", id = {");
			for (u32 j = 0; j < nr_ids; j++)
				printf("%s %" PRIu64, j ? "," : "", take_u64(pl));
			printf(" }");
		}
		print_attr(stdout, &attr);
		printf("\n");
	}
}

static void print_group_desc(struct report *rep, struct payload *pl)
{
	u32 nr = take_u32(pl);
	char buf[256];

	for (u32 i = 0; i < nr && !pl->bad; i++) {
		const char *name = take_string(pl);
		u32 leader = take_u32(pl), members = take_u32(pl);

		if (pl->bad || members < 2)
			continue;
		if (!strcmp(name, "{anon_group}"))
			name = "";
		printf("# group: %s{", name);
		for (u32 m = 0; m < members; m++)
			printf("%s%s", m ? "," : "",
			       report_event_name(rep->r, leader + m, buf, sizeof(buf)));
		printf("}\n");
	}
}

/* ---------------------------------------------------------------------------------------- */
/* BPF_PROG_INFO and BPF_BTF, as perf_env keeps them: sorted by id, the first of an id kept */

struct bpf_entry {
	u32 id, order;
	const u8 *info, *data; /* struct perf_bpil's info (info_len bytes) and data */
	u32 info_len, data_len;
};

static int bpf_entry_cmp(const void *a, const void *b)
{
	const struct bpf_entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The BTF blobs of the BPF_BTF feature: u32 count, then per blob u32 id, u32 size, data. */
static u32 read_btfs(struct report *rep, struct bpf_entry **out)
{
	struct payload pl = {0};
	struct bpf_entry *e;
	u32 n, k = 0;

	*out = NULL;
	pl.p = pd_reader_feature(rep->r, PD_FEAT_BPF_BTF, &pl.len);
	if (!pl.p)
		return 0;
	n = take_u32(&pl);
	if (pl.bad || n > pl.len / 8)
		return 0;
	e = xcalloc(n ? n : 1, sizeof(*e));
	for (u32 i = 0; i < n; i++) {
		u32 id = take_u32(&pl), size = take_u32(&pl);

		if (pl.bad || size > pl.len - pl.pos)
			break;
		e[k] = (struct bpf_entry){
		    .id = id, .order = i, .data = pl.p + pl.pos, .data_len = size};
		pl.pos += size;
		k++;
	}
	qsort(e, k, sizeof(*e), bpf_entry_cmp);
	*out = e;
	return k;
}

static void print_bpf_btf(struct report *rep)
{
	struct bpf_entry *e;
	u32 n = read_btfs(rep, &e);

	for (u32 i = 0; i < n; i++)
		if (!i || e[i].id != e[i - 1].id)
			printf("# btf info of id %u\n", e[i].id);
	free(e);
}

/* An array of the prog's data: offset and count from the info, checked against data_len. */
static const u8 *bpf_array(const struct bpf_entry *e, u64 off, u64 nr, u64 size)
{
	if (nr && (size > e->data_len / nr || off > e->data_len - nr * size))
		return NULL;
	return e->data + off;
}

/* perf's synthesize_bpf_prog_name(): bpf_prog_<tag>[_<name>] */
static void bpf_prog_name(char *buf, size_t len, const struct bpf_prog_info *info,
			  const struct bpf_entry *e, const u8 *tags, void *btf, u32 sub)
{
	const char *short_name = NULL;
	size_t n = (size_t)snprintf(buf, len, "bpf_prog_");

	for (int i = 0; i < BPF_TAG_SIZE && n + 3 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%02x", tags[sub * BPF_TAG_SIZE + i]);
#ifdef HAVE_BPF
	if (btf) {
		const u8 *fi =
		    bpf_array(e, info->func_info, info->nr_func_info, info->func_info_rec_size);
		const struct btf_type *t = NULL;
		u32 type_id;

		if (fi && sub < info->nr_func_info && info->func_info_rec_size >= 8) {
			memcpy(&type_id, fi + (size_t)sub * info->func_info_rec_size + 4, 4);
			t = btf__type_by_id(btf, type_id);
		}
		if (t)
			short_name = btf__name_by_offset(btf, t->name_off);
	} else
#endif
	    if (sub == 0 && info->nr_jited_ksyms == 1) {
		if (info->name[0])
			short_name = info->name;
	} else {
		short_name = "F";
	}
	(void)e;
	(void)btf;
	if (short_name && n < len)
		snprintf(buf + n, len - n, "_%s", short_name);
}

static void print_one_bpf_prog(const struct bpf_entry *e, const struct bpf_entry *btfs, u32 nr_btf)
{
	struct bpf_prog_info info;
	const u8 *addrs, *lens, *tags;
	void *btf = NULL;
	char name[512];
	u32 sub;

	memset(&info, 0, sizeof(info));
	memcpy(&info, e->info, e->info_len);
	info.name[sizeof(info.name) - 1] = '\0';
	sub = info.nr_jited_ksyms;
	if (sub != info.nr_prog_tags || sub != info.nr_jited_func_lens)
		return;
	addrs = bpf_array(e, info.jited_ksyms, sub, 8);
	lens = bpf_array(e, info.jited_func_lens, sub, 4);
	tags = bpf_array(e, info.prog_tags, sub, BPF_TAG_SIZE);
	if (!addrs || !lens || !tags)
		return;
#ifdef HAVE_BPF
	for (u32 i = 0; info.btf_id && i < nr_btf; i++) {
		if (btfs[i].id == info.btf_id) {
			btf = btf__new(btfs[i].data, btfs[i].data_len);
			if (libbpf_get_error(btf))
				btf = NULL;
			break;
		}
	}
#endif
	(void)btfs;
	(void)nr_btf;
	if (sub == 1) {
		u64 addr;
		u32 size;

		memcpy(&addr, addrs, 8);
		memcpy(&size, lens, 4);
		bpf_prog_name(name, sizeof(name), &info, e, tags, btf, 0);
		printf("# bpf_prog_info %u: %s addr %#" PRIx64 " size %u\n", info.id, name, addr,
		       size);
	} else {
		printf("# bpf_prog_info %u:\n", info.id);
		for (u32 i = 0; i < sub; i++) {
			u64 addr;
			u32 size;

			memcpy(&addr, addrs + 8 * (size_t)i, 8);
			memcpy(&size, lens + 4 * (size_t)i, 4);
			bpf_prog_name(name, sizeof(name), &info, e, tags, btf, i);
			printf("# \tsub_prog %u: %s addr %#" PRIx64 " size %u\n", i, name, addr,
			       size);
		}
	}
#ifdef HAVE_BPF
	btf__free(btf);
#endif
}

/* u32 count, then per program struct perf_bpil: u32 info_len, u32 data_len, u64 arrays, info, data
 */
static void print_bpf_prog_info(struct report *rep, struct payload *pl)
{
	struct bpf_entry *e, *btfs;
	u32 n = take_u32(pl), k = 0, nr_btf;

	if (pl->bad || n > pl->len / 16)
		return;
	e = xcalloc(n ? n : 1, sizeof(*e));
	for (u32 i = 0; i < n; i++) {
		u32 info_len = take_u32(pl), data_len = take_u32(pl);
		u32 id;

		take_u64(pl); /* which arrays the data holds */
		if (pl->bad || info_len > sizeof(struct bpf_prog_info) || info_len < 8 ||
		    info_len > pl->len - pl->pos)
			break;
		e[k].info = pl->p + pl->pos;
		e[k].info_len = info_len;
		pl->pos += info_len;
		if (data_len > pl->len - pl->pos)
			break;
		e[k].data = pl->p + pl->pos;
		e[k].data_len = data_len;
		pl->pos += data_len;
		memcpy(&id, e[k].info + 4, 4);
		e[k].id = id;
		e[k].order = i;
		k++;
	}
	qsort(e, k, sizeof(*e), bpf_entry_cmp);
	nr_btf = read_btfs(rep, &btfs);
	for (u32 i = 0; i < k; i++)
		if (!i || e[i].id != e[i - 1].id)
			print_one_bpf_prog(&e[i], btfs, nr_btf);
	free(btfs);
	free(e);
}

static const char *clockid_name(u32 id)
{
	static const char *const names[] = {
	    "realtime",
	    "monotonic",
	    "process_cputime_id",
	    "thread_cputime_id",
	    "monotonic_raw",
	    "realtime_coarse",
	    "monotonic_coarse",
	    "boottime",
	    "realtime_alarm",
	    "boottime_alarm",
	    NULL,
	    "tai",
	};

	if (id < sizeof(names) / sizeof(names[0]) && names[id])
		return names[id];
	return "unknown";
}

/* -I: the CPU topology, as perf's print_cpu_topology() (it needs NRCPUS for the CPU count). */
static void print_cpu_topology(struct report *rep, struct payload *pl)
{
	const u8 *nr_p;
	size_t nr_len;
	u32 n, ncpu = 0, *core, *socket;
	bool dies;

	nr_p = pd_reader_feature(rep->r, PD_FEAT_NRCPUS, &nr_len);
	if (nr_p && nr_len >= 4)
		memcpy(&ncpu, nr_p, 4);
	if (ncpu > 4096)
		ncpu = 4096; /* a bad count: print no more than the payload has */
	n = take_u32(pl);
	for (u32 i = 0; i < n && !pl->bad; i++)
		printf("# sibling sockets : %s\n", take_string(pl));
	n = take_u32(pl);
	if (pl->bad)
		return;
	core = xcalloc(ncpu + 1, sizeof(u32));
	socket = xcalloc(ncpu + 1, sizeof(u32));
	/* threads are printed after the dies, which come last in the payload */
	{
		struct payload threads = *pl, dies_pl;

		for (u32 i = 0; i < n && !pl->bad; i++)
			take_string(pl);
		for (u32 i = 0; i < ncpu && !pl->bad; i++) {
			core[i] = take_u32(pl);
			socket[i] = take_u32(pl);
		}
		dies = !pl->bad && pl->pos < pl->len;
		dies_pl = *pl;
		if (dies) {
			u32 nd = take_u32(&dies_pl);

			for (u32 i = 0; i < nd && !dies_pl.bad; i++)
				printf("# sibling dies    : %s\n", take_string(&dies_pl));
		}
		for (u32 i = 0; i < n && !threads.bad; i++)
			printf("# sibling threads : %s\n", take_string(&threads));
		if (pl->bad && dies) {
			printf("# Core ID, Die ID and Socket ID information is not available\n");
		} else if (pl->bad) {
			printf("# Core ID and Socket ID information is not available\n");
		} else if (dies) {
			for (u32 i = 0; i < ncpu && !dies_pl.bad; i++) {
				u32 die = take_u32(&dies_pl);

				if (!dies_pl.bad)
					printf("# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i,
					       (int)core[i], (int)die, (int)socket[i]);
			}
		} else {
			for (u32 i = 0; i < ncpu; i++)
				printf("# CPU %u: Core ID %d, Socket ID %d\n", i, (int)core[i],
				       (int)socket[i]);
		}
	}
	free(core);
	free(socket);
	pl->bad = false;
}

/* -I: the NUMA nodes, as perf's print_numa_topology(). */
static void print_numa_topology(struct payload *pl)
{
	u32 n = take_u32(pl);

	for (u32 i = 0; i < n && !pl->bad; i++) {
		u32 node = take_u32(pl);
		u64 total = take_u64(pl), free_kb = take_u64(pl);
		const char *cpus = take_string(pl);
		struct cpu_map m = {0};
		char buf[1024];

		if (pl->bad)
			break;
		printf("# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n", node,
		       total, free_kb);
		/* perf prints the list as it reads it back: ranges merged */
		if (!cpu_map_parse(&m, cpus) && cpu_map_print(&m, buf, sizeof(buf)) >= 0)
			cpus = buf;
		printf("# node%u cpu list : %s\n", node, cpus);
		cpu_map_free(&m);
	}
}

/* -I: the caches, as perf's print_cache(). */
static void print_cache(struct payload *pl)
{
	u32 n;

	take_u32(pl); /* version */
	n = take_u32(pl);
	if (pl->bad)
		return;
	printf("# CPU cache info:\n");
	for (u32 i = 0; i < n && !pl->bad; i++) {
		u32 level = take_u32(pl);
		const char *type, *size, *map;

		take_u32(pl); /* line size */
		take_u32(pl); /* sets */
		take_u32(pl); /* ways */
		type = take_string(pl);
		size = take_string(pl);
		map = take_string(pl);
		if (!pl->bad)
			printf("#  L%d %-15s %8s [%s]\n", (int)level, type, size, map);
	}
}

/* -I: the memory nodes, as perf's print_mem_topology(): each node's size and block ranges. */
static void print_mem_topology(struct payload *pl)
{
	u64 bsize, n;

	take_u64(pl); /* version */
	bsize = take_u64(pl);
	n = take_u64(pl);
	if (pl->bad)
		return;
	printf("# memory nodes (nr %d, block size 0x%llx):\n", (int)n, (unsigned long long)bsize);
	for (u64 i = 0; i < n && !pl->bad; i++) {
		u64 node = take_u64(pl), bits, words, set = 0, size;
		const char *units = "BKMGTPE";
		char map[1024];
		size_t mlen = 0;
		int u = 0;
		long run = -1;

		/* the node's size, then the bitmap: its own size in bits and its words */
		take_u64(pl);
		bits = take_u64(pl);
		if (pl->bad || bits > (pl->len - pl->pos) * 8)
			break;
		words = (bits + 63) / 64;
		map[0] = '\0';
		for (u64 b = 0; b <= bits; b++) {
			bool on = false;

			if (b < bits) {
				u64 w;

				memcpy(&w, pl->p + pl->pos + (b / 64) * 8, 8);
				on = (w >> (b % 64)) & 1;
			}
			if (on) {
				set++;
				if (run < 0)
					run = (long)b;
			} else if (run >= 0) {
				int k = (long)b - 1 > run
					    ? snprintf(map + mlen, sizeof(map) - mlen, "%s%ld-%ld",
						       mlen ? "," : "", run, (long)b - 1)
					    : snprintf(map + mlen, sizeof(map) - mlen, "%s%ld",
						       mlen ? "," : "", run);

				if (k > 0 && (size_t)k < sizeof(map) - mlen)
					mlen += (size_t)k;
				run = -1;
			}
		}
		pl->pos += words * 8;
		/* perf's unit_number__scnprintf(): divide while more than one unit remains */
		for (size = bsize * set; size / 1024 > 1 && u < 6; u++)
			size /= 1024;
		printf("#  %3" PRIu64 " [%" PRIu64 "%c]: %s\n", node, size, units[u], map);
	}
}

/* -I: the hybrid PMUs, as perf's print_hybrid_topology(). */
static void print_hybrid_topology(struct payload *pl)
{
	u32 n = take_u32(pl);

	printf("# hybrid cpu system:\n");
	for (u32 i = 0; i < n && !pl->bad; i++) {
		const char *pmu = take_string(pl), *cpus = take_string(pl);

		if (!pl->bad)
			printf("# %s cpu list : %s\n", pmu, cpus);
	}
}

static void print_feature(struct report *rep, unsigned bit, bool full)
{
	struct payload pl = {0};
	const char *name = pd_feature_name(bit);

	pl.p = pd_reader_feature(rep->r, bit, &pl.len);
	switch (bit) {
	case PD_FEAT_TRACING_DATA:
	case PD_FEAT_BUILD_ID:
		break; /* perf prints nothing for these */
	case PD_FEAT_BPF_PROG_INFO:
		print_bpf_prog_info(rep, &pl);
		pl.bad = false; /* perf stops quietly at a bad entry */
		break;
	case PD_FEAT_BPF_BTF:
		print_bpf_btf(rep);
		break;
	case PD_FEAT_HOSTNAME:
		printf("# hostname : %s\n", take_string(&pl));
		break;
	case PD_FEAT_OSRELEASE:
		printf("# os release : %s\n", take_string(&pl));
		break;
	case PD_FEAT_VERSION:
		printf("# perf version : %s\n", take_string(&pl));
		break;
	case PD_FEAT_ARCH:
		printf("# arch : %s\n", take_string(&pl));
		break;
	case PD_FEAT_CPUDESC:
		printf("# cpudesc : %s\n", take_string(&pl));
		break;
	case PD_FEAT_CPUID:
		printf("# cpuid : %s\n", take_string(&pl));
		break;
	case PD_FEAT_NRCPUS: {
		u32 avail = take_u32(&pl), online = take_u32(&pl);

		printf("# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
		break;
	}
	case PD_FEAT_TOTAL_MEM:
		printf("# total memory : %" PRIu64 " kB\n", take_u64(&pl));
		break;
	case PD_FEAT_CMDLINE: {
		u32 n = take_u32(&pl);

		printf("# cmdline : ");
		for (u32 i = 0; i < n && !pl.bad; i++) {
			const char *s = take_string(&pl);

			if (!pl.bad)
				printf("%s ", s);
		}
		printf("\n");
		break;
	}
	case PD_FEAT_EVENT_DESC:
		print_event_desc(&pl);
		break;
	case PD_FEAT_CPU_TOPOLOGY:
	case PD_FEAT_NUMA_TOPOLOGY:
	case PD_FEAT_CACHE:
	case PD_FEAT_MEM_TOPOLOGY:
	case PD_FEAT_HYBRID_TOPOLOGY:
		if (!full)
			printf("# %s info available, use -I to display\n", name);
		else if (bit == PD_FEAT_CPU_TOPOLOGY)
			print_cpu_topology(rep, &pl);
		else if (bit == PD_FEAT_NUMA_TOPOLOGY)
			print_numa_topology(&pl);
		else if (bit == PD_FEAT_CACHE)
			print_cache(&pl);
		else if (bit == PD_FEAT_MEM_TOPOLOGY)
			print_mem_topology(&pl);
		else
			print_hybrid_topology(&pl);
		break;
	case PD_FEAT_BRANCH_STACK:
		printf("# contains samples with branch stack\n");
		break;
	case PD_FEAT_PMU_MAPPINGS: {
		u32 n = take_u32(&pl);
		const char *sep = "";

		if (!n) {
			printf("# pmu mappings: not available\n");
			break;
		}
		printf("# pmu mappings: ");
		for (u32 i = 0; i < n && !pl.bad; i++) {
			u32 type = take_u32(&pl);
			const char *pmu = take_string(&pl);

			if (pl.bad)
				break;
			printf("%s%s = %u", sep, pmu, type);
			sep = ", ";
		}
		printf("\n");
		break;
	}
	case PD_FEAT_GROUP_DESC:
		print_group_desc(rep, &pl);
		break;
	case PD_FEAT_AUXTRACE:
		printf("# contains AUX area data (e.g. instruction trace)\n");
		break;
	case PD_FEAT_STAT:
		printf("# contains stat data\n");
		break;
	case PD_FEAT_SAMPLE_TIME: {
		u64 first = take_u64(&pl), last = take_u64(&pl);

		printf("# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", first / 1000000000,
		       first % 1000000000 / 1000);
		printf("# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", last / 1000000000,
		       last % 1000000000 / 1000);
		printf("# sample duration : %10.3f ms\n", ((double)last - (double)first) / 1e6);
		break;
	}
	case PD_FEAT_CLOCKID:
		printf("# clockid frequency: %" PRIu64 " MHz\n", take_u64(&pl) * 1000);
		break;
	case PD_FEAT_DIR_FORMAT:
		printf("# directory data version : %" PRIu64 "\n", take_u64(&pl));
		break;
	case PD_FEAT_COMPRESSED: {
		u32 version = take_u32(&pl), type = take_u32(&pl);
		u32 level = take_u32(&pl), ratio = take_u32(&pl);

		(void)version;
		printf("# compressed : %s, level = %u, ratio = %u\n",
		       type == PD_COMP_ZSTD ? "Zstd" : "Unknown", level, ratio);
		break;
	}
	case PD_FEAT_CPU_PMU_CAPS: {
		u32 n = take_u32(&pl);
		const char *sep = "";

		if (!n) {
			printf("# cpu pmu capabilities: not available\n");
			break;
		}
		printf("# cpu pmu capabilities: ");
		for (u32 i = 0; i < n && !pl.bad; i++) {
			const char *cap = take_string(&pl);
			const char *val = take_string(&pl);

			if (pl.bad)
				break;
			printf("%s%s=%s", sep, cap, val);
			sep = ", ";
		}
		printf("\n");
		break;
	}
	case PD_FEAT_CLOCK_DATA: {
		u32 version = take_u32(&pl), clockid = take_u32(&pl);
		u64 tod = take_u64(&pl), clk = take_u64(&pl);

		(void)version;
		printf("# clockid: %s (%u)\n", clockid_name(clockid), clockid);
		printf("# reference time: %" PRIu64 ".%09" PRIu64 " (TOD) = %" PRIu64 ".%09" PRIu64
		       " (%s)\n",
		       tod / 1000000000, tod % 1000000000, clk / 1000000000, clk % 1000000000,
		       clockid_name(clockid));
		break;
	}
	case PD_FEAT_PMU_CAPS: {
		u32 nr = take_u32(&pl);

		/* per PMU: its capabilities as name and value strings, then the PMU's name */
		for (u32 i = 0; i < nr && !pl.bad; i++) {
			u32 n = take_u32(&pl);
			const char *sep = "";
			char caps[1024] = "";
			size_t used = 0;

			for (u32 j = 0; j < n && !pl.bad; j++) {
				const char *cap = take_string(&pl);
				const char *val = take_string(&pl);
				int w = snprintf(caps + used, sizeof(caps) - used, "%s%s=%s", sep,
						 cap, val);

				if (w > 0 && (size_t)w < sizeof(caps) - used)
					used += (size_t)w;
				sep = ", ";
			}
			name = take_string(&pl);
			if (pl.bad)
				break;
			if (n)
				printf("# %s pmu capabilities: %s\n", name, caps);
			else
				printf("# %s pmu capabilities: not available\n", name);
		}
		name = pd_feature_name(bit);
		break;
	}
	default:
		/* perf prints nothing for bits it does not know; prec says they are there */
		printf("# feature bit %u%s%s%s: %zu bytes\n", bit, name ? " (" : "",
		       name ? name : "", name ? ")" : "", pl.len);
		break;
	}
	if (pl.bad)
		printf("# (the %s feature ends early: %zu bytes)\n", name ? name : "unknown",
		       pl.len);
}

int report_header(struct report *rep, const struct report_opts *o)
{
	const struct pd_file_header *h = pd_reader_header(rep->r);
	struct pd_event ev;
	struct stat st;
	int ret;

	/* In pipe mode the features arrive as records: read them all first. */
	if (pd_reader_is_pipe(rep->r)) {
		while ((ret = report_next(rep, &ev)) > 0)
			;
		if (ret < 0)
			return 1;
	}

	printf("# ========\n");
	if (!(strcmp(rep->path, "-") ? stat(rep->path, &st) : fstat(STDIN_FILENO, &st))) {
		char buf[64];
		time_t t = st.st_mtime;

		if (ctime_r(&t, buf))
			printf("# captured on    : %s", buf);
	}
	printf("# header version : 1\n");
	printf("# data offset    : %" PRIu64 "\n", h->data.offset);
	printf("# data size      : %" PRIu64 "\n", h->data.size);
	printf("# feat offset    : %" PRIu64 "\n",
	       pd_reader_is_pipe(rep->r) ? (u64)0 : h->data.offset + h->data.size);
	if (pd_reader_is_pipe(rep->r)) {
		/* perf prints the features of a pipe after the header, as they come */
		printf("# ========\n#\n");
		for (unsigned bit = 1; bit < PD_FEAT_BITS; bit++)
			if (pd_reader_has_feature(rep->r, bit))
				print_feature(rep, bit, o->filter.show_info);
		return 0;
	}
	for (unsigned bit = 1; bit < PD_FEAT_BITS; bit++)
		if (pd_reader_has_feature(rep->r, bit))
			print_feature(rep, bit, o->filter.show_info);
	printf("# missing features: ");
	for (unsigned bit = 1; bit < PD_FEAT_LAST_KNOWN; bit++)
		if (!pd_reader_has_feature(rep->r, bit))
			printf("%s ", pd_feature_name(bit));
	printf("\n# ========\n#\n");
	return 0;
}
