// Where the bundled router and worker are found, for every command that starts them (`run`,
// `calibrate`, `serve`, `worker-check`): one rule, so that each command starts the same binary.
#pragma once

#include <string>

namespace benchgate::app {

// `given` (the --router-bin / --worker-bin flag) when not empty; else $`env_override`; else
// `name` next to the orchestrator's own executable (build/bin/ or an install prefix); else
// `name` itself, to be found on PATH (or named as not found when it is spawned).
std::string bundled_binary(const std::string& given, const std::string& name,
                           const char* env_override);

// True when the worker executable is the bundled one, which takes --token-file: neither
// --worker-bin (`worker_bin_flag`) nor $BENCHGATE_WORKER_BIN chose another program.
bool spawns_bundled_worker(const std::string& worker_bin_flag);

}  // namespace benchgate::app
