"""The HTML report (`run --html`, `orchestrator report RUN`) in a real headless Chromium.

A real short run is measured twice (the first seeds baseline `main`), and its report is
opened in Chromium over the DevTools protocol (browser.py): no JavaScript error, no request
outside the file itself, the charts with the series and points this run must give, the same
figures as the terminal table, well-formed markup, and a screenshot saved under the build
folder (test-artifacts/report/). Also: `orchestrator report` on a database written by the
schema before the timeline (migrations 0001-0003 only), and its command-line errors.
"""
import contextlib
import os
import re
import shutil
import sqlite3
import tempfile
import unittest
import xml.etree.ElementTree as ET

import browser
from harness import BIN, Run, write_scenario

SCHEMAS = os.path.join(os.path.dirname(__file__), "../../schemas/sqlite")
ARTIFACTS = os.path.join(BIN, "..", "test-artifacts", "report")

# One Chromium opens every page of this file (a start takes about 3 s). Its cache is off, so
# that every request a page makes is seen, as in a browser of its own, and each page is left
# for a blank one at the default size, so that nothing it still does counts as the next one's.
_chromium = None


@contextlib.contextmanager
def chromium_page():
    global _chromium
    if _chromium is None:
        _chromium = browser.Browser()
        _chromium.call("Network.setCacheDisabled", cacheDisabled=True)
    try:
        yield _chromium
    finally:
        _chromium.call("Emulation.clearDeviceMetricsOverride")
        _chromium.open("about:blank")


def tearDownModule():
    if _chromium is not None:
        _chromium.close()


DURATION_S = 2
REPETITIONS = 2

SCENARIO = f"""
name = "report_e2e"

[router]
impl = "builtin"

[defaults]
warmup = "0s"
duration = "{DURATION_S}s"
repetitions = {REPETITIONS}
workers = 2
threads = 1

[[workloads]]
name = "hello"
target = "/bench/hello"
connections = 4

[[workloads]]
name = "hello_open"
target = "/bench/hello"
connections = 4
rate = 2000

[[gates]]
workload = "hello*"
metric = "errors.count"
max = 0

[[gates]]
workload = "hello"
metric = "throughput.rps"
baseline = "main"
max_regression = "90%"
"""

# Every chart with each series' data-series, data-points and the points actually drawn.
CHARTS_JS = """JSON.stringify([...document.querySelectorAll('svg.chart')].map(svg => ({
  kind: svg.dataset.chart,
  workload: svg.closest('section') ? svg.closest('section').id : null,
  series: [...svg.querySelectorAll('[data-series]')].filter(e => e.tagName !== 'line').map(e => ({
    name: e.dataset.series,
    declared: Number(e.dataset.points),
    drawn: e.tagName === 'polyline'
      ? (e.getAttribute('points').trim() ? e.getAttribute('points').trim().split(/\\s+/).length : 0)
      : e.children.length,
    marked: e.querySelectorAll('rect.marked').length,
  })),
})))"""


def chromium_or_skip(test):
    if not browser.chromium():
        test.skipTest("Debian package chromium is not installed (scripts/install-deps.sh)")


def medians_from_terminal(stdout, workload):
    """The terminal's summary row ("all reps") of a workload: [ops/s, MB/s, p50, p90, p99,
    p99.9, max] (ops/s and MB/s the medians of the repetitions, latency merged)."""
    block = stdout.split(f"\n{workload}: ", 1)[1]
    for line in block.splitlines():
        if line.startswith("  all reps "):
            return line.split()[2:9]
    raise AssertionError(f"no summary row for {workload}")


def medians_from_html(html, workload):
    section = html.split(f'<section class="workload" id="w-{workload.replace("_", "-")}">', 1)[1]
    section = section.split("</section>", 1)[0]
    row = re.search(r"<tr><td class=\"text\">all reps</td>(.*?)</tr>", section)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    return [cells[0].split()[0]] + cells[1:7]


class ReportOfARealRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="benchgate-report-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
        cls.db = os.path.join(cls.dir, "b.db")
        path = write_scenario(cls.dir, "s.toml", SCENARIO)
        seed = Run(["run", path, "--db", cls.db, "--promote", "main"], cwd=cls.dir).run(180)
        assert seed.returncode == 0, seed.stdout + seed.stderr
        cls.html_path = os.path.join(cls.dir, "run.html")
        cls.measured = Run(["run", path, "--db", cls.db, "--html", cls.html_path], cwd=cls.dir).run(180)
        assert cls.measured.returncode == 0, cls.measured.stdout + cls.measured.stderr
        cls.run_id = int(cls.measured.result_lines()[0]["run"])
        with open(cls.html_path, encoding="utf-8") as f:
            cls.html = f.read()

    def test_the_file_is_well_formed_markup(self):
        root = ET.fromstring(self.html.split("\n", 1)[1])  # after <!DOCTYPE html>
        self.assertEqual(root.tag, "{http://www.w3.org/1999/xhtml}html")
        self.assertTrue(self.html.startswith("<!DOCTYPE html>\n"))

    def test_nothing_outside_the_file_is_referenced(self):
        self.assertNotIn("<script", self.html)
        self.assertNotIn("<link", self.html)
        self.assertIsNone(re.search(r"(src|href)=\"(?!#)", self.html), "only in-page links")
        self.assertNotIn("url(", self.html)

    def test_figures_are_the_terminal_tables(self):
        for workload in ("hello", "hello_open"):
            self.assertEqual(medians_from_html(self.html, workload),
                             medians_from_terminal(self.measured.stdout, workload), workload)

    def test_open_loop_diagnostics_and_counts_are_the_terminals(self):
        import html as html_module
        terminal = [line.strip() for line in self.measured.stdout.splitlines()
                    if line.strip().startswith("service time")]
        self.assertEqual(len(terminal), REPETITIONS, self.measured.stdout)  # hello_open's
        shown = [html_module.unescape(cell) for cell in re.findall(
            r'<tr class="open-loop"><td class="text"></td><td colspan="10" class="text">(.*?)</td>',
            self.html)]
        self.assertEqual(shown, terminal)
        counts = [line.strip() for line in self.measured.stdout.splitlines()
                  if line.strip().startswith("requests: ")]
        self.assertEqual(len(counts), 2, self.measured.stdout)
        self.assertEqual([html_module.unescape(c) for c in
                          re.findall(r'<p class="counts">(.*?)</p>', self.html)], counts)

    def test_in_chromium_no_error_no_request_and_the_charts_of_this_run(self):
        chromium_or_skip(self)
        os.makedirs(ARTIFACTS, exist_ok=True)
        url = "file://" + os.path.abspath(self.html_path)
        with chromium_page() as b:
            b.open(url)
            self.assertEqual(b.errors(), [])
            self.assertEqual(b.requests(), [url])
            import json
            charts = json.loads(b.evaluate(CHARTS_JS))
            b.screenshot(os.path.join(ARTIFACTS, "run-report.png"))
        self.assertGreater(os.path.getsize(os.path.join(ARTIFACTS, "run-report.png")), 10000)
        for chart in charts:
            for s in chart["series"]:
                self.assertEqual(s["declared"], s["drawn"], (chart["kind"], s["name"]))
        by_kind = {}
        for chart in charts:
            by_kind.setdefault(chart["kind"], []).append(chart)
        # One spectrum per workload: each repetition faint, the merged curve, and the baseline
        # (run 1, promoted to main), each sampled at 101 percentiles from 0 to 99.999.
        self.assertEqual([c["workload"] for c in by_kind["spectrum"]], ["w-hello", "w-hello-open"])
        for c in by_kind["spectrum"]:
            self.assertEqual([s["name"] for s in c["series"]],
                             ["rep 1", "rep 2", "this run (repetitions merged)",
                              "baseline main (runs 1)"])
            self.assertEqual({s["drawn"] for s in c["series"]}, {101})
        # Timelines: one series per repetition and figure, one point per second of the window.
        for kind, figures in (("throughput", ["ops/s"]), ("latency", ["p50", "p99", "max"]),
                              ("errors", ["errors"])):
            self.assertEqual(len(by_kind[kind]), 2, kind)
            for c in by_kind[kind]:
                self.assertEqual(
                    [s["name"] for s in c["series"]],
                    [f"{f} (rep {r})" for f in figures for r in range(1, REPETITIONS + 1)])
                self.assertEqual({s["drawn"] for s in c["series"]}, {DURATION_S}, kind)
        # History of each gated metric: hello's and hello_open's errors.count, hello's rps;
        # two runs, the first marked as baseline main.
        self.assertEqual(len(by_kind["history"]), 3)
        for c in by_kind["history"]:
            runs = c["series"][1]
            self.assertEqual((runs["drawn"], runs["marked"]), (2, 1))

    def test_the_gate_table_gives_each_gates_interval_or_the_reason_there_is_none(self):
        # hello's throughput gate has one baseline run (nested-t without a spread), the
        # errors gates are absolute: none has an interval, and each says why.
        table = self.html.split('<table class="gates">', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r"<tr><td class=\"text verdict-.*?</tr>", table)
        self.assertEqual(len(rows), 3, table)
        cells = [re.search(r'<td class="ci">(.*?)</td>', r).group(1) for r in rows]
        self.assertEqual(sorted(cells), sorted(
            ['-<span class="why"> an absolute gate compares its figure with a bound: no test, '
             'no interval</span>'] * 2 +
            ['-<span class="why"> one baseline run: nothing measures the between-run '
             'spread</span>']))

    def test_report_of_the_stored_run_is_the_same_file(self):
        again = Run(["report", str(self.run_id), "--db", self.db], cwd=self.dir).run()
        self.assertEqual(again.returncode, 0, again.stderr)
        written = os.path.join(self.dir, f"run-{self.run_id}.html")
        self.assertIn(f"wrote run-{self.run_id}.html", again.stdout)
        with open(written, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.html)

    def test_report_of_a_past_run_is_the_file_its_run_wrote(self):
        # Another run of the scenario stored after it (in a copy of the database, so the other
        # tests see theirs) is no part of the run's history: its report is still the same bytes.
        # The file holds no time of writing (the run's own start only).
        import shutil
        later_db = os.path.join(self.dir, "later.db")
        shutil.copyfile(self.db, later_db)
        later = Run(["run", os.path.join(self.dir, "s.toml"), "--db", later_db],
                    cwd=self.dir).run(180)
        self.assertEqual(later.returncode, 0, later.stdout + later.stderr)
        self.assertGreater(int(later.result_lines()[0]["run"]), self.run_id)
        out = os.path.join(self.dir, "past.html")
        again = Run(["report", str(self.run_id), "--db", later_db, "--html", out]).run()
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.html)

    def test_report_of_a_run_stored_by_the_schema_before_the_timeline(self):
        # A database made by the migrations before the timeline's only, holding the same rows.
        migrations = sorted(n for n in os.listdir(SCHEMAS) if n.endswith(".sql"))
        timeline = next(n for n in migrations if n.endswith("_timeline.sql"))
        old = os.path.join(self.dir, "old.db")
        con = sqlite3.connect(old)
        for name in migrations:
            if name < timeline:
                with open(os.path.join(SCHEMAS, name)) as f:
                    con.executescript(f.read())
        old_version = int(timeline[:4]) - 1
        con.execute(f"PRAGMA user_version = {old_version}")
        con.execute("ATTACH DATABASE ? AS new", (self.db,))
        tables = [r[0] for r in con.execute(
            "SELECT name FROM main.sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%'")]
        self.assertNotIn("timeline", tables)
        for table in tables:
            columns = ", ".join(r[1] for r in con.execute(f"PRAGMA main.table_info({table})"))
            con.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM new.{table}")
        con.commit()
        con.execute("DETACH DATABASE new")
        con.close()
        out = os.path.join(self.dir, "old.html")
        report = Run(["report", str(self.run_id), "--db", old, "--html", out]).run()
        self.assertEqual(report.returncode, 0, report.stderr)
        con = sqlite3.connect(old)
        self.assertGreater(con.execute("PRAGMA user_version").fetchone()[0], old_version)
        con.close()
        with open(out, encoding="utf-8") as f:
            html = f.read()
        ET.fromstring(html.split("\n", 1)[1])
        self.assertEqual(medians_from_html(html, "hello"), medians_from_html(self.html, "hello"))
        self.assertEqual(html.count("Timeline: not stored"), 2)
        self.assertEqual(html.count("Per worker: not stored"), 2)
        self.assertEqual(html.count('data-chart="spectrum"'), 2)
        # Gate rows from before the interval was stored: each says why it has none.
        self.assertEqual(html.count("an absolute gate compares its figure"), 2)
        if browser.chromium():
            with chromium_page() as b:
                b.open("file://" + os.path.abspath(out))
                self.assertEqual(b.errors(), [])
                os.makedirs(ARTIFACTS, exist_ok=True)
                b.screenshot(os.path.join(ARTIFACTS, "earlier-schema-report.png"))

    def test_command_line_errors_are_one_line_and_exit_2(self):
        cases = [
            (["report", "999", "--db", self.db], "run 999 does not exist"),
            (["report", "1", "--db", os.path.join(self.dir, "missing.db")], "missing.db"),
            (["report", "1", "--db", self.db, "--html", "/nonexistent/x.html"],
             "--html /nonexistent/x.html: folder '/nonexistent' does not exist"),
            (["report", "1", "--db", self.db, "--history", "0"], "--history 0: must be at least 1"),
            (["report", "1", "--db", self.db, "--baseline", "a b"], "--baseline"),
        ]
        for args, needle in cases:
            r = Run(args, cwd=self.dir).run()
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
            self.assertIn(needle, r.stderr, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        # A missing argument is named with its description, then where help is.
        r = Run(["report", "--db", self.db], cwd=self.dir).run()
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "error: `orchestrator report` needs its run argument: run id "
                                   "(see `orchestrator runs list`); see `orchestrator report "
                                   "--help`\n")

    def test_help_names_every_option(self):
        r = Run(["report", "--help"]).run()
        self.assertEqual(r.returncode, 0)
        for option in ("--db", "--html", "--baseline", "--history", "run-RUN.html"):
            self.assertIn(option, r.stdout)
        r = Run(["run", "--help"]).run()
        self.assertIn("--html", r.stdout)


class TheBrowserCheckCanFail(unittest.TestCase):
    """The browser helper sees a script error and a request leaving the page."""

    def test_a_broken_page_is_caught(self):
        chromium_or_skip(self)
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "bad.html")
            with open(page, "w") as f:
                f.write("<html><body><script>throw new Error('boom')</script>"
                        "<img src=\"http://127.0.0.1:9/pixel.png\"/></body></html>")
            with chromium_page() as b:
                b.open("file://" + page)
                self.assertTrue(any("boom" in e for e in b.errors()), b.errors())
                self.assertIn("http://127.0.0.1:9/pixel.png", b.requests())


if __name__ == "__main__":
    unittest.main()
