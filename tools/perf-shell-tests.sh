#!/bin/bash
# Run perf's own shell tests for perf record and perf report with prec routed in, to show where
# prec is (and is not yet) a drop-in for perf.
#
#   tools/perf-shell-tests.sh [--pass record|report|both] [--prec PATH] [--timeout SEC]
#                             [--out DIR] [--only NAME[,NAME...]] [DIR...]
#   tools/perf-shell-tests.sh --self-test    (checks how it reads the scripts' output)
#
# Each test script is run three ways, one at a time:
#   perf    the real perf, as its maintainers run it;
#   record  a directory first on PATH holds a `perf` that runs `prec record` for `perf record`
#           and the real perf for everything else, so perf itself judges what prec wrote;
#   report  the same, and `perf report` runs `prec report` too.
# The table that follows has one row per subtest; the summary of each pass lists every subtest
# that passes with perf and not with prec, with the last lines of its output. Every run's
# output, the routed commands and their stderr stay in the scratch directory named at the start.
#
# The test scripts are not part of prec: DIR defaults to the copies perf 6.1 installs
# (/usr/lib/perf-core/tests/shell) and to $PERF_SHELL_TESTS, if set, for newer copies from a
# kernel tree (its tools/perf/tests/shell, or a directory laid out as it).
set -uo pipefail

# The scripts that exercise perf record or perf report, and what they test. The others under
# tools/perf/tests/shell are left out: perf stat, probe, trace, ftrace, lock, daemon, c2c and mem
# tests (perf mem and perf lock run their recorder inside perf, never through PATH), and the
# hardware trace tests of other machines (CoreSight, SPE, Intel PT, Java).
TESTS="
record.sh			record --per-thread, -p, -a, a workload, --threads, cgroups, groups
pipe_test.sh			record -o - into report, inject and report -i -
buildid.sh			record --buildid-all fills the build-id cache of --buildid-dir
record_offcpu.sh		record --off-cpu (a BPF off-CPU event) read by evlist and report
record+zstd_comp_decomp.sh	record -z: report --header --stats, inject decompresses it
record+zstd_comp_decomp_multi_record.sh	record -z -F max -m 32M --per-thread, inject
record+script_probe_vfs_getname.sh	record a probe event, read by perf script
record+probe_libc_inet_pton.sh	record a uprobe with max-stack, read by perf script
test_brstack.sh			record -b / -j branch-stack filters
evlist.sh			record, groups and -v attributes read by perf evlist
header.sh			report --header-only -I, from a file and from a pipe
perf-report-hierarchy.sh	report --hierarchy
record_sideband.sh		record -C 0 keeps side-band of tasks on other CPUs
record_weak_term.sh		record -c overrides a PMU event's built-in period (-vv)
perftool-testsuite_report.sh	record -asdg, then report --stdio, -n, --header-only, --pid ...
"

usage() {
	sed -n '2,20s/^# \{0,1\}//p' "$0"
	exit "${1:-0}"
}

die() {
	echo "perf-shell-tests: $*" >&2
	exit 1
}

# The subtests of one script, from the outputs of its runs (FILE...), as lines
# "FILE<TAB>SUBTEST<TAB>STATUS<TAB>LAST LINES" (the last lines joined by \x1f).
# A subtest is a line ending in [Success], [Done], [Failed ...] or [Skipped ...], or the
# "-- [ PASS|FAIL|SKIP ] -- suite :: test :: case" lines of the perftool-testsuite (common/init.sh).
# The same subtest prints other words when it fails than when it passes ("Per-thread record
# [Failed record]" against "Basic --per-thread mode test [Success]"), so a result is named
# after the last line before it, since the previous result, that some run printed with
# [Success]: the title the test echoes first. [Done] passes unless a line before it says fail.
parse_runs() {
	awk -v tail_lines=6 '
	function bracket(line,    s) {
		if (!match(line, /\[(Success|Done|Failed[^]]*|Skipped[^]]*)\][ \t]*$/))
			return ""
		s = substr(line, RSTART + 1, RLENGTH - 1)
		sub(/\][ \t]*$/, "", s)
		bprefix = substr(line, 1, RSTART - 1)
		sub(/[ \t:]+$/, "", bprefix)
		sub(/^[ \t]+/, "", bprefix)
		return s
	}
	function suite(line,    n, f, name) {
		if (line !~ /^-- \[ (PASS|FAIL|SKIP) \] -- /)
			return ""
		n = split(line, f, / :: /)
		if (n < 3)
			return ""
		name = f[2] " :: " f[3]
		sub(/ \([^()]*\)$/, "", name)
		sprefix = name
		return line ~ /^-- \[ PASS/ ? "pass" : line ~ /^-- \[ FAIL/ ? "FAIL" : "skip"
	}
	FNR == 1 { nfiles++; file[nfiles] = FILENAME }
	{ lines[nfiles, FNR] = $0; nlines[nfiles] = FNR }
	END {
		for (f = 1; f <= nfiles; f++)
			for (l = 1; l <= nlines[f]; l++) {
				s = bracket(lines[f, l])
				if (s == "Success" && bprefix != "")
					title[bprefix] = 1
			}
		for (f = 1; f <= nfiles; f++) {
			last_title = ""
			from = 1
			for (l = 1; l <= nlines[f]; l++) {
				line = lines[f, l]
				if (line ~ /^## \[ (PASS|FAIL|SKIP) \] ##/)
					continue
				st = ""
				s = suite(line)
				if (s != "") {
					st = s
					name = sprefix
				} else {
					s = bracket(line)
					if (s != "") {
						name = bprefix
						if (!(name in title) && last_title != "")
							name = last_title
						if (s == "Success")
							st = "pass"
						else if (s ~ /^Skipped/)
							st = "skip"
						else if (s ~ /^Failed/)
							st = "FAIL"
						else {
							st = "pass"
							for (k = from; k < l; k++)
								if (tolower(lines[f, k]) ~ /fail/)
									st = "FAIL"
						}
						if (name == "")
							name = "(unnamed)"
					}
				}
				if (st == "") {
					if (line in title)
						last_title = line
					continue
				}
				k = l - tail_lines + 1
				if (k < from)
					k = from
				text = ""
				for (; k <= l; k++)
					text = text (text == "" ? "" : "\x1f") lines[f, k]
				print file[f] "\t" name "\t" st "\t" text
				last_title = ""
				from = l + 1
			}
		}
	}' "$@"
}

# tail_of FILE: the last lines of a run, joined by \x1f.
tail_of() {
	tail -n 6 "$1" | tr '\n' '\037' | sed 's/\x1f$//'
}

# self_test: the parser on made-up outputs of two runs of one script, against what it must find.
self_test() {
	local dir got want
	dir=$(mktemp -d "${TMPDIR:-/tmp}/perf-shell-tests.XXXXXX") || die "no scratch dir"
	printf '%s\n' "Basic --per-thread mode test" "Basic --per-thread mode test [Success]" \
		"Register capture test" "Register capture test [Skipped missing event]" \
		"-- [ PASS ] -- perf_report :: test_basic :: basic execution" \
		"## [ PASS ] ## perf_report :: test_basic SUMMARY" \
		"Test perf header file" "Test perf header file [Done]" >"$dir/a"
	printf '%s\n' "Basic --per-thread mode test" "Per-thread record [Failed record]" \
		"Register capture test" "Register capture test [Skipped missing event]" \
		"-- [ FAIL ] -- perf_report :: test_basic :: basic execution (command exitcode)" \
		"Test perf header file" "Failed to find expect hostname in output" \
		"Test perf header file [Done]" >"$dir/b"
	got=$(parse_runs "$dir/a" "$dir/b" | cut -f1-3 | sed "s|^$dir/||")
	want=$(printf 'a\t%s\t%s\n' "Basic --per-thread mode test" pass \
		"Register capture test" skip "test_basic :: basic execution" pass \
		"Test perf header file" pass
		printf 'b\t%s\t%s\n' "Basic --per-thread mode test" FAIL \
		"Register capture test" skip "test_basic :: basic execution" FAIL \
		"Test perf header file" FAIL)
	rm -rf "$dir"
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got")
		die "self-test: the parser found other subtests than these"
	fi
	echo "perf-shell-tests: self-test passed"
	exit 0
}

top=$(cd "$(dirname "$0")/.." && pwd)
pass=both
prec=$top/build/prec
timeout=600
out=
only=
dirs=()
while [ $# -gt 0 ]; do
	case $1 in
	--pass) pass=${2-}; shift 2 ;;
	--pass=*) pass=${1#*=}; shift ;;
	--prec) prec=${2-}; shift 2 ;;
	--prec=*) prec=${1#*=}; shift ;;
	--timeout) timeout=${2-}; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--out) out=${2-}; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--only) only=${2-}; shift 2 ;;
	--only=*) only=${1#*=}; shift ;;
	--self-test) self_test ;;
	-h|--help) usage 0 ;;
	-*) echo "perf-shell-tests: unknown option $1" >&2; usage 1 >&2 ;;
	*) dirs+=("$1"); shift ;;
	esac
done
case $pass in
record) passes="record" ;;
report) passes="report" ;;
both) passes="record report" ;;
*) die "--pass takes record, report or both, not '$pass'" ;;
esac
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout takes seconds, not '$timeout'"
[ -x "$prec" ] || die "no prec at $prec: build it, or give --prec PATH"
prec=$(cd "$(dirname "$prec")" && pwd)/$(basename "$prec")
real_perf=${PERF:-$(command -v perf)} || die "perf is not installed"
[ -x "$real_perf" ] || die "no perf at $real_perf"
command -v timeout >/dev/null || die "timeout (coreutils) is needed"

if [ ${#dirs[@]} = 0 ]; then
	for d in /usr/lib/perf-core/tests/shell /usr/libexec/perf-core/tests/shell \
		${PERF_SHELL_TESTS:+"$PERF_SHELL_TESTS"}; do
		[ -d "$d" ] && dirs+=("$d")
	done
	[ ${#dirs[@]} = 0 ] && die "no perf shell tests found: give their directory"
fi

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/perf-shell-tests.XXXXXX") || die "no scratch dir"
else
	mkdir -p "$out" || die "cannot make $out"
	out=$(cd "$out" && pwd)
fi
echo "perf-shell-tests: scratch directory $out"
echo "perf-shell-tests: perf $real_perf ($("$real_perf" version 2>/dev/null)), prec $prec"

# The words prec record prints at its end, when it has a switch to print perf's; scripts such
# as base_report's setup grep perf's "[ perf record: Woken up ..." and "Captured and wrote" lines.
summary_env=
# The binary names the variable it reads, whichever tree it was built from.
if grep -qa PREC_SUMMARY "$prec"; then
	summary_env="export PREC_SUMMARY=perf"
	echo "perf-shell-tests: prec record is run with PREC_SUMMARY=perf (perf's summary lines)"
else
	echo "perf-shell-tests: this prec has no PREC_SUMMARY switch; its summary lines stay prec's"
fi

# make_shim DIR COMMANDS: a `perf` that sends COMMANDS to prec and the rest to the real perf.
# perf's options before the command (perf --buildid-dir DIR record ...) are perf's, not the
# command's: prec takes --buildid-dir there too; the rest only change paging or debugging.
# What prec prints on stderr still reaches the test as it comes, and is also kept in
# DIR/prec.log between the command line and its exit status; the shim waits for both, so the
# test sees every line before its next command. A signal sent to this perf's pid does not reach
# prec: none of the scripts listed above signals perf record.
make_shim() {
	local dir=$1 cmds=$2
	mkdir -p "$dir"
	cat >"$dir/perf" <<EOF
#!/bin/bash
real='$real_perf'
prec='$prec'
log='$dir/prec.log'
args=("\$@")
global=()
i=0
while [ \$i -lt \${#args[@]} ]; do
	case \${args[i]} in
	--buildid-dir) global+=("\${args[@]:i:2}"); i=\$((i + 2)) ;;
	--buildid-dir=*) global+=("\${args[i]}"); i=\$((i + 1)) ;;
	--debug) i=\$((i + 2)) ;;
	--debug=*|--no-pager|-P|--paginate|-p) i=\$((i + 1)) ;;
	*) break ;;
	esac
done
case " $cmds " in
*" \${args[i]-none} "*)
	$summary_env
	printf '%s [%s] prec %s\n' "\$(date +%T)" "\$PWD" "\${args[*]:i}" >>"\$log"
	{ "\$prec" "\${global[@]}" "\${args[@]:i}" 2>&1 >&3 3>&- | tee -a "\$log" >&2 3>&-
		rc=\${PIPESTATUS[0]}; } 3>&1
	printf '%s exit %s\n' "\$(date +%T)" "\$rc" >>"\$log"
	exit "\$rc"
	;;
esac
exec "\$real" "\$@"
EOF
	chmod +x "$dir/perf"
}

# run_one SCRIPT RUNDIR SHIMDIR: run a test script in RUNDIR with SHIMDIR (may be empty) first
# on PATH; its output goes to RUNDIR.out and its exit status to RUNDIR.rc.
run_one() {
	local script=$1 rundir=$2 shim=$3 interp start rc
	interp=$(head -1 "$script")
	interp=${interp#\#!}
	[ -x "${interp%% *}" ] || interp=/bin/sh
	mkdir -p "$rundir"
	start=$(date +%s)
	(
		cd "$rundir" || exit 1
		[ -n "$shim" ] && PATH=$shim:$PATH
		export PATH
		# shellcheck disable=SC2086 # the #! line may carry an argument
		exec timeout -k 10 "$timeout" $interp "$script" </dev/null
	) >"$rundir.out" 2>&1
	rc=$?
	echo "$rc" >"$rundir.rc"
	echo "$(($(date +%s) - start))" >"$rundir.secs"
}

shim_record=$out/shim-record
shim_report=$out/shim-report
for p in $passes; do
	case $p in
	record) make_shim "$shim_record" "record" ;;
	report) make_shim "$shim_report" "record report" ;;
	esac
done

results=$out/results.tsv
: >"$results"
ntests=0
for dir in "${dirs[@]}"; do
	dir=$(cd "$dir" && pwd) || continue
	label=$(basename "$dir")
	[ "$label" = shell ] && label=$(basename "$(dirname "$(dirname "$dir")")")
	while IFS=$'\t' read -r name _; do
		[ -n "$name" ] || continue
		[ -f "$dir/$name" ] || continue
		if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
			continue
		fi
		ntests=$((ntests + 1))
		test=$label/$name
		base=$out/runs/$label/$name
		runs="perf"
		printf '%-50s perf' "$test"
		run_one "$dir/$name" "$base/perf" ""
		printf ' (rc %s, %ss)' "$(cat "$base/perf.rc")" "$(cat "$base/perf.secs")"
		for p in $passes; do
			shim=$shim_record
			[ "$p" = report ] && shim=$shim_report
			printf ', %s' "$p"
			run_one "$dir/$name" "$base/$p" "$shim"
			printf ' (rc %s, %ss)' "$(cat "$base/$p.rc")" "$(cat "$base/$p.secs")"
			runs="$runs $p"
		done
		echo

		files=()
		for r in $runs; do
			files+=("$base/$r.out")
		done
		parsed=$(parse_runs "${files[@]}")
		for r in $runs; do
			rc=$(cat "$base/$r.rc")
			f=$base/$r.out
			rows=$(grep -F "$f"$'\t' <<<"$parsed" | cut -f2-)
			[ -n "$rows" ] &&
				awk -v p="$test"$'\t'"$r" '{ print p "\t" $0 }' <<<"$rows" >>"$results"
			# A script without subtests is judged by its exit status; so is one that
			# stops early (set -e, a crash, the timeout) with no subtest saying it failed,
			# since it leaves its later subtests out.
			case $rc in
			0) st=pass ;;
			2) st=skip ;;
			124|137) st=TIMEOUT ;;
			*) st=FAIL:$rc ;;
			esac
			if [ -z "$rows" ] || { [[ $st != pass && $st != skip ]] &&
				! cut -f2 <<<"$rows" | grep -qx FAIL; }; then
				printf '%s\t%s\t(exit status)\t%s\t%s\n' "$test" "$r" "$st" \
					"$(tail_of "$f")" >>"$results"
			fi
		done
	done <<<"$TESTS"
done
[ "$ntests" = 0 ] && die "none of the record and report tests is in ${dirs[*]}"

# The table: one row per (test, subtest) seen in any run; "-" where a run did not reach it.
echo
awk -F'\t' -v passes="$passes" '
	{
		key = $1 "\t" $3
		if (!(key in seen)) {
			seen[key] = 1
			order[++n] = key
		}
		# A name printed twice in one run (a script that calls a check twice) keeps
		# the worse result.
		if (!((key, $2) in st) || st[key, $2] == "pass")
			st[key, $2] = $4
	}
	END {
		np = split("perf " passes, cols, " ")
		fmt = "%-44s %-44s"
		printf fmt, "test", "subtest"
		for (c = 1; c <= np; c++)
			printf " %-8s", cols[c]
		printf "\n"
		for (i = 1; i <= n; i++) {
			split(order[i], kv, "\t")
			name = kv[2]
			if (length(name) > 44)
				name = substr(name, 1, 41) "..."
			printf fmt, kv[1], name
			for (c = 1; c <= np; c++) {
				v = "-"
				if ((order[i], cols[c]) in st)
					v = st[order[i], cols[c]]
				printf " %-8s", v
			}
			printf "\n"
		}
	}' "$results" | tee "$out/table.txt"

# The summary of each pass: what passes with perf, how much of it passes with prec, and each
# regression with the last lines prec's run printed for it.
status=0
: >"$out/summary.txt"
for p in $passes; do
	awk -F'\t' -v pass="$p" -v out="$out" '
		{
			key = $1 "\t" $3
			if (!(key in seen)) {
				seen[key] = 1
				order[++n] = key
			}
			if (!((key, $2) in st) || st[key, $2] == "pass") {
				st[key, $2] = $4
				text[key, $2] = $5
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				# "in" first: reading a missing element would create it.
				if (!((k, "perf") in st) || st[k, "perf"] != "pass")
					continue
				np++
				if (((k, pass) in st) && st[k, pass] == "pass")
					nq++
				else
					reg[++nr] = k
			}
			printf "%s pass: perf: %d pass; prec: %d pass of those; regressions:%s\n",
				pass, np, nq, nr ? "" : " none"
			for (r = 1; r <= nr; r++) {
				k = reg[r]
				split(k, kv, "\t")
				s = "not run"
				t = ""
				if ((k, pass) in st) {
					s = st[k, pass]
					t = text[k, pass]
				}
				printf "  %s :: %s (%s)\n", kv[1], kv[2], s
				if (t == "") {
					f = out "/runs/" kv[1] "/" pass ".out"
					t = ""
					while ((getline line < f) > 0)
						buf[++nb] = line
					close(f)
					for (j = (nb > 6 ? nb - 5 : 1); j <= nb; j++)
						t = t (t == "" ? "" : "\x1f") buf[j]
					nb = 0
				}
				m = split(t, tl, "\x1f")
				for (j = 1; j <= m; j++)
					printf "      | %s\n", substr(tl[j], 1, 150)
			}
			exit nr ? 1 : 0
		}' "$results" >>"$out/summary.txt" || status=1
done
echo
cat "$out/summary.txt"
echo
echo "perf-shell-tests: outputs in $out/runs/<test>/{perf,record,report}.out;" \
	"routed commands and prec's stderr in $out/shim-*/prec.log"
exit "$status"
