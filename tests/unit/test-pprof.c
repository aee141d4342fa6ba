// SPDX-License-Identifier: GPL-2.0
/*
 * report/pprof: protobuf's wire format as its documentation spells the examples (a varint, a
 * string, a packed field), and a gzipped string table read back by another reader (Python's
 * gzip module and a wire-format decoder of a few lines, written here).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/pprof.h"
#include "tests/tap.h"

/* The bytes of b as lowercase hex pairs separated by spaces (a static buffer). */
static const char *hex(const struct pb_buf *b)
{
	static char out[512];
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < b->len && o + 4 < sizeof(out); i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%02x", i ? " " : "", b->b[i]);
	return out;
}

/* Decode a gzipped message of length-delimited fields: one "field:text" line per field. */
static const char decoder[] = "import gzip, sys\n"
			      "d = gzip.decompress(open(sys.argv[1], 'rb').read())\n"
			      "def varint(i):\n"
			      "    v = s = 0\n"
			      "    while True:\n"
			      "        b = d[i]; i += 1; v |= (b & 0x7f) << s; s += 7\n"
			      "        if b < 0x80: return v, i\n"
			      "i = 0\n"
			      "while i < len(d):\n"
			      "    k, i = varint(i)\n"
			      "    assert k & 7 == 2, k\n"
			      "    n, i = varint(i)\n"
			      "    print('%d:%s' % (k >> 3, d[i:i + n].decode()))\n"
			      "    i += n\n";

static void gzip_read_back(void)
{
	static const char *const strs[] = {"", "samples", "count", "cpu", "nanoseconds"};
	char path[] = "/tmp/prec-test-pprof-XXXXXX", cmd[256], got[256] = "";
	struct pb_buf b = {0};
	size_t gz_len, gz_len2, n = 0;
	u8 *gz, *gz2;
	FILE *f, *p;
	int fd;

	for (u32 i = 0; i < 5; i++)
		pb_bytes(&b, 6, strs[i], strlen(strs[i]));
	is(pprof_gzip(b.b, b.len, &gz, &gz_len), 0, "gzip");
	ok(gz_len > 18 && gz[0] == 0x1f && gz[1] == 0x8b, "a gzip stream (its magic)");
	/* refused before a byte is read: zlib takes a uInt of input in one call */
	is(pprof_gzip(b.b, (size_t)UINT_MAX / 2 + 1, &gz2, &gz_len2), -EFBIG,
	   "more than one call of zlib takes: refused, not cut short");
	if (system("python3 -c '' 2>/dev/null")) {
		skip("the string table read back", "python3 is missing");
		free(gz);
		pb_free(&b);
		return;
	}
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	ok(f && fwrite(gz, 1, gz_len, f) == gz_len && !fclose(f), "the stream written");
	snprintf(cmd, sizeof(cmd), "python3 -c \"$PREC_PPROF_DECODER\" %s", path);
	setenv("PREC_PPROF_DECODER", decoder, 1);
	p = popen(cmd, "r");
	if (p) {
		n = fread(got, 1, sizeof(got) - 1, p);
		got[n] = '\0';
		is(pclose(p), 0, "Python decodes it");
	}
	is_str(got, "6:\n6:samples\n6:count\n6:cpu\n6:nanoseconds\n",
	       "the string table, the empty string first");
	unlink(path);
	free(gz);
	pb_free(&b);
}

int main(void)
{
	struct pb_buf b = {0};
	static const u64 packed[] = {3, 270, 86942};

	pb_uint(&b, 1, 150);
	is_str(hex(&b), "08 96 01", "field 1 = 150: a two-byte varint");
	b.len = 0;
	pb_varint(&b, 300);
	is_str(hex(&b), "ac 02", "300");
	b.len = 0;
	pb_varint(&b, UINT64_MAX);
	is_str(hex(&b), "ff ff ff ff ff ff ff ff ff 01", "the largest varint, ten bytes");
	b.len = 0;
	pb_uint(&b, 3, 0);
	is((int)b.len, 0, "a zero is left out, as proto3 leaves out defaults");
	pb_bytes(&b, 2, "testing", 7);
	is_str(hex(&b), "12 07 74 65 73 74 69 6e 67", "field 2 = \"testing\"");
	b.len = 0;
	pb_bytes(&b, 6, "", 0);
	is_str(hex(&b), "32 00", "the empty string is written (string_table[0])");
	b.len = 0;
	pb_packed(&b, 4, packed, 3);
	is_str(hex(&b), "22 06 03 8e 02 9e a7 05", "field 4 = packed [3, 270, 86942]");
	b.len = 0;
	pb_packed(&b, 4, packed, 0);
	is((int)b.len, 0, "an empty packed field is left out");
	pb_free(&b);
	gzip_read_back();
	return done_testing();
}
