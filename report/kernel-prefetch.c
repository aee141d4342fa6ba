// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms read ahead for prec report (see symbols.h): a thread started early reads the file
 * kernel_kallsyms_path() names whole and makes its symbol tables (with sym.c), kernel.c's
 * kernel_load() takes them, and dsos_exit() stops the thread when no kernel address ever came up.
 * Both sides use it, so it sits below them both and knows neither.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "report/symbols-internal.h"
#include "util/kallsyms.h"
#include "util/xalloc.h"

/*
 * Reading /proc/kallsyms is slow (the kernel formats every line: tens of milliseconds), and so
 * are parsing and sorting its hundreds of thousands of symbols; prec report needs them only when
 * the first kernel address comes up: a thread reads the file (or the build-id cache's copy) from
 * the start, while the main thread reads the perf.data file, makes the tables, and kernel_load()
 * takes them.
 */
struct kallsyms_prefetch {
	pthread_t thread;
	struct ksym_tables *tables; /* NULL when the file could not be read */
	char *path;		    /* what it reads */
	int fd;			    /* the thread's, for its cancellation cleanup */
	struct ksym_text tmp;	    /* the text being read */
	atomic_bool stop;	    /* nobody needs the tables any more: give up parsing */
};

static void text_free(struct ksym_text *t)
{
	if (t->mapped)
		munmap(t->buf, t->len);
	else
		free(t->buf);
	memset(t, 0, sizeof(*t));
}

/*
 * The text of fd into t (t->buf NULL when it could not be read). A regular file (the build-id
 * cache's copy) is mapped: it is in the page cache, and a copy would cost as much again in
 * fresh pages faulted in; /proc/kallsyms has no size and is read. t stays consistent at each
 * cancellation point, for kallsyms_reader_cleanup().
 */
static void text_read(int fd, struct ksym_text *t)
{
	size_t cap = 4 << 20, n = 0;
	struct stat st;
	char *nb;

	memset(t, 0, sizeof(*t));
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			t->buf = m;
			t->len = (size_t)st.st_size;
			t->mapped = true;
			return;
		}
	}
	/* plain malloc: the prefetch thread must not die on a failed allocation */
	t->buf = malloc(cap);
	while (t->buf) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			nb = realloc(t->buf, cap);
			if (!nb) {
				text_free(t);
				break;
			}
			t->buf = nb;
		}
		r = read(fd, t->buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			text_free(t);
		if (r <= 0)
			break;
		n += (size_t)r;
		t->len = n;
	}
}

static struct ksym_tables *ksym_tables_make(struct ksym_text *text, const atomic_bool *stop);

/* A cancelled reader (dsos_exit() before any kernel address came up) frees what it had. */
static void kallsyms_reader_cleanup(void *arg)
{
	struct kallsyms_prefetch *k = arg;

	text_free(&k->tmp);
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

static void *kallsyms_reader(void *arg)
{
	struct kallsyms_prefetch *k = arg;

	k->fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0)
		return NULL;
	pthread_cleanup_push(kallsyms_reader_cleanup, k);
	text_read(k->fd, &k->tmp);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	if (k->tmp.buf)
		k->tables = ksym_tables_make(&k->tmp, &k->stop);
	pthread_cleanup_pop(1);
	return NULL;
}

void kernel_prefetch(struct dsos *d, const char *path)
{
	struct kallsyms_prefetch *k;

	if (d->kpre)
		return;
	k = xcalloc(1, sizeof(*k));
	k->fd = -1;
	k->path = xstrdup(path);
	if (pthread_create(&k->thread, NULL, kallsyms_reader, k)) {
		free(k->path);
		free(k);
		return;
	}
	d->kpre = k;
}

struct ksym_tables *kernel_prefetched(struct dsos *d, const char *path, bool cancel)
{
	struct kallsyms_prefetch *k = d->kpre;
	struct ksym_tables *t;

	if (!k)
		return NULL;
	if (cancel) {
		atomic_store(&k->stop, true);
		pthread_cancel(k->thread);
	}
	pthread_join(k->thread, NULL);
	t = k->tables;
	if (cancel || (path && strcmp(path, k->path))) {
		ksym_tables_free(t);
		t = NULL;
	}
	free(k->path);
	free(k);
	d->kpre = NULL;
	return t;
}

/* ---- the tables ---- */

struct ksym_fill {
	struct ksym_tables *t;
	struct ksym_module *last; /* a module's symbols come in a run: its table, found once */
	const atomic_bool *stop;
	u32 count;
	bool text_seen;
};

static struct ksym_module *module_table(struct ksym_fill *f, const char *name, size_t len)
{
	struct ksym_tables *t = f->t;
	struct ksym_module *m;

	if (f->last && f->last->len == len && !memcmp(f->last->name, name, len))
		return f->last;
	for (u32 i = 0; i < t->nr_mods; i++) {
		m = &t->mods[i];
		if (m->len == len && !memcmp(m->name, name, len))
			return f->last = m;
	}
	if (t->nr_mods == t->cap_mods) {
		t->cap_mods = t->cap_mods ? 2 * t->cap_mods : 64;
		t->mods = xrealloc(t->mods, t->cap_mods * sizeof(*t->mods));
	}
	m = &t->mods[t->nr_mods++];
	m->name = name;
	m->len = len;
	m->dso = xcalloc(1, sizeof(*m->dso));
	return f->last = m;
}

static int ksym_fill_one(const struct kallsyms_sym *s, void *arg)
{
	struct ksym_fill *f = arg;
	struct ksym_tables *t = f->t;
	struct dso *to;
	u8 binding;

	if (!(++f->count & 4095) && atomic_load_explicit(f->stop, memory_order_relaxed))
		return 1;
	if (s->addr)
		t->nonzero = true;
	if (!s->module && !f->text_seen) {
		/* kernel.c's relocation: the first _text, else the _stext before it */
		if (kallsyms_name_is(s, "_text")) {
			t->text_addr = s->addr;
			f->text_seen = true;
		} else if (kallsyms_name_is(s, "_stext")) {
			t->stext_addr = s->addr;
		}
	}
	if (!ksym_binding(s->type, &binding))
		return 0;
	to = s->module ? module_table(f, s->module, s->modlen)->dso : t->kernel;
	dso_add_sym(to, s->addr, s->addr, s->name, s->namelen, binding);
	return 0;
}

/*
 * The tables of text, which they take (text is left empty), or NULL when *stop came first;
 * text is freed then.
 */
static struct ksym_tables *ksym_tables_make(struct ksym_text *text, const atomic_bool *stop)
{
	struct ksym_tables *t = xcalloc(1, sizeof(*t));
	struct ksym_fill f = {.t = t, .stop = stop};

	t->text = *text;
	memset(text, 0, sizeof(*text));
	t->kernel = xcalloc(1, sizeof(*t->kernel));
	/*
	 * one allocation for all: a line of 64-bit kallsyms is 21 bytes at least, and the unused
	 * end is never touched; more symbols grow it as usual
	 */
	t->kernel->cap_syms = (u32)(t->text.len / 20 + 1);
	t->kernel->syms = xmalloc(t->kernel->cap_syms * sizeof(*t->kernel->syms));
	if (kallsyms_parse(t->text.buf, t->text.len, ksym_fill_one, &f)) {
		ksym_tables_free(t);
		return NULL;
	}
	if (!t->nonzero)
		return t;
	dso_sort_syms(t->kernel, true);
	for (u32 i = 0; i < t->nr_mods; i++)
		dso_sort_syms(t->mods[i].dso, true);
	return t;
}

/* A table's dso: only its symbols were set (dso.c, which frees whole dsos, is above). */
static void table_free(struct dso *dso)
{
	free(dso->syms);
	free(dso->starts);
	free(dso->starts_idx);
	free(dso->pick);
	pool_free(&dso->strings);
	free(dso);
}

void ksym_tables_free(struct ksym_tables *t)
{
	if (!t)
		return;
	table_free(t->kernel);
	for (u32 i = 0; i < t->nr_mods; i++)
		table_free(t->mods[i].dso);
	free(t->mods);
	text_free(&t->text);
	free(t);
}

struct ksym_tables *ksym_tables_read(const char *path)
{
	atomic_bool never = false;
	struct ksym_text text;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	text_read(fd, &text);
	close(fd);
	return text.buf ? ksym_tables_make(&text, &never) : NULL;
}
