/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook API of the prec record session: the only record/ header a hook includes. A hook
 * (struct record_hook) runs code at fixed points of a recording, adds attrs of its own
 * (prec:overhead, counting events) and emits records in stream order, without the session
 * knowing what it measures. It talks only to the session: its options come from
 * record_options(), what it tells other hooks goes through the session's accessors below.
 *
 * The recorder has two threads. The drain loop (the main thread) waits in ppoll() for the ring
 * buffers, copies whole records out of them into blocks and queues the blocks; it never writes
 * to the file. The writer thread takes blocks off the queue, looks at each record (sample
 * counts, first and last time, LOST, THROTTLE, side-band counts, the build-id tracker), and
 * hands the bytes to format/'s writer, which compresses them with -z. A slow disk or slow
 * compression therefore only grows the queue; it never delays draining.
 */
#ifndef PREC_RECORD_HOOK_H
#define PREC_RECORD_HOOK_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "format/perf-data.h"

/*
 * perf record's options that set attr bits on every event (evsel__config()), with perf's
 * meaning; zero is perf's default for each.
 */
struct record_attr_opts {
	unsigned long long branch_stack; /* -b, -j: PERF_SAMPLE_BRANCH_* bits */
	unsigned long long intr_regs;    /* -I: sample_regs_intr */
	unsigned long long user_regs;    /* --user-regs: sample_regs_user */
	bool weight;            /* -W */
	bool phys_data;         /* --phys-data */
	bool data_page_size;    /* --data-page-size */
	bool code_page_size;    /* --code-page-size */
	bool sample_identifier; /* --sample-identifier */
	bool raw_samples;       /* -R */
	bool no_samples;        /* -n */
	bool all_kernel;        /* --all-kernel */
	bool all_user;          /* --all-user */
	bool strict_freq;       /* --strict-freq */
	bool running_time;      /* --running-time */
	bool group;             /* --group: all the -e events in one group */
	bool kernel_callchains; /* --kernel-callchains */
	bool user_callchains;   /* --user-callchains */
	bool all_cgroups;       /* --all-cgroups */
	bool namespaces;        /* --namespaces */
};

/* Options of prec record, with perf record's meaning. */
struct record_opts {
	const char *output;    /* -o; "-" is pipe mode */
	bool pipe;
	bool freq_set;         /* -F given */
	bool period_set;       /* -c given */
	u64 freq;              /* -F, default 4000 */
	u64 period;            /* -c */
	bool callgraph;        /* -g, --call-graph: a callchain in every sample */
	int callgraph_mode;    /* with callgraph: RECORD_CALLGRAPH_* (-g keeps what was chosen) */
	unsigned max_stack;    /* --call-graph fp,N: sample_max_stack; 0 for the kernel's */
	u32 stack_dump_size;   /* --call-graph dwarf[,N]: bytes of user stack in each sample */
	u64 dwarf_regs;        /* dwarf: sample_regs_user, the registers an unwinder starts from */
	bool system_wide;      /* -a */
	const char *cpu_list;  /* -C */
	const char *pid_list;  /* -p */
	const char *tid_list;  /* -t */
	const char *uid;       /* -u: a user name or number (its processes, as -p) */
	const int *cgroup_fds; /* -G: the cgroup of each -e event, by index; -1 for none */
	int nr_cgroup_fds;
	int comp_level;        /* -z: 0 off, else the zstd level */
	unsigned mmap_pages;   /* -m: data pages per ring buffer (a power of 2); 0 for the default */
	bool sample_time;      /* -T (time is always sampled, as perf 6.1 does) */
	bool sample_addr;      /* -d */
	bool sample_cpu;       /* --sample-cpu */
	bool sample_period;    /* -P: PERIOD in every sample */
	bool switch_events;    /* --switch-events */
	bool no_inherit;       /* --no-inherit */
	bool use_clockid;      /* -k */
	int clockid;
	bool no_buildid;       /* --no-buildid, -B */
	/* The build-id cache (util/buildid-cache.h) and perf's other build-id options. */
	bool no_buildid_cache; /* -N, --no-buildid-cache (-B, -z and pipe mode imply it) */
	bool buildid_all;      /* --buildid-all: every binary mapped, not only those hit */
	bool buildid_mmap;     /* --buildid-mmap: build-ids in MMAP2 records, none at the end */
	const char *buildid_dir; /* --buildid-dir: the cache; NULL for perf's choice */
	const struct record_attr_opts *attr; /* perf's attr options (above); NULL: none */
	int argc;              /* the workload, argv[argc] == NULL; argc 0 for none */
	char **argv;
	int orig_argc;         /* the whole command line, for CMDLINE */
	const char **orig_argv;

	/* The hooks' options: the command fills them, each hook reads its own. */
	int overhead_source;   /* --overhead-source: an enum overhead_source (overhead/collect.h) */
	u64 overhead_interval_ns; /* --overhead-interval */
	bool recalibrate;      /* --recalibrate */
	const struct event_list *count_events; /* --count EVENTS; NULL when not given */
	u64 count_interval_ns; /* --count-interval; 0 when not given */
	bool bpf_counters;     /* --bpf-counters: shared counters (record/bperf.h) */
	bool off_cpu;          /* --off-cpu */
	bool aggregate;        /* --aggregate: count samples in the kernel (record/aggregate.h) */
	u64 aggregate_interval_ns; /* --aggregate-interval */
	u64 aggregate_entries; /* --aggregate-entries */

	/* How the session runs (perf record's options of the same names); record.c fills them. */
	bool per_thread;       /* --per-thread: one ring per thread (cpu -1), no per-CPU events */
	unsigned synth;        /* --synth: RECORD_SYNTH_* bits */
	bool no_bpf_event;     /* --no-bpf-event */
	bool inherit_stat;     /* -s: per-thread counts (PERF_RECORD_READ at each exit) */
	long delay_ms;         /* -D: 0 none, -1 start disabled (--control enables) */
	bool no_buffering;     /* --no-buffering: a wakeup for every record */
	u64 mmap_flush;        /* --mmap-flush: bytes a ring holds before a pass takes them */
	u64 max_size;          /* --max-size: stop once the data reaches it; 0 no limit */
	int switch_output;     /* --switch-output: RECORD_SWITCH_* */
	u64 switch_size;       /* --switch-output=SIZE */
	u64 switch_time_ns;    /* --switch-output=TIME */
	int switch_max_files;  /* --switch-max-files; 0 keeps them all */
	bool timestamp_filename; /* --timestamp-filename (implied by --switch-output) */
	int ctl_fd, ack_fd;    /* --control; -1 when not given */
	bool perf_summary;     /* --summary=perf, PREC_SUMMARY=perf: perf record's own lines */
	bool dry_run;          /* --dry-run: parse the options and events, then exit */
	bool overwrite;        /* --overwrite: backward rings, read at the end and at rotations */
	bool tail_synthesize;  /* --tail-synthesize: synthesize at the end, not at the start */
	/* --switch-output-event: rotate (as on SIGUSR2) each time one of these fires; or NULL */
	const struct event_list *switch_output_events;
};

/* --call-graph: how the user part of a callchain is recorded (perf's record modes). */
#define RECORD_CALLGRAPH_FP 0    /* the kernel walks the frame pointers */
#define RECORD_CALLGRAPH_DWARF 1 /* registers and a stack copy, unwound when reported */
#define RECORD_CALLGRAPH_LBR 2   /* the PMU's last branch records in call-stack mode */
/* dwarf's stack copy when no size is given, in bytes (perf's default) */
#define RECORD_DWARF_STACK_SIZE 8192

/* --synth: what is synthesized of the tasks that existed before the recording. */
#define RECORD_SYNTH_TASK 1U
#define RECORD_SYNTH_MMAP 2U
#define RECORD_SYNTH_CGROUP 4U
#define RECORD_SYNTH_ALL (RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP | RECORD_SYNTH_CGROUP)

/* --switch-output: when the output rotates to a new file. */
#define RECORD_SWITCH_SIGNAL 1
#define RECORD_SWITCH_SIZE 2
#define RECORD_SWITCH_TIME 3

struct event_list;

/* Side-band record kinds counted per CPU (the kernel's record types below this). */
#define RECORD_NR_KINDS PD_KERNEL_RECORD_MAX

/*
 * What the recording cost and what it lost, per CPU where that is known. Written by the
 * recorder; hooks may read it at any time from the main thread. Fields filled by the writer
 * thread (marked W) are exact after record_writer_stop(); during the recording
 * record_stats_snapshot() gives a consistent copy.
 */
struct record_cpu_stats {
	int cpu;                 /* the CPU number */
	u64 samples;             /* W: PERF_RECORD_SAMPLE records from this CPU's ring */
	u64 lost;                /* W: records the kernel dropped (sum of PERF_RECORD_LOST) */
	u64 lost_records;        /* W: PERF_RECORD_LOST records */
	u64 lost_samples;        /* samples lost (PERF_FORMAT_LOST, read at the end) */
	u64 throttle, unthrottle; /* W: THROTTLE / UNTHROTTLE records */
	u64 throttled_ns;        /* W: time between a THROTTLE and its UNTHROTTLE */
	u64 sideband[RECORD_NR_KINDS]; /* W: records by type (SAMPLE and LOST excluded) */
	u64 bytes;               /* bytes drained from this CPU's ring */
	u64 wakeups;             /* passes in which this ring had data */
};

struct record_stats {
	int nr_cpus;
	struct record_cpu_stats *cpu; /* nr_cpus entries, in the order of the recording's CPUs */
	u64 samples;           /* W: all samples */
	u64 own_samples;       /* W: the recorder's own samples (prec:overhead), not in samples */
	u64 lost;              /* W */
	u64 lost_samples;
	u64 wakeups;           /* ppoll() returns but timeouts ("Woken up N times") */
	u64 passes;            /* drain passes that found data */
	u64 records_bytes;     /* W: bytes handed to the writer */
	u64 data_bytes;        /* W: bytes in the file's data section (after compression) */
	u64 write_ns;          /* W: time in pd_writer_write/flush, compression included */
	u64 writer_cpu_ns;     /* W: CPU time of the writer thread (known after it stopped) */
	u64 queue_max_bytes;   /* the largest backlog between the drain loop and the writer */
	u64 max_ring_fill;     /* the most bytes found in one ring at one pass (full: data lost) */
	u64 dropped_passes;    /* passes that left data in a ring because the queue was full */
	u64 first_time, last_time; /* W: sample times (the sample clock) */
	u64 start_ns, end_ns;  /* CLOCK_MONOTONIC at the start of draining and at the end */
	struct rusage ru_start, ru_end; /* the recorder's own (RUSAGE_SELF: both threads) */
	u64 max_sample_rate_before, max_sample_rate_after; /* perf_event_max_sample_rate */
	u64 freq_requested;    /* -F as given, before the kernel's limit was applied */
};

struct record;

/*
 * A hook: code that runs at fixed points of a recording, in the main thread. Every callback is
 * optional; a negative return from declare, prepare or start fails the recording with the
 * message the hook printed. priv is the hook's own pointer.
 *
 *	declare	before the events are configured: read the options (record_options()), add
 *		attrs with record_declare_attr() (which makes the file a multi-event one, so every
 *		attr gets PERF_SAMPLE_IDENTIFIER), ask for ticks (record_set_tick()). A hook that
 *		its options turn off returns RECORD_HOOK_OFF before it does anything: none of
 *		its callbacks runs again, finish included
 *	prepare	after the events are opened and mapped, before the file header is written: add
 *		tracing formats (record_tracing()), set features, open collectors on the CPUs
 *	start	just before the events are enabled / the workload is released
 *	tick	every record_set_tick() interval while recording, from the drain loop
 *	stop	after the events are disabled and the rings drained for the last time; the last
 *		chance to record_emit()
 *	finish	after the file is closed (or aborted): free what was allocated
 *
 * and, between declare and prepare (it comes last in the struct only to keep initialisers as
 * they are):
 *
 *	open	after the events are opened and mapped and the workload forked, before the file is
 *		created: open events of the hook's own, give declared attrs their ids
 *		(record_set_attr_ids()); a negative return fails the recording
 */
struct record_hook {
	const char *name;
	int (*declare)(struct record *rec, void **priv);
	int (*prepare)(struct record *rec, void *priv);
	int (*start)(struct record *rec, void *priv);
	int (*tick)(struct record *rec, void *priv, u64 now);
	int (*stop)(struct record *rec, void *priv);
	void (*finish)(struct record *rec, void *priv);
	int (*open)(struct record *rec, void *priv);
};

/* What a declare callback returns for a hook its options turn off. */
#define RECORD_HOOK_OFF 1

/**
 * record_set_tick - call the tick callback of the hook being declared every interval_ns while
 * recording (from its declare callback; without it, tick never runs).
 *
 * Return: 0, or -EBUSY outside a declare callback.
 */
int record_set_tick(struct record *rec, u64 interval_ns);

/**
 * record_set_shared_with - publish that the counting event of attr idx reads the counter of
 * attr other, opened once for both (the counters hook, from its open callback), for other hooks
 * to read with record_shared_with().
 *
 * Return: 0, or -EINVAL when idx or other is out of range or they are the same.
 */
int record_set_shared_with(struct record *rec, int idx, int other);

/**
 * record_shared_with - the attr index whose counter attr idx reads (record_set_shared_with()).
 *
 * Return: that index, or -1 when idx opened its own counter or is not a counting event.
 */
int record_shared_with(const struct record *rec, int idx);

/* How a counting event met --bpf-counters (record_set_bpf_counter()). */
enum record_bpf_counter {
	RECORD_BPF_NONE,    /* no counter shared across sessions */
	RECORD_BPF_CREATED, /* one this recording created */
	RECORD_BPF_JOINED,  /* one another session had created */
};

/**
 * record_set_bpf_counter - publish how the counting event of attr idx met --bpf-counters (the
 * counters hook, from its open callback), for other hooks to read with record_bpf_counter().
 * @how: whether its readings come through a counter shared across sessions, created or joined
 * @why: with RECORD_BPF_NONE, why it counts with its own counters (copied); NULL for no reason
 *
 * Return: 0, or -EINVAL when idx is out of range.
 */
int record_set_bpf_counter(struct record *rec, int idx, enum record_bpf_counter how,
			   const char *why);

/**
 * record_bpf_counter - how attr idx met --bpf-counters (record_set_bpf_counter()).
 * @why: set to the reason it has no counter shared across sessions, or NULL
 *
 * Return: how; RECORD_BPF_NONE for an event nothing was published about.
 */
enum record_bpf_counter record_bpf_counter(const struct record *rec, int idx, const char **why);

/*
 * record_set_read_interval - the counters are read every interval_ns in this recording (the
 * counters hook, from its declare callback); record_read_interval() tells other hooks, 0 when
 * nothing is read.
 */
void record_set_read_interval(struct record *rec, u64 interval_ns);
u64 record_read_interval(const struct record *rec);

/**
 * record_set_no_rounds - write no FINISHED_ROUND in this recording (from a declare callback),
 * for a hook that emits records whose times are older than what was drained before them: perf
 * then sorts the whole file by time instead of flushing round by round, so nothing is out of
 * order however late such a record comes.
 */
void record_set_no_rounds(struct record *rec);

/*
 * In-kernel aggregation (--aggregate): what it cost and lost on one CPU, cumulative since the
 * start of the recording.
 */
struct record_aggregate_cpu {
	int cpu;        /* the CPU number */
	u64 runs;       /* runs of the program on the sampling events */
	u64 run_ns;     /* their time, as the program measured it */
	u64 lost_keys;  /* samples the count map had no room for (written as LOST_SAMPLES) */
	u64 lost_stacks; /* stacks the stack map had no room for ([lost stack] frames) */
};

/*
 * The aggregation of a recording, published by the aggregate hook for the overhead hook and for
 * the summary.
 */
struct record_aggregate {
	u64 interval_ns; /* --aggregate-interval */
	u64 entries;     /* --aggregate-entries: the size of each map */
	u64 attrs;       /* bit i: attr index i is aggregated (indexes below 64) */
	int nr_cpus;     /* entries of cpu, in the order of record_cpus() */
	const struct record_aggregate_cpu *cpu;
	u64 records;     /* SAMPLE records written so far, one per key and interval */
	u64 samples;     /* the kernel samples they stand for (their WEIGHTs summed) */
};

/**
 * record_set_aggregate - publish the aggregation's figures (copied), from the aggregate hook's
 * open, tick and stop callbacks; a hook before the overhead hook in the table, so that each
 * interval of prec:overhead has the figures of its end.
 *
 * Return: 0, or -EINVAL for a negative nr_cpus.
 */
int record_set_aggregate(struct record *rec, const struct record_aggregate *agg);
/* The aggregation's figures, or NULL when the recording aggregates nothing. */
const struct record_aggregate *record_aggregate(const struct record *rec);

/* The session's options, statistics and CPUs. */
const struct record_opts *record_options(const struct record *rec);
struct record_stats *record_stats(struct record *rec);
/**
 * record_stats_snapshot - copy the statistics, with the writer thread's fields as of now (and
 * ru_end = the recorder's rusage now, until the recording has ended).
 * @cpu: nr_cpus entries to receive the per-CPU figures (may be NULL)
 */
void record_stats_snapshot(struct record *rec, struct record_stats *out,
			   struct record_cpu_stats *cpu);
/* The CPU numbers the recording uses (its ring buffers), nr of them. */
const int *record_cpus(const struct record *rec, int *nr);
/* The pid the workload runs as, or -1 when there is none. */
pid_t record_workload_pid(const struct record *rec);
/* The attr of the first (tracking) event: the layout of synthesized records' trailers. */
const struct perf_event_attr *record_tracking_attr(const struct record *rec);

/**
 * record_declare_attr - add an event of the hook's own to the file (from a declare callback).
 * @attr: type, config, sample_type (RAW, CPU ...); the recorder adds IDENTIFIER, sample_id_all,
 *	  the TIME/TID/IP it needs and the size
 * @name: its name in EVENT_DESC
 * @id: set to the sample id to put in its samples (no kernel event ever gets it)
 *
 * Return: the attr's index, or a negative errno.
 */
int record_declare_attr(struct record *rec, const struct perf_event_attr *attr, const char *name,
			u64 *id);
/* The attr as it will be written (after the recorder's additions), by index. */
const struct perf_event_attr *record_attr(const struct record *rec, int idx);
/*
 * The frequency event idx samples at (-F or freq=), 0 for a period. cpu-clock and task-clock
 * carry it in the attr as the fixed period the kernel makes of it (evlist.c, hrtimer_period()).
 */
u64 record_event_freq(const struct record *rec, int idx);
/*
 * The alternating period event idx is opened with (hf-period=, alt-period=), 0 for none; *rand
 * gets its jitter's exponent (hf-rand=, alt-period-jitter= converted), 0 for none.
 */
u32 record_event_hf(const struct record *rec, int idx, u32 *rand);

/**
 * record_attr_edit - the attr of index idx, to change before the file is created (declare and
 * open callbacks), e.g. read_format bits for a hook that reads the events. Bits set in declare
 * survive the recorder's configuration, which only adds to sample_type and read_format.
 *
 * Return: the attr, or NULL when idx is out of range or the file exists already.
 */
struct perf_event_attr *record_attr_edit(struct record *rec, int idx);

/**
 * record_set_attr_ids - give an attr the hook declared (record_declare_attr()) the ids it has
 * in the file, one per counter it stands for, instead of its one synthetic id (open callback).
 *
 * Return: 0; -EINVAL for an attr the recorder opens itself or nr 0; -EBUSY once the file exists.
 */
int record_set_attr_ids(struct record *rec, int idx, const u64 *ids, u32 nr);

/**
 * record_event_fds - the fds and kernel ids of an event the recorder opened, both indexed
 * [cpu_idx * nr_threads + thread_idx] in the order of record_cpus() and record_threads()
 * (fd -1 where it is not open), for a hook that reads it (open callback and later).
 *
 * Return: the number of entries (0 before the events are opened), or -ENOENT for an attr the
 * recorder never opens (a hook's own).
 */
int record_event_fds(const struct record *rec, int idx, const int **fd, const u64 **id);

/**
 * record_set_cpu_map - the CPUs the file's CPU_MAP lists instead of the recording's, for a hook
 * whose STAT records read "any CPU" (-1) (open callback).
 *
 * Return: 0, -EINVAL for nr <= 0, -EBUSY once the file exists.
 */
int record_set_cpu_map(struct record *rec, const int *cpus, int nr);

/* The events' pid argument by thread index (-1: all tasks), nr of them: THREAD_MAP's order. */
const pid_t *record_threads(const struct record *rec, int *nr);

/* The tracing data of the file, to add formats to (from a prepare callback). */
struct pd_tracing *record_tracing(struct record *rec);

/**
 * record_set_feature - set a feature payload (copied); see pd_writer_set_feature().
 *
 * Return: 0 or a negative errno.
 */
int record_set_feature(struct record *rec, unsigned bit, const void *payload, size_t len);

/**
 * record_emit - queue whole records for the file, in stream order with what was drained so far.
 *
 * Only from the main thread, in the start, tick and stop callbacks (the writer starts after
 * prepare). Timestamps should come from record_now() so that they fit the FINISHED_ROUND order.
 * What a start callback emits goes again into every file --switch-output begins (after that
 * file's synthesized records): names and descriptions every file needs, such as KSYMBOLs.
 *
 * Return: 0, -EBUSY before the writer started, -EINVAL for records of bad sizes, or -ENOMEM.
 */
int record_emit(struct record *rec, const void *records, size_t len);

/**
 * record_sync - wait until the writer thread has looked at everything queued so far (what was
 * drained and what was emitted), so that record_stats_snapshot() counts all of it.
 * @timeout_ns: the longest wait; the drain loop waits meanwhile
 *
 * Only from the main thread, in the start, tick and stop callbacks.
 *
 * Return: 0; -ETIMEDOUT when the writer is still behind after timeout_ns (its counts then lag
 * behind what was queued), -EBUSY before the writer started.
 */
int record_sync(struct record *rec, u64 timeout_ns);

/**
 * record_now - the current time in the samples' clock (perf's clock, or the -k clock).
 *
 * perf's default clock is the kernel's local_clock(), which user space cannot read; its offset
 * from CLOCK_MONOTONIC is measured once, on first use, from the time of a COMM record the
 * recorder provokes on itself (good to a few microseconds).
 */
u64 record_now(struct record *rec);

/* CLOCK_MONOTONIC in ns. */
u64 record_monotonic_ns(void);

#endif
