"""WAMP session establishment through the real binaries.

Every WAMP session the worker sets up is timed from its TCP connect to WELCOME. A wamp_rpc
workload with session_per_operation = true opens a session per call, so after the first
repetition (which also holds the sessions made for Ready and the warm-up) each repetition's
sessions equal its calls exactly, and the router routed each call once. A workload that keeps
its sessions sets them up once, before its first window. The figure is in the RESULT line,
JSON, the terminal, SQLite, and a gate on session_setup.p99 judges it, live and again from
the store (`orchestrator gate RUN`) alike.
"""
import os
import shutil
import sqlite3
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

SCENARIO = """
name = "e2e_wamp_session_setup"
[router]
impl = "builtin"

[defaults]
warmup = "200ms"
duration = "400ms"
repetitions = 3
threads = 1

[[workloads]]
name = "rpc_session_per_call"
protocol = "wamp_rpc"
transport = "rawsocket"
serializer = "msgpack"
request_bytes = 64
connections = 2
session_per_operation = true

[[workloads]]
name = "rpc_kept_sessions"
protocol = "wamp_rpc"
transport = "websocket"
serializer = "json"
request_bytes = 64
connections = 3

[[gates]]
workload = "rpc_*"
metric = "session_setup.p99"
max = "60s"
"""


class WampSessionSetupTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-session-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_sessions_are_timed_and_a_session_per_call_counts_one_per_operation(self):
        path = write_scenario(self.dir, "sessions.toml", SCENARIO)
        out = os.path.join(self.dir, "out.json")
        db = os.path.join(self.dir, "db.sqlite")
        run = Run(["run", path, "--json", out, "--db", db])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        self.assertIn("a session per call", run.stdout)
        self.assertIn("connect to WELCOME p50", run.stdout)
        report = load_json(out)
        scenario = report["scenarios"][0]
        workloads = {w["name"]: w for w in scenario["workloads"]}

        per_call = workloads["rpc_session_per_call"]
        self.assertTrue(per_call["parameters"]["wamp"]["session_per_operation"])
        for i, rep in enumerate(per_call["repetitions"]):
            self.assertEqual(rep["errors"], 0)
            operations = rep["operations"]
            self.assertGreater(operations, 0)
            self.assertEqual(rep["successes"], operations)
            self.assertEqual(rep["router"]["counters"]["wamp_calls_routed"], operations)
            # Each call's session is a lifecycle of its own: the transfer sums count the echoed
            # 64-byte payload once per call, over its data window and over its lifecycle.
            transfer = rep["transfer"]
            self.assertEqual(transfer["transfers"], operations)
            self.assertEqual(transfer["data_bytes"], 64 * operations)
            self.assertEqual(transfer["lifecycle_bytes"], 64 * operations)
            self.assertGreater(transfer["lifecycle_ns"], transfer["data_ns"])
            self.assertGreater(transfer["data_ns"], 0)
            sessions = rep["session_setup"]["count"]
            if i == 0:
                # Two sessions for Ready, and the warm-up's calls, come with the first.
                self.assertGreaterEqual(sessions, operations + 2)
            else:
                self.assertEqual(sessions, operations, i)

        kept = workloads["rpc_kept_sessions"]
        reps = kept["repetitions"]
        self.assertEqual(reps[0]["session_setup"]["count"], 3)
        for rep in reps[1:]:
            self.assertIsNone(rep["session_setup"], "no session set up: not measured, never 0")
        self.assertEqual(kept["summary"]["session_setup"]["count"], 3)

        lines = {line["workload"]: line for line in run.result_lines()}
        for name in ("rpc_session_per_call", "rpc_kept_sessions"):
            self.assertNotEqual(lines[name]["session_setup_p50_us"], "-", name)
        for field in ("data_window_gbps", "lifecycle_gbps"):
            self.assertNotEqual(lines["rpc_session_per_call"][field], "-", field)
            self.assertEqual(lines["rpc_kept_sessions"][field], "-", field)
        self.assertIn("Gbit/s over the lifecycle", run.stdout)
        for rep in kept["repetitions"]:
            self.assertIsNone(rep["transfer"], "sessions kept: no lifecycle per call")
        verdicts = {g["workload"]: g["verdict"] for g in scenario["gates"]}
        self.assertEqual(verdicts, {"rpc_session_per_call": "pass", "rpc_kept_sessions": "pass"})

        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT w.name, r.idx, r.operations, r.sessions, r.session_setup_p99_ns "
                "FROM repetitions r JOIN workloads w ON r.workload_id = w.id").fetchall()
        for name, idx, operations, sessions, p99 in rows:
            if name == "rpc_session_per_call" and idx > 0:
                self.assertEqual(sessions, operations)
                self.assertGreater(p99, 0)
            if name == "rpc_kept_sessions" and idx > 0:
                self.assertEqual((sessions, p99), (0, None))

        # Judged again from the store, the verdicts are the live ones: a repetition that set up
        # no session had nothing to measure, in SQLite as in memory.
        again_out = os.path.join(self.dir, "again.json")
        again = Run(["gate", str(scenario["run_id"]), "--db", db, "--json", again_out])
        self.runs.append(again)
        again.run(timeout=60)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        again_gates = load_json(again_out)["scenarios"][0]["gates"]
        self.assertEqual({g["workload"]: (g["verdict"], g["observed"]) for g in again_gates},
                         {g["workload"]: (g["verdict"], g["observed"]) for g in scenario["gates"]})


if __name__ == "__main__":
    unittest.main()
