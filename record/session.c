// SPDX-License-Identifier: GPL-2.0
/*
 * The session engine of prec record: it runs one recording for the command (record.c) and its
 * hooks (hook.h), and writes perf.data the way perf record 6.1 does, so that perf report and
 * perf script read it the same way.
 *
 * The order of a recording, as perf's: the command parses the options and events; check
 * permissions; fork
 * the workload, which waits; open the events and map one ring buffer per CPU; write the file
 * header; synthesize what existed (kernel maps, THREAD_MAP, CPU_MAP, processes, FINISHED_INIT);
 * let the workload exec (events enabled on exec) or enable the events; drain until the workload
 * exits or a signal comes; disable, drain once more, add LOST_SAMPLES; write the features.
 *
 * The drain loop runs in the main thread and only copies records out of the rings; a writer
 * thread (writer-thread.c) does the rest. FINISHED_ROUND follows each pass over all rings that
 * found data, as in perf: everything read in a later pass was written by the kernel after the
 * previous pass began, so perf's rule (after round k, no timestamp older than the newest before
 * round k-1) holds.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/perf-data.h"
#include "record/evlist.h"
#include "record/parse-events.h"
#include "record/record.h"
#include "record/synthesize.h"
#include "record/target.h"
#include "record/writer-thread.h"
#include "util/buildid-cache.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/ring-buffer.h"
#include "util/sysinfo.h"
#include "util/xalloc.h"

/* Bytes the writer may fall behind before the drain loop leaves data in the rings. */
#define QUEUE_LIMIT_MIN (64UL << 20)
/* Records the recorder emits itself go to the writer in pieces no larger than this. */
#define EMIT_CHUNK (256 * 1024)
/* Synthetic sample ids: far above anything the kernel's counter reaches. */
#define SYNTHETIC_ID_BASE 0x7072656300000000ULL

struct hook_slot {
	const struct record_hook *hook;
	void *priv;
	u64 interval_ns; /* record_set_tick(); 0: no ticks */
	u64 next_tick;
};

struct clock_probe {
	int fd;
	struct ring_buffer ring;
	s64 offset; /* perf clock - CLOCK_MONOTONIC */
	u64 calibrated_at;
	bool failed;
};

struct record {
	struct record_opts opts;
	struct record_stats stats;
	const struct event_list *events; /* the command's -e events */
	struct evlist evl;
	struct target target;
	struct pd_writer *w;
	struct pd_tracing *tracing;
	struct buildid_tracker *bt;
	struct wthread *wt;
	int notify_fd;
	const struct record_hook *const *hook_table; /* the command's, nr_hook_table of them */
	int nr_hook_table;
	struct hook_slot *hooks; /* the hooks that are on, nr_hooks of them */
	int nr_hooks;
	u64 *synthetic_ids;
	int *map_cpus;           /* the CPU_MAP a hook asked for (record_set_cpu_map()), or NULL */
	int *shared_with;        /* by attr index: record_set_shared_with(); -1 */
	int nr_shared_with;
	enum record_bpf_counter *bpf_how; /* by attr index: record_set_bpf_counter() */
	char **bpf_why;
	int nr_bpf;
	u64 read_interval_ns;    /* record_set_read_interval() */
	bool no_rounds;          /* record_set_no_rounds() */
	struct record_aggregate agg; /* record_set_aggregate(); agg_on when set */
	struct record_aggregate_cpu *agg_cpu;
	bool agg_on;
	int nr_map_cpus;
	/* The writer thread's view of the attrs and ids (it keeps these pointers). */
	const struct perf_event_attr **w_attrs;
	u64 *w_ids;
	int *w_id_attr;
	struct clock_probe clk;
	bool declaring;
	int pages;
	bool had_old;            /* the output existed (and was moved to .old by the writer) */
	bool workload_exited;
	int workload_status;

	/* The session's options at work: -D, --control, --switch-output, --max-size. */
	struct pd_buf kmaps;     /* the kernel maps, synthesized again into every rotated file */
	struct pd_buf hook_feats; /* record_set_feature() payloads, for the rotated files */
	/*
	 * What the hooks emitted in their start callbacks (the names of prec:overhead's types,
	 * say): every file must have it, so each rotated file gets it again after its synthesis.
	 */
	struct pd_buf start_records;
	bool in_start;
	u64 enable_at;           /* -D: when to enable the events (CLOCK_MONOTONIC); 0 done */
	u64 switch_at;           /* --switch-output=TIME: the next rotation */
	u64 wakeups_at_switch;   /* stats.wakeups when the current file began */
	u64 bytes_at_switch;     /* drained_bytes() when the current file began */
	char **rotated;          /* --switch-max-files: the rotated files, oldest first */
	int nr_rotated;
	char *final_path;        /* the output's name once closed (a timestamp added) */
	u64 data_end;            /* where the closed output's data section ends */
	bool events_off;         /* disabled by -D or --control */
	/* --switch-output-event: the events, each with a ring of its own, polled for records. */
	int *sb_fd;
	struct ring_buffer *sb_ring;
	int nr_sb;
	/* What the writers of the rotated files counted: added to the current writer's. */
	struct record_stats base;
	struct record_cpu_stats *base_cpu;
};

static int close_output(struct record *rec, bool rotating);
static int switch_output(struct record *rec);
static u64 drained_bytes(const struct record *rec);

const char *record_summary_name(const struct record *rec)
{
	return rec->opts.perf_summary ? "perf" : "prec";
}

const char *record_output_file(const struct record *rec, u64 *data_end, u64 *wakeups)
{
	*data_end = rec->data_end;
	*wakeups = rec->stats.wakeups - rec->wakeups_at_switch;
	return rec->final_path ? rec->final_path : rec->opts.output;
}

/*
 * The writer of each rotated file counts from zero: add what the earlier ones counted, so that
 * the figures hooks read never go back.
 */
static void add_rotated_stats(const struct record *rec, struct record_stats *s,
			      struct record_cpu_stats *cpu)
{
	const struct record_stats *b = &rec->base;

	if (!rec->base_cpu)
		return;
	s->samples += b->samples;
	s->own_samples += b->own_samples;
	s->lost += b->lost;
	s->records_bytes += b->records_bytes;
	s->data_bytes += b->data_bytes;
	s->write_ns += b->write_ns;
	s->writer_cpu_ns += b->writer_cpu_ns;
	if (b->first_time && (!s->first_time || b->first_time < s->first_time))
		s->first_time = b->first_time;
	if (b->last_time > s->last_time)
		s->last_time = b->last_time;
	for (int i = 0; cpu && i < s->nr_cpus; i++) {
		const struct record_cpu_stats *c = &rec->base_cpu[i];

		cpu[i].samples += c->samples;
		cpu[i].lost += c->lost;
		cpu[i].lost_records += c->lost_records;
		cpu[i].throttle += c->throttle;
		cpu[i].unthrottle += c->unthrottle;
		cpu[i].throttled_ns += c->throttled_ns;
		for (int k = 0; k < RECORD_NR_KINDS; k++)
			cpu[i].sideband[k] += c->sideband[k];
	}
}

u64 record_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------- */
/* Signals. They are blocked except inside ppoll(), so none is lost between checks. */

static volatile sig_atomic_t got_signal;     /* SIGINT or SIGTERM: the last one */
static volatile sig_atomic_t signal_from_user; /* sent by kill(), not by the terminal */
static volatile sig_atomic_t nr_signals;
static volatile sig_atomic_t got_sigchld;
static volatile sig_atomic_t got_sigusr2;    /* --switch-output=signal */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	if (sig == SIGCHLD) {
		got_sigchld = 1;
		return;
	}
	if (sig == SIGUSR2) {
		got_sigusr2 = 1;
		return;
	}
	got_signal = sig;
	/* The terminal sends its SIGINT to the whole foreground group, workload included. */
	signal_from_user = si && si->si_code <= 0;
	nr_signals++;
}

static void setup_signals(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	/* A closed pipe (-o - | head) is a write error to report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGUSR2);
	/* Threads created from here on (the writer) inherit the mask: signals come to us. */
	pthread_sigmask(SIG_BLOCK, &block, orig);
}

/* ---------------------------------------------------------------------------------------- */
/* The accessors of record.h. */

const struct record_opts *record_options(const struct record *rec)
{
	return &rec->opts;
}

struct record_stats *record_stats(struct record *rec)
{
	return &rec->stats;
}

void record_stats_snapshot(struct record *rec, struct record_stats *out,
			   struct record_cpu_stats *cpu)
{
	*out = rec->stats;
	/* Until the end, ru_end is "now". */
	if (!rec->stats.ru_end.ru_utime.tv_sec && !rec->stats.ru_end.ru_utime.tv_usec &&
	    !rec->stats.ru_end.ru_stime.tv_sec && !rec->stats.ru_end.ru_stime.tv_usec)
		getrusage(RUSAGE_SELF, &out->ru_end);
	if (cpu) {
		memcpy(cpu, rec->stats.cpu, rec->stats.nr_cpus * sizeof(*cpu));
		out->cpu = cpu;
	}
	if (rec->wt) {
		wthread_stats(rec->wt, out, cpu);
		add_rotated_stats(rec, out, cpu);
	}
}

const int *record_cpus(const struct record *rec, int *nr)
{
	*nr = rec->target.nr_cpus;
	return rec->target.cpus;
}

pid_t record_workload_pid(const struct record *rec)
{
	return rec->target.workload_pid;
}

const struct perf_event_attr *record_tracking_attr(const struct record *rec)
{
	for (int i = 0; i < rec->evl.nr; i++)
		if (!rec->evl.ev[i].synthetic)
			return &rec->evl.ev[i].attr;
	return rec->evl.nr ? &rec->evl.ev[0].attr : NULL;
}

int record_set_tick(struct record *rec, u64 interval_ns)
{
	if (!rec->declaring || !rec->nr_hooks)
		return -EBUSY;
	rec->hooks[rec->nr_hooks - 1].interval_ns = interval_ns;
	return 0;
}

int record_declare_attr(struct record *rec, const struct perf_event_attr *attr, const char *name,
			u64 *id)
{
	int idx, n = 0;

	if (!rec->declaring)
		return -EBUSY;
	idx = evlist_add_synthetic(&rec->evl, attr, name);
	for (int i = 0; i < rec->evl.nr; i++)
		n += rec->evl.ev[i].synthetic;
	rec->synthetic_ids = xrealloc(rec->synthetic_ids, n * sizeof(u64));
	rec->synthetic_ids[n - 1] = SYNTHETIC_ID_BASE + n - 1;
	*id = rec->synthetic_ids[n - 1];
	return idx;
}

const struct perf_event_attr *record_attr(const struct record *rec, int idx)
{
	if (idx < 0 || idx >= rec->evl.nr)
		return NULL;
	return &rec->evl.ev[idx].attr;
}

u64 record_event_freq(const struct record *rec, int idx)
{
	const struct evsel *ev;

	if (idx < 0 || idx >= rec->evl.nr)
		return 0;
	ev = &rec->evl.ev[idx];
	return ev->attr.freq ? ev->attr.sample_freq : ev->hrtimer_freq;
}

u32 record_event_hf(const struct record *rec, int idx, u32 *rand)
{
	*rand = 0;
	if (idx < 0 || idx >= rec->evl.nr)
		return 0;
	return evsel_hf(&rec->evl.ev[idx], rand);
}

struct perf_event_attr *record_attr_edit(struct record *rec, int idx)
{
	if (idx < 0 || idx >= rec->evl.nr || rec->w)
		return NULL;
	return &rec->evl.ev[idx].attr;
}

int record_set_attr_ids(struct record *rec, int idx, const u64 *ids, u32 nr)
{
	struct evsel *ev;

	if (rec->w)
		return -EBUSY;
	if (idx < 0 || idx >= rec->evl.nr || !rec->evl.ev[idx].synthetic || !nr)
		return -EINVAL;
	/* add_attrs() writes these instead of the synthetic id; evlist_free() frees them. */
	ev = &rec->evl.ev[idx];
	free(ev->ids);
	ev->ids = xmalloc(nr * sizeof(u64));
	memcpy(ev->ids, ids, nr * sizeof(u64));
	ev->nr_ids = nr;
	return 0;
}

int record_event_fds(const struct record *rec, int idx, const int **fd, const u64 **id)
{
	const struct evsel *ev;

	if (idx < 0 || idx >= rec->evl.nr)
		return -ENOENT;
	ev = &rec->evl.ev[idx];
	if (ev->synthetic)
		return -ENOENT;
	if (!ev->fd)
		return 0;
	*fd = ev->fd;
	*id = ev->id;
	return rec->evl.nr_cpus * rec->evl.nr_threads;
}

int record_set_cpu_map(struct record *rec, const int *cpus, int nr)
{
	if (rec->w)
		return -EBUSY;
	if (nr <= 0)
		return -EINVAL;
	free(rec->map_cpus);
	rec->map_cpus = xmalloc(nr * sizeof(int));
	memcpy(rec->map_cpus, cpus, nr * sizeof(int));
	rec->nr_map_cpus = nr;
	return 0;
}

int record_set_shared_with(struct record *rec, int idx, int other)
{
	if (idx < 0 || idx >= rec->evl.nr || other < 0 || other >= rec->evl.nr || idx == other)
		return -EINVAL;
	if (idx >= rec->nr_shared_with) {
		rec->shared_with = xrealloc(rec->shared_with, rec->evl.nr * sizeof(int));
		for (int i = rec->nr_shared_with; i < rec->evl.nr; i++)
			rec->shared_with[i] = -1;
		rec->nr_shared_with = rec->evl.nr;
	}
	rec->shared_with[idx] = other;
	return 0;
}

int record_set_bpf_counter(struct record *rec, int idx, enum record_bpf_counter how,
			   const char *why)
{
	if (idx < 0 || idx >= rec->evl.nr)
		return -EINVAL;
	if (idx >= rec->nr_bpf) {
		rec->bpf_how = xrealloc(rec->bpf_how, rec->evl.nr * sizeof(*rec->bpf_how));
		rec->bpf_why = xrealloc(rec->bpf_why, rec->evl.nr * sizeof(*rec->bpf_why));
		for (int i = rec->nr_bpf; i < rec->evl.nr; i++) {
			rec->bpf_how[i] = RECORD_BPF_NONE;
			rec->bpf_why[i] = NULL;
		}
		rec->nr_bpf = rec->evl.nr;
	}
	rec->bpf_how[idx] = how;
	free(rec->bpf_why[idx]);
	rec->bpf_why[idx] = why ? xstrdup(why) : NULL;
	return 0;
}

enum record_bpf_counter record_bpf_counter(const struct record *rec, int idx, const char **why)
{
	*why = NULL;
	if (idx < 0 || idx >= rec->nr_bpf)
		return RECORD_BPF_NONE;
	*why = rec->bpf_why[idx];
	return rec->bpf_how[idx];
}

void record_set_no_rounds(struct record *rec)
{
	rec->no_rounds = true;
}

int record_set_aggregate(struct record *rec, const struct record_aggregate *agg)
{
	if (agg->nr_cpus < 0)
		return -EINVAL;
	rec->agg_cpu = xrealloc(rec->agg_cpu, (agg->nr_cpus + 1) * sizeof(*rec->agg_cpu));
	if (agg->nr_cpus)
		memcpy(rec->agg_cpu, agg->cpu, agg->nr_cpus * sizeof(*rec->agg_cpu));
	rec->agg = *agg;
	rec->agg.cpu = rec->agg_cpu;
	rec->agg_on = true;
	return 0;
}

const struct record_aggregate *record_aggregate(const struct record *rec)
{
	return rec->agg_on ? &rec->agg : NULL;
}

int record_shared_with(const struct record *rec, int idx)
{
	if (idx < 0 || idx >= rec->nr_shared_with)
		return -1;
	return rec->shared_with[idx];
}

void record_set_read_interval(struct record *rec, u64 interval_ns)
{
	rec->read_interval_ns = interval_ns;
}

u64 record_read_interval(const struct record *rec)
{
	return rec->read_interval_ns;
}

const pid_t *record_threads(const struct record *rec, int *nr)
{
	*nr = rec->target.nr_threads;
	return rec->target.threads;
}

struct pd_tracing *record_tracing(struct record *rec)
{
	if (!rec->tracing && pd_tracing_new(&rec->tracing))
		rec->tracing = NULL;
	return rec->tracing;
}

int record_set_feature(struct record *rec, unsigned bit, const void *payload, size_t len)
{
	u32 hdr[2] = { bit, (u32)len };

	if (!rec->w)
		return -EBUSY;
	/* Kept for the files --switch-output starts later: bit, length, payload. */
	if (rec->opts.switch_output) {
		pd_buf_append(&rec->hook_feats, hdr, sizeof(hdr));
		pd_buf_append(&rec->hook_feats, payload, len);
	}
	return pd_writer_set_feature(rec->w, bit, payload, len);
}

int record_emit(struct record *rec, const void *records, size_t len)
{
	const u8 *p = records;
	size_t off = 0;

	if (!rec->wt)
		return -EBUSY;
	if (rec->in_start)
		pd_buf_append(&rec->start_records, records, len);
	/* Cut on record boundaries into blocks of about EMIT_CHUNK. */
	while (off < len) {
		size_t n = 0;
		struct block *b;

		while (off + n + sizeof(struct pd_record_header) <= len) {
			const struct pd_record_header *h = (const void *)(p + off + n);

			if (h->size < sizeof(*h) || h->size > len - off - n)
				return -EINVAL;
			if (n && n + h->size > EMIT_CHUNK)
				break;
			n += h->size;
		}
		if (!n)
			return -EINVAL;
		b = wthread_block(rec->wt, n, true);
		if (!b)
			return -ENOMEM;
		memcpy(b->data, p + off, n);
		b->len = n;
		b->ring = -1;
		wthread_push(rec->wt, b);
		off += n;
	}
	wthread_kick(rec->wt);
	return 0;
}

int record_sync(struct record *rec, u64 timeout_ns)
{
	u64 deadline = record_monotonic_ns() + timeout_ns;
	struct timespec nap = { 0, 20000 };

	if (!rec->wt)
		return -EBUSY;
	wthread_kick(rec->wt);
	/*
	 * The writer takes a block off the backlog after it has counted and published it, and
	 * only this thread queues: no backlog means everything queued so far is counted.
	 */
	while (wthread_backlog(rec->wt)) {
		if (record_monotonic_ns() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 1000000)
			nap.tv_nsec *= 2;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The sample clock, for records the recorder makes itself (see record_now()). */

static int clock_probe_open(struct clock_probe *c)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = PD_ATTR_SIZE,
		.config = PERF_COUNT_SW_DUMMY,
		.comm = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TIME,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int err;

	c->fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	err = ring_buffer_mmap(&c->ring, c->fd, -1, 1);
	if (err) {
		close(c->fd);
		c->fd = -1;
		return err;
	}
	return 0;
}

/* A COMM record's time: its last 8 bytes (sample_id_all with TIME only). */
static void clock_probe_comm(void *arg, const struct perf_event_header *h)
{
	u64 *when = arg;

	if (h->type == PERF_RECORD_COMM && h->size <= 64)
		memcpy(when, (const u8 *)h + h->size - 8, 8);
}

/*
 * Provoke a COMM record on ourselves (setting our own name again) and compare its timestamp,
 * in perf's clock, with CLOCK_MONOTONIC taken after it: the offset errs on the early side, so
 * that a time made from it is never later than the kernel's.
 */
static int clock_probe_calibrate(struct clock_probe *c)
{
	u64 t1, when = 0;
	char name[17] = "";

	prctl(PR_GET_NAME, name);
	ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
	prctl(PR_SET_NAME, name);
	t1 = record_monotonic_ns();
	ring_buffer_read(&c->ring, clock_probe_comm, &when);
	if (!when)
		return -ENODATA;
	c->offset = (s64)(when - t1);
	c->calibrated_at = t1;
	return 0;
}

u64 record_now(struct record *rec)
{
	struct clock_probe *c = &rec->clk;
	u64 now;

	if (rec->opts.use_clockid) {
		struct timespec ts;

		clock_gettime(rec->opts.clockid, &ts);
		return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	}
	now = record_monotonic_ns();
	/* Again after a second: the two clocks drift apart slowly. */
	if (!c->failed && (!c->ring.base || now - c->calibrated_at > 1000000000ULL)) {
		if ((!c->ring.base && clock_probe_open(c)) || clock_probe_calibrate(c)) {
			c->failed = !c->calibrated_at;
			if (c->failed)
				debug(1, "cannot relate perf's clock to CLOCK_MONOTONIC");
		}
		now = record_monotonic_ns();
	}
	return (u64)((s64)now + c->offset);
}

static void clock_probe_close(struct clock_probe *c)
{
	ring_buffer_unmap(&c->ring);
	if (c->fd > 0)
		close(c->fd);
	c->fd = -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Permissions, checked before anything is opened. */

static bool has_capability(int cap)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long eff = 0;
	bool found = false;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapEff:", 7)) {
			eff = strtoull(line + 7, NULL, 16);
			found = true;
			break;
		}
	}
	fclose(f);
	if (!found)
		return geteuid() == 0;
	return cap < 64 && (eff >> cap) & 1;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

/*
 * As perf: unprivileged and kernel.perf_event_paranoid >= 2 means no kernel samples, so record
 * user space only and say so; -a and raw tracepoint samples need more and are errors.
 */
static int check_permissions(struct record *rec)
{
	int paranoid = 2;
	bool privileged = has_capability(CAP_SYS_ADMIN_BIT) || has_capability(CAP_PERFMON_BIT);

	read_sysctl_int("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	debug(1, "perf_event_paranoid %d, %sprivileged", paranoid, privileged ? "" : "not ");
	if (privileged)
		return 0;
	if (rec->target.system_wide && paranoid > 0)
		return error("recording %s needs kernel.perf_event_paranoid <= 0 (it is %d) or "
			     "CAP_PERFMON",
			     rec->opts.cpu_list ? "CPUs (-C)" : "all CPUs (-a)", paranoid);
	if (evlist_has_tracepoint(&rec->evl) && paranoid > -1)
		return error("tracepoint samples need kernel.perf_event_paranoid = -1 (it is %d) or "
			     "CAP_PERFMON",
			     paranoid);
	if (paranoid >= 2 && !evlist_all_exclude_kernel(&rec->evl)) {
		evlist_exclude_kernel(&rec->evl);
		note("kernel.perf_event_paranoid is %d: recording user space only", paranoid);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Side-band for what existed before the recording. */

static void read_comm(pid_t pid, char comm[16])
{
	char path[64];
	FILE *f;

	memset(comm, 0, 16);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, 16, f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
}

/*
 * The workload and every process it started, as they are now (a file --switch-output starts,
 * -D enabling the events): their COMM and maps went to no file the reader will have.
 */
static void synthesize_workload_tree(struct record *rec, pid_t pid, int depth, struct pd_buf *out)
{
	char path[64], buf[4096], *p, *end;
	ssize_t n;

	if (synthesize_process(record_tracking_attr(rec), pid, rec->opts.sample_addr, out) ||
	    depth > 64)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	n = read_small_file(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	for (p = buf; *p; p = end) {
		long child = strtol(p, &end, 10);

		if (end == p)
			break;
		if (child > 0)
			synthesize_workload_tree(rec, (pid_t)child, depth + 1, out);
	}
}

/* --synth=task: the tasks' COMM and FORK records without their maps. */
static void drop_mmaps(struct pd_buf *out, size_t from)
{
	size_t in = from, keep = from;

	while (in + sizeof(struct pd_record_header) <= out->len) {
		const struct pd_record_header *h = (const void *)(out->data + in);
		size_t n = h->size;

		if (n < sizeof(*h) || n > out->len - in)
			break;
		if (h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2) {
			memmove(out->data + keep, out->data + in, n);
			keep += n;
		}
		in += n;
	}
	out->len = keep;
}

/*
 * What existed: the kernel maps, THREAD_MAP, CPU_MAP, the processes, then FINISHED_INIT when
 * finished_init (--tail-synthesize writes that at the start and the rest at the end, as perf).
 */
static int synthesize(struct record *rec, const struct pd_buf *kmaps, bool finished_init)
{
	const struct perf_event_attr *attr = record_tracking_attr(rec);
	struct target *t = &rec->target;
	struct pd_buf out = PD_BUF_INIT;
	struct pd_thread_map_entry *tm;
	size_t task_from;
	int nr_tm, err = 0;

	/* perf's order: kernel maps, THREAD_MAP, CPU_MAP, processes, FINISHED_INIT. */
	if (kmaps->len)
		pd_buf_append(&out, kmaps->data, kmaps->len);

	if (t->workload_target) {
		const char *base = strrchr(rec->opts.argv[0], '/');

		nr_tm = 1;
		tm = xcalloc(1, sizeof(*tm));
		tm[0].pid = (u64)t->workload_pid;
		strncpy(tm[0].comm, base ? base + 1 : rec->opts.argv[0], 15);
	} else {
		nr_tm = t->nr_threads;
		tm = xcalloc(nr_tm, sizeof(*tm));
		for (int i = 0; i < nr_tm; i++) {
			tm[i].pid = (u64)(s64)t->threads[i];
			if (t->threads[i] > 0)
				read_comm(t->threads[i], tm[i].comm);
		}
	}
	pd_encode_thread_map(&out, (u64)nr_tm, tm);
	free(tm);
	if (rec->map_cpus)
		pd_encode_cpu_map(&out, (u32)rec->nr_map_cpus, rec->map_cpus);
	else
		pd_encode_cpu_map(&out, (u32)t->nr_cpus, t->cpus);

	task_from = out.len;
	if (!(rec->opts.synth & RECORD_SYNTH_TASK)) {
		/* --synth=no, cgroup: the tasks that existed stay unknown, as with perf. */
	} else if (t->workload_target && rec->final_path && !rec->workload_exited) {
		/* A file after a rotation: the workload runs already. */
		synthesize_workload_tree(rec, t->workload_pid, 0, &out);
	} else if (t->system_wide) {
		err = synthesize_all_processes(attr, rec->opts.sample_addr, &out);
	} else if (t->task) {
		for (int i = 0; i < t->nr_pids && !err; i++) {
			err = synthesize_process(attr, t->pids[i], rec->opts.sample_addr, &out);
			if (err == -ESRCH) {
				warning("process %d is gone", t->pids[i]);
				err = 0;
			}
		}
		if (rec->opts.tid_list) {
			for (int i = 0; i < t->nr_threads && !err; i++) {
				bool of_pid = false;

				for (int j = 0; j < t->nr_pids; j++) {
					char path[64];

					snprintf(path, sizeof(path), "/proc/%d/task/%d", t->pids[j],
						 t->threads[i]);
					of_pid |= !access(path, F_OK);
				}
				if (of_pid)
					continue;
				err = synthesize_thread(attr, t->threads[i], rec->opts.sample_addr,
							&out);
				if (err == -ESRCH)
					err = 0;
			}
		}
	}
	if (err) {
		pd_buf_release(&out);
		return error("cannot read the existing processes: %s", strerror(-err));
	}
	if (!(rec->opts.synth & RECORD_SYNTH_MMAP))
		drop_mmaps(&out, task_from);
	if (finished_init)
		pd_encode_finished_init(&out);
	if (out.err) {
		pd_buf_release(&out);
		return error("out of memory");
	}
	err = record_emit(rec, out.data, out.len);
	pd_buf_release(&out);
	return err ? error("cannot queue the synthesized records: %s", strerror(-err)) : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The drain loop. */

/*
 * One pass over all rings; FINISHED_ROUND after it when it found data. Unless force (the last
 * passes), a ring is left as it is while the writer is too far behind; such a pass ends without
 * FINISHED_ROUND, since the data left behind is older than what the pass took from the other
 * rings (it goes out, in order, before the next round ends).
 */
static bool drain_pass(struct record *rec, bool force)
{
	struct evlist *evl = &rec->evl;
	struct block *last = NULL;
	bool complete = true;

	for (int i = 0; i < evl->nr_rings; i++) {
		struct ring_buffer *r = &evl->rings[i];
		int cpu = evl->ring_cpu[i];
		struct block *b;
		u64 head, len;

		if (!r->base)
			continue;
		head = ring_buffer_head(r);
		if (head == r->tail)
			continue;
		len = head - r->tail;
		if (len > rec->stats.max_ring_fill)
			rec->stats.max_ring_fill = len;
		b = wthread_block(rec->wt, len, force);
		if (!b) {
			/* The writer is far behind: leave it; the kernel counts what it drops. */
			rec->stats.dropped_passes++;
			complete = false;
			continue;
		}
		ring_buffer_copy(r, head, b->data);
		ring_buffer_consume(r, head);
		b->len = len;
		/* The writer counts by CPU: every ring of --per-thread is CPU -1's. */
		b->ring = cpu;
		rec->stats.cpu[cpu].bytes += len;
		rec->stats.cpu[cpu].wakeups++;
		if (last)
			wthread_push(rec->wt, last);
		last = b;
	}
	if (!last)
		return false;
	if (complete && !rec->no_rounds) {
		struct pd_record_header round = { PD_RECORD_FINISHED_ROUND, 0, sizeof(round) };

		/* A full ring fills its block (both powers of two): the round gets one of its own. */
		if (last->cap - last->len < sizeof(round)) {
			struct block *b = wthread_block(rec->wt, sizeof(round), true);

			if (b) {
				wthread_push(rec->wt, last);
				last = b;
			}
		}
		if (last->cap - last->len >= sizeof(round)) {
			memcpy(last->data + last->len, &round, sizeof(round));
			last->len += sizeof(round);
		}
	}
	wthread_push(rec->wt, last);
	wthread_kick(rec->wt);
	rec->stats.passes++;
	if (wthread_backlog(rec->wt) > rec->stats.queue_max_bytes)
		rec->stats.queue_max_bytes = wthread_backlog(rec->wt);
	return true;
}

/*
 * --overwrite: what each backward ring holds that no earlier dump took, newest record first
 * (perf sorts by time), as perf reads them: from the head to where the last dump began (the
 * ring's tail here), or as far as whole records go within one buffer's size once it wrapped.
 */
static void dump_backward(struct record *rec)
{
	struct evlist *evl = &rec->evl;
	struct pd_record_header round = { PD_RECORD_FINISHED_ROUND, 0, sizeof(round) };
	bool any = false;

	evlist_pause(evl, true);
	for (int i = 0; i < evl->nr_rings; i++) {
		struct ring_buffer *r = &evl->rings[i];
		int cpu = evl->ring_cpu[i];
		u64 head, end;
		struct block *b;

		if (!r->base)
			continue;
		head = ring_buffer_head(r);
		end = r->tail;
		if (end - head > r->mask + 1)
			end = evlist_backward_end(r, head);
		if (end == head)
			continue;
		b = wthread_block(rec->wt, end - head, true);
		if (!b)
			continue;
		r->tail = head;
		ring_buffer_copy(r, end, b->data);
		b->len = end - head;
		b->ring = cpu;
		rec->stats.cpu[cpu].bytes += b->len;
		rec->stats.cpu[cpu].wakeups++;
		wthread_push(rec->wt, b);
		any = true;
	}
	evlist_pause(evl, false);
	if (any)
		record_emit(rec, &round, sizeof(round));
}

/* Take what the rings hold, to the last record: drain them, or dump the backward ones. */
static void drain_all(struct record *rec)
{
	if (rec->opts.overwrite)
		dump_backward(rec);
	else
		while (drain_pass(rec, true))
			;
}

/* ring_buffer_read() of --switch-output-event's rings: how many records came. */
static void count_record(void *arg, const struct perf_event_header *h)
{
	(void)h;
	(*(u64 *)arg)++;
}

static void reap_workload(struct record *rec, bool block)
{
	int status;
	pid_t p;

	if (rec->target.workload_pid <= 0 || rec->workload_exited)
		return;
	do
		p = waitpid(rec->target.workload_pid, &status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == rec->target.workload_pid) {
		rec->workload_exited = true;
		rec->workload_status = status;
	}
}

static int run_hooks_tick(struct record *rec, u64 now_mono)
{
	for (int i = 0; i < rec->nr_hooks; i++) {
		struct hook_slot *h = &rec->hooks[i];

		if (!h->hook->tick || !h->interval_ns || now_mono < h->next_tick)
			continue;
		h->next_tick = now_mono + h->interval_ns;
		if (h->hook->tick(rec, h->priv, record_now(rec)) < 0)
			return -1;
	}
	return 0;
}

static struct timespec *poll_timeout(struct record *rec, struct timespec *ts, u64 deadline)
{
	u64 now = record_monotonic_ns(), next = deadline ? deadline : UINT64_MAX;

	for (int i = 0; i < rec->nr_hooks; i++) {
		const struct hook_slot *h = &rec->hooks[i];

		if (h->hook->tick && h->interval_ns && h->next_tick < next)
			next = h->next_tick;
	}
	if (next == UINT64_MAX)
		return NULL;
	next = next > now ? next - now : 0;
	ts->tv_sec = (time_t)(next / 1000000000ULL);
	ts->tv_nsec = (long)(next % 1000000000ULL);
	return ts;
}

/* ---------------------------------------------------------------------------------------- */
/* -D, --control, --switch-output, --max-size: what the drain loop does besides draining. */

/* perf's words for it, on stderr. */
static void say_events(const struct record *rec, const char *state)
{
	(void)rec;
	if (!quiet)
		fprintf(stderr, "Events %s\n", state);
}

/*
 * Enable or disable the events. A workload that ran with them disabled has exec'd meanwhile
 * and its maps went unrecorded: synthesize them, as they are now, before the first sample.
 */
static void set_events(struct record *rec, bool on)
{
	if (on == !rec->events_off)
		return;
	if (on && rec->target.workload_pid > 0 && !rec->workload_exited) {
		struct pd_buf out = PD_BUF_INIT;

		synthesize_workload_tree(rec, rec->target.workload_pid, 0, &out);
		if (!out.err && out.len)
			record_emit(rec, out.data, out.len);
		pd_buf_release(&out);
	}
	if (on)
		evlist_enable(&rec->evl);
	else
		evlist_disable(&rec->evl);
	rec->events_off = !on;
	say_events(rec, on ? "enabled" : "disabled");
}

/* The bytes drained from the rings since the start: the writer counts them only later. */
static u64 drained_bytes(const struct record *rec)
{
	u64 n = 0;

	for (int i = 0; i < rec->stats.nr_cpus; i++)
		n += rec->stats.cpu[i].bytes;
	return n;
}

/* End the recording as a SIGTERM from the user would (the workload gets it too). */
static void stop_session(void)
{
	got_signal = SIGTERM;
	signal_from_user = 1;
	nr_signals++;
}

/* perf writes its acknowledgement with the terminating NUL. */
static void control_ack(const struct record *rec)
{
	static const char ack[] = "ack\n";

	if (rec->opts.ack_fd >= 0 && write(rec->opts.ack_fd, ack, sizeof(ack)) < 0)
		debug(1, "--control: cannot acknowledge: %s", strerror(errno));
}

/* One command of --control. Return -1 when a rotation failed, else 0. */
static int control_command(struct record *rec, const char *cmd)
{
	bool ack = true;
	int err = 0;

	debug(1, "--control: '%s'", cmd);
	if (!strncmp(cmd, "enable", 6) && (!cmd[6] || cmd[6] == ' ')) {
		set_events(rec, true);
	} else if (!strncmp(cmd, "disable", 7) && (!cmd[7] || cmd[7] == ' ')) {
		set_events(rec, false);
	} else if (!strcmp(cmd, "snapshot")) {
		/* No AUX area here: a snapshot is a rotation of the output, when it rotates. */
		if (rec->opts.switch_output)
			err = switch_output(rec);
	} else if (!strcmp(cmd, "stop")) {
		stop_session();
	} else if (!strncmp(cmd, "evlist", 6)) {
		for (int i = 0; i < rec->evl.nr; i++)
			if (!rec->evl.ev[i].synthetic)
				fprintf(stderr, "%s\n", rec->evl.ev[i].name);
	} else if (strcmp(cmd, "ping")) {
		/* As perf: an unknown command is ignored and not acknowledged. */
		ack = false;
	}
	if (ack)
		control_ack(rec);
	return err;
}

/* Commands are separated by newlines or NULs; a read may hold several. */
static int control_read(struct record *rec)
{
	char buf[512];
	ssize_t n = read(rec->opts.ctl_fd, buf, sizeof(buf) - 1);
	size_t start = 0;

	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (ssize_t i = 0; i <= n; i++) {
		if (buf[i] != '\n' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (i > (ssize_t)start && control_command(rec, buf + start))
			return -1;
		start = i + 1;
	}
	return 0;
}

/*
 * After a pass: -D's delay, the rotations of --switch-output, the limit of --max-size.
 * Return 0, or -1 when a rotation failed.
 */
static int session_events(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	u64 now = record_monotonic_ns();
	bool rotate = false;

	if (rec->enable_at && now >= rec->enable_at) {
		rec->enable_at = 0;
		set_events(rec, true);
	}
	if (o->switch_output == RECORD_SWITCH_SIGNAL && got_sigusr2)
		rotate = true;
	got_sigusr2 = 0;
	if (o->switch_output == RECORD_SWITCH_TIME && now >= rec->switch_at) {
		rotate = true;
		rec->switch_at = now + o->switch_time_ns;
	}
	if (o->switch_output == RECORD_SWITCH_SIZE &&
	    drained_bytes(rec) - rec->bytes_at_switch >= o->switch_size)
		rotate = true;
	if (rotate && switch_output(rec))
		return -1;
	if (o->max_size && !got_signal && drained_bytes(rec) >=
	    o->max_size) {
		if (!quiet)
			fprintf(stderr, "[ %s record: perf size limit reached (%llu KB), stopping "
				"session ]\n", record_summary_name(rec),
				(unsigned long long)(drained_bytes(rec) >> 10));
		stop_session();
	}
	return 0;
}

/* The next moment session_events() has something to do, 0 for none. */
static u64 session_deadline(const struct record *rec)
{
	u64 next = rec->enable_at;

	if (rec->opts.switch_output == RECORD_SWITCH_TIME && (!next || rec->switch_at < next))
		next = rec->switch_at;
	return next;
}

/*
 * Wait and drain until the workload exits, a signal comes (no workload), every task of -p/-t is
 * gone, or writing fails. Return 0, or -1 after a write error (already reported by the caller).
 */
static int drain_loop(struct record *rec, const sigset_t *orig_mask)
{
	struct evlist *evl = &rec->evl;
	int nr = evl->nr_pfd + 2 + rec->nr_sb, live = evl->nr_pfd;
	struct pollfd *pfd = xcalloc(nr, sizeof(*pfd));
	bool has_workload = rec->target.workload_pid > 0;
	int forwarded = 0, ret = 0;
	u64 term_at = 0;

	memcpy(pfd, evl->pfd, evl->nr_pfd * sizeof(*pfd));
	pfd[evl->nr_pfd].fd = rec->notify_fd;
	pfd[evl->nr_pfd].events = POLLIN;
	pfd[evl->nr_pfd + 1].fd = rec->opts.ctl_fd;
	pfd[evl->nr_pfd + 1].events = POLLIN;
	for (int i = 0; i < rec->nr_sb; i++) {
		pfd[evl->nr_pfd + 2 + i].fd = rec->sb_fd[i];
		pfd[evl->nr_pfd + 2 + i].events = POLLIN;
	}

	for (int i = 0; i < rec->nr_hooks; i++)
		rec->hooks[i].next_tick = record_monotonic_ns() + rec->hooks[i].interval_ns;

	for (;;) {
		struct timespec ts, *tsp;
		u64 deadline;
		int n;

		if (!rec->opts.overwrite)
			drain_pass(rec, false);
		if (wthread_error(rec->wt)) {
			ret = -1;
			break;
		}
		if (got_sigchld) {
			got_sigchld = 0;
			reap_workload(rec, false);
			if (rec->workload_exited)
				break;
		}
		if (got_signal) {
			if (!has_workload || rec->workload_exited)
				break;
			/*
			 * As perf: the workload gets SIGTERM (it may ignore SIGINT, as background
			 * jobs do) and we drain until it exits. The terminal's Ctrl-C reached it
			 * already, so give it a second to finish first; a second signal kills it.
			 */
			if (nr_signals > forwarded) {
				if (forwarded)
					kill(rec->target.workload_pid, SIGKILL);
				else if (signal_from_user)
					kill(rec->target.workload_pid, SIGTERM);
				else
					term_at = record_monotonic_ns() + 1000000000ULL;
				forwarded = nr_signals;
			}
			if (term_at && record_monotonic_ns() >= term_at) {
				kill(rec->target.workload_pid, SIGTERM);
				term_at = 0;
			}
		}
		if (live == 0 && rec->target.task && !has_workload)
			break;
		if (run_hooks_tick(rec, record_monotonic_ns()) < 0) {
			ret = -2;
			break;
		}
		if (session_events(rec)) {
			ret = -2;
			break;
		}
		deadline = session_deadline(rec);
		if (term_at && (!deadline || term_at < deadline))
			deadline = term_at;
		tsp = poll_timeout(rec, &ts, deadline);
		n = ppoll(pfd, nr, tsp, orig_mask);
		/* As perf counts "Woken up": every return but the timeouts of the hooks' ticks. */
		if (n != 0)
			rec->stats.wakeups++;
		if (n <= 0)
			continue;
		if (pfd[evl->nr_pfd + 1].revents & POLLIN && control_read(rec)) {
			ret = -2;
			break;
		}
		/* A control pipe whose writer went away: nothing more will come from it. */
		if (!(pfd[evl->nr_pfd + 1].revents & POLLIN) &&
		    pfd[evl->nr_pfd + 1].revents & (POLLHUP | POLLERR))
			pfd[evl->nr_pfd + 1].fd = -1;
		for (int i = 0; i < rec->nr_sb; i++) {
			u64 fired = 0;

			if (!(pfd[evl->nr_pfd + 2 + i].revents & POLLIN))
				continue;
			ring_buffer_read(&rec->sb_ring[i], count_record, &fired);
			/* As perf's side-band thread: a SIGUSR2 of --switch-output. */
			if (fired)
				got_sigusr2 = 1;
		}
		for (int i = 0; i < evl->nr_pfd; i++) {
			if (pfd[i].fd >= 0 && pfd[i].revents & (POLLHUP | POLLERR)) {
				/* Its task exited: nothing more will come from this fd. */
				pfd[i].fd = -1;
				evl->nr_hup++;
				live--;
			}
		}
	}
	free(pfd);
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* The end of a recording. */

struct lost_ctx {
	struct record *rec;
	struct pd_buf out;
};

static void add_lost(void *arg, const struct evsel *ev, int cpu_idx, int thread_idx, u64 id,
		     u64 lost)
{
	struct lost_ctx *lc = arg;
	struct record *rec = lc->rec;
	struct pd_sample s;

	memset(&s, 0, sizeof(s));
	s.sample_type = ev->attr.sample_type;
	s.id = id;
	s.pid = s.tid = (u32)rec->target.threads[thread_idx];
	s.cpu = (u32)rec->target.cpus[cpu_idx];
	pd_encode_lost_samples(&lc->out, &ev->attr, lost, &s);
	rec->stats.lost_samples += lost;
	rec->stats.cpu[cpu_idx].lost_samples += lost;
}

/* The workload's status as a shell reports it: the exit code, or 128 + the signal. */
static int workload_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/*
 * The file could not be finished: remove it and put the previous one back where the writer had
 * moved it (pd_writer_close() leaves a failed file as it is).
 */
static void remove_failed_output(struct record *rec, const char *path)
{
	char *old;

	if (rec->opts.pipe)
		return;
	unlink(path);
	if (rec->had_old) {
		old = xasprintf("%s.old", path);
		rename(old, path);
		free(old);
	}
}

/*
 * perf record's build-id cache at the end. The recording stands whatever happens here, and, as
 * perf says nothing when it cannot write the cache (a HOME that is not the user's, a read-only
 * one), what fails is said with -v only.
 */
static void fill_buildid_cache(struct buildid_tracker *bt, const char *opt_dir)
{
	struct timespec cpu0, cpu1;
	char dir[PATH_MAX];
	int nr, added, failed;
	u64 t0 = record_monotonic_ns();

	if (buildid_cache_dir(opt_dir, dir, sizeof(dir))) {
		debug(1, "build-id cache: the directory's name is too long");
		return;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	nr = buildid_cache_fill(bt, dir, &added, &failed);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	if (failed)
		debug(1, "build-id cache %s: %s", dir, strerror(-failed));
	/* what the cache costs, for -v and the fixed-cost benchmark */
	debug(1, "build-id cache %s: %d binaries, %d added (%.2f ms, %.2f ms CPU)", dir, nr, added,
	      (record_monotonic_ns() - t0) / 1e6,
	      (cpu1.tv_sec - cpu0.tv_sec) * 1e3 + (cpu1.tv_nsec - cpu0.tv_nsec) / 1e6);
}

static void cleanup(struct record *rec)
{
	if (rec->wt) {
		wthread_free(rec->wt);
		rec->wt = NULL;
	}
	if (rec->notify_fd >= 0)
		close(rec->notify_fd);
	evlist_free(&rec->evl);
	target_free(&rec->target);
	if (rec->tracing)
		pd_tracing_free(rec->tracing);
	if (rec->bt)
		buildid_tracker_free(rec->bt);
	clock_probe_close(&rec->clk);
	free(rec->stats.cpu);
	free(rec->hooks);
	free(rec->synthetic_ids);
	free(rec->map_cpus);
	free(rec->shared_with);
	for (int i = 0; i < rec->nr_bpf; i++)
		free(rec->bpf_why[i]);
	free(rec->bpf_how);
	free(rec->bpf_why);
	free(rec->agg_cpu);
	free(rec->w_attrs);
	free(rec->w_ids);
	free(rec->w_id_attr);
	pd_buf_release(&rec->kmaps);
	pd_buf_release(&rec->hook_feats);
	pd_buf_release(&rec->start_records);
	for (int i = 0; i < rec->nr_rotated; i++)
		free(rec->rotated[i]);
	free(rec->rotated);
	free(rec->final_path);
	free(rec->base_cpu);
	for (int i = 0; i < rec->nr_sb; i++) {
		ring_buffer_unmap(&rec->sb_ring[i]);
		close(rec->sb_fd[i]);
	}
	free(rec->sb_ring);
	free(rec->sb_fd);
	if (rec->opts.ctl_fd >= 0)
		close(rec->opts.ctl_fd);
	if (rec->opts.ack_fd >= 0)
		close(rec->opts.ack_fd);
}

/* ---------------------------------------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int start_writer(struct record *rec)
{
	struct evlist *evl = &rec->evl;
	struct wthread_config cfg;
	const struct perf_event_attr **attrs = xcalloc(evl->nr, sizeof(*attrs));
	struct { u64 id; int idx; } *pairs;
	u64 *ids;
	int *id_attr, n = 0, total = 0, syn = 0, err;
	size_t ring_bytes = 0;

	for (int i = 0; i < evl->nr; i++)
		total += evl->ev[i].synthetic ? 1 : (int)evl->ev[i].nr_ids;
	pairs = xcalloc(total + 1, sizeof(*pairs));
	for (int i = 0; i < evl->nr; i++) {
		const struct evsel *ev = &evl->ev[i];

		attrs[i] = &ev->attr;
		if (ev->synthetic) {
			pairs[n].id = rec->synthetic_ids[syn++];
			pairs[n++].idx = i;
			continue;
		}
		for (u32 k = 0; k < ev->nr_ids; k++) {
			pairs[n].id = ev->ids[k];
			pairs[n++].idx = i;
		}
	}
	qsort(pairs, n, sizeof(*pairs), cmp_id);
	ids = xcalloc(n + 1, sizeof(u64));
	id_attr = xcalloc(n + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
		ids[i] = pairs[i].id;
		id_attr[i] = pairs[i].idx;
	}
	free(pairs);
	for (int i = 0; i < evl->nr_rings; i++)
		ring_bytes += evl->rings[i].map_len;

	memset(&cfg, 0, sizeof(cfg));
	cfg.w = rec->w;
	cfg.bt = rec->bt;
	/* The first attr is the tracking one: every record's layout as far as the writer looks. */
	{
		int first = 0;

		while (first < evl->nr && evl->ev[first].synthetic)
			first++;
		if (first && first < evl->nr) {
			const struct perf_event_attr *tmp = attrs[0];

			attrs[0] = attrs[first];
			attrs[first] = tmp;
			for (int i = 0; i < n; i++) {
				if (id_attr[i] == 0)
					id_attr[i] = first;
				else if (id_attr[i] == first)
					id_attr[i] = 0;
			}
		}
	}
	cfg.attrs = attrs;
	cfg.nr_attrs = evl->nr;
	cfg.ids = ids;
	cfg.id_attr = id_attr;
	cfg.nr_ids = n;
	cfg.nr_rings = evl->nr_cpus;
	cfg.queue_limit = ring_bytes * 8 > QUEUE_LIMIT_MIN ? ring_bytes * 8 : QUEUE_LIMIT_MIN;
	cfg.notify_fd = rec->notify_fd;
	rec->w_attrs = attrs;
	rec->w_ids = ids;
	rec->w_id_attr = id_attr;
	err = wthread_start(&rec->wt, &cfg);
	if (err)
		return error("cannot start the writer thread: %s", strerror(-err));
	return 0;
}

static int set_file_features(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct pd_buf b = PD_BUF_INIT;
	const char **argv = xcalloc(o->orig_argc + 2, sizeof(char *));
	int err;

	argv[0] = program_invocation_name;
	for (int i = 0; i < o->orig_argc; i++)
		argv[i + 1] = o->orig_argv[i];
	err = sysinfo_set_features(rec->w, o->orig_argc + 1, argv);
	free(argv);
	if (err)
		return error("cannot write the system features: %s", strerror(-err));

	if (o->use_clockid) {
		struct timespec res, tod, ck;

		clock_getres(o->clockid, &res);
		pd_feat_clockid(&b, (u64)res.tv_sec * 1000000000ULL + res.tv_nsec);
		err = pd_writer_set_feature(rec->w, PD_FEAT_CLOCKID, b.data, b.len);
		pd_buf_reset(&b);
		clock_gettime(CLOCK_REALTIME, &tod);
		clock_gettime(o->clockid, &ck);
		pd_feat_clock_data(&b, (u32)o->clockid,
				   (u64)tod.tv_sec * 1000000000ULL + tod.tv_nsec,
				   (u64)ck.tv_sec * 1000000000ULL + ck.tv_nsec);
		if (!err)
			err = pd_writer_set_feature(rec->w, PD_FEAT_CLOCK_DATA, b.data, b.len);
		pd_buf_reset(&b);
		if (err)
			return error("cannot set the clock features: %s", strerror(-err));
	}

	if (evlist_has_tracepoint(&rec->evl)) {
		if (!record_tracing(rec))
			return error("out of memory");
		for (int i = 0; i < rec->evl.nr; i++) {
			struct evsel *ev = &rec->evl.ev[i];
			u64 id = 0;

			if (ev->synthetic || ev->attr.type != PERF_TYPE_TRACEPOINT || !ev->spec)
				continue;
			err = pd_tracing_add_tracefs_event(rec->tracing, ev->spec->tp_system,
							   ev->spec->tp_event, &id);
			if (err)
				return error("cannot read the format of %s from tracefs: %s",
					     ev->name, strerror(-err));
			if (id != ev->attr.config)
				return error("tracepoint %s changed its id while starting (%llu, "
					     "now %llu)",
					     ev->name, (unsigned long long)ev->attr.config,
					     (unsigned long long)id);
		}
	}
	pd_buf_release(&b);
	return 0;
}

static int add_attrs(struct record *rec)
{
	struct evlist *evl = &rec->evl;
	int syn = 0, err;

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		/* A hook's attr has its synthetic id, or the ids record_set_attr_ids() gave it. */
		if (ev->synthetic && !ev->nr_ids)
			err = pd_writer_add_attr(rec->w, &ev->attr, ev->name,
						 &rec->synthetic_ids[syn], 1);
		else
			err = pd_writer_add_attr(rec->w, &ev->attr, ev->name, ev->ids,
						 ev->nr_ids);
		syn += ev->synthetic;
		if (err < 0)
			return error("cannot add event %s: %s", ev->name, strerror(-err));
	}
	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->leader == i && ev->group_size > 1) {
			err = pd_writer_add_group(rec->w, ev->spec ? ev->spec->group_name : NULL,
						  (u32)i, (u32)ev->group_size);
			if (err)
				return error("cannot add a group: %s", strerror(-err));
		}
	}
	return 0;
}

/* perf lowers a frequency above the kernel's limit, and says so. */
static void cap_frequency(struct record *rec)
{
	u64 max = 0;

	read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate", &max);
	rec->stats.max_sample_rate_before = max;
	rec->stats.freq_requested = rec->opts.period_set ? 0 : rec->opts.freq;
	if (!max || rec->opts.period_set || rec->opts.freq <= max)
		return;
	warning("-F %llu is above the kernel's limit (kernel.perf_event_max_sample_rate = %llu): "
		"sampling at %llu Hz",
		(unsigned long long)rec->opts.freq, (unsigned long long)max,
		(unsigned long long)max);
	rec->opts.freq = max;
}

/* The session's options that change the attrs perf record sets for them. */
static void config_session_attrs(struct record *rec)
{
	const struct record_opts *o = &rec->opts;

	for (int i = 0; i < rec->evl.nr; i++) {
		struct perf_event_attr *a = &rec->evl.ev[i].attr;

		if (rec->evl.ev[i].synthetic)
			continue;
		if (o->no_bpf_event)
			a->bpf_event = 0;
		/* -s: the kernel writes PERF_RECORD_READ as each inheriting task exits. */
		if (o->inherit_stat) {
			a->inherit_stat = 1;
			a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING;
		}
		/* -D: nothing is enabled on exec; the drain loop enables after the delay. */
		if (o->delay_ms)
			a->enable_on_exec = 0;
		if (o->no_buffering) {
			a->watermark = 0;
			a->wakeup_events = 1;
		}
		/* --overwrite: the kernel writes backward and overwrites the oldest records. */
		if (o->overwrite)
			a->write_backward = 1;
		/* The kernel maps no ring of an inherited per-task event: no inherit per thread. */
		if (o->per_thread && !rec->target.system_wide)
			a->inherit = 0;
	}
}

/*
 * --switch-output-event: perf opens these in a side-band list of its own, on the target's
 * threads for -p, -t and -u and else on every CPU (its workload target has no thread yet when it
 * does), every record a rotation. They never go to the file.
 */
static int open_switch_events(struct record *rec)
{
	const struct event_list *list = rec->opts.switch_output_events;
	struct target *t = &rec->target;
	int *cpus = NULL, nr_cpus;
	int nr_th = t->task ? t->nr_threads : 1;

	if (!list)
		return 0;
	nr_cpus = t->task ? 1 : target_online_cpus(&cpus);
	if (nr_cpus < 0)
		return error("cannot find the online CPUs: %s", strerror(-nr_cpus));
	rec->sb_fd = xcalloc((size_t)list->nr * nr_cpus * nr_th, sizeof(int));
	rec->sb_ring = xcalloc((size_t)list->nr * nr_cpus * nr_th, sizeof(*rec->sb_ring));
	for (int i = 0; i < list->nr; i++) {
		struct perf_event_attr a = list->ev[i].attr;

		a.size = PD_ATTR_SIZE;
		if (!list->ev[i].has_period && !list->ev[i].has_freq) {
			a.sample_period = 1;
			a.freq = 0;
		}
		a.sample_type = PERF_SAMPLE_TIME;
		a.wakeup_events = 1;
		a.inherit = t->task && !rec->opts.no_inherit;
		for (int c = 0; c < nr_cpus; c++) {
			for (int th = 0; th < nr_th; th++) {
				int cpu = t->task ? -1 : cpus[c];
				pid_t pid = t->task ? t->threads[th] : -1;
				int fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC), err;

				if (fd < 0 && errno == ESRCH)
					continue;
				if (fd < 0) {
					err = errno;
					free(cpus);
					return error("--switch-output-event: cannot open '%s': %s",
						     list->ev[i].name, strerror(err));
				}
				rec->sb_fd[rec->nr_sb] = fd;
				err = ring_buffer_mmap(&rec->sb_ring[rec->nr_sb++], fd, cpu, 1);
				if (err) {
					free(cpus);
					return error("--switch-output-event: cannot map '%s': %s",
						     list->ev[i].name, strerror(-err));
				}
			}
		}
	}
	free(cpus);
	return 0;
}

/* Events, target, permissions, the workload (waiting), the events opened and mapped. */
static int record_prepare(struct record *rec, struct pd_buf *kmaps)
{
	struct record_opts *o = &rec->opts;
	int err;

	if (rec->events->nr)
		evlist_add_events(&rec->evl, rec->events);
	else
		evlist_add_default(&rec->evl);

	if (target_init(&rec->target, o->system_wide, o->cpu_list, o->pid_list, o->tid_list,
			o->uid))
		return -1;
	rec->target.workload_target = o->argc && !rec->target.system_wide && !rec->target.task;
	/* As perf: --per-thread means nothing to a system-wide recording. */
	if (o->per_thread && !rec->target.system_wide)
		target_per_thread(&rec->target);

	/* Hooks declare their attrs first: the number of attrs decides PERF_SAMPLE_IDENTIFIER. */
	rec->declaring = true;
	rec->hooks = xcalloc(rec->nr_hook_table ? rec->nr_hook_table : 1, sizeof(*rec->hooks));
	for (int i = 0; i < rec->nr_hook_table; i++) {
		struct hook_slot *h = &rec->hooks[rec->nr_hooks++];
		int ret;

		h->hook = rec->hook_table[i];
		ret = h->hook->declare ? h->hook->declare(rec, &h->priv) : 0;
		if (ret < 0)
			return -1;
		if (ret == RECORD_HOOK_OFF)
			memset(&rec->hooks[--rec->nr_hooks], 0, sizeof(*h));
	}
	rec->declaring = false;

	cap_frequency(rec);
	if (!o->mmap_pages)
		o->mmap_pages = evlist_default_mmap_pages();
	evlist_config(&rec->evl, o, &rec->target);
	/* an alternating period the kernel cannot take fails here, before the workload starts */
	if (evlist_check_hf(&rec->evl))
		return -1;
	config_session_attrs(rec);
	if (check_permissions(rec))
		return -1;

	/*
	 * The kernel map, so that perf never warns about restricted kernel maps: without it (kptr
	 * restricted) kernel samples could not be resolved, so record user space only.
	 */
	if (!evlist_all_exclude_kernel(&rec->evl)) {
		err = synthesize_kernel_maps(record_tracking_attr(rec), kmaps);
		if (err) {
			pd_buf_reset(kmaps);
			if (!evlist_has_tracepoint(&rec->evl)) {
				evlist_exclude_kernel(&rec->evl);
				note("kernel addresses are hidden (%s): recording user space only",
				     err == -EACCES ? "kernel.kptr_restrict" : strerror(-err));
			} else {
				warning("cannot synthesize the kernel map: %s", strerror(-err));
			}
		}
	}

	if (o->argc && target_workload_prepare(&rec->target, o->argv, o->pipe))
		return -1;
	if (rec->target.workload_target)
		rec->target.threads[0] = rec->target.workload_pid;
	if (evlist_open(&rec->evl, &rec->target) ||
	    evlist_mmap(&rec->evl, &rec->target, o->mmap_pages) || open_switch_events(rec))
		return -1;

	rec->stats.nr_cpus = rec->target.nr_cpus;
	rec->stats.cpu = xcalloc(rec->target.nr_cpus, sizeof(*rec->stats.cpu));
	for (int i = 0; i < rec->target.nr_cpus; i++)
		rec->stats.cpu[i].cpu = rec->target.cpus[i];
	for (int i = 0; i < rec->nr_hooks; i++) {
		struct hook_slot *h = &rec->hooks[i];

		if (h->hook->open && h->hook->open(rec, h->priv) < 0)
			return -1;
	}
	return 0;
}

/*
 * The output: created only now that everything that could fail early has been tried. Attrs,
 * features known at the start, the header; then the writer thread and the synthesized records.
 * On failure the caller aborts the file.
 */
static int record_open_output(struct record *rec, bool first)
{
	struct record_opts *o = &rec->opts;
	struct stat st;
	int err;

	rec->had_old = !o->pipe && !stat(o->output, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
	err = pd_writer_open(&rec->w, o->output, o->pipe ? PD_WRITER_PIPE : 0);
	if (err) {
		rec->w = NULL;
		return error("cannot create '%s': %s", o->output, strerror(-err));
	}
	if (add_attrs(rec) || set_file_features(rec))
		return -1;
	if (o->comp_level) {
		long page = sysconf(_SC_PAGESIZE);
		u32 len = (u32)((o->mmap_pages + 1) * page);

		/* perf's comp_mmap_len is its mmap length; the writer needs at least 128 KiB. */
		err = pd_writer_set_compression(rec->w, o->comp_level, len < (129 << 12) ? 0 : len);
		if (err)
			return error("-z: %s", strerror(-err));
	}
	/*
	 * As perf: -z and --buildid-mmap mean no build-ids at the end, and so does pipe mode,
	 * where the header has gone out before the end.
	 */
	if (!o->no_buildid && !o->comp_level && !o->buildid_mmap && !o->pipe) {
		rec->bt = buildid_tracker_new();
		if (!rec->bt)
			warning("cannot collect build-ids: out of memory");
		else if (o->buildid_all)
			buildid_tracker_set_all(rec->bt);
	}
	for (int i = 0; first && i < rec->nr_hooks; i++) {
		struct hook_slot *h = &rec->hooks[i];

		if (h->hook->prepare && h->hook->prepare(rec, h->priv) < 0)
			return -1;
	}
	/* A rotated file: the features the hooks set for the first one. */
	for (size_t off = 0; !first && off + 8 <= rec->hook_feats.len;) {
		u32 hdr[2];

		memcpy(hdr, rec->hook_feats.data + off, sizeof(hdr));
		pd_writer_set_feature(rec->w, hdr[0], rec->hook_feats.data + off + 8, hdr[1]);
		off += 8 + hdr[1];
	}
	if (rec->tracing) {
		struct pd_buf tb = PD_BUF_INIT;

		err = pd_tracing_encode(rec->tracing, &tb);
		if (!err)
			err = pd_writer_set_feature(rec->w, PD_FEAT_TRACING_DATA, tb.data, tb.len);
		pd_buf_release(&tb);
		if (err)
			return error("cannot write the tracing data: %s", strerror(-err));
	}

	err = pd_writer_begin(rec->w);
	if (err)
		return error("cannot write '%s': %s", o->output, strerror(-err));
	if (first)
		rec->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (start_writer(rec))
		return -1;
	if (o->tail_synthesize) {
		struct pd_record_header init = { PD_RECORD_FINISHED_INIT, 0, sizeof(init) };

		return record_emit(rec, &init, sizeof(init));
	}
	err = synthesize(rec, &rec->kmaps, true);
	if (!err && !first && rec->start_records.len) {
		if (rec->start_records.err)
			return error("out of memory");
		err = record_emit(rec, rec->start_records.data, rec->start_records.len);
		if (err)
			return error("cannot queue the hooks' records: %s", strerror(-err));
	}
	return err;
}

/*
 * --switch-output: drain, close the current file under its timestamped name and go on in a new
 * one, with the attrs, features and synthesized records of the first. Return 0, or -1 after a
 * message (the recording then ends).
 */
static int switch_output(struct record *rec)
{
	int err;

	drain_all(rec);
	if (rec->opts.tail_synthesize && synthesize(rec, &rec->kmaps, false))
		return -1;
	wthread_end_time(rec->wt, record_now(rec));
	err = wthread_stop(rec->wt);
	if (err)
		return error("cannot write '%s': %s", rec->opts.output, strerror(-err));
	{
		struct record_cpu_stats *cpu = xcalloc(rec->stats.nr_cpus, sizeof(*cpu));
		struct record_stats sum;

		if (!rec->base_cpu)
			rec->base_cpu = xcalloc(rec->stats.nr_cpus, sizeof(*rec->base_cpu));
		memset(&sum, 0, sizeof(sum));
		sum.nr_cpus = rec->stats.nr_cpus;
		wthread_stats(rec->wt, &sum, cpu);
		add_rotated_stats(rec, &sum, cpu);
		rec->base = sum;
		memcpy(rec->base_cpu, cpu, sum.nr_cpus * sizeof(*cpu));
		free(cpu);
	}
	if (!quiet)
		fprintf(stderr, "[ %s record: dump data: Woken up %llu times ]\n",
			record_summary_name(rec),
			(unsigned long long)(rec->stats.wakeups - rec->wakeups_at_switch));
	rec->wakeups_at_switch = rec->stats.wakeups;
	rec->bytes_at_switch = drained_bytes(rec);
	if (close_output(rec, true))
		return -1;
	wthread_free(rec->wt);
	rec->wt = NULL;
	free(rec->w_attrs);
	free(rec->w_ids);
	free(rec->w_id_attr);
	rec->w_attrs = NULL;
	rec->w_ids = NULL;
	rec->w_id_attr = NULL;
	if (rec->bt) {
		buildid_tracker_free(rec->bt);
		rec->bt = NULL;
	}
	return record_open_output(rec, false);
}

/*
 * Hooks start, then the events: enabled now, or on exec of the workload, which is let go.
 * Return: 0, -1 after an error, or the exit status when the workload could not be executed.
 */
static int record_start(struct record *rec)
{
	struct record_opts *o = &rec->opts;

	rec->in_start = true;
	for (int i = 0; i < rec->nr_hooks; i++) {
		struct hook_slot *h = &rec->hooks[i];

		if (h->hook->start && h->hook->start(rec, h->priv) < 0) {
			rec->in_start = false;
			return -1;
		}
	}
	rec->in_start = false;
	read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate",
			&rec->stats.max_sample_rate_before);
	rec->stats.start_ns = record_monotonic_ns();
	if (o->delay_ms) {
		rec->events_off = true;
		say_events(rec, "disabled");
		if (o->delay_ms > 0)
			rec->enable_at = rec->stats.start_ns + (u64)o->delay_ms * 1000000ULL;
	} else if (!rec->target.workload_target) {
		evlist_enable(&rec->evl);
	}
	if (o->switch_output == RECORD_SWITCH_TIME)
		rec->switch_at = rec->stats.start_ns + o->switch_time_ns;
	if (o->argc) {
		int err = target_workload_start(&rec->target);

		if (err) {
			error("cannot run '%s': %s", o->argv[0], strerror(err));
			reap_workload(rec, true);
			return err == ENOENT || err == ENOTDIR ? 127 : 126;
		}
	}
	return 0;
}

/*
 * After the drain loop: the workload ended, the events disabled, the rings drained for the last
 * time, LOST_SAMPLES added, hooks stopped, the writer stopped, the last features set and the
 * file closed. err is the drain loop's result. Return 0, or -1 after a message (the caller
 * aborts the file while rec->w is set).
 */
static int record_finish(struct record *rec, int err)
{
	const char *path = rec->opts.output;
	int werr;

	/* A workload still running (a write error) is ended as perf ends it. */
	if (rec->target.workload_pid > 0 && !rec->workload_exited) {
		if (err)
			kill(rec->target.workload_pid, SIGTERM);
		reap_workload(rec, true);
	}
	evlist_disable(&rec->evl);
	rec->stats.end_ns = record_monotonic_ns();
	/* A rotation that failed left no file to finish. */
	if (!rec->wt)
		return -1;
	/* Before the stop hooks, which put it in the facts (overhead/facts.h). */
	read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate",
			&rec->stats.max_sample_rate_after);
	if (!err) {
		struct lost_ctx lc = { rec, PD_BUF_INIT };

		drain_all(rec);
		evlist_read_lost(&rec->evl, &rec->target, add_lost, &lc);
		if (lc.out.len)
			record_emit(rec, lc.out.data, lc.out.len);
		pd_buf_release(&lc.out);
		if (rec->opts.tail_synthesize && synthesize(rec, &rec->kmaps, false))
			err = -2;
		/*
		 * Everything the kernel wrote is queued: the writer closes the throttles still in
		 * force at this time, before the stop hooks take their last snapshot.
		 */
		wthread_end_time(rec->wt, record_now(rec));
		for (int i = 0; i < rec->nr_hooks; i++) {
			struct hook_slot *h = &rec->hooks[i];

			if (h->hook->stop && h->hook->stop(rec, h->priv) < 0)
				err = -2;
		}
	}

	wthread_end_time(rec->wt, record_now(rec)); /* after an error: the first call */
	werr = wthread_stop(rec->wt);
	wthread_stats(rec->wt, &rec->stats, rec->stats.cpu);
	add_rotated_stats(rec, &rec->stats, rec->stats.cpu);
	if (werr)
		return error("cannot write '%s': %s", path, strerror(-werr));
	if (err)
		return -1;
	if (close_output(rec, false))
		return -1;
	getrusage(RUSAGE_SELF, &rec->stats.ru_end);
	return 0;
}

/* perf's timestamp suffix: local time to the hundredth of a second, YYYYmmddHHMMSScc. */
static void timestamp_suffix(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y%m%d%H%M%S", &tm);
	snprintf(buf + strlen(buf), len - strlen(buf), "%02ld", ts.tv_nsec / 10000000);
}

/* Where the data section of a closed file ends: what perf's summary counts as written. */
static u64 read_data_end(const char *path)
{
	struct pd_file_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, &h, sizeof(h), 0);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(h) ? h.data.offset + h.data.size : 0;
}

/* --switch-max-files: remember a rotated file, and remove the oldest beyond the limit. */
static void keep_rotated(struct record *rec, const char *path)
{
	int max = rec->opts.switch_max_files;

	if (!max)
		return;
	rec->rotated = xrealloc(rec->rotated, (rec->nr_rotated + 1) * sizeof(char *));
	rec->rotated[rec->nr_rotated++] = xstrdup(path);
	while (rec->nr_rotated > max) {
		unlink(rec->rotated[0]);
		free(rec->rotated[0]);
		memmove(rec->rotated, rec->rotated + 1, --rec->nr_rotated * sizeof(char *));
	}
}

/*
 * The features known only at the end, then close the file; with --timestamp-filename (and
 * --switch-output) it takes its timestamped name. Return 0, or -1 after a message.
 */
static int close_output(struct record *rec, bool rotating)
{
	const char *path = rec->opts.output;
	struct pd_buf b = PD_BUF_INIT;
	struct record_stats now;
	int err, n;

	memset(&now, 0, sizeof(now));
	wthread_stats(rec->wt, &now, NULL);
	if (now.samples) {
		pd_feat_sample_time(&b, now.first_time, now.last_time);
		pd_writer_set_feature(rec->w, PD_FEAT_SAMPLE_TIME, b.data, b.len);
		pd_buf_reset(&b);
	}
	if (rec->bt) {
		n = buildid_feature(rec->bt, &b);
		if (n > 0)
			pd_writer_set_feature(rec->w, PD_FEAT_BUILD_ID, b.data, b.len);
		else if (n < 0)
			debug(1, "no build-ids: %s", strerror(-n));
		if (!rec->opts.no_buildid_cache)
			fill_buildid_cache(rec->bt, rec->opts.buildid_dir);
	}
	pd_buf_release(&b);
	err = pd_writer_flush(rec->w);
	if (err)
		return error("cannot write '%s': %s", path, strerror(-err));
	err = pd_writer_close(rec->w);
	rec->w = NULL;
	if (err) {
		/* Closed but incomplete: remove it ourselves and put the earlier file back. */
		remove_failed_output(rec, path);
		return error("cannot write '%s': %s", path, strerror(-err));
	}
	free(rec->final_path);
	rec->final_path = xstrdup(path);
	if (rec->opts.pipe)
		return 0;
	rec->data_end = read_data_end(path);
	if (rec->opts.timestamp_filename) {
		struct timespec cs = { 0, 10000000 };
		char ts[32];

		/* Two rotations within a hundredth of a second: the second waits for its name. */
		for (;;) {
			timestamp_suffix(ts, sizeof(ts));
			free(rec->final_path);
			rec->final_path = xasprintf("%s.%s", path, ts);
			if (access(rec->final_path, F_OK))
				break;
			nanosleep(&cs, NULL);
		}
		if (rename(path, rec->final_path))
			return error("cannot rename '%s' to '%s': %s", path, rec->final_path,
				     strerror(errno));
		if (rotating && !quiet)
			fprintf(stderr, "[ %s record: Dump %s ]\n", record_summary_name(rec),
				rec->final_path);
		if (rec->opts.switch_output)
			keep_rotated(rec, rec->final_path);
	}
	return 0;
}

static void run_hooks_finish(struct record *rec)
{
	for (int i = 0; i < rec->nr_hooks; i++)
		if (rec->hooks[i].hook->finish)
			rec->hooks[i].hook->finish(rec, rec->hooks[i].priv);
	rec->nr_hooks = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The session as the command sees it (record.h). */

struct record *record_new(void)
{
	struct record *rec = xcalloc(1, sizeof(*rec));

	rec->notify_fd = -1;
	rec->clk.fd = -1;
	rec->target.workload_pid = -1;
	rec->target.go_fd = rec->target.err_fd = -1;
	getrusage(RUSAGE_SELF, &rec->stats.ru_start);
	return rec;
}

int record_run(struct record *rec, const struct record_opts *opts,
	       const struct event_list *events, const struct record_hook *const *hooks,
	       int nr_hooks)
{
	sigset_t orig_mask;
	int ret = -1, err;

	rec->opts = *opts;
	rec->events = events;
	rec->hook_table = hooks;
	rec->nr_hook_table = nr_hooks;
	/*
	 * From here, SIGINT and SIGTERM wait for the drain loop, which stops cleanly: nothing is
	 * left half-made. As in perf, the workload starts with the default dispositions.
	 */
	setup_signals(&orig_mask);
	if (record_prepare(rec, &rec->kmaps))
		goto out;
	if (record_open_output(rec, true))
		goto out_abort;
	/* Kept for the files --switch-output starts and for --tail-synthesize only. */
	if (!rec->opts.switch_output && !rec->opts.tail_synthesize)
		pd_buf_release(&rec->kmaps);
	err = record_start(rec);
	if (err) {
		if (err > 0)
			ret = err;
		goto out_abort;
	}

	err = drain_loop(rec, &orig_mask);
	if (record_finish(rec, err))
		goto out_abort;

	run_hooks_finish(rec);
	return 0;

out_abort:
	if (rec->wt)
		wthread_stop(rec->wt);
	if (rec->w) {
		pd_writer_abort(rec->w);
		rec->w = NULL;
	}
out:
	if (rec->target.workload_pid > 0 && !rec->workload_exited)
		target_workload_kill(&rec->target);
	run_hooks_finish(rec);
	return ret;
}

int record_exit_status(const struct record *rec)
{
	if (rec->target.workload_pid > 0 && rec->workload_exited)
		return workload_exit_code(rec->workload_status);
	if (got_signal)
		return 128 + got_signal;
	return 0;
}

void record_free(struct record *rec)
{
	if (!rec)
		return;
	cleanup(rec);
	free(rec);
}
