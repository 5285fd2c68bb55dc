"""What the figures mean at the edges of a window (docs/MEASUREMENT.md), with the real
orchestrator, worker and router: an open-loop stall that lasts past the window's end moves
p99 and every request of the schedule is accounted for; a rate sweep runs each rate as an
open loop of its own.

The system under test is the bundled router started by the test and attached as an external
system, so the test can SIGSTOP it (the orchestrator does not watch an external process)."""
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

RATE = 500
DURATION_S = 1

SCENARIO = """
name = "e2e_measurement"
[router]
impl = "external"
address = "{address}"
[defaults]
warmup = "0s"
duration = "{duration}s"
repetitions = 1
timeout = "60s"
[[workloads]]
name = "{name}"
target = "/bench/hello"
connections = {connections}
rate = {rate}
"""


class OpenLoopStallTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-measurement-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.tags = []
        env = dict(os.environ, BENCHGATE_TEST_TAG="router-" + os.path.basename(self.dir))
        self.tags.append(env["BENCHGATE_TEST_TAG"])
        self.router = subprocess.Popen([os.path.join(BIN, "router"), "--http", "127.0.0.1:0"],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       text=True, env=env)
        ready = self.router.stdout.readline().split()
        self.address = dict(f.split("=", 1) for f in ready[1:])["http"]

    def tearDown(self):
        self.router.send_signal(signal.SIGCONT)
        self.router.terminate()
        self.router.wait(timeout=10)
        self.router.stdout.close()
        for tag in self.tags:
            kill_tagged(tag)

    def start(self, name, rate=RATE, duration=DURATION_S, connections=4):
        path = write_scenario(self.dir, name + ".toml", SCENARIO.format(
            address=self.address, duration=duration, name=name, rate=rate,
            connections=connections))
        json_path = os.path.join(self.dir, name + ".json")
        run = Run(["run", path, "--db", os.path.join(self.dir, "bench.db"), "--json", json_path],
                  cwd=self.dir)
        self.tags.append(run.tag)
        return run.start(), json_path

    def finish(self, run, json_path):
        run.finish(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        line = run.result_lines()[0]
        rep = load_json(json_path)["scenarios"][0]["workloads"][0]["repetitions"][0]
        return line, rep

    def test_a_stall_past_the_window_end_moves_p99_and_every_scheduled_request_counts(self):
        clean, clean_json = self.start("clean")
        clean_line, clean_rep = self.finish(clean, clean_json)

        stalled, stalled_json = self.start("stalled")
        # The window starts 100 ms after this line; the router is stopped from about 0.6 s
        # into the 1 s window until 0.8 s later, past the window's end. A stop that came 0.4 s
        # late would miss the window and fail the test (nothing unsent), never pass it.
        stalled.wait_for_stderr("stalled rep 1/1: started")
        time.sleep(0.1 + 0.6)
        self.router.send_signal(signal.SIGSTOP)
        time.sleep(0.8)
        self.router.send_signal(signal.SIGCONT)
        line, rep = self.finish(stalled, stalled_json)

        scheduled = RATE * DURATION_S
        # Every request due in the window was sent (the late ones during the drain) and
        # answered; none is left out as merely "unsent".
        self.assertEqual(clean_rep["operations"], scheduled, clean_line)
        self.assertEqual(rep["operations"], scheduled, line)
        self.assertEqual(rep["successes"], scheduled, line)
        self.assertEqual(line["errors"], "0", line)
        self.assertGreater(rep["unsent"], 0, "the stall held requests past the window's end")
        # They are measured from their intended instants: the stall is in p99.
        self.assertGreater(float(line["p99_us"]), float(clean_line["p99_us"]), (line, clean_line))
        # What completed after the window's end is not in its throughput: ops/s is the
        # window's in-window successes over its length, in JSON and RESULT alike.
        self.assertLess(rep["in_window"]["successes"], rep["successes"])
        self.assertEqual(rep["ops_per_second"], rep["in_window"]["successes"] / DURATION_S)
        self.assertEqual(line["rps"], "{:.0f}".format(rep["ops_per_second"]))
        # 0.4 s of a 1 s window at a standstill: far more than 1% of the schedule went out
        # late, so the repetition says the rate was not kept (docs/MEASUREMENT.md "Flags").
        self.assertGreater(rep["late_sends"], scheduled // 100, rep)
        self.assertIn("rate_not_kept", rep["flags"], rep)
        self.assertIn("rate_not_kept", line["flags"].split(","), line)

    def test_a_rate_one_connection_cannot_carry_is_flagged_rate_not_kept_everywhere(self):
        # One connection with one request in flight answers one round trip at a time: 50,000
        # requests/s is far more than it can carry on loopback, so most of the 0.5 s window's
        # 25,000 requests are still unwritten when it ends.
        run, json_path = self.start("overrun", rate=50000, duration=0.5, connections=1)
        line, rep = self.finish(run, json_path)
        self.assertEqual(rep["operations"], 25000, line)
        self.assertGreater(rep["unsent"], 25000 // 100, rep)
        self.assertIn("rate_not_kept", rep["flags"], rep)
        workload = load_json(json_path)["scenarios"][0]["workloads"][0]
        self.assertIn("rate_not_kept", workload["flags"], workload)
        self.assertIn("rate_not_kept", line["flags"].split(","), line)
        row = [l for l in run.stdout.splitlines() if l.lstrip().startswith("rep 1")]
        self.assertTrue(row and "rate_not_kept" in row[0], run.stdout)
        with sqlite3.connect(os.path.join(self.dir, "bench.db")) as db:
            stored = db.execute("SELECT flags FROM repetitions").fetchall()
        self.assertEqual(len(stored), 1, stored)
        self.assertIn("rate_not_kept", stored[0][0], stored)

    def test_a_rate_sweep_runs_each_rate_as_its_own_open_loop_workload(self):
        path = write_scenario(self.dir, "sweep.toml", SCENARIO.format(
            address=self.address, duration=0.5, name="swept", rate=100, connections=2)
            + "sweep = { rate = [200, 400] }\n")
        json_path = os.path.join(self.dir, "sweep.json")
        run = Run(["run", path, "--db", os.path.join(self.dir, "bench.db"), "--json", json_path],
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        self.assertEqual([l["workload"] for l in run.result_lines()],
                         ["swept@rate=200", "swept@rate=400"])
        workloads = load_json(json_path)["scenarios"][0]["workloads"]
        # Each point is an open loop at its rate: its schedule is rate x window.
        self.assertEqual([w["repetitions"][0]["operations"] for w in workloads], [100, 200])
        sweep = [l for l in run.stdout.splitlines() if l.startswith("SWEEP|")]
        self.assertEqual(len(sweep), 1, run.stdout)
        self.assertIn("|workload=swept|variant=default|parameter=rate|points=2|", sweep[0])
        self.assertIn("sweep swept [default] over rate (requests/s offered): p50 = ", run.stdout)
        with sqlite3.connect(os.path.join(self.dir, "bench.db")) as db:
            stored = db.execute("SELECT name FROM workloads ORDER BY id").fetchall()
        self.assertEqual(stored, [("swept@rate=200",), ("swept@rate=400",)])


if __name__ == "__main__":
    unittest.main()
