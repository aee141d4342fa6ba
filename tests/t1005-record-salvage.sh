#!/bin/bash
# t1005: a recorder killed with SIGKILL leaves a file that prec report reads: the header is
# written when the recording begins and the data goes to the file as it is drained, so only the
# last moments are lost; prec report says that it recovered the file. The overhead measurement
# is turned off (not what this is about), and the kill comes once the workload has run and the
# file has grown, not after a fixed time.
. "$(dirname "$0")/lib.sh"

require root

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"

hot3=$(readlink -f "$HOT3")

# grown FILE FROM BYTES: wait (30 s at most: a busy machine may leave hot3 little CPU) until
# FILE is BYTES larger than FROM
grown() {
	for _ in $(seq 1500); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge $(($2 + $3)) ] && return 0
		sleep 0.02
	done
	echo "# $1 did not grow by $3 bytes from $2 in 30 s"
	return 1
}

# killed NAME GROW ARGS...: record hot3 into NAME.data with ARGS, and once hot3 has run 0.3 s
# and the file has grown by GROW bytes (its samples), kill prec with SIGKILL. hot3 runs for CPU
# time: on a busy machine 20 s of wall time could end before it got that far, and prec with it.
killed() {
	local name=$1 grow=$2 p workload
	shift 2
	"$PREC" record -q --overhead-source=none "$@" -o "$name.data" -- "$HOT3" -c 20 \
		>/dev/null 2>"$name.rec.err" &
	p=$!
	disown $p
	ran $p "$hot3" 30
	grown "$name.data" "$(stat -c %s "$name.data" 2>/dev/null || echo 0)" "$grow"
	workload=$(pgrep -P $p)
	kill -KILL $p
	for _ in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	[ -n "$workload" ] && kill $workload 2>/dev/null
}

# check NAME: prec report reads NAME.data, says it recovered it, and finds the samples
check() {
	local name=$1
	test_expect "$name: the killed recorder left a file with data in it" '
		test -s '"$name"'.data && test "$(stat -c %s '"$name"'.data)" -gt 4096
	'
	"$PREC" report -i "$name.data" >"$name.rep" 2>"$name.rep.err"
	rep_rc=$?
	test_expect "$name: prec report reads it (exit 0) and says it recovered an unfinished file" '
		cat '"$name"'.rep.err
		test $rep_rc = 0 && grep -Eqi "recover|not finished" '"$name"'.rep.err
	'
	test_expect "$name: the samples before the kill are there, and the profile" '
		"$PREC" report -i '"$name"'.data --stats >stats.out 2>/dev/null
		n=$(awk "/^ +SAMPLE events:/ { print \$3; exit }" stats.out)
		echo "samples: $n"
		test -n "$n" && test "$n" -gt 100 && grep -q hot_a '"$name"'.rep
	'
}

# Small rings (8 pages): the kernel wakes prec often, so data reaches the file early. Once hot3
# has run 0.3 s (1200 samples at 4000 Hz), 32 KiB more in the file are its samples.
killed killed 32768 -e cpu-clock -m 8
check killed

# Compressed: the file has no HEADER_COMPRESSED (features come at the end), yet its records
# are zstd. -g at 20 kHz so that the compressed file grows quickly enough.
killed killedz 16384 -e cpu-clock -m 8 -z -g -F 20000
check killedz

done_testing
