#!/bin/bash
# t2010: perf report's input and filter options in prec report, each run against perf report
# --stdio --no-children on the same file (recorded by perf and by prec, without and with -g):
# --dsos, --symbols, --symbol-filter (and the argument that stands for it), --hide-unresolved,
# --time in its absolute and percent forms, --max-stack, -G, --header and -I, --tasks, --symfs,
# --kallsyms, --no-demangle; and the options refused in one line.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"
# What the reports read besides the recordings stays as it is: each is run once (cached).
REPORT_CACHE=1

test_expect "--time that is not a time range" '
	usage_error --time abc && grep -q "not a time range" err'
test_expect "--time with a percent item of another kind" '
	usage_error --time 10%/2,0%-10% && grep -q "not a time range" err'
test_expect "--time ranges that overlap" '
	usage_error --time "1.5,3 2,4" && grep -q "not a time range" err'
test_expect "--max-stack that is not a number" '
	usage_error --max-stack abc && grep -q "not a number" err'
test_expect "--kallsyms that cannot be read" '
	usage_error --kallsyms /nonexistent/kallsyms && grep -q "cannot read" err'
test_expect "-k/--vmlinux is refused, saying why" 'usage_error -k vmlinux && grep -q kallsyms err'
test_expect "a perf option prec lacks is named as perf's" '
	usage_error --itrace=i && grep -q "perf report has it" err &&
	usage_error -T && grep -q "perf report has it" err &&
	usage_error --no-such-option && ! grep -q "perf report has it" err'
test_expect "the options are in the usage" '
	"$PREC" report -h >usage &&
	for o in --dsos --symbols --symbol-filter --hide-unresolved --time --max-stack \
		--inverted --header --show-info --symfs --kallsyms --no-demangle \
		--ignore-vmlinux; do grep -q -- "$o" usage || fail "$o"; done'

if ! have root || ! have perf || ! have python || [ ! -x "$W" ]; then
	test_skip "the options on recorded files" "needs root, perf, python and hot3"
	done_testing
	exit
fi

# pk: hot3, then KWORK (lib.sh) in the kernel, for the checks that need kernel rows (hot3 alone
# has a few samples of its start and exit there, sometimes none).
test_expect "perf and prec record hot3, without and with -g" '
	rec_perf pp -- "$W" -c 0.3 && rec_perf pg -g -- "$W" -c 0.3 &&
	rec_prec cp -- "$W" -c 0.3 && rec_prec cg -g -- "$W" -c 0.3 &&
	rec_perf pk -- sh -c "\"$W\" -c 0.1; ${KWORK[*]}"'

# strip_slices FILE: the table without the "(time slices: ...)" of its Samples lines.
strip_slices() {
	sed 's/ (time slices: .*)$//' "$1"
}

# same_time FILE ARGS...: the table is perf's, and so are the Samples lines that name the slices.
same_time() {
	local file=$1
	shift
	perf_clean perf report -i "$file" --stdio --no-children "$@" >perf.out || return 1
	prec_ok prec.out "$file" --no-children "$@" || return 1
	grep "^# Samples: .*(time slices: " perf.out >perf.samples &&
		grep "^# Samples: .*(time slices: " prec.out >prec.samples ||
		fail "no Samples line naming the slices" || return 1
	diff perf.samples prec.samples || return 1
	strip_slices perf.out >perf.t && strip_slices prec.out >prec.t &&
		"$PYTHON" "$CMP" table perf.t prec.t
}

# fewer FILE ARGS...: the last prec.out has fewer samples than the whole FILE.
fewer() {
	local n all
	n=$(awk '/^# [0-9]+ samples in/ {print $2}' prec.out)
	all=$(cached "$1" "$PREC" report -i "$1" 2>/dev/null | awk '/^# [0-9]+ samples in/ {print $2}')
	[ -n "$n" ] && [ -n "$all" ] || fail "no sample count" || return 1
	awk -v a="$all" '/^# Samples: / {gsub(/K/, "000", $3); if ($3 + 0 >= a) exit 1}' \
		prec.out || fail "the slices hold all $all samples"
}

# The row filters on a file of perf without chains and one of prec with them.
for f in pp cg; do
	test_expect "$f: --dsos of one binary: perf's rows, its column left out" '
		same_table '$f'.data --dsos hot3 && grep -q "^# dso: hot3$" prec.out &&
		! grep -q "Shared Object" prec.out'
	test_expect "$f: -d of two binaries: perf's rows, percentages of the whole" '
		same_table '$f'.data -d hot3,libc.so.6 && grep -q "Shared Object" prec.out'
	test_expect "$f: --symbols; with one name of each list, no column is left out" '
		same_table '$f'.data --symbols hot_a,hot_b &&
		same_table '$f'.data -S hot_a --dsos hot3 --comm hot3 &&
		grep -q "^# symbol: hot_a$" prec.out &&
		grep -q "^# Overhead  Command  Shared Object  Symbol" prec.out'
	test_expect "$f: --symbol-filter, and an argument for it" '
		same_table '$f'.data --symbol-filter hot_ && cp prec.out a.out &&
		prec_ok b.out '$f'.data --no-children hot_ && cmp a.out b.out &&
		same_table '$f'.data --symbol-filter=HOT_'
done

test_expect "cg: the children view shows only the rows the filter names, as perf" '
	prec_ok prec.out cg.data --children -g none --symbol-filter hot_ &&
	grep "%" prec.out | grep -v "^#" | grep -v "\[prec:" >rows && grep -q "hot_a" rows &&
	! grep -v "\] hot_" rows &&
	perf_clean perf report -i cg.data --stdio --children -g none --symbol-filter hot_ >perf.out &&
	grep "%" perf.out | grep -v "^#" | grep -v "\[prec:" | awk "{print \$NF}" | sort >perf.s &&
	awk "{print \$NF}" rows | sort >prec.s && diff perf.s prec.s'

test_expect "pg: --time in percent slices" '
	same_time pg.data --time 10%/2 && fewer pg.data &&
	same_time pg.data --time 0%-10%,30%-40% && same_time pg.data --time 10%/2,10%/4'
test_expect "cp: --time in a percent and in seconds, one range and two" '
	same_time cp.data --time 25% && fewer cp.data &&
	perf script -i cp.data -F time 2>/dev/null | tr -d " :" | sort -n >times &&
	n=$(wc -l <times) && [ "$n" -gt 100 ] &&
	a=$(sed -n "$((n / 5))p" times) && b=$(sed -n "$((n / 2))p" times) &&
	c=$(sed -n "$((n * 3 / 5))p" times) && d=$(sed -n "$((n * 4 / 5))p" times) &&
	same_time cp.data --time "$a,$b" && fewer cp.data &&
	same_time cp.data --time "$a,$b $c,$d"'

test_expect "pg: --max-stack cuts the call graphs as perf's" '
	same_graph pg.data 6 --max-stack 2 && ! grep -q "^ *main$" prec.out'
test_expect "pg: -G is -g caller, and --max-stack then keeps the callers" '
	same_graph pg.data 6 -G && cp prec.out a.out &&
	prec_ok b.out pg.data --no-children -g caller && cmp a.out b.out &&
	same_graph pg.data 6 -G --max-stack 2 && ! grep -q "^ *hot_a$" prec.out'
test_expect "cg: --max-stack 1 and 0" '
	same_graph cg.data 6 --max-stack 1 && same_table cg.data --max-stack 0'

# A symfs that holds hot3 alone: libc, ld.so and the kernel are left unresolved.
test_expect "a symfs with hot3 alone" '
	mkdir -p "sf$(dirname "$W")" empty && cp "$W" "sf$W"'
test_expect "pk: --symfs: what it lacks is unresolved, and -U drops it, as in perf" '
	same_table pk.data --symfs sf && grep -q "\[k\] 0xf" prec.out &&
	same_table pk.data --symfs sf --hide-unresolved && grep -q "hot_a" prec.out &&
	! grep -q "\[k\] 0x\|\[unknown\]" prec.out'
test_expect "cg: --symfs, an empty one, and -U in the tables and call graphs" '
	same_table cg.data --symfs empty && ! grep -q "\[.\] hot_a" prec.out &&
	same_graph cg.data 4 --symfs sf -U && ! grep -q "\[k\] 0x\|\[unknown\]" prec.out'

test_expect "--kallsyms: a kallsyms without the leading kernel symbol" '
	k=$("$PREC" report -q -i pk.data --dsos "[kernel.kallsyms]" -g none |
		awk "/\[k\]/ {print \$NF; exit}") && [ -n "$k" ] &&
	grep -v " $k\$" /proc/kallsyms >ks && same_table pk.data --kallsyms ks &&
	! grep -q "\[k\] $k\$" prec.out && same_table pk.data --symfs sf --kallsyms ks &&
	grep -q "\[k\] [a-z_]" prec.out'

test_expect "--header with --stats: perf's header, then the counts" '
	perf_clean perf report -i pp.data --header --stats >perf.out &&
	prec_ok prec.out pp.data --header --stats && grep -v "^# feature bit" prec.out >prec.h &&
	diff perf.out prec.h && grep -q "^# captured on" prec.h && grep -q "SAMPLE events:" prec.h'
test_expect "--header: perf's header, then the table" '
	perf_clean perf report -i pp.data --stdio --no-children --header >perf.out &&
	prec_ok prec.out pp.data --header &&
	sed -n "1,/^# ========\$/{p}; /^# ========\$/,/^# ========\$/p" perf.out | uniq >perf.h &&
	sed -n "1,/^# ========\$/{p}; /^# ========\$/,/^# ========\$/p" prec.out | uniq |
		grep -v "^# feature bit" >prec.h &&
	diff perf.h prec.h && "$PYTHON" "$CMP" table perf.out prec.out &&
	! grep -q "To display the perf.data header" prec.out'
for f in pp cp; do
	test_expect "$f: -I prints the topology as perf -I does" '
		perf_clean perf report -i '$f'.data --stdio --header-only -I >perf.out &&
		prec_ok prec.out '$f'.data --header-only -I &&
		grep -v "^# feature bit" prec.out | diff perf.out - &&
		grep -q "^# CPU 0: Core ID" prec.out &&
		prec_ok plain.out '$f'.data --header-only && grep -q "use -I to display" plain.out'
done
test_expect "--header on a pipe-mode file: one line, exit 1" '
	perf record -q -e cpu-clock -o - -- "$W" -c 0.05 >pipe.data 2>/dev/null &&
	! "$PREC" report -i pipe.data --header >out 2>err && [ "$(wc -l <err)" = 1 ]'

# A tree of processes: sh starts a shell that runs ls and sleep, and hot3 beside it.
test_expect "perf and prec record a tree of processes" '
	cat >tree.sh <<-EOF &&
	#!/bin/sh
	sh -c "ls >/dev/null; sleep 0.05" &
	"$W" -c 0.05 &
	wait
	EOF
	chmod +x tree.sh && rec_perf ptree -- ./tree.sh && rec_prec ctree -- ./tree.sh'
for f in ptree ctree; do
	test_expect "$f: --tasks lists the threads under their parents as perf does" '
		perf_clean perf report -i '$f'.data --tasks >perf.out &&
		prec_ok prec.out '$f'.data --tasks && diff perf.out prec.out &&
		grep -q "^ .* |  ls$" prec.out'
done

# C++ names
test_expect "a C++ program is built and recorded by perf" '
	cxx_spin cxx -O1 -fno-omit-frame-pointer &&
	perf record -q -e cpu-clock -F 4000 -o cxx.data -- ./cxx >/dev/null 2>&1'
test_expect "C++ names: demangled by default, mangled with --no-demangle, as perf" '
	same_table cxx.data && grep -q "ns::W::spin" prec.out &&
	same_table cxx.data --no-demangle && grep -q "_ZN2ns1W4spinEl" prec.out &&
	same_table cxx.data --no-demangle --demangle && grep -q "ns::W::spin" prec.out'

done_testing
