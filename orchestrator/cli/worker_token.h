// --worker-token-file, shared by `run`, `serve` and `worker-check`: the token the orchestrator
// sends to workers it did not spawn (README "Security").
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/util/expected.h"

namespace benchgate::cli {

inline constexpr const char* kWorkersAtHelp =
    "Connect to running workers at HOST:PORT, or at every address NAME resolves to with "
    "dns:NAME:PORT (a headless Service; waits until the scenario's workers answer), instead of "
    "spawning them (repeat or comma-separate)";

inline constexpr const char* kWorkersHelp =
    "Wait until this many remote workers (--workers-at, else the scenario's [workers] at) "
    "answer Describe before the first workload (default: the scenario's [workers] count, else "
    "as many as its workloads use)";

inline constexpr const char* kWorkersWaitHelp =
    "How long to wait for the remote workers to answer (e.g. 60s, 5m)";

// --workers and --workers-wait: the wait in nanoseconds, or why not. `any_remote`: the workers
// come from --workers-at or from a scenario's [workers] at (--workers alone would be unused).
Expected<int64_t> check_workers_flags(size_t workers, const std::string& wait, bool any_remote);

inline constexpr const char* kWorkerTokenFileHelp =
    "Send the token in this file (its first line; mode 0600, owner only, or 0440 with this "
    "process's own group) on every call to "
    "the --workers-at workers, as 'authorization: Bearer TOKEN' (their --token-file)";

// The token for the workers at `addresses`: read from `token_file` (empty: no token). A token
// file without addresses is a usage error (it would be silently unused). Each address on the
// network reached without a token gets a warning on `log` (not a loopback host, not unix:PATH).
Expected<std::string> token_for_workers(const std::string& token_file,
                                        const std::vector<std::string>& addresses, FILE* log);

}  // namespace benchgate::cli
