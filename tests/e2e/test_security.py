"""Security of the control endpoints (README "Security"): a worker started with --token-file
serves an orchestrator that sends the token and refuses one that does not (the run fails
UNAUTHENTICATED with exit 3 and leaves nothing behind); a worker never listens on the network
without a token unless told to; token files must be owner-only regular files (a FIFO is refused
at once, never waited on); spawned workers get a fresh token of their own; a label holding SQL
is stored and read back unchanged; a scenario submitted to `orchestrator serve` whose routers and
workers would be more processes at once than its --max-processes is refused with none started;
more idle connections to `orchestrator serve` than its soft open files limit leave it accepting
clients."""
import json
import os
import re
import resource
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import tempfile
import time
import unittest
import uuid

from harness import BIN, Run, kill_tagged, process_name, tagged_processes, write_scenario

WORKER = os.path.join(BIN, "worker")

TINY = """
name = "e2e_security"
[router]
threads = 1
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 1
workers = 1
threads = 1
timeout = "10s"

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 2
"""

# Three compared bundled routers sharing the 4 workers of the workload: 7 processes at once,
# one more than the service below allows.
THREE_ROUTERS = """
name = "three_routers"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 2
[routers.a]
impl = "builtin"
[routers.b]
impl = "builtin"
[routers.c]
impl = "builtin"
[compare]
routers = ["a", "b", "c"]

[[workloads]]
name = "four"
protocol = "http1"
target = "/bench/hello"
connections = 4
workers = 4
"""

EVIL_LABEL = "x'); DROP TABLE runs; --"
TOKEN = "e2e-" + uuid.uuid4().hex


class SecurityTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.tags = []
        self.worker = None
        self.token_file = self.secret_file("token", TOKEN + "\n", 0o600)
        self.scenario = write_scenario(self.dir, "tiny.toml", TINY)
        self.db = os.path.join(self.dir, "b.db")

    def tearDown(self):
        if self.worker and self.worker.poll() is None:
            self.worker.send_signal(signal.SIGTERM)
            try:
                self.worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.worker.kill()
                self.worker.wait()
        if self.worker:
            self.worker.stdout.close()
            self.worker_log.close()
        for tag in self.tags:
            kill_tagged(tag)

    def secret_file(self, name, text, mode):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def stop_if_running(self, run):
        if run.proc.poll() is None:
            run.proc.kill()
        run.proc.wait()
        run.proc.stdout.close()
        run.proc.stderr.close()

    def start_worker(self, *args):
        """Starts the bundled worker on 127.0.0.1 with these arguments; returns its address."""
        self.worker_log_path = os.path.join(self.dir, "worker.stderr.log")
        self.worker_log = open(self.worker_log_path, "w")
        self.worker = subprocess.Popen([WORKER, "--listen", "127.0.0.1:0"] + list(args),
                                       stdout=subprocess.PIPE, stderr=self.worker_log, text=True)
        line = self.worker.stdout.readline()
        self.assertTrue(line.startswith("READY grpc="), line)
        return line.strip().split("=", 1)[1]

    def worker_stderr(self):
        self.worker_log.flush()
        with open(self.worker_log_path) as f:
            return f.read()

    def orchestrator(self, *args, timeout=120):
        run = Run(list(args), cwd=self.dir)
        self.tags.append(run.tag)
        run.run(timeout=timeout)
        # Logs kept by --keep-logs or a failed run are this test's to remove.
        for kept in re.findall(r"child process logs: (\S+)", run.stderr):
            self.addCleanup(shutil.rmtree, kept, ignore_errors=True)
        return run

    # --- a worker with a token -------------------------------------------------------------

    def test_run_with_the_token_passes_and_stores_a_label_holding_sql_unchanged(self):
        address = self.start_worker("--token-file", self.token_file)
        run = self.orchestrator("run", self.scenario, "--db", self.db,
                                "--workers-at", address, "--worker-token-file", self.token_file,
                                "--label", "note=" + EVIL_LABEL, "--label", EVIL_LABEL + "=v")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual([r["status"] for r in run.result_lines()], ["ok"])
        self.assertNotIn("refused", self.worker_stderr())
        self.assertEqual(run.leftovers(), [])
        # The label went in as data: the table is still there and holds it byte for byte.
        with sqlite3.connect(self.db) as db:
            (labels,) = db.execute("SELECT labels FROM runs").fetchone()
        self.assertEqual(json.loads(labels), {"note": EVIL_LABEL, EVIL_LABEL: "v"})
        shown = self.orchestrator("runs", "show", "1", "--db", self.db)
        self.assertEqual(shown.returncode, 0, shown.stdout + shown.stderr)
        self.assertIn(EVIL_LABEL, shown.stdout)

    def test_run_without_the_token_fails_unauthenticated_with_exit_3_and_nothing_left(self):
        address = self.start_worker("--token-file", self.token_file)
        run = self.orchestrator("run", self.scenario, "--db", self.db, "--workers-at", address)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 3, out)
        self.assertIn("UNAUTHENTICATED", out)
        self.assertIn("--worker-token-file", out)
        self.assertEqual(run.leftovers(), [])  # the router it started is gone
        log = self.worker_stderr()
        self.assertIn("refused /benchgate.v1.Worker/Describe from ipv4:127.0.0.1:", log)
        self.assertNotIn(TOKEN, log)
        self.assertIsNone(self.worker.poll(), "the worker must keep serving")

    def test_run_with_a_wrong_token_fails_unauthenticated(self):
        address = self.start_worker("--token-file", self.token_file)
        wrong = self.secret_file("wrong", "not-" + TOKEN + "\n", 0o600)
        run = self.orchestrator("run", self.scenario, "--db", self.db, "--workers-at", address,
                                "--worker-token-file", wrong)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("UNAUTHENTICATED", run.stdout + run.stderr)
        self.assertIn("wrong token", self.worker_stderr())
        self.assertNotIn(TOKEN, self.worker_stderr())

    def test_worker_check_passes_a_worker_with_a_token_and_checks_it_is_required(self):
        run = self.orchestrator("worker-check", "--worker-token-file", self.token_file, "--",
                                WORKER, "--token-file", self.token_file, timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("PASS  refuses a call without the token (UNAUTHENTICATED)", run.stdout)
        self.assertNotIn("FAIL", run.stdout)

    # --- refusals at start-up --------------------------------------------------------------

    def test_worker_refuses_a_network_address_without_a_token_file(self):
        proc = subprocess.run([WORKER, "--listen", "0.0.0.0:0"], capture_output=True, text=True,
                              timeout=30)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")  # never READY: it did not listen
        self.assertIn("--token-file", proc.stderr)
        self.assertIn("--insecure-no-token", proc.stderr)

    def test_token_files_readable_by_others_are_refused_with_exit_2(self):
        lax = self.secret_file("lax", TOKEN + "\n", 0o644)
        proc = subprocess.run([WORKER, "--token-file", lax], capture_output=True, text=True,
                              timeout=30)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("chmod 600", proc.stderr)
        self.assertNotIn(TOKEN, proc.stderr)
        run = self.orchestrator("run", self.scenario, "--db", self.db,
                                "--workers-at", "127.0.0.1:1", "--worker-token-file", lax)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("mode 0644", run.stderr)
        self.assertFalse(os.path.exists(self.db), "nothing may be stored on a usage error")

    def test_a_fifo_as_token_file_is_refused_at_once_by_both_binaries(self):
        # Opening a FIFO for reading waits for a writer: the timeouts bound a regression.
        fifo = os.path.join(self.dir, "token.fifo")
        os.mkfifo(fifo, 0o600)
        proc = subprocess.run([WORKER, "--listen", "127.0.0.1:0", "--token-file", fifo],
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")  # never READY
        self.assertEqual(proc.stderr, "worker: --token-file: token file '%s' is a FIFO (named "
                                      "pipe), not a regular file\n" % fifo)
        for command in (["run", self.scenario, "--db", self.db],
                        ["serve", "--scenarios", self.dir, "--db", self.db,
                         "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]):
            run = self.orchestrator(*command, "--workers-at", "127.0.0.1:1",
                                    "--worker-token-file", fifo, timeout=30)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertEqual(run.stdout, "")
            self.assertEqual(run.stderr, "error: --worker-token-file: token file '%s' is a FIFO "
                                         "(named pipe), not a regular file\n" % fifo)
            self.assertFalse(os.path.exists(self.db), "nothing may be stored on a usage error")
            self.assertEqual(run.leftovers(), [])

    # --- orchestrator serve ----------------------------------------------------------------

    def test_serve_refuses_a_submitted_scenario_with_more_processes_than_it_allows(self):
        # Before --max-processes nothing bounded them: the service took this scenario and
        # started its 3 routers and 4 workers (and as readily 1,000 routers or workers).
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                       "--db", self.db, "--scenarios", self.dir, "--max-processes", "6"],
                      cwd=self.dir)
        self.tags.append(service.tag)
        service.start()
        self.addCleanup(self.stop_if_running, service)
        ready = service.proc.stdout.readline()
        if not ready.startswith("READY grpc="):
            service.finish(timeout=30)
            self.fail("serve did not start: " + service.stderr)
        grpc = dict(kv.split("=", 1) for kv in ready.split()[1:])["grpc"]
        path = write_scenario(self.dir, "three_routers.toml", THREE_ROUTERS)
        client = self.orchestrator("run", "--server", grpc, path, timeout=90)
        self.assertEqual(client.returncode, 2, client.stdout + client.stderr)
        self.assertEqual(client.stdout, "")
        self.assertIn("three_routers.toml:16:1: error: workload 'four' workers = 4 makes the run "
                      "have 7 processes at once (3 routers, 4 workers), more than this "
                      "service's --max-processes (6); fewer workers or variants fit; nothing "
                      "was started\n", client.stderr)
        # Nothing started: the service and its guardian (README, "Process trees") alone, and
        # no run stored.
        tree = set(tagged_processes(service.tag))
        guardians = {p for p in tree if process_name(p) == "benchgate-guard"}
        self.assertEqual(tree - guardians, {service.proc.pid})
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone(), (0,))
        service.signal(signal.SIGTERM)
        service.finish(timeout=60)
        self.assertEqual(service.returncode, 0, service.stderr)
        self.assertEqual(service.leftovers(), [])

    def test_serve_still_accepts_clients_after_more_connections_than_its_soft_open_files_limit(
            self):
        # Before the fix gRPC's accept failed with EMFILE at the soft limit ("Failed accept4:
        # Too many open files") and it never accepted on the port again: every later client
        # timed out. serve now raises its soft limit to the hard one.
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        connections = 300
        if hard != resource.RLIM_INFINITY and hard < 256 + 2 * connections:
            self.skipTest(f"the hard open files limit ({hard}) leaves no room above 256")
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                       "--db", self.db, "--scenarios", self.dir], cwd=self.dir)
        service.args = ["prlimit", "--nofile=256:%s" % ("unlimited" if hard ==
                        resource.RLIM_INFINITY else hard)] + service.args
        service.env["TMPDIR"] = self.dir  # its log folder, should the test fail and kill it
        self.tags.append(service.tag)
        service.start()
        self.addCleanup(self.stop_if_running, service)
        ready = service.proc.stdout.readline()
        if not ready.startswith("READY grpc="):
            service.finish(timeout=30)
            self.fail("serve did not start: " + service.stderr)
        grpc = dict(kv.split("=", 1) for kv in ready.split()[1:])["grpc"]
        host, port = grpc.rsplit(":", 1)
        fd_folder = f"/proc/{service.proc.pid}/fd"
        held_before = len(os.listdir(fd_folder))
        idle = []
        try:
            for _ in range(connections):
                idle.append(socket.create_connection((host, int(port)), timeout=10))
            # Every connection accepted: the service holds a descriptor for each at once (at
            # most 256 in all under the old limit). Bounded wait, not a timing judgement.
            deadline = time.monotonic() + 30
            while (len(os.listdir(fd_folder)) < held_before + connections
                   and time.monotonic() < deadline):
                time.sleep(0.1)
            self.assertGreaterEqual(len(os.listdir(fd_folder)), held_before + connections)
        finally:
            for connection in idle:
                connection.close()
        # A Submit after them is answered: this scenario's error, not a connection timeout.
        path = write_scenario(self.dir, "misspelt.toml", TINY.replace("connections", "conections"))
        client = self.orchestrator("run", "--server", grpc, path, timeout=90)
        self.assertEqual(client.returncode, 2, client.stdout + client.stderr)
        self.assertIn("misspelt.toml:17:1: error: unknown key 'conections' in [[workloads]]",
                      client.stderr)
        service.signal(signal.SIGTERM)
        service.finish(timeout=60)
        self.assertEqual(service.returncode, 0, service.stderr)
        self.assertNotIn("Too many open files", service.stderr)
        self.assertEqual(service.leftovers(), [])

    # --- spawned workers -------------------------------------------------------------------

    def test_spawned_workers_require_a_fresh_token_that_is_removed_after_the_run(self):
        run = self.orchestrator("run", self.scenario, "--db", self.db, "--keep-logs")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        logs = re.search(r"child process logs: (\S+)", run.stderr).group(1)
        with open(os.path.join(logs, "worker-0.stderr.log")) as f:
            worker_log = f.read()
        self.assertIn("every call must carry the token of " + logs + "/worker-token-", worker_log)
        self.assertEqual([n for n in os.listdir(logs) if n.startswith("worker-token")], [])
        self.assertEqual(stat.S_IMODE(os.stat(logs).st_mode), 0o700)
        self.assertEqual(run.leftovers(), [])


if __name__ == "__main__":
    unittest.main()
