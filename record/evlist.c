// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the events of a recording. The attrs follow what perf record 6.1 writes for the same
 * options (checked with `perf evlist -v` on its files):
 *
 *	sample_type	IP|TID|TIME, PERIOD in frequency mode, with -P and with an alternating
 *			period (hf-period=: each sample says which window it closes), CPU for -a/-C,
 *			--sample-cpu and tracepoints, RAW|PERIOD for tracepoints and bpf-output,
 *			CALLCHAIN for -g, ADDR|DATA_SRC for -d, READ for the leader and members
 *			of a :S group and READ|ID for an event with S outside a group, and
 *			IDENTIFIER when the file has more than one attr (perf-data-compat.md
 *			pitfall 4)
 *	read_format	ID|LOST (GROUP with a :S group)
 *	period		-c, or freq with -F (default 4000 Hz); tracepoints, breakpoints and
 *			bpf-output keep the parser's period of 1 unless -c/-F is given; terms
 *			(period=, freq=) win over both. hf-period= / hf-rand= (alt-period= /
 *			alt-period-jitter=) go to the kernel only, in the extended attr of the
 *			alternating-period patches (util/perf-event.h). One
 *			departure from perf: cpu-clock and task-clock get the fixed period the
 *			kernel makes of their frequency, without PERIOD unless they alternate it
 *			(hrtimer_period())
 *	flags		disabled on leaders, enable_on_exec for a workload, inherit unless
 *			--no-inherit, -t or :S; the first event tracks mmap, mmap2, comm,
 *			comm_exec, task, ksymbol, bpf_event (and mmap_data with -d,
 *			context_switch with --switch-events); sample_id_all; use_clockid with -k
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/evlist.h"
#include "record/hook.h"
#include "record/target.h"
#include "util/fs.h"
#include "util/event-names.h"
#include "util/log.h"
#include "util/perf-event.h"
#include "util/xalloc.h"

#define NSEC_PER_SEC 1000000000ULL

/*
 * The alternating period (util/perf-event.h): whether the kernel has the field, probed once per
 * process (0: not yet, 1: it has, -1: it has not, kernel_attr_size then says what it takes;
 * HF_OTHER: another field sits where the series puts it).
 */
static int hf_kernel;
static u32 kernel_attr_size;

static int syscall_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* What opens events and probes: the system call, or a test's kernel. */
static evlist_open_fn open_fn = syscall_open;

void evlist_set_open_fn(evlist_open_fn fn)
{
	open_fn = fn ? fn : syscall_open;
	hf_kernel = 0;
	kernel_attr_size = 0;
}

/* The second period the event's terms ask for (alt-period= or hf-period=), or 0. */
static u64 hf_period(const struct evsel *ev)
{
	if (!ev->spec)
		return 0;
	if (ev->spec->has_hf_period)
		return ev->spec->hf_period;
	return ev->spec->has_alt_period ? ev->spec->alt_period : 0;
}

/*
 * The jitter's exponent the kernel gets: hf-rand= as given, or alt-period-jitter=J of the older
 * series, whose jitter was 2 << J wide (J = 0: none), the width hf_sample_rand = J + 1 gives.
 */
static u64 hf_rand(const struct evsel *ev)
{
	if (!ev->spec)
		return 0;
	if (ev->spec->has_hf_rand)
		return ev->spec->hf_rand;
	return ev->spec->has_alt_jitter && ev->spec->alt_jitter ? ev->spec->alt_jitter + 1 : 0;
}

u32 evsel_hf(const struct evsel *ev, u32 *rand)
{
	u64 hf = hf_period(ev);

	/* out of range, evlist_check_hf() refuses to open it */
	if (!hf || hf > UINT32_MAX || hf_rand(ev) > PERF_ATTR_HF_RAND_MAX) {
		*rand = 0;
		return 0;
	}
	*rand = (u32)hf_rand(ev);
	return (u32)hf;
}

static bool wants_hf(const struct evsel *ev)
{
	return !ev->synthetic && ev->spec &&
	       (ev->spec->has_hf_period || ev->spec->has_alt_period || ev->spec->has_hf_rand ||
		ev->spec->has_alt_jitter);
}

static const char *hf_period_term(const struct evsel *ev)
{
	return ev->spec->has_hf_period ? "hf-period" : "alt-period";
}

/* The kernel has no hf_sample field: it said which attr size it takes. */
static int no_hf_kernel(const struct evsel *ev)
{
	return error("cannot open '%s': %s= needs a kernel with the alternating-period patches (a "
		     "%d-byte perf_event_attr); this one takes %u bytes",
		     ev->name, hf_period_term(ev), PERF_ATTR_HF_SIZE, kernel_attr_size);
}

/*
 * perf_event_open() of ev; with an alternating period the attr grows to carry it (the file keeps
 * the short attr: perf 6.1 reads no larger one).
 */
static int open_event(const struct evsel *ev, pid_t pid, int cpu, int group_fd)
{
	union {
		struct perf_event_attr attr;
		u8 bytes[PERF_ATTR_HF_SIZE];
	} x;
	u64 hf = hf_period(ev);
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	int fd;

	/* -G: the cgroup's directory stands for the pid (the events are per CPU then) */
	if (ev->cgroup_fd >= 0) {
		pid = ev->cgroup_fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	if (!hf)
		return open_fn((struct perf_event_attr *)&ev->attr, pid, cpu, group_fd, flags);
	/* evlist_check_hf() has checked the ranges */
	if (perf_attr_hf_build(&ev->attr, (u32)hf, (u32)hf_rand(ev), x.bytes)) {
		errno = EINVAL;
		return -1;
	}
	fd = open_fn(&x.attr, pid, cpu, group_fd, flags);
	if (fd < 0 && errno == E2BIG)
		kernel_attr_size = x.attr.size;
	return fd;
}

/* The attr of a probe of the kernel: a disabled software event of user space, on ourselves. */
static void probe_attr(struct perf_event_attr *a, u64 config)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = PD_ATTR_SIZE;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/*
 * One probe of the kernel: a disabled cpu-clock on ourselves, period 1000000, with a 144-byte
 * attr whose hf_sample_period is hf. Return: 0 when it opened, else the errno.
 */
static int hf_probe_one(u32 hf)
{
	struct perf_event_attr a;
	union {
		struct perf_event_attr attr;
		u8 bytes[PERF_ATTR_HF_SIZE];
	} x;
	int fd;

	probe_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_period = 1000000;
	perf_attr_hf_build(&a, hf, 0, x.bytes);
	fd = open_fn(&x.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == E2BIG)
		kernel_attr_size = x.attr.size;
	return errno;
}

/*
 * Does the kernel have the hf_sample field? The kernel copies the attr before it looks at
 * anything else and refuses non-zero bytes it does not know with E2BIG: a first probe with
 * hf_sample_period below the period tells a kernel whose attr ends before byte 136. But another
 * series may give the 144-byte attr another field there (config4, which cpu-clock ignores), so a
 * second probe sets hf_sample_period above the period, which only the hf-period series refuses
 * (EINVAL). A refusal of the first for another reason, or of the second for want of permission,
 * leaves the real open to say what it thinks of each event.
 * Return: 1 when it has the field, HF_NONE without a field there, HF_OTHER with another one.
 */
#define HF_NONE (-1)
#define HF_OTHER (-2)
static int hf_probe(void)
{
	int err;

	if (hf_kernel)
		return hf_kernel;
	err = hf_probe_one(1000);
	if (err == E2BIG) {
		hf_kernel = HF_NONE;
		return hf_kernel;
	}
	hf_kernel = 1;
	if (err) {
		debug(1, "the hf_sample probe: %s (the field is there)", strerror(err));
		return hf_kernel;
	}
	err = hf_probe_one(2000000);
	if (!err)
		hf_kernel = HF_OTHER;
	else if (err != EINVAL)
		debug(1, "the second hf_sample probe: %s (taken as the field)", strerror(err));
	return hf_kernel;
}

static struct evsel *evlist_new(struct evlist *evl)
{
	struct evsel *ev;

	evl->ev = xrealloc(evl->ev, (evl->nr + 1) * sizeof(*evl->ev));
	ev = &evl->ev[evl->nr++];
	memset(ev, 0, sizeof(*ev));
	ev->leader = -1;
	ev->cgroup_fd = -1;
	return ev;
}

void evlist_add_events(struct evlist *evl, const struct event_list *list)
{
	int base = evl->nr;

	for (int i = 0; i < list->nr; i++) {
		const struct event_spec *s = &list->ev[i];
		struct evsel *ev = evlist_new(evl);

		ev->attr = s->attr;
		ev->name = xstrdup(s->name ? s->name : "unknown");
		ev->spec = s;
		ev->filter = s->filter;
		if (s->leader >= 0) {
			ev->leader = base + s->leader;
			ev->group_size = s->leader == i ? s->group_size : 0;
			/* A group of one is no group (perf: "{cycles}" is plain cycles). */
			if (s->leader == i && s->group_size <= 1)
				ev->leader = -1;
		}
		/*
		 * S on a leader reads its group; on an event outside any group (cpu-clock:S) it
		 * reads the event itself, as perf does.
		 */
		ev->sample_read = s->sample_read && (s->leader == i || s->leader < 0);
	}
	/* Members of a leader that is no group any more. */
	for (int i = base; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->leader >= 0 && ev->leader != i && evl->ev[ev->leader].leader < 0)
			ev->leader = -1;
	}
}

void evlist_add_default(struct evlist *evl)
{
	struct evsel *ev = evlist_new(evl);

	ev->attr.type = PERF_TYPE_HARDWARE;
	ev->attr.config = PERF_COUNT_HW_CPU_CYCLES;
	/* As perf's default event: guest samples are not wanted (no :HG in its name). */
	ev->attr.exclude_guest = 1;
	ev->name = xstrdup("cycles");
	ev->is_default = true;
}

int evlist_add_synthetic(struct evlist *evl, const struct perf_event_attr *attr, const char *name)
{
	struct evsel *ev = evlist_new(evl);

	ev->attr = *attr;
	ev->name = xstrdup(name ? name : "unknown");
	ev->synthetic = true;
	return evl->nr - 1;
}

static bool is_bpf_output(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT;
}

/* The period the parser gave the event when no term asked for one (0: none). */
static u64 weak_period(const struct evsel *ev)
{
	if (!ev->spec || ev->spec->has_period || ev->spec->has_freq || ev->spec->attr.freq)
		return 0;
	return ev->spec->attr.sample_period;
}

/*
 * cpu-clock and task-clock run on an hrtimer, and the kernel turns their frequency into the fixed
 * period NSEC_PER_SEC / freq when it creates them (perf_swevent_init_hrtimer()): then every
 * sample carries that same PERIOD. Asked for that period, the kernel takes the same samples, 8
 * bytes smaller, and perf gives each the attr's sample_period: perf report and perf script print
 * the same (-P keeps the field). A frequency above the kernel's limit, or with the limit
 * unknown, stays one, for the kernel to refuse as it refuses perf's. So does one in pipe mode,
 * which has no facts section to say that a frequency was asked (the overhead report would take
 * it for a fixed period).
 */
static void hrtimer_period(struct evsel *ev, u64 max_rate)
{
	struct perf_event_attr *a = &ev->attr;
	u64 freq = a->sample_freq;

	if (!ev->fix_hrtimer || !a->freq || !perf_attr_is_hrtimer(a) || !freq || freq > NSEC_PER_SEC ||
	    (max_rate && freq > max_rate))
		return;
	ev->hrtimer_freq = freq;
	a->freq = 0;
	a->sample_period = NSEC_PER_SEC / freq;
	if (!ev->keep_period && !hf_period(ev))
		a->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
}

static bool in_group(const struct evsel *ev)
{
	return ev->leader >= 0;
}

static bool is_member(const struct evlist *evl, int i)
{
	return evl->ev[i].leader >= 0 && evl->ev[i].leader != i;
}

/* --group: the -e events, however many groups they were in, become one group. */
static void force_group(struct evlist *evl)
{
	int leader = -1, nr = 0;

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->synthetic || !ev->spec)
			continue;
		if (leader < 0)
			leader = i;
		ev->leader = leader;
		ev->group_size = 0;
		nr++;
	}
	if (nr > 1)
		evl->ev[leader].group_size = nr;
	else if (leader >= 0)
		evl->ev[leader].leader = -1;
}

/* The attr options of perf record that apply to every event, as evsel__config() sets them. */
static void config_attr_opts(struct evsel *ev, const struct record_attr_opts *ao, bool track)
{
	struct perf_event_attr *a = &ev->attr;

	if (ao->no_samples)
		a->sample_period = 0;
	if (ao->intr_regs) {
		a->sample_regs_intr = ao->intr_regs;
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
	}
	if (ao->user_regs) {
		a->sample_regs_user |= ao->user_regs;
		a->sample_type |= PERF_SAMPLE_REGS_USER;
	}
	if (ao->raw_samples)
		a->sample_type |= PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (ao->phys_data)
		a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (ao->branch_stack) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = ao->branch_stack;
	}
	if (ao->weight) {
#if defined(__x86_64__) || defined(__i386__)
		/* x86 samples the weight as a struct (arch_evsel__set_sample_weight()) */
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
#else
		a->sample_type |= PERF_SAMPLE_WEIGHT;
#endif
	}
	if (ao->namespaces)
		a->namespaces = track;
	if (ao->all_cgroups) {
		a->cgroup = track;
		a->sample_type |= PERF_SAMPLE_CGROUP;
	}
	if (ao->data_page_size)
		a->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (ao->code_page_size)
		a->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (ao->running_time)
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (ao->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	}
	if (ao->all_kernel) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
}

/*
 * A call graph on ev as perf's evsel__config_callchain() sets it: the kernel's callchain, and for
 * dwarf the user registers and stack an unwinder needs in place of the user part; lbr asks the
 * PMU for call-stack branch records unless the event cannot have them. Then what
 * --kernel-callchains / --user-callchains keep.
 */
static void config_callchain(struct evsel *ev, const struct record_opts *opts, int mode,
			     unsigned max_stack, u32 stack_size)
{
	const struct record_attr_opts *ao = opts->attr;
	struct perf_event_attr *a = &ev->attr;

	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->sample_max_stack = max_stack;
	if (mode == RECORD_CALLGRAPH_LBR && ao && ao->branch_stack) {
		warning("Cannot use LBR callstack with branch stack. "
			"Falling back to framepointers.");
	} else if (mode == RECORD_CALLGRAPH_LBR && a->exclude_user) {
		warning("LBR callstack option is only available to get user callchain information. "
			"Falling back to framepointers.");
	} else if (mode == RECORD_CALLGRAPH_LBR) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES |
					PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_HW_INDEX;
	} else if (mode == RECORD_CALLGRAPH_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user |= opts->dwarf_regs;
		a->sample_stack_user = stack_size;
		a->exclude_callchain_user = 1;
	}
	if (ao && ao->kernel_callchains)
		a->exclude_callchain_user = 1;
	if (ao && ao->user_callchains)
		a->exclude_callchain_kernel = 1;
}

/*
 * The event's config terms over the command's options, as perf's evsel__apply_config_terms():
 * call-graph=, max-stack= and stack-size= replace -g for this event (max-stack= alone means fp;
 * stack-size= alone, a dwarf setting, just drops -g here; with call-graph=dwarf it sizes the
 * stack copy).
 */
static void apply_terms(struct evsel *ev, const struct record_opts *opts)
{
	const struct event_terms *c = &ev->spec->terms;
	struct perf_event_attr *a = &ev->attr;

	if (c->time_set) {
		if (c->time)
			a->sample_type |= PERF_SAMPLE_TIME;
		else
			a->sample_type &= ~(u64)PERF_SAMPLE_TIME;
	}
	if (c->inherit_set)
		a->inherit = c->inherit;
	if (c->aux_output)
		a->aux_output = 1;
	if (c->branch_set) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = c->branch_sample_type;
	}
	if (c->callgraph_set || c->stack_size_set || c->max_stack) {
		bool enabled = c->callgraph_set ? c->callgraph : c->max_stack > 0;

		/*
		 * perf's evsel__reset_callgraph(): the bits of the command's mode go, its fields
		 * (sample_regs_user, sample_stack_user, exclude_callchain_user) stay.
		 */
		if (opts->callgraph) {
			a->sample_type &= ~(u64)PERF_SAMPLE_CALLCHAIN;
			if (opts->callgraph_mode == RECORD_CALLGRAPH_DWARF)
				a->sample_type &= ~(u64)(PERF_SAMPLE_REGS_USER |
							 PERF_SAMPLE_STACK_USER);
			if (opts->callgraph_mode == RECORD_CALLGRAPH_LBR) {
				a->sample_type &= ~(u64)PERF_SAMPLE_BRANCH_STACK;
				a->branch_sample_type &= ~(u64)(PERF_SAMPLE_BRANCH_USER |
								PERF_SAMPLE_BRANCH_CALL_STACK |
								PERF_SAMPLE_BRANCH_HW_INDEX);
			}
		}
		if (enabled && c->callgraph_set && c->callgraph_mode == RECORD_CALLGRAPH_DWARF) {
			/* as the command's dwarf: data addresses, mapped on the tracking event */
			a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
			a->mmap_data = a->mmap;
		}
		if (enabled)
			config_callchain(ev, opts,
					 c->callgraph_set ? c->callgraph_mode : RECORD_CALLGRAPH_FP,
					 c->max_stack,
					 c->stack_size_set ? c->stack_size :
							     RECORD_DWARF_STACK_SIZE);
	}
}

/* The tracking event: side-band comes from it alone. */
static void config_tracking(struct perf_event_attr *a, const struct record_opts *opts)
{
	a->mmap = 1;
	a->mmap2 = 1;
	a->build_id = opts->buildid_mmap;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->ksymbol = 1;
	a->bpf_event = 1;
	a->mmap_data = opts->sample_addr;
	a->context_switch = opts->switch_events;
}

/*
 * -G: the -e events count in their cgroups only, and so would their side-band: a dummy:HG event
 * outside any cgroup tracks every task instead, enabled from the start, as perf adds it.
 * Return: whether there are cgroups (the dummy makes the file a multi-event one).
 */
static bool add_cgroups(struct evlist *evl, const struct record_opts *opts)
{
	struct evsel *ev;
	bool any = false;

	for (int i = 0; i < opts->nr_cgroup_fds && i < evl->nr; i++) {
		if (evl->ev[i].synthetic || opts->cgroup_fds[i] < 0)
			continue;
		evl->ev[i].cgroup_fd = opts->cgroup_fds[i];
		any = true;
	}
	if (!any)
		return false;
	ev = evlist_new(evl);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_DUMMY;
	ev->name = xstrdup("dummy:HG");
	ev->is_tracking_dummy = true;
	return true;
}

static void config_dummy(struct evsel *ev, const struct record_opts *opts, bool cpu_target,
			 bool several)
{
	struct perf_event_attr *a = &ev->attr;

	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (cpu_target || opts->sample_cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (several)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	/* perf gives -c to every event, its dummy too; -F leaves the dummy's period of 1 */
	a->sample_period = opts->period_set ? opts->period : 1;
	a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->inherit = !opts->no_inherit;
	if (opts->use_clockid) {
		a->use_clockid = 1;
		a->clockid = opts->clockid;
	}
	config_tracking(a, opts);
	if (opts->attr && opts->attr->namespaces)
		a->namespaces = 1;
	if (opts->attr && opts->attr->all_cgroups) {
		a->cgroup = 1;
		a->sample_type |= PERF_SAMPLE_CGROUP;
	}
}

void evlist_config(struct evlist *evl, const struct record_opts *opts, const struct target *t)
{
	const struct record_attr_opts *ao = opts->attr;
	bool several = evl->nr > 1 || (ao && ao->sample_identifier);
	bool cpu_target = t->system_wide || t->cpu_list;
	int first = -1;
	u64 max_rate = 0;

	read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate);
	if (ao && ao->group)
		force_group(evl);
	if (add_cgroups(evl, opts))
		several = true;

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];
		struct perf_event_attr *a = &ev->attr;
		bool tp = a->type == PERF_TYPE_TRACEPOINT;
		const struct evsel *leader = in_group(ev) ? &evl->ev[ev->leader] : NULL;
		bool no_sampling = leader && leader != ev && leader->sample_read;

		a->size = PD_ATTR_SIZE;
		a->sample_id_all = 1;
		if (ev->synthetic) {
			a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
			a->read_format |= PERF_FORMAT_ID;
			if (several)
				a->sample_type |= PERF_SAMPLE_IDENTIFIER;
			a->sample_type &= ~(u64)PERF_SAMPLE_ID;
			if (opts->use_clockid) {
				a->use_clockid = 1;
				a->clockid = opts->clockid;
			}
			continue;
		}
		if (ev->is_tracking_dummy) {
			config_dummy(ev, opts, cpu_target, several);
			continue;
		}
		if (first < 0)
			first = i;

		a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		/* perf's evsel__new_idx() gives bpf-output the sample layout of a tracepoint. */
		if (tp || is_bpf_output(a))
			a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

		/*
		 * Period or frequency: a term wins, then -c or -F; without them the period the
		 * parser gave (1 for tracepoints, breakpoints and bpf-output: a weak default, as
		 * in perf's evsel__config()), else the default frequency.
		 */
		if (no_sampling) {
			a->sample_period = 0;
			a->freq = 0;
		} else if (ev->spec && (ev->spec->has_period || ev->spec->has_freq)) {
			/* as the term set it */
		} else if ((tp || weak_period(ev)) && !opts->freq_set && !opts->period_set) {
			a->sample_period = weak_period(ev) ? weak_period(ev) : 1;
			a->freq = 0;
		} else if (opts->period_set) {
			a->sample_period = opts->period;
			a->freq = 0;
		} else {
			a->freq = 1;
			a->sample_freq = opts->freq;
		}
		ev->keep_period = opts->sample_period;
		ev->fix_hrtimer = !opts->pipe && max_rate;
		/* an alternating period's samples say which window they close */
		if (a->freq || opts->sample_period || hf_period(ev))
			a->sample_type |= PERF_SAMPLE_PERIOD;
		hrtimer_period(ev, max_rate);

		a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_LOST;
		if (leader && leader->sample_read) {
			a->sample_type |= PERF_SAMPLE_READ;
			a->read_format |= PERF_FORMAT_GROUP;
		} else if (!leader && ev->sample_read) {
			/*
			 * cpu-clock:S alone: READ of the event itself, and the id in every sample
			 * even in a one-event file, since the value read belongs to an id
			 * (perf: evsel__set_sample_id() for sample_read). With several events
			 * IDENTIFIER, below, replaces ID.
			 */
			a->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		}
		if (opts->callgraph)
			config_callchain(ev, opts, opts->callgraph_mode, opts->max_stack,
					 opts->stack_dump_size);
		if (opts->sample_addr)
			a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		if (cpu_target || opts->sample_cpu)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (several) {
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
			a->sample_type &= ~(u64)PERF_SAMPLE_ID;
		}

		a->inherit = !(opts->no_inherit || opts->tid_list || (leader && leader->sample_read));
		if (!is_member(evl, i)) {
			a->disabled = 1;
			a->enable_on_exec = t->workload_target;
		} else {
			a->disabled = 0;
			a->enable_on_exec = 0;
		}
		if (opts->use_clockid) {
			a->use_clockid = 1;
			a->clockid = opts->clockid;
		}
		/* The kernel's default: wake the reader when half of the buffer is full. */
		a->watermark = 0;
		a->wakeup_events = 0;

		if (i == first && !opts->nr_cgroup_fds)
			config_tracking(a, opts);
		if (ao)
			config_attr_opts(ev, ao, i == first && !opts->nr_cgroup_fds);
		if (ev->spec)
			apply_terms(ev, opts);
	}
}

void evlist_exclude_kernel(struct evlist *evl)
{
	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];
		const char *colon;
		char *n;

		if (ev->synthetic || ev->attr.exclude_kernel)
			continue;
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		if (ev->attr.type == PERF_TYPE_TRACEPOINT)
			continue;
		/* As perf's fallback renames it: cpu-clock -> cpu-clock:u, x:p -> x:pu. */
		colon = strrchr(ev->name, ':');
		if (colon && strspn(colon + 1, "ukhGHpPSDIWe") == strlen(colon + 1))
			n = xasprintf("%s%s", ev->name, strchr(colon, 'u') ? "" : "u");
		else
			n = xasprintf("%s:u", ev->name);
		free(ev->name);
		ev->name = n;
	}
}

bool evlist_all_exclude_kernel(const struct evlist *evl)
{
	for (int i = 0; i < evl->nr; i++)
		if (!evl->ev[i].synthetic && !evl->ev[i].attr.exclude_kernel)
			return false;
	return true;
}

bool evlist_has_tracepoint(const struct evlist *evl)
{
	for (int i = 0; i < evl->nr; i++)
		if (!evl->ev[i].synthetic && evl->ev[i].attr.type == PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

/* Does the running kernel know PERF_FORMAT_LOST (6.0)? Probe once on ourselves. */
static bool kernel_has_format_lost(void)
{
	struct perf_event_attr a;
	int fd;

	probe_attr(&a, PERF_COUNT_SW_DUMMY);
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != EINVAL;
}

static bool have_hardware_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK) ||
	       !access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK);
}

/* Explain a failed perf_event_open in one line, as perf's evsel__open_strerror does. */
static int open_error(const struct evsel *ev, const struct target *t, int cpu, pid_t pid, int err)
{
	int paranoid = 2;

	if (hf_period(ev) && (err == E2BIG || err == EINVAL || err == EOPNOTSUPP)) {
		const char *term = hf_period_term(ev);

		if (err == E2BIG)
			return no_hf_kernel(ev);
		return error("cannot open '%s' on CPU %d: the kernel refused %s=%llu with these "
			     "attributes (%s)",
			     ev->name, cpu, term, (unsigned long long)hf_period(ev), strerror(err));
	}
	/* perf's evsel__open_strerror() words for what this machine's kernel refuses */
	if ((err == EOPNOTSUPP || err == EINVAL) && ev->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return error("%s: PMU Hardware or event type doesn't support branch stack sampling.",
			     ev->name);
	if (ev->attr.aux_output)
		return error("%s: PMU Hardware doesn't support 'aux_output' feature", ev->name);
	switch (err) {
	case EACCES:
	case EPERM:
		read_sysctl_int("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		return error("no permission to open '%s' (kernel.perf_event_paranoid is %d): run as "
			     "root, give CAP_PERFMON, or lower it with sysctl "
			     "kernel.perf_event_paranoid=%d",
			     ev->name, paranoid, t->system_wide ? -1 : 1);
	case EMFILE:
	case ENFILE:
		return error("too many open files opening '%s' (%d CPUs x %d threads): raise the "
			     "limit with ulimit -n",
			     ev->name, t->nr_cpus, t->nr_threads);
	case ESRCH:
		return error("cannot open '%s': process %d is gone", ev->name, pid);
	case ENODEV:
	case ENOENT:
	case EOPNOTSUPP:
		if (ev->spec && ev->spec->hardware && !have_hardware_pmu())
			return error("The %s event is not supported.", ev->name);
		if (ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN && err == EOPNOTSUPP)
			return error("cannot open '%s' with call graphs: %s", ev->name,
				     strerror(err));
		if (ev->attr.precise_ip)
			return error("cannot open '%s': precise_ip %u is not supported here (drop "
				     "the p modifiers)",
				     ev->name, ev->attr.precise_ip);
		return error("cannot open '%s': the kernel does not support it here (%s)",
			     ev->name, strerror(err));
	case EINVAL:
		if (ev->attr.freq) {
			int max = 0;

			read_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", &max);
			if (max && ev->attr.sample_freq > (u64)max)
				return error("cannot open '%s': -F %llu is above the kernel's limit "
					     "(kernel.perf_event_max_sample_rate = %d)",
					     ev->name, (unsigned long long)ev->attr.sample_freq,
					     max);
		}
		if (ev->attr.use_clockid)
			return error("cannot open '%s': the kernel refuses clock %d for events (-k)",
				     ev->name, ev->attr.clockid);
		return error("cannot open '%s' on CPU %d: Invalid argument (the kernel refused its "
			     "attributes; -v shows them)",
			     ev->name, cpu);
	default:
		return error("cannot open '%s' on CPU %d: %s", ev->name, cpu, strerror(err));
	}
}

static void debug_attr(const struct evsel *ev)
{
	const struct perf_event_attr *a = &ev->attr;

	debug(1, "event %s: type %u config %#llx %s %llu sample_type %#llx read_format %#llx "
		 "inherit %u exclude_kernel %u hf_period %llu",
	      ev->name, a->type, (unsigned long long)a->config, a->freq ? "freq" : "period",
	      (unsigned long long)a->sample_period, (unsigned long long)a->sample_type,
	      (unsigned long long)a->read_format, a->inherit, a->exclude_kernel,
	      (unsigned long long)hf_period(ev));
}

/*
 * cycles is not there: sample cpu-clock with the same modifiers, as perf's evsel__fallback()
 * does for the default event and for -e cycles alike. Like perf, the event is then named after
 * its new attr (cycles:u becomes cpu-clock:uH), and only -v says so.
 */
static bool fallback_cycles(struct evsel *ev, int err)
{
	char name[128];

	if (ev->attr.type != PERF_TYPE_HARDWARE || ev->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	if (err != ENOENT && err != ENODEV && err != ENXIO && err != EOPNOTSUPP)
		return false;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	free(ev->name);
	if (ev->is_default) {
		ev->name = xstrdup(ev->attr.exclude_kernel ? "cpu-clock:u" : "cpu-clock");
	} else {
		event_attr_name(&ev->attr, name, sizeof(name));
		ev->name = xstrdup(name);
	}
	hrtimer_period(ev, 0);
	debug(1, "Warning:\nThe cycles event is not supported, trying to fall back to "
		 "cpu-clock-ticks");
	return true;
}

/*
 * Kernels before 6.12 refuse PERF_SAMPLE_READ with inherit (cpu-clock:S on a command): count the
 * task alone then, as perf does when it finds that feature missing.
 */
static bool fallback_inherit_read(struct evsel *ev, int err)
{
	if (err != EINVAL || !ev->attr.inherit || !(ev->attr.sample_type & PERF_SAMPLE_READ))
		return false;
	ev->attr.inherit = 0;
	debug(1, "%s: the kernel refuses PERF_SAMPLE_READ with inherit: not inherited", ev->name);
	return true;
}

/*
 * The kernel re-arms the hrtimer of cpu-clock and task-clock after at least this many ns
 * (perf_swevent_hrtimer()), whatever their period: a shorter window is this long.
 */
#define HRTIMER_MIN_NS 10000ULL

/* The hf terms of one event: one value each, in range, and a period the kernel alternates. */
static int check_hf_terms(const struct evsel *ev)
{
	const struct event_spec *s = ev->spec;
	const char *rand_term = s->has_hf_rand ? "hf-rand" : "alt-period-jitter";
	u64 rand_given = s->has_hf_rand ? s->hf_rand : s->alt_jitter;
	u64 hf = hf_period(ev), rand = hf_rand(ev), base, period;
	bool hrtimer = perf_attr_is_hrtimer(&ev->attr);

	if (s->has_hf_period && s->has_alt_period && s->hf_period != s->alt_period)
		return error("'%s': alt-period= and hf-period= set the same period: give one",
			     ev->name);
	if (hf > UINT32_MAX)
		return error("'%s': %s=%llu is above the kernel's limit of %u (32 bits)", ev->name,
			     hf_period_term(ev), (unsigned long long)hf, UINT32_MAX);
	if (s->has_hf_rand && s->hf_rand > PERF_ATTR_HF_RAND_MAX)
		return error("'%s': hf-rand=%llu is above the limit of %d (the jitter is 1 << "
			     "hf-rand wide)",
			     ev->name, s->hf_rand, PERF_ATTR_HF_RAND_MAX);
	if (s->has_alt_jitter && s->alt_jitter > 7)
		return error("'%s': alt-period-jitter=%llu is above the limit of 7 (a jitter 2 << "
			     "N wide, which hf-rand=N+1 carries)",
			     ev->name, s->alt_jitter);
	if (s->has_hf_rand && s->has_alt_jitter &&
	    s->hf_rand != (s->alt_jitter ? s->alt_jitter + 1 : 0))
		return error("'%s': alt-period-jitter= and hf-rand= set the same jitter: give one",
			     ev->name);
	/* even a jitter of 0: the term asks for something only an alternating period has */
	if ((s->has_hf_rand || s->has_alt_jitter) && !hf)
		return error("'%s': %s= needs %s= (the kernel jitters only an alternating period)",
			     ev->name, rand_term, s->has_hf_rand ? "hf-period" : "alt-period");
	if (!hf)
		return 0;
	if (!ev->attr.freq && !ev->attr.sample_period)
		return error("'%s': %s= needs a sampling event (it has no period)", ev->name,
			     hf_period_term(ev));
	if (hrtimer && hf < HRTIMER_MIN_NS)
		return error("'%s': %s=%llu is below the kernel's 10 us floor for cpu-clock and "
			     "task-clock (their timer re-arms after at least %llu ns)",
			     ev->name, hf_period_term(ev), (unsigned long long)hf, HRTIMER_MIN_NS);
	period = ev->attr.sample_period;
	if (ev->attr.freq) {
		/*
		 * In frequency mode the kernel adapts the period, and the series stops alternating
		 * while it is at or below the short one; but cpu-clock and task-clock take a fixed
		 * period of 1 s / freq (perf_swevent_init_hrtimer()), which is checked as one.
		 */
		if (!hrtimer || !ev->attr.sample_freq)
			return 0;
		period = NSEC_PER_SEC / ev->attr.sample_freq;
	}
	if (hf >= period)
		return error("'%s': %s=%llu is not below the event's period %llu", ev->name,
			     hf_period_term(ev), (unsigned long long)hf, (unsigned long long)period);
	base = period - hf;
	if (hrtimer && base < HRTIMER_MIN_NS)
		return error("'%s': the long window, period %llu minus %s=%llu, is below the "
			     "kernel's 10 us floor for cpu-clock and task-clock (%llu ns)",
			     ev->name, (unsigned long long)period, hf_period_term(ev),
			     (unsigned long long)hf, HRTIMER_MIN_NS);
	/* the kernel takes half the jitter's width off the long period unguarded: no wrap */
	if (rand && (1ULL << rand) / 2 >= base)
		return error("'%s': %s=%llu jitters the long period by up to %llu either way, not "
			     "below the %llu it has (period minus %s=)",
			     ev->name, rand_term, (unsigned long long)rand_given, (1ULL << rand) / 2,
			     (unsigned long long)base, hf_period_term(ev));
	if (hrtimer && rand && base - (1ULL << rand) / 2 < HRTIMER_MIN_NS)
		return error("'%s': %s=%llu can shorten the long window to %llu ns, below the "
			     "kernel's 10 us floor for cpu-clock and task-clock",
			     ev->name, rand_term, (unsigned long long)rand_given,
			     (unsigned long long)(base - (1ULL << rand) / 2));
	return 0;
}

int evlist_check_hf(const struct evlist *evl)
{
	const struct evsel *first = NULL;

	for (int i = 0; i < evl->nr; i++) {
		const struct evsel *ev = &evl->ev[i];

		if (!wants_hf(ev))
			continue;
		if (check_hf_terms(ev))
			return -1;
		if (!first)
			first = ev;
	}
	if (!first)
		return 0;
	switch (hf_probe()) {
	case HF_NONE:
		return no_hf_kernel(first);
	case HF_OTHER:
		return error("cannot open '%s': %s=: this kernel's %d-byte perf_event_attr is not "
			     "the hf-period series' (another field sits at byte %d)",
			     first->name, event_spec_hf_term(first->spec), PERF_ATTR_HF_SIZE,
			     PERF_ATTR_HF_OFFSET);
	default:
		return 0;
	}
}

int evlist_open(struct evlist *evl, const struct target *t)
{
	int nr = t->nr_cpus * t->nr_threads;
	bool lost_ok = kernel_has_format_lost();

	evl->nr_cpus = t->nr_cpus;
	evl->nr_threads = t->nr_threads;
	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		ev->fd = xmalloc(nr * sizeof(int));
		ev->id = xcalloc(nr, sizeof(u64));
		for (int k = 0; k < nr; k++)
			ev->fd[k] = -1;
		if (!lost_ok)
			ev->attr.read_format &= ~(u64)PERF_FORMAT_LOST;
		if (!ev->synthetic)
			debug_attr(ev);
	}
	if (evlist_check_hf(evl))
		return -1;

	for (int c = 0; c < t->nr_cpus; c++) {
		for (int th = 0; th < t->nr_threads; th++) {
			int k = c * t->nr_threads + th;
			bool gone = false;

			for (int i = 0; i < evl->nr && !gone; i++) {
				struct evsel *ev = &evl->ev[i];
				int group_fd = -1, fd;

				if (ev->synthetic)
					continue;
				if (is_member(evl, i)) {
					group_fd = evl->ev[ev->leader].fd[k];
					if (group_fd < 0)
						continue;
				}
again:
				fd = open_event(ev, t->threads[th], t->cpus[c], group_fd);
				if (fd < 0) {
					int err = errno;

					if (fallback_cycles(ev, err) ||
					    fallback_inherit_read(ev, err)) {
						/* cpu-clock has limits of its own: check again */
						if (wants_hf(ev) && check_hf_terms(ev))
							return -1;
						goto again;
					}
					/* A thread of -p that exited meanwhile: as perf, go on. */
					if (err == ESRCH && t->task && t->nr_threads > 1) {
						debug(1, "thread %d is gone", t->threads[th]);
						gone = true;
						break;
					}
					return open_error(ev, t, t->cpus[c], t->threads[th], err);
				}
				ev->fd[k] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->id[k]) < 0)
					return error("cannot read the id of '%s': %s", ev->name,
						     strerror(errno));
				if (ev->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter) < 0)
					return error("failed to set filter \"%s\" on event %s: %s",
						     ev->filter, ev->name, strerror(errno));
			}
			if (gone) {
				/* Close what was opened for this thread on this CPU. */
				for (int i = 0; i < evl->nr; i++) {
					struct evsel *ev = &evl->ev[i];

					if (ev->fd && ev->fd[k] >= 0) {
						close(ev->fd[k]);
						ev->fd[k] = -1;
					}
				}
			}
		}
	}

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->synthetic)
			continue;
		ev->ids = xcalloc(nr, sizeof(u64));
		for (int k = 0; k < nr; k++)
			if (ev->fd[k] >= 0)
				ev->ids[ev->nr_ids++] = ev->id[k];
		if (!ev->nr_ids)
			return error("cannot open '%s': every thread of the target is gone", ev->name);
	}
	return 0;
}

unsigned evlist_default_mmap_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int kb = 516;
	unsigned pages;

	/* perf: perf_event_mlock_kb less one page for the control page, rounded down to 2^n. */
	read_sysctl_int("/proc/sys/kernel/perf_event_mlock_kb", &kb);
	kb -= (int)(page / 1024);
	if (kb < 8)
		kb = 8;
	pages = (unsigned)((long)kb * 1024 / page);
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages ? pages : 1;
}

/*
 * --overwrite: a ring the kernel writes backward and overwrites when full. The kernel decides
 * that at the first mmap: a mapping without write access, where no tail can be written back.
 */
static int map_backward(struct ring_buffer *r, int fd, int cpu, unsigned pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->map_len = (pages + 1) * page;
	r->base = mmap(NULL, r->map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->data = (unsigned char *)r->base + page;
	r->mask = (u64)pages * page - 1;
	return 0;
}

u64 evlist_backward_end(const struct ring_buffer *r, u64 start)
{
	u64 size = r->mask + 1, pos = start;

	/* As far as whole records go, at most one buffer's size: older ones were overwritten. */
	for (;;) {
		const struct perf_event_header *h = (const void *)(r->data + (pos & r->mask));

		if (pos - start >= size || !h->size || pos - start + h->size > size)
			return pos;
		pos += h->size;
	}
}

void evlist_pause(struct evlist *evl, bool pause)
{
	for (int i = 0; i < evl->nr_rings; i++)
		if (evl->rings[i].base)
			ioctl(evl->rings[i].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

int evlist_mmap(struct evlist *evl, const struct target *t, unsigned pages)
{
	int nr = t->nr_cpus * t->nr_threads;

	evl->nr_rings = t->per_thread ? t->nr_threads : t->nr_cpus;
	evl->rings = xcalloc(evl->nr_rings, sizeof(*evl->rings));
	evl->ring_cpu = xcalloc(evl->nr_rings, sizeof(int));
	evl->pfd = xcalloc((size_t)nr * evl->nr + evl->nr_rings, sizeof(*evl->pfd));
	evl->pfd_ring = xcalloc((size_t)nr * evl->nr + evl->nr_rings, sizeof(int));
	evl->poll_all = t->task;
	for (int i = 0; i < evl->nr_rings; i++) {
		evl->rings[i].fd = -1;
		evl->ring_cpu[i] = t->per_thread ? 0 : i;
	}

	for (int c = 0; c < t->nr_cpus; c++) {
		for (int th = 0; th < t->nr_threads; th++) {
			int k = c * t->nr_threads + th, ring = t->per_thread ? th : c;
			struct ring_buffer *r = &evl->rings[ring];

			for (int i = 0; i < evl->nr; i++) {
				struct evsel *ev = &evl->ev[i];
				int fd = ev->fd ? ev->fd[k] : -1;
				bool poll_it;

				if (ev->synthetic || fd < 0)
					continue;
				if (!r->base) {
					int err = ev->attr.write_backward ?
						  map_backward(r, fd, t->cpus[c], pages) :
						  ring_buffer_mmap(r, fd, t->cpus[c], pages);

					if (err == -EPERM)
						return error("cannot map the ring buffers (%u pages per "
							     "CPU): over the locked-memory limit; "
							     "lower -m or raise "
							     "kernel.perf_event_mlock_kb",
							     pages);
					if (err)
						return error("cannot map a ring buffer of %u pages "
							     "on CPU %d: %s",
							     pages, t->cpus[c], strerror(-err));
					poll_it = true;
				} else {
					if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
						return error("cannot redirect '%s' on CPU %d to the "
							     "ring buffer: %s",
							     ev->name, t->cpus[c], strerror(errno));
					/* Task targets: every fd, to see each task exit. */
					poll_it = evl->poll_all;
				}
				if (poll_it) {
					evl->pfd[evl->nr_pfd].fd = fd;
					/* a backward ring is read at the end: its exit only */
					evl->pfd[evl->nr_pfd].events =
						ev->attr.write_backward ? 0 : POLLIN;
					evl->pfd_ring[evl->nr_pfd] = ring;
					evl->nr_pfd++;
				}
			}
		}
	}
	return 0;
}

static void ioctl_all(struct evlist *evl, unsigned long req)
{
	int nr = evl->nr_cpus * evl->nr_threads;

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->synthetic || !ev->fd)
			continue;
		for (int k = 0; k < nr; k++)
			if (ev->fd[k] >= 0)
				ioctl(ev->fd[k], req, 0);
	}
}

void evlist_enable(struct evlist *evl)
{
	ioctl_all(evl, PERF_EVENT_IOC_ENABLE);
}

void evlist_disable(struct evlist *evl)
{
	ioctl_all(evl, PERF_EVENT_IOC_DISABLE);
}

void evlist_read_lost(struct evlist *evl, const struct target *t,
		      void (*fn)(void *arg, const struct evsel *ev, int cpu_idx, int thread_idx,
				 u64 id, u64 lost),
		      void *arg)
{
	int nr = evl->nr_cpus * evl->nr_threads;

	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];
		u64 buf[3 + 3 * 64];
		/* The times a reader of the counters (record/counters.c) added to read_format. */
		u64 tt = !!(ev->attr.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(ev->attr.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);

		if (ev->synthetic || !ev->fd || !(ev->attr.read_format & PERF_FORMAT_LOST))
			continue;
		/* With GROUP the leader's read returns the whole group: read members there. */
		if (is_member(evl, i) && (ev->attr.read_format & PERF_FORMAT_GROUP))
			continue;
		for (int k = 0; k < nr; k++) {
			ssize_t n;

			if (ev->fd[k] < 0)
				continue;
			n = read(ev->fd[k], buf, sizeof(buf));
			if (n <= 0)
				continue;
			if (ev->attr.read_format & PERF_FORMAT_GROUP) {
				u64 members = buf[0];

				/* u64 nr, [ena], [run], then {value, id, lost} per member */
				for (u64 m = 0; m < members && (4 + tt + 3 * m) * 8 <= (u64)n; m++) {
					u64 id = buf[1 + tt + 3 * m + 1], lost = buf[1 + tt + 3 * m + 2];

					if (lost) {
						int idx = i;

						for (int j = i; j < evl->nr; j++) {
							if (evl->ev[j].fd &&
							    evl->ev[j].id[k] == id) {
								idx = j;
								break;
							}
						}
						fn(arg, &evl->ev[idx], k / t->nr_threads,
						   k % t->nr_threads, id, lost);
					}
				}
			} else if ((u64)n >= (3 + tt) * 8 && buf[2 + tt]) {
				/* value, [ena], [run], id, lost */
				fn(arg, ev, k / t->nr_threads, k % t->nr_threads, buf[1 + tt],
				   buf[2 + tt]);
			}
		}
	}
}

void evlist_free(struct evlist *evl)
{
	int nr = evl->nr_cpus * evl->nr_threads;

	if (evl->rings) {
		for (int i = 0; i < evl->nr_rings; i++)
			ring_buffer_unmap(&evl->rings[i]);
	}
	for (int i = 0; i < evl->nr; i++) {
		struct evsel *ev = &evl->ev[i];

		if (ev->fd) {
			for (int k = 0; k < nr; k++)
				if (ev->fd[k] >= 0)
					close(ev->fd[k]);
		}
		free(ev->fd);
		free(ev->id);
		free(ev->ids);
		free(ev->name);
	}
	free(evl->ev);
	free(evl->rings);
	free(evl->ring_cpu);
	free(evl->pfd);
	free(evl->pfd_ring);
	memset(evl, 0, sizeof(*evl));
}
