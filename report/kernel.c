// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's symbols for prec report (see symbols.h): from kallsyms, as perf 6.1 takes them,
 * the T, W, D and B symbols of either case (symbol_type__filter()), and the modules of
 * /proc/modules. kernel_load() fills the kernel's dso and the module dsos of the table (dso.c)
 * at once, from the text that kernel-prefetch.c read ahead when there is one.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/symbols-internal.h"
#include "util/build-id.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/xalloc.h"

static char *read_whole(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

struct text_range {
	u64 text, stext, etext;
};

static int text_range_one(const struct kallsyms_sym *s, void *arg)
{
	struct text_range *r = arg;

	if (s->module)
		return 0;
	if (kallsyms_name_is(s, "_text"))
		r->text = s->addr;
	else if (kallsyms_name_is(s, "_stext"))
		r->stext = s->addr;
	else if (kallsyms_name_is(s, "_etext"))
		r->etext = s->addr;
	return 0;
}

int kernel_running_range(u64 *start, u64 *end)
{
	struct text_range r = {0};

	if (kallsyms_foreach("/proc/kallsyms", text_range_one, &r) < 0)
		return -1;
	*start = r.text ? r.text : r.stext;
	*end = r.etext;
	return *start ? 0 : -1;
}

u32 kernel_modules(struct kmodule **mods)
{
	FILE *fp = fopen("/proc/modules", "re");
	char line[1024];
	u32 nr = 0, cap = 0;

	*mods = NULL;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char name[64], state[32], deps[512];
		unsigned long long size, addr;
		int refs;

		if (sscanf(line, "%63s %llu %d %511s %31s %llx", name, &size, &refs, deps, state,
			   &addr) != 6 ||
		    !addr)
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			*mods = xrealloc(*mods, cap * sizeof(**mods));
		}
		snprintf((*mods)[nr].name, sizeof((*mods)[nr].name), "%s", name);
		(*mods)[nr].start = addr;
		(*mods)[nr].size = size;
		nr++;
	}
	fclose(fp);
	return nr;
}

/* The first pass of kernel_load(): _text, else _stext, of the core kernel. */
struct reloc_scan {
	u64 text, stext;
};

static int reloc_one(const struct kallsyms_sym *s, void *arg)
{
	struct reloc_scan *r = arg;

	if (s->module)
		return 0;
	if (kallsyms_name_is(s, "_text")) {
		r->text = s->addr;
		return 1;
	}
	if (kallsyms_name_is(s, "_stext"))
		r->stext = s->addr;
	return 0;
}

/* The second: the symbols, into the kernel and the module dsos. */
struct ksym_load {
	struct dsos *d;
	struct dso *kernel;
	u64 delta;
	bool nonzero;
};

static int ksym_load_one(const struct kallsyms_sym *s, void *arg)
{
	struct ksym_load *kl = arg;
	char t = (char)toupper((unsigned char)s->type), modname[80];
	struct dso *mdso;
	u8 binding;

	if (s->addr)
		kl->nonzero = true;
	if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
		return 0;
	binding = s->type == 'W'		    ? STB_WEAK
		  : isupper((unsigned char)s->type) ? STB_GLOBAL
						    : STB_LOCAL;
	if (s->module) {
		snprintf(modname, sizeof(modname), "[%.*s]", (int)s->modlen, s->module);
		mdso = dsos_find(kl->d, modname);
		if (!mdso || mdso->kind != DSO_MODULE)
			return 0; /* perf drops symbols of modules it has no map for */
		dso_add_sym(mdso, s->addr, s->addr, s->name, s->namelen, binding);
		return 0;
	}
	dso_add_sym(kl->kernel, s->addr - kl->delta, s->addr - kl->delta, s->name, s->namelen,
		    binding);
	return 0;
}

/* Whether the file st describes was last written during this boot. */
static bool written_this_boot(const struct stat *st)
{
	struct timespec now, up;

	if (clock_gettime(CLOCK_REALTIME, &now) || clock_gettime(CLOCK_BOOTTIME, &up))
		return false;
	return st->st_mtime >= now.tv_sec - up.tv_sec;
}

int kernel_kallsyms_path(const struct dsos *d, const struct dso *kernel, char *path)
{
	char hex[BUILD_ID_HEX_SIZE];
	u8 id[BUILD_ID_MAX];
	u8 idsize = 0;
	struct stat st;
	bool running, copy;

	if (!kernel->has_build_id)
		goto proc;
	running = !build_id_from_notes_file("/sys/kernel/notes", id, &idsize) &&
		  idsize >= kernel->build_id_size &&
		  !memcmp(id, kernel->build_id, kernel->build_id_size);
	build_id_hex(hex, kernel->build_id, kernel->build_id_size);
	if (snprintf(path, PATH_MAX, "%s/[kernel.kallsyms]/%s/kallsyms", d->home_debug, hex) >=
	    PATH_MAX)
		goto proc;
	copy = !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, R_OK);
	/*
	 * perf record saves the copy once per kernel build: one from an earlier boot has that
	 * boot's module addresses, which /proc/modules no longer gives, so the running kernel's
	 * symbols then come from /proc/kallsyms.
	 */
	if (copy && (!running || written_this_boot(&st)))
		return 0;
	if (!running)
		return -ENOENT;
proc:
	snprintf(path, PATH_MAX, "/proc/kallsyms");
	return 0;
}

void kernel_load(struct dsos *d, struct dso *kernel, u64 reloc)
{
	char path[PATH_MAX], hex[BUILD_ID_HEX_SIZE];
	struct ksym_load kl = {.d = d, .kernel = kernel};
	struct reloc_scan r = {0};
	struct dso *mdso;
	size_t len;
	char *buf = NULL;

	if (kernel->loaded)
		return;
	kernel->loaded = true;
	if (symbols_conf.kallsyms) {
		/* as perf: the file given is taken as it is, whatever kernel recorded */
		snprintf(path, sizeof(path), "%s", symbols_conf.kallsyms);
	} else if (symbols_conf.symfs) {
		/* as perf: under a symfs, the local kallsyms is not the recorded machine's */
		kernel->status = DSO_MISSING;
		return;
	} else if (kernel_kallsyms_path(d, kernel, path)) {
		build_id_hex(hex, kernel->build_id, kernel->build_id_size);
		warning("the recording's kernel (build-id %s) is not the running one and "
			"%s is missing; kernel samples are left unresolved",
			hex, path);
		kernel->status = DSO_MISMATCH;
		return;
	} else {
		buf = kernel_prefetched(d, path, &len, false);
	}
	if (!buf)
		buf = read_whole(path, &len);
	if (!buf) {
		kernel->status = DSO_NO_KALLSYMS;
		return;
	}
	/* first pass: the relocation (KASLR) between the recording and this kallsyms */
	if (reloc) {
		kallsyms_parse(buf, len, reloc_one, &r);
		if (r.text || r.stext)
			kl.delta = (r.text ? r.text : r.stext) - reloc;
	}
	kallsyms_parse(buf, len, ksym_load_one, &kl);
	free(buf);
	if (!kl.nonzero) {
		/* kptr_restrict: every address reads 0 */
		kernel->nr_syms = 0;
		kernel->status = DSO_NO_KALLSYMS;
		warning("%s shows no addresses (kernel.kptr_restrict); kernel samples are left "
			"unresolved",
			path);
		return;
	}
	dso_sort_syms(kernel, true);
	kernel->status = kernel->nr_syms ? DSO_OK : DSO_NO_KALLSYMS;
	kernel->symsrc = xstrdup(path);
	for (mdso = d->first; mdso; mdso = mdso->next) {
		if (mdso->kind != DSO_MODULE || mdso->loaded)
			continue;
		mdso->loaded = true;
		dso_sort_syms(mdso, true);
		mdso->status = mdso->nr_syms ? DSO_OK : DSO_STRIPPED;
	}
	debug(1, "[kernel.kallsyms]: %u symbols from %s", kernel->nr_syms, path);
}
