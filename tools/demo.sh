#!/bin/bash
# Install what is missing, build prec, record the bundled workload and report on it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
out=prec-demo.data
# Until prec record lands, the recording is made by perf and read by prec.
perf record -q -e cpu-clock -F 4000 -g -o "$out" -- build/tests/workloads/hot3 2
build/prec report -i "$out"
