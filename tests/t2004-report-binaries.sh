#!/bin/bash
# t2004: binaries that cannot give symbols still give a report. A binary removed after the
# recording, a stripped one, and one replaced by another file (its build-id differs) keep their
# rows, with their addresses shown as perf shows them, the same table as perf's, and the header
# (and --json) count the samples that could not be resolved, per binary and why. A build-id
# mismatch is said once. The build-id caches are kept out of it (HOME is the test's directory,
# and the recordings leave it empty, -N).
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
[ -x "$W" ] || skip_all "the hot3 workload is not built"
command -v strip >/dev/null || skip_all "no strip"
mkdir -p home
export HOME=$T/home

# unresolved_of DSO: the unresolved samples --json gives for binary DSO, and its reason
unresolved_of() {
	"$PYTHON" -c '
import json, sys
d = json.load(open("prec.json"))
for b in d["unresolved"]["binaries"]:
    if b["path"] == sys.argv[1]:
        print(b["samples"], b["reason"])' "$1"
}

# samples_in DSO: the samples of the rows of binary DSO (its basename), from --json --sort dso
samples_in() {
	"$PREC" report -q -i "$2" --json --sort dso -g none >dso.json &&
		"$PYTHON" -c '
import json, sys
d = json.load(open("dso.json"))
print(sum(r["samples"] for e in d["events"] for r in e["rows"] if r["dso"] == sys.argv[1]))' "$1"
}

# check NAME BIN REASON: the rows, the header line and --json for NAME.data whose binary BIN
# gives no symbols for REASON
check() {
	local name=$1 bin=$2 reason=$3
	test_expect "$name: a report, with perf's table" "same_table $name.data -g none"
	test_expect "$name: the rows of $(basename "$bin") are addresses, as perf shows them" '
		b=$(basename '"$bin"') &&
		sed -n "/^# Overhead/,\$p" prec.out | grep "%  *$b *$b " >rows &&
		[ -s rows ] && ! grep -v "\[\.\] 0x[0-9a-f]\{16\}$" rows'
	test_expect "$name: the header counts them, naming the binary and why" '
		n=$(samples_in $(basename '"$bin"') '"$name"'.data) && [ "$n" -gt 0 ] &&
		grep "^# Could not resolve [0-9]* samples in [0-9]* binar" prec.out >line &&
		grep -qF "'"$bin"' ('"$reason"'" line && grep -qF ", $n)" line'
	test_expect "$name: --json lists it with its reason" '
		prec_ok prec.json '"$name"'.data --json &&
		n=$(samples_in $(basename '"$bin"') '"$name"'.data) &&
		unresolved_of '"$bin"' >u && grep -q "^$n '"$reason"'" u'
	test_expect "$name: --folded names its frames [$(basename "$bin")]" '
		"$PREC" report -q -i '"$name"'.data --folded >f.out &&
		b=$(basename '"$bin"') && grep -q "^$b;\[$b\] [0-9]" f.out'
}

test_expect "prec records a copy of hot3, which is then removed" '
	cp "$W" app && rec_prec missing -N -- ./app 0.2 && rm app'
check missing "$T/app" missing

test_expect "prec records a stripped hot3" '
	strip -o stripped "$W" && rec_prec stripped -N -- ./stripped 0.2'
check stripped "$T/stripped" stripped

test_expect "prec records a copy of hot3, which is then replaced by another file" '
	cp "$W" replaced && rec_prec mismatch -N -- ./replaced 0.2 &&
	cp "$(type -P true)" replaced'
test_expect "mismatch: prec says so once" '
	"$PREC" report -i mismatch.data >out 2>err &&
	[ "$(grep -c "replaced: the file on disk is not the binary that was recorded" err)" = 1 ] &&
	[ "$(wc -l <err)" = 1 ]'
check mismatch "$T/replaced" "build-id mismatch"

test_expect "perf records hot3 (build-ids, no cache): everything resolves" '
	rec_perf resolved -N -- "$W" -c 0.2 && prec_ok prec.out resolved.data -g none &&
	grep -q "hot_a" prec.out && ! grep -q "hot3 *hot3 *\[\.\] 0x" prec.out'

# A C++ function that gcc cloned (.constprop.0): perf names it without the clone suffix
# (libiberty reads the suffix only with parameters), so all its clones are one row.
if command -v g++ >/dev/null; then
	cat >clone.cc <<'EOF'
#include <cstdio>
struct S { long a[8]; };
static long __attribute__((noinline)) work(const S &s, int n, int unused)
{
	long x = 0;
	for (int i = 0; i < n; i++)
		x += s.a[i & 7] * i;
	return x;
}
int main(int argc, char **)
{
	S s{};
	long t = 0;
	for (int k = 0; k < 20000; k++)
		t += work(s, 10000 + (k & 1), argc);
	std::printf("%ld\n", t);
}
EOF
	test_expect "a C++ clone (.constprop) is named as perf names it" '
		g++ -O2 -o clone clone.cc && nm clone | grep -q "work.*\.constprop" &&
		rec_perf clone -- ./clone && same_table clone.data --sort sym &&
		grep -q "\[\.\] work *$" prec.out && ! grep -q "clone \." prec.out'
else
	test_skip "a C++ clone (.constprop) is named as perf names it" "no g++"
fi

# Samples in the PLT of an executable: perf 6.1 stretches the zero-size _init over .plt before
# it adds the entries' symbols (abs@plt), and then finds one or the other by the shape of its
# tree of symbols; prec names each as perf does, in perf's files and in its own.
PLT=$PREC_BUILD/tests/workloads/pltcalls
if [ -x "$PLT" ]; then
	for rec in perf prec; do
		test_expect "PLT entries ($rec's file): perf's table, perf script's stacks" '
			rec_'$rec' plt-'$rec' -N -- "$PLT" 0.5 &&
			same plt-'$rec'.data --sort sym &&
			grep -q "\[\.\] \(_init\|[a-z]*@plt\) *$" perf.tab &&
			same_folded plt-'$rec'.data'
	done
else
	test_skip "PLT entries are named as perf names them" "the pltcalls workload is not built"
fi

done_testing
