#!/bin/bash
# t1014: what prec record -o - writes survives perf 6.1's pipe tools, as the pipe test perf ships
# (tests/shell/pipe_test.sh) runs them, with the prec:overhead figures kept. perf 6.1 cannot take
# tracing data in a stream through perf report --task (no handler: the blob is read as records)
# nor through perf inject (it reads its input through a stdio buffer, the blob straight from the
# descriptor): its own pipe recordings of any tracepoint fail both ways. So in a stream
# prec:overhead travels as a bpf-output event with its tracepoint id in config1 and no tracing
# data goes out (unless a kernel tracepoint needs it); prec report and scripts/prec-overhead.py
# read the figures in either form.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"

# One recording, fed to each tool from a file as a pipe would feed it (the tools read a pipe the
# same way whatever writes into it); the live pipes below check the same with prec writing.
"$PREC" record -q -e task-clock:u -o - -- "$HOT3" -c 0.2 >rec.pipe 2>rec.err ||
	skip_all "prec record -o - failed: $(head -1 rec.err)"

OVR=$PREC_SRC/scripts/prec-overhead.py
CNT=$PREC_SRC/scripts/prec-counters.py

# json EXPR: EXPR of the JSON document on stdin (d)
json() {
	"$PYTHON" -c "import json, sys; d = json.load(sys.stdin); print($1)"
}

# rows FILE: the per-CPU rows of an overhead table (prec report --overhead, prec-overhead.py)
rows() {
	sed -n "/^# *CPU  type/,/^#/p" "$1" | grep -E "^ +-?[0-9]+ "
}

test_expect "the recording is quiet and carries prec:overhead" '
	no_stderr rec.err &&
	"$PREC" report -i rec.pipe --overhead >ovr.txt 2>ovr.err && no_stderr ovr.err &&
	[ "$(rows ovr.txt | wc -l)" -gt 0 ] &&
	rows ovr.txt | grep -qE "^ +-1  recorder "
'

test_expect "no tracing data in the stream: prec:overhead is bpf-output, config1 its id" '
	perf_clean perf report -i - -D <rec.pipe >dump.txt &&
	! grep -q "TRACING_DATA" dump.txt &&
	[ "$(grep -c ": PERF_RECORD_ATTR$" dump.txt)" = 2 ] &&
	perf_clean perf evlist -v -i - <rec.pipe >evlist.txt &&
	grep -qE ": type: 1, size: 128, config: 0xa, .*RAW.*config1 }: 0xfde8$" evlist.txt
'

test_expect "perf report -i - --task (live pipe) lists the workload" '
	"$PREC" record -q -e task-clock:u -o - -- "$HOT3" -c 0.2 2>live.err |
		perf_clean perf report -i - --task >task.txt &&
	no_stderr live.err &&
	grep -qE "^ +[0-9]+ +[0-9]+ +-?[0-9]+ +\|hot3$" task.txt
'

test_expect "perf report -i -: the workload and prec:overhead" '
	perf_clean perf report -i - --stdio <rec.pipe >report.txt &&
	grep -qE "%  hot3 +hot3 +\[\.\] hot_a" report.txt &&
	grep -q "of event '\''prec:overhead'\''" report.txt
'

test_expect "perf inject -b | perf report -i - (live pipe)" '
	"$PREC" record -q -e task-clock:u -o - -- "$HOT3" -c 0.2 2>live2.err |
		perf_clean perf inject -b | perf_clean perf report -i - --stdio >inj.txt &&
	no_stderr live2.err &&
	grep -qE "%  hot3 +hot3 +\[\.\] hot_a" inj.txt &&
	grep -q "of event '\''prec:overhead'\''" inj.txt
'

test_expect "perf inject -b -o FILE, then perf report and prec report --overhead on it" '
	perf_clean perf inject -b -o inj.data <rec.pipe &&
	perf_clean perf report -i inj.data --stdio >injf.txt &&
	grep -qE "%  hot3 +hot3 +\[\.\] hot_a" injf.txt &&
	perf_clean perf buildid-list -i inj.data | grep -q "hot3$" &&
	"$PREC" report -i inj.data --overhead >injovr.txt 2>injovr.err && no_stderr injovr.err &&
	diff <(rows ovr.txt) <(rows injovr.txt)
'

test_expect "perf script -i -: every sample, prec:overhead as its bpf-output payload" '
	perf_clean perf script -i - <rec.pipe >script.txt &&
	"$PREC" report -i rec.pipe --overhead --json >ovr.json 2>/dev/null &&
	n=$(json "d[\"overhead_records\"]" <ovr.json) &&
	[ "$(grep -ac " prec:overhead: " script.txt)" = "$n" ] &&
	[ "$(grep -ac "BPF output: 0000: e8 fd 00 00" script.txt)" = "$n" ] &&
	grep -aqE " task-clock:u: +[0-9a-f]+ hot_a\+" script.txt
'

if have perf-python python; then
	test_expect "perf script -s prec-overhead.py on a pipe: prec report --overhead rows" '
		perf_clean perf script -i - -s "$OVR" <rec.pipe >py.txt &&
		[ "$(rows py.txt | wc -l)" -gt 0 ] &&
		diff <(rows ovr.txt) <(rows py.txt)
	'
	test_expect "... and after perf inject -b, from a pipe and from the file" '
		perf_clean perf inject -b <rec.pipe |
			perf_clean perf script -i - -s "$OVR" >py2.txt &&
		diff <(rows ovr.txt) <(rows py2.txt) &&
		perf_clean perf script -i inj.data -s "$OVR" >py3.txt &&
		diff <(rows ovr.txt) <(rows py3.txt)
	'
	# A pipe cannot be read twice, so the script is told the event names after --.
	test_expect "perf script -s prec-counters.py on a pipe: prec report's count" '
		"$PREC" record -q --count task-clock -e task-clock:u -o - -- "$HOT3" -c 0.2 \
			2>cnt.err >cnt.pipe && no_stderr cnt.err &&
		perf_clean perf script -i - -s "$CNT" -- task-clock <cnt.pipe >cnt.txt &&
		"$PREC" report -i cnt.pipe --counters --json >cnt.json 2>/dev/null &&
		n=$(json "[e[\"count\"] for e in d[\"events\"] if e[\"name\"] == \"task-clock\"]" \
			<cnt.json | tr -d "[]") &&
		grep -qE "^ +[0-9]+ +$n task-clock " cnt.txt
	'
else
	test_skip "perf script -s on a pipe" "perf without Python scripting"
fi

# perf report --task and perf inject fail on this stream as on perf record -o -'s own.
test_expect "a kernel tracepoint brings tracing data, and prec:overhead stays a tracepoint" '
	"$PREC" record -q -e sched:sched_switch -o - -- sleep 0.05 >tp.pipe 2>tp.err &&
	no_stderr tp.err &&
	perf_clean perf report -i - -D <tp.pipe | grep -q ": PERF_RECORD_TRACING_DATA$" &&
	perf_clean perf script -i - <tp.pipe >tp.txt &&
	grep -aq "sched:sched_switch: prev_comm=" tp.txt &&
	grep -aq "prec:overhead: cpu=-1 type=recorder" tp.txt
'

done_testing
