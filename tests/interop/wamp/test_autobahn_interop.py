#!/usr/bin/python3
"""Interoperability of the bundled WAMP router with Autobahn|Python.

Starts the real router binary on loopback ports it picks itself, then drives it with
Autobahn's asyncio clients: caller, callee, publisher and subscriber over WebSocket and
RawSocket with JSON, MessagePack and CBOR (mixed across transports and serializers, binary
payloads included), and checks that protocol errors (a malformed frame, an unknown message
type, an oversize message, a call to an unregistered procedure) get the answer the WAMP spec
prescribes while the router keeps serving other sessions.

Usage: test_autobahn_interop.py --router PATH [unittest arguments]
Exit status 77 (CTest: skipped) when Autobahn is not installed.
"""

import argparse
import asyncio
import itertools
import json
import os
import socket
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import autobahn_client  # exits 77 without Autobahn  # noqa: E402
from autobahn_client import SERIALIZERS, TIMEOUT, TRANSPORTS, open_transport  # noqa: E402
from autobahn.asyncio.wamp import ApplicationSession  # noqa: E402
from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol  # noqa: E402
from autobahn.wamp import types  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402

ROUTER = None  # path, from the command line
MAX_MESSAGE = 1 << 20  # the router runs with --max-message-bytes 1MiB


class RouterProcess(autobahn_client.RouterProcess):
    """The router binary, started on port 0 everywhere; its READY line says where."""

    def __init__(self, *extra):
        super().__init__(ROUTER, "--max-message-bytes", str(MAX_MESSAGE), *extra)


class Client(ApplicationSession):
    """A session that reports joining and leaving through futures in its config."""

    def onJoin(self, details):
        joined = self.config.extra["joined"]
        if not joined.done():
            joined.set_result(self)

    def onLeave(self, details):
        left = self.config.extra["left"]
        if not left.done():
            left.set_result(details)
        self.disconnect()

    def onDisconnect(self):
        joined = self.config.extra["joined"]
        if not joined.done():
            joined.set_exception(ConnectionError("disconnected before joining"))


async def connect(router, transport, serializer, realm="realm1"):
    """Opens a session; returns (session, future of its CloseDetails)."""
    loop = asyncio.get_running_loop()
    joined, left = loop.create_future(), loop.create_future()
    config = types.ComponentConfig(realm=realm, extra={"joined": joined, "left": left})
    await open_transport(router.port(transport), transport, lambda: Client(config),
                         SERIALIZERS[serializer]())
    session = await asyncio.wait_for(joined, TIMEOUT)
    return session, left


async def close(session):
    if session.is_attached():
        session.leave()
    await asyncio.sleep(0)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


COMBINATIONS = list(itertools.product(TRANSPORTS, SERIALIZERS))


class AutobahnInterop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.router = RouterProcess()

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def test_caller_reaches_callee_across_every_transport_and_serializer(self):
        async def scenario():
            payload = bytes(range(256)) * 4
            for (callee_transport, callee_ser), (caller_transport, caller_ser) in zip(
                COMBINATIONS, COMBINATIONS[1:] + COMBINATIONS[:1]
            ):
                label = f"callee {callee_transport}/{callee_ser}, caller {caller_transport}/{caller_ser}"
                callee, _ = await connect(self.router, callee_transport, callee_ser)
                caller, _ = await connect(self.router, caller_transport, caller_ser)
                procedure = f"test.echo.{callee_transport}.{callee_ser}"

                def echo(*args, **kwargs):
                    return types.CallResult(*args, **kwargs)

                await callee.register(echo, procedure)
                result = await caller.call(procedure, 7, "text", payload, flag=True, blob=payload)
                self.assertEqual(list(result.results), [7, "text", payload], label)
                self.assertEqual(result.kwresults, {"flag": True, "blob": payload}, label)
                await close(caller)
                await close(callee)

        run(scenario())

    def test_router_answers_bench_echo_itself_with_the_same_args_and_kwargs(self):
        async def scenario():
            for transport, serializer in COMBINATIONS:
                caller, _ = await connect(self.router, transport, serializer)
                payload = os.urandom(64 * 1024)
                result = await caller.call("bench.echo", payload, n=1)
                self.assertEqual(list(result.results), [payload], (transport, serializer))
                self.assertEqual(result.kwresults, {"n": 1})
                self.assertEqual(await caller.call("bench.echo", "only"), "only")
                await close(caller)

        run(scenario())

    def test_publisher_reaches_every_subscriber_but_itself_by_default(self):
        async def scenario():
            loop = asyncio.get_running_loop()
            subscribers = []
            received = []
            for transport, serializer in COMBINATIONS:
                session, _ = await connect(self.router, transport, serializer)
                future = loop.create_future()

                def on_event(*args, _future=future, **kwargs):
                    if not _future.done():
                        _future.set_result((list(args), kwargs))

                await session.subscribe(on_event, "test.topic")
                subscribers.append(session)
                received.append(future)
            publisher = subscribers[0]
            payload = b"\x00\x01binary\xff"
            publication = await publisher.publish(
                "test.topic", 1, payload, key="v", options=types.PublishOptions(acknowledge=True)
            )
            self.assertIsNotNone(publication.id)
            results = await asyncio.wait_for(asyncio.gather(*received[1:]), TIMEOUT)
            for args, kwargs in results:
                self.assertEqual(args, [1, payload])
                self.assertEqual(kwargs, {"key": "v"})
            await asyncio.sleep(0.2)
            self.assertFalse(received[0].done(), "exclude_me defaults to true")
            await publisher.publish(
                "test.topic", "me too",
                options=types.PublishOptions(acknowledge=True, exclude_me=False),
            )
            self.assertEqual((await asyncio.wait_for(received[0], TIMEOUT))[0], ["me too"])
            for session in subscribers:
                await close(session)

        run(scenario())

    def test_unsubscribed_and_unregistered_sessions_receive_nothing_more(self):
        async def scenario():
            session, _ = await connect(self.router, "rawsocket", "msgpack")
            other, _ = await connect(self.router, "websocket", "json")
            events = []
            subscription = await session.subscribe(lambda *a: events.append(a), "test.quiet")
            await subscription.unsubscribe()
            await other.publish("test.quiet", 1, options=types.PublishOptions(acknowledge=True))
            registration = await session.register(lambda: 1, "test.gone")
            await registration.unregister()
            with self.assertRaises(ApplicationError) as raised:
                await other.call("test.gone")
            self.assertEqual(raised.exception.error, "wamp.error.no_such_procedure")
            self.assertEqual(events, [])
            await close(session)
            await close(other)

        run(scenario())

    def test_call_to_an_unregistered_procedure_gets_no_such_procedure(self):
        async def scenario():
            for transport, serializer in COMBINATIONS:
                caller, _ = await connect(self.router, transport, serializer)
                with self.assertRaises(ApplicationError) as raised:
                    await caller.call("test.nobody.home", 1)
                self.assertEqual(raised.exception.error, "wamp.error.no_such_procedure")
                self.assertEqual(await caller.call("bench.echo", 2), 2)  # still served
                await close(caller)

        run(scenario())

    def test_second_registration_of_a_procedure_gets_procedure_already_exists(self):
        async def scenario():
            first, _ = await connect(self.router, "websocket", "cbor")
            second, _ = await connect(self.router, "rawsocket", "json")
            await first.register(lambda: 1, "test.once")
            for procedure in ("test.once", "bench.echo"):
                with self.assertRaises(ApplicationError) as raised:
                    await second.register(lambda: 2, procedure)
                self.assertEqual(raised.exception.error, "wamp.error.procedure_already_exists")
            await close(first)
            await close(second)

        run(scenario())

    def test_callee_error_reaches_the_caller(self):
        async def scenario():
            callee, _ = await connect(self.router, "rawsocket", "cbor")
            caller, _ = await connect(self.router, "websocket", "msgpack")

            def fail(*args):
                raise ApplicationError("test.error.refused", "no", code=3)

            await callee.register(fail, "test.fails")
            with self.assertRaises(ApplicationError) as raised:
                await caller.call("test.fails", 1)
            self.assertEqual(raised.exception.error, "test.error.refused")
            self.assertEqual(raised.exception.kwargs, {"code": 3})
            await close(callee)
            await close(caller)

        run(scenario())

    def test_callee_leaving_with_a_pending_call_cancels_the_call(self):
        async def scenario():
            loop = asyncio.get_running_loop()
            callee, _ = await connect(self.router, "websocket", "json")
            caller, _ = await connect(self.router, "rawsocket", "msgpack")
            invoked = loop.create_future()

            async def never_answers():
                invoked.set_result(True)
                await asyncio.sleep(TIMEOUT * 2)

            await callee.register(never_answers, "test.slow")
            call = asyncio.ensure_future(caller.call("test.slow"))
            await asyncio.wait_for(invoked, TIMEOUT)
            callee.leave()
            with self.assertRaises(ApplicationError) as raised:
                await asyncio.wait_for(call, TIMEOUT)
            self.assertEqual(raised.exception.error, "wamp.error.canceled")
            await close(caller)

        run(scenario())

    def test_sessions_in_different_realms_never_see_each_other(self):
        async def scenario():
            loop = asyncio.get_running_loop()
            a, _ = await connect(self.router, "websocket", "json", realm="realm.a")
            b, _ = await connect(self.router, "rawsocket", "cbor", realm="realm.b")
            await a.register(lambda: "a", "test.realm")
            events = loop.create_future()
            await b.subscribe(lambda x: events.set_result(x), "test.realm.topic")
            with self.assertRaises(ApplicationError) as raised:
                await b.call("test.realm")
            self.assertEqual(raised.exception.error, "wamp.error.no_such_procedure")
            await a.publish("test.realm.topic", 1, options=types.PublishOptions(acknowledge=True))
            await asyncio.sleep(0.2)
            self.assertFalse(events.done())
            await b.register(lambda: "b", "test.realm")  # the same URI is free in realm.b
            self.assertEqual(await b.call("test.realm"), "b")
            self.assertEqual(await a.call("test.realm"), "a")
            await close(a)
            await close(b)

        run(scenario())

    def test_session_aborted_for_an_oversize_message_leaves_others_served(self):
        async def scenario():
            victim, left = await connect(self.router, "websocket", "msgpack")
            bystander, _ = await connect(self.router, "rawsocket", "cbor")
            call = asyncio.ensure_future(victim.call("bench.echo", b"x" * (MAX_MESSAGE + 1)))
            # The router answers ABORT (checked byte for byte in WebSocketProtocolErrors);
            # Autobahn 22.7 takes an ABORT on an established session as a protocol error of its
            # own and drops the transport, so here only the session's end is visible.
            await asyncio.wait_for(left, TIMEOUT)
            with self.assertRaises(Exception):
                await asyncio.wait_for(call, TIMEOUT)
            self.assertEqual(await bystander.call("bench.echo", 5), 5)
            await close(bystander)

        run(scenario())


# --- WebSocket at the message level, for what a well-behaved client never sends -------------


class AutobahnLeaving(unittest.TestCase):
    """A client's GOODBYE, whatever its reason, is answered with wamp.close.goodbye_and_out (the
    WAMP spec's answer) and is no protocol error. Autobahn sends wamp.close.normal unless told
    otherwise, and a peer may send any URI; the router never sends a GOODBYE of its own, so
    there is no answer of a client's to judge (Autobahn would answer one with
    wamp.close.normal)."""

    REASONS = ("wamp.close.normal", "wamp.close.close_realm", "wamp.close.system_shutdown",
               "wamp.close.goodbye_and_out", "com.example.leaving")

    @classmethod
    def setUpClass(cls):
        cls.router = RouterProcess("--metrics-listen", "127.0.0.1:0")

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def metric(self, name):
        for line in self.router.metrics_text().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        self.fail(f"no {name} in the router's metrics")

    def test_every_reason_is_answered_with_goodbye_and_out_and_no_protocol_error(self):
        async def scenario():
            for (transport, serializer), reason in zip(itertools.cycle(COMBINATIONS),
                                                       self.REASONS):
                label = f"{transport}/{serializer} leaving with {reason}"
                session, left = await connect(self.router, transport, serializer)
                session.leave(reason)
                details = await asyncio.wait_for(left, TIMEOUT)
                self.assertEqual(details.reason, "wamp.close.goodbye_and_out", label)
            # Still serving, with no session left over.
            caller, _ = await connect(self.router, "rawsocket", "cbor")
            self.assertEqual(await caller.call("wamp.session.count"), 1)
            await close(caller)

        run(scenario())
        self.assertEqual(self.metric("benchgate_router_wamp_protocol_errors_total"), 0)


class RawWebSocket(WebSocketClientProtocol):
    """A WebSocket client (wamp.2.json) that hands every message to a queue."""

    def onOpen(self):
        self.factory.opened.set_result(self)

    def onMessage(self, payload, is_binary):
        self.factory.messages.put_nowait(json.loads(payload))

    def onClose(self, was_clean, code, reason):
        if not self.factory.closed.done():
            self.factory.closed.set_result(code)
        if not self.factory.opened.done():
            self.factory.opened.set_exception(ConnectionError(reason))


async def open_websocket(router, protocols=("wamp.2.json",)):
    loop = asyncio.get_running_loop()
    url = f"ws://127.0.0.1:{router.port('websocket')}"
    factory = WebSocketClientFactory(url, protocols=list(protocols))
    factory.protocol = RawWebSocket
    factory.setProtocolOptions(maxMessagePayloadSize=0, maxFramePayloadSize=0)
    factory.opened, factory.closed = loop.create_future(), loop.create_future()
    factory.messages = asyncio.Queue()
    await loop.create_connection(factory, "127.0.0.1", router.port("websocket"))
    client = await asyncio.wait_for(factory.opened, TIMEOUT)
    return client, factory


async def next_message(factory):
    return await asyncio.wait_for(factory.messages.get(), TIMEOUT)


class WebSocketProtocolErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.router = RouterProcess()

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def abort_after(self, payload):
        async def scenario():
            client, factory = await open_websocket(self.router)
            client.sendMessage(json.dumps([1, "realm1", {"roles": {"caller": {}}}]).encode())
            self.assertEqual((await next_message(factory))[0], 2)
            client.sendMessage(payload)
            abort = await next_message(factory)
            await asyncio.wait_for(factory.closed, TIMEOUT)
            bystander, _ = await connect(self.router, "websocket", "json")
            self.assertEqual(await bystander.call("bench.echo", "still here"), "still here")
            await close(bystander)
            return abort

        return run(scenario())

    def assert_protocol_violation(self, abort):
        self.assertEqual(abort[0], 3, abort)
        self.assertEqual(abort[2], "wamp.error.protocol_violation")
        self.assertIn("message", abort[1])

    def test_malformed_message_is_aborted_with_protocol_violation(self):
        self.assert_protocol_violation(self.abort_after(b'[48, 1, {}, "bench.echo"'))

    def test_unknown_message_type_is_aborted_with_protocol_violation(self):
        self.assert_protocol_violation(self.abort_after(b"[999, 1, {}]"))

    def test_oversize_message_is_aborted_with_protocol_violation(self):
        big = json.dumps([48, 1, {}, "bench.echo", ["x" * MAX_MESSAGE]]).encode()
        self.assert_protocol_violation(self.abort_after(big))

    def test_upgrade_without_a_wamp_subprotocol_is_refused(self):
        async def scenario():
            with self.assertRaises(Exception):
                await open_websocket(self.router, protocols=("chat",))

        run(scenario())

    def test_subprotocol_is_chosen_in_the_clients_order(self):
        async def scenario():
            client, factory = await open_websocket(
                self.router, protocols=("chat", "wamp.2.json", "wamp.2.cbor")
            )
            self.assertEqual(client.websocket_protocol_in_use, "wamp.2.json")
            client.sendClose()
            await asyncio.wait_for(factory.closed, TIMEOUT)

        run(scenario())


# --- RawSocket at the byte level, for what a well-behaved client never sends ---------------


class RawClient:
    """A blocking RawSocket client speaking JSON, with bounded waits."""

    def __init__(self, port, serializer_id=1, length_exponent=15):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.sock.sendall(bytes([0x7F, (length_exponent << 4) | serializer_id, 0, 0]))
        self.reply = self.read_exact(4)

    def read_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError(f"closed after {len(data)} of {n} bytes")
            data += chunk
        return data

    def send_frame(self, payload, frame_type=0):
        self.sock.sendall(struct.pack("!I", (frame_type << 24) | len(payload)) + payload)

    def send_json(self, message):
        self.send_frame(json.dumps(message).encode())

    def read_frame(self):
        header = self.read_exact(4)
        return header[0] & 7, self.read_exact(struct.unpack("!I", b"\0" + header[1:])[0])

    def read_json(self):
        frame_type, payload = self.read_frame()
        assert frame_type == 0, frame_type
        return json.loads(payload)

    def hello(self):
        self.send_json([1, "realm1", {"roles": {"caller": {}}}])
        welcome = self.read_json()
        assert welcome[0] == 2, welcome
        return welcome

    def closed(self):
        """True when the router closes the connection (EOF) within the timeout."""
        try:
            while self.sock.recv(65536):
                pass
            return True
        except (ConnectionResetError, socket.timeout):
            return False

    def close(self):
        self.sock.close()


class RawSocketProtocolErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.router = RouterProcess("--max-sessions", "64")
        cls.port = cls.router.port("rawsocket")

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def assert_still_serving(self):
        client = RawClient(self.port)
        client.hello()
        client.send_json([48, 1, {}, "bench.echo", ["still here"]])
        self.assertEqual(client.read_json(), [50, 1, {}, ["still here"]])
        client.close()

    def assert_aborted(self, client):
        abort = client.read_json()
        self.assertEqual(abort[0], 3, abort)
        self.assertEqual(abort[2], "wamp.error.protocol_violation")
        self.assertIn("message", abort[1])
        self.assertTrue(client.closed())

    def test_handshake_negotiates_serializer_and_maximum_length(self):
        client = RawClient(self.port, serializer_id=2, length_exponent=4)
        self.assertEqual(client.reply[0], 0x7F)
        self.assertEqual(client.reply[1] & 0x0F, 2)
        self.assertEqual(2 ** (9 + (client.reply[1] >> 4)), MAX_MESSAGE)
        client.close()

    def test_handshake_with_an_unknown_serializer_is_refused_with_error_1(self):
        client = RawClient(self.port, serializer_id=9)
        self.assertEqual(client.reply, bytes([0x7F, 0x10, 0, 0]))
        self.assertTrue(client.closed())

    def test_ping_is_answered_with_a_pong_carrying_the_same_payload(self):
        client = RawClient(self.port)
        client.send_frame(b"are you there", frame_type=1)
        self.assertEqual(client.read_frame(), (2, b"are you there"))
        client.close()

    def test_malformed_frame_is_aborted_with_protocol_violation(self):
        client = RawClient(self.port)
        client.hello()
        client.send_frame(b"[48, 1, {}, \"bench.echo\"")  # truncated JSON
        self.assert_aborted(client)
        self.assert_still_serving()

    def test_unknown_message_type_is_aborted_with_protocol_violation(self):
        client = RawClient(self.port)
        client.hello()
        client.send_json([999, 1, {}])
        self.assert_aborted(client)
        self.assert_still_serving()

    def test_message_before_hello_is_aborted_with_protocol_violation(self):
        client = RawClient(self.port)
        client.send_json([48, 1, {}, "bench.echo"])
        self.assert_aborted(client)
        self.assert_still_serving()

    def test_oversize_message_is_aborted_with_protocol_violation(self):
        client = RawClient(self.port)
        client.hello()
        # Announce one byte more than the router accepts and start sending it.
        client.sock.sendall(struct.pack("!I", MAX_MESSAGE + 1) + b"[" * 4096)
        self.assert_aborted(client)
        self.assert_still_serving()

    def test_call_to_an_unregistered_procedure_gets_an_error(self):
        client = RawClient(self.port)
        client.hello()
        client.send_json([48, 7, {}, "test.nobody.home", [1]])
        self.assertEqual(client.read_json(), [8, 48, 7, {}, "wamp.error.no_such_procedure"])
        client.send_json([48, 8, {}, "bench.echo", [1]])
        self.assertEqual(client.read_json(), [50, 8, {}, [1]])
        client.close()

    def test_binary_payload_in_json_is_a_nul_prefixed_base64_string(self):
        client = RawClient(self.port)
        client.hello()
        client.send_json([48, 9, {}, "bench.echo", ["\u0000AAEC/w=="]])
        self.assertEqual(client.read_json(), [50, 9, {}, ["\u0000AAEC/w=="]])
        client.send_json([48, 10, {}, "bench.echo", ["\u0000not base64!"]])
        self.assert_aborted(client)

    def test_goodbye_is_answered_with_goodbye_and_out(self):
        client = RawClient(self.port)
        client.hello()
        client.send_json([6, {}, "wamp.close.close_realm"])
        self.assertEqual(client.read_json(), [6, {}, "wamp.close.goodbye_and_out"])
        client.close()


def main():
    global ROUTER
    parser = argparse.ArgumentParser()
    parser.add_argument("--router", required=True)
    args, rest = parser.parse_known_args()
    ROUTER = args.router
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
