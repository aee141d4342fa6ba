// SPDX-License-Identifier: GPL-2.0
/*
 * util/kallsyms and util/build-id on built inputs: kallsyms lines of every shape (module
 * symbols, lines that are not symbols, a last line without a newline, one longer than the
 * reader's buffer, symbols across the reader's read boundaries), walks that stop early; and
 * notes blobs with the build-id first, after another note, cut short, or absent.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/build-id.h"
#include "util/kallsyms.h"
#include "tests/tap.h"

struct seen {
	int nr, modules, stop_at;
	u64 last_addr;
	char last_type;
	char last_name[600], last_mod[64];
};

static int count(const struct kallsyms_sym *s, void *arg)
{
	struct seen *v = arg;

	v->nr++;
	v->last_addr = s->addr;
	v->last_type = s->type;
	snprintf(v->last_name, sizeof(v->last_name), "%.*s", (int)s->namelen, s->name);
	v->last_mod[0] = '\0';
	if (s->module) {
		v->modules++;
		snprintf(v->last_mod, sizeof(v->last_mod), "%.*s", (int)s->modlen, s->module);
	}
	return v->stop_at && v->nr == v->stop_at ? 7 : 0;
}

static char *write_tmp(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/prec-kallsyms.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return NULL;
	close(fd);
	return path;
}

static void test_parse(void)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "garbage line\n"
				   " T no_address\n"
				   "ffffffffc0001000 t handler\t[some_mod]\n"
				   "ffffffffc0002000 t bpf_prog_1\t[bpf]\n"
				   "ffffffff81e00000 D _etext";
	struct seen v = {0};

	is(kallsyms_parse(text, strlen(text), count, &v), 0, "parse: 0 at the end");
	is(v.nr, 4, "parse: the four symbol lines, not the others");
	is(v.modules, 2, "parse: two module symbols");
	is_str(v.last_name, "_etext", "parse: a last line without a newline");
	ok(v.last_addr == 0xffffffff81e00000ULL && v.last_type == 'D', "parse: its address, type");

	memset(&v, 0, sizeof(v));
	v.stop_at = 2;
	is(kallsyms_parse(text, strlen(text), count, &v), 7, "parse: a stop returns what cb said");
	is_str(v.last_name, "handler", "parse: name without the module");
	is_str(v.last_mod, "some_mod", "parse: the module without brackets");
}

static void test_foreach(void)
{
	size_t cap = 2 << 20, n = 0, i;
	char *text = malloc(cap), *p;
	struct seen v = {0};
	int nr = 0;

	/* enough symbols to cross many reads, and one line longer than the reader's buffer */
	for (i = 0; i < 20000; i++) {
		n += (size_t)sprintf(text + n, "%016zx t sym_%zu\n", 0x1000 + i, i);
		nr++;
		if (i == 9000) {
			n += (size_t)sprintf(text + n, "ffffffff00000000 t ");
			memset(text + n, 'x', 300 * 1024);
			n += 300 * 1024;
			text[n++] = '\n';
		}
	}
	n += (size_t)sprintf(text + n, "ffffffffc0000000 t last\t[mod]");
	nr++;
	p = write_tmp(text, n);
	ok(p != NULL, "foreach: a file");
	is(kallsyms_foreach(p, count, &v), 0, "foreach: 0 at the end");
	is(v.nr, nr, "foreach: every symbol, the overlong line skipped");
	is_str(v.last_name, "last", "foreach: the last line without a newline");
	is_str(v.last_mod, "mod", "foreach: and its module");

	memset(&v, 0, sizeof(v));
	v.stop_at = 12345;
	is(kallsyms_foreach(p, count, &v), 7, "foreach: a stop returns what cb said");
	is_str(v.last_name, "sym_12344", "foreach: stopped where asked");
	unlink(p);
	free(text);
	is(kallsyms_foreach("/nonexistent/kallsyms", count, &v), -ENOENT, "foreach: missing file");
}

/* A note: header, name, descriptor, each padded to 4 bytes. */
static size_t put_note(u8 *p, u32 type, const char *name, const u8 *desc, u32 descsz)
{
	u32 namesz = (u32)strlen(name) + 1, h[3] = {namesz, descsz, type};
	size_t n = 0;

	memcpy(p, h, sizeof(h));
	n += sizeof(h);
	memset(p + n, 0, (namesz + 3) & ~3u);
	memcpy(p + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memset(p + n, 0, (descsz + 3) & ~3u);
	memcpy(p + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

static void test_notes(void)
{
	u8 buf[256], id[BUILD_ID_MAX], size = 0, bid[24], other[5] = {1, 2, 3, 4, 5};
	char hex[BUILD_ID_HEX_SIZE];
	size_t n;

	for (n = 0; n < sizeof(bid); n++)
		bid[n] = (u8)(0xa0 + n);
	n = put_note(buf, 6, "Linux", other, sizeof(other));
	n += put_note(buf + n, 3, "GNU", bid, 20);
	is(build_id_from_notes(buf, n, id, &size), 0, "notes: a build-id after another note");
	is(size, 20, "notes: its size");
	build_id_hex(hex, id, size);
	is_str(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3", "notes: its hex");
	is(build_id_from_notes(buf, n - 4, id, &size), -ENOENT, "notes: cut short: none");

	n = put_note(buf, 3, "GNU", bid, 24);
	is(build_id_from_notes(buf, n, id, &size), 0, "notes: a 24-byte build-id");
	is(size, BUILD_ID_MAX, "notes: cut to BUILD_ID_MAX");

	n = put_note(buf, 3, "Xen", bid, 20);
	is(build_id_from_notes(buf, n, id, &size), -ENOENT, "notes: type 3 of another owner: none");
}

int main(void)
{
	test_parse();
	test_foreach();
	test_notes();
	return done_testing();
}
