"""What the benchmarks that compare recorders share: how a recorder's own CPU time is told apart
from its workload's, and how the samples and the samples lost are counted in a perf.data file
(by perf itself, the reference reader).

The scripts in bench/ import it from their own directory:
    sys.path.insert(0, BENCH_DIR); import benchlib
"""
import os
import re
import subprocess
import time

# The workload wrapper: runs its command and writes to a file what it and its command cost
# (user + system seconds), so that the recorder's CPU time is the recorder's tree's minus this.
WRAPPER = """import os, resource, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status = os.waitpid(pid, 0)
s = resource.getrusage(resource.RUSAGE_SELF)
c = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%.9f\\n" % (s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime))
os._exit(os.waitstatus_to_exitcode(status) & 0xff)
"""


def make_wrapper(work):
    """Write the wrapper into the directory work; return its path."""
    path = os.path.join(work, "wrap.py")
    with open(path, "w") as f:
        f.write(WRAPPER)
    return path


def wrapped(wrapper, cpu_file, workload):
    """The command line that runs workload under the wrapper, its cost written to cpu_file."""
    return ["python3", wrapper, cpu_file] + list(workload)


def wait_cpu(p):
    """Wait for the Popen p; return (exit status, user + system seconds of its whole tree)."""
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_utime + ru.ru_stime


def read_cpu(cpu_file):
    """The seconds the wrapper wrote into cpu_file (0.0 when it wrote nothing)."""
    try:
        with open(cpu_file) as f:
            return float(f.read())
    except (OSError, ValueError):
        return 0.0


def stats(path):
    """perf report --stats of the file at path, as text."""
    r = subprocess.run(["perf", "report", "-i", path, "--stats"], capture_output=True, text=True)
    return r.stdout


def count_samples(path, event=None, text=None):
    """SAMPLE records in the file: of event when perf lists it apart (a file of more than one
    event), else of the whole file."""
    s = text if text is not None else stats(path)
    if event:
        m = re.search(r"^%s stats:\n\s*SAMPLE events:\s+(\d+)" % re.escape(event), s, re.M)
        if m:
            return int(m.group(1))
    m = re.search(r"^\s*SAMPLE events:\s+(\d+)", s, re.M)
    return int(m.group(1)) if m else 0


def lost_samples(path, text=None):
    """Samples lost by the recording, from its LOST_SAMPLES records."""
    s = text if text is not None else stats(path)
    # --stats prints the LOST_SAMPLES count twice: once as records, then as samples lost
    vals = re.findall(r"^\s*LOST_SAMPLES events:\s+(\d+)", s, re.M)
    return int(vals[-1]) if vals else 0


def hot3_cpu(text):
    """The CPU seconds of every `hot3 -r` run whose line is in text, summed."""
    return sum(float(x) for x in re.findall(r"^hot3: .* wall, ([0-9.]+) s CPU$", text, re.M))


def run_measured(argv, out=subprocess.DEVNULL):
    """Run argv with its stdout to out and stderr discarded; return (wall seconds, user + system
    seconds, peak resident set in KiB), or raise CalledProcessError when it fails."""
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise subprocess.CalledProcessError(p.returncode, argv)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss
