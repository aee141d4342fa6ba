#!/bin/bash
# t2013: prec report --metrics on a file built by tests/mkdata (groupread) with known counts: the
# table and the JSON equal the ones computed by hand below, for --metrics and --metrics=all; perf
# report --group reads the same file with nothing on stderr; recordings made here by prec record
# and by perf record with a group give a table whose rows add up to its totals; a file without a
# group and a bad mode are refused in one line.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require perf python
MK=$PREC_BUILD/tests/mkdata
HOT3=$PREC_BUILD/tests/workloads/hot3

unset PERF_CONFIG PERF_CONFIG_NOSYSTEM PERF_CONFIG_NOGLOBAL
export HOME=$T/home
mkdir -p "$HOME"

mkdata_or_skip groupread gr.data
DSO=$(awk '$1 == "dso" { print $2 }' manifest)

# What mkdata wrote (tests/mkdata.c, make_groupread), and the table it makes by hand.
#
# Group 1, {cycles,instructions,branch-misses,cache-references,cache-misses}, period 1000000,
# hf-period=300 in the facts.
# A short window's deltas depend on the function it ends in (cycles, instructions, branch-misses,
# cache-references, cache-misses):
#   hot_a 300 200 2 10 5    hot_b 300 600 3 20 3    hot_c 300 100 1 40 10
#   main 300 150 0 0 0      [unknown] (hot_a's padding) 300 300 3 10 3
# and a long window's are 999700 999000 100 1000 100. The group's attrs are inherit: each thread
# has its counter under the one id, so a key is (id, thread). Three keys:
#   K1 (id 11, thread 4242): a(start) a:S a:L a:S b:L b:S b:L a:S(b..a) a:L ?:L ?:S a:L
#       THROTTLE a:S(inside) UNTHROTTLE a:S(first after) a:L a:S
#   K2 (id 11, thread 4243, interleaved with K1): c(start) c:S c:L c:S b:L b:S
#   K3 (id 21, thread 4242, the second CPU): b(start) b:S b:L c:S(b..c) c:L main:S(c..main)
# Windows: 14 short ones (12 outside the throttled span), 11 long ones; 12 of 23 windows are
# short (a quarter or more) and the period is fixed: the leader alternates, the 11 long windows
# are skipped. The two samples of the throttled span (inside, first after) end no window.
# Short windows, discard mode:
#   hot_a:  attributed K1 a:S, a:S, a:S (last)   = 3, discarded K1 b..a = 1
#           900 600 6 30 15: CPI 900/600 = 1.5, BM/KI 6000/600 = 10, CM/KI 15000/600 = 25,
#           CM% 1500/30 = 50
#   hot_b:  attributed K1 b:S, K2 b:S, K3 b:S  = 3, discarded 0
#           900 1800 9 60 9: CPI 0.5, BM/KI 5, CM/KI 5, CM% 15
#   hot_c:  attributed K2 c:S, c:S              = 2, discarded K3 b..c = 1
#           600 200 2 80 20: CPI 3, BM/KI 10, CM/KI 100, CM% 25
#   [unknown] of hot3: attributed K1 ?:S        = 1: 300 300 3 10 3: CPI 1, BM/KI 10, CM/KI 10,
#           CM% 30
#   main:   discarded K3 c..main = 1, counts 0: every metric "-"
#   totals: 2700 2900 20 180 47; shares: hot_a 900/2700 = 33.33%, 600/2900 = 20.69%,
#           6/20 = 30.00%, 30/180 = 16.67%, 15/47 = 31.91% (and so on below)
#   windows: 9 attributed, 3 discarded (3/12 = 25.00%), 11 long, 2 throttled
#   order: by cycles, then symbol: hot_a (900), hot_b (900), hot_c, [unknown], main
# --metrics=all: the discarded windows count for the function they end in:
#   hot_a 4: 1200 800 8 40 20; hot_b 3: 900 1800 9 60 9; hot_c 3: 900 300 3 120 30;
#   [unknown] 1: 300 300 3 10 3; main 1: 300 150 0 0 0 (CPI 2, BM/KI 0, CM/KI 0, CM% -)
#   totals 3600 3350 23 230 62; order: hot_a, hot_b, hot_c (900: symbol), [unknown], main (300:
#   "[" sorts before "m")
#
# Group 2, {task-clock,page-faults,context-switches}, period 1000000 ns, every delta 1000000 ns:
# not alternating. A window ending in hot_a adds 4 page faults, in hot_b 1 context switch, in
# hot_c 2 page faults. Not inherit: a per-CPU counter, whichever thread runs, one key (its id):
# a(start) a a b(a..b) b c(b..c) c a(c..a) a(thread 2) a(thread 1 again). The last two windows
# stay in hot_a but another thread ran since the previous sample: discarded.
#   hot_a: 2 attributed, 3 discarded (60.00%): 2000000 8 0: page-faults/ms 8/2 = 4,
#   context-switches/ms 0
#   hot_b: 1, 1: 1000000 0 1: 0 and 1;   hot_c: 1, 1: 1000000 2 0: 2 and 0
#   totals 4000000 10 1; windows: 4 attributed, 5 discarded (5/9 = 55.56%)
#   all: hot_a 5: 5000000 20 0; hot_b 2: 2000000 0 2; hot_c 2: 2000000 4 0; totals 9000000 24 2

# rows FILE: the rows of each table, blanks squeezed, groups separated by "--"
rows() {
	awk '/^# Group / && n++ { print "--" } /^ / { $1 = $1; print }' "$1"
}

cat >want-discard <<'EOF'
3 1 25.00% 900 33.33% 600 20.69% 6 30.00% 30 16.67% 15 31.91% 1.5000 10.0000 25.0000 50.0000 hot3 [.] hot_a
3 0 0.00% 900 33.33% 1800 62.07% 9 45.00% 60 33.33% 9 19.15% 0.5000 5.0000 5.0000 15.0000 hot3 [.] hot_b
2 1 33.33% 600 22.22% 200 6.90% 2 10.00% 80 44.44% 20 42.55% 3.0000 10.0000 100.0000 25.0000 hot3 [.] hot_c
1 0 0.00% 300 11.11% 300 10.34% 3 15.00% 10 5.56% 3 6.38% 1.0000 10.0000 10.0000 30.0000 hot3 [.] [unknown]
0 1 100.00% 0 0.00% 0 0.00% 0 0.00% 0 0.00% 0 0.00% - - - - hot3 [.] main
--
2 3 60.00% 2000000 50.00% 8 80.00% 0 0.00% 4.0000 0.0000 hot3 [.] hot_a
1 1 50.00% 1000000 25.00% 0 0.00% 1 100.00% 0.0000 1.0000 hot3 [.] hot_b
1 1 50.00% 1000000 25.00% 2 20.00% 0 0.00% 2.0000 0.0000 hot3 [.] hot_c
EOF

# all: shares of 3600 3350 23 230 62 and of 9000000 24 2
cat >want-all <<'EOF'
4 0 0.00% 1200 33.33% 800 23.88% 8 34.78% 40 17.39% 20 32.26% 1.5000 10.0000 25.0000 50.0000 hot3 [.] hot_a
3 0 0.00% 900 25.00% 1800 53.73% 9 39.13% 60 26.09% 9 14.52% 0.5000 5.0000 5.0000 15.0000 hot3 [.] hot_b
3 0 0.00% 900 25.00% 300 8.96% 3 13.04% 120 52.17% 30 48.39% 3.0000 10.0000 100.0000 25.0000 hot3 [.] hot_c
1 0 0.00% 300 8.33% 300 8.96% 3 13.04% 10 4.35% 3 4.84% 1.0000 10.0000 10.0000 30.0000 hot3 [.] [unknown]
1 0 0.00% 300 8.33% 150 4.48% 0 0.00% 0 0.00% 0 0.00% 2.0000 0.0000 0.0000 - hot3 [.] main
--
5 0 0.00% 5000000 55.56% 20 83.33% 0 0.00% 4.0000 0.0000 hot3 [.] hot_a
2 0 0.00% 2000000 22.22% 0 0.00% 2 100.00% 0.0000 1.0000 hot3 [.] hot_b
2 0 0.00% 2000000 22.22% 4 16.67% 0 0.00% 2.0000 0.0000 hot3 [.] hot_c
EOF

test_expect "mkdata wrote two groups with 38 samples" '
	grep -qx "samples 38" manifest && [ "$(grep -c "^group " manifest)" = 2 ]'

test_expect "perf report --group reads the built file with nothing on stderr" '
	perf_clean perf report -i gr.data --group --stdio >perf.out &&
	grep -q "hot_a" perf.out'

test_expect "--metrics: every row of both tables is the hand-computed one" '
	"$PREC" report -i gr.data --metrics >discard.out 2>err && no_stderr err &&
	rows discard.out >got && diff want-discard got'

test_expect "--metrics: the headers count the windows as computed by hand" '
	grep -qx "# Windows: 9 attributed, 3 discarded (25.00%), 11 long (skipped), 2 throttled" \
		discard.out &&
	grep -qx "# Windows: 4 attributed, 5 discarded (55.56%)" discard.out &&
	[ "$(grep -c "^# The leader alternates its period (1000000 and short)" discard.out)" = 1 ] &&
	grep -q "^# Group {cycles,instructions,branch-misses,cache-references,cache-misses}: 28 samples" \
		discard.out &&
	grep -q "^# Group {task-clock,page-faults,context-switches}: 10 samples" discard.out'

test_expect "--metrics: the header says prec recorded the leader with hf-period=300 (facts)" '
	grep -qx "hf_period cycles 300" manifest &&
	[ "$(grep -c "^# prec recorded it with hf-period=300\$" discard.out)" = 1 ]'

test_expect "--metrics=all: every row of both tables is the hand-computed one" '
	"$PREC" report -i gr.data --metrics=all >all.out 2>err && no_stderr err &&
	rows all.out >got && diff want-all got &&
	grep -qx "# Windows: 12 attributed, 0 discarded (0.00%), 11 long (skipped), 2 throttled" \
		all.out &&
	grep -qx "# Windows: 9 attributed, 0 discarded (0.00%)" all.out'

test_expect "--metrics=discard is the default" '
	"$PREC" report -i gr.data --metrics=discard >d2.out && cmp discard.out d2.out'

# json_check MODE: the JSON of --metrics=MODE equals the hand-computed one (computed here from
# the per-window deltas above, so that a change of the rules shows as a difference of numbers)
json_check() {
	"$PREC" report -i gr.data --metrics="$1" --json >"$1.json" 2>err && no_stderr err &&
	"$PYTHON" - "$1" "$DSO" "$1.json" <<'PY'
import json, sys
mode, dso, path = sys.argv[1], sys.argv[2], sys.argv[3]
got = json.load(open(path))
hw = ["cycles", "instructions", "branch-misses", "cache-references", "cache-misses"]
sw = ["task-clock", "page-faults", "context-switches"]
short = {"hot_a": (300, 200, 2, 10, 5), "hot_b": (300, 600, 3, 20, 3),
         "hot_c": (300, 100, 1, 40, 10), "main": (300, 150, 0, 0, 0),
         "[unknown]": (300, 300, 3, 10, 3)}
# (symbol, attributed windows, discarded windows) in the table's order
if mode == "discard":
    g1 = [("hot_a", 3, 1), ("hot_b", 3, 0), ("hot_c", 2, 1), ("[unknown]", 1, 0), ("main", 0, 1)]
    g2 = [("hot_a", 2, 3), ("hot_b", 1, 1), ("hot_c", 1, 1)]
else:
    g1 = [("hot_a", 4, 0), ("hot_b", 3, 0), ("hot_c", 3, 0), ("[unknown]", 1, 0), ("main", 1, 0)]
    g2 = [("hot_a", 5, 0), ("hot_b", 2, 0), ("hot_c", 2, 0)]
swd = {"hot_a": (1000000, 4, 0), "hot_b": (1000000, 0, 1), "hot_c": (1000000, 2, 0)}

def ratio(n, d, scale):
    return None if d == 0 else n * scale / d

def group(rows, names, per, metrics, windows, alternating):
    funcs, totals = [], dict.fromkeys(names, 0)
    for sym, n, disc in rows:
        counts = {e: n * per[sym][i] for i, e in enumerate(names)}
        for e in names:
            totals[e] += counts[e]
        funcs.append({"symbol": sym, "dso": dso, "samples": n, "discarded": disc,
                      "discard_ratio": disc / (n + disc) if n + disc else None,
                      "counts": counts, "metrics": metrics(counts)})
    return {"functions": funcs, "totals": totals, "leader": names[0], "members": names,
            "mode": mode, "alternating": alternating, "windows": windows}

def hw_metrics(c):
    return {"CPI": ratio(c["cycles"], c["instructions"], 1),
            "BM/KI": ratio(c["branch-misses"], c["instructions"], 1000),
            "CM/KI": ratio(c["cache-misses"], c["instructions"], 1000),
            "CM%": ratio(c["cache-misses"], c["cache-references"], 100)}

def sw_metrics(c):
    return {"page-faults/ms": ratio(c["page-faults"], c["task-clock"], 1e6),
            "context-switches/ms": ratio(c["context-switches"], c["task-clock"], 1e6)}

w1 = {"attributed": 9 if mode == "discard" else 12, "discarded": 3 if mode == "discard" else 0,
      "long": 11, "throttled": 2}
w2 = {"attributed": 4 if mode == "discard" else 9, "discarded": 5 if mode == "discard" else 0,
      "long": 0, "throttled": 0}
first = group(g1, hw, short, hw_metrics, w1, True)
want = dict(first)
want["groups"] = [first, group(g2, sw, swd, sw_metrics, w2, False)]

def same(a, b, where):
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            sys.exit("%s: keys %s, not %s" % (where, sorted(b), sorted(a)))
        for k in a:
            same(a[k], b[k], where + "." + k)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            sys.exit("%s: %d entries, not %d" % (where, len(b), len(a)))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (where, i))
    elif isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or abs(a - b) > 1e-6 * max(1, abs(a)):
            sys.exit("%s: %r, not %r" % (where, b, a))
    elif a != b or type(a) != type(b):
        sys.exit("%s: %r, not %r" % (where, b, a))

same(want, got, "json")
PY
}

test_expect "--metrics --json: functions, counts, metrics, totals, windows as computed by hand" '
	json_check discard'
test_expect "--metrics=all --json: the same with every window counted" '
	json_check all'

test_expect "--metrics --dsos and --symbols hide rows but keep the totals" '
	"$PREC" report -i gr.data --metrics --symbols hot_b >sym.out 2>err && no_stderr err &&
	[ "$(rows sym.out | grep -vc -- --)" = 2 ] &&
	rows sym.out | grep -q "^3 0 0.00% 900 33.33% 1800 62.07% .* hot_b\$" &&
	"$PREC" report -i gr.data --metrics --dsos nosuch >dso.out &&
	[ -z "$(rows dso.out | tr -d -- -)" ]'

test_expect "--metrics --tid leaves out the other thread's windows" '
	"$PREC" report -i gr.data --metrics --tid 4243 >tid.out 2>err && no_stderr err &&
	rows tid.out | head -1 | grep -q "^2 0 0.00% 600 66.67% .* hot_c\$"'

# groupthrottle: a per-CPU group (not inherit) whose UNTHROTTLE names another thread than its
# THROTTLE: 3 samples (2 windows), the span (1 sample), 6 samples of which the first after the
# span is throttled: 7 windows of 1000000 ns and 4 faults, 2 throttled. An inherit group, two
# threads under one id: thread 1's span (1 sample inside, the first after) leaves thread 2's
# windows alone: 4 windows of 1000000 ns and 1 fault, 2 throttled.
test_expect "throttling: UNTHROTTLE in another thread ends the span; inherit spans are per thread" '
	"$MK" groupthrottle thr.data >/dev/null &&
	"$PREC" report -i thr.data --metrics >thr.out 2>err && no_stderr err &&
	rows thr.out >got &&
	printf "%s\n" "7 0 0.00% 7000000 100.00% 28 100.00% 4.0000 hot3 [.] hot_a" -- \
		"4 0 0.00% 4000000 100.00% 4 100.00% 1.0000 hot3 [.] hot_a" >want &&
	diff want got &&
	[ "$(grep -c "^# Windows: [74] attributed, 0 discarded (0.00%), 2 throttled\$" thr.out)" = 2 ]'

# groupnoid: read without ids: GROUP_DESC makes {task-clock,page-faults} one group whose member
# samples too (8 samples left out, their reads are the leader's). The leader: hot_a 4 times
# (4 faults a window), hot_b 4 times (none), the sixth sample on CPU 1: 3 windows in hot_a, the
# one into hot_b discarded, 3 in hot_b. --cpu 0 leaves the sixth out and no window reaches
# across it: the seventh only starts one, hot_b has 1.
test_expect "a group read without ids: one group from GROUP_DESC, the member that samples noted" '
	"$MK" groupnoid noid.data >/dev/null &&
	"$PREC" report -i noid.data --metrics >noid.out 2>err && no_stderr err &&
	[ "$(grep -c "^# Group " noid.out)" = 1 ] &&
	grep -q "^# Group {task-clock,page-faults}: 8 samples of task-clock\$" noid.out &&
	grep -q "^# 8 samples of members that sample too were left out" noid.out &&
	rows noid.out >got &&
	printf "%s\n" "3 0 0.00% 3000000 50.00% 12 100.00% 4.0000 hot3 [.] hot_a" \
		"3 1 25.00% 3000000 50.00% 0 0.00% 0.0000 hot3 [.] hot_b" >want &&
	diff want got'

test_expect "--cpu: a window does not reach across a sample of another CPU" '
	"$PREC" report -i noid.data --metrics --cpu 0 >cpu.out 2>err && no_stderr err &&
	rows cpu.out >got &&
	printf "%s\n" "3 0 0.00% 3000000 75.00% 12 100.00% 4.0000 hot3 [.] hot_a" \
		"1 1 50.00% 1000000 25.00% 0 0.00% 0.0000 hot3 [.] hot_b" >want &&
	diff want got'

# groupwrap: two windows of 2^63 ns (a reset between them) would add up to 0 in 64 bits
test_expect "sums past the largest count stay at it, with one warning" '
	"$MK" groupwrap wrap.data >/dev/null &&
	"$PREC" report -i wrap.data --metrics >wrap.out 2>err &&
	rows wrap.out | grep -q "^2 0 0.00% 18446744073709551615 100.00% 2 100.00% " &&
	[ "$(wc -l <err)" = 1 ] && grep -q "reached the largest count" err'

test_expect "--metrics all and --metrics discard: the mode as the next word, as -g takes it" '
	"$PREC" report -i gr.data --metrics all >all2.out 2>err && no_stderr err &&
	cmp all.out all2.out &&
	"$PREC" report --metrics discard -i gr.data >d3.out 2>err && no_stderr err &&
	cmp discard.out d3.out'

test_expect "a file without group samples: one line, exit status 1" '
	"$PREC" record -q -o plain.data -e task-clock -c 1000000 -- "$HOT3" 0.2 >/dev/null 2>&1;
	"$PREC" report -i plain.data --metrics >out 2>err; rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] &&
	grep -q "no samples that read a group: record with -e .{EVENT,EVENT...}:S." err &&
	! test -s out'

test_expect "--metrics=bogus: one line naming the modes, exit status 2" '
	"$PREC" report -i gr.data --metrics=bogus >out 2>err; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "discard or all" err'

# sums_match FILE: in every group of the JSON, the functions' counts add up to the totals, and
# the windows attributed are the functions' samples
sums_match() {
	"$PYTHON" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for g in d.get("groups", [d]):
    for e in g["members"]:
        s = sum(f["counts"][e] for f in g["functions"])
        if s != g["totals"][e]:
            sys.exit("%s: rows add up to %d, total %d" % (e, s, g["totals"][e]))
    if sum(f["samples"] for f in g["functions"]) != g["windows"]["attributed"]:
        sys.exit("samples do not add up to the windows attributed")
    if g["windows"]["attributed"] == 0:
        sys.exit("no window attributed")
PY
}

test_expect "a group recorded by prec record gives a table whose rows add up to the totals" '
	"$PREC" record -q -o prec.data -e "{task-clock,page-faults}:S" -c 200000 -- "$HOT3" 0.5 \
		>/dev/null 2>rec.err &&
	"$PREC" report -i prec.data --metrics >prec.out 2>err && no_stderr err &&
	grep -q "^# Group {task-clock,page-faults}: " prec.out &&
	"$PREC" report -i prec.data --metrics --json >prec.json && sums_match prec.json'

test_expect "a group recorded by perf record gives a table whose rows add up to the totals" '
	perf record -q -o perf.data -e "{task-clock,page-faults}:S" -c 200000 -- "$HOT3" 0.5 \
		>/dev/null 2>rec.err &&
	"$PREC" report -i perf.data --metrics >perfrec.out 2>err && no_stderr err &&
	grep -q "^# Group {task-clock,page-faults}: " perfrec.out &&
	"$PREC" report -i perf.data --metrics --json >perfrec.json && sums_match perfrec.json'

test_expect "a group recorded into a pipe: prec report -i - --metrics reads it" '
	"$PREC" record -q -o - -e "{task-clock,page-faults}:S" -c 200000 -- "$HOT3" 0.3 \
		2>rec.err | "$PREC" report -i - --metrics --json >pipe.json 2>err &&
	no_stderr err && sums_match pipe.json &&
	grep -q "\"members\": \[\"task-clock\", \"page-faults\"\]" pipe.json'

done_testing
