"""A router that ends WAMP sessions in the middle of a measured window says why in the report:
the bundled router, started with a largest message (--max-message-bytes) smaller than each
call's 256 KiB, ABORTs every session at its first CALL (wamp.error.protocol_violation: a
message of N bytes exceeds the maximum message size; the join's messages are small), and the
worker joins again. Each end is a protocol error, and
the terminal and the JSON report quote the ABORT per worker, and so do `runs show` and the HTML
report rebuilt from the store (`report RUN`; schema version 22). Before, only the protocol
errors reached the report, and nothing of them the store. Counts of sessions are not asserted
(they depend on the machine's speed): only that every one of them is one of the protocol
errors, and what the router said.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import BIN, Run, load_json, write_scenario
from test_tls_http2 import free_port, wait_listening

ROUTER = os.path.join(BIN, "router")
# Each end fails the session's outstanding calls, a protocol error each (one where none was).
ENDED = ("  sessions the router ended during the window (counted as protocol errors: one per "
         "operation outstanding, one where none was):\n")


class WampSessionEnds(unittest.TestCase):
    def test_the_routers_abort_mid_window_reaches_the_terminal_and_the_json(self):
        directory = tempfile.mkdtemp(prefix="benchgate-wamp-ends-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        port = free_port()
        router = subprocess.Popen(
            [ROUTER, "--http", "127.0.0.1:0", "--control", "127.0.0.1:0", "--rawsocket",
             f"127.0.0.1:{port}", "--max-message-bytes", "128KiB"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (router.terminate(), router.wait(timeout=10)))
        wait_listening(port, router)
        path = write_scenario(directory, "s.toml", f"""
name = "wamp_session_ends"
[router]
impl = "external"
address = "127.0.0.1:{port}"
[defaults]
warmup = "0s"
duration = "500ms"
repetitions = 1
[[workloads]]
name = "rpc"
protocol = "wamp_rpc"
transport = "rawsocket"
serializer = "msgpack"
request_bytes = "256KiB"
connections = 1
""")
        out = os.path.join(directory, "out.json")
        db = os.path.join(directory, "db.sqlite")
        run = Run(["run", path, "--json", out, "--db", db])
        run.run(timeout=120)
        self.assertEqual(run.leftovers(), [])
        abort = "ABORT wamp.error.protocol_violation: a message of "
        self.assertIn(ENDED + "    rep 1 worker 0: ", run.stdout)
        self.assertIn(abort, run.stdout)
        rep = load_json(out)["scenarios"][0]["workloads"][0]["repetitions"][0]
        ends = rep["sessions_ended"]
        self.assertEqual(len(ends), 1, ends)
        self.assertEqual(ends[0]["worker"], 0)
        self.assertTrue(ends[0]["reason"].startswith(abort), ends)
        self.assertGreater(ends[0]["sessions"], 0)
        self.assertGreaterEqual(rep["errors_by_kind"]["protocol"], ends[0]["sessions"])

        # The store keeps them: the reports built from it say what the live run said.
        ended = ENDED
        shown = Run(["runs", "show", "1", "--db", db]).run(timeout=60)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn(ended + "    rep 1 worker 0: ", shown.stdout)
        self.assertIn(abort, shown.stdout)
        page = os.path.join(directory, "run.html")
        report = Run(["report", "1", "--html", page, "--db", db]).run(timeout=60)
        self.assertEqual(report.returncode, 0, report.stderr)
        with open(page, encoding="utf-8") as f:
            html = f.read()
        self.assertIn("<p class=\"detail\">" + ended.strip(), html)
        self.assertIn("<p class=\"detail\">rep 1 worker 0: ", html)
        self.assertIn(abort, html)


if __name__ == "__main__":
    unittest.main()
