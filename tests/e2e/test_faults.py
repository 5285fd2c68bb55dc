"""The fault suite: a worker or the router (bundled, or started as a `command`) killed or
frozen mid-window, and an interrupted run. Each case runs the real
orchestrator and checks that the workload is recorded as failed with its cause (terminal,
JSON, SQLite), that the workloads after it still run (unless fail_fast), that the measured
repetitions before the fault are kept, that the exit code is 3 and that no process is left.
A worker that never becomes ready or sends a malformed result, fail_fast, a squatted address,
unreachable --workers-at, and a system under test that is not there or never says READY by its
startup_timeout are test_faults_untimed.py's: their outcome never depends on when anything
happens, so they run beside other tests, where these run alone.

Durations and timeouts are small: a frozen peer must cost seconds, not minutes."""
import json
import os
import shutil
import signal
import sqlite3
import stat
import tempfile
import time
import unittest

from harness import BIN, Run, kill_tagged, load_json, process_name, tagged_processes, \
    write_scenario

FAULT_WORKER = os.path.join(BIN, "fault_worker")

# "victim" is where the fault strikes, during its second repetition; "after" must still run.
TWO_WORKLOADS = """
name = "e2e_faults"
{top}
[defaults]
warmup = "0s"
workers = 2
connections = 4

[[workloads]]
name = "victim"
target = "/bench/hello"
duration = "{duration}"
repetitions = 3
timeout = "{timeout}"

[[workloads]]
name = "after"
target = "/bench/hello"
duration = "300ms"
repetitions = 1
timeout = "20s"
"""


class FaultRuns:
    """What both modules' fault tests share: a folder each, the scenario, the runs and the
    checks (test_faults_untimed.py has the faults whose outcome never depends on when anything
    happens)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-faults-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.json = os.path.join(self.dir, "out.json")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)  # SIGKILL also ends a stopped process

    # --- running -------------------------------------------------------------------------

    def scenario(self, duration="600ms", timeout="5s", top=""):
        return write_scenario(self.dir, "faults.toml", TWO_WORKLOADS.format(
            duration=duration, timeout=timeout, top=top))

    def frozen_scenario(self):
        """For a peer frozen for good: what names it is the victim's timeout, waited out in
        full, so it is short (3 s, where repetition 1 ends under 1 s in). The SIGSTOP must land
        before repetition 2's result is sent, at the end of its window: it follows the
        "rep 2/3: started" line (sent with the window, 100 ms before it starts) by a scan of
        /proc, so the 600 ms window leaves it 0.7 s. A later stop would let repetition 2 end
        ok and repetition 3 time out: the test fails, never passes wrongly."""
        return self.scenario(duration="600ms", timeout="3s")

    def executable(self, name, script):
        """A shell script `name` in the test's folder, made executable; its path."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def fault_worker(self, *args):
        """A --worker-bin that runs fault_worker with these arguments."""
        return self.executable("fault-worker.sh",
                               'exec "{}" {} "$@"\n'.format(FAULT_WORKER, " ".join(args)))

    def orchestrator(self, path, *extra):
        run = Run(["run", path, "--db", self.db, "--json", self.json] + list(extra),
                  cwd=self.dir)
        self.tags.append(run.tag)
        return run

    def run_to_end(self, path, *extra):
        return self.orchestrator(path, *extra).run(timeout=90)

    def strike_during_second_repetition(self, path, victim_name, sig):
        """Runs the scenario, sends `sig` to one tagged process named `victim_name` once the
        victim's second repetition has started, and waits for the orchestrator to finish."""
        run = self.orchestrator(path).start()
        run.wait_for_stderr("victim rep 2/3: started")
        victims = [p for p in tagged_processes(run.tag) if process_name(p) == victim_name]
        self.assertTrue(victims, f"no {victim_name} process")
        os.kill(victims[0], sig)
        run.finish(timeout=90)
        return run

    # The window of the stop-and-continue tests. What puts the stop in repetition 2 is a
    # SIGSTOP sent before that window ends (the orchestrator's last look at its children's
    # states comes then): the "started" line comes as the window is sent, 100 ms (the start
    # lead) before it starts, and the stop follows it by a scan of /proc, so an 800 ms window
    # leaves it 0.9 s. When the continue comes judges nothing: a stopped worker holds back its
    # own result and a stopped router the window's drain, and waitpid keeps a stop and a
    # continue until the orchestrator collects them, however short the stop (STOP_SECONDS).
    STOP_WINDOW = "800ms"
    STOP_SECONDS = 0.2

    def pause_during_second_repetition(self, path, victim_name, expected):
        """Runs the scenario; once the victim's second repetition has started, stops (SIGSTOP)
        the first of the `expected` tagged processes named `victim_name` for STOP_SECONDS and
        continues it; waits for the orchestrator to finish. (run, the pids found)."""
        run = self.orchestrator(path).start()
        run.wait_for_stderr("victim rep 2/3: started")
        found = [p for p in tagged_processes(run.tag) if process_name(p) == victim_name]
        self.assertEqual(len(found), expected)
        os.kill(found[0], signal.SIGSTOP)
        time.sleep(self.STOP_SECONDS)
        os.kill(found[0], signal.SIGCONT)
        run.finish(timeout=90)
        return run, found

    UNREACHABLE = """
name = "e2e_unreachable"
[router]
impl = "external"
address = "{address}"
startup_timeout = "1s"
[[workloads]]
name = "hello"
duration = "200ms"
repetitions = 1
"""

    # --- checking ------------------------------------------------------------------------

    def assert_workload_failed(self, run, name, cause, repetitions_kept):
        """The workload is failed with `cause` in the terminal, the JSON and SQLite, and
        keeps the repetitions measured before the fault."""
        out = run.stdout + run.stderr
        self.assertIn("FAILED: ", run.stdout, out)
        self.assertIn(cause, run.stdout, out)
        line = [r for r in run.result_lines() if r["workload"] == name]
        self.assertEqual(len(line), 1, out)
        self.assertEqual(line[0]["status"], "failed")
        self.assertEqual(line[0]["reps"], str(repetitions_kept))

        doc = load_json(self.json)
        workloads = {w["name"]: w for w in doc["scenarios"][0]["workloads"]}
        self.assertEqual(workloads[name]["status"], "failed")
        self.assertIn(cause, workloads[name]["error"])
        self.assertEqual(len(workloads[name]["repetitions"]), repetitions_kept)
        self.assertEqual(doc["exit_code"], 3)

        with sqlite3.connect(self.db) as db:
            status, error, workload_id = db.execute(
                "SELECT status, error, id FROM workloads WHERE name = ?", (name,)).fetchone()
            self.assertEqual(status, "failed")
            self.assertIn(cause, error)
            reps = db.execute("SELECT COUNT(*) FROM repetitions WHERE workload_id = ?",
                              (workload_id,)).fetchone()[0]
            self.assertEqual(reps, repetitions_kept)

    def assert_workload_ok(self, run, name):
        with sqlite3.connect(self.db) as db:
            status, workload_id = db.execute(
                "SELECT status, id FROM workloads WHERE name = ?", (name,)).fetchone()
            self.assertEqual(status, "ok", run.stdout + run.stderr)
            reps = db.execute("SELECT COUNT(*) FROM repetitions WHERE workload_id = ?",
                              (workload_id,)).fetchone()[0]
            self.assertGreater(reps, 0)

    def assert_run_ended(self, run, status="failed"):
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT status, exit_code FROM runs").fetchone(),
                             (status, 3))
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")


class FaultsTest(FaultRuns, unittest.TestCase):
    """Faults that strike inside a window of time: a kill, a stop or an interrupt once a
    repetition has started."""

    # --- workers -------------------------------------------------------------------------

    def test_a_worker_killed_mid_window_fails_its_workload_and_the_next_one_runs(self):
        run = self.strike_during_second_repetition(self.scenario(), "worker", signal.SIGKILL)
        self.assert_workload_failed(run, "victim", "killed by signal 9", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assertIn("replaced worker", run.stderr)
        self.assert_run_ended(run)

    def test_a_worker_frozen_mid_window_is_named_and_replaced_within_the_timeout(self):
        run = self.strike_during_second_repetition(self.frozen_scenario(), "worker",
                                                   signal.SIGSTOP)
        self.assert_workload_failed(run, "victim", "is stopped", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assertIn("stopped)", run.stderr)  # "replaced worker N (pid P, stopped)"
        self.assert_run_ended(run)

    def test_a_worker_stopped_and_continued_mid_window_flags_that_repetition(self):
        # A window that holds the whole stop (STOP_WINDOW); it is flagged however short it is.
        path = self.scenario(duration=self.STOP_WINDOW, timeout="40s", top="""
[[gates]]
workload = "victim"
metric = "errors.count"
max = 0
""")
        run, workers = self.pause_during_second_repetition(path, "worker", 2)
        out = run.stdout + run.stderr
        self.assertIn(f"(pid {workers[0]}) was stopped", run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        # Kept, but flagged with who was stopped: JSON and SQLite.
        doc = load_json(self.json)
        workloads = {w["name"]: w for w in doc["scenarios"][0]["workloads"]}
        reps = workloads["victim"]["repetitions"]
        self.assertEqual(workloads["victim"]["status"], "ok", out)
        self.assertEqual([("process_stopped" in r["flags"]) for r in reps], [False, True, False])
        self.assertEqual(len(reps[1]["stopped"]), 1, reps[1])
        self.assertRegex(reps[1]["stopped"][0], rf"^worker [01] \(pid {workers[0]}\)$")
        self.assertEqual([r["stopped"] for r in (reps[0], reps[2])], [[], []])
        self.assertNotIn("process_stopped", workloads["after"]["flags"])
        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT r.idx, r.flags, r.stopped FROM repetitions r JOIN workloads w "
                "ON w.id = r.workload_id WHERE w.name = 'victim' ORDER BY r.idx").fetchall()
            self.assertEqual([json.loads(r[1]).count("process_stopped") for r in rows],
                             [0, 1, 0])
            self.assertEqual(json.loads(rows[1][2]), reps[1]["stopped"])
            # The gate does not judge the polluted workload: an error, never a pass.
            verdict, explanation = db.execute(
                "SELECT verdict, explanation FROM gate_results").fetchone()
            self.assertEqual(verdict, "error")
            self.assertIn("not judged: repetition 2 was measured while worker", explanation)
        self.assertEqual(run.returncode, 3, out)  # a critical gate in error
        self.assertEqual(doc["exit_code"], 3)
        # Re-evaluated from the store, it is not judged either.
        again = Run(["gate", "1", "--db", self.db], cwd=self.dir).run(timeout=60)
        self.assertEqual(again.returncode, 3, again.stdout + again.stderr)
        self.assertIn("not judged: repetition 2 was measured while worker", again.stdout)

    # --- the router ----------------------------------------------------------------------

    def test_the_router_killed_mid_window_leaves_the_rest_not_run(self):
        run = self.strike_during_second_repetition(self.scenario(), "router", signal.SIGKILL)
        self.assert_workload_failed(run, "victim", "killed by signal 9", repetitions_kept=1)
        self.assert_workload_failed(
            run, "after", "not run: the system under test failed during workload 'victim': "
            "router (pid", repetitions_kept=0)
        self.assertIn("error: scenario e2e_faults: router", run.stderr)
        self.assert_run_ended(run)

    def test_the_router_stopped_and_continued_mid_window_flags_that_repetition(self):
        run, routers = self.pause_during_second_repetition(
            self.scenario(duration=self.STOP_WINDOW, timeout="40s"), "router", 1)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)  # no gates to judge it
        self.assertEqual(run.leftovers(), [], "processes left behind")
        reps = {w["name"]: w for w in load_json(self.json)["scenarios"][0]["workloads"]}[
            "victim"]["repetitions"]
        self.assertEqual([r["stopped"] for r in reps], [[], [f"router (pid {routers[0]})"], []])
        with sqlite3.connect(self.db) as db:
            flags = db.execute(
                "SELECT r.flags FROM repetitions r JOIN workloads w ON w.id = r.workload_id "
                "WHERE w.name = 'victim' ORDER BY r.idx").fetchall()
            self.assertEqual([json.loads(f[0]).count("process_stopped") for f in flags],
                             [0, 1, 0])

    def test_a_command_system_stopped_and_continued_mid_window_flags_that_repetition(self):
        # The bundled router started as a `command`: watched through ExternalSystem, whose
        # stopped process has not exited, so the window goes on and is flagged.
        program = os.path.join(BIN, "router")
        top = f"""[router]
impl = "command"
command = ["{program}", "--http", "127.0.0.1:${{port:http}}",
           "--control", "127.0.0.1:0", "--threads", "1"]
address = "127.0.0.1:${{port:http}}"
"""
        run, routers = self.pause_during_second_repetition(
            self.scenario(duration=self.STOP_WINDOW, timeout="40s", top=top), "router", 1)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        workloads = {w["name"]: w for w in load_json(self.json)["scenarios"][0]["workloads"]}
        self.assertEqual([r["stopped"] for r in workloads["victim"]["repetitions"]],
                         [[], [f"system under test '{program}' (pid {routers[0]})"], []])
        self.assertEqual(workloads["after"]["status"], "ok")

    def test_the_router_frozen_mid_window_never_hangs_the_orchestrator(self):
        started = time.monotonic()
        run = self.strike_during_second_repetition(self.frozen_scenario(), "router",
                                                   signal.SIGSTOP)
        self.assert_workload_failed(run, "victim", "is stopped", repetitions_kept=1)
        self.assert_workload_failed(run, "after", "not run: the system under test failed",
                                    repetitions_kept=0)
        self.assert_run_ended(run)
        # Not a timing assertion on the machine's speed: a hang would last until the harness
        # timeout; the bounded path costs the workload timeout plus a few seconds.
        self.assertLess(time.monotonic() - started, 60)

    # --- the orchestrator ----------------------------------------------------------------

    def test_an_interrupted_run_is_stored_aborted_with_what_it_had(self):
        path = write_scenario(self.dir, "interrupted.toml", """
name = "e2e_interrupted"
[defaults]
warmup = "0s"
[[workloads]]
name = "done"
target = "/bench/hello"
connections = 2
duration = "200ms"
repetitions = 1
[[workloads]]
name = "victim"
target = "/bench/hello"
connections = 2
duration = "500ms"
repetitions = 3
timeout = "30s"
[[gates]]
workload = "victim"
metric = "errors.count"
max = 0
""")
        run = self.orchestrator(path).start()
        run.wait_for_stderr("victim rep 2/3: started")
        run.signal(signal.SIGINT)
        run.finish(timeout=30)
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT status, exit_code FROM runs").fetchone(),
                             ("aborted", 3))
            rows = db.execute("SELECT w.name, w.status, w.error, COUNT(r.id) FROM workloads w "
                              "LEFT JOIN repetitions r ON r.workload_id = w.id "
                              "GROUP BY w.id ORDER BY w.id").fetchall()
            # An interrupt is not a failure of the workload (README, "Failure behaviour").
            self.assertEqual([(r[0], r[1], r[3]) for r in rows],
                             [("done", "ok", 1), ("victim", "interrupted", 1)])
            self.assertIn("interrupted by signal 2", rows[1][2])
            # Its gate is not judged, and says so without calling the workload failed.
            self.assertEqual(
                db.execute("SELECT verdict, explanation FROM gate_results").fetchall(),
                [("error", "workload victim was interrupted: " + rows[1][2])])
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        doc = load_json(self.json)
        self.assertEqual([(w["name"], w["status"]) for w in doc["scenarios"][0]["workloads"]],
                         [("done", "ok"), ("victim", "interrupted")])
        self.assertEqual([(r["workload"], r["status"]) for r in run.result_lines()],
                         [("done", "ok"), ("victim", "interrupted")])
        self.assertIn("INTERRUPTED: interrupted by signal 2", run.stdout)
        self.assertNotIn("FAILED", run.stdout)


if __name__ == "__main__":
    unittest.main()
