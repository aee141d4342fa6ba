#!/bin/bash
# t2019: where prec report takes the kernel's symbols from. The build-id cache's copy of the
# recorded kernel's kallsyms when it is there and was saved during this boot (a regular file,
# quicker to read than /proc/kallsyms); without it, or with a copy from an earlier boot (whose
# module addresses are stale), /proc/kallsyms, and the kernel rows are then perf report's. The
# copy here has every symbol renamed (prec_marker_NAME) but those that place the kernel (_text,
# _stext, _etext), so that the rows say which file named them. HOME is the test's directory: the real build-id cache is neither read nor written.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"

require root perf python
mkdir -p home
export HOME=$T/home

# krows OUT: the kernel rows of a --sort sym table, their share and name
krows() {
	awk '$2 == "[k]" { print $1, $3 }' "$1"
}

test_expect "a recording of time in the kernel, with the kernel's build-id" '
	perf record -N -q -e cpu-clock:k -F 4000 -o k.data -- \
		dd if=/dev/zero of=/dev/null bs=64k count=60000 >/dev/null 2>rec.err &&
	bid=$(perf buildid-list -i k.data 2>/dev/null |
		awk "\$2 == \"[kernel.kallsyms]\" { print \$1 }") &&
	[ -n "$bid" ] && echo "$bid" >bid &&
	"$PREC" report -i k.data --stdio --sort sym -g none >plain.out 2>plain.err &&
	krows plain.out >plain.k && [ -s plain.k ] ||
		{ cat rec.err plain.err; false; }'

test_expect "without a copy in the cache: /proc/kallsyms, perf's kernel rows" '
	same k.data --sort sym -g none'

copy="$T/home/.debug/[kernel.kallsyms]/$(cat bid 2>/dev/null)/kallsyms"
test_expect "with a copy saved now: its names" '
	mkdir -p "$(dirname "$copy")" &&
	sed -E -e "s/^([0-9a-f]+ [A-Za-z] )/\1prec_marker_/" \
		-e "s/ prec_marker_(_s?text|_etext)\$/ \1/" /proc/kallsyms >"$copy" &&
	grep -q " prec_marker_" "$copy" &&
	"$PREC" report -i k.data --stdio --sort sym -g none >copy.out 2>copy.err &&
	no_stderr copy.err && krows copy.out >copy.k &&
	sed "s/ prec_marker_/ /" copy.k >copy.unmarked &&
	! grep -qv " prec_marker_" copy.k && diff plain.k copy.unmarked'

test_expect "with a copy saved before this boot: /proc/kallsyms again" '
	touch -d @1000000000 "$copy" &&
	"$PREC" report -i k.data --stdio --sort sym -g none >old.out 2>old.err &&
	no_stderr old.err && krows old.out >old.k && diff plain.k old.k'

done_testing
