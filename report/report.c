// SPDX-License-Identifier: GPL-2.0
/*
 * prec report: options, opening the file, choosing the view, and what to say about a file its
 * writer did not finish. The default view is the profile (report/hist.c, report/top.c), as
 * `perf report --stdio --no-children` prints it; --folded and --flamegraph show the same samples
 * as stacks (report/flame.c); --overhead hands over to report/overhead.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec.h"
#include "report/counters.h"
#include "report/hist.h"
#include "report/overhead.h"
#include "report/report.h"
#include "util/log.h"
#include "util/xalloc.h"

/* ---------------------------------------------------------------------------------------- */
/* Reading */

int report_read_error(struct report *rep)
{
	return error("%s: %s", rep->path, pd_reader_errmsg(rep->r));
}

int report_next(struct report *rep, struct pd_event *ev)
{
	int ret = pd_reader_next(rep->r, ev);

	if (ret < 0)
		return report_read_error(rep);
	if (ret > 0)
		rep->nr_records++;
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* Event names, as perf's evsel__name() builds them from the attr */

static const char *const hw_names[] = {
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
};

static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches",
};

static const char *const cache_names[] = {
    "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_ops[] = {"load", "store", "prefetch"};
static const char *const cache_results[] = {"refs", "misses"};

/* evsel__add_modifiers(): ":u", ":k", ":ppp", ":H", ":G" as the exclusion bits say. */
static void add_modifiers(const struct perf_event_attr *a, char *buf, size_t len)
{
	size_t n = strlen(buf), colon = 0;
	bool exclude_guest_default = false;

#define MOD(excluded, c)                                                                           \
	do {                                                                                       \
		if (!(excluded) && n + 2 < len) {                                                  \
			if (!colon)                                                                \
				colon = ++n;                                                       \
			buf[n++] = (c);                                                            \
		}                                                                                  \
	} while (0)

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		exclude_guest_default = true;
	}
	if (a->precise_ip) {
		if (!colon && n + 1 < len)
			colon = ++n;
		for (unsigned i = 0; i < a->precise_ip && i < 3 && n + 1 < len; i++)
			buf[n++] = 'p';
		exclude_guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == exclude_guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	buf[n] = '\0';
	if (colon)
		buf[colon - 1] = ':';
}

void report_attr_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	u64 c = a->config;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		snprintf(buf, len, "%s",
			 c < sizeof(hw_names) / sizeof(hw_names[0]) ? hw_names[c]
								    : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		snprintf(buf, len, "%s",
			 c < sizeof(sw_names) / sizeof(sw_names[0]) ? sw_names[c]
								    : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE: {
		u64 type = c & 0xff, op = (c >> 8) & 0xff, result = (c >> 16) & 0xff;

		if (type >= sizeof(cache_names) / sizeof(cache_names[0]) || op >= 3 || result >= 2)
			snprintf(buf, len, "invalid-cache");
		else if (result == 0)
			snprintf(buf, len, "%s-%s", cache_names[type], cache_ops[op]);
		else
			snprintf(buf, len, "%s-%s-%s", cache_names[type], cache_ops[op],
				 cache_results[result]);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, len, "raw %#" PRIx64, (uint64_t)c);
		break;
	case PERF_TYPE_BREAKPOINT: {
		int n = snprintf(buf, len, "mem:%#" PRIx64 ":", (uint64_t)a->bp_addr);

		if (n > 0 && (size_t)n + 4 < len) {
			if (a->bp_type & 1)
				buf[n++] = 'r';
			if (a->bp_type & 2)
				buf[n++] = 'w';
			if (a->bp_type & 4)
				buf[n++] = 'x';
			buf[n] = '\0';
		}
		break;
	}
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, len, "unknown tracepoint");
		return;
	default:
		snprintf(buf, len, "unknown attr type: %u", a->type);
		return;
	}
	add_modifiers(a, buf, len);
}

const char *report_event_name(struct pd_reader *r, u32 idx, char *buf, size_t len)
{
	const char *name = pd_reader_attr_name(r, idx);
	const struct perf_event_attr *a;

	if (name)
		return name;
	a = pd_reader_attr(r, idx);
	if (!a) {
		snprintf(buf, len, "event %u", idx);
		return buf;
	}
	report_attr_name(a, buf, len);
	return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Options */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: prec report [-i FILE] [OPTIONS]\n"
	    "\n"
	    "Read a perf.data file (written by perf or prec, in file or pipe mode, compressed or\n"
	    "not) and show where the samples went: per event, the share of each command, binary\n"
	    "and symbol, as perf report --stdio --no-children prints it.\n"
	    "\n"
	    "  -i, --input FILE      the file to read (default: perf.data, or stdin when it is a\n"
	    "                        pipe); - reads a pipe-mode stream from stdin\n"
	    "  -s, --sort KEYS       group and order the rows by these keys, a comma list of\n"
	    "                        comm, pid, tid, dso, sym, cpu (default: comm,dso,sym)\n"
	    "      --comm LIST       only the samples of these commands (comma list)\n"
	    "      --pid LIST        only the samples of these processes\n"
	    "      --tid LIST        only the samples of these threads\n"
	    "  -C, --cpu LIST        only the samples taken on these CPUs (0-3,7)\n"
	    "  -g, --call-graph[=SPEC]\n"
	    "                        how to show call chains: graph (default), fractal, flat\n"
	    "                        or none; caller or callee (default) order; a number is\n"
	    "                        the smallest share shown, in percent (default 0.5)\n"
	    "      --percent-limit PCT\n"
	    "                        hide rows (and chains) below PCT percent\n"
	    "      --json            print the table (or the overhead or counters view) as JSON\n"
	    "      --folded          print folded stacks, one line per stack with its number of\n"
	    "                        samples, root first (flamegraph.pl, speedscope)\n"
	    "      --flamegraph FILE write a flame graph of the samples to FILE (SVG)\n"
	    "      --stdio           accepted for perf compatibility (the output is text)\n"
	    "      --children        rows also count the samples whose call chains pass\n"
	    "                        through them (a Children column before Self)\n"
	    "      --no-children     rows count only their own samples (the default)\n"
	    "      --stats           count the records of each type, as perf report --stats does\n"
	    "  -D, --dump-raw-trace  print every record in file order, samples decoded\n"
	    "      --header-only     print the header and the features, as perf report\n"
	    "                        --header-only does\n"
	    "      --overhead        what the profiling cost, per CPU, and what to change\n"
	    "      --intervals       with --overhead: the cost in each interval\n"
	    "      --budget PCT      with --overhead: the overhead that is acceptable (default 2)\n"
	    "      --fail-above PCT  with --overhead: exit with status 3 when the overhead of a\n"
	    "                        CPU is above PCT\n"
	    "      --counters        the counter readings: per event the total, rate, running\n"
	    "                        share, scaled estimate and its range, shared counters\n"
	    "                        (with --intervals: the readings of each interval)\n"
	    "  -v, --verbose         print more detail on stderr (repeat for more)\n"
	    "  -q, --quiet           print no warnings, only errors\n"
	    "  -h, --help            print this help\n");
}

enum {
	OPT_STATS = 256,
	OPT_HEADER_ONLY,
	OPT_COMM,
	OPT_PID,
	OPT_TID,
	OPT_PERCENT_LIMIT,
	OPT_JSON,
	OPT_FOLDED,
	OPT_FLAMEGRAPH,
	OPT_STDIO,
	OPT_NO_CHILDREN,
	OPT_CHILDREN,
	OPT_OVERHEAD,
	OPT_INTERVALS,
	OPT_BUDGET,
	OPT_FAIL_ABOVE,
	OPT_COUNTERS,
};

static const struct option long_options[] = {
    {"input", required_argument, NULL, 'i'},
    {"sort", required_argument, NULL, 's'},
    {"comm", required_argument, NULL, OPT_COMM},
    {"pid", required_argument, NULL, OPT_PID},
    {"tid", required_argument, NULL, OPT_TID},
    {"cpu", required_argument, NULL, 'C'},
    {"call-graph", optional_argument, NULL, 'g'},
    {"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
    {"json", no_argument, NULL, OPT_JSON},
    {"folded", no_argument, NULL, OPT_FOLDED},
    {"flamegraph", required_argument, NULL, OPT_FLAMEGRAPH},
    {"stdio", no_argument, NULL, OPT_STDIO},
    {"no-children", no_argument, NULL, OPT_NO_CHILDREN},
    {"children", no_argument, NULL, OPT_CHILDREN},
    {"stats", no_argument, NULL, OPT_STATS},
    {"dump-raw-trace", no_argument, NULL, 'D'},
    {"header-only", no_argument, NULL, OPT_HEADER_ONLY},
    {"overhead", no_argument, NULL, OPT_OVERHEAD},
    {"intervals", no_argument, NULL, OPT_INTERVALS},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
    {"counters", no_argument, NULL, OPT_COUNTERS},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_sort(struct report_opts *o, const char *arg)
{
	static const struct {
		const char *name;
		enum sort_key key;
	} names[] = {
	    {"comm", SORT_COMM}, {"pid", SORT_PID}, {"tid", SORT_TID},	  {"dso", SORT_DSO},
	    {"sym", SORT_SYM},	 {"symbol", SORT_SYM}, {"cpu", SORT_CPU},
	};
	char *copy = xstrdup(arg), *tok, *save = NULL;
	int ret = 0;

	o->nr_keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			ret = usage_error("report",
					  "unknown sort key '%s' (comm, pid, tid, dso, sym, "
					  "cpu)",
					  tok);
			break;
		}
		for (u32 k = 0; k < o->nr_keys; k++)
			if (o->keys[k] == names[i].key)
				goto next;
		if (o->nr_keys == SORT_MAX) {
			ret = usage_error("report", "too many sort keys in '%s'", arg);
			break;
		}
		o->keys[o->nr_keys++] = names[i].key;
next:;
	}
	free(copy);
	if (!ret && !o->nr_keys)
		ret = usage_error("report", "--sort needs at least one key");
	return ret;
}

static int parse_int_list(const char *opt, const char *arg, int **out, u32 *nr)
{
	char *copy = xstrdup(arg), *tok, *save = NULL, *end;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || end == tok || v < -1 || v > 0x7fffffff) {
			ret = usage_error("report", "%s: '%s' is not a number", opt, tok);
			break;
		}
		*out = xrealloc(*out, (*nr + 1) * sizeof(int));
		(*out)[(*nr)++] = (int)v;
	}
	free(copy);
	if (!ret && !*nr)
		ret = usage_error("report", "%s needs at least one number", opt);
	return ret;
}

static int parse_comms(struct report_opts *o, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		o->comms = xrealloc(o->comms, (o->nr_comms + 1) * sizeof(char *));
		o->comms[o->nr_comms++] = xstrdup(tok);
	}
	free(copy);
	if (!o->nr_comms)
		return usage_error("report", "--comm needs at least one name");
	return 0;
}

static int parse_pct(const char *opt, const char *arg, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || (*end && strcmp(end, "%")) || *out < 0 || *out > 100)
		return usage_error("report", "%s: '%s' is not a percentage (0 to 100)", opt, arg);
	return 0;
}

/* -g and --call-graph: "graph,0.5,caller" and the like; false if arg is not such a spec. */
static bool parse_call_graph(struct report_opts *o, const char *arg)
{
	struct report_opts tmp = *o;
	char *copy = xstrdup(arg), *tok, *save = NULL, *end;
	bool ok = true, have_pct = false;

	for (tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "graph")) {
			tmp.chain_mode = CHAIN_GRAPH;
		} else if (!strcmp(tok, "fractal")) {
			tmp.chain_mode = CHAIN_FRACTAL;
		} else if (!strcmp(tok, "flat")) {
			tmp.chain_mode = CHAIN_FLAT;
		} else if (!strcmp(tok, "none")) {
			tmp.chain_mode = CHAIN_NONE;
		} else if (!strcmp(tok, "caller")) {
			tmp.caller = true;
			tmp.order_given = true;
		} else if (!strcmp(tok, "callee")) {
			tmp.caller = false;
			tmp.order_given = true;
		} else if (!strcmp(tok, "function") || !strcmp(tok, "percent")) {
			/* perf's defaults, the only ones prec has */
		} else if (!have_pct) {
			double v = strtod(tok, &end);

			if (end == tok || *end || v < 0 || v > 100)
				ok = false;
			tmp.chain_min = v;
			have_pct = true;
		} else {
			ok = false;
		}
	}
	free(copy);
	if (ok) {
		tmp.chain_mode_given = true;
		*o = tmp;
	}
	return ok;
}

/* The file was not finished, or was cut: say how much was read. */
static int report_recovery(struct report *rep)
{
	const struct pd_file_header *h = pd_reader_header(rep->r);
	u64 bytes = pd_reader_data_read(rep->r);
	u64 start = pd_reader_is_pipe(rep->r) ? sizeof(struct pd_pipe_file_header) : h->data.offset;
	const char *name = strcmp(rep->path, "-") ? rep->path : "stdin";

	if (!pd_reader_recovered(rep->r))
		return 0;
	if (pd_reader_is_pipe(rep->r) || h->data.size == 0) {
		warning("%s was not finished by its writer; read %" PRIu64 " records (%" PRIu64
			" bytes) up to offset %#" PRIx64,
			name, rep->nr_records, bytes, start + bytes);
		return 0;
	}
	/* The header says how long the data is, and the file is shorter: it was cut. */
	return error("%s: the file is cut short: its data section should end at %#" PRIx64
		     " but the file is %#" PRIx64 " bytes; read %" PRIu64 " records (%" PRIu64
		     " bytes) up to offset %#" PRIx64,
		     name, h->data.offset + h->data.size, pd_reader_file_size(rep->r),
		     rep->nr_records, bytes, start + bytes);
}

/* Count the records of a file that a view did not read, for the recovery message. */
static int count_records(struct report *rep)
{
	struct pd_event ev;
	int ret;

	while ((ret = report_next(rep, &ev)) > 0)
		;
	return ret;
}

/* Every attr records the CPU: --cpu needs it (perf refuses -C otherwise). */
static bool file_has_cpu(struct pd_reader *r)
{
	u32 nr = pd_reader_nr_attrs(r);

	for (u32 i = 0; i < nr; i++)
		if (!(pd_reader_attr(r, i)->sample_type & PERF_SAMPLE_CPU))
			return false;
	return nr > 0;
}

/* Some event records call chains (asked after reading: pipe mode declares events as it goes). */
static bool file_has_chains(struct pd_reader *r)
{
	for (u32 i = 0; i < pd_reader_nr_attrs(r); i++)
		if (pd_reader_attr(r, i)->sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

static int report_profile(struct report *rep, struct report_opts *o)
{
	struct profile p;
	int ret;

	if (o->cpu_filter && !file_has_cpu(rep->r))
		return error("%s: the samples do not record their CPU (record with -a or "
			     "--sample-cpu); --cpu cannot select them",
			     rep->path);
	ret = profile_run(&p, rep, o);
	if (!ret && o->chain_mode_given && o->chain_mode != CHAIN_NONE && !file_has_chains(rep->r))
		ret = error("%s: -g shows call chains, but the samples have none (record with -g)",
			    rep->path);
	if (!ret) {
		if (o->folded)
			ret = view_folded(&p, stdout);
		else if (o->flamegraph)
			ret = view_flamegraph(&p, o->flamegraph);
		else if (o->json)
			ret = view_json(&p, stdout);
		else
			ret = view_table(&p, stdout);
	}
	if (!ret && p.s.nr_unordered)
		warning("%s: %" PRIu64 " records came after the time they belong to had been "
			"reported (out of order)",
			rep->path, p.s.nr_unordered);
	profile_free(&p);
	return ret;
}

static void opts_free(struct report_opts *o)
{
	for (u32 i = 0; i < o->nr_comms; i++)
		free(o->comms[i]);
	free(o->comms);
	free(o->pids);
	free(o->tids);
	cpu_map_free(&o->cpus);
}

int cmd_report(int argc, char **argv)
{
	struct report rep = {0};
	struct report_opts o = {0};
	const char *input = NULL;
	bool stats = false, dump = false, header_only = false, overhead = false;
	bool intervals = false, overhead_only = false, counters = false;
	double budget = 2.0, fail_above = -1.0;
	struct stat st;
	int c, ret, err, views;

	o.keys[0] = SORT_COMM;
	o.keys[1] = SORT_DSO;
	o.keys[2] = SORT_SYM;
	o.nr_keys = 3;
	o.chain_mode = CHAIN_GRAPH;
	o.chain_min = 0.5;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":i:s:C:g::Dvqh", long_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 's':
			if (parse_sort(&o, optarg))
				goto usage;
			o.sort_given = true;
			break;
		case OPT_COMM:
			if (parse_comms(&o, optarg))
				goto usage;
			break;
		case OPT_PID:
			if (parse_int_list("--pid", optarg, &o.pids, &o.nr_pids))
				goto usage;
			break;
		case OPT_TID:
			if (parse_int_list("--tid", optarg, &o.tids, &o.nr_tids))
				goto usage;
			break;
		case 'C':
			if (cpu_map_parse(&o.cpus, optarg) || !o.cpus.nr) {
				usage_error("report", "--cpu: '%s' is not a CPU list (0-3,7)",
					    optarg);
				goto usage;
			}
			o.cpu_filter = true;
			break;
		case 'g':
			if (optarg && *optarg == '=')
				optarg++; /* -g=caller, as perf takes it */
			if (optarg) {
				if (!parse_call_graph(&o, optarg)) {
					usage_error("report",
						    "-g: '%s' is not a call-graph spec (graph, "
						    "fractal, flat, none, caller, callee, a "
						    "percentage)",
						    optarg);
					goto usage;
				}
			} else if (optind < argc && argv[optind][0] != '-' &&
				   parse_call_graph(&o, argv[optind])) {
				optind++; /* perf's -g takes its argument as the next word too */
			} else {
				o.chain_mode_given = true;
				if (o.chain_mode == CHAIN_NONE)
					o.chain_mode = CHAIN_GRAPH;
			}
			break;
		case OPT_PERCENT_LIMIT:
			if (parse_pct("--percent-limit", optarg, &o.percent_limit))
				goto usage;
			/* as perf: the limit hides call-graph branches too */
			o.chain_min = o.percent_limit;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_FOLDED:
			o.folded = true;
			break;
		case OPT_FLAMEGRAPH:
			o.flamegraph = optarg;
			break;
		case OPT_STDIO:
			break;
		case OPT_NO_CHILDREN:
			o.children = false;
			break;
		case OPT_CHILDREN:
			o.children = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case 'D':
			dump = true;
			break;
		case OPT_HEADER_ONLY:
			header_only = true;
			break;
		case OPT_OVERHEAD:
			overhead = true;
			break;
		case OPT_INTERVALS:
			intervals = true;
			break;
		case OPT_COUNTERS:
			counters = true;
			break;
		case OPT_BUDGET:
			if (parse_pct("--budget", optarg, &budget))
				goto usage;
			overhead_only = true;
			break;
		case OPT_FAIL_ABOVE:
			if (parse_pct("--fail-above", optarg, &fail_above))
				goto usage;
			overhead_only = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			opts_free(&o);
			return 0;
		case ':':
			usage_error("report", "option '%s' needs an argument", argv[optind - 1]);
			goto usage;
		default:
			if (optopt && optopt < 256)
				usage_error("report", "unknown option '-%c'", optopt);
			else
				usage_error("report", "unknown option '%s'", argv[optind - 1]);
			goto usage;
		}
	}
	if (optind < argc) {
		usage_error("report", "unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	views = stats + dump + header_only + overhead + counters + o.folded + !!o.flamegraph;
	if (views > 1) {
		usage_error("report", "--stats, -D, --header-only, --overhead, --counters, --folded "
				      "and --flamegraph are separate views: give one");
		goto usage;
	}
	if (intervals && !overhead && !counters) {
		usage_error("report", "--intervals goes with --overhead or --counters");
		goto usage;
	}
	if (overhead_only && !overhead) {
		usage_error("report", "--budget and --fail-above go with --overhead");
		goto usage;
	}
	if (o.json && (stats || dump || header_only || o.folded || o.flamegraph)) {
		usage_error("report", "--json prints the table, the overhead view or the counters");
		goto usage;
	}
	if (!input) {
		/* As perf: with no -i, a pipe on stdin is the input. */
		if (!fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode))
			input = "-";
		else
			input = "perf.data";
	}
	o.input = input;

	if (counters) {
		struct counters_report_opts co = {
		    .input = input,
		    .json = o.json,
		    .intervals = intervals,
		};

		opts_free(&o);
		return report_counters(&co);
	}
	if (overhead) {
		struct overhead_report_opts oo = {
		    .input = input,
		    .json = o.json,
		    .intervals = intervals,
		    .budget_pct = budget,
		    .fail_above = fail_above,
		};

		opts_free(&o);
		return report_overhead(&oo);
	}

	rep.path = input;
	err = pd_reader_open(&rep.r, input, PD_READER_TRACING_IN_CHILD);
	if (err) {
		if (rep.r)
			error("%s: %s", input, pd_reader_errmsg(rep.r));
		else
			error("%s: %s", input, strerror(-err));
		pd_reader_close(rep.r);
		opts_free(&o);
		return 1;
	}

	if (header_only)
		ret = report_header(&rep);
	else if (stats)
		ret = report_stats(&rep);
	else if (dump)
		ret = report_dump(&rep);
	else
		ret = report_profile(&rep, &o);
	fflush(stdout);

	/* --header-only reads no records in file mode: count them for the recovery message. */
	if (!ret && header_only && pd_reader_recovered(rep.r) && !pd_reader_is_pipe(rep.r))
		ret = count_records(&rep);
	if (!ret && report_recovery(&rep))
		ret = -1;
	if (ferror(stdout))
		ret = error("%s: writing the report: %s", input, strerror(errno));
	if (!ret && rep.note)
		note("%s", rep.note);
	free(rep.note);
	pd_reader_close(rep.r);
	opts_free(&o);
	return ret ? 1 : 0;

usage:
	opts_free(&o);
	return 2;
}
