"""WAMP over TLS end to end: the real orchestrator and worker run wamp_rpc over wss and
wamp_pubsub over RawSocket-over-TLS against the bundled router, cleartext behind a
TLS-terminating proxy of Python's ssl (tls_proxy.py): worker --TLS--> proxy --TCP--> router.
The router's own TLS listener is another matter; this checks the worker's side: the handshake
verified against a throwaway CA, the transports' own handshakes through TLS, zero errors, and
the TLS version the proxy saw is the one the worker reports. Windows are short and nothing is
timed.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from harness import BIN, Run, load_json, write_scenario
from test_tls_http2 import OPENSSL, copy_test_ca, free_port, wait_listening

HERE = os.path.dirname(os.path.abspath(__file__))
ROUTER = os.path.join(BIN, "router")


@unittest.skipUnless(OPENSSL, "needs openssl")
class WampOverTls(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-wamp-tls-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        copy_test_ca(self.dir)
        ws, rs = free_port(), free_port()
        router = subprocess.Popen(
            [ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", "--websocket",
             f"127.0.0.1:{ws}", "--rawsocket", f"127.0.0.1:{rs}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (router.terminate(), router.wait(timeout=10)))
        wait_listening(ws, router)
        wait_listening(rs, router)
        port_file = os.path.join(self.dir, "ports")
        self.stats_file = os.path.join(self.dir, "proxy.json")
        self.proxy = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "tls_proxy.py"), port_file, self.stats_file,
             "server.pem", "server.key", str(ws), str(rs)], cwd=self.dir)
        self.addCleanup(
            lambda: self.proxy.poll() is None and (self.proxy.kill(), self.proxy.wait()))
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(port_file) as f:
            self.wss_port, self.rawsocket_port = (int(p) for p in f.read().split())

    def proxy_stats(self):
        self.proxy.send_signal(signal.SIGTERM)
        self.proxy.wait(timeout=10)
        with open(self.stats_file) as f:
            return json.load(f)

    def run_workload(self, port, workload):
        path = write_scenario(self.dir, "s.toml", f"""
name = "wamp_tls"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
{workload}""")
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(self.dir, "db.sqlite")])
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        return run.result_lines()[0], load_json(out)["scenarios"][0]["workloads"][0]

    def test_rpc_over_wss_and_pubsub_over_rawsocket_tls(self):
        rpc, rpc_json = self.run_workload(self.wss_port, """
[[workloads]]
name = "rpc_wss"
protocol = "wamp_rpc"
transport = "websocket"
serializer = "json"
connections = 2
in_flight = 2
tls = true
tls_version = "1.3"
ca_file = "ca.pem"
""")
        pubsub, pubsub_json = self.run_workload(self.rawsocket_port, """
[[workloads]]
name = "pubsub_rawsocket_tls"
protocol = "wamp_pubsub"
transport = "rawsocket"
serializer = "msgpack"
publishers = 1
subscribers = 2
rate = 200
tls = true
tls_version = "1.2"
ca_file = "ca.pem"
sni = "localhost"
""")
        proxy = self.proxy_stats()
        for line in (rpc, pubsub):
            self.assertEqual(line["status"], "ok", line)
            self.assertEqual(line["errors"], "0", line)
            self.assertGreater(float(line["rps"]), 0)
        self.assertEqual(rpc["tls"], "TLSv1.3")
        self.assertEqual(rpc["alpn"], "http/1.1")  # WebSocket's upgrade is HTTP/1.1
        self.assertEqual(pubsub["tls"], "TLSv1.2")
        self.assertEqual(pubsub["alpn"], "-")  # RawSocket offers no ALPN
        # The proxy saw TLS on every session of each workload: 2 callers; 1 publisher and 2
        # subscribers, and the last handshake (pub/sub's) as the worker reported it.
        self.assertEqual(proxy["connections"], {str(self.wss_port): 2,
                                                str(self.rawsocket_port): 3})
        self.assertEqual(proxy["version"], "TLSv1.2")
        rep = pubsub_json["repetitions"][0]
        self.assertEqual(rep["operations"], 200)  # 200/s x 0.5 s x 2 subscribers
        self.assertEqual(rep["events"]["delivered"], rep["events"]["expected"])
        self.assertEqual(rpc_json["repetitions"][0]["tls"]["version"], "TLSv1.3")
        print(f"INTEROP|peer=python-ssl-proxy|protocol=wamp_rpc/websocket|tls={rpc['tls']}"
              f"|alpn={rpc['alpn']}|result=pass")
        print(f"INTEROP|peer=python-ssl-proxy|protocol=wamp_pubsub/rawsocket|tls={pubsub['tls']}"
              f"|alpn=-|result=pass")

    def test_verification_fails_without_the_ca(self):
        path = write_scenario(self.dir, "s.toml", f"""
name = "wamp_tls_unverified"
[router]
impl = "external"
address = "127.0.0.1:{self.wss_port}"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
[[workloads]]
name = "rpc_wss"
protocol = "wamp_rpc"
tls = true
""")
        run = Run(["run", path, "--db", os.path.join(self.dir, "db.sqlite")]).run(timeout=120)
        self.assertNotEqual(run.returncode, 0, run.stdout)
        # OpenSSL's verify result says why: the proxy's certificate comes from the test's CA,
        # which the workload does not name (ca_file).
        self.assertIn(f"cannot connect to 127.0.0.1:{self.wss_port}: certificate verify failed: "
                      "unable to get local issuer certificate", run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])


@unittest.skipUnless(OPENSSL, "needs openssl")
class WampWebSocketAlpn(unittest.TestCase):
    def test_wss_fails_at_connect_when_the_server_selects_h2(self):
        """A wss session opens with an HTTP/1.1 Upgrade: a server that selected h2 by ALPN (from
        alpn = ["h2", "http/1.1"]) would read it as h2, so the connect fails saying so (exit 3).
        Before, the Upgrade went into the h2 connection and the start waited for an answer until
        its timeout. The peer is openssl s_server selecting h2, on loopback."""
        directory = tempfile.mkdtemp(prefix="benchgate-wamp-alpn-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        copy_test_ca(directory)
        port = free_port()
        server = subprocess.Popen(
            [OPENSSL, "s_server", "-accept", f"127.0.0.1:{port}", "-cert", "server.pem", "-key",
             "server.key", "-alpn", "h2", "-quiet"],
            cwd=directory, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.addCleanup(server.stdin.close)
        self.addCleanup(lambda: server.poll() is None and (server.kill(), server.wait()))
        wait_listening(port, server)
        path = write_scenario(directory, "s.toml", f"""
name = "wamp_wss_alpn"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
[[workloads]]
name = "rpc_wss"
protocol = "wamp_rpc"
transport = "websocket"
tls = true
ca_file = "ca.pem"
alpn = ["h2", "http/1.1"]
""")
        run = Run(["run", path, "--db", os.path.join(directory, "db.sqlite")]).run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn(f"cannot connect to 127.0.0.1:{port}: the server selected h2 by ALPN, but "
                      "WAMP over WebSocket opens with an HTTP/1.1 Upgrade",
                      run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])


if __name__ == "__main__":
    unittest.main()
