"""How the worker's cleartext HTTP/1.1 connections wait for answers, seen in its system calls
(issue 19, goal 5; worker --http1-io). With --http1-io asio every request's wait for the
answer re-arms the connection's socket in Asio's epoll set: one EPOLL_CTL_MOD on that socket
per request. With --http1-io epoll (the default) the socket is added once to the load thread's
own edge-triggered set and never re-armed: one EPOLL_CTL_MOD on it in all (Asio's, for the
connect), whatever the number of requests. With --http1-io uring the socket has no send or
receive system call of its own: the load thread's io_uring receives and sends (io_uring_enter).
Each test is the others' counterpart, so the counts can tell them apart. Exact
counts from the full `strace -f` trace of the real worker binary (spawned by the real
orchestrator through --worker-bin), driven against the real router, never times. Loopback only,
bounded: a 1 s window on one connection. Skipped, with the reason, where strace cannot trace."""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import ORCHESTRATOR, BIN, load_json

WORKER = os.path.join(BIN, "worker")
ROUTER = os.path.join(BIN, "router")

SCENARIO = """
name = "worker_syscalls"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 1
in_flight = 1
expect_body_bytes = 12
"""

CONNECT = re.compile(r"connect\((\d+), \{sa_family=AF_INET, sin_port=htons\((\d+)\)")
EPOLL_CTL = re.compile(r"epoll_ctl\((\d+), EPOLL_CTL_(ADD|MOD|DEL), (\d+),")
SOCKET_IO = re.compile(r"(?:sendto|recvfrom|sendmsg|recvmsg|read|write|writev)\((\d+),")
URING_ENTER = re.compile(r"io_uring_enter\(")


def strace_problem():
    if shutil.which("strace") is None:
        return "strace is not installed"
    probe = subprocess.run(["strace", "-f", "-o", os.devnull, "true"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=30)
    if probe.returncode != 0:
        return "strace cannot trace here: " + probe.stderr.strip()[:200]
    return None


def uring_problem():
    """Why this kernel gives no io_uring (None if it does): io_uring_setup, system call 425 on
    x86-64 and arm64, with one entry."""
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    fd = libc.syscall(425, 1, params)
    if fd < 0:
        return "io_uring_setup: " + os.strerror(ctypes.get_errno())
    os.close(fd)
    return None


class WorkerSyscallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        problem = strace_problem()
        if problem:
            raise unittest.SkipTest(problem)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="benchgate-worker-syscalls-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.router = subprocess.Popen(
            [ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(self.stop_router)
        line = self.router.stdout.readline()  # "READY http=HOST:PORT control=..."
        self.assertTrue(line.startswith("READY"), line)
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        self.port = int(fields["http"].rsplit(":", 1)[1])

    def stop_router(self):
        self.router.terminate()
        try:
            self.router.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.router.kill()
            self.router.wait()
        self.router.stdout.close()

    def traced_run(self, http1_io, calls="connect,epoll_ctl"):
        """One window under strace: (requests answered, ADDs and MODs on the load socket, the
        trace and the load socket). `http1_io` None: no flag and no environment variable, the
        worker's default."""
        flag = "--http1-io %s " % http1_io if http1_io else ""
        trace = os.path.join(self.tmp, "trace-%s.txt" % http1_io)
        wrapper = os.path.join(self.tmp, "traced-worker-%s.sh" % http1_io)
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec strace -f -qq -o "%s" -e trace=%s "%s" '
                    '%s"$@"\n' % (trace, calls, WORKER, flag))
        os.chmod(wrapper, 0o755)
        scenario = os.path.join(self.tmp, "scenario.toml")
        with open(scenario, "w") as f:
            f.write(SCENARIO.format(port=self.port))
        out_json = os.path.join(self.tmp, "out-%s.json" % http1_io)
        env = dict(os.environ)
        env.pop("BENCHGATE_WORKER_HTTP1_IO", None)
        run = subprocess.run(
            [ORCHESTRATOR, "run", scenario, "--db", os.path.join(self.tmp, "b.db"), "--json",
             out_json, "--worker-bin", wrapper], cwd=self.tmp, capture_output=True, text=True,
            timeout=180, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        rep = load_json(out_json)["scenarios"][0]["workloads"][0]["repetitions"][0]
        self.assertEqual(rep["errors"], 0)
        with open(trace) as f:
            text = f.read()
        sockets = {int(m.group(1)) for m in CONNECT.finditer(text) if int(m.group(2)) == self.port}
        self.assertEqual(len(sockets), 1, "one load connection, one socket: %s" % sockets)
        (socket_fd,) = sockets
        ops = {"ADD": 0, "MOD": 0, "DEL": 0}
        for m in EPOLL_CTL.finditer(text):
            if int(m.group(3)) == socket_fd:
                ops[m.group(2)] += 1
        print("SYSCALLS| http1_io=%s requests=%d socket epoll_ctl ADD=%d MOD=%d" % (
            http1_io, rep["operations"], ops["ADD"], ops["MOD"]))
        return rep["operations"], ops, text, socket_fd

    def test_epoll_adds_the_socket_once_and_never_rearms_it(self):
        requests, ops, _, _ = self.traced_run("epoll")
        self.assertGreater(requests, 100)
        # Asio's own registration when the socket opened, and the load thread's set's.
        self.assertEqual(ops["ADD"], 2)
        # The connect's wait for writability (Asio adds EPOLLOUT once), and nothing per request.
        self.assertEqual(ops["MOD"], 1)

    def test_the_default_is_the_epoll_set(self):
        requests, ops, _, _ = self.traced_run(None)
        self.assertGreater(requests, 100)
        self.assertEqual(ops["ADD"], 2)
        self.assertEqual(ops["MOD"], 1)

    def test_asio_rearms_the_socket_for_every_answer_it_waits_for(self):
        requests, ops, _, _ = self.traced_run("asio")
        self.assertGreater(requests, 100)
        self.assertEqual(ops["ADD"], 1)
        # The connect's wait for writability, then one wait per answer (the drain's on top).
        self.assertGreaterEqual(ops["MOD"], requests + 1)

    def test_uring_sends_and_receives_through_the_ring(self):
        problem = uring_problem()
        if problem:
            self.skipTest(problem)
        requests, ops, text, socket_fd = self.traced_run(
            "uring", "connect,epoll_ctl,io_uring_enter,sendto,recvfrom,sendmsg,recvmsg,read,"
            "write,writev")
        self.assertGreater(requests, 100)
        on_socket = [m.group(0) for m in SOCKET_IO.finditer(text) if int(m.group(1)) == socket_fd]
        print("SYSCALLS| http1_io=uring requests=%d io_uring_enter=%d socket send/recv=%d" % (
            requests, len(URING_ENTER.findall(text)), len(on_socket)))
        self.assertEqual(on_socket, [], "no send or receive system call on the load socket")
        self.assertGreater(len(URING_ENTER.findall(text)), 0)
        # Asio's registration at connect only; the ring's receive needs no wait of its own.
        self.assertEqual(ops["ADD"], 1)
        self.assertEqual(ops["MOD"], 1)


class WorkerHttp1IoFlagTest(unittest.TestCase):
    """A bad --http1-io value, from the flag or from the environment: exit 2, one line naming
    the value, the choices and, for the environment, the variable."""

    def start(self, args, env_value=None):
        env = dict(os.environ)
        env.pop("BENCHGATE_WORKER_HTTP1_IO", None)
        if env_value is not None:
            env["BENCHGATE_WORKER_HTTP1_IO"] = env_value
        return subprocess.run([WORKER, *args], env=env, capture_output=True, text=True,
                              timeout=30)

    def test_a_bad_flag_value_exits_2_naming_it(self):
        run = self.start(["--http1-io", "kqueue"])
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--http1-io: kqueue not in {asio,epoll,uring}", run.stderr)
        self.assertNotIn("BENCHGATE_WORKER_HTTP1_IO", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_a_bad_environment_value_exits_2_naming_the_variable(self):
        run = self.start(["--listen", "127.0.0.1:0"], env_value="poll")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("poll not in {asio,epoll,uring}", run.stderr)
        self.assertIn("(from $BENCHGATE_WORKER_HTTP1_IO)", run.stderr)
        self.assertEqual(run.stdout, "")


if __name__ == "__main__":
    unittest.main()
