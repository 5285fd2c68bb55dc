"""What the Autobahn|Python interop tests share: the router process they start, and Autobahn's
asyncio client transports (WebSocket and RawSocket, over TCP or TLS) with the workaround
Autobahn 22.7's RawSocket client needs.

Importing this module exits with status 77 (CTest: skipped) when Autobahn is not installed.
"""
import asyncio
import subprocess
import sys
import urllib.request

try:
    import txaio

    txaio.use_asyncio()
    from autobahn.asyncio.rawsocket import WampRawSocketClientFactory, WampRawSocketClientProtocol
    from autobahn.asyncio.websocket import WampWebSocketClientFactory
    from autobahn.wamp.serializer import CBORSerializer, JsonSerializer, MsgPackSerializer
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipping: Autobahn|Python is not available ({error})")
    sys.exit(77)

TIMEOUT = 10.0  # every wait in these tests is bounded
SERIALIZERS = {"json": JsonSerializer, "msgpack": MsgPackSerializer, "cbor": CBORSerializer}
TRANSPORTS = ("websocket", "rawsocket")


class RouterProcess:
    """The router binary, started on port 0 everywhere; its READY line says where."""

    def __init__(self, router, *args, cwd=None):
        self.process = subprocess.Popen(
            [router, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        line = self.process.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"router did not print READY: {line!r} {self.process.stderr.read()}")
        self.fields = dict(word.split("=", 1) for word in line.split()[1:])

    def port(self, transport):
        key = "ws" if transport == "websocket" else "rawsocket"
        return int(self.fields[key].rsplit(":", 1)[1])

    def metrics_text(self):
        """The router's Prometheus exposition (it runs with --metrics-listen)."""
        url = f"http://{self.fields['metrics']}/metrics"
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.read().decode()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


class RawSocketClientProtocol(WampRawSocketClientProtocol):
    """Works around Autobahn 22.7's asyncio RawSocket client, whose session reads
    `transport_details` from a protocol that only has `_transport_details`."""

    @property
    def transport_details(self):
        return self._transport_details


async def open_transport(port, transport, make_session, serializer, tls=None):
    """Connects Autobahn's client `transport` ("websocket" or "rawsocket") to 127.0.0.1:`port`
    with one serializer instance; `make_session` builds the session it carries. With `tls` (an
    ssl.SSLContext) the connection is wss or RawSocket over TLS, the router's certificate
    verified as the context says. Returns asyncio's (transport, protocol); raises what the TLS
    handshake raised when it fails."""
    loop = asyncio.get_running_loop()
    if transport == "websocket":
        scheme = "wss" if tls else "ws"
        factory = WampWebSocketClientFactory(
            make_session, url=f"{scheme}://127.0.0.1:{port}", serializers=[serializer]
        )
        factory.setProtocolOptions(maxMessagePayloadSize=0, maxFramePayloadSize=0)
    else:
        factory = WampRawSocketClientFactory(make_session, serializer=serializer)
        factory.protocol = RawSocketClientProtocol
    return await loop.create_connection(
        factory, "127.0.0.1", port, ssl=tls, server_hostname="127.0.0.1" if tls else None
    )
