// The HTTP/2 load generator as a ProtocolDriver: one Session per `connections`, each with up to
// `streams` concurrent streams, nothing around the window.
#pragma once

#include <memory>

#include "worker/engine/protocol_driver.h"

namespace benchgate::worker::http2 {

std::unique_ptr<ProtocolDriver> make_http2_driver(const WorkloadSpec& spec, const LoadPlan& plan);

}  // namespace benchgate::worker::http2
