"""WAMP authentication and authorization through the real binaries: the orchestrator starts
the bundled router with the --auth-config the test writes ([router] auth_config), and the
workers' sessions authenticate with each method (ticket, WAMP-CRA with a salted secret,
WAMP-SCRAM with PBKDF2 and Argon2id, cryptosign) before the load runs: zero errors and the
router's counters equal the workers'. A wrong secret fails the workload at its start with the
router's ABORT, its reason quoted; a role without the permission gets every call refused, which the worker
counts as not_authorized errors and the router as denied calls, one for one, and its workload
fails: no call succeeded."""
import os
import shutil
import tempfile
import unittest

from harness import Run, kill_tagged, load_json, write_scenario

# RFC 8032's test key 1 (seed, public key).
SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
PUBKEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"

AUTH_CONFIG = f"""
[[realm]]
name = "bench"

[[realm.role]]
name = "bencher"
permissions = [{{ prefix = "bench.", allow = ["call", "register"] }}]

[[realm.role]]
name = "onlooker"
permissions = [{{ prefix = "bench.", allow = ["subscribe"] }}]

[[realm.principal]]
authid = "t"
role = "bencher"
method = "ticket"
secret = "ticket-1"

[[realm.principal]]
authid = "c"
role = "bencher"
method = "wampcra"
secret = "cra-secret"
salt = "cra-salt"
iterations = 50
keylen = 32

[[realm.principal]]
authid = "s"
role = "bencher"
method = "wamp-scram"
secret = "scram-password"
salt = "c2NyYW0tc2FsdA=="
iterations = 64

[[realm.principal]]
authid = "a"
role = "bencher"
method = "wamp-scram"
kdf = "argon2id13"
secret = "argon-password"
salt = "YXJnb24tc2FsdA=="
iterations = 1
memory = 256

[[realm.principal]]
authid = "k"
role = "bencher"
method = "cryptosign"
pubkey = "{PUBKEY}"

[[realm.principal]]
authid = "o"
role = "onlooker"
method = "ticket"
secret = "ticket-2"
"""

SECRETS = {"ticket.txt": "ticket-1\n", "cra.txt": "cra-secret\n", "scram.txt": "scram-password",
           "argon.txt": "argon-password\n", "key.hex": SEED + "\n", "onlooker.txt": "ticket-2",
           "wrong.txt": "not-the-secret\n"}

HEAD = """
name = "e2e_wamp_auth"
[router]
auth_config = "auth.toml"
[defaults]
warmup = "200ms"
duration = "400ms"
repetitions = 1
threads = 1
connections = 2
in_flight = 2
"""

WORKLOADS = """
[[workloads]]
name = "ticket_ws_json"
protocol = "wamp_rpc"
realm = "bench"
transport = "websocket"
serializer = "json"
auth = { method = "ticket", authid = "t", secret_file = "ticket.txt" }

[[workloads]]
name = "wampcra_rs_msgpack_worker_callee"
protocol = "wamp_rpc"
realm = "bench"
transport = "rawsocket"
serializer = "msgpack"
callee = "worker"
auth = { method = "wampcra", authid = "c", secret_file = "cra.txt" }

[[workloads]]
name = "scram_pbkdf2_ws_cbor"
protocol = "wamp_rpc"
realm = "bench"
transport = "websocket"
serializer = "cbor"
auth = { method = "wamp-scram", authid = "s", secret_file = "scram.txt" }

[[workloads]]
name = "scram_argon2id_rs_json"
protocol = "wamp_rpc"
realm = "bench"
transport = "rawsocket"
serializer = "json"
auth = { method = "wamp-scram", authid = "a", secret_file = "argon.txt" }

[[workloads]]
name = "cryptosign_ws_msgpack"
protocol = "wamp_rpc"
realm = "bench"
transport = "websocket"
serializer = "msgpack"
auth = { method = "cryptosign", authid = "k", secret_file = "key.hex" }
"""

REFUSED = """
[[workloads]]
name = "onlooker_calls"
protocol = "wamp_rpc"
realm = "bench"
transport = "rawsocket"
serializer = "json"
auth = { method = "ticket", authid = "o", secret_file = "onlooker.txt" }

[[workloads]]
name = "wrong_secret"
protocol = "wamp_rpc"
realm = "bench"
transport = "websocket"
serializer = "json"
auth = { method = "wampcra", authid = "c", secret_file = "wrong.txt" }
"""


class WampAuthTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-auth-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []
        write_scenario(self.dir, "auth.toml", AUTH_CONFIG)
        for name, text in SECRETS.items():
            write_scenario(self.dir, name, text)

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def run_scenario(self, text):
        path = write_scenario(self.dir, "wamp_auth.toml", HEAD + text)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        return run, load_json(out)

    def test_every_method_authenticates_and_the_counts_agree(self):
        run, report = self.run_scenario(WORKLOADS)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        lines = {l["workload"]: l for l in run.result_lines()}
        self.assertEqual(len(lines), 5, run.stdout)
        for name, line in lines.items():
            self.assertEqual(line["status"], "ok", name)
            self.assertEqual(line["errors"], "0", name)
        for workload in report["scenarios"][0]["workloads"]:
            name = workload["name"]
            for rep in workload["repetitions"]:
                self.assertGreater(rep["operations"], 0, name)
                self.assertEqual(rep["errors"], 0, name)
                counters = rep["router"]["counters"]
                self.assertEqual(counters.get("wamp_calls_routed", 0), rep["operations"], name)
                # Nothing was refused by a role.
                for action in ("call", "register", "publish", "subscribe"):
                    self.assertEqual(counters.get(f"wamp_authorization_denied{{action={action}}}"),
                                     0, name)

    def test_a_role_without_permission_and_a_wrong_secret_are_refused_and_counted(self):
        run, report = self.run_scenario(REFUSED)
        self.assertNotEqual(run.returncode, 0, run.stdout + run.stderr)
        workloads = {w["name"]: w for w in report["scenarios"][0]["workloads"]}

        # Every CALL of the onlooker is refused: the worker's not_authorized errors are the
        # router's denied calls, one for one, and nothing reached a callee.
        onlooker = workloads["onlooker_calls"]
        self.assertTrue(onlooker["repetitions"], onlooker)
        # No call succeeded in its one repetition: the workload failed, saying how many and of
        # which kind (docs/MEASUREMENT.md, "Operations, successes and errors").
        calls = onlooker["repetitions"][0]["operations"]
        self.assertEqual(onlooker["status"], "failed", onlooker)
        self.assertEqual(onlooker["error"], f"no call succeeded in 1 repetition: {calls} calls, "
                                            f"{calls} errors (not_authorized {calls})")
        for rep in onlooker["repetitions"]:
            self.assertGreater(rep["operations"], 0)
            self.assertEqual(rep["successes"], 0)
            self.assertEqual(rep["errors"], rep["operations"])
            self.assertEqual(rep["errors_by_kind"].get("not_authorized"), rep["operations"], rep)
            self.assertEqual(rep["errors_by_kind"].get("wamp_error", 0), 0, rep)
            counters = rep["router"]["counters"]
            self.assertEqual(counters.get("wamp_authorization_denied{action=call}"),
                             rep["operations"])
            self.assertEqual(counters.get("wamp_calls_routed", 0), 0)
            # The router routed none of the calls it refused, and the cross-check compares its
            # count with the calls it did not refuse (none): 0 and 0 agree, no
            # router_count_mismatch (docs/MEASUREMENT.md "Cross-checks").
            self.assertNotIn("router_count_mismatch", rep["flags"], rep)

        # The wrong secret: the router's ABORT fails the workload when its sessions join, and
        # the error quotes its reason; the TCP connection was made, so it is no "cannot connect".
        wrong = workloads["wrong_secret"]
        self.assertEqual(wrong["status"], "failed", wrong)
        self.assertIn("the router refused the WAMP session: ABORT wamp.error.not_authorized",
                      wrong["error"])
        self.assertNotIn("cannot connect", wrong["error"])
        self.assertEqual(wrong["repetitions"], [])


if __name__ == "__main__":
    unittest.main()
