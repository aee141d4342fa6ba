# shellcheck shell=bash
# Test library for prec's integration tests: TAP output, prerequisites, a scratch directory and
# one normaliser for golden outputs. Source it, call plan or let done_testing count, then:
#
#   require root perf tracefs    # a missing prerequisite skips the whole file, visibly
#   test_expect "perf reads it" 'perf report -i x.data --stdio 2>err && ! test -s err'
#   done_testing
#
# PREC_SRC and PREC_BUILD are set by make check (AM_TESTS_ENVIRONMENT); when a test is run by
# hand they default to the source tree and ./build.
set -u

PREC_SRC=${PREC_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PREC_BUILD=${PREC_BUILD:-$PREC_SRC/build}
PREC=${PREC:-$PREC_BUILD/prec}
PYTHON=${PYTHON:-python3}
export PREC_SRC PREC_BUILD PREC PYTHON
export LC_ALL=C

_t_count=0
_t_failed=0
_t_name=$(basename "$0" .sh)

# Every test file gets its own scratch directory, removed at the end unless PREC_KEEP is set.
T=$(mktemp -d "${TMPDIR:-/tmp}/prec-$_t_name.XXXXXX")
_t_atexit=()
# at_exit CMD: run CMD when the test file ends (e.g. to kill a background workload). Its exit
# status is ignored: the file's own status is what the harness sees.
at_exit() {
	_t_atexit+=("$1")
}
_t_cleanup() {
	local rc=$? c
	for c in ${_t_atexit[@]+"${_t_atexit[@]}"}; do
		eval "$c" >/dev/null 2>&1
	done
	[ -n "${PREC_KEEP:-}" ] || rm -rf "$T"
	exit $rc
}
trap _t_cleanup EXIT
cd "$T" || exit 1

# Tests that sample share the machine; tests that measure what sampling costs (they count every
# sampling interrupt on a CPU, whoever caused it) need it to themselves. Each test file holds a
# shared lock; a file that sets PREC_TEST_EXCLUSIVE=1 before sourcing this one holds it
# exclusively, so it waits for the others and they wait for it. C tests use tap_exclusive().
PREC_TEST_LOCK=${PREC_TEST_LOCK:-${TMPDIR:-/tmp}/prec-tests-sampling.lock}
export PREC_TEST_LOCK
exec 9>>"$PREC_TEST_LOCK"
if [ -n "${PREC_TEST_EXCLUSIVE:-}" ]; then
	flock -x 9
else
	flock -s 9
fi

# skip_all REASON: nothing in this file can run; TAP says why.
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# mkdata_or_skip KIND FILE: tests/mkdata writes FILE of KIND, its manifest in ./manifest; a
# file this machine cannot make (status 77), or a failure, skips every test with the reason.
mkdata_or_skip() {
	local rc
	"$PREC_BUILD/tests/mkdata" "$1" "$2" >manifest 2>mk.err
	rc=$?
	[ $rc = 77 ] && skip_all "$(cat mk.err)"
	[ $rc = 0 ] || { cat mk.err; skip_all "mkdata failed ($rc)"; }
}

# _python_resolve: PYTHON runs, and names the interpreter itself from now on. The name configure
# found may be a version manager's launcher, a shell script that chooses the interpreter anew on
# every call and takes longer than the tests' own Python does (seconds on a busy machine, and the
# report tests run Python dozens of times); the interpreter it chooses is the same each time.
_python_resolved=
_python_resolve() {
	local exe
	[ -n "$_python_resolved" ] && return 0
	exe=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null) || return 1
	[ -x "$exe" ] && PYTHON=$exe
	_python_resolved=1
}

# prerequisite checks, each a name: root perf tracefs python zstd bpf libdw libdw-unwind
_have() {
	case "$1" in
	root) [ "$(id -u)" = 0 ] ;;
	perf) command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1 ;;
	tracefs)
		[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		[ -r /sys/kernel/tracing/events/header_page ] ;;
	python) _python_resolve ;;
	zstd) grep -q '^#define HAVE_ZSTD 1' "$PREC_BUILD/config.h" 2>/dev/null ;;
	bpf) grep -q '^#define HAVE_BPF 1' "$PREC_BUILD/config.h" 2>/dev/null ;;
	libdw) grep -q '^#define HAVE_LIBDW 1' "$PREC_BUILD/config.h" 2>/dev/null ;;
	libdw-unwind) grep -q '^#define HAVE_LIBDW_UNWIND 1' "$PREC_BUILD/config.h" 2>/dev/null ;;
	perf-python) perf version --build-options 2>/dev/null | grep -q 'libpython: *\[ on' ;;
	*) echo "# unknown prerequisite $1" >&2; return 1 ;;
	esac
}

# require PREREQ...: skip the whole file when one is missing.
require() {
	local p
	for p in "$@"; do
		_have "$p" || skip_all "missing prerequisite: $p"
	done
}

# have PREREQ: for single tests, with test_skip.
have() {
	_have "$1"
}

_t_result() {
	_t_count=$((_t_count + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_t_count - $2"
	else
		_t_failed=$((_t_failed + 1))
		echo "not ok $_t_count - $2"
	fi
}

# test_expect DESC SCRIPT: run SCRIPT in a subshell (stdout/stderr to the log); ok if it exits 0.
test_expect() {
	local desc=$1 script=$2 rc
	(eval "$script") >"$T/.out" 2>&1
	rc=$?
	_t_result $rc "$desc"
	if [ $rc != 0 ]; then
		sed 's/^/# /' "$T/.out" | head -40
	fi
	return 0
}

# test_expect_fail DESC SCRIPT: ok if SCRIPT fails.
test_expect_fail() {
	local desc=$1 script=$2 rc
	(eval "$script") >"$T/.out" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		_t_result 1 "$desc"
		sed 's/^/# /' "$T/.out" | head -40
	else
		_t_result 0 "$desc"
	fi
	return 0
}

# test_skip DESC REASON: a single visible skip.
test_skip() {
	_t_count=$((_t_count + 1))
	echo "ok $_t_count - $1 # SKIP $2"
}

done_testing() {
	echo "1..$_t_count"
	# The wall time, for tools/check.sh's list of the slowest files (not an assertion).
	echo "# elapsed ${SECONDS}s"
	[ $_t_failed = 0 ]
}

# --- helpers for assertions ---

# fail MSG: print and return 1 (use inside test scripts).
fail() {
	echo "$*"
	return 1
}

# usage_options USAGE: the options a command's usage text lists, one per line, sorted: every -x
# and --long-name at the start of an indented line (the long form after a comma).
usage_options() {
	sed -nE 's/^ +((-[a-zA-Z])(, )?)?(--[a-z][a-z-]*)?.*/\2 \4/p' "$1" | tr ' ' '\n' |
		grep -E '^-' | sort -u
}

# no_stderr FILE: the file exists and is empty, or print it.
no_stderr() {
	if [ -s "$1" ]; then
		echo "unexpected stderr:"
		head -20 "$1"
		return 1
	fi
}

# perf_clean CMD...: run perf, require exit 0 and an empty stderr (perf report exits 0 even when it
# failed to process a file, so stderr is the judge). stdout goes to stdout.
perf_clean() {
	local err="$T/.perf-err.$$"
	"$@" 2>"$err"
	local rc=$?
	# On stderr: callers send perf's output (stdout) to a file.
	if [ $rc != 0 ]; then
		{
			echo "exit $rc from: $*"
			head -20 "$err"
		} >&2
		return 1
	fi
	no_stderr "$err" >&2 || { echo "from: $*" >&2; return 1; }
}

# perf_clean_but_lost CMD...: perf_clean, except that perf's warning about lost chunks and
# samples is allowed (a loaded machine may make the kernel drop some); anything else, such as
# "out of order events", is not.
perf_clean_but_lost() {
	local err="$T/.perf-err.$$"
	"$@" 2>"$err" || { echo "exit $? from: $*" >&2; return 1; }
	grep -Ev '^(Warning:|Processed [0-9]+ (events|samples) and lost .*|Check IO/CPU overload!|)$' \
		"$err" >"$err.other"
	no_stderr "$err.other" >&2 || { echo "from: $*" >&2; return 1; }
}

# has_lost FILE: the file holds LOST or LOST_SAMPLES records (its rings overflowed)
has_lost() {
	perf report -i "$1" --stats 2>/dev/null | grep -Eq "^ *LOST(_SAMPLES)? events: *[1-9]"
}

# perf_clean_wide FILE CMD...: perf_clean for a system-wide recording FILE. The tests running
# beside it can overflow its rings (the side-band calibration of another recording maps and
# unmaps thousands of times while its SCHED_FIFO probes hold every CPU): when FILE holds lost
# records, perf's warning about them, and only it, is allowed.
perf_clean_wide() {
	local file=$1
	shift
	if has_lost "$file"; then
		perf_clean_but_lost "$@"
	else
		perf_clean "$@"
	fi
}

# hot3_share FILE SYM: SYM's percentage of the samples perf report (--stdio) gives hot3's three
# functions in FILE. hot3 does 50/30/20 of its work in hot_a, hot_b and hot_c; the kernel's
# stacks on top of it (interrupts, preemption) come and go with the machine's other load.
hot3_share() {
	awk -v s="$2" '$2 == "[.]" && $3 ~ /^hot_[abc]$/ { sub("%", "", $1); t += $1
		if ($3 == s) p = $1 } END { if (t > 0 && p != "") printf "%.2f\n", 100 * p / t }' "$1"
}

# near A B [D]: both are numbers and |A - B| <= D (3 unless given)
near() {
	awk -v a="$1" -v b="$2" -v d="${3:-3}" \
		'BEGIN { x = a - b; if (x < 0) x = -x; exit !(a != "" && b != "" && x <= d) }'
}

# perf_event_fds PID: the perf_event files the process holds
perf_event_fds() {
	local n=0 f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ] && n=$((n + 1))
	done
	echo $n
}

# counting MIN PID...: wait (30 s at most: a busy machine is slow to open counters) until each
# PID holds at least MIN perf_event files; 1 when one of them ends first or time runs out
counting() {
	local min=$1 p all
	shift
	for _ in $(seq 1500); do
		all=1
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null || return 1
			[ "$(perf_event_fds "$p")" -ge "$min" ] || all=
		done
		[ -n "$all" ] && return 0
		sleep 0.02
	done
	return 1
}

# normalise: the one filter for golden outputs: pids, times, addresses and paths become tokens.
normalise() {
	sed -E \
		-e 's/0x[0-9a-f]{6,}/ADDR/g' \
		-e 's/\b[0-9]+\.[0-9]{6,9}\b/TIME/g' \
		-e "s#$T#TMP#g" \
		-e 's/\b(pid|tid)[ =:]+[0-9]+/\1 PID/g'
}

# "${KWORK[@]}": a command that spends its time in the kernel (hundreds of samples there at
# 4 kHz), for checks of kernel rows: a user-space workload has a few kernel samples of its start
# and exit, and on some runs none.
KWORK=(dd if=/dev/zero of=/dev/null bs=64k count=5000 status=none)

# $FAVOURED WORKLOAD...: the workload runs ahead of all other work on the machine, at the lowest
# real-time priority (nice would not do: it only orders the processes of one session). For
# assertions on what a recording costs as a share of a CPU per second of wall time (the overhead
# findings): on a busy machine the workload would get a fraction of a CPU, cause that many fewer
# samples or side-band records per second, and cost less than the threshold it is to cross. The
# kernel still leaves the other work 5% of each CPU, and the workload must be a bounded one.
FAVOURED="chrt -r 1"

# ran PARENT EXE TICKS: wait (30 s at most: a busy machine may leave it a small share of a CPU)
# until a child of PARENT runs EXE (a resolved path) and has used TICKS clock ticks (1/100 s) of
# CPU: a recording is seen running, not assumed to be after a fixed sleep
ran() {
	local c t
	for _ in $(seq 1500); do
		for c in $(pgrep -P "$1"); do
			[ "$(readlink /proc/$c/exe 2>/dev/null)" = "$2" ] || continue
			t=$(awk '{ print $14 + $15 }' /proc/$c/stat 2>/dev/null)
			[ "${t:-0}" -ge "$3" ] && return 0
		done
		sleep 0.02
	done
	echo "# no $(basename "$2") with $3 ticks of CPU under pid $1 after 30 s"
	return 1
}
