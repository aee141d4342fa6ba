#!/bin/bash
# t4001: scripts/prec-metrics.py under perf script -s prints the table of prec report --metrics
# from the same file, and with --json the same JSON (functions, counts, samples, discarded,
# metrics, totals, windows, the groups), for --metrics and --metrics=all (the script's --all):
# - on real recordings of tests/workloads/phases by prec record and by perf record, with the
#   group {task-clock,page-faults,context-switches} (a member that never counts: the script
#   names it from the file's header, since perf never calls it for that member);
# - on the file tests/mkdata writes for --metrics (groupread): two groups, counter instances
#   on two CPUs and two threads, a leader that alternates its period, a throttled span (perf
#   6.1 hands the script THROTTLE and UNTHROTTLE records), windows that cross functions, an
#   address without a symbol, and prec's facts (hf-period);
# - on groupthrottle's per-CPU group (not inherit: one state per id, an UNTHROTTLE in another
#   thread than its THROTTLE ends the span), table and JSON;
# - on groupwrap's reads (sums held at the largest count, with the warning), fed to the script's
#   handlers as perf would call them had it delivered every sample (see below).
# perf 6.1 does not deliver a sample whose every member reads what perf last saw for its id
# (deliver_sample_value() skips a zero period, counted per id, not per thread): groupwrap's first
# sample (all zero) and the samples of groupthrottle's inherit group whose second thread reads
# what the first thread read before it never reach a script, so the script cannot follow the
# view there; real recordings (a clock leader always moves) do not have such samples.
# groupnoid (a group read without ids) perf refuses ("non matching read_format") before the
# script runs: checked to fail in one line.
# What perf 6.1 does not give a script: the sample's own id (the script takes the leader's, the
# first value read: with ':S' only the leader samples, so no file here has a member that
# samples too, which the script could not tell from its leader).
# Its --help, an argument it does not know and a file whose samples read no group are checked
# too.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf perf-python python

SCRIPT=$PREC_SRC/scripts/prec-metrics.py
MK=$PREC_BUILD/tests/mkdata
W=$PREC_BUILD/tests/workloads/phases
EV='{task-clock,page-faults,context-switches}:uS'

# One recording by each; perf's without its BPF side band, which only makes perf wait a second
# as it stops (the events are user-only: no BPF program would be in a sample).
"$PREC" record -q -o prec.data -e "$EV" -c 200000 -- "$W" 0.2 >/dev/null 2>prec.err ||
	{ cat prec.err; echo "# prec record failed"; }
perf record -q --no-bpf-event -o perf.data -e "$EV" -c 200000 -- "$W" 0.2 >/dev/null 2>perf.err ||
	{ cat perf.err; echo "# perf record failed"; }
# two groups, the second's leader sampling first: the groups print in the leaders' order
"$PREC" record -q -o two.data -e '{page-faults/period=200/,minor-faults}:uS' \
	-e '{task-clock/period=200000/,context-switches}:uS' -- "$W" 0.2 >/dev/null 2>two.err ||
	{ cat two.err; echo "# prec record of two groups failed"; }
"$MK" groupread gr.data >gr.manifest 2>gr.err || { cat gr.err; echo "# mkdata groupread failed"; }
for k in groupthrottle groupwrap groupnoid; do
	"$MK" $k $k.data >/dev/null 2>$k.err || { cat $k.err; echo "# mkdata $k failed"; }
done
# a file with a group whose samples do not read it
"$MK" events plain.data >/dev/null 2>plain.err || { cat plain.err; echo "# mkdata events failed"; }

FILES="prec perf gr two groupthrottle"
for f in $FILES; do
	for mode in discard all; do
		opt=--metrics
		arg=
		[ $mode = all ] && opt=--metrics=all arg=--all
		"$PREC" report -i $f.data $opt >$f.$mode.txt 2>$f.$mode.err
		"$PREC" report -i $f.data $opt --json >$f.$mode.json 2>>$f.$mode.err
		perf script -i $f.data -s "$SCRIPT" -- $arg >$f.$mode.py.txt 2>$f.$mode.py.err
		perf script -i $f.data -s "$SCRIPT" -- $arg --json >$f.$mode.py.json 2>>$f.$mode.py.err
	done
done

# compare.py NAME...: for each NAME, NAME.json and NAME.py.json hold the same document (floats
# to the 10 digits both print); one line per NAME, "NAME ok" or "NAME differs: WHERE"
cat >compare.py <<'EOF'
import json, sys


def same(a, b, path):
    if isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(a)), \
            "%s: %r != %r" % (path, a, b)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), "%s: keys %r != %r" % (
            path, list(a), list(b) if isinstance(b, dict) else b)
        for k in a:
            same(a[k], b[k], "%s.%s" % (path, k))
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), "%s: %d != %r items" % (
            path, len(a), len(b) if isinstance(b, list) else b)
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (path, i))
    else:
        assert a == b, "%s: %r != %r" % (path, a, b)


for name in sys.argv[1:]:
    try:
        name, _, group = name.partition(":")  # NAME:N: only the N-th group's object
        c = json.load(open(name + ".json"))
        p = json.load(open(name + ".py.json"))
        if group:
            c, p = c["groups"][int(group)], p["groups"][int(group)]
            name += ":" + group
        assert c["functions"] and c["windows"]["attributed"], "nothing attributed"
        same(c, p, "")
        print("%s ok" % name)
    except Exception as ex:
        print("%s differs: %s" % (name, ex))
EOF
"$PYTHON" compare.py $(for f in prec perf gr two; do echo $f.discard $f.all; done) \
	groupthrottle.discard:0 groupthrottle.all:0 >compare.out 2>&1

for f in prec perf gr two; do
	for mode in discard all; do
		test_expect "$f.data, $mode: the script's --json is prec report's" '
			no_stderr $f.$mode.err && no_stderr $f.$mode.py.err &&
			grep "^$f.$mode " compare.out && grep -q "^$f.$mode ok$" compare.out
		'
		test_expect "$f.data, $mode: the script prints prec report's table" '
			test -s $f.$mode.txt && diff -u $f.$mode.txt $f.$mode.py.txt
		'
	done
done

# the first table of a file: its per-CPU group
first_table() { sed '/^$/q' "$1"; }
for mode in discard all; do
	test_expect "groupthrottle.data, $mode: the per-CPU group's JSON and table are prec report's" '
		no_stderr groupthrottle.$mode.err && no_stderr groupthrottle.$mode.py.err &&
		grep -q "^groupthrottle.$mode:0 ok$" compare.out &&
		first_table groupthrottle.$mode.txt >c.first &&
		first_table groupthrottle.$mode.py.txt >py.first &&
		grep -q "^# Windows: 7 attributed" c.first && diff -u c.first py.first
	'
done

# groupwrap.data's reads, given to the script's handlers as perf would give them were its first
# sample (all zero) delivered; the names and attrs come from the file, the function from prec
# report's JSON.
"$PREC" report -i groupwrap.data --metrics >wrap.txt 2>wrap.err
"$PREC" report -i groupwrap.data --metrics --json >wrap.json 2>/dev/null
cat >feed.py <<'EOF'
import importlib.util, json, os, sys
sys.argv = ["prec-metrics.py"]
spec = importlib.util.spec_from_file_location("m", os.environ["SCRIPT"])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
m.trace_begin()
leader, member = sorted(m.header["attrs"])
f = json.load(open("wrap.json"))["functions"][0]
for n, (v0, v1) in enumerate([(0, 0), (1 << 63, 1), (0, 2), (1 << 63, 3)]):
    m.process_event({"sample": {"tid": 4242, "pid": 4242, "time": n, "cpu": 0, "ip": 1,
                                "cpumode": 2, "values": [(leader, v0, 0), (member, v1, 0)]},
                     "symbol": f["symbol"], "dso": f["dso"], "ev_name": "task-clock",
                     "attr": m.header["attrs"][leader]})
m.trace_end()
EOF
PYTHONPATH=$PREC_SRC/scripts SCRIPT=$SCRIPT "$PYTHON" feed.py -i groupwrap.data >wrap.py.txt \
	2>wrap.py.err
test_expect "groupwrap.data: sums held at the largest count, one warning, as prec report" '
	grep -q " 18446744073709551615 " wrap.txt && diff -u wrap.txt wrap.py.txt &&
	[ "$(wc -l <wrap.py.err)" = 1 ] && grep -q "reached the largest count" wrap.py.err &&
	grep -q "reached the largest count" wrap.err
'

test_expect "groupnoid.data: perf refuses a group read without ids, in one line" '
	perf script -i groupnoid.data -s "$SCRIPT" >noid.out 2>noid.err
	test $? != 0 && test "$(wc -l <noid.err)" = 1 && ! test -s noid.out
'

test_expect "the built file: two groups, throttled and long windows, discards, hf-period" '
	"$PYTHON" -c "
import json
d = json.load(open(\"gr.discard.py.json\"))
w = d[\"windows\"]
assert len(d[\"groups\"]) == 2 and d[\"alternating\"], d
assert w[\"throttled\"] and w[\"long\"] and w[\"discarded\"], w
" && grep -q "^# prec recorded it with hf-period=" gr.discard.py.txt
'

test_expect "-- --help prints the usage and exits 0" '
	perf script -i gr.data -s "$SCRIPT" -- --help >help.out 2>&1 &&
	grep -q "^usage: perf script .*prec-metrics.py" help.out && grep -q -- "--json" help.out &&
	grep -q -- "--all" help.out
'
test_expect "an unknown argument: one line, exit 2" '
	perf script -i gr.data -s "$SCRIPT" -- --bogus >bad.out 2>bad.err
	test $? = 2 && test "$(wc -l <bad.err)" = 1 && grep -q "bogus" bad.err
'
test_expect "a file whose samples read no group: the line of prec report, exit 1" '
	"$PREC" report -i plain.data --metrics >/dev/null 2>c.err
	test $? = 1 || exit 1
	perf script -i plain.data -s "$SCRIPT" >/dev/null 2>py.err
	test $? = 1 && test "$(wc -l <py.err)" = 1 &&
	grep -q "no samples that read a group: record with -e '\''{EVENT,EVENT...}:S'\''" py.err &&
	grep -q "no samples that read a group" c.err
'

# The scripts as make install lays them out (Makefile.am's dist_pkgdata_DATA, in one directory),
# run from elsewhere: perf puts a script's directory on its path, and the module the scripts
# share must be installed beside them.
mkdir -p inst/share run
for f in $(sed -n 's/^dist_pkgdata_DATA += //p' "$PREC_SRC/Makefile.am"); do
	cp "$PREC_SRC/$f" inst/share/
done
"$MK" stat st.data >/dev/null 2>st.err || { cat st.err; echo "# mkdata stat failed"; }
test_expect "installed in one directory, the scripts find the module they share" '
	(cd run && perf script -i ../gr.data -s ../inst/share/prec-metrics.py >../inst.txt \
		2>../inst.err) && no_stderr inst.err && diff -u gr.discard.txt inst.txt &&
	(cd run && perf script -i ../st.data -s ../inst/share/prec-counters.py >../cnt.txt \
		2>../cnt.err) && no_stderr cnt.err && grep -q "^# Counter totals" cnt.txt &&
	! test -e inst/share/__pycache__
'

done_testing
