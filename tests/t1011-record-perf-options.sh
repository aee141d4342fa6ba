#!/bin/bash
# t1011: perf record's event and attr options, judged by perf 6.1 itself. For each option the
# same command line is recorded by perf and by prec, and perf evlist -v must print the same
# attrs for both files; perf report and perf script must read prec's file without a word on
# stderr. Every recording uses a fixed period (-c), since prec asks for cpu-clock's frequency as
# the fixed period the kernel makes of it (record/evlist.c, hrtimer_period()).
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"

NONE=--overhead-source=none
n=0
# same DESC ARGS...: perf record ARGS and prec record ARGS give the same attrs. prec puts
# IDENTIFIER where perf puts ID in a multi-event file (perf-data-compat.md pitfall 4). perf runs
# with -B: its build-id pass, after the recording, reads the whole file again (the dearest part
# of a short perf record) and sets no attr.
same() {
	local desc=$1
	shift
	n=$((n + 1))
	perf record -q -B -o perf$n.data "$@" -- "${WORK[@]}" >/dev/null 2>perf$n.err
	"$PREC" record -q $NONE -o prec$n.data "$@" -- "${WORK[@]}" >/dev/null 2>prec$n.err
	perf evlist -v -i perf$n.data 2>/dev/null | grep -v "^#" |
		sed 's/\(sample_type: [A-Z_|]*\)|ID\([|,]\)/\1|IDENTIFIER\2/' >perf$n.evlist
	perf evlist -v -i prec$n.data 2>/dev/null | grep -v "^#" >prec$n.evlist
	test_expect "$desc: $* sets the attrs perf sets" '
		no_stderr prec'$n'.err && test -s perf'$n'.evlist &&
		diff -u perf'$n'.evlist prec'$n'.evlist
	'
	# -n: no samples, which perf report says of perf's own file too
	test_expect "$desc: perf report and perf script read prec's file cleanly" '
		{ test "${NOSAMPLES:-0}" = 1 || perf_clean perf report -i prec'$n'.data --stdio \
			>prec'$n'.report; } &&
		perf_clean perf script -i prec'$n'.data >prec'$n'.script
	'
}

C="-e cpu-clock -c 1000000"
# What same() records: hot3 (user time), or what --all-kernel needs, time in the kernel (hot3
# spends a millisecond or two there, which a loaded machine can leave without a sample). The
# attrs do not depend on it; the readers need samples: 50 ms of CPU is 50 at the period of 1 ms,
# 40 at the longest period below (1234567 ns).
WORK=("$HOT3" -c 0.05)

# The attr options.
same "-W" $C -W
same "--transaction" $C --transaction
same "--phys-data" $C --phys-data
same "--data-page-size" $C --data-page-size
same "--code-page-size" $C --code-page-size
same "--sample-identifier" $C --sample-identifier
same "-R" $C -R
NOSAMPLES=1 same "-n" $C -n
WORK=("${KWORK[@]}")
same "--all-kernel" $C --all-kernel
WORK=("$HOT3" -c 0.05)
same "--all-user" $C --all-user
same "--running-time" $C --running-time
same "--kernel-callchains" $C -g --kernel-callchains
same "--user-callchains" $C -g --user-callchains
same "--namespaces" $C --namespaces
same "--all-cgroups" $C --all-cgroups
cgroups=$n
test_expect "--all-cgroups: perf report --sort cgroup names the cgroups perf's file names" '
	perf report -i perf$cgroups.data --sort cgroup --stdio 2>/dev/null | grep "%" |
		awk "{ print \$2 }" | sort >perf-cgroups &&
	perf report -i prec$cgroups.data --sort cgroup --stdio 2>/dev/null | grep "%" |
		awk "{ print \$2 }" | sort >prec-cgroups &&
	test -s prec-cgroups && ! grep -qx unknown prec-cgroups && diff perf-cgroups prec-cgroups
'
same "-I" $C -I
same "-I with registers" $C -IAX,BX,R15
same "--user-regs" $C --user-regs=SP,IP
same "--group" $C -e task-clock --group
same "--count N is the period" -e cpu-clock --count 1000000

# Event terms.
same "per-event call graph" -c 1000000 -e 'cpu-clock/call-graph=fp,max-stack=4,period=1234567,name=foo,no-inherit/'
same "max-stack, time=0, inherit" -e 'cpu-clock/max-stack=4,period=200000,time=0,inherit,stack-size=100,no-overwrite/'
same "call-graph=no drops -g" -g -e 'cpu-clock/call-graph=no,period=300000/' -e task-clock -c 1000000
same "tracepoint terms" -c 1 -e 'sched:sched_process_exec/max-stack=3,call-graph=fp/'
same "per-event dwarf call graph" -c 1000000 -e task-clock \
	-e 'cpu-clock/call-graph=dwarf,stack-size=100,max-stack=8/'
same "call-graph=fp over --call-graph dwarf" $C --call-graph dwarf -e 'task-clock/call-graph=fp/'

# cycles: on a machine without a PMU, cpu-clock with the same modifiers, as perf falls back.
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	test_skip "cycles falls back to cpu-clock" "this machine has a hardware PMU"
else
	same "cycles falls back" -e cycles -c 1000000
	same "cycles:u falls back" -e cycles:u -c 1000000
	same "a group of cycles falls back" -e '{cycles,cycles}:Su' -c 1000000
	same "-e cycles -e cycles" -e cycles -e cycles -c 1000000
	test_expect "the fallback says so with -v only, in perf's words" '
		"$PREC" record $NONE -o fb.data -e cycles -- true 2>fb.err &&
		! grep -q "cycles" fb.err &&
		"$PREC" record -v $NONE -o fb.data -e cycles -- true 2>fbv.err &&
		grep -q "^The cycles event is not supported, trying to fall back to cpu-clock-ticks" fbv.err
	'
	test_expect "other hardware events stay errors, in perf's words" '
		! "$PREC" record $NONE -o hw.data -e instructions -- true 2>hw.err &&
		test "$(cat hw.err)" = "prec: The instructions event is not supported." &&
		! test -e hw.data
	'
fi

# What this machine cannot do is refused with perf's reason, in one line.
test_expect "-b: refused as perf refuses it, when the kernel says no" '
	if perf record -q -o pb.data -e cpu-clock -b -- true 2>pb.err; then
		"$PREC" record -q $NONE -o b.data -e cpu-clock -b -- true
	else
		! "$PREC" record -q $NONE -o b.data -e cpu-clock -b -- true 2>b.err &&
		grep -qxF "$(tail -1 pb.err)" <(sed "s/^prec: //" b.err) && test "$(wc -l <b.err)" = 1
	fi
'
test_expect "-j: perf's filter words; an unknown one is an error" '
	! "$PREC" record -q $NONE -o j.data -j any_call,u,foo -- true 2>j.err &&
	grep -q "unknown branch filter foo, check man page" j.err && test "$(wc -l <j.err)" = 1
'
test_expect "-I? and --user-regs=? list the registers as perf does" '
	perf record -I? 2>&1 | head -1 >perf-regs.txt
	"$PREC" record -I? 2>prec-regs.txt; test $? -ne 0 &&
	diff perf-regs.txt prec-regs.txt &&
	"$PREC" record --user-regs=? 2>prec-uregs.txt; diff perf-regs.txt prec-uregs.txt
'
test_expect "perf script prints the interrupt registers prec recorded" '
	perf script -i prec16.data -F ip,iregs 2>/dev/null | grep -q "ABI:2 *AX:0x"
'
test_expect "--exclude-perf must follow a tracepoint -e" '
	! "$PREC" record $NONE -o xp.data --exclude-perf -- true 2>xp.err &&
	grep -q "should follow a -e tracepoint option" xp.err
'
# The recorder's own main thread switches on every drain: --exclude-perf filters it out. Other
# recorders may run beside this one, so the pid is the one this shell saw it start with.
own_switches() {
	perf script -i "$1" -F pid,tid 2>/dev/null | awk -v p="$(cat "$2")" '$1 == p "/" p' | wc -l
}
# The two recordings wait on their sleep: they run side by side.
sh -c 'echo $$ >xa.pid; exec "$0" "$@"' "$PREC" record -q $NONE -o xa.data -a \
	-e sched:sched_switch -- sleep 1 2>/dev/null &
xa=$!
sh -c 'echo $$ >xb.pid; exec "$0" "$@"' "$PREC" record -q $NONE -o xb.data -a \
	-e sched:sched_switch --exclude-perf -- sleep 1 2>/dev/null
wait "$xa"
test_expect "--exclude-perf: the tracepoint leaves out the recorder's own thread" '
	test "$(own_switches xa.data xa.pid)" -gt 0 &&
	test "$(perf script -i xb.data -F pid 2>/dev/null | wc -l)" -gt 0 &&
	test "$(own_switches xb.data xb.pid)" = 0
'

# -G and -u themselves: t1015
test_expect "-G before any -e: perf's reason in one line" '
	! "$PREC" record $NONE -o g.data -G / -- true 2>g1.err &&
	grep -q "must define events before cgroups" g1.err && test "$(wc -l <g1.err)" = 1
'

done_testing
