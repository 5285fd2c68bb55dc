"""Workers found by name: `--workers-at dns:NAME:PORT` with the real orchestrator and worker.

`localhost` stands for a headless Service's name: it resolves to this machine's loopback
addresses, and the worker listens on 127.0.0.1. The orchestrator waits (up to its startup
deadline) until as many workers as the scenario needs answer Describe, resolving again each
round, so a worker that starts after the orchestrator is found.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, write_scenario

WORKER = os.path.join(BIN, "worker")

SCENARIO = """
name = "discovery"
[router]
impl = "builtin"
[defaults]
warmup = "200ms"
duration = "500ms"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "http_hello"
protocol = "http1"
target = "/bench/hello"
connections = 2
in_flight = 1
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DiscoveryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-discovery-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.scenario = write_scenario(self.dir, "discovery.toml", SCENARIO)
        self.db = os.path.join(self.dir, "runs.db")
        self.workers = []
        self.tags = []

    def tearDown(self):
        for w in self.workers:
            w.terminate()
            try:
                w.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()
            w.stdout.close()
        for tag in self.tags:
            kill_tagged(tag)

    def start_worker(self, port):
        worker = subprocess.Popen([WORKER, "--listen", f"127.0.0.1:{port}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.workers.append(worker)
        line = worker.stdout.readline()
        self.assertEqual(line.strip(), f"READY grpc=127.0.0.1:{port}")

    def test_a_name_takes_the_worker_it_resolves_to(self):
        port = free_port()
        self.start_worker(port)
        run = Run(["run", self.scenario, "--db", self.db, "--workers-at", f"dns:localhost:{port}"],
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual([r["status"] for r in run.result_lines()], ["ok"])
        self.assertNotIn("without a token", run.stderr)  # localhost is loopback, dns: or not

    def test_a_worker_started_after_the_orchestrator_is_waited_for(self):
        port = free_port()
        # Until the worker starts, the port is held by a plain socket: its first accepted
        # connection proves the orchestrator was already looking before the worker existed.
        placeholder = socket.socket()
        placeholder.bind(("127.0.0.1", port))
        placeholder.listen(8)
        placeholder.settimeout(60)
        run = Run(["run", self.scenario, "--db", self.db, "--workers-at", f"dns:localhost:{port}"],
                  cwd=self.dir).start()
        self.tags.append(run.tag)
        try:
            conn, _ = placeholder.accept()
            conn.close()
        finally:
            placeholder.close()
        self.start_worker(port)
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual([r["status"] for r in run.result_lines()], ["ok"])

    def test_a_bad_dns_entry_is_refused_naming_it(self):
        run = Run(["run", self.scenario, "--db", self.db, "--workers-at", "dns:localhost"],
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=120)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)  # before anything started
        self.assertEqual(run.stdout, "")
        self.assertIn("error: --workers-at 'dns:localhost' is not an address to connect to: it "
                      "has no :PORT; expected HOST:PORT with a port of 1 to 65535", run.stderr)

    def test_a_plain_entry_without_a_port_is_refused_as_the_scenario_refuses_it(self):
        # Only dns: entries were checked: "localhost" was taken, and the run waited for a
        # worker gRPC dialled at a port of its own choosing. Now every entry is checked as
        # [workers] at and `run --server` check theirs, in the same words.
        run = Run(["run", self.scenario, "--db", self.db, "--workers-at", "localhost"],
                  cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=120)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)  # before anything started
        self.assertEqual(run.stdout, "")
        self.assertIn("error: --workers-at 'localhost' is not an address to connect to: it has "
                      "no :PORT; expected HOST:PORT with a port of 1 to 65535", run.stderr)
        self.assertFalse(os.path.exists(self.db))


if __name__ == "__main__":
    unittest.main()
