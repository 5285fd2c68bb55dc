// See comparison_runner.h.
#include "orchestrator/engine/comparison_runner.h"

#include <algorithm>
#include <map>
#include <optional>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/alternation.h"
#include "orchestrator/engine/factories.h"
#include "orchestrator/engine/load_origin.h"
#include "orchestrator/engine/remote_workers.h"
#include "orchestrator/engine/run_pool.h"
#include "orchestrator/engine/worker_impl_spawn.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/results/nothing_succeeded.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/describe_rules.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {
namespace {

using Clock = std::chrono::steady_clock;

// Forwards window events of one single-window run as the repetition it is in the comparison,
// with the variant in the displayed name; the per-window workload start and finish are
// swallowed, the comparison reports each variant's whole result itself.
class VariantWindowObserver : public RunObserver {
 public:
  VariantWindowObserver(RunObserver& inner, const scenario::Workload& shown, std::string workload,
                        std::string variant, uint32_t repetition, uint32_t repetitions)
      : inner_(inner),
        shown_(shown),
        workload_(std::move(workload)),
        variant_(std::move(variant)),
        repetition_(repetition),
        repetitions_(repetitions) {}

  void window_started(const scenario::Workload&, const WindowInfo& info) override {
    inner_.window_started(shown_, adjust(info));
  }
  void progress(const scenario::Workload&, const WindowInfo& info, double ops, int64_t p99,
                int64_t elapsed) override {
    inner_.progress(shown_, adjust(info), ops, p99, elapsed);
  }
  void timeline_second(const scenario::Workload&, const WindowInfo& info, int64_t start,
                       const results::TimelineSecond& second) override {
    inner_.timeline_second(shown_, adjust(info), start, second);
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
    info.workload = workload_;
    info.variant = variant_;
    return info;
  }

  RunObserver& inner_;
  const scenario::Workload& shown_;
  const std::string workload_;
  const std::string variant_;
  uint32_t repetition_;
  uint32_t repetitions_;
};

// Why a variant measures nothing more, by the error's kind: not_configured (its program is
// not installed), interrupted (an interrupt is not a failure), else failed.
results::WorkloadStatus status_of(const Error& failure) {
  switch (failure.kind) {
    case ErrorKind::kNotConfigured:
      return results::WorkloadStatus::kNotConfigured;
    case ErrorKind::kInterrupted:
      return results::WorkloadStatus::kInterrupted;
    default:
      return results::WorkloadStatus::kFailed;
  }
}

// One compared variant: the router it measures and the workers that load it. Comparing
// routers, every variant has its own router and all share the workers: those of each
// workload's own `worker`, one pool per implementation, as in a run without variants;
// comparing workers, every variant has its own pool and all share one router. The shared one
// is the peer, and stays fixed.
struct Variant {
  std::string name;
  sut::SystemUnderTest* sut = nullptr;
  bool bundled_router = true;
  // Comparing workers: the variant's own pool and implementation, as workloads name it.
  // Comparing routers: null and empty, the workload's `worker` chooses them.
  RunPool* pool = nullptr;
  std::string worker;
  // Why it measures nothing more: the one record of its failure, set once, by the first cause
  // (it never started, its own router died, its own workers could not be replaced).
  std::optional<Error> failure;
};

class ComparisonRun {
 public:
  ComparisonRun(const scenario::Scenario& scenario, const EngineOptions& options,
                RunObserver& observer)
      : scenario_(scenario), options_(options), observer_(observer) {
    result_.scenario = scenario.name;
    result_.variants = compare_workers() ? scenario.compare_workers : scenario.compare_routers;
  }

  ScenarioResult run() {
    observer_.scenario_started(scenario_);
    if (compare_workers()) {
      start_worker_variants();
    } else {
      start_router_variants();
    }
    for (const auto& workload : scenario_.workloads) {
      if (start_interrupt_) break;
      run_compared(workload);
      if (app::interrupted()) break;
    }
    // An interrupt while a router or workers started ends the run as a plain run's does
    // (README, "Failure behaviour"): interrupted, not failed, and the workload it came before
    // is not listed; one before anything was listed is the run's error, as a plain run's at its
    // start. The peer's failure is the comparison's own; workers the scenario asks for and does
    // not get leave every variant not_configured, failing nothing (as in a run without
    // variants).
    if (start_interrupt_) {
      if (result_.workloads.empty()) result_.error = start_interrupt_->text();
    } else if (peer_failure_ && peer_failure_->kind != ErrorKind::kNotConfigured) {
      result_.error = peer_failure_->text();
    }
    result_.interrupted = start_interrupt_.has_value() || app::interrupted();
    for (auto& pool : pools_) pool->stop();
    for (auto& sut : suts_) sut->stop();
    return std::move(result_);
  }

 private:
  bool compare_workers() const { return !scenario_.compare_workers.empty(); }

  std::chrono::nanoseconds startup_timeout() const {
    return std::chrono::nanoseconds(options_.startup_timeout_ns);
  }

  // The most worker processes a workload uses: any workload, comparing workers (every variant
  // runs them all); comparing routers, one whose `worker` is `impl`.
  size_t workers_needed(const std::string& impl = "builtin") const {
    size_t needed = 0;
    for (const auto& workload : scenario_.workloads) {
      if (!compare_workers() && workload.worker != impl) continue;
      needed = std::max<size_t>(needed, workload.workers);
    }
    return needed;
  }

  // The bundled worker, or the remote workers of --workers-at or [workers] at.
  RemoteWorkerChoice remote() const {
    return remote_workers(scenario_, options_, workers_needed());
  }
  std::unique_ptr<workers::WorkerPool> bundled_pool() const {
    return bundled_worker_pool(remote(), options_);
  }

  RunPool* add_pool(std::unique_ptr<workers::WorkerPool> pool,
                    std::chrono::nanoseconds startup_timeout) {
    pools_.push_back(std::make_unique<RunPool>(std::move(pool), startup_timeout));
    return pools_.back().get();
  }

  // Why `v` measures nothing more: its own failure first, else its peer's; nullptr while it
  // can run.
  const Error* failure_of(const Variant& v) const {
    if (v.failure) return &*v.failure;
    return peer_failure_ ? &*peer_failure_ : nullptr;
  }

  // The shared router or the shared workers failed: no variant can measure anything more.
  void fail_peer(Error why) {
    if (!peer_failure_) peer_failure_ = std::move(why);
  }

  // Whether `why`, a start's failure, is an interrupt (start_failure and workers_start_failure
  // give it that kind): then it is kept as the run's (start_interrupt_), no failure of anyone.
  bool interrupted_start(const Error& why) {
    if (why.kind != ErrorKind::kInterrupted) return false;
    if (!start_interrupt_) start_interrupt_ = why;
    return true;
  }

  void start_router_variants() {
    std::string description;
    for (const std::string& name : scenario_.compare_routers) {
      if (start_interrupt_) break;  // the variants after it are not started
      Variant v;
      v.name = name;
      const scenario::RouterConfig& config = scenario_.routers.at(name);
      v.bundled_router = config.impl == scenario::RouterImpl::kBuiltin;
      for (const auto& program : config.requires_programs) {
        if (!processes::find_executable(program)) {
          v.failure =
              Error{"not_configured: '" + program + "' is not installed (not found on PATH)",
                    ErrorKind::kNotConfigured};
          break;
        }
      }
      if (!v.failure) {
        // Each variant logs into its own folder: two builtin routers would share a file.
        const std::string log_dir = own_log_folder(options_.log_dir, "router-" + name);
        suts_.push_back(options_.factories->system_under_test(
            config, {options_.router_binary, log_dir,
                     std::chrono::nanoseconds(options_.startup_timeout_ns)}));
        v.sut = suts_.back().get();
        if (auto started = v.sut->start(sut_start_deadline(config, options_)); !started) {
          v.failure = start_failure("router '" + name + "' did not start", started.error());
          interrupted_start(*v.failure);
        }
      }
      const std::string what = v.failure ? v.failure->text() : v.sut->description();
      description += (description.empty() ? "" : "; ") + name + ": " + what;
      variants_.push_back(std::move(v));
    }
    result_.system_description = "comparison of " + description;
  }

  // Comparing routers, the bundled workers (or those of --workers-at / [workers] at) that
  // every variant shares, started at the first workload that uses them, as impl_pool starts an
  // implementation's: a comparison whose every workload has its own `worker` never needs them,
  // and must not fail because they are down. Once only: a failed start fails every variant from
  // then on, as a failed shared router would.
  void start_shared_pool() {
    if (shared_pool_ || peer_failure_) return;
    shared_pool_ = add_pool(bundled_pool(), startup_timeout());
    if (auto started = shared_pool_->start(remote().count, workers_deadline(remote(), options_));
        !started) {
      Error why = workers_start_failure(remote(), started.error());
      if (!interrupted_start(why)) fail_peer(std::move(why));
    }
  }

  // Comparing routers, the pool of a [worker_impls] implementation that every variant shares,
  // spawned at its first workload (as in a run without variants); or why it cannot run, of
  // kind kNotConfigured when its program is not installed. A start that failed is not tried
  // again for the next workload: it would wait its whole startup_timeout again.
  Expected<RunPool*> impl_pool(const std::string& name) {
    if (auto it = impl_pools_.find(name); it != impl_pools_.end()) return it->second;
    if (auto it = impl_failures_.find(name); it != impl_failures_.end()) return it->second;
    WorkerImplSpawn spawn = worker_impl_spawn(name, scenario_.worker_impls.at(name), options_);
    if (spawn.cannot_run) return *spawn.cannot_run;
    RunPool* pool =
        add_pool(options_.factories->spawning_pool(spawn.config), spawn.startup_timeout);
    const Clock::time_point deadline = pool->startup_deadline();
    if (auto started = pool->start(workers_needed(name), deadline); !started) {
      Error why = worker_impl_start_failure(name, spawn.startup_timeout, deadline, started.error());
      if (why.kind != ErrorKind::kInterrupted) impl_failures_.emplace(name, why);
      return why;
    }
    impl_pools_.emplace(name, pool);
    return pool;
  }

  // The workers that run `workload` on `v`: its own (comparing workers), else those of the
  // workload's `worker`, which every router variant shares.
  Expected<RunPool*> pool_for(const Variant& v, const scenario::Workload& workload) {
    if (v.pool) return v.pool;
    if (workload.worker == "builtin") return shared_pool_;
    return impl_pool(workload.worker);
  }

  void start_worker_variants() {
    suts_.push_back(options_.factories->system_under_test(
        scenario_.router, {options_.router_binary, options_.log_dir,
                           std::chrono::nanoseconds(options_.startup_timeout_ns)}));
    sut::SystemUnderTest& sut = *suts_.back();
    if (auto started = sut.start(sut_start_deadline(scenario_.router, options_)); !started) {
      Error why = start_failure("system under test did not start", started.error());
      if (!interrupted_start(why)) fail_peer(std::move(why));
    }
    std::string description;
    for (const std::string& name : scenario_.compare_workers) {
      if (start_interrupt_) break;  // the variants after it are not started
      Variant v;
      v.name = name;
      v.worker = name;
      v.sut = &sut;
      v.bundled_router = scenario_.router.impl == scenario::RouterImpl::kBuiltin;
      if (name == "builtin") {
        v.pool = add_pool(bundled_pool(), startup_timeout());
      } else {
        WorkerImplSpawn spawn = worker_impl_spawn(name, scenario_.worker_impls.at(name), options_);
        if (spawn.cannot_run) {
          v.failure = std::move(spawn.cannot_run);
        } else {
          v.pool = add_pool(options_.factories->spawning_pool(spawn.config), spawn.startup_timeout);
        }
      }
      // Without a router no worker is started: they would have nothing to connect to.
      if (!v.failure && !peer_failure_) {
        if (name == "builtin") {
          if (auto started = v.pool->start(remote().count, workers_deadline(remote(), options_));
              !started) {
            v.failure = workers_start_failure(remote(), started.error());
            interrupted_start(*v.failure);
          }
        } else {
          // Each start has its whole startup deadline from now: a variant that failed slowly
          // never costs the next one its time (docs/SCENARIOS.md: "the others go on").
          const Clock::time_point deadline = v.pool->startup_deadline();
          if (auto started = v.pool->start(workers_needed(), deadline); !started) {
            v.failure = worker_impl_start_failure(name, v.pool->startup_timeout(), deadline,
                                                  started.error());
            interrupted_start(*v.failure);
          }
        }
      }
      description += (description.empty() ? "" : "; ") + name + ": " +
                     (v.failure ? v.failure->text() : "ready");
      variants_.push_back(std::move(v));
    }
    result_.system_description = sut.description() + "; comparison of workers " + description;
  }

  void run_compared(const scenario::Workload& workload) {
    // Without a router to load, the shared workers are not started. Started before the
    // workload is, as a plain run's workers are: one interrupted does not list the workload.
    if (!compare_workers() && workload.worker == "builtin" &&
        std::any_of(variants_.begin(), variants_.end(),
                    [](const Variant& v) { return !v.failure; })) {
      start_shared_pool();
    }
    if (start_interrupt_) return;
    observer_.workload_started(workload);
    std::vector<results::WorkloadResult> out(variants_.size());
    std::vector<bool> warmed(variants_.size(), false);
    bool any_runs = false;
    for (size_t v = 0; v < variants_.size(); ++v) {
      out[v].spec = workload;
      if (!variants_[v].worker.empty()) out[v].spec.worker = variants_[v].worker;
      out[v].variant = variants_[v].name;
      out[v].status = results::WorkloadStatus::kOk;
      if (const Error* failure = failure_of(variants_[v])) {
        out[v].status = status_of(*failure);
        out[v].error = failure->text();
      } else {
        any_runs = true;
      }
    }
    // Comparing routers, the workload's own worker implementation drives every variant; when
    // it cannot run, no variant measures this workload and the other workloads go on. Without
    // a router to load, its workers are not started.
    if (any_runs && !compare_workers() && workload.worker != "builtin") {
      if (auto pool = impl_pool(workload.worker); !pool) {
        for (auto& w : out) {
          if (w.status != results::WorkloadStatus::kOk) continue;
          w.status = pool.error().kind == ErrorKind::kInterrupted
                         ? results::WorkloadStatus::kInterrupted
                         : status_of(pool.error());
          w.error = pool.error().text();
        }
      }
    }
    for (uint32_t rep = 0; rep < workload.repetitions && !app::interrupted(); ++rep) {
      for (size_t v : variant_order(variants_.size(), rep)) {
        // A variant that failed in this workload keeps what it measured and its cause.
        if (out[v].status != results::WorkloadStatus::kOk) continue;
        if (const Error* failure = failure_of(variants_[v])) {
          out[v].status = status_of(*failure);
          out[v].error = failure->text();
          continue;
        }
        if (!run_window(workload, rep, variants_[v], warmed[v], out[v])) break;
        warmed[v] = true;
      }
    }
    // An interrupt cuts the workload short for every variant, not only the one whose window it
    // came in: one that had not measured all its repetitions is `interrupted`, as a plain run's
    // workload it cut short is (README, "Failure behaviour"); one that measured them all stays
    // `ok`, as a plain run's workload that finished before it does.
    if (app::interrupted()) {
      for (auto& w : out) {
        if (w.status == results::WorkloadStatus::kOk &&
            w.repetitions.size() < workload.repetitions) {
          w.status = results::WorkloadStatus::kInterrupted;
          w.error = app::interrupt_description();
        }
      }
    }
    for (auto& w : out) {
      w.merge_latency();
      // Over the variant's every window, as a plain run's workload (run_window ran them one by
      // one).
      if (w.status == results::WorkloadStatus::kOk) {
        if (std::string why = results::nothing_succeeded_reason(w); !why.empty()) {
          w.status = results::WorkloadStatus::kFailed;
          w.error = why;
        }
      }
      observer_.workload_finished(w);
      result_.workloads.push_back(std::move(w));
    }
  }

  // One measured window of `workload` on variant `v`, appended to `acc`. False when the
  // comparison must stop (interrupted).
  bool run_window(const scenario::Workload& workload, uint32_t rep, Variant& v, bool warmed,
                  results::WorkloadResult& acc) {
    // run_compared started the workload's pool, or recorded why it did not start.
    auto found = pool_for(v, workload);
    if (!found) {
      acc.status = status_of(found.error());
      acc.error = found.error().text();
      return true;
    }
    RunPool* pool = *found;
    if (auto prepared = pool->prepare(pool->startup_deadline(), observer_, scenario_.name);
        !prepared) {
      if (prepared.error().kind == ErrorKind::kInterrupted) {
        acc.status = results::WorkloadStatus::kInterrupted;
        acc.error = "interrupted";
        return false;
      }
      // Without workers this variant (and any sharing them) cannot measure anything more.
      acc.status = results::WorkloadStatus::kFailed;
      acc.error = prepared.message();
      if (compare_workers()) {
        v.failure = prepared.error();
      } else {
        fail_peer(prepared.error());
      }
      return true;
    }
    scenario::Workload one = workload;
    one.repetitions = 1;
    if (!v.worker.empty()) one.worker = v.worker;
    // Each variant warms up before its first window only; the others follow their own pair.
    if (warmed) one.warmup_ns = 0;
    scenario::Workload shown = workload;
    shown.name = workload.name + " [" + v.name + "]";
    VariantWindowObserver windows(observer_, shown, workload.name, v.name, rep + 1,
                                  workload.repetitions);
    WorkloadEnvironment environment{*v.sut, pool->pool(), v.bundled_router, windows,
                                    scenario_.name};
    environment.one_window_of_many = true;
    results::WorkloadResult r = run_workload(one, environment);
    // Where this window's load came from, with the variant's earlier windows' (a replaced
    // worker may be elsewhere): every row says it (docs/MEASUREMENT.md).
    acc.load_from = merge_load_from(acc.load_from, r.load_from);
    const workers::DescribedAs described = workers::merge_described(
        {acc.worker_name, acc.worker_version}, {r.worker_name, r.worker_version});
    acc.worker_name = described.name;
    acc.worker_version = described.version;
    // The workers' threads as the variant's first window that reached them said (the same
    // workers serve every window of it, unless one was replaced).
    if (acc.worker_threads.empty()) acc.worker_threads = r.worker_threads;
    const bool failed = r.status != results::WorkloadStatus::kOk;
    pool->finished(failed || r.degraded());
    for (auto& repetition : r.repetitions) {
      // Its number in the comparison, which paired gates pair the variants by (its place in
      // acc would shift every later window of a variant that missed one).
      repetition.index = rep;
      acc.repetitions.push_back(std::move(repetition));
    }
    if (failed) {
      acc.status = r.status;  // failed, or interrupted (not a failure)
      acc.error = r.error;
    }
    if (app::interrupted()) return false;
    // A dead router cannot measure anything more: every variant on it stops, the others go on.
    if (auto failure = v.sut->failure()) {
      if (compare_workers()) {
        fail_peer(Error::caused("router failed", std::move(*failure)));
      } else if (!v.failure) {
        v.failure = Error::caused("router '" + v.name + "' failed", std::move(*failure));
      }
    }
    return true;
  }

  const scenario::Scenario& scenario_;
  const EngineOptions& options_;
  RunObserver& observer_;
  ScenarioResult result_;
  std::vector<std::unique_ptr<sut::SystemUnderTest>> suts_;
  std::vector<std::unique_ptr<RunPool>> pools_;
  // Comparing routers: the bundled worker's pool (or --workers-at's), and each [worker_impls]
  // implementation's by name once started, or why it did not start.
  RunPool* shared_pool_ = nullptr;
  std::map<std::string, RunPool*> impl_pools_;
  std::map<std::string, Error> impl_failures_;
  std::vector<Variant> variants_;
  // The shared router (comparing workers) or the shared workers (comparing routers) failed:
  // the comparison's own error, and every variant's that has none of its own.
  std::optional<Error> peer_failure_;
  // An interrupt that came while a router or workers started (interrupted_start).
  std::optional<Error> start_interrupt_;
};

}  // namespace

ScenarioResult run_comparison(const scenario::Scenario& scenario, const EngineOptions& options,
                              RunObserver& observer) {
  return ComparisonRun(scenario, options, observer).run();
}

}  // namespace benchgate::engine
