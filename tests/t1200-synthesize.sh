#!/bin/bash
# t1200: side-band synthesis and build-ids, judged by perf 6.1. A running hot3 gets the records
# prec synthesizes for it (kernel map, COMM, MMAP2; FORK too with -a), samples at the real
# addresses of its hot_a, run_round and main and one in the kernel, and the BUILD_ID feature from
# the build-id tracker; perf must resolve every symbol without a word on stderr, list hot3's
# build-id, and see exactly the side-band its own perf record writes for the same process.
. "$(dirname "$0")/lib.sh"

require perf root

SYN=$PREC_BUILD/tests/unit/test-synthesize
HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$SYN" ] && [ -x "$HOT3" ] || skip_all "build tests/unit/test-synthesize and hot3 first"

# perf's build-id cache must not help: an empty one, as for a user who never ran perf record
export HOME=$T/home
mkdir -p "$HOME"

# hot3, and a process of four named threads (the main one and synth-t1..3)
"$HOT3" 60 &
pid=$!
"$SYN" threads 60 &
tpid=$!
# stop them on the way out, and leave with the status the tests gave
at_exit 'kill $pid $tpid; wait $pid $tpid'
# the background jobs must have become hot3 and all threads before /proc describes them
hot3=$(readlink -f "$HOT3")
for _ in $(seq 100); do
	[ "$(readlink /proc/$pid/exe 2>/dev/null)" = "$hot3" ] &&
		[ "$(cat /proc/$tpid/task/*/comm 2>/dev/null | grep -c synth-t)" = 3 ] && break
	sleep 0.02
done
tid2=$(ls /proc/$tpid/task | sort -n | sed -n 2p)

"$SYN" write p.data $pid >manifest 2>write.err
"$SYN" write a.data $pid all >/dev/null 2>>write.err
"$SYN" write nk.data $pid nokernel >/dev/null 2>>write.err
"$SYN" write tp.data $tpid >/dev/null 2>>write.err
"$SYN" write tt.data $tid2 thread >/dev/null 2>>write.err

test_expect "the files are written" '
	no_stderr write.err && test -s p.data && test -s a.data && test -s tt.data
'

# perf report: the three symbols, comm hot3, dso hot3, each with its share of the samples written
# (the manifest says how many: "sym NAME N", plus one for each "vdso" and "ksym" line)
total=$(awk '$1 == "sym" { n += $3 } $1 == "vdso" || $1 == "ksym" { n++ } END { print n }' manifest)
share() {
	awk -v s="$1" -v t="$total" '$1 == "sym" && $2 == s { printf "%.2f%%", 100 * $3 / t }' manifest
}
for f in p a; do
	test_expect "$f.data: perf report resolves hot_a, run_round and main, stderr empty" '
		perf_clean perf report -i '$f'.data --stdio --no-children --sort comm,dso,sym >rep.'$f' &&
		for s in hot_a run_round main; do
			grep -Eq "^ +$(share $s) +hot3 +hot3 +\[\.\] $s\$" rep.'$f' ||
				{ fail "no $(share $s) line for $s"; exit 1; }
		done
	'
done

ksym=$(awk '$1 == "ksym" { print $2 }' manifest)
if [ -n "$ksym" ]; then
	test_expect "the kernel sample resolves through [kernel.kallsyms]_text" '
		grep -Eq "hot3 +\[kernel\.kallsyms\] +\[k\] $ksym\$" rep.p
	'
else
	test_skip "the kernel sample resolves" "kallsyms addresses are hidden here"
fi

if grep -q "^vdso " manifest; then
	test_expect "the vDSO sample resolves (perf reads its own vDSO)" '
		grep -Eq "hot3 +\[vdso\] +\[\.\] __vdso_clock_gettime\$" rep.p
	'
else
	test_skip "the vDSO sample resolves" "no [vdso] map found"
fi

test_expect "perf script names every sample's symbol, stderr empty" '
	perf_clean perf script -i p.data -F comm,pid,ip,sym,dso >script.out &&
	test "$(grep -c " hot_a (.*/hot3)" script.out)" = 5 &&
	test "$(grep -c " run_round (.*/hot3)" script.out)" = 3 &&
	test "$(grep -c " main (.*/hot3)" script.out)" = 2 &&
	! grep -q "\[unknown\]" script.out
'

test_expect "no kernel address map warning, with the kernel map" '
	perf report -i p.data --stdio >rep.out 2>&1 && ! grep -q "were restricted" rep.out
'
# the control: the same file without the kernel map does get the warning
test_expect "(control: without the kernel map perf warns)" '
	perf report -i nk.data --stdio >nk.out 2>&1; grep -q "were restricted" nk.out
'

test_expect "perf buildid-list lists hot3 with the build-id perf reads from the ELF" '
	want=$(perf buildid-list -i "$HOT3" 2>/dev/null) &&
	test -n "$want" &&
	perf_clean perf buildid-list -i p.data >bids &&
	grep -Fxq "$want $hot3" bids
'

if [ -n "$ksym" ]; then
	test_expect "perf buildid-list lists the running kernel as [kernel.kallsyms]" '
		want=$(perf buildid-list -k 2>/dev/null) && test -n "$want" &&
		grep -Fxq "$want [kernel.kallsyms]" bids
	'
else
	test_skip "the kernel build-id" "no kernel sample"
fi

# perf's own side-band for the same processes, lines compared without the CPU column (perf's -p
# file has no PERF_SAMPLE_CPU) and in sorted order
sideband() {
	perf script -i "$1" --show-mmap-events --show-task-events 2>/dev/null |
		grep -E "PERF_RECORD_(MMAP|MMAP2|COMM|FORK)" | grep -E "$2" |
		sed -E 's/^ *//; s/ \[[0-9]+\]//' | sort
}
# the records of process P: its FORKs, COMMs and MMAP2s, and the kernel map
of() {
	echo "(FORK\\($1:| $1/|:$1/|kallsyms)"
}

# one perf record -p for both processes, one -t, one -a (which also gives the build-id check
# below its real records)
perf record -q -B -N -p $pid,$tpid -o perf-p.data -- sleep 0.1 >/dev/null 2>&1
perf record -q -B -N -t $tid2 -o perf-t.data -- sleep 0.1 >/dev/null 2>&1
touch stamp
perf record -q -N -a -o perf-a.data -- sh -c "
	for i in \$(seq 20); do /bin/true; ls / >/dev/null; done; \"$HOT3\" 0.2" >/dev/null 2>&1

test_expect "-p: the side-band is what perf record -p writes (kernel map, COMM, MMAP2)" '
	sideband perf-p.data "$(of $pid)" >want.p && sideband p.data "$(of $pid)" >got.p &&
	test "$(grep -c MMAP2 want.p)" -gt 2 && diff want.p got.p
'

test_expect "-p of a process of 4 threads: a COMM per thread, as perf record -p" '
	sideband perf-p.data "$(of $tpid)" >want.tp && sideband tp.data "$(of $tpid)" >got.tp &&
	test "$(grep -c "COMM: synth-t" want.tp)" = 3 && diff want.tp got.tp
'

test_expect "-t of a thread: its COMM, the leader COMM and maps, as perf record -t" '
	sideband perf-t.data "$(of $tpid)" >want.tt && sideband tt.data "$(of $tpid)" >got.tt &&
	test "$(grep -c COMM want.tt)" = 2 && diff want.tt got.tt
'

test_expect "-a: FORK, COMM and MMAP2 of hot3, the 4 threads, kthreadd, as perf record -a" '
	pat="(FORK\\($pid:|FORK\\($tpid:| $pid/| $tpid/|:$pid/|:$tpid/|FORK\\(2:2\\)|:2/2\$|kallsyms)" &&
	sideband perf-a.data "$pat" >want.a && sideband a.data "$pat" >got.a &&
	grep -q "FORK($pid:$pid)" want.a && test "$(grep -c "FORK($tpid:" want.a)" = 4 &&
	diff want.a got.a
'

# The tracker on real records, in the order perf record read them from its per-CPU buffers:
# processes forking, exec'ing and exiting; it must find the binaries perf's second pass found.
# [vdso] is left out on purpose (see record/build-id.c). The tracker reads build-ids after perf
# did, so binaries that other processes deleted or rebuilt since the recording began are not
# compared.
still_there() {
	while read -r bid path; do
		if [ "$path" = "[kernel.kallsyms]" ] || { [ -f "$path" ] && ! [ "$path" -nt stamp ]; }
		then
			echo "$bid $path"
		fi
	done | sort
}
test_expect "fed perf record's records, the tracker finds the build-ids perf found" '
	perf buildid-list -i perf-a.data | grep -vF "[vdso]" | still_there >want.r &&
	"$SYN" replay perf-a.data | still_there >got.r &&
	grep -Fq "$hot3" want.r && diff want.r got.r
'

done_testing
