#!/bin/bash
# t0120: the command line of prec and prec report: --version, help, -h, and one-line errors with
# exit status 2 for unknown commands and options; every option of prec report's usage is in its
# man page; -i defaults to perf.data, and a pipe on stdin is read without -i, as perf does.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

# usage_error CMD...: exit status 2 and exactly one line on stderr, starting "prec".
usage_error() {
	local rc
	"$@" >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "exit $rc from: $*" || return 1
	[ "$(wc -l <err)" = 1 ] || { cat err; fail "not one line on stderr"; } || return 1
	grep -q '^prec' err || fail "the line does not start with prec"
}

test_expect "prec --version" '
	"$PREC" --version >out 2>err && grep -q "^prec version [0-9]" out && no_stderr err'
test_expect "prec help report prints the usage of report" '
	"$PREC" help report >out 2>err && grep -q "^usage: prec report" out && no_stderr err'
test_expect "prec report -h prints the usage" '
	"$PREC" report -h >out 2>err && grep -q "^usage: prec report" out && no_stderr err &&
	grep -q -- "--stats" out && grep -q -- "--header-only" out'
test_expect "prec report --help too" '"$PREC" report --help | grep -q "^usage: prec report"'
test_expect "an unknown command: exit 2, one line" 'usage_error "$PREC" nosuchcommand'
test_expect "an unknown option of prec: exit 2, one line" 'usage_error "$PREC" --nosuchoption'
test_expect "an unknown long option of report: exit 2, one line" '
	usage_error "$PREC" report --nosuchoption && grep -q -- "--nosuchoption" err'
test_expect "an unknown short option of report: exit 2, one line" '
	usage_error "$PREC" report -Z && grep -q -- "-Z" err'
test_expect "-i without its file: exit 2, one line" 'usage_error "$PREC" report -i'
test_expect "two views at once: exit 2, one line" 'usage_error "$PREC" report --stats -D'
# one argument is a symbol filter, as in perf; a second is an error
test_expect "a stray argument: exit 2, one line" 'usage_error "$PREC" report hot_a some.data'

# Every option the usage lists is documented in the man page.
man_has_options() {
	local man=$PREC_SRC/man/prec-report.1 opt
	[ -f "$man" ] || fail "no man page" || return 1
	"$PREC" report -h | grep -o -- '--[a-z][a-z-]*\|^  -[a-zA-Z]' | sed 's/^ *//' |
		sort -u >opts
	[ -s opts ] || fail "no options in the usage" || return 1
	while read -r opt; do
		# man pages escape dashes: \- in the source
		grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$man" ||
			fail "$opt is not in prec-report.1" || return 1
	done <opts
}
test_expect "every option of the usage is in prec-report.1" man_has_options

if have perf && have root; then
	W=$PREC_BUILD/tests/workloads/hot3
	test_expect "without -i, prec report reads ./perf.data" '
		perf record -q -e cpu-clock -o perf.data -- "$W" -c 0.1 >/dev/null 2>&1 &&
		"$PREC" report --stats </dev/null >stats 2>err && no_stderr err &&
		grep -q "SAMPLE events: *[1-9]" stats'
	test_expect "without -i, a pipe on stdin is read" '
		perf record -q -e cpu-clock -o - -- "$W" -c 0.1 2>/dev/null |
			"$PREC" report --stats \
			>stats 2>err && no_stderr err && grep -q "ATTR events: *1" stats'
else
	test_skip "prec report reads ./perf.data and a pipe without -i" "needs root and perf"
fi
test_expect "a missing perf.data: one line, exit 1" '
	mkdir empty && cd empty && ! "$PREC" report </dev/null >out 2>err &&
	[ "$(wc -l <err)" = 1 ] && grep -q "^prec: perf.data: cannot open" err'

done_testing
