/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The -e grammar of perf: hardware, software and hardware-cache events, raw rNNNN, PMU events
 * with terms (pmu/config=..,period=..,name=../) from /sys/bus/event_source/devices, tracepoints
 * sys:name, modifiers (u k h G H p pp ppp S D), groups {a,b}:mods and comma lists.
 *
 * Attrs come out as perf 6.1's parser leaves them, before perf record's evsel__config: size,
 * type, config*, exclusion bits (exclude_guest=1 unless a modifier says otherwise, as perf),
 * precise_ip, pinned/exclusive, and sample_period=1 for tracepoints, breakpoints and bpf-output (a
 * weak default that -c/-F override, as in perf; has_period stays false for it).
 *
 * PMUs are read from $PREC_SYSFS_ROOT/bus/event_source/devices (default /sys) and tracepoints from
 * $PREC_TRACEFS_DIR/events (default: the tracefs mount libtracefs finds); the tests set both.
 */
#ifndef PREC_RECORD_PARSE_EVENTS_H
#define PREC_RECORD_PARSE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

struct event_spec {
	/*
	 * type, config, config1, config2, exclusion bits and precise_ip as the event asks; sample
	 * period or frequency only when a term set them (has_period / has_freq).
	 */
	struct perf_event_attr attr;
	char *name;     /* as perf names it: "cycles", "cpu-clock:u", "sched:sched_switch", name= */
	char *pmu;      /* the PMU's sysfs name, or NULL for the generic types */
	char *tp_system; /* tracepoints */
	char *tp_event;
	char *filter;   /* --filter, tracepoints only */
	int leader;     /* index of the group leader in the list; itself when it leads; -1: no group */
	int group_size; /* on a leader: members including itself */
	bool sample_read; /* S: the leader samples and reads the whole group */
	bool pinned;      /* D */
	bool has_period, has_freq;
	/*
	 * The alternating period as given: alt-period= and hf-period= (the same field), hf-rand=
	 * (the jitter's exponent) and alt-period-jitter= (the older series' exponent, which
	 * record/evlist.c converts). Ranges are checked when the events are opened.
	 */
	bool has_alt_period, has_hf_period, has_hf_rand, has_alt_jitter;
	unsigned long long alt_period, hf_period, hf_rand, alt_jitter;
	bool hardware; /* needs a hardware PMU (cycles, cache events, raw, core PMU events) */
	/*
	 * Added by the parser's author: the name of a named group "name{a,b}" on its leader (perf
	 * writes it in GROUP_DESC), else NULL. sample_read is set on every member of an S group, as
	 * perf does; the opener looks at the leader's.
	 */
	char *group_name;
	/*
	 * perf's per-event config terms (evsel__apply_config_terms()), applied over the command's
	 * options by evlist_config(). A *_set flag says the term was given.
	 */
	struct event_terms {
		bool callgraph_set, callgraph;	/* call-graph=fp|dwarf|lbr (true) or no (false) */
		int callgraph_mode;		/* with callgraph: RECORD_CALLGRAPH_* (hook.h) */
		bool stack_size_set;		/* stack-size=N: dwarf's, so alone it resets -g */
		unsigned stack_size;		/* N rounded up to 8: dwarf's stack copy */
		unsigned max_stack;		/* max-stack=N; 0: not given */
		bool inherit_set, inherit;	/* inherit, no-inherit */
		bool time_set, time;		/* time=0|1 */
		bool aux_output;		/* aux-output */
		bool branch_set;		/* branch_type=...: branch_sample_type below */
		unsigned long long branch_sample_type;
	} terms;
};

struct event_list {
	struct event_spec *ev;
	int nr;
	int cmdline_start; /* first event the last parse_events() call added: --filter applies there */
};

struct parse_error {
	int pos;        /* byte offset of the bad token in the string given to parse_events() */
	char msg[256];  /* what is wrong there */
	char help[512]; /* a further hint printed after the caret line (valid terms, ...), or "" */
};

/**
 * parse_events - parse one -e argument and append its events to list.
 *
 * Return: 0, or -1 with err filled (the list is left as it was).
 */
int parse_events(struct event_list *list, const char *str, struct parse_error *err);

/**
 * parse_events_print_error - print err the way perf does: the string, a caret under err->pos
 * and the message, on stderr.
 */
void parse_events_print_error(const char *str, const struct parse_error *err);

/**
 * parse_filter - attach a --filter to the last event of list.
 *
 * Return: 0, or -1 with a message printed when that event is not a tracepoint.
 */
int parse_filter(struct event_list *list, const char *filter);

/**
 * parse_branch_filter - perf's branch filter words (-j, branch_type=): any, any_call, any_ret,
 * ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type, u, k, hv, comma-separated.
 * @str: the words
 * @mask: receives the PERF_SAMPLE_BRANCH_* bits; a list of privilege words alone (u, k, hv) gets
 *	PERF_SAMPLE_BRANCH_ANY too, as perf does
 *
 * Return: 0, or -EINVAL with *bad pointing at the word that is not one of them.
 */
int parse_branch_filter(const char *str, unsigned long long *mask, const char **bad);

/**
 * event_spec_hf_term - the alternating-period term ev was given, as the user wrote it:
 * "hf-period", "alt-period", "hf-rand" or "alt-period-jitter" (the first in that order).
 *
 * Return: the term's name, or NULL when ev has none.
 */
const char *event_spec_hf_term(const struct event_spec *ev);

/**
 * event_list_check_counted - refuse the alternating-period terms on the events the last
 * parse_events() call added, for callers that do not sample them (prec stat, --count,
 * --switch-output-event).
 * @why: receives a one-line reason naming the term and the event
 *
 * Return: 0, or -1 with why filled.
 */
int event_list_check_counted(const struct event_list *list, char *why, size_t why_len);

/**
 * event_list_free - free the events and their strings; the list is then empty and reusable.
 */
void event_list_free(struct event_list *list);

#endif
