// See confirmation.h.
#include "orchestrator/engine/confirmation.h"

#include "orchestrator/app/interrupt.h"

namespace benchgate::engine {
namespace {

// The rerun's windows and messages, without its workload start and end.
class RerunObserver : public RunObserver {
 public:
  explicit RerunObserver(RunObserver& inner) : inner_(inner) {}
  void window_started(const scenario::Workload& w, const WindowInfo& info) override {
    inner_.window_started(w, info);
  }
  void progress(const scenario::Workload& w, const WindowInfo& info, double ops, int64_t p99,
                int64_t elapsed) override {
    inner_.progress(w, info, ops, p99, elapsed);
  }
  void window_finished(const scenario::Workload& w, const WindowInfo& info,
                       const results::Repetition* rep) override {
    inner_.window_finished(w, info, rep);
  }
  void message(const std::string& text) override { inner_.message(text); }

 private:
  RunObserver& inner_;
};

}  // namespace

bool confirm_workload(ConfirmationHook* hook, const scenario::Workload& workload,
                      const results::WorkloadResult& measured, WorkloadEnvironment& environment,
                      std::chrono::steady_clock::time_point startup_deadline) {
  if (hook == nullptr || measured.status != results::WorkloadStatus::kOk) return false;
  if (app::interrupted()) return false;
  const std::string reason = hook->rerun_reason(measured);
  if (reason.empty()) return false;
  const std::string prefix = "[" + environment.scenario + "] " + workload.name;
  environment.observer.message(prefix + ": " + reason +
                               "; measuring the workload once more to confirm (confirm = 1)");
  RerunObserver shown(hook->rerun_observer());
  if (auto recovered = environment.pool.recover(false, startup_deadline); !recovered) {
    results::WorkloadResult failed;
    failed.spec = workload;
    failed.variant = measured.variant;
    failed.status = results::WorkloadStatus::kFailed;
    failed.error = "workers could not be replaced for the rerun: " + recovered.message();
    hook->rerun_finished(measured, std::move(failed));
    return true;
  } else if (!recovered->empty()) {
    environment.observer.message("[" + environment.scenario + "] " + *recovered);
  }
  WorkloadEnvironment again{environment.sut, environment.pool, environment.bundled_router, shown,
                            environment.scenario};
  results::WorkloadResult rerun = run_workload(workload, again);
  rerun.variant = measured.variant;
  const bool suspect = rerun.status != results::WorkloadStatus::kOk || rerun.degraded();
  hook->rerun_finished(measured, std::move(rerun));
  return suspect;
}

}  // namespace benchgate::engine
