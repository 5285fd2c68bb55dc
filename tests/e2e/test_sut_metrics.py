"""[router] metrics: a `command` system under test with a Prometheus endpoint on 127.0.0.1
(metrics_server.py) is scraped before and after every measured window, and each window's
counter deltas reach the JSON report and the SQLite store exactly as the server counted them
between the two scrapes. Its counters feed no router-count cross-check; a counter that went
down is left out and said; a scrape that fails fails the run, never reads as 0."""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics_server.py")

SCENARIO = """
name = "e2e_sut_metrics"
[router]
impl = "command"
command = ["{python}", "{server}", "${{port:sut}}", "{log}"]
address = "127.0.0.1:${{port:sut}}"
metrics = "http://127.0.0.1:${{port:sut}}{path}"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 2
timeout = "60s"
workers = 1
connections = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
expect_body_bytes = 12
"""

ROUTER_SCENARIO = """
name = "e2e_sut_metrics_router"
[router]
impl = "command"
command = ["{router}", "--http", "127.0.0.1:${{port:http}}",
           "--metrics-listen", "127.0.0.1:${{port:metrics}}"]
address = "127.0.0.1:${{port:http}}"
metrics = "http://127.0.0.1:${{port:metrics}}/metrics"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 1
timeout = "60s"
workers = 1
connections = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
"""

# The backslash of the label value is escaped in the key (docs/MEASUREMENT.md).
REQUESTS = 'sut_requests_total{note=a "quoted" \\\\ value,path=/bench/hello}'
# What the server exposes that is no count of the window: a gauge, a histogram's _sum, an
# untyped sample, and a counter that goes down on every scrape.
LEFT_OUT = ("sut_in_flight", "sut_latency_seconds_sum", "sut_untyped_total",
            "sut_countdown_total")


class SutMetricsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-sut-metrics-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def orchestrator(self, path="/metrics"):
        self.log = os.path.join(self.dir, "scrapes.jsonl")
        scenario = write_scenario(self.dir, "metrics.toml", SCENARIO.format(
            python=sys.executable, server=SERVER, log=self.log, path=path))
        self.json = os.path.join(self.dir, "out.json")
        self.db = os.path.join(self.dir, "bench.db")
        run = Run(["run", scenario, "--db", self.db, "--json", self.json], cwd=self.dir)
        self.runs.append(run)
        return run.run(timeout=120)

    def scrapes(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def test_each_windows_counter_deltas_are_exactly_what_the_server_counted(self):
        run = self.orchestrator()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        # One scrape before and one after each measured window; none for the warm-up.
        scrapes = self.scrapes()
        self.assertEqual(len(scrapes), 4, scrapes)
        expected = []
        for before, after in (scrapes[0:2], scrapes[2:4]):
            served = after["requests"] - before["requests"]
            self.assertGreater(served, 0, scrapes)
            expected.append({
                REQUESTS: served,
                "sut_scrapes_total": 1,
                'sut_latency_seconds_bucket{le=+Inf}': served,
                "sut_latency_seconds_count": served,
            })

        report = load_json(self.json)
        workload = report["scenarios"][0]["workloads"][0]
        self.assertEqual(len(workload["repetitions"]), 2)
        for rep, counters in zip(workload["repetitions"], expected):
            router = rep["router"]
            self.assertIsNotNone(router, rep)
            self.assertEqual(router["counters"], counters)
            for name in LEFT_OUT:
                self.assertNotIn(name, router["counters"])
            # A foreign system's counters count no requests: no router.requests, and the
            # router-count cross-check is not run on them.
            self.assertNotIn("requests", router)
            self.assertNotIn("router_count_mismatch", rep["flags"])
        # The counter that went down is said, once per window.
        said = [l for l in run.stderr.splitlines() + run.stdout.splitlines()
                if "went down during the window" in l]
        self.assertEqual(len(said), 2, run.stdout + run.stderr)
        self.assertIn("sut_countdown_total", said[0])

        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT r.idx, m.name, m.value FROM router_metrics m "
                "JOIN repetitions r ON r.id = m.repetition_id ORDER BY r.idx, m.name").fetchall()
            requests = db.execute("SELECT router_requests FROM repetitions").fetchall()
        stored = [{}, {}]
        for idx, name, value in rows:
            stored[idx][name] = value
        self.assertEqual(stored, expected)
        self.assertEqual(requests, [(None,), (None,)])

    def test_the_bundled_router_run_as_a_command_is_scraped_from_its_metrics_listen(self):
        # A real exporter (prometheus-cpp, which writes NaN as "Nan"): its request counter's
        # delta is the workers' operations, within the one request in flight.
        self.json = os.path.join(self.dir, "router.json")
        scenario = write_scenario(self.dir, "router.toml", ROUTER_SCENARIO.format(
            router=os.path.join(BIN, "router")))
        run = Run(["run", scenario, "--db", os.path.join(self.dir, "router.db"),
                   "--json", self.json], cwd=self.dir)
        self.runs.append(run)
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        rep = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"][0]
        counted = rep["router"]["counters"][
            "benchgate_router_http_requests_total{route=/bench/hello,status=200}"]
        self.assertGreater(counted, 0)
        self.assertLessEqual(abs(counted - rep["operations"]), 1, rep["router"]["counters"])
        self.assertNotIn("requests", rep["router"])

    def test_a_scrape_that_fails_fails_the_run_naming_the_line(self):
        run = self.orchestrator(path="/broken")
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        said = run.stdout + run.stderr
        self.assertIn("scraping the system under test's metrics at http://127.0.0.1:", said)
        self.assertIn("/broken: line 3: expected a label name or '}'", said)
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT count(*) FROM router_metrics").fetchone(), (0,))


if __name__ == "__main__":
    unittest.main()
