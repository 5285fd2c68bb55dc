"""The bundled router's TLS listeners end to end, through the real binaries on 127.0.0.1.

- The orchestrator with `[router] tls = true`: it makes the run's CA and certificate, starts the
  router with them and hands the CA to the worker, which verifies the router by default; HTTP/1.1
  over TLS 1.2 and 1.3 with zero errors, the router's request and handshake counts equal to the
  worker's, the version and ALPN in RESULT as the router chose them; the same for
  `protocol = "http2"` (h2 by ALPN) over TLS 1.2 and 1.3.
- Independent peers against the router binary started with a certificate this test makes with the
  openssl command: curl https:// (--cacert), `openssl s_client` (TLS 1.2 and 1.3), Python's ssl
  module for wss and for RawSocket over TLS; for h2 over TLS h2load (-m 10, https://), curl
  --http2 (--cacert), nghttp (https://), `openssl s_client -alpn h2` and Python's hyper-h2
  (python3-h2) over the ssl module; SIGTERM ends the router with h2-over-TLS connections open.
  Each row prints
  `INTEROP|peer|tls version|alpn|result`, the version and ALPN as the peer reports them.
- Defences, each counted exactly in the router's Prometheus metrics: a client that connects and
  sends nothing, and one that sends half a ClientHello, are closed by --tls-handshake-timeout
  (reason timeout); a cleartext request (not_tls), a TLS 1.2 client below --tls-min-version 1.3
  (protocol_version) and an ALPN offer the port does not serve (h3 only: no_application_protocol) fail by
  their reason. Tests wait for a condition (a close, a counter), never for a time.
"""
import json
import os
import re
import shutil
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

from certificates import OPENSSL, make_certificate
from harness import BIN, Run, load_json, write_scenario

try:
    import h2.config
    import h2.connection
    import h2.events
except ImportError:  # Debian python3-h2 (scripts/install-deps.sh)
    h2 = None

CURL = shutil.which("curl")
H2LOAD = shutil.which("h2load")
NGHTTP = shutil.which("nghttp")
ROUTER = os.path.join(BIN, "router")


class Router:
    """The router binary with TLS on every listener and a Prometheus endpoint."""

    def __init__(self, directory, *extra):
        self.proc = subprocess.Popen(
            [ROUTER, "--tls-cert", "server.pem", "--tls-key", "server.key", "--metrics-listen",
             "127.0.0.1:0", *extra], cwd=directory, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.proc.kill()
            raise AssertionError(f"router did not start: {line!r} {self.proc.stderr.read()}")
        fields = dict(word.split("=", 1) for word in line.split()[1:])
        self.http = int(fields["http"].rsplit(":", 1)[1])
        self.ws = int(fields["ws"].rsplit(":", 1)[1])
        self.rawsocket = int(fields["rawsocket"].rsplit(":", 1)[1])
        self.metrics_url = f"http://{fields['metrics']}/metrics"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def metrics(self):
        with urllib.request.urlopen(self.metrics_url, timeout=10) as response:
            text = response.read().decode()
        values = {}
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
        return values

    def handshakes(self, listener, version, alpn):
        return self.metrics().get(
            f'benchgate_router_tls_handshakes_total{{listener="{listener}",version="{version}",'
            f'alpn="{alpn}"}}', 0)

    def failures(self, listener, reason):
        return self.metrics().get(
            f'benchgate_router_tls_handshake_failures_total{{listener="{listener}",'
            f'reason="{reason}"}}', 0)

    def wait_for(self, read, expected, what):
        """The counter reaches `expected` (it is counted as the router's handshake ends, which
        the peer may see a moment before)."""
        deadline = time.monotonic() + 20
        value = read()
        while value != expected and time.monotonic() < deadline:
            time.sleep(0.05)
            value = read()
        return value


def s_client(port, version_flag, alpn, request=None):
    """(protocol, ALPN, output) as `openssl s_client` reports them."""
    args = [OPENSSL, "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", "ca.pem",
            "-verify_return_error", version_flag]
    if alpn:
        args += ["-alpn", alpn]
    if request:
        args.append("-ign_eof")
    proc = subprocess.run(args, input=(request or "").encode(), capture_output=True, timeout=30,
                          cwd=s_client.directory)
    # Over h2 the server's first frames (binary) are in what s_client prints.
    out = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
    version = alpn_seen = "-"
    for line in out.splitlines():
        if line.startswith("New, "):  # "New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384"
            version = line.split(",")[1].strip()
        if line.startswith("ALPN protocol:"):
            alpn_seen = line.split(":", 1)[1].strip()
    if version == "(NONE)":  # no handshake completed
        version = "-"
    return version, alpn_seen, out


def client_context(version=None):
    context = ssl.create_default_context(cafile=os.path.join(s_client.directory, "ca.pem"))
    if version:
        context.minimum_version = context.maximum_version = version
    return context


def wamp_hello():
    return json.dumps([1, "realm1", {"roles": {"caller": {}}}]).encode()


def ws_frame(payload):
    """A masked text frame (clients mask, RFC 6455 5.3)."""
    mask = os.urandom(4)
    head = bytes([0x81])
    if len(payload) < 126:
        head += bytes([0x80 | len(payload)])
    else:
        head += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError(f"connection closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_ws_message(sock):
    first, second = read_exact(sock, 2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(sock, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(sock, 8))[0]
    return first & 0x0F, read_exact(sock, length)


def wss_session(port):
    """WAMP over wss with Python's ssl: HELLO answered with WELCOME. (version, alpn, message)"""
    context = client_context()
    context.set_alpn_protocols(["http/1.1"])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                         b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                         b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: wamp.2.json\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(1)
                if not chunk:
                    raise AssertionError(f"closed during the upgrade: {head!r}")
                head += chunk
            if not head.startswith(b"HTTP/1.1 101"):
                raise AssertionError(f"upgrade refused: {head!r}")
            sock.sendall(ws_frame(wamp_hello()))
            _, payload = read_ws_message(sock)
            return sock.version(), sock.selected_alpn_protocol(), json.loads(payload)


def rawsocket_session(port):
    """WAMP over RawSocket over TLS with Python's ssl. (version, alpn, message)"""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with client_context().wrap_socket(raw, server_hostname="127.0.0.1") as sock:
            sock.sendall(bytes([0x7F, 0xF1, 0, 0]))  # 16 MiB max, JSON
            reply = read_exact(sock, 4)
            if reply[0] != 0x7F or reply[1] & 0x0F != 1:
                raise AssertionError(f"RawSocket handshake refused: {reply!r}")
            hello = wamp_hello()
            sock.sendall(bytes([0]) + len(hello).to_bytes(3, "big") + hello)
            header = read_exact(sock, 4)
            payload = read_exact(sock, int.from_bytes(header[1:], "big"))
            return sock.version(), sock.selected_alpn_protocol(), json.loads(payload)


def closed_by_peer(sock):
    """Blocks until the peer closes (b'' or a reset); the router's deadline does that."""
    sock.settimeout(30)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def half_client_hello():
    """The first half of a real TLS ClientHello, as Python's ssl would send it."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    return hello[: len(hello) // 2]


@unittest.skipUnless(OPENSSL, "needs openssl")
class BundledRouterWithTls(unittest.TestCase):
    """`[router] tls = true` through the orchestrator, router and worker."""

    def test_https_over_tls12_and_tls13_verified_against_the_runs_ca(self):
        directory = tempfile.mkdtemp(prefix="benchgate-router-tls-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        path = write_scenario(directory, "s.toml", """
name = "router_tls"
[router]
tls = true
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "tls13"
target = "/bench/hello"
connections = 2
rate = 200
tls = true
tls_version = "1.3"
[[workloads]]
name = "tls12"
target = "/bench/hello"
connections = 1
rate = 100
tls = true
tls_version = "1.2"
""")
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(directory, "db.sqlite")])
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        report = {w["name"]: w for w in load_json(out)["scenarios"][0]["workloads"]}
        for name, version, rate in (("tls13", "TLSv1.3", 200), ("tls12", "TLSv1.2", 100)):
            line = lines[name]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            # What the router chose: the version the workload allowed, ALPN http/1.1.
            self.assertEqual(line["tls"], version)
            self.assertEqual(line["alpn"], "http/1.1")
            self.assertNotEqual(line["handshake_p50_us"], "-")
            rep = report[name]["repetitions"][0]
            self.assertEqual(rep["errors"], 0)
            self.assertEqual(rep["operations"], rate // 2)  # open loop: rate x 0.5 s
            # Every request the worker counted, the router answered, over TLS.
            self.assertEqual(rep["router"]["requests"], rep["operations"])
            self.assertEqual(rep["connection_setup"]["handshakes"],
                             rep["connection_setup"]["connections"])
            print(f"INTEROP|benchgate-worker|{line['tls']}|{line['alpn']}|pass")

    def test_h2_over_tls12_and_tls13_verified_against_the_runs_ca(self):
        directory = tempfile.mkdtemp(prefix="benchgate-router-h2-tls-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        path = write_scenario(directory, "s.toml", """
name = "router_h2_tls"
[router]
tls = true
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "h2_tls13"
protocol = "http2"
target = "/bench/hello"
connections = 2
streams = 4
rate = 200
tls = true
tls_version = "1.3"
[[workloads]]
name = "h2_tls12"
protocol = "http2"
target = "/bench/hello"
connections = 1
streams = 4
rate = 100
tls = true
tls_version = "1.2"
""")
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(directory, "db.sqlite")])
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        report = {w["name"]: w for w in load_json(out)["scenarios"][0]["workloads"]}
        for name, version, rate in (("h2_tls13", "TLSv1.3", 200), ("h2_tls12", "TLSv1.2", 100)):
            line = lines[name]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["protocol"], "http2")
            # What the router chose: the version the workload allowed, ALPN h2.
            self.assertEqual(line["tls"], version)
            self.assertEqual(line["alpn"], "h2")
            self.assertEqual(line["effective_streams"], "4")
            self.assertNotEqual(line["handshake_p50_us"], "-")
            rep = report[name]["repetitions"][0]
            self.assertEqual(rep["errors"], 0)
            self.assertEqual(rep["operations"], rate // 2)  # open loop: rate x 0.5 s
            # Every request the worker counted, the router answered, over h2.
            self.assertEqual(rep["router"]["requests"], rep["operations"])
            self.assertEqual(rep["connection_setup"]["handshakes"],
                             rep["connection_setup"]["connections"])
            print(f"INTEROP|benchgate-worker-h2|{line['tls']}|{line['alpn']}|pass")


    def test_http1_workload_fails_at_connect_when_the_router_selects_h2_or_another_name(self):
        """An http1 workload that offers h2 first gets h2 from the router, which serves both:
        HTTP/1.1 inside it could only fail request by request, so the connection fails at
        setup with a reason (exit 3), as http2's does when the server did not select h2. A
        certificate that does not name the sni says so too."""
        directory = tempfile.mkdtemp(prefix="benchgate-router-alpn-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        cases = [
            ('alpn = ["h2", "http/1.1"]',
             "the server selected h2 by ALPN, but an http1 workload speaks HTTP/1.1 only"),
            ('sni = "example.com"', "certificate verify failed: hostname mismatch"),
        ]
        # One run: a failed workload leaves the next one to run, which connects afresh.
        workloads = "".join(f"""
[[workloads]]
name = "h1_{i}"
target = "/bench/hello"
connections = 2
tls = true
{keys}
""" for i, (keys, _) in enumerate(cases))
        path = write_scenario(directory, "s.toml", """
name = "router_tls_h1_failures"
[router]
tls = true
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
""" + workloads)
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--db", os.path.join(directory, "db.sqlite"), "--json", out])
        run.run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        self.assertEqual([(l["workload"], l["status"]) for l in run.result_lines()],
                         [("h1_0", "failed"), ("h1_1", "failed")], run.stdout)
        errors = {w["name"]: w["error"] for w in load_json(out)["scenarios"][0]["workloads"]}
        for n, (keys, expected) in enumerate(cases):
            error = errors[f"h1_{n}"]
            self.assertRegex(error, r"cannot connect to 127\.0\.0\.1:\d+: " + re.escape(expected),
                             keys)

    def test_resumed_is_counted_where_wamp_reconnects_and_not_shown_where_http_keeps(self):
        """`resumed` follows one rule (docs/MEASUREMENT.md "Handshakes per second"): a
        wamp_transfer workload over wss reconnects for every transfer, so the worker counts its
        handshakes and those the router resumed (each connection's first has no session to
        offer), and 0 without tls_resumption is a count; an http1 workload that keeps its
        connections has handshakes only at its start: `-` in RESULT, null in JSON."""
        directory = tempfile.mkdtemp(prefix="benchgate-router-wamp-resume-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        path = write_scenario(directory, "s.toml", """
name = "router_tls_resumed_rule"
[router]
tls = true
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "transfer_resuming"
protocol = "wamp_transfer"
transfer_bytes = "4KiB"
chunk_bytes = "1KiB"
connections = 2
tls = true
tls_resumption = true
[[workloads]]
name = "transfer_full"
protocol = "wamp_transfer"
transfer_bytes = "4KiB"
chunk_bytes = "1KiB"
connections = 2
tls = true
[[workloads]]
name = "http_kept"
target = "/bench/hello"
connections = 2
rate = 100
tls = true
tls_resumption = true
""")
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(directory, "db.sqlite")])
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        report = {w["name"]: w for w in load_json(out)["scenarios"][0]["workloads"]}
        for name, resumption in (("transfer_resuming", True), ("transfer_full", False)):
            line, rep = lines[name], report[name]["repetitions"][0]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            setup = rep["connection_setup"]
            # A session per transfer, each a TLS handshake (the first of each connection is
            # its check that the router is there).
            self.assertGreater(setup["handshakes"], rep["operations"], name)
            expected = setup["handshakes"] - 2 if resumption else 0
            self.assertEqual(setup["resumed"], expected, name)
            self.assertEqual(line["resumed"], str(expected), name)
            routed = sum(v for k, v in rep["router"]["counters"].items()
                         if k.startswith("tls_resumed{"))
            if resumption:
                self.assertGreater(routed, 0, name)
            else:
                self.assertEqual(routed, 0, name)
        kept, rep = lines["http_kept"], report["http_kept"]["repetitions"][0]
        self.assertEqual(kept["status"], "ok", run.stdout)
        self.assertEqual(rep["connection_setup"]["handshakes"], 2)
        self.assertEqual(kept["resumed"], "-")
        self.assertIsNone(rep["connection_setup"]["resumed"])

    def test_session_resumption_over_tls12_and_tls13(self):
        """tls_resumption with new_connection_per_request: each connection's first handshake is
        a full one, every later one resumes the session (TLS 1.2) or ticket (TLS 1.3) the last
        connection got, as the worker and the router both count; without it none resumes."""
        directory = tempfile.mkdtemp(prefix="benchgate-router-resume-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        workloads = ""
        cases = []
        for protocol in ("http1", "http2"):
            for version in ("1.2", "1.3"):
                for resumption in ("true", "false"):
                    name = f"{protocol}_{version.replace('.', '')}_{resumption}"
                    cases.append((name, protocol, version, resumption == "true"))
                    workloads += f"""
[[workloads]]
name = "{name}"
protocol = "{protocol}"
target = "/bench/hello"
connections = 2
tls = true
tls_version = "{version}"
tls_resumption = {resumption}
new_connection_per_request = true
"""
        path = write_scenario(directory, "s.toml", """
name = "router_tls_resumption"
[router]
tls = true
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
""" + workloads)
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(directory, "db.sqlite")])
        run.run(timeout=240)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        report = {w["name"]: w for w in load_json(out)["scenarios"][0]["workloads"]}
        for name, protocol, version, resumption in cases:
            line = lines[name]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["tls"], "TLSv" + version)
            rep = report[name]["repetitions"][0]
            setup = rep["connection_setup"]
            self.assertEqual(setup["handshakes"], setup["connections"])
            self.assertGreater(setup["handshakes"], 10)
            alpn = "h2" if protocol == "http2" else "http/1.1"
            counters = rep["router"]["counters"]
            router_handshakes = counters[
                f"tls_handshakes{{alpn={alpn},listener=http,version={version}}}"]
            router_resumed = counters[f"tls_resumed{{listener=http,version={version}}}"]
            if resumption:
                # The first handshake of each of the 2 connections has no session to offer;
                # every later one offers the last session its connection got and the router
                # resumes it (its tickets stay valid for the whole run).
                self.assertEqual(setup["resumed"], setup["handshakes"] - 2, name)
                self.assertEqual(int(line["resumed"]), setup["resumed"])
                # The router's counts cover its own window (it may end a handshake or two
                # after the worker stopped counting): the full handshakes among them can only
                # be those 2 first ones.
                self.assertGreater(router_resumed, 0, name)
                self.assertGreaterEqual(router_handshakes - router_resumed, 0, name)
                self.assertLessEqual(router_handshakes - router_resumed, 2, name)
            else:
                self.assertEqual(setup["resumed"], 0, name)
                self.assertEqual(line["resumed"], "0")
                self.assertEqual(router_resumed, 0, name)
                self.assertGreater(router_handshakes, 0, name)
            print(f"INTEROP|benchgate-worker|{line['tls']}|{line['alpn']}|tls_resumption="
                  f"{str(resumption).lower()}|resumed={setup['resumed']}/{setup['handshakes']}"
                  f"|router_resumed={router_resumed}/{router_handshakes}|pass")


@unittest.skipUnless(OPENSSL, "needs openssl")
class RouterTlsInterop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-router-tls-interop-")
        make_certificate(cls.dir)
        s_client.directory = cls.dir

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def start_router(self, *extra):
        router = Router(self.dir, *extra)
        self.addCleanup(router.stop)
        return router

    @unittest.skipUnless(CURL, "needs curl")
    def test_curl_https(self):
        router = self.start_router()
        proc = subprocess.run(
            [CURL, "-sS", "-v", "--cacert", "ca.pem", "--http1.1",
             f"https://127.0.0.1:{router.http}/bench/hello",
             f"https://127.0.0.1:{router.http}/bench/bytes/100000", "-o", "/dev/null", "-o",
             "/dev/null", "-w", "%{http_code} %{size_download}\n"],
            cwd=self.dir, capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.split("\n")[:2], ["200 12", "200 100000"])
        version = re.search(r"SSL connection using (TLSv[0-9.]+)", proc.stderr)
        alpn = re.search(r"ALPN[:,] server accepted (?:to use )?(\S+)", proc.stderr)
        self.assertIsNotNone(version, proc.stderr)
        self.assertIsNotNone(alpn, proc.stderr)
        self.assertEqual(alpn.group(1), "http/1.1")
        # One connection, reused for both requests.
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.3", "http/1.1"), 1,
                                         "handshakes"), 1)
        print(f"INTEROP|curl|{version.group(1)}|{alpn.group(1)}|pass")

    def test_openssl_s_client_tls12_and_tls13(self):
        router = self.start_router()
        request = "GET /bench/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        for flag, expected in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
            version, alpn, out = s_client(router.http, flag, "http/1.1", request)
            self.assertEqual(version, expected, out)
            self.assertEqual(alpn, "http/1.1", out)
            self.assertIn("HTTP/1.1 200 OK", out)
            self.assertIn("Hello, world", out)
            print(f"INTEROP|openssl-s_client|{version}|{alpn}|pass")
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.2", "http/1.1"), 1,
                                         "1.2"), 1)
        self.assertEqual(router.handshakes("http", "1.3", "http/1.1"), 1)

    def test_session_tickets_per_handshake(self):
        """The router sends --tls-session-tickets TLS 1.3 tickets after a handshake (1 by
        default), as openssl s_client sees them; 0 sends none."""
        request = "GET /bench/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        for extra, expected in (((), 1), (("--tls-session-tickets", "0"), 0),
                                (("--tls-session-tickets", "3"), 3)):
            router = self.start_router(*extra)
            _, _, out = s_client(router.http, "-tls1_3", "http/1.1", request)
            self.assertIn("Hello, world", out)
            self.assertEqual(out.count("Post-Handshake New Session Ticket arrived"), expected,
                             (extra, out))
            router.stop()

    def test_python_ssl_wss_and_rawsocket_over_tls(self):
        router = self.start_router()
        version, alpn, welcome = wss_session(router.ws)
        self.assertEqual(welcome[0], 2, welcome)  # WELCOME
        self.assertEqual(alpn, "http/1.1")
        print(f"INTEROP|python-ssl-wss|{version}|{alpn}|pass")
        version, alpn, welcome = rawsocket_session(router.rawsocket)
        self.assertEqual(welcome[0], 2, welcome)
        self.assertIsNone(alpn)  # RawSocket takes part in no ALPN
        print(f"INTEROP|python-ssl-rawsocket|{version}|-|pass")
        self.assertEqual(router.wait_for(lambda: router.handshakes("websocket", "1.3",
                                                                   "http/1.1"), 1, "ws"), 1)
        self.assertEqual(router.handshakes("rawsocket", "1.3", "none"), 1)

    def h2_connections(self, router):
        return router.metrics().get("benchgate_router_http2_connections_total", 0)

    def hello_count(self, router):
        return router.metrics().get(
            'benchgate_router_http_requests_total{route="/bench/hello",status="200"}', 0)

    @unittest.skipUnless(H2LOAD, "needs h2load (nghttp2-client)")
    def test_h2load_h2_over_tls(self):
        router = self.start_router()
        # h2load does not verify certificates; it reports what the handshake chose.
        proc = subprocess.run([H2LOAD, "-n", "2000", "-c", "2", "-m", "10",
                               f"https://127.0.0.1:{router.http}/bench/hello"],
                              capture_output=True, text=True, timeout=60)
        version = re.search(r"TLS Protocol: (\S+)", proc.stdout)
        alpn = re.search(r"Application protocol: (\S+)", proc.stdout)
        ok = (proc.returncode == 0 and "2000 succeeded, 0 failed, 0 errored" in proc.stdout
              and "status codes: 2000 2xx" in proc.stdout and version is not None
              and alpn is not None and alpn.group(1) == "h2")
        print(f"INTEROP|h2load|{version.group(1) if version else '-'}|"
              f"{alpn.group(1) if alpn else '-'}|{'pass' if ok else 'fail'}")
        self.assertTrue(ok, proc.stdout + proc.stderr)
        self.assertEqual(router.wait_for(lambda: self.hello_count(router), 2000, "hello"), 2000)
        self.assertEqual(self.h2_connections(router), 2)
        self.assertEqual(router.handshakes("http", "1.3", "h2"), 2)

    @unittest.skipUnless(CURL, "needs curl")
    def test_curl_http2_over_tls(self):
        router = self.start_router()
        url = f"https://127.0.0.1:{router.http}"
        proc = subprocess.run(
            [CURL, "-sS", "-v", "--http2", "--cacert", "ca.pem", "-w", "|%{http_version}",
             url + "/bench/hello"], cwd=self.dir, capture_output=True, text=True, timeout=30)
        body = os.urandom(5000)
        echo = subprocess.run([CURL, "-sS", "--http2", "--cacert", "ca.pem", "--data-binary",
                               "@-", "-H", "content-type: application/octet-stream",
                               url + "/bench/echo"],
                              cwd=self.dir, input=body, capture_output=True, timeout=30)
        version = re.search(r"SSL connection using (TLSv[0-9.]+)", proc.stderr)
        alpn = re.search(r"ALPN[:,] server accepted (?:to use )?(\S+)", proc.stderr)
        ok = (proc.returncode == 0 and proc.stdout == "Hello, world|2" and echo.stdout == body
              and version is not None and alpn is not None and alpn.group(1) == "h2")
        print(f"INTEROP|curl-http2|{version.group(1) if version else '-'}|"
              f"{alpn.group(1) if alpn else '-'}|{'pass' if ok else 'fail'}")
        self.assertTrue(ok, (proc.stdout, proc.stderr, len(echo.stdout)))
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.3", "h2"), 2,
                                         "h2"), 2)
        self.assertEqual(self.h2_connections(router), 2)

    @unittest.skipUnless(NGHTTP, "needs nghttp (nghttp2-client)")
    def test_nghttp_over_tls(self):
        router = self.start_router()
        url = f"https://127.0.0.1:{router.http}"
        proc = subprocess.run([NGHTTP, url + "/bench/bytes/100000"], capture_output=True,
                              timeout=30)
        expected = bytes(ord("a") + i % 26 for i in range(100000))
        verbose = subprocess.run([NGHTTP, "-v", url + "/bench/hello"], capture_output=True,
                                 text=True, timeout=30)
        alpn = re.search(r"The negotiated protocol: (\S+)", verbose.stdout)
        ok = (proc.returncode == 0 and proc.stdout == expected and verbose.returncode == 0
              and ":status: 200" in verbose.stdout and alpn is not None
              and alpn.group(1) == "h2")
        # nghttp names the protocol it negotiated, not the TLS version: that is the router's
        # count of the handshake, below.
        print(f"INTEROP|nghttp|-|{alpn.group(1) if alpn else '-'}|{'pass' if ok else 'fail'}")
        self.assertTrue(ok, verbose.stdout[-2000:] + verbose.stderr[-2000:])
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.3", "h2"), 2,
                                         "h2"), 2)

    def test_openssl_s_client_alpn_h2(self):
        router = self.start_router()
        for flag, expected in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
            version, alpn, out = s_client(router.http, flag, "h2,http/1.1")
            self.assertEqual(version, expected, out)
            self.assertEqual(alpn, "h2", out)
            print(f"INTEROP|openssl-s_client-h2|{version}|{alpn}|pass")
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.2", "h2"), 1,
                                         "1.2"), 1)
        self.assertEqual(router.handshakes("http", "1.3", "h2"), 1)

    @unittest.skipUnless(h2, "needs python3-h2")
    def test_hyper_h2_over_ssl(self):
        router = self.start_router()
        context = client_context()
        context.set_alpn_protocols(["h2"])
        conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()

        def request(path, method="GET"):
            return [(":method", method), (":scheme", "https"), (":authority", "127.0.0.1"),
                    (":path", path)]
        body = b"x" * 70000  # over the client's default window: flow control both ways
        conn.send_headers(1, request("/bench/hello"), end_stream=True)
        conn.send_headers(3, request("/bench/echo", "POST"))
        conn.send_headers(5, request("/bench/bytes/20000"), end_stream=True)
        got = {1: b"", 3: b"", 5: b""}
        status, ended = {}, set()
        pending = body
        with socket.create_connection(("127.0.0.1", router.http), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
                version, alpn = sock.version(), sock.selected_alpn_protocol()
                sock.sendall(conn.data_to_send())
                while len(ended) < 3:
                    while pending:
                        room = min(conn.local_flow_control_window(3),
                                   conn.max_outbound_frame_size)
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
        ok = (alpn == "h2" and status == {1: "200", 3: "200", 5: "200"}
              and got[1] == b"Hello, world" and got[3] == body and got[5] == pattern)
        print(f"INTEROP|python3-h2-ssl|{version}|{alpn}|{'pass' if ok else 'fail'}")
        self.assertTrue(ok, (alpn, status, {k: len(v) for k, v in got.items()}))
        self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.3", "h2"), 1,
                                         "h2"), 1)

    @unittest.skipUnless(h2, "needs python3-h2")
    def test_router_stops_with_h2_over_tls_connections_open(self):
        # One h2-over-TLS connection owed a delayed answer, one idle: SIGTERM still ends the
        # router with status 0 (the HTTP/1.1 session that handed the TLS stream over stays in
        # its thread's list, so stopping reaches the HTTP/2 connection).
        router = Router(self.dir)
        context = client_context()
        context.set_alpn_protocols(["h2"])
        socks = []
        try:
            for path in ("/bench/delay/60000", None):
                raw = socket.create_connection(("127.0.0.1", router.http), timeout=10)
                sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
                socks.append(sock)
                self.assertEqual(sock.selected_alpn_protocol(), "h2")
                conn = h2.connection.H2Connection(
                    h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
                conn.initiate_connection()
                if path:
                    conn.send_headers(1, [(":method", "GET"), (":scheme", "https"),
                                          (":authority", "127.0.0.1"), (":path", path)],
                                      end_stream=True)
                sock.sendall(conn.data_to_send())
            self.assertEqual(router.wait_for(lambda: router.handshakes("http", "1.3", "h2"), 2,
                                             "h2"), 2)
            router.proc.terminate()
            self.assertEqual(router.proc.wait(timeout=30), 0)
        finally:
            for sock in socks:
                sock.close()
            if router.proc.poll() is None:
                router.proc.kill()
                router.proc.wait(timeout=10)
            router.proc.stdout.close()
            router.proc.stderr.close()

    def test_clients_that_reset_mid_answer_leave_the_router_serving(self):
        """TLS clients that ask for large answers, read a part and reset the connection. The
        router's TLS writes go through write(2) on the socket's descriptor (OpenSSL's socket
        BIO: no MSG_NOSIGNAL), and a write after the reset raises SIGPIPE: a router started as
        here (subprocess gives it SIGPIPE's default disposition, as a shell does) died of it in
        the first round of eight before it ignored SIGPIPE itself."""
        router = self.start_router()
        context = client_context()
        context.set_alpn_protocols(["http/1.1"])
        request = b"GET /bench/bytes/1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 3

        errors = []

        def reset_mid_answer(read_bytes):
            try:
                talk(read_bytes)
            except OSError as error:  # ssl.SSLError is one
                errors.append(error)

        def talk(read_bytes):
            with socket.create_connection(("127.0.0.1", router.http), timeout=10) as raw:
                with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
                    sock.sendall(request)
                    received = 0
                    while received < read_bytes:
                        received += len(sock.recv(read_bytes - received))
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

        for round_number in range(10):
            clients = [threading.Thread(target=reset_mid_answer, args=(7000 * i,))
                       for i in range(8)]
            for client in clients:
                client.start()
            for client in clients:
                client.join(timeout=30)
            self.assertIsNone(router.proc.poll(),
                              f"the router ended in round {round_number + 1}: exit "
                              f"{router.proc.returncode} (-13 is SIGPIPE)")
        self.assertEqual(errors, [])
        # Still serving.
        version, alpn, welcome = wss_session(router.ws)
        self.assertEqual(welcome[0], 2, welcome)
        print("INTEROP|python-ssl-reset-mid-answer|-|http/1.1|pass")

    def test_slow_handshakes_are_closed_and_counted(self):
        router = self.start_router("--tls-handshake-timeout", "1s")
        silent = socket.create_connection(("127.0.0.1", router.http), timeout=10)
        partial = socket.create_connection(("127.0.0.1", router.http), timeout=10)
        partial.sendall(half_client_hello())
        raw_silent = socket.create_connection(("127.0.0.1", router.rawsocket), timeout=10)
        for sock in (silent, partial, raw_silent):
            with sock:
                self.assertTrue(closed_by_peer(sock))
        self.assertEqual(router.wait_for(lambda: router.failures("http", "timeout"), 2, "http"), 2)
        self.assertEqual(router.wait_for(lambda: router.failures("rawsocket", "timeout"), 1,
                                         "rawsocket"), 1)
        self.assertEqual(router.handshakes("http", "1.3", "http/1.1"), 0)
        print("INTEROP|slow-handshake-client|-|-|pass")

    def test_failed_handshakes_are_counted_by_reason(self):
        router = self.start_router("--tls-min-version", "1.3")
        # Cleartext HTTP on the TLS port.
        with socket.create_connection(("127.0.0.1", router.http), timeout=10) as sock:
            sock.sendall(b"GET /bench/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertTrue(closed_by_peer(sock))
        # TLS 1.2 only, below --tls-min-version 1.3.
        version, _, out = s_client(router.http, "-tls1_2", "http/1.1")
        self.assertEqual(version, "-", out)
        # ALPN h3 only: not served on this port (h2 and http/1.1 are), refused.
        version, alpn, out = s_client(router.http, "-tls1_3", "h3")
        self.assertEqual(alpn, "-", out)
        self.assertIn("no application protocol", out.lower())
        expected = {"not_tls": 1, "protocol_version": 1, "no_application_protocol": 1}
        for reason, count in expected.items():
            self.assertEqual(router.wait_for(lambda: router.failures("http", reason), count,
                                             reason), count, reason)
        self.assertEqual(router.failures("http", "timeout"), 0)
        self.assertEqual(router.failures("http", "other"), 0)

    def test_bad_certificate_or_key_is_a_clear_error(self):
        for args, needle in (
                (["--tls-cert", "missing.pem", "--tls-key", "server.key"],
                 "--tls-cert missing.pem: No such file or directory"),
                (["--tls-cert", "server.key", "--tls-key", "server.key"],
                 "--tls-cert server.key: not a PEM certificate chain (OpenSSL: "),
                (["--tls-cert", "server.pem", "--tls-key", "ca.key"],
                 "--tls-key ca.key: does not match the certificate in server.pem"),
                (["--tls-cert", "server.pem"], "--tls-cert: needs --tls-key"),
                (["--tls-cert", "server.pem", "--tls-key", "server.key", "--tls-min-version",
                  "1.1"], "--tls-min-version: '1.1' is not a TLS version"),
                (["--tls-cert", "server.pem", "--tls-key", "server.key",
                  "--tls-session-tickets", "9"], "--tls-session-tickets: 9 is not between 0 and 8"),
                (["--tls-session-tickets", "2"],
                 "--tls-cert: the --tls-* settings need --tls-cert and --tls-key")):
            proc = subprocess.run([ROUTER, *args], cwd=self.dir, capture_output=True, text=True,
                                  timeout=30)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(needle, proc.stderr)


if __name__ == "__main__":
    unittest.main()
