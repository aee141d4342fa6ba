// SPDX-License-Identifier: GPL-2.0
/*
 * Binaries and their symbols for prec report (see symbols.h).
 *
 * Which symbols perf 6.1 keeps, and how it picks among them, is what the output has to match:
 * from ELF files the named, defined functions, objects and text labels (dso__load_sym()), each
 * at its file offset (its address less the load bias of its segment); at one address the best
 * of several by choose_best_symbol()'s rules (a sized one, a non-weak one, a global one, fewer
 * leading underscores, the longer name, else the first); a symbol without a size ends where the
 * next begins (symbols__fixup_end()). From kallsyms the T, W, D and B symbols of either case
 * (symbol_type__filter()).
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/symbols.h"
#include "util/build-id.h"
#include "util/hash.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/xalloc.h"

static char *kernel_prefetched(struct dsos *d, size_t *len, bool cancel);
static void prefetch_stop(struct dsos *d);

/* Set in dsos_prefetch()'s thread, which must not print. */
static __thread bool in_prefetch_thread;

struct bid_entry {
	const char *name;
	u8 size;
	u8 id[BUILD_ID_MAX];
};

const char *dso_why_unresolved(const struct dso *dso)
{
	if (dso->status == DSO_OK && dso->dynsym_only)
		return "stripped: dynamic symbols only";
	return dso_status_str(dso->status);
}

const char *dso_status_str(enum dso_status s)
{
	switch (s) {
	case DSO_NOT_LOADED:
		return "not loaded";
	case DSO_OK:
		return "no symbol at these addresses";
	case DSO_MISSING:
		return "missing";
	case DSO_STRIPPED:
		return "stripped";
	case DSO_MISMATCH:
		return "build-id mismatch";
	case DSO_NOT_ELF:
		return "not an ELF file";
	case DSO_NO_KALLSYMS:
		return "no kallsyms";
	}
	return "?";
}

/* Names live in chunks that never move, so symbols can be added after a sort. */
static const char *pool_strndup(struct strpool *p, const char *s, size_t n)
{
	char *out;

	if (n + 1 > p->left) {
		size_t size = n + 1 > 65536 ? n + 1 : 65536;
		struct strpool_chunk *c = xmalloc(sizeof(*c) + size);

		c->next = p->chunks;
		p->chunks = c;
		p->cur = c->data;
		p->left = size;
	}
	out = p->cur;
	memcpy(out, s, n);
	out[n] = '\0';
	p->cur += n + 1;
	p->left -= n + 1;
	return out;
}

static void pool_free(struct strpool *p)
{
	struct strpool_chunk *c, *next;

	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(p, 0, sizeof(*p));
}

/* ---------------------------------------------------------------------------------------- */
/* C++ names */

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/*
 * The C++ runtime's demangler, looked up at run time so that prec does not link C++: every
 * machine that runs C++ programs has it.
 */
static cxa_demangle_fn demangler(void)
{
	static bool tried;
	static cxa_demangle_fn fn;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* Is "operator" the word that ends just before s + i (not the end of "binary_operator")? */
static bool operator_before(const char *s, size_t i)
{
	return i >= 8 && !strncmp(s + i - 8, "operator", 8) &&
	       (i == 8 || !(isalnum((unsigned char)s[i - 9]) || s[i - 9] == '_'));
}

/* Does s[i] start the name of an operator whose characters are brackets ("operator<")? */
static size_t operator_len(const char *s, size_t i)
{
	static const char *const ops[] = {
	    "operator<<=", "operator>>=", "operator<=>", "operator<<", "operator>>",
	    "operator<=",  "operator>=",  "operator->*", "operator->", "operator()",
	    "operator<",   "operator>",	  "operator[]"};

	if (s[i] != 'o' || strncmp(s + i, "operator", 8) ||
	    (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')))
		return 0;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + i, ops[k], strlen(ops[k])))
			return strlen(ops[k]);
	return 0;
}

/*
 * Cut a demangled name down to what perf shows (libiberty's DMGL_NO_OPTS): no parameter list,
 * no return type, no const, and no clone suffix: libiberty reads ".isra.0" or ".constprop.0"
 * after a mangled name only when it prints parameters, so perf shows
 * _ZL4workRK1Sii.constprop.0 as "work", and all clones of a function under its one name.
 */
static void strip_demangled(char *s)
{
	char *clone = strstr(s, " [clone ");
	size_t n, i, start = 0, last_space = 0;
	int depth = 0;
	bool have_space = false;

	if (clone)
		*clone = '\0';
	n = strlen(s);
	for (;;) {
		static const char *const quals[] = {" const", " volatile", " &&", " &",
						    " noexcept"};
		bool cut = false;

		for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++) {
			size_t l = strlen(quals[k]);

			if (n > l && !strcmp(s + n - l, quals[k])) {
				n -= l;
				s[n] = '\0';
				cut = true;
			}
		}
		if (!cut)
			break;
	}
	/* the parameter list: the parenthesis that closes the name, matched backwards */
	if (n && s[n - 1] == ')') {
		for (i = n; i-- > 0;) {
			if (s[i] == ')')
				depth++;
			else if (s[i] == '(' && !--depth)
				break;
		}
		if (i < n && !operator_before(s, i)) {
			n = i;
			s[n] = '\0';
		}
	}
	/* a return type: the last space outside brackets, not the one of "operator new" */
	depth = 0;
	for (i = 0; i < n; i++) {
		size_t op = operator_len(s, i);

		if (op) {
			i += op - 1;
			continue;
		}
		if (s[i] == '<' || s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == '>' || s[i] == ')' || s[i] == ']') && depth)
			depth--;
		else if (s[i] == ' ' && !depth && !operator_before(s, i)) {
			last_space = i;
			have_space = true;
		}
	}
	if (have_space)
		start = last_space + 1;
	memmove(s, s + start, n - start + 1);
}

/* The name perf shows for an ELF symbol: C++ names demangled without their parameters. */
static const char *demangle(const char *name, char *buf, size_t len)
{
	cxa_demangle_fn fn;
	char *out;
	int status = 0;

	if (name[0] != '_' || name[1] != 'Z' || !(fn = demangler()))
		return name;
	out = fn(name, NULL, NULL, &status);
	if (!out || status)
		return name;
	snprintf(buf, len, "%s", out);
	free(out);
	/* thunks, vtables, guards ...: libiberty keeps these whole, parameters included */
	if (!strstr(buf, " for ") && !strstr(buf, "thunk to "))
		strip_demangled(buf);
	return *buf ? buf : name;
}

/* Names demangled after loading, by sym_demangle(): they outlive no session. */
static struct strpool lazy_names;

static void sym_demangle_into(struct sym *s, struct strpool *pool)
{
	char dbuf[4096];
	const char *n = demangle(s->name, dbuf, sizeof(dbuf));

	if (n != s->name) {
		s->namelen = (u32)strlen(n);
		s->name = pool_strndup(pool, n, s->namelen);
	}
	s->mangled = 0;
}

const char *sym_demangle(struct sym *s)
{
	if (s->mangled)
		sym_demangle_into(s, &lazy_names);
	return s->name;
}

/* ---------------------------------------------------------------------------------------- */
/* The table of dsos */

static void parse_build_ids(struct dsos *d, const u8 *p, size_t len)
{
	size_t pos = 0;
	u32 cap = 0;

	/* struct perf_record_header_build_id: header, pid, data[20], size, pad, filename */
	while (len - pos >= 8 + 4 + 24) {
		struct pd_record_header h;
		struct pd_build_id_body b;
		size_t name_off = pos + 8 + sizeof(b), name_max;
		const char *name;
		struct bid_entry *e;

		memcpy(&h, p + pos, sizeof(h));
		if (h.size < 8 + sizeof(b) || h.size > len - pos)
			break;
		memcpy(&b, p + pos + 8, sizeof(b));
		name = (const char *)p + name_off;
		name_max = pos + h.size - name_off;
		pos += h.size;
		if (!name_max || !memchr(name, '\0', name_max))
			continue;
		if (b.pid != -1 && b.pid != 0)
			continue; /* a guest machine */
		if (d->nr_bids == cap) {
			cap = cap ? 2 * cap : 64;
			d->bids = xrealloc(d->bids, cap * sizeof(*d->bids));
		}
		e = &d->bids[d->nr_bids++];
		e->name = name;
		e->size = (h.misc & PD_BUILD_ID_MISC_SIZE) && b.size <= BUILD_ID_MAX ? b.size
										     : BUILD_ID_MAX;
		memcpy(e->id, b.data, BUILD_ID_MAX);
	}
}

void dsos_init(struct dsos *d, const void *build_ids, size_t len)
{
	const char *home = getenv("HOME");

	memset(d, 0, sizeof(*d));
	d->mask = 255;
	d->table = xcalloc(d->mask + 1, sizeof(*d->table));
	if (build_ids)
		parse_build_ids(d, build_ids, len);
	d->home_debug = xasprintf("%s/.debug", home && *home ? home : "/root");
}

static void dso_free(struct dso *dso)
{
	free(dso->name);
	free(dso->syms);
	free(dso->starts);
	free(dso->starts_idx);
	free(dso->segs);
	pool_free(&dso->strings);
	free(dso->symsrc);
	free(dso);
}

void dsos_exit(struct dsos *d)
{
	struct dso *dso, *next;
	size_t len;

	free(kernel_prefetched(d, &len, true));
	prefetch_stop(d);
	pool_free(&lazy_names);
	for (dso = d->first; dso; dso = next) {
		next = dso->next;
		dso_free(dso);
	}
	free(d->table);
	free(d->bids);
	free(d->home_debug);
	memset(d, 0, sizeof(*d));
}

static void dsos_grow(struct dsos *d)
{
	u32 mask = 2 * d->mask + 1;
	struct dso **t = xcalloc(mask + 1, sizeof(*t));

	for (struct dso *dso = d->first; dso; dso = dso->next) {
		dso->hnext = t[dso->hash & mask];
		t[dso->hash & mask] = dso;
	}
	free(d->table);
	d->table = t;
	d->mask = mask;
}

static void set_short_name(struct dso *dso)
{
	const char *slash;

	if (dso->kind == DSO_USER || dso->kind == DSO_PERFMAP) {
		slash = strrchr(dso->name, '/');
		dso->short_name = slash && slash[1] ? slash + 1 : dso->name;
	} else {
		dso->short_name = dso->name;
	}
	dso->short_len = (u32)strlen(dso->short_name);
}

struct dso *dsos_findnew(struct dsos *d, const char *name, enum dso_kind kind)
{
	u32 h = hash_fnv1a32_str(name);
	struct dso *dso;

	for (dso = d->table[h & d->mask]; dso; dso = dso->hnext)
		if (dso->hash == h && !strcmp(dso->name, name))
			return dso;
	dso = xcalloc(1, sizeof(*dso));
	dso->name = xstrdup(name);
	dso->kind = kind;
	dso->hash = h;
	set_short_name(dso);
	for (u32 i = 0; i < d->nr_bids; i++) {
		if (!strcmp(d->bids[i].name, name)) {
			dso->has_build_id = true;
			dso->build_id_size = d->bids[i].size;
			memcpy(dso->build_id, d->bids[i].id, BUILD_ID_MAX);
			break;
		}
	}
	if (kind == DSO_NOSYMS || kind == DSO_KSYMBOL) {
		dso->loaded = true;
		dso->status = kind == DSO_NOSYMS ? DSO_STRIPPED : DSO_OK;
	}
	if (d->last)
		d->last->next = dso;
	else
		d->first = dso;
	d->last = dso;
	if (++d->nr > d->mask)
		dsos_grow(d);
	else {
		dso->hnext = d->table[h & d->mask];
		d->table[h & d->mask] = dso;
	}
	return dso;
}

static struct dso *dsos_find(struct dsos *d, const char *name)
{
	u32 h = hash_fnv1a32_str(name);

	for (struct dso *dso = d->table[h & d->mask]; dso; dso = dso->hnext)
		if (dso->hash == h && !strcmp(dso->name, name))
			return dso;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Symbol arrays */

void dso_add_sym(struct dso *dso, u64 start, u64 end, const char *name, size_t namelen, u8 binding)
{
	struct sym *s;

	if (dso->nr_syms == dso->cap_syms) {
		dso->cap_syms = dso->cap_syms ? 2 * dso->cap_syms : 256;
		dso->syms = xrealloc(dso->syms, dso->cap_syms * sizeof(*dso->syms));
	}
	s = &dso->syms[dso->nr_syms++];
	s->start = start;
	s->end = end;
	s->name = pool_strndup(&dso->strings, name, namelen);
	s->namelen = (u32)namelen;
	s->frame = 0;
	s->binding = binding;
	s->mangled = 0;
}

/* A stable merge sort by start: among symbols at one address, the first added comes first. */
static void sort_syms(struct sym *a, struct sym *tmp, u32 n)
{
	u32 mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_syms(a, tmp, mid);
	sort_syms(a + mid, tmp, n - mid);
	if (a[mid - 1].start <= a[mid].start)
		return;
	memcpy(tmp, a, mid * sizeof(*a));
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		a[k++] = a[j].start < tmp[i].start ? a[j++] : tmp[i++];
	while (i < mid)
		a[k++] = tmp[i++];
}

static u32 leading_underscores(const char *s)
{
	u32 n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a should be kept over b (same start). */
static bool better_sym(const struct sym *a, const struct sym *b)
{
	u64 la = a->end - a->start, lb = b->end - b->start;
	u32 ua, ub;

	if (la && !lb)
		return true;
	if (!la && lb)
		return false;
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
		return b->binding == STB_WEAK;
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
		return a->binding == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	if (a->namelen != b->namelen)
		return a->namelen > b->namelen;
	return true;
}

void dso_sort_syms(struct dso *dso, bool fixup_ends)
{
	struct sym *s = dso->syms, *tmp;
	u32 n = dso->nr_syms, out = 0;

	if (!n)
		return;
	tmp = xmalloc((n / 2 + 1) * sizeof(*tmp));
	sort_syms(s, tmp, n);
	free(tmp);
	/*
	 * A symbol without a size ends where the next one starts (symbols__fixup_end()), before
	 * duplicates go: of several at one address only the last gets a size, and the sized one
	 * is the one kept.
	 */
	if (fixup_ends) {
		for (u32 i = 0; i + 1 < n; i++)
			if (s[i].end == s[i].start)
				s[i].end = s[i + 1].start;
		if (s[n - 1].end == s[n - 1].start)
			s[n - 1].end = ((s[n - 1].start + 4095) & ~(u64)4095) + 4096;
	}
	/* duplicates at one address: keep the best (symbols__fixup_duplicate()) */
	for (u32 i = 0; i < n; i++) {
		if (out && s[out - 1].start == s[i].start) {
			/* perf compares the demangled names */
			if (s[out - 1].mangled)
				sym_demangle_into(&s[out - 1], &dso->strings);
			if (s[i].mangled)
				sym_demangle_into(&s[i], &dso->strings);
			if (!better_sym(&s[out - 1], &s[i]))
				s[out - 1] = s[i];
			continue;
		}
		s[out++] = s[i];
	}
	dso->nr_syms = out;
	free(dso->starts);
	dso->starts = xmalloc(out * sizeof(u64));
	for (u32 i = 0; i < out; i++)
		dso->starts[i] = s[i].start;
	/*
	 * Every SYM_BLOCK-th start, for big symbol tables (the kernel's): a binary search of the
	 * whole array misses the cache at each of its last steps, this index stays in it.
	 */
	free(dso->starts_idx);
	dso->starts_idx = NULL;
	dso->nr_idx = 0;
	if (out >= 4 * SYM_BLOCK) {
		dso->nr_idx = (out + SYM_BLOCK - 1) / SYM_BLOCK;
		dso->starts_idx = xmalloc(dso->nr_idx * sizeof(u64));
		for (u32 i = 0; i < dso->nr_idx; i++)
			dso->starts_idx[i] = dso->starts[i * SYM_BLOCK];
	}
}

const struct sym *dso_find_sym(struct dsos *d, struct dso *dso, u64 addr)
{
	const u64 *st;
	const struct sym *s;
	u32 lo = 0, hi;

	if (!dso->loaded)
		dso_load(d, dso);
	hi = dso->nr_syms;
	st = dso->starts;
	if (!hi || addr < st[0])
		return NULL;
	if (dso->nr_idx) {
		/* the block of the last start at or below addr, then within it */
		u32 blo = 0, bhi = dso->nr_idx;

		while (bhi - blo > 1) {
			u32 mid = blo + (bhi - blo) / 2;

			if (dso->starts_idx[mid] <= addr)
				blo = mid;
			else
				bhi = mid;
		}
		lo = blo * SYM_BLOCK;
		if (lo + SYM_BLOCK < hi)
			hi = lo + SYM_BLOCK;
	}
	/* the last symbol starting at or below addr, searched in the starts alone (dense) */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (st[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &dso->syms[lo];
	if (addr < s->end || addr == s->start)
		return s;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* ELF files */

struct elf_file {
	int fd;
	Elf *elf;
	void *image; /* elf_memory() images: freed at close */
	bool has_symtab, has_dynsym;
	bool has_bid;
	u8 bid_size;
	u8 bid[BUILD_ID_MAX];
};

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

static int elf_file_setup(struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;

	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh))
		return -1;
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			f->has_symtab = true;
		else if (sh.sh_type == SHT_DYNSYM)
			f->has_dynsym = true;
	}
	f->has_bid = !build_id_from_elf(f->elf, f->bid, &f->bid_size);
	return 0;
}

/* 0, -ENOENT (no such file), or -EINVAL (not ELF). */
static int elf_file_open(struct elf_file *f, const char *path)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -ENOENT;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		elf_file_close(f);
		return -EINVAL;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (elf_file_setup(f)) {
		elf_file_close(f);
		return -EINVAL;
	}
	return 0;
}

static int elf_file_memory(struct elf_file *f, const void *image, size_t size)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->image = xmalloc(size);
	memcpy(f->image, image, size);
	f->elf = elf_memory(f->image, size);
	if (elf_file_setup(f)) {
		elf_file_close(f);
		return -EINVAL;
	}
	return 0;
}

static bool bid_matches(const struct dso *dso, const struct elf_file *f)
{
	if (!dso->has_build_id)
		return true;
	if (!f->has_bid)
		return false;
	/* perf compares the recorded size of bytes; a 20-byte field padded with zeros is fine */
	return f->bid_size >= dso->build_id_size &&
	       !memcmp(f->bid, dso->build_id, dso->build_id_size);
}

/*
 * The PT_LOAD segments of the file the process mapped. Symbols are kept at file offsets, the
 * addresses a map gives (pgoff plus the distance into the map): a symbol's virtual address less
 * the load bias (p_vaddr - p_offset) of the segment that holds it, as perf does. GNU ld makes
 * the bias 0 for the text of shared objects and PIEs, not for their data, nor for ET_EXEC files.
 */
static void read_segments(struct dso *dso, struct elf_file *f)
{
	size_t n;
	GElf_Phdr ph;

	free(dso->segs);
	dso->segs = NULL;
	dso->nr_segs = 0;
	if (elf_getphdrnum(f->elf, &n) || !n)
		return;
	dso->segs = xcalloc(n, sizeof(*dso->segs));
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		dso->segs[dso->nr_segs].vaddr = ph.p_vaddr;
		dso->segs[dso->nr_segs].memsz = ph.p_memsz;
		dso->segs[dso->nr_segs].offset = ph.p_offset;
		dso->nr_segs++;
	}
}

/* A symbol's virtual address as a file offset (itself when no segment holds it). */
static u64 vaddr_to_offset(const struct dso *dso, u64 vaddr)
{
	for (u32 i = 0; i < dso->nr_segs; i++) {
		const struct dso_seg *g = &dso->segs[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->memsz)
			return vaddr - g->vaddr + g->offset;
	}
	return vaddr;
}

/* The section names of a text label's section must contain "text" (elf_sec__is_text()). */
/* What perf asks of a symbol's section: is it loaded (SHF_ALLOC), is it text (by its name). */
struct sec_info {
	bool alloc, text;
};

static struct sec_info *read_sections(Elf *elf, size_t *nr)
{
	size_t n = 0, shstrndx;
	struct sec_info *v;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrnum(elf, &n) || elf_getshdrstrndx(elf, &shstrndx))
		n = 0;
	v = xcalloc(n ? n : 1, sizeof(*v));
	while ((scn = elf_nextscn(elf, scn))) {
		size_t i = elf_ndxscn(scn);
		const char *name;

		if (i >= n || !gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		v[i].alloc = sh.sh_flags & SHF_ALLOC;
		v[i].text = name && strstr(name, "text");
	}
	*nr = n;
	return v;
}

/*
 * Load the symbols of the symtab (or dynsym) section of f that perf keeps (dso__load_sym()):
 * named, defined functions and objects, and labels (no type) of text sections that are not
 * hidden; in sections that are loaded; no absolute ones.
 */
static u32 load_elf_syms(struct dso *dso, struct elf_file *f, u32 type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	u32 before = dso->nr_syms;
	struct sec_info *secs;
	size_t nr_secs;
	bool cxx = demangler() != NULL;

	secs = read_sections(f->elf, &nr_secs);
	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsyms = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < nsyms; i++) {
			GElf_Sym s;
			const char *name;
			u64 start;
			u8 st, vis;

			if (!gelf_getsym(data, (int)i, &s))
				break;
			st = GELF_ST_TYPE(s.st_info);
			vis = GELF_ST_VISIBILITY(s.st_other);
			if (!s.st_name || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
			    s.st_shndx >= nr_secs || !secs[s.st_shndx].alloc)
				continue;
			if (st == STT_NOTYPE) {
				if (!secs[s.st_shndx].text || vis == STV_HIDDEN ||
				    vis == STV_INTERNAL)
					continue;
			} else if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_OBJECT) {
				continue;
			}
			name = elf_strptr(f->elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			start = vaddr_to_offset(dso, s.st_value);
			dso_add_sym(dso, start, start + s.st_size, name, strlen(name),
				    GELF_ST_BIND(s.st_info));
			/* demangled when shown (sym_name()): most never are */
			dso->syms[dso->nr_syms - 1].mangled =
			    name[0] == '_' && name[1] == 'Z' && cxx;
		}
		break;
	}
	free(secs);
	return dso->nr_syms - before;
}

static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *sh, size_t *idx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/*
 * Name the entries of .plt after the functions their relocations bind, "name@plt", as perf 6.1's
 * dso__synthesize_plt_symbols() does: a header entry, then one entry of sh_entsize bytes per
 * .rela.plt (or .rel.plt) entry, in order.
 */
static u32 synth_plt(struct dso *dso, struct elf_file *f)
{
	GElf_Shdr plt, rel, dynsym;
	Elf_Scn *scn_rel, *scn_dynsym;
	Elf_Data *reldata, *syms;
	size_t dynsym_idx;
	u64 entsize, addr, nr;
	u32 added = 0;

	if (!section_by_name(f->elf, ".plt", &plt, NULL) || !plt.sh_entsize)
		return 0;
	scn_rel = section_by_name(f->elf, ".rela.plt", &rel, NULL);
	if (!scn_rel)
		scn_rel = section_by_name(f->elf, ".rel.plt", &rel, NULL);
	scn_dynsym = section_by_name(f->elf, ".dynsym", &dynsym, &dynsym_idx);
	if (!scn_rel || !scn_dynsym || rel.sh_link != dynsym_idx || !rel.sh_entsize)
		return 0;
	reldata = elf_getdata(scn_rel, NULL);
	syms = elf_getdata(scn_dynsym, NULL);
	if (!reldata || !syms)
		return 0;
	entsize = plt.sh_entsize;
	addr = plt.sh_addr + entsize;
	nr = rel.sh_size / rel.sh_entsize;
	for (u64 i = 0; i < nr; i++, addr += entsize) {
		char name[1024], dbuf[1000];
		const char *sname = NULL;
		GElf_Sym sym;
		u64 info;

		if (rel.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(reldata, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(reldata, (int)i, &r))
				break;
			info = r.r_info;
		}
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			sname = elf_strptr(f->elf, dynsym.sh_link, sym.st_name);
		if (sname)
			sname = demangle(sname, dbuf, sizeof(dbuf));
		snprintf(name, sizeof(name), "%s@plt", sname ? sname : "");
		dso_add_sym(dso, vaddr_to_offset(dso, addr), vaddr_to_offset(dso, addr) + entsize,
			    name, strlen(name), STB_GLOBAL);
		added++;
	}
	return added;
}

/* The own vdso of this process: the same kernel maps the same one into every process. */
static int own_vdso(struct elf_file *f)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[512];
	FILE *fp;
	int ret = -ENOENT;

	if (!base)
		return -ENOENT;
	fp = fopen("/proc/self/maps", "re");
	if (!fp)
		return -ENOENT;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long start, end;

		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		if (start == base && end > start)
			ret = elf_file_memory(f, (const void *)start, end - start);
		break;
	}
	fclose(fp);
	return ret;
}

/* /tmp/perf-PID.map: "START SIZE name" per line, in hex, as JITs write it for perf. */
static void load_perf_map(struct dso *dso)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp = fopen(dso->name, "re");

	if (!fp) {
		dso->status = DSO_MISSING;
		return;
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		char *p = line, *end;
		u64 start, size;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		n = (ssize_t)strlen(p);
		while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
			n--;
		dso_add_sym(dso, start, start + size, p, (size_t)n, STB_GLOBAL);
	}
	free(line);
	fclose(fp);
	dso_sort_syms(dso, false);
	dso->status = dso->nr_syms ? DSO_OK : DSO_STRIPPED;
}

/*
 * Load an ELF dso: symbols from the first candidate with a .symtab (else the first with a
 * .dynsym), PT_LOADs from the first candidate that is the mapped file itself (not a separate
 * debug file, whose program headers have no file offsets).
 */
/* The symbols of a user-space ELF dso; prints nothing (it may run in the prefetch thread). */
static void load_elf_dso_quiet(struct dsos *d, struct dso *dso)
{
	char paths[3][PATH_MAX], hex[BUILD_ID_HEX_SIZE];
	bool is_debug[3] = {false, false, false}, mismatch = false, found = false,
	     vdso_self = false;
	struct elf_file files[4];
	int nr = 0, sym_src = -1, seg_src = -1;
	u8 bid[BUILD_ID_MAX];
	u8 bid_size = 0;
	struct elf_file probe;

	for (int i = 0; i < 4; i++) {
		memset(&files[i], 0, sizeof(files[i]));
		files[i].fd = -1;
	}
	if (dso->has_build_id) {
		memcpy(bid, dso->build_id, BUILD_ID_MAX);
		bid_size = dso->build_id_size;
	} else if (dso->kind == DSO_USER && !elf_file_open(&probe, dso->name)) {
		/* no build-id recorded: take the file's own, to find its debug file (as perf) */
		if (probe.has_bid) {
			memcpy(bid, probe.bid, BUILD_ID_MAX);
			bid_size = probe.bid_size;
		}
		elf_file_close(&probe);
	}
	if (bid_size) {
		struct stat st;

		build_id_hex(hex, bid, bid_size);
		/* perf's cache: .build-id/xx/yyyy is the file, or (perf 5.x on) a directory with it
		 */
		snprintf(paths[nr], PATH_MAX, "%s/.build-id/%.2s/%s", d->home_debug, hex, hex + 2);
		if (!stat(paths[nr], &st) && S_ISDIR(st.st_mode))
			snprintf(paths[nr], PATH_MAX, "%s/.build-id/%.2s/%s/elf", d->home_debug,
				 hex, hex + 2);
		nr++;
		if (dso->kind == DSO_USER) {
			snprintf(paths[nr], PATH_MAX, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
			is_debug[nr] = true;
			nr++;
		}
	}
	if (dso->kind == DSO_USER)
		snprintf(paths[nr++], PATH_MAX, "%s", dso->name);

	for (int i = 0; i < nr; i++) {
		struct elf_file *f = &files[i];
		int err = elf_file_open(f, paths[i]);

		if (err) {
			if (err != -ENOENT && !is_debug[i])
				found = true; /* exists, not ELF */
			continue;
		}
		found = true;
		if (!bid_matches(dso, f)) {
			if (!is_debug[i])
				mismatch = true;
			if (!in_prefetch_thread)
				debug(1, "%s: build-id mismatch, not using %s", dso->name,
				      paths[i]);
			elf_file_close(f);
			continue;
		}
		if (sym_src < 0 && f->has_symtab)
			sym_src = i;
		if (seg_src < 0 && !is_debug[i])
			seg_src = i;
	}
	if (dso->kind == DSO_VDSO && seg_src < 0 && !own_vdso(&files[3])) {
		if (bid_matches(dso, &files[3])) {
			found = true;
			seg_src = 3;
			vdso_self = true;
			if (sym_src < 0 && files[3].has_symtab)
				sym_src = 3;
		} else {
			mismatch = true;
		}
	}
	if (sym_src < 0) {
		/* no .symtab anywhere: the .dynsym of the first file that has one */
		for (int i = 0; i < 4; i++) {
			if (files[i].elf && files[i].has_dynsym) {
				sym_src = i;
				break;
			}
		}
	}
	/* the segments first: the symbols are placed with them */
	if (seg_src >= 0)
		read_segments(dso, &files[seg_src]);
	else if (sym_src >= 0 && !is_debug[sym_src])
		read_segments(dso, &files[sym_src]);
	if (sym_src >= 0) {
		u32 type = files[sym_src].has_symtab ? SHT_SYMTAB : SHT_DYNSYM;

		dso->dynsym_only = type == SHT_DYNSYM;
		if (load_elf_syms(dso, &files[sym_src], type)) {
			dso_sort_syms(dso, true);
			/* perf adds the PLT entries of the mapped file, when it found symbols */
			if (seg_src >= 0 && synth_plt(dso, &files[seg_src]))
				dso_sort_syms(dso, false);
		}
		free(dso->symsrc);
		dso->symsrc =
		    xstrdup(vdso_self && sym_src == 3 ? "[vdso] of prec" : paths[sym_src]);
	}
	if (dso->nr_syms)
		dso->status = DSO_OK;
	else if (mismatch)
		dso->status = DSO_MISMATCH;
	else if (seg_src >= 0 || sym_src >= 0)
		dso->status = DSO_STRIPPED;
	else if (found)
		dso->status = DSO_NOT_ELF;
	else
		dso->status = DSO_MISSING;
	for (int i = 0; i < 4; i++)
		if (files[i].elf || files[i].fd >= 0 || files[i].image)
			elf_file_close(&files[i]);
}

/* What load_elf_syms_quiet() found, said by the main thread. */
static void load_elf_report(struct dsos *d, struct dso *dso)
{
	if (dso->status == DSO_MISMATCH) {
		char want[BUILD_ID_HEX_SIZE];

		build_id_hex(want, dso->build_id, dso->build_id_size);
		warning("%s: the file on disk is not the binary that was recorded (build-id %s is "
			"not in it, nor in %s/.build-id); its samples are left unresolved",
			dso->name, want, d->home_debug);
	}
	debug(1, "%s: %u symbols from %s (%s)", dso->name, dso->nr_syms,
	      dso->symsrc ? dso->symsrc : "nowhere", dso_status_str(dso->status));
}

static void load_elf_dso(struct dsos *d, struct dso *dso)
{
	load_elf_dso_quiet(d, dso);
	load_elf_report(d, dso);
}

/* ---------------------------------------------------------------------------------------- */
/* Loading ahead */

/*
 * Reading a binary's symbols (ELF sections, demangling, sorting) is a fixed cost per binary that
 * on a big profile adds up to a tenth of the time. The binaries the file has build-ids for are
 * the ones it has samples in, as perf writes that feature: a thread loads them, in that order,
 * into dsos of its own while the main thread reads the file, and dso_load() takes the result
 * (or waits for the one being loaded, or loads one the thread has not started itself).
 */
enum { PF_TODO, PF_BUSY, PF_DONE };

struct pf_entry {
	struct dso *dso; /* the thread's; NULL once taken, or when the main thread loaded it */
	int state;	 /* PF_*, under the lock */
};

struct dso_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct pf_entry *v;
	u32 nr;
	bool stop;
};

static void *prefetch_main(void *arg)
{
	struct dsos *d = arg;
	struct dso_prefetch *pf = d->prefetch;

	in_prefetch_thread = true;
	for (u32 i = 0; i < pf->nr; i++) {
		struct pf_entry *e = &pf->v[i];
		bool mine;

		pthread_mutex_lock(&pf->lock);
		if (pf->stop) {
			pthread_mutex_unlock(&pf->lock);
			break;
		}
		mine = e->state == PF_TODO;
		if (mine)
			e->state = PF_BUSY;
		pthread_mutex_unlock(&pf->lock);
		if (!mine)
			continue;
		load_elf_dso_quiet(d, e->dso);
		pthread_mutex_lock(&pf->lock);
		e->state = PF_DONE;
		pthread_cond_broadcast(&pf->done);
		pthread_mutex_unlock(&pf->lock);
	}
	return NULL;
}

static bool prefetchable(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '/' && !strstr(name, "/lib/modules/") &&
	       !(n > 3 && !strcmp(name + n - 3, ".ko")) && strncmp(name, "/tmp/perf-", 10);
}

void dsos_prefetch(struct dsos *d)
{
	struct dso_prefetch *pf;

	if (d->prefetch || !d->nr_bids)
		return;
	/* what the thread shares with the main thread, set up before it starts */
	elf_version(EV_CURRENT);
	demangler();
	pf = xcalloc(1, sizeof(*pf));
	pf->v = xcalloc(d->nr_bids, sizeof(*pf->v));
	for (u32 i = 0; i < d->nr_bids; i++) {
		const struct bid_entry *b = &d->bids[i];
		struct dso *dso;

		if (!prefetchable(b->name))
			continue;
		dso = xcalloc(1, sizeof(*dso));
		dso->name = xstrdup(b->name);
		dso->kind = DSO_USER;
		dso->has_build_id = true;
		dso->build_id_size = b->size;
		memcpy(dso->build_id, b->id, BUILD_ID_MAX);
		pf->v[pf->nr++].dso = dso;
	}
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->done, NULL);
	d->prefetch = pf;
	if (pthread_create(&pf->thread, NULL, prefetch_main, d)) {
		d->prefetch = NULL;
		for (u32 i = 0; i < pf->nr; i++)
			dso_free(pf->v[i].dso);
		free(pf->v);
		free(pf);
	}
}

/* Stop the thread and free what it loaded and nobody took. */
static void prefetch_stop(struct dsos *d)
{
	struct dso_prefetch *pf = d->prefetch;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	for (u32 i = 0; i < pf->nr; i++)
		if (pf->v[i].dso)
			dso_free(pf->v[i].dso);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->done);
	free(pf->v);
	free(pf);
	d->prefetch = NULL;
}

/*
 * Load dso from the thread's work when it is there: true when done (taken, or loaded here
 * while the thread skips it), false when the thread has no such binary.
 */
static bool prefetch_take(struct dsos *d, struct dso *dso)
{
	struct dso_prefetch *pf = d->prefetch;
	struct pf_entry *e = NULL;
	struct dso *x;

	if (!pf || dso->kind != DSO_USER)
		return false;
	for (u32 i = 0; i < pf->nr && !e; i++) {
		x = pf->v[i].dso;
		if (x && x->build_id_size == dso->build_id_size && dso->has_build_id &&
		    !memcmp(x->build_id, dso->build_id, BUILD_ID_MAX) &&
		    !strcmp(x->name, dso->name))
			e = &pf->v[i];
	}
	if (!e)
		return false;
	pthread_mutex_lock(&pf->lock);
	if (e->state == PF_TODO) {
		/* not started: load it here, the thread will pass it by */
		e->state = PF_DONE;
		x = e->dso;
		e->dso = NULL;
		pthread_mutex_unlock(&pf->lock);
		dso_free(x);
		load_elf_dso(d, dso);
		return true;
	}
	while (e->state != PF_DONE)
		pthread_cond_wait(&pf->done, &pf->lock);
	x = e->dso;
	e->dso = NULL;
	pthread_mutex_unlock(&pf->lock);
	/* take what the thread found */
	dso->status = x->status;
	dso->dynsym_only = x->dynsym_only;
	dso->syms = x->syms;
	dso->starts = x->starts;
	dso->starts_idx = x->starts_idx;
	dso->nr_idx = x->nr_idx;
	dso->nr_syms = x->nr_syms;
	dso->cap_syms = x->cap_syms;
	dso->strings = x->strings;
	dso->segs = x->segs;
	dso->nr_segs = x->nr_segs;
	dso->symsrc = x->symsrc;
	free(x->name);
	free(x);
	load_elf_report(d, dso);
	return true;
}

void dso_load(struct dsos *d, struct dso *dso)
{
	static bool elf_ready;

	if (dso->loaded)
		return;
	dso->loaded = true;
	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
	switch (dso->kind) {
	case DSO_USER:
		if (!prefetch_take(d, dso))
			load_elf_dso(d, dso);
		break;
	case DSO_VDSO:
		load_elf_dso(d, dso);
		break;
	case DSO_PERFMAP:
		load_perf_map(dso);
		break;
	case DSO_KERNEL:
	case DSO_MODULE:
		/* loaded by kernel_load(), all at once; one that was not has no symbols */
		if (dso->status == DSO_NOT_LOADED)
			dso->status = DSO_NO_KALLSYMS;
		break;
	case DSO_NOSYMS:
	case DSO_KSYMBOL:
		break;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* The kernel */

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

/*
 * Reading /proc/kallsyms is slow (the kernel formats every line: tens of milliseconds), and
 * prec report needs it only when the first kernel address comes up: a thread reads it from the
 * start, while the main thread reads the file, and kernel_load() takes what it read.
 */
struct kallsyms_prefetch {
	pthread_t thread;
	char *buf; /* NULL when it could not be read: kernel_load() reads it itself */
	size_t len;
	int fd;	   /* the thread's, for its cancellation cleanup */
	char *tmp; /* the buffer being filled */
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

	k->fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
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

void kernel_prefetch(struct dsos *d)
{
	struct kallsyms_prefetch *k;

	if (d->kpre)
		return;
	k = xcalloc(1, sizeof(*k));
	k->fd = -1;
	if (pthread_create(&k->thread, NULL, kallsyms_reader, k)) {
		free(k);
		return;
	}
	d->kpre = k;
}

/*
 * What the prefetch thread read (malloc'ed, the caller frees), or NULL; with cancel, the
 * thread is stopped where it is (nobody needs kallsyms any more).
 */
static char *kernel_prefetched(struct dsos *d, size_t *len, bool cancel)
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
	free(k);
	d->kpre = NULL;
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

void kernel_load(struct dsos *d, struct dso *kernel, u64 reloc)
{
	const char *path = "/proc/kallsyms";
	char cached[PATH_MAX], hex[BUILD_ID_HEX_SIZE];
	struct ksym_load kl = {.d = d, .kernel = kernel};
	struct reloc_scan r = {0};
	struct dso *mdso;
	u8 id[BUILD_ID_MAX];
	u8 idsize = 0;
	size_t len;
	char *buf;

	if (kernel->loaded)
		return;
	kernel->loaded = true;
	if (kernel->has_build_id && (build_id_from_notes_file("/sys/kernel/notes", id, &idsize) ||
				     idsize < kernel->build_id_size ||
				     memcmp(id, kernel->build_id, kernel->build_id_size))) {
		/* recorded on another kernel: its kallsyms from the build-id cache (perf's path) */
		build_id_hex(hex, kernel->build_id, kernel->build_id_size);
		snprintf(cached, sizeof(cached), "%s/[kernel.kallsyms]/%s/kallsyms", d->home_debug,
			 hex);
		if (access(cached, R_OK)) {
			warning("the recording's kernel (build-id %s) is not the running one and "
				"%s is missing; kernel samples are left unresolved",
				hex, cached);
			kernel->status = DSO_MISMATCH;
			return;
		}
		path = cached;
	}
	buf = path == cached ? NULL : kernel_prefetched(d, &len, false);
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
