#!/bin/bash
# What counting stacks in the kernel saves: perf record, prec record, prec record --aggregate and
# bcc's profile (profile-bpfcc, folded output to a file) side by side in one run, on two cases:
#   a   -a -g -F 20000, every CPU busy (hot3 pinned to each CPU)
#   b   -F 4000 on one task (hot3 pinned to the last CPU; profile-bpfcc -p its pid)
#
#   usage: bench/aggregate.sh [-b BUILD_DIR] [-s SECONDS] [-n RUNS] [-x CASES]
#   defaults: -b build -s $BENCH_SECONDS or 10 -n 3 -x a,b; quick: BENCH_SECONDS=2 ... -n 1
#
# Per recorder and case, medians over RUNS runs (the recorders and a bare run in rotating order):
#   file        the perf.data file's size (profile-bpfcc: its folded output)
#   records     SAMPLE records in the file (perf report --stats), samples the kernel took: the
#               same but for an aggregated recording, whose records stand for one stack each
#               and carry the kernel samples in WEIGHT (summed from perf script), and for
#               profile-bpfcc, whose folded counts are summed
#   recorder    user + system CPU time of the recorder process and its threads: for perf and
#               prec what wait4() gives for the recorder's tree minus what the workload's
#               wrapper reports for itself and the workload; for profile-bpfcc its own wait4()
#   bpf         what the BPF program cost in the kernel, which no recorder's CPU time includes:
#               prec record --aggregate's prec:overhead `aggregate` time (prec report
#               --overhead --json), summed over the CPUs
#   lost        samples lost: LOST_SAMPLES in perf report --stats; for profile-bpfcc the stacks
#               it warns it could not show
#   slowdown    the method of bench/overhead-truth.sh: a fixed number of hot3 rounds (as many
#               as SECONDS take here) timed in thread CPU time alone and under the recorder;
#               (profiled - bare) / bare, and per sample (profiled - bare) / samples
# then the ratios against perf record. The BPF programs' own time runs in the sampling interrupt
# and is charged to the program interrupted, so it is in the slowdown and not in the recorder.
#
# When prec record refuses --aggregate its row says so and the rest runs; when profile-bpfcc is
# missing or cannot load its program here, its row says why. bcc compiles its program against
# the running kernel's headers: without them, and when BCC_KERNEL_SOURCE is not set, the newest
# Debian linux-headers tree is used (its -common and arch halves joined in the scratch
# directory). The exit status is non-zero only when perf or prec (with --aggregate, when it is
# offered) fails. It holds the tests' sampling lock (tests/lib.sh) exclusively. Run as root.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
secs=${BENCH_SECONDS:-10}
runs=3
cases=a,b
usage() {
	echo "usage: bench/aggregate.sh [-b BUILD_DIR] [-s SECONDS] [-n RUNS] [-x CASES]" >&2
	exit 2
}
while getopts "b:s:n:x:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	s) secs=$OPTARG ;;
	n) runs=$OPTARG ;;
	x) cases=$OPTARG ;;
	*) sed -n '2,38p' "$0" >&2; usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
prec=$build/prec
hot3=$build/tests/workloads/hot3
# shellcheck disable=SC1091 # bench/lib.sh is checked on its own
. "$src/bench/lib.sh"
bench_setup aggregate "$prec" "$hot3"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prec-aggregate.XXXXXX")
pypid=
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	if [ -n "$pypid" ]; then
		kill -TERM "$pypid" 2>/dev/null || true
		wait "$pypid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
exec 9>>"${PREC_TEST_LOCK:-${TMPDIR:-/tmp}/prec-tests-sampling.lock}"
if ! flock -xn 9; then
	echo "# waiting for the tests' sampling lock" >&2
	flock -x 9
fi

# bcc's headers: the running kernel's, BCC_KERNEL_SOURCE's, or the newest Debian tree joined here
bcc_note=
if [ ! -e "/lib/modules/$(uname -r)/build" ] && [ -z "${BCC_KERNEL_SOURCE:-}" ]; then
	common=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-common' 2>/dev/null |
		sort -V | tail -n 1)
	arch=${common%-common}-$(dpkg --print-architecture 2>/dev/null || echo amd64)
	if [ -n "$common" ] && [ -d "$arch" ]; then
		mkdir "$tmp/kheaders"
		cp -rs "$common/." "$tmp/kheaders/"
		cp -rs --remove-destination "$arch/." "$tmp/kheaders/"
		export BCC_KERNEL_SOURCE=$tmp/kheaders
		bcc_note="kernel headers ${arch#/usr/src/linux-headers-} (none for $(uname -r))"
	fi
fi
# One build-id cache and one calibration cache for the run, warmed before the measured runs.
export HOME=$tmp/home
mkdir -p "$HOME"

echo "# bench/aggregate.sh -b $build -s $secs -n $runs -x $cases"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' \
	/proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(perf version)"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)," \
	"perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"

python3 - "$src/bench" "$prec" "$hot3" "$tmp" "$secs" "$runs" "$cases" "$bcc_note" <<'EOF' &
import json, os, re, signal, shutil, statistics, subprocess, sys, time

sys.path.insert(0, sys.argv[1])
import benchlib

prec, hot3, tmp, secs, runs, cases, bcc_note = sys.argv[2:9]
secs, runs, cases = float(secs), int(runs), cases.split(",")
ncpu = os.cpu_count()
last = ncpu - 1
wrap = benchlib.make_wrapper(tmp)
live = []

def stop(signum, frame):
    raise SystemExit(128 + signum)

for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, stop)

def spawn(cmd, **kw):
    """Start cmd in a process group of its own, which cleanup() kills if it is still there."""
    p = subprocess.Popen(cmd, start_new_session=True, **kw)
    live.append(p)
    return p

def cleanup():
    """Kill what spawn() started and is still running, with what it started."""
    while live:
        p = live.pop()
        if p.returncode is not None:
            continue
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(p.pid, 0)
        except ChildProcessError:
            pass
        p.returncode = -signal.SIGKILL

def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in reversed(lines):
        if not l.startswith("Traceback") and not l.startswith("File "):
            return l
    return "(no message)"

# The fixed work: as many hot3 rounds as SECONDS of CPU take here, measured once.
r = subprocess.run(["taskset", "-c", str(last), hot3, "-r", "100"], capture_output=True,
                   text=True, check=True)
rounds = max(10, int(secs / (benchlib.hot3_cpu(r.stderr) / 100)))

def workload(case):
    """The case's work: hot3 -r ROUNDS pinned to every CPU (a), to the last one (b)."""
    if case == "a":
        loop = " ".join("taskset -c %d %s -r %d &" % (c, hot3, rounds) for c in range(ncpu))
        return ["sh", "-c", loop + " wait"]
    return ["taskset", "-c", str(last), hot3, "-r", str(rounds)]

FREQ = {"a": 20000, "b": 4000}
MODE = {"a": ["-a", "-g"], "b": []}
RECORDERS = ["perf", "prec", "prec --aggregate", "profile-bpfcc"]

def record_cmd(tool, case, out):
    base = {"perf": ["perf", "record"], "prec": [prec, "record"],
            "prec --aggregate": [prec, "record", "--aggregate"]}[tool]
    return base + ["-e", "cpu-clock", "-F", str(FREQ[case])] + MODE[case] + ["-o", out]

def weights(out):
    """The kernel samples an aggregated file stands for: the sum of its samples' WEIGHT."""
    r = subprocess.run(["perf", "script", "-i", out, "-F", "sw:weight"], capture_output=True,
                       text=True)
    # the other events' samples print their default fields, a line each
    return sum(int(l) for l in r.stdout.splitlines() if l.strip().isdigit()) \
        if r.returncode == 0 else 0

def overhead_aggregate(out):
    """The prec:overhead `aggregate` figures of the file: (program runs, ns), summed."""
    r = subprocess.run([prec, "report", "--overhead", "--json", "-i", out],
                       capture_output=True, text=True)
    if r.returncode:
        return None
    nr = ns = 0
    for c in json.loads(r.stdout).get("cpus", []):
        for k in c.get("costs", []):
            if k.get("type") == "aggregate" and not k.get("unavailable"):
                nr += k.get("nr", 0)
                ns += k.get("time_ns", 0)
    return nr, ns

def split(text):
    """hot_a/hot_b/hot_c as shares of the three, from perf report --sort sym lines."""
    v = {}
    for f in ("hot_a", "hot_b", "hot_c"):
        m = re.findall(r"^\s*([0-9.]+)%%.*\b%s\b" % f, text, re.M)
        v[f] = sum(float(x) for x in m)
    t = sum(v.values())
    return "/".join("%.0f" % (100 * v[f] / t) for f in sorted(v)) if t else "-"

def folded_split(path):
    v = {"hot_a": 0, "hot_b": 0, "hot_c": 0}
    for l in open(path):
        stack, _, n = l.rstrip().rpartition(" ")
        hot = [f for f in stack.split(";") if f in v]
        if hot and n.isdigit():
            v[hot[-1]] += int(n)
    t = sum(v.values())
    # symbols are resolved at the end, from /proc: a task that has exited by then has none
    return "/".join("%.0f" % (100 * v[f] / t) for f in sorted(v)) if t else "unresolved"

class Failed(Exception):
    pass

def run_recorder(tool, case, i):
    """One recording of the case's work; a dict of the figures."""
    out = os.path.join(tmp, "%s-%s.data" % (case, tool.replace(" --", "-")))
    cpu_file = os.path.join(tmp, "wl.cpu")
    if os.path.exists(cpu_file):
        os.unlink(cpu_file)
    cmd = record_cmd(tool, case, out) + ["--"] + benchlib.wrapped(wrap, cpu_file,
                                                                  workload(case))
    p = spawn(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    rc, total = benchlib.wait_cpu(p)
    if rc:
        raise Failed("%s failed (exit %d): %s" % (" ".join(cmd), rc, last_line(err)))
    st = benchlib.stats(out)
    d = {"file": os.path.getsize(out), "recorder": total - benchlib.read_cpu(cpu_file),
         "work": benchlib.hot3_cpu(err), "records": benchlib.count_samples(out, "cpu-clock", st),
         "lost": benchlib.lost_samples(out, st)}
    d["samples"] = d["records"]
    if tool == "prec --aggregate":
        d["samples"] = weights(out)
        agg = overhead_aggregate(out)
        if agg:
            d["bpf_runs"], d["bpf"] = agg[0], agg[1] / 1e9
    if case == "b" and i == 0:
        r = subprocess.run(["perf", "report", "-i", out, "--stdio", "--sort", "sym", "-q"],
                           capture_output=True, text=True)
        d["split"] = split(r.stdout)
    return d

def ready(pid, timeout=120):
    """Wait until profile-bpfcc has its perf events open, one per CPU (it has loaded and
    attached its program); False when it exits or takes longer than timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            fds = [os.readlink("/proc/%d/fd/%s" % (pid, f))
                   for f in os.listdir("/proc/%d/fd" % pid)]
        except OSError:
            fds = []
        if sum(1 for f in fds if f == "anon_inode:[perf_event]") >= ncpu:
            return True
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return False
        except ChildProcessError:
            return False
        time.sleep(0.1)
    return False

def run_profile(case, i):
    """One recording by profile-bpfcc: system-wide (a) or -p the workload's pid (b), folded
    output to a file; it is started first and the work released once its program is attached."""
    exe = shutil.which("profile-bpfcc")
    if not exe:
        raise Failed("profile-bpfcc not installed (Debian bpfcc-tools)")
    out = os.path.join(tmp, "%s-profile.folded" % case)
    errf = os.path.join(tmp, "profile.err")
    gate = os.path.join(tmp, "gate")
    if os.path.exists(gate):
        os.unlink(gate)
    os.mkfifo(gate)
    # the work waits at the gate, so that profile-bpfcc can be given its pid before it runs
    w = spawn(["sh", "-c", 'read x < "$0"; exec "$@"', gate] + workload(case),
              stderr=subprocess.PIPE)
    cmd = [exe, "-F", str(FREQ[case]), "-f"] + (["-p", str(w.pid)] if case == "b" else [])
    with open(out, "w") as o, open(errf, "w") as e:
        p = spawn(cmd, stdout=o, stderr=e)
    if not ready(p.pid):
        cleanup()
        raise Failed(last_line(open(errf).read()))
    with open(gate, "w"):
        pass
    err = w.communicate()[1].decode(errors="replace")
    os.kill(p.pid, signal.SIGINT)
    rc, total = benchlib.wait_cpu(p)
    text = open(errf).read()
    if rc:
        raise Failed("exit %d: %s" % (rc, last_line(text)))
    samples = 0
    for l in open(out):
        n = l.rstrip().rpartition(" ")[2]
        samples += int(n) if n.isdigit() else 0
    m = re.findall(r"WARNING: (\d+) stack traces could not be displayed", text)
    d = {"file": os.path.getsize(out), "recorder": total, "work": benchlib.hot3_cpu(err),
         "records": sum(1 for _ in open(out)), "samples": samples,
         "lost": sum(int(x) for x in m)}
    if case == "b" and i == 0:
        d["split"] = folded_split(out)
    return d

def bare(case):
    p = spawn(workload(case), stderr=subprocess.PIPE)
    err = p.communicate()[1].decode(errors="replace")
    return benchlib.hot3_cpu(err)

def median(xs):
    return statistics.median(xs) if xs else None

status = 0
try:
    # Warm-up, and the probe of --aggregate: one recording of `true` each (prec's calibrations
    # and perf's build-id cache are kept, as for a user who records every day).
    na = {}
    for tool in RECORDERS[:3]:
        for case in cases:
            r = subprocess.run(record_cmd(tool, case, os.path.join(tmp, "warm.data")) +
                               ["--", "true"], capture_output=True, text=True)
            if r.returncode and tool == "prec --aggregate":
                na[tool] = "n/a (prec record --aggregate not available: %s)" % \
                    last_line(r.stderr)
            elif r.returncode:
                raise Failed("%s cannot record: %s" % (tool, last_line(r.stderr)))
    res = {}
    order = ["bare"] + RECORDERS
    for i in range(runs):
        for case in cases:
            k = (i + cases.index(case)) % len(order)
            for tool in order[k:] + order[:k]:
                if tool in na:
                    continue
                key = (case, tool)
                try:
                    if tool == "bare":
                        res.setdefault(key, []).append({"work": bare(case)})
                    elif tool == "profile-bpfcc":
                        res.setdefault(key, []).append(run_profile(case, i))
                    else:
                        res.setdefault(key, []).append(run_recorder(tool, case, i))
                except Failed as e:
                    if tool == "profile-bpfcc":
                        na[tool] = "not measured (profile-bpfcc: %s)" % e
                    else:
                        print("aggregate: %s" % e, file=sys.stderr)
                        status = 1
                        na[tool] = "failed: %s" % e
        print("# run %d of %d done" % (i + 1, runs), file=sys.stderr)

    print("# %d rounds of hot3 per CPU (%.1f s of CPU each), medians of %d runs%s" %
          (rounds, secs, runs, "; profile-bpfcc with " + bcc_note if bcc_note else ""))
    fig = {}
    for case in cases:
        b = median([x["work"] for x in res.get((case, "bare"), [])])
        print()
        print("(%s) %s -e cpu-clock -F %d%s, bare work %.3f s CPU" % (
            case, "every CPU busy," if case == "a" else "one task,", FREQ[case],
            " " + " ".join(MODE[case]) if MODE[case] else "", b))
        print("| recorder | file, bytes | records | samples | recorder CPU, ms | bpf, ms | "
              "lost | work, s CPU | slowdown | per sample, us |%s" %
              (" hot_a/b/c % |" if case == "b" else ""))
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s" %
              ("---:|" if case == "b" else ""))
        for tool in RECORDERS:
            v = res.get((case, tool))
            if tool in na and not v:
                print("| %s | %s |" % (tool, na[tool]))
                continue
            m = lambda f: median([x[f] for x in v if f in x])
            slow = median([(x["work"] - b) / b for x in v])
            per = median([(x["work"] - b) / x["samples"] for x in v if x["samples"]])
            fig[(case, tool)] = f = {k: m(k) for k in ("file", "records", "samples",
                                                       "recorder", "lost", "work", "bpf")}
            f["per"] = per
            f["bpf_runs"] = m("bpf_runs")
            bpf = "%.1f (%d runs)" % (f["bpf"] * 1e3, f["bpf_runs"]) if f["bpf"] is not None else \
                ("-" if tool != "profile-bpfcc" else "not measured")
            print("| %s | %d | %d | %d | %.1f | %s | %d | %.3f | %.1f%% | %s |%s" % (
                tool, f["file"], f["records"], f["samples"], f["recorder"] * 1e3, bpf,
                f["lost"], f["work"], 100 * slow,
                "%.2f" % (per * 1e6) if per is not None else "-",
                " %s |" % v[0].get("split", "-") if case == "b" else ""))
        print()
        print("(%s) against perf record | file size, perf / x | recorder CPU, perf / x | "
              "lost, perf vs x | slowdown per sample, x / perf |" % case)
        print("|---|---:|---:|---:|---:|")
        p = fig.get((case, "perf"))
        for tool in RECORDERS[1:]:
            q = fig.get((case, tool))
            if not p or not q:
                print("| %s | n/a | n/a | n/a | n/a |" % tool)
                continue
            ratio = lambda x, y: "%.1fx" % (x / y) if y else "-"
            print("| %s | %s | %s | %d vs %d | %s |" % (
                tool, ratio(p["file"], q["file"]), ratio(p["recorder"], q["recorder"]),
                p["lost"], q["lost"],
                ratio(q["per"], p["per"]) if p["per"] and q["per"] is not None else "-"))
    print()
    print("(aims for prec --aggregate against perf: file size >= 50x, recorder CPU >= 10x, no "
          "more lost, slowdown per sample no more than a normal recording's)")
except Failed as e:
    print("aggregate: %s" % e, file=sys.stderr)
    status = 1
finally:
    cleanup()
sys.exit(status)
EOF
pypid=$!
rc=0
wait "$pypid" || rc=$?
pypid=
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)," \
	"perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
exit "$rc"
