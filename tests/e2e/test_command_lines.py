"""The three binaries' command lines read alike: --help names each value for what it is (N,
FILE, DURATION, HOST:PORT) and says a range in words, never with CLI11's type names; --version
prints the same version in each; router/README.md's usage names every flag of the router's
help."""
import os
import re
import signal
import subprocess
import unittest

from harness import BIN

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Every command line with a help of its own.
HELPS = [
    ["worker"], ["router"], ["orchestrator"],
    *[["orchestrator", *command] for command in (
        ["run"], ["serve"], ["validate"], ["gate"], ["runs", "list"], ["runs", "show"],
        ["baseline", "add"], ["baseline", "remove"], ["baseline", "list"], ["compare"],
        ["calibrate"], ["history", "changes"], ["report"], ["worker-check"])],
]

# CLI11's own type text: a base type with a check ("UINT:INT in [1 - 1024]", "TEXT:FILE"), or a
# bare base type as an option's value.
CLI11_TYPE_TEXT = re.compile(r":U?INT\b|\bTEXT:|\b(?:INT|UINT|FLOAT) in \[|"
                             r"^\s+(?:-\w,)?--[\w-]+ (?:TEXT|INT|UINT|FLOAT)\b", re.M)


def run(argv, timeout=30):
    return subprocess.run([os.path.join(BIN, argv[0]), *argv[1:]], capture_output=True,
                          text=True, timeout=timeout, check=False)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(benchgate VERSION (\S+)", f.read()).group(1)


class HelpCase(unittest.TestCase):
    def help_of(self, argv):
        result = run(argv + ["--help"])
        self.assertEqual(result.returncode, 0, (argv, result.stderr))
        return result.stdout


class HelpTest(HelpCase):
    def test_no_help_shows_cli11_type_names(self):
        for argv in HELPS:
            found = CLI11_TYPE_TEXT.findall(self.help_of(argv))
            self.assertEqual(found, [], " ".join(argv))

    def test_strict_says_it_changes_what_critical_gates_do_only(self):
        # gates::exit_code_for: a warning gate never fails a run, --strict or not.
        for command in ("run", "gate"):
            text = " ".join(self.help_of(["orchestrator", command]).split())
            self.assertIn("--strict A critical gate's inconclusive, no_baseline, not_configured "
                          "or underpowered verdict also fails the run (exit 1); warning gates "
                          "never do", text, command)

    def test_values_are_named_for_what_they_are_and_ranges_in_words(self):
        serve = self.help_of(["orchestrator", "serve"])
        self.assertRegex(serve, r"--scenarios DIR REQUIRED")
        self.assertRegex(serve, r"--max-queued N=100\s+.*\(1 to 100000\)")
        self.assertRegex(serve, r"--workers N\s+.*\(1 to 1024\)")
        self.assertRegex(serve, r"--listen HOST:PORT\|unix:PATH=127\.0\.0\.1:7700")
        run_help = self.help_of(["orchestrator", "run"])
        self.assertRegex(run_help, r"--workers-wait DURATION=60s")
        self.assertRegex(run_help, r"--db FILE=benchgate\.db")
        # Not REQUIRED: `run --server ADDR --scenario-name NAME` sends no file (run says a
        # missing one itself, in the words CLI11 would use: test_bad_input).
        self.assertRegex(run_help, r"\n  files \.\.\.\s+Scenario files \(TOML\)")
        self.assertRegex(run_help, r"--scenario-name NAME \.\.\.")
        calibrate = self.help_of(["orchestrator", "calibrate"])
        self.assertRegex(calibrate, r"\n  file REQUIRED")
        # run's remote-worker flags, the same in calibrate (orchestrator/cli/remote_worker_flags.h).
        for text in (run_help, calibrate):
            self.assertRegex(text, r"--workers N\s+.*\(1 to 1024\)")
            self.assertRegex(text, r"--workers-wait DURATION=60s")
            self.assertRegex(text, r"--branch BRANCH\s+Branch measured")
        self.assertRegex(self.help_of(["orchestrator", "runs", "show"]), r"\n  RUN REQUIRED")
        worker = self.help_of(["worker"])
        self.assertRegex(worker, r"--listen HOST:PORT\|unix:PATH=127\.0\.0\.1:0")
        self.assertRegex(worker, r"--log-level \{trace,debug,info,warn,error,off\}=info")
        router = self.help_of(["router"])
        self.assertRegex(router, r"--threads N=1")
        self.assertRegex(router, r"--idle-timeout DURATION=60s")
        self.assertRegex(router, r"--max-body-bytes SIZE=64MiB")

    def test_a_value_of_another_form_or_from_a_set_is_named_so(self):
        router = self.help_of(["router"])
        self.assertRegex(router, r"--control HOST:PORT\|unix:PATH=127\.0\.0\.1:0")
        # The sets the router checks its values against (router/app/config.h), not a copy.
        self.assertRegex(router, r"--http-io \{asio,epoll\}=epoll")
        self.assertRegex(router, r"--tls-min-version \{1\.2,1\.3\}=1\.2")
        # The service's gRPC address, and so the client's, may be a Unix socket; a server and a
        # worker are dialled by the one check of an address (orchestrator/scenario/dial_address.h),
        # so both take the same forms.
        self.assertRegex(self.help_of(["orchestrator", "run"]),
                         r"--server HOST:PORT\|dns:NAME:PORT\|unix:PATH")
        for command in ("run", "calibrate", "serve"):
            self.assertRegex(self.help_of(["orchestrator", command]),
                             r"--workers-at HOST:PORT\|dns:NAME:PORT\|unix:PATH", command)


class DocumentedFlagsTest(HelpCase):
    def test_the_router_readme_usage_lists_every_flag_of_its_help(self):
        flags = re.findall(r"^\s+(?:(-\w),)?(--[\w-]+)", self.help_of(["router"]), re.M)
        with open(os.path.join(ROOT, "router", "README.md"), encoding="utf-8") as f:
            usage = re.search(r"```\n(router .*?)```", f.read(), re.S).group(1)
        listed = set(re.findall(r"(?<![\w-])--?[\w-]+", usage))
        missing = [name for pair in flags for name in pair if name and name not in listed]
        self.assertEqual(missing, [])


    def test_the_readme_names_the_forms_workers_at_takes_as_its_help_does(self):
        # One value a flag: no `...` after it (the flag is repeated, or its value comma-separated).
        forms = re.search(r"--workers-at (\S+)( \.\.\.)?\n", self.help_of(["orchestrator", "run"]))
        self.assertEqual(forms.group(1), "HOST:PORT|dns:NAME:PORT|unix:PATH")
        self.assertIsNone(forms.group(2))
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            self.assertIn("`--workers-at " + forms.group(1) + "`", f.read())


class BinaryFlagsTest(HelpCase):
    def test_router_and_worker_bin_say_where_the_binary_is_looked_for_in_order(self):
        # orchestrator/app/bundled_binary.h: the flag, else the variable, else next to the
        # orchestrator, else PATH.
        for command, flags in ((["run"], ("router", "worker")),
                               (["calibrate"], ("router", "worker")),
                               (["serve"], ("router", "worker")),
                               (["worker-check"], ("router",))):
            text = self.help_of(["orchestrator", *command])
            for name in flags:
                self.assertRegex(
                    text, rf"--{name}-bin PROGRAM +\w+ executable \(default: "
                          rf"\$BENCHGATE_{name.upper()}_BIN when set, else `{name}` next to the "
                          rf"orchestrator, else `{name}` on PATH\)[^\n]*\n", command)
            if command == ["worker-check"]:
                # worker-check's router is only the target of the worker's load: nothing stored.
                self.assertRegex(text, r"--router-bin PROGRAM .*worker-check stores no run",
                                 command)
            else:
                # A run stores which router it measured, not a commit of its own (58b9cb9).
                self.assertRegex(text, r"--router-bin PROGRAM .*a stored run records its path "
                                       r"and build-id", command)


class AddressTest(unittest.TestCase):
    # The worker's --listen and the router's listen flags split HOST:PORT by the rule the
    # orchestrator dials by (common/net/host_port.h): before, the worker took "::1:0" as
    # [::1]:0 by its own rule, and the router took it too.
    def test_an_unbracketed_ipv6_host_is_refused_with_the_reason(self):
        worker = run(["worker", "--listen", "::1:0"], timeout=10)
        self.assertEqual(worker.returncode, 2, worker.stderr)
        self.assertIn("'::1:0' is not HOST:PORT (port 0..65535) or unix:PATH: an IPv6 host is "
                      "written in brackets, as in \"[::1]:7700\"", worker.stderr)
        router = run(["router", "--http", "::1:0"], timeout=10)
        self.assertEqual(router.returncode, 2, router.stderr)
        self.assertIn("--http: '::1:0' is not HOST:PORT: an IPv6 host is written in brackets",
                      router.stderr)
        worker = run(["worker", "--listen", "a b:0"], timeout=10)
        self.assertEqual(worker.returncode, 2, worker.stderr)
        self.assertIn("its host has a character no host name has (' ')", worker.stderr)


class VersionTest(unittest.TestCase):
    def test_every_binary_prints_the_projects_version(self):
        for binary in ("orchestrator", "worker", "router"):
            result = run([binary, "--version"])
            self.assertEqual((result.returncode, result.stdout, result.stderr),
                             (0, project_version() + "\n", ""), binary)

    def test_the_worker_describes_itself_with_that_version(self):
        # Describe's version is --version's (common/command_line/version.h), not a copy.
        result = run(["orchestrator", "worker-check", os.path.join(BIN, "worker")], timeout=60)
        self.assertIn(f"answers Describe: name 'benchgate-worker', version '{project_version()}'",
                      result.stdout)


class SignalTest(unittest.TestCase):
    def test_the_router_and_the_worker_started_from_a_shell_ignore_sigpipe(self):
        """Started as a shell starts them (subprocess resets SIGPIPE to its default, death), each
        ignores SIGPIPE by itself: a TLS peer's reset raises it on their next write(2) through
        OpenSSL (test_router_tls.py has a router killed so before). Neither did before."""
        for argv in (["router"], ["worker", "--listen", "127.0.0.1:0"]):
            proc = subprocess.Popen([os.path.join(BIN, argv[0]), *argv[1:]],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                line = proc.stdout.readline()
                self.assertTrue(line.startswith("READY"), (argv, line))
                with open(f"/proc/{proc.pid}/status", encoding="utf-8") as f:
                    ignored = int(re.search(r"^SigIgn:\s+([0-9a-f]+)$", f.read(), re.M).group(1),
                                  16)
                self.assertTrue(ignored & (1 << (signal.SIGPIPE - 1)), (argv, hex(ignored)))
            finally:
                proc.terminate()
                proc.wait(timeout=10)
                proc.stdout.close()


if __name__ == "__main__":
    unittest.main()
