"""[compare] workers through the real binaries: scenarios/compare_workers.toml (the bundled
worker against h2load and wrk, each run by the bundled worker as an adapter) with short windows
reports three variants and a ratio for each tool against the bundled worker; with h2load off
PATH its variant is not_configured (terminal, JSON, SQLite) and the other two still measure.
Checks order and counts, never speed."""
import os
import shutil
import sqlite3
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

SCENARIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios",
                        "compare_workers.toml")


def short_windows(text):
    """The committed scenario with 1 s windows (wrk's -d takes whole seconds), no warm-up, two
    repetitions and a light load, so that the test stays short on a shared machine."""
    replaced = (text.replace('warmup = "1s"', 'warmup = "0s"')
                .replace('duration = "2s"', 'duration = "1s"')
                .replace("repetitions = 4", "repetitions = 2")
                .replace("connections = 50", "connections = 8"))
    assert replaced.count('duration = "1s"') == 1 and "repetitions = 2" in replaced
    return replaced


def tagged_lines(stdout, tag):
    lines = [l for l in stdout.splitlines() if l.startswith(tag + "|")]
    return [dict(kv.split("=", 1) for kv in l.split("|")[1:]) for l in lines]


def path_without(program):
    """A PATH that finds everything the current one does except `program`: a folder of links."""
    folder = tempfile.mkdtemp(prefix="benchgate-e2e-path-")
    for directory in reversed(os.environ.get("PATH", "/usr/bin:/bin").split(":")):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            target = os.path.join(directory, name)
            link = os.path.join(folder, name)
            if name == program or not os.access(target, os.X_OK) or os.path.isdir(target):
                continue
            if os.path.lexists(link):
                os.unlink(link)  # the earlier PATH entry wins, as in a lookup
            os.symlink(target, link)
    return folder


@unittest.skipUnless(shutil.which("h2load") and shutil.which("wrk"), "needs h2load and wrk")
class CompareWorkersTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-compare-workers-")
        self.runs = []
        with open(SCENARIO) as f:
            self.text = short_windows(f.read())

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_scenario(self, env_path=None):
        path = write_scenario(self.dir, "compare_workers.toml", self.text)
        out = os.path.join(self.dir, "out.json")
        self.db = os.path.join(self.dir, "bench.db")
        run = Run(["run", path, "--json", out, "--db", self.db])
        if env_path:
            run.env["PATH"] = env_path
        self.runs.append(run)
        run.run(timeout=240)
        return run, load_json(out)["scenarios"][0]

    def test_three_workers_alternate_and_each_tool_gets_a_ratio(self):
        run, report = self.run_scenario()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        lines = {l["variant"]: l for l in run.result_lines()}
        self.assertEqual(set(lines), {"builtin", "h2load", "wrk"})
        for line in lines.values():
            self.assertEqual(line["status"], "ok")
            self.assertEqual(line["reps"], "2")
            self.assertGreater(float(line["rps"]), 0)
        # The bundled worker has a histogram; h2load prints no percentile, so they are absent
        # ("-"), never 0; wrk prints p50 and p99 but not p99.9 at the precision it was asked.
        self.assertNotEqual(lines["builtin"]["p99_us"], "-")
        self.assertEqual(lines["h2load"]["p50_us"], "-")
        self.assertNotEqual(lines["h2load"]["max_us"], "-")
        self.assertNotEqual(lines["wrk"]["p50_us"], "-")

        compare = {l["variant"]: l for l in tagged_lines(run.stdout, "COMPARE")}
        self.assertEqual(set(compare), {"h2load", "wrk"})
        for variant, line in compare.items():
            self.assertEqual(line["baseline"], "builtin")
            self.assertEqual(line["status"], "ok", line)
            self.assertGreater(float(line["ratio"]), 0)
            self.assertLessEqual(float(line["pair_min"]), float(line["pair_max"]))
        self.assertIn("h2load / builtin throughput ratio", run.stdout)
        self.assertIn("not measured: ", run.stdout)

        # Alternation over three variants: A B C, then C B A.
        windows = []
        by_variant = {w["variant"]: w for w in report["workloads"]}
        for workload in report["workloads"]:
            for rep in workload["repetitions"]:
                windows.append((rep["start_unix_ns"], workload["variant"]))
        letters = {"builtin": "A", "h2load": "B", "wrk": "C"}
        self.assertEqual("".join(letters[v] for _, v in sorted(windows)), "ABCCBA")
        self.assertEqual(len(report["comparisons"]), 2)
        # What a tool did not measure is null in JSON, never 0.
        h2load_rep = by_variant["h2load"]["repetitions"][0]
        self.assertIn("bytes_sent", h2load_rep["not_measured"])
        self.assertIsNone(h2load_rep["bytes_sent"])
        self.assertIsNone(h2load_rep["latency"]["p50_ns"])
        self.assertTrue(h2load_rep["latency"]["tool"].startswith("h2load"))
        self.assertEqual(by_variant["builtin"]["repetitions"][0]["not_measured"], [])

        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT variant, status FROM workloads ORDER BY variant").fetchall()
            nulls = db.execute("SELECT count(*) FROM repetitions r JOIN workloads w "
                               "ON w.id = r.workload_id WHERE w.variant = 'h2load' AND "
                               "r.bytes_sent IS NULL AND r.p50_ns IS NULL").fetchone()[0]
        self.assertEqual(rows, [("builtin", "ok"), ("h2load", "ok"), ("wrk", "ok")])
        self.assertEqual(nulls, 2)

        # Each variant's workers said who they were (Describe), stored with its workload (schema
        # version 22) and shown beside the binaries: the bundled worker, and the adapters by
        # their tool's name and version.
        with sqlite3.connect(self.db) as db:
            described = dict(db.execute("SELECT variant, worker_name FROM workloads").fetchall())
        self.assertEqual(described, {"builtin": "benchgate-worker", "h2load": "h2load",
                                     "wrk": "wrk"})
        self.assertEqual(by_variant["wrk"]["worker_name"], "wrk")
        self.assertTrue(by_variant["builtin"]["worker_version"])
        shown = Run(["runs", "show", str(report["run_id"]), "--db", self.db]).run(timeout=60)
        self.assertIn("workers (as their Describe answered)\n  benchgate-worker, version ",
                      shown.stdout)
        self.assertIn(" (workload hello_closed [builtin])\n", shown.stdout)

    def test_without_h2load_its_variant_is_not_configured_and_the_others_run(self):
        folder = path_without("h2load")
        try:
            run, report = self.run_scenario(env_path=folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        # not_configured fails nothing: it has no number.
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        lines = {l["variant"]: l for l in run.result_lines()}
        self.assertEqual(lines["h2load"]["status"], "not_configured")
        self.assertEqual(lines["h2load"]["rps"], "-")
        self.assertIn("NOT CONFIGURED", run.stdout)
        self.assertIn("'h2load' is not installed", run.stdout)
        for variant in ("builtin", "wrk"):
            self.assertEqual(lines[variant]["status"], "ok")
            self.assertEqual(lines[variant]["reps"], "2")
            self.assertGreater(float(lines[variant]["rps"]), 0)
        compare = {l["variant"]: l for l in tagged_lines(run.stdout, "COMPARE")}
        self.assertEqual(compare["h2load"]["status"], "not_configured")
        self.assertEqual(compare["h2load"]["ratio"], "-")
        self.assertEqual(compare["wrk"]["status"], "ok")

        by_variant = {w["variant"]: w for w in report["workloads"]}
        self.assertEqual(by_variant["h2load"]["status"], "not_configured")
        self.assertEqual(by_variant["h2load"]["repetitions"], [])
        self.assertIsNone(by_variant["h2load"]["summary"])
        self.assertEqual(len(by_variant["wrk"]["repetitions"]), 2)

        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT variant, status FROM workloads ORDER BY variant").fetchall()
        self.assertEqual(rows, [("builtin", "ok"), ("h2load", "not_configured"), ("wrk", "ok")])
        history = Run(["runs", "show", str(report["run_id"]), "--db", self.db]).run(timeout=60)
        self.assertIn("not_configured", history.stdout + history.stderr)


if __name__ == "__main__":
    unittest.main()
