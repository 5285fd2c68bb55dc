// WAMP v2 load as a ProtocolDriver. Connections of a workload, in index order:
//   wamp_rpc:    `connections` callers, then `callee_sessions` callees when callee = "worker"
//                (one unless the registration is shared: invoke roundrobin, random, ...);
//   wamp_pubsub: `publishers` publishers, then `subscribers` subscribers;
//   wamp_transfer: `connections` transfer sessions (one session lifecycle per transfer).
// The load-generating sessions come first, so their indices stagger the open-loop schedule.
#pragma once

#include <memory>

#include "common/util/expected.h"
#include "worker/engine/protocol_driver.h"
#include "worker/wamp/wamp_plan.h"

namespace benchgate::worker::wamp {

// The plan's shared parts for `spec` (payload, templates, setup messages).
WampPlan build_plan(const WorkloadSpec& spec, const LoadPlan& load);

Expected<std::unique_ptr<ProtocolDriver>> make_wamp_driver(const WorkloadSpec& spec,
                                                           const LoadPlan& load);

}  // namespace benchgate::worker::wamp
