#!/bin/bash
# t2020: prec report --pprof writes a gzipped profile.proto that pprof itself reads: hot3's
# functions with prec report's shares, recorded by prec and by perf; with -g the callers prec
# report shows; the labels and build-ids; no prec:overhead sample; a file that follows pprof's
# rules (read by a decoder of its own); and the output's refusals and the FILE.old it keeps.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
[ -x "$W" ] || skip_all "the hot3 workload is not built"
# pprof's own reader, when the machine has Go (tools/check.sh installs it)
have_go=
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	have_go=1
fi
export GOCACHE=$T/go-cache PPROF_TMPDIR=$T

# pprof_top FILE.pb.gz: go tool pprof -top of the names the profile holds, in top.txt
pprof_top() {
	go tool pprof -top -symbolize=none "$1" >top.txt 2>top.err || { cat top.err; return 1; }
}

# same_shares FILE: hot_a, hot_b, hot_c have in pprof -top (flat %) the share prec report's
# table gives each, within 1 point, and they lead about 50/30/20
same_shares() {
	local f=$1 fn a b
	"$PREC" report -q -i "$f" --no-children -g none >table.txt 2>err || { cat err; return 1; }
	"$PREC" report -q -i "$f" --pprof "$f.pb.gz" 2>err || { cat err; return 1; }
	pprof_top "$f.pb.gz" || return 1
	for fn in hot_a hot_b hot_c; do
		a=$(awk -v f=$fn '$NF == f && $1 ~ /%$/ {s += $1} END {print s + 0}' table.txt)
		b=$(awk -v f=$fn '$NF == f && $2 ~ /%$/ {s += $2} END {print s + 0}' top.txt)
		echo "$fn: prec report $a%, pprof $b%"
		awk -v a="$a" -v b="$b" 'BEGIN {d = a - b; exit !(a > 5 && d <= 1 && d >= -1)}' ||
			fail "$fn: $a% in prec report's table, $b% in pprof's" || return 1
	done
	awk '$NF == "hot_a" {a = $2 + 0} $NF == "hot_c" {c = $2 + 0}
	     END {exit !(a > 35 && a < 65 && c > 8 && c < 32)}' top.txt ||
		fail "not about 50/30/20" || return 1
}

# callers FILE: pprof -traces has a stack hot_a <- run_round <- main, as prec report's folded
# stacks do
callers() {
	local f=$1
	"$PREC" report -q -i "$f" --folded >folded.txt 2>err || { cat err; return 1; }
	grep -q ';main;run_round;hot_a ' folded.txt || fail "prec report has no main;run_round;hot_a" ||
		return 1
	"$PREC" report -q -i "$f" --pprof "$f.pb.gz" 2>err || { cat err; return 1; }
	go tool pprof -traces -symbolize=none "$f.pb.gz" >traces.txt 2>err || { cat err; return 1; }
	awk '{name = $NF} prev2 == "hot_a" && prev == "run_round" && name == "main" {found = 1}
	     {prev2 = prev; prev = name} END {exit !found}' traces.txt ||
		fail "no trace hot_a <- run_round <- main in pprof -traces" || return 1
	go tool pprof -peek 'hot_a$' -symbolize=none "$f.pb.gz" >peek.txt 2>err || { cat err; return 1; }
	grep -B3 '| hot_a$' peek.txt | grep -q '|   run_round$' ||
		fail "pprof -peek hot_a does not name run_round as its caller"
}

test_expect "prec records hot3" 'rec_prec prec -- "$W" -c 0.3'
test_expect "perf records hot3, with each sample's CPU" 'rec_perf perf --sample-cpu -- "$W" -c 0.3'
test_expect "prec records hot3 with -g" 'rec_prec precg -g -- "$W" -c 0.3'
test_expect "perf records hot3 with -g" 'rec_perf perfg -g -- "$W" -c 0.3'

# The file, by a reader of its own: pprof's rules (string_table[0] is "", ids non-zero, every id
# referenced exists, as many values as sample types) and the sample types.
cat >check.py <<'PYEOF'
import gzip, sys
d = gzip.decompress(open(sys.argv[1], 'rb').read())
def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 0:
            v, i = varint(b, i)
        elif k & 7 == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            sys.exit('wire type %d' % (k & 7))
        out.append((k >> 3, v))
    return out
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def packed(v):
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i); out.append(x)
    return out
def msg(v): return {}  if v == b'' else dict_multi(fields(v))
def dict_multi(fs):
    m = {}
    for k, v in fs: m.setdefault(k, []).append(v)
    return m
p = dict_multi(fields(d))
strs = [s.decode() for s in p.get(6, [])]
assert strs and strs[0] == '', 'string_table[0] is not ""'
types = [(strs[m.get(1, [0])[0]], strs[m.get(2, [0])[0]]) for m in map(msg, p.get(1, []))]
ids = {}
for f in (3, 4, 5):
    ids[f] = set()
    for m in map(msg, p.get(f, [])):
        i = m.get(1, [0])[0]
        assert i and i not in ids[f], 'field %d: id %d' % (f, i)
        ids[f].add(i)
for m in map(msg, p.get(4, [])):
    assert m.get(2, [0])[0] in ids[3] | {0}, 'a location names a mapping that is not there'
    for ln in map(msg, m.get(4, [])):
        assert ln.get(1, [0])[0] in ids[5], 'a line names a function that is not there'
total = 0
for m in map(msg, p.get(2, [])):
    locs = [x for v in m.get(1, []) for x in packed(v)]
    vals = [x for v in m.get(2, []) for x in packed(v)]
    assert locs and all(x in ids[4] for x in locs), 'a sample names a location that is not there'
    assert len(vals) == len(types), 'values %d, sample types %d' % (len(vals), len(types))
    total += vals[0]
dflt = strs[p.get(14, [0])[0]]
print(' '.join('%s/%s' % t for t in types), 'default', dflt, 'samples', total)
PYEOF

# What a profile holds, by the same decoder: "total N" (the first value's sum), "comm NAME N"
# per comm label, "mapping FILE HAS_FUNCTIONS HAS_FILENAMES HAS_LINE_NUMBERS HAS_INLINE_FRAMES
# INLINED_LOCATIONS" and "function<TAB>NAME<TAB>SYSTEM_NAME<TAB>FILENAME".
sed -n '1,/^dflt = /p' check.py | grep -v '^dflt = ' >dump.py
cat >>dump.py <<'PYEOF'
print('total', total)
comms = {}
for m in map(msg, p.get(2, [])):
    vals = [x for v in m.get(2, []) for x in packed(v)]
    for lb in map(msg, m.get(3, [])):
        if strs[lb.get(1, [0])[0]] == 'comm':
            c = strs[lb.get(2, [0])[0]]
            comms[c] = comms.get(c, 0) + vals[0]
for c in sorted(comms):
    print('comm', c, comms[c])
inl = {}
for m in map(msg, p.get(4, [])):
    if len(m.get(4, [])) > 1:
        inl[m.get(2, [0])[0]] = inl.get(m.get(2, [0])[0], 0) + 1
for m in map(msg, p.get(3, [])):
    print('mapping', strs[m.get(5, [0])[0]], *[m.get(f, [0])[0] for f in (7, 8, 9, 10)],
          inl.get(m.get(1, [0])[0], 0))
for m in map(msg, p.get(5, [])):
    print('function', *[strs[m.get(f, [0])[0]] for f in (2, 3, 4)], sep='\t')
PYEOF

test_expect "the file follows pprof's rules; prec:overhead is left out" '
	"$PREC" report -q -i prec.data --stats >stats.txt &&
	grep -q "prec:overhead" stats.txt || "$PREC" report -q -i prec.data --header-only |
		grep -q "prec:overhead" || fail "the recording has no prec:overhead event" || exit 1
	"$PREC" report -q -i prec.data --pprof prec.pb.gz &&
	"$PYTHON" check.py prec.pb.gz >types.txt && cat types.txt &&
	n=$("$PREC" report -i prec.data --no-children -g none -n --sort comm 2>/dev/null |
		awk "/^# Samples:/ {ev = /cpu-clock/} ev && \$1 ~ /%\$/ {s += \$2} END {print s}") &&
	grep -qx "samples/count cpu/nanoseconds default cpu samples $n" types.txt ||
		fail "not the types of cpu-clock alone with its $n samples"'
test_expect "a perf recording: its file follows the rules" '
	"$PREC" report -q -i perfg.data --pprof perfg.pb.gz && "$PYTHON" check.py perfg.pb.gz'

if [ -n "$have_go" ]; then
	test_expect "prec's recording: pprof -top gives prec report's shares" 'same_shares prec.data'
	test_expect "perf's recording: pprof -top gives prec report's shares" 'same_shares perf.data'
	test_expect "prec's -g recording: pprof -traces and -peek show hot_a's callers" \
		'callers precg.data'
	test_expect "perf's -g recording: pprof -traces and -peek show hot_a's callers" \
		'callers perfg.data'
	test_expect "the labels and build-ids are in pprof -raw" '
		"$PREC" report -q -i perf.data --pprof perf.pb.gz &&
		go tool pprof -raw -symbolize=none perf.pb.gz >raw.txt 2>err || { cat err; exit 1; }
		pid=$("$PREC" report -q -i perf.data --sort pid -g none | awk "/hot3/ {print \$2; exit}" | cut -d: -f1)
		grep -q "pid:\[$pid\] tid:\[$pid\]" raw.txt || fail "no pid/tid $pid labels" || exit 1
		grep -q "comm:\[hot3\]" raw.txt || fail "no comm label" || exit 1
		grep -q "cpu:\[[0-9]*\]" raw.txt || fail "no cpu label" || exit 1
		bid=$(perf buildid-list -i perf.data 2>/dev/null | awk "\$2 ~ /\/hot3\$/ {print \$1}")
		[ -n "$bid" ] || fail "perf lists no build-id for hot3" || exit 1
		grep -E "^1: .*/hot3 $bid " raw.txt || fail "hot3 (the first mapping) without $bid"'
	# --max-stack cuts a dwarf chain's kernel part and its unwound user part apart, as the
	# table does (leaf first): nofp's system calls have both, two frames of each
	test_expect "--max-stack 2 on a dwarf recording: two kernel frames over two user ones" '
		"$PREC" record -q -e cpu-clock --call-graph dwarf -o dw.data -- \
			"$PREC_BUILD/tests/workloads/nofp" 0.2 >/dev/null &&
		"$PREC" report -q -i dw.data --pprof dw.pb.gz --no-inline --max-stack 2 &&
		go tool pprof -traces -sample_index=samples -symbolize=none dw.pb.gz >dw.traces \
			2>err || { cat err; exit 1; }
		"$PYTHON" - dw.traces <<-PYEOF
		import sys
		stacks, fr = [], []
		for line in list(open(sys.argv[1])) + ["-----------+"]:
		    if line.startswith("-----------+"):
		        if fr:
		            stacks.append(fr)
		        fr = []
		    elif ":" not in line and (fr or len(line.split()) == 2):
		        fr.append(line.split()[-1])
		print("# %d stacks, %d at most" % (len(stacks), max(map(len, stacks))))
		ok = any(len(f) == 4 and f[2:] == ["sys", "run"] for f in stacks)
		sys.exit(0 if ok and max(map(len, stacks)) <= 4 else 1)
		PYEOF'
else
	for what in "pprof -top on prec's recording" "pprof -top on perf's recording" \
		"pprof -traces on prec's -g recording" "pprof -traces on perf's -g recording" \
		"the labels and build-ids in pprof -raw" "--max-stack 2 on a dwarf recording"; do
		test_skip "$what" "go (golang-go) is missing: go tool pprof cannot read the files"
	done
fi

# The views share one decision of which samples they show: on a group recorded system-wide (three
# programs, both CPUs), each filter leaves the table, --pprof and --metrics the same samples. The
# third program runs under a long comm with a space, then under a short one.
test_expect "--comm, --cpu and --time: the table, --pprof and --metrics keep the same samples" '
	cat >rename.py <<-PYEOF
	import ctypes, time
	def spin(name, s):
	    ctypes.CDLL(None).prctl(15, name, 0, 0, 0)
	    end = time.monotonic() + s
	    while time.monotonic() < end:
	        pass
	spin(b"a long-named spin", 0.1)
	spin(b"ab", 0.1)
	PYEOF
	"$PREC" record -q -a -o grp.data -e "{cpu-clock,task-clock}:S" -c 1000000 -- sh -c \
		"\"$W\" -c 0.3 & \"$PYTHON\" rename.py & \"$PREC_BUILD/tests/workloads/nofp\" 0.2;
		wait" >/dev/null || exit 1
	# the CPU where hot3 and nofp ran most (a test beside this one may hold the other CPU)
	c=$("$PREC" report -q -i grp.data -n --sort cpu -g none --no-children --comm hot3,nofp |
		awk "\$1 ~ /%\$/ {print \$3 + 0; exit}")
	[ -n "$c" ] || exit 1
	for f in "--comm hot3" "--cpu 0" "--time 25%-75%" "--comm hot3,nofp --cpu $c --time 10%-90%"
	do
		# shellcheck disable=SC2086 # f is several options
		"$PREC" report -q -i grp.data -n --sort comm -g none --no-children $f >tab.txt &&
		"$PREC" report -q -i grp.data --pprof grp.pb.gz $f &&
		"$PYTHON" dump.py grp.pb.gz >grp.dump &&
		m=$("$PREC" report -i grp.data --metrics $f | awk "/^# Group/ {print \$(NF - 3)}") ||
			exit 1
		t=$(awk "\$1 ~ /%\$/ {s += \$2} END {print s + 0}" tab.txt)
		p=$(awk "\$1 == \"total\" {print \$2}" grp.dump)
		echo "$f: table $t, pprof $p, metrics $m"
		[ "$t" -gt 0 ] && [ "$t" = "$p" ] && [ "$t" = "$m" ] ||
			fail "$f: the views disagree" || exit 1
		# per comm: a comm may hold spaces, so the name is what the row has after its
		# counts, and what the dump has between "comm" and the count. The table cuts a name to
		# the column, as wide as the longest of the last comms of its threads (as perf does): a
		# process named perf-exec until it ran a shorter name shows as perf-ex. The dump names
		# are cut alike.
		"$PYTHON" - tab.txt grp.dump <<-PYEOF || fail "$f: the comms differ" || exit 1
		import collections, re, sys
		tab, pp, w = collections.Counter(), collections.Counter(), 0
		for line in open(sys.argv[1]):
		    m = re.match(r" *[0-9.]+% +([0-9]+) +(.*)$", line.rstrip("\\n"))
		    if m:
		        w = max(w, len(m.group(2)))
		        tab[m.group(2).rstrip()] += int(m.group(1))
		for line in open(sys.argv[2]):
		    if line.startswith("comm "):
		        name, n = line.rstrip("\\n")[5:].rsplit(" ", 1)
		        pp[name[:w].rstrip()] += int(n)
		for c in sorted(set(tab) | set(pp)):
		    if tab[c] != pp[c]:
		        print("# %r: table %d, pprof %d" % (c, tab[c], pp[c]))
		sys.exit(tab != pp)
		PYEOF
	done'
# A C++ function's system_name is its name in the binary, however it was recorded: the dwarf
# chains' debug information looks at (and demangles) the name before pprof writes it
if command -v g++ >/dev/null 2>&1; then
	test_expect "a C++ function: name demangled, system_name mangled, with -g and with dwarf" '
		cxx_spin cxx -O0 -g -fno-omit-frame-pointer || exit 1
		for cg in -g "--call-graph dwarf"; do
			# shellcheck disable=SC2086 # cg is an option and its value
			"$PREC" record -q -e cpu-clock $cg -o cxx.data -- ./cxx >/dev/null &&
			"$PREC" report -q -i cxx.data --pprof cxx.pb.gz &&
			"$PYTHON" dump.py cxx.pb.gz >cxx.dump || exit 1
			grep spin cxx.dump
			awk -F "\t" "\$2 == \"ns::W::spin\" && \$3 == \"_ZN2ns1W4spinEl\" {ok = 1}
				\$3 == \"ns::W::spin\" {bad = 1} END {exit !(ok && !bad)}" cxx.dump ||
				fail "$cg: not ns::W::spin named _ZN2ns1W4spinEl in the binary" || exit 1
		done'
else
	test_skip "a C++ function's system_name" "g++ is missing: no C++ program to record"
fi

# The mappings say what their locations hold: with dwarf chains and their debug information,
# nofp's inlined spin makes locations of more than one line, with files and line numbers;
# frame-pointer chains have none of them, and --no-inline no inlined frames
if have libdw; then
	test_expect "mapping flags: inline frames, files and lines with dwarf, none with -g" '
		"$PREC" record -q -e cpu-clock --call-graph dwarf -o inl.data -- \
			"$PREC_BUILD/tests/workloads/nofp" 0.2 >/dev/null &&
		"$PREC" report -q -i inl.data --pprof inl.pb.gz &&
		"$PYTHON" dump.py inl.pb.gz >inl.dump &&
		"$PREC" report -q -i inl.data --pprof noinl.pb.gz --no-inline &&
		"$PYTHON" dump.py noinl.pb.gz >noinl.dump &&
		"$PREC" report -q -i precg.data --pprof g.pb.gz && "$PYTHON" dump.py g.pb.gz >g.dump ||
			exit 1
		grep "^mapping .*/nofp " inl.dump noinl.dump; grep "^mapping .*/hot3 " g.dump
		grep -q "^mapping .*/nofp 1 1 1 1 [1-9]" inl.dump ||
			fail "nofp: not has_functions, has_filenames, has_line_numbers, has_inline_frames" ||
			exit 1
		grep -q "^mapping .*/nofp 1 [01] [01] 0 0\$" noinl.dump ||
			fail "--no-inline: nofp has_inline_frames" || exit 1
		grep -q "^mapping .*/hot3 1 0 0 0 0\$" g.dump ||
			fail "-g: hot3 has file, line or inline flags"'
else
	test_skip "mapping flags of a dwarf recording" "prec is built without libdw: no inlined frames"
fi

# An empty profile is written all the same, and one line on stderr says why, as the table says
# it: no sample passes the filters, or the file has prec:overhead's samples alone
test_expect "an empty profile: written, one line on stderr says why (none with -q)" '
	"$PREC" report -i prec.data --comm no-such-comm --pprof empty.pb.gz 2>err && cat err &&
	[ "$(wc -l <err)" = 1 ] && grep -q "prec.data has no samples that pass the filters" err &&
	"$PYTHON" check.py empty.pb.gz && "$PYTHON" dump.py empty.pb.gz | grep -qx "total 0" &&
	"$PREC" report -q -i prec.data --comm no-such-comm --pprof empty.pb.gz 2>err &&
	[ ! -s err ] || fail "no sample passes the filters" || exit 1
	"$PREC" record -q -e cpu-clock -c 1000000000 -o none.data -- true >/dev/null &&
	"$PREC" report -i none.data --pprof none.pb.gz 2>err && cat err &&
	[ "$(wc -l <err)" = 1 ] &&
	grep -q "none.data has no samples but [0-9]* of prec:overhead.*--overhead" err &&
	"$PYTHON" check.py none.pb.gz && "$PYTHON" dump.py none.pb.gz | grep -qx "total 0" ||
		fail "prec:overhead samples alone" || exit 1
	"$PREC" report -i prec.data --pprof full.pb.gz 2>err && [ ! -s err ] ||
		fail "a profile with samples: stderr is not empty"'
test_expect "--pprof without a file name: one line, exit 2" 'usage_error -i prec.data --pprof'
test_expect "--pprof into a directory that is not there: one line, exit 1" '
	report_fails 1 -i prec.data --pprof "$T/no/such/dir/p.pb.gz" &&
	grep -q "no/such/dir/p.pb.gz" err'
test_expect "--pprof over the input: refused, one line, the input as it was" '
	cp prec.data copy.data &&
	report_fails 1 -i copy.data --pprof copy.data && cmp prec.data copy.data &&
	ln -sf copy.data link.data && report_fails 1 -i link.data --pprof copy.data &&
	cmp prec.data copy.data'
test_expect "an earlier FILE is kept as FILE.old" '
	"$PREC" report -q -i prec.data --pprof keep.pb.gz && cp keep.pb.gz first.pb.gz &&
	"$PREC" report -q -i perf.data --pprof keep.pb.gz &&
	cmp first.pb.gz keep.pb.gz.old && ! cmp -s keep.pb.gz keep.pb.gz.old'
test_expect "--pprof over the input's .old: refused, the input as it was" '
	cp prec.data x.data.old && "$PREC" report -q -i prec.data --pprof x.data &&
	report_fails 1 -i x.data.old --pprof x.data && cmp prec.data x.data.old'
# a device like /dev/full, made here: a write that fails leaves what was there
test_expect "a write that fails: one line, exit 1, the device left where it was" '
	mknod full c 1 7 && report_fails 1 -i prec.data --pprof full && [ -c full ] &&
	grep -q "No space left" err'
test_expect "--pprof - writes to stdout" '
	"$PREC" report -q -i prec.data --pprof - >stdout.pb.gz && [ ! -e ./- ] &&
	"$PYTHON" check.py stdout.pb.gz'
test_expect "two events: each has its own sample types, named" '
	"$PREC" record -q -e cpu-clock,task-clock -o two.data -- "$W" -c 0.2 >/dev/null &&
	"$PREC" report -q -i two.data --pprof two.pb.gz && "$PYTHON" check.py two.pb.gz >types &&
	cat types &&
	grep -q "^samples/count cpu/nanoseconds task-clock_samples/count task-clock/nanoseconds default cpu " types'
test_expect "--flamegraph over the input: refused, the input as it was" '
	cp precg.data g.data && report_fails 1 -i g.data --flamegraph g.data &&
	cmp precg.data g.data'

done_testing
