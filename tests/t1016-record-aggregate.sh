#!/bin/bash
# t1016: prec record --aggregate, judged by perf 6.1. A BPF program counts the samples of the
# sampling events by key in the kernel and the rings carry side-band only; prec writes one
# sample per key (PERIOD summed, WEIGHT the samples taken) at every interval. perf report on
# such a file must show hot3's 50/30/20 as a normal recording does, with -g the same stacks, and
# neither perf report nor perf script may say a word on stderr.
. "$(dirname "$0")/lib.sh"

require root perf bpf python

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"

# stacks FILE: perf script's call chains folded (caller first), each with its share of the
# period in percent, largest first
stacks() {
	perf script -i "$1" -F period,ip,sym 2>/dev/null | awk '
		/^ *[0-9]+ *$/ { flush(); p = $1; s = ""; next }
		NF >= 2 { s = (s == "" ? $2 : $2 ";" s); next }
		{ flush() }
		function flush() { if (p) { w[s] += p; t += p }; p = 0; s = "" }
		END { flush(); for (k in w) printf "%.2f %s\n", 100 * w[k] / t, k }' | sort -rn
}

"$PREC" record --aggregate -e cpu-clock -F 4000 -o agg.data -- "$HOT3" -c 2 >rec.out 2>rec.err
rec_rc=$?
"$PREC" record --overhead-source=none -e cpu-clock -F 4000 -o normal.data -- "$HOT3" -c 2 \
	>/dev/null 2>normal.err

test_expect "prec record --aggregate exits 0" '
	cat rec.err; test $rec_rc = 0
'

test_expect "perf report, perf script and perf report --header-only say nothing on stderr" '
	perf_clean perf report -i agg.data --stdio --no-children --sort sym >agg.rep &&
	perf_clean perf script -i agg.data >agg.script &&
	perf_clean perf report -i agg.data --header-only >agg.header
'
perf report -i normal.data --stdio --no-children --sort sym >normal.rep 2>/dev/null

for f in "hot_a 50" "hot_b 30" "hot_c 20"; do
	set -- $f
	test_expect "$1 is within 3 points of $2% and of a normal recording" '
		p=$(hot3_share agg.rep '$1'); q=$(hot3_share normal.rep '$1')
		echo "aggregated $p%, normal $q%, expected '$2'%"
		near "$p" '$2' && near "$p" "$q"
	'
done

test_expect "the attr keeps a normal recording's, with PERIOD and WEIGHT; the facts say so" '
	perf evlist -v -i agg.data 2>/dev/null | grep "^cpu-clock:" >attr &&
	grep -q "sample_type: IP|TID|TIME|PERIOD|.*WEIGHT" attr && grep -q "clockid: 1" attr &&
	grep -q "^# clockid: monotonic" agg.header &&
	tr "\\0" "\\n" <agg.data | grep -a -x -e "event.0.aggregated=1" \
		-e "aggregate.interval_ns=1000000000" -e "aggregate.entries=16384" >facts &&
	test "$(wc -l <facts)" = 3
'

# The rings carry no sample of cpu-clock: what perf reads are the keys prec wrote, far fewer
# than the samples a normal recording of the same run has.
test_expect "no sample goes through the rings: one record per key, not per sample" '
	a=$(grep -c " cpu-clock: " agg.script)
	n=$(perf script -i normal.data 2>/dev/null | grep -c " cpu-clock: ")
	w=$(perf script -i agg.data -F sw:weight 2>/dev/null |
		awk "\$1 ~ /^[0-9]+\$/ { s += \$1 } END { print s }")
	echo "aggregated: $a records standing for $w samples; normal: $n samples"
	test "$a" -gt 0 && test $((a * 10)) -lt "$n" && near "$w" "$n" $((n / 10))
'

# The summary counts what was written, from the aggregation's own figures: the kernel samples
# (perf script's WEIGHTs summed) and the records standing for them.
test_expect "the summary says N samples in M records, aggregated in the kernel" '
	cat rec.err
	m=$(grep -c " cpu-clock: " agg.script)
	w=$(perf script -i agg.data -F sw:weight 2>/dev/null |
		awk "\$1 ~ /^[0-9]+\$/ { s += \$1 } END { print s }")
	grep -q "^\[ prec record: Captured and wrote .* ($w samples in $m records, aggregated in the kernel) \]\$" rec.err
'
"$PREC" record --aggregate --summary=perf -e cpu-clock -F 4000 -o aggp.data -- "$HOT3" -c 0.3 \
	>/dev/null 2>aggp.err
test_expect "--summary=perf: perf's count of the samples in the file, as perf prints it" '
	cat aggp.err
	n=$(perf report --stats -i aggp.data 2>/dev/null |
		sed -n "s/^ *SAMPLE events: *\([0-9]*\).*/\1/p" | head -1)
	test "$n" -gt 0 &&
	grep -q "^\[ perf record: Captured and wrote [0-9.]* MB aggp.data ($n samples) \]\$" aggp.err
'

# -g: the callers, and the stacks' shares of the period as a normal recording's
"$PREC" record --aggregate --overhead-source=none -g -e cpu-clock -F 4000 -o aggg.data -- \
	"$HOT3" -c 2 >/dev/null 2>recg.err
"$PREC" record --overhead-source=none -g -e cpu-clock -F 4000 -o normalg.data -- "$HOT3" -c 2 \
	>/dev/null 2>/dev/null
# The shares are compared on user-mode samples (cpu-clock:u): the kernel stacks on top of hot3's
# (interrupts, preemption) come and go with the machine's other load between two runs, which a
# loaded CI machine turned into 3 points of hot_a moving to such stacks; aggregation is judged
# on what it keeps, hot3's own stacks. And both sessions record one run of hot3 at the same
# time: two runs of it one after the other on a loaded machine put hot_b 2.35 points apart
# (30.12% and 27.77% of 8,000 samples), more than three standard deviations of binomial
# sampling noise. hot3 waits on a fifo until both sessions have their counters open (-p), so
# that they see the whole run.
mkfifo start
sh -c 'read -r x <start; exec "$0" -c 2' "$HOT3" >/dev/null &
W=$!
at_exit "kill $W"
"$PREC" record --aggregate --overhead-source=none -g -e cpu-clock:u -F 4000 -o aggu.data \
	-p $W >/dev/null 2>aggu.err &
RA=$!
"$PREC" record --overhead-source=none -g -e cpu-clock:u -F 4000 -o normalu.data -p $W \
	>/dev/null 2>normalu.err &
RN=$!
at_exit "kill $RA $RN"
counting 1 $RA $RN
sleep 0.3
echo go >start
wait $RA $RN

# noise PCT N: how far two recordings of N samples each may put a share of PCT% apart by chance
# alone: three standard deviations of the difference of two binomial shares, at least 1 point
# (at 8,000 samples, 2.2 points for hot_b's 30%). A quiet machine samples hot3's rounds
# evenly and stays well within a point; a loaded one preempts at random (1.8 points seen).
noise() {
	awk -v p="$1" -v n="$2" 'BEGIN { p /= 100; d = n > 0 ? 300 * sqrt(2 * p * (1 - p) / n) : 1
		printf "%.2f", d < 1 ? 1 : d }'
}
nr_normalu=$(perf script -i normalu.data -F period 2>/dev/null | grep -c '^ *[0-9][0-9]* *$')

test_expect "with -g perf report shows the callers of the hot functions" '
	perf_clean perf report -i aggg.data --stdio --no-children -g caller --sort sym >g.rep &&
	for s in hot_a hot_b hot_c; do
		grep -A6 "\[\.\] $s\$" g.rep | grep -q run_round || { fail "no caller of $s"; exit 1; }
	done &&
	grep -q "main" g.rep
'

test_expect "with -g the top stacks have a normal recording's shares, within sampling noise" '
	stacks aggu.data >agg.stacks && stacks normalu.data >normal.stacks &&
	head -3 normal.stacks &&
	awk "\$1 >= 5" normal.stacks >top && test "$(wc -l <top)" -ge 3 &&
	while read -r pct st; do
		a=$(awk -v s="$st" "\$2 == s { print \$1 }" agg.stacks)
		d=$(noise "$pct" "$nr_normalu")
		echo "$st: normal $pct%, aggregated $a% (noise $d of $nr_normalu samples)"
		near "$a" "$pct" "$d" || exit 1
	done <top
'

# folded FILE: prec report --folded's stacks, each with its share of the samples, largest first
folded() {
	"$PREC" report -i "$1" --folded 2>/dev/null |
		awk '{ n = $NF; $NF = ""; w[$0] += n; t += n }
		     END { for (k in w) printf "%.2f %s\n", 100 * w[k] / t, k }' | sort -rn
}

test_expect "with -g prec report --folded: the top stacks have a normal recording's shares, within sampling noise" '
	folded aggu.data >agg.folded && folded normalu.data >normal.folded &&
	awk "\$1 >= 5" normal.folded >ftop && test "$(wc -l <ftop)" -ge 3 &&
	while read -r pct st; do
		a=$(awk -v s="$st" "{ p = \$1; \$1 = \"\"; sub(/^ /, \"\") } \$0 == s { print p }" \
			agg.folded)
		d=$(noise "$pct" "$nr_normalu")
		echo "$st: normal $pct%, aggregated $a% (noise $d of $nr_normalu samples)"
		near "$a" "$pct" "$d" || exit 1
	done <ftop
'

# A process that execs during an interval: the shell's own code, then hot3 under another name.
cp "$HOT3" hot3b
"$PREC" record --aggregate --overhead-source=none -e cpu-clock -F 4000 -o exec.data -- \
	sh -c "'$HOT3' -c 0.5; i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done; exec ./hot3b -c 0.5" \
	>/dev/null 2>exec.err

test_expect "a program that execs resolves both programs' symbols, each in its own binary" '
	perf_clean perf report -i exec.data --stdio --no-children --sort comm,dso,sym >exec.rep &&
	grep -Eq "hot3 +hot3 +\[\.\] hot_a" exec.rep &&
	grep -Eq "hot3b +hot3b +\[\.\] hot_a" exec.rep &&
	grep -Eq "sh +(dash|bash|sh) " exec.rep &&
	! grep -Eq "hot3b +(dash|bash|sh) |sh +hot3b " exec.rep
'

# Tiny maps: the keys they cannot hold are lost, and said so
"$PREC" record --aggregate --aggregate-entries 4 -g -F 4000 -o tiny.data -- \
	sh -c "'$HOT3' -c 0.5; ls -lR /usr/share >/dev/null; '$HOT3' -c 0.5" >/dev/null 2>tiny.err

test_expect "--aggregate-entries 4: LOST_SAMPLES in perf report --stats and prec report --stats" '
	cat tiny.err
	perf report -i tiny.data --stats 2>/dev/null | grep -Eq "^ *LOST_SAMPLES events: *[1-9]" &&
	"$PREC" report -i tiny.data --stats 2>/dev/null | grep -Eq "LOST_SAMPLES.*[1-9]"
'

test_expect "--aggregate-entries 4: prec report --overhead advises larger maps, not -m" '
	"$PREC" report -i tiny.data --overhead >tiny.txt 2>&1
	grep -A1 "^\[[a-z]*\] lost: " tiny.txt &&
	grep -A1 "^\[[a-z]*\] lost: " tiny.txt | grep -q -- "--aggregate-entries [0-9]* (now 4)" &&
	! grep -A1 "^\[[a-z]*\] lost: " tiny.txt | grep -q "advice: .*-m [0-9]"
'

test_expect "--aggregate-entries 4: prec:overhead lost with the aggregate: reason" '
	"$PREC" report -i tiny.data --overhead --json >tiny.json &&
	"$PYTHON" -c "
import json, sys
d = json.load(open(\"tiny.json\"))
r = [dict(x, cpu=c[\"cpu\"]) for c in d[\"cpus\"] for x in c[\"costs\"]]
r = [x for x in r if x[\"type\"] == \"lost\" and
     x[\"reason\"].startswith(\"aggregate: \") and x[\"nr\"] > 0]
print(r[:1])
sys.exit(not r)
"
'

test_expect "prec report --overhead --json has the aggregation cost per CPU, measured by bpf" '
	"$PREC" report -i agg.data --overhead --json >agg.json &&
	"$PYTHON" -c "
import json, sys
d = json.load(open(\"agg.json\"))
r = [dict(x, cpu=c[\"cpu\"]) for c in d[\"cpus\"] for x in c[\"costs\"]]
r = [x for x in r if x[\"type\"] == \"aggregate\"]
cpus = {x[\"cpu\"] for x in r}
busy = [x for x in r if x[\"time_ns\"] > 0 and x[\"nr\"] > 0 and x[\"source\"] == \"bpf\"]
print(len(r), \"records on CPUs\", sorted(cpus), \";\", len(busy), \"with runs and time\")
sys.exit(not (r and len(cpus) >= 1 and busy and -1 not in cpus))
"
'

test_expect "stolen time counts the samples taken in the kernel: its nr is the program's runs" '
	"$PYTHON" -c "
import json, sys
d = json.load(open(\"agg.json\"))
ok = True
for c in d[\"cpus\"]:
    n = {t: sum(x[\"nr\"] for x in c[\"costs\"] if x[\"type\"] == t)
         for t in (\"stolen\", \"aggregate\")}
    print(\"CPU\", c[\"cpu\"], n)
    ok = ok and n[\"stolen\"] == n[\"aggregate\"]
runs = sum(x[\"nr\"] for c in d[\"cpus\"] for x in c[\"costs\"] if x[\"type\"] == \"aggregate\")
sys.exit(not (ok and runs > 0))
"
'

test_expect "pipe mode: perf report reads the stream" '
	"$PREC" record --aggregate --overhead-source=none -e cpu-clock -F 4000 -o - -- \
		"$HOT3" -c 0.5 2>pipe.err >pipe.data &&
	perf_clean perf report -i - --stdio --no-children --sort sym <pipe.data >pipe.rep &&
	near "$(hot3_share pipe.rep hot_a)" 50
'

# evcount FILE EVENT: perf report's event count of EVENT in FILE
evcount() {
	perf report -i "$1" --stdio 2>/dev/null |
		awk -v e="'$2'" '$1 == "#" && $2 == "Samples:" { cur = $NF }
			$2 == "Event" && $3 == "count" && cur == e { print $NF; exit }'
}

# Two events and a child process: the kernel gives the events it inherits to children no attach
# cookie, so each event needs a program of its own. hot3 runs 1 s of CPU in the child; each
# event counts that time. The aggregated counts are compared with each other (the same run: the
# two clocks count the same task, so they agree to a few ticks) and with a normal recording's
# within a quarter (another run on a shared machine: its CPU time varies with the load, far less
# than the factor of hundreds by which one event's samples counted as the other's would miss).
"$PREC" record --aggregate --overhead-source=none -e cpu-clock -e task-clock -F 1000 \
	-o two.data -- sh -c "'$HOT3' -c 1; true" >/dev/null 2>two.err
"$PREC" record --overhead-source=none -e cpu-clock -e task-clock -F 1000 -o twon.data -- \
	sh -c "'$HOT3' -c 1; true" >/dev/null 2>/dev/null
test_expect "two events with a child process: each counts as in a normal recording" '
	for e in cpu-clock task-clock; do
		a=$(evcount two.data $e) n=$(evcount twon.data $e)
		echo "$e: aggregated $a, normal $n"
		eval "$(echo $e | tr - _)=\$a"
		awk -v a="$a" -v n="$n" "BEGIN { exit !(n > 0 && a > 0.75 * n && a < 1.25 * n) }" ||
			exit 1
	done &&
	awk -v a="$cpu_clock" -v b="$task_clock" "BEGIN { exit !(a < 1.1 * b && b < 1.1 * a) }"
'

test_expect "more sampling events than the programs: one line, exit non-zero, nothing run" '
	! "$PREC" record --aggregate $(for i in 1 2 3 4 5 6 7 8 9; do printf -- "-e cpu-clock "; done) \
		-o nine.data -- touch ran-nine 2>nine.err &&
	cat nine.err && test "$(wc -l <nine.err)" = 1 && grep -q "at most 8" nine.err &&
	! test -e ran-nine
'

# A perf_event program takes the sample's own callchain, context markers and all: the file's
# chains must have perf's markers once, as the kernel writes them.
test_expect "with -g no callchain has two context markers in a row" '
	perf report -i aggg.data -D 2>/dev/null | awk "
		/FP chain: nr:/ { prev = 0; chains++; next }
		/^\.\.\.\.\. +[0-9]+: / { m = (\$3 ~ /^ffffffffffff(ff|fe)[0-9a-f][0-9a-f]\$/)
			if (m && prev) { print; bad++ } prev = m; next }
		{ prev = 0 }
		END { print chains, \"chains,\", bad + 0, \"with two markers in a row\"
			exit !(chains > 0 && !bad) }"
'

# --switch-output: every file whose samples have the lost-stack frame must name it. Maps of 16
# entries lose stacks in every interval (hot3 has far more), so every file has the frame.
mkdir sw
(cd sw && "$PREC" record --aggregate -g --aggregate-entries 16 --aggregate-interval 100ms \
	--switch-output=1s -e cpu-clock -F 1000 -o s.data -- "$HOT3" -c 3 >/dev/null 2>sw.err)
test_expect "--switch-output: every file names the lost-stack frame it uses" '
	used=0
	for f in sw/s.data.*; do
		perf script -i $f -F ip,sym 2>/dev/null | grep -E "^\s+8000 " | sort | uniq -c >frames
		echo "$f: $(cat frames)"
		grep -q . frames && used=$((used + 1))
		! grep -v "\[lost stack\]" frames || exit 1
	done
	test "$used" -ge 2
'

n=0
for o in -W -d --phys-data --data-page-size -I "-j any" -R; do
	n=$((n + 1))
	test_expect "--aggregate $o: one line, exit non-zero, nothing run" '
		! "$PREC" record --aggregate '"$o"' -o o'$n'.data -- touch ran'$n' 2>o.err &&
		cat o.err && test "$(wc -l <o.err)" = 1 && grep -q "cannot honour" o.err &&
		! test -e ran'$n' && ! test -e o'$n'.data
	'
done

test_expect "--aggregate-entries above 262144: one line, exit non-zero, nothing run" '
	! "$PREC" record --aggregate --aggregate-entries 262145 -o e.data -- touch ran-e 2>e.err &&
	cat e.err && test "$(wc -l <e.err)" = 1 && grep -q "262144" e.err &&
	! test -e ran-e && ! test -e e.data
'

test_expect "--aggregate with -k realtime: one line, exit non-zero, nothing run" '
	! "$PREC" record --aggregate -k realtime -o k.data -- touch ran 2>k.err &&
	cat k.err && test "$(wc -l <k.err)" = 1 && grep -q "CLOCK_MONOTONIC" k.err &&
	! test -e ran && ! test -e k.data
'

test_expect "--aggregate where the kernel refuses BPF: one line, exit non-zero, nothing run" '
	chmod 777 . &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PREC" record --aggregate -o nobody.data -- touch ran 2>np.err &&
	cat np.err && test "$(wc -l <np.err)" = 1 && grep -q "aggregate.*BPF" np.err &&
	! test -e ran && ! test -e nobody.data
'

done_testing
