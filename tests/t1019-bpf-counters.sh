#!/bin/bash
# t1019: prec record --count --bpf-counters: one counter per CPU and event shared by every
# session. Concurrent sessions on the same target: only the first opens the counters (perf_event
# fds in /proc/PID/fd), each reads what a counter perf stat opens separately over the same work
# reads (task-clock within 2%, the page faults of a deterministic burst exactly); the first
# session ending while the others run; a session killed with SIGKILL, then one that reads right
# and finds the state reused; more distinct events than the map of shared events holds; a killed
# session's 16 events swept by a later one; a process of several threads read whole under one
# id, by its tgid only; the exec program detached once the workload ran; a session starting while
# the last one removes the pin root; a group refused; nothing left under the pin root at the end.
# shellcheck disable=SC2016,SC2034 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"

require root perf python bpf

export HOME=$T/home
mkdir -p "$HOME"
NCPUS=$(getconf _NPROCESSORS_ONLN)
# A pin root of this file's own, so that other tests' sessions never share these counters.
ROOT=/sys/fs/bpf/prec-t1019-$$
export PREC_BPF_PIN_ROOT=$ROOT
at_exit "rm -rf '$ROOT'"

# The target: a process that, for each byte written to the fifo ctl, burns a fixed amount of
# CPU, touches PAGES new pages, then writes doneN; in between it waits on the fifo. It is switched
# out rarely: a shared counter is read at each switch, and the time a switch takes is the task's
# to it, not to a counter of the task's own (a few microseconds each).
PAGES=1500
mkfifo ctl
cat >work.py <<EOF
import mmap, os
fd = os.open('ctl', os.O_RDWR)
n = 0
while True:
    n += 1
    os.read(fd, 1)
    x = 0
    for i in range(2000000):
        x += i
    m = mmap.mmap(-1, $PAGES * 4096)
    for p in range(0, $PAGES * 4096, 4096):
        m[p] = 1
    m.close()
    open('done%d' % n, 'w').close()
EOF
# It runs at the lowest real-time priority ($FAVOURED), so that the machine's other work does
# not preempt it either.
$FAVOURED "$PYTHON" work.py &
W=$!
at_exit "kill $W"

# burst N: let the target do its work once, and wait until it is done
burst() {
	echo -n x >ctl
	for _ in $(seq 3000); do
		[ -e "done$1" ] && return 0
		sleep 0.02
	done
	fail "the target never finished burst $1"
}

# session NAME [OPTIONS]: prec record --bpf-counters on the target in the background, until
# SIGINT; its pid in $NAME.pid; returns once it said whether it created or joined.
session() {
	local name=$1
	shift
	"$PREC" record -v -F 10 -e cpu-clock --bpf-counters --count task-clock,page-faults \
		-p "$W" -o "$name.data" "$@" 2>"$name.err" &
	echo $! >"$name.pid"
	at_exit "kill -9 $!"
	for _ in $(seq 1500); do
		[ "$(grep -c 'the shared counter of' "$name.err")" -ge 2 ] && break
		kill -0 "$(cat "$name.pid")" 2>/dev/null || break
		sleep 0.02
	done
	# the readers are attached right after that line: wait for their two sched_switch links (a
	# loaded machine can take longer than any fixed sleep)
	for _ in $(seq 1500); do
		[ "$(switch_links "$(cat "$name.pid")")" -ge 2 ] && break
		kill -0 "$(cat "$name.pid")" 2>/dev/null || break
		sleep 0.02
	done
}

# switch_links PID: the BPF links on sched_switch the process holds
switch_links() {
	grep -l "^tp_name:.sched_switch$" /proc/"$1"/fdinfo/* 2>/dev/null | wc -l
}

# stop NAME: SIGINT, and wait for it to finish its file
stop() {
	local pid
	pid=$(cat "$1.pid")
	kill -INT "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
}

# reference NAME: perf stat counting the same events of the target with counters of its own
reference() {
	perf stat -x, -e task-clock,page-faults -p "$W" 2>"$1.csv" &
	echo $! >"$1.pid"
	at_exit "kill -9 $!"
	# counting once its two counters are open (it enables them right after)
	counting 2 "$(cat "$1.pid")"
	sleep 0.1
}
ref_stop() {
	stop "$1"
}

# total NAME EVENT: the count prec report --counters gives EVENT in NAME.data
total() {
	"$PREC" report --counters -i "$1.data" 2>/dev/null |
		awk -v n="$2" '$1 ~ /^[0-9]+$/ { for (i = 3; i <= NF; i++) if ($i == n) print $2 }'
}
# ref NAME EVENT: perf stat's count (task-clock in ns, as prec writes it)
ref() {
	awk -F, -v n="$2" '$3 == n { if ($2 == "msec") printf "%.0f\n", $1 * 1e6; else print $1 }' \
		"$1.csv"
}
# equal A B: A and B are the same count (else both are printed)
equal() {
	[ -n "$1" ] && [ "$1" = "$2" ] || { echo "$1 against $2"; false; }
}
# within A B PCT: A and B are numbers and differ by at most PCT% of B (else both are printed)
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(a != "" && b > 0 && d <= b * p / 100) }' || { echo "$1 against $2"; false; }
}

# Can this kernel share a counter at all? (bpffs, BPF programs on raw tracepoints)
"$PREC" record -F 10 -e cpu-clock --bpf-counters --count task-clock -o probe.data -a \
	-- true 2>probe.err
if grep -q "counts with its own counters" probe.err; then
	skip_all "the kernel cannot share counters through BPF: $(head -1 probe.err)"
fi

session A
session B
session C
reference R1
test_expect "the first session created the shared counters, -v says so" \
	'[ "$(grep -c "created the shared counter of" A.err)" = 2 ]'
test_expect "the second and third joined them" \
	'[ "$(grep -c "joined the shared counter of" B.err)" = 2 ] &&
	 [ "$(grep -c "joined the shared counter of" C.err)" = 2 ]'
FA=$(perf_event_fds "$(cat A.pid)")
FB=$(perf_event_fds "$(cat B.pid)")
FC=$(perf_event_fds "$(cat C.pid)")
test_expect "only the first opened the counters: one per CPU and event ($FA, $FB, $FC fds)" \
	'[ "$FB" = "$FC" ] && [ $((FA - FB)) = $((2 * NCPUS)) ]'
test_expect "the state is pinned under the pin root: the map of events and two arrays" \
	'[ -e "$ROOT/attrs" ] && [ "$(ls "$ROOT" | grep -c "^events_")" = 2 ]'

burst 1
stop A
ref_stop R1
cp A.err A.err.saved
test_expect "the first session's task-clock is within 2% of perf stat's" \
	'within "$(total A task-clock)" "$(ref R1 task-clock)" 2'
test_expect "its page faults are perf stat's exactly" \
	'equal "$(total A page-faults)" "$(ref R1 page-faults)" &&
	 [ "$(ref R1 page-faults)" -ge $PAGES ]'
test_expect "prec report --counters says its readings came through counters it created" \
	'"$PREC" report --counters -i A.data >A.rep &&
	 grep -q "task-clock .*read through a counter shared across sessions (created)" A.rep &&
	 grep -q "page-faults .*read through a counter shared across sessions (created)" A.rep &&
	 ! grep -q "not known which" A.rep'
test_expect "the others still read the counters it created after it ended" \
	'[ "$(ls "$ROOT" | grep -c "^events_")" = 2 ]'

reference R2
burst 2
stop B
stop C
ref_stop R2
for s in B C; do
	test_expect "session $s (both bursts, the first session gone in between): task-clock within 2%" \
		'within "$(total $s task-clock)" "$(( $(ref R1 task-clock) + $(ref R2 task-clock) ))" 2'
	test_expect "session $s: the page faults exactly" \
		'equal "$(total $s page-faults)" "$(( $(ref R1 page-faults) + $(ref R2 page-faults) ))"'
done
test_expect "--json says a later session joined the counters" \
	'"$PREC" report --counters --json -i B.data >B.json &&
	 "$PYTHON" -c "import json, sys
ev = {e[\"name\"]: e for e in json.load(open(\"B.json\"))[\"events\"]}
sys.exit(not (ev[\"task-clock\"][\"bpf_counter\"] == \"joined\" and
              ev[\"page-faults\"][\"bpf_counter\"] == \"joined\" and
              ev[\"cpu-clock\"][\"bpf_counter\"] is None))"'
test_expect "the last session left nothing under the pin root" '! [ -e "$ROOT" ]'

# A session killed with SIGKILL leaves its state; the next one reuses it and reads right.
session K
kill -9 "$(cat K.pid)"
wait "$(cat K.pid)" 2>/dev/null
test_expect "a killed session leaves its counters pinned" \
	'[ "$(ls "$ROOT" | grep -c "^events_")" = 2 ]'
KEPT=$(ls "$ROOT" | grep "^events_" | sort)
session N
reference R3
test_expect "the next session reuses the counters left behind (-v: reused, no live user)" \
	'[ "$(grep -c "reused the shared counter of" N.err)" = 2 ] &&
	 ! grep -q "joined the shared counter of" N.err &&
	 [ "$(ls "$ROOT" | grep "^events_" | sort)" = "$KEPT" ]'
burst 3
stop N
ref_stop R3
test_expect "it reads right: task-clock within 2%" \
	'within "$(total N task-clock)" "$(ref R3 task-clock)" 2'
test_expect "... the page faults exactly" \
	'equal "$(total N page-faults)" "$(ref R3 page-faults)"'
test_expect "and, the last live user, it removed what the killed session left" '! [ -e "$ROOT" ]'

# A stale entry: its array's pin removed behind the map's back; the event is created again.
session S1
rm -f "$ROOT"/events_*
stop S1
session S2
test_expect "an entry whose array is gone is made again" \
	'[ "$(grep -c "created the shared counter of" S2.err)" = 2 ]'
stop S2
rm -rf "$ROOT"

# 17 distinct events: the map of shared events holds 16; the 17th counts with its own.
EVENTS=task-clock,cpu-clock,page-faults,minor-faults,major-faults,context-switches
EVENTS=$EVENTS,cpu-migrations,alignment-faults,emulation-faults
EVENTS=$EVENTS,task-clock:u,cpu-clock:u,page-faults:u,minor-faults:u,context-switches:u
EVENTS=$EVENTS,task-clock:k,cpu-clock:k,page-faults:k
test_expect "17 distinct events: the 17th says it counts with its own counters" \
	'"$PREC" record -F 10 -e cpu-clock --bpf-counters --count "$EVENTS" -o full.data -a \
		-- sleep 0.2 2>full.err &&
	 [ "$(grep -c "counts with its own counters" full.err)" = 1 ] &&
	 grep -q "^prec: --bpf-counters: page-faults:k counts with its own counters: the map of shared events is full (16 events)$" full.err'
test_expect "... and it is counted all the same" \
	'perf stat report -i full.data 2>&1 | grep -Eq "^ +[0-9.]+ +[0-9.]+ +page-faults:k"'
test_expect "... and nothing is left under the pin root" '! [ -e "$ROOT" ]'

# 16 distinct events of a session killed with SIGKILL: a later session with a 17th event finds
# their entries without a live user and removes them with their arrays, instead of finding the
# map full. An array pin no entry names (a session killed between pinning an array and writing
# its entry) goes too.
EVENTS16=${EVENTS%,page-faults:k}
"$PREC" record -v -F 10 -e cpu-clock --bpf-counters --count "$EVENTS16" -p "$W" -o k16.data \
	2>k16.err &
K16=$!
at_exit "kill -9 $K16"
for _ in $(seq 1500); do
	[ "$(grep -c "created the shared counter of" k16.err)" -ge 16 ] && break
	kill -0 $K16 2>/dev/null || break
	sleep 0.02
done
kill -9 $K16
wait $K16 2>/dev/null
test_expect "a killed session with 16 distinct events leaves 16 arrays pinned" \
	'[ "$(ls "$ROOT" | grep -c "^events_")" = 16 ]'
ORPHAN=$(ls "$ROOT" | grep "^events_" | head -1)
mv "$ROOT/$ORPHAN" "$ROOT/events_4000000000"
test_expect "a 17th distinct event is created, not refused for a full map" \
	'"$PREC" record -v -F 10 -e cpu-clock --bpf-counters --count page-faults:k -a \
		-o k17.data -- sleep 0.1 2>k17.err &&
	 grep -q "created the shared counter of page-faults:k" k17.err &&
	 ! grep -q "counts with its own counters" k17.err'
test_expect "... and the killed session's arrays are gone from the pin root" '! [ -e "$ROOT" ]'
rm -rf "$ROOT"

# A process of several threads: its shared counter reads the whole process, so the event has one
# id (one reading per round), and perf reads the file without a complaint.
cat >mt.py <<'EOF2'
import os, sys, threading, time
def spin():
    while not os.path.exists('end-thread'):
        time.sleep(0.005)
def quit_thread():
    open('tid', 'w').write('%d\n' % threading.get_native_id())
    while not os.path.exists('end-thread'):
        time.sleep(0.01)
ts = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
ts.append(threading.Thread(target=quit_thread, daemon=True))
for t in ts:
    t.start()
time.sleep(1000)
EOF2
"$PYTHON" mt.py &
MT=$!
at_exit "kill $MT"
for _ in $(seq 500); do [ -s tid ] && [ "$(ls /proc/$MT/task | wc -l)" = 4 ] && break; sleep 0.02; done
test_expect "a process of 4 threads: its shared event has one id in the file" \
	'"$PREC" record -F 10 -e cpu-clock --bpf-counters --count task-clock -p "$MT" \
		-o mt.data -- sleep 0.3 2>mt.err &&
	 perf report --header-only -I -i mt.data 2>&1 |
		grep "name = task-clock," | grep -Eq "id = \{ [0-9]+ \}"'
test_expect "... which perf stat report and prec report --counters read silently" \
	'perf stat report -i mt.data >mt.perf 2>&1 && ! grep -qi "warn" mt.perf &&
	 grep -Eq "[0-9.]+ +msec task-clock" mt.perf &&
	 "$PREC" report --counters -i mt.data >mt.rep 2>mt.reperr && ! [ -s mt.reperr ]'

# The readers look a task up by its process: a thread id of -p that a new process has as its pid
# (the thread gone) is not counted. The new process gets the id through ns_last_pid. Once it is
# made, the threads that woke every 5 ms are gone too: what the process counts then is not its
# threads' CPU time over a wall time that a busy machine stretches.
"$PREC" record -v -F 10 -e cpu-clock --bpf-counters --count task-clock -p "$MT" -o reuse.data \
	2>reuse.err &
echo $! >reuse.pid
at_exit "kill -9 $!"
for _ in $(seq 1500); do
	grep -q "the shared counter of" reuse.err && break
	sleep 0.02
done
sleep 0.3
TID=$(cat tid)
touch end-thread
for _ in $(seq 500); do [ -e "/proc/$MT/task/$TID" ] || break; sleep 0.02; done
"$PYTHON" - "$TID" >reuse.cpu <<'EOF2'
import os, sys, time
tid = int(sys.argv[1])
open('/proc/sys/kernel/ns_last_pid', 'w').write('%d' % (tid - 1))
pid = os.fork()
if pid == 0:
    if os.getpid() != tid:
        os._exit(3)
    t0 = time.process_time()
    x = 0
    for i in range(3000000):
        x += i
    open('reuse.child', 'w').write('%d\n' % ((time.process_time() - t0) * 1e9))
    os._exit(0)
os.waitpid(pid, 0)
EOF2
stop reuse
if [ -s reuse.child ]; then
	test_expect "a process whose pid was a thread id of -p is not counted" \
		'[ "$(total reuse task-clock)" -lt $(( $(cat reuse.child) / 4 )) ]'
else
	test_skip "a process whose pid was a thread id of -p is not counted" \
		"another process took the id first"
fi

# prec stat with a workload: the program that waits for its exec (run on every system call) is
# detached once the exec succeeded, not at the end of the run.
# sys_enter_links PID: the process's BPF links on raw tracepoint sys_enter
sys_enter_links() {
	local n=0 f
	for f in /proc/"$1"/fdinfo/*; do
		grep -q "^tp_name:.sys_enter$" "$f" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}
"$PREC" stat --bpf-counters -e task-clock -- \
	sh -c 'touch started; while ! [ -e stop ]; do sleep 0.02; done' 2>exec.err &
SP=$!
at_exit "kill -9 $SP"
for _ in $(seq 1500); do [ -e started ] && break; sleep 0.02; done
for _ in $(seq 100); do [ "$(sys_enter_links $SP)" = 0 ] && break; sleep 0.02; done
test_expect "prec stat --bpf-counters: no sys_enter program once the workload exec'ed" \
	'[ "$(sys_enter_links $SP)" = 0 ] && grep -q "^tp_name:.sched_switch$" /proc/$SP/fdinfo/*'
touch stop
wait $SP

# A session starting while the last one leaves: it waits on the lock of the map of events, which
# the leaver then removes with the pin root. The leaver is played here (leave.py holds the lock,
# then removes everything) so that the order is certain; the starter must make the root again
# and share its counter, not fall back to counters of its own.
cat >leave.py <<'EOF2'
import ctypes, fcntl, os, platform, sys, time
root = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
nr_bpf = {'x86_64': 321, 'aarch64': 280}[platform.machine()]
path = ctypes.create_string_buffer((root + '/attrs').encode())
attr = (ctypes.c_uint64 * 16)()
attr[0] = ctypes.addressof(path)
fd = libc.syscall(nr_bpf, 7, ctypes.byref(attr), ctypes.sizeof(attr))  # BPF_OBJ_GET
if fd < 0:
    sys.exit('cannot get the map of events: %s' % os.strerror(ctypes.get_errno()))
fcntl.flock(fd, fcntl.LOCK_EX)
open('held', 'w').close()
while not os.path.exists('leave'):
    time.sleep(0.02)
for name in os.listdir(root):
    os.unlink(os.path.join(root, name))
os.rmdir(root)
os.close(fd)
EOF2
"$PREC" record -v -F 10 -e cpu-clock --bpf-counters --count task-clock -a -o z.data 2>z.err &
echo $! >z.pid
at_exit "kill -9 $!"
for _ in $(seq 1500); do grep -q "the shared counter of" z.err && break; sleep 0.02; done
kill -9 "$(cat z.pid)"
wait "$(cat z.pid)" 2>/dev/null
"$PYTHON" leave.py "$ROOT" &
LV=$!
at_exit "kill -9 $LV"
for _ in $(seq 500); do [ -e held ] && break; sleep 0.02; done
"$PREC" stat -v --bpf-counters -e task-clock -- true 2>late.err >/dev/null &
LATE=$!
at_exit "kill -9 $LATE"
# /proc/locks lists a process waiting for a lock as "-> FLOCK ... PID ..."
for _ in $(seq 500); do grep -Eq -- "-> FLOCK +ADVISORY +WRITE +$LATE " /proc/locks && break; sleep 0.02; done
touch leave
wait $LV
wait $LATE
test_expect "a session waiting while the last one removes the pin root makes it again" \
	'grep -q "created the shared counter of task-clock" late.err &&
	 ! grep -q "counts with its own counters" late.err && ! [ -e "$ROOT" ]'

# A group: one counter per CPU cannot be read as a member of a group.
test_expect "a group counts with its own counters, one line per event saying why" \
	'"$PREC" record -F 10 -e cpu-clock --bpf-counters --count "{task-clock,page-faults}" \
		-o group.data -a -- sleep 0.1 2>group.err &&
	 grep -q "^prec: --bpf-counters: task-clock counts with its own counters: it is in a group$" group.err &&
	 grep -q "^prec: --bpf-counters: page-faults counts with its own counters: it is in a group$" group.err &&
	 [ "$(grep -c "bpf-counters" group.err)" = 2 ] && ! [ -e "$ROOT" ] &&
	 "$PREC" report --counters -i group.data >group.rep &&
	 grep -q "task-clock .*own counters, none shared across sessions: it is in a group" group.rep'

done_testing
