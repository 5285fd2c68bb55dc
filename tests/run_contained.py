"""Runs one test contained: a $TMPDIR of its own, and no process of it left afterwards.

Usage: run_contained.py NAME COMMAND [ARG...]

- $TMPDIR is a fresh folder of the test's own (/tmp/benchgate-test-NAME-*). End-to-end and
  interop tests make scratch folders (Python's tempfile), and the orchestrator keeps its
  children's logs under $TMPDIR when a run fails on purpose (exit code 3); all of that stays
  out of the machine's /tmp. After a test that passed (or skipped: exit code 77, CTest's
  SKIP_RETURN_CODE of the interop tests) the folder is removed; after one that failed it is
  kept and its path printed, so the logs it names can still be read.
- Every process the test starts inherits BENCHGATE_TEST_NAME=NAME. When the test has exited,
  any process still carrying it is a leftover: it is killed (SIGKILL, which also ends a
  process left stopped by SIGSTOP) and named, and the test fails, whatever it reported.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIPPED = 77
MARK = "BENCHGATE_TEST_NAME"


def carrying(mark):
    """PIDs of live processes whose environment holds `mark` (zombies have none)."""
    needle = mark.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def kill_leftovers(mark):
    """Kills every process carrying `mark`; a line naming each one that was found."""
    lines = []
    for pid in carrying(mark):
        lines.append(f"  pid {pid}: {command_line(pid)}")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    while carrying(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    return lines


def main():
    if len(sys.argv) < 3:
        print("usage: run_contained.py NAME COMMAND [ARG...]", file=sys.stderr)
        return 2
    name, command = sys.argv[1], sys.argv[2:]
    folder = tempfile.mkdtemp(prefix=f"benchgate-test-{name}-")
    mark = f"{MARK}={name}"
    child = subprocess.Popen(command, env=dict(os.environ, TMPDIR=folder, **{MARK: name}))

    # Ctrl-C reaches the child through the terminal's process group; wait for it to finish
    # and clean up after it. A SIGTERM sent to this process alone is passed on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    status = child.wait()
    if status < 0:
        status = 128 - status

    left = kill_leftovers(mark)
    if left:
        print(f"run_contained: {name} left {len(left)} process(es) behind, now killed:\n" +
              "\n".join(left), file=sys.stderr)
        if status in (0, SKIPPED):
            status = 1

    if status in (0, SKIPPED):
        shutil.rmtree(folder, ignore_errors=True)
    else:
        print(f"run_contained: {name} failed; its $TMPDIR is kept: {folder}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
