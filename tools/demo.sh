#!/bin/bash
# Install what is missing, build prec, record the bundled workload and report on it: where the
# time went, what the profiling cost, and the counter readings taken beside the samples.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
out=prec-demo.data
build/prec record -F 4000 -g --count task-clock,page-faults,context-switches -o "$out" -- \
	build/tests/workloads/hot3 2
echo
build/prec report -i "$out" --percent-limit 1
echo
build/prec report -i "$out" --overhead
echo
build/prec report -i "$out" --counters
