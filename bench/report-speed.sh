#!/bin/bash
# prec report against perf report on the same big warm file: wall-clock time and peak memory
# (the maximum resident set size, from /usr/bin/time -v), with the ratios.
#
#   bench/report-speed.sh [-b BUILD_DIR] [-f FILE] [-n RUNS] [-c CHILDREN_RUNS]
#
# Compared, with their output to /dev/null:
#   prec report -i FILE --no-children          perf's --stdio --no-children table with the call
#                                              graphs (prec's default, as perf's, is the
#                                              children view when the file has call chains)
#   perf report -i FILE --stdio --no-children  the same table (the like-for-like comparison)
#   prec report -i FILE --children             perf's children table with its call graphs
#   perf report -i FILE --stdio                perf's default (children mode, call graphs),
#                                              CHILDREN_RUNS times (default 1: it is slow)
# Defaults: build/, /tmp/prec-big.data (made by bench/make-big-file.sh when missing), 5 runs.
# The commands run in turn (interleaved: run i of each, then run i+1), so that other work on
# the machine weighs on each alike; the medians are printed, with MB/s of the file, and the
# ratios of the medians. The time package
# (/usr/bin/time) is installed when missing. Other work on the machine slows every command
# alike: run it a few times.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
file=/tmp/prec-big.data
runs=5
children_runs=1
while getopts "b:f:n:c:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	f) file=$OPTARG ;;
	n) runs=$OPTARG ;;
	c) children_runs=$OPTARG ;;
	*) sed -n '2,20p' "$0"; exit 2 ;;
	esac
done
prec=$build/prec
[ -x "$prec" ] || { echo "report-speed: no $prec (build first)" >&2; exit 1; }
command -v perf >/dev/null || { echo "report-speed: perf is not installed" >&2; exit 1; }
if [ ! -x /usr/bin/time ]; then
	apt-get install -y -q time >/dev/null || { echo "report-speed: cannot install time" >&2;
		exit 1; }
fi
if [ ! -f "$file" ]; then
	"$src/bench/make-big-file.sh" -b "$build" -o "$file"
fi
cat "$file" >/dev/null
cat "$file" >/dev/null

python3 - "$file" "$runs" "$children_runs" "$prec" <<'EOF'
import os, statistics, subprocess, sys, tempfile, time
path, runs, children_runs, prec = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
size = os.path.getsize(path)
cmds = [
    ('prec report --no-children', [prec, 'report', '-q', '-i', path, '--no-children'], runs),
    ('perf report --stdio --no-children',
     ['perf', 'report', '-i', path, '--stdio', '--no-children'], runs),
    ('prec report --children', [prec, 'report', '-q', '-i', path, '--children'], runs),
    ('perf report --stdio', ['perf', 'report', '-i', path, '--stdio'], children_runs),
]
res = {name: ([], []) for name, _, _ in cmds}
rss_file = tempfile.mktemp()
for i in range(max(runs, children_runs)):
    for name, argv, n in cmds:
        if i >= n:
            continue
        t = time.monotonic()
        subprocess.run(['/usr/bin/time', '-f', '%M', '-o', rss_file] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        res[name][0].append(time.monotonic() - t)
        res[name][1].append(int(open(rss_file).read().split()[-1]))
os.unlink(rss_file)
print('file: %s, %.1f MB; medians of %d runs (%d for children mode)' % (path, size / 1e6, runs,
                                                                       children_runs))
print('%-36s %9s %8s %14s' % ('', 'seconds', 'MB/s', 'peak RSS (MiB)'))
print('load average at the end: %s' % ' '.join(open('/proc/loadavg').read().split()[:3]))
med = {}
for name, _, _ in cmds:
    if not res[name][0]:
        continue
    t, m = statistics.median(res[name][0]), statistics.median(res[name][1]) / 1024
    med[name] = (t, m)
    print('%-36s %9.3f %8.0f %14.1f   (%.3f-%.3f s)' % (name, t, size / 1e6 / t, m,
                                                        min(res[name][0]), max(res[name][0])))
for perf_name, prec_name in (
        ('perf report --stdio --no-children', 'prec report --no-children'),
        ('perf report --stdio', 'prec report --children')):
    if perf_name in med and prec_name in med:
        t, m = med[perf_name]
        pt, pm = med[prec_name]
        print('%s vs %s: %.1fx the time, %.1fx the peak memory' % (perf_name, prec_name,
                                                                  t / pt, m / pm))
EOF
