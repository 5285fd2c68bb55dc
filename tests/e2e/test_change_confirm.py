"""A change gate with `confirm = 1` through real runs (docs/GATES.md, "Confirming rerun"): when
the gate would fail, the workload is measured once more in the same run, at once, and the
rerun decides. A small HTTP server of this test answers every request after a delay the test
sets. Two series (two scenario names, one server): in each, 5 runs at the fast delay, then a
run at three times the delay. In the first series the server stays slow through the rerun, so
the failure is confirmed (exit 1); in the second the test makes it fast again as soon as the
orchestrator says it measures again (on stderr, before the rerun's warm-up), so the rerun
clears the run (exit 0). Every output says which: the terminal, JSON, JUnit, Markdown,
gate_results; the first measurement stays the run's figure and series point, and `orchestrator
gate` judges the stored rerun again. Checks verdicts and exit codes, never speed: the change is
a factor of 3 in the median latency and the gate's minimum change is 50%."""
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
name = "{name}"
[router]
impl = "external"
address = "127.0.0.1:{port}"

[defaults]
warmup = "200ms"
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
confirm = 1
"""

FAST_S, SLOW_S = 0.020, 0.060
NEEDED = 5  # runs of history a change gate at alpha 0.2 needs (1/6 < 0.2)
RERUN_SAID = "measuring the workload once more to confirm (confirm = 1)"


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


class ConfirmingRerunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-e2e-change-confirm-")
        cls.db = os.path.join(cls.dir, "bench.db")
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), DelayHandler)
        cls.server.daemon_threads = True
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.runs = {}
        for series in ("confirmed", "cleared"):
            path = write_scenario(cls.dir, series + ".toml", SCENARIO.format(
                name="e2e_confirm_" + series, port=cls.server.server_address[1]))
            for i in range(1, NEEDED + 2):
                cls.server.delay_s = FAST_S if i <= NEEDED else SLOW_S
                out = os.path.join(cls.dir, f"{series}{i}")
                run = Run(["run", path, "--db", cls.db, "--commit", f"{series}{i:02d}",
                           "--json", out + ".json", "--junit", out + ".xml",
                           "--markdown", out + ".md"])
                if series == "cleared" and i == NEEDED + 1:
                    # The rerun starts with its warm-up after this line: the server is fast
                    # again for every window the rerun measures.
                    run.start()
                    said = run.wait_for_stderr(RERUN_SAID, timeout=120)
                    cls.server.delay_s = FAST_S
                    run.finish(timeout=120)
                    run.stderr = said + run.stderr
                else:
                    run.run(timeout=120)
                if run.leftovers() != []:
                    raise AssertionError(f"{series} run {i} left processes behind")
                cls.runs[(series, i)] = run

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def gate_json(self, series, i):
        with open(os.path.join(self.dir, f"{series}{i}.json")) as f:
            doc = json.load(f)
        gates = [g for s in doc["scenarios"] for g in s["gates"]]
        self.assertEqual(len(gates), 1, doc)
        return gates[0], doc["scenarios"][0]

    def stored(self, run_id):
        with sqlite3.connect(self.db) as db:
            return db.execute(
                "SELECT verdict, confirmation, observed, confirmation_observed, p_value, "
                "confirmation_p_value, explanation FROM gate_results WHERE run_id = ? "
                "ORDER BY evaluation DESC LIMIT 1", (run_id,)).fetchone()

    def run_id(self, series, i):
        return int(self.runs[(series, i)].result_lines()[0]["run"])

    def test_no_rerun_while_the_gate_does_not_fail(self):
        for series in ("confirmed", "cleared"):
            for i in range(1, NEEDED + 1):
                run = self.runs[(series, i)]
                self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
                self.assertNotIn(RERUN_SAID, run.stderr)
                gate, _ = self.gate_json(series, i)
                self.assertEqual(gate["verdict"], "no_baseline", gate)
                self.assertIsNone(gate["confirmation"], gate)

    def test_a_slowdown_that_stays_is_confirmed_by_the_rerun(self):
        i = NEEDED + 1
        run = self.runs[("confirmed", i)]
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("hello: change gate #1 (latency.p50) fails: ", run.stderr)
        self.assertEqual(run.stderr.count(RERUN_SAID), 1, run.stderr)
        self.assertRegex(run.stdout, r"fail, confirmed by the rerun\s+critical\s+hello\s+"
                                     r"latency.p50")
        # One workload table and one RESULT line: the rerun is not a workload of the run.
        self.assertEqual(len(run.result_lines()), 1, run.stdout)
        self.assertEqual(run.stdout.count("\nhello: GET /bench/hello"), 1, run.stdout)
        gate, scenario = self.gate_json("confirmed", i)
        self.assertEqual((gate["verdict"], gate["confirmation"]), ("fail", "confirmed"))
        self.assertIn("; confirmed by the rerun: ", gate["explanation"])
        self.assertGreater(gate["confirmation_observed"], gate["baseline_centre"] * 1.5)
        self.assertAlmostEqual(gate["confirmation_p_value"], 1 / (NEEDED + 1))
        self.assertEqual(len(scenario["workloads"]), 1)
        suite = ET.parse(os.path.join(self.dir, f"confirmed{i}.xml")).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")
        self.assertIn("confirmed by the rerun", ET.tostring(suite, encoding="unicode"))
        with open(os.path.join(self.dir, f"confirmed{i}.md")) as f:
            self.assertIn("| **fail, confirmed by the rerun** | critical | hello | default | "
                          "latency.p50 |", f.read())
        verdict, confirmation, observed, rerun_observed, p, rerun_p, _ = \
            self.stored(self.run_id("confirmed", i))
        self.assertEqual((verdict, confirmation), ("fail", "confirmed"))
        self.assertEqual(observed, gate["observed"])
        self.assertEqual(rerun_observed, gate["confirmation_observed"])
        self.assertAlmostEqual(rerun_p, 1 / (NEEDED + 1))

    def test_a_slowdown_gone_by_the_rerun_is_cleared_and_the_run_passes(self):
        i = NEEDED + 1
        run = self.runs[("cleared", i)]
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(RERUN_SAID, run.stderr)
        self.assertRegex(run.stdout, r"pass, cleared by the rerun\s+critical\s+hello\s+"
                                     r"latency.p50")
        gate, _ = self.gate_json("cleared", i)
        self.assertEqual((gate["verdict"], gate["confirmation"]), ("pass", "cleared"))
        self.assertIn("; cleared by the rerun: ", gate["explanation"])
        # The first measurement stays the run's figure: the gate's observed, its RESULT line
        # and its point in the series are the slow one; the rerun's is beside it.
        self.assertGreater(gate["observed"], gate["baseline_centre"] * 1.5)
        self.assertLess(gate["confirmation_observed"], gate["baseline_centre"] * 1.5)
        self.assertAlmostEqual(float(run.result_lines()[0]["p50_us"]) / 1e6, gate["observed"],
                               places=6)
        with open(os.path.join(self.dir, f"cleared{i}.md")) as f:
            self.assertIn("| **pass, cleared by the rerun** | critical | hello |", f.read())
        suite = ET.parse(os.path.join(self.dir, f"cleared{i}.xml")).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "0")
        verdict, confirmation, observed, rerun_observed, _, _, explanation = \
            self.stored(self.run_id("cleared", i))
        self.assertEqual((verdict, confirmation), ("pass", "cleared"))
        self.assertIn("cleared by the rerun", explanation)
        with sqlite3.connect(self.db) as db:
            point = db.execute(
                "SELECT value FROM series_history WHERE scenario = 'e2e_confirm_cleared' AND "
                "run_id = ? AND metric = 'latency.p50'", (self.run_id("cleared", i),)).fetchone()
        self.assertEqual(point[0], observed)

    def test_gate_judges_the_stored_rerun_again(self):
        for series, code, verdict in (("confirmed", 1, "fail, confirmed by the rerun"),
                                      ("cleared", 0, "pass, cleared by the rerun")):
            run_id = self.run_id(series, NEEDED + 1)
            again = Run(["gate", str(run_id), "--db", self.db]).run(timeout=60)
            self.assertEqual(again.returncode, code, again.stdout + again.stderr)
            self.assertIn(verdict, again.stdout)
            self.assertEqual(self.stored(run_id)[:2], tuple(verdict.replace(" by the rerun", "")
                                                            .split(", ")))
            shown = Run(["runs", "show", str(run_id), "--db", self.db]).run(timeout=60)
            self.assertIn(verdict, shown.stdout)


if __name__ == "__main__":
    unittest.main()
