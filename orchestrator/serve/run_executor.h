// Runs a service job exactly as `orchestrator run` runs one scenario (app::run_one: stored run,
// engine, gates, promotion), with the job's output and progress captured as events and the
// service's Prometheus gauges updated.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/processes/pinned_programs.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/live_run.h"
#include "orchestrator/store/store.h"

namespace benchgate::serve {

// The ${port:NAME} ports of `scenario` were free when it was loaded (at submission), but
// nothing held them while the job waited: one that something listens on by now would send
// the load, the readiness probe and the scrapes to it instead of to the system under test the
// scenario starts. Each is bound on 127.0.0.1 and on every other loopback address a key of the
// scenario reaches it at (127.0.0.53:${port:sut}): a listener there alone holds no port of
// 127.0.0.1's. Why the first such port cannot be used now, or nothing when all are free.
std::optional<std::string> port_taken_since_loaded(const scenario::Scenario& scenario);

// As a submitted job starts: pins every program its run spawns (`pinned`), then checks each
// again against --allow-command (`allowed`; program_changed_since_admitted, admission.h) and
// that its path still names the file pinned, and puts the pins in place for the run's spawns.
// Why the job cannot start, naming the first program that failed, or nothing.
std::optional<std::string> pin_checked_programs(const scenario::Scenario& scenario,
                                                const std::vector<std::string>& allowed,
                                                processes::PinnedPrograms& pinned);

// Whether a stop asked while the run went (a cancel, --max-run-seconds) reached `r` before its
// outcome was final: the engine stopped for it, or run_one made the run exit 3 for it after
// the engine ended. A stop that came once run_one had judged the run (while it stored it, or
// as it returned) did not: that run's stored exit code stands.
bool stop_reached_run(const report::ScenarioReport& r);

class RunExecutor : public JobExecutor {
 public:
  // `info` carries the testbed fingerprint; each job adds its commit, branch and labels. What a
  // job shows its client names neither `options.log_dir` nor any of `service_folders` (the
  // service's other folders in each spelling, client_paths.h service_folders): the job's log
  // folder is "job-N" there.
  RunExecutor(store::Store& db, engine::EngineOptions options, store::RunInfo info,
              metrics::MetricsObserver& metrics, std::vector<std::string> service_folders = {})
      : db_(db),
        options_(std::move(options)),
        info_(std::move(info)),
        metrics_(metrics),
        private_folders_(private_folders(options_.log_dir, std::move(service_folders))) {}

  void run(Job& job) override;
  void interrupt() override;
  // Removes the job's log folder ("job-N" in options.log_dir), which a failed job keeps for as
  // long as the service keeps the job listed (serve --keep-finished).
  void forget(uint64_t id) override;

  // What the running job is doing now (the web UI's live page).
  const LiveRun& live() const { return live_; }

  // Seams for tests (tests/unit/orchestrator/serve/run_executor_test.cc): called on the job's
  // thread at these moments of run(), so that a test puts a cancel or the deadline exactly
  // there; the service sets none.
  struct Seams {
    // run_one has judged and stored the run; `pass_deadline` makes --max-run-seconds pass now.
    std::function<void(const std::function<void()>& pass_deadline)> judged;
    // The deadline is over and looked at; the job's outcome is not settled yet.
    std::function<void()> deadline_checked;
    // A submitted job's programs were checked again and pinned; nothing was started yet.
    std::function<void()> programs_checked;
  };
  void set_seams(Seams seams) { seams_ = std::move(seams); }

 private:
  static std::vector<std::string> private_folders(const std::string& log_dir,
                                                  std::vector<std::string> service_folders) {
    service_folders.push_back(log_dir);
    return service_folders;
  }
  // The folder of job `id`'s children's logs.
  std::string job_log_dir(uint64_t id) const;

  store::Store& db_;
  const engine::EngineOptions options_;
  const store::RunInfo info_;
  metrics::MetricsObserver& metrics_;
  const std::vector<std::string> private_folders_;
  LiveRun live_;
  Seams seams_;
};

}  // namespace benchgate::serve
