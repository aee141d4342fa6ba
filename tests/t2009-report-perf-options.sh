#!/bin/bash
# t2009: perf report's output options in prec report, against perf report --stdio on the same
# files (recorded by perf and by prec, with and without -g): the default view (children when the
# file has call chains, report.children in perf's configuration files), the Samples, Period,
# sys and usr columns, -t, --percentage, and perf's options and sort keys prec report lacks.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

# refused ARGS...: a usage error, whose one line names what was refused ($NAME) and says that
# it is perf report's (not a typo).
refused() {
	usage_error "$@" || return 1
	grep -q -- "$NAME.*perf report's\|$NAME is a perf report option" err ||
		{ cat err; fail "the line does not name $NAME as perf's"; }
}

test_expect "perf's sort keys prec lacks are refused by name" '
	for k in socket dso_size sym_size; do
		NAME=$k; refused -i none.data --sort comm,$k || return 1; done'
test_expect "--percentage takes relative or absolute" '
	usage_error -i none.data --percentage sideways && grep -q sideways err'

if ! have root || ! have perf || ! have python || [ ! -x "$W" ]; then
	test_skip "the options on recorded files" "needs root, perf, python and hot3"
	done_testing
	exit
fi

# perf's configuration: nothing of the machine's; each test sets what it needs.
unset PERF_CONFIG PERF_CONFIG_NOSYSTEM PERF_CONFIG_NOGLOBAL
export HOME=$T/home
mkdir -p "$HOME"

# titles FILE ARGS...: the column titles of perf's and prec's tables, which must agree; on stdout.
titles() {
	table "$@" || return 1
	grep -m1 -e '^# Overhead' -e '^# Children' perf.tab >t.perf
	grep -m1 -e '^# Overhead' -e '^# Children' prec.tab >t.prec
	cmp -s t.perf t.prec || fail "titles: perf $(cat t.perf), prec $(cat t.prec)" || return 1
	cat t.prec
}

test_expect "perf and prec record hot3 with and without -g" '
	rec_perf plain -- "$W" -c 0.2 && rec_perf chains -g -- "$W" 0.2 &&
	rec_prec pplain -- "$W" -c 0.2 && rec_prec pchains -g -- "$W" 0.2 &&
	workload_multi && rec_perf multi -g -- ./multi.sh'

# 1. the default view
for f in chains pchains; do
	test_expect "$f: with call chains the default is the children view, as perf's" "
		titles $f.data | grep -q '^# Children      Self  '"
done
for f in plain pplain; do
	test_expect "$f: without call chains it is the plain table, as perf's" "
		titles $f.data | grep -q '^# Overhead  '"
done
test_expect "report.children = false in ~/.perfconfig: the plain table, as perf's" '
	printf "[report]\n\tchildren = false\n" >"$HOME/.perfconfig" &&
	titles chains.data | grep -q "^# Overhead  " &&
	titles chains.data --children | grep -q "^# Children  "'
test_expect "values as perf reads them: no, 0, off, quoted, a later line wins" '
	for v in no 0 off "\"false\"" "true\n\tchildren = false"; do
		printf "[report]\n\tchildren = $v # comment\n" >"$HOME/.perfconfig" &&
		titles chains.data | grep -q "^# Overhead  " || return 1; done &&
	printf "[Report]\n\tChildren = yes\n" >"$HOME/.perfconfig" &&
	titles chains.data | grep -q "^# Children  "'
test_expect "\$PERF_CONFIG is the only file read; \$PERF_CONFIG_NOGLOBAL skips ~/.perfconfig" '
	printf "[report]\n\tchildren = true\n" >"$HOME/.perfconfig" &&
	printf "[report]\n\tchildren = false\n" >only.conf &&
	PERF_CONFIG=$T/only.conf titles chains.data | grep -q "^# Overhead  " &&
	printf "[report]\n\tchildren = false\n" >"$HOME/.perfconfig" &&
	PERF_CONFIG_NOGLOBAL=1 titles chains.data | grep -q "^# Children  "'
test_expect "a line perf cannot parse: the whole file is ignored, with one warning" '
	printf "[report]\n\tchildren = false\n\tchildren\n" >"$HOME/.perfconfig" &&
	perf report --stdio -i chains.data >perf.out 2>perf.err; grep -q "bad config" perf.err &&
	"$PREC" report -i chains.data >prec.out 2>prec.err &&
	[ "$(wc -l <prec.err)" = 1 ] && grep -q "line 3 in $HOME/.perfconfig" prec.err &&
	grep -q "^# Children      Self  " prec.out'
rm -f "$HOME/.perfconfig"

# 2. the columns, laid out as perf lays them out (rows under 0.5% aside: ties among them)
for f in plain pplain chains pchains; do
	for a in "-n" "--show-total-period" "--show-cpu-utilization" \
		"-n --show-total-period --show-cpu-utilization" "-t," "--field-separator=: -n" \
		"--showcpuutilization"; do
		test_expect "$f: $a is perf's" "same $f.data --percent-limit 0.5 -g none $a"
	done
done
test_expect "-t and call graphs: perf's" 'same chains.data --no-children --percent-limit 5 -t "|" -n'
test_expect "-t: a separator inside a value becomes a dot" '
	same plain.data --percent-limit 1 -t _ -s sym && grep -q "hot\.a" prec.tab'
test_expect "-q: the rows alone, no heading or column titles, in every event's table, as perf's" '
	for f in plain chains multi; do
		# -g none: the call graphs order their ties as they please (same() allows for that)
		for a in "-s comm -n -t ;" "-s comm,dso --no-children" "--hierarchy -s comm,dso"; do
			perf_clean perf report --stdio -q -g none -i $f.data $a >perf.q &&
			prec_ok prec.q $f.data -q -g none $a && diff -u perf.q prec.q || return 1
		done
	done
	! grep -q "^#" prec.q
'
test_expect "--percentage relative: of what --comm lets through, as perf's" '
	same multi.data --comm hot3 --percentage relative --percent-limit 1 -g none --no-children &&
	prec_ok all.out multi.data --comm hot3 --percentage relative -g none --no-children &&
	# each row is rounded to 0.01: the sum is 100 within half of that per row
	awk "/^ *[0-9.]+%/ {s += \$1; n++}
		END {d = 0.005 * n + 0.01; exit !(s > 100 - d && s < 100 + d)}" all.out'
test_expect "--percentage absolute: of everything, the default" '
	same multi.data --comm hot3 --percentage absolute --percent-limit 1 -g none --no-children &&
	cp prec.tab abs.tab && same multi.data --comm hot3 --percent-limit 1 -g none --no-children &&
	cmp abs.tab prec.tab &&
	prec_ok all.out multi.data --comm hot3 -g none --no-children &&
	awk "/^ *[0-9.]+%/ {s += \$1} END {exit !(s < 99)}" all.out'
test_expect "the options are in the usage" '
	"$PREC" report -h >usage &&
	for o in --show-nr-samples --show-total-period --show-cpu-utilization \
		--field-separator --percentage; do
		grep -q -- "$o" usage || fail "$o"; done'

done_testing
