"""Variants of a comparison that do not start, through the real binaries: one that exits at
once, one that never listens (it waits out the whole default startup deadline, 30 s) and one
that gives up at its own startup_timeout. Each fails with its reason, and the two that start are
measured in full: neither they nor the shared workers lose their deadlines to the broken ones.
Mostly waiting, so CTest runs it beside other tests; it checks statuses and messages, never
speed. Ctrl-C while a variant starts interrupts the run, as a plain run's start: nothing
failed."""
import os
import signal
import sqlite3
import unittest

from harness import Run, load_json, write_scenario
from test_compare import COMPARE, ComparisonRuns

# A router that exits at once and one that never listens (it fails at the startup deadline).
BROKEN = """
[routers.dead]
impl = "command"
command = ["sh", "-c", "exit 3"]
address = "127.0.0.1:${port:dead}"
[routers.silent]
impl = "command"
command = ["sleep", "120"]
address = "127.0.0.1:${port:silent}"
[routers.slow]
impl = "command"
command = ["sleep", "120"]
address = "127.0.0.1:${port:slow}"
startup_timeout = "2s"
"""


class CompareStartupTest(ComparisonRuns, unittest.TestCase):
    def test_variants_that_do_not_start_cost_the_others_nothing(self):
        # "first" starts before the broken ones, the shared workers after them: neither may
        # lose its startup deadline to them ("silent" waits out the whole default 30 s, as long
        # as the workers' own deadline); "slow" gives up at its own startup_timeout.
        run, out = self.run_scenario(
            COMPARE.format(extra=BROKEN, more=', "dead", "silent", "slow"'))
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        by_variant = {l["variant"]: l for l in run.result_lines()}
        self.assertEqual(by_variant["first"]["status"], "ok", run.stdout + run.stderr)
        self.assertEqual(by_variant["first"]["reps"], "4")
        self.assertEqual(by_variant["second"]["status"], "ok")
        self.assertEqual(by_variant["dead"]["status"], "failed")
        self.assertEqual(by_variant["silent"]["status"], "failed")
        errors = {w["variant"]: w["error"] for w in load_json(out)["scenarios"][0]["workloads"]}
        # Noticed as an exit, with its status, not as a deadline.
        self.assertIn("router 'dead' did not start: system under test 'sh' exited with "
                      "status 3 before it accepted connections", errors["dead"])
        self.assertIn("router 'silent' did not start: nothing accepted connections on "
                      "127.0.0.1:", errors["silent"])
        self.assertIn(" within 30s (startup_timeout; the last attempt: connection refused)",
                      errors["silent"])
        self.assertEqual(by_variant["slow"]["status"], "failed")
        self.assertIn("router 'slow' did not start: nothing accepted connections on 127.0.0.1:",
                      errors["slow"])
        self.assertIn(" within 2s (startup_timeout; the last attempt: connection refused)",
                      errors["slow"])

    def test_an_interrupt_while_a_variant_starts_is_interrupted_not_failed(self):
        # "silent" comes first and never listens: the interrupt lands in its start, and the
        # builtin "first" after it is never started. Every variant said `failed` before, with
        # the interrupt as its error.
        text = COMPARE.format(extra=BROKEN, more=', "silent"').replace(
            'routers = ["first", "second", "silent"]', 'routers = ["silent", "first"]')
        path = write_scenario(self.dir, "interrupted.toml", text)
        db = os.path.join(self.dir, "interrupted.db")
        run = Run(["run", path, "--db", db]).start()
        self.runs.append(run)
        # Printed just before the variants start.
        self.assertIn("scenario e2e_compare", run.proc.stdout.readline())
        run.signal(signal.SIGINT)
        run.finish(timeout=60)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 3, out)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        self.assertNotIn("FAILED", out)
        self.assertNotIn("status=failed", out)
        self.assertEqual(run.result_lines(), [], out)  # nothing ran, nothing is listed
        self.assertIn("interrupted by signal 2 (Interrupt): every child process was stopped\n",
                      run.stderr)
        with sqlite3.connect(db) as conn:
            status, code, error = conn.execute(
                "SELECT status, exit_code, error FROM runs").fetchone()
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM workloads").fetchone(), (0,))
        self.assertEqual((status, code), ("aborted", 3))
        # The start's own words: "interrupted while waiting for 127.0.0.1:PORT to accept
        # connections", or "interrupted before sleep was started" when the signal came first.
        self.assertTrue(error.startswith("interrupted "), error)


if __name__ == "__main__":
    unittest.main()
