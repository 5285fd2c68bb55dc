#!/usr/bin/python3
"""Autobahn|Python against the bundled WAMP router over TLS: wss and RawSocket over TLS.

Makes a throwaway CA and a certificate for 127.0.0.1 with the openssl command, starts the real
router binary with it (--tls-cert, --tls-key: every listener speaks TLS only) on loopback ports
it picks, and connects Autobahn's asyncio clients that verify the router's certificate
against that CA:

- over both transports, with JSON, MessagePack and CBOR, over TLS 1.3 and TLS 1.2: a call to an
  Autobahn callee (args, kwargs and binary payloads back as sent), the router's own bench.echo,
  progressive results from bench.transfer (every chunk checked against its pattern) and a
  published event reaching an Autobahn subscriber;
- every authentication method of test_autobahn_auth (ticket, WAMP-CRA plain and salted,
  WAMP-SCRAM, cryptosign) joining over both TLS transports, and a wrong ticket refused;
- a client that trusts another CA fails its handshake (certificate verify failed) and a
  cleartext client never joins, each counted by the router by reason;
- the router's benchgate_router_tls_handshakes_total counts every handshake by listener, the
  version and the ALPN the clients saw.

Each interop row prints an INTEROP| line naming the TLS version the Autobahn client
negotiated. Usage: test_autobahn_tls.py --router PATH [unittest arguments]
Exit status 77 (CTest: skipped) when Autobahn, what its authentication needs, or openssl is
missing.
"""

import argparse
import asyncio
import contextlib
import itertools
import os
import re
import shutil
import ssl
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import autobahn_client  # exits 77 without Autobahn  # noqa: E402
import test_autobahn_auth as authn  # exits 77 without argon2-cffi, passlib or PyNaCl  # noqa: E402
import test_autobahn_interop as plain  # noqa: E402
from autobahn.wamp import types  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402
from autobahn_client import SERIALIZERS, TIMEOUT, TRANSPORTS, open_transport  # noqa: E402
from certificates import OPENSSL, make_certificate  # noqa: E402

if not OPENSSL:  # pragma: no cover - depends on the machine
    print("skipping: the openssl command (package openssl) is not installed")
    sys.exit(77)

ROUTER = None  # path, from the command line
VERSIONS = {"TLSv1.3": ssl.TLSVersion.TLSv1_3, "TLSv1.2": ssl.TLSVersion.TLSv1_2}


def pattern(offset, size):
    return bytes(ord("a") + (offset + i) % 26 for i in range(size))


def client_context(cafile, version=None):
    """What an Autobahn user passes for TLS: verification against `cafile`, no ALPN."""
    context = ssl.create_default_context(cafile=cafile)
    if version:
        context.minimum_version = context.maximum_version = VERSIONS[version]
    return context


def tls_of(session):
    """(version, ALPN) of a session's TLS connection as the client's ssl object reports them."""
    ssl_object = session.transport.transport.get_extra_info("ssl_object")
    return ssl_object.version(), ssl_object.selected_alpn_protocol()


def interop(row, result):
    fields = "|".join(f"{key}={value}" for key, value in row.items())
    print(f"INTEROP|peer=autobahn-python|{fields}|result={result}", flush=True)


@contextlib.contextmanager
def reported(row, outcome="pass"):
    """Prints the row's INTEROP line: `outcome` when the block passes, fail when it raises."""
    try:
        yield
    except BaseException:
        interop(row, "fail")
        raise
    interop(row, outcome)


class TlsRouter:
    """A router with TLS on every listener and its counters of handshakes, by the labels."""

    def __init__(self, directory, start):
        self.process = start("--tls-cert", os.path.join(directory, "server.pem"), "--tls-key",
                             os.path.join(directory, "server.key"))

    def tls_counts(self):
        """{(family, labels text): value} of the router's TLS counters."""
        out = {}
        for line in self.process.metrics_text().splitlines():
            match = re.match(r"^(benchgate_router_tls_\w+)\{(.*)\} (\S+)$", line)
            if match:
                out[(match.group(1), match.group(2))] = float(match.group(3))
        return out

    def wait_for_counts(self, before, expected):
        """The counters' growth since `before` once it equals `expected` (the router counts a
        handshake as it ends, which the client may see a moment before), or after 20 s."""
        deadline = time.monotonic() + 20
        while True:
            now = self.tls_counts()
            grown = {key: now[key] - before.get(key, 0) for key in now
                     if now[key] != before.get(key, 0)}
            if grown == expected or time.monotonic() > deadline:
                return grown
            time.sleep(0.05)


def handshake_key(transport, version, alpn):
    return ("benchgate_router_tls_handshakes_total",
            f'listener="{transport}",version="{version.replace("TLSv", "")}",'
            f'alpn="{alpn or "none"}"')


def failure_key(transport, reason):
    return ("benchgate_router_tls_handshake_failures_total",
            f'listener="{transport}",reason="{reason}"')


class CaseWithCertificates(unittest.TestCase):
    """A folder with two throwaway CAs: `trusted` signed the router's certificate, `stranger`
    is a CA of its own that never signed anything the router shows."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="benchgate-autobahn-tls-")
        cls.trusted = os.path.join(cls.folder, "trusted")
        cls.stranger = os.path.join(cls.folder, "stranger")
        for directory in (cls.trusted, cls.stranger):
            os.mkdir(directory)
            make_certificate(directory)
        cls.ca = os.path.join(cls.trusted, "ca.pem")

    def run_counting(self, scenario):
        """Runs the coroutine scenario(expected), which puts in `expected` what the router's
        TLS counters should grow by; checks that they grew by exactly that."""
        before = self.router.tls_counts()
        expected = {}
        plain.run(scenario(expected))
        self.assertEqual(self.router.wait_for_counts(before, expected), expected)

    @classmethod
    def tearDownClass(cls):
        code = cls.router.process.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)
        assert code == 0, f"router exited with {code}: {cls.router.process.process.stderr.read()}"


class AutobahnOverTls(CaseWithCertificates):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.router = TlsRouter(cls.trusted, lambda *tls: autobahn_client.RouterProcess(
            ROUTER, "--metrics-listen", "127.0.0.1:0", *tls))

    async def join(self, transport, serializer, context):
        """An anonymous session over TLS: (session, future of its CloseDetails)."""
        loop = asyncio.get_running_loop()
        joined, left = loop.create_future(), loop.create_future()
        config = types.ComponentConfig(realm="realm1", extra={"joined": joined, "left": left})
        await open_transport(self.router.process.port(transport), transport,
                             lambda: plain.Client(config), SERIALIZERS[serializer](), tls=context)
        return await asyncio.wait_for(joined, TIMEOUT), left

    def test_rpc_progressive_results_and_pubsub_over_every_transport_serializer_and_version(self):
        async def one_row(expected, transport, serializer, version):
            loop = asyncio.get_running_loop()
            context = client_context(self.ca, version)
            callee, _ = await self.join(transport, serializer, context)
            caller, _ = await self.join(transport, serializer, context)
            negotiated, alpn = tls_of(caller)
            self.assertEqual((negotiated, alpn), tls_of(callee))
            self.assertEqual(negotiated, version)
            # Nothing offered, nothing chosen: wss' upgrade is HTTP/1.1 without ALPN.
            self.assertIsNone(alpn)
            key = handshake_key(transport, negotiated, alpn)
            expected[key] = expected.get(key, 0) + 2
            row = {"protocol": f"wamp/{transport}", "serializer": serializer, "tls": negotiated,
                   "alpn": alpn or "-", "auth": "anonymous"}
            with reported(row):
                procedure = f"test.tls.echo.{transport}.{serializer}.{version}"
                await callee.register(lambda *a, **kw: types.CallResult(*a, **kw), procedure)
                payload = os.urandom(40_000)  # more than one TLS record of 16 KiB
                result = await caller.call(procedure, 7, "text", payload, blob=payload)
                self.assertEqual(list(result.results), [7, "text", payload])
                self.assertEqual(result.kwresults, {"blob": payload})
                self.assertEqual(await caller.call("bench.echo", payload), payload)
                chunks = []
                total = await caller.call(
                    "bench.transfer", 100_000, 40_000,
                    options=types.CallOptions(on_progress=lambda o, b: chunks.append((o, b))))
                self.assertEqual(total, 100_000)
                self.assertEqual([o for o, _ in chunks], [0, 40_000, 80_000])
                for offset, data in chunks:
                    self.assertEqual(data, pattern(offset, min(40_000, 100_000 - offset)))
                event = loop.create_future()
                topic = f"test.tls.topic.{transport}.{serializer}.{version}"
                await callee.subscribe(
                    lambda *a, **kw: event.done() or event.set_result((list(a), kw)), topic)
                await caller.publish(topic, 1, payload, key="v",
                                     options=types.PublishOptions(acknowledge=True))
                self.assertEqual(await asyncio.wait_for(event, TIMEOUT),
                                 ([1, payload], {"key": "v"}))
            await plain.close(caller)
            await plain.close(callee)

        async def scenario(expected):
            for combination in itertools.product(TRANSPORTS, SERIALIZERS, VERSIONS):
                with self.subTest(combination=combination):
                    await one_row(expected, *combination)

        self.run_counting(scenario)

    def test_a_client_that_does_not_trust_the_ca_is_refused(self):
        async def scenario(expected):
            context = client_context(os.path.join(self.stranger, "ca.pem"))
            for transport in TRANSPORTS:
                row = {"protocol": f"wamp/{transport}", "serializer": "json", "tls": "-",
                       "alpn": "-", "auth": "anonymous", "ca": "another"}
                with reported(row, "refused"):
                    with self.assertRaises(ssl.SSLCertVerificationError) as refused:
                        await self.join(transport, "json", context)
                    self.assertIn("certificate verify failed", str(refused.exception))
                # asyncio's TLS layer drops the connection on a failed verification without
                # sending OpenSSL's alert (unknown CA): the router sees the peer go.
                expected[failure_key(transport, "peer_closed")] = 1

        self.run_counting(scenario)

    def test_a_cleartext_client_never_joins(self):
        async def scenario(expected):
            loop = asyncio.get_running_loop()
            for transport in TRANSPORTS:
                # Autobahn's WebSocket upgrade request or RawSocket hello, in cleartext: the
                # router's TLS handshake fails on it and closes the connection.
                joined = loop.create_future()
                config = types.ComponentConfig(realm="realm1",
                                               extra={"joined": joined, "left": None})
                connection, _ = await open_transport(
                    self.router.process.port(transport), transport, lambda: plain.Client(config),
                    SERIALIZERS["json"]())
                deadline = loop.time() + TIMEOUT
                while not connection.is_closing() and loop.time() < deadline:
                    await asyncio.sleep(0.01)
                self.assertTrue(connection.is_closing(), transport)
                self.assertFalse(joined.done() and not joined.exception(), transport)
                expected[failure_key(transport, "not_tls")] = 1

        self.run_counting(scenario)


class AutobahnAuthenticationOverTls(CaseWithCertificates):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        path = os.path.join(cls.folder, "auth.toml")
        with open(path, "w") as out:
            out.write(authn.AUTH_CONFIG)
        cls.router = TlsRouter(cls.trusted, lambda *tls: authn.RouterProcess(path, *tls))

    def test_every_method_joins_over_both_tls_transports_and_a_wrong_ticket_is_refused(self):
        before_tls = self.router.tls_counts()
        before_auth = self.router.process.metrics()
        expected_tls, expected_auth = {}, {}

        def count(table, key):
            table[key] = table.get(key, 0) + 1

        async def scenario():
            context = client_context(self.ca)
            for transport in TRANSPORTS:
                for name, (authenticator, authid, authmethod) in authn.METHODS.items():
                    with self.subTest(transport=transport, method=name):
                        session, details, left = await authn.connect(
                            self.router.process, transport, authenticator, tls=context)
                        version, alpn = tls_of(session)
                        count(expected_tls, handshake_key(transport, version, alpn))
                        count(expected_auth, ("benchgate_router_wamp_auth_welcomed_total",
                                              f'method="{authn.METHOD_LABEL[name]}"'))
                        row = {"protocol": f"wamp/{transport}",
                               "serializer": authn.SERIALIZERS[transport].SERIALIZER_ID,
                               "tls": version, "alpn": alpn or "-", "auth": name}
                        with reported(row):
                            self.assertEqual(version, "TLSv1.3")
                            self.assertEqual((details.authid, details.authrole,
                                              details.authmethod), (authid, "member", authmethod))
                            procedure = f"test.tls.{transport}.{name}.echo"
                            await session.register(lambda x: x, procedure)
                            self.assertEqual(await session.call(procedure, name), name)
                        await authn.close(session, left)
                with self.assertRaises(ApplicationError) as refused:
                    await authn.connect(self.router.process, transport, authn.WRONG["ticket"],
                                        tls=context)
                self.assertEqual(refused.exception.error, "wamp.error.not_authorized")
                # The handshake succeeded; the credentials did not.
                count(expected_tls, handshake_key(transport, "TLSv1.3", None))
                count(expected_auth, ("benchgate_router_wamp_auth_refused_total",
                                      'method="ticket",reason="bad_credentials"'))

        plain.run(scenario())
        self.assertEqual(self.router.wait_for_counts(before_tls, expected_tls), expected_tls)
        after_auth = self.router.process.metrics()
        grown = {key: value - before_auth.get(key, 0) for key, value in after_auth.items()
                 if value != before_auth.get(key, 0)}
        self.assertEqual(grown, expected_auth)


def main():
    global ROUTER
    parser = argparse.ArgumentParser()
    parser.add_argument("--router", required=True)
    args, rest = parser.parse_known_args()
    ROUTER = plain.ROUTER = authn.ROUTER = args.router
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
