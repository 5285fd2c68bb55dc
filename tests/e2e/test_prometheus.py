"""A real Prometheus scrapes a real run: every PromQL expression of dashboards/ and of the alert
rules returns data, both /metrics endpoints pass `promtool check metrics`, the configs pass
`promtool check config` / `check rules` / `test rules`, and --pushgateway pushes the final
values. Loopback only; every process is stopped at the end."""
import glob
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

from harness import BIN, Run, kill_tagged, write_scenario

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")

PHASES = """
[defaults]
warmup = "200ms"
duration = "600ms"
repetitions = 2
"""

BUILTIN = """
name = "prom_builtin"
""" + PHASES + """
[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 4

[[gates]]
workload = "hello"
metric = "errors.count"
max = 0

[[gates]]
workload = "hello"
metric = "latency.p99"
max = "1ns"    # impossible: the gate-failed alert must fire
"""

EXTERNAL = """
name = "prom_external"
[router]
impl = "external"
address = "{address}"
""" + PHASES + """
[[workloads]]
name = "bytes"
protocol = "http1"
target = "/bench/bytes/256"
connections = 2
"""

# A system under test that cannot start: the run-errored alert must fire.
ERRORED = """
name = "prom_errored"
[router]
impl = "command"
command = ["{missing}"]
address = "127.0.0.1:1"
""" + PHASES + """
[[workloads]]
name = "never"
protocol = "http1"
target = "/bench/hello"
connections = 1
"""

# Expressions that depend on a condition the test cannot force on a shared machine (a worker
# using 90% of its CPU): the series must exist; the comparison is checked by `promtool test
# rules` (docker/prometheus/alerts_test.yml).
CONDITIONAL_ALERTS = {"BenchgateWorkerSaturated"}

GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$scenario": ".+", "$workload": ".+"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def dashboard_expressions():
    """(where, PromQL) for every panel target and every label_values() variable query."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "dashboards", "*.json"))):
        with open(path) as f:
            board = json.load(f)
        name = os.path.basename(path)
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                found.append((f"{name}: {panel['title']}", target["expr"]))
        for variable in board["templating"]["list"]:
            query = variable.get("query")
            if isinstance(query, dict):
                m = re.fullmatch(r"label_values\((.*),\s*\w+\)", query["query"])
                if m:
                    found.append((f"{name}: variable {variable['name']}", m.group(1)))
    return found


def alert_expressions():
    """(alert name, PromQL) of docker/prometheus/alerts.yml (simple YAML: one line per expr)."""
    found, name = [], None
    with open(os.path.join(ROOT, "docker/prometheus/alerts.yml")) as f:
        for line in f:
            m = re.match(r"\s*- alert:\s*(\S+)", line)
            if m:
                name = m.group(1)
            m = re.match(r"\s*expr:\s*(.+)$", line)
            if m:
                found.append((name, m.group(1).strip()))
    return found


class FakePushgateway(http.server.BaseHTTPRequestHandler):
    received = []

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        FakePushgateway.received.append((self.path, body))
        self.send_response(200)
        self.end_headers()

    do_POST = do_PUT

    def log_message(self, *args):
        pass


@unittest.skipUnless(PROMETHEUS and PROMTOOL, "Debian package prometheus is not installed")
class PrometheusTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-prom-")
        self.processes = []
        self.tags = []

    def tearDown(self):
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        for tag in self.tags:
            kill_tagged(tag)
        shutil.rmtree(self.dir, ignore_errors=True)

    def promtool(self, *args, stdin=None):
        return subprocess.run([PROMTOOL, *args], input=stdin, capture_output=True, text=True,
                              timeout=30)

    def assert_promtool_metrics_clean(self, url):
        text = http_get(url)
        self.assertIn("# TYPE", text)
        checked = self.promtool("check", "metrics", stdin=text)
        self.assertEqual((checked.returncode, checked.stdout + checked.stderr), (0, ""),
                         f"promtool check metrics on {url}")

    def start_router(self, tag):
        env = dict(os.environ, BENCHGATE_TEST_TAG=tag)
        router = subprocess.Popen(
            [os.path.join(BIN, "router"), "--http", "127.0.0.1:0", "--control", "127.0.0.1:0",
             "--metrics-listen", "127.0.0.1:0"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.processes.append(router)
        ready = router.stdout.readline()
        fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
        self.assertIn("metrics", fields, ready)
        return fields["http"], fields["metrics"]

    def start_prometheus(self, orchestrator_metrics, router_metrics):
        shutil.copy(os.path.join(ROOT, "docker/prometheus/alerts.yml"), self.dir)
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""
global:
  scrape_interval: 200ms
  scrape_timeout: 150ms
  evaluation_interval: 200ms
rule_files: [alerts.yml]
scrape_configs:
  - job_name: benchgate
    static_configs: [{{targets: ["{orchestrator_metrics}"]}}]
  - job_name: benchgate-router
    static_configs: [{{targets: ["{router_metrics}"]}}]
""")
        checked = self.promtool("check", "config", config)
        self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
        port = free_port()
        log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.addCleanup(log.close)
        prometheus = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(self.dir, 'data')}",
             f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
            stdout=log, stderr=log, cwd=self.dir)
        self.processes.append(prometheus)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if "Ready" in http_get(base + "/-/ready", timeout=1):
                    return base
            except OSError:
                time.sleep(0.1)
        self.fail("Prometheus did not become ready")

    def query(self, base, expr):
        url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        answer = json.loads(http_get(url))
        self.assertEqual(answer["status"], "success", expr)
        data = answer["data"]
        if data["resultType"] == "scalar":
            return [data["result"]]
        return data["result"]

    def expressions_without_data(self, base):
        missing = []
        for where, expr in dashboard_expressions():
            concrete = expr
            for name, value in GRAFANA_VARIABLES.items():
                concrete = concrete.replace(name, value)
            if not self.query(base, concrete):
                missing.append(f"{where}: {concrete}")
        for alert, expr in alert_expressions():
            if self.query(base, expr):
                continue
            if alert in CONDITIONAL_ALERTS:
                series = re.sub(r"\s*(==|!=|>=|<=|>|<)\s*[0-9.]+\s*$", "", expr)
                if self.query(base, series):
                    continue
            missing.append(f"alert {alert}: {expr}")
        return missing

    def wait_for(self, base, expr, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.query(base, expr):
                return
            time.sleep(0.2)
        self.fail(f"Prometheus never had data for {expr}")

    def test_prometheus_scrapes_a_run_and_every_dashboard_and_alert_expression_has_data(self):
        rules_dir = os.path.join(ROOT, "docker/prometheus")
        for args in (("check", "rules", os.path.join(rules_dir, "alerts.yml")),
                     ("check", "config", os.path.join(rules_dir, "prometheus.yml"))):
            checked = self.promtool(*args)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
        tested = subprocess.run([PROMTOOL, "test", "rules", "alerts_test.yml"], cwd=rules_dir,
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(tested.returncode, 0, tested.stdout + tested.stderr)

        gateway = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakePushgateway)
        threading.Thread(target=gateway.serve_forever, daemon=True).start()
        self.addCleanup(gateway.server_close)
        self.addCleanup(gateway.shutdown)

        router_tag = "router-" + os.urandom(4).hex()
        self.tags.append(router_tag)
        router_http, router_metrics = self.start_router(router_tag)
        files = [
            write_scenario(self.dir, "builtin.toml", BUILTIN),
            write_scenario(self.dir, "external.toml", EXTERNAL.format(address=router_http)),
            write_scenario(self.dir, "errored.toml",
                           ERRORED.format(missing=os.path.join(self.dir, "no-such-server"))),
        ]
        run = Run(["run", *files, "--db", os.path.join(self.dir, "bench.db"),
                   "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "60s",
                   "--pushgateway", f"http://127.0.0.1:{gateway.server_address[1]}"],
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.start()
        self.processes.append(run.proc)
        seen = run.wait_for_stderr("metrics: serving", timeout=30)
        orchestrator_metrics = re.search(r"http://(\S+)/metrics", seen).group(1)
        base = self.start_prometheus(orchestrator_metrics, router_metrics)

        self.assert_promtool_metrics_clean(f"http://{orchestrator_metrics}/metrics")
        self.assert_promtool_metrics_clean(f"http://{router_metrics}/metrics")
        finished = run.wait_for_stderr("metrics: run finished", timeout=120)
        self.assertIn("metrics: pushed to", finished)
        # Final values: the errored scenario finished last.
        self.wait_for(base, 'benchgate_last_run_exit_code{scenario="prom_errored"}')
        self.wait_for(base, 'benchgate_gate_verdict{scenario="prom_builtin"}')
        self.assert_promtool_metrics_clean(f"http://{orchestrator_metrics}/metrics")

        # rate() and increase() need two samples of a series: on a loaded machine the scrape
        # that gives a late series its second sample may still be due, so the expressions
        # without data are asked again until the deadline (it only fails on no data at all).
        deadline = time.monotonic() + 20
        while True:
            missing = self.expressions_without_data(base)
            if not missing or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual(missing, [], "expressions without data")

        alerts = json.loads(http_get(base + "/api/v1/alerts"))["data"]["alerts"]
        names = {a["labels"]["alertname"] for a in alerts}
        self.assertTrue({"BenchgateGateFailed", "BenchgateRunErrored"} <= names, alerts)

        run.signal(signal.SIGTERM)  # ends the linger; the run's own exit code stays
        run.finish(timeout=30)
        self.assertEqual(run.returncode, 3, run.stderr)  # prom_errored could not start
        self.assertEqual(run.leftovers(), [])
        paths = [p for p, _ in FakePushgateway.received]
        self.assertTrue(any(p.startswith("/metrics/job/benchgate") for p in paths), paths)
        self.assertTrue(any("benchgate_gate_verdict{" in body
                            for _, body in FakePushgateway.received))


if __name__ == "__main__":
    unittest.main()
