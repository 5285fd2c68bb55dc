"""`orchestrator serve --http`: the read-only web pages in a real headless Chromium.

A real service runs two short jobs (the first promoted to baseline `main`); the runs list
(with its filters), a run's report, the live page during and after a job, and a metric's
history are opened in Chromium (browser.py): no JavaScript error, no request but the page
itself, the charts of the known runs, well-formed markup, a screenshot of each page under
the build folder (test-artifacts/web/). Names a client chose are escaped; a filter value no run can have is 400, any method but GET
405.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import browser
from harness import BIN, ORCHESTRATOR, Run, kill_tagged, write_scenario
from test_report import CHARTS_JS

ARTIFACTS = os.path.join(BIN, "..", "test-artifacts", "web")

SCENARIO = """
name = "web_e2e"

[router]
impl = "builtin"

[defaults]
warmup = "0s"
duration = "2s"
repetitions = 2
workers = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2

[[gates]]
workload = "hello"
metric = "throughput.rps"
baseline = "main"
max_regression = "90%"
"""

BRANCH = "<b>x</b>&\"'"


def start_service(directory, *flags):
    """A real `orchestrator serve` with --http on free loopback ports: (Run, grpc, http URL)."""
    scenarios = os.path.join(directory, "scenarios")
    os.makedirs(scenarios, exist_ok=True)
    service = Run(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                   "--http", "127.0.0.1:0", "--db", os.path.join(directory, "serve.db"),
                   "--scenarios", scenarios] + list(flags), cwd=directory)
    service.env["TMPDIR"] = directory
    service.start()
    ready = service.proc.stdout.readline()
    fields = dict(kv.split("=", 1) for kv in ready.split()[1:])
    assert "http" in fields, ready
    return service, fields["grpc"], "http://" + fields["http"]


def stop_service(service):
    if service.proc.poll() is None:
        service.proc.terminate()
        try:
            service.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            service.proc.kill()
            service.proc.communicate()
    kill_tagged(service.tag)


def fetch(url, data=None):
    """GET (POST with data) of a URL, or a urllib Request as it is: (status, body, headers)."""
    request = url if isinstance(url, urllib.request.Request) else urllib.request.Request(
        url, data=data)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


# The live page's state: its updates, whether it is still the page first opened (a reload
# would lose the marker), and the points the running workload's throughput chart has drawn.
LIVE_JS = """JSON.stringify({
  updates: document.body ? Number(document.body.dataset.updates || 0) : 0,
  same_page: window.__benchgate_marker === 1,
  running: document.body ? document.body.textContent.includes('Running: web_live') : false,
  charts: """ + CHARTS_JS.replace("JSON.stringify(", "(", 1) + """
})"""

LIVE_SECONDS = 8

LIVE_SCENARIO = f"""
name = "web_live"

[router]
impl = "builtin"

[defaults]
warmup = "0s"
duration = "{LIVE_SECONDS}s"
repetitions = 1
workers = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 2
"""


class LivePage(unittest.TestCase):
    """The live page in Chromium while a bounded run is in progress: the same page (never
    reloaded) gains points in the running workload's timelines, by the page's own updates."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-web-live-")
        cls.service, cls.grpc, cls.http = start_service(cls.dir)

    @classmethod
    def tearDownClass(cls):
        stop_service(cls.service)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_the_charts_of_the_running_window_grow_on_the_open_page(self):
        if not browser.chromium():
            self.skipTest("Debian package chromium is not installed")
        path = write_scenario(self.dir, "live.toml", LIVE_SCENARIO)
        url = self.http + "/live"
        samples = []
        screenshot = os.path.join(ARTIFACTS, "live-running.png")
        os.makedirs(ARTIFACTS, exist_ok=True)
        if os.path.exists(screenshot):
            os.remove(screenshot)
        with browser.Browser() as b:
            b.open(url)
            b.evaluate("window.__benchgate_marker = 1")
            job = subprocess.Popen([ORCHESTRATOR, "run", "--server", self.grpc, path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   cwd=self.dir)
            try:
                deadline = time.monotonic() + 120
                while job.poll() is None and time.monotonic() < deadline:
                    state = json.loads(b.evaluate(LIVE_JS))
                    throughput = [c for c in state["charts"] if c["kind"] == "throughput"]
                    points = sum(s["drawn"] for c in throughput for s in c["series"])
                    for c in state["charts"]:
                        for s in c["series"]:
                            self.assertEqual(s["declared"], s["drawn"], (c["kind"], s["name"]))
                    samples.append((state["updates"], state["same_page"], state["running"],
                                    points))
                    if points >= 3 and not os.path.exists(screenshot):
                        b.screenshot(screenshot)
                    time.sleep(0.2)
                out, err = job.communicate(timeout=60)
            finally:
                if job.poll() is None:
                    job.kill()
                    job.communicate()
            errors, requests = b.errors(), b.requests()
        self.assertEqual(job.returncode, 0, out + err)
        self.assertEqual(errors, [])
        self.assertEqual(set(requests), {url, self.http + "/live/fragment"})
        self.assertTrue(all(same for _, same, _, _ in samples), "the page was reloaded")
        # While the job ran, the points came in as the seconds of the window passed: at least
        # three different counts, never fewer than the update before, up to the window's.
        running = [p for _, _, r, p in samples if r and p > 0]
        self.assertGreaterEqual(len(set(running)), 3, samples)
        self.assertEqual(running, sorted(running), samples)
        self.assertLessEqual(max(running), LIVE_SECONDS)
        self.assertGreater(samples[-1][0], samples[0][0], "the page never updated itself")
        self.assertTrue(os.path.exists(screenshot))


class WebPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-web-")
        # The first job is promoted: a client promotes only where the operator allows it.
        cls.service, cls.grpc, cls.http = start_service(cls.dir, "--allow-promote", "main")
        path = write_scenario(cls.dir, "web.toml", SCENARIO)
        seed = subprocess.run([ORCHESTRATOR, "run", "--server", cls.grpc, path, "--promote",
                               "main", "--branch", "main"], capture_output=True, text=True,
                              timeout=120, cwd=cls.dir)
        assert seed.returncode == 0, seed.stdout + seed.stderr
        # The second job: the live page is read while it runs.
        second = subprocess.Popen([ORCHESTRATOR, "run", "--server", cls.grpc, path,
                                   "--branch", BRANCH], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=cls.dir)
        cls.live_while_running = None
        cls.report_while_running = None  # run 2's report, the run stored but not ended
        cls.live_linked_the_running_run = False  # the jobs table named run 2 while it ran
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and second.poll() is None:
            if cls.live_while_running is None or not cls.live_linked_the_running_run:
                status, body, _ = fetch(cls.http + "/live")
                if status == 200 and "<td class=\"text\">running</td>" in body:
                    cls.live_while_running = cls.live_while_running or body
                    cls.live_linked_the_running_run = (
                        "<td class=\"text\">running</td><td><a href=\"/runs/2\">2</a></td>" in body)
            status, body, _ = fetch(cls.http + "/runs/2")
            if status == 200 and "running" in body and cls.report_while_running is None:
                cls.report_while_running = body
            if cls.live_linked_the_running_run and cls.report_while_running:
                break
            time.sleep(0.1)
        out, err = second.communicate(timeout=120)
        assert second.returncode == 0, out + err
        # One Chromium opens every page of this class (each start takes about 3 s). Its cache
        # is off, so that every request a page makes is seen, as in a browser of its own.
        cls.chromium = None
        if browser.chromium():
            try:
                cls.chromium = browser.Browser()
                cls.chromium.call("Network.setCacheDisabled", cacheDisabled=True)
            except Exception:
                stop_service(cls.service)
                raise

    @classmethod
    def tearDownClass(cls):
        if cls.chromium:
            cls.chromium.close()
        stop_service(cls.service)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def open_in_chromium(self, path, name, also=()):
        """Opens a page; asserts no error and no request but itself (and the pages of `also`,
        which it may fetch); returns its charts."""
        url = self.http + path
        b = self.chromium
        try:
            b.open(url)
            self.assertEqual(b.errors(), [], path)
            self.assertEqual(set(b.requests()) - {self.http + p for p in also}, {url}, path)
            charts = json.loads(b.evaluate(CHARTS_JS))
            os.makedirs(ARTIFACTS, exist_ok=True)
            b.screenshot(os.path.join(ARTIFACTS, name + ".png"))
        finally:
            # The next page starts from a blank one at the default size: nothing this page
            # still does (the live page's updates) is counted as the next page's.
            b.call("Emulation.clearDeviceMetricsOverride")
            b.open("about:blank")
        return charts

    def page(self, path, script=False):
        status, body, headers = fetch(self.http + path)
        self.assertEqual(status, 200, (path, body))
        self.assertIn("default-src 'none'", headers["Content-Security-Policy"])
        ET.fromstring(body.split("\n", 1)[1])  # well formed, after <!DOCTYPE html>
        if not script:
            self.assertNotIn("<script", body)
        return body

    def test_the_runs_list_filters_and_escapes_what_a_client_chose(self):
        body = self.page("/")
        self.assertIn('<a href="/runs/1">1</a>', body)
        self.assertIn('<a href="/runs/2">2</a>', body)
        self.assertNotIn("<b>x</b>", body)
        self.assertIn("&lt;b&gt;x&lt;/b&gt;&amp;&quot;&#39;", body)
        only_main = self.page("/?branch=main")
        self.assertIn('/runs/1"', only_main)
        self.assertNotIn('/runs/2"', only_main)
        self.assertIn("1 run shown", only_main)
        self.assertIn("0 runs shown", self.page("/?verdict=fail"))
        # Run 1 seeded the baseline (no_baseline), run 2 passed against it.
        passed = self.page("/?scenario=web_e2e&status=ok&verdict=pass")
        self.assertIn("1 run shown", passed)
        self.assertIn('/runs/2"', passed)
        self.assertIn('/runs/1"', self.page("/?verdict=no_baseline"))
        self.assertIn("2 runs shown", self.page("/?scenario=web_e2e&status=ok"))
        self.assertIn("0 runs shown", self.page("/?scenario=other"))
        if browser.chromium():
            self.open_in_chromium("/", "runs")
            self.open_in_chromium("/?branch=main", "runs-filtered")

    def test_a_runs_report_is_the_report_with_its_charts(self):
        body = self.page("/runs/2")
        # Its own series: these runs were submitted to the service (docs/GATES.md).
        self.assertIn('<p class="nav">history: <a href="/history?scenario=web_e2e&amp;'
                      'workload=hello&amp;variant=default&amp;metric=throughput.rps&amp;'
                      'submitted_by=client">', body)
        # While it ran, nothing of it was stored to link a history from: no empty "history:".
        self.assertIsNotNone(self.report_while_running, "run 2's report never opened while it ran")
        self.assertNotIn("history:", self.report_while_running)
        if not browser.chromium():
            self.skipTest("Debian package chromium is not installed")
        charts = self.open_in_chromium("/runs/2", "run-report")
        spectra = [c for c in charts if c["kind"] == "spectrum"]
        self.assertEqual(len(spectra), 1)
        self.assertEqual([s["name"] for s in spectra[0]["series"]],
                         ["rep 1", "rep 2", "this run (repetitions merged)",
                          "baseline main (runs 1)"])
        throughput = [c for c in charts if c["kind"] == "throughput"]
        self.assertEqual([s["drawn"] for s in throughput[0]["series"]], [2, 2])

    def test_the_history_of_a_metric_marks_its_baseline_runs(self):
        path = "/history?scenario=web_e2e&workload=hello&metric=throughput.rps"
        body = self.page(path)
        self.assertIn("<td class=\"text\">main</td>", body)  # run 1's baseline
        if not browser.chromium():
            self.skipTest("Debian package chromium is not installed")
        charts = self.open_in_chromium(path, "history")
        self.assertEqual(len(charts), 1)
        runs = charts[0]["series"][1]
        self.assertEqual((runs["drawn"], runs["marked"]), (2, 1))

    def test_the_live_page_showed_the_running_job_and_updates_itself(self):
        self.assertIsNotNone(self.live_while_running, "the live page never showed a running job")
        # Its run as soon as it was stored (it showed "-" until the job ended).
        self.assertTrue(self.live_linked_the_running_run, self.live_while_running)
        # Without script it reloads; with it, its one script (allowed by hash) fetches the
        # changing part from this origin only.
        self.assertIn('<noscript><meta http-equiv="refresh" content="2"/></noscript>',
                      self.live_while_running)
        body = self.page("/live", script=True)
        self.assertEqual(body.count("<script>"), 1)
        _, _, headers = fetch(self.http + "/live")
        policy = headers["Content-Security-Policy"]
        self.assertIn("script-src 'sha256-", policy)
        self.assertIn("connect-src 'self'", policy)
        self.assertNotIn("unsafe-eval", policy)
        self.assertIn("No job is running.", body)
        self.assertEqual(body.count("<td class=\"text\">finished</td>"), 2)
        status, fragment, headers = fetch(self.http + "/live/fragment")
        self.assertEqual(status, 200)
        self.assertIn("default-src 'none'", headers["Content-Security-Policy"])
        self.assertNotIn("<script", fragment)
        ET.fromstring("<div>" + fragment + "</div>")
        if browser.chromium():
            self.open_in_chromium("/live", "live", also=("/live/fragment",))

    def test_unknown_pages_bad_queries_and_anything_but_get(self):
        self.assertEqual(fetch(self.http + "/runs/999")[0], 404)
        self.assertEqual(fetch(self.http + "/nothing")[0], 404)
        self.assertEqual(fetch(self.http + "/history?scenario=web_e2e")[0], 400)
        # A filter value no run can have is refused, naming the values it takes; it showed an
        # empty list before, as if no run matched.
        status, body, headers = fetch(self.http + "/?verdict=bogus")
        self.assertEqual(status, 400, body)
        self.assertIn("verdict &#39;bogus&#39; is none of the values it takes: pass, fail, "
                      "inconclusive, no_baseline, error, not_configured (or empty: any)", body)
        self.assertIn("default-src 'none'", headers["Content-Security-Policy"])
        status, body, _ = fetch(self.http + "/?status=done")
        self.assertEqual(status, 400, body)
        self.assertIn("status &#39;done&#39; is none of the values it takes: running, ok, failed, "
                      "aborted, abandoned (or empty: any)", body)
        # Every status a stored run can have is taken (README "Run status"), none matching here.
        for status in ("running", "failed", "aborted", "abandoned"):
            self.assertIn("0 runs shown", self.page("/?status=" + status))
        # And every verdict a gate can give (docs/GATES.md, "Verdicts").
        for verdict in ("pass", "fail", "inconclusive", "no_baseline", "error", "not_configured"):
            status, body, _ = fetch(self.http + "/?verdict=" + verdict)
            self.assertEqual(status, 200, verdict)
            self.assertRegex(body, r"\d+ runs? shown", verdict)
        # HEAD is answered as GET without the body (RFC 9110: a server answering GET answers
        # HEAD; it was 405): the same status and headers, Content-Length the GET's body's.
        for page in ("/", "/runs/1", "/runs/999", "/?verdict=bogus"):
            get_status, get_body, get_headers = fetch(self.http + page)
            status, body, headers = fetch(urllib.request.Request(self.http + page,
                                                                 method="HEAD"))
            self.assertEqual(status, get_status, page)
            self.assertEqual(body, "", page)
            self.assertEqual(headers.get("Content-Length"), str(len(get_body.encode())), page)
            for name in ("Content-Type", "Content-Security-Policy", "X-Content-Type-Options",
                         "Cache-Control"):
                self.assertEqual(headers.get(name), get_headers.get(name), (page, name))
        # Anything else: 405 naming GET and HEAD, with the pages' headers (it was a bare 404).
        for method, data in (("POST", b"x=1"), ("PUT", b"x"), ("DELETE", None),
                             ("OPTIONS", None)):
            request = urllib.request.Request(self.http + "/", data=data, method=method)
            status, body, headers = fetch(request)
            self.assertEqual(status, 405, method)
            self.assertEqual(headers.get("Allow"), "GET, HEAD", method)
            self.assertIn("default-src 'none'", headers.get("Content-Security-Policy", ""), method)
            self.assertEqual(headers.get("X-Content-Type-Options"), "nosniff", method)
            self.assertTrue(headers.get("Content-Type", "").startswith("text/html"), method)
            self.assertIn(f"These pages are read-only: {method} is not answered, only GET and "
                          "HEAD", body)
        # Still two runs: the POST changed nothing.
        self.assertIn("2 runs shown", self.page("/"))


if __name__ == "__main__":
    unittest.main()
