# SPDX-License-Identifier: GPL-2.0
# prec-metrics.py: per function, the counter deltas of the windows between a group leader's
# samples, and the metrics derived from them, for perf script:
#
#     perf script -i perf.data -s prec-metrics.py                 the table of prec report --metrics
#     perf script -i perf.data -s prec-metrics.py -- --all        every window (--metrics=all)
#     perf script -i perf.data -s prec-metrics.py -- --json       the same figures as JSON
#     perf script -i perf.data -s prec-metrics.py -- --help       this text
#
# The input is a recording of a group with sample read (perf record or prec record -e
# '{task-clock,page-faults}:S', '{cycles,instructions}:S'): each leader sample carries every
# member's cumulative count. A window runs between two samples of one counter instance (and
# thread, when the leader is inherit: each inherited counter reads under its parent's id); its
# deltas go to the function of its last sample only when the previous sample was in the same
# function and thread (the others are "discarded": they span two functions or threads, and perf
# report --group would lend one function the other's counts). When the leader alternates a
# long and a short period (hf-period, alt-period, or deltas that do), only the short windows
# count. Samples inside a throttled span, and the first after it, restart the window, as does a
# counter that went back. Sums that would pass the largest 64-bit count stay at it, with a
# warning. The rules, the table and the JSON are those of prec report --metrics (see
# prec-report(1)); the JSON keys are "functions" (symbol, dso, samples, discarded,
# discard_ratio, counts, metrics), "totals", "leader", "members", "mode", "alternating" and
# "windows".
#
# What perf 6.1 gives the script, and what follows from it:
# - perf calls process_event once per group member of a sample whose delta (by perf's own count
#   per id) is not zero, every call with the whole read ('values': (id, value, lost) tuples,
#   the leader first); the sample's own id is not in the dict. A group read without ids (no
#   PERF_FORMAT_ID) perf refuses before any script runs ("non matching read_format"): prec
#   report --metrics reads such files, this script never sees them. The script takes the calls of
#   one sample once, and the leader's id (the first value) as the sample's: with ':S' only the
#   leader samples. A member that samples too cannot be told from its leader here, so the
#   note prec report prints about such samples is missing and they cut the leader's windows.
# - Event names, the leader's period and which member is which derived-metric operand come
#   from the file's header (its attrs, their ids and the EVENT_DESC names), read from the
#   file perf was given (-i FILE, --input FILE, default perf.data): a member whose count
#   never changes gets no call that would name it. A pipe (-i -) has no header to read: the
#   names then come from perf's calls (perf's names, with their modifiers, where prec report
#   has the recorder's), a member that never had a call is "member N", and prec's facts
#   (hf-period) are not known.
# - THROTTLE and UNTHROTTLE records reach the throttle() and unthrottle() handlers with the id
#   and the thread, in time order with the samples. Whether the leader is inherit comes from the
#   header's attrs, in a pipe from the samples' attr: a THROTTLE before the first sample of its
#   id in a pipe is taken as one of every thread.
# - Functions are perf's symbol and binary names; two symbols of one name in one binary (two
#   static functions) make one row here where prec report keeps them apart.
#
# perf aborts (exit 134) when a handler raises, so every handler catches what it raises and
# trace_end reports it.

import json
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts, installed or not
from prec_perfdata import (HW, SW, File, event_desc_names, event_facts,  # noqa: E402
                           input_path, sections)

PERF_SAMPLE_READ = 1 << 4
PERF_FORMAT_GROUP = 1 << 3
ATTR_FREQ = 1 << 10
ATTR_INHERIT = 1 << 1
U32_MINUS_ONE = 0xffffffff
U64_MAX = (1 << 64) - 1
MAX_MEMBERS = 64  # the largest group prec report --metrics takes

# derived metrics: key, numerator, denominator, scale (the order of the table and the JSON)
DERIVED = [("CPI", "cycles", "instructions", 1.0),
           ("BM/KI", "branch-misses", "instructions", 1000.0),
           ("CM/KI", "cache-misses", "instructions", 1000.0),
           ("CM%", "cache-misses", "cache-references", 100.0)]
HW_OPERANDS = {0: "cycles", 1: "instructions", 2: "cache-references", 3: "cache-misses",
               5: "branch-misses"}
SHORT, LONG = 0, 1

USAGE = """usage: perf script [-i FILE] -s prec-metrics.py [-- [--all] [--json]]
  per function, the counter deltas of a group's windows ({a,b,c}:S) and the metrics
  derived from them, as prec report --metrics prints them
  --all     every window counts for the function of its last sample (--metrics=all);
            by default windows whose previous sample was in another function or thread
            are discarded
  --json    the figures as prec report --metrics --json prints them
  --help    this text"""

errors = []
opts = {"all": False, "json": False}
header = {"names": {}, "attrs": {}, "index": {},  # by id: name, attr bytes, attr index
          "hf_period": {}}  # by attr index, from prec's facts
learned = {}   # id -> perf's name of the event, from its calls
groups = {}    # leader's attr index (or id) -> group
order = []     # the groups: by their leaders' attr index (prec report's order) at the end
keys = {}      # (group, id, tid or -1) -> [values, function, seq, tid of the previous sample]
spans = {}     # (id, tid or -1 for every key of the id) -> [open, end_seq]
seen_attrs = {}  # id -> attr bytes of its samples (a pipe has no header)
too_large = [0]  # samples of groups of more than MAX_MEMBERS
perf_last = {}  # id -> the value perf last saw (it calls per member whose value changed)
seq = 0
last_sample = None
pending = None  # (sample dict, values): the calls of one sample are consecutive
changed = []    # the ids of the pending sample that perf calls for
calls = 0


def _note(what):
    if len(errors) < 10:
        errors.append(what)


def _args():
    for a in sys.argv[1:]:
        if a in ("--help", "-h"):
            print(USAGE)
            sys.exit(0)
        elif a in ("--all", "all"):
            opts["all"] = True
        elif a in ("--json", "json"):
            opts["json"] = True
        else:
            print("prec-metrics.py: unknown argument '%s': --all, --json or --help" % a,
                  file=sys.stderr)
            sys.exit(2)


# ---- the file's header: attrs, ids, names

def _attr_name(attr):
    """The name perf builds from an attr without EVENT_DESC (its modifiers left out: prec and
    perf write EVENT_DESC, and it is only a fallback)."""
    typ, _size, config = struct.unpack_from("<IIQ", attr, 0)
    if typ == 0 and config < len(HW):
        return HW[config]
    if typ == 1 and config < len(SW):
        return SW[config]
    if typ == 4:
        return "raw 0x%x" % config
    return "unknown attr type: %d" % typ


def _read_header(path):
    f = File(path)
    try:
        head = f.read(0, 104)
        if head[:8] != b"PERFILE2":
            return
        (_m, _hs, _as, a_off, a_size, d_off, d_size) = struct.unpack_from("<7Q", head, 0)
        feats = struct.unpack_from("<4Q", head, 72)
        names, off, idx = [], a_off, 0
        while off + 8 <= a_off + a_size:
            asz = struct.unpack_from("<I", f.read(off + 4, 4))[0] or 64
            attr = f.read(off, asz)
            ids_off, ids_size = struct.unpack_from("<2Q", f.read(off + asz, 16))
            ids = struct.unpack_from("<%dQ" % (ids_size // 8),
                                     f.read(ids_off, ids_size // 8 * 8))
            names.append(_attr_name(attr))
            for i in ids:
                header["attrs"][i] = attr
                header["index"][i] = idx
            off += asz + 16
            idx += 1
        found = sections(f, feats, d_off, d_size)
        for i, name in enumerate(event_desc_names(f, found)[:len(names)]):
            names[i] = name
        for i, x in header["index"].items():
            header["names"][i] = names[x]
        # prec's facts: "event.N.hf_period=H" when prec recorded event N with hf-period
        for n, field, val in event_facts(f, found):
            if field == "hf_period" and val.isdigit():
                header["hf_period"][n] = int(val)
    finally:
        f.close()


def _name(i, pos):
    return header["names"].get(i) or learned.get(i) or "member %d" % pos


def _operand(attr, name):
    """Which operand of the derived metrics an event is: by its attr, or for a PMU's event
    (not one of perf's generic types) by its name."""
    if attr is None:
        return None
    typ, _size, config = struct.unpack_from("<IIQ", attr, 0)
    if typ == 0:
        return HW_OPERANDS.get(config & 0xffffffff)
    if typ in (1, 2, 3, 5):
        return None
    base = name.split("/", 1)[1] if "/" in name else name
    for stop in "/:,=":
        base = base.split(stop, 1)[0]
    if base == "cpu-cycles":
        base = "cycles"
    return base if base in HW_OPERANDS.values() else None


# ---- groups, functions and windows

def _group(values, attr):
    lid = values[0][0]
    # a group by its leader's attr, whose counter instances (one per CPU) have ids of their own;
    # in a pipe, where the attrs cannot be read, by the name perf gives its leader
    gkey = header["index"].get(lid)
    if gkey is None:
        gkey = ("name", learned[lid]) if lid in learned else ("id", lid)
    g = groups.get(gkey)
    if g:
        return g
    if len(values) > MAX_MEMBERS:
        too_large[0] += 1
        return None
    ids = [v[0] for v in values]
    g = {"ids": ids, "nr": len(ids), "names": [_name(i, n) for n, i in enumerate(ids)],
         "funcs": {}, "samples": 0, "mismatched": 0, "throttled": 0, "windows": [0, 0],
         "saturated": False}
    la = header["attrs"].get(lid, attr)
    period, flags = struct.unpack_from("<Q", la, 16)[0], struct.unpack_from("<Q", la, 40)[0]
    g["period"] = 0 if flags & ATTR_FREQ else period
    g["inherit"] = bool(flags & ATTR_INHERIT)
    g["hf_period"] = header["hf_period"].get(header["index"].get(lid), 0)
    ops = {}
    for n, i in enumerate(ids):
        op = _operand(header["attrs"].get(i), g["names"][n])
        if op and op not in ops:
            ops[op] = n
    metrics, operand = [], set()
    for key, num, den, scale in DERIVED:
        if num in ops and den in ops:
            metrics.append((key, ops[num], ops[den], scale))
            operand |= {ops[num], ops[den]}
    clock = struct.unpack_from("<IIQ", la, 0)
    clock = clock[0] == 1 and clock[2] in (0, 1)  # cpu-clock, task-clock: nanoseconds
    for n in range(1, len(ids)):
        if n in operand:
            continue
        if clock:
            metrics.append(("%s/ms" % g["names"][n], n, 0, 1e6))
        else:
            metrics.append(("%s/%s" % (g["names"][n], g["names"][0]), n, 0, 1.0))
    g["metrics"] = metrics
    g["key"] = gkey
    groups[gkey] = g
    order.append(g)
    return g


def _func(g, param):
    sym = param.get("symbol") or "[unknown]"
    dso = param.get("dso") or "[unknown]"
    if "dso" not in param:
        sym = "[unknown]"
    f = g["funcs"].get((sym, dso))
    if not f:
        level = "k" if param["sample"].get("cpumode") == 1 else "."
        f = {"symbol": sym, "dso": dso, "level": level, "windows": [0, 0],
             "discarded": [0, 0], "counts": [[0] * g["nr"], [0] * g["nr"]]}
        g["funcs"][(sym, dso)] = f
    return f


def _throttled(state, i, ktid):
    """Is the next sample of a key (id i, thread ktid or -1) inside a span of it, or the
    first after one ended?"""
    for sp in (spans.get((i, -1)), spans.get((i, ktid)) if ktid != -1 else None):
        if sp and (sp[0] or (state is not None and state[2] < sp[1])):
            return True
    return False


def _add(g, c, j, v):
    """Add v to c[j]; a sum past the largest 64-bit count stays at it (the file's values
    are damaged), and the group says so."""
    c[j] += v
    if c[j] > U64_MAX:
        c[j] = U64_MAX
        g["saturated"] = True


def _sample(param, values):
    global seq
    seq += 1
    s = param["sample"]
    attr = param.get("attr") or b""
    if len(attr) >= 40:
        sample_type, read_format = struct.unpack_from("<QQ", attr, 24)
        if not sample_type & PERF_SAMPLE_READ or not read_format & PERF_FORMAT_GROUP:
            return
    if not values:
        return
    g = _group(values, attr)
    if g is None:
        return
    if len(values) != g["nr"]:
        g["mismatched"] += 1
        return
    g["samples"] += 1
    lid, tid = values[0][0], s["tid"]
    seen_attrs.setdefault(lid, attr)
    f = _func(g, param)
    now = [v[1] for v in values]
    # a counter that is not inherit counts whichever thread runs: one state for its id
    ktid = tid if g["inherit"] else -1
    k = (id(g), lid, ktid)
    state = keys.get(k)
    throttled = _throttled(state, lid, ktid)
    keys[k] = [now, f, seq, tid]
    if state is None:
        return
    prev, pf, _, ptid = state
    if throttled or any(a < b for a, b in zip(now, prev)):
        g["throttled"] += 1
        return
    deltas = [a - b for a, b in zip(now, prev)]
    p = g["period"]
    b = SHORT if not p or (deltas[0] < p and 2 * deltas[0] < p) else LONG
    g["windows"][b] += 1
    # another function, or another thread that ran on the counter in between
    if (pf is not f or ptid != tid) and not opts["all"]:
        f["discarded"][b] += 1
        return
    f["windows"][b] += 1
    c = f["counts"][b]
    for j, d in enumerate(deltas):
        _add(g, c, j, d)


def _flush():
    global pending
    if pending:
        p, pending = pending, None
        _sample(*p)


def process_event(param):
    global pending, last_sample, calls
    try:
        s = param["sample"]
        values = [(int(v[0]), int(v[1])) for v in s.get("values") or []]
        this = (s.get("time"), s.get("tid"), s.get("cpu"), s.get("ip"), tuple(values))
        if this != last_sample:
            _flush()
            last_sample = this
            pending = (param, values)
            # perf calls once per member whose value changed since it last saw that id
            # (deliver_sample_value() skips a zero delta), in read order: the k-th call of a
            # sample names the k-th of them
            changed[:] = [i for i, v in values if perf_last.get(i, 0) != v]
            for i, v in values:
                perf_last[i] = v
            calls = 0
        if calls < len(changed):
            learned.setdefault(changed[calls], param.get("ev_name"))
        calls += 1
    except Exception as ex:  # noqa: BLE001 perf aborts on an exception
        _note("process_event: %r" % (ex,))


def _throttle(i, tid):
    """A span begins: of the record's thread when the leader is inherit (each thread has its
    counter) and the record names one, else of every key of the id."""
    global seq
    seq += 1
    attr = header["attrs"].get(i) or seen_attrs.get(i) or b""
    inherit = len(attr) >= 48 and struct.unpack_from("<Q", attr, 40)[0] & ATTR_INHERIT
    if not inherit or tid in (-1, U32_MINUS_ONE, None):
        tid = -1
    spans.setdefault((i, tid), [False, 0])[0] = True


def _unthrottle(i):
    """Every open span of the id ends, whatever its thread: the kernel writes UNTHROTTLE from
    the tick, in whichever thread runs then."""
    global seq
    seq += 1
    for (sid, _tid), sp in spans.items():
        if sid == i and sp[0]:
            sp[0] = False
            sp[1] = seq


def throttle(*args):
    try:
        _flush()
        _throttle(int(args[1]), int(args[5]))
    except Exception as ex:  # noqa: BLE001
        _note("throttle: %r" % (ex,))


def unthrottle(*args):
    try:
        _flush()
        _unthrottle(int(args[1]))
    except Exception as ex:  # noqa: BLE001
        _note("unthrottle: %r" % (ex,))


# ---- the results

def _finish(g):
    alt = g["period"] and sum(g["windows"]) and 4 * g["windows"][SHORT] >= sum(g["windows"])
    g["alternating"] = bool(alt)
    g["totals"] = [0] * g["nr"]
    g["attributed"] = g["discarded"] = g["long"] = 0
    for f in g["funcs"].values():
        if alt:
            g["long"] += f["windows"][LONG] + f["discarded"][LONG]
        else:
            f["windows"][SHORT] += f["windows"][LONG]
            f["discarded"][SHORT] += f["discarded"][LONG]
            for j, v in enumerate(f["counts"][LONG]):
                _add(g, f["counts"][SHORT], j, v)
        g["attributed"] += f["windows"][SHORT]
        g["discarded"] += f["discarded"][SHORT]
        for j, v in enumerate(f["counts"][SHORT]):
            _add(g, g["totals"], j, v)

    def order_key(f):
        return (-f["counts"][SHORT][0], f["symbol"].encode(), f["dso"].encode())
    g["rows"] = [f for f in sorted(g["funcs"].values(), key=order_key)
                 if f["windows"][SHORT] or f["discarded"][SHORT]]


def _metric(m, c):
    _key, num, den, scale = m
    return c[num] * scale / c[den] if c[den] else None


def _jstr(s):
    return json.dumps(s, ensure_ascii=False)


def _counts_json(g, c):
    return "{" + ", ".join("%s: %d" % (_jstr(n), v) for n, v in zip(g["names"], c)) + "}"


def _group_json(g):
    rows = []
    for f in g["rows"]:
        c = f["counts"][SHORT]
        ms = []
        for m in g["metrics"]:
            v = _metric(m, c)
            ms.append("%s: %s" % (_jstr(m[0]), "null" if v is None else "%.10g" % v))
        w, d = f["windows"][SHORT], f["discarded"][SHORT]
        ratio = "%.10g" % (float(d) / float(w + d)) if w + d else "null"
        rows.append("\n  {\"symbol\": %s, \"dso\": %s, \"samples\": %d, \"discarded\": %d, "
                    "\"discard_ratio\": %s, \"counts\": %s, \"metrics\": {%s}}"
                    % (_jstr(f["symbol"]), _jstr(f["dso"]), w, d, ratio, _counts_json(g, c),
                       ", ".join(ms)))
    return ("\"functions\": [%s],\n \"totals\": %s,\n \"leader\": %s, \"members\": [%s],\n"
            " \"mode\": \"%s\", \"alternating\": %s,\n"
            " \"windows\": {\"attributed\": %d, \"discarded\": %d, \"long\": %d, "
            "\"throttled\": %d}"
            % (",".join(rows), _counts_json(g, g["totals"]), _jstr(g["names"][0]),
               ", ".join(_jstr(n) for n in g["names"]), "all" if opts["all"] else "discard",
               "true" if g["alternating"] else "false", g["attributed"], g["discarded"],
               g["long"], g["throttled"]))


def print_json():
    out = "{" + _group_json(order[0])
    if len(order) > 1:
        out += ",\n \"groups\": [" + ",".join("\n {" + _group_json(g) + "}" for g in order) + "]"
    print(out + "}")


def _pct(part, whole):
    return 100.0 * float(part) / float(whole) if whole else 0.0


def _short(dso):
    return dso if dso.startswith("[") else os.path.basename(dso)


def print_table(g):
    names = g["names"]
    print("# Group {%s}: %d samples of %s" % (",".join(names), g["samples"], names[0]))
    line = "# Windows: %d attributed, %d discarded (%.2f%%)" % (
        g["attributed"], g["discarded"], _pct(g["discarded"], g["attributed"] + g["discarded"]))
    if g["long"]:
        line += ", %d long (skipped)" % g["long"]
    if g["throttled"]:
        line += ", %d throttled" % g["throttled"]
    print(line)
    if g["alternating"]:
        print("# The leader alternates its period (%d and short): the long windows only mark "
              "where a short one starts" % g["period"])
    if g["hf_period"]:
        print("# prec recorded it with hf-period=%d" % g["hf_period"])
    if opts["all"]:
        print("# --metrics=all: every window counts for the function of its last sample")
    else:
        print("# A window is discarded when the counter's previous sample was in another "
              "function or thread: its counts cannot be given to one function")
    cw = [max(len(n), 12) for n in names]
    mw = [max(len(m[0]), 9) for m in g["metrics"]]
    dw = max([13] + [len(_short(f["dso"])) for f in g["rows"]])
    head = "#\n#   Samples  Discarded    Disc%"
    head += "".join("  %*s   Share" % (w, n) for w, n in zip(cw, names))
    head += "".join("  %*s" % (w, m[0]) for w, m in zip(mw, g["metrics"]))
    print(head + "  %-*s  Symbol\n#" % (dw, "Shared Object"))
    for f in g["rows"]:
        c = f["counts"][SHORT]
        w, d = f["windows"][SHORT], f["discarded"][SHORT]
        line = "  %9d  %9d  %6.2f%%" % (w, d, _pct(d, w + d))
        for j, w in enumerate(cw):
            share = "%.2f%%" % _pct(c[j], g["totals"][j]) if g["totals"][j] else "-"
            line += "  %*d %7s" % (w, c[j], share)
        for w, m in zip(mw, g["metrics"]):
            v = _metric(m, c)
            line += "  %*s" % (w, "-" if v is None else "%.4f" % v)
        print(line + "  %-*s  [%s] %s" % (dw, _short(f["dso"]), f["level"], f["symbol"]))


def trace_begin():
    try:
        path = input_path()
        if path != "-":
            _read_header(path)
    except (OSError, struct.error, ValueError) as ex:
        _note("reading the event names from the file: %s" % (ex,))


def trace_end():
    status = 0
    try:
        _flush()
        if not order:
            print("prec-metrics.py: no samples that read a group: record with "
                  "-e '{EVENT,EVENT...}:S'", file=sys.stderr)
            status = 1
        else:
            # prec report orders the groups by their leaders' attrs; a pipe has no header
            # to say them, and its groups stay in the order of their first samples
            order.sort(key=lambda g: (0, g["key"]) if isinstance(g["key"], int) else (1, 0))
            for g in order:
                _finish(g)
            if opts["json"]:
                print_json()
            else:
                for n, g in enumerate(order):
                    if n:
                        print()
                    print_table(g)
            for g in order:
                if g["saturated"]:
                    _note("sums of %s's group reached the largest count and were held there: "
                          "the file's values are damaged" % g["names"][0])
            for g in order:
                if g["mismatched"]:
                    _note("%d samples of %s were left out: they read another number of values "
                          "than its first sample" % (g["mismatched"], g["names"][0]))
        if too_large[0]:
            _note("%d samples that read groups of more than %d members were left out"
                  % (too_large[0], MAX_MEMBERS))
    except Exception as ex:  # noqa: BLE001
        _note("trace_end: %r" % (ex,))
    for e in errors:
        print("prec-metrics.py: %s" % e, file=sys.stderr)
    sys.stdout.flush()
    if status:
        sys.exit(status)


_args()
