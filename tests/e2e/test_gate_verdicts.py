"""Gates judge what the report prints (issue 13), through the real binaries: an errors gate
fails when one repetition of three had errors; the p99 a gate judges is the p99 of RESULT,
JSON and SQLite; a relative gate that cannot reach significance says `underpowered` in every
output and can be asked to fail; a not_configured variant makes its gates not_configured, not
errors, and every output names the variant; a paired gate's signed-rank test fails a regression
that one wild pair hides from the paired t, and says underpowered with too few pairs.

The faults come from tests/e2e/tools/fault_worker (a Worker that reports made-up, exact
results): the counts and latencies are fixed, so every assertion is an exact count."""
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import unittest
import xml.etree.ElementTree as ET

from harness import BIN, Run, kill_tagged, load_json, write_scenario
from test_compare_workers import path_without

FAULT_WORKER = os.path.join(BIN, "fault_worker")

THREE_REPETITIONS = """
name = "e2e_gate_verdicts"
[defaults]
warmup = "0s"
duration = "300ms"
repetitions = 3
timeout = "20s"

[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2

{gates}
"""


class GateVerdictsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-gate-verdicts-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.json = os.path.join(self.dir, "out.json")
        self.junit = os.path.join(self.dir, "gates.xml")
        self.markdown = os.path.join(self.dir, "summary.md")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)

    def fault_worker(self, *args):
        path = os.path.join(self.dir, "fault-worker-{}.sh".format(len(self.tags)))
        with open(path, "w") as f:
            f.write('#!/bin/sh\nexec "{}" {} "$@"\n'.format(FAULT_WORKER, " ".join(args)))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def scenario(self, gates, name="gated.toml", template=THREE_REPETITIONS):
        return write_scenario(self.dir, name, template.format(gates=gates))

    def orchestrator(self, *args, env_path=None):
        run = Run(list(args), cwd=self.dir)
        if env_path:
            run.env["PATH"] = env_path
        self.tags.append(run.tag)
        return run.run(timeout=180)

    def run_scenario(self, path, *extra, env_path=None):
        return self.orchestrator("run", path, "--db", self.db, "--json", self.json, "--junit",
                                 self.junit, "--markdown", self.markdown, *extra,
                                 env_path=env_path)

    def gates_json(self):
        return load_json(self.json)["scenarios"][0]["gates"]

    def stored_gates(self, run_id):
        with sqlite3.connect(self.db) as db:
            return db.execute(
                "SELECT workload, variant, metric, verdict, observed, underpowered "
                "FROM gate_results WHERE run_id = ? ORDER BY gate_index, id",
                (run_id,)).fetchall()

    # --- errors are summed ---------------------------------------------------------------

    def test_an_errors_gate_fails_when_one_repetition_of_three_had_errors(self):
        worker = self.fault_worker("--mode", "errors_in_window", "--window", "1")
        path = self.scenario('[[gates]]\nworkload = "hello"\nmetric = "errors.count"\nmax = 0\n')
        run = self.run_scenario(path, "--worker-bin", worker)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 1, out)
        result = [r for r in run.result_lines() if r["workload"] == "hello"][0]
        self.assertEqual(result["errors"], "500")
        self.assertRegex(run.stdout, r"fail\s+critical\s+hello\s+errors.count\s+500\s")
        self.assertIn("500 (summed over 3 repetitions) above max 0", run.stdout)
        gate = self.gates_json()[0]
        self.assertEqual((gate["verdict"], gate["observed"]), ("fail", 500))
        self.assertEqual(self.stored_gates(1), [("hello", "default", "errors.count", "fail",
                                                 500.0, None)])
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute(
                "SELECT errors_total FROM workload_summary").fetchone()[0], 500)
            per_rep = [r[0] for r in db.execute(
                "SELECT errors_total FROM repetitions ORDER BY idx")]
            self.assertEqual(per_rep, [0, 500, 0])
        suite = ET.parse(self.junit).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")

    # --- the printed p99 is the gated p99 ------------------------------------------------

    def test_the_printed_and_the_gated_p99_are_one_number(self):
        # Repetition 2 of 3 took 10 ms per operation, the others 100 us: the merged p99 is
        # about 10 ms, the median of the repetitions' p99s 100 us.
        worker = self.fault_worker("--mode", "slow_window", "--window", "1")
        path = self.scenario(
            '[[gates]]\nworkload = "hello"\nmetric = "latency.p99"\nmax = "5ms"\n')
        run = self.run_scenario(path, "--worker-bin", worker)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        printed_us = float([r for r in run.result_lines() if r["workload"] == "hello"][0]
                           ["p99_us"])
        self.assertGreater(printed_us, 5000)
        gate = self.gates_json()[0]
        self.assertEqual(gate["verdict"], "fail")
        # RESULT rounds to 0.1 us; the JSON summary and the gate carry the same figure.
        self.assertAlmostEqual(gate["observed"] * 1e6, printed_us, delta=0.05)
        summary = load_json(self.json)["scenarios"][0]["workloads"][0]["summary"]
        self.assertEqual(summary["latency"]["p99_ns"] / 1e9, gate["observed"])
        with sqlite3.connect(self.db) as db:
            stored = db.execute("SELECT observed FROM gate_results").fetchone()[0]
            view = db.execute("SELECT p99_s FROM workload_summary").fetchone()[0]
            # The run completed (a failed gate is not a run error), so it is history.
            history = db.execute("SELECT value FROM series_history "
                                 "WHERE metric = 'latency.p99'").fetchone()[0]
            per_rep = sorted(r[0] for r in db.execute("SELECT p99_ns FROM repetitions"))
        self.assertEqual(stored, gate["observed"])
        self.assertEqual(view, gate["observed"])
        self.assertEqual(history, gate["observed"])
        self.assertLess(per_rep[1] / 1e9, gate["observed"] / 10)  # not the median of p99s

    # --- underpowered ----------------------------------------------------------------------

    RELATIVE = ('[[gates]]\nworkload = "hello"\nmetric = "latency.p99"\nbaseline = "main"\n'
                'max_regression = "10%"\nalpha = 0.01\n')

    def promote_a_baseline(self, path):
        worker = self.fault_worker("--mode", "well_behaved")
        first = self.orchestrator("run", path, "--db", self.db, "--promote", "main",
                                  "--worker-bin", worker)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)

    def test_a_gate_that_cannot_reach_significance_says_underpowered_everywhere(self):
        path = self.scenario(self.RELATIVE)
        self.promote_a_baseline(path)
        # 3 repetitions against 1 baseline run of 3, a 100-fold slower p99.
        slow = self.fault_worker("--mode", "slow_window", "--window", "1")
        run = self.run_scenario(path, "--worker-bin", slow)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"inconclusive, underpowered\s+critical\s+hello\s")
        self.assertIn("underpowered", run.stdout)
        gate = self.gates_json()[0]
        self.assertEqual((gate["verdict"], gate["underpowered"]), ("inconclusive", True))
        self.assertEqual(gate["method"], "nested-t")
        self.assertEqual(self.stored_gates(2)[0][3:], ("inconclusive", gate["observed"], 1))
        case = [c for c in ET.parse(self.junit).getroot().iter("testcase")
                if c.get("name") != "run"][0]
        self.assertIn("inconclusive, underpowered", case.find("skipped").get("message"))
        with open(self.markdown) as f:
            self.assertIn("| **inconclusive, underpowered** | critical | hello | default | "
                          "latency.p99 |", f.read())

        strict = self.run_scenario(path, "--worker-bin", slow, "--strict")
        self.assertEqual(strict.returncode, 1, strict.stdout + strict.stderr)

    def test_fail_when_underpowered_makes_an_underpowered_gate_fail_the_run(self):
        path = self.scenario(self.RELATIVE + "fail_when_underpowered = true\n")
        self.promote_a_baseline(path)
        same = self.fault_worker("--mode", "well_behaved")
        run = self.run_scenario(path, "--worker-bin", same)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"pass, underpowered\s+critical\s+hello\s")
        self.assertIn("which fails the run (fail_when_underpowered)", run.stdout)
        suite = ET.parse(self.junit).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")
        failure = [c for c in suite.iter("testcase") if c.get("name") != "run"][0].find("failure")
        self.assertEqual(failure.get("type"), "underpowered")

    # --- variants --------------------------------------------------------------------------

    COMPARED = """
name = "e2e_gate_variants"
[router]
impl = "builtin"
threads = 1
[worker_impls.h2tool]
adapter = "h2load"
[compare]
workers = ["builtin", "h2tool"]
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 2
workers = 1
threads = 1
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2
in_flight = 1

{gates}
"""

    def test_a_not_configured_variant_does_not_fail_the_run_and_every_output_names_variants(self):
        gates = ('[[gates]]\nworkload = "hello"\nmetric = "latency.max"\nmax = \"10s\"\n'
                 '[[gates]]\nworkload = "hello"\nvariant = "built*"\n'
                 'metric = "throughput.rps"\nmin = 1\n')
        path = self.scenario(gates, "compared.toml", self.COMPARED)
        run = self.run_scenario(path, env_path=path_without("h2load"))
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, out)
        self.assertRegex(run.stdout, r"pass\s+critical\s+hello \[builtin\]\s+latency.max")
        self.assertRegex(run.stdout,
                         r"not_configured\s+critical\s+hello \[h2tool\]\s+latency.max")
        # latency.max, which h2load prints: its errors.count would be refused (it cannot detect
        # failed connects). The second gate names one variant: one verdict.
        gates_json = self.gates_json()
        self.assertEqual([(g["gate_index"], g["variant"], g["verdict"]) for g in gates_json],
                         [(0, "builtin", "pass"), (0, "h2tool", "not_configured"),
                          (1, "builtin", "pass")])
        self.assertEqual([r[1] + ":" + r[3] for r in self.stored_gates(1)],
                         ["builtin:pass", "h2tool:not_configured", "builtin:pass"])
        suite = ET.parse(self.junit).getroot().find("testsuite")
        names = [c.get("name") for c in suite.iter("testcase")]
        self.assertEqual(len(names), len(set(names)), names)
        self.assertIn("hello [h2tool] latency.max (gate #1)", names)
        self.assertEqual(suite.get("failures"), "0")
        with open(self.markdown) as f:
            text = f.read()
        self.assertIn("| **not_configured** | critical | hello | h2tool | latency.max |", text)
        strict = self.run_scenario(path, "--strict", env_path=path_without("h2load"))
        self.assertEqual(strict.returncode, 1, strict.stdout + strict.stderr)

    def test_a_gate_variant_that_matches_no_variant_is_refused_with_its_location(self):
        gates = ('[[gates]]\nworkload = "hello"\nvariant = "bultin"\n'
                 'metric = "errors.count"\nmax = 0\n')
        path = self.scenario(gates, "typo.toml", self.COMPARED)
        run = self.orchestrator("run", path, "--db", self.db)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("typo.toml:", run.stderr)
        self.assertIn("gate variant 'bultin' matches no variant", run.stderr)
        self.assertIn("did you mean", run.stderr)
        self.assertNotIn("RESULT|", run.stdout)


    # --- not measured, re-evaluated ---------------------------------------------------------

    TOOL = """
name = "e2e_gate_not_measured"
[router]
impl = "builtin"
threads = 1
[worker_impls.h2tool]
adapter = "h2load"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 2
workers = 1
threads = 1
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2
in_flight = 1
worker = "h2tool"

{gates}
"""

    def test_a_percentile_h2load_never_prints_is_refused_when_the_scenario_loads(self):
        # h2load prints no percentile: a p99 gate on a workload it runs could only be an error,
        # so the loader refuses it (exit 2), at the metric value, before anything runs.
        path = self.scenario('[[gates]]\nworkload = "hello"\nmetric = "latency.p99"\n'
                             'max = "10s"\nseverity = "warning"\n', "tool.toml", self.TOOL)
        for command in ("validate", "run"):
            refused = self.orchestrator(command, path, "--db", self.db) if command == "run" \
                else self.orchestrator(command, path)
            self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
            self.assertIn("tool.toml:23:10: error: gate metric 'latency.p99' can never be "
                          "measured for workload 'hello': it is run by worker 'h2tool', the "
                          "h2load adapter, which prints no latency percentile",
                          refused.stdout + refused.stderr)

    @unittest.skipUnless(shutil.which("h2load"), "needs h2load")
    def test_runs_show_names_what_the_tool_could_not_measure(self):
        path = self.scenario('[[gates]]\nworkload = "hello"\nmetric = "latency.max"\n'
                             'max = "10s"\nseverity = "warning"\n', "tool.toml", self.TOOL)
        run = self.run_scenario(path)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # runs show names what the workers could not measure.
        shown = self.orchestrator("runs", "show", "1", "--db", self.db)
        self.assertEqual(shown.returncode, 0, shown.stdout + shown.stderr)
        self.assertRegex(shown.stdout, r"\n  not measured: [^\n]*bytes_sent")

    # --- paired gates: one wild pair ---------------------------------------------------------

    # Two fault workers compared, 12 pairs of windows: `steady` reports 100 us in every window,
    # `wild` 110 us except in its 6th window, 10 us (the machine changed speed inside one pair).
    # The log ratios are 11 x ln 1.1 and one ln 0.1: the mean is negative (the paired t passes
    # the gate), the signed-rank test ranks the wild pair last: W+ = 11 x 6 = 66 of 78, with the
    # 11 tied pairs sharing mid-rank 6: P(W+ >= 66) = 68 / 4096 exactly.
    PAIRED = """
name = "e2e_gate_paired"
[router]
impl = "builtin"
threads = 1
[worker_impls.steady]
command = ["{fault}", "--mode", "well_behaved"]
[worker_impls.wild]
command = ["{fault}", "--mode", "wild_window", "--window", "6"]
[compare]
workers = ["steady", "wild"]
[defaults]
warmup = "0s"
duration = "20ms"
repetitions = 12
workers = 1
timeout = "20s"
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 1

{gates}
"""

    def test_a_wild_pair_hides_a_regression_from_the_paired_t_but_not_the_signed_rank(self):
        gate = ('[[gates]]\nworkload = "hello"\nmetric = "latency.p50"\nvariant = "wild"\n'
                'against = "steady"\nmax_regression = "5%"\nalpha = 0.05\n')
        text = self.PAIRED.replace("{fault}", FAULT_WORKER)
        path = self.scenario(gate + "\n" + gate + 'test = "t"\n', "paired.toml", text)
        run = self.run_scenario(path)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        signed_rank, t = self.gates_json()
        self.assertEqual((signed_rank["method"], signed_rank["verdict"], t["method"], t["verdict"]),
                         ("paired-signed-rank", "fail", "paired-t", "pass"),
                         signed_rank["explanation"] + "\n" + t["explanation"])
        self.assertAlmostEqual(signed_rank["p_value"], 68 / 4096, places=12)
        self.assertFalse(signed_rank["underpowered"])
        self.assertLess(t["effect"], 0)  # the wild pair drags the mean below zero
        self.assertGreater(signed_rank["effect"], 0.09)  # Hodges-Lehmann: about ln 1.1
        self.assertIn("12 pairs of adjacent windows", signed_rank["explanation"])
        # Every output names the method: the terminal's and the Markdown's explanation, the
        # JUnit failure, SQLite.
        # (Holm's correction takes both gates of the run.)
        self.assertIn("significant (paired-signed-rank p=0.0166, Holm-adjusted p=0.0332 < "
                      "alpha 0.05)", run.stdout)
        with open(self.markdown) as f:
            self.assertIn("paired-signed-rank p=0.0166", f.read())
        failures = [c.find("failure") for c in ET.parse(self.junit).getroot().iter("testcase")]
        self.assertTrue(any(f is not None and "paired-signed-rank" in f.get("message")
                            for f in failures))
        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT method, verdict FROM gate_results ORDER BY gate_index"
                              ).fetchall()
        self.assertEqual(rows, [("paired-signed-rank", "fail"), ("paired-t", "pass")])

    def test_a_signed_rank_gate_with_too_few_pairs_is_refused_before_anything_runs(self):
        # 4 pairs at alpha 0.01: no signed-rank p can be below 2^-4 = 0.0625, so the gate could
        # never fail; the scenario is refused at its repetitions, naming the pairs it needs.
        gate = ('[[gates]]\nworkload = "hello"\nmetric = "latency.p50"\nvariant = "wild"\n'
                'against = "steady"\nmax_regression = "5%"\n')
        text = self.PAIRED.replace("{fault}", FAULT_WORKER).replace("repetitions = 12",
                                                                   "repetitions = 4")
        path = self.scenario(gate, "few.toml", text)
        for run in (self.orchestrator("validate", path), self.run_scenario(path)):
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn("error: workload 'hello': 4 repetitions make 4 pairs, and the signed-rank "
                          "test of the paired gate at line ", run.stderr)
            self.assertIn("can never be significant at alpha 0.01 with fewer than 7 (no p is "
                          "below 2^-4 = 0.0625): set repetitions to 8 or more", run.stderr)

    def test_calibrate_estimates_what_the_paired_gates_test_detects(self):
        # The signed-rank (default) with 12 pairs at alpha 0.01 can detect something: a
        # percentage; a gate with test = "t" gets the paired t's, marked (t); with 8 pairs and
        # two more gates in the run (Holm's correction: alpha 0.01 / 3) the signed-rank cannot
        # reach its level at all (2^-8 = 0.0039 >= 0.0033): none.
        text = self.PAIRED.replace("{fault}", FAULT_WORKER)
        gate = ('[[gates]]\nworkload = "hello"\nmetric = "latency.p50"\nvariant = "wild"\n'
                'against = "steady"\nmax_regression = "5%"\n')
        for extra, template, expected in (
                ("", text, r"\d+\.\d%"),
                ('test = "t"\n', text, r"\d+\.\d% \(t\)"),
                ("\n" + gate.replace("latency.p50", "latency.p99") + "\n" +
                 gate.replace("latency.p50", "throughput.rps"),
                 text.replace("repetitions = 12", "repetitions = 8"), r"none")):
            path = self.scenario(gate + extra, "cal.toml", template)
            db = os.path.join(self.dir, "cal-{}.db".format(len(extra) + len(template)))
            cal = self.orchestrator("calibrate", path, "--db", db, "--runs", "3")
            self.assertEqual(cal.returncode, 0, cal.stdout + cal.stderr)
            self.assertRegex(cal.stdout, r"\n  hello\s+wild\s+latency\.p50\s+\S+\s+\S+\s+\S+\s+"
                                         r"\S+\s+" + expected + r"\n")

    # --- calibrate -------------------------------------------------------------------------

    def test_calibrate_stores_the_noise_and_a_calibrated_gate_decides_with_one_baseline_run(self):
        # The fault worker's figures are exact: no run-to-run noise at all.
        path = self.scenario(self.RELATIVE)
        steady = self.fault_worker("--mode", "well_behaved")
        cal = self.orchestrator("calibrate", path, "--db", self.db, "--runs", "3",
                                "--worker-bin", steady)
        self.assertEqual(cal.returncode, 0, cal.stdout + cal.stderr)
        self.assertIn("calibration of e2e_gate_verdicts over 3 runs", cal.stdout)
        self.assertRegex(cal.stdout, r"hello\s+default\s+latency.p99\s+100us\s+0.0%")
        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT metric, runs, cv, run_ids FROM calibrations "
                              "ORDER BY metric").fetchall()
            labels = [r[0] for r in db.execute("SELECT labels FROM runs ORDER BY id")]
        self.assertEqual([r[0] for r in rows], ["latency.p50", "latency.p99", "throughput.rps"])
        self.assertEqual({(r[1], r[2], r[3]) for r in rows}, {(3, 0.0, "[1,2,3]")})
        self.assertEqual(len(labels), 3)
        self.assertTrue(all('"calibration":"a/a"' in l.replace(" ", "") for l in labels), labels)

        self.promote_a_baseline(path)
        slow = self.fault_worker("--mode", "slow_window", "--window", "1")
        run = self.run_scenario(path, "--worker-bin", slow)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        gate = self.gates_json()[0]
        self.assertEqual((gate["method"], gate["verdict"], gate["underpowered"]),
                         ("calibrated-t", "fail", False))
        self.assertIn("calibrated cv 0.0% over 3 runs", gate["explanation"])

    def test_calibrate_names_a_testbed_whose_speed_changes_between_runs(self):
        # Every other worker process reports 130 us instead of 100 us: two groups of runs 30%
        # apart whose repetitions agree exactly, the shape a host moving a VM's CPUs gives.
        path = self.scenario(self.RELATIVE)
        counter = os.path.join(self.dir, "starts")
        alternating = self.fault_worker("--mode", "alternate_runs", "--counter-file", counter)
        cal = self.orchestrator("calibrate", path, "--db", self.db, "--runs", "4",
                                "--worker-bin", alternating)
        self.assertEqual(cal.returncode, 0, cal.stdout + cal.stderr)
        with open(counter) as f:
            self.assertEqual(f.read().strip(), "4")
        self.assertRegex(cal.stdout, r"detect paired")
        # p50 and p99: two groups; the repetitions explain none of it, so a paired t with the
        # scenario's 3 pairs would see any change (0.0%), and the signed-rank test, the default,
        # needs 7 pairs at alpha 0.01 (2^-7 < 0.01) for p99, whose gate is judged alone; a gate
        # added on p50 would make two, Holm's level 0.005 and 8 pairs (2^-8 < 0.005).
        for metric, level, pairs in (
                ("latency.p50", r"alpha 0\.01 / 2 gates \(Holm's correction\) = 0\.005", 8),
                ("latency.p99", r"alpha 0\.01", 7)):
            self.assertRegex(cal.stdout, r"hello default " + re.escape(metric) +
                             r": the runs fall into two groups (29|30)\.\d% apart \(cv [\d.]+% "
                             r"between runs; a run's repetitions spread 0\.0% about its mean\): this "
                             r"testbed's speed changes between runs; gates on stored baseline "
                             r"runs see only changes past [\d.]+% here, a paired gate \(against = "
                             r"VARIANT, windows alternating in one run\) with 3 pairs could "
                             r"see nothing at " + level + r" \(its signed-rank test needs " +
                             str(pairs) + r" pairs; test = \"t\" could see 0\.0%\)")
        # Throughput is the same in every run (100 successes per window): nothing to say.
        self.assertNotRegex(cal.stdout, r"throughput\.rps: the runs")
        # Each level names the series it applies to, the one judged alone too, and "none" in
        # the detect paired column is said under the table.
        self.assertIn("\ndetectable changes are at the level each series' gates judge at, over a "
                      "run's relative and paired gates (a series no gate judges yet counts as "
                      "one more):\n"
                      "  alpha 0.01 (judged alone): hello default latency.p99\n"
                      "  alpha 0.01 / 2 gates (Holm's correction) = 0.005: hello default "
                      "latency.p50, hello default throughput.rps\n", cal.stdout)
        self.assertIn("\ndetect paired none: a paired gate's signed-rank test (its default) with R "
                      "pairs has no p below 2^-R, so it detects nothing at the level its gate "
                      "judges at: hello default latency.p50 has 3 pairs and needs 8 at 0.005, "
                      "hello default latency.p99 has 3 pairs and needs 7 at 0.01, hello default "
                      "throughput.rps has 3 pairs and needs 8 at 0.005; more repetitions, or "
                      "test = \"t\", let it detect\n", cal.stdout)
        self.assertNotIn("detect paired -", cal.stdout)

    def test_calibrate_says_when_a_gate_asks_for_less_than_the_testbed_can_detect(self):
        # Real load on the bundled router: some noise between runs, far above 0.01%.
        gates = ('[[gates]]\nworkload = "hello"\nmetric = "throughput.rps"\nbaseline = "main"\n'
                 'max_regression = "0.01%"\n')
        path = self.scenario(gates)
        cal = self.orchestrator("calibrate", path, "--db", self.db, "--runs", "3")
        self.assertEqual(cal.returncode, 0, cal.stdout + cal.stderr)
        # In the convention of the change: a drop for throughput (docs/GATES.md, "Verdicts"),
        # here one that rounds to +0.0% at the printed tenth (a sign only where a digit shows).
        self.assertRegex(cal.stdout, r"gate #1 hello throughput.rps: max_regression 0.0% (\(a "
                                     r"\+0\.0% change\) is a smaller change than the -\d+\.\d% "
                                     r"this testbed can detect|is below what this testbed can "
                                     r"detect with 5 baseline runs: no change within a factor "
                                     r"of 10)")
        with sqlite3.connect(self.db) as db:
            cv, detectable = db.execute("SELECT cv, detectable_5 FROM calibrations WHERE "
                                        "metric = 'throughput.rps'").fetchone()
        self.assertGreater(cv, 0)
        self.assertGreater(detectable, 0.0001)

    def test_a_calibration_run_that_fails_names_why_and_the_runs_it_stored(self):
        # The first run's workload fails (its histogram is not HdrHistogram V2): no calibration
        # is stored, and the message says why and that the run itself is stored, as every run
        # is (it said "did not complete; nothing stored").
        path = self.scenario(self.RELATIVE)
        broken = self.fault_worker("--mode", "garbage_histogram", "--window", "1")
        cal = self.orchestrator("calibrate", path, "--db", self.db, "--runs", "3",
                                "--worker-bin", broken)
        self.assertEqual(cal.returncode, 3, cal.stdout + cal.stderr)
        self.assertRegex(cal.stderr, r"error: calibration run 1 of e2e_gate_verdicts did not "
                                     r"complete: \S.*; no calibration stored \(run 1 is stored "
                                     r"as an ordinary run\)\n")
        self.assertNotIn("nothing stored", cal.stderr)
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM calibrations").fetchone(), (0,))
            self.assertEqual(db.execute("SELECT id FROM runs").fetchall(), [(1,)])

    def test_calibrate_refuses_too_few_runs_before_anything_starts(self):
        path = self.scenario(self.RELATIVE)
        run = self.orchestrator("calibrate", path, "--db", self.db, "--runs", "2")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("--runs 2: must be from 3 to 1000", run.stderr)
        self.assertFalse(os.path.exists(self.db))


if __name__ == "__main__":
    unittest.main()
