"""The router's HTTP/2 defences over TLS: h2 by ALPN on its HTTP port, TLS 1.3 and TLS 1.2.

The real router binary with a certificate from a throwaway CA of this test's (the client
verifies it), and the checks of h2_defences that test_router_http2 runs over h2c, each over
Python's ssl: streams over --h2-max-concurrent-streams refused, rapid reset (CVE-2023-44487),
a CONTINUATION flood, an oversize header block and an HPACK bomb answered with GOAWAY
ENHANCE_YOUR_CALM, an idle connection closed, the client's flow-control window kept to and
windows overflowed past 2^31-1; besides, slow TLS handshakes (a client that sends nothing,
one that sends half a ClientHello) closed by --tls-handshake-timeout, and a client that sends
close_notify with answers owed (TLS's half-close) still getting them. Each is counted in the
router's Prometheus metrics, the router serves a new connection after each, and every
connection the test opened is one handshake in benchgate_router_tls_handshakes_total with the
version the client allowed and ALPN h2. Loopback only; every wait is bounded; nothing timed."""
import os
import shutil
import ssl
import tempfile
import unittest

from certificates import OPENSSL, make_certificate
from h2_defences import DATA, END_STREAM, HEADERS, Http2DefenceChecks, client, h2, read_frames, \
    request
from test_router_limits import Router, closed_by_peer
from test_router_tls import half_client_hello


class HalfClosingTls:
    """A TLS client over a memory BIO on a plain socket, which can send close_notify and go on
    reading: ssl.SSLSocket cannot, its unwrap() waits for the peer's close_notify. recv() and
    settimeout() as a socket's, for h2_defences.read_frames."""

    def __init__(self, context, sock):
        self.sock = sock
        self.sock.settimeout(10)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.pending = b""  # application data read before the close_notify
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname="127.0.0.1")
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush()
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionError("the router closed during the handshake")
                self.incoming.write(data)
        self._flush()

    def _flush(self):
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def version(self):
        return self.tls.version()

    def selected_alpn_protocol(self):
        return self.tls.selected_alpn_protocol()

    def sendall(self, data):
        self.tls.write(data)
        self._flush()

    def close_notify(self):
        """Sends close_notify; TCP stays open both ways. What the router sent that this end
        holds already is read first: unwrap() takes a second look for the router's
        close_notify, which must find nothing to read rather than application data."""
        while self.incoming.pending:
            try:
                self.pending += self.tls.read(65536)
            except ssl.SSLWantReadError:
                break
        try:
            self.tls.unwrap()
        except ssl.SSLWantReadError:
            pass  # the router's close_notify has not come, and is not waited for
        self._flush()

    def settimeout(self, timeout):
        self.sock.settimeout(timeout)

    def recv(self, size):
        """Application data; b"" at the router's close_notify or TCP close."""
        if self.pending:
            data, self.pending = self.pending[:size], self.pending[size:]
            return data
        while True:
            try:
                return self.tls.read(size)
            except ssl.SSLZeroReturnError:
                return b""
            except ssl.SSLWantReadError:
                data = self.sock.recv(65536)
                if not data:
                    return b""
                self.incoming.write(data)

    def close(self):
        self.sock.close()


@unittest.skipUnless(h2 and OPENSSL, "needs python3-h2 and openssl")
class RouterHttp2DefencesOverTls13(Http2DefenceChecks, unittest.TestCase):
    SCHEME = "https"
    VERSION = ssl.TLSVersion.TLSv1_3

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-router-h2-tls-")
        make_certificate(cls.dir)
        cls.context = ssl.create_default_context(cafile=os.path.join(cls.dir, "ca.pem"))
        cls.context.minimum_version = cls.context.maximum_version = cls.VERSION
        cls.context.set_alpn_protocols(["h2"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def start_router(self, *flags):
        router = Router(*flags, "--tls-cert", os.path.join(self.dir, "server.pem"), "--tls-key",
                        os.path.join(self.dir, "server.key"), "--tls-handshake-timeout", "1s")
        self.addCleanup(router.stop)
        self.handshakes = 0
        return router

    def connect(self):
        sock = self.context.wrap_socket(self.router.connect(), server_hostname="127.0.0.1")
        self.assertEqual(sock.version(), self.VERSION.name.replace("_", "."))
        self.assertEqual(sock.selected_alpn_protocol(), "h2")
        self.handshakes += 1
        return sock

    def tearDown(self):
        # Every connection the test opened: one handshake with its version and ALPN h2.
        version = "1.3" if self.VERSION == ssl.TLSVersion.TLSv1_3 else "1.2"
        name = ('benchgate_router_tls_handshakes_total{listener="http",'
                f'version="{version}",alpn="h2"}}')
        self.assertEqual(self.router.wait_for_metric(name, self.handshakes), self.handshakes)
        self.assertEqual(self.metric("benchgate_router_http2_connections_total"),
                         self.handshakes)

    def test_slow_handshakes_are_closed_and_the_router_serves_on(self):
        silent = self.router.connect()
        partial = self.router.connect()
        partial.sendall(half_client_hello())
        for sock in (silent, partial):
            with sock:
                self.assertTrue(closed_by_peer(sock, 30))
        failures = ('benchgate_router_tls_handshake_failures_total{listener="http",'
                    'reason="timeout"}')
        self.assertEqual(self.router.wait_for_metric(failures, 2), 2)
        self.assert_still_serving()
        self.assertEqual(self.metric("benchgate_router_http_timeouts_total"), 0)


    def test_a_client_that_sends_close_notify_still_gets_the_answers_it_is_owed(self):
        # test_router_http2's FIN test over TLS: the preface, SETTINGS and two requests, then
        # the client's close_notify with TCP open both ways, nothing read before: the answer
        # due now and the delayed one both come (the delayed one after the router read the
        # close_notify), then the router closes.
        sock = HalfClosingTls(self.context, self.router.connect())
        self.addCleanup(sock.close)
        self.handshakes += 1
        self.assertEqual(sock.selected_alpn_protocol(), "h2")
        conn = client()
        conn.send_headers(1, request("/bench/delay/200", scheme="https"), end_stream=True)
        conn.send_headers(3, request("/bench/hello", scheme="https"), end_stream=True)
        sock.sendall(conn.data_to_send())
        sock.close_notify()
        frames, end = read_frames(sock)
        ended = sorted(f[2] for f in frames if f[0] in (DATA, HEADERS) and f[1] & END_STREAM)
        self.assertEqual(ended, [1, 3], frames)
        self.assertEqual(end, "closed")
        self.assert_still_serving()


class RouterHttp2DefencesOverTls12(RouterHttp2DefencesOverTls13):
    VERSION = ssl.TLSVersion.TLSv1_2


if __name__ == "__main__":
    unittest.main()
