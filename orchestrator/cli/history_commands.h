// The read-only history commands over the result store: `runs list`, `runs show RUN`,
// `baseline add|list|remove` and `compare RUN_A RUN_B` (docs/GATES.md, "Series and baselines" and
// "Outputs for pipelines"). They never create a database: a missing file is an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct HistoryFlags {
  std::string db = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string scenario;  // runs list --scenario
  int limit = 20;        // runs list --limit (0: every run)
  int64_t run = 0;       // runs show RUN; baseline add/remove NAME RUN
  std::string baseline;  // baseline add/remove NAME; baseline list [NAME]
  int64_t run_a = 0;     // compare RUN_A RUN_B
  int64_t run_b = 0;
  double alpha = 0.05;  // compare --alpha
  bool json = false;    // compare --json
};

// Registers: runs list [--scenario S] [--limit N], runs show RUN, baseline add NAME RUN,
// baseline list [NAME], baseline remove NAME RUN, compare RUN_A RUN_B [--alpha A] [--json]; each
// with
// --db PATH (default "benchgate.db").
void add_history_commands(CLI::App& app, HistoryFlags& flags);

// If one of those subcommands was given, runs it and returns its exit code (0 ok, 2 bad usage
// or an unknown run, 3 a database failure); otherwise nullopt.
std::optional<int> run_history_command(const CLI::App& app, const HistoryFlags& flags);

}  // namespace benchgate::cli
