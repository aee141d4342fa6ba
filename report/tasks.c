// SPDX-License-Identifier: GPL-2.0
/*
 * prec report --tasks: the threads the file tells of, as perf report --tasks lists them: pid, tid,
 * the parent's tid and the command, each thread under its parent (FORK), indented one column a
 * level. perf walks its threads by tid modulo its table's size (256), then by tid, hangs each
 * under its parent in that order, and prints the trees whose root has no parent in the order
 * their first thread came; the idle thread, swapper, is always there.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "report/session.h"
#include "util/xalloc.h"

/* perf's THREADS__TABLE_SIZE: the order it walks threads in */
#define PERF_THREAD_BUCKETS 256

struct task {
	struct thread *t;
	int pid, tid, ppid;
	const char *comm;
	u32 first_child, next_sibling, last_child; /* 1-based indexes into the array; 0: none */
	bool listed;
};

static void no_sample(struct session *s, struct thread *t, const struct psample *smp, void *arg)
{
	(void)s;
	(void)t;
	(void)smp;
	(void)arg;
}

static int task_cmp(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	u32 bx = (u32)x->tid % PERF_THREAD_BUCKETS, by = (u32)y->tid % PERF_THREAD_BUCKETS;

	if (bx != by)
		return bx < by ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct task *task_of_tid(struct task *v, u32 n, int tid)
{
	for (u32 i = 0; i < n; i++)
		if (v[i].tid == tid)
			return &v[i];
	return NULL;
}

static void print_task(struct task *v, u32 i, int level)
{
	printf("  %8d %8d %8d |%*s%s\n", v[i].pid, v[i].tid, v[i].ppid, level, "", v[i].comm);
	for (u32 c = v[i].first_child; c; c = v[c - 1].next_sibling)
		print_task(v, c - 1, level + 1);
}

int report_tasks(struct report *rep, const struct report_opts *o)
{
	struct session s;
	struct thread *t;
	struct task *v;
	u32 n = 0, nr_roots = 0, *roots;
	bool have_idle = false;

	(void)o;
	session_init(&s, rep, no_sample, NULL);
	if (session_process(&s)) {
		session_exit(&s);
		return 1;
	}
	for (t = s.all_threads; t; t = t->next)
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	roots = xcalloc(n + 1, sizeof(*roots));
	n = 0;
	for (t = s.all_threads; t; t = t->next) {
		if (t->replaced)
			continue;
		v[n].pid = t->pid;
		v[n].tid = t->tid;
		v[n].ppid = t->ppid;
		v[n].comm = session_comm_final(&s, t->comm);
		have_idle |= t->tid == 0;
		n++;
	}
	if (!have_idle) {
		/* perf's machine always has its idle thread */
		v[n].pid = 0;
		v[n].tid = 0;
		v[n].ppid = -1;
		v[n].comm = "swapper";
		n++;
	}
	qsort(v, n, sizeof(*v), task_cmp);
	/* hang each task under its parent, climbing until a task already placed or a root */
	for (u32 i = 0; i < n; i++) {
		struct task *x = &v[i];

		while (!x->listed) {
			struct task *parent = x->ppid == -1 ? NULL : task_of_tid(v, n, x->ppid);

			x->listed = true;
			if (!parent) {
				roots[nr_roots++] = (u32)(x - v);
				break;
			}
			if (parent->last_child)
				v[parent->last_child - 1].next_sibling = (u32)(x - v) + 1;
			else
				parent->first_child = (u32)(x - v) + 1;
			parent->last_child = (u32)(x - v) + 1;
			x = parent;
		}
	}
	printf("# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (u32 i = 0; i < nr_roots; i++)
		print_task(v, roots[i], 0);
	free(roots);
	free(v);
	session_exit(&s);
	return 0;
}
