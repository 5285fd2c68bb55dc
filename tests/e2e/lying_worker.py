#!/usr/bin/python3
"""The example Python worker (examples/python_worker/) with one way of breaking the protocol,
chosen by --mode, for worker-check to catch:

  result-after-close: when the stream is half-closed (or cancelled) while a window runs, stop
                      the load but still send that window's result (the protocol wants none).
  no-ready:           never answer a Run stream's spec: no Ready, no end, until it is cancelled.
  no-result:          send Ready, then no result for any window, until the stream is cancelled.
  crash-in-window:    exit with status 3 when the first window command comes.
  http2-only:         list only "http2" among Describe's protocols.
  double-result:      send each window's result twice, one right after the other (`run`
                      refuses the second).
  wrong-service:      serve benchgate.v2.Worker instead of benchgate.v1.Worker: Describe is
                      UNIMPLEMENTED.
  wamp-kind:          count one `lost` error (a WAMP kind) in every result of its HTTP/1.1
                      load, beside the errors it counts (which may exceed the failures).

Every other rule it keeps, so worker-check fails only the rule the mode breaks."""
import argparse
import os
import threading
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


class NoResult(example.Service):
    def run(self, commands, context):
        first = next(commands, None)
        yield example.pb.RunEvent(ready=example.pb.Ready(connections=first.spec.connections,
                                                         threads=1))
        # Commands are read (and dropped) so that the stream stays healthy, but no window runs.
        threading.Thread(target=lambda: [None for _ in commands], daemon=True).start()
        while context.is_active():
            time.sleep(0.05)


class CrashInWindow(example.Service):
    def run(self, commands, context):
        first = next(commands, None)
        yield example.pb.RunEvent(ready=example.pb.Ready(connections=first.spec.connections,
                                                         threads=1))
        next(commands, None)
        os._exit(3)  # pylint: disable=protected-access


class Http2Only(example.Service):
    def describe(self, request, context):
        return example.pb.DescribeResponse(name="lying", version="0", protocols=["http2"],
                                           load_models=["closed"])


class DoubleResult(example.Service):
    def run(self, commands, context):
        for event in super().run(commands, context):
            yield event
            if event.HasField("result"):
                yield event


class WampKind(example.Service):
    def run(self, commands, context):
        for event in super().run(commands, context):
            if event.HasField("result"):
                event.result.errors["lost"] += 1
            yield event


def serve_another_service():
    """example.serve, but its handlers registered under benchgate.v2.Worker."""
    register = example.grpc.method_handlers_generic_handler
    example.grpc.method_handlers_generic_handler = (
        lambda _service, handlers: register("benchgate.v2.Worker", handlers))


MODES = {"result-after-close": ResultAfterClose, "no-ready": NoReady, "no-result": NoResult,
         "crash-in-window": CrashInWindow, "http2-only": Http2Only,
         "double-result": DoubleResult, "wrong-service": example.Service,
         "wamp-kind": WampKind}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=sorted(MODES), required=True)
    args, rest = parser.parse_known_args()
    example.Service = MODES[args.mode]  # serve() makes its service from this name
    if args.mode == "wrong-service":
        serve_another_service()
    sys.argv = [sys.argv[0]] + rest
    return example.main()


if __name__ == "__main__":
    sys.exit(main())
