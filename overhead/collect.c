// SPDX-License-Identifier: GPL-2.0
/*
 * The collector front: resolves the handlers in /proc/kallsyms, picks a source, and hands the
 * calls to it. Also the perf_event_open and ring-buffer helpers the tracepoint source and the
 * calibrations share.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "overhead/collect-internal.h"
#include "overhead/kallsyms.h"
#include "util/perf-event.h"

const char *const overhead_handler_symbol[OVERHEAD_HANDLER_NR] = {
	[OVERHEAD_HANDLER_SWEVENT] = "perf_swevent_hrtimer",
	[OVERHEAD_HANDLER_NMI] = "perf_event_nmi_handler",
	[OVERHEAD_HANDLER_MUX] = "perf_mux_hrtimer_handler",
};

static const char *const source_names[] = {
	[OVERHEAD_SOURCE_AUTO] = "auto",
	[OVERHEAD_SOURCE_BPF] = "bpf",
	[OVERHEAD_SOURCE_TRACEPOINT] = "tracepoint",
	[OVERHEAD_SOURCE_NONE] = "none",
};

int overhead_source_parse(const char *s, enum overhead_source *out)
{
	size_t i;

	for (i = 0; i < sizeof(source_names) / sizeof(source_names[0]); i++) {
		if (!strcmp(s, source_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *overhead_source_name(enum overhead_source source)
{
	if ((unsigned int)source >= sizeof(source_names) / sizeof(source_names[0]))
		return "?";
	return source_names[source];
}

const char *overhead_handler_name(enum overhead_handler h)
{
	static const char *const names[OVERHEAD_HANDLER_NR] = { "swevent", "nmi", "mux" };

	if ((unsigned int)h >= OVERHEAD_HANDLER_NR)
		return "?";
	return names[h];
}

/* Fill c->addr; a handler that cannot be matched gets its reason. Return: handlers found. */
static int resolve_handlers(struct overhead_collector *c)
{
	int n, h;

	n = kallsyms_lookup(KALLSYMS_PATH, overhead_handler_symbol, c->addr, OVERHEAD_HANDLER_NR);
	for (h = 0; h < OVERHEAD_HANDLER_NR; h++) {
		if (n == -EACCES)
			snprintf(c->handler_reason[h], sizeof(c->handler_reason[h]),
				 "addresses in %s read as 0 (kernel.kptr_restrict, or not "
				 "privileged): the collector cannot match %s", KALLSYMS_PATH,
				 overhead_handler_symbol[h]);
		else if (n < 0)
			snprintf(c->handler_reason[h], sizeof(c->handler_reason[h]),
				 "cannot read %s: %s", KALLSYMS_PATH, strerror(-n));
		else if (!c->addr[h])
			snprintf(c->handler_reason[h], sizeof(c->handler_reason[h]),
				 "%s is not in %s (not this kernel or architecture)",
				 overhead_handler_symbol[h], KALLSYMS_PATH);
	}
	return n < 0 ? 0 : n;
}

static void set_none(struct overhead_collector *c)
{
	int h;

	c->source = OVERHEAD_SOURCE_NONE;
	for (h = 0; h < OVERHEAD_HANDLER_NR; h++)
		if (!c->handler_reason[h][0])
			snprintf(c->handler_reason[h], sizeof(c->handler_reason[h]), "%s",
				 c->reason[0] ? c->reason : "no overhead collector runs");
}

int overhead_collector_open(struct overhead_collector **cpup, const int *cpus, int nr_cpus,
			    enum overhead_source want)
{
	struct overhead_collector *c;
	char why_bpf[256] = "", why_tp[256] = "";
	int err = 0, i;

	*cpup = NULL;
	if (nr_cpus <= 0 || !cpus || want > OVERHEAD_SOURCE_NONE)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cpus = malloc(nr_cpus * sizeof(*c->cpus));
	if (!c->cpus) {
		free(c);
		return -ENOMEM;
	}
	for (i = 0; i < nr_cpus; i++)
		c->cpus[i] = cpus[i];
	c->nr_cpus = nr_cpus;
	*cpup = c;

	if (want == OVERHEAD_SOURCE_NONE) {
		snprintf(c->reason, sizeof(c->reason),
			 "overhead collection turned off (source none)");
		set_none(c);
		return 0;
	}
	if (!resolve_handlers(c)) {
		/* Every handler has the same reason: kallsyms. */
		snprintf(c->reason, sizeof(c->reason), "%s", c->handler_reason[0]);
		set_none(c);
		return -ENOENT;
	}

	if (want == OVERHEAD_SOURCE_AUTO || want == OVERHEAD_SOURCE_BPF) {
		err = collect_bpf_open(c, why_bpf, sizeof(why_bpf));
		if (!err) {
			c->source = OVERHEAD_SOURCE_BPF;
			return 0;
		}
		if (want == OVERHEAD_SOURCE_BPF) {
			snprintf(c->reason, sizeof(c->reason), "bpf: %s", why_bpf);
			set_none(c);
			return err;
		}
	}
	err = collect_tp_open(c, why_tp, sizeof(why_tp));
	if (!err) {
		c->source = OVERHEAD_SOURCE_TRACEPOINT;
		if (why_bpf[0])
			snprintf(c->reason, sizeof(c->reason), "bpf: %s", why_bpf);
		return 0;
	}
	if (why_bpf[0])
		snprintf(c->reason, sizeof(c->reason), "bpf: %s; tracepoint: %s", why_bpf, why_tp);
	else
		snprintf(c->reason, sizeof(c->reason), "tracepoint: %s", why_tp);
	set_none(c);
	return err;
}

int overhead_collector_start(struct overhead_collector *c)
{
	int err;

	if (c->started)
		return 0;
	switch (c->source) {
	case OVERHEAD_SOURCE_BPF:
		err = collect_bpf_start(c);
		break;
	case OVERHEAD_SOURCE_TRACEPOINT:
		err = collect_tp_start(c);
		break;
	default:
		return 0;
	}
	if (!err)
		c->started = true;
	return err;
}

int overhead_collector_stop(struct overhead_collector *c)
{
	int err;

	if (!c->started)
		return 0;
	switch (c->source) {
	case OVERHEAD_SOURCE_BPF:
		err = collect_bpf_stop(c);
		break;
	case OVERHEAD_SOURCE_TRACEPOINT:
		err = collect_tp_stop(c);
		break;
	default:
		err = 0;
	}
	c->started = false;
	return err;
}

int overhead_collector_read(struct overhead_collector *c, struct overhead_cpu_stats *stats)
{
	int i;

	memset(stats, 0, c->nr_cpus * sizeof(*stats));
	for (i = 0; i < c->nr_cpus; i++)
		stats[i].cpu = c->cpus[i];
	switch (c->source) {
	case OVERHEAD_SOURCE_BPF:
		return collect_bpf_read(c, stats);
	case OVERHEAD_SOURCE_TRACEPOINT:
		return collect_tp_read(c, stats);
	default:
		return -ENODATA;
	}
}

enum overhead_source overhead_collector_source(const struct overhead_collector *c)
{
	return c->source;
}

const char *overhead_collector_reason(const struct overhead_collector *c)
{
	return c->reason;
}

const char *overhead_collector_handler_reason(const struct overhead_collector *c,
					      enum overhead_handler h)
{
	if ((unsigned int)h >= OVERHEAD_HANDLER_NR)
		return "no such handler";
	return c->handler_reason[h][0] ? c->handler_reason[h] : NULL;
}

int overhead_collector_nr_cpus(const struct overhead_collector *c)
{
	return c->nr_cpus;
}

void overhead_collector_close(struct overhead_collector *c)
{
	if (!c)
		return;
	overhead_collector_stop(c);
	if (c->bpf)
		collect_bpf_close(c);
	if (c->tp)
		collect_tp_close(c);
	free(c->cpus);
	free(c);
}

