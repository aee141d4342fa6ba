// SPDX-License-Identifier: GPL-2.0
/*
 * The calibrations of overhead/calibrate.h. The stolen-time and collector-cost probes share one
 * engine: one probe thread per CPU, all in lock step with the calling thread, which in every run
 * of two windows (a baseline and a treatment, in alternating order) switches what must be
 * switched between the windows (the collector), while each probe spins on its CPU and turns its
 * own sampling event on and off.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "overhead/calibrate.h"
#include "overhead/collect-internal.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/perf-event.h"
#include "util/ring-buffer.h"

#define DEFAULT_RUNS 7
#define TARGET_SAMPLES 100
#define WINDOW_MIN_NS 10000000ULL
#define WINDOW_MAX_NS 50000000ULL
#define WINDOW_DEFAULT_NS 25000000ULL
/*
 * A gap counts as lost time when it is this many loop turns long, and at least GAP_MIN_NS: an
 * interrupt takes microseconds, a cache miss a fraction of one.
 */
#define GAP_TURNS 20
#define GAP_MIN_NS 500
/*
 * A gap longer than this is not an interrupt profiling causes (the probe was preempted, or its
 * virtual CPU was not running): the run is thrown away.
 */
#define GAP_MAX_NS 1000000ULL
#define PROBE_RING_PAGES 64
/* Runs tried at most: twice those asked for, and two more. */
#define MAX_RUNS_TRIED (2 * OVERHEAD_CALIB_MAX_RUNS + 2)
#define LOOP_TURNS 4096
/* The collector calibration: its rate (at least), window and runs. */
#define COLLECTOR_RATE 20000
#define COLLECTOR_WINDOW_NS 10000000ULL
#define COLLECTOR_RUNS 15
/* Side-band loops: turns per window. */
#define SB_TURNS 1000

/*
 * The caller's attr, zero-extended to ours when it comes from an older ABI (attr->size smaller),
 * with size set to ours; NULL gives all zeros.
 */
static void copy_attr(struct perf_event_attr *dst, const struct perf_event_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src)
		memcpy(dst, src, src->size && src->size < sizeof(*dst) ? src->size : sizeof(*dst));
	dst->size = sizeof(*dst);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double overhead_calib_rate(const struct perf_event_attr *attr)
{
	if (attr->freq)
		return attr->sample_freq;
	if (attr->sample_period && perf_attr_is_hrtimer(attr))
		return 1e9 / attr->sample_period;
	return 0;
}

static void fill_defaults(const struct perf_event_attr *attr, const struct overhead_calib_opts *in,
			  u64 *window, int *runs)
{
	double rate = attr ? overhead_calib_rate(attr) : 0;

	*window = in ? in->window_ns : 0;
	*runs = in && in->runs > 0 ? in->runs : DEFAULT_RUNS;
	if (*runs > OVERHEAD_CALIB_MAX_RUNS)
		*runs = OVERHEAD_CALIB_MAX_RUNS;
	if (!*window) {
		*window = rate > 0 ? (u64)(TARGET_SAMPLES * 1e9 / rate) : WINDOW_DEFAULT_NS;
		if (*window < WINDOW_MIN_NS)
			*window = WINDOW_MIN_NS;
		if (*window > WINDOW_MAX_NS)
			*window = WINDOW_MAX_NS;
	}
}

static void set_median(struct overhead_calib *o, double *v, int n)
{
	o->runs = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	o->ns = n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	o->min_ns = v[0];
	o->max_ns = v[n - 1];
}

/* ---- a barrier whose count can drop when a thread could not be started */

struct barrier {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int count, waiting;
	unsigned long gen;
};

static void barrier_init(struct barrier *b, int count)
{
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->count = count;
	b->waiting = 0;
	b->gen = 0;
}

static void barrier_release(struct barrier *b)
{
	b->waiting = 0;
	b->gen++;
	pthread_cond_broadcast(&b->cond);
}

static void barrier_wait(struct barrier *b)
{
	unsigned long gen;

	pthread_mutex_lock(&b->lock);
	gen = b->gen;
	if (++b->waiting >= b->count)
		barrier_release(b);
	else
		while (gen == b->gen)
			pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

static void barrier_drop(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	b->count--;
	if (b->waiting && b->waiting >= b->count)
		barrier_release(b);
	pthread_mutex_unlock(&b->lock);
}

static void barrier_destroy(struct barrier *b)
{
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
}

/* ---- threads pinned to a CPU, real-time when allowed */

static int start_pinned(pthread_t *t, int cpu, bool fifo, void *(*fn)(void *), void *arg,
			bool *got_fifo)
{
	pthread_attr_t pa;
	cpu_set_t set;
	int err;

	pthread_attr_init(&pa);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&pa, sizeof(set), &set);
	}
	if (fifo) {
		struct sched_param sp = { .sched_priority = 1 };

		pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&pa, SCHED_FIFO);
		pthread_attr_setschedparam(&pa, &sp);
	}
	/* Before the thread starts: it may read *got_fifo at once. */
	*got_fifo = fifo;
	err = pthread_create(t, &pa, fn, arg);
	pthread_attr_destroy(&pa);
	if (err)
		*got_fifo = false; /* no thread reads it */
	if (err == EPERM && fifo)
		return start_pinned(t, cpu, false, fn, arg, got_fifo);
	return -err;
}

/* ---- the probe */

struct window {
	u64 dur;     /* the window's length, less the gaps too long to count */
	double lost; /* time lost in counted gaps, beyond one loop turn each */
	double median_gap; /* the median counted gap */
	u64 samples; /* samples the event took (0 when it was off) */
	bool spoilt; /* preempted, or a gap too long to be an interrupt */
};

/* Gaps kept per window for their median: enough for 50 kHz over 50 ms, with room to spare. */
#define MAX_GAPS 8192

/* The loop period: the mean of the turns that were not interrupted. */
static double loop_period(void)
{
	static __thread u64 d[LOOP_TURNS];
	u64 prev = mono_ns(), t, sum = 0, med;
	int i, n = 0;

	for (i = 0; i < LOOP_TURNS; i++) {
		t = mono_ns();
		d[i] = t - prev;
		prev = t;
	}
	qsort(d, LOOP_TURNS, sizeof(d[0]), cmp_u64);
	med = d[LOOP_TURNS / 2];
	for (i = 0; i < LOOP_TURNS; i++) {
		if (d[i] <= 4 * med + 1) {
			sum += d[i];
			n++;
		}
	}
	return n ? (double)sum / n : 1;
}

static void spin(u64 window, u64 gap, double period, struct window *w, u32 *gaps)
{
	struct rusage r0, r1;
	u64 start, prev, end, t, d, excluded = 0;
	double lost = 0;
	int n = 0;

	getrusage(RUSAGE_THREAD, &r0);
	start = prev = mono_ns();
	end = start + window;
	do {
		t = mono_ns();
		d = t - prev;
		if (d > gap) {
			if (d > GAP_MAX_NS) {
				excluded += d;
			} else {
				lost += d - period;
				if (n < MAX_GAPS)
					gaps[n++] = d;
			}
		}
		prev = t;
	} while (t < end);
	getrusage(RUSAGE_THREAD, &r1);
	w->dur = t - start - excluded;
	w->lost = lost;
	w->spoilt = excluded || r1.ru_nivcsw != r0.ru_nivcsw || r1.ru_nvcsw != r0.ru_nvcsw;
	w->median_gap = 0;
	if (n) {
		qsort(gaps, n, sizeof(*gaps), cmp_u32);
		w->median_gap = n & 1 ? gaps[n / 2] : (gaps[n / 2 - 1] + gaps[n / 2]) / 2.0;
	}
}

static void count_sample(void *arg, const struct perf_event_header *h)
{
	u64 *n = arg, v;

	if (h->type == PERF_RECORD_SAMPLE) {
		(*n)++;
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		memcpy(&v, (const u8 *)(h + 1) + 8, 8);
		*n += v;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= sizeof(*h) + 8) {
		memcpy(&v, h + 1, 8);
		*n += v;
	}
}

/* The event a probe samples itself with: the recording's, on this thread only, no side-band. */
static void probe_attr(const struct perf_event_attr *in, struct perf_event_attr *a)
{
	copy_attr(a, in);
	a->disabled = 1;
	a->inherit = 0;
	a->inherit_stat = 0;
	a->inherit_thread = 0;
	a->enable_on_exec = 0;
	a->remove_on_exec = 0;
	a->sigtrap = 0;
	a->mmap = a->mmap2 = a->mmap_data = a->comm = a->comm_exec = a->task = 0;
	a->context_switch = a->namespaces = a->cgroup = a->ksymbol = a->bpf_event = 0;
	a->text_poke = a->build_id = 0;
	a->aux_output = 0;
	a->pinned = a->exclusive = 0;
	/*
	 * The probe spins in user space. With the user excluded (cycles:k), the interrupts would
	 * still come but write no sample to count them by; a user sample costs about the same.
	 */
	a->exclude_user = 0;
	/* Group reads need a group. */
	a->read_format &= ~(u64)PERF_FORMAT_GROUP;
	if (in->read_format & PERF_FORMAT_GROUP)
		a->sample_type &= ~(u64)PERF_SAMPLE_READ;
}

enum calib_mode {
	MODE_STOLEN,    /* baseline: nothing; treatment: sampling */
	MODE_COLLECTOR, /* baseline: sampling; treatment: sampling and the collector */
};

struct calib_ctx;

struct probe {
	struct calib_ctx *ctx;
	struct overhead_calib *out;
	int cpu;
	bool fifo;
	int fd;
	struct ring_buffer ring;
	double period;
	u64 gap;
	struct window win[2]; /* of the current run: baseline, treatment */
	u32 gaps[MAX_GAPS];
	double vals[MAX_RUNS_TRIED];
	int nvals;
	/* Runs that were disturbed: used only when no run was clean. */
	double spoilt[MAX_RUNS_TRIED];
	int nspoilt;
	u64 spoilt_units;
	u64 handler_nr, handler_ns; /* collector mode: measured by the collector */
	u64 t0;
};

struct calib_ctx {
	enum calib_mode mode;
	struct barrier bar;
	struct perf_event_attr attr;
	u64 window;
	int runs;
	volatile int side; /* the window to run next: 0 baseline, 1 treatment */
	volatile bool done;
};

static int probe_setup(struct probe *p)
{
	struct perf_event_attr a;
	int err;

	p->fd = -1;
	probe_attr(&p->ctx->attr, &a);
	err = perf_event_open_fd(&a, (pid_t)syscall(SYS_gettid), p->cpu, -1);
	if (err < 0) {
		snprintf(p->out->reason, sizeof(p->out->reason),
			 "cannot open the sampling event on CPU %d: %s", p->cpu, strerror(-err));
		return err;
	}
	p->fd = err;
	err = ring_buffer_mmap(&p->ring, p->fd, -1, PROBE_RING_PAGES);
	if (err) {
		snprintf(p->out->reason, sizeof(p->out->reason),
			 "cannot map a ring buffer on CPU %d: %s", p->cpu, strerror(-err));
		return err;
	}
	p->period = loop_period();
	p->gap = GAP_TURNS * p->period;
	if (p->gap < GAP_MIN_NS)
		p->gap = GAP_MIN_NS;
	p->out->loop_ns = p->period;
	p->out->gap_ns = p->gap;
	return 0;
}

static void probe_window(struct probe *p, int side)
{
	struct calib_ctx *ctx = p->ctx;
	bool sample = ctx->mode == MODE_COLLECTOR || side == 1;
	struct window *w = &p->win[side];
	u64 n = 0;

	ring_buffer_read(&p->ring, count_sample, &n);
	if (sample)
		ioctl(p->fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(ctx->window, p->gap, p->period, w, p->gaps);
	if (sample)
		ioctl(p->fd, PERF_EVENT_IOC_DISABLE, 0);
	n = 0;
	ring_buffer_read(&p->ring, count_sample, &n);
	w->samples = n;
}

/* After both windows of a run: keep its figure or throw it away. */
static void probe_run_done(struct probe *p)
{
	struct window *b = &p->win[0], *t = &p->win[1];
	bool spoilt = b->spoilt || t->spoilt;
	double extra;

	if (spoilt || !t->samples)
		p->out->rejected++;
	if (!t->samples || !b->dur || !t->dur || (spoilt && p->nspoilt == MAX_RUNS_TRIED))
		return;
	if (p->ctx->mode == MODE_COLLECTOR) {
		/*
		 * Both windows sample, so most gaps are samples: what the collector adds to each
		 * moves their median, which the rarer ticks and device interrupts do not.
		 */
		if (!b->median_gap || !t->median_gap)
			return;
		extra = t->median_gap - b->median_gap;
	} else {
		/* The baseline's rate of loss over the treatment's length is not profiling's. */
		extra = (t->lost - b->lost * ((double)t->dur / b->dur)) / t->samples;
	}
	if (spoilt) {
		p->spoilt[p->nspoilt++] = extra;
		p->spoilt_units += t->samples;
		return;
	}
	p->vals[p->nvals++] = extra;
	p->out->units += t->samples;
}

static void *probe_thread(void *arg)
{
	struct probe *p = arg;
	struct calib_ctx *ctx = p->ctx;
	int err;

	p->t0 = mono_ns();
	err = probe_setup(p);
	p->out->err = err;
	for (;;) {
		int side;

		barrier_wait(&ctx->bar);
		if (ctx->done)
			break;
		side = ctx->side;
		if (!err)
			probe_window(p, side);
		barrier_wait(&ctx->bar);
	}
	p->out->elapsed_ns = mono_ns() - p->t0;
	return NULL;
}

/* Enough runs kept on every CPU that can run? */
static bool all_done(struct probe *p, int n, int runs)
{
	for (int i = 0; i < n; i++)
		if (!p[i].out->err && p[i].nvals < runs)
			return false;
	return true;
}

static void collector_deltas(struct overhead_collector *c, struct overhead_cpu_stats *before,
			     struct overhead_cpu_stats *after, struct probe *p, int n)
{
	if (overhead_collector_read(c, after))
		return;
	for (int i = 0; i < n; i++) {
		const struct overhead_handler_stats *a = after[i].h, *b = before[i].h;

		p[i].handler_nr += a[OVERHEAD_HANDLER_SWEVENT].nr - b[OVERHEAD_HANDLER_SWEVENT].nr +
				   a[OVERHEAD_HANDLER_NMI].nr - b[OVERHEAD_HANDLER_NMI].nr;
		p[i].handler_ns += a[OVERHEAD_HANDLER_SWEVENT].ns - b[OVERHEAD_HANDLER_SWEVENT].ns +
				   a[OVERHEAD_HANDLER_NMI].ns - b[OVERHEAD_HANDLER_NMI].ns;
	}
}

static int run_probes(enum calib_mode mode, const int *cpus, int nr,
		      const struct perf_event_attr *attr, const struct overhead_calib_opts *opts,
		      struct overhead_calib *out, struct overhead_collector *coll)
{
	struct overhead_cpu_stats *before = NULL, *after = NULL;
	struct calib_ctx ctx;
	struct probe *p;
	pthread_t *th;
	bool *started;
	int i, run, attempts, good = 0;

	if (nr <= 0 || !cpus || !attr || !out)
		return -EINVAL;
	memset(&ctx, 0, sizeof(ctx));
	ctx.mode = mode;
	copy_attr(&ctx.attr, attr);
	fill_defaults(attr, opts, &ctx.window, &ctx.runs);
	p = calloc(nr, sizeof(*p));
	th = calloc(nr, sizeof(*th));
	started = calloc(nr, sizeof(*started));
	if (coll) {
		before = calloc(nr, sizeof(*before));
		after = calloc(nr, sizeof(*after));
	}
	if (!p || !th || !started || (coll && (!before || !after))) {
		free(p);
		free(th);
		free(started);
		free(before);
		free(after);
		return -ENOMEM;
	}
	barrier_init(&ctx.bar, nr + 1);
	for (i = 0; i < nr; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].cpu = cpus[i];
		p[i].ctx = &ctx;
		p[i].out = &out[i];
		p[i].cpu = cpus[i];
		p[i].fd = -1;
	}
	for (i = 0; i < nr; i++) {
		int err = start_pinned(&th[i], cpus[i], !(opts && opts->no_fifo), probe_thread,
				       &p[i], &p[i].fifo);

		if (err) {
			out[i].err = err;
			snprintf(out[i].reason, sizeof(out[i].reason),
				 "cannot start a probe thread on CPU %d: %s", cpus[i],
				 strerror(-err));
			barrier_drop(&ctx.bar);
		} else {
			started[i] = true;
		}
	}

	/*
	 * Runs of two windows in alternating order, so that a drift favours neither; more runs
	 * than asked when some were thrown away, up to twice as many.
	 */
	attempts = 2 * ctx.runs + 2;
	for (run = 0; run < attempts; run++) {
		for (int k = 0; k < 2; k++) {
			int side = (run & 1) ? 1 - k : k;

			if (coll) {
				if (side == 1)
					overhead_collector_start(coll);
				else
					overhead_collector_stop(coll);
				if (side == 1)
					overhead_collector_read(coll, before);
			}
			ctx.side = side;
			/*
			 * A pause, while the probes wait, keeps their real-time share under the
			 * kernel's limit (95%), or it would stop them mid-window.
			 */
			usleep(ctx.window / 10000);
			barrier_wait(&ctx.bar); /* go */
			barrier_wait(&ctx.bar); /* the window is over */
			if (coll && side == 1)
				collector_deltas(coll, before, after, p, nr);
		}
		for (i = 0; i < nr; i++)
			if (started[i] && !out[i].err && p[i].nvals < ctx.runs)
				probe_run_done(&p[i]);
		if (all_done(p, nr, ctx.runs))
			break;
	}
	if (coll)
		overhead_collector_stop(coll);
	ctx.done = true;
	barrier_wait(&ctx.bar);

	for (i = 0; i < nr; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		ring_buffer_unmap(&p[i].ring);
		if (p[i].fd >= 0)
			close(p[i].fd);
		if (out[i].err)
			continue;
		if (p[i].handler_nr)
			out[i].handler_ns = (double)p[i].handler_ns / p[i].handler_nr;
		if (p[i].nvals) {
			set_median(&out[i], p[i].vals, p[i].nvals);
			if (!p[i].fifo)
				snprintf(out[i].reason, sizeof(out[i].reason),
					 "the probe on CPU %d could not run SCHED_FIFO: noisier",
					 cpus[i]);
		} else if (p[i].nspoilt && !p[i].fifo) {
			/*
			 * Without SCHED_FIFO other tasks preempt the probe, and that is all the
			 * disturbance is: better a noisy figure, said to be noisy, than none. A
			 * real-time probe that was disturbed every time saw something else.
			 */
			set_median(&out[i], p[i].spoilt, p[i].nspoilt);
			out[i].units = p[i].spoilt_units;
			snprintf(out[i].reason, sizeof(out[i].reason),
				 "every run on CPU %d was disturbed (the probe was preempted or "
				 "descheduled): noisy", cpus[i]);
		} else {
			out[i].err = -EAGAIN;
			if (p[i].nspoilt)
				snprintf(out[i].reason, sizeof(out[i].reason),
					 "every run on CPU %d was disturbed (%d runs): the CPU is "
					 "too busy to calibrate", cpus[i], out[i].rejected);
			else
				snprintf(out[i].reason, sizeof(out[i].reason),
					 "no run on CPU %d took a sample (%d runs)", cpus[i],
					 out[i].rejected);
			continue;
		}
		if (out[i].ns <= 0) {
			/* A cost is positive: at or below zero, the noise was larger than it. */
			out[i].err = -EAGAIN;
			snprintf(out[i].reason, sizeof(out[i].reason),
				 "the cost on CPU %d was lost in the noise (median %.0f ns): the "
				 "CPU is too busy to calibrate", cpus[i], out[i].ns);
			continue;
		}
		good++;
	}
	barrier_destroy(&ctx.bar);
	free(p);
	free(th);
	free(started);
	free(before);
	free(after);
	return good;
}

int overhead_calibrate_stolen(const int *cpus, int nr_cpus, const struct perf_event_attr *attr,
			      const struct overhead_calib_opts *opts, struct overhead_calib *out)
{
	return run_probes(MODE_STOLEN, cpus, nr_cpus, attr, opts, out, NULL);
}

int overhead_calibrate_collector(const int *cpus, int nr_cpus, enum overhead_source source,
				 const struct perf_event_attr *attr,
				 const struct overhead_calib_opts *opts, struct overhead_calib *out,
				 char *why, size_t len)
{
	struct overhead_calib_opts o = { COLLECTOR_WINDOW_NS, COLLECTOR_RUNS, false };
	struct perf_event_attr a;
	struct overhead_collector *c;
	u64 max_rate, rate;
	int err;

	if (source != OVERHEAD_SOURCE_BPF && source != OVERHEAD_SOURCE_TRACEPOINT)
		return -EINVAL;
	if (!attr || !out)
		return -EINVAL;
	if (opts) {
		o.no_fifo = opts->no_fifo;
		if (opts->window_ns)
			o.window_ns = opts->window_ns;
		if (opts->runs > 0)
			o.runs = opts->runs;
	}
	/*
	 * What the collector adds to a sample does not depend on the rate, and more samples per
	 * window steady the figure: sample faster than the recording will, within the limit.
	 */
	copy_attr(&a, attr);
	if (read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate))
		max_rate = 0;
	rate = max_rate && max_rate < COLLECTOR_RATE ? max_rate : COLLECTOR_RATE;
	if (a.freq && a.sample_freq < COLLECTOR_RATE)
		a.sample_freq = rate;
	else if (!a.freq && overhead_calib_rate(&a) > 0 && overhead_calib_rate(&a) < rate)
		a.sample_period = (u64)(1e9 / (double)rate); /* cpu-clock, task-clock */
	attr = &a;
	err = overhead_collector_open(&c, cpus, nr_cpus, source);
	if (err) {
		if (c)
			snprintf(why, len, "%s", overhead_collector_reason(c));
		overhead_collector_close(c);
		return err;
	}
	err = run_probes(MODE_COLLECTOR, cpus, nr_cpus, attr, &o, out, c);
	overhead_collector_close(c);
	return err;
}

/* ---- side-band */

struct sb_ctx {
	const struct perf_event_attr *attr;
	int runs;
	struct overhead_calib *out;
	bool fifo;
};

struct sb_count {
	u32 type;
	u64 n;
};

static void count_type(void *arg, const struct perf_event_header *h)
{
	struct sb_count *c = arg;

	if (h->type == c->type)
		c->n++;
}

/* One window of the side-band loop of a kind; the time it took. */
static u64 sb_window(enum overhead_sideband_kind kind)
{
	static const char *const names[2] = { "prec-sb-a", "prec-sb-b" };
	u64 t0 = mono_ns();
	int i;

	for (i = 0; i < SB_TURNS; i++) {
		if (kind == OVERHEAD_SIDEBAND_MMAP) {
			void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m != MAP_FAILED)
				munmap(m, 4096);
		} else {
			prctl(PR_SET_NAME, names[i & 1], 0, 0, 0);
		}
	}
	return mono_ns() - t0;
}

static void sb_kind(struct sb_ctx *ctx, int fd, struct ring_buffer *ring,
		    enum overhead_sideband_kind kind)
{
	struct overhead_calib *o = &ctx->out[kind];
	double vals[OVERHEAD_CALIB_MAX_RUNS];
	struct sb_count cnt = {
		.type = kind == OVERHEAD_SIDEBAND_MMAP ? PERF_RECORD_MMAP2 : PERF_RECORD_COMM,
	};
	u64 t_off, t_on, t0 = mono_ns();
	int run, n = 0;

	/* A first window warms the caches and the page tables up. */
	sb_window(kind);
	for (run = 0; run < ctx->runs; run++) {
		struct rusage r0, r1;

		getrusage(RUSAGE_THREAD, &r0);
		if (run & 1) {
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			t_on = sb_window(kind);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			t_off = sb_window(kind);
		} else {
			t_off = sb_window(kind);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			t_on = sb_window(kind);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		}
		getrusage(RUSAGE_THREAD, &r1);
		cnt.n = 0;
		ring_buffer_read(ring, count_type, &cnt);
		if (!cnt.n || r1.ru_nivcsw != r0.ru_nivcsw) {
			o->rejected++;
			continue;
		}
		vals[n++] = ((double)t_on - (double)t_off) / cnt.n;
		o->units += cnt.n;
	}
	set_median(o, vals, n);
	o->elapsed_ns = mono_ns() - t0;
	if (!n) {
		o->err = -EAGAIN;
		snprintf(o->reason, sizeof(o->reason), "no %s records arrived, or every run was "
			 "preempted", kind == OVERHEAD_SIDEBAND_MMAP ? "MMAP2" : "COMM");
	} else if (o->ns <= 0) {
		/*
		 * Delivering a record costs something; a median at or below zero says that the
		 * machine's noise (time stolen by the hypervisor, which no context switch shows)
		 * was larger than the cost, and such a figure would subtract from the overhead.
		 */
		o->err = -EAGAIN;
		snprintf(o->reason, sizeof(o->reason), "the %s cost was lost in the noise (median "
			 "%.0f ns): the machine was too busy to calibrate",
			 kind == OVERHEAD_SIDEBAND_MMAP ? "MMAP2" : "COMM", o->ns);
	} else if (!ctx->fifo) {
		snprintf(o->reason, sizeof(o->reason), "could not run SCHED_FIFO: noisier");
	}
}

static void *sb_thread(void *arg)
{
	struct sb_ctx *ctx = arg;
	struct perf_event_attr a;
	struct ring_buffer ring = { .fd = -1 };
	char name[16] = "";
	int fd, k, err;

	copy_attr(&a, ctx->attr);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.freq = 0;
	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.mmap = a.mmap2 = a.comm = 1;
	a.mmap_data = a.task = a.context_switch = a.namespaces = a.cgroup = 0;
	a.ksymbol = a.bpf_event = a.text_poke = 0;
	a.read_format = 0;
	fd = perf_event_open_fd(&a, 0, -1, -1);
	if (fd >= 0) {
		err = ring_buffer_mmap(&ring, fd, -1, PROBE_RING_PAGES);
	} else {
		err = fd;
	}
	if (err) {
		for (k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
			ctx->out[k].err = err;
			snprintf(ctx->out[k].reason, sizeof(ctx->out[k].reason),
				 "cannot open a side-band event: %s", strerror(-err));
		}
	} else {
		prctl(PR_GET_NAME, name, 0, 0, 0);
		for (k = 0; k < OVERHEAD_SIDEBAND_NR; k++)
			sb_kind(ctx, fd, &ring, k);
		prctl(PR_SET_NAME, name, 0, 0, 0);
	}
	ring_buffer_unmap(&ring);
	if (fd >= 0)
		close(fd);
	return NULL;
}

int overhead_calibrate_sideband(int cpu, const struct perf_event_attr *attr,
				const struct overhead_calib_opts *opts, struct overhead_calib *out)
{
	struct sb_ctx ctx = { .attr = attr, .out = out };
	pthread_t t;
	u64 window;
	int k, err, good = 0;

	if (!out)
		return -EINVAL;
	fill_defaults(NULL, opts, &window, &ctx.runs);
	/* Each run is one window with and one without: at least 4 pairs of each order. */
	if (ctx.runs < 8)
		ctx.runs = 8;
	for (k = 0; k < OVERHEAD_SIDEBAND_NR; k++) {
		memset(&out[k], 0, sizeof(out[k]));
		out[k].cpu = cpu;
	}
	err = start_pinned(&t, cpu, !(opts && opts->no_fifo), sb_thread, &ctx, &ctx.fifo);
	if (err)
		return err;
	pthread_join(t, NULL);
	for (k = 0; k < OVERHEAD_SIDEBAND_NR; k++)
		good += !out[k].err;
	return good;
}

double overhead_sideband_ns(const struct overhead_calib *sb, u32 record_type)
{
	const struct overhead_calib *m = &sb[OVERHEAD_SIDEBAND_MMAP];
	const struct overhead_calib *c = &sb[OVERHEAD_SIDEBAND_COMM];

	if (m->err && c->err)
		return -1;
	if (record_type == PERF_RECORD_MMAP || record_type == PERF_RECORD_MMAP2)
		return m->err ? c->ns : m->ns;
	if (record_type == PERF_RECORD_COMM)
		return c->err ? m->ns : c->ns;
	if (m->err)
		return c->ns;
	if (c->err)
		return m->ns;
	return (m->ns + c->ns) / 2;
}
