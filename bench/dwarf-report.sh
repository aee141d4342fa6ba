#!/bin/bash
# prec report against perf report on a big perf recording with DWARF call graphs: wall-clock
# time, CPU time (user + system) and peak memory (maximum resident set), the best of RUNS runs
# of each, with the ratios, and whether the top rows of the two reports agree.
#
#   bench/dwarf-report.sh [-b BUILD_DIR] [-d CACHE_DIR] [-m MIN_MB] [-n RUNS] [-t TOP]
#
# The file: perf record -q -F 4000 --call-graph dwarf of tests/workloads/nofp (built -O2 without
# frame pointers), CACHE_DIR/nofp-dwarf.data, made when it is missing or smaller than MIN_MB
# (default 500: the first try runs nofp for 15 s, a longer one follows when the file comes out
# smaller) and reused after. Compared, each pair run in turn (interleaved, so that other work on
# the machine weighs on both alike), output to /dev/null:
#   prec/perf report --stdio --no-children                 the table with its call graphs
#   prec/perf report --stdio --no-children --sort srcline -g none
#   prec/perf report --stdio --no-children --sort srcline  with the call graphs
# Then each pair once more, to compare the TOP (default 10) first rows: the same rows, each
# share within 0.05. Defaults: build/, /tmp/prec-bench-dwarf, 3 runs. Run as root.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
build=$src/build
cache=/tmp/prec-bench-dwarf
min_mb=500
runs=3
top=10
while getopts "b:d:m:n:t:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	d) cache=$OPTARG ;;
	m) min_mb=$OPTARG ;;
	n) runs=$OPTARG ;;
	t) top=$OPTARG ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done
prec=$build/prec
nofp=$build/tests/workloads/nofp
bench_setup dwarf-report "$prec" "$nofp"

mkdir -p "$cache"
file=$cache/nofp-dwarf.data
size_mb() { echo $(($(stat -L -c %s "$1") / 1000000)); }
secs=15
while [ ! -f "$file" ] || [ "$(size_mb "$file")" -lt "$min_mb" ]; do
	[ "$secs" -le 240 ] || { echo "dwarf-report: $file stays under $min_mb MB" >&2; exit 1; }
	echo "dwarf-report: perf record --call-graph dwarf of nofp for $secs s into $file"
	rm -f "$file" # else perf keeps it as FILE.old
	perf record -q -F 4000 --call-graph dwarf -o "$file" -- "$nofp" "$secs" >/dev/null
	secs=$((secs * 2))
done
cat "$file" >/dev/null

python3 - "$src/bench" "$file" "$runs" "$top" "$prec" <<'EOF'
import os, re, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
import benchlib

path, runs, top, prec = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
views = [
    ('--stdio --no-children', []),
    ('--sort srcline -g none', ['--sort', 'srcline', '-g', 'none']),
    ('--sort srcline', ['--sort', 'srcline']),
]
tools = [('perf', ['perf', 'report', '-i', path, '--stdio', '--no-children']),
         ('prec', [prec, 'report', '-i', path, '--stdio', '--no-children'])]
best = {}
for i in range(runs):
    for view, args in views:
        for tool, argv in tools:
            wall, cpu, rss = benchlib.run_measured(argv + args)
            b = best.setdefault((view, tool), [wall, cpu, rss])
            best[(view, tool)] = [min(b[0], wall), min(b[1], cpu), min(b[2], rss)]

ROW = re.compile(r'^ +(\d+\.\d+)%\s+(\S.*?)\s*$')


def rows(text):
    """The table's rows (not their call graphs): (share, the row's keys), in order."""
    out = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            out.append((float(m.group(1)), ' '.join(m.group(2).split())))
    return out


def agree(perf_rows, prec_rows):
    """None when the top rows are the same with shares within 0.05, else what differs."""
    want = perf_rows[:top]
    have = dict((k, s) for s, k in prec_rows[:top + 5])
    if not want or not have:
        return 'no rows in %s\'s output' % ('perf' if not want else 'prec')
    for share, key in want:
        if key not in have:
            return 'perf\'s row "%s" (%.2f%%) is not among prec\'s first rows' % (key, share)
        if abs(have[key] - share) > 0.05:
            return '"%s": perf %.2f%%, prec %.2f%%' % (key, share, have[key])
    return None


size = os.path.getsize(path)
print('file: %s, %.1f MB, %s' % (path, size / 1e6, benchlib.count_samples(path)), 'samples')
print('best of %d runs; load average at the end: %s' %
      (runs, ' '.join(open('/proc/loadavg').read().split()[:3])))
print('%-24s %-5s %8s %10s %10s' % ('', '', 'wall s', 'user+sys s', 'peak MiB'))
for view, args in views:
    for tool, _ in tools:
        w, c, m = best[(view, tool)]
        print('%-24s %-5s %8.3f %10.3f %10.1f' % (view, tool, w, c, m / 1024))
    pw, pc, pm = best[(view, 'perf')]
    qw, qc, qm = best[(view, 'prec')]
    outs = {}
    for tool, argv in tools:
        with tempfile.TemporaryFile(mode='w+') as f:
            benchlib.run_measured(argv + args, out=f)
            f.seek(0)
            outs[tool] = rows(f.read())
    diff = agree(outs['perf'], outs['prec'])
    print('%-24s perf/prec time %.1fx (CPU %.1fx), prec/perf memory %.2fx; top %d rows: %s' %
          (view, pw / qw, pc / qc, qm / pm, top, 'agree' if diff is None else 'DIFFER: ' + diff))
EOF
