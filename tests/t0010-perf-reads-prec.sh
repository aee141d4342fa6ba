#!/bin/bash
# t0010: perf.data files written by format/ are read by the real perf with exit 0 and nothing on
# stderr, and perf prints what was written. tests/mkdata writes each file and a manifest of what
# it put in ("samples EVENT N", "raw ...", "stat ..."); the checks compare perf's output with it.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
# shellcheck disable=SC2002 # cat FILE | perf -i -: perf must read a real pipe
. "$(dirname "$0")/lib.sh"

require root perf

MKDATA=$PREC_BUILD/tests/mkdata
[ -x "$MKDATA" ] || skip_all "tests/mkdata is not built (make check builds it)"

# manifest FILE KEY: the manifest lines starting with KEY, without it.
manifest() {
	sed -n "s/^$2 //p" "$1"
}

# check_counts KIND [INPUT]: perf report --stats gives each event the number of samples written.
check_counts() {
	local kind=$1 name n got
	perf_clean perf report -i "${2:-$kind.data}" --stats >"$kind.stats" || return 1
	while read -r name n; do
		got=$(awk -v ev="$name stats:" '$0 == ev { getline; print $3; exit }' "$kind.stats")
		[ "$got" = "$n" ] || fail "$name: $n samples written, perf counts '${got}'" || return 1
	done < <(manifest "$kind.man" samples)
	[ -n "$(manifest "$kind.man" samples)" ] || fail "manifest lists no samples"
}

# check_counts_script KIND: the same counted in perf script's output, for the pipe-mode files
# perf 6.1's report --stats cannot read (HEADER_TRACING_DATA or COMPRESSED in pipe mode: it fails
# on what perf record -o - writes itself).
check_counts_script() {
	local kind=$1 name n got
	cat "$kind.data" | perf_clean perf script -i - -F event >"$kind.events" || return 1
	while read -r name n; do
		got=$(awk -v ev="$name:" '$1 == ev { c++ } END { print c + 0 }' "$kind.events")
		[ "$got" = "$n" ] || fail "$name: $n samples written, perf script shows $got" ||
			return 1
	done < <(manifest "$kind.man" samples)
}

# check_names KIND: perf evlist and --header-only name every event as written (EVENT_DESC).
check_names() {
	local kind=$1 name
	perf_clean perf evlist -i "$kind.data" >"$kind.evlist.out" || return 1
	grep -v "^#" "$kind.evlist.out" >"$kind.evlist"
	perf_clean perf report -i "$kind.data" --header-only >"$kind.header" || return 1
	while read -r name; do
		grep -qx -- "$name" "$kind.evlist" || fail "perf evlist does not list $name" || return 1
		grep -q "^# event : name = $name," "$kind.header" ||
			fail "no EVENT_DESC line for $name" || return 1
	done < <(manifest "$kind.man" event)
	[ "$(wc -l <"$kind.evlist")" = "$(manifest "$kind.man" event | wc -l)" ] ||
		fail "perf evlist lists $(wc -l <"$kind.evlist") events"
}

# check_leaves KIND [INPUT]: each sample's own symbol, counted per event, is what was written.
check_leaves() {
	local kind=$1 ev sym n got
	perf_clean perf script -i "${2:-$kind.data}" -G -F event,ip,sym >"$kind.leaves" || return 1
	while read -r ev sym n; do
		got=$(awk -v ev="$ev:" -v sym="$sym" '$1 == ev && $3 == sym { c++ } END { print c + 0 }' \
			"$kind.leaves")
		[ "$got" = "$n" ] || fail "$ev in $sym: $n written, perf script shows $got" || return 1
	done < <(manifest "$kind.man" leaf)
}

# check_callchains KIND: every sample's callchain resolves to LEAF, run_round, main in hot3.
check_callchains() {
	local kind=$1 total bad
	perf_clean perf script -i "$kind.data" -F event,ip,sym,dso >"$kind.chains" || return 1
	total=$(manifest "$kind.man" total)
	# A sample is its header line, then one line per frame: ip sym (dso).
	bad=$(awk '
		/: *$/ { if (n) check(); n = 0; next }
		NF >= 3 { f[++n] = $2 " " $3 }
		function check() {
			if (f[1] !~ /^hot_[abc] / || f[2] !~ /^run_round / || f[3] !~ /^main / ||
			    f[1] !~ /hot3\)$/ || n != 3) bad++
			good++
		}
		END { if (n) check(); print bad + 0, good + 0 }' "$kind.chains")
	[ "$bad" = "0 $total" ] || fail "bad/all callchains: $bad, $total written"
}

# check_group KIND: GROUP_DESC made it.
check_group() {
	local kind=$1 members
	members=$(manifest "$kind.man" group | tr ' ' ',')
	perf_clean perf report -i "$kind.data" --header-only >"$kind.header" || return 1
	grep -qx "# group: {$members}" "$kind.header" || fail "no group {$members} in the header"
}

# check_raw KIND: perf script prints every sched_switch sample's fields with the values written.
check_raw() {
	local kind=$1 line
	perf_clean perf script -i "$kind.data" >"$kind.script" || return 1
	while read -r line; do
		# "prev_comm=hot3 prev_pid=4242 next_comm=X ..." must appear, field by field, in a line.
		grep -F "sched:sched_switch:" "$kind.script" | awk -v want="$line" '
			BEGIN { n = split(want, w, " ") }
			{ ok = 1; for (i = 1; i <= n; i++) if (index(" " $0 " ", " " w[i] " ") == 0) ok = 0
			  if (ok) found = 1 }
			END { exit !found }' || fail "no sample shows: $line" || return 1
	done < <(manifest "$kind.man" raw)
}

# check_overhead KIND: each prec:overhead sample shows its type, count, time and source.
check_overhead() {
	local kind=$1 type nr ns src
	perf_clean perf script -i "$kind.data" >"$kind.script" || return 1
	while read -r type nr ns src; do
		grep "prec:overhead:" "$kind.script" | grep -w -- "$type" | grep -w -- "$nr" |
			grep -w -- "$ns" | grep -qw -- "$src" ||
			fail "no prec:overhead sample shows $type $nr $ns $src" || return 1
	done < <(manifest "$kind.man" overhead)
}

# check_stat KIND: perf script's STAT table has every cumulative value written, and
# perf stat report prints every interval's increase with its unit.
check_stat() {
	local kind=$1 name cpu pid val time v unit
	perf_clean perf script -i "$kind.data" >"$kind.script" || return 1
	while read -r name cpu pid val time; do
		awk -v n="$name" -v c="$cpu" -v p="$pid" -v v="$val" -v t="$time" '
			$1 == c && $2 == p && $3 == v && $6 == t && $7 == n { f = 1 }
			END { exit !f }' "$kind.script" ||
			fail "STAT table lacks $name cpu $cpu = $val at $time" || return 1
	done < <(manifest "$kind.man" stat)
	# perf stat prints its counts on stderr: there, nothing but the table may appear.
	perf stat report -i "$kind.data" 2>"$kind.statreport" >/dev/null ||
		fail "perf stat report failed" || return 1
	! grep -Ev '^(#.*| +[0-9]+\.[0-9]+ .*|)$' "$kind.statreport" ||
		fail "perf stat report printed more than its table" || return 1
	while read -r name v unit; do
		[ "$(awk -v n="$name" -v v="$v" -v u="$unit" '
			$2 == v && ((u == "" && $3 == n) || ($3 == u && $4 == n)) { c++ }
			END { print c + 0 }' "$kind.statreport")" = 3 ] ||
			fail "perf stat report lacks 3 intervals of $v $unit $name" || return 1
	done < <(manifest "$kind.man" interval)
}

for kind in events compressed pipe compressed-pipe tracepoint tracepoint-pipe overhead stat; do
	"$MKDATA" "$kind" "$kind.data" >"$kind.man" 2>"$kind.mkerr"
	rc=$?
	if [ $rc = 77 ]; then
		test_skip "mkdata writes $kind.data" "$(tail -1 "$kind.mkerr")"
		continue
	fi
	test_expect "mkdata writes $kind.data" "[ $rc = 0 ] && [ -s $kind.data ] || cat $kind.mkerr"
	[ $rc = 0 ] || continue

	for cmd in "report --stdio" "script" "evlist -v" "report --header-only"; do
		test_expect "perf $cmd reads $kind.data cleanly" \
			"perf_clean perf $cmd -i $kind.data >/dev/null"
		case $kind in
		*pipe) test_expect "cat $kind.data | perf $cmd -i - is clean" \
			"cat $kind.data | perf_clean perf $cmd -i - >/dev/null" ;;
		esac
	done
	case $kind in
	tracepoint-pipe | compressed-pipe)
		test_expect "$kind: perf script shows the samples written per event" \
			"check_counts_script $kind" ;;
	*) test_expect "$kind: perf counts the samples written per event" "check_counts $kind" ;;
	esac
	case $kind in
	*pipe) ;; # perf evlist does not read the data, where pipe mode keeps its EVENT_DESC
	*) test_expect "$kind: perf names every event as written" "check_names $kind" ;;
	esac

	case $kind in
	events | compressed | pipe | compressed-pipe)
		test_expect "$kind: each sample's symbol is the one written" "check_leaves $kind"
		test_expect "$kind: callchains resolve to hot_*, run_round, main of hot3" \
			"check_callchains $kind"
		;;
	esac
	case $kind in
	events | compressed) test_expect "$kind: GROUP_DESC gives the group" "check_group $kind" ;;
	esac
	case $kind in
	compressed)
		test_expect "compressed: several COMPRESSED records and the COMPRESSED feature" '
			n=$(awk "/COMPRESSED events:/ { print \$3 }" compressed.stats)
			[ "${n:-0}" -gt 1 ] || fail "COMPRESSED records: ${n:-none}" || exit 1
			perf report -i compressed.data --header-only | grep -q "^# compressed : Zstd"'
		;;
	pipe)
		test_expect "pipe: cat FILE | perf report -i - is clean and counts every sample" '
			cat pipe.data | perf_clean perf report -i - --stdio >pipe.report &&
			grep -q "hot_a" pipe.report && check_counts pipe - <pipe.data'
		test_expect "pipe: cat FILE | perf script -i - is clean and resolves symbols" '
			cat pipe.data | perf_clean perf script -i - -G -F event,ip,sym >pipe.script &&
			[ "$(grep -c " hot_a\$" pipe.script)" = \
			  "$(manifest pipe.man leaf | awk "\$2 == \"hot_a\" { s += \$3 } END { print s }")" ]'
		test_expect "pipe: --header-only shows the features and names" '
			cat pipe.data | perf_clean perf report -i - --header-only >pipe.header &&
			grep -q "^# event : name = cpu-clock," pipe.header &&
			grep -q "^# hostname : " pipe.header && grep -q "^# group: " pipe.header'
		;;
	tracepoint*) test_expect "$kind: perf script prints the raw fields written" "check_raw $kind" ;;
	overhead) test_expect "overhead: perf script prints the prec:overhead fields" "check_overhead $kind" ;;
	stat) test_expect "stat: perf script and perf stat report show the readings" "check_stat $kind" ;;
	esac
done

# The system features say what perf itself says about this machine.
if [ -s events.data ]; then
	test_expect "events: --header-only shows the system lines perf writes, same values" '
		perf record -q -o ref.data -e cpu-clock true >/dev/null 2>&1 ||
			fail "perf record failed" || exit 1
		perf report -i ref.data --header-only -I >ref.header 2>/dev/null &&
		perf_clean perf report -i events.data --header-only -I >sys.header || exit 1
		for l in hostname "os release" arch "nrcpus online" "nrcpus avail" cpudesc cpuid \
			"total memory" "sibling sockets" "sibling dies" "sibling threads" "CPU [0-9]*"; do
			want=$(grep "^# $l *: " ref.header) got=$(grep "^# $l *: " sys.header)
			[ -n "$want" ] || continue
			[ "$got" = "$want" ] || fail "perf: $want / prec: ${got:-nothing}" || exit 1
		done
		grep -q "^# cmdline : .*mkdata events events.data" sys.header || fail "no cmdline"'
fi

done_testing
