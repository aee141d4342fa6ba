#!/bin/bash
# How fast prec reads a big perf.data file: every record read (COMPRESSED ones decompressed) and
# every sample decoded, field by field, call chain included. That is what `prec report --stats`
# does (report/stats.c hands every SAMPLE to pd_reader_parse_sample() to find its event), so it
# is the driver; it is timed against `perf script > /dev/null` (which reads, decodes and prints
# every sample) and `cat FILE > /dev/null` (the page cache alone) on the same warm file, and each
# gets its MB/s and its ratio to cat's speed.
#
#   bench/read-speed.sh [-b BUILD_DIR] [-f FILE] [-n RUNS]
#
# Defaults: build/, /tmp/prec-big.data (made by bench/make-big-file.sh when missing), 5 runs.
# The three commands run in turn, RUNS times; the medians are printed. Wall-clock times come from
# a monotonic clock. Other work on the machine slows every command alike: run it a few times.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
file=/tmp/prec-big.data
runs=5
while getopts "b:f:n:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	f) file=$OPTARG ;;
	n) runs=$OPTARG ;;
	*) sed -n '2,15p' "$0"; exit 2 ;;
	esac
done
prec=$build/prec
[ -x "$prec" ] || { echo "read-speed: no $prec (build first)" >&2; exit 1; }
command -v perf >/dev/null || { echo "read-speed: perf is not installed" >&2; exit 1; }
if [ ! -f "$file" ]; then
	"$src/bench/make-big-file.sh" -b "$build" -o "$file"
fi

# warm the page cache, and check that prec reads the whole file
cat "$file" >/dev/null
cat "$file" >/dev/null
"$prec" report -q --stats -i "$file" >/tmp/read-speed.stats.$$
samples=$(awk '/^ *SAMPLE events:/ {print $3; exit}' /tmp/read-speed.stats.$$)
rm -f /tmp/read-speed.stats.$$

python3 - "$file" "$runs" "$prec" "$samples" <<'EOF'
import os, statistics, subprocess, sys, time
path, runs, prec, samples = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
size = os.path.getsize(path)
cmds = [
    ('cat FILE > /dev/null', ['cat', path]),
    ('prec report --stats -i FILE', [prec, 'report', '-q', '--stats', '-i', path]),
    ('perf script -i FILE > /dev/null', ['perf', 'script', '-i', path]),
]
times = {name: [] for name, _ in cmds}
for _ in range(runs):
    for name, argv in cmds:
        t = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.monotonic() - t)
print('file: %s, %.1f MB, %s samples; median of %d runs (min-max)' % (path, size / 1e6,
                                                                      samples, runs))
cat = statistics.median(times[cmds[0][0]])
print('%-34s %9s %10s %12s' % ('', 'seconds', 'MB/s', 'ratio to cat'))
for name, _ in cmds:
    m = statistics.median(times[name])
    print('%-34s %9.3f %10.0f %12.3f   (%.3f-%.3f s)' % (name, m, size / 1e6 / m, cat / m,
                                                        min(times[name]), max(times[name])))
EOF
