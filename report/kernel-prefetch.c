// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms read ahead for prec report (see symbols.h): a thread started early reads the file
 * kernel_kallsyms_path() names whole, kernel.c's kernel_load() takes the text, and dsos_exit()
 * stops the thread when no kernel address ever came up. Both sides use it, so it sits below them
 * both and knows neither.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbols-internal.h"
#include "util/xalloc.h"

/*
 * Reading /proc/kallsyms is slow (the kernel formats every line: tens of milliseconds), and
 * prec report needs it only when the first kernel address comes up: a thread reads it (or the
 * build-id cache's copy) from the start, while the main thread reads the file, and kernel_load()
 * takes what it read.
 */
struct kallsyms_prefetch {
	pthread_t thread;
	char *buf; /* NULL when it could not be read: kernel_load() reads it itself */
	size_t len;
	char *path; /* what it reads */
	int fd;	    /* the thread's, for its cancellation cleanup */
	char *tmp;  /* the buffer being filled */
};

/* A cancelled reader (dsos_exit() before any kernel address came up) frees what it had. */
static void kallsyms_reader_cleanup(void *arg)
{
	struct kallsyms_prefetch *k = arg;

	free(k->tmp);
	k->tmp = NULL;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* Read all of k->fd into k->tmp (NULL when it could not be), its length in k->len. */
static void kallsyms_read_all(struct kallsyms_prefetch *k)
{
	size_t cap = 4 << 20, n = 0;
	char *nb;

	/* plain malloc: this thread must not die on a failed allocation, the caller retries */
	k->tmp = malloc(cap + 1);
	while (k->tmp) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			nb = realloc(k->tmp, cap + 1);
			if (!nb) {
				free(k->tmp);
				k->tmp = NULL;
				break;
			}
			k->tmp = nb;
		}
		r = read(k->fd, k->tmp + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(k->tmp);
			k->tmp = NULL;
		}
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (k->tmp)
		k->tmp[n] = '\0';
	k->len = n;
}

static void *kallsyms_reader(void *arg)
{
	struct kallsyms_prefetch *k = arg;

	k->fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0)
		return NULL;
	pthread_cleanup_push(kallsyms_reader_cleanup, k);
	kallsyms_read_all(k);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	k->buf = k->tmp;
	k->tmp = NULL;
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

/*
 * What the prefetch thread read (malloc'ed, the caller frees), or NULL; with cancel, the
 * thread is stopped where it is (nobody needs kallsyms any more).
 */
char *kernel_prefetched(struct dsos *d, const char *path, size_t *len, bool cancel)
{
	struct kallsyms_prefetch *k = d->kpre;
	char *buf;

	if (!k)
		return NULL;
	if (cancel)
		pthread_cancel(k->thread);
	pthread_join(k->thread, NULL);
	buf = k->buf;
	*len = k->len;
	if (path && strcmp(path, k->path)) {
		free(buf);
		buf = NULL;
	}
	free(k->path);
	free(k);
	d->kpre = NULL;
	return buf;
}
