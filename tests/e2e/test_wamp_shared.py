"""WAMP shared registrations, call timeouts and call cancellation through the real binaries.

The orchestrator starts the bundled router and a worker whose own callee sessions register
the procedure. Round robin over 3 callee sessions: each repetition's calls are split over them
to within one (calls // 3 each, the remainder one more), together exactly the calls, which the
router routed. A callee 10x slower than the call's timeout makes every call a call_timeout
error (not a wamp_error), as many as the router timed out; a callee that holds every call
longer than cancel_after makes every call a canceled error, as many as the router cancelled.
The kinds are in the JSON, the terminal and SQLite; the workloads that fail every call on
purpose set expect_failures = true, so they stay ok and the run exits 0 (no gate).
"""
import json
import os
import shutil
import sqlite3
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

SCENARIO = """
name = "e2e_wamp_shared"
[router]
impl = "builtin"

[defaults]
warmup = "200ms"
duration = "400ms"
repetitions = 2
threads = 2

[[workloads]]
name = "roundrobin"
protocol = "wamp_rpc"
transport = "websocket"
serializer = "msgpack"
callee = "worker"
procedure = "e2e.shared.echo"
callee_sessions = 3
invoke = "roundrobin"
request_bytes = 256
connections = 4
in_flight = 2

[[workloads]]
name = "timeouts"
expect_failures = true
protocol = "wamp_rpc"
transport = "rawsocket"
serializer = "json"
callee = "worker"
procedure = "e2e.shared.slow"
callee_sessions = 2
invoke = "random"
callee_delay = "200ms"
call_timeout = "20ms"
request_bytes = 64
connections = 2
in_flight = 2

[[workloads]]
name = "cancel_kill"
expect_failures = true
protocol = "wamp_rpc"
transport = "websocket"
serializer = "cbor"
callee = "worker"
procedure = "e2e.shared.cancel"
callee_delay = "300ms"
cancel_after = "10ms"
cancel_mode = "kill"
request_bytes = 64
connections = 2
in_flight = 2
"""


class WampSharedTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-shared-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_shared_registration_timeouts_and_cancellation_are_counted_exactly(self):
        path = write_scenario(self.dir, "shared.toml", SCENARIO)
        out = os.path.join(self.dir, "out.json")
        db = os.path.join(self.dir, "db.sqlite")
        run = Run(["run", path, "--json", out, "--db", db])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        report = load_json(out)
        workloads = {w["name"]: w for w in report["scenarios"][0]["workloads"]}

        rr = workloads["roundrobin"]
        self.assertEqual(rr["parameters"]["wamp"]["invoke"], "roundrobin")
        self.assertEqual(rr["parameters"]["wamp"]["callee_sessions"], 3)
        self.assertEqual(len(rr["repetitions"]), 2)
        for rep in rr["repetitions"]:
            calls = rep["operations"]
            self.assertGreater(calls, 0)
            self.assertEqual(rep["errors"], 0, rep["errors_by_kind"])
            self.assertEqual(rep["successes"], calls)
            split = rep["callee_invocations"]
            self.assertEqual(len(split), 3, split)
            self.assertEqual(sum(split), calls)
            self.assertEqual(min(split), calls // 3, split)
            self.assertLessEqual(max(split) - min(split), 1, split)
            self.assertEqual(rep["router"]["counters"]["wamp_calls_routed"], calls)
        self.assertIn("callees: 3 session(s) (invoke roundrobin)", run.stdout)

        timeouts = workloads["timeouts"]
        self.assertEqual(timeouts["status"], "ok", timeouts)
        for rep in timeouts["repetitions"]:
            calls = rep["operations"]
            self.assertGreater(calls, 0)
            self.assertEqual(rep["successes"], 0)
            self.assertEqual(rep["errors_by_kind"], {"call_timeout": calls}, rep)
            self.assertEqual(sum(rep["callee_invocations"]), calls)
            counters = rep["router"]["counters"]
            self.assertEqual(counters["wamp_calls_timed_out"], calls)
            self.assertEqual(counters["wamp_calls_routed"], calls)

        cancel = workloads["cancel_kill"]
        self.assertEqual(cancel["status"], "ok", cancel)
        for rep in cancel["repetitions"]:
            calls = rep["operations"]
            self.assertGreater(calls, 0)
            self.assertEqual(rep["successes"], 0)
            self.assertEqual(rep["errors_by_kind"], {"canceled": calls}, rep)
            self.assertEqual(rep["callee_invocations"], [calls])
            counters = rep["router"]["counters"]
            self.assertEqual(counters["wamp_calls_canceled"], calls)
            self.assertEqual(counters["wamp_calls_timed_out"], 0)
        self.assertIn("call_timeout", run.stdout)
        self.assertIn("canceled", run.stdout)

        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT w.name, r.operations, r.errors_by_kind FROM repetitions r "
                "JOIN workloads w ON r.workload_id = w.id").fetchall()
        kinds = {"timeouts": "call_timeout", "cancel_kill": "canceled"}
        for name, operations, errors_by_kind in rows:
            errors = json.loads(errors_by_kind) if errors_by_kind else {}
            if name in kinds:
                self.assertEqual(errors, {kinds[name]: operations}, name)
            else:
                self.assertEqual(errors, {}, name)


if __name__ == "__main__":
    unittest.main()
