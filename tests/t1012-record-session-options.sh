#!/bin/bash
# t1012: perf record's session options (how a recording runs, not what it samples), each judged
# by perf 6.1: on prec's file, and beside perf's own file made with the same options where perf
# can make one here. And the summary lines in perf's own words (--summary=perf, PREC_SUMMARY).
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"
NONE=--overhead-source=none

# attr_field FILE FIELD: the value of FIELD in the first attr perf evlist -v prints for FILE
attr_field() {
	perf evlist -v -i "$1" 2>/dev/null | head -1 | tr ',' '\n' |
		sed -n "s/^ *$2: //p"
}

# --dry-run: the options and events are parsed, nothing runs, nothing is written.
test_expect "--dry-run exits 0 and writes nothing" '
	"$PREC" record --dry-run -o dry.data -e cpu-clock -- "$HOT3" -c 5 >dry.out 2>dry.err &&
	! test -e dry.data && no_stderr dry.err
'
test_expect "--dry-run still checks the events" '
	! "$PREC" record --dry-run -o dry.data -e no-such-event -- true 2>dry2.err &&
	! test -e dry.data && test -s dry2.err
'

# --per-thread: cpu -1 rings and no inheritance, as in perf's own file; perf reads it.
"$PREC" record -q $NONE --per-thread -e cpu-clock -o pt.data -- "$HOT3" -c 0.2 2>pt.err
pt_rc=$?
perf record -q --per-thread -e cpu-clock -o pt-perf.data -- "$HOT3" -c 0.1 2>/dev/null
test_expect "--per-thread records (exit 0, silent with -q)" '
	test $pt_rc = 0 && no_stderr pt.err
'
test_expect "--per-thread: CPU_MAP is -1 and the events are not inherited, as perf's" '
	perf report -D -i pt.data 2>/dev/null | grep -q "PERF_RECORD_CPU_MAP: -1$" &&
	test -z "$(attr_field pt.data inherit)" && test -z "$(attr_field pt-perf.data inherit)"
'
test_expect "--per-thread: perf report reads it cleanly and finds hot3's functions" '
	perf_clean perf report -i pt.data --stdio >pt.report && grep -q "hot_a" pt.report
'
# --per-thread on several threads: one event and one ring per thread, as perf's own test runs it
# (perf record -p PID --per-thread on perf test -w thloop); the sleep only says how long, and
# thloop runs long enough for three recordings on a busy machine (it is killed after them).
perf test -w thloop 60 >/dev/null 2>&1 &
TL=$!
at_exit "kill $TL"
for _ in $(seq 250); do
	[ "$(ls /proc/$TL/task 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.02
done
TIDS=$(ls /proc/$TL/task | sort -n | tr '\n' ' ')
"$PREC" record -q $NONE --per-thread -e cpu-clock -c 250000 -p $TL -o ptp.data -- sleep 0.3 \
	2>ptp.err
"$PREC" record -q $NONE --per-thread -e cpu-clock -c 250000 -t "$(echo $TIDS | tr ' ' ,)" \
	-o ptt.data -- sleep 0.3 2>ptt.err
# last: the process does not outlive perf's recording
perf record -q --per-thread -e cpu-clock -c 250000 -p $TL -o ptp-perf.data -- sleep 0.3 \
	>/dev/null 2>&1
maps() {
	perf report -D -i "$1" 2>/dev/null | grep -E "^(0 )?0x.*PERF_RECORD_(THREAD|CPU)_MAP" |
		sed -E "s/^(0 )?0x[0-9a-f]* \[0x[0-9a-f]*\]: //"
}
test_expect "--per-thread -p of a threaded process: perf's THREAD_MAP and CPU_MAP -1" '
	no_stderr ptp.err && maps ptp-perf.data >ptp-perf.maps && test -s ptp-perf.maps &&
	maps ptp.data | diff -u ptp-perf.maps - && grep -q "CPU_MAP: -1$" ptp-perf.maps
'
test_expect "--per-thread -p: samples of every thread, read cleanly by perf" '
	test "$(perf script -i ptp.data -F tid 2>/dev/null | tr -d " " | sort -un | tr "\n" " ")" \
		= "$TIDS" && perf_clean perf report -i ptp.data --stdio >ptp.report
'
test_expect "--per-thread -t TID,TID: both threads, one ring each" '
	no_stderr ptt.err &&
	test "$(perf script -i ptt.data -F tid 2>/dev/null | tr -d " " | sort -un | tr "\n" " ")" \
		= "$TIDS"
'
kill $TL 2>/dev/null

# --synth: what is synthesized of a process that existed before (-p).
sleep 30 &
SLEEPER=$!
at_exit "kill $SLEEPER"
synth_records() {
	perf report -D -i "$1" 2>/dev/null | grep -E "^0 .*PERF_RECORD_(COMM|MMAP2)" |
		grep -E "$SLEEPER/$SLEEPER" | grep -oE "PERF_RECORD_(COMM|MMAP2)" | sort -u |
		tr '\n' ' '
}
for s in all task no; do
	"$PREC" record -q $NONE --synth=$s -e cpu-clock -p $SLEEPER -o synth-$s.data -- sleep 0.1
	perf record -q --synth=$s -e cpu-clock -p $SLEEPER -o synth-perf-$s.data -- sleep 0.1 \
		2>/dev/null
done
test_expect "--synth=all, task, no: the COMM and MMAP2 of an existing process as perf's" '
	for s in all task no; do
		echo "$s: prec [$(synth_records synth-$s.data)]" \
			"perf [$(synth_records synth-perf-$s.data)]"
	done >synth.cmp
	cat synth.cmp
	grep -q "^all: prec \[PERF_RECORD_COMM PERF_RECORD_MMAP2 \]" synth.cmp &&
	grep -q "^task: prec \[PERF_RECORD_COMM \]" synth.cmp &&
	grep -q "^no: prec \[\]" synth.cmp &&
	awk -F"prec " "{ split(\$2, a, \" perf \"); if (a[1] != a[2]) exit 1 }" synth.cmp
'
test_expect "--synth=bogus is a usage error" '
	"$PREC" record --synth=bogus -- true 2>synthb.err
	test $? = 2 && test "$(wc -l <synthb.err)" = 1
'

# --threads: perf's specs are accepted (one file, as without it), bad ones refused.
test_expect "--threads with perf's specs records one file" '
	i=0
	for spec in "" =cpu =core =package =numa =0/0:1/1; do
		i=$((i + 1))
		"$PREC" record -q $NONE --threads$spec -e cpu-clock -o thr$i.data -- true || exit 1
	done
	perf_clean perf report -i thr$i.data --stdio >/dev/null
'
test_expect "--threads=foo is refused in one line, as perf refuses it" '
	! "$PREC" record -q --threads=foo -o thrbad.data -- true 2>thr.err &&
	! perf record -q --threads=foo -o thrbad.data -- true 2>/dev/null &&
	test "$(wc -l <thr.err)" = 1 && ! test -e thrbad.data
'

# --no-bpf-event: the attr says so, as perf's.
"$PREC" record -q $NONE --no-bpf-event -e cpu-clock -o nobpf.data -- true
perf record -q --no-bpf-event -e cpu-clock -o nobpf-perf.data -- true 2>/dev/null
test_expect "--no-bpf-event: no bpf_event in the attr, as perf's (and it is there without)" '
	test -z "$(attr_field nobpf.data bpf_event)" &&
	test -z "$(attr_field nobpf-perf.data bpf_event)" &&
	test "$(attr_field pt.data bpf_event)" = 1
'

# -s: per-thread counts that perf report -T shows, as for perf's own file.
"$PREC" record -q $NONE -s -e cpu-clock -o stat.data -- sh -c "$HOT3 -c 0.1; $HOT3 -c 0.1"
perf record -q -s -e cpu-clock -o stat-perf.data -- sh -c "$HOT3 -c 0.1; $HOT3 -c 0.1" \
	2>/dev/null
test_expect "-s: inherit_stat and perf's read_format" '
	test "$(attr_field stat.data inherit_stat)" = 1 &&
	test "$(attr_field stat.data read_format)" = "$(attr_field stat-perf.data read_format)"
'
test_expect "-s: perf report -T lists a count for each child, as on perf's file" '
	perf report -T -i stat.data --stdio 2>/dev/null | sed -n "/PID *TID/,\$p" >stat.T &&
	perf report -T -i stat-perf.data --stdio 2>/dev/null | sed -n "/PID *TID/,\$p" >statp.T &&
	cat stat.T && test "$(grep -cE "^ +[0-9]+ +[0-9]+ +[1-9][0-9]*$" stat.T)" -ge 2 &&
	test "$(grep -cE "^ +[0-9]+ +[0-9]+ +[1-9]" stat.T)" = \
	     "$(grep -cE "^ +[0-9]+ +[0-9]+ +[1-9]" statp.T)"
'

# -D: the events start disabled, with perf's words; the workload's maps are known anyway.
"$PREC" record $NONE -D 100 -e cpu-clock -o delay.data -- "$HOT3" -c 0.3 2>delay.err
test_expect "-D 100: \"Events disabled\" then \"Events enabled\", as perf says" '
	grep -x "Events disabled" delay.err && grep -x "Events enabled" delay.err &&
	test "$(grep -n Events delay.err | cut -d: -f1 | tr "\n" " ")" = "1 2 "
'
test_expect "-D 100: samples after the delay resolve to hot3's functions" '
	perf_clean perf report -i delay.data --stdio >delay.report && grep -q "hot_a" delay.report
'
test_expect "-D -1 without --control records no sample; -D -2 is a usage error" '
	"$PREC" record -q $NONE -D -1 -e cpu-clock -o delay1.data -- "$HOT3" -c 0.1 &&
	test -z "$(perf script -i delay1.data 2>/dev/null)" &&
	{ "$PREC" record -D -2 -- true 2>/dev/null; test $? = 2; }
'

# --control: the commands and their acknowledgements, through fifos.
mkfifo ctl.fifo ack.fifo
"$PREC" record $NONE -D -1 --control fifo:ctl.fifo,ack.fifo -e cpu-clock -o ctl.data -- \
	"$HOT3" 60 >ctl.out 2>ctl.err &
CTL_PID=$!
at_exit "kill $CTL_PID"
exec 7<>ctl.fifo 8<>ack.fifo
acks=
for cmd in enable disable ping evlist bogus enable stop; do
	echo "$cmd" >&7
	a=none
	wait_s=10
	# An unknown command gets no answer: a second without one says so.
	[ "$cmd" = bogus ] && wait_s=1
	IFS= read -r -d "" -t $wait_s a <&8 || a=none
	acks="$acks$cmd=$(printf %s "$a" | tr -d "\n") "
done
wait $CTL_PID
ctl_rc=$?
exec 7>&- 8>&-
test_expect "--control: each command acked with perf's \"ack\\n\\0\", an unknown one not" '
	echo "$acks"
	test "$acks" = "enable=ack disable=ack ping=ack evlist=ack bogus=none enable=ack stop=ack "
'
test_expect "--control: stop ends the recording as SIGTERM does (exit 143, a whole file)" '
	test $ctl_rc = 143 && perf_clean perf report -i ctl.data --stdio >ctl.report &&
	grep -q "hot_a" ctl.report
'
test_expect "--control with no such descriptor or fifo is a usage error" '
	"$PREC" record --control fd:99 -o badctl.data -- true 2>badctl.err; rc1=$?
	"$PREC" record --control fifo:no-such-fifo -o badctl.data -- true 2>>badctl.err; rc2=$?
	test $rc1 = 2 && test $rc2 = 2 && test "$(wc -l <badctl.err)" = 2 && ! test -e badctl.data
'
test_expect "--control: enable and disable say so, evlist names the event" '
	test "$(grep -c "^Events enabled$" ctl.err)" = 2 && grep -q "^Events disabled$" ctl.err &&
	grep -qx cpu-clock ctl.err
'

# --switch-output=signal: SIGUSR2 from the workload (prec is its parent) rotates the file. The
# workload waits for each rotated file before it signals again: two signals sent before the
# recorder runs are one, for the kernel (on a busy machine).
"$PREC" record $NONE -e cpu-clock -o sw.data --switch-output --summary=perf -- \
	sh -c "rotated() { i=0; while [ \$(ls sw.data.* 2>/dev/null | wc -l) -lt \$1 ] &&
		[ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done; }
		$HOT3 -c 0.1; kill -USR2 \$PPID; rotated 1
		$HOT3 -c 0.1; kill -USR2 \$PPID; rotated 2; $HOT3 -c 0.1" 2>sw.err
test_expect "--switch-output: three files, each named with perf's timestamp" '
	cat sw.err; test "$(ls sw.data.* | grep -cE "^sw\.data\.[0-9]{16}$")" = 3 &&
	! test -e sw.data &&
	test "$(grep -c "^\[ perf record: Dump sw\.data\.[0-9]\{16\} \]$" sw.err)" = 3
'
test_expect "--switch-output: perf's lines for each rotation and at the end" '
	test "$(grep -c "^\[ perf record: dump data: Woken up [0-9]* times \]$" sw.err)" = 2 &&
	grep -q "^\[ perf record: Captured and wrote [0-9.]* MB sw\.data\.<timestamp> \]$" sw.err
'
test_expect "--switch-output: perf reads every file cleanly, each with samples" '
	for f in sw.data.*; do
		perf_clean perf report -i $f --stdio >$f.report || exit 1
		grep -q "hot_" $f.report || exit 1
	done
'
test_expect "--switch-max-files=2 keeps the two newest files" '
	"$PREC" record -q $NONE -e cpu-clock -o swm.data --switch-output --switch-max-files=2 -- \
		sh -c "$HOT3 -c 0.05; kill -USR2 \$PPID; $HOT3 -c 0.05; kill -USR2 \$PPID; true" &&
	test "$(ls swm.data.* | wc -l)" = 2
'
test_expect "--switch-output into a pipe is a usage error" '
	"$PREC" record -q --switch-output -o - -- true >swp.data 2>swp.err
	test $? = 2 && test "$(wc -l <swp.err)" = 1 && ! test -s swp.data
'
test_expect "--timestamp-filename renames the output" '
	"$PREC" record $NONE -e cpu-clock -o ts.data --timestamp-filename -- true 2>ts.err &&
	ls ts.data.* | grep -qE "^ts\.data\.[0-9]{16}$" && ! test -e ts.data &&
	grep -q "^\[ prec record: Dump ts\.data\.[0-9]*" ts.err
'

# --max-size: perf's line when the limit is reached.
test_expect "--max-size stops the session with perf's line" '
	"$PREC" record $NONE --summary=perf -e cpu-clock -F 10000 --max-size=4K -o max.data -- \
		"$HOT3" -c 5 2>max.err
	grep -q "^\[ perf record: perf size limit reached ([0-9]* KB), stopping session \]$" \
		max.err && perf_clean perf report -i max.data --stdio >/dev/null
'

# Options prec accepts for perf compatibility, and those refused with perf's reason.
test_expect "-r, --no-buffering, --mmap-flush, --aio, --affinity, --proc-map-timeout ... record" '
	"$PREC" record -q $NONE -r 1 --no-buffering --mmap-flush=4K --aio --affinity=cpu \
		--proc-map-timeout=500 --num-thread-synthesize=2 --timestamp-boundary \
		--debuginfod --clang-path=/x --clang-opt=-O2 -e cpu-clock -o acc.data -- true &&
	perf evlist -v -i acc.data | grep -q "{ wakeup_events, wakeup_watermark }: 1"
'
for refused in "-S:No AUX area tracing to snapshot" "--aux-sample:No AUX area event to sample" \
	"--vmlinux=/no/such:Invalid file: /no/such"; do
	opt=${refused%%:*}
	why=${refused#*:}
	test_expect "$opt is refused in one line ($why)" '
		"$PREC" record -q '"$opt"' -o refused.data -- true 2>refused.err; rc=$?
		test $rc != 0 && test "$(wc -l <refused.err)" = 1 &&
		grep -q -- "'"$why"'" refused.err && ! test -e refused.data
	'
done

# The summary in perf's words, with perf's figures: the data section's end, and perf's count of
# the samples (perf report --stats on the same file).
data_mb() {
	"$PYTHON" -c 'import struct, sys
h = open(sys.argv[1], "rb").read(56)
off, size = struct.unpack("<2Q", h[40:56])
print("%.3f" % ((off + size) / 1048576.0))' "$1"
}
"$PREC" record $NONE --summary=perf -e cpu-clock -o sum.data -- "$HOT3" -c 0.2 2>sum.err
PREC_SUMMARY=perf "$PREC" record -e cpu-clock -o sumenv.data -- "$HOT3" -c 0.2 2>sumenv.err
"$PREC" record $NONE --summary=perf -B -e cpu-clock -o sumb.data -- true 2>sumb.err
test_expect "--summary=perf: perf's two lines, its size and sample count" '
	cat sum.err
	n=$(perf report --stats -i sum.data 2>/dev/null |
		sed -n "s/^ *SAMPLE events: *\([0-9]*\).*/\1/p" | head -1)
	mb=$(data_mb sum.data)
	grep -qx "\[ perf record: Woken up [0-9]* times to write data \]" sum.err &&
	grep -qx "\[ perf record: Captured and wrote $mb MB sum.data ($n samples) \]" sum.err &&
	! grep -q "prec record" sum.err
'
test_expect "PREC_SUMMARY=perf does the same" '
	n=$(perf report --stats -i sumenv.data 2>/dev/null |
		sed -n "s/^ *SAMPLE events: *\([0-9]*\).*/\1/p" | head -1)
	mb=$(data_mb sumenv.data)
	grep -qx "\[ perf record: Captured and wrote $mb MB sumenv.data ($n samples) \]" sumenv.err
'
test_expect "--summary=perf -B: no sample count, as perf without build-ids" '
	grep -qx "\[ perf record: Captured and wrote [0-9.]* MB sumb.data \]" sumb.err
'
test_expect "without it, prec's own name" '
	"$PREC" record $NONE -e cpu-clock -o own.data -- true 2>own.err &&
	grep -q "^\[ prec record: Captured and wrote" own.err && ! grep -q "perf record" own.err
'

done_testing
