// The read-only web pages of `orchestrator serve`; see web_pages.h.
#include "orchestrator/serve/web_pages.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/http_listener/http_listener.h"
#include "common/http_listener/url_coding.h"
#include "common/serialization/base64.h"
#include "common/units/units.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/http_listener/listen_address.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/latency_text.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/report/svg_chart.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/live_run.h"
#include "orchestrator/store/sha256.h"
#include "orchestrator/store/store.h"

namespace benchgate::serve {

using report::escape;

namespace {

std::string param(const std::string& query, const char* key) {
  return http_listener::query_param(query, key);
}

std::string link(const std::string& href, const std::string& text) {
  return fmt::format("<a href=\"{}\">{}</a>", escape(href), escape(text));
}

std::string url_encode(const std::string& text) { return http_listener::url_encode(text); }

// A filter of the runs list and the values it takes, from where they are defined: a stored
// run's status (store::kRunStatuses), a gate's verdict (gates::to_string of each Verdict).
struct RunFilter {
  const char* key;
  std::vector<std::string_view> values;
};
const RunFilter kStatusFilter{"status", {store::kRunStatuses.begin(), store::kRunStatuses.end()}};
const RunFilter kVerdictFilter = [] {
  RunFilter filter{"verdict", {}};
  for (gates::Verdict v : gates::kVerdicts) filter.values.push_back(gates::to_string(v));
  return filter;
}();

// Why `given` is refused for the filter, if it is (empty: no filter).
std::optional<std::string> bad_filter(const RunFilter& filter, const std::string& given) {
  if (given.empty()) return std::nullopt;
  std::string taken;
  for (std::string_view v : filter.values) {
    if (given == v) return std::nullopt;
    taken += (taken.empty() ? "" : ", ") + std::string(v);
  }
  return fmt::format("{} '{}' is none of the values it takes: {} (or empty: any)", filter.key,
                     given, taken);
}

// The runs one page of the runs list reads, newest first; its filters choose among them, and
// its "older runs" link reads the runs before them.
constexpr int kRunsPerPage = 500;

std::string nav() {
  return "<p class=\"nav\"><a href=\"/\">runs</a> &#183; <a href=\"/live\">live</a></p>\n";
}

const char* state_name(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kFinished:
      return "finished";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "?";
}

// The series' change points as `history changes` lists them.
std::string change_table(const std::vector<store::StoredChangePoint>& changes) {
  if (changes.empty()) return "<p class=\"note\">No change point in this series.</p>\n";
  std::string out =
      "<h2>Change points</h2>\n<table class=\"changes\"><tr><th>run</th><th>after "
      "run</th><th class=\"text\">commits</th><th>median before</th><th>median after</th>"
      "<th>change</th><th>95% CI</th><th>p-value</th></tr>\n";
  for (const auto& c : changes) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"text\">{}</td><td>{:.4g}</td><td>{:.4g}</td>"
        "<td>{}</td><td>{}</td><td>{:.3g}</td></tr>\n",
        link("/runs/" + std::to_string(c.run_id), std::to_string(c.run_id)), c.previous_run_id,
        escape(history::or_dash(c.previous_commit) + ".." + history::or_dash(c.commit)),
        c.median_before, c.median_after, c.change ? fmt::format("{:+.1f}%", 100 * *c.change) : "-",
        c.change_low && c.change_high
            ? fmt::format("{:+.1f}% to {:+.1f}%", 100 * *c.change_low, 100 * *c.change_high)
            : "-",
        c.p_value);
  }
  return out + "</table>\n";
}

// The live page's script: every second it fetches /live/fragment and puts it in place of
// #live, so the progress and the charts grow without a reload; it counts its updates on
// <body data-updates>. No '<' or '&' in it, so the page stays well-formed XML.
constexpr const char* kLiveScript =
    "(function () {\n"
    "  var updates = 0;\n"
    "  function tick() {\n"
    "    fetch('/live/fragment', {cache: 'no-store'})\n"
    "      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); "
    "})\n"
    "      .then(function (text) {\n"
    "        document.getElementById('live').innerHTML = text;\n"
    "        updates += 1;\n"
    "        document.body.setAttribute('data-updates', String(updates));\n"
    "        document.body.removeAttribute('data-stale');\n"
    "      })\n"
    "      .catch(function () { document.body.setAttribute('data-stale', 'true'); })\n"
    "      .then(function () { setTimeout(tick, 1000); });\n"
    "  }\n"
    "  setTimeout(tick, 1000);\n"
    "})();\n";

// The policy of the live page: its one script (by hash) and fetches of this origin only.
std::string live_policy() {
  const std::string hex = store::sha256_hex(kLiveScript);
  std::vector<uint8_t> digest;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    digest.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  std::string hash;
  serialization::append_base64(digest, hash);
  return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + hash +
         "'; connect-src 'self'; form-action 'self'";
}

// Every answer carries the same security headers. The pages fetch nothing: the policy makes a
// browser refuse anything but inline style and the page itself, should a name ever slip
// through unescaped. (The listener adds Content-Length and Connection, and leaves out the body
// of a HEAD.)
http_listener::Answer answer(WebPages::Page page, const char* allow = nullptr) {
  std::string csp = page.csp.empty()
                        ? "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
                        : std::move(page.csp);
  http_listener::Answer out{page.status,
                            {{"Content-Type", "text/html; charset=utf-8"},
                             {"Content-Security-Policy", std::move(csp)},
                             {"X-Content-Type-Options", "nosniff"},
                             {"Cache-Control", "no-store"}},
                            std::move(page.body)};
  if (allow) out.headers.emplace_back("Allow", allow);
  return out;
}

// A stored run as the service's pages show it: every measured binary by its file name, with its
// build-id or hash, never its folder (README "The service's folders": a client of the service
// never sees the operator's layout, and the router's and the worker's are the service's own).
Expected<report::HtmlRun> served_run(store::Store& store, int64_t run_id) {
  auto page = report::load_html_run(store, run_id, {});
  if (page) {
    for (store::MeasuredBinary& binary : page->binaries) {
      binary.path = std::filesystem::path(binary.path).filename().string();
    }
  }
  return page;
}

}  // namespace

Expected<std::unique_ptr<WebPages>> WebPages::start(const std::string& host_port,
                                                    const std::string& db_path,
                                                    const store::OpenOptions& store_options,
                                                    const JobQueue& queue, const LiveRun& live) {
  // HOST:PORT by the shared parser, a bind the kernel allows: checked before the store opens.
  if (auto why = http_listener::why_http_cannot_listen("--http", host_port)) return Error{*why};
  auto store = store::Store::open(db_path, store_options);
  if (!store) return store.error();
  std::unique_ptr<WebPages> pages(new WebPages(queue, live));
  pages->store_ = std::move(*store);
  WebPages& served = *pages;
  auto listener = http_listener::HttpListener::start(
      "--http", host_port, [&served](const http_listener::Request& request) {
        // HEAD is answered as GET, the same status and headers (Content-Length included),
        // without the body (RFC 9110, 9.3.2: a server that answers GET answers HEAD).
        if (request.method == "GET" || request.method == "HEAD") {
          return answer(served.get(request.path, request.query));
        }
        // The pages are read-only: any other method is 405 with `Allow: GET, HEAD`, and the
        // same headers as a page.
        return answer({405, report::html_page(
                                "method not allowed",
                                nav() + "<p>These pages are read-only: " + escape(request.method) +
                                    " is not answered, only GET and HEAD.</p>\n")},
                      "GET, HEAD");
      });
  if (!listener) return listener.error();
  pages->listener_ = std::move(*listener);
  pages->address_ = pages->listener_->address();
  return pages;
}

WebPages::WebPages(const JobQueue& queue, const LiveRun& live) : queue_(queue), live_(live) {}

// The listener stops (its thread joined) before the store it reads goes.
WebPages::~WebPages() { listener_.reset(); }

WebPages::Page WebPages::get(const std::string& path, const std::string& query) {
  std::lock_guard lock(mutex_);
  if (path == "/") return runs_list(query);
  if (path == "/live") return live();
  if (path == "/live/fragment") return {200, live_fragment()};
  if (path == "/history") return history(query);
  if (path.rfind("/runs/", 0) == 0) {
    const std::string id = path.substr(6);
    if (!id.empty() && id.size() < 18 && id.find_first_not_of("0123456789") == std::string::npos) {
      return run_report(std::stoll(id));
    }
  }
  return {404, report::html_page("not found", nav() + "<p>No such page.</p>\n")};
}

WebPages::Page WebPages::runs_list(const std::string& query) {
  const std::string scenario = param(query, "scenario");
  const std::string branch = param(query, "branch");
  const std::string status = param(query, "status");
  const std::string verdict = param(query, "verdict");
  // A value no run can have showed an empty list, as if none matched: refused, naming the
  // values the filter takes.
  for (const auto& why : {bad_filter(kStatusFilter, status), bad_filter(kVerdictFilter, verdict)}) {
    if (why) {
      return {400, report::html_page("bad filter", nav() + "<p>" + escape(*why) + "</p>\n")};
    }
  }
  // The runs older than this one: the page an "older runs" link leads to.
  const std::string before_text = param(query, "before");
  int64_t before = 0;
  if (!before_text.empty()) {
    if (before_text.size() > 18 ||
        before_text.find_first_not_of("0123456789") != std::string::npos ||
        (before = std::stoll(before_text)) <= 0) {
      return {400,
              report::html_page("bad filter", nav() + "<p>" +
                                                  escape("before '" + before_text +
                                                         "' is not a run id (a positive integer)") +
                                                  "</p>\n")};
    }
  }
  auto failed = [](const Error& error) -> Page {
    return {500, report::html_page("error", nav() + "<p>" + escape(error.text()) + "</p>")};
  };
  if (before > 0) {
    // A `before` past the newest run (of the scenario, when one is given) leaves out no run:
    // the page is the newest page, and says so, rather than "runs before run 999999".
    auto newest = store_->list_runs(1, scenario);
    if (!newest) return failed(newest.error());
    if (newest->empty() || before > newest->front().id) before = 0;
  }
  // One run more than a page shows: the "older runs" link only when an older run exists (a
  // page of exactly the runs left linked to an empty page).
  auto runs = store_->list_runs(kRunsPerPage + 1, scenario, before);
  if (!runs) return failed(runs.error());
  const bool older = runs->size() > static_cast<size_t>(kRunsPerPage);
  if (older) runs->resize(kRunsPerPage);
  std::string body = nav() + "<h1>Runs</h1>\n<form method=\"get\" action=\"/\">";
  for (const auto& [key, value] : std::vector<std::pair<const char*, std::string>>{
           {"scenario", scenario}, {"branch", branch}, {"status", status}, {"verdict", verdict}}) {
    body += fmt::format("<label>{0} <input name=\"{0}\" value=\"{1}\" size=\"12\"/></label> ", key,
                        escape(value));
  }
  body += "<button type=\"submit\">filter</button></form>\n";
  body +=
      "<table class=\"runs\"><tr><th>run</th><th class=\"text\">scenario</th><th "
      "class=\"text\">status</th><th>exit</th><th class=\"text\">commit</th><th "
      "class=\"text\">branch</th><th class=\"text\">started</th><th "
      "class=\"text\">gates</th></tr>\n";
  size_t shown = 0;
  for (const auto& r : *runs) {
    if (!branch.empty() && r.branch != branch) continue;
    if (!status.empty() && r.status != status) continue;
    auto gates = store_->gate_results(r.id);
    std::map<std::string, int> verdicts;
    if (gates) {
      for (const auto& g : *gates) ++verdicts[g.verdict];
    }
    if (!verdict.empty() && !verdicts.count(verdict)) continue;
    std::string summary;
    for (const auto& [v, n] : verdicts) {
      summary += fmt::format("<span class=\"verdict-{0}\">{1} {0}</span> ", escape(v), n);
    }
    body += fmt::format(
        "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td "
        "class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td "
        "class=\"text\">{}</td></tr>\n",
        link("/runs/" + std::to_string(r.id), std::to_string(r.id)),
        link("/?scenario=" + url_encode(r.scenario), r.scenario), escape(r.status),
        r.exit_code ? std::to_string(*r.exit_code) : "-", escape(history::or_dash(r.commit)),
        escape(history::or_dash(r.branch)), escape(history::format_local_time(r.started_at_ns)),
        summary.empty() ? "-" : summary);
    ++shown;
  }
  // The filters a link to another page of the list keeps.
  std::string kept;
  for (const auto& [key, value] : std::vector<std::pair<const char*, std::string>>{
           {"scenario", scenario}, {"branch", branch}, {"status", status}, {"verdict", verdict}}) {
    if (!value.empty()) kept += std::string(key) + "=" + url_encode(value) + "&";
  }
  body +=
      fmt::format("</table>\n<p class=\"note\">{} {} shown, of the {}{} {}{}{}.", shown,
                  shown == 1 ? "run" : "runs", before > 0 ? "" : "latest ", runs->size(),
                  runs->size() == 1 ? "run" : "runs", scenario.empty() ? "" : " of this scenario",
                  before > 0 ? " before run " + std::to_string(before) : std::string());
  // The next page is the runs before this page's oldest.
  if (older) {
    body += " " + link("/?" + kept + "before=" + std::to_string(runs->back().id), "older runs");
  }
  if (before > 0) {
    body += " " +
            link("/" + (kept.empty() ? "" : "?" + kept.substr(0, kept.size() - 1)), "newest runs");
  }
  body += "</p>\n";
  return {200, report::html_page("benchgate runs", body)};
}

WebPages::Page WebPages::run_report(int64_t run_id) {
  auto page = served_run(*store_, run_id);
  if (!page) {
    return {404, report::html_page("not found", nav() + "<p>" + escape(page.message()) + "</p>\n")};
  }
  // A run with no stored workload yet (a running one) has no history to link: no line then.
  std::string history_links;
  std::set<std::string> seen;
  for (const auto& h : page->history) {
    const std::string href = "/history?scenario=" + url_encode(page->run.scenario) +
                             "&workload=" + url_encode(h.workload) +
                             "&variant=" + url_encode(h.variant) +
                             "&metric=" + url_encode(h.metric) +
                             // The run's own series, whoever ran the scenario last.
                             "&submitted_by=" + store::submitted_by(page->run.origin);
    if (seen.insert(href).second) history_links += link(href, h.workload + " " + h.metric) + " ";
  }
  std::string links = nav();
  links += "<p class=\"note\">" + escape(history::origin_text(page->run.origin)) + "</p>\n";
  if (!history_links.empty()) links += "<p class=\"nav\">history: " + history_links + "</p>\n";
  return {200, report::html_document({*page}, links)};
}

WebPages::Page WebPages::live() {
  std::string body = nav() +
                     "<h1>Live</h1>\n<p class=\"note\">This page updates itself every second "
                     "(without script: it reloads every 2 s).</p>\n<div id=\"live\">";
  body += live_fragment();
  body += std::string("</div>\n<script>") + kLiveScript + "</script>\n";
  Page page{
      200,
      report::html_page("benchgate live", body,
                        "<noscript><meta http-equiv=\"refresh\" content=\"2\"/></noscript>\n"),
      live_policy()};
  return page;
}

std::string WebPages::live_fragment() {
  std::string body =
      "<table class=\"jobs\"><tr><th>job</th><th class=\"text\">scenario</th><th "
      "class=\"text\">state</th><th>run</th><th>exit</th><th class=\"text\">error</th></tr>\n";
  int64_t running_run = 0;
  for (const auto& j : queue_.list()) {
    if (j.state == JobState::kRunning && j.run_id) running_run = j.run_id;
    body += fmt::format(
        "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td>"
        "<td class=\"text\">{}</td></tr>\n",
        j.id, escape(j.scenario), state_name(j.state),
        j.run_id ? link("/runs/" + std::to_string(j.run_id), std::to_string(j.run_id)) : "-",
        j.ended() ? std::to_string(j.exit_code) : "-", escape(j.error));
  }
  body += "</table>\n";
  const LiveState now = live_.snapshot();
  if (now.running) {
    body +=
        fmt::format("<h2>Running: {}</h2>\n<p class=\"progress\">workload {} of {}: <b>{}</b>",
                    escape(now.scenario), now.workload, now.workloads, escape(now.workload_name));
    if (now.in_window) {
      body += now.window.measured ? fmt::format(", repetition {} of {}", now.window.repetition,
                                                now.window.repetitions)
                                  : std::string(", warm-up");
      // The rate and the p99 as the terminal's progress line and the tables write them
      // (rate_text, latency_text): a rate under 10 per second keeps its digits, not "0".
      body += fmt::format(
          ", {:.1f} s of {:.1f} s, {} ops/s now, p99 so far {}",
          static_cast<double>(now.elapsed_ns) / 1e9,
          static_cast<double>(now.window.duration_ns) / 1e9, report::rate_text(now.ops_per_second),
          report::latency_text(now.p99_ns > 0 ? std::optional<int64_t>(now.p99_ns) : std::nullopt));
    }
    body += "</p>\n";
    if (report::timeline(now.timeline).empty()) {
      body += "<p class=\"note\">Timelines: no second of a measured window yet.</p>\n";
    } else {
      body += "<section class=\"workload live\">" + report::timeline_charts(now.timeline) +
              "</section>\n";
    }
  }
  if (running_run) {
    // The running run as stored so far: each workload appears when it has finished.
    if (auto page = served_run(*store_, running_run)) {
      body += "<h2>Stored so far</h2>\n";
      const std::string doc = report::html_document({*page});
      const size_t a = doc.find("<article");
      const size_t b = doc.find("</article>");
      if (a != std::string::npos && b != std::string::npos) body += doc.substr(a, b + 10 - a);
    }
  } else if (!now.running) {
    body += "<p>No job is running.</p>\n";
  }
  return body;
}

WebPages::Page WebPages::history(const std::string& query) {
  const std::string scenario = param(query, "scenario");
  const std::string workload = param(query, "workload");
  std::string variant = param(query, "variant");
  if (variant.empty()) variant = "default";
  const std::string metric = param(query, "metric");
  // Whose series (docs/GATES.md, "Series and baselines": a client's runs are a series of their
  // own): submitted_by=operator or client; without it, that of the latest run found below.
  const std::string side = param(query, "submitted_by");
  auto bad = [&](const std::string& why) {
    return Page{400, report::html_page("history", nav() + "<p>" + escape(why) + "</p>\n")};
  };
  if (scenario.empty() || workload.empty() || metric.empty()) {
    return bad("history needs scenario, workload and metric (and variant, default 'default')");
  }
  if (!side.empty() && side != store::kOperatorRuns && side != store::kClientRuns) {
    return bad("submitted_by must be 'operator' or 'client', not '" + side + "'");
  }
  // The series on the testbed and definition of the scenario's latest run with this workload
  // (of that side, when one is asked for), of that run's side: looked up in the store, so the
  // other side's newer runs never hide it.
  auto found = store_->latest_workload_series(scenario, workload, variant, side);
  if (!found) return bad(found.message());
  if (!*found) {
    const std::string whose = side.empty()                 ? ""
                              : side == store::kClientRuns ? " that a client submitted"
                                                           : " that the operator started";
    return bad("no stored run of scenario '" + scenario + "'" + whose + " has workload '" +
               workload + "'");
  }
  store::ChangeSeriesKey key = std::move(**found);
  key.metric = metric;
  store::HistoryQuery q{"",      key.testbed_id,  scenario, workload,
                        variant, key.params_hash, metric,   50};
  q.submitted_by = key.submitted_by;
  auto series = store_->series_runs(q);
  if (!series) return bad(series.message());
  auto changes = report::series_change_points(*store_, key);
  if (!changes) return bad(changes.message());
  report::MetricHistory h{workload, variant, metric, std::move(*series), std::move(*changes)};
  std::string body =
      nav() +
      fmt::format("<h1>{} {} {}{}</h1>\n", escape(scenario), escape(workload), escape(metric),
                  key.submitted_by == store::kClientRuns ? " (runs clients submitted)" : "");
  body += report::history_chart(h, "");
  body +=
      "<table class=\"history\"><tr><th>run</th><th class=\"text\">commit</th><th "
      "class=\"text\">branch</th><th class=\"text\">baselines</th></tr>\n";
  for (const auto& s : h.runs) {
    std::string names;
    for (const auto& n : s.baselines) names += (names.empty() ? "" : ", ") + n;
    body += fmt::format(
        "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td "
        "class=\"text\">{}</td></tr>\n",
        link("/runs/" + std::to_string(s.run_id), std::to_string(s.run_id)),
        escape(history::or_dash(s.commit)), escape(history::or_dash(s.branch)),
        escape(names.empty() ? "-" : names));
  }
  body += "</table>\n";
  body += change_table(h.changes);
  return {200, report::html_page("benchgate history", body)};
}

}  // namespace benchgate::serve
