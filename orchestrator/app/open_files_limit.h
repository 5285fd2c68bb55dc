// The process's limit on open files (RLIMIT_NOFILE), raised for `orchestrator serve`.
#pragma once

#include <cstdint>

#include "common/util/expected.h"

namespace benchgate::app {

// The soft limit before and after a raise.
struct OpenFilesLimit {
  uint64_t before = 0;
  uint64_t after = 0;
};

// Raises the soft RLIMIT_NOFILE to the hard one. Every connection to `serve` is a descriptor,
// and gRPC 1.51 has no bound on how many it accepts: at the soft limit (1,024 on many systems)
// its accept fails with EMFILE and gRPC stops accepting on that port for good, so that every
// later client times out until the service is restarted. The hard limit is what the machine's
// administrator allows; no privilege is needed to raise the soft one to it. An error says why
// the limit could not be read or set (the soft limit is then as it was).
Expected<OpenFilesLimit> raise_open_files_limit();

}  // namespace benchgate::app
