#!/usr/bin/python3
"""A benchgate worker in Python: serves benchgate.v1.Worker and runs closed-loop HTTP/1.1 load.

An example of a third-party worker (docs/WORKER_PROTOCOL.md): started with
`--listen HOST:PORT`, prints `READY grpc=HOST:PORT` once it serves, exits on SIGTERM. The
message classes are generated at start-up with `protoc --python_out` from the repository's
.proto files; the service is registered with grpc's generic handlers, so no gRPC code
generator is needed (Debian's python3-grpcio and python3-protobuf are enough).
"""
import argparse
import atexit
import os
import queue
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hdr_v2  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO_DIR = os.path.join(HERE, "..", "..", "proto")


def load_messages(proto_dir):
    """Generates the message modules into a temporary folder and imports them."""
    out = tempfile.mkdtemp(prefix="benchgate-pyworker-")
    atexit.register(shutil.rmtree, out, True)
    files = ["benchgate/v1/worker.proto", "benchgate/v1/histogram.proto"]
    subprocess.run(["protoc", "-I", proto_dir, "--python_out", out] + files, check=True)
    sys.path.insert(0, out)
    # pylint: disable=import-outside-toplevel
    from benchgate.v1 import histogram_pb2, worker_pb2
    worker_pb2.Histogram = histogram_pb2.Histogram  # one namespace for both files' messages
    return worker_pb2


pb = None  # the generated module, set in main()


def body_pattern(n):
    return bytes(ord("a") + i % 26 for i in range(n))


def now_ns():
    return time.time_ns()


def cpu_ns():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return int(usage.ru_utime * 1e9), int(usage.ru_stime * 1e9)


class Failure(Exception):
    """A failed operation or connection, with its error kind."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


class Connection:
    """One keep-alive HTTP/1.1 connection: send a request, read one response."""

    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _fill(self):
        try:
            data = self.sock.recv(65536)
        except socket.timeout as e:
            raise Failure("timeout") from e
        except OSError as e:
            raise Failure("reset") from e
        if not data:
            raise Failure("short_read")
        self.buffer += data
        return len(data)

    def read_response(self):
        """Returns (status, body, wire bytes)."""
        received = 0
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(self.buffer) > 65536:
                raise Failure("protocol")
            received += self._fill()
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        parts = head[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise Failure("protocol")
        status = int(parts[1])
        length = None
        for line in head[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "transfer-encoding":
                raise Failure("protocol")
        if length is None or status < 200:
            raise Failure("protocol")
        total = end + 4 + length
        while len(self.buffer) < total:
            received += self._fill()
        body = bytes(self.buffer[end + 4:total])
        del self.buffer[:total]
        return status, body, total


class WindowStats:
    """What the load threads of one window report, under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.operations = 0
        self.successes = 0
        self.errors = {}
        self.bytes_sent = 0
        self.bytes_received = 0
        self.first_send = 0
        self.last_receive = 0
        # What completed before the window's end (docs/MEASUREMENT.md "Throughput").
        self.window_successes = 0
        self.window_bytes_received = 0
        self.window_payload_bytes = 0
        self.latency = hdr_v2.Histogram()
        # Since the last progress event.
        self.interval_ops = 0
        self.interval_errors = 0
        self.interval_latency = hdr_v2.Histogram()

    def error(self, kind, operation=True):
        with self.lock:
            self.errors[kind] = self.errors.get(kind, 0) + 1
            if operation:
                self.operations += 1
                self.interval_ops += 1
            self.interval_errors += 1

    def take_interval(self):
        with self.lock:
            out = (self.interval_ops, self.interval_errors, self.interval_latency)
            self.interval_ops, self.interval_errors = 0, 0
            self.interval_latency = hdr_v2.Histogram()
            return out


class Workload:
    """The connections of one Run stream and how to run a window on them."""

    def __init__(self, spec):
        self.spec = spec
        host, _, port = spec.address.rpartition(":")
        self.host, self.port = host.strip("[]"), int(port)
        http = spec.http
        method = http.method or "GET"
        target = http.target or "/"
        self.body = body_pattern(http.request_body_bytes)
        headers = {"Host": http.host or spec.address}
        headers.update(dict(http.headers))
        lines = [f"{method} {target} HTTP/1.1"]
        lines += [f"{k}: {v}" for k, v in sorted(headers.items())]
        if self.body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(self.body)}")
        self.request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body
        self.expect_status = http.expect_status or 200
        self.expect_length = (http.expect_body_bytes
                              if http.HasField("expect_body_bytes") else -1)
        self.expect_echo = http.expect_echo
        self.connect_timeout = (spec.connect_timeout_ns or 10_000_000_000) / 1e9
        self.drain_timeout = (spec.drain_timeout_ns or 5_000_000_000) / 1e9
        self.in_flight = max(1, spec.in_flight)
        self.connections = []
        self.stop = threading.Event()

    def connect(self):
        deadline = time.monotonic() + self.connect_timeout
        for _ in range(self.spec.connections):
            left = max(0.01, deadline - time.monotonic())
            self.connections.append(Connection(self.host, self.port, left))

    def close(self):
        self.stop.set()
        for connection in self.connections:
            if connection is not None:  # None: failed, reconnected at the next window
                connection.close()

    def check(self, status, body):
        if status != self.expect_status:
            return "status"
        if self.expect_length >= 0 and len(body) != self.expect_length:
            return "length"
        if self.expect_echo and body != self.body:
            return "mismatch"
        return None

    def run_connection(self, index, stats, send_until):
        """Closed loop on one connection: keep in_flight requests outstanding until send_until."""
        connection = self.connections[index]
        if connection is None:
            try:
                connection = Connection(self.host, self.port, self.connect_timeout)
                self.connections[index] = connection
            except OSError:
                stats.error("connect", operation=False)
                return
        outstanding = []
        try:
            connection.sock.settimeout(self.drain_timeout)
            while not self.stop.is_set():
                while len(outstanding) < self.in_flight and time.monotonic() < send_until:
                    started = time.monotonic_ns()
                    connection.sock.sendall(self.request)
                    sent_at = now_ns()
                    with stats.lock:
                        stats.bytes_sent += len(self.request)
                        if not stats.first_send or sent_at < stats.first_send:
                            stats.first_send = sent_at
                    outstanding.append(started)
                if not outstanding:
                    return
                status, body, wire = connection.read_response()
                latency = time.monotonic_ns() - outstanding.pop(0)
                kind = self.check(status, body)
                received_at = now_ns()
                in_window = time.monotonic() < send_until
                with stats.lock:
                    stats.operations += 1
                    stats.interval_ops += 1
                    stats.bytes_received += wire
                    stats.last_receive = max(stats.last_receive, received_at)
                    if in_window:
                        stats.window_bytes_received += wire
                    if kind is None:
                        stats.successes += 1
                        if in_window:
                            stats.window_successes += 1
                            stats.window_payload_bytes += len(body)
                        stats.latency.record(latency)
                        stats.interval_latency.record(latency)
                if kind is not None:
                    stats.error(kind, operation=False)  # already counted as an operation
        except (Failure, OSError) as e:
            kind = e.kind if isinstance(e, Failure) else "reset"
            for _ in outstanding:
                stats.error(kind)
            connection.close()
            self.connections[index] = None  # reconnected at the next window

    def run_window(self, window, events):
        """Runs one window; puts progress events and finally the result on `events`."""
        wait = (window.start_at_unix_ns - now_ns()) / 1e9
        if wait > 0:
            time.sleep(wait)
        started_unix_ns = now_ns()
        start_wall = time.monotonic_ns()
        user0, system0 = cpu_ns()
        send_until = time.monotonic() + window.duration_ns / 1e9
        stats = WindowStats()
        threads = [threading.Thread(target=self.run_connection, args=(i, stats, send_until),
                                    daemon=True) for i in range(len(self.connections))]
        for thread in threads:
            thread.start()
        interval = self.spec.progress_interval_ns / 1e9
        last = time.monotonic_ns()
        while any(thread.is_alive() for thread in threads):
            time.sleep(0.02)
            if interval > 0 and time.monotonic_ns() - last >= self.spec.progress_interval_ns:
                ops, errors, latency = stats.take_interval()
                stamp = time.monotonic_ns()
                events.put(pb.RunEvent(progress=pb.Progress(
                    window=window.index, interval_ns=stamp - last, operations=ops,
                    errors=errors, latency=pb.Histogram(
                        hdr_v2_compressed=latency.encode_compressed()))))
                last = stamp
        user1, system1 = cpu_ns()
        result = pb.WindowResult(
            window=window.index, operations=stats.operations, successes=stats.successes,
            errors=stats.errors, bytes_sent=stats.bytes_sent,
            bytes_received=stats.bytes_received, first_send_unix_ns=stats.first_send,
            last_receive_unix_ns=stats.last_receive,
            latency=pb.Histogram(hdr_v2_compressed=stats.latency.encode_compressed()),
            cpu_user_ns=user1 - user0, cpu_system_ns=system1 - system0,
            # The GIL runs one thread at a time: the load's CPU capacity is one thread, so the
            # orchestrator's process-CPU saturation check (cpu / (wall * threads)) can fire.
            wall_ns=time.monotonic_ns() - start_wall, threads=1,
            in_window=pb.InWindow(successes=stats.window_successes,
                                  bytes_received=stats.window_bytes_received,
                                  payload_bytes=stats.window_payload_bytes),
            started_unix_ns=started_unix_ns)
        events.put(pb.RunEvent(result=result))


def run_window_or_report(workload, window, events):
    """Runs a window; a bug ends the stream with its message instead of a silent hang."""
    try:
        workload.run_window(window, events)
    except Exception as e:  # pylint: disable=broad-except
        events.put(f"window {window.index} failed: {type(e).__name__}: {e}")


def validate(spec):
    """The first violated rule of a spec, or None."""
    if spec.protocol != "http1":
        return f"protocol '{spec.protocol}' is not supported (only http1)"
    if spec.rate > 0:
        return "rate > 0 (open loop) is not supported by this worker"
    if spec.connections < 1:
        return "connections must be at least 1"
    host, sep, port = spec.address.rpartition(":")
    if not sep or not host or not port.isdigit():
        return f"address '{spec.address}' is not HOST:PORT"
    return None


class Service:
    """The Worker service's two methods."""

    def describe(self, request, context):
        return pb.DescribeResponse(name="benchgate-python-worker", version="0.1",
                                   protocols=["http1"], load_models=["closed"],
                                   max_threads=os.cpu_count() or 1)

    def run(self, commands, context):
        first = next(commands, None)
        if first is None:
            return
        if not first.HasField("spec"):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a spec")
        problem = validate(first.spec)
        if problem:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        workload = Workload(first.spec)
        context.add_callback(workload.close)  # cancel or end: stop the load at once
        try:
            workload.connect()
        except OSError as e:
            workload.close()
            context.abort(grpc.StatusCode.UNAVAILABLE,
                          f"cannot connect to {first.spec.address}: {e}")
        try:
            yield pb.RunEvent(ready=pb.Ready(connections=len(workload.connections), threads=1))
            # Commands and the running window's events arrive on one queue, so a WritesDone
            # (or cancel) is noticed while a window runs, not only after its result.
            inbox = queue.Queue()
            threading.Thread(target=read_commands, args=(commands, inbox), daemon=True).start()
            running = False
            while True:
                item = inbox.get()
                if item is None:  # WritesDone or cancel
                    if running:
                        yield from self.closed_mid_window(workload, inbox)
                    return
                if isinstance(item, str):
                    context.abort(grpc.StatusCode.INTERNAL, item)
                if isinstance(item, pb.RunCommand):
                    if not item.HasField("window") or running:
                        context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                      "only window commands may follow the spec, one at a time")
                    running = True
                    threading.Thread(target=run_window_or_report,
                                     args=(workload, item.window, inbox), daemon=True).start()
                    continue
                yield item
                if item.HasField("result"):
                    running = False
        finally:
            workload.close()

    def closed_mid_window(self, workload, inbox):  # pylint: disable=unused-argument
        """The stream was closed while a window ran: stop the load at once (the caller's
        `finally` closes the connections) and send no result for that window. A hook: nothing
        to do here, but tests/e2e/lying_worker.py overrides it to send the result anyway."""
        return iter(())


def read_commands(commands, inbox):
    """Puts each command on `inbox`, then None when the stream is half-closed or cancelled."""
    try:
        for command in commands:
            inbox.put(command)
    except Exception:  # pylint: disable=broad-except
        pass  # a cancelled stream: the same as its end
    inbox.put(None)


def serve(listen):
    service = Service()
    handlers = {
        "Describe": grpc.unary_unary_rpc_method_handler(
            service.describe, request_deserializer=pb.DescribeRequest.FromString,
            response_serializer=pb.DescribeResponse.SerializeToString),
        "Run": grpc.stream_stream_rpc_method_handler(
            service.run, request_deserializer=pb.RunCommand.FromString,
            response_serializer=pb.RunEvent.SerializeToString),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=32))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("benchgate.v1.Worker", handlers),))
    port = server.add_insecure_port(listen)
    if port == 0:
        print(f"cannot listen on {listen}", file=sys.stderr)
        return 1
    server.start()
    host = listen.rpartition(":")[0]
    print(f"READY grpc={host}:{port}", flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    while not stopped.wait(0.2):
        pass
    server.stop(grace=0.5).wait()
    return 0


def main():
    global pb
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT to serve on")
    parser.add_argument("--proto-dir", default=DEFAULT_PROTO_DIR,
                        help="folder holding benchgate/v1/*.proto")
    args = parser.parse_args()
    pb = load_messages(os.path.abspath(args.proto_dir))
    return serve(args.listen)


if __name__ == "__main__":
    sys.exit(main())
