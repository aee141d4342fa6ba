#!/bin/bash
# What the overhead collector itself costs the program being profiled: the slowdown of a
# CPU-bound loop, per sample, caused by turning collection on at the same sampling rate, for the
# bpf collector and the tracepoint fallback.
#
#   bench/overhead-collector.sh [-b BUILD_DIR] [-r "RATES"] [-s "SOURCES"] [-n TRIPLES]
#                               [-w WORK_MS] [-c CPU]
#   defaults: -b build -r "4000 20000" -s "bpf tracepoint" -n 201 -w 20 -c <last CPU>
#
# A small driver, built here against BUILD_DIR/libprec.a, pins itself to one CPU, SCHED_FIFO so
# that other tasks do not preempt it, and runs a fixed amount of work (WORK_MS) in triples of
# runs, in rotating order: bare (no sampling), sampled (cpu-clock at the rate, on itself), and
# sampled with the collector started. Runs are timed in thread CPU time (see the driver), short
# and many, because a busy host changes the machine's speed from one second to the next. Per
# triple:
#   sampling cost per sample  = (sampled - bare) / samples
#   collector cost per sample = (collected - sampled) / samples
# The medians over the triples, with the quartiles, are printed beside what prec's calibrations
# estimate for the same things on the same CPU (overhead_calibrate_stolen, _collector). Run as
# root; about 75 s with the defaults.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
rates="4000 20000"
sources="bpf tracepoint"
triples=201
work_ms=20
cpu=
while getopts "b:r:s:n:w:c:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	r) rates=$OPTARG ;;
	s) sources=$OPTARG ;;
	n) triples=$OPTARG ;;
	w) work_ms=$OPTARG ;;
	c) cpu=$OPTARG ;;
	*) sed -n '2,20p' "$0"; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "overhead-collector: run as root" >&2; exit 1; }
if [ ! -f "$build/libprec.a" ]; then
	echo "overhead-collector: no $build/libprec.a; build first" >&2
	exit 1
fi
[ -n "$cpu" ] || cpu=$(($(nproc) - 1))

tmp=$(mktemp -d /tmp/prec-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/drv.c" <<'EOF'
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "overhead/calibrate.h"
#include "overhead/collect-internal.h"

/*
 * The work is timed in thread CPU time: with paravirt steal accounting, time the host ran
 * something else is left out (it is noise here, and large on a shared host), while interrupt
 * time is charged to the thread it interrupted (no IRQ_TIME_ACCOUNTING), as is what the
 * hypervisor adds to each interrupt.
 */
static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static volatile unsigned long sink;

static void work(unsigned long n)
{
	unsigned long i, s = 1;

	for (i = 0; i < n; i++)
		s = s * 6364136223846793005UL + (s >> 7) + i;
	sink = s;
}

static void count(void *arg, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE)
		(*(unsigned long long *)arg)++;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void quart(double *v, int n, double q[3])
{
	qsort(v, n, sizeof(*v), cmpd);
	q[0] = v[n / 4];
	q[1] = n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	q[2] = v[(3 * n) / 4];
}

int main(int argc, char **argv)
{
	enum overhead_source src;
	int rate = atoi(argv[2]), triples = atoi(argv[3]), work_ms = atoi(argv[4]);
	int cpu = atoi(argv[5]), i, k, nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct overhead_collector *c;
	struct perf_event_attr a;
	struct perf_ring ring;
	struct overhead_calib st, cc;
	double *samp, *coll, qs[3], qc[3];
	unsigned long n;
	unsigned long long t0, bare_ns = 0;
	int *cpus, fd, err;
	char why[256] = "";
	cpu_set_t set;

	if (overhead_source_parse(argv[1], &src))
		return 2;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return perror("sched_setaffinity"), 1;
	/*
	 * Real-time, so that the other tasks of a busy machine do not preempt the work and turn
	 * its wall time into noise; runs are spaced so as to stay clear of RT throttling.
	 */
	{
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("SCHED_FIFO (the figures will be noisier)");
	}
	cpus = calloc(nr_cpus, sizeof(*cpus));
	for (i = 0; i < nr_cpus; i++)
		cpus[i] = i;

	/* The work that takes work_ms unprofiled. */
	t0 = now_ns();
	work(10000000);
	n = 10000000.0 * work_ms * 1e6 / (now_ns() - t0);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = rate;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	fd = perf_event_open_fd(&a, 0, -1, -1);
	if (fd < 0 || perf_ring_mmap(&ring, fd, 512))
		return fprintf(stderr, "cannot sample: %s\n", strerror(-fd)), 1;
	err = overhead_collector_open(&c, cpus, nr_cpus, src);
	if (err)
		return fprintf(stderr, "%s: %s\n", argv[1], overhead_collector_reason(c)), 1;

	samp = calloc(triples, sizeof(*samp));
	coll = calloc(triples, sizeof(*coll));
	for (i = 0; i < triples; i++) {
		unsigned long long t[3], s[3] = { 0, 0, 0 };

		for (k = 0; k < 3; k++) {
			int kind = (k + i) % 3; /* 0 bare, 1 sampled, 2 sampled and collected */
			unsigned long long x = 0;

			perf_ring_drain(&ring, count, &x);
			if (kind == 2)
				overhead_collector_start(c);
			if (kind)
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			t0 = now_ns();
			work(n);
			t[kind] = now_ns() - t0;
			if (kind)
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			if (kind == 2)
				overhead_collector_stop(c);
			perf_ring_drain(&ring, count, &s[kind]);
			usleep(work_ms * 1000 / 4);
		}
		samp[i] = ((double)t[1] - t[0]) / s[1];
		coll[i] = ((double)t[2] - t[1]) / s[2];
		bare_ns += t[0];
	}
	overhead_collector_close(c);
	close(fd);
	quart(samp, triples, qs);
	quart(coll, triples, qc);

	/* What prec's calibrations say about the same, on the same CPU, out of real time. */
	{
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
		sleep(1);
	}
	a.sample_freq = rate;
	if (overhead_calibrate_stolen(&cpu, 1, &a, NULL, &st) != 1)
		st.ns = -1;
	if (overhead_calibrate_collector(&cpu, 1, src, &a, NULL, &cc, why, sizeof(why)) != 1)
		cc.ns = -1;
	printf("%-10s %6d %4d %7.0f   %6.2f [%5.2f %5.2f] %6.2f   %6.3f [%6.3f %6.3f] %6.3f\n",
	       argv[1], rate, triples, bare_ns / 1e6 / triples, qs[1] / 1000, qs[0] / 1000,
	       qs[2] / 1000, st.ns / 1000, qc[1] / 1000, qc[0] / 1000, qc[2] / 1000,
	       cc.ns / 1000);
	if (st.reason[0])
		printf("#   stolen-time calibration: %s\n", st.reason);
	if (cc.reason[0] || why[0])
		printf("#   collector calibration: %s%s\n", cc.reason, why);
	return 0;
}
EOF

libs="$(pkg-config --libs libtracefs libtraceevent libelf libzstd) -lpthread -lm"
grep -q '^#define HAVE_BPF 1' "$build/config.h" && libs="$libs $(pkg-config --libs libbpf)"
# shellcheck disable=SC2086
gcc -O2 -I"$build" -I"$src" -o "$tmp/drv" "$tmp/drv.c" "$build/libprec.a" $libs

echo "# CPU $cpu; $triples triples of ${work_ms} ms runs; us per sample: median [quartiles]"
echo "# source      rate    n  bare_ms   sampling cost (bench)  calib" \
	" collector cost (bench)     calib"
for rate in $rates; do
	for s in $sources; do
		"$tmp/drv" "$s" "$rate" "$triples" "$work_ms" "$cpu" || true
	done
done
