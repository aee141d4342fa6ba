#!/bin/bash
# t1008: the attrs prec record opens, against perf record 6.1's for the same -e (perf evlist -v),
# where the parser leaves something for the recorder to finish: S on an event outside a group
# (cpu-clock:S reads itself: READ and the id in every sample), the weak default period of
# breakpoints and bpf-output (kept unless -c or -F), named groups in GROUP_DESC, and the
# alt-period= / hf-period= / hf-rand= / alt-period-jitter= terms, which reach the kernel and are
# refused with one line where it lacks the alternating-period patches (and by prec itself when
# out of range). prec's files carry more than one attr (prec:overhead), so
# PERF_SAMPLE_IDENTIFIER stands in for PERF_SAMPLE_ID there: the comparison leaves both out. And
# prec gives cpu-clock and task-clock the fixed period the kernel makes of a frequency (1e9/F ns,
# without PERIOD in the samples): the comparison turns perf's frequency into that period.
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
export HOME=$T/home
mkdir -p "$HOME"

# attrs FILE: the evlist -v lines, without the event's name and with ID and IDENTIFIER left out
# of sample_type; prec's own prec:overhead attr is dropped. A cpu-clock or task-clock frequency
# becomes the period 1e9/F without PERIOD, as prec records it.
attrs() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v -e '^#' -e '^prec:overhead' |
		awk '{
			sub(/^[^ ]*: /, "")
			hr = / freq: 1(,|$)/ && /^type: 1, / && (!/config: / || /config: 0x1,/)
			n = split($0, f, ", "); out = ""
			for (i = 1; i <= n; i++) {
				if (hr && f[i] == "freq: 1")
					continue
				if (hr && f[i] ~ /^sample_freq }: [0-9]+$/)
					f[i] = "sample_freq }: " int(1000000000 / substr(f[i], 16))
				if (f[i] ~ /^sample_type: /) {
					m = split(substr(f[i], 14), t, "|"); s = ""
					for (j = 1; j <= m; j++)
						if (t[j] != "ID" && t[j] != "IDENTIFIER" &&
						    !(hr && t[j] == "PERIOD"))
							s = s (s == "" ? "" : "|") t[j]
					f[i] = "sample_type: " s
				}
				out = out (i > 1 ? ", " : "") f[i]
			}
			print out
		}'
}

# same NAME RECORD-ARGS...: perf and prec record the same thing; their attrs must match.
same() {
	local name=$1
	shift
	perf record -q -o "$name.perf.data" "$@" >/dev/null 2>"$name.perf.err"
	echo $? >"$name.perf.rc"
	"$PREC" record -q -o "$name.prec.data" "$@" >/dev/null 2>"$name.prec.err"
	echo $? >"$name.prec.rc"
	attrs "$name.perf.data" >"$name.perf.attrs"
	attrs "$name.prec.data" >"$name.prec.attrs"
}

# check NAME: prec recorded cleanly and its attrs are perf's.
check() {
	test "$(cat "$1.prec.rc")" = 0 && no_stderr "$1.prec.err" && test -s "$1.prec.attrs" &&
		diff "$1.perf.attrs" "$1.prec.attrs"
}

same sread -e cpu-clock:S -- "$HOT3" 0.2
test_expect "cpu-clock:S alone: READ of itself (no GROUP), inherited, as perf" '
	check sread && grep -q "sample_type: [A-Z|]*READ" sread.prec.attrs &&
	grep -q "read_format: ID|LOST," sread.prec.attrs
'
test_expect "cpu-clock:S alone: perf reads the samples with their values" '
	perf_clean perf script -i sread.prec.data -F event,period >sread.script &&
	grep -q "cpu-clock:S" sread.script
'

same bpfout -e bpf-output -- true
test_expect "bpf-output: period 1, RAW|CPU|PERIOD, as perf" 'check bpfout &&
	grep -q "sample_freq }: 1, sample_type: IP|TID|TIME|CPU|PERIOD|RAW" bpfout.prec.attrs'
same bpfout-c -e bpf-output -c 7 -- true
test_expect "bpf-output with -c 7: the period given wins" 'check bpfout-c &&
	grep -q "sample_freq }: 7," bpfout-c.prec.attrs'
same bpfout-f -e bpf-output -F 100 -- true
test_expect "bpf-output with -F 100: frequency mode" 'check bpfout-f &&
	grep -q "sample_freq }: 100,.* freq: 1" bpfout-f.prec.attrs'

# A hardware breakpoint on an address nothing executes: only the attr matters.
same bp -e mem:0x1060:x -- true
if [ "$(cat bp.perf.rc)" = 0 ]; then
	test_expect "mem:ADDR:x breakpoint: period 1, no frequency, as perf" 'check bp &&
		grep -q "^type: 5, .*sample_freq }: 1, sample_type: IP|TID|TIME," bp.prec.attrs'
else
	test_skip "breakpoint" "perf cannot open one here: $(head -1 bp.perf.err)"
fi

same unnamed -e '{cpu-clock,task-clock}' -- "$HOT3" 0.2
test_expect "an unnamed group: GROUP_DESC without a name, as perf's" '
	check unnamed &&
	perf report -i unnamed.prec.data --header-only 2>/dev/null | grep "^# group:" >unnamed.prec.hdr &&
	perf report -i unnamed.perf.data --header-only 2>/dev/null | grep "^# group:" >unnamed.perf.hdr &&
	grep -qx "# group: {cpu-clock,task-clock}" unnamed.prec.hdr &&
	diff unnamed.perf.hdr unnamed.prec.hdr
'

same named -e 'mygrp{cpu-clock,task-clock}' -- "$HOT3" 0.2
test_expect "a named group: GROUP_DESC carries its name, as perf's" '
	test "$(cat named.prec.rc)" = 0 &&
	perf report -i named.prec.data --header-only 2>/dev/null | grep "^# group:" >named.prec.hdr &&
	perf report -i named.perf.data --header-only 2>/dev/null | grep "^# group:" >named.perf.hdr &&
	grep -qx "# group: mygrp{cpu-clock,task-clock}" named.prec.hdr &&
	diff named.perf.hdr named.prec.hdr &&
	perf evlist -g -i named.prec.data 2>/dev/null | grep -qx "mygrp{cpu-clock,task-clock}"
'

# Does the kernel take the alternating-period field (a u64 at offset 136, attr size 144)? Asked
# directly: a kernel without the patches answers E2BIG to non-zero bytes past its own attr.
hf_kernel=$("$PYTHON" - <<'EOF'
import ctypes, ctypes.util, os, platform, struct
nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
if nr is None:
    print("unknown")
    raise SystemExit
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
attr = bytearray(144)
# type 1 (software), size 144, config 0 (cpu-clock), sample_period 1000000
struct.pack_into("<IIQQ", attr, 0, 1, 144, 0, 1000000)
# flags: disabled, exclude_kernel, exclude_hv
struct.pack_into("<Q", attr, 40, 1 | 1 << 5 | 1 << 6)
struct.pack_into("<Q", attr, 136, 300)
buf = (ctypes.c_char * 144).from_buffer(attr)
fd = libc.syscall(nr, buf, 0, -1, -1, 0)
if fd >= 0:
    os.close(fd)
    print("yes")
else:
    print("E2BIG" if ctypes.get_errno() == 7 else "errno %d" % ctypes.get_errno())
EOF
)
for term in alt-period hf-period; do
	"$PREC" record -q -o $term.data -e "cpu-clock/period=1000000,$term=300/" -- true \
		>/dev/null 2>$term.err
	echo $? >$term.rc
done
# The jitter terms: hf-rand= (an exponent, 0-15) and alt-period-jitter= (the older series', 0-7),
# each with its period. They are recorded with the default output over a perf.data that a
# refusal must leave as it was, without a perf.data.old.
for name in hf-rand alt-jitter; do
	mkdir $name && echo keep >$name/perf.data
done
(cd hf-rand && "$PREC" record -q -e 'cpu-clock/period=1000000,hf-period=300,hf-rand=4/' \
	-- true >/dev/null 2>../hf-rand.err; echo $? >../hf-rand.rc)
(cd alt-jitter && "$PREC" record -q \
	-e 'cpu-clock/period=1000000,alt-period=300,alt-period-jitter=3/' -- true >/dev/null \
	2>../alt-jitter.err; echo $? >../alt-jitter.rc)
# untouched DIR: the perf.data there is the one the test wrote, and nothing else was made
untouched() {
	test "$(cat "$1/perf.data")" = keep && test "$(ls "$1")" = perf.data
}
if [ "$hf_kernel" = E2BIG ]; then
	test_expect "alt-period= on a kernel without the patches: one line that says so, no file" '
		cat alt-period.err
		test "$(cat alt-period.rc)" = 1 && test "$(wc -l <alt-period.err)" = 1 &&
		grep -q "^prec: .*alt-period=.*alternating-period" alt-period.err &&
		! test -e alt-period.data
	'
	test_expect "hf-period= likewise" '
		cat hf-period.err
		test "$(cat hf-period.rc)" = 1 && test "$(wc -l <hf-period.err)" = 1 &&
		grep -q "^prec: .*hf-period=.*alternating-period" hf-period.err &&
		! test -e hf-period.data
	'
	test_expect "hf-period= with hf-rand=: one line, the size the kernel takes, no file" '
		cat hf-rand.err
		test "$(cat hf-rand.rc)" = 1 && test "$(wc -l <hf-rand.err)" = 1 &&
		grep -q "^prec: .*hf-period=.*alternating-period.*144-byte.*takes [0-9]* bytes" \
			hf-rand.err && untouched hf-rand
	'
	test_expect "alt-period= with alt-period-jitter=: likewise" '
		cat alt-jitter.err
		test "$(cat alt-jitter.rc)" = 1 && test "$(wc -l <alt-jitter.err)" = 1 &&
		grep -q "^prec: .*alt-period=.*alternating-period" alt-jitter.err &&
		untouched alt-jitter
	'
elif [ "$hf_kernel" = yes ]; then
	test_expect "alt-period= on a kernel with the patches: it records" '
		test "$(cat alt-period.rc)" = 0 && test -s alt-period.data
	'
	test_expect "hf-rand= and alt-period-jitter= on a kernel with the patches: they record" '
		test "$(cat hf-rand.rc)" = 0 && test -s hf-rand/perf.data &&
		test "$(cat alt-jitter.rc)" = 0 && test -s alt-jitter/perf.data
	'
else
	test_skip "alt-period=" "cannot tell whether the kernel has the patches ($hf_kernel)"
fi


# What prec refuses itself, whatever the kernel: one line naming the term and the limit, before
# any event is opened, leaving the perf.data there as it was.
n=0
while IFS='|' read -r event says; do
	n=$((n + 1))
	mkdir bad$n && echo keep >bad$n/perf.data
	(cd bad$n && "$PREC" record -q -e "$event" -- true >/dev/null 2>../bad$n.err
	 echo $? >../bad$n.rc)
	test_expect "refused by prec: $event" "
		cat bad$n.err
		test \"\$(cat bad$n.rc)\" = 1 && test \"\$(wc -l <bad$n.err)\" = 1 &&
		grep -q '^prec: .*$says' bad$n.err && untouched bad$n
	"
done <<'EOF'
cpu-clock/period=1000000,hf-rand=4/|hf-rand= needs hf-period=
cpu-clock/period=1000000,alt-period-jitter=2/|alt-period-jitter= needs hf-period=
cpu-clock/period=1000000,hf-period=300,hf-rand=16/|hf-rand=16 is above the limit of 15
cpu-clock/period=1000000,alt-period=300,alt-period-jitter=8/|alt-period-jitter=8 is above the limit of 7
cpu-clock/period=0x200000000,hf-period=0x100000000/|hf-period=4294967296 is above the kernel.s limit of 4294967295
cpu-clock/period=1000000,hf-period=1000000/|hf-period=1000000 is not below the event.s period 1000000
EOF

# Without the terms nothing changes in the file: attrs of 128 bytes (the header's attr_size is
# attr.size + 16), which perf 6.1 reads.
"$PREC" record -q -o plain.data -e cpu-clock -c 100000 -- "$HOT3" 0.1 >/dev/null 2>plain.err
test_expect "no hf terms: the file's attrs are 128 bytes and perf reads them" '
	no_stderr plain.err &&
	test "$(od -An -tu8 -j16 -N8 plain.data | tr -d " ")" = 144 &&
	perf evlist -v -i plain.data 2>/dev/null | grep "^cpu-clock" >plain.evlist &&
	grep -q "size: 128," plain.evlist && ! grep -q hf_ plain.evlist &&
	perf_clean perf report -i plain.data --stdio >plain.report && grep -q hot plain.report
'

done_testing
