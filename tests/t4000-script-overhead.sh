#!/bin/bash
# t4000: scripts/prec-overhead.py under perf script -s prints the per-CPU table of prec report
# --overhead from the same file, and with --json the same numbers as prec report --overhead
# --json: every cost of every CPU, the derived overhead per CPU, the totals, the worst CPU and
# what was unavailable. Built files (tests/mkoverhead) cover measured, estimated and unavailable
# figures, throttling, lost samples and a collector that could not run; two of them patched
# here cover a handler time that is a lower bound (the collector dropped records: estimated
# sample figures) and a recording where no CPU has a known overhead (the worst CPU unknown).
# perf's Python handlers must never raise (perf aborts), so a file without prec:overhead is read
# too.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require perf perf-python python

MKO=$PREC_BUILD/tests/mkoverhead
SCRIPT=$PREC_SRC/scripts/prec-overhead.py
[ -x "$MKO" ] || skip_all "tests/mkoverhead is not built (make check builds it)"
"$PREC" report --help 2>&1 | grep -q -- '--overhead' || skip_all "prec report has no --overhead"

# patch.py IN OUT MODE: rewrite the status of prec:overhead samples in place (same sizes).
# lowerbound: the measured "sample" figures become estimated, as the recorder writes them when
# the collector's buffer dropped records; unknown: every per-CPU figure becomes unavailable.
cat >patch.py <<'EOF'
import struct, sys

ID = 65000  # OVERHEAD_EVENT_ID
src, dst, mode = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
off, size = struct.unpack_from("<QQ", b, 40)
pos, n = off, 0
while pos + 8 <= off + size:
    typ, misc, rsize = struct.unpack_from("<IHH", b, pos)
    assert rsize >= 8, "bad record at %d" % pos
    if typ == 9:
        # RAW is the last field of a prec:overhead sample: u32 size, then the payload.
        for p in range(pos + 8, pos + rsize - 83):
            (raw,) = struct.unpack_from("<I", b, p)
            if p + 4 + raw != pos + rsize or struct.unpack_from("<H", b, p + 4)[0] != ID:
                continue
            r = p + 4
            cpu = struct.unpack_from("<q", b, r + 8)[0]
            kind = bytes(b[r + 16:r + 32]).split(b"\0")[0].decode()
            status = struct.unpack_from("<I", b, r + 72)[0]
            if mode == "lowerbound" and kind == "sample" and status == 0:
                struct.pack_into("<I", b, r + 72, 1)
                n += 1
            elif mode == "unknown" and cpu >= 0 and status != 2:
                struct.pack_into("<QQ", b, r + 32, 0, 0)
                struct.pack_into("<I", b, r + 72, 2)
                n += 1
            break
    pos += rsize
assert n > 0, "nothing to patch"
open(dst, "wb").write(b)
print("%s: %d figures patched" % (mode, n))
EOF

KINDS="modest nofacts hardware throttle storm fixed none aggregate lowerbound unknown"
for k in $KINDS; do
	case $k in
	lowerbound) "$PYTHON" patch.py fixed.data $k.data $k >/dev/null && cp fixed.man $k.man ;;
	unknown) "$PYTHON" patch.py modest.data $k.data $k >/dev/null && cp modest.man $k.man ;;
	*) "$MKO" "$k" "$k.data" >"$k.man" ;;
	esac || skip_all "making $k.data failed"
	"$PREC" report --overhead -i "$k.data" >"$k.txt" 2>/dev/null
	"$PREC" report --overhead -i "$k.data" --json >"$k.json" 2>/dev/null
	perf script -i "$k.data" -s "$SCRIPT" >"$k.py.txt" 2>"$k.py.err"
	echo $? >"$k.py.rc"
	perf script -i "$k.data" -s "$SCRIPT" -- --json >"$k.py.json" 2>"$k.py.jerr"
	echo $? >"$k.py.jrc"
done

cat >compare.py <<'EOF'
import json, sys

def close(a, b, path):
    if isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and abs(a - b) <= 2e-4 * max(1, abs(a)), \
            "%s: %r != %r" % (path, a, b)
    else:
        assert a == b, "%s: %r != %r" % (path, a, b)

def same(py, c, path):
    """Every member the script prints is in prec report's JSON, with the same value."""
    if isinstance(py, dict):
        assert isinstance(c, dict), path
        for k, v in py.items():
            if k == "wall_source":
                continue  # spans for the script; the facts' for prec report (equal figures)
            assert k in c, "%s.%s missing from prec report --json" % (path, k)
            same(v, c[k], path + "." + k)
    elif isinstance(py, list):
        assert isinstance(c, list) and len(py) == len(c), "%s: %d vs %d entries" % (
            path, len(py), len(c) if isinstance(c, list) else -1)
        for i, (a, b) in enumerate(zip(py, c)):
            same(a, b, "%s[%d]" % (path, i))
    else:
        close(py, c, path)

for kind in sys.argv[1:]:
    py = json.load(open(kind + ".py.json"))
    c = json.load(open(kind + ".json"))
    for member in ("overhead_records", "wall_ns", "cpus", "totals", "worst_cpu", "unavailable"):
        assert member in py, "%s: the script prints no %s" % (kind, member)
        same(py[member], c[member], kind + "." + member)
    n = sum(len(x["costs"]) for x in py["cpus"])
    assert n > 0, kind
    print("%s: %d costs on %d CPUs agree" % (kind, n, len(py["cpus"])))
EOF

# quiet FILE MANIFEST: nothing on stderr but perf's own warning about built LOST records.
quiet() {
	if grep -Eq "^lost(_samples)? " "$2"; then
		grep -v -e "^Warning:" -e "lost 1 chunks" -e "^Check IO/CPU overload" \
			-e "^Processed [0-9]* samples and lost" -e "^$" "$1" && return 1
		return 0
	fi
	no_stderr "$1"
}

test_expect "the script runs on every built file: exit 0, nothing on stderr" '
	for k in $KINDS; do
		[ "$(cat $k.py.rc)" = 0 ] && [ "$(cat $k.py.jrc)" = 0 ] ||
			fail "$k: perf script exit $(cat $k.py.rc) / $(cat $k.py.jrc)" || return 1
		quiet $k.py.err $k.man && quiet $k.py.jerr $k.man || return 1
	done'

test_expect "--json: the same numbers as prec report --overhead --json" '
	"$PYTHON" compare.py $KINDS'

test_expect "the same per-CPU table, totals, worst CPU and unavailable lines as prec report" '
	for k in $KINDS; do
		sed -n "/^# *CPU  type/,/^# findings/p" $k.txt | grep -v "^# findings" >$k.c.table
		sed -n "/^# *CPU  type/,\$p" $k.py.txt >$k.py.table
		[ -s $k.c.table ] || fail "$k: no table in the report" || return 1
		diff -u $k.c.table $k.py.table || return 1
	done'

test_expect "the table shows measured, estimated and unavailable figures with their sources" '
	grep -qE "^ +0  stolen .* calibration +estimated" modest.py.txt &&
	grep -qE "^ +0  sample .* bpf +measured" modest.py.txt &&
	grep -qE "^ +1  sample .* none +unavailable" none.py.txt &&
	grep -qF "$(sed -n "s/^unavailable sample /#   sample on CPU 0,1: /p" none.man)" none.py.txt'

test_expect "the aggregation's cost: its rows, and the overhead that counts it, as prec report" '
	for f in aggregate.txt aggregate.py.txt; do
		[ "$(grep -Ec "^ +[01]  aggregate .* bpf +measured \(in-kernel aggregation, on top of the stolen time\)$" $f)" = 2 ] &&
		[ "$(grep -Ec "^ +[01]  =overhead .*  stolen \+ mux \+ sideband \+ aggregate$" $f)" = 2 ] ||
			fail "$f: no aggregate rows" || return 1
	done &&
	"$PYTHON" -c "
import json
d = json.load(open(\"aggregate.py.json\"))
for c in d[\"cpus\"]:
    if c[\"cpu\"] >= 0:
        agg = sum(k[\"time_ns\"] for k in c[\"costs\"] if k[\"type\"] == \"aggregate\")
        assert agg > 0 and c[\"aggregate_ns\"] == agg, c
        assert c[\"overhead_ns\"] == c[\"sampling_ns\"] + c[\"mux_ns\"] + c[\"sideband_ns\"] + agg, c
"'

test_expect "a handler time that is a lower bound, worded as prec report words it" '
	for f in lowerbound.txt lowerbound.py.txt; do
		grep -Eq "^ +[01]  =overhead .*  handler \(a lower bound: the collector dropped records\) \+ mux \+ sideband \(stolen time not calibrated: " $f &&
		grep -Eq "^# worst CPU: [01], .*sampling cost from the handler time only, a lower bound: the collector dropped records\)$" $f ||
			fail "$f: no lower bound" || return 1
	done
	! grep -q "lower bound" fixed.txt && ! grep -q "lower bound" fixed.py.txt
'

test_expect "no CPU with a known overhead: the worst CPU unknown, said as prec report says it" '
	for f in unknown.txt unknown.py.txt; do
		grep -qx "# worst CPU: unknown (no CPU has both a cost and a wall time)" $f ||
			fail "$f: no unknown worst CPU" || return 1
	done
	! grep -q "=overhead" unknown.py.txt &&
	"$PYTHON" -c "import json; d = json.load(open(\"unknown.py.json\")); assert d[\"worst_cpu\"] is None and d[\"overhead_records\"] > 0"
'

test_expect "the script counts the workload samples per CPU as written" '
	for k in $KINDS; do
		want=$(awk "\$1 == \"samples\" { n[\$3] += \$4 } END { for (c in n) print c, n[c] }" $k.man | sort)
		got=$("$PYTHON" -c "import json; d = json.load(open(\"$k.py.json\")); [print(c[\"cpu\"], c[\"samples\"]) for c in d[\"cpus\"] if c[\"cpu\"] >= 0 and c[\"samples\"]]" | sort)
		[ "$want" = "$got" ] || fail "$k: samples $got, written $want" || return 1
	done'

test_expect "a file without prec:overhead: said, and no exception" '
	MKDATA=$PREC_BUILD/tests/mkdata
	if [ -x "$MKDATA" ] && "$MKDATA" stat plain.data >/dev/null 2>&1; then :; else
		perf record -q -o plain.data -e cpu-clock -F 1000 -- true >/dev/null 2>&1 || return 1
	fi
	perf script -i plain.data -s "$SCRIPT" >plain.txt 2>plain.err &&
	no_stderr plain.err &&
	grep -q "no prec:overhead records" plain.txt &&
	perf script -i plain.data -s "$SCRIPT" -- --json >plain.json 2>plain.jerr &&
	no_stderr plain.jerr &&
	"$PYTHON" -c "import json; d = json.load(open(\"plain.json\")); assert d[\"overhead_records\"] == 0 and d[\"worst_cpu\"] is None"'

done_testing
