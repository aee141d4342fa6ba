/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The overhead model: what a recording cost, per CPU, from the prec:overhead samples, perf's own
 * records (SAMPLE, THROTTLE/UNTHROTTLE, LOST, LOST_SAMPLES, STAT, read values), the attrs and the
 * facts section; and the findings: rules that turn those figures into warnings with advice
 * computed from them. It knows nothing of files: report/overhead.c reads one and feeds the model
 * with the overhead_model_add_*() calls, the unit tests feed it built figures.
 *
 * Per CPU the model keeps one figure per (type, source, status) of prec:overhead, summed over
 * the intervals. The CPU's overhead is the sampling cost plus rotation (mux), side-band and the
 * in-kernel aggregation (prec record --aggregate: the BPF program's run time, type aggregate):
 *
 *	sampling = stolen time where it was calibrated on that CPU (it contains the handler time,
 *		   so the two are never added), else the measured handler time (type sample);
 *	overhead = sampling + mux + sideband + aggregate;
 *	overhead % = overhead / the CPU's wall time.
 *
 * The aggregation's run time is added, not taken as part of the stolen time: the calibration
 * measured the interrupt without the program, which runs in it on top.
 *
 * The wall time of a CPU is the facts' cpu.N.wall_ns, else the longest sum of span_ns over the
 * types recorded for that CPU, else (a file without prec:overhead) the time from the first to the
 * last record. The worst CPU is the one with the largest overhead %, the measure
 * of the PERF_RECORD_OVERHEAD patches. The session's costs (cpu -1: recorder, write) are shown
 * beside it, as a share of one CPU.
 *
 * The thresholds below are the documented ones (man/prec-report.1, OVERHEAD). A rule stays
 * silent when the figure it needs is missing; a finding never presents an estimate as measured.
 * The rules (overhead/rules.c) sit above the model: they read its figures and thresholds, and
 * the model neither calls nor includes them.
 */
#ifndef PREC_OVERHEAD_MODEL_H
#define PREC_OVERHEAD_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "format/ondisk.h"
#include "overhead/event.h"
#include "overhead/facts.h"

/* sample-cost: the sampling cost of a CPU as a share of its time (warn, severe). */
#define OM_SAMPLE_COST_WARN_PCT 5.0
#define OM_SAMPLE_COST_SEVERE_PCT 25.0
/* --budget: the share of a CPU the advice aims at. */
#define OM_DEFAULT_BUDGET_PCT 2.0
/* throttle: any THROTTLE warns; throttled this share of a CPU's time or more is severe. */
#define OM_THROTTLE_SEVERE_PCT 10.0
/*
 * lost: anything lost warns; this share of the records the rings were to carry (lost / (kept +
 * lost), samples and side-band alike) is severe.
 */
#define OM_LOST_SEVERE_PCT 5.0
/* multiplex: an event that ran less than 99% of its enabled time warns; under 50% severe. */
#define OM_MUX_WARN_PCT 99.0
#define OM_MUX_SEVERE_PCT 50.0
/* sideband: side-band cost above this share of a CPU (warn, severe). */
#define OM_SIDEBAND_WARN_PCT 1.0
#define OM_SIDEBAND_SEVERE_PCT 5.0
/* recorder-cpu: the recorder's CPU time above this share of one CPU (warn, severe). */
#define OM_RECORDER_WARN_PCT 50.0
#define OM_RECORDER_SEVERE_PCT 90.0
/*
 * short-period: an event with a fixed period taking at least this many samples per second on a
 * CPU, whose interrupts cost at least OM_SAMPLE_COST_WARN_PCT of it (severe at
 * OM_SAMPLE_COST_SEVERE_PCT); without a measured cost per sample, the rate alone warns.
 */
#define OM_SHORT_PERIOD_HZ 10000.0
/*
 * --intervals: an interval whose worst CPU is at least OM_SPIKE_FACTOR times the median interval
 * and at least OM_SPIKE_MIN_PCT is marked as a spike.
 */
#define OM_SPIKE_FACTOR 2.0
#define OM_SPIKE_MIN_PCT 1.0
/* The largest CPU number the model takes; a figure beyond it comes from a damaged file. */
#define OM_MAX_CPU 65535

enum om_severity {
	OM_INFO,
	OM_WARN,
	OM_SEVERE,
};

/* What a CPU's sampling cost is taken from. */
enum om_basis {
	OM_BASIS_NONE,	  /* neither stolen time nor handler time was recorded */
	OM_BASIS_STOLEN,  /* calibrated stolen time (an estimate, handler time included) */
	OM_BASIS_HANDLER, /* measured handler time only */
};

/* One prec:overhead figure of a CPU, summed over the intervals. */
struct om_cost {
	int cpu;		 /* -1: the whole session */
	enum overhead_type kind; /* type, parsed */
	char type[16];
	char source[16];
	u32 status; /* enum overhead_estimated */
	u64 nr, time_ns, span_ns;
	u64 records;	  /* prec:overhead samples summed into it */
	char reason[256]; /* the first non-empty reason seen */
};

struct om_event {
	char name[128];
	struct perf_event_attr attr;
	bool overhead; /* prec:overhead itself: not a workload event */
	u64 samples;
	/* Derived by overhead_model_finish(): the CPU it sampled fastest on (samples / wall). */
	int peak_cpu; /* -1: none (no samples with a CPU, or no CPU wall time) */
	double peak_rate;
	u64 lost;	  /* from LOST records naming it */
	u64 lost_samples; /* from LOST_SAMPLES records */
	u64 throttles;
	/* Counter readings (STAT, or the sample's read times): summed last cumulative values. */
	bool have_times;
	u64 enabled, running;
};

struct om_cpu {
	int cpu;
	u64 samples;		 /* kernel SAMPLE records on this CPU (prec:overhead excluded) */
	u64 span_ns;		 /* longest sum of span_ns over the types recorded for it */
	u64 wall_ns;		 /* facts, else span_ns, else first to last time; 0: unknown */
	const char *wall_source; /* "facts", "spans", "samples" (first to last time) or "none" */
	/* perf's own records */
	u64 throttles, unthrottles, throttled_ns;
	u64 lost;	  /* from LOST records: records the ring buffer dropped */
	u64 lost_samples; /* from LOST_SAMPLES: samples the events counted lost (overlaps lost) */
	/* Derived by overhead_model_finish(). */
	enum om_basis basis;
	u64 basis_nr, basis_ns; /* the samples and ns of the basis */
	/*
	 * Some of the handler time is an estimate: the tracepoint collector dropped records, so
	 * the figure is a lower bound.
	 */
	bool handler_lower_bound;
	u64 handler_nr, handler_ns, stolen_nr, stolen_ns;
	u64 mux_ns, sideband_ns, sideband_nr;
	u64 aggregate_nr, aggregate_ns; /* the aggregation program's runs and run time */
	bool have_aggregate;		/* a figure of type aggregate was recorded */
	u64 overhead_ns;
	double overhead_pct; /* of wall_ns; negative when wall_ns is unknown */
	double sampling_pct, sideband_pct, mux_pct, aggregate_pct;
	char basis_note[320]; /* why handler time is the basis when stolen time is not */
};

/* One interval of the --intervals view: the prec:overhead samples that share a time. */
struct om_interval_cpu {
	int cpu;
	u64 span_ns;
	u64 handler_nr, handler_ns, stolen_nr, stolen_ns, mux_ns, sideband_ns, aggregate_ns;
	u64 throttles, lost;
	bool stolen; /* a stolen-time figure (not unavailable) was recorded: it is the basis */
	double pct;  /* overhead over the interval's span; negative when unknown */
};

struct om_interval {
	u64 time;    /* the samples' time: the interval's end */
	u64 span_ns; /* the longest span among them */
	struct om_interval_cpu *cpus;
	u32 nr_cpus;
	int worst_cpu; /* -1: none */
	double worst_pct;
	u64 throttles, lost, recorder_ns;
	bool spike;
};

struct om_finding {
	const char *id; /* stable: sample-cost, throttle, lost, multiplex, sideband, recorder-cpu,
			 * short-period, rate-capped, duplicate-events */
	enum om_severity severity;
	int cpu;      /* the CPU it is about, -1 for none */
	int event;    /* the attr index it is about, -1 for none */
	double value; /* the figure the threshold was applied to (a %, a rate ...) */
	char message[768];
	char advice[768];
};

/* A pair (id, cpu) waiting for its UNTHROTTLE. */
struct om_throttle_state {
	u64 id;
	int cpu;
	u64 since;
	bool open;
};

struct om_counter {
	u64 id;
	u32 cpu, thread;
	int event;
	u64 enabled, running;
	bool stat; /* from a STAT record: thread is a thread-map index, not a tid */
};

struct overhead_model {
	struct overhead_facts facts;
	bool have_facts;
	char facts_error[256]; /* why the facts section could not be read; "" */

	struct om_cost *costs;
	u32 nr_costs, costs_cap;
	struct om_event *events;
	u32 nr_events;
	struct om_cpu *cpus; /* sorted by CPU number after overhead_model_finish() */
	u32 nr_cpus, cpus_cap;

	bool keep_intervals;
	struct om_interval *intervals;
	u32 nr_intervals, intervals_cap;

	struct om_throttle_state *thr;
	u32 nr_thr, thr_cap;
	struct om_counter *counters;
	u32 nr_counters, counters_cap;

	u64 overhead_records; /* prec:overhead samples added */
	u64 bad_records;      /* prec:overhead samples that did not decode */
	u64 samples;	      /* kernel samples */
	u64 start, end;	      /* first and last time seen (samples, interval starts); 0: none */
	bool have_time;
	/*
	 * LOST counts records the ring buffer dropped; LOST_SAMPLES what an event counted lost
	 * (PERF_FORMAT_LOST, which perf 6.1 writes at the end: its records of every kind that did
	 * not fit, side-band included) or the PMU dropped. A ring buffer overflow shows in both,
	 * so they are never added: the larger is what was lost.
	 */
	u64 lost, lost_samples, lost_records;
	u64 lost_first, lost_last; /* times of the first and last loss */
	u64 throttles, unthrottles, throttled_ns;
	u64 sideband_records[PD_KERNEL_RECORD_MAX]; /* side-band records seen in the data */

	/* Derived by overhead_model_finish(). */
	bool finished;
	int worst;   /* index into cpus of the worst CPU, -1 when no CPU has a known overhead % */
	u64 wall_ns; /* the longest CPU wall time */
};

struct om_params {
	double budget_pct; /* --budget; <= 0: OM_DEFAULT_BUDGET_PCT */
};

/**
 * overhead_model_new - an empty model.
 * @keep_intervals: also build the per-interval view (costs memory per interval and CPU)
 *
 * Return: the model, or NULL without memory.
 */
struct overhead_model *overhead_model_new(bool keep_intervals);

/**
 * overhead_model_free - free the model and everything it holds; NULL is fine.
 */
void overhead_model_free(struct overhead_model *m);

/**
 * overhead_model_set_facts - give the model the file's facts section.
 * @payload: the PD_FEAT_PREC payload, or NULL when the file has none
 *
 * Return: 0; or the decoder's error, with the reason kept in m->facts_error (the model then
 * works without facts).
 */
int overhead_model_set_facts(struct overhead_model *m, const void *payload, size_t len);

/**
 * overhead_model_add_event - declare the file's next attr (call once per attr, in order).
 * @overhead: it is prec:overhead (its samples go to overhead_model_add_record() instead)
 *
 * Return: its index, or -ENOMEM.
 */
int overhead_model_add_event(struct overhead_model *m, const struct perf_event_attr *attr,
			     const char *name, bool overhead);

/**
 * overhead_model_add_record - add one prec:overhead sample taken at time (the sample's time).
 *
 * Return: 0, -EINVAL for a figure the model does not believe (a CPU out of range), or -ENOMEM.
 */
int overhead_model_add_record(struct overhead_model *m, const struct overhead_record *r, u64 time);

/**
 * overhead_model_add_sample - count a kernel sample of event ev (-1: unknown) on cpu (-1: not
 * recorded) at time (0: not recorded).
 */
void overhead_model_add_sample(struct overhead_model *m, int ev, int cpu, u64 time);

/**
 * overhead_model_add_lost - a LOST record (samples false: lost events) or a LOST_SAMPLES record
 * (samples true) of event ev (-1 unknown) on cpu (-1 unknown) at time (0 unknown).
 */
void overhead_model_add_lost(struct overhead_model *m, int ev, int cpu, u64 lost, u64 time,
			     bool samples);

/**
 * overhead_model_add_throttle - a THROTTLE (unthrottle false) or UNTHROTTLE record for the
 * sample id on cpu at time; the time between the two is counted as throttled.
 */
void overhead_model_add_throttle(struct overhead_model *m, int ev, u64 id, int cpu, u64 time,
				 bool unthrottle);

/**
 * overhead_model_add_counter - a cumulative counter reading (STAT, or a sample's read values):
 * the last one per (id, cpu, thread) counts.
 */
void overhead_model_add_counter(struct overhead_model *m, int ev, u64 id, u32 cpu, u32 thread,
				u64 enabled, u64 running);

/**
 * overhead_model_add_stat - a PERF_RECORD_STAT reading (thread: the thread-map index). An event
 * with STAT readings is judged by them alone: its samples' read values are the same counter
 * keyed by tid, and would count it twice.
 */
void overhead_model_add_stat(struct overhead_model *m, int ev, u64 id, u32 cpu, u32 thread,
			     u64 enabled, u64 running);

/**
 * overhead_model_add_sideband - count a side-band record of PERF_RECORD_* type seen in the data.
 */
void overhead_model_add_sideband(struct overhead_model *m, u32 type);

/**
 * overhead_model_finish - derive the per-CPU figures, the worst CPU and the intervals.
 *
 * Return: 0, or -ENOMEM.
 */
int overhead_model_finish(struct overhead_model *m);

/**
 * overhead_model_cpu - the CPU entry of a CPU number, or NULL (in constant time).
 */
const struct om_cpu *overhead_model_cpu(const struct overhead_model *m, int cpu);

/**
 * overhead_model_cost - the first figure of (cpu, type), or NULL.
 */
const struct om_cost *overhead_model_cost(const struct overhead_model *m, int cpu,
					  const char *type);

/**
 * om_event_cpu_samples - the samples of event ev on cpu.
 *
 * Return: their number; 0 for an event or CPU the model has no samples of.
 */
u64 om_event_cpu_samples(const struct overhead_model *m, u32 ev, int cpu);

/**
 * overhead_model_basis_name - "stolen", "handler" or "none".
 */
const char *overhead_model_basis_name(enum om_basis b);

/**
 * overhead_severity_name - "info", "warn" or "severe".
 */
const char *overhead_severity_name(enum om_severity s);

/**
 * overhead_model_judge - apply every rule (after overhead_model_finish()); it lives with the
 * rules, in overhead/rules.c, and is declared here so that the model's callers need one header.
 * @out: set to the findings, most severe first (free() it)
 *
 * Return: the number of findings, or -ENOMEM.
 */
int overhead_model_judge(const struct overhead_model *m, const struct om_params *p,
			 struct om_finding **out);

/**
 * overhead_rate_for_budget - the sampling rate per CPU that costs budget_pct of a CPU at
 * cost_ns per sample: budget / 100 * 1e9 / cost_ns, rounded down.
 *
 * Return: the rate in Hz, or 0 when cost_ns is not positive.
 */
u64 overhead_rate_for_budget(double cost_ns, double budget_pct);

/**
 * overhead_format_ns - a duration for people: "812 ns", "13.6 us", "1.25 ms", "10.003 s".
 *
 * Return: buf.
 */
char *overhead_format_ns(char *buf, size_t len, double ns);

#endif
