// Shared helpers for the store tests: a temporary folder per test and realistic results built
// directly from the domain structs.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "orchestrator/results/results.h"
#include "orchestrator/store/records.h"

namespace benchgate::store::testing {

// A fresh folder under the test temp dir, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::string templ = ::testing::TempDir() + "benchgate_store_XXXXXX";
    path_ = mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline Testbed test_testbed(const std::string& host = "bench-host-1") {
  Testbed t;
  t.host = host;
  t.cpu_model = "Test CPU @ 3.00GHz";
  t.cores = 8;
  t.kernel = "Linux 6.1.0 x86_64";
  t.governor = "performance";
  t.compiler = "GNU 12.2.0";
  t.build_flags = "-O3 -DNDEBUG";
  return t;
}

inline RunInfo test_run_info(const std::string& scenario = "quickstart") {
  RunInfo info;
  info.scenario = scenario;
  info.scenario_text = "name = \"" + scenario + "\"\n";
  info.commit = "0123456789abcdef0123456789abcdef01234567";
  info.branch = "main";
  info.labels = {{"ci", "yes"}};
  info.testbed = test_testbed();
  return info;
}

inline scenario::Workload test_workload_spec(const std::string& name = "http_hello") {
  scenario::Workload w;
  w.name = name;
  w.connections = 32;
  w.http.target = "/bench/hello";
  return w;
}

// One repetition with distinct, checkable figures derived from `seed`.
inline results::Repetition test_repetition(uint32_t index, int64_t seed) {
  results::Repetition r;
  r.index = index;
  r.start_unix_ns = 1'700'000'000'000'000'000 + seed * 1'000'000'000;
  r.duration_ns = 3'000'000'000;
  r.data_window_ns = 2'900'000'000 + seed;
  r.successes = 100'000 + static_cast<uint64_t>(seed) * 10;
  r.errors = {{"timeout", 3}, {"status", 2}};
  r.operations = r.successes + 5;
  r.bytes_sent = 4'000'000 + static_cast<uint64_t>(seed);
  r.bytes_received = 9'000'000 + static_cast<uint64_t>(seed);
  r.late_sends = 7;
  r.unsent = 1;
  for (int64_t v = 1; v <= 1000; ++v) r.latency.record(v * 1000 + seed);
  r.latency.record(5'000'000);
  r.worker_cpu_seconds = 1.25;
  r.worker_cpu_utilization = 0.42;
  r.router.collected = true;
  r.router.counters_collected = true;
  r.router.requests = r.operations;
  r.router.sampled = true;
  r.router.cpu_seconds = 0.75;
  r.router.rss_bytes = 12'345'678;
  r.router.counter_deltas = {{"http_requests{route=/bench/hello,status=200}", r.successes},
                             {"connections_opened", 32}};
  r.flags = {"worker_saturated"};
  r.in_window = true;
  r.window_successes = r.successes - 3;
  r.window_bytes_received = r.bytes_received - 30;
  r.window_payload_bytes = r.window_successes * 12;
  r.worker_start_skew_ns = {200'000 + seed, -1'500'000};
  r.worker_cpu_wait_share = 0.03;
  r.latency_clamped = 2;
  return r;
}

inline results::WorkloadResult test_workload(const std::string& name = "http_hello",
                                             int repetitions = 3, int64_t seed = 0) {
  results::WorkloadResult w;
  w.spec = test_workload_spec(name);
  for (int i = 0; i < repetitions; ++i) {
    w.repetitions.push_back(test_repetition(static_cast<uint32_t>(i), seed + i));
    w.latency.add(w.repetitions.back().latency);
  }
  return w;
}

}  // namespace benchgate::store::testing
