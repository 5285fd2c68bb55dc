// The HTTP/1.1 load generator as a ProtocolDriver: one pipelined connection per
// `connections`, nothing around the window.
#pragma once

#include <memory>

#include "worker/engine/protocol_driver.h"

namespace benchgate::worker::http {

std::unique_ptr<ProtocolDriver> make_http_driver(const LoadPlan& plan);

}  // namespace benchgate::worker::http
