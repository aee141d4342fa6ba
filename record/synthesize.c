// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band synthesis: the records perf record writes before the first sample so that perf report
 * can name every address that existed before the recording began. The layout follows perf 6.1
 * (tools/perf/util/synthetic-events.c and machine.c), checked against the files perf 6.1 writes
 * on this kind of machine (perf script --show-mmap-events --show-task-events):
 *
 * - kernel: MMAP, pid -1, misc KERNEL, "[kernel.kallsyms]_text", start = pgoff = _text; the
 *   length reaches _etext, else the first module above _text (perf 6.1's
 *   machine__get_running_kernel_start(); later perfs prefer _edata). This pgoff is what keeps
 *   perf report from printing "Kernel address maps ... were restricted". With page table
 *   isolation on x86, one page per CPU named __entry_SYSCALL_64_trampoline follows, its pgoff
 *   _entry_trampoline.
 * - modules: MMAP, pid -1, misc KERNEL, pgoff 0, in address order, named by the .ko file under
 *   /lib/modules/RELEASE (or "[name]" when there is none), with the size /proc/modules gives.
 * - all processes (-a): per thread a FORK (misc FORK_EXEC, so perf does not clone the parent's
 *   maps into the child) and a COMM, then the leader's MMAP2s. One process (-p) or thread (-t):
 *   COMMs and MMAP2s only, as perf's thread-map synthesis writes them.
 *
 * Every record carries a zero sample_id trailer, as perf's synthesized records do. Processes and
 * threads that exit while /proc is read are skipped without a word.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record/synthesize.h"
#include "util/fs.h"
#include "util/kallsyms.h"

/* The kernel map is named this followed by the name of the symbol its pgoff is the address of. */
#define KERNEL_MMAP_NAME "[kernel.kallsyms]"

/* ---------------------------------------------------------------------------------------- */
/* Reading whole files and directories without stdio. */

/*
 * A line reader over a descriptor with one fixed buffer: lines longer than the buffer are
 * skipped whole (no /proc line prec needs is that long).
 */
struct line_reader {
	int fd;
	char *buf;
	size_t size;
	size_t start, end; /* unread bytes are buf[start, end) */
	bool eof;
};

/* The next line without its newline, NUL-terminated in place; NULL at the end. */
static char *next_line(struct line_reader *lr, size_t *len)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		ssize_t n;

		if (nl) {
			char *line = lr->buf + lr->start;

			*nl = '\0';
			*len = nl - line;
			lr->start = nl + 1 - lr->buf;
			return line;
		}
		if (lr->eof) {
			char *line = lr->buf + lr->start;

			if (lr->start == lr->end)
				return NULL;
			/* A last line without a newline: there is always room for the NUL. */
			lr->buf[lr->end] = '\0';
			*len = lr->end - lr->start;
			lr->start = lr->end;
			return line;
		}
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (lr->end == lr->size - 1) {
			/* Overlong line: drop what we have and everything up to its newline. */
			lr->end = 0;
			for (;;) {
				n = read(lr->fd, lr->buf, lr->size - 1);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0) {
					lr->eof = true;
					break;
				}
				nl = memchr(lr->buf, '\n', n);
				if (nl) {
					lr->start = nl + 1 - lr->buf;
					lr->end = n;
					break;
				}
			}
			continue;
		}
		n = read(lr->fd, lr->buf + lr->end, lr->size - 1 - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			lr->eof = true; /* a process that went away mid-read ends its maps here */
		else
			lr->end += n;
	}
}

static bool parse_hex(const char **p, u64 *v)
{
	const char *s = *p;
	u64 x = 0;
	int d;

	for (d = 0; isxdigit((unsigned char)*s); s++, d++) {
		unsigned c = (unsigned char)*s;

		x = x << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	*p = s;
	*v = x;
	return d > 0;
}

static bool parse_dec(const char **p, u64 *v)
{
	const char *s = *p;
	u64 x = 0;
	int d;

	for (d = 0; *s >= '0' && *s <= '9'; s++, d++)
		x = x * 10 + (*s - '0');
	*p = s;
	*v = x;
	return d > 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The kernel and its modules. */

struct ksyms {
	u64 text, stext, etext;
	bool have_text, have_stext, have_etext;
	/*
	 * x86-64 with page table isolation: the per-CPU copies of the syscall entry, which perf
	 * maps as extra kernel maps onto _entry_trampoline (arch/x86/util/machine.c).
	 */
	u64 entry_trampoline;
	u64 *trampolines;
	size_t nr_trampolines, cap_trampolines;
};

static bool is_function_type(char type)
{
	type = toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

static int add_trampoline(struct ksyms *k, u64 addr)
{
	if (k->nr_trampolines == k->cap_trampolines) {
		size_t cap = k->cap_trampolines ? k->cap_trampolines * 2 : 64;
		u64 *bigger = realloc(k->trampolines, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		k->trampolines = bigger;
		k->cap_trampolines = cap;
	}
	k->trampolines[k->nr_trampolines++] = addr;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct ksyms_scan {
	struct ksyms *k;
	bool text_only;
};

static int ksyms_scan_one(const struct kallsyms_sym *s, void *arg)
{
	struct ksyms_scan *sc = arg;
	struct ksyms *k = sc->k;

	if (s->module)
		return 1; /* "name\t[module]": the core kernel is behind us */
	if (!s->namelen || s->name[0] != '_')
		return 0;
	if (kallsyms_name_is(s, "_text") && is_function_type(s->type) && !k->have_text) {
		k->text = s->addr;
		k->have_text = true;
		if (sc->text_only)
			return 1;
	} else if (kallsyms_name_is(s, "_stext") && is_function_type(s->type) && !k->have_stext) {
		k->stext = s->addr;
		k->have_stext = true;
	} else if (kallsyms_name_is(s, "_etext") && !k->have_etext) {
		k->etext = s->addr;
		k->have_etext = true;
	} else if (kallsyms_name_is(s, "_entry_trampoline") && s->type == 'T' &&
		   !k->entry_trampoline) {
		k->entry_trampoline = s->addr;
	} else if (kallsyms_name_is(s, "__entry_SYSCALL_64_trampoline")) {
		return add_trampoline(k, s->addr);
	}
	return 0;
}

/*
 * Find _text, _stext, _etext and the entry trampolines among the core kernel's symbols (and
 * x86's arch symbols, which follow them). kallsyms lists those before the modules, so the scan
 * stops at the first module symbol; with text_only, as soon as _text is found (near the top:
 * the core symbols are in address order). The kernel formats the file as it is read, about
 * 0.3 us per symbol, so the first read of a short scan is small.
 */
static int kallsyms_scan(const char *path, struct ksyms *k, bool text_only)
{
	struct ksyms_scan sc = {.k = k, .text_only = text_only};
	int err;

	memset(k, 0, sizeof(*k));
	err = kallsyms_foreach(path, ksyms_scan_one, &sc);
	if (err > 0)
		err = 0;
	if (!err && k->nr_trampolines)
		qsort(k->trampolines, k->nr_trampolines, sizeof(u64), u64_cmp);
	return err;
}

struct module {
	char name[64]; /* as /proc/modules and /sys/module spell it */
	u64 start, size;
	char *path; /* the .ko file, or NULL */
};

static int module_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct module *)a)->name, ((const struct module *)b)->name);
}

static int module_cmp_start(const void *a, const void *b)
{
	const struct module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* "name size refcount deps state 0xaddress [taints]"; modules at address 0 are left out. */
static int modules_read(const char *path, struct module **mods, size_t *nr)
{
	struct line_reader lr = {.size = 64 * 1024};
	struct module *m = NULL;
	size_t n = 0, cap = 0;
	char *line;
	size_t len;

	*mods = NULL;
	*nr = 0;
	lr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return -errno;
	lr.buf = malloc(lr.size);
	if (!lr.buf) {
		close(lr.fd);
		return -ENOMEM;
	}
	while ((line = next_line(&lr, &len))) {
		char *tok, *save = NULL;
		const char *p;
		struct module mod = {.path = NULL};
		int field = 0;
		bool have_addr = false;

		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save), field++) {
			if (field == 0) {
				if (strlen(tok) >= sizeof(mod.name))
					break;
				strcpy(mod.name, tok);
			} else if (field == 1) {
				p = tok;
				if (!parse_dec(&p, &mod.size))
					break;
			} else if (tok[0] == '0' && tok[1] == 'x') {
				p = tok + 2;
				have_addr = parse_hex(&p, &mod.start);
				break;
			}
		}
		if (!have_addr || !mod.start)
			continue;
		if (n == cap) {
			struct module *bigger;

			cap = cap ? cap * 2 : 64;
			bigger = realloc(m, cap * sizeof(*m));
			if (!bigger) {
				free(m);
				free(lr.buf);
				close(lr.fd);
				return -ENOMEM;
			}
			m = bigger;
		}
		m[n++] = mod;
	}
	free(lr.buf);
	close(lr.fd);
	*mods = m;
	*nr = n;
	return 0;
}

/* A module file's name as the kernel knows the module: up to the first '.', '-' as '_'. */
static void module_name_of_file(const char *file, char *name, size_t size)
{
	const char *base = strrchr(file, '/');
	size_t i;

	base = base ? base + 1 : file;
	for (i = 0; i + 1 < size && base[i] && base[i] != '.'; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[i] = '\0';
}

static bool is_module_file(const char *file)
{
	const char *ko = strstr(file, ".ko");

	/* .ko, or a compressed .ko.xz / .ko.gz / .ko.zst */
	return ko && (ko[3] == '\0' || ko[3] == '.');
}

static struct module *module_find(struct module *mods, size_t nr, const char *file)
{
	struct module key;

	module_name_of_file(file, key.name, sizeof(key.name));
	return bsearch(&key, mods, nr, sizeof(*mods), module_cmp_name);
}

static int module_set_path(struct module *m, const char *dir, const char *rel)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return -ENOMEM;
	free(m->path);
	m->path = path;
	return 0;
}

/* depmod's list: "kernel/fs/xfs/xfs.ko.xz: deps..." relative to the release directory. */
static int modules_paths_from_dep(struct module *mods, size_t nr, const char *dir)
{
	struct line_reader lr = {.size = 64 * 1024};
	char path[PATH_MAX];
	char *line;
	size_t len;
	int err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/modules.dep", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	lr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return -errno;
	lr.buf = malloc(lr.size);
	if (!lr.buf) {
		close(lr.fd);
		return -ENOMEM;
	}
	while (!err && (line = next_line(&lr, &len))) {
		char *colon = strchr(line, ':');
		struct module *m;

		if (!colon)
			continue;
		*colon = '\0';
		if (!is_module_file(line))
			continue;
		m = module_find(mods, nr, line);
		if (!m)
			continue;
		if (line[0] == '/')
			err = module_set_path(m, "", line + 1);
		else
			err = module_set_path(m, dir, line);
	}
	free(lr.buf);
	close(lr.fd);
	return err;
}

/* Without modules.dep, walk the tree as perf does (not into the top-level build/source links). */
static int modules_paths_walk(struct module *mods, size_t nr, const char *dir, int depth)
{
	struct dirent *d;
	DIR *dp;
	int err = 0;

	if (depth > 8)
		return 0;
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!err && (d = readdir(dp))) {
		char sub[PATH_MAX];
		struct module *m;

		if (d->d_name[0] == '.')
			continue;
		if (d->d_type == DT_DIR) {
			if (depth == 0 &&
			    (!strcmp(d->d_name, "build") || !strcmp(d->d_name, "source")))
				continue;
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name) >=
			    sizeof(sub))
				continue;
			err = modules_paths_walk(mods, nr, sub, depth + 1);
		} else if (is_module_file(d->d_name) && (m = module_find(mods, nr, d->d_name))) {
			err = module_set_path(m, dir, d->d_name);
		}
	}
	closedir(dp);
	return err;
}

static void modules_free(struct module *mods, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(mods[i].path);
	free(mods);
}

static const char *root_or_empty(const char *root)
{
	return root && strcmp(root, "/") ? root : "";
}

/*
 * The size of the kernel's text, _etext - _text, without reading all of /proc/kallsyms (about
 * 40 ms of kernel time for 120 000 symbols, most of prec record's start-up): on x86 the "Kernel
 * code" resource of /proc/iomem is [_text, _etext - 1] in physical addresses
 * (arch/x86/kernel/setup.c), and the image is contiguous in both address spaces. Only when the
 * kernel has no page table isolation, whose entry trampolines are listed at the end of the core
 * symbols (sys/devices/system/cpu/vulnerabilities/meltdown says "PTI" then), and when iomem
 * shows addresses (root; others see zeros). Return: 0 with *len set, or -ENOENT.
 */
static int kernel_text_size(const char *root, u64 *len)
{
#if defined(__x86_64__) || defined(__i386__)
	char path[PATH_MAX], buf[4096];
	struct line_reader lr = {.buf = buf, .size = sizeof(buf)};
	const char *line;
	size_t n;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/vulnerabilities/meltdown", root);
	if (read_small_file(path, buf, sizeof(buf)) <= 0 || strstr(buf, "PTI"))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/proc/iomem", root);
	lr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return -ENOENT;
	while ((line = next_line(&lr, &n))) {
		const char *p = line;
		u64 start, end;

		while (*p == ' ')
			p++;
		if (!parse_hex(&p, &start) || *p++ != '-' || !parse_hex(&p, &end) ||
		    strcmp(p, " : Kernel code"))
			continue;
		if (end > start) {
			*len = end - start + 1;
			err = 0;
		}
		break;
	}
	close(lr.fd);
	return err;
#else
	(void)root;
	(void)len;
	return -ENOENT;
#endif
}

/**
 * synthesize_kernel_maps_at - synthesize_kernel_maps() reading ROOT/proc/kallsyms,
 * ROOT/proc/iomem, ROOT/proc/modules, ROOT/sys/devices/system/cpu/vulnerabilities/meltdown and
 * ROOT/lib/modules/RELEASE instead of the running system's (tests).
 *
 * Return: as synthesize_kernel_maps().
 */
int synthesize_kernel_maps_at(const struct perf_event_attr *attr, const char *root,
			      struct pd_buf *out)
{
	char path[PATH_MAX], name[64];
	struct pd_mmap_body body = {.pid = (u32)-1, .tid = 0};
	struct module *mods;
	struct utsname uts;
	struct ksyms k;
	size_t nr, i;
	const char *sym;
	u64 start, end = ~0ULL, text_size = 0;
	bool short_scan;
	int err;

	root = root_or_empty(root);
	short_scan = !kernel_text_size(root, &text_size);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", root);
	err = kallsyms_scan(path, &k, short_scan);
	if (err) {
		free(k.trampolines);
		return err;
	}
	/* perf's ref_reloc_sym: _text, else _stext. */
	if (k.have_text) {
		sym = "_text";
		start = k.text;
	} else if (k.have_stext) {
		sym = "_stext";
		start = k.stext;
	} else {
		free(k.trampolines);
		return -ENOENT;
	}
	/* kptr_restrict: the symbols are listed with address 0. */
	if (!start) {
		free(k.trampolines);
		return -EACCES;
	}
	if (short_scan && k.have_text)
		end = start + text_size;
	else if (k.have_etext && k.etext > start)
		end = k.etext;

	snprintf(path, sizeof(path), "%s/proc/modules", root);
	if (modules_read(path, &mods, &nr) < 0) {
		/* No modules (a kernel built without them), or not readable: the kernel alone. */
		mods = NULL;
		nr = 0;
	}
	if (nr && uname(&uts) == 0) {
		qsort(mods, nr, sizeof(*mods), module_cmp_name);
		snprintf(path, sizeof(path), "%s/lib/modules/%s", root, uts.release);
		err = modules_paths_from_dep(mods, nr, path);
		if (err == -ENOMEM)
			goto out;
		if (err)
			err = modules_paths_walk(mods, nr, path, 0);
		if (err == -ENOMEM)
			goto out;
	}
	if (nr)
		qsort(mods, nr, sizeof(*mods), module_cmp_start);
	/* Without _etext the kernel map ends where the next module begins. */
	for (i = 0; end == ~0ULL && i < nr; i++) {
		if (mods[i].start > start)
			end = mods[i].start;
	}

	body.start = start;
	body.len = end - start;
	body.pgoff = start;
	snprintf(name, sizeof(name), KERNEL_MMAP_NAME "%s", sym);
	err = pd_encode_mmap(out, attr, PERF_RECORD_MISC_KERNEL, &body, name, NULL);
	/* One page per CPU, in address order, as perf_event__synthesize_extra_kmaps(). */
	for (i = 0; !err && k.entry_trampoline && i < k.nr_trampolines; i++) {
		body.start = k.trampolines[i];
		body.len = (u64)sysconf(_SC_PAGESIZE);
		body.pgoff = k.entry_trampoline;
		err = pd_encode_mmap(out, attr, PERF_RECORD_MISC_KERNEL, &body,
				     "__entry_SYSCALL_64_trampoline", NULL);
	}
	for (i = 0; !err && i < nr; i++) {
		char bracketed[sizeof(mods[i].name) + 2];

		body.start = mods[i].start;
		body.len = mods[i].size;
		body.pgoff = 0;
		snprintf(bracketed, sizeof(bracketed), "[%s]", mods[i].name);
		err = pd_encode_mmap(out, attr, PERF_RECORD_MISC_KERNEL, &body,
				     mods[i].path ? mods[i].path : bracketed, NULL);
	}
out:
	modules_free(mods, nr);
	free(k.trampolines);
	return err;
}

/**
 * synthesize_kernel_maps - append the kernel map, x86's PTI entry trampolines when kallsyms
 * lists them, and one MMAP per loaded module, as perf record writes them.
 *
 * Return: 0; -EACCES when /proc/kallsyms shows zero addresses (kptr_restrict) and nothing was
 * appended, so the caller can fall back to user-only sampling as perf does; -ENOENT when the
 * kernel has no _text or _stext in kallsyms; another negative errno (-ENOMEM, or the error
 * opening /proc/kallsyms).
 */
int synthesize_kernel_maps(const struct perf_event_attr *attr, struct pd_buf *out)
{
	return synthesize_kernel_maps_at(attr, NULL, out);
}

/* ---------------------------------------------------------------------------------------- */
/* Processes and threads. */

struct proc_walk {
	const struct perf_event_attr *attr;
	struct pd_buf *out;
	bool data_maps;
	int proc_fd; /* ROOT/proc */
	char *buf;   /* the maps line buffer */
	size_t buf_size;
	char hugetlbfs[PATH_MAX]; /* perf names files on the first hugetlbfs mount //anon */
	size_t hugetlbfs_len;
};

struct task_status {
	char comm[16]; /* perf_record_comm's comm[16]: at most 15 characters */
	int tgid, ppid;
	bool kthread;
};

/*
 * Name, Tgid and PPid from a status file; kernel threads are the tasks with a Threads: line but
 * no VmPeak: line (perf_event__get_comm_ids()). Return 0 or -errno when the task is gone.
 */
static int read_status(struct proc_walk *w, const char *path, struct task_status *st)
{
	char buf[4096];
	const char *p;
	ssize_t n;
	size_t i;

	n = read_small_file_at(w->proc_fd, path, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ESRCH;
	memset(st, 0, sizeof(*st));
	st->tgid = st->ppid = -1;
	p = strstr(buf, "Name:");
	if (p) {
		p += 5;
		while (*p == ' ' || *p == '\t')
			p++;
		for (i = 0; i < sizeof(st->comm) - 1 && p[i] && p[i] != '\n'; i++)
			st->comm[i] = p[i];
		st->comm[i] = '\0';
	}
	p = strstr(buf, "\nTgid:");
	if (p)
		st->tgid = atoi(p + 6);
	p = strstr(buf, "\nPPid:");
	if (p)
		st->ppid = atoi(p + 6);
	st->kthread = !strstr(buf, "\nVmPeak:") && strstr(buf, "\nThreads:");
	return st->tgid < 0 ? -ESRCH : 0;
}

struct maps_line {
	u64 start, end, pgoff, ino;
	u32 maj, min, prot, flags;
	const char *name;
};

/* "00400000-0040c000 r-xp 00000000 fd:01 41038    /bin/cat" */
static bool parse_maps_line(const char *p, struct maps_line *m)
{
	u64 v;

	if (!parse_hex(&p, &m->start) || *p++ != '-' || !parse_hex(&p, &m->end) || *p++ != ' ')
		return false;
	m->prot = 0;
	if (p[0] == 'r')
		m->prot |= PROT_READ;
	else if (p[0] != '-')
		return false;
	if (p[1] == 'w')
		m->prot |= PROT_WRITE;
	else if (p[1] != '-')
		return false;
	if (p[2] == 'x')
		m->prot |= PROT_EXEC;
	else if (p[2] != '-')
		return false;
	if (p[3] == 's')
		m->flags = MAP_SHARED;
	else if (p[3] == 'p')
		m->flags = MAP_PRIVATE;
	else
		return false;
	p += 4;
	if (*p++ != ' ' || !parse_hex(&p, &m->pgoff) || *p++ != ' ')
		return false;
	if (!parse_hex(&p, &v) || *p++ != ':')
		return false;
	m->maj = (u32)v;
	if (!parse_hex(&p, &v) || *p++ != ' ')
		return false;
	m->min = (u32)v;
	if (!parse_dec(&p, &m->ino))
		return false;
	while (*p == ' ')
		p++;
	m->name = p;
	return m->end >= m->start;
}

/* MMAP2 for pid's maps: the executable ones, or all readable ones too with data_maps. */
static int synthesize_maps(struct proc_walk *w, int pid, int tgid)
{
	struct line_reader lr = {.buf = w->buf, .size = w->buf_size};
	struct pd_mmap2_body body;
	char path[64];
	const char *line;
	size_t len;
	int err = 0;

	snprintf(path, sizeof(path), "%d/task/%d/maps", pid, pid);
	lr.fd = openat(w->proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return 0; /* raced with the task exiting */
	while (!err && (line = next_line(&lr, &len))) {
		struct maps_line m;
		const char *name;
		u16 misc = PERF_RECORD_MISC_USER;

		if (!parse_maps_line(line, &m))
			continue;
		if (!(m.prot & PROT_EXEC)) {
			if (!w->data_maps || !(m.prot & PROT_READ))
				continue;
			misc |= PERF_RECORD_MISC_MMAP_DATA;
		}
		name = m.name;
		if (!name[0]) {
			name = "//anon";
		} else if (w->hugetlbfs_len && !strncmp(name, w->hugetlbfs, w->hugetlbfs_len)) {
			name = "//anon";
			m.flags |= MAP_HUGETLB;
		}
		memset(&body, 0, sizeof(body));
		body.pid = (u32)tgid;
		body.tid = (u32)pid;
		body.start = m.start;
		body.len = m.end - m.start;
		body.pgoff = m.pgoff;
		body.maj = m.maj;
		body.min = m.min;
		body.ino = m.ino;
		body.prot = m.prot;
		body.flags = m.flags;
		err = pd_encode_mmap2(w->out, w->attr, misc, &body, name, NULL);
		if (err == -E2BIG)
			err = 0; /* a name no record can hold: leave that map out */
	}
	close(lr.fd);
	return err;
}

static int emit_comm(struct proc_walk *w, const struct task_status *st, int tid)
{
	return pd_encode_comm(w->out, w->attr, (u32)st->tgid, (u32)tid, st->comm, false, NULL);
}

static int emit_fork(struct proc_walk *w, const struct task_status *st, int tid)
{
	struct pd_fork_body body = {.pid = (u32)st->tgid, .tid = (u32)tid};

	/* The leader's parent is its PPid; perf makes the leader the parent of other threads. */
	body.ppid = body.ptid = (u32)(st->tgid == tid ? st->ppid : st->tgid);
	/* FORK_EXEC: the child's maps follow, perf must not copy the parent's into it. */
	return pd_encode_fork(w->out, w->attr, false, PD_RECORD_MISC_FORK_EXEC, &body, NULL);
}

/* Call fn(w, pid, tid) for every numeric entry of the directory at dirfd/path, in its order. */
static int for_each_numeric_entry(struct proc_walk *w, const char *path, int pid,
				  int (*fn)(struct proc_walk *w, int pid, int tid))
{
	char buf[16384];
	ssize_t n;
	int err = 0;
	int fd = openat(w->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (!err && (n = getdents64(fd, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (!err && off < n) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			char *end;
			long id;

			off += d->d_reclen;
			if (!isdigit((unsigned char)d->d_name[0]))
				continue;
			id = strtol(d->d_name, &end, 10);
			if (*end || id <= 0 || id > INT_MAX)
				continue;
			err = fn(w, pid < 0 ? (int)id : pid, (int)id);
		}
	}
	close(fd);
	return err;
}

/* -a: FORK and COMM for every thread, the maps with the leader (perf's "full" synthesis). */
static int synthesize_task_full(struct proc_walk *w, int pid, int tid)
{
	struct task_status st;
	char path[64];
	int err;

	snprintf(path, sizeof(path), "%d/task/%d/status", pid, tid);
	if (read_status(w, path, &st))
		return 0; /* some threads exit just after the scan */
	err = emit_fork(w, &st, tid);
	if (!err)
		err = emit_comm(w, &st, tid);
	if (!err && tid == pid && !st.kthread)
		err = synthesize_maps(w, pid, st.tgid);
	return err;
}

static int synthesize_process_full(struct proc_walk *w, int pid, int unused)
{
	char path[32];
	int err;

	snprintf(path, sizeof(path), "%d/task", pid);
	err = for_each_numeric_entry(w, path, pid, synthesize_task_full);
	/* A process that is gone, or a task directory we may not read, is skipped. */
	return err == -ENOMEM ? err : 0;
}

/* -p / -t: one COMM for the thread; the maps too when it leads its group. */
static int synthesize_task_comm(struct proc_walk *w, int tid, int *tgid)
{
	struct task_status st;
	char path[32];
	int err;

	snprintf(path, sizeof(path), "%d/status", tid);
	err = read_status(w, path, &st);
	if (err)
		return err;
	*tgid = st.tgid;
	err = emit_comm(w, &st, tid);
	if (!err && tid == st.tgid && !st.kthread)
		err = synthesize_maps(w, tid, st.tgid);
	return err;
}

static int synthesize_thread_of(struct proc_walk *w, int pid, int tid)
{
	int tgid, err = synthesize_task_comm(w, tid, &tgid);

	return err == -ENOMEM ? err : 0;
}

/* The hugetlbfs mount perf would find: the first one in /proc/mounts. */
static void find_hugetlbfs(struct proc_walk *w)
{
	struct line_reader lr = {.size = 16384};
	char *line;
	size_t len;

	w->hugetlbfs_len = 0;
	lr.fd = openat(w->proc_fd, "self/mounts", O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return;
	lr.buf = malloc(lr.size);
	while (lr.buf && (line = next_line(&lr, &len))) {
		char *save = NULL, *dev = strtok_r(line, " ", &save);
		char *dir = dev ? strtok_r(NULL, " ", &save) : NULL;
		char *type = dir ? strtok_r(NULL, " ", &save) : NULL;

		if (type && !strcmp(type, "hugetlbfs") && strlen(dir) < sizeof(w->hugetlbfs)) {
			strcpy(w->hugetlbfs, dir);
			w->hugetlbfs_len = strlen(dir);
			break;
		}
	}
	free(lr.buf);
	close(lr.fd);
}

static int proc_walk_begin(struct proc_walk *w, const struct perf_event_attr *attr,
			   const char *root, bool data_maps, struct pd_buf *out)
{
	char path[PATH_MAX];

	memset(w, 0, sizeof(*w));
	w->attr = attr;
	w->out = out;
	w->data_maps = data_maps;
	snprintf(path, sizeof(path), "%s/proc", root_or_empty(root));
	w->proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->proc_fd < 0)
		return -errno;
	w->buf_size = 64 * 1024;
	w->buf = malloc(w->buf_size);
	if (!w->buf) {
		close(w->proc_fd);
		return -ENOMEM;
	}
	find_hugetlbfs(w);
	return 0;
}

static void proc_walk_end(struct proc_walk *w)
{
	free(w->buf);
	close(w->proc_fd);
}

/**
 * synthesize_process_at - synthesize_process() reading ROOT/proc (tests).
 *
 * Return: as synthesize_process().
 */
int synthesize_process_at(const struct perf_event_attr *attr, const char *root, pid_t pid,
			  bool data_maps, struct pd_buf *out)
{
	struct proc_walk w;
	char path[32];
	int err = proc_walk_begin(&w, attr, root, data_maps, out);

	if (err)
		return err;
	if (pid == -1) {
		err = for_each_numeric_entry(&w, ".", -1, synthesize_process_full);
	} else {
		/* perf's thread map for -p: every thread of the group, each with a COMM. */
		snprintf(path, sizeof(path), "%d/task", (int)pid);
		err = for_each_numeric_entry(&w, path, (int)pid, synthesize_thread_of);
		if (err == -ENOENT || err == -ESRCH)
			err = -ESRCH;
	}
	proc_walk_end(&w);
	return err;
}

/**
 * synthesize_process - append COMM records for every thread of process pid and MMAP2 records
 * for its maps (executable ones; all readable ones when data_maps, as perf record -d), as perf
 * does for -p; with pid -1, as synthesize_all_processes().
 *
 * Return: 0, -ESRCH when the process does not exist, or another negative errno (-ENOMEM).
 */
int synthesize_process(const struct perf_event_attr *attr, pid_t pid, bool data_maps,
		       struct pd_buf *out)
{
	return synthesize_process_at(attr, NULL, pid, data_maps, out);
}

/**
 * synthesize_thread - append what perf writes for -t tid: the thread's COMM, and when it is not
 * the leader of its group, the leader's COMM; then the group's MMAP2 records.
 *
 * Return: 0, -ESRCH when the thread does not exist, or another negative errno (-ENOMEM).
 */
int synthesize_thread(const struct perf_event_attr *attr, pid_t tid, bool data_maps,
		      struct pd_buf *out)
{
	struct proc_walk w;
	int tgid, leader_tgid, err = proc_walk_begin(&w, attr, NULL, data_maps, out);

	if (err)
		return err;
	err = synthesize_task_comm(&w, (int)tid, &tgid);
	if (!err && tgid != (int)tid)
		err = synthesize_task_comm(&w, tgid, &leader_tgid);
	if (err == -ENOENT)
		err = -ESRCH;
	proc_walk_end(&w);
	return err;
}

/**
 * synthesize_all_processes - append what perf record -a writes for the processes that already
 * run: per thread FORK and COMM, and the MMAP2 records of every user process.
 *
 * Return: 0, or a negative errno (-ENOMEM, or the error opening /proc).
 */
int synthesize_all_processes(const struct perf_event_attr *attr, bool data_maps, struct pd_buf *out)
{
	return synthesize_process_at(attr, NULL, -1, data_maps, out);
}
