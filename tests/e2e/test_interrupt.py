"""Ctrl-C (SIGINT) or SIGTERM during a measured window: the orchestrator stops every child,
reports the run error, and leaves nothing behind. A killed router ends the run with exit 3."""
import os
import signal
import tempfile
import unittest

from harness import Run, kill_tagged, process_name, tagged_processes, write_scenario

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


class InterruptTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.path = write_scenario(self.dir, "long.toml", LONG)

    def interrupt_during_measurement(self, sig):
        run = Run(["run", self.path]).start()
        try:
            run.wait_for_stderr("rep 1/3: started")  # plain log lines: stderr is not a terminal
            run.signal(sig)
            run.finish(timeout=30)
            self.assertEqual(run.returncode, 3, run.stderr)
            self.assertIn("interrupted", run.stderr)
            self.assertEqual(run.leftovers(), [], "processes left behind")
        finally:
            kill_tagged(run.tag)

    def test_sigint_stops_every_child(self):
        self.interrupt_during_measurement(signal.SIGINT)

    def test_sigterm_stops_every_child(self):
        self.interrupt_during_measurement(signal.SIGTERM)

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
