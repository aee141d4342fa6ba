#!/bin/bash
# t3002: the calibrations one recording measures, the next recording of the same boot and events
# takes from the cache (overhead/calib-cache.h) instead of spinning every CPU again: the same
# figures, and the facts, the report and the summary line say how old they are. Another event
# (-g), --recalibrate, a cache of another boot or a damaged one are measured anew; a cache that
# cannot be written changes nothing but the time.
# Its calibrations hold every CPU with SCHED_FIFO probes and storm the side-band of system-wide
# recordings: it runs alone, as t3000 and t3001 do.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
PREC_TEST_EXCLUSIVE=1
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "the hot3 workload is not built"
export HOME=$T/home
mkdir -p "$HOME"
unset XDG_CACHE_HOME
cache=$HOME/.cache/prec/calibration

# facts FILE: the stolen figures and the calibrations' age from prec report --overhead --json
facts() {
	"$PREC" report --overhead --json -i "$1" | "$PYTHON" -c '
import json, sys
f = json.load(sys.stdin)["facts"]
print(json.dumps([f["calibration_age_ns"], f["stolen"]]))'
}

# rec NAME PREC-ARGS...: record hot3 into NAME.data, -v on stderr into NAME.err
rec() {
	local name=$1
	shift
	"$PREC" record -v -o "$name.data" "$@" -- "$HOT3" 0.1 >/dev/null 2>"$name.err"
	echo $? >"$name.rc"
	facts "$name.data" >"$name.facts" 2>"$name.facts.err"
}

measured() { grep -q "stolen time per sample on CPU" "$1.err" && ! grep -q cached "$1.err"; }
cached() {
	grep -q "overhead calibrations from the cache" "$1.err" &&
		! grep -q "stolen time per sample on CPU" "$1.err" &&
		grep -q "calibrated at .* s ago (cached; --recalibrate measures anew) \]" "$1.err"
}
age() { "$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))[0])' "$1.facts"; }
stolen() { "$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))[1])' "$1.facts"; }

rec first -e cpu-clock
test_expect "the first recording measures, and keeps the figures of every CPU" '
	test "$(cat first.rc)" = 0 && measured first && test "$(age first)" = 0 &&
	test "$(grep -c " stolen " "$cache")" = "$(nproc)" &&
	grep -q " sideband-mmap " "$cache" && grep -q " sideband-comm " "$cache" &&
	grep -q "^$(cat /proc/sys/kernel/random/boot_id) " "$cache"
'

rec second -e cpu-clock
test_expect "the next one with the same event takes them: the same figures, and their age" '
	test "$(cat second.rc)" = 0 && cached second &&
	test "$(age second)" -gt 0 && test "$(stolen second)" = "$(stolen first)" &&
	"$PREC" report --overhead -i second.data |
		grep -q "^# stolen time per sample: calibrated on [0-9]* CPUs*, .* before this recording (prec record.s cache"
'
test_expect "perf reads the file as cleanly" '
	perf_clean perf report -i second.data --stdio >/dev/null &&
	perf_clean perf script -i second.data >/dev/null
'

rec callgraph -e cpu-clock -g
test_expect "-g is another event to calibrate: measured, and kept beside the first" '
	test "$(cat callgraph.rc)" = 0 && measured callgraph && test "$(age callgraph)" = 0 &&
	test "$(grep -c " stolen " "$cache")" = "$(($(nproc) * 2))"
'

cp "$cache" before
rec again -e cpu-clock --recalibrate
test_expect "--recalibrate measures anew and renews the cache" '
	test "$(cat again.rc)" = 0 && measured again && test "$(age again)" = 0 &&
	! cmp -s before "$cache"
'

sed "s/^[0-9a-f-]\{36\} /00000000-0000-0000-0000-000000000000 /" "$cache" >other && cp other "$cache"
rec otherboot -e cpu-clock
test_expect "a cache of another boot: measured, and that boot's lines are gone" '
	test "$(cat otherboot.rc)" = 0 && measured otherboot &&
	! grep -q "^00000000-0000-0000-0000-000000000000 " "$cache"
'

printf 'prec-calibration 1\nnot a line\n\001\002\n' >"$cache"
rec damaged -e cpu-clock
test_expect "a damaged cache: measured, and rewritten whole" '
	test "$(cat damaged.rc)" = 0 && measured damaged && ! grep -q "not a line" "$cache" &&
	test "$(head -1 "$cache")" = "prec-calibration 1"
'

HOME=/proc/self "$PREC" record -o unwritable.data -e cpu-clock -- "$HOT3" 0.1 >/dev/null \
	2>unwritable.err
echo $? >unwritable.rc
test_expect "a cache that cannot be written: the recording is the same, without a word" '
	test "$(cat unwritable.rc)" = 0 && ! grep -v "^\[ prec record: " unwritable.err &&
	grep -q "stolen time calibrated at [^(]*/sample \]" unwritable.err &&
	perf_clean perf report -i unwritable.data --stdio >/dev/null
'

done_testing
