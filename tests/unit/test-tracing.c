// SPDX-License-Identifier: GPL-2.0
/*
 * HEADER_TRACING_DATA: what pd_tracing_encode() writes must parse back with pd_tracing_parse(),
 * byte for byte as docs/perf-data-compat.md section 5 lays it out; the parser must refuse every
 * truncation and survive corruption; and the real perf must read a file that carries prec:overhead
 * next to a real tracepoint: perf script prints the fields by name, perf script -g python
 * generates prec__overhead(...) and perf script -s calls it with correctly typed values.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "format/internal.h"
#include "overhead/event.h"
#include "tests/tap.h"

#define SECOND_FORMAT                                                                             \
	"name: second\n"                                                                         \
	"ID: 65001\n"                                                                            \
	"format:\n"                                                                              \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"           \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                               \
	"\n"                                                                                     \
	"\tfield:u64 value;\toffset:8;\tsize:8;\tsigned:0;\n"                                    \
	"\n"                                                                                     \
	"print fmt: \"value=%llu\", REC->value\n"

static bool have_tracefs(void)
{
	return access("/sys/kernel/tracing/events/sched/sched_switch/format", R_OK) == 0;
}

/* The ID tracefs gives system:event, read without libtracefs. */
static long tracefs_id(const char *system, const char *event)
{
	char path[256];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", system, event);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static void test_roundtrip(void)
{
	struct pd_tracing *t = NULL;
	struct pd_buf b = PD_BUF_INIT;
	struct tep_handle *tep = NULL;
	struct tep_event *ev;
	size_t used = 0;
	u64 sw = 0, hr = 0, again = 0;
	u32 page;

	is(pd_tracing_new(&t), 0, "pd_tracing_new");
	is(pd_tracing_add_format(t, OVERHEAD_SYSTEM, overhead_event_format), 0,
	   "prec:overhead is accepted");
	if (have_tracefs()) {
		is(pd_tracing_add_tracefs_event(t, "sched", "sched_switch", &sw), 0,
		   "sched:sched_switch is copied from tracefs");
		is(sw, tracefs_id("sched", "sched_switch"), "with the ID tracefs gives it");
		is(pd_tracing_add_tracefs_event(t, "timer", "hrtimer_expire_entry", &hr), 0,
		   "timer:hrtimer_expire_entry too");
		is(pd_tracing_add_tracefs_event(t, "sched", "sched_switch", &again), 0,
		   "adding an event twice is fine");
		is(again, sw, "and gives the same ID");
	} else {
		skip("tracefs events", "no tracefs at /sys/kernel/tracing");
	}
	is(pd_tracing_add_format(t, OVERHEAD_SYSTEM, SECOND_FORMAT), 0,
	   "a second prec event goes into the same system");
	is(pd_tracing_encode(t, &b), 0, "pd_tracing_encode");

	/* The layout of section 5.1, byte by byte up to the header_page text. */
	ok(b.len > 40 && !memcmp(b.data, "\027\010\104tracing", 10), "it starts with the magic");
	ok(b.len > 40 && !memcmp(b.data + 10, "0.6", 4), "version \"0.6\"");
	ok(b.len > 40 && b.data[14] == 0 && b.data[15] == 8, "little-endian, long size 8");
	memcpy(&page, b.data + 16, 4);
	is(page, sysconf(_SC_PAGESIZE), "the page size");
	ok(b.len > 40 && !memcmp(b.data + 20, "header_page", 12), "then header_page");

	is(pd_tracing_parse(b.data, b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
	   "pd_tracing_parse reads it back");
	is(used, b.len, "and uses every byte");
	if (tep) {
		ev = tep_find_event(tep, OVERHEAD_EVENT_ID);
		ok(ev && !strcmp(ev->system, "prec") && !strcmp(ev->name, "overhead"),
		   "prec:overhead is there");
		ev = tep_find_event(tep, 65001);
		ok(ev && !strcmp(ev->system, "prec") && !strcmp(ev->name, "second"),
		   "prec:second is there");
		if (sw) {
			ev = tep_find_event(tep, (int)sw);
			ok(ev && !strcmp(ev->system, "sched") &&
				   !strcmp(ev->name, "sched_switch") &&
				   tep_find_field(ev, "next_pid"),
			   "sched:sched_switch is there with its fields");
			ev = tep_find_event(tep, (int)hr);
			ok(ev && !strcmp(ev->system, "timer"),
			   "timer:hrtimer_expire_entry is there");
		}
		is(tep_get_events_count(tep), sw ? 4 : 2, "each event once");
		is(tep_get_header_page_size(tep), sizeof(long), "header_page was parsed");
		ok(!tep_is_file_bigendian(tep), "the file is little-endian");
		tep_free(tep);
	}

	/* Trailing bytes (a pipe-mode record's padding) are not part of the payload. */
	{
		size_t len = b.len;

		pd_buf_append(&b, NULL, 16);
		is(pd_tracing_parse(b.data, b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
		   "trailing bytes are fine");
		is(used, len, "and not counted as used");
		tep_free(tep);
		b.len = len;
	}

	/* Every truncation fails cleanly (ASan watches the reads). */
	{
		size_t failed = 0;

		for (size_t n = 0; n < b.len; n++) {
			u8 *copy = malloc(n ? n : 1);

			memcpy(copy, b.data, n);
			failed += pd_tracing_parse(copy, n, PD_READER_TRACING_IN_CHILD, &tep,
						   &used) == -EINVAL &&
				  !tep && !used;
			free(copy);
		}
		is(failed, b.len, "every truncated payload is refused with -EINVAL");
	}

	/* Corruption anywhere in the fixed part and at the first format's size: no crash. */
	{
		size_t n = b.len < 400 ? b.len : 400, sane = 0;

		for (size_t i = 0; i < n; i++) {
			u8 saved = b.data[i];
			int ret;

			b.data[i] = i & 1 ? 0xff : 0x00;
			ret = pd_tracing_parse(b.data, b.len, PD_READER_TRACING_IN_CHILD, &tep,
					       &used);
			sane += (ret == 0 && tep && used <= b.len) || (ret == -EINVAL && !tep);
			if (tep)
				tep_free(tep);
			b.data[i] = saved;
		}
		is(sane, n, "corrupt bytes give a parse or -EINVAL, nothing else");
	}

	pd_buf_release(&b);
	pd_tracing_free(t);
}

static void test_add_errors(void)
{
	struct pd_tracing *t = NULL;
	char *fmt, *p;
	u64 id = 0;

	pd_tracing_new(&t);
	is(pd_tracing_add_format(t, "prec", "garbage"), -EINVAL, "a format that does not parse");
	is(pd_tracing_add_format(t, "prec", NULL), -EINVAL, "a NULL format");
	is(pd_tracing_add_format(t, "pr/ec", overhead_event_format), -EINVAL,
	   "a system name with a slash");
	is(pd_tracing_add_format(t, "prec", overhead_event_format), 0, "prec:overhead");
	fmt = strdup(overhead_event_format);
	p = strstr(fmt, "name: overhead");
	memcpy(p, "name: overheaX", 14);
	is(pd_tracing_add_format(t, "prec", fmt), -EEXIST, "another event with the same ID");
	free(fmt);
	fmt = strdup(SECOND_FORMAT);
	p = strstr(fmt, "65001");
	memcpy(p, "65535", 5);
	is(pd_tracing_add_format(t, "prec", fmt), -ERANGE,
	   "ID 65535 (perf's Python needs <= 65534)");
	free(fmt);
	fmt = strdup(SECOND_FORMAT);
	p = strstr(fmt, "offset:0;\tsize:2");
	memcpy(p, "offset:0;\tsize:4", 16);
	is(pd_tracing_add_format(t, "prec", fmt), -EINVAL, "common_type that is not a u16");
	free(fmt);
	/* libtraceevent 1.7 dereferences NULL on these (found by fuzzing): refused before. */
	fmt = realloc(strdup(SECOND_FORMAT), strlen(SECOND_FORMAT) + 64);
	p = strstr(fmt, "REC->value");
	strcpy(p, "__print_flags(REC->nosuch, \"|\", { 1, \"A\" })\n");
	is(pd_tracing_add_format(t, "prec", fmt), -EINVAL,
	   "__print_flags() of a field the format lacks");
	strcpy(p, "REC->value, REC -> nosuch\n");
	is(pd_tracing_add_format(t, "prec", fmt), -EINVAL, "REC-> of a field the format lacks");
	strcpy(p, "(REC)->value, \"REC->no\", 'x', REC->common_pid\n");
	p = strstr(fmt, "\"value=%llu\"");
	memcpy(p, "\"%llu%s%c%d\"", 12);
	is(pd_tracing_add_format(t, "prec", fmt), 0,
	   "REC-> in a string literal, and common fields, are fine");
	strcpy(strstr(fmt, "\tfield:u64 value"), "\tfield:char x[ \n");
	is(pd_tracing_add_format(t, "prec", fmt), -EINVAL, "a text that ends after a field's [");
	free(fmt);
	if (have_tracefs()) {
		is(pd_tracing_add_tracefs_event(t, "sched", "no_such_event", &id), -ENOENT,
		   "an event tracefs does not have");
		is(pd_tracing_add_tracefs_event(t, "..", "sched_switch", &id), -EINVAL,
		   "a path in the system name");
	} else {
		skip("tracefs errors", "no tracefs at /sys/kernel/tracing");
	}
	pd_tracing_free(t);
}

/* ---------------------------------------------------------------------------------------- */
/* Hand-built payloads: big-endian, printk formats, saved cmdlines, old versions. */

struct raw_writer {
	struct pd_buf b;
	bool big;
};

static void w_u32(struct raw_writer *w, u32 v)
{
	pd_buf_u32(&w->b, w->big ? __builtin_bswap32(v) : v);
}

static void w_u64(struct raw_writer *w, u64 v)
{
	pd_buf_u64(&w->b, w->big ? __builtin_bswap64(v) : v);
}

static void w_block(struct raw_writer *w, const char *text)
{
	w_u64(w, strlen(text));
	pd_buf_append(&w->b, text, strlen(text));
}

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static void build_with(struct raw_writer *w, bool big, const char *version, const char *format,
		       const char *printk, const char *cmdlines)
{
	w->big = big;
	pd_buf_append(&w->b, "\027\010\104tracing", 10);
	pd_buf_append(&w->b, version, strlen(version) + 1);
	pd_buf_append(&w->b, &(u8){ big }, 1);
	pd_buf_append(&w->b, &(u8){ 8 }, 1);
	w_u32(w, 4096);
	pd_buf_append(&w->b, "header_page", 12);
	w_block(w, header_page);
	pd_buf_append(&w->b, "header_event", 13);
	w_block(w, "");
	w_u32(w, 0);
	w_u32(w, 1);
	pd_buf_append(&w->b, "prec", 5);
	w_u32(w, 1);
	w_block(w, format);
	w_u32(w, 8);
	pd_buf_append(&w->b, "ffffffff", 8); /* kallsyms: skipped */
	w_u32(w, (u32)strlen(printk));
	pd_buf_append(&w->b, printk, strlen(printk));
	if (cmdlines)
		w_block(w, cmdlines);
}

static void build(struct raw_writer *w, bool big, const char *version, const char *printk,
		  const char *cmdlines)
{
	build_with(w, big, version, overhead_event_format, printk, cmdlines);
}

static void test_hand_built(void)
{
	struct raw_writer w = { PD_BUF_INIT, false };
	struct tep_handle *tep = NULL;
	size_t used = 0;

	build(&w, true, "0.6", "", "");
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
	   "a big-endian payload parses");
	is(used, w.b.len, "all of it");
	ok(tep && tep_is_file_bigendian(tep) && tep_find_event(tep, OVERHEAD_EVENT_ID),
	   "as big-endian, with its event");
	if (tep)
		tep_free(tep);
	pd_buf_release(&w.b);

	/* libtraceevent's own printk parser reads out of bounds on lines like these. */
	build(&w, false, "0.6",
	      "\n:\nffff\nffff : \nffff : \"\nffff : \"a\"\n"
	      "ffffffff81000010 : \"hello %d\\n\"\n",
	      "1 init\n2 kthreadd\nnot a line\n42\n");
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
	   "malformed printk and cmdline lines are skipped");
	is(used, w.b.len, "all of it");
	ok(tep && tep_data_comm_from_pid(tep, 2) &&
		   !strcmp(tep_data_comm_from_pid(tep, 2), "kthreadd"),
	   "saved cmdlines are registered");
	if (tep)
		tep_free(tep);
	pd_buf_release(&w.b);

	build(&w, false, "0.5", "", NULL);
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
	   "version 0.5 has no saved cmdlines block");
	is(used, w.b.len, "and ends after printk");
	if (tep)
		tep_free(tep);
	pd_buf_release(&w.b);

	build(&w, false, "0.6", "", "");
	w.b.data[14] = 2;
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), -EINVAL,
	   "endianness byte 2");
	w.b.data[14] = 0;
	w.b.data[15] = 3;
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), -EINVAL,
	   "long size 3");
	w.b.data[15] = 8;
	memset(w.b.data + 16, 0, 4);
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), -EINVAL,
	   "page size 0");
	pd_buf_release(&w.b);

	{
		struct raw_writer e = { PD_BUF_INIT, false };

		e.b.len = 0;
		pd_buf_append(&e.b, "\027\010\104tracing0.6\0\0\010", 16);
		w_u32(&e, 4096);
		pd_buf_append(&e.b, "header_page", 12);
		w_block(&e, "");
		is(pd_tracing_parse(e.b.data, e.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used),
		   -EINVAL, "an empty header_page is refused, as perf refuses it");
		pd_buf_release(&e.b);
	}
	is(pd_tracing_parse(NULL, 10, PD_READER_TRACING_IN_CHILD, &tep, &used), -EINVAL,
	   "NULL data");

	/* A file's format that would crash libtraceevent (found by fuzzing) is refused. */
	{
		char *fmt = realloc(strdup(SECOND_FORMAT), strlen(SECOND_FORMAT) + 64);

		strcpy(strstr(fmt, "REC->value"),
		       "__print_flags(REC->nosuch, \"|\", { 1, \"A\" })\n");
		build_with(&w, false, "0.6", fmt, "", "");
		is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used),
		   -EINVAL, "a print fmt with __print_flags(REC->nosuch) is refused");
		pd_buf_release(&w.b);
		/* libtraceevent folds constants: 1 / 0 is SIGFPE, caught in a child. */
		strcpy(strstr(fmt, "print fmt:"), "print fmt: \"%llu\", 1 / 0\n");
		build_with(&w, false, "0.6", fmt, "", "");
		is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used),
		   -EINVAL, "a format that kills libtraceevent (division by zero) is refused");
		pd_buf_release(&w.b);
		strcpy(strstr(fmt, "print fmt:"), "print fmt: \"%llu\", REC->value / (2 - 1)\n");
		build_with(&w, false, "0.6", fmt, "", "");
		is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
		   "while REC->value / (2 - 1) is fine");
		if (tep)
			tep_free(tep);
		pd_buf_release(&w.b);
		strcpy(strstr(fmt, "ID: 65001"), "ID: 65001\nformat:\n\tfield:char x[\x8d");
		build_with(&w, false, "0.6", fmt, "", "");
		is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, &used),
		   -EINVAL, "a format with a byte that is not text is refused");
		pd_buf_release(&w.b);
		free(fmt);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* The real perf reads HEADER_TRACING_DATA as perf-data-compat.md says. */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static bool have_perf(void)
{
	return system("perf version >/dev/null 2>&1") == 0;
}

/* Run sh -c "cd dir && cmd"; stdout and stderr go to dir/out and dir/err. Return: exit status. */
static int run(const char *dir, const char *cmd)
{
	char *line;
	int ret;

	if (asprintf(&line, "cd '%s' && { %s ; } >out 2>err", dir, cmd) < 0)
		return -1;
	ret = system(line);
	free(line);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : 128 + WTERMSIG(ret);
}

static char *dir_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path, NULL);
}

/* Bounds-checked read of the HEADER_TRACING_DATA section of a perf-written file. */
static const u8 *find_tracing_section(const u8 *file, size_t len, u64 *size)
{
	struct pd_file_header h;
	struct pd_file_section sec;
	u64 table;

	if (len < sizeof(h))
		return NULL;
	memcpy(&h, file, sizeof(h));
	table = h.data.offset + h.data.size;
	if (h.magic != PD_MAGIC || !(h.features[0] & (1ULL << PD_FEAT_TRACING_DATA)) ||
	    table > len || len - table < sizeof(sec))
		return NULL;
	memcpy(&sec, file + table, sizeof(sec)); /* bit 1 is the first set bit: entry 0 */
	if (sec.offset > len || sec.size > len - sec.offset)
		return NULL;
	*size = sec.size;
	return file + sec.offset;
}

static void test_perf_written(const char *dir)
{
	struct tep_handle *tep = NULL;
	size_t len = 0, used = 0;
	const u8 *sec;
	char *file, path[512];
	u64 size = 0;

	if (run(dir, "perf record -q -e sched:sched_switch -a -o rec.data -- sleep 0.1")) {
		skip("perf-written tracing data", "perf record -e sched:sched_switch failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/rec.data", dir);
	file = slurp(path, &len);
	sec = file ? find_tracing_section((const u8 *)file, len, &size) : NULL;
	ok(sec, "perf's file has a HEADER_TRACING_DATA section");
	if (!sec) {
		free(file);
		return;
	}
	is(pd_tracing_parse(sec, size, PD_READER_TRACING_IN_CHILD, &tep, &used), 0,
	   "pd_tracing_parse reads perf's payload");
	is(used, size, "and uses the whole section");
	ok(tep && tep_find_event(tep, (int)tracefs_id("sched", "sched_switch")),
	   "it has sched:sched_switch with the tracefs ID");
	if (tep)
		tep_free(tep);
	free(file);
}

/*
 * A perf.data file with two tracepoint attrs, sched:sched_switch (its format from tracefs) and
 * prec:overhead, one COMM and samples of each: these prec:overhead values.
 */
struct ovh_case {
	s32 cpu;
	const char *type;
	u64 nr, time_ns, span_ns;
	const char *source;
	u32 estimated;
	const char *reason;
};

static const struct ovh_case cases[] = {
	{ 0, "sample", 4000, 4123456, 1000000000, "bpf", 0, "" },
	{ 1, "stolen", 4000, 54400000, 1000000000, "calibration", 1,
	  "13.6 us per sample, calibrated" },
	{ -1, "recorder", 18446744073709551615ULL, 0, 1000000000, "rusage", 2,
	  "getrusage failed: Operation not permitted" },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))
#define SAMPLE_TYPE                                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define TEST_PID 4242

static struct pd_sample sample_of(u64 id, u64 time, u32 cpu, const void *raw, u32 raw_size)
{
	struct pd_sample s = { 0 };

	s.sample_type = SAMPLE_TYPE;
	s.misc = PERF_RECORD_MISC_USER;
	s.id = id;
	s.pid = s.tid = TEST_PID;
	s.time = time;
	s.cpu = cpu;
	s.period = 1;
	s.raw = raw;
	s.raw_size = raw_size;
	return s;
}

/*
 * Written with format/'s writer: one COMM, one sched_switch sample, then the prec:overhead
 * samples. The attrs have no names, so that perf names them from the tracing data.
 */
static int build_perf_file(const char *path, bool pipe)
{
	struct perf_event_attr attrs[2];
	u64 ids[2] = { 101, 102 };
	struct pd_tracing *t = NULL;
	struct pd_buf tracing = PD_BUF_INIT, data = PD_BUF_INIT, raw = PD_BUF_INIT;
	struct pd_writer *w = NULL;
	struct pd_sample s;
	u64 sw_id = 0, time = 1000000000ULL;
	int ret;

	if (pd_tracing_new(&t) ||
	    pd_tracing_add_format(t, OVERHEAD_SYSTEM, overhead_event_format) ||
	    pd_tracing_add_tracefs_event(t, "sched", "sched_switch", &sw_id) ||
	    pd_tracing_encode(t, &tracing)) {
		pd_tracing_free(t);
		return -1;
	}
	pd_tracing_free(t);

	memset(attrs, 0, sizeof(attrs));
	for (int i = 0; i < 2; i++) {
		attrs[i].type = PERF_TYPE_TRACEPOINT;
		attrs[i].size = PD_ATTR_SIZE;
		attrs[i].config = i ? OVERHEAD_EVENT_ID : sw_id;
		attrs[i].sample_period = 1;
		attrs[i].sample_type = SAMPLE_TYPE;
		attrs[i].read_format = PERF_FORMAT_ID;
		attrs[i].sample_id_all = 1;
		attrs[i].exclude_kernel = 1;
	}
	ret = pd_writer_open(&w, path, pipe ? PD_WRITER_PIPE : 0);
	for (int i = 0; !ret && i < 2; i++)
		ret = pd_writer_add_attr(w, &attrs[i], NULL, &ids[i], 1) < 0;
	if (!ret)
		ret = pd_writer_set_feature(w, PD_FEAT_TRACING_DATA, tracing.data, tracing.len);
	if (!ret)
		ret = pd_writer_begin(w);

	s = sample_of(ids[0], time, 0, NULL, 0);
	if (!ret)
		ret = pd_encode_comm(&data, &attrs[0], TEST_PID, TEST_PID, "prec-test", false, &s);
	/* One sched_switch, laid out by the tracefs format: prec-test/4242 to swapper/0/0. */
	{
		u8 sw[64] = { 0 };
		u16 type = (u16)sw_id;
		s32 prev_pid = TEST_PID, prio = 120;
		s64 state = 1;

		memcpy(sw, &type, 2);
		memcpy(sw + 4, &prev_pid, 4);
		memcpy(sw + 8, "prec-test", 9);
		memcpy(sw + 24, &prev_pid, 4);
		memcpy(sw + 28, &prio, 4);
		memcpy(sw + 32, &state, 8);
		memcpy(sw + 40, "swapper/0", 9);
		memcpy(sw + 60, &prio, 4);
		s = sample_of(ids[0], time + 1000, 0, sw, sizeof(sw));
		if (!ret)
			ret = pd_encode_sample(&data, &attrs[0], &s);
	}
	for (size_t i = 0; !ret && i < NR_CASES; i++) {
		const struct ovh_case *c = &cases[i];
		struct overhead_record r = { c->cpu, c->type, c->nr, c->time_ns, c->span_ns,
					     c->source, c->estimated, c->reason };

		pd_buf_reset(&raw);
		ret = overhead_record_encode(&raw, TEST_PID, &r);
		s = sample_of(ids[1], time + 2000 + i, c->cpu < 0 ? 0 : (u32)c->cpu, raw.data,
			      (u32)raw.len);
		if (!ret)
			ret = pd_encode_sample(&data, &attrs[1], &s);
	}
	if (!ret)
		ret = data.err ? data.err : pd_writer_write(w, data.data, data.len);
	if (w && !ret)
		ret = pd_writer_close(w);
	else if (w)
		pd_writer_abort(w);
	pd_buf_release(&raw);
	pd_buf_release(&data);
	pd_buf_release(&tracing);
	return ret;
}

static const char check_py[] =
	"def _t(v):\n"
	"    return v.__class__.__name__\n"
	"\n"
	"def prec__overhead(event_name, context, common_cpu, common_secs, common_nsecs,\n"
	"        common_pid, common_comm, common_callchain, cpu, type, nr, time_ns, span_ns,\n"
	"        source, estimated, reason, perf_sample_dict):\n"
	"    vals = (cpu, type, nr, time_ns, span_ns, source, estimated, reason)\n"
	"    print('OVH pid=%d comm=%s time=%d ' % (common_pid, common_comm,\n"
	"          perf_sample_dict['sample']['time']) +\n"
	"          ' '.join('%r:%s' % (v, _t(v)) for v in vals))\n"
	"\n"
	"def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs,\n"
	"        common_pid, common_comm, common_callchain, prev_comm, prev_pid, prev_prio,\n"
	"        prev_state, next_comm, next_pid, next_prio, perf_sample_dict):\n"
	"    print('SW %r %r %r' % (prev_comm, prev_pid, next_comm))\n"
	"\n"
	"def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):\n"
	"    print('UNHANDLED ' + event_name)\n";

/* What check_py prints for case i. */
static void py_line(char *out, size_t size, size_t i)
{
	const struct ovh_case *c = &cases[i];

	snprintf(out, size,
		 "OVH pid=%d comm=prec-test time=%llu %d:int '%s':str %llu:int %llu:int %llu:int "
		 "'%s':str %u:int '%s':str",
		 TEST_PID, 1000000000ULL + 2000 + i, c->cpu, c->type, (unsigned long long)c->nr,
		 (unsigned long long)c->time_ns, (unsigned long long)c->span_ns, c->source,
		 c->estimated, c->reason);
}

/* Collapse runs of white space into one space, so that perf's line wrapping does not matter. */
static void squeeze(char *s)
{
	char *d = s;
	bool space = false;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			space = true;
			continue;
		}
		if (space)
			*d++ = ' ';
		space = false;
		*d++ = *s;
	}
	*d = '\0';
}

/* perf script's text: every prec:overhead field by name, and the real tracepoint. */
static void check_script_text(const char *dir, const char *mode)
{
	char want[512], desc[160], *out = dir_file(dir, "out"), *err = dir_file(dir, "err");
	bool all = out != NULL;

	snprintf(desc, sizeof(desc), "%s: with nothing on stderr", mode);
	ok(err && !*err, desc);
	if (err && *err)
		diag("stderr: %s", err);
	for (size_t i = 0; out && i < NR_CASES; i++) {
		const struct ovh_case *c = &cases[i];

		snprintf(want, sizeof(want),
			 "prec:overhead: cpu=%d type=%s nr=%llu time_ns=%llu span_ns=%llu "
			 "source=%s estimated=%u reason=%s\n",
			 c->cpu, c->type, (unsigned long long)c->nr, (unsigned long long)c->time_ns,
			 (unsigned long long)c->span_ns, c->source, c->estimated, c->reason);
		if (!strstr(out, want)) {
			diag("missing: %s", want);
			all = false;
		}
	}
	snprintf(desc, sizeof(desc), "%s: perf script prints every prec:overhead field by name",
		 mode);
	ok(all, desc);
	snprintf(desc, sizeof(desc), "%s: and the real tracepoint with its tracefs format", mode);
	ok(out && strstr(out, "sched:sched_switch: prev_comm=prec-test prev_pid=4242") &&
		   strstr(out, "next_comm=swapper/0"),
	   desc);
	if (out && !all)
		diag("stdout: %s", out);
	free(out);
	free(err);
}

/* What check.py printed: every prec__overhead() argument with its value and Python type. */
static void check_python(const char *dir, const char *mode)
{
	char want[512], desc[160], *out = dir_file(dir, "out"), *err = dir_file(dir, "err");
	bool all = out != NULL;

	snprintf(desc, sizeof(desc), "%s: with nothing on stderr", mode);
	ok(err && !*err, desc);
	if (err && *err)
		diag("stderr: %s", err);
	for (size_t i = 0; out && i < NR_CASES; i++) {
		py_line(want, sizeof(want), i);
		strcat(want, "\n");
		if (!strstr(out, want)) {
			diag("missing: %s", want);
			all = false;
		}
	}
	snprintf(desc, sizeof(desc),
		 "%s: prec__overhead() gets every field with its value and Python type", mode);
	ok(all, desc);
	snprintf(desc, sizeof(desc), "%s: sched__sched_switch() gets the real tracepoint's fields",
		 mode);
	ok(out && strstr(out, "SW 'prec-test' 4242 'swapper/0'\n"), desc);
	snprintf(desc, sizeof(desc), "%s: nothing falls to trace_unhandled()", mode);
	ok(out && !strstr(out, "UNHANDLED"), desc);
	if (out && !all)
		diag("stdout: %s", out);
	free(out);
	free(err);
}

static void test_perf_reads(const char *dir)
{
	char path[512], *out, *err, *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/check.py", dir);
	f = fopen(path, "w");
	if (f) {
		fputs(check_py, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/ovh.data", dir);
	is(build_perf_file(path, false), 0,
	   "format/ writes a file with prec:overhead and sched:sched_switch");

	/* perf evlist adds a "# Tip: ..." line; only the event lines count. */
	is(run(dir, "perf evlist -i ovh.data | grep -v '^#'"), 0, "perf evlist reads it");
	out = dir_file(dir, "out");
	err = dir_file(dir, "err");
	ok(out && !strcmp(out, "sched:sched_switch\nprec:overhead\n") && err && !*err,
	   "and names both events from the tracing data, with nothing on stderr");
	if (out && err && (strcmp(out, "sched:sched_switch\nprec:overhead\n") || *err))
		diag("stdout: %s stderr: %s", out, err);
	free(out);
	free(err);

	is(run(dir, "perf script -i ovh.data"), 0, "perf script reads it");
	check_script_text(dir, "file");

	is(run(dir, "perf report -i ovh.data --stdio"), 0, "perf report reads it");
	out = dir_file(dir, "out");
	err = dir_file(dir, "err");
	ok(out && strstr(out, "of event 'prec:overhead'") && strstr(out, "Samples: 3 ") && err &&
		   !*err,
	   "and counts the 3 prec:overhead samples, with nothing on stderr");
	if (out && err && (!strstr(out, "Samples: 3 ") || *err))
		diag("stdout: %s stderr: %s", out, err);
	free(out);
	free(err);

	is(run(dir, "perf script -i ovh.data -g python"), 0, "perf script -g python");
	out = dir_file(dir, "perf-script.py");
	p = out ? strstr(out, "def prec__overhead(") : NULL;
	if (p) {
		char *end = strstr(p, "):");

		if (end)
			end[2] = '\0';
		squeeze(p);
	}
	is_str(p,
	       "def prec__overhead(event_name, context, common_cpu, common_secs, common_nsecs, "
	       "common_pid, common_comm, common_callchain, cpu, type, nr, time_ns, span_ns, "
	       "source, estimated, reason, perf_sample_dict):",
	       "it generates prec__overhead() with the fields in order");
	free(out);
	is(run(dir, "perf script -i ovh.data -s perf-script.py"), 0,
	   "the generated script runs");
	err = dir_file(dir, "err");
	ok(err && !*err, "with nothing on stderr");
	free(err);

	is(run(dir, "perf script -i ovh.data -s check.py"), 0, "perf script -s check.py");
	check_python(dir, "file");

	/* Pipe mode: the tracing data is a HEADER_TRACING_DATA record followed by the payload. */
	snprintf(path, sizeof(path), "%s/ovh-pipe.data", dir);
	is(build_perf_file(path, true), 0, "the same in pipe mode");
	is(run(dir, "cat ovh-pipe.data | perf script -i -"), 0, "pipe: perf script reads it");
	check_script_text(dir, "pipe");
	is(run(dir, "cat ovh-pipe.data | perf script -i - -s check.py"), 0,
	   "pipe: perf script -s check.py");
	check_python(dir, "pipe");
}

/* A format of n fields whose print fmt names them all, the last field first. */
static void many_fields_format(struct pd_buf *fmt, int n)
{
	char line[128];
	int len;

	pd_buf_reset(fmt);
	len = snprintf(line, sizeof(line), "name: wide\nID: %d\nformat:\n", OVERHEAD_EVENT_ID);
	pd_buf_append(fmt, line, (size_t)len);
	for (int i = 0; i < n; i++) {
		len = snprintf(line, sizeof(line),
			       "\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n", i, 8 + 4 * i);
		pd_buf_append(fmt, line, (size_t)len);
	}
	pd_buf_append(fmt, "\nprint fmt: \"%d\"", 16);
	/* the fields in reverse order, so that no scan from the start finds them early */
	for (int i = n - 1; i >= 0; i--) {
		len = snprintf(line, sizeof(line), ", REC->f%d", i);
		pd_buf_append(fmt, line, (size_t)len);
	}
	pd_buf_append(fmt, "\n", 2); /* with the NUL build_with() wants */
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * The CPU time of parsing the tracing data of a format of n fields (the best of three, in this
 * process: no child), or -1 when it does not parse.
 */
static double many_fields_cost(int n)
{
	struct pd_buf fmt = PD_BUF_INIT;
	struct raw_writer w = { PD_BUF_INIT, false };
	double best = -1;

	many_fields_format(&fmt, n);
	build_with(&w, false, "0.6", (const char *)fmt.data, "", "");
	for (int i = 0; i < 3; i++) {
		struct tep_handle *tep = NULL;
		double t = cpu_seconds();
		int ret = pd_tracing_parse(w.b.data, w.b.len, 0, &tep, NULL);

		t = cpu_seconds() - t;
		if (tep)
			tep_free(tep);
		if (ret) {
			best = -1;
			break;
		}
		if (best < 0 || t < best)
			best = t;
	}
	pd_buf_release(&w.b);
	pd_buf_release(&fmt);
	return best;
}

/*
 * A format of n fields whose print fmt names them all: every REC-> reference is checked against
 * the declared fields before libtraceevent sees the text, once per name and not per field, or a
 * 1 MB format takes seconds (and a hostile one far longer). Comparing each reference with each
 * field would be n * n / 2 steps, 200 million for 20000 fields, and four times the fields would
 * cost sixteen times the time instead of about four: the test measures that ratio, in CPU time,
 * which the load of the machine changes far less than the time itself.
 */
static void test_many_fields(void)
{
	struct pd_buf fmt = PD_BUF_INIT;
	struct raw_writer w = { PD_BUF_INIT, false };
	struct tep_handle *tep = NULL;
	double small, big;

	small = many_fields_cost(5000);
	big = many_fields_cost(20000);
	ok(small >= 0 && big >= 0,
	   "a format of 20000 fields, every one named in its print fmt, parses");
	ok(big >= 0 && small >= 0 && big < 8 * small + 0.05,
	   "checking its REC-> references takes time in proportion to its length");
	diag("%.3f s of CPU for 5000 fields, %.3f s for 20000", small, big);

	/* one reference to a field that is not there is still found */
	many_fields_format(&fmt, 20000);
	memcpy(strstr((char *)fmt.data, "REC->f7,"), "REC->g7", 7);
	build_with(&w, false, "0.6", (const char *)fmt.data, "", "");
	is(pd_tracing_parse(w.b.data, w.b.len, 0, &tep, NULL), -EINVAL,
	   "and one reference to a field it does not declare is refused");
	pd_buf_release(&w.b);
	pd_buf_release(&fmt);
}

/*
 * Parsing in a child is the caller's choice: with PD_READER_TRACING_IN_CHILD there is one child
 * per parse, without it none (SIGCHLD counts them).
 */
static volatile sig_atomic_t children;

static void count_child(int sig)
{
	children++;
}

static void test_child_is_optional(void)
{
	struct sigaction sa = { .sa_handler = count_child, .sa_flags = SA_RESTART }, old;
	struct raw_writer w = { PD_BUF_INIT, false };
	struct tep_handle *tep = NULL;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old);
	build(&w, false, "0.6", "", "");
	children = 0;
	is(pd_tracing_parse(w.b.data, w.b.len, 0, &tep, NULL), 0, "a payload parses without a child");
	is(children, 0, "and no child process was started");
	if (tep)
		tep_free(tep);
	tep = NULL;
	children = 0;
	is(pd_tracing_parse(w.b.data, w.b.len, PD_READER_TRACING_IN_CHILD, &tep, NULL), 0,
	   "it parses with PD_READER_TRACING_IN_CHILD");
	is(children, 1, "after one child parsed it first");
	if (tep)
		tep_free(tep);
	sigaction(SIGCHLD, &old, NULL);
	pd_buf_release(&w.b);
}

int main(void)
{
	char dir[] = "/tmp/prec-test-tracing.XXXXXX";

	test_roundtrip();
	test_add_errors();
	test_hand_built();
	test_many_fields();
	test_child_is_optional();

	if (!have_perf() || !have_tracefs() || !mkdtemp(dir)) {
		skip("perf reads the tracing data",
		     "needs perf, tracefs and a temporary directory");
		return done_testing();
	}
	if (geteuid() == 0)
		test_perf_written(dir);
	else
		skip("perf-written tracing data", "perf record -a needs root");
	test_perf_reads(dir);
	if (!getenv("PREC_KEEP")) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	} else {
		diag("kept %s", dir);
	}
	return done_testing();
}
