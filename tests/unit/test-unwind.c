// SPDX-License-Identifier: GPL-2.0
/*
 * report/unwind: perf's x86-64 sample registers in DWARF's order, words read from a stack copy
 * at its edges, and (with libdw) this program's own stack, copied as the kernel copies a
 * sample's, unwound through its maps to the return addresses the compiler reports; stacks
 * built on the call frame information of functions written here unwind, both of prec's ways,
 * as libdwfl's own walk of the whole chain does (dwfl_getthread_frames()), but where libdw's
 * x86-64 defaults lose rbx.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(HAVE_LIBDW_UNWIND) && defined(__x86_64__)
#include <elfutils/libdwfl.h>
#endif

#include "report/session.h"
#include "report/symbols.h"
#include "report/unwind.h"
#include "tests/tap.h"

/* what perf record --call-graph dwarf asks for on x86-64: all but ds, es, fs, gs */
#define PERF_REGS_MASK 0xff0fffULL

static void test_regs(void)
{
	u64 regs[64], out[UNWIND_NR_REGS];
	u32 set, n = 0;

	/* each value is 1000 + its perf register number, packed in the mask's bit order */
	for (u32 bit = 0; bit < 64; bit++)
		if (PERF_REGS_MASK & (1ULL << bit))
			regs[n++] = 1000 + bit;
	memset(out, 0, sizeof(out));
	set = unwind_regs_to_dwarf(regs, PERF_REGS_MASK, out);
	is(set, (1u << UNWIND_NR_REGS) - 1, "perf's dwarf mask gives every DWARF register");
	is(out[0], 1000 + 0, "rax is perf's AX");
	is(out[1], 1000 + 3, "rdx is perf's DX");
	is(out[2], 1000 + 2, "rcx is perf's CX");
	is(out[3], 1000 + 1, "rbx is perf's BX");
	is(out[6], 1000 + 6, "rbp is perf's BP");
	is(out[7], 1000 + 7, "rsp is perf's SP");
	is(out[8], 1000 + 16, "r8 is perf's R8, after the segment registers");
	is(out[15], 1000 + 23, "r15 is perf's R15");
	is(out[16], 1000 + 8, "rip, the return address column, is perf's IP");

	/* a mask of sp and ip only: two values, the others left alone */
	regs[0] = 0x7ffd0000;
	regs[1] = 0x401000;
	memset(out, 0, sizeof(out));
	set = unwind_regs_to_dwarf(regs, (1ULL << 7) | (1ULL << 8), out);
	is(set, (1u << 7) | (1u << 16), "only sp and ip are set");
	is(out[7], 0x7ffd0000, "sp from the first value");
	is(out[16], 0x401000, "ip from the second value");
	is(out[0], 0, "rax untouched");
}

static void test_stack(void)
{
	u64 words[8], v = 0;
	u64 sp = 0x7ffc1000;

	for (u32 i = 0; i < 8; i++)
		words[i] = 0x1111 * (i + 1);
	ok(unwind_stack_word(words, sizeof(words), sp, sp, &v) && v == 0x1111, "the word at sp");
	ok(unwind_stack_word(words, sizeof(words), sp, sp + 56, &v) && v == 0x8888,
	   "the last whole word");
	ok(unwind_stack_word(words, sizeof(words), sp, sp + 4, &v) && v == (0x2222ULL << 32),
	   "a word that straddles two");
	ok(!unwind_stack_word(words, sizeof(words), sp, sp + 57, &v), "past the end: no");
	ok(!unwind_stack_word(words, sizeof(words), sp, sp - 8, &v), "below sp: no");
	ok(!unwind_stack_word(words, sizeof(words), sp, UINT64_MAX - 3, &v), "wrapping: no");
	ok(!unwind_stack_word(words, 0, sp, sp, &v), "an empty copy: no");
}

#if defined(HAVE_LIBDW_UNWIND) && defined(__x86_64__)

#define STACK_COPY 8192

struct captured {
	u64 regs[3]; /* perf's order for the mask below: bp, sp, ip */
	u8 stack[STACK_COPY];
	u64 size;
	u64 ret[3]; /* the return addresses into b, a and main */
};

static struct captured cap;
static u64 stack_end;

/*
 * The copy reads frames other than its own, redzones of AddressSanitizer builds included: word
 * by word, out of the sanitizer's sight, as the kernel's copy is.
 */
__attribute__((no_sanitize_address)) static void copy_stack(u8 *dst, u64 sp, u64 size)
{
	const volatile u64 *src = (const volatile u64 *)(uintptr_t)sp;

	for (u64 i = 0; i < size / 8; i++) {
		u64 w = src[i];

		memcpy(dst + 8 * i, &w, 8);
	}
}

/* as the kernel does: the registers, then the stack from sp up to its end or the copy's size */
static __attribute__((noinline)) void c(u64 ret_a, u64 ret_main)
{
	u64 sp, ip, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	cap.regs[0] = bp;
	cap.regs[1] = sp;
	cap.regs[2] = ip;
	cap.size = stack_end - sp < STACK_COPY ? stack_end - sp : STACK_COPY;
	copy_stack(cap.stack, sp, cap.size);
	cap.ret[0] = (u64)(uintptr_t)__builtin_return_address(0);
	cap.ret[1] = ret_a;
	cap.ret[2] = ret_main;
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void b(u64 ret_main)
{
	c((u64)(uintptr_t)__builtin_return_address(0), ret_main);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void a(void)
{
	b((u64)(uintptr_t)__builtin_return_address(0));
	__asm__ volatile("" ::: "memory");
}

/* This process's executable maps as the session would hold them, and the end of its stack. */
static u32 read_maps(struct dsos *d, struct map *v, u32 cap_maps)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	u32 n = 0;
	FILE *fp = fopen("/proc/self/maps", "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, off;
		char perms[8];

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &off,
			   path) < 4)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_end = end;
		if (perms[2] != 'x' || path[0] != '/' || n == cap_maps)
			continue;
		v[n].start = start;
		v[n].end = end;
		v[n].pgoff = off;
		v[n].identity = false;
		v[n].dso = dsos_findnew(d, path, DSO_USER);
		n++;
	}
	fclose(fp);
	return n;
}

/* The captured registers (bp, sp, ip) and stack as a sample of this process. */
static void captured_sample(struct unwind_sample *smp)
{
	memset(smp, 0, sizeof(*smp));
	smp->pid = smp->tid = (int)getpid();
	smp->abi = PERF_SAMPLE_REGS_ABI_64;
	smp->regs_mask = (1ULL << 6) | (1ULL << 7) | (1ULL << 8);
	smp->regs = cap.regs;
	smp->stack = cap.stack;
	smp->stack_size = cap.size;
}

static void test_own_stack(void)
{
	struct map v[64];
	struct maps m;
	struct dsos d;
	struct unwinder *u;
	struct unwind_sample smp;
	u64 ips[16];
	u32 n;

	dsos_init(&d, NULL, 0);
	memset(&m, 0, sizeof(m));
	m.v = v;
	m.nr = read_maps(&d, v, 64);
	ok(m.nr > 0 && stack_end, "this process's executable maps and its stack");
	a();
	u = unwinder_new(&d);
	ok(u != NULL, "an unwinder with libdw");
	captured_sample(&smp);
	n = unwind_user(u, &m, &smp, ips, 16);
	ok(n >= 4, "c, b, a and main at least");
	is(ips[0], cap.regs[2], "the first address is the sample's");
	is(ips[1], cap.ret[0] - 1, "then the call in b");
	is(ips[2], cap.ret[1] - 1, "then the call in a");
	is(ips[3], cap.ret[2] - 1, "then the call in main");
	/* the binaries stay open: a second sample finds the same */
	is(unwind_user(u, &m, &smp, ips, 16), n, "again, the same frames");
	is(unwind_user(u, &m, &smp, ips, 2), 2, "at most max");
	smp.stack_size = 0;
	n = unwind_user(u, &m, &smp, ips, 16);
	ok(n >= 1 && ips[0] == cap.regs[2], "without the stack, the sample's address still");
	unwinder_free(u);
	dsos_exit(&d);
}

/*
 * A sample whose address lies in a map of libc placed so that libc's span, at the bias that map
 * gives, starts inside this program's module, which an earlier sample reported first: the
 * unwinder must not put both in one Dwfl, nor free the one the walk under way holds; the sample
 * gives its own address, and the next one unwinds as before.
 */
static void test_overlap(void)
{
	struct map v[65], fake;
	struct maps m;
	struct dsos d;
	struct unwinder *u;
	struct unwind_sample smp;
	u64 ips[16], regs[3], hi = 0, bias = 0;
	struct dso *libc = NULL;
	u32 n, nr, i;

	dsos_init(&d, NULL, 0);
	memset(&m, 0, sizeof(m));
	m.v = v;
	nr = read_maps(&d, v, 64);
	a();
	for (i = 0; i < nr; i++) {
		if (strstr(v[i].dso->name, "/libc.so"))
			libc = v[i].dso;
		/* this program's maps come first, below the libraries */
		if (!i || v[i].dso == v[0].dso)
			hi = v[i].end;
	}
	if (libc)
		dso_load(&d, libc);
	if (!libc || !libc->nr_segs) {
		skip("a module that overlaps another", "no libc with segments in this process");
		dsos_exit(&d);
		return;
	}
	/*
	 * Past this program's data and bss, at the file offset that puts libc's start (its bias)
	 * at the start of this program's code: libdwfl sees the overlap by the new module's start.
	 */
	memset(&fake, 0, sizeof(fake));
	fake.start = (hi + (1 << 20)) & ~0xfffULL;
	fake.end = fake.start + 4096;
	fake.dso = libc;
	for (i = 0; i < libc->nr_segs; i++) {
		const struct dso_seg *g = &libc->segs[i];
		u64 want = fake.start - v[0].start;

		if (want >= g->vaddr && want - g->vaddr < g->memsz) {
			fake.pgoff = want - g->vaddr + g->offset;
			break;
		}
	}
	/* the segment the unwinder takes for that offset: the first that holds it */
	for (i = 0; i < libc->nr_segs; i++) {
		const struct dso_seg *g = &libc->segs[i];

		if (fake.pgoff >= g->offset && fake.pgoff - g->offset < g->memsz) {
			bias = fake.start - (g->vaddr + (fake.pgoff - g->offset));
			break;
		}
	}
	ok(bias >= v[0].start && bias < v[0].end, "libc's span there starts in this program's code");
	for (i = nr; i > 0 && v[i - 1].start > fake.start; i--)
		v[i] = v[i - 1];
	v[i] = fake;
	m.nr = nr + 1;

	u = unwinder_new(&d);
	captured_sample(&smp);
	n = unwind_user(u, &m, &smp, ips, 16);
	ok(n >= 4 && ips[1] == cap.ret[0] - 1, "a sample in this program unwinds");
	memcpy(regs, cap.regs, sizeof(regs));
	regs[2] = fake.start + 16;
	smp.regs = regs;
	ok(unwind_user(u, &m, &smp, ips, 16) >= 1 && ips[0] == regs[2],
	   "one in the overlapping map gives at least its own address");
	smp.regs = cap.regs;
	is(unwind_user(u, &m, &smp, ips, 16), n, "and the first sample unwinds as before");
	unwinder_free(u);
	dsos_exit(&d);
}

/*
 * Code that never runs, only its call frame information, one function per frame of a built
 * stack: each label *_at is the frame's pc (a caller's: its return address less one), where
 * the rules written above it hold. Between them they use every simple form of rule, and two
 * functions use forms the cached rules leave to libdwfl (an expression, a signal frame).
 */
__asm__(".text\n"
	/* CFA = rsp + 32; rbx saved at CFA - 16; r12 is in r13 */
	"uwt_f1:\n .cfi_startproc\n nop\n"
	" .cfi_def_cfa_offset 32\n .cfi_offset rbx, -16\n .cfi_register r12, r13\n"
	"uwt_f1_at:\n nop\n nop\n .cfi_endproc\n"
	/*
	 * CFA = rbp + 16; rbp saved at CFA - 16; r14 undefined; rbx and r15 the same value (libdw's
	 * own default for rbx is not: it names rax for it)
	 */
	"uwt_f2:\n .cfi_startproc\n nop\n"
	" .cfi_def_cfa rbp, 16\n .cfi_offset rbp, -16\n .cfi_undefined r14\n .cfi_same_value r15\n"
	" .cfi_same_value rbx\n"
	"uwt_f2_at:\n nop\n nop\n .cfi_endproc\n"
	/* the same, and r14 saved where an expression says (DW_CFA_expression r14: rsp + 0) */
	"uwt_f2x:\n .cfi_startproc\n nop\n"
	" .cfi_def_cfa rbp, 16\n .cfi_offset rbp, -16\n .cfi_same_value r15\n .cfi_same_value rbx\n"
	" .cfi_escape 0x10, 0x0e, 0x02, 0x77, 0x00\n"
	"uwt_f2x_at:\n nop\n nop\n .cfi_endproc\n"
	/* the return address is in rbx; r13 is the value CFA - 8 */
	"uwt_f3:\n .cfi_startproc\n nop\n"
	" .cfi_register rip, rbx\n .cfi_val_offset r13, -8\n"
	"uwt_f3_at:\n nop\n nop\n .cfi_endproc\n"
	/* a signal frame: what follows differs for libdwfl (the caller is an activation) */
	"uwt_f3s:\n .cfi_startproc\n .cfi_signal_frame\n nop\n"
	" .cfi_register rip, rbx\n .cfi_val_offset r13, -8\n"
	"uwt_f3s_at:\n nop\n nop\n .cfi_endproc\n"
	/* another, its return address on the stack (CFA = rsp + 8), as the CIE has it */
	"uwt_f3t:\n .cfi_startproc\n .cfi_signal_frame\n nop\n .cfi_val_offset r13, -8\n"
	"uwt_f3t_at:\n nop\n nop\n .cfi_endproc\n"
	/* a frame that names no register but the CIE's: rbx is not named */
	"uwt_g1:\n .cfi_startproc\n nop\n"
	"uwt_g1_at:\n nop\n nop\n .cfi_endproc\n"
	/* CFA = rbx + 16, as in ld.so's _dl_runtime_resolve */
	"uwt_g2:\n .cfi_startproc\n nop\n .cfi_def_cfa rbx, 16\n"
	"uwt_g2_at:\n nop\n nop\n .cfi_endproc\n"
	/* CFA = r12 + 8: r12 came from r13 in the first frame */
	"uwt_f4:\n .cfi_startproc\n nop\n .cfi_def_cfa r12, 8\n"
	"uwt_f4_at:\n nop\n nop\n .cfi_endproc\n"
	/* CFA = r15 + 8: r15 the same since the first frame */
	"uwt_f5:\n .cfi_startproc\n nop\n .cfi_def_cfa r15, 8\n"
	"uwt_f5_at:\n nop\n nop\n .cfi_endproc\n"
	/* the outermost: the return address is undefined */
	"uwt_f6:\n .cfi_startproc\n nop\n .cfi_undefined rip\n"
	"uwt_f6_at:\n nop\n nop\n .cfi_endproc\n");

extern const char uwt_f1_at[], uwt_f2_at[], uwt_f2x_at[], uwt_f3_at[], uwt_f3s_at[];
extern const char uwt_f3t_at[], uwt_f4_at[], uwt_f5_at[], uwt_f6_at[];
extern const char uwt_g1_at[], uwt_g2_at[];

/* DWARF's numbers of the registers used below */
enum { D_RBX = 3, D_RBP = 6, D_RSP = 7, D_R12 = 12, D_R13 = 13, D_R14 = 14, D_R15 = 15 };

struct built {
	u64 dregs[UNWIND_NR_REGS];
	u64 regs[64]; /* perf's order, packed by PERF_REGS_MASK */
	u64 words[32];
	u64 want[8];
	u32 nr_want;
};

#define U(p) ((u64)(uintptr_t)(p))

/* The sample's registers in perf's order, from the DWARF ones. */
static void pack_regs(struct built *b)
{
	static const int dw[24] = {0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
				   8, 9, 10, 11, 12, 13, 14, 15};
	u32 n = 0;

	for (u32 bit = 0; bit < 64; bit++)
		if (PERF_REGS_MASK & (1ULL << bit))
			b->regs[n++] = bit < 24 && dw[bit] >= 0 ? b->dregs[dw[bit]] : 0;
}

/*
 * A stack through f1, f2 (or f2x), f3 (or f3s, f3t), f4, f5, f6: each frame's registers come
 * from the one before by its rules, and the words hold what the rules read.
 */
static void build_stack(struct built *b, const char *f2, const char *f3)
{
	u64 s = 0x7ffd00000000ULL; /* the stack pointer of the sample */

	memset(b, 0, sizeof(*b));
	b->dregs[D_RSP] = s;
	b->dregs[16] = U(uwt_f1_at);
	/* f1: CFA s + 32: the return address at s + 24, rbx (f3's return address) at s + 16 */
	b->words[3] = U(f2) + 1;
	b->words[2] = U(uwt_f4_at) + 1;
	/* r13 becomes r12, f4's CFA less 8: where its return address is */
	b->dregs[D_R13] = s + 8 * 10;
	b->words[10] = U(uwt_f5_at) + 1;
	/* f2: rbp + 16 is its CFA, s + 64: the return address at s + 56, rbp at s + 48 */
	b->dregs[D_RBP] = s + 48;
	b->words[7] = U(f3) + 1;
	b->words[6] = 0x1111;
	b->dregs[D_R14] = 0x2222;
	/* f3t: its return address at its CFA less 8, f2's CFA */
	b->words[8] = U(uwt_f4_at) + 1;
	/* r15 is f5's CFA less 8 */
	b->dregs[D_R15] = s + 8 * 12;
	b->words[12] = U(uwt_f6_at) + 1;
	/* what would follow f6 if its return address were not undefined */
	b->words[13] = U(uwt_f1_at) + 1;
	pack_regs(b);
	b->want[0] = U(uwt_f1_at);
	b->want[1] = U(f2);
	b->want[2] = U(f3);
	b->want[3] = U(uwt_f4_at);
	b->want[4] = U(uwt_f5_at);
	b->want[5] = U(uwt_f6_at);
	b->nr_want = 6;
}

/*
 * A stack through g1, g2, f6: g1 names no register but the CIE's; g2's CFA is rbx + 16, rbx
 * as g1 left it (the same value, the ABI's rule for a callee-saved register).
 */
static void build_rbx_stack(struct built *b)
{
	u64 s = 0x7ffd00000000ULL;

	memset(b, 0, sizeof(*b));
	b->dregs[D_RSP] = s;
	b->dregs[16] = U(uwt_g1_at);
	b->words[0] = U(uwt_g2_at) + 1;
	b->dregs[D_RBX] = s + 32;
	b->words[5] = U(uwt_f6_at) + 1;
	pack_regs(b);
	b->want[0] = U(uwt_g1_at);
	b->want[1] = U(uwt_g2_at);
	b->want[2] = U(uwt_f6_at);
	b->nr_want = 3;
}

static void built_sample(struct unwind_sample *smp, const struct built *b)
{
	memset(smp, 0, sizeof(*smp));
	smp->pid = smp->tid = (int)getpid();
	smp->abi = PERF_SAMPLE_REGS_ABI_64;
	smp->regs_mask = PERF_REGS_MASK;
	smp->regs = b->regs;
	smp->stack = b->words;
	smp->stack_size = sizeof(b->words);
}

/*
 * The chain of a built stack copied up to size bytes, cut at max, with the cached rules or
 * libdwfl alone: which way it went too (nr_cached may be NULL).
 */
static u32 unwind_cut(struct dsos *d, struct maps *m, const struct built *b, bool cached,
		      u64 size, u64 *ips, u32 max, u64 *nr_cached)
{
	struct unwinder *u = unwinder_new(d);
	struct unwind_sample smp;
	u32 n;

	unwinder_configure(u, 1, cached);
	built_sample(&smp, b);
	smp.stack_size = size;
	n = unwind_user(u, m, &smp, ips, max);
	unwinder_stats(u, nr_cached, NULL);
	unwinder_free(u);
	return n;
}

/* The same, of the whole copy, up to 16 frames. */
static u32 unwind_built(struct dsos *d, struct maps *m, const struct built *b, bool cached,
			u64 *ips, u64 *nr_cached)
{
	return unwind_cut(d, m, b, cached, sizeof(b->words), ips, 16, nr_cached);
}

static bool same_chain(const u64 *ips, u32 n, const u64 *want, u32 nr_want)
{
	if (n != nr_want) {
		diag("%u frames, %u wanted", n, nr_want);
		return false;
	}
	for (u32 i = 0; i < n; i++)
		if (ips[i] != want[i]) {
			diag("frame %u: %#llx, %#llx wanted", i, (unsigned long long)ips[i],
			     (unsigned long long)want[i]);
			return false;
		}
	return true;
}

static void test_rules(void)
{
	struct map v[64];
	struct maps m;
	struct dsos d;
	struct built b;
	u64 ips[16], ips2[16], nr_cached;
	u32 n, n2;

	dsos_init(&d, NULL, 0);
	memset(&m, 0, sizeof(m));
	m.v = v;
	m.nr = read_maps(&d, v, 64);

	build_stack(&b, uwt_f2_at, uwt_f3_at);
	n = unwind_built(&d, &m, &b, true, ips, &nr_cached);
	ok(same_chain(ips, n, b.want, b.nr_want),
	   "every simple rule: CFA from rsp, rbp, r12, r15; saved at CFA + N, the value CFA + N, "
	   "in a register, the same value, undefined");
	is(nr_cached, 1, "with the cached rules");
	n = unwind_built(&d, &m, &b, false, ips, &nr_cached);
	ok(same_chain(ips, n, b.want, b.nr_want), "libdwfl unwinds the same");
	is(nr_cached, 0, "without them");

	build_stack(&b, uwt_f2x_at, uwt_f3_at);
	n = unwind_built(&d, &m, &b, true, ips, &nr_cached);
	n2 = unwind_built(&d, &m, &b, false, ips2, NULL);
	ok(same_chain(ips, n, b.want, b.nr_want), "a frame with an expression unwinds alike");
	is(nr_cached, 0, "a frame of it by libdwfl");
	ok(same_chain(ips2, n2, b.want, b.nr_want), "as libdwfl alone does");

	build_stack(&b, uwt_f2_at, uwt_f3s_at);
	n = unwind_built(&d, &m, &b, true, ips, &nr_cached);
	n2 = unwind_built(&d, &m, &b, false, ips2, NULL);
	ok(n >= 3 && same_chain(ips, n, ips2, n2), "a signal frame unwinds as libdwfl alone does");
	is(nr_cached, 0, "by libdwfl");

	/* the stack copy ends before f3's return address: the chain ends there */
	build_stack(&b, uwt_f2_at, uwt_f3_at);
	{
		struct unwinder *u = unwinder_new(&d);
		struct unwind_sample smp;

		built_sample(&smp, &b);
		smp.stack_size = 7 * 8;
		n = unwind_user(u, &m, &smp, ips, 16);
		unwinder_configure(u, 1, false);
		n2 = unwind_user(u, &m, &smp, ips2, 16);
		ok(same_chain(ips, n, b.want, 2) && same_chain(ips2, n2, b.want, 2),
		   "a return address past the copy ends the chain, both ways");
		unwinder_free(u);
	}
	dsos_exit(&d);
}

/*
 * libdwfl's own walk of a built stack, the whole chain in one dwfl_getthread_frames(), each
 * frame as dwfl_frame_pc() tells it: the reference for prec's two ways, which step frames.
 */
struct walk {
	const struct built *b;
	u64 size; /* of the stack copy */
	u64 *ips;
	u32 n, max;
};

static pid_t walk_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return getpid();
}

static bool walk_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct walk *w = arg;
	u64 val;

	(void)dwfl;
	if (!unwind_stack_word(w->b->words, w->size, w->b->dregs[D_RSP], addr, &val))
		return false;
	*result = val;
	return true;
}

static bool walk_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct walk *w = arg;
	Dwarf_Word regs[UNWIND_NR_REGS];

	for (u32 i = 0; i < UNWIND_NR_REGS; i++)
		regs[i] = w->b->dregs[i];
	return dwfl_thread_state_registers(thread, 0, UNWIND_NR_REGS, regs);
}

static int walk_frame(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	w->ips[w->n++] = activation ? pc : pc - 1;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static u32 libdwfl_walk(const struct built *b, u64 size, u64 *ips, u32 max)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	static const Dwfl_Thread_Callbacks thread_cb = {
		.next_thread = walk_next_thread,
		.memory_read = walk_memory_read,
		.set_initial_registers = walk_set_initial_registers,
	};
	struct walk w = {.b = b, .size = size, .ips = ips, .max = max};
	Dwfl *dwfl = dwfl_begin(&cb);

	if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) ||
	    dwfl_report_end(dwfl, NULL, NULL) ||
	    !dwfl_attach_state(dwfl, NULL, getpid(), &thread_cb, &w)) {
		diag("libdwfl: %s", dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return 0;
	}
	dwfl_getthread_frames(dwfl, getpid(), walk_frame, &w);
	dwfl_end(dwfl);
	return w.n;
}

/* Both of prec's ways give libdwfl's own chain: say which case differs. */
static bool as_libdwfl(struct dsos *d, struct maps *m, const struct built *b, u64 size, u32 max)
{
	u64 want[16], ips[16];
	u32 nr_want = libdwfl_walk(b, size, want, max), n;

	if (nr_want < 2) {
		diag("libdwfl's walk gave %u frames", nr_want);
		return false;
	}
	for (int cached = 1; cached >= 0; cached--) {
		n = unwind_cut(d, m, b, cached, size, ips, max, NULL);
		if (!same_chain(ips, n, want, nr_want)) {
			diag("with%s the cached rules", cached ? "" : "out");
			return false;
		}
	}
	return true;
}

static void test_against_libdwfl(void)
{
	struct map v[64];
	struct maps m;
	struct dsos d;
	struct built b;
	u64 ips[16], whole = sizeof(b.words);
	u32 n;

	dsos_init(&d, NULL, 0);
	memset(&m, 0, sizeof(m));
	m.v = v;
	m.nr = read_maps(&d, v, 64);

	build_stack(&b, uwt_f2_at, uwt_f3_at);
	ok(as_libdwfl(&d, &m, &b, whole, 16), "simple rules: libdwfl's own chain, both ways");
	ok(as_libdwfl(&d, &m, &b, 7 * 8, 16), "and where the copy ends early");
	build_stack(&b, uwt_f2x_at, uwt_f3_at);
	ok(as_libdwfl(&d, &m, &b, whole, 16), "an expression: libdwfl's own chain, both ways");
	build_stack(&b, uwt_f2_at, uwt_f3s_at);
	ok(as_libdwfl(&d, &m, &b, whole, 16), "a signal frame: libdwfl's own chain, both ways");
	build_stack(&b, uwt_f2_at, uwt_f3t_at);
	ok(as_libdwfl(&d, &m, &b, whole, 16), "another signal frame: the same");
	/* a signal frame is reported at its pc only when its own step finds a caller */
	ok(as_libdwfl(&d, &m, &b, whole, 3) && libdwfl_walk(&b, whole, ips, 3) == 3 &&
		   ips[2] == U(uwt_f3t_at) + 1,
	   "a signal frame that unwinds, last of a chain cut by max: at its pc");
	ok(as_libdwfl(&d, &m, &b, 8 * 8, 16) && libdwfl_walk(&b, 8 * 8, ips, 16) == 3 &&
		   ips[2] == U(uwt_f3t_at),
	   "one whose return address is past the copy: at its pc less one");

	/* libdw's x86-64 defaults name rax where rbx is meant: libdwfl alone stops at g2 */
	build_rbx_stack(&b);
	n = unwind_built(&d, &m, &b, true, ips, NULL);
	ok(same_chain(ips, n, b.want, b.nr_want), "a CFA from rbx kept through a frame: unwound");
	n = unwind_built(&d, &m, &b, false, ips, NULL);
	ok(same_chain(ips, n, b.want, b.nr_want), "the same when libdwfl steps the frames");
	diag("libdwfl's own walk of it: %u frames", libdwfl_walk(&b, whole, ips, 16));
	dsos_exit(&d);
}

/* A batch on two threads gives each sample what it gives alone, whichever way it unwinds. */
static void test_batch(void)
{
	enum { NR = 300 };
	static struct built b[2];
	static u64 ips[NR][16];
	static struct unwind_job jobs[NR];
	struct map v[64];
	struct maps m;
	struct dsos d;
	struct unwinder *u;
	u32 bad = 0, nr_libdwfl = 0;
	u64 cached, libdwfl;

	dsos_init(&d, NULL, 0);
	memset(&m, 0, sizeof(m));
	m.v = v;
	m.nr = read_maps(&d, v, 64);
	build_stack(&b[0], uwt_f2_at, uwt_f3_at);
	build_stack(&b[1], uwt_f2x_at, uwt_f3_at);
	for (u32 i = 0; i < NR; i++) {
		jobs[i].maps = &m;
		built_sample(&jobs[i].smp, &b[i % 2]);
		jobs[i].ips = ips[i];
		/* some cut short by max */
		jobs[i].max = i % 7 ? 16 : 3;
		nr_libdwfl += i % 2;
	}
	u = unwinder_new(&d);
	unwinder_configure(u, 2, true);
	unwind_batch(u, jobs, NR);
	for (u32 i = 0; i < NR; i++) {
		const struct built *w = &b[i % 2];

		bad += !same_chain(ips[i], jobs[i].n, w->want,
				   jobs[i].max < w->nr_want ? jobs[i].max : w->nr_want);
	}
	is(bad, 0, "a batch on two threads: every sample's chain as alone");
	unwinder_stats(u, &cached, &libdwfl);
	is(libdwfl, nr_libdwfl, "the samples with an expression went to libdwfl");
	is(cached, NR - nr_libdwfl, "and the others used the cached rules");
	unwinder_free(u);
	dsos_exit(&d);
}

#endif

int main(void)
{
	test_regs();
	test_stack();
#if defined(HAVE_LIBDW_UNWIND) && defined(__x86_64__)
	test_own_stack();
	test_overlap();
	test_rules();
	test_against_libdwfl();
	test_batch();
#else
	skip("unwinding this process's own stack", "prec is built without libdw");
#endif
	return done_testing();
}
