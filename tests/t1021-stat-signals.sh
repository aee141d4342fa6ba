#!/bin/bash
# t1021: prec stat and the signals of its life: -I after prec was stopped and continued (one
# longer interval, as perf prints, not a burst of intervals microseconds apart; its rate divides
# by the time it lasted), and SIGTERM while a command runs (passed on to the command, the counts
# printed, SIGTERM's status 143).
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "the hot3 workload is not built"

# opened PID N: wait (30 s at most) until process PID holds N perf event fds: counting started
opened() {
	for _ in $(seq 300); do
		n=$(find /proc/"$1"/fd -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l)
		[ "$n" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# -I 100 on a one-thread busy workload; prec itself stopped for half a second meanwhile.
"$PREC" stat -I 100 -e task-clock -- "$HOT3" -c 2 >/dev/null 2>stall.out &
pid=$!
# stopped once it has printed an interval: its loop runs
for _ in $(seq 300); do
	[ "$(grep -c task-clock stall.out)" -ge 1 ] && break
	sleep 0.1
done
kill -STOP $pid
sleep 0.5
kill -CONT $pid
wait $pid
rc_stall=$?
# the interval lines (counted or not): timestamp, CPUs utilized (- when there is none)
awk '!/^#/ && /task-clock/ {
	u = "-"; for (i = 1; i < NF; i++) if ($(i + 1) == "CPUs") u = $i; print $1, u
}' stall.out >stall.lines
test_expect "-I 100 stopped 0.5 s: the stop shows as one interval of 0.4 s or more" '
	test $rc_stall = 0 &&
	awk "NR > 1 && \$1 - t >= 0.4 { found = 1 } { t = \$1 } END { exit !found }" stall.lines ||
		{ echo "rc $rc_stall"; cat stall.out; false; }
'
test_expect "-I 100 stopped 0.5 s: no two intervals closer than half a step (but the last)" '
	n=$(wc -l <stall.lines) &&
	awk -v n="$n" "NR > 1 && NR < n && \$1 - t < 0.05 { bad = 1; print t, \$1 }
		{ t = \$1 } END { exit bad }" stall.lines || { cat stall.out; false; }
'
test_expect "-I 100 stopped 0.5 s: CPUs utilized divides by the interval's real length" '
	awk "\$2 != \"-\" && \$2 > 1.5 { bad = 1; print } END { exit bad }" stall.lines ||
		{ cat stall.out; false; }
'

# SIGTERM while a command runs: the command gets it, the counts follow, status 143.
"$PREC" stat -e task-clock -- sleep 10 2>term.out &
pid=$!
opened $pid 1
for _ in $(seq 300); do
	child=$(pgrep -P $pid)
	# the child has exec'd the command once it is no longer prec
	[ -n "$child" ] && [ "$(readlink /proc/"$child"/exe)" != "$(readlink /proc/$pid/exe)" ] &&
		break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc_term=$?
test_expect "SIGTERM with a command: the command ends by it, the counts, then status 143" '
	test $rc_term = 143 && ! kill -0 "$child" 2>/dev/null &&
	grep -q "^sleep: Terminated" term.out &&
	grep -q "Performance counter stats for .sleep 10.:" term.out &&
	grep -Eq "^ +[0-9.]+ msec task-clock" term.out ||
		{ echo "rc $rc_term"; cat term.out; false; }
'

# SIGTERM without a command: the counts, then status 143.
"$PREC" stat -e cpu-clock 2>term-wide.out &
pid=$!
opened $pid "$(getconf _NPROCESSORS_ONLN)"
kill -TERM $pid
wait $pid
rc_wide=$?
test_expect "SIGTERM without a command: 'system wide' counts printed, status 143" '
	test $rc_wide = 143 && grep -q "stats for .system wide.:" term-wide.out &&
	grep -Eq "^ +[0-9.]+ msec cpu-clock" term-wide.out ||
		{ echo "rc $rc_wide"; cat term-wide.out; false; }
'

done_testing
