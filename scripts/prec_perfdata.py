# SPDX-License-Identifier: GPL-2.0
# prec_perfdata.py: what prec's scripts for perf script -s read alike: the input file's path
# from perf's own command line, and the pieces of a perf.data file's header they need (the
# attrs' names, the feature sections, EVENT_DESC, prec's facts). perf runs a script with the
# script's directory first on sys.path, so the scripts import this module from beside them,
# in the source tree and where they are installed alike.

import os
import stat
import struct

FEAT_EVENT_DESC = 12
FEAT_PREC = 64  # prec's facts (prec-data(5))

HW = ["cycles", "instructions", "cache-references", "cache-misses", "branches",
      "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
      "ref-cycles"]
SW = ["cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
      "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
      "bpf-output", "cgroup-switches"]


def input_path():
    """The file perf script reads: -i FILE, --input FILE or --input=FILE from perf's command
    line in /proc/self/cmdline (a script's own arguments come after "--"), "-" when standard
    input is a pipe, else perf.data."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0")]
    except OSError:
        argv = []
    for i, a in enumerate(argv):
        if a == "--":
            break
        if a in ("-i", "--input") and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--input="):
            return a[len("--input="):]
        if a.startswith("-i") and not a.startswith("--") and len(a) > 2:
            return a[2:]
    try:
        if stat.S_ISFIFO(os.fstat(0).st_mode):
            return "-"
    except OSError:
        pass
    return "perf.data"


class File:
    """Reads pieces of a file at offsets, without reading it all (it may be large)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.size = os.fstat(self.f.fileno()).st_size

    def read(self, off, n):
        if off < 0 or n < 0 or off + n > self.size:
            raise ValueError("offset %d + %d is past the end of the file" % (off, n))
        self.f.seek(off)
        return self.f.read(n)

    def close(self):
        self.f.close()


def sections(f, feats, d_off, d_size):
    """{feature bit: (offset, size)}: the feature table follows the data section, one entry
    per bit set in the header's bitmap FEATS (four 64-bit words), in bit order."""
    found = {}
    at = d_off + d_size
    for bit in range(256):
        if feats[bit // 64] >> (bit % 64) & 1:
            found[bit] = struct.unpack_from("<2Q", f.read(at, 16))
            at += 16
    return found


def event_desc_names(f, found):
    """The event names of the EVENT_DESC section, in attr order; [] when there is none."""
    if FEAT_EVENT_DESC not in found:
        return []
    s_off, s_size = found[FEAT_EVENT_DESC]
    data = f.read(s_off, s_size)
    nr, asz = struct.unpack_from("<II", data, 0)
    names, p = [], 8
    for _ in range(nr):
        p += asz
        nr_ids, slen = struct.unpack_from("<II", data, p)
        p += 8
        names.append(data[p:p + slen].split(b"\0", 1)[0].decode("utf-8", "replace"))
        p += slen + 8 * nr_ids
    return names


def event_facts(f, found):
    """prec's facts about events, "event.N.FIELD=VALUE", as (N, FIELD, VALUE) with N an int;
    [] when the file has no facts."""
    if FEAT_PREC not in found:
        return []
    s_off, s_size = found[FEAT_PREC]
    text = f.read(s_off, s_size).split(b"\0", 1)[0].decode("utf-8", "replace")
    facts = []
    for line in text.split("\n"):
        key, _, val = line.partition("=")
        parts = key.split(".")
        if len(parts) == 3 and parts[0] == "event" and parts[1].isdigit():
            facts.append((int(parts[1]), parts[2], val))
    return facts
