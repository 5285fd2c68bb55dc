"""The router's HTTP/2 server (h2c with prior knowledge on its HTTP port) end to end.

- The real orchestrator, bundled router and worker with `protocol = "http2"`: zero errors,
  the router's request counts equal the worker's, and a workload that asks for more streams
  than the router's SETTINGS_MAX_CONCURRENT_STREAMS (100 by default) runs with exactly that.
- Interop: independent clients against the real router binary, each printing an INTEROP| row
  (peer, TLS version, ALPN, result): h2load (-m 10), curl --http2-prior-knowledge, nghttp
  (nghttp2-client) and Python's hyper-h2 (python3-h2). A failure is a test failure.
- Defences (h2_defences, which test_router_http2_tls runs over TLS too), driven by python3-h2
  and raw frames: streams over the limit refused (RST_STREAM REFUSED_STREAM), rapid reset
  (CVE-2023-44487) answered with GOAWAY ENHANCE_YOUR_CALM, a CONTINUATION flood, an oversize
  header block and an HPACK bomb closed, an idle connection closed with GOAWAY, the client's
  flow-control window kept to, a window overflowed past 2^31-1 (a stream's: RST_STREAM, the
  connection's: GOAWAY FLOW_CONTROL_ERROR); each counted in the router's Prometheus metrics,
  the router serving a new connection after each; a client that ends its side (TCP FIN)
  still gets the answers it is owed, then the router closes.
Loopback only; every wait is bounded; counts are exact, nothing is timed."""
import os
import shutil
import socket
import subprocess
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario
from h2_defences import DATA, END_STREAM, HEADERS, Http2DefenceChecks, client, h2, read_frames, \
    request
from test_router_limits import Router

H2LOAD = shutil.which("h2load")
CURL = shutil.which("curl")
NGHTTP = shutil.which("nghttp")

BUNDLED = """
name = "router_h2c"
[router]
threads = 1
[defaults]
warmup = "0s"
duration = "500ms"
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
                # Every request due in the window was answered and counted by both: 200/s x
                # 0.5 s.
                self.assertEqual(rep["operations"], 100)
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
class RouterHttp2Defences(Http2DefenceChecks, unittest.TestCase):
    """The defences of h2_defences over h2c with prior knowledge."""

    def start_router(self, *flags):
        router = Router(*flags)
        self.addCleanup(router.stop)
        return router

    def connect(self):
        return self.router.connect()

    def test_a_client_that_ends_its_side_still_gets_the_answers_it_is_owed(self):
        # The preface, SETTINGS and two requests in one write, then the client's FIN, nothing
        # read before: the answer due now and the delayed one both come (the delayed one after
        # the router read the end), then the router closes.
        sock = self.connect()
        self.addCleanup(sock.close)
        conn = client()
        conn.send_headers(1, self.request("/bench/delay/200"), end_stream=True)
        conn.send_headers(3, self.request("/bench/hello"), end_stream=True)
        sock.sendall(conn.data_to_send())
        sock.shutdown(socket.SHUT_WR)
        frames, end = read_frames(sock)
        ended = sorted(f[2] for f in frames if f[0] in (DATA, HEADERS) and f[1] & END_STREAM)
        self.assertEqual(ended, [1, 3], frames)
        self.assertEqual(end, "closed")
        self.assert_still_serving()

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


if __name__ == "__main__":
    unittest.main()
