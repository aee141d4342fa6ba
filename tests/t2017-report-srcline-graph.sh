#!/bin/bash
# t2017: -g address, perf's call-graph sort key that compares chain entries by address and shows
# each with its source line ("name file:line", "+offset" into a symbol without line tables,
# "(inlined)" after an inlined function's call site), against perf report on a frame-pointer
# recording of deep (-O0) and a dwarf recording of nofp (-O2, inlined functions); the parts of
# -g that prec does not show are refused with the reason.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"
REPORT_CACHE=1

require root perf python
DEEP=$PREC_BUILD/tests/workloads/deep
NOFP=$PREC_BUILD/tests/workloads/nofp
[ -x "$DEEP" ] && [ -x "$NOFP" ] || skip_all "the deep and nofp workloads are not built"
have libdw-unwind || skip_all "prec is built without libdw 0.188 or later, which reads the line tables and unwinds"

# The line of __libc_start_call_main (code of libc_start_call_main.h, included by libc-start.c)
# is the same number, but binutils' addr2line, which perf runs, names libc-start.c for it where
# the line table (and libdw) names the header: its file is left out of both sides.
LIBC_MAIN='s/\(__libc_start_call_main\) [^ ]*:/\1 :/'

# same_lines FILE TOP ARGS...: the call graphs of the TOP rows are perf's
same_lines() {
	local file=$1 top=$2
	shift 2
	$PERF_CHECK cached "$file" perf report -i "$file" --stdio "$@" >perf.raw || return 1
	prec_ok prec.raw "$file" "$@" || return 1
	sed "$LIBC_MAIN" perf.raw >perf.out && sed "$LIBC_MAIN" prec.raw >prec.out &&
		has_graph prec.out || return 1
	"$PYTHON" "$CMP" graph perf.out prec.out "$top"
}

test_expect "perf records deep with -g" '
	perf record -q -e cpu-clock -F 4000 -g -o fp.data "$DEEP" 0.3 6 >/dev/null 2>fp.err ||
		{ cat fp.err; false; }'
test_expect "frame pointers: -g address is perf's, a branch per address" '
	same_lines fp.data 4 --no-children -g graph,0.5,callee,address &&
	grep -q "^ *|* *recurse deep\.c:[0-9]*$" prec.out &&
	[ "$(grep -c -- "--[0-9.]*%--spin deep\.c:" prec.out)" -ge 2 ]'
test_expect "frame pointers: kernel entries at an offset into their symbols, as perf" '
	same_lines fp.data 4 --no-children -g address &&
	{ ! grep -q "\[k\]" perf.out || grep -q "_[a-z0-9_]* +[0-9]*$" prec.out; }'
test_expect "frame pointers: caller order and the children view too" '
	same_lines fp.data 4 --no-children -g caller,address &&
	same_lines fp.data 6 --children -g address'
test_expect "--json holds the same entries" 'json_agrees fp.data -g address'

test_expect "perf records nofp with --call-graph dwarf" '
	rec_perf nofp --call-graph dwarf -- "$NOFP" 0.3'
test_expect "dwarf: -g address is perf's, inlined functions at their call sites" '
	same_lines nofp.data 6 --no-children -g graph,0.5,callee,address &&
	grep -q -- "--spin nofp\.c:[0-9]* (inlined)$" prec.out &&
	grep -q "^ *|* *outer nofp\.c:[0-9]*$" prec.out'
# (not the children view: perf 6.1 sometimes splits the children row of an inlined function
# reached at two addresses of one symbol in two, by the order it met them, with or without -g
# address)
test_expect "dwarf: caller order and --no-inline too" '
	same_lines nofp.data 6 --no-children -g caller,address &&
	same_lines nofp.data 6 --no-children -g address --no-inline'
test_expect "dwarf: -g function is the default graph" '
	same_graph nofp.data 6 -g function && ! grep -q "nofp\.c:" prec.out'

for spec in graph,0.5,3 caller,period count folded graph,branch; do
	test_expect "-g $spec: refused with the reason" '
		usage_error -i fp.data --stdio -g '"$spec"' && grep -q "not supported" err'
done

done_testing
