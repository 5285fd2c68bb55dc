"""Every run lands in SQLite, and gates decide from the stored history: a promoted baseline,
a second run gated against it, an impossible gate, a missing metric, a killed orchestrator."""
import glob
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

from harness import BIN, Run, kill_tagged, load_json, write_scenario

GATED = """
name = "e2e_gated"
[defaults]
warmup = "100ms"
duration = "400ms"
repetitions = 3

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 4

[[gates]]
workload = "hello"
metric = "latency.p99"
max = "{p99_max}"

[[gates]]
workload = "hel*"
metric = "errors.count"
baseline = "main"
max_regression = "10%"
"""


class GatesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)

    def orchestrator(self, *args):
        run = Run(list(args), cwd=self.dir)
        self.tags.append(run.tag)
        return run.run()

    def scenario(self, p99_max="10s"):
        return write_scenario(self.dir, "gated.toml", GATED.format(p99_max=p99_max))

    def test_promoted_baseline_then_gated_run_passes_and_is_stored(self):
        path = self.scenario()
        first = self.orchestrator("run", path, "--db", self.db, "--promote", "main")
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertIn("promoted run 1 to baseline 'main'", first.stdout)

        junit = os.path.join(self.dir, "gates.xml")
        markdown = os.path.join(self.dir, "summary.md")
        second = self.orchestrator("run", path, "--db", self.db, "--baseline", "main",
                                   "--junit", junit, "--markdown", markdown,
                                   "--label", "ci=e2e", "--commit", "abc123")
        self.assertEqual(second.returncode, 0, second.stdout + second.stderr)
        self.assertIn("|run=2|", second.stdout)

        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT metric, verdict, kind, baseline_runs FROM gate_results "
                              "WHERE run_id = 2 ORDER BY gate_index").fetchall()
            self.assertEqual([(r[0], r[1], r[2]) for r in rows],
                             [("latency.p99", "pass", "absolute"),
                              ("errors.count", "pass", "relative")])
            self.assertEqual(rows[1][3], "[1]")
            status, commit, labels = db.execute(
                "SELECT status, commit_id, labels FROM runs WHERE id = 2").fetchone()
            self.assertEqual((status, commit), ("ok", "abc123"))
            self.assertIn('"ci":"e2e"', labels.replace(" ", ""))
            reps = db.execute("SELECT COUNT(*) FROM repetitions r JOIN workloads w "
                              "ON r.workload_id = w.id WHERE w.run_id = 2").fetchone()[0]
            self.assertEqual(reps, 3)
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")

        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual(suite.get("name"), "e2e_gated")
        self.assertEqual(suite.get("failures"), "0")
        self.assertEqual(len(suite.findall("testcase")), 3)  # the run and two gates
        with open(markdown) as f:
            text = f.read()
        self.assertIn("| pass | critical | hello | default | latency.p99 |", text)
        # One baseline run and no calibration: the relative gate passes, and says it could
        # not have caught a regression.
        self.assertIn("| **pass, underpowered** | critical | hello | default | errors.count |",
                      text)

        # Re-evaluation of the stored run gives the same verdicts without running anything.
        again = self.orchestrator("gate", "2", "--db", self.db, "--baseline", "main")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertRegex(again.stdout, r"\n  pass\s+critical\s+hello\s+latency.p99")
        self.assertRegex(again.stdout, r"\n  pass, underpowered\s+critical\s+hello\s+errors.count")

    def test_run_warns_before_the_load_of_a_baseline_with_no_run_of_its_scenario(self):
        first = self.orchestrator("run", self.scenario(), "--db", self.db, "--promote", "main")
        self.assertEqual(first.returncode, 0, first.stderr)
        # A misspelt name judged every relative gate no_baseline and exited 0, saying nothing.
        second = self.orchestrator("run", self.scenario(), "--db", self.db, "--baseline", "mian")
        self.assertEqual(second.returncode, 0, second.stderr)
        warning = ("warning: --baseline 'mian' has no run of scenario 'e2e_gated' (did you mean "
                   "'main'?); baselines with runs of it: main; every relative gate will be "
                   "no_baseline, a failure only with --strict (--promote mian seeds a new "
                   "baseline)\n")
        self.assertIn(warning, second.stderr)
        self.assertLess(second.stderr.index(warning), second.stderr.index("rep 1/3: started"))
        self.assertRegex(second.stdout, r"\n  no_baseline\s+critical\s+hello\s+errors.count")
        # Named to be seeded by --promote, it is not warned of.
        third = self.orchestrator("run", self.scenario(), "--db", self.db, "--baseline", "v2",
                                  "--promote", "v2")
        self.assertEqual(third.returncode, 0, third.stderr)
        self.assertNotIn("warning: --baseline", third.stderr)

    def test_gate_refuses_an_unknown_baseline_before_it_stores_anything(self):
        first = self.orchestrator("run", self.scenario(), "--db", self.db, "--promote", "main")
        self.assertEqual(first.returncode, 0, first.stderr)
        other = write_scenario(self.dir, "other.toml",
                               GATED.format(p99_max="10s").replace("e2e_gated", "e2e_other"))
        second = self.orchestrator("run", other, "--db", self.db, "--promote", "release")
        self.assertEqual(second.returncode, 0, second.stderr)

        def evaluations():
            with sqlite3.connect(self.db) as db:
                return db.execute("SELECT * FROM gate_results ORDER BY id").fetchall()
        stored = evaluations()
        # A misspelt name would store a latest evaluation of no_baseline verdicts, which
        # `runs show` and the reports then show for the run.
        run = self.orchestrator("gate", "1", "--db", self.db, "--baseline", "mian")
        self.assertEqual((run.returncode, run.stdout, run.stderr),
                         (2, "", "error: --baseline 'mian': no baseline has that name (did you "
                                 "mean 'main'?); baselines with runs of scenario 'e2e_gated': "
                                 "main; nothing was judged or stored\n"))
        run = self.orchestrator("gate", "2", "--db", self.db, "--baseline", "nightly")
        self.assertEqual((run.returncode, run.stdout, run.stderr),
                         (2, "", "error: --baseline 'nightly': no baseline has that name; "
                                 "baselines with runs of scenario 'e2e_other': release; nothing "
                                 "was judged or stored\n"))
        self.assertEqual(evaluations(), stored)

        # A baseline that exists but has no run of the series before this one still judges:
        # `release` (only e2e_other's run) for run 1, `main` (run 1 itself) for run 1. Of
        # `release` the verdict names the scenario it holds, where it read as not yet seeded.
        for baseline in ("release", "main"):
            run = self.orchestrator("gate", "1", "--db", self.db, "--baseline", baseline)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertRegex(run.stdout, r"\n  no_baseline\s+critical\s+hello\s+errors.count")
            other = ("baseline 'release' has no run of scenario 'e2e_gated': its runs are of "
                     "scenario 'e2e_other'; a baseline's runs judge only their own scenario's "
                     "gates, so promote a run of 'e2e_gated' to 'release' (--promote release)\n")
            if baseline == "release":
                self.assertIn(other, run.stdout)
            else:
                self.assertNotIn("has no run of scenario", run.stdout)
            with sqlite3.connect(self.db) as db:
                self.assertEqual(db.execute(
                    "SELECT verdict, baseline FROM gate_results WHERE run_id = 1 AND "
                    "metric = 'errors.count' ORDER BY evaluation DESC LIMIT 1").fetchone(),
                    ("no_baseline", baseline))

    def test_an_impossible_gate_fails_the_run_with_exit_1_and_says_why(self):
        path = self.scenario(p99_max="1ns")
        run = self.orchestrator("run", path, "--db", self.db, "--promote", "main")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertRegex(run.stdout, r"fail\s+critical\s+hello\s+latency.p99")
        self.assertIn("above max 1ns", run.stdout)
        self.assertIn("not promoted", run.stdout)
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM baselines").fetchone()[0], 0)
            self.assertEqual(db.execute("SELECT exit_code FROM runs").fetchone()[0], 1)

    def test_a_router_cpu_gate_on_an_external_system_is_refused_when_the_scenario_loads(self):
        # benchgate samples the CPU and memory only of a system it started: on an external one
        # router.cpu_per_request could only be an error, so validate and run refuse it (exit 2)
        # before anything is measured, with no system at the address.
        path = write_scenario(self.dir, "external.toml", """
name = "e2e_external"
[router]
impl = "external"
address = "127.0.0.1:9"
[[workloads]]
name = "hello"
target = "/bench/hello"
[[gates]]
workload = "hello"
metric = "router.cpu_per_request"
max = "1ms"
""")
        for run in (self.orchestrator("validate", path),
                    self.orchestrator("run", path, "--db", self.db)):
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn("external.toml:11:10: error: gate metric 'router.cpu_per_request' can "
                          "never be measured for workload 'hello': its system under test is "
                          "[router] impl = \"external\"", run.stdout + run.stderr)

    def test_a_killed_orchestrator_leaves_an_abandoned_run_and_a_sound_database(self):
        long = write_scenario(self.dir, "long.toml", """
name = "e2e_killed"
[defaults]
duration = "30s"
warmup = "0s"
repetitions = 2
timeout = "120s"
[[workloads]]
name = "done"
target = "/bench/hello"
connections = 2
duration = "200ms"
repetitions = 1
timeout = "60s"
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2
""")
        # A temporary folder of this test's own: another orchestrator running beside it (tests
        # run two at a time) has its own run folders and tokens in the shared one.
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-tmp-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["run", long, "--db", self.db], cwd=self.dir)
        run.env["TMPDIR"] = tmp
        run.start()
        self.tags.append(run.tag)
        run.wait_for_stderr("hello rep 1/2: started")
        # A run going on is not judged: it was, every workload "did not run", and stored as its
        # first evaluation before the run's own.
        going = self.orchestrator("gate", "1", "--db", self.db)
        self.assertEqual((going.returncode, going.stdout, going.stderr),
                         (2, "", "error: run 1 is still running; `gate` judges a run once it "
                                 "ended (see `orchestrator runs show 1`); nothing was judged or "
                                 "stored\n"))
        run.proc.kill()  # SIGKILL: no chance to clean up
        run.finish(timeout=30)
        self.assertEqual(run.leftovers(), [], "children must die with the orchestrator")
        # The spawned workers' token (README "Security") could not be removed by its run.
        left = glob.glob(os.path.join(tmp, "benchgate-run-*", "worker-token-*"))
        self.assertEqual(len(left), 1, left)

        # Any command that opens the database marks it, a reader too (README, "Run status"):
        # on a copy, so that the run below still finds it running.
        copy = os.path.join(self.dir, "copy.db")
        for suffix in ("", "-wal"):
            if os.path.exists(self.db + suffix):
                shutil.copyfile(self.db + suffix, copy + suffix)
        with sqlite3.connect(copy) as db:
            self.assertEqual(db.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0],
                             "running")
        runs = self.orchestrator("runs", "list", "--db", copy)
        self.assertEqual((runs.returncode, runs.stderr), (0, ""))
        self.assertRegex(runs.stdout, r"\n\s*1\s+e2e_killed\s+abandoned\s")
        with sqlite3.connect(copy) as db:
            self.assertEqual(db.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0],
                             "abandoned")
        # An abandoned run is no run going on: judged, exit 3, and one line says why.
        judged = self.orchestrator("gate", "1", "--db", copy)
        self.assertEqual((judged.returncode, judged.stderr),
                         (3, "error: run 1 is stored abandoned: its orchestrator was killed; "
                             "`gate` exits 3 for a run that did not end ok, whatever its "
                             "verdicts\n"))

        listing = Run(["run", self.scenario(), "--db", self.db], cwd=self.dir)
        listing.env["TMPDIR"] = tmp
        self.tags.append(listing.tag)
        listing.run()
        self.assertEqual(listing.returncode, 0, listing.stderr)
        self.assertIn("run 1 was left running", listing.stderr)
        # The next run removed it: its orchestrator is gone.
        self.assertFalse(os.path.exists(left[0]), left)
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0],
                             "abandoned")
            # The workload that completed before the kill was kept, whole.
            names = [r[0] for r in db.execute("SELECT name FROM workloads WHERE run_id = 1")]
            self.assertEqual(names, ["done"])
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")

    def test_calibrate_with_an_unusable_router_or_worker_exits_2_with_nothing_started(self):
        path = self.scenario()
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-tmp-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        missing = os.path.join(self.dir, "none")
        cases = [
            (["--worker-bin", missing],
             f"error: worker executable '{missing}' (from --worker-bin): does not exist\n"),
            (["--router-bin", self.dir],
             f"error: router executable '{self.dir}' (from --router-bin): is a folder, not a "
             "regular file\n"),
        ]
        for flags, expected in cases:
            run = Run(["calibrate", path, "--db", self.db, "--runs", "3"] + flags, cwd=self.dir)
            run.env["TMPDIR"] = tmp  # where the run's log folder would be made
            self.tags.append(run.tag)
            run.run()
            self.assertEqual((run.returncode, run.stdout, run.stderr), (2, "", expected), flags)
            self.assertFalse(os.path.exists(self.db), flags)
            self.assertEqual(os.listdir(tmp), [], flags)
            self.assertEqual(run.leftovers(wait=0), [])

    def test_gate_refuses_an_empty_report_path_before_it_stores_anything(self):
        first = self.orchestrator("run", self.scenario(), "--db", self.db)
        self.assertEqual(first.returncode, 0, first.stderr)
        with sqlite3.connect(self.db) as db:
            stored = db.execute("SELECT * FROM gate_results ORDER BY id").fetchall()
        for flag in ("--json", "--junit", "--markdown"):
            run = self.orchestrator("gate", "1", "--db", self.db, flag, "")
            self.assertEqual((run.returncode, run.stdout, run.stderr),
                             (2, "", f"error: {flag} '': an empty path names no file; name the "
                                     "file to write\n"), flag)
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT * FROM gate_results ORDER BY id").fetchall(),
                             stored)

    def test_database_problems_are_reported_before_anything_starts(self):
        path = self.scenario()
        run = self.orchestrator("run", path, "--db", "/nonexistent-folder/x.db")
        self.assertEqual(run.returncode, 2)
        self.assertIn("/nonexistent-folder", run.stderr)
        self.assertEqual(run.leftovers(wait=0), [])
        self.assertNotIn("RESULT|", run.stdout)

    def test_a_database_on_a_read_only_filesystem_is_refused_before_anything_starts(self):
        path = self.scenario()
        folder = os.path.join(self.dir, "ro")
        os.mkdir(folder)
        # Root writes into read-only folders, so the folder becomes a read-only mount, in a
        # mount namespace of the orchestrator's own (nothing outside it sees the mount).
        mount = 'mount -t tmpfs -o ro tmpfs "$0" && exec "$@"'
        probe = subprocess.run(["unshare", "--mount", "sh", "-c", mount, folder, "true"],
                               capture_output=True, text=True, timeout=30)
        if probe.returncode != 0:
            self.skipTest("cannot make a read-only mount here: " + probe.stderr.strip())
        run = Run([], cwd=self.dir)
        self.tags.append(run.tag)
        run.args = ["unshare", "--mount", "sh", "-c", mount, folder, os.path.join(BIN, "orchestrator"),
                    "run", path, "--db", os.path.join(folder, "bench.db")]
        run.run()
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn(os.path.join(folder, "bench.db"), run.stderr)
        self.assertIn("is not writable", run.stderr)
        self.assertNotIn("RESULT|", run.stdout)
        self.assertEqual(run.leftovers(wait=0), [])


if __name__ == "__main__":
    unittest.main()
