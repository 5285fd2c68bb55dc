// Large outbound WAMP frames waiting in the connections' queues, counted against the
// buffered-bytes budget once however many queues hold them (an EVENT is serialized once and
// the same bytes reach every subscriber using that serializer). A frame counts what its buffer
// holds, its capacity (as the queue limit does, router/wamp/connection.h): a message written
// into a buffer that grew by doubling holds up to twice its size. Frames whose buffer holds up
// to memory::kUnbudgetedBytes are not counted. Touched only from the WAMP thread.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "router/memory/buffer_budget.h"
#include "router/wamp/peer.h"

namespace benchgate::router::wamp {

class FrameLedger {
 public:
  // Without a budget (nullptr) every frame may be queued and nothing is tracked.
  explicit FrameLedger(memory::BufferBudget* budget) : budget_(budget) {}
  FrameLedger(const FrameLedger&) = delete;
  FrameLedger& operator=(const FrameLedger&) = delete;

  // A queue takes `frame`: true when it may. A large frame is reserved when the first queue
  // takes it; false (and nothing changes) when the budget has no room for it.
  bool take(const Frame& frame, memory::BudgetUser user);
  // A queue lets go of `frame` (written, or the queue cleared); the last one gives it back.
  void release(const Frame& frame);

 private:
  memory::BufferBudget* const budget_;
  std::unordered_map<const void*, uint32_t> holders_;  // large frames by address: queues
};

}  // namespace benchgate::router::wamp
