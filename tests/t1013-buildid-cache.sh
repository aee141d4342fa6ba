#!/bin/bash
# t1013: the build-id cache prec record fills, judged by perf 6.1. A program built here is
# recorded by prec; its cache entry has the layout perf record gives the same binary; after the
# program is rebuilt with other symbols, and after it is removed, perf report and prec report
# still name the recorded program's function, from the cache. An entry that is there is not
# copied again; -N, -B, -z and pipe mode fill no cache, as perf's; --buildid-dir and perf's
# buildid.dir choose the directory, PERF_BUILDID_DIR does not (perf does not read it);
# --buildid-all and --buildid-mmap do what perf's do. Every cache is in the test's directory.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf
command -v cc >/dev/null || skip_all "no C compiler"

# A HOME of the test's own for every recorder and reader; no overhead collector, whose
# calibrations would be measured anew in each new HOME.
mkdir -p home
export HOME=$T/home
unset PERF_CONFIG PERF_BUILDID_DIR
PR="-q -e cpu-clock -F 4000"
R="$PR --overhead-source none"

# build FN: ./prog, the bundled hot3 whose hottest function (hot_a) is named FN: each name gives
# another build-id
build() {
	rm -f prog &&
	cc -O1 -g -Dhot_a="$1" -Wl,--build-id -o prog "$PREC_SRC/tests/workloads/hot3.c"
}

# bid FILE: the build-id of an ELF file, as perf reads it
bid() {
	perf buildid-list -i "$1" 2>/dev/null
}

# entry DIR NAME BID: the cache entry of NAME (an absolute path) in DIR
entry() {
	echo "$1$2/$3"
}

# tree DIR: the cache's layout under DIR, with this machine's parts of names left out: one line
# per file, directory or link (and its target)
tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p %l\n' | sort)
}

# top_sym DATA: the function of the most samples in prog, as perf report names it
perf_top_sym() {
	perf report -i "$1" --stdio --no-children --sort dso,sym 2>/dev/null |
		awk '$2 == "prog" && $3 == "[.]" { print $4; exit }'
}

prec_top_sym() {
	"$PREC" report -i "$1" --sort dso,sym -g none 2>/dev/null |
		awk '$2 == "prog" && $3 == "[.]" { print $4; exit }'
}

test_expect "the program, built with a build-id" '
	build spin_first && [ -n "$(bid prog)" ]'
B1=$(bid prog)

# --- the cache prec fills, against perf's ---------------------------------------------------------

test_expect "prec record fills ~/.debug: the program by path and build-id, and the link" '
	"$PREC" record $R -o prec.data ./prog 0.3 &&
	test -f "$(entry home/.debug "$T/prog" "$B1")/elf" &&
	cmp prog "$(entry home/.debug "$T/prog" "$B1")/elf" &&
	[ "$(readlink "home/.debug/.build-id/${B1:0:2}/${B1:2}")" = "../..$T/prog/$B1" ] &&
	test -f "home/.debug/.build-id/${B1:0:2}/${B1:2}/elf"'

test_expect "the program's entry and link are laid out as perf record lays them out" '
	mkdir -p phome && HOME=$T/phome perf record $PR -o perf.data ./prog 0.3 2>/dev/null &&
	tree phome/.debug | grep -F -e "$B1" -e "${B1:2}" >want &&
	tree home/.debug | grep -F -e "$B1" -e "${B1:2}" >got && test -s want &&
	diff want got'

# The kernel is cached when the recording has samples in it: KWORK's (lib.sh; prog has a few
# samples of its start and exit in the kernel, sometimes none).
KBID=$(perf buildid-list -k 2>/dev/null)
test_expect "the kernel: [kernel.kallsyms]/BUILD-ID/kallsyms, as perf, and its link" '
	"$PREC" record $R -o k.data "${KWORK[@]}" &&
	HOME=$T/phome perf record $PR -o pk.data "${KWORK[@]}" &&
	perf buildid-list -i k.data 2>/dev/null | grep -q kallsyms &&
	[ -n "$KBID" ] && tree phome/.debug | grep -F "$KBID" >want &&
	tree home/.debug | grep -F "$KBID" >got && diff want got &&
	grep -q " _text$" "home/.debug/[kernel.kallsyms]/$KBID/kallsyms"'

test_expect "a second recording copies nothing already there: the entry is kept as it is" '
	e=$(entry home/.debug "$T/prog" "$B1")/elf && cp "$e" e.copy && mv e.copy "$e" &&
	ino=$(stat -c %i "$e") &&
	"$PREC" record $R -v -o again.data ./prog 0.1 2>again.err &&
	[ "$(stat -c %i "$e")" = "$ino" ] &&
	grep -q "^prec: build-id cache .*: [1-9][0-9]* binaries, [0-9]* added (" again.err'

# --- after a rebuild, and after removal -----------------------------------------------------------

test_expect "the program rebuilt with other symbols: a new build-id" '
	build spin_second && B2=$(bid prog) && [ -n "$B2" ] && [ "$B2" != "$B1" ]'

test_expect "perf report names the recorded function from the cache, not the new file" '
	[ "$(perf_top_sym prec.data)" = spin_first ]'

test_expect "without the cache, perf report cannot name it (what the cache is for)" '
	mkdir -p empty && [ "$(HOME=$T/empty perf_top_sym prec.data)" != spin_first ]'

test_expect "prec report names it from the cache too" '
	[ "$(prec_top_sym prec.data)" = spin_first ]'

test_expect "the program removed: perf report and prec report still name it" '
	rm -f prog && [ "$(perf_top_sym prec.data)" = spin_first ] &&
	[ "$(prec_top_sym prec.data)" = spin_first ]'

# --- what fills no cache --------------------------------------------------------------------------

build spin_third >/dev/null 2>&1
for opt in -N -B -z; do
	if [ "$opt" = -z ] && ! have zstd; then
		test_skip "$opt: no cache" "prec built without zstd"
		continue
	fi
	test_expect "$opt: no cache, as perf record $opt" '
		rm -rf n && mkdir n &&
		HOME=$T/n "$PREC" record $R '"$opt"' -o n.data ./prog 0.05 && ! test -e n/.debug &&
		HOME=$T/n perf record $PR '"$opt"' -o pn.data ./prog 0.05 2>/dev/null &&
		! test -e n/.debug'
done

test_expect "-N: the file still has the build-ids" '
	rm -rf n && mkdir n && HOME=$T/n "$PREC" record $R -N -o n.data ./prog 0.1 &&
	perf buildid-list -i n.data | grep -q "^$(bid prog) $T/prog$"'

test_expect "pipe mode: no cache and no build-ids, as perf record -o -" '
	rm -rf n && mkdir n && HOME=$T/n "$PREC" record $R -o - ./prog 0.05 >pipe.data &&
	! test -e n/.debug && [ -s pipe.data ] &&
	HOME=$T/n perf record $PR -o - ./prog 0.05 2>/dev/null >ppipe.data && ! test -e n/.debug &&
	got=$(perf report -D -i pipe.data 2>/dev/null | grep -c "HEADER_BUILD_ID") ;
	want=$(perf report -D -i ppipe.data 2>/dev/null | grep -c "HEADER_BUILD_ID") ;
	[ "$got" = 0 ] && [ "$want" = 0 ]'

# --- where the cache is ---------------------------------------------------------------------------

test_expect "--buildid-dir DIR: the cache is DIR" '
	rm -rf n bd && mkdir n && HOME=$T/n "$PREC" record $R --buildid-dir "$T/bd" -o d.data \
		./prog 0.1 && ! test -e n/.debug && test -f "$(entry bd "$T/prog" "$(bid prog)")/elf"'

test_expect "a cache that cannot be written: the recording stands, without a word (-v says why)" '
	"$PREC" record $R -q --buildid-dir /proc/self/nodir -o nw.data ./prog 0.1 2>nw.err &&
	! test -s nw.err && perf_clean perf report -i nw.data --stdio &&
	"$PREC" record $R -v --buildid-dir /proc/self/nodir -o nw.data ./prog 0.1 2>nw.err &&
	grep -q "^prec: build-id cache /proc/self/nodir: " nw.err'

test_expect "prec --buildid-dir DIR record, as perf --buildid-dir DIR record: the cache is DIR" '
	rm -rf n gbd pgbd && mkdir n &&
	HOME=$T/n "$PREC" --buildid-dir "$T/gbd" record $R -o g.data ./prog 0.1 &&
	HOME=$T/n perf --buildid-dir "$T/pgbd" record $PR -o pg.data ./prog 0.1 2>/dev/null &&
	! test -e n/.debug && test -f "$(entry gbd "$T/prog" "$(bid prog)")/elf" &&
	test -f "$(entry pgbd "$T/prog" "$(bid prog)")/elf" &&
	HOME=$T/n "$PREC" --buildid-dir=$T/gbd record $R -o g.data ./prog 0.1 && ! test -e n/.debug'

test_expect "buildid.dir of ~/.perfconfig: the cache is there, for prec and for perf" '
	rm -rf n cfgd pcfgd && mkdir n &&
	printf "[buildid]\n\tdir = %s\n" "$T/cfgd" >n/.perfconfig &&
	HOME=$T/n "$PREC" record $R -o c.data ./prog 0.1 && ! test -e n/.debug &&
	test -f "$(entry cfgd "$T/prog" "$(bid prog)")/elf" &&
	printf "[buildid]\n\tdir = %s\n" "$T/pcfgd" >n/.perfconfig &&
	HOME=$T/n perf record $PR -o pc.data ./prog 0.1 2>/dev/null &&
	test -f "$(entry pcfgd "$T/prog" "$(bid prog)")/elf"'

test_expect "prec report reads the cache buildid.dir names" '
	printf "[buildid]\n\tdir = %s\n" "$T/cfgd" >n/.perfconfig &&
	cp prog prog.third && build spin_fourth &&
	[ "$(HOME=$T/n prec_top_sym c.data)" = spin_third ] &&
	rm -f n/.perfconfig && [ "$(HOME=$T/n prec_top_sym c.data)" != spin_third ] &&
	cp prog.third prog'

test_expect "PERF_BUILDID_DIR is not read, by perf or by prec: ~/.debug it is" '
	rm -rf n e pe && mkdir n &&
	PERF_BUILDID_DIR=$T/e HOME=$T/n "$PREC" record $R -o e.data ./prog 0.05 &&
	! test -e e && test -d n/.debug && rm -rf n/.debug &&
	PERF_BUILDID_DIR=$T/pe HOME=$T/n perf record $PR -o pe.data ./prog 0.05 2>/dev/null &&
	! test -e pe && test -d n/.debug'

# --- --buildid-all, --buildid-mmap ----------------------------------------------------------------

test_expect "--buildid-all: every binary mapped, as perf --buildid-all ([vdso] aside)" '
	"$PREC" record $R -N --buildid-all -o all.data ./prog 0.05 &&
	perf record $PR -N --buildid-all -o pall.data ./prog 0.05 2>/dev/null &&
	perf buildid-list -i pall.data | grep -vF "[vdso]" | sort >want &&
	perf buildid-list -i all.data | sort >got && diff want got &&
	grep -q "libc" got'

test_expect "--buildid-mmap: build-ids in the MMAP2 records, no BUILD_ID feature, no cache" '
	rm -rf n && mkdir n &&
	HOME=$T/n "$PREC" record $R --buildid-mmap -o mm.data ./prog 0.1 && ! test -e n/.debug &&
	perf report -i mm.data --header-only 2>/dev/null | grep "^# missing features:" |
		grep -qw BUILD_ID &&
	perf script -i mm.data --show-mmap-events 2>/dev/null |
		grep -q "PERF_RECORD_MMAP2 .*<$(bid prog)>\]: r-xp $T/prog$" &&
	perf evlist -v -i mm.data 2>/dev/null | grep -q "build_id: 1"'

test_expect "--buildid-mmap: perf report resolves the program's symbols" '
	[ "$(perf_top_sym mm.data)" = spin_third ]'

done_testing
