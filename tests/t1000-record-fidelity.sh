#!/bin/bash
# t1000: prec record's profile, judged by perf 6.1. hot3 spends 50/30/20 of its work in hot_a,
# hot_b and hot_c, called as main -> run_round -> hot_*. prec records it at 4000 Hz; perf report
# on prec's file must show the three within 3 points of 50/30/20 and of perf's own recording of
# the same program, with -g the callers, and perf script the symbols, all without a word on
# stderr. The main recording measures its overhead, as prec record does by default (a
# prec:overhead event beside cpu-clock); the others turn it off (--overhead-source=none), which
# spares them the calibration.
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
# perf's build-id cache must not help it resolve what prec's file does not say
export HOME=$T/home
mkdir -p "$HOME"

"$PREC" record -e cpu-clock -F 4000 -o prec.data -- "$HOT3" -c 2 >rec.out 2>rec.err
rec_rc=$?
perf record -q -e cpu-clock -F 4000 -o perf.data -- "$HOT3" -c 2 >/dev/null 2>perf-rec.err

test_expect "prec record exits 0 and prints perf's summary lines" '
	test $rec_rc = 0 &&
	grep -Eq "^\[ prec record: Woken up [0-9]+ times to write data \]$" rec.err &&
	grep -Eq "^\[ prec record: Captured and wrote [0-9.]+ MB prec.data \([0-9]+ samples\) \]$" \
		rec.err
'

test_expect "perf report reads prec's file without a word on stderr" '
	perf_clean perf report -i prec.data --stdio --no-children --sort sym >prec.rep
'
perf report -i perf.data --stdio --no-children --sort sym >perf.rep 2>/dev/null

for f in "hot_a 50" "hot_b 30" "hot_c 20"; do
	set -- $f
	test_expect "$1 is within 3 points of $2% and of perf's own recording" '
		p=$(hot3_share prec.rep '$1'); q=$(hot3_share perf.rep '$1')
		echo "prec $p%, perf $q%, expected '$2'%"
		near "$p" '$2' && near "$p" "$q"
	'
done

test_expect "the file measured its overhead: perf lists prec:overhead beside cpu-clock" '
	grep -q "^\[ prec record: overhead measured by " rec.err &&
	test "$(perf evlist -i prec.data 2>/dev/null | grep -v "^#" | sort | tr "\n" " ")" = "cpu-clock prec:overhead "
'

# The prec:overhead samples are not the workload's: count cpu-clock's only.
test_expect "the cpu-clock samples perf counts are the ones prec says it wrote" '
	n=$(sed -nE "s/.*\(([0-9]+) samples\).*/\1/p" rec.err)
	m=$(perf script -i prec.data -F event,ip 2>/dev/null | grep -c "^ *cpu-clock: ")
	echo "prec: $n, perf script: $m cpu-clock samples"
	test -n "$n" && test "$n" -gt 0 && test "$n" = "$m"
'

test_expect "perf script resolves the hot symbols and the binary" '
	perf_clean perf script -i prec.data -F comm,tid,time,event,ip,sym,dso >prec.script &&
	for s in hot_a hot_b hot_c; do
		grep -q " $s (.*hot3)" prec.script || { fail "no $s in perf script"; exit 1; }
	done
'

test_expect "the file has hot3's build-id and the sample time range" '
	perf buildid-list -i prec.data >bid 2>bid.err && no_stderr bid.err &&
	grep -q "hot3$" bid &&
	perf report -i prec.data --header-only 2>/dev/null | grep -q "^# time of first sample"
'

# callers FILE SYM: in perf report's call graph FILE, SYM is called by run_round, called by main,
# in 99% of its samples at least. perf draws "---run_round" when every sample has that chain and
# "--P%--run_round" when some do not: a sample taken on a function's first instruction, before
# it saved the frame pointer, has a chain without the caller (perf's own recordings too), and
# any recording may have one.
callers() {
	awk -v s="$2" '
		$3 == s { on = 1; self = $1 + 0; next }
		on && /---run_round$/ { r = self; next }
		on && /--[0-9.]+%--run_round$/ {
			match($0, /[0-9.]+%/); r = substr($0, RSTART) + 0; next }
		on && r && $NF == "main" { ok = r >= 0.99 * self; exit }
		on && /%  \[/ { exit }
		END { printf "%s: %s%% of the samples, %s%% through run_round\n", s, self, r
			exit !ok }' "$1"
}

# Call graphs: perf shows run_round and main under each hot function.
"$PREC" record -q -g -e cpu-clock --overhead-source=none -o g.data -- "$HOT3" -c 1 2>g.err
test_expect "-g: perf report shows the callers run_round and main" '
	no_stderr g.err &&
	perf_clean perf report -i g.data --stdio --no-children --sort sym >g.rep &&
	for s in hot_a hot_b hot_c; do
		callers g.rep $s || { fail "no run_round <- main under $s"; exit 1; }
	done
'
test_expect "-g: perf script prints the chains with symbols" '
	perf_clean perf script -i g.data -F ip,sym >g.script &&
	grep -q " run_round$" g.script && grep -q " main$" g.script
'

# The default event: cycles, or cpu-clock where the machine has no PMU; as perf, only -v says so.
"$PREC" record --overhead-source=none -o d.data -- "$HOT3" -c 0.3 >/dev/null 2>d.err
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	test_expect "no -e: cycles" 'perf evlist -i d.data 2>/dev/null | grep -qx "cycles"'
else
	test_expect "no -e, no PMU: cpu-clock at 4000 Hz (a 250000 ns period), silently without -v" '
		! grep -q "cycles" d.err &&
		perf evlist -v -i d.data 2>/dev/null |
			grep -q "^cpu-clock: .*sample_freq }: 250000, sample_type: IP|TID|TIME,"
	'
	test_expect "-e cycles without a PMU falls back to cpu-clock, as perf does" '
		"$PREC" record -e cycles --overhead-source=none -o c.data -- true 2>c.err &&
		perf evlist -i c.data 2>/dev/null | grep -qx "cpu-clock"
	'
fi

done_testing
