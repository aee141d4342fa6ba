// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint overhead collector, for when BPF cannot be used: per CPU, the tracepoints
 * timer:hrtimer_expire_entry (filtered in the kernel on the handlers' addresses),
 * timer:hrtimer_expire_exit (unfiltered: its only field is the timer, whose address is not known
 * in advance) and nmi:nmi_handler (filtered on perf's NMI handler) are opened as one group that
 * writes into one small ring buffer, so the records of a CPU arrive in order. A thread drains the
 * buffers, pairs entries with exits of the same timer and adds up count and time per CPU.
 *
 * Every sampling interrupt then writes two records, which the program pays for and which land
 * partly between the two timestamps: the handler times measured this way are inflated
 * (overhead_calibrate_collector() measures by how much on the running machine).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

#include "overhead/collect-internal.h"
#include "util/perf-event.h"
#include "util/ring-buffer.h"

/*
 * 512 KiB per CPU. A sampling interrupt writes 96 bytes (entry and exit): that is 1.3 s of
 * records at 4 kHz, 0.1 s at 50 kHz; what overflows is counted in lost.
 */
#define TP_RING_PAGES 128
/* The drain thread wakes when a quarter is full, or every POLL_MS anyway. */
#define POLL_MS 200
/* A pair longer than this is not a handler run (a lost exit): dropped. */
#define MAX_PAIR_NS 100000000ULL

struct field {
	int off, size;
};

struct tp_cpu {
	struct collect_tp *tp;
	struct ring_buffer ring;
	int fd[3]; /* entry (leader and ring owner), exit, nmi; -1 when absent */
	bool pending;
	int pend_h;
	u64 pend_time, pend_timer;
	struct overhead_cpu_stats st;
};

struct collect_tp {
	struct overhead_collector *c;
	struct tp_cpu *cpu;
	int nr;
	int id_entry, id_exit, id_nmi; /* -1 when not opened */
	struct field entry_timer, entry_fn, exit_timer, nmi_handler, nmi_delta;
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_running;
	int wake_fd;
};

/* ---- formats, through libtraceevent */

static int find_field(struct tep_event *ev, const char *name, struct field *f)
{
	struct tep_format_field *ff = ev ? tep_find_field(ev, name) : NULL;

	if (!ff || (ff->size != 4 && ff->size != 8))
		return -ENOENT;
	f->off = ff->offset;
	f->size = ff->size;
	return 0;
}

/*
 * Only three formats are needed: parsing them one by one takes a millisecond, where
 * tracefs_local_events_system() also loads kallsyms into the handle and takes a quarter second.
 */
static struct tep_event *parse_format(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev = NULL;
	int size = 0;
	char *fmt;

	fmt = tracefs_event_file_read(NULL, sys, name, "format", &size);
	if (!fmt)
		return NULL;
	if (size <= 0 || tep_parse_format(tep, &ev, fmt, size, sys) != TEP_ERRNO__SUCCESS)
		ev = NULL;
	free(fmt);
	return ev;
}

static int load_formats(struct collect_tp *tp, char *why, size_t len)
{
	struct overhead_collector *c = tp->c;
	struct tep_event *entry, *exit, *nmi;
	struct tep_handle *tep;

	tp->id_entry = tp->id_exit = tp->id_nmi = -1;
	tep = tep_alloc();
	if (!tep)
		return -ENOMEM;
	entry = parse_format(tep, "timer", "hrtimer_expire_entry");
	exit = parse_format(tep, "timer", "hrtimer_expire_exit");
	nmi = parse_format(tep, "nmi", "nmi_handler");
	if (!entry && !exit && !nmi) {
		tep_free(tep);
		snprintf(why, len, "cannot read the tracepoint formats from tracefs (mount it at "
			 "/sys/kernel/tracing, and run as root)");
		return -ENOENT;
	}
	if (c->addr[OVERHEAD_HANDLER_SWEVENT] || c->addr[OVERHEAD_HANDLER_MUX]) {
		if (find_field(entry, "hrtimer", &tp->entry_timer) ||
		    find_field(entry, "function", &tp->entry_fn) ||
		    find_field(exit, "hrtimer", &tp->exit_timer)) {
			for (int h = 0; h < OVERHEAD_HANDLER_NR; h++)
				if (h != OVERHEAD_HANDLER_NMI && !c->handler_reason[h][0])
					snprintf(c->handler_reason[h], sizeof(c->handler_reason[h]),
						 "no timer:hrtimer_expire_entry/exit tracepoints "
						 "with the expected fields");
		} else {
			tp->id_entry = entry->id;
			tp->id_exit = exit->id;
		}
	}
	if (c->addr[OVERHEAD_HANDLER_NMI]) {
		if (find_field(nmi, "handler", &tp->nmi_handler) ||
		    find_field(nmi, "delta_ns", &tp->nmi_delta))
			snprintf(c->handler_reason[OVERHEAD_HANDLER_NMI],
				 sizeof(c->handler_reason[0]),
				 "no nmi:nmi_handler tracepoint with the expected fields");
		else
			tp->id_nmi = nmi->id;
	}
	tep_free(tep);
	if (tp->id_entry < 0 && tp->id_nmi < 0) {
		snprintf(why, len, "none of the handler tracepoints can be used");
		return -ENOENT;
	}
	return 0;
}

/* ---- records */

static u64 get_field(const u8 *raw, const struct field *f)
{
	if (f->size == 8) {
		u64 v;

		memcpy(&v, raw + f->off, 8);
		return v;
	} else {
		u32 v;

		memcpy(&v, raw + f->off, 4);
		return v;
	}
}

static void on_record(void *arg, const struct perf_event_header *h)
{
	struct tp_cpu *pc = arg;
	struct collect_tp *tp = pc->tp;
	const u64 *addr = tp->c->addr;
	const u8 *p = (const u8 *)(h + 1), *end = (const u8 *)h + h->size;
	u64 time, v;
	u32 rsize;
	u16 type;

	if (h->type == PERF_RECORD_LOST) {
		if (end - p >= 16) {
			memcpy(&v, p + 8, 8);
			pc->st.lost += v;
		}
		pc->pending = false;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || end - p < 12)
		return;
	/* sample_type TIME | RAW: u64 time, u32 size, the raw record. */
	memcpy(&time, p, 8);
	memcpy(&rsize, p + 8, 4);
	p += 12;
	if (rsize > (size_t)(end - p) || rsize < 2)
		return;
	memcpy(&type, p, 2);

	if (type == tp->id_entry) {
		if (tp->entry_fn.off + tp->entry_fn.size > (int)rsize ||
		    tp->entry_timer.off + tp->entry_timer.size > (int)rsize)
			return;
		v = get_field(p, &tp->entry_fn);
		if (v == addr[OVERHEAD_HANDLER_SWEVENT])
			pc->pend_h = OVERHEAD_HANDLER_SWEVENT;
		else if (v == addr[OVERHEAD_HANDLER_MUX])
			pc->pend_h = OVERHEAD_HANDLER_MUX;
		else
			return;
		pc->pending = true;
		pc->pend_time = time;
		pc->pend_timer = get_field(p, &tp->entry_timer);
	} else if (type == tp->id_exit) {
		if (!pc->pending || tp->exit_timer.off + tp->exit_timer.size > (int)rsize ||
		    get_field(p, &tp->exit_timer) != pc->pend_timer)
			return;
		pc->pending = false;
		if (time < pc->pend_time || time - pc->pend_time > MAX_PAIR_NS)
			return;
		pc->st.h[pc->pend_h].nr++;
		pc->st.h[pc->pend_h].ns += time - pc->pend_time;
	} else if (type == tp->id_nmi) {
		if (tp->nmi_handler.off + tp->nmi_handler.size > (int)rsize ||
		    tp->nmi_delta.off + tp->nmi_delta.size > (int)rsize ||
		    get_field(p, &tp->nmi_handler) != addr[OVERHEAD_HANDLER_NMI])
			return;
		v = get_field(p, &tp->nmi_delta);
		pc->st.h[OVERHEAD_HANDLER_NMI].nr++;
		if ((s64)v > 0)
			pc->st.h[OVERHEAD_HANDLER_NMI].ns += v;
	}
}

static void drain_all(struct collect_tp *tp)
{
	for (int i = 0; i < tp->nr; i++)
		ring_buffer_read(&tp->cpu[i].ring, on_record, &tp->cpu[i]);
}

static void *drain_thread(void *arg)
{
	struct collect_tp *tp = arg;
	struct pollfd *pfd;
	int i;

	pfd = calloc(tp->nr + 1, sizeof(*pfd));
	if (!pfd)
		return NULL;
	for (i = 0; i < tp->nr; i++) {
		pfd[i].fd = tp->cpu[i].fd[0];
		pfd[i].events = POLLIN;
	}
	pfd[tp->nr].fd = tp->wake_fd;
	pfd[tp->nr].events = POLLIN;
	for (;;) {
		if (poll(pfd, tp->nr + 1, POLL_MS) < 0 && errno != EINTR)
			break;
		if (pfd[tp->nr].revents)
			break;
		pthread_mutex_lock(&tp->lock);
		drain_all(tp);
		pthread_mutex_unlock(&tp->lock);
	}
	free(pfd);
	return NULL;
}

/* ---- opening */

static int open_event(struct collect_tp *tp, struct tp_cpu *pc, int slot, int id, int cpu,
		      const char *filter, char *why, size_t len)
{
	struct perf_event_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	/* The leader starts disabled and carries the others; only it owns the ring. */
	attr.disabled = slot == 0;
	attr.watermark = 1;
	attr.wakeup_watermark = TP_RING_PAGES * sysconf(_SC_PAGESIZE) / 4;
	fd = perf_event_open_fd(&attr, -1, cpu, slot ? pc->fd[0] : -1);
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			snprintf(why, len, "cannot open tracepoints on CPU %d: not permitted "
				 "(needs root or CAP_PERFMON)", cpu);
		else
			snprintf(why, len, "cannot open tracepoint %d on CPU %d: %s", id, cpu,
				 strerror(-fd));
		return fd;
	}
	pc->fd[slot] = fd;
	if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		err = -errno;
		snprintf(why, len, "the kernel refused the tracepoint filter '%s': %s", filter,
			 strerror(-err));
		return err;
	}
	/* The others can only write into a ring buffer that is mapped already. */
	if (!slot) {
		err = ring_buffer_mmap(&pc->ring, fd, -1, TP_RING_PAGES);
		if (err)
			snprintf(why, len, "cannot map a ring buffer on CPU %d: %s", cpu,
				 strerror(-err));
		return err;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, pc->fd[0])) {
		err = -errno;
		snprintf(why, len, "cannot share the ring buffer on CPU %d: %s", cpu,
			 strerror(-err));
		return err;
	}
	return 0;
}

static int open_cpu(struct collect_tp *tp, struct tp_cpu *pc, int cpu, char *why, size_t len)
{
	const u64 *addr = tp->c->addr;
	char filter[128];
	int slot = 0, err;

	if (tp->id_entry >= 0) {
		if (addr[OVERHEAD_HANDLER_SWEVENT] && addr[OVERHEAD_HANDLER_MUX])
			snprintf(filter, sizeof(filter), "function == 0x%llx || function == 0x%llx",
				 (unsigned long long)addr[OVERHEAD_HANDLER_SWEVENT],
				 (unsigned long long)addr[OVERHEAD_HANDLER_MUX]);
		else
			snprintf(filter, sizeof(filter), "function == 0x%llx",
				 (unsigned long long)(addr[OVERHEAD_HANDLER_SWEVENT] |
						      addr[OVERHEAD_HANDLER_MUX]));
		err = open_event(tp, pc, slot++, tp->id_entry, cpu, filter, why, len);
		if (!err)
			err = open_event(tp, pc, slot++, tp->id_exit, cpu, NULL, why, len);
		if (err)
			return err;
	}
	if (tp->id_nmi >= 0) {
		snprintf(filter, sizeof(filter), "handler == 0x%llx",
			 (unsigned long long)addr[OVERHEAD_HANDLER_NMI]);
		/* Without the hrtimer events the NMI event leads: slot 0 leads either way. */
		err = open_event(tp, pc, slot, tp->id_nmi, cpu, filter, why, len);
		if (err)
			return err;
	}
	return 0;
}

int collect_tp_open(struct overhead_collector *c, char *why, size_t len)
{
	struct collect_tp *tp;
	int i, err;

	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	tp->c = c;
	tp->wake_fd = -1;
	pthread_mutex_init(&tp->lock, NULL);
	c->tp = tp;
	err = load_formats(tp, why, len);
	if (err)
		goto fail;
	tp->cpu = calloc(c->nr_cpus, sizeof(*tp->cpu));
	if (!tp->cpu) {
		err = -ENOMEM;
		goto fail;
	}
	tp->nr = c->nr_cpus;
	for (i = 0; i < tp->nr; i++) {
		tp->cpu[i].tp = tp;
		tp->cpu[i].fd[0] = tp->cpu[i].fd[1] = tp->cpu[i].fd[2] = -1;
	}
	for (i = 0; i < tp->nr; i++) {
		err = open_cpu(tp, &tp->cpu[i], c->cpus[i], why, len);
		if (err)
			goto fail;
	}
	tp->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (tp->wake_fd < 0) {
		err = -errno;
		snprintf(why, len, "eventfd: %s", strerror(-err));
		goto fail;
	}
	return 0;
fail:
	collect_tp_close(c);
	return err;
}

int collect_tp_start(struct overhead_collector *c)
{
	struct collect_tp *tp = c->tp;
	int i, err;

	for (i = 0; i < tp->nr; i++)
		tp->cpu[i].pending = false;
	err = pthread_create(&tp->thread, NULL, drain_thread, tp);
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "cannot start the drain thread: %s",
			 strerror(err));
		return -err;
	}
	tp->thread_running = true;
	for (i = 0; i < tp->nr; i++) {
		if (ioctl(tp->cpu[i].fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP)) {
			err = -errno;
			snprintf(c->reason, sizeof(c->reason), "cannot enable the tracepoints on "
				 "CPU %d: %s", c->cpus[i], strerror(-err));
			collect_tp_stop(c);
			return err;
		}
	}
	return 0;
}

int collect_tp_stop(struct overhead_collector *c)
{
	struct collect_tp *tp = c->tp;
	u64 one = 1;
	int i;

	for (i = 0; i < tp->nr; i++)
		if (tp->cpu[i].fd[0] >= 0)
			ioctl(tp->cpu[i].fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (tp->thread_running) {
		if (write(tp->wake_fd, &one, sizeof(one)) != sizeof(one))
			pthread_cancel(tp->thread);
		pthread_join(tp->thread, NULL);
		tp->thread_running = false;
		/* The thread read the eventfd's count away or not: reset it for the next start. */
		while (read(tp->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
	}
	pthread_mutex_lock(&tp->lock);
	drain_all(tp);
	pthread_mutex_unlock(&tp->lock);
	return 0;
}

int collect_tp_read(struct overhead_collector *c, struct overhead_cpu_stats *st)
{
	struct collect_tp *tp = c->tp;
	int i;

	pthread_mutex_lock(&tp->lock);
	drain_all(tp);
	for (i = 0; i < tp->nr; i++) {
		memcpy(st[i].h, tp->cpu[i].st.h, sizeof(st[i].h));
		st[i].lost = tp->cpu[i].st.lost;
	}
	pthread_mutex_unlock(&tp->lock);
	return 0;
}

void collect_tp_close(struct overhead_collector *c)
{
	struct collect_tp *tp = c->tp;
	int i, s;

	if (!tp)
		return;
	if (tp->thread_running)
		collect_tp_stop(c);
	for (i = 0; tp->cpu && i < tp->nr; i++) {
		ring_buffer_unmap(&tp->cpu[i].ring);
		for (s = 2; s >= 0; s--)
			if (tp->cpu[i].fd[s] >= 0)
				close(tp->cpu[i].fd[s]);
	}
	if (tp->wake_fd >= 0)
		close(tp->wake_fd);
	pthread_mutex_destroy(&tp->lock);
	free(tp->cpu);
	free(tp);
	c->tp = NULL;
}
