#!/bin/bash
# t2021: the samples of prec's own event prec:overhead are what profiling cost, not places in a
# program: prec report leaves them out of every profile view of a prec recording of hot3, with
# and without -g (the tables of every mode, the call graphs, --children, --folded, the flame
# graph, --json, the header's sample count, the notes on unresolved samples), and of a
# recording in pipe mode; --overhead, -D, --stats and --header still show them.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root python
W=$PREC_BUILD/tests/workloads/hot3
[ -x "$W" ] || skip_all "the hot3 workload is not built"

# stat_samples FILE EVENT: the SAMPLE records of EVENT in FILE, as prec report --stats counts them
stat_samples() {
	"$PREC" report -i "$1" --stats | awk -v ev="$2 stats:" '
		$0 == ev {on = 1; next} / stats:$/ {on = 0}
		on && /SAMPLE events:/ {n = $3} END {print n + 0}'
}

# own_lines FILE...: the lines that show prec:overhead's samples: its event, a [prec:TYPE]
# frame, the recorder's comm (prec), a folded stack of it (prec;...)
own_lines() {
	grep -E "prec:overhead|\[prec:[a-z]+\]|(^|[ :])prec( |;|$)" "$@"
}

# no_own OUT ARGS...: prec report ARGS prints rows and no line of prec:overhead
no_own() {
	local out=$1
	shift
	"$PREC" report "$@" >"$out" 2>"$out.err" || { cat "$out.err"; return 1; }
	grep -Eq "hot|[0-9]%" "$out" || fail "no rows from: $*" || return 1
	! own_lines "$out" "$out.err" || fail "prec:overhead shown by: $*"
}

# tables NAME: every table mode of NAME.data (and those of GRAPHS) shows no prec:overhead row
GRAPHS=()
tables() {
	local name=$1 a bad=
	for a in "" --stdio --no-children "-s comm" "-s pid" "-s tid" "-s dso" "-s sym" "-s cpu" \
		"--no-children -s srcline" --hierarchy "-n --show-total-period" "--percentage relative" \
		"-F overhead,comm,dso,sym" "-t ," --show-cpu-utilization ${GRAPHS[@]+"${GRAPHS[@]}"}; do
		# shellcheck disable=SC2086 # the options, split as they are written
		no_own tab.out -i "$name.data" $a || bad="$bad [$a]"
	done
	[ -z "$bad" ] || fail "prec:overhead in the tables of:$bad"
}

# moved NAME: NAME.data with prec:overhead's KSYMBOL records moved 4 GB away, in moved.data: its
# samples then lie in no map, unresolved
moved() {
	"$PYTHON" - "$1.data" moved.data <<'EOF'
import struct
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)  # perf_file_header.data
pos, n = off, 0
while pos + 8 <= off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz < 8:
        sys.exit('a record of %d bytes at %d' % (sz, pos))
    if typ == 17 and b'[prec:' in b[pos:pos + sz]:  # PERF_RECORD_KSYMBOL
        addr, = struct.unpack_from('<Q', b, pos + 8)
        struct.pack_into('<Q', b, pos + 8, addr + (1 << 32))
        n += 1
    pos += sz
open(sys.argv[2], 'wb').write(b)
sys.exit(0 if n else 'no KSYMBOL of prec:overhead')
EOF
}

# check NAME: everything on NAME.data
check() {
	local name=$1 own user
	own=$(stat_samples "$name.data" prec:overhead)
	user=$(stat_samples "$name.data" cpu-clock)
	if [ "$own" = 0 ]; then
		test_skip "$name: prec:overhead" \
			"the recording has no prec:overhead sample (no overhead source works here)"
		return
	fi
	test_expect "$name: the header counts only cpu-clock's $user samples, in 1 event" '
		no_own h.out -i '"$name"'.data &&
		grep -qx "# '"$user"' samples in 1 event" h.out &&
		[ "$(grep -c "^# Samples: " h.out)" = 1 ]'
	test_expect "$name: no table shows prec:overhead" "tables $name"
	test_expect "$name: --folded has no stack of prec:overhead, its counts add up to cpu-clock's" '
		no_own f.out -i '"$name"'.data --folded &&
		[ "$(awk "{s += \$NF} END {print s}" f.out)" = '"$user"' ]'
	test_expect "$name: the flame graph has no frame of prec:overhead" '
		"$PREC" report -i '"$name"'.data --flamegraph f.svg 2>svg.err &&
		grep -q "hot_a" f.svg && ! own_lines f.svg svg.err &&
		grep -q "data-samples=\"'"$user"'\"" f.svg'
	test_expect "$name: --json has cpu-clock alone, and its samples" '
		no_own j.out -i '"$name"'.data --json && "$PYTHON" -c "
import json, sys
d = json.load(open(\"j.out\"))
ev = [e[\"event\"] for e in d[\"events\"]]
sys.exit(0 if ev == [\"cpu-clock\"] and d[\"events\"][0][\"samples\"] == '"$user"' else
         \"events %s, samples %s\" % (ev, [e[\"samples\"] for e in d[\"events\"]]))"'
	test_expect "$name: unresolved prec:overhead samples are in no note on unresolved samples" '
		moved '"$name"' &&
		"$PREC" report -i '"$name"'.data >a.out 2>/dev/null &&
		"$PREC" report -i moved.data >b.out 2>/dev/null &&
		[ "$(grep "resolve" a.out)" = "$(grep "resolve" b.out)" ] &&
		"$PREC" report -i '"$name"'.data --folded 2>a.err >/dev/null &&
		"$PREC" report -i moved.data --folded 2>b.err >/dev/null && cmp a.err b.err &&
		"$PREC" report -i '"$name"'.data --json >a.json 2>/dev/null &&
		"$PREC" report -i moved.data --json >b.json 2>/dev/null &&
		[ "$(grep -A1 "\"unresolved\"" a.json)" = "$(grep -A1 "\"unresolved\"" b.json)" ] &&
		"$PREC" report -i moved.data -D | grep -q "event: prec:overhead"'
	# what reads them as they are: the same before prec report left them out of the profile
	test_expect "$name: --overhead, -D and --stats still show them" '
		"$PREC" report -i '"$name"'.data --overhead >o.out &&
		grep -Eq "^ +[0-9]+ +stolen " o.out &&
		"$PREC" report -i '"$name"'.data -D >d.out &&
		[ "$(grep -c "^ \.\.\. event: prec:overhead " d.out)" = '"$own"' ] &&
		"$PREC" report -i '"$name"'.data --stats | grep -qx "prec:overhead stats:"'
	test_expect "$name: --header lists prec:overhead, and the report after it has no table of it" '
		"$PREC" report -i '"$name"'.data --header >hd.out &&
		grep -q "^# event : name = prec:overhead," hd.out &&
		grep -qx "# '"$user"' samples in 1 event" hd.out && ! grep -q "^# Samples: .*prec" hd.out'
}

test_expect "prec records hot3" '
	"$PREC" record -q -e cpu-clock -F 4000 -o rec.data -- "$W" -c 0.2 >/dev/null'
check rec
test_expect "prec records hot3 with -g" '
	"$PREC" record -q -e cpu-clock -F 4000 -g -o recg.data -- "$W" -c 0.2 >/dev/null'
GRAPHS=(--children "-g caller" "-g fractal" "-g flat" "-g address" "--children -g caller"
	"--children -s dso" "-s parent")
check recg

test_expect "pipe mode: the header counts cpu-clock's samples alone, no table prec:overhead's" '
	"$PREC" record -q -e cpu-clock -F 4000 -o - -- "$W" -c 0.2 >pipe.data 2>/dev/null &&
	"$PREC" report -i - --stats <pipe.data | grep -qx "prec:overhead stats:" &&
	user=$("$PREC" report -i - --stats <pipe.data | awk "/^cpu-clock stats:/ {on = 1}
		on && /SAMPLE events:/ {print \$3; exit}") &&
	"$PREC" report -i - <pipe.data >p.out && grep -q hot_a p.out && ! own_lines p.out &&
	grep -qx "# $user samples in 1 event" p.out'

test_expect "a file with prec:overhead samples alone: no table, a header line says where they are" '
	"$PREC" record -q -e cpu-clock -c 1000000000 -o none.data -- true &&
	[ "$(stat_samples none.data cpu-clock)" = 0 ] &&
	[ "$(stat_samples none.data prec:overhead)" -gt 0 ] &&
	"$PREC" report -i none.data >n.out && ! own_lines n.out |
		grep -v "^# The file has no samples but [0-9]* of prec:overhead.*--overhead" &&
	grep -q "^# The file has no samples but [0-9]* of prec:overhead" n.out &&
	"$PREC" report -i none.data --folded >nf.out && [ ! -s nf.out ]'

done_testing
