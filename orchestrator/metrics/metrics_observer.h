// Prometheus gauges and counters of benchgate runs (README "Prometheus and Grafana"). An
// engine observer: updated live from the workers' progress during a window, set to each
// measured window's figures after it, and holding the final summary and the gate verdicts
// after the run. The only place orchestrator code touches prometheus-cpp metric types; the
// registry is handed out (forward-declared) to the HTTP endpoint and the Pushgateway client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/engine/run_observer.h"

namespace prometheus {
class Registry;
}

namespace benchgate::report {
struct ScenarioReport;
}

namespace benchgate::metrics {

class MetricsObserver : public engine::RunObserver {
 public:
  // `scenarios_kept` (serve --metrics-scenarios; 0: no bound): the series of only that many
  // scenarios, the most recently run, are kept, and of each scenario only the workloads and
  // variants of its latest run, so that names a client chooses do not grow the registry
  // over a service's life.
  explicit MetricsObserver(size_t scenarios_kept = 0);
  ~MetricsObserver() override;
  MetricsObserver(const MetricsObserver&) = delete;
  MetricsObserver& operator=(const MetricsObserver&) = delete;

  void scenario_started(const scenario::Scenario& scenario) override;
  void workload_started(const scenario::Workload& workload) override;
  void progress(const scenario::Workload& workload, const engine::WindowInfo& window,
                double ops_per_second, int64_t p99_ns, int64_t elapsed_ns) override;
  void window_finished(const scenario::Workload& workload, const engine::WindowInfo& window,
                       const results::Repetition* repetition) override;
  void workload_finished(const results::WorkloadResult& result) override;

  // After a scenario's run is stored and its gates evaluated, its exit code final (serve):
  // scenario_judged, then run_final.
  void scenario_finished(const report::ScenarioReport& report, const std::string& commit);
  // After a scenario's run is stored and its gates evaluated: the run's identity, and one
  // series per gate (replacing the scenario's previous verdicts). Not yet counted: its exit
  // code may still be raised (an interrupt that came after the run was judged, report files
  // that could not be written, a promotion the store refused: app/local_run.cc).
  void scenario_judged(const report::ScenarioReport& report, const std::string& commit);
  // Once the run's exit code is final, once per run: benchgate_runs_total counts it with its
  // stored status (run_status_label) and benchgate_last_run_exit_code says its exit code, each
  // as the store holds it.
  void run_final(const report::ScenarioReport& report);
  // Before a run a client submitted to serve (runs.origin client) starts. Its scenario's
  // series are set live as any run's, unless its name is one of the operator's runs' (their
  // workload and router series are the operator's) or every scenario kept is the operator's
  // (`scenarios_kept`): then the run sets nothing. A client's name pushes out only another
  // client's, never a scenario of the operator's runs.
  void begin_client_run();
  // In place of scenario_finished for such a run: where it set series, the scenario's run is
  // no longer in progress and benchgate_runs_total counts it; the verdict gauges
  // (benchgate_gate_*, benchgate_run_info, benchgate_last_run_*) and benchgate_change_* are
  // never set by it: a client cannot flip what an operator alerts on (docs/GATES.md, "Series
  // and baselines").
  void client_run_finished(const report::ScenarioReport& report);

  // `serve` as it starts, for each scenario's latest run stored before (serve/restored_metrics.h),
  // the scenarios run longest ago first: what scenario_judged and run_final set after that run,
  // as the store holds it (its run id and commit, gate verdicts, change points, exit code, and
  // benchgate_last_run_timestamp_seconds `finished_unix_seconds`), so that a restarted service
  // says the last verdicts before its next run. benchgate_runs_total counts no run for it (the
  // series start at 0: runs this process finished), and the workload and router series stay
  // absent until the scenario runs again.
  void restore_run(const report::ScenarioReport& report, const std::string& commit,
                   double finished_unix_seconds);

  const std::shared_ptr<prometheus::Registry>& registry() const;
  // The name of every family the registry holds, series or none yet (a family is served only
  // once it has a series): what README's metrics table must name.
  std::vector<std::string> family_names() const;

  // benchgate_runs_total's status of a finished run: the status the store holds (README "Run
  // status"), one definition for both: ok (every workload ran and completed; its gates passed
  // or failed), failed (a workload failed or results could not be stored), aborted (interrupted
  // or cancelled while it measured). An exit code raised to 3 after the run was stored (an
  // interrupt or cancel once it had measured to its end, unwritten report files, a refused
  // promotion) changes neither: benchgate_last_run_exit_code and runs.exit_code say it.
  static std::string run_status_label(const report::ScenarioReport& report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchgate::metrics
