#!/bin/bash
# Install what is missing, build prec, record the bundled workload and report on it: where the
# time went, then what the profiling cost.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
out=prec-demo.data
build/prec record -F 4000 -g -o "$out" -- build/tests/workloads/hot3 2
echo
build/prec report -i "$out" --percent-limit 1
echo
build/prec report -i "$out" --overhead
