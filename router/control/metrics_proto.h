// Translation of the router's domain metrics into RouterControl's protobuf messages. The
// counter names and labels here are the contract documented in router_control.proto.
#pragma once

#include "benchgate/v1/router_control.pb.h"
#include "router/metrics/snapshot.h"

namespace benchgate::router::control {

// Scalar counters are always present (also at zero); http_requests {route, status} only for
// combinations that were answered at least once. WAMP counters and gauges only when the
// snapshot carries them (the WAMP router runs), then as add_wamp() in metrics_proto.cc says.
void to_proto(const metrics::Snapshot& snapshot, benchgate::v1::MetricsSnapshot& out);

}  // namespace benchgate::router::control
