#!/usr/bin/python3
"""A minimal WAMP caller for bench/wamp_echo.sh (Python 3 standard library only).

Calls the router's built-in procedure `bench.echo` with one positional argument of SIZE bytes,
keeping DEPTH calls outstanding on one connection, for SECONDS, over RawSocket or WebSocket
with the JSON or MessagePack serializer. Every answer is checked: a RESULT for the oldest
outstanding request whose argument is the payload, byte for byte. With `json` the payload is
a JSON string of SIZE letters; with `jsonbin` it is binary, in WAMP's JSON form (the string
"\\u0000" followed by the base64 of SIZE bytes), which the router decodes and encodes again.

  wamp_echo_client.py rawsocket|websocket HOST:PORT SIZE SECONDS DEPTH json|jsonbin|msgpack

Prints one line: "calls=N seconds=S calls_per_s=R payload_bytes_per_s=B".

Why hand-written: the stdlib has no WAMP, WebSocket or MessagePack; the messages used here
have a fixed shape, so requests are built by concatenating prebuilt bytes (cost: one copy of
the payload) and answers are checked by slicing, keeping the client's own cost per byte low.
The WebSocket client masks frames with the all-zero key (legal per RFC 6455, section 5.3;
it saves a pass over the payload in Python).
"""

import base64
import os
import socket
import struct
import sys
import time


def pattern(size):
    unit = bytes(range(ord("a"), ord("a") + 26))
    return (unit * (size // 26 + 1))[:size]


class Json:
    name = "json"
    rawsocket_id = 1
    ws_protocol = "wamp.2.json"
    ws_opcode = 1

    def hello(self):
        return b'[1,"realm1",{"roles":{"caller":{}}}]'

    def call(self, request, payload):
        return b"[48,%d,{},\"bench.echo\",[\"%s\"]]" % (request, payload)

    def check_result(self, message, request, payload):
        head = b"[50,%d,{},[\"" % request
        # Whitespace-free output is what the router's writer produces.
        return (message.startswith(head) and message.endswith(b'"]]')
                and len(message) == len(head) + len(payload) + 3
                and message[len(head):-3] == payload)

    def message_type(self, message):
        return int(message[1:message.index(b",")])

    def wire_payload(self, payload):
        return payload


class JsonBinary(Json):
    name = "jsonbin"

    def wire_payload(self, payload):
        # WAMP's JSON form of binary, as the router writes it back (standard padded base64).
        return b"\\u0000" + base64.b64encode(payload)


def mp_uint(n):
    if n < 128:
        return bytes([n])
    if n < 1 << 8:
        return b"\xcc" + bytes([n])
    if n < 1 << 16:
        return b"\xcd" + struct.pack(">H", n)
    if n < 1 << 32:
        return b"\xce" + struct.pack(">I", n)
    return b"\xcf" + struct.pack(">Q", n)


def mp_bin(data):
    n = len(data)
    if n < 1 << 8:
        return b"\xc4" + bytes([n]) + data
    if n < 1 << 16:
        return b"\xc5" + struct.pack(">H", n) + data
    return b"\xc6" + struct.pack(">I", n) + data


def mp_str(text):
    data = text.encode()
    assert len(data) < 32
    return bytes([0xA0 | len(data)]) + data


class MsgPack:
    name = "msgpack"
    rawsocket_id = 2
    ws_protocol = "wamp.2.msgpack"
    ws_opcode = 2

    def hello(self):
        # [1, "realm1", {"roles": {"caller": {}}}]
        return (b"\x93\x01" + mp_str("realm1") + b"\x81" + mp_str("roles") + b"\x81"
                + mp_str("caller") + b"\x80")

    def call(self, request, payload):
        # [48, request, {}, "bench.echo", [payload as bin]]
        return (b"\x95\x30" + mp_uint(request) + b"\x80" + mp_str("bench.echo") + b"\x91"
                + mp_bin(payload))

    def check_result(self, message, request, payload):
        # [50, request, {}, [payload as bin]]: the router keeps binary arguments binary.
        head = b"\x94\x32" + mp_uint(request) + b"\x80\x91"
        body = mp_bin(payload)
        return (message.startswith(head) and len(message) == len(head) + len(body)
                and message[len(head):] == body)

    def message_type(self, message):
        return message[1]

    def wire_payload(self, payload):
        return payload


class BufferedSocket:
    """Reads from a connected socket through a buffer (both transports frame their messages)."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = bytearray()

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("the router closed the connection")
        self.buf += chunk

    def _read_exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out


class RawSocket(BufferedSocket):
    def __init__(self, sock, serializer):
        super().__init__(sock)
        # Magic, maximum length 2^(9+15) (16 MiB) and the serializer, two reserved octets.
        sock.sendall(bytes([0x7F, 0xF0 | serializer.rawsocket_id, 0, 0]))
        reply = self._read_exact(4)
        if reply[0] != 0x7F or reply[1] & 0x0F != serializer.rawsocket_id:
            raise SystemExit(f"rawsocket handshake refused: {reply.hex()}")

    def frame(self, message):
        return struct.pack(">I", len(message)) + message  # frame type 0: a WAMP message

    def receive(self):
        while True:
            header = self._read_exact(4)
            length = int.from_bytes(header[1:], "big")
            body = self._read_exact(length)
            if header[0] & 0x07 == 0:
                return body
            if header[0] & 0x07 == 1:  # PING: answer PONG with the same body
                self.sock.sendall(bytes([2]) + header[1:] + body)


class WebSocket(BufferedSocket):
    def __init__(self, sock, serializer, host):
        super().__init__(sock)
        self.opcode = serializer.ws_opcode
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                      f"Sec-WebSocket-Version: 13\r\n"
                      f"Sec-WebSocket-Protocol: {serializer.ws_protocol}\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        self.buf = bytearray(rest)
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit(f"websocket upgrade refused: {head[:200]!r}")

    def frame(self, message):
        n = len(message)
        first = bytes([0x80 | self.opcode])
        if n < 126:
            header = first + bytes([0x80 | n])
        elif n < 1 << 16:
            header = first + bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header = first + bytes([0x80 | 127]) + struct.pack(">Q", n)
        return header + b"\0\0\0\0" + message  # zero mask key: payload unchanged

    def receive(self):
        parts = []
        while True:
            b0, b1 = self._read_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read_exact(8))[0]
            if b1 & 0x80:
                raise SystemExit("the server masked a frame")
            body = self._read_exact(n)
            opcode = b0 & 0x0F
            if opcode == 9:  # ping -> pong
                self.sock.sendall(bytes([0x8A, 0x80 | len(body)]) + b"\0\0\0\0" + body)
                continue
            if opcode == 8:
                raise SystemExit("the server closed the WebSocket")
            parts.append(body)
            if b0 & 0x80:
                return b"".join(parts)


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    transport, address, size, seconds, depth, ser = argv
    host, port = address.rsplit(":", 1)
    size, seconds, depth = int(size), float(seconds), int(depth)
    serializer = {"json": Json, "jsonbin": JsonBinary, "msgpack": MsgPack}[ser]()
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    conn = RawSocket(sock, serializer) if transport == "rawsocket" else WebSocket(
        sock, serializer, address)
    sock.sendall(conn.frame(serializer.hello()))
    welcome = conn.receive()
    if serializer.message_type(welcome) != 2:
        raise SystemExit(f"no WELCOME: {welcome[:200]!r}")

    payload = serializer.wire_payload(pattern(size))
    next_request = 1
    oldest = 1
    calls = 0
    for _ in range(depth):
        sock.sendall(conn.frame(serializer.call(next_request, payload)))
        next_request += 1
    start = time.monotonic()
    deadline = start + seconds
    while True:
        message = conn.receive()
        if not serializer.check_result(message, oldest, payload):
            raise SystemExit(f"bad answer to call {oldest}: {message[:120]!r}...")
        oldest += 1
        calls += 1
        now = time.monotonic() if calls % 16 == 0 or size > 4096 else None
        if now is not None and now >= deadline:
            break
        sock.sendall(conn.frame(serializer.call(next_request, payload)))
        next_request += 1
    elapsed = time.monotonic() - start
    # The calls still outstanding are not counted; closing the socket abandons them.
    sock.close()
    print(f"calls={calls} seconds={elapsed:.3f} calls_per_s={calls / elapsed:.1f} "
          f"payload_bytes_per_s={calls * size / elapsed:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
