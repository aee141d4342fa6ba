#!/bin/bash
# Does prec tell the truth about what profiling costs? For a CPU-bound program (hot3 with a fixed
# number of rounds, its 50/30/20 split kept) at several sampling rates, the slowdown measured
# against an unprofiled run, beside the overhead prec record measured and prec report --overhead
# reports for the same run; then what turning the overhead collection on costs by itself.
#
#   bench/overhead-truth.sh [-b BUILD_DIR] [-r "RATES"] [-n PAIRS] [-R ROUNDS] [-c CPU]
#                           [-s COLLECTOR_RATE] [-t RUNS]
#   defaults: -b build -r "1000 4000 10000 25000 50000" -n 9 -R 300 -c <last CPU> -s 50000 -t 9
#
# Part 1, truth. For every pair, in rotating order, and every rate: hot3 -r ROUNDS alone, and the
# same under `prec record -e cpu-clock -F RATE` (cpu-clock, the machine has no PMU), hot3 pinned
# to CPU. hot3 times its rounds itself, in thread CPU time: time the host ran someone else
# (steal) is left out, which on a shared VM is most of the noise of wall time, while interrupts
# and what the hypervisor adds to them are charged to the task they interrupted. Per rate, the
# medians over the pairs:
#	slowdown	= (profiled - bare) / bare
#	prec		= the sampling overhead prec reports for the profiled run: per CPU, the
#			  calibrated stolen time (prec:overhead type stolen), summed over the CPUs
#	explained	= prec / (profiled - bare)
#	per sample	= (profiled - bare) / samples, beside the calibrated stolen time per sample
#	handler only	= what the handler time alone would explain: per CPU, the handler's
#			  measured average (type sample) times the samples taken there
# Part 2, the measurement's own cost. Runs of four at one rate (-s), in rotating order: hot3 alone,
# and under prec record --overhead-source=none, =bpf and =tracepoint. A cost per sample c taken
# at r samples per CPU-second of the run leaves the program 1 - r c of the CPU, so every cost
# added per sample also lengthens the run and brings more samples; per run of four, with T0 the
# bare time:
#	collector cost per sample	= T0 (1 / T_none - 1 / T_with) / (samples_with / T_with)
# medians over the runs, beside what prec calibrated for the tracepoint collector in the same
# runs (prec calibrates it only for that collector, whose handler times it inflates).
#
# It holds the tests' sampling lock (tests/lib.sh) exclusively, so that no test of prec samples
# meanwhile. Run as root on a machine as quiet as you can get; about 4 minutes with the defaults.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
rates="1000 4000 10000 25000 50000"
pairs=9
rounds=300
cpu=
crate=50000
triples=9
while getopts "b:r:n:R:c:s:t:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	r) rates=$OPTARG ;;
	n) pairs=$OPTARG ;;
	R) rounds=$OPTARG ;;
	c) cpu=$OPTARG ;;
	s) crate=$OPTARG ;;
	t) triples=$OPTARG ;;
	*) sed -n '2,40p' "$0"; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "overhead-truth: run as root" >&2; exit 1; }
prec=$build/prec
hot3=$build/tests/workloads/hot3
for f in "$prec" "$hot3"; do
	[ -x "$f" ] || { echo "overhead-truth: no $f; build first" >&2; exit 1; }
done
[ -n "$cpu" ] || cpu=$(($(nproc) - 1))

tmp=$(mktemp -d /tmp/prec-truth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
exec 9>>"${PREC_TEST_LOCK:-${TMPDIR:-/tmp}/prec-tests-sampling.lock}"
flock -x 9

echo "# bench/overhead-truth.sh -b $build -r \"$rates\" -n $pairs -R $rounds -c $cpu -s $crate -t $triples"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

# cputime FILE: the CPU seconds hot3 printed into FILE
cputime() {
	sed -n 's/^hot3: .* wall, \([0-9.]*\) s CPU$/\1/p' "$1"
}

# bare: hot3 alone; prints its CPU seconds
bare() {
	taskset -c "$cpu" "$hot3" -r "$rounds" 2>"$tmp/bare.err"
	cputime "$tmp/bare.err"
}

# profiled RATE SOURCE: hot3 under prec record; prints "CPU-seconds samples", leaves run.data
profiled() {
	"$prec" record -e cpu-clock -F "$1" --sample-cpu --overhead-source="$2" -o "$tmp/run.data" \
		-- taskset -c "$cpu" "$hot3" -r "$rounds" 2>"$tmp/prof.err" >/dev/null
	echo "$(cputime "$tmp/prof.err") $(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/prof.err")"
}

# figures: from run.data, "stolen-ns handler-ns collector-ns" (collector-ns - when not there)
figures() {
	"$prec" report --overhead --json -i "$tmp/run.data" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
stolen = handler = 0
for c in d["cpus"]:
    if c["cpu"] < 0:
        continue
    k = {x["type"]: x for x in c["costs"] if not x["unavailable"]}
    if "stolen" in k:
        stolen += k["stolen"]["time_ns"]
    if "sample" in k and k["sample"]["nr"] and "stolen" in k:
        handler += k["sample"]["time_ns"] / k["sample"]["nr"] * k["stolen"]["nr"]
coll = d["facts"].get("collector_ns") if d["facts"].get("present") else None
print(stolen, round(handler), coll if coll is not None else "-")'
}

# ---- part 1 (-n 0: skipped)
: >"$tmp/truth"
for p in $(seq "$pairs"); do
	for r in $rates; do
		if [ $(((p + r / 1000) % 2)) = 0 ]; then
			b=$(bare); read -r t s < <(profiled "$r" auto)
		else
			read -r t s < <(profiled "$r" auto); b=$(bare)
		fi
		echo "$r $b $t $s $(figures)" >>"$tmp/truth"
	done
	echo "# pair $p of $pairs done" >&2
done

[ "$pairs" -gt 0 ] && python3 - "$tmp/truth" <<'EOF'
import statistics as st, sys
rows = {}
for l in open(sys.argv[1]):
    r, b, t, s, stolen, handler, _ = l.split()
    rows.setdefault(int(r), []).append((float(b), float(t), int(s), int(stolen) / 1e9,
                                        float(handler) / 1e9))
print()
print("| -F | samples/s | bare, s CPU | profiled, s CPU | slowdown | prec: stolen time | "
      "explained | handler time alone | explained by the handler | lost per sample | "
      "calibrated |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in sorted(rows):
    v = rows[r]
    b = st.median(x[0] for x in v)
    t = st.median(x[1] for x in v)
    extra = st.median(x[1] - x[0] for x in v)
    rate = st.median(x[2] / x[1] for x in v)
    stolen = st.median(x[3] for x in v)
    handler = st.median(x[4] for x in v)
    per = st.median((x[1] - x[0]) / x[2] for x in v if x[2])
    cal = st.median(x[3] / x[2] for x in v if x[2])
    print("| %d | %.0f | %.3f | %.3f | %.1f%% | %.3f s (%.1f%%) | %.0f%% | %.3f s | %.0f%% | "
          "%.1f us | %.1f us |" % (
        r, rate, b, t, 100 * extra / b, stolen, 100 * stolen / b, 100 * stolen / extra,
        handler, 100 * handler / extra, per * 1e6, cal * 1e6))
print()
print("(medians over %d pairs; slowdown = median(profiled - bare) / median(bare); prec's "
      "figures are the same runs' prec:overhead samples)" % len(next(iter(rows.values()))))
EOF

# ---- part 2 (-t 0: skipped)
: >"$tmp/coll"
srcs="bare none bpf tracepoint"
for p in $(seq "$triples"); do
	set -- $srcs
	case $((p % 4)) in
	1) order="$1 $2 $3 $4" ;;
	2) order="$2 $3 $4 $1" ;;
	3) order="$3 $4 $1 $2" ;;
	0) order="$4 $1 $2 $3" ;;
	esac
	for s in $order; do
		if [ "$s" = bare ]; then
			echo "$p bare $(bare) 0 - - -" >>"$tmp/coll"
			continue
		fi
		read -r t n < <(profiled "$crate" "$s")
		echo "$p $s $t $n $(figures)" >>"$tmp/coll"
	done
	echo "# run $p of $triples done" >&2
done

[ "$triples" -gt 0 ] && python3 - "$tmp/coll" "$crate" <<'EOF'
import statistics as st, sys
runs = {}
for l in open(sys.argv[1]):
    p, s, t, n, _, _, coll = l.split()
    runs.setdefault(int(p), {})[s] = (float(t), int(n), None if coll == "-" else float(coll))
med = lambda s, i: st.median(v[s][i] for v in runs.values())
print()
print("| at -F %s | CPU time, s | samples | slowdown | cost per sample | prec's own "
      "calibration |" % sys.argv[2])
print("|---|---:|---:|---:|---:|---:|")
print("| hot3 alone | %.3f | - | - | - | - |" % med("bare", 0))
off = [v["bare"][0] * (1 / v["bare"][0] - 1 / v["none"][0]) / (v["none"][1] / v["none"][0])
       for v in runs.values()]
print("| prec, collection off (--overhead-source=none) | %.3f | %d | %.1f%% against hot3 alone "
      "| %.1f us (sampling) | - |" % (
    med("none", 0), med("none", 1),
    100 * st.median(v["none"][0] / v["bare"][0] - 1 for v in runs.values()),
    st.median(off) / 1e-6))
for s in ("bpf", "tracepoint"):
    per = [v["bare"][0] * (1 / v["none"][0] - 1 / v[s][0]) / (v[s][1] / v[s][0]) * 1e9
           for v in runs.values() if v[s][1]]
    cal = [v[s][2] for v in runs.values() if v[s][2] is not None]
    q = st.quantiles(per, n=4) if len(per) > 1 else [per[0]] * 3
    print("| prec, collection on: %s | %.3f | %d | %+.1f%% against off | +%.0f ns (quartiles "
          "%.0f to %.0f) | %s |" % (
        s, med(s, 0), med(s, 1), 100 * st.median(v[s][0] / v["none"][0] - 1 for v in runs.values()),
        st.median(per), q[0], q[2],
        "%.0f ns" % st.median(cal) if cal else "not calibrated"))
print()
print("(medians over %d runs of four; cost per sample = T0 (1/T - 1/T') / (samples' / T'), "
      "the collector's against collection off, the sampling's against hot3 alone)" % len(runs))
EOF
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
