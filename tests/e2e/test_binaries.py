"""A stored run says which binaries it measured (docs/MEASUREMENT.md, "Measured binaries"): one
tiny run of the bundled router and one of a copy given by --router-bin, both under the same
--commit. `runs show` and the --json, --markdown and --html reports name each router with its
build-id and where it came from; `compare` notes that one run measured a router given by the
flag; `run` and `calibrate` warn before the load that the branch they store is the working
folder's."""
import json
import os
import re
import shutil
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

SCENARIO = """
name = "e2e_binaries"
[defaults]
warmup = "0s"
duration = "200ms"
repetitions = 2

[[workloads]]
name = "hello"
protocol = "http1"
target = "/bench/hello"
connections = 1
"""

BUILD_ID = re.compile(r"^[0-9a-f]{40}$")


class BinariesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-binaries-")
        cls.db = os.path.join(cls.dir, "bench.db")
        cls.scenario = write_scenario(cls.dir, "binaries.toml", SCENARIO)
        os.mkdir(os.path.join(cls.dir, "elsewhere"))
        cls.copy = os.path.join(cls.dir, "elsewhere", "router")
        shutil.copy2(os.path.join(BIN, "router"), cls.copy)
        cls.bundled = cls.run_scenario("bundled", ["--commit", "abc123", "--branch", "main"])
        cls.given = cls.run_scenario(
            "given", ["--commit", "abc123", "--router-bin", cls.copy])

    @classmethod
    def run_scenario(cls, name, flags):
        outputs = {kind: os.path.join(cls.dir, f"{name}.{kind}") for kind in ("json", "md", "html")}
        run = Run(["run", cls.scenario, "--db", cls.db, "--json", outputs["json"],
                   "--markdown", outputs["md"], "--html", outputs["html"]] + flags, cwd=cls.dir)
        for variable in ("BENCHGATE_ROUTER_BIN", "BENCHGATE_WORKER_BIN"):
            run.env.pop(variable, None)
        try:
            run.run(timeout=60)
        finally:
            kill_tagged(run.tag)
        run.outputs = outputs
        return run

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def orchestrator(self, *args):
        run = Run(list(args) + ["--db", self.db], cwd=self.dir).run(timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run

    def routers(self, run):
        self.assertEqual(run.returncode, 0, run.stderr)
        binaries = load_json(run.outputs["json"])["scenarios"][0]["binaries"]
        return {b["role"]: b for b in binaries}

    def test_the_json_report_names_each_router_with_its_build_id_and_origin(self):
        bundled = self.routers(self.bundled)
        given = self.routers(self.given)
        self.assertEqual(set(bundled), {"router", "worker"})
        self.assertEqual(bundled["router"]["path"], os.path.realpath(os.path.join(BIN, "router")))
        self.assertEqual(bundled["router"]["origin"], "next to the orchestrator")
        self.assertTrue(bundled["router"]["bundled"])
        self.assertEqual(given["router"]["path"], os.path.realpath(self.copy))
        self.assertEqual(given["router"]["origin"], "--router-bin")
        self.assertFalse(given["router"]["bundled"])
        # A copy is the same build: the same build-id, read from its ELF note.
        self.assertRegex(given["router"]["build_id"], BUILD_ID)
        self.assertEqual(given["router"]["build_id"], bundled["router"]["build_id"])
        self.assertIsNone(given["router"]["sha256"])
        self.assertEqual(given["worker"]["path"], os.path.realpath(os.path.join(BIN, "worker")))

    def test_run_warns_before_the_load_only_when_a_router_from_elsewhere_takes_this_folders_revision(self):
        warning = (f"warning: the router measured is {self.copy} (from --router-bin), not this "
                   "build, but the run stores this working folder's branch; give the router's "
                   "with --branch")
        self.assertIn(warning + "\n", self.given.stderr)
        self.assertNotIn("warning: the router measured", self.bundled.stderr)

    def test_calibrate_warns_as_run_does(self):
        # Each calibration run is stored as a run is, under the working folder's branch here:
        # the same warning, once, before the first run. calibrate said nothing before.
        run = Run(["calibrate", self.scenario, "--runs", "3", "--commit", "abc123",
                   "--router-bin", self.copy, "--db", os.path.join(self.dir, "calibrate.db")],
                  cwd=self.dir)
        for variable in ("BENCHGATE_ROUTER_BIN", "BENCHGATE_WORKER_BIN"):
            run.env.pop(variable, None)
        try:
            run.run(timeout=120)
        finally:
            kill_tagged(run.tag)
        self.assertEqual(run.returncode, 0, run.stderr)
        warning = (f"warning: the router measured is {self.copy} (from --router-bin), not this "
                   "build, but the run stores this working folder's branch; give the router's "
                   "with --branch\n")
        self.assertEqual(run.stderr.count(warning), 1, run.stderr)
        self.assertLess(run.stderr.index(warning),
                        run.stderr.index("calibrate e2e_binaries: run 1/3"), run.stderr)

    def test_runs_show_and_the_reports_say_which_router_was_measured(self):
        given = self.routers(self.given)["router"]
        line = f"router: {given['path']} (build-id {given['build_id']}, from --router-bin)"
        run_id = load_json(self.given.outputs["json"])["scenarios"][0]["run_id"]
        show = self.orchestrator("runs", "show", str(run_id))
        self.assertIn("binaries\n  " + line + "\n", show.stdout)
        with open(self.given.outputs["md"]) as f:
            self.assertIn("- " + line + "\n", f.read())
        with open(self.given.outputs["html"]) as f:
            html = f.read()
        self.assertIn(f'<tr><th class="text">router</th><td class="text">{given["path"]} '
                      f'(build-id {given["build_id"]}, from --router-bin)</td></tr>', html)
        bundled = self.routers(self.bundled)["router"]
        bundled_id = load_json(self.bundled.outputs["json"])["scenarios"][0]["run_id"]
        self.assertIn(f"  router: {bundled['path']} (build-id {bundled['build_id']}, bundled)\n",
                      self.orchestrator("runs", "show", str(bundled_id)).stdout)

    def test_compare_notes_a_router_given_by_the_flag_against_the_bundled_one(self):
        a = load_json(self.bundled.outputs["json"])["scenarios"][0]["run_id"]
        b = load_json(self.given.outputs["json"])["scenarios"][0]["run_id"]
        bundled = self.routers(self.bundled)["router"]
        given = self.routers(self.given)["router"]
        note = (f"run {b} measured a router given by --router-bin ({given['path']}, build-id "
                f"{given['build_id']}), run {a} the bundled router ({bundled['path']}, build-id "
                f"{bundled['build_id']}); the two are one build by their identity; both carry "
                "commit abc123, which is the working folder's, not necessarily the router's")
        text = self.orchestrator("compare", str(a), str(b))
        self.assertIn("note: " + note + "\n", text.stdout)
        doc = json.loads(self.orchestrator("compare", str(a), str(b), "--json").stdout)
        self.assertIn(note, doc["notes"])
        self.assertEqual(doc["run_b"]["commit"], "abc123")
        self.assertEqual([x["origin"] for x in doc["run_b"]["binaries"] if x["role"] == "router"],
                         ["--router-bin"])


if __name__ == "__main__":
    unittest.main()
