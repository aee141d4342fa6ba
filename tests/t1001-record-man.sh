#!/bin/bash
# t1001: every option that `prec record -h` lists is documented in man/prec-record.1, and the
# usage itself behaves: -h exits 0 on stdout, an unknown option is one line and exit 2.
. "$(dirname "$0")/lib.sh"

MAN=$PREC_SRC/man/prec-record.1
[ -r "$MAN" ] || skip_all "no man/prec-record.1"

"$PREC" record -h >usage.out 2>usage.err
h_rc=$?

test_expect "prec record -h prints the usage on stdout and exits 0" '
	test $h_rc = 0 && no_stderr usage.err && grep -q "^usage: prec record" usage.out
'

usage_options usage.out >options
# The man page's option headings (.TP then .B/.BR lines), roff escapes removed.
awk '/^\.TP/ { getline; print }' "$MAN" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' >man.headings

test_expect "the usage lists options (at least the 20 perf ones prec has)" '
	test "$(wc -l <options)" -ge 20 || { cat options; false; }
'

while read -r opt; do
	test_expect "$opt is documented in prec-record(1)" '
		grep -Eq -- "(^|[ ,\"])'"$opt"'([ ,=\"]|\$)" man.headings
	'
done <options

test_expect "an unknown option is one line on stderr and exit 2" '
	"$PREC" record --no-such-option -- true >out 2>err; rc=$?
	test $rc = 2 && test "$(wc -l <err)" = 1 && grep -q "no-such-option" err && ! test -e perf.data
'
test_expect "a missing value is one line and exit 2" '
	"$PREC" record -F 2>err; rc=$?
	test $rc = 2 && test "$(wc -l <err)" = 1
'

done_testing
