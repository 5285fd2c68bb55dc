"""The load generator's own limits, through the real binaries (docs/MEASUREMENT.md "Worker CPU
and start", "Flags"): a load thread on a CPU for 90% of the window is flagged
`worker_saturated`, a real worker that had to wait for a CPU `worker_cpu_starved`, and a real
worker that received the window command late `start_skew`, with its skew recorded per
repetition. Each flag is checked where a user reads it: the terminal table, the JSON report
and SQLite (and a gate on worker.cpu_utilization judges the figure the report prints).

No timing is asserted: the saturated thread's CPU comes from tests/e2e/tools/fault_worker
(exact figures); the starved worker shares its one core with busy processes the test starts
and stops; the late worker sits behind a proxy that holds every byte the orchestrator sends
it for DELAY_S, longer than the 100 ms between the window command and the shared start, so
it can only start late. Only the flags' bounds are asserted (90%, 5%, 1 ms)."""
import json
import os
import queue
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

FAULT_WORKER = os.path.join(BIN, "fault_worker")
WORKER = os.path.join(BIN, "worker")

SATURATED = """
name = "e2e_saturated"
[defaults]
warmup = "0s"
duration = "300ms"
repetitions = 3
timeout = "20s"

[[workloads]]
name = "busy"
target = "/bench/hello"
connections = 2

[[gates]]
workload = "busy"
metric = "worker.cpu_utilization"
max = 0.5
"""

STARVED = """
name = "e2e_starved"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
timeout = "30s"

[[workloads]]
name = "starved"
target = "/bench/hello"
connections = 8
"""

SKEWED = """
name = "e2e_start_skew"
[defaults]
warmup = "0s"
duration = "300ms"
repetitions = 2
workers = 2
timeout = "30s"

[[workloads]]
name = "skewed"
target = "/bench/hello"
connections = 2
"""

# Busy processes sharing the starved worker's core: each spins until killed, or for 60 s at
# most.
SPINNER = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end:\n    pass\n"

# What the proxy holds back; the window command is sent 100 ms before the shared start.
DELAY_S = 0.4


class DelayingProxy:
    """A TCP proxy on 127.0.0.1 that forwards what its clients send DELAY_S late and what the
    upstream sends at once. Threads end when either side closes or close() is called."""

    def __init__(self, upstream, delay):
        self.upstream = upstream
        self.delay = delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = "127.0.0.1:{}".format(self.listener.getsockname()[1])
        self.sockets = []
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            host, port = self.upstream.rsplit(":", 1)
            try:
                server = socket.create_connection((host, int(port)))
            except OSError:
                client.close()
                continue
            self.sockets += [client, server]
            held = queue.Queue()
            threading.Thread(target=self.read_late, args=(client, held), daemon=True).start()
            threading.Thread(target=self.write_late, args=(held, server), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client), daemon=True).start()

    def read_late(self, source, held):
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            held.put((time.monotonic() + self.delay, data))
            if not data:
                return

    def write_late(self, held, sink):
        while True:
            due, data = held.get()
            time.sleep(max(0.0, due - time.monotonic()))
            try:
                if not data:
                    sink.shutdown(socket.SHUT_WR)
                    return
                sink.sendall(data)
            except OSError:
                return

    def pipe(self, source, sink):
        while True:
            try:
                data = source.recv(65536)
                if not data:
                    sink.shutdown(socket.SHUT_WR)
                    return
                sink.sendall(data)
            except OSError:
                return

    def close(self):
        self.listener.close()
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


def has_flag(flags_text, flag):
    return flag in json.loads(flags_text)


class LoadGeneratorLimitsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-saturation-")
        self.db = os.path.join(self.dir, "bench.db")
        self.json = os.path.join(self.dir, "out.json")
        self.tags = []
        self.processes = []
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def tearDown(self):
        for process in self.processes:
            process.kill()
            process.wait(timeout=10)
            if process.stdout:
                process.stdout.close()
        for tag in self.tags:
            kill_tagged(tag)

    def tagged_env(self):
        tag = "saturation-" + os.path.basename(self.dir) + "-" + str(len(self.tags))
        self.tags.append(tag)
        return dict(os.environ, BENCHGATE_TEST_TAG=tag)

    def script(self, name, text):
        path = write_scenario(self.dir, name, text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def run_scenario(self, name, text, *extra):
        path = write_scenario(self.dir, name + ".toml", text)
        run = Run(["run", path, "--db", self.db, "--json", self.json] + list(extra),
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=120)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        return run

    def rep_row(self, stdout, index):
        rows = [l for l in stdout.splitlines() if l.startswith("  rep {} ".format(index))]
        self.assertEqual(len(rows), 1, stdout)
        return rows[0]

    def stored_repetitions(self, *columns):
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT {} FROM repetitions ORDER BY idx".format(
                ", ".join(columns))).fetchall()

    def stored_workload_flags(self):
        with sqlite3.connect(self.db) as db:
            return json.loads(db.execute("SELECT flags FROM workloads").fetchone()[0])

    # --- worker_saturated --------------------------------------------------------------------

    def test_a_load_thread_at_ninety_percent_of_the_window_is_flagged_saturated(self):
        # Two load threads: in repetition 3 one ran exactly 90% of the window, in the others
        # 89.9%; the process CPU over both threads' capacity is 50% and never fired.
        worker = self.script("fault-worker.sh", '#!/bin/sh\nexec "{}" --mode busy_thread '
                             '--window 2 "$@"\n'.format(FAULT_WORKER))
        run = self.run_scenario("saturated", SATURATED, "--worker-bin", worker)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 1, out)  # the gate below fails; the run is sound

        self.assertNotIn("worker_saturated", self.rep_row(run.stdout, 1), out)
        self.assertNotIn("worker_saturated", self.rep_row(run.stdout, 2), out)
        self.assertIn("worker_saturated", self.rep_row(run.stdout, 3), out)
        summary = [l for l in run.stdout.splitlines() if l.startswith("  all reps ")]
        self.assertIn("worker_saturated", summary[0], out)

        workload = load_json(self.json)["scenarios"][0]["workloads"][0]
        reps = workload["repetitions"]
        self.assertEqual([r["worker_cpu_utilization"] for r in reps], [0.899, 0.899, 0.9])
        self.assertEqual(["worker_saturated" in r["flags"] for r in reps], [False, False, True])
        self.assertEqual([r["worker_cpu_wait_share"] for r in reps], [0.0, 0.0, 0.0])
        self.assertIn("worker_saturated", workload["flags"])

        stored = self.stored_repetitions("worker_cpu_utilization", "flags")
        self.assertEqual([u for u, _ in stored], [0.899, 0.899, 0.9])
        self.assertEqual([has_flag(f, "worker_saturated") for _, f in stored],
                         [False, False, True])
        self.assertIn("worker_saturated", self.stored_workload_flags())

        # The gate judges the figure the report prints: the busiest repetition's.
        gate = load_json(self.json)["scenarios"][0]["gates"][0]
        self.assertEqual((gate["verdict"], gate["observed"]), ("fail", 0.9))
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT verdict, observed FROM gate_results").fetchone(),
                             ("fail", 0.9))
            self.assertEqual(db.execute(
                "SELECT value FROM workload_figures WHERE metric = 'worker.cpu_utilization'"
            ).fetchone()[0], 0.9)

    # --- worker_cpu_starved ------------------------------------------------------------------

    def test_a_worker_sharing_its_core_with_busy_processes_is_flagged_starved(self):
        taskset = shutil.which("taskset")
        if not taskset:
            self.skipTest("taskset (util-linux) is not installed")
        if not os.path.exists("/proc/thread-self/schedstat"):
            self.skipTest("the kernel does not provide the run delay (schedstat)")
        core = max(os.sched_getaffinity(0))
        for _ in range(2):
            self.processes.append(subprocess.Popen(
                [sys.executable, "-c", SPINNER], env=self.tagged_env(),
                preexec_fn=lambda: os.sched_setaffinity(0, {core})))
        worker = self.script("pinned-worker.sh", '#!/bin/sh\nexec "{}" -c {} "{}" "$@"\n'.format(
            taskset, core, WORKER))
        run = self.run_scenario("starved", STARVED, "--worker-bin", worker)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, out)
        # The busy processes were there from before the window to after it.
        self.assertEqual([p.poll() for p in self.processes], [None, None])

        self.assertIn("worker_cpu_starved", self.rep_row(run.stdout, 1), out)
        rep = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"][0]
        self.assertIn("worker_cpu_starved", rep["flags"])
        # The figure behind the flag, at or past the flag's bound, as measured by the worker.
        self.assertGreaterEqual(rep["worker_cpu_wait_share"], 0.05)
        ((share, flags),) = self.stored_repetitions("worker_cpu_wait_share", "flags")
        self.assertEqual(share, rep["worker_cpu_wait_share"])
        self.assertTrue(has_flag(flags, "worker_cpu_starved"))
        self.assertIn("worker_cpu_starved", self.stored_workload_flags())

    # --- start_skew --------------------------------------------------------------------------

    def start_worker(self):
        worker = subprocess.Popen([WORKER, "--listen", "127.0.0.1:0"], env=self.tagged_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.processes.append(worker)
        line = worker.stdout.readline()
        self.assertTrue(line.startswith("READY grpc="), line)
        return line.strip().split("=", 1)[1]

    def test_a_worker_that_receives_the_window_command_late_is_flagged_start_skew(self):
        on_time = self.start_worker()
        proxy = DelayingProxy(self.start_worker(), DELAY_S)
        self.addCleanup(proxy.close)
        run = self.run_scenario("skewed", SKEWED, "--workers-at", on_time + "," + proxy.address)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, out)

        reps = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"]
        self.assertEqual(len(reps), 2)
        for rep in reps:
            # Each worker's skew is recorded; the late one's is past the bound (1 ms).
            self.assertEqual(len(rep["worker_start_skew_ns"]), 2, rep)
            self.assertGreater(rep["worker_start_skew_ns"][1], 1_000_000, rep)
            self.assertIn("start_skew", rep["flags"])
        # SQLite keeps each repetition's largest skew (by magnitude), the same number.
        stored = self.stored_repetitions("start_skew_ns", "flags")
        self.assertEqual([s for s, _ in stored],
                         [max(r["worker_start_skew_ns"], key=abs) for r in reps])
        self.assertEqual([has_flag(f, "start_skew") for _, f in stored], [True, True])
        self.assertIn("start_skew", self.stored_workload_flags())
        # The terminal names every flagged repetition's skew.
        for index in (1, 2):
            self.assertIn("start_skew", self.rep_row(run.stdout, index), out)
        self.assertRegex(run.stdout, r"start skew \(the worker furthest from the shared start\):"
                         r" rep 1 \S+ rep 2 \S+\n")


if __name__ == "__main__":
    unittest.main()
