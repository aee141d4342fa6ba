#!/bin/bash
# Install what prec needs on Debian 12 (as root), then configure and build it in ./build.
# Safe to run again: it installs only what is missing and rebuilds only what changed.
#
# usage: tools/bootstrap.sh [DIR [CONFIGURE-ARG...]]
# builds in ./DIR instead (default build), configured with $PREC_CONFIGURE_FLAGS and then the
# arguments given, e.g. PREC_CONFIGURE_FLAGS=CC=clang tools/bootstrap.sh build-asan
# --enable-sanitizers. A directory configured with other arguments is configured again.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true

pkgs="build-essential autoconf automake pkg-config python3 zstd linux-perf
      libtraceevent-dev libtracefs-dev libelf-dev libdw-dev zlib1g-dev libzstd-dev libbpf-dev bpftool clang"
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
# The configure arguments, one a line, to compare with those the directory was configured with
# (config.status --config quotes them as a shell would read them).
# shellcheck disable=SC2086 # the flags are words, as on a command line
want=$(printf '%s\n' ${PREC_CONFIGURE_FLAGS:-} "$@")
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ] || [ "$(eval "printf '%s\n' $(./config.status --config)")" != "$want" ]; then
	# Objects another compiler built would be linked as they are: start from nothing.
	if [ -f Makefile ]; then
		make clean >/dev/null
	fi
	# shellcheck disable=SC2086 # the flags are words, as on a command line
	../configure ${PREC_CONFIGURE_FLAGS:-} "$@" >configure.out ||
		{ cat configure.out; exit 1; }
	sed -n '/^prec /,$p' configure.out
fi
make -j"$(nproc)" >/dev/null
