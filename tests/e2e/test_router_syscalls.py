"""The router's system calls per HTTP/1.1 keep-alive request, counted by strace (issue 19, goal
1). A connection that has just read keeps its read buffer for --read-buffer-hold and reads
ahead into it, so a run of requests on one connection costs no epoll_ctl per request; with the
hold off (0s) every request costs one, as before the hold: the second test is the first's
counterpart, and shows that the count can tell the two apart. With --http-io epoll a request
costs its recv and its send only: no epoll_ctl and no read that finds nothing (strace's error
column counts those). The figures are exact counts of
`strace -f -c` over every thread of the router, never times. Loopback only, bounded: N requests
on one connection, every wait bounded. Skipped, with the reason, where strace cannot trace.

HTTP/2 with prior knowledge (h2c) on the same port, one stream at a time: the connection waits
for its socket's next edge in Asio's own registration (common/net/edge_wait.h), so a request
costs its recv and its send there too, in either --http-io mode."""
import os
import re
import shutil
import signal
import select
import socket
import struct
import subprocess
import tempfile
import unittest

BIN = os.environ.get("BENCHGATE_BIN", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ROUTER = os.path.join(BIN, "router")
N = 2000
REQUEST = b"GET /bench/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
TRACED = "epoll_ctl,recvfrom,sendto,read,write,writev"


def strace_problem():
    """Why strace cannot count here, or None."""
    if shutil.which("strace") is None:
        return "strace is not installed"
    probe = subprocess.run(["strace", "-f", "--seccomp-bpf", "-c", "-o", os.devnull, "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=30)
    if probe.returncode != 0:
        return "strace cannot trace here: " + probe.stderr.strip()[:200]
    return None


def parse_strace_summary(path):
    """{syscall: calls} from a `strace -c` table, and {syscall + "_errors": failed calls} for
    those that failed (a read that found nothing fails with EAGAIN)."""
    calls = {}
    row = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)\s*$")
    with open(path) as f:
        for line in f:
            m = row.match(line)
            if m and m.group(3) != "total":
                calls[m.group(3)] = int(m.group(1))
                if m.group(2):
                    calls[m.group(3) + "_errors"] = int(m.group(2))
    return calls


def child_pids(pid):
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return [int(p) for p in f.read().split()]


class TracedRouter:
    """The router binary under `strace -f -c`; stop() ends the router and returns the counts."""

    def __init__(self, summary, *flags):
        self.summary = summary
        self.proc = subprocess.Popen(
            ["strace", "-f", "--seccomp-bpf", "-c", "-o", summary, "-e", "trace=" + TRACED,
             ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()  # "READY http=HOST:PORT control=..."
        if not line.startswith("READY"):
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("router did not start under strace: " + line)
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        self.port = int(fields["http"].rsplit(":", 1)[1])

    def stop(self):
        # SIGTERM to the router itself (strace's child): it stops, and strace writes the table.
        for pid in child_pids(self.proc.pid):
            os.kill(pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        return parse_strace_summary(self.summary)


def requests_on_one_connection(port, n):
    """n keep-alive requests in turn on one connection, each answer read whole."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        for i in range(n):
            s.sendall(REQUEST)
            data = b""
            while not data.endswith(b"Hello, world"):
                chunk = s.recv(4096)
                if not chunk:
                    raise AssertionError("the router closed the connection at request %d" % i)
                data += chunk
            if not data.startswith(b"HTTP/1.1 200 "):
                raise AssertionError("unexpected answer: %r" % data[:80])


# HTTP/2 frames (RFC 9113) and a request's header block in HPACK (RFC 7541) built by hand:
# :method GET and :scheme http from the static table, :path and :authority as literals with an
# indexed name, not added to the dynamic table, so every request's block is the same bytes.
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_DATA, H2_HEADERS, H2_SETTINGS, H2_GOAWAY, H2_WINDOW_UPDATE = 0x0, 0x1, 0x4, 0x7, 0x8
H2_END_STREAM, H2_END_HEADERS, H2_ACK = 0x1, 0x4, 0x1
H2_REQUEST_BLOCK = b"\x82\x86\x04\x0c/bench/hello\x01\x09127.0.0.1"


def h2_frame(kind, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(
        ">I", stream_id) + payload


def h2c_requests_on_one_connection(port, n):
    """n h2c requests in turn on one connection (one stream open at a time), each answer read
    to its END_STREAM."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        # Our receive window far past what n answers need, so the router never waits for it.
        s.sendall(H2_PREFACE + h2_frame(H2_SETTINGS, 0, 0) +
                  h2_frame(H2_WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 30)))
        buffer = b""
        for i in range(n):
            stream_id = 2 * i + 1
            s.sendall(h2_frame(H2_HEADERS, H2_END_STREAM | H2_END_HEADERS, stream_id,
                               H2_REQUEST_BLOCK))
            body = b""
            while True:
                while len(buffer) < 9 or len(buffer) < 9 + int.from_bytes(buffer[:3], "big"):
                    chunk = s.recv(65536)
                    if not chunk:
                        raise AssertionError("the router closed the connection at request %d" % i)
                    buffer += chunk
                length = int.from_bytes(buffer[:3], "big")
                kind, flags = buffer[3], buffer[4]
                sid = int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
                payload, buffer = buffer[9:9 + length], buffer[9 + length:]
                if kind == H2_SETTINGS and not flags & H2_ACK:
                    s.sendall(h2_frame(H2_SETTINGS, H2_ACK, 0))
                if kind == H2_GOAWAY:
                    raise AssertionError("GOAWAY at request %d: %r" % (i, payload))
                if sid != stream_id:
                    continue
                if kind == H2_DATA:
                    body += payload
                if kind in (H2_DATA, H2_HEADERS) and flags & H2_END_STREAM:
                    break
            if body != b"Hello, world":
                raise AssertionError("unexpected body at request %d: %r" % (i, body))


def count(flags, n, client=requests_on_one_connection):
    with tempfile.TemporaryDirectory() as tmp:
        router = TracedRouter(os.path.join(tmp, "strace.txt"), *flags)
        try:
            client(router.port, n)
        finally:
            calls = router.stop()
    print("SYSCALLS| flags=%s requests=%d %s" % (
        " ".join(flags) or "-", n, " ".join("%s=%d" % kv for kv in sorted(calls.items()))))
    return calls


class RouterSyscallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        problem = strace_problem()
        if problem:
            raise unittest.SkipTest(problem)

    def test_a_busy_keep_alive_connection_costs_no_epoll_ctl_per_request(self):
        # A hold far longer than any pause strace can cause between two requests.
        calls = count(["--http-io", "asio", "--read-buffer-hold", "60s"], N)
        # Start-up, the accept and the gRPC threads' own: a few dozen, whatever N is.
        self.assertLess(calls.get("epoll_ctl", 0), 100, calls)
        # Every request is read and answered: one send each, and at least one recv each.
        self.assertGreaterEqual(calls.get("sendto", 0), N, calls)
        self.assertGreaterEqual(calls.get("recvfrom", 0), N, calls)

    def test_without_the_hold_every_request_costs_an_epoll_ctl(self):
        calls = count(["--http-io", "asio", "--read-buffer-hold", "0s"], N)
        self.assertGreaterEqual(calls.get("epoll_ctl", 0), N, calls)

    def test_the_epoll_set_costs_a_recv_and_a_send_per_request(self):
        # --http-io epoll: the socket is added to the thread's edge-triggered set once and read
        # until a short read when it reports an edge, so neither an epoll_ctl nor a read that
        # finds nothing is paid per request; the set itself is waited for without a re-arm.
        calls = count(["--http-io", "epoll"], N)
        self.assertLess(calls.get("epoll_ctl", 0), 100, calls)
        self.assertGreaterEqual(calls.get("sendto", 0), N, calls)
        self.assertGreaterEqual(calls.get("recvfrom", 0), N, calls)
        # One recv per request: start-up and the gRPC threads' own reads are a few dozen, and
        # the reads that found nothing as many at most.
        self.assertLess(calls.get("recvfrom", 0), N + 100, calls)
        self.assertLess(calls.get("recvfrom_errors", 0), 100, calls)

    def test_an_h2c_stream_at_a_time_costs_a_recv_and_a_send_per_request(self):
        # Before the edge wait, the HTTP/2 connection waited with async_wait: one epoll_ctl per
        # request (N + a few dozen), in either mode.
        for mode in ("asio", "epoll"):
            with self.subTest(http_io=mode):
                calls = count(["--http-io", mode], N, h2c_requests_on_one_connection)
                self.assertLess(calls.get("epoll_ctl", 0), 100, calls)
                self.assertGreaterEqual(calls.get("sendto", 0), N, calls)
                self.assertGreaterEqual(calls.get("recvfrom", 0), N, calls)
                self.assertLess(calls.get("recvfrom", 0), N + 100, calls)
                self.assertLess(calls.get("recvfrom_errors", 0), 100, calls)



class RouterHttpIoFlagTest(unittest.TestCase):
    """--http-io's bad values, from the flag or from $BENCHGATE_ROUTER_HTTP_IO: exit 2 with a
    message that names where the value came from."""

    def run_router(self, env_value, *flags):
        env = dict(os.environ)
        env.pop("BENCHGATE_ROUTER_HTTP_IO", None)
        if env_value is not None:
            env["BENCHGATE_ROUTER_HTTP_IO"] = env_value
        return subprocess.run([ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", *flags],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=30)

    def test_a_bad_value_from_the_environment_names_the_variable(self):
        run = self.run_router("io_uring")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn('--http-io: must be asio or epoll, not "io_uring"', run.stderr)
        self.assertIn("(from $BENCHGATE_ROUTER_HTTP_IO)", run.stderr)

    def test_a_bad_flag_is_named_as_the_flag_even_with_the_variable_set(self):
        run = self.run_router("epoll", "--http-io", "nope")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn('not "nope"', run.stderr)
        self.assertNotIn("BENCHGATE_ROUTER_HTTP_IO", run.stderr)

    # --read-buffer-hold governs --http-io asio's read buffer only: given with epoll (the
    # default, or from the variable) it is refused before anything listens, not ignored.
    def test_read_buffer_hold_with_the_default_epoll_exits_2_naming_the_flag(self):
        run = self.run_router(None, "--read-buffer-hold", "0s")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--read-buffer-hold: applies to --http-io asio only", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_read_buffer_hold_with_epoll_from_the_variable_names_the_variable(self):
        run = self.run_router("epoll", "--read-buffer-hold", "20ms")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--read-buffer-hold: applies to --http-io asio only", run.stderr)
        self.assertIn("(from $BENCHGATE_ROUTER_HTTP_IO)", run.stderr)

    def test_read_buffer_hold_with_asio_from_the_variable_starts(self):
        env = dict(os.environ)
        env["BENCHGATE_ROUTER_HTTP_IO"] = "asio"
        router = subprocess.Popen(
            [ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", "--read-buffer-hold",
             "20ms"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([router.stdout], [], [], 30)
            self.assertTrue(ready, "no READY line within 30 s")
            self.assertTrue(router.stdout.readline().startswith("READY "))
        finally:
            router.terminate()
            try:
                router.wait(timeout=30)
            except subprocess.TimeoutExpired:
                router.kill()
                router.wait()
            router.stdout.close()
            router.stderr.close()


if __name__ == "__main__":
    unittest.main()
