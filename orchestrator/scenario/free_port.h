// A free TCP port on the loopback interface, for ${port:NAME}.
#pragma once

#include <cstdint>

#include "common/util/expected.h"

namespace benchgate::scenario {

// Binds 127.0.0.1:0, reads the port the kernel chose and closes the socket. Another process may
// take the port before it is used; the window is short and the run reports a bind failure.
Expected<uint16_t> allocate_loopback_port();

}  // namespace benchgate::scenario
