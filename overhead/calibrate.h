/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calibrations, run before the workload starts, for the costs that no tracepoint shows.
 *
 * Stolen time: the handler is not the whole price of a sample. Interrupt entry and exit, the
 * rest of the timer interrupt and, in a virtual machine, the hypervisor take far longer (here
 * about 13.6 us per cpu-clock sample against about 1 us of handler). On each CPU a probe thread,
 * pinned there (SCHED_FIFO when allowed, so that other tasks do not preempt it), spins on the vDSO
 * clock and adds up the gaps in its timeline that are far longer than one turn of its loop, in
 * short windows alternately without and with a sampling event like the recording's on itself.
 * The extra time lost with sampling, divided by the samples the event took in that window (the
 * probe counts them in its ring buffer), is the time stolen per sample. Several pairs of windows
 * give a median and a spread. All CPUs are probed at once, so the calibration takes the same
 * time on 2 CPUs as on 200: about runs x 2 x window (0.35 s at 4 kHz).
 *
 * Collector cost: the same probe with the sampling event on in both windows and the overhead
 * collector started in one of them. Nearly every gap is then a sample, so the shift of the median
 * gap is what the collector adds to every sample (ticks and device interrupts, rarer, do not move
 * it), and so bounds how much it inflates the handler times it measures. That cost does not
 * depend on the rate, so the probe samples at 20 kHz at least (within the kernel's limit), in 15
 * pairs of 10 ms windows by default: 0.3 s.
 *
 * Side-band: the cost of one side-band record, from a loop of mmap/munmap (MMAP2 records) and
 * one of prctl(PR_SET_NAME) (COMM records), timed with and without an event that receives them,
 * divided by the records that arrived.
 *
 * Every figure here is an estimate and is recorded as one. The stolen time contains the handler
 * time (the handler runs inside the gap): the two are two views of one cost, not two costs to
 * add. Nothing prints.
 *
 * Run the calibrations before overhead_collector_start(): a running collector would count the
 * probes' samples.
 */
#ifndef PREC_OVERHEAD_CALIBRATE_H
#define PREC_OVERHEAD_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "format/ondisk.h"
#include "overhead/collect.h"

#define OVERHEAD_CALIB_MAX_RUNS 31

struct overhead_calib_opts {
	u64 window_ns; /* one probe window; 0: enough for about 100 samples, 10 to 50 ms */
	int runs;      /* pairs of windows; 0: 7; at most OVERHEAD_CALIB_MAX_RUNS */
	bool no_fifo;  /* do not ask for SCHED_FIFO (the figures get noisier) */
};

/* One calibrated figure: per CPU for stolen time and collector cost, per kind for side-band. */
struct overhead_calib {
	int cpu;
	int err;              /* 0, or a negative errno: nothing was measured, reason says why */
	char reason[160];     /* also notes that weaken a figure (no SCHED_FIFO) when err is 0 */
	double ns;            /* the median over the kept runs: ns per sample or per record */
	double min_ns, max_ns; /* the spread of the kept runs */
	int runs;             /* runs kept */
	int rejected;         /* runs not kept: disturbed (preempted), or nothing sampled; when
			       * every run was disturbed, their median is used and reason says so */
	u64 units;            /* samples (records) counted in the kept runs */
	double loop_ns;       /* the probe loop's period (stolen, collector) */
	u64 gap_ns;           /* the gap threshold derived from it */
	double handler_ns;    /* collector cost only: the handler ns per sample it measured */
	u64 elapsed_ns;       /* how long this calibration took */
};

/**
 * overhead_calibrate_stolen - the time one sample steals from a program, per CPU.
 * @cpus: the CPUs to calibrate, nr_cpus of them; they are probed at the same time
 * @attr: the recording's sampling event (type, config, period or frequency, sample_type,
 *        callchain); side-band bits, inheritance, enable_on_exec and exclude_user are ignored
 *        (the probe spins in user space and must be sampled there)
 * @opts: NULL for the defaults
 * @out: nr_cpus results
 *
 * Return: the number of CPUs calibrated (out[i].err is 0 for them), or a negative errno when
 * nothing could be tried (-EINVAL, -ENOMEM).
 */
int overhead_calibrate_stolen(const int *cpus, int nr_cpus, const struct perf_event_attr *attr,
			      const struct overhead_calib_opts *opts, struct overhead_calib *out);

/**
 * overhead_calibrate_collector - the time the overhead collector adds to each sample, per CPU.
 * @source: bpf or tracepoint: the collector to measure (opened here, for these CPUs)
 * @why: one line when the collector cannot be opened (len bytes)
 *
 * out[i].ns is the cost the collector adds per sample; out[i].handler_ns the handler time per
 * sample it measured meanwhile. For the tracepoint source, the handler time is inflated by the
 * part of the two records written between its two timestamps: about half of out[i].ns.
 *
 * Return: the number of CPUs calibrated, or a negative errno (the collector could not be opened:
 * why says why; -EINVAL; -ENOMEM).
 */
int overhead_calibrate_collector(const int *cpus, int nr_cpus, enum overhead_source source,
				 const struct perf_event_attr *attr,
				 const struct overhead_calib_opts *opts, struct overhead_calib *out,
				 char *why, size_t len);

enum overhead_sideband_kind {
	OVERHEAD_SIDEBAND_MMAP, /* MMAP/MMAP2 records, from mmap(PROT_EXEC) */
	OVERHEAD_SIDEBAND_COMM, /* COMM records, from prctl(PR_SET_NAME) */
	OVERHEAD_SIDEBAND_NR,
};

/**
 * overhead_calibrate_sideband - the cost of one side-band record, per kind.
 * @cpu: the CPU to run on (-1: any)
 * @attr: the recording's tracking event, for its sample_type and sample_id_all (the record size);
 *        NULL for a plain dummy event
 * @out: OVERHEAD_SIDEBAND_NR results; cpu is the CPU it ran on
 *
 * Return: the number of kinds calibrated, or a negative errno.
 */
int overhead_calibrate_sideband(int cpu, const struct perf_event_attr *attr,
				const struct overhead_calib_opts *opts, struct overhead_calib *out);

/**
 * overhead_sideband_ns - the calibrated cost of one side-band record of a PERF_RECORD_* type:
 * the mmap figure for MMAP and MMAP2, the comm figure for COMM, their mean for the other kinds
 * (FORK, EXIT, SWITCH, NAMESPACES, CGROUP, KSYMBOL, BPF_EVENT, TEXT_POKE go through the same
 * delivery path). An estimate.
 *
 * Return: ns per record, or a negative value when nothing was calibrated.
 */
double overhead_sideband_ns(const struct overhead_calib *sb, u32 record_type);

/**
 * overhead_calib_rate - the samples per second an event takes on a busy CPU: its frequency, or
 * 1e9 / period for cpu-clock and task-clock.
 *
 * Return: the rate, or 0 when it cannot be known from the attr alone.
 */
double overhead_calib_rate(const struct perf_event_attr *attr);

#endif
