"""The worker's HTTP/2 and TLS drivers end to end, through the real orchestrator and worker
binaries, against independent servers on 127.0.0.1: nghttpd (nghttp2-server) for h2c with
prior knowledge and h2 over TLS by ALPN, and Python's http.server behind Python's ssl for
HTTP/1.1 over TLS (tls_http1_server.py, which counts every request). The tests share one
throwaway CA a process, made with the openssl command and copied into each test's folder,
where each server's certificate is made. Windows are 0.5 s, open-loop rates small, so every count is exact; nothing
is timed.

Each interop row prints an INTEROP| line with the TLS version and ALPN the peer reports: for
nghttpd as `openssl s_client` sees the server answer, for the Python server as its ssl module
saw its side of the connection.
"""
import atexit
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import unittest

from harness import Run, load_json, write_scenario

NGHTTPD = shutil.which("nghttpd")
OPENSSL = shutil.which("openssl")
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def make_ca(directory):
    """A throwaway CA and a server certificate for localhost and 127.0.0.1 signed by it."""
    def openssl(*args):
        subprocess.run([OPENSSL, *args], cwd=directory, check=True, capture_output=True,
                       timeout=60)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=benchgate e2e CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(directory, "san.cnf"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf")


# The module's CA and server certificate (make_ca's files), made once for the process and
# copied into each test's folder by copy_test_ca: two RSA keys cost about half a second, paid
# by every test before. A test that needs a second CA, one that did not sign the server's
# certificate, makes it with make_ca.
_TEST_CA = []


def copy_test_ca(directory):
    """make_ca's files in `directory`: copies of the process's one throwaway CA."""
    if not _TEST_CA:
        made = tempfile.mkdtemp(prefix="benchgate-test-ca-")
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        make_ca(made)
        _TEST_CA.append(made)
    for name in os.listdir(_TEST_CA[0]):
        shutil.copy(os.path.join(_TEST_CA[0], name), directory)


def s_client_view(port, alpn, version_flag):
    """(protocol, ALPN) as `openssl s_client` reports the server's choice."""
    proc = subprocess.run(
        [OPENSSL, "s_client", "-connect", f"127.0.0.1:{port}", "-alpn", alpn, version_flag],
        input="", capture_output=True, text=True, timeout=30)
    version = alpn_seen = "-"
    for line in (proc.stdout + proc.stderr).splitlines():
        # "New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384"
        if line.startswith("New, "):
            version = line.split(",")[1].strip()
        if line.startswith("ALPN protocol:"):
            alpn_seen = line.split(":", 1)[1].strip()
    return version, alpn_seen


@unittest.skipUnless(NGHTTPD and OPENSSL, "needs nghttpd (nghttp2-server) and openssl")
class Http2AgainstNghttpd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-h2-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        os.mkdir(os.path.join(self.dir, "www"))
        with open(os.path.join(self.dir, "www", "hello"), "w") as f:
            f.write("hello h2\n")
        copy_test_ca(self.dir)
        self.db = os.path.join(self.dir, "db.sqlite")

    def start_nghttpd(self, tls, max_streams=100, key_pair=("server.key", "server.pem")):
        port = free_port()
        args = [NGHTTPD, "-a", "127.0.0.1", "-d", "www", f"--max-concurrent-streams={max_streams}",
                str(port)]
        args = args + list(key_pair) if tls else args[:1] + ["--no-tls"] + args[1:]
        proc = subprocess.Popen(args, cwd=self.dir, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

        def stop():
            proc.terminate()
            proc.wait(timeout=10)
        self.addCleanup(stop)
        wait_listening(port, proc)
        return port

    def run_scenario(self, text):
        path = write_scenario(self.dir, "s.toml", text)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out, "--db", self.db]).run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        lines = {l["workload"]: l for l in run.result_lines()}
        report = load_json(out)
        workloads = {w["name"]: w for w in report["scenarios"][0]["workloads"]}
        return run, lines, workloads

    def test_h2c_closed_and_open_loop_with_streams_capped_by_the_server(self):
        port = self.start_nghttpd(tls=False, max_streams=10)
        run, lines, workloads = self.run_scenario(f"""
name = "h2c"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "closed"
protocol = "http2"
target = "/hello"
connections = 2
streams = 50
expect_body_bytes = 9
[[workloads]]
name = "open"
protocol = "http2"
target = "/hello"
connections = 2
streams = 4
rate = 300
expect_body_bytes = 9
""")
        closed, open_ = lines["closed"], lines["open"]
        for line in (closed, open_):
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["protocol"], "http2")
            self.assertEqual(line["tls"], "-")  # cleartext: no TLS version, never a guess
            self.assertEqual(line["alpn"], "-")
            self.assertEqual(line["handshake_p50_us"], "-")
            self.assertNotEqual(line["connect_p50_us"], "-")
            self.assertNotEqual(line["ttfb_p50_us"], "-")
        # Asked for 50, the server's SETTINGS_MAX_CONCURRENT_STREAMS allowed 10.
        self.assertEqual(closed["streams"], "50")
        self.assertEqual(closed["effective_streams"], "10")
        self.assertEqual(open_["effective_streams"], "4")
        rep = workloads["open"]["repetitions"][0]
        # Open loop: every request due in the window, exactly rate x duration (300/s x 0.5 s).
        self.assertEqual(rep["operations"], 150)
        self.assertEqual(rep["successes"], 150)
        setup = workloads["closed"]["repetitions"][0]["connection_setup"]
        self.assertEqual(setup["connections"], 2)
        self.assertEqual(setup["handshakes"], 0)
        self.assertIsNone(setup["tls_handshake"])
        self.assertEqual(setup["connect"]["count"], 2)
        print(f"INTEROP|peer=nghttpd|protocol=h2c|tls=-|alpn=-|worker_effective_streams="
              f"{closed['effective_streams']}|result=pass")

    def test_h2_over_tls_by_alpn_with_the_test_ca(self):
        port = self.start_nghttpd(tls=True)
        run, lines, workloads = self.run_scenario(f"""
name = "h2"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "tls13"
protocol = "http2"
target = "/hello"
connections = 2
streams = 8
expect_body_bytes = 9
tls = true
tls_version = "1.3"
ca_file = "ca.pem"
[[workloads]]
name = "tls12"
protocol = "http2"
target = "/hello"
connections = 1
streams = 4
rate = 200
tls = true
tls_version = "1.2"
ciphers = "ECDHE-RSA-AES128-GCM-SHA256"
sni = "localhost"
ca_file = "ca.pem"
[[gates]]
workload = "tls13"
metric = "tls_handshake.p99"
max = "10s"
""")
        for name, version in (("tls13", "TLSv1.3"), ("tls12", "TLSv1.2")):
            line = lines[name]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["tls"], version)
            self.assertEqual(line["alpn"], "h2")
            self.assertNotEqual(line["handshake_p50_us"], "-")
            rep = workloads[name]["repetitions"][0]
            self.assertEqual(rep["tls"]["version"], version)
            self.assertEqual(rep["connection_setup"]["handshakes"],
                             rep["connection_setup"]["connections"])
            peer_version, peer_alpn = s_client_view(port, "h2", "-tls1_3" if name == "tls13"
                                                    else "-tls1_2")
            self.assertEqual(peer_version, version)
            self.assertEqual(peer_alpn, "h2")
            print(f"INTEROP|peer=nghttpd|protocol=h2|tls={peer_version}|alpn={peer_alpn}"
                  f"|worker_tls={line['tls']}|worker_alpn={line['alpn']}|result=pass")
        self.assertEqual(workloads["tls12"]["repetitions"][0]["tls"]["cipher"],
                         "ECDHE-RSA-AES128-GCM-SHA256")
        self.assertEqual(workloads["tls12"]["repetitions"][0]["operations"], 100)  # 200/s x 0.5 s
        # SQLite (schema version 13) keeps what the server chose and the setup figures.
        db = sqlite3.connect(self.db)
        rows = db.execute(
            "SELECT w.name, r.tls_version, r.tls_cipher, r.alpn, r.connections, r.handshakes, "
            "r.tls_handshake_p99_ns, r.requested_streams, r.effective_streams "
            "FROM repetitions r JOIN workloads w ON w.id = r.workload_id ORDER BY w.name").fetchall()
        by_name = {row[0]: row for row in rows}
        self.assertEqual(by_name["tls12"][1:4], ("TLSv1.2", "ECDHE-RSA-AES128-GCM-SHA256", "h2"))
        self.assertEqual(by_name["tls13"][4:6], (2, 2))
        self.assertGreater(by_name["tls13"][6], 0)
        self.assertEqual(by_name["tls13"][7:9], (8, 8))
        gates = dict(db.execute("SELECT metric, verdict FROM gate_results").fetchall())
        db.close()
        self.assertEqual(gates["tls_handshake.p99"], "pass")

    def test_verification_is_on_by_default_and_a_failure_says_why(self):
        """Each certificate failure names OpenSSL's verify result, and TLS to a cleartext port
        says what that likely means, where all read "certificate verify failed" before."""
        other = os.path.join(self.dir, "other")
        os.mkdir(other)
        make_ca(other)
        signed = self.start_nghttpd(tls=True)
        self_signed = self.start_nghttpd(tls=True, key_pair=("ca.key", "ca.pem"))
        cleartext = self.start_nghttpd(tls=False)
        cases = [
            ("no_ca_file", signed, "",
             "certificate verify failed: unable to get local issuer certificate"),
            ("self_signed", self_signed, "",
             "certificate verify failed: self-signed certificate"),
            ("another_ca", signed, 'ca_file = "other/ca.pem"\n',
             "certificate verify failed: unable to get local issuer certificate"),
            ("sni_mismatch", signed, 'ca_file = "ca.pem"\nsni = "example.com"\n',
             "certificate verify failed: hostname mismatch"),
            ("cleartext_port", cleartext, 'ca_file = "ca.pem"\n',
             "wrong version number (SSL routines): the server did not answer with TLS (is this "
             "a cleartext port?)"),
        ]
        # One run for each server: a failed workload leaves the next one to run, which makes
        # its own connections and handshake.
        for port in (signed, self_signed, cleartext):
            mine = [(name, keys, expected) for name, at, keys, expected in cases if at == port]
            workloads = "".join(f"""
[[workloads]]
name = "{name}"
protocol = "http2"
target = "/hello"
tls = true
{keys}""" for name, keys, _ in mine)
            path = write_scenario(self.dir, "s.toml", f"""
name = "unverified"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
{workloads}""")
            out = os.path.join(self.dir, "out.json")
            run = Run(["run", path, "--db", self.db, "--json", out]).run(timeout=120)
            self.assertNotEqual(run.returncode, 0, run.stdout)
            self.assertEqual([(l["workload"], l["status"]) for l in run.result_lines()],
                             [(name, "failed") for name, _, _ in mine], run.stdout)
            errors = {w["name"]: w["error"] for w in load_json(out)["scenarios"][0]["workloads"]}
            for name, _, expected in mine:
                self.assertIn(f"cannot connect to 127.0.0.1:{port}: {expected}", errors[name],
                              name)
            self.assertEqual(run.leftovers(), [])


@unittest.skipUnless(OPENSSL, "needs openssl")
class HttpsAgainstPython(unittest.TestCase):
    def test_https_counts_match_the_server_and_its_tls(self):
        directory = tempfile.mkdtemp(prefix="benchgate-https-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        copy_test_ca(directory)
        port_file = os.path.join(directory, "port")
        count_file = os.path.join(directory, "count.json")
        server = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "tls_http1_server.py"), port_file, count_file,
             "server.pem", "server.key"], cwd=directory)
        self.addCleanup(lambda: server.poll() is None and server.kill())
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(port_file) as f:
            port = int(f.read())
        path = write_scenario(directory, "s.toml", f"""
name = "https"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "closed"
target = "/hello"
connections = 2
expect_body_bytes = 9
tls = true
ca_file = "ca.pem"
sni = "localhost"
[[workloads]]
name = "open"
target = "/hello"
connections = 2
rate = 100
expect_body_bytes = 9
tls = true
tls_version = "1.2"
ca_file = "ca.pem"
""")
        out = os.path.join(directory, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(directory, "db.sqlite")])
        run.run(timeout=120)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(count_file) as f:
            peer = json.load(f)
        report = {w["name"]: w for w in load_json(out)["scenarios"][0]["workloads"]}
        lines = {l["workload"]: l for l in run.result_lines()}
        sent = sum(report[n]["repetitions"][0]["operations"] for n in ("closed", "open"))
        self.assertEqual(report["open"]["repetitions"][0]["operations"], 50)  # 100/s x 0.5 s
        # Every request the worker counted reached the server, and nothing else did.
        self.assertEqual(peer["requests"], sent)
        for name in ("closed", "open"):
            self.assertEqual(lines[name]["errors"], "0", run.stdout)
            self.assertEqual(lines[name]["alpn"], "http/1.1")
            self.assertEqual(lines[name]["streams"], "-")
        self.assertEqual(lines["closed"]["tls"], "TLSv1.3")
        # The open-loop workload ran last: the server's last connection is its TLS 1.2.
        self.assertEqual(lines["open"]["tls"], "TLSv1.2")
        self.assertEqual(peer["version"], "TLSv1.2")
        self.assertEqual(peer["alpn"], "http/1.1")
        print(f"INTEROP|peer=python-ssl-http.server|protocol=https/1.1|tls={peer['version']}"
              f"|alpn={peer['alpn']}|requests={peer['requests']}|worker_requests={sent}"
              f"|result=pass")


if __name__ == "__main__":
    unittest.main()


def start_python_tls_server(test, directory):
    """tls_http1_server.py on an ephemeral port: (port, stop), stop() returning its counts."""
    port_file = os.path.join(directory, "port")
    count_file = os.path.join(directory, "count.json")
    for stale in (port_file, count_file):
        if os.path.exists(stale):
            os.remove(stale)
    server = subprocess.Popen(
        ["/usr/bin/python3", os.path.join(HERE, "tls_http1_server.py"), port_file, count_file,
         "server.pem", "server.key"], cwd=directory)
    test.addCleanup(lambda: server.poll() is None and server.kill())
    deadline = time.monotonic() + 10
    while not os.path.exists(port_file) and time.monotonic() < deadline:
        time.sleep(0.05)
    with open(port_file) as f:
        port = int(f.read())

    def stop():
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)
        with open(count_file) as f:
            return json.load(f)
    return port, stop


@unittest.skipUnless(OPENSSL, "needs openssl")
class NewConnectionPerRequest(unittest.TestCase):
    """new_connection_per_request: every request on a connection of its own, as the independent
    server counts them, each a full TLS handshake (none resumed, on either side)."""

    def run_against_python(self, directory, resumption):
        port, stop = start_python_tls_server(self, directory)
        path = write_scenario(directory, "s.toml", f"""
name = "handshakes"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "fresh"
target = "/hello"
connections = 2
expect_body_bytes = 9
tls = true
tls_version = "1.3"
ca_file = "ca.pem"
tls_resumption = false
new_connection_per_request = true
[[gates]]
workload = "fresh"
metric = "handshakes.rate"
min = 1
""")
        out = os.path.join(directory, "out.json")
        db = os.path.join(directory, "db.sqlite")
        run = Run(["run", path, "--json", out, "--db", db]).run(timeout=120)
        peer = stop()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        line = run.result_lines()[0]
        rep = load_json(out)["scenarios"][0]["workloads"][0]["repetitions"][0]
        return run, line, rep, peer, db

    def check_one_request_per_connection(self, run, line, rep, peer):
        self.assertEqual(line["status"], "ok", run.stdout)
        self.assertEqual(line["errors"], "0", run.stdout)
        self.assertEqual(line["tls"], "TLSv1.3")
        self.assertNotEqual(line["handshakes_per_s"], "-")
        self.assertGreater(rep["operations"], 10)
        # Every request reached the server, each on a connection of its own.
        self.assertEqual(peer["requests"], rep["operations"])
        self.assertEqual(peer["most_requests_per_connection"], 1)
        self.assertEqual(peer["connections"], peer["requests"])
        setup = rep["connection_setup"]
        self.assertEqual(setup["handshakes"], setup["connections"])
        # The window's connections: each of its requests but the two connections' first ones
        # (set up before the window) needed one, and at most one more each.
        self.assertGreaterEqual(rep["window_connections"], rep["operations"] - 2)
        self.assertLessEqual(rep["window_connections"], rep["operations"] + 2)

    def test_full_handshakes_without_resumption(self):
        directory = tempfile.mkdtemp(prefix="benchgate-fresh-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        copy_test_ca(directory)
        run, line, rep, peer, db = self.run_against_python(directory, resumption=False)
        self.check_one_request_per_connection(run, line, rep, peer)
        self.assertEqual(peer["resumed"], 0)
        self.assertEqual(line["resumed"], "0")
        self.assertEqual(rep["connection_setup"]["resumed"], 0)
        print(f"INTEROP|peer=python-ssl|protocol=http1|tls={peer['version']}|alpn={peer['alpn']}"
              f"|new_connection_per_request=true|resumed={peer['resumed']}|result=pass")

@unittest.skipUnless(NGHTTPD and OPENSSL, "needs nghttpd (nghttp2-server) and openssl")
class NewConnectionPerRequestH2(unittest.TestCase):
    """HTTP/2: one stream per connection, h2c and h2 (TLS 1.3) against nghttpd."""

    def setUp(self):
        Http2AgainstNghttpd.setUp(self)

    start_nghttpd = Http2AgainstNghttpd.start_nghttpd
    run_scenario = Http2AgainstNghttpd.run_scenario

    def test_h2c_and_h2_one_stream_per_connection(self):
        for tls in (False, True):
            port = self.start_nghttpd(tls=tls)
            keys = 'tls = true\ntls_version = "1.3"\nca_file = "ca.pem"\n' if tls else ""
            run, lines, workloads = self.run_scenario(f"""
name = "h2_handshakes"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "w"
protocol = "http2"
target = "/hello"
connections = 2
expect_body_bytes = 9
new_connection_per_request = true
{keys}""")
            line, rep = lines["w"], workloads["w"]["repetitions"][0]
            self.assertEqual(line["status"], "ok", run.stdout)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertEqual(line["effective_streams"], "1")
            self.assertNotEqual(line["handshakes_per_s"], "-")
            self.assertGreater(rep["operations"], 10)
            setup = rep["connection_setup"]
            # Every request had its own connection: those set up since the stream began are the
            # requests plus, at most, one idle connection per connection slot.
            self.assertGreaterEqual(setup["connections"], rep["operations"])
            self.assertLessEqual(setup["connections"], rep["operations"] + 2)
            self.assertGreaterEqual(rep["window_connections"], rep["operations"] - 2)
            if tls:
                self.assertEqual(line["tls"], "TLSv1.3")
                self.assertEqual(setup["handshakes"], setup["connections"])
                print(f"INTEROP|peer=nghttpd|protocol=h2|tls={line['tls']}|alpn={line['alpn']}"
                      f"|new_connection_per_request=true|result=pass")
            else:
                self.assertEqual(line["resumed"], "-")
                print("INTEROP|peer=nghttpd|protocol=h2c|tls=-|alpn=-"
                      "|new_connection_per_request=true|result=pass")


@unittest.skipUnless(NGHTTPD and OPENSSL and shutil.which("h2load"),
                     "needs nghttpd, h2load (nghttp2-client) and openssl")
class H2loadAdapterAgainstNghttpd(unittest.TestCase):
    """adapter = "h2load" for HTTP/2: h2c (-m streams) and h2 over TLS (https://, ALPN), its
    figures read from its own summary, the TLS as it printed the server's choice."""

    def setUp(self):
        Http2AgainstNghttpd.setUp(self)

    start_nghttpd = Http2AgainstNghttpd.start_nghttpd
    run_scenario = Http2AgainstNghttpd.run_scenario

    def test_h2c_and_h2_through_h2load(self):
        for tls in (False, True):
            port = self.start_nghttpd(tls=tls)
            keys = 'tls = true\ninsecure = true\nsni = "localhost"\n' if tls else ""
            run, lines, workloads = self.run_scenario(f"""
name = "h2load_h2"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[worker_impls.h2load]
adapter = "h2load"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "w"
worker = "h2load"
protocol = "http2"
target = "/hello"
connections = 2
streams = 4
{keys}""")
            line, rep = lines["w"], workloads["w"]["repetitions"][0]
            self.assertEqual(line["status"], "ok", run.stdout + run.stderr)
            self.assertEqual(line["errors"], "0", run.stdout)
            self.assertGreater(rep["operations"], 0)
            self.assertEqual(rep["successes"], rep["operations"])
            self.assertIsNotNone(rep["latency"])
            if tls:
                self.assertEqual(line["tls"], "TLSv1.3")
                self.assertEqual(line["alpn"], "h2")
            else:
                self.assertEqual(line["tls"], "-")
            print(f"INTEROP|peer=nghttpd|generator=h2load|protocol={'h2' if tls else 'h2c'}"
                  f"|tls={line['tls']}|alpn={line['alpn']}|result=pass")
