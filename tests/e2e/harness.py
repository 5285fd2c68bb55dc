"""Helpers for end-to-end tests: run the real orchestrator binary, find leftover processes.

Every process a test starts inherits BENCHGATE_TEST_TAG; after the test, no process on the
machine may still carry that tag ("nothing left behind").
"""
import atexit
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import uuid

BIN = os.environ.get("BENCHGATE_BIN", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ORCHESTRATOR = os.path.join(BIN, "orchestrator")

# Where a Run without its own cwd works, so that default files (./benchgate.db) never land in
# the source tree.
SCRATCH = tempfile.mkdtemp(prefix="benchgate-e2e-")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)

# One file whose byte N is locked (a POSIX record lock) by the test process that holds port N;
# the locks go with the process, and are lost if it closes any descriptor of the file, so the
# one opened here stays open. The file stays behind, empty: removed, two processes could lock
# one byte of two files. A process may lock a byte it holds again: the ports it was handed
# are kept apart.
_PORTS_HANDED = set()


def _ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(word) for word in f.read().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def _free_everywhere(port):
    # Both wildcards: a listener on any local address holds the port for serve too.
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            check = socket.socket(family)
        except OSError:
            continue  # no IPv6 here
        with check:
            if family == socket.AF_INET6:
                check.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                check.bind((host, port))
            except OSError:
                return False
    return True


def unallocated_port(hold=False):
    """A loopback port that no concurrent test is handed while this one uses it.

    A port from bind(("127.0.0.1", 0)), closed again, is free only for a moment: the kernel
    hands its ephemeral range to every bind(0) and outgoing connection of the tests running
    beside this one, and ${port:NAME} draws from 10000-65535 outside that range
    (orchestrator/scenario/free_port.h). This port is drawn from 1024-9999 outside the
    ephemeral range, which neither hands out (where the range leaves none there, from
    1024-65535 outside it), checked free on every address, and never handed out twice by this
    process. (No lock across tests: each test runs with a $TMPDIR of its own,
    tests/run_contained.py, and only tests that run one at a time call this.) hold=True
    returns a socket bound to it on
    127.0.0.1 and not listening instead: while it is open nothing else binds the port on an
    IPv4 address, and a connection to 127.0.0.1 there is refused."""
    low, high = _ephemeral_range()
    candidates = [p for p in range(1024, 10000) if not low <= p <= high]
    if not candidates:
        candidates = [p for p in range(1024, 65536) if not low <= p <= high]
    random.shuffle(candidates)
    candidates = [p for p in candidates if p not in _PORTS_HANDED]
    for port in candidates[:256]:
        _PORTS_HANDED.add(port)  # handed out, or found in use: not tried again
        if not _free_everywhere(port):
            continue
        if not hold:
            return port
        held = socket.socket()
        held.bind(("127.0.0.1", port))
        return held
    raise RuntimeError(f"no free port in 1024-65535 outside the ephemeral range {low}-{high}")


def ws_header(length, opcode=1):
    """A final, masked WebSocket client frame header (RFC 6455 section 5.2; the mask is zero,
    so the payload goes as it is)."""
    if length < 126:
        size = struct.pack("!B", 0x80 | length)
    elif length < 65536:
        size = struct.pack("!BH", 0x80 | 126, length)
    else:
        size = struct.pack("!BQ", 0x80 | 127, length)
    return struct.pack("!B", 0x80 | opcode) + size + b"\0\0\0\0"


def write_scenario(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def tagged_processes(tag):
    """PIDs of live processes whose environment holds the tag (zombies have none)."""
    needle = ("BENCHGATE_TEST_TAG=" + tag).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def process_name(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


class Run:
    """One orchestrator invocation with its own tag and scratch folder."""

    def __init__(self, args, cwd=None):
        self.tag = uuid.uuid4().hex
        self.env = dict(os.environ, BENCHGATE_TEST_TAG=self.tag)
        self.args = [ORCHESTRATOR] + list(args)
        self.cwd = cwd or SCRATCH

    def run(self, timeout=120):
        proc = subprocess.run(self.args, env=self.env, cwd=self.cwd, capture_output=True,
                              text=True, timeout=timeout)
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        return self

    def start(self):
        self.proc = subprocess.Popen(self.args, env=self.env, cwd=self.cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return self

    def wait_for_stderr(self, needle, timeout=60):
        """Reads stderr lines until one contains needle; returns what was read."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if needle in line:
                return "".join(seen)
        raise AssertionError(f"never saw {needle!r} on stderr; got:\n{''.join(seen)}")

    def signal(self, sig):
        self.proc.send_signal(sig)

    def finish(self, timeout=60):
        out, err = self.proc.communicate(timeout=timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        self.returncode, self.stdout, self.stderr = self.proc.returncode, out, err
        return self

    def leftovers(self, wait=5.0):
        """Tagged processes still alive after up to `wait` seconds."""
        deadline = time.monotonic() + wait
        while True:
            left = tagged_processes(self.tag)
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(0.05)

    def result_lines(self):
        lines = [l for l in self.stdout.splitlines() if l.startswith("RESULT|")]
        return [dict(kv.split("=", 1) for kv in l.split("|")[1:]) for l in lines]


def load_json(path):
    with open(path) as f:
        return json.load(f)


def kill_tagged(tag):
    for pid in tagged_processes(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
