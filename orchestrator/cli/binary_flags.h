// The help of --router-bin and --worker-bin, the same in every command that takes them (`run`,
// `calibrate`, `serve`, `worker-check`), in the order orchestrator/app/bundled_binary.h looks.
#pragma once

namespace benchgate::cli {

inline constexpr const char* kRouterBinHelp =
    "Router executable (default: $BENCHGATE_ROUTER_BIN when set, else `router` next to the "
    "orchestrator, else `router` on PATH); a stored run records its path and build-id, while its "
    "commit and branch stay --commit's and --branch's, else this folder's";
inline constexpr const char* kWorkerBinHelp =
    "Worker executable (default: $BENCHGATE_WORKER_BIN when set, else `worker` next to the "
    "orchestrator, else `worker` on PATH)";

}  // namespace benchgate::cli
