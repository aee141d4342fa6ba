#!/bin/bash
# t3100: prec report --overhead on built files whose every figure is known (tests/mkoverhead):
# what this machine cannot produce (NMI handler cost, multiplexing, heavy throttling, a collector
# that could not run) and a modest recording. The JSON carries the figures written, the text
# shows the same ones, each finding fires on the file built to provoke it with advice computed
# from its figures, and the modest files have no finding at all.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require python

MKO=$PREC_BUILD/tests/mkoverhead
[ -x "$MKO" ] || skip_all "tests/mkoverhead is not built (make check builds it)"

"$PREC" report --help 2>&1 | grep -q -- '--overhead' || skip_all "prec report has no --overhead"
overhead_report() {
	"$PREC" report --overhead "$@"
}

KINDS="modest nofacts hardware throttle storm fixed none aggregate"
for k in $KINDS; do
	"$MKO" "$k" "$k.data" >"$k.man" || skip_all "mkoverhead $k failed"
	overhead_report -i "$k.data" >"$k.txt" 2>"$k.err"
	echo $? >"$k.rc"
	overhead_report -i "$k.data" --json >"$k.json" 2>"$k.jerr"
done

# manifest FILE KEY: the manifest lines starting with KEY, without it.
manifest() {
	sed -n "s/^$2 //p" "$1"
}

# jq-like: json FILE PYEXPR, with d the document.
json() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
def cpu(n):
    return [c for c in d["cpus"] if c["cpu"] == n][0]
r = eval(sys.argv[2])
print(json.dumps(r) if isinstance(r, (dict, list, bool)) or r is None else r)' "$1" "$2"
}
# (in the expressions, d is the document and cpu(N) its entry for CPU N)

cat >check.py <<'EOF'
import json, re, sys

def load(kind):
    man = [l.split() for l in open(kind + ".man")]
    return man, json.load(open(kind + ".json")), open(kind + ".txt").read()

def costs_match(kind):
    """The JSON's figures per (cpu, type) are the sums mkoverhead wrote."""
    man, d, _ = load(kind)
    want = {(int(l[1]), l[2]): (int(l[3]), int(l[4])) for l in man if l[0] == "cost"}
    got = {}
    for c in d["cpus"]:
        for k in c["costs"]:
            if k["unavailable"]:
                continue
            key = (c["cpu"], k["type"])
            nr, ns = got.get(key, (0, 0))
            got[key] = (nr + k["nr"], ns + k["time_ns"])
    got = {k: v for k, v in got.items() if v != (0, 0)}
    assert got == want, "%s: JSON %s, written %s" % (kind, got, want)
    for l in man:
        if l[0] == "wall":
            c = [x for x in d["cpus"] if x["cpu"] == int(l[1])][0]
            assert c["wall_ns"] == int(l[2]), "%s: CPU %s wall %s" % (kind, l[1], c["wall_ns"])
        if l[0] == "samples":
            pass
    samples = {}
    for l in man:
        if l[0] == "samples":
            samples[int(l[2])] = samples.get(int(l[2]), 0) + int(l[3])
    for c in d["cpus"]:
        if c["cpu"] >= 0:
            assert c["samples"] == samples.get(c["cpu"], 0), "%s: CPU %d samples" % (kind, c["cpu"])

def text_agrees(kind):
    """Every row of the text table is a JSON cost; the overhead rows, worst CPU and findings
    are the JSON's."""
    _, d, txt = load(kind)
    rows = re.findall(r"^ +(-?\d+)  (\S+) +(\d+) +\S+ \S+ +\S+( +\S+)? +\S+%? +(\S+) +(\S+)", txt, re.M)
    jcosts = {(c["cpu"], k["type"], k["source"], k["status"]): k for c in d["cpus"] for k in c["costs"]}
    n = 0
    for m in re.finditer(r"^ +(-?\d+)  (\S+) +(\d+) ", txt, re.M):
        cpu, typ, nr = int(m.group(1)), m.group(2), int(m.group(3))
        hits = [k for (c, t, s, st), k in jcosts.items() if c == cpu and t == typ and k["nr"] == nr]
        assert hits, "%s: text row %s %s %s is not in the JSON" % (kind, cpu, typ, nr)
        n += 1
    assert n == len([k for k in jcosts.values() if not k["unavailable"]]), "%s: %d rows" % (kind, n)
    for m in re.finditer(r"^ +(\d+)  =overhead +\S+ \S+ +([\d.]+)%", txt, re.M):
        c = [x for x in d["cpus"] if x["cpu"] == int(m.group(1))][0]
        assert abs(c["overhead_pct"] - float(m.group(2))) < 0.006, "%s: CPU %s %s vs %s" % (
            kind, m.group(1), m.group(2), c["overhead_pct"])
    w = re.search(r"^# worst CPU: (\d+), ([\d.]+)%", txt, re.M)
    assert (w is None) == (d["worst_cpu"] is None), kind
    if w:
        assert int(w.group(1)) == d["worst_cpu"]["cpu"], kind
        assert abs(float(w.group(2)) - d["worst_cpu"]["overhead_pct"]) < 0.006, kind
    tf = re.findall(r"^\[(\w+)\] ([\w-]+): ", txt, re.M)
    jf = [(f["severity"], f["id"]) for f in d["findings"]]
    assert tf == jf, "%s: text findings %s, JSON %s" % (kind, tf, jf)
    for f in d["findings"]:
        assert f["message"] in txt and f["advice"] in txt, "%s: %s text differs" % (kind, f["id"])

def findings_as_built(kind):
    man, d, _ = load(kind)
    want = sorted(l[1] for l in man if l[0] == "expect")
    got = sorted(f["id"] for f in d["findings"])
    assert got == want, "%s: findings %s, built to provoke %s" % (kind, got, want)

for kind in sys.argv[2:]:
    globals()[sys.argv[1]](kind)
EOF

test_expect "the report reads every built file (exit 0, nothing on stderr)" '
	for k in $KINDS; do
		[ "$(cat $k.rc)" = 0 ] || fail "$k: exit $(cat $k.rc)" || return 1
		no_stderr $k.err || return 1
		no_stderr $k.jerr || return 1
	done'

test_expect "--json is valid JSON with the documented members" '
	for k in $KINDS; do
		json $k.json "[d[x] for x in (\"cpus\", \"totals\", \"worst_cpu\", \"unavailable\", \"findings\", \"facts\")] and 1" >/dev/null || return 1
	done'

test_expect "the JSON carries the figures written: per CPU and type, wall times, samples" '
	"$PYTHON" check.py costs_match $KINDS'

test_expect "the text shows the JSON figures: rows, overhead per CPU, worst CPU, findings" '
	"$PYTHON" check.py text_agrees $KINDS'

test_expect "each file provokes exactly the findings it was built for" '
	"$PYTHON" check.py findings_as_built $KINDS'

test_expect "modest recordings (with facts, without, without a collector) have no finding" '
	for k in modest nofacts none; do
		grep -q "^# findings: none" $k.txt || fail "$k: findings in the text" || return 1
		[ "$(json $k.json "len(d[\"findings\"])")" = 0 ] || return 1
	done'

test_expect "sample-cost: 14 us stolen per sample at 4 kHz is 5.6%; -F for the 2% budget" '
	stolen=$(manifest hardware.man stolen_ns | awk "NR == 1 { print \$2 }")
	rate=$(manifest hardware.man rate | awk "\$2 == 0 { print \$3 }")
	pct=$(awk -v s="$stolen" -v r="$rate" "BEGIN { printf \"%.1f%%\", s * r / 1e7 }")
	hz=$(awk -v s="$stolen" "BEGIN { printf \"%d\", 2e7 / s }")
	echo "stolen $stolen ns, $rate Hz: $pct, budget rate $hz"
	[ "$pct" = 5.6% ] && [ "$hz" = 1428 ] || fail "the built figures changed" || return 1
	grep "sample-cost: CPU 0 spends $pct of its time" hardware.txt &&
	grep -q "advice: .* -F $hz for cycles" hardware.txt'

test_expect "--budget 1 halves the advised rate" '
	overhead_report -i hardware.data --budget 1 >b1.txt &&
	hz=$(awk -v s="$(manifest hardware.man stolen_ns | awk "NR == 1 { print \$2 }")" \
		"BEGIN { printf \"%d\", 1e7 / s }") &&
	grep -q "advice: .* -F $hz for cycles" b1.txt'

test_expect "NMI-sampled hardware event: handler time measured, stolen time beside it" '
	[ "$(json hardware.json "[k[\"avg_ns\"] for k in cpu(0)[\"costs\"] if k[\"type\"] == \"sample\"][0]")" = 2500.0 ] &&
	[ "$(json hardware.json "cpu(0)[\"basis\"]")" = stolen ] &&
	[ "$(json hardware.json "cpu(0)[\"sampling_ns\"] == [k[\"time_ns\"] for k in cpu(0)[\"costs\"] if k[\"type\"] == \"stolen\"][0]")" = true ]'

test_expect "multiplex: each event that ran less than enabled, the rotation cost, the NMI watchdog" '
	msg=$(json hardware.json "[f[\"message\"] + \" // \" + f[\"advice\"] for f in d[\"findings\"] if f[\"id\"] == \"multiplex\"][0]") &&
	echo "$msg" &&
	while read -r ev pct; do
		case "$msg" in *"$ev $pct%"*) ;; *) fail "$ev $pct% missing"; return 1 ;; esac
	done < <(manifest hardware.man running) &&
	case "$msg" in *"rotating them cost 900.0 us"*) ;; *) return 1 ;; esac &&
	case "$msg" in *"nmi_watchdog=0"*) ;; *) return 1 ;; esac'

test_expect "throttle: how often, how long, the limit before and after" '
	n=$(manifest throttle.man throttles)
	ms=$(awk -v n="$(manifest throttle.man throttled_ns)" "BEGIN { printf \"%.2f ms\", n / 1e6 }")
	set -- $(manifest throttle.man limit)
	grep "throttle: the kernel throttled sampling $n times" throttle.txt | grep "$ms" |
		grep -q "was $1 before and $2 after"'

test_expect "rate-capped: the frequency asked for, the kernel limit it was capped to" '
	set -- $(manifest throttle.man limit)
	grep "rate-capped: cpu-clock asked for $(manifest throttle.man requested | cut -d" " -f2) Hz, above the kernel.s limit of $2" throttle.txt &&
	grep -q "ask for -F $2 or less" throttle.txt'

test_expect "lost: LOST and LOST_SAMPLES are one loss, counted once, and when" '
	lost=$(manifest throttle.man lost)
	grep "lost: $lost events lost" throttle.txt | grep -q "at 300.00 ms into the recording" &&
	grep -q "advice: larger ring buffers: -m 2 (now 1 page)" throttle.txt'

test_expect "sideband: the storm by kind; recorder-cpu: the share of a CPU, writing behind" '
	grep -q "sideband: side-band records cost CPU 0 .* by kind: MMAP2 90%, COMM 10%" storm.txt &&
	grep -q "mmap storm" storm.txt &&
	grep -q "recorder-cpu: the recorder used 70% of a CPU" storm.txt &&
	grep -q "writing fell behind: 12 drain passes" storm.txt'

test_expect "short-period and handler basis: stolen time not calibrated, said so, -c computed" '
	hz=$(awk -v h="$(manifest fixed.man handler_ns | awk "NR == 1 { print \$2 }")" \
		"BEGIN { printf \"%d\", 2e7 / h }")
	p=$(awk -v p="$(manifest fixed.man period | cut -d" " -f2)" \
		-v r="$(manifest fixed.man rate | awk "\$2 == 0 { print \$3 }")" -v t="$hz" \
		"BEGIN { x = p * r / t; printf \"%d\", x == int(x) ? x : int(x) + 1 }")
	echo "budget rate $hz, period $p"
	grep -q "short-period: task-clock samples every 20000 events" fixed.txt &&
	grep -q "a period of $p or more (-c)" fixed.txt &&
	[ "$(json fixed.json "cpu(0)[\"basis\"]")" = handler ] &&
	reason=$(manifest fixed.man unavailable | sed -n "s/^stolen //p") &&
	grep -q "=overhead .*handler + mux + sideband (stolen time not calibrated: $reason)" fixed.txt'

test_expect "the fallback collector says its figures are inflated, and by how much" '
	set -- $(manifest fixed.man collector)
	half=$(awk -v n="$2" "BEGIN { printf \"%.0f ns\", n / 2 }")
	grep -q "^# collector: tracepoint (.*inflated)" fixed.txt &&
	grep -q "inflated by about $half per sample" fixed.txt &&
	grep -q "sample-cost: .*collector inflates each handler time by about $half" fixed.txt'

test_expect "unavailable figures: listed with their reason, never shown as 0" '
	reason=$(manifest none.man unavailable | sed -n "s/^sample //p")
	grep -qF "#   sample on CPU 0,1: $reason" none.txt &&
	grep -qF "#   mux on CPU 0,1: $reason" none.txt &&
	! grep -E "^ +[01]  (sample|mux) +[0-9]" none.txt &&
	[ "$(json none.json "sorted((u[\"cpu\"], u[\"type\"]) for u in d[\"unavailable\"])")" = "[[0, \"mux\"], [0, \"sample\"], [1, \"mux\"], [1, \"sample\"]]" ] &&
	[ "$(json none.json "[(k[\"pct\"], k[\"avg_ns\"], k[\"estimated\"]) for k in cpu(0)[\"costs\"] if k[\"unavailable\"]]")" = "[[null, null, false], [null, null, false]]" ] &&
	[ "$(json none.json "cpu(0)[\"basis\"]")" = stolen ]'

test_expect "without the facts section: said, and wall times from the spans" '
	grep -q "^# facts: none" nofacts.txt &&
	[ "$(json nofacts.json "d[\"facts\"][\"present\"]")" = false ] &&
	[ "$(json nofacts.json "sorted(set(c[\"wall_source\"] for c in d[\"cpus\"] if c[\"cpu\"] >= 0))")" = "[\"spans\"]" ] &&
	[ "$(json modest.json "cpu(0)[\"wall_source\"]")" = facts ]'

test_expect "--intervals: one line per interval, the spike marked" '
	overhead_report -i throttle.data --intervals >iv.txt &&
	overhead_report -i throttle.data --intervals --json >iv.json &&
	[ "$(json iv.json "len(d[\"intervals\"])")" = "$(manifest throttle.man intervals)" ] &&
	s=$(manifest throttle.man spike) &&
	[ "$(json iv.json "[i for i, x in enumerate(d[\"intervals\"]) if x[\"spike\"]]")" = "[$s]" ] &&
	[ "$(grep -c "^\*" iv.txt)" = 1 ] &&
	[ "$(json iv.json "d[\"intervals\"][$s][\"worst_pct\"] > 2 * d[\"intervals\"][0][\"worst_pct\"]")" = true ] &&
	! grep -q "\"intervals\"" throttle.json'

test_expect "--fail-above: exit 3 above, 0 below, and the JSON says which" '
	overhead_report -i hardware.data --fail-above 5 >fa.txt 2>fa.err; rc=$?
	[ $rc = 3 ] || fail "exit $rc above" || return 1
	grep -q "above --fail-above 5" fa.err &&
	overhead_report -i hardware.data --fail-above 50 >/dev/null 2>&1 &&
	overhead_report -i hardware.data --fail-above 5 --json >fa.json 2>/dev/null; rc=$?
	[ $rc = 3 ] && [ "$(json fa.json "d[\"fail_above\"][\"exceeded\"]")" = true ]'

test_expect "a facts section of a later version: one warning, judged without it" '
	"$PYTHON" -c "
import sys
b = open(\"modest.data\", \"rb\").read()
assert b.count(b\"prec-facts 1\\n\") == 1
open(\"later.data\", \"wb\").write(b.replace(b\"prec-facts 1\\n\", b\"prec-facts 9\\n\"))" &&
	overhead_report -i later.data >later.txt 2>later.err &&
	[ "$(wc -l <later.err)" = 1 ] &&
	grep -q "facts section cannot be read (prec facts, line 1: version 9 (this prec reads 1))" later.err &&
	grep -q "^# facts: prec facts, line 1: version 9" later.txt &&
	grep -q "^# worst CPU: 0" later.txt'

test_expect "aggregate: the program's run time per CPU, added to the CPU's overhead" '
	for c in 0 1; do
		want=$(manifest aggregate.man cost | awk -v c=$c "\$1 == c && \$2 == \"aggregate\" { print \$4 }")
		[ -n "$want" ] && [ "$want" -gt 0 ] || fail "no aggregate cost built" || return 1
		[ "$(json aggregate.json "cpu($c)[\"aggregate_ns\"]")" = "$want" ] || return 1
		[ "$(json aggregate.json "cpu($c)[\"overhead_ns\"] == cpu($c)[\"sampling_ns\"] + cpu($c)[\"mux_ns\"] + cpu($c)[\"sideband_ns\"] + $want")" = true ] ||
			fail "CPU $c: the overhead does not count the aggregation" || return 1
		grep -Eq "^ +$c  aggregate .* bpf +measured \(in-kernel aggregation, on top of the stolen time\)$" aggregate.txt || return 1
		grep -Eq "^ +$c  =overhead .*  stolen \+ mux \+ sideband \+ aggregate$" aggregate.txt || return 1
	done &&
	! grep -q "+ aggregate" modest.txt &&
	set -- $(manifest aggregate.man aggregate) &&
	[ "$(json aggregate.json "d[\"facts\"][\"aggregate_entries\"]")" = "$1" ] &&
	grep -q "^# aggregated in the kernel: maps of $1 keys" aggregate.txt'

test_expect "lost in the aggregation: --aggregate-entries from the keys and the loss, not -m" '
	set -- $(manifest aggregate.man aggregate)
	entries=$1 lost=$2
	keys=$(manifest aggregate.man samples | awk "{ n += \$3 } END { print n }")
	want=$(awk -v e="$entries" -v k="$keys" -v l="$lost" "BEGIN {
		w = e * (k + l) / k; p = 2 * e; while (p < w) p *= 2; print p }")
	echo "entries $entries, keys $keys, lost $lost: $want"
	[ "$want" -gt $((2 * entries)) ] || fail "the built figures changed" || return 1
	msg=$(json aggregate.json "[f[\"message\"] + \" // \" + f[\"advice\"] for f in d[\"findings\"] if f[\"id\"] == \"lost\"][0]") &&
	echo "$msg" &&
	case "$msg" in *"$lost samples lost in the kernel"*"count map full (--aggregate-entries $entries)"*"the count map holds $entries keys, $keys were written"*) ;; *) return 1 ;; esac &&
	case "$msg" in *"// larger maps: --aggregate-entries $want (now $entries)"*) ;; *) return 1 ;; esac &&
	case "$msg" in *"-m "*) fail "advises -m" ;; esac'

if have perf; then
	test_expect "perf reads the built files (the LOST warning where LOST records were built)" '
		for k in $KINDS; do
			perf script -i $k.data >/dev/null 2>$k.perf || fail "$k: perf script failed" || return 1
			if [ -n "$(manifest $k.man lost)$(manifest $k.man lost_samples)" ]; then
				! grep -v -e "^Warning:" -e "lost 1 chunks" -e "^Check IO/CPU overload" \
					-e "^Processed [0-9]* samples and lost" -e "^$" $k.perf || return 1
			else
				no_stderr $k.perf || return 1
			fi
		done'
else
	test_skip "perf reads the built files" "perf is not installed"
fi

done_testing
