// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols of ELF files for prec report (see symbols.h). Which symbols perf 6.1 keeps is what
 * the output has to match: the named, defined functions, objects and text labels
 * (dso__load_sym()), each at its file offset (its address less the load bias of its segment),
 * and the entries of the PLT.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/symbols-internal.h"
#include "util/build-id.h"
#include "util/log.h"
#include "util/xalloc.h"

/* dsos_prefetch()'s thread sets it: what is loaded there is reported later, by the main thread. */
__thread bool in_prefetch_thread;

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
	bool cxx = demangle_init();

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

/*
 * Load an ELF dso: symbols from the first candidate with a .symtab (else the first with a
 * .dynsym), PT_LOADs from the first candidate that is the mapped file itself (not a separate
 * debug file, whose program headers have no file offsets).
 */
/* The symbols of a user-space ELF dso; prints nothing (it may run in the prefetch thread). */
void load_elf_dso_quiet(struct dsos *d, struct dso *dso)
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
	} else if (dso->kind == DSO_USER &&
		   !elf_file_open(&probe, symfs_path(paths[0], PATH_MAX, dso->name))) {
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
		/* there perf names the vdso's copy "vdso", any other binary's "elf" */
		if (!stat(paths[nr], &st) && S_ISDIR(st.st_mode))
			snprintf(paths[nr], PATH_MAX, "%s/.build-id/%.2s/%s/%s", d->home_debug,
				 hex, hex + 2, dso->kind == DSO_VDSO ? "vdso" : "elf");
		nr++;
		if (dso->kind == DSO_USER) {
			char dbg[PATH_MAX];

			snprintf(dbg, PATH_MAX, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
			symfs_path(paths[nr], PATH_MAX, dbg);
			is_debug[nr] = true;
			nr++;
		}
	}
	if (dso->kind == DSO_USER)
		symfs_path(paths[nr++], PATH_MAX, dso->name);

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
	/* under a symfs, perf finds [vdso] only in the symfs's build-id cache */
	if (dso->kind == DSO_VDSO && seg_src < 0 && !symbols_conf.symfs && !own_vdso(&files[3])) {
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
	/* the mapped file, for the unwinder (not prec's own vdso, which is no file) */
	if (seg_src >= 0 && seg_src < nr) {
		free(dso->binpath);
		dso->binpath = xstrdup(paths[seg_src]);
	}
	if (sym_src >= 0) {
		u32 type = files[sym_src].has_symtab ? SHT_SYMTAB : SHT_DYNSYM;

		dso->dynsym_only = type == SHT_DYNSYM;
		if (load_elf_syms(dso, &files[sym_src], type)) {
			struct sym_log log = {0};

			dso_sort_syms_log(dso, true, &log);
			/*
			 * perf adds the PLT entries of the mapped file, when it found symbols,
			 * after its zero-size ones were stretched to the next: _init over .plt
			 */
			if (seg_src >= 0 && synth_plt(dso, &files[seg_src]))
				dso_sort_syms_log(dso, false, &log);
			dso_pick_overlaps(dso, &log);
			sym_log_free(&log);
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
void load_elf_report(struct dsos *d, struct dso *dso)
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

void load_elf_dso(struct dsos *d, struct dso *dso)
{
	load_elf_dso_quiet(d, dso);
	load_elf_report(d, dso);
}
