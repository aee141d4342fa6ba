#!/bin/bash
# t2014: prec report --metrics on real recordings of a group with sample read. The workload
# (tests/workloads/phases) calls a function that takes page faults, one that computes and one
# that sleeps, in turn. The faulting one computes for 2 ms of CPU time first, ten windows of
# 200 us of task-clock and more than a window stretches to on a busy machine, and takes its
# faults in a burst at its end, a few windows long. Recorded by prec record and by perf record
# with the same events, each file shows:
# - the problem: perf report --group gives the faulting function well under 90% of the page
#   faults (the window that holds the end of the burst ends in the next function, which gets
#   that part of the burst; a longer window, on a busy machine, only makes that part larger);
# - the answer: prec report --metrics, which keeps only the windows that stay in one function,
#   gives it at least 95% of the page faults it attributes (a window would have to be longer
#   than the whole faulting function to begin and end outside it and hold its faults), and
#   says how many windows it discarded, in its header and its JSON;
# - nothing lost: the attributed, discarded, long and throttled windows add up to every leader
#   sample but the first of each counter instance and thread (the samples, their instances and
#   threads as perf report -D prints them).
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

W=$PREC_BUILD/tests/workloads/phases
EV='{task-clock,page-faults,context-switches}:uS'
FAULTER=fault_fn

# The same workload recorded by both; 0.3 s of its CPU time is about 1500 samples. perf's
# without its BPF side band, which only makes perf wait a second as it stops (the events are
# user-only: no BPF program would be in a sample).
"$PREC" record -q -o prec.data -e "$EV" -c 200000 -- "$W" 0.3 >prec.out 2>prec.err
echo $? >prec.rc
perf record -q --no-bpf-event -o perf.data -e "$EV" -c 200000 -- "$W" 0.3 >perf.out 2>perf.err
echo $? >perf.rc

# group_share FILE SYM: the share perf report --group gives SYM of the group's second event
group_share() {
	awk -v s="$2" '$4 == "[.]" && $5 == s { sub("%", "", $2); print $2; exit }' "$1"
}

# windows.py JSON TABLE SAMPLES KEYS SYM: the checks of the metrics' JSON and table, one line
# each, "NAME ok: WHAT" or "NAME failed: WHY" (one Python run per file: its start is slow)
cat >windows.py <<'EOF'
import json, sys

doc = json.load(open(sys.argv[1]))
table, samples, keys = open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
sym = sys.argv[5]
w = doc["windows"]


def check(name, fn):
    try:
        print("%s ok: %s" % (name, fn()))
    except Exception as ex:
        print("%s failed: %s" % (name, ex))


def share():
    total = doc["totals"]["page-faults"]
    mine = sum(f["counts"]["page-faults"] for f in doc["functions"] if f["symbol"] == sym)
    pct = 100.0 * mine / total if total else 0
    assert total > 0 and pct >= 95, "%s has %.2f%% of %d page faults" % (sym, pct, total)
    return "%s has %.2f%% of %d attributed page faults" % (sym, pct, total)


def discarded():
    line = [l for l in table.splitlines() if l.startswith("# Windows:")]
    assert line, "no Windows line in the header"
    said = int(line[0].split(",")[1].split()[0])
    assert w["discarded"] > 0 and said == w["discarded"], "%s; JSON %r" % (line[0], w)
    assert sum(f["discarded"] for f in doc["functions"]) == w["discarded"], "rows"
    return line[0]


def accounts():
    n = w["attributed"] + w["discarded"] + w["long"] + w["throttled"]
    assert n == samples - keys, "%r: %d windows for %d samples, %d keys" % (w, n, samples, keys)
    assert sum(f["samples"] for f in doc["functions"]) == w["attributed"], "rows"
    return "%r: %d samples, %d keys" % (w, samples, keys)


check("share", share)
check("discarded", discarded)
check("accounts", accounts)
EOF

# verdict NAME FILE: the check NAME passed (its line is printed either way)
verdict() {
	grep "^$1 " "$2"
	grep -q "^$1 ok: " "$2"
}

for rec in prec perf; do
	F=$rec.data
	test_expect "$rec record of the workload" '
		test "$(cat $rec.rc)" = 0 || { cat $rec.err; false; }
	'
	perf report -i "$F" --group --stdio --sort sym >"$rec.group" 2>"$rec.group.err"
	# perf's dump of the samples that read the group: per sample, its counter instance (the
	# leader's id, the first value read) and its thread
	perf report -i "$F" -D 2>/dev/null | awk '
		/PERF_RECORD_SAMPLE/ { split($0, a, ": "); split(a[3], p, "/"); tid = p[2]; want = 1 }
		want && /^\.\.\.\.\. id / { print $3, tid; want = 0 }' >"$rec.reads"
	sort -u "$rec.reads" >"$rec.keys"
	"$PREC" report -i "$F" --metrics >"$rec.metrics" 2>"$rec.metrics.err"
	"$PREC" report -i "$F" --metrics --json >"$rec.json" 2>"$rec.json.err"
	samples=$(wc -l <"$rec.reads")
	keys=$(wc -l <"$rec.keys")
	"$PYTHON" windows.py $rec.json $rec.metrics "$samples" "$keys" $FAULTER >$rec.verdict 2>&1
	share=$(group_share "$rec.group" $FAULTER)
	echo "# $rec record: perf report --group gives $FAULTER ${share:-no}% of the page faults"
	grep '^share ok' $rec.verdict | sed "s/^share ok: /# $rec record: --metrics: /"

	test_expect "$rec record: perf report --group shows the windows that span functions" '
		no_stderr $rec.group.err &&
		test -n "$share" && awk -v s="$share" "BEGIN { exit !(s > 30 && s < 90) }" ||
		fail "$FAULTER has ${share:-no}% of the page faults in perf report --group"
	'
	test_expect "$rec record: --metrics gives $FAULTER at least 95% of the page faults" '
		no_stderr $rec.json.err && verdict share $rec.verdict
	'
	test_expect "$rec record: --metrics says how many windows it discarded" '
		no_stderr $rec.metrics.err && verdict discarded $rec.verdict
	'
	test_expect "$rec record: the windows account for every sample but each key's first" '
		test "$keys" -gt 0 &&
		grep -q "^# Group {task-clock,page-faults,context-switches}: $samples samples of task-clock$" \
			$rec.metrics && verdict accounts $rec.verdict
	'
done

done_testing
