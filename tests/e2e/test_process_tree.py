"""A `command` system under test that forks, as nginx does: nothing of its tree outlives an
orchestrator killed with SIGKILL (issue: only direct children died, with PR_SET_PDEATHSIG),
its CPU and RSS are measured over the whole tree (router/op, JSON, SQLite, gates), and what it
writes to the private folder it is given is gone after a run that went well, kept after one
that failed."""
import glob
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
import unittest

from harness import Run, kill_tagged, load_json, tagged_processes, write_scenario

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forking_server.py")

SCENARIO = """
name = "e2e_tree"
[router]
impl = "command"
command = ["{python}", "{server}", "${{port:sut}}"{extra}]
address = "127.0.0.1:${{port:sut}}"
[defaults]
warmup = "100ms"
duration = "{duration}"
repetitions = {repetitions}
timeout = "120s"
workers = 1
connections = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
expect_body_bytes = 12

[[gates]]
workload = "hello"
metric = "router.cpu_per_request"
max = "1s"

[[gates]]
workload = "hello"
metric = "router.rss_bytes"
max = "64GiB"
"""


def wait_until(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


def environ_of(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            entries = f.read().split(b"\0")
    except OSError:
        return {}
    return dict(e.decode(errors="replace").split("=", 1) for e in entries if b"=" in e)


def stat_of(pid):
    """(comm, ppid, start time) of a live process, or None (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] == "Z":
        return None
    return comm, int(fields[1]), int(fields[19])


def identity_of(pid):
    """(comm, start time) of a live process, or None: the same pair later is the same process."""
    stat = stat_of(pid)
    return (stat[0], stat[2]) if stat else None


def kill_same(identities):
    for pid, identity in identities.items():
        if identity_of(pid) == identity:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def descendants(root):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and stat_of(int(entry)):
            children.setdefault(stat_of(int(entry))[1], []).append(int(entry))
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        for child in children.get(pid, []):
            found.append(child)
            pending.append(child)
    return found


def cgroup2_mount():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            before, _, after = line.partition(" - ")
            if after.startswith("cgroup2 "):
                return before.split()[4]
    return ""


def cgroup_of(pid):
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            return [l.strip() for l in f if l.startswith("0::")][0][3:]
    except (OSError, IndexError):
        return ""


class ProcessTreeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-tree-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        # The orchestrator's private folders (mkdtemp under $TMPDIR) land here, so the test
        # sees exactly what this run left.
        self.tmp = os.path.join(self.dir, "tmp")
        os.mkdir(self.tmp)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def orchestrator(self, duration="300ms", repetitions=2, extra="", args=(), command="run"):
        path = write_scenario(self.dir, "tree.toml", SCENARIO.format(
            python=sys.executable, server=SERVER, extra=extra, duration=duration,
            repetitions=repetitions))
        self.json = os.path.join(self.dir, "out.json")
        self.db = os.path.join(self.dir, "bench.db")
        outputs = ["--json", self.json] if command == "run" else []
        run = Run([command, path, "--db", self.db] + outputs + list(args), cwd=self.dir)
        run.env["TMPDIR"] = self.tmp
        self.runs.append(run)
        return run

    def servers(self, run):
        """The tagged processes running forking_server.py: the spawned one and its child."""
        def python_of_tree():
            found = []
            for pid in tagged_processes(run.tag):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if SERVER.encode() in f.read():
                            found.append(pid)
                except OSError:
                    pass
            return found if len(found) == 2 else None
        found = wait_until(python_of_tree)
        self.assertIsNotNone(found, "the forking server and its child never both ran")
        return found

    def kill_orchestrator_mid_window(self, extra="", command="run"):
        run = self.orchestrator(duration="30s", repetitions=3, extra=extra,
                                command=command).start()
        run.wait_for_stderr("rep 1/3: started")
        servers = self.servers(run)
        run.signal(signal.SIGKILL)
        run.finish(timeout=30)
        self.assertEqual(run.returncode, -signal.SIGKILL)
        return run, servers

    # --- nothing outlives a SIGKILLed orchestrator ------------------------------------------

    def test_sigkill_of_the_orchestrator_leaves_no_grandchild(self):
        run, servers = self.kill_orchestrator_mid_window()
        left = run.leftovers(wait=10.0)
        self.assertEqual(left, [], f"left behind (server tree was {servers})")

    def test_sigkill_of_calibrate_leaves_no_grandchild(self):
        # calibrate starts the same children as run, N times: the same guardian watches them.
        run, servers = self.kill_orchestrator_mid_window(command="calibrate")
        left = run.leftovers(wait=10.0)
        self.assertEqual(left, [], f"left behind (server tree was {servers})")

    def test_a_grandchild_that_left_its_group_dies_too_where_there_is_a_cgroup(self):
        run = self.orchestrator(duration="30s", repetitions=3, extra=', "--setsid"').start()
        run.wait_for_stderr("rep 1/3: started")
        servers = self.servers(run)
        groups = {os.getpgid(p) for p in servers}
        self.assertEqual(len(groups), 2, "the serving child did not leave the group")
        in_cgroup = all("/benchgate-" in cgroup_of(p) for p in servers)
        run.signal(signal.SIGKILL)
        run.finish(timeout=30)
        if not in_cgroup:
            self.skipTest("no usable cgroup v2 here: a process that leaves its group is only "
                          "killed by a live orchestrator (README, 'Nothing left behind')")
        self.assertEqual(run.leftovers(wait=10.0), [])

    def compare_routers(self):
        if not any(os.access(os.path.join(d, "nginx"), os.X_OK)
                   for d in os.environ.get("PATH", "").split(os.pathsep) if d):
            self.skipTest("nginx is not installed")
        # The shipped scenario and its nginx configuration, with 2 repetitions of 1 s rather
        # than 4 of 2 s: what is checked is the process tree and its files, not the figures.
        shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scenarios")
        shutil.copy(os.path.join(shipped, "nginx.conf"), self.dir)
        with open(os.path.join(shipped, "compare_routers.toml")) as f:
            text = f.read()
        self.assertIn('duration = "2s"\nrepetitions = 4\n', text)
        scenario = write_scenario(self.dir, "compare_routers.toml", text.replace(
            'duration = "2s"\nrepetitions = 4\n', 'duration = "1s"\nrepetitions = 2\n'))
        run = Run(["run", scenario, "--db", os.path.join(self.dir, "n.db")], cwd=self.dir)
        run.env["TMPDIR"] = self.tmp
        self.runs.append(run)
        return run

    def test_compare_routers_leaves_no_nginx_files(self):
        before = set(glob.glob("/tmp/benchgate-nginx-*"))
        run = self.compare_routers().run(timeout=200)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("variant=nginx", run.stdout)
        self.assertEqual(set(glob.glob("/tmp/benchgate-nginx-*")) - before, set())
        self.assertEqual(os.listdir(self.tmp), [], "left in $TMPDIR after a good run")

    def test_the_cgroup_of_an_orchestrator_killed_with_its_guardian_goes_at_the_next_run(self):
        run = self.orchestrator(duration="30s", repetitions=3).start()
        run.wait_for_stderr("rep 1/3: started")
        servers = self.servers(run)
        relative = cgroup_of(servers[0])
        mount = cgroup2_mount()
        if "/benchgate-" not in relative or not mount:
            run.signal(signal.SIGKILL)
            run.finish(timeout=30)
            self.skipTest("no usable cgroup v2 here")
        run_cgroup = os.path.join(mount, relative.lstrip("/").rsplit("/", 1)[0])
        guardian = [p for p in tagged_processes(run.tag) if stat_of(p)
                    and stat_of(p)[0] == "benchgate-guard"]
        self.assertEqual(len(guardian), 1)
        os.kill(guardian[0], signal.SIGKILL)  # nobody is left to remove the cgroup
        run.signal(signal.SIGKILL)
        run.finish(timeout=30)
        kill_tagged(run.tag)
        self.assertEqual(run.leftovers(wait=10.0), [])
        self.assertTrue(os.path.isdir(run_cgroup), run_cgroup)
        again = self.orchestrator().run(timeout=120)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertFalse(os.path.exists(run_cgroup), run_cgroup)

    def test_nginx_workers_die_with_a_sigkilled_orchestrator(self):
        run = self.compare_routers()
        run.start()
        run.wait_for_stderr("[nginx] rep 1/2: started")
        # nginx writes its process titles over its environment, so the test tag cannot find
        # it: its processes are the orchestrator's descendants named nginx.
        nginx = [p for p in descendants(run.proc.pid) if (stat_of(p) or ("",))[0] == "nginx"]
        self.assertGreaterEqual(len(nginx), 2, "nginx master and worker")
        # A process is its pid and start time (a reused pid starts later); not its parent: a
        # worker whose master died is re-parented (ppid 1) and is still the worker that must
        # not survive.
        identities = {p: identity_of(p) for p in nginx}
        self.addCleanup(kill_same, identities)  # the tag cannot find them if they survive

        def still_alive():
            return [p for p, i in identities.items() if identity_of(p) == i] or None
        run.signal(signal.SIGKILL)
        run.finish(timeout=30)
        # The guardian kills them a moment after the orchestrator is gone (and the master only
        # dies of PR_SET_PDEATHSIG when it next runs): wait until none is left, up to 10 s.
        wait_until(lambda: not still_alive(), 10.0)
        alive = still_alive()
        self.assertIsNone(alive, "nginx processes left behind")
        self.assertEqual(run.leftovers(wait=10.0), [])

    # --- the whole tree is measured ---------------------------------------------------------

    def test_cpu_and_rss_are_measured_over_the_tree(self):
        run = self.orchestrator().run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # Terminal: each repetition row ends with a router/op figure (the serving process is
        # the spawned one's child; the spawned one itself serves nothing).
        rows = [l.split() for l in run.stdout.splitlines() if l.strip().startswith("rep ")]
        self.assertEqual(len(rows), 2, run.stdout)
        for row in rows:
            self.assertNotEqual(row[-1], "-", run.stdout)
        report = load_json(self.json)
        workload = report["scenarios"][0]["workloads"][0]
        for rep in workload["repetitions"]:
            router = rep["router"]
            self.assertIsNotNone(router, rep)
            self.assertGreater(router["cpu_seconds"], 0, router)
            self.assertGreater(router["rss_bytes"], 0, router)
            self.assertGreater(router["cpu_seconds_per_request"], 0, router)
            self.assertNotIn("requests", router)  # a command counts no requests itself
        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT router_requests, router_cpu_s, router_rss_bytes FROM repetitions").fetchall()
        self.assertEqual(len(rows), 2)
        for requests, cpu, rss in rows:
            self.assertIsNone(requests)
            self.assertIsNotNone(cpu)
            self.assertIsNotNone(rss)
        verdicts = [g["verdict"] for g in report["scenarios"][0]["gates"]]
        self.assertEqual(verdicts, ["pass", "pass"], report["scenarios"][0]["gates"])

    # --- files: nothing left after a good run, kept after a failed one ----------------------

    def test_the_private_folder_is_removed_after_a_good_run(self):
        # Windows of 1 s: the folder is read while the run still goes, a second or more after
        # the first one starts, with a core taken by another test (tests/e2e/CMakeLists.txt).
        run = self.orchestrator(duration="1s").start()
        run.wait_for_stderr("rep 1/2: started")
        child = [p for p in self.servers(run) if os.getpgid(p) != p]
        self.assertEqual(len(child), 1)
        folder = environ_of(child[0]).get("BENCHGATE_SUT_DIR", "")
        self.assertTrue(folder.startswith(self.tmp), folder)
        self.assertTrue(os.path.exists(os.path.join(folder, "server.pid")))
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(os.listdir(self.tmp), [], "left in $TMPDIR after a good run")

    def test_the_private_folder_is_kept_with_the_logs_after_a_failed_run(self):
        run = self.orchestrator(duration="30s", repetitions=3).start()
        run.wait_for_stderr("rep 1/3: started")
        servers = self.servers(run)
        for pid in servers:
            os.kill(pid, signal.SIGKILL)  # the system under test dies mid-window
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)
        kept = glob.glob(os.path.join(self.tmp, "benchgate-run-*", "sut", "server.pid"))
        self.assertEqual(len(kept), 1, os.listdir(self.tmp))
        self.assertIn("child process logs: " + os.path.dirname(os.path.dirname(kept[0])),
                      run.stderr)

    def test_two_scenarios_of_one_run_keep_their_logs_apart(self):
        # Both scenarios' children use the same log names and sut/ folder: the first fails
        # (its system under test dies), the second runs well, and the first's files are still
        # its own to read afterwards.
        first = self.orchestrator(duration="30s", repetitions=3)
        second = write_scenario(self.dir, "tree2.toml", SCENARIO.format(
            python=sys.executable, server=SERVER, extra="", duration="300ms",
            repetitions=2).replace('name = "e2e_tree"', 'name = "e2e_tree_two"'))
        first.args.insert(first.args.index("--db"), second)
        first.start()
        first.wait_for_stderr("rep 1/3: started")
        for pid in self.servers(first):
            os.kill(pid, signal.SIGKILL)
        first.finish(timeout=120)
        self.assertEqual(first.returncode, 3, first.stdout + first.stderr)
        self.assertIn("e2e_tree_two", first.stdout)
        [kept] = glob.glob(os.path.join(self.tmp, "benchgate-run-*"))
        self.assertEqual(sorted(os.listdir(kept)), ["scenario-1", "scenario-2"])
        for folder in ("scenario-1", "scenario-2"):
            self.assertTrue(os.path.exists(os.path.join(kept, folder, "sut.stderr.log")), folder)
        # The first system under test was killed: its pid file is still there.
        self.assertTrue(os.path.exists(os.path.join(kept, "scenario-1", "sut", "server.pid")))
        self.assertIn("child process logs: " + kept, first.stderr)


if __name__ == "__main__":
    unittest.main()
