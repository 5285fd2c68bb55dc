#!/usr/bin/python3
"""The router's advanced-profile dealer against Autobahn|Python.

The real router binary (started with --ws-fragment-bytes, so that every large answer over
WebSocket also crosses Autobahn's reassembly) and Autobahn's asyncio clients over WebSocket
and RawSocket with JSON, MessagePack and CBOR: progressive call results (from an Autobahn
callee, and from the router's own bench.transfer with every byte checked against the
pattern), shared registrations (round robin checked call by call, random within its
callees), call timeouts (wamp.error.timeout, the callee's invocation interrupted), call
cancellation from the caller (wamp.error.canceled, the callee interrupted) and the meta
procedure wamp.session.count.

Usage: test_autobahn_advanced.py --router PATH [unittest arguments]
Exit status 77 (CTest: skipped) when Autobahn is not installed.
"""

import argparse
import asyncio
import itertools
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_autobahn_interop as base  # exits 77 without Autobahn  # noqa: E402
from autobahn.wamp import types  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402

COMBINATIONS = list(itertools.product(base.TRANSPORTS, base.SERIALIZERS))
FRAGMENT = 4096


def pattern(offset, size):
    return bytes(ord("a") + (offset + i) % 26 for i in range(size))


class AutobahnAdvanced(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.router = base.RouterProcess("--ws-fragment-bytes", str(FRAGMENT))

    @classmethod
    def tearDownClass(cls):
        code = cls.router.stop()
        assert code == 0, f"router exited with {code}: {cls.router.process.stderr.read()}"

    def test_progressive_results_from_an_autobahn_callee(self):
        async def scenario():
            for (callee_t, callee_s), (caller_t, caller_s) in zip(
                COMBINATIONS, COMBINATIONS[1:] + COMBINATIONS[:1]
            ):
                label = f"callee {callee_t}/{callee_s}, caller {caller_t}/{caller_s}"
                callee, _ = await base.connect(self.router, callee_t, callee_s)
                caller, _ = await base.connect(self.router, caller_t, caller_s)
                procedure = f"test.progress.{callee_t}.{callee_s}"

                def count_up(n, details=None):
                    for i in range(n):
                        details.progress(i, pattern(i, 5000))
                    return n

                await callee.register(
                    count_up, procedure, options=types.RegisterOptions(details_arg="details")
                )
                progress = []
                result = await caller.call(
                    procedure, 4,
                    options=types.CallOptions(on_progress=lambda i, b: progress.append((i, b))),
                )
                self.assertEqual(result, 4, label)
                self.assertEqual(progress, [(i, pattern(i, 5000)) for i in range(4)], label)
                await base.close(caller)
                await base.close(callee)

        base.run(scenario())

    def test_bench_transfer_chunks_are_the_pattern_byte_for_byte(self):
        async def scenario():
            total, chunk = 1_000_000, 300_000
            for transport, serializer in COMBINATIONS:
                label = f"{transport}/{serializer}"
                caller, _ = await base.connect(self.router, transport, serializer)
                chunks = []
                result = await caller.call(
                    "bench.transfer", total, chunk,
                    options=types.CallOptions(on_progress=lambda o, b: chunks.append((o, b))),
                )
                self.assertEqual(result, total, label)
                self.assertEqual([o for o, _ in chunks], [0, 300_000, 600_000, 900_000], label)
                for offset, data in chunks:
                    self.assertEqual(data, pattern(offset, min(chunk, total - offset)), label)
                await base.close(caller)

        base.run(scenario())

    def test_round_robin_hands_calls_to_the_callees_in_turn(self):
        async def scenario():
            callees = []
            for index, (transport, serializer) in enumerate(COMBINATIONS[:3]):
                session, _ = await base.connect(self.router, transport, serializer)

                def whoami(_index=index):
                    return _index

                await session.register(
                    whoami, "test.rr", options=types.RegisterOptions(invoke="roundrobin")
                )
                callees.append(session)
            for transport, serializer in COMBINATIONS:
                caller, _ = await base.connect(self.router, transport, serializer)
                answers = [await caller.call("test.rr") for _ in range(9)]
                # Each caller continues the registration's turn where the last one left it.
                self.assertEqual(sorted(answers), [0, 0, 0, 1, 1, 1, 2, 2, 2])
                first = answers[0]
                self.assertEqual(answers, [(first + i) % 3 for i in range(9)],
                                 (transport, serializer))
                await base.close(caller)
            for session in callees:
                await base.close(session)

        base.run(scenario())

    def test_random_and_mismatched_policies(self):
        async def scenario():
            callees = []
            for index, (transport, serializer) in enumerate(COMBINATIONS[2:4]):
                session, _ = await base.connect(self.router, transport, serializer)
                await session.register(
                    lambda _index=index: _index, "test.random",
                    options=types.RegisterOptions(invoke="random"),
                )
                callees.append(session)
            caller, _ = await base.connect(self.router, "rawsocket", "cbor")
            answers = [await caller.call("test.random") for _ in range(20)]
            self.assertTrue(set(answers) <= {0, 1}, answers)
            other, _ = await base.connect(self.router, "websocket", "json")
            with self.assertRaises(ApplicationError) as refused:
                await other.register(lambda: 9, "test.random",
                                     options=types.RegisterOptions(invoke="roundrobin"))
            self.assertEqual(refused.exception.error,
                             "wamp.error.procedure_exists_with_different_invocation_policy")
            for session in [caller, other, *callees]:
                await base.close(session)

        base.run(scenario())

    @staticmethod
    def quiet_cancellations():
        """txaio reports each interrupted invocation's CancelledError through the loop's
        exception handler; that is the expected outcome here, not an error."""
        loop = asyncio.get_running_loop()

        def handler(_loop, context):
            if not isinstance(context.get("exception"), asyncio.CancelledError):
                _loop.default_exception_handler(context)

        loop.set_exception_handler(handler)
        return loop

    def slow_callee(self, session, procedure, interrupted):
        async def slow():
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                if not interrupted.done():
                    interrupted.set_result(True)
                raise
            return "too late"

        return session.register(slow, procedure)

    def test_call_timeout_is_answered_with_timeout_and_interrupts_the_callee(self):
        async def scenario():
            loop = self.quiet_cancellations()
            for transport, serializer in COMBINATIONS:
                label = f"{transport}/{serializer}"
                callee, _ = await base.connect(self.router, transport, serializer)
                caller, _ = await base.connect(self.router, transport, serializer)
                interrupted = loop.create_future()
                procedure = f"test.timeout.{transport}.{serializer}"
                await self.slow_callee(callee, procedure, interrupted)
                with self.assertRaises(ApplicationError) as timed_out:
                    await caller.call(procedure, options=types.CallOptions(timeout=100))
                self.assertEqual(timed_out.exception.error, "wamp.error.timeout", label)
                self.assertTrue(await asyncio.wait_for(interrupted, base.TIMEOUT), label)
                await base.close(caller)
                await base.close(callee)

        base.run(scenario())

    def test_cancel_from_the_caller_interrupts_the_callee(self):
        async def scenario():
            loop = self.quiet_cancellations()
            for transport, serializer in COMBINATIONS:
                label = f"{transport}/{serializer}"
                callee, _ = await base.connect(self.router, transport, serializer)
                caller, _ = await base.connect(self.router, transport, serializer)
                interrupted = loop.create_future()
                procedure = f"test.cancel.{transport}.{serializer}"
                await self.slow_callee(callee, procedure, interrupted)
                call = caller.call(procedure)
                # The INVOCATION has reached the callee once the router answers a later call.
                self.assertEqual(await caller.call("bench.echo", 1), 1)
                call.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await call
                self.assertTrue(await asyncio.wait_for(interrupted, base.TIMEOUT), label)
                # The session goes on: the router answered the CANCEL, nothing is left over.
                self.assertEqual(await caller.call("bench.echo", 2), 2, label)
                await base.close(caller)
                await base.close(callee)

        base.run(scenario())

    def test_session_count_counts_the_realm(self):
        async def scenario():
            sessions = []
            for transport, serializer in COMBINATIONS[:3]:
                session, _ = await base.connect(self.router, transport, serializer, "realm.count")
                sessions.append(session)
            other, _ = await base.connect(self.router, "rawsocket", "json", "realm.other")
            for session in sessions:
                self.assertEqual(await session.call("wamp.session.count"), 3)
            self.assertEqual(await other.call("wamp.session.count"), 1)
            for session in [*sessions, other]:
                await base.close(session)

        base.run(scenario())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--router", required=True)
    args, rest = parser.parse_known_args()
    base.ROUTER = args.router
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
