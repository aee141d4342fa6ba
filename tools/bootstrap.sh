#!/bin/bash
# Install what prec needs on Debian 12 (as root), then configure and build it in ./build.
# Safe to run again: it installs only what is missing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs="build-essential autoconf automake pkg-config python3 zstd linux-perf
      libtraceevent-dev libtracefs-dev libelf-dev libzstd-dev libbpf-dev bpftool clang"
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "prec: installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Tracepoints live in tracefs; some machines do not mount it.
if [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi >/dev/null
fi
mkdir -p build
cd build
if [ ! -f Makefile ]; then
	../configure ${PREC_CONFIGURE_FLAGS:-} >configure.out || { cat configure.out; exit 1; }
	sed -n '/^prec /,$p' configure.out
fi
make -j"$(nproc)" >/dev/null
