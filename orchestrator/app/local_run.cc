// See local_run.h.
#include "orchestrator/app/local_run.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "common/net/host_port.h"
#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/router_port_clash.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/terminal_report.h"

namespace benchgate::app {

using cli::kExitInvalidInput;
using cli::kExitOk;
using cli::kExitRunError;

namespace {

// Where `given` (--metrics-listen) has port 0: its `bound` address against every scenario's
// routers (router_port_clash.h), the kernel's choice named.
std::optional<std::string> metrics_port_clash(const std::vector<scenario::Scenario>& scenarios,
                                              const std::string& given, const std::string& bound) {
  if (bound.empty() || net::split_host_port(given, net::kListenMinPort).port != 0) {
    return std::nullopt;
  }
  for (const scenario::Scenario& scenario : scenarios) {
    if (auto clash = router_on_an_orchestrator_port(scenario, {{"--metrics-listen", bound}})) {
      return *clash + " (--metrics-listen " + given + " listens on " + bound +
             ", the port the kernel chose)";
    }
  }
  return std::nullopt;
}

}  // namespace

int run_locally(const std::vector<scenario::Scenario>& scenarios, const LocalRun& run) {
  // The /metrics listener and the database before anything is spawned: a port in use or a bad
  // path costs nothing.
  auto exporter = metrics::RunMetrics::start(run.metrics);
  if (!exporter) {
    std::fprintf(stderr, "error: %s\n", exporter.message().c_str());
    return kExitInvalidInput;
  }
  // A --metrics-listen given port 0 listens on the port the kernel chose, which run_command
  // could not compare with the routers' ports (port 0 is no router's): compared as bound, before
  // the database or any process. One given its port was compared before it listened.
  if (auto clash = metrics_port_clash(scenarios, run.metrics.listen,
                                      *exporter ? (*exporter)->address() : "")) {
    std::fprintf(stderr, "error: %s\n", clash->c_str());
    return kExitInvalidInput;
  }
  // The commit and branch the runs store, one from git checked as `run --server` checks the one
  // it sends (a control character, invalid UTF-8): refused by set_up_run before the database is
  // opened.
  auto setup = set_up_run(run.setup);
  if (!setup) {
    std::fprintf(stderr, "error: %s\n", setup.message().c_str());
    return kExitInvalidInput;
  }
  store::Store& db = *setup->db;
  const store::RunInfo& info = setup->info;
  const engine::EngineOptions& options = setup->options;
  engine::RunObserver* metrics_observer = *exporter ? &(*exporter)->observer() : nullptr;

  report::TerminalReport terminal(stdout, stderr);
  // Once, before the load: a router built elsewhere is stored under this folder's commit and
  // branch unless they are given (README, "Stored results").
  if (std::string warning =
          foreign_router_warning(scenarios, run.setup.processes.router_binary,
                                 !run.setup.processes.worker_addresses.empty(),
                                 !run.setup.commit.empty(), !run.setup.branch.empty());
      !warning.empty()) {
    terminal.message(warning);
  }
  std::vector<report::ScenarioReport> reports;
  int exit_code = kExitOk;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const scenario::Scenario& scenario = scenarios[i];
    // Each scenario's children get a folder of their own when there are several: they use
    // the same log names (router.stderr.log, worker-N.stderr.log, sut/), and the logs of a
    // scenario that failed are kept for reading after the others ran.
    engine::EngineOptions scenario_options = options;
    if (scenarios.size() > 1) {
      scenario_options.log_dir =
          engine::own_log_folder(options.log_dir, "scenario-" + std::to_string(i + 1));
    }
    reports.push_back(
        run_one(scenario, run.policy, scenario_options, db, info, terminal, metrics_observer));
    const auto& r = reports.back();
    // Counted once its exit code is final, below.
    if (*exporter) (*exporter)->observer().scenario_judged(r, info.commit);
    report::print_scenario_end(r, stdout, stderr);
    exit_code = std::max(exit_code, r.exit_code);
    if (interrupted()) break;
  }
  // A run's exit code becomes 3 after it was stored: the store says so too.
  auto raise_to_run_error = [&](report::ScenarioReport& r, const std::string& why) {
    if (r.run_id == 0 || r.exit_code == kExitRunError) return;
    r.exit_code = kExitRunError;
    if (auto raised = db.raise_exit_code(r.run_id, r.exit_code, why); !raised) {
      std::fprintf(stderr, "error: %s\n", raised.message().c_str());
    } else {
      r.add_error(why);  // the report files say the reason the store holds
    }
  };
  if (interrupted()) {
    // Named as the stored workload's error and `run --server` name it.
    std::fprintf(stderr, "%s: every child process was stopped\n", interrupt_description().c_str());
    exit_code = kExitRunError;
    // The run the interrupt came during or after (the loop stopped there), before the report
    // files say its exit code.
    if (!reports.empty()) raise_to_run_error(reports.back(), interrupt_description());
  }

  // Only now is a run's exit code final: report files not written fail every run they report.
  // They are written all or the truth (docs/REPORTS.md, "Report files"): when one cannot be,
  // every run is raised to exit code 3 first, and the files that can be written say so.
  auto render = [&] {
    return report::output_texts(run.outputs, reports, exit_code, &db, run.policy.baseline);
  };
  auto files_failed = [&] {
    exit_code = kExitRunError;
    for (report::ScenarioReport& r : reports) {
      raise_to_run_error(r, report::kReportFilesNotWritten);
    }
  };
  bool files_ok = report::write_outputs(run.outputs, render, files_failed);
  for (const report::ScenarioReport& r : reports) exit_code = std::max(exit_code, r.exit_code);
  // Only then are runs promoted (README, "Stored results": a baseline exited 0), and only when
  // the whole invocation exits 0: a pipeline fails on its exit code, and an interrupt stops
  // what was asked for, the runs completed before it included (docs/GATES.md). A promotion the
  // store refuses makes the invocation exit 3: all are added in one transaction, so none is.
  const bool raised_by_promotion = promote_runs(reports, run.policy, db, terminal, exit_code);
  for (const report::ScenarioReport& r : reports) exit_code = std::max(exit_code, r.exit_code);
  // A promotion the store refused made its run exit 3 after the files said otherwise: they are
  // written again, so that they say what the process and the store say.
  if (raised_by_promotion && files_ok) {
    files_ok = report::write_outputs(run.outputs, render, files_failed);
  }

  // The push reports a run that is already stored with its exit code: a failed push is said,
  // but it changes neither the stored run nor the exit code (README "Prometheus and Grafana").
  if (*exporter) {
    // The exit codes are final only now; /metrics and the push count and say them as the store
    // does.
    for (const report::ScenarioReport& r : reports) (*exporter)->observer().run_final(r);
    if (auto pushed = (*exporter)->finish(); !pushed) {
      std::fprintf(stderr, "warning: %s; the exit code stays the run's (%d)\n",
                   pushed.message().c_str(), exit_code);
    }
  }
  keep_or_remove_logs(options.log_dir, exit_code == kExitRunError || run.keep_logs);
  return exit_code;
}

}  // namespace benchgate::app
