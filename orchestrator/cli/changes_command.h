// `orchestrator history changes`: the change points of every stored series (docs/GATES.md,
// "Change points"). Read-only: a missing database is an error, never created.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct ChangesFlags {
  std::string db = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string scenario, workload, variant, metric, branch;
  // "operator" or "client": only that side's series (store::kOperatorRuns, kClientRuns); empty:
  // both, a client's marked.
  std::string submitted_by;
  int64_t testbed = 0;  // 0: every testbed
  std::string since;    // RUN or DATE; empty: the whole history
  double alpha = 0.01;
  std::string min_change = "1%";
  bool json = false;
};

// Registers `history` with its subcommand `changes`.
void add_changes_command(CLI::App& app, ChangesFlags& flags);

// Runs it if it was given (0 ok, 2 bad usage or a --db it cannot open, 3 a database failure
// while reading);
// -1 when `history changes` was not the command.
int run_changes_command(const CLI::App& app, const ChangesFlags& flags);

}  // namespace benchgate::cli
