#!/bin/bash
# t1018: prec stat against perf stat 6.1 on the same workloads: the same lines and fields in the
# same order (everything but the numbers), the metrics recomputed from the counts, task-clock
# within 2% on a CPU-bound workload, equal page-faults on one that touches a fixed number of
# pages; the targets (-a, -C, -p, -t), -I, -A, -r, -o, the exit status of the command, SIGINT
# without a command, an event whose PMU refuses exclude_guest, and bad input with perf's status.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
TOUCH=$PREC_BUILD/tests/workloads/pagetouch
[ -x "$HOT3" ] && [ -x "$TOUCH" ] || skip_all "the hot3 and pagetouch workloads are not built"
NCPUS=$(getconf _NPROCESSORS_ONLN)

# shape: a stat output without its numbers: each number is N, runs of blanks one blank, a rate's
# K, M or G dropped (the rates differ between two runs) and the date of -o gone.
shape() {
	sed -E -e 's/^# started on .*/# started on DATE/' -e 's/[0-9][0-9.]*/N/g' \
		-e 's/[KMG]\/sec/\/sec/g' -e 's/ +/ /g' -e 's/ +$//'
}

# same_shape DESC PERF-OUTPUT PREC-OUTPUT
same_shape() {
	shape <"$2" >"$2.shape"
	shape <"$3" >"$3.shape"
	test_expect "$1" 'diff "'"$2"'.shape" "'"$3"'.shape"'
}

# The default events, in text and in CSV.
perf stat -- true 2>perf-default.out
"$PREC" stat -- true 2>prec-default.out
same_shape "the default events: perf stat's lines, hardware ones <not supported>" \
	perf-default.out prec-default.out
perf stat -x, -- true 2>perf-default.csv
"$PREC" stat -x, -- true 2>prec-default.csv
same_shape "-x,: perf stat's fields in perf's order" perf-default.csv prec-default.csv
test_expect "-x,: the events, units and metric units are perf's" '
	cut -d, -f2,3,7 perf-default.csv >perf.cols && cut -d, -f2,3,7 prec-default.csv >prec.cols &&
	sed -i "s/[KMG]\/sec/\/sec/" perf.cols prec.cols && diff perf.cols prec.cols
'

# task-clock of a workload that runs for one second of CPU time, in both.
perf stat -x, -e task-clock -- "$HOT3" -c 1 2>perf-tc.csv
"$PREC" stat -x, -e task-clock -- "$HOT3" -c 1 2>prec-tc.csv
test_expect "task-clock of 1 s of CPU: within 2% of perf stat's" '
	a=$(cut -d, -f1 perf-tc.csv) b=$(cut -d, -f1 prec-tc.csv)
	awk -v a="$a" -v b="$b" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 900 && d <= a * 0.02) }" ||
		{ echo "perf $a prec $b"; false; }
'

# The metric columns, recomputed from the other fields (the checks run on perf's output too, so
# that they are known to hold there): task-clock's "CPUs utilized" is the task-clock over the
# elapsed time, a rate "/sec" the count over the task-clock's seconds, scaled by K, M or G as perf
# scales it (the largest that leaves at least 1), each within the rounding of what is printed:
# for CPUs utilized, its own three decimals and the task-clock's two (0.005 msec of 7.82 is 0.0005
# of a 0.83 utilization).
cpus_utilized_ok() {
	awk '/msec task-clock/ { tc = $1; for (i = 1; i < NF; i++) if ($(i + 1) == "CPUs") u = $i }
		/seconds time elapsed/ { el = $1 }
		END { if (tc == "" || u == "" || el == "") exit 1
			gsub(",", "", tc); if (tc <= 0) exit 1
			want = tc / 1000 / el; d = u - want; if (d < 0) d = -d
			if (d > 0.0005 + want * 0.005 / tc + 0.00001) {
				print "task-clock", tc, "elapsed", el,
				"utilized", u, "want", want; exit 1 } }' "$1"
}
rate_ok() {
	awk -F, -v ev="$2" '$3 == "task-clock" { tc = $1 }
		$3 == ev { n = $1; m = $6; unit = $7 }
		END { if (tc == "" || n == "" || m == "") exit 1
			s = 1; if (unit == "K/sec") s = 1e3; if (unit == "M/sec") s = 1e6
			if (unit == "G/sec") s = 1e9
			lo = n / ((tc + 0.005) / 1000); hi = n / ((tc - 0.005) / 1000)
			want = n / (tc / 1000)
			if (m * s < lo - 0.0006 * s || m * s > hi + 0.0006 * s ||
			    (s > 1 && want < s) || want >= s * 1000 && s < 1e9) {
				print ev, n, "task-clock", tc, "rate", m, unit; exit 1 } }' "$1"
}
perf stat -e task-clock,page-faults -- "$TOUCH" 2000 2>perf-m.out
"$PREC" stat -e task-clock,page-faults -- "$TOUCH" 2000 2>prec-m.out
test_expect "CPUs utilized is task-clock over the elapsed time (perf's, then prec's)" '
	cpus_utilized_ok perf-m.out && cpus_utilized_ok prec-m.out || { cat prec-m.out; false; }
'
perf stat -x, -e task-clock,page-faults,context-switches -- "$TOUCH" 2000 2>perf-m.csv
"$PREC" stat -x, -e task-clock,page-faults,context-switches -- "$TOUCH" 2000 2>prec-m.csv
test_expect "-x,: a rate is the count over task-clock, scaled as perf (perf's, then prec's)" '
	rate_ok perf-m.csv page-faults && rate_ok prec-m.csv page-faults &&
	rate_ok prec-m.csv context-switches || { cat prec-m.csv; false; }
'

# page-faults of a workload that touches 2000 fresh pages, address randomisation off in both (the
# stack and the loader otherwise take a page more or less from run to run). A loaded machine
# adds a fault now and then (a page reclaimed or migrated under the workload), never takes one
# away: the fewest of three runs is the workload's own count, in perf and in prec.
for i in 1 2 3; do
	setarch -R perf stat -x, -e page-faults -- "$TOUCH" 2000 2>>perf-pf.csv
	setarch -R "$PREC" stat -x, -e page-faults -- "$TOUCH" 2000 2>>prec-pf.csv
done
# fewest FILE: the smallest page-faults count of the runs in FILE
fewest() {
	grep ",page-faults," "$1" | cut -d, -f1 | sort -n | head -1
}
test_expect "page-faults of a fixed workload: equal to perf stat's (the fewest of 3 runs)" '
	test "$(fewest perf-pf.csv)" -ge 2000 && test "$(fewest perf-pf.csv)" = "$(fewest prec-pf.csv)" ||
		{ cat perf-pf.csv prec-pf.csv; false; }
'

# The targets: the header and the lines as perf's.
EV=task-clock,page-faults,context-switches
perf stat -a -- sleep 0.2 2>perf-a.out
"$PREC" stat -a -- sleep 0.2 2>prec-a.out
same_shape "-a: 'system wide', cpu-clock first, no user and sys" perf-a.out prec-a.out
perf stat -C 0 -e $EV -- sleep 0.2 2>perf-c.out
"$PREC" stat -C 0 -e $EV -- sleep 0.2 2>prec-c.out
same_shape "-C 0: 'CPU(s) 0'" perf-c.out prec-c.out
test_expect "-C 0: the clock ran the whole time on one CPU" '
	grep -Eq "^ +[0-9.]+ msec task-clock +# +(0\.9[5-9][0-9]|1\.0[0-9][0-9]) CPUs utilized" prec-c.out ||
		{ cat prec-c.out; false; }
'

"$HOT3" -c 30 >/dev/null &
busy=$!
perf stat -p $busy -e $EV -- sleep 0.5 2>perf-p.out
"$PREC" stat -p $busy -e $EV -- sleep 0.5 2>prec-p.out
same_shape "-p PID: 'process id', counted while the command runs" perf-p.out prec-p.out
test_expect "-p PID: the busy process's task-clock is counted" '
	grep -Eq "^ +[0-9.]+ msec task-clock" prec-p.out && grep -q "process id .$busy." prec-p.out
'
# ahead of the machine's other work, so that it has its CPU (a bounded workload: 5 s of CPU)
$FAVOURED "$HOT3" -c 5 >/dev/null &
fav=$!
"$PREC" stat -p $fav -e task-clock -- sleep 1 2>prec-p1.out
kill $fav
wait $fav 2>/dev/null
test_expect "-p PID of a one-thread busy process: about 1 CPU utilized (0.5 to 1.05)" '
	u=$(awk "/msec task-clock/ {
		for (i = 1; i < NF; i++) if (\$(i + 1) == \"CPUs\") print \$i }" prec-p1.out)
	awk -v u="$u" "BEGIN { exit !(u != \"\" && u >= 0.5 && u <= 1.05) }" ||
		{ cat prec-p1.out; false; }
'
perf stat -t $busy -e $EV -- sleep 0.5 2>perf-t.out
"$PREC" stat -t $busy -e $EV -- sleep 0.5 2>prec-t.out
same_shape "-t TID: 'thread id'" perf-t.out prec-t.out
kill $busy
wait $busy 2>/dev/null

# -p and -t without a command: counting ends when the process or thread does, as perf stat's.
for opt in "-p process" "-t thread"; do
	sleep 0.5 &
	short=$!
	timeout 30 "$PREC" stat ${opt% *} $short -e task-clock 2>end.out
	rc_end=$?
	test_expect "${opt% *} without a command: ends with the ${opt#* }, its counts printed" '
		test $rc_end = 0 && grep -q "'"${opt#* }"' id .$short." end.out &&
		grep -q "seconds time elapsed" end.out || { echo "rc $rc_end"; cat end.out; false; }
	'
done

# -I 200 on a command that sleeps one second: intervals of every event, their timestamps never
# early (they may be late on a busy machine), five of them and maybe a last shorter one.
perf stat -I 200 -e $EV -- sleep 1 2>perf-i.out
"$PREC" stat -I 200 -e $EV -- sleep 1 2>prec-i.out
test_expect "-I 200: the column header once, then lines as perf's" '
	head -1 perf-i.out >perf-i.head && head -1 prec-i.out >prec-i.head &&
	diff perf-i.head prec-i.head && test "$(grep -c "^#" prec-i.out)" = 1 &&
	sed 1d perf-i.out | shape | sed "s/^ N //" | head -3 >perf-i.lines &&
	sed 1d prec-i.out | shape | sed "s/^ N //" | head -3 >prec-i.lines &&
	diff perf-i.lines prec-i.lines
'
test_expect "-I 200: every interval has every event, 5 or 6 intervals, none early" '
	sed 1d prec-i.out | awk "{ print \$1 }" | uniq -c >stamps &&
	awk "\$1 != 3 { exit 1 }" stamps &&
	n=$(wc -l <stamps) && test "$n" -ge 5 && test "$n" -le 6 &&
	awk "{ k++; if (k <= 5 && \$2 < 0.2 * k) exit 1 }" stamps || { cat stamps; false; }
'
perf stat -I 200 -x, -e $EV -- sleep 0.5 2>perf-ix.csv
"$PREC" stat -I 200 -x, -e $EV -- sleep 0.5 2>prec-ix.csv
test_expect "-I 200 -x,: the timestamp first, then perf's fields" '
	head -3 perf-ix.csv | shape >a && head -3 prec-ix.csv | shape >b && diff a b
'

# -A: one line per CPU per event, CPU0 to CPUn in each event's block.
perf stat -A -a -x, -e $EV -- sleep 0.2 2>perf-A.csv
"$PREC" stat -A -a -x, -e $EV -- sleep 0.2 2>prec-A.csv
same_shape "-A -a -x,: perf's lines and fields" perf-A.csv prec-A.csv
test_expect "-A: one line per CPU per event" '
	test "$(wc -l <prec-A.csv)" = $((NCPUS * 3)) &&
	for e in task-clock page-faults context-switches; do
		test "$(grep -c ",$e," prec-A.csv)" = "$NCPUS" || exit 1
	done
'
perf stat -A -C 0 -e $EV -- sleep 0.2 2>perf-A.out
"$PREC" stat -A -C 0 -e $EV -- sleep 0.2 2>prec-A.out
same_shape "-A -C 0: the CPU column as perf's" perf-A.out prec-A.out

# -r 3: the runs in the header, the noise, the elapsed time's mean and deviation.
perf stat -r 3 -e task-clock,page-faults -- "$TOUCH" 500 2>perf-r.out
"$PREC" stat -r 3 -e task-clock,page-faults -- "$TOUCH" 500 2>prec-r.out
test_expect "-r 3: '(3 runs)' and the elapsed time's deviation" '
	grep -q "^ Performance counter stats for .* (3 runs):" prec-r.out &&
	grep -Eq "^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed" prec-r.out || { cat prec-r.out; false; }
'
perf stat -r 3 -x, -e task-clock,page-faults -- "$TOUCH" 500 2>perf-r.csv
"$PREC" stat -r 3 -x, -e task-clock,page-faults -- "$TOUCH" 500 2>prec-r.csv
same_shape "-r 3 -x,: the noise field after the event, as perf's" perf-r.csv prec-r.csv
"$PREC" stat -r 3 -e task-clock -- sh -c 'echo run >>runs.txt' 2>/dev/null
test_expect "-r 3: the command runs three times" 'test "$(wc -l <runs.txt)" = 3'

# -o FILE and --append, in a directory of their own: an existing file is replaced, nothing else
# is touched; --append keeps what was there.
mkdir odir && echo "old line" >odir/out.txt && echo keep >odir/other
(cd odir && "$PREC" stat -e task-clock -o out.txt -- true 2>../o.err)
test_expect "-o FILE: the counts go to the file after '# started on', not to stderr" '
	head -1 odir/out.txt | grep -q "^# started on " && grep -q "msec task-clock" odir/out.txt &&
	! grep -q task-clock o.err
'
test_expect "-o FILE: an existing file is replaced, nothing else touched" '
	! grep -q "old line" odir/out.txt && test "$(ls odir | xargs)" = "other out.txt" &&
	test "$(cat odir/other)" = keep
'
cp odir/out.txt out.txt
(cd odir && "$PREC" stat -e task-clock -o out.txt --append -- true 2>/dev/null)
test_expect "--append: the first report kept as it was, a second one after it" '
	n=$(wc -l <out.txt) && head -$n odir/out.txt | cmp -s - out.txt &&
	test "$(grep -c "^# started on" odir/out.txt)" = 2 &&
	test "$(ls odir | xargs)" = "other out.txt"
'
cp odir/out.txt out.txt
perf stat -e task-clock -o perf-out.txt -- true
perf stat -e task-clock -o perf-out.txt --append -- true
same_shape "--append: a second report after the first, as perf's" perf-out.txt out.txt

# The exit status is the command's.
"$PREC" stat -e task-clock -- false 2>/dev/null
rc_false=$?
"$PREC" stat -e task-clock -- "$TOUCH" 1 3 2>/dev/null
rc_3=$?
"$PREC" stat -e task-clock -- sh -c 'kill -9 $$' 2>killed.err
rc_killed=$?
test_expect "the exit status of false is 1" 'test $rc_false = 1'
test_expect "the exit status of a command that exits 3 is 3" 'test $rc_3 = 3'
test_expect "a command killed by a signal: said before the counts, status 0, as perf" '
	test $rc_killed = 0 && head -1 killed.err | grep -q "^sh: Killed"
'

# No command and no target: the whole system until SIGINT, then the counts and SIGINT's status.
"$PREC" stat -e cpu-clock 2>sigint.out &
pid=$!
for _ in $(seq 300); do
	# counting has started once the counters are open (one per CPU)
	[ "$(find /proc/$pid/fd -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l)" -ge "$NCPUS" ] &&
		break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc_int=$?
test_expect "SIGINT without a command: 'system wide' counts printed, status 130" '
	test $rc_int = 130 && grep -q "stats for .system wide.:" sigint.out &&
	grep -Eq "^ +[0-9.]+ msec cpu-clock" sigint.out || { echo "rc $rc_int"; cat sigint.out; false; }
'

# --bpf-counters: the counts come through counters shared across sessions (a pin root of this
# file's own, so that no other test's session shares them) and are what perf stat counts with
# counters of its own: task-clock within 3%, the page faults of the fixed workload exactly. A
# group counts with its own counters, and one line says why.
if have bpf; then
	export PREC_BPF_PIN_ROOT=/sys/fs/bpf/prec-t1018-$$
	at_exit "rm -rf '$PREC_BPF_PIN_ROOT'"
	# At the lowest real-time priority, the workload is not preempted by other work: a shared
	# counter charges a task the switches it takes (man/prec-record.1), which here are the
	# machine's load, not what is compared.
	"$PREC" stat -v -x, --bpf-counters -e task-clock -- $FAVOURED "$HOT3" -c 1 2>bpf-tc.csv
	rc_bpf=$?
	test_expect "--bpf-counters: -v says the session created the shared counter" '
		test $rc_bpf = 0 &&
		grep -q "^prec: --bpf-counters: created the shared counter of task-clock$" bpf-tc.csv ||
		{ cat bpf-tc.csv; false; }
	'
	# 3%, not the 2% of t1019's same-time comparison: these are two runs, and the switches the
	# shared counter charges grow with the machine's load (seen: perf 999.86, prec 1019.93 ms,
	# with the suite and two busy loops running). A counter read wrong is off by far more. A
	# run over 3% is run again, twice at most: in one suite run under two busy loops prec
	# counted 1041.57 ms against 1000.85 (not explained; 40 pairs of runs beside the suite
	# stayed within 0.6%). Every run is printed.
	test_expect "--bpf-counters: task-clock of 1 s of CPU within 3% of perf stat's" '
		a=$(cut -d, -f1 perf-tc.csv) b=$(grep ",task-clock," bpf-tc.csv | cut -d, -f1)
		for i in 1 2 3; do
			echo "# perf $a prec $b"
			awk -v a="$a" -v b="$b" "BEGIN { d = a - b; if (d < 0) d = -d;
				exit !(a > 900 && d <= a * 0.03) }" && exit 0
			[ $i = 3 ] ||
				b=$("$PREC" stat -x, --bpf-counters -e task-clock -- $FAVOURED "$HOT3" -c 1 \
					2>&1 | grep ",task-clock," | cut -d, -f1)
		done
		false
	'
	for i in 1 2 3; do
		setarch -R "$PREC" stat -x, --bpf-counters -e page-faults -- "$TOUCH" 2000 \
			2>>bpf-pf.csv
	done
	test_expect "--bpf-counters: page-faults of the fixed workload equal to perf stat's" '
		test "$(fewest perf-pf.csv)" = "$(fewest bpf-pf.csv)" ||
			{ cat perf-pf.csv bpf-pf.csv; false; }
	'
	test_expect "--bpf-counters: a group counts with its own counters, one line each says why" '
		"$PREC" stat --bpf-counters -e "{task-clock,page-faults}" -- true 2>bpf-g.out &&
		grep -q "^prec: --bpf-counters: task-clock counts with its own counters: it is in a group$" bpf-g.out &&
		test "$(grep -c "^prec:" bpf-g.out)" = 2 || { cat bpf-g.out; false; }
	'
	test_expect "--bpf-counters: the last session left nothing pinned" \
		'! [ -e "$PREC_BPF_PIN_ROOT" ]'
	unset PREC_BPF_PIN_ROOT
else
	test_skip "--bpf-counters" "this prec is built without BPF"
fi
"$PREC" stat -v -e task-clock,page-faults -- "$TOUCH" 100 2>v.out
test_expect "-v: each event's value, time enabled and time running, as perf -v" '
	grep -Eq "^task-clock: [0-9]+ [0-9]+ [0-9]+$" v.out &&
	grep -Eq "^page-faults: [0-9]+ [0-9]+ [0-9]+$" v.out || { cat v.out; false; }
'

# An event whose PMU refuses exclude_guest (msr): counted without it, as perf retries it, by
# prec stat and by prec record --count alike (one engine).
if [ -d /sys/bus/event_source/devices/msr ]; then
	perf stat -x, -e msr/tsc/ -- true 2>perf-msr.csv
	"$PREC" stat -x, -e msr/tsc/ -- true 2>prec-msr.csv
	test_expect "msr/tsc/: counted by perf stat and by prec stat" '
		grep -Eq "^[0-9]+,,msr/tsc/," perf-msr.csv &&
		grep -Eq "^[0-9]+,,msr/tsc/," prec-msr.csv ||
			{ cat perf-msr.csv prec-msr.csv; false; }
	'
	"$PREC" record -q --count msr/tsc/ -o msr.data -- true 2>/dev/null
	perf stat report -i msr.data >msr-report.out 2>&1
	test_expect "msr/tsc/: counted by prec record --count (perf stat report reads it)" '
		grep -Eq "^ +[0-9.]+ +[0-9]+ +msr/tsc/" msr-report.out ||
			{ cat msr-report.out; false; }
	'
else
	test_skip "msr/tsc/: counted without exclude_guest" "this machine has no msr PMU"
fi

# Bad input: a message that names what is wrong, no counting, and the status perf stat 6.1
# gives for the same input (-r 0 is perf's "until interrupted", which prec refuses).
bad() {
	local rc_want=$1 want=$2
	shift 2
	test_expect "bad input: prec stat $*: status $rc_want" '
		"$PREC" stat '"$*"' >bad.out 2>bad.err; rc=$?
		test $rc = '"$rc_want"' && grep -q -- "'"$want"'" bad.err &&
		! grep -q "Performance counter stats" bad.err || { echo "rc $rc"; cat bad.err; false; }
	'
}
bad 129 "no-such-event" -e no-such-event -- true
bad 129 "-I .abc." -I abc -- true
bad 129 "-r 0" -r 0 -- true
bad 234 "-r .-1." -r -1 -- true
bad 129 "-r .abc." -r abc -- true
bad 129 "-x" -x
bad 234 "system-wide" -A -- true
bad 129 "no-such-option" --no-such-option -- true
bad 234 "999999999" -p 999999999
bad 234 "-p .abc." -p abc
bad 234 "-C .abc." -C abc -- true
# the alternating-period terms of prec record: a counted event has no period to alternate
bad 129 "hf-rand= needs a sampling event" -e cpu-clock/hf-rand=4/ -- true
bad 129 "alt-period= needs a sampling event" -e cpu-clock/alt-period=20000/ -- true
test_expect "bad input: the statuses above are perf stat's own" '
	for args in "-e no-such-event -- true" "-I abc -- true" "-r -1 -- true" \
		"-r abc -- true" "-x" "-A -- true" "--no-such-option -- true" "-p 999999999" \
		"-p abc" "-C abc -- true" "-e cpu-clock/hf-rand=4/ -- true"; do
		"$PREC" stat $args >/dev/null 2>&1; a=$?
		perf stat $args >/dev/null 2>&1 </dev/null; b=$?
		test $a = $b || { echo "$args: prec $a perf $b"; exit 1; }
	done
'
test_expect "an unknown event: perf stat's three lines" '
	"$PREC" stat -e no-such-event -- true 2>ev.err
	test "$(wc -l <ev.err)" = 3 &&
	head -1 ev.err | grep -q "^event syntax error: .no-such-event.$" &&
	sed -n 2p ev.err | grep -q "\\___ " && sed -n 3p ev.err | grep -q "^Run .perf list." ||
		{ cat ev.err; false; }
'
if command -v valgrind >/dev/null; then
	test_expect "a target that cannot be found leaks nothing" '
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
			"$PREC" stat -p 999999999 2>vg.err; rc=$?
		test $rc = 234 || { echo "rc $rc"; cat vg.err; false; }
	'
else
	test_skip "a target that cannot be found leaks nothing" "valgrind is not installed"
fi
test_expect "bad input: one line for an option, perf stat's status 129" '
	"$PREC" stat -I abc -- true 2>err; rc=$?
	test $rc = 129 && test "$(wc -l <err)" = 1
'
test_expect "an hf term on a counted event: one line, status 129, nothing counted" '
	"$PREC" stat -e cpu-clock/hf-rand=4/ -- true 2>err; rc=$?
	test $rc = 129 && test "$(wc -l <err)" = 1 &&
	grep -q "^prec stat: hf-rand= needs a sampling event: .cpu-clock/hf-rand=4/." err
'
test_expect "a command that cannot run: perf's status 255 and one line" '
	"$PREC" stat -- /nonexistent/cmd 2>err; rc=$?
	test $rc = 255 && test "$(wc -l <err)" = 1
'

done_testing
