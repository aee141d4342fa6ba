// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf overhead collector: loads overhead.bpf.c (built into overhead/overhead.skel.h), tells
 * it the handler addresses through .rodata, attaches it on start and reads its per-CPU maps.
 * Built only when configure finds libbpf, clang, bpftool and kernel BTF; collect-internal.h has
 * the stubs otherwise.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "overhead/collect-internal.h"
#include "overhead/overhead.skel.h"
#include "util/bpf-log.h"

/* As struct totals and struct inflight in overhead.bpf.c. */
struct bpf_totals {
	u64 nr;
	u64 ns;
};

struct bpf_inflight {
	u64 start;
	u64 hrtimer;
	u32 handler;
	u32 pad;
};

struct collect_bpf {
	struct overhead_bpf *skel;
	struct bpf_link *links[3];
	int nr_links;
	int nr_possible;
	void *vals; /* one map value per possible CPU */
};

static void why_errno(char *why, size_t len, int err, const char *what)
{
	if (err == -EPERM || err == -EACCES)
		snprintf(why, len, "%s: not permitted (needs root, or CAP_BPF and CAP_PERFMON)",
			 what);
	else if (bpf_log_last()[0])
		snprintf(why, len, "%s: %s (%s)", what, strerror(-err), bpf_log_last());
	else
		snprintf(why, len, "%s: %s", what, strerror(-err));
}

/* One attempt: open the skeleton, keep one set of programs, load. */
static int load(struct overhead_collector *c, bool btf, struct overhead_bpf **out)
{
	struct overhead_bpf *s;
	struct bpf_program *btf_progs[3], *tp_progs[3];
	int i, err;

	s = overhead_bpf__open();
	if (!s)
		return errno ? -errno : -EINVAL;
	btf_progs[0] = s->progs.btf_hrtimer_entry;
	btf_progs[1] = s->progs.btf_hrtimer_exit;
	btf_progs[2] = s->progs.btf_nmi_handler;
	tp_progs[0] = s->progs.tp_hrtimer_entry;
	tp_progs[1] = s->progs.tp_hrtimer_exit;
	tp_progs[2] = s->progs.tp_nmi_handler;
	for (i = 0; i < 3; i++) {
		bool want = true;

		/* Nothing to match: do not load what may not even exist (nmi off x86). */
		if (i < 2 && !c->addr[OVERHEAD_HANDLER_SWEVENT] && !c->addr[OVERHEAD_HANDLER_MUX])
			want = false;
		if (i == 2 && !c->addr[OVERHEAD_HANDLER_NMI])
			want = false;
		bpf_program__set_autoload(btf_progs[i], btf && want);
		bpf_program__set_autoload(tp_progs[i], !btf && want);
	}
	s->rodata->swevent_fn = c->addr[OVERHEAD_HANDLER_SWEVENT];
	s->rodata->mux_fn = c->addr[OVERHEAD_HANDLER_MUX];
	s->rodata->nmi_fn = c->addr[OVERHEAD_HANDLER_NMI];
	err = overhead_bpf__load(s);
	if (err) {
		overhead_bpf__destroy(s);
		return err < 0 ? err : -EINVAL;
	}
	*out = s;
	return 0;
}

int collect_bpf_open(struct overhead_collector *c, char *why, size_t len)
{
	struct collect_bpf *b;
	int err;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->nr_possible = libbpf_num_possible_cpus();
	if (b->nr_possible <= 0) {
		snprintf(why, len, "cannot count the possible CPUs");
		free(b);
		return -EINVAL;
	}
	b->vals = calloc(b->nr_possible, sizeof(struct bpf_inflight));
	if (!b->vals) {
		free(b);
		return -ENOMEM;
	}

	/* overhead/ never prints: libbpf's last line goes into the reason */
	bpf_log_begin(false);
	err = load(c, true, &b->skel);
	if (err && err != -EPERM) {
		/* Raw tracepoints with BTF refused: classic tracepoint programs. */
		bpf_log_end();
		bpf_log_begin(false);
		err = load(c, false, &b->skel);
	}
	if (err)
		why_errno(why, len, err, "cannot load the BPF programs");
	bpf_log_end();
	if (err) {
		free(b->vals);
		free(b);
		return err;
	}
	c->bpf = b;
	return 0;
}

/* Forget an entry left in flight by an earlier stop, so that it pairs with nothing. */
static void clear_inflight(struct collect_bpf *b)
{
	u32 zero = 0;

	memset(b->vals, 0, b->nr_possible * sizeof(struct bpf_inflight));
	bpf_map_update_elem(bpf_map__fd(b->skel->maps.inflight), &zero, b->vals, BPF_ANY);
}

int collect_bpf_start(struct overhead_collector *c)
{
	struct collect_bpf *b = c->bpf;
	struct bpf_program *p;
	int err = 0;

	clear_inflight(b);
	bpf_log_begin(false);
	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		if (b->nr_links == (int)(sizeof(b->links) / sizeof(b->links[0])))
			break;
		l = bpf_program__attach(p);
		if (!l) {
			err = -errno;
			why_errno(c->reason, sizeof(c->reason), err,
				  "cannot attach the BPF programs");
			break;
		}
		b->links[b->nr_links++] = l;
	}
	bpf_log_end();
	if (err)
		collect_bpf_stop(c);
	return err;
}

int collect_bpf_stop(struct overhead_collector *c)
{
	struct collect_bpf *b = c->bpf;

	while (b->nr_links > 0)
		bpf_link__destroy(b->links[--b->nr_links]);
	return 0;
}

int collect_bpf_read(struct overhead_collector *c, struct overhead_cpu_stats *st)
{
	struct collect_bpf *b = c->bpf;
	const struct bpf_totals *t = b->vals;
	int fd = bpf_map__fd(b->skel->maps.totals);
	u32 h;
	int i;

	for (h = 0; h < OVERHEAD_HANDLER_NR; h++) {
		if (bpf_map_lookup_elem(fd, &h, b->vals))
			return -errno;
		for (i = 0; i < c->nr_cpus; i++) {
			int cpu = c->cpus[i];

			if (cpu < 0 || cpu >= b->nr_possible)
				continue;
			st[i].h[h].nr = t[cpu].nr;
			st[i].h[h].ns = t[cpu].ns;
		}
	}
	return 0;
}

void collect_bpf_close(struct overhead_collector *c)
{
	struct collect_bpf *b = c->bpf;

	if (!b)
		return;
	collect_bpf_stop(c);
	overhead_bpf__destroy(b->skel);
	free(b->vals);
	free(b);
	c->bpf = NULL;
}
