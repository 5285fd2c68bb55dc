// orchestrator: runs benchmark scenarios against a system under test with worker processes,
// and decides whether a release passes its gates. See README.md.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "common/command_line/help_formatter.h"
#include "common/command_line/version.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/calibrate_command.h"
#include "orchestrator/cli/changes_command.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/gate_command.h"
#include "orchestrator/cli/history_commands.h"
#include "orchestrator/cli/report_command.h"
#include "orchestrator/cli/run_command.h"
#include "orchestrator/cli/serve_command.h"
#include "orchestrator/cli/usage_mistakes.h"
#include "orchestrator/cli/worker_check_command.h"
#include "orchestrator/processes/process_guard.h"

namespace {

// What the values every command takes only as text are, for --help (help_formatter.h); one
// name per flag, whichever command takes it.
benchgate::command_line::ValueNames value_names() {
  return {
      {"--allow-address", "HOST:PORT"},
      {"--allow-command", "PROGRAM"},
      {"--allow-promote", "BASELINE"},
      {"--baseline", "BASELINE"},
      {"--db", "FILE"},
      {"--db-busy-timeout", "DURATION"},
      {"--every", "DURATION"},
      {"--html", "FILE"},
      {"--http", "HOST:PORT"},
      {"--json", "FILE"},
      {"--junit", "FILE"},
      {"--label", "KEY=VALUE"},
      {"--listen", "HOST:PORT|unix:PATH"},
      {"--markdown", "FILE"},
      {"--metrics-linger", "DURATION"},
      {"--metrics-listen", "HOST:PORT"},
      {"--min-change", "PERCENT"},
      {"--promote", "BASELINE"},
      {"--protocol", "PROTOCOL"},
      {"--pushgateway", "URL"},
      {"--router-bin", "PROGRAM"},
      {"--scenario-name", "NAME"},
      {"--server", "HOST:PORT|dns:NAME:PORT|unix:PATH"},
      {"--since", "RUN|DATE"},
      {"--testbed", "ID"},
      {"--timeout", "DURATION"},
      {"--wamp-serializer", "SERIALIZER"},
      {"--wamp-transport", "TRANSPORT"},
      {"--worker-bin", "PROGRAM"},
      {"--worker-token-file", "FILE"},
      {"--workers-at", "HOST:PORT|dns:NAME:PORT|unix:PATH"},
      {"--workers-wait", "DURATION"},
  };
}

}  // namespace

int main(int argc, char** argv) {
  using namespace benchgate;
  CLI::App app{"benchgate orchestrator: benchmark scenarios and release gates"};
  command_line::use_readable_help(app, value_names());  // before the commands copy it
  app.require_subcommand(1);
  command_line::add_version_flag(app);
  cli::RunFlags run_flags;
  cli::add_run_command(app, run_flags);
  cli::ServeFlags serve_flags;
  cli::add_serve_command(app, serve_flags);
  std::vector<std::string> validate_files;
  cli::add_validate_command(app, validate_files);
  cli::GateFlags gate_flags;
  cli::add_gate_command(app, gate_flags);
  cli::HistoryFlags history_flags;
  cli::add_history_commands(app, history_flags);
  cli::CalibrateFlags calibrate_flags;
  cli::add_calibrate_command(app, calibrate_flags);
  cli::ChangesFlags changes_flags;
  cli::add_changes_command(app, changes_flags);
  cli::ReportFlags report_flags;
  cli::add_report_command(app, report_flags);
  cli::WorkerCheckFlags worker_check_flags;
  cli::add_worker_check_command(app, worker_check_flags);
  cli::refuse_out_of_range_numbers(app);  // once every command's options exist

  // Before CLI11 parses: it would report an unknown option's value as a missing file.
  if (auto mistake = cli::command_line_mistake(app, argc, argv)) {
    std::fprintf(stderr, "error: %s\n", mistake->c_str());
    return cli::kExitInvalidInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\n", cli::parse_error_message(app, e).c_str());
    return cli::kExitInvalidInput;
  }
  app::install_interrupt_handlers();
  // Before any thread starts: the guard forks its guardian (process_guard.h).
  // calibrate runs the scenario N times: the same children as run.
  if (app.got_subcommand("run") || app.got_subcommand("serve") || app.got_subcommand("calibrate") ||
      app.got_subcommand("worker-check")) {
    processes::start_process_guard();
  }
  if (app.got_subcommand("run")) return cli::run_command(run_flags);
  if (app.got_subcommand("serve")) return cli::serve_command(serve_flags);
  if (app.got_subcommand("validate")) return cli::validate_command(validate_files);
  if (app.got_subcommand("gate")) return cli::gate_command(gate_flags);
  if (app.got_subcommand("calibrate")) return cli::calibrate_command(calibrate_flags);
  if (app.got_subcommand("report")) return cli::report_command(report_flags);
  if (app.got_subcommand("worker-check")) return cli::worker_check_command(worker_check_flags);
  if (auto code = cli::run_history_command(app, history_flags)) return *code;
  if (int code = cli::run_changes_command(app, changes_flags); code >= 0) return code;
  return cli::kExitInvalidInput;
}
