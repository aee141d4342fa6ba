#!/bin/bash
# t3101: prec report --overhead on files the real perf records here, which carry no prec:overhead
# figures: it says so, judges perf's own records, and provokes what this machine allows for real:
# samples lost from a one-page buffer with -g at a high rate (counted as perf counts them), the
# same event opened twice, a fixed period so short that the kernel interrupts 50000 times a
# second. A modest perf recording has no finding.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "the hot3 workload is not built"
"$PREC" report --help 2>&1 | grep -q -- '--overhead' || skip_all "prec report has no --overhead"

json() {
	"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); r = eval(sys.argv[2]); print(json.dumps(r) if isinstance(r, (dict, list, bool)) or r is None else r)' "$1" "$2"
}

perf record -q -o modest.data -e cpu-clock -F 1000 -- "$HOT3" -c 0.3 >/dev/null 2>&1
# lost and short-period are rates per second of wall time: their workloads are $FAVOURED (lib.sh)
perf record -q -o lost.data -m 1 -g -e cpu-clock -F 20000 -- $FAVOURED "$HOT3" -c 1 >/dev/null 2>&1
perf record -q -o dup.data -e cpu-clock -e cpu-clock -F 1000 -- "$HOT3" -c 0.3 >/dev/null 2>&1
perf record -q -o short.data -e cpu-clock -c 20000 -- $FAVOURED "$HOT3" -c 0.3 >/dev/null 2>&1

test_expect "a perf recording: read, said to have no prec figures, no finding" '
	"$PREC" report --overhead -i modest.data >m.txt 2>m.err &&
	no_stderr m.err &&
	grep -q "^# no prec:overhead records" m.txt &&
	grep -q "^# findings: none" m.txt &&
	"$PREC" report --overhead -i modest.data --json >m.json &&
	[ "$(json m.json "[d[\"findings\"], d[\"worst_cpu\"], d[\"overhead_records\"]]")" = "[[], null, 0]" ]'

test_expect "--fail-above without any overhead figure: a warning, not a failure" '
	"$PREC" report --overhead -i modest.data --fail-above 1 >/dev/null 2>fa.err &&
	grep -q "no CPU has a known overhead" fa.err'

# perf's own count of what it lost: LOST records, and its LOST_SAMPLES (the same loss, seen from
# the event); prec reports the larger and never their sum.
lost=$(perf report -i lost.data -D 2>/dev/null | awk '
	/PERF_RECORD_LOST:/ { sub(/.*lost:/, ""); l += $1 }
	/PERF_RECORD_LOST_SAMPLES:/ { sub(/.*lost samples :/, ""); s += $1 }
	END { print (l > s ? l : s) + 0 }')
if [ "${lost:-0}" -gt 0 ]; then
	test_expect "lost for real (-m 1 -g -F 20000): the count perf records, and advice" '
		"$PREC" report --overhead -i lost.data >l.txt 2>l.err &&
		no_stderr l.err &&
		grep "^\[[a-z]*\] lost: $lost events lost" l.txt &&
		grep -q "advice: larger ring buffers .*no -g" l.txt'
else
	test_skip "lost for real" "perf lost nothing with a one-page buffer this time"
fi

test_expect "duplicate-events for real: -e cpu-clock -e cpu-clock" '
	"$PREC" report --overhead -i dup.data --json >d.json &&
	[ "$(json d.json "[(f[\"id\"], f[\"severity\"]) for f in d[\"findings\"]]")" = "[[\"duplicate-events\", \"warn\"]]" ]'

test_expect "pipe mode: the events arrive with the data and are judged alike" '
	perf record -q -o - -e cpu-clock -e cpu-clock -F 1000 -- "$HOT3" -c 0.2 2>/dev/null |
		"$PREC" report --overhead -i - --json >pd.json &&
	[ "$(json pd.json "[(f[\"id\"], f[\"event\"]) for f in d[\"findings\"]]")" = "[[\"duplicate-events\", \"cpu-clock\"]]" ] &&
	[ "$(json pd.json "d[\"facts\"][\"present\"]")" = false ]'

test_expect "short-period for real: cpu-clock every 20000 ns, the rate alone" '
	"$PREC" report --overhead -i short.data --json >s.json &&
	msg=$(json s.json "[f[\"message\"] + \" // \" + f[\"advice\"] for f in d[\"findings\"] if f[\"id\"] == \"short-period\"][0]") &&
	echo "$msg" &&
	case "$msg" in *"cpu-clock samples every 20000 events"*"not measured"*) ;; *) return 1 ;; esac &&
	p=$(echo "$msg" | sed -n "s/.*a period of \([0-9]*\) or more.*/\1/p") &&
	[ "$p" -gt 20000 ]'

done_testing
