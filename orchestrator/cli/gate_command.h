// `orchestrator gate RUN [--baseline NAME]`: re-evaluates a stored run's gates against the
// stored history without running anything, stores the new evaluation, and exits like `run`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace benchgate::cli {

// --strict of `run` and `gate`: what it changes is the exit code of critical gates only
// (gates::exit_code_for; a warning gate never fails a run, docs/GATES.md, "Severity and exit
// codes").
inline constexpr const char* kStrictHelp =
    "A critical gate's inconclusive, no_baseline, not_configured or underpowered verdict also "
    "fails the run (exit 1); warning gates never do";

struct GateFlags {
  int64_t run_id = 0;
  std::string db_path = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string baseline;
  bool strict = false;
  std::string json_path;
  std::string junit_path;
  std::string markdown_path;
  // The report flags given on the command line, by name: one given an empty path is refused.
  std::vector<std::string> given_reports;
};

void add_gate_command(CLI::App& app, GateFlags& flags);
int gate_command(const GateFlags& flags);

}  // namespace benchgate::cli
