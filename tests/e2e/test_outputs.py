"""What the orchestrator says agrees with what it did: the exit code with the stored run (a bad
--promote, a failed push, a full disk, a locked database), the reports (--json status, gate
re-evaluations, JUnit, baselines), and one clear line for every command-line mistake and every
address that cannot be listened on."""
import http.server
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import BIN, Run, kill_tagged, load_json, write_scenario

# A command run in a network namespace of its own (loopback up) whose kernel hands out one
# port to every bind to port 0 (ip_local_port_range is the namespace's).
ONE_EPHEMERAL_PORT = 40000
ONE_EPHEMERAL_PORT_NAMESPACE = [
    "unshare", "--net", "sh", "-c",
    f"ip link set lo up && echo '{ONE_EPHEMERAL_PORT} {ONE_EPHEMERAL_PORT}' > "
    '/proc/sys/net/ipv4/ip_local_port_range && exec "$@"', "sh"]


def one_ephemeral_port_works():
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    try:
        return subprocess.run(ONE_EPHEMERAL_PORT_NAMESPACE + ["true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Pushgateway(http.server.BaseHTTPRequestHandler):
    """Keeps the body of every push."""
    received = []

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        Pushgateway.received.append(body)
        self.send_response(200)
        self.end_headers()

    do_POST = do_PUT

    def log_message(self, *args):
        pass


QUICK = """
name = "e2e_outputs"
[defaults]
warmup = "0s"
duration = "300ms"
repetitions = {repetitions}

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 2
"""

SECOND_WORKLOAD = """
[[workloads]]
name = "second"
protocol = "http1"
target = "/bench/hello"
connections = 2
"""

GATE = """
[[gates]]
workload = "hello"
metric = "latency.p99"
max = "{p99_max}"
"""


class OutputsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)

    def orchestrator(self, *args):
        run = Run(list(args), cwd=self.dir)
        self.tags.append(run.tag)
        return run.run()

    def start(self, *args):
        run = Run(list(args), cwd=self.dir)
        self.tags.append(run.tag)
        return run.start()

    def scenario(self, repetitions=1, extra=""):
        return write_scenario(self.dir, "quick.toml", QUICK.format(repetitions=repetitions) + extra)

    def query(self, sql, *args):
        with sqlite3.connect(self.db) as db:
            return db.execute(sql, args).fetchall()


class ExitCodeAndStoredRunTest(OutputsTest):
    def test_a_bad_promote_name_is_refused_before_anything_runs(self):
        run = self.orchestrator("run", self.scenario(), "--db", self.db, "--promote", "bad name")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(run.stderr, "error: --promote 'bad name' may contain only letters, "
                                     "digits, '_', '-' and '.'\n")
        self.assertNotIn("RESULT|", run.stdout)
        self.assertFalse(os.path.exists(self.db))

    def test_a_report_file_that_cannot_be_written_is_refused_before_anything_runs(self):
        for flag in ("--json", "--junit", "--markdown"):
            target = os.path.join(self.dir, "missing", "out")
            run = self.orchestrator("run", self.scenario(), "--db", self.db, flag, target)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: {flag} {target}: folder "
                                 f"'{os.path.dirname(target)}' does not exist\n"))
            self.assertNotIn("RESULT|", run.stdout)
            self.assertFalse(os.path.exists(self.db))

    def test_two_reports_in_one_file_are_refused_and_a_stream_is_written_into(self):
        # `--json x --junit x` kept only the last one written; now it is a usage mistake, found
        # before anything runs (`gate` before the database is opened).
        same = os.path.join(self.dir, "out")
        for args in (["run", self.scenario(), "--db", self.db],
                     ["gate", "1", "--db", os.path.join(self.dir, "none.db")]):
            run = self.orchestrator(*args, "--json", same, "--markdown", same)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: --json {same} and --markdown {same} name the same file; "
                                 "each report needs a file of its own\n"), args[0])
            self.assertNotIn("RESULT|", run.stdout)
            self.assertEqual(sorted(os.listdir(self.dir)), ["quick.toml"])
        # A path that is not a regular file (here /dev/fd/1, as /dev/stdout is, a pipe) is
        # written into: it was refused, as its folder (in /proc) takes no new file.
        run = self.orchestrator("run", self.scenario(), "--db", self.db, "--markdown", "/dev/fd/1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("RESULT|", run.stdout)
        self.assertIn("## benchgate results\n", run.stdout.split("RESULT|")[-1])
        self.assertEqual(sorted(os.listdir(self.dir)), ["bench.db", "quick.toml"])

    def test_a_report_folder_that_refuses_new_files_is_refused_before_anything_runs(self):
        # /proc refuses a new file even to root, whom permission bits (access()) never stop.
        for flag in ("--json", "--junit", "--markdown"):
            run = self.orchestrator("run", self.scenario(), "--db", self.db, flag, "/proc/out")
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertTrue(run.stderr.startswith(
                f"error: {flag} /proc/out: folder '/proc' is not writable ("), run.stderr)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertNotIn("RESULT|", run.stdout)
            self.assertFalse(os.path.exists(self.db))

    def test_a_run_whose_report_file_cannot_be_written_is_stored_as_exit_3_and_not_promoted(
            self):
        # The folder of --html is checked at the start and removed while the run measures:
        # the file cannot be written at the end, so the process exits 3. The run was stored
        # and judged before that; it said exit code 0 and joined the baseline, which needs an
        # exit code of 0 (README, "Stored results"). Now it is promoted only after the files
        # are written, and the stored exit code is the process's.
        # The push (--pushgateway) says the final exit code too: it said the one the run was
        # judged with, 0, while the process exited 3. So does the JSON, written elsewhere: it
        # said exit code 0 and no error, as it was written before the HTML failed.
        gateway = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pushgateway)
        threading.Thread(target=gateway.serve_forever, daemon=True).start()
        self.addCleanup(gateway.server_close)
        self.addCleanup(gateway.shutdown)
        Pushgateway.received = []
        out = os.path.join(self.dir, "out")
        os.mkdir(out)
        run = self.start("run", self.scenario(repetitions=3), "--db", self.db, "--promote",
                         "main", "--json", os.path.join(self.dir, "run.json"), "--html",
                         os.path.join(out, "run.html"), "--pushgateway",
                         f"http://127.0.0.1:{gateway.server_address[1]}")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.query("SELECT COUNT(*) FROM runs") == [(1,)]:
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.02)
        os.rmdir(out)
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("error: ", run.stderr)
        self.assertIn("run 1 not promoted to 'main': it exited 3", run.stdout)
        self.assertEqual(self.query("SELECT status, exit_code, error FROM runs"),
                         [("ok", 3, "the report files could not be written")])
        written = load_json(os.path.join(self.dir, "run.json"))
        self.assertEqual((written["exit_code"], written["scenarios"][0]["exit_code"],
                          written["scenarios"][0]["error"]),
                         (3, 3, "the report files could not be written"))
        self.assertEqual(self.query("SELECT COUNT(*) FROM baselines"), [(0,)])
        self.assertEqual(len(Pushgateway.received), 1)
        pushed = Pushgateway.received[0].splitlines()
        self.assertIn('benchgate_last_run_exit_code{scenario="e2e_outputs"} 3', pushed)

    def test_a_failed_push_changes_neither_the_exit_code_nor_the_stored_run(self):
        # A port that refuses connections: bound, never listening.
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
        try:
            run = self.orchestrator("run", self.scenario(), "--db", self.db, "--pushgateway", url)
        finally:
            closed.close()
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(f"warning: pushing metrics to {url} failed", run.stderr)
        self.assertIn("the exit code stays the run's (0)", run.stderr)
        self.assertEqual(self.query("SELECT status, exit_code FROM runs"), [("ok", 0)])

    def test_every_command_with_db_reads_beside_a_writer_and_waits_its_busy_timeout_to_write(
            self):
        # Two runs: compare takes two different ones.
        for _ in range(2):
            run = self.orchestrator("run", self.scenario(), "--db", self.db)
            self.assertEqual(run.returncode, 0, run.stderr)
        holder = sqlite3.connect(self.db, timeout=30, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            # Reads go on beside another writer's lock (the database is in WAL mode).
            for args in (["runs", "list"], ["runs", "show", "1"], ["baseline", "list"],
                         ["compare", "1", "2"], ["history", "changes"], ["gate", "1"]):
                read = self.orchestrator(*args, "--db", self.db, "--db-busy-timeout", "200ms")
                self.assertEqual(read.returncode, 0, (args, read.stderr))
            # A write waits the command's own --db-busy-timeout, and says how long.
            write = self.orchestrator("baseline", "add", "b", "1", "--db", self.db,
                                      "--db-busy-timeout", "200ms")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assertEqual(write.returncode, 3, write.stderr)
        self.assertEqual(write.stderr, "error: baseline add: the database is locked by another "
                                       "process (gave up after waiting 200 ms for it; "
                                       "--db-busy-timeout sets the wait)\n")

    def test_a_workload_the_locked_database_refused_is_not_reported_as_stored(self):
        path = self.scenario()
        # The lock outlasts both tries, each waiting out the busy timeout: 1 s rather than 5 s.
        run = self.start("run", path, "--db", self.db, "--db-busy-timeout", "1s")
        run.wait_for_stderr("hello: starting")
        # A second connection holds the write lock until the orchestrator has exited.
        holder = sqlite3.connect(self.db, timeout=30, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            run.finish(timeout=120)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertIn("warning: cannot store workload 'hello' of run 1 now", run.stderr)
        self.assertIn("the database is locked by another process (gave up after waiting 1000 ms "
                      "for it; --db-busy-timeout sets the wait)", run.stderr)
        [result] = run.result_lines()
        self.assertEqual(result["status"], "failed")
        self.assertEqual(self.query("SELECT COUNT(*) FROM workloads"), [(0,)])

    def test_a_workload_refused_once_is_stored_when_the_lock_is_gone(self):
        path = self.scenario(extra=SECOND_WORKLOAD)
        run = self.start("run", path, "--db", self.db, "--db-busy-timeout", "1s")
        run.wait_for_stderr("hello: starting")
        holder = sqlite3.connect(self.db, timeout=30, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            run.wait_for_stderr("warning: cannot store workload 'hello'", timeout=60)
        finally:
            holder.execute("ROLLBACK")  # while the second workload runs
            holder.close()
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([r["status"] for r in run.result_lines()], ["ok", "ok"])
        self.assertEqual(self.query("SELECT name, status FROM workloads ORDER BY name"),
                         [("hello", "ok"), ("second", "ok")])
        self.assertEqual(self.query("SELECT status, exit_code FROM runs"), [("ok", 0)])

    def test_a_full_disk_fails_the_run_with_the_reason_and_never_leaves_it_running(self):
        folder = os.path.join(self.dir, "small")
        os.mkdir(folder)
        first = self.scenario()
        second = write_scenario(self.dir, "second.toml", QUICK.format(repetitions=3))
        # In a mount namespace of its own (nothing outside sees the mount, root included): a
        # 2 MiB tmpfs holding the database; a first run creates it, the second run's disk
        # fills up once its workload has started, leaving a few pages free.
        script = textwrap.dedent("""
            import errno, os, sqlite3, subprocess, sys
            folder, orchestrator, first, second, free = sys.argv[1:6]
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", folder], check=True)
            db = os.path.join(folder, "bench.db")
            made = subprocess.run([orchestrator, "run", first, "--db", db], capture_output=True)
            if made.returncode != 0:
                sys.exit("first run: " + made.stderr.decode())
            run = subprocess.Popen([orchestrator, "run", second, "--db", db],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            seen = ""
            while "hello: starting" not in seen:
                line = run.stderr.readline()
                if not line:
                    break
                seen += line
            fill = os.path.join(folder, "fill")
            with open(fill, "wb", buffering=0) as f:
                try:
                    while True:
                        f.write(b"x" * 4096)
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
            os.truncate(fill, max(0, os.path.getsize(fill) - int(free)))
            out, err = run.communicate(timeout=120)
            os.remove(fill)
            sys.stdout.write(out)
            sys.stderr.write(seen + err)
            # The database lives only in this namespace: print what the test checks.
            with sqlite3.connect(db) as check:
                check.row_factory = sqlite3.Row
                for row in check.execute("SELECT * FROM runs ORDER BY id"):
                    row = dict(row)
                    print("RUNROW|" + "|".join(str(row.get(k)) for k in
                                               ("id", "status", "exit_code", "error")))
            sys.exit(run.returncode)
        """)
        probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest("no mount namespace here: " + probe.stderr.strip())
        run = Run([], cwd=self.dir)
        self.tags.append(run.tag)
        run.args = ["unshare", "--mount", sys.executable, "-c", script, folder,
                    os.path.join(BIN, "orchestrator"), first, second, "0"]
        run.run(timeout=240)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        self.assertIn("database or disk is full", run.stderr)
        rows = [l.split("|")[1:] for l in run.stdout.splitlines() if l.startswith("RUNROW|")]
        self.assertEqual([r[:3] for r in rows], [["1", "ok", "0"], ["2", "failed", "3"]],
                         run.stdout + run.stderr)
        self.assertTrue(rows[1][3].startswith("cannot store results: "), rows[1][3])
        self.assertIn("database or disk is full", rows[1][3])
        self.assertNotIn("cannot finish run", run.stderr)
        [result] = run.result_lines()
        self.assertEqual(result["status"], "failed")


class ReportsTest(OutputsTest):
    def test_json_has_each_scenarios_status_as_stored(self):
        out = os.path.join(self.dir, "out.json")
        run = self.orchestrator("run", self.scenario(), "--db", self.db, "--json", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        [scenario] = load_json(out)["scenarios"]
        self.assertEqual(scenario["status"], "ok")
        self.assertEqual(self.query("SELECT status FROM runs"), [(scenario["status"],)])

    def test_the_readme_lists_every_result_field_in_order(self):
        run = self.orchestrator("run", self.scenario(), "--db", self.db)
        self.assertEqual(run.returncode, 0, run.stderr)
        line = next(l for l in run.stdout.splitlines() if l.startswith("RESULT|"))
        fields = [kv.split("=", 1)[0] for kv in line.split("|")[1:]]
        with open(os.path.join(os.path.dirname(__file__), "../../README.md")) as f:
            documented = next(l for l in f if l.startswith("RESULT|scenario=..")).strip()
        self.assertEqual(documented, "RESULT|" + "|".join(f + "=.." for f in fields))

    def test_worker_help_names_every_protocol_it_generates(self):
        help_text = subprocess.run([os.path.join(BIN, "worker"), "--help"], capture_output=True,
                                   text=True, timeout=30).stdout
        self.assertIn("an HTTP/1.1, HTTP/2 and WAMP load generator", help_text.splitlines()[0])

    def test_junit_and_markdown_of_a_run_and_of_its_re_evaluation(self):
        path = self.scenario(extra=GATE.format(p99_max="10s"))
        junit = os.path.join(self.dir, "run.xml")
        run = self.orchestrator("run", path, "--db", self.db, "--junit", junit)
        self.assertEqual(run.returncode, 0, run.stderr)
        cases = ET.parse(junit).getroot().find("testsuite").findall("testcase")
        self.assertEqual([c.get("name") for c in cases], ["run", "hello latency.p99 (gate #1)"])
        self.assertGreater(float(cases[0].get("time")), 0)  # the run's own duration
        self.assertIsNone(cases[1].get("time"))  # a gate takes no time of its own

        markdown = os.path.join(self.dir, "gate.md")
        junit = os.path.join(self.dir, "gate.xml")
        again = self.orchestrator("gate", "1", "--db", self.db, "--markdown", markdown,
                                  "--junit", junit)
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(markdown) as f:
            text = f.read()
        self.assertNotIn("| workload | ops/s", text)  # no results table without its rows
        self.assertIn("`orchestrator runs show 1`", text)
        self.assertIn("| pass | critical | hello | default | latency.p99 |", text)
        for case in ET.parse(junit).getroot().iter("testcase"):
            self.assertIsNone(case.get("time"), case.get("name"))

        # A report file gate cannot write is a usage mistake found before anything is judged
        # or stored (exit 2), as for run.
        nowhere = os.path.join(self.dir, "no-such-folder", "gate.md")
        refused = self.orchestrator("gate", "1", "--db", self.db, "--markdown", nowhere)
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertIn("--markdown", refused.stderr)
        self.assertEqual(refused.stdout, "")

    def test_baseline_add_takes_only_what_promote_would_take(self):
        path = self.scenario(extra=GATE.format(p99_max="1ns"))
        run = self.orchestrator("run", path, "--db", self.db, "--promote", "main")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("not promoted", run.stdout)
        add = self.orchestrator("baseline", "add", "main", "1", "--db", self.db)
        self.assertEqual(add.returncode, 2, add.stdout)
        self.assertEqual(add.stderr, "error: baseline add: run 1 exited 1 (a critical gate "
                                     "failed); only runs that exited 0 can be a baseline, as "
                                     "with run --promote\n")
        self.assertEqual(self.query("SELECT COUNT(*) FROM baselines"), [(0,)])


class CommandLineMistakesTest(OutputsTest):
    def test_an_unknown_command_suggests_the_nearest(self):
        run = self.orchestrator("rn", "x")
        self.assertEqual((run.returncode, run.stderr), (2, "error: unknown command 'rn' for "
                         "`orchestrator` (did you mean 'run'?); see `orchestrator --help`\n"))
        run = self.orchestrator("runs", "lst")
        self.assertEqual((run.returncode, run.stderr), (2, "error: unknown command 'lst' for "
                         "`orchestrator runs` (did you mean 'list'?); see `orchestrator runs "
                         "--help`\n"))

    def test_an_unknown_option_is_named_with_the_nearest_not_taken_for_a_file(self):
        run = self.orchestrator("run", "--jsn", "x.json")
        self.assertEqual((run.returncode, run.stderr), (2, "error: unknown option '--jsn' for "
                         "`orchestrator run` (did you mean '--json'?); see `orchestrator run "
                         "--help`\n"))
        # An option's value is never taken for an option, and what follows -- is the command's.
        path = self.scenario()
        ok = self.orchestrator("validate", path)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        run = self.orchestrator("run", path, "--label", "-x=1", "--db", self.db, "--jsno=1")
        self.assertEqual(run.returncode, 2)
        self.assertIn("unknown option '--jsno'", run.stderr)

    def test_a_folder_given_as_a_scenario_gets_one_message_from_run_and_validate(self):
        validate = self.orchestrator("validate", self.dir)
        run = self.orchestrator("run", self.dir, "--db", self.db)
        expected = (f"{self.dir}: error: is a folder, not a scenario file (give the files in it, "
                    f"e.g. {self.dir}/*.toml)\n")
        self.assertEqual((validate.returncode, validate.stderr), (2, expected))
        self.assertEqual((run.returncode, run.stderr), (2, expected))
        missing = os.path.join(self.dir, "missing.toml")
        validate = self.orchestrator("validate", missing)
        run = self.orchestrator("run", missing, "--db", self.db)
        self.assertEqual(validate.stderr, f"{missing}: error: no such scenario file\n")
        self.assertEqual((run.returncode, run.stderr), (2, validate.stderr))

    def test_a_db_that_is_a_folder_or_not_sqlite_is_a_usage_error_for_every_command(self):
        corrupt = os.path.join(self.dir, "corrupt.db")
        with open(corrupt, "w") as f:
            f.write("not sqlite\n" * 100)
        path = self.scenario()
        for db in (self.dir, corrupt):
            run = self.orchestrator("run", path, "--db", db)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertNotIn("RESULT|", run.stdout)
            for args in (["runs", "list"], ["runs", "show", "1"], ["baseline", "list"],
                         ["baseline", "add", "main", "1"], ["compare", "1", "2"], ["gate", "1"]):
                history = self.orchestrator(*args, "--db", db)
                self.assertEqual((history.returncode, history.stderr), (2, run.stderr), args)

    def test_metrics_linger_is_checked_always_and_needs_metrics_listen(self):
        path = self.scenario()
        # Whatever is wrong with it (no duration; past the longest one), the range is named.
        for linger in ("5parsecs", "100000h"):
            run = self.orchestrator("run", path, "--db", self.db, "--metrics-linger", linger)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: --metrics-linger '{linger}': expected a duration from "
                                 "0s to 2400h (100 days), such as 30s\n"))
        run = self.orchestrator("run", path, "--db", self.db, "--metrics-linger", "5s")
        self.assertEqual((run.returncode, run.stderr), (2, "error: --metrics-linger 5s keeps "
                         "/metrics up after the run, so it needs --metrics-listen HOST:PORT\n"))
        self.assertFalse(os.path.exists(self.db))

    def test_a_gate_on_a_swept_workloads_base_name_suggests_its_glob(self):
        path = write_scenario(self.dir, "swept.toml", """
name = "swept"
[[workloads]]
name = "echo"
method = "POST"
target = "/bench/echo"
sweep = { request_bytes = [64, 1024] }
[[gates]]
workload = "echo"
metric = "latency.p99"
max = "5ms"
""")
        run = self.orchestrator("validate", path)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr, f"{path}:9:12: error: gate workload 'echo' matches no "
                                     "workload: a swept workload is named per value "
                                     "('echo@request_bytes=64', ...); 'echo@*' matches every "
                                     "value\n")


class ListenErrorsTest(OutputsTest):
    def setUp(self):
        super().setUp()
        self.taken = socket.socket()
        self.taken.bind(("127.0.0.1", 0))
        self.taken.listen()
        self.address = f"127.0.0.1:{self.taken.getsockname()[1]}"

    def tearDown(self):
        self.taken.close()
        super().tearDown()

    def test_run_metrics_listen_on_a_port_in_use(self):
        run = self.orchestrator("run", self.scenario(), "--db", self.db,
                                "--metrics-listen", self.address)
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"error: --metrics-listen {self.address}: cannot listen: address "
                             "already in use\n"))
        self.assertNotIn("RESULT|", run.stdout)
        self.assertFalse(os.path.exists(self.db))

    def test_run_metrics_listen_on_a_routers_port_names_the_router(self):
        # The router listens there (the socket of setUp): the run's /metrics was refused
        # "address already in use", naming no one; with a command router, the router's start
        # failed instead, as if another program listened there.
        path = write_scenario(self.dir, "external.toml", f"""
name = "e2e_outputs"
[router]
impl = "external"
address = "{self.address}"
[[workloads]]
name = "hello"
""")
        port = self.address.split(":")[1]
        run = self.orchestrator("run", path, "--db", self.db, "--metrics-listen", f"localhost:{port}")
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"error: --metrics-listen localhost:{port}: the port of [router] "
                             f"address '{self.address}' ({path}:5:11), where that router listens: "
                             "the orchestrator and the router cannot both listen there; give "
                             "--metrics-listen another port, or the router one of its own\n"))
        self.assertFalse(os.path.exists(self.db))

    @unittest.skipUnless(one_ephemeral_port_works(), "needs unshare --net (root) and ip")
    def test_run_metrics_listen_on_port_0_is_compared_as_bound(self):
        # Port 0 was compared with the routers' ports as port 0, which none has: the run went on
        # with /metrics on the kernel's port, where this router is, and the workers' load went
        # to /metrics. In a network namespace of its own whose kernel hands out one port, the
        # port the kernel chooses is known.
        address = f"127.0.0.1:{ONE_EPHEMERAL_PORT}"
        path = write_scenario(self.dir, "external.toml", QUICK.format(repetitions=1).replace(
            'name = "e2e_outputs"\n', f'name = "e2e_outputs"\n[router]\nimpl = "external"\n'
                                      f'address = "{address}"\n'))
        run = Run(["run", path, "--db", self.db, "--metrics-listen", "127.0.0.1:0"], cwd=self.dir)
        self.tags.append(run.tag)
        run.args = ONE_EPHEMERAL_PORT_NAMESPACE + run.args
        run.run()
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"metrics: serving http://{address}/metrics\n"
                             f"error: --metrics-listen {address}: the port of [router] address "
                             f"'{address}' ({path}:5:11), where that router listens: the "
                             "orchestrator and the router cannot both listen there; give "
                             "--metrics-listen another port, or the router one of its own "
                             f"(--metrics-listen 127.0.0.1:0 listens on {address}, the port the "
                             "kernel chose)\n"))
        self.assertNotIn("RESULT|", run.stdout)
        self.assertFalse(os.path.exists(self.db))

    def test_a_port_beyond_65535_is_refused_not_wrapped(self):
        # The kernel would bind 99999 modulo 65536 (34463), a port nobody asked for.
        run = self.orchestrator("run", self.scenario(), "--db", self.db,
                                "--metrics-listen", "127.0.0.1:99999")
        self.assertEqual((run.returncode, run.stderr),
                         (2, "error: --metrics-listen 127.0.0.1:99999: cannot listen: its port "
                             "'99999' is not a number from 0 to 65535\n"))
        for flag, other in (("--listen", "--metrics-listen"), ("--metrics-listen", "--listen")):
            run = self.orchestrator("serve", flag, "127.0.0.1:99999", other, "127.0.0.1:0",
                                    "--db", self.db, "--scenarios", self.dir)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: {flag} 127.0.0.1:99999: cannot listen: its port '99999' "
                                 "is not a number from 0 to 65535\n"), flag)
            self.assertNotIn("READY", run.stdout)

    def test_the_worker_names_a_port_in_use_and_exits_2_as_the_router_does(self):
        port = self.address.rsplit(":", 1)[1]
        worker = subprocess.run([os.path.join(BIN, "worker"), "--listen", self.address],
                                capture_output=True, text=True, timeout=30, check=False)
        self.assertEqual((worker.returncode, worker.stdout, worker.stderr),
                         (2, "", f"worker: cannot listen on {self.address}: port {port} is in "
                                 "use\n"))
        router = subprocess.run([os.path.join(BIN, "router"), "--control", self.address],
                                capture_output=True, text=True, timeout=30, check=False)
        self.assertEqual((router.returncode, router.stderr),
                         (2, f"router: cannot listen for control on {self.address}: port {port} "
                             "is in use\n"))

    def test_two_workers_ask_for_one_port_and_the_second_names_it_and_exits_2(self):
        # gRPC would share the port between them (SO_REUSEPORT), and --workers-at would reach
        # either at random.
        first = subprocess.Popen([os.path.join(BIN, "worker"), "--listen", "127.0.0.1:0"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = first.stdout.readline().strip()
            self.assertTrue(line.startswith("READY grpc=127.0.0.1:"), line)
            address = line.split("=", 1)[1]
            port = address.rsplit(":", 1)[1]
            second = subprocess.run([os.path.join(BIN, "worker"), "--listen", address],
                                    capture_output=True, text=True, timeout=30, check=False)
            self.assertEqual((second.returncode, second.stdout, second.stderr),
                             (2, "", f"worker: cannot listen on {address}: port {port} is in "
                                     "use\n"))
        finally:
            first.terminate()
            first.wait(timeout=30)
            first.stdout.close()

    def test_serve_listen_and_metrics_listen_on_a_port_in_use(self):
        for flag, other in (("--listen", "--metrics-listen"), ("--metrics-listen", "--listen")):
            run = self.orchestrator("serve", flag, self.address, other, "127.0.0.1:0",
                                    "--db", self.db, "--scenarios", self.dir)
            self.assertEqual((run.returncode, run.stderr),
                             (2, f"error: {flag} {self.address}: cannot listen: address already "
                                 "in use\n"), flag)
            self.assertNotIn("READY", run.stdout)


class ScenarioFromAPipeTest(OutputsTest):
    """`validate <(generate)` and `generate | run /dev/stdin`: a pipe is read once, to its end,
    and its text is what the run stores (docs/SCENARIOS.md, "Scenario files"). Refused as a
    FIFO before."""

    def test_validate_reads_a_scenario_from_process_substitution(self):
        text = QUICK.format(repetitions=1)
        # As a shell user writes it: bash hands the orchestrator /dev/fd/N, a pipe.
        run = Run([], cwd=self.dir)
        self.tags.append(run.tag)
        proc = subprocess.run(["bash", "-c", 'exec "$0" validate <(printf %s "$1")',
                               run.args[0], text], env=run.env, cwd=self.dir,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((proc.returncode, proc.stderr), (0, ""))
        self.assertRegex(proc.stdout, r"^/dev/fd/[0-9]+: ok \(scenario e2e_outputs, 1 workload, "
                                      r"0 gates\)\n$")
        # A broken one names the pipe, line and column, as a file's diagnostics do.
        proc = subprocess.run(["bash", "-c", 'exec "$0" validate <(printf %s "$1")',
                               run.args[0], text.replace("connections", "conections")],
                              env=run.env, cwd=self.dir, capture_output=True, text=True,
                              timeout=60)
        line = text.splitlines().index("connections = 2") + 1
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertRegex(proc.stderr, rf"^/dev/fd/[0-9]+:{line}:1: error: unknown key "
                                      "'conections'")

    def test_run_reads_a_scenario_from_stdin_and_stores_its_text(self):
        text = QUICK.format(repetitions=1)
        run = Run(["run", "/dev/stdin", "--db", self.db], cwd=self.dir)
        self.tags.append(run.tag)
        proc = subprocess.run(run.args, env=run.env, cwd=self.dir, input=text,
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        run.stdout = proc.stdout
        self.assertEqual([r["workload"] for r in run.result_lines()], ["hello"])
        self.assertEqual(self.query("SELECT scenario, scenario_text FROM runs"),
                         [("e2e_outputs", text)])
        self.assertEqual(run.leftovers(), [])

    def test_ctrl_c_while_a_named_pipe_is_waited_on_exits_3_and_reads_no_further_file(self):
        # Two named pipes nobody writes: Ctrl-C during the first one's wait is an interrupt,
        # exit 3 as for any, and the second pipe is not waited on for its own 10 s (before:
        # exit 2, after the second wait).
        first, second = os.path.join(self.dir, "a.toml"), os.path.join(self.dir, "b.toml")
        os.mkfifo(first)
        os.mkfifo(second)
        run = self.start("validate", first, second)
        try:
            # Signalled once the first pipe is open: the handler is installed by then.
            deadline = time.monotonic() + 30
            fds = f"/proc/{run.proc.pid}/fd"
            while time.monotonic() < deadline:
                try:
                    if any(os.readlink(os.path.join(fds, fd)) == first
                           for fd in os.listdir(fds)):
                        break
                except OSError:
                    pass
                time.sleep(0.01)
            run.proc.send_signal(signal.SIGINT)
            stdout, stderr = run.proc.communicate(timeout=30)
        finally:
            if run.proc.poll() is None:
                run.proc.kill()
                run.proc.communicate()
        self.assertEqual((run.proc.returncode, stdout, stderr),
                         (3, "", f"{first}: error: interrupted while waiting for the pipe\n"))


if __name__ == "__main__":
    unittest.main()
