"""A client of `orchestrator serve` does not move the operator's history (docs/GATES.md,
"Series and baselines"): runs a client submits with the operator's scenario name, workloads and
definition are a series of their own. The operator's next `orchestrator run --db` on the
service's database judges its change gate against the operator's runs only, `history changes`
lists the two series apart, and `runs list` and `runs show` say who started each run. Before,
the client's runs were points of the operator's series. Checks run ids and counts, never
speed: the change gate's alpha needs 50 runs of history, so every verdict is no_baseline, whose
explanation counts the runs the gate was given."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import unittest

from harness import ORCHESTRATOR, Run, kill_tagged, write_scenario

# The operator's scenario; a client submits the same file.
SCENARIO = """
name = "nightly"
[defaults]
warmup = "100ms"
duration = "200ms"
repetitions = 1

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 2

[[gates]]
workload = "hello"
metric = "throughput.rps"
kind = "change"
alpha = 0.02   # needs 50 runs of history: always no_baseline here
"""


class ClientRunsAreASeriesOfTheirOwnTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-serve-history-")
        self.db = os.path.join(self.dir, "serve.db")
        # The operator's scenario in its --scenarios folder (run by `orchestrator run` here, not
        # scheduled: no --every); a client submits a copy of the file.
        scenarios = os.path.join(self.dir, "scenarios")
        os.mkdir(scenarios)
        self.path = write_scenario(scenarios, "nightly.toml", SCENARIO)
        self.service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                            "--db", self.db, "--scenarios", scenarios], cwd=self.dir)
        self.service.start()
        ready = self.service.proc.stdout.readline()
        fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
        self.assertIn("grpc", fields, ready)
        self.grpc = fields["grpc"]

    def tearDown(self):
        if self.service.proc.poll() is None:
            self.service.proc.kill()
            self.service.proc.wait()
        kill_tagged(self.service.tag)
        shutil.rmtree(self.dir, ignore_errors=True)

    def orchestrator(self, *args):
        return subprocess.run([ORCHESTRATOR] + list(args), capture_output=True, text=True,
                              timeout=120, cwd=self.dir)

    def local_run(self):
        run = self.orchestrator("run", self.path, "--db", self.db)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def client_run(self):
        mine = write_scenario(self.dir, "mine.toml", SCENARIO)
        run = self.orchestrator("run", "--server", self.grpc, mine)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def change_gate(self, run_id):
        """The run's change gate: (verdict, explanation, the runs it judged against)."""
        with sqlite3.connect(self.db) as db:
            verdict, explanation, runs = db.execute(
                "SELECT verdict, explanation, baseline_runs FROM gate_results "
                "WHERE run_id = ? AND kind = 'change'", (run_id,)).fetchone()
        return verdict, explanation, json.loads(runs)

    def test_a_clients_runs_never_join_the_operators_series(self):
        self.local_run()    # run 1: the operator's
        self.client_run()   # run 2: a client's, same name, workloads and definition
        self.client_run()   # run 3
        self.local_run()    # run 4: the operator's again
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT id, origin FROM runs ORDER BY id").fetchall(),
                             [(1, "local"), (2, "client"), (3, "client"), (4, "local")])
            # One definition on one testbed: only who submitted the runs tells the series apart.
            self.assertEqual(db.execute(
                "SELECT count(DISTINCT params_hash), count(DISTINCT testbed_id) FROM workloads "
                "JOIN runs ON runs.id = workloads.run_id").fetchone(), (1, 1))

        # The operator's run is judged against the operator's run only; the client's second
        # run against the client's first.
        self.assertEqual(self.change_gate(4)[0], "no_baseline")
        self.assertTrue(self.change_gate(4)[1].startswith("1 run of history: "),
                        self.change_gate(4))
        self.assertEqual(self.change_gate(4)[2], [1])
        self.assertTrue(self.change_gate(3)[1].startswith("1 run of history: "),
                        self.change_gate(3))
        self.assertEqual(self.change_gate(3)[2], [2])
        # Judged again, the stored run has the history it had.
        judged = self.orchestrator("gate", "4", "--db", self.db)
        self.assertEqual(judged.returncode, 0, judged.stdout + judged.stderr)
        self.assertEqual(self.change_gate(4)[2], [1])

        listed = self.orchestrator("history", "changes", "--db", self.db, "--json",
                                   "--metric", "throughput.rps")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        series = json.loads(listed.stdout)["series"]
        self.assertEqual([(s["submitted_by"], s["runs"]) for s in series],
                         [("operator", 2), ("client", 2)])
        operator = self.orchestrator("history", "changes", "--db", self.db, "--json",
                                     "--submitted-by", "operator")
        self.assertEqual(operator.returncode, 0, operator.stderr)
        self.assertEqual({s["submitted_by"] for s in json.loads(operator.stdout)["series"]},
                         {"operator"})
        wrong = self.orchestrator("history", "changes", "--db", self.db,
                                  "--submitted-by", "ci")
        self.assertEqual(wrong.returncode, 2)
        self.assertIn("--submitted-by 'ci': expected operator", wrong.stderr)

        listed = self.orchestrator("runs", "list", "--db", self.db)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertEqual([line.split()[-2] for line in listed.stdout.splitlines()[1:]],
                         ["local", "client", "client", "local"])
        shown = self.orchestrator("runs", "show", "2", "--db", self.db)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("  origin    client (submitted to orchestrator serve; a point of the "
                      "clients' series only)\n", shown.stdout)

        self.service.signal(signal.SIGTERM)
        self.service.finish(timeout=60)
        self.assertEqual(self.service.returncode, 0, self.service.stderr)
        self.assertEqual(self.service.leftovers(), [])


if __name__ == "__main__":
    unittest.main()
