#!/usr/bin/python3
"""The example Python worker (examples/python_worker/) with one way of breaking the protocol,
chosen by --mode, for worker-check to catch:

  result-after-close: when the stream is half-closed (or cancelled) while a window runs, stop
                      the load but still send that window's result (the protocol wants none).
  no-ready:           never answer a Run stream's spec: no Ready, no end, until it is cancelled.

Every other rule it keeps, so worker-check fails only the rule the mode breaks."""
import argparse
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "python_worker"))
import worker as example  # noqa: E402  pylint: disable=wrong-import-position


class ResultAfterClose(example.Service):
    def closed_mid_window(self, workload, inbox):
        workload.close()  # the load stops at once, as it should...
        while True:  # ...and then the window's result is sent all the same
            item = inbox.get()
            if isinstance(item, str):
                return
            if isinstance(item, example.pb.RunEvent) and item.HasField("result"):
                yield item
                return


class NoReady(example.Service):
    def run(self, commands, context):
        next(commands, None)
        while context.is_active():  # the stream stays open; the server's stop cancels it
            time.sleep(0.05)
        yield from ()


MODES = {"result-after-close": ResultAfterClose, "no-ready": NoReady}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=sorted(MODES), required=True)
    args, rest = parser.parse_known_args()
    example.Service = MODES[args.mode]  # serve() makes its service from this name
    sys.argv = [sys.argv[0]] + rest
    return example.main()


if __name__ == "__main__":
    sys.exit(main())
