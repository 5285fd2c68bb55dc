// The load generator of one protocol, as the engine sees it (docs/CONTRIBUTING.md, rule 4): how
// many connections the workload opens, how to make each, and what the protocol adds around a window
// (WAMP pub/sub waits for events still on their way and counts the lost ones).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>

#include "common/util/expected.h"
#include "worker/engine/load_connection.h"
#include "worker/engine/load_plan.h"
#include "worker/engine/thread_state.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

class ProtocolDriver {
 public:
  virtual ~ProtocolDriver() = default;

  // Every connection the workload opens (load generating or not), spread over the threads.
  virtual uint32_t sessions() const = 0;
  // Connection `index` of sessions(); indices below LoadPlan::connections generate load.
  virtual std::unique_ptr<LoadConnection> make_connection(boost::asio::io_context& io,
                                                          ThreadState& thread, uint32_t index) = 0;
  // Before a window's threads are told about it.
  virtual void window_starting() {}
  // After every thread drained: whether nothing is still on its way (polled until the drain
  // deadline).
  virtual bool window_settled() const { return true; }
  // Adds the protocol's own figures to a window's result.
  virtual void complete(WindowResult& /*result*/) const {}
};

// The driver for spec.protocol. `plan` is the engine's (it outlives the driver's connections).
Expected<std::unique_ptr<ProtocolDriver>> make_protocol_driver(const WorkloadSpec& spec,
                                                               const LoadPlan& plan);

}  // namespace benchgate::worker
