#!/bin/bash
# t2008: prec record and prec report read a binary's build-id alike. For the bundled workload, a
# shared library built here and a copy of the workload whose build-id note only a PT_NOTE
# program header points at (its note section headers are blanked), the build-id prec record
# stamps (perf buildid-list -i FILE), the binary's own (perf buildid-list -i BINARY, or readelf -n
# where perf 6.1 reads sections only) and the one prec report checks (its symbols resolve only
# when they match) agree. The build-id caches are kept out of it (HOME is the test's directory,
# and the recordings leave it empty, -N).
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
[ -x "$W" ] || skip_all "the hot3 workload is not built"
command -v cc >/dev/null || skip_all "no C compiler"
command -v readelf >/dev/null || skip_all "no readelf"
mkdir -p home
export HOME=$T/home

# recorded_bid DATA BIN: the build-id the BUILD_ID feature of DATA holds for BIN
recorded_bid() {
	perf buildid-list -i "$1" 2>/dev/null | awk -v b="$2" '$2 == b { print $1 }'
}

# readelf_bid BIN: the build-id readelf finds in BIN's notes
readelf_bid() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

# resolves DATA BIN SYM: prec report reads BIN's symbols (its build-id matched the recorded one)
# and names the samples in it, SYM among them
resolves() {
	"$PREC" report -v -i "$1" --sort dso,sym -g none >rep.out 2>rep.err || return 1
	grep -q "^prec: $2: [1-9][0-9]* symbols from $2 " rep.err ||
		{ fail "no symbols read from $2"; cat rep.err; return 1; }
	! grep -q "not the binary that was recorded" rep.err || { cat rep.err; return 1; }
	grep -q "$(basename "$2") *\[\.\] $3\$" rep.out || { fail "no $3 row"; cat rep.out; return 1; }
}

# agree DATA BIN SYM WANT: the recorded build-id is WANT, and prec report resolves SYM in BIN
agree() {
	local got
	got=$(recorded_bid "$1" "$2")
	[ -n "$4" ] && [ "$got" = "$4" ] || { fail "recorded '$got', the binary's is '$4'"; return 1; }
	resolves "$1" "$2" "$3"
}

cat >spin.c <<'SRC'
#include <time.h>

volatile unsigned long spin_sink;

/* Burn CPU time in this library for secs seconds. */
void spin_in_lib(double secs)
{
	struct timespec t0, t;
	double d;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (unsigned long i = 0; i < 1000000; i++)
			spin_sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
		d = (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
	} while (d < secs);
}
SRC
cat >uselib.c <<'SRC'
#include <stdlib.h>

void spin_in_lib(double secs);

int main(int argc, char **argv)
{
	spin_in_lib(argc > 1 ? atof(argv[1]) : 0.3);
	return 0;
}
SRC

test_expect "a shared library and a program that uses it, with build-ids" '
	cc -O1 -g -fPIC -shared -Wl,--build-id -o libspin.so spin.c &&
	cc -O1 -g -Wl,--build-id -o uselib uselib.c -L. -lspin -Wl,-rpath,"$T" &&
	[ -n "$(readelf_bid libspin.so)" ]'

# A copy of hot3 whose SHT_NOTE section headers are made unnamed SHT_NULL ones: the notes stay
# in the file, where the PT_NOTE segments point.
test_expect "a copy of hot3 whose build-id only a PT_NOTE segment holds" '
	cp "$W" ptnote && "$PYTHON" - ptnote <<PYEOF &&
import struct, sys
with open(sys.argv[1], "r+b") as f:
    d = bytearray(f.read())
    assert d[:4] == b"\x7fELF" and d[4] == 2 and d[5] == 1, "not a 64-bit little-endian ELF"
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", d, 0x3a)
    for i in range(shnum):
        o = shoff + i * shentsize
        if struct.unpack_from("<I", d, o + 4)[0] == 7:  # SHT_NOTE
            struct.pack_into("<II", d, o, 0, 0)  # no name, SHT_NULL
    f.seek(0)
    f.write(d)
PYEOF
	! readelf -S ptnote | grep -q "\.note\.gnu\.build-id" &&
	! readelf -S ptnote | grep -q " NOTE " &&
	readelf -l ptnote | grep -q "^ *NOTE " &&
	[ "$(readelf_bid ptnote)" = "$(readelf_bid "$W")" ] && ./ptnote 0.01'

test_expect "prec records hot3, uselib and the PT_NOTE copy" '
	rec_prec hot3 -N -- "$W" 0.3 && rec_prec uselib -N -- ./uselib 0.3 &&
	rec_prec ptnote -N -- ./ptnote 0.3'

test_expect "hot3: the recorded build-id is perf's and readelf's; prec report resolves it" '
	want=$(perf buildid-list -i "$W") && [ "$want" = "$(readelf_bid "$W")" ] &&
	agree hot3.data "$W" hot_a "$want"'

test_expect "libspin.so: the recorded build-id is perf's; prec report resolves it" '
	want=$(perf buildid-list -i libspin.so) && [ "$want" = "$(readelf_bid libspin.so)" ] &&
	agree uselib.data "$T/libspin.so" spin_in_lib "$want"'

test_expect "PT_NOTE only: the recorded build-id is readelf's; prec report resolves it" '
	agree ptnote.data "$T/ptnote" hot_a "$(readelf_bid ptnote)"'

done_testing
