#!/bin/bash
# What recording costs the recorder itself: prec record against perf record on the same workload,
# event and rate (cpu-clock), side by side in one run, in alternating order.
#
#   bench/record-cost.sh [-b BUILD_DIR] [-n RUNS] [-s SECONDS] [-F FREQ] [-L LOST_SECONDS]
#                        [-l LOST_RUNS] [-x FIGURES]
#
# Figures (medians over RUNS runs of each recorder, defaults: 5 runs, 1 s, 20000 Hz):
#   fixed cost        the recorder's CPU time (user + sys) for a workload that does nothing
#                     (`true`): start-up, synthesis, build-ids, closing the file; with the
#                     calibrations of an earlier recording (cached per boot) and a warm
#                     build-id cache; for prec also with --recalibrate, as the first recording
#                     of a boot; for both with a cold build-id cache (a new buildid.dir per run:
#                     the binaries hit and /proc/kallsyms are copied) and with -N (no cache)
#   per 1000 samples  the slope of the recorder's CPU time against its samples, between hot3
#                     running SECONDS and 5 x SECONDS at FREQ Hz (median over every pair of a
#                     short and a long run): plain, -g, and -a -g with every CPU busy
#   bytes per sample  file size / samples of the long runs
#   -z                file size per sample with -z against perf's -z (-a -g, one run), and
#                     against the same recording without -z
#   lost              samples lost at -a -g -F 20000 and -F 50000 in LOST_RUNS runs of
#                     LOST_SECONDS (default 3 x 10 s) with every CPU busy and the default ring
#                     buffer (LOST_SAMPLES, from perf report --stats)
#
#   -x FIGURES        only these, a comma list of: fixed, plain, g, ag, z, lost (default: all),
#                     e.g. -x g to compare the -g cost alone in a couple of minutes
#
# The recorder's CPU time excludes the workload's: the workload runs under a small wrapper that
# reports its own rusage and that of what it ran; the recorder's is what wait4() gives for the
# recorder's whole tree minus that. Run as root, on a machine as quiet as you can get: the lost
# figures in particular depend on how the scheduler treats the recorder.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
runs=5
secs=1
freq=20000
lost_secs=10
lost_runs=3
only=fixed,plain,g,ag,z,lost
while getopts "b:n:s:F:L:l:x:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	n) runs=$OPTARG ;;
	s) secs=$OPTARG ;;
	F) freq=$OPTARG ;;
	L) lost_secs=$OPTARG ;;
	l) lost_runs=$OPTARG ;;
	x) only=$OPTARG ;;
	*) sed -n '2,28p' "$0"; exit 2 ;;
	esac
done
prec=$build/prec
hot3=$build/tests/workloads/hot3
# shellcheck disable=SC1091 # bench/lib.sh is checked on its own
. "$src/bench/lib.sh"
bench_setup record-cost "$prec" "$hot3"

work=$(mktemp -d "${TMPDIR:-/tmp}/record-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
# One build-id cache for perf, warm after the first run, as for a user who records every day.
export HOME=$work/home
mkdir -p "$HOME"

python3 - "$src/bench" "$prec" "$hot3" "$work" "$runs" "$secs" "$freq" "$lost_secs" "$lost_runs" \
	"$only" <<'EOF'
import os, re, resource, statistics, subprocess, sys, time

sys.path.insert(0, sys.argv[1])
import benchlib
from benchlib import count_samples, lost_samples

prec, hot3, work, runs, secs, freq, lost_secs, lost_runs, only = sys.argv[2:11]
only = set(only.split(","))
runs, secs, freq = int(runs), float(secs), int(freq)
lost_secs, lost_runs = float(lost_secs), int(lost_runs)
ncpu = os.cpu_count()

wrap = benchlib.make_wrapper(work)

def recorder(tool):
    return [prec, "record"] if tool == "prec" else ["perf", "record"]

def run(tool, args, workload, out, prec_args=(), env=None):
    """Record workload; return (recorder cpu s, samples, file bytes, lost samples)."""
    wfile = os.path.join(work, "wl.cpu")
    if os.path.exists(wfile):
        os.unlink(wfile)
    cmd = recorder(tool) + args + (list(prec_args) if tool == "prec" else [])
    cmd += ["-o", out, "--"] + benchlib.wrapped(wrap, wfile, workload)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, **env) if env else None)
    err = p.stderr.read().decode(errors="replace")
    rc, total = benchlib.wait_cpu(p)
    wl = benchlib.read_cpu(wfile)
    if rc:
        sys.exit("record-cost: %s failed (%d): %s" % (" ".join(cmd), rc, err))
    return total - wl, count_samples(out), os.path.getsize(out), lost_samples(out)

def busy(seconds):
    return [subprocess.Popen([hot3, str(seconds)]) for _ in range(ncpu)]

def median(xs):
    return statistics.median(xs)

# A build-id cache of its own for one run, through the perf config both recorders read: every
# binary the run hits is copied (or linked) into it, as on a user's first recording.
cold_caches = [0]
def cold_cache():
    cold_caches[0] += 1
    cfg = os.path.join(work, "cold%d.perfconfig" % cold_caches[0])
    with open(cfg, "w") as f:
        f.write("[buildid]\n\tdir = %s\n" % os.path.join(work, "cold%d" % cold_caches[0]))
    return {"PERF_CONFIG": cfg}

out = {}
def series(name, args, workload, n=runs, background=None, prec_args=(), env=None):
    for tool in ("perf", "prec"):
        out.setdefault((name, tool), [])
    for i in range(n):
        # alternate which recorder goes first
        order = ("perf", "prec") if i % 2 == 0 else ("prec", "perf")
        for tool in order:
            bg = background() if background else []
            r = run(tool, args, workload, os.path.join(work, "%s-%s.data" % (name, tool)),
                    prec_args, env() if env else None)
            for b in bg:
                b.wait()
            out[(name, tool)].append(r)

print("record-cost: %s vs %s, %d runs each, hot3 %.1f s, cpu-clock" %
      (subprocess.run([prec, "--version"], capture_output=True, text=True).stdout.strip(),
       subprocess.run(["perf", "version"], capture_output=True, text=True).stdout.strip(),
       runs, secs))
def max_rate():
    return open("/proc/sys/kernel/perf_event_max_sample_rate").read().strip()

print("kernel %s, %d CPUs, perf_event_max_sample_rate %s, load average %s" %
      (os.uname().release, ncpu, max_rate(), " ".join("%.2f" % x for x in os.getloadavg())))
print()

# prec keeps its overhead calibrations per boot and event (overhead/calib-cache.h), as perf keeps
# build-ids: one recording of each configuration first, so that every run measured is one of a
# user who records every day. The first run of a boot is measured apart, with --recalibrate.
configs = [c for c in (("plain", [], False), ("g", ["-g"], False), ("ag", ["-a", "-g"], True))
           if c[0] in only]
for extra in [[]] + [c[1] for c in configs]:
    run("prec", ["-e", "cpu-clock", "-F", str(freq)] + extra, ["true"],
        os.path.join(work, "warm.data"))
if "fixed" in only:
    series("empty", ["-e", "cpu-clock", "-F", str(freq)], ["true"])
    series("empty-cold", ["-e", "cpu-clock", "-F", str(freq)], ["true"],
           prec_args=["--recalibrate"])
    series("empty-nocache", ["-e", "cpu-clock", "-F", str(freq), "-N"], ["true"])
    series("empty-bidcold", ["-e", "cpu-clock", "-F", str(freq)], ["true"], env=cold_cache)
for name, extra, wide in configs:
    for tag, length in (("short", secs), ("long", 5 * secs)):
        series(name + "-" + tag, ["-e", "cpu-clock", "-F", str(freq)] + extra,
               [hot3, str(length)],
               background=(lambda l=length: busy(l)) if wide else None)
if "z" in only:
    series("z", ["-e", "cpu-clock", "-F", str(freq), "-a", "-g", "-z"], [hot3, str(secs)], n=1,
           background=lambda: busy(secs))
    series("z0", ["-e", "cpu-clock", "-F", str(freq), "-a", "-g"], [hot3, str(secs)], n=1,
           background=lambda: busy(secs))

def fixed(tool, name="empty"):
    return median([r[0] for r in out[(name, tool)]])

def per1000(name, tool):
    """CPU per 1000 samples: the median slope over every (short run, long run) pair, so that
    the fixed cost and its noise drop out (a Theil-Sen estimate)."""
    s, l = out[(name + "-short", tool)], out[(name + "-long", tool)]
    slopes = [(b[0] - a[0]) / (b[1] - a[1]) * 1000 for a in s for b in l if b[1] > a[1]]
    return median(slopes) if slopes else float("nan")

def bps(name, tool):
    return median([r[2] / r[1] for r in out[(name + "-long", tool)] if r[1]])

def samples(name, tool):
    return median([r[1] for r in out[(name + "-long", tool)]])

rows = []
def row(label, p, q, unit, fmt="%.3f"):
    rows.append((label, fmt % p, fmt % q, unit, "%.2fx" % (q / p) if p else "-"))

if "fixed" in only:
    row("fixed cost per run (true)", fixed("perf") * 1e3, fixed("prec") * 1e3, "ms CPU", "%.1f")
    row("... the first of a boot (prec --recalibrate)", fixed("perf") * 1e3,
        median([r[0] for r in out[("empty-cold", "prec")]]) * 1e3, "ms CPU", "%.1f")
    row("... build-id cache cold (a new buildid.dir)", fixed("perf", "empty-bidcold") * 1e3,
        fixed("prec", "empty-bidcold") * 1e3, "ms CPU", "%.1f")
    row("... no build-id cache (-N)", fixed("perf", "empty-nocache") * 1e3,
        fixed("prec", "empty-nocache") * 1e3, "ms CPU", "%.1f")
labels = [(n, l) for n, l in (("plain", "cpu-clock"), ("g", "-g"), ("ag", "-a -g, CPUs busy"))
          if n in only]
for name, label in labels:
    row("CPU per 1000 samples, " + label, per1000(name, "perf") * 1e3, per1000(name, "prec") * 1e3,
        "ms CPU")
for name, label in labels:
    row("recorder CPU per %gs run, %s" % (5 * secs, label),
        median([r[0] for r in out[(name + "-long", "perf")]]) * 1e3,
        median([r[0] for r in out[(name + "-long", "prec")]]) * 1e3, "ms CPU", "%.1f")
for name, label in labels:
    row("bytes per sample, " + label, bps(name, "perf"), bps(name, "prec"), "B", "%.1f")
for name, label in labels:
    row("samples per %gs run, %s" % (5 * secs, label), samples(name, "perf"),
        samples(name, "prec"), "", "%.0f")
if "z" in only:
    zp, zq = out[("z", "perf")][0], out[("z", "prec")][0]
    row("-a -g -z: file bytes per sample", zp[2] / zp[1], zq[2] / zq[1], "B", "%.1f")
    zp0, zq0 = out[("z0", "perf")][0], out[("z0", "prec")][0]
    row("-a -g -z: size against without -z", zp[2] / zp[1] / (zp0[2] / zp0[1]),
        zq[2] / zq[1] / (zq0[2] / zq0[1]), "", "%.3f")

# Lost samples at high rates with every CPU busy, default ring buffer; alternating, lost_runs
# runs each (the loss depends on how the scheduler treats the recorder: it varies a lot).
for f in (20000, 50000) if "lost" in only else ():
    name = "lost%d" % f
    series(name, ["-e", "cpu-clock", "-F", str(f), "-a", "-g"], ["sleep", str(lost_secs)],
           n=lost_runs, background=lambda: busy(lost_secs + 1))
    for tool in ("perf", "prec"):
        rs = out[(name, tool)]
        out[(name, tool, "sum")] = (sum(r[3] for r in rs), sum(r[1] + r[3] for r in rs),
                                    median([r[2] for r in rs]), [r[3] for r in rs])
    p, q = out[(name, "perf", "sum")], out[(name, "prec", "sum")]
    rows.append(("lost samples, -a -g -F %d, %d x %gs" % (f, lost_runs, lost_secs),
                 str(p[0]), str(q[0]), "of %d / %d" % (p[1], q[1]),
                 "%.2fx" % (q[0] / p[0]) if p[0] else "-"))
    rows.append(("  per run", " ".join(map(str, p[3])), " ".join(map(str, q[3])), "", ""))
    rows.append(("file size, -a -g -F %d (median)" % f, "%.1f" % (p[2] / 2**20),
                 "%.1f" % (q[2] / 2**20), "MiB", "%.2fx" % (q[2] / p[2])))

print("perf_event_max_sample_rate at the end: %s, load average %s" %
      (max_rate(), " ".join("%.2f" % x for x in os.getloadavg())))
w = max(len(r[0]) for r in rows)
print("%-*s %12s %12s  %-12s %s" % (w, "", "perf", "prec", "unit", "prec/perf"))
for r in rows:
    print("%-*s %12s %12s  %-12s %s" % (w, r[0], r[1], r[2], r[3], r[4]))
EOF
