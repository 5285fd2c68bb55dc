#!/usr/bin/python3
"""Small helpers for the bench/*.sh scripts (Python 3 standard library only).

Subcommands:
  free-port                      print a free TCP port on 127.0.0.1
  wait-port PORT SECONDS         wait until 127.0.0.1:PORT accepts a connection
  watchdog PID SECONDS           SIGTERM PID after SECONDS (bounds a whole script)
  cpu PID                        user+system CPU seconds of a live process
  cpu-split PID                  "user system" CPU seconds of a live process (tick-sampled split)
  rss PID                        resident set size of a live process, bytes
  fds PID                        open descriptors of a live process
  stats X...                     "median min max" of numbers
  ratio A B                      A / B, 3 decimals ('-' when B is 0)
  rusage OUT -- CMD...           run CMD, then write "user sys" CPU seconds of it (and its
                                 waited-for children) to OUT; exit with CMD's status
  h2load FILE                    "rps requests" from h2load's output
  wrk FILE                       "rps requests" from wrk's output
  worker-json FILE               "rps operations errors worker_cpu_seconds wall_s flags" of the
                                 single workload/repetition in an orchestrator --json file
  callgrind-total FILE           total instructions (Ir) in a callgrind output file
  callgrind-calls FILE FN...     calls to each function FN recorded in a callgrind output file,
                                 one count per FN, space-separated
  callgrind-calls-prefix FILE P  calls to every function whose name starts with P, summed
  strace-calls FILE [NAME...]    from an `strace -c` summary: the total number of system calls,
                                 then the calls of each NAME (0 when absent), space-separated
  idle-conns PORT N SECONDS OUT [--request PATH]
                                 open N connections to 127.0.0.1:PORT (optionally send one GET
                                 on each and read its answer), write "ready" to OUT, hold them
                                 SECONDS or until stdin closes, then close them
"""

import json
import os
import re
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def wait_port(port, seconds):
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", int(port)), timeout=0.5):
                return 0
        except OSError:
            time.sleep(0.05)
    print(f"bench: nothing accepts on 127.0.0.1:{port} after {seconds}s", file=sys.stderr)
    return 1


def watchdog(pid, seconds):
    # Ends quietly when the script ends first (the trap sends SIGTERM here).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    time.sleep(float(seconds))
    print(f"bench: time limit {seconds}s passed, stopping", file=sys.stderr)
    try:
        os.kill(int(pid), signal.SIGTERM)
    except ProcessLookupError:
        pass
    return 0


def _user_system(pid):
    with open(f"/proc/{pid}/stat") as f:
        # Fields after the command name (which may hold spaces) start at field 3.
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def cpu(pid):
    user, system = _user_system(pid)
    print(f"{user + system:.3f}")


def cpu_split(pid):
    # The kernel splits a process's time into user and system at its clock ticks, so the
    # split is a sample; the sum is what `cpu` prints.
    user, system = _user_system(pid)
    print(f"{user:.3f} {system:.3f}")


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                print(int(line.split()[1]) * 1024)
                return 0
    return 1


def fds(pid):
    print(len(os.listdir(f"/proc/{pid}/fd")))


def stats(values):
    xs = [float(v) for v in values if v not in ("-", "")]
    if not xs:
        print("- - -")
        return
    print(f"{statistics.median(xs):.6g} {min(xs):.6g} {max(xs):.6g}")


def ratio(a, b):
    try:
        print(f"{float(a) / float(b):.3f}")
    except (ValueError, ZeroDivisionError):
        print("-")


def rusage(out, cmd):
    child = subprocess.Popen(cmd)
    # Pass a termination on to the child so nothing outlives the script.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    _, status, usage = os.wait4(child.pid, 0)
    with open(out, "w") as f:
        f.write(f"{usage.ru_utime:.4f} {usage.ru_stime:.4f}\n")
    return os.waitstatus_to_exitcode(status) & 0xFF


def parse_h2load(path):
    text = open(path).read()
    rps = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", text)
    done = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", text)
    if not rps or not done:
        print("- -")
        return 1
    print(f"{float(rps.group(1)):.1f} {done.group(1)}")
    return 0


def parse_wrk(path):
    text = open(path).read()
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    done = re.search(r"(\d+) requests in", text)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if not rps or not done or bad:
        print("- -")
        return 1
    print(f"{float(rps.group(1)):.1f} {done.group(1)}")
    return 0


def worker_json(path):
    doc = json.load(open(path))
    scenario = doc[0] if isinstance(doc, list) else doc
    if "scenarios" in scenario:
        scenario = scenario["scenarios"][0]
    rep = scenario["workloads"][0]["repetitions"][-1]
    flags = ",".join(rep.get("flags") or []) or "-"
    print(f"{rep['ops_per_second']:.1f} {rep['operations']} {rep['errors']} "
          f"{rep['worker_cpu_seconds']:.4f} {rep['duration_ns'] / 1e9:.3f} {flags}")


def callgrind_total(path):
    for line in open(path, errors="replace"):
        if line.startswith(("totals:", "summary:")):
            print(line.split()[1])
            return 0
    return 1


def callgrind_call_counts(path):
    # Calls per callee name in a callgrind file. Function names are compressed: "fn=(7) name"
    # or "cfn=(7) name" the first time, "(7)" after; each "calls=N ..." line counts N calls of
    # the current cfn.
    ids, counts, callee = {}, {}, None
    for line in open(path, errors="replace"):
        if line.startswith(("fn=", "cfn=")):
            key, _, rest = line.partition("=")
            rest = rest.strip()
            if rest.startswith("("):
                ident, _, name = rest[1:].partition(")")
                name = name.strip()
                if name:
                    ids[ident] = name
                name = ids.get(ident, "")
            else:
                name = rest
            if key == "cfn":
                callee = name
        elif line.startswith("calls=") and callee is not None:
            counts[callee] = counts.get(callee, 0) + int(line[6:].split()[0])
    return counts


def callgrind_calls(path, names):
    counts = callgrind_call_counts(path)
    print(" ".join(str(counts.get(n, 0)) for n in names))
    return 0


def callgrind_calls_prefix(path, prefix):
    # As callgrind_calls, summing over the callees whose names start with prefix (a name
    # without its parameter list, whatever the compiler spelled them as), a virtual
    # function's "non-virtual thunk to NAME" included.
    counts = callgrind_call_counts(path)
    print(sum(n for name, n in counts.items()
              if name.removeprefix("non-virtual thunk to ").startswith(prefix)))
    return 0


def strace_calls(path, names):
    total, calls = 0, {}
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) < 5 or not fields[0][0].isdigit():
            continue
        if fields[-1] == "total":
            total = int(fields[3])
        else:
            calls[fields[-1]] = int(fields[3])
    print(" ".join([str(total)] + [str(calls.get(n, 0)) for n in names]))
    return 0


def idle_conns(port, n, seconds, out, request_path=None):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1024), hard))
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        socks.append(s)
    if request_path:
        req = f"GET {request_path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        for s in socks:
            s.sendall(req)
        for s in socks:
            # One small answer per connection: read until the header end and the 12-byte body.
            data = b""
            while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < 12:
                chunk = s.recv(4096)
                if not chunk:
                    raise SystemExit("bench: server closed a connection")
                data += chunk
    with open(out, "w") as f:
        f.write("ready\n")
    # Hold until told (stdin closes) or the bound passes.
    select.select([sys.stdin], [], [], float(seconds))
    for s in socks:
        s.close()
    return 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "free-port":
        return free_port()
    if cmd == "wait-port":
        return wait_port(*args)
    if cmd == "watchdog":
        return watchdog(*args)
    if cmd == "cpu":
        return cpu(args[0])
    if cmd == "cpu-split":
        return cpu_split(args[0])
    if cmd == "rss":
        return rss(args[0])
    if cmd == "fds":
        return fds(args[0])
    if cmd == "stats":
        return stats(args)
    if cmd == "ratio":
        return ratio(*args)
    if cmd == "rusage":
        return rusage(args[0], args[2:] if args[1] == "--" else args[1:])
    if cmd == "h2load":
        return parse_h2load(args[0])
    if cmd == "wrk":
        return parse_wrk(args[0])
    if cmd == "worker-json":
        return worker_json(args[0])
    if cmd == "callgrind-total":
        return callgrind_total(args[0])
    if cmd == "callgrind-calls":
        return callgrind_calls(args[0], args[1:])
    if cmd == "callgrind-calls-prefix":
        return callgrind_calls_prefix(args[0], args[1])
    if cmd == "strace-calls":
        return strace_calls(args[0], args[1:])
    if cmd == "idle-conns":
        path = args[5] if len(args) > 5 and args[4] == "--request" else None
        return idle_conns(int(args[0]), int(args[1]), args[2], args[3], path)
    print(f"unknown subcommand {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
