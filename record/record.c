// SPDX-License-Identifier: GPL-2.0
/*
 * prec record: run a command (or watch pids, threads, CPUs) and write its profile to perf.data
 * the way perf record 6.1 does. This is the command: its options, its usage, the summary it
 * prints; the session engine (session.c) does the recording.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "overhead/collect.h"
#include "prec.h"
#include "record/aggregate.h"
#include "record/cgroups.h"
#include "record/counters.h"
#include "record/off-cpu.h"
#include "record/overhead.h"
#include "record/parse-events.h"
#include "record/record.h"
#include "record/target.h"
#include "util/cpumap.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/xalloc.h"

#define DEFAULT_FREQ 4000
/* The shortest and the longest --overhead-interval and --count-interval. */
#define INTERVAL_MIN_NS 10000000ULL
#define INTERVAL_MAX_NS 3600000000000ULL

/*
 * The hooks of every recording, in the order they declare their attrs (prec:overhead first, then
 * the --count events). Each reads its options from the session and turns itself off.
 */
static const struct record_hook *const hooks[] = {
	&aggregate_hook, /* before overhead: its figures are published for each interval */
	&overhead_hook,
	&counters_hook,
	&cgroups_hook,
#ifdef HAVE_BPF
	&off_cpu_hook,
#endif
};

/* ---------------------------------------------------------------------------------------- */
/* Options. */

enum {
	OPT_FILTER = 256,
	OPT_CALL_GRAPH,
	OPT_SAMPLE_CPU,
	OPT_SWITCH_EVENTS,
	OPT_NO_INHERIT,
	OPT_OVERHEAD_SOURCE,
	OPT_OVERHEAD_INTERVAL,
	OPT_RECALIBRATE,
	OPT_COUNT,
	OPT_COUNT_INTERVAL,
	/* the build-id options */
	OPT_BUILDID_ALL,
	OPT_BUILDID_MMAP,
	OPT_BUILDID_DIR,
	/* The session's options. */
	OPT_PER_THREAD,
	OPT_SYNTH,
	OPT_THREADS,
	OPT_NO_BPF_EVENT,
	OPT_NO_BUFFERING,
	OPT_MMAP_FLUSH,
	OPT_AIO,
	OPT_AFFINITY,
	OPT_MAX_SIZE,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_OUTPUT_EVENT,
	OPT_SWITCH_MAX_FILES,
	OPT_TIMESTAMP_FILENAME,
	OPT_TIMESTAMP_BOUNDARY,
	OPT_TAIL_SYNTHESIZE,
	OPT_OVERWRITE,
	OPT_CONTROL,
	OPT_DRY_RUN,
	OPT_KCORE,
	OPT_PROC_MAP_TIMEOUT,
	OPT_NUM_THREAD_SYNTHESIZE,
	OPT_VMLINUX,
	OPT_DEBUGINFOD,
	OPT_CLANG_PATH,
	OPT_CLANG_OPT,
	OPT_AUX_SAMPLE,
	OPT_OFF_CPU,
	OPT_SUMMARY,
	/* perf's attr options */
	OPT_USER_REGS,
	OPT_TRANSACTION,
	OPT_PHYS_DATA,
	OPT_DATA_PAGE_SIZE,
	OPT_CODE_PAGE_SIZE,
	OPT_SAMPLE_IDENTIFIER,
	OPT_ALL_KERNEL,
	OPT_ALL_USER,
	OPT_STRICT_FREQ,
	OPT_RUNNING_TIME,
	OPT_GROUP,
	OPT_KERNEL_CALLCHAINS,
	OPT_USER_CALLCHAINS,
	OPT_ALL_CGROUPS,
	OPT_NAMESPACES,
	OPT_EXCLUDE_PERF,
	OPT_AGGREGATE,
	OPT_AGGREGATE_INTERVAL,
	OPT_AGGREGATE_ENTRIES,
	OPT_BPF_COUNTERS,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "count-interval", required_argument, NULL, OPT_COUNT_INTERVAL },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "timestamp", no_argument, NULL, 'T' },
	{ "data", no_argument, NULL, 'd' },
	{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
	{ "period", no_argument, NULL, 'P' },
	{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "clockid", required_argument, NULL, 'k' },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "buildid-all", no_argument, NULL, OPT_BUILDID_ALL },
	{ "buildid-mmap", no_argument, NULL, OPT_BUILDID_MMAP },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "overhead-source", required_argument, NULL, OPT_OVERHEAD_SOURCE },
	{ "overhead-interval", required_argument, NULL, OPT_OVERHEAD_INTERVAL },
	{ "recalibrate", no_argument, NULL, OPT_RECALIBRATE },
	{ "aggregate", no_argument, NULL, OPT_AGGREGATE },
	{ "aggregate-interval", required_argument, NULL, OPT_AGGREGATE_INTERVAL },
	{ "aggregate-entries", required_argument, NULL, OPT_AGGREGATE_ENTRIES },
	{ "bpf-counters", no_argument, NULL, OPT_BPF_COUNTERS },
	/* The session's options. */
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "synth", required_argument, NULL, OPT_SYNTH },
	{ "threads", optional_argument, NULL, OPT_THREADS },
	{ "no-bpf-event", no_argument, NULL, OPT_NO_BPF_EVENT },
	{ "stat", no_argument, NULL, 's' },
	{ "delay", required_argument, NULL, 'D' },
	{ "realtime", required_argument, NULL, 'r' },
	{ "no-buffering", no_argument, NULL, OPT_NO_BUFFERING },
	{ "mmap-flush", required_argument, NULL, OPT_MMAP_FLUSH },
	{ "aio", optional_argument, NULL, OPT_AIO },
	{ "affinity", required_argument, NULL, OPT_AFFINITY },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "switch-output-event", required_argument, NULL, OPT_SWITCH_OUTPUT_EVENT },
	{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "timestamp-filename", no_argument, NULL, OPT_TIMESTAMP_FILENAME },
	{ "timestamp-boundary", no_argument, NULL, OPT_TIMESTAMP_BOUNDARY },
	{ "tail-synthesize", no_argument, NULL, OPT_TAIL_SYNTHESIZE },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "kcore", no_argument, NULL, OPT_KCORE },
	{ "proc-map-timeout", required_argument, NULL, OPT_PROC_MAP_TIMEOUT },
	{ "num-thread-synthesize", required_argument, NULL, OPT_NUM_THREAD_SYNTHESIZE },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },
	{ "clang-path", required_argument, NULL, OPT_CLANG_PATH },
	{ "clang-opt", required_argument, NULL, OPT_CLANG_OPT },
	{ "snapshot", optional_argument, NULL, 'S' },
	{ "aux-sample", optional_argument, NULL, OPT_AUX_SAMPLE },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "summary", required_argument, NULL, OPT_SUMMARY },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	/* perf's attr options */
	{ "branch-any", no_argument, NULL, 'b' },
	{ "branch-filter", required_argument, NULL, 'j' },
	{ "intr-regs", optional_argument, NULL, 'I' },
	{ "user-regs", optional_argument, NULL, OPT_USER_REGS },
	{ "weight", no_argument, NULL, 'W' },
	{ "transaction", no_argument, NULL, OPT_TRANSACTION },
	{ "phys-data", no_argument, NULL, OPT_PHYS_DATA },
	{ "data-page-size", no_argument, NULL, OPT_DATA_PAGE_SIZE },
	{ "code-page-size", no_argument, NULL, OPT_CODE_PAGE_SIZE },
	{ "sample-identifier", no_argument, NULL, OPT_SAMPLE_IDENTIFIER },
	{ "raw-samples", no_argument, NULL, 'R' },
	{ "no-samples", no_argument, NULL, 'n' },
	{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
	{ "all-user", no_argument, NULL, OPT_ALL_USER },
	{ "strict-freq", no_argument, NULL, OPT_STRICT_FREQ },
	{ "running-time", no_argument, NULL, OPT_RUNNING_TIME },
	{ "group", no_argument, NULL, OPT_GROUP },
	{ "kernel-callchains", no_argument, NULL, OPT_KERNEL_CALLCHAINS },
	{ "user-callchains", no_argument, NULL, OPT_USER_CALLCHAINS },
	{ "all-cgroups", no_argument, NULL, OPT_ALL_CGROUPS },
	{ "namespaces", no_argument, NULL, OPT_NAMESPACES },
	{ "exclude-perf", no_argument, NULL, OPT_EXCLUDE_PERF },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "uid", required_argument, NULL, 'u' },
	{ NULL, 0, NULL, 0 },
};

static const char short_options[] = "+:e:F:c:gaC:p:t:o:z::m:TdPik:BNqvh"
				    "sD:r:S::"	  /* perf's session options */
				    "bj:I::WRnG:u:"; /* perf's attr options */

static void usage(FILE *f)
{
	fputs("usage: prec record [OPTIONS] [--] [COMMAND [ARGS]]\n"
	      "\n"
	      "Record a profile into perf.data, as perf record does.\n"
	      "\n"
	      "    -e, --event <event>     event to sample (repeatable; comma lists, {groups}:mods,\n"
	      "                            sys:tracepoint); default: cycles, else cpu-clock\n"
	      "        --filter <filter>   tracepoint filter for the event given just before\n"
	      "    -F, --freq <n|max>      sample at n Hz (default 4000)\n"
	      "    -c, --count <n>         sample every n events (overrides -F)\n"
	      "        --count <events>    count these events too (-e syntax, repeatable); every\n"
	      "                            event is read every --count-interval and at the end\n"
	      "        --count-interval <time>\n"
	      "                            read the counters every <time> (default 1s; 500ms ...)\n"
	      "        --bpf-counters      --count through counters shared with other sessions\n"
	      "                            (one per CPU and event, read by BPF)\n"
	      "    -g                      record call graphs (frame pointers, or the\n"
	      "                            --call-graph method given)\n"
	      "        --call-graph <mode[,size]>\n"
	      "                            record call graphs: fp[,depth], dwarf[,stack bytes]\n"
	      "                            (registers and a copy of the user stack, default\n"
	      "                            8192, at most 65528), lbr (needs a PMU with LBR)\n"
	      "    -a, --all-cpus          system-wide, on all CPUs\n"
	      "    -C, --cpu <cpus>        system-wide on these CPUs only (0-3,5)\n"
	      "    -p, --pid <pids>        record existing processes (comma-separated)\n"
	      "    -t, --tid <tids>        record existing threads (no inheritance)\n"
	      "    -o, --output <file>     output file (default perf.data; - for pipe mode)\n"
	      "    -z, --compression-level[=<n>]\n"
	      "                            compress the data with zstd (level 1-22, default 1)\n"
	      "    -m, --mmap-pages <n>    ring buffer size per CPU: pages (2^n) or 64K, 2M ...\n"
	      "    -T, --timestamp         sample timestamps (always on)\n"
	      "    -d, --data              sample data addresses\n"
	      "        --sample-cpu        sample the CPU\n"
	      "    -P, --period            record the period in every sample (without it,\n"
	      "                            cpu-clock and task-clock keep their fixed one in the attr)\n"
	      "        --switch-events     record context switches\n"
	      "    -i, --no-inherit        child tasks do not inherit the events\n"
	      "    -k, --clockid <clock>   sample time from this clock (monotonic, monotonic_raw,\n"
	      "                            realtime, boottime, tai, or a number)\n"
	      "    -B, --no-buildid        do not collect build-ids\n"
	      "    -N, --no-buildid-cache  do not update the build-id cache (~/.debug)\n"
	      "        --buildid-all       build-ids of every binary mapped, not only those hit\n"
	      "        --buildid-mmap      build-ids in the MMAP2 records (no build-id cache)\n"
	      "        --buildid-dir <dir> the build-id cache directory (perf --buildid-dir)\n"
	      "        --overhead-source <auto|bpf|tracepoint|none>\n"
	      "                            what measures the cost of profiling (default auto: bpf,\n"
	      "                            else tracepoint); none measures nothing and writes\n"
	      "                            no prec:overhead (the events stay perf record's)\n"
	      "        --overhead-interval <time>\n"
	      "                            write the costs every <time> (default 1s; 500ms, 2s ...)\n"
	      "        --recalibrate       measure the costs of a sample and of side-band anew,\n"
	      "                            not from earlier recordings of this boot (cached 1 h)\n"
	      "        --aggregate         count samples in the kernel (BPF): one sample per stack\n"
	      "                            and task each interval, its weight the samples taken\n"
	      "        --aggregate-interval <time>\n"
	      "                            write the counted samples every <time> (default 1s)\n"
	      "        --aggregate-entries <n>\n"
	      "                            keys and stacks each map holds (default 16384)\n"
	      "        --per-thread        one ring buffer per thread (cpu -1), no per-CPU events\n"
	      "        --synth <no|all|task|mmap|cgroup>\n"
	      "                            what to synthesize of existing tasks (default all)\n"
	      "        --threads[=<spec>]  accepted as perf's (cpu, core, package, numa, masks):\n"
	      "                            prec drains in one thread and writes in another\n"
	      "        --no-bpf-event      do not record BPF program load events\n"
	      "    -s, --stat              per-thread counts (perf report -T)\n"
	      "    -D, --delay <ms>        enable the events ms after the start (-1: start\n"
	      "                            disabled, for --control)\n"
	      "    -r, --realtime <prio>   run the recorder at this SCHED_FIFO priority\n"
	      "        --no-buffering      wake up for every record\n"
	      "        --mmap-flush <size> take a ring's data once it holds this much (default 1)\n"
	      "        --aio[=<n>]         accepted (1-4): prec always writes in its own thread\n"
	      "        --affinity <node|cpu>\n"
	      "                            accepted: prec's drain loop is not pinned\n"
	      "        --max-size <size>   stop once the data reaches size (B, K, M, G)\n"
	      "        --switch-output[=<signal|size|time>]\n"
	      "                            rotate the output on SIGUSR2, at size[BKMG] or every\n"
	      "                            time[smhd]: each file gets a timestamp suffix\n"
	      "        --switch-max-files <n>\n"
	      "                            keep only the n newest rotated files\n"
	      "        --timestamp-filename\n"
	      "                            append a timestamp to the output file name\n"
	      "        --timestamp-boundary\n"
	      "                            record the first and last sample times (always done)\n"
	      "        --control <fd:ctl[,ack]|fifo:ctl[,ack]>\n"
	      "                            take commands (enable, disable, snapshot, stop, ping,\n"
	      "                            evlist) from ctl; answer \"ack\" on ack\n"
	      "        --dry-run           parse the options, then exit\n"
	      "        --proc-map-timeout <ms>, --num-thread-synthesize <n>\n"
	      "                            accepted for perf compatibility\n"
	      "        --vmlinux <file>, --debuginfod[=<urls>], --clang-path <path>,\n"
	      "        --clang-opt <opts>  accepted for perf compatibility (prec keeps no cache)\n"
	      "    -S, --snapshot, --aux-sample\n"
	      "                            refused: they need an AUX area event\n"
	      "        --overwrite         flight recorder: backward rings the kernel overwrites,\n"
	      "                            written at the end (and at each --switch-output)\n"
	      "        --tail-synthesize   synthesize what existed at the end, not at the start\n"
	      "        --switch-output-event <event>\n"
	      "                            rotate the output each time this event fires (as\n"
	      "                            --switch-output on SIGUSR2)\n"
	      "        --kcore             refused: \"kcore is not readable.\" as perf says without\n"
	      "                            /proc/kcore; with it, not supported by prec yet\n"
	      "        --off-cpu           also record where the tasks wait off the CPU (BPF):\n"
	      "                            the offcpu-time event, whose period is the time\n"
	      "        --summary <prec|perf>\n"
	      "                            the summary lines: prec's (default) or perf record's\n"
	      "                            own words (also PREC_SUMMARY=perf)\n"
	      "    -q, --quiet             no messages but errors\n"
	      "    -v, --verbose           more messages (repeatable)\n"
	      "    -h, --help              this help\n"
	      "perf's attr options (each sets the bits perf record sets):\n"
	      "    -b, --branch-any        sample any taken branch (needs a PMU with branch stacks)\n"
	      "    -j, --branch-filter <filter>\n"
	      "                            sample these branches: any, any_call, any_ret, ind_call,\n"
	      "                            ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type,\n"
	      "                            stack, hw_index, priv, u, k, hv (comma-separated)\n"
	      "    -I, --intr-regs[=<regs>]\n"
	      "                            sample registers at the interrupt (-I? lists them)\n"
	      "        --user-regs[=<regs>]\n"
	      "                            sample user registers (--user-regs=? lists them)\n"
	      "    -W, --weight            sample the weight\n"
	      "        --transaction       sample transaction flags (perf 6.1 sets no bit for it)\n"
	      "        --phys-data         sample physical data addresses\n"
	      "        --data-page-size    sample the page size of data addresses\n"
	      "        --code-page-size    sample the page size of code addresses\n"
	      "        --sample-identifier put the id first in every sample (IDENTIFIER)\n"
	      "    -R, --raw-samples       sample raw data, time and CPU\n"
	      "    -n, --no-samples        do not sample (side-band only)\n"
	      "        --all-kernel        only kernel mode for every event\n"
	      "        --all-user          only user mode for every event\n"
	      "        --strict-freq       fail when -F is above the kernel's limit\n"
	      "        --running-time      record the enabled and running times of reads\n"
	      "        --group             put all the events in one group\n"
	      "        --kernel-callchains only kernel call chains\n"
	      "        --user-callchains   only user call chains\n"
	      "        --all-cgroups       record cgroup events and the cgroup in every sample\n"
	      "        --namespaces        record namespace events\n"
	      "        --exclude-perf      the tracepoint -e before it ignores prec itself\n"
	      "    -G, --cgroup <cgroups>  count the -e events before it in these cgroups only\n"
	      "                            (comma list, one per event; one name for all; needs -a)\n"
	      "    -u, --uid <user>        record every process of this user (name or number)\n",
	      f);
}

#if defined(__x86_64__)
/* perf's x86 register names, by their bit in sample_regs_* (asm/perf_regs.h). */
static const char *const reg_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	NULL, NULL, NULL, NULL, /* DS ES FS GS: not sampled in 64-bit mode */
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};
#else
static const char *const reg_names[] = { NULL };
#endif
#define NR_REG_NAMES (sizeof(reg_names) / sizeof(reg_names[0]))
/* What a DWARF unwinder cannot start without: the stack pointer and the pc (SP, IP above). */
#define DWARF_MINIMAL_REGS ((1ULL << 7) | (1ULL << 8))

/*
 * -I and --user-regs: no list means every register perf samples; "?" lists them as perf does.
 * Return: -1 and *mask, or an exit status.
 */
/* Every register perf samples here: also what dwarf unwinding starts from. 0: none known. */
static unsigned long long all_regs(void)
{
	unsigned long long all = 0;

	for (size_t i = 0; i < NR_REG_NAMES; i++)
		if (reg_names[i])
			all |= 1ULL << i;
	return all;
}

static int parse_regs(const char *opt, const char *s, unsigned long long *mask)
{
	unsigned long long all = all_regs();

	if (!all)
		return usage_error("record", "%s: prec knows the registers of x86_64 only", opt);
	if (!s) {
		*mask = all;
		return -1;
	}
	if (!strcmp(s, "?")) {
		fputs("available registers:", stderr);
		for (size_t i = 0; i < NR_REG_NAMES; i++)
			if (reg_names[i])
				fprintf(stderr, " %s", reg_names[i]);
		fputs(" \n", stderr);
		return 129;
	}
	*mask = 0;
	while (*s) {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < NR_REG_NAMES; i++)
			if (reg_names[i] && strlen(reg_names[i]) == n && !strncasecmp(s, reg_names[i], n))
				break;
		if (i == NR_REG_NAMES)
			return usage_error("record", "%s: Unknown register \"%.*s\", check man page "
					   "or run \"prec record %s?\"", opt, (int)n, s, opt);
		*mask |= 1ULL << i;
		s += n;
		if (*s)
			s++;
	}
	return -1;
}

/*
 * --call-graph MODE[,SIZE], read as perf's parse_callchain_record() reads it: fp,N sets the
 * deepest callchain when N is below kernel.perf_event_max_stack (else the kernel's), dwarf,N the
 * bytes of user stack each sample copies (rounded up to 8, at most 65528: the kernel's sample
 * size is a u16), lbr takes nothing. dwarf also samples data addresses, as perf does.
 * Return: -1, or the exit status.
 */
static int parse_call_graph(struct record_opts *o, const char *arg)
{
	const unsigned long max_dump = 65528;
	char buf[256], *save = NULL, *mode, *tok, *end;
	unsigned long v;
	u64 sysctl_max = 127;

	if (strlen(arg) >= sizeof(buf))
		return usage_error("record", "--call-graph: the value is too long");
	strcpy(buf, arg);
	mode = strtok_r(buf, ",", &save);
	tok = mode ? strtok_r(NULL, ",", &save) : NULL;
	if (mode && !strcmp(mode, "fp")) {
		o->callgraph_mode = RECORD_CALLGRAPH_FP;
		o->max_stack = 0;
		if (tok) {
			errno = 0;
			v = strtoul(tok, &end, 0);
			if (errno || *end || end == tok)
				return usage_error("record", "--call-graph fp,%s: not a callchain "
						   "depth", tok);
			read_sysctl_u64("/proc/sys/kernel/perf_event_max_stack", &sysctl_max);
			if (v < sysctl_max)
				o->max_stack = (unsigned)v;
		}
	} else if (mode && !strcmp(mode, "dwarf")) {
		if (!all_regs())
			return usage_error("record", "--call-graph dwarf: prec knows the registers "
					   "of x86_64 only");
		o->callgraph_mode = RECORD_CALLGRAPH_DWARF;
		o->stack_dump_size = RECORD_DWARF_STACK_SIZE;
		if (tok) {
			errno = 0;
			v = strtoul(tok, &end, 0);
			if (!errno && !*end && end != tok && v && v <= max_dump)
				v = (v + 7) & ~7UL;
			else
				v = 0;
			if (!v || v > max_dump)
				return usage_error("record", "--call-graph dwarf: Incorrect stack "
						   "dump size (max %lu): %s", max_dump, tok);
			o->stack_dump_size = (u32)v;
		}
		o->sample_addr = true;
	} else if (mode && !strcmp(mode, "lbr")) {
		if (tok)
			return usage_error("record", "--call-graph lbr: No more arguments needed");
		o->callgraph_mode = RECORD_CALLGRAPH_LBR;
	} else {
		return usage_error("record", "--call-graph '%s': Unknown --call-graph option value "
				   "(fp, dwarf[,size] or lbr)", arg);
	}
	o->callgraph = true;
	return -1;
}

static const struct {
	const char *name;
	int id;
} clockids[] = {
	{ "monotonic", CLOCK_MONOTONIC },     { "mono", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME },       { "real", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },       { "boot", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
};

static int parse_clockid(const char *s, int *id)
{
	u64 v;

	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (size_t i = 0; i < sizeof(clockids) / sizeof(clockids[0]); i++) {
		if (!strcasecmp(s, clockids[i].name)) {
			*id = clockids[i].id;
			return 0;
		}
	}
	if (!parse_u64(s, &v) && v < 64) {
		*id = (int)v;
		return 0;
	}
	return -1;
}

/* -m: a number of pages (rounded up to 2^n, as perf does) or a size with B/K/M/G. */
static int parse_mmap_pages(const char *s, unsigned *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	bool unit;
	u64 v;

	if (parse_size(s, &v, &unit))
		return -1;
	if (unit)
		v = v / page + (v % page != 0);
	if (!v || v > (1ULL << 24))
		return -1;
	if (v & (v - 1)) {
		unsigned long long p = 1;

		while (p < v)
			p <<= 1;
		note("rounding mmap pages size to %lluK (%llu pages)", p * page / 1024, p);
		v = p;
	}
	*pages = (unsigned)v;
	return 0;
}

/* --overhead-interval, --count-interval: a duration (util/parse.h) from 10 ms to 1 h. */
static int parse_interval(const char *s, u64 *ns)
{
	u64 v;

	if (parse_duration(s, &v) || v < INTERVAL_MIN_NS || v > INTERVAL_MAX_NS)
		return -EINVAL;
	*ns = v;
	return 0;
}

/* --count EVENTS: perf's -e syntax, added to list; on failure a one-line reason in why. */
static int parse_count_events(struct event_list *list, const char *events, char *why,
			      size_t why_len)
{
	struct parse_error perr;

	memset(&perr, 0, sizeof(perr));
	if (!parse_events(list, events, &perr))
		return event_list_check_counted(list, why, why_len);
	if (perr.pos > 0 && (size_t)perr.pos < strlen(events))
		snprintf(why, why_len, "event syntax error at '%s': %s", events + perr.pos,
			 perr.msg);
	else
		snprintf(why, why_len, "event syntax error: %s", perr.msg);
	return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* The session's options: how the recording runs, as perf record's options of the same names. */

/* --switch-output's time: a number with s, m, h or d. */
static int parse_switch_time(const char *s, u64 *ns)
{
	static const struct { char unit; u64 sec; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char *end;
	u64 v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || !*end || end[1])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (*end == units[i].unit) {
			*ns = v * units[i].sec * 1000000000ULL;
			return v ? 0 : -EINVAL;
		}
	}
	return -EINVAL;
}

/* --synth: a comma list of no, all, task, mmap (which implies task), cgroup. */
static int parse_synth(const char *arg, unsigned *synth)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	int err = 0;

	*synth = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "no"))
			*synth = 0;
		else if (!strcmp(tok, "all"))
			*synth = RECORD_SYNTH_ALL;
		else if (!strcmp(tok, "task"))
			*synth |= RECORD_SYNTH_TASK;
		else if (!strcmp(tok, "mmap"))
			*synth |= RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP;
		else if (!strcmp(tok, "cgroup"))
			*synth |= RECORD_SYNTH_CGROUP;
		else
			err = -EINVAL;
	}
	free(copy);
	return tok || err ? -EINVAL : 0;
}

/* --threads: perf's specs, checked; the masks form is MAPS/AFFINITY[:MAPS/AFFINITY ...]. */
static int check_threads_spec(const char *spec)
{
	static const char *const named[] = { "cpu", "core", "package", "numa" };
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!spec)
		return 0;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(spec, named[i]))
			return 0;
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ":", &save); tok && !err; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		struct cpu_map m = CPU_MAP_INIT;

		if (!slash) {
			err = -EINVAL;
			break;
		}
		*slash = 0;
		err = cpu_map_parse(&m, tok) || !m.nr ? -EINVAL : 0;
		if (!err)
			err = cpu_map_parse(&m, slash + 1) || !m.nr ? -EINVAL : 0;
		cpu_map_free(&m);
	}
	free(copy);
	return err || !*spec ? -EINVAL : 0;
}

/* --control fd:CTL[,ACK] or fifo:CTL[,ACK]: the descriptors, as perf opens them. */
static int open_control(struct record_opts *o, const char *arg)
{
	char *copy = xstrdup(arg), *ack = strchr(copy, ',');
	int err = 0;

	if (ack)
		*ack++ = 0;
	if (!strncmp(copy, "fd:", 3)) {
		u64 c, a = 0;

		if (parse_u64(copy + 3, &c) || (ack && parse_u64(ack, &a)) || c > INT_MAX ||
		    a > INT_MAX || fcntl((int)c, F_GETFD) < 0 ||
		    (ack && fcntl((int)a, F_GETFD) < 0))
			err = -EBADF;
		o->ctl_fd = (int)c;
		o->ack_fd = ack ? (int)a : -1;
	} else if (!strncmp(copy, "fifo:", 5)) {
		/* Read-write, so that the fifo never reports EOF when its writer closes it. */
		o->ctl_fd = open(copy + 5, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		o->ack_fd = ack ? open(ack, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1;
		if (o->ctl_fd < 0 || (ack && o->ack_fd < 0))
			err = -errno;
	} else {
		err = -EINVAL;
	}
	free(copy);
	return err;
}

/*
 * One option of the session's block. Return: -1 when taken, else the exit status of a usage
 * error (after its one-line message).
 */
static int parse_session_option(struct record_opts *o, int c, const char *arg)
{
	u64 v;

	switch (c) {
	case OPT_PER_THREAD:
		o->per_thread = true;
		break;
	case OPT_SYNTH:
		if (parse_synth(arg, &o->synth))
			return usage_error("record", "--synth '%s': no, all, task, mmap or cgroup",
					   arg);
		break;
	case OPT_THREADS:
		if (check_threads_spec(arg))
			return usage_error("record", "--threads '%s': invalid thread maps or "
					   "affinity specs (cpu, core, package, numa, or "
					   "CPUS/CPUS[:CPUS/CPUS ...])", arg);
		break;
	case OPT_NO_BPF_EVENT:
		o->no_bpf_event = true;
		break;
	case 's':
		o->inherit_stat = true;
		break;
	case 'D': {
		char *end;
		long ms;

		errno = 0;
		ms = strtol(arg, &end, 10);
		if (*end == '-' && end != arg && ms >= 0)
			return usage_error("record", "-D '%s': ranges of time are not supported by "
					   "prec yet", arg);
		if (errno || end == arg || *end || ms < -1)
			return usage_error("record", "-D '%s': milliseconds, or -1 to start with "
					   "the events disabled", arg);
		o->delay_ms = ms;
		break;
	}
	case 'r': {
		struct sched_param sp;

		if (parse_u64(arg, &v) || v < 1 || v > 99)
			return usage_error("record", "-r '%s': a SCHED_FIFO priority, 1 to 99",
					   arg);
		sp.sched_priority = (int)v;
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			error("Could not set realtime priority.");
			return 1;
		}
		break;
	}
	case OPT_NO_BUFFERING:
		o->no_buffering = true;
		break;
	case OPT_MMAP_FLUSH:
		if (parse_size(arg, &o->mmap_flush, NULL) || !o->mmap_flush)
			return usage_error("record", "--mmap-flush '%s': a size in bytes (B, K, "
					   "M, G)", arg);
		break;
	case OPT_AIO:
		if (arg && (parse_u64(arg, &v) || v < 1 || v > 4))
			return usage_error("record", "--aio '%s': 1 to 4 control blocks", arg);
		break;
	case OPT_AFFINITY:
		break;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &o->max_size, NULL) || !o->max_size)
			return usage_error("record", "--max-size '%s': a size (B, K, M, G)", arg);
		break;
	case OPT_SWITCH_OUTPUT:
		o->timestamp_filename = true;
		if (!arg || !strcmp(arg, "signal"))
			o->switch_output = RECORD_SWITCH_SIGNAL;
		else if (!parse_size(arg, &o->switch_size, NULL) && o->switch_size)
			o->switch_output = RECORD_SWITCH_SIZE;
		else if (!parse_switch_time(arg, &o->switch_time_ns))
			o->switch_output = RECORD_SWITCH_TIME;
		else
			return usage_error("record", "--switch-output '%s': signal, a "
					   "size[BKMG] or a time[smhd]", arg);
		break;
	case OPT_SWITCH_MAX_FILES:
		if (parse_u64(arg, &v) || v > INT_MAX)
			return usage_error("record", "--switch-max-files '%s': a number of files",
					   arg);
		o->switch_max_files = (int)v;
		break;
	case OPT_TIMESTAMP_FILENAME:
		o->timestamp_filename = true;
		break;
	case OPT_TIMESTAMP_BOUNDARY:
		break;
	case OPT_CONTROL:
		if (open_control(o, arg))
			return usage_error("record", "--control '%s': give fd:CTL[,ACK] with open "
					   "descriptors, or fifo:CTL[,ACK] with existing fifos",
					   arg);
		break;
	case OPT_PROC_MAP_TIMEOUT:
	case OPT_NUM_THREAD_SYNTHESIZE:
		if (parse_u64(arg, &v) || (c == OPT_NUM_THREAD_SYNTHESIZE && !v))
			return usage_error("record", "--%s '%s': not a number",
					   c == OPT_PROC_MAP_TIMEOUT ? "proc-map-timeout" :
					   "num-thread-synthesize", arg);
		break;
	case OPT_VMLINUX:
		if (access(arg, R_OK)) {
			error("Invalid file: %s", arg);
			return 1;
		}
		break;
	case OPT_DEBUGINFOD:
	case OPT_CLANG_PATH:
	case OPT_CLANG_OPT:
		break;
	case 'S':
		/* As perf on a machine without an AUX area event (no PMU of that kind here). */
		error("No AUX area tracing to snapshot");
		return 1;
	case OPT_AUX_SAMPLE:
		error("No AUX area event to sample");
		return 1;
	case OPT_OFF_CPU:
#ifdef HAVE_BPF
		o->off_cpu = true;
		break;
#else
		error("--off-cpu needs BPF: this prec was built without libbpf, clang and bpftool");
		return 1;
#endif
	case OPT_OVERWRITE:
		o->overwrite = true;
		break;
	case OPT_TAIL_SYNTHESIZE:
		o->tail_synthesize = true;
		break;
	case OPT_KCORE:
		/* perf's check first: without /proc/kcore it stops with this reason */
		if (access("/proc/kcore", R_OK)) {
			error("kcore is not readable.");
			return 1;
		}
		error("--kcore is not supported by prec yet");
		return 1;
	case OPT_DRY_RUN:
		o->dry_run = true;
		break;
	case OPT_SUMMARY:
		if (strcmp(arg, "perf") && strcmp(arg, "prec"))
			return usage_error("record", "--summary '%s': prec or perf", arg);
		o->perf_summary = !strcmp(arg, "perf");
		break;
	default:
		return -2;
	}
	return -1;
}

struct pending_event {
	const char *str;
	const char *filter;
	bool exclude_perf; /* --exclude-perf */
	const char **cgroups; /* -G options given after it, before the next -e */
	int nr_cgroups;
};

/*
 * perf's attr options, into ao. Return: -1 when c was one and is fine, -2 when c is not one of
 * them, else the exit status.
 */
static int parse_attr_option(int c, struct record_attr_opts *ao, struct pending_event *evs,
			     int nr_evs)
{
	const char *bad = NULL;

	switch (c) {
	case 'b':
		ao->branch_stack = PERF_SAMPLE_BRANCH_ANY;
		return -1;
	case 'j':
		if (parse_branch_filter(optarg, &ao->branch_stack, &bad))
			return usage_error("record", "unknown branch filter %.*s, check man page",
					   (int)strcspn(bad, ","), bad);
		return -1;
	case 'I':
		return parse_regs("-I", optarg, &ao->intr_regs);
	case OPT_USER_REGS:
		return parse_regs("--user-regs", optarg, &ao->user_regs);
	case 'W':
		ao->weight = true;
		return -1;
	case OPT_TRANSACTION:
		/* perf 6.1 takes it and sets no sample bit for it (checked with perf evlist -v) */
		return -1;
	case OPT_PHYS_DATA:
		ao->phys_data = true;
		return -1;
	case OPT_DATA_PAGE_SIZE:
		ao->data_page_size = true;
		return -1;
	case OPT_CODE_PAGE_SIZE:
		ao->code_page_size = true;
		return -1;
	case OPT_SAMPLE_IDENTIFIER:
		ao->sample_identifier = true;
		return -1;
	case 'R':
		ao->raw_samples = true;
		return -1;
	case 'n':
		ao->no_samples = true;
		return -1;
	case OPT_ALL_KERNEL:
		ao->all_kernel = true;
		return -1;
	case OPT_ALL_USER:
		ao->all_user = true;
		return -1;
	case OPT_STRICT_FREQ:
		ao->strict_freq = true;
		return -1;
	case OPT_RUNNING_TIME:
		ao->running_time = true;
		return -1;
	case OPT_GROUP:
		ao->group = true;
		return -1;
	case OPT_KERNEL_CALLCHAINS:
		ao->kernel_callchains = true;
		return -1;
	case OPT_USER_CALLCHAINS:
		ao->user_callchains = true;
		return -1;
	case OPT_ALL_CGROUPS:
		ao->all_cgroups = true;
		return -1;
	case OPT_NAMESPACES:
		ao->namespaces = true;
		return -1;
	case 'G': {
		struct pending_event *e;

		if (!nr_evs)
			return usage_error("record", "must define events before cgroups");
		/* resolved once the events are parsed: perf gives them by event position */
		e = &evs[nr_evs - 1];
		e->cgroups = xrealloc(e->cgroups, (e->nr_cgroups + 1) * sizeof(*e->cgroups));
		e->cgroups[e->nr_cgroups++] = optarg;
		return -1;
	}
	case OPT_EXCLUDE_PERF:
		if (!nr_evs)
			return usage_error("record", "--exclude-perf option should follow a -e "
					   "tracepoint option");
		evs[nr_evs - 1].exclude_perf = true;
		return -1;
	default:
		return -2;
	}
}

static int parse_options(struct record_opts *o, int argc, char **argv, struct pending_event **evs,
			 int *nr_evs, struct event_list *count_events, struct record_attr_opts *ao,
			 struct event_list *switch_events)
{
	int c, r;

	o->output = NULL;
	o->freq = DEFAULT_FREQ;
	o->overhead_interval_ns = OVERHEAD_INTERVAL_DEFAULT_NS;
	o->aggregate_interval_ns = AGGREGATE_INTERVAL_DEFAULT_NS;
	o->aggregate_entries = AGGREGATE_ENTRIES_DEFAULT;
	o->count_events = count_events;
	o->synth = RECORD_SYNTH_ALL;
	o->ctl_fd = o->ack_fd = -1;
	o->perf_summary = getenv("PREC_SUMMARY") && !strcmp(getenv("PREC_SUMMARY"), "perf");
	opterr = 0;
	optind = 1;
	o->attr = ao;
	o->dwarf_regs = all_regs();
	o->stack_dump_size = RECORD_DWARF_STACK_SIZE;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		r = parse_attr_option(c, ao, *evs, *nr_evs);
		if (r != -2) {
			if (r >= 0)
				return r;
			continue;
		}
		switch (c) {
		case 'e':
			*evs = xrealloc(*evs, (*nr_evs + 1) * sizeof(**evs));
			memset(&(*evs)[*nr_evs], 0, sizeof(**evs));
			(*evs)[*nr_evs].str = optarg;
			(*nr_evs)++;
			break;
		case OPT_FILTER:
			if (!*nr_evs)
				return usage_error("record", "--filter must follow the -e it is for");
			(*evs)[*nr_evs - 1].filter = optarg;
			break;
		case 'F':
			if (!strcmp(optarg, "max")) {
				if (read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate",
						    &o->freq))
					return usage_error("record", "-F max: cannot read "
						"kernel.perf_event_max_sample_rate");
			} else if (parse_u64(optarg, &o->freq) || !o->freq) {
				return usage_error("record", "-F '%s': not a frequency in Hz", optarg);
			}
			o->freq_set = true;
			break;
		case OPT_COUNT:
			/* perf's --count is -c; a list of events (never a bare number) is counted. */
			if (parse_u64(optarg, &o->period)) {
				char why[640];

				if (parse_count_events(count_events, optarg, why, sizeof(why)))
					return usage_error("record", "--count '%s': %s", optarg, why);
				break;
			}
			/* fall through */
		case 'c':
			if (parse_u64(optarg, &o->period) || !o->period)
				return usage_error("record", "-c '%s': not a sample period", optarg);
			o->period_set = true;
			break;
		case 'g':
			o->callgraph = true;
			break;
		case OPT_CALL_GRAPH:
			r = parse_call_graph(o, optarg);
			if (r >= 0)
				return r;
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
		case 'u':
			o->uid = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'z':
			o->comp_level = 1;
			if (optarg) {
				u64 v;

				if (parse_u64(optarg, &v) || v < 1 || v > 22)
					return usage_error("record", "-z '%s': the level is 1 to 22",
							   optarg);
				o->comp_level = (int)v;
			}
			break;
		case 'm':
			if (parse_mmap_pages(optarg, &o->mmap_pages))
				return usage_error("record", "-m '%s': give pages (a power of 2) or "
						   "a size such as 512K", optarg);
			break;
		case 'T':
			o->sample_time = true;
			break;
		case 'd':
			o->sample_addr = true;
			break;
		case OPT_SAMPLE_CPU:
			o->sample_cpu = true;
			break;
		case 'P':
			o->sample_period = true;
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case 'i':
			o->no_inherit = true;
			break;
		case 'k':
			if (parse_clockid(optarg, &o->clockid))
				return usage_error("record", "-k '%s': unknown clock", optarg);
			o->use_clockid = true;
			break;
		case 'B':
			o->no_buildid = true;
			break;
		case 'N':
			o->no_buildid_cache = true;
			break;
		case OPT_BUILDID_ALL:
			o->buildid_all = true;
			break;
		case OPT_BUILDID_MMAP:
			o->buildid_mmap = true;
			break;
		case OPT_BUILDID_DIR:
			o->buildid_dir = optarg;
			break;
		case OPT_OVERHEAD_SOURCE: {
			enum overhead_source src;

			if (overhead_source_parse(optarg, &src))
				return usage_error("record", "--overhead-source '%s': auto, bpf, "
						   "tracepoint or none", optarg);
			o->overhead_source = src;
			break;
		}
		case OPT_RECALIBRATE:
			o->recalibrate = true;
			break;
		case OPT_AGGREGATE:
			o->aggregate = true;
			break;
		case OPT_AGGREGATE_INTERVAL:
			if (parse_interval(optarg, &o->aggregate_interval_ns))
				return usage_error("record", "--aggregate-interval '%s': a duration "
						   "from 10ms to 1h, such as 500ms or 2s", optarg);
			break;
		case OPT_AGGREGATE_ENTRIES: {
			u64 v;

			if (parse_u64(optarg, &v) || v < 1 || v > AGGREGATE_ENTRIES_MAX)
				return usage_error("record", "--aggregate-entries '%s': a number "
						   "of keys from 1 to %llu", optarg,
						   AGGREGATE_ENTRIES_MAX);
			o->aggregate_entries = v;
			break;
		}
		case OPT_SWITCH_OUTPUT_EVENT: {
			char why[640];

			/* perf: the event's every occurrence is a SIGUSR2 of --switch-output */
			if (parse_count_events(switch_events, optarg, why, sizeof(why)))
				return usage_error("record", "--switch-output-event '%s': %s", optarg,
						   why);
			o->switch_output_events = switch_events;
			o->switch_output = RECORD_SWITCH_SIGNAL;
			o->timestamp_filename = true;
			break;
		}
		case OPT_BPF_COUNTERS:
#ifdef HAVE_BPF
			o->bpf_counters = true;
			break;
#else
			error("--bpf-counters needs BPF: this prec was built without libbpf, clang "
			      "and bpftool");
			return 1;
#endif
		case OPT_COUNT_INTERVAL:
			if (parse_interval(optarg, &o->count_interval_ns))
				return usage_error("record", "--count-interval '%s': a duration from "
						   "10ms to 1h, such as 500ms or 2s", optarg);
			break;
		case OPT_OVERHEAD_INTERVAL:
			if (parse_interval(optarg, &o->overhead_interval_ns))
				return usage_error("record", "--overhead-interval '%s': a duration "
						   "from 10ms to 1h, such as 500ms or 2s", optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return usage_error("record", "option '%s' needs a value", argv[optind - 1]);
		default: {
			int err = parse_session_option(o, c, optarg);

			if (err != -2) {
				if (err >= 0)
					return err;
				break;
			}
			if (optopt && optopt != '?')
				return usage_error("record", "unknown option '-%c'", optopt);
			return usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	return -1;
}

/*
 * --aggregate: the option that asks for what the kernel samples but the program does not keep
 * (it counts period, task, CPU and stacks only), or NULL when there is none.
 */
static const char *unaggregatable_option(const struct record_opts *o,
					 const struct record_attr_opts *ao)
{
	if (ao->weight)
		return "-W";
	if (o->sample_addr)
		return "-d";
	if (ao->data_page_size)
		return "--data-page-size";
	if (ao->code_page_size)
		return "--code-page-size";
	if (ao->phys_data)
		return "--phys-data";
	if (ao->raw_samples)
		return "-R";
	if (ao->user_regs)
		return "--user-regs";
	if (ao->intr_regs)
		return "-I";
	if (ao->branch_stack)
		return "-b/-j";
	return NULL;
}

/* What perf record refuses before it opens anything. Return: -1, or the exit status. */
static int check_attr_options(const struct record_opts *o, const struct record_attr_opts *ao)
{
	u64 max = 0;

	if (ao->strict_freq && o->freq_set && !o->period_set &&
	    !read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate", &max) &&
	    o->freq > max) {
		error("Maximum frequency rate (%llu Hz) exceeded. Please use -F freq option with a "
		      "lower value or consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.",
		      (unsigned long long)max);
		return 1;
	}
	return -1;
}

/* The cgroups of -G, by event index (record_opts.cgroup_fds), and how many names were given. */
struct cgroup_args {
	int *fds;
	int nr_fds;
	int nr_given;
};

/*
 * One -G option, with nr_events events parsed before it, as perf's parse_cgroups(): the n-th
 * name of all the -G options goes to the n-th event (an empty name skips one), and a first -G
 * of a single name goes to every event before it. Return: -1, or the exit status.
 */
static int add_cgroups(struct cgroup_args *cg, const char *names, int nr_events)
{
	const char *p = names;

	cg->fds = xrealloc(cg->fds, nr_events * sizeof(int));
	for (; cg->nr_fds < nr_events; cg->nr_fds++)
		cg->fds[cg->nr_fds] = -1;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (len) {
			char *name = xasprintf("%.*s", (int)len, p), path[PATH_MAX];
			int fd;

			if (cg->nr_given >= nr_events) {
				free(name);
				return usage_error("record", "-G '%s': more cgroups than events before "
						   "it", names);
			}
			fd = target_open_cgroup(name, path, sizeof(path));
			free(name);
			if (fd < 0)
				return usage_error("record", "no access to cgroup %s", path);
			if (cg->fds[cg->nr_given] >= 0)
				close(cg->fds[cg->nr_given]);
			cg->fds[cg->nr_given] = fd;
		}
		cg->nr_given++;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (cg->nr_given == 1 && cg->fds[0] >= 0) {
		for (int i = 1; i < nr_events; i++) {
			if (cg->fds[i] >= 0)
				close(cg->fds[i]);
			cg->fds[i] = fcntl(cg->fds[0], F_DUPFD_CLOEXEC, 0);
		}
	}
	return -1;
}

static void free_pending_events(struct pending_event *evs, int nr_evs)
{
	for (int i = 0; i < nr_evs; i++)
		free(evs[i].cgroups);
	free(evs);
}

static void free_cgroups(struct cgroup_args *cg)
{
	for (int i = 0; i < cg->nr_fds; i++)
		if (cg->fds[i] >= 0)
			close(cg->fds[i]);
	free(cg->fds);
}

static int parse_event_args(struct event_list *events, const struct pending_event *evs, int nr_evs,
			    struct cgroup_args *cg)
{
	for (int i = 0; i < nr_evs; i++) {
		struct parse_error perr;

		memset(&perr, 0, sizeof(perr));
		if (parse_events(events, evs[i].str, &perr)) {
			parse_events_print_error(evs[i].str, &perr);
			return -1;
		}
		if (evs[i].filter && parse_filter(events, evs[i].filter))
			return -1;
		if (evs[i].exclude_perf) {
			char f[64];

			/* perf's --exclude-perf: the recorder's own pid, as a tracepoint filter */
			snprintf(f, sizeof(f), "common_pid != %d", (int)getpid());
			if (parse_filter(events, f))
				return -1;
		}
		for (int k = 0; k < evs[i].nr_cgroups; k++)
			if (add_cgroups(cg, evs[i].cgroups[k], events->nr) >= 0)
				return -1;
	}
	return 0;
}

/*
 * perf record's own summary lines, its figures as it computes them: the data section's end in
 * the file (0 in pipe mode), and the samples only where perf counts them (its build-id pass).
 */
static void print_perf_summary(struct record *rec)
{
	const struct record_opts *o = record_options(rec);
	struct record_stats *s = record_stats(rec);
	u64 data_end, wakeups;
	const char *path = record_output_file(rec, &data_end, &wakeups);

	fprintf(stderr, "[ perf record: Woken up %llu times to write data ]\n",
		(unsigned long long)wakeups);
	if (o->timestamp_filename && !o->pipe)
		fprintf(stderr, "[ perf record: Dump %s ]\n", path);
	fprintf(stderr, "[ perf record: Captured and wrote %.3f MB %s%s", data_end / 1048576.0,
		o->output, o->timestamp_filename && !o->pipe ? ".<timestamp>" : "");
	/* perf counts every sample of the file, prec:overhead's and the aggregated ones too. */
	if (s->samples + s->own_samples && !o->no_buildid && !o->comp_level && !o->pipe &&
	    !o->switch_output)
		fprintf(stderr, " (%llu samples)",
			(unsigned long long)(s->samples + s->own_samples));
	if (o->comp_level && s->data_bytes)
		fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
			s->records_bytes / 1048576.0, (double)s->records_bytes / s->data_bytes);
	fprintf(stderr, " ]\n");
}

static void print_summary(struct record *rec, const char *path)
{
	const struct record_opts *o = record_options(rec);
	struct record_stats *s = record_stats(rec);
	const struct record_aggregate *agg;
	double mb;
	struct stat st;
	u64 data_end, wakeups;

	if (quiet)
		return;
	if (o->perf_summary) {
		print_perf_summary(rec);
		return;
	}
	path = record_output_file(rec, &data_end, &wakeups);
	if (!o->pipe && !stat(path, &st))
		mb = st.st_size / 1048576.0;
	else
		mb = s->data_bytes / 1048576.0;
	fprintf(stderr, "[ prec record: Woken up %llu times to write data ]\n",
		(unsigned long long)wakeups);
	if (o->timestamp_filename && !o->pipe)
		fprintf(stderr, "[ prec record: Dump %s ]\n", path);
	agg = record_aggregate(rec);
	if (agg)
		fprintf(stderr, "[ prec record: Captured and wrote %.3f MB %s (%llu samples in %llu "
			"records, aggregated in the kernel)", mb, path,
			(unsigned long long)agg->samples, (unsigned long long)agg->records);
	else
		fprintf(stderr, "[ prec record: Captured and wrote %.3f MB %s (%llu samples)", mb,
			path, (unsigned long long)s->samples);
	if (o->comp_level && s->data_bytes)
		fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
			s->records_bytes / 1048576.0, (double)s->records_bytes / s->data_bytes);
	fprintf(stderr, " ]\n");
	if (s->lost) {
		u64 chunks = 0;

		for (int i = 0; i < s->nr_cpus; i++)
			chunks += s->cpu[i].lost_records;
		fprintf(stderr, "[ prec record: Lost %llu events in %llu ring-buffer overflows: try "
			"a larger -m or a lower -F ]\n",
			(unsigned long long)s->lost, (unsigned long long)chunks);
	}
	/* PERF_FORMAT_LOST counts the same samples as LOST, per event: say it when it differs. */
	if (s->lost_samples && s->lost_samples != s->lost)
		fprintf(stderr, "[ prec record: Lost %llu samples (counted by the kernel) ]\n",
			(unsigned long long)s->lost_samples);
}

int cmd_record(int argc, char **argv)
{
	struct record *rec = record_new();
	const struct record_stats *s = record_stats(rec);
	struct record_opts opts, *o = &opts;
	struct event_list events, count_events, switch_events;
	struct pending_event *evs = NULL;
	struct record_attr_opts attr_opts;
	struct cgroup_args cgroups = { NULL, 0, 0 };
	int nr_evs = 0, ret = 1, err;
	struct stat st;

	memset(o, 0, sizeof(*o));
	memset(&events, 0, sizeof(events));
	memset(&count_events, 0, sizeof(count_events));
	o->orig_argc = argc;
	o->orig_argv = (const char **)argv;

	memset(&attr_opts, 0, sizeof(attr_opts));
	memset(&switch_events, 0, sizeof(switch_events));
	err = parse_options(o, argc, argv, &evs, &nr_evs, &count_events, &attr_opts,
			    &switch_events);
	if (err >= 0)
		goto out_usage;
	err = check_attr_options(o, &attr_opts);
	if (err >= 0)
		goto out_usage;
	/* --aggregate: the program's times (bpf_ktime_get_ns) are CLOCK_MONOTONIC's. */
	if (o->aggregate && o->use_clockid && o->clockid != CLOCK_MONOTONIC) {
		err = usage_error("record", "--aggregate runs the events on CLOCK_MONOTONIC: -k "
				  "cannot choose another clock");
		goto out_usage;
	}
	if (o->aggregate && o->callgraph && o->callgraph_mode != RECORD_CALLGRAPH_FP) {
		err = usage_error("record", "--aggregate cannot take --call-graph %s: stacks "
				  "cannot be aggregated in the kernel, which counts only the "
				  "stacks it walks itself (frame pointers: use -g)",
				  o->callgraph_mode == RECORD_CALLGRAPH_DWARF ? "dwarf" : "lbr");
		goto out_usage;
	}
	/* perf's rule: --user-regs chooses the registers, dwarf adds the two it needs */
	if (attr_opts.user_regs)
		o->dwarf_regs = DWARF_MINIMAL_REGS;
	if (o->callgraph && o->callgraph_mode == RECORD_CALLGRAPH_DWARF && attr_opts.user_regs) {
		warning("The use of --call-graph=dwarf may require all the user registers, "
			"specifying a subset with --user-regs may render DWARF unwinding "
			"unreliable, so the minimal registers set (IP, SP) is explicitly forced.");
	}
	if (o->aggregate && unaggregatable_option(o, &attr_opts)) {
		err = usage_error("record", "--aggregate cannot honour %s: the samples are counted "
				  "in the kernel, which keeps only their period, task, CPU and stacks",
				  unaggregatable_option(o, &attr_opts));
		goto out_usage;
	}
	if (o->aggregate) {
		o->use_clockid = true;
		o->clockid = CLOCK_MONOTONIC;
	}
	/* perf's target__validate(): -p/-t override -u, which overrides -a and -C */
	if ((o->pid_list || o->tid_list) && o->uid) {
		warning("-p/-t given: recording those tasks, not the processes of -u %s", o->uid);
		o->uid = NULL;
	}
	if (o->pid_list || o->tid_list || o->uid) {
		if (o->system_wide || o->cpu_list)
			warning("%s given: recording those tasks, not %s", o->uid ? "-u" : "-p/-t",
				o->system_wide ? "all CPUs (-a)" : "the CPUs of -C");
		o->system_wide = false;
		o->cpu_list = NULL;
	}
	if (!o->argc && !o->system_wide && !o->cpu_list && !o->pid_list && !o->tid_list &&
	    !o->uid) {
		err = usage_error("record", "nothing to record: give a command, -a, -C, -p, -t or -u");
		goto out_usage;
	}
	if (!o->output) {
		/* perf's rule: with stdout a pipe and no -o, write pipe mode to it. */
		o->output = (!fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode)) ? "-" : "perf.data";
	}
	o->pipe = !strcmp(o->output, "-");
	/* A rotation closes one file and opens the next: a pipe has no next. */
	if (o->pipe && o->switch_output) {
		err = usage_error("record", "--switch-output needs an output file, not a pipe");
		goto out_usage;
	}
#ifndef HAVE_ZSTD
	if (o->comp_level) {
		error("-z: prec was built without zstd");
		err = 1;
		goto out_usage;
	}
#endif
	/* A command that cannot run is reported before anything is touched, as a shell would. */
	if (o->argc) {
		err = target_find_command(o->argv[0]);
		if (err)
			goto out_usage;
	}
	if (parse_event_args(&events, evs, nr_evs, &cgroups))
		goto out;
	if (cgroups.nr_given && !o->system_wide) {
		ret = usage_error("record", "cgroup monitoring only available in system-wide mode");
		goto out;
	}
	o->cgroup_fds = cgroups.fds;
	o->nr_cgroup_fds = cgroups.nr_fds;
	if (o->dry_run) {
		ret = 0;
		goto out;
	}

	err = record_run(rec, o, &events, hooks, sizeof(hooks) / sizeof(hooks[0]));
	if (err) {
		if (err > 0)
			ret = err;
		goto out;
	}
	debug(1, "%llu passes, %llu wakeups, at most %llu bytes in a ring at a pass, at most %llu "
		 "bytes queued for the writer, %llu passes left data behind, %.1f ms writing, "
		 "CPU: %.1f ms in all, %.1f ms in the writer thread",
	      (unsigned long long)s->passes, (unsigned long long)s->wakeups,
	      (unsigned long long)s->max_ring_fill,
	      (unsigned long long)s->queue_max_bytes,
	      (unsigned long long)s->dropped_passes, s->write_ns / 1e6,
	      (s->ru_end.ru_utime.tv_sec + s->ru_end.ru_stime.tv_sec) * 1e3 +
		      (s->ru_end.ru_utime.tv_usec + s->ru_end.ru_stime.tv_usec) / 1e3,
	      s->writer_cpu_ns / 1e6);
	print_summary(rec, o->output);
	ret = record_exit_status(rec);

out:
	record_free(rec);
	event_list_free(&events);
	event_list_free(&count_events);
	event_list_free(&switch_events);
	free_cgroups(&cgroups);
	free_pending_events(evs, nr_evs);
	return ret;

out_usage:
	record_free(rec);
	event_list_free(&count_events);
	event_list_free(&switch_events);
	free_pending_events(evs, nr_evs);
	return err;
}
