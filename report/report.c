// SPDX-License-Identifier: GPL-2.0
/*
 * prec report, the command: its options, its usage and the table of views it chooses from. The
 * views share one contract (report/report.h): each gets the opened file and every option, and
 * returns the exit status. The default view is the profile (report/profile.c, which builds with
 * report/hist.c and prints with report/top.c or report/flame.c), as `perf report --stdio` prints
 * it; the input layer
 * (report/input.c) opens the file and, once the view is done, says what it must about the file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec.h"
#include "report/filter.h"
#include "report/pprof.h"
#include "report/report.h"
#include "report/symbols.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/perf-config.h"
#include "util/xalloc.h"

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
	    "and symbol, as perf report --stdio prints it.\n"
	    "\n"
	    "  -i, --input FILE      the file to read (default: perf.data, or stdin when it is a\n"
	    "                        pipe); - reads a pipe-mode stream from stdin\n"
	    "  -s, --sort KEYS       group and order the rows by these keys, a comma list of\n"
	    "                        comm, pid, tid, dso, sym, cpu, srcline, parent\n"
	    "                        (default: comm,dso,sym)\n"
	    "      --comm LIST       only the samples of these commands (comma list)\n"
	    "      --pid LIST        only the samples of these processes\n"
	    "      --tid LIST        only the samples of these threads\n"
	    "  -C, --cpu LIST        only the samples taken on these CPUs (0-3,7)\n"
	    "  -g, --call-graph[=SPEC]\n"
	    "                        how to show call chains: graph (default), fractal, flat\n"
	    "                        or none; caller or callee (default) order; a number is\n"
	    "                        the smallest share shown, in percent (default 0.5);\n"
	    "                        function (default) or address: entries by address, with\n"
	    "                        their source lines\n"
	    "      --inline          list inlined functions in unwound (dwarf) call chains, as\n"
	    "                        perf does (the default)\n"
	    "      --no-inline       leave them out\n"
	    "      --percent-limit PCT\n"
	    "                        hide rows (and chains) below PCT percent\n"
	    "      --json            print the table (or the overhead, counters or metrics view)\n"
	    "                        as JSON\n"
	    "      --folded          print folded stacks, one line per stack with its number of\n"
	    "                        samples, root first (flamegraph.pl, speedscope)\n"
	    "      --flamegraph FILE write a flame graph of the samples to FILE (SVG)\n"
	    "      --pprof FILE      write the samples to FILE as a gzipped pprof profile\n"
	    "                        (profile.proto: pprof, Grafana Pyroscope, Parca)\n"
	    "      --stdio           accepted for perf compatibility (the output is text)\n"
	    "      --children        rows also count the samples whose call chains pass\n"
	    "                        through them (a Children column before Self); the default\n"
	    "                        when the file has call chains, unless report.children\n"
	    "                        is false in perf's configuration (~/.perfconfig)\n"
	    "      --no-children     rows count only their own samples\n"
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
	    "  -n, --show-nr-samples a Samples column: the number of samples of each row\n"
	    "      --show-total-period\n"
	    "                        a Period column: the period of each row\n"
	    "      --show-cpu-utilization\n"
	    "                        sys and usr columns: the shares of kernel and user samples\n"
	    "  -t, --field-separator SEP\n"
	    "                        separate the columns with SEP, as perf report -t does\n"
	    "      --percentage relative|absolute\n"
	    "                        with --comm, --pid or --tid: percentages of what the\n"
	    "                        filters let through (relative) or of everything (absolute,\n"
	    "                        the default)\n"
	    "  -F, --fields FIELDS   the columns, a comma list of overhead, overhead_sys,\n"
	    "                        overhead_us, overhead_guest_sys, overhead_guest_us,\n"
	    "                        overhead_children, sample, period and sort keys; the sort\n"
	    "                        keys come from them when --sort is not given; +FIELDS adds\n"
	    "                        them to the default columns\n"
	    "      --hierarchy       one level per sort key, each indented under the one before\n"
	    "  -p, --parent REGEX    the sort key parent: the first function of the call chain\n"
	    "                        whose name matches REGEX (default ^sys_|^do_page_fault);\n"
	    "                        adds that key\n"
	    "  -x, --exclude-other   no rows whose parent is [other]\n"
	    "\n"
	    "Input and filters, as perf report takes them:\n"
	    "  -d, --dsos LIST       only the rows of these binaries (comma list)\n"
	    "  -S, --symbols LIST    only the rows of these symbols (comma list)\n"
	    "      --symbol-filter STR\n"
	    "                        only the rows whose symbol holds STR (so does an argument)\n"
	    "  -U, --hide-unresolved only samples and call-chain entries that have a symbol\n"
	    "      --time RANGES     only samples in START,STOP (seconds; more ranges separated\n"
	    "                        by spaces) or in percent slices: 10%%/2, 0%%-10%%,30%%-40%%\n"
	    "      --max-stack N     keep N entries of each call chain\n"
	    "  -G, --inverted        show call chains caller first (-g caller)\n"
	    "      --header          print the header and the features, then the report\n"
	    "  -I, --show-info       with --header or --header-only: the topology, caches and\n"
	    "                        memory nodes in full\n"
	    "      --tasks           print the recorded threads: pid, tid, parent, command\n"
	    "      --metrics[=MODE]  per function, the counter deltas of a group's windows\n"
	    "                        ({a,b,c}:S) and the metrics derived from them; MODE\n"
	    "                        discard (default: windows that span functions are left\n"
	    "                        out) or all\n"
	    "      --symfs DIR       look for binaries, debug files and kallsyms under DIR\n"
	    "      --kallsyms FILE   read the kernel's symbols from FILE\n"
	    "      --no-demangle     show C++ symbols as they are in the binary\n"
	    "      --ignore-vmlinux  accepted: prec reads the kernel's symbols from kallsyms\n"
	    "\n"
	    "  -v, --verbose         print more detail on stderr (repeat for more)\n"
	    "  -q, --quiet           print no warnings, only errors; tables without headings\n"
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
	/* the table's columns and percentages */
	OPT_SHOW_TOTAL_PERIOD,
	OPT_SHOW_CPU_UTIL,
	OPT_PERCENTAGE,
	/* the table's fields and layout */
	OPT_HIERARCHY,
	/* input and filters */
	OPT_SYMBOL_FILTER,
	OPT_TIME,
	OPT_MAX_STACK,
	OPT_HEADER,
	OPT_TASKS,
	OPT_SYMFS,
	OPT_KALLSYMS,
	OPT_DEMANGLE,
	OPT_NO_DEMANGLE,
	OPT_IGNORE_VMLINUX,
	OPT_VMLINUX,
	/* the metrics view */
	OPT_METRICS,
	/* inlined functions in call chains */
	OPT_INLINE,
	OPT_NO_INLINE,
	/* the pprof view */
	OPT_PPROF,
};

/* the input and filter options' letters after the others' */
static const char short_options[] = ":i:s:C:g::Dvqh"
				    "nt:F:p:x" /* the columns */
				    "d:S:UGIk:c:"; /* input and filters */

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
    {"show-nr-samples", no_argument, NULL, 'n'},
    {"show-total-period", no_argument, NULL, OPT_SHOW_TOTAL_PERIOD},
    {"show-cpu-utilization", no_argument, NULL, OPT_SHOW_CPU_UTIL},
    {"showcpuutilization", no_argument, NULL, OPT_SHOW_CPU_UTIL}, /* perf's older name */
    {"field-separator", required_argument, NULL, 't'},
    {"percentage", required_argument, NULL, OPT_PERCENTAGE},
    {"fields", required_argument, NULL, 'F'},
    {"hierarchy", no_argument, NULL, OPT_HIERARCHY},
    {"parent", required_argument, NULL, 'p'},
    {"exclude-other", no_argument, NULL, 'x'},
    /* input and filters */
    {"comms", required_argument, NULL, OPT_COMM},
    {"dsos", required_argument, NULL, 'd'},
    {"symbols", required_argument, NULL, 'S'},
    {"symbol-filter", required_argument, NULL, OPT_SYMBOL_FILTER},
    {"hide-unresolved", no_argument, NULL, 'U'},
    {"time", required_argument, NULL, OPT_TIME},
    {"max-stack", required_argument, NULL, OPT_MAX_STACK},
    {"inverted", no_argument, NULL, 'G'},
    {"header", no_argument, NULL, OPT_HEADER},
    {"show-info", no_argument, NULL, 'I'},
    {"tasks", no_argument, NULL, OPT_TASKS},
    {"symfs", required_argument, NULL, OPT_SYMFS},
    {"kallsyms", required_argument, NULL, OPT_KALLSYMS},
    {"demangle", no_argument, NULL, OPT_DEMANGLE},
    {"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
    {"ignore-vmlinux", no_argument, NULL, OPT_IGNORE_VMLINUX},
    {"vmlinux", required_argument, NULL, 'k'},
    {"metrics", optional_argument, NULL, OPT_METRICS},
    {"inline", no_argument, NULL, OPT_INLINE},
    {"no-inline", no_argument, NULL, OPT_NO_INLINE},
    {"pprof", required_argument, NULL, OPT_PPROF},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The sort keys of perf report 6.1 that prec report lacks: named as such when refused. */
static bool perf_sort_key(const char *key)
{
	static const char *const keys[] = {
	    "socket",	     "srcfile",	  "sym_size",
	    "dso_size",	     "cgroup",	      "cgroup_id",	 "time",	  "trace",
	    "weight",	     "local_weight",  "transaction",	 "ipc_null",	  "code_page_size",
	    "ins_lat",	     "local_ins_lat", "p_stage_cyc",	 "local_p_stage_cyc", "addr",
	    "dso_from",	     "dso_to",	      "symbol_from",	 "symbol_to",	  "mispredict",
	    "abort",	     "in_tx",	      "cycles",		 "srcline_from",  "srcline_to",
	    "ipc_lbr",	     "addr_from",     "addr_to",	 "symbol_daddr",  "dso_daddr",
	    "locked",	     "tlb",	      "mem",		 "snoop",	  "dcacheline",
	    "symbol_iaddr",  "phys_daddr",    "data_page_size",	 "blocked",	  "overhead",
	    "overhead_sys",  "overhead_us",   "overhead_guest_sys", "overhead_guest_us",
	    "overhead_children", "sample",    "period",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static const struct {
	const char *name;
	enum sort_key key;
} names[] = {
    {"comm", SORT_COMM}, {"pid", SORT_PID}, {"tid", SORT_TID},	  {"dso", SORT_DSO},
    {"sym", SORT_SYM},	 {"symbol", SORT_SYM}, {"cpu", SORT_CPU},
    {"srcline", SORT_SRCLINE}, {"parent", SORT_PARENT},
};

static int parse_sort(struct report_opts *o, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	int ret = 0;

	o->nr_keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0]) && perf_sort_key(tok)) {
			ret = usage_error("report",
					  "sort key '%s' is perf report's, prec report does not "
					  "have it (comm, pid, tid, dso, sym, cpu, srcline, "
					  "parent)",
					  tok);
			break;
		}
		if (i == sizeof(names) / sizeof(names[0])) {
			ret = usage_error("report",
					  "unknown sort key '%s' (comm, pid, tid, dso, sym, "
					  "cpu, srcline, parent)",
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

/*
 * -F/--fields: perf's output fields, its value columns and its sort keys, each named by any
 * prefix of its name, in any case, the value columns first (as perf's output_field_add() looks
 * them up); a leading '+' adds them to the default columns.
 */
static int parse_fields(struct report_opts *o, const char *arg)
{
	static const struct {
		const char *name;
		int field;
	} fields[] = {
	    {"overhead", FIELD_OVERHEAD},
	    {"overhead_sys", FIELD_OVERHEAD_SYS},
	    {"overhead_us", FIELD_OVERHEAD_US},
	    {"overhead_guest_sys", FIELD_OVERHEAD_GUEST_SYS},
	    {"overhead_guest_us", FIELD_OVERHEAD_GUEST_US},
	    {"overhead_children", FIELD_OVERHEAD_CHILDREN},
	    {"sample", FIELD_SAMPLE},
	    {"period", FIELD_PERIOD},
	    {"pid", SORT_PID},
	    {"comm", SORT_COMM},
	    {"dso", SORT_DSO},
	    {"sym", SORT_SYM},
	    {"symbol", SORT_SYM},
	    {"parent", SORT_PARENT},
	    {"cpu", SORT_CPU},
	    {"srcline", SORT_SRCLINE},
	    {"tid", SORT_TID},
	};
	char *copy = xstrdup(arg), *tok, *save = NULL;
	int ret = 0;

	o->nr_fields = 0;
	o->fields_strict = *arg != '+';
	for (tok = strtok_r(copy + !o->fields_strict, ", ", &save); tok && !ret;
	     tok = strtok_r(NULL, ", ", &save)) {
		size_t i, len = strlen(tok);
		u32 k;

		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strncasecmp(tok, fields[i].name, len))
				break;
		if (i == sizeof(fields) / sizeof(fields[0]))
			ret = usage_error("report",
					  perf_sort_key(tok) ? "-F: '%s' is perf report's, prec "
							       "report does not have it"
							     : "-F: unknown field '%s'",
					  tok);
		for (k = 0; !ret && k < o->nr_fields && o->fields[k] != fields[i].field; k++)
			;
		if (!ret && k == o->nr_fields && o->nr_fields == FIELD_MAX)
			ret = usage_error("report", "-F: too many fields in '%s'", arg);
		else if (!ret && k == o->nr_fields)
			o->fields[o->nr_fields++] = fields[i].field;
	}
	free(copy);
	if (!ret && !o->nr_fields)
		ret = usage_error("report", "-F needs at least one field");
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
	if (parse_percent(arg, out))
		return usage_error("report", "%s: '%s' is not a percentage (0 to 100)", opt, arg);
	return 0;
}

/*
 * -g and --call-graph: "graph,0.5,caller" and the like; false if arg is not such a spec, with
 * *why set (to a static string) when it is perf's but asks for what prec report does not show.
 */
static bool parse_call_graph(struct report_opts *o, const char *arg, const char **why)
{
	struct report_opts tmp = *o;
	char *copy = xstrdup(arg), *tok, *save = NULL, *end;
	bool ok = true, have_pct = false;

	*why = NULL;
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
		} else if (!strcmp(tok, "function") || !strcmp(tok, "address")) {
			tmp.chain_address = tok[0] == 'a';
		} else if (!strcmp(tok, "percent")) {
			/* perf's default, the only value prec shows */
		} else if (!strcmp(tok, "period") || !strcmp(tok, "count")) {
			*why = "-g period and count are not supported: prec report's call graphs show "
			       "percentages (-g percent)";
			ok = false;
		} else if (!strcmp(tok, "folded")) {
			*why = "-g folded is not supported: prec report --folded prints the folded "
			       "stacks";
			ok = false;
		} else if (!strcmp(tok, "branch")) {
			*why = "-g branch is not supported: prec report does not read branch stacks "
			       "(perf record -b or --call-graph lbr, which need a PMU with them)";
			ok = false;
		} else if (!have_pct) {
			double v = strtod(tok, &end);

			if (end == tok || *end || v < 0 || v > 100)
				ok = false;
			tmp.chain_min = v;
			have_pct = true;
		} else {
			/* perf's print_limit, a number after the threshold */
			strtod(tok, &end);
			if (end != tok && !*end)
				*why = "-g: a print limit is not supported: prec report prints every "
				       "branch above the threshold";
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

/*
 * perf report's default view: the children view, unless report.children in perf's configuration
 * says otherwise (a file without call chains has no children view either way).
 */
static bool children_default(void)
{
	struct perf_config_error err;
	char v[64];
	bool b = true;
	int ret = perf_config_get("report.children", v, sizeof(v), &err);

	if (ret < 0)
		warning("bad config file line %d in %s: perf's configuration is ignored", err.line,
			err.file);
	else if (ret > 0 && perf_config_bool(v, &b))
		warning("bad config value for 'report.children': taken as true, as perf does");
	return b;
}

/* What perf report calls its options that prec does not have: refused, but named as perf's. */
static const char *const perf_only[] = {
    "-b",
    "--branch-stack",
    "--branch-history",
    "--stitch-lbr",
    "--itrace",
    "--mem-mode",
    "-f",
    "--force",
    "-m",
    "--modules",
    "-T",
    "--threads",
    "--pretty",
    "--tui",
    "--gtk",
    "--ignore-callees",
    "-w",
    "--column-widths",
    "--source",
    "--asm-raw",
    "-M",
    "--disassembler-style",
    "--prefix",
    "--prefix-strip",
    "--group",
    "--group-sort-idx",
    "--objdump",
    "--demangle-kernel",
    "--samples",
    "--full-source-path",
    "--show-ref-call-graph",
    "--socket-filter",
    "--raw-trace",
    "--stdio-color",
    "--percent-type",
    "--ns",
    "--time-quantum",
    "--switch-on",
    "--switch-off",
    "--show-on-off-events",
    "--total-cycles",
    "--disable-order",
    "--skip-empty",
    "--no-skip-empty",
    "--mmaps",
    NULL,
};

#define PERF_ONLY ": perf report has it, prec report does not"

/* Is the option (short c, or the long one written in arg, "--name[=value]") one of perf's? */
static bool perf_report_has(int c, const char *arg)
{
	char name[64];
	size_t len;

	if (c) {
		name[0] = '-';
		name[1] = (char)c;
		name[2] = '\0';
	} else {
		if (!arg || strncmp(arg, "--", 2))
			return false;
		len = strcspn(arg, "=");
		if (len >= sizeof(name))
			return false;
		memcpy(name, arg, len);
		name[len] = '\0';
	}
	for (size_t i = 0; perf_only[i]; i++)
		if (!strcmp(perf_only[i], name))
			return true;
	return false;
}

/* The options of perf report's input and filters (struct filter_opts, symbols_conf). */
static int parse_filter_opt(struct report_opts *o, int c, const char *arg)
{
	struct filter_opts *f = &o->filter;
	struct time_range *r;
	u64 v;
	u32 n;

	switch (c) {
	case 'd':
		if (filter_list_add(&f->dsos, &f->nr_dsos, arg))
			return usage_error("report", "--dsos needs at least one name");
		break;
	case 'S':
		if (filter_list_add(&f->syms, &f->nr_syms, arg))
			return usage_error("report", "--symbols needs at least one name");
		break;
	case OPT_SYMBOL_FILTER:
		f->sym_substr = arg;
		break;
	case 'U':
		f->hide_unresolved = true;
		break;
	case OPT_TIME:
		/* percentages are checked now, over any span, and placed once the file is open */
		if (filter_time_parse(arg, 1, 1000000000, &r, &n))
			return usage_error(
			    "report",
			    "--time: '%s' is not a time range (START,STOP in seconds, "
			    "or percentages: 10%%/2, 0%%-10%%,30%%-40%%)",
			    arg);
		free(r);
		f->time_str = arg;
		break;
	case OPT_MAX_STACK:
		if (parse_u64(arg, &v) || v > 0x7fffffff)
			return usage_error("report", "--max-stack: '%s' is not a number", arg);
		/* as perf: 0 keeps no entry, which is -g none */
		f->max_stack = (int)v;
		if (!v)
			o->chain_mode = CHAIN_NONE;
		break;
	case 'G':
		o->caller = true;
		o->order_given = true;
		break;
	case OPT_HEADER:
		f->header = true;
		break;
	case 'I':
		f->show_info = true;
		break;
	case OPT_SYMFS:
		symbols_conf.symfs = *arg ? arg : NULL; /* "" is no symfs, as in perf */
		break;
	case OPT_KALLSYMS:
		if (access(arg, R_OK))
			return usage_error("report", "--kallsyms: cannot read %s: %s", arg,
					   strerror(errno));
		symbols_conf.kallsyms = arg;
		break;
	case OPT_DEMANGLE:
		symbols_conf.no_demangle = false;
		break;
	case OPT_NO_DEMANGLE:
		symbols_conf.no_demangle = true;
		break;
	case OPT_IGNORE_VMLINUX:
		break; /* prec reads no vmlinux: the kernel's symbols come from kallsyms */
	case 'k':
		return usage_error("report", "-k/--vmlinux: prec reads the kernel's symbols from "
					     "kallsyms, not from a vmlinux (use --kallsyms FILE)");
	}
	return 0;
}

static void opts_free(struct report_opts *o)
{
	for (u32 i = 0; i < o->nr_comms; i++)
		free(o->comms[i]);
	free(o->comms);
	free(o->pids);
	free(o->tids);
	cpu_map_free(&o->cpus);
	filter_opts_free(&o->filter);
}

/* What a view takes of the options every view could take. */
#define TAKES_JSON 1u
#define TAKES_INTERVALS 2u

/* The views: the option that chooses each (0: the default), its function, what it takes. */
static const struct view {
	int opt;
	report_view_fn *fn;
	unsigned takes;
} views[] = {
    {0, report_profile, TAKES_JSON},
    {OPT_HEADER_ONLY, report_header, 0},
    {OPT_STATS, report_stats, 0},
    {'D', report_dump, 0},
    {OPT_OVERHEAD, report_overhead, TAKES_JSON | TAKES_INTERVALS},
    {OPT_COUNTERS, report_counters, TAKES_JSON | TAKES_INTERVALS},
    {OPT_TASKS, report_tasks, 0},
    {OPT_METRICS, report_metrics, TAKES_JSON},
    {OPT_PPROF, report_pprof, 0},
};

static const struct view *view_of(int opt)
{
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (views[i].opt == opt)
			return &views[i];
	return &views[0];
}

int cmd_report(int argc, char **argv)
{
	struct report rep;
	struct report_opts o = {0};
	const struct view *view = view_of(0);
	const char *input = NULL;
	bool overhead_only = false;
	struct stat st;
	int c, ret, nr_views = 0;
	const char *why;

	o.keys[0] = SORT_COMM;
	o.keys[1] = SORT_DSO;
	o.keys[2] = SORT_SYM;
	o.nr_keys = 3;
	o.chain_mode = CHAIN_GRAPH;
	o.chain_min = 0.5;
	o.overhead.budget_pct = 2.0;
	o.overhead.fail_above = -1.0;
	o.children = children_default();

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
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
			why = NULL;
			if (optarg && *optarg == '=')
				optarg++; /* -g=caller, as perf takes it */
			if (optarg) {
				if (!parse_call_graph(&o, optarg, &why)) {
					if (why) {
						usage_error("report", "%s", why);
						goto usage;
					}
					usage_error("report",
						    "-g: '%s' is not a call-graph spec (graph, "
						    "fractal, flat, none, caller, callee, a "
						    "percentage)",
						    optarg);
					goto usage;
				}
			} else if (optind < argc && argv[optind][0] != '-' &&
				   parse_call_graph(&o, argv[optind], &why)) {
				optind++; /* perf's -g takes its argument as the next word too */
			} else if (why) {
				usage_error("report", "%s", why);
				goto usage;
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
		case OPT_INLINE:
		case OPT_NO_INLINE:
			o.no_inline = c == OPT_NO_INLINE;
			break;
		case OPT_STATS:
		case OPT_TASKS:
		case 'D':
		case OPT_HEADER_ONLY:
		case OPT_OVERHEAD:
		case OPT_COUNTERS:
			if (view->opt != c) {
				view = view_of(c);
				nr_views++;
			}
			break;
		case OPT_INTERVALS:
			o.intervals = true;
			break;
		case OPT_BUDGET:
			if (parse_pct("--budget", optarg, &o.overhead.budget_pct))
				goto usage;
			overhead_only = true;
			break;
		case OPT_FAIL_ABOVE:
			if (parse_pct("--fail-above", optarg, &o.overhead.fail_above))
				goto usage;
			overhead_only = true;
			break;
		case 'n':
			o.show_nr_samples = true;
			break;
		case OPT_SHOW_TOTAL_PERIOD:
			o.show_total_period = true;
			break;
		case OPT_SHOW_CPU_UTIL:
			o.show_cpu_util = true;
			break;
		case 't':
			o.field_sep = optarg;
			break;
		case OPT_PERCENTAGE:
			if (strcmp(optarg, "relative") && strcmp(optarg, "absolute")) {
				usage_error("report", "--percentage: '%s' is not relative or absolute",
					    optarg);
				goto usage;
			}
			o.pct_relative = !strcmp(optarg, "relative");
			break;
		case 'F':
			if (parse_fields(&o, optarg))
				goto usage;
			break;
		case OPT_HIERARCHY:
			o.hierarchy = true;
			break;
		case 'p': {
			regex_t re;

			if (regcomp(&re, optarg, REG_EXTENDED)) {
				usage_error("report", "-p: '%s' is not a regular expression",
					    optarg);
				goto usage;
			}
			regfree(&re);
			o.parent = optarg;
			break;
		}
		case 'x':
			o.exclude_other = true;
			break;
		case 'c':
			if (parse_comms(&o, optarg))
				goto usage;
			break;
		case 'd':
		case 'S':
		case OPT_SYMBOL_FILTER:
		case 'U':
		case OPT_TIME:
		case OPT_MAX_STACK:
		case 'G':
		case OPT_HEADER:
		case 'I':
		case OPT_SYMFS:
		case OPT_KALLSYMS:
		case OPT_DEMANGLE:
		case OPT_NO_DEMANGLE:
		case OPT_IGNORE_VMLINUX:
		case 'k':
			if (parse_filter_opt(&o, c, optarg))
				goto usage;
			break;
		case OPT_METRICS:
			/* as -g, the mode may be the next word: "--metrics all" */
			if (!optarg && optind < argc &&
			    (!strcmp(argv[optind], "discard") || !strcmp(argv[optind], "all")))
				optarg = argv[optind++];
			if (optarg && strcmp(optarg, "discard") && strcmp(optarg, "all")) {
				usage_error("report", "--metrics: '%s' is not discard or all", optarg);
				goto usage;
			}
			o.metrics_all = optarg && !strcmp(optarg, "all");
			if (view->opt != c) {
				view = view_of(c);
				nr_views++;
			}
			break;
		case OPT_PPROF:
			o.pprof = optarg;
			if (view->opt != c) {
				view = view_of(c);
				nr_views++;
			}
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
				usage_error("report", "unknown option '-%c'%s", optopt,
					    perf_report_has(optopt, NULL) ? PERF_ONLY : "");
			else
				usage_error("report", "unknown option '%s'%s", argv[optind - 1],
					    perf_report_has(0, argv[optind - 1]) ? PERF_ONLY : "");
			goto usage;
		}
	}
	if (optind + 1 == argc && !o.filter.sym_substr) {
		/* as perf: one argument left is a symbol filter */
		o.filter.sym_substr = argv[optind++];
	}
	if (optind < argc) {
		usage_error("report", "unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	if (nr_views + o.folded + !!o.flamegraph > 1) {
		usage_error("report",
			    "--stats, -D, --header-only, --overhead, --counters, --tasks, "
			    "--metrics, --pprof, --folded and --flamegraph are separate views: "
			    "give one");
		goto usage;
	}
	if (o.hierarchy && o.nr_fields) {
		usage_error("report", "--hierarchy and --fields cannot be used together");
		goto usage;
	}
	if (o.intervals && !(view->takes & TAKES_INTERVALS)) {
		usage_error("report", "--intervals goes with --overhead or --counters");
		goto usage;
	}
	if (overhead_only && view->opt != OPT_OVERHEAD) {
		usage_error("report", "--budget and --fail-above go with --overhead");
		goto usage;
	}
	if (o.json && (!(view->takes & TAKES_JSON) || o.folded || o.flamegraph)) {
		usage_error("report",
			    "--json prints the table, the overhead view, the counters or the metrics");
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

	/* as perf: the header goes before the profile, --stats, -D and --tasks */
	if (view->opt == OPT_HEADER_ONLY)
		o.filter.header = false;
	if (o.filter.header && (view->opt == OPT_OVERHEAD || view->opt == OPT_COUNTERS)) {
		usage_error("report", "--header goes with the profile, --stats, -D and --tasks; "
				      "--header-only prints the header alone");
		goto usage;
	}
	if (report_open(&rep, input)) {
		opts_free(&o);
		return 1;
	}
	if (filter_time_setup(&rep, &o.filter)) {
		opts_free(&o);
		return report_close(&rep, 1);
	}
	ret = 0;
	if (o.filter.header && pd_reader_is_pipe(rep.r)) {
		/* a pipe's features come with its records: they cannot be read twice */
		error("%s: --header needs a file, not a pipe-mode stream; use --header-only",
		      rep.name);
		ret = 1;
	} else if (o.filter.header)
		ret = report_header(&rep, &o) ? 1 : 0;
	if (!ret)
		ret = view->fn(&rep, &o);
	ret = report_close(&rep, ret);
	opts_free(&o);
	return ret;

usage:
	opts_free(&o);
	return 2;
}
