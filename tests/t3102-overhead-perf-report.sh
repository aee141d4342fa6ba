#!/bin/bash
# t3102: what perf report itself shows of prec:overhead. Each sample carries its cost type as a
# symbol ([prec:stolen], ...) named by a KSYMBOL record and its time_ns as its period, so perf
# report's section for prec:overhead has one row per type, weighted as prec report --overhead
# counts it, and no "[unknown] 0000000000000000" row. perf script -s still gets prec__overhead.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "the hot3 workload is not built"

"$PREC" record -q -o plain.data -F 1000 -- "$HOT3" -c 0.3 >/dev/null 2>&1 ||
	skip_all "prec record failed"
"$PREC" record -q -o graph.data -g -F 1000 -- "$HOT3" -c 0.3 >/dev/null 2>&1 ||
	skip_all "prec record -g failed"

# section FILE EVENT: the lines of perf report's section for EVENT in FILE
section() {
	awk -v ev="$2" '/^# Samples: / { on = index($0, "of event '\''" ev "'\''") > 0 } on' "$1"
}

test_expect "perf report's default output: no [unknown] 0000000000000000 row" '
	perf_clean perf report -i plain.data --stdio >r.txt &&
	grep -q "of event '\''prec:overhead'\''" r.txt &&
	! grep -E "\[unknown\] +\[\.\] 0000000000000000" r.txt'

test_expect "every row of the prec:overhead section is a cost type, [k] [prec:<type>]" '
	section r.txt prec:overhead | grep -E "^ +[0-9.]+%" >rows.txt &&
	[ -s rows.txt ] &&
	! grep -v -E "^ +[0-9.]+% +prec +\[prec:[a-z]+\] +\[k\] \[prec:[a-z]+\] *$" rows.txt &&
	grep -q "\[k\] \[prec:stolen\]" rows.txt'

# Each type's period in perf report against the sum of its time_ns in prec report --overhead
# --json (the rows of every CPU and of the whole session, cpu -1).
test_expect "each type weighs its nanoseconds, as prec report --overhead counts them" '
	perf_clean perf report -i plain.data --stdio --sort sym -F period,sym >p.txt &&
	section p.txt prec:overhead |
		awk "/\[k\] \[prec:/ { gsub(/[][]|prec:/, \"\", \$3); print \$3, \$1 }" |
		sort >perf-weights.txt &&
	"$PREC" report --overhead -i plain.data --json >o.json &&
	"$PYTHON" -c "
import json, sys
d = json.load(open(\"o.json\"))
t = {}
for c in d[\"cpus\"]:
    for r in c[\"costs\"]:
        t[r[\"type\"]] = t.get(r[\"type\"], 0) + r[\"time_ns\"]
for k in sorted(t):
    print(k, t[k])
" >prec-weights.txt &&
	grep -q "^stolen [1-9]" prec-weights.txt &&
	diff prec-weights.txt perf-weights.txt'

test_expect "perf report -g: the prec:overhead section holds no call chain of the workload" '
	perf_clean perf report -i graph.data --stdio -g >g.txt &&
	section g.txt prec:overhead >gs.txt &&
	grep -q "\[prec:stolen\]" gs.txt &&
	! grep -E "hot3|run_round|libc" gs.txt'

test_expect "perf report --sort srcline reads it (no addr2line on the type names)" '
	perf_clean perf report -i plain.data --stdio --sort srcline >s.txt &&
	grep -q "\[prec:stolen\]" s.txt'

test_expect "perf script prints prec:overhead and perf script -s still gets prec__overhead" '
	perf_clean perf script -i plain.data >ps.txt &&
	grep -q "prec:overhead: cpu=.* type=stolen" ps.txt &&
	perf_clean perf script -i plain.data -s "$PREC_SRC/scripts/prec-overhead.py" >py.txt &&
	grep -E "^ +[0-9]+ +stolen +[1-9]" py.txt'

# --switch-output: every file gets the names of the types (the hooks' start records), not only
# the first
mkdir rot && "$PREC" record -q -o rot/r.data -F 1000 --overhead-interval 200ms \
	--switch-output=1s -- "$HOT3" -c 2.2 >/dev/null 2>&1
test_expect "--switch-output: each file's prec:overhead rows are named [prec:<type>]" '
	n=0
	for f in rot/r.data.*; do
		perf_clean perf report -i "$f" --stdio >rot.txt || return 1
		section rot.txt prec:overhead | grep -E "^ +[0-9.]+%" >rot.rows
		[ -s rot.rows ] || continue
		n=$((n + 1))
		if grep -v -E "\[k\] \[prec:[a-z]+\] *$" rot.rows; then
			fail "$f: a row without its name"
			return 1
		fi
	done
	echo "$n files with prec:overhead rows"
	[ "$n" -ge 2 ]
'

done_testing
