// Validation of a workload and of a window before anything connects, with messages a user
// can act on (they end up in the gRPC status of the Run stream).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/expected.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// "HOST:PORT" or "[V6]:PORT"; the port must be 1..65535.
Expected<HostPort> split_address(std::string_view address);

Expected<void> validate_workload(const WorkloadSpec& spec);
Expected<void> validate_window(const WindowCommand& window);

}  // namespace benchgate::worker
