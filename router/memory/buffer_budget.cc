// The buffered-bytes budget (see buffer_budget.h).
#include "router/memory/buffer_budget.h"

#include <algorithm>

namespace benchgate::router::memory {

std::string_view budget_user_label(BudgetUser user) {
  switch (user) {
    case BudgetUser::http:
      return "http";
    case BudgetUser::websocket:
      return "websocket";
    case BudgetUser::rawsocket:
      return "rawsocket";
  }
  return "http";
}

bool BufferBudget::try_reserve(uint64_t bytes, BudgetUser user) {
  // A compare-and-swap loop rather than add-then-check, so that what is in use never passes
  // the limit, not even for a moment between two threads.
  uint64_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ || used > limit_ - bytes) {
      refusals_[static_cast<size_t>(user)].fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  } while (!in_use_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

void BufferBudget::release(uint64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }

void BufferBudget::reset_refusals() {
  for (auto& refusals : refusals_) refusals.store(0, std::memory_order_relaxed);
}

uint64_t trusted_capacity(uint64_t held, uint64_t announced) {
  // held is at most a message buffer's size, far from overflowing the products.
  if (announced <= kMaxGrowth * (held + kGrowthReadBytes)) return announced;
  // A step short of the end is exactly kMaxGrowth times what is held: a RawSocket connection's
  // full 64 KiB read buffer grows to 1 MiB, which the WAMP thread can keep as its spare
  // (kSpareBufferBytes) for the next large frame. The read's slack above lets 1 MiB grow to the
  // largest RawSocket frame (16 MiB - 1 and its 4-byte header, 3 bytes past 16 x 1 MiB) in one
  // step, not two.
  return kMaxGrowth * std::max(held, kGrowthReadBytes);
}

bool Reservation::would_fit(uint64_t capacity) const {
  const uint64_t wanted = capacity > kUnbudgetedBytes ? capacity : 0;
  if (budget_ == nullptr || wanted <= held_) return true;
  const uint64_t more = wanted - held_;
  const uint64_t used = budget_->in_use();
  return more <= budget_->limit() && used <= budget_->limit() - more;
}

bool Reservation::resize(uint64_t capacity) {
  const uint64_t wanted = capacity > kUnbudgetedBytes ? capacity : 0;
  if (budget_ == nullptr || wanted == held_) return true;
  if (wanted < held_) {
    budget_->release(held_ - wanted);
  } else if (!budget_->try_reserve(wanted - held_, user_)) {
    return false;
  }
  held_ = wanted;
  return true;
}

}  // namespace benchgate::router::memory
