"""The router's HTTP/2 defences as checks that run over any connection to its HTTP port: h2c
with prior knowledge (test_router_http2) and h2 by ALPN over TLS (test_router_http2_tls) run
the same ones. python3-h2 (hyper-h2) builds the well-formed part of each attack and encodes its
headers; where it refuses to build a malicious sequence the frames are written by hand.

Each check reads the router's counters on its Prometheus endpoint and ends by opening a fresh
connection and getting /bench/hello through it: the router stays up and serves. Loopback only;
every wait is bounded; counts are exact, nothing is timed."""
import socket
import ssl
import struct

try:
    import h2.config
    import h2.connection
    import h2.events
except ImportError:  # Debian python3-h2 (scripts/install-deps.sh)
    h2 = None

# Frame types, flags and error codes of RFC 9113.
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = (
    0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8, 0x9)
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
NO_ERROR, FLOW_CONTROL_ERROR, REFUSED_STREAM, ENHANCE_YOUR_CALM = 0x0, 0x3, 0x7, 0xB
SETTINGS_INITIAL_WINDOW_SIZE = 0x4
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
MAX_WINDOW = 0x7FFFFFFF

# What every check runs against: 10 streams, a reset bucket of 20 refilled at 1/s, header
# lists up to 16 KiB, connections idle for 300 ms closed.
DEFENCE_FLAGS = ("--metrics-listen", "127.0.0.1:0", "--h2-max-concurrent-streams", "10",
                 "--h2-reset-burst", "20", "--h2-reset-rate", "1",
                 "--h2-max-header-list-bytes", "16KiB", "--idle-timeout", "300ms")


def frame(kind, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(
        ">I", stream_id) + payload


def pattern(size):
    """What /bench/bytes/N answers."""
    return bytes(ord("a") + i % 26 for i in range(size))


class FrameReader:
    """The frames the router sends on one socket (plain or TLS): (type, flags, stream, payload)."""

    def __init__(self, sock, timeout=10):
        self.sock = sock
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.end = None  # 'closed' or 'timeout' once the socket gave no more

    def _more(self):
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            self.end = "timeout"
            return False
        except (ConnectionResetError, ssl.SSLError):
            self.end = "closed"
            return False
        if not data:
            self.end = "closed"
            return False
        self.buffer += data
        return True

    def next(self):
        """The next frame, or None when the socket closed or stayed silent for the timeout."""
        while True:
            if len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) >= 9 + length:
                    head, self.buffer = self.buffer[:9 + length], self.buffer[9 + length:]
                    stream_id = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                    return head[3], head[4], stream_id, head[9:]
            if self.end or not self._more():
                return None

    def until(self, done):
        """Frames up to and including the first for which done(frame) is true (all of them, if
        the socket closes first)."""
        frames = []
        while (f := self.next()) is not None:
            frames.append(f)
            if done(f):
                break
        return frames

    def rest(self):
        """Every frame until the router closes (or falls silent for the timeout)."""
        return self.until(lambda f: False), self.end


def read_frames(sock, timeout=10):
    """Every frame the router sends until it closes (or `timeout` passes without a byte):
    [(type, flags, stream_id, payload)], then 'closed' or 'timeout'."""
    return FrameReader(sock, timeout).rest()


def goaway_codes(frames):
    return [int.from_bytes(f[3][4:8], "big") for f in frames if f[0] == GOAWAY]


def client():
    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    return conn


def request(path, method="GET", scheme="http"):
    return [(":method", method), (":scheme", scheme), (":authority", "127.0.0.1"),
            (":path", path)]


def get(sock, path, scheme):
    """GET `path` over a fresh HTTP/2 connection on `sock`: (status, body)."""
    conn = client()
    conn.send_headers(1, request(path, scheme=scheme), end_stream=True)
    sock.sendall(conn.data_to_send())
    sock.settimeout(10)
    status, body = None, b""
    while True:
        data = sock.recv(65536)
        if not data:
            return status, body
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers)[":status"]
            elif isinstance(event, h2.events.DataReceived):
                body += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, 1)
            elif isinstance(event, h2.events.StreamEnded):
                return status, body
        sock.sendall(conn.data_to_send())


class Http2DefenceChecks:
    """The checks, for a unittest.TestCase subclass that names SCHEME ("http" or "https") and
    defines start_router(*flags) (a test_router_limits.Router, stopped by the subclass) and
    connect() (a socket speaking HTTP/2 to the router's HTTP port, nothing sent yet)."""

    SCHEME = "http"

    def setUp(self):
        self.router = self.start_router(*DEFENCE_FLAGS)

    def metric(self, name):
        return self.router.metrics().get(name, 0)

    def closes(self, reason):
        return self.metric(f'benchgate_router_http2_defence_closes_total{{reason="{reason}"}}')

    def request(self, path, method="GET"):
        return request(path, method, self.SCHEME)

    def open(self):
        """A connection with the client preface and SETTINGS sent; (socket, h2 connection)."""
        sock = self.connect()
        self.addCleanup(sock.close)
        conn = client()
        sock.sendall(conn.data_to_send())
        return sock, conn

    def assert_still_serving(self):
        with self.connect() as sock:
            self.assertEqual(get(sock, "/bench/hello", self.SCHEME), ("200", b"Hello, world"))

    def assert_calmed_down(self, sock, reason):
        """The router answered GOAWAY ENHANCE_YOUR_CALM, closed, counted `reason` once, and
        serves a new connection."""
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [ENHANCE_YOUR_CALM])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes(reason), 1)
        self.assert_still_serving()

    def test_streams_over_the_limit_are_refused(self):
        sock, conn = self.open()
        # 15 streams before reading anything (so before the router's SETTINGS is acknowledged):
        # 10 run, 5 are refused.
        for i in range(15):
            conn.send_headers(1 + 2 * i, self.request("/bench/delay/200"), end_stream=True)
        sock.sendall(conn.data_to_send())
        answered, refused = set(), set()
        sock.settimeout(10)
        while len(answered) + len(refused) < 15:
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.StreamEnded):
                    answered.add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    self.assertEqual(event.error_code, REFUSED_STREAM)
                    refused.add(event.stream_id)
            sock.sendall(conn.data_to_send())
        self.assertEqual(sorted(answered), [1 + 2 * i for i in range(10)])
        self.assertEqual(sorted(refused), [21 + 2 * i for i in range(5)])
        self.assertEqual(self.metric("benchgate_router_http2_streams_refused_total"), 5)
        self.assert_still_serving()

    def test_rapid_reset_gets_goaway(self):
        sock, conn = self.open()
        data = b""
        for i in range(100):
            stream_id = 1 + 2 * i
            block = conn.encoder.encode(self.request("/bench/delay/1000"))
            data += frame(HEADERS, END_STREAM | END_HEADERS, stream_id, block)
            data += frame(RST_STREAM, 0, stream_id, struct.pack(">I", 8))  # CANCEL
        sock.sendall(data)
        self.assert_calmed_down(sock, "rapid_reset")
        # The bucket held 20; the 21st reset (within far less than a second) emptied it.
        self.assertEqual(self.metric("benchgate_router_http2_client_resets_total"), 21)

    def test_continuation_flood_is_closed(self):
        sock, conn = self.open()
        block = conn.encoder.encode(self.request("/bench/hello"))
        data = frame(HEADERS, END_STREAM, 1, block[:3])
        data += b"".join(frame(CONTINUATION, 0, 1) for _ in range(50))
        sock.sendall(data)
        self.assert_calmed_down(sock, "continuation_flood")

    def test_oversize_header_block_is_closed(self):
        sock, conn = self.open()
        block = conn.encoder.encode(self.request("/bench/hello") + [("x-big", "b" * 20000)])
        data = frame(HEADERS, END_STREAM, 1, block[:16384])
        data += frame(CONTINUATION, END_HEADERS, 1, block[16384:])
        sock.sendall(data)
        self.assert_calmed_down(sock, "header_list")

    def test_hpack_bomb_is_closed(self):
        sock, conn = self.open()
        # One 3,000-byte field enters the dynamic table, then 100 one-byte references to it:
        # a block of about 3 KB that decodes to about 300 KB.
        first = conn.encoder.encode(self.request("/bench/hello") + [("x-bomb", "z" * 3000)])
        block = first + bytes([0x80 | 62]) * 100
        self.assertLess(len(block), 16384)
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, block))
        self.assert_calmed_down(sock, "header_list")

    def test_idle_connection_gets_goaway(self):
        sock, conn = self.open()
        conn.send_headers(1, self.request("/bench/hello"), end_stream=True)
        sock.sendall(conn.data_to_send())
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [NO_ERROR])
        self.assertEqual(end, "closed")
        self.assertEqual(self.metric("benchgate_router_http_timeouts_total"), 1)
        self.assertEqual(
            self.metric('benchgate_router_http_requests_total{route="/bench/hello",status="200"}'),
            1)
        self.assert_still_serving()

    def test_client_windows_bound_what_the_router_sends(self):
        # The client's streams may receive 1,000 bytes until it says more: the router sends
        # exactly that much of a 5,000-byte answer, then (a PING answered in between shows it
        # has read on) nothing until a WINDOW_UPDATE opens the window, then the rest.
        sock = self.connect()
        self.addCleanup(sock.close)
        encoder = client().encoder
        sock.sendall(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI",
                                                                 SETTINGS_INITIAL_WINDOW_SIZE,
                                                                 1000)))
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                           encoder.encode(self.request("/bench/bytes/5000"))))
        reader = FrameReader(sock)
        body = bytearray()

        def data_on_stream_1(f):
            if f[0] == DATA and f[2] == 1:
                body.extend(f[3])
            return len(body) >= 1000

        frames = reader.until(data_on_stream_1)
        self.assertEqual(len(body), 1000, frames)
        self.assertFalse(any(f[0] == DATA and f[1] & END_STREAM for f in frames))
        sock.sendall(frame(PING, 0, 0, b"flowctl!"))
        frames = reader.until(lambda f: f[0] == PING and f[1] & ACK)
        self.assertEqual(frames[-1][3], b"flowctl!")
        self.assertEqual([f for f in frames if f[0] == DATA], [])
        sock.sendall(frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 4000)))
        frames = reader.until(lambda f: f[0] == DATA and f[2] == 1 and f[1] & END_STREAM)
        body.extend(b"".join(f[3] for f in frames if f[0] == DATA and f[2] == 1))
        self.assertEqual(bytes(body), pattern(5000))
        self.assertEqual(
            self.metric('benchgate_router_http_requests_total{route="/bench/bytes",status="200"}'),
            1)
        self.assertEqual(self.metric("benchgate_router_http2_flow_control_resets_total"), 0)
        self.assert_still_serving()

    def test_stream_window_past_the_limit_resets_that_stream(self):
        # A WINDOW_UPDATE that takes the router's send window of an open stream past 2^31-1
        # (h2 refuses to send one): RST_STREAM FLOW_CONTROL_ERROR for it, and the connection
        # serves its next stream.
        sock, conn = self.open()
        conn.send_headers(1, self.request("/bench/delay/60000"), end_stream=True)
        sock.sendall(conn.data_to_send() + frame(WINDOW_UPDATE, 0, 1,
                                                 struct.pack(">I", MAX_WINDOW)))
        reader = FrameReader(sock)
        frames = reader.until(lambda f: f[0] == RST_STREAM and f[2] == 1)
        self.assertEqual(frames[-1][0], RST_STREAM, frames)
        self.assertEqual(int.from_bytes(frames[-1][3], "big"), FLOW_CONTROL_ERROR)
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 3,
                           conn.encoder.encode(self.request("/bench/hello"))))
        frames = reader.until(lambda f: f[0] == DATA and f[2] == 3 and f[1] & END_STREAM)
        self.assertEqual(b"".join(f[3] for f in frames if f[0] == DATA and f[2] == 3),
                         b"Hello, world")
        self.assertEqual(goaway_codes(frames), [])
        self.assertEqual(self.metric("benchgate_router_http2_flow_control_resets_total"), 1)
        self.assertEqual(self.closes("flow_control"), 0)
        self.assertEqual(self.closes("protocol_error"), 0)
        self.assert_still_serving()

    def test_connection_window_past_the_limit_closes_the_connection(self):
        sock, conn = self.open()
        sock.sendall(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", MAX_WINDOW)))
        frames, end = read_frames(sock)
        self.assertEqual(goaway_codes(frames), [FLOW_CONTROL_ERROR])
        self.assertEqual(end, "closed")
        self.assertEqual(self.closes("flow_control"), 1)
        self.assertEqual(self.closes("protocol_error"), 0)
        self.assert_still_serving()
