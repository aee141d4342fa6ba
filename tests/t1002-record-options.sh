#!/bin/bash
# t1002: every option combination, judged by perf 6.1. For each: prec record is silent with -q
# and exits 0; perf report and perf script read the file without a word on stderr (no warning,
# no out-of-order events); and the attrs are what perf record 6.1 writes for the same options
# (perf evlist -v), with PERF_SAMPLE_IDENTIFIER in every attr of a multi-event file. These
# recordings turn the overhead measurement off ($NONE): it calibrates for a second before each
# and adds the prec:overhead attr, which would make every attr differ from perf's by IDENTIFIER.
# One recording keeps the default, to show that perf reads it as cleanly.
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"

NONE=--overhead-source=none
n=0
# rec NAME WHAT CHECK PREC-ARGS...: record into NAME.data, then perf must read it cleanly and
# CHECK (a shell snippet run on NAME.evlist, NAME.script, NAME.data) must hold; WHAT says what
# CHECK checks.
rec() {
	local name=$1 what=$2 check=$3
	shift 3
	n=$((n + 1))
	"$PREC" record -q -o "$name.data" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
	test_expect "$name: prec record $* (exit 0, silent with -q)" '
		test "$(cat '"$name"'.rc)" = 0 && no_stderr '"$name"'.err
	'
	# system-wide recordings: perf_clean_wide (lost records from the tests beside them)
	case " $* " in
	*" -a "*) check_perf="perf_clean_wide $name.data" ;;
	*) check_perf=perf_clean ;;
	esac
	test_expect "$name: perf report and perf script read it without a word on stderr" '
		$check_perf perf report -i '"$name"'.data --stdio >'"$name"'.report &&
		$check_perf perf script -i '"$name"'.data >'"$name"'.script &&
		test -s '"$name"'.script
	'
	perf evlist -v -i "$name.data" >"$name.evlist" 2>/dev/null
	test_expect "$name: $what" "$check"
}

# ident FILE: every attr of a multi-attr file has IDENTIFIER (perf-data-compat.md pitfall 4)
ident() {
	grep -v "^#" "$1" >"$1.attrs"
	test "$(wc -l <"$1.attrs")" -ge 2 &&
		! grep -v "sample_type: [A-Z|]*IDENTIFIER" "$1.attrs"
}

# What perf record 6.1 writes for -e cpu-clock -- COMMAND (perf evlist -v), but for the period:
# the kernel turns cpu-clock's 4000 Hz into a fixed period of 250000 ns, which prec asks for
# directly, without PERIOD in the samples (record/evlist.c, hrtimer_period()).
one_attrs="cpu-clock: type: 1, size: 128, { sample_period, sample_freq }: 250000, "
one_attrs+="sample_type: IP|TID|TIME, read_format: ID|LOST, disabled: 1, inherit: 1, "
one_attrs+="mmap: 1, comm: 1, enable_on_exec: 1, task: 1, sample_id_all: 1, "
one_attrs+="exclude_guest: 1, mmap2: 1, comm_exec: 1, ksymbol: 1, bpf_event: 1"

# perf still gives every sample its period (the attr's), in perf script as in its report.
rec one "the attr is perf record's, with 4000 Hz as the kernel's fixed period" \
	'grep -qxF "$one_attrs" one.evlist &&
	 perf script -i one.data -F period 2>/dev/null | sort | uniq -c >one.periods &&
	 test "$(wc -l <one.periods)" = 1 && grep -q " 250000 *$" one.periods &&
	 grep -q "Event count (approx.): $(($(perf script -i one.data -F ip 2>/dev/null |
		wc -l) * 250000))\$" one.report' \
	$NONE -e cpu-clock -- "$HOT3" -c 0.3
rec period "-P: PERIOD in every sample, as perf record -P" \
	'grep -qxF "${one_attrs/TIME,/TIME|PERIOD,}" period.evlist' \
	$NONE -e cpu-clock -P -- "$HOT3" -c 0.3
rec task-clock "task-clock -F 1000: the fixed period 1000000, no PERIOD" \
	'grep -q "^task-clock: .*sample_freq }: 1000000, sample_type: IP|TID|TIME," \
		task-clock.evlist && ! grep -q "freq: 1" task-clock.evlist' \
	$NONE -e task-clock -F 1000 -- "$HOT3" -c 0.3
# Pipe mode has no facts section to say that a frequency was asked: the frequency stays, and
# the overhead report judges it as one (no short-period finding at 20 kHz).
"$PREC" record -q -e cpu-clock -F 20000 -o - -- $FAVOURED "$HOT3" -c 0.3 >pipe.data 2>pipe.err
test_expect "pipe mode keeps the frequency and PERIOD, and the report takes it for one" '
	no_stderr pipe.err && perf evlist -v -i pipe.data 2>/dev/null |
		grep -q "^cpu-clock: .*sample_freq }: 20000, sample_type: IP|TID|TIME|PERIOD|IDENTIFIER,.*freq: 1" &&
	"$PREC" report --overhead -i pipe.data >pipe.txt && grep -q "sample-cost" pipe.txt &&
	! grep -q "short-period" pipe.txt
'
# The default: the prec:overhead attr beside cpu-clock, whose attr is the one above for two
# events (IDENTIFIER added), and perf reads the file as cleanly (rec checks it).
rec default "prec:overhead beside the event, whose attr is perf's plus IDENTIFIER" \
	'ident default.evlist && grep -qxF "${one_attrs/TIME,/TIME|IDENTIFIER,}" default.evlist &&
	 grep -q "^prec:overhead: type: 2, .*sample_type: [A-Z|]*RAW" default.evlist &&
	 grep -q "prec:overhead: cpu=-1 type=recorder" default.script' \
	-e cpu-clock -- "$HOT3" -c 0.3
rec list "IDENTIFIER in both attrs, side-band on the first only" \
	'ident list.evlist && grep -q "^task-clock:" list.evlist &&
	 ! grep -q "^task-clock:.*mmap: 1" list.evlist' \
	$NONE -e cpu-clock,task-clock -- "$HOT3" -c 0.3
rec repeated "repeated -e: both events, IDENTIFIER in both" \
	'ident repeated.evlist && grep -q "^page-faults:" repeated.evlist' \
	$NONE -e cpu-clock -e page-faults -- "$HOT3" -c 0.3
rec group "GROUP_DESC names the group" \
	'ident group.evlist &&
	 perf report -i group.data --header-only 2>/dev/null |
		grep -q "group: .*cpu-clock,task-clock"' \
	$NONE -e '{cpu-clock,task-clock}' -- "$HOT3" -c 0.3
rec group-s ":S: the leader reads the group (READ, GROUP)" \
	'grep -q "^cpu-clock: .*READ.*read_format: ID|GROUP|LOST" group-s.evlist &&
	 ident group-s.evlist' \
	$NONE -e '{cpu-clock,task-clock}:S' -- "$HOT3" -c 0.3
rec count "-c: a fixed period, no PERIOD, no freq" \
	'grep -q "^cpu-clock: .*sample_freq }: 100000, sample_type: IP|TID|TIME," count.evlist &&
	 ! grep -q "freq: 1" count.evlist' \
	$NONE -e cpu-clock -c 100000 -- "$HOT3" -c 0.3
rec freq "-F 1000 on page-faults: sample_freq 1000, PERIOD in every sample" \
	'grep -q "sample_freq }: 1000, sample_type: IP|TID|TIME|PERIOD,.*freq: 1" freq.evlist' \
	$NONE -e page-faults -F 1000 -- "$HOT3" -c 0.3
rec callgraph "-g: CALLCHAIN, and the chains reach run_round" \
	'grep -q "CALLCHAIN" callgraph.evlist && grep -q "run_round" callgraph.script' \
	$NONE -e cpu-clock -g -- "$HOT3" -c 0.3
rec all-cpus "-a: CPU sampled, enabled at once (no enable_on_exec)" \
	'grep -q "sample_type: IP|TID|TIME|CPU[,|]" all-cpus.evlist &&
	 ! grep -q enable_on_exec all-cpus.evlist' \
	$NONE -e cpu-clock -a -- "$HOT3" -c 0.3
rec cpu0 "-C 0: samples from CPU 0 only" \
	'test "$(perf script -i cpu0.data -F cpu 2>/dev/null | sort -u | tr -d " []")" = 000' \
	$NONE -e cpu-clock -C 0 -- "$HOT3" -c 0.3
# a hot3 for -p and -t, started just before them: on a busy machine the recordings above may
# take longer than its minute
"$HOT3" 60 &
bg=$!
at_exit 'kill $bg; wait $bg'
hot3=$(readlink -f "$HOT3")
for _ in $(seq 500); do
	[ "$(readlink /proc/$bg/exe 2>/dev/null)" = "$hot3" ] && break
	sleep 0.02
done
rec pid "-p: the running hot3 is sampled" \
	'grep -q "hot_a" pid.script && ! grep -q enable_on_exec pid.evlist' \
	$NONE -e cpu-clock -p $bg -- sleep 0.3
rec tid "-t: the thread is sampled, not inherited" \
	'grep -q "hot_a" tid.script && ! grep -q "inherit: 1" tid.evlist' \
	$NONE -e cpu-clock -t $bg -- sleep 0.3
if have zstd; then
	rec compressed "-z: the COMPRESSED feature" \
		'perf report -i compressed.data --header-only 2>/dev/null |
			grep -q "^# compressed : Zstd"' \
		$NONE -e cpu-clock -z -- "$HOT3" -c 0.3
	rec compressed-a "--compression-level=3 -a -g: COMPRESSED records" \
		'perf report -i compressed-a.data --stats 2>/dev/null | grep -q "COMPRESSED events"' \
		$NONE -e cpu-clock -a -g --compression-level=3 -- "$HOT3" -c 0.3
else
	test_skip "-z" "prec was built without zstd"
fi
rec data-addr "-d --sample-cpu: ADDR, DATA_SRC, CPU, data maps" \
	'grep -q "sample_type: IP|TID|TIME|ADDR|CPU|DATA_SRC" data-addr.evlist &&
	 grep -q "mmap_data: 1" data-addr.evlist' \
	$NONE -e cpu-clock -T -d --sample-cpu -- "$HOT3" -c 0.3
rec switch "--switch-events: SWITCH records" \
	'perf report -i switch.data --stats 2>/dev/null | grep -q "SWITCH events"' \
	$NONE -e cpu-clock --switch-events -- "$HOT3" -c 0.3
rec switch-a "-a --switch-events: SWITCH_CPU_WIDE records" \
	'perf report -i switch-a.data --stats 2>/dev/null | grep -q "SWITCH_CPU_WIDE events"' \
	$NONE -e cpu-clock -a --switch-events -- "$HOT3" -c 0.3
rec no-inherit "--no-inherit: inherit is off" \
	'! grep -q "inherit: 1" no-inherit.evlist' \
	$NONE -e cpu-clock --no-inherit -- "$HOT3" -c 0.3
rec clock "-k monotonic: use_clockid, clockid 1, the CLOCKID feature" \
	'grep -q "use_clockid: 1.*clockid: 1" clock.evlist &&
	 perf report -i clock.data --header-only 2>/dev/null | grep -qi "clockid"' \
	$NONE -e cpu-clock -k monotonic -- "$HOT3" -c 0.3
if have tracefs; then
	# Without the filter, a CPU-wide sched_switch has switches out of idle (prev_pid 0).
	rec tracepoint "a tracepoint with --filter: RAW samples, the filter applied" \
		'grep -q "^sched:sched_switch: type: 2, .*RAW" tracepoint.evlist &&
		 grep -q "prev_pid=" tracepoint.script && ! grep -q "prev_pid=0 " tracepoint.script' \
		$NONE -e sched:sched_switch --filter 'prev_pid != 0' -a -- "$HOT3" -c 0.3
	rec tracepoint-mixed "a tracepoint beside cpu-clock with -g: IDENTIFIER in both" \
		'ident tracepoint-mixed.evlist && grep -q "hot_a" tracepoint-mixed.script' \
		$NONE -e cpu-clock -e sched:sched_switch -g -- "$HOT3" -c 0.3
else
	test_skip "tracepoints" "no tracefs"
fi

# The records perf record 6.1 writes besides the samples: one THREAD_MAP, one CPU_MAP, one
# FINISHED_INIT, the kernel map, and build-ids unless -B or -z.
for f in one all-cpus pid; do
	test_expect "$f: one THREAD_MAP, one CPU_MAP, one FINISHED_INIT, the kernel map" '
		perf report -i '$f'.data --stats 2>/dev/null >'$f'.stats &&
		grep -Eq "^ +THREAD_MAP events: +1 " '$f'.stats &&
		grep -Eq "^ +CPU_MAP events: +1 " '$f'.stats &&
		grep -Eq "^ +FINISHED_INIT events: +1 " '$f'.stats &&
		perf report -i '$f'.data -D 2>/dev/null |
			grep -q "PERF_RECORD_MMAP -1/0: .*\[kernel.kallsyms\]_text"
	'
done
test_expect "build-ids of the binaries sampled, not with -B" '
	perf buildid-list -i one.data 2>/dev/null | grep -Eq "^[0-9a-f]{40} .*hot3$" &&
	"$PREC" record -q -B $NONE -e cpu-clock -o nobid.data -- "$HOT3" -c 0.2 2>/dev/null &&
	perf_clean perf report -i nobid.data --stdio >/dev/null &&
	! perf buildid-list -i nobid.data 2>/dev/null | grep -Eq "^[0-9a-f]{40} "
'
if have zstd; then
	test_expect "-z: no build-ids, as perf record -z" '
		! perf buildid-list -i compressed.data 2>/dev/null | grep -Eq "^[0-9a-f]{40} "
	'
fi

# Pipe mode: -o - to perf report -i -.
"$PREC" record -q $NONE -e cpu-clock -o - -- "$HOT3" -c 0.3 >pipe.data 2>pipe.err
test_expect "-o -: pipe mode that perf report and perf script read from stdin" '
	no_stderr pipe.err &&
	perf_clean perf report -i - --stdio --sort sym <pipe.data >pipe.report &&
	grep -q "hot_a" pipe.report &&
	perf_clean perf script -i - <pipe.data >pipe.script && grep -q hot_a pipe.script
'
test_expect "-o -: the workload's stdout does not go into the data" '
	"$PREC" record -q $NONE -e cpu-clock -o - -- sh -c "echo hello-from-\"\"workload" >p2.data 2>p2.err &&
	! grep -q hello-from-workload p2.data && grep -q hello-from-workload p2.err
'

done_testing
