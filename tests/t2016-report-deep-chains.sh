#!/bin/bash
# t2016: call chains longer than the kernel's cap of 127 entries, from deep (200 nested calls,
# -O0 with frame pointers), as perf 6.1 reports them: a frame-pointer chain holds the kernel's
# 127 entries; a dwarf chain holds the kernel's part and, on top, up to 127 user frames unwound
# from a 64 KiB stack copy. The call graphs and folded stacks are perf's.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"
REPORT_CACHE=1

require root perf python
DEEP=$PREC_BUILD/tests/workloads/deep
[ -x "$DEEP" ] || skip_all "the deep workload is not built"

# deepest FILE: the most frames of a stack in FILE (folded: the command, then the frames)
deepest() {
	awk -F';' '{ if (NF - 1 > n) n = NF - 1 } END { print n + 0 }' "$1"
}

test_expect "perf records deep with -g" 'rec_perf fp -F 1000 -g -- "$DEEP" 0.5'
test_expect "frame pointers: the call graphs are perf's" '
	same_graph fp.data 4 && [ "$(grep -c "^ *|* *recurse$" prec.out)" -gt 100 ]'
test_expect "frame pointers: so are caller-ordered ones" 'same_graph fp.data 4 -g caller'
test_expect "frame pointers: the folded stacks are perf script's, 127 frames at most" '
	same_folded fp.data && [ "$(deepest prec.folded)" = 127 ]'

if have libdw-unwind; then
	# 64 KiB a sample fills perf's buffers fast: a lower rate and a larger buffer (rec_perf
	# records again what lost records all the same)
	test_expect "perf records deep with --call-graph dwarf,65528" '
		rec_perf dw -F 500 -m 1024 --call-graph dwarf,65528 -- "$DEEP" 0.5'
	test_expect "dwarf: the call graphs are perf's" '
		same_graph dw.data 4 && [ "$(grep -c "^ *|* *recurse$" prec.out)" -gt 100 ]'
	test_expect "dwarf: so are caller-ordered ones" 'same_graph dw.data 4 -g caller'
	test_expect "dwarf: the --children rows are perf's" '
		perf_clean cached dw.data perf report -i dw.data --stdio --children -g none \
			--no-inline >perf.out &&
		prec_ok prec.out dw.data --children -g none --no-inline &&
		"$PYTHON" "$CMP" table perf.out prec.out'
	test_expect "dwarf: the folded stacks are stackcollapse.py's, kernel frames on 127 user ones" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		$PERF_CHECK cached dw.data perf script --no-inline -i dw.data -s "$STACKCOLLAPSE" \
			>perf.folded &&
		cached dw.data "$PREC" report -q -i dw.data --folded --no-inline >prec.folded &&
		"$PYTHON" "$CMP" collapsed perf.folded prec.folded &&
		echo "# the deepest stack: $(deepest prec.folded) frames" &&
		[ "$(deepest prec.folded)" -gt 127 ]'
	# --max-stack above 127 unwinds that many user frames, as perf does, where the copy holds them
	test_expect "dwarf: --max-stack 200 unwinds past 127 user frames, as perf script does" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		$PERF_CHECK cached dw.data perf script --no-inline --max-stack 200 -i dw.data \
			-s "$STACKCOLLAPSE" >perf.folded &&
		"$PREC" report -q -i dw.data --folded --no-inline --max-stack 200 >prec.folded &&
		"$PYTHON" "$CMP" collapsed perf.folded prec.folded &&
		echo "# the deepest stack: $(deepest prec.folded) frames" &&
		[ "$(deepest prec.folded)" -gt 137 ]'
else
	test_skip "dwarf chains" "prec is built without libdw 0.188 or later"
fi

done_testing
