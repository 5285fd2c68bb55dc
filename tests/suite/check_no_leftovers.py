"""After the test suite: no benchgate process is left on the machine.

A process is ours when its executable lies in the build's bin folder (router, worker,
orchestrator, test helpers) or when its environment carries BENCHGATE_TEST_TAG, which the
end-to-end tests give to everything they start (so tools such as h2load, wrk and nginx that a
test spawned count too), or BENCHGATE_TEST_NAME, which tests/run_contained.py gives to every
process of an e2e or interop test. Registered RUN_SERIAL, so no other test runs beside it;
scripts/test.sh runs it once more after everything else.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run_contained import command_line  # noqa: E402 (the one reader of /proc/PID/cmdline)


def ours(pid, bin_dir):
    """Why the process is a leftover of ours, or None."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        exe = ""
    if exe.startswith(bin_dir + os.sep):
        return f"runs {exe}"
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read().split(b"\0")
    except OSError:
        return None
    for name in (b"BENCHGATE_TEST_TAG", b"BENCHGATE_TEST_NAME"):
        if any(entry.startswith(name + b"=") for entry in environ):
            return "carries " + name.decode()
    return None


def main():
    bin_dir = os.path.realpath(sys.argv[1])
    me = os.getpid()
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (me, os.getppid()):
            continue
        why = ours(int(entry), bin_dir)
        if why:
            left.append(f"  pid {entry} {why}: {command_line(entry)}")
    if left:
        print(f"{len(left)} benchgate process(es) left behind:\n" + "\n".join(left))
        return 1
    print(f"no process runs from {bin_dir} or carries BENCHGATE_TEST_TAG or BENCHGATE_TEST_NAME")
    return 0


if __name__ == "__main__":
    sys.exit(main())
