// SPDX-License-Identifier: GPL-2.0
/*
 * prec stat: count events while a command runs (or on CPUs, processes, threads) and print the
 * counts as perf stat 6.1 does. The options, the target and the workload, the runs of -r and
 * the intervals of -I; the counters are the counting engine's (record/counting.h), the output
 * record/stat-print.c's.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prec.h"
#include "record/counting.h"
#include "record/parse-events.h"
#include "record/stat-print.h"
#include "record/target.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* perf stat's status for a bad option. */
#define STAT_USAGE 129
/* perf stat's status for a target or option value it refuses after parsing (its -EINVAL). */
#define STAT_BAD_TARGET 234
/* perf stat's status when the command cannot run or the output cannot be created. */
#define STAT_FAILED 255

/* How often a -p or -t target without a command is checked for having ended. */
#define TASK_CHECK_NS 100000000ULL

/* perf stat 6.1's default events, in its order; the first is cpu-clock for CPU targets. */
#define DEFAULT_EVENTS "context-switches,cpu-migrations,page-faults,cycles,instructions," \
		       "branches,branch-misses"

struct stat_opts {
	struct event_list events;
	bool system_wide, no_aggr, no_inherit, bpf_counters, append;
	const char *cpu_list, *pid_list, *tid_list, *output, *sep;
	unsigned interval_ms;
	int repeat;
	int argc;
	char **argv;
};

enum {
	OPT_APPEND = 256,
	OPT_BPF_COUNTERS,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "output", required_argument, NULL, 'o' },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "bpf-counters", no_argument, NULL, OPT_BPF_COUNTERS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char short_options[] = "+:e:aC:p:t:I:x:o:Ar:ivh";

static void usage(FILE *f)
{
	fputs("usage: prec stat [OPTIONS] [--] [COMMAND [ARGS]]\n"
	      "\n"
	      "Count events while a command runs, as perf stat does.\n"
	      "\n"
	      "    -e, --event <event>     event to count (repeatable; -e syntax of prec record);\n"
	      "                            default: perf stat's set\n"
	      "    -a, --all-cpus          system-wide, on all CPUs\n"
	      "    -C, --cpu <cpus>        system-wide on these CPUs only (0-3,5)\n"
	      "    -p, --pid <pids>        count existing processes (comma-separated)\n"
	      "    -t, --tid <tids>        count existing threads (no inheritance)\n"
	      "    -I, --interval-print <ms>\n"
	      "                            print the counts of every interval of ms milliseconds\n"
	      "    -x, --field-separator <sep>\n"
	      "                            print perf stat's CSV fields separated by sep\n"
	      "    -o, --output <file>     print the counts into file\n"
	      "        --append            append to the -o file\n"
	      "    -A, --no-aggr           one count per CPU (with -a or -C)\n"
	      "    -r, --repeat <n>        run the command n times; print the means and the noise\n"
	      "    -i, --no-inherit        child tasks are not counted\n"
	      "        --bpf-counters      count through counters shared with other sessions\n"
	      "    -v, --verbose           more messages (repeatable)\n"
	      "    -h, --help              this help\n",
	      f);
}

/* A bad option: one line, and perf's status for it. */
__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("prec stat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see 'prec stat -h')\n", stderr);
	return STAT_USAGE;
}

/* -e: the one parser of prec record; perf's message on failure, or why it only counts. */
static int add_events(struct event_list *list, const char *str)
{
	struct parse_error perr;
	char why[512];

	memset(&perr, 0, sizeof(perr));
	if (parse_events(list, str, &perr)) {
		parse_events_print_error(str, &perr);
		return -1;
	}
	if (event_list_check_counted(list, why, sizeof(why))) {
		bad_usage("%s", why);
		return -1;
	}
	return 0;
}

/* Return: -1 to go on, or an exit status. */
static int parse_options(struct stat_opts *o, int argc, char **argv)
{
	u64 v;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_events(&o->events, optarg))
				return STAT_USAGE;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->cpu_list = optarg;
			break;
		case 'p':
			o->pid_list = optarg;
			break;
		case 't':
			o->tid_list = optarg;
			break;
		case 'I':
			if (parse_u64(optarg, &v) || v > 0xffffffffULL)
				return bad_usage("-I '%s': not a number of milliseconds", optarg);
			o->interval_ms = (unsigned)v;
			break;
		case 'x':
			o->sep = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_APPEND:
			o->append = true;
			break;
		case 'A':
			o->no_aggr = true;
			break;
		case 'r':
			/* perf parses a negative count, then refuses it with another status */
			if (optarg[0] == '-' && !parse_u64(optarg + 1, &v)) {
				bad_usage("-r '%s': the run count must be a positive number", optarg);
				return STAT_BAD_TARGET;
			}
			if (parse_u64(optarg, &v) || v > 100000)
				return bad_usage("-r '%s': the run count must be a positive number",
						 optarg);
			if (!v)
				return bad_usage("-r %s: repeating until interrupted is not supported",
						 optarg);
			o->repeat = (int)v;
			break;
		case 'i':
			o->no_inherit = true;
			break;
		case OPT_BPF_COUNTERS:
			o->bpf_counters = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return bad_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	if (o->pid_list || o->tid_list) {
		if (o->system_wide || o->cpu_list)
			fprintf(stderr, "PID/TID switch overriding SYSTEM\n");
		o->system_wide = false;
		o->cpu_list = NULL;
	}
	/* As perf stat: no command and no target counts the whole system until interrupted. */
	if (!o->argc && !o->pid_list && !o->tid_list && !o->cpu_list)
		o->system_wide = true;
	if (o->no_aggr && !o->system_wide && !o->cpu_list) {
		bad_usage("no-aggregation mode (-A) is only available in system-wide mode");
		return STAT_BAD_TARGET;
	}
	if (!o->events.nr) {
		bool cpus = o->system_wide || o->cpu_list;

		if (add_events(&o->events, cpus ? "cpu-clock" : "task-clock") ||
		    add_events(&o->events, DEFAULT_EVENTS))
			return 1;
	}
	return -1;
}

/* What one run counted: per event, the aggregate and (with -A) every CPU's. */
struct run_result {
	struct stat_print_value *total; /* [event] */
	struct stat_print_value *cpu;   /* [event * nr_cpus + cpu index] */
	double elapsed_ns;
};

/* Signals that end the counting; they are blocked and taken with sigtimedwait(). */
static void signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* One run of the counters (one of -r's). */
struct stat_run {
	const struct stat_opts *o;
	struct target t;
	struct counting *eng;
	struct stat_print_event *pev; /* the state's */
	int nr_ev, nr_cpus;
	int exit_signal;     /* a signal that ended counting without a command */
	int status;          /* the command's wait status */
	bool exited;
	struct rusage ru;
};

/* What the runs add up to. */
struct stat_state {
	const struct stat_opts *o;
	struct stat_print p;
	struct stat_print_event *pev;
	int nr_ev;
	int *cpus, nr_cpus;
	double *sum, *sumsq;             /* [event]: the runs' counts summed, and their squares */
	double *clock_sum;               /* [slot]: the clock events' times summed over runs */
	int *clock_n;                    /* [slot]: how many */
	struct run_result *last;         /* the last run's (its CPUs' for -A) */
	double el_sum, el_sumsq;
	int runs;
	int status, exit_signal;
	bool ru_valid;
	struct rusage ru;
};

/* The readings of the last counting_read() into r (cumulative since enabled). */
static void take_readings(struct stat_run *s, struct run_result *r)
{
	for (int e = 0; e < s->nr_ev; e++) {
		struct counting_value v;

		memset(&r->total[e], 0, sizeof(r->total[e]));
		if (counting_total(s->eng, e, &v)) {
			r->total[e].val = (double)v.val;
			r->total[e].ena = (double)v.ena;
			r->total[e].run = (double)v.run;
		}
		if (!r->cpu)
			continue;
		for (int k = 0; k < s->nr_cpus; k++) {
			struct stat_print_value *x = &r->cpu[e * s->nr_cpus + k];

			memset(x, 0, sizeof(*x));
			if (k < counting_nr_slots(s->eng, e) && counting_reading(s->eng, e, k, &v)) {
				x->val = (double)v.val;
				x->ena = (double)v.ena;
				x->run = (double)v.run;
			}
		}
	}
}

static void diff_values(struct stat_print_value *d, const struct stat_print_value *a,
			const struct stat_print_value *b, int n)
{
	for (int i = 0; i < n; i++) {
		d[i].val = a[i].val - b[i].val;
		d[i].ena = a[i].ena - b[i].ena;
		d[i].run = a[i].run - b[i].run;
		d[i].noise_pct = 0;
	}
}

/*
 * One interval of -I: the counts since the last one. Its rates divide by the time it really
 * lasted, which is longer than -I's when prec could not run on time (stopped, a busy machine).
 */
static void print_interval(struct stat_run *s, struct stat_print *p, struct run_result *now,
			   struct run_result *prev, u64 since_start, u64 length)
{
	int n = s->nr_ev * (p->no_aggr ? s->nr_cpus : 1);
	struct stat_print_value *d = xcalloc(n, sizeof(*d));
	char prefix[64];

	diff_values(d, p->no_aggr ? now->cpu : now->total, p->no_aggr ? prev->cpu : prev->total,
		    n);
	stat_print_timestamp(p, since_start, prefix, sizeof(prefix));
	stat_print_interval_header(p);
	stat_print_counters(p, s->pev, s->nr_ev, d, (double)length, prefix);
	fflush(p->out);
	free(d);
	memcpy(prev->total, now->total, s->nr_ev * sizeof(*now->total));
	if (now->cpu)
		memcpy(prev->cpu, now->cpu, s->nr_ev * s->nr_cpus * sizeof(*now->cpu));
}

static struct run_result *result_new(int nr_ev, int nr_cpus, bool per_cpu)
{
	struct run_result *r = xcalloc(1, sizeof(*r));

	r->total = xcalloc(nr_ev, sizeof(*r->total));
	if (per_cpu)
		r->cpu = xcalloc((size_t)nr_ev * nr_cpus, sizeof(*r->cpu));
	return r;
}

static void result_free(struct run_result *r)
{
	if (!r)
		return;
	free(r->total);
	free(r->cpu);
	free(r);
}

/* Is some thread of a -p or -t target still there? */
static bool tasks_alive(const struct target *t)
{
	for (int i = 0; i < t->nr_threads; i++)
		if (!kill(t->threads[i], 0) || errno != ESRCH)
			return true;
	return false;
}

/* Wait for the command, a signal or the next interval; print the intervals. */
static void count_until_done(struct stat_run *s, struct stat_print *p, struct run_result *r,
			     u64 start)
{
	const struct stat_opts *o = s->o;
	struct run_result *prev = NULL;
	u64 next = 0, step = (u64)o->interval_ms * 1000000ULL, last = start;
	bool watch = s->t.task && s->t.workload_pid <= 0;
	sigset_t set;

	signal_set(&set);
	if (step) {
		prev = result_new(s->nr_ev, s->nr_cpus, r->cpu != NULL);
		next = start + step;
	}
	for (;;) {
		struct timespec ts;
		siginfo_t info;
		int sig;

		if (step || watch) {
			u64 now = now_ns(), left = step && next > now ? next - now : 0;

			/* without a command, -p and -t end when their tasks do, as perf's */
			if (watch && (!step || left > TASK_CHECK_NS))
				left = TASK_CHECK_NS;
			ts.tv_sec = (time_t)(left / 1000000000ULL);
			ts.tv_nsec = (long)(left % 1000000000ULL);
			sig = sigtimedwait(&set, &info, &ts);
		} else {
			sig = sigwaitinfo(&set, &info);
		}
		if (sig < 0 && errno == EAGAIN && watch && !tasks_alive(&s->t))
			break;
		if (sig < 0 && errno == EAGAIN && (!step || now_ns() < next))
			continue;
		if (sig < 0 && errno == EAGAIN) {
			u64 now;

			counting_read(s->eng);
			take_readings(s, r);
			now = now_ns();
			print_interval(s, p, r, prev, now - start, now - last);
			last = now;
			/*
			 * On time, the next interval keeps to the grid of -I; after a stall the steps
			 * missed are one longer interval, already printed, and the grid starts anew.
			 */
			next += step;
			if (next < now + step / 2)
				next = now + step;
			continue;
		}
		if (sig == SIGCHLD && s->t.workload_pid > 0) {
			pid_t w = wait4(s->t.workload_pid, &s->status, WNOHANG, &s->ru);

			if (w == s->t.workload_pid) {
				s->exited = true;
				break;
			}
		} else if ((sig == SIGINT || sig == SIGTERM) && s->t.workload_pid <= 0) {
			s->exit_signal = sig;
			break;
		} else if (sig == SIGTERM && !s->exited) {
			/*
			 * A command gets the terminal's SIGINT itself, but SIGTERM is sent to prec
			 * alone: pass it on, count until the command ends, then end with it.
			 */
			kill(s->t.workload_pid, SIGTERM);
			s->exit_signal = sig;
		}
	}
	r->elapsed_ns = (double)(now_ns() - start);
	counting_disable(s->eng);
	counting_read(s->eng);
	take_readings(s, r);
	if (step) {
		u64 now = now_ns();

		print_interval(s, p, r, prev, now - start, now - last);
	}
	result_free(prev);
}

static void setup_events(struct stat_run *s, const struct counting_target *ct)
{
	const struct event_list *l = &s->o->events;

	s->nr_ev = l->nr;
	for (int i = 0; i < l->nr; i++) {
		const struct event_spec *e = &l->ev[i];
		struct perf_event_attr attr = e->attr;
		bool clock = attr.type == PERF_TYPE_SOFTWARE &&
			     (attr.config == PERF_COUNT_SW_TASK_CLOCK ||
			      attr.config == PERF_COUNT_SW_CPU_CLOCK);

		counting_attr_init(&attr, ct);
		counting_add(s->eng, &attr, e->name, e->leader == i ? -1 : e->leader);
		s->pev[i].name = e->name;
		s->pev[i].clock = clock;
		s->pev[i].unit = clock ? "msec" : "";
		s->pev[i].scale = clock ? 1e-6 : 1;
	}
}

/* A run's counts into the sums that the noise and the "/sec" figures of -r come from. */
static void add_run(struct stat_state *st, const struct run_result *r)
{
	int slots = st->o->no_aggr ? st->nr_cpus : 1;

	if (!st->clock_sum) {
		st->clock_sum = xcalloc(slots, sizeof(double));
		st->clock_n = xcalloc(slots, sizeof(int));
	}
	for (int e = 0; e < st->nr_ev; e++) {
		st->sum[e] += r->total[e].val;
		st->sumsq[e] += r->total[e].val * r->total[e].val;
		if (!st->pev[e].clock || !st->pev[e].supported)
			continue;
		for (int k = 0; k < slots; k++) {
			const struct stat_print_value *v = r->cpu ? &r->cpu[e * slots + k]
								  : &r->total[e];

			if (v->run <= 0 || v->ena <= 0)
				continue;
			st->clock_sum[k] += v->run < v->ena ? v->val * v->ena / v->run : v->val;
			st->clock_n[k]++;
		}
	}
}

/* One run: the target, the command, the counters, the waiting. Return: 0 or an exit status. */
static int run_once(struct stat_state *st)
{
	const struct stat_opts *o = st->o;
	struct counting_target ct;
	struct stat_run s;
	struct run_result *r;
	int ret = 0, saved_quiet = quiet;
	u64 start;

	memset(&s, 0, sizeof(s));
	s.o = o;
	if (target_init(&s.t, o->system_wide, o->cpu_list, o->pid_list, o->tid_list, NULL)) {
		target_free(&s.t);
		return STAT_BAD_TARGET;
	}
	s.nr_cpus = s.t.nr_cpus;
	if (o->argc && target_workload_prepare(&s.t, o->argv, false)) {
		target_free(&s.t);
		return 1;
	}
	memset(&ct, 0, sizeof(ct));
	ct.cpus = s.t.cpus;
	ct.nr_cpus = s.t.nr_cpus;
	ct.cpu_wide = s.t.system_wide;
	ct.workload = o->argc && !s.t.system_wide && !s.t.task;
	if (ct.workload)
		s.t.threads[0] = s.t.workload_pid;
	ct.threads = s.t.threads;
	ct.nr_threads = s.t.nr_threads;
	ct.inherit = !o->no_inherit && !o->tid_list;
	ct.bpf_counters = o->bpf_counters;
	s.eng = counting_new(&ct);
	s.pev = st->pev;
	setup_events(&s, &ct);
	/* perf stat says nothing of the events this machine cannot count but at -v */
	if (!verbose)
		quiet = 1;
	ret = counting_open(s.eng);
	quiet = saved_quiet;
	if (ret) {
		target_workload_kill(&s.t);
		ret = 1;
		goto out;
	}
	for (int e = 0; e < s.nr_ev; e++) {
		const char *why = NULL;

		s.pev[e].supported = counting_supported(s.eng, e);
		/*
		 * The fallback from a shared counter is said whatever the verbosity, in the
		 * engine's words (it said them itself at -v).
		 */
		if (o->bpf_counters && !verbose && s.pev[e].supported &&
		    counting_via(s.eng, e, &why) == COUNTING_OWN && why && st->runs == 0)
			note("--bpf-counters: %s counts with its own counters: %s", s.pev[e].name,
			     why);
	}
	if (!st->cpus) {
		st->nr_cpus = s.nr_cpus;
		st->cpus = xcalloc(s.nr_cpus, sizeof(int));
		memcpy(st->cpus, s.t.cpus, s.nr_cpus * sizeof(int));
		st->p.cpus = st->cpus;
		st->p.nr_cpus = st->nr_cpus;
	}
	/* The elapsed time starts before the command's exec, as perf's does. */
	start = now_ns();
	counting_enable(s.eng);
	if (s.t.workload_pid > 0) {
		int err = target_workload_start(&s.t);

		if (err) {
			error("workload failed: %s", strerror(err));
			target_workload_kill(&s.t);
			ret = STAT_FAILED;
			goto out;
		}
		counting_exec_done(s.eng);
	}
	r = result_new(s.nr_ev, s.nr_cpus, o->no_aggr);
	count_until_done(&s, &st->p, r, start);
	if (verbose)
		for (int e = 0; e < s.nr_ev; e++)
			fprintf(stderr, "%s: %.0f %.0f %.0f\n", s.pev[e].name, r->total[e].val,
				r->total[e].ena, r->total[e].run);
	add_run(st, r);
	st->el_sum += r->elapsed_ns;
	st->el_sumsq += r->elapsed_ns * r->elapsed_ns;
	st->runs++;
	result_free(st->last);
	st->last = r;
	st->status = s.exited ? s.status : 0;
	st->exit_signal = s.exit_signal;
	st->ru_valid = s.exited;
	if (s.exited)
		st->ru = s.ru;
	/* As perf, a command killed by a signal is said before the counts */
	if (s.exited && WIFSIGNALED(s.status))
		psignal(WTERMSIG(s.status), o->argv[0]);
out:
	counting_free(s.eng);
	target_free(&s.t);
	return ret;
}

/* perf stat's header: what was counted. */
static char *target_words(const struct stat_opts *o)
{
	size_t len = 64;
	char *s;

	for (int i = 0; i < o->argc; i++)
		len += strlen(o->argv[i]) + 1;
	len += o->cpu_list ? strlen(o->cpu_list) : 0;
	len += o->pid_list ? strlen(o->pid_list) : 0;
	len += o->tid_list ? strlen(o->tid_list) : 0;
	s = xcalloc(1, len);
	if (o->system_wide) {
		strcpy(s, "'system wide'");
	} else if (o->cpu_list) {
		snprintf(s, len, "'CPU(s) %s'", o->cpu_list);
	} else if (o->pid_list) {
		snprintf(s, len, "process id '%s'", o->pid_list);
	} else if (o->tid_list) {
		snprintf(s, len, "thread id '%s'", o->tid_list);
	} else {
		strcpy(s, "'");
		for (int i = 0; i < o->argc; i++) {
			if (i)
				strcat(s, " ");
			strcat(s, o->argv[i]);
		}
		strcat(s, "'");
	}
	return s;
}

static void print_totals(struct stat_state *st)
{
	const struct stat_opts *o = st->o;
	int slots = o->no_aggr ? st->nr_cpus : 1;
	double el = st->el_sum / st->runs, el_sd;
	double *clock_ns = xcalloc(slots, sizeof(double));
	char *what;

	/* perf 6.1 keeps no runs of a CPU's counts: -A prints the last run's, without noise */
	for (int e = 0; !o->no_aggr && e < st->nr_ev; e++) {
		struct stat_print_value *v = &st->last->total[e];
		double sd = stat_print_sd_mean(st->sum[e], st->sumsq[e], st->runs);

		v->noise_pct = v->val ? 100.0 * sd / v->val : 0;
	}
	for (int k = 0; k < slots; k++)
		clock_ns[k] = st->clock_n[k] ? st->clock_sum[k] / st->clock_n[k] : -1;
	st->p.clock_ns = clock_ns;
	what = target_words(o);
	stat_print_header(&st->p, what);
	free(what);
	stat_print_counters(&st->p, st->pev, st->nr_ev,
			    o->no_aggr ? st->last->cpu : st->last->total, el, NULL);
	st->p.clock_ns = NULL;
	free(clock_ns);
	/* As perf: the command's user and sys times, when prec ran one command once */
	el_sd = stat_print_sd_mean(st->el_sum, st->el_sumsq, st->runs);
	stat_print_footer(&st->p, el / 1e9, el_sd / 1e9,
			  st->ru_valid && st->runs == 1 && !o->system_wide && !o->cpu_list &&
				  !o->pid_list && !o->tid_list ? &st->ru : NULL);
}

/* The command's status as perf stat returns it: its exit code; 0 when a signal killed it. */
static int command_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

/**
 * cmd_stat - prec stat: count events as perf stat does.
 *
 * Return: the command's exit status, 129 for a bad option, 234 for a target or value perf
 * refuses after parsing, 1 or 255 when counting failed; SIGINT or SIGTERM that ended counting
 * ends prec itself once the counts are printed.
 */
int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct stat_state st;
	sigset_t set, old;
	int ret;

	memset(&o, 0, sizeof(o));
	o.repeat = 1;
	ret = parse_options(&o, argc, argv);
	if (ret >= 0) {
		event_list_free(&o.events);
		return ret;
	}
	setlocale(LC_NUMERIC, "");
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.nr_ev = o.events.nr;
	st.pev = xcalloc(st.nr_ev, sizeof(*st.pev));
	st.sum = xcalloc(st.nr_ev, sizeof(*st.sum));
	st.sumsq = xcalloc(st.nr_ev, sizeof(*st.sumsq));
	st.p.out = stderr;
	st.p.sep = o.sep;
	st.p.run_count = o.repeat;
	st.p.no_aggr = o.no_aggr;
	if (o.output) {
		time_t now = time(NULL);

		st.p.out = fopen(o.output, o.append ? "a" : "w");
		if (!st.p.out) {
			error("failed to create output file %s: %s", o.output, strerror(errno));
			ret = STAT_FAILED;
			goto out;
		}
		fprintf(st.p.out, "# started on %s\n", ctime(&now));
	}
	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	ret = 0;
	for (int i = 0; i < o.repeat && !ret && !st.exit_signal; i++) {
		if (verbose && o.repeat > 1)
			fprintf(stderr, "[ prec stat: executing run #%d ... ]\n", i + 1);
		ret = run_once(&st);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto out;
	if (!o.interval_ms)
		print_totals(&st);
	fflush(st.p.out);
	ret = o.argc ? command_status(st.status) : 0;
	if (st.exit_signal) {
		/* As perf: counting ended by a signal ends prec with it, once the counts are out */
		if (st.p.out != stderr)
			fclose(st.p.out);
		st.p.out = NULL;
		signal(st.exit_signal, SIG_DFL);
		raise(st.exit_signal);
	}
out:
	if (st.p.out && st.p.out != stderr)
		fclose(st.p.out);
	result_free(st.last);
	free(st.pev);
	free(st.sum);
	free(st.clock_sum);
	free(st.clock_n);
	free(st.sumsq);
	free(st.cpus);
	event_list_free(&o.events);
	return ret;
}
