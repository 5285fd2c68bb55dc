"""Faults whose outcome never depends on when anything happens, split from test_faults.py so
that they run beside other tests (tests/e2e/CMakeLists.txt): a worker (tools/fault_worker)
that never becomes ready, exits before READY or sends a malformed result or progress report in
its first window, with and without fail_fast; of two workers given with --workers-at, worker 0
exiting when a window comes (on_worker_loss = "continue") and worker 1 then sending a malformed
result; an address another program already serves; workers given with --workers-at that do not
answer; an external system that is not there and a router that never says READY. The faulty
workers fail whenever they are asked, the deadlines waited out are the workload's,
--workers-wait and the startup_timeout, stated in the messages as given,
and nothing is killed or stopped from outside at a chosen moment. The checks are
test_faults.py's (FaultRuns)."""
import os
import socket
import sqlite3
import subprocess
import unittest

from harness import BIN, load_json, write_scenario
from test_faults import FAULT_WORKER, FaultRuns


class FaultsUntimedTest(FaultRuns, unittest.TestCase):
    def scenario(self, duration="200ms", **kwargs):
        # The faulty workers' figures are made up and their faults strike in a given window,
        # however long it is: test_faults.py's 600 ms would only be waited out.
        return super().scenario(duration=duration, **kwargs)

    def test_a_worker_that_never_becomes_ready_fails_at_the_workload_timeout(self):
        worker = self.fault_worker("--mode", "never_ready", "--workload", "victim")
        run = self.run_to_end(self.scenario(timeout="3s"), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "workload timeout (3000 ms) passed while waiting for the workers to "
            "be ready from worker 0, 1", repetitions_kept=0)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_a_worker_that_exits_before_ready_leaves_every_workload_not_run(self):
        worker = self.fault_worker("--mode", "exit_at_start")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        for name in ("victim", "after"):
            self.assert_workload_failed(run, name, "not run: workers did not start: worker 0",
                                        repetitions_kept=0)
        self.assertIn("exiting before READY, as asked", run.stderr)  # the stderr tail
        self.assert_run_ended(run)

    def test_a_histogram_count_that_disagrees_with_successes_is_a_malformed_result(self):
        worker = self.fault_worker("--mode", "malformed_count", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "worker 0 sent a malformed result: in window 1, latency holds 101 "
            "samples but successes are 100 (one sample per success)", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_garbage_histogram_bytes_are_a_malformed_result(self):
        worker = self.fault_worker("--mode", "garbage_histogram", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(run, "victim", "sent a malformed result: an unreadable "
                                    "histogram", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_a_histogram_of_another_layout_is_rejected_naming_the_layout(self):
        # Merging re-bucketed it without a word; docs/WORKER_PROTOCOL.md says it is rejected.
        worker = self.fault_worker("--mode", "other_layout", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "worker 0 sent a latency histogram of another layout: "
            "1..1000000000 ns with 2 digits, not 1..3600000000000 ns with 3 digits",
            repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_a_progress_histogram_of_another_layout_is_rejected_naming_the_layout(self):
        # It was re-bucketed into the live p99 and the stored timeline without a word.
        worker = self.fault_worker("--mode", "other_layout_progress", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "sent a malformed progress report in window 1: its latency "
            "histogram: layout is 1..1000000000 ns with 2 digits, not 1..3600000000000 ns with 3 "
            "digits", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    LOSS = """
name = "e2e_loss"
[workers]
on_worker_loss = "continue"
[[workloads]]
name = "victim"
target = "/bench/hello"
warmup = "0s"
duration = "300ms"
repetitions = 3
workers = 2
connections = 2
timeout = "20s"
"""

    def start_fault_worker(self, *args):
        """A fault_worker this test starts and stops (for --workers-at); its address."""
        worker = subprocess.Popen([FAULT_WORKER, "--listen", "127.0.0.1:0"] + list(args),
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(worker.stdout.close)
        self.addCleanup(worker.wait, 10)
        self.addCleanup(worker.kill)
        line = worker.stdout.readline()
        self.assertTrue(line.startswith("READY grpc="), line)
        return line.strip().split("=", 1)[1]

    def test_after_worker_0_is_lost_worker_1_is_named_by_its_own_index(self):
        # Worker 0 exits when window 1 (the second repetition) comes; worker 1 measures it
        # alone, then sends a malformed result in window 2. Each start says which worker it is.
        addresses = [
            self.start_fault_worker("--mode", "exit_in_window", "--window", "1",
                                    "--start-late-us", "100"),
            self.start_fault_worker("--mode", "malformed_count", "--window", "2",
                                    "--start-late-us", "200")]
        path = write_scenario(self.dir, "loss.toml", self.LOSS)
        run = self.run_to_end(path, "--workers-at", ",".join(addresses))
        self.assertIn(f"worker 0 at {addresses[0]} was lost during repetition 2", run.stderr)
        # Worker 1's result, not worker 0's: the kept workers' indices were 0, 1, ... .
        self.assert_workload_failed(
            run, "victim", "worker 1 sent a malformed result: in window 2, latency holds 101 "
            "samples but successes are 100 (one sample per success)", repetitions_kept=2)
        reps = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"]
        rows = [[(w["worker"], w["start_skew_ns"]) for w in rep["workers"]] for rep in reps]
        self.assertEqual(rows, [[(0, 100_000), (1, 200_000)], [(1, 200_000)]])
        self.assertEqual([rep["worker_start_skew_ns"] for rep in reps],
                         [[100_000, 200_000], [200_000]])
        self.assertEqual(["degraded" in rep["flags"] for rep in reps], [False, True])
        with sqlite3.connect(self.db) as db:
            stored = db.execute(
                "SELECT r.idx, w.worker, w.start_skew_ns FROM worker_windows w "
                "JOIN repetitions r ON r.id = w.repetition_id ORDER BY r.idx, w.worker").fetchall()
        self.assertEqual(stored, [(0, 0, 100_000), (0, 1, 200_000), (1, 1, 200_000)])
        self.assert_run_ended(run)

    def test_failed_operations_that_no_error_counts_are_a_malformed_result(self):
        # They were taken for "errors 0" (and passed an `errors.count max = 0` gate).
        worker = self.fault_worker("--mode", "hidden_errors", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "worker 0 sent a malformed result: in window 1, errors add up to 0 but "
            "200 of 300 operations failed (operations - successes)", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_more_successes_inside_the_window_than_in_all_are_a_malformed_result(self):
        # They were counted into ops/s.
        worker = self.fault_worker("--mode", "inflated_in_window", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "worker 0 sent a malformed result: in window 1, in_window.successes "
            "300 exceed successes 100", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_negative_cpu_is_a_malformed_result(self):
        # It was stored as a worker at 0% CPU (and -5 ns of CPU seconds), exit code 0, though
        # worker-check fails it.
        worker = self.fault_worker("--mode", "negative_cpu", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(), "--worker-bin", worker)
        self.assert_workload_failed(
            run, "victim", "worker 0 sent a malformed result: in window 1, cpu_user_ns -5 ns is "
            "negative", repetitions_kept=1)
        self.assert_workload_ok(run, "after")
        self.assert_run_ended(run)

    def test_fail_fast_records_the_workloads_after_a_failure_as_not_run(self):
        worker = self.fault_worker("--mode", "malformed_count", "--workload", "victim",
                                   "--window", "1")
        run = self.run_to_end(self.scenario(top="fail_fast = true"), "--worker-bin", worker)
        self.assert_workload_failed(run, "victim", "malformed result", repetitions_kept=1)
        self.assert_workload_failed(
            run, "after", "not run: fail_fast is set and workload 'victim' failed",
            repetitions_kept=0)
        self.assert_run_ended(run)

    def test_a_command_whose_address_another_program_serves_is_refused_before_it_starts(self):
        # A server left on the port would pass the readiness probe and be measured in place of
        # the command; the command is never started.
        squatter = socket.socket()
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        self.addCleanup(squatter.close)
        port = squatter.getsockname()[1]
        marker = os.path.join(self.dir, "started")
        path = write_scenario(self.dir, "squatted.toml", f"""
name = "e2e_squatted"
[router]
impl = "command"
command = ["touch", "{marker}"]
address = "127.0.0.1:{port}"
[[workloads]]
name = "hello"
duration = "200ms"
repetitions = 1
""")
        run = self.run_to_end(path)
        self.assertIn(f"system under test did not start: 127.0.0.1:{port} (the scenario's "
                      "address) accepts connections before 'touch' was started: another "
                      "program listens there, which the run would measure in its place",
                      run.stderr)
        self.assertFalse(os.path.exists(marker), "the command was started")
        self.assert_run_ended(run)

    def test_unreachable_workers_at_are_named_with_the_connection_error(self):
        router = subprocess.Popen([os.path.join(BIN, "router"), "--http", "127.0.0.1:0",
                                   "--control", "127.0.0.1:0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            ready = router.stdout.readline()
            address = [f.split("=", 1)[1] for f in ready.split() if f.startswith("http=")][0]
            path = write_scenario(self.dir, "unreachable.toml",
                                  self.UNREACHABLE.format(address=address))
            run = self.run_to_end(path, "--workers-at", "127.0.0.1:1", "--workers-wait", "3s")
        finally:
            router.terminate()
            router.wait(timeout=10)
            router.stdout.close()
        out = run.stdout + run.stderr
        self.assertIn("workers given with --workers-at are not usable: the scenario needs 1 "
                      "workers but only 0 answered Describe by the deadline, of 1 addresses "
                      "127.0.0.1:1 gave (127.0.0.1:1); not answering: 127.0.0.1:1; last: worker "
                      "at 127.0.0.1:1 did not answer Describe before its deadline: UNAVAILABLE",
                      out)
        self.assertIn("Connection refused", out)
        self.assertNotIn("DEADLINE_EXCEEDED", out)
        self.assertNotIn("child process logs", run.stderr)
        self.assert_run_ended(run)

    def test_an_unreachable_external_system_is_named_with_the_connection_error(self):
        path = write_scenario(self.dir, "unreachable.toml",
                              self.UNREACHABLE.format(address="127.0.0.1:1"))
        run = self.run_to_end(path)  # waits out its startup_timeout: it may be coming up
        out = run.stdout + run.stderr
        self.assertIn("system under test is not reachable: nothing accepted connections on "
                      "127.0.0.1:1 within 1s (startup_timeout; the last attempt: connection refused)",
                      out)
        self.assertNotIn("did not start", out)
        # Nothing was spawned, so there is no log folder to point at.
        self.assertNotIn("child process logs", run.stderr)
        self.assert_run_ended(run)

    def test_a_router_that_never_says_ready_fails_at_its_startup_timeout(self):
        router = self.executable("silent-router.sh",
                                 'echo "never ready, as asked" >&2\nexec sleep 120\n')
        path = write_scenario(self.dir, "silent.toml", """
name = "e2e_silent_router"
[router]
startup_timeout = "1s"
[[workloads]]
name = "hello"
duration = "200ms"
repetitions = 1
""")
        run = self.run_to_end(path, "--router-bin", router)
        self.assertIn("system under test did not start: router did not print READY within 1s "
                      "(startup_timeout)", run.stderr)
        self.assertIn("never ready, as asked", run.stderr)  # the stderr tail
        self.assert_run_ended(run)

if __name__ == "__main__":
    unittest.main()
