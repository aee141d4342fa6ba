# shellcheck shell=bash
# What the benchmarks' shell scripts share; bench/benchlib.py is the same for their Python.
#   src=$(cd "$(dirname "$0")/.." && pwd)
#   . "$src/bench/lib.sh"
#   bench_setup NAME PREC WORKLOAD    after the options are parsed

# bench_setup NAME PREC WORKLOAD: refuse to run, in one line on stderr with exit status 1, unless
# root, with prec and the workload binary (PREC and WORKLOAD) built and perf installed.
bench_setup() {
	[ "$(id -u)" = 0 ] || { echo "$1: run as root" >&2; exit 1; }
	if [ ! -x "$2" ] || [ ! -x "$3" ]; then
		echo "$1: build prec and $(basename "$3") first (no $2 or $3)" >&2
		exit 1
	fi
	command -v perf >/dev/null || { echo "$1: perf is not installed" >&2; exit 1; }
}
