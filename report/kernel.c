// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's symbols for prec report (see symbols.h): from kallsyms, as perf 6.1 takes them,
 * the T, W, D and B symbols of either case (symbol_type__filter()), and the modules of
 * /proc/modules. kernel_load() fills the kernel's dso and the module dsos of the table (dso.c)
 * at once, from the text that kernel-prefetch.c read ahead when there is one.
 */
#include "config.h"

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

/*
 * The symbols, into the kernel and the module dsos, when the tables kernel-prefetch.c made do not
 * serve: with a relocation to apply.
 */
struct ksym_load {
	struct dsos *d;
	struct dso *kernel;
	u64 delta;
	bool nonzero; /* some address is not 0 */
};

static int ksym_load_one(const struct kallsyms_sym *s, void *arg)
{
	struct ksym_load *kl = arg;
	char modname[80];
	struct dso *mdso;
	u8 binding;

	if (!ksym_binding(s->type, &binding))
		return 0;
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

/* Give to the symbols of from, sorted, to, which has none. */
static void take_syms(struct dso *to, struct dso *from)
{
	to->syms = from->syms;
	to->starts = from->starts;
	to->starts_idx = from->starts_idx;
	to->nr_idx = from->nr_idx;
	to->nr_syms = from->nr_syms;
	to->cap_syms = from->cap_syms;
	to->nr_added = from->nr_added;
	to->pick = from->pick;
	to->nr_picks = from->nr_picks;
	to->strings = from->strings;
	from->syms = NULL;
	from->starts = NULL;
	from->starts_idx = NULL;
	from->pick = NULL;
	from->nr_syms = from->cap_syms = from->nr_added = from->nr_idx = from->nr_picks = 0;
	memset(&from->strings, 0, sizeof(from->strings));
}

/*
 * Whether the tables made ahead serve as they are: no relocation to apply to them, and no
 * symbols already where they go (so that the order the symbols were added in stays theirs).
 */
static bool tables_fit(const struct dsos *d, const struct dso *kernel, const struct ksym_tables *t,
		       u64 delta)
{
	const struct dso *mdso;

	if (delta || kernel->nr_added)
		return false;
	for (mdso = d->first; mdso; mdso = mdso->next)
		if (mdso->kind == DSO_MODULE && (mdso->loaded || mdso->nr_added))
			return false;
	return true;
}

/* Hand the tables' symbols to the kernel and to the module dsos there are. */
static void tables_take(struct dsos *d, struct dso *kernel, struct ksym_tables *t)
{
	char modname[80];
	struct dso *mdso;

	take_syms(kernel, t->kernel);
	for (u32 i = 0; i < t->nr_mods; i++) {
		snprintf(modname, sizeof(modname), "[%.*s]", (int)t->mods[i].len, t->mods[i].name);
		mdso = dsos_find(d, modname);
		if (mdso && mdso->kind == DSO_MODULE)
			take_syms(mdso, t->mods[i].dso);
	}
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
	struct ksym_tables *t = NULL;
	struct dso *mdso;
	bool sorted = false;

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
		t = kernel_prefetched(d, path, false);
	}
	if (!t)
		t = ksym_tables_read(path);
	if (!t) {
		kernel->status = DSO_NO_KALLSYMS;
		return;
	}
	/* the relocation (KASLR) between the recording and this kallsyms */
	if (reloc && (t->text_addr || t->stext_addr))
		kl.delta = (t->text_addr ? t->text_addr : t->stext_addr) - reloc;
	kl.nonzero = t->nonzero;
	if (kl.nonzero && tables_fit(d, kernel, t, kl.delta)) {
		tables_take(d, kernel, t);
		sorted = true;
	} else if (kl.nonzero) {
		kallsyms_parse(t->text.buf, t->text.len, ksym_load_one, &kl);
	}
	ksym_tables_free(t);
	if (!kl.nonzero) {
		/* kptr_restrict: every address reads 0 */
		kernel->nr_syms = 0;
		kernel->status = DSO_NO_KALLSYMS;
		warning("%s shows no addresses (kernel.kptr_restrict); kernel samples are left "
			"unresolved",
			path);
		return;
	}
	if (!sorted)
		dso_sort_syms(kernel, true);
	kernel->status = kernel->nr_syms ? DSO_OK : DSO_NO_KALLSYMS;
	kernel->symsrc = xstrdup(path);
	for (mdso = d->first; mdso; mdso = mdso->next) {
		if (mdso->kind != DSO_MODULE || mdso->loaded)
			continue;
		mdso->loaded = true;
		if (!sorted)
			dso_sort_syms(mdso, true);
		mdso->status = mdso->nr_syms ? DSO_OK : DSO_STRIPPED;
	}
	debug(1, "[kernel.kallsyms]: %u symbols from %s", kernel->nr_syms, path);
}
