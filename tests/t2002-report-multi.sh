#!/bin/bash
# t2002: prec report against perf report on a workload of several short programs (hot3, ls,
# gzip, sha256sum: several commands, binaries, libc and the kernel, stripped binaries among
# them), recorded by perf and by prec, without and with -g, with -z, and system-wide with the
# CPU: the same rows as `perf report --stdio --no-children` under every sort key and filter perf
# shares with prec, the same call graphs, perf script's stacks, and JSON and flame graphs that
# agree with the table.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"
# What the reports read besides the recordings stays as it is: each is run once (cached).
REPORT_CACHE=1

require root perf python
[ -x "$W" ] || skip_all "the hot3 workload is not built"
have_z=
if have zstd && perf version --build-options 2>/dev/null | grep -q 'zstd: *\[ on'; then
	have_z=1
fi
workload_multi

# the pid of the process with the most samples, from a --sort pid table
top_pid() {
	sed -n '/^# Overhead/,$p' prec.out | grep -m1 '%' | awk '{print $2}' | cut -d: -f1
}

check() {
	local name=$1
	test_expect "$name: the table is perf's" "same_table $name.data"
	test_expect "$name: several commands and the kernel are in it" '
		same_table '"$name"'.data -g none &&
		for c in hot3 ls gzip; do grep -q "%  $c " prec.out || fail "no $c"; done &&
		grep -q "\[kernel.kallsyms\] *\[k\] " prec.out && grep -q "libc.so.6" prec.out'
	test_expect "$name: --sort pid, dso, sym, comm,sym are perf's" '
		same_table '"$name"'.data --sort pid && same_table '"$name"'.data --sort dso &&
		same_table '"$name"'.data --sort sym && same_table '"$name"'.data --sort comm,sym'
	test_expect "$name: --comm with one and two names is perf's" '
		same_table '"$name"'.data --comm ls && same_table '"$name"'.data --comm gzip,hot3'
	test_expect "$name: --pid and --tid (with --sort pid) are perf's" '
		same_table '"$name"'.data --sort pid && pid=$(top_pid) && [ -n "$pid" ] &&
		same_table '"$name"'.data --sort pid,dso --pid "$pid" &&
		same_table '"$name"'.data --sort pid,sym --tid "$pid"'
	test_expect "$name: --percent-limit is perf's" '
		same_table '"$name"'.data --percent-limit 2 && same_table '"$name"'.data --sort dso \
			--percent-limit 5'
	test_expect "$name: --folded is the stacks of perf script" "same_folded $name.data"
	test_expect "$name: --json agrees with the table" '
		json_agrees '"$name"'.data && json_agrees '"$name"'.data --sort pid,dso \
			--comm ls,gzip'
	test_expect "$name: the flame graph adds up" "svg_ok $name.data"
}

# check_g NAME: the call graphs, for recordings with -g
check_g() {
	local name=$1
	test_expect "$name: the call graphs are perf's" 'same_graph '"$name"'.data 8'
	test_expect "$name: -g caller, fractal and a threshold are perf's" '
		same_graph '"$name"'.data 8 -g caller && same_graph '"$name"'.data 8 -g fractal &&
		same_graph '"$name"'.data 8 -g graph,2 && same_table '"$name"'.data -g caller'
}

test_expect "perf records the workload" 'rec_perf perf -- ./multi.sh'
check perf

test_expect "perf records the workload with -g" 'rec_perf perfg -g -- ./multi.sh'
check perfg
check_g perfg

if [ -n "$have_z" ]; then
	test_expect "perf records the workload with -z -g" 'rec_perf perfz -z -g -- ./multi.sh'
	test_expect "perfz: the table is perf's" 'same_table perfz.data'
	test_expect "perfz: --sort pid and --comm are perf's" '
		same_table perfz.data --sort pid && same_table perfz.data --comm ls,hot3'
	test_expect "perfz: --folded is the stacks of perf script" "same_folded perfz.data"
	check_g perfz
else
	test_skip "perf -z" "perf or prec is built without zstd"
fi

test_expect "prec records the workload with -g" 'rec_prec precg -g -- ./multi.sh'
check precg
check_g precg

if [ -n "$have_z" ]; then
	test_expect "prec records the workload with -z" 'rec_prec precz -z -- ./multi.sh'
	test_expect "precz: the table is perf's" 'same_table precz.data'
	test_expect "precz: --folded is the stacks of perf script" "same_folded precz.data"
fi

# system-wide: the samples have their CPU
test_expect "prec records system-wide with -g" 'rec_prec preca -a -g -- ./multi.sh'
# -a records the whole machine, and the tests running meanwhile can overflow its rings: perf's
# warning about what was lost is allowed (perf_clean_wide, which asks perf whether the file lost
# any: once, here, for every report of the file); the rest is what these tests compare.
PERF_CHECK=perf_clean
has_lost preca.data && PERF_CHECK=perf_clean_but_lost
test_expect "preca: the table is perf's" 'same_table preca.data'
test_expect "preca: --sort cpu and cpu,comm are perf's" '
	same_table preca.data --sort cpu && same_table preca.data --sort cpu,comm'
test_expect "preca: --cpu 0 and --cpu 1 are perf's" '
	same_table preca.data --cpu 0 && same_table preca.data -C 1 --sort comm,dso'
test_expect "preca: --cpu keeps only those CPUs" '
	prec_ok prec.out preca.data --cpu 0 --sort cpu -g none &&
	sed -n "/^# Overhead/,\$p" prec.out | grep "%" | awk "\$2 != \"000\" {exit 1}"'
test_expect "preca: the call graphs are perf's" 'same_graph preca.data 8'
test_expect "preca: --folded is the stacks of perf script" "same_folded preca.data"
test_expect "preca: --json agrees with the table under --sort cpu" '
	json_agrees preca.data --sort cpu,pid'

PERF_CHECK=perf_clean

# A process sampled before anything named it (forked between the /proc scan of -a and the
# enabling of the events, or its FORK lost), then named by its exec's COMM: perf report shows
# its earlier samples under the new name too, perf script under ":tid". A thread sampled unnamed
# and then forked anew with its tid (and named) keeps ":tid" for the samples before the FORK.
"$PREC_BUILD/tests/mkdata" latecomm late.data >/dev/null 2>late.err
late_rc=$?
if [ $late_rc = 77 ]; then
	test_skip "a process named after its first samples" "$(cat late.err)"
else
	test_expect "a process named after its first samples: the tables are perf's" '
		test $late_rc = 0 && same_table late.data --sort comm,sym &&
		grep -q "late *\[\.\] hot_b" prec.out && ! grep -q ":4243" prec.out &&
		same_table late.data --sort comm && grep -q ":4244" prec.out &&
		same_table late.data --sort pid,comm && same_table late.data
	'
	test_expect "... the call graphs and --children rows too" '
		same_graph late.data 8 &&
		perf_clean perf report -i late.data --stdio --children -g none --sort comm,sym \
			>perf.out &&
		prec_ok prec.out late.data --children -g none --sort comm,sym &&
		diff <(grep "%" perf.out | grep -v "^# (Tip" | sort) <(grep "%" prec.out | sort)
	'
	test_expect "... and --folded keeps \":tid\" for those samples, as perf script" '
		same_folded late.data && grep -q "^:4243;" prec.folded
	'
fi

done_testing
