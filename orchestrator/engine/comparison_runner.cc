// See comparison_runner.h.
#include "orchestrator/engine/comparison_runner.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/alternation.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {
namespace {

using Clock = std::chrono::steady_clock;

// Whether `program` can be executed: a path as given, a bare name through PATH.
bool installed(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// Forwards window events of one single-window run as the repetition it is in the comparison,
// with the variant in the displayed name; the per-window workload start and finish are
// swallowed, the comparison reports each variant's whole result itself.
class VariantWindowObserver : public RunObserver {
 public:
  VariantWindowObserver(RunObserver& inner, const scenario::Workload& shown, uint32_t repetition,
                        uint32_t repetitions)
      : inner_(inner), shown_(shown), repetition_(repetition), repetitions_(repetitions) {}

  void window_started(const scenario::Workload&, const WindowInfo& info) override {
    inner_.window_started(shown_, adjust(info));
  }
  void progress(const scenario::Workload&, const WindowInfo& info, double ops, int64_t p99,
                int64_t elapsed) override {
    inner_.progress(shown_, adjust(info), ops, p99, elapsed);
  }
  void window_finished(const scenario::Workload&, const WindowInfo& info,
                       const results::Repetition* rep) override {
    inner_.window_finished(shown_, adjust(info), rep);
  }
  void message(const std::string& text) override { inner_.message(text); }

 private:
  WindowInfo adjust(WindowInfo info) const {
    if (info.measured) info.repetition = repetition_;
    info.repetitions = repetitions_;
    return info;
  }

  RunObserver& inner_;
  const scenario::Workload& shown_;
  uint32_t repetition_;
  uint32_t repetitions_;
};

struct Variant {
  std::string name;
  const scenario::RouterConfig* config = nullptr;
  std::unique_ptr<sut::SystemUnderTest> sut;
  results::WorkloadStatus unusable = results::WorkloadStatus::kOk;  // not ok: never run
  std::string why;
};

class ComparisonRun {
 public:
  ComparisonRun(const scenario::Scenario& scenario, const EngineOptions& options,
                RunObserver& observer)
      : scenario_(scenario), options_(options), observer_(observer) {
    result_.scenario = scenario.name;
    result_.variants = scenario.compare_routers;
  }

  ScenarioResult run() {
    observer_.scenario_started(scenario_);
    const auto deadline = Clock::now() + startup_timeout();
    start_variants(deadline);
    if (options_.worker_addresses.empty()) {
      pool_ = workers::make_spawning_pool({options_.worker_binary, {}, options_.log_dir,
                                          options_.authenticate_spawned_workers});
    } else {
      pool_ = workers::make_connecting_pool(options_.worker_addresses, options_.worker_token);
    }
    size_t needed = 0;
    for (const auto& workload : scenario_.workloads) {
      needed = std::max<size_t>(needed, workload.workers);
    }
    if (auto started = pool_->start(needed, deadline); !started) {
      result_.error = "workers did not start: " + started.message();
    } else {
      for (const auto& workload : scenario_.workloads) {
        run_compared(workload);
        if (result_.interrupted || !result_.error.empty()) break;
      }
    }
    result_.interrupted = result_.interrupted || app::interrupted();
    pool_->stop();
    for (auto& v : variants_) {
      if (v.sut) v.sut->stop();
    }
    return std::move(result_);
  }

 private:
  std::chrono::nanoseconds startup_timeout() const {
    return std::chrono::nanoseconds(options_.startup_timeout_ns);
  }

  void start_variants(Clock::time_point deadline) {
    std::string description;
    for (const std::string& name : scenario_.compare_routers) {
      Variant v;
      v.name = name;
      v.config = &scenario_.routers.at(name);
      for (const auto& program : v.config->requires_programs) {
        if (!installed(program)) {
          v.unusable = results::WorkloadStatus::kNotConfigured;
          v.why = "not_configured: '" + program + "' is not installed (not found on PATH)";
          break;
        }
      }
      if (v.unusable == results::WorkloadStatus::kOk) {
        // Each variant logs into its own folder: two builtin routers would share a file.
        std::string log_dir = options_.log_dir + "/" + name;
        std::error_code ec;
        std::filesystem::create_directories(log_dir, ec);
        if (ec) log_dir = options_.log_dir;
        v.sut = sut::make_system_under_test(*v.config, {options_.router_binary, log_dir});
        if (auto started = v.sut->start(deadline); !started) {
          v.unusable = results::WorkloadStatus::kFailed;
          v.why = "router '" + name + "' did not start: " + started.message();
        }
      }
      const std::string what = v.sut ? v.sut->description() : v.why;
      description += (description.empty() ? "" : "; ") + name + ": " + what;
      variants_.push_back(std::move(v));
    }
    result_.system_description = "comparison of " + description;
  }

  void run_compared(const scenario::Workload& workload) {
    observer_.workload_started(workload);
    std::vector<results::WorkloadResult> out(variants_.size());
    std::vector<bool> warmed(variants_.size(), false);
    for (size_t v = 0; v < variants_.size(); ++v) {
      out[v].spec = workload;
      out[v].variant = variants_[v].name;
      out[v].status = variants_[v].unusable;
      out[v].error = variants_[v].why;
    }
    for (uint32_t rep = 0; rep < workload.repetitions && !result_.interrupted; ++rep) {
      for (size_t v : variant_order(variants_.size(), rep)) {
        if (out[v].status != results::WorkloadStatus::kOk) continue;
        if (!run_window(workload, rep, variants_[v], warmed[v], out[v])) break;
        warmed[v] = true;
      }
    }
    for (auto& w : out) {
      for (const auto& rep : w.repetitions) w.latency.add(rep.latency);
      observer_.workload_finished(w);
      result_.workloads.push_back(std::move(w));
    }
  }

  // One measured window of `workload` on variant `v`, appended to `acc`. False when the
  // comparison must stop (interrupted, or the workers cannot be replaced).
  bool run_window(const scenario::Workload& workload, uint32_t rep, Variant& v, bool warmed,
                  results::WorkloadResult& acc) {
    if (ran_before_) {
      auto recovered = pool_->recover(after_failure_, Clock::now() + startup_timeout());
      if (!recovered) {
        if (app::interrupted()) {
          result_.interrupted = true;
        } else {
          result_.error = "workers could not be replaced: " + recovered.message();
        }
        acc.status = results::WorkloadStatus::kFailed;
        acc.error = result_.error.empty() ? "interrupted" : result_.error;
        return false;
      }
      if (!recovered->empty()) observer_.message("[" + scenario_.name + "] " + *recovered);
    }
    ran_before_ = true;
    scenario::Workload one = workload;
    one.repetitions = 1;
    // Each variant warms up before its first window only; the others follow their own pair.
    if (warmed) one.warmup_ns = 0;
    scenario::Workload shown = workload;
    shown.name = workload.name + " [" + v.name + "]";
    VariantWindowObserver windows(observer_, shown, rep + 1, workload.repetitions);
    const bool bundled = v.config->impl == scenario::RouterImpl::kBuiltin;
    WorkloadEnvironment environment{*v.sut, *pool_, bundled, windows};
    results::WorkloadResult r = run_workload(one, environment);
    after_failure_ = r.status != results::WorkloadStatus::kOk;
    for (auto& repetition : r.repetitions) {
      repetition.index = static_cast<uint32_t>(acc.repetitions.size());
      acc.repetitions.push_back(std::move(repetition));
    }
    if (after_failure_) {
      acc.status = results::WorkloadStatus::kFailed;
      acc.error = r.error;
    }
    if (app::interrupted()) {
      result_.interrupted = true;
      return false;
    }
    // A dead variant cannot measure anything more; the others go on.
    if (std::string failure = v.sut->failure(); !failure.empty()) {
      v.unusable = results::WorkloadStatus::kFailed;
      v.why = "router '" + v.name + "' failed: " + failure;
    }
    return true;
  }

  const scenario::Scenario& scenario_;
  const EngineOptions& options_;
  RunObserver& observer_;
  ScenarioResult result_;
  std::vector<Variant> variants_;
  std::unique_ptr<workers::WorkerPool> pool_;
  bool ran_before_ = false;
  bool after_failure_ = false;
};

}  // namespace

ScenarioResult run_comparison(const scenario::Scenario& scenario, const EngineOptions& options,
                              RunObserver& observer) {
  return ComparisonRun(scenario, options, observer).run();
}

}  // namespace benchgate::engine
