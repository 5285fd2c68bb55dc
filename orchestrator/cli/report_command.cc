#include "orchestrator/cli/report_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "common/util/baseline_name.h"
#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/existing_store.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/report_file.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

void add_report_command(CLI::App& app, ReportFlags& flags) {
  auto* report = app.add_subcommand(
      "report",
      "Write the self-contained HTML report of a stored run (charts inline, nothing fetched "
      "when viewed; runs nothing)");
  report->add_option("run", flags.run_id, "Run id (see `orchestrator runs list`)")->required();
  report->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  add_db_busy_timeout_option(*report, flags.db_busy_timeout, DbUse::kReadsOnly);
  report->add_option("--html", flags.html_path,
                     "File to write (default: run-RUN.html in the current folder)");
  report->add_option("--baseline", flags.baseline,
                     "Draw each workload against this baseline (default: the baseline of the "
                     "scenario's first relative gate, if any)");
  report
      ->add_option("--history", flags.history_runs,
                   "Runs shown in each gated metric's history on the run's testbed (the "
                   "latest up to and including the run)")
      ->capture_default_str();
}

int report_command(const ReportFlags& flags) {
  if (!flags.baseline.empty()) {
    // "--baseline 'a b' may contain only ...": the flag says what the value is.
    if (std::string why = baseline_name_reason(flags.baseline); !why.empty()) {
      std::fprintf(stderr, "error: --baseline %s\n", why.c_str());
      return kExitInvalidInput;
    }
  }
  if (flags.history_runs < 1) {
    std::fprintf(stderr, "error: --history %d: must be at least 1\n", flags.history_runs);
    return kExitInvalidInput;
  }
  const std::string path =
      flags.html_path.empty() ? "run-" + std::to_string(flags.run_id) + ".html" : flags.html_path;
  if (auto valid = report::check_output_path("--html", path); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  auto db = open_existing_store(flags.db_path, flags.db_busy_timeout);
  if (!db) {
    std::fprintf(stderr, "error: %s\n", db.message().c_str());
    return kExitInvalidInput;
  }
  auto page = report::load_html_run(**db, flags.run_id, {flags.baseline, flags.history_runs});
  if (!page) {
    std::fprintf(stderr, "error: %s\n", page.message().c_str());
    return kExitInvalidInput;
  }
  if (auto written = report::write_report_file(path, report::html_document({*page})); !written) {
    std::fprintf(stderr, "error: %s\n", written.message().c_str());
    return kExitRunError;
  }
  std::printf("wrote %s (run %lld, %s)\n", path.c_str(), static_cast<long long>(flags.run_id),
              page->run.scenario.c_str());
  return kExitOk;
}

}  // namespace benchgate::cli
