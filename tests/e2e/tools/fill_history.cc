// bench_history_fill DB: writes a small, fully known history into a new result database for
// the end-to-end tests of the history commands (tests/e2e/test_history.py), without running
// any load. Every figure is chosen so the expected output can be stated exactly:
//   run 1  history_demo   ok      testbed bench-a  steady, faster, retired (5/5/3 repetitions)
//   run 2  history_demo   ok      testbed bench-a  steady (noise only), faster (+50% ops/s),
//                                                   added; two gate verdicts
//   run 3  history_other  failed  testbed bench-b  steady (other definition), broken (failed)
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"

namespace {

namespace results = benchgate::results;
namespace store = benchgate::store;

constexpr int64_t kDay = 86'400'000'000'000;
constexpr int64_t kStart = 1'700'000'000'000'000'000;  // 2023-11-14 22:13:20 UTC

store::Testbed testbed(const std::string& host) {
  return {host,         "Test CPU @ 3.00GHz", 8, "Linux 6.1.0 x86_64", "performance",
          "GNU 12.2.0", "-O3 -DNDEBUG"};
}

// One repetition per throughput value: a one-second data window, so ops/s is exactly the
// value; 100 bytes per response; every latency sample at latency_ns.
results::WorkloadResult workload(const std::string& name, int64_t start,
                                 const std::vector<double>& rps,
                                 const std::vector<int64_t>& latency_ns,
                                 uint32_t connections = 16) {
  results::WorkloadResult w;
  w.spec.name = name;
  w.spec.connections = connections;
  w.spec.repetitions = static_cast<uint32_t>(rps.size());
  for (size_t i = 0; i < rps.size(); ++i) {
    results::Repetition r;
    r.index = static_cast<uint32_t>(i);
    r.start_unix_ns = start + static_cast<int64_t>(i) * 1'000'000'000;
    r.duration_ns = 1'000'000'000;
    r.data_window_ns = 1'000'000'000;
    r.successes = static_cast<uint64_t>(rps[i]);
    r.operations = r.successes;
    r.bytes_sent = r.successes * 50;
    r.bytes_received = r.successes * 100;
    r.latency.record_n(latency_ns[i], 100);
    r.worker_cpu_seconds = 0.5;
    r.worker_cpu_utilization = 0.25;
    w.latency.add(r.latency);
    w.repetitions.push_back(std::move(r));
  }
  return w;
}

int fail(const std::string& what, const std::string& message) {
  std::cerr << "bench_history_fill: " << what << ": " << message << "\n";
  return 1;
}

struct RunSpec {
  store::RunInfo info;
  std::vector<results::WorkloadResult> workloads;
  std::string status;
  int exit_code;
  int64_t took_ns;
  std::vector<store::GateRecord> gates;
};

std::vector<RunSpec> history() {
  const std::vector<double> base = {10000, 10100, 9900, 10050, 9950};
  const std::vector<double> noise = {10020, 9980, 10080, 9920, 10000};
  const std::vector<double> faster = {15000, 15150, 14850, 15075, 14925};
  const std::vector<int64_t> ms1 = {1'000'000, 1'010'000, 990'000, 1'005'000, 995'000};
  const std::vector<int64_t> ms1_noise = {1'002'000, 998'000, 1'008'000, 992'000, 1'000'000};
  const std::vector<int64_t> ms2 = {2'000'000, 2'020'000, 1'980'000, 2'010'000, 1'990'000};
  const std::vector<int64_t> ms4_3 = {1'333'000, 1'347'000, 1'320'000, 1'340'000, 1'327'000};

  std::vector<RunSpec> runs(3);
  RunSpec& r1 = runs[0];
  r1.info = {"history_demo",
             "name = \"history_demo\"\n",
             "1111111111aaaaaaaaaabbbbbbbbbb0000000000",
             "main",
             {{"ci", "yes"}},
             testbed("bench-a"),
             kStart};
  r1.workloads = {
      workload("steady", kStart, base, ms1), workload("faster", kStart, base, ms2),
      workload("retired", kStart, {5000, 5000, 5000}, {3'000'000, 3'000'000, 3'000'000})};
  r1.status = "ok";
  r1.exit_code = 0;
  r1.took_ns = 65'000'000'000;

  RunSpec& r2 = runs[1];
  r2.info = {"history_demo", "name = \"history_demo\"\n",   "2222222222cccccccccc",
             "main",         {{"ci", "yes"}, {"pr", "42"}}, testbed("bench-a"),
             kStart + kDay};
  r2.workloads = {
      workload("steady", kStart + kDay, noise, ms1_noise),
      workload("faster", kStart + kDay, faster, ms4_3),
      workload("added", kStart + kDay, {7000, 7000, 7000}, {1'500'000, 1'500'000, 1'500'000})};
  r2.status = "ok";
  r2.exit_code = 0;
  r2.took_ns = 80'000'000'000;
  store::GateRecord pass;
  pass.gate_index = 0;
  pass.workload = "steady";
  pass.metric = "latency.p99";
  pass.kind = "absolute";
  pass.threshold = 0.005;
  pass.observed = 0.001;
  pass.method = "median";
  pass.verdict = "pass";
  pass.severity = "critical";
  pass.explanation = "median p99 1ms is within max 5ms";
  store::GateRecord regressed;
  regressed.gate_index = 1;
  regressed.workload = "faster";
  regressed.metric = "throughput.rps";
  regressed.kind = "absolute";
  regressed.threshold = 20000;
  regressed.observed = 15000;
  regressed.method = "median";
  regressed.verdict = "fail";
  regressed.severity = "warning";
  regressed.explanation = "median 15000 ops/s is below min 20000 ops/s";
  r2.gates = {pass, regressed};

  RunSpec& r3 = runs[2];
  r3.info = {
      "history_other",  "name = \"history_other\"\n", "", "feature/x", {}, testbed("bench-b"),
      kStart + 2 * kDay};
  // 32 connections instead of 16: another definition of "steady", another series.
  r3.workloads = {workload("steady", kStart + 2 * kDay, base, ms1, 32),
                  workload("broken", kStart + 2 * kDay, {}, {})};
  r3.workloads[1].status = results::WorkloadStatus::kFailed;
  r3.workloads[1].error = "worker 1 exited with status 1";
  r3.status = "failed";
  r3.exit_code = 3;
  r3.took_ns = 12'500'000'000;
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: bench_history_fill DB (a new file)\n";
    return 2;
  }
  const std::string path = argv[1];
  if (std::filesystem::exists(path)) return fail(path, "already exists; give a new file");
  auto opened = store::Store::open(path);
  if (!opened) return fail("open", opened.message());
  store::Store& s = **opened;
  for (RunSpec& spec : history()) {
    auto run = s.begin_run(spec.info);
    if (!run) return fail("begin_run", run.message());
    for (const auto& w : spec.workloads) {
      if (auto ok = s.store_workload(*run, w); !ok) return fail("store_workload", ok.message());
    }
    if (auto ok = s.finish_run(*run, spec.status, spec.exit_code); !ok) {
      return fail("finish_run", ok.message());
    }
    // finish_run stamps the wall clock; a fixed duration keeps the listings exact.
    auto fix = s.database().prepare("UPDATE runs SET finished_at = started_at + ?1 WHERE id = ?2");
    if (!fix) return fail("fix finish time", fix.message());
    fix->bind(1, spec.took_ns).bind(2, *run);
    if (auto ok = fix->run(); !ok) return fail("fix finish time", ok.message());
    if (!spec.gates.empty()) {
      if (auto ok = s.store_gate_results(*run, spec.gates); !ok) {
        return fail("store_gate_results", ok.message());
      }
    }
    std::cout << "run " << *run << "\n";
  }
  return 0;
}
