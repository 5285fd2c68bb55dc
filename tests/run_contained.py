"""Runs one test contained: a $TMPDIR of its own, and no process of it left afterwards.

Usage: run_contained.py [--timeout SECONDS] NAME COMMAND [ARG...]

- $TMPDIR is a fresh folder of the test's own (/tmp/benchgate-test-NAME-*). End-to-end and
  interop tests make scratch folders (Python's tempfile), and the orchestrator keeps its
  children's logs under $TMPDIR when a run fails on purpose (exit code 3); all of that stays
  out of the machine's /tmp. After a test that passed (or skipped: exit code 77, CTest's
  SKIP_RETURN_CODE of the interop tests) the folder is removed; after one that failed it is
  kept and its path printed, so the logs it names can still be read.
- No process of the test outlives it. This runner is a child subreaper (prctl
  PR_SET_CHILD_SUBREAPER): whatever the test starts and leaves behind, daemons included, is
  re-parented to it rather than to init, and reaped as soon as it exits (no zombie of it stays
  while the test runs). Every process the test starts also inherits
  BENCHGATE_TEST_NAME=NAME:PID (this runner's PID: two runs of one test never take each
  other's processes), which finds what was started through another process tree. When the
  test has exited, what is left gets 2 s to end by itself (a process still shutting down is not
  a leftover); then it is killed (SIGKILL, which also ends a process left stopped by SIGSTOP)
  and named, and the test fails, whatever it reported.
- --timeout: past it the test is killed (exit 124) and cleaned up the same way. Give it a
  little less than CTest's TIMEOUT, which would kill this runner without a word.
"""
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIPPED = 77
TIMED_OUT = 124
MARK = "BENCHGATE_TEST_NAME"
PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 2.0
REAP_POLL_S = 0.02


def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            # pid (comm) state ppid ...: comm may hold spaces and parentheses.
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def carries(pid, needle):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return needle in f.read().split(b"\0")
    except OSError:
        return False


def leftovers(mark):
    """Live processes of the test: adopted by this runner, or carrying `mark` (zombies carry
    nothing and are reaped)."""
    reap()
    me, needle = os.getpid(), mark.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        if parent_of(pid) == me or carries(pid, needle):
            found.append(pid)
    return found


def reap():
    """Collects every child of this runner that has exited."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait_reaping(child, timeout_s):
    """Waits up to timeout_s (None: no limit) for the test's own process; its exit status, or
    None past the limit. Meanwhile every other child of this runner that exits is reaped at
    once: an orphan the runner adopted would otherwise stay a zombie until the test ends, and a
    zombie still has its PID and /proc entry, so a test waiting for a process it stopped to be
    gone (os.kill(pid, 0), /proc/PID) would wait to its own deadline."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while child.returncode is None:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # reaped already (Popen.poll, by a signal passed on)
            pid = 0
        if pid == child.pid:
            child.returncode = os.waitstatus_to_exitcode(status)
        elif pid == 0:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(REAP_POLL_S)
    return child.returncode


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def clean_up(mark):
    """Waits GRACE_S for the test's processes to end, then kills those left until none is;
    a line naming each one killed."""
    deadline = time.monotonic() + GRACE_S
    while leftovers(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    named = {}
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = leftovers(mark)
        if not left:
            break
        for pid in left:
            named.setdefault(pid, command_line(pid))
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    reap()
    return [f"  pid {pid}: {line}" for pid, line in named.items()]


def main():
    args = sys.argv[1:]
    timeout_s = None
    if args[:1] == ["--timeout"] and len(args) >= 2:
        timeout_s = float(args[1])
        args = args[2:]
    if len(args) < 2:
        print("usage: run_contained.py [--timeout SECONDS] NAME COMMAND [ARG...]",
              file=sys.stderr)
        return 2
    name, command = args[0], args[1:]
    mark = f"{MARK}={name}:{os.getpid()}"
    become_subreaper()

    # Ctrl-C reaches the test through the terminal's process group: wait for it to finish and
    # clean up after it. A SIGTERM or SIGHUP sent to this runner alone is passed on.
    child = None

    def pass_on(signum, frame):
        if child is not None:
            child.send_signal(signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, pass_on)
    signal.signal(signal.SIGHUP, pass_on)

    folder = tempfile.mkdtemp(prefix=f"benchgate-test-{name}-")
    try:
        child = subprocess.Popen(command, env=dict(os.environ, TMPDIR=folder,
                                                   **{MARK: mark.split("=", 1)[1]}))
    except OSError as e:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"run_contained: cannot start {command[0]}: {e}", file=sys.stderr)
        return 2
    status = wait_reaping(child, timeout_s)
    if status is None:
        print(f"run_contained: {name} ran past {timeout_s:g} s; killed", file=sys.stderr)
        child.kill()
        wait_reaping(child, None)
        status = TIMED_OUT
    if status < 0:
        status = 128 - status

    left = clean_up(mark)
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
