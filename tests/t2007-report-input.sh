#!/bin/bash
# t2007: every view of prec report reads its file through one input layer, so they all say the
# same of a file its writer did not finish: one warning, in the words of man/prec-report.1 (FILES
# NOT FINISHED), with the same count of records read whatever the view, and exit status 0; and of
# a file cut after it was written: one error line, exit status 1. --overhead and --counters
# included, which open the file like the others.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python

W=$PREC_BUILD/tests/workloads/hot3
MKSTAT=$PREC_BUILD/tests/mkstat
[ -x "$W" ] || skip_all "the hot3 workload is not built"
[ -x "$MKSTAT" ] || skip_all "tests/mkstat is not built (make check builds it)"

perf record -q -e cpu-clock -o good.data -- "$W" 0.2 >/dev/null 2>&1 || skip_all "perf record failed"
"$MKSTAT" mux mux.data >/dev/null || skip_all "mkstat failed"

# killed.data and killedstat.data: data size 0, as a killed writer leaves it; half.data: the
# data section cut in half, its size left as it was.
"$PYTHON" - <<'PY' || skip_all "could not make the unfinished files"
import struct
for src, killed, half in (('good.data', 'killed.data', 'half.data'),
                          ('mux.data', 'killedstat.data', None)):
    d = bytearray(open(src, 'rb').read())
    _, _, _, _, _, do, dsz = struct.unpack_from('<7Q', d)
    k = bytearray(d[:do + dsz])
    struct.pack_into('<Q', k, 48, 0)
    open(killed, 'wb').write(k)
    if half:
        open(half, 'wb').write(d[:do + dsz // 2])
PY

WARNING='^prec: warning: %s was not finished by its writer; read [0-9]* records ([0-9]* bytes) up to offset 0x[0-9a-f]*$'

# unfinished FILE VIEW...: exit 0 and one line on stderr, the warning; its count in FILE.VIEW.n
unfinished() {
	local f=$1 v rc
	shift
	for v in "$@"; do
		"$PREC" report -i "$f" $v >out 2>err
		rc=$?
		[ $rc = 0 ] || { cat err; fail "$f ${v:-(profile)}: exit $rc"; } || return 1
		[ "$(wc -l <err)" = 1 ] && grep -q "$(printf "$WARNING" "$f")" err ||
			{ cat err; fail "$f ${v:-(profile)}: not the one warning"; } || return 1
		[ -s out ] || fail "$f ${v:-(profile)}: nothing on stdout" || return 1
		sed -n 's/.*; read \([0-9]*\) records.*/\1/p' err >"$f.${v:-profile}.n"
	done
}

test_expect "--overhead says an unfinished file as the other views do" '
	unfinished killed.data --overhead'
test_expect "--counters says an unfinished file as the other views do" '
	unfinished killedstat.data --counters'
test_expect "every view counts the same records of an unfinished file" '
	unfinished killed.data --stats -D --header-only "" --overhead &&
	[ "$(cat killed.data.*.n | sort -u | wc -l)" = 1 ] || { head killed.data.*.n; false; }'
test_expect "--overhead and --counters: a file cut short is one error, exit 1" '
	for v in --overhead --counters; do
		"$PREC" report -i half.data $v >/dev/null 2>err; rc=$?
		[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] || { cat err; fail "$v: exit $rc"; } || exit 1
		case $v in --overhead)
			grep -q "^prec: half.data: the file is cut short: .*; read [0-9]* records" err ||
				{ cat err; fail "$v: not the cut-short error"; } || exit 1 ;;
		esac
	done'
test_expect "a pipe that stops inside a record: --overhead warns as the others do" '
	perf record -q -e cpu-clock -o - -- "$W" 0.2 2>/dev/null >pipe.data &&
	size=$(stat -c %s pipe.data) && head -c $((size - 5)) pipe.data |
	"$PREC" report -i - --overhead >/dev/null 2>err &&
	[ "$(wc -l <err)" = 1 ] && grep -q "$(printf "$WARNING" stdin)" err || { cat err; false; }'

done_testing
