#!/bin/bash
# t2012: prec report on a file whose samples were counted in the kernel (prec record --aggregate:
# one SAMPLE per key, WEIGHT the kernel samples it sums, the facts naming the event), built by
# tests/mkdata with known figures: -n, --json, --stats, the children view and --folded count the
# kernel samples, the header says the event was aggregated with both counts, percentages stay by
# period as perf's; perf report reads the same file without a word on stderr and counts records.
# Every expected figure comes from mkdata's manifest.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require perf python

# perf's configuration: nothing of the machine's.
unset PERF_CONFIG PERF_CONFIG_NOSYSTEM PERF_CONFIG_NOGLOBAL
export HOME=$T/home
mkdir -p "$HOME"

mkdata_or_skip aggregated agg.data

# m KEY...: the manifest's value for a line that starts with KEY... (the field after them)
m() {
	awk -v k="$*" 'index($0, k " ") == 1 { n = split(k, a, " "); print $(n + 1); exit }' manifest
}
# rows FILE EVENT: "symbol samples percent" of EVENT's table in a -n --sort sym report
rows() {
	awk -v ev="$2" '
		/^# Samples: .* of event / { on = index($0, "'\''" ev "'\''") > 0; next }
		on && /^ +[0-9.]+%/ { p = $1; n = $2; $1 = $2 = $3 = ""; sub(/^ +/, "");
			print $0, n, p }' "$1"
}
# expect_rows FILE EVENT FIELD: each leaf's samples (FIELD 4) or records (FIELD 5) of the
# manifest are the rows' Samples
expect_rows() {
	awk -v ev="$2" -v f="$3" '$1 == "leaf" && $2 == ev {
		s = $3; for (i = 4; i < NF - 1; i++) s = s " " $i; print s, $(NF - (f == 4 ? 1 : 0)) }' \
		manifest | sort >want
	rows "$1" "$2" | awk '{ $NF = ""; sub(/ $/, ""); print }' | sort >got
	diff want got
}

test_expect "mkdata wrote an aggregated event whose samples outnumber its records" '
	[ "$(m samples cpu-clock)" -gt "$(m records cpu-clock)" ] &&
	[ "$(m samples task-clock)" = "$(m records task-clock)" ]'

test_expect "perf report and perf report -n read the built file with nothing on stderr" '
	perf_clean perf report -i agg.data --stdio >perf.out &&
	perf_clean perf report -i agg.data --stdio -n --no-children --sort sym -g none >perf-n.out &&
	perf_clean perf report -i agg.data --stats >perf-stats.out &&
	grep -q "\[lost stack\]" perf-n.out'

test_expect "perf report -n counts the records (the unique stacks) of the aggregated event" '
	expect_rows perf-n.out cpu-clock 5'

test_expect "prec report -n counts the kernel samples of the aggregated event (the WEIGHTs)" '
	"$PREC" report -i agg.data -n --no-children --sort sym -g none >prec-n.out 2>err &&
	no_stderr err && expect_rows prec-n.out cpu-clock 4'

test_expect "prec report -n counts the samples of the event recorded as usual, as perf does" '
	expect_rows prec-n.out task-clock 4 && expect_rows perf-n.out task-clock 4'

test_expect "the percentages are perf's: by period" '
	rows perf-n.out cpu-clock | awk "{ \$(NF - 1) = \"\"; print }" | sort >pa &&
	rows prec-n.out cpu-clock | awk "{ \$(NF - 1) = \"\"; print }" | sort >pb &&
	[ -s pa ] && diff pa pb'

test_expect "the header counts the kernel samples and says the event was aggregated" '
	grep -qx "# Samples: $(m samples cpu-clock)  of event '"'"'cpu-clock'"'"'" prec-n.out &&
	grep -qx "# Aggregated in the kernel: $(m samples cpu-clock) samples in $(m records cpu-clock) records (perf report counts the records)" prec-n.out &&
	[ "$(grep -c "^# Aggregated in the kernel" prec-n.out)" = 1 ] &&
	grep -qx "# $(($(m samples cpu-clock) + $(m samples task-clock))) samples in 2 events" prec-n.out'

test_expect "--stats: perf's count of records, and the kernel samples beside it" '
	"$PREC" report -i agg.data --stats >prec-stats.out &&
	grep -A1 "^cpu-clock stats:" prec-stats.out | grep -Eq "SAMPLE events: +$(m records cpu-clock)  \(aggregated in the kernel: $(m samples cpu-clock) samples\)$" &&
	grep -A1 "^task-clock stats:" prec-stats.out | grep -Eq "SAMPLE events: +$(m records task-clock)$" &&
	grep -A1 "^cpu-clock stats:" perf-stats.out | grep -Eq "SAMPLE events: +$(m records cpu-clock)$"'

test_expect "--json: the event's samples, its records, and each row's kernel samples" '
	"$PREC" report -i agg.data --json --no-children --sort sym >j.json &&
	"$PYTHON" - j.json manifest <<-"EOF"
	import json, sys
	ev = {e["event"]: e for e in json.load(open(sys.argv[1]))["events"]}
	want = {}
	for l in open(sys.argv[2]):
	    f = l.split()
	    if f[0] == "leaf":
	        want.setdefault(f[1], {})[" ".join(f[2:-2])] = int(f[-2])
	    elif f[0] in ("samples", "records"):
	        want.setdefault(f[0] + " " + f[1], int(f[2]))
	for name in ("cpu-clock", "task-clock"):
	    e = ev[name]
	    assert e["samples"] == want["samples " + name], (name, e["samples"])
	    assert e["records"] == want["records " + name], (name, e["records"])
	    assert e["aggregated"] == (name == "cpu-clock"), name
	    got = {r["sym"]: r["samples"] for r in e["rows"]}
	    assert got == want[name], (name, got, want[name])
	EOF'

test_expect "--children: a caller's samples are those of the chains through it" '
	"$PREC" report -i agg.data --json --children --sort sym >c.json &&
	"$PYTHON" - c.json "$(m samples cpu-clock)" <<-"EOF"
	import json, sys
	e = [e for e in json.load(open(sys.argv[1]))["events"] if e["event"] == "cpu-clock"][0]
	main = [r for r in e["rows"] if r["sym"] == "main"][0]
	assert main["children_samples"] == int(sys.argv[2]), main["children_samples"]
	EOF'

test_expect "--folded: the stacks count kernel samples" '
	"$PREC" report -i agg.data --folded >f.txt &&
	[ "$(awk "{ n += \$NF } END { print n }" f.txt)" = "$(($(m samples cpu-clock) + $(m samples task-clock)))" ] &&
	[ "$(grep "\[lost stack\] " f.txt | awk "{ print \$NF }")" = "$(m leaf cpu-clock "[lost stack]")" ]'

done_testing
