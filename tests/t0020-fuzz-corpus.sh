#!/bin/bash
# Replay the fuzz corpus (tests/fuzz/corpus/: perf- and prec-written seeds, what the fuzzer kept,
# and the reproducer of every crash it found) through the reader, the way the fuzz target reads
# its inputs. A crash, a sanitizer report (in the --enable-sanitizers build that tools/check.sh
# makes) or a hang fails the test and names the file.
. "$(dirname "$0")/lib.sh"

replay=$PREC_BUILD/tests/fuzz/replay-reader
corpus=$PREC_SRC/tests/fuzz/corpus
[ -x "$replay" ] || skip_all "no $replay (make check builds it)"
# In the sanitizer build: leaks inside libtraceevent are not ours (tests/fuzz/lsan.supp).
export LSAN_OPTIONS="suppressions=$PREC_SRC/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

files=("$corpus"/*)
test_expect "the corpus is there" '[ -f "${files[0]}" ]'

# All files in one process first (fast); on failure, one process per file to name the culprits.
test_expect "every corpus file replays without a crash" '
	if timeout 300 "$replay" "${files[@]}" >"$T/replay.out" 2>&1; then
		exit 0
	fi
	: >"$T/replay.out"
	for f in "${files[@]}"; do
		timeout 60 "$replay" "$f" >"$T/one.out" 2>&1 ||
			{ echo "FAILS: $f"; tail -30 "$T/one.out"; continue; }
		grep -F "$f: " "$T/one.out" >>"$T/replay.out"
	done
	exit 1
'

# The replay must reach the reader for real: a reader that refused everything would pass above.
# (When a file crashes, these look at the others.)
test_expect "the perf-written seeds are read down to their samples" '
	for f in "$corpus"/perf-*.data; do
		grep -F "$f: " "$T/replay.out" | grep -q " [1-9][0-9]* records, [0-9]* samples" ||
			fail "no records read from $f"
	done
'

test_expect "prec:overhead samples in prec-written seeds are decoded" '
	f=$corpus/prec-overhead.data
	[ -f "$f" ] || fail "no $f"
	grep -F "$f: " "$T/replay.out" | grep -q " [1-9][0-9]* prec:overhead" ||
		fail "none decoded in $f"
'

done_testing
