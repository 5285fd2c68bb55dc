"""The worker against nginx, an independent HTTP/2 and TLS server, through the real orchestrator
and worker binaries on 127.0.0.1: h2c with prior knowledge, h2 over TLS 1.3 by ALPN, HTTP/1.1
over TLS 1.2 and 1.3, and TLS 1.3 session resumption with new_connection_per_request.

The test writes nginx's configuration (listeners on 127.0.0.1 only, a throwaway CA and
certificate made with the openssl command, an access log line per request with what nginx
negotiated), starts nginx in the foreground with its own prefix and stops it. Every request the
worker counted is a line of nginx's log; the TLS version and ALPN of each INTEROP row are the
ones nginx logged ($ssl_protocol, $ssl_alpn_protocol), and the resumed handshakes are the
requests nginx logged with $ssl_session_reused "r". Windows are 0.5 s, open-loop rates small, so
every count is exact. Skipped where nginx is not installed (Debian nginx-light has the http2 and
ssl modules; scripts/install-deps.sh installs it with its system service neither started nor
enabled).
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import Run, load_json, write_scenario
from test_tls_http2 import copy_test_ca, free_port, wait_listening

NGINX = shutil.which("nginx")
OPENSSL = shutil.which("openssl")

CONFIG = """
worker_processes 1;
daemon off;
pid nginx.pid;
error_log stderr warn;
events {{ worker_connections 1024; }}
http {{
  client_body_temp_path temp-body;
  proxy_temp_path temp-proxy;
  fastcgi_temp_path temp-fastcgi;
  uwsgi_temp_path temp-uwsgi;
  scgi_temp_path temp-scgi;
  keepalive_requests 1000000;
  log_format interop '$server_port $server_protocol $ssl_protocol $ssl_alpn_protocol '
                     '$ssl_session_reused $connection $connection_requests';
  access_log access.log interop;
  ssl_certificate server.pem;
  ssl_certificate_key server.key;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:interop:1m;
  ssl_session_tickets on;
  server {{
    listen 127.0.0.1:{h2c} http2;
    location = /hello {{ default_type text/plain; return 200 "Hello, world"; }}
  }}
  server {{
    listen 127.0.0.1:{tls} ssl http2;
    location = /hello {{ default_type text/plain; return 200 "Hello, world"; }}
  }}
  server {{
    listen 127.0.0.1:{https} ssl;
    location = /hello {{ default_type text/plain; return 200 "Hello, world"; }}
  }}
}}
"""


@unittest.skipUnless(NGINX and OPENSSL, "needs nginx (nginx-light) and openssl")
class WorkerAgainstNginx(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-nginx-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        copy_test_ca(self.dir)
        self.ports = {"h2c": free_port(), "tls": free_port(), "https": free_port()}
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(CONFIG.format(**self.ports))
        self.proc = subprocess.Popen(
            [NGINX, "-p", self.dir + "/", "-e", "stderr", "-c", "nginx.conf"], cwd=self.dir,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

        def stop():
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc.stderr.close()
        self.addCleanup(stop)
        for port in self.ports.values():
            wait_listening(port, self.proc)

    def log_lines(self, port):
        """nginx's access log lines of one listener, as field lists. nginx writes a line when it
        finished a request, before the worker reads its response."""
        with open(os.path.join(self.dir, "access.log")) as f:
            return [line.split() for line in f if line.split()[0] == str(port)]

    def run_workload(self, port, body):
        path = write_scenario(self.dir, "s.toml", f"""
name = "nginx_interop"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "w"
target = "/hello"
expect_body_bytes = 12
""" + body + ('ca_file = "ca.pem"\n' if "tls = true" in body else ""))
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out, "--db", os.path.join(self.dir, "db.sqlite")])
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        line = run.result_lines()[0]
        self.assertEqual(line["status"], "ok", run.stdout)
        self.assertEqual(line["errors"], "0", run.stdout)
        rep = load_json(out)["scenarios"][0]["workloads"][0]["repetitions"][0]
        self.assertEqual(rep["errors"], 0)
        return line, rep

    def check_all_logged(self, port, operations, protocol):
        logged = self.log_lines(port)
        # Open loop sends rate x duration requests and no other (0.5 s windows: the caller's
        # rate x 0.5): nginx logged each of them.
        self.assertEqual(len(logged), operations)
        self.assertTrue(all(fields[1] == protocol for fields in logged), logged[:3])
        return logged

    def test_h2c_prior_knowledge(self):
        line, rep = self.run_workload(self.ports["h2c"], """
protocol = "http2"
connections = 2
streams = 4
rate = 200
""")
        self.assertEqual(rep["operations"], 100)  # open loop: rate x duration (0.5 s)
        self.assertEqual(line["effective_streams"], "4")
        logged = self.check_all_logged(self.ports["h2c"], 100, "HTTP/2.0")
        self.assertEqual(logged[0][2], "-")  # no TLS
        print(f"INTEROP|peer=nginx|protocol=h2c|tls=-|alpn=-|requests={len(logged)}|result=pass")

    def test_h2_over_tls13_by_alpn(self):
        line, rep = self.run_workload(self.ports["tls"], """
protocol = "http2"
connections = 2
streams = 4
rate = 200
tls = true
tls_version = "1.3"
""")
        self.assertEqual(rep["operations"], 100)
        self.assertEqual(line["tls"], "TLSv1.3")
        self.assertEqual(line["alpn"], "h2")
        logged = self.check_all_logged(self.ports["tls"], 100, "HTTP/2.0")
        self.assertEqual({(f[2], f[3]) for f in logged}, {("TLSv1.3", "h2")})
        print(f"INTEROP|peer=nginx|protocol=http2|tls={logged[0][2]}|alpn={logged[0][3]}"
              f"|requests={len(logged)}|result=pass")

    def test_https_over_tls12_and_tls13(self):
        for version in ("1.2", "1.3"):
            line, rep = self.run_workload(self.ports["https"], f"""
protocol = "http1"
connections = 2
rate = 100
tls = true
tls_version = "{version}"
""")
            self.assertEqual(rep["operations"], 50)
            self.assertEqual(line["tls"], "TLSv" + version)
            self.assertEqual(line["alpn"], "http/1.1")
        logged = self.check_all_logged(self.ports["https"], 100, "HTTP/1.1")
        self.assertEqual({(f[2], f[3]) for f in logged},
                         {("TLSv1.2", "http/1.1"), ("TLSv1.3", "http/1.1")})
        print(f"INTEROP|peer=nginx|protocol=http1|tls=TLSv1.2,TLSv1.3|alpn=http/1.1"
              f"|requests={len(logged)}|result=pass")

    def test_tls13_resumption_per_connection(self):
        line, rep = self.run_workload(self.ports["https"], """
protocol = "http1"
connections = 2
tls = true
tls_version = "1.3"
tls_resumption = true
new_connection_per_request = true
""")
        setup = rep["connection_setup"]
        logged = self.log_lines(self.ports["https"])
        # One request per connection, each on its own connection as nginx numbers them.
        self.assertEqual({f[6] for f in logged}, {"1"})
        self.assertEqual(len({f[5] for f in logged}), len(logged))
        # Each of the 2 connections' first handshake is a full one; nginx resumed every other.
        self.assertEqual(setup["resumed"], setup["handshakes"] - 2)
        reused = sum(1 for f in logged if f[4] == "r")
        self.assertEqual(reused, len(logged) - 2)
        self.assertGreater(reused, 0, "no connection resumed: nothing was checked")
        print(f"INTEROP|peer=nginx|protocol=http1|tls={logged[-1][2]}|alpn={logged[-1][3]}"
              f"|new_connection_per_request=true|tls_resumption=true|resumed={reused}/"
              f"{len(logged)}|result=pass")


if __name__ == "__main__":
    unittest.main()
