#!/bin/bash
# t1022: --call-graph dwarf as perf 6.1 records it. A workload built -O2 without frame pointers
# is recorded by perf and by prec with the same options: perf evlist -v must print the same
# attrs for both files, and perf report and perf script must read prec's file without a word on
# stderr and unwind the same callers from it as from perf's own file. The refusals are one line
# with a non-zero exit, and leave no file.
. "$(dirname "$0")/lib.sh"

require root perf

CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler to build the workload"
export HOME=$T/home
mkdir -p "$HOME"
NONE=--overhead-source=none

# The workload: main -> top -> mid -> leaf_a (2/3 of the work) and leaf_b (1/3), none of them
# keeping a frame pointer, so that only the stack copy tells the callers. Each caller does work
# after its call, so that no call becomes a jump; argv[1] is the CPU time to use, in seconds.
cat >nofp.c <<'EOF'
#include <stdlib.h>
#include <time.h>

#define HOT __attribute__((noinline, noclone))

volatile unsigned long sink;
static volatile unsigned long salt = 3;

HOT unsigned long leaf_a(unsigned long n)
{
	unsigned long s = 0, k = salt;

	for (unsigned long i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0xa;
	return s;
}

HOT unsigned long leaf_b(unsigned long n)
{
	unsigned long s = 0, k = salt;

	for (unsigned long i = 0; i < n; i++)
		s += (i * i) ^ (s >> k) ^ 0xb;
	return s;
}

HOT unsigned long mid(unsigned long n)
{
	unsigned long s = leaf_a(2 * n);

	s += leaf_b(n);
	return s + 1;
}

HOT unsigned long top(unsigned long n)
{
	return mid(n) + 1;
}

int main(int argc, char **argv)
{
	double want = argc > 1 ? atof(argv[1]) : 0.3;
	struct timespec ts;

	do {
		sink += top(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < want);
	return 0;
}
EOF
"$CC" -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -o nofp nofp.c ||
	skip_all "$CC cannot build the workload"
WORK=(./nofp 0.3)

# evlist FILE: perf evlist -v of FILE, with perf's ID written as prec's IDENTIFIER when the file
# has more than one event (perf-data-compat.md pitfall 4)
evlist() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v "^#" |
		sed 's/\(sample_type: [A-Z_|]*\)|ID\([|,]\)/\1|IDENTIFIER\2/'
}

# rows FILE: the call graph rows of the user functions above 5% in perf report --no-children,
# one "chain share" per line, callers first
rows() {
	perf report -i "$1" --stdio --no-children --sort sym -g folded,0,caller \
		--percent-limit 5 2>/dev/null |
		awk '/^[0-9.]+% / && /leaf_/ { p = $1; sub("%", "", p); $1 = ""; sub(" ", "");
			if (p + 0 >= 5) print $0 "\t" p }' | sort
}

# same_shares A B D: the rows A and B (the same chains, in the same order) give each chain
# shares at most D points apart
same_shares() {
	paste "$1" "$2" | awk -F '\t' -v d="$3" '
		{ x = $2 - $4; if (x < 0) x = -x; if (x > d) bad = 1 }
		END { exit bad }'
}

# callers FILE: every function perf script finds in the stacks of the samples in leaf_a and
# leaf_b of the workload
callers() {
	perf script -i "$1" -F comm,ip,sym 2>/dev/null |
		awk 'NF == 0 { n = 0; next }
			n == 0 { comm = $1; n = 1; next }
			n == 1 { leaf = comm == "nofp" && $2 ~ /^leaf_[ab]$/; n = 2 }
			leaf { $1 = ""; sub(" ", ""); print }' | sort -u
}

# 4000 samples a second: about 1200 of the workload, so that the shares of two recordings are
# within a few points of each other (the work is 2/3 and 1/3 in every run). Each carries 8 KiB of
# stack, 33 MB/s: the default rings fill in 15 ms, and a busy machine that keeps the reader off
# its CPU that long makes the kernel drop records, which perf report then warns about. 16 MiB
# rings hold a whole recording (about 10 MB).
C=(-e cpu-clock -c 250000 -m 16M)
perf record -q -B "${C[@]}" --call-graph dwarf -o perf.data -- "${WORK[@]}" >/dev/null 2>perf.err
"$PREC" record -q $NONE "${C[@]}" --call-graph dwarf -o prec.data -- "${WORK[@]}" \
	>/dev/null 2>prec.err
evlist perf.data >perf.evlist
evlist prec.data >prec.evlist

test_expect "--call-graph dwarf: the attrs perf sets (REGS_USER, STACK_USER, 8192 bytes)" '
	no_stderr prec.err && grep -q "REGS_USER|STACK_USER" perf.evlist &&
	grep -q "sample_regs_user: 0xff0fff, sample_stack_user: 8192" perf.evlist &&
	diff -u perf.evlist prec.evlist
'
test_expect "perf report and perf script read prec's dwarf file cleanly" '
	perf_clean perf report -i prec.data --stdio --no-children >prec.report &&
	perf_clean perf script -i prec.data >prec.script
'
rows perf.data >perf.rows
rows prec.data >prec.rows
test_expect "perf report unwinds the same call graph rows from both files (8 points)" '
	cat perf.rows prec.rows &&
	grep -q "main;top;mid;leaf_a" prec.rows && grep -q "main;top;mid;leaf_b" prec.rows &&
	diff <(cut -f1 perf.rows) <(cut -f1 prec.rows) && same_shares perf.rows prec.rows 8
'
callers perf.data >perf.callers
callers prec.data >prec.callers
test_expect "perf script finds the same callers in the stacks of both files" '
	grep -qx main prec.callers && grep -qx top prec.callers && grep -qx mid prec.callers &&
	diff -u perf.callers prec.callers
'
# Without the stack copy the callers are lost: the workload really has no frame pointers.
"$PREC" record -q $NONE "${C[@]}" -g -o fp.data -- "${WORK[@]}" >/dev/null 2>&1
test_expect "with -g (frame pointers) the same workload's stacks lose their callers" '
	callers fp.data >fp.callers && ! grep -qx top fp.callers
'

# dwarf,SIZE: the size perf gives, and the samples carry that much stack. The kernel copies no
# more than the stack holds above the stack pointer (a few KB in this workload), so the size is
# one every sample of the workload can fill.
perf record -q -B "${C[@]}" --call-graph dwarf,1000 -o perf-size.data -- "${WORK[@]}" \
	>/dev/null 2>&1
"$PREC" record -q $NONE "${C[@]}" --call-graph=dwarf,1000 -o prec-size.data -- "${WORK[@]}" \
	>/dev/null 2>prec-size.err
test_expect "--call-graph=dwarf,1000: sample_stack_user 1000, as perf sets it" '
	no_stderr prec-size.err && evlist perf-size.data >perf-size.evlist &&
	grep -q "sample_stack_user: 1000" perf-size.evlist &&
	evlist prec-size.data | diff -u perf-size.evlist -
'
# (A sample taken where the task has no user context, as it exits, holds none.)
test_expect "... and every sample with a user stack holds a copy of 1000 bytes of it" '
	perf report -D -i prec-size.data 2>/dev/null | grep "ustack: size" | cut -d, -f1 |
		grep -v " size 0$" | sort | uniq -c >ustack &&
	cat ustack && test "$(wc -l <ustack)" = 1 && grep -q " ustack: size 1000$" ustack
'
"$PREC" record -q $NONE "${C[@]}" --call-graph dwarf,100 -o round.data -- true >/dev/null 2>&1
test_expect "--call-graph dwarf,100: rounded up to a multiple of 8, as perf does" '
	evlist round.data | grep -q "sample_stack_user: 104,\?"
'
# -p: the same attrs as perf on a running process.
./nofp 3 &
pid=$!
at_exit "kill $pid"
perf record -q -B "${C[@]}" --call-graph dwarf -p $pid -o perf-p.data -- sleep 0.2 >/dev/null 2>&1
"$PREC" record -q $NONE "${C[@]}" --call-graph dwarf -p $pid -o prec-p.data -- sleep 0.2 \
	>/dev/null 2>prec-p.err
kill $pid 2>/dev/null
test_expect "--call-graph dwarf -p: the attrs perf sets, and perf reads the file cleanly" '
	no_stderr prec-p.err && evlist perf-p.data >perf-p.evlist && test -s perf-p.evlist &&
	evlist prec-p.data | diff -u perf-p.evlist - &&
	perf_clean perf script -i prec-p.data >/dev/null
'

# The refusals: one line, a non-zero exit, no file.
refused() {
	local desc=$1
	shift
	test_expect "$desc: one line, a non-zero exit, no file" '
		rm -f r.data
		! "$PREC" record -q $NONE -o r.data '"$*"' -- true 2>r.err &&
		cat r.err && test "$(wc -l <r.err)" = 1 && ! test -e r.data
	'
}
refused "--aggregate with dwarf" --aggregate --call-graph dwarf
test_expect "... and it says why" 'grep -q "stacks cannot be aggregated in the kernel" r.err'
refused "--call-graph lbr on a machine without LBR" -e cpu-clock --call-graph lbr
test_expect "... in perf's words" '
	grep -q "PMU Hardware or event type doesn.t support branch stack sampling" r.err
'
refused "--call-graph dwarf,0" --call-graph dwarf,0
test_expect "... in perf's words" 'grep -q "Incorrect stack dump size (max 65528): 0" r.err'
refused "--call-graph dwarf,65536" --call-graph dwarf,65536
refused "--call-graph dwarf,65529 (65536 once rounded)" --call-graph dwarf,65529
refused "--call-graph dwarf,abc" --call-graph dwarf,abc
refused "--call-graph lbr,8" --call-graph lbr,8
refused "--call-graph fp,abc" --call-graph fp,abc
refused "--call-graph foo" --call-graph foo

done_testing
