"""A run through the real binaries: orchestrator, router and workers over real gRPC and
real sockets. Checks exact counts, never speed."""
import os
import shutil
import signal
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

SMALL = """
name = "e2e_small"
[router]
threads = 1
[defaults]
warmup = "200ms"
duration = "500ms"
repetitions = 2
workers = 2
threads = 1

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 4
in_flight = 2

[[workloads]]
name = "echo"
protocol = "http1"
method = "POST"
target = "/bench/echo"
request_bytes = "3KiB"
connections = 2
"""

OPEN_LOOP_DELAY = """
name = "e2e_open_loop_delay"
[defaults]
warmup = "100ms"
duration = "1s"
repetitions = 1

[[workloads]]
name = "delay_20ms"
protocol = "http1"
target = "/bench/delay/20"
connections = 8
rate = 100
"""


class HttpRunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def run_scenario(self, text, *extra):
        path = write_scenario(self.dir, "scenario.toml", text)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out] + list(extra))
        self.runs.append(run)
        run.run()
        return run, out

    def test_worker_counts_match_router_counts_and_histogram_counts(self):
        run, out = self.run_scenario(SMALL)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        lines = run.result_lines()
        self.assertEqual([l["workload"] for l in lines], ["hello", "echo"])
        for line in lines:
            self.assertEqual(line["errors"], "0")
            self.assertEqual(line["reps"], "2")
            for key in ("rps", "p50_us", "p90_us", "p99_us", "p999_us", "max_us"):
                self.assertNotEqual(line[key], "-", key)
                self.assertGreater(float(line[key]), 0, key)

        report = load_json(out)
        self.assertEqual(report["exit_code"], 0)
        workloads = report["scenarios"][0]["workloads"]
        for workload in workloads:
            in_flight = workload["parameters"]["connections"] * workload["parameters"]["in_flight"]
            self.assertEqual(len(workload["repetitions"]), 2)
            for rep in workload["repetitions"]:
                self.assertGreater(rep["operations"], 0)
                self.assertEqual(rep["errors"], 0)
                self.assertEqual(rep["successes"], rep["operations"])
                self.assertEqual(rep["latency"]["count"], rep["successes"])
                router = rep["router"]["requests"]
                self.assertLessEqual(abs(router - rep["operations"]), in_flight,
                                     f"router counted {router}, workers {rep['operations']}")
                self.assertTrue(rep["latency_hdr_v2_base64"])
            total = sum(r["successes"] for r in workload["repetitions"])
            self.assertEqual(workload["summary"]["latency"]["count"], total)
            self.assertTrue(workload["latency_hdr_v2_base64"])
            # Connection setup (docs/MEASUREMENT.md "Connections and TLS"): over the
            # repetitions every connection is counted once, with one connect time and one time
            # to first byte each, and no handshake on cleartext.
            setups = [rep["connection_setup"] for rep in workload["repetitions"]]
            connections = workload["parameters"]["connections"]
            self.assertEqual(sum(s["connections"] for s in setups), connections)
            for name in ("connect", "ttfb"):
                self.assertEqual(sum(s[name]["count"] for s in setups if s[name]), connections,
                                 name)
            for s in setups:
                self.assertEqual(s["handshakes"], 0)
                self.assertIsNone(s["tls_handshake"])

    def test_open_loop_latency_includes_the_server_delay(self):
        run, out = self.run_scenario(OPEN_LOOP_DELAY)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.leftovers(), [])
        workload = load_json(out)["scenarios"][0]["workloads"][0]
        rep = workload["repetitions"][0]
        self.assertEqual(rep["errors"], 0)
        self.assertGreater(rep["operations"], 0)
        self.assertGreaterEqual(workload["summary"]["latency"]["p50_ns"], 20_000_000)
        self.assertIn("service_time", rep)
        self.assertGreaterEqual(rep["service_time"]["p50_ns"], 20_000_000)


if __name__ == "__main__":
    unittest.main()
