"""Run by tests/run_contained.py (test contained.an_orphan_that_exits_is_reaped_at_once): a
process this test orphans (its parent exits first, so the runner, a child subreaper, adopts it)
and that then exits must be gone from /proc while the test still runs, not left a zombie of the
runner until the test ends. Exit 0 when it is gone within 5 s, 1 when it is still there.
"""
import os
import sys
import time

WAIT_S = 5.0


def state_of(pid):
    """The process's state letter (Z: a zombie), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def orphan_that_exits():
    """Forks a child that forks the orphan and exits; the orphan waits until its parent is gone
    (it then belongs to the runner), then exits. Returns the orphan's PID."""
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(read_end)
        parent = os.getpid()
        orphan = os.fork()
        if orphan == 0:
            os.close(write_end)
            while os.getppid() == parent:
                time.sleep(0.01)
            os._exit(0)
        os.write(write_end, str(orphan).encode())
        os._exit(0)
    os.close(write_end)
    orphan = int(os.read(read_end, 32).decode())
    os.close(read_end)
    os.waitpid(middle, 0)
    return orphan


def main():
    runner = os.getppid()
    orphan = orphan_that_exits()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        state = state_of(orphan)
        if state is None:
            print(f"the orphan {orphan} was reaped while the test ran")
            return 0
        time.sleep(0.02)
    print(f"the orphan {orphan} is still in /proc after {WAIT_S:g} s (state {state_of(orphan)}),"
          f" a child of the runner {runner} left unreaped", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
