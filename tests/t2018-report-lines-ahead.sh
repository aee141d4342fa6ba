#!/bin/bash
# t2018: the line tables of the binaries that dwarf chains go through (for their inlined
# functions, -g address, --sort srcline) are opened ahead, on a thread of their own, when the
# binaries' symbols are loaded: -v says how many were, the reports are the same as with them
# opened where they are first read (PREC_SRCLINE_AHEAD=0) and as perf's, and a frame-pointer
# recording opens no debug file it would not have opened otherwise.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
NOFP=$PREC_BUILD/tests/workloads/nofp
DEEP=$PREC_BUILD/tests/workloads/deep
[ -x "$NOFP" ] && [ -x "$DEEP" ] || skip_all "the nofp and deep workloads are not built"
have libdw-unwind || skip_all "prec is built without libdw 0.188 or later, which reads the line tables and unwinds"
CPUS=$(getconf _NPROCESSORS_ONLN)

# ahead FILE ARGS...: how many binaries' line tables -v says were opened ahead ("" when none
# were looked at)
ahead() {
	local file=$1
	shift
	"$PREC" report -v -i "$file" --stdio "$@" 2>&1 >/dev/null |
		sed -n 's/.*line tables of binaries: \([0-9]*\) opened ahead.*/\1/p'
}

# both_ways FILE ARGS...: the report is the same with the line tables opened ahead or not
both_ways() {
	local file=$1
	shift
	"$PREC" report -i "$file" "$@" >ahead.out 2>ahead.err &&
		PREC_SRCLINE_AHEAD=0 "$PREC" report -i "$file" "$@" >here.out 2>here.err ||
		{ cat ahead.err here.err; return 1; }
	[ -s ahead.out ] && cmp ahead.out here.out && cmp ahead.err here.err
}

# debug_opens OUT ARGS...: the debug and binary files a report opened (successfully), sorted
debug_opens() {
	local out=$1
	shift
	strace -f -z -qq -e trace=openat -o strace.raw "$@" >/dev/null 2>&1 || return 1
	grep -o '"[^"]*"' strace.raw | grep -e '\.debug' -e '/elf"' -e '\.so' | sort -u >"$out"
}

test_expect "perf records nofp with --call-graph dwarf" '
	rec_perf nofp --call-graph dwarf -- "$NOFP" 0.3'
if [ "$CPUS" -gt 1 ]; then
	test_expect "dwarf: the binaries' line tables are opened ahead" '
		n=$(ahead nofp.data --no-children) && echo "opened ahead: $n" && [ "${n:-0}" -ge 1 ] &&
		n=$(ahead nofp.data --no-children --sort srcline) && [ "${n:-0}" -ge 1 ] &&
		n=$(ahead nofp.data --no-children --no-inline -g address) && [ "${n:-0}" -ge 1 ]'
else
	test_skip "dwarf: the binaries' line tables are opened ahead" "one CPU: no thread for it"
fi
test_expect "one CPU, or PREC_SRCLINE_AHEAD=0: none is" '
	n=$(PREC_SRCLINE_AHEAD=0 ahead nofp.data --no-children) && [ "$n" = 0 ]'
test_expect "--no-inline without -g address or srcline: none is" '
	n=$(ahead nofp.data --no-children --no-inline) && [ "${n:-0}" = 0 ]'
test_expect "dwarf: the call graphs are perf's" 'same_graph nofp.data 6'
for args in "--no-children" "--children" "--folded" "--no-children -g address" \
	"--no-children --sort srcline" "--no-children --sort srcline -g none"; do
	test_expect "dwarf: $args is the same either way" 'both_ways nofp.data --stdio '"$args"
done

test_expect "perf records deep with -g" '
	rec_perf deep -g -- "$DEEP" 0.2 6'
for args in "" "--sort srcline" "-g address" "--sort srcline -g none"; do
	if command -v strace >/dev/null; then
		test_expect "frame pointers: ${args:-the default} opens the same files either way" '
			debug_opens ahead.opens "$PREC" report -i deep.data --stdio --no-children '"$args"' &&
			PREC_SRCLINE_AHEAD=0 debug_opens here.opens "$PREC" report -i deep.data --stdio \
				--no-children '"$args"' && [ -s here.opens ] && diff here.opens ahead.opens'
	else
		test_skip "frame pointers: ${args:-the default} opens the same files" "no strace"
	fi
done
test_expect "frame pointers: nothing is opened ahead by default" '
	n=$(ahead deep.data --no-children) && [ "${n:-0}" = 0 ]'

done_testing
