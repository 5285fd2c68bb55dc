#include "orchestrator/cli/run_command.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/load_scenarios.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/terminal_report.h"

namespace benchgate::cli {
namespace fs = std::filesystem;

namespace {

// The bundled binaries live next to the orchestrator (build/bin/ or an install prefix).
std::string sibling_binary(const std::string& name, const char* env_override) {
  if (const char* value = std::getenv(env_override); value && *value) return value;
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / name;
    if (fs::exists(candidate)) return candidate.string();
  }
  return name;  // found on PATH, or a clear "not found" when spawning
}

// A private folder for the children's stderr logs; removed after a clean run.
std::string make_log_dir() {
  std::string pattern = (fs::temp_directory_path() / "benchgate-run-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return fs::temp_directory_path().string();
  return pattern;
}

}  // namespace

void add_run_command(CLI::App& app, RunFlags& flags) {
  auto* run = app.add_subcommand("run",
                                 "Run scenario files: start the system under test and "
                                 "the workers, measure, report");
  run->add_option("files", flags.files, "Scenario files (TOML)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--json", flags.json_path, "Write every result to this JSON file");
  run->add_option("--router-bin", flags.router_binary,
                  "Router executable (default: next to orchestrator, or $BENCHGATE_ROUTER_BIN)");
  run->add_option("--worker-bin", flags.worker_binary,
                  "Worker executable (default: next to orchestrator, or $BENCHGATE_WORKER_BIN)");
  run->add_option("--workers-at", flags.worker_addresses,
                  "Connect to running workers at HOST:PORT (repeat or comma-separate) "
                  "instead of spawning them")
      ->delimiter(',');
  run->add_flag("--keep-logs", flags.keep_logs, "Keep the children's stderr logs");
}

int run_command(const RunFlags& flags) {
  auto scenarios = load_all(flags.files, stderr);
  if (!scenarios) return kExitInvalidInput;

  engine::EngineOptions options;
  options.router_binary = flags.router_binary.empty()
                              ? sibling_binary("router", "BENCHGATE_ROUTER_BIN")
                              : flags.router_binary;
  options.worker_binary = flags.worker_binary.empty()
                              ? sibling_binary("worker", "BENCHGATE_WORKER_BIN")
                              : flags.worker_binary;
  options.worker_addresses = flags.worker_addresses;
  options.log_dir = make_log_dir();

  report::TerminalReport terminal(stdout, stderr);
  std::vector<engine::ScenarioResult> results;
  bool all_ok = true;
  for (const auto& scenario : *scenarios) {
    results.push_back(engine::run_scenario(scenario, options, terminal));
    const auto& result = results.back();
    for (const auto& workload : result.workloads) {
      std::printf("%s\n", report::result_line(result.scenario, workload, "-").c_str());
    }
    if (!result.error.empty()) {
      std::fprintf(stderr, "error: scenario %s: %s\n", result.scenario.c_str(),
                   result.error.c_str());
    }
    std::fflush(stdout);
    all_ok = all_ok && result.ok();
    if (app::interrupted()) break;
  }
  int exit_code = all_ok ? kExitOk : kExitRunError;
  if (app::interrupted()) {
    std::fprintf(stderr, "interrupted by signal %d: every child process was stopped\n",
                 app::interrupt_signal());
    exit_code = kExitRunError;
  }
  if (!flags.json_path.empty()) {
    auto written = report::write_json_report(flags.json_path, results, exit_code);
    if (!written) {
      std::fprintf(stderr, "error: %s\n", written.message().c_str());
      exit_code = kExitRunError;
    }
  }
  std::error_code ec;
  if (exit_code == kExitOk && !flags.keep_logs) {
    fs::remove_all(options.log_dir, ec);
  } else {
    std::fprintf(stderr, "child process logs: %s\n", options.log_dir.c_str());
  }
  return exit_code;
}

void add_validate_command(CLI::App& app, std::vector<std::string>& files) {
  auto* validate = app.add_subcommand(
      "validate", "Check scenario files without running anything (exit 0 valid, 2 invalid)");
  validate->add_option("files", files, "Scenario files (TOML)")->required();
}

int validate_command(const std::vector<std::string>& files) {
  auto scenarios = load_all(files, stderr);
  if (!scenarios) return kExitInvalidInput;
  for (const auto& scenario : *scenarios) {
    std::printf("%s: ok (scenario %s, %zu workload%s, %zu gate%s)\n", scenario.path.c_str(),
                scenario.name.c_str(), scenario.workloads.size(),
                scenario.workloads.size() == 1 ? "" : "s", scenario.gates.size(),
                scenario.gates.size() == 1 ? "" : "s");
  }
  return kExitOk;
}

}  // namespace benchgate::cli
