"""Runs one test command with $TMPDIR set to a fresh folder of its own, then removes the folder.

Usage: with_own_tmpdir.py NAME COMMAND [ARG...]

End-to-end and interop tests make scratch folders (Python's tempfile), and the orchestrator
keeps its children's logs under $TMPDIR when a run fails on purpose (exit code 3). Pointing
$TMPDIR at a folder of the test's own keeps all of that out of the machine's /tmp and out of
the other tests' way. After a test that passed the folder is removed; after one that failed it
is kept and its path printed, so the logs it names can still be read. Exit code 77 is CTest's
"skipped" here (SKIP_RETURN_CODE of the interop tests): nothing failed, the folder goes.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SKIPPED = 77


def main():
    if len(sys.argv) < 3:
        print("usage: with_own_tmpdir.py NAME COMMAND [ARG...]", file=sys.stderr)
        return 2
    name, command = sys.argv[1], sys.argv[2:]
    folder = tempfile.mkdtemp(prefix=f"benchgate-test-{name}-")
    child = subprocess.Popen(command, env=dict(os.environ, TMPDIR=folder))

    # Ctrl-C reaches the child through the terminal's process group; wait for it to finish
    # and clean up after it. A SIGTERM sent to this process alone is passed on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    status = child.wait()

    if status in (0, SKIPPED):
        shutil.rmtree(folder, ignore_errors=True)
        return status
    print(f"with_own_tmpdir: the test failed; its $TMPDIR is kept: {folder}", file=sys.stderr)
    return status if status > 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
