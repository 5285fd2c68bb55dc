"""Comparisons and sweeps through the real binaries. The bundled router is compared with itself
under two names (no nginx needed): every workload runs on both in the order A B B A, each
variant has its own RESULT line, a COMPARE line carries the ratio; a variant whose program is
not installed is not_configured and the other still runs, one whose program's path does not
exist fails the run; calibrate names a paired gate that asks for less than its pairs detect;
paired gates judge one variant against another in the same run (a router that spins 2 ms per
request against one that does not). WAMP workloads compare a command router at its own rawsocket_address and
websocket_address, and one without them is told which key to give. A tiny sweep prints a fitted
model, and `report RUN` draws it where the run's text no longer loads. Variants that do not
start are test_compare_startup's.
Checks order, counts and verdicts on a difference far past the gates' 20%, never speed."""
import os
import shutil
import sqlite3
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

COMPARE = """
name = "e2e_compare"
[routers.first]
impl = "builtin"
[routers.second]
impl = "builtin"
{extra}
[compare]
routers = ["first", "second"{more}]
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 4
workers = 1
connections = 2

[[workloads]]
name = "hello"
target = "/bench/hello"
"""

MISSING = """
[routers.missing]
impl = "command"
command = ["benchgate-no-such-program-e2e", "--port", "${port:missing}"]
address = "127.0.0.1:${port:missing}"
"""

# A candidate build named by a path that is not there (a typo): a file the scenario names, not a
# program that is not installed.
MISSING_PATH = """
[routers.typo]
impl = "command"
command = ["./no-such-build/router", "--http", "127.0.0.1:${port:typo}"]
address = "127.0.0.1:${port:typo}"
"""

# The second router spins 2 ms of CPU on every request: with 2 connections it answers at most
# about 1,000 requests a second, far below the first (no timing: a factor, not a speed).
PAIRED = """
name = "e2e_paired"
[routers.fast]
impl = "builtin"
[routers.slow]
impl = "command"
command = ["{bin}/router", "--http", "127.0.0.1:${{port:slow}}", "--control", "127.0.0.1:0",
           "--threads", "1", "--inject-work-ns", "2000000"]
address = "127.0.0.1:${{port:slow}}"
[compare]
routers = ["fast", "slow"]
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 4
workers = 1
connections = 2

[[workloads]]
name = "hello"
target = "/bench/hello"

[[gates]]
workload = "hello"
metric = "throughput.rps"
variant = "slow"
against = "fast"
max_regression = "20%"
test = "t"

[[gates]]
workload = "hello"
metric = "latency.p50"
against = "slow"
max_regression = "20%"
alpha = 0.1
"""

# A candidate build of the bundled router run as a command, beside the bundled one: it serves WAMP
# only on its --rawsocket and --websocket ports, never on its --http port, so the scenario names
# them (rawsocket_address, websocket_address) and the WAMP workloads connect there.
WAMP_PAIR = """
name = "e2e_wamp_pair"
[routers.main]
impl = "builtin"
[routers.cand]
impl = "command"
command = ["{bin}/router", "--http", "127.0.0.1:${{port:cand}}",
           "--rawsocket", "127.0.0.1:${{port:candrs}}", "--websocket", "127.0.0.1:${{port:candws}}",
           "--control", "127.0.0.1:0"]
address = "127.0.0.1:${{port:cand}}"
{transport_addresses}
[compare]
routers = ["main", "cand"]
[defaults]
warmup = "100ms"
duration = "200ms"
repetitions = 2
workers = 1
connections = 2

[[workloads]]
name = "hello"
target = "/bench/hello"

[[workloads]]
name = "rpc_rawsocket"
protocol = "wamp_rpc"
transport = "rawsocket"

[[workloads]]
name = "rpc_websocket"
protocol = "wamp_rpc"
transport = "websocket"
"""

TRANSPORT_ADDRESSES = """
rawsocket_address = "127.0.0.1:${port:candrs}"
websocket_address = "127.0.0.1:${port:candws}"
"""

SWEEP = """
name = "e2e_sweep"
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
workers = 1

[[workloads]]
name = "echo"
method = "POST"
target = "/bench/echo"
connections = 1
sweep = { request_bytes = [64, 4096, 65536] }
"""


def tagged_lines(stdout, tag):
    lines = [l for l in stdout.splitlines() if l.startswith(tag + "|")]
    return [dict(kv.split("=", 1) for kv in l.split("|")[1:]) for l in lines]


class ComparisonRuns:
    """setUp, tearDown and run_scenario for a unittest.TestCase that runs comparison scenarios
    (test_compare_startup's too)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-compare-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def run_scenario(self, text):
        path = write_scenario(self.dir, "scenario.toml", text)
        out = os.path.join(self.dir, "out.json")
        self.db = os.path.join(self.dir, "bench.db")
        run = Run(["run", path, "--json", out, "--db", self.db])
        self.runs.append(run)
        run.run(timeout=200)
        return run, out


class CompareTest(ComparisonRuns, unittest.TestCase):
    def test_two_variants_alternate_and_report_a_ratio(self):
        run, out = self.run_scenario(COMPARE.format(extra="", more=""))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")

        lines = run.result_lines()
        self.assertEqual([(l["workload"], l["variant"]) for l in lines],
                         [("hello", "first"), ("hello", "second")])
        for line in lines:
            self.assertEqual(line["reps"], "4")
            self.assertEqual(line["errors"], "0")
            self.assertEqual(line["status"], "ok")
            # Every row says where its load came from: a variant as much as a workload.
            self.assertEqual(line["load_from"], "local")
        self.assertEqual(run.stdout.count("load from: local"), 2, run.stdout)

        compare = tagged_lines(run.stdout, "COMPARE")
        self.assertEqual(len(compare), 1, run.stdout)
        self.assertEqual(compare[0]["baseline"], "first")
        self.assertEqual(compare[0]["variant"], "second")
        self.assertEqual(compare[0]["status"], "ok")
        ratio = float(compare[0]["ratio"])
        self.assertGreater(ratio, 0)
        self.assertLessEqual(float(compare[0]["pair_min"]), float(compare[0]["pair_max"]))
        self.assertIn("throughput ratio", run.stdout)

        # Alternation: the measured windows, in time order, are A B B A A B B A.
        report = load_json(out)["scenarios"][0]
        windows = []
        for workload in report["workloads"]:
            for rep in workload["repetitions"]:
                windows.append((rep["start_unix_ns"], workload["variant"]))
                self.assertGreater(rep["operations"], 0)
                self.assertEqual(rep["successes"], rep["operations"])
        order = "".join("A" if v == "first" else "B" for _, v in sorted(windows))
        self.assertEqual(order, "ABBAABBA")
        self.assertEqual(len(report["comparisons"]), 1)
        self.assertEqual(report["comparisons"][0]["status"], "ok")
        self.assertEqual([w["load_from"] for w in report["workloads"]], ["local", "local"])

        # The store keeps one row per variant, with where its load came from.
        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT name, variant, load_from FROM workloads ORDER BY variant").fetchall()
        self.assertEqual(rows, [("hello", "first", "local"), ("hello", "second", "local")])

    def test_a_variant_that_is_not_installed_is_not_configured(self):
        run, out = self.run_scenario(COMPARE.format(extra=MISSING, more=', "missing"'))
        self.assertEqual(run.leftovers(), [], "processes left behind")
        by_variant = {l["variant"]: l for l in run.result_lines()}
        self.assertEqual(set(by_variant), {"first", "second", "missing"})
        self.assertEqual(by_variant["missing"]["status"], "not_configured")
        self.assertEqual(by_variant["missing"]["rps"], "-")
        self.assertEqual(by_variant["first"]["status"], "ok")
        self.assertEqual(by_variant["second"]["reps"], "4")
        compare = {l["variant"]: l for l in tagged_lines(run.stdout, "COMPARE")}
        self.assertEqual(compare["missing"]["status"], "not_configured")
        self.assertEqual(compare["missing"]["ratio"], "-")
        self.assertEqual(compare["second"]["status"], "ok")

    def test_a_variant_whose_program_path_does_not_exist_fails_the_run(self):
        # Not not_configured (exit 0, a green CI for a typo in the candidate's path): failed,
        # naming the path and the folder a relative one is resolved against.
        run, out = self.run_scenario(COMPARE.format(extra=MISSING_PATH, more=', "typo"'))
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        by_variant = {l["variant"]: l for l in run.result_lines()}
        self.assertEqual(by_variant["typo"]["status"], "failed")
        self.assertEqual(by_variant["first"]["status"], "ok")
        self.assertEqual(by_variant["second"]["reps"], "4")
        errors = {w["variant"]: w["error"] for w in load_json(out)["scenarios"][0]["workloads"]}
        self.assertIn("router 'typo' did not start: the command's program "
                      "'./no-such-build/router' (a relative path, resolved against the working "
                      "directory " + os.path.realpath(run.cwd) + ") does not exist", errors["typo"])

    def test_calibrate_says_when_a_paired_gate_asks_for_less_than_the_testbed_can_detect(self):
        # As for a relative gate (test_gate_verdicts): real load, some noise between a run's
        # repetitions, far above 0.01%; the figure is what the gate's own test detects with the
        # scenario's 4 pairs.
        gate = ('[[gates]]\nworkload = "hello"\nmetric = "throughput.rps"\nvariant = "second"\n'
                'against = "first"\nmax_regression = "0.01%"\ntest = "t"\n')
        path = write_scenario(self.dir, "scenario.toml", COMPARE.format(extra="", more="") + gate)
        cal = Run(["calibrate", path, "--db", os.path.join(self.dir, "bench.db"), "--runs", "3"])
        self.runs.append(cal)
        cal.run(timeout=200)
        self.assertEqual(cal.returncode, 0, cal.stdout + cal.stderr)
        self.assertRegex(cal.stdout, r"\ngate #1 hello \[second\] throughput.rps: max_regression "
                                     r"0.0% (\(a \+0\.0% change\) is a smaller change than the "
                                     r"-\d+\.\d% this testbed can detect with 4 pairs|is below "
                                     r"what this testbed can detect with 4 pairs: no change "
                                     r"within a factor of 10) \(a paired gate against first, "
                                     r"test = \"t\"\)\n")
        # One line: the variant it is judged against has none of its own.
        self.assertEqual(cal.stdout.count("\ngate #"), 1, cal.stdout)

    def test_an_odd_number_of_repetitions_is_refused(self):
        text = COMPARE.format(extra="", more="").replace("repetitions = 4", "repetitions = 3")
        run, _ = self.run_scenario(text)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("even number of repetitions", run.stderr)

    def test_paired_gates_judge_one_variant_against_the_other_in_the_same_run(self):
        run, out = self.run_scenario(PAIRED.format(bin=BIN))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        gates = load_json(out)["scenarios"][0]["gates"]
        # Gate 2 (variant "*" against slow) judges only fast: a variant is never judged
        # against itself.
        self.assertEqual([(g["gate_index"], g["variant"]) for g in gates],
                         [(0, "slow"), (1, "fast")])
        slow, fast = gates
        self.assertEqual(slow["verdict"], "fail", slow["explanation"])
        self.assertEqual(fast["verdict"], "pass", fast["explanation"])
        # Gate 1 asks for the paired t; gate 2 takes the default signed-rank test, whose 4 pairs
        # (all faster) give p = 1: a pass. (Its alpha is 0.1: at 0.01 no p of 4 pairs, at least
        # 2^-4, could be significant, and the scenario would be refused.)
        self.assertEqual((slow["method"], fast["method"]), ("paired-t", "paired-signed-rank"))
        self.assertEqual(fast["p_value"], 1.0)
        for gate, against in ((slow, "fast"), (fast, "slow")):
            self.assertEqual(gate["kind"], "relative")
            self.assertEqual(gate["baseline"], against)
            self.assertEqual(gate["baseline_runs"], [])
            self.assertIn("vs variant " + against, gate["explanation"])
            self.assertIn("4 pairs of adjacent windows", gate["explanation"])
        self.assertLess(slow["p_value"], 0.01)
        self.assertGreater(slow["effect_interval"]["low"], 0)
        self.assertLess(fast["effect"], 0)

        # Judged again from the store, the verdicts and p-values are the same.
        run_id = load_json(out)["scenarios"][0]["run_id"]
        again_out = os.path.join(self.dir, "again.json")
        again = Run(["gate", str(run_id), "--db", self.db, "--json", again_out])
        again.run(timeout=60)
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        again_gates = load_json(again_out)["scenarios"][0]["gates"]
        self.assertEqual([(g["variant"], g["verdict"], g["method"], g["p_value"])
                          for g in again_gates],
                         [(g["variant"], g["verdict"], g["method"], g["p_value"]) for g in gates])
        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT variant, baseline, method FROM gate_results "
                              "WHERE run_id = ? ORDER BY rowid", (run_id,)).fetchall()
        self.assertEqual(rows[:2], [("slow", "fast", "paired-t"),
                                    ("fast", "slow", "paired-signed-rank")])

    def test_wamp_workloads_compare_a_command_router_at_its_transport_addresses(self):
        run, out = self.run_scenario(WAMP_PAIR.format(bin=BIN,
                                                      transport_addresses=TRANSPORT_ADDRESSES))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        lines = run.result_lines()
        self.assertEqual([(l["workload"], l["variant"]) for l in lines],
                         [(w, v) for w in ("hello", "rpc_rawsocket", "rpc_websocket")
                          for v in ("main", "cand")])
        for line in lines:
            self.assertEqual((line["status"], line["errors"], line["reps"]), ("ok", "0", "2"),
                             line)
        self.assertEqual([(l["workload"], l["transport"]) for l in lines if l["variant"] == "cand"],
                         [("hello", "-"), ("rpc_rawsocket", "rawsocket"),
                          ("rpc_websocket", "websocket")])
        compare = tagged_lines(run.stdout, "COMPARE")
        self.assertEqual([(c["workload"], c["variant"], c["status"]) for c in compare],
                         [("hello", "cand", "ok"), ("rpc_rawsocket", "cand", "ok"),
                          ("rpc_websocket", "cand", "ok")])
        for workload in load_json(out)["scenarios"][0]["workloads"]:
            for rep in workload["repetitions"]:
                self.assertGreater(rep["operations"], 0, workload["name"])
                self.assertEqual(rep["successes"], rep["operations"], workload["name"])

    def test_a_wamp_workload_at_a_command_routers_http_port_names_the_key_to_give(self):
        text = WAMP_PAIR.format(bin=BIN, transport_addresses="")
        text = text[:text.index('[[workloads]]\nname = "rpc_websocket"')]
        text = text.replace("repetitions = 2", "repetitions = 2\ntimeout = \"30s\"")
        run, _ = self.run_scenario(text)
        self.assertNotEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        by_run = {(l["workload"], l["variant"]): l["status"] for l in run.result_lines()}
        self.assertEqual(by_run, {("hello", "main"): "ok", ("hello", "cand"): "ok",
                                  ("rpc_rawsocket", "main"): "ok",
                                  ("rpc_rawsocket", "cand"): "failed"})
        said = run.stdout + run.stderr
        self.assertIn("the scenario names no rawsocket_address for this command system, so its "
                      "WAMP RawSocket workloads connect to its 'address' 127.0.0.1:", said)
        self.assertIn("give key 'rawsocket_address' = \"HOST:PORT\"", said)

    def test_a_sweep_runs_each_size_and_prints_a_fitted_model(self):
        run, out = self.run_scenario(SWEEP)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        names = [l["workload"] for l in run.result_lines()]
        self.assertEqual(names, ["echo@request_bytes=64", "echo@request_bytes=4096",
                                 "echo@request_bytes=65536"])
        sweep = tagged_lines(run.stdout, "SWEEP")
        self.assertEqual(len(sweep), 1, run.stdout)
        self.assertEqual(sweep[0]["workload"], "echo")
        self.assertEqual(sweep[0]["parameter"], "request_bytes")
        self.assertEqual(sweep[0]["points"], "3")
        for key in ("a", "b", "r2", "exponent", "worst_exponent", "class"):
            self.assertNotEqual(sweep[0][key], "-", key)
        self.assertIn(sweep[0]["class"], ("constant", "sublinear", "linear", "superlinear"))
        self.assertIn("R^2", run.stdout)
        sweeps = load_json(out)["scenarios"][0]["sweeps"]
        self.assertEqual(sweeps[0]["n"], [64, 4096, 65536])

    def test_a_stored_sweeps_reports_fit_its_model_where_its_text_no_longer_loads(self):
        # `report RUN` loads the run's scenario text again, which reads an environment variable
        # unset where the report is made: the store's own record of the sweep (schema version
        # 26) is what makes its points a sweep again. The old code drew no sweep chart.
        text = SWEEP.replace('target = "/bench/echo"', 'target = "${env:BENCHGATE_E2E_SWEEP}"')
        path = write_scenario(self.dir, "scenario.toml", text)
        self.db = os.path.join(self.dir, "bench.db")
        run = Run(["run", path, "--db", self.db])
        run.env["BENCHGATE_E2E_SWEEP"] = "/bench/echo"
        self.runs.append(run)
        run.run(timeout=200)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(len(tagged_lines(run.stdout, "SWEEP")), 1, run.stdout)
        html = os.path.join(self.dir, "run.html")
        report = Run(["report", "1", "--db", self.db, "--html", html])
        report.env.pop("BENCHGATE_E2E_SWEEP", None)
        report.run()
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        with open(html) as f:
            page = f.read()
        self.assertEqual(page.count('data-chart="sweep"'), 1)
        self.assertIn("sweep echo [default]: p50 against request_bytes", page)


if __name__ == "__main__":
    unittest.main()
