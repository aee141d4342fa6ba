#!/bin/bash
# t2005: damaged input through the profile views (the table with call graphs, --sort pid,cpu,
# -g caller, --folded, --json, --flamegraph). A -g recording cut at many points in its data gets
# one "prec: " line and exit status 1 from every view, never a signal. Records whose contents
# are nonsense but whose sizes are right (random call-chain entries and context marks, random
# addresses and thread ids, file names and commands without their NUL, maps that wrap around,
# FORKs of a thread by itself) still give a report, exit 0. The fuzz corpus of the reader goes
# through the views too, without a crash.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
[ -x "$W" ] || skip_all "the hot3 workload is not built"
workload_multi

VIEWS='|-g caller --sort pid,cpu|--folded|--json --percent-limit 1|--flamegraph x.svg'

# views FILE EXPECT: run every view on FILE; EXPECT "ok" (exit 0, stderr only "prec: " lines)
# or "error" (exit 1 and one "prec: " line). Python runs them, to keep this fast.
views() {
	"$PYTHON" - "$PREC" "$1" "$2" "$VIEWS" <<'EOF'
import subprocess, sys
prec, path, expect, views = sys.argv[1:5]
for v in views.split('|'):
    p = subprocess.run([prec, 'report', '-i', path] + v.split(), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode(errors='replace').splitlines()
    bad = [l for l in err if not l.startswith('prec: ')]
    if p.returncode < 0 or p.returncode >= 128:
        sys.exit('%s %s: killed by signal %d' % (path, v, -p.returncode % 256))
    if expect == 'ok' and (p.returncode != 0 or bad):
        sys.exit('%s %s: exit %d, %r' % (path, v, p.returncode, err[:3]))
    if expect == 'error' and (p.returncode != 1 or len(err) != 1 or bad):
        sys.exit('%s %s: exit %d, %r' % (path, v, p.returncode, err[:3]))
EOF
}

test_expect "perf records the workload with -g" 'rec_perf good -g -- ./multi.sh'
test_expect "the good file passes every view" 'views good.data ok'

test_expect "the file cut at 12 points of its data: one line, exit 1, from every view" '
	"$PYTHON" - <<EOF || exit 1
import struct
d = open("good.data", "rb").read()
_, _, _, _, _, do, dsz = struct.unpack_from("<7Q", d)
for i in range(12):
    c = do + 40 + (dsz - 80) * i // 11 + i
    open("cut%d.data" % i, "wb").write(d[:c])
EOF
	for i in $(seq 0 11); do views cut$i.data error || exit 1; done'

# nonsense inside records whose sizes are right
test_expect "nonsense in the records: a report, exit 0, from every view" '
	"$PYTHON" - <<EOF || exit 1
import random, struct
random.seed(2005)
d = bytearray(open("good.data", "rb").read())
_, _, _, ao, asz, do, dsz = struct.unpack_from("<7Q", d)
attr = d[ao:ao + 128]
sample_type = struct.unpack_from("<Q", attr, 24)[0]
marks = [2**64 - 128, 2**64 - 512, 2**64 - 32, 2**64 - 2048, 2**64 - 4095, 2**64 - 1]
def records():
    off = do
    while off < do + dsz:
        t, m, s = struct.unpack_from("<IHH", d, off)
        if s < 8:
            return
        yield off, t, s
        off += s
for n in range(4):
    x = bytearray(d)
    for off, t, s in records():
        if random.random() > 0.3:
            continue
        body = off + 8
        if t == 9 and (sample_type & 0x20):  # SAMPLE with a callchain: IP, TID, TIME, PERIOD
            p = body
            for bit in (0x10000, 0x1, 0x2, 0x4, 0x8, 0x40, 0x80, 0x100, 0x200):
                if sample_type & bit:
                    if bit == 0x1:
                        struct.pack_into("<Q", x, p, random.getrandbits(64))
                    if bit == 0x2 and n % 2:
                        struct.pack_into("<ii", x, p, random.randint(-5, 70000),
                                         random.randint(-5, 70000))
                    p += 8
            nr = struct.unpack_from("<Q", x, p)[0]
            for i in range(min(nr, (off + s - p - 8) // 8)):
                v = random.choice(marks) if random.random() < 0.2 else random.getrandbits(64)
                struct.pack_into("<Q", x, p + 8 + 8 * i, v)
        elif t in (1, 10):  # MMAP, MMAP2: wild ranges, a name without its NUL
            struct.pack_into("<QQ", x, body + 8, random.getrandbits(64), random.getrandbits(64))
            name = body + (32 if t == 1 else 72)
            for i in range(name, off + s):
                x[i] = 0x41
        elif t == 3:  # COMM: a name without its NUL
            for i in range(body + 8, off + s):
                x[i] = 0x42
        elif t in (7, 4):  # FORK, EXIT: a thread forks itself
            tid = struct.unpack_from("<I", x, body + 8)[0]
            struct.pack_into("<IIII", x, body, tid, tid, tid, tid)
    open("bad%d.data" % n, "wb").write(x)
EOF
	for i in 0 1 2 3; do views bad$i.data ok || exit 1; done'

test_expect "the fuzz corpus through every view: no crash" '
	ls "$PREC_SRC"/tests/fuzz/corpus/* >corpus.list && [ -s corpus.list ] &&
	"$PYTHON" - "$PREC" "$VIEWS" <<EOF
import subprocess, sys
prec, views = sys.argv[1:3]
n = 0
for path in open("corpus.list").read().split():
    for v in views.split("|"):
        p = subprocess.run([prec, "report", "-q", "-i", path] + v.split(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
        n += 1
        if p.returncode < 0 or p.returncode >= 128:
            sys.exit("%s %s: killed by signal %d" % (path, v, -p.returncode % 256))
print("# %d runs" % n)
EOF'

done_testing
