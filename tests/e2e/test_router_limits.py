"""The real router binary against bad and slow HTTP clients (issue 7, "Bad input"): oversized
headers -> 431, oversized bodies -> 413, malformed requests -> 400 and close, a header timeout
against a slow sender, and 1,000 slowloris connections that do not stop a normal client.
Issue 12: request smuggling through a Transfer-Encoding that does not end in chunked.
Loopback only; every wait is bounded."""
import os
import resource
import socket
import subprocess
import time
import unittest

BIN = os.environ.get("BENCHGATE_BIN", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ROUTER = os.path.join(BIN, "router")


class Router:
    """A router on 127.0.0.1 with ports picked by the kernel; stopped on exit."""

    def __init__(self, *extra):
        self.proc = subprocess.Popen(
            [ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()  # "READY http=HOST:PORT control=..."
        if not line.startswith("READY"):
            self.stop()
            raise RuntimeError("router did not start: " + line)
        http = line.split("http=")[1].split()[0]
        self.port = int(http.rsplit(":", 1)[1])

    def connect(self, timeout=10):
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def read_response(sock):
    """Reads one response head and its Content-Length body; returns (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def read_until_closed(sock, within_s):
    """Everything the peer sends until it closes (None when it does not close in time)."""
    sock.settimeout(within_s)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        return data


def closed_by_peer(sock, within_s):
    """True when the peer closes the connection within `within_s` (reading what it sends)."""
    sock.settimeout(within_s)
    try:
        while sock.recv(65536):
            pass
        return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        return True


class RouterLimitsTest(unittest.TestCase):
    def test_oversized_header_is_answered_431(self):
        with Router("--max-header-bytes", "4096") as router, router.connect() as s:
            s.sendall(b"GET /bench/hello HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 16384 +
                      b"\r\n\r\n")
            status, _, _ = read_response(s)
            self.assertEqual(status, 431)

    def test_oversized_body_is_answered_413(self):
        with Router("--max-body-bytes", "65536") as router, router.connect() as s:
            s.sendall(b"POST /bench/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
            status, _, _ = read_response(s)
            self.assertEqual(status, 413)

    def test_malformed_request_is_answered_400_and_closed(self):
        with Router() as router, router.connect() as s:
            s.sendall(b"THIS IS NOT HTTP\r\n\r\n")
            status, _, _ = read_response(s)
            self.assertEqual(status, 400)
            self.assertTrue(closed_by_peer(s, 10))

    def test_smuggled_request_behind_a_transfer_encoding_is_never_answered(self):
        # The body of each request is a complete request of its own. A router that reads a
        # Transfer-Encoding not ending in chunked (or one beside Content-Length) as "no body"
        # answers it as a second request: 400 and close instead, one answer, no Hello.
        smuggled = b"GET /bench/hello HTTP/1.1\r\nHost: x\r\n\r\n"
        variants = [b"Transfer-Encoding: xchunked\r\n",
                    b"Transfer-Encoding: gzip\r\n",
                    b"Transfer-Encoding: identity\r\n",
                    b"Transfer-Encoding: chunked, identity\r\n",
                    b"Transfer-Encoding: chunked, gzip\r\n",
                    b"Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n",
                    b"Transfer-Encoding: gzip\r\nContent-Length: %d\r\n" % len(smuggled),
                    b"Content-Length: %d\r\nTransfer-Encoding: gzip\r\n" % len(smuggled)]
        with Router() as router:
            for fields in variants:
                with self.subTest(fields=fields), router.connect() as s:
                    s.sendall(b"POST /bench/echo HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n" +
                              smuggled)
                    data = read_until_closed(s, 20)
                    self.assertIsNotNone(data, "the router kept the connection open")
                    self.assertTrue(data.startswith(b"HTTP/1.1 400 "), data[:200])
                    self.assertEqual(data.count(b"HTTP/1.1 "), 1, data)
                    self.assertNotIn(b"Hello, world", data)
            # The router still serves a well-formed chunked request.
            with router.connect() as s:
                s.sendall(b"POST /bench/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                          b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
                status, _, body = read_response(s)
                self.assertEqual((status, body), (200, b"hello"))

    def test_slow_sender_is_closed_by_header_timeout(self):
        with Router("--header-timeout", "1s") as router, router.connect() as s:
            s.sendall(b"GET /bench/hello HTTP/1.1\r\nHost: x\r\n")  # never finishes the head
            # Bounded: 1s configured, 20s allowed before calling it a hang.
            self.assertTrue(closed_by_peer(s, 20))

    def test_normal_client_is_served_while_1000_slowloris_connections_hang(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 4096
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 2200:
            self.skipTest("RLIMIT_NOFILE too low for 1,000 connections")
        with Router() as router:
            slow = []
            try:
                for _ in range(1000):
                    s = router.connect()
                    s.sendall(b"GET /bench/hello HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    slow.append(s)
                ok = 0
                with router.connect() as client:
                    for _ in range(100):
                        client.sendall(b"GET /bench/hello HTTP/1.1\r\nHost: x\r\n\r\n")
                        status, _, body = read_response(client)
                        if status == 200 and body == b"Hello, world":
                            ok += 1
                self.assertEqual(ok, 100)
                # The slow connections were still open: the router served around them.
                open_count = sum(1 for s in slow if not closed_by_peer(s, 0.001))
                self.assertGreater(open_count, 0)
            finally:
                for s in slow:
                    s.close()


if __name__ == "__main__":
    unittest.main()
