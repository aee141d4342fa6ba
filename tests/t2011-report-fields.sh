#!/bin/bash
# t2011: perf report's -F/--fields and --hierarchy in prec report, against perf report --stdio
# on the same files (recorded by perf and by prec, with and without -g): the columns -F names,
# in its order, the sort keys taken from it, '+' to add to the default columns; the hierarchy's
# levels, titles, indentation, limits and call graphs; and what both refuse.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

test_expect "-F: an unknown field is one line naming it" '
	usage_error -i none.data -F overhead,nosuch && grep -q "nosuch" err'
test_expect "-F: a sort key of perf that prec lacks is named as perf's" '
	usage_error -i none.data -F overhead,socket && grep -q "socket.*perf report'"'"'s" err'
test_expect "-F: '+' alone names no field" 'usage_error -i none.data -F +'
test_expect "--hierarchy and -F together are refused, as perf refuses them" '
	usage_error -i none.data --hierarchy -F overhead,sym && grep -q hierarchy err'
test_expect "the options are in the usage" '
	"$PREC" report -h >usage && grep -q -- "--fields" usage && grep -q -- "--hierarchy" usage'

if ! have root || ! have perf || [ ! -x "$W" ]; then
	test_skip "the options on recorded files" "needs root, perf and hot3"
	done_testing
	exit
fi

# perf's configuration: nothing of the machine's.
unset PERF_CONFIG PERF_CONFIG_NOSYSTEM PERF_CONFIG_NOGLOBAL
export HOME=$T/home
mkdir -p "$HOME"

test_expect "perf and prec record hot3 with and without -g" '
	rec_perf plain -- "$W" -c 0.2 && rec_perf chains -g -- "$W" 0.2 &&
	rec_prec pplain -- "$W" -c 0.2 && rec_prec pchains -g -- "$W" 0.2'

# 1. -F: rows under 0.5% aside (ties among the addresses that only call chains reach, in the
# children view, are another matter), and graphs in the plain view (the children view orders
# rows of equal Children shares by the depth of their call chains, another matter too).
for f in plain pchains; do
	for a in "-F overhead,sample,period,overhead_sys,overhead_us,comm,dso" \
		"-F +sample,period -s sym" "-F sym -s sym" "-F overhead,sym -s dso" \
		"-F sym,overhead -t ," "-F ov,SYM,Dso" "-F overhead_children,overhead,sym" \
		"-F overhead_guest_sys,overhead_guest_us,sym,pid -n"; do
		test_expect "$f: $a is perf's" "same $f.data -g none --percent-limit 0.5 $a"
	done
done
for f in pplain chains; do
	for a in "-F overhead,sym" "-F +sample -s dso,sym" "-F sym,sample -t ,"; do
		test_expect "$f: $a is perf's" "same $f.data -g none --percent-limit 0.5 $a"
	done
done
for f in chains pchains; do
	test_expect "$f: -F with call graphs is perf's" "
		same $f.data --no-children -F overhead,sym -g caller &&
		same $f.data --no-children -F overhead,dso,sym -s sym --percent-limit 2"
	test_expect "$f: -F in the children view: the rows only call chains reach, at 0%" "
		same $f.data -g none --percent-limit 0.5 -F overhead,sym && grep -q '^     0.00%  ' prec.tab"
done
test_expect "-F without -s: the rows are grouped by -F's keys only" '
	same plain.data -g none -F overhead,dso && [ "$(grep -c "%" prec.tab)" -le 6 ] &&
	same plain.data -g none -F overhead && grep -q "^   100.00%$" prec.tab'
test_expect "-F sym,overhead: the rows are ordered by name first, as perf's" '
	same plain.data -g none -F sym,overhead &&
	grep "^\[" prec.tab | cut -c5- | cut -d" " -f1 >names && LC_ALL=C sort -c names'

# 2. --hierarchy
for f in pplain chains; do
	for a in "" "-n -s sym,dso" "-s dso,comm --percent-limit 3 --show-total-period" \
		"-s dso,pid,cpu -t ," "--show-cpu-utilization -s pid,sym --percent-limit 1"; do
		test_expect "$f: --hierarchy $a is perf's" "same $f.data -g none --hierarchy $a"
	done
done
for f in chains pchains; do
	for a in "" "-g callee,1" "-g flat --percent-limit 5" "-s sym --percent-limit 5"; do
		test_expect "$f: --hierarchy $a with call graphs is perf's" "same $f.data --hierarchy $a"
	done
done
test_expect "--hierarchy: a level the limit empties says so, as perf" '
	same plain.data -g none --hierarchy --percent-limit 60 &&
	grep -q "^ *no entry >= 60.00%$" prec.tab'
test_expect "--hierarchy: the levels are indented by three" '
	same plain.data -g none --hierarchy &&
	grep -q "^   100.00%        hot3 *$" prec.tab && grep -q "^          [ 0-9.]*%        \[\.\] hot_a$" prec.tab'

# 3. -p/--parent, the sort key parent and -x, on the files with call chains
for f in chains pchains; do
	for a in "-p run_round" "-p 'hot_[ab]|main' -x -s parent,sym" "-s sym,parent" \
		"--hierarchy -s parent,sym -p run_round"; do
		test_expect "$f: $a is perf's" "same $f.data --no-children -g none $a"
	done
	test_expect "$f: -p with call graphs in caller order is perf's" "
		same $f.data --no-children -g caller -p main -x"

	test_expect "$f: -p in the children view: every row a chain reaches has its parent" "
		same $f.data -g none -p run_round -x --percent-limit 0.5 &&
		grep -q ' main  *run_round *$' prec.tab && ! grep -q other prec.tab"
done
# hot_c runs under main alone: without main in the expression it has no parent, whatever else
# (a sample or two of the program's start) the recording caught.
test_expect "-p: the first matching function from the sampled one out, [other] for none" '
	same chains.data --no-children -g none -p "hot_[ab]|main" -s sym,parent &&
	grep -q "hot_a  *hot_a *$" prec.tab && grep -q "hot_c  *main *$" prec.tab &&
	same chains.data --no-children -g none -p "hot_[ab]" -s sym,parent &&
	grep -q "hot_a  *hot_a *$" prec.tab && grep -q "hot_c  *\[other\] *$" prec.tab'
test_expect "-p: a regular expression that does not compile is one line" '
	usage_error -i none.data -p "(" && grep -q "(" err'
test_expect "the sort key parent on a file without call chains: one line, as perf refuses it" '
	"$PREC" report -i plain.data -s parent >out 2>err; [ $? = 1 ] &&
	[ "$(wc -l <err)" = 1 ] && grep -q "record with -g" err &&
	same plain.data -F overhead,parent -s sym'

# 4. the sort key srcline, on a program built with -g here, on hot3 and on the kernel (no line
# tables: perf's symbol+offset). Other binaries aside: for lines of header files in DWARF 5 the
# binutils addr2line that perf runs may name the unit's file instead.
cat >lines.c <<'CEOF'
static volatile unsigned long sink;

__attribute__((noinline)) static void one(void)
{
	for (int i = 0; i < 2000; i++)
		sink += i;
}

__attribute__((noinline)) static void two(void)
{
	for (int i = 0; i < 1000; i++)
		sink ^= i;
}

int main(void)
{
	for (long n = 0; n < 200000; n++) {
		one();
		two();
	}
	return 0;
}
CEOF
if ! grep -q '^#define HAVE_LIBDW 1' "$PREC_BUILD/config.h" || ! command -v cc >/dev/null; then
	test_skip "the sort key srcline" "needs prec built with libdw and a C compiler"
	done_testing
	exit
fi
# rows FILE ARGS...: the rows of the binaries whose lines both read (lines, hot3, the kernel),
# blanks squeezed (the column is as wide as the widest line of any binary). perf measures the
# column before it has looked up the line of a row that is alone in its binary (it looks a line up
# to tell two rows of one binary apart), and then cuts that row's line to the column: prec shows
# it whole. The lines are compared at the width of perf's column.
rows() {
	local w
	same "$@" >/dev/null 2>&1
	w=$(awk '/^# \.\./ { print length($NF); exit }' perf.tab)
	for t in perf prec; do
		grep -e '  lines  ' -e '  hot3  ' -e 'kernel.kallsyms' $t.tab | tr -s ' ' |
			awk -v w="$w" '{ if (w && length($NF) > w) $NF = substr($NF, 1, w); $1 = $1
				print }' >$t.rows
	done
	[ -s prec.rows ] || fail "no rows" || return 1
	diff perf.rows prec.rows >&2 || fail "not perf's rows for: $*"
}
# squeezed FILE ARGS...: the rows (not the titles) are perf's, blanks squeezed.
squeezed() {
	same "$@" >/dev/null 2>&1
	for t in perf prec; do
		grep -v '^#' $t.tab | tr -s ' ' >$t.rows
	done
	[ -s prec.rows ] || fail "no rows" || return 1
	diff perf.rows prec.rows >&2 || fail "not perf's rows for: $*"
}
test_expect "a program built with -g here, recorded by perf and prec" '
	cc -g -O1 -o lines lines.c && rec_perf lperf -- ./lines && rec_prec lprec -- ./lines'
for f in lperf lprec plain pchains; do
	test_expect "$f: -s dso,srcline: the lines perf shows" "
		rows $f.data --no-children -g none -s dso,srcline -n && grep -q ':[0-9]' prec.rows"
done
test_expect "the lines are those of the source: the two loops" '
	squeezed lperf.data --no-children -g none -s srcline,sym --percent-limit 5 &&
	grep -q "lines.c:6 .*one" prec.rows && grep -q "lines.c:12 .*two" prec.rows'
# The kernel's rows are a few samples of the programs' start and faults: the first of perf's
# recordings that caught one. prec.tab, whole: the rows compared are cut to perf's column, which
# may end before the offset.
test_expect "the kernel has no line tables: symbol+offset, as perf" '
	for f in plain chains lperf; do
		rows $f.data --no-children -g none -s dso,srcline || exit 1
		grep -q kernel.kallsyms perf.tab && break
	done &&
	grep -q "kernel.kallsyms.*+[0-9]" prec.tab'
test_expect "-F and --hierarchy take srcline too" '
	rows lperf.data --no-children -g none -F overhead,dso,srcline,sym &&
	squeezed lperf.data --no-children -g none --hierarchy -s srcline,sym --percent-limit 5 &&
	grep -q "lines.c:6" prec.rows'
test_expect "srcline in the children view: refused in one line, not a wrong table" '
	"$PREC" report -i chains.data -s srcline >out 2>err; [ $? = 1 ] &&
	[ "$(wc -l <err)" = 1 ] && grep -q "no-children" err'

done_testing
