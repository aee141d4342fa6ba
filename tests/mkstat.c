// SPDX-License-Identifier: GPL-2.0
/*
 * mkstat: write perf.data files of counter readings laid out as prec record --count writes them
 * (the contract in man/prec-data.5: THREAD_MAP, CPU_MAP, STAT_CONFIG, then STAT per id and
 * STAT_ROUND per interval), with what this machine cannot produce: multiplexed hardware
 * counters, a counter never running, one never enabled, one that could not be opened, and an
 * event that shared another's counter. For tests/t2100-counters.sh.
 *
 * usage: mkstat mux|mux-nofacts|mux-bpf|damaged FILE
 *   mux      2 CPUs, 5 rounds of 100 ms: instructions multiplexed (40% and 60% running, with
 *            rates that change between rounds, and one round switched out on CPU 1), cycles
 *            never running, branches never enabled, task-clock counted, instructions again
 *            reading the first one's counter from round 1 on (facts event.4.shared_with=0),
 *            cache-misses with no readings, and cpu-clock sampling (a few samples) and read
 *   mux-nofacts  the same without the facts section (as in pipe mode): the second
 *            instructions is known as shared by its made-up ids alone (PD_PREC_SHARED_ID_BASE)
 *   mux-bpf  the same with the facts of --bpf-counters: instructions read through a counter
 *            shared across sessions that another session created (event.0.bpf_counter=joined),
 *            task-clock through one this one created (event.3.bpf_counter=created), branches
 *            counted with its own counters for a reason (event.2.bpf_counter_fallback)
 *   damaged  readings that went down, running above enabled, sums past 2^64, a reading of an
 *            id no event has and a STAT record too short to hold one
 *
 * On stdout, the manifest: what the readings mean, computed here from the values as they are
 * generated (not read back), one line per fact:
 *   total IDX NAME STATUS COUNT ENABLED RUNNING SCALED LOW HIGH   (null where none)
 *   interval IDX ROUND COUNT ENABLED RUNNING                      (summed over the CPUs)
 *   flag IDX WORD                                                 (damaged: what is wrong)
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf-data.h"
#include "overhead/facts.h"
#include "util/sysinfo.h"

#define NCPU 2
#define ROUNDS 5
#define IVAL 100000000ULL /* 100 ms */
#define PID 4242
#define NEV 7

static const char *prog = "mkstat";

static void check(int err, const char *what)
{
	if (err < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
		exit(1);
	}
}

struct rd {
	u64 val, ena, run;
};

struct ev {
	const char *name;
	u32 type;
	u64 config;
	bool sampling;
	bool no_ids;
	int shared_with;
	u64 ids[NCPU];
	struct rd cur[NCPU];	   /* what the file says at the current round */
	struct rd prev[NCPU];	   /* ... and said at the round before */
	struct rd agg[ROUNDS + 1]; /* summed over the CPUs, per round (0: nothing) */
	struct rd dif[ROUNDS + 1]; /* the round's differences, summed over the CPUs */
};

/* The events in file order; sampling and shared_with as their names say. */
#define EV(n, t, c, samp, noids, shared, id0, id1)                                                 \
	{                                                                                          \
		.name = n, .type = t, .config = c, .sampling = samp, .no_ids = noids,              \
		.shared_with = shared, .ids = {id0, id1},                                          \
	}
static struct ev evs[NEV] = {
    EV("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, false, -1, 5001,
       5002),
    EV("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, false, -1, 5011, 5012),
    EV("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, false, -1, 5021,
       5022),
    EV("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, false, -1, 5031, 5032),
    EV("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, false, 0, 5041, 5042),
    EV("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false, true, -1, 0, 0),
    EV("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, false, -1, 5061, 5062),
};

static struct perf_event_attr attr_of(const struct ev *e)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = e->type;
	a.size = sizeof(a);
	a.config = e->config;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	a.read_format =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	a.sample_id_all = 1;
	a.exclude_kernel = 1; /* no kernel map needed */
	a.exclude_guest = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	if (e->sampling) {
		a.sample_period = 100000;
		a.comm = a.mmap = a.task = 1;
	}
	return a;
}

static void put(struct pd_writer *w, struct pd_buf *b)
{
	check(b->err, "building a record");
	check(pd_writer_write(w, b->data, b->len), "pd_writer_write");
	pd_buf_reset(b);
}

/* The rate of instructions per ns of running, per round (in tenths), times the CPU number + 1. */
static const u64 rate10[ROUNDS + 1] = {0, 10, 20, 15, 5, 12};

/* Advance the mux kind's counters by one round. */
static void step_mux(int r)
{
	for (int c = 0; c < NCPU; c++) {
		u64 run = c == 0 ? IVAL * 4 / 10 : IVAL * 6 / 10;

		if (r == 4 && c == 1)
			run = 0; /* switched out for the whole round */
		evs[0].cur[c].ena += IVAL;
		evs[0].cur[c].run += run;
		evs[0].cur[c].val += run * rate10[r] * (u64)(c + 1) / 10;
		evs[1].cur[c].ena += IVAL; /* cycles: enabled, never running */
		/* branches: never enabled, all zero */
		evs[3].cur[c].val += IVAL - 1000 * (u64)c;
		evs[3].cur[c].ena += IVAL - 1000 * (u64)c;
		evs[3].cur[c].run += IVAL - 1000 * (u64)c;
		evs[6].cur[c].val += IVAL;
		evs[6].cur[c].ena += IVAL;
		evs[6].cur[c].run += IVAL;
	}
}

/*
 * The shared event was enabled at the end of round 1: its readings are the counter's increase
 * since then (the recorder subtracts the counter's reading at that point).
 */
static struct rd shared_at_enable[NCPU];

static void shared_readings(int r)
{
	for (int c = 0; c < NCPU; c++) {
		if (r == 1)
			shared_at_enable[c] = evs[0].cur[c];
		evs[4].cur[c].val = evs[0].cur[c].val - shared_at_enable[c].val;
		evs[4].cur[c].ena = evs[0].cur[c].ena - shared_at_enable[c].ena;
		evs[4].cur[c].run = evs[0].cur[c].run - shared_at_enable[c].run;
	}
}

/* damaged: values that go down, running above enabled, sums past 2^64 */
static void step_damaged(int r)
{
	for (int c = 0; c < NCPU; c++) {
		evs[0].cur[c].ena += IVAL;
		evs[0].cur[c].run += IVAL;
		evs[0].cur[c].val += 1000000;
		if (r == 3 && c == 1)
			evs[0].cur[c].val -= 3000000; /* went down by a million */
		evs[1].cur[c].ena += IVAL;
		evs[1].cur[c].run += IVAL + 5; /* running longer than enabled */
		evs[1].cur[c].val += 1000;
		evs[2].cur[c].ena += IVAL;
		evs[2].cur[c].run += IVAL;
		evs[2].cur[c].val = UINT64_MAX - 10 + (u64)r; /* near 2^64 on each CPU */
		evs[3].cur[c].val += IVAL;
		evs[3].cur[c].ena += IVAL;
		evs[3].cur[c].run += IVAL;
		evs[4].cur[c] = evs[3].cur[c];
		evs[6].cur[c] = evs[3].cur[c];
	}
}

static void print_num(long double v, bool have)
{
	if (have)
		printf(" %.1Lf", v);
	else
		printf(" null");
}

/* The manifest line of event i: its totals, scaled count and range, from the generated values. */
static void manifest_total(int i)
{
	const struct ev *e = &evs[i];
	const struct rd *t = &e->agg[ROUNDS];
	long double rmin = 0, rmax = 0, scaled = 0, unseen;
	const char *status;
	int nrates = 0;

	if (e->no_ids) {
		printf("total %d %s not-supported 0 0 0 null null null\n", i, e->name);
		return;
	}
	for (int r = 1; r <= ROUNDS; r++) {
		u64 dv = e->dif[r].val, dr = e->dif[r].run;
		long double rate;

		if (!dr)
			continue;
		rate = (long double)dv / dr;
		if (!nrates || rate < rmin)
			rmin = rate;
		if (!nrates || rate > rmax)
			rmax = rate;
		nrates++;
	}
	status = !t->ena	   ? "not-enabled"
		 : !t->run	   ? "not-counted"
		 : t->run < t->ena ? "scaled"
				   : "counted";
	printf("total %d %s %s %" PRIu64 " %" PRIu64 " %" PRIu64, i, e->name, status, t->val,
	       t->ena, t->run);
	if (t->run)
		scaled = t->run < t->ena ? (long double)t->val * t->ena / t->run : t->val;
	print_num(scaled, t->run);
	unseen = (long double)(t->ena - t->run);
	if (t->run && t->run < t->ena) {
		if (nrates >= 2)
			printf(" %.1Lf %.1Lf", t->val + rmin * unseen, t->val + rmax * unseen);
		else
			printf(" %" PRIu64 ".0 null", t->val);
	} else {
		print_num(t->val, t->run);
		print_num(t->val, t->run);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	static const int cpus[NCPU] = {0, 1};
	struct pd_stat_config_entry cfg[] = {
	    {PD_STAT_CONFIG_AGGR_MODE, PD_AGGR_GLOBAL},
	    {PD_STAT_CONFIG_INTERVAL, IVAL / 1000000},
	    {PD_STAT_CONFIG_SCALE, 1},
	};
	struct pd_thread_map_entry thr = {.pid = (u64)-1, .comm = ""};
	struct pd_buf rec = PD_BUF_INIT, b = PD_BUF_INIT;
	struct overhead_facts f;
	struct perf_event_attr a0;
	struct pd_writer *w;
	bool damaged, nofacts, bpf;

	if (argc != 3 || (strcmp(argv[1], "mux") && strcmp(argv[1], "mux-nofacts") &&
			  strcmp(argv[1], "mux-bpf") && strcmp(argv[1], "damaged"))) {
		fprintf(stderr, "usage: %s mux|mux-nofacts|mux-bpf|damaged FILE\n", prog);
		return 2;
	}
	damaged = !strcmp(argv[1], "damaged");
	bpf = !strcmp(argv[1], "mux-bpf");
	nofacts = !strcmp(argv[1], "mux-nofacts");
	if (nofacts) {
		evs[4].ids[0] = PD_PREC_SHARED_ID_BASE;
		evs[4].ids[1] = PD_PREC_SHARED_ID_BASE + 1;
	}
	check(pd_writer_open(&w, argv[2], 0), argv[2]);
	check(sysinfo_set_features(w, argc, (const char *const *)argv), "system features");
	for (int i = 0; i < NEV; i++) {
		struct perf_event_attr a = attr_of(&evs[i]);

		if (i == 0)
			a0 = a;
		check(pd_writer_add_attr(w, &a, evs[i].name, evs[i].ids, evs[i].no_ids ? 0 : NCPU),
		      "add attr");
	}
	if (!nofacts) {
		overhead_facts_init(&f);
		if (!damaged)
			overhead_facts_event(&f, 4)->shared_with = 0;
		if (bpf) {
			overhead_facts_event(&f, 0)->bpf_counter = OVERHEAD_FACT_BPF_JOINED;
			overhead_facts_event(&f, 3)->bpf_counter = OVERHEAD_FACT_BPF_CREATED;
			overhead_fact_set_string(overhead_facts_event(&f, 2)->bpf_fallback,
						 sizeof(overhead_facts_event(&f, 2)->bpf_fallback),
						 "a group");
		}
		check(overhead_facts_encode(&f, &b), "facts");
		check(pd_writer_set_feature(w, PD_FEAT_PREC, b.data, b.len), "facts");
		overhead_facts_release(&f);
		pd_buf_release(&b);
	}
	check(pd_writer_begin(w), "pd_writer_begin");

	/* The sampling event's samples, a COMM first so that perf names the thread. */
	{
		struct pd_sample id = {.pid = PID, .tid = PID, .time = 1000, .id = 5061, .cpu = 0};

		check(pd_encode_comm(&rec, &a0, PID, PID, "work", false, &id), "COMM");
		for (int k = 0; k < 6; k++) {
			struct pd_sample s = {
			    .pid = PID,
			    .tid = PID,
			    .time = IVAL / 2 * (u64)(k + 1),
			    .id = evs[6].ids[k % 2],
			    .cpu = (u32)(k % 2),
			    .ip = 0x400000 + (u64)k * 16,
			    .period = 100000,
			    .misc = PERF_RECORD_MISC_USER,
			};
			struct perf_event_attr sa = attr_of(&evs[6]);

			check(pd_encode_sample(&rec, &sa, &s), "SAMPLE");
		}
		put(w, &rec);
	}

	check(pd_encode_thread_map(&rec, 1, &thr), "THREAD_MAP");
	check(pd_encode_cpu_map(&rec, NCPU, cpus), "CPU_MAP");
	check(pd_encode_stat_config(&rec, 3, cfg), "STAT_CONFIG");
	put(w, &rec);
	for (int r = 1; r <= ROUNDS; r++) {
		if (damaged) {
			step_damaged(r);
		} else {
			step_mux(r);
			shared_readings(r);
		}
		for (int i = 0; i < NEV; i++) {
			if (evs[i].no_ids)
				continue;
			for (int c = 0; c < NCPU; c++) {
				struct pd_stat_body st = {
				    .id = evs[i].ids[c],
				    .cpu = (u32)c,
				    .thread = 0,
				    .val = evs[i].cur[c].val,
				    .ena = evs[i].cur[c].ena,
				    .run = evs[i].cur[c].run,
				};

				check(pd_encode_stat(&rec, &st), "STAT");
				/*
				 * A reading that went down adds nothing to its round (the
				 * documented rule); the sums saturate as prec's must.
				 */
				if (st.val >= evs[i].prev[c].val && st.ena >= evs[i].prev[c].ena &&
				    st.run >= evs[i].prev[c].run) {
					u64 dv = st.val - evs[i].prev[c].val;

					evs[i].dif[r].val = evs[i].dif[r].val > UINT64_MAX - dv
								? UINT64_MAX
								: evs[i].dif[r].val + dv;
					evs[i].dif[r].ena += st.ena - evs[i].prev[c].ena;
					evs[i].dif[r].run += st.run - evs[i].prev[c].run;
				}
				evs[i].prev[c] = evs[i].cur[c];
				if (evs[i].agg[r].val > UINT64_MAX - st.val)
					evs[i].agg[r].val = UINT64_MAX;
				else
					evs[i].agg[r].val += st.val;
				evs[i].agg[r].ena += st.ena;
				evs[i].agg[r].run += st.run;
			}
		}
		if (damaged && r == 2) {
			struct pd_stat_body st = {
			    .id = 999999, .cpu = 0, .val = 1, .ena = 1, .run = 1};
			struct pd_record_header *h;

			check(pd_encode_stat(&rec, &st), "STAT");
			/* a STAT record cut to 16 bytes */
			h = pd_buf_append(&rec, NULL, 16);
			if (h) {
				h->type = PD_RECORD_STAT;
				h->size = 16;
			}
		}
		check(pd_encode_stat_round(
			  &rec, r < ROUNDS ? PD_STAT_ROUND_INTERVAL : PD_STAT_ROUND_FINAL,
			  IVAL * (u64)r),
		      "STAT_ROUND");
		put(w, &rec);
	}
	check(pd_writer_close(w), "pd_writer_close");
	pd_buf_release(&rec);

	for (int i = 0; i < NEV; i++) {
		manifest_total(i);
		for (int r = 1; r <= ROUNDS && !evs[i].no_ids; r++)
			printf("interval %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i, r,
			       evs[i].dif[r].val, evs[i].dif[r].ena, evs[i].dif[r].run);
	}
	if (damaged) {
		printf("flag 0 decreased\n");
		printf("flag 1 running-above-enabled\n");
		printf("flag 2 saturated\n");
		printf("unknown-ids 1\nshort-records 1\n");
	}
	return 0;
}
