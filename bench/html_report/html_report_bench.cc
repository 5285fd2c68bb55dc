// Times the HTML report of one stored run of 20 workloads (3 repetitions each, a timeline of
// --seconds per window, 4 workers, 3 gated metrics) in a store that also holds 20 earlier
// runs of the same series, 10 of them in baseline 'main': reading it back
// (report::load_html_run, as `orchestrator report` does), writing the document and the file.
// Prints the time and the size, and exits 1 when the report takes 1 s or more or the file is
// 5 MB or more.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "orchestrator/report/html_report.h"
#include "orchestrator/report/report_file.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace bs = benchgate::store;
namespace results = benchgate::results;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "html_report_bench: %s\n", what.c_str());
  std::exit(1);
}

const char* kScenario = R"toml(name = "report_bench"
[router]
impl = "builtin"
[[workloads]]
name = "w"
)toml";

results::WorkloadResult workload(int index, int seconds, std::mt19937_64& random) {
  results::WorkloadResult w;
  w.spec.name = "workload_" + std::to_string(index);
  w.spec.http.target = "/bench/hello";
  w.spec.connections = 32;
  for (uint32_t r = 0; r < 3; ++r) {
    results::Repetition rep;
    rep.index = r;
    rep.start_unix_ns = 1'700'000'000'000'000'000 + int64_t{r} * (seconds + 1) * 1'000'000'000;
    rep.duration_ns = int64_t{seconds} * 1'000'000'000;
    rep.data_window_ns = rep.duration_ns;
    rep.successes = 1'000'000 + random() % 1000;
    rep.operations = rep.successes;
    for (int i = 0; i < 100'000; ++i) {
      rep.latency.record(static_cast<int64_t>(10'000 + random() % 50'000 +
                                              (i % 1000 == 0 ? random() % 50'000'000 : 0)));
    }
    for (int s = 0; s < seconds; ++s) {
      const auto p50 = static_cast<int64_t>(20'000 + random() % 1000);
      rep.timeline.push_back({static_cast<uint32_t>(s),
                              9000.0 + static_cast<double>(random() % 2000), random() % 3, p50,
                              p50 * 5, p50 * 50});
    }
    for (uint32_t k = 0; k < 4; ++k) {
      rep.workers.push_back({k, 250'000, 250'000, 0, 2500, 90'000, 900'000, 0.5});
    }
    w.repetitions.push_back(std::move(rep));
    w.latency.add(w.repetitions.back().latency);
  }
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  int seconds = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atoi(argv[i + 1]);
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("html_report_bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto store = bs::Store::open((dir / "b.db").string());
  if (!store) die(store.message());
  std::mt19937_64 random(1);
  bs::RunInfo info;
  info.scenario = "report_bench";
  info.scenario_text = kScenario;
  info.testbed = bs::detect_testbed();
  int64_t last = 0;
  for (int run = 0; run < 21; ++run) {
    auto id = (*store)->begin_run(info);
    if (!id) die(id.message());
    for (int w = 0; w < 20; ++w) {
      if (auto ok = (*store)->store_workload(*id, workload(w, seconds, random)); !ok) {
        die(ok.message());
      }
    }
    std::vector<bs::GateRecord> gates;
    for (int w = 0; w < 20; ++w) {
      for (const char* metric : {"throughput.rps", "latency.p99", "errors.count"}) {
        bs::GateRecord g;
        g.workload = "workload_" + std::to_string(w);
        g.metric = metric;
        g.kind = "relative";
        g.baseline = "main";
        g.method = "t-test";
        g.verdict = "pass";
        g.severity = "critical";
        g.explanation = "within the allowance";
        gates.push_back(g);
      }
    }
    if (auto ok = (*store)->store_gate_results(*id, gates); !ok) die(ok.message());
    if (auto ok = (*store)->finish_run(*id, "ok", 0); !ok) die(ok.message());
    if (run % 2 == 0 && run < 20) {
      if (auto ok = (*store)->add_baseline("main", *id); !ok) die(ok.message());
    }
    last = *id;
  }
  const auto start = Clock::now();
  auto page = benchgate::report::load_html_run(**store, last, {});
  if (!page) die(page.message());
  const std::string html = benchgate::report::html_document({*page});
  const std::string path = (dir / "report.html").string();
  if (auto ok = benchgate::report::write_report_file(path, html); !ok) die(ok.message());
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  std::printf(
      "report of run %lld (20 workloads x 3 repetitions x %d s, %zu history runs, "
      "baseline %s of %zu runs): %.1f ms, %zu bytes\n",
      static_cast<long long>(last), seconds, page->history.front().runs.size(),
      page->baseline.c_str(), page->spectra.begin()->second.run_ids.size(), ms, html.size());
  std::filesystem::remove_all(dir);
  return ms < 1000 && html.size() < 5u * 1024 * 1024 ? 0 : 1;
}
