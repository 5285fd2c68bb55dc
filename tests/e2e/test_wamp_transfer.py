"""wamp_transfer through the real binaries.

The orchestrator runs wamp_transfer workloads against the bundled router's bench.transfer:
every operation is one session (connect, join, one CALL with receive_progress, the progressive
results, GOODBYE, close), and the worker checks every chunk byte for byte. Zero errors, the
router's calls routed equal the workers' operations, the router's wamp_transfer_bytes equals
the bytes the workers verified, and both transfer rates are in every output (RESULT line, JSON,
terminal, SQLite). A chunk larger than the transfer is refused at load time with its
file:line:column.
"""
import os
import shutil
import sqlite3
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

TRANSFER = 1 << 20  # 1 MiB in chunks of 60000 bytes, the last one shorter: 18 chunks
CHUNK = 60000

SCENARIO = f"""
name = "e2e_wamp_transfer"
[router]
impl = "builtin"

[defaults]
warmup = "200ms"
duration = "500ms"
repetitions = 2
threads = 1

[[workloads]]
name = "transfer_ws_json"
protocol = "wamp_transfer"
transport = "websocket"
serializer = "json"
transfer_bytes = "1MiB"
chunk_bytes = {CHUNK}
connections = 2

[[workloads]]
name = "transfer_rs_cbor"
protocol = "wamp_transfer"
transport = "rawsocket"
serializer = "cbor"
transfer_bytes = "1MiB"
chunk_bytes = {CHUNK}
connections = 1

[[workloads]]
name = "transfer_ws_msgpack_one_chunk"
protocol = "wamp_transfer"
transport = "websocket"
serializer = "msgpack"
transfer_bytes = "64KiB"
chunk_bytes = "64KiB"
connections = 1
"""

BAD = """
name = "e2e_wamp_transfer_bad"
[router]
impl = "builtin"

[[workloads]]
name = "t"
protocol = "wamp_transfer"
transfer_bytes = "1MiB"
chunk_bytes = "2MiB"
"""


class WampTransferTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-transfer-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_every_byte_verified_and_counted_by_the_router(self):
        path = write_scenario(self.dir, "transfer.toml", SCENARIO)
        out = os.path.join(self.dir, "out.json")
        db = os.path.join(self.dir, "db.sqlite")
        run = Run(["run", path, "--json", out, "--db", db])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        self.assertIn("wamp_transfer bench.transfer over websocket/json, 1048576 B in 60000 B "
                      "chunks, 2 sessions", run.stdout)
        self.assertIn("Gbit/s over the data window", run.stdout)
        report = load_json(out)
        workloads = {w["name"]: w for w in report["scenarios"][0]["workloads"]}
        for name, total, chunk in (("transfer_ws_json", TRANSFER, CHUNK),
                                   ("transfer_rs_cbor", TRANSFER, CHUNK),
                                   ("transfer_ws_msgpack_one_chunk", 65536, 65536)):
            workload = workloads[name]
            self.assertEqual(workload["parameters"]["wamp"]["transfer_bytes"], total, name)
            for rep in workload["repetitions"]:
                self.assertEqual(rep["errors"], 0, name)
                operations = rep["operations"]
                self.assertGreater(operations, 0, name)
                self.assertEqual(rep["successes"], operations, name)
                transfer = rep["transfer"]
                self.assertEqual(transfer["transfers"], operations, name)
                self.assertEqual(transfer["lifecycle_bytes"], operations * total, name)
                counters = rep["router"]["counters"]
                self.assertEqual(counters["wamp_calls_routed"], operations, name)
                # Every byte the router sent was verified by a worker, and no more.
                self.assertEqual(counters["wamp_transfer_bytes"], operations * total, name)
                self.assertGreater(transfer["lifecycle_ns"], 0, name)
                self.assertIsNotNone(transfer["lifecycle_gbps"], name)
                if total > chunk:
                    # The data window counts the chunks after the first.
                    self.assertEqual(transfer["data_bytes"], operations * (total - chunk), name)
                    self.assertIsNotNone(transfer["data_window_gbps"], name)
                else:
                    # One chunk per transfer: no data window, never a zero rate.
                    self.assertEqual(transfer["data_bytes"], 0, name)
                    self.assertIsNone(transfer["data_window_gbps"], name)
        lines = {line["workload"]: line for line in run.result_lines()}
        self.assertEqual(lines["transfer_ws_json"]["protocol"], "wamp_transfer")
        self.assertEqual(lines["transfer_ws_json"]["transfer_bytes"], str(TRANSFER))
        self.assertEqual(lines["transfer_ws_json"]["chunk_bytes"], str(CHUNK))
        self.assertNotEqual(lines["transfer_rs_cbor"]["data_window_gbps"], "-")
        self.assertNotEqual(lines["transfer_rs_cbor"]["lifecycle_gbps"], "-")
        self.assertEqual(lines["transfer_ws_msgpack_one_chunk"]["data_window_gbps"], "-")
        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT w.name, r.operations, r.transfers, r.transfer_lifecycle_bytes "
                "FROM repetitions r JOIN workloads w ON r.workload_id = w.id").fetchall()
        self.assertEqual(len(rows), 6)
        for name, operations, transfers, lifecycle_bytes in rows:
            total = 65536 if name == "transfer_ws_msgpack_one_chunk" else TRANSFER
            self.assertEqual(transfers, operations, name)
            self.assertEqual(lifecycle_bytes, operations * total, name)

    def test_a_chunk_larger_than_the_transfer_is_refused_with_its_location(self):
        path = write_scenario(self.dir, "bad.toml", BAD)
        run = Run(["run", path])
        self.runs.append(run)
        run.run(timeout=60)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn(f"{path}:10:15: error: key 'chunk_bytes' (\"2MiB\" (2097152 bytes)) must be "
                      "at most transfer_bytes (\"1MiB\" (1048576 bytes))", run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")


if __name__ == "__main__":
    unittest.main()
