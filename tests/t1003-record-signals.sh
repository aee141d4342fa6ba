#!/bin/bash
# t1003: stopping. SIGINT or SIGTERM in the middle of a recording leaves a complete file; the
# workload's exit status becomes prec's (128 + N for signal N, so a SIGSEGV is 139); a -p
# recording ends when the process does. Nothing here is about the overhead measurement: it is
# turned off ($NONE), and a signal is sent once the recording is seen running (the workload has
# run on a CPU, or the file holds FINISHED_INIT, which prec writes just before it enables the
# events), never after a fixed sleep.
. "$(dirname "$0")/lib.sh"

require root perf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"
NONE=--overhead-source=none
hot3=$(readlink -f "$HOT3")

# complete FILE: perf reads it cleanly and finds hot_a in it
complete() {
	local check=perf_clean

	case $1 in a-*) check="perf_clean_wide $1" ;; esac # system-wide: see perf_clean_wide
	$check perf report -i "$1" --stdio --sort sym >"$1.rep" && grep -q "hot_a" "$1.rep" &&
		perf report -i "$1" --header-only 2>/dev/null | grep -Eq "^# data size +: [1-9]"
}

# started FILE: wait (10 s at most) until FILE holds FINISHED_INIT: the synthesized records are
# written and the events are being enabled
cat >started.py <<'EOF'
import struct, sys
try:
    b = open(sys.argv[1], "rb").read()
    pos = struct.unpack_from("<Q", b, 40)[0]
except (OSError, struct.error):
    sys.exit(1)
while pos and pos + 8 <= len(b):
    typ, misc, size = struct.unpack_from("<IHH", b, pos)
    if typ == 82:
        sys.exit(0)
    if size < 8:
        break
    pos += size
sys.exit(1)
EOF
started() {
	for _ in $(seq 200); do
		"$PYTHON" started.py "$1" && return 0
		sleep 0.05
	done
	echo "# $1 has no FINISHED_INIT after 10 s"
	return 1
}

# SIGINT to prec alone, with a workload: as perf, the workload gets SIGTERM, prec keeps
# recording until it exits, the file is complete and prec exits with the workload's 143.
"$PREC" record $NONE -e cpu-clock -o int.data -- "$HOT3" -c 30 >/dev/null 2>int.err &
p=$!
ran $p "$hot3" 30
start=$(date +%s)
kill -INT $p
wait $p
int_rc=$?
end=$(date +%s)
test_expect "SIGINT: prec stops the workload and exits with its status (143)" '
	test $int_rc = 143 && test $((end - start)) -lt 10 && ! pgrep -f "$HOT3 -c 30" >/dev/null
'
test_expect "SIGINT: the file is complete and perf reads it cleanly" 'complete int.data'
test_expect "SIGINT: the summary is printed" 'grep -q "Captured and wrote" int.err'

# SIGTERM and SIGINT without a command (-a): the recording stops, 128 + N as perf exits.
for sig in INT TERM; do
	"$PREC" record -q $NONE -e cpu-clock -a -o a-$sig.data >/dev/null 2>a-$sig.err &
	p=$!
	started a-$sig.data
	"$HOT3" -c 0.5
	kill -$sig $p
	wait $p
	echo $? >a-$sig.rc
done
test_expect "-a, SIGINT: exit 130, complete file" '
	test "$(cat a-INT.rc)" = 130 && no_stderr a-INT.err && complete a-INT.data
'
test_expect "-a, SIGTERM: exit 143, complete file" '
	test "$(cat a-TERM.rc)" = 143 && no_stderr a-TERM.err && complete a-TERM.data
'

# A workload that crashes: prec says so by its exit status, and the file is complete.
"$PREC" record -q $NONE -e cpu-clock -o segv.data -- sh -c "\"$HOT3\" 0.5; kill -SEGV \$\$" \
	>/dev/null 2>segv.err
segv_rc=$?
test_expect "a workload killed by SIGSEGV: prec exits 139" 'test $segv_rc = 139'
test_expect "a workload killed by SIGSEGV: the file is complete" 'complete segv.data'

"$PREC" record -q $NONE -e cpu-clock -o three.data -- sh -c "\"$HOT3\" 0.2; exit 3" 2>/dev/null
three_rc=$?
test_expect "the workload's exit status becomes prec's (3)" 'test $three_rc = 3'

# -p: the recording ends when the process exits, and the file is complete.
"$HOT3" -c 1 &
hp=$!
# -p wants hot3 itself, not the shell about to exec it
for _ in $(seq 250); do
	[ "$(readlink /proc/$hp/exe 2>/dev/null)" = "$hot3" ] && break
	sleep 0.02
done
"$PREC" record -q $NONE -e cpu-clock -o pid.data -p $hp >/dev/null 2>pid.err
pid_rc=$?
# gone: the process has exited (a zombie until this shell reaps it counts as exited)
gone() {
	local state
	state=$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ]
}
test_expect "-p: prec ends with the process (exit 0) and the file is complete" '
	test $pid_rc = 0 && gone $hp && no_stderr pid.err && complete pid.data
'
wait $hp 2>/dev/null

done_testing
