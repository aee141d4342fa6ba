# SPDX-License-Identifier: GPL-2.0
# prec-counters.py: the counter readings of a perf.data file (prec record --count, or perf stat
# record), per event, from perf's stat__<event> handlers, for perf script:
#
#     perf script -i perf.data -s prec-counters.py            a table of totals
#     perf script -i perf.data -s prec-counters.py -- --json  the same totals as JSON
#
# It prints, per logical event in file order, what `prec report --counters --json` gives as
# "count", "enabled_ns", "running_ns", "status" and "scaled": the last cumulative readings summed
# over CPUs and threads, and count * enabled / running when multiplexed. A file with a
# STAT_CONFIG of aggregation "global" (what prec and perf stat record write) makes perf call
# stat__<event>(cpu=-1, thread=-1, time, val, ena, run) once per round and event with the
# increase since the last round, val already scaled by ena / run when run < ena; this script
# undoes the scaling (val = ceil(scaled * run / ena) inverts perf's rounding down; exactly as
# long as perf's double arithmetic was, i.e. count * enabled below 2^53) and adds the increases
# up.
#
# Handler names. perf looks up "stat__" + the event's name (only ':' becomes '_', hyphens stay)
# in __main__'s dictionary (PyDict_GetItemString in trace-event-python.c), so a module
# __getattr__ is never asked: the handlers must exist as dictionary entries before the first
# round. The script reads the event names from the file itself (the EVENT_DESC feature, else the
# names perf builds from the attrs), finding the file from perf's command line (-i FILE,
# --input FILE, default perf.data) in /proc/self/cmdline, and installs one handler per name.
# Two events with the same name share one handler name; perf calls the handlers in event order
# every round, so the n-th call of a name in a round belongs to the n-th event of that name.
# The handlers cannot tell an event that was never read (perf stat report: <not supported>)
# from one read with nothing to count: both get zeros. For events that got only zeros, the
# script looks for STAT records naming their ids in the file's data section (it cannot when
# the records are zstd-COMPRESSED; the status is then not-enabled rather than not-supported).
# prec's own events (prec:overhead, a synthetic tracepoint from ID 65000 up) are never read:
# when they got nothing they are left out, as prec report --counters leaves them out (perf stat
# report prints them as <not supported>).
# Limits: a pipe-mode input (-i -) cannot be read twice, so the events must then be named on the
# command line (-- NAME...); with an aggregation other than global perf calls per CPU and thread
# and the figures are marked as not aggregated.
#
# perf aborts (exit 134) when a handler raises, so every handler catches what it raises and
# trace_end reports it.

import json
import re
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts, installed or not
from prec_perfdata import (HW, SW, File, event_desc_names, event_facts,  # noqa: E402
                           input_path, sections)

HANDLER_NAME_MAX = 255  # perf builds the name in a 256-byte buffer
PREC_EVENT_ID_BASE, PREC_EVENT_ID_MAX = 65000, 65534  # prec's synthetic tracepoints

events = []       # per attr index: {"name", "no_ids", "shared_with", "own", sums}
by_handler = {}   # handler name -> [event index, ...] in file order
calls = {}        # handler name -> calls seen in the current round
errors = []
not_global = False
rounds = 0
source = ""


def _note(what):
    if len(errors) < 10:
        errors.append(what)


# ---- perf.data header: attrs, EVENT_DESC names, prec's facts

def _modifiers(flags, precise):
    """perf's evsel__add_modifiers() for the names it builds from an attr."""
    ek, eu, eh = flags >> 5 & 1, flags >> 4 & 1, flags >> 6 & 1
    eho, egu = flags >> 19 & 1, flags >> 20 & 1
    mod, guest_default = "", False
    if ek or eu or eh:
        mod += "" if ek else "k"
        mod += "" if eu else "u"
        mod += "" if eh else "h"
        guest_default = True
    if precise:
        mod += "p" * min(precise, 3)
        guest_default = True
    if eho or egu == guest_default:
        mod += "" if eho else "H"
        mod += "" if egu else "G"
    return ":" + mod if mod else ""


def _prec_own(attr):
    """prec's own synthetic tracepoint (prec:overhead): no counter stands behind it. In a pipe
    it is a bpf-output software event whose config1 is the tracepoint id."""
    typ, _size, config = struct.unpack_from("<IIQ", attr, 0)
    if typ == 1 and config == 10 and len(attr) >= 64:
        typ, config = 2, struct.unpack_from("<Q", attr, 56)[0]
    return typ == 2 and PREC_EVENT_ID_BASE <= config <= PREC_EVENT_ID_MAX


def _attr_name(attr):
    typ, _size, config = struct.unpack_from("<IIQ", attr, 0)
    flags = struct.unpack_from("<Q", attr, 40)[0] if len(attr) >= 48 else 0
    precise = flags >> 15 & 3
    if typ == 0:
        base = HW[config] if config < len(HW) else "unknown-hardware"
    elif typ == 1:
        base = SW[config] if config < len(SW) else "unknown-software"
    elif typ == 4:
        base = "raw 0x%x" % config
    elif typ == 2:
        return "unknown tracepoint"
    else:
        return "unknown attr type: %d" % typ
    return base + _modifiers(flags, precise)


def _read_header(path):
    """{"attrs": [[name, ids, own]], "shared": {idx: M}, "data": (off, size)}, or None (a
    pipe)."""
    f = File(path)
    head = f.read(0, 104)
    if head[:8] != b"PERFILE2":
        return None
    (_magic, hsize, _attr_size, a_off, a_size, d_off, d_size) = struct.unpack_from("<7Q", head, 0)
    if hsize != 104:
        return None
    feats = struct.unpack_from("<4Q", head, 72)
    attrs = []
    off = a_off
    while off + 8 <= a_off + a_size:
        asz = struct.unpack_from("<I", f.read(off + 4, 4))[0] or 64
        attr = f.read(off, asz)
        ids_off, ids_size = struct.unpack_from("<2Q", f.read(off + asz, 16))
        ids = struct.unpack_from("<%dQ" % (ids_size // 8), f.read(ids_off, ids_size // 8 * 8))
        attrs.append([_attr_name(attr), ids, _prec_own(attr)])
        off += asz + 16
    found = sections(f, feats, d_off, d_size)
    for i, name in enumerate(event_desc_names(f, found)[:len(attrs)]):
        attrs[i][0] = name
    shared, bpf = {}, {}
    for n, field, val in event_facts(f, found):
        if field == "shared_with":
            try:
                shared[n] = int(val)
            except ValueError:
                pass
        elif field in ("bpf_counter", "bpf_counter_fallback"):
            # --bpf-counters: a counter shared across sessions, or why the event had none
            if field == "bpf_counter" and val not in ("created", "joined"):
                continue
            val = re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)),
                         val)
            bpf.setdefault(n, {})[field] = val
    return {"attrs": attrs, "shared": shared, "bpf": bpf, "data": (d_off, d_size), "file": f}


def _stat_ids(hdr, wanted):
    """The ids among wanted that some STAT record of the data section names; None when that
    cannot be told (COMPRESSED records, which would need zstd)."""
    f = hdr["file"]
    off, size = hdr["data"]
    end, found = off + size, set()
    while off + 8 <= end and wanted - found:
        typ, _misc, rsize = struct.unpack_from("<IHH", f.read(off, 8))
        if rsize < 8:
            break
        if typ == 81:  # PERF_RECORD_COMPRESSED
            return None
        if typ == 76 and rsize >= 16:  # PERF_RECORD_STAT: the id first
            found.add(struct.unpack_from("<Q", f.read(off + 8, 8))[0])
        off += rsize
    return found


def handler_name(name):
    return ("stat__" + name.replace(":", "_"))[:HANDLER_NAME_MAX]


def _make_handler(hname):
    def handler(cpu, thread, time, val, ena, run):
        global not_global
        try:
            k = calls.get(hname, 0)
            calls[hname] = k + 1
            idxs = by_handler[hname]
            e = events[idxs[k % len(idxs)]]
            val, ena, run = int(val), int(ena), int(run)
            if cpu != -1:
                not_global = True
            # perf passes val * ena / run (floored) when run < ena, and 0 when run == 0
            if 0 < run < ena:
                val = -(-val * run // ena)
            e["count"] += val
            e["enabled_ns"] += ena
            e["running_ns"] += run
            e["calls"] += 1
        except Exception as ex:  # perf aborts on an exception
            _note("%s: %r" % (hname, ex))
    return handler


def _install(names):
    g = globals()
    for i, (name, no_ids, shared_with, own) in enumerate(names):
        events.append({"index": i, "name": name, "no_ids": no_ids, "shared_with": shared_with,
                       "own": own, "count": 0, "enabled_ns": 0, "running_ns": 0, "calls": 0,
                       "bpf_counter": None, "bpf_counter_fallback": None})
        h = handler_name(name)
        if h not in by_handler:
            by_handler[h] = []
            g[h] = _make_handler(h)
        by_handler[h].append(i)


header = None


def _setup():
    global source, header
    args = [a for a in sys.argv[1:] if a != "--json"]
    path = input_path()
    names = []
    if path != "-":
        try:
            header = _read_header(path)
            if header:
                names = [(n, not ids, header["shared"].get(i), own)
                         for i, (n, ids, own) in enumerate(header["attrs"])]
                source = path
        except (OSError, struct.error, ValueError) as ex:
            _note("reading the event names from %s: %s" % (path, ex))
    if args:  # named on the command line: these, in this order
        names = [(n, False, None, False) for n in args]
        source = "the command line"
    if not names:
        _note("no event names: the input is a pipe or unreadable; name the events after --")
    _install(names)
    if header and source == path:
        for i, b in header["bpf"].items():
            if i < len(events):
                events[i].update(b)


_setup()


def stat__interval(time):
    global rounds
    try:
        rounds += 1
        calls.clear()
    except Exception as ex:
        _note("stat__interval: %r" % ex)


def _status(e):
    if e["no_ids"]:  # no ids in the file, or no STAT record names them
        return "not-supported"
    if not e["enabled_ns"]:
        return "not-enabled"
    if not e["running_ns"]:
        return "not-counted"
    return "scaled" if e["running_ns"] < e["enabled_ns"] else "counted"


def _scaled(e):
    st = _status(e)
    if st == "scaled":
        return e["count"] * e["enabled_ns"] / e["running_ns"]
    if st == "counted":
        return float(e["count"])
    return None


def _resolve_unread():
    """An event whose handler only ever got zeros was either read with nothing to count, or
    never read at all (perf stat report: <not supported>): the data section says which."""
    zero = [e for e in events if not e["no_ids"] and not e["enabled_ns"] and not e["count"]]
    if not zero or not header or source == "the command line":
        return
    try:
        ids = {i: set(header["attrs"][e["index"]][1]) for i, e in enumerate(zero)}
        found = _stat_ids(header, set().union(*ids.values()))
    except (OSError, struct.error, ValueError) as ex:
        _note("reading the STAT records: %s" % ex)
        return
    if found is None:
        return
    for i, e in enumerate(zero):
        if not ids[i] & found:
            e["no_ids"] = True


def trace_end():
    try:
        _resolve_unread()
    except Exception as ex:
        _note("trace_end: %r" % ex)
    out = []
    for e in events:
        if e["own"] and (e["no_ids"] or not (e["count"] or e["enabled_ns"] or e["running_ns"])):
            continue  # prec:overhead: never read, not a counter
        out.append({"index": e["index"], "name": e["name"], "status": _status(e),
                    "count": e["count"], "enabled_ns": e["enabled_ns"],
                    "running_ns": e["running_ns"], "scaled": _scaled(e),
                    "shared_with": e["shared_with"], "bpf_counter": e["bpf_counter"],
                    "bpf_counter_fallback": e["bpf_counter_fallback"]})
    if "--json" in sys.argv[1:]:
        print(json.dumps({"rounds": rounds, "aggregated": not not_global, "events": out,
                          "errors": errors}))
    else:
        print("# Counter totals from perf's stat__ handlers: %d round%s, event names from %s"
              % (rounds, "" if rounds == 1 else "s", source or "nowhere"))
        if not_global:
            print("# the file's aggregation is not global: perf called per CPU and thread, "
                  "and these are the sums of its calls")
        print("#%4s %20s %-24s %8s  %s" % ("event", "count", "name", "running", "notes"))
        for o in out:
            if o["status"] == "not-supported":
                shown, notes = "<not supported>", ""
            elif o["status"] in ("not-enabled", "not-counted"):
                shown, notes = "<not counted>", o["status"].replace("-", " ")
            else:
                shown, notes = str(o["count"]), ""
            run = ("%7.2f%%" % (100.0 * o["running_ns"] / o["enabled_ns"])
                   if o["enabled_ns"] else "")
            if o["status"] == "scaled":
                notes = "scaled %.0f" % o["scaled"]
            if o["shared_with"] is not None:
                notes += ("; " if notes else "") + "read the counter of event %d" % o["shared_with"]
            if o["bpf_counter"]:
                notes += (("; " if notes else "") +
                          "read through a counter shared across sessions (%s)" % o["bpf_counter"])
            elif o["bpf_counter_fallback"]:
                notes += (("; " if notes else "") + "own counters, none shared across sessions: %s"
                          % o["bpf_counter_fallback"])
            print(("%5d %20s %-24s %8s  %s" % (o["index"], shown, o["name"], run, notes)).rstrip())
    for what in errors:
        print("prec-counters.py: %s" % what, file=sys.stderr)
