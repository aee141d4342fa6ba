#!/bin/bash
# t1015: perf record's target and output options that need more than an attr: -u, -G,
# --per-thread on several threads, --overwrite, --tail-synthesize, --switch-output-event and
# --kcore. Each is recorded by perf and by prec on the same target and judged by perf 6.1:
# perf evlist -v prints the same attrs, perf script finds the same tasks.
. "$(dirname "$0")/lib.sh"

require root perf

NONE=--overhead-source=none
# A fixed period: prec asks for cpu-clock's frequency as the period the kernel makes of it.
EV="-e cpu-clock -c 250000"

# spin [USER]: a busy loop in the background (as USER), its pid in $SPIN, killed at the end
spin() {
	if [ -n "${1:-}" ]; then
		setpriv --reuid="$1" --regid="$1" --clear-groups sh -c 'while :; do :; done' &
	else
		sh -c 'while :; do :; done' &
	fi
	SPIN=$!
	at_exit "kill $SPIN"
}

# evlist FILE: perf evlist -v without the id bits of sample_type: prec puts IDENTIFIER where
# perf's own multi-event files have ID (perf-data-compat.md pitfall 4)
evlist() {
	perf evlist -v -i "$1" 2>/dev/null | sed -E 's/\|(IDENTIFIER|ID)([|,])/\2/'
}

# pids FILE: the pids perf script finds in FILE's samples, sorted
pids() {
	perf script -i "$1" -F pid 2>/dev/null | tr -d ' ' | sort -u | tr '\n' ' '
}

# -u: every process of the user, existing ones as per-thread events on every CPU (perf's uid
# target); the workload only says how long.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	spin "$(id -u nobody)"
	NOBODY=$SPIN
	perf record -q $EV -u nobody -o u-perf.data -- sleep 0.3 >/dev/null 2>&1
	"$PREC" record -q $NONE $EV -u nobody -o u.data -- sleep 0.3 2>u.err
	test_expect "-u nobody: perf's attrs, and samples of the user's process only" '
		no_stderr u.err &&
		diff -u <(perf evlist -v -i u-perf.data) <(perf evlist -v -i u.data) &&
		test "$(pids u.data)" = "$NOBODY "
	'
	test_expect "-u: the thread map lists the user's threads, as perf's" '
		perf report -D -i u.data 2>/dev/null | grep -q "THREAD_MAP nr: 1 thread: $NOBODY$" &&
		perf_clean perf report -i u.data --stdio >u.report
	'
	test_expect "-u 65534 (a number) is the same user" '
		"$PREC" record -q $NONE $EV -u 65534 -o u2.data -- sleep 0.1 &&
		test "$(pids u2.data)" = "$NOBODY "
	'
	kill $NOBODY
else
	test_skip "-u" "setpriv or the user nobody is missing"
fi
test_expect "-u: a user that does not exist is one line, as perf's" '
	! "$PREC" record -q $NONE -u no-such-user -o ux.data -- true 2>ux.err &&
	test "$(cat ux.err)" = "prec: Invalid User: no-such-user" &&
	! "$PREC" record -q $NONE -u 99999 -o ux.data -- true 2>ux2.err &&
	grep -q "Problems obtaining information for user 99999" ux2.err &&
	test "$(wc -l <ux2.err)" = 1 && ! test -e ux.data
'

# -G: the events count only in the cgroup (the cgroup's fd as the pid); dummy:HG tracks.
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$CGROOT" ] && ! grep -qw perf_event /proc/self/mounts && mkdir "$CGROOT/prec-t1015-$$"; then
	CG=prec-t1015-$$
	at_exit "rmdir $CGROOT/$CG"
	sh -c 'echo $$ >'"$CGROOT/$CG"'/cgroup.procs; exec sh -c "while :; do :; done"' &
	IN=$!
	at_exit "kill $IN"
	spin
	OUT=$SPIN
	perf record -q -a $EV -G $CG -o g-perf.data -- sleep 0.3 >/dev/null 2>&1
	"$PREC" record -q -a $NONE $EV -G $CG -o g.data -- sleep 0.3 2>g.err
	test_expect "-G: perf's attrs (the event, then dummy:HG)" '
		no_stderr g.err &&
		diff -u <(evlist g-perf.data) <(evlist g.data)
	'
	test_expect "-G: samples of the cgroup's task only, as perf's" '
		test "$(pids g.data)" = "$IN " && test "$(pids g-perf.data)" = "$IN " &&
		perf_clean_wide g.data perf report -i g.data --stdio >g.report
	'
	# perf gives the n-th name of the -G options to the n-th event; an empty name skips one
	"$PREC" record -q -a $NONE -e cpu-clock -c 250000 -e task-clock -c 250000 -G ,$CG \
		-o g2.data -- sleep 0.3 2>g2.err
	test_expect "-G ,CG: the second event only is in the cgroup" '
		no_stderr g2.err &&
		perf script -i g2.data -F pid,event 2>/dev/null | grep -q "$OUT *cpu-clock" &&
		! perf script -i g2.data -F pid,event 2>/dev/null | grep -q "$OUT *task-clock" &&
		perf script -i g2.data -F pid,event 2>/dev/null | grep -q "$IN *task-clock"
	'
	kill $IN $OUT
else
	test_skip "-G" "no cgroup2 mount to make a cgroup in (or a perf_event v1 one)"
fi
test_expect "-G without -a, with a missing cgroup: perf's reasons in one line" '
	! "$PREC" record -q $NONE -e cpu-clock -G / -o gx.data -- true 2>gx1.err &&
	grep -q "cgroup monitoring only available in system-wide mode" gx1.err &&
	! "$PREC" record -q $NONE -a -e cpu-clock -G no-such-cgroup -o gx.data -- true 2>gx2.err &&
	grep -q "no access to cgroup .*no-such-cgroup" gx2.err &&
	test "$(cat gx1.err gx2.err | wc -l)" = 2 && ! test -e gx.data
'

HOT3=$PREC_BUILD/tests/workloads/hot3
if [ -x "$HOT3" ]; then
	# --overwrite: backward rings the kernel overwrites, read once at the end. A one-page ring
	# per CPU keeps only the newest samples (128 at most) of the 1200 or so the run takes, and
	# loses nothing.
	"$PREC" record -q $NONE --overwrite -m 1 $EV -o ow.data -- "$HOT3" -c 0.3 2>ow.err
	perf record -q --overwrite -m 1 $EV -o ow-perf.data -- "$HOT3" -c 0.3 >/dev/null 2>&1
	test_expect "--overwrite: perf's attrs (write_backward)" '
		no_stderr ow.err && perf evlist -v -i ow.data | grep -q "write_backward: 1" &&
		diff -u <(evlist ow-perf.data) <(evlist ow.data)
	'
	test_expect "--overwrite: the newest samples that fit the ring, none lost, read cleanly" '
		n=$(perf script -i ow.data -F ip 2>/dev/null | wc -l) &&
		{ test "$n" -gt 10 && test "$n" -le $((128 * $(nproc))) || fail "$n samples"; } &&
		{ ! has_lost ow.data || fail "$(perf report -i ow.data --stats | grep LOST)"; } &&
		perf_clean perf report -i ow.data --stdio >ow.report
	'
	# --tail-synthesize: FINISHED_INIT at the start, what existed (the kernel map, THREAD_MAP,
	# CPU_MAP) after the samples, as in perf's own file
	"$PREC" record -q $NONE --tail-synthesize $EV -o ts.data -- "$HOT3" -c 0.2 2>ts.err
	perf record -q --tail-synthesize $EV -o ts-perf.data -- "$HOT3" -c 0.2 >/dev/null 2>&1
	# order FILE: the record types in file order (perf report -D prints them in time order),
	# each run of samples as one SAMPLE
	order() {
		perf report -D -i "$1" 2>/dev/null |
			grep -oE "0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_[A-Z_0-9]+" |
			while read -r off _ type; do printf "%d %s\n" "$off" "${type#PERF_RECORD_}"; done |
			sort -un | cut -d" " -f2 |
			grep -E "^(SAMPLE|FINISHED_INIT|THREAD_MAP|CPU_MAP|MMAP)$" | uniq | tr '\n' ' '
	}
	test_expect "--tail-synthesize: the maps come after the samples, as perf's" '
		no_stderr ts.err &&
		case "$(order ts.data)" in "FINISHED_INIT SAMPLE "*"MMAP THREAD_MAP CPU_MAP ") ;;
			*) fail "$(order ts.data)" ;; esac &&
		case "$(order ts-perf.data)" in *"SAMPLE "*"MMAP THREAD_MAP CPU_MAP ") ;;
			*) fail "perf: $(order ts-perf.data)" ;; esac &&
		perf_clean perf report -i ts.data --stdio >ts.report && grep -q hot_a ts.report
	'
else
	test_skip "--overwrite, --tail-synthesize" "build tests/workloads/hot3 first"
fi

# --switch-output-event: each exec (the workload's sh, sleep, true, sleep, true, sleep at least;
# the event watches every CPU, as perf's side-band list does for a command) starts a new file.
# The execs come in three pairs 0.1 s apart (sh and its first child, each true and the sleep
# after it): on a busy machine one rotation may take a pair, so the test asks for a rotation
# per pair, and the last file: four of the seven.
mkdir so
"$PREC" record -q $NONE $EV --switch-output-event sched:sched_process_exec -o so/so.data \
	-- sh -c "sleep 0.1; /bin/true; sleep 0.1; /bin/true; sleep 0.1" 2>so.err
test_expect "--switch-output-event: a rotation each time the event fires" '
	no_stderr so.err && ! test -e so/so.data && test "$(ls so | wc -l)" -ge 4 &&
	for f in so/so.data.*; do perf_clean perf script -i "$f" >/dev/null || exit 1; done
'
test_expect "--switch-output-event: a bad event is one line" '
	! "$PREC" record -q $NONE --switch-output-event no-such-event -o sx.data -- true \
		2>sx.err && test "$(wc -l <sx.err)" = 1 && grep -q no-such-event sx.err &&
		! test -e sx.data
'

# --kcore: perf's reason where the kernel has no /proc/kcore (as here), in one line
if [ -r /proc/kcore ]; then
	test_skip "--kcore without /proc/kcore" "this kernel has /proc/kcore"
else
	test_expect "--kcore without /proc/kcore: perf's reason, nothing written" '
		perf record --kcore -e cpu-clock -o kc-perf.data -- true >/dev/null 2>kc-perf.err
		grep -q "kcore is not readable" kc-perf.err &&
		! "$PREC" record -q $NONE --kcore -o kc.data -- true 2>kc.err &&
		test "$(cat kc.err)" = "prec: kcore is not readable." && ! test -e kc.data
	'
fi

done_testing
