"""The router's HTTP/2 server (h2c with prior knowledge on its HTTP port) end to end.

- The real orchestrator, bundled router and worker with `protocol = "http2"`: zero errors,
  the router's request counts equal the worker's, and a workload that asks for more streams
  than the router's SETTINGS_MAX_CONCURRENT_STREAMS (100 by default) runs with exactly that.
- Interop: independent clients against the real router binary, each printing an INTEROP| row
  (peer, TLS version, ALPN, result): h2load (-m 10), curl --http2-prior-knowledge, nghttp
  (nghttp2-client) and Python's hyper-h2 (python3-h2). A failure is a test failure.
- Defences, driven by python3-h2 and raw frames: streams over the limit refused
  (RST_STREAM REFUSED_STREAM), rapid reset (CVE-2023-44487) answered with GOAWAY
  ENHANCE_YOUR_CALM, a CONTINUATION flood, an oversize header block and an HPACK bomb closed,
  an idle connection closed with GOAWAY; each counted in the router's Prometheus metrics.
Loopback only; every wait is bounded; counts are exact, nothing is timed."""
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario
from test_router_limits import Router

try:
    import h2.config
    import h2.connection
    import h2.events
except ImportError:  # Debian python3-h2 (scripts/install-deps.sh)
    h2 = None

H2LOAD = shutil.which("h2load")
CURL = shutil.which("curl")
NGHTTP = shutil.which("nghttp")

# Frame types and error codes of RFC 9113.
HEADERS, RST_STREAM, GOAWAY, CONTINUATION = 0x1, 0x3, 0x7, 0x9
END_STREAM, END_HEADERS = 0x1, 0x4
NO_ERROR, REFUSED_STREAM, ENHANCE_YOUR_CALM = 0x0, 0x7, 0xB

BUNDLED = """
name = "router_h2c"
[router]
threads = 1
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
workers = 1
threads = 1

[[workloads]]
name = "more_streams_than_allowed"
protocol = "http2"
target = "/bench/hello"
connections = 2
streams = 150

[[workloads]]
name = "open_loop"
protocol = "http2"
target = "/bench/hello"
connections = 2
streams = 4
rate = 200

[[workloads]]
name = "echo"
protocol = "http2"
method = "POST"
target = "/bench/echo"
request_bytes = "3KiB"
connections = 1
streams = 10

[[workloads]]
name = "bytes"
protocol = "http2"
target = "/bench/bytes/40000"
expect_body_bytes = 40000
connections = 1
streams = 8
"""


def interop(peer, result):
    print(f"INTEROP|peer={peer}|tls=-|alpn=h2c|result={result}", flush=True)


def frame(kind, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(
        ">I", stream_id) + payload


def read_frames(sock, timeout=10):
    """Every frame the router sends until it closes (or `timeout` passes without a byte):
    [(type, flags, stream_id, payload)], then 'closed' or 'timeout'."""
    sock.settimeout(timeout)
    buffer, frames = b"", []
    while True:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            return frames, "timeout"
        except ConnectionResetError:
            return frames, "closed"
        if not data:
            return frames, "closed"
        buffer += data
        while len(buffer) >= 9:
            length = int.from_bytes(buffer[:3], "big")
            if len(buffer) < 9 + length:
                break
            stream_id = int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
            frames.append((buffer[3], buffer[4], stream_id, buffer[9:9 + length]))
            buffer = buffer[9 + length:]


def goaway_codes(frames):
    return [int.from_bytes(f[3][4:8], "big") for f in frames if f[0] == GOAWAY]


def client():
    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    return conn


def request(path, method="GET"):
    return [(":method", method), (":scheme", "http"), (":authority", "127.0.0.1"),
            (":path", path)]


class BundledRouterOverHttp2(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-router-h2-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def test_worker_and_router_counts_agree_and_streams_are_capped(self):
        path = write_scenario(self.dir, "s.toml", BUNDLED)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out])
        self.addCleanup(kill_tagged, run.tag)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        for line in lines.values():
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["protocol"], "http2")
        # Asked for 150, the router advertised 100 (--h2-max-concurrent-streams' default).
        self.assertEqual(lines["more_streams_than_allowed"]["streams"], "150")
        self.assertEqual(lines["more_streams_than_allowed"]["effective_streams"], "100")
        self.assertEqual(lines["open_loop"]["effective_streams"], "4")
        self.assertEqual(lines["echo"]["effective_streams"], "10")
        report = load_json(out)
        for workload in report["scenarios"][0]["workloads"]:
            rep = workload["repetitions"][0]
            self.assertEqual(rep["errors"], 0, workload["name"])
            self.assertGreater(rep["successes"], 0, workload["name"])
            router = rep["router"]["requests"]
            if workload["name"] == "open_loop":
                # Every request due in the window was answered and counted by both.
                self.assertEqual(rep["operations"], 200)
                self.assertEqual(router, rep["operations"])
            else:
                # Closed loop: at most the streams open at the window's edges differ.
                params = workload["parameters"]
                bound = params["connections"] * min(int(params.get("streams", 1)), 100)
                self.assertLessEqual(abs(router - rep["operations"]), bound,
                                     f"{workload['name']}: router {router}, worker "
                                     f"{rep['operations']}")


class RouterInterop(unittest.TestCase):
    def setUp(self):
        self.router = Router("--metrics-listen", "127.0.0.1:0")
        self.addCleanup(self.router.stop)
        self.url = f"http://127.0.0.1:{self.router.port}"

    def hello_count(self):
        return self.router.metrics().get(
            'benchgate_router_http_requests_total{route="/bench/hello",status="200"}', 0)

    @unittest.skipUnless(H2LOAD, "needs h2load (nghttp2-client)")
    def test_h2load(self):
        before = self.hello_count()
        proc = subprocess.run([H2LOAD, "-n", "2000", "-c", "2", "-m", "10",
                               self.url + "/bench/hello"],
                              capture_output=True, text=True, timeout=60)
        ok = (proc.returncode == 0 and "2000 succeeded, 0 failed, 0 errored" in proc.stdout
              and "status codes: 2000 2xx" in proc.stdout)
        interop("h2load", "pass" if ok else "fail")
        self.assertTrue(ok, proc.stdout + proc.stderr)
        self.assertEqual(self.hello_count() - before, 2000)
        self.assertEqual(self.router.metrics()["benchgate_router_http2_connections_total"], 2)

    @unittest.skipUnless(CURL, "needs curl")
    def test_curl_prior_knowledge(self):
        proc = subprocess.run([CURL, "-sS", "--http2-prior-knowledge", "-w", "|%{http_version}",
                               self.url + "/bench/hello"],
                              capture_output=True, text=True, timeout=30)
        body = os.urandom(5000)
        echo = subprocess.run([CURL, "-sS", "--http2-prior-knowledge", "--data-binary", "@-",
                               "-H", "content-type: application/octet-stream",
                               self.url + "/bench/echo"],
                              input=body, capture_output=True, timeout=30)
        missing = subprocess.run([CURL, "-sS", "--http2-prior-knowledge", "-o", "/dev/null",
                                  "-w", "%{http_code}", self.url + "/nowhere"],
                                 capture_output=True, text=True, timeout=30)
        ok = (proc.stdout == "Hello, world|2" and echo.stdout == body
              and missing.stdout == "404")
        interop("curl", "pass" if ok else "fail")
        self.assertTrue(ok, (proc.stdout, proc.stderr, len(echo.stdout), missing.stdout))

    @unittest.skipUnless(NGHTTP, "needs nghttp (nghttp2-client)")
    def test_nghttp(self):
        proc = subprocess.run([NGHTTP, self.url + "/bench/bytes/100000"],
                              capture_output=True, timeout=30)
        expected = bytes(ord("a") + i % 26 for i in range(100000))
        verbose = subprocess.run([NGHTTP, "-v", self.url + "/bench/hello"],
                                 capture_output=True, text=True, timeout=30)
        ok = (proc.returncode == 0 and proc.stdout == expected
              and ":status: 200" in verbose.stdout
              and "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):100" in verbose.stdout)
        interop("nghttp", "pass" if ok else "fail")
        self.assertTrue(ok, verbose.stdout[-2000:])

    @unittest.skipUnless(h2, "needs python3-h2")
    def test_hyper_h2(self):
        conn = client()
        body = b"x" * 70000  # over the client's default window: flow control both ways
        conn.send_headers(1, request("/bench/hello"), end_stream=True)
        conn.send_headers(3, request("/bench/echo", "POST"))
        conn.send_headers(5, request("/bench/bytes/20000"), end_stream=True)
        conn.send_headers(7, request("/bench/hello", "DELETE"), end_stream=True)
        got = {1: b"", 3: b"", 5: b"", 7: b""}
        status, ended = {}, set()
        pending = body
        with self.router.connect() as sock:
            sock.sendall(conn.data_to_send())
            sock.settimeout(10)
            while len(ended) < 4:
                while pending:
                    room = min(conn.local_flow_control_window(3), conn.max_outbound_frame_size)
                    if room <= 0:
                        break
                    conn.send_data(3, pending[:room], end_stream=len(pending) <= room)
                    pending = pending[room:]
                sock.sendall(conn.data_to_send())
                data = sock.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        status[event.stream_id] = dict(event.headers)[":status"]
                    elif isinstance(event, h2.events.DataReceived):
                        got[event.stream_id] += event.data
                        conn.acknowledge_received_data(event.flow_controlled_length,
                                                       event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        ended.add(event.stream_id)
                sock.sendall(conn.data_to_send())
        pattern = bytes(ord("a") + i % 26 for i in range(20000))
        ok = (status == {1: "200", 3: "200", 5: "200", 7: "405"} and got[1] == b"Hello, world"
              and got[3] == body and got[5] == pattern
              and got[7] == b"Method Not Allowed\n")
        interop("python3-h2", "pass" if ok else "fail")
        self.assertTrue(ok, (status, {k: len(v) for k, v in got.items()}))


@unittest.skipUnless(h2, "needs python3-h2")
class RouterHttp2Defences(unittest.TestCase):
    def setUp(self):
        self.router = Router("--metrics-listen", "127.0.0.1:0", "--h2-max-concurrent-streams",
                             "10", "--h2-reset-burst", "20", "--h2-reset-rate", "1",
                             "--h2-max-header-list-bytes", "16KiB", "--idle-timeout", "300ms")
        self.addCleanup(self.router.stop)

    def metric(self, name):
        return self.router.metrics().get(name, 0)

    def closes(self, reason):
        return self.metric(f'benchgate_router_http2_defence_closes_total{{reason="{reason}"}}')

    def open(self):
        """A connection with the client preface and SETTINGS sent; (socket, h2 connection)."""
        sock = self.router.connect()
        self.addCleanup(sock.close)
        conn = client()
        sock.sendall(conn.data_to_send())
        return sock, conn

    def test_streams_over_the_limit_are_refused(self):
        sock, conn = self.open()
        # 15 streams before reading anything (so before the router's SETTINGS is acknowledged):
        # 10 run, 5 are refused.
        for i in range(15):
            conn.send_headers(1 + 2 * i, request("/bench/delay/200"), end_stream=True)
        sock.sendall(conn.data_to_send())
        answered, refused = set(), set()
        sock.settimeout(10)
        while len(answered) + len(refused) < 15:
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.StreamEnded):
                    answered.add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    self.assertEqual(event.error_code, REFUSED_STREAM)
                    refused.add(event.stream_id)
            sock.sendall(conn.data_to_send())
        self.assertEqual(sorted(answered), [1 + 2 * i for i in range(10)])
        self.assertEqual(sorted(refused), [21 + 2 * i for i in range(5)])
        self.assertEqual(self.metric("benchgate_router_http2_streams_refused_total"), 5)

    def test_rapid_reset_gets_goaway(self):
        sock, conn = self.open()
        data = b""
        for i in range(100):
            stream_id = 1 + 2 * i
            block = conn.encoder.encode(request("/bench/delay/1000"))
            data += frame(HEADERS, END_STREAM | END_HEADERS, stream_id, block)
            data += frame(RST_STREAM, 0, stream_id, struct.pack(">I", 8))  # CANCEL
        sock.sendall(data)
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [ENHANCE_YOUR_CALM])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes("rapid_reset"), 1)
        # The bucket held 20; the 21st reset (within far less than a second) emptied it.
        self.assertEqual(self.metric("benchgate_router_http2_client_resets_total"), 21)

    def test_continuation_flood_is_closed(self):
        sock, conn = self.open()
        block = conn.encoder.encode(request("/bench/hello"))
        data = frame(HEADERS, END_STREAM, 1, block[:3])
        data += b"".join(frame(CONTINUATION, 0, 1) for _ in range(50))
        sock.sendall(data)
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [ENHANCE_YOUR_CALM])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes("continuation_flood"), 1)

    def test_oversize_header_block_is_closed(self):
        sock, conn = self.open()
        block = conn.encoder.encode(request("/bench/hello") + [("x-big", "b" * 20000)])
        data = frame(HEADERS, END_STREAM, 1, block[:16384])
        data += frame(CONTINUATION, END_HEADERS, 1, block[16384:])
        sock.sendall(data)
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [ENHANCE_YOUR_CALM])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes("header_list"), 1)

    def test_hpack_bomb_is_closed(self):
        sock, conn = self.open()
        # One 3,000-byte field enters the dynamic table, then 100 one-byte references to it:
        # a block of about 3 KB that decodes to about 300 KB.
        first = conn.encoder.encode(request("/bench/hello") + [("x-bomb", "z" * 3000)])
        block = first + bytes([0x80 | 62]) * 100
        self.assertLess(len(block), 16384)
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, block))
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [ENHANCE_YOUR_CALM])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes("header_list"), 1)

    def test_router_stops_with_http2_connections_open(self):
        # Connections mid-request (a delayed answer owed) and idle: SIGTERM still ends the
        # router with status 0, not after the kill of Router.stop's timeout.
        for path in ("/bench/delay/60000", None):
            sock, conn = self.open()
            if path:
                conn.send_headers(1, request(path), end_stream=True)
                sock.sendall(conn.data_to_send())
        self.router.proc.terminate()
        self.assertEqual(self.router.proc.wait(timeout=30), 0)

    def test_idle_connection_gets_goaway(self):
        sock, conn = self.open()
        conn.send_headers(1, request("/bench/hello"), end_stream=True)
        sock.sendall(conn.data_to_send())
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [NO_ERROR])
        self.assertEqual(end, "closed")
        self.assertEqual(self.metric("benchgate_router_http_timeouts_total"), 1)
        self.assertEqual(
            self.metric('benchgate_router_http_requests_total{route="/bench/hello",status="200"}'),
            1)


if __name__ == "__main__":
    unittest.main()
