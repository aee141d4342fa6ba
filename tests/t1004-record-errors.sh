#!/bin/bash
# t1004: what goes wrong is said in one line, with a useful exit status, and never leaves a
# partial file behind: a command that cannot run (127/126, like a shell), an output that cannot
# be created, a full disk (ENOSPC on a small tmpfs), bad events and targets. An earlier
# perf.data stays as it was.
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
# Not about the overhead measurement: off, which spares each recording its calibration.
NONE=--overhead-source=none

echo "an earlier recording" >perf.data
cp perf.data earlier

"$PREC" record -e cpu-clock -o perf.data -- ./no-such-command >out 2>err
missing_rc=$?
test_expect "a missing command: exit 127 and one line" '
	test $missing_rc = 127 && test "$(wc -l <err)" = 1 && grep -q "no-such-command" err
'
test_expect "a missing command: perf.data untouched, no perf.data.old" '
	cmp perf.data earlier && ! test -e perf.data.old
'
"$PREC" record -e cpu-clock -o perf.data -- no-such-command-in-path >out 2>err
notinpath_rc=$?
test_expect "a command not in PATH: exit 127, it says so" '
	test $notinpath_rc = 127 && grep -q "command not found" err
'
echo "echo not run" >script
chmod 644 script
"$PREC" record -e cpu-clock -o perf.data -- ./script >out 2>err
noexec_rc=$?
test_expect "a file that is not executable: exit 126 and one line" '
	test $noexec_rc = 126 && test "$(wc -l <err)" = 1 && cmp perf.data earlier
'

# A command that passes the PATH check but whose exec fails (its interpreter is missing): the
# file was already begun, so it is removed and the earlier one put back.
printf '#!/no/such/interpreter\n' >badinterp
chmod +x badinterp
"$PREC" record $NONE -e cpu-clock -o perf.data -- ./badinterp >out 2>err
badinterp_rc=$?
test_expect "an exec that fails after the start: exit 127, one line, perf.data untouched" '
	test $badinterp_rc = 127 && test "$(wc -l <err)" = 1 && grep -q badinterp err &&
	cmp perf.data earlier && ! test -e perf.data.old
'

"$PREC" record $NONE -e cpu-clock -o "$T/no/such/dir/x.data" -- "$HOT3" 0.1 >out 2>err
nodir_rc=$?
test_expect "an output in a missing directory: one line, exit 1, nothing created" '
	test $nodir_rc = 1 && test "$(wc -l <err)" = 1 && grep -q "x.data" err &&
	! test -e "$T/no"
'

# A read-only file system: the earlier file there stays, nothing is added.
mkdir ro
if mount -t tmpfs -o size=1m tmpfs ro 2>/dev/null; then
	cp earlier ro/perf.data
	mount -o remount,ro ro
	(cd ro && "$PREC" record $NONE -e cpu-clock -o perf.data -- "$HOT3" 0.1 >../out 2>../err)
	ro_rc=$?
	test_expect "an unwritable output: one line, exit 1, the earlier file untouched" '
		test $ro_rc = 1 && test "$(wc -l <err)" = 1 && cmp ro/perf.data earlier &&
		test "$(ls ro)" = perf.data
	'
	umount ro
else
	test_skip "an unwritable output" "cannot mount a tmpfs here"
fi

# A full disk in the middle of the recording (ENOSPC).
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	cp earlier small/perf.data
	# -c 2.25: no other test runs this command line, so pgrep sees only this workload.
	(cd small && "$PREC" record $NONE -e cpu-clock -g -F 4000 -o perf.data -- "$HOT3" -c 2.25 \
		>../out 2>../err)
	full_rc=$?
	test_expect "ENOSPC: one line that says the disk is full, exit 1" '
		test $full_rc = 1 && test "$(wc -l <err)" = 1 && grep -q "No space left" err
	'
	test_expect "ENOSPC: no partial file; the earlier perf.data is back" '
		cmp small/perf.data earlier && test "$(ls small)" = perf.data
	'
	test_expect "ENOSPC: the workload was stopped" '! pgrep -f "^$HOT3 -c 2\.25\$" >/dev/null'
	umount small
else
	test_skip "ENOSPC" "cannot mount a tmpfs here"
fi

test_expect "a bad event: an error pointing at it, exit 1, no file" '
	! "$PREC" record -e cpu-clock,no-such-event -o bad.data -- true 2>err &&
	grep -q "no-such-event" err && ! test -e bad.data
'
test_expect "--filter on an event that is not a tracepoint: an error, no file" '
	! "$PREC" record -e cpu-clock --filter "pid > 0" -o bad.data -- true 2>err &&
	test -s err && ! test -e bad.data
'
test_expect "-C with a CPU that is not online: one line, no file" '
	! "$PREC" record -e cpu-clock -C 4096 -o bad.data -- true 2>err &&
	test "$(wc -l <err)" = 1 && ! test -e bad.data
'
test_expect "-p with a process that does not exist: one line, no file" '
	! "$PREC" record -e cpu-clock -p 999999999 -o bad.data 2>err &&
	test "$(wc -l <err)" = 1 && ! test -e bad.data
'
test_expect "nothing to record: usage error, exit 2" '
	"$PREC" record -e cpu-clock 2>err; test $? = 2 && test "$(wc -l <err)" = 1
'
test_expect "--call-graph dwarf with a stack too large: perf's reason, exit 2" '
	"$PREC" record --call-graph dwarf,65536 -- true 2>err; test $? = 2 &&
	test "$(wc -l <err)" = 1 && grep -q "Incorrect stack dump size (max 65528)" err
'
test_expect "perf.data is still the earlier one after all of this" 'cmp perf.data earlier'

done_testing
