// `orchestrator calibrate FILE [--runs N]`: runs the scenario N times on this testbed with
// nothing changed (an A/A series), and stores for every series its gates judge (and the
// throughput, p50 and p99 of every workload) the between-run noise of its figure and the
// smallest regression a relative gate can detect (docs/GATES.md, "Calibration"). Relative gates
// then use that noise with fewer than 5 baseline runs and say when their max_regression is
// below what the testbed can detect.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/cli/remote_worker_flags.h"

namespace CLI {
class App;
}

namespace benchgate::cli {

struct CalibrateFlags {
  std::string file;
  int runs = 10;
  std::string db_path = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string router_binary;
  std::string worker_binary;
  RemoteWorkerFlags workers;  // --workers-at, --workers, --workers-wait, --worker-token-file
  std::string commit;         // --commit: empty, the git work tree's
  std::string branch;         // --branch: empty, the git work tree's
  bool keep_logs = false;
};

void add_calibrate_command(CLI::App& app, CalibrateFlags& flags);
int calibrate_command(const CalibrateFlags& flags);

}  // namespace benchgate::cli
