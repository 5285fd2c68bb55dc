"""A change gate (`kind = "change"`) through real runs: the orchestrator and worker measure a
small HTTP server of this test, which answers every request after a delay the test sets (as in
test_changes.py). While the delay stays put the gate has no baseline (too few runs) and then
passes; the run after the delay tripled fails it with exit 1, in every output (terminal,
JSON, JUnit, Markdown, gate_results); `orchestrator gate` re-judges that stored run against the
history it had. Checks verdicts and exit codes, never speed: the injected change is a factor
of 3 in the median latency and the gate's minimum change is 50%."""
import http.server
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import Run, write_scenario

SCENARIO = """
name = "e2e_change_gate"
[router]
impl = "external"
address = "127.0.0.1:{port}"

[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 3
workers = 1
connections = 2

[[workloads]]
name = "hello"
target = "/bench/hello"

[[gates]]
workload = "hello"
metric = "latency.p50"
kind = "change"
alpha = 0.2
min_change = "50%"
"""

FAST_S, SLOW_S = 0.020, 0.060
NEEDED = 5  # runs of history a change gate at alpha 0.2 needs (1/6 < 0.2)


class DelayHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self):
        time.sleep(self.server.delay_s)
        body = b"Hello, world"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class ChangeGateThroughRealRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-e2e-change-gate-")
        cls.db = os.path.join(cls.dir, "bench.db")
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), DelayHandler)
        cls.server.daemon_threads = True
        cls.server.delay_s = FAST_S
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.path = write_scenario(cls.dir, "change_gate.toml",
                                  SCENARIO.format(port=cls.server.server_address[1]))
        cls.runs = []
        for i in range(1, NEEDED + 2):
            cls.server.delay_s = FAST_S if i <= NEEDED else SLOW_S
            out = os.path.join(cls.dir, f"run{i}")
            run = Run(["run", cls.path, "--db", cls.db, "--commit", f"commit{i:02d}",
                       "--json", out + ".json", "--junit", out + ".xml",
                       "--markdown", out + ".md"]).run(timeout=120)
            if run.leftovers() != []:
                raise AssertionError(f"run {i} left processes behind")
            cls.runs.append(run)

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def gate_json(self, i):
        with open(os.path.join(self.dir, f"run{i}.json")) as f:
            doc = json.load(f)
        gates = [g for s in doc["scenarios"] for g in s["gates"]] if "scenarios" in doc \
            else doc["gates"]
        self.assertEqual(len(gates), 1, doc)
        return gates[0]

    def test_too_short_a_history_has_no_baseline_and_exits_0(self):
        for i in range(1, NEEDED + 1):
            run = self.runs[i - 1]
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            gate = self.gate_json(i)
            self.assertEqual(gate["kind"], "change")
            self.assertEqual(gate["verdict"], "no_baseline", gate)
            self.assertIn(f"{i - 1} run", gate["explanation"])
            self.assertIn(f"needs {NEEDED}", gate["explanation"])

    def test_the_run_after_the_slowdown_fails_in_every_output(self):
        i = NEEDED + 1
        run = self.runs[i - 1]
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"fail\s+critical\s+hello\s+latency.p50")
        self.assertIn("starts a change", run.stdout)
        gate = self.gate_json(i)
        self.assertEqual((gate["kind"], gate["verdict"], gate["method"]),
                         ("change", "fail", "e-divisive"))
        self.assertEqual(gate["baseline_runs"], list(range(1, NEEDED + 1)))
        self.assertAlmostEqual(gate["p_value"], 1 / (NEEDED + 1))
        self.assertEqual(gate["alpha"], 0.2)
        self.assertGreater(gate["observed"], gate["baseline_centre"] * 1.5)
        suite = ET.parse(os.path.join(self.dir, f"run{i}.xml")).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")
        with open(os.path.join(self.dir, f"run{i}.md")) as f:
            self.assertIn("| **fail** | critical | hello | default | latency.p50 |", f.read())
        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT kind, verdict, method, baseline_runs, alpha FROM "
                              "gate_results WHERE run_id = ? AND evaluation = 1", (i,)).fetchall()
        self.assertEqual(rows, [("change", "fail", "e-divisive",
                                 json.dumps(list(range(1, NEEDED + 1))).replace(" ", ""), 0.2)])

    def test_gate_rejudges_a_stored_run_against_the_history_it_had(self):
        again = Run(["gate", str(NEEDED + 1), "--db", self.db]).run(timeout=60)
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        self.assertIn("starts a change", again.stdout)
        first = Run(["gate", "1", "--db", self.db]).run(timeout=60)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        self.assertIn("no_baseline", first.stdout)


if __name__ == "__main__":
    unittest.main()
