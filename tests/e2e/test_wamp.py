"""WAMP workloads through the real binaries: the orchestrator spawns the bundled router and
workers, which run wamp_rpc and wamp_pubsub over both transports. Zero errors, and the
router's own counters (calls routed, events delivered) agree exactly with the workers'."""
import os
import shutil
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

SMALL = """
name = "e2e_wamp"
[defaults]
warmup = "200ms"
duration = "500ms"
repetitions = 2
threads = 1

[[workloads]]
name = "rpc_ws_json"
protocol = "wamp_rpc"
transport = "websocket"
serializer = "json"
request_bytes = "1KiB"
connections = 4
in_flight = 2

[[workloads]]
name = "rpc_rs_cbor_worker_callee"
protocol = "wamp_rpc"
transport = "rawsocket"
serializer = "cbor"
callee = "worker"
request_bytes = 300
workers = 2
connections = 4
in_flight = 2

[[workloads]]
name = "pubsub_ws_msgpack"
protocol = "wamp_pubsub"
transport = "websocket"
serializer = "msgpack"
publishers = 2
subscribers = 3
in_flight = 2
request_bytes = 512

[[workloads]]
name = "pubsub_rs_json_rate"
protocol = "wamp_pubsub"
transport = "rawsocket"
serializer = "json"
topic = "bench.e2e"
publishers = 1
subscribers = 2
rate = 1000
request_bytes = 100
"""

# The router counter that counts each workload's operations.
ROUTER_COUNTER = {"wamp_rpc": "wamp_calls_routed", "wamp_pubsub": "wamp_events_delivered"}


class WampRunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_rpc_and_pubsub_over_both_transports_agree_with_the_routers_counters(self):
        path = write_scenario(self.dir, "wamp.toml", SMALL)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        lines = {l["workload"]: l for l in run.result_lines()}
        self.assertEqual(sorted(lines), sorted(["rpc_ws_json", "rpc_rs_cbor_worker_callee",
                                                "pubsub_ws_msgpack", "pubsub_rs_json_rate"]))
        for name, line in lines.items():
            self.assertEqual(line["errors"], "0", name)
            self.assertEqual(line["status"], "ok", name)
            self.assertEqual(line["protocol"], "wamp_pubsub" if "pubsub" in name else "wamp_rpc")
            self.assertGreater(float(line["rps"]), 0, name)
            self.assertGreater(float(line["gbps"]), 0, name)
        # Each row says by field what it measured: transport, serializer, payload size.
        self.assertEqual({n: (l["transport"], l["serializer"], l["payload_bytes"])
                          for n, l in lines.items()},
                         {"rpc_ws_json": ("websocket", "json", "1024"),
                          "rpc_rs_cbor_worker_callee": ("rawsocket", "cbor", "300"),
                          "pubsub_ws_msgpack": ("websocket", "msgpack", "512"),
                          "pubsub_rs_json_rate": ("rawsocket", "json", "100")})

        report = load_json(out)
        for workload in report["scenarios"][0]["workloads"]:
            name = workload["name"]
            protocol = workload["parameters"]["protocol"]
            # Only its own protocol's parameters: no HTTP block for a WAMP workload.
            self.assertIsNone(workload["parameters"]["http"], name)
            self.assertEqual(workload["parameters"]["wamp"]["transport"], lines[name]["transport"])
            self.assertEqual(workload["status"], "ok", name)
            self.assertEqual(len(workload["repetitions"]), 2, name)
            for rep in workload["repetitions"]:
                self.assertGreater(rep["operations"], 0, name)
                self.assertEqual(rep["errors"], 0, name)
                self.assertEqual(rep["successes"], rep["operations"], name)
                self.assertEqual(rep["latency"]["count"], rep["successes"], name)
                counters = rep["router"]["counters"]
                routed = counters.get(ROUTER_COUNTER[protocol], 0)
                self.assertEqual(routed, rep["operations"],
                                 f"{name}: router counted {routed}, workers {rep['operations']}")
                self.assertEqual(rep["router"]["requests"], rep["operations"], name)
                if protocol == "wamp_pubsub":
                    self.assertEqual(rep["events"]["delivered"], rep["events"]["expected"], name)
                    self.assertEqual(rep["events"]["delivered"], rep["operations"], name)
                    self.assertEqual(counters.get("wamp_drops{reason=slow_consumer}", 0), 0)

        # The table names the WAMP workload, not an HTTP request line.
        self.assertIn("wamp_rpc bench.echo (router callee) over websocket/json", run.stdout)
        self.assertIn("events: ", run.stdout)


if __name__ == "__main__":
    unittest.main()
