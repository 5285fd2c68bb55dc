"""`orchestrator history changes` through real runs: the orchestrator and worker measure the
bundled router, started as a command with its calibration knob `router --inject-work-ns N`
(busy work of N ns per request, docs/GATES.md, "Calibration"). Part way through the series N
grows tenfold, as a slowdown landing in a commit would; the change must be found at that run, stored
when the run lands (table change_points), and reported in the table, the CHANGE| lines and
JSON. Bad flag values exit 2. Checks runs and counts, never speed: with one connection each
request waits for its own work, so the median latency follows N, 0.5 ms before and 5 ms after;
a run's one 200 ms window holds about 40 requests of 5 ms, whose median a few slow first
requests (no warm-up) leave where it is. One window a run: the change points are found in the
series of runs, whose length (16) is what their p-values need; more windows a run only cost
time.
The work is a busy loop on the clock, so a loaded machine, whose other processes take the
router's CPU away, stretches it by a factor that changes from run to run (up to 3 times was
seen on the shared 2-core machine) but never shortens it: a factor of 10 leaves the two levels
apart, and a minimum change of 100% ignores the machine's own drift."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

import xml.etree.ElementTree as ET

import browser
from harness import BIN, Run, write_scenario

SCENARIO = """
name = "e2e_changes"
[router]
impl = "command"
command = ["{router}", "--http", "127.0.0.1:${{port:http}}", "--control", "127.0.0.1:0",
           "--threads", "1", "--inject-work-ns", "{inject_ns}"]
address = "127.0.0.1:${{port:http}}"

[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
workers = 1
connections = 1

[[workloads]]
name = "hello"
target = "/bench/hello"

# Never fails (no request takes 10 s); gated, the metric's history is in the HTML report.
[[gates]]
workload = "hello"
metric = "latency.p50"
max = "10s"
"""

BEFORE, AFTER = 8, 8                 # runs at each amount of work
FAST_NS, SLOW_NS = 500_000, 5_000_000  # the router's work per request before and after


def tagged_lines(stdout, tag):
    lines = [l for l in stdout.splitlines() if l.startswith(tag + "|")]
    return [dict(kv.split("=", 1) for kv in l.split("|")[1:]) for l in lines]


class ChangesThroughRealRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-e2e-changes-")
        cls.db = os.path.join(cls.dir, "bench.db")
        router = os.path.abspath(os.path.join(BIN, "router"))
        for i in range(1, BEFORE + AFTER + 1):
            path = write_scenario(cls.dir, "changes.toml", SCENARIO.format(
                router=router, inject_ns=FAST_NS if i <= BEFORE else SLOW_NS))
            run = Run(["run", path, "--db", cls.db, "--commit", f"commit{i:02d}"]).run(timeout=120)
            if run.returncode != 0:
                raise AssertionError(f"run {i} exited {run.returncode}:\n{run.stderr}")
            if run.leftovers() != []:
                raise AssertionError(f"run {i} left processes behind")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def changes(self, *args):
        run = Run(["history", "changes", "--db", self.db, *args]).run(timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run

    def series(self, doc, metric):
        found = [s for s in doc["series"] if s["metric"] == metric and s["workload"] == "hello"]
        self.assertEqual(len(found), 1, doc)
        return found[0]

    def test_the_slowdown_is_found_at_the_run_where_it_landed(self):
        # A minimum of 100%: the machine's own drift (other work on it) is far smaller than
        # the injected factor of 10, and is not what this test is about.
        doc = json.loads(self.changes("--min-change", "100%", "--json").stdout)
        self.assertEqual(doc["min_change"], 1.0)
        p50 = self.series(doc, "latency.p50")
        self.assertEqual(p50["runs"], BEFORE + AFTER)
        self.assertEqual(len(p50["change_points"]), 1, p50)
        change = p50["change_points"][0]
        self.assertEqual(change["run_id"], BEFORE + 1)
        self.assertEqual(change["previous_run_id"], BEFORE)
        self.assertEqual(change["commit"], f"commit{BEFORE + 1:02d}")
        self.assertEqual(change["previous_commit"], f"commit{BEFORE:02d}")
        self.assertEqual(change["direction"], "worse")
        self.assertGreater(change["change"], 1.0)  # ten times the work: well over +100%
        self.assertLess(change["change_low"], change["change"])
        self.assertGreater(change["change_high"], change["change"])
        self.assertLess(change["p_value"], 0.01)
        self.assertGreaterEqual(change["median_before"], FAST_NS / 1e9)
        self.assertGreaterEqual(change["median_after"], SLOW_NS / 1e9)
        # Only the median latency is held to exactly one change: on a loaded machine a stall of
        # the router moves a run's throughput and tail latency, never its median.

    def test_a_filter_that_matches_no_run_has_no_series(self):
        run = self.changes("--scenario", "no_such_scenario")
        self.assertEqual(run.stdout, f"no finished runs match in {self.db}\n")
        doc = json.loads(self.changes("--scenario", "no_such_scenario", "--json").stdout)
        self.assertEqual(doc["series"], [])

    def test_each_run_updated_the_stored_change_points_as_it_landed(self):
        doc = json.loads(self.changes("--json").stdout)
        self.assertTrue(doc["series"])
        self.assertTrue(all(s["from_store"] for s in doc["series"]), doc)
        self.assertIn(BEFORE + 1, [c["run_id"] for c in self.series(doc, "latency.p50")
                                   ["change_points"]])
        with sqlite3.connect(self.db) as db:
            stored = db.execute(
                "SELECT s.points, s.last_run_id, c.run_id, c.previous_run_id FROM change_points c "
                "JOIN change_series s ON s.id = c.series_id "
                "WHERE s.workload = 'hello' AND s.metric = 'latency.p50'").fetchall()
        self.assertIn((BEFORE + AFTER, BEFORE + AFTER, BEFORE + 1, BEFORE), stored)

    def test_the_reports_history_chart_marks_the_stored_change_point(self):
        out = os.path.join(self.dir, "last.html")
        report = Run(["report", str(BEFORE + AFTER), "--db", self.db, "--html", out]).run(60)
        self.assertEqual(report.returncode, 0, report.stderr)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        ET.fromstring(html.split("\n", 1)[1])
        chart = re.search(r'<svg [^>]*data-chart="history"[^>]*aria-label="hello '
                          r'latency.p50[^"]*".*?</svg>', html, re.S)
        self.assertIsNotNone(chart, "no history chart of hello latency.p50")
        markers = re.findall(r'<line class="marker" data-marker="([^"]*)"', chart.group(0))
        self.assertIn(f"at run {BEFORE + 1}", " | ".join(markers))
        self.assertTrue(any(m.startswith("change +") and m.endswith(f"at run {BEFORE + 1}")
                            for m in markers), markers)
        if browser.chromium():
            artifacts = os.path.join(BIN, "..", "test-artifacts", "report")
            os.makedirs(artifacts, exist_ok=True)
            with browser.Browser() as b:
                url = "file://" + os.path.abspath(out)
                b.open(url)
                self.assertEqual(b.errors(), [])
                self.assertEqual(b.requests(), [url])
                shown = b.evaluate("[...document.querySelectorAll('svg[data-chart=history] "
                                   "line.marker')].map(e => e.dataset.marker)")
                self.assertEqual(shown, markers)
                b.screenshot(os.path.join(artifacts, "history-change-points.png"))

    def test_table_and_change_lines_name_the_run_and_the_commits(self):
        run = self.changes("--metric", "latency.p50", "--min-change", "100%")
        lines = tagged_lines(run.stdout, "CHANGE")
        self.assertEqual(len(lines), 1, run.stdout)
        line = lines[0]
        self.assertEqual(line["scenario"], "e2e_changes")
        self.assertEqual(line["workload"], "hello")
        self.assertEqual(line["metric"], "latency.p50")
        self.assertEqual(line["run"], str(BEFORE + 1))
        self.assertEqual(line["previous_run"], str(BEFORE))
        self.assertEqual(line["commit"], f"commit{BEFORE + 1:02d}")
        self.assertEqual(line["direction"], "worse")
        self.assertGreater(float(line["change_pct"]), 100)
        table = run.stdout.splitlines()
        self.assertTrue(table[0].split()[:6] ==
                        ["SCENARIO", "WORKLOAD", "VARIANT", "METRIC", "TESTBED", "RUN"], table)
        self.assertIn(f"commit{BEFORE:02d}..commit{BEFORE + 1:02d}", table[1])
        self.assertIn("1 change point in 1 series (16 run values)", run.stdout)

    def test_since_leaves_out_earlier_changes(self):
        run = self.changes("--metric", "latency.p50", "--min-change", "100%",
                           "--since", str(BEFORE + 2))
        self.assertEqual(tagged_lines(run.stdout, "CHANGE"), [])
        self.assertIn("0 change points in 1 series", run.stdout)
        run = self.changes("--metric", "latency.p50", "--min-change", "100%",
                           "--since", "2000-01-01")
        self.assertEqual(len(tagged_lines(run.stdout, "CHANGE")), 1)


class ChangesUsageTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-changes-usage-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_missing_database_is_an_error_and_is_not_created(self):
        db = os.path.join(self.dir, "missing.db")
        run = Run(["history", "changes", "--db", db]).run(timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr, f"error: no database at {db}; run `orchestrator run` first "
                                     "or pass --db\n")
        self.assertFalse(os.path.exists(db))

    def test_bad_flag_values_exit_2_naming_the_flag(self):
        db = os.path.join(self.dir, "empty.db")
        sqlite3.connect(db).close()
        for args, needle in [
                (["--alpha", "0"], "--alpha 0: must be above 0.002"),
                (["--alpha", "0.9"], "--alpha 0.9: must be above"),
                (["--min-change", "five"], "--min-change 'five': expected a percentage"),
                (["--min-change", "-1%"], "--min-change '-1%'"),
                (["--since", "last week"], "--since 'last week': expected a run id"),
                (["--since", "2024-13-45"], "--since '2024-13-45'"),
                (["--metric", "errors.total"], "--metric 'errors.total': change points are "
                                               "looked for in throughput.rps"),
                (["--testbed", "-3"], "--testbed -3: expected a testbed id")]:
            run = Run(["history", "changes", "--db", db, *args]).run(timeout=30)
            self.assertEqual(run.returncode, 2, (args, run.stderr))
            self.assertIn(needle, run.stderr, args)
            self.assertEqual(run.stdout, "", args)

    def test_a_misspelt_metric_gets_a_suggestion(self):
        db = os.path.join(self.dir, "empty.db")
        sqlite3.connect(db).close()
        run = Run(["history", "changes", "--db", db, "--metric", "throughput.rpss"]).run(timeout=30)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("error: --metric 'throughput.rpss' (did you mean 'throughput.rps'?): "
                      "change points are looked for in throughput.rps", run.stderr)

    def test_since_a_run_no_run_has_is_refused(self):
        # bench_history_fill (tests/e2e/tools/fill_history.cc) stores runs 1 to 3.
        db = os.path.join(self.dir, "history.db")
        fill = subprocess.run([os.path.join(BIN, "bench_history_fill"), db],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(fill.returncode, 0, fill.stderr)
        run = Run(["history", "changes", "--db", db, "--since", "99"]).run(timeout=30)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(run.stderr, "error: --since 99: run 99 does not exist\n")
        self.assertEqual(run.stdout, "")
        ok = Run(["history", "changes", "--db", db, "--since", "3"]).run(timeout=30)
        self.assertEqual(ok.returncode, 0, ok.stderr)

    def test_an_empty_file_is_no_database_and_stays_empty(self):
        db = os.path.join(self.dir, "empty.db")
        sqlite3.connect(db).close()  # a file of 0 bytes: SQLite writes nothing until a table
        run = Run(["history", "changes", "--db", db]).run(timeout=30)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("is not a benchgate database", run.stderr)
        self.assertEqual(os.path.getsize(db), 0)

    def test_help_names_every_flag(self):
        run = Run(["history", "changes", "--help"]).run(timeout=30)
        self.assertEqual(run.returncode, 0)
        for flag in ["--scenario", "--workload", "--variant", "--metric", "--branch", "--testbed",
                     "--since", "--alpha", "--min-change", "--json", "--db"]:
            self.assertIn(flag, run.stdout)


if __name__ == "__main__":
    unittest.main()
