#!/bin/bash
# t2100: prec report --counters. Oracles: perf stat record files (task-clock, page-faults,
# context-switches; per thread, -a, -I) read by perf stat report, perf script's table and
# scripts/prec-counters.py (perf script -s) must give the totals prec report --counters --json
# gives; tests/mkstat builds what this machine cannot record (multiplexed counters, a counter
# never running, one never enabled, one not supported, a shared counter, damaged readings), with
# a manifest of what they mean; prec report --overhead counts a shared counter once, with the
# facts section or (pipe mode) by the made-up ids alone. prec record --count's files are checked
# end to end the same way, a pipe-mode one included.
# shellcheck disable=SC2016,SC2034 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require perf python

MKSTAT=$PREC_BUILD/tests/mkstat
SCRIPT=$PREC_SRC/scripts/prec-counters.py
[ -x "$MKSTAT" ] || skip_all "tests/mkstat is not built (make check builds it)"

# A workload that lasts about 0.4 s (4 rounds of -I 100), runs a little and faults pages in.
cat >work.sh <<'EOF'
i=0
while [ $i -lt 30000 ]; do i=$((i + 1)); done
head -c 2000000 /dev/zero | cat >/dev/null
sleep 0.4
EOF

cat >cmp.py <<'EOF'
import json, re, sys

def load(path):
    with open(path) as f:
        return json.load(f)

def ordinal_keys(names):
    """(name, n): the n-th event of that name, so that repeated names stay apart."""
    seen, out = {}, []
    for n in names:
        out.append((n, seen.get(n, 0)))
        seen[n] = seen.get(n, 0) + 1
    return out

def prec_events(path):
    d = load(path)
    ev = d["events"]
    return d, dict(zip(ordinal_keys([e["name"] for e in ev]), ev))

bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

def perf_table(path):
    """perf script's table: the last cumulative (val, ena, run) per evsel, summed over the
    rows of its CPUs and threads. Rows of one evsel come together in each round."""
    last = {}  # (time, name, ordinal) -> sums
    order = []
    cur_time, block_name, block_keys, ordn = None, None, set(), {}
    for line in open(path):
        f = line.split()
        if len(f) < 7 or not re.match(r"^-?\d+$", f[0]):
            continue
        cpu, thr, val, ena, run, time = f[:6]
        name = " ".join(f[6:])
        if time != cur_time:
            cur_time, block_name, block_keys, ordn = time, None, set(), {}
        if name != block_name or (cpu, thr) in block_keys:
            k = ordn.get(name, -1) + 1
            ordn[name] = k
            block_name, block_keys = name, set()
        block_keys.add((cpu, thr))
        key = (time, name, ordn[name])
        s = last.setdefault(key, [0, 0, 0])
        s[0] += int(val); s[1] += int(ena); s[2] += int(run)
    if not last:
        return {}
    t_last = max(int(k[0]) for k in last)
    return {(k[1], k[2]): v for k, v in last.items() if int(k[0]) == t_last}

mode = sys.argv[1]
if mode == "table":          # perf script's table vs prec --json
    d, ev = prec_events(sys.argv[2])
    tab = perf_table(sys.argv[3])
    check(tab, "perf script printed no readings")
    for key, v in tab.items():
        e = ev.get(key)
        if e is None and key[0] == "prec:overhead" and v == [0, 0, 0]:
            continue  # prec's own event, never read: prec leaves it out (man/prec-data.5)
        check(e is not None, "perf has %s, prec not" % (key,))
        if e:
            check([e["count"], e["enabled_ns"], e["running_ns"]] == v,
                  "%s: prec %s perf %s" % (key, [e["count"], e["enabled_ns"], e["running_ns"]], v))
elif mode == "script":       # prec-counters.py --json vs prec --json
    d = load(sys.argv[2])
    s = load(sys.argv[3])
    check(not s["errors"], "script errors: %s" % s["errors"])
    check(len(s["events"]) == len(d["events"]), "events: prec %d, script %d" % (len(d["events"]), len(s["events"])))
    for e, x in zip(d["events"], s["events"]):
        for k in ("name", "status", "count", "enabled_ns", "running_ns", "shared_with",
                  "bpf_counter", "bpf_counter_fallback"):
            check(e[k] == x[k], "event %d %s: prec %r, script %r" % (e["index"], k, e[k], x[k]))
        if e["scaled"] is None or x["scaled"] is None:
            check(e["scaled"] == x["scaled"], "event %d scaled" % e["index"])
        else:
            check(abs(e["scaled"] - x["scaled"]) <= 1e-6 * max(1, e["scaled"]),
                  "event %d scaled: prec %r, script %r" % (e["index"], e["scaled"], x["scaled"]))
elif mode == "statreport":   # perf stat report (stderr) vs prec --json, totals or -I lines
    d, ev = prec_events(sys.argv[2])
    rows, seen = [], {}
    for line in open(sys.argv[3]):
        m = re.match(r"^\s*(\d+\.\d{9})?\s+(<not counted>|<not supported>|[\d.]+)\s+(msec\s+)?(\S+)(.*)$", line)
        if not m or m.group(4) in ("seconds", "time"):
            continue
        t, v, msec, name, rest = m.groups()
        k = (t, name)
        n = seen.get(k, 0); seen[k] = n + 1
        pct = re.search(r"\((\d+\.\d+)%\)", rest)
        rows.append((t, name, n, v, bool(msec), float(pct.group(1)) if pct else None))
    check(rows, "perf stat report printed no counts")
    times = sorted({r[0] for r in rows if r[0]})
    for t, name, n, v, msec, pct in rows:
        e = ev.get((name, n))
        if e is None and name == "prec:overhead" and v == "<not supported>":
            continue  # prec's own event, never read: prec leaves it out (man/prec-data.5)
        check(e is not None, "perf stat report has %s, prec not" % name)
        if not e:
            continue
        if t is None:
            x = e
        else:
            iv = [i for i in e["intervals"] if not i["end"] and abs(i["time_ns"] / 1e9 - float(t)) < 5e-9]
            if v == "<not supported>":
                check(e["status"] == "not-supported", "%s: perf not supported, prec %s" % (name, e["status"]))
                continue
            check(len(iv) == 1, "%s at %s: prec has no such interval" % (name, t))
            if len(iv) != 1:
                continue
            x = iv[0]
        if v.startswith("<"):
            want = {"<not counted>": ("not-counted", "not-enabled"), "<not supported>": ("not-supported",)}[v]
            check(x["status"] in want, "%s %s: perf %s, prec %s" % (name, t, v, x["status"]))
            continue
        got = x["scaled"] if x["scaled"] is not None else x["count"]
        if msec:
            check(abs(got / 1e6 - float(v)) <= 0.0051, "%s %s: perf %s msec, prec %s ns" % (name, t, v, got))
        else:
            check(abs(got - float(v)) <= 1, "%s %s: perf %s, prec %s" % (name, t, v, got))
        if pct is not None:
            check(abs(x["running_pct"] - pct) <= 0.006, "%s %s: perf %s%%, prec %s%%" % (name, t, pct, x["running_pct"]))
    print("%d perf stat report lines compared, %d intervals" % (len(rows), len(times)))
elif mode == "manifest":     # mkstat's manifest vs prec --json
    d = load(sys.argv[2])
    ev = d["events"]
    for line in open(sys.argv[3]):
        f = line.split()
        if f[0] == "total":
            i = int(f[1]); e = ev[i]
            check(e["name"] == f[2] and e["status"] == f[3], "event %d: %s %s, want %s %s" % (i, e["name"], e["status"], f[2], f[3]))
            check([e["count"], e["enabled_ns"], e["running_ns"]] == [int(x) for x in f[4:7]],
                  "event %d totals %s, want %s" % (i, [e["count"], e["enabled_ns"], e["running_ns"]], f[4:7]))
            for k, w in zip(("scaled", "low", "high"), f[7:10]):
                if w == "null":
                    check(e[k] is None, "event %d %s: %r, want null" % (i, k, e[k]))
                else:
                    check(e[k] is not None and abs(e[k] - float(w)) <= 0.11, "event %d %s: %r, want %s" % (i, k, e[k], w))
        elif f[0] == "interval":
            i, r = int(f[1]), int(f[2]); e = ev[i]
            iv = [x for x in e["intervals"] if not x["end"]]
            check(len(iv) >= r, "event %d has %d intervals" % (i, len(iv)))
            if len(iv) >= r:
                x = iv[r - 1]
                check([x["count"], x["enabled_ns"], x["running_ns"]] == [int(v) for v in f[3:6]],
                      "event %d interval %d: %s, want %s" % (i, r, [x["count"], x["enabled_ns"], x["running_ns"]], f[3:6]))
        elif f[0] == "flag":
            i = int(f[1])
            check(f[2] in ev[i]["flags"], "event %d flags %s, want %s" % (i, ev[i]["flags"], f[2]))
    check(d["events"][4]["shared_with"] == 0 or "damaged" in sys.argv[3], "shared_with")
else:
    sys.exit("unknown mode " + mode)
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
EOF

# counters FILE NAME: prec's JSON (NAME.json) and text (NAME.txt), perf's views beside them
counters() {
	"$PREC" report --counters --json -i "$1" >"$2.json" 2>"$2.json.err" &&
		"$PREC" report --counters --intervals -i "$1" >"$2.txt" 2>"$2.txt.err"
}

# perf stat record, three ways.
perf stat record -o plain.data -e task-clock,page-faults,context-switches -- sh work.sh \
	>/dev/null 2>&1 || skip_all "perf stat record does not work here"
perf stat record -o wide.data -a -e task-clock,page-faults -- sh work.sh >/dev/null 2>&1
perf stat record -o intv.data -I 100 -e task-clock,page-faults,context-switches -- sh work.sh \
	>/dev/null 2>&1

for f in plain wide intv; do
	test_expect "perf stat record ($f): prec reads it without a word" '
		counters $f.data $f && no_stderr $f.json.err && no_stderr $f.txt.err &&
		grep -q "page-faults" $f.txt'
	test_expect "perf stat record ($f): the totals are perf script's last readings, summed" '
		perf_clean perf script -i $f.data >$f.table &&
		$PYTHON cmp.py table $f.json $f.table'
	test_expect "perf stat record ($f): perf stat report prints the same counts" '
		perf stat report -i $f.data >/dev/null 2>$f.stat &&
		! grep -Ei "warn|error|fail" $f.stat && $PYTHON cmp.py statreport $f.json $f.stat'
	if have perf-python; then
		test_expect "perf stat record ($f): prec-counters.py (perf script -s) gives the same totals" '
			perf_clean perf script -i $f.data -s "$SCRIPT" -- --json >$f.script &&
			$PYTHON cmp.py script $f.json $f.script'
	else
		test_skip "perf stat record ($f): prec-counters.py" "perf has no Python"
	fi
done

test_expect "-I file: one interval per round, their counts add up to the total" '
	$PYTHON -c "
import json, sys
d = json.load(open(\"intv.json\"))
check = d[\"rounds\"] >= 3 and d[\"stat_config\"][\"interval_ms\"] == 100
for e in d[\"events\"]:
    check = check and len(e[\"intervals\"]) == d[\"rounds\"] and \
        sum(i[\"count\"] for i in e[\"intervals\"]) == e[\"count\"]
sys.exit(0 if check else 1)"'

# Built readings: multiplexing, not counted, not enabled, not supported, a shared counter.
"$MKSTAT" mux mux.data >mux.man || skip_all "mkstat failed"

test_expect "multiplexed (built): totals, status, scaled count and its range as the manifest says" '
	counters mux.data mux && no_stderr mux.json.err && $PYTHON cmp.py manifest mux.json mux.man'
test_expect "multiplexed (built): perf reads the file without a warning" '
	perf_clean perf script -i mux.data >mux.table &&
	perf stat report -i mux.data >/dev/null 2>mux.stat && ! grep -Ei "warn|error|fail" mux.stat'
test_expect "multiplexed (built): perf script's table gives the same totals" '
	$PYTHON cmp.py table mux.json mux.table'
test_expect "multiplexed (built): perf stat report gives the same scaled count and running share per interval" '
	$PYTHON cmp.py statreport mux.json mux.stat'
if have perf-python; then
	test_expect "multiplexed (built): prec-counters.py undoes perf's scaling and gives the same totals" '
		perf_clean perf script -i mux.data -s "$SCRIPT" -- --json >mux.script &&
		$PYTHON cmp.py script mux.json mux.script'
	test_expect "prec-counters.py installs handlers for the file's own names, repeated names included" '
		perf_clean perf script -i mux.data -s "$SCRIPT" >mux.script.txt &&
		grep -E "^ +4 +772000000 +instructions .*read the counter of event 0" mux.script.txt &&
		grep -E "^ +0 +932000000 +instructions " mux.script.txt'
	test_expect "prec-counters.py finds the file from --input=FILE" '
		perf_clean perf script --input=mux.data -s "$SCRIPT" -- --json >mux.script2 &&
		$PYTHON cmp.py script mux.json mux.script2'
else
	test_skip "multiplexed (built): prec-counters.py" "perf has no Python"
fi
test_expect "text: perf's words for what has no count, the range, the shared counter" '
	grep -E "^ +1 +<not counted> .*cycles .*never running" mux.txt &&
	grep -E "^ +2 +<not counted> .*branches .*never enabled" mux.txt &&
	grep -E "^ +5 +<not supported> .*cache-misses" mux.txt &&
	grep -E "^ +0 +932000000 .*instructions +44.00% .*scaled 2118181818 \(1.212 G .. 2.724 G, \+-35.7%\); its counter was also read for event 4" mux.txt &&
	grep -E "^ +4 .*read the counter of event 0" mux.txt'
test_expect "text --intervals: one row per round and event, scaled by the round's own times" '
	grep -E "^ +0.400000000 +0 +20000000 +instructions +20.00% +scaled 100000000" mux.txt &&
	[ "$(grep -cE "^ +0\.[1-5]00000000 " mux.txt)" = 30 ]'

test_expect "--overhead: the multiplex finding counts a shared counter once" '
	"$PREC" report --overhead -i mux.data >mux.ovh 2>&1 &&
	grep "multiplex: 2 counters ran less" mux.ovh &&
	grep "instructions 44.0% (its counter also read for 1 other event)" mux.ovh &&
	grep "cycles 0.0% (never running: not counted)" mux.ovh &&
	! grep -q duplicate-events mux.ovh'
test_expect "--overhead --json: the multiplex finding names the worst counter" '
	"$PREC" report --overhead --json -i mux.data >mux.ovh.json &&
	$PYTHON -c "
import json, sys
f = [f for f in json.load(open(\"mux.ovh.json\"))[\"findings\"] if f[\"id\"] == \"multiplex\"]
sys.exit(0 if f and f[0][\"severity\"] == \"severe\" else 1)"'

# Damaged readings: no crash, flagged, totals as the readings say.
"$MKSTAT" damaged damaged.data >damaged.man
test_expect "damaged readings: flagged, warned about, the totals are the last readings" '
	counters damaged.data damaged && $PYTHON cmp.py manifest damaged.json damaged.man &&
	grep -q "went down in 1 interval" damaged.json.err &&
	grep -q "cycles (event 1) ran longer (1000000050 ns) than it was enabled" damaged.json.err &&
	grep -q "add up past 2^64" damaged.json.err &&
	grep -q "1 counter reading names an id no event has" damaged.json.err &&
	grep -q "1 STAT record is too short" damaged.json.err'

test_expect "a file without readings: one line, exit 1" '
	perf record -o rec.data -e cpu-clock -- true >/dev/null 2>&1
	"$PREC" report --counters -i rec.data >out 2>err; rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "no counter readings" err'
test_expect "usage: --intervals needs a view, --counters is a view of its own" '
	"$PREC" report --intervals -i mux.data >/dev/null 2>&1; [ $? = 2 ] &&
	"$PREC" report --counters --overhead -i mux.data >/dev/null 2>&1; [ $? = 2 ]'

# The same built readings without the facts section, as in pipe mode: the second instructions
# is known as shared by its made-up ids, and found to read the first one's counter.
"$MKSTAT" mux-nofacts nofacts.data >nofacts.man || skip_all "mkstat failed"
test_expect "no facts (built): the made-up ids say the second instructions read the first's counter" '
	counters nofacts.data nofacts && no_stderr nofacts.json.err &&
	$PYTHON cmp.py manifest nofacts.json nofacts.man &&
	grep -E "^ +4 .*instructions .*read the counter of event 0" nofacts.txt &&
	grep -E "^ +0 .*instructions .*its counter was also read for event 4" nofacts.txt'
test_expect "no facts (built): --overhead counts the shared counter once, no duplicate" '
	"$PREC" report --overhead -i nofacts.data >nofacts.ovh 2>&1 && cat nofacts.ovh &&
	grep "multiplex: 2 counters ran less" nofacts.ovh && ! grep -q duplicate-events nofacts.ovh'

# The facts of --bpf-counters (built): which readings came through a counter shared across
# sessions, created or joined, and why an event that asked for one had its own.
test_expect "--bpf-counters (built): the notes say created, joined, and why not" '
	"$MKSTAT" mux-bpf bpf.data >bpf.man && counters bpf.data bpf &&
	no_stderr bpf.json.err && no_stderr bpf.txt.err && cat bpf.txt &&
	grep -E "^ +0 .*instructions .*read through a counter shared across sessions \(joined\)" bpf.txt &&
	grep -E "^ +3 .*task-clock .*read through a counter shared across sessions \(created\)" bpf.txt &&
	grep -E "^ +2 .*branches .*own counters, none shared across sessions: a group" bpf.txt &&
	[ "$(grep -c "shared across sessions" bpf.txt)" = 4 ] &&
	grep -q "^# Counters shared across sessions (--bpf-counters)" bpf.txt &&
	! grep -q "shared across sessions" mux.txt'
test_expect "--bpf-counters (built): --json has bpf_counter and bpf_counter_fallback per event" '
	$PYTHON -c "
import json, sys
ev = {e[\"index\"]: e for e in json.load(open(\"bpf.json\"))[\"events\"]}
ok = ev[0][\"bpf_counter\"] == \"joined\" and ev[3][\"bpf_counter\"] == \"created\" and \
    ev[2][\"bpf_counter\"] is None and ev[2][\"bpf_counter_fallback\"] == \"a group\" and \
    all(ev[i][\"bpf_counter\"] is None and ev[i][\"bpf_counter_fallback\"] is None
        for i in (1, 4, 5))
sys.exit(0 if ok else 1)" && $PYTHON cmp.py manifest bpf.json bpf.man'
if have perf-python; then
	test_expect "--bpf-counters (built): prec-counters.py says the same" '
		perf_clean perf script -i bpf.data -s "$SCRIPT" -- --json >bpf.script &&
		$PYTHON cmp.py script bpf.json bpf.script &&
		perf_clean perf script -i bpf.data -s "$SCRIPT" >bpf.script.txt &&
		grep -E "^ +3 .*task-clock .*read through a counter shared across sessions \(created\)" bpf.script.txt &&
		grep -E "^ +2 .*branches .*own counters, none shared across sessions: a group" bpf.script.txt'
else
	test_skip "--bpf-counters (built): prec-counters.py" "perf has no Python"
fi

# End to end: prec record --count.
"$PREC" record -e cpu-clock --count task-clock,page-faults,context-switches \
	--count-interval 100ms -o rec2.data -- sh work.sh >/dev/null 2>rec2.err
counters rec2.data rec2
test_expect "prec record --count: prec reads its readings without a word" '
	! grep -Ei "warn|error" rec2.err && [ -s rec2.json ] &&
	! grep -v "ran longer" rec2.json.err && ! grep -v "ran longer" rec2.txt.err'
test_expect "prec record --count: perf script's table gives the same totals" '
	perf_clean perf script -i rec2.data >rec2.table && $PYTHON cmp.py table rec2.json rec2.table'
# A task's per-CPU counters once read "running > enabled" when children ran on two CPUs at
# once (the kernel's time enabled of an inherited child lags); perf stat report dies on such
# a reading (SIGFPE). The recorder now bounds it; this run checks that on a pipeline.
test_expect "prec record --count: no reading runs longer than it was enabled" '
	! grep -q "ran longer" rec2.json.err'
test_expect "prec record --count: perf stat report gives the same counts" '
	perf stat report -i rec2.data >/dev/null 2>rec2.stat &&
	! grep -Ei "warn|error|fail" rec2.stat &&
	$PYTHON cmp.py statreport rec2.json rec2.stat'
if have perf-python; then
	test_expect "prec record --count: prec-counters.py gives the same totals" '
		perf_clean perf script -i rec2.data -s "$SCRIPT" -- --json >rec2.script &&
		$PYTHON cmp.py script rec2.json rec2.script'
else
	test_skip "prec record --count: prec-counters.py" "perf has no Python"
fi
"$PREC" record --count task-clock,task-clock,page-faults --count-interval 100ms \
	-o shared.data -- sh work.sh >/dev/null 2>&1
test_expect "prec record --count task-clock,task-clock: the report names the shared counter" '
	counters shared.data shared && $PYTHON -c "
import json, sys
ev = json.load(open(\"shared.json\"))[\"events\"]
tc = [e for e in ev if e[\"name\"] == \"task-clock\"]
ok = len(tc) == 2 and tc[1][\"shared_with\"] == tc[0][\"index\"] and \
    tc[0][\"read_for\"] == [tc[1][\"index\"]] and tc[0][\"shared_with\"] is None
sys.exit(0 if ok else 1)" &&
	grep -E "task-clock .*its counter was also read for event" shared.txt &&
	grep -E "task-clock .*read the counter of event" shared.txt'
test_expect "prec record --count task-clock,task-clock: --overhead sees no duplicate" '
	"$PREC" report --overhead -i shared.data >shared.ovh 2>&1 &&
	! grep -q duplicate-events shared.ovh'
if have perf-python; then
	test_expect "prec record --count task-clock,task-clock: prec-counters.py agrees" '
		perf_clean perf script -i shared.data -s "$SCRIPT" -- --json >shared.script &&
		$PYTHON cmp.py script shared.json shared.script'
fi

# prec:overhead is in the file (unless no overhead source works here) and never read: perf stat
# report lists it as <not supported>, prec's views leave it out.
if perf evlist -i rec2.data 2>/dev/null | grep -qx "prec:overhead"; then
	test_expect "prec:overhead: perf stat report says <not supported>, prec leaves it out" '
		grep -E "<not supported> +prec:overhead" rec2.stat &&
		! grep -q "prec:overhead" rec2.txt && ! grep -q "prec:overhead" rec2.json'
	if have perf-python; then
		test_expect "prec:overhead: prec-counters.py leaves it out too" '
			perf_clean perf script -i rec2.data -s "$SCRIPT" >rec2.script.txt &&
			cat rec2.script.txt && grep -q "task-clock" rec2.script.txt &&
			! grep -q "prec:overhead" rec2.script.txt && ! grep -q "prec:overhead" rec2.script'
	fi
else
	test_skip "prec:overhead is left out" "the recording has no prec:overhead event"
fi

# Pipe mode cannot carry the facts section: the made-up ids of the second task-clock say that
# it read the first one's counter.
"$PREC" record --count task-clock,task-clock,page-faults --count-interval 100ms \
	-o - -- sh work.sh >pipe.data 2>pipe.err
test_expect "pipe mode: the report finds the shared counter by its made-up ids" '
	cat pipe.err; head -c 8 pipe.data | grep -q PERFILE2 &&
	! grep -aq "shared_with" pipe.data &&
	counters pipe.data pipe && no_stderr pipe.json.err && $PYTHON -c "
import json, sys
ev = json.load(open(\"pipe.json\"))[\"events\"]
tc = [e for e in ev if e[\"name\"] == \"task-clock\"]
ok = len(tc) == 2 and tc[1][\"shared_with\"] == tc[0][\"index\"] and tc[1][\"shared\"] and \
    tc[0][\"read_for\"] == [tc[1][\"index\"]] and tc[0][\"shared_with\"] is None and \
    tc[0][\"count\"] == tc[1][\"count\"] > 0
sys.exit(0 if ok else 1)" &&
	grep -E "task-clock .*its counter was also read for event" pipe.txt &&
	grep -E "task-clock .*read the counter of event" pipe.txt'
test_expect "pipe mode: --overhead reports no duplicate events" '
	"$PREC" report --overhead -i pipe.data >pipe.ovh 2>&1 && cat pipe.ovh &&
	! grep -q duplicate-events pipe.ovh'

done_testing
