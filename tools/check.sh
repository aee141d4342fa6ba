#!/bin/bash
# Build prec and run every test: the integration and unit tests in ./build, then the unit tests
# and the fuzz corpus again under AddressSanitizer and UndefinedBehaviorSanitizer in
# ./build-asan, and the checks of a prec built without libdw (t2015's) in ./build-nodw. The last
# line is the count: "N passed, N failed, N skipped".
#
# The compiler is configure's choice (gcc on Debian); PREC_CONFIGURE_FLAGS=CC=clang
# tools/check.sh runs the same with clang (both directories are configured again when the flags
# change; tests/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

tools/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }

# t2020 reads prec report --pprof's files with pprof itself (go tool pprof): without Go those
# checks are skipped, visibly, so install it where it is missing.
if ! command -v go >/dev/null 2>&1; then
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends golang-go; } >/dev/null 2>&1 ||
		echo "prec: golang-go could not be installed: t2020 skips its pprof checks"
fi

# tree PID: PID and the processes under it
tree() {
	ps -e -o pid=,ppid= | awk -v root="$1" '{ up[$1] = $2 }
		END { for (p in up) { q = p; while (q != root && q in up && q > 1) q = up[q]
			if (q == root) print p } }'
}

# promote PID: the processes under PID back to the normal policy, so that those they start from
# now on run at it too; again while some are left at SCHED_IDLE (forked during a pass)
promote() {
	local p idle
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		idle=$(ps -o pid=,cls= -p "$(tree "$1" | paste -sd,)" 2>/dev/null |
			awk '$2 == "IDL" { print $1 }')
		[ -n "$idle" ] || return 0
		for p in $idle; do
			chrt -o -a -p 0 "$p" 2>/dev/null
		done
	done
}

# The sanitizer tree compiles everything again, about a minute of both CPUs: it is built beside
# the main tests at the lowest priority (SCHED_IDLE), on the CPU time they leave idle. When they
# end, it goes back to the normal priority (other work on the machine would starve it), and its
# unit tests run after it (some need the machine to themselves). So does the tree without libdw,
# which builds prec and the two programs t2015 records (half a minute of one CPU): the code
# that stands in for libdw is compiled and t2015 checks what it says.
mkdir -p build-asan build-nodw
# shellcheck disable=SC2016 # expanded by the shell it starts
chrt -i 0 sh -c 'tools/bootstrap.sh build-asan --enable-sanitizers &&
	make -C build-asan -j"$(nproc)" check-build' >build-asan/build.out 2>&1 &
asan_build=$!
# shellcheck disable=SC2016 # expanded by the shell it starts
chrt -i 0 sh -c 'tools/bootstrap.sh build-nodw --without-libdw &&
	make -C build-nodw tests/workloads/nofp tests/workloads/rbxcfa' >build-nodw/build.out 2>&1 &
nodw_build=$!

(cd build && make -j"$(nproc)" check >check.out 2>&1)
status=$?

promote $asan_build
promote $nodw_build
if wait $asan_build; then
	(cd build-asan && make -j"$(nproc)" check-unit >check.out 2>&1)
	asan=$?
else
	tail -30 build-asan/build.out
	asan=1
fi
[ $asan = 0 ] || status=1
if wait $nodw_build; then
	# one test file of the harness, without the programs of the whole suite
	rm -f build-nodw/tests/t2015-report-dwarf.{log,trs}
	make -C build-nodw tests/t2015-report-dwarf.log >build-nodw/check.out 2>&1 || status=1
else
	tail -30 build-nodw/build.out
	status=1
fi

# Show what failed, with its log, so a CI reader does not have to dig.
for d in build build-asan build-nodw; do
	grep -l '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$d"/tests/*.trs "$d"/tests/*/*.trs \
		2>/dev/null | while read -r trs; do
		log=${trs%.trs}.log
		echo "---- $d/${log#$d/}"
		tail -60 "$log"
	done
done
grep -h '^\(PASS\|FAIL\|SKIP\|ERROR\|XPASS\):' build/check.out build-asan/check.out \
	build-nodw/check.out 2>/dev/null |
	grep -v '^PASS' || true

# The slowest test files, from the wall time each prints last (tests/lib.sh), to keep the
# suite's time in view.
echo "slowest test files (wall seconds):"
grep -H '^# elapsed [0-9]*s$' build/tests/*.log 2>/dev/null |
	sed 's|^build/tests/\(.*\)\.log:# elapsed \([0-9]*\)s$|\2 \1|' | sort -rn | head -8 |
	sed 's/^/  /'

results=$(cat build/tests/*.trs build/tests/*/*.trs build-asan/tests/*.trs \
	build-asan/tests/*/*.trs build-nodw/tests/*.trs 2>/dev/null | grep '^:test-result:')
passed=$(grep -c ': PASS' <<<"$results")
failed=$(grep -c ': \(FAIL\|ERROR\|XPASS\)' <<<"$results")
skipped=$(grep -c ': SKIP' <<<"$results")
if [ $status != 0 ] && [ "$failed" = 0 ]; then
	# make check failed without a failing test: a build error. Show it.
	tail -30 build/check.out build-asan/check.out build-nodw/check.out 2>/dev/null
	failed=1
fi
cd "$top"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
