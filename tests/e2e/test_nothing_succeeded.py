"""A workload whose every request failed is a failed workload, through the real binaries.

The bundled router answers 404 to a target it does not serve: every request of the workload is a
`status` error and none succeeds. The workload is `failed` with the counts and the kind, the run
exits 3 and is stored `failed`, every report gives the reason, and --promote does not make it a
baseline. The same workload with expect_failures = true stays `ok` (docs/SCENARIOS.md), and a
workload of successes beside them is `ok`. Exact counts, never speed.
"""
import os
import shutil
import sqlite3
import tempfile
import unittest
import xml.etree.ElementTree as ET

from harness import Run, kill_tagged, load_json, write_scenario

SCENARIO = """
name = "e2e_nothing_succeeded"
[router]
threads = 1
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 2
connections = 2

[[workloads]]
name = "not_found"
protocol = "http1"
target = "/no/such/route"

[[workloads]]
name = "not_found_expected"
protocol = "http1"
target = "/no/such/route"
expect_failures = true

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
"""


class NothingSucceededTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-nothing-succeeded-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_a_workload_whose_every_request_failed_fails_the_run(self):
        path = write_scenario(self.dir, "scenario.toml", SCENARIO)
        out = os.path.join(self.dir, "out.json")
        junit = os.path.join(self.dir, "out.xml")
        markdown = os.path.join(self.dir, "out.md")
        db = os.path.join(self.dir, "db.sqlite")
        run = Run(["run", path, "--json", out, "--junit", junit, "--markdown", markdown,
                   "--db", db, "--promote", "main"])
        self.runs.append(run)
        run.run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        scenario = load_json(out)["scenarios"][0]
        workloads = {w["name"]: w for w in scenario["workloads"]}
        failed = workloads["not_found"]
        self.assertEqual(failed["status"], "failed", failed)
        # Both repetitions are kept as they came: every request an error of kind status.
        self.assertEqual(len(failed["repetitions"]), 2)
        requests = 0
        for rep in failed["repetitions"]:
            self.assertGreater(rep["operations"], 0, rep)
            self.assertEqual(rep["successes"], 0, rep)
            self.assertEqual(rep["errors_by_kind"], {"status": rep["operations"]}, rep)
            requests += rep["operations"]
        reason = (f"no request succeeded in 2 repetitions: {requests} requests, {requests} "
                  f"errors (status {requests})")
        self.assertEqual(failed["error"], reason)
        self.assertEqual(scenario["status"], "failed")
        self.assertEqual(scenario["error"], f"workload 'not_found' failed: {reason}")

        # Failing on purpose: the same errors, ok.
        expected = workloads["not_found_expected"]
        self.assertEqual(expected["status"], "ok", expected)
        self.assertEqual(len(expected["repetitions"]), 2)
        for rep in expected["repetitions"]:
            self.assertEqual(rep["successes"], 0, rep)
            self.assertEqual(rep["errors_by_kind"], {"status": rep["operations"]}, rep)
        self.assertEqual(workloads["hello"]["status"], "ok", workloads["hello"])

        lines = {l["workload"]: l for l in run.result_lines()}
        self.assertEqual(lines["not_found"]["status"], "failed")
        self.assertEqual(lines["not_found_expected"]["status"], "ok")
        self.assertEqual(lines["hello"]["status"], "ok")
        self.assertIn(f"FAILED: {reason}", run.stdout)

        messages = [f.get("message") for f in ET.parse(junit).getroot().iter("failure")]
        self.assertTrue(any(reason in (m or "") for m in messages), messages)
        with open(markdown) as f:
            self.assertIn(reason, f.read())

        # Stored failed, and never a baseline.
        self.assertIn("not promoted", run.stdout)
        with sqlite3.connect(db) as conn:
            self.assertEqual(conn.execute("SELECT status FROM runs").fetchall(), [("failed",)])
            rows = dict(conn.execute("SELECT name, status FROM workloads").fetchall())
            self.assertEqual(rows, {"not_found": "failed", "not_found_expected": "ok",
                                    "hello": "ok"})
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM baselines").fetchone(), (0,))


if __name__ == "__main__":
    unittest.main()
