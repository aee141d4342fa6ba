#!/bin/bash
# t1007: permissions, checked before anything is opened. An unprivileged user with
# kernel.perf_event_paranoid at 2 gets user-space samples only, told in one line, as perf falls
# back; -a is refused with the reason. Runs prec as nobody.
. "$(dirname "$0")/lib.sh"

require root perf

HOT3=$PREC_BUILD/tests/workloads/hot3
[ -x "$HOT3" ] || skip_all "build tests/workloads/hot3 first"
# Not about the overhead measurement: off, which spares each recording its calibration.
NONE=--overhead-source=none
command -v setpriv >/dev/null || skip_all "no setpriv to drop privileges"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -ge 2 ] ||
	skip_all "kernel.perf_event_paranoid is $paranoid: users may sample the kernel"
# nobody must be able to reach the binaries
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PREC" -a -x "$HOT3" ||
	skip_all "nobody cannot run $PREC"

chmod 755 "$T"
mkdir out && chmod 777 out
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

(cd out && as_nobody "$PREC" record $NONE -e cpu-clock -o u.data -- "$HOT3" -c 0.5 \
	>../u.out 2>../u.err)
u_rc=$?
test_expect "unprivileged: user space only, said in one line, exit 0" '
	cat u.err
	test $u_rc = 0 && test "$(grep -c "^prec: " u.err)" = 1 &&
	grep -q "perf_event_paranoid is $paranoid: recording user space only" u.err
'
# perf refuses files of other users without -f
chown root out/u.data
test_expect "unprivileged: the attrs exclude the kernel and the event is named cpu-clock:u" '
	perf evlist -v -i out/u.data 2>/dev/null |
		grep -q "^cpu-clock:u: .*exclude_kernel: 1, exclude_hv: 1"
'
test_expect "unprivileged: perf reads it without a word (no kernel map warning)" '
	perf_clean perf report -i out/u.data --stdio --sort sym >u.rep && grep -q hot_a u.rep &&
	! grep -q "\[k\]" u.rep
'
(cd out && as_nobody "$PREC" record $NONE -e cpu-clock -a -o a.data -- true >../a.out 2>../a.err)
a_rc=$?
test_expect "unprivileged -a: refused in one line that names the setting, no file" '
	test $a_rc = 1 && test "$(wc -l <a.err)" = 1 && grep -q "perf_event_paranoid" a.err &&
	! test -e out/a.data
'

done_testing
