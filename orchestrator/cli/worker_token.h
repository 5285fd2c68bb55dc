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

inline constexpr const char* kWorkerTokenFileHelp =
    "Send the token in this file (its first line; mode 0600, owner only, or 0440 with this "
    "process's own group) on every call to "
    "the --workers-at workers, as 'authorization: Bearer TOKEN' (their --token-file)";

// The token for the workers at `addresses`: read from `token_file` (empty: no token). A token
// file without addresses is a usage error (it would be silently unused). Each address on the
// network reached without a token gets a warning on `log`.
Expected<std::string> token_for_workers(const std::string& token_file,
                                        const std::vector<std::string>& addresses, FILE* log);

}  // namespace benchgate::cli
