"""Beyond one machine, on one machine: the real router, workers and orchestrator, each in a
network namespace of its own, as if on separate hosts.

The test builds a small network of its own: a namespace that acts as the switch (a bridge), and
one namespace per host (the router, four workers, the orchestrator), each joined to the bridge
by a veth pair and given an address of 10.77.0.0/24. Nothing is connected to the machine's own
interfaces: before any load, every namespace is checked to have no route but the test's subnet.
The binaries run there with the command lines of the Kubernetes manifests (docker/kubernetes):
each worker `--listen 0.0.0.0:7800 --token-file FILE` (the token Secret mounted with mode
0400), the router with its manifest's listeners, and the orchestrator with `--workers-at
dns:benchgate-worker:7800 --worker-token-file FILE`, the name resolving (through the
namespace's own hosts file, as a headless Service's name does) to every worker's address.

Checked: the merged counts equal the router's count of the requests the workers sent, and every
worker took part; a worker SIGKILLed mid-window fails the workload, naming it; with
on_worker_loss = "continue" the run finishes with the repetitions after the loss flagged
degraded (RESULT line, JSON, SQLite) and is never promoted to a baseline; `--workers 3` waits
for a worker that starts after the orchestrator, and names the address that never answers;
across four hosts, every worker's clock offset, RTT and start skew is measured and shown in the
terminal, JSON and SQLite, the start_skew flag agrees with the spread against its 1 ms bound,
and load_from names the four hosts.

Needs root (network namespaces); skipped with a message otherwise.
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import uuid

from harness import BIN, ORCHESTRATOR, Run, kill_tagged, load_json, write_scenario

WORKER = os.path.join(BIN, "worker")
ROUTER = os.path.join(BIN, "router")
SUBNET = "10.77.0.0/24"
ROUTER_IP = "10.77.0.2"
ORCHESTRATOR_IP = "10.77.0.3"
WORKER_IPS = ["10.77.0.11", "10.77.0.12", "10.77.0.13", "10.77.0.14"]
# The service name resolves to the first three (the fourth joins for the four-host test).
SERVED_IPS = WORKER_IPS[:3]
BOUND_NS = 1_000_000  # the default max_start_skew
PORT = 7800
SERVICE = "benchgate-worker"  # the headless Service's name in the manifests

SCENARIO = """
name = "multihost"
[router]
impl = "external"
address = "{router}:8080"
{workers_table}
[defaults]
warmup = "0s"
duration = "{duration_s}s"
repetitions = 3
workers = 3
threads = 1
timeout = "40s"
[[workloads]]
name = "victim"
protocol = "http1"
target = "/bench/hello"
connections = 6
in_flight = 1
rate = 3000
"""

# A worker is killed KILL_AFTER_S after the orchestrator says the second repetition's window
# started, in a window of KILL_WINDOW_S: the test runs beside other tests, and a busy machine
# that delays the window's start by half a second, or the kill by a second, still lands it
# inside.
KILL_WINDOW_S, KILL_AFTER_S = 2, 0.6

# A gate on the workload: never `pass` on a workload that lost a worker.
GATE = """
[[gates]]
workload = "victim"
metric = "errors.count"
max = 0
severity = "{severity}"
"""


def can_make_namespaces():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return "network namespaces need root and iproute2 (ip)"
    probe = "bgmh-probe-%d" % os.getpid()
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return "cannot create a network namespace: " + made.stderr.strip()
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


SKIP = can_make_namespaces()


def sh(*args, check=True):
    done = subprocess.run(list(args), capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(args), done.returncode,
                                                     done.stderr.strip()))
    return done.stdout


class Network:
    """The switch namespace with its bridge, and one namespace per host joined to it."""

    def __init__(self):
        self.prefix = "bgmh%d" % os.getpid()
        self.switch = self.prefix + "-sw"
        self.hosts = {}  # namespace -> address
        self.etc = []    # /etc/netns/NS folders made (ip netns exec mounts their files)

    def ns(self, role):
        return self.prefix + "-" + role

    def build(self, roles):
        sh("ip", "netns", "add", self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        sh("ip", "-n", self.switch, "link", "set", "lo", "up")
        for index, (role, address) in enumerate(roles):
            ns = self.ns(role)
            sh("ip", "netns", "add", ns)
            self.hosts[ns] = address
            port = "p%d" % index
            # Both ends are made inside the namespaces: nothing appears in the machine's own.
            sh("ip", "-n", self.switch, "link", "add", port, "type", "veth", "peer", "name",
               "eth0", "netns", ns)
            sh("ip", "-n", self.switch, "link", "set", port, "master", "br0")
            sh("ip", "-n", self.switch, "link", "set", port, "up")
            sh("ip", "-n", ns, "addr", "add", address + "/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")

    def resolve_in(self, role, name, addresses):
        """NAME resolves to `addresses` inside the namespace (its own /etc/hosts)."""
        folder = os.path.join("/etc/netns", self.ns(role))
        os.makedirs(folder, exist_ok=True)
        self.etc.append(folder)
        with open(os.path.join(folder, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost\n")
            for address in addresses:
                f.write("%s %s\n" % (address, name))

    def routes(self, ns):
        return [line for line in sh("ip", "-n", ns, "route", "show", "table", "all").splitlines()
                if line.strip()]

    def links(self, ns):
        return [line.split(":")[1].strip().split("@")[0]
                for line in sh("ip", "-n", ns, "-o", "link", "show").splitlines()]

    def isolation_problems(self):
        """Everything that would let a namespace reach beyond the test's subnet; empty when
        none does."""
        problems = []
        for ns in self.hosts:
            for route in self.routes(ns):
                # The subnet, and the kernel's own local, broadcast and link-local routes.
                own = (route.startswith(SUBNET) or route.startswith("local ") or
                       route.startswith("broadcast ") or route.startswith("multicast ") or
                       route.startswith("fe80::") or " dev lo " in route + " ")
                if not own or "default" in route:
                    problems.append("%s: route %s" % (ns, route))
            if sorted(self.links(ns)) != ["eth0", "lo"]:
                problems.append("%s: links %s" % (ns, self.links(ns)))
            # No route leads to an address outside the subnet.
            reach = subprocess.run(["ip", "-n", ns, "route", "get", "1.1.1.1"],
                                   capture_output=True, text=True)
            if reach.returncode == 0:
                problems.append("%s reaches 1.1.1.1: %s" % (ns, reach.stdout.strip()))
        return problems

    @staticmethod
    def remove_stale():
        """Namespaces an earlier run of this test left behind when it was killed (its pid is
        in their names and gone)."""
        for line in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                   text=True).stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            digits = name[4:].split("-")[0]
            if not name.startswith("bgmh") or not digits.isdigit():
                continue
            if os.path.exists("/proc/%s" % digits):
                continue
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            shutil.rmtree(os.path.join("/etc/netns", name), ignore_errors=True)

    def tear_down(self):
        for ns in list(self.hosts) + [self.switch]:
            # Whatever still runs in it (a worker, a router) goes with the namespace's end.
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        for folder in self.etc:
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rmdir("/etc/netns")  # only when no one else keeps a namespace's files there
        except OSError:
            pass


@unittest.skipIf(SKIP, SKIP)
class MultiHostTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.net = Network()
        roles = [("router", ROUTER_IP), ("orch", ORCHESTRATOR_IP)]
        roles += [("w%d" % i, ip) for i, ip in enumerate(WORKER_IPS)]
        Network.remove_stale()
        try:
            cls.net.build(roles)
            cls.net.resolve_in("orch", SERVICE, SERVED_IPS)
            # Before any load: the namespaces reach nothing but each other.
            problems = cls.net.isolation_problems()
            if problems:
                raise AssertionError("the test's network is not isolated:\n" +
                                     "\n".join(problems))
        except BaseException:
            cls.net.tear_down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.net.tear_down()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-multihost-")
        # The token Secret of the manifests, mounted with defaultMode 0400.
        self.token = os.path.join(self.dir, "token")
        with open(self.token, "w") as f:
            f.write(uuid.uuid4().hex + "\n")
        os.chmod(self.token, 0o400)
        self.tag = uuid.uuid4().hex
        self.env = dict(os.environ, BENCHGATE_TEST_TAG=self.tag)
        self.procs = []
        self.workers = {}
        self.router = self.spawn("router", [ROUTER, "--http", "0.0.0.0:8080", "--websocket",
                                            "0.0.0.0:8081", "--rawsocket", "0.0.0.0:8082",
                                            "--metrics-listen", "0.0.0.0:9465", "--control",
                                            "127.0.0.1:7901", "--threads", "2"])
        self.assertIn("READY", self.router.stdout.readline())

    def tearDown(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if proc.stdout:
                proc.stdout.close()
        kill_tagged(self.tag)
        shutil.rmtree(self.dir, ignore_errors=True)

    def spawn(self, role, argv):
        proc = subprocess.Popen(["ip", "netns", "exec", self.net.ns(role)] + argv, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.procs.append(proc)
        return proc

    def start_worker(self, index):
        worker = self.spawn("w%d" % index,
                            [WORKER, "--listen", "0.0.0.0:%d" % PORT, "--token-file", self.token])
        self.assertEqual(worker.stdout.readline().strip(), "READY grpc=0.0.0.0:%d" % PORT)
        self.workers[index] = worker
        return worker

    def orchestrator(self, scenario_text, *extra):
        path = write_scenario(self.dir, "multihost.toml", scenario_text)
        self.db = os.path.join(self.dir, "runs.db")
        self.json = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--db", self.db, "--json", self.json, "--workers-at",
                   "dns:%s:%d" % (SERVICE, PORT), "--worker-token-file", self.token] +
                  list(extra), cwd=self.dir)
        run.tag = self.tag
        run.env = self.env
        run.args = ["ip", "netns", "exec", self.net.ns("orch"), ORCHESTRATOR] + run.args[1:]
        return run

    @staticmethod
    def scenario(workers_table="", duration_s=1):
        return SCENARIO.format(router=ROUTER_IP, workers_table=workers_table,
                               duration_s=duration_s)

    def test_0_the_namespaces_reach_only_each_other(self):
        self.assertEqual(self.net.isolation_problems(), [])
        self.assertEqual(sorted(l for l in self.net.links(self.net.switch) if l.startswith("p")),
                         ["p%d" % i for i in range(len(self.net.hosts))])

    def test_counts_merge_and_agree_with_the_router_across_three_hosts(self):
        for i in range(3):
            self.start_worker(i)
        before = self.router_requests()
        run = self.orchestrator(self.scenario()).run(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("without a token", run.stderr)
        [line] = run.result_lines()
        self.assertEqual(line["status"], "ok")
        workload = load_json(self.json)["scenarios"][0]["workloads"][0]
        reps = workload["repetitions"]
        self.assertEqual(len(reps), 3)
        shares = self.worker_shares()
        for rep, share in zip(reps, shares):
            self.assertEqual(rep["errors"], 0, rep)
            # Each of the three hosts took part, and the merged count is the sum of theirs.
            self.assertEqual(len(share), 3, share)
            self.assertTrue(all(ops > 0 for ops in share), share)
            self.assertEqual(rep["operations"], sum(share), rep)
            # The merged histogram holds every operation the workers counted.
            self.assertEqual(rep["latency"]["count"], rep["operations"], rep)
            self.assertNotIn("degraded", rep["flags"])
        # The router, on its own host, answered exactly the requests the workers counted (no
        # warm-up: every request of the run is in a repetition).
        self.assertEqual(self.router_requests() - before, sum(r["operations"] for r in reps))

    def test_four_hosts_report_each_workers_clock_and_start_in_every_output(self):
        # The headless Service now has four ready pods.
        self.net.resolve_in("orch", SERVICE, WORKER_IPS)
        try:
            for i in range(4):
                self.start_worker(i)
            text = self.scenario().replace("workers = 3", "workers = 4").replace(
                "connections = 6", "connections = 8")
            run = self.orchestrator(text).run(timeout=120)
        finally:
            self.net.resolve_in("orch", SERVICE, SERVED_IPS)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        [line] = run.result_lines()
        # The load came from the four hosts, never "local".
        self.assertEqual(sorted(line["load_from"].split(",")), WORKER_IPS, line)
        reps = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"]
        self.assertEqual(len(reps), 3)
        for rep in reps:
            workers = rep["workers"]
            self.assertEqual(sorted(w["host"].rsplit(":", 1)[0] for w in workers), WORKER_IPS)
            for w in workers:
                # Every bundled worker takes part in the clock exchange: measured, never null.
                self.assertIsNotNone(w["clock_offset_ns"], w)
                self.assertGreater(w["rtt_ns"], 0, w)
                self.assertIsNotNone(w["start_skew_ns"], w)
            # The bound is enforced: the flag is the spread against max_start_skew.
            self.assertIsNotNone(rep["start_spread_ns"], rep)
            self.assertEqual("start_skew" in rep["flags"], rep["start_spread_ns"] > BOUND_NS, rep)
        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT ww.host, ww.clock_offset_ns, ww.rtt_ns, ww.start_skew_ns FROM worker_windows"
                " ww JOIN repetitions r ON r.id = ww.repetition_id ORDER BY r.id, ww.worker"
            ).fetchall()
        self.assertEqual(len(rows), 12)  # four workers, three repetitions
        self.assertTrue(all(None not in row for row in rows), rows)
        # The terminal names each worker's host with its clock, and the start spread.
        for ip in WORKER_IPS:
            self.assertIn(ip, run.stdout)
        self.assertIn("start spread", run.stdout)

    def router_requests(self):
        """The router's own count of the requests it answered, read from its /metrics as a
        Prometheus scrape would, from the orchestrator's host. (An external system's counters
        are not read by the orchestrator itself.)"""
        scrape = subprocess.run(
            ["ip", "netns", "exec", self.net.ns("orch"), "/usr/bin/python3", "-c",
             "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen("
             "'http://%s:9465/metrics', timeout=10).read().decode())" % ROUTER_IP],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(scrape.returncode, 0, scrape.stderr)
        total = 0
        for line in scrape.stdout.splitlines():
            if line.startswith("benchgate_router_http_requests_total{"):
                total += int(float(line.rsplit(" ", 1)[1]))
        return total

    def worker_shares(self):
        """Per measured repetition, each worker's own count of operations (SQLite)."""
        with sqlite3.connect(self.db) as db:
            rows = db.execute("SELECT r.id, ww.operations FROM repetitions r JOIN worker_windows "
                              "ww ON ww.repetition_id = r.id ORDER BY r.id, ww.worker").fetchall()
        shares = {}
        for rep_id, operations in rows:
            shares.setdefault(rep_id, []).append(operations)
        return [shares[k] for k in sorted(shares)]

    def kill_worker_in_second_repetition(self, run, index):
        run.start()
        run.wait_for_stderr("victim rep 2/3: started")
        time.sleep(KILL_AFTER_S)  # inside the window, whichever end a busy machine delays
        os.kill(self.workers[index].pid, signal.SIGKILL)
        self.workers[index].wait()
        return run.finish(timeout=120)

    def test_a_worker_killed_mid_window_fails_the_workload_naming_it(self):
        for i in range(3):
            self.start_worker(i)
        text = self.scenario(duration_s=KILL_WINDOW_S) + GATE.format(severity="critical")
        run = self.kill_worker_in_second_repetition(self.orchestrator(text), 2)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 3, out)  # a run error: the workload failed
        [gate] = load_json(self.json)["scenarios"][0]["gates"]
        self.assertEqual(gate["verdict"], "error", gate)
        self.assertIn("workload victim failed: worker", gate["explanation"])
        [line] = run.result_lines()
        self.assertEqual(line["status"], "failed")
        # Named by its index and address (which of the three the name resolved to).
        self.assertRegex(out, r"worker [0-2] at 10\.77\.0\.1[1-3]:7800 ended its stream")
        reps = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"]
        self.assertEqual(len(reps), 1)  # the window it interrupted is never merged
        with sqlite3.connect(self.db) as db:
            [(status,)] = db.execute("SELECT status FROM workloads").fetchall()
        self.assertEqual(status, "failed")

    def test_with_continue_the_others_finish_and_the_run_is_degraded(self):
        for i in range(3):
            self.start_worker(i)
        # A warning gate: its error does not fail the run, which may then ask to be promoted.
        text = (self.scenario('[workers]\non_worker_loss = "continue"\n', KILL_WINDOW_S) +
                GATE.format(severity="warning"))
        run = self.kill_worker_in_second_repetition(self.orchestrator(text, "--promote", "main"),
                                                    1)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, out)
        [gate] = load_json(self.json)["scenarios"][0]["gates"]
        self.assertEqual(gate["verdict"], "error", gate)
        self.assertIn("repetition 2 was measured without every worker (flag degraded)",
                      gate["explanation"])
        self.assertRegex(out, r"worker [0-2] at 10\.77\.0\.1[1-3]:7800 was lost during "
                              r"repetition 2")
        [line] = run.result_lines()
        self.assertEqual(line["status"], "ok")
        self.assertIn("degraded", line["flags"].split(","))
        self.assertIn("not promoted to 'main': a workload is flagged degraded", out)
        reps = load_json(self.json)["scenarios"][0]["workloads"][0]["repetitions"]
        self.assertEqual(["degraded" in rep["flags"] for rep in reps], [False, True, True])
        # The third repetition ran on the two workers left.
        shares = self.worker_shares()
        self.assertEqual([len(share) for share in shares], [3, 2, 2])
        self.assertEqual(reps[2]["operations"], sum(shares[2]))
        with sqlite3.connect(self.db) as db:
            flags = [json.loads(f) for (f,) in db.execute(
                "SELECT r.flags FROM repetitions r ORDER BY r.id").fetchall()]
            self.assertEqual(["degraded" in f for f in flags], [False, True, True])
            self.assertEqual(db.execute("SELECT COUNT(*) FROM baselines").fetchone()[0], 0)

    def test_workers_n_waits_for_a_worker_that_starts_late(self):
        self.start_worker(0)
        self.start_worker(1)
        # Until the third worker starts, its port is held by a plain socket in its namespace:
        # its first accepted connection proves the orchestrator was looking before it existed.
        placeholder = self.spawn("w2", ["/usr/bin/python3", "-c", (
            "import socket,sys\n"
            "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
            "s.bind(('0.0.0.0', %d)); s.listen(8); print('listening', flush=True)\n"
            "s.settimeout(60); c,_=s.accept(); c.close(); s.close(); print('accepted', flush=True)"
        ) % PORT])
        self.assertEqual(placeholder.stdout.readline().strip(), "listening")
        run = self.orchestrator(self.scenario(), "--workers", "3").start()
        self.assertEqual(placeholder.stdout.readline().strip(), "accepted")
        placeholder.wait(timeout=30)
        self.start_worker(2)
        run.finish(timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual([len(share) for share in self.worker_shares()], [3, 3, 3])

    def test_workers_n_names_the_address_that_never_answers(self):
        self.start_worker(0)
        self.start_worker(1)
        text = self.scenario().replace("workers = 3", "workers = 2")
        run = self.orchestrator(text, "--workers", "3", "--workers-wait", "3s").run(timeout=120)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 3, out)
        self.assertIn("workers given with --workers-at are not usable: the scenario needs 3 "
                      "workers but only 2 answered Describe by the deadline, of 3 addresses "
                      "dns:benchgate-worker:7800 gave", out)
        self.assertIn("not answering: 10.77.0.13:7800", out)

    def test_a_scenarios_own_workers_that_are_not_there_are_not_configured(self):
        text = self.scenario('[workers]\nat = "dns:%s:%d"\n' % (SERVICE, PORT))
        path = write_scenario(self.dir, "remote.toml", text)
        run = Run(["run", path, "--db", os.path.join(self.dir, "runs.db"), "--workers-wait",
                   "2s", "--worker-token-file", self.token], cwd=self.dir)
        run.tag, run.env = self.tag, self.env
        run.args = ["ip", "netns", "exec", self.net.ns("orch"), ORCHESTRATOR] + run.args[1:]
        run.run(timeout=120)
        out = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, out)  # not_configured fails only with --strict
        [line] = run.result_lines()
        self.assertEqual(line["status"], "not_configured")
        self.assertIn("not_configured: the remote workers of [workers] at (%s:7:6) are not "
                      "there" % path, out)


if __name__ == "__main__":
    unittest.main()
