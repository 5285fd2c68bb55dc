"""A unix:PATH address that a server still listens on is refused, as a port in use is, and the
server keeps its socket (gRPC alone would replace it): the router's --control, `orchestrator
serve`'s --listen and the worker's --listen. A socket file nobody listens on is replaced,
owner-only (srwx------) whatever the umask. A failed bind there is named in one line, without
gRPC's own log. A worker on a unix:PATH needs no token (only its owner may connect), serves a
run whose [workers] at names the path, and removes its socket when it stops; one killed leaves
its socket, which the next worker on the path replaces."""
import glob
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, write_scenario

WORKER = os.path.join(BIN, "worker")

# Against the bundled router on loopback: one short repetition, a few requests a second.
WORKER_SCENARIO = """
name = "unix_worker"
[router]
impl = "builtin"
[workers]
at = "unix:{path}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 1
in_flight = 1
rate = 20
"""


class UnixSocketTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-unix-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)

    def serve(self, *args):
        run = Run(["serve", *args, "--metrics-listen", "127.0.0.1:0", "--db", self.db,
                   "--scenarios", self.dir], cwd=self.dir)
        run.env["TMPDIR"] = self.dir  # its log folder, which a failed start removes
        self.tags.append(run.tag)
        return run.run(timeout=60)

    def test_a_second_router_on_a_control_socket_in_use_exits_2_and_the_first_keeps_it(self):
        # The second router would take the first one's socket and run on, the first unreachable.
        path = os.path.join(self.dir, "control.sock")
        first = subprocess.Popen([os.path.join(BIN, "router"), "--control", "unix:" + path],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = first.stdout.readline()
            self.assertIn(" control=unix:" + path + " ", line)
            second = subprocess.run([os.path.join(BIN, "router"), "--control", "unix:" + path],
                                    capture_output=True, text=True, timeout=30, check=False)
            self.assertEqual((second.returncode, second.stdout, second.stderr),
                             (2, "", f"router: cannot listen for control on unix:{path}: Unix "
                                     f"socket {path} is in use\n"))
            # The second is gone, so what accepts at the path is the first.
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(path)
            self.assertIsNone(first.poll())
        finally:
            first.terminate()
            self.assertEqual(first.wait(timeout=30), 0)
            first.stdout.close()

    def test_serve_on_a_socket_in_use_names_it_and_leaves_it(self):
        path = os.path.join(self.dir, "taken.sock")
        with socket.socket(socket.AF_UNIX) as taken:
            taken.bind(path)
            taken.listen()
            run = self.serve("--listen", "unix:" + path)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: --listen unix:{path}: cannot listen: Unix socket "
                                 f"{path} is in use\n"))
            self.assertNotIn("READY", run.stdout)
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(path)  # still the listener's

    def test_serve_replaces_a_socket_nobody_listens_on_and_names_it_in_ready(self):
        path = os.path.join(self.dir, "serve.sock")
        with socket.socket(socket.AF_UNIX) as stale:  # what a killed service leaves
            stale.bind(path)
            stale.listen()
        run = Run(["serve", "--listen", "unix:" + path, "--metrics-listen", "127.0.0.1:0",
                   "--db", self.db, "--scenarios", self.dir], cwd=self.dir)
        run.env["TMPDIR"] = self.dir
        self.tags.append(run.tag)
        umask_before = os.umask(0o022)  # the usual one, which left the socket srwxr-xr-x
        try:
            run.start()
        finally:
            os.umask(umask_before)
        try:
            line = run.proc.stdout.readline()
            self.assertRegex(line, rf"^READY grpc=unix:{path} metrics=127\.0\.0\.1:[0-9]+\n$")
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(path)
            # The service asks no password: the socket is its owner's alone, as the router's.
            self.assertEqual(oct(stat.S_IMODE(os.stat(path).st_mode)), oct(0o700))
        finally:
            run.proc.terminate()
            self.assertEqual(run.proc.wait(timeout=30), 0)
            run.proc.stdout.close()
            run.proc.stderr.close()

    def test_a_worker_on_a_unix_socket_serves_a_run_at_it_without_a_token(self):
        # Refused by the worker's --listen check ("is not HOST:PORT"), and its token rule read
        # "unix" as a network host, although the service and the scenario's [workers] at take it.
        path = os.path.join(self.dir, "worker.sock")
        # A worker killed by SIGKILL leaves its socket file behind, and nothing listens there:
        # the worker below replaces it (as serve does a stale one) rather than refuse it as in
        # use; a live one it refuses (the second worker below).
        killed = subprocess.Popen([WORKER, "--listen", "unix:" + path], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        try:
            self.assertEqual(killed.stdout.readline(), f"READY grpc=unix:{path}\n")
        finally:
            killed.kill()
            killed.wait(timeout=30)
            killed.stdout.close()
        self.assertTrue(stat.S_ISSOCK(os.lstat(path).st_mode))
        umask_before = os.umask(0o022)  # the usual one, which left the socket srwxr-xr-x
        try:
            worker = subprocess.Popen([WORKER, "--listen", "unix:" + path],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        finally:
            os.umask(umask_before)
        try:
            self.assertEqual(worker.stdout.readline(), f"READY grpc=unix:{path}\n")
            # Only its owner may connect: the reason it needs no token.
            mode = os.stat(path).st_mode
            self.assertTrue(stat.S_ISSOCK(mode))
            self.assertEqual(oct(stat.S_IMODE(mode)), oct(0o700))
            # A second worker on the same path exits 2 and leaves the first its socket.
            second = subprocess.run([WORKER, "--listen", "unix:" + path], capture_output=True,
                                    text=True, timeout=30, check=False)
            self.assertEqual((second.returncode, second.stdout, second.stderr),
                             (2, "", f"worker: cannot listen on unix:{path}: Unix socket {path} "
                                     "is in use\n"))
            scenario = write_scenario(self.dir, "unix_worker.toml",
                                      WORKER_SCENARIO.format(path=path))
            run = Run(["run", scenario, "--db", self.db], cwd=self.dir)
            self.tags.append(run.tag)
            run.run(timeout=120)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            results = run.result_lines()
            self.assertEqual([r["status"] for r in results], ["ok"], run.stdout)
            self.assertNotIn("without a token", run.stderr)
        finally:
            worker.terminate()
            self.assertEqual(worker.wait(timeout=30), 0, worker.stderr.read())
            worker.stdout.close()
            worker.stderr.close()
        # A worker that stops on SIGTERM leaves no socket behind.
        self.assertFalse(os.path.lexists(path))

    def test_a_worker_on_a_path_that_is_not_a_socket_exits_2_naming_it(self):
        path = os.path.join(self.dir, "notes.txt")
        with open(path, "w") as f:
            f.write("kept\n")
        worker = subprocess.run([WORKER, "--listen", "unix:" + path], capture_output=True,
                                text=True, timeout=30, check=False)
        self.assertEqual((worker.returncode, worker.stdout, worker.stderr),
                         (2, "", f"worker: cannot listen on unix:{path}: {path} already exists "
                                 "and is not a socket\n"))
        with open(path) as f:
            self.assertEqual(f.read(), "kept\n")

    def test_a_worker_listen_of_unix_without_a_path_is_refused(self):
        worker = subprocess.run([WORKER, "--listen", "unix:"], capture_output=True, text=True,
                                timeout=30, check=False)
        self.assertEqual((worker.returncode, worker.stdout, worker.stderr),
                         (2, "", "worker: --listen: 'unix:' names no PATH after unix: (see "
                                 "--help)\n"))

    def test_serve_names_why_grpc_could_not_listen_in_one_line(self):
        # No folder for the socket: gRPC fails to bind after the service's own checks passed.
        absent = os.path.join(self.dir, "absent")
        address = "unix:" + os.path.join(absent, "serve.sock")
        run = self.serve("--listen", address)
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"error: --listen {address}: cannot listen: folder {absent} does "
                             "not exist\n"))
        self.assertNotIn("READY", run.stdout)
        self.assertEqual(glob.glob(os.path.join(self.dir, "benchgate-serve-*")), [])


if __name__ == "__main__":
    unittest.main()
