"""`orchestrator worker-check` passes the bundled worker (HTTP/1.1, and with --protocol h2c and
WAMP over RawSocket) and the Python example worker, fails a worker that never answers (exit 1,
naming the failed rule, nothing left behind), one that does not list the protocol asked, and
one that breaks one rule of the protocol (lying_worker.py), the Python
worker runs its example scenario through [worker_impls], a [worker_impls] worker that never
says READY fails at its own startup_timeout, and one whose command names a missing path fails
its workloads (exit 3) naming it, where a bare name off PATH is not_configured."""
import json
import os
import shutil
import tempfile
import unittest

from harness import BIN, Run, write_scenario

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_WORKER = os.path.join(ROOT, "examples", "python_worker", "worker.py")
PYTHON_SCENARIO = os.path.join(ROOT, "examples", "python_worker", "scenario.toml")
LYING_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lying_worker.py")


def has_python_grpc():
    try:
        import grpc  # noqa: F401  pylint: disable=import-outside-toplevel
        return os.path.exists("/usr/bin/protoc")
    except ImportError:
        return False


class WorkerCheckTest(unittest.TestCase):
    def test_bundled_worker_passes_every_rule(self):
        run = Run(["worker-check", "--", os.path.join(BIN, "worker")]).run(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("FAIL", run.stdout)
        for rule in ("prints READY", "answers Describe", "ready comes first",
                     "window 2: latency count equals successes",
                     "stream ends cleanly (OK) after WritesDone",
                     "stream closed mid-window: no result for the window after WritesDone",
                     "stream closed mid-window: the stream ends OK within 2 s of WritesDone",
                     "stream closed mid-window: after it, the worker takes a new stream and gets "
                     "ready", "exits on SIGTERM"):
            self.assertIn("PASS  " + rule, run.stdout)
        self.assertEqual(run.leftovers(), [])

    def check_bundled_worker_passes(self, *flags):
        """worker-check FLAGS of the bundled worker: every rule passes; its stdout."""
        run = Run(["worker-check", *flags, "--", os.path.join(BIN, "worker")]).run(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("FAIL", run.stdout)
        self.assertNotIn("SKIP", run.stdout)
        self.assertEqual(run.leftovers(), [])
        return run.stdout

    def test_bundled_worker_passes_every_rule_over_h2c(self):
        out = self.check_bundled_worker_passes("--protocol", "http2")
        for rule in ("Describe lists protocol http2 and load model closed",
                     "Run stream accepts the spec: http2 (h2c, prior knowledge): GET /bench/hello, "
                     "1 stream per connection, 2 connections",
                     "ready counts the connections: 2 of 2",
                     "window 2: latency count equals successes",
                     "window 2: errors are of http2's kinds, none of WAMP's",
                     "stream closed mid-window: the stream ends OK within 2 s of WritesDone",
                     "exits on SIGTERM"):
            self.assertIn("PASS  " + rule, out)

    def test_bundled_worker_passes_every_rule_over_wamp_rawsocket(self):
        out = self.check_bundled_worker_passes("--protocol", "wamp_rpc", "--wamp-transport",
                                               "rawsocket", "--wamp-serializer", "msgpack")
        for rule in ("Describe lists protocol wamp_rpc and load model closed",
                     "Run stream accepts the spec: wamp_rpc over rawsocket (msgpack): CALL "
                     "bench.echo (the router answers), 1 in flight per session, 2 caller "
                     "sessions",
                     "ready counts the connections: 2 of 2",
                     "window 2: latency count equals successes",
                     "stream closed mid-window: the stream ends OK within 2 s of WritesDone",
                     "exits on SIGTERM"):
            self.assertIn("PASS  " + rule, out)
        # What is HTTP's alone is not asked of WAMP.
        self.assertNotIn("none of WAMP's", out)

    def test_a_protocol_flag_that_is_no_protocol_is_a_usage_error_naming_it(self):
        run = Run(["worker-check", "--protocol", "h2c", "--", os.path.join(BIN, "worker")])
        run.run(timeout=30)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(run.stderr, "error: --protocol 'h2c' is not one of http1, http2, "
                         "wamp_rpc, wamp_pubsub, wamp_transfer (HTTP/2, h2c with prior "
                         "knowledge, is http2)\n")
        self.assertEqual(run.stdout, "")  # nothing started
        self.assertEqual(run.leftovers(), [])

    def test_worker_that_never_answers_fails_clearly_and_leaves_nothing(self):
        # A failed rule keeps the worker's log folder; it is made in a folder of the test's own.
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["worker-check", "--timeout", "3s", "--", "/bin/sh", "-c",
                   "echo READY grpc=127.0.0.1:1; sleep 30"])
        run.env["TMPDIR"] = tmp
        run.run(timeout=60)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("PASS  prints READY", run.stdout)
        self.assertIn("FAIL  answers Describe", run.stdout)
        self.assertIn("SKIP", run.stdout)
        self.assertEqual(len(os.listdir(tmp)), 1, os.listdir(tmp))
        self.assertIn("child process logs: " + tmp + "/", run.stdout)
        self.assertEqual(run.leftovers(), [])

    def test_a_ready_line_whose_grpc_field_is_not_an_address_fails_saying_why(self):
        # The rule `run` reads a READY line by (sut::check_ready_line), not only that grpc= is
        # there: garbage after the port is named, escaped, and nothing is dialled.
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["worker-check", "--timeout", "3s", "--", "/bin/sh", "-c",
                   "printf 'READY grpc=127.0.0.1:1\\033[31mxxx\\n'; sleep 30"])
        run.env["TMPDIR"] = tmp
        run.run(timeout=60)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("FAIL  prints READY grpc=HOST:PORT: the worker printed an unexpected READY "
                      "line 'READY grpc=127.0.0.1:1\\x1b[31mxxx': grpc= '127.0.0.1:1\\x1b[31mxxx' "
                      "is not an address to connect to: its port '1\\x1b[31mxxx' is not a number "
                      "from 1 to 65535", run.stdout)
        self.assertNotIn("\x1b", run.stdout)
        self.assertEqual(run.leftovers(), [])

    def test_logs_are_removed_when_every_rule_passes_and_kept_when_one_fails(self):
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["worker-check", "--", os.path.join(BIN, "worker")])
        run.env["TMPDIR"] = tmp  # the orchestrator's private folder is made here
        run.run(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(os.listdir(tmp), [], "left behind after every rule passed")
        self.assertNotIn("child process logs", run.stdout)

        run = Run(["worker-check", "--timeout", "3s", "--", "/bin/sh", "-c",
                   "echo READY grpc=127.0.0.1:1; echo why >&2; sleep 30"])
        run.env["TMPDIR"] = tmp
        run.run(timeout=60)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        kept = [os.path.join(tmp, name) for name in os.listdir(tmp)]
        self.assertEqual(len(kept), 1, kept)
        self.assertIn("child process logs: " + kept[0], run.stdout)
        with open(os.path.join(kept[0], "worker.stderr.log")) as f:
            self.assertEqual(f.read(), "why\n")
        self.assertEqual(run.leftovers(), [])

    def test_a_worker_program_that_is_not_there_is_a_usage_error_and_starts_nothing(self):
        # A mistyped path is the user's error (exit 2), not a worker that broke a rule (exit 1,
        # which it was: 'FAIL worker starts'); nothing is started, so no log folder is made
        # (README.md, "Failure behaviour": kept when it holds a log).
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        missing = os.path.join(tmp, "no-such-worker")
        run = Run(["worker-check", "--", missing])
        run.env["TMPDIR"] = tmp
        run.run(timeout=60)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(run.stderr, f"error: worker command '{missing}': no executable program "
                                     "there (a path, or a name on PATH); nothing was started\n")
        self.assertEqual(run.stdout, "")
        self.assertEqual(os.listdir(tmp), [])
        self.assertEqual(run.leftovers(), [])

    def test_missing_command_is_a_usage_error(self):
        run = Run(["worker-check"]).run()
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        run = Run(["worker-check", "--timeout", "soon", "--", "/bin/true"]).run()
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        # A number without a unit is told the units, as every duration flag does.
        run = Run(["worker-check", "--timeout", "5", "--", "/bin/true"]).run()
        self.assertEqual((run.returncode, run.stderr),
                         (2, "error: --timeout '5': expected a positive duration such as 30s "
                             "(units: ns, us, ms, s, m, h)\n"))

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_python_example_worker_passes_every_rule(self):
        run = Run(["worker-check", "--", "/usr/bin/python3", PYTHON_WORKER]).run(timeout=90)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("FAIL", run.stdout)
        self.assertEqual(run.leftovers(), [])

    def lying_worker_check(self, mode, *flags):
        """worker-check FLAGS of lying_worker.py --mode MODE: its FAIL lines (exit 1 expected)."""
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["worker-check", *flags, "--", "/usr/bin/python3", LYING_WORKER, "--mode", mode])
        run.env["TMPDIR"] = tmp  # the logs kept for the failed rule
        run.run(timeout=90)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])
        return [line for line in run.stdout.splitlines() if line.startswith("FAIL")]

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_result_after_the_stream_was_closed_mid_window_fails_that_rule(self):
        # `run` half-closes a failed or interrupted workload's streams mid-window and uses the
        # workers again: the window's result must not come (docs/WORKER_PROTOCOL.md).
        self.assertEqual(self.lying_worker_check("result-after-close"), [
            "FAIL  stream closed mid-window: no result for the window after WritesDone: "
            "1 result(s) after WritesDone"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_worker_that_sends_no_ready_is_told_so_with_the_timeout(self):
        # Not "the stream ended before ready: DEADLINE_EXCEEDED": the stream never ended.
        self.assertEqual(self.lying_worker_check("no-ready", "--timeout", "8s"), [
            "FAIL  ready comes first: the worker sent no Ready before worker-check's --timeout "
            "(8s, for the whole check) ran out"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_worker_that_sends_no_result_is_told_the_timeout_ran_out(self):
        # The stream did not end: the check's time ran out while it waited for the result.
        self.assertEqual(self.lying_worker_check("no-result", "--timeout", "8s"), [
            "FAIL  window 0: one result per window: the worker sent no result for the window "
            "before worker-check's --timeout (8s, for the whole check) ran out"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_worker_that_crashes_in_a_window_is_named_with_its_exit_status(self):
        failed = self.lying_worker_check("crash-in-window")
        self.assertEqual(len(failed), 2, failed)
        self.assertRegex(failed[0], r"^FAIL  window 0: one result per window: the stream ended "
                         r"before result for the window: [A-Z_]+: .*; the worker exited with "
                         r"status 3$")
        self.assertEqual(failed[1], "FAIL  exits on SIGTERM: already gone: exited with status 3")

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_second_result_for_a_window_fails_in_the_words_run_refuses_it(self):
        # One rule for both (workers/result_checks.h OneResultPerWindow): the second result of
        # window 0 comes while window 1 runs, and is not taken for window 1's.
        self.assertEqual(self.lying_worker_check("double-result"), [
            "FAIL  window 1: one result per window: the worker sent a malformed result: a second "
            "result for window 0"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_describe_without_http1_says_what_it_listed(self):
        self.assertEqual(self.lying_worker_check("http2-only"), [
            "FAIL  Describe lists protocol http1 and load model closed: it lists protocols "
            "http2; load models closed"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_worker_without_the_protocol_asked_fails_describe_and_runs_nothing(self):
        # The example worker lists http1 only: told so, no stream opened, no hang.
        tmp = tempfile.mkdtemp(prefix="benchgate-e2e-wc-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        run = Run(["worker-check", "--protocol", "wamp_pubsub", "--", "/usr/bin/python3",
                   PYTHON_WORKER])
        run.env["TMPDIR"] = tmp
        run.run(timeout=60)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual([line for line in run.stdout.splitlines() if line.startswith("FAIL")], [
            "FAIL  Describe lists protocol wamp_pubsub and load model closed: it lists protocols "
            "http1; load models closed"])
        self.assertIn("SKIP  the Run stream checks (after an earlier failure)", run.stdout)
        self.assertIn("PASS  exits on SIGTERM", run.stdout)
        self.assertIn("worker-check: 4 passed, 1 failed, 1 skipped", run.stdout)
        self.assertEqual(run.leftovers(), [])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_an_http_result_counting_a_wamp_error_kind_fails_that_rule(self):
        # `lost` is a kind of the worker protocol, so the rule on every protocol's kinds passes;
        # HTTP/1.1 has no such failure (docs/WORKER_PROTOCOL.md, "What a result must contain").
        self.assertEqual(self.lying_worker_check("wamp-kind"), [
            "FAIL  window %d: errors are of http1's kinds, none of WAMP's: http1 defines no "
            "errors of kind lost (WAMP's kinds)" % window for window in range(3)])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_a_worker_of_another_service_fails_describe_at_once_naming_the_service(self):
        # UNIMPLEMENTED is a final answer: not asked again until a deadline, which would end
        # in "did not answer Describe before its deadline".
        self.assertEqual(self.lying_worker_check("wrong-service", "--timeout", "60s"), [
            "FAIL  answers Describe: the worker does not serve benchgate.v1.Worker's Describe "
            "(UNIMPLEMENTED: Method not found!): check that it registers the service "
            "benchgate.v1.Worker (package benchgate.v1 of proto/benchgate/v1/worker.proto) with "
            "the method Describe"])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_run_fails_a_worker_of_another_service_at_once_naming_the_service(self):
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "v2_worker"
[worker_impls.v2]
command = ["/usr/bin/python3", "%s", "--mode", "wrong-service"]
startup_timeout = "60s"
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "v2"
worker = "v2"
protocol = "http1"
target = "/bench/hello"
""" % LYING_WORKER)
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out).run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("worker 'v2' did not start: worker 0 does not serve benchgate.v1.Worker's "
                      "Describe (UNIMPLEMENTED", run.stdout + run.stderr)
        self.assertNotIn("before its deadline", run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_run_refuses_a_second_result_for_a_window_naming_that_window(self):
        # One result per window: the second one of window 0 (it comes while window 1 runs) is
        # a malformed result of window 0, not a result "for window 0 while window 1 was
        # running", and no figure of the run is made from it.
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "double_result"
[worker_impls.double]
command = ["/usr/bin/python3", "%s", "--mode", "double-result"]
startup_timeout = "60s"
[defaults]
warmup = "0s"
duration = "300ms"
repetitions = 2
[[workloads]]
name = "double"
worker = "double"
protocol = "http1"
target = "/bench/hello"
""" % LYING_WORKER)
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out)
        run.env["TMPDIR"] = out  # the logs a run error keeps
        run.run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("worker 0 sent a malformed result: a second result for window 0",
                      run.stdout + run.stderr)
        self.assertNotIn("was running", run.stdout + run.stderr)
        statuses = {line["workload"]: line["status"] for line in run.result_lines()}
        self.assertEqual(statuses, {"double": "failed"}, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_run_refuses_a_workload_whose_protocol_the_worker_does_not_list(self):
        # Refused at the workload's start, naming the worker, what its Describe lists and what
        # the workload asks for; the bundled worker's workload still runs.
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "http2_only"
[worker_impls.h2]
command = ["/usr/bin/python3", "%s", "--mode", "http2-only"]
startup_timeout = "60s"
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "h1"
worker = "h2"
protocol = "http1"
target = "/bench/hello"
[[workloads]]
name = "bundled"
protocol = "http1"
target = "/bench/hello"
""" % LYING_WORKER)
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out)
        run.env["TMPDIR"] = out  # the logs a run error keeps
        run.run(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("FAILED: worker 'h2' (command /usr/bin/python3 %s --mode http2-only) lists "
                      "protocols http2; workload 'h1' asks for http1" % LYING_WORKER,
                      run.stdout + run.stderr)
        statuses = {line["workload"]: line["status"] for line in run.result_lines()}
        self.assertEqual(statuses, {"h1": "failed", "bundled": "ok"}, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    @unittest.skipUnless(has_python_grpc(), "python3-grpcio or protoc missing")
    def test_python_example_scenario_runs_through_worker_impls(self):
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        report = os.path.join(out, "out.json")
        run = Run(["run", PYTHON_SCENARIO, "--db", os.path.join(out, "b.db"), "--json", report],
                  cwd=out).run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        lines = run.result_lines()
        self.assertEqual(len(lines), 1, run.stdout)
        self.assertEqual(lines[0]["workload"], "hello_python")
        self.assertEqual(lines[0]["status"], "ok")
        self.assertGreater(float(lines[0]["rps"]), 0)
        # The worker program the orchestrator started is among the run's binaries, as a command
        # system under test is: here the interpreter, with the script as its argument.
        with open(report) as f:
            binaries = json.load(f)["scenarios"][0]["binaries"]
        workers = [b for b in binaries if b["role"] == "worker python"]
        self.assertEqual(len(workers), 1, binaries)
        self.assertEqual(workers[0]["origin"], "command")
        self.assertEqual(workers[0]["path"], os.path.realpath("/usr/bin/python3"))
        self.assertTrue(workers[0]["arguments"].endswith("/examples/python_worker/worker.py"),
                        workers[0])
        self.assertEqual(run.leftovers(), [])

    def test_the_reports_say_the_threads_the_python_worker_runs_beside_the_scenarios(self):
        # examples/python_worker says Ready.threads 1 whatever it is asked: the header, the
        # JSON and `runs show` say so beside the scenario's 2 (docs/REPORTS.md, "Per workload").
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", f"""name = "python_threads"
[worker_impls.python]
command = ["/usr/bin/python3", "{PYTHON_WORKER}"]
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "hello_python"
worker = "python"
protocol = "http1"
target = "/bench/hello"
connections = 4
threads = 2
""")
        db = os.path.join(out, "b.db")
        report = os.path.join(out, "out.json")
        run = Run(["run", path, "--db", db, "--json", report], cwd=out).run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(", 1 worker(s) x 2 thread(s) (the worker runs 1), closed loop\n", run.stdout)
        with open(report) as f:
            workload = json.load(f)["scenarios"][0]["workloads"][0]
        self.assertEqual(workload["worker_threads"], [1], workload)
        show = Run(["runs", "show", str(run.result_lines()[0]["run"]), "--db", db]).run()
        self.assertEqual(show.returncode, 0, show.stdout + show.stderr)
        self.assertIn("  workers: 1 worker(s) x 2 thread(s) (the worker runs 1)\n", show.stdout)
        # The HTML report of the stored run says what the run's own terminal said.
        again = Run(["report", str(run.result_lines()[0]["run"]), "--db", db], cwd=out).run()
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        with open(os.path.join(out, again.stdout.split()[1])) as f:
            self.assertIn(" &#183; 1 worker(s) x 2 thread(s) (the worker runs 1) &#183; ", f.read())
        self.assertEqual(run.leftovers(), [])

    def test_uninstalled_worker_program_is_reported_not_configured(self):
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "missing_worker"
[worker_impls.ghost]
command = ["benchgate-no-such-worker-program"]
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "ghost"
worker = "ghost"
protocol = "http1"
target = "/bench/hello"
""")
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out).run(timeout=60)
        self.assertIn("not_configured", run.stdout + run.stderr)
        self.assertIn("benchgate-no-such-worker-program", run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    def test_a_worker_program_path_that_is_missing_fails_its_workloads_naming_it(self):
        # A path (with a '/') is a file the scenario names, not an uninstalled program: a typo in
        # it fails the run (exit 3), naming it and the folder a relative one is resolved against,
        # never not_configured, which fails nothing; the other workloads still run.
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "typo_worker"
[worker_impls.typo]
command = ["./no-such-folder/worker", "--flag"]
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "typo"
worker = "typo"
protocol = "http1"
target = "/bench/hello"
[[workloads]]
name = "bundled"
protocol = "http1"
target = "/bench/hello"
""")
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out)
        run.env["TMPDIR"] = out  # the logs a run error keeps
        run.run(timeout=60)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(len([n for n in os.listdir(out) if n.startswith("benchgate-run-")]), 1,
                         os.listdir(out))
        self.assertIn("worker 'typo': the command's program './no-such-folder/worker' (a relative "
                      "path, resolved against the working directory " + os.path.realpath(out) +
                      ") does not exist", run.stdout + run.stderr)
        self.assertNotIn("not_configured", run.stdout + run.stderr)
        statuses = {line["workload"]: line["status"] for line in run.result_lines()}
        self.assertEqual(statuses, {"typo": "failed", "bundled": "ok"}, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    def test_a_compared_worker_whose_program_path_is_missing_fails_its_variant(self):
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        missing = os.path.join(out, "build", "worker")
        path = write_scenario(out, "s.toml", """name = "typo_compare"
[worker_impls.cand]
command = ["%s"]
[compare]
workers = ["builtin", "cand"]
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 2
[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
""" % missing)
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out)
        run.env["TMPDIR"] = out  # the logs a run error keeps
        run.run(timeout=60)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertEqual(len([n for n in os.listdir(out) if n.startswith("benchgate-run-")]), 1,
                         os.listdir(out))
        self.assertIn("worker 'cand': the command's program '%s' does not exist" % missing,
                      run.stdout + run.stderr)
        statuses = {line["variant"]: line["status"] for line in run.result_lines()}
        self.assertEqual(statuses, {"builtin": "ok", "cand": "failed"}, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])

    def test_a_worker_that_never_says_ready_fails_at_its_startup_timeout(self):
        out = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        path = write_scenario(out, "s.toml", """name = "mute_worker"
[worker_impls.mute]
command = ["/bin/sh", "-c", "echo warming up >&2; sleep 30"]
startup_timeout = "1s"
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 1
[[workloads]]
name = "mute"
worker = "mute"
protocol = "http1"
target = "/bench/hello"
[[workloads]]
name = "bundled"
protocol = "http1"
target = "/bench/hello"
""")
        run = Run(["run", path, "--db", os.path.join(out, "b.db")], cwd=out)
        run.env["TMPDIR"] = out  # the logs a run error keeps
        run.run(timeout=60)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)  # a deadline passed
        kept = [name for name in os.listdir(out) if name.startswith("benchgate-run-")]
        self.assertEqual(len(kept), 1, os.listdir(out))
        self.assertIn("worker-impl-mute", os.listdir(os.path.join(out, kept[0])))
        self.assertIn("worker 'mute' did not start within 1s (startup_timeout): worker 0 did not "
                      "print READY", run.stdout + run.stderr)
        # Its own stderr tail, from a log of its own (not the bundled pool's worker 0's), under
        # the FAILED row indented as the row's reason goes on.
        self.assertRegex(run.stdout + run.stderr, r"FAILED: worker 'mute' did not start .*; its "
                         r"stderr ends with:\n +warming up\n\n")
        statuses = {line["workload"]: line["status"] for line in run.result_lines()}
        self.assertEqual(statuses["bundled"], "ok", run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [])


if __name__ == "__main__":
    unittest.main()
