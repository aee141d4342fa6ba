/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file-level facts of a recording: what prec report --overhead needs to judge the costs and
 * that are not per-CPU costs over time (those are prec:overhead samples, overhead/event.h). They
 * go into prec's own feature section, PD_FEAT_PREC (bit 64, which perf 6.1 skips), as a small
 * versioned text of key=value lines, so that a human can read them with any hex dump and a new
 * key never breaks an old reader:
 *
 *	prec-facts 1				the first line: the layout's version
 *	source=bpf				the collector that ran: bpf, tracepoint or none
 *	source.wanted=auto			what --overhead-source asked for
 *	source.reason=...			why the source asked for (under auto: bpf)
 *						could not be used; absent when it ran
 *	interval_ns=1000000000			--overhead-interval
 *	max_sample_rate.before=100000		kernel.perf_event_max_sample_rate at the start
 *	max_sample_rate.after=50000		... and at the end (the kernel lowers it
 *						when interrupts take too long)
 *	nmi_watchdog=1				/proc/sys/kernel/nmi_watchdog during the recording
 *	calibration.age_ns=73000000000		the calibrations below come from prec's cache: an
 *						earlier recording of the same boot measured them
 *						this long before (overhead/calib-cache.h);
 *						absent when this recording measured them
 *	mmap_pages=128				data pages per ring buffer (-m)
 *	compression_level=1			-z level; 0 without -z
 *	writer.dropped_passes=0			drain passes that left data in a ring (queue full)
 *	writer.queue_max_bytes=65536		the largest backlog between draining and writing
 *	sideband.mmap.ns=812.500		calibrated ns per MMAP/MMAP2 record (median), with
 *	sideband.mmap.min_ns=790.000		its spread over the kept runs and their number; or
 *	sideband.mmap.max_ns=901.250		sideband.mmap.error=REASON when nothing was
 *	sideband.mmap.runs=7			calibrated
 *	sideband.comm.ns=...			the same for COMM records
 *	sideband.records.MMAP2=1234		side-band records received, by kind (perf's
 *						record type names: MMAP, COMM, MMAP2, ...)
 *	cpu.0.wall_ns=10003000000		the recording's wall time on CPU 0
 *	cpu.0.stolen.ns=13612.500		calibrated stolen ns per sample on CPU 0 (median),
 *	cpu.0.stolen.min_ns=12900.000		with its spread, runs and the samples behind it;
 *	cpu.0.stolen.max_ns=14100.000		or cpu.0.stolen.error=REASON
 *	cpu.0.stolen.runs=7
 *	cpu.0.stolen.samples=712
 *	cpu.0.collector.ns=150.000		what the running collector adds to each sample,
 *	cpu.0.collector.handler_ns=1010.000	and the handler time it measured meanwhile; or
 *						cpu.0.collector.error=REASON
 *	event.0.freq=4000			the frequency -F asked for event 0 (its attr
 *						index in the file), before any cap (cpu-clock
 *						and task-clock have the fixed period 1e9/freq
 *						in the attr, record/evlist.c); or
 *	event.1.period=100003			the period -c asked for
 *	event.2.shared_with=1			event 2 read event 1's counter (opened once)
 *	event.3.bpf_counter=created		--bpf-counters: event 3's readings came through a
 *						counter shared across sessions, which this
 *						recording created (or joined: another had)
 *	event.4.bpf_counter_fallback=a group	--bpf-counters was asked and event 4 counted
 *						with its own counters: why
 *	counters.interval_ns=1000000000		--count-interval: the counters were read (STAT,
 *						STAT_ROUND records) this often and at the end;
 *						absent when nothing was read
 *	event.0.aggregated=1			--aggregate: event 0's samples were counted in
 *						the kernel; each SAMPLE stands for one key
 *						(task, stacks), its PERIOD the summed period and
 *						its WEIGHT the number of kernel samples
 *	event.0.hf_period=300			hf-period= (alt-period=): the kernel alternated
 *						event 0's period between period - 300 and 300
 *	event.0.hf_rand=4			hf-rand= (alt-period-jitter= converted): the long
 *						period jittered over 1 << 4 counts; absent: none
 *	aggregate.interval_ns=1000000000	--aggregate-interval: how often the maps were
 *						taken (and at the end); absent without
 *						--aggregate
 *	aggregate.entries=16384			--aggregate-entries: the keys the count map holds
 *
 * Numbers are decimal (ns figures with three decimals). A calibrated ns, min_ns or max_ns is a
 * difference (time lost with sampling, a record or the collector, minus time lost without) and
 * may be negative when the effect is below what the probe resolves; handler_ns never is. Strings
 * run to the end of the line with
 * backslash, newline and carriage return escaped as \\, \n and \r. Lines end in \n; the text is
 * NUL-terminated and zero-padded to a multiple of 8 bytes. Keys may come in any order; a key
 * given twice keeps its last value; unknown keys are skipped (a reader of version 1 reads what it
 * knows of any later text whose first line is "prec-facts 1": new keys never change the meaning
 * of old ones; a change that would gets a new version number, which old readers refuse).
 *
 * The recorder fills a struct overhead_facts and calls overhead_facts_encode() then
 * record_set_feature(rec, PD_FEAT_PREC, ...) once it knows everything (in its stop hook: the rate
 * limit after and the wall times are known only then). Pipe mode cannot carry the section (format/
 * leaves bits perf does not know out of a pipe); prec report then says the facts are missing.
 * With record/record.h's names, in the stop hook:
 *
 *	struct record_stats *st = record_stats(rec);
 *	struct overhead_facts f;
 *	struct pd_buf b = PD_BUF_INIT;
 *
 *	overhead_facts_init(&f);
 *	overhead_fact_set_string(f.source, sizeof(f.source),
 *				 overhead_source_name(overhead_collector_source(c)));
 *	overhead_fact_set_string(f.source_wanted, sizeof(f.source_wanted),
 *				 overhead_source_name(want));
 *	overhead_fact_set_string(f.source_reason, sizeof(f.source_reason),
 *				 overhead_collector_reason(c));
 *	f.interval_ns = the --overhead-interval in ns;
 *	f.max_rate_before = st->max_sample_rate_before;
 *	f.max_rate_after = st->max_sample_rate_after;
 *	f.nmi_watchdog = /proc/sys/kernel/nmi_watchdog (leave -1 when it cannot be read);
 *	f.mmap_pages = the data pages per ring; f.comp_level = opts->comp_level;
 *	f.dropped_passes = st->dropped_passes; f.queue_max_bytes = st->queue_max_bytes;
 *	for each kind k: overhead_fact_from_calib(&f.sideband[k], &sideband_calib[k]);
 *	f.have_sideband_records = true;
 *	for each CPU i, type t: f.sideband_records[t] += st->cpu[i].sideband[t];
 *	for each CPU i of the recording:
 *		struct overhead_fact_cpu *fc = overhead_facts_cpu(&f, st->cpu[i].cpu);
 *
 *		fc->wall_ns = st->end_ns - st->start_ns;
 *		overhead_fact_from_calib(&fc->stolen, &stolen_calib[i]);
 *		overhead_fact_from_calib(&fc->collector, &collector_calib[i]);  (when run)
 *	for each workload event, by its attr index idx in the file:
 *		struct overhead_fact_event *fe = overhead_facts_event(&f, idx);
 *
 *		fe->freq = the -F asked for, before cap_frequency() (st->freq_requested), or
 *		fe->period = the -c asked for; fe->shared_with = the index read instead, if any;
 *		fe->bpf_counter = how it reached a counter shared across sessions, if it did;
 *		fe->bpf_fallback = why it did not, when one was asked for;
 *		fe->aggregated = true when --aggregate counted its samples in the kernel;
 *		fe->hf_period, fe->hf_rand = the alternating period and jitter it was opened with;
 *	f.counters_interval_ns = the --count-interval when the counters are read;
 *	f.aggregate_interval_ns, f.aggregate_entries = --aggregate-interval, --aggregate-entries;
 *	if (!overhead_facts_encode(&f, &b))
 *		record_set_feature(rec, PD_FEAT_PREC, b.data, b.len);
 *	pd_buf_release(&b);
 *	overhead_facts_release(&f);
 *
 * A fact the recorder does not know stays as overhead_facts_init() left it and is not written.
 */
#ifndef PREC_OVERHEAD_FACTS_H
#define PREC_OVERHEAD_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "format/perf-data.h"
#include "overhead/calibrate.h"

#define OVERHEAD_FACTS_VERSION 1
#define OVERHEAD_FACTS_MAGIC "prec-facts"
/* CPU numbers and event indices a decoder accepts: beyond these a file is damaged. */
#define OVERHEAD_FACTS_MAX_CPU 65535
#define OVERHEAD_FACTS_MAX_EVENT 65535
/* The longest string value kept, without its NUL; longer ones are cut. */
#define OVERHEAD_FACTS_STR_MAX 255

enum overhead_fact_state {
	OVERHEAD_FACT_ABSENT = 0, /* not in the file */
	OVERHEAD_FACT_OK,         /* measured: the numbers are valid */
	OVERHEAD_FACT_FAILED,     /* tried and failed: reason says why */
};

/* One calibrated figure (stolen time, collector cost, side-band cost). */
struct overhead_fact_calib {
	enum overhead_fact_state state;
	double ns;             /* the median: ns per sample, or per record (may be < 0) */
	double min_ns, max_ns; /* the spread of the kept runs (may be < 0) */
	double handler_ns;     /* collector cost only: the handler ns per sample it measured */
	u32 runs;              /* runs kept */
	u64 units;             /* samples (records) behind the figure; 0 unknown */
	char reason[OVERHEAD_FACTS_STR_MAX + 1]; /* FAILED: why */
};

struct overhead_fact_cpu {
	int cpu;
	u64 wall_ns; /* 0: unknown */
	struct overhead_fact_calib stolen;
	struct overhead_fact_calib collector;
};

/* How an event's readings came through a counter shared across sessions (--bpf-counters). */
enum overhead_fact_bpf {
	OVERHEAD_FACT_BPF_NONE,    /* they did not */
	OVERHEAD_FACT_BPF_CREATED, /* the recording created the counter */
	OVERHEAD_FACT_BPF_JOINED,  /* it joined the counter another session had created */
};

/**
 * overhead_fact_bpf_name - the word of a bpf_counter value in the facts and the reports.
 *
 * Return: "created", "joined", or NULL for none.
 */
const char *overhead_fact_bpf_name(enum overhead_fact_bpf b);

struct overhead_fact_event {
	u32 idx;         /* the attr's index in the file */
	u64 freq;        /* -F asked for (before the kernel's limit capped it); 0: not known */
	u64 period;      /* -c asked for; 0: not known */
	int shared_with; /* the attr index whose counter it reads; -1: opened itself */
	enum overhead_fact_bpf bpf_counter; /* a counter shared across sessions, or none */
	char bpf_fallback[OVERHEAD_FACTS_STR_MAX + 1]; /* "": none asked for, or it had one */
	bool aggregated; /* --aggregate: its samples were counted in the kernel (WEIGHT: how many) */
	u32 hf_period;   /* the alternating period the kernel took (hf-period=); 0: none */
	u32 hf_rand;     /* its jitter's exponent (hf-rand=, 1 << R wide); 0: none */
};

struct overhead_facts {
	u32 version; /* of the text decoded; OVERHEAD_FACTS_VERSION when encoding */
	char source[16];        /* bpf, tracepoint, none; "" unknown */
	char source_wanted[16]; /* auto, bpf, tracepoint, none; "" unknown */
	char source_reason[OVERHEAD_FACTS_STR_MAX + 1]; /* "" when the source ran */
	u64 interval_ns;            /* 0: unknown */
	u64 counters_interval_ns;   /* --count-interval; 0: no counter readings (or unknown) */
	u64 aggregate_interval_ns;  /* --aggregate-interval; 0: not aggregated (or unknown) */
	u64 aggregate_entries;      /* --aggregate-entries; 0: not aggregated (or unknown) */
	u64 max_rate_before;        /* 0: unknown */
	u64 max_rate_after;         /* 0: unknown */
	int nmi_watchdog;           /* -1: unknown */
	u64 calib_age_ns;           /* calibrations from the cache, this old; 0: measured */
	u32 mmap_pages;             /* 0: unknown */
	int comp_level;             /* -1: unknown; 0 without -z */
	s64 dropped_passes;         /* -1: unknown */
	s64 queue_max_bytes;        /* -1: unknown */
	struct overhead_fact_calib sideband[OVERHEAD_SIDEBAND_NR]; /* mmap, comm */
	u64 sideband_records[PD_KERNEL_RECORD_MAX]; /* by PERF_RECORD_* type */
	bool have_sideband_records;
	struct overhead_fact_cpu *cpus; /* nr_cpus, in the order added */
	u32 nr_cpus;
	struct overhead_fact_event *events;
	u32 nr_events;
	/*
	 * Kept by the functions below, not to be touched: room in the arrays, and the indexes a
	 * lookup goes through (CPU number or event index -> position in the array + 1), so that
	 * a facts text naming every CPU is read in linear time.
	 */
	u32 cpus_cap, events_cap;
	u32 *cpu_pos, *event_pos;
	u32 nr_cpu_pos, nr_event_pos;
};

/*
 * Loop turns and lookups of facts.c and model.c on this thread (the model's hash lookups count
 * in util/hash-index.h's hash_index_probes instead): the unit tests bound them, so that a figure
 * that turns quadratic again in the number of CPUs fails a test instead of hanging prec report
 * on a file with many CPUs. Nothing else reads it.
 */
extern _Thread_local u64 overhead_steps;

/**
 * overhead_facts_init - set every fact to unknown (the state a recorder starts from).
 */
void overhead_facts_init(struct overhead_facts *f);

/**
 * overhead_facts_release - free the CPU and event arrays; f is then as after init.
 */
void overhead_facts_release(struct overhead_facts *f);

/**
 * overhead_facts_cpu - the entry of a CPU, added (all unknown) when missing.
 *
 * Return: the entry, or NULL for a CPU outside 0..OVERHEAD_FACTS_MAX_CPU or without memory.
 */
struct overhead_fact_cpu *overhead_facts_cpu(struct overhead_facts *f, int cpu);

/**
 * overhead_facts_find_cpu - the entry of a CPU.
 *
 * Return: the entry, or NULL when the facts say nothing about that CPU.
 */
const struct overhead_fact_cpu *overhead_facts_find_cpu(const struct overhead_facts *f, int cpu);

/**
 * overhead_facts_event - the entry of an event (attr index), added when missing.
 *
 * Return: the entry, or NULL for an index above OVERHEAD_FACTS_MAX_EVENT or without memory.
 */
struct overhead_fact_event *overhead_facts_event(struct overhead_facts *f, u32 idx);

/**
 * overhead_facts_find_event - the entry of an event (attr index).
 *
 * Return: the entry, or NULL when the facts say nothing about it.
 */
const struct overhead_fact_event *overhead_facts_find_event(const struct overhead_facts *f,
							     u32 idx);

/**
 * overhead_fact_from_calib - turn a calibration result (overhead/calibrate.h) into a fact: OK
 * with its figures when c->err is 0, FAILED with c->reason (or strerror) otherwise.
 */
void overhead_fact_from_calib(struct overhead_fact_calib *dst, const struct overhead_calib *c);

/**
 * overhead_fact_set_string - copy a string value, cut to OVERHEAD_FACTS_STR_MAX (dst holds
 * len bytes).
 */
void overhead_fact_set_string(char *dst, size_t len, const char *src);

/**
 * overhead_facts_encode - append the PD_FEAT_PREC payload of f to out.
 *
 * Unknown facts are left out. The payload is NUL-terminated and padded to a multiple of 8.
 *
 * Return: 0, or -ENOMEM.
 */
int overhead_facts_encode(const struct overhead_facts *f, struct pd_buf *out);

/**
 * overhead_facts_decode - parse a PD_FEAT_PREC payload into f (which it initialises first).
 * @why: a one-line reason on failure (len bytes; may be NULL)
 *
 * Stops at the first NUL or at len. Unknown keys are skipped.
 *
 * Return: 0; -EPROTO when the first line is not "prec-facts N" or N is not a version this
 * reader knows; -EINVAL for a line without '=', a number that does not parse or is out of range,
 * a CPU or event number out of range (the line is named in why); -ENOMEM. f is released on
 * failure.
 */
int overhead_facts_decode(const void *payload, size_t len, struct overhead_facts *f, char *why,
			  size_t why_len);

#endif
