#!/bin/bash
# t3001: prec report --overhead's findings, provoked for real by prec record on this machine: a
# frequency above the kernel's limit (rate-capped, and the throttling it brings), a one-page
# buffer with -g at a high rate (lost), the same with a side-band storm (lost, as a share of
# the records), a side-band storm of mmaps and exec'd children (sideband), a high rate
# (sample-cost); and silence on a modest recording (hot3 at 200 Hz).
# --fail-above exits 3 on the costly recording and 0 on the modest one.
# It lowers kernel.perf_event_max_sample_rate for a while and measures costs: nothing else may
# sample meanwhile.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
PREC_TEST_EXCLUSIVE=1
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
STORM=$PREC_BUILD/tests/workloads/sbstorm
[ -x "$HOT3" ] && [ -x "$STORM" ] || skip_all "the hot3 and sbstorm workloads are not built"
export HOME=$T/home
mkdir -p "$HOME"

# json FILE PYEXPR, with d the document and ids the finding ids
json() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
ids = sorted(f["id"] for f in d["findings"])
def finding(i):
    return [f for f in d["findings"] if f["id"] == i][0]
def nr(t):
    return sum(k["nr"] for c in d["cpus"] for k in c["costs"] if k["type"] == t)
r = eval(sys.argv[2])
print(json.dumps(r) if isinstance(r, (dict, list, bool)) or r is None else r)' "$1" "$2"
}

# rec NAME PREC-RECORD-ARGS...: record, then the report as text and JSON. The findings are shares
# of a CPU per second of wall time: the workloads that must provoke one are $FAVOURED (lib.sh).
rec() {
	local name=$1
	shift
	"$PREC" record -o "$name.data" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
	"$PREC" report --overhead -i "$name.data" >"$name.txt" 2>"$name.rerr"
	"$PREC" report --overhead -i "$name.data" --json >"$name.json" 2>/dev/null
}

# The kernel lowers its sample-rate limit when interrupts take too long (and this file lowers it
# on purpose below): whatever happens, the limit is put back at the end.
limit=/proc/sys/kernel/perf_event_max_sample_rate
old=$(cat $limit)
at_exit "echo $old >$limit"

# Modest whatever the host: a cpu-clock sample has cost from 14 us to 45 us on machines of this
# kind (a loop of 0.435 s took 0.80 s at 10 kHz on one), so 1 kHz can be 4.5% of a CPU, near the
# 5% of sample-cost. At 200 Hz that finding needs 250 us per sample.
rec modest -q -e cpu-clock -F 200 -- "$HOT3" -c 1
# 50 kHz: above the 5% threshold even when other jobs leave hot3 a tenth of a CPU
rec costly -q -e cpu-clock -F 50000 -- $FAVOURED "$HOT3" -c 1

test_expect "a modest recording (hot3 at 200 Hz): measured, and not a single finding" '
	test "$(cat modest.rc)" = 0 && no_stderr modest.rerr &&
	[ "$(json modest.json "d[\"overhead_records\"] > 0 and d[\"worst_cpu\"] is not None")" = true ] &&
	{ [ "$(json modest.json "ids")" = "[]" ] || { sed -n "/^#   CPU [0-9]*: /p;/^# findings/,\$p" modest.txt; false; }; } &&
	grep -q "^# findings: none" modest.txt
'

test_expect "a costly recording (hot3 at 50 kHz): sample-cost, with the calibrated cost" '
	test "$(cat costly.rc)" = 0 &&
	json costly.json "finding(\"sample-cost\")[\"message\"]" | tee msg &&
	grep -q "samples/s x [0-9.]* us per sample (stolen time, calibrated" msg &&
	[ "$(json costly.json "finding(\"sample-cost\")[\"value\"] > 5")" = true ]
'

test_expect "--fail-above 5: exit 3 on the costly recording, 0 on the modest one" '
	"$PREC" report --overhead -i costly.data --fail-above 5 >/dev/null 2>fa.err; rc=$?
	[ $rc = 3 ] || fail "costly: exit $rc" || return 1
	grep -q "above --fail-above 5" fa.err &&
	"$PREC" report --overhead -i modest.data --fail-above 5 >/dev/null 2>fb.err; rc=$?
	[ $rc = 0 ] || fail "modest: exit $rc" || return 1
	no_stderr fb.err
'

# The kernel's limit, lowered for two recordings.
if echo 2000 >$limit 2>/dev/null; then
	rec capped -e cpu-clock -F 8000 -- $FAVOURED "$HOT3" -c 1
	rec period -q -e cpu-clock -c 50000 -- $FAVOURED "$HOT3" -c 1
	echo "$old" >$limit
	test_expect "-F 8000 above a limit of 2000: prec warns, the report says rate-capped" '
		test "$(cat capped.rc)" = 0 &&
		grep -q "^prec: warning: -F 8000 is above the kernel.s limit" capped.err &&
		json capped.json "finding(\"rate-capped\")[\"message\"]" | tee msg &&
		grep -q "cpu-clock asked for 8000 Hz, above the kernel.s limit of 2000" msg &&
		[ "$(json capped.json "d[\"facts\"][\"max_sample_rate_before\"]")" = 2000 ]
	'
	throttled=$(json period.json "nr(\"throttle\")")
	if [ "${throttled:-0}" -gt 0 ]; then
		test_expect "-c 50000 (20 kHz) under a limit of 2000: the kernel throttles; throttle" '
			json period.json "finding(\"throttle\")[\"message\"]" | tee msg &&
			grep -q "the kernel throttled sampling [0-9]* time" msg &&
			grep -q "was 2000 before" msg
		'
	else
		test_skip "throttle for real" "the kernel did not throttle -c 50000 this time"
	fi
else
	test_skip "rate-capped for real" "cannot write $limit"
	test_skip "throttle for real" "cannot write $limit"
fi

# One page of ring buffer, call chains, 20 kHz: the kernel drops what prec cannot drain.
rec lost -q -m 1 -g -e cpu-clock -F 20000 -- $FAVOURED "$HOT3" -c 1
lost=$(json lost.json "nr(\"lost\")")
if [ "${lost:-0}" -gt 0 ]; then
	test_expect "lost for real (-m 1 -g -F 20000): the count, and -m advice" '
		json lost.json "finding(\"lost\")[\"message\"] + \" // \" + finding(\"lost\")[\"advice\"]" |
			tee msg &&
		grep -Eq "^$lost events lost \([0-9.]+% of [0-9]+ records: [0-9]+ samples, [0-9]+ side-band, $lost lost\)" msg &&
		grep -q "larger ring buffers: -m [0-9]* (now 1 page)" msg &&
		grep -q "no -g" msg
	'
else
	test_skip "lost for real" "nothing was lost with a one-page buffer this time"
fi

# A side-band storm into one-page rings: what the kernel drops is mostly side-band records, so
# the share lost is of every record the rings were to carry, not of the samples alone (which
# would put it near 100%).
rec sblost -q -m 1 -e cpu-clock -F 1000 -- $FAVOURED "$STORM" 50000 50
sblost=$(json sblost.json "nr(\"lost\")")
if [ "${sblost:-0}" -gt 0 ]; then
	test_expect "lost in a side-band storm: a share of the records, side-band included" '
		json sblost.json "finding(\"lost\")[\"message\"]" | tee msg &&
		"$PYTHON" - sblost.json msg <<-EOF
		import json, re, sys
		d = json.load(open(sys.argv[1]))
		f = [f for f in d["findings"] if f["id"] == "lost"][0]
		m = re.match(r"(\d+) events lost \(([0-9.]+)% of (\d+) records: (\d+) samples, "
		             r"(\d+) side-band, (\d+) lost\)", open(sys.argv[2]).read())
		assert m, "no share of records in the message"
		lost, pct, n, s, b, l = [float(x) for x in m.groups()]
		sb = sum(k["nr"] for c in d["cpus"] for k in c["costs"] if k["type"] == "sideband")
		assert lost == l and b == sb and b > 0, (lost, l, b, sb)
		assert n >= s + b + l, (n, s, b, l)
		assert abs(f["value"] - 100 * l / n) < 0.01, (f["value"], l, n)
		assert f["value"] < 100 * l / (s + l), "a share of the samples"
		print("%d of %d records lost (%.2f%%); of the samples alone it would read %.2f%%" %
		      (l, n, f["value"], 100 * l / (s + l)))
		EOF
	'
else
	test_skip "lost in a side-band storm" "nothing was lost with one-page rings this time"
fi

# 200000 mappings of an executable and 200 exec'd children. The workload runs ahead of prec's
# reader, so on a busy machine the rings overflow: each mapping's record either arrives or is
# counted lost (CI once saw 91086 arrive), and the two together account for all 200000.
rec storm -q -e cpu-clock -F 1000 -- $FAVOURED "$STORM" 200000 200
test_expect "a side-band storm (mmaps, exec'd children): sideband, by kind, with advice" '
	test "$(cat storm.rc)" = 0 &&
	json storm.json "finding(\"sideband\")[\"message\"] + \" // \" + finding(\"sideband\")[\"advice\"]" |
		tee msg &&
	grep -q "by kind: MMAP2 [0-9]*%" msg && grep -q "mmap storm" msg &&
	json storm.json "(d[\"facts\"][\"source\"], nr(\"sideband\"), nr(\"lost\"))" &&
	[ "$(json storm.json "d[\"facts\"][\"source\"] != \"none\" and nr(\"sideband\") >= 10000 and nr(\"sideband\") + nr(\"lost\") >= 200000")" = true ]
'

done_testing
