// SPDX-License-Identifier: GPL-2.0
/*
 * parse_events() against what perf 6.1 builds for the same -e string.
 *
 * Every expected attr below was read from perf 6.1 on the development VM (no hardware PMU; perf
 * still prints the attr it built before the kernel refuses a hardware event):
 *
 *	perf record -e 'STR' -vv -o /tmp/x.data -- true     # first perf_event_attr block
 *	perf stat -x'|' -e 'STR' -- true                     # the name, third column
 *
 * and, for the fixture PMUs in tests/fixtures/sysfs (an x86 core PMU "cpu", uncore_imc_0/1,
 * amd_df with a split event field, hv_24x7 with a "?" parameter, msr, software, ...), the same
 * two commands run with the fixture mounted over the real PMUs:
 *
 *	unshare -m sh -c 'mount --bind tests/fixtures/sysfs/bus/event_source/devices \
 *		/sys/bus/event_source/devices && perf record -e STR -vv -o /tmp/x.data -- true'
 *
 * Where prec differs from perf 6.1 on purpose the test says so next to the case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "record/hook.h"
#include "record/parse-events.h"
#include "record/pmu.h"
#include "tests/tap.h"

struct want {
	const char *str;
	__u32 type;
	unsigned long long config, config1, config2;
	/* exclude_* bits set: U user, K kernel, V hv, G guest, H host, I idle */
	const char *excl;
	int precise;
	const char *name;
	bool hardware;
};

static void excl_string(const struct perf_event_attr *a, char *buf)
{
	int n = 0;

	if (a->exclude_user)
		buf[n++] = 'U';
	if (a->exclude_kernel)
		buf[n++] = 'K';
	if (a->exclude_hv)
		buf[n++] = 'V';
	if (a->exclude_guest)
		buf[n++] = 'G';
	if (a->exclude_host)
		buf[n++] = 'H';
	if (a->exclude_idle)
		buf[n++] = 'I';
	buf[n] = '\0';
}

/* Parse w->str alone and compare its first event with w: one TAP line, details on failure. */
static void check(const struct want *w)
{
	struct event_list l = {0};
	struct parse_error err;
	char excl[8], desc[300];
	bool good = true;

	snprintf(desc, sizeof(desc), "-e '%s' as perf builds it", w->str);
	if (parse_events(&l, w->str, &err)) {
		ok(0, desc);
		diag("refused at %d: %s", err.pos, err.msg);
		return;
	}
	{
		const struct event_spec *ev = &l.ev[0];
		const struct perf_event_attr *a = &ev->attr;

		excl_string(a, excl);
#define CMP(cond, ...)                                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			if (good)                                                                  \
				ok(0, desc);                                                       \
			good = false;                                                              \
			diag(__VA_ARGS__);                                                         \
		}                                                                                  \
	} while (0)
		CMP(a->type == w->type, "type %u, perf %u", a->type, w->type);
		CMP(a->config == w->config, "config %#llx, perf %#llx",
		    (unsigned long long)a->config, w->config);
		CMP(a->config1 == w->config1, "config1 %#llx, perf %#llx",
		    (unsigned long long)a->config1, w->config1);
		CMP(a->config2 == w->config2, "config2 %#llx, perf %#llx",
		    (unsigned long long)a->config2, w->config2);
		CMP(!strcmp(excl, w->excl), "exclusions '%s', perf '%s'", excl, w->excl);
		CMP(a->precise_ip == (unsigned)w->precise, "precise_ip %u, perf %d", a->precise_ip,
		    w->precise);
		CMP(ev->name && !strcmp(ev->name, w->name), "name '%s', perf '%s'", ev->name,
		    w->name);
		CMP(ev->hardware == w->hardware, "hardware %d, expected %d", ev->hardware,
		    w->hardware);
		CMP(a->size == sizeof(*a), "attr.size %u", a->size);
#undef CMP
	}
	if (good)
		ok(1, desc);
	event_list_free(&l);
}

/* Generic events: no PMU files involved, the same on every machine. */
static const struct want generic[] = {
    {"cpu-clock", 1, 0, 0, 0, "G", 0, "cpu-clock", false},
    /* the exclusion semantics: u/k/h exclude the rest, u and p also exclude the guest */
    {"cpu-clock:u", 1, 0, 0, 0, "KVG", 0, "cpu-clock:u", false},
    {"cpu-clock:k", 1, 0, 0, 0, "UV", 0, "cpu-clock:k", false},
    {"cpu-clock:uk", 1, 0, 0, 0, "VG", 0, "cpu-clock:uk", false},
    {"cpu-clock:ku", 1, 0, 0, 0, "VG", 0, "cpu-clock:ku", false},
    {"cpu-clock:h", 1, 0, 0, 0, "UK", 0, "cpu-clock:h", false},
    {"cpu-clock:G", 1, 0, 0, 0, "H", 0, "cpu-clock:G", false},
    {"cpu-clock:H", 1, 0, 0, 0, "G", 0, "cpu-clock:H", false},
    {"cpu-clock:uG", 1, 0, 0, 0, "KVH", 0, "cpu-clock:uG", false},
    {"cpu-clock:Gu", 1, 0, 0, 0, "KVH", 0, "cpu-clock:Gu", false},
    {"cpu-clock:kH", 1, 0, 0, 0, "UVG", 0, "cpu-clock:kH", false},
    {"cpu-clock:p", 1, 0, 0, 0, "G", 1, "cpu-clock:p", false},
    {"cpu-clock:pu", 1, 0, 0, 0, "KVG", 1, "cpu-clock:pu", false},
    {"cpu-clock:ppp", 1, 0, 0, 0, "G", 3, "cpu-clock:ppp", false},
    {"cpu-clock:S", 1, 0, 0, 0, "", 0, "cpu-clock:S", false},
    {"cpu-clock:D", 1, 0, 0, 0, "", 0, "cpu-clock:D", false},
    {"cpu-clock:I", 1, 0, 0, 0, "I", 0, "cpu-clock:I", false},
    {"cpu-clock:e", 1, 0, 0, 0, "", 0, "cpu-clock:e", false},
    {"cpu-clock:", 1, 0, 0, 0, "G", 0, "cpu-clock:", false},
    {"cpu-clock//", 1, 0, 0, 0, "G", 0, "cpu-clock//", false},
    {"cpu-clock//u", 1, 0, 0, 0, "KVG", 0, "cpu-clock//u", false},
    {"cpu-clock/period=1000/", 1, 0, 0, 0, "G", 0, "cpu-clock/period=1000/", false},
    {"cpu-clock/period=1000/u", 1, 0, 0, 0, "KVG", 0, "cpu-clock/period=1000/u", false},
    {"cpu-clock/config=1/", 1, 0x1, 0, 0, "G", 0, "cpu-clock/config=1/", false},
    {"cpu-clock/name=foo/", 1, 0, 0, 0, "G", 0, "foo", false},
    {" cpu-clock", 1, 0, 0, 0, "G", 0, " cpu-clock", false}, /* perf keeps the space */
    {"task-clock", 1, 0x1, 0, 0, "G", 0, "task-clock", false},
    {"page-faults", 1, 0x2, 0, 0, "G", 0, "page-faults", false},
    {"faults", 1, 0x2, 0, 0, "G", 0, "faults", false},
    {"minor-faults", 1, 0x5, 0, 0, "G", 0, "minor-faults", false},
    {"major-faults", 1, 0x6, 0, 0, "G", 0, "major-faults", false},
    {"context-switches", 1, 0x3, 0, 0, "G", 0, "context-switches", false},
    {"cs", 1, 0x3, 0, 0, "G", 0, "cs", false},
    {"cpu-migrations", 1, 0x4, 0, 0, "G", 0, "cpu-migrations", false},
    {"migrations", 1, 0x4, 0, 0, "G", 0, "migrations", false},
    {"alignment-faults", 1, 0x7, 0, 0, "G", 0, "alignment-faults", false},
    {"emulation-faults", 1, 0x8, 0, 0, "G", 0, "emulation-faults", false},
    {"dummy", 1, 0x9, 0, 0, "G", 0, "dummy", false},
    {"bpf-output", 1, 0xa, 0, 0, "G", 0, "bpf-output", false},
    {"cgroup-switches", 1, 0xb, 0, 0, "G", 0, "cgroup-switches", false},
    {"1:1", 1, 0x1, 0, 0, "G", 0, "1:1", false},
    {"1:1:u", 1, 0x1, 0, 0, "KVG", 0, "1:1:u", false},
    {"0x1:0x2", 1, 0x2, 0, 0, "G", 0, "0x1:0x2", false},
    {"software/config=0/", 1, 0, 0, 0, "G", 0, "software/config=0/", false},
    {"software/config=0,name=foo/", 1, 0, 0, 0, "G", 0, "foo", false},
    {"software/config=1/", 1, 0x1, 0, 0, "G", 0, "software/config=1/", false},
    {"mem:0x1000", 5, 0, 0x1000, 0x4, "G", 0, "mem:0x1000", false},
    {"mem:0x1000:x", 5, 0, 0x1000, 0x8, "G", 0, "mem:0x1000:x", false},
    {"mem:0x1000/8:rw", 5, 0, 0x1000, 0x8, "G", 0, "mem:0x1000", false}, /* perf's lexer */
    {"mem:0x1000:w:u", 5, 0, 0x1000, 0x4, "KVG", 0, "mem:0x1000:w:u", false},
    {"mem:0x1000/4", 5, 0, 0x1000, 0x4, "G", 0, "mem:0x1000", false},
    {"mem:0x1000:rw:k", 5, 0, 0x1000, 0x4, "UV", 0, "mem:0x1000:rw:k", false},
    /* hardware events: the kernel here refuses them, perf -vv still shows the attr */
    {"cycles", 0, 0, 0, 0, "G", 0, "cycles", true},
    {"cycles:u", 0, 0, 0, 0, "KVG", 0, "cycles:u", true},
    {"instructions:k", 0, 0x1, 0, 0, "UV", 0, "instructions:k", true},
    {"cpu-cycles", 0, 0, 0, 0, "G", 0, "cpu-cycles", true},
    {"stalled-cycles-frontend", 0, 0x7, 0, 0, "G", 0, "stalled-cycles-frontend", true},
    {"idle-cycles-frontend", 0, 0x7, 0, 0, "G", 0, "idle-cycles-frontend", true},
    {"stalled-cycles-backend", 0, 0x8, 0, 0, "G", 0, "stalled-cycles-backend", true},
    {"idle-cycles-backend", 0, 0x8, 0, 0, "G", 0, "idle-cycles-backend", true},
    {"cache-references", 0, 0x2, 0, 0, "G", 0, "cache-references", true},
    {"cache-misses", 0, 0x3, 0, 0, "G", 0, "cache-misses", true},
    {"branch-instructions", 0, 0x4, 0, 0, "G", 0, "branch-instructions", true},
    {"branches", 0, 0x4, 0, 0, "G", 0, "branches", true},
    {"branch-misses", 0, 0x5, 0, 0, "G", 0, "branch-misses", true},
    {"bus-cycles", 0, 0x6, 0, 0, "G", 0, "bus-cycles", true},
    {"ref-cycles", 0, 0x9, 0, 0, "G", 0, "ref-cycles", true},
    {"cycles/period=100000/", 0, 0, 0, 0, "G", 0, "cycles/period=100000/", true},
    {"r1a8", 4, 0x1a8, 0, 0, "G", 0, "r1a8", true},
    {"r1a8:u", 4, 0x1a8, 0, 0, "KVG", 0, "r1a8:u", true},
    {"r1A8", 4, 0x1a8, 0, 0, "G", 0, "r1A8", true},
    {"rABCDEF0123", 4, 0xabcdef0123, 0, 0, "G", 0, "rABCDEF0123", true},
    {"r3c/name=x/", 4, 0x3c, 0, 0, "G", 0, "x", true},
    {"r1a8/period=3/", 4, 0x1a8, 0, 0, "G", 0, "r1a8/period=3/", true},
    /* cache events: perf names them by their words, without terms or modifiers */
    {"L1-dcache-load-misses", 3, 0x10000, 0, 0, "G", 0, "L1-dcache-load-misses", true},
    {"L1-dcache-load-misses:u", 3, 0x10000, 0, 0, "KVG", 0, "L1-dcache-load-misses", true},
    {"L1-dcache-loads", 3, 0, 0, 0, "G", 0, "L1-dcache-loads", true},
    {"L1-dcache-stores", 3, 0x100, 0, 0, "G", 0, "L1-dcache-stores", true},
    {"L1-dcache-store-misses", 3, 0x10100, 0, 0, "G", 0, "L1-dcache-store-misses", true},
    {"L1-dcache-prefetches", 3, 0x200, 0, 0, "G", 0, "L1-dcache-prefetches", true},
    {"L1-dcache-prefetch-misses", 3, 0x10200, 0, 0, "G", 0, "L1-dcache-prefetch-misses", true},
    {"L1-dcache", 3, 0, 0, 0, "G", 0, "L1-dcache", true},
    {"L1-dcache-misses", 3, 0x10000, 0, 0, "G", 0, "L1-dcache-misses", true},
    {"l1d-loads", 3, 0, 0, 0, "G", 0, "l1d-loads", true},
    {"l1-d-loads", 3, 0, 0, 0, "G", 0, "l1-d-loads", true},
    {"L1-data-read", 3, 0, 0, 0, "G", 0, "L1-data-read", true},
    {"L1-icache-loads", 3, 0x1, 0, 0, "G", 0, "L1-icache-loads", true},
    {"L1-icache-load-misses", 3, 0x10001, 0, 0, "G", 0, "L1-icache-load-misses", true},
    {"L1-icache-prefetches", 3, 0x201, 0, 0, "G", 0, "L1-icache-prefetches", true},
    {"L1-instruction-loads", 3, 0x1, 0, 0, "G", 0, "L1-instruction-loads", true},
    {"LLC-loads", 3, 0x2, 0, 0, "G", 0, "LLC-loads", true},
    {"LLC-load-misses", 3, 0x10002, 0, 0, "G", 0, "LLC-load-misses", true},
    {"LLC-stores", 3, 0x102, 0, 0, "G", 0, "LLC-stores", true},
    {"LLC-prefetch-misses", 3, 0x10202, 0, 0, "G", 0, "LLC-prefetch-misses", true},
    {"L2-loads", 3, 0x2, 0, 0, "G", 0, "L2-loads", true},
    {"dTLB-load-misses", 3, 0x10003, 0, 0, "G", 0, "dTLB-load-misses", true},
    {"dTLB-store-misses", 3, 0x10103, 0, 0, "G", 0, "dTLB-store-misses", true},
    {"dTLB-prefetches", 3, 0x203, 0, 0, "G", 0, "dTLB-prefetches", true},
    {"d-tlb-loads", 3, 0x3, 0, 0, "G", 0, "d-tlb-loads", true},
    {"Data-TLB-loads", 3, 0x3, 0, 0, "G", 0, "Data-TLB-loads", true},
    {"iTLB-loads", 3, 0x4, 0, 0, "G", 0, "iTLB-loads", true},
    {"iTLB-load-misses", 3, 0x10004, 0, 0, "G", 0, "iTLB-load-misses", true},
    {"i-tlb-loads", 3, 0x4, 0, 0, "G", 0, "i-tlb-loads", true},
    {"Instruction-TLB-loads", 3, 0x4, 0, 0, "G", 0, "Instruction-TLB-loads", true},
    {"branch-loads", 3, 0x5, 0, 0, "G", 0, "branch-loads", true},
    {"branch-load-misses", 3, 0x10005, 0, 0, "G", 0, "branch-load-misses", true},
    {"bpu-loads", 3, 0x5, 0, 0, "G", 0, "bpu-loads", true},
    {"btb-loads", 3, 0x5, 0, 0, "G", 0, "btb-loads", true},
    {"bpc-loads", 3, 0x5, 0, 0, "G", 0, "bpc-loads", true},
    {"node-loads", 3, 0x6, 0, 0, "G", 0, "node-loads", true},
    {"node-load-misses", 3, 0x10006, 0, 0, "G", 0, "node-load-misses", true},
    {"node-stores", 3, 0x106, 0, 0, "G", 0, "node-stores", true},
    {"node-prefetches", 3, 0x206, 0, 0, "G", 0, "node-prefetches", true},
    {"L1-dcache-speculative-read", 3, 0x200, 0, 0, "G", 0, "L1-dcache-speculative-read", true},
    {"L1-dcache-speculative-load-misses", 3, 0x10200, 0, 0, "G", 0,
     "L1-dcache-speculative-load-misses", true},
    {"L1-dcache-Reference", 3, 0, 0, 0, "G", 0, "L1-dcache-Reference", true},
    {"L1-dcache-ops", 3, 0, 0, 0, "G", 0, "L1-dcache-ops", true},
    {"L1-dcache-access", 3, 0, 0, 0, "G", 0, "L1-dcache-access", true},
    {"L1-dcache-miss", 3, 0x10000, 0, 0, "G", 0, "L1-dcache-miss", true},
    /* perf takes the first operation and result and ignores a repeated one */
    {"L1-dcache-load-load", 3, 0, 0, 0, "G", 0, "L1-dcache-load-load", true},
    {"L1-dcache-misses-loads", 3, 0x10000, 0, 0, "G", 0, "L1-dcache-misses-loads", true},
    {"L1-dcache-load-misses/period=10/u", 3, 0x10000, 0, 0, "KVG", 0, "L1-dcache-load-misses",
     true},
    {"L1-dcache-load-misses/name=foo/", 3, 0x10000, 0, 0, "G", 0, "foo", true},
    {"dTLB-load-misses:p", 3, 0x10003, 0, 0, "G", 1, "dTLB-load-misses", true},
};

/* On the fixture PMUs (PREC_SYSFS_ROOT=tests/fixtures/sysfs), checked with perf as above. */
static const struct want fixture[] = {
    {"cpu/event=0x3c,umask=0/", 4, 0x3c, 0, 0, "G", 0, "cpu/event=0x3c,umask=0/", true},
    {"cpu/cpu-cycles/", 4, 0x3c, 0, 0, "G", 0, "cpu/cpu-cycles/", true},
    /* event=config:0-7 umask=config:8-15 cmask=config:24-31 any=21 inv=23 edge=18 */
    {"cpu/event=0x3c,umask=0x1,cmask=2,any,inv,edge/u", 4, 0x2a4013c, 0, 0, "KVG", 0,
     "cpu/event=0x3c,umask=0x1,cmask=2,any,inv,edge/u", true},
    {"cpu/event=0x3c,umask=0x1,cmask=2,any,inv,edge/", 4, 0x2a4013c, 0, 0, "G", 0,
     "cpu/event=0x3c,umask=0x1,cmask=2,any,inv,edge/", true},
    {"cpu/event=1,umask=1 ,edge/", 4, 0x40101, 0, 0, "G", 0, "cpu/event=1,umask=1 ,edge/", true},
    /* aliases from events/, alone or with more terms, which OR in (ldlat=3 | 4 = 7) */
    {"mem-loads", 4, 0x1cd, 0x3, 0, "G", 0, "mem-loads", true},
    {"mem-loads:u", 4, 0x1cd, 0x3, 0, "KVG", 0, "mem-loads:u", true},
    {"cpu/mem-loads,ldlat=4/", 4, 0x1cd, 0x7, 0, "G", 0, "cpu/mem-loads,ldlat=4/", true},
    {"cpu/ldlat=4,mem-loads/", 4, 0x1cd, 0x7, 0, "G", 0, "cpu/ldlat=4,mem-loads/", true},
    {"mem-loads/ldlat=4/", 4, 0x1cd, 0x7, 0, "G", 0, "mem-loads/ldlat=4/", true},
    {"cycles-t", 4, 0x10000003c, 0, 0, "G", 0, "cycles-t", true},
    {"cycles-ct", 4, 0x30000003c, 0, 0, "G", 0, "cycles-ct", true},
    {"cpu/cycles-t/pp", 4, 0x10000003c, 0, 0, "G", 2, "cpu/cycles-t/pp", true},
    {"topdown-total-slots", 4, 0x20003c, 0, 0, "G", 0, "topdown-total-slots", true},
    {"cpu/tx-start/", 4, 0x1c9, 0, 0, "G", 0, "cpu/tx-start/", true},
    {"cpu/instructions/k", 4, 0xc0, 0, 0, "UV", 0, "cpu/instructions/k", true},
    {"cpu/event=cpu-cycles/", 4, 0x3c, 0, 0, "G", 0, "cpu/event=cpu-cycles/", true},
    {"cpu/CPU-CYCLES/", 4, 0x3c, 0, 0, "G", 0, "cpu/CPU-CYCLES/", true},
    {"cpu/umask=1,cpu-cycles/", 4, 0x13c, 0, 0, "G", 0, "cpu/umask=1,cpu-cycles/", true},
    {"cpu/cpu-cycles,umask=1/", 4, 0x13c, 0, 0, "G", 0, "cpu/cpu-cycles,umask=1/", true},
    /* config= is applied first, format terms then OR into it */
    {"cpu/config=0x10,event=0x3c/", 4, 0x3c, 0, 0, "G", 0, "cpu/config=0x10,event=0x3c/", true},
    {"cpu/event=0x3c,config=0x100/", 4, 0x13c, 0, 0, "G", 0, "cpu/event=0x3c,config=0x100/", true},
    {"cpu/config=0x100,event=0x3c/", 4, 0x13c, 0, 0, "G", 0, "cpu/config=0x100,event=0x3c/", true},
    {"cpu/event=0x3c,event=0x1/", 4, 0x3d, 0, 0, "G", 0, "cpu/event=0x3c,event=0x1/", true},
    {"cpu/event=0x3c,config1=5,ldlat=2/", 4, 0x3c, 0x7, 0, "G", 0,
     "cpu/event=0x3c,config1=5,ldlat=2/", true},
    {"cpu/offcore_rsp=0xffffffffffffffff/", 4, 0, 0xffffffffffffffff, 0, "G", 0,
     "cpu/offcore_rsp=0xffffffffffffffff/", true},
    {"cpu/config=1,config1=2,config2=3/", 4, 0x1, 0x2, 0x3, "G", 0,
     "cpu/config=1,config1=2,config2=3/", true},
    {"cpu/config/", 4, 0x1, 0, 0, "G", 0, "cpu/config/", true},
    {"cpu/r3c/", 4, 0x3c, 0, 0, "G", 0, "cpu/r3c/", true},
    {"cpu/r1234/", 4, 0x1234, 0, 0, "G", 0, "cpu/r1234/", true},
    {"4:0x3c", 4, 0x3c, 0, 0, "G", 0, "4:0x3c", true},
    {"cpu//", 4, 0, 0, 0, "G", 0, "cpu//", true},
    {"cpu/event=0x3c/ppp", 4, 0x3c, 0, 0, "G", 3, "cpu/event=0x3c/ppp", true},
    {"cpu/event=0x3c/Gk", 4, 0x3c, 0, 0, "UVH", 0, "cpu/event=0x3c/Gk", true},
    {"cpu/event=1,metric-id=x/", 4, 0x1, 0, 0, "G", 0, "cpu/event=1,metric-id=x/", true},
    {"cpu/event=1,percore/", 4, 0x1, 0, 0, "G", 0, "cpu/event=1,percore/", true},
    {"cpu/event=0x3c,name=abc/", 4, 0x3c, 0, 0, "G", 0, "abc", true},
    {"cpu/event=0x3c,name=abc/u", 4, 0x3c, 0, 0, "KVG", 0, "abc", true},
    {"cpu/event=0x3c,name='a,b:c'/", 4, 0x3c, 0, 0, "G", 0, "a,b:c", true},
    /* perf 6.1 refuses cpu/cycles/ ("unknown term"); prec takes it as perf 6.3 does */
    {"cpu/cycles/", 0, 0, 0, 0, "G", 0, "cpu/cycles/", true},
    /* amd_df: event=config:0-7,32-35,59-60, a value spread over three ranges */
    {"amd_df/event=0x1f0,umask=0x1/", 11, 0x1000001f0, 0, 0, "G", 0,
     "amd_df/event=0x1f0,umask=0x1/", false},
    {"amd_df/event=0x3fff/", 11, 0x1800000f000000ff, 0, 0, "G", 0, "amd_df/event=0x3fff/", false},
    {"amd_df/df_far_reads/", 11, 0x1000001f0, 0, 0, "G", 0, "amd_df/df_far_reads/", false},
    {"amd_df/dram_channel_data_controller_0/k", 11, 0x3807, 0, 0, "UV", 0,
     "amd_df/dram_channel_data_controller_0/k", false},
    /* an alias with "core=?" takes the user's core= wherever it is */
    {"hv_24x7/CPM_ADJUNCT_INST,core=1/", 12, 0x100e00002, 0, 0, "G", 0,
     "hv_24x7/CPM_ADJUNCT_INST,core=1/", false},
    {"hv_24x7/core=3,CPM_ADJUNCT_INST/", 12, 0x300e00002, 0, 0, "G", 0,
     "hv_24x7/core=3,CPM_ADJUNCT_INST/", false},
    {"uncore_imc_0/cas_count_read/", 14, 0x304, 0, 0, "G", 0, "uncore_imc_0/cas_count_read/",
     false},
    {"msr/tsc/", 9, 0, 0, 0, "G", 0, "msr/tsc/", false},
    {"msr/aperf/", 9, 0x1, 0, 0, "G", 0, "msr/aperf/", false},
    {"tsc:u", 9, 0, 0, 0, "KVG", 0, "tsc:u", false},
    {"uprobe/config=0x1/", 8, 0x1, 0, 0, "G", 0, "uprobe/config=0x1/", false},
    {"cpu-clock:u", 1, 0, 0, 0, "KVG", 0, "cpu-clock:u", false},
};

struct bad {
	const char *str;
	int pos;
	const char *msg;  /* a part of the message */
	const char *help; /* a part of the help, or NULL */
};

/* perf 6.1 refuses all of these too (perf record -e STR), except where a comment says. */
static const struct bad generic_bad[] = {
    {"cpu-clockx", 0, "unknown event 'cpu-clockx'", NULL},
    {"CPU-CLOCK", 0, "unknown event", NULL},
    {"foo/config=1/", 0, "Cannot find PMU `foo'", NULL},
    {"software/foo=1/", 9, "unknown term 'foo' for pmu 'software'", "valid terms: config,"},
    {"cpu-clock/foo=1/", 10, "unknown term 'foo'", "valid terms: config,config1"},
    {"cpu-clock:x", 10, "bad modifier 'x'", "valid modifiers"},
    {"cpu-clock:pppp", 10, "bad modifier: at most ppp", NULL},
    {"cpu-clock:uu", 10, "'u' is given twice", NULL},
    {"cpu-clock:ukk", 10, "'k' is given twice", NULL},
    {"cpu-clock::u", 10, "parser error", NULL},
    {"cpu-clock:u:k:h", 13, "too many ':'", NULL},
    /* perf 6.1 accepts a '{' that is never closed; prec does not */
    {"{cpu-clock,task-clock", 0, "unbalanced braces", NULL},
    {"cpu-clock}", 9, "unbalanced braces", NULL},
    {"{cpu-clock,task-clock}}", 22, "unbalanced braces", NULL},
    {"{}", 1, "empty group", NULL},
    {"{cpu-clock,{task-clock}}", 11, "nested", NULL},
    {"{cpu-clock}x", 11, "expected ',' or ':' after '}'", NULL},
    {"{cpu-clock}:uu", 12, "given twice", NULL},
    {"cpu-clock,,task-clock", 10, "missing event", NULL},
    {",cpu-clock", 0, "missing event", NULL},
    {"cpu-clock,", 10, "missing event", NULL},
    {"", 0, "missing event", NULL},
    {"software/config=1,period=/", 25, "missing value after 'period='", NULL},
    {"software/config=0x1:u", 8, "missing the closing '/'", NULL},
    {"software/config=1//", 18, "unexpected '/'", NULL},
    {"software/config=1,,name=x/", 18, "missing term", NULL},
    {"cpu-clock/config=abc/", 17, "expected numeric value", NULL},
    {"cpu-clock/config=-1/", 17, "bad number", NULL},
    {"cpu-clock/config=0xZZ/", 17, "bad number", NULL},
    {"cpu-clock/config=99999999999999999999/", 17, "out of range", NULL},
    {"cpu-clock/name/", 10, "expected string value", NULL},
    {"cpu-clock/name='abc/", 10, "unterminated quote", NULL},
    {"msr/tsc/:u", 8, "modifiers follow the closing '/'", NULL},
    {"r", 0, "unknown event", NULL},
    {"r0x3c", 0, "unknown event", NULL},
    {"r12345678123456789", 0, "out of range", NULL},
    {"L1-dcache-foo", 0, "unknown event", NULL},
    /* perf 6.1 refuses these without saying why */
    {"iTLB-stores", 5, "the iTLB cache has no store operation", NULL},
    {"L1-icache-stores", 10, "the L1-icache cache has no store operation", NULL},
    {"branch-prefetches", 7, "no prefetch operation", NULL},
    {"mem:", 4, "expected a breakpoint address", NULL},
    {"mem:0x1000/", 11, "expected a breakpoint length", NULL},
    {"mem:0x1000:rr", 12, "bad breakpoint type", NULL},
    {"mem:0x1000:x:q", 13, "bad modifier 'q'", NULL},
    /* perf accepts these; prec says why it does not */
    {"duration_time", 0, "perf stat tool event", NULL},
    {"cpu-clock:P", 10, "modifier 'P'", NULL},
    {"cpu-clock:W", 10, "modifier 'W' (weak group)", NULL},
    {"cpu-clock:b", 10, "modifier 'b'", NULL},
    {"cpu-clock/stack-size=65536/", 21, "stack-size=65536: the limit is 65528", NULL},
    {"cpu-clock/call-graph=xx/", 21, "unknown method", NULL},
    {"cpu-clock/overwrite/", 10, "term 'overwrite' (a backward ring buffer)", NULL},
    {"cpu-clock/nr=3/", 10, "term 'nr'", NULL},
    {"cpu-clock/aux-sample-size=4096/", 10, "No AUX area event to sample", NULL},
    {"cpu-clock/branch_type=foo/", 22, "unknown branch filter foo", NULL},
    /* perf's grammar takes inherit and no-inherit bare */
    {"cpu-clock/inherit=0/", 18, "'inherit' takes no value", NULL},
    {"cpu-clock/max-stack=x/", 20, "expected numeric value", NULL},
    {"cpu-clock/@cfg1/", 10, "driver config terms", NULL},
    /* the alternating-period terms need a value */
    {"cpu-clock/alt-period=0/", 21, "non-zero", NULL},
    {"cpu-clock/hf-period=x/", 20, "expected numeric value", NULL},
};

static const struct bad fixture_bad[] = {
    /* perf 6.1: unknown term 'cycles' for pmu 'msr' */
    {"msr/tsc,cycles/", 8, "unknown term 'cycles' for pmu 'msr'", "valid terms: event,config"},
    {"cpu/event=0x1ff/", 10, "value too big for format, maximum is 255", NULL},
    {"cpu/edge=2/", 9, "value too big for format, maximum is 1", NULL},
    {"amd_df/event=0x4000/", 13, "maximum is 16383", NULL},
    {"cpu/event=abc/", 10, "expected numeric value", NULL},
    {"cpu/cpu-cycles=2/", 4, "unknown term 'cpu-cycles' for pmu 'cpu'", "ldlat"},
    {"cpu/config3=1/", 4, "unknown term 'config3'", NULL},
    {"cpu/name/", 4, "expected string value", NULL},
    {"cpu/cycles,event=1/", 11, "cannot be combined with the generic event 'cycles'", NULL},
    /* perf 6.1 refuses it without a message */
    {"hv_24x7/CPM_ADJUNCT_INST/", 8, "required parameter 'core' not specified", NULL},
    {"nosuchpmu/event=1/", 0, "Cannot find PMU `nosuchpmu'", NULL},
    {"nosuchalias", 0, "unknown event 'nosuchalias'", NULL},
    {"uncore_nothing/event=1/", 0, "Cannot find PMU", NULL},
};

static void check_bad(const struct bad *b)
{
	struct event_list l = {0};
	struct parse_error err;
	char desc[300];
	int r;

	/* an event already in the list must stay as it was */
	r = parse_events(&l, "task-clock", &err);
	snprintf(desc, sizeof(desc), "-e '%s' refused at %d: %s", b->str, b->pos, b->msg);
	if (r) {
		ok(0, desc);
		diag("task-clock refused: %s", err.msg);
		return;
	}
	r = parse_events(&l, b->str, &err);
	if (r != -1 || err.pos != b->pos || !strstr(err.msg, b->msg) ||
	    (b->help && !strstr(err.help, b->help)) || l.nr != 1 ||
	    strcmp(l.ev[0].name, "task-clock")) {
		ok(0, desc);
		diag("got %d, at %d: '%s' help '%s', %d events", r, err.pos, err.msg, err.help,
		     l.nr);
	} else {
		ok(1, desc);
	}
	event_list_free(&l);
}

static int parse_ok(struct event_list *l, const char *str)
{
	struct parse_error err;

	if (parse_events(l, str, &err)) {
		diag("'%s' refused at %d: %s", str, err.pos, err.msg);
		return -1;
	}
	return 0;
}

static void test_groups(void)
{
	struct event_list l = {0};

	/* perf record -e '{cpu-clock,task-clock}:S' -vv: both members, one group, S on both */
	ok(parse_ok(&l, "{cpu-clock,task-clock}:S") == 0 && l.nr == 2, "{a,b}:S: two events");
	if (l.nr == 2) {
		is(l.ev[0].leader, 0, "{a,b}:S: the first leads");
		is(l.ev[1].leader, 0, "{a,b}:S: the second follows it");
		is(l.ev[0].group_size, 2, "{a,b}:S: group_size 2 on the leader");
		ok(l.ev[0].sample_read && l.ev[1].sample_read,
		   "{a,b}:S: sample_read (on every member, "
		   "as perf)");
		is_str(l.ev[0].name, "cpu-clock", "{a,b}:S: group modifiers are not in the names");
		is_str(l.ev[1].name, "task-clock", "{a,b}:S: second name");
		ok(!l.ev[0].group_name, "{a,b}: no group name");
	}
	event_list_free(&l);

	/* perf: '{cpu-clock,task-clock}:D' pins the leader only */
	if (parse_ok(&l, "{cpu-clock,task-clock}:D") == 0 && l.nr == 2)
		ok(l.ev[0].pinned && l.ev[0].attr.pinned && !l.ev[1].pinned && !l.ev[1].attr.pinned,
		   "{a,b}:D pins the leader only");
	else
		ok(0, "{a,b}:D parses");
	event_list_free(&l);

	/* perf: '{cpu-clock:k,task-clock}:u' gives exclude_hv on the first, KVG on the second */
	if (parse_ok(&l, "{cpu-clock:k,task-clock}:u") == 0 && l.nr == 2) {
		char a[8], b[8];

		excl_string(&l.ev[0].attr, a);
		excl_string(&l.ev[1].attr, b);
		is_str(a, "VG", "group modifiers add to a member's own (cpu-clock:k then :u)");
		is_str(b, "KVG", "group modifiers on a plain member");
		is_str(l.ev[0].name, "cpu-clock:k", "a member keeps its own modifiers in its name");
	} else {
		ok(0, "{cpu-clock:k,task-clock}:u parses");
	}
	event_list_free(&l);

	/* perf: '{cpu-clock:G,task-clock}:u': G on the member keeps u from excluding the guest */
	if (parse_ok(&l, "{cpu-clock:G,task-clock}:u") == 0 && l.nr == 2) {
		char a[8], b[8];

		excl_string(&l.ev[0].attr, a);
		excl_string(&l.ev[1].attr, b);
		is_str(a, "KVH", "a member's own G survives the group's u");
		is_str(b, "KVG", "the other member gets u's exclude_guest");
	} else {
		ok(0, "{cpu-clock:G,task-clock}:u parses");
	}
	event_list_free(&l);

	/* named groups: perf writes the name into GROUP_DESC */
	if (parse_ok(&l, "grp{cpu-clock,task-clock}") == 0 && l.nr == 2) {
		is_str(l.ev[0].group_name, "grp", "name{a,b}: the group's name on the leader");
		ok(!l.ev[1].group_name, "name{a,b}: not on the member");
		is_str(l.ev[0].name, "cpu-clock", "name{a,b}: member names unchanged");
	} else {
		ok(0, "grp{...} parses");
	}
	event_list_free(&l);

	/* a list mixing plain events and a group; modifiers stay with the group */
	if (parse_ok(&l, "cpu-clock,{task-clock,page-faults}:u,minor-faults") == 0 && l.nr == 4) {
		char a[8];

		ok(l.ev[0].leader == -1 && l.ev[3].leader == -1, "a,{b,c},d: a and d in no group");
		ok(l.ev[1].leader == 1 && l.ev[2].leader == 1 && l.ev[1].group_size == 2,
		   "a,{b,c},d: b leads c");
		excl_string(&l.ev[3].attr, a);
		is_str(a, "G", "a,{b,c}:u,d: d does not get the group's u");
		excl_string(&l.ev[2].attr, a);
		is_str(a, "KVG", "a,{b,c}:u,d: c does");
	} else {
		ok(0, "a,{b,c}:u,d parses");
	}
	event_list_free(&l);

	/* repeated -e: one call each, leader indexes are list indexes */
	if (parse_ok(&l, "cpu-clock") == 0 && parse_ok(&l, "{task-clock,page-faults}") == 0 &&
	    l.nr == 3) {
		ok(l.ev[1].leader == 1 && l.ev[2].leader == 1, "second -e: the leader index counts "
							       "the first -e's events");
		is(l.cmdline_start, 1, "cmdline_start: where the last call began");
		is_str(l.ev[0].name, "cpu-clock", "first -e kept");
	} else {
		ok(0, "two calls parse");
	}
	event_list_free(&l);

	if (parse_ok(&l, "{cpu-clock}") == 0 && l.nr == 1)
		ok(l.ev[0].leader == 0 && l.ev[0].group_size == 1, "{a}: a group of one");
	else
		ok(0, "{a} parses");
	event_list_free(&l);
}

static void test_terms(void)
{
	struct event_list l = {0};

	/* perf: period= sets sample_period without freq, freq= sets freq; the last one wins */
	if (parse_ok(&l, "cpu-clock/period=1000/,task-clock/freq=100/,"
			 "cpu-clock/period=5,freq=7/,cpu-clock/freq=7,period=5/") == 0 &&
	    l.nr == 4) {
		ok(l.ev[0].has_period && !l.ev[0].has_freq && l.ev[0].attr.sample_period == 1000 &&
		       !l.ev[0].attr.freq,
		   "period=1000");
		ok(l.ev[1].has_freq && !l.ev[1].has_period && l.ev[1].attr.sample_freq == 100 &&
		       l.ev[1].attr.freq,
		   "freq=100");
		ok(l.ev[2].has_freq && !l.ev[2].has_period && l.ev[2].attr.sample_freq == 7,
		   "period= then freq=: freq wins");
		ok(l.ev[3].has_period && !l.ev[3].has_freq && l.ev[3].attr.sample_period == 5 &&
		       !l.ev[3].attr.freq,
		   "freq= then period=: period wins");
	} else {
		ok(0, "period/freq terms parse");
	}
	event_list_free(&l);

	if (parse_ok(&l, "cpu-clock") == 0 && l.nr == 1)
		ok(!l.ev[0].has_period && !l.ev[0].has_freq && !l.ev[0].attr.sample_period,
		   "no term: the period is left to -c/-F");
	event_list_free(&l);

	/* the alternating-period patches' terms: parsed here, the opener checks the kernel */
	if (parse_ok(&l, "cpu-clock/period=10000,alt-period=500/,task-clock/hf-period=0x20/") ==
		0 &&
	    l.nr == 2) {
		ok(l.ev[0].has_alt_period && l.ev[0].alt_period == 500 && !l.ev[0].has_hf_period,
		   "alt-period=500");
		ok(l.ev[1].has_hf_period && l.ev[1].hf_period == 0x20 && !l.ev[1].has_alt_period,
		   "hf-period=0x20");
		is(l.ev[0].attr.sample_period, 10000, "alt-period leaves period= alone");
	} else {
		ok(0, "alt-period/hf-period parse");
	}
	event_list_free(&l);

	if (parse_ok(&l, "software/config=2/,cpu-clock") == 0 && l.nr == 2) {
		is_str(l.ev[0].pmu, "software", "a sysfs PMU event names its PMU");
		ok(!l.ev[1].pmu, "a generic event has no PMU name");
	}
	event_list_free(&l);

	/* bpf-output gets period 1 from perf's evsel__new_idx(), as tracepoints do */
	if (parse_ok(&l, "bpf-output") == 0 && l.nr == 1)
		ok(l.ev[0].attr.sample_period == 1 && !l.ev[0].has_period, "bpf-output: period 1");
	event_list_free(&l);
}

static void test_breakpoints(void)
{
	struct event_list l = {0};

	/* perf record -e 'mem:0x1000' -vv: bp_type 3, bp_len 4; ':x': bp_type 4, bp_len 8 */
	if (parse_ok(&l, "mem:0x1000,mem:0x1000:x,mem:4096/2:w") == 0 && l.nr == 3) {
		ok(l.ev[0].attr.bp_type == (HW_BREAKPOINT_R | HW_BREAKPOINT_W) &&
		       l.ev[0].attr.bp_len == 4 && l.ev[0].attr.sample_period == 1,
		   "mem:ADDR: rw, 4 bytes, period 1");
		ok(l.ev[1].attr.bp_type == HW_BREAKPOINT_X && l.ev[1].attr.bp_len == sizeof(long),
		   "mem:ADDR:x: execute, sizeof(long)");
		ok(l.ev[2].attr.bp_type == HW_BREAKPOINT_W && l.ev[2].attr.bp_len == 2 &&
		       l.ev[2].attr.bp_addr == 4096,
		   "mem:4096/2:w");
		ok(!l.ev[0].hardware, "breakpoints need no hardware PMU");
	} else {
		ok(0, "breakpoints parse");
	}
	event_list_free(&l);
}

/* The tracing directory as the parser will see it, or NULL. */
static const char *tracefs_events(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing/events",
					   "/sys/kernel/debug/tracing/events"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (access(dirs[i], R_OK | X_OK) == 0)
			return dirs[i];
	return NULL;
}

static long long tp_id(const char *events, const char *sys, const char *name)
{
	char path[512];
	long long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s/id", events, sys, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static void test_tracepoints(void)
{
	const char *events = tracefs_events();
	struct event_list l = {0};
	struct parse_error err;
	long long id;
	glob_t g;
	char pat[512];

	if (!events || (id = tp_id(events, "sched", "sched_switch")) < 0) {
		skip("tracepoints: sched:sched_switch",
		     "tracefs is not mounted or not readable "
		     "(mount -t tracefs nodev /sys/kernel/tracing)");
		return;
	}
	/* perf record -e sched:sched_switch -vv: type 2, config = the id, period 1 */
	if (parse_ok(&l, "sched:sched_switch") == 0 && l.nr == 1) {
		const struct event_spec *ev = &l.ev[0];

		ok(ev->attr.type == PERF_TYPE_TRACEPOINT && ev->attr.config == (__u64)id,
		   "sched:sched_switch: type 2, config = events/sched/sched_switch/id");
		ok(ev->attr.sample_period == 1 && !ev->has_period, "tracepoint: period 1, weakly");
		is_str(ev->name, "sched:sched_switch", "tracepoint name");
		ok(ev->tp_system && !strcmp(ev->tp_system, "sched") && ev->tp_event &&
		       !strcmp(ev->tp_event, "sched_switch") && !ev->pmu && !ev->hardware,
		   "tp_system, tp_event");
	} else {
		ok(0, "sched:sched_switch parses");
	}
	event_list_free(&l);

	/* perf stat -e sched:sched_switch:u names it sched:sched_switch; attr KVG */
	if (parse_ok(&l, "sched:sched_switch:u,sched:sched_switch:k,sched : sched_switch") == 0 &&
	    l.nr == 3) {
		char a[8], b[8];

		excl_string(&l.ev[0].attr, a);
		excl_string(&l.ev[1].attr, b);
		is_str(a, "KVG", "sched:sched_switch:u excludes kernel, hv and guest");
		is_str(b, "UV", "sched:sched_switch:k");
		ok(!strcmp(l.ev[0].name, "sched:sched_switch") &&
		       !strcmp(l.ev[2].name, "sched:sched_switch"),
		   "tracepoint names carry no modifiers or spaces");
	} else {
		ok(0, "tracepoints with modifiers parse");
	}
	event_list_free(&l);

	/* perf stat -e 'sched:sched_wak*' lists every match, each as sys:name */
	snprintf(pat, sizeof(pat), "%s/sched/sched_wak*/id", events);
	if (glob(pat, 0, NULL, &g) == 0) {
		bool names = true;

		if (parse_ok(&l, "sched:sched_wak*") == 0) {
			is(l.nr, g.gl_pathc, "sched:sched_wak*: one event per match");
			for (int i = 0; i < l.nr; i++)
				if (strncmp(l.ev[i].name, "sched:sched_wak", 15) ||
				    l.ev[i].attr.config !=
					(__u64)tp_id(events, "sched", l.ev[i].tp_event))
					names = false;
			ok(names, "sched:sched_wak*: names and ids of the matches");
		} else {
			ok(0, "sched:sched_wak* parses");
		}
		globfree(&g);
	} else {
		skip("sched:sched_wak*", "this kernel has no sched_wak* tracepoints");
	}
	event_list_free(&l);

	if (parse_ok(&l, "sch?d:sched_switch") == 0 && l.nr == 1)
		is_str(l.ev[0].name, "sched:sched_switch", "a wildcard in the system");
	else
		ok(0, "sch?d:sched_switch parses");
	event_list_free(&l);

	/* perf: "unknown tracepoint" and the file it looked for */
	ok(parse_events(&l, "sched:no_such_tracepoint", &err) == -1 && err.pos == 0 &&
	       strstr(err.msg, "unknown tracepoint") && strstr(err.help, "tracefs is mounted at"),
	   "sched:no_such_tracepoint: unknown, and tracefs is mounted");
	ok(parse_events(&l, "sched:no_such_*", &err) == -1 &&
	       strstr(err.msg, "no tracepoint matches"),
	   "a wildcard that matches nothing");
	ok(parse_events(&l, "sched:sched_switch/period=3/", &err) == -1 && err.pos == 19 &&
	       !strcmp(err.msg, "unknown term") && strstr(err.help, "call-graph,stack-size"),
	   "tracepoints take the config terms only, as perf: no period=");
	if (parse_ok(&l, "sched:sched_switch/max-stack=3,call-graph=fp,no-inherit/") == 0 &&
	    l.nr == 1) {
		const struct event_terms *c = &l.ev[0].terms;

		ok(c->max_stack == 3 && c->callgraph_set && c->callgraph && c->inherit_set &&
			   !c->inherit && !strcmp(l.ev[0].name, "sched:sched_switch"),
		   "a tracepoint keeps its config terms and its name");
	} else {
		ok(0, "sched:sched_switch/max-stack=3,.../ parses");
	}
	event_list_free(&l);
	ok(parse_events(&l, "sched:sched_switch/alt-period=3/", &err) == -1,
	   "no alt-period on tracepoints");

	/* parse_filter: on the last -e's tracepoints, joined with && as perf does */
	if (parse_ok(&l, "sched:sched_switch") == 0 && parse_ok(&l, "sched:sched_switch:k") == 0) {
		ok(parse_filter(&l, "prev_pid > 0") == 0 && !l.ev[0].filter && l.ev[1].filter &&
		       !strcmp(l.ev[1].filter, "prev_pid > 0"),
		   "--filter goes to the last -e only");
		ok(parse_filter(&l, "next_pid > 0") == 0 &&
		       !strcmp(l.ev[1].filter, "(prev_pid > 0) && (next_pid > 0)"),
		   "a second --filter is joined with &&");
	}
	if (parse_ok(&l, "cpu-clock") == 0)
		ok(parse_filter(&l, "x > 1") == -1 && !l.ev[l.nr - 1].filter,
		   "--filter after a non-tracepoint is refused");
	event_list_free(&l);
	ok(parse_filter(&l, "x > 1") == -1, "--filter with no -e is refused");

	/* tracefs not there: say so */
	setenv("PREC_TRACEFS_DIR", "/nonexistent-tracefs", 1);
	ok(parse_events(&l, "sched:sched_switch", &err) == -1 && strstr(err.msg, "not mounted") &&
	       strstr(err.help, "mount -t tracefs"),
	   "no tracefs: the message says it is not mounted");
	unsetenv("PREC_TRACEFS_DIR");
	event_list_free(&l);
}

static void test_fixture_lists(void)
{
	struct event_list l = {0};

	/* perf stat -e uncore_imc/cas_count_read/ opens it on uncore_imc_0 and uncore_imc_1 */
	if (parse_ok(&l, "uncore_imc/cas_count_read/") == 0 && l.nr == 2) {
		ok(l.ev[0].attr.type == 14 && l.ev[1].attr.type == 15 &&
		       l.ev[0].attr.config == 0x304 && l.ev[1].attr.config == 0x304,
		   "uncore_imc/...: both instances (in name order; perf uses readdir order)");
		ok(!strcmp(l.ev[0].name, "uncore_imc/cas_count_read/") &&
		       !strcmp(l.ev[1].pmu, "uncore_imc_1"),
		   "uncore_imc/...: names as typed, pmu per instance");
	} else {
		ok(0, "uncore_imc/cas_count_read/ gives two events");
	}
	event_list_free(&l);

	if (parse_ok(&l, "cas_count_read") == 0)
		is(l.nr, 2, "a bare alias: the event on every PMU that has it");
	event_list_free(&l);

	if (parse_ok(&l, "tsc,aperf") == 0 && l.nr == 2)
		ok(!strcmp(l.ev[1].name, "aperf") && l.ev[1].attr.config == 1 &&
		       !strcmp(l.ev[1].pmu, "msr"),
		   "bare aliases in a list");
	event_list_free(&l);

	if (parse_ok(&l, "{cpu/cpu-cycles/,cpu/instructions/}:S") == 0 && l.nr == 2)
		ok(l.ev[0].hardware && l.ev[1].hardware && l.ev[1].leader == 0 &&
		       l.ev[1].attr.config == 0xc0,
		   "a group of core PMU events");
	event_list_free(&l);

	/* the fixture has no sys:name tracepoints; the message must not blame the PMUs */
	{
		struct pmu *pmu = pmu_load("cpu", NULL, 0);
		const struct pmu_format *f = pmu ? pmu_find_format(pmu, "cmask") : NULL;

		ok(pmu && pmu->type == 4 && pmu->is_core && f && f->field == 0 &&
		       f->bits == 0xff000000ULL && pmu_format_max(f) == 255,
		   "pmu_load: the fixture's cpu PMU, cmask=config:24-31");
		ok(pmu && pmu_find_alias(pmu, "CPU-CYCLES") && !pmu_find_alias(pmu, "cycles"),
		   "pmu_find_alias ignores case; the fixture has no 'cycles' alias (as x86)");
		ok(pmu && pmu->nr_aliases == 14, "events/*.scale files are not aliases");
		pmu_free(pmu);
		pmu = pmu_load("amd_df", NULL, 0);
		f = pmu ? pmu_find_format(pmu, "event") : NULL;
		ok(f && pmu_format_spread(f, 0x3fff) == 0x1800000f000000ffULL && !pmu->is_core,
		   "pmu_format_spread over config:0-7,32-35,59-60");
		pmu_free(pmu);
		errno = 0;
		ok(!pmu_load("nosuchpmu", NULL, 0) && errno == ENOENT, "pmu_load: ENOENT");
	}
}

static void test_print_error(void)
{
	struct parse_error err;
	struct event_list l = {0};
	char buf[2048] = "";
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	if (!tmp) {
		skip("parse_events_print_error", "no tmpfile");
		return;
	}
	/* perf record -e 'software/foo=1/' and -e 'software/config=0x1,foo/' print the same */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	if (parse_events(&l, "software/foo=1/", &err) == -1)
		parse_events_print_error("software/foo=1/", &err);
	if (parse_events(&l, "software/config=0x1,foo/", &err) == -1)
		parse_events_print_error("software/config=0x1,foo/", &err);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	ok(strstr(buf, "event syntax error: 'software/foo=1/'\n"
		       "                              \\___ unknown term 'foo' for pmu 'software'\n"
		       "\nvalid terms: config,"),
	   "print_error: the string, the caret under 'foo', the help");
	ok(strstr(buf, "event syntax error: '..config=0x1,foo/'\n"
		       "                                  \\___ unknown term 'foo'"),
	   "print_error: a long string is cut in front with '..', as perf does");
	ok(strstr(buf, "Run 'perf list' for a list of valid events\n"), "print_error: the hint");
	if (!strstr(buf, "\\___"))
		diag("%s", buf);
}

static const char *fixture_root(void)
{
	static char path[4096];
	const char *src = getenv("PREC_SRC");
	const char *tries[] = {src, "..", "."};
	struct stat st;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (!tries[i])
			continue;
		snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs", tries[i]);
		if (stat(path, &st) == 0)
			return path;
	}
	return NULL;
}

/* perf's config terms: kept per event for the recorder (perf record -e ... -vv shows them). */
static void test_config_terms(void)
{
	struct event_list l = {0};
	unsigned long long mask = 0;
	const char *bad = NULL;

	if (parse_ok(&l, "cpu-clock/call-graph=fp,max-stack=4,period=12345,name=foo,no-inherit/") ==
		0 &&
	    l.nr == 1) {
		const struct event_spec *e = &l.ev[0];

		ok(e->terms.callgraph_set && e->terms.callgraph && e->terms.max_stack == 4 &&
			   e->terms.inherit_set && !e->terms.inherit && e->has_period &&
			   e->attr.sample_period == 12345 && !strcmp(e->name, "foo"),
		   "call-graph=fp,max-stack=4,period=,name=,no-inherit");
	} else {
		ok(0, "cpu-clock/call-graph=fp,.../ parses");
	}
	event_list_free(&l);
	if (parse_ok(&l, "cpu-clock/call-graph=dwarf,stack-size=100/,task-clock/call-graph=lbr/") ==
		0 &&
	    l.nr == 2) {
		const struct event_terms *c = &l.ev[0].terms, *d = &l.ev[1].terms;

		ok(c->callgraph_set && c->callgraph &&
			   c->callgraph_mode == RECORD_CALLGRAPH_DWARF && c->stack_size_set &&
			   c->stack_size == 104 && d->callgraph_set && d->callgraph &&
			   d->callgraph_mode == RECORD_CALLGRAPH_LBR,
		   "call-graph=dwarf,stack-size= (rounded up to 8), call-graph=lbr");
	} else {
		ok(0, "cpu-clock/call-graph=dwarf,.../ parses");
	}
	event_list_free(&l);
	if (parse_ok(&l, "cpu-clock/call-graph=no,time=0,inherit,stack-size=100,no-overwrite/") ==
		0 &&
	    l.nr == 1) {
		const struct event_terms *c = &l.ev[0].terms;

		ok(c->callgraph_set && !c->callgraph && c->time_set && !c->time && c->inherit_set &&
			   c->inherit && c->stack_size_set && !c->max_stack,
		   "call-graph=no,time=0,inherit,stack-size=,no-overwrite");
	} else {
		ok(0, "cpu-clock/call-graph=no,.../ parses");
	}
	event_list_free(&l);
	if (parse_ok(&l, "cpu-clock/branch_type=any_call,aux-output/") == 0 && l.nr == 1)
		ok(l.ev[0].terms.branch_set &&
			   l.ev[0].terms.branch_sample_type == PERF_SAMPLE_BRANCH_ANY_CALL &&
			   l.ev[0].terms.aux_output,
		   "branch_type= and aux-output");
	else
		ok(0, "cpu-clock/branch_type=any_call,aux-output/ parses");
	event_list_free(&l);

	/* perf's -j words; privilege levels alone mean any branch */
	ok(parse_branch_filter("any_call,u", &mask, &bad) == 0 &&
		   mask == (PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER),
	   "-j any_call,u");
	ok(parse_branch_filter("u,k", &mask, &bad) == 0 &&
		   mask == (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			    PERF_SAMPLE_BRANCH_KERNEL),
	   "-j u,k samples any branch");
	ok(parse_branch_filter("any,foo", &mask, &bad) == -EINVAL && bad && !strcmp(bad, "foo"),
	   "-j any,foo: foo is the bad word");
}

int main(void)
{
	const char *fix = fixture_root();
	struct event_list l = {0};
	struct parse_error err;

	unsetenv("PREC_SYSFS_ROOT");
	unsetenv("PREC_TRACEFS_DIR");
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		check(&generic[i]);
	for (size_t i = 0; i < sizeof(generic_bad) / sizeof(generic_bad[0]); i++)
		check_bad(&generic_bad[i]);
	test_groups();
	test_terms();
	test_breakpoints();
	test_tracepoints();
	test_config_terms();
	test_print_error();

	/* this machine's msr PMU, when it has one (perf record -a -e msr/tsc/ -vv: type 9) */
	if (access("/sys/bus/event_source/devices/msr/events/tsc", R_OK) == 0) {
		if (parse_ok(&l, "msr/tsc/u,tsc") == 0 && l.nr == 2)
			ok(l.ev[0].attr.type == l.ev[1].attr.type && l.ev[0].attr.type > 5 &&
			       !strcmp(l.ev[0].name, "msr/tsc/u") && !l.ev[0].hardware,
			   "the real msr PMU: msr/tsc/u and the bare alias tsc");
		else
			ok(0, "msr/tsc/u,tsc parses on this machine");
		event_list_free(&l);
	} else {
		skip("the real msr PMU", "this machine has no msr PMU");
	}

	if (!fix) {
		skip("fixture PMUs", "tests/fixtures/sysfs not found (set PREC_SRC)");
		return done_testing();
	}
	setenv("PREC_SYSFS_ROOT", fix, 1);
	for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++)
		check(&fixture[i]);
	for (size_t i = 0; i < sizeof(fixture_bad) / sizeof(fixture_bad[0]); i++)
		check_bad(&fixture_bad[i]);
	test_fixture_lists();

	/* no PMUs at all: generic events still parse, PMU events say the PMU is missing */
	setenv("PREC_SYSFS_ROOT", "/nonexistent-sysfs", 1);
	ok(parse_events(&l, "cpu/event=1/", &err) == -1 && strstr(err.msg, "Cannot find PMU `cpu'"),
	   "no sysfs: cpu/event=1/ has no PMU");
	ok(parse_events(&l, "cpu-clock:u,cycles", &err) == 0 && l.nr == 2,
	   "no sysfs: generic events still parse");
	event_list_free(&l);
	unsetenv("PREC_SYSFS_ROOT");
	return done_testing();
}
