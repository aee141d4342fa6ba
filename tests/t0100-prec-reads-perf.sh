#!/bin/bash
# t0100: prec reads what perf 6.1 writes. perf records the bundled workload at test time (plain
# cpu-clock, -g, -z, a system-wide tracepoint, --switch-events, pipe mode), and for each file
# `prec report --stats` prints exactly what `perf report --stats` prints (every record type with
# the same count, decompressed records counted as perf counts them, samples per event), prec -D
# dumps every sample, --header-only prints what perf's --header-only prints, and the summary
# counts the samples. Pipe streams that perf 6.1's report cannot read itself (a tracepoint or -z
# in pipe mode) are checked against perf script's sample count instead.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
# shellcheck disable=SC2002 # cat FILE | perf -i -: perf must read a real pipe
. "$(dirname "$0")/lib.sh"

require root perf

W=$PREC_BUILD/tests/workloads/hot3
[ -x "$W" ] || skip_all "the hot3 workload is not built"

# record NAME PERF-RECORD-ARGS...: perf record into NAME.data (file mode).
record() {
	local name=$1
	shift
	perf record -q -o "$name.data" "$@" >"$name.rec.out" 2>&1 ||
		{ cat "$name.rec.out"; return 1; }
	[ -s "$name.data" ] || fail "perf wrote no $name.data"
}

# same_stats NAME [INPUT]: prec report --stats prints what perf report --stats prints.
same_stats() {
	local name=$1 in=${2:-$1.data}
	perf_clean perf report -i "$in" --stats >"$name.perf.stats" || return 1
	"$PREC" report -i "$in" --stats >"$name.prec.stats" 2>"$name.prec.err" ||
		{ cat "$name.prec.err"; return 1; }
	no_stderr "$name.prec.err" || return 1
	grep -q ' SAMPLE events: *[1-9]' "$name.perf.stats" || fail "perf counts no samples"
	diff "$name.perf.stats" "$name.prec.stats" || fail "--stats differs from perf's"
}

# samples_of NAME: the number of samples perf report --stats counted.
samples_of() {
	awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' "$1.perf.stats"
}

# dump_ok NAME: prec -D runs cleanly and dumps every sample perf counted.
dump_ok() {
	local name=$1 n
	"$PREC" report -i "$name.data" -D >"$name.dump" 2>"$name.dump.err" ||
		{ cat "$name.dump.err"; return 1; }
	no_stderr "$name.dump.err" || return 1
	n=$(grep -c ': PERF_RECORD_SAMPLE(' "$name.dump")
	[ "$n" = "$(samples_of "$name")" ] ||
		fail "-D shows $n samples, perf counts $(samples_of "$name")"
}

# header_ok NAME: prec --header-only prints what perf --header-only prints.
header_ok() {
	local name=$1
	perf_clean perf report -i "$name.data" --header-only >"$name.perf.header" || return 1
	"$PREC" report -i "$name.data" --header-only >"$name.prec.header" 2>"$name.hdr.err" ||
		{ cat "$name.hdr.err"; return 1; }
	no_stderr "$name.hdr.err" || return 1
	grep -q '^# event : name = ' "$name.prec.header" || fail "no event line"
	diff "$name.perf.header" "$name.prec.header" || fail "--header-only differs from perf's"
}

# summary_ok NAME: the default view counts the samples perf counted.
summary_ok() {
	local name=$1 n
	"$PREC" report -i "$name.data" >"$name.summary" 2>"$name.sum.err" ||
		{ cat "$name.sum.err"; return 1; }
	no_stderr "$name.sum.err" || return 1
	n=$(sed -n 's/^# \([0-9]*\) samples.*/\1/p' "$name.summary")
	[ "$n" = "$(samples_of "$name")" ] || fail "the summary counts $n samples"
}

# check NAME: all of the above for a file-mode recording.
check() {
	test_expect "$1: --stats is perf's" "same_stats $1"
	test_expect "$1: -D dumps every sample" "dump_ok $1"
	test_expect "$1: --header-only is perf's" "header_ok $1"
	test_expect "$1: the summary counts the samples" "summary_ok $1"
}

test_expect "perf records cpu-clock" "record cpu -e cpu-clock -- $W -c 0.3"
check cpu

test_expect "perf records with -g" "record callchain -e cpu-clock -g -- $W -c 0.3"
check callchain
test_expect "callchain: -D shows the chains" \
	'grep -q "^\.\.\. FP chain: nr:[1-9]" callchain.dump'

if have zstd && perf version --build-options 2>/dev/null | grep -q 'zstd: *\[ on'; then
	test_expect "perf records with -z" "record zstd -e cpu-clock -z -- $W -c 0.3"
	test_expect "zstd: the file has COMPRESSED records" \
		'"$PREC" report -i zstd.data --stats | grep -q "COMPRESSED events: *[1-9]"'
	check zstd
else
	test_skip "perf records with -z" "prec or perf is built without zstd"
fi

if have tracefs; then
	test_expect "perf records a tracepoint system-wide" \
		"record tracepoint -e sched:sched_switch -a -- sleep 0.2"
	check tracepoint
	test_expect "tracepoint: the event is named from the tracing data" \
		'grep -q "^sched:sched_switch stats:" tracepoint.prec.stats'
else
	test_skip "perf records a tracepoint system-wide" "no tracefs"
fi

test_expect "perf records --switch-events" \
	"record switch -e cpu-clock --switch-events -- $W -c 0.3"
check switch
test_expect "switch: SWITCH records counted" \
	'grep -q "SWITCH events: *[1-9]" switch.prec.stats'

# Pipe mode: prec reads the stream as perf writes it; perf report reads the same bytes after.
pipe_stats() {
	perf record -q -e cpu-clock -o - -- "$W" -c 0.3 2>pipe.rec.err | tee pipe.data |
		"$PREC" report -i - --stats >pipe.prec.stats 2>pipe.prec.err || return 1
	no_stderr pipe.prec.err || return 1
	cat pipe.data | perf_clean perf report -i - --stats >pipe.perf.stats || return 1
	grep -q ' SAMPLE events: *[1-9]' pipe.perf.stats || fail "perf counts no samples"
	grep -q ' ATTR events: *1' pipe.prec.stats || fail "no HEADER_ATTR counted"
	diff pipe.perf.stats pipe.prec.stats || fail "--stats differs from perf's"
}
test_expect "pipe: perf record -o - | prec report -i - --stats is perf's" pipe_stats
test_expect "pipe: -D and --header-only read the stream" '
	cat pipe.data | "$PREC" report -i - -D >pipe.dump 2>pipe.err && no_stderr pipe.err &&
	cat pipe.data | "$PREC" report -i - --header-only >pipe.header 2>pipe.err &&
	no_stderr pipe.err && grep -q "^# hostname : " pipe.header &&
	[ "$(grep -c ": PERF_RECORD_SAMPLE(" pipe.dump)" = "$(samples_of pipe)" ]'

# script_samples NAME EVENT: samples of EVENT that perf script finds in NAME.data.
script_samples() {
	cat "$1.data" | perf script -i - -F event 2>/dev/null |
		awk -v ev="$2:" '$1 == ev { n++ } END { print n + 0 }'
}

# prec_samples NAME EVENT: what prec report --stats counts for EVENT in the stream.
prec_samples() {
	cat "$1.data" | "$PREC" report -i - --stats 2>"$1.err" |
		awk -v ev="$2 stats:" '$0 == ev { getline; print $3; exit }'
}

pipe_vs_script() {
	local name=$1 ev=$2 want got
	want=$(script_samples "$name" "$ev")
	got=$(prec_samples "$name" "$ev")
	no_stderr "$name.err" || return 1
	[ "$want" -gt 0 ] || fail "perf script finds no $ev samples"
	[ "$got" = "$want" ] || fail "prec counts '$got' $ev samples, perf script $want"
}

if have tracefs; then
	test_expect "pipe: a tracepoint stream (HEADER_TRACING_DATA) is read" '
		perf record -q -e sched:sched_switch -a -o - -- sleep 0.2 \
			>pipetp.data 2>/dev/null &&
		pipe_vs_script pipetp sched:sched_switch'
else
	test_skip "pipe: a tracepoint stream (HEADER_TRACING_DATA) is read" "no tracefs"
fi
if have zstd && perf version --build-options 2>/dev/null | grep -q 'zstd: *\[ on'; then
	test_expect "pipe: a -z stream (COMPRESSED in pipe mode) is read" "
		perf record -q -z -e cpu-clock -o - -- $W -c 0.3 >pipez.data 2>/dev/null &&
		pipe_vs_script pipez cpu-clock"
else
	test_skip "pipe: a -z stream (COMPRESSED in pipe mode) is read" "no zstd"
fi

done_testing
