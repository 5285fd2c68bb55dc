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
costs its recv and its send there too, in either --http-io mode.

WAMP over WebSocket: the answers to the calls one read brought leave together, in one gathered
write of frames the connection builds itself, and a ping among the calls is answered by Beast's
pong, whole, between them (router/wamp/websocket_frames.h). Over TLS (wss) the same answers
leave in one record per 16 KiB, where a record (and a `write`) per frame header and per payload
made two per call (common/tls/tls_stream.h)."""
import json
import os
import re
import shutil
import signal
import select
import socket
import ssl
import struct
import subprocess
import tempfile
import unittest

from certificates import OPENSSL, make_certificate
from harness import ws_header

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

    def __init__(self, summary, *flags, traced=TRACED):
        self.summary = summary
        self.proc = subprocess.Popen(
            ["strace", "-f", "--seccomp-bpf", "-c", "-o", summary, "-e", "trace=" + traced,
             ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()  # "READY http=HOST:PORT control=..."
        if not line.startswith("READY"):
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("router did not start under strace: " + line)
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        self.port = int(fields["http"].rsplit(":", 1)[1])
        self.ws_port = int(fields["ws"].rsplit(":", 1)[1]) if "ws" in fields else None
        self.rawsocket_port = (int(fields["rawsocket"].rsplit(":", 1)[1])
                               if "rawsocket" in fields else None)

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



# WAMP over WebSocket with the JSON serializer, standard library only: client frames are
# masked with a zero key (the payload goes as it is), the router's are not masked.
WS_TEXT, WS_CLOSE, WS_PING, WS_PONG = 0x1, 0x8, 0x9, 0xA
CALLS_PER_BATCH = 64
BATCHES = 20


def ws_client_frame(opcode, payload):
    return ws_header(len(payload), opcode) + payload


class ServerFrames:
    """The router's frames, one at a time, checked: final, not masked, whole."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def _need(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the router closed the connection")
            self.buffer += chunk

    def next(self):
        self._need(2)
        first, second = self.buffer[0], self.buffer[1]
        if not first & 0x80 or second & 0x80:
            raise AssertionError("not a final, unmasked frame: %r" % self.buffer[:16])
        length, at = second & 0x7F, 2
        if length == 126:
            self._need(4)
            length, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif length == 127:
            self._need(10)
            length, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        self._need(at + length)
        payload, self.buffer = self.buffer[at:at + length], self.buffer[at + length:]
        return first & 0x0F, payload


def connect(port, tls_ca=None):
    """A connection to the router's `port`, over TLS verified against `tls_ca` when given."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    if tls_ca is None:
        return sock
    return ssl.create_default_context(cafile=tls_ca).wrap_socket(sock,
                                                                 server_hostname="127.0.0.1")


def wamp_calls_with_pings(port, batches, tls_ca=None):
    """`batches` times: CALLS_PER_BATCH calls to bench.echo and a ping among them in one write,
    then every answer read: the RESULTs in the order of the calls, each echoing its argument,
    and one pong carrying the ping's payload. With `tls_ca` (the CA's PEM file) over TLS."""
    with connect(port, tls_ca) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: wamp.2.json\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)  # byte by byte: the frames after the answer stay in the socket
            if not chunk:
                raise AssertionError("closed during the upgrade")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise AssertionError("upgrade refused: %r" % head[:100])
        frames = ServerFrames(s)
        s.sendall(ws_client_frame(WS_TEXT, b'[1, "realm1", {"roles": {"caller": {}}}]'))
        opcode, payload = frames.next()
        if opcode != WS_TEXT or json.loads(payload)[0] != 2:
            raise AssertionError("no WELCOME: %r" % payload[:100])
        request = 0
        for batch in range(batches):
            ping = b"ping %d" % batch
            out = []
            first = request + 1
            for i in range(CALLS_PER_BATCH):
                request += 1
                call = json.dumps([48, request, {}, "bench.echo", ["arg %d" % request]])
                out.append(ws_client_frame(WS_TEXT, call.encode()))
                if i == CALLS_PER_BATCH // 2:
                    out.append(ws_client_frame(WS_PING, ping))
            s.sendall(b"".join(out))
            expected, pongs = first, 0
            while expected <= request or pongs == 0:
                opcode, payload = frames.next()
                if opcode == WS_PONG:
                    if payload != ping:
                        raise AssertionError("pong %r for ping %r" % (payload, ping))
                    pongs += 1
                    continue
                if opcode != WS_TEXT:
                    raise AssertionError("unexpected frame %d: %r" % (opcode, payload[:100]))
                message = json.loads(payload)
                if message[:2] != [50, expected] or message[3] != ["arg %d" % expected]:
                    raise AssertionError("expected the RESULT of call %d, got %r" % (
                        expected, message))
                expected += 1
            if pongs != 1:
                raise AssertionError("%d pongs for one ping" % pongs)
        s.sendall(ws_client_frame(WS_CLOSE, struct.pack("!H", 1000)))
        while True:  # the router's close frame, then the end of the stream
            opcode, _ = frames.next()
            if opcode == WS_CLOSE:
                break


def traced_wamp_calls(label, listener, client, traced, tls=False, batches=BATCHES):
    """The router under strace with one WAMP listener (`listener`: "--websocket" or
    "--rawsocket"; with `tls` a throwaway certificate of its own), `client(port, batches, ca)`
    run against it: the counts, printed."""
    with tempfile.TemporaryDirectory() as tmp:
        flags = [listener, "127.0.0.1:0", "--threads", "1"]
        ca = None
        if tls:
            make_certificate(tmp)
            flags += ["--tls-cert", os.path.join(tmp, "server.pem"),
                      "--tls-key", os.path.join(tmp, "server.key")]
            ca = os.path.join(tmp, "ca.pem")
        router = TracedRouter(os.path.join(tmp, "strace.txt"), *flags, traced=traced)
        try:
            port = router.ws_port if listener == "--websocket" else router.rawsocket_port
            client(port, batches, ca)
        finally:
            calls = router.stop()
    print("SYSCALLS| %s calls=%d %s" % (
        label, CALLS_PER_BATCH * batches, " ".join("%s=%d" % kv for kv in sorted(calls.items()))))
    return calls


class RouterWebSocketSyscallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        problem = strace_problem()
        if problem:
            raise unittest.SkipTest(problem)

    def test_the_answers_to_one_read_leave_in_one_write_with_the_pong_whole(self):
        calls = traced_wamp_calls("websocket", "--websocket", wamp_calls_with_pings,
                                  "sendmsg,recvmsg,sendto,writev")
        answers = CALLS_PER_BATCH * BATCHES
        # Beast reads up to 1,536 bytes from the socket at a time (about 20 of these calls), and
        # the answers to what one read brought leave together once the connection has handled
        # them, up to 128 frames per send (46 measured), where one write per message made
        # 1,282 and Asio's 8 frames per send 182.
        self.assertLess(calls.get("sendmsg", 0), answers // 10, calls)

    @unittest.skipUnless(OPENSSL, "needs openssl")
    def test_over_tls_the_answers_to_one_read_leave_in_one_record(self):
        calls = traced_wamp_calls("wss", "--websocket", wamp_calls_with_pings,
                                  "write,sendmsg,sendto,writev", tls=True)
        answers = CALLS_PER_BATCH * BATCHES
        # OpenSSL writes each record with one `write`: the handshake's few, then a record per
        # batch of answers that one read brought (90 measured), where a record per frame header
        # and per payload made two per call (2,560 and more).
        self.assertLess(calls.get("write", 0), answers // 10, calls)


def rawsocket_frame(payload):
    return struct.pack("!I", len(payload)) + payload  # type 0 (a message) in the first byte


def wamp_rawsocket_calls(port, batches, tls_ca=None):
    """WAMP over RawSocket (JSON): `batches` times CALLS_PER_BATCH calls to bench.echo in one
    write, then every RESULT read, in order, each echoing its argument. With `tls_ca` over TLS."""
    with connect(port, tls_ca) as s:
        buffer = b""

        def need(n):
            nonlocal buffer
            while len(buffer) < n:
                chunk = s.recv(65536)
                if not chunk:
                    raise AssertionError("the router closed the connection")
                buffer += chunk

        def message():
            nonlocal buffer
            need(4)
            kind, length = buffer[0], struct.unpack("!I", b"\0" + buffer[1:4])[0]
            if kind != 0:
                raise AssertionError("frame type %d" % kind)
            need(4 + length)
            payload, buffer = buffer[4:4 + length], buffer[4 + length:]
            return json.loads(payload)

        s.sendall(bytes([0x7F, 0xF1, 0, 0]))  # up to 16 MiB, JSON
        need(4)
        if buffer[0] != 0x7F or buffer[1] & 0x0F != 1:
            raise AssertionError("RawSocket handshake refused: %r" % buffer[:4])
        buffer = buffer[4:]
        s.sendall(rawsocket_frame(b'[1, "realm1", {"roles": {"caller": {}}}]'))
        if message()[0] != 2:
            raise AssertionError("no WELCOME")
        request = 0
        for _ in range(batches):
            first = request + 1
            out = []
            for _ in range(CALLS_PER_BATCH):
                request += 1
                call = json.dumps([48, request, {}, "bench.echo", ["arg %d" % request]])
                out.append(rawsocket_frame(call.encode()))
            s.sendall(b"".join(out))
            for expected in range(first, request + 1):
                result = message()
                if result[:2] != [50, expected] or result[3] != ["arg %d" % expected]:
                    raise AssertionError("expected the RESULT of call %d, got %r" % (
                        expected, result))


class RouterRawSocketSyscallsTest(unittest.TestCase):
    """The answers to the calls one read brought leave in one send (up to 256 buffers per
    sendmsg: common/net/gathered_write.h), over TLS in one record per 16 KiB
    (common/tls/tls_stream.h)."""

    @classmethod
    def setUpClass(cls):
        problem = strace_problem()
        if problem:
            raise unittest.SkipTest(problem)

    def test_a_batch_of_answers_leaves_in_one_sendmsg_and_the_wait_costs_no_epoll_ctl(self):
        calls = traced_wamp_calls("rawsocket", "--rawsocket", wamp_rawsocket_calls,
                                  "sendmsg,sendto,writev,write,epoll_ctl")
        answers = CALLS_PER_BATCH * BATCHES
        # A header and a payload per answer: Asio's 16 buffers per send made 8 sends a batch
        # (160 in all); 21 measured (20 batches and the WELCOME).
        self.assertLess(calls.get("sendmsg", 0), answers // 20, calls)
        # A read that emptied the socket is followed by a wait on its next edge, without a
        # re-arm: the router's start-up and the connection's registration, and none per batch
        # (an async_wait made one each). Per batch, against a run of 2 batches: 0 measured
        # (1.0 before).
        few = traced_wamp_calls("rawsocket", "--rawsocket", wamp_rawsocket_calls, "epoll_ctl",
                                batches=2)
        per_batch = (calls.get("epoll_ctl", 0) - few.get("epoll_ctl", 0)) / (BATCHES - 2)
        self.assertLess(per_batch, 0.5, (calls, few))

    @unittest.skipUnless(OPENSSL, "needs openssl")
    def test_over_tls_a_batch_of_answers_leaves_in_one_record(self):
        calls = traced_wamp_calls("rawsocket-tls", "--rawsocket", wamp_rawsocket_calls,
                                  "write,sendmsg,sendto,writev", tls=True)
        answers = CALLS_PER_BATCH * BATCHES
        # A record (one `write`) per header and per payload made two per call; 45 measured.
        self.assertLess(calls.get("write", 0), answers // 20, calls)


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
