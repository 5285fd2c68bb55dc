#!/usr/bin/python3
"""Autobahn|Python authenticating to the bundled WAMP router (router --auth-config).

Writes an auth config, starts the real router binary on loopback ports it picks, and joins
with Autobahn's own authenticators over WebSocket and RawSocket: ticket, WAMP-CRA (plain and
salted secret), WAMP-SCRAM (Argon2id: Autobahn 22.7's PBKDF2 path cannot run, it hands the
base64 salt text to a function that wants bytes) and WAMP-cryptosign (Ed25519 keys from
PyNaCl). Checks what WELCOME says, that wrong credentials are refused with ABORT
wamp.error.not_authorized, that a role's permissions hold (a call, a register, a subscribe
outside them get ERROR wamp.error.not_authorized) and that the router's Prometheus counters
equal what the clients did.

Usage: test_autobahn_auth.py --router PATH [unittest arguments]
Exit status 77 (CTest: skipped) when Autobahn, argon2-cffi, passlib or PyNaCl is missing.
"""

import argparse
import asyncio
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import autobahn_client  # exits 77 without Autobahn  # noqa: E402
from autobahn_client import TIMEOUT, TRANSPORTS, open_transport  # noqa: E402

try:
    import nacl.signing
    from autobahn.asyncio.wamp import Session
    from autobahn.wamp import auth, types
    from autobahn.wamp.exception import ApplicationError
    from autobahn.wamp.serializer import JsonSerializer, MsgPackSerializer

    if not auth.HAS_ARGON:
        raise ImportError("argon2-cffi and passlib (Autobahn's WAMP-SCRAM)")
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipping: a package Autobahn authentication needs is missing ({error})")
    sys.exit(77)

ROUTER = None  # path, from the command line
SERIALIZERS = {"websocket": JsonSerializer, "rawsocket": MsgPackSerializer}

CRYPTOSIGN_KEY = nacl.signing.SigningKey(bytes(range(32)))
STRANGER_KEY = nacl.signing.SigningKey(bytes(range(1, 33)))
SCRAM_SALT = "c2FsdC1mb3ItZGF2ZQ=="  # base64 of b"salt-for-dave"

AUTH_CONFIG = f"""
[[realm]]
name = "realm1"

[[realm.role]]
name = "member"
permissions = [{{ prefix = "test.", allow = ["call", "register", "publish", "subscribe"] }}]

[[realm.role]]
name = "limited"
permissions = [
  {{ prefix = "test.", allow = ["call"] }},
  {{ prefix = "test.secret.", allow = [] }},
]

[[realm.principal]]
authid = "alice"
role = "member"
method = "ticket"
secret = "alice-ticket"

[[realm.principal]]
authid = "bob"
role = "member"
method = "wampcra"
secret = "bob-secret"

[[realm.principal]]
authid = "carol"
role = "member"
method = "wampcra"
secret = "carol-secret"
salt = "carol-salt"
iterations = 100
keylen = 32

[[realm.principal]]
authid = "dave"
role = "member"
method = "wamp-scram"
secret = "dave-password"
kdf = "argon2id13"
salt = "{SCRAM_SALT}"
iterations = 2
memory = 1024

[[realm.principal]]
authid = "eve"
role = "member"
method = "cryptosign"
pubkey = "{CRYPTOSIGN_KEY.verify_key.encode().hex()}"

[[realm.principal]]
authid = "mallory"
role = "limited"
method = "ticket"
secret = "mallory-ticket"
"""

# name -> (authenticator arguments, authid, authmethod WELCOME names)
METHODS = {
    "ticket": (("ticket", dict(authid="alice", ticket="alice-ticket")), "alice", "ticket"),
    "wampcra": (("wampcra", dict(authid="bob", secret="bob-secret")), "bob", "wampcra"),
    "wampcra_salted": (("wampcra", dict(authid="carol", secret="carol-secret")), "carol", "wampcra"),
    "scram": (("scram", dict(authid="dave", password="dave-password", kdf="argon2id13")), "dave",
              "scram"),
    "cryptosign": (("cryptosign", dict(authid="eve", privkey=bytes(CRYPTOSIGN_KEY).hex())), "eve",
                   "cryptosign"),
}
WRONG = {
    "ticket": ("ticket", dict(authid="alice", ticket="not-the-ticket")),
    "wampcra": ("wampcra", dict(authid="bob", secret="not-the-secret")),
    "wampcra_salted": ("wampcra", dict(authid="carol", secret="not-the-secret")),
    "scram": ("scram", dict(authid="dave", password="not-the-password", kdf="argon2id13")),
    "cryptosign": ("cryptosign", dict(authid="eve", privkey=bytes(STRANGER_KEY).hex())),
}
METHOD_LABEL = {"ticket": "ticket", "wampcra": "wampcra", "wampcra_salted": "wampcra",
                "scram": "scram", "cryptosign": "cryptosign"}


class RouterProcess(autobahn_client.RouterProcess):
    def __init__(self, config_path, *extra, cwd=None):
        super().__init__(ROUTER, "--auth-config", config_path, "--metrics-listen", "127.0.0.1:0",
                         *extra, cwd=cwd)

    def metrics(self):
        """The router's authentication counters: {(name, labels text): value}."""
        out = {}
        for line in self.metrics_text().splitlines():
            match = re.match(r"^(benchgate_router_wamp_auth\w*)\{(.*)\} (\S+)$", line)
            if match:
                out[(match.group(1), match.group(2))] = float(match.group(3))
        return out


class Client(Session):
    """A session with one authenticator that reports joining and leaving through futures."""

    def __init__(self, config, authenticator):
        super().__init__(config)
        self.add_authenticator(auth.create_authenticator(authenticator[0], **authenticator[1]))

    def onJoin(self, details):
        joined = self.config.extra["joined"]
        if not joined.done():
            joined.set_result((self, details))

    def onLeave(self, details):
        left = self.config.extra["left"]
        if not left.done():
            left.set_result(details)
        joined = self.config.extra["joined"]
        if not joined.done():
            joined.set_exception(ApplicationError(details.reason, details.message))
        self.disconnect()

    def onDisconnect(self):
        joined = self.config.extra["joined"]
        if not joined.done():
            joined.set_exception(ConnectionError("disconnected before joining"))


async def connect(router, transport, authenticator, realm="realm1", tls=None, serializer=None):
    """Joins `realm` (over TLS with `tls`, an ssl.SSLContext; with the transport's serializer of
    SERIALIZERS unless another is given); returns (session, SessionDetails, future of
    CloseDetails)."""
    loop = asyncio.get_running_loop()
    joined, left = loop.create_future(), loop.create_future()
    config = types.ComponentConfig(realm=realm, extra={"joined": joined, "left": left})
    await open_transport(router.port(transport), transport,
                         lambda: Client(config, authenticator),
                         serializer or SERIALIZERS[transport](), tls=tls)
    session, details = await asyncio.wait_for(joined, TIMEOUT)
    return session, details, left


async def close(session, left):
    if session.is_attached():
        session.leave()
        await asyncio.wait_for(left, TIMEOUT)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


class AutobahnAuth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        path = os.path.join(cls.folder.name, "auth.toml")
        with open(path, "w") as out:
            out.write(AUTH_CONFIG)
        cls.router = RouterProcess(path)
        cls.expected = {}  # (family, labels) -> count the clients caused

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        cls.folder.cleanup()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def expect(self, family, labels):
        key = (family, labels)
        self.expected[key] = self.expected.get(key, 0) + 1

    def check_counters(self):
        seen = self.router.metrics()
        for key, count in self.expected.items():
            self.assertEqual(seen.get(key), count, key)
        # Nothing counted that the clients did not cause.
        for key, value in seen.items():
            if value:
                self.assertIn(key, self.expected, f"{key} = {value}")

    def test_1_every_method_joins_and_routes_over_both_transports(self):
        async def scenario():
            for transport in TRANSPORTS:
                for name, (authenticator, authid, authmethod) in METHODS.items():
                    with self.subTest(transport=transport, method=name):
                        session, details, left = await connect(self.router, transport,
                                                               authenticator)
                        self.assertEqual(details.authid, authid)
                        self.assertEqual(details.authrole, "member")
                        self.assertEqual(details.authmethod, authmethod)
                        procedure = f"test.{transport}.{name}.echo"
                        await session.register(lambda x: x, procedure)
                        self.assertEqual(await session.call(procedure, name), name)
                        await close(session, left)
                        self.expect("benchgate_router_wamp_auth_welcomed_total",
                                    f'method="{METHOD_LABEL[name]}"')
        run(scenario())
        self.check_counters()

    def test_2_wrong_credentials_are_refused(self):
        async def scenario():
            for transport in TRANSPORTS:
                for name, authenticator in WRONG.items():
                    with self.subTest(transport=transport, method=name):
                        with self.assertRaises(ApplicationError) as refused:
                            await connect(self.router, transport, authenticator)
                        self.assertEqual(refused.exception.error, "wamp.error.not_authorized")
                        # eve announcing another public key than hers is no principal,
                        # counted as the wrong credential it looks like to her.
                        self.expect("benchgate_router_wamp_auth_refused_total",
                                    f'method="{METHOD_LABEL[name]}",reason="bad_credentials"')
        run(scenario())
        self.check_counters()

    def test_3_unknown_authid_and_realm_are_refused(self):
        async def scenario():
            with self.assertRaises(ApplicationError) as refused:
                await connect(self.router, "websocket",
                              ("ticket", dict(authid="nobody", ticket="x")))
            self.assertEqual(refused.exception.error, "wamp.error.not_authorized")
            # Counted as a wrong ticket: /metrics does not tell which authids exist.
            self.expect("benchgate_router_wamp_auth_refused_total",
                        'method="ticket",reason="bad_credentials"')
            with self.assertRaises(ApplicationError) as refused:
                await connect(self.router, "rawsocket", METHODS["ticket"][0], realm="nowhere")
            self.assertEqual(refused.exception.error, "wamp.error.no_such_realm")
            # Counted under the method the HELLO offered (router/README.md).
            self.expect("benchgate_router_wamp_auth_refused_total",
                        'method="ticket",reason="no_such_realm"')
        run(scenario())
        self.check_counters()

    def test_4_a_role_only_does_what_its_permissions_allow(self):
        async def scenario():
            member, _, member_left = await connect(self.router, "rawsocket",
                                                   METHODS["ticket"][0])
            await member.register(lambda: "ok", "test.open.ping")
            await member.register(lambda: "hidden", "test.secret.ping")
            self.expect("benchgate_router_wamp_auth_welcomed_total", 'method="ticket"')
            limited, details, left = await connect(
                self.router, "websocket", ("ticket", dict(authid="mallory", ticket="mallory-ticket")))
            self.assertEqual(details.authrole, "limited")
            self.expect("benchgate_router_wamp_auth_welcomed_total", 'method="ticket"')
            self.assertEqual(await limited.call("test.open.ping"), "ok")
            for action, attempt in (
                ("call", lambda: limited.call("test.secret.ping")),
                ("register", lambda: limited.register(lambda: None, "test.mine")),
                ("subscribe", lambda: limited.subscribe(lambda: None, "test.news")),
                ("publish", lambda: limited.publish("test.news", options=types.PublishOptions(
                    acknowledge=True))),
            ):
                with self.subTest(action=action):
                    with self.assertRaises(ApplicationError) as denied:
                        await attempt()
                    self.assertEqual(denied.exception.error, "wamp.error.not_authorized")
                    self.expect("benchgate_router_wamp_authorization_denied_total",
                                f'action="{action}"')
            # The session survives its refusals.
            self.assertEqual(await limited.call("test.open.ping"), "ok")
            await close(limited, left)
            await close(member, member_left)
        run(scenario())
        self.check_counters()


def main():
    global ROUTER
    parser = argparse.ArgumentParser()
    parser.add_argument("--router", required=True)
    args, rest = parser.parse_known_args()
    ROUTER = args.router
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
