#!/bin/bash
# t1009: man/prec.1 names every command of prec.c's table and every environment variable that
# prec's sources read with getenv(), and every manual page in man/ is installed.
. "$(dirname "$0")/lib.sh"

MAN=$PREC_SRC/man/prec.1
[ -r "$MAN" ] || skip_all "no man/prec.1"

# in_section SECTION WHAT FILE: each word of FILE is a heading (.B or .BR) in that section of
# prec(1); WHAT names it in the test's description.
in_section() {
	awk -v s="$1" '/^\.SH / { on = $2 == s } on' "$MAN" >"$1.section"
	while read -r word; do
		test_expect "$2 $word is in prec(1), section $1" '
			grep -Eq "^\.BR? $word( |\$)" "'"$1"'.section"
		'
	done <"$3"
}

# The commands: the entries of the table in prec.c, { "name", cmd_... }.
sed -nE 's/^[[:space:]]*\{ *"([a-z][a-z-]*)", *cmd_.*/\1/p' "$PREC_SRC/prec.c" | sort -u >commands
test_expect "prec.c's command table is found (record and report at least)" '
	grep -qx record commands && grep -qx report commands || { cat commands; false; }
'
in_section COMMANDS command commands
test_expect "prec help lists the same commands" '
	"$PREC" help >help.out &&
	sed -nE "s/^   ([a-z][a-z-]*) .*/\1/p" help.out | sort -u >help.commands &&
	diff commands help.commands
'

# The environment: every getenv("NAME") in the sources of prec (not its tests).
(cd "$PREC_SRC" && find prec.c util format overhead record report -name '*.[ch]' \
	-exec grep -hoE '(secure_)?getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' {} +) |
	sed -E 's/.*\("(.*)"\)/\1/' | sort -u >variables
test_expect "getenv() calls are found in the sources (HOME at least)" '
	grep -qx HOME variables || { cat variables; false; }
'
in_section ENVIRONMENT "environment variable" variables

test_expect "prec(1) points to prec-record(1), prec-report(1) and prec-data(5)" '
	grep -q "^\.BR prec\\\\-record (1)" "$MAN" && grep -q "^\.BR prec\\\\-report (1)" "$MAN" &&
	grep -q "^\.BR prec\\\\-data (5)" "$MAN"
'

# Every page in man/ is installed: dist_man_MANS in Makefile.am names it.
for page in "$PREC_SRC"/man/*.[1-9]; do
	name=man/${page##*/}
	test_expect "$name is in dist_man_MANS" '
		grep -Eq "^dist_man_MANS \+?= .*$name( |\$)" "$PREC_SRC/Makefile.am"
	'
done

done_testing
