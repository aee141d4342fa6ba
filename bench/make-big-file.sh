#!/bin/bash
# Make the big perf-written file that bench/read-speed.sh and bench/report-speed.sh read: perf
# record -a -g -F 20000 (cpu-clock, frame-pointer call chains, every CPU) over a busy workload
# (hot3 on one CPU, a kernel-heavy loop of find and dd on the others), until the file is at least
# the size asked for.
#
#   bench/make-big-file.sh [-b BUILD_DIR] [-o FILE] [-m MIN_MB] [-s SECONDS]
#
# Defaults: build/, /tmp/prec-big.data, 200 MB, a first try of 25 s (lengthened and tried again
# when the file comes out smaller). Prints the file's size, samples and duration at the end. Run
# as root.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
out=/tmp/prec-big.data
min_mb=200
secs=25
while getopts "b:o:m:s:h" o; do
	case $o in
	b) build=$(cd "$OPTARG" && pwd) ;;
	o) out=$OPTARG ;;
	m) min_mb=$OPTARG ;;
	s) secs=$OPTARG ;;
	*) sed -n '2,11p' "$0"; exit 2 ;;
	esac
done

hot3=$build/tests/workloads/hot3
[ -x "$hot3" ] || { echo "make-big-file: no $hot3 (build first)" >&2; exit 1; }
command -v perf >/dev/null || { echo "make-big-file: perf is not installed" >&2; exit 1; }

# The workload: hot3 for the whole time, and a loop that lives in the kernel (path walks, stat,
# small reads and writes) with a few short processes, so that the call chains are varied.
workload() {
	local s=$1 end
	"$hot3" "$s" &
	end=$((SECONDS + ${s%.*}))
	(
		while [ $SECONDS -lt $end ]; do
			find /usr/lib /usr/share -maxdepth 4 -name '*.so*' >/dev/null 2>&1
			dd if=/dev/zero of=/dev/null bs=512 count=20000 2>/dev/null
			ls -lR /usr/include >/dev/null 2>&1
		done
	) &
	wait
}
export -f workload
export hot3

while :; do
	echo "make-big-file: perf record -a -g -F 20000 for ${secs} s into $out" >&2
	perf record -q -a -g -F 20000 -e cpu-clock -o "$out" -- bash -c "workload $secs" \
		>/dev/null 2>&1
	size=$(stat -c %s "$out")
	if [ "$size" -ge $((min_mb * 1000 * 1000)) ]; then
		break
	fi
	# lengthen by the missing share, and a little more
	secs=$(( (secs * min_mb * 1000 * 1000 / size) * 11 / 10 + 1 ))
	echo "make-big-file: only $((size / 1000000)) MB; again with ${secs} s" >&2
done
samples=$(perf report -i "$out" --stats 2>/dev/null | awk '/ SAMPLE events:/ {print $3; exit}')
echo "$out: $((size / 1000000)) MB ($size bytes), $samples samples, recorded for ${secs} s"
