// The flags of the remote workers a run uses: --workers-at, --workers, --workers-wait and
// --worker-token-file, declared once for `run`, `calibrate` and `serve`, and checked once for
// `run` and `calibrate` (check_remote_worker_flags). `serve` checks them its own way: its
// scenarios come later, submitted, so --workers needs --workers-at there.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"

namespace CLI {
class App;
}

namespace benchgate::cli {

struct RemoteWorkerFlags {
  std::vector<std::string> addresses;  // --workers-at: connect instead of spawning
  size_t count = 0;                    // --workers: remote workers to wait for
  std::string wait = "60s";            // --workers-wait
  std::string token_file;              // --worker-token-file: token for the remote workers
};

// Adds the four flags to `command`, in that order, with the same help everywhere.
void add_remote_worker_options(CLI::App& command, RemoteWorkerFlags& flags);

struct CheckedRemoteWorkers {
  std::string token;  // sent to the remote workers (empty: none)
  int64_t wait_ns = 0;
};

// The flags checked before the database or any process: the remote workers are --workers-at,
// else those the scenarios name in [workers] at; --workers needs some (check_workers_flags),
// and the token file is read for them (token_for_workers, warnings on `log`).
Expected<CheckedRemoteWorkers> check_remote_worker_flags(
    const RemoteWorkerFlags& flags, const std::vector<scenario::Scenario>& scenarios, FILE* log);

}  // namespace benchgate::cli
