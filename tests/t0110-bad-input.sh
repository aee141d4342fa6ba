#!/bin/bash
# t0110: damaged perf.data files. Files that perf writes at test time are cut at many points
# (inside the header, the attrs, records, a COMPRESSED record, the feature table) and patched
# (wrong magic, big-endian magic, sections past the end, a zero-size record, a huge attr count,
# garbage zstd data, a feature entry past the end): every one gets exactly one line on stderr,
# starting "prec: ", and a non-zero exit status, never a signal. A file whose writer was killed
# (data size 0) is read up to its last complete record, with one warning and exit status 0.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

W=$PREC_BUILD/tests/workloads/hot3
[ -x "$W" ] || skip_all "the hot3 workload is not built"

perf record -q -e cpu-clock -g -o good.data -- "$W" -c 0.2 >/dev/null 2>&1 ||
	skip_all "perf record failed"
have_z=
if have zstd && perf version --build-options 2>/dev/null | grep -q 'zstd: *\[ on'; then
	perf record -q -e cpu-clock -z -o z.data -- "$W" -c 0.2 >/dev/null 2>&1 && have_z=1
fi

# one_error FILE [VIEW]: prec refuses FILE with one "prec: " line and a plain non-zero status.
one_error() {
	local rc
	"$PREC" report -i "$1" ${2:+"$2"} >/dev/null 2>err
	rc=$?
	[ $rc != 0 ] || fail "exit 0 for $1 ${2:-}" || return 1
	[ $rc -lt 128 ] || fail "killed by signal $((rc - 128)) on $1 ${2:-}" || return 1
	[ "$(wc -l <err)" = 1 ] || { cat err; fail "not one line on stderr for $1"; } || return 1
	grep -q '^prec: ' err || { cat err; fail "the line does not start with prec:"; }
}

# Every damaged file is made by one python process (starting python is the slow part here):
# NAME.data for each case below. It prints the layout of good.data and where the first
# COMPRESSED record of z.data is.
make_bad_files() {
	"$PYTHON" - <<'EOF'
import os, struct
good = open('good.data', 'rb').read()
_, _, _, ao, asz, do, dsz = struct.unpack_from('<7Q', good)

def out(name, d):
    open(name, 'wb').write(bytes(d))

def patched(name, src, *edits):
    d = bytearray(src)
    for off, fmt, val in edits:
        struct.pack_into(fmt, d, off, val)
    out(name, d)

patched('magic.data', good, (0, '<Q', 0x2121212121212121))
patched('bigendian.data', good, (0, '>Q', 0x32454c4946524550))
patched('perffile.data', good, (0, '<Q', 0x454c494646524550))
patched('hsize.data', good, (8, '<Q', 50))
patched('attrsize0.data', good, (16, '<Q', 0))
patched('attrspast.data', good, (32, '<Q', 1 << 40))
patched('attrcount.data', good, (16, '<Q', 1))
patched('attrbig.data', good, (ao + 4, '<I', 136))
patched('datapast.data', good, (40, '<Q', len(good) + 8))
patched('zerosize.data', good, (do + 6, '<H', 0))
patched('recpast.data', good, (48, '<Q', 16), (do + 6, '<H', 64),
        (72, '<Q', 0), (80, '<Q', 0), (88, '<Q', 0), (96, '<Q', 0))
out('feattable.data', good[:do + dsz + 20])
patched('featentry.data', good, (do + dsz, '<Q', len(good) + 100))
patched('killed.data', good[:do + dsz], (48, '<Q', 0))
patched('killed2.data', good[:do + dsz - 13], (48, '<Q', 0))
out('half.data', good[:do + dsz // 2])
zoff = 0
if os.path.exists('z.data'):
    z = bytearray(open('z.data', 'rb').read())
    _, _, _, _, _, zdo, zdsz = struct.unpack_from('<7Q', z)
    off = zdo
    while off < zdo + zdsz:
        t, m, s = struct.unpack_from('<IHH', z, off)
        if t == 81:
            zoff = off
            break
        off += s
    if zoff:
        for i in range(zoff + 8, min(zoff + 72, len(z))):
            z[i] ^= 0x5a
        out('zgarbage.data', z)
        z = open('z.data', 'rb').read()
        for n, c in enumerate((zoff + 4, zoff + 9, zoff + 100)):
            out('zcut%d.data' % n, z[:c])
print(do, dsz, len(good), zoff)
EOF
}

# cut_sweep FILE: cut FILE at every byte of its header, every 4 bytes of its attrs and of the
# start of its features, at 100 points of its data and 50 of its feature payloads; each cut
# file is refused with one line. One python process runs them all, to keep this fast.
cut_sweep() {
	"$PYTHON" - "$PREC" "$1" <<'EOF'
import struct, subprocess, sys
prec, path = sys.argv[1:3]
data = open(path, 'rb').read()
_, _, _, ao, asz, do, dsz = struct.unpack_from('<7Q', data)
cuts = set(range(0, 120)) | set(range(120, do + 16, 4))
cuts |= set(range(do, do + dsz, max(1, dsz // 100)))
cuts |= set(range(do + dsz - 8, do + dsz + 400, 4))
cuts |= set(range(do + dsz + 400, len(data), max(1, (len(data) - do - dsz) // 50)))
cuts = sorted(c for c in cuts if c < len(data))
for c in cuts:
    with open('cut.data', 'wb') as f:
        f.write(data[:c])
    p = subprocess.run([prec, 'report', '-i', 'cut.data', '--stats'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors='replace').splitlines()
    if p.returncode <= 0 or p.returncode >= 128 or len(err) != 1 or \
            not err[0].startswith('prec: '):
        print('cut at %d: exit %d, stderr %r' % (c, p.returncode, err[:3]))
        sys.exit(1)
print('# %d cut points' % len(cuts))
if len(cuts) < 200:
    sys.exit('only %d cut points' % len(cuts))
EOF
}

read -r DOFF DSIZE SIZE ZOFF < <(make_bad_files)
[ -n "$SIZE" ] || skip_all "could not make the damaged files"

test_expect "a file cut anywhere: one line, non-zero exit" 'cut_sweep good.data'
test_expect "cut files with every view" '
	for c in 50 $((DOFF + 4)) $((DOFF + DSIZE / 2 + 3)); do
		head -c $c good.data >cut.data &&
		for v in --stats -D --header-only ""; do one_error cut.data $v || exit 1; done
	done'
test_expect "the cut-short error says how much was read" '
	! "$PREC" report -i half.data --stats >/dev/null 2>err &&
	grep -q "^prec: half.data: the file is cut short: .*; read [0-9]* records" err &&
	grep -q "; read [0-9]* records ([0-9]* bytes) up to offset 0x[0-9a-f]*$" err'

if [ -n "$have_z" ] && [ "$ZOFF" != 0 ]; then
	test_expect "a compressed file cut anywhere: one line, non-zero exit" 'cut_sweep z.data'
	test_expect "a file cut inside a COMPRESSED record" '
		for n in 0 1 2; do one_error zcut$n.data --stats || exit 1; done'
	test_expect "garbage in a COMPRESSED record" '
		one_error zgarbage.data --stats && grep -q "(COMPRESSED): .*do not decompress" err'
else
	test_skip "compressed files" "prec or perf is built without zstd"
fi

# bad FILE NEEDLE: refused with one line that contains NEEDLE.
bad() {
	one_error "$1" --stats || return 1
	grep -q -- "$2" err || { cat err; fail "the error does not say '$2'"; }
}

test_expect "wrong magic" 'bad magic.data "bad magic"'
test_expect "big-endian magic" 'bad bigendian.data "big-endian"'
test_expect "the legacy PERFFILE magic" 'bad perffile.data "PERFFILE"'
test_expect "a header size that is not 104" 'bad hsize.data "header size is 50"'
test_expect "attr_size 0" 'bad attrsize0.data "attr_size is 0"'
test_expect "the attrs section past the end" 'bad attrspast.data "attrs section"'
test_expect "a huge attr count" 'bad attrcount.data "attr 1 runs past the end of the attrs"'
test_expect "an attr larger than 128 bytes" 'bad attrbig.data "size 136"'
test_expect "the data section past the end" 'bad datapast.data "data section starts at"'
test_expect "a zero-size record" 'bad zerosize.data "size 0 is below 8"'
test_expect "a record whose size runs past the data" \
	'bad recpast.data "runs past the end of the data section"'
test_expect "a feature table past the end" 'bad feattable.data "feature table"'
test_expect "a feature entry past the end" 'bad featentry.data "past the end of the file"'
test_expect "not a file" 'one_error /nonexistent/perf.data && grep -q "No such file" err'

# Files small on disk that would take gigabytes if read naively: each is refused at once, with
# its one line, under a 512 MB limit on the address space (ulimit -v). AddressSanitizer reserves
# terabytes of address space up front, so a sanitizer build cannot run them.
MEM_KB=524288
if grep -q '^SANITIZER_CFLAGS = .*-fsanitize=address' "$PREC_BUILD/Makefile" 2>/dev/null; then
	test_skip "hostile files within a memory limit" \
		"a sanitizer build does not run under ulimit -v"
else
	# 20000 attrs whose ids are all the whole 3 MB file: copying each would take 60 GB.
	test_expect "attrs sharing one large id array: refused within $MEM_KB KB" '
		"$PYTHON" - <<-EOF &&
		import struct
		nattr, size = 20000, 3 << 20
		attr = bytearray(128)
		struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, 4000, 0x107)
		buf = bytearray(size)
		do = 104 + nattr * 144
		struct.pack_into("<9Q", buf, 0, 0x32454c4946524550, 104, 144, 104, nattr * 144, do,
		                 8, 0, 0)
		for i in range(nattr):
		    o = 104 + i * 144
		    buf[o:o + 128] = attr
		    struct.pack_into("<QQ", buf, o + 128, 0, size)
		struct.pack_into("<IHH", buf, do, 68, 0, 8)
		open("sharedids.data", "wb").write(buf)
		EOF
		(ulimit -v '$MEM_KB' && bad sharedids.data "ids of attr 1 (.*: they overlap")'

	# HEADER_TRACING_DATA inside compressed data, announcing 2 GB of payload, then 300
	# COMPRESSED records of 4 MB of zeros each: waiting for the payload would keep 1.2 GB.
	if have zstd && command -v zstd >/dev/null; then
		test_expect "tracing data inside compressed data: refused within $MEM_KB KB" '
			"$PYTHON" - <<-EOF &&
			import struct, subprocess
			def zst(b):
			    return subprocess.run(["zstd", "-q", "-c", "-1"], input=b, check=True,
			                          stdout=subprocess.PIPE).stdout
			def comp(z):
			    return struct.pack("<IHH", 81, 0, 8 + len(z)) + z
			mmap_len = 4 << 20
			tracing = struct.pack("<IHHII", 66, 0, 16, 0x7ffffff0, 0)
			data = comp(zst(tracing + bytes(mmap_len - len(tracing))))
			data += comp(zst(bytes(mmap_len))) * 300
			attr = bytearray(128)
			struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, 4000, 0x7)
			do = 104 + 144
			feat = struct.pack("<5I", 0, 1, 1, 1, mmap_len)
			hdr = struct.pack("<13Q", 0x32454c4946524550, 104, 144, 104, 144, do,
			                  len(data), 0, 0, 1 << 27, 0, 0, 0)
			table = struct.pack("<QQ", do + len(data) + 16, len(feat))
			with open("ztracing.data", "wb") as f:
			    f.write(hdr + attr + bytes(16) + data + table + feat)
			EOF
			(ulimit -v '$MEM_KB' &&
			 bad ztracing.data "(TRACING_DATA): tracing data inside compressed data")'
	else
		test_skip "tracing data inside compressed data" "prec without zstd, or no zstd tool"
	fi
fi
test_expect "an empty file" ': >empty.data && bad empty.data "too short"'

# killed_ok FILE: read up to the last complete record, one warning, exit 0.
killed_ok() {
	local f=$1 n
	"$PREC" report -i "$f" --stats >killed.stats 2>err || { cat err; return 1; }
	[ "$(wc -l <err)" = 1 ] || { cat err; fail "not one line"; } || return 1
	grep -q "^prec: warning: $f was not finished by its writer; read [0-9]* records" err &&
		grep -q "; read [0-9]* records ([0-9]* bytes) up to offset 0x[0-9a-f]*$" err ||
		{ cat err; fail "not the warning"; } || return 1
	n=$(sed -n 's/.*; read \([0-9]*\) records.*/\1/p' err)
	grep -q "TOTAL events: *$n\$" killed.stats ||
		fail "$n records said, --stats counts otherwise"
}
test_expect "data size 0: recovered with one warning" 'killed_ok killed.data'
test_expect "data size 0, cut inside a record: recovered" 'killed_ok killed2.data'
test_expect "perf record killed with SIGKILL: recovered" '
	perf record -q -e cpu-clock -o sigkill.data -- sleep 30 >/dev/null 2>&1 &
	pid=$!; ran $pid "$(readlink -f "$(command -v sleep)")" 0; child=$(pgrep -P $pid)
	kill -9 $pid; wait $pid 2>/dev/null; kill $child 2>/dev/null
	[ -s sigkill.data ] && killed_ok sigkill.data'
test_expect "a pipe that stops inside a record: recovered" '
	perf record -q -e cpu-clock -o - -- "$W" -c 0.2 2>/dev/null >pipe.data &&
	size=$(stat -c %s pipe.data) && head -c $((size - 5)) pipe.data |
	"$PREC" report -i - --stats >/dev/null 2>err &&
	grep -q "^prec: warning: stdin was not finished by its writer" err &&
	[ "$(wc -l <err)" = 1 ]'

done_testing
