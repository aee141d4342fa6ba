#!/bin/bash
# t1010: prec record --count and --count-interval, the record side. Counting events
# that are alike are opened once (counted here with strace, not with prec's word), every event
# is read every interval and at the end as PERF_RECORD_STAT / STAT_ROUND, and perf 6.1 reads the
# readings without a word: perf stat report, perf script's table and stat__ Python handlers,
# whose totals are the last readings. The samples are still perf record's.
# shellcheck disable=SC2016,SC2034 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "the hot3 workload is not built"
export HOME=$T/home
mkdir -p "$HOME"
NCPUS=$(getconf _NPROCESSORS_ONLN)

# table FILE: perf script's table of readings, "block cpu thread val ena run time name" per row,
# block numbering the rounds from 1 (each round prints every event; perf prints a round as it
# reads it, between the samples, and the header once).
table() {
	perf script -i "$1" 2>/dev/null | awk '
		/^CPU +THREAD +VAL +ENA +RUN +TIME +EVENT$/ { on = 1; next }
		on && NF == 7 && $1 ~ /^-?[0-9]+$/ && $2 ~ /^-?[0-9]+$/ && $3 ~ /^[0-9]+$/ &&
		$4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ {
			if ($6 != last) { block++; last = $6 }
			print block, $1, $2, $3, $4, $5, $6, $7 }'
}

# final FILE: the last round's rows, "name val ena run" per event, summed over its CPUs and
# threads, in file order (an event name may come more than once).
final() {
	table "$1" >"$1.table"
	"$PYTHON" - "$1.table" <<-'EOF'
	import sys
	rows = [l.split() for l in open(sys.argv[1])]
	last = max(int(r[0]) for r in rows)
	out, prev = [], None
	ncpu = len({r[1] for r in rows if int(r[0]) == last})
	rows = [r for r in rows if int(r[0]) == last]
	# perf prints each event's rows (one per CPU of the map) together, in file order
	for i in range(0, len(rows), ncpu):
	    chunk = rows[i:i + ncpu]
	    out.append((chunk[0][7], sum(int(r[3]) for r in chunk), sum(int(r[4]) for r in chunk),
	                sum(int(r[5]) for r in chunk)))
	for o in out:
	    print(*o)
	EOF
}

# stat_report FILE: perf stat report, which prints its table on stderr: exit 0 and nothing on
# stderr but the table (its header, and a time and a count per line).
stat_report() {
	perf stat report -i "$1" >"$1.sr" 2>&1
	local rc=$?
	cat "$1.sr"
	test $rc = 0 || { fail "perf stat report exit $rc"; return 1; }
	if grep -Ev '^#|^ +[0-9]+\.[0-9]+ +(<not (counted|supported)>|[0-9.]+) ' "$1.sr"; then
		fail "perf stat report said more than its table"
		return 1
	fi
	grep -Eq '^ +[0-9]+\.[0-9]+ +[0-9.]+ ' "$1.sr" || fail "perf stat report printed no count"
}

# ---- three alike task-clocks (one in a group), task-clock:u apart --------

COUNT='task-clock,task-clock,{task-clock,page-faults},task-clock:u'
"$PREC" record --count "$COUNT" --overhead-source=none -o c.data -- "$HOT3" -c 1 >rec.out 2>rec.err
rec_rc=$?

test_expect "prec record --count records (exit 0, no warning)" '
	test $rec_rc = 0 || { cat rec.err; exit 1; }
	! grep -v "^\[ prec record\|cycles is not supported" rec.err
'

# opens FILE CONFIG [u]: the perf_event_open calls strace saw for counting event CONFIG
# (PERF_COUNT_SW_CONFIG; with u the :u one, else the others), "pid cpu group_fd fd" per call.
opens() {
	grep "config=PERF_COUNT_SW_$2," "$1" | grep "sample_period=0," |
		if [ "${3:-}" = u ]; then grep "exclude_kernel=1"; else grep -v "exclude_kernel=1"; fi |
		sed -n 's/.*}, \(-\{0,1\}[0-9]*\), \(-\{0,1\}[0-9]*\), \(-\{0,1\}[0-9]*\), [^)]*) = \([0-9]*\)$/\1 \2 \3 \4/p'
}

# The opens counted by strace, in runs of their own (a traced recorder reads its counters
# slowly, which the readings below would show). A command is one thread: its --count events
# are one counter each, on any CPU, as perf stat opens them; with -a one per CPU.
if command -v strace >/dev/null 2>&1; then
	test_expect "a command: one task-clock counter for the three alike ones, one for task-clock:u" '
		strace -f -qq -o st.txt -e trace=perf_event_open "$PREC" record -q \
			--count "$COUNT,{context-switches,cpu-migrations}" --overhead-source=none \
			-o st.data -- "$HOT3" 0.1 || fail "prec record failed under strace"
		grep -q "perf_event_open(" st.txt || fail "strace saw no perf_event_open"
		opens st.txt TASK_CLOCK >tc.txt; opens st.txt TASK_CLOCK u >tcu.txt
		opens st.txt PAGE_FAULTS >pf.txt
		cat tc.txt tcu.txt pf.txt
		test "$(wc -l <tc.txt)" = 1 && test "$(wc -l <tcu.txt)" = 1 &&
			test "$(wc -l <pf.txt)" = 1 || fail "not one counter each"
		# on any CPU, in the workload (not pid -1, not the recorder)
		cat tc.txt tcu.txt pf.txt | awk "\$2 != -1 || \$1 <= 0 { exit 1 }" ||
			fail "not one counter per thread on CPU -1"
	'
	test_expect "a --count group {context-switches,cpu-migrations} is opened as a group" '
		opens st.txt CONTEXT_SWITCHES >cs.txt; opens st.txt CPU_MIGRATIONS >cm.txt
		cat cs.txt cm.txt
		test "$(wc -l <cs.txt)" = 1 && test "$(wc -l <cm.txt)" = 1 &&
			test "$(cut -d" " -f3 cs.txt)" = -1 &&
			test "$(cut -d" " -f3 cm.txt)" = "$(cut -d" " -f4 cs.txt)"
	'
	test_expect "-a: one task-clock counter per CPU for two alike ones, one per CPU for :u" '
		strace -f -qq -o sta.txt -e trace=perf_event_open "$PREC" record -q -a \
			--count task-clock,task-clock,task-clock:u --overhead-source=none \
			-o sta.data -- "$HOT3" 0.1 || fail "prec record -a failed under strace"
		opens sta.txt TASK_CLOCK >atc.txt; opens sta.txt TASK_CLOCK u >atcu.txt
		cat atc.txt atcu.txt
		test "$(wc -l <atc.txt)" = "$NCPUS" && test "$(wc -l <atcu.txt)" = "$NCPUS" &&
			test "$(cut -d" " -f2 atc.txt | sort -u | wc -l)" = "$NCPUS" &&
			awk "\$1 != -1 || \$2 < 0 { exit 1 }" atc.txt atcu.txt
	'
else
	test_skip "one task-clock counter for the three alike ones" "strace is not installed"
fi

final c.data >c.final
test_expect "the last readings: all events; the task-clocks equal task-clock:u within 1%" '
	cat c.final
	test "$(cut -d" " -f1 c.final | tr "\n" " ")" = \
		"cpu-clock task-clock task-clock task-clock page-faults task-clock:u " ||
		fail "not the events of the file"
	"$PYTHON" - c.final <<-"EOF"
	import sys
	ev = [l.split() for l in open(sys.argv[1])]
	u = int(ev[5][1])
	assert u > 100000000, "task-clock:u counted %d ns of a 1 s workload" % u
	for e in ev[1:4]:
	    v = int(e[1])
	    assert abs(v - u) <= u / 100, "task-clock %d vs task-clock:u %d" % (v, u)
	    # one counter per thread: enabled and running from one read(), never multiplexed
	    assert int(e[2]) == int(e[3]), "enabled %s running %s" % (e[2], e[3])
	assert int(ev[4][1]) > 0, "no page faults"
	EOF
'

test_expect "page-faults counts what perf stat counts (enabled on exec, as perf)" '
	ours=$(awk "\$1 == \"page-faults\" { print \$2 }" c.final)
	perf stat -x, -e page-faults -- "$HOT3" 0.2 2>ps.err >/dev/null
	theirs=$(cut -d, -f1 ps.err | grep -E "^[0-9]+$" | head -1)
	echo "prec $ours, perf stat $theirs"
	test -n "$ours" && test -n "$theirs" &&
		test $((ours - theirs)) -le $((theirs / 5 + 3)) &&
		test $((theirs - ours)) -le $((theirs / 5 + 3))
'

test_expect "the facts say which events shared and the interval" '
	grep -aq "event.2.shared_with=1" c.data && grep -aq "event.3.shared_with=1" c.data &&
		! grep -aq "event.5.shared_with" c.data && ! grep -aq "event.1.shared_with" c.data &&
		grep -aq "counters.interval_ns=1000000000" c.data
'

test_expect "perf stat report reads it without a word" '
	stat_report c.data && grep -q "task-clock:u" c.data.sr && grep -q "page-faults" c.data.sr
'

cat >h.py <<'EOF'
tot = {}
def handler(name):
    def f(cpu, thread, time, val, ena, run):
        tot[name] = tot.get(name, 0) + val
    return f
for n in ("cpu-clock", "task-clock", "task-clock_u", "page-faults"):
    globals()["stat__" + n] = handler(n)
def stat__interval(time):
    tot["rounds"] = tot.get("rounds", 0) + 1
def trace_end():
    for k in sorted(tot):
        print(k, tot[k])
EOF
# perf scales each round's increase by enabled/running (SCALE 1); nothing here is multiplexed,
# so nothing is scaled, but perf adds doubles: equal within 0.1%.
test_expect "stat__ handlers of perf script -s add up to the last readings" '
	perf_clean perf script -i c.data -s h.py >h.out && cat h.out
	for n in cpu-clock task-clock task-clock:u page-faults; do
		want=$(awk -v n="$n" "\$1 == n { s += \$2 } END { printf \"%.0f\", s }" c.final)
		got=$(awk -v n="${n/:/_}" "\$1 == n { print \$2 }" h.out)
		test -n "$got" && test "$want" -gt 0 &&
			test $(( (got - want) * 1000 / want )) = 0 ||
			fail "$n: handlers $got, last readings $want"
	done
	rounds=$(awk "{ print \$1 }" c.data.table | sort -u | wc -l)
	test "$(awk "\$1 == \"rounds\" { print \$2 }" h.out)" = "$rounds"
'

test_expect "perf script and perf report read the file cleanly; the samples are all there" '
	perf_clean perf script -i c.data -F comm,event,sym >s.out
	n=$(grep -c "cpu-clock:" s.out)
	want=$(sed -n "s/.*(\([0-9]*\) samples).*/\1/p" rec.err)
	echo "perf script $n samples, prec said $want"
	test "$n" = "$want" && test "$n" -gt 100 && grep -q hot_a s.out
	perf_clean perf report -i c.data --stdio >r.out && grep -q "hot_a" r.out
'

# ---- intervals: cumulative readings, about one round per interval ----------------------------

"$PREC" record -q --count task-clock --count-interval 500ms --overhead-source=none -o i.data \
	-- "$HOT3" 2.5 >/dev/null 2>i.err
test_expect "a 2.5 s command read every 500 ms: about 5 INTERVAL rounds and one FINAL" '
	"$PREC" report -D -i i.data >i.dump 2>&1
	ni=$(grep -c "STAT_ROUND: type INTERVAL" i.dump) ; nf=$(grep -c "STAT_ROUND: type FINAL" i.dump)
	echo "$ni intervals, $nf final"
	test "$ni" -ge 4 && test "$ni" -le 6 && test "$nf" = 1 &&
		grep -aq "counters.interval_ns=500000000" i.data
'
test_expect "the readings are cumulative: no event ever goes down" '
	grep "PERF_RECORD_STAT:" i.dump |
		sed "s/.*id \([0-9]*\), cpu \([-0-9]*\), thread \([0-9]*\), val \([0-9]*\).*/\1_\2_\3 \4/" |
		awk "{ if (\$1 in v && \$2 < v[\$1]) { print \"down:\", \$0; bad = 1 } v[\$1] = \$2; n++ }
			END { exit bad || n < 10 }"
'

# ---- task targets: a command with children, -p of a multi-threaded process, -t; and -a -----
# Software counters never multiplex: no reading may run less than it was enabled, or perf stat
# report prints a running share "(99.81%)" and scales the count by it. perf prints one per line
# whenever running != enabled, intervals included.

# noshare FILE: perf stat report reads FILE cleanly, in 3 intervals or more, with no share.
noshare() {
	stat_report "$1" >/dev/null || return 1
	if grep -E "\([0-9]+\.[0-9]+%\)" "$1.sr"; then
		fail "$1: a running share on a software counter"
		return 1
	fi
	n=$(awk "/^ +[0-9]+\.[0-9]+ +[0-9.]+ /{ print \$1 }" "$1.sr" | sort -u | wc -l)
	test "$n" -ge 3 || fail "$1: $n intervals"
}

SOFT="-e cpu-clock --count task-clock,page-faults,context-switches --count-interval 100ms"
# shellcheck disable=SC2086 # SOFT is a list of options
"$PREC" record -q $SOFT --overhead-source=none -o kids.data \
	-- sh -c "\"$HOT3\" -c 0.5 & \"$HOT3\" -c 0.5; wait" >/dev/null 2>kids.err
test_expect "a command with two children at once: no running share in perf stat report" '
	cat kids.err; noshare kids.data
'

# A process of 4 threads, 3 of them busy (sleeping a little now and then), for -p and -t.
cat >mt.py <<'EOF2'
import threading, time
def spin():
    x = 0
    while True:
        x += 1
        if x % 20000 == 0:
            time.sleep(0.001)
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
time.sleep(60)
EOF2
# the interpreter itself, not a wrapper that would be the pid (pyenv's shims are scripts)
PY=$("$PYTHON" -c "import sys; print(sys.executable)")
"$PY" mt.py &
MT=$!
at_exit "kill $MT"
# nthreads PID: how many threads the process has now
nthreads() {
	local t n=0
	for t in /proc/"$1"/task/*; do
		[ -e "$t" ] && n=$((n + 1))
	done
	echo $n
}
for _ in $(seq 50); do
	[ "$(nthreads "$MT")" = 4 ] && break
	sleep 0.1
done
NTHR=$(nthreads "$MT")
TID=
for t in /proc/"$MT"/task/*; do
	[ "${t##*/}" != "$MT" ] && { TID=${t##*/}; break; }
done

# shellcheck disable=SC2086
"$PREC" record -q $SOFT --overhead-source=none -o pid.data -p "$MT" -- sleep 0.5 \
	>/dev/null 2>pid.err
test_expect "-p of a process of $NTHR threads: a task-clock reading per thread, on any CPU" '
	cat pid.err; test "$NTHR" = 4 || fail "the workload has $NTHR threads, not 4"
	table pid.data >pid.table
	last=$(cut -d" " -f1 pid.table | sort -n | tail -1)
	awk -v l="$last" "\$1 == l && \$8 == \"task-clock\"" pid.table >pid.tc
	cat pid.tc
	test "$(wc -l <pid.tc)" = "$NTHR" && test "$(cut -d" " -f2 pid.tc | sort -u)" = -1 &&
		test "$(cut -d" " -f3 pid.tc | sort -u | wc -l)" = "$NTHR" &&
		test "$(awk "\$4 > 10000000" pid.tc | wc -l)" -ge 2
'
test_expect "-p of a multi-threaded process: no running share in perf stat report" '
	noshare pid.data
'

# shellcheck disable=SC2086
"$PREC" record -q $SOFT --overhead-source=none -o tid.data -t "$TID" -- sleep 0.5 \
	>/dev/null 2>tid.err
test_expect "-t of one busy thread: its readings alone, on any CPU, no running share" '
	cat tid.err
	table tid.data >tid.table
	awk "\$8 == \"task-clock\"" tid.table >tid.tc
	tail -1 tid.tc
	test -s tid.tc && test "$(cut -d" " -f2,3 tid.tc | sort -u | wc -l)" = 1 &&
		test "$(cut -d" " -f2 tid.tc | sort -u)" = -1 &&
		test "$(tail -1 tid.tc | cut -d" " -f4)" -gt 10000000 && noshare tid.data
'

# shellcheck disable=SC2086
"$PREC" record -q -a $SOFT --overhead-source=none -o wide.data -- "$HOT3" -c 0.5 \
	>/dev/null 2>wide.err
test_expect "-a: no running share in perf stat report" '
	cat wide.err; noshare wide.data
'

# ---- system-wide, some CPUs, pipe mode, reading without --count ------------------------------

"$PREC" record -q -a --count task-clock,task-clock --overhead-source=none -o a.data \
	-- "$HOT3" -c 0.3 >/dev/null 2>a.err
test_expect "-a: readings per CPU, the shared task-clock read equal on each CPU" '
	perf_clean perf script -i a.data >/dev/null
	table a.data >a.table
	last=$(cut -d" " -f1 a.table | sort -n | tail -1)
	awk -v l="$last" "\$1 == l && \$8 == \"task-clock\" { print \$2, \$4 }" a.table | sort >a.tc
	cat a.tc
	test "$(cut -d" " -f1 a.tc | sort -u | wc -l)" = "$NCPUS" &&
		test "$(wc -l <a.tc)" = $((2 * NCPUS)) &&
		test "$(sort -u a.tc | wc -l)" = "$NCPUS"
'

"$PREC" record -q -C 0 --count page-faults --overhead-source=none -o C.data \
	-- "$HOT3" -c 0.2 >/dev/null 2>C.err
test_expect "-C 0: readings on CPU 0 alone" '
	stat_report C.data >/dev/null
	table C.data >C.table
	test -s C.table && test "$(cut -d" " -f2 C.table | sort -u)" = 0
'

"$PREC" record -q --count task-clock,page-faults --overhead-source=none -o - -- "$HOT3" -c 0.3 \
	>p.data 2>p.err
test_expect "pipe mode: perf script and perf stat report read the readings" '
	test -s p.data && perf_clean perf script -i p.data >p.out &&
		grep -q "task-clock" p.out && grep -q hot_a p.out && stat_report p.data
'

"$PREC" record -q --count-interval 100ms --overhead-source=none -o n.data -- "$HOT3" -c 0.3 \
	>/dev/null 2>n.err
test_expect "--count-interval alone reads the sampling event" '
	final n.data >n.final && cat n.final &&
		test "$(cut -d" " -f1 n.final)" = cpu-clock && test "$(cut -d" " -f2 n.final)" -gt 0
'

"$PREC" record -q --overhead-source=none -o plain.data -- "$HOT3" -c 0.1 >/dev/null 2>&1
test_expect "without --count nothing is read: the file is perf record's" '
	"$PREC" report -D -i plain.data >plain.dump 2>&1 &&
		! grep -q "PERF_RECORD_STAT" plain.dump && grep -q "PERF_RECORD_SAMPLE" plain.dump
'

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if command -v setpriv >/dev/null 2>&1 && [ "$paranoid" -ge 2 ]; then
	mkdir -m 777 np
	test_expect "unprivileged (paranoid 2): the counters count user space, said once" '
		(cd np && setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
			"$PREC" record --count task-clock,page-faults --overhead-source=none \
			-o u.data -- "$HOT3" -c 0.2 >/dev/null 2>../np.err) ||
			{ cat np.err; exit 1; }
		cat np.err
		test "$(grep -c "counting user space only" np.err)" = 1 &&
			"$PREC" report -D -i np/u.data >np.dump 2>&1 &&
			grep -q "PERF_RECORD_STAT:.*val [1-9]" np.dump
	'
else
	test_skip "unprivileged: the counters count user space" "no setpriv, or paranoid < 2"
fi

# ---- bad input -----------------------------------------------------------------------------

for bad in "task-clock,{" "no-such-event" "task-clock/" ; do
	test_expect "--count '$bad' is one line and exit 2, nothing written" '
		"$PREC" record --count "'"$bad"'" -o bad.data -- true >out 2>err; rc=$?
		cat err
		test $rc = 2 && test "$(wc -l <err)" = 1 && grep -q "^prec record: --count" err &&
			! test -e bad.data
	'
done
for bad in 5x 0 2h -1s; do
	test_expect "--count-interval $bad is one line and exit 2" '
		"$PREC" record --count-interval '"$bad"' -o bad.data -- true >out 2>err; rc=$?
		cat err
		test $rc = 2 && test "$(wc -l <err)" = 1 && ! test -e bad.data
	'
done
test_expect "--count N is still perf's -c (the sample period)" '
	"$PREC" record -q --count 100003 -e task-clock --overhead-source=none -o per.data \
		-- "$HOT3" 0.1 >/dev/null 2>&1 &&
		perf evlist -v -i per.data 2>/dev/null | grep -q "sample_freq }: 100003,"
'

done_testing
