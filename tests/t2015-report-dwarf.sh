#!/bin/bash
# t2015: prec report on perf's dwarf recordings (--call-graph dwarf: user registers and a copy of
# the user stack, no user callchain) of nofp, built -O2 without frame pointers: the rows, the
# call graphs of the top rows and the --children rows are perf report --stdio's, --folded is the
# stacks perf's stackcollapse.py prints, also read from a pipe, and so are the call graphs of
# prec's own dwarf recordings (where prec records them); a frame whose CFA is found from rbx,
# as ld.so's resolver's, is unwound past as perf does; damaged stack copies give a report, not
# a signal; a hundred short processes fold alike under a low descriptor limit; so do forty at
# once, whose samples in the vdso keep their callers as in perf; on a libc-heavy
# command, prec's stacks hold perf's (perf 6.1 unwinds with libunwind here, which gives up in
# some functions of libc where libdw goes on); without libdw, one line says why the stacks are
# not unwound.
# shellcheck disable=SC2016 # test scripts are single-quoted: test_expect evaluates them
. "$(dirname "$0")/lib.sh"
. "$PREC_SRC/tests/t2000-report-lib.sh"
REPORT_CACHE=1

require root perf python
NOFP=$PREC_BUILD/tests/workloads/nofp
RBXCFA=$PREC_BUILD/tests/workloads/rbxcfa
[ -x "$NOFP" ] && [ -x "$RBXCFA" ] || skip_all "the nofp and rbxcfa workloads are not built"

# perf 6.1 adds the inlined functions its debug information names to dwarf chains, and so does
# prec: both are compared as they are by default, and with --no-inline where the test says so.

# collapse FILE: perf's own stackcollapse.py over FILE, in perf.folded
collapse() {
	$PERF_CHECK cached "$1" perf script -i "$1" -s "$STACKCOLLAPSE" >perf.folded
}

# same_ways FILE: the binaries' cached rules and libdwfl alone, on one thread and on two, give
# the same --folded and --stdio; the cached rules unwound most samples, and libdwfl none
# without them (PREC_UNWIND_CFI=0)
same_ways() {
	local f=$1 n
	PREC_UNWIND_THREADS=1 "$PREC" report -v -q -i "$f" --folded >one.folded 2>one.err &&
		PREC_UNWIND_THREADS=2 "$PREC" report -q -i "$f" --folded >two.folded &&
		PREC_UNWIND_THREADS=2 PREC_UNWIND_CFI=0 "$PREC" report -v -q -i "$f" --folded \
			>dwfl.folded 2>dwfl.err &&
		PREC_UNWIND_THREADS=1 "$PREC" report -i "$f" --stdio --no-children >one.out &&
		PREC_UNWIND_THREADS=2 "$PREC" report -i "$f" --stdio --no-children >two.out ||
		return 1
	grep "user stacks" one.err dwfl.err
	n=$(sed -n "s/.*user stacks: \([0-9]*\) unwound with the binaries.*/\1/p" one.err)
	[ "${n:-0}" -gt 0 ] && grep -q "user stacks: 0 unwound with the binaries" dwfl.err &&
		[ -s one.folded ] && cmp one.folded two.folded && cmp one.folded dwfl.folded &&
		cmp one.out two.out
}

if have libdw-unwind; then
	test_expect "perf records nofp with --call-graph dwarf" '
		rec_perf nofp --call-graph dwarf -- "$NOFP" 0.4'
	test_expect "the table is perf's" 'same_table nofp.data'
	test_expect "the call graphs of the top rows are perf's" 'same_graph nofp.data 6'
	test_expect "so are caller-ordered ones" 'same_graph nofp.data 6 -g caller'
	test_expect "leaf's callers are inner, outer, run, main" '
		same_table nofp.data &&
		grep -A7 "\[\.\] leaf$" prec.out | tr -d " |-" | tr "\n" " " |
			grep -q "leaf inner outer run main "'
	test_expect "--max-stack limits the kernel's frames and the user frames apart, as perf" '
		same_graph nofp.data 6 --max-stack 3 && same_graph nofp.data 6 --max-stack 3 -g caller'
	# rows of equal Children come in another order (main, _start and the libc ones between)
	test_expect "--children rows and call graphs are perf's" '
		perf_clean cached nofp.data perf report -i nofp.data --stdio --children >perf.out &&
		prec_ok prec.out nofp.data --children &&
		"$PYTHON" "$CMP" table perf.out prec.out && "$PYTHON" "$CMP" graph perf.out prec.out 12'
	test_expect "--no-inline: --folded is what stackcollapse.py prints" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		$PERF_CHECK cached nofp.data perf script --no-inline -i nofp.data \
			-s "$STACKCOLLAPSE" >perf.folded && grep -q ";run;outer;inner;leaf " perf.folded &&
		grep -q ";run;sys;entry_SYSCALL_64[a-z_]*;do_syscall_64" perf.folded &&
		cached nofp.data "$PREC" report -q -i nofp.data --folded --no-inline >prec.folded &&
		"$PYTHON" "$CMP" collapsed perf.folded prec.folded'
	test_expect "cached rules or libdwfl, one thread or two: the same stacks" '
		same_ways nofp.data'
	test_expect "inlined functions: perf's spin (inlined) above outer, leaf and run" '
		same_graph nofp.data 6 && grep -A2 "\[\.\] outer$" prec.out | grep -q "spin (inlined)$" &&
		grep -q "__libc_start_main_impl (inlined)" prec.out'
	test_expect "--children rows of inlined functions are perf's" '
		perf_clean cached nofp.data perf report -i nofp.data --stdio --children \
			-g none >perf.out &&
		prec_ok prec.out nofp.data --children -g none &&
		grep -q "spin (inlined)" prec.out && "$PYTHON" "$CMP" table perf.out prec.out'
	test_expect "--sort dso graphs merge inlined functions by name, as perf's" '
		perf_clean cached nofp.data perf report -i nofp.data --stdio --no-children \
			--sort dso >perf.out &&
		prec_ok prec.out nofp.data --no-children --sort dso &&
		grep -q -- "--spin (inlined)$" prec.out && "$PYTHON" "$CMP" graph perf.out prec.out 3'
	test_expect "their folded stacks are stackcollapse.py's (the program's own)" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		collapse nofp.data && grep ";run;" perf.folded >perf.run &&
		cached nofp.data "$PREC" report -q -i nofp.data --folded | grep ";run;" >prec.run &&
		grep -q ";outer;spin " prec.run && "$PYTHON" "$CMP" collapsed perf.run prec.run'
	test_expect "--no-inline: the table and graphs are perf's --no-inline" '
		same_graph nofp.data 6 --no-inline && ! grep -q "(inlined)" prec.out &&
		same_graph nofp.data 6 -g caller --no-inline'
	# -vv: how many samples took their thread's previous chain, and how many chain addresses
	# were resolved: the functions inlined at an address are looked up once, not per sample,
	# so nearly as many (a leaf that moves into or out of an inlined function is another chain)
	test_expect "inlined functions cost no resolving per sample: -vv counts near --no-inline" '
		for o in --inline --no-inline; do
			"$PREC" report -i nofp.data --stdio --no-children -vv $o 2>&1 >/dev/null |
				sed -n "s/.* \([0-9]*\) with their.* \([0-9]*\) addresses resolved.*/\1 \2/p"
		done | tr "\n" " " >stats && cat stats &&
		awk "{ exit !(NF == 4 && \$3 > 0 && \$1 >= 0.95 * \$3 && \$2 <= 1.05 * \$4 + 10) }" stats'
	test_expect "--json agrees with the table" 'json_agrees nofp.data'
	test_expect "the flame graph adds up" 'svg_ok nofp.data'
	test_expect "read from a pipe, the call graphs are perf's" '
		command perf record -q -m 16M -e cpu-clock -F 2000 --call-graph dwarf -o - "$NOFP" 0.2 \
			2>/dev/null >pipe.data &&
		perf_clean perf report -i - --stdio --no-children <pipe.data >perf.out &&
		"$PREC" report -i - --stdio --no-children <pipe.data >prec.out &&
		"$PYTHON" "$CMP" graph perf.out prec.out 6'

	# a CFA found from rbx over a callee whose CFI never names rbx, as ld.so's lazy-binding
	# resolver over _dl_fixup: libdw's defaults for x86-64 leave rbx undefined there (they
	# name rax), libunwind keeps it; prec keeps it on both of its ways, so the callers are
	# perf's. Without that, every stack stops at realigned.
	test_expect "perf records rbxcfa with --call-graph dwarf" '
		rec_perf rbx --call-graph dwarf -- "$RBXCFA" 0.3'
	test_expect "a CFA found from rbx: the callers past it are stackcollapse.py's" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		$PERF_CHECK cached rbx.data perf script --no-inline -i rbx.data \
			-s "$STACKCOLLAPSE" >perf.folded &&
		grep -q ";main;run;realigned;spin_norbx " perf.folded &&
		"$PREC" report -q -i rbx.data --folded --no-inline >prec.folded &&
		grep -q ";main;run;realigned;spin_norbx " prec.folded &&
		"$PYTHON" "$CMP" collapsed perf.folded prec.folded'
	test_expect "a CFA found from rbx: the same stacks every way" 'same_ways rbx.data'
	test_expect "a CFA found from rbx: prec's own recording unwinds past it" '
		"$PREC" record -q -e cpu-clock --call-graph dwarf -o prbx.data -- "$RBXCFA" 0.2 &&
		"$PREC" report -q -i prbx.data --folded --no-inline >prec.folded &&
		! grep -q "^rbxcfa;realigned;" prec.folded &&
		grep -q "^rbxcfa;_start;.*;main;run;realigned;spin_norbx " prec.folded'

	# return addresses written on purpose into pairs of successive samples of nofp: in the
	# first, into the map of its highest addresses, whose file offset belongs to an earlier
	# segment (another bias: the process starts again on a new Dwfl); in the second, into
	# the last word of that map, past the segments. The binary met again at the same bias,
	# whose module the new Dwfl took its architecture from, must not free that module:
	# freed memory is overwritten (MALLOC_PERTURB_), so that a use of it crashes every time
	test_expect "damaged stack copies: a report, and no signal" '
		"$PYTHON" - nofp.data stack.data <<-PYEOF &&
		import struct, sys
		d = bytearray(open(sys.argv[1], "rb").read())
		_, _, _, ao, asz, do, dsz = struct.unpack_from("<7Q", d)
		sample_type, = struct.unpack_from("<Q", d, ao + 24)
		regs_user, = struct.unpack_from("<Q", d, ao + 80)
		maps, samples = {}, {}
		off = do
		while off < do + dsz:
		    t, m, s = struct.unpack_from("<IHH", d, off)
		    if s < 8:
		        break
		    if t == 10:
		        # MMAP2: pid tid start len pgoff maj min ino ino_gen prot flags filename
		        pid, tid, start, ln = struct.unpack_from("<IIQQ", d, off + 8)
		        if d[off + 72:off + s].split(b"\\0")[0].endswith(b"/nofp"):
		            maps.setdefault(pid, []).append((start, start + ln, d[off + 64] & 4))
		    elif t == 9:
		        # IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD: 8 bytes each
		        p = off + 8
		        for b in (0x10000, 1, 2, 4, 8, 0x40, 0x200, 0x80, 0x100):
		            if sample_type & b:
		                pid = struct.unpack_from("<I", d, p)[0] if b == 2 else pid
		                p += 8
		        if sample_type & 0x20:
		            p += 8 + 8 * struct.unpack_from("<Q", d, p)[0]
		        # the user ip: perf register 8, after those of the lower bits of the mask
		        below = bin(regs_user & 0xff).count("1")
		        ip, = struct.unpack_from("<Q", d, p + 8 + 8 * below)
		        p += 8 + 8 * bin(regs_user).count("1")
		        n, = struct.unpack_from("<Q", d, p)
		        samples.setdefault(pid, []).append((ip, p + 8, n))
		    off += s
		pairs = 0
		for pid, ss in samples.items():
		    mm = maps.get(pid, [])
		    text = [(a, b) for a, b, x in mm if x]
		    last = max(mm, default=None)
		    def code(v):
		        return any(a <= v < b for a, b in text)
		    k = 0
		    while last and k + 1 < len(ss):
		        if not (code(ss[k][0]) and code(ss[k + 1][0])):
		            k += 1
		            continue
		        for (ip, p, n), past in ((ss[k], False), (ss[k + 1], True)):
		            for q in range(p, p + n - 7, 8):
		                v, = struct.unpack_from("<Q", d, q)
		                if code(v):
		                    v = last[1] - 8 if past else last[0] + (v & 0xff8)
		                    struct.pack_into("<Q", d, q, v)
		        pairs += 1
		        k += 2
		open(sys.argv[2], "wb").write(d)
		print("# %d pairs of samples damaged" % pairs)
		sys.exit(0 if pairs else 1)
		PYEOF
		MALLOC_PERTURB_=165 "$PREC" report -i stack.data --stdio --no-children >/dev/null \
			2>stack.err
		rc=$?
		[ $rc -lt 128 ] || { echo "# stack.data: exit $rc"; exit 1; }'
	# a hundred short processes: each one's state goes at its exit, and what stays open at once
	# is bounded, so that a low limit of descriptors changes nothing
	test_expect "perf records a hundred short processes with --call-graph dwarf" '
		rec_perf many --call-graph dwarf -- sh -c \
			"for i in \$(seq 100); do \"$NOFP\" 0.005; done"'
	test_expect "with 64 descriptors, --folded is the same, and nothing is said" '
		"$PREC" report -q -i many.data --folded >full.folded &&
		(ulimit -n 64 && "$PREC" report -q -i many.data --folded >low.folded 2>low.err) &&
		cat low.err && [ ! -s low.err ] && grep -c ";run;outer;inner;leaf;spin " low.folded &&
		cmp full.folded low.folded'
	test_expect "a hundred processes: the same stacks every way" 'same_ways many.data'

	# forty processes at once, more than the unwinder keeps state for: a sample often finds its
	# process's state new, and one in the vdso is unwound through the vdso's copy in the
	# build-id cache all the same, as perf does; the debug files of libc and the others hold
	# no .debug_frame, so no descriptor stays open on them and a low limit changes nothing

	# vdso_callers FILE all|none: the samples of a --folded FILE in the vdso, or those of them
	# with no caller
	vdso_callers() {
		awk -v want="$2" '/;__vdso_clock_gettime( |;)/ {
			all += $NF; if ($0 ~ /^[^;]*;__vdso_clock_gettime/) none += $NF }
			END { print (want == "all" ? all : none) + 0 }' "$1"
	}
	test_expect "perf records forty processes at once with --call-graph dwarf" '
		rec_perf lru -F 1000 -m 16M --call-graph dwarf -- sh -c \
			"for i in \$(seq 40); do \"$NOFP\" 0.15 & done; wait"'
	test_expect "forty at once: samples in the vdso have their callers, as in perf" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		collapse lru.data && "$PREC" report -q -i lru.data --folded >lru.folded &&
		echo "# perf: $(vdso_callers perf.folded all) in the vdso," \
			"$(vdso_callers perf.folded none) without a caller;" \
			"prec: $(vdso_callers lru.folded all), $(vdso_callers lru.folded none)" &&
		[ "$(vdso_callers perf.folded all)" -gt 0 ] &&
		[ "$(vdso_callers lru.folded all)" = "$(vdso_callers perf.folded all)" ] &&
		[ "$(vdso_callers lru.folded none)" -le "$(vdso_callers perf.folded none)" ]'
	test_expect "the vdso is read from the build-id cache, as perf reads it" '
		"$PREC" report -v -i lru.data --stdio --no-children 2>&1 >/dev/null |
			grep "^prec: \[vdso\]: " | tee vdso.err | grep -q " from /.*/vdso"'
	test_expect "forty at once: the same stacks every way" 'same_ways lru.data'
	# libdwfl alone (PREC_UNWIND_CFI=0) has each of the 32 processes it keeps hold its modules
	test_expect "forty at once with 16 descriptors: --folded is the same, nothing is said" '
		for cfi in 1 0; do
			PREC_UNWIND_CFI=$cfi "$PREC" report -q -i lru.data --folded >full.folded &&
				(ulimit -n 16 && PREC_UNWIND_CFI=$cfi "$PREC" report -q -i lru.data \
					--folded >low.folded 2>low.err) &&
				cat low.err && [ ! -s low.err ] &&
				{ diff full.folded low.folded | head -5; cmp full.folded low.folded; } ||
				exit 1
		done'

	# a libc-heavy command: each of perf's stacks is the leaf end of prec's for the same
	# samples (perf may stop early), so the samples whose stacks end with each of perf's stacks
	# add up alike, but for a few (see below)
	test_expect "perf records sort and gzip with --call-graph dwarf" '
		head -c 6000000 /dev/urandom >rnd &&
		rec_perf libc --call-graph dwarf -- sh -c "sort rnd >/dev/null; gzip -1 -c rnd >/dev/null"'
	test_expect "prec's stacks of sort and gzip hold perf's" '
		[ -r "$STACKCOLLAPSE" ] || { echo "# no $STACKCOLLAPSE"; exit 0; }
		$PERF_CHECK cached libc.data perf script --no-inline -i libc.data \
			-s "$STACKCOLLAPSE" >perf.folded &&
		"$PREC" report -q -i libc.data --folded --no-inline >prec.folded &&
		"$PYTHON" - perf.folded prec.folded <<-PYEOF
		import collections, sys
		def read(path):
		    c = collections.Counter()
		    for line in open(path, errors="replace"):
		        stack, _, n = line.rstrip("\n").rpartition(" ")
		        if stack:
		            # an address without a symbol: [unknown] in perf, [binary] in prec
		            f = ["[unknown]" if x.startswith("[") else x for x in stack.split(";")]
		            c[(f[0], tuple(f[1:]))] += int(n)
		    return c
		perf, prec = read(sys.argv[1]), read(sys.argv[2])
		def under(c, comm, tail):
		    k = len(tail)
		    return sum(n for (cm, f), n in c.items()
		               if cm == comm and len(f) >= k and f[len(f) - k:] == tail)
		bad = [(cm, f) for (cm, f) in perf if under(perf, cm, f) != under(prec, cm, f)]
		for cm, f in bad[:10]:
		    print("# %s;%s: perf %d, prec %d" % (cm, ";".join(f), under(perf, cm, f),
		                                         under(prec, cm, f)))
		# libunwind, which perf uses here, takes a signal trampoline for a call site and
		# may skip frames of the dynamic loader: a few samples (the start of each process)
		# may differ, not more than one in twenty
		off, total = sum(perf[k] for k in bad), sum(perf.values())
		print("# %d of %d samples differ" % (off, total))
		sys.exit(1 if not total or off * 20 > total else 0)
		PYEOF'
	test_expect "sort and gzip: the same stacks every way" 'same_ways libc.data'

	# lld starts segments mid-page: the map of the code begins with the end of the segment
	# before, at another distance from its addresses
	if cc -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -fuse-ld=lld \
		-o nofp-lld "$PREC_SRC/tests/workloads/nofp.c" >/dev/null 2>&1; then
		test_expect "perf records nofp linked by lld" '
			rec_perf lld --call-graph dwarf -- ./nofp-lld 0.3'
		test_expect "its call graphs are perf's" '
			same_graph lld.data 6 && grep -A6 "\[\.\] leaf$" prec.out | grep -q outer'
	else
		test_skip "a binary linked by lld" "cc -fuse-ld=lld does not link here"
	fi
	# prec's own dwarf recordings, once prec record makes them
	if rec_prec precd --call-graph dwarf -- "$NOFP" 0.3 >/dev/null 2>&1; then
		test_expect "prec's dwarf recording: the call graphs are perf's" '
			same_graph precd.data 6 && same_graph precd.data 6 -g caller'
		test_expect "prec's dwarf recording: the same stacks every way" '
			same_ways precd.data'
	else
		test_skip "prec's dwarf recording" "prec record does not record dwarf call graphs"
	fi
	test_skip "without libdw, one line says the stacks need it" \
		"prec is built with libdw 0.188 or later (tools/check.sh runs this in a tree without it)"
else
	test_expect "perf records nofp with --call-graph dwarf" '
		rec_perf nofp --call-graph dwarf -- "$NOFP" 0.2'
	test_expect "without libdw, one line says the stacks need it, and the table is perf's" '
		"$PREC" report -i nofp.data --stdio --no-children >prec.out 2>prec.err &&
		cat prec.err && [ "$(wc -l <prec.err)" = 1 ] &&
		grep -q "^prec: warning: .*need prec built with libdw" prec.err &&
		$PERF_CHECK perf report -i nofp.data --stdio --no-children >perf.out &&
		"$PYTHON" "$CMP" table perf.out prec.out'
	if ! have libdw; then
		test_expect "without libdw, --sort srcline is refused in one line" '
			"$PREC" report -i nofp.data --stdio --no-children -s srcline >out 2>err
			[ $? = 1 ] && cat err && [ "$(wc -l <err)" = 1 ] &&
			grep -q "^prec: the sort key srcline needs prec built with libdw" err &&
			! [ -s out ]'
	fi
fi

done_testing
