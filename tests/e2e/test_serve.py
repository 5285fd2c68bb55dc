"""`orchestrator serve` with `orchestrator run --server`: a submitted run shows in /metrics
while it runs and its gate verdicts after it, the client prints the run's report and exits
with the local exit code, a program not on the allowlist (router, compared router, worker
implementation) is refused with nothing started, a submitted scenario reads nothing of the
service's environment and reaches no port of its machine, flags of a local run are refused
with --server, a client promotes only into a baseline serve --allow-promote names and several
files' runs all together or none, the
client gets the promotion and comparison lines a local run prints and sends the commit and
branch a local run would store, Ctrl-C on the client cancels the run
like a local interrupt, a submitted run still going at --max-run-seconds is stopped, a failed
job names its logs without the service's folder, a child's stderr reaches the client without
the service's folders (the binaries', the store's, the temporary one), and SIGTERM stops the
service with nothing left behind."""
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.request
import uuid

from harness import (ORCHESTRATOR, Run, kill_tagged, process_name, tagged_processes,
                     unallocated_port, write_scenario)

GATED = """
name = "served"
[defaults]
warmup = "200ms"
duration = "1500ms"
repetitions = 2

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 4

[[gates]]
workload = "hello"
metric = "errors.count"
max = 0

[[gates]]
workload = "hello"
metric = "latency.p99"
max = "1ns"   # impossible: exit code 1, verdict fail
"""

COMMAND = """
name = "sneaky"
[router]
impl = "command"
command = ["{command}", "60"]
address = "127.0.0.1:1"

[[workloads]]
name = "never"
protocol = "http1"
target = "/"
connections = 1
"""


# A run that only has to happen (its job, its stored commit, its promotion), never measure.
SHORT = """
name = "short"
[defaults]
warmup = "0s"
duration = "100ms"
repetitions = 1

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 2
"""

# SHORT with a critical gate no run passes: exit code 1.
SHORT_GATED = SHORT + """
[[gates]]
workload = "hello"
metric = "latency.p99"
max = "1ns"
"""

# Two bundled routers compared: the client must get the comparison as a local run prints it.
COMPARED = """
name = "compared"
[defaults]
warmup = "100ms"
duration = "200ms"
repetitions = 2
[routers.one]
impl = "builtin"
[routers.two]
impl = "builtin"
[compare]
routers = ["one", "two"]

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 2
"""

# What a client must never see: the value of a variable of the service's environment.
SECRET = "hunter2-" + uuid.uuid4().hex

# The bundled router and worker, with one program of the client's: each must be refused.
WORKER_IMPL = """
name = "sneaky_worker"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 1
[worker_impls.evil]
command = ["/bin/sh", "-c", "touch {marker}"]

[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
worker = "evil"
"""

COMPARED_ROUTER = """
name = "sneaky_router"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 2
[routers.bundled]
impl = "builtin"
[routers.evil]
impl = "command"
command = ["/bin/sh", "-c", "touch {marker}"]
address = "127.0.0.1:${{port:evil}}"
[compare]
routers = ["bundled", "evil"]

[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
"""

# A bad duration quotes the value it got: the service's secret would come back in the error.
ENV_LEAK = """
name = "leak"
[defaults]
warmup = "${env:BENCHGATE_E2E_SECRET}"

[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
"""

EXTERNAL = """
name = "reach"
[router]
impl = "external"
address = "{address}"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 1

[[workloads]]
name = "w"
protocol = "http1"
target = "/"
"""


def metric_values(text, name, **labels):
    """Values of the samples of `name` whose labels include `labels`."""
    values = []
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        head, value = line.rsplit(" ", 1)
        found = dict(re.findall(r'(\w+)="([^"]*)"', head))
        if all(found.get(k) == v for k, v in labels.items()):
            values.append(float(value))
    return values

# Workers the client names: the service would connect wherever the client says.
REMOTE_WORKERS = """
name = "elsewhere"
[workers]
at = "{address}"
[defaults]
warmup = "100ms"
duration = "300ms"
repetitions = 1

[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
"""


class ServeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.scenarios = os.path.join(self.dir, "scenarios")
        os.mkdir(self.scenarios)
        self.start_service()

    def start_service(self, *flags, db=None, tmpdir=None, env=None):
        self.service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                            "--db", db or os.path.join(self.dir, "serve.db"),
                            "--scenarios", self.scenarios,
                            "--allow-command", "/bin/true"] + list(flags), cwd=self.dir)
        self.service.env["BENCHGATE_E2E_SECRET"] = SECRET
        # The logs the service keeps of a cancelled job go under this test's folder.
        self.service.env["TMPDIR"] = tmpdir or self.dir
        self.service.env.update(env or {})
        self.service.start()
        ready = self.service.proc.stdout.readline()
        fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
        self.assertIn("grpc", fields, ready)
        self.grpc, self.metrics = fields["grpc"], fields["metrics"]
        self.http = fields.get("http")

    def tearDown(self):
        if self.service.proc.poll() is None:
            self.service.proc.kill()
            self.service.proc.wait()
        kill_tagged(self.service.tag)
        shutil.rmtree(self.dir, ignore_errors=True)

    def scrape(self):
        with urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=5) as r:
            return r.read().decode()

    def client(self, path, *flags, env=None):
        return subprocess.Popen([ORCHESTRATOR, "run", "--server", self.grpc, path] + list(flags),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, cwd=self.dir)

    def refused(self, text, name):
        """Submits `text`; asserts exit code 2 with nothing started; returns stderr."""
        path = write_scenario(self.dir, name + ".toml", text)
        client = self.client(path)
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertEqual(out, "")
        self.assertIn(name + ".toml:", err)
        # The service marks a refusal made of diagnostics as such: they are printed as they are,
        # "file:line:column: error: ...", as a local run prints them (not after "error: ").
        self.assertRegex(err, r"^\S*/" + re.escape(name) + r"\.toml:\d+:\d+: error: ")
        self.assertIn("nothing was started", err)
        self.assert_only_the_service_runs()
        self.assertEqual(metric_values(self.scrape(), "benchgate_runs_total"), [])
        return err

    def wait_until_running(self, scenario):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if metric_values(self.scrape(), "benchgate_workload_repetition", scenario=scenario):
                return
            time.sleep(0.1)
        self.fail("the run never started a window")

    def assert_only_the_service_runs(self):
        """The service and its guardian (README, "Process trees"), nothing else."""
        tree = set(tagged_processes(self.service.tag))
        guardians = {p for p in tree if process_name(p) == "benchgate-guard"}
        self.assertEqual(len(guardians), 1, tree)
        self.assertEqual(tree - guardians, {self.service.proc.pid})

    def stop_service(self):
        self.service.signal(signal.SIGTERM)
        self.service.finish(timeout=60)
        self.assertEqual(self.service.returncode, 0, self.service.stderr)
        self.assertEqual(self.service.leftovers(), [])

    def test_a_scheduled_job_names_its_scenario_and_its_file(self):
        # --every submits every file of the folder while the queue is idle; the log line names
        # the file as well as the scenario (it named only the scenario).
        self.stop_service()
        write_scenario(self.scenarios, "nightly.toml", SHORT)
        self.start_service("--every", "1s")
        self.service.wait_for_stderr("serve: scheduled job 1 (short, nightly.toml)\n")
        # A file added since under the name another holds: both are skipped in every later
        # round (two files of one name are refused at start), not run as one series.
        write_scenario(self.scenarios, "twin.toml", SHORT)
        self.service.wait_for_stderr("serve: skipped this round: the --scenarios folder's files ")
        self.stop_service()

    def test_submitted_run_is_live_in_metrics_then_holds_its_gate_verdicts(self):
        path = write_scenario(self.dir, "served.toml", GATED)
        client = self.client(path)
        live = []
        deadline = time.monotonic() + 60
        while client.poll() is None and time.monotonic() < deadline:
            text = self.scrape()
            if metric_values(text, "benchgate_run_in_progress", scenario="served") == [1.0]:
                live += metric_values(text, "benchgate_workload_ops_per_second",
                                      scenario="served", workload="hello")
            time.sleep(0.1)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 1, out + err)  # the impossible gate failed
        self.assertIn("RESULT|scenario=served|workload=hello|", out)
        self.assertIn("gates:", out)
        self.assertIn("submitted", err)
        # The gauge moved while the run went: live progress, then each window's figure.
        self.assertGreaterEqual(len(set(v for v in live if v > 0)), 2, live)

        # A client's run is counted, but sets none of the verdict gauges an operator alerts
        # on: those are the operator's runs' (a client's failing gate set them before).
        text = self.scrape()
        self.assertEqual(metric_values(text, "benchgate_run_in_progress", scenario="served"), [0])
        self.assertEqual(metric_values(text, "benchgate_runs_total", scenario="served",
                                       status="ok"), [1])
        for name in ["benchgate_gate_verdict", "benchgate_gate_passed",
                     "benchgate_last_run_exit_code", "benchgate_run_info"]:
            self.assertEqual(metric_values(text, name, scenario="served"), [], name)
        self.stop_service()

        # The operator's own run of the scenario (a scheduled job) holds its gate verdicts: no
        # live figure is looked at, so one short window does.
        self.assertIn('duration = "1500ms"\nrepetitions = 2', GATED)
        write_scenario(self.scenarios, "served.toml", GATED.replace(
            'duration = "1500ms"\nrepetitions = 2', 'duration = "300ms"\nrepetitions = 1'))
        self.start_service("--every", "1h")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = self.scrape()
            if metric_values(text, "benchgate_last_run_exit_code", scenario="served"):
                break
            time.sleep(0.1)
        self.assertEqual(metric_values(text, "benchgate_run_in_progress", scenario="served"), [0])
        self.assertEqual(metric_values(text, "benchgate_gate_verdict", scenario="served",
                                       metric="latency.p99", verdict="fail"), [1])
        self.assertEqual(metric_values(text, "benchgate_gate_passed", scenario="served",
                                       metric="errors.count"), [1])
        self.assertEqual(metric_values(text, "benchgate_last_run_exit_code", scenario="served"),
                         [1])
        checked = subprocess.run(["promtool", "check", "metrics"], input=text,
                                 capture_output=True, text=True) if shutil.which(
                                     "promtool") else None
        if checked:
            self.assertEqual((checked.returncode, checked.stdout + checked.stderr), (0, ""))
        os.remove(os.path.join(self.scenarios, "served.toml"))
        self.stop_service()

        # Restarted on the same database: its first scrape says the same verdicts, read back
        # from the operator's stored run (before the fix: no sample until the next run), and
        # counts no run.
        self.start_service()
        restored = self.scrape()
        for name, labels in [("benchgate_gate_verdict", {"metric": "latency.p99",
                                                          "verdict": "fail"}),
                             ("benchgate_gate_passed", {"metric": "errors.count"}),
                             ("benchgate_last_run_exit_code", {}),
                             ("benchgate_run_in_progress", {})]:
            self.assertEqual(metric_values(restored, name, scenario="served", **labels),
                             metric_values(text, name, scenario="served", **labels), name)
        self.assertEqual(metric_values(restored, "benchgate_runs_total", scenario="served"),
                         [0, 0, 0])
        self.assertEqual(metric_values(restored, "benchgate_workload_ops_per_second"), [])
        self.stop_service()
        self.assertIn("serve: /metrics restored the latest stored run of 1 scenario\n",
                      self.service.stderr)

    def test_command_not_on_the_allowlist_is_refused_and_nothing_starts(self):
        path = write_scenario(self.dir, "sneaky.toml", COMMAND.format(command="/bin/sleep"))
        client = self.client(path)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertIn("is not allowed by this service", err)
        self.assertIn("sneaky.toml:", err)
        self.assert_only_the_service_runs()
        text = self.scrape()
        self.assertEqual(metric_values(text, "benchgate_runs_total", scenario="sneaky"), [])
        self.stop_service()

    def test_a_router_on_a_port_of_the_services_own_listener_is_refused(self):
        # --allow-address may name a port the service itself listens on (${port:NAME} never
        # allocates one: it is in use). The run was admitted and its load went to the service's
        # own web pages, measured as the system under test; now it is refused, naming the
        # listener.
        self.stop_service()
        # Not a port of bind(0), let go: a test beside this one could take it first.
        address = f"127.0.0.1:{unallocated_port()}"
        self.start_service("--http", address, "--allow-address", address)
        err = self.refused(EXTERNAL.format(address=address), "own_port")
        self.assertIn(f"own_port.toml:5:11: error: [router] address '{address}' is on the port "
                      f"of this service's own listener (serve --http {address}): a submitted "
                      "scenario's router may not listen there, nor its load, probes and scrapes "
                      "reach the service; nothing was started\n", err)
        self.stop_service()

    def test_a_router_on_a_port_a_listener_of_port_0_was_given_is_refused(self):
        # A listener given port 0 was compared as port 0, which no router has: a scenario's
        # router on the port the kernel gave it was admitted. It is compared as bound now, and
        # named so in the refusal.
        self.stop_service()
        self.start_service("--http", "127.0.0.1:0")
        listeners = [("--listen", self.grpc), ("--metrics-listen", self.metrics),
                     ("--http", self.http)]
        for flag, address in listeners:
            err = self.refused(EXTERNAL.format(address=address), "bound_port")
            self.assertIn(f"bound_port.toml:5:11: error: [router] address '{address}' is on the "
                          f"port of this service's own listener (serve {flag} {address}): a "
                          "submitted scenario's router may not listen there, nor its load, "
                          "probes and scrapes reach the service; nothing was started\n", err)
        self.stop_service()

    def test_a_refused_file_leaves_no_job_of_the_files_before_it(self):
        # Every file is checked by the service before any is submitted. Before, served.toml's
        # job started at once on the idle service (its router spawned), then was cancelled,
        # leaving an aborted run ("interrupted while waiting for router").
        good = write_scenario(self.dir, "served.toml", GATED)
        sneaky = write_scenario(self.dir, "sneaky.toml", COMMAND.format(command="/bin/sleep"))
        client = self.client(good, sneaky)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertIn("is not allowed by this service", err)
        self.assertNotIn(" as job ", err)  # "submitted FILE to ADDR as job N"
        self.assert_only_the_service_runs()
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone(), (0,))
        self.assertEqual(metric_values(self.scrape(), "benchgate_runs_total"), [])
        self.stop_service()

    def test_more_files_than_the_queue_ever_holds_are_a_usage_error_leaving_no_job(self):
        # The check before any file is submitted asks for room for all of them. Before, each
        # file passed alone against --max-queued 1, the submissions overflowed the queue, and
        # the first file's job was left started and then aborted. Then the check refused them
        # as for a queue full now, exit 3 ("try again later"), though two files can never wait
        # in a queue of one: exit 2 now, naming the count and the limit. (A queue full now stays
        # exit 3: tests/unit/orchestrator/serve/remote_run_test.cc.)
        self.stop_service()
        self.start_service("--max-queued", "1")
        first = write_scenario(self.dir, "served.toml", GATED)
        second = write_scenario(self.dir, "again.toml", GATED.replace('name = "served"',
                                                                        'name = "again"'))
        client = self.client(first, second)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertEqual(err, "error: 2 runs submitted together can never all wait in this "
                         "service's queue, which holds at most 1 (serve --max-queued 1); submit "
                         "at most 1 at a time\n")
        self.assertNotIn(" as job ", err)  # "submitted FILE to ADDR as job N"
        self.assert_only_the_service_runs()
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone(), (0,))
        self.stop_service()

    def test_a_worker_implementation_not_on_the_allowlist_is_refused_and_never_runs(self):
        marker = os.path.join(self.dir, "MARKER")
        err = self.refused(WORKER_IMPL.format(marker=marker), "sneaky_worker")
        self.assertIn("[worker_impls.evil] command '/bin/sh' is not allowed by this service", err)
        self.assertFalse(os.path.exists(marker))
        self.stop_service()

    def test_a_compared_router_not_on_the_allowlist_is_refused_and_never_runs(self):
        marker = os.path.join(self.dir, "MARKER")
        err = self.refused(COMPARED_ROUTER.format(marker=marker), "sneaky_router")
        self.assertIn("[routers.evil] command '/bin/sh' is not allowed by this service", err)
        self.assertFalse(os.path.exists(marker))
        self.stop_service()

    def test_the_services_environment_never_reaches_a_client(self):
        # The client refuses ${env:NAME} itself, in the service's words, as the service would;
        # it has the variable too, so a client that read it would show it.
        env = dict(os.environ, BENCHGATE_E2E_SECRET="1s")
        path = write_scenario(self.dir, "leak.toml", ENV_LEAK)
        client = self.client(path, env=env)
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertIn("leak.toml:4:10: error: key 'warmup': '${env:BENCHGATE_E2E_SECRET}' is "
                      "not allowed in a scenario submitted to a service", err)
        self.assertNotIn(SECRET, out + err)
        self.assert_only_the_service_runs()
        self.stop_service()

    def test_a_port_of_the_services_machine_is_not_reached(self):
        # A service of the machine, listening on loopback: the scenario names its port.
        listener = socket.socket()
        self.addCleanup(listener.close)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        address = "127.0.0.1:%d" % listener.getsockname()[1]
        err = self.refused(EXTERNAL.format(address=address), "reach")
        self.assertIn("[router] address '%s' is not allowed by this service" % address, err)
        with self.assertRaises(BlockingIOError):  # nobody connected to it
            listener.accept()
        self.stop_service()

    def test_workers_the_service_was_not_given_are_never_reached(self):
        listener = socket.socket()
        self.addCleanup(listener.close)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        address = "127.0.0.1:%d" % listener.getsockname()[1]
        err = self.refused(REMOTE_WORKERS.format(address=address), "elsewhere")
        self.assertIn("elsewhere.toml:4:6: error: [workers] at '%s' is not one of this "
                      "service's workers" % address, err)
        with self.assertRaises(BlockingIOError):  # nobody connected to it
            listener.accept()
        self.stop_service()

    def test_flags_of_a_local_run_are_refused_with_server(self):
        path = write_scenario(self.dir, "served.toml", GATED)
        for flags, needle in [(["--json", "out.json"], "--json cannot be used with --server"),
                              (["--junit", "g.xml"], "--junit cannot be used with --server"),
                              (["--markdown", "s.md"], "--markdown cannot be used with --server"),
                              (["--db", "mine.db"], "--db cannot be used with --server"),
                              (["--db-busy-timeout", "1s"],
                               "--db-busy-timeout cannot be used with --server"),
                              (["--keep-logs"], "--keep-logs cannot be used with --server"),
                              (["--metrics-listen", "127.0.0.1:0"], "--metrics-listen cannot")]:
            client = self.client(path, *flags)
            out, err = client.communicate(timeout=60)
            self.assertEqual((client.returncode, out), (2, ""), err)
            self.assertIn(needle, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        for written in ("out.json", "g.xml", "s.md", "mine.db"):
            self.assertFalse(os.path.exists(os.path.join(self.dir, written)))
        self.assertEqual(metric_values(self.scrape(), "benchgate_runs_total"), [])
        self.stop_service()

    def test_the_client_is_told_that_its_run_was_promoted(self):
        self.stop_service()
        self.start_service("--allow-promote", "nightly")
        path = write_scenario(self.dir, "short.toml", SHORT)
        client = self.client(path, "--promote", "nightly")
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 0, out + err)
        # As a local run prints it, on the client's stdout, not the service's.
        self.assertIn("promoted run 1 to baseline 'nightly'\n", out)
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT name, run_id FROM baselines").fetchall(),
                             [("nightly", 1)])
        self.stop_service()
        self.assertNotIn("promoted", self.service.stdout)

    def test_several_files_runs_are_promoted_together_when_the_invocation_exits_0(self):
        # Before, --promote with several files was refused (exit 2, nothing submitted): the
        # service promoted each job's run on its own, so a's run would have joined the baseline
        # beside b's failed gate. Now each job defers its promotion to the client's Promote.
        self.stop_service()
        self.start_service("--allow-promote", "nightly")
        short = write_scenario(self.dir, "short.toml", SHORT)
        again = write_scenario(self.dir, "again.toml", SHORT)
        gated = write_scenario(self.dir, "gated.toml", SHORT_GATED)
        client = self.client(short, again, "--promote", "nightly")
        out, err = client.communicate(timeout=120)
        self.assertEqual(client.returncode, 0, out + err)
        self.assertIn("promoted run 1 (job 1) to baseline 'nightly'\npromoted run 2 (job 2) to "
                      "baseline 'nightly'\n", out)
        # A failed gate of one file holds every run of the invocation back.
        client = self.client(short, gated, "--promote", "nightly")
        out, err = client.communicate(timeout=120)
        self.assertEqual(client.returncode, 1, out + err)
        why = ("the invocation exits 1; --promote adds runs only when the whole invocation "
               "exits 0\n")
        self.assertIn("run 3 (job 3) not promoted to 'nightly': " + why +
                      "run 4 (job 4) not promoted to 'nightly': " + why, out)
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT name, run_id FROM baselines ORDER BY run_id")
                             .fetchall(), [("nightly", 1), ("nightly", 2)])
        self.stop_service()
        # The operator's log says what a Promote added (it knows no client).
        self.assertIn("serve: Promote added runs 1 (job 1), 2 (job 2) to baseline 'nightly'\n",
                      self.service.stderr)

    def test_a_client_promotes_only_to_a_baseline_the_operator_allows(self):
        # A baseline is what relative gates judge against, the operator's own scenarios'
        # included: before, a client's file named as the operator's scenario (or that scenario
        # run by name), submitted with --promote main, ran and joined 'main', and so moved the
        # bar of the operator's scheduled runs. Without serve --allow-promote every Submit that
        # asks to promote is refused at submission, before anything is queued or started.
        write_scenario(self.scenarios, "short.toml", SHORT)  # the operator's scenario 'short'
        path = write_scenario(self.dir, "mine.toml", SHORT)  # a client's file of that name
        by_content, by_name = [path], ["--scenario-name", "short"]

        def submit(scenario, *flags):
            return subprocess.run([ORCHESTRATOR, "run", "--server", self.grpc] + scenario +
                                  list(flags), capture_output=True, text=True, timeout=90,
                                  cwd=self.dir)
        none_allowed = ("error: field 'promote': this service lets no client promote its run, to "
                        "'main' or any baseline (a baseline is what relative gates judge "
                        "against, the service's own scenarios' included; its operator allows "
                        "one with serve --allow-promote BASELINE); nothing was submitted: submit "
                        "without --promote\n")
        for scenario in (by_content, by_name):
            client = submit(scenario, "--promote", "main")
            self.assertEqual((client.returncode, client.stdout, client.stderr),
                             (2, "", none_allowed), scenario)
        self.assert_only_the_service_runs()
        self.assertEqual(metric_values(self.scrape(), "benchgate_runs_total"), [])
        db = os.path.join(self.dir, "serve.db")
        with sqlite3.connect(db) as conn:
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM runs").fetchone(), (0,))
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM baselines").fetchone(), (0,))
        self.stop_service()

        # The operator allows one baseline: the client promotes to it, and to no other.
        self.start_service("--allow-promote", "client-runs")
        client = submit(by_name, "--promote", "main")
        self.assertEqual((client.returncode, client.stdout, client.stderr),
                         (2, "", "error: field 'promote': this service lets its clients promote "
                          "runs only to 'client-runs' (serve --allow-promote), not to 'main' (a "
                          "baseline is what relative gates judge against, the service's own "
                          "scenarios' included); nothing was submitted: submit without "
                          "--promote, or with one of those\n"))
        client = submit(by_content, "--promote", "client-runs")
        self.assertEqual(client.returncode, 0, client.stdout + client.stderr)
        self.assertIn("promoted run 1 to baseline 'client-runs'\n", client.stdout)
        with sqlite3.connect(db) as conn:
            self.assertEqual(conn.execute("SELECT name, run_id FROM baselines").fetchall(),
                             [("client-runs", 1)])
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM runs").fetchone(), (1,))
        self.stop_service()

    def test_a_baseline_allowed_twice_is_named_once(self):
        # The refusal listed --allow-promote's values as given: a name given twice, twice.
        self.stop_service()
        self.start_service("--allow-promote", "client-runs", "--allow-promote", "nightly",
                           "--allow-promote", "client-runs")
        path = write_scenario(self.dir, "mine.toml", SHORT)
        client = subprocess.run([ORCHESTRATOR, "run", "--server", self.grpc, path, "--promote",
                                 "main"], capture_output=True, text=True, timeout=90, cwd=self.dir)
        self.assertEqual((client.returncode, client.stdout, client.stderr),
                         (2, "", "error: field 'promote': this service lets its clients promote "
                          "runs only to 'client-runs', 'nightly' (serve --allow-promote), not to "
                          "'main' (a baseline is what relative gates judge against, the "
                          "service's own scenarios' included); nothing was submitted: submit "
                          "without --promote, or with one of those\n"))
        self.stop_service()

    def test_the_client_sends_its_commit_and_branch_as_a_local_run_finds_them(self):
        # Before, a run submitted with --server was stored with no commit and no branch, where
        # a local run in the same folder stored the git work tree's HEAD and branch.
        checkout = os.path.join(self.dir, "checkout")
        os.mkdir(checkout)

        def git(*args):
            return subprocess.run(["git", "-C", checkout, "-c", "user.name=benchgate",
                                   "-c", "user.email=benchgate@example.com"] + list(args),
                                  check=True, capture_output=True, text=True).stdout.strip()
        git("init", "-q", "-b", "trunk")
        path = write_scenario(checkout, "short.toml", SHORT)
        git("add", "short.toml")
        git("commit", "-q", "-m", "scenario")
        head = git("rev-parse", "HEAD")
        # A flag still wins over the work tree, each on its own, as for a local run.
        for flags in ([], ["--commit", "c0ffee"], ["--branch", "given"]):
            client = subprocess.Popen([ORCHESTRATOR, "run", "--server", self.grpc, path] + flags,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=checkout)
            out, err = client.communicate(timeout=90)
            self.assertEqual(client.returncode, 0, out + err)
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT commit_id, branch FROM runs ORDER BY id").fetchall(),
                             [(head, "trunk"), ("c0ffee", "trunk"), (head, "given")])
        self.stop_service()

    def test_a_branch_from_git_the_service_would_refuse_is_refused_by_the_client(self):
        # git takes a branch name with invalid UTF-8; the service refuses it. Before, the client
        # sent it and exited 2 with the service's "field 'branch'", a field the user never gave.
        checkout = os.path.join(self.dir, "checkout")
        os.mkdir(checkout)

        def git(*args):
            subprocess.run([b"git", b"-C", checkout.encode(), b"-c", b"user.name=benchgate",
                            b"-c", b"user.email=benchgate@example.com"] + list(args),
                           check=True, capture_output=True)
        git(b"init", b"-q", b"-b", b"bad\xff")
        path = write_scenario(checkout, "short.toml", SHORT)
        git(b"add", b"short.toml")
        git(b"commit", b"-q", b"-m", b"scenario")
        client = subprocess.Popen([ORCHESTRATOR, "run", "--server", self.grpc, path],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  errors="replace", cwd=checkout)
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 2, out + err)
        self.assertIn("error: the branch the git work tree gives ('bad\\xff', not given as "
                      "--branch) has a control character (a line break, a tab, an escape) or "
                      "invalid UTF-8", err)
        self.assertIn("give --branch to send another", err)
        self.assertNotIn("field 'branch'", err)
        self.assertNotIn(" as job ", err)
        # --branch sends another: the run goes.
        client = subprocess.Popen([ORCHESTRATOR, "run", "--server", self.grpc, path, "--branch",
                                   "given"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, errors="replace", cwd=checkout)
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 0, out + err)
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT branch FROM runs").fetchall(), [("given",)])
        self.stop_service()

    def test_the_client_gets_the_comparison_lines_of_its_run(self):
        path = write_scenario(self.dir, "compared.toml", COMPARED)
        client = self.client(path)
        out, err = client.communicate(timeout=120)
        self.assertEqual(client.returncode, 0, out + err)
        compare = [line for line in out.splitlines() if line.startswith("COMPARE|")]
        self.assertEqual(len(compare), 1, out)
        self.assertIn("|workload=hello|baseline=one|variant=two|", compare[0])
        self.assertEqual(len([line for line in out.splitlines()
                              if line.startswith("RESULT|scenario=compared|")]), 2, out)
        self.stop_service()

    def test_ctrl_c_on_the_client_cancels_the_run_as_a_local_interrupt(self):
        path = write_scenario(self.dir, "served.toml", GATED.replace("1500ms", "5s"))
        client = self.client(path)
        self.wait_until_running("served")
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 3, out + err)
        self.assertIn("interrupted by signal 2 (Interrupt): job 1 on " + self.grpc +
                      " was cancelled, and every child process there was stopped", err)
        self.assertNotIn("signal 0", out + err)
        # The kept logs are named as the client knows them; the folder is the operator's.
        self.assertIn("child process logs: job-1 in the service's log folder\n", err)
        log_folders = os.path.join(self.dir, "benchgate-serve-")
        self.assertNotIn(log_folders, out + err)
        self.assertIsNone(self.service.proc.poll(), "the service keeps serving")
        self.assert_only_the_service_runs()
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT status, exit_code FROM runs").fetchall(),
                             [("aborted", 3)])
        self.stop_service()
        self.assertIn("serve: job 1: child process logs kept in " + log_folders,
                      self.service.stderr)

    def test_ctrl_c_on_a_client_whose_job_waits_in_the_queue_cancels_it(self):
        # One 5 s window: the first job still runs while the second is submitted and cancelled
        # (a second or less); a second window would only be waited for.
        self.assertIn('duration = "1500ms"\nrepetitions = 2', GATED)
        path = write_scenario(self.dir, "served.toml", GATED.replace("1500ms", "5s").replace(
            "repetitions = 2", "repetitions = 1"))
        first = self.client(path)
        self.wait_until_running("served")
        second = self.client(path)
        line = second.stderr.readline()  # "submitted ... as job 2 (1 ahead)"
        self.assertIn("as job 2 (1 ahead)", line)
        second.send_signal(signal.SIGINT)
        out, err = second.communicate(timeout=60)
        self.assertEqual(second.returncode, 3, out + err)
        self.assertIn("interrupted by signal 2 (Interrupt): job 2 on", err)
        self.assertIsNone(first.poll(), "the queued job ended before the first one did")
        first.communicate(timeout=90)
        self.assertEqual(first.returncode, 1)  # its impossible gate, as if alone
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT count(*) FROM runs").fetchone(), (1,))
        self.stop_service()

    def test_a_submitted_run_is_stopped_at_max_run_seconds(self):
        # Its own timeouts fit the limit (1 s); the router's startup, left at the service's
        # default, is what would hold the run slot: a command that never listens, at a port
        # held bound here, so that no listener of a test beside this one appears there.
        self.stop_service()
        held = unallocated_port(hold=True)
        self.addCleanup(held.close)
        address = f"127.0.0.1:{held.getsockname()[1]}"
        self.start_service("--max-run-seconds", "1", "--allow-command", "/bin/sleep",
                           "--allow-address", address)
        path = write_scenario(self.dir, "slow.toml", """
name = "slow"
[router]
impl = "command"
command = ["/bin/sleep", "60"]
address = "ADDRESS"
[[workloads]]
name = "w"
protocol = "http1"
target = "/"
warmup = "0s"
duration = "200ms"
repetitions = 1
timeout = "1s"
""".replace("ADDRESS", address))
        client = self.client(path)
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 3, out + err)
        self.assertIn("run stopped: the run went on for this service's --max-run-seconds (1 s), "
                      "the longest it lets a submitted scenario run; every child process was "
                      "stopped\n", err)
        self.assert_only_the_service_runs()
        self.stop_service()

    def test_a_queued_job_starts_the_file_allowed_though_the_clients_link_changed(self):
        # --allow-command is checked at submission and the job starts later: a client that
        # submits its link to an allowed folder, then repoints the link to a folder of its own
        # while its job waits, must not have the service start its own program (it did).
        self.stop_service()
        # Held bound, not listening: no listener of a test beside this one appears there.
        held = unallocated_port(hold=True)
        self.addCleanup(held.close)
        address = f"127.0.0.1:{held.getsockname()[1]}"
        self.start_service("--allow-command", "/bin/sleep", "--allow-address", address)
        never_ready = """
name = "{name}"
[router]
impl = "command"
command = ["{program}", "60"]
address = "{address}"
startup_timeout = "{startup}"
[[workloads]]
name = "w"
protocol = "http1"
target = "/"
warmup = "0s"
duration = "200ms"
repetitions = 1
timeout = "1s"
"""
        first = self.client(write_scenario(self.dir, "holder.toml", never_ready.format(
            name="holder", program="/bin/sleep", startup="60s", address=address)))
        self.assertIn("as job 1 (0 ahead)", first.stderr.readline())
        link = os.path.join(self.dir, "link")
        os.symlink(os.path.realpath("/bin"), link)
        own = os.path.join(self.dir, "own")
        os.mkdir(own)
        marker = os.path.join(self.dir, "MARKER")
        with open(os.path.join(own, "sleep"), "w") as f:
            f.write(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
        os.chmod(os.path.join(own, "sleep"), 0o755)
        second = self.client(write_scenario(self.dir, "swapped.toml", never_ready.format(
            name="swapped", program=os.path.join(link, "sleep"), startup="1s",
            address=address)))
        self.assertIn("as job 2 (1 ahead)", second.stderr.readline())
        os.remove(link)
        os.symlink(own, link)
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
        self.assertEqual(first.returncode, 3)
        out, err = second.communicate(timeout=60)
        self.assertFalse(os.path.exists(marker), "the client's own program ran:\n" + out + err)
        # The allowed sleep ran, and never listened (the client's exits at once).
        self.assertEqual(second.returncode, 3, out + err)
        self.assertIn("system under test did not start: nothing accepted connections on", err)
        self.assert_only_the_service_runs()
        self.stop_service()

    def test_an_adapters_tool_is_the_file_found_as_the_service_started(self):
        # The bundled worker looked its tool up on the service's PATH as each job started: a wrk
        # put earlier on that PATH once the service ran was the one a client's job ran (and
        # the one --allow-command wrk allowed by then).
        self.stop_service()
        ran = os.path.join(self.dir, "ran")
        first, second = os.path.join(self.dir, "first"), os.path.join(self.dir, "second")

        def fake_wrk(folder):
            os.mkdir(folder)
            path = os.path.join(folder, "wrk")
            with open(path, "w") as f:
                f.write(f'#!/bin/sh\necho "$0" >> {ran}\necho "wrk 4.2.0 [epoll]"\nexit 1\n')
            os.chmod(path, 0o755)
            return path

        allowed = fake_wrk(second)
        self.start_service("--allow-command", "wrk",
                           env={"PATH": f"{first}:{second}:{os.environ['PATH']}"})
        fake_wrk(first)
        path = write_scenario(self.dir, "adapted.toml", """
name = "adapted"
[defaults]
warmup = "0s"
duration = "1s"
repetitions = 1
[worker_impls.tool]
adapter = "wrk"
[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
worker = "tool"
""")
        out, err = self.client(path).communicate(timeout=90)
        self.assertTrue(os.path.exists(ran), out + err)
        with open(ran) as f:
            self.assertEqual(set(f.read().splitlines()), {allowed}, out + err)
        self.assert_only_the_service_runs()
        self.stop_service()

    def test_a_submission_larger_than_an_honest_scenario_is_refused(self):
        # The service received and validated a scenario of up to 4 MiB (the loader's bound); a
        # submitted one is at most 1 MiB, and a request past 1 MiB + 256 KiB is not read whole.
        def padded(name, size):
            text = SHORT.replace('name = "short"', f'name = "{name}"') + "# "
            return write_scenario(self.dir, name + ".toml",
                                  text + "x" * (size - len(text) - 1) + "\n")

        path = padded("over_mib", (1 << 20) + 1)
        self.assertEqual(os.path.getsize(path), (1 << 20) + 1)
        client = self.client(path)
        out, err = client.communicate(timeout=90)
        self.assertEqual((client.returncode, out, err),
                         (2, "", f"{path}: error: the scenario is 1048577 bytes; this service "
                             "takes a submitted scenario of at most 1048576 bytes (1 MiB); "
                             "nothing was started: shorten it, or run it from the service's "
                             "--scenarios folder\n"))
        path = padded("over_request", 2 << 20)
        client = self.client(path)
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 2, err)
        self.assertEqual(out, "")
        self.assertRegex(err, rf"^error: service {re.escape(self.grpc)} receives at most "
                              rf"1310720 bytes in one request, and this submission of "
                              rf"{re.escape(path)} is \d+ \(")
        self.assertIn("up to 1048576 bytes with the rest of its request", err)
        self.assert_only_the_service_runs()
        with sqlite3.connect(os.path.join(self.dir, "serve.db")) as db:
            self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone(), (0,))
        self.stop_service()

    def test_a_childs_stderr_names_none_of_the_services_folders(self):
        # A router that fails at start, naming its own folder, the store's and the temporary
        # one on stderr, as a real one may: the client gets the tail with each folder taken
        # out, as the scenarios and logs folders are.
        self.stop_service()
        folders = {name: os.path.join(self.dir, name) for name in ("bin", "data", "tmp")}
        for folder in folders.values():
            os.mkdir(folder)
        router = os.path.join(folders["bin"], "router")
        with open(router, "w") as f:
            f.write("#!/bin/sh\n"
                    f'echo "$0: cannot read {folders["bin"]}/router.conf; state in '
                    f'{folders["data"]}/serve.db; scratch in {folders["tmp"]}/scratch-1" >&2\n'
                    "exit 1\n")
        os.chmod(router, 0o755)
        self.start_service("--router-bin", router, db=os.path.join(folders["data"], "serve.db"),
                           tmpdir=folders["tmp"])
        client = self.client(write_scenario(self.dir, "short.toml", SHORT))
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 3, out + err)
        self.assertIn("router: cannot read router.conf; state in serve.db; scratch in scratch-1",
                      err)
        for folder in folders.values():
            self.assertNotIn(folder, out + err)
        self.stop_service()

    def test_a_childs_control_bytes_reach_the_client_escaped(self):
        # A router's stderr quoting what it read (nginx quotes a directive) may hold an escape
        # sequence or a bell: the client shows them escaped, as `runs show` does, not to its
        # terminal as such.
        self.stop_service()
        router = os.path.join(self.dir, "router")
        with open(router, "w") as f:
            f.write("#!/bin/sh\nprintf 'unknown directive \"\\033[31mred\\007\"\\n' >&2\nexit 1\n")
        os.chmod(router, 0o755)
        self.start_service("--router-bin", router)
        client = self.client(write_scenario(self.dir, "short.toml", SHORT))
        out, err = client.communicate(timeout=90)
        self.assertEqual(client.returncode, 3, out + err)
        self.assertIn('unknown directive "\\x1b[31mred\\x07"', err)
        self.assertNotIn("\x1b", out + err)
        self.assertNotIn("\x07", out + err)
        self.stop_service()

    def test_sigterm_during_a_run_aborts_it_cleanly_and_the_client_gets_exit_code_3(self):
        path = write_scenario(self.dir, "served.toml", GATED.replace("1500ms", "5s"))
        client = self.client(path)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if metric_values(self.scrape(), "benchgate_workload_repetition", scenario="served"):
                break
            time.sleep(0.1)
        self.stop_service()
        out, err = client.communicate(timeout=60)
        self.assertEqual(client.returncode, 3, out + err)


class IdleConnectionsTest(unittest.TestCase):
    """Connections that send half a request and nothing more held one of CivetWeb's 32 threads
    each until its 5 s request timeout: 32 of them kept every scrape and page waiting 5 s, and
    200 kept them waiting until all but 31 had been dropped (some 30 s). Served by one thread
    that waits for every connection at once, 200 of them leave /metrics and a page answered
    while each of them is still open."""

    IDLE = 200

    def test_idle_connections_do_not_keep_metrics_or_the_pages_waiting(self):
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                       "--http", "127.0.0.1:0", "--db", os.path.join(folder, "serve.db"),
                       "--scenarios", scenarios], cwd=folder)
        service.env["TMPDIR"] = folder
        self.addCleanup(kill_tagged, service.tag)
        service.start()
        ready = service.proc.stdout.readline()
        fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
        for name, path in (("metrics", "/metrics"), ("http", "/")):
            host, port = fields[name].rsplit(":", 1)
            idle = []
            for _ in range(self.IDLE):
                connection = socket.create_connection((host, int(port)), timeout=10)
                self.addCleanup(connection.close)
                connection.sendall(b"GET / HTTP/1.1\r\n")
                idle.append(connection)
            asked = socket.create_connection((host, int(port)), timeout=60)
            self.addCleanup(asked.close)
            asked.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
                          "\r\n".encode())
            try:
                first = asked.recv(64)
            except socket.timeout:
                first = b"(nothing within 60 s)"
            # Answered while every idle connection is still open (the server has closed none).
            still_open = 0
            for connection in idle:
                connection.setblocking(False)
                try:
                    connection.recv(1, socket.MSG_PEEK)
                except BlockingIOError:
                    still_open += 1
                except OSError:
                    pass
            self.assertTrue(first.startswith(b"HTTP/1.1 200"), (name, first))
            self.assertEqual(still_open, self.IDLE, name)
            for connection in idle + [asked]:
                connection.close()
        service.signal(signal.SIGTERM)
        service.finish(timeout=30)
        self.assertEqual(service.returncode, 0, service.stderr)
        self.assertEqual(service.leftovers(wait=0), [])


class Ipv6ListenersTest(unittest.TestCase):
    def test_ipv6_listeners_are_served(self):
        """Debian 12's CivetWeb had no IPv6: --metrics-listen [::1]:0 and --http [::1]:0 were
        refused ("the CivetWeb library it is served with was built without IPv6")."""
        try:
            probe = socket.socket(socket.AF_INET6)
            probe.bind(("::1", 0))
            probe.close()
        except OSError:
            self.skipTest("no IPv6 loopback on this machine")
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "[::1]:0",
                       "--http", "[::1]:0", "--db", os.path.join(folder, "serve.db"),
                       "--scenarios", scenarios], cwd=folder)
        service.env["TMPDIR"] = folder
        self.addCleanup(kill_tagged, service.tag)
        service.start()
        ready = service.proc.stdout.readline()
        fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
        for name, path in (("metrics", "/metrics"), ("http", "/")):
            host, port = fields[name].rsplit(":", 1)
            self.assertEqual(host, "[::1]", ready)
            asked = socket.create_connection(("::1", int(port)), timeout=30)
            self.addCleanup(asked.close)
            asked.sendall(f"GET {path} HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n"
                          "\r\n".encode())
            self.assertTrue(asked.recv(64).startswith(b"HTTP/1.1 200"), name)
            asked.close()
        service.signal(signal.SIGTERM)
        service.finish(timeout=30)
        self.assertEqual(service.returncode, 0, service.stderr)
        self.assertEqual(service.leftovers(wait=0), [])


class ServeStartupTest(unittest.TestCase):
    def test_a_router_or_worker_that_cannot_start_refuses_the_service_with_exit_2(self):
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        tmp = os.path.join(folder, "tmp")
        os.mkdir(tmp)
        db = os.path.join(folder, "serve.db")
        missing = os.path.join(folder, "none")
        cases = [
            (["--worker-bin", missing], {},
             f"error: worker executable '{missing}' (from --worker-bin): does not exist\n"),
            (["--router-bin", folder], {},
             f"error: router executable '{folder}' (from --router-bin): is a folder, not a "
             "regular file\n"),
            ([], {"BENCHGATE_ROUTER_BIN": missing},
             f"error: router executable '{missing}' (from $BENCHGATE_ROUTER_BIN): does not "
             "exist\n"),
        ]
        for flags, env, expected in cases:
            service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                           "--db", db, "--scenarios", scenarios] + flags, cwd=folder)
            service.env.update(env)
            service.env["TMPDIR"] = tmp
            self.addCleanup(kill_tagged, service.tag)
            # Before the fix the service started and served until the timeout killed it.
            service.run(timeout=30)
            self.assertEqual((service.returncode, service.stdout, service.stderr),
                             (2, "", expected), flags)
            self.assertFalse(os.path.exists(db), flags)
            self.assertEqual(os.listdir(tmp), [], flags)
            self.assertEqual(service.leftovers(wait=0), [])


    def test_an_http_listener_that_cannot_start_leaves_no_temporary_folder(self):
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        tmp = os.path.join(folder, "tmp")
        os.mkdir(tmp)
        busy = socket.socket()
        self.addCleanup(busy.close)
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        taken = f"127.0.0.1:{busy.getsockname()[1]}"
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                       "--http", taken, "--db", os.path.join(folder, "serve.db"),
                       "--scenarios", scenarios], cwd=folder)
        service.env["TMPDIR"] = tmp
        self.addCleanup(kill_tagged, service.tag)
        service.run(timeout=30)
        self.assertEqual((service.returncode, service.stdout, service.stderr),
                         (2, "", f"error: --http {taken}: cannot listen: address already in "
                          "use\n"))
        # Before the fix the service's log folder (TMPDIR/benchgate-serve-XXXXXX) stayed.
        self.assertEqual(os.listdir(tmp), [])
        self.assertEqual(service.leftovers(wait=0), [])

    def test_listeners_that_share_a_port_are_refused_before_the_db(self):
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        db = os.path.join(folder, "serve.db")
        # Free, and let go (serve must bind it): one no test beside this one is handed.
        port = unallocated_port()
        cases = [
            # Before: "port P is in use", the flag that took it unnamed.
            (["--listen", f"127.0.0.1:{port}", "--metrics-listen", f"127.0.0.1:{port}"],
             f"error: --metrics-listen 127.0.0.1:{port}: the port of --listen 127.0.0.1:{port}; "
             "give each listener a port of its own\n"),
            (["--listen", "127.0.0.1:0", "--metrics-listen", f"127.0.0.1:{port}", "--http",
              f"0.0.0.0:{port}"],
             f"warning: 0.0.0.0:{port} is reachable from other machines, and serve has no "
             "authentication (README \"Security\")\n"
             f"error: --http 0.0.0.0:{port}: the port of --metrics-listen 127.0.0.1:{port}; "
             "give each listener a port of its own\n"),
            # One address spelled two ways: the hosts were compared as text, and the second
            # listener then failed on a port in use, its taker unnamed.
            (["--listen", f"127.0.0.1:{port}", "--metrics-listen", f"localhost:{port}"],
             f"error: --metrics-listen localhost:{port}: the port of --listen 127.0.0.1:{port}; "
             "give each listener a port of its own\n"),
        ]
        for flags, expected in cases:
            service = Run(["serve", "--db", db, "--scenarios", scenarios] + flags, cwd=folder)
            service.env["TMPDIR"] = folder
            self.addCleanup(kill_tagged, service.tag)
            service.run(timeout=30)
            self.assertEqual((service.returncode, service.stdout, service.stderr),
                             (2, "", expected), flags)
            self.assertFalse(os.path.exists(db), flags)
            self.assertEqual(service.leftovers(wait=0), [])

    def test_an_allowed_program_or_address_that_is_not_one_is_refused_with_exit_2(self):
        # Before the fix each of these started the service without a word (the timeout would
        # have killed it); --every 1d said only "expected a positive duration such as 1h".
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        db = os.path.join(folder, "serve.db")
        not_executable = os.path.join(folder, "script")
        with open(not_executable, "w") as f:
            f.write("#!/bin/sh\n")
        program = ("error: --allow-command '{}': no executable program there (a path, or a name "
                   "on PATH)\n")
        cases = [
            (["--allow-command", "/nonexistent/prog"], program.format("/nonexistent/prog")),
            (["--allow-command", ""], program.format("")),
            (["--allow-command", not_executable], program.format(not_executable)),
            (["--allow-command", "no-such-program-on-path"],
             program.format("no-such-program-on-path")),
            (["--allow-address", "notanaddr"],
             "error: --allow-address 'notanaddr' is not an address to connect to: it has no "
             ":PORT; expected HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", "
             "\"[::1]:7700\")\n"),
            # A name no baseline can have would let clients promote to nothing.
            (["--allow-promote", "main;"],
             "error: --allow-promote 'main;' may contain only letters, digits, '_', '-' and "
             "'.'\n"),
            (["--allow-promote", ""], "error: --allow-promote must have 1 to 100 characters\n"),
            (["--every", "1d"],
             "error: --every '1d': unknown duration unit 'd' in '1d' (ns, us, ms, s, m, h)\n"),
            (["--every", "0s"],
             "error: --every '0s': expected a positive duration such as 1h (units: ns, us, ms, "
             "s, m, h)\n"),
        ]
        for flags, expected in cases:
            service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                           "--db", db, "--scenarios", scenarios] + flags, cwd=folder)
            service.env["TMPDIR"] = folder
            self.addCleanup(kill_tagged, service.tag)
            service.run(timeout=30)
            self.assertEqual((service.returncode, service.stdout, service.stderr),
                             (2, "", expected), flags)
            self.assertFalse(os.path.exists(db), flags)
        # A program on PATH and a path to an executable file are taken.
        service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                       "--db", db, "--scenarios", scenarios, "--allow-command", "sh",
                       "--allow-command", shutil.which("sh"), "--allow-address",
                       "10.0.0.5:8080"], cwd=folder)
        service.env["TMPDIR"] = folder
        self.addCleanup(kill_tagged, service.tag)
        service.start()
        ready = service.proc.stdout.readline()
        service.signal(signal.SIGTERM)
        service.finish(timeout=30)
        self.assertTrue(ready.startswith("READY grpc="), ready + service.stderr)
        self.assertEqual(service.leftovers(wait=0), [])

    def test_a_default_router_or_worker_that_cannot_start_refuses_the_service_with_exit_2(self):
        # The orchestrator alone in a folder of its own: what lies next to it there is what
        # a job would start (no flag, no variable), and PATH has no router or worker.
        folder = tempfile.mkdtemp(prefix="benchgate-serve-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        bin_dir = os.path.join(folder, "bin")
        os.mkdir(bin_dir)
        orchestrator = os.path.join(bin_dir, "orchestrator")
        shutil.copy2(ORCHESTRATOR, orchestrator)
        empty = os.path.join(folder, "empty")
        os.mkdir(empty)
        bundled = os.path.join(folder, "bundled")
        os.mkdir(bundled)
        write_scenario(bundled, "short.toml", SHORT)  # starts the bundled router and worker
        tmp = os.path.join(folder, "tmp")
        os.mkdir(tmp)
        db = os.path.join(folder, "serve.db")
        router, worker = os.path.join(bin_dir, "router"), os.path.join(bin_dir, "worker")

        def serve(scenarios):
            service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                           "--db", db, "--scenarios", scenarios], cwd=folder)
            service.args[0] = orchestrator
            for name in ("BENCHGATE_ROUTER_BIN", "BENCHGATE_WORKER_BIN"):
                service.env.pop(name, None)
            service.env["PATH"] = "/usr/bin:/bin"
            service.env["TMPDIR"] = tmp
            self.addCleanup(kill_tagged, service.tag)
            return service

        def refused(scenarios, expected, case):
            # Before the fix the service started, said READY and served until the timeout
            # killed it; each job would then have failed.
            service = serve(scenarios).run(timeout=30)
            self.assertEqual((service.returncode, service.stdout, service.stderr),
                             (2, "", expected), case)
            self.assertFalse(os.path.exists(db), case)
            self.assertEqual(os.listdir(tmp), [], case)

        with open(router, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(router, 0o644)
        refused(empty, f"error: router executable '{router}' (next to the orchestrator): is not "
                "executable\n", "router not executable")
        os.remove(router)
        os.mkdir(worker)
        refused(empty, "warning: router executable 'router' is neither next to the orchestrator "
                "nor on PATH: give its path with --router-bin; no scenario of the --scenarios "
                "folder needs it, but a submitted scenario that does will fail\n"
                f"error: worker executable '{worker}' (next to the orchestrator): is a "
                "folder, not a regular file\n", "worker a folder")
        os.rmdir(worker)
        # Found nowhere, and a scenario of the folder starts it: refused.
        refused(bundled, "error: router executable 'router' is neither next to the orchestrator "
                "nor on PATH: give its path with --router-bin\n", "router needed, found nowhere")
        # Found nowhere, and no scenario of the folder needs it (a service of external systems
        # under test on remote workers): it starts, warned.
        service = serve(empty).start()
        ready = service.proc.stdout.readline()
        service.signal(signal.SIGTERM)
        service.finish(timeout=30)
        self.assertTrue(ready.startswith("READY grpc="), ready + service.stderr)
        self.assertEqual(service.returncode, 0, service.stderr)
        for name in ("router", "worker"):
            self.assertIn(f"warning: {name} executable '{name}' is neither next to the "
                          f"orchestrator nor on PATH: give its path with --{name}-bin; no "
                          "scenario of the --scenarios folder needs it, but a submitted scenario "
                          "that does will fail\n", service.stderr)
        self.assertEqual(service.leftovers(wait=0), [])


if __name__ == "__main__":
    unittest.main()
