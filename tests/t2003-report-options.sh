#!/bin/bash
# t2003: the options of prec report around the profile: usage errors (one line, exit 2), call
# graphs asked of a file without chains, --cpu on a file without CPUs, pipe mode (perf record
# -o - | prec report -i -, and a pipe-mode file), the perf options accepted for compatibility
# (--stdio, --no-children, and --children, the default with call chains),
# --percent-limit, the -g argument forms, --sort tid, a flame graph that cannot be written.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

# one_error ARGS...: exit status 1 and exactly one "prec: " line on stderr.
one_error() {
	report_fails 1 "$@" && grep -q '^prec: ' err || fail "the line does not start with prec:"
}

test_expect "an unknown sort key" 'usage_error --sort comm,nosuchkey && grep -q nosuchkey err'
test_expect "an empty sort list" 'usage_error --sort ,'
test_expect "a percent limit that is not a number" 'usage_error --percent-limit abc'
test_expect "a percent limit above 100" 'usage_error --percent-limit 150'
test_expect "a bad -g spec" 'usage_error -g=sideways'
test_expect "a bad --pid" 'usage_error --pid 12x'
test_expect "a bad --cpu list" 'usage_error --cpu 3-1'
test_expect "--json with --folded" 'usage_error --json --folded'
test_expect "--folded with --flamegraph" 'usage_error --folded --flamegraph x.svg'
test_expect "--budget without --overhead" 'usage_error --budget 3'
test_expect "the options are in the usage" '
	"$PREC" report -h >usage &&
	for o in --sort --comm --pid --tid --cpu --call-graph --percent-limit --json --folded \
		--flamegraph --children --overhead --intervals --budget --fail-above; do
		grep -q -- "$o" usage || fail "$o"; done'

if ! have root || ! have perf || ! have python || [ ! -x "$W" ]; then
	test_skip "the options on recorded files" "needs root, perf, python and hot3"
	done_testing
	exit
fi

test_expect "perf records hot3 without and with -g" '
	rec_perf plain -- "$W" -c 0.2 && rec_perf chains -g -- "$W" 0.2'
test_expect "-g on a file without call chains: one line, exit 1" '
	one_error -i plain.data -g && grep -q "call chains" err'
test_expect "-g none on a file without call chains is fine" '
	same_table plain.data -g none'
test_expect "--cpu on a file without CPUs: one line, exit 1" '
	one_error -i plain.data --cpu 0 && grep -q CPU err'
test_expect "--stdio and --no-children are accepted" '
	prec_ok a.out chains.data --no-children && prec_ok b.out chains.data --stdio --no-children &&
	cmp a.out b.out && grep -q "^# Overhead  " a.out'
test_expect "the last of --children and --no-children counts" '
	prec_ok b.out chains.data --children --no-children && cmp a.out b.out &&
	prec_ok c.out chains.data --no-children --children &&
	grep -q "^# Children      Self  " c.out'
test_expect "--children is the default with call chains" '
	prec_ok d.out chains.data && cmp c.out d.out'
test_expect "-g caller, -gcaller, -g=caller and --call-graph=caller are one thing" '
	prec_ok a.out chains.data -g caller && prec_ok b.out chains.data -gcaller &&
	prec_ok c.out chains.data --call-graph=caller && prec_ok d.out chains.data -g=caller &&
	cmp a.out b.out && cmp a.out c.out && cmp a.out d.out &&
	! cmp -s a.out prec.out'
test_expect "-g none drops the graphs" '
	prec_ok a.out chains.data -g none && ! grep -q -- "---" a.out &&
	prec_ok b.out chains.data && grep -q -- "---" b.out'
# (25: hot_c, a fifth of hot3, is below it and hot_b above, whatever else the recording caught)
test_expect "--percent-limit hides the rows below it" '
	prec_ok a.out plain.data --percent-limit 25 -g none &&
	sed -n "/^# Overhead/,\$p" a.out | grep "%" >rows && [ -s rows ] &&
	awk "\$1 + 0 < 25 {exit 1}" rows && grep -q "hot_b" rows && ! grep -q "hot_c" rows &&
	prec_ok b.out plain.data -g none && grep -q "hot_c" b.out &&
	[ $(grep -c "%  " b.out) -gt $(wc -l <rows) ]'
test_expect "--sort tid shows the thread numbers" '
	prec_ok a.out plain.data --sort tid,comm -g none &&
	grep -q "^# Overhead      Tid  Command" a.out &&
	sed -n "/^# Overhead/,\$p" a.out | grep -q "%  *[0-9][0-9]*  hot3"'
test_expect "--flamegraph to a path that cannot be written: one line, exit 1" '
	one_error -i plain.data --flamegraph /nonexistent/dir/x.svg'
test_expect "--folded names what it could not resolve on stderr, -q does not" '
	"$PREC" report -i chains.data --folded >f.out 2>f.err &&
	{ ! [ -s f.err ] || grep -q "could not be resolved" f.err; } &&
	"$PREC" report -q -i chains.data --folded >f.out 2>f.err && ! [ -s f.err ]'

# pipe mode
test_expect "perf records in pipe mode" '
	perf record -q -e cpu-clock -F 4000 -g -o - -- "$W" -c 0.2 >pipe.data 2>/dev/null &&
	[ -s pipe.data ]'
test_expect "a pipe-mode file: the table is perf's" 'same_table pipe.data'
test_expect "a pipe-mode file on stdin: the same table" '
	prec_ok a.out pipe.data && "$PREC" report -i - <pipe.data >b.out 2>err &&
	cmp a.out b.out'
test_expect "perf record -o - | prec report -i -: the table of perf report" '
	perf record -q -e cpu-clock -F 4000 -g -o - -- "$W" -c 0.2 2>/dev/null | tee live.data |
		"$PREC" report -i - --no-children >live.out 2>err &&
	perf_clean perf report -i live.data --stdio --no-children >perf.out &&
	"$PYTHON" "$CMP" table perf.out live.out'
test_expect "a pipe-mode file: --folded is the stacks of perf script" 'same_folded pipe.data'

done_testing
