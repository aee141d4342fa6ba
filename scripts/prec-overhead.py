# SPDX-License-Identifier: GPL-2.0
# prec-overhead.py: what profiling cost, per CPU, from the prec:overhead samples of a perf.data
# file written by prec record, for perf script:
#
#     perf script -i perf.data -s prec-overhead.py            the per-CPU table
#     perf script -i perf.data -s prec-overhead.py -- --json  the same figures as JSON
#
# It prints the table of `prec report --overhead` (the same rows, computed by the same rules) and,
# with --json, the "cpus", "totals", "worst_cpu" and "unavailable" members of
# `prec report --overhead --json`, with the same numbers. perf script shows it no feature
# sections, so the wall time of a CPU is the longest sum of span_ns over the types recorded for
# it (prec report uses the facts section's wall time when the file has one; a recorder writes
# both alike). Findings need the facts and perf's own records: they are prec report's.
#
# perf aborts (exit 134) when a handler raises, so every handler catches what it raises and
# trace_end reports it.

import json
import math
import struct
import sys

TYPE_ORDER = ["sample", "stolen", "mux", "sideband", "throttle", "lost", "recorder", "write",
              "aggregate"]
# The types whose spans make up a CPU's wall time, as prec report counts them.
SPAN_TYPES = ["sample", "stolen", "mux", "sideband", "throttle", "lost", "aggregate"]
STATUS = {0: "measured", 1: "estimated", 2: "unavailable"}
ESTIMATED = 1
UNAVAILABLE = 2

costs = {}      # (cpu, type, source, status) -> dict
samples = {}    # cpu -> workload samples
errors = []
records = 0


def _text(v):
    """perf hands char arrays over as str, or as bytearray when not printable."""
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(v).split("\0", 1)[0]


def _note(what):
    if len(errors) < 10:
        errors.append(what)


def _add(cpu, type, nr, time_ns, span_ns, source, estimated, reason):
    global records
    key = (int(cpu), _text(type), _text(source), int(estimated))
    c = costs.get(key)
    if c is None:
        c = costs[key] = {"nr": 0, "time_ns": 0, "span_ns": 0, "reason": ""}
    c["nr"] += int(nr)
    c["time_ns"] += int(time_ns)
    c["span_ns"] += int(span_ns)
    r = _text(reason)
    if r and not c["reason"]:
        c["reason"] = r
    records += 1


def prec__overhead(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                   common_comm, common_callchain, cpu, type, nr, time_ns, span_ns, source,
                   estimated, reason, perf_sample_dict):
    try:
        _add(cpu, type, nr, time_ns, span_ns, source, estimated, reason)
    except Exception as e:  # noqa: BLE001 - perf aborts on any exception
        _note("prec__overhead: %r" % (e,))


# In a pipe (perf record -o -, perf inject) prec:overhead is not a tracepoint: perf 6.1's pipe
# tools cannot carry tracing data, so its samples come as a bpf-output software event whose
# config1 is the tracepoint id, with the same raw payload (see man/prec-data.5).
OVERHEAD_EVENT_ID = 65000
PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT = 1, 10


def _is_stream_overhead(attr):
    if attr is None or len(attr) < 64:
        return False
    typ, _size, config = struct.unpack_from("<IIQ", attr, 0)
    config1 = struct.unpack_from("<Q", attr, 56)[0]
    return (typ == PERF_TYPE_SOFTWARE and config == PERF_COUNT_SW_BPF_OUTPUT and
            config1 == OVERHEAD_EVENT_ID)


def _decode_raw(raw):
    """The prec:overhead raw payload (overhead/event.h) as prec__overhead's arguments."""
    raw = bytes(raw)
    common_type, cpu = struct.unpack_from("<H6xq", raw, 0)
    if common_type != OVERHEAD_EVENT_ID:
        raise ValueError("common_type %d" % common_type)
    nr, time_ns, span_ns = struct.unpack_from("<QQQ", raw, 32)
    estimated, loc = struct.unpack_from("<II", raw, 72)
    off, length = loc & 0xffff, loc >> 16
    if off + length > len(raw):
        raise ValueError("reason past the payload")
    return (cpu, raw[16:32], nr, time_ns, span_ns, raw[56:72], estimated,
            raw[off:off + length])


def _count_sample(cpu):
    try:
        cpu = int(cpu)
        if 0 <= cpu <= 65535:
            samples[cpu] = samples.get(cpu, 0) + 1
    except Exception as e:  # noqa: BLE001
        _note("sample: %r" % (e,))


def process_event(param_dict):
    try:
        if _is_stream_overhead(param_dict.get("attr")):
            _add(*_decode_raw(param_dict["raw_buf"]))
            return
        _count_sample(param_dict["sample"]["cpu"])
    except Exception as e:  # noqa: BLE001
        _note("process_event: %r" % (e,))


def trace_unhandled(event_name, context, event_fields_dict):
    try:
        _count_sample(event_fields_dict["common_cpu"])
    except Exception as e:  # noqa: BLE001
        _note("trace_unhandled: %r" % (e,))


# --------------------------------------------------------------------------------------------
# The same arithmetic as overhead/model.c and report/overhead.c

def _rank(t):
    return TYPE_ORDER.index(t) if t in TYPE_ORDER else len(TYPE_ORDER)


def _sorted_keys():
    return sorted(costs, key=lambda k: (k[0], _rank(k[1]), k[1], k[2], k[3]))


def _cpus():
    """Per CPU (>= 0): wall time, basis, overhead, as prec report derives them."""
    out = {}
    for cpu in sorted({k[0] for k in costs if k[0] >= 0} | set(samples)):
        spans = {}
        d = {"cpu": cpu, "samples": samples.get(cpu, 0), "handler_nr": 0, "handler_ns": 0,
             "stolen_nr": 0, "stolen_ns": 0, "mux_ns": 0, "sideband_ns": 0,
             "aggregate_ns": 0, "have_aggregate": False, "have_stolen": False,
             "have_handler": False, "have_any": False,
             "stolen_reason": None, "lower_bound": False}
        for k, c in costs.items():
            if k[0] != cpu:
                continue
            t = k[1] if k[1] in SPAN_TYPES else "other"
            spans[t] = spans.get(t, 0) + c["span_ns"]
            if k[3] == UNAVAILABLE:
                if k[1] == "stolen" and d["stolen_reason"] is None:
                    d["stolen_reason"] = c["reason"]
                continue
            if k[1] == "sample":
                d["have_handler"] = True
                d["handler_nr"] += c["nr"]
                d["handler_ns"] += c["time_ns"]
                # The collector dropped records: handler runs it never saw.
                if k[3] == ESTIMATED:
                    d["lower_bound"] = True
            elif k[1] == "stolen":
                d["have_stolen"] = True
                d["stolen_nr"] += c["nr"]
                d["stolen_ns"] += c["time_ns"]
            elif k[1] == "mux":
                d["have_any"] = True
                d["mux_ns"] += c["time_ns"]
            elif k[1] == "sideband":
                d["have_any"] = True
                d["sideband_ns"] += c["time_ns"]
            elif k[1] == "aggregate":
                # the in-kernel aggregation runs on top of what the calibration measured
                d["have_any"] = d["have_aggregate"] = True
                d["aggregate_ns"] += c["time_ns"]
        d["wall_ns"] = max(spans.values()) if spans else 0
        d["wall_source"] = "spans" if d["wall_ns"] else "none"
        if d["have_stolen"]:
            d["basis"], d["basis_ns"] = "stolen", d["stolen_ns"]
        elif d["have_handler"]:
            d["basis"], d["basis_ns"] = "handler", d["handler_ns"]
            if d["stolen_reason"] is not None:
                d["basis_note"] = "stolen time not calibrated: %s" % (
                    d["stolen_reason"] or "no reason recorded")
            else:
                d["basis_note"] = "no stolen-time figure recorded"
        else:
            d["basis"], d["basis_ns"] = "none", 0
        d["overhead_ns"] = d["basis_ns"] + d["mux_ns"] + d["sideband_ns"] + d["aggregate_ns"]
        d["overhead_pct"] = None
        if d["wall_ns"] and (d["basis"] != "none" or d["have_any"]):
            d["overhead_pct"] = 100.0 * d["overhead_ns"] / d["wall_ns"]
        out[cpu] = d
    return out


def _session_wall(cpus):
    wall = max([d["wall_ns"] for d in cpus.values()] or [0])
    if not wall:
        wall = max([c["span_ns"] for k, c in costs.items() if k[0] < 0] or [0])
    return wall


def _worst(cpus):
    worst = None
    for cpu in sorted(cpus):
        d = cpus[cpu]
        if d["overhead_pct"] is not None and (worst is None or
                                              d["overhead_pct"] > worst["overhead_pct"]):
            worst = d
    return worst


def _totals():
    t = {}
    for k, c in costs.items():
        if k[0] < 0 or k[3] == UNAVAILABLE:
            continue
        e = t.setdefault(k[1], {"type": k[1], "nr": 0, "time_ns": 0, "estimated": False})
        e["nr"] += c["nr"]
        e["time_ns"] += c["time_ns"]
        e["estimated"] = e["estimated"] or k[3] == 1
    return [t[x] for x in sorted(t, key=lambda x: (_rank(x), x))]


def _wall_of(cpu, cpus, session):
    return session if cpu < 0 else cpus[cpu]["wall_ns"] if cpu in cpus else 0


def fmt_ns(ns):
    if math.isnan(ns):
        return "-"
    if ns < 0:
        return "-" + fmt_ns(-ns)
    if ns < 1e3:
        return "%.0f ns" % ns
    if ns < 1e6:
        return "%.1f us" % (ns / 1e3)
    if ns < 1e9:
        return "%.2f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def _pct_text(p):
    return " %8s" % "-" if p is None else " %7.2f%%" % p


def _row(k, c, wall):
    status = STATUS.get(k[3], "unknown")
    line = "%5d  %-9s" % (k[0], k[1])
    if k[3] == UNAVAILABLE:
        return line + " %12s %12s %10s %8s  %-12s %s" % ("-", "-", "-", "-", k[2],
                                                       "unavailable (see below)")
    line += " %12d %12s %10s" % (c["nr"], fmt_ns(c["time_ns"]),
                                 fmt_ns(c["time_ns"] / c["nr"]) if c["nr"] else "-")
    if k[1] == "lost":
        line += " %8s" % "-"
    else:
        line += _pct_text(100.0 * c["time_ns"] / wall if wall else None)
    line += "  %-12s %s" % (k[2], status)
    if k[1] == "stolen":
        line += " (includes the handler time)"
    elif k[1] == "throttle":
        line += " (time without samples, not a cost)"
    elif k[0] < 0 and k[1] == "recorder":
        line += " (of one CPU)"
    elif k[1] == "aggregate":
        line += " (in-kernel aggregation, on top of the stolen time)"
    return line


def _basis_words(w):
    if w["basis"] == "stolen":
        return "the calibrated stolen time"
    if w["basis"] != "handler":
        return "no sampling figure"
    if w["lower_bound"]:
        return "the handler time only, a lower bound: the collector dropped records"
    return "the measured handler time only"


def _total_row(d):
    line = "%5d  %-9s %12s %12s %10s" % (d["cpu"], "=overhead", "", fmt_ns(d["overhead_ns"]), "")
    line += _pct_text(d["overhead_pct"])
    agg = " + aggregate" if d["have_aggregate"] else ""
    if d["basis"] == "stolen":
        return line + "  stolen + mux + sideband" + agg
    if d["basis"] == "handler":
        return line + "  handler%s + mux + sideband%s (%s)" % (
            " (a lower bound: the collector dropped records)" if d["lower_bound"] else "",
            agg, d["basis_note"])
    return line + "  mux + sideband%s (no sampling figure)" % agg


def print_text():
    cpus = _cpus()
    session = _session_wall(cpus)
    print("# prec-overhead.py: what profiling cost, from %d prec:overhead records" % records)
    print("#")
    if not costs:
        print("# no prec:overhead records: the file was not recorded by prec record with "
              "overhead collection")
        return
    print("#%4s  %-9s %12s %12s %10s %8s  %-12s %s" % ("CPU", "type", "count", "total",
                                                      "avg/event", "share", "source", "status"))
    keys = _sorted_keys()
    for i, k in enumerate(keys):
        print(_row(k, costs[k], _wall_of(k[0], cpus, session)))
        last = i + 1 == len(keys) or keys[i + 1][0] != k[0]
        if last and k[0] >= 0 and cpus[k[0]]["overhead_pct"] is not None:
            print(_total_row(cpus[k[0]]))
    print("#")
    tot = _totals()
    if tot:
        print("# totals over the CPUs:")
        for e in tot:
            print("#   %-9s %12d %12s%s" % (e["type"], e["nr"],
                                           "-" if e["type"] == "lost" else fmt_ns(e["time_ns"]),
                                           "  (estimated)" if e["estimated"] else ""))
    ov = sum(d["overhead_ns"] for d in cpus.values() if d["overhead_pct"] is not None)
    ct = sum(d["wall_ns"] for d in cpus.values() if d["overhead_pct"] is not None)
    if ct:
        print("#   overhead  %s over %s of CPU time: %.2f%%" % (fmt_ns(ov), fmt_ns(ct),
                                                             100.0 * ov / ct))
    w = _worst(cpus)
    if w:
        print("# worst CPU: %d, %.2f%% of its time (%s over %s; sampling cost from %s)" % (
            w["cpu"], w["overhead_pct"], fmt_ns(w["overhead_ns"]), fmt_ns(w["wall_ns"]),
            _basis_words(w)))
    else:
        print("# worst CPU: unknown (no CPU has both a cost and a wall time)")
    print("#")
    seen = set()
    for k in keys:
        if k[3] != UNAVAILABLE or (k[1], costs[k]["reason"]) in seen:
            continue
        if not seen:
            print("# unavailable (never counted as zero):")
        seen.add((k[1], costs[k]["reason"]))
        same = [x[0] for x in keys if x[3] == UNAVAILABLE and x[1] == k[1] and
                costs[x]["reason"] == costs[k]["reason"]]
        print("#   %s on CPU %s: %s" % (k[1], ",".join(str(x) for x in same),
                                       costs[k]["reason"] or "no reason recorded"))
    if seen:
        print("#")


def _r4(x):
    return None if x is None or not math.isfinite(x) or x < 0 else round(x, 4)


def _r3(x):
    return None if x is None or not math.isfinite(x) or x < 0 else round(x, 3)


def print_json():
    cpus = _cpus()
    session = _session_wall(cpus)

    def cost(k):
        c = costs[k]
        unav = k[3] == UNAVAILABLE
        wall = _wall_of(k[0], cpus, session)
        return {"type": k[1], "nr": c["nr"], "time_ns": c["time_ns"], "span_ns": c["span_ns"],
                "avg_ns": _r3(c["time_ns"] / c["nr"]) if c["nr"] and not unav else None,
                "pct": _r4(100.0 * c["time_ns"] / wall)
                if wall and not unav and k[1] != "lost" else None,
                "source": k[2], "status": STATUS.get(k[3], "unknown"),
                "estimated": k[3] == 1, "unavailable": unav, "reason": c["reason"]}

    keys = _sorted_keys()
    out_cpus = []
    if any(k[0] < 0 for k in keys):
        out_cpus.append({"cpu": -1, "wall_ns": session,
                         "costs": [cost(k) for k in keys if k[0] < 0]})
    for cpu in sorted(cpus):
        d = cpus[cpu]
        out_cpus.append({"cpu": cpu, "wall_ns": d["wall_ns"], "wall_source": d["wall_source"],
                         "samples": d["samples"], "basis": d["basis"],
                         "basis_note": d.get("basis_note", ""),
                         "sampling_ns": d["basis_ns"], "mux_ns": d["mux_ns"],
                         "sideband_ns": d["sideband_ns"], "aggregate_ns": d["aggregate_ns"],
                         "overhead_ns": d["overhead_ns"],
                         "overhead_pct": _r4(d["overhead_pct"]),
                         "costs": [cost(k) for k in keys if k[0] == cpu]})
    ov = sum(d["overhead_ns"] for d in cpus.values() if d["overhead_pct"] is not None)
    ct = sum(d["wall_ns"] for d in cpus.values() if d["overhead_pct"] is not None)
    w = _worst(cpus)
    doc = {"overhead_records": records,
           "wall_ns": session,
           "cpus": out_cpus,
           "totals": {"costs": _totals(), "overhead_ns": ov, "cpu_time_ns": ct,
                      "overhead_pct": _r4(100.0 * ov / ct) if ct else None},
           "worst_cpu": {"cpu": w["cpu"], "overhead_pct": _r4(w["overhead_pct"]),
                         "overhead_ns": w["overhead_ns"], "wall_ns": w["wall_ns"],
                         "basis": w["basis"]} if w else None,
           "unavailable": [{"cpu": k[0], "type": k[1], "source": k[2],
                            "reason": costs[k]["reason"]} for k in keys if k[3] == UNAVAILABLE]}
    print(json.dumps(doc, indent=2))


def trace_end():
    try:
        if "--json" in sys.argv[1:] or "json" in sys.argv[1:]:
            print_json()
        else:
            print_text()
    except Exception as e:  # noqa: BLE001
        _note("trace_end: %r" % (e,))
    for e in errors:
        sys.stderr.write("prec-overhead.py: %s\n" % e)
