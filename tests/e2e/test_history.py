"""The history commands (runs list/show, baseline add/list/remove, compare) over a database
written by bench_history_fill (tests/e2e/tools/fill_history.cc): three runs with known
repetition values, no load. Exact output, no timing."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from harness import BIN, Run

# Local times print in TZ; UTC makes them exact.
os.environ["TZ"] = "UTC"
FILL = os.path.join(BIN, "bench_history_fill")


def squash(text):
    """Collapses runs of spaces, so checks do not depend on column widths."""
    return re.sub(r" +", " ", text)


class HistoryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-history-")
        self.db = os.path.join(self.dir, "history.db")
        fill = subprocess.run([FILL, self.db], capture_output=True, text=True, timeout=60)
        self.assertEqual(fill.returncode, 0, fill.stderr)
        self.assertEqual(fill.stdout, "run 1\nrun 2\nrun 3\n")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def orchestrator(self, *args, db=None):
        run = Run(list(args) + ["--db", self.db if db is None else db]).run(timeout=60)
        self.assertEqual(run.leftovers(), [])
        return run

    def test_runs_list_shows_runs_newest_first_with_every_column(self):
        run = self.orchestrator("runs", "list")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(
            squash(run.stdout).splitlines(),
            ["ID SCENARIO STATUS STARTED DURATION COMMIT BRANCH EXIT ORIGIN LABELS",
             " 3 history_other failed 2023-11-16 22:13:20 12.5s - feature/x 3 local -",
             " 2 history_demo ok 2023-11-15 22:13:20 1m20s 2222222222 main 0 local ci=yes,pr=42",
             " 1 history_demo ok 2023-11-14 22:13:20 1m05s 1111111111 main 0 local ci=yes"])

    def test_runs_list_filters_by_scenario_and_limits_the_count(self):
        run = self.orchestrator("runs", "list", "--scenario", "history_demo", "--limit", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = squash(run.stdout).splitlines()
        self.assertEqual(len(lines), 2)
        self.assertTrue(lines[1].startswith(" 2 history_demo ok"), lines)
        none = self.orchestrator("runs", "list", "--scenario", "nothing")
        self.assertEqual(none.returncode, 0)
        self.assertEqual(none.stdout, f"no runs of scenario 'nothing' in {self.db}\n")

    def test_runs_show_prints_header_testbed_repetitions_and_gate_verdicts(self):
        run = self.orchestrator("runs", "show", "2")
        self.assertEqual(run.returncode, 0, run.stderr)
        text = squash(run.stdout)
        for expected in [
            "run 2 scenario history_demo status ok (exit 0)\n",
            " started 2023-11-15 22:13:20\n",
            " finished 2023-11-15 22:14:40 (took 1m20s)\n",
            " commit 2222222222cccccccccc\n", " branch main\n", " labels ci=yes,pr=42\n",
            " host bench-a\n", " cpu Test CPU @ 3.00GHz\n", " cores 8\n",
            " kernel Linux 6.1.0 x86_64\n", " governor performance\n",
            " compiler GNU 12.2.0\n", " flags -O3 -DNDEBUG\n",
            "workload faster protocol http1 status ok",
            " REP OPS/S MB/S P50 P90 P99 P99.9 MAX ERRORS FLAGS\n",
            " 1 15000 1.50 1.33ms 1.33ms 1.33ms 1.33ms 1.33ms 0\n",
            " 2 15150 1.51 1.35ms 1.35ms 1.35ms 1.35ms 1.35ms 0\n",
            " 4 9920 0.99 992us 992us 992us 992us 992us 0\n",
            "gates (latest evaluation)\n",
            " pass critical steady latency.p99 1ms 5ms median p99 1ms is within max 5ms\n",
            " fail warning faster throughput.rps 15000 ops/s 20000 ops/s median 15000 ops/s is "
            "below min 20000 ops/s\n",
        ]:
            self.assertIn(expected, text)

    def test_runs_show_of_a_failed_run_shows_the_workload_error(self):
        run = self.orchestrator("runs", "show", "3")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("workload broken  protocol http1  status failed", run.stdout)
        self.assertIn("  error: worker 1 exited with status 1\n"
                      "  workers: 1 worker(s) x 1 thread(s)\n"
                      "  no repetitions measured\n", run.stdout)
        self.assertIn("gates: never evaluated for this run", run.stdout)

    def test_an_unknown_run_is_a_usage_error(self):
        # compare 99 99 names the missing run, not a run compared with itself.
        for args in (["runs", "show", "99"], ["compare", "1", "99"], ["compare", "99", "99"]):
            run = self.orchestrator(*args)
            self.assertEqual(run.returncode, 2, args)
            self.assertEqual(run.stderr, "error: run 99 does not exist\n")

    def test_a_dirty_commit_keeps_its_mark_when_shortened(self):
        # git_revision stores "SHA-dirty" for a run measured on a tree that differed from HEAD:
        # shortened to the SHA alone, it read as the commit's own run.
        with sqlite3.connect(self.db) as db:
            db.execute("UPDATE runs SET commit_id = '6bcb6d6650" + "a" * 30 + "-dirty' "
                       "WHERE id = 1")
        db.close()
        self.assertEqual(self.orchestrator("baseline", "add", "main", "1").returncode, 0)
        runs = self.orchestrator("runs", "list")
        self.assertEqual(squash(runs.stdout).splitlines()[3],
                         " 1 history_demo ok 2023-11-14 22:13:20 1m05s 6bcb6d6650-dirty main 0 "
                         "local ci=yes")
        baselines = self.orchestrator("baseline", "list")
        self.assertEqual(squash(baselines.stdout).splitlines()[1].split(" ")[:4],
                         ["main", "1", "history_demo", "6bcb6d6650-dirty"])

    def test_history_changes_says_how_many_series_are_too_short_to_show_a_change(self):
        # Three runs: no series has the 3 runs on each side a change needs (docs/GATES.md).
        run = self.orchestrator("history", "changes")
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        self.assertEqual(run.stdout,
                         "0 change points in 28 series (42 run values); 28 series too short to "
                         "show a change (fewer than 6 runs: 3 on each side); 28 series computed "
                         "now, not read from the store\n")

    def test_a_run_id_past_the_largest_is_a_usage_error_not_clamped(self):
        # CLI11 read it as the largest id (strtoll clamps) and said that run did not exist.
        huge = "99999999999999999999"
        for args, where, description in [
                (["runs", "show", huge], "runs show` takes a whole number as its RUN argument",
                 "run id (see `runs list`)"),
                (["compare", "1", huge], "compare` takes a whole number as its RUN_B argument",
                 "the new run (another run than RUN_A)"),
                (["baseline", "add", "main", huge],
                 "baseline add` takes a whole number as its RUN argument", "run id")]:
            run = self.orchestrator(*args)
            self.assertEqual(run.returncode, 2, args)
            command = where.split("`")[0]
            self.assertEqual(run.stderr,
                             f"error: `orchestrator {where}, not '{huge}' (too large): "
                             f"{description}; see `orchestrator "
                             f"{command} --help`\n")

    def test_baselines_are_added_listed_and_removed_with_clear_messages(self):
        def check(args, code, out="", err=""):
            run = self.orchestrator("baseline", *args)
            self.assertEqual((run.returncode, run.stdout, run.stderr), (code, out, err), args)
            return run

        check(["list"], 0, f"no baselines in {self.db}\n")
        check(["add", "main", "1"], 0, "added run 1 to baseline 'main' (1 run)\n")
        check(["add", "main", "2"], 0, "added run 2 to baseline 'main' (2 runs)\n")
        check(["add", "main", "2"], 0, "run 2 is already in baseline 'main'\n")
        check(["add", "v2.3", "1"], 0, "added run 1 to baseline 'v2.3' (1 run)\n")
        listing = self.orchestrator("baseline", "list")
        self.assertEqual(listing.returncode, 0)
        rows = [squash(l).strip().split(" ")[:4] for l in listing.stdout.splitlines()]
        self.assertEqual(rows, [["BASELINE", "RUN", "SCENARIO", "COMMIT"],
                                ["main", "2", "history_demo", "2222222222"],
                                ["main", "1", "history_demo", "1111111111"],
                                ["v2.3", "1", "history_demo", "1111111111"]])
        only_main = self.orchestrator("baseline", "list", "main")
        self.assertEqual(len(only_main.stdout.splitlines()), 3)
        check(["remove", "main", "1"], 0, "removed run 1 from baseline 'main'\n")
        check(["remove", "main", "1"], 2,
              err="error: baseline remove: run 1 is not in baseline 'main'\n")
        after = self.orchestrator("baseline", "list", "main")
        self.assertEqual([squash(l).strip().split(" ")[:2] for l in after.stdout.splitlines()],
                         [["BASELINE", "RUN"], ["main", "2"]])
        check(["list", "nothing"], 0, "baseline 'nothing' has no runs\n")
        # A name no baseline has: said, with the names there are.
        check(["remove", "mian", "2"], 2,
              err="error: baseline remove: there is no baseline named 'mian' (did you mean "
                  "'main'?); the baselines: 'main', 'v2.3' (`orchestrator baseline list`)\n")

    def test_removing_from_a_baseline_when_there_is_none_says_so(self):
        run = self.orchestrator("baseline", "remove", "nosuch", "1")
        self.assertEqual((run.returncode, run.stdout, run.stderr),
                         (2, "", "error: baseline remove: there is no baseline named 'nosuch'; "
                                 "this database has no baselines\n"))

    def test_baseline_add_refuses_failed_unknown_runs_and_bad_names(self):
        for args, message in [
            (["3"], "error: baseline add: run 3 did not finish ok (status failed); only "
                    "successful runs can be a baseline\n"),
            (["42"], "error: baseline add: run 42 does not exist\n"),
        ]:
            run = self.orchestrator("baseline", "add", "main", *args)
            self.assertEqual((run.returncode, run.stderr), (2, message))
        bad = self.orchestrator("baseline", "add", "bad/name", "1")
        self.assertEqual(bad.returncode, 2)
        self.assertTrue(bad.stderr.startswith("error: baseline name 'bad/name'"), bad.stderr)

    def test_compare_prints_tilde_for_noise_and_a_change_with_p_for_a_real_shift(self):
        run = self.orchestrator("compare", "1", "2")
        self.assertEqual(run.returncode, 0, run.stderr)
        text = squash(run.stdout)
        steady = text[text.index("workload steady\n"):text.index("workload faster\n")]
        faster = text[text.index("workload faster\n"):]
        # Interleaved repetitions: every metric unchanged, its change printed after the "~";
        # equal figures are "=".
        self.assertIn("throughput.rps 10000 ops/s 10000 ops/s = [", steady)
        # The run columns are the runs' figures, as RESULT lines and gates give them: p99 of
        # every repetition's histogram merged (1.01ms), not the median of the repetitions'
        # p99s (1ms), which the interval and p are over.
        self.assertIn("latency.p99 1.01ms 1.01ms ~ -0.20% [", steady)
        self.assertIn("errors.count 0 0 = - p=1.000 n=5+5\n", steady)
        self.assertIn("RUN 1, RUN 2: each run's figures, as its RESULT lines, reports and gates "
                      "give them\n", text)
        self.assertNotIn("%] p=0.008", steady)
        # Every repetition 50% faster: the exact two-sided minimum p for 5 + 5 (0.00794).
        self.assertRegex(faster, r"throughput\.rps 10000 ops/s 15000 ops/s \+50\.00% "
                                 r"\[\+\d+\.\d\d%, \+\d+\.\d\d%\] p=0\.008 n=5\+5\n")
        self.assertRegex(faster, r"throughput\.bytes_per_s 1\.00 MB/s 1\.50 MB/s \+50\.00% ")
        self.assertRegex(faster, r"latency\.p50 2ms 1\.33ms -33\.\d\d% \[-\d+\.\d\d%, "
                                 r"-\d+\.\d\d%\] p=0\.008 n=5\+5\n")
        self.assertIn("only in run 1: workload retired\n", text)
        self.assertIn("only in run 2: workload added\n", text)
        self.assertNotIn("note:", text)

    def test_compare_notes_different_testbeds_and_definitions(self):
        run = self.orchestrator("compare", "2", "3")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("note: the runs were measured on different testbeds (run 2 on bench-a, "
                      "run 3 on bench-b)", run.stdout)
        # The note names what differs, as a no_baseline verdict does.
        self.assertIn("workload steady\n  note: definitions differ in connections (run 2: 16, "
                      "run 3: 32); the figures are not one series\n", run.stdout)
        self.assertIn("only in run 3: workload broken\n", run.stdout)

    def test_compare_of_a_run_with_itself_is_refused(self):
        run = self.orchestrator("compare", "2", "2")
        self.assertEqual(run.returncode, 2, run.stdout)
        self.assertEqual(run.stdout, "")
        self.assertEqual(run.stderr, "error: compare 2 2: a run compared with itself shows no "
                                     "change; give two different runs\n")

    def test_compare_notes_a_run_that_did_not_end_ok_and_different_scenarios(self):
        run = self.orchestrator("compare", "2", "3")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("\nnote: run 3 failed: its figures are those stored before it failed\n",
                      run.stdout)
        self.assertIn("\nnote: the runs are of different scenarios (run 2 of history_demo, run 3 "
                      "of history_other); ", run.stdout)
        self.assertNotIn("note: run 2 ", run.stdout)

    def test_compare_json_is_one_document_with_the_tables_figures_and_notes(self):
        run = self.orchestrator("compare", "2", "3", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        doc = json.loads(run.stdout)
        self.assertEqual((doc["run_a"]["id"], doc["run_b"]["id"]), (2, 3))
        self.assertEqual(doc["run_b"]["status"], "failed")
        self.assertTrue(doc["testbeds_differ"])
        self.assertIn("run 3 failed: its figures are those stored before it failed", doc["notes"])
        self.assertEqual(doc["only_in_b"], ["broken"])
        steady = [w for w in doc["workloads"] if w["name"] == "steady"][0]
        self.assertTrue(steady["definitions_differ"])
        self.assertEqual(steady["definition_changes"], ["connections (run 2: 16, run 3: 32)"])
        self.assertEqual([m["metric"] for m in steady["metrics"]],
                         ["throughput.rps", "throughput.bytes_per_s", "latency.p50",
                          "latency.p99", "latency.p999", "errors.count"])

    def test_compare_rejects_an_alpha_outside_zero_to_one(self):
        run = self.orchestrator("compare", "1", "2", "--alpha", "1.5")
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr, "error: --alpha must lie strictly between 0 and 1\n")

    def test_a_missing_database_is_an_error_and_is_not_created(self):
        missing = os.path.join(self.dir, "missing.db")
        for args in (["runs", "list"], ["runs", "show", "1"], ["baseline", "list"],
                     ["baseline", "add", "main", "1"], ["compare", "1", "2"]):
            run = self.orchestrator(*args, db=missing)
            self.assertEqual(run.returncode, 2, args)
            self.assertEqual(run.stderr, f"error: no database at {missing}; run `orchestrator "
                                         f"run` first or pass --db\n")
            self.assertFalse(os.path.exists(missing))

    def test_a_file_that_is_not_a_database_is_a_usage_error_as_for_run(self):
        bad = os.path.join(self.dir, "bad.db")
        with open(bad, "w") as f:
            f.write("not sqlite\n" * 100)
        run = self.orchestrator("runs", "list", db=bad)
        self.assertEqual(run.returncode, 2)
        self.assertTrue(run.stderr.startswith("error: ") and "not a SQLite database" in run.stderr,
                        run.stderr)

    def test_an_empty_file_and_another_programs_database_are_refused_and_left_unchanged(self):
        empty = os.path.join(self.dir, "zero.db")
        open(empty, "w").close()
        foreign = os.path.join(self.dir, "foreign.db")
        with sqlite3.connect(foreign) as other:
            other.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, what TEXT)")
            other.execute("INSERT INTO runs (what) VALUES ('theirs')")
        other.close()
        with open(foreign, "rb") as f:
            foreign_bytes = f.read()
        # A schema version past this build's without benchgate's tables: still not a store, so
        # not switched to WAL mode (which would change the file) before a refusal.
        newer = os.path.join(self.dir, "newer.db")
        with sqlite3.connect(newer) as other:
            other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
            other.execute("PRAGMA user_version = 42")
        other.close()
        with open(newer, "rb") as f:
            newer_bytes = f.read()
        for args in (["runs", "list"], ["runs", "show", "1"], ["baseline", "list"],
                     ["baseline", "add", "main", "1"], ["compare", "1", "2"],
                     ["history", "changes"], ["gate", "1"]):
            run = self.orchestrator(*args, db=empty)
            self.assertEqual(run.returncode, 2, args)
            self.assertTrue(run.stderr.startswith(f"error: '{empty}' is not a benchgate "
                                                  "database: it holds nothing"), run.stderr)
            self.assertEqual(os.path.getsize(empty), 0, args)
            run = self.orchestrator(*args, db=foreign)
            self.assertEqual(run.returncode, 2, args)
            self.assertEqual(run.stderr, f"error: '{foreign}' is not a benchgate database: it "
                                         "is a SQLite database holding 'runs', without "
                                         "benchgate's schema; it was left unchanged: choose "
                                         "another file with --db\n")
            with open(foreign, "rb") as f:
                self.assertEqual(f.read(), foreign_bytes, args)
            run = self.orchestrator(*args, db=newer)
            self.assertEqual(run.returncode, 2, args)
            self.assertEqual(run.stderr, f"error: '{newer}' is not a benchgate database: it "
                                         "is a SQLite database holding 'notes', without "
                                         "benchgate's schema; it was left unchanged: choose "
                                         "another file with --db\n")
            with open(newer, "rb") as f:
                self.assertEqual(f.read(), newer_bytes, args)

    def test_a_name_that_keeps_nothing_is_refused_naming_the_flag(self):
        for name in ("", ":memory:", "file:history.db?mode=memory"):
            run = self.orchestrator("runs", "list", db=name)
            self.assertEqual(run.returncode, 2, name)
            self.assertTrue(run.stderr.startswith(f"error: --db '{name}': "), run.stderr)

    def test_a_lock_past_the_busy_timeout_is_exit_2_when_opening_and_3_on_a_later_write(self):
        # Held by another connection: reads go on beside it, a write gives up after the wait.
        holder = sqlite3.connect(self.db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            run = self.orchestrator("runs", "list", "--db-busy-timeout", "100ms")
            self.assertEqual(run.returncode, 0, run.stderr)
            run = self.orchestrator("baseline", "add", "main", "1", "--db-busy-timeout", "100ms")
            self.assertEqual(run.returncode, 3, run.stderr)
            self.assertEqual(run.stderr, "error: baseline add: the database is locked by "
                                         "another process (gave up after waiting 100 ms for "
                                         "it; --db-busy-timeout sets the wait)\n")
        finally:
            holder.close()
        # A database that cannot even be read while it is opened (another program's write in
        # rollback-journal mode, before benchgate made it a store): exit code 2.
        fresh = os.path.join(self.dir, "fresh.db")
        holder = sqlite3.connect(fresh, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("CREATE TABLE pending (x)")
        try:
            run = self.orchestrator("baseline", "add", "main", "1", "--db-busy-timeout", "100ms",
                                    db=fresh)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stderr, f"error: database '{fresh}' is locked by another "
                                         "process (gave up after waiting 100 ms for it; "
                                         "--db-busy-timeout sets the wait)\n")
        finally:
            holder.close()

    def test_the_readme_queries_answer_from_a_filled_database(self):
        readme = os.path.join(os.path.dirname(__file__), "../../README.md")
        with open(readme) as f:
            text = f.read()
        section = text[text.index("## Stored results"):text.index("## Navigating the code")]
        queries = [q.replace("'quickstart'", "'history_demo'").replace("'http_hello'", "'steady'")
                   for q in re.findall(r"```sql\n(.*?)```", section, re.S)]
        self.assertEqual(len(queries), 3)
        for args in (["main", "1"], ["main", "2"]):
            self.assertEqual(self.orchestrator("baseline", "add", *args).returncode, 0)
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            p99, runs, gates = [db.execute(q).fetchall() for q in queries]
        finally:
            db.close()
        # The p99 of every repetition merged (the figure the report prints): the slowest
        # repetition's latency, not the median of the repetitions' p99s.
        self.assertEqual([(r[0], r[3]) for r in p99], [(2, 1.008), (1, 1.01)])
        self.assertEqual([(r[0], r[1], r[2], r[6]) for r in runs],
                         [(2, "ok", 0, 80.0), (1, "ok", 0, 65.0)])
        self.assertEqual([(r[0], r[2], r[3], r[4]) for r in gates],
                         [(2, "steady", "latency.p99", "pass"),
                          (2, "faster", "throughput.rps", "fail")])

    def test_every_history_command_has_a_description_in_its_help(self):
        for args, description in [
            (["runs", "list"], "List stored runs, newest first"),
            (["runs", "show"], "Show one run"),
            (["baseline", "add"], "Add a run that finished ok with exit code 0"),
            (["baseline", "list"], "List the runs of one baseline"),
            (["baseline", "remove"], "Remove a run from a baseline"),
            (["compare"], "Compare two stored runs, benchstat-style"),
        ]:
            run = Run(args + ["--help"]).run(timeout=30)
            self.assertEqual(run.returncode, 0, args)
            self.assertIn(description, run.stdout)
            self.assertIn("--db", run.stdout)


if __name__ == "__main__":
    unittest.main()
