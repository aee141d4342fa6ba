#!/bin/bash
# t2001: prec report against perf report on hot3 (three hot functions, 50/30/20), recorded by
# perf and by prec, without and with -g, and with -z: the same rows in the same order with the
# same shares as `perf report --stdio --no-children`, the same call graphs, folded stacks that
# are perf script's stacks, JSON that says what the table says, and a flame graph that adds up.
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

# check NAME: everything, on NAME.data
check() {
	local name=$1
	test_expect "$name: the table is perf's" "same_table $name.data"
	test_expect "$name: hot_a, hot_b, hot_c lead, about 50/30/20" '
		same_table '"$name"'.data -g none &&
		sed -n "/^# Overhead/,\$p" prec.out | grep "%" | head -3 >top3 &&
		awk "{print \$NF}" top3 | tr "\n" " " | grep -q "^hot_a hot_b hot_c " &&
		awk "NR == 1 && (\$1 + 0 < 35 || \$1 + 0 > 65) {exit 1}" top3'
	test_expect "$name: --sort dso,sym and --sort pid are perf's" '
		same_table '"$name"'.data --sort dso,sym && same_table '"$name"'.data --sort pid'
	test_expect "$name: --folded is the stacks of perf script" "same_folded $name.data"
	test_expect "$name: --json agrees with the table" "json_agrees $name.data"
	test_expect "$name: the flame graph adds up" "svg_ok $name.data"
}

test_expect "perf records hot3" 'rec_perf perf -- "$W" -c 0.3'
check perf

test_expect "perf records hot3 with -g" 'rec_perf perfg -g -- "$W" -c 0.3'
check perfg
test_expect "perfg: the call graphs are perf's" 'same_graph perfg.data 6'
test_expect "perfg: so are -g caller and fractal ones" '
	same_graph perfg.data 6 -g caller && same_graph perfg.data 6 -g fractal,0.1 &&
	same_graph perfg.data 6 -g fractal'
test_expect "perfg: so are -g flat ones" '
	perf_clean perf report -i perfg.data --stdio --no-children -g flat >perf.out &&
	prec_ok prec.out perfg.data --no-children -g flat && grep -q "^ *[0-9.]*%\$" prec.out &&
	"$PYTHON" "$CMP" graph perf.out prec.out 6'
# the most samples of hot_a come through run_round and main (a sample at hot_a's first
# instruction, before its frame is set up, has another chain: the graph then splits)
test_expect "perfg: hot_a's chain is hot_a, run_round, main" '
	"$PREC" report -q -i perfg.data --folded >folded.txt &&
	grep ";hot_a [0-9]*$" folded.txt | sort -k2 -n | tail -1 | tee top.txt |
		grep -q ";main;run_round;hot_a "'

if [ -n "$have_z" ]; then
	test_expect "perf records hot3 with -z -g" 'rec_perf perfz -z -g -- "$W" -c 0.3'
	check perfz
	test_expect "perfz: the call graphs are perf's" 'same_graph perfz.data 6'
else
	test_skip "perf -z" "perf or prec is built without zstd"
fi

test_expect "prec records hot3" 'rec_prec prec -- "$W" -c 0.3'
check prec

test_expect "prec records hot3 with -g" 'rec_prec precg -g -- "$W" -c 0.3'
check precg
test_expect "precg: the call graphs are perf's" 'same_graph precg.data 6'

if [ -n "$have_z" ]; then
	test_expect "prec records hot3 with -z -g" 'rec_prec precz -z -g -- "$W" -c 0.3'
	check precz
else
	test_skip "prec -z" "prec is built without zstd"
fi

done_testing
