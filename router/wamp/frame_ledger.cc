// Queued frames against the buffered-bytes budget (see frame_ledger.h).
#include "router/wamp/frame_ledger.h"

namespace benchgate::router::wamp {

bool FrameLedger::take(const Frame& frame, memory::BudgetUser user) {
  if (budget_ == nullptr || frame->capacity() <= memory::kUnbudgetedBytes) return true;
  // The queues hold the frame (a shared_ptr), so its address is unique while it is tracked.
  auto [it, first] = holders_.try_emplace(frame.get(), 0);
  if (first && !budget_->try_reserve(frame->capacity(), user)) {
    holders_.erase(it);
    return false;
  }
  ++it->second;
  return true;
}

void FrameLedger::release(const Frame& frame) {
  if (budget_ == nullptr || frame->capacity() <= memory::kUnbudgetedBytes) return;
  auto it = holders_.find(frame.get());
  if (it == holders_.end()) return;
  if (--it->second == 0) {
    budget_->release(frame->capacity());
    holders_.erase(it);
  }
}

}  // namespace benchgate::router::wamp
