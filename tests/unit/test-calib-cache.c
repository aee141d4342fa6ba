// SPDX-License-Identifier: GPL-2.0
/*
 * overhead/calib-cache: what one recording measured, the next one of the same boot and event
 * gets back, unchanged; nothing of another boot, too old, with a caveat, or damaged.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "overhead/calib-cache.h"
#include "tests/tap.h"

#define BOOT "c082efb6-40be-4389-9562-c4d8f6214130"
#define S 1000000000ULL

static char dir[] = "/tmp/test-calib-cache.XXXXXX";
static char path[256];

static struct overhead_calib calib(int cpu, double ns)
{
	struct overhead_calib c;

	memset(&c, 0, sizeof(c));
	c.cpu = cpu;
	c.ns = ns;
	c.min_ns = ns - 100;
	c.max_ns = ns + 250.5;
	c.runs = 7;
	c.rejected = 1;
	c.units = 700;
	c.loop_ns = 24.125;
	c.gap_ns = 500;
	c.handler_ns = 1010.25;
	c.elapsed_ns = 350 * 1000000ULL;
	return c;
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static int count_lines(void)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(void)
{
	struct overhead_calib a = calib(0, 16432.5), b = calib(1, 15100.25), got;
	struct perf_event_attr attr;
	struct calib_cache *cc;
	char key[160], key_g[160], sub[2048];
	u64 age = 0;

	if (!mkdtemp(dir)) {
		diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	/* The directories on the way are made. */
	snprintf(path, sizeof(path), "%s/sub/prec/calibration", dir);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 250000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	calib_cache_key(&attr, key, sizeof(key));
	attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	calib_cache_key(&attr, key_g, sizeof(key_g));
	ok(strcmp(key, key_g) && !strchr(key, ' '), "the key is one word, and -g changes it");
	attr.sample_period = 50000;
	calib_cache_key(&attr, sub, sizeof(sub));
	ok(strcmp(sub, key_g), "so does the rate");
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	calib_cache_key(&attr, key_g, sizeof(key_g));
	attr.sample_period = 1000;
	calib_cache_key(&attr, sub, sizeof(sub));
	ok(strcmp(sub, key_g), "and -c of a hardware event, whose rate the attr does not give");
	attr.config1 = 3;
	calib_cache_key(&attr, key_g, sizeof(key_g));
	ok(strcmp(sub, key_g), "and config1");
	attr.config1 = 0;
	attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr.sample_regs_user = 0xff0fff;
	attr.sample_stack_user = 8192;
	calib_cache_key(&attr, key_g, sizeof(key_g));
	attr.sample_stack_user = 65528;
	calib_cache_key(&attr, sub, sizeof(sub));
	ok(strcmp(sub, key_g) && !strchr(sub, ' '), "and the size of a dwarf stack copy");
	attr.sample_type &= ~(u64)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	attr.sample_regs_user = 0;
	attr.sample_stack_user = 0;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 250000;
	attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	calib_cache_key(&attr, key_g, sizeof(key_g));

	cc = calib_cache_open_at(path, BOOT, 100 * S);
	ok(cc && !calib_cache_get(cc, "stolen", key, 0, &got, &age), "no file: an empty cache");
	calib_cache_put(cc, "stolen", key, &a);
	calib_cache_put(cc, "stolen", key, &b);
	ok(calib_cache_save(cc) == 0 && count_lines() == 3, "saved: the magic line and two CPUs");
	calib_cache_close(cc);

	cc = calib_cache_open_at(path, BOOT, 130 * S);
	ok(calib_cache_get(cc, "stolen", key, 1, &got, &age), "the next recording finds CPU 1");
	ok(got.cpu == 1 && got.ns == b.ns && got.min_ns == b.min_ns && got.max_ns == b.max_ns &&
	       got.runs == 7 && got.rejected == 1 && got.units == 700 && got.loop_ns == b.loop_ns &&
	       got.gap_ns == 500 && got.handler_ns == b.handler_ns && !got.err && !got.reason[0],
	   "... with every figure as measured");
	is(age, 30 * S, "... and its age");
	ok(!calib_cache_get(cc, "stolen", key_g, 1, &got, &age), "another event: not found");
	ok(!calib_cache_get(cc, "collector-tracepoint", key, 1, &got, &age),
	   "another kind: not found");
	ok(!calib_cache_get(cc, "stolen", key, 2, &got, &age), "another CPU: not found");
	calib_cache_close(cc);

	cc = calib_cache_open_at(path, BOOT, 100 * S + OVERHEAD_CALIB_CACHE_MAX_AGE_NS + 1);
	ok(!calib_cache_get(cc, "stolen", key, 0, &got, &age), "older than the limit: not used");
	calib_cache_close(cc);
	cc = calib_cache_open_at(path, BOOT, 50 * S);
	ok(!calib_cache_get(cc, "stolen", key, 0, &got, &age), "from the future: not used");
	calib_cache_close(cc);

	cc = calib_cache_open_at(path, "another-boot", 130 * S);
	ok(!calib_cache_get(cc, "stolen", key, 0, &got, &age), "another boot: not used");
	calib_cache_put(cc, "stolen", key, &a);
	ok(calib_cache_save(cc) == 0 && count_lines() == 2,
	   "... and its lines are dropped when the file is written");
	calib_cache_close(cc);

	/* Figures with a caveat, failures and bad words are not kept. */
	cc = calib_cache_open_at(path, BOOT, 200 * S);
	got = calib(0, 1000);
	snprintf(got.reason, sizeof(got.reason), "no SCHED_FIFO");
	calib_cache_put(cc, "stolen", key, &got);
	got = calib(1, 1000);
	got.err = -EPERM;
	calib_cache_put(cc, "stolen", key, &got);
	got = calib(0, 1000);
	calib_cache_put(cc, "sto len", key, &got);
	got.runs = 0;
	calib_cache_put(cc, "stolen", key_g, &got);
	ok(!calib_cache_get(cc, "stolen", key, 0, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 1, &got, &age) &&
	       !calib_cache_get(cc, "sto len", key, 0, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key_g, 0, &got, &age),
	   "a caveat, an error, a word with a space, no runs: none kept");
	calib_cache_close(cc);

	/* A damaged file: the good lines are used, the rest is gone at the next save. */
	snprintf(sub, sizeof(sub),
		 "prec-calibration 1\n"
		 BOOT " stolen %s 0 100000000000 900.000 800.000 1000.000 7 0 700 24.0 500 0.0\n"
		 BOOT " stolen %s 1 100000000000 900.000 950.000 1000.000 7 0 700 24.0 500 0.0\n"
		 BOOT " stolen %s 2 100000000000 900.000 800.000 1000.000 7 0 700 24.0 500\n"
		 BOOT " stolen %s 3 100000000000 nan nan nan 7 0 700 24.0 500 0.0\n"
		 "garbage\n",
		 key, key, key, key);
	write_file(sub);
	cc = calib_cache_open_at(path, BOOT, 130 * S);
	ok(calib_cache_get(cc, "stolen", key, 0, &got, &age) && got.ns == 900,
	   "a damaged file: its good line is used");
	ok(!calib_cache_get(cc, "stolen", key, 1, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 2, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 3, &got, &age),
	   "... not a median outside its spread, a short line, NaN");
	ok(calib_cache_save(cc) == 0 && count_lines() == 2, "... and the others are dropped");
	calib_cache_close(cc);

	/* Figures no calibration gives: infinite, NaN, beyond a day, negative loops, 99 runs. */
	snprintf(sub, sizeof(sub),
		 "prec-calibration 1\n"
		 BOOT " stolen %s 0 100000000000 inf 800.000 inf 7 0 700 24.0 500 0.0\n"
		 BOOT " stolen %s 1 100000000000 900.000 800.000 1000.000 7 0 700 24.0 500 nan\n"
		 BOOT " stolen %s 2 100000000000 9e15 8e15 1e16 7 0 700 24.0 500 0.0\n"
		 BOOT " stolen %s 3 100000000000 900.000 800.000 1000.000 7 0 700 -1.0 500 0.0\n"
		 BOOT " stolen %s 4 100000000000 900.000 800.000 1000.000 99 0 700 24.0 500 0.0\n"
		 BOOT " stolen %s 5 100000000000 -50.000 -60.000 -40.000 7 0 700 24.0 500 0.0\n",
		 key, key, key, key, key, key);
	write_file(sub);
	cc = calib_cache_open_at(path, BOOT, 130 * S);
	ok(!calib_cache_get(cc, "stolen", key, 0, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 1, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 2, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 3, &got, &age) &&
	       !calib_cache_get(cc, "stolen", key, 4, &got, &age),
	   "inf, NaN, beyond a day, a negative loop, 99 runs: not used");
	ok(calib_cache_get(cc, "stolen", key, 5, &got, &age) && got.ns == -50,
	   "... a negative figure is (the collector's cost may be below zero)");
	calib_cache_close(cc);

	write_file("prec-calibration 2\n" BOOT " stolen x 0 1 1 1 1 7 0 1 1 1 1\n");
	cc = calib_cache_open_at(path, BOOT, 130 * S);
	ok(cc && !calib_cache_get(cc, "stolen", "x", 0, &got, &age),
	   "another layout's file: empty");
	calib_cache_close(cc);

	/* Nowhere to write: an error from save, nothing else. */
	snprintf(path, sizeof(path), "/proc/version/prec/calibration");
	cc = calib_cache_open_at(path, BOOT, 130 * S);
	calib_cache_put(cc, "stolen", key, &a);
	ok(cc && calib_cache_save(cc) < 0, "a path that cannot be written: save says so");
	calib_cache_close(cc);
	ok(!calib_cache_open_at(path, "", 1) && !calib_cache_open_at(NULL, BOOT, 1),
	   "no boot id, no path: no cache");

	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	if (system(sub))
		diag("cannot remove %s", dir);
	return done_testing();
}
