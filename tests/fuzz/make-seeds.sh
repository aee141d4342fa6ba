#!/bin/bash
# Make the seeds of the fuzz corpus: perf-*.data recorded with the real perf (file mode with
# cpu-clock, -g, -z, a sampled group, switch events, many sample_type bits, a tracepoint with -a,
# pipe mode, perf stat record) and prec-*.data written by format/ (tests/mkdata: events,
# compressed, pipe, tracepoint in both modes, prec:overhead, stat). Each is cut to its first
# records so that it stays a few KB. Run as root after building; it overwrites those seeds.
#
#   tests/fuzz/make-seeds.sh [OUTDIR]   (default tests/fuzz/corpus; mkdata from $PREC_BUILD,
#                                        default ./build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus}
mkdata=${PREC_BUILD:-$here/../../build}/tests/mkdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work="dd if=/dev/zero of=/dev/null bs=1k count=50000"

rec() {
	local name=$1
	shift
	perf record -q "$@" -- $work >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
}

cd "$tmp"
rec cpu-clock -e cpu-clock -F 4000 -o perf-cpu-clock.data
rec callchain -e cpu-clock -F 4000 -g -o perf-callchain.data
rec zstd -e cpu-clock -F 4000 -z -o perf-zstd.data
rec group -e '{cpu-clock,task-clock}:S' -F 4000 -o perf-group.data
rec switch -e cpu-clock -F 4000 --switch-events -o perf-switch.data
rec many-bits -e cpu-clock -F 4000 -d --phys-data --data-page-size --code-page-size -T \
	--sample-cpu --user-regs=ip,sp --call-graph dwarf,256 -o perf-many-bits.data
perf record -q -e sched:sched_switch -a -o perf-tracepoint.data -- sleep 0.05 >/dev/null 2>&1
perf record -q -e cpu-clock -F 4000 -o - -- $work 2>/dev/null >perf-pipe.data
perf stat record --quiet -e task-clock -I 100 -o perf-stat.data -- sleep 0.25 >/dev/null 2>&1

if [ -x "$mkdata" ]; then
	for kind in events compressed pipe tracepoint tracepoint-pipe overhead stat; do
		"$mkdata" $kind prec-$kind.data >/dev/null
	done
else
	echo "make-seeds: no $mkdata: prec-written seeds not made" >&2
fi

mkdir -p "$out"
for f in *.data; do
	python3 - "$f" "$out/$f" <<'PY'
# Keep the header, attrs and features; keep data records up to a byte budget and a few samples
# beyond it (records of user types 64 and up are always kept, they are small); rewrite the
# offsets.
import struct, sys

BUDGET = 3072
src, dst = sys.argv[1], sys.argv[2]
b = open(src, 'rb').read()
magic, hsize = struct.unpack_from('<QQ', b, 0)

def records(buf, pos, end):
    while pos + 8 <= end:
        typ, misc, size = struct.unpack_from('<IHH', buf, pos)
        if size < 8 or pos + size > end:
            return
        extra = 0
        if typ == 66:  # HEADER_TRACING_DATA in pipe mode: the data follows the record
            extra = (struct.unpack_from('<I', buf, pos + 8)[0] + 7) & ~7
        yield typ, buf[pos:pos + size + extra]
        pos += size + extra

def keep(recs):
    out, used, kernel, samples = bytearray(), 0, 0, 0
    for typ, r in recs:
        if typ >= 64 and typ != 81:
            out += r
        elif (kernel < 2 or used + len(r) <= BUDGET or
              (typ == 9 and samples < 6 and used + len(r) <= 2 * BUDGET)):
            out += r
            used += len(r)
            kernel += 1
            samples += typ == 9
    return out

if hsize == 16:  # pipe mode: a stream of records
    open(dst, 'wb').write(b[:16] + keep(records(b, 16, len(b))))
    sys.exit(0)

hdr = bytearray(b[:104])
(data_off, data_size) = struct.unpack_from('<QQ', b, 40)
feat_bits = struct.unpack_from('<4Q', b, 72)
nfeat = sum(bin(w).count('1') for w in feat_bits)
table = data_off + data_size
data = keep(records(b, data_off, table))
entries = [struct.unpack_from('<QQ', b, table + 16 * i) for i in range(nfeat)]
out = bytearray(b[:data_off]) + data
new_table = len(out)
out += b'\0' * (16 * nfeat)
for i, (off, size) in enumerate(entries):
    struct.pack_into('<QQ', out, new_table + 16 * i, len(out), size)
    out += b[off:off + size]
struct.pack_into('<Q', out, 48, len(data))
open(dst, 'wb').write(out)
PY
done
ls -l "$out"/perf-*.data "$out"/prec-*.data
