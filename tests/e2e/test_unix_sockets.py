"""Listening on a unix:PATH: a failed bind is named in one line, without gRPC's own log."""
import glob
import os
import shutil
import tempfile
import unittest

from harness import Run, kill_tagged


class UnixSocketTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-unix-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.db = os.path.join(self.dir, "bench.db")
        self.tags = []

    def tearDown(self):
        for tag in self.tags:
            kill_tagged(tag)

    def serve(self, *args):
        run = Run(["serve", *args, "--metrics-listen", "127.0.0.1:0", "--db", self.db,
                   "--scenarios", self.dir], cwd=self.dir)
        run.env["TMPDIR"] = self.dir  # its log folder, which a failed start removes
        self.tags.append(run.tag)
        return run.run(timeout=60)

    def test_serve_names_why_grpc_could_not_listen_in_one_line(self):
        # No folder for the socket: gRPC fails to bind after the service's own checks passed.
        absent = os.path.join(self.dir, "absent")
        address = "unix:" + os.path.join(absent, "serve.sock")
        run = self.serve("--listen", address)
        self.assertEqual((run.returncode, run.stderr),
                         (2, f"error: --listen {address}: cannot listen: folder {absent} does "
                             "not exist\n"))
        self.assertNotIn("READY", run.stdout)
        self.assertEqual(glob.glob(os.path.join(self.dir, "benchgate-serve-*")), [])


if __name__ == "__main__":
    unittest.main()
