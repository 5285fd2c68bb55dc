// The help of --router-bin and --worker-bin in the commands that take them (`run`, `calibrate`,
// `serve`, `worker-check`): one default, in the order orchestrator/app/bundled_binary.h looks,
// and for the router what each command does with the binary it names, which differs: `run` and
// `calibrate` store the working folder's commit beside it, `serve` stores what its client sent,
// `worker-check` stores nothing.
#pragma once

namespace benchgate::cli {

#define BENCHGATE_ROUTER_BIN_DEFAULT                                                       \
  "Router executable (default: $BENCHGATE_ROUTER_BIN when set, else `router` next to the " \
  "orchestrator, else `router` on PATH)"

inline constexpr const char* kRouterBinHelp = BENCHGATE_ROUTER_BIN_DEFAULT
    "; a stored run records its path and build-id, while its commit and branch stay --commit's "
    "and --branch's, else this folder's";
inline constexpr const char* kServeRouterBinHelp = BENCHGATE_ROUTER_BIN_DEFAULT
    "; a stored run records its path and build-id, while its commit and branch are the ones "
    "its client sent (none for an --every run), never a folder's";
inline constexpr const char* kWorkerCheckRouterBinHelp = BENCHGATE_ROUTER_BIN_DEFAULT
    ", started as the target of the worker's load; worker-check stores no run";

#undef BENCHGATE_ROUTER_BIN_DEFAULT

inline constexpr const char* kWorkerBinHelp =
    "Worker executable (default: $BENCHGATE_WORKER_BIN when set, else `worker` next to the "
    "orchestrator, else `worker` on PATH)";

}  // namespace benchgate::cli
