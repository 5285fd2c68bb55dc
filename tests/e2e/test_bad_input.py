"""Invalid scenario files exit 2, name file:line:column and what is wrong, and start
nothing; so do invalid flag values, named with the flag and shown escaped."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import Run, write_scenario

MISSPELLED = """name = "typo"

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
conections = 8
"""


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def test_misspelled_key_exits_2_with_location_and_suggestion(self):
        path = write_scenario(self.dir, "typo.toml", MISSPELLED)
        for command in ("run", "validate"):
            run = Run([command, path]).run()
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(f"{path}:7:1:", run.stderr)
            self.assertIn("did you mean 'connections'", run.stderr)
            self.assertEqual(run.leftovers(wait=0), [])

    def test_a_duplicate_workload_name_names_where_the_first_one_is(self):
        path = write_scenario(self.dir, "twice.toml",
                              'name = "twice"\n\n[[workloads]]\nname = "w"\n\n'
                              '[[workloads]]\nname = "w"\n')
        run = Run(["validate", path]).run()
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"{path}:7:8: error: duplicate workload name 'w' (first given at "
                             f"{path}:4:8)\n"))

    def test_one_invalid_file_stops_every_file(self):
        good = write_scenario(self.dir, "good.toml",
                              'name = "good"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n')
        bad = write_scenario(self.dir, "bad.toml", MISSPELLED)
        run = Run(["run", good, bad]).run()
        self.assertEqual(run.returncode, 2)
        self.assertNotIn("RESULT|", run.stdout)
        self.assertNotIn("scenario good", run.stdout)

    def test_toml_syntax_error_names_line_and_column(self):
        path = write_scenario(self.dir, "syntax.toml", 'name = "x"\n[[workloads]\n')
        run = Run(["validate", path]).run()
        self.assertEqual(run.returncode, 2)
        self.assertRegex(run.stderr, re.escape(path) + r":2:\d+: error:")

    def test_usage_errors_exit_2(self):
        self.assertEqual(Run(["run"]).run().returncode, 2)
        self.assertEqual(Run(["no-such-command"]).run().returncode, 2)
        self.assertEqual(Run(["run", "/nonexistent.toml"]).run().returncode, 2)

    def test_what_is_missing_is_named_with_where_help_is(self):
        cases = [
            ([], "error: `orchestrator` needs a command: run, serve, validate, gate, runs, "
                 "baseline, compare, calibrate, history, report, worker-check; see "
                 "`orchestrator --help`\n"),
            (["runs"], "error: `orchestrator runs` needs a command: list, show; see "
                       "`orchestrator runs --help`\n"),
            (["run"], "error: `orchestrator run` needs its files argument: scenario files "
                      "(TOML); see `orchestrator run --help`\n"),
        ]
        for args, expected in cases:
            run = Run(args).run()
            self.assertEqual((run.returncode, run.stdout, run.stderr), (2, "", expected), args)

    def test_an_option_before_a_group_s_command_says_the_command_is_missing(self):
        # Every command group: the options are its commands', so the command is what is
        # missing, not the option (`baseline --db x` said "unknown option '--db'").
        groups = {"baseline": "add, remove, list", "runs": "list, show", "history": "changes"}
        for group, commands in groups.items():
            for option in (["--db", "x.db"], ["--db=x.db"]):
                run = Run([group, *option]).run()
                self.assertEqual((run.returncode, run.stdout, run.stderr),
                                 (2, "", f"error: `orchestrator {group}` needs a command before "
                                         f"'--db': {commands}; see `orchestrator {group} "
                                         "--help`\n"), (group, option))
        # The whole program too; an unknown option of a command is still named as one.
        run = Run(["--db", "x.db"]).run()
        self.assertEqual(run.returncode, 2)
        self.assertTrue(run.stderr.startswith("error: `orchestrator` needs a command before "
                                              "'--db': run, serve, validate, gate, runs,"),
                        run.stderr)
        run = Run(["baseline", "list", "--dbb", "x.db"]).run()
        self.assertEqual(run.returncode, 2)
        self.assertIn("unknown option '--dbb' for `orchestrator baseline list` (did you mean "
                      "'--db'?)", run.stderr)

    def test_an_option_before_the_command_it_belongs_to_says_where_it_goes(self):
        # A command follows: it is not missing ("`orchestrator` needs a command before '--db'"
        # said it was); the option goes after it, as the example puts it.
        for args, example, command in [
                (["--db", "x.db", "runs", "list"], "runs list --db x.db", "runs list"),
                (["--db=x.db", "runs", "show", "5"], "runs show --db=x.db 5", "runs show"),
                (["--json", "out.json", "run", "a.toml"], "run --json out.json a.toml", "run"),
                (["--json", "compare", "1", "2"], "compare --json 1 2", "compare"),
                (["--strict", "gate", "1"], "gate --strict 1", "gate")]:
            run = Run(args).run()
            self.assertEqual((run.returncode, run.stdout, run.stderr),
                             (2, "", f"error: `orchestrator` takes '{args[0].split('=')[0]}' "
                                     f"after the command, not before it: `orchestrator "
                                     f"{example}` (each command takes its own options after "
                                     f"its name; see `orchestrator {command} --help`)\n"), args)
        run = Run(["baseline", "--db", "x.db", "list", "main"]).run()
        self.assertEqual(run.stderr, "error: `orchestrator baseline` takes '--db' after the "
                                     "command, not before it: `orchestrator baseline list "
                                     "--db x.db main` (each command takes its own options "
                                     "after its name; see `orchestrator baseline list "
                                     "--help`)\n")

    def test_help_as_a_command_points_to_the_help_flag(self):
        for args, expected in [
                (["help"], "error: `orchestrator` has no command 'help': for help, run "
                           "`orchestrator --help` (and `orchestrator COMMAND --help` for a "
                           "command's)\n"),
                (["help", "runs", "list"], "error: `orchestrator` has no command 'help': for "
                                           "help, run `orchestrator runs list --help`\n"),
                (["runs", "help"], "error: `orchestrator runs` has no command 'help': for "
                                   "help, run `orchestrator runs --help` (and `orchestrator "
                                   "runs COMMAND --help` for a command's)\n")]:
            run = Run(args).run()
            self.assertEqual((run.returncode, run.stdout, run.stderr), (2, "", expected), args)

    def test_flags_are_checked_before_anything_runs(self):
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n')
        # calibrate takes run's remote-worker flags and checks them alike (it had no --workers
        # nor --workers-wait).
        for command in ("run", "calibrate"):
            run = Run([command, path, "--workers", "3"]).run()
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stdout, "")
            self.assertIn("error: --workers 3 counts remote workers: give them with --workers-at",
                          run.stderr)
            run = Run([command, path, "--workers-at", "127.0.0.1:1", "--workers-wait",
                       "soon"]).run()
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("error: --workers-wait 'soon': expected a positive duration",
                          run.stderr)
        for command in (["run", path], ["serve", "--scenarios", self.dir], ["gate", "1"],
                        ["report", "1"], ["runs", "list"], ["baseline", "list"],
                        ["compare", "1", "2"], ["history", "changes"], ["calibrate", path]):
            for value in ("soon", "2h"):
                run = Run(command + ["--db-busy-timeout", value]).run()
                self.assertEqual(run.returncode, 2, run.stderr)
                self.assertIn(f"error: --db-busy-timeout '{value}': expected a duration from "
                              "0s to 1h", run.stderr)
        run = Run(["run", path, "--workers", "0", "--workers-at", "127.0.0.1:1"]).run()
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--workers", run.stderr)
        self.assertEqual(run.leftovers(wait=0), [])

    def test_a_control_character_in_a_commit_branch_or_label_exits_2_shown_escaped(self):
        # Stored as given and printed raw by `runs list` and `runs show` before: a forged row,
        # a coloured terminal. Now refused before anything runs, one line, the value escaped.
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n'
                              'target = "/bench/hello"\n')
        db = os.path.join(self.dir, "runs.db")
        for flags, shown in [(["--commit", 'a"b\\\nc\x1b[31m'], "--commit 'a\"b\\\\nc\\x1b[31m'"),
                             (["--branch", "br\nanch"], "--branch 'br\\nanch'"),
                             (["--label", "k\n=v"], "--label 'k\\n=v'"),
                             (["--label", "k=\x1b]0;title\x07"], "--label 'k=\\x1b]0;title\\x07'"),
                             (["--label", "\x1b[31m"], "--label '\\x1b[31m' must be KEY=VALUE")]:
            run = Run(["run", path, "--db", db] + flags).run()
            self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
            self.assertTrue(run.stderr.startswith("error: " + shown), run.stderr)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertNotIn("\x1b", run.stderr)
        self.assertFalse(os.path.exists(db))

    def test_a_label_key_given_twice_exits_2_naming_both_values(self):
        # The map of labels kept the last value. A router binary that does not exist would
        # refuse the run before anything starts, later: the label is refused first.
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n'
                              'target = "/bench/hello"\n')
        db = os.path.join(self.dir, "runs.db")
        run = Run(["run", path, "--db", db, "--label", "a=b", "--label", "ci=yes", "--label",
                   "a=c", "--router-bin", os.path.join(self.dir, "none")]).run()
        self.assertEqual((run.returncode, run.stdout, run.stderr),
                         (2, "", "error: --label key 'a' is given twice ('a=b' and 'a=c'): a "
                                 "key takes one value; give it once\n"))
        self.assertFalse(os.path.exists(db))
        self.assertEqual(run.leftovers(wait=0), [])

    def test_a_branch_from_git_with_invalid_utf8_exits_2_saying_it_came_from_git(self):
        # git takes a branch name with invalid UTF-8; `run --server` refused it, a local run
        # stored it as found, for `runs list` to print. Now both refuse it before anything runs.
        checkout = os.path.join(self.dir, "checkout")
        os.mkdir(checkout)

        def git(*args):
            subprocess.run([b"git", b"-C", checkout.encode(), b"-c", b"user.name=benchgate",
                            b"-c", b"user.email=benchgate@example.com"] + list(args),
                           check=True, capture_output=True)
        git(b"init", b"-q", b"-b", b"bad\xff")
        path = write_scenario(checkout, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n'
                              'target = "/bench/hello"\n')
        git(b"add", b"local.toml")
        git(b"commit", b"-q", b"-m", b"scenario")
        db = os.path.join(self.dir, "runs.db")
        run = Run(["run", path, "--db", db], cwd=checkout).run()
        self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
        self.assertTrue(run.stderr.startswith(
            "error: the branch the git work tree gives ('bad\\xff', not given as --branch) has a "
            "control character (a line break, a tab, an escape) or invalid UTF-8"), run.stderr)
        # A local run stores the branch: the flag gives another to store (`run --server`'s
        # "to send another" is test_serve's).
        self.assertIn("give --branch to store another", run.stderr)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        self.assertFalse(os.path.exists(db))
        self.assertEqual(run.leftovers(wait=0), [])
        # calibrate stores it with every run of its series, checked alike (it stored it as
        # found): refused before its --db, a folder here, is opened, so that nothing runs.
        run = Run(["calibrate", path, "--db", self.dir], cwd=checkout).run()
        self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
        self.assertTrue(run.stderr.startswith(
            "error: the branch the git work tree gives ('bad\\xff', not given as --branch) has a "
            "control character"), run.stderr)
        self.assertIn("give --branch to store another", run.stderr)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        # --branch gives another: the check passes, and the run (and calibrate) goes on to open
        # its --db (a folder here, so that nothing runs).
        for command in ("run", "calibrate"):
            run = Run([command, path, "--db", self.dir, "--branch", "given"], cwd=checkout).run()
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertNotIn("git work tree", run.stderr)
            self.assertIn(self.dir, run.stderr)
        # calibrate's --branch is checked as run's is.
        run = Run(["calibrate", path, "--db", db, "--branch", "br\nanch"]).run()
        self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
        self.assertTrue(run.stderr.startswith("error: --branch 'br\\nanch' has a control "),
                        run.stderr)
        self.assertFalse(os.path.exists(db))

    def test_what_an_adapter_cannot_run_is_refused_when_the_scenario_loads(self):
        # wrk's -d takes whole seconds: a 1.5 s warm-up was accepted by validate and refused
        # only when the workload started, in nanoseconds and as "window 0". Now validate and run
        # refuse it at the key, as written, before anything starts.
        path = write_scenario(self.dir, "adapter.toml",
                              'name = "adapter"\n[worker_impls.wrk]\nadapter = "wrk"\n'
                              '[defaults]\nwarmup = "1.5s"\n[[workloads]]\nname = "a"\n'
                              'worker = "wrk"\n')
        db = os.path.join(self.dir, "runs.db")
        for command in (["validate", path], ["run", path, "--db", db]):
            run = Run(command).run()
            self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
            self.assertIn(path + ":5:1: error: workload 'a': worker 'wrk' (the wrk adapter) "
                          "cannot run a warm-up of 1.5s (wrk -d takes whole seconds)", run.stderr)
            self.assertEqual(run.leftovers(wait=0), [])
        self.assertFalse(os.path.exists(db))

    def test_a_server_address_without_a_port_exits_2_naming_the_flag(self):
        # gRPC dialled "127.0.0.1" at port 0 and the client exited 3, as if the service were down.
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n'
                              'target = "/bench/hello"\n')
        run = Run(["run", "--server", "127.0.0.1", path]).run()
        self.assertEqual((run.returncode, run.stdout), (2, ""), run.stderr)
        self.assertEqual(run.stderr,
                         "error: --server '127.0.0.1' is not an address to connect to: it has no "
                         ":PORT; expected HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", "
                         "\"[::1]:7700\"), dns:NAME:PORT or unix:PATH\n")

    def test_an_unusable_router_or_worker_binary_exits_2_with_nothing_started_or_stored(self):
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n')
        plain = os.path.join(self.dir, "plain")
        with open(plain, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(plain, 0o644)
        db = os.path.join(self.dir, "runs.db")
        missing = os.path.join(self.dir, "none")
        cases = [
            (["--worker-bin", missing], {},
             f"error: worker executable '{missing}' (from --worker-bin): does not exist\n"),
            (["--router-bin", self.dir], {},
             f"error: router executable '{self.dir}' (from --router-bin): is a folder, not a "
             "regular file\n"),
            ([], {"BENCHGATE_WORKER_BIN": missing},
             f"error: worker executable '{missing}' (from $BENCHGATE_WORKER_BIN): does not "
             "exist\n"),
        ]
        if os.geteuid() != 0:  # root may execute a file without execute permission
            cases.append((["--worker-bin", plain], {},
                          f"error: worker executable '{plain}' (from --worker-bin): is not "
                          "executable\n"))
        for flags, env, expected in cases:
            run = Run(["run", path, "--db", db] + flags)
            run.env.update(env)
            run.run()
            self.assertEqual((run.returncode, run.stdout, run.stderr), (2, "", expected), flags)
            self.assertFalse(os.path.exists(db), flags)
            self.assertEqual(run.leftovers(wait=0), [])

    def test_an_empty_report_path_exits_2_before_anything_runs(self):
        path = write_scenario(self.dir, "local.toml",
                              'name = "local"\n[[workloads]]\nname = "a"\nprotocol = "http1"\n')
        db = os.path.join(self.dir, "runs.db")
        for flag in ("--json", "--junit", "--markdown", "--html"):
            run = Run(["run", path, "--db", db, flag, ""]).run()
            self.assertEqual((run.returncode, run.stdout, run.stderr),
                             (2, "", f"error: {flag} '': an empty path names no file; name the "
                                     "file to write\n"), flag)
            self.assertFalse(os.path.exists(db), flag)
            self.assertEqual(run.leftovers(wait=0), [])

    def test_help_is_available_on_every_command(self):
        for args in (["--help"], ["run", "--help"], ["validate", "--help"]):
            run = Run(args).run()
            self.assertEqual(run.returncode, 0, args)
            self.assertIn("Usage", run.stdout)


if __name__ == "__main__":
    unittest.main()
