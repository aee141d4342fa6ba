#!/bin/bash
# t1020: every option that `prec stat -h` lists is documented in man/prec-stat.1 and every
# option the man page documents is in the usage; -h exits 0 on stdout, a bad option is one line
# and perf stat's status 129.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

MAN=$PREC_SRC/man/prec-stat.1
[ -r "$MAN" ] || skip_all "no man/prec-stat.1"

"$PREC" stat -h >usage.out 2>usage.err
h_rc=$?

test_expect "prec stat -h prints the usage on stdout and exits 0" '
	test $h_rc = 0 && no_stderr usage.err && grep -q "^usage: prec stat" usage.out
'

usage_options usage.out >options
# The man page's options: its .TP headings in OPTIONS, roff escapes removed.
awk '/^\.SH / { on = $2 == "OPTIONS" } on && /^\.TP/ { getline; print }' "$MAN" |
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | grep -oE '(^|[ ,"])--?[a-zA-Z][a-z-]*' |
	sed -E 's/^[ ,"]//' | sort -u >man.options

test_expect "the usage lists perf stat's options (at least 15)" '
	test "$(wc -l <options)" -ge 15 || { cat options; false; }
'
while read -r opt; do
	test_expect "$opt is documented in prec-stat(1)" 'grep -qx -- "'"$opt"'" man.options'
done <options
while read -r opt; do
	test_expect "$opt of prec-stat(1) is in the usage" 'grep -qx -- "'"$opt"'" options'
done <man.options

test_expect "an unknown option is one line on stderr and status 129" '
	"$PREC" stat --no-such-option -- true >out 2>err; rc=$?
	test $rc = 129 && test "$(wc -l <err)" = 1 && grep -q "no-such-option" err
'
test_expect "a missing value is one line and status 129" '
	"$PREC" stat -x 2>err; rc=$?
	test $rc = 129 && test "$(wc -l <err)" = 1
'
test_expect "prec help stat prints the usage" '
	"$PREC" help stat >help.out && diff usage.out help.out
'

done_testing
