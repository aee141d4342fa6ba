# shellcheck shell=bash
# t2000-report-lib.sh: what the report tests (t2001-t2099) share; not a test itself. Source it
# after lib.sh. It writes the comparison program cmp.py into the test's directory and gives:
#
#   workload_multi               writes ./multi.sh, which runs several short programs (hot3, ls,
#                                gzip, sha256sum): several commands and binaries, libc, the kernel
#   rec_perf NAME ARGS -- CMD    perf record -q -e cpu-clock -F 4000 ARGS -o NAME.data -- CMD
#   rec_prec NAME ARGS -- CMD    the same with prec record
#   same_table FILE ARGS...      prec report --no-children's rows are perf report --stdio
#                                --no-children's (ARGS may end with --children): the
#                                top 20 in the same order (ties as sets), each share within 0.05
#   same_graph FILE TOP ARGS...  the call graphs of the TOP first rows hold the same branches with
#                                the same shares
#   same_folded FILE             --folded gives the stacks of perf script, sample for sample, and
#                                its counts add up to the samples perf report --stats counts
#                                (prec:overhead's aside: prec report leaves them out, as cmp.py
#                                leaves out perf's table of them)
#   json_agrees FILE ARGS...     --json parses and says what the text table says
#   table FILE ARGS...           perf report --stdio's and prec report's table of the first
#                                event, in perf.tab and prec.tab
#   same FILE ARGS...            those tables are the same, character for character
#   usage_error ARGS...          prec report ARGS exits 2 with one line on stderr (in err),
#                                starting "prec"
#   cxx_spin OUT FLAGS...        g++ FLAGS builds OUT, a C++ program whose time goes to
#                                ns::W::spin (_ZN2ns1W4spinEl in the binary)
#   svg_ok FILE                  --flamegraph writes well-formed SVG whose frames add up
#   cached FILE CMD...           CMD, a report of FILE: its output, stderr and exit status,
#                                from the first run of the same CMD when REPORT_CACHE is set
#
# Each prints what differs and fails; perf runs through perf_clean (exit 0, nothing on stderr).
W=$PREC_BUILD/tests/workloads/hot3
CMP=$T/cmp.py
# How perf must run: perf_clean (nothing on stderr), or "perf_clean_wide FILE" for a
# system-wide FILE (lib.sh).
PERF_CHECK=perf_clean

cat >"$CMP" <<'PYEOF'
#!/usr/bin/env python3
# Compare the tables of `perf report --stdio --no-children` and `prec report`, and the other
# outputs of prec report, for the report tests. Usage:
#   cmp.py table PERF_OUT PREC_OUT [TOP] [TOLERANCE]
#   cmp.py graph PERF_OUT PREC_OUT [TOP]          the call graphs of the top rows
#   cmp.py script-folded < perf script -F comm,ip,sym,dso > stacks
#   cmp.py folded PERF_FOLDED PREC_FOLDED          equal as multisets
#   cmp.py collapsed COLLAPSED PREC_FOLDED         the same, against stackcollapse.py's stacks
#   cmp.py json JSON TEXT                          JSON and the text table agree
#   cmp.py svg SVG FOLDED                          a well-formed SVG whose frames add up
# Exit status 0 when they agree; otherwise the differences on stdout.
import collections
import json
import re
import sys
import xml.etree.ElementTree as ET

ROW = re.compile(r'^  ([ \d]{3}\d\.\d\d)%(.*)$')


def parse_tables(path):
    """Per event: its name, sample line, the column widths and the rows with their graphs."""
    events = []
    cur = None
    widths = None
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r"^# Samples: (\S+ ?) of event '(.*)'$", line)
        if m:
            cur = {'event': m.group(2), 'samples': m.group(1).strip(), 'rows': []}
            events.append(cur)
            widths = None
            continue
        if cur is None:
            continue
        if line.startswith('# ........'):
            widths = [len(w) for w in line[2:].split('  ')]
            continue
        m = ROW.match(line)
        if m and widths:
            pct = float(m.group(1))
            rest = line[2 + widths[0]:]
            fields = []
            pos = 0
            for i, w in enumerate(widths[1:]):
                pos += 2
                if i == len(widths) - 2:
                    fields.append(rest[pos:].strip())
                else:
                    fields.append(rest[pos:pos + w].strip())
                    pos += w
            # rows that look the same (two binaries of one name): the n-th of them, in order
            key = tuple(fields)
            seen = cur.setdefault('seen', collections.Counter())
            seen[key] += 1
            if seen[key] > 1:
                key = key + ('#%d' % seen[key],)
            cur['rows'].append({'pct': pct, 'key': key, 'graph': []})
            continue
        if cur['rows'] and line.strip() and not line.startswith('#'):
            cur['rows'][-1]['graph'].append(line)
    return events


# perf shows the samples of prec's own event as a table of their own; prec report leaves them
# out of the profile (costs, not places in a program: t2021 checks that it does)
OWN_EVENTS = ('prec:overhead',)
OWN_FRAME = re.compile(r'^\[prec:[a-z]+\]$')


def perf_tables(path):
    """perf's tables, but those of prec's own events."""
    return [e for e in parse_tables(path) if e['event'] not in OWN_EVENTS]


def merge_split(a, b):
    """perf 6.1 sometimes splits one function into a row per process under --sort sym (its
    comparison of entries with and without a symbol depends on their order: seen 1 time in 25
    recordings of multi.sh, hot_a as 14.40% and 13.70% where --sort dso,sym and -v show one
    28.10% row). Where perf shows rows KEY, KEY#2 ... and prec only KEY, compare their sum."""
    kb = set(r['key'] for r in b)
    out, first = [], {}
    for r in a:
        base = r['key'][:-1] if r['key'] and r['key'][-1].startswith('#') else r['key']
        if base != r['key'] and base in first and r['key'] not in kb:
            first[base]['pct'] += r['pct']
            continue
        r = dict(r)
        if base == r['key']:
            first[base] = r
        out.append(r)
    if len(out) < len(a):
        out.sort(key=lambda r: -r['pct'])
    return out


def compare_rows(a, b, top, tol, where):
    """a: perf's rows, b: prec's. The top rows in the same order (ties as sets), pct within tol."""
    errs = []
    a = merge_split(a, b)
    if not a:
        return ['%s: perf shows no rows, prec %d' % (where, len(b))] if b else []
    top = min(top, len(a))
    cut = a[top - 1]['pct']
    sa = [r for r in a if r['pct'] >= cut]
    sb = [r for r in b if r['pct'] >= cut - tol]
    pa = {r['key']: r['pct'] for r in a}
    pb = {r['key']: r['pct'] for r in b}
    for r in sa:
        if r['key'] not in pb:
            errs.append('%s: %s (%.2f%%) is missing' % (where, '|'.join(r['key']), r['pct']))
        elif abs(pb[r['key']] - r['pct']) > tol + 1e-9:
            errs.append('%s: %s: %.2f%% against %.2f%%' % (where, '|'.join(r['key']),
                                                          pb[r['key']], r['pct']))
    keys_a = set(r['key'] for r in sa)
    for r in sb:
        if r['key'] not in keys_a and r['pct'] > cut + tol:
            errs.append('%s: %s (%.2f%%) is not in perf\'s top rows' % (where, '|'.join(r['key']),
                                                                        r['pct']))
    # order: a row perf puts strictly above another comes first in prec's table too
    posb = {r['key']: i for i, r in enumerate(b)}
    for i in range(len(sa)):
        for j in range(i + 1, len(sa)):
            x, y = sa[i], sa[j]
            if x['pct'] > y['pct'] and x['key'] in posb and y['key'] in posb:
                if posb[x['key']] > posb[y['key']] and abs(pb[x['key']] - pb[y['key']]) > 0:
                    errs.append('%s: %s comes after %s' % (where, '|'.join(x['key']),
                                                          '|'.join(y['key'])))
    return errs


def cmd_table(perf, prec, top=20, tol=0.05):
    ea, eb = perf_tables(perf), parse_tables(prec)
    errs = []
    if [e['event'] for e in ea] != [e['event'] for e in eb]:
        errs.append('events: perf %s, prec %s' % ([e['event'] for e in ea],
                                                 [e['event'] for e in eb]))
    for a, b in zip(ea, eb):
        if a['samples'] != b['samples']:
            errs.append('%s: %s samples against %s' % (a['event'], b['samples'], a['samples']))
        if not a['rows'] and b['rows']:
            errs.append('%s: no rows in perf\'s table' % a['event'])
        errs += compare_rows(a['rows'], b['rows'], int(top), float(tol), a['event'])
    return errs


def graph_items(lines):
    """The (percentage, name) and plain name lines of a call graph, as a multiset."""
    items = collections.Counter()
    for l in lines:
        m = re.search(r'--(\d+\.\d+)%--(.*)$', l)
        if m:
            # perf 6.1 prints its fractal remainder as "[...] (inlined)" (an unset flag)
            items[(m.group(1), m.group(2).replace('[...] (inlined)', '[...]'))] += 1
            continue
        name = re.sub(r'^[\s|]*(---)?', '', l)
        if name:
            items[('', name)] += 1
    return items


def cmd_graph(perf, prec, top=5):
    ea, eb = perf_tables(perf), parse_tables(prec)
    errs = []
    for a, b in zip(ea, eb):
        gb = {r['key']: r['graph'] for r in b['rows']}
        for r in a['rows'][:int(top)]:
            if r['key'] not in gb:
                errs.append('%s: no row in prec' % '|'.join(r['key']))
                continue
            if graph_items(r['graph']) != graph_items(gb[r['key']]):
                errs.append('%s: call graphs differ:\nperf:\n%s\nprec:\n%s' % (
                    '|'.join(r['key']), '\n'.join(r['graph']), '\n'.join(gb[r['key']])))
    return errs


FRAME = re.compile(r'^\s*([0-9a-f]+) (.*)$')


def split_sym_dso(rest):
    """'sym (dso)' where dso itself may hold parentheses: match the last group backwards."""
    if not rest.endswith(')'):
        return rest, '[unknown]'
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        if rest[i] == ')':
            depth += 1
        elif rest[i] == '(':
            depth -= 1
            if depth == 0:
                return rest[:i].rstrip(), rest[i + 1:-1]
    return rest, '[unknown]'


def cmd_script_folded():
    """Fold `perf script -F comm,ip,sym,dso` as stackcollapse-perf.pl does."""
    stacks = collections.Counter()
    comm, frames = None, []

    def flush():
        if comm is not None and not any(OWN_FRAME.match(f) for f in frames):
            stacks[';'.join([comm] + frames[::-1])] += 1
    for line in sys.stdin:
        line = line.rstrip('\n')
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if not line[0].isspace():
            flush()
            comm, frames = line.rstrip().replace(' ', '_').replace(';', ':'), []
            continue
        if line[0] == ' ':
            # a sample without a chain: "  comm  ip sym (dso)" on one line
            flush()
            m = re.match(r'^\s*(.+?)\s+([0-9a-f]+) (.*)$', line)
            if not m:
                comm, frames = None, []
                continue
            comm, frames = m.group(1).replace(' ', '_').replace(';', ':'), []
            line = '\t%s %s' % (m.group(2), m.group(3))
        m = FRAME.match(line)
        if not m:
            continue
        sym, dso = split_sym_dso(m.group(2))
        if sym == '[unknown]':
            sym = '[%s]' % ('unknown' if dso == '[unknown]' else dso.rsplit('/', 1)[-1])
        frames.append(sym.replace(';', ':'))
    flush()
    for k in sorted(stacks):
        print(k, stacks[k])
    return []


def read_folded(path):
    c = collections.Counter()
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        if not line:
            continue
        stack, _, n = line.rpartition(' ')
        c[stack] += int(n)
    return c


def unnamed_alike(c):
    # a frame without a symbol: stackcollapse.py names it [unknown], prec (as flamegraph's
    # stackcollapse-perf.pl) by its binary, [libc.so.6]
    out = collections.Counter()
    for k, n in c.items():
        out[';'.join('[unknown]' if f.startswith('[') and f.endswith(']') else f
                     for f in k.split(';'))] += n
    return out


def cmd_folded(a, b, alike=lambda c: c):
    ca, cb = alike(read_folded(a)), alike(read_folded(b))
    errs = []
    for k in sorted(set(ca) | set(cb)):
        if ca[k] != cb[k]:
            errs.append('%s: perf script %d, prec %d' % (k, ca[k], cb[k]))
    return errs[:40]


def cmd_collapsed(a, b):
    return cmd_folded(a, b, unnamed_alike)


def cmd_json(js, text):
    doc = json.load(open(js))
    tables = parse_tables(text)
    errs = []
    evs = doc['events']
    if len(evs) != len(tables):
        return ['%d events in JSON, %d in the text' % (len(evs), len(tables))]
    for e, t in zip(evs, tables):
        if e['event'] != t['event']:
            errs.append('event %s against %s' % (e['event'], t['event']))
        if len(e['rows']) != len(t['rows']):
            errs.append('%s: %d rows in JSON, %d in the text' % (e['event'], len(e['rows']),
                                                                len(t['rows'])))
        total = 0
        for jr, tr in zip(e['rows'], t['rows']):
            total += jr['samples']
            if '%.2f' % jr['overhead'] != '%.2f' % tr['pct']:
                errs.append('%s: %.2f%% in JSON, %.2f%% in the text' % (tr['key'], jr['overhead'],
                                                                       tr['pct']))
            vals = []
            for k in doc['sort']:
                if k == 'sym':
                    vals.append('[%s] %s' % (jr['level'], jr['sym']))
                elif k == 'pid':
                    vals.append('%d:%s' % (jr['pid'], jr['pid_comm']))
                elif k == 'cpu':
                    c = jr['cpu']
                    vals.append(('-%03d' % -c) if c < 0 else '%03d' % c)
                else:
                    vals.append(str(jr[k]))
            if len(vals) == len([v for v in tr['key'] if not v.startswith('#')]) + 1 and \
                    'comm' in doc['sort']:
                del vals[doc['sort'].index('comm')]  # --comm with one name hides it
            tkey = tuple(v for v in tr['key'] if not v.startswith('#'))
            if tuple(v.replace(' ', '') for v in vals) != tuple(v.replace(' ', '')
                                                                for v in tkey):
                errs.append('row %s in JSON, %s in the text' % (vals, list(tr['key'])))
        if doc.get('percent_limit', 0) == 0 and total != e['samples'] - e.get('filtered', 0):
            errs.append('%s: rows hold %d samples of %d' % (e['event'], total, e['samples']))
    return errs


def cmd_svg(svg, folded):
    errs = []
    root = ET.parse(svg).getroot()
    ns = '{http://www.w3.org/2000/svg}'
    total = sum(read_folded(folded).values())
    rects = [r for r in root.iter(ns + 'rect') if r.get('data-samples') is not None]
    if int(root.get('data-samples')) != total:
        errs.append('the SVG says %s samples, the folded stacks %d' % (root.get('data-samples'),
                                                                      total))
    titles = [g.find(ns + 'title').text for g in root.iter(ns + 'g')
              if g.find(ns + 'title') is not None]
    if len(titles) != len(rects) or not rects:
        errs.append('%d frames, %d hover titles' % (len(rects), len(titles)))
    width = float(root.get('width')) - 20
    self_sum = 0
    for r, t in zip(rects, titles):
        n = int(r.get('data-samples'))
        self_sum += int(r.get('data-self'))
        if abs(float(r.get('width')) - n * width / total) > 0.01:
            errs.append('%s: width %s for %d samples' % (t, r.get('width'), n))
        if not re.search(r'\(%d samples?, ' % n, t):
            errs.append('title %r does not give %d samples' % (t, n))
    # every sample is the leaf of exactly one stack: the frames' own samples add up to all
    if self_sum != total:
        errs.append('leaf (self) samples add up to %d, not %d' % (self_sum, total))
    if rects[0].get('data-samples') != str(total):
        errs.append('the root frame is %s samples wide' % rects[0].get('data-samples'))
    return errs[:40]


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    fn = {'table': cmd_table, 'graph': cmd_graph, 'script-folded': cmd_script_folded,
          'folded': cmd_folded, 'collapsed': cmd_collapsed, 'json': cmd_json,
          'svg': cmd_svg}[cmd]
    errs = fn(*args)
    for e in errs:
        print(e)
    sys.exit(1 if errs else 0)


if __name__ == '__main__':
    main()
PYEOF

# cached FILE CMD...: run CMD, a report (perf report, perf script, prec report) of FILE, or, when
# REPORT_CACHE is set and the same CMD ran on the same FILE before, give the stdout, stderr and
# exit status that run gave. The tests ask perf and prec the same question of a file in several
# assertions (the table that one compares is the one another greps); a report is a function of
# its arguments, the file and perf's config, which are the key, and of what else it reads
# (binaries, a symfs, a kallsyms copy, the build-id cache): a file that sets REPORT_CACHE leaves
# those as they are while it runs.
cached() {
	local file=$1 key rc
	shift
	if [ -z "${REPORT_CACHE:-}" ]; then
		"$@"
		return
	fi
	key=$(printf '%s\n' "$@" "${PERF_CONFIG-}" "$HOME" "$PWD" \
		"$(stat -L -c '%i %s %y' "$file" "$HOME/.perfconfig" 2>/dev/null)" | md5sum)
	key=$T/.cached/${key%% *}
	if [ ! -e "$key.rc" ]; then
		mkdir -p "$T/.cached"
		"$@" >"$key.out" 2>"$key.err"
		echo $? >"$key.rc"
	fi
	cat "$key.out"
	cat "$key.err" >&2
	rc=$(<"$key.rc")
	return "$rc"
}

# shellcheck disable=SC2016 # the script's own $i, written as it is
workload_multi() {
	{
		echo '#!/bin/sh'
		echo 'i=0'
		echo 'while [ $i -lt 2 ]; do'
		echo "	$W -c 0.1"
		echo '	ls -lR /usr/lib/x86_64-linux-gnu >/dev/null 2>&1'
		echo '	head -c 1000000 /dev/urandom | gzip -c >/dev/null'
		echo "	sha256sum $W >/dev/null"
		echo '	i=$((i + 1))'
		echo 'done'
	} >multi.sh
	chmod +x multi.sh
}

# perf's own script that folds stacks (perf script -s), to compare --folded with
STACKCOLLAPSE=/usr/lib/perf-core/scripts/python/stackcollapse.py

# rec_perf NAME [ARGS...] -- CMD...: a recording that lost nothing. The ring buffers overflow on
# a busy machine (dwarf stack copies fill them fast), and every later perf report or script of
# such a file warns about it: a recording that lost records is made again, up to three times.
rec_perf() {
	recorded "$1" perf "${@:2}"
}

# rec_prec NAME [ARGS...] -- CMD...: the same, recorded by prec
rec_prec() {
	recorded "$1" "$PREC" "${@:2}"
}

recorded() {
	local name=$1 tool=$2 try
	shift 2
	for try in 1 2 3; do
		"$tool" record -q -e cpu-clock -F 4000 -o "$name.data" "$@" >/dev/null \
			2>"$name.rec.err" || { cat "$name.rec.err"; return 1; }
		perf report --stats -i "$name.data" 2>/dev/null |
			grep -Eq "LOST(_SAMPLES)? events: +[1-9]" || return 0
	done
	echo "# ${tool##*/} lost records in $try recordings of $name"
	return 1
}

# table FILE ARGS...: the rows perf and prec print for the first event (the one recorded: the
# children rows of prec's own event are another matter), perf's tip and the lines that are only
# "#" aside, in perf.tab and prec.tab.
table() {
	perf_clean cached "$1" perf report --stdio -i "$@" >perf.out || return 1
	prec_ok prec.out "$@" || return 1
	awk '/^# Samples/ {n++} n == 1' perf.out | grep -v -e '^# (Tip' -e '^#$' >perf.tab
	awk '/^# Samples/ {n++} n == 1' prec.out | grep -v -e '^#$' >prec.tab
	[ -s prec.tab ] || fail "no table"
}

# same FILE ARGS...: the table is perf's, character for character, but for the order of
# entries with equal shares (perf orders ties as they were inserted): the same lines (the graph's
# drawing aside, which follows the order), and every line out of place holds a share that another
# line of perf's table holds too.
same() {
	local pcts
	table "$@" || return 1
	diff perf.tab prec.tab >/dev/null && return 0
	if [ "$(tr -d ' |-' <perf.tab | sort)" = "$(tr -d ' |-' <prec.tab | sort)" ]; then
		pcts=$(diff perf.tab prec.tab | sed -n 's/^< .*[ -]\([0-9.]*%\).*/\1/p' | sort -u)
		for p in $pcts; do
			[ "$(grep -c -- "[ -]$p" perf.tab)" -ge 2 ] || pcts=unequal
		done
		[ -n "$pcts" ] && [ "$pcts" != unequal ] && return 0
	fi
	diff perf.tab prec.tab >&2
	fail "not perf's table for: $*"
}

# prec_ok OUT FILE ARGS...: prec report, exit 0, nothing on stderr but the warnings about
# binaries rebuilt since the recording (other tests rebuild them).
prec_ok() {
	local out=$1 file=$2
	shift 2
	cached "$file" "$PREC" report -i "$file" "$@" >"$out" 2>prec.err || { cat prec.err; return 1; }
	if grep -v 'is not the binary that was recorded' prec.err | grep -q .; then
		cat prec.err
		return 1
	fi
}

same_table() {
	local file=$1
	shift
	$PERF_CHECK cached "$file" perf report -i "$file" --stdio --no-children "$@" >perf.out ||
		return 1
	prec_ok prec.out "$file" --no-children "$@" || return 1
	"$PYTHON" "$CMP" table perf.out prec.out
}

# has_graph FILE: a report's output holds a call graph: a branch, or the first entry of a row's
# only one
has_graph() {
	grep -q -e '---' -e '--[0-9.]*%--' "$1" || fail "no call graph in prec's output"
}

same_graph() {
	local file=$1 top=$2
	shift 2
	$PERF_CHECK cached "$file" perf report -i "$file" --stdio --no-children "$@" >perf.out ||
		return 1
	prec_ok prec.out "$file" --no-children "$@" || return 1
	has_graph prec.out || return 1
	"$PYTHON" "$CMP" graph perf.out prec.out "$top"
}

same_folded() {
	local file=$1
	$PERF_CHECK cached "$file" perf script -i "$file" -F comm,ip,sym,dso >script.out || return 1
	"$PYTHON" "$CMP" script-folded <script.out >perf.folded || return 1
	cached "$file" "$PREC" report -q -i "$file" --folded >prec.folded || return 1
	[ -s prec.folded ] || fail "no stacks" || return 1
	# the counts add up to the samples of the file, but those of prec:overhead
	n=$(cached "$file" perf report -i "$file" --stats 2>/dev/null |
		awk '/^prec:overhead stats:/ {own = 1; next} / stats:$/ {own = 0}
		     /^ *SAMPLE events:/ {if (!seen) n = $3; else if (own) n -= $3; seen = 1}
		     END {print n}')
	sum=$(awk '{s += $NF} END {print s}' prec.folded)
	[ "$sum" = "$n" ] || fail "the stacks hold $sum samples, the file $n" || return 1
	"$PYTHON" "$CMP" folded perf.folded prec.folded
}

json_agrees() {
	local file=$1
	shift
	prec_ok prec.out "$file" --no-children "$@" || return 1
	prec_ok prec.json "$file" --json --no-children "$@" || return 1
	"$PYTHON" "$CMP" json prec.json prec.out
}

svg_ok() {
	local file=$1
	cached "$file" "$PREC" report -q -i "$file" --folded >prec.folded || return 1
	"$PREC" report -q -i "$file" --flamegraph flame.svg >out 2>err || { cat err; return 1; }
	[ ! -s out ] || fail "--flamegraph printed on stdout" || return 1
	"$PYTHON" "$CMP" svg flame.svg prec.folded
}

# report_fails RC ARGS...: prec report ARGS exits RC with one line on stderr (in err), "prec...".
report_fails() {
	local want=$1 rc
	shift
	"$PREC" report "$@" >out 2>err
	rc=$?
	[ $rc = "$want" ] || { cat err; fail "exit $rc from: $*"; } || return 1
	[ "$(wc -l <err)" = 1 ] || { cat err; fail "not one line on stderr"; } || return 1
	grep -q '^prec' err || fail "the line does not start with prec"
}

usage_error() {
	report_fails 2 "$@"
}

cxx_spin() {
	local out=$1
	shift
	cat >"$out.cc" <<-EOF
	namespace ns {
	struct W { static double spin(long n); };
	double __attribute__((noinline)) W::spin(long n)
	{ double x = 0; for (long i = 0; i < n; i++) x += i * 0.5; return x; }
	}
	int main() { volatile double r = ns::W::spin(60000000); return r < 0; }
	EOF
	g++ "$@" -o "$out" "$out.cc"
}
