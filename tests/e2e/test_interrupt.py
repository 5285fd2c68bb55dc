"""Ctrl-C (SIGINT) or SIGTERM during a measured window: the orchestrator stops every child,
reports the run error, and leaves nothing behind. A killed router ends the run with exit 3.
Ctrl-C while waiting for an external system is an interrupt, not a deadline. A gate on a
workload the interrupt came before says so, alike in every report."""
import os
import shutil
import signal
import sqlite3
import tempfile
import unittest

from harness import (Run, kill_tagged, load_json, process_name, tagged_processes,
                     write_scenario)

LONG = """
name = "e2e_long"
[defaults]
warmup = "100ms"
duration = "20s"
repetitions = 3
timeout = "120s"
workers = 2

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 4
"""

# The interrupt comes during "first": "second" and its gates never start.
GATED_SECOND = LONG.replace('name = "e2e_long"', 'name = "e2e_gated_second"') + """
[[workloads]]
name = "second"
protocol = "http1"
target = "/bench/hello"
connections = 4

[[gates]]
workload = "second"
metric = "latency.p99"
max = "1s"

[[gates]]
workload = "sec*"
metric = "errors.count"
max = 0
"""

NOT_RUN = "workload second did not run: the run was interrupted before it started"
GLOB_NOT_RUN = "no workload matching sec* ran: the run was interrupted before it started"


class InterruptTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.path = write_scenario(self.dir, "long.toml", LONG)

    def interrupt_during_measurement(self, sig):
        run = Run(["run", self.path]).start()
        try:
            run.wait_for_stderr("rep 1/3: started")  # plain log lines: stderr is not a terminal
            run.signal(sig)
            run.finish(timeout=30)
            self.assertEqual(run.returncode, 3, run.stderr)
            # Named as the workload's error and `run --server` name it.
            self.assertIn("interrupted by signal %d (%s): every child process was stopped\n"
                          % (sig, signal.strsignal(sig)), run.stderr)
            self.assertEqual(run.leftovers(), [], "processes left behind")
        finally:
            kill_tagged(run.tag)

    def test_sigint_stops_every_child(self):
        self.interrupt_during_measurement(signal.SIGINT)

    def test_sigterm_stops_every_child(self):
        self.interrupt_during_measurement(signal.SIGTERM)

    def test_a_gate_on_a_workload_the_interrupt_came_before_says_it_did_not_run(self):
        path = write_scenario(self.dir, "gated.toml", GATED_SECOND)
        out = {ext: os.path.join(self.dir, "report." + ext)
               for ext in ("json", "xml", "md", "html")}
        run = Run(["run", path, "--db", os.path.join(self.dir, "bench.db"),
                   "--json", out["json"], "--junit", out["xml"], "--markdown", out["md"],
                   "--html", out["html"]]).start()
        try:
            run.wait_for_stderr("rep 1/3: started")
            run.signal(signal.SIGINT)
            run.finish(timeout=60)
            self.assertEqual(run.returncode, 3, run.stderr)
            texts = {}
            for ext, report in out.items():
                with open(report, encoding="utf-8") as f:
                    texts[ext] = f.read()
            texts["terminal"] = run.stdout
            for name, text in texts.items():
                # "[*]" was the gate's pattern for every variant, shown as if it were one.
                self.assertNotIn("[*]", text, name)
                self.assertIn(NOT_RUN, text, name)
                self.assertIn(GLOB_NOT_RUN, text, name)
            # The terminal's gate table: the workload as the gate names it, verdict error.
            rows = [l.split() for l in run.stdout.splitlines() if "did not run" in l or " ran:" in l]
            self.assertEqual([r[:4] for r in rows], [["error", "critical", "second", "latency.p99"],
                                                     ["error", "critical", "sec*", "errors.count"]],
                             run.stdout)
            gates = load_json(out["json"])["scenarios"][0]["gates"]
            self.assertEqual([(g["workload"], g["variant"], g["workload_ran"], g["verdict"],
                               g["explanation"]) for g in gates],
                             [("second", None, False, "error", NOT_RUN),
                              ("sec*", None, False, "error", GLOB_NOT_RUN)])
            self.assertIn('name="second latency.p99 (gate #1)"><failure type="error" message="'
                          + NOT_RUN + '"/>', texts["xml"])
            self.assertIn("| **error** | critical | second | - | latency.p99 | - | - | "
                          + NOT_RUN + " |", texts["md"])
            self.assertEqual(run.leftovers(), [], "processes left behind")
        finally:
            kill_tagged(run.tag)

    def test_sigint_while_waiting_for_an_external_system_says_interrupted(self):
        # Nothing listens on port 1: the orchestrator waits for the system to come up.
        path = write_scenario(self.dir, "external.toml", """
name = "e2e_external_wait"
[router]
impl = "external"
address = "127.0.0.1:1"
[[workloads]]
name = "hello"
""")
        db = os.path.join(self.dir, "bench.db")
        run = Run(["run", path, "--db", db]).start()
        try:
            # Printed just before the system under test is waited for.
            self.assertIn("scenario e2e_external_wait", run.proc.stdout.readline())
            run.signal(signal.SIGINT)
            run.finish(timeout=60)
            out = run.stdout + run.stderr
            self.assertEqual(run.returncode, 3, out)
            self.assertIn("interrupted while waiting for 127.0.0.1:1", run.stderr)
            self.assertNotIn("deadline", out)
            # Nobody failed: the system was not found unreachable, the wait was cut short.
            self.assertNotIn("not reachable", out)
            with sqlite3.connect(db) as conn:
                self.assertEqual(
                    conn.execute("SELECT status, exit_code, error FROM runs").fetchone(),
                    ("aborted", 3, "interrupted while waiting for 127.0.0.1:1 to accept "
                                   "connections"))
        finally:
            kill_tagged(run.tag)

    def test_killed_router_is_a_run_error_and_nothing_is_left(self):
        run = Run(["run", self.path]).start()
        try:
            run.wait_for_stderr("rep 1/3: started")
            routers = [p for p in tagged_processes(run.tag) if process_name(p) == "router"]
            self.assertEqual(len(routers), 1)
            os.kill(routers[0], signal.SIGKILL)
            run.finish(timeout=60)
            self.assertEqual(run.returncode, 3, run.stderr)
            self.assertIn("router", run.stderr)
            self.assertIn("signal 9", run.stdout + run.stderr)
            self.assertEqual(run.leftovers(), [])
        finally:
            kill_tagged(run.tag)


if __name__ == "__main__":
    unittest.main()
